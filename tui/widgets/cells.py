"""Formatting shared by the screens' tables."""

from __future__ import annotations


def cell(value) -> str:
    """A table cell: '-' for a value that is not known."""
    return "-" if value is None else str(value)
