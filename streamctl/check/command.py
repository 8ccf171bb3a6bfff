"""`streamctl check`: headless health evaluation for monitoring."""

from __future__ import annotations

import sys

import click

from streamctl.check.evaluate import COLLECTORS
from streamctl.session import Session
from streamctl.errors import StreamctlError, UsageError


def _components(value: str | None) -> list[str] | None:
    from streamctl.check.evaluate import available

    if value is None:
        return None
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in available()]
    if unknown or not names:
        raise UsageError(f"--component: unknown {', '.join(unknown) or 'empty list'} "
                         f"(choose from {', '.join(available())})")
    return names


@click.command("check")
@click.option("--component", "component", metavar="LIST",
              help=f"Comma-separated components to evaluate, of: {', '.join(COLLECTORS)} "
                   "(default: every one the context configures; quorum, pipeline and probe only when named).")
@click.option("--format", "fmt", type=click.Choice(["nagios", "json", "prometheus"]), default="nagios",
              show_default=True, help="nagios: one line with perfdata; json: docs/check-json-schema.json; "
                                      "prometheus: the textfile format.")
@click.option("--prometheus-textfile", type=click.Path(dir_okay=False), metavar="PATH",
              help="Also write the metrics atomically to PATH (node_exporter textfile collector).")
@click.option("--timeout", type=click.FloatRange(min=0.5), default=20.0, show_default=True,
              help="Global deadline in seconds: past it, what is not evaluated is UNKNOWN.")
@click.option("--probe", is_flag=True,
              help="Also probe end to end: write a marker record into each entry topic's partitions and "
                   "time each reader downstream passing it (audited; refused in read-only contexts; "
                   "give it --timeout 60).")
@click.pass_obj
def check_command(session: Session, component: str | None, fmt: str, prometheus_textfile: str | None,
                  timeout: float, probe: bool) -> None:
    """Evaluate health for monitoring: exit 0 OK, 1 WARN, 2 CRIT, 3 UNKNOWN.

    \b
    Examples:
      streamctl check
      streamctl check --component kafka,connect --format json
      streamctl check --prometheus-textfile /var/lib/node_exporter/streamctl.prom
    """
    import time

    from streamctl.check import render as check
    from streamctl.check.evaluate import configured_components, evaluate

    components = _components(component)
    try:
        ctx = session.context()
        components = components or configured_components(ctx)
        if probe and "probe" not in components:
            components = [*components, "probe"]
    except StreamctlError as exc:
        if fmt == "nagios":
            click.echo(f"STREAMCTL UNKNOWN: {exc}")
        raise
    evaluation = evaluate(ctx, components, _left_of(timeout), read_only=session.read_only_flag)
    now = time.time()
    if prometheus_textfile:
        check.write_prometheus_textfile(evaluation, prometheus_textfile, now)
    render = {"nagios": check.render_nagios, "json": lambda e: check.render_json(e, now),
              "prometheus": lambda e: check.render_prometheus(e, now)}[fmt]
    click.echo(render(evaluation).rstrip("\n"))
    _exit_now(check.exit_code(evaluation))


def _left_of(timeout: float) -> float:
    """What is left of --timeout: it counts from this process's start (interpreter start-up,
    imports and reading the config included), as the monitoring system that runs `check` does."""
    return max(0.1, round(timeout - _seconds_since_start(), 1))


def _seconds_since_start() -> float:
    """Linux: the process's start in /proc/self/stat (clock ticks after boot) against
    CLOCK_BOOTTIME; elsewhere 0 (the deadline then counts from here)."""
    import os
    import time

    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


def _exit_now(code: int) -> None:
    """Leave without waiting for client threads (librdkafka's teardown can outlive a deadline)."""
    import os

    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


