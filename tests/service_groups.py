"""Which pytest-xdist worker runs a service test under `pytest -n 2 --dist loadgroup`.

`make test` runs serially: the one rehearsal with two workers (2 failed, 1 error, 38:44 against
40:44 serial, on a machine loaded by other work) bought no wall time, since the service tests
compete for the same two cores as the JVMs they drive. The grouping stays for a run that has
cores to spare.

A sandbox is a session fixture: each worker that asks for it starts one of its own. So every
test of one sandbox goes to the same worker (an `xdist_group` named after it) and each sandbox
is started once; a module whose fixture starts its own services (the Spark cluster, S3Proxy, the
TLS sandbox, the four-broker clusters) stays whole in one worker. The tests that start nothing
go wherever a worker is free, beside the service tests of the other worker: most of a service
test's time is spent waiting on the services, not on the cores.
"""

from __future__ import annotations

import pytest

# session fixture -> its group
SESSION_SANDBOXES = {
    "sandbox": "sandbox",
    "kraft_sandbox": "kraft",
    "secure_zookeeper": "secure",
    "secure": "secure",
    "secure_kraft": "secure",  # the modules parametrized over both modes ask for either
}
# fixtures parametrized over the two session sandboxes: param -> group
ON_EITHER_SANDBOX = {"cluster", "stack"}
BY_PARAM = {"zookeeper": "sandbox", "kraft": "kraft"}


def group_of(item: pytest.Item, integration: bool) -> str | None:
    """The group `item` must run in, or None when any worker may run it."""
    params = item.callspec.params if hasattr(item, "callspec") else {}
    groups = {BY_PARAM[params[name]] for name in ON_EITHER_SANDBOX if name in params}
    groups |= {SESSION_SANDBOXES[name] for name in getattr(item, "fixturenames", ()) if name in SESSION_SANDBOXES}
    if "sandbox" in groups:
        return "sandbox"  # a test of both session sandboxes goes with the larger one
    if groups:
        return min(groups)
    if integration:  # its module's own services
        return f"module:{item.nodeid.split('::', 1)[0]}"
    return None


def assign_service_groups(items: list[pytest.Item], is_integration) -> None:
    for item in items:
        group = group_of(item, is_integration(item))
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
