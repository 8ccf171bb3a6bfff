"""Which Spark jobs there are (the context's, and those streamctl launched here) and how they look.

A context job (`spark.jobs.<name>`) names a checkpoint dir, maybe a UI URL and a progress
file. A launched job has a spec and a run record under the state dir. When both name the
same checkpoint they are one job: the run record adds pid liveness, the app id and the UI URL
the driver really bound.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

from streamctl.backends import spark_master
from streamctl.backends.checkpoint_store import UnusableStore, is_remote, store_for
from streamctl.backends.spark import observe_job
from streamctl.backends.spark_master import MasterUnreachable, app_ui_url
from streamctl.errors import StreamctlError, UsageError
from streamctl.model.spark import JobView
from streamctl.model.spark_cluster import SparkCluster
from streamctl.model.spark_state import CheckpointState
from streamctl.spark import launcher
from streamctl.spark.memory import start_memory


@dataclass(frozen=True)
class JobEntry:
    name: str
    checkpoint_dir: str
    ui_url: str | None
    progress_file: str | None
    in_context: bool
    spec: launcher.JobSpec | None = None
    run: launcher.RunRecord | None = None

    @property
    def shipped(self) -> bool:
        return self.name in launcher.SHIPPED


def _same(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def entries(ctx, root: Path | None = None, context_only: bool = False) -> list[JobEntry]:
    """Context jobs first (merged with a local launch of the same checkpoint), then local ones."""
    found: dict[str, JobEntry] = {}
    configured = ctx.spark.jobs if ctx is not None else {}
    for name, job in configured.items():
        spec = launcher.load_spec(name, root)
        if spec is not None and not _same(spec.checkpoint_dir, job.checkpoint_dir):
            spec = None  # another job under the same name: not this one
        run = launcher.load_run(name, root) if spec else None
        found[name] = JobEntry(
            name, str(job.checkpoint_dir),
            (run.ui_url if run and run.alive and run.ui_url else None) or job.ui_url
            or (spec.ui_url if spec and spec.local else None),
            str(job.progress_file) if job.progress_file else (spec.progress_file if spec else None),
            True, spec, run)
    if not context_only:
        for name in launcher.known_jobs(root):
            if name in found:
                continue
            spec = launcher.load_spec(name, root)
            if spec is None:  # its spec file went away since the listing
                continue
            run = launcher.load_run(name, root)
            found[name] = JobEntry(name, spec.checkpoint_dir,
                                   (run.ui_url if run and run.ui_url else spec.ui_url) if spec.local else None,
                                   spec.progress_file, False, spec, run)
    return list(found.values())


def entry(ctx, name: str, root: Path | None = None) -> JobEntry:
    for item in entries(ctx, root):
        if item.name == name:
            return item
    known = ", ".join(e.name for e in entries(ctx, root)) or "none"
    raise UsageError(f"no Spark job {name!r} (known: {known}; shipped: {', '.join(launcher.SHIPPED)})")


def observe(item: JobEntry, ctx, root: Path | None = None, deadline_at: float | None = None,
            ask_rest: bool = True, cluster: SparkCluster | None = None) -> JobView:
    """One job's view: checkpoint, lag against the context's Kafka, liveness, progress; on a
    standalone cluster also its application there, whose page gives the driver's UI address."""
    run = launcher.refresh_driver_info(item.run, root) if item.run and item.run.alive else item.run
    process = (run.pid, run.create_time, run.alive) if run else None
    timeout = ctx.kafka.timeout if ctx is not None else 10.0
    if deadline_at is not None:
        timeout = max(0.5, min(timeout, deadline_at - time.monotonic() - 0.5))
    app = cluster.app_named(app_name(item, ctx)) if cluster is not None and cluster.error is None else None
    ui_url = item.ui_url
    if app is not None and cluster is not None and app.active and ui_url is None:
        try:
            ui_url = app_ui_url(cluster.master_ui, app.id, min(timeout, ctx.spark.timeout))
        except MasterUnreachable:
            pass
    app_id = run.app_id if run and run.alive else None
    store = checkpoint_store(ctx, item.name, item.checkpoint_dir, timeout)
    configured = ctx.spark.jobs.get(item.name) if ctx is not None else None
    view = observe_job(
        item.name, item.checkpoint_dir, store=store,
        kafka_config=ctx.kafka.client_config() if ctx is not None else None, kafka_timeout=timeout,
        ui_url=ui_url, progress_file=item.progress_file, process=process,
        app_id=app_id or (app.id if app is not None and app.active else None),
        master=run.master if run else (cluster.url if app is not None and cluster is not None else None),
        rest_timeout=timeout, ask_rest=ask_rest, cluster_app=app,
    )
    return replace(view, memory=start_memory(configured.executor_memory if configured else None, item.spec, app))


def checkpoint_store(ctx, name: str, location: str, timeout: float):
    """The store of job `name`'s remote checkpoint (WebHDFS address and user, S3 endpoint from
    the context); None for a local one."""
    if not is_remote(location):
        return None
    job = ctx.spark.jobs.get(name) if ctx is not None else None
    try:
        return store_for(location, str(job.webhdfs_url) if job and job.webhdfs_url else None,
                         job.hdfs_user if job else None, timeout,
                         str(job.s3_endpoint_url) if job and job.s3_endpoint_url else None)[0]
    except StreamctlError as exc:  # no WebHDFS address, fsspec or s3fs not installed: the job's own error
        return UnusableStore(str(exc))


def read_job_state(ctx, name: str, location: str, timeout: float) -> CheckpointState:
    """The state stores of job `name`'s checkpoint at `location` (local, WebHDFS or S3), from its
    files (`jobs state`, the dashboard's State pane). CheckpointError when unusable."""
    from streamctl.backends.spark_state import read_state

    store = checkpoint_store(ctx, name, location, timeout)
    return read_state(store.path(location) if store else location, store)


def app_name(item: JobEntry, ctx) -> str:
    """The job's application name on a cluster: the context's `app_name`, else the job's name."""
    job = ctx.spark.jobs.get(item.name) if ctx is not None else None
    return (job.app_name if job is not None else None) or item.name


def read_cluster(ctx, deadline_at: float | None = None) -> SparkCluster | None:
    """The context's standalone cluster (None when no Master is configured)."""
    if ctx is None or not ctx.spark.masters:
        return None
    timeout = ctx.spark.timeout
    if deadline_at is not None:
        timeout = max(0.5, min(timeout, deadline_at - time.monotonic() - 0.5))
    return spark_master.read_cluster([str(url) for url in ctx.spark.masters], timeout)


# ---- plain dicts for -o json --------------------------------------------------------------------

def _ms_iso(ms: int | None) -> str | None:
    if not ms:
        return None
    from datetime import UTC, datetime

    try:
        return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")
    except (OverflowError, ValueError, OSError):  # a damaged checkpoint's time outside years 1-9999
        return None


def _offsets(offsets: dict[tuple[str, int], int]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (topic, partition), offset in sorted(offsets.items()):
        out.setdefault(topic, {})[str(partition)] = offset
    return out


def checkpoint_dict(cp) -> dict:
    def batch(b):
        if b is None:
            return None
        return {"batch_id": b.batch_id, "version": b.version, "watermark_ms": b.watermark_ms,
                "watermark": _ms_iso(b.watermark_ms), "timestamp_ms": b.timestamp_ms,
                "timestamp": _ms_iso(b.timestamp_ms), "sources": list(b.sources),
                "kafka_offsets": _offsets(b.kafka_offsets())}

    return {
        "path": cp.path, "query_id": cp.query_id, "latest_planned": cp.latest_planned,
        "latest_committed": cp.latest_committed, "in_flight": cp.in_flight,
        "last_commit_at": cp.last_commit_at,
        "last_commit_age_seconds": None if cp.last_commit_at is None else round(time.time() - cp.last_commit_at, 3),
        "next_watermark_ms": cp.next_watermark_ms, "planned": batch(cp.planned), "committed": batch(cp.committed),
        "initial_sources": list(cp.initial_sources), "problems": list(cp.problems),
    }


def view_dict(view: JobView) -> dict:
    samples = view.progress.samples if view.progress else ()
    last = samples[-1] if samples else None
    return {
        "name": view.name,
        "state": {True: "running", False: "stopped", None: "unknown"}[view.running],
        "process": view.process, "pid": view.pid, "master": view.master, "app_id": view.app_id,
        "ui_url": view.ui_url, "rest": view.rest, "rest_error": view.rest_error,
        "checkpoint_dir": view.checkpoint_dir,
        "checkpoint": checkpoint_dict(view.checkpoint) if view.checkpoint else None,
        "checkpoint_error": view.checkpoint_error,
        "commit_age_seconds": None if view.commit_age is None else round(view.commit_age, 3),
        "lag": view.total_lag,
        "lags": None if view.lags is None else [
            {"topic": l.topic, "partition": l.partition, "committed": l.committed,
             "log_end": l.log_end, "lag": l.lag} for l in view.lags],
        "lag_error": view.lag_error,
        "rates": None if last is None else {
            "batch_id": last.batch_id, "timestamp": last.timestamp, "num_input_rows": last.num_input_rows,
            "input_rows_per_second": last.input_rows_per_second,
            "processed_rows_per_second": last.processed_rows_per_second,
            "batch_duration_ms": last.batch_duration_ms, "watermark": last.watermark},
        "last_event": view.progress.last_event if view.progress else None,
        "cluster_app": None if view.cluster_app is None else app_dict(view.cluster_app),
    }


def app_dict(app) -> dict:
    return {"id": app.id, "name": app.name, "state": app.state, "active": app.active, "cores": app.cores,
            "memory_per_executor_mb": app.memory_per_executor_mb, "user": app.user,
            "started": _ms_iso(app.started_ms), "duration_ms": app.duration_ms}


def cluster_dict(cluster: SparkCluster) -> dict:
    used, cores = cluster.cores
    memory_used, memory = cluster.memory_mb
    return {
        "master_ui": cluster.master_ui, "url": cluster.url, "status": cluster.status, "error": cluster.error,
        "cores_used": used, "cores": cores, "memory_used_mb": memory_used, "memory_mb": memory,
        "workers": [{"id": w.id, "host": w.host, "state": w.state, "cores": w.cores, "cores_used": w.cores_used,
                     "memory_mb": w.memory_mb, "memory_used_mb": w.memory_used_mb, "ui_url": w.ui_url,
                     "last_heartbeat": _ms_iso(w.last_heartbeat_ms)} for w in cluster.workers],
        "apps": [app_dict(a) for a in cluster.apps],
    }
