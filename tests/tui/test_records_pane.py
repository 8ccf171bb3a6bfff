"""Pilot tests of the Records screen (a topic's latest records, a start offset, a filter, the
selected record in full) and of the group detail's next-record column, against the sandbox."""

from __future__ import annotations

import json

from streamctl.dashboard.source import make_dashboard
from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.topic_records import TopicRecordsScreen
from tests.faults.pilot import describe, rows, until
from tests.integration.kafka_helpers import commit, ordered_producer, unique, write_context


def _topic_with_records(sandbox, count: int = 30) -> str:
    topic = unique("pane")
    sandbox.kafka().create_topic(topic, 2, 3)
    producer = ordered_producer(sandbox.bootstrap_servers)
    for i in range(count):
        producer.produce(topic, key=f"k{i}".encode(), partition=i % 2,
                         value=json.dumps({"n": i, "password": "hunter2", "kind": "odd" if i % 2 else "even"}).encode())
    assert producer.flush(30) == 0
    return topic


async def test_records_screen_latest_start_filter_and_detail(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    topic = _topic_with_records(sandbox)
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers, include={"topics": [topic]})
    app = StreamctlApp(make_dashboard(config, "it"), refresh_interval=1.0)
    async with app.run_test(size=(160, 50)) as pilot:
        app.push_screen(TopicRecordsScreen(topic))
        table = "#records"
        await until(pilot, lambda: len(rows(app, table)) == 30, 60, "the latest 20 of each partition (15 each)",
                    lambda: describe(app))
        screen = app.screen
        assert "hunter2" not in json.dumps([list(map(str, r)) for r in rows(app, table)])
        detail = screen.detail_shown
        assert '"password": "******"' in detail and '"n":' in detail

        screen.query_one("#records-start").value = "13"
        await pilot.click("#records-start")
        await pilot.press("enter")
        await until(pilot, lambda: sorted(int(r[1]) for r in rows(app, table)) == [13, 13, 14, 14], 30,
                    "records from offset 13 in both partitions", lambda: describe(app))
        assert screen.follow is False

        screen.query_one("#records-start").value = ""
        await pilot.click("#records-start")
        await pilot.press("enter")
        screen.query_one("#records-filter").value = '"kind": "odd"'
        await pilot.click("#records-filter")
        await pilot.press("enter")
        await until(pilot, lambda: len(rows(app, table)) == 15 and {r[0] for r in rows(app, table)} == {"1"}, 30,
                    "only the odd records (partition 1)", lambda: describe(app))

        screen.query_one("#records-start").value = "yesterday"
        await pilot.click("#records-start")
        await pilot.press("enter")
        await pilot.pause(0.5)
        assert app.is_running and screen.start == ""  # refused with a notification, nothing changed


async def test_group_detail_shows_the_next_record_to_process(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    topic, group = _topic_with_records(sandbox, 10), unique("pane-g")
    commit(sandbox.bootstrap_servers, group, {(topic, 0): 2, (topic, 1): 3})
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers,
                           include={"topics": [topic], "groups": [group]})
    from streamctl.tui.screens.group_detail import GroupDetailScreen

    app = StreamctlApp(make_dashboard(config, "it"), refresh_interval=1.0)
    async with app.run_test(size=(200, 50)) as pilot:
        app.push_screen(GroupDetailScreen(group))
        await until(pilot, lambda: len(rows(app, "#lags")) == 2 and all(r[7] != "-" for r in rows(app, "#lags")),
                    60, "both partitions with their next record", lambda: describe(app))
        nexts = {r[0]: r[7] for r in rows(app, "#lags")}
        # Partition 0 holds the even n, partition 1 the odd: offset 2 is n=4, offset 3 is n=7.
        assert nexts[f"{topic}/0"].startswith('@2 {"n":4,') and nexts[f"{topic}/1"].startswith('@3 {"n":7,')
        assert "hunter2" not in "".join(nexts.values())
