"""The live Dashboard implements every member of DashboardSource, the one facade screens use,
with the same parameters; and screens and widgets never reach past it."""

from __future__ import annotations

import inspect
import re

from streamctl.dashboard.source import Dashboard, DashboardSource
from tests import repo

TUI = repo.ROOT / "tui"


def facade_members() -> dict[str, object]:
    return {name: value for name, value in vars(DashboardSource).items() if not name.startswith("_")}


def test_the_facade_declares_snapshots_settings_and_operations():
    members = facade_members()
    assert {"kafka_snapshot", "thresholds", "read_only", "create_topic", "connector_state"} <= set(members)
    assert all(isinstance(value, property) or callable(value) for value in members.values())


def test_the_live_dashboard_implements_every_member_with_the_same_parameters():
    for name, declared in facade_members().items():
        assert hasattr(Dashboard, name), f"Dashboard lacks {name}"
        if isinstance(declared, property):
            continue
        implemented = inspect.signature(getattr(Dashboard, name)).parameters
        assert implemented == inspect.signature(declared).parameters, name  # (returns may narrow)


def test_screens_and_widgets_use_no_member_the_facade_does_not_declare():
    """`source.<name>` anywhere in tui/ names a member of DashboardSource."""
    declared = set(facade_members())
    used = {name for path in TUI.rglob("*.py") for name in re.findall(r"\bsource\.(\w+)", path.read_text())}
    assert used, "no use of the source found: the pattern is stale"
    assert used <= declared, f"reached past the facade: {sorted(used - declared)}"
