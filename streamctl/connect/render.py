"""Rich tables for `streamctl connect ...` (input: the plain dicts the -o json output shows)."""

from __future__ import annotations

from streamctl.console import out, simple_table

STATE_MARKUP = {"RUNNING": "green", "PAUSED": "yellow", "STOPPED": "yellow", "FAILED": "bold red",
                "UNASSIGNED": "magenta", "RESTARTING": "cyan"}


def state(value: str) -> str:
    style = STATE_MARKUP.get(value)
    return f"[{style}]{value}[/{style}]" if style else value


def connectors_table(data: dict) -> None:
    rows = [[c["name"], c["type"], state(c["state"]), f"{c['tasks_running']}/{c['tasks']}",
             c["tasks_failed"] or "", c["class"].rsplit(".", 1)[-1], ", ".join(c["topics"]), c["worker_id"]]
            for c in data["connectors"]]
    simple_table(f"connectors at {data['url']} (Connect {data['version']})",
                 ["connector", "type", "state", "running", "failed", "class", "topics", "worker"],
                 rows, frozenset({"running", "failed"}))


def status_view(data: dict) -> None:
    out.print(f"[bold]{data['name']}[/bold] ({data['type']}, {data['class']}): {state(data['state'])} "
              f"on {data['worker_id'] or '?'}")
    if data["trace"]:
        out.print(f"[red]{data['trace']}[/red]")
    simple_table("tasks", ["task", "state", "worker", "trace"],
                 [[t["id"], state(t["state"]), t["worker_id"], t["trace"]] for t in data["task_states"]],
                 frozenset({"task"}))


def config_table(data: dict) -> None:
    simple_table(f"config of {data['name']} ({state(data['state'])})", ["key", "value"],
                 [[k, v] for k, v in sorted(data["config"].items())])


def plugins_table(rows: list[dict]) -> None:
    simple_table("connector plugins", ["class", "type", "version"],
                 [[r["class"], r["type"], r["version"]] for r in rows])


def offsets_table(data: dict) -> None:
    simple_table(f"offsets of {data['connector']}", ["partition", "offset"],
                 [[r["partition"], r["offset"]] for r in data["offsets"]])
