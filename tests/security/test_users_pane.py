"""SCRAM users through the dashboard's Quotas & users screen on the secure sandbox (ZooKeeper
mode): a user created with the Create user form (the password typed twice, masked) logs in;
deleted with the Delete user form, its login fails. The password is in no file under the XDG
dirs (audit log, client logs), in no plan and never on the rendered screen; a read-only
dashboard plans a user and refuses to create it."""

from __future__ import annotations

import json
import secrets as random_secrets

import pytest
from textual.widgets import Input

from streamctl.dashboard.source import make_dashboard
from streamctl.kafka.users.plans import DEFAULT_MECHANISM, NOT_SHOWN
from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.plan_dialog import PlanDialog
from streamctl.tui.screens.quotas import QuotasScreen
from tests.faults.pilot import until
from tests.security.helpers import files_holding, login, logs_in_as, unique
from tests.tui.live_dashboard import execute_plan, plan_rows, rows, settle

pytestmark = pytest.mark.integration


@pytest.fixture
def secure(secure_zookeeper, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(secure_zookeeper.xdg_state))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(secure_zookeeper.xdg_config))
    return secure_zookeeper


def app_for(secure, read_only: bool = False) -> StreamctlApp:
    return StreamctlApp(make_dashboard(secure.config_path, "sandbox", read_only), refresh_interval=60)


async def open_form(app, pilot, key: str, fields: dict[str, str]) -> None:
    await pilot.press(key)
    await until(pilot, lambda: app.screen.query("#form-error"), 30, f"the form of {key}")
    for field_id, text in fields.items():
        app.screen.query_one(f"#{field_id}", Input).value = text
    await pilot.pause()


async def test_a_user_created_and_deleted_through_the_dialogs_logs_in_then_not(secure):
    user, password = unique("tuiapp"), f"pw-{random_secrets.token_urlsafe(18)}"
    audit = secure.xdg_state / "streamctl" / "audit.jsonl"
    audited_before = audit.read_text().count("\n") if audit.exists() else 0
    screens: list[str] = []  # the rendered screen at each step
    app = app_for(secure)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("U")
        await settle(app, pilot)
        assert isinstance(app.screen, QuotasScreen)
        assert "streamctl" in [r[0] for r in rows(app, "#users")]

        await open_form(app, pilot, "n", {"name": user, "password": password, "confirm": password})
        screens.append(app.export_screenshot())
        assert await plan_rows(app, pilot) == [[f"user {user}", DEFAULT_MECHANISM, "-", "4096 iterations", NOT_SHOWN]]
        screens.append(app.export_screenshot())
        await execute_plan(app, pilot)
        logs_in_as(secure, user, password, "ok")
        await until(pilot, lambda: [user, DEFAULT_MECHANISM, "4096"] in rows(app, "#users"), 30,
                    "the user in the pane")
        screens.append(app.export_screenshot())

        await open_form(app, pilot, "d", {"name": user})
        assert await plan_rows(app, pilot) == [[f"user {user}", DEFAULT_MECHANISM, "4096 iterations", "-", ""]]
        await execute_plan(app, pilot)
        assert login(secure, user, password) != "ok"
        logs_in_as(secure, user, password, "refused")
        await until(pilot, lambda: user not in [r[0] for r in rows(app, "#users")], 30, "the user gone")
        screens.append(app.export_screenshot())

    records = [json.loads(line) for line in audit.read_text().splitlines()[audited_before:]]
    assert [(r["operation"], r["parameters"]["user"], r["result"]) for r in records] == [
        ("users.create", user, "ok"), ("users.delete", user, "ok")]
    assert all(password not in screen for screen in screens) and user in screens[2]
    found, scanned = files_holding((secure.xdg_state, secure.xdg_config), [password])
    assert not found, f"the password in {sorted(found)}"
    assert scanned > 10 and audit.exists()


async def test_a_read_only_dashboard_plans_a_user_and_refuses_to_create_it(secure):
    user, password = unique("rotui"), f"pw-{random_secrets.token_urlsafe(18)}"
    app = app_for(secure, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("U")
        await settle(app, pilot)
        await open_form(app, pilot, "n", {"name": user, "password": password, "confirm": password})
        assert len(await plan_rows(app, pilot)) == 1
        dialog = app.screen
        assert isinstance(dialog, PlanDialog) and dialog.refusal and dialog.query_one("#execute").disabled
    assert login(secure, user, password) == "refused"
