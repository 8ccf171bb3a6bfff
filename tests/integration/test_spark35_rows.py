"""`jobs state --rows` on the real Spark 3.5 checkpoint (tests/fixtures/spark/checkpoint-spark35):
the repo's Spark 4 reads its state rows (format("statestore")); its state-metadata source finds no
operator there (Spark 3.5 writes no operator metadata). A local Spark session, no sandbox."""

from __future__ import annotations

import json
import os

import pytest

from tests import repo
from tests.conftest import run_cli

pytestmark = pytest.mark.integration

SPARK35 = repo.FIXTURES / "spark" / "checkpoint-spark35"
ROWS_PER_SECOND = 5  # the capture script's rate source
ROWS_TIMEOUT = 600  # seconds: a local Spark session on a busy, slow machine


def _last_rate_offset() -> int:
    """The rate source's offset (seconds of rows) the last committed batch ended at."""
    last = max(int(p.name) for p in (SPARK35 / "commits").iterdir() if p.name.isdigit())
    return int((SPARK35 / "offsets" / str(last)).read_text().splitlines()[-1])


def test_spark4_reads_the_rows_of_a_spark35_checkpoint():
    env = {**os.environ, "STREAMCTL_CONFIG": "/nonexistent/c.yaml"}
    result = run_cli("jobs", "state", str(SPARK35), "--rows", "-o", "json", env=env, timeout=ROWS_TIMEOUT)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    data = json.loads(result.stdout)
    assert data["operators"] == [] and data["operator_name"] is None
    assert (data["batch_id"], data["key_columns"], data["value_columns"]) == (4, ["window.start", "window.end", "key"],
                                                                              ["count"])
    # no window has closed (watermark 10 s behind): the state counts every row the source produced
    assert sum(row["count"] for row in data["rows"]) == ROWS_PER_SECOND * _last_rate_offset()
