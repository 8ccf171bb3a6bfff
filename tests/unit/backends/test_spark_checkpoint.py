"""The checkpoint reader on a real checkpoint of the weblog-stats job and on damaged copies of it.

tests/fixtures/spark/ comes from tests/fixtures/capture_spark.py (a real Spark 4 job on the
sandbox); capture.json holds what was observed independently of the checkpoint (Kafka log
ends, the listener's query id and last batch).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from streamctl.backends.spark import (
    CheckpointError,
    job_lag,
    read_checkpoint,
    read_progress_tail,
)
from tests import repo

FIXTURES = repo.FIXTURES / "spark"
REAL = FIXTURES / "checkpoint-weblog-stats"
CAPTURE = json.loads((FIXTURES / "capture.json").read_text())
LATEST = CAPTURE["latest_committed_seen"]


def _offsets(data: dict) -> dict[tuple[str, int], int]:
    return {(k.split("/")[0], int(k.split("/")[1])): v for k, v in data.items()}


LOG_END_BEFORE = _offsets(CAPTURE["log_end_before"])  # the job had read these when stopped...
LOG_END_AFTER = _offsets(CAPTURE["log_end_after"])  # ...and Kafka held these once it had stopped


@pytest.fixture
def copy(tmp_path) -> Path:
    """A private copy of the real checkpoint to damage."""
    target = tmp_path / "checkpoint"
    shutil.copytree(REAL, target)
    return target


def test_real_checkpoint_batches_offsets_and_query_id():
    status = read_checkpoint(REAL)
    assert status.problems == ()
    assert status.query_id == CAPTURE["query_id"]
    assert status.latest_planned == status.latest_committed == LATEST == CAPTURE["last_progress_batch"]
    assert status.in_flight is None
    # The last committed batch read everything the capture waited for, and nothing Kafka lacked.
    committed = status.committed_offsets()
    assert set(committed) == set(LOG_END_BEFORE) == set(LOG_END_AFTER)
    assert all(LOG_END_BEFORE[k] <= committed[k] <= LOG_END_AFTER[k] for k in committed)
    assert status.committed.version == "v1"
    assert status.committed.timestamp_ms > 1_600_000_000_000
    assert status.next_watermark_ms >= CAPTURE["window_start"] * 1000  # the window was closed


def test_real_sources_file_with_its_nul_prefix_gives_the_initial_offsets():
    assert (REAL / "sources" / "0" / "0").read_bytes()[:1] == b"\x00"
    status = read_checkpoint(REAL)
    assert status.initial_sources and set(status.initial_sources[0]) == {"weblogs"}


def test_crc_and_tmp_files_are_not_batches(copy):
    (copy / "offsets" / f".{LATEST + 1}.4b1d9c0e-tmp.tmp").write_text("v1\n{}\n")
    (copy / "offsets" / f"{LATEST + 1}.tmp").write_text("v1\n{}\n")
    (copy / "commits" / f".{LATEST + 5}.crc").write_bytes(b"crc")
    status = read_checkpoint(copy)
    assert any(p.name.endswith(".crc") for p in (copy / "offsets").iterdir())
    assert (status.latest_planned, status.latest_committed) == (LATEST, LATEST)
    assert status.problems == ()


def test_missing_commit_is_the_batch_in_flight(copy):
    (copy / "commits" / str(LATEST)).unlink()
    (copy / "commits" / f".{LATEST}.crc").unlink()
    status = read_checkpoint(copy)
    assert status.latest_planned == LATEST
    assert status.latest_committed == LATEST - 1
    assert status.in_flight == LATEST
    previous = json.loads((REAL / "offsets" / str(LATEST - 1)).read_text().splitlines()[2])
    assert status.committed_offsets() == {("weblogs", int(p)): o for p, o in previous["weblogs"].items()}
    assert status.problems == ()


def test_truncated_offsets_file_is_a_problem_not_a_crash(copy):
    path = copy / "offsets" / str(LATEST)
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])  # cut inside the metadata line
    status = read_checkpoint(copy)
    assert status.latest_planned == LATEST
    assert status.planned is None and status.committed is None
    assert any(p.startswith(f"offsets/{LATEST}: truncated") for p in status.problems)


def test_offsets_file_without_its_source_line_is_truncated(copy):
    path = copy / "offsets" / str(LATEST)
    path.write_text("\n".join(path.read_text().splitlines()[:2]))
    status = read_checkpoint(copy)
    assert status.problems == ((f"offsets/{LATEST}: truncated (1 line(s) after the header; "
                                "expected metadata and one line per source)"),)


def test_garbage_header_is_named(copy):
    path = copy / "offsets" / str(LATEST)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + path.read_bytes())
    status = read_checkpoint(copy)
    assert status.committed is None
    assert any(p.startswith(f"offsets/{LATEST}: unknown header") for p in status.problems)


def test_v2_header_is_accepted(copy):
    path = copy / "offsets" / str(LATEST)
    path.write_text("v2" + path.read_text()[2:])
    status = read_checkpoint(copy)
    assert status.problems == ()
    assert status.committed.version == "v2"
    assert status.committed_offsets() == read_checkpoint(REAL).committed_offsets()


def test_corrupt_metadata_and_commit(copy):
    (copy / "metadata").write_text("{not json")
    (copy / "commits" / str(LATEST)).write_text("v1\n{\"nextBatch")
    status = read_checkpoint(copy)
    assert status.query_id is None
    assert "metadata: not the JSON {\"id\": ...} Spark writes" in status.problems
    assert f"commits/{LATEST}: corrupt JSON" in status.problems
    assert status.latest_committed == LATEST  # the commit file exists: the batch is done


def test_commit_age_comes_from_the_commit_files_mtime(copy):
    os.utime(copy / "commits" / str(LATEST), (1_700_000_000, 1_700_000_000))
    assert read_checkpoint(copy).last_commit_at == 1_700_000_000


def test_fresh_and_missing_checkpoints(tmp_path):
    with pytest.raises(CheckpointError, match="no such checkpoint directory"):
        read_checkpoint(tmp_path / "nowhere")
    fresh = tmp_path / "fresh"
    (fresh / "offsets").mkdir(parents=True)
    shutil.copy(REAL / "metadata", fresh / "metadata")
    status = read_checkpoint(fresh)
    assert (status.latest_planned, status.latest_committed, status.in_flight) == (None, None, None)
    assert status.committed_offsets() == {}


def test_lag_is_log_end_minus_the_committed_batch(copy):
    # Batch LATEST-1 read the window's closing line, LATEST was the watermark's no-data batch:
    # with both uncommitted and LATEST never planned, LATEST-1 is in flight.
    for name in (f"offsets/{LATEST}", f"commits/{LATEST}", f"commits/{LATEST - 1}"):
        (copy / name).unlink()
    status = read_checkpoint(copy)
    assert status.in_flight == LATEST - 1
    ends = dict(LOG_END_AFTER)
    ends[("weblogs", 3)] = 40  # a partition added after the query started reads from 0
    lags = {(l.topic, l.partition): l.lag for l in job_lag(status, ends)}
    committed = status.committed_offsets()
    assert lags == {**{k: ends[k] - committed[k] for k in committed}, ("weblogs", 3): 40}
    assert sum(lags.values()) > 40  # the in-flight batch's records still count as lag


def test_progress_tail_reads_the_last_events_only(tmp_path):
    real = (FIXTURES / "progress.jsonl").read_text()
    path = tmp_path / "progress.jsonl"
    path.write_text("x" * 3_000_000 + "\n" + real + '{"event":"progress","batchId":')  # torn last line
    tail = read_progress_tail(path, max_bytes=64 * 1024, keep=5, query_id=CAPTURE["query_id"])
    batches = [json.loads(l)["batchId"] for l in real.splitlines() if '"event":"progress"' in l]
    assert [s.batch_id for s in tail.samples] == batches[-5:]
    assert tail.skipped_lines == 1
    assert tail.samples[-1].watermark and tail.samples[-1].batch_duration_ms > 0
    assert read_progress_tail(tmp_path / "absent.jsonl") is None


@pytest.mark.parametrize("cap", [1, 3, 5])
def test_long_histories_probe_upward_instead_of_listing_everything(copy, monkeypatch, cap):
    """Past LISTING_CAP names the reader probes from the highest listed id: same answers."""
    from streamctl.backends import spark

    (copy / "commits" / str(LATEST)).unlink()  # an in-flight batch, as seen mid-batch
    expected = read_checkpoint(copy)
    for old in range(2):  # Spark's retention purges the oldest batches
        (copy / "offsets" / str(old)).unlink()
        (copy / "commits" / str(old)).unlink()
    monkeypatch.setattr(spark, "LISTING_CAP", cap)
    probed = read_checkpoint(copy)
    assert (probed.latest_planned, probed.latest_committed, probed.in_flight) == (LATEST, LATEST - 1, LATEST)
    assert probed.committed_offsets() == expected.committed_offsets()
