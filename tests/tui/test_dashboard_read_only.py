"""A read-only dashboard previews every operation of tui/app.py MUTATIONS, enumerated from the
screens' own bindings, and executes none: each key opens the operation's form or its plan as
a dry run (Execute disabled, and refused when reached anyway). Afterwards nothing has changed
and nothing was audited.
(The per-screen read-only tests elsewhere press a few keys; this one walks the whole list.)"""

from __future__ import annotations

import httpx
import pytest
from textual.binding import Binding

from streamctl.dashboard.source import make_dashboard
from streamctl.demo.connect_worker import DEMO_CONNECTOR, url
from streamctl.spark import launcher
from streamctl.tui.app import MUTATIONS, SCREENS, StreamctlApp
from streamctl.tui.screens.group_detail import GroupDetailScreen
from streamctl.tui.screens.topic_detail import TopicDetailScreen
from streamctl.tui.widgets.filter_table import FilterTable
from tests.integration.kafka_helpers import commit, produce, unique
from tests.tui.read_only import preview_only

pytestmark = pytest.mark.integration

SCREEN_CLASSES = [*SCREENS.values(), TopicDetailScreen, GroupDetailScreen]
NOT_OPERATIONS = {"app.focus_next", "app.focus_previous", "screen.copy_text", "app.pop_screen",
                  "records",  # opens the Records screen, which reads only
                  "app.switch_mode('reassignments')",  # the Brokers screen's way to the Reassignments screen
                  "principal_acls"}  # opens the principal's ACLs, a read
JOB, AGENT = "weblog-stats", "weblogs"


def bindings(screen_class) -> list[Binding]:
    return [b for klass in screen_class.__mro__ if "BINDINGS" in vars(klass)
            for b in klass.BINDINGS if isinstance(b, Binding)]


def test_every_operation_key_of_every_screen_is_in_mutations():
    bound = {b.action for cls in SCREEN_CLASSES for b in bindings(cls)}
    assert bound - NOT_OPERATIONS == MUTATIONS
    assert not {b.action for b in StreamctlApp.BINDINGS} & MUTATIONS


@pytest.fixture
def scene(sandbox, monkeypatch):
    """The sandbox's own state dir (its job and agent records), a topic and an idle group."""
    monkeypatch.setenv("XDG_STATE_HOME", str(sandbox.xdg_state))
    topic, group = unique("rotui"), unique("rotuig")
    admin = sandbox.admin()
    admin.create_topic(topic, 2, 3)
    produce(sandbox.bootstrap_servers, topic, 20, partitions=2)
    commit(sandbox.bootstrap_servers, group, {(topic, p): 3 for p in range(2)})
    return topic, group, admin


def world(sandbox, topic: str, group: str, admin) -> dict:
    audit = sandbox.xdg_state / "streamctl" / "audit.jsonl"
    return {
        "partitions": len(admin.metadata(topic).topic_partitions(topic)),
        "topics": sorted(t.name for t in admin.metadata().topics),
        "retention": admin.topic_configs(topic)["retention.ms"].value,
        "offsets": admin.committed(group),
        "agent pid": sandbox.sandbox.service(f"flume-{AGENT}")[1].pid,
        "job pid": launcher.load_run(JOB).pid,
        "connector": httpx.get(f"{url(sandbox.state)}/connectors/{DEMO_CONNECTOR}/status", timeout=10).json(),
        "audit": audit.read_text() if audit.exists() else "",
    }


async def settle(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_read_only_dashboard_previews_every_mutation_and_executes_none(sandbox, scene):
    topic, group, admin = scene
    before = world(sandbox, topic, group, admin)
    app = StreamctlApp(make_dashboard(sandbox.config_path, "sandbox", read_only=True), refresh_interval=60)
    tried: set[str] = set()
    # Each screen that binds operations, with a row selected so an action has a target; Enter
    # on the topic and the group opens their detail screens.
    visits = [("3", topic, True), ("4", group, True), ("6", AGENT, False), ("7", JOB, False),
              ("8", DEMO_CONNECTOR, False), ("U", None, False)]  # U: quotas and users, forms with no target
    async with app.run_test(size=(120, 40)) as pilot:
        for key, pick, detail in visits:
            await pilot.press(key)
            await settle(app, pilot)
            if key not in ("6", "U"):  # the agents screen has no filter; its one agent is selected
                await pilot.press("slash", *pick, "enter")
                await settle(app, pilot)
            if pick is not None:
                assert selected(app.screen) == pick  # so only read-only mode stands in the way
            tried |= await refuse_all(app, pilot)
            if detail:
                await pilot.press("enter")
                await settle(app, pilot)
                assert isinstance(app.screen, (TopicDetailScreen, GroupDetailScreen)), app.screen
                tried |= await refuse_all(app, pilot)
                await pilot.press("escape")
                await settle(app, pilot)
        await pilot.press("2")  # Brokers (the first broker selected): decommission
        await settle(app, pilot)
        tried |= await refuse_all(app, pilot)
        await pilot.press("m")  # its Reassignments screen: cancel (nothing moves: no change)
        await settle(app, pilot)
        tried |= await refuse_all(app, pilot)
        operations = [label for label, kind, _ in app.palette_entries() if kind == "operation"]
        assert "create topic" in operations  # offered: they open as dry runs
    assert tried == MUTATIONS
    assert world(sandbox, topic, group, admin) == before
    assert sandbox.sandbox.service(f"flume-{AGENT}")[1].alive and launcher.load_run(JOB).alive


def selected(screen) -> str | None:
    if hasattr(screen, "selected_agent"):
        return screen.selected_agent()
    return screen.query_one(FilterTable).selected_key()


async def refuse_all(app, pilot) -> set[str]:
    screen = app.screen
    refused = set()
    for binding in bindings(type(screen)):
        if binding.action not in MUTATIONS:
            continue
        await preview_only(app, pilot, binding.key)
        refused.add(binding.action)
    return refused
