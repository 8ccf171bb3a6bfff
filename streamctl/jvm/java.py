"""Run a Java main class from a fetched artifact set (Kafka's own tools, for comparisons)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from streamctl.errors import StreamctlError
from streamctl.jvm import maven

# What kafka-run-class.sh passes to every tool, minus the GC log and JMX bits.
KAFKA_TOOL_FLAGS = ["-Xmx512M", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                    "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
                    "-Djava.awt.headless=true"]


def log4j2_console(quiet: dict[str, str]) -> str:
    """A log4j2 properties file: INFO to stdout (the service's log file), `quiet` loggers
    (name -> key) at WARN."""
    lines = [
        "status = warn",
        "appender.stdout.type = Console",
        "appender.stdout.name = STDOUT",
        "appender.stdout.layout.type = PatternLayout",
        "appender.stdout.layout.pattern = [%d] %p %m (%c)%n",
        "rootLogger.level = info",
        "rootLogger.appenderRef.stdout.ref = STDOUT",
    ]
    for key, name in quiet.items():
        lines += [f"logger.{key}.name = {name}", f"logger.{key}.level = warn"]
    return "\n".join(lines) + "\n"


def java() -> str:
    home = os.environ.get("JAVA_HOME")
    candidate = Path(home) / "bin" / "java" if home else None
    found = str(candidate) if candidate and candidate.exists() else shutil.which("java")
    if not found:
        raise StreamctlError("java not found: install a Java 17+ runtime "
                             "(Debian: apt-get install openjdk-17-jre-headless)")
    return found


def java_home_env() -> dict[str, str]:
    """JAVA_HOME for a launcher script that needs it (spark-submit, Spark's daemons, PySpark):
    none when the environment sets it, else the home of the `java` found."""
    if "JAVA_HOME" in os.environ:
        return {}
    return {"JAVA_HOME": str(Path(os.path.realpath(java())).parents[1])}


def tool_argv(main_class: str, *args: str, artifact_set: maven.ArtifactSet = maven.KAFKA,
              jars_root: Path | None = None) -> list[str]:
    """The command line a Kafka shell wrapper (kafka-run-class.sh) would run."""
    return [java(), *KAFKA_TOOL_FLAGS, "-cp", maven.classpath(artifact_set, jars_root), main_class, *args]


def run_tool(main_class: str, *args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(tool_argv(main_class, *args, **kwargs), capture_output=True, text=True,
                          timeout=timeout)
