"""`streamctl agents`: Flume agents of the context: list, status, lint; start and stop."""

from __future__ import annotations

import json
import sys

import click

from streamctl.console import OUTPUT, emit
from streamctl.errors import ExitCode, UsageError
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


@click.group()
def agents() -> None:
    """Flume agents: list, status, lint (operations: start, stop)."""


def _agent(ctx, name: str):
    from streamctl.flume.plans import configured_agent

    return configured_agent(ctx, name)


def _sandbox(session: Session):
    from streamctl.flume.plans import local_sandbox

    return local_sandbox(session.config_path, session.context().name)


@agents.command("list")
@OUTPUT
@click.pass_obj
def agents_list(session: Session, output: str) -> None:
    """Configured agents: metrics URL, config file, how streamctl starts them, process state.

    \b
    Example:
      streamctl agents list -o json
    """
    from streamctl.flume.control import control_for, process_state

    ctx = session.context()
    sandbox = _sandbox(session)
    rows = []
    for name, agent in sorted(ctx.flume.agents.items()):
        control = control_for(name, agent, sandbox)
        rows.append({"agent": name, "metrics_url": agent.metrics_url,
                     "config_file": str(agent.config_file) if agent.config_file else None,
                     "control": control.how, "control_detail": control.detail,
                     "process": process_state(name, control, sandbox)})
    from streamctl.flume.render import agents_table

    emit(output, rows, agents_table)


@agents.command("status")
@click.argument("name", required=False)
@OUTPUT
@click.pass_obj
def agents_status(session: Session, name: str | None, output: str) -> None:
    """Counters and rates of each agent's sources, channels and sinks (exit 1 if one is down).

    Rates compare with the previous poll kept in the state dir (by this command or `check`).

    \b
    Examples:
      streamctl agents status
      streamctl agents status weblogs -o json
    """
    from concurrent.futures import ThreadPoolExecutor

    from streamctl.backends.flume import DEFAULT_TIMEOUT, status_dict
    from streamctl.flume.definition import sink_bindings
    from streamctl.flume.history import observe

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
    from streamctl.flume.render import status_table

    emit(output, [status_dict(s) for s in statuses], lambda _: status_table(statuses))
    if not all(s.up for s in statuses):
        sys.exit(ExitCode.FAILURE)  # the CLI's main() does not pass on click's ctx.exit codes


@agents.command("lint")
@click.argument("file")
@OUTPUT
def agents_lint(file: str, output: str) -> None:
    """Check a Flume agent definition; `FILE:LINE: key: problem` per problem, exit 1 if any.

    \b
    Example:
      streamctl agents lint agents/weblogs.properties
    """
    from streamctl.flume.lint import lint_file

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
        sys.exit(ExitCode.FAILURE)  # the CLI's main() does not pass on click's ctx.exit codes


def _run(session: Session, operation: str, name: str, execute: bool, output: str, wanted: str) -> None:
    from streamctl.flume import plans as agent_ops
    from streamctl.ops import require_writable

    ctx = session.context()
    require_writable(operation, ctx, session.read_only_flag, execute)
    plan = agent_ops.plan(ctx, name, wanted, _sandbox(session))
    show(plan, output)
    finish(plan, execute, lambda: f"done: agent {name}: {agent_ops.apply(ctx, plan)}",
           nothing=f"nothing to change: agent {name} is already {wanted}")


@agents.command("start")
@click.argument("name")
@EXECUTE
@OUTPUT
@click.pass_obj
def agents_start(session: Session, name: str, execute: bool, output: str) -> None:
    """Start an agent (the sandbox's, or a configured command); dry run unless --execute.

    \b
    Examples:
      streamctl agents start weblogs             # the plan
      streamctl agents start weblogs --execute
    """
    _run(session, "agents.start", name, execute, output, "running")


@agents.command("stop")
@click.argument("name")
@EXECUTE
@OUTPUT
@click.pass_obj
def agents_stop(session: Session, name: str, execute: bool, output: str) -> None:
    """Stop an agent: SIGTERM, SIGKILL after 20 s; dry run unless --execute.

    \b
    Example:
      streamctl agents stop weblogs --execute
    """
    _run(session, "agents.stop", name, execute, output, "stopped")
