"""`jobs state` on a real Spark 3.5 checkpoint (tests/fixtures/spark/checkpoint-spark35, from
tests/fixtures/capture_spark35_checkpoint.py): the same state files as Spark 4's, no operator
metadata (Spark 3.5 writes none), which is said in one problem line."""

from __future__ import annotations

import json
import os
from pathlib import Path

from streamctl.backends.spark_state import read_state
from tests import repo
from tests.conftest import run_cli

SPARK35 = repo.FIXTURES / "spark" / "checkpoint-spark35"
NO_METADATA = "state/0: no operator metadata (state/0/_metadata/metadata; Spark 4 writes it, Spark 3.5 does not)"
CLEAN_ENV = {**os.environ, "STREAMCTL_CONFIG": "/nonexistent/c.yaml"}


def _deltas(partition: int) -> list[Path]:
    folder = SPARK35 / "state" / "0" / str(partition)
    return [p for p in folder.iterdir() if p.name.endswith(".delta")]


def test_the_fixture_is_a_spark_35_checkpoint_without_operator_metadata():
    assert (SPARK35 / "SPARK_VERSION").read_text().startswith("3.5.")
    assert not (SPARK35 / "state" / "0" / "_metadata").exists()


def test_spark_35_state_matches_the_files_on_disk():
    state = read_state(str(SPARK35))
    [op] = state.operators
    assert (op.operator_id, op.operator_name, op.num_partitions) == (0, None, None)
    assert op.store_names == ("default",) and op.partitions == (0, 1)
    last_commit = max(int(p.name) for p in (SPARK35 / "commits").iterdir() if p.name.isdigit())
    for store in op.stores:
        deltas = _deltas(store.partition)
        assert store.deltas == len(deltas) and store.delta_bytes == sum(p.stat().st_size for p in deltas)
        assert store.latest_version == max(int(p.name.split(".")[0]) for p in deltas) == last_commit + 1
        assert store.snapshots == 0 and store.snapshot_lag == store.latest_version
    assert state.state_batch == state.latest_committed == last_commit


def test_the_missing_operator_metadata_is_one_problem_line():
    assert read_state(str(SPARK35)).problems == (NO_METADATA,)


def test_the_cli_answers_on_a_spark_35_checkpoint():
    table = run_cli("jobs", "state", str(SPARK35), env=CLEAN_ENV)
    assert table.returncode == 0 and "Traceback" not in table.stderr
    assert "no operator metadata" in table.stdout and "totals: 1 operator(s), 2 store(s), 10 deltas" in table.stdout
    data = json.loads(run_cli("jobs", "state", str(SPARK35), "-o", "json", env=CLEAN_ENV).stdout)
    assert data["problems"] == [NO_METADATA] and data["state_batch"] == data["latest_committed"] == 4
    [op] = data["operators"]
    assert (op["operator_name"], op["num_partitions"], op["partitions"]) == (None, None, [0, 1])
