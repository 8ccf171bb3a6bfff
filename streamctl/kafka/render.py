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


def _table(title: str, columns: list[str], rows: list[list], right: set[str] = frozenset()) -> None:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, justify="right" if column in right else "left")
    for row in rows:
        table.add_row(*("-" if v is None else str(v) for v in row))
    out.print(table)


def _issues(count: int) -> str:
    return f"[bold red]{count}[/]" if count else "0"


def topics_table(summaries: list[dict]) -> None:
    columns = ["topic", "partitions", "rf", "urp", "offline", "under-min-isr", "messages", "retention.ms"]
    rows = [[s["name"], s["partitions"], s["replication_factor"], _issues(s["under_replicated"]),
             _issues(s["offline"]), _issues(s["under_min_isr"]), s["messages"], s["retention_ms"]]
            for s in summaries]
    _table("topics", columns, rows, right=set(columns[1:]))


def topic_detail(detail: dict) -> None:
    out.print(f"[bold]{detail['name']}[/]  partitions {detail['partitions']}  "
              f"rf {detail['replication_factor']}  messages {detail['messages']}", highlight=False)
    rows = []
    for p in detail["partition_states"]:
        out_of_sync = [r for r in p["replicas"] if r not in p["isr"]]
        isr = ",".join(map(str, p["isr"])) + (f" [bold red](out: {','.join(map(str, out_of_sync))})[/]"
                                              if out_of_sync else "")
        leader = "[bold red]none[/]" if p["offline"] else p["leader"]
        rows.append([p["partition"], leader, ",".join(map(str, p["replicas"])), isr, p["low"], p["high"]])
    _table("partitions", ["partition", "leader", "replicas", "isr", "low", "high"], rows,
           right={"partition", "low", "high"})
    _table("configs", ["key", "value"], [[k, v] for k, v in sorted(detail["configs"].items())])
    out.print("consumed by: " + (", ".join(detail["groups"]) or "no group"), highlight=False)


def groups_table(summaries: list[dict]) -> None:
    columns = ["group", "state", "members", "topics", "lag", "lag (s)"]
    rows = [[s["id"], s["state"], s["members"], ",".join(s["topics"]), s["lag"],
             None if s["lag_seconds"] is None else f"{s['lag_seconds']:.1f}"] for s in summaries]
    _table("consumer groups", columns, rows, right={"members", "lag", "lag (s)"})


def group_detail(detail: dict) -> None:
    out.print(f"[bold]{detail['id']}[/]  state {detail['state']}  protocol {detail['protocol'] or '-'}  "
              f"coordinator {detail['coordinator']}", highlight=False)
    lag_table(detail["partitions"], title="partitions")
    rows = [[m["client_id"], m["host"], m["member_id"],
             ", ".join(f"{t}/{p}" for t, p in m["assignments"])] for m in detail["member_details"]]
    _table("members", ["client id", "host", "member id", "assignment"], rows)


def lag_table(lags: list[dict], title: str = "lag") -> None:
    columns = ["group", "topic", "partition", "committed", "log start", "log end", "lag", "lag (s)", "from"]
    rows = [[l["group"], l["topic"], l["partition"], l["committed"], l["log_start"], l["log_end"], l["lag"],
             None if l["lag_seconds"] is None else f"{l['lag_seconds']:.1f}", l["lag_seconds_source"]]
            for l in lags]
    _table(title, columns, rows, right={"partition", "committed", "log start", "log end", "lag", "lag (s)"})
