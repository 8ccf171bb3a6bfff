"""Rich tables of consumer groups: the list, one group, lag, offset resets (never Textual)."""

from __future__ import annotations

from streamctl.console import new_table, out, print_table, simple_table
from streamctl.model.kafka import type_label
from streamctl.ops.render import cell


def groups_table(summaries: list[dict]) -> None:
    columns = ["group", "type", "state", "members", "topics", "lag", "lag (s)"]
    rows = [[s["id"], type_label(s["type"]), s["state"], s["members"], ",".join(s["topics"]), s["lag"],
             None if s["lag_seconds"] is None else f"{s['lag_seconds']:.1f}"] for s in summaries]
    simple_table("consumer groups", columns, rows, right={"members", "lag", "lag (s)"})


def group_detail(detail: dict) -> None:
    out.print(f"[bold]{detail['id']}[/]  type {type_label(detail['type'])}  state {detail['state']}  "
              f"protocol {detail['protocol'] or '-'}  "
              f"coordinator {detail['coordinator']}", highlight=False)
    lag_table(detail["partitions"], title="partitions")
    rows = [[m["client_id"], m["host"], m["member_id"],
             ", ".join(f"{t}/{p}" for t, p in m["assignments"])] for m in detail["member_details"]]
    simple_table("members", ["client id", "host", "member id", "assignment"], rows)


def lag_table(lags: list[dict], title: str = "lag") -> None:
    columns = ["group", "topic", "partition", "committed", "log start", "log end", "lag", "lag (s)", "from"]
    rows = [[l["group"], l["topic"], l["partition"], l["committed"], l["log_start"], l["log_end"], l["lag"],
             None if l["lag_seconds"] is None else f"{l['lag_seconds']:.1f}", l["lag_seconds_source"]]
            for l in lags]
    simple_table(title, columns, rows, right={"partition", "committed", "log start", "log end", "lag", "lag (s)"})


def reset_table(plan, resets) -> None:
    table = new_table(plan.summary(), ("partition", "current", "target", "log start", "log end", "note"),
                      right=("current", "target", "log start", "log end"))
    for r, change in zip(resets, plan.changes):
        table.add_row(f"{r.topic}/{r.partition}", cell(r.current), str(r.target), str(r.log_start),
                      str(r.log_end), change.note)
    for change in plan.changes[len(resets):]:  # beyond the offsets (a Streams reset's topic deletions)
        table.add_row(change.object, cell(change.before), cell(change.after), "", "", change.note)
    print_table(table)
    for warning in plan.warnings:
        out.print(f"[yellow]warning:[/] {warning}", highlight=False)
