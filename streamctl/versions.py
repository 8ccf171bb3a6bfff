"""`streamctl --version`: streamctl's own version and those of the client libraries it talks
through, read from the installed distributions' metadata (pyspark is never imported)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

# distribution -> what it is to streamctl
LIBRARIES = {
    "confluent-kafka": "Kafka client",
    "kazoo": "ZooKeeper client",
    "httpx": "Connect, Flume and Spark HTTP client",
    "textual": "dashboard",
    "rich": "tables",
    "click": "command line",
    "pydantic": "config validation",
    "pyspark": "Spark jobs, optional: the [spark] extra",
}


def _installed(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def librdkafka_version() -> str | None:
    """The librdkafka that confluent-kafka is linked with (it may differ from the wheel's own version)."""
    try:
        import confluent_kafka
    except ImportError:
        return None
    return confluent_kafka.libversion()[0]


def version_report() -> str:
    lines = [f"streamctl {_installed('streamctl') or 'unknown'}"]
    for distribution, role in LIBRARIES.items():
        found = _installed(distribution)
        lines.append(f"  {distribution} {found or 'not installed'}  ({role})")
        if distribution == "confluent-kafka" and found:
            lines.append(f"  librdkafka {librdkafka_version() or 'unknown'}  (linked by confluent-kafka)")
    return "\n".join(lines)
