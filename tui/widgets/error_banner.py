"""A one-line banner a screen shows while its backend fails; the rest of the app keeps going."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class ErrorBanner(Static):
    DEFAULT_CSS = """
    ErrorBanner {
        display: none;
        background: $error;
        color: $text;
        padding: 0 1;
        height: auto;
    }
    ErrorBanner.-shown { display: block; }
    """

    text = ""

    def show_error(self, text: str) -> None:
        self.text = text
        self.update(Text(f"⚠ {text} (retrying)"))
        self.add_class("-shown")

    def clear(self) -> None:
        self.remove_class("-shown")
