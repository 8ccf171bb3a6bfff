"""The SCRAM users table (never Textual)."""

from __future__ import annotations

from streamctl.console import simple_table


def users_table(users: list[dict]) -> None:
    rows = [[u["user"], c["mechanism"], c["iterations"]] for u in users for c in u["credentials"]]
    simple_table("SCRAM users", ["user", "mechanism", "iterations"], rows, right={"iterations"})
