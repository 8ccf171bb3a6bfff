"""Fleet: one row per context of the config (each system's state, the worst finding, the largest
lag, how long ago it was read); Enter switches the whole dashboard to that context.

Every context is evaluated at once by `check --all-contexts`' own evaluation
(streamctl/dashboard/fleet.py), in a thread worker, each under its own deadline; each row is
painted as its context answers, so a dead context never holds back the others. The read repeats
every FLEET_EVERY refresh intervals while the screen is shown (slower than the current
context's screens: it reads every cluster).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Header

from streamctl.dashboard.fleet import FLEET_EVERY, FleetReading, fleet_columns, fleet_row
from streamctl.errors import StreamctlError
from streamctl.model.health import Evaluation
from streamctl.tui.widgets.error_banner import ErrorBanner
from streamctl.tui.widgets.filter_table import FilterTable
from streamctl.tui.widgets.steady_footer import SteadyFooter

if TYPE_CHECKING:
    from textual import getters

    from streamctl.tui.app import StreamctlApp


class ContextAnswered(Message):
    """One context's newest evaluation; a newer one for the same context replaces it unhandled."""

    def __init__(self, name: str, reading: FleetReading) -> None:
        self.name = name
        self.reading = reading
        super().__init__()

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ContextAnswered) and message.name == self.name


class ContextsListed(Message):
    """The contexts of the config, read as each fleet read starts (their rows show at once)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        super().__init__()


class FleetUnread(Message):
    """The contexts could not be read at all (the config file): one line for the error banner."""

    def __init__(self, error: str) -> None:
        self.error = error
        super().__init__()


class FleetScreen(Screen):
    heading = "Fleet"
    AUTO_FOCUS = "DataTable"
    updated_at: str | None = None  # the app's clock at the last answer shown
    BINDINGS = [Binding("enter", "use_context", "Use context", id="fleet.use")]

    if TYPE_CHECKING:  # the App this screen runs in, typed as Textual types its own `app`
        app = getters.app(StreamctlApp)

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []  # the contexts of the config, as last listed
        self.readings: dict[str, FleetReading] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield ErrorBanner()
        yield FilterTable(fleet_columns(), sort_column=1, table_id="fleet")
        yield SteadyFooter()

    def on_mount(self) -> None:
        self.show_context()
        self.reload()
        self.set_interval(self.app.refresh_interval * FLEET_EVERY, self._tick)
        self.set_interval(1.0, self._age_tick)  # the "last read" column

    def on_screen_resume(self) -> None:
        self.show_context()
        self.reload()

    def show_context(self) -> None:
        """The header: the current context and its state, when the last context answered."""
        updated = f" · updated {self.updated_at}" if self.updated_at else ""
        self.sub_title = f"{self.heading} · {self.app.context_label}{updated}"

    def _tick(self) -> None:
        if self.is_current:
            self.reload()

    def _age_tick(self) -> None:
        if self.is_current and self.readings:
            self._render_rows()

    def reading(self) -> bool:
        """A read of the fleet is under way (its slowest context not answered yet)."""
        return any(w.node is self and w.group == "fleet" and not (w.is_finished or w.is_cancelled)
                   for w in self.app.workers)

    def reload(self) -> None:
        # One read at a time: a dead context holds a read up to its deadline, never longer.
        if not self.reading():
            self._read()

    @work(thread=True, exit_on_error=False, group="fleet")
    def _read(self) -> None:
        def answered(name: str, evaluation: Evaluation) -> None:
            self.post_message(ContextAnswered(name, FleetReading(evaluation, time.monotonic())))

        try:
            self.post_message(ContextsListed(self.app.context_names()))
            self.app.source.read_fleet(answered)
        except StreamctlError as exc:
            self.post_message(FleetUnread(str(exc)))
        except Exception as exc:  # noqa: BLE001 - a client library's own error: shown, never fatal
            self.post_message(FleetUnread(f"{type(exc).__name__}: {exc}"))

    @on(ContextAnswered)
    def _answered(self, message: ContextAnswered) -> None:
        self.readings[message.name] = message.reading
        self.app.note_context_state(message.name, message.reading.evaluation.severity)
        self.query_one(ErrorBanner).clear()
        self._render_rows()
        self.updated_at = self.app.clock()
        self.show_context()

    @on(ContextsListed)
    def _listed(self, message: ContextsListed) -> None:
        self.names = message.names
        self.readings = {name: self.readings[name] for name in self.names if name in self.readings}
        self._render_rows()

    @on(FleetUnread)
    def _unread(self, message: FleetUnread) -> None:
        self.query_one(ErrorBanner).show_error(message.error)

    def _render_rows(self) -> None:
        current, now = self.app.source.context_name, time.monotonic()
        names = list(dict.fromkeys([*self.names, *self.readings]))
        self.query_one(FilterTable).set_rows([fleet_row(name, self.readings.get(name), name == current, now)
                                              for name in names])

    def action_use_context(self) -> None:
        """Switch the whole dashboard to the selected context and show its Overview."""
        name = self.query_one(FilterTable).selected_key()
        if name is None:
            return
        self.app.switch_mode("overview")  # which reloads as it is shown: from the new context
        if name != self.app.source.context_name:
            self.app.switch_context(name, refresh=False)

    @on(DataTable.RowSelected, "#fleet")
    def _row_selected(self) -> None:
        self.action_use_context()
