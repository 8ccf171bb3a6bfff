"""`streamctl agents`: Flume agents of the context: list, status, lint; start and stop."""

from __future__ import annotations

import json
import sys

import click

from streamctl.commands.common import OUTPUT, Session, emit
from streamctl.errors import StreamctlError, UsageError

EXECUTE = click.option("--execute", is_flag=True, help="Apply the plan (without it: a dry run).")


@click.group()
def agents() -> None:
    """Flume agents: list, status, lint (operations: start, stop)."""


def _agent(ctx, name: str):
    found = ctx.flume.agents.get(name)
    if found is None:
        known = ", ".join(sorted(ctx.flume.agents)) or "none configured"
        raise UsageError(f"no Flume agent {name!r} in context '{ctx.name}' (known: {known})")
    return found


def _sandbox(session: Session):
    """The local sandbox, if there is one (its agents are started and stopped through it)."""
    from streamctl.sandbox import Sandbox

    sandbox = Sandbox(config_path=session.config_path)
    return sandbox if sandbox.state_file.exists() else None


@agents.command("list")
@OUTPUT
@click.pass_obj
def agents_list(session: Session, output: str) -> None:
    """Configured agents: metrics URL, config file, how streamctl starts them, process state."""
    from streamctl.agents.control import control_for, process_state

    ctx = session.context()
    sandbox = _sandbox(session)
    rows = []
    for name, agent in sorted(ctx.flume.agents.items()):
        control = control_for(name, agent, sandbox)
        rows.append({"agent": name, "metrics_url": agent.metrics_url,
                     "config_file": str(agent.config_file) if agent.config_file else None,
                     "control": control.how, "control_detail": control.detail,
                     "process": process_state(name, control, sandbox)})
    from streamctl.ui_agents import agents_table

    emit(output, rows, agents_table)


@agents.command("status")
@click.argument("name", required=False)
@OUTPUT
@click.pass_obj
def agents_status(session: Session, name: str | None, output: str) -> None:
    """Counters and rates of each agent's sources, channels and sinks (exit 1 if one is down).

    Rates compare with the previous poll kept in the state dir (by this command or `check`).
    """
    from concurrent.futures import ThreadPoolExecutor

    from streamctl.backends.flume import DEFAULT_TIMEOUT, status_dict
    from streamctl.backends.flume_history import observe
    from streamctl.flume_config import sink_bindings

    ctx = session.context()
    chosen = {name: _agent(ctx, name)} if name else dict(sorted(ctx.flume.agents.items()))
    if not chosen:
        raise UsageError(f"context '{ctx.name}' has no Flume agents (flume.agents in the config)")

    def one(item):
        agent_name, agent = item
        return observe(ctx.name, agent_name, agent.metrics_url, DEFAULT_TIMEOUT,
                       bindings=sink_bindings(agent.config_file, agent_name))

    with ThreadPoolExecutor(max_workers=min(8, len(chosen))) as pool:
        statuses = list(pool.map(one, chosen.items()))
    from streamctl.ui_agents import status_table

    emit(output, [status_dict(s) for s in statuses], lambda _: status_table(statuses))
    if not all(s.up for s in statuses):
        sys.exit(1)  # the CLI's main() does not pass on click's ctx.exit codes


@agents.command("lint")
@click.argument("file")
@OUTPUT
def agents_lint(file: str, output: str) -> None:
    """Check a Flume agent definition; `FILE:LINE: key: problem` per problem, exit 1 if any."""
    from streamctl.flume_lint import lint_file

    problems = lint_file(file)
    if output == "json":
        click.echo(json.dumps([{"file": file, "line": p.line, "key": p.key, "problem": p.message}
                               for p in problems], indent=2))
    else:
        for problem in problems:
            click.echo(problem.format(file))
        if not problems:
            click.echo(f"{file}: OK")
    if problems:
        sys.exit(1)  # the CLI's main() does not pass on click's ctx.exit codes


def _plan(operation: str, name: str, control, before: str, after: str):
    from streamctl.ops import Change, Plan

    plan = Plan(operation, f"agent {name}", {"agent": name, "control": control.how})
    if before != after:
        plan.changes.append(Change(f"agent {name}", "process", before, after, control.detail))
    return plan


def _run(session: Session, operation: str, name: str, execute: bool, output: str, wanted: str) -> None:
    from streamctl.agents import control as agent_control
    from streamctl.ops import execute as run
    from streamctl.ops import require_writable

    ctx = session.context()
    require_writable(operation, ctx, session.read_only_flag)
    agent = _agent(ctx, name)
    sandbox = _sandbox(session)
    control = agent_control.control_for(name, agent, sandbox)
    if not control.controllable:
        raise UsageError(f"agent {name!r} has no command or config_file in the config: "
                         f"streamctl cannot {operation.split('.')[1]} it")
    before = agent_control.process_state(name, control, sandbox)
    if wanted == "stopped" and before == "stopped" and control.how != "sandbox" \
            and agent_control.answers(agent.metrics_url):
        raise StreamctlError(f"agent {name!r} answers at {agent.metrics_url} but streamctl did not start "
                             "it (no live process in its pid file): stop it where it was started")
    plan = _plan(operation, name, control, before, wanted)
    if output == "json":
        click.echo(json.dumps(plan.as_dict(), indent=2, default=str))
    else:
        from streamctl.ui_ops import plan_table

        plan_table(plan)
    if not plan.changes:
        click.echo(f"nothing to change: agent {name} is already {wanted}", err=True)
        return
    if not execute:
        click.echo("dry run: nothing changed; add --execute to apply", err=True)
        return
    if wanted == "running":
        def alive() -> bool:
            return control.how == "sandbox" or agent_control.recorded_process(name) is not None

        done = run(plan, ctx.name, lambda: agent_control.start(name, agent, control, sandbox),
                   lambda: _wait_answering(agent.metrics_url, name, alive))
    else:
        done = run(plan, ctx.name, lambda: agent_control.stop(name, control, sandbox),
                   lambda: _wait_silent(agent.metrics_url, name))
    click.echo(f"done: agent {name}: {done}", err=True)


def _wait_answering(url: str, name: str, alive, timeout: float = 90.0) -> list:
    import time

    from streamctl.agents.control import log_file
    from streamctl.backends.flume import FlumeError, fetch

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


def _wait_silent(url: str, name: str, timeout: float = 10.0) -> list:
    import time

    from streamctl.backends.flume import FlumeError, fetch

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            fetch(url, timeout=1.0)
        except FlumeError:
            return [[f"agent {name}", "process", "stopped"]]
        time.sleep(0.3)
    raise StreamctlError(f"agent {name} still answers at {url} after stopping it")


@agents.command("start")
@click.argument("name")
@EXECUTE
@OUTPUT
@click.pass_obj
def agents_start(session: Session, name: str, execute: bool, output: str) -> None:
    """Start an agent (the sandbox's, or a configured command); dry run unless --execute."""
    _run(session, "agents.start", name, execute, output, "running")


@agents.command("stop")
@click.argument("name")
@EXECUTE
@OUTPUT
@click.pass_obj
def agents_stop(session: Session, name: str, execute: bool, output: str) -> None:
    """Stop an agent: SIGTERM, SIGKILL after 20 s; dry run unless --execute."""
    _run(session, "agents.stop", name, execute, output, "stopped")
