"""An app that opens one operation form over a source recording the operation it is asked
for: the form tests' harness (no services)."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App

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
