"""The operations' forms turn what was typed into one call of the dashboard source's operation
(its arguments parsed), or keep the form open with a one-line reason; no services."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Checkbox, Input, Label, Select

from streamctl.tui.screens.dialogs.add_partitions import AddPartitionsDialog
from streamctl.tui.screens.dialogs.alter_config import AlterConfigDialog
from streamctl.tui.screens.dialogs.create_topic import CreateTopicDialog
from streamctl.tui.screens.dialogs.form import FormDialog
from streamctl.tui.screens.dialogs.reset_offsets import ResetOffsetsDialog
from streamctl.tui.screens.dialogs.restart_connector import RestartConnectorDialog
from tests.tui.form_app import FormApp


async def submit(make_form: Callable[[], FormDialog], fields: dict[str, str] | None = None, checks: dict[str, bool] | None = None,
                 mode: str | None = None) -> FormApp:
    app = FormApp(make_form)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        form = app.form
        for field_id, text in (fields or {}).items():
            form.query_one(f"#{field_id}", Input).value = text
        for box_id, value in (checks or {}).items():
            form.query_one(f"#{box_id}", Checkbox).value = value
        if mode is not None:
            form.query_one("#mode", Select).value = mode
        await pilot.pause()
        await pilot.click("#plan")
        await pilot.pause()
        if app.screen is form:  # still open
            app.error = str(form.query_one("#form-error", Label).render())
    return app


@pytest.mark.parametrize("make_form, fields, checks, mode, call", [
    (CreateTopicDialog, {"name": "orders", "partitions": "6", "rf": "2", "configs": "retention.ms=60000"}, None, None,
     ("create_topic", "orders", 6, 2, {"retention.ms": "60000"})),
    (lambda: AddPartitionsDialog("orders"), {"total": "12"}, None, None, ("add_partitions", "orders", 12)),
    (lambda: AlterConfigDialog("orders"), {"pairs": "retention.ms=1000, cleanup.policy="}, None, None,
     ("alter_config", "orders", {"retention.ms": "1000", "cleanup.policy": None})),
    (lambda: ResetOffsetsDialog("billing"), {"value": "-5", "topics": "orders:0,1 payments"}, None, "shift-by",
     ("reset_offsets", "billing", [("orders", [0, 1]), ("payments", None)], False, "shift-by", "-5")),
    (lambda: RestartConnectorDialog("weblog-archive", only_failed=True), {}, {"include-tasks": False}, None,
     ("restart_connector", "weblog-archive", False, True)),
])
async def test_a_form_asks_the_source_for_its_operation(make_form, fields, checks, mode, call):
    app = await submit(make_form, fields, checks, mode)
    assert app.source.calls == [call]
    [request] = app.dismissed
    assert request.title == call[0]


@pytest.mark.parametrize("make_form, fields, mode, error", [
    (CreateTopicDialog, {"name": "orders", "partitions": "six"}, None,
     "partitions: expected a whole number, got 'six'"),
    (lambda: AlterConfigDialog("orders"), {"pairs": " , "}, None, "give at least one key=value"),
    (lambda: ResetOffsetsDialog("billing"), {"value": ""}, "to-offset", "to-offset needs a value"),
])
async def test_bad_input_keeps_the_form_open_with_one_line(make_form, fields, mode, error):
    app = await submit(make_form, fields, mode=mode)
    assert app.error == error
    assert app.source.calls == [] and app.dismissed == []
