"""The end of a test session (tests/conftest.py): a hung Kafka client call's stack dump fails
the session, however its tests ended; a child stuck starting and replaced is listed, not failed.

Each case is a session of its own (a pytest subprocess with tests/conftest.py as its plugin),
whose children hang for real through backends/kafka/isolated.py, their stacks in a directory
of their own (never the outer session's, which would then fail too)."""

from __future__ import annotations

from tests import repo

pytest_plugins = ["pytester"]

ROOT = repo.ROOT

HUNG_CALL = """
import time

import pytest

from streamctl.backends.kafka import isolated as kafka_isolated
from streamctl.backends.kafka.client import KafkaError


def wait_forever():
    kafka_isolated.call_begins()
    time.sleep(120)


def test_the_hang_is_caught_and_passes():
    with pytest.raises(KafkaError, match="no answer"):
        kafka_isolated.call_in_child(wait_forever, patience=1, what="describe", mutates=False)
"""

STUCK_STARTING = """
import time

from streamctl.backends.kafka import isolated as kafka_isolated


def test_a_child_stuck_starting_is_replaced(tmp_path):
    marker = tmp_path / "marker"

    def stuck_the_first_time():
        first = not marker.exists()
        marker.write_text("made")
        if first:
            time.sleep(120)  # never begins: frozen, looked at, killed, replaced
        kafka_isolated.call_begins()
        return 42

    assert kafka_isolated.call_in_child(stuck_the_first_time, patience=30, what="offsets", start_within=0.5,
                                        mutates=False) == 42
"""


def _session(pytester, monkeypatch, source: str):
    dumps = pytester.mkdir("dumps")
    monkeypatch.setenv("STREAMCTL_CHILD_STACKS", str(dumps))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_inner=source)
    return pytester.runpytest_subprocess("-p", "tests.conftest", "-p", "no:cacheprovider"), dumps


def test_a_hung_call_fails_the_session_and_its_stacks_are_printed(pytester, monkeypatch):
    result, dumps = _session(pytester, monkeypatch, HUNG_CALL)
    result.assert_outcomes(passed=1)
    assert result.ret == 1, result.stdout.str()
    [dump] = dumps.glob("*.stacks")
    assert "(describe) hung; its threads:" in dump.read_text()
    result.stdout.fnmatch_lines(["*1 hung Kafka client call(s): the session fails; stacks in*",
                                 "*(describe) hung; its threads:*"])
    assert "in wait_forever" in result.stdout.str()


def test_a_child_stuck_starting_and_replaced_is_listed_but_passes(pytester, monkeypatch):
    result, dumps = _session(pytester, monkeypatch, STUCK_STARTING)
    result.assert_outcomes(passed=1)
    assert result.ret == 0, result.stdout.str()
    [dump] = dumps.glob("*.stacks")
    assert "(offsets) hung starting; its threads:" in dump.read_text()
    result.stdout.fnmatch_lines(["*1 Kafka client child(ren) stuck starting, replaced (not a failure)*"])
    assert "the session fails" not in result.stdout.str()


def test_a_session_without_dumps_passes_quietly(pytester, monkeypatch):
    result, dumps = _session(pytester, monkeypatch, "def test_nothing():\n    pass\n")
    assert result.ret == 0 and not list(dumps.iterdir()), result.stdout.str()
    assert "Kafka client" not in result.stdout.str()
