"""`jobs state --rows`: the rows of one state store, read by Spark's state data source.

What the checkpoint's files tell (a stateless query, an unknown operator or store, no committed
batch, a remote location) is answered here without Spark. Only then does a child process
(`python -m streamctl.jobs.state_rows`) start a local PySpark session for this command alone:
this process never imports pyspark, and the session's JVM ends with the child.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from streamctl.backends.checkpoint_store import is_remote
from streamctl.backends.spark_state import DEFAULT_STORE, read_state
from streamctl.errors import StreamctlError, UsageError
from streamctl.model.spark_state import CheckpointState, OperatorState
from streamctl.spark.launcher import pyspark_home

ROWS_MODULE = "streamctl.jobs.state_rows"
DEFAULT_LIMIT = 100
SESSION_TIMEOUT = 300.0  # seconds for the child: JVM start-up, the read, the stop
NO_PYSPARK = "--rows reads the state with PySpark, which is not installed: pip install 'streamctl[spark]'"


@dataclass(frozen=True, slots=True)
class RowsTarget:
    """Which state store's rows to read, as the checkpoint's files settle it."""

    path: str
    operator_id: int
    operator_name: str | None
    store_name: str
    batch_id: int
    latest_committed: int


def rows_target(location: str, operator: int | None, store: str | None, batch: int | None) -> RowsTarget:
    """What the files answer before a Spark session starts: UsageError or StreamctlError in one line."""
    if is_remote(location):
        raise UsageError(f"--rows reads local checkpoints only, and {location} is not one "
                         "(copy it to a local folder; `jobs state` without --rows reads it where it is)")
    state = read_state(location)
    op = _operator(state, operator)
    store_name = _store(op, store)
    batch_id, latest_committed = _batch(state, batch)
    if pyspark_home() is None:
        raise StreamctlError(NO_PYSPARK)
    return RowsTarget(state.path, op.operator_id, op.operator_name, store_name, batch_id, latest_committed)


def read_rows(target: RowsTarget, limit: int, timeout: float = SESSION_TIMEOUT) -> dict:
    """The plain dict `jobs state --rows -o json` prints (rows: one object per state row)."""
    answer = run_reader(["--checkpoint", str(Path(target.path).resolve()), "--operator", str(target.operator_id),
                         "--store", target.store_name, "--batch", str(target.batch_id), "--limit", str(limit)],
                        timeout)
    if "error" in answer:
        raise StreamctlError(f"{target.path}: {answer['error']}")
    if not answer["total"]:
        raise StreamctlError(f"{target.path}: operator {target.operator_id}'s store {target.store_name} holds no "
                             f"rows at batch {target.batch_id} (an empty state)")
    return {
        "path": target.path, "operator_id": target.operator_id, "operator_name": target.operator_name,
        "store_name": target.store_name, "batch_id": target.batch_id, "latest_committed": target.latest_committed,
        "operators": [_metadata_row(row) for row in answer["operators"]],
        "total_rows": answer["total"], "shown": len(answer["rows"]),
        "key_columns": answer["key_columns"], "value_columns": answer["value_columns"],
        "rows": answer["rows"], "startup_seconds": answer["startup_seconds"],
        "read_seconds": answer["read_seconds"],
    }


def _metadata_row(row: dict) -> dict:
    """A row of Spark's state-metadata source, under this tool's names."""
    return {"operator_id": row.get("operatorId"), "operator_name": row.get("operatorName"),
            "store_name": row.get("stateStoreName"), "num_partitions": row.get("numPartitions"),
            "min_batch_id": row.get("minBatchId"), "max_batch_id": row.get("maxBatchId")}


def _operator(state: CheckpointState, operator: int | None) -> OperatorState:
    if not state.has_state_dir or not state.operators:
        raise StreamctlError(f"{state.path}: no state stores (a stateless query): no rows to read")
    ids = [op.operator_id for op in state.operators]
    wanted = ids[0] if operator is None else operator
    if wanted not in ids:
        raise UsageError(f"{state.path}: no stateful operator {wanted} (operators: {', '.join(map(str, ids))})")
    return state.operators[ids.index(wanted)]


def _store(op: OperatorState, store: str | None) -> str:
    names = list(op.store_names) or [DEFAULT_STORE]
    if store is None:
        return DEFAULT_STORE if DEFAULT_STORE in names else names[0]
    if store not in names:
        raise UsageError(f"operator {op.operator_id} has no store {store!r} (stores: {', '.join(names)})")
    return store


def _batch(state: CheckpointState, batch: int | None) -> tuple[int, int]:
    """(the batch to read, the last committed one)."""
    latest = state.latest_committed
    if latest is None:
        raise StreamctlError(f"{state.path}: no committed batch yet: no state to read")
    if batch is not None and batch > latest:
        raise UsageError(f"batch {batch} is not committed (the last committed batch is {latest})")
    return (latest if batch is None else batch), latest  # a running job may be writing newer versions


def _child_env() -> dict[str, str]:
    from streamctl.jvm.java import java_home_env

    return {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
            "SPARK_LOCAL_IP": "127.0.0.1", **java_home_env()}


def run_reader(args: list[str], timeout: float) -> dict:
    """The child's JSON line; its process group is killed when it outlives `timeout`."""
    child = subprocess.Popen([sys.executable, "-m", ROWS_MODULE, *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=_child_env(),
                             start_new_session=True)
    try:
        stdout, stderr = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        raise StreamctlError(f"the local Spark session did not answer within {timeout:g} s") from None
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    return {"error": last_cause(stderr) or f"the local Spark session ended with exit code {child.returncode}"}


def last_cause(stderr: str) -> str | None:
    """The last line of a child's stderr that says why it failed (an exception's line), if any."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    causes = [line for line in lines if "Error" in line.split(":", 1)[0] or "Exception" in line.split(":", 1)[0]]
    found = causes or lines
    return found[-1] if found else None
