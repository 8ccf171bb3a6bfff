"""Starting and stopping Flume agents: planned, executed, verified against the metrics
endpoint, audited. The CLI (`agents start|stop`) and the dashboard both run through here."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from streamctl.errors import StreamctlError, UsageError
from streamctl.ops import Change, Plan, execute


@dataclass
class AgentPlan(Plan):
    """A plan plus what executing it needs (the agent, how it is controlled, the sandbox)."""

    wanted: str = "running"  # running | stopped
    extras: dict = field(default_factory=dict)


def local_sandbox(config_path=None, context_name: str | None = None):
    """The local sandbox, if there is one (its agents are started and stopped through it): the
    one named after the context (`sandbox up --name NAME` writes the context NAME), else the default."""
    from streamctl.sandbox import names
    from streamctl.sandbox.stack import Sandbox

    name = context_name if context_name in names.known() else names.DEFAULT
    sandbox = Sandbox(config_path=config_path, name=name)
    return sandbox if sandbox.state_file.exists() else None


def configured_agent(ctx, name: str):
    found = ctx.flume.agents.get(name)
    if found is None:
        known = ", ".join(sorted(ctx.flume.agents)) or "none configured"
        raise UsageError(f"no Flume agent {name!r} in context '{ctx.name}' (known: {known})")
    return found


def plan(ctx, name: str, wanted: str, sandbox=None) -> AgentPlan:
    from streamctl.flume import control as agent_control

    operation = "agents.start" if wanted == "running" else "agents.stop"
    agent = configured_agent(ctx, name)
    control = agent_control.control_for(name, agent, sandbox)
    if not control.controllable:
        raise UsageError(f"agent {name!r} has no command or config_file in the config: "
                         f"streamctl cannot {operation.split('.')[1]} it")
    before = agent_control.process_state(name, control, sandbox)
    if wanted == "stopped" and before == "stopped" and control.how != "sandbox" \
            and agent_control.answers(agent.metrics_url):
        raise StreamctlError(f"agent {name!r} answers at {agent.metrics_url} but streamctl did not start "
                             "it (no live process in its pid file): stop it where it was started")
    result = AgentPlan(operation, f"agent {name}", {"agent": name, "control": control.how}, wanted=wanted,
                       extras={"agent": agent, "control": control, "sandbox": sandbox, "name": name})
    if before != wanted:
        result.changes.append(Change(f"agent {name}", "process", before, wanted, control.detail))
    return result


def apply(ctx, agent_plan: AgentPlan) -> str:
    """Carry the plan out and wait until the metrics endpoint agrees; returns one line."""
    from streamctl.flume import control as agent_control

    name, agent = agent_plan.extras["name"], agent_plan.extras["agent"]
    control, sandbox = agent_plan.extras["control"], agent_plan.extras["sandbox"]
    if agent_plan.wanted == "running":
        def alive() -> bool:
            return control.how == "sandbox" or agent_control.recorded_process(name) is not None

        return execute(agent_plan, ctx.name, lambda: agent_control.start(name, agent, control, sandbox),
                       lambda: wait_answering(agent.metrics_url, name, alive))
    return execute(agent_plan, ctx.name, lambda: agent_control.stop(name, control, sandbox),
                   lambda: wait_silent(agent.metrics_url, name))


def wait_answering(url: str, name: str, alive, timeout: float = 90.0) -> list:
    from streamctl.backends.flume import FlumeError, fetch
    from streamctl.flume.control import log_file

    deadline = time.monotonic() + timeout
    while True:
        try:
            payload = fetch(url, timeout=2.0)
            why = "no component registered yet"  # Jetty answers a moment before the components
        except FlumeError as exc:
            payload, why = {}, str(exc)
        if payload:
            return [[f"agent {name}", "process", "running"], [f"agent {name}", "components", sorted(payload)]]
        if not alive():
            raise StreamctlError(f"agent {name} exited while starting; see {log_file(name)}")
        if time.monotonic() > deadline:
            raise StreamctlError(f"agent {name} started but its metrics endpoint {url} did not answer "
                                 f"within {timeout:.0f} s ({why})")
        time.sleep(0.5)


def wait_silent(url: str, name: str, timeout: float = 10.0) -> list:
    from streamctl.backends.flume import FlumeError, fetch

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            fetch(url, timeout=1.0)
        except FlumeError:
            return [[f"agent {name}", "process", "stopped"]]
        time.sleep(0.3)
    raise StreamctlError(f"agent {name} still answers at {url} after stopping it")
