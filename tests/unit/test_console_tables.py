"""CLI tables keep every row on one line, kubectl-style, piped or on a narrow terminal."""

from __future__ import annotations

import io

from rich.console import Console

from streamctl.console import new_table, print_table

NAME = "weblog-stats-with-a-long-name"


def _table():
    table = new_table("spark jobs", ("job", "state", "pid", "master", "checkpoint"))
    table.add_row(NAME, "running", "4242", "local[2]", "/var/lib/streamctl/checkpoints/weblog-stats")
    return table


def _printed(terminal: bool, width: int) -> list[str]:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=terminal, color_system=None)
    print_table(_table(), console)
    return buffer.getvalue().splitlines()


def test_piped_output_is_full_width_with_whole_rows():
    lines = _printed(terminal=False, width=40)
    row = next(line for line in lines if NAME in line)
    assert "/var/lib/streamctl/checkpoints/weblog-stats" in row
    assert len([line for line in lines if "running" in line]) == 1


def test_a_narrow_terminal_ellipsises_the_widest_columns_first():
    lines = _printed(terminal=True, width=60)
    assert all(len(line) <= 60 for line in lines)
    row = next(line for line in lines if "running" in line)  # the short columns stay whole
    assert "4242" in row and "local[2]" in row and "weblog-sta…" in row


def test_a_very_narrow_terminal_drops_columns_from_the_right():
    lines = _printed(terminal=True, width=40)
    assert all(len(line) <= 40 for line in lines)
    header = next(line for line in lines if "┃ job" in line)
    assert "state" in header and "checkpoint" not in header
    assert len([line for line in lines if "runn" in line]) == 1
