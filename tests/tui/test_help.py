"""The help screen is built from the bindings: a changed key shows there without editing it."""

from __future__ import annotations

from textual.binding import Binding

from streamctl.tui.app import SCREENS, StreamctlApp
from streamctl.tui.screens.help import as_binding, help_markdown


def test_every_screen_binding_is_in_the_help():
    app = StreamctlApp(source=None)
    text = help_markdown(app, app.help_sections())
    for screen in SCREENS.values():
        for binding in map(as_binding, vars(screen).get("BINDINGS", [])):
            assert binding.description in text, binding


def test_a_rebound_key_shows_in_the_help(monkeypatch):
    from streamctl.tui.screens.topics import TopicsScreen

    monkeypatch.setattr(TopicsScreen, "BINDINGS", [Binding("n", "create_topic", "Create topic")])
    app = StreamctlApp(source=None)
    row = next(line for line in help_markdown(app, app.help_sections()).splitlines() if line.startswith("| Topics"))
    assert "**n** Create topic" in row and "Elect leaders" not in row
