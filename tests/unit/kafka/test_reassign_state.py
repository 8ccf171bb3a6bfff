"""The throttle record names the `execute` starting a move while that process lives, so that a
`status` run meanwhile leaves its throttles; a record naming a process gone is a crash's."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from streamctl.kafka.reassign import state


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
