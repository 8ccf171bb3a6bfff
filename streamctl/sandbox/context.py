"""The `sandbox` context the sandbox writes into the config file (and, for a secure or TLS
sandbox, the contexts beside it); marked as its own so that a user's context of that name is
never replaced."""

from __future__ import annotations

from pathlib import Path

from streamctl.sandbox import secure as sandbox_secure
from streamctl.sandbox import tls as sandbox_tls
from streamctl.sandbox.addons import addons
from streamctl.sandbox.state import SandboxState

CONTEXT = "sandbox"  # the context `up` writes
MANAGED_BY = "streamctl-sandbox"  # its mark: a context without it is the user's, never replaced


def check_replaceable(config_path: Path | None) -> None:
    """Refuse, before a service starts, a `sandbox` context that the user wrote."""
    from streamctl.config.write import check_context_replaceable

    check_context_replaceable(CONTEXT, MANAGED_BY, path=config_path)


def write(root: Path, config_path: Path | None, state: SandboxState) -> bool:
    """Write (or rewrite) the `sandbox` context; it becomes current-context only in a file that
    names none. Returns whether it is the current context."""
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
    current = save_context(CONTEXT, context, path=config_path, current="if-unset", managed_by=MANAGED_BY)
    if state.secure:
        save_context(sandbox_secure.MONITOR_CONTEXT, sandbox_secure.monitor_context(context, root),
                     path=config_path, current="never", managed_by=MANAGED_BY)
    if sandbox_tls.enabled(state):
        sandbox_tls.save_context(root, state, context, config_path)
    return current
