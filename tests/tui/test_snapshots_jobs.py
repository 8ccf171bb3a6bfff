"""The Spark jobs screen from recorded data: the checkpoint, progress file and log ends captured
from the real weblog-stats job (tests/fixtures/spark, see capture_spark.py).

Regenerate after an intended change: pytest tests/tui/test_snapshots_jobs.py --snapshot-update
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from textual.widgets import DataTable, Static

from streamctl.backends.spark import CheckpointError, job_lag, observe_job, read_checkpoint
from streamctl.backends.spark_state import read_state
from streamctl.spark.state import epoch_seconds
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
    # The commit's time: the last progress event's, not the fixture file's mtime (a checkout's), so
    # that the watermark's age is the same on every machine.
    committed_at = epoch_seconds(stats.progress.samples[-1].timestamp)
    stats = replace(stats, checkpoint_dir="tests/fixtures/spark/checkpoint-weblog-stats",
                    checkpoint=replace(stats.checkpoint, last_commit_at=committed_at),
                    lags=tuple(job_lag(read_checkpoint(checkpoint), log_ends)), observed_at=committed_at + 42.0)
    missing = observe_job("clickstream", "/srv/spark/clickstream/checkpoint")
    return [stats, missing]


@dataclass
class RecordedJobsSource(RecordedSource):
    def spark_jobs(self, cluster=None) -> list:
        return recorded_jobs()

    def spark_job_state(self, view):
        """The captured checkpoint's state stores (the missing job's: its own one-line error)."""
        if view.name != "weblog-stats":
            raise CheckpointError(f"{view.checkpoint_dir}: no such checkpoint directory")
        return read_state(str(SPARK / "checkpoint-weblog-stats"))


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


async def test_the_state_pane_shows_the_highlighted_jobs_operators_or_one_line():
    dashboard = app()
    async with dashboard.run_test(size=(120, 40)) as pilot:
        await pilot.press("7")
        await settle(pilot)
        await settle(pilot)  # the State pane's own worker, for the job highlighted first
        line = dashboard.screen.query_one("#job-state-line", Static)
        operators = dashboard.screen.query_one("#job-state-operators", DataTable)
        assert str(line.render()).startswith("state unread: ") and not operators.display  # clickstream
        await pilot.press("down")
        await settle(pilot)
        await settle(pilot)
        last = [json.loads(line) for line in (SPARK / "progress.jsonl").read_text().splitlines()
                if '"progress"' in line][-1]
        [op] = [[str(c) for c in operators.get_row_at(i)] for i in range(operators.row_count)]
        # the checkpoint's operator 0 and its store, with the last progress event's figures
        assert op[:6] == ["0", "stateStoreSave", "default", str(last["stateOperators"][0]["numRowsTotal"]),
                          "0", "32"]
        assert op[7].endswith(" 37") and op[8] == "33"  # dropped in the last batch; every delta replayed
        # observed 42 s after its batch of 00:10:35, the job's watermark (00:15:35: the capture closed its
        # window with a later event) is ahead of the clock and of the batch's newest event (00:10:31)
        assert str(line.render()).startswith(f"state of batch {last['batchId']} · watermark "
                                             f"{last['eventTime']['watermark']}: 4 min ahead of now, "
                                             "5 min ahead of the newest event"), str(line.render())
