"""`streamctl jobs`: Spark Structured Streaming jobs (list, start, stop, status, checkpoint)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from streamctl.commands.common import OUTPUT, Session, emit
from streamctl.errors import StreamctlError, UsageError

EXECUTE = click.option("--execute", is_flag=True, help="Apply the plan (without it: a dry run).")
START_TIMEOUT = 180.0
RECENT_PROGRESS = 60.0  # a running query writes its progress file at least every ~10 s


@click.group()
def jobs() -> None:
    """Spark jobs: list, status, checkpoint (operations: start, stop)."""


def _context(session: Session, optional: bool = False):
    try:
        return session.context()
    except StreamctlError:
        if optional:
            return None
        raise


@jobs.command("list")
@OUTPUT
@click.pass_obj
def jobs_list(session: Session, output: str) -> None:
    """Jobs of the context, jobs streamctl launched here, and the shipped ones."""
    from streamctl import spark_jobs
    from streamctl.jobs import launcher

    rows = []
    items = spark_jobs.entries(_context(session, optional=True))
    for item in items:
        run = item.run
        state = "running" if run and run.alive else "stopped" if run else "unknown"
        origin = "+".join(w for w, on in (("context", item.in_context), ("launched", item.spec is not None))
                          if on)
        rows.append({"name": item.name, "state": state, "pid": run.pid if run and run.alive else None,
                     "master": run.master if run else (item.spec.master if item.spec else None),
                     "origin": origin, "shipped": item.shipped, "ui_url": item.ui_url,
                     "checkpoint_dir": item.checkpoint_dir})
    for name in launcher.SHIPPED:
        if name not in {item.name for item in items}:
            rows.append({"name": name, "state": "not started", "pid": None, "master": None,
                         "origin": "shipped", "shipped": True, "ui_url": None, "checkpoint_dir": None})
    from streamctl.ui_jobs import jobs_table

    emit(output, rows, jobs_table)


@jobs.command("status")
@click.argument("name", required=False)
@OUTPUT
@click.pass_obj
def jobs_status(session: Session, name: str | None, output: str) -> None:
    """State, app id, committed/in-flight batches, commit age, lag and rates of one or all jobs."""
    from streamctl import spark_jobs

    ctx = _context(session, optional=True)
    items = [spark_jobs.entry(ctx, name)] if name else spark_jobs.entries(ctx)
    if not items:
        raise UsageError("no Spark jobs: none in the context, none launched here")
    views = [spark_jobs.view_dict(spark_jobs.observe(item, ctx)) for item in items]
    from streamctl.ui_jobs import status_table

    emit(output, views if name is None else views[0], lambda data: status_table(data if name is None else [data]))


@jobs.command("checkpoint")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@OUTPUT
def jobs_checkpoint(directory: Path, output: str) -> None:
    """Read any Structured Streaming checkpoint: batches, in-flight batch, offsets, watermark."""
    from streamctl import spark_jobs
    from streamctl.backends.spark import read_checkpoint

    data = spark_jobs.checkpoint_dict(read_checkpoint(directory))
    from streamctl.ui_jobs import checkpoint_view

    emit(output, data, checkpoint_view)


# ---- operations ------------------------------------------------------------------------------

def _show(plan, output: str) -> None:
    if output == "json":
        click.echo(json.dumps(plan.as_dict(), indent=2, default=str))
    else:
        from streamctl.ui_jobs import plan_view

        plan_view(plan.as_dict())


def _spec_for(ctx, name: str, master: str | None):
    """The job's spec: the saved one (a previous start, the sandbox) or a new one for a shipped job."""
    from streamctl.jobs import launcher

    spec = launcher.load_spec(name)
    configured = ctx.spark.jobs.get(name)
    if spec is None:
        if name not in launcher.SHIPPED:
            raise UsageError(f"no Spark job {name!r} to start (shipped: {', '.join(launcher.SHIPPED)})")
        spec = launcher.new_spec(name, ctx.kafka.bootstrap_servers, master=master or launcher.DEFAULT_MASTER,
                                 checkpoint_dir=configured.checkpoint_dir if configured else None,
                                 progress_file=configured.progress_file if configured else None)
    elif spec.sandbox is None:
        spec.bootstrap_servers = ctx.kafka.bootstrap_servers  # the context says where Kafka is
    return spec


@jobs.command("start")
@click.argument("name")
@click.option("--master", metavar="URL", help="local[N] (default local[2]), spark://HOST:PORT, yarn, k8s://...")
@click.option("--wait", "wait", type=click.FloatRange(min=0), default=START_TIMEOUT, show_default=True,
              help="Seconds to wait for the query to start (0: do not wait).")
@EXECUTE
@OUTPUT
@click.pass_obj
def jobs_start(session: Session, name: str, master: str | None, wait: float, execute: bool, output: str) -> None:
    """Start a job with spark-submit (resumes from its checkpoint)."""
    from streamctl import maven, procs
    from streamctl.backends.spark import CheckpointError, read_checkpoint
    from streamctl.jobs import launcher
    from streamctl.ops import Change, Plan, execute as run, require_writable

    ctx = session.context()
    require_writable("jobs start", ctx, session.read_only_flag)
    spec = _spec_for(ctx, name, master)
    record = launcher.load_run(name)
    plan = Plan("jobs.start", name, {"master": master or spec.master, "checkpoint_dir": spec.checkpoint_dir})
    elsewhere = None if record and record.alive else _running_elsewhere(ctx, spec, name, ours=record is not None)
    if record and record.alive:
        plan.warnings.append(f"job {name} is already running (pid {record.pid})")
    elif elsewhere:
        plan.warnings.append(f"job {name} already runs on its checkpoint: {elsewhere}; not starting a second one")
    else:
        plan.changes.append(Change(f"job {name}", "state", "stopped" if record else "never started", "running"))
        if master and master != spec.master:
            plan.changes.append(Change(f"job {name}", "master", spec.master, master))
        try:
            cp = read_checkpoint(spec.checkpoint_dir)
            plan.warnings.append(f"resumes from the checkpoint: last committed batch {cp.latest_committed}")
        except CheckpointError:
            args = spec.job_args
            first = args[args.index("--starting-offsets") + 1] if "--starting-offsets" in args[:-1] else "latest"
            plan.warnings.append(f"no checkpoint yet: the query starts from the {first} offsets")
    _show(plan, output)
    if not plan.changes:
        click.echo("nothing to change", err=True)
        return
    if not execute:
        click.echo("dry run: nothing changed; add --execute to apply", err=True)
        return

    def apply():
        spec.master = master or spec.master
        maven.fetch(launcher.CONNECTOR)
        if not spec.jars:
            spec.jars = launcher.connector_jars()
        if spec.sandbox and _sandbox_service(spec):
            launcher.save_spec(spec)
            from streamctl.sandbox import Sandbox

            Sandbox(root=Path(spec.sandbox["root"])).start_service(spec.sandbox["service"], wait=False)
        else:
            if not procs.port_is_free(spec.ui_port):
                spec.ui_port = procs.free_ports(1)[0]
            launcher.spawn(spec)

    def verify():
        started = launcher.wait_started(spec, since, timeout=wait) if wait else launcher.load_run(name)
        if started is None:
            raise StreamctlError(f"job {name}: no run record was written (log: {spec.log})")
        return [[f"job {name}", "state", "running"], [f"job {name}", "pid", started.pid],
                [f"job {name}", "app id", started.app_id]]

    since = time.time()
    run(plan, ctx.name, apply, verify)
    record = launcher.load_run(name)
    click.echo(f"started {name}: pid {record.pid}, app {record.app_id or '?'}, "
               f"ui {record.ui_url or '-'}, log {record.log}", err=True)


def _running_elsewhere(ctx, spec, name: str, ours: bool) -> str | None:
    """Why the job looks alive though no process of ours runs it: its UI answers, or (when we
    never ran it here) its progress file was written lately and does not end with `terminated`."""
    from streamctl.backends.spark import SparkUnreachable, read_progress_tail, rest_applications

    configured = ctx.spark.jobs.get(name)
    tail = read_progress_tail(spec.progress_file, max_bytes=64 * 1024, keep=1)
    if not ours and tail and tail.modified_at and time.time() - tail.modified_at < RECENT_PROGRESS \
            and tail.last_event not in (None, "terminated"):
        return f"its progress file {spec.progress_file} was written {time.time() - tail.modified_at:.0f} s ago"
    if configured is None or not configured.ui_url:
        return None
    try:
        apps = rest_applications(configured.ui_url, timeout=5.0)
    except SparkUnreachable:
        return None
    ids = ", ".join(str(a.get("id")) for a in apps if isinstance(a, dict)) or "an application"
    return f"{configured.ui_url} answers ({ids})"


def _sandbox_service(spec):
    """The sandbox service running this spec, if that sandbox still has it."""
    from streamctl.sandbox import Sandbox

    try:
        _, service = Sandbox(root=Path(spec.sandbox["root"])).service(spec.sandbox["service"])
    except StreamctlError:
        return None
    return service


@jobs.command("stop")
@click.argument("name")
@click.option("--grace", type=click.FloatRange(min=1), default=30.0, show_default=True,
              help="Seconds for a clean stop between batches before SIGTERM/SIGKILL of the driver.")
@EXECUTE
@OUTPUT
@click.pass_obj
def jobs_stop(session: Session, name: str, grace: float, execute: bool, output: str) -> None:
    """Stop a job streamctl started: the query stops between batches, then the driver exits."""
    from streamctl.jobs import launcher
    from streamctl.ops import Change, Plan, execute as run, require_writable

    ctx = session.context()
    require_writable("jobs stop", ctx, session.read_only_flag)
    spec, record = launcher.load_spec(name), launcher.load_run(name)
    if spec is None or record is None:
        raise UsageError(f"job {name!r} was not started by streamctl here (no pid known): "
                         "stop it where it runs")
    plan = Plan("jobs.stop", name, {"pid": record.pid, "grace_seconds": grace})
    if record.alive:
        plan.changes.append(Change(f"job {name}", "state", f"running (pid {record.pid})", "stopped",
                                   "SIGTERM to the Python driver, then the JVM; SIGKILL after the grace"))
    _show(plan, output)
    if not plan.changes:
        click.echo(f"nothing to change: job {name} is not running", err=True)
        return
    if not execute:
        click.echo("dry run: nothing changed; add --execute to apply", err=True)
        return
    outcome: list[str] = []

    def apply():
        outcome.append(launcher.stop(spec, record, grace))
        service = _sandbox_service(spec) if spec.sandbox else None
        if service is not None and service.pid == record.pid:
            from streamctl.sandbox import Sandbox

            Sandbox(root=Path(spec.sandbox["root"])).stop_service(spec.sandbox["service"])

    def verify():
        if record.alive:
            raise StreamctlError(f"job {name} (pid {record.pid}) is still running")
        return [[f"job {name}", "state", f"stopped ({outcome[0]})"]]

    run(plan, ctx.name, apply, verify)
    click.echo(f"stopped {name}: {outcome[0]}", err=True)
