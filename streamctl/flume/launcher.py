"""How a Flume agent is run: its jars, its JVM command line, its generated config file.

Flume has its own artifact set (and so its own Kafka client, 2.7 here): it never shares a
classpath with the sandbox's brokers.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from streamctl.errors import UsageError
from streamctl.jvm import maven
from streamctl.jvm.java import log4j2_console

FLUME_VERSION = "1.11.0"
LOG4J2_VERSION = maven.LOG4J2_VERSION
HEAP = "256m"

FLUME = maven.register(maven.ArtifactSet(
    "flume",
    f"Apache Flume {FLUME_VERSION} with the Kafka sink and the taildir source",
    (
        f"org.apache.flume:flume-ng-node:{FLUME_VERSION}",
        f"org.apache.flume.flume-ng-sinks:flume-ng-kafka-sink:{FLUME_VERSION}",
        f"org.apache.flume.flume-ng-sources:flume-taildir-source:{FLUME_VERSION}",
        # flume-ng-node logs through slf4j 1.7 and declares log4j2 in test scope only.
        f"org.apache.logging.log4j:log4j-slf4j-impl:{LOG4J2_VERSION}",
        f"org.apache.logging.log4j:log4j-core:{LOG4J2_VERSION}",
    ),
))

# The HDFS sink, with Hadoop's shaded client (its own dependencies relocated: no clash with
# Flume's); HADOOP_CLIENT_VERSION is the client pyspark 4.2.0 ships.
HADOOP_CLIENT_VERSION = "3.5.0"
FLUME_HDFS = maven.register(maven.ArtifactSet(
    "flume-hdfs",
    f"Apache Flume {FLUME_VERSION} HDFS sink with the Hadoop {HADOOP_CLIENT_VERSION} client",
    (
        f"org.apache.flume.flume-ng-sinks:flume-hdfs-sink:{FLUME_VERSION}",
        f"org.apache.hadoop:hadoop-client-api:{HADOOP_CLIENT_VERSION}",
        f"org.apache.hadoop:hadoop-client-runtime:{HADOOP_CLIENT_VERSION}",
    ),
))

MAIN_CLASS = "org.apache.flume.node.Application"

JVM_FLAGS = ["-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-XX:-UsePerfData",
             "-Djava.awt.headless=true"]

LOG4J2 = log4j2_console({"kafka": "org.apache.kafka"})

_PLACEHOLDER = re.compile(r"@([A-Z][A-Z0-9_]*)@")


def shipped_definition(name: str) -> str:
    """The text of a shipped agent definition, `agents/<name>.properties`."""
    try:
        return resources.files("streamctl.agents").joinpath(f"{name}.properties").read_text()
    except FileNotFoundError:
        raise UsageError(f"no shipped agent definition {name!r}") from None


def shipped_names() -> list[str]:
    return sorted(p.name.removesuffix(".properties")
                  for p in resources.files("streamctl.agents").iterdir()
                  if p.name.endswith(".properties"))


def render(template: str, values: dict[str, object]) -> str:
    """Fill `@NAME@` placeholders; every placeholder must have a value."""
    missing = sorted({m for m in _PLACEHOLDER.findall(template) if m not in values})
    if missing:
        raise UsageError(f"agent definition placeholders without a value: {', '.join(missing)}")
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template)


def argv(agent: str, config_file: Path, monitoring_port: int, log4j_file: Path,
         jars_root: Path | None = None, heap: str = HEAP, hdfs: bool = False) -> list[str]:
    """`java ... org.apache.flume.node.Application -n NAME -f FILE` with HTTP monitoring on
    (hdfs=True: the HDFS sink's jars on the classpath too)."""
    classpath = maven.classpath(FLUME, jars_root)
    if hdfs:
        classpath = f"{maven.classpath(FLUME_HDFS, jars_root)}:{classpath}"
    return [
        "java", "-Xms32m", f"-Xmx{heap}", *JVM_FLAGS,
        f"-Dlog4j2.configurationFile={log4j_file}",
        "-Dflume.monitoring.type=http", f"-Dflume.monitoring.port={monitoring_port}",
        "-cp", classpath, MAIN_CLASS,
        "-n", agent, "-f", str(config_file),
    ]
