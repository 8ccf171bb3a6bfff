"""The Reassignments screen and the Overview's finding against the real sandbox: a throttled
slow move (RF 1, ~3 MB at 50 kB/s) shows its partition with a bar and a rate, the Overview
reports it, and cancelling through the plan dialog puts the old replica back and clears both."""

from __future__ import annotations

import json

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from streamctl.backends.kafka.reassign_admin import ReassignAdmin
from streamctl.dashboard.source import make_dashboard
from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.plan_dialog import PlanDialog
from streamctl.tui.screens.reassignments import ReassignmentsScreen
from tests.faults.pilot import until
from tests.integration.kafka_helpers import ordered_producer, unique, write_context
from tests.tui.live_dashboard import rows

pytestmark = pytest.mark.integration


def replicas(bootstrap: str, topic: str) -> list[int] | None:
    admin = ReassignAdmin({"bootstrap.servers": bootstrap}, timeout=20)
    try:
        return admin.layout()["replicas"].get((topic, 0))
    finally:
        admin.close()


@pytest.fixture
def slow_move(sandbox, tmp_path, monkeypatch):
    """A one-replica topic on broker 1 (3000 records of 1 kB) being moved to broker 2 at 50 kB/s;
    cancelled afterwards whatever the test did (the session's sandbox goes on to other tests)."""
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    topic = unique("rmove")
    admin = AdminClient({"bootstrap.servers": sandbox.bootstrap_servers})
    admin.create_topics([NewTopic(topic, num_partitions=1, replica_assignment=[[1]])])[topic].result(30)
    producer = ordered_producer(sandbox.bootstrap_servers)
    for _ in range(3000):
        producer.produce(topic, b"x" * 1000)
        producer.poll(0)
    assert producer.flush(60) == 0
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers)
    plan = tmp_path / "move.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": topic, "partition": 0, "replicas": [2]}]}))
    cli = ("--config", str(config), "reassign")
    started = sandbox.cli(*cli, "execute", "--plan", str(plan), "--throttle", "50kB", "--execute",
                          XDG_STATE_HOME=str(state))
    assert started.returncode == 0, started.stderr
    try:
        yield topic, config
    finally:
        sandbox.cli(*cli, "cancel", "--execute", XDG_STATE_HOME=str(state))


def findings(app) -> list[list[str]]:
    return [r for r in rows(app, "#findings") if r[2] == "reassignment"]


async def test_a_slow_move_shows_progress_and_a_finding_and_cancels_through_the_dialog(sandbox, slow_move):
    topic, config = slow_move
    app = StreamctlApp(make_dashboard(config, "it"), refresh_interval=1.0)
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: findings(app), 30, "the Overview's reassignment finding")
        assert findings(app)[0][0] == "WARN" and "1 partition moving" in findings(app)[0][3]
        await pilot.press("2", "m")
        await until(pilot, lambda: isinstance(app.screen, ReassignmentsScreen) and rows(app)
                    and rows(app)[0][6] != "-", 30, "a rate on the moving partition")
        partition, now, adding, removing, progress, done, rate, _ = rows(app)[0]
        assert (partition, now, adding, removing) == (f"{topic}/0", "2,1", "2", "1")
        assert "━" in progress and "%" in progress and rate.endswith("/s") and " / " in done

        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, PlanDialog) and rows(app, "#plan-changes"), 30,
                    "the cancel plan")
        assert rows(app, "#plan-changes")[0][:4] == [f"{topic}/0", "replicas", "2,1", "1"]
        await pilot.click("#execute")
        await until(pilot, lambda: not isinstance(app.screen, PlanDialog), 60, "the cancel executed")
        await until(pilot, lambda: replicas(sandbox.bootstrap_servers, topic) == [1], 30, "the old replica back")
        await until(pilot, lambda: not rows(app) and "no reassignment in progress" in
                    str(app.screen.query_one("#reassign-summary").render()), 30, "the screen emptied")
        await pilot.press("1")
        await until(pilot, lambda: not findings(app), 30, "the finding cleared")
        assert app.is_running
