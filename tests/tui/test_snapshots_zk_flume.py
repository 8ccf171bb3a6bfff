"""The ZooKeeper and Flume agents screens, and the Overview with their cards, from recorded data:
the sandbox's ZooKeeper answers and Kafka znodes (tests/fixtures/zookeeper, capture_zookeeper.py)
and the weblogs agent's metrics polls (tests/fixtures/flume, capture_flume.py).

Regenerate after an intended change: pytest tests/tui/test_snapshots_zk_flume.py --snapshot-update
"""

from __future__ import annotations

import json

from textual.widgets import DataTable, Static, Tree

from streamctl.backends.zookeeper_data import join
from streamctl.tui.app import StreamctlApp
from tests.tui.recorded import RecordedStackSource, znode_records

SIZE = (100, 30)
BROKERS_DOWN = ("brokers-down-2", "brokers-down-1")  # every broker stopped: the sink rolls back


def app(**kwargs) -> StreamctlApp:
    return StreamctlApp(RecordedStackSource(**kwargs), refresh_interval=3600, clock=lambda: "12:00:00")


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def broker_registration() -> str:
    """The first broker's registration znode, as recorded."""
    return f"/brokers/ids/{znode_records()['/brokers/ids']['children'][0]}"


async def open_broker_registration(pilot) -> None:
    """ZooKeeper screen, /brokers and /brokers/ids expanded, the first broker's znode highlighted.

    Expanding a node lists its children right below it, so each step moves down by the child's
    position among its recorded siblings (the cursor starts on the root)."""
    records = znode_records()
    await pilot.press("5")
    await settle(pilot)
    path = "/"
    for name in broker_registration().split("/")[1:]:
        await pilot.press(*["down"] * (records[path]["children"].index(name) + 1))
        await settle(pilot)
        path = join(path, name)
        if records[path]["children"]:
            await pilot.press("enter")
            await settle(pilot)


def test_overview_with_zookeeper_and_flume_cards(snap_compare):
    assert snap_compare(app(), terminal_size=SIZE, run_before=settle)


def test_zookeeper_screen(snap_compare):
    async def run_before(pilot):
        await pilot.press("5")
        await settle(pilot)

    assert snap_compare(app(), terminal_size=SIZE, run_before=run_before)


def test_zookeeper_expanded_node_shows_payload_stat_and_acl(snap_compare):
    assert snap_compare(app(), terminal_size=SIZE, run_before=open_broker_registration)


def test_flume_agents_flowing(snap_compare):
    async def run_before(pilot):
        await pilot.press("6")
        await settle(pilot)

    assert snap_compare(app(), terminal_size=SIZE, run_before=run_before)


def test_flume_agents_with_brokers_down(snap_compare):
    async def run_before(pilot):
        await pilot.press("6")
        await settle(pilot)

    assert snap_compare(app(flume_polls=BROKERS_DOWN), terminal_size=SIZE, run_before=run_before)


async def test_highlighted_znode_pane_holds_its_recorded_data_stat_and_acl():
    path = broker_registration()
    record = znode_records()[path]
    dashboard = app()
    async with dashboard.run_test(size=SIZE) as pilot:
        await open_broker_registration(pilot)
        assert dashboard.screen.query_one(Tree).cursor_node.data == path
        data = dashboard.screen.query_one("#znode-data", Static)
        assert data.border_title == f"{path} · json"
        assert json.loads(str(data.render())) == json.loads(record["data"])
        stat = dashboard.screen.query_one("#znode-stat", DataTable)
        rows = {str(stat.get_row_at(i)[0]): str(stat.get_row_at(i)[1]) for i in range(stat.row_count)}
        assert rows["dataVersion"] == str(record["stat"]["version"])
        assert rows["ephemeralOwner"] == str(record["stat"]["ephemeral_owner"])
        assert rows["dataLength"] == str(len(record["data"].encode()))
        acl = ", ".join(f"{a['scheme']}:{a['id']}" for a in record["acls"])
        assert str(dashboard.screen.query_one("#znode-acl", Static).render()).startswith(f"ACL: {acl} ")


async def test_flume_rows_show_rollbacks_and_the_stalled_channel():
    dashboard = app(flume_polls=BROKERS_DOWN)
    async with dashboard.run_test(size=SIZE) as pilot:
        await pilot.press("6")
        await settle(pilot)
        table = dashboard.screen.query_one("#agents", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert [r[:4] for r in rows] == [["weblogs", "source", "access", "1371"],
                                         ["weblogs", "channel", "buffer", "301/20000"],
                                         ["weblogs", "sink", "kafka", "1070"]]
        assert rows[1][5].endswith(" 2%") and rows[2][4] == "0.0/s"
        assert rows[2][6] == "2 (+2)" and rows[2][7] == "from buffer"


async def test_znode_names_and_payloads_are_shown_literally_not_as_markup():
    """Znode names and data are arbitrary: '[/x]' once crashed the pane as a Rich markup error."""
    name, payload = "[/oops]", "[b]not bold[/b] [/oops] [red]"
    dashboard = app()
    records = dashboard.source.zk.records
    root = records["/"]
    records["/"] = {**root, "children": [name, *root["children"]]}
    records[f"/{name}"] = {"data": payload, "acls": [{"scheme": "digest", "id": "ops:[x]", "perms": 1}],
                           "children": [], "stat": {**root["stat"], "num_children": 0,
                                                    "data_length": len(payload)}}
    async with dashboard.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await settle(pilot)
        await pilot.press("down")
        await settle(pilot)
        assert dashboard.screen.query_one(Tree).cursor_node.data == f"/{name}"
        assert str(dashboard.screen.query_one(Tree).cursor_node.label) == name
        data = dashboard.screen.query_one("#znode-data", Static)
        assert str(data.render()) == payload
        assert str(dashboard.screen.query_one("#znode-acl", Static).render()) == "ACL: digest:ops:[x] r"
