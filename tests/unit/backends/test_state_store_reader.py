"""The state store reader on the real checkpoint of the weblog-stats job (tests/fixtures/spark, from
tests/fixtures/capture_spark.py) and on damaged copies of it; its progress events' stateOperators."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from streamctl.backends.spark import read_progress_tail
from streamctl.backends.spark_state import read_state
from streamctl.spark.state import state_dict
from tests import repo
from tests.conftest import run_cli

FIXTURES = repo.FIXTURES / "spark"
REAL = FIXTURES / "checkpoint-weblog-stats"
PROGRESS = FIXTURES / "progress.jsonl"
CLEAN_ENV = {**os.environ, "STREAMCTL_CONFIG": "/nonexistent/c.yaml"}


@pytest.fixture
def copy(tmp_path) -> Path:
    target = tmp_path / "checkpoint"
    shutil.copytree(REAL, target)
    return target


def _files_on_disk(partition_dir: Path, suffix: str) -> list[Path]:
    return [p for p in partition_dir.iterdir() if p.name.endswith(suffix) and not p.name.startswith(".")]


def test_real_state_matches_the_files_on_disk():
    state = read_state(str(REAL))
    assert state.problems == () and state.has_state_dir
    [op] = state.operators
    # state/0/_metadata/metadata of the real job: its name, store and partition count
    assert (op.operator_id, op.operator_name, op.store_names, op.num_partitions) == \
        (0, "stateStoreSave", ("default",), 2)
    assert op.partitions == (0, 1)
    for store in op.stores:
        folder = REAL / "state" / "0" / str(store.partition)
        deltas = _files_on_disk(folder, ".delta")
        assert store.deltas == len(deltas) and store.delta_bytes == sum(p.stat().st_size for p in deltas)
        assert store.latest_version == max(int(p.name.split(".")[0]) for p in deltas)
        assert store.snapshots == 0 and store.latest_snapshot is None
        assert store.snapshot_lag == store.latest_version  # a restart replays every delta
    # version v is the state after batch v - 1: the state belongs to the last committed batch
    assert state.state_batch == state.latest_committed == 32


def test_snapshot_lag_counts_the_versions_after_the_latest_snapshot(copy):
    partition = copy / "state" / "0" / "1"
    shutil.copy(partition / "30.delta", partition / "30.snapshot")  # only the name is read
    [op] = read_state(str(copy)).operators
    by_partition = {s.partition: s for s in op.stores}
    assert by_partition[1].latest_snapshot == 30 and by_partition[1].snapshot_lag == 3
    assert by_partition[1].snapshots == 1 and by_partition[0].snapshot_lag == 33
    assert op.max_snapshot_lag == 33


def test_a_stateless_checkpoint_has_no_operators_and_says_so_in_one_line(copy):
    shutil.rmtree(copy / "state")
    state = read_state(str(copy))
    assert not state.has_state_dir and state.operators == () and state.state_batch is None
    result = run_cli("jobs", "state", str(copy), env=CLEAN_ENV)
    assert result.returncode == 0 and "stateless query" in result.stdout
    assert len(result.stdout.strip().splitlines()) <= 2 and "Traceback" not in result.stderr


def test_a_truncated_delta_file_is_a_problem_not_a_traceback(copy):
    delta = copy / "state" / "0" / "0" / "6.delta"
    delta.write_bytes(delta.read_bytes()[:100])
    state = read_state(str(copy))
    assert any("state/0/0/6.delta: truncated (100 bytes" in p for p in state.problems)
    result = run_cli("jobs", "state", str(copy), "-o", "json", env=CLEAN_ENV)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert any("truncated" in p for p in json.loads(result.stdout)["problems"])


def test_an_operator_without_metadata_keeps_what_its_files_say(copy):
    shutil.rmtree(copy / "state" / "0" / "_metadata")
    state = read_state(str(copy))
    [op] = state.operators
    assert op.operator_name is None and op.store_names == ("default",) and op.partitions == (0, 1)
    expected = "state/0: no operator metadata (state/0/_metadata/metadata; Spark 4 writes it, Spark 3.5 does not)"
    assert state.problems == (expected,)


TRUNCATED_METADATA = b'v1\n{"operatorInfo": {"operatorId": 0, "operatorN'


@pytest.mark.parametrize("content", [b"", TRUNCATED_METADATA, b"v7\n{}\n"])
def test_damaged_operator_metadata_is_one_problem(copy, content):
    (copy / "state" / "0" / "_metadata" / "metadata").write_bytes(content)
    state = read_state(str(copy))
    assert len(state.problems) == 1 and "state/0/_metadata/metadata" in state.problems[0]
    assert state.operators[0].operator_name is None and state.operators[0].stores


def test_progress_events_carry_the_state_operators():
    events = [json.loads(line) for line in PROGRESS.read_text().splitlines() if line.strip()]
    last = [e for e in events if e.get("event") == "progress"][-1]
    sample = read_progress_tail(PROGRESS).samples[-1]
    [op] = sample.state_operators
    [raw] = last["stateOperators"]
    assert sample.batch_id == last["batchId"]
    assert (op.operator_name, op.rows_total, op.rows_updated, op.rows_removed, op.rows_dropped_by_watermark,
            op.memory_used_bytes, op.partitions) == \
        (raw["operatorName"], raw["numRowsTotal"], raw["numRowsUpdated"], raw["numRowsRemoved"],
         raw["numRowsDroppedByWatermark"], raw["memoryUsedBytes"], raw["numShufflePartitions"])
    assert sample.event_time_max == last["eventTime"]["max"]


def test_state_dict_pairs_the_state_batch_with_its_progress_event():
    state = read_state(str(REAL))
    data = state_dict(state, read_progress_tail(PROGRESS), None, now=0.0)
    events = {e["batchId"]: e for e in map(json.loads, PROGRESS.read_text().splitlines())
              if e.get("event") == "progress"}
    same = events[data["state_batch"]]["stateOperators"][0]
    assert data["progress"]["state_batch_operators"][0]["rows_total"] == same["numRowsTotal"]
    assert data["progress"]["watermark"] == events[max(events)]["eventTime"]["watermark"]
    assert data["totals"]["deltas"] == 66 and data["progress_note"] is None


def test_a_checkpoint_read_by_path_says_what_it_cannot_read():
    result = run_cli("jobs", "state", str(REAL), "-o", "json", env=CLEAN_ENV)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["progress"] is None and "progress events" in data["progress_note"]
    assert data["operators"][0]["operator_name"] == "stateStoreSave"


def test_a_missing_checkpoint_is_one_line():
    result = run_cli("jobs", "state", "/nonexistent/cp", env=CLEAN_ENV)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert result.stderr.strip() == "streamctl: error: /nonexistent/cp: no such checkpoint directory"
