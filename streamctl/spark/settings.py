"""A context's `spark` section: the Structured Streaming jobs and their standalone cluster."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

from streamctl.settings_types import HttpUrl, Section, SettingsModel, UserPath


def _checkpoint_location(value: Any) -> Any:
    """A local path (~ expanded) or a remote store's URL, kept as written."""
    from streamctl.model.spark import REMOTE_CHECKPOINT_SCHEMES

    if not isinstance(value, (str, Path)):
        return value
    text = str(value)
    scheme = text.split("://", 1)[0] if "://" in text else ""
    if scheme in REMOTE_CHECKPOINT_SCHEMES:
        return text
    if scheme not in ("", "file"):
        raise ValueError(f"{scheme}:// checkpoints are not supported "
                         "(a local path, hdfs://, webhdfs://, s3a:// or s3://)")
    return str(Path(text.removeprefix("file://")).expanduser())


# Spark's JavaUtils.byteStringAsMb: a number, an optional binary unit; no unit means MiB.
_UNIT = re.compile(r"^\s*(\d+)\s*([kmgtp]?)i?(b?)\s*$", re.IGNORECASE)
_SHIFT = {"": 20, "k": 10, "m": 20, "g": 30, "t": 40, "p": 50}


def memory_bytes(text: str) -> int | None:
    """'768m' -> 805306368, '4g', '512k', '2048' (MiB) as Spark reads them; None if not that shape."""
    match = _UNIT.match(text)
    if match is None:
        return None
    number, unit, byte_suffix = match.groups()
    if byte_suffix and not unit:
        return int(number)  # '100b': bytes
    return int(number) << _SHIFT[unit.lower()]


def _memory_size(value: str | None) -> str | None:
    """Spark's memory sizes ('768m', '4g', '2048' in MiB), kept as written once they read."""
    if value is not None and memory_bytes(value) is None:
        raise ValueError(f"{value!r} is not a Spark memory size (like 768m, 4g or 2048 for MiB)")
    return value


MemorySize = Annotated[str | None, AfterValidator(_memory_size)]

CheckpointLocation = Annotated[str, BeforeValidator(_checkpoint_location)]


class SparkJob(SettingsModel):
    """One Spark Structured Streaming job."""

    checkpoint_dir: CheckpointLocation
    """The query's checkpoint location: a local path, hdfs://namenode:8020/path, webhdfs://namenode:9870/path
    or s3a://bucket/path."""
    webhdfs_url: HttpUrl | None = None
    """The NameNode's WebHDFS address (http://namenode:9870) for an hdfs:// checkpoint."""
    hdfs_user: str | None = None
    """The user WebHDFS requests run as (simple auth); the server's default when unset."""
    s3_endpoint_url: HttpUrl | None = None
    """An S3-compatible server's address for an s3a:// checkpoint (AWS itself when unset);
    credentials come from the usual AWS chain (environment, ~/.aws, an instance role)."""
    ui_url: HttpUrl | None = None
    """The driver's Spark UI URL."""
    progress_file: UserPath | None = None
    """JSON-lines file our StreamingQueryListener writes progress to."""
    outputs: list[str] = Field(default_factory=list)
    """The topics it writes (its checkpoint names only what it reads): edges of `streamctl pipeline`."""
    executor_memory: MemorySize = None
    """The memory its executors were started with (spark.executor.memory, e.g. '4g'; the driver memory
    for a local[N] master), for the state memory rule; streamctl knows it itself for a job it launched
    and from the standalone Master for one running there."""
    app_name: str | None = None
    """Its application name on the Spark cluster (`spark.app.name`); the job's name by default."""


class SparkSettings(SettingsModel):
    """Spark jobs to watch, by name, and the standalone cluster they run on."""

    jobs: Section[dict[str, SparkJob]] = Field(default_factory=dict)
    """Jobs keyed by a name of your choice."""
    masters: list[HttpUrl] = Field(default_factory=list)
    """Web UI URLs of the standalone Master(s), e.g. ['http://spark-master:8080']; with HA list them all."""
    timeout: float = Field(5.0, gt=0, allow_inf_nan=False)
    """Seconds to wait for a Master's answer."""
