"""The Create ACL and Delete ACLs forms turn their fields into one AclChange for the dashboard
source (validated by the CLI's own functions), or stay open with one line; no services."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Label, Select

from streamctl.kafka.acls.access import Rights
from streamctl.kafka.acls.plans import AclChange, Resource
from streamctl.tui.screens.dialogs.acl_forms import CreateAclDialog, DeleteAclDialog
from tests.tui.form_app import FormApp

ROW = Rights("User:app", "*", "Topic", "orders", "Literal", ("Read", "Write"), ())
NEW = Rights("", "*", "Topic", "orders", "Literal", (), ())


async def submit(make_form, fields: dict[str, str], selects: dict[str, str] | None = None) -> FormApp:
    app = FormApp(make_form)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        for field_id, text in fields.items():
            app.form.query_one(f"#{field_id}", Input).value = text
        for select_id, value in (selects or {}).items():
            app.form.query_one(f"#{select_id}", Select).value = value
        await pilot.pause()
        await pilot.click("#plan")
        await pilot.pause()
        if app.screen is app.form:  # still open
            app.error = str(app.form.query_one("#form-error", Label).render())
    return app


@pytest.mark.parametrize("make_form, fields, selects, call", [
    (lambda: CreateAclDialog(NEW), {"principal": "User:app", "operations": "read, describe-configs"}, None,
     ("create_acl", AclChange(Resource("Topic", "orders", "Literal"), "User:app", ("DescribeConfigs", "Read"),
                              "Allow", "*"))),
    (lambda: CreateAclDialog(NEW), {"principal": "User:*", "resource-name": "app-", "operations": "Read"},
     {"resource-type": "Group", "pattern": "Prefixed", "permission": "Deny"},
     ("create_acl", AclChange(Resource("Group", "app-", "Prefixed"), "User:*", ("Read",), "Deny", "*"))),
    (lambda: DeleteAclDialog(ROW), {}, None,
     ("delete_acl", AclChange(Resource("Topic", "orders", "Literal"), "User:app", ("Read", "Write"), "Allow", "*"))),
    (lambda: DeleteAclDialog(ROW), {"principal": "", "operations": "", "host": ""}, None,  # every principal's
     ("delete_acl", AclChange(Resource("Topic", "orders", "Literal"), None, (), "Allow", None))),
])
async def test_an_acl_form_asks_the_source_for_its_change(make_form, fields, selects, call):
    app = await submit(make_form, fields, selects)
    assert app.source.calls == [call]
    assert len(app.dismissed) == 1


@pytest.mark.parametrize("make_form, fields, selects, error", [
    (lambda: CreateAclDialog(NEW), {"principal": "app", "operations": "Read"}, None,
     "principal 'app': expected User:NAME (User:* for every user)"),
    (lambda: CreateAclDialog(NEW), {"principal": "User:app", "operations": ""}, None,
     "give at least one operation (Read, Write, Describe, ...)"),
    (lambda: CreateAclDialog(NEW), {"principal": "User:app", "operations": "Fly"}, None,
     ("unknown ACL operation 'Fly' (one of All, Read, Write, Create, Delete, Alter, Describe, ClusterAction, "
      "DescribeConfigs, AlterConfigs, IdempotentWrite)")),
    (lambda: CreateAclDialog(NEW), {"principal": "User:app", "operations": "Write"}, {"resource-type": "Group"},
     "operation Write does not apply to a Group (one of All, Read, Delete, Describe)"),
    (lambda: DeleteAclDialog(ROW), {"resource-name": "*"}, {"pattern": "Prefixed"},
     "--topic '*' --prefixed: a prefix cannot be empty or only '*'"),
])
async def test_bad_acl_input_keeps_the_form_open_with_one_line(make_form, fields, selects, error):
    app = await submit(make_form, fields, selects)
    assert app.error == error
    assert app.source.calls == [] and app.dismissed == []
