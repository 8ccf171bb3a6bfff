"""Rich tables of topics: the list and one topic's partitions and configs (never Textual)."""

from __future__ import annotations

from streamctl.console import out, simple_table


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
