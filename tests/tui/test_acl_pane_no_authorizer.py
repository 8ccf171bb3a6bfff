"""The topic detail's ACL pane on a cluster without an authorizer: one line saying so (the brokers'
SECURITY_DISABLED answer), no error banner, the rest of the detail shown; from recorded data and
on the plain sandbox. The help lists the ACL keys."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.help import help_markdown
from streamctl.tui.screens.topic_detail import TopicDetailScreen
from streamctl.tui.widgets.acl_pane import NO_AUTHORIZER
from tests.faults.pilot import banner, describe, rows, until
from tests.integration.kafka_helpers import unique, write_context
from tests.tui.live_dashboard import app_for
from tests.tui.recorded import RecordedSource

WAIT = 60  # seconds: a refresh on a machine three times slower


def note(app) -> str:
    notes = app.screen.query("#acl-note")
    return str(notes.first(Static).render()) if notes else ""


async def says_no_authorizer(app, pilot, topic: str) -> None:
    app.push_screen(TopicDetailScreen(topic))
    await until(pilot, lambda: note(app) == NO_AUTHORIZER, WAIT, "the pane's no-authorizer line",
                lambda: describe(app))
    await until(pilot, lambda: rows(app, "#partitions"), WAIT, "the partitions", lambda: describe(app))
    assert banner(app) is None
    assert rows(app, "#acls") == []


async def test_recorded_cluster_without_an_authorizer():
    app = StreamctlApp(RecordedSource("healthy"), refresh_interval=3600)
    async with app.run_test(size=(100, 30)) as pilot:
        await says_no_authorizer(app, pilot, "orders")


@pytest.mark.integration
async def test_plain_sandbox_has_no_authorizer(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    topic = unique("aclnone")
    sandbox.admin().create_topic(topic, 1, 1)
    app = app_for(write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers))
    async with app.run_test(size=(120, 40)) as pilot:
        await says_no_authorizer(app, pilot, topic)


def test_the_help_lists_the_acl_keys():
    app = StreamctlApp(source=None)
    row = next(line for line in help_markdown(app, app.help_sections()).splitlines()
               if line.startswith("| Topic detail"))
    assert "**n** create an ACL on this topic" in row
    assert "**d** delete the selected ACL row's bindings" in row
    assert "**p** what the selected ACL row's principal may do" in row
