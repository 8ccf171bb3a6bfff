"""Spark standalone cluster rules: the Master's view in, findings and metrics out. Pure, no I/O.

    no configured Master answers                                   CRIT  SPARK_MASTER_DOWN
    the answering Master is not ALIVE (standby, recovering)        WARN  SPARK_MASTER_NOT_ALIVE
    a worker the Master lists as DEAD                              WARN  SPARK_WORKER_DEAD
    no live worker                                                 CRIT  SPARK_NO_LIVE_WORKER
    an application WAITING for resources, or left with 0 cores     WARN  SPARK_APP_WAITING
    a watched job's application no longer active (driver gone)     CRIT  SPARK_DRIVER_GONE
"""

from __future__ import annotations

from streamctl.model.health import Finding, Metric, Severity
from streamctl.model.spark import JobView
from streamctl.model.spark_cluster import SparkCluster

WARN, CRIT = Severity.WARN, Severity.CRIT


def cluster_health(cluster: SparkCluster, views: list[JobView]) -> tuple[list[Finding], list[Metric]]:
    master = f"master {cluster.master_ui}"
    if cluster.error is not None:
        return [Finding(CRIT, "spark", master, "SPARK_MASTER_DOWN",
                        f"no Spark Master answered: {cluster.error}")], []
    findings: list[Finding] = []
    if cluster.status != "ALIVE":
        findings.append(Finding(WARN, "spark", master, "SPARK_MASTER_NOT_ALIVE",
                                f"Spark Master {cluster.url} is {cluster.status} (no leading Master answered)"))
    for worker in cluster.dead_workers:
        findings.append(Finding(WARN, "spark", f"worker {worker.id}", "SPARK_WORKER_DEAD",
                                f"Spark worker {worker.host} ({worker.id}) is DEAD"))
    if not cluster.alive_workers:
        findings.append(Finding(CRIT, "spark", master, "SPARK_NO_LIVE_WORKER",
                                f"no live worker on {cluster.url}: applications cannot run"))
    for app in cluster.apps:
        if app.waiting:
            why = "is WAITING for resources" if app.state == "WAITING" else f"is {app.state} with no executors"
            findings.append(Finding(WARN, "spark", f"app {app.id}", "SPARK_APP_WAITING",
                                    f"application {app.name} ({app.id}) {why} (0 cores granted)"))
    for view in views:
        driver = view.cluster_app
        if driver is not None and not driver.active:
            findings.append(Finding(CRIT, "spark", f"job {view.name}", "SPARK_DRIVER_GONE",
                                    f"job {view.name}: its application {driver.id} ended ({driver.state}) "
                                    f"on {cluster.url}"))
    return findings, _metrics(cluster)


def _metrics(cluster: SparkCluster) -> list[Metric]:
    cores_used, cores = cluster.cores
    memory_used, memory = cluster.memory_mb
    return [
        Metric("spark_workers_alive", len(cluster.alive_workers), "Live workers on the standalone cluster",
               crit=1, min=0, alert_below=True),
        Metric("spark_workers_dead", len(cluster.dead_workers), "Workers the Master lists as DEAD", min=0),
        Metric("spark_cores_used", cores_used, "Cores in use on live workers", min=0, max=cores),
        Metric("spark_cores_total", cores, "Cores of live workers", min=0, perfdata=False),
        Metric("spark_memory_used_mb", memory_used, "Executor memory in use on live workers (MiB)",
               min=0, max=memory, perfdata=False),
        Metric("spark_apps_waiting", sum(a.waiting for a in cluster.apps), "Applications waiting for resources",
               min=0),
    ]
