"""Pilot tests of the dashboard against the real sandbox, built by the CLI's own factory."""

from __future__ import annotations

import json

import pytest

from streamctl.tui.screens.plan_dialog import PlanDialog
from streamctl.tui.widgets.health_card import HealthCard
from tests.integration.kafka_helpers import commit, produce, unique, write_context
from tests.tui.live_dashboard import app_for, open_reset_plan, rows, settle
from tests.tui.read_only import preview_only

pytestmark = pytest.mark.integration


@pytest.fixture
def scene(sandbox, tmp_path, monkeypatch):
    """A topic with records, an idle group that committed part of it, and a context file."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    topic, group = unique("tui"), unique("tuig")
    admin = sandbox.admin()
    admin.create_topic(topic, 3, 3)
    produce(sandbox.bootstrap_servers, topic, 300, partitions=3)
    commit(sandbox.bootstrap_servers, group, {(topic, p): 10 for p in range(3)})
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers)
    return topic, group, config, admin


async def test_every_screen_renders_real_data(sandbox, scene):
    topic, group, config, _ = scene
    app = app_for(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.screen.query_one("#card-kafka", HealthCard).border_subtitle in ("OK", "WARN", "CRIT")
        await pilot.press("2")
        await settle(app, pilot)
        assert [r[0] for r in rows(app)] == ["1", "2", "3"]
        assert sorted(r[3] for r in rows(app)) == ["broker", "broker", "broker, controller"]  # ZooKeeper mode
        await pilot.press("3")
        await settle(app, pilot)
        assert topic in [r[0] for r in rows(app)]
        await pilot.press("4")
        await settle(app, pilot)
        lagging = {r[0]: r for r in rows(app)}[group]
        assert lagging[1] == "classic"
        assert lagging[5] == str(3 * (100 - 10)), "group lag summed over partitions"


async def test_drilling_into_a_topic_shows_isr(sandbox, scene):
    topic, _, config, _ = scene
    app = app_for(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("3")
        await settle(app, pilot)
        await pilot.press("slash", *topic, "enter")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen.heading == f"Topic {topic}"
        partitions = rows(app, "#partitions")
        assert [r[0] for r in partitions] == ["0", "1", "2"]
        assert all(sorted(r[3].split(",")) == ["1", "2", "3"] for r in partitions), partitions


async def test_reset_offsets_through_the_dialog(sandbox, scene, tmp_path):
    topic, group, config, admin = scene
    app = app_for(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_reset_plan(app, pilot, group)
        assert isinstance(app.screen, PlanDialog)
        assert len(rows(app, "#plan-changes")) == 3
        await pilot.click("#execute")
        await settle(app, pilot)
        assert not isinstance(app.screen, PlanDialog)
    assert admin.committed(group) == {(topic, p): 100 for p in range(3)}
    records = [json.loads(line) for line in (tmp_path / "state/streamctl/audit.jsonl").read_text().splitlines()]
    assert [(r["operation"], r["target"] if "target" in r else r["parameters"]["group"], r["result"])
            for r in records] == [("groups.reset-offsets", group, "ok")]
    assert list((tmp_path / "state/streamctl/undo").rglob("*.csv"))


async def test_read_only_context_previews_but_cannot_execute_any_mutation(sandbox, scene):
    topic, group, config, admin = scene
    before = admin.committed(group), len(admin.metadata(topic).topic_partitions(topic))
    app = app_for(config, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        for screen_key, keys in (("3", ["c", "e"]), ("4", ["o"])):
            await pilot.press(screen_key)
            await settle(app, pilot)
            for key in keys:
                await preview_only(app, pilot, key)
        assert await preview_only(app, pilot, action=app.elect_leaders) is PlanDialog
        await pilot.press("3", "slash", *topic, "enter", "enter")
        await settle(app, pilot)
        for key in ("a", "t"):
            await preview_only(app, pilot, key)
            assert app.screen.__class__.__name__ == "TopicDetailScreen"
        labels = [label for label, _, _ in app.palette_entries()]
        assert [l for l in labels if l.startswith(("create", "elect", "reset"))]
    assert "(read-only)" in app.context_label
    assert (admin.committed(group), len(admin.metadata(topic).topic_partitions(topic))) == before


async def test_stopped_broker_turns_kafka_card_critical(sandbox, scene):
    _, _, config, _ = scene
    app = app_for(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        with sandbox.broker_stopped("kafka-3"):
            sandbox.wait_until(lambda: 3 not in {b.id for b in sandbox.kafka().metadata().brokers},
                               what="broker 3 deregistered")
            await pilot.press("r")
            await settle(app, pilot)
            card = app.screen.query_one("#card-kafka", HealthCard)
            assert card.border_subtitle == "CRIT"
            assert "broker 3 down" in " ".join(r[3] for r in rows(app, "#findings"))
        assert app.is_running
