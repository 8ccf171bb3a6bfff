"""Connect's shapes as the plain dicts `-o json` prints and the tables render (secrets masked)."""

from __future__ import annotations

from streamctl.connect.secrets import masked
from streamctl.model.connect import ConnectCluster, Connector, ConnectTask


def connector_summary(c: Connector) -> dict:
    return {"name": c.name, "type": c.type, "state": c.state, "worker_id": c.worker_id,
            "class": c.connector_class, "tasks": len(c.tasks), "tasks_running": c.running_tasks,
            "tasks_failed": len(c.failed_tasks), "topics": list(c.topics), "group": c.group_id}


def task(t: ConnectTask, full_trace: bool) -> dict:
    return {"id": t.id, "state": t.state, "worker_id": t.worker_id,
            "trace": t.trace if full_trace else t.first_trace_line}


def connector_status(c: Connector, full_trace: bool = False) -> dict:
    return {**connector_summary(c), "trace": c.trace if full_trace else _first(c.trace),
            "task_states": [task(t, full_trace) for t in c.tasks]}


def connector_config(c: Connector) -> dict:
    return {"name": c.name, "type": c.type, "state": c.state, "config": masked(c.config)}


def cluster_summary(cluster: ConnectCluster) -> dict:
    return {"url": cluster.url, "version": cluster.version, "commit": cluster.commit,
            "kafka_cluster_id": cluster.kafka_cluster_id,
            "connectors": [connector_summary(c) for c in cluster.connectors]}


def _first(trace: str | None) -> str | None:
    from streamctl.model.connect import first_line

    return first_line(trace)
