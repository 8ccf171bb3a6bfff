"""Controls the fault tests need on top of the session sandbox: bring every service back,
and prove the stack healthy again before the next test (or module) runs."""

from __future__ import annotations

import os
import signal

import httpx
import pytest

from streamctl.backends.flume import FlumeError, fetch
from streamctl.demo.connect_worker import DEMO_CONNECTOR, url
from streamctl.demo.flume_agent import AGENT_SERVICE
from streamctl.demo.spark_job import JOB, runs_root
from streamctl.demo.spark_job import SERVICE as JOB_SERVICE
from streamctl.errors import StreamctlError
from streamctl.jvm import processes as procs
from streamctl.sandbox.probes import zookeeper_mode
from streamctl.spark import launcher
from tests.service_groups import group_of

START_ORDER = ("zookeeper", "broker", "flume", "spark", "connect")


def _partitions_in_sync(sandbox) -> bool:
    try:
        md = sandbox.kafka(timeout=5).metadata()
    except StreamctlError:
        return False
    expected = {s.node_id for s in sandbox.sandbox.state().by_role("broker")}
    return {b.id for b in md.brokers} == expected and not any(p.under_replicated for p in md.partitions)


def _job_run(sandbox):
    return launcher.load_run(JOB, runs_root(sandbox.sandbox))


def _flume_answers(sandbox) -> bool:
    _, agent = sandbox.sandbox.service(AGENT_SERVICE)
    try:
        fetch(f"http://127.0.0.1:{agent.port}/metrics", timeout=2.0)
    except FlumeError:
        return False
    return True


def restore(sandbox) -> None:
    """Resume paused services, restart dead ones (ZooKeeper, brokers, then the demo pipeline),
    then wait until ZooKeeper serves, every broker is registered with every partition in sync,
    the Flume agent answers, the Spark job runs and the Connect worker's demo sink runs
    (leaderships stay where the fault left them)."""
    sb = sandbox.sandbox
    state = sb.state()
    for service in state.services:
        if service.alive and procs.is_paused(service.pid):
            os.kill(service.pid, signal.SIGCONT)
    for role in START_ORDER:
        for service in state.by_role(role):
            if service.name == JOB_SERVICE:
                run = _job_run(sandbox)  # `jobs start` may run it under another pid than the sandbox's
                if run is not None and run.alive:
                    continue
            if not service.alive:
                sb.start_service(service.name)  # waits until the service is ready
    zookeeper = state.by_role("zookeeper")
    sandbox.wait_until(lambda: all(zookeeper_mode(s.port) for s in zookeeper), timeout=30,
                       what="ZooKeeper serving")
    sandbox.wait_until(lambda: _partitions_in_sync(sandbox), timeout=90,
                       what="every broker registered and every partition in sync")
    sandbox.wait_until(lambda: _flume_answers(sandbox), timeout=60, what="the Flume agent answering")
    sandbox.wait_until(lambda: (run := _job_run(sandbox)) is not None and run.alive, timeout=60,
                       what="the Spark job running")
    sandbox.wait_until(lambda: _demo_sink_running(sb.state()), timeout=90, what="the demo sink running")


def _demo_sink_running(state) -> bool:
    try:
        status = httpx.get(f"{url(state)}/connectors/{DEMO_CONNECTOR}/status", timeout=5).json()
    except (httpx.HTTPError, ValueError):
        return False
    return status.get("connector", {}).get("state") == "RUNNING" and \
        [t.get("state") for t in status.get("tasks", [])] == ["RUNNING"]


@pytest.fixture(autouse=True)
def healthy_afterwards(request):
    """Whatever a fault test did or failed to undo, later tests get the whole stack back. Only a
    test of the session's sandbox: one on services of its own (the Spark cluster, the KRaft
    sandbox) neither starts it nor waits on it (and under `-n 2` may run in the other worker:
    service_groups.py)."""
    yield
    if group_of(request.node, integration=True) == "sandbox":
        restore(request.getfixturevalue("sandbox"))

