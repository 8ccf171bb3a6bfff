"""Flume metrics: parsing real payloads, rates between polls, restarts, the poll history."""

from __future__ import annotations

import json

import pytest

from streamctl.backends import flume
from streamctl.flume.history import MIN_BASELINE_AGE, History
from tests import repo

FIXTURES = repo.FIXTURES / "flume"
BINDINGS = {"kafka": "buffer"}


def load(name: str) -> flume.Poll:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    return flume.parse(data["payload"], data["taken_at"])


def test_every_value_is_a_string_in_the_payload():
    payload = json.loads((FIXTURES / "flowing-1.json").read_text())["payload"]
    assert set(payload) == {"SOURCE.access", "CHANNEL.buffer", "SINK.kafka"}
    assert all(isinstance(v, str) for c in payload.values() for v in c.values())


def test_parse_turns_strings_into_numbers():
    poll = load("flowing-2")
    channel = poll.components["CHANNEL.buffer"]
    assert channel.kind == "CHANNEL" and channel.name == "buffer"
    assert channel.get("ChannelSize") == 51 and channel.get("ChannelCapacity") == 20000
    assert channel.get("ChannelFillPercentage") == 0.255
    assert channel.attributes == {"Open": "true", "Type": "CHANNEL"}
    assert channel.start_time == 1795650611.377  # StartTime is in milliseconds
    assert [c.name for c in poll.of_kind("SINK")] == ["kafka"]


def test_rates_between_two_polls():
    before, now = load("flowing-1"), load("flowing-2")
    s = flume.status("weblogs", "u", now, before, bindings=BINDINGS)
    seconds = now.taken_at - before.taken_at
    assert s.up and s.interval == pytest.approx(seconds)
    (source,), (channel,), (sink,) = s.sources, s.channels, s.sinks
    assert source.accepted == 1021 and source.accept_rate == pytest.approx((1021 - 870) / seconds)
    assert channel.size == 51 and channel.capacity == 20000 and channel.fill_pct == 0.255
    assert channel.size_change == 51 and channel.new_failures == 0 and channel.healthy
    assert sink.channel == "buffer" and sink.drained == 970 and sink.drained_since == 100
    assert sink.drain_rate == pytest.approx(100 / seconds)
    assert sink.new_failures == 0


def test_first_poll_has_no_rates():
    s = flume.status("weblogs", "u", load("flowing-1"), None)
    assert s.interval is None
    assert s.sources[0].accept_rate is None and s.sinks[0].drain_rate is None
    assert s.sinks[0].new_failures is None and s.channels[0].size_change is None


def test_brokers_down_shows_rollbacks_and_a_growing_channel():
    s = flume.status("weblogs", "u", load("brokers-down-2"), load("brokers-down-1"), bindings=BINDINGS)
    (channel,), (sink,) = s.channels, s.sinks
    assert channel.size == 301 and channel.size_change == 200
    assert sink.drained_since == 0 and sink.drain_rate == 0
    assert sink.new_failures == 2 and sink.new_failure_counts == {"RollbackCount": 2}


def test_a_restart_resets_counters_and_rates_run_from_start_time():
    before, now = load("recovered"), load("restarted")
    s = flume.status("weblogs", "u", now, before)
    sink = s.sinks[0]
    started = now.components["SINK.kafka"].start_time
    assert now.components["SINK.kafka"].get("EventDrainSuccessCount") == 45
    assert sink.drained_since == 45  # all of it happened after the restart
    assert sink.drain_rate == pytest.approx(45 / (now.taken_at - started))
    assert sink.new_failures == 0  # 2 rollbacks before, 0 now: a reset, not a negative change


def test_fill_percentage_falls_back_to_size_over_capacity():
    poll = flume.parse({"CHANNEL.c": {"Type": "CHANNEL", "ChannelSize": "50", "ChannelCapacity": "200"}}, 1.0)
    assert flume.status("a", "u", poll, None).channels[0].fill_pct == 25.0


# ---- the history between runs ---------------------------------------------------------

def test_history_round_trip_and_baseline_choice(tmp_path):
    path = tmp_path / "h.json"
    first, second = load("flowing-1"), load("flowing-2")
    history = History(path, "http://x/metrics")
    assert history.baseline(first.taken_at) is None
    history.add(first)
    history.save()
    again = History(path, "http://x/metrics")
    baseline = again.baseline(second.taken_at)
    assert baseline is not None and baseline.taken_at == first.taken_at
    assert baseline.components["SINK.kafka"].values == first.components["SINK.kafka"].values
    assert History(path, "http://other/metrics").polls == []  # another endpoint, another history


def test_baseline_is_the_newest_poll_old_enough(tmp_path):
    history = History(tmp_path / "h.json", "u")
    base = load("flowing-1")
    for offset in (0, 5, 9, 12):
        history.add(flume.Poll(base.taken_at + offset, base.components))
    now = base.taken_at + 20
    assert history.baseline(now).taken_at == base.taken_at + 9  # 11 s old; the 12 s one is 8 s old
    assert history.baseline(base.taken_at + 12.5).taken_at == base.taken_at  # none 10 s old: the oldest
    assert MIN_BASELINE_AGE == 10.0


def test_damaged_history_starts_over(tmp_path):
    path = tmp_path / "h.json"
    path.write_text("{not json")
    assert History(path, "u").polls == []


def test_source_idle_time_tracks_when_the_count_last_moved(tmp_path):
    history = History(tmp_path / "h.json", "u")
    poll = load("flowing-2")
    history.add(poll)
    assert history.last_active() == {"access": poll.taken_at}
    later = flume.Poll(poll.taken_at + 400, poll.components)  # same counts, 400 s on
    history.add(later)
    s = flume.status("weblogs", "u", later, poll, history.last_active())
    assert s.sources[0].idle_seconds == pytest.approx(400)


def test_a_source_that_never_received_is_idle_since_it_started(tmp_path):
    history = History(tmp_path / "h.json", "u")
    poll = flume.parse({"SOURCE.r": {"Type": "SOURCE", "EventReceivedCount": "0", "StartTime": "1000000"}}, 1300.0)
    history.add(poll)
    assert flume.status("a", "u", poll, None, history.last_active()).sources[0].idle_seconds == 300.0


def test_unreachable_endpoint_is_an_error_not_a_traceback():
    with pytest.raises(flume.FlumeError, match="connection refused"):
        flume.fetch("http://127.0.0.1:9/metrics", timeout=2)
