"""SteadyFooter keeps its key widgets while the shown keys stay the same (a focus change),
and rebuilds them when a key's state changes."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Button
from textual.widgets._footer import FooterKey

from streamctl.tui.widgets.steady_footer import SteadyFooter


class FooterApp(App):
    BINDINGS = [Binding("r", "reset", "Reset offsets"), Binding("q", "quit", "Quit")]
    read_only = False

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield SteadyFooter()

    def check_action(self, action: str, parameters) -> bool | None:
        return None if action == "reset" and self.read_only else True

    def action_reset(self) -> None:
        pass


def keys(app: App) -> dict[str, FooterKey]:
    return {key.description: key for key in app.query(FooterKey)}


async def test_a_focus_change_keeps_the_same_key_widgets():
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        before = keys(app)
        assert set(before) >= {"Reset offsets", "Quit"}

        app.query_one("#two").focus()
        await pilot.pause()
        app.query_one("#one").focus()
        await pilot.pause()

        after = keys(app)
        assert after.keys() == before.keys()
        assert all(after[name] is before[name] for name in before)


async def test_a_key_that_becomes_disabled_is_shown_disabled():
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert not keys(app)["Reset offsets"].has_class("-disabled")

        app.read_only = True
        app.refresh_bindings()
        await pilot.pause()
        await pilot.pause()

        assert keys(app)["Reset offsets"].has_class("-disabled")
