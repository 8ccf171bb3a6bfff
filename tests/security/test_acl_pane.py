"""The dashboard's ACLs on the secure sandbox (ZooKeeper mode, AclAuthorizer): the topic detail's
ACL pane lists who can do what on the topic (a binding made with `acls create`, a matching
prefix), the principal view lists that principal's bindings, the Create ACL and Delete ACLs
dialogs change the cluster through their plans (read back with the backend, audited), and a
read-only dashboard previews them and changes nothing."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Button, Input

from streamctl.backends.kafka.acl_admin import AclAdmin, AclBinding, AclQuery
from streamctl.dashboard.source import make_dashboard
from streamctl.tui.app import READ_ONLY_REFUSAL, StreamctlApp
from streamctl.tui.screens.dialogs.acl_forms import CreateAclDialog, DeleteAclDialog
from streamctl.tui.screens.plan_dialog import PlanDialog
from streamctl.tui.screens.principal_acls import PrincipalAclsScreen
from streamctl.tui.screens.topic_detail import TopicDetailScreen
from tests.faults.pilot import banner, describe, rows, until
from tests.security.helpers import unique

pytestmark = pytest.mark.integration

WAIT = 60  # seconds: a refresh on a machine three times slower, with the context's 3 s timeouts


@pytest.fixture(scope="module")
def scene(secure_zookeeper):
    """A topic, a reader granted Read on it with `acls create`, and a principal granted
    Describe on a prefix the topic's name starts with."""
    secure = secure_zookeeper
    topic, reader, prefixed = unique("aclpane"), f"User:{unique('reader')}", f"User:{unique('browser')}"
    admin = AclAdmin(secure.kafka_client(), timeout=10)
    admin.create_topic(topic, 1, 1)
    created = secure.cli("--context", "sandbox", "acls", "create", "--principal", reader, "--operation", "Read",
                         "--topic", topic, "--execute")
    assert created.returncode == 0, created.stderr
    admin.add_acls([AclBinding(prefixed, "*", "Describe", "Allow", "Topic", topic[:10], "Prefixed")])
    return {"secure": secure, "admin": admin, "topic": topic, "reader": reader, "prefixed": prefixed}


@pytest.fixture
def config(scene, tmp_path, monkeypatch):
    """A context `it` logged in as the super user `streamctl`; audit and client log under tmp_path."""
    secure = scene["secure"]
    for name, value in secure.password_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return secure.write_context(tmp_path / "config.yaml")


def bindings_of(scene, principal: str) -> list[AclBinding]:
    return scene["admin"].describe_acls(AclQuery(principal=principal))


def audited(tmp_path, operation: str) -> list[dict]:
    path = tmp_path / "state" / "streamctl" / "audit.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [r for r in records if r["operation"] == operation]


async def open_detail(app, pilot, topic: str, principal: str) -> None:
    app.push_screen(TopicDetailScreen(topic))
    await until(pilot, lambda: any(r[0] == principal for r in rows(app, "#acls")), WAIT,
                f"{principal} in the ACL pane", lambda: describe(app))


async def select_row(app, pilot, principal: str) -> None:
    table = app.screen.query_one("#acls")
    table.move_cursor(row=[r[0] for r in rows(app, "#acls")].index(principal))
    await pilot.pause()


async def plan_of(app, pilot, key: str, form_class, fields: dict[str, str]) -> PlanDialog:
    """Press `key` on the topic detail, fill its form, ask for the plan; the plan dialog once planned."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, form_class), WAIT, form_class.__name__)
    for field_id, text in fields.items():
        app.screen.query_one(f"#{field_id}", Input).value = text
    await pilot.click("#plan")
    await until(pilot, lambda: isinstance(app.screen, PlanDialog) and "planning" not in
                str(app.screen.query_one("#plan-title").render()), WAIT, "the plan", lambda: describe(app))
    return app.screen


async def test_the_pane_lists_who_may_do_what_and_the_principal_view_their_bindings(scene, config):
    topic, reader, prefixed = scene["topic"], scene["reader"], scene["prefixed"]
    app = StreamctlApp(make_dashboard(config, "it"), refresh_interval=60)
    async with app.run_test(size=(120, 45)) as pilot:
        await open_detail(app, pilot, topic, reader)
        await until(pilot, lambda: len(rows(app, "#acls")) >= 2, WAIT, "both bindings", lambda: describe(app))
        listed = rows(app, "#acls")
        assert [reader, "Read", "-", "*", f"Topic {topic}"] in listed
        assert [prefixed, "Describe", "-", "*", f"Topic prefix {topic[:10]}"] in listed
        assert banner(app) is None

        await select_row(app, pilot, reader)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PrincipalAclsScreen) and rows(app, "#principal-acls"),
                    WAIT, "the principal's ACLs", lambda: describe(app))
        assert rows(app, "#principal-acls") == [[f"Topic {topic}", "Read", "-", "*"]]


async def test_create_then_delete_through_the_dialogs(scene, config, tmp_path):
    topic, writer = scene["topic"], f"User:{unique('writer')}"
    app = StreamctlApp(make_dashboard(config, "it"), refresh_interval=60)
    async with app.run_test(size=(120, 45)) as pilot:
        await open_detail(app, pilot, topic, scene["reader"])

        dialog = await plan_of(app, pilot, "n", CreateAclDialog, {"principal": writer, "operations": "Write"})
        assert rows(app, "#plan-changes") == [[writer, f"Allow Write on Topic {topic!r} from host *", "absent",
                                               "present", ""]]
        await pilot.click("#execute")
        await until(pilot, lambda: app.screen is not dialog, WAIT, "the create executed", lambda: describe(app))
        assert bindings_of(scene, writer) == [AclBinding(writer, "*", "Write", "Allow", "Topic", topic, "Literal")]
        await until(pilot, lambda: any(r[0] == writer for r in rows(app, "#acls")), WAIT, "the new binding listed")

        await select_row(app, pilot, writer)
        dialog = await plan_of(app, pilot, "d", DeleteAclDialog, {})
        [change] = rows(app, "#plan-changes")
        assert change[:4] == [writer, f"Allow Write on Topic {topic!r} from host *", "present", "absent"]
        assert change[4] == f"loses Describe on Topic {topic!r}, Write on Topic {topic!r}"
        assert f"{writer} can then no longer" in str(dialog.query_one("#plan-warnings").render())
        await pilot.click("#execute")
        await until(pilot, lambda: app.screen is not dialog, WAIT, "the delete executed", lambda: describe(app))
        assert bindings_of(scene, writer) == []
        await until(pilot, lambda: all(r[0] != writer for r in rows(app, "#acls")), WAIT, "the binding gone")
    assert [r["result"] for r in audited(tmp_path, "acls.create")] == ["ok"]
    assert [r["result"] for r in audited(tmp_path, "acls.delete")] == ["ok"]


async def test_a_read_only_dashboard_previews_acl_changes_and_makes_none(scene, config, tmp_path):
    topic, reader, other = scene["topic"], scene["reader"], f"User:{unique('denied')}"
    app = StreamctlApp(make_dashboard(config, "it", read_only=True), refresh_interval=60)
    async with app.run_test(size=(120, 45)) as pilot:
        await open_detail(app, pilot, topic, reader)
        dialog = await plan_of(app, pilot, "n", CreateAclDialog, {"principal": other, "operations": "Read"})
        assert rows(app, "#plan-changes")[0][0] == other
        assert dialog.query_one("#execute", Button).disabled
        dialog._execute()  # reached anyway: refused
        await until(pilot, lambda: str(dialog.query_one("#plan-error").render()) == READ_ONLY_REFUSAL, WAIT,
                    "the refusal")
        await pilot.press("escape")

        await select_row(app, pilot, reader)
        dialog = await plan_of(app, pilot, "d", DeleteAclDialog, {})
        assert rows(app, "#plan-changes")[0][0] == reader
        assert dialog.query_one("#execute", Button).disabled
    assert bindings_of(scene, other) == []
    assert bindings_of(scene, reader) == [AclBinding(reader, "*", "Read", "Allow", "Topic", topic, "Literal")]
    assert audited(tmp_path, "acls.create") == [] and audited(tmp_path, "acls.delete") == []
