"""`streamctl pipeline` without --window: the earlier reading taken from the lag history (the
newest of this context 15 s to 300 s old, else a younger one) and the map derived from it, on
readings captured from the demo (tests/fixtures/capture_pipeline.py) written to a real LagStore
as check writes them."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pydantic import ValidationError

from streamctl.kafka.lag.store import LagStore
from streamctl.model.kafka import KafkaSnapshot
from streamctl.pipeline.collect import SPAN, history_before, recorded_snapshot
from streamctl.pipeline.derive import Readings, derive
from streamctl.pipeline.render import as_dict, heading
from streamctl.thresholds import Thresholds
from tests.fixtures.capture_pipeline import load

MAX_AGE = 300.0
JOB_HOP = "weblogs -> weblog-stats via job weblog-stats"


@pytest.fixture
def demo() -> Readings:
    return load("demo")


def record(path, snap: KafkaSnapshot, at: float, context: str = "sandbox") -> None:
    with LagStore(path) as store:
        store.record(context, snap.lags, at)


def chosen(path, now: float, context: str = "sandbox"):
    return history_before(path, context, now, MAX_AGE)


def from_history(demo: Readings, path) -> Readings:
    """The demo's later reading paired with the history's newest reading, as read_at_once does."""
    now = demo.after.taken_at
    recorded = chosen(path, now)
    assert recorded is not None
    return replace(demo, before=recorded_snapshot(recorded, demo.after), window=now - recorded.at, jobs_before=[],
                   before_source="history")


def test_the_newest_reading_within_the_ages_is_taken_with_its_offsets(demo, tmp_path):
    path, now = tmp_path / "lag.sqlite", demo.after.taken_at
    record(path, demo.before, now - 120)
    record(path, demo.before, now - 47)
    recorded = chosen(path, now)
    assert recorded is not None and recorded.at == now - 47
    assert sorted(recorded.offsets) == sorted((l.group, l.topic, l.partition, l.committed, max(l.log_end, l.committed))
                                              for l in demo.before.lags if l.committed is not None)


def test_no_history_too_old_or_another_contexts_gives_no_reading(demo, tmp_path):
    path, now = tmp_path / "lag.sqlite", demo.after.taken_at
    assert chosen(path, now) is None  # no file yet (neither check nor the dashboard ran)
    record(path, demo.before, now - MAX_AGE - 1)
    assert chosen(path, now) is None  # too old
    record(tmp_path / "other.sqlite", demo.before, now - 30, context="prod")
    assert chosen(tmp_path / "other.sqlite", now) is None  # another context's
    record(path, demo.after, now)  # this run's own reading, recorded before the choice
    assert chosen(path, now) is None
    assert history_before(path, "sandbox", now + 30, SPAN - 1) is None  # max age under SPAN: the history is off


def test_a_too_new_reading_gives_way_to_an_older_one_else_is_waited_for(demo, tmp_path):
    path, now = tmp_path / "lag.sqlite", demo.after.taken_at
    record(path, demo.before, now - 5)
    # Only a reading younger than SPAN: read_at_once waits the rest of SPAN, then reads again.
    young = chosen(path, now)
    assert young is not None and young.at == now - 5
    record(path, demo.before, now - 0.5)
    older = chosen(path, now + 12)  # the reading 17 s old now, not the one 12.5 s old
    assert older is not None and older.at == now - 5


def test_rates_from_the_history_reading_match_those_of_a_live_reading(demo, tmp_path):
    path = tmp_path / "lag.sqlite"
    record(path, demo.before, demo.before.taken_at)
    history = derive(from_history(demo, path), Thresholds())
    live = {h["name"]: h for h in as_dict(derive(demo, Thresholds()))["hops"]}
    data = as_dict(history)
    assert data["before_source"] == "history" and data["before_at"] == round(demo.before.taken_at, 3)
    assert data["window_seconds"] == data["before_age_seconds"] == round(demo.after.taken_at - demo.before.taken_at, 3)
    assert data["rates_missing"] == []
    for hop in data["hops"]:
        for rate in ("rate_in", "rate_out"):
            assert hop[rate] == pytest.approx(live[hop["name"]][rate], rel=0.02), (hop["name"], rate)
        assert hop["severity"] == live[hop["name"]]["severity"], hop["name"]
    # The job's rate out: the rows of its batches triggered within the window (its progress
    # events), not its checkpoint (the history holds none): those at -15, -10 and -5 s.
    [job] = [h for h in data["hops"] if h["name"] == JOB_HOP]
    assert job["rate_out"] == pytest.approx((50 + 50 + 51) / history.window_seconds, abs=0.001)
    assert heading(history.window_seconds, history.before_source, history.before_at).startswith(
        "pipeline (rates over 15 s, from the history reading at ")


def test_rates_the_history_reading_cannot_give_are_named_not_invented(demo, tmp_path):
    path, now = tmp_path / "lag.sqlite", demo.after.taken_at
    # The group reading weblog-status-counts had not committed then: the history holds no log
    # end of that topic, nor the group's committed offsets.
    unread = replace(demo.before, lags=tuple(l for l in demo.before.lags if l.group != "weblog-status-watch"))
    record(path, unread, now - 150)  # longer ago than the job's 20 progress events reach
    data = as_dict(derive(from_history(demo, path), Thresholds()))
    hops = {h["name"]: h for h in data["hops"]}
    assert hops["streams weblog-statuses -> weblog-status-counts"]["rate_in"] is None
    assert hops[JOB_HOP]["rate_out"] is None
    assert hops["weblogs -> weblog-status-counts via streams weblog-statuses"]["rate_out"] > 0
    assert set(data["rates_missing"]) == {"streams weblog-statuses -> weblog-status-counts (in)",
                                          "weblog-status-counts -> group weblog-status-watch (in)",
                                          "weblog-status-counts -> group weblog-status-watch (out)",
                                          f"{JOB_HOP} (out)"}


def test_the_history_age_setting_is_validated():
    assert Thresholds().pipeline_history_max_age_seconds == MAX_AGE
    with pytest.raises(ValidationError):
        Thresholds(pipeline_history_max_age_seconds=-1)
