"""A fleet of contexts for the tests of `check --all-contexts` and the dashboard's Fleet screen:
the session's ZooKeeper-mode and KRaft sandboxes, two named sandboxes of one config file
(contexts `sandbox` and `kraft`), plus a context whose Kafka is a closed port; or the contexts
of sandboxes with config files of their own, gathered into one (`sandboxes_config`)."""

from __future__ import annotations

import os

import yaml

from tests.integration.kafka_helpers import free_address


def sandbox_context(running) -> dict:
    return yaml.safe_load(running.config_path.read_text())["contexts"][running.context]


def fleet_config(tmp_path, sandbox, kraft_sandbox, **more: dict) -> dict[str, str]:
    """The session's config, where the two sandboxes wrote their contexts (sandbox, kraft), with a
    dead context and `more` added; the env to use it."""
    assert sandbox.config_path == kraft_sandbox.config_path  # one fleet: one file
    data = yaml.safe_load(sandbox.config_path.read_text())
    assert {sandbox.context, kraft_sandbox.context} <= set(data["contexts"]), data["contexts"].keys()
    data["contexts"] = {name: data["contexts"][name] for name in (sandbox.context, kraft_sandbox.context)}
    data["contexts"]["dead"] = {"kafka": {"bootstrap_servers": free_address(), "timeout": 5}}
    data["contexts"].update(more)
    data["current-context"] = sandbox.context
    return fleet_env(tmp_path, data)


def sandboxes_config(tmp_path, *running) -> dict[str, str]:
    """One config file holding each running sandbox's context, read from its own config file (a
    sandbox of a module's own writes into a file of its own), the first one current; the env to use it."""
    contexts = {sandbox.context: sandbox_context(sandbox) for sandbox in running}
    assert len(contexts) == len(running), [sandbox.context for sandbox in running]  # one name each
    return fleet_env(tmp_path, {"contexts": contexts, "current-context": running[0].context})


def fleet_env(tmp_path, data: dict) -> dict[str, str]:
    """Write `data` as the fleet's config file under tmp_path; the env to use it."""
    path = tmp_path / "fleet.yaml"
    path.write_text(yaml.safe_dump(data))
    return {**os.environ, "STREAMCTL_CONFIG": str(path), "XDG_STATE_HOME": str(tmp_path / "state")}
