"""Rich tables of Kafka Streams apps: the list and one app (never Textual)."""

from __future__ import annotations

from streamctl.console import out, simple_table


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
