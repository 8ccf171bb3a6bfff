"""Rich table for `streamctl sandbox status` (never Textual)."""

from __future__ import annotations

from streamctl.console import STATE_STYLE, new_table, out, print_table


def _uptime(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def status_table(rows, title: str = "sandbox") -> None:
    table = new_table(title, ("service", "pid", "port", "state", "uptime", "log"))
    for r in rows:
        style = STATE_STYLE.get(r.state, "")
        table.add_row(r.name, str(r.pid or "-"), str(r.port or "-"), f"[{style}]{r.state}[/]",
                      _uptime(r.uptime), r.log)
    print_table(table)
    for r in rows:
        if r.log_tail:
            out.print(f"[bold red]{r.name} crashed[/]; last lines of {r.log}:", highlight=False)
            for line in r.log_tail:
                out.print(f"  {line}", markup=False, highlight=False)
