"""`streamctl sandbox`: the real local stack."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from streamctl.console import OUTPUT
from streamctl.errors import StreamctlError, UsageError
from streamctl.session import Session


@click.group()
def sandbox() -> None:
    """A real local stack (ZooKeeper + Kafka brokers) as processes on 127.0.0.1."""


def _checked_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from streamctl.sandbox.names import check_name

    return None if value is None else check_name(value)


NAME = click.option("--name", "name", metavar="NAME", callback=_checked_name,
                    help="Which sandbox: one of several side by side, each with its own state, ports and "
                         "context NAME (default: the `sandbox` one).")


def _sandbox(session: Session, report=None, name: str | None = None):
    from streamctl.sandbox.names import DEFAULT
    from streamctl.sandbox.stack import Sandbox

    return Sandbox(config_path=session.config_path, report=report or (lambda _: None), name=name or DEFAULT)


def _require_known(name: str) -> None:
    """Refuse a sandbox name that has no state under the state dir."""
    from streamctl.sandbox.names import known

    sandboxes = known()
    if name not in sandboxes:
        listed = ", ".join(sandboxes) or "none"
        raise UsageError(f"no sandbox named '{name}' (known: {listed}); "
                         f"start it with `streamctl sandbox up --name {name}`")


@sandbox.command("fetch")
@click.option("--kraft", is_flag=True, help="Also resolve what `up --kraft` runs (Kafka 4.x and its add-ons).")
@click.option("--distributed", is_flag=True,
              help="Also resolve what `up --distributed` runs (HDFS, Flume's HDFS sink).")
@click.pass_obj
def sandbox_fetch(session: Session, kraft: bool, distributed: bool) -> None:
    """Resolve the JVM artifacts from Maven Central into the cache (no-op once cached).

    By default, what `sandbox up` runs (ZooKeeper mode); `up --kraft` and `up --distributed`
    fetch their own when first used, or ahead of time with these flags.

    \b
    Examples:
      streamctl sandbox fetch
      streamctl sandbox fetch --kraft --distributed     # everything the test suite starts
    """
    from streamctl.console import progress_status
    from streamctl.jvm import maven
    from streamctl.sandbox.addons import fetch_sets

    with progress_status("fetching") as report:
        for fetched in maven.fetch_all(fetch_sets(kraft, distributed), report=report):
            verb = "cached" if fetched.cached else "fetched"
            report.done(f"{fetched.artifact_set.title}: {verb} in {fetched.folder}")


@sandbox.command("up")
@click.option("--brokers", type=click.IntRange(min=1, max=9), default=3, show_default=True,
              help="Number of Kafka brokers.")
@click.option("--kraft", is_flag=True, help="Kafka 4.x in KRaft mode instead of ZooKeeper mode.")
@click.option("--kafka-only", is_flag=True, help="Start ZooKeeper and Kafka only (no demo agent or job).")
@click.option("--secure", is_flag=True,
              help="SASL/SCRAM and an authorizer on Kafka; in ZooKeeper mode SASL DIGEST-MD5 and ACLs "
                   "on ZooKeeper too (starts Kafka and the Connect worker only).")
@click.option("--distributed", is_flag=True,
              help="Run the demo job on a Spark standalone Master and Worker (spark://) instead of local[2].")
@click.option("--tls", is_flag=True,
              help="Add a mutual-TLS listener to every broker (certificates made with openssl) and a "
                   "`sandbox-tls` context that uses a client certificate.")
@click.option("--state-store", type=click.Choice(["hdfs", "rocksdb"]), default=None,
              help="The demo job's state store provider (default hdfs, Spark's); rocksdb gives its "
                   "snapshots a lag to show. A new sandbox only: the checkpoint keeps its provider.")
@NAME
@click.option("--use", "use", is_flag=True, help="Make the sandbox's context the current-context.")
@click.pass_obj
def sandbox_up(session: Session, brokers: int, kraft: bool, kafka_only: bool, secure: bool,
               distributed: bool, tls: bool, state_store: str | None, name: str | None, use: bool) -> None:
    """Start ZooKeeper, the brokers and the demo pipeline; write a `sandbox` context.

    With --name NAME, another sandbox beside the first (own state folder, ports and context NAME);
    its context becomes current only with --use.

    \b
    Examples:
      streamctl sandbox up
      streamctl sandbox up --kraft --brokers 3
      streamctl sandbox up --kafka-only
      streamctl sandbox up --kafka-only --tls        # + a mutual-TLS listener, context sandbox-tls
      streamctl sandbox up --kraft --secure          # SCRAM, ACLs, contexts sandbox and sandbox-monitor
      streamctl sandbox up --state-store rocksdb     # the demo job's state on RocksDB
      streamctl sandbox up --name kraft --kraft --brokers 1 --kafka-only   # a second one: context kraft
    """
    from streamctl.console import progress_status

    if secure and not kafka_only:
        from streamctl.sandbox.secure import ADDONS_SKIPPED

        click.echo(ADDONS_SKIPPED, err=True)
    if name is not None and any(row.state in ("running", "paused") for row in _sandbox(session, name=name).status()):
        raise UsageError(f"sandbox '{name}' is already running (`streamctl sandbox status --name {name}`; "
                         f"`streamctl sandbox down --name {name}` first to start it again)")
    with progress_status("starting the sandbox") as report:
        sb = _sandbox(session, report, name)
        state, started = sb.up(brokers=brokers, kraft=kraft, with_addons=not kafka_only, secure=secure,
                               distributed=distributed, tls=tls, state_store=state_store)
        if started:
            report.done(f"sandbox up: {state.brokers} broker(s) at {state.bootstrap_servers}")
        else:
            report.done("sandbox already running")
    if use:
        from streamctl.config.write import use_context

        use_context(sb.name, session.config_path)
    _print_status(sb)
    click.echo(_context_line(session, sb.name))
    if tls:
        from streamctl.sandbox.context import tls_context_name

        click.echo(f"context '{tls_context_name(sb.name)}' (client certificate) written to {session.config_path}")


def _context_line(session: Session, context: str) -> str:
    """Where the context went, and how to use it when another one stays current."""
    from streamctl.config import load_config

    path = session.config_path
    current = load_config(path).current_context
    if current == context:
        return f"context '{context}' written to {path} (the current context)"
    stays = f"current-context stays '{current}'" if current else "no current-context"
    return (f"context '{context}' written to {path}; {stays}: use --context {context}, "
            f"or switch with `streamctl contexts use {context}`")


@sandbox.command("status")
@OUTPUT
@NAME
@click.pass_obj
def sandbox_status(session: Session, output: str, name: str | None) -> None:
    """Each sandbox process with pid, port and liveness; a crashed one with its log tail.
    Without --name, every sandbox known (the default one first, then the named ones).

    \b
    Examples:
      streamctl sandbox status -o json
      streamctl sandbox status --name kraft
    """
    from streamctl.sandbox.names import known

    if name is not None:
        _require_known(name)
    sandboxes = [_sandbox(session, name=n) for n in ([name] if name else known())]
    if output == "json":
        click.echo(json.dumps([{**asdict(r), "sandbox": sb.name} for sb in sandboxes for r in sb.status()],
                              indent=2))
        return
    shown = [_print_status(sb) for sb in sandboxes]
    if not any(shown):
        raise StreamctlError("no sandbox: run `streamctl sandbox up`")


def _print_status(sb) -> bool:
    from streamctl.sandbox.render import status_table

    rows = sb.status()
    if rows:
        click.echo(_mode_line(sb.load()))
        status_table(rows, title=sb.name)
    return bool(rows)


def _mode_line(state) -> str:
    from streamctl.sandbox.secure import SUMMARY

    security = f"secure ({SUMMARY[state.mode]})" if state.secure else "plaintext (no authentication)"
    from streamctl.sandbox import tls

    spark = ", Spark standalone cluster" if state.distributed else ""
    mtls = f", {tls.SUMMARY}" if tls.enabled(state) else ""
    return f"mode: {state.mode}, {state.brokers} broker(s), {security}{mtls}{spark}"


@sandbox.command("down")
@click.option("--wipe", is_flag=True, help="Also delete the sandbox's data, logs and state.")
@NAME
@click.pass_obj
def sandbox_down(session: Session, wipe: bool, name: str | None) -> None:
    """Stop every sandbox process (SIGTERM, then SIGKILL after a grace period).
    With --name, that sandbox only, and its context leaves the config (a user's of that name stays).

    \b
    Examples:
      streamctl sandbox down
      streamctl sandbox down --wipe     # and its data
      streamctl sandbox down --name kraft --wipe
    """
    from streamctl.console import progress_status

    if name is not None:
        _require_known(name)
    with progress_status("stopping the sandbox") as report:
        sb = _sandbox(session, report, name)
        if sb.load() is None and not wipe:
            report.done("no sandbox running")
            return
        killed = sb.down(wipe=wipe)
        suffix = f" ({', '.join(killed)} needed SIGKILL)" if killed else ""
        report.done(f"sandbox stopped{suffix}" + ("; data wiped" if wipe else ""))
    if name is not None:
        removed = sb.remove_contexts()
        if removed:
            click.echo(f"context(s) {', '.join(removed)} removed from {session.config_path}")




# ---- faults for a person to try: one service, or every broker in turn ----------------------

SERVICE = click.argument("service", metavar="SERVICE")


@sandbox.command("stop")
@SERVICE
@click.option("--kill", is_flag=True, help="SIGKILL (a crash) instead of SIGTERM (a clean shutdown).")
@NAME
@click.pass_obj
def sandbox_stop(session: Session, service: str, kill: bool, name: str | None) -> None:
    """Stop one service (zookeeper, kafka-N, flume-weblogs, loadgen, spark-weblog-stats).

    \b
    Example:
      streamctl sandbox stop kafka-2 --kill
    """
    _one_service(session, name, f"stopping {service}", lambda sb: sb.stop_service(service, kill=kill),
                 f"{service} stopped")


@sandbox.command("start")
@SERVICE
@NAME
@click.pass_obj
def sandbox_start(session: Session, service: str, name: str | None) -> None:
    """Start one stopped service and wait until it is ready.

    \b
    Example:
      streamctl sandbox start kafka-2
    """
    _one_service(session, name, f"starting {service}", lambda sb: sb.start_service(service), f"{service} started")


@sandbox.command("restart")
@SERVICE
@click.option("--kill", is_flag=True, help="SIGKILL instead of SIGTERM before the start.")
@NAME
@click.pass_obj
def sandbox_restart(session: Session, service: str, kill: bool, name: str | None) -> None:
    """Stop one service and start it again (a broker: until every partition is in sync).

    \b
    Example:
      streamctl sandbox restart kafka-2
    """
    from streamctl.sandbox.restarts import restart_service

    _one_service(session, name, f"restarting {service}", lambda sb: restart_service(sb, service, kill=kill),
                 f"{service} restarted")


@sandbox.command("rolling-restart")
@click.option("--down", type=click.FloatRange(min=0), default=0.0, show_default=True, metavar="SECONDS",
              help="How long each broker stays stopped before its start.")
@NAME
@click.pass_obj
def sandbox_rolling_restart(session: Session, down: float, name: str | None) -> None:
    """Restart the brokers one at a time, waiting for every ISR to fill in between (an upgrade).

    \b
    Example:
      streamctl sandbox rolling-restart --down 10
    """
    from streamctl.console import progress_status
    from streamctl.sandbox.restarts import rolling_restart

    with progress_status("rolling restart") as report:
        restarted = rolling_restart(_running(session, report, name), down=down)
        report.done(f"restarted {', '.join(restarted)}, every partition in sync")


def _one_service(session: Session, name: str | None, title: str, change, done: str) -> None:
    from streamctl.console import progress_status

    with progress_status(title) as report:
        change(_running(session, report, name))
        report.done(done)


def _running(session: Session, report, name: str | None = None):
    if name is not None:
        _require_known(name)
    sb = _sandbox(session, report, name)
    if sb.load() is None:
        raise StreamctlError("no sandbox: run `streamctl sandbox up`")
    return sb
