"""Rich tables for `streamctl agents` (never Textual)."""

from __future__ import annotations

from streamctl.console import STATE_STYLE, new_table, out, print_table


def agents_table(rows: list[dict]) -> None:
    table = new_table("flume agents", ("agent", "metrics url", "config file", "started by", "process"))
    for r in rows:
        style = STATE_STYLE.get(r["process"], "")
        table.add_row(r["agent"], r["metrics_url"], r["config_file"] or "-", r["control"],
                      f"[{style}]{r['process']}[/]" if style else r["process"])
    print_table(table)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _failures(total: dict, new: int | None) -> str:
    count = int(sum(total.values()))
    return f"[bold red]{count} (+{new})[/]" if new else str(count)


def status_table(statuses) -> None:
    """One table per agent: its sources, channels and sinks with counts, rates, failures."""
    for agent in statuses:
        if not agent.up:
            out.print(f"[bold]{agent.name}[/] [bold red]down[/]: {agent.url}: {agent.error}", highlight=False)
            continue
        window = f"rates over {agent.interval:.0f} s" if agent.interval else "first poll, no rates yet"
        table = new_table(f"{agent.name} [green]up[/] {agent.url} ({window})")
        for column in ("component", "events", "rate/s", "fill", "failures", "note"):
            table.add_column(column, justify="left" if column in ("component", "note") else "right",
                             no_wrap=column != "note")
        for s in agent.sources:
            idle = f"idle {s.idle_seconds:.0f} s" if s.idle_seconds is not None else ""
            table.add_row(f"source {s.name}", f"{s.accepted} in", _rate(s.accept_rate), "",
                          _failures(s.failures, s.new_failures), idle)
        for c in agent.channels:
            fill = "-" if c.fill_pct is None else f"{c.fill_pct:.1f}%"
            note = "" if c.size_change is None else f"size {c.size_change:+d}"
            table.add_row(f"channel {c.name}", f"{c.size}/{c.capacity or '?'}",
                          f"{_rate(c.put_rate)} in, {_rate(c.take_rate)} out", fill,
                          _failures(c.failures, c.new_failures), note if c.healthy else "[bold red]unhealthy[/]")
        for k in agent.sinks:
            table.add_row(f"sink {k.name}", f"{k.drained} out", _rate(k.drain_rate), "",
                          _failures(k.failures, k.new_failures), f"drains {k.channel}" if k.channel else "")
        print_table(table)
