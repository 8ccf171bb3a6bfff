"""A Structured Streaming checkpoint's state stores, from its files alone (no pyspark, no UI).

    state/<op>/_metadata/metadata       "v1", then {"operatorInfo": {"operatorId", "operatorName"},
                                        "stateStoreInfo": [{"storeName", "numPartitions", ...}]}
    state/<op>/<partition>/<v>.delta    HDFS-backed provider: version v's changes (v = batch + 1)
    state/<op>/<partition>/<v>.snapshot                       the whole of version v
    state/<op>/<partition>/<v>[_<id>].changelog | .zip        RocksDB provider (changelog, snapshot)
    state/<op>/<partition>/<store>/...  a named store (stream-stream joins), same files

One listing per folder (StoreEntry: name, size), never a request per file: 1 + partitions x stores
listings per operator. A `.crc` beside a file (local and ChecksumFileSystem stores) fixes the
file's length; a file shorter than its checksum says is reported as truncated.
"""

from __future__ import annotations

import json
import re

from streamctl.backends.checkpoint_store import CheckpointError, LocalStore, StoreEntry, StoreUnreachable
from streamctl.backends.spark import read_checkpoint
from streamctl.model.spark import is_id
from streamctl.model.spark_state import CheckpointState, OperatorState, StoreFiles

DEFAULT_STORE = "default"
STATE_FILE = re.compile(r"^(\d+)(?:_[0-9A-Za-z-]+)?\.(delta|changelog|snapshot|zip)$")
SNAPSHOT_KINDS = ("snapshot", "zip")
CRC_HEADER_BYTES, CRC_BYTES_PER_CHUNK, CRC_CHUNK = 8, 4, 512


def read_state(directory: str, store=None) -> CheckpointState:
    """The state stores of the checkpoint at `directory` (a path inside `store`, local by default).

    CheckpointError when the directory is unusable, StoreUnreachable when the store does not
    answer; damaged parts become `problems`.
    """
    store = store or LocalStore()
    root = directory.rstrip("/") or "/"
    status = read_checkpoint(root, store)  # raises CheckpointError for a missing directory
    problems = list(status.problems)
    state_dir = f"{root}/state"
    try:
        op_entries = _list(store, state_dir)
    except FileNotFoundError:
        return CheckpointState(status.path, (), False, status.latest_committed, tuple(problems))
    except OSError as exc:
        raise CheckpointError(f"{directory}/state: cannot list ({exc.strerror or exc})") from None
    operators = []
    for op_id in sorted(int(e.name) for e in op_entries if e.is_dir and is_id(e.name)):
        operators.append(_operator(store, f"{state_dir}/{op_id}", op_id, problems))
    return CheckpointState(status.path, tuple(operators), True, status.latest_committed, tuple(problems))


def _list(store, folder: str) -> list[StoreEntry]:
    try:
        return store.entries(folder)
    except (FileNotFoundError, StoreUnreachable):
        raise
    except NotADirectoryError as exc:
        raise CheckpointError(f"{folder}: not a folder") from exc


def _operator(store, folder: str, op_id: int, problems: list[str]) -> OperatorState:
    where = f"state/{op_id}"
    try:
        entries = _list(store, folder)
    except (FileNotFoundError, OSError) as exc:
        problems.append(f"{where}/: cannot list ({getattr(exc, 'strerror', None) or exc})")
        return OperatorState(op_id, None, (), None, ())
    names = {e.name for e in entries}
    name, store_names, num_partitions = _operator_metadata(store, folder, where, "_metadata" in names, problems)
    stores: list[StoreFiles] = []
    for partition in sorted(int(e.name) for e in entries if e.is_dir and is_id(e.name)):
        stores += _partition(store, f"{folder}/{partition}", partition, f"{where}/{partition}", problems)
    found_names = tuple(sorted({s.store_name for s in stores}))
    return OperatorState(op_id, name, store_names or found_names, num_partitions, tuple(stores))


def _operator_metadata(store, folder: str, where: str, present: bool,
                       problems: list[str]) -> tuple[str | None, tuple[str, ...], int | None]:
    """(operator name, store names, partitions) from `_metadata/metadata`, or what is missing."""
    path = f"{where}/_metadata/metadata"
    if not present:
        problems.append(f"{where}: no operator metadata ({path}; Spark 4 writes it, Spark 3.5 does not)")
        return None, (), None
    try:
        raw = store.read_bytes(f"{folder}/_metadata/metadata")
    except StoreUnreachable:
        raise
    except OSError as exc:
        problems.append(f"{path}: unreadable ({exc.strerror or 'missing'})")
        return None, (), None
    lines = [line for line in raw.decode("utf-8", errors="replace").split("\n") if line.strip()]
    if not lines or lines[0].strip() != "v1" or len(lines) < 2:
        problems.append(f"{path}: not the operator metadata Spark writes (\"v1\" and a JSON line)")
        return None, (), None
    try:
        meta = json.loads(lines[1])
        info = meta.get("operatorInfo") or {}
        store_infos = meta.get("stateStoreInfo") or []
        name = info.get("operatorName")
        store_names = tuple(str(s.get("storeName")) for s in store_infos if s.get("storeName") is not None)
        partitions = {int(s["numPartitions"]) for s in store_infos if s.get("numPartitions") is not None}
    except (ValueError, TypeError, AttributeError, KeyError, RecursionError):
        problems.append(f"{path}: truncated or corrupt JSON")
        return None, (), None
    return (None if name is None else str(name)), store_names, (max(partitions) if partitions else None)


def _partition(store, folder: str, partition: int, where: str, problems: list[str]) -> list[StoreFiles]:
    try:
        entries = _list(store, folder)
    except (FileNotFoundError, OSError) as exc:
        problems.append(f"{where}/: cannot list ({getattr(exc, 'strerror', None) or exc})")
        return []
    found = [_store_files(partition, DEFAULT_STORE, entries, where, problems)]
    for entry in entries:
        if entry.is_dir and not entry.name.startswith(("_", ".")) and not is_id(entry.name) \
                and entry.name != "SSTs":  # RocksDB keeps its shared SST files there
            try:
                named = _list(store, f"{folder}/{entry.name}")
            except (FileNotFoundError, OSError) as exc:
                problems.append(f"{where}/{entry.name}/: cannot list ({getattr(exc, 'strerror', None) or exc})")
                continue
            found.append(_store_files(partition, entry.name, named, f"{where}/{entry.name}", problems))
    named_stores = found[1:]
    return found if not named_stores or found[0].latest_version is not None else named_stores


def _store_files(partition: int, store_name: str, entries: list[StoreEntry], where: str,
                 problems: list[str]) -> StoreFiles:
    crc_sizes = {e.name[1:-4]: e.size for e in entries if e.name.startswith(".") and e.name.endswith(".crc")}
    versions: list[int] = []
    snapshots: list[int] = []
    delta_count = delta_bytes = snapshot_count = snapshot_bytes = 0
    for entry in entries:
        match = STATE_FILE.match(entry.name)
        if entry.is_dir or not match:
            continue
        version, kind = int(match.group(1)), match.group(2)
        versions.append(version)
        if kind in SNAPSHOT_KINDS:
            snapshots.append(version)
            snapshot_count, snapshot_bytes = snapshot_count + 1, snapshot_bytes + entry.size
        else:
            delta_count, delta_bytes = delta_count + 1, delta_bytes + entry.size
        crc = crc_sizes.get(entry.name)
        if crc is not None and _crc_size(entry.size) != crc:
            problems.append(f"{where}/{entry.name}: truncated ({entry.size} bytes; its .crc covers "
                            f"{_covered_bytes(crc)})")
    return StoreFiles(partition, store_name, max(versions, default=None), max(snapshots, default=None),
                      delta_count, delta_bytes, snapshot_count, snapshot_bytes)


def _crc_size(size: int) -> int:
    """Hadoop's ChecksumFileSystem: an 8-byte header, then 4 bytes per 512-byte chunk."""
    return CRC_HEADER_BYTES + CRC_BYTES_PER_CHUNK * -(-size // CRC_CHUNK)


def _covered_bytes(crc_size: int) -> str:
    chunks = max(0, crc_size - CRC_HEADER_BYTES) // CRC_BYTES_PER_CHUNK
    return f"{max(0, chunks - 1) * CRC_CHUNK + 1}-{chunks * CRC_CHUNK} bytes"
