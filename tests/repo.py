"""Where the checkout's files and packages are, for a test module at any depth of the test tree
(a test file that moves keeps its paths; no `Path(__file__).parents[N]` to count again)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The checkout: docs/, scripts/, agents/, tui/, pyproject.toml."""

FIXTURES = ROOT / "tests" / "fixtures"
"""Answers captured from the real services (tests/fixtures/capture_*.py), one folder per system."""


def packages() -> list[str]:
    """Every package the wheel installs (setup.py's find over pyproject's package-dir), dotted:
    `backends/kafka/` is `streamctl.backends.kafka`, `streamctl/kafka/lag/` is `streamctl.kafka.lag`."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    found = set()
    for package, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *relative)))
    return sorted(found)
