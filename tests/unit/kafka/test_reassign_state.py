"""The reassignment's records in the state dir: the preferred-leader election `execute
--elect-leaders` asks for (added to, read back, forgotten; a damaged record is none), and the
throttle record naming the `execute` starting a move while that process lives, so that a `status`
run meanwhile leaves its throttles; a record naming a process gone is a crash's."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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


def test_the_record_names_this_process_until_its_move_has_started(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    state.record_throttles("prod", [1, 2], ["orders"])
    assert state.throttles_file("prod").is_relative_to(tmp_path)
    assert state.starting_execute("prod") == os.getpid()
    state.done_starting("prod")
    assert state.starting_execute("prod") is None
    assert state.recorded_throttles("prod") == {"brokers": [1, 2], "topics": ["orders"]}


def test_a_record_naming_a_process_gone_or_reused_names_nobody(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    state.record_throttles("prod", [1], ["orders"])
    recorded = json.loads(state.throttles_file("prod").read_text())
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    for starting in ({"pid": int(gone.stdout), "since": 0.0}, {**recorded["starting"], "since": 1.0}, "damaged"):
        state.throttles_file("prod").write_text(json.dumps({**recorded, "starting": starting}))
        assert state.starting_execute("prod") is None
    assert state.recorded_throttles("prod") == {"brokers": [1], "topics": ["orders"]}


def test_done_starting_after_the_record_was_removed_leaves_none(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    state.done_starting("prod")
    assert not state.throttles_file("prod").exists()
