"""Spark job operations: plan and execute `start` and `stop` (the CLI and the dashboard share them).

A start resumes the query from its checkpoint: through the sandbox when the sandbox runs the
job, else with spark-submit detached. A stop asks the Python driver to stop the query between
batches, then ends the driver. Both verify the outcome and go to the audit log via `execute`.
Callers check read-only first (`streamctl.ops.require_writable`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from streamctl.errors import StreamctlError, UsageError
from streamctl.ops import Change, Plan, execute

if TYPE_CHECKING:
    from streamctl.spark.launcher import JobSpec, RunRecord

START_TIMEOUT = 180.0  # seconds to wait for a started query to report in
RECENT_PROGRESS = 60.0  # a running query writes its progress file at least every ~10 s


@dataclass
class JobPlan(Plan):
    """A Plan plus what executing it needs: the job's spec and its last run record."""

    spec: JobSpec | None = field(default=None, repr=False, compare=False)
    record: RunRecord | None = field(default=None, repr=False, compare=False)
    master: str | None = None  # the master asked for (None: the spec's)


# ---- start -----------------------------------------------------------------------------------

def plan_start(ctx, name: str, master: str | None = None) -> JobPlan:
    """What starting `name` would change; warnings when it already runs (here or elsewhere)."""
    from streamctl.backends.checkpoint_store import StoreUnreachable
    from streamctl.backends.spark import CheckpointError, read_checkpoint
    from streamctl.spark import jobs as spark_jobs
    from streamctl.spark import launcher

    spec = _spec_for(ctx, name, master)
    record = launcher.load_run(name)
    plan = JobPlan("jobs.start", name, {"master": master or spec.master, "checkpoint_dir": spec.checkpoint_dir},
                   spec=spec, record=record, master=master)
    elsewhere = None if record and record.alive else _running_elsewhere(ctx, spec, name, ours=record is not None)
    if record and record.alive:
        plan.warnings.append(f"job {name} is already running (pid {record.pid})")
    elif elsewhere:
        plan.warnings.append(f"job {name} already runs on its checkpoint: {elsewhere}; not starting a second one")
    else:
        plan.changes.append(Change(f"job {name}", "state", "stopped" if record else "never started", "running"))
        if master and master != spec.master:
            plan.changes.append(Change(f"job {name}", "master", spec.master, master))
        store = spark_jobs.checkpoint_store(ctx, name, spec.checkpoint_dir, ctx.spark.timeout)
        try:
            cp = read_checkpoint(store.path(spec.checkpoint_dir) if store else spec.checkpoint_dir, store)
            plan.warnings.append(f"resumes from the checkpoint: last committed batch {cp.latest_committed}")
        except StoreUnreachable as exc:
            plan.warnings.append(f"the checkpoint was not read: {exc}")
        except CheckpointError:
            args = spec.job_args
            first = args[args.index("--starting-offsets") + 1] if "--starting-offsets" in args[:-1] else "latest"
            plan.warnings.append(f"no checkpoint yet: the query starts from the {first} offsets")
    return plan


def start(ctx, plan: JobPlan, wait: float = START_TIMEOUT) -> str:
    """Start the planned job, wait up to `wait` s for its query (0: don't), audit; one line back."""
    from streamctl.jvm import maven
    from streamctl.jvm import processes as procs
    from streamctl.spark import launcher

    name, spec = plan.target, plan.spec
    if not plan.changes:
        return f"nothing to change: job {name} is not started"
    assert spec is not None  # plan_start gives a plan with changes its spec

    def apply():
        spec.master = plan.master or spec.master
        maven.fetch(launcher.CONNECTOR)
        if not spec.jars:
            spec.jars = launcher.connector_jars()
        if spec.sandbox and _sandbox_service(spec):
            launcher.save_spec(spec)
            from streamctl.sandbox.stack import Sandbox

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
    execute(plan, ctx.name, apply, verify)
    record = launcher.load_run(name)
    assert record is not None  # verify() saw it written
    return (f"started {name}: pid {record.pid}, app {record.app_id or '?'}, "
            f"ui {record.ui_url or '-'}, log {record.log}")


def _spec_for(ctx, name: str, master: str | None):
    """The job's spec: the saved one (a previous start, the sandbox) or a new one for a shipped job."""
    from streamctl.spark import launcher

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
    from streamctl.sandbox.stack import Sandbox

    try:
        _, service = Sandbox(root=Path(spec.sandbox["root"])).service(spec.sandbox["service"])
    except StreamctlError:
        return None
    return service


# ---- stop ------------------------------------------------------------------------------------

def plan_stop(name: str, grace: float | None = None) -> JobPlan:
    """What stopping `name` would change; only jobs streamctl started here (their pid is known).
    `grace`: seconds for a clean stop between batches (None: the launcher's default)."""
    from streamctl.spark import launcher

    grace = launcher.STOP_GRACE if grace is None else grace
    spec, record = launcher.load_spec(name), launcher.load_run(name)
    if spec is None or record is None:
        raise UsageError(f"job {name!r} was not started by streamctl here (no pid known): "
                         "stop it where it runs")
    plan = JobPlan("jobs.stop", name, {"pid": record.pid, "grace_seconds": grace}, spec=spec, record=record)
    if record.alive:
        plan.changes.append(Change(f"job {name}", "state", f"running (pid {record.pid})", "stopped",
                                   "SIGTERM to the Python driver, then the JVM; SIGKILL after the grace"))
    return plan


def stop(ctx, plan: JobPlan) -> str:
    """Stop the planned job (and its sandbox service), verify it is gone, audit; one line back."""
    from streamctl.spark import launcher

    name, spec, record = plan.target, plan.spec, plan.record
    if not plan.changes:
        return f"nothing to change: job {name} is not running"
    assert spec is not None and record is not None  # plan_stop gives a plan with changes both
    outcome: list[str] = []

    def apply():
        outcome.append(launcher.stop(spec, record, plan.parameters["grace_seconds"]))
        sandbox = spec.sandbox
        service = _sandbox_service(spec) if sandbox else None
        if sandbox and service is not None and service.pid == record.pid:
            from streamctl.sandbox.stack import Sandbox

            Sandbox(root=Path(sandbox["root"])).stop_service(sandbox["service"])

    def verify():
        if record.alive:
            raise StreamctlError(f"job {name} (pid {record.pid}) is still running")
        return [[f"job {name}", "state", f"stopped ({outcome[0]})"]]

    execute(plan, ctx.name, apply, verify)
    return f"stopped {name}: {outcome[0]}"
