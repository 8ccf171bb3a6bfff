"""Where the checkout's files are, for a test module at any depth of the test tree (a test file
that moves keeps its paths; no `Path(__file__).parents[N]` to count again)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The checkout: docs/, scripts/, agents/, tui/, pyproject.toml."""

FIXTURES = ROOT / "tests" / "fixtures"
"""Answers captured from the real services (tests/fixtures/capture_*.py), one folder per system."""
