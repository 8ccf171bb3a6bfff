"""Resolve JVM artifacts from Maven Central with `mvn` into the XDG cache.

Each service the sandbox runs needs a set of jars (an ArtifactSet). `fetch` writes a
throw-away pom listing the set's coordinates and runs `dependency:copy-dependencies`,
so the machine's own Maven settings (mirrors, proxies, ~/.m2) apply. The result lands
in a temporary folder that is renamed into place only when mvn succeeded: a cache
folder either holds a complete set or does not exist.

`fetch_all` runs up to PARALLEL mvn processes at once, each into its own staging folder. They
share the local repository (~/.m2): Maven 3.8's resolver downloads each file under a file lock
of its own (PartialFile) and renames it into place; Maven 3.9+ takes the named file locks the
flags in LOCKING ask for (older versions ignore them).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from streamctl import paths
from streamctl.errors import StreamctlError

KAFKA_ZK_VERSION = "3.9.2"
# The newest Kafka whose broker, Streams and connect-file jars Maven Central all serves: 4.4.0
# starts on JDK 17, but connect-file 4.4.0 is not served (nor is 4.2.2).
KAFKA_KRAFT_VERSION = "4.3.1"
LOG4J2_VERSION = "2.24.3"

MARKER = ".complete"
PARALLEL = 2  # mvn processes at once: the machine's network does the work, each JVM costs a core to start
# Maven 3.9+: cross-process locks on the shared local repository (named locks, one file per artifact).
LOCKING = ("-Daether.syncContext.named.factory=file-lock", "-Daether.syncContext.named.nameMapper=file-gav")


@dataclass(frozen=True)
class ArtifactSet:
    """A named group of Maven coordinates whose runtime closure forms one classpath."""

    name: str
    title: str
    coordinates: tuple[str, ...]  # groupId:artifactId:version[:classifier]


ARTIFACT_SETS: dict[str, ArtifactSet] = {}


def register(artifact_set: ArtifactSet) -> ArtifactSet:
    """Add a set to what `sandbox fetch` resolves (Flume and Spark join here)."""
    ARTIFACT_SETS[artifact_set.name] = artifact_set
    return artifact_set


KAFKA = register(ArtifactSet(
    "kafka",
    f"Apache Kafka {KAFKA_ZK_VERSION} (ZooKeeper mode) with ZooKeeper and Kafka's tools",
    (
        f"org.apache.kafka:kafka_2.13:{KAFKA_ZK_VERSION}",
        f"org.apache.kafka:kafka-tools:{KAFKA_ZK_VERSION}",
    ),
))

KAFKA_KRAFT = register(ArtifactSet(
    "kafka-kraft",
    f"Apache Kafka {KAFKA_KRAFT_VERSION} (KRaft mode) with Kafka's tools",
    (
        f"org.apache.kafka:kafka_2.13:{KAFKA_KRAFT_VERSION}",
        f"org.apache.kafka:kafka-tools:{KAFKA_KRAFT_VERSION}",
        # Kafka 4 logs through slf4j 1.x; its distribution ships this binding to log4j2.
        f"org.apache.logging.log4j:log4j-slf4j-impl:{LOG4J2_VERSION}",
    ),
))


def jars_root() -> Path:
    return paths.cache_dir() / "jars"


def lib_dir(artifact_set: ArtifactSet, root: Path | None = None) -> Path:
    return (root or jars_root()) / artifact_set.name


def is_fetched(artifact_set: ArtifactSet, root: Path | None = None) -> bool:
    marker = lib_dir(artifact_set, root) / MARKER
    return marker.is_file() and marker.read_text().split() == list(artifact_set.coordinates)


def classpath(artifact_set: ArtifactSet, root: Path | None = None) -> str:
    """The java -cp value for a fetched set; a clear error if it was never fetched."""
    if not is_fetched(artifact_set, root):
        raise StreamctlError(
            f"{artifact_set.title} is not fetched yet: run `streamctl sandbox fetch`"
        )
    return str(lib_dir(artifact_set, root) / "*")


def fetch(
    artifact_set: ArtifactSet,
    root: Path | None = None,
    report: Callable[[str], None] = lambda _: None,
) -> Path:
    """Resolve the set into the cache (a no-op once cached) and return its folder."""
    target = lib_dir(artifact_set, root)
    if is_fetched(artifact_set, root):
        return target
    mvn = shutil.which("mvn")
    if mvn is None:
        raise StreamctlError("mvn not found: install Apache Maven (Debian: apt-get install maven)")
    target.parent.mkdir(parents=True, exist_ok=True)
    report(f"resolving {artifact_set.title} from Maven Central")
    with tempfile.TemporaryDirectory(prefix=f".{artifact_set.name}-", dir=target.parent) as work_dir:
        work = Path(work_dir)
        (work / "pom.xml").write_text(_pom(artifact_set))
        staged = work / "lib"
        result = subprocess.run(
            [mvn, "-B", "-q", "-f", str(work / "pom.xml"), "dependency:copy-dependencies",
             f"-DoutputDirectory={staged}", "-DincludeScope=runtime", *LOCKING],
            capture_output=True, text=True, timeout=1800,
        )
        if result.returncode != 0 or not staged.is_dir():
            raise StreamctlError(
                f"mvn could not resolve {artifact_set.name}: {_first_error(result.stdout + result.stderr)}"
            )
        (staged / MARKER).write_text("\n".join(artifact_set.coordinates) + "\n")
        if target.exists():
            shutil.rmtree(target)
        staged.rename(target)
    return target


@dataclass(frozen=True)
class Fetched:
    artifact_set: ArtifactSet
    folder: Path
    cached: bool  # it was in the cache already: no mvn ran


def fetch_all(
    sets: Sequence[ArtifactSet],
    root: Path | None = None,
    report: Callable[[str], None] = lambda _: None,
    parallel: int = PARALLEL,
) -> list[Fetched]:
    """Resolve every set not cached yet, `parallel` mvn processes at once; results in `sets` order.

    The first failure is raised (naming its set, as `fetch` does) once the running mvn processes
    have ended; the sets not started by then are not."""
    unique = list(dict.fromkeys(sets))
    cached = {s for s in unique if is_fetched(s, root)}
    failed = threading.Event()

    def fetch_unless_failed(artifact_set: ArtifactSet) -> Path | None:
        if failed.is_set():
            return None  # a set queued before it failed: not started
        try:
            return fetch(artifact_set, root, report)
        except StreamctlError:
            failed.set()
            raise

    with ThreadPoolExecutor(max_workers=max(1, min(parallel, len(unique) - len(cached)))) as pool:
        futures = [pool.submit(fetch_unless_failed, s) for s in unique]
        # The queue runs in order, so a skipped set comes after the failed one that raises here.
        return [Fetched(s, future.result() or lib_dir(s, root), s in cached) for s, future in zip(unique, futures)]


def _pom(artifact_set: ArtifactSet) -> str:
    deps = []
    for coordinate in artifact_set.coordinates:
        group, artifact, version, *classifier = (escape(part) for part in coordinate.split(":"))
        deps.append(
            f"    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId>"
            f"<version>{version}</version>"
            + "".join(f"<classifier>{c}</classifier>" for c in classifier) + "</dependency>"
        )
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
        "  <modelVersion>4.0.0</modelVersion>\n"
        f"  <groupId>streamctl.sandbox</groupId><artifactId>{escape(artifact_set.name)}</artifactId>"
        "<version>1</version><packaging>pom</packaging>\n"
        "  <dependencies>\n" + "\n".join(deps) + "\n  </dependencies>\n</project>\n"
    )


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _first_error(output: str) -> str:
    """The first meaningful [ERROR] line of mvn's output, without colour codes."""
    for line in _ANSI.sub("", output).splitlines():
        line = line.strip()
        if line.startswith("[ERROR]") and len(line) > len("[ERROR] "):
            return line.removeprefix("[ERROR]").strip()
    lines = [l for l in _ANSI.sub("", output).splitlines() if l.strip()]
    return lines[-1].strip() if lines else "no output"
