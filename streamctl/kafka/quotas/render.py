"""The client quotas table (never Textual)."""

from __future__ import annotations

from streamctl.console import simple_table
from streamctl.kafka.quotas.plans import shown

COLUMNS = ["user", "client-id", "ip", "quota", "value"]


def quota_cells(rows: list[dict]) -> list[list]:
    """One row per entity and quota key, as the table (and the dashboard's Quotas pane) shows it."""
    return [[r["entity"].get("user"), r["entity"].get("client-id"), r["entity"].get("ip"), key, shown(value)]
            for r in rows for key, value in sorted(r["values"].items())]


def quotas_table(rows: list[dict]) -> None:
    simple_table("Client quotas", COLUMNS, quota_cells(rows), right={"value"})
