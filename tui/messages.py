"""Typed messages thread workers post back to the event loop."""

from __future__ import annotations

from typing import Any

from textual.message import Message


class Loaded(Message):
    """Fresh data for the screen that asked; a newer one replaces an unhandled older one."""

    def __init__(self, data: Any) -> None:
        self.data = data
        super().__init__()

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Loaded)


class LoadFailed(Message):
    """The screen's backend could not be read; the text is one line for the error banner."""

    def __init__(self, error: str) -> None:
        self.error = error
        super().__init__()

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, (Loaded, LoadFailed))
