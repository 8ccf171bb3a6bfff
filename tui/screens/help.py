"""Keys and what they do, built from the bindings themselves (never a hand-kept key table)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Markdown

FOOTNOTE = """\
Operations show their plan first and change nothing until you press **Execute**. In a
read-only context they are disabled. Every executed operation is in the audit log
(`streamctl audit`).
"""


def as_binding(entry) -> Binding:
    return entry if isinstance(entry, Binding) else Binding(*entry)


def help_markdown(app, sections: list[tuple[str, list]]) -> str:
    """One row per section: its keys and what they do (keys bound to one action merged)."""
    lines = ["# streamctl", "", "| where | keys |", "| --- | --- |"]
    for title, entries in sections:
        keys: dict[str, list[str]] = {}
        for binding in map(as_binding, entries):
            text = binding.tooltip or binding.description
            if text:
                keys.setdefault(text, []).append(app.get_key_display(binding))
        if keys:
            shown = " · ".join(f"**{'/'.join(k)}** {text}" for text, k in keys.items())
            lines.append(f"| {title} | {shown} |")
    return "\n".join(lines) + "\n\n" + FOOTNOTE


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen Markdown { width: 80; height: auto; max-height: 90%; border: thick $primary; background: $surface; }
    """
    BINDINGS = [("escape", "dismiss", "Close"), ("question_mark", "dismiss", "Close")]

    def __init__(self, sections: list[tuple[str, list]]) -> None:
        super().__init__()
        self.sections = sections

    def compose(self) -> ComposeResult:
        yield Markdown(help_markdown(self.app, self.sections))
