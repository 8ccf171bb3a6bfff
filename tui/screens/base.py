"""DataScreen: fetch in a thread worker, show on the event loop, refresh on an interval.

Only the visible screen refreshes. A refresh that is still running when the next one starts
is cancelled (exclusive workers) and its result dropped; unhandled Loaded messages replace
each other. A failing backend shows an error banner on its own screen only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Header
from textual.worker import get_current_worker

from streamctl.dashboard.source import DashboardSource
from streamctl.errors import StreamctlError
from streamctl.tui.messages import Loaded, LoadFailed
from streamctl.tui.widgets.error_banner import ErrorBanner
from streamctl.tui.widgets.steady_footer import SteadyFooter

if TYPE_CHECKING:
    from textual import getters

    from streamctl.tui.app import StreamctlApp


class DataScreen(Screen):
    """Subclasses implement `fetch()` (blocking, runs in a thread) and `show(data)`."""

    heading = ""
    AUTO_FOCUS = "DataTable"
    updated: tuple[str, str] | None = None  # (context, the app's clock) of the last data shown

    if TYPE_CHECKING:  # the App these screens run in, typed as Textual types its own `app`
        app = getters.app(StreamctlApp)

    def compose(self) -> ComposeResult:
        yield Header()
        yield ErrorBanner()
        yield from self.compose_body()
        yield SteadyFooter()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        self.sub_title = self.heading
        self.reload()
        self.set_interval(self.app.refresh_interval, self._tick)

    def on_screen_resume(self) -> None:
        self.reload()

    def _tick(self) -> None:
        # A fetch slower than the interval (a silent backend) finishes first: cancelling it
        # on every tick would drop each result and pile up blocked threads.
        if self.is_current and not self._fetching():
            self.reload()

    def _fetching(self, group: str = "fetch") -> bool:
        return any(w.node is self and w.group == group and not (w.is_finished or w.is_cancelled)
                   for w in self.app.workers)

    def reload(self) -> None:
        self._fetch()

    @work(thread=True, exclusive=True, exit_on_error=False, group="fetch")
    def _fetch(self) -> None:
        worker = get_current_worker()
        try:
            data = self.fetch()
        except StreamctlError as exc:
            message: Any = LoadFailed(str(exc))
        except Exception as exc:  # noqa: BLE001 - a client library's own error: shown, never fatal
            message = LoadFailed(f"{type(exc).__name__}: {exc}")
        else:
            message = Loaded(data)
        if not worker.is_cancelled:
            self.post_message(message)

    def fetch(self) -> Any:
        raise NotImplementedError

    def show(self, data: Any) -> None:
        raise NotImplementedError

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.query_one(ErrorBanner).clear()
        self.show(message.data)
        self.updated = (self.source.context_name, self.app.clock())
        self.show_context()

    def show_context(self) -> None:
        """The header: this screen, the current context and its state, when its data was read
        (not yet, after a switch, until the new context's data is shown)."""
        context, at = self.updated or ("", "")
        updated = f" · updated {at}" if context == self.source.context_name else ""
        self.sub_title = f"{self.heading} · {self.app.context_label}{updated}"

    @on(LoadFailed)
    def _failed(self, message: LoadFailed) -> None:
        self.query_one(ErrorBanner).show_error(message.error)

    @property
    def source(self) -> DashboardSource:
        return self.app.source
