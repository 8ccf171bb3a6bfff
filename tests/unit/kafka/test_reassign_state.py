"""The reassignment's records in the state dir: the preferred-leader election `execute
--elect-leaders` asks for (added to, read back, forgotten; a damaged record is none)."""

from __future__ import annotations

import pytest

from streamctl.kafka.reassign import state


@pytest.fixture(autouse=True)
def state_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))


def test_the_election_wish_is_recorded_added_to_and_forgotten():
    assert state.recorded_elections("prod") == []
    state.record_elections("prod", [("orders", 1), ("orders", 0)])
    state.record_elections("prod", [("audit", 2), ("orders", 1)])
    assert state.recorded_elections("prod") == [("audit", 2), ("orders", 0), ("orders", 1)]
    assert state.recorded_elections("staging") == []  # one record per context
    state.forget_elections("prod")
    assert state.recorded_elections("prod") == [] and not state.elections_file("prod").exists()


def test_the_record_is_written_atomically_and_leaves_no_temporary_file():
    state.record_elections("prod", [("orders", 0)])
    folder = state.elections_file("prod").parent
    assert [p.name for p in folder.iterdir()] == [state.elections_file("prod").name]


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"partitions": 3}', '{"partitions": [["t"], [1, 2]]}',
                                     b"\xff\xfe"])
def test_a_damaged_record_is_no_wish(content):
    path = state.elections_file("prod")
    path.parent.mkdir(parents=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    assert state.recorded_elections("prod") == []


def test_the_throttle_and_election_records_are_apart():
    state.record_throttles("prod", [1, 2], ["orders"])
    state.record_elections("prod", [("orders", 0)])
    state.forget_throttles("prod")
    assert state.recorded_elections("prod") == [("orders", 0)]
    assert state.recorded_throttles("prod") == {"brokers": [], "topics": []}
