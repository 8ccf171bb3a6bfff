"""A rolling restart (each broker in turn: SIGTERM, DOWN seconds away, start, every ISR full)
while `check` runs every 2 s, the dashboard stays open on the Groups screen, and two groups
consume and commit.

Group coordinators move with the __consumer_offsets leaders at every step: nothing steers them
back. Every check must answer in time with an exit code of 0-3, UNKNOWN only for a service
condition (never a bug in a collector); a run wholly inside a broker's absence must not be OK
and must name the broker in a problem; no check may call a committing group REWOUND or
STOPPED; the lag history must have no gap or impossible row; the dashboard must never die and
end with the Kafka card OK.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from streamctl.dashboard.source import make_dashboard
from streamctl.kafka.lag.store import LagStore
from streamctl.sandbox.restarts import rolling_restart
from streamctl.tui.app import StreamctlApp
from tests.check_reasons import assert_unknowns_are_service_conditions, problem_lines
from tests.conftest import run_cli
from tests.faults.pilot import card, describe, rows, until
from tests.integration.kafka_helpers import unique, write_context

pytestmark = pytest.mark.integration

CHECK_EVERY = 2.0
CHECK_TIMEOUT = 10.0
# Each broker stays away this long: longer than a check run (its deadline) and the pause before
# the next, so that runs fall wholly inside each absence however slow a run is while it lasts.
DOWN = CHECK_TIMEOUT + 2 * CHECK_EVERY
ROOT = Path(__file__).parents[2]


class Absences:
    """When each broker was missing from the cluster's metadata, polled from outside."""

    def __init__(self, sandbox):
        self.sandbox, self.stop = sandbox, threading.Event()
        self.missing: dict[int, list[list[float]]] = {}
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        state = self.sandbox.sandbox.state()
        ids = {b.node_id for b in state.by_role("broker")}
        while not self.stop.is_set():
            registered = self.sandbox.sandbox.registered_brokers(state, timeout=2.0)
            now = time.monotonic()
            if registered:  # an empty answer is a failed read, not every broker gone
                for broker in ids - registered:
                    spans = self.missing.setdefault(broker, [])
                    if spans and now - spans[-1][1] < 1.0:
                        spans[-1][1] = now
                    else:
                        spans.append([now, now])
            time.sleep(0.3)

    def during(self, started: float, ended: float) -> list[int]:
        """Brokers missing for the whole of [started, ended]."""
        return [b for b, spans in self.missing.items() if any(s <= started and ended <= e for s, e in spans)]


def _checks(env, stop: threading.Event, runs: list) -> None:
    while not stop.is_set():
        started = time.monotonic()
        result = run_cli("check", "--format", "json", "--timeout", str(CHECK_TIMEOUT), env=env, timeout=60)
        runs.append((started, time.monotonic(), result))
        stop.wait(max(0.0, CHECK_EVERY - (time.monotonic() - started)))


async def test_rolling_restart(cluster, tmp_path, monkeypatch):
    sandbox = cluster
    topic, groups = unique("roll"), [unique("rollg"), unique("rollg")]
    sandbox.kafka().create_topic(topic, 6, 3)
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers, kafka={"timeout": 5},
                           include={"topics": [topic], "groups": groups},
                           thresholds={"lag_records_warn": 10**6, "lag_records_crit": 10**7,
                                       "lag_seconds_warn": 600, "lag_seconds_crit": 1200})
    env = {**sandbox.cli_env(), "STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(tmp_path / "state")}
    monkeypatch.setenv("XDG_STATE_HOME", env["XDG_STATE_HOME"])
    traffic = subprocess.Popen([sys.executable, "-m", "tests.faults.traffic", sandbox.bootstrap_servers, topic,
                                ",".join(groups), "600"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    absences, stop, runs = Absences(sandbox), threading.Event(), []
    checker = threading.Thread(target=_checks, args=(env, stop, runs), daemon=True)
    try:
        sandbox.wait_until(lambda: json.loads(run_cli("groups", "lag", "-o", "json", env=env).stdout or "[]"),
                           timeout=60, what="the groups committing")
        app = StreamctlApp(make_dashboard(config, "it"), refresh_interval=1.5)
        async with app.run_test(size=(140, 45)) as pilot:
            await pilot.press("4")
            await until(pilot, lambda: len(rows(app, "#groups DataTable")) == 2, 60, "both groups on the Groups screen",
                        lambda: describe(app))
            absences.thread.start()
            began = time.monotonic()
            checker.start()
            restarted = await asyncio.to_thread(rolling_restart, sandbox.sandbox, DOWN)
            finished = time.monotonic()
            await asyncio.sleep(2 * CHECK_EVERY)  # a few runs after the last restart
            stop.set()
            await asyncio.to_thread(checker.join, 120)
            assert app.is_running
            assert len(rows(app, "#groups DataTable")) == 2
            await pilot.press("1")
            await until(pilot, lambda: card(app, "kafka") == "OK", 90, "the Kafka card OK after the restarts",
                        lambda: describe(app))
    finally:
        stop.set()
        absences.stop.set()
        traffic.terminate()
        traffic.wait(60)
    assert restarted == ["kafka-1", "kafka-2", "kafka-3"]
    _assert_checks_throughout(runs, began, finished)
    _assert_checks(runs, absences, sandbox)
    _assert_history(tmp_path / "state" / "streamctl" / "lag.sqlite", groups)


def _assert_checks_throughout(runs, began: float, finished: float) -> None:
    """`check` ran from the restart's start to after the last broker rejoined, each run
    starting at most CHECK_EVERY after the previous one began or right after it ended, give or
    take the checker thread's own lateness (a CI run saw 1.02 s while a broker's JVM started on
    both cores). How many runs fit depends on how long the brokers take to restart and each check
    takes while one is away, so the count itself is not asserted; that a run fell wholly inside
    each absence is (_assert_checks)."""
    spans = [(round(s - began, 1), round(e - s, 1)) for s, e, _ in runs]
    shown = f"restart took {finished - began:.1f} s; check runs (start, seconds): {spans}"
    assert runs and runs[0][0] - began < 1.0, shown
    assert runs[-1][1] >= finished, shown
    for (s0, e0, _), (s1, _, _) in itertools.pairwise(runs):
        assert s1 - max(e0, s0 + CHECK_EVERY) < CHECK_EVERY, shown


def _assert_checks(runs, absences: Absences, sandbox) -> None:
    named = set()
    for started, ended, result in runs:
        shown = f"exit {result.returncode} after {ended - started:.1f} s\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        assert result.returncode in (0, 1, 2, 3), shown  # never 134 (abort) or 139 (segfault)
        assert ended - started < CHECK_TIMEOUT + 1.0 + 1.0, shown  # the deadline, + interpreter start-up
        assert "Traceback" not in result.stderr, shown
        doc = json.loads(result.stdout)
        assert_unknowns_are_service_conditions(doc, shown)
        codes = {f["code"] for f in doc["findings"]}
        assert not codes & {"KAFKA_GROUP_REWOUND", "KAFKA_GROUP_STOPPED"}, shown
        for broker in absences.during(started - 0.5, ended):
            assert doc["state"] != "OK", f"broker {broker} was away for the whole run, yet OK\n{shown}"
            assert re.search(rf"\bbroker {broker}\b", problem_lines(doc)), \
                f"broker {broker} was away for the whole run, named in no problem\n{shown}"
            named.add(broker)
    spans = [(round(s, 1), round(e, 1)) for s, e, _ in runs]
    assert absences.missing and named == set(absences.missing), \
        f"absences {absences.missing}, check runs {spans}: a run inside the absence of {named}"


def _assert_history(store: Path, groups: list[str]) -> None:
    with LagStore(store) as opened:
        by_partition = {(grp, topic, part): samples for grp, topic, part, samples in opened.samples("it")}
    assert {key[0] for key in by_partition} == set(groups), by_partition.keys()
    for key, series in by_partition.items():
        assert len(series) >= 5, (key, series)
        for (t0, c0, e0), (t1, c1, e1) in itertools.pairwise(series):
            assert t1 - t0 < 4 * CHECK_EVERY + CHECK_TIMEOUT, f"{key}: a gap of {t1 - t0:.1f} s"
            assert c1 >= c0, f"{key}: committed went back {c0} -> {c1}"
            assert e1 is None or e0 is None or e1 >= e0, f"{key}: log end went back {e0} -> {e1}"
            assert e1 is None or c1 <= e1, f"{key}: committed {c1} past the log end {e1}"
