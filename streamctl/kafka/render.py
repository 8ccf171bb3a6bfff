"""Rich tables for the Kafka commands: brokers, topics, groups, lag, offset resets (never Textual)."""

from __future__ import annotations

from streamctl.console import new_table, out, print_table, simple_table
from streamctl.model.kafka import type_label
from streamctl.ops.render import cell


def brokers_table(md, roles: dict[int, list[str]]) -> None:
    mode = "KRaft" if md.kraft else "ZooKeeper"
    table = new_table(f"cluster {md.cluster_id or '?'} ({mode} mode)", ("id", "host", "port", "rack", "roles"))
    for b in md.brokers:
        table.add_row(str(b.id), b.host, str(b.port), b.rack or "-", ", ".join(roles[b.id]) or "?")
    print_table(table)


def _issues(count: int) -> str:
    return f"[bold red]{count}[/]" if count else "0"


def topics_table(summaries: list[dict]) -> None:
    columns = ["topic", "partitions", "rf", "urp", "offline", "under-min-isr", "messages", "retention.ms"]
    rows = [[s["name"], s["partitions"], s["replication_factor"], _issues(s["under_replicated"]),
             _issues(s["offline"]), _issues(s["under_min_isr"]), s["messages"], s["retention_ms"]]
            for s in summaries]
    simple_table("topics", columns, rows, right=set(columns[1:]))


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
    simple_table("partitions", ["partition", "leader", "replicas", "isr", "low", "high"], rows,
           right={"partition", "low", "high"})
    simple_table("configs", ["key", "value"], [[k, v] for k, v in sorted(detail["configs"].items())])
    out.print("consumed by: " + (", ".join(detail["groups"]) or "no group"), highlight=False)


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


def streams_table(apps: list[dict]) -> None:
    rows = [[a["app_id"], a["status"], a["group_state"], len(a["instances"]), a["threads"],
             ",".join(t["name"] for t in a["topics"] if t["role"] == "input"),
             sum(t["role"] in ("repartition", "changelog") for t in a["topics"]), a["lag"]] for a in apps]
    simple_table("Kafka Streams apps", ["app", "status", "group state", "instances", "threads", "inputs",
                                        "internal topics", "lag"], rows,
                 right={"instances", "threads", "internal topics", "lag"})


def streams_detail(app: dict) -> None:
    out.print(f"[bold]{app['app_id']}[/]  status {app['status']}  group {app['group_state']}  "
              f"lag {app['lag']}", highlight=False)
    simple_table("topics", ["topic", "role", "partitions", "records", "lag", "under min ISR"],
                 [[t["name"], t["role"], t["partitions"], t["records"], t["lag"],
                   ",".join(map(str, t["under_min_isr"]))] for t in app["topics"]],
                 right={"partitions", "records", "lag"})
    if not app["members_read"]:
        out.print("instances: not read (the group could not be described)", highlight=False)
        return
    simple_table("instances", ["client", "host", "threads", "partitions"],
                 [[i["client"], i["host"], i["threads"], i["partitions"]] for i in app["instances"]],
                 right={"threads", "partitions"})


def records_table(records) -> None:
    """Records: partition, offset, time, key, a bounded value preview, headers (escaped text)."""
    from rich.markup import escape

    from streamctl.kafka.records import preview, timestamp_text

    simple_table("records", ["partition", "offset", "timestamp", "key", "value", "headers"],
                 [[r.partition, r.offset, timestamp_text(r.timestamp), escape(preview(r.key, 24)), escape(preview(r.value)),
                   escape(", ".join(f"{k}={preview(v, 16)}" for k, v in r.headers))] for r in records],
                 frozenset({"partition", "offset"}))


def peek_view(views) -> None:
    """Per partition: where the group stands, then the records it will process next."""
    from rich.markup import escape

    for v in views:
        out.print(f"[bold]{escape(v.topic)}/{v.partition}[/bold] group {escape(v.group)}: committed {v.committed}, "
                  f"log end {v.log_end}, lag {v.lag}, {v.status}", highlight=False)
        if v.error:
            out.print(f"[yellow]{escape(v.error)}[/yellow]", highlight=False)
        if v.records:
            records_table(v.records)
