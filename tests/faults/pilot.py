"""What the dashboard shows, read the way an operator reads it: cards, tables, the error banner."""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import DataTable

from streamctl.tui.widgets.error_banner import ErrorBanner
from streamctl.tui.widgets.health_card import HealthCard


async def until(pilot, predicate, timeout: float, what: str, describe=lambda: "") -> None:
    """Let the app refresh on its own until `predicate()` holds (no key presses, no waiting on
    workers: a fetch may be stuck on the fault for its whole timeout)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"dashboard: timed out after {timeout:g} s waiting for {what}\n{describe()}")
        await pilot.pause(0.25)


def rows(app, selector: str) -> list[list[str]]:
    tables = app.screen.query(selector)
    if not tables:
        return []
    table = tables.first(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def card(app, component: str) -> str | None:
    """A health card's state on the Overview (None on another screen)."""
    cards = app.screen.query(f"#card-{component}")
    return cards.first(HealthCard).border_subtitle if cards else None


def findings(app) -> str:
    return "\n".join(" ".join(row[1:]) for row in rows(app, "#findings"))


def banner(app) -> str | None:
    """The screen's error banner text while shown, else None."""
    shown = app.screen.query(ErrorBanner)
    return shown.first().text if shown and shown.first().has_class("-shown") else None


def describe(app) -> str:
    screen = app.screen
    parts = [f"screen {type(screen).__name__} {screen.sub_title!r}", f"banner: {banner(app)!r}"]
    cards = {c.component: c.border_subtitle for c in screen.query(HealthCard)}
    if cards:
        parts += [f"cards: {cards}", f"findings:\n{findings(app)}"]
    for table in screen.query(DataTable):
        if table.id != "findings":
            parts.append(f"{table.id}: {[[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]}")
    # Why a screen may have stopped updating: its workers, the app's own state, the threads' stacks.
    parts.append(f"app running: {app.is_running}, exception: {getattr(app, '_exception', None)!r}")
    parts.append(f"workers: {[(w.group, w.name, w.state.name) for w in app.workers]}")
    parts.append(f"threads:\n{_stacks()}")
    return "\n".join(parts)


def _stacks() -> str:
    """Each thread's innermost streamctl frames: where a stuck fetch waits."""
    import sys
    import threading
    import traceback

    names = {t.ident: t.name for t in threading.enumerate()}
    lines = []
    for ident, frame in sys._current_frames().items():
        ours = [f for f in traceback.extract_stack(frame) if "streamctl" in f.filename or "/tui/" in f.filename
                or "/backends/" in f.filename][-3:]
        if ours:
            lines.append(f"  {names.get(ident, ident)}: " + " <- ".join(
                f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(ours)))
    return "\n".join(lines)
