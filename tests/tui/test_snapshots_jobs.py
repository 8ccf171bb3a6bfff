"""The Spark jobs screen from recorded data: the checkpoint, progress file and log ends captured
from the real weblog-stats job (tests/fixtures/spark, see capture_spark.py).

Regenerate after an intended change: pytest tests/tui/test_snapshots_jobs.py --snapshot-update
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from textual.widgets import DataTable, Static

from streamctl.backends.spark import job_lag, observe_job, read_checkpoint
from streamctl.tui.app import StreamctlApp
from tests.tui.recorded import RecordedSource

SPARK = Path(__file__).parent.parent / "fixtures" / "spark"
SIZE = (100, 30)


def recorded_jobs() -> list:
    """JobViews as the dashboard built them: weblog-stats as the capture left it (stopped after
    its last committed batch, with 51 lines produced since), and a context job whose checkpoint
    directory is not there."""
    capture = json.loads((SPARK / "capture.json").read_text())
    checkpoint = SPARK / "checkpoint-weblog-stats"
    log_ends = {(key.split("/")[0], int(key.split("/")[1])): offset
                for key, offset in capture["log_end_after"].items()}
    stats = observe_job("weblog-stats", str(checkpoint), progress_file=str(SPARK / "progress.jsonl"),
                        process=(0, 0.0, False), master="local[2]")
    stats = replace(stats, checkpoint_dir="tests/fixtures/spark/checkpoint-weblog-stats",
                    lags=tuple(job_lag(read_checkpoint(checkpoint), log_ends)),
                    observed_at=stats.checkpoint.last_commit_at + 42.0)
    missing = observe_job("clickstream", "/srv/spark/clickstream/checkpoint")
    return [stats, missing]


@dataclass
class RecordedJobsSource(RecordedSource):
    def spark_jobs(self, cluster=None) -> list:
        return recorded_jobs()


def app(**kwargs) -> StreamctlApp:
    return StreamctlApp(RecordedJobsSource(**kwargs), refresh_interval=3600, clock=lambda: "12:00:00")


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_jobs_screen_with_checkpoint_offsets_vs_log_end(snap_compare):
    async def run_before(pilot):
        await pilot.press("7")
        await settle(pilot)
        await pilot.press("down")  # from clickstream (sorted first) to weblog-stats
        await pilot.pause()

    assert snap_compare(app(), terminal_size=SIZE, run_before=run_before)


async def test_highlighting_a_job_shows_its_partitions_and_problems():
    dashboard = app()
    async with dashboard.run_test(size=SIZE) as pilot:
        await pilot.press("7")
        await settle(pilot)
        jobs = dashboard.screen.query_one("#jobs DataTable", DataTable)
        assert [[str(c) for c in jobs.get_row_at(i)] for i in range(jobs.row_count)] == [
            ["clickstream", "unknown", "-", "-", "-", "-", "-", "-", "-"],
            ["weblog-stats", "stopped", "32", "42s", "10.0", "48.0", "1042", "51", "never"],  # stopped, behind
        ]
        offsets = dashboard.screen.query_one("#job-offsets", DataTable)
        problems = dashboard.screen.query_one("#job-problems", Static)
        assert offsets.row_count == 0
        assert "no such checkpoint directory" in str(problems.render())
        await pilot.press("down")
        await pilot.pause()
        assert [[str(c) for c in offsets.get_row_at(i)] for i in range(offsets.row_count)] == [
            ["weblogs", "0", "1275", "1275", "0"],
            ["weblogs", "1", "975", "975", "0"],
            ["weblogs", "2", "959", "1010", "51"],
        ]
        assert str(problems.render()) == "no checkpoint problems"
