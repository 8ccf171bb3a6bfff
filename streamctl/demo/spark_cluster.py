"""A Spark standalone cluster for `streamctl sandbox up --distributed`: one Master and one Worker
started with pyspark's own `spark-class` (its exec'd java is the recorded pid), web UIs on free
loopback ports. The demo job (spark_job) is then submitted to spark://127.0.0.1:<port>.

Memory: each daemon runs with SPARK_DAEMON_MEMORY (256 MiB heap at most, about 220 MB resident); the
Worker offers WORKER_CORES cores and WORKER_MEMORY to executors, and the demo job asks for one
executor of EXECUTOR_MEMORY.
"""

from __future__ import annotations

from pathlib import Path

from streamctl.jvm import processes as procs
from streamctl.sandbox.addons import Addon
from streamctl.sandbox.stack import Sandbox
from streamctl.sandbox.state import SandboxState, Service
from streamctl.spark import launcher

ROLE = "spark-cluster"
DAEMON_MEMORY = "256m"
WORKER_CORES = 2
WORKER_MEMORY = "1g"
EXECUTOR_MEMORY = "512m"
# A silent Worker is declared DEAD after this many seconds without a heartbeat (default 60; a
# killed one at once, when its connection drops). Not less: a loaded 2-core host stalls for seconds.
WORKER_TIMEOUT_SECONDS = 30
MASTER_PROPERTIES = {
    "spark.worker.timeout": str(WORKER_TIMEOUT_SECONDS),
    "spark.master.rest.enabled": "false",  # no fixed port 6066 on the host
}


def plan(sandbox: Sandbox, state: SandboxState) -> list[Service]:
    if not state.distributed:
        return []
    home = launcher.pyspark_home()
    if home is None:
        sandbox.report("pyspark is not installed: no Spark cluster (pip install 'streamctl[spark]')")
        return []
    master_port, master_ui, worker_port, worker_ui = procs.free_ports(4)
    conf = sandbox.root / "conf" / "spark-master.properties"
    conf.parent.mkdir(parents=True, exist_ok=True)
    conf.write_text("".join(f"{k}={v}\n" for k, v in MASTER_PROPERTIES.items()))
    spark_class = str(home / "bin" / "spark-class")
    master_url = f"spark://127.0.0.1:{master_port}"
    env = _daemon_env(home)
    work = sandbox.root / "data" / "spark-worker"
    state.extras["spark_cluster"] = {"master_url": master_url, "master_ui": f"http://127.0.0.1:{master_ui}",
                                     "worker_port": worker_port}
    return [
        Service("spark-master", ROLE, master_port,
                [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                 "--port", str(master_port), "--webui-port", str(master_ui), "--properties-file", str(conf)],
                str(sandbox.root / "logs" / "spark-master.log"), env=env),
        Service("spark-worker", ROLE, worker_port,
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                 "--port", str(worker_port), "--webui-port", str(worker_ui), "--cores", str(WORKER_CORES),
                 "--memory", WORKER_MEMORY, "--work-dir", str(work), master_url],
                str(sandbox.root / "logs" / "spark-worker.log"), env=env),
    ]


def _daemon_env(home: Path) -> dict[str, str]:
    from streamctl.jvm.java import java_home_env

    return {"SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_DAEMON_MEMORY": DAEMON_MEMORY,
            **java_home_env()}


def master_url(state: SandboxState) -> str | None:
    """spark://... of the sandbox's Master (None: not a distributed sandbox)."""
    return (state.extras.get("spark_cluster") or {}).get("master_url")


def ready(sandbox: Sandbox, state: SandboxState, service: Service) -> bool:
    """The Master is ALIVE and lists this sandbox's Worker as ALIVE."""
    from streamctl.backends.spark_master import read_cluster

    cluster = read_cluster([state.extras["spark_cluster"]["master_ui"]], timeout=2.0)
    if cluster.error is not None or cluster.status != "ALIVE":
        return False
    if service.name == "spark-master":
        return True
    port = state.extras["spark_cluster"]["worker_port"]
    return any(w.alive and w.id.endswith(f"-{port}") for w in cluster.workers)


def context(state: SandboxState) -> dict:
    cluster = state.extras.get("spark_cluster")
    return {"spark": {"masters": [cluster["master_ui"]]}} if cluster else {}


ADDON = Addon(role=ROLE, plan=plan, ready=ready, context=context, distributed_only=True, after=("hdfs",))
