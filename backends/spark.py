"""Spark Structured Streaming adapter: checkpoint, lag, liveness and rates (no pyspark, no UI).

Checkpoint layout (any Structured Streaming query, not only ours):
    metadata          {"id": "<query id>"}
    offsets/<N>       "v1", a metadata JSON line (batchWatermarkMs, batchTimestampMs, conf),
                      then one line per source: {"topic": {"0": 123}} = next offset to read
    commits/<N>       batch N is done ("v1", {"nextBatchWatermarkMs": ...})
    sources/<i>/0     a NUL byte, "v1", the source's initial offsets
Latest planned and committed batches come from LISTING offsets/ and commits/ (numeric names
only; past LISTING_CAP names, probing upward from the highest listed id): two files are parsed
and at most a few thousand names read, whatever the history length. Offsets without a commit are the
batch in flight. Damaged files become `problems` (findings), never exceptions.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import time
from collections import deque
from typing import Any

from streamctl.backends.checkpoint_store import CheckpointError, LocalStore, StoreUnreachable
from streamctl.backends.failure import describe
from streamctl.backends.http_tls import default_tls
from streamctl.errors import StreamctlError
from streamctl.model.spark import BatchOffsets, CheckpointStatus, JobView, PartitionJobLag, ProgressSample, ProgressTail, is_id
from streamctl.model.spark_state import OperatorProgress

KNOWN_VERSIONS = ("v1", "v2")
PROGRESS_TAIL_BYTES = 256 * 1024
LISTING_CAP = 1000  # names listed per folder before probing takes over
SNAPSHOT_UPLOADED = "SnapshotLastUploaded."  # a state operator's custom metric, per store (Spark 4)


# ---- checkpoint ---------------------------------------------------------------------------

def read_checkpoint(directory: str | os.PathLike, store=None) -> CheckpointStatus:
    """The checkpoint's state; CheckpointError only when the directory itself is unusable.

    `store` is where it lives (checkpoint_store.store_for); a local folder by default.
    StoreUnreachable when the file system holding it does not answer.
    """
    if store is None:
        store, root = LocalStore(), str(directory)
    else:
        root = str(directory)
    cp = _Reader(store, root.rstrip("/") or "/")
    if not store.is_dir(cp.root):
        what = "a file, not a checkpoint directory" if store.exists(cp.root) else "no such checkpoint directory"
        raise CheckpointError(f"{directory}: {what}")
    problems: list[str] = []
    query_id = cp.query_id(problems)
    planned_id = cp.latest_id("offsets", problems)
    committed_id = cp.latest_id("commits", problems)
    planned = cp.read_offsets(planned_id, problems) if planned_id is not None else None
    committed = None
    if committed_id is not None:
        if committed_id > (planned_id if planned_id is not None else -1):  # one problem, not two
            problems.append(f"commits/{committed_id} has no offsets/{committed_id}")
        else:
            committed = planned if committed_id == planned_id else cp.read_offsets(committed_id, problems)
    last_commit_at, next_watermark = cp.read_commit(committed_id, problems)
    return CheckpointStatus(
        path=str(directory), query_id=query_id, latest_planned=planned_id, latest_committed=committed_id,
        planned=planned, committed=committed, last_commit_at=last_commit_at,
        next_watermark_ms=next_watermark, initial_sources=cp.initial_sources(problems),
        problems=tuple(problems),
    )


class _Reader:
    """The checkpoint's files, asked of its store (local folder or WebHDFS)."""

    def __init__(self, store, root: str):
        self.store = store
        self.root = root

    def _path(self, *parts: str) -> str:
        return "/".join((self.root, *parts))

    def latest_id(self, name: str, problems: list[str]) -> int | None:
        """max(N) over the numeric file names (".N.crc", ".N.<uuid>.tmp" are not batches).

        A folder is listed whole up to LISTING_CAP names (Spark's default retention keeps ~100
        batches, 200 names with their .crc files). Past that, listing stops and the highest id is
        found by probing upward from the highest id listed: Spark writes batch ids one after the
        other and purges only the oldest, so the ids above any existing one are consecutive.
        """
        ids: list[int] = []
        try:
            for count, entry in enumerate(self.store.names(self._path(name)), 1):
                if is_id(entry):
                    ids.append(int(entry))
                if count >= LISTING_CAP and ids:
                    return self._probe_up(name, max(ids))
        except FileNotFoundError:
            return None
        except StoreUnreachable:
            raise
        except OSError as exc:
            problems.append(f"{name}/: cannot list ({exc.strerror})")
            return None
        return max(ids, default=None)

    def _probe_up(self, name: str, known: int) -> int:
        """The highest id N >= known such that known..N all exist (galloping, then bisection)."""
        def exists(batch):
            return self.store.exists(self._path(name, str(batch)))
        low, step = known, 1
        while exists(low + step):
            low, step = low + step, step * 2
        high = low + step  # missing
        while high - low > 1:
            middle = (low + high) // 2
            if exists(middle):
                low = middle
            else:
                high = middle
        return low

    def query_id(self, problems: list[str]) -> str | None:
        try:
            text = self.store.read_bytes(self._path("metadata")).decode("utf-8", errors="replace")
        except FileNotFoundError:
            problems.append("metadata: missing (no query id)")
            return None
        except StoreUnreachable:
            raise
        except OSError as exc:
            problems.append(f"metadata: unreadable ({exc.strerror})")
            return None
        try:
            value = json.loads(text.strip().splitlines()[0]).get("id")
        except (ValueError, IndexError, AttributeError, RecursionError):
            problems.append("metadata: not the JSON {\"id\": ...} Spark writes")
            return None
        return str(value) if value is not None else None

    def _lines(self, path: str, name: str, problems: list[str],
               missing_ok: bool = False) -> tuple[str, list[str]] | None:
        """(version header, the lines after it) of a log file; None (and a problem) if unusable."""
        try:
            raw = self.store.read_bytes(path)
        except StoreUnreachable:
            raise
        except FileNotFoundError as exc:
            if not missing_ok:
                problems.append(f"{name}: unreadable ({exc.strerror or 'missing'})")
            return None
        except OSError as exc:
            problems.append(f"{name}: unreadable ({exc.strerror})")
            return None
        lines = raw.lstrip(b"\x00").decode("utf-8", errors="replace").split("\n")
        header = lines[0].strip()
        if header not in KNOWN_VERSIONS:
            shown = header[:20] + ("..." if len(header) > 20 else "")
            problems.append(f"{name}: unknown header {shown!r} (expected v1 or v2)")
            return None
        return header, [line for line in lines[1:] if line.strip()]

    def read_offsets(self, batch_id: int, problems: list[str]) -> BatchOffsets | None:
        name = f"offsets/{batch_id}"
        read = self._lines(self._path("offsets", str(batch_id)), name, problems)
        if read is None:
            return None
        version, lines = read
        if len(lines) < 2:
            problems.append(f"{name}: truncated ({len(lines)} line(s) after the header; "
                            "expected metadata and one line per source)")
            return None
        try:
            meta = json.loads(lines[0])
            sources = tuple(None if line.strip() == "-" else json.loads(line) for line in lines[1:])
        except (ValueError, RecursionError):
            problems.append(f"{name}: truncated or corrupt JSON")
            return None
        if not isinstance(meta, dict):
            problems.append(f"{name}: metadata line is not a JSON object")
            return None
        return BatchOffsets(batch_id, version, _int(meta.get("batchWatermarkMs")),
                            _int(meta.get("batchTimestampMs")), sources)

    def read_commit(self, batch_id: int | None, problems: list[str]) -> tuple[float | None, int | None]:
        if batch_id is None:
            return None, None
        path = self._path("commits", str(batch_id))
        try:
            mtime = self.store.mtime(path)
        except StoreUnreachable:
            raise
        except OSError as exc:
            problems.append(f"commits/{batch_id}: unreadable ({exc.strerror})")
            return None, None
        read = self._lines(path, f"commits/{batch_id}", problems)
        lines = read[1] if read else []
        watermark = None
        if lines:
            try:
                watermark = _int(json.loads(lines[0]).get("nextBatchWatermarkMs"))
            except (ValueError, AttributeError, RecursionError):
                problems.append(f"commits/{batch_id}: corrupt JSON")
        return mtime, watermark

    def initial_sources(self, problems: list[str]) -> tuple[object, ...]:
        """sources/<i>/0 of each source i (NUL-prefixed, then v1 and the initial offsets)."""
        found: list[object] = []
        try:
            indexes = sorted(int(name) for name in self.store.names(self._path("sources")) if is_id(name))
        except StoreUnreachable:
            raise
        except OSError:
            return ()
        for index in indexes:
            name = f"sources/{index}/0"
            read = self._lines(self._path("sources", str(index), "0"), name, problems, missing_ok=True)
            if not read or not read[1]:
                continue
            try:
                found.append(json.loads(read[1][0]))
            except (ValueError, RecursionError):
                problems.append(f"{name}: corrupt JSON")
        return tuple(found)


def _int(value) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError, OverflowError):
        return None


# ---- lag: Kafka log end minus the last committed batch --------------------------------------

def log_end_offsets(client_config: dict[str, str], topics: set[str],
                    timeout: float = 10.0) -> dict[tuple[str, int], int]:
    """Latest offsets of every partition of `topics`: one metadata call, one list_offsets."""
    from confluent_kafka.admin import AdminClient

    from streamctl.backends.kafka import client as kafka_client

    if not topics:
        return {}
    # The client lives and dies inside the fork guard: check and the CLI fork their Kafka reads
    # from other threads meanwhile (kafka_client.ForkGuard).
    with kafka_client.FORK_GUARD.client():
        admin = kafka_client.new_client(AdminClient, {**client_config, "log_level": "0",
                                                      "socket.timeout.ms": kafka_client.socket_timeout_ms(timeout)})
        try:
            return _latest_offsets(admin, topics, timeout)
        finally:
            del admin  # destroyed here, its threads joined, before the guard lets a fork through


def _latest_offsets(admin, topics: set[str], timeout: float) -> dict[tuple[str, int], int]:
    from confluent_kafka import KafkaException, TopicPartition
    from confluent_kafka.admin import OffsetSpec

    from streamctl.backends.kafka.client import KafkaError

    ends = time.monotonic() + timeout
    try:
        md = admin.list_topics(timeout=timeout)
        wanted = [TopicPartition(t, p) for t in sorted(topics) if t in md.topics
                  for p in md.topics[t].partitions]
        if not wanted:
            return {}
        futures = admin.list_offsets({tp: OffsetSpec.latest() for tp in wanted},
                                     request_timeout=max(0.5, ends - time.monotonic()))
        return {(tp.topic, tp.partition): f.result(timeout=max(0.1, ends - time.monotonic())).offset
                for tp, f in futures.items()}
    except KafkaException as exc:
        err: Any = exc.args[0] if exc.args else None  # a KafkaError value
        raise KafkaError(f"reading log-end offsets failed: {err.str() if hasattr(err, 'str') else exc}") from None
    except concurrent.futures.TimeoutError:
        raise KafkaError("reading log-end offsets timed out") from None


def job_lag(status: CheckpointStatus, log_ends: dict[tuple[str, int], int]) -> list[PartitionJobLag]:
    """Per partition of the checkpoint's topics: log end - next offset of the last committed batch.

    Partitions present in Kafka but not yet in the checkpoint (added later) count from 0.
    """
    committed = status.committed_offsets()
    topics = {t for t, _ in committed} | {t for t, _ in (status.planned.kafka_offsets() if status.planned else {})}
    keys = sorted(set(committed) | {k for k in log_ends if k[0] in topics})
    return [PartitionJobLag(t, p, committed.get((t, p), 0 if committed else None), log_ends.get((t, p)))
            for t, p in keys]


# ---- liveness: the Spark REST API --------------------------------------------------------------

class SparkUnreachable(StreamctlError):
    """The driver's UI / REST API did not answer."""


def rest_applications(ui_url: str, timeout: float = 5.0) -> list[dict]:
    """GET <ui_url>/api/v1/applications (the running driver's applications)."""
    import httpx

    url = ui_url.rstrip("/") + "/api/v1/applications"
    try:
        response = httpx.get(url, timeout=timeout, follow_redirects=True, verify=default_tls())
        response.raise_for_status()
        data = response.json()
    except httpx.HTTPError as exc:
        raise SparkUnreachable(f"{url}: {describe(exc)}") from None
    except ValueError:
        raise SparkUnreachable(f"{url}: not JSON") from None
    if not isinstance(data, list):
        raise SparkUnreachable(f"{url}: unexpected answer")
    return data


# ---- rates: the progress file our StreamingQueryListener writes -----------------------------------

def read_progress_tail(path: str | os.PathLike, max_bytes: int = PROGRESS_TAIL_BYTES,
                       keep: int = 20, query_id: str | None = None) -> ProgressTail | None:
    """The last `keep` progress events, reading at most `max_bytes` from the file's end."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            modified = os.fstat(f.fileno()).st_mtime
            f.seek(max(0, size - max_bytes))
            chunk = f.read(max_bytes)
    except FileNotFoundError:
        return None
    lines = chunk.split(b"\n")
    if size > max_bytes:
        lines = lines[1:]  # the first line is cut in the middle
    samples: deque[ProgressSample] = deque(maxlen=keep)
    skipped = 0
    last_event = None
    for raw in lines:
        if not raw.strip():
            continue
        try:
            event = json.loads(raw)
        except (ValueError, RecursionError):
            skipped += 1
            continue
        if not isinstance(event, dict) or (query_id and event.get("id") not in (None, query_id)):
            continue
        last_event = event.get("event", last_event)
        if event.get("event") == "progress" and "batchId" in event:
            try:
                samples.append(_sample(event))
            except (TypeError, ValueError, OverflowError, AttributeError):  # not the shape we write
                skipped += 1
    return ProgressTail(tuple(samples), last_event, modified, skipped)


def _sample(event: dict) -> ProgressSample:
    event_time = event.get("eventTime") or {}
    watermark = event_time.get("watermark")
    return ProgressSample(
        batch_id=int(event["batchId"]), timestamp=str(event.get("timestamp")),
        num_input_rows=int(event.get("numInputRows") or 0),
        input_rows_per_second=float(event.get("inputRowsPerSecond") or 0.0),
        processed_rows_per_second=float(event.get("processedRowsPerSecond") or 0.0),
        batch_duration_ms=int(event.get("batchDuration") or 0),
        watermark=None if watermark is None else str(watermark),
        query_id=None if event.get("id") is None else str(event.get("id")),
        event_time_max=None if event_time.get("max") is None else str(event_time.get("max")),
        state_operators=tuple(_operator_progress(op) for op in event.get("stateOperators") or ()),
    )


def _operator_progress(op: dict) -> OperatorProgress:
    def count(key: str) -> int:
        return int(op.get(key) or 0)

    return OperatorProgress(
        operator_name=None if op.get("operatorName") is None else str(op.get("operatorName")),
        rows_total=count("numRowsTotal"), rows_updated=count("numRowsUpdated"), rows_removed=count("numRowsRemoved"),
        rows_dropped_by_watermark=count("numRowsDroppedByWatermark"), memory_used_bytes=count("memoryUsedBytes"),
        partitions=None if op.get("numShufflePartitions") is None else int(op["numShufflePartitions"]),
        snapshots_uploaded=tuple((key.removeprefix(SNAPSHOT_UPLOADED), int(value))
                                 for key, value in sorted((op.get("customMetrics") or {}).items())
                                 if key.startswith(SNAPSHOT_UPLOADED)),
    )


# ---- one job, observed ----------------------------------------------------------------------

def observe_job(name: str, checkpoint_dir: str, *, kafka_config: dict[str, str] | None = None,
                kafka_timeout: float = 10.0, ui_url: str | None = None, progress_file: str | None = None,
                process: tuple[int, float, bool] | None = None, app_id: str | None = None,
                master: str | None = None, rest_timeout: float = 3.0,
                ask_rest: bool = True, cluster_app=None, store=None) -> JobView:
    """Read the checkpoint, Kafka's log ends, the REST API and the progress tail of one job.

    `process` is (pid, create_time, alive) for a job streamctl launched; `cluster_app` its
    application as the standalone Master lists it; `store` where the checkpoint lives (local by
    default). Each failing part
    becomes an error field of the view, never an exception.
    """
    checkpoint = checkpoint_error = None
    checkpoint_unknown = False
    try:
        checkpoint = read_checkpoint(store.path(str(checkpoint_dir)) if store else checkpoint_dir, store)
    except StoreUnreachable as exc:
        checkpoint_error, checkpoint_unknown = str(exc), True
    except CheckpointError as exc:
        checkpoint_error = str(exc)
    lags = lag_error = log_ends = None
    # Kafka's log ends and the REST API are asked at once: two silent endpoints cost one timeout.
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="spark-log-ends")
    if checkpoint is not None and kafka_config is not None and checkpoint.committed is not None:
        topics = {t for t, _ in checkpoint.committed_offsets()}
        log_ends = pool.submit(log_end_offsets, kafka_config, topics, kafka_timeout)
    rest = rest_error = None
    if ui_url and ask_rest and (process is None or (process[2] and not app_id)):
        try:
            apps = rest_applications(ui_url, rest_timeout)
            rest = "up"
            app_id = app_id or next((str(a.get("id")) for a in apps if isinstance(a, dict) and a.get("id")), None)
        except SparkUnreachable as exc:
            rest, rest_error = "unreachable", str(exc)
    if log_ends is not None and checkpoint is not None:  # log ends are asked only with a checkpoint
        try:
            lags = tuple(job_lag(checkpoint, log_ends.result()))
        except StreamctlError as exc:
            lag_error = str(exc)
    pool.shutdown(wait=False)
    progress = read_progress_tail(progress_file, query_id=checkpoint.query_id if checkpoint else None) \
        if progress_file else None
    return JobView(
        name=name, checkpoint_dir=str(checkpoint_dir), observed_at=time.time(),
        checkpoint=checkpoint, checkpoint_error=checkpoint_error, lags=lags, lag_error=lag_error,
        process=None if process is None else ("running" if process[2] else "stopped"),
        pid=process[0] if process else None, master=master, ui_url=ui_url, rest=rest,
        rest_error=rest_error, app_id=app_id, progress=progress, cluster_app=cluster_app,
        checkpoint_unknown=checkpoint_unknown,
    )
