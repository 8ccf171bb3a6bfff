"""The demo Spark job in `streamctl sandbox up`: weblog-stats reading topic `weblogs`.

Its spec lives in the jobs folder next to the sandbox (`<state>/jobs/weblog-stats/`), so
`streamctl jobs stop|start|status weblog-stats` act on the sandbox's job; checkpoint and
progress file live under the sandbox's data folder.
"""

from __future__ import annotations

from pathlib import Path

from streamctl.demo import hdfs as demo_hdfs
from streamctl.demo import spark_cluster
from streamctl.jvm import processes as procs
from streamctl.sandbox.addons import Addon
from streamctl.sandbox.stack import Sandbox
from streamctl.sandbox.state import SandboxState, Service
from streamctl.spark import launcher

JOB = "weblog-stats"
SERVICE = f"spark-{JOB}"
OUTPUT = "weblog-stats"  # what weblog_stats.py writes
TOPICS = {"weblogs": 3, OUTPUT: 3}  # name -> partitions
# On the --distributed sandbox's cluster: one executor, driver and executor on the loopback.
CLUSTER_CONF = {"spark.executor.memory": spark_cluster.EXECUTOR_MEMORY, "spark.cores.max": "2",
                "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}


def runs_root(sandbox: Sandbox) -> Path:
    """The jobs folder beside the sandbox root: what the CLI reads under the same state dir."""
    return sandbox.root.parent / "jobs"


def plan(sandbox: Sandbox, state: SandboxState) -> list[Service]:
    if launcher.pyspark_home() is None:
        sandbox.report("pyspark is not installed: no Spark job (pip install 'streamctl[spark]')")
        return []
    sandbox.ensure_topics(state, TOPICS)
    data = sandbox.root / "data" / "spark" / JOB
    log = sandbox.root / "logs" / f"{SERVICE}.log"
    master = spark_cluster.master_url(state)
    spec = launcher.new_spec(
        JOB, state.bootstrap_servers, checkpoint_dir=demo_hdfs.checkpoint_url(state, JOB) or data / "checkpoint",
        progress_file=data / "progress.jsonl", log=log, ui_port=procs.free_ports(1)[0],
        jars_root=sandbox.jars_root, root=runs_root(sandbox),
        sandbox={"root": str(sandbox.root), "service": SERVICE},
        master=master or launcher.DEFAULT_MASTER, conf=CLUSTER_CONF if master else None,
        extra_args=state_store_args(state),
    )
    spec_file = launcher.save_spec(spec, runs_root(sandbox))
    state.extras.setdefault("spark", {})[JOB] = {
        "spec": str(spec_file), "checkpoint_dir": spec.checkpoint_dir,
        "progress_file": spec.progress_file, "ui_url": spec.ui_url,
    }
    return [Service(SERVICE, "spark", spec.ui_port, launcher.launcher_argv(spec_file), str(log))]


def state_store_args(state: SandboxState) -> list[str]:
    """The job's --state-store when `sandbox up --state-store` chose one (else Spark's default)."""
    store = state.extras.get("spark_state_store")
    return ["--state-store", store] if store else []


def ready(sandbox: Sandbox, state: SandboxState, service: Service) -> bool:
    """The query started since this process did (its progress file was written)."""
    spec = launcher.load_spec(JOB, runs_root(sandbox))
    return spec is not None and service.create_time is not None \
        and launcher.started(spec, service.create_time)


def context(state: SandboxState) -> dict:
    job = state.extras.get("spark", {}).get(JOB)
    if not job:
        return {}
    # On the --distributed sandbox the driver's UI address is left out: it is resolved from the
    # Master, as it is for a job whose driver runs on another host.
    keys = ("checkpoint_dir", "progress_file") if spark_cluster.master_url(state) else \
        ("checkpoint_dir", "ui_url", "progress_file")
    hdfs = state.extras.get("hdfs")
    on_hdfs = {"webhdfs_url": hdfs["webhdfs_url"], "hdfs_user": hdfs["user"]} if hdfs else {}
    return {"jobs": {JOB: {**{k: job[k] for k in keys}, **on_hdfs, "outputs": [OUTPUT]}}}


ADDON = Addon(role="spark", artifact_sets=lambda shape: (launcher.CONNECTOR,), plan=plan, ready=ready,
              context=lambda state: {"spark": context(state)} if context(state) else {},
              after=(demo_hdfs.ROLE, spark_cluster.ROLE))  # its checkpoint on HDFS, its master
