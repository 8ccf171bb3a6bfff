"""The Groups screen records each shown refresh once in its trend and drain history (both now
computed in the refresh worker): a refresh superseded while it read (its result dropped) adds
nothing. Recorded snapshots from the sandbox (tests/fixtures/kafka)."""

from __future__ import annotations

import threading

from streamctl.tui.app import StreamctlApp
from tests.tui.recorded import RecordedSource


class HeldSource(RecordedSource):
    """Holds its next groups read until `release` is set."""

    def __post_init__(self):
        super().__post_init__()
        self.hold = False
        self.held = threading.Event()
        self.release = threading.Event()

    def kafka_groups(self):
        if self.hold:
            self.hold = False
            self.held.set()
            self.release.wait(timeout=30)
        return super().kafka_groups()


async def test_a_superseded_refresh_adds_no_sample_to_the_trend():
    source = HeldSource()
    app = StreamctlApp(source, refresh_interval=3600, clock=lambda: "12:00:00")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("4")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        group = source.snapshot.groups[0].id
        shown = len(screen.history[group])

        source.hold = True
        await pilot.press("r")  # this refresh waits in its read...
        await pilot.pause()
        assert source.held.wait(timeout=10)
        await pilot.press("r")  # ... and is superseded by this one
        await pilot.pause()
        source.release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()

        assert len(screen.history[group]) == shown + 1
        assert screen.query_one("#groups").table.row_count == len(source.snapshot.groups)
