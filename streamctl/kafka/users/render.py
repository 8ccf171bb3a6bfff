"""The SCRAM users table (never Textual)."""

from __future__ import annotations

from streamctl.console import simple_table

COLUMNS = ["user", "mechanism", "iterations"]


def user_cells(users: list[dict]) -> list[list]:
    """One row per user and credential, as the table (and the dashboard's users pane) shows it."""
    return [[u["user"], c["mechanism"], c["iterations"]] for u in users for c in u["credentials"]]


def users_table(users: list[dict]) -> None:
    simple_table("SCRAM users", COLUMNS, user_cells(users), right={"iterations"})
