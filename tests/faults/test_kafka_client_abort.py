"""The dashboard's own Kafka client dies (librdkafka aborts its process, #4605): the dashboard
keeps running, says so on the Overview, and reads Kafka again with a new client process."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from streamctl.dashboard.source import make_dashboard
from streamctl.tui.app import StreamctlApp
from tests.check_reasons import bug_marker
from tests.faults.pilot import card, describe, findings, rows, until

pytestmark = pytest.mark.integration


async def test_the_dashboard_survives_its_kafka_client_aborting(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    app = StreamctlApp(make_dashboard(sandbox.config_path, "sandbox"), refresh_interval=1.5)
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: card(app, "kafka") in ("OK", "WARN"), 30, "the Kafka card evaluated",
                    lambda: describe(app))
        first = app.source.kafka._child.process.pid
        os.kill(first, signal.SIGSTOP)  # the next refresh's reads wait in the frozen child ...
        await asyncio.sleep(2.5)
        os.kill(first, signal.SIGABRT)  # ... when it aborts, as librdkafka's assertion does
        os.kill(first, signal.SIGCONT)

        await until(pilot, lambda: "Kafka client process aborted" in findings(app), 30,
                    "the Overview naming the aborted client", lambda: describe(app))
        assert card(app, "kafka") == "CRIT" and app.is_running
        assert bug_marker(findings(app)) is None, describe(app)  # the abort named, never a Python error
        await until(pilot, lambda: card(app, "kafka") in ("OK", "WARN")
                    and "aborted" not in findings(app), 30, "the Kafka card back", lambda: describe(app))
        assert bug_marker(findings(app)) is None, describe(app)
        await pilot.press("3")
        await until(pilot, lambda: len(rows(app, "#topics DataTable")) > 0, 30, "Topics read by the new client",
                    lambda: describe(app))
        assert app.source.kafka.restarts == 1 and app.source.kafka._child.process.pid != first
        assert app.is_running
    assert (tmp_path / "state" / "streamctl" / "kafka-client.log").exists()
