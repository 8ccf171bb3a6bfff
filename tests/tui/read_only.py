"""What a read-only dashboard does with an operation's key: it opens the operation's form or
its plan dialog; the plan dialog is a dry run (Execute disabled, and refused if reached anyway)."""

from __future__ import annotations

from textual.widgets import Button

from streamctl.tui.app import READ_ONLY_REFUSAL
from streamctl.tui.screens.plan_dialog import PlanDialog


async def settle(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def preview_only(app, pilot, key: str | None = None, action=None) -> type:
    """Press `key` (or call `action`) on the current screen; assert what opens is a form or a
    dry-run plan dialog, close it, and return its class."""
    screen = app.screen
    await pilot.press(key) if key else action()
    await settle(app, pilot)
    opened = app.screen
    assert opened is not screen, f"{key or action} opened nothing"
    if isinstance(opened, PlanDialog):
        assert opened.refusal == READ_ONLY_REFUSAL
        assert opened.query_one("#execute", Button).disabled
        opened._execute()  # reached anyway: refused, the dialog stays
        await settle(app, pilot)
        assert app.screen is opened
        assert str(opened.query_one("#plan-error").render()) == READ_ONLY_REFUSAL
    await pilot.press("escape")
    await settle(app, pilot)
    assert app.screen is screen
    return type(opened)
