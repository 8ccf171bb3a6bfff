"""Tables of reassignment plans and of the moves in flight (never Textual)."""

from __future__ import annotations

from streamctl.console import out, simple_table
from streamctl.kafka.reassign.progress import summary
from streamctl.times import short_duration


def plan_tables(described: dict) -> None:
    rows = [[f"{p['topic']}/{p['partition']}", _ids(p["old_replicas"]), _ids(p["replicas"]), p["bytes"]]
            for p in described["partitions"]]
    simple_table(f"{len(rows)} partition(s) to move", ["partition", "old replicas", "new replicas", "bytes"], rows,
                 right={"bytes"})
    brokers = [[b, v["in"], v["out"]] for b, v in described["bytes_per_broker"].items()]
    simple_table("bytes to move per broker", ["broker", "receives", "sends"], brokers, right={"receives", "sends"})
    if described["estimate_seconds"] is not None:
        out.print(f"estimate: {described['estimate_seconds']:g} s at {described['throttle']:,} bytes/s per broker",
                  highlight=False)


def status_table(status: dict) -> None:
    rows = [[p["partition"], _ids(p["replicas"]), _ids(p["adding"]), _ids(p["removing"]),
             "-" if p["bytes_done"] is None else f"{p['bytes_done']:,} / {p['bytes_total']:,}",
             _or_dash(p["percent"], "{:.0f}%"), _or_dash(p["rate_bytes_per_s"], "{:,.0f} B/s"),
             "-" if p["eta_seconds"] is None else short_duration(p["eta_seconds"])]
            for p in status["partitions"]]
    title = "reassignments in progress" if status["in_progress"] else "no reassignment in progress"
    simple_table(title, ["partition", "replicas", "adding", "removing", "bytes done", "done", "rate", "ETA"], rows,
                 right={"bytes done", "done", "rate", "ETA"})
    if status["in_progress"]:
        out.print(summary(status), highlight=False)
    if status.get("throttles"):
        out.print(status["throttles"], highlight=False)
    if status.get("leaders"):
        out.print(status["leaders"], highlight=False)


def _or_dash(value: float | None, form: str) -> str:
    return "-" if value is None else form.format(value)


def _ids(brokers: list[int]) -> str:
    return ",".join(str(b) for b in brokers)
