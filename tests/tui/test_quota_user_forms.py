"""The Alter quota and SCRAM user forms turn what was typed into one call of the dashboard
source's operation (`quotas alter`'s and `users`' checks), or keep the form open with one line;
the password fields are empty once the form has read them or was cancelled. No services."""

from __future__ import annotations

import pytest

from streamctl.tui.screens.dialogs.alter_quota import AlterQuotaDialog
from streamctl.tui.screens.dialogs.scram_user import DeleteUserDialog, UserPasswordDialog
from tests.tui.form_app import FormApp, run_form

SECRET = "s3cret pass"  # a space inside: a password is taken as typed, never stripped


async def fill(make_form, fields: dict[str, str], selects: dict[str, str] | None = None, remove: bool = False,
               press: str = "#plan") -> tuple[FormApp, dict[str, str]]:
    return await run_form(make_form, fields, {"remove": True} if remove else None, selects, press)


@pytest.mark.parametrize("selects, fields, remove, call", [
    ({}, {"name": "billing", "value": "1048576"}, False,
     ("alter_quota", {"client-id": "billing"}, {"producer_byte_rate": 1048576.0}, [])),
    ({"entity-type": "user-default", "key": "request_percentage"}, {}, True,
     ("alter_quota", {"user": None}, {}, ["request_percentage"])),
    ({"entity-type": "ip", "key": "connection_creation_rate"}, {"name": "10.0.0.7", "value": "25"}, False,
     ("alter_quota", {"ip": "10.0.0.7"}, {"connection_creation_rate": 25.0}, [])),
])
async def test_the_alter_quota_form_asks_for_quotas_alter(selects, fields, remove, call):
    app, _ = await fill(AlterQuotaDialog, fields, selects, remove)
    assert app.source.calls == [call] and app.error == ""


@pytest.mark.parametrize("selects, fields, remove, error", [
    ({}, {"value": "10"}, False, "give the client-id (or choose its default)"),
    ({"entity-type": "client-id-default"}, {"name": "x", "value": "10"}, False,
     "the client-id default takes no name (choose client-id to name one)"),
    ({}, {"name": "billing"}, False, "give producer_byte_rate a value, or tick remove"),
    ({}, {"name": "billing", "value": "0"}, False,
     "--set producer_byte_rate: expected a number above 0, got '0' (use --delete producer_byte_rate to remove the quota)"),
    ({"entity-type": "ip"}, {"name": "10.0.0.7", "value": "5"}, False,
     "quota producer_byte_rate applies to users and client-ids, not IPs"),
])
async def test_bad_quota_input_keeps_the_form_open_with_one_line(selects, fields, remove, error):
    app, _ = await fill(AlterQuotaDialog, fields, selects, remove)
    assert app.error == error
    assert app.source.calls == [] and app.dismissed == []


async def test_create_user_hands_the_password_to_the_operation_and_empties_the_fields():
    app, left = await fill(lambda: UserPasswordDialog(create=True),
                           {"name": "app1", "password": SECRET, "confirm": SECRET}, {"mechanism": "SCRAM-SHA-256"})
    assert app.source.calls == [("upsert_user", "app1", "SCRAM-SHA-256", SECRET, True)]
    assert left == {"name": "app1", "password": "", "confirm": ""}


@pytest.mark.parametrize("fields, error", [
    ({"name": "app1", "password": SECRET, "confirm": SECRET + "x"}, "the two passwords differ: type them again"),
    ({"name": "app1"}, "no password: type it in both fields"),
    ({"name": " ", "password": SECRET, "confirm": SECRET}, "the user name is empty"),
])
async def test_a_refused_password_form_says_why_without_the_password_and_empties_it(fields, error):
    app, left = await fill(lambda: UserPasswordDialog(create=False, name="app1"), fields)
    assert app.error == error and SECRET not in app.error
    assert app.source.calls == [] and left["password"] == left["confirm"] == ""


async def test_cancel_empties_the_password_fields():
    app, left = await fill(lambda: UserPasswordDialog(create=True),
                           {"name": "app1", "password": SECRET, "confirm": SECRET}, press="#cancel")
    assert app.dismissed == [None] and app.source.calls == []
    assert left["password"] == left["confirm"] == ""


async def test_delete_user_asks_for_every_credential_or_one_mechanism():
    every, _ = await fill(lambda: DeleteUserDialog("app1"), {})
    one, _ = await fill(lambda: DeleteUserDialog("app1"), {}, {"mechanism": "SCRAM-SHA-512"})
    assert every.source.calls == [("delete_user", "app1", None)]
    assert one.source.calls == [("delete_user", "app1", "SCRAM-SHA-512")]
