"""Run a Java main class from a fetched artifact set (Kafka's own tools, for comparisons)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from streamctl import maven
from streamctl.errors import StreamctlError

# What kafka-run-class.sh passes to every tool, minus the GC log and JMX bits.
KAFKA_TOOL_FLAGS = ["-Xmx512M", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                    "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
                    "-Djava.awt.headless=true"]


def java() -> str:
    home = os.environ.get("JAVA_HOME")
    candidate = Path(home) / "bin" / "java" if home else None
    found = str(candidate) if candidate and candidate.exists() else shutil.which("java")
    if not found:
        raise StreamctlError("java not found: install a Java 17+ runtime "
                             "(Debian: apt-get install openjdk-17-jre-headless)")
    return found


def tool_argv(main_class: str, *args: str, artifact_set: maven.ArtifactSet = maven.KAFKA,
              jars_root: Path | None = None) -> list[str]:
    """The command line a Kafka shell wrapper (kafka-run-class.sh) would run."""
    return [java(), *KAFKA_TOOL_FLAGS, "-cp", maven.classpath(artifact_set, jars_root), main_class, *args]


def run_tool(main_class: str, *args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(tool_argv(main_class, *args, **kwargs), capture_output=True, text=True,
                          timeout=timeout)
