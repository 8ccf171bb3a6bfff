"""`jobs state --rows` without Spark: what the checkpoint's files answer before a session starts,
the child's answer turned into the command's, and Spark's errors (captured from PySpark 4.2 in
tests/fixtures/spark/state-reader-errors.json) reduced to one line."""

from __future__ import annotations

import json
import shutil

import pytest

from streamctl.errors import StreamctlError, UsageError
from streamctl.jobs.state_rows import column_names, one_line
from streamctl.spark import state_rows
from tests import repo

FIXTURES = repo.FIXTURES / "spark"
REAL = FIXTURES / "checkpoint-weblog-stats"
LAST_COMMITTED = 32  # commits/32 is the fixture's last commit
ANSWER = {"operators": [{"operatorId": 0, "operatorName": "stateStoreSave", "stateStoreName": "default",
                        "numPartitions": 2, "minBatchId": 0, "maxBatchId": 32, "operatorProperties": None}],
          "key_columns": ["window.start", "window.end", "status_class", "path"],
          "value_columns": ["count", "sum"], "total": 3,
          "rows": [{"window.start": "2026-11-26T00:15:30.000Z", "window.end": "2026-11-26T00:16:00.000Z",
                    "status_class": "2xx", "path": "/", "count": 1, "sum": 512, "partition_id": 0}],
          "startup_seconds": 6.1, "read_seconds": 2.0}


@pytest.fixture
def checkpoint(tmp_path):
    return shutil.copytree(REAL, tmp_path / "cp")


@pytest.fixture
def reader(monkeypatch):
    """The child replaced by a recorded answer; the arguments it was given."""
    calls = []

    def answer(args, timeout, reply=ANSWER):
        calls.append(args)
        return dict(reply)

    monkeypatch.setattr(state_rows, "run_reader", answer)
    return calls


def test_the_defaults_read_the_first_operator_default_store_at_the_last_committed_batch(checkpoint, reader):
    data = state_rows.read_rows(state_rows.rows_target(str(checkpoint), None, None, None), 10)
    [args] = reader
    assert dict(zip(args[::2], args[1::2], strict=True)) == {
        "--checkpoint": str(checkpoint.resolve()), "--operator": "0", "--store": "default",
        "--batch": str(LAST_COMMITTED), "--limit": "10"}
    assert (data["batch_id"], data["operator_name"], data["total_rows"], data["shown"]) == \
        (LAST_COMMITTED, "stateStoreSave", 3, 1)
    assert data["rows"] == ANSWER["rows"] and data["startup_seconds"] == 6.1
    assert data["operators"] == [{"operator_id": 0, "operator_name": "stateStoreSave", "store_name": "default",
                                  "num_partitions": 2, "min_batch_id": 0, "max_batch_id": 32}]


@pytest.mark.parametrize("operator, store, batch, error, message", [
    (3, None, None, UsageError, "no stateful operator 3 (operators: 0)"),
    (None, "left-keyToNumValues", None, UsageError, "operator 0 has no store 'left-keyToNumValues' (stores: default)"),
    (None, None, 33, UsageError, "batch 33 is not committed (the last committed batch is 32)"),
])
def test_what_the_files_answer_starts_no_spark(checkpoint, reader, operator, store, batch, error, message):
    with pytest.raises(error) as raised:
        state_rows.rows_target(str(checkpoint), operator, store, batch)
    assert str(raised.value).endswith(message) and reader == []


def test_a_stateless_checkpoint_starts_no_spark(checkpoint, reader):
    shutil.rmtree(checkpoint / "state")
    with pytest.raises(StreamctlError, match=r"no state stores \(a stateless query\): no rows to read$"):
        state_rows.read_rows(state_rows.rows_target(str(checkpoint), None, None, None), 10)
    assert reader == []


@pytest.mark.parametrize("location", ["hdfs://namenode:8020/cp", "webhdfs://namenode:9870/cp", "s3a://bucket/cp"])
def test_remote_checkpoints_are_refused_in_one_line(location, reader):
    with pytest.raises(UsageError, match=r"^--rows reads local checkpoints only"):
        state_rows.rows_target(location, None, None, None)


def test_without_pyspark_the_answer_names_the_extra(checkpoint, reader, monkeypatch):
    monkeypatch.setattr(state_rows, "pyspark_home", lambda: None)
    with pytest.raises(StreamctlError) as raised:
        state_rows.read_rows(state_rows.rows_target(str(checkpoint), None, None, None), 10)
    assert "pip install 'streamctl[spark]'" in str(raised.value) and reader == []


@pytest.mark.parametrize("reply, message", [
    ({**ANSWER, "total": 0, "rows": []}, "operator 0's store default holds no rows at batch 32 (an empty state)"),
    ({"error": "[STDS_COMMITTED_BATCH_UNAVAILABLE] No committed batch found"},
     "[STDS_COMMITTED_BATCH_UNAVAILABLE] No committed batch found"),
])
def test_an_empty_state_or_a_spark_error_is_one_line(checkpoint, monkeypatch, reply, message):
    monkeypatch.setattr(state_rows, "run_reader", lambda args, timeout: reply)
    with pytest.raises(StreamctlError) as raised:
        state_rows.read_rows(state_rows.rows_target(str(checkpoint), None, None, None), 10)
    assert str(raised.value) == f"{checkpoint}: {message}"


def test_spark_errors_are_reduced_to_their_message_and_deepest_cause():
    errors = json.loads((FIXTURES / "state-reader-errors.json").read_text())["errors"]
    truncated, cleaned = sorted(one_line(Exception(e["text"])) for e in errors.values())
    assert truncated == ("[CANNOT_LOAD_STATE_STORE.UNCATEGORIZED] An error occurred during loading state. "
                         "(caused by EOFException)")
    assert cleaned.startswith("[STDS_COMMITTED_BATCH_UNAVAILABLE] No committed batch found, checkpoint location: ")
    assert cleaned.endswith("committed any microbatch before stopping.")
    assert all("SQLSTATE" in e["text"] for e in errors.values())  # what the reduction strips


def test_a_child_that_died_is_said_by_its_last_exception_line():
    stderr = ("WARNING: Using incubator modules: jdk.incubator.vector\n"
              "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n\tat x.y(Z.java:1)\n")
    assert state_rows.last_cause(stderr) == 'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space'
    assert state_rows.last_cause("") is None


def test_flattened_names_keep_key_and_value_apart_only_when_they_clash():
    assert column_names([("key", "window", "start"), ("key", "path")], [("value", "count")]) == \
        (["window.start", "path"], ["count"])
    assert column_names([("key", "count")], [("value", "count")]) == (["key.count"], ["value.count"])
