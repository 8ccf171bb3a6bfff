"""The Quotas & users screen on the real sandbox (ZooKeeper mode): a client-id quota altered
through the Alter quota form and the plan dialog (old -> new, as `quotas alter` plans it), read
back with `quotas list -o json`, shown in the pane, audited, then removed the same way; a
read-only dashboard plans it and refuses to execute."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Checkbox, Input, Select

from streamctl.tui.screens.plan_dialog import PlanDialog
from streamctl.tui.screens.quotas import QuotasScreen
from tests.faults.pilot import until
from tests.integration.kafka_helpers import unique, write_context
from tests.tui.live_dashboard import app_for, execute_plan, plan_rows, rows, settle

pytestmark = pytest.mark.integration

QUOTA = "51200"


def listed(sandbox, client_id: str) -> list[dict]:
    result = sandbox.cli("quotas", "list", "--client-id", client_id, "-o", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


async def plan_quota(app, pilot, client_id: str, value: str = "", remove: bool = False) -> list[list[str]]:
    """On the Quotas screen: the Alter quota form for `client_id`'s producer_byte_rate, then its plan's rows."""
    await pilot.press("a")
    await until(pilot, lambda: app.screen.query("#entity-type"), 30, "the alter quota form")
    form = app.screen
    form.query_one("#entity-type", Select).value = "client-id"
    form.query_one("#key", Select).value = "producer_byte_rate"
    form.query_one("#name", Input).value = client_id
    form.query_one("#value", Input).value = value
    form.query_one("#remove", Checkbox).value = remove
    await pilot.pause()
    return await plan_rows(app, pilot)


async def test_a_client_id_quota_altered_and_removed_through_the_dialog(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    client_id = unique("tuiquota")
    app = app_for(write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("U")
        await settle(app, pilot)
        assert isinstance(app.screen, QuotasScreen)
        assert not str(app.screen.query_one("#quotas-error").render())  # the pane was read

        target = f"quota client-id {client_id}"
        assert await plan_quota(app, pilot, client_id, QUOTA) == [[target, "producer_byte_rate", "-", QUOTA, ""]]
        await execute_plan(app, pilot)
        assert listed(sandbox, client_id) == [
            {"entity": {"client-id": client_id}, "values": {"producer_byte_rate": float(QUOTA)}}]
        await until(pilot, lambda: ["-", client_id, "-", "producer_byte_rate", QUOTA] in rows(app, "#quotas"), 30,
                    "the quota in the pane")

        assert await plan_quota(app, pilot, client_id, remove=True) == [
            [target, "producer_byte_rate", QUOTA, "-", "removed: no limit"]]
        await execute_plan(app, pilot)
        assert listed(sandbox, client_id) == []
        await until(pilot, lambda: not [r for r in rows(app, "#quotas") if r[1] == client_id], 30,
                    "the quota gone from the pane")
    audit = (tmp_path / "state/streamctl/audit.jsonl").read_text().splitlines()
    assert [(r["operation"], r["parameters"]["entity"], r["result"]) for r in map(json.loads, audit)] == [
        ("quotas.alter", {"client-id": client_id}, "ok")] * 2


async def test_a_read_only_dashboard_plans_a_quota_and_refuses_it(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    client_id = unique("roquota")
    app = app_for(write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers), read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("U")
        await settle(app, pilot)
        assert len(await plan_quota(app, pilot, client_id, QUOTA)) == 1
        dialog = app.screen
        assert isinstance(dialog, PlanDialog) and dialog.refusal and dialog.query_one("#execute").disabled
    assert listed(sandbox, client_id) == []
    assert not (tmp_path / "state/streamctl/audit.jsonl").exists()
