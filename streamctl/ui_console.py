"""Rich rendering for the headless commands: progress lines and tables (never Textual)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from rich.console import Console
from rich.table import Table

out = Console()
err = Console(stderr=True)

STATE_STYLE = {"running": "green", "paused": "yellow", "stopped": "dim", "crashed": "bold red"}


class Reporter:
    """Callable progress sink: updates a spinner on a terminal, prints plain lines otherwise."""

    def __init__(self, status):
        self._status = status

    def __call__(self, message: str) -> None:
        if self._status is not None:
            self._status.update(f"{message} …")
        else:
            err.print(f"{message} …", highlight=False, soft_wrap=True)

    def done(self, message: str) -> None:
        err.print(f"[green]✓[/] {message}" if err.is_terminal else message, highlight=False, soft_wrap=True)


@contextmanager
def progress_status(title: str) -> Iterator[Reporter]:
    if err.is_terminal:
        with err.status(f"{title} …") as status:
            yield Reporter(status)
    else:
        yield Reporter(None)


def _uptime(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def status_table(rows) -> None:
    table = Table(title="sandbox", title_justify="left")
    for column in ("service", "pid", "port", "state", "uptime", "log"):
        table.add_column(column, no_wrap=column != "log")
    for r in rows:
        style = STATE_STYLE.get(r.state, "")
        table.add_row(r.name, str(r.pid or "-"), str(r.port), f"[{style}]{r.state}[/]",
                      _uptime(r.uptime), r.log)
    out.print(table)
    for r in rows:
        if r.log_tail:
            out.print(f"[bold red]{r.name} crashed[/]; last lines of {r.log}:", highlight=False)
            for line in r.log_tail:
                out.print(f"  {line}", markup=False, highlight=False)


def brokers_table(md) -> None:
    table = Table(title=f"cluster {md.cluster_id or '?'}", title_justify="left")
    for column in ("id", "host", "port", "rack", "controller"):
        table.add_column(column)
    for b in md.brokers:
        table.add_row(str(b.id), b.host, str(b.port), b.rack or "-", "yes" if b.is_controller else "")
    out.print(table)
