"""`streamctl jobs`: Spark Structured Streaming jobs (list, start, stop, status, checkpoint, state)."""

from __future__ import annotations

import click

from streamctl.console import OUTPUT, emit
from streamctl.errors import StreamctlError, UsageError
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session
from streamctl.spark.plans import START_TIMEOUT


def STORE_OPTIONS(command):
    """Where a checkpoint given by location lives: WebHDFS address and user, S3 endpoint, timeout."""
    for option in reversed((
        click.option("--webhdfs", "webhdfs_url", metavar="URL",
                     help="The NameNode's WebHDFS address (http://namenode:9870) for an hdfs:// location."),
        click.option("--user", "hdfs_user", metavar="NAME", help="The HDFS user WebHDFS requests run as."),
        click.option("--s3-endpoint", "s3_endpoint_url", metavar="URL",
                     help="An S3-compatible server (http://minio:9000) for an s3a:// location; AWS when not given."),
        click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
                     help="Seconds per WebHDFS or S3 request."),
    )):
        command = option(command)
    return command


@click.group()
def jobs() -> None:
    """Spark jobs: list, status, checkpoint, state, cluster (operations: start, stop)."""


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
    """Jobs of the context, jobs streamctl launched here, and the shipped ones.

    \b
    Example:
      streamctl jobs list
    """
    from streamctl.spark import jobs as spark_jobs
    from streamctl.spark import launcher

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
    from streamctl.spark.render import jobs_table

    emit(output, rows, jobs_table)


@jobs.command("status")
@click.argument("name", required=False)
@OUTPUT
@click.pass_obj
def jobs_status(session: Session, name: str | None, output: str) -> None:
    """State, app id, committed/in-flight batches, commit age, lag and rates of one or all jobs.

    \b
    Examples:
      streamctl jobs status
      streamctl jobs status weblog-stats -o json
    """
    from streamctl.spark import jobs as spark_jobs

    ctx = _context(session, optional=True)
    items = [spark_jobs.entry(ctx, name)] if name else spark_jobs.entries(ctx)
    if not items:
        raise UsageError("no Spark jobs: none in the context, none launched here")
    cluster = spark_jobs.read_cluster(ctx)
    views = [spark_jobs.view_dict(spark_jobs.observe(item, ctx, cluster=cluster)) for item in items]
    from streamctl.spark.render import status_table

    emit(output, views if name is None else views[0], lambda data: status_table(data if name is None else [data]))


@jobs.command("cluster")
@OUTPUT
@click.pass_obj
def jobs_cluster(session: Session, output: str) -> None:
    """The standalone cluster: its Master, workers (cores, memory) and applications.

    \b
    Example:
      streamctl jobs cluster -o json
    """
    from streamctl.spark import jobs as spark_jobs

    cluster = spark_jobs.read_cluster(session.context())
    if cluster is None:
        raise UsageError("no Spark Master in this context: set spark.masters (the Master's web UI URLs)")
    from streamctl.spark.render import cluster_view

    emit(output, spark_jobs.cluster_dict(cluster), cluster_view)
    if cluster.error is not None:
        raise StreamctlError(f"no Spark Master answered: {cluster.error}")


@jobs.command("checkpoint")
@click.argument("location")
@STORE_OPTIONS
@OUTPUT
def jobs_checkpoint(location: str, webhdfs_url: str | None, hdfs_user: str | None, s3_endpoint_url: str | None,
                    timeout: float, output: str) -> None:
    """Read any Structured Streaming checkpoint: batches, in-flight batch, offsets, watermark.

    LOCATION is a local folder, hdfs://namenode:8020/path (with --webhdfs),
    webhdfs://namenode:9870/path, or s3a://bucket/path (credentials from the usual AWS chain:
    AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ~/.aws, an instance role).

    \b
    Examples:
      streamctl jobs checkpoint /var/lib/spark/checkpoints/weblog-stats
      streamctl jobs checkpoint hdfs://namenode:8020/checkpoints/weblog-stats --webhdfs http://namenode:9870
    """
    from streamctl.backends.checkpoint_store import store_for
    from streamctl.backends.spark import read_checkpoint
    from streamctl.spark import jobs as spark_jobs

    store, path = store_for(location, webhdfs_url, hdfs_user, timeout, s3_endpoint_url)
    data = spark_jobs.checkpoint_dict(read_checkpoint(path, store))
    from streamctl.spark.render import checkpoint_view

    emit(output, data, checkpoint_view)


def ROWS_OPTIONS(command):
    """`jobs state --rows`: which store's rows, at which batch, how many."""
    for option in reversed((
        click.option("--rows", is_flag=True,
                     help="Read the state's rows with Spark's state data source (a local PySpark session "
                          "started for this command; local checkpoints only)."),
        click.option("--operator", type=click.IntRange(min=0), metavar="N",
                     help="With --rows: the stateful operator's id (default: the first)."),
        click.option("--store", "store_name", metavar="NAME", help="With --rows: the store (default: default)."),
        click.option("--batch", type=click.IntRange(min=0), metavar="N",
                     help="With --rows: the batch whose state to read (default: the last committed)."),
        click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
                     help="With --rows: rows shown (default: 100); the rest are counted."),
    )):
        command = option(command)
    return command


@jobs.command("state")
@click.argument("target", metavar="NAME|DIR|URL")
@STORE_OPTIONS
@ROWS_OPTIONS
@OUTPUT
@click.pass_obj
def jobs_state(session: Session, target: str, webhdfs_url: str | None, hdfs_user: str | None,
               s3_endpoint_url: str | None, timeout: float, rows: bool, operator: int | None,
               store_name: str | None, batch: int | None, limit: int | None, output: str) -> None:
    """State stores of a stateful job: operators, partitions, versions, snapshot lag, files and bytes.

    NAME is a job of the context or one streamctl launched (its progress events then add rows,
    memory, rows dropped by the watermark and the watermark); DIR or URL any checkpoint, as for
    `jobs checkpoint`. A stateless query (no state/ folder) is said in one line, exit 0.

    With --rows, the state's rows themselves (key and value columns, partition), read through
    Spark's state data source in a local PySpark session started for this command (a few
    seconds; its start-up time is said on stderr).

    \b
    Examples:
      streamctl jobs state weblog-stats
      streamctl jobs state /var/lib/spark/checkpoints/weblog-stats -o json
      streamctl jobs state weblog-stats --rows --limit 20
    """
    from streamctl.spark import jobs as spark_jobs

    ctx = _context(session, optional=True)
    item = next((e for e in spark_jobs.entries(ctx) if e.name == target), None)
    if rows:
        if item is not None and not item.checkpoint_dir:
            raise UsageError(f"job {target}: its checkpoint folder is not known (checkpoint_dir in the context)")
        _state_rows(item.checkpoint_dir if item else target, operator, store_name, batch, limit, output)
        return
    given = [flag for flag, value in (("--operator", operator), ("--store", store_name), ("--batch", batch),
                                      ("--limit", limit)) if value is not None]
    if given:
        raise UsageError(f"{given[0]} goes with --rows")
    from streamctl.backends.checkpoint_store import store_for
    from streamctl.backends.spark import read_progress_tail
    from streamctl.backends.spark_state import read_state
    from streamctl.spark.state import NO_PROGRESS_FILE, state_dict

    if item is not None:
        state = spark_jobs.read_job_state(ctx, item.name, item.checkpoint_dir, timeout)
        progress_file = item.progress_file
    else:
        store, location = store_for(target, webhdfs_url, hdfs_user, timeout, s3_endpoint_url)
        state = read_state(store.path(location) if store else location, store)
        progress_file = None
    progress = read_progress_tail(progress_file) if progress_file else None
    note = NO_PROGRESS_FILE if progress_file is None else f"no progress events in {progress_file} yet"
    from streamctl.spark.render import state_view

    emit(output, state_dict(state, progress, note), state_view)


def _state_rows(location: str, operator: int | None, store_name: str | None, batch: int | None,
                limit: int | None, output: str) -> None:
    from streamctl.console import progress_status
    from streamctl.spark.state_rows import DEFAULT_LIMIT, read_rows, rows_target

    target = rows_target(location, operator, store_name, batch)
    with progress_status("starting a local Spark session to read the state") as report:
        data = read_rows(target, limit or DEFAULT_LIMIT)
        report.done(f"started a local Spark session in {data['startup_seconds']:.1f} s, "
                    f"read the state in {data['read_seconds']:.1f} s")
    from streamctl.spark.render import state_rows_view

    emit(output, data, state_rows_view)


# ---- operations ------------------------------------------------------------------------------

@jobs.command("start")
@click.argument("name")
@click.option("--master", metavar="URL", help="local[N] (default local[2]), spark://HOST:PORT, yarn, k8s://...")
@click.option("--wait", "wait", type=click.FloatRange(min=0), default=START_TIMEOUT, show_default=True,
              help="Seconds to wait for the query to start (0: do not wait).")
@EXECUTE
@OUTPUT
@click.pass_obj
def jobs_start(session: Session, name: str, master: str | None, wait: float, execute: bool, output: str) -> None:
    """Start a job with spark-submit (resumes from its checkpoint).

    \b
    Examples:
      streamctl jobs start weblog-stats --execute
      streamctl jobs start weblog-stats --master spark://master:7077 --execute
    """
    from streamctl.ops import require_writable
    from streamctl.spark import plans as job_ops

    ctx = session.context()
    require_writable("jobs start", ctx, session.read_only_flag, execute)
    plan = job_ops.plan_start(ctx, name, master)
    show(plan, output)
    finish(plan, execute, lambda: job_ops.start(ctx, plan, wait))


@jobs.command("stop")
@click.argument("name")
@click.option("--grace", type=click.FloatRange(min=1), default=30.0, show_default=True,
              help="Seconds for a clean stop between batches before SIGTERM/SIGKILL of the driver.")
@EXECUTE
@OUTPUT
@click.pass_obj
def jobs_stop(session: Session, name: str, grace: float, execute: bool, output: str) -> None:
    """Stop a job streamctl started: the query stops between batches, then the driver exits.

    \b
    Example:
      streamctl jobs stop weblog-stats --grace 60 --execute
    """
    from streamctl.ops import require_writable
    from streamctl.spark import plans as job_ops

    ctx = session.context()
    require_writable("jobs stop", ctx, session.read_only_flag, execute)
    plan = job_ops.plan_stop(name, grace)
    show(plan, output)
    finish(plan, execute, lambda: job_ops.stop(ctx, plan), nothing=f"nothing to change: job {name} is not running")
