"""The client quotas table (never Textual)."""

from __future__ import annotations

from streamctl.console import simple_table
from streamctl.kafka.quotas.plans import shown


def quotas_table(rows: list[dict]) -> None:
    table = [[r["entity"].get("user"), r["entity"].get("client-id"), r["entity"].get("ip"), key, shown(value)]
             for r in rows for key, value in sorted(r["values"].items())]
    simple_table("Client quotas", ["user", "client-id", "ip", "quota", "value"], table, right={"value"})
