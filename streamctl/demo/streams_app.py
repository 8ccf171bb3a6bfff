"""The demo Kafka Streams app in `streamctl sandbox up`: jobs/StatusCounts.java
counting the weblogs lines per HTTP status code, run by the JDK's single-file source launcher
against the kafka-streams jars of the cluster's Kafka version.

Its application id names its consumer group and prefixes its internal topics
(`weblog-statuses-by-status-repartition`, `weblog-statuses-status-counts-changelog`).
On the KRaft sandbox, `jobs/status_watch.py` reads its output as a consumer-protocol (KIP-848)
group. Neither listens on a port (shown as 0).
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

from streamctl.atomic import write_atomic
from streamctl.jvm import maven
from streamctl.sandbox.addons import Addon, Shape
from streamctl.sandbox.stack import JVM_FLAGS, Sandbox
from streamctl.sandbox.state import SandboxState, Service

APP_ID = "weblog-statuses"
SERVICE = f"streams-{APP_ID}"
WATCH_SERVICE = "status-watch"
INPUT = "weblogs"
OUTPUT = "weblog-status-counts"
HEAP = "128m"
SOURCE = resources.files("streamctl.jobs").joinpath("StatusCounts.java")  # the app, shipped in jobs/
SLF4J_SIMPLE = "org.slf4j:slf4j-simple:1.7.36"  # the slf4j 1.x both Kafka versions log through

KAFKA_STREAMS = maven.register(maven.ArtifactSet(
    "kafka-streams", f"Kafka Streams {maven.KAFKA_ZK_VERSION}",
    (f"org.apache.kafka:kafka-streams:{maven.KAFKA_ZK_VERSION}", SLF4J_SIMPLE)))
KAFKA_STREAMS_KRAFT = maven.register(maven.ArtifactSet(
    "kafka-streams-kraft", f"Kafka Streams {maven.KAFKA_KRAFT_VERSION}",
    (f"org.apache.kafka:kafka-streams:{maven.KAFKA_KRAFT_VERSION}", SLF4J_SIMPLE)))


def app_properties(root: Path, state: SandboxState) -> str:
    props = {
        "bootstrap.servers": state.bootstrap_servers,
        "application.id": APP_ID,
        "input.topic": INPUT, "output.topic": OUTPUT,
        "state.dir": root / "data" / "streams",
        "replication.factor": min(3, state.brokers),
        "num.stream.threads": 2,
        # Offsets committed every 5 s: the app's group shows a little lag between commits.
        "commit.interval.ms": 5000,
        # A stopped app's threads do not leave the group (Streams' choice, for quick restarts):
        # the group shows EMPTY once their session times out, 10 s here instead of 45.
        "consumer.session.timeout.ms": 10_000,
    }
    return "".join(f"{key}={value}\n" for key, value in props.items())


def plan(sandbox: Sandbox, state: SandboxState) -> list[Service]:
    sandbox.ensure_topics(state, {INPUT: 3, OUTPUT: 3})
    jars = KAFKA_STREAMS_KRAFT if state.mode == "kraft" else KAFKA_STREAMS
    properties = sandbox.root / "conf" / f"{SERVICE}.properties"
    write_atomic(properties, app_properties(sandbox.root, state), mode=0o644)
    argv = ["java", "-Xms32m", f"-Xmx{HEAP}", *JVM_FLAGS,
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-Dorg.slf4j.simpleLogger.showDateTime=true",
            "-cp", maven.classpath(jars, sandbox.jars_root), str(SOURCE), str(properties)]
    services = [Service(SERVICE, "streams", 0, argv, str(sandbox.root / "logs" / f"{SERVICE}.log"))]
    if state.mode == "kraft":  # the consumer group protocol of Kafka 4 (KIP-848)
        services.append(Service(WATCH_SERVICE, "streams", 0,
                                [sys.executable, "-m", "streamctl.jobs.status_watch",
                                 "--bootstrap-servers", state.bootstrap_servers, "--topic", OUTPUT],
                                str(sandbox.root / "logs" / f"{WATCH_SERVICE}.log")))
    return services


def ready(sandbox: Sandbox, state: SandboxState, service: Service) -> bool:
    """This process reached RUNNING, or got its partitions (logged with the pid: the log is
    appended to across restarts)."""
    log = Path(service.log)
    mark = f"(pid {service.pid})"
    return log.is_file() and any(line.endswith(mark) and ("-> RUNNING" in line or "assigned" in line)
                                 for line in log.read_text(errors="replace").splitlines())


def context(state: SandboxState) -> dict:
    if not state.by_role("streams"):
        return {}
    return {"kafka": {"streams": {APP_ID: {"outputs": [OUTPUT]}}}}


def streams_sets(shape: Shape) -> tuple[maven.ArtifactSet, ...]:
    """Kafka Streams of the shape's Kafka version."""
    return (KAFKA_STREAMS_KRAFT if shape.kraft else KAFKA_STREAMS,)


ADDON = Addon(role="streams", artifact_sets=streams_sets, plan=plan, ready=ready,
              context=context, after=("flume", "spark"))  # the agent feeds its input; after the job as always
