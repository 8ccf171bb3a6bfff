"""The context a sandbox writes into the config file: `sandbox` for the default one, NAME for
`sandbox up --name NAME` (and, for a secure or TLS sandbox, the contexts beside it); marked as
the sandbox's own so that a user's context of that name is never replaced nor removed."""

from __future__ import annotations

from pathlib import Path

from streamctl.sandbox import names
from streamctl.sandbox import secure as sandbox_secure
from streamctl.sandbox import tls as sandbox_tls
from streamctl.sandbox.addons import addons
from streamctl.sandbox.state import SandboxState

CONTEXT = names.DEFAULT  # the context `up` writes for the default sandbox
MANAGED_BY = "streamctl-sandbox"  # its mark: a context without it is the user's, never replaced


def check_replaceable(config_path: Path | None, name: str = CONTEXT) -> None:
    """Refuse, before a service starts, a context `name` that the user wrote."""
    from streamctl.config.write import check_context_replaceable

    check_context_replaceable(name, MANAGED_BY, path=config_path)


def write(root: Path, config_path: Path | None, state: SandboxState, name: str = CONTEXT) -> bool:
    """Write (or rewrite) the context `name`. The default sandbox's becomes current-context only in
    a file that names none; a named sandbox's never does (`streamctl contexts use NAME` switches).
    Returns whether it is the current context."""
    from streamctl.config.write import save_context

    context: dict = {"kafka": {"bootstrap_servers": state.bootstrap_servers,
                               "expected_brokers": state.brokers, "timeout": 10.0}}
    if state.zookeeper_hosts:
        context["zookeeper"] = {"hosts": state.zookeeper_hosts,
                                "admin_url": f"http://127.0.0.1:{state.admin_port}/commands"}
    fragments = [sandbox_secure.context_fragment(root, kraft=state.mode == "kraft")] if state.secure else []
    fragments += [addon.context(state) for addon in addons() if state.by_role(addon.role)]
    for fragment in fragments:
        for key, part in fragment.items():
            context[key] = {**context.get(key, {}), **part}
    if sandbox_tls.enabled(state) and "connect" in context:  # the worker's REST API is HTTPS only
        context["connect"] |= sandbox_tls.connect_client(root)
    current = save_context(name, context, path=config_path, current="if-unset" if name == CONTEXT else "never",
                           managed_by=MANAGED_BY)
    if state.secure:
        save_context(monitor_context_name(name), sandbox_secure.monitor_context(context, root),
                     path=config_path, current="never", managed_by=MANAGED_BY)
    if sandbox_tls.enabled(state):
        sandbox_tls.save_context(root, state, context, config_path, tls_context_name(name))
    return current


def remove(config_path: Path | None, name: str) -> list[str]:
    """Remove the contexts the sandbox `name` wrote (its own, -tls, -monitor); returns those removed."""
    from streamctl.config.write import remove_managed_context

    candidates = [name, tls_context_name(name), monitor_context_name(name)]
    return [c for c in candidates if remove_managed_context(c, MANAGED_BY, path=config_path)]


def tls_context_name(name: str) -> str:
    return names.derived_context(name, "-tls")  # `sandbox-tls` (tls.CONTEXT) for the default one


def monitor_context_name(name: str) -> str:
    return names.derived_context(name, "-monitor")  # `sandbox-monitor` (secure.MONITOR_CONTEXT) likewise
