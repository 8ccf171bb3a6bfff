"""`streamctl pipeline` without --window on the session's demo sandbox: it answers from the
reading `check` recorded in the lag history, with the rates over that reading's age, instead of
waiting a window for a second reading."""

from __future__ import annotations

import json
import time

import pytest

pytestmark = pytest.mark.integration

RATED = {  # the demo's hops whose rates the history reading gives: (hop, rate)
    ("flume weblogs -> weblogs", "rate_in"),
    ("weblogs -> weblog-stats via job weblog-stats", "rate_out"),
    ("weblogs -> weblog-status-counts via streams weblog-statuses", "rate_out"),
    ("weblog-stats -> connector weblog-archive", "rate_out"),
}


def recorded_at(store, context: str) -> float | None:
    """When the newest reading of the context the history holds was taken."""
    from streamctl.kafka.history import recorded_reading

    newest = recorded_reading(store, context, 0.0, time.time())
    return newest.at if newest else None


def answered_from_history(sandbox, store) -> dict | None:
    """Record a reading with check, then ask the pipeline once that reading is SPAN old (the
    shortest span it takes rates over): the map, once the demo's readers have all committed (a
    fresh sandbox's job and sink need a while)."""
    from streamctl.pipeline.collect import SPAN

    check = sandbox.cli("check", "--component", "kafka", "--format", "json")
    assert check.returncode in (0, 1, 2), check.stdout + check.stderr
    check_at = recorded_at(store, sandbox.context)
    assert check_at is not None
    sandbox.wait_until(lambda: time.time() - check_at > SPAN + 0.5, timeout=30, interval=0.2,
                       what=f"check's reading {SPAN:g} s old")
    started = time.time()
    result = sandbox.cli("pipeline", "-o", "json")
    returned = time.time()
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    # From check's reading, not from a second reading of its own: no window waited, and the
    # rates are over the age of that reading when the pipeline read again.
    assert data["before_source"] == "history", result.stdout
    assert data["before_at"] == pytest.approx(check_at, abs=0.001)
    assert started - check_at - 0.1 <= data["window_seconds"] == data["before_age_seconds"] <= returned - check_at
    hops = {h["name"]: h for h in data["hops"]}
    return data if all(name in hops and hops[name][rate] is not None for name, rate in RATED) else None


def test_pipeline_answers_from_the_reading_check_recorded(sandbox, monkeypatch):
    from streamctl.kafka.lag.store import default_path

    monkeypatch.setenv("XDG_STATE_HOME", str(sandbox.xdg_state))
    store = default_path()
    data = sandbox.wait_until(lambda: answered_from_history(sandbox, store), timeout=180, interval=1,
                              what="every demo reader's rate from the history reading")
    hops = {h["name"]: h for h in data["hops"]}
    assert hops["flume weblogs -> weblogs"]["rate_in"] > 0, json.dumps(data)  # the load generator writes ~10 lines/s
    # This run's own reading was recorded too: the next run answers from it.
    assert recorded_at(store, sandbox.context) == pytest.approx(data["before_at"] + data["window_seconds"], abs=0.01)
