"""The Fleet screen against the ZooKeeper-mode and KRaft sandboxes side by side, a context whose
Kafka is a closed port and one whose Kafka never answers: every context listed with its state,
keys handled while the silent one is read, Enter switching the whole dashboard."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import Input

from streamctl.dashboard.fleet import FLEET_DEADLINE, PENDING, fleet_columns
from streamctl.dashboard.source import make_dashboard
from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.fleet import FleetScreen
from tests.check_reasons import is_service_condition
from tests.faults.pilot import describe, rows, until
from tests.fleet_contexts import fleet_config
from tests.integration.kafka_helpers import black_hole

pytestmark = pytest.mark.integration

COLUMN = {name: index for index, name in enumerate(fleet_columns())}
ANSWER_WITHIN = FLEET_DEADLINE + 60  # the read's own deadline, and room for a machine 3x slower


def fleet_rows(app) -> dict[str, list[str]]:
    return {row[COLUMN["context"]]: row for row in rows(app, "#fleet")}


async def test_the_fleet_lists_every_context_and_enter_switches_the_dashboard(sandbox, kraft_sandbox, tmp_path,
                                                                              monkeypatch):
    with black_hole() as silent:
        env = fleet_config(tmp_path, sandbox, kraft_sandbox,
                           silent={"kafka": {"bootstrap_servers": silent, "timeout": 60}})
        monkeypatch.setenv("XDG_STATE_HOME", env["XDG_STATE_HOME"])
        config = Path(env["STREAMCTL_CONFIG"])
        app = StreamctlApp(make_dashboard(config, "sandbox"), refresh_interval=60,
                           context_factory=lambda name: make_dashboard(config, name))
        async with app.run_test(size=(200, 40)) as pilot:
            await pilot.press("F")
            await until(pilot, lambda: isinstance(app.screen, FleetScreen) and len(fleet_rows(app)) == 4, 30,
                        "the Fleet screen's rows", lambda: describe(app))
            fleet = app.screen
            assert isinstance(fleet, FleetScreen)

            # While the silent context is read (up to its deadline), a key is handled at once.
            await pilot.press("slash")
            await until(pilot, lambda: isinstance(app.focused, Input), 10, "the filter box focused")
            assert fleet_rows(app)["silent"][COLUMN["state"]] == PENDING and fleet.reading()
            await pilot.press("escape")

            # Every context answers within the read's deadline, the silent one UNKNOWN at it.
            await until(pilot, lambda: not fleet.reading() and PENDING not in str(fleet_rows(app)), ANSWER_WITHIN,
                        "every context's answer", lambda: describe(app))
            found = fleet_rows(app)
            assert set(found) == {"sandbox", "kraft", "dead", "silent"}
            for live in ("sandbox", "kraft"):
                assert found[live][COLUMN["kafka"]] in ("OK", "WARN", "CRIT"), found[live]
            assert found["sandbox"][COLUMN["zookeeper"]] != "-" and found["kraft"][COLUMN["zookeeper"]] == "-"
            # A closed port: UNKNOWN, or CRIT (KAFKA_UNREACHABLE) when the metadata call failed
            # before the deadline, as `check` itself says (docs/architecture.md); either names the connection.
            dead = found["dead"]
            assert dead[COLUMN["state"]] in ("UNKNOWN", "CRIT"), dead
            assert is_service_condition(dead[COLUMN["worst finding"]]), dead
            assert found["silent"][COLUMN["state"]] == "UNKNOWN"
            assert is_service_condition(found["silent"][COLUMN["worst finding"]]), found["silent"]
            assert [found[name][COLUMN[""]] for name in ("sandbox", "kraft")] == ["*", ""]  # the current context
            live_state = found["sandbox"][COLUMN["state"]]
            assert re.search(rf"\bcontext sandbox {live_state}\b", app.screen.sub_title), app.screen.sub_title

            # Enter on kraft: the whole dashboard reads the KRaft cluster.
            await pilot.press("slash", *"kraft", "enter")
            await until(pilot, lambda: app.screen.query_one("#fleet").row_count == 1, 10, "kraft filtered")
            await pilot.press("enter")
            await until(pilot, lambda: app.source.context_name == "kraft" and app.current_mode == "overview", 10,
                        "the switch to kraft")
            # The header names kraft with its state at once (the Fleet's reading), then the Overview's.
            assert re.search(r"\bcontext kraft (OK|WARN|CRIT|UNKNOWN)\b", app.sub_title), app.sub_title
            await until(pilot, lambda: re.search(r"\bcontext kraft (OK|WARN|CRIT|UNKNOWN) · updated",
                                                 app.screen.sub_title),
                        60, "the Overview of kraft, its state in the header", lambda: app.screen.sub_title)
            await pilot.press("2")
            kraft_ports = {address.rpartition(":")[2] for address in kraft_sandbox.bootstrap_servers.split(",")}
            await until(pilot, lambda: {r[1].rpartition(":")[2] for r in rows(app, "DataTable")} == kraft_ports, 60,
                        "the KRaft cluster's brokers", lambda: describe(app))
            assert "context kraft" in app.screen.sub_title
