"""A text sparkline for a table cell (a Sparkline widget per row would not fit a DataTable)."""

from __future__ import annotations

BLOCKS = "▁▂▃▄▅▆▇█"


def sparkline(values, width: int = 12) -> str:
    values = list(values)[-width:]
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1
    return "".join(BLOCKS[int((v - low) / span * (len(BLOCKS) - 1))] for v in values)
