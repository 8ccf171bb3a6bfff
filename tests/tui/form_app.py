"""A bare app that opens one operation form against a source recording each operation asked
for: the forms' tests need no services."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.widgets import Checkbox, Input, Label, Select

from streamctl.dashboard.operations import OperationRequest
from streamctl.tui.screens.dialogs.form import FormDialog


class CallsSource:
    """Answers every operation with an OperationRequest naming the call it was asked for."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __getattr__(self, operation: str):
        def call(*args) -> OperationRequest:
            self.calls.append((operation, *args))
            return OperationRequest(operation, lambda: None, lambda plan: "")

        return call


class FormApp(App):
    def __init__(self, make_form: Callable[[], FormDialog]) -> None:
        super().__init__()
        self.source = CallsSource()
        self.make_form = make_form
        self.dismissed: list[OperationRequest | None] = []
        self.error = ""  # the form's error line when the test ended

    def on_mount(self) -> None:
        self.form = self.make_form()
        self.push_screen(self.form, self.dismissed.append)


async def run_form(make_form: Callable[[], FormDialog], fields: dict[str, str] | None = None,
                   checks: dict[str, bool] | None = None, selects: dict[str, str] | None = None,
                   press: str = "#plan", size: tuple[int, int] = (100, 40)) -> tuple[FormApp, dict[str, str]]:
    """Fill the form's inputs, checkboxes and selects (by id), press `press`; the app (its
    `error`: the form's error line if it stayed open) and each Input's text afterwards."""
    app = FormApp(make_form)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        form = app.form
        for field_id, text in (fields or {}).items():
            form.query_one(f"#{field_id}", Input).value = text
        for box_id, value in (checks or {}).items():
            form.query_one(f"#{box_id}", Checkbox).value = value
        for select_id, choice in (selects or {}).items():
            form.query_one(f"#{select_id}", Select).value = choice
        await pilot.pause()
        inputs = list(form.query(Input))
        await pilot.click(press)
        await pilot.pause()
        left = {str(field.id): field.value for field in inputs}
        if app.screen is form:  # still open
            app.error = str(form.query_one("#form-error", Label).render())
    return app, left
