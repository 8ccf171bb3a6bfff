"""Parsers and local validation behind the Kafka operations (no broker needed)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from streamctl import times
from streamctl.errors import UsageError
from streamctl.kafka.groups import offsets
from streamctl.kafka.topics import plans as topics


@pytest.mark.parametrize("name", ["orders", "a.b_c-D9", "x" * 249])
def test_legal_topic_names_pass(name):
    topics.validate_name(name)


@pytest.mark.parametrize("name, message", [
    (".", "'.' and '..'"), ("..", "'.' and '..'"), ("x" * 250, "at most 249"),
    ("with space", "' '"), ("slash/name", "'/'"), ("ünï", "not allowed"), ("", "not allowed"),
])
def test_illegal_topic_names_are_refused(name, message):
    with pytest.raises(UsageError, match=message):
        topics.validate_name(name)


def test_config_pairs_and_types():
    assert topics.parse_configs(["retention.ms=5", " cleanup.policy = compact "]) == {
        "retention.ms": "5", "cleanup.policy": "compact"}
    with pytest.raises(UsageError, match="expected key=value"):
        topics.parse_configs(["retention.ms"])
    topics.validate_configs({"retention.ms": "-1", "min.cleanable.dirty.ratio": "0.5",
                             "unclean.leader.election.enable": "true"}, set())
    for bad in ({"retention.ms": "1h"}, {"cleanup.policy": "purge"}, {"preallocate": "yes"},
                {"min.cleanable.dirty.ratio": "half"}):
        with pytest.raises(UsageError):
            topics.validate_configs(bad, set())
    with pytest.raises(UsageError, match=r"did you mean retention\.ms"):
        topics.validate_configs({"retention.msec": "1"}, {"retention.ms", "cleanup.policy"})


def test_topic_specs():
    assert offsets.parse_topic_specs(("a", "b:2,0,2")) == [("a", None), ("b", [0, 2])]
    for bad in (":1", "a:x", "a:-1"):
        with pytest.raises(UsageError):
            offsets.parse_topic_specs((bad,))


def test_datetimes_as_kafka_tool_takes_them():
    utc = datetime(2026, 11, 25, 13, 45, 0, tzinfo=UTC)
    assert times.parse_datetime("2026-11-25T13:45:00.000Z") == int(utc.timestamp() * 1000)
    assert times.parse_datetime("2026-11-25T14:45:00+01:00") == int(utc.timestamp() * 1000)
    local = datetime(2026, 11, 25, 13, 45).astimezone()
    assert times.parse_datetime("2026-11-25T13:45:00") == int(local.timestamp() * 1000)
    for bad in ("yesterday", "2026-13-01T00:00:00", "2026-11-25", "2026-11-25 13:45"):
        with pytest.raises(UsageError):
            times.parse_datetime(bad)


def test_durations():
    assert times.parse_duration("PT30M") == timedelta(minutes=30)
    assert times.parse_duration("P1DT2H3M4.5S") == timedelta(days=1, hours=2, minutes=3, seconds=4.5)
    for bad in ("P", "PT", "30m", "P1DT", "1 hour"):
        with pytest.raises(UsageError):
            times.parse_duration(bad)


def test_offsets_csv_in_both_kafka_export_shapes():
    assert offsets.parse_offsets_csv("t,0,5\nt,1,7\n", "g", "f.csv") == {("t", 0): 5, ("t", 1): 7}
    mixed = "g,t,0,5\nother,t,0,9\ng,u,3,1\n"
    assert offsets.parse_offsets_csv(mixed, "g", "f.csv") == {("t", 0): 5, ("u", 3): 1}
    with pytest.raises(UsageError, match=r"f.csv:2: expected topic,partition,offset"):
        offsets.parse_offsets_csv("t,0,5\nt;1;7\n", "g", "f.csv")
    with pytest.raises(UsageError, match="whole numbers"):
        offsets.parse_offsets_csv("t,zero,5\n", "g", "f.csv")
    with pytest.raises(UsageError, match="no offsets for group 'g'"):
        offsets.parse_offsets_csv("other,t,0,5\n", "g", "f.csv")
    assert offsets.to_csv({("t", 1): 7, ("t", 0): 5}) == "t,0,5\nt,1,7\n"


def test_clamping_says_why():
    assert offsets._clamp(5, 10, 20) == (10, "requested 5 is before the log start: clamped to 10")
    assert offsets._clamp(25, 10, 20) == (20, "requested 25 is past the log end: clamped to 20")
    assert offsets._clamp(15, 10, 20) == (15, "")
