"""The `streamctl` command line. Heavy modules are imported inside the commands that use them."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import click

from streamctl.errors import StreamctlError, UsageError

OUTPUT = click.option("-o", "--output", type=click.Choice(["table", "json"]), default="table",
                      show_default=True, help="Output format.")


class Session:
    """What the global options select, resolved lazily (a bad config only fails commands that read it)."""

    def __init__(self, context: str | None, config: str | None, read_only: bool):
        self.context_name = context
        self.config_arg = config
        self.read_only_flag = read_only

    @property
    def config_path(self) -> Path:
        from streamctl import paths

        return paths.config_file(self.config_arg)

    def context(self):
        from streamctl.config import load_config

        return load_config(self.config_path).context(self.context_name)


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--context", "context", metavar="NAME", help="Config context to use (default: current-context).")
@click.option("--config", "config", metavar="PATH", type=click.Path(dir_okay=False),
              help="Config file (default: $STREAMCTL_CONFIG or the XDG config dir).")
@click.option("--read-only", is_flag=True, help="Refuse every mutation.")
@click.version_option(package_name="streamctl")
@click.pass_context
def cli(ctx: click.Context, context: str | None, config: str | None, read_only: bool) -> None:
    """Operations console for Kafka, ZooKeeper, Flume and Spark Structured Streaming."""
    ctx.obj = Session(context, config, read_only)
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


# ---- sandbox ------------------------------------------------------------------------

@cli.group()
def sandbox() -> None:
    """A real local stack (ZooKeeper + Kafka brokers) as processes on 127.0.0.1."""


def _sandbox(session: Session, report=None):
    from streamctl.sandbox import Sandbox

    return Sandbox(config_path=session.config_path, report=report or (lambda _: None))


@sandbox.command("fetch")
@click.option("--kraft", is_flag=True, help="Also resolve the Kafka 4.x (KRaft) artifacts.")
@click.pass_obj
def sandbox_fetch(session: Session, kraft: bool) -> None:
    """Resolve the JVM artifacts from Maven Central into the cache (no-op once cached)."""
    from streamctl import maven
    from streamctl.ui_console import progress_status

    with progress_status("fetching") as report:
        sets = [maven.KAFKA] + ([maven.KAFKA_KRAFT] if kraft else [])
        for artifact_set in sets:
            already = maven.is_fetched(artifact_set)
            folder = maven.fetch(artifact_set, report=report)
            verb = "cached" if already else "fetched"
            report.done(f"{artifact_set.title}: {verb} in {folder}")


@sandbox.command("up")
@click.option("--brokers", type=click.IntRange(min=1, max=9), default=3, show_default=True)
@click.option("--kraft", is_flag=True, help="Kafka 4.x in KRaft mode instead of ZooKeeper mode.")
@click.pass_obj
def sandbox_up(session: Session, brokers: int, kraft: bool) -> None:
    """Start ZooKeeper and the brokers, wait until the cluster answers, write a `sandbox` context."""
    from streamctl.ui_console import progress_status

    with progress_status("starting the sandbox") as report:
        sb = _sandbox(session, report)
        state, started = sb.up(brokers=brokers, kraft=kraft)
        if started:
            report.done(f"sandbox up: {state.brokers} broker(s) at {state.bootstrap_servers}")
        else:
            report.done("sandbox already running")
    _print_status(sb)
    click.echo(f"context 'sandbox' written to {session.config_path}")


@sandbox.command("status")
@OUTPUT
@click.pass_obj
def sandbox_status(session: Session, output: str) -> None:
    """Each sandbox process with pid, port and liveness; a crashed one with its log tail."""
    sb = _sandbox(session)
    if output == "json":
        click.echo(json.dumps([asdict(r) for r in sb.status()], indent=2))
        return
    if not _print_status(sb):
        raise StreamctlError("no sandbox: run `streamctl sandbox up`")


def _print_status(sb) -> bool:
    from streamctl.ui_console import status_table

    rows = sb.status()
    if rows:
        status_table(rows)
    return bool(rows)


@sandbox.command("down")
@click.option("--wipe", is_flag=True, help="Also delete the sandbox's data, logs and state.")
@click.pass_obj
def sandbox_down(session: Session, wipe: bool) -> None:
    """Stop every sandbox process (SIGTERM, then SIGKILL after a grace period)."""
    from streamctl.ui_console import progress_status

    with progress_status("stopping the sandbox") as report:
        sb = _sandbox(session, report)
        if sb.load() is None and not wipe:
            report.done("no sandbox running")
            return
        killed = sb.down(wipe=wipe)
        suffix = f" ({', '.join(killed)} needed SIGKILL)" if killed else ""
        report.done(f"sandbox stopped{suffix}" + ("; data wiped" if wipe else ""))


# ---- kafka reads ----------------------------------------------------------------------

def _kafka(session: Session):
    from streamctl.backends.kafka import KafkaBackend

    ctx = session.context()
    return ctx, KafkaBackend(ctx.kafka.client_config(), timeout=ctx.kafka.timeout)


def _emit(output: str, data, render) -> None:
    if output == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        render(data)


@cli.command("brokers")
@OUTPUT
@click.pass_obj
def brokers(session: Session, output: str) -> None:
    """The cluster's brokers (one metadata call)."""
    _, kafka = _kafka(session)
    md = kafka.metadata()
    data = {"cluster_id": md.cluster_id, "kraft": md.kraft, "controller_id": md.controller_id,
            "brokers": [asdict(b) for b in md.brokers]}
    if output == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        from streamctl.ui_console import brokers_table

        brokers_table(md)


@cli.group()
def topics() -> None:
    """Topics: list, describe (operations: create, add-partitions, alter-config, delete)."""


@topics.command("list")
@OUTPUT
@click.option("--internal/--no-internal", default=False, help="Show internal topics (__consumer_offsets).")
@click.option("--sort", type=click.Choice(["name", "partitions", "messages", "urp"]), default="name")
@click.pass_obj
def topics_list(session: Session, output: str, internal: bool, sort: str) -> None:
    """Every topic with partitions, replication factor, URP, offline, messages, retention."""
    from streamctl import serialize
    from streamctl.health import Filters

    ctx, kafka = _kafka(session)
    snap = kafka.snapshot(groups=False)
    filters = Filters.from_context(ctx)
    rows = [serialize.topic_summary(t) for t in snap.topics
            if (internal or not t.internal) and filters.topic(t.name)]
    key = {"name": "name", "partitions": "partitions", "messages": "messages", "urp": "under_replicated"}[sort]
    rows.sort(key=lambda r: r[key], reverse=sort != "name")
    from streamctl.ui_console import topics_table

    _emit(output, rows, topics_table)


@topics.command("describe")
@click.argument("name")
@OUTPUT
@click.pass_obj
def topics_describe(session: Session, name: str, output: str) -> None:
    """Partitions (leader, replicas, ISR, watermarks), configs and consuming groups of a topic."""
    from streamctl import serialize

    _, kafka = _kafka(session)
    snap = kafka.snapshot(lag_time=False)
    topic = snap.topic(name)
    if topic is None:
        raise UsageError(f"no topic {name!r} in the cluster")
    from streamctl.ui_console import topic_detail

    _emit(output, serialize.topic_detail(topic, serialize.consuming_groups(snap, name)), topic_detail)


@cli.group()
def groups() -> None:
    """Consumer groups: list, describe, lag (operations: reset-offsets, undo-reset)."""


@groups.command("list")
@OUTPUT
@click.option("--sort", type=click.Choice(["name", "lag"]), default="name")
@click.pass_obj
def groups_list(session: Session, output: str, sort: str) -> None:
    """Every consumer group with state, members, topics and total lag."""
    from streamctl import serialize
    from streamctl.health import Filters

    ctx, kafka = _kafka(session)
    snap = kafka.snapshot(group_filter=Filters.from_context(ctx).group)
    rows = [serialize.group_summary(g, snap) for g in snap.groups]
    if sort == "lag":
        rows.sort(key=lambda r: r["lag"], reverse=True)
    from streamctl.ui_console import groups_table

    _emit(output, rows, groups_table)


@groups.command("describe")
@click.argument("name")
@OUTPUT
@click.pass_obj
def groups_describe(session: Session, name: str, output: str) -> None:
    """A group's members, assignments and per-partition offsets and lag."""
    from streamctl import serialize

    _, kafka = _kafka(session)
    snap = kafka.snapshot(group_filter=lambda g: g == name)
    group = snap.group(name)
    if group is None:
        raise UsageError(f"no consumer group {name!r} in the cluster")
    from streamctl.ui_console import group_detail

    _emit(output, serialize.group_detail(group, snap), group_detail)


@groups.command("lag")
@click.argument("name", required=False)
@OUTPUT
@click.option("--sort", type=click.Choice(["lag", "group"]), default="lag", show_default=True)
@click.pass_obj
def groups_lag(session: Session, name: str | None, output: str, sort: str) -> None:
    """Committed offset, log end and lag per partition (records and seconds) of one or all groups."""
    from streamctl import serialize
    from streamctl.health import Filters

    ctx, kafka = _kafka(session)
    keep = (lambda g: g == name) if name else Filters.from_context(ctx).group
    snap = kafka.snapshot(group_filter=keep)
    if name and snap.group(name) is None:
        raise UsageError(f"no consumer group {name!r} in the cluster")
    rows = [serialize.lag(l) for l in snap.lags]
    if sort == "lag":
        rows.sort(key=lambda r: (r["lag"] or 0), reverse=True)
    from streamctl.ui_console import lag_table

    _emit(output, rows, lag_table)


# ---- check ------------------------------------------------------------------------------

def _components(value: str | None) -> list[str] | None:
    from streamctl.evaluate import COLLECTORS

    if value is None:
        return None
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in COLLECTORS]
    if unknown or not names:
        raise UsageError(f"--component: unknown {', '.join(unknown) or 'empty list'} "
                         f"(choose from {', '.join(COLLECTORS)})")
    return names


@cli.command("check")
@click.option("--component", "component", metavar="LIST",
              help="Comma-separated components to evaluate (default: all configured).")
@click.option("--format", "fmt", type=click.Choice(["nagios", "json", "prometheus"]), default="nagios",
              show_default=True)
@click.option("--prometheus-textfile", type=click.Path(dir_okay=False), metavar="PATH",
              help="Also write the metrics atomically to PATH (node_exporter textfile collector).")
@click.option("--timeout", type=click.FloatRange(min=0.5), default=20.0, show_default=True,
              help="Global deadline in seconds: past it, what is not evaluated is UNKNOWN.")
@click.pass_obj
def check_command(session: Session, component: str | None, fmt: str, prometheus_textfile: str | None,
                  timeout: float) -> None:
    """Evaluate health for monitoring: exit 0 OK, 1 WARN, 2 CRIT, 3 UNKNOWN."""
    import time

    from streamctl import check
    from streamctl.evaluate import evaluate

    components = _components(component) or ["kafka"]
    try:
        ctx = session.context()
    except StreamctlError as exc:
        if fmt == "nagios":
            click.echo(f"STREAMCTL UNKNOWN: {exc}")
        raise
    evaluation = evaluate(ctx, components, timeout)
    now = time.time()
    if prometheus_textfile:
        check.write_prometheus_textfile(evaluation, prometheus_textfile, now)
    render = {"nagios": check.render_nagios, "json": lambda e: check.render_json(e, now),
              "prometheus": lambda e: check.render_prometheus(e, now)}[fmt]
    click.echo(render(evaluation).rstrip("\n"))
    _exit_now(check.exit_code(evaluation))


def _exit_now(code: int) -> None:
    """Leave without waiting for client threads (librdkafka's teardown can outlive a deadline)."""
    import os

    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


# ---- entry point ----------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    try:
        cli.main(args=argv, prog_name="streamctl", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("streamctl: aborted", err=True)
        return 130
    except click.ClickException as exc:  # usage errors: bad option, missing argument
        click.echo(f"streamctl: error: {exc.format_message()}", err=True)
        return UsageError.exit_code
    except StreamctlError as exc:
        click.echo(f"streamctl: error: {exc}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("streamctl: interrupted", err=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
