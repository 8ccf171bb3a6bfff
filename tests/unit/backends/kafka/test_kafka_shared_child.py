"""One forked child for several callers' Kafka reads (check --all-contexts): each read on its own
thread there, a crash or a stuck start asked again in a fresh child, mutations and calls that do
not pickle kept in a child of their own."""

from __future__ import annotations

import os
import signal
import threading
import time
from functools import partial

import pytest

from streamctl.backends.kafka import isolated as kafka_isolated
from streamctl.backends.kafka import shared_child
from streamctl.backends.kafka.client import KafkaError, mutation
from streamctl.backends.kafka.isolated import KafkaClientCrashed
from streamctl.backends.kafka.shared_child import SharedChildKafka, SharedKafkaChild


@pytest.fixture(autouse=True)
def own_stacks_dir(tmp_path, monkeypatch):
    """Stacks of the children these tests hang on purpose stay out of the session's directory."""
    (tmp_path / "stacks").mkdir()
    monkeypatch.setenv("STREAMCTL_CHILD_STACKS", str(tmp_path / "stacks"))


@pytest.fixture
def child():
    with SharedKafkaChild() as shared:
        shared.start()
        yield shared


def _pid_after_begun() -> int:
    kafka_isolated.call_begins()
    return os.getpid()


def _note_runs(marker) -> list[str]:
    runs = marker.read_text().split() if marker.exists() else []
    marker.write_text(" ".join([*runs, str(os.getpid())]))
    return runs


def _crash_first(marker, times: int):
    """Begins, then dies of SIGSEGV (as librdkafka's NULL group handle does) the first `times` runs."""
    kafka_isolated.call_begins()
    if len(_note_runs(marker)) < times:  # in this thread, as a fault is (not to whichever thread)
        signal.pthread_kill(threading.get_ident(), signal.SIGSEGV)
    return "read"


def _wait_for(flag, seconds: float) -> str:
    """Begins, then answers once `flag` exists (or after `seconds`): a read in flight meanwhile."""
    kafka_isolated.call_begins()
    ends = time.monotonic() + seconds
    while not flag.exists() and time.monotonic() < ends:
        time.sleep(0.05)
    return "slow read"


def _stuck_first(marker):
    """Hangs before its client is made on its first run (a lock held across the fork), then answers."""
    if not _note_runs(marker):
        time.sleep(60)
    kafka_isolated.call_begins()
    return "read"


def _fail():
    raise KafkaError("metadata request timed out")


def test_every_caller_reads_in_the_same_child(child):
    pids: list[int] = []
    threads = [threading.Thread(target=lambda: pids.append(child.run(_pid_after_begun, 30, "metadata")))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(pids) == 4 and len(set(pids)) == 1 and pids[0] != os.getpid()


def test_errors_cross_back(child):
    with pytest.raises(KafkaError, match="metadata request timed out"):
        child.run(_fail, 30, "metadata")


def test_a_slow_read_delays_no_other(child, tmp_path):
    """A context whose brokers do not answer holds up no other context's read."""
    flag = tmp_path / "flag"
    slow: list[str] = []
    waiting = threading.Thread(target=lambda: slow.append(child.run(partial(_wait_for, flag, 60), 90, "snapshot")))
    waiting.start()
    try:
        assert child.run(_pid_after_begun, 30, "metadata") > 0
        assert not slow  # answered while the slow read still waits
    finally:
        flag.touch()
        waiting.join(30)
    assert slow == ["slow read"]


def test_a_crash_asks_every_read_in_the_child_again_in_a_fresh_one(child, tmp_path, monkeypatch):
    monkeypatch.setattr(kafka_isolated, "CRASH_PAUSES", (0.1, 0.1, 0.1))
    flag, marker = tmp_path / "flag", tmp_path / "marker"
    slow: list[str] = []
    waiting = threading.Thread(target=lambda: slow.append(child.run(partial(_wait_for, flag, 60), 90, "snapshot")))
    waiting.start()
    try:
        assert child.run(partial(_crash_first, marker, 1), 30, "offsets") == "read"
    finally:
        flag.touch()
        waiting.join(30)
    first, second = marker.read_text().split()
    assert first != second  # the crashed child was replaced
    assert slow == ["slow read"]  # the read in flight beside the crash was asked again


def test_four_crashes_are_one_error_naming_the_signals(child, tmp_path, monkeypatch):
    monkeypatch.setattr(kafka_isolated, "CRASH_PAUSES", (0.1, 0.1, 0.1))
    with pytest.raises(KafkaClientCrashed, match=r"offsets: the Kafka client crashed 4 times \(SIGSEGV, SIGSEGV"):
        child.run(partial(_crash_first, tmp_path / "marker", 9), 30, "offsets")


def test_a_read_stuck_starting_gets_a_fresh_child(child, tmp_path, monkeypatch):
    monkeypatch.setattr(kafka_isolated, "CRASH_PAUSES", (0.0, 0.0, 0.0))
    monkeypatch.setattr(shared_child, "START_PATIENCE", 1.0)
    marker = tmp_path / "marker"
    assert child.run(partial(_stuck_first, marker), 30, "offsets") == "read"
    first, second = marker.read_text().split()
    assert first != second


def test_a_function_that_does_not_pickle_runs_in_a_child_of_its_own(child):
    shared_pid = child.run(_pid_after_begun, 30, "metadata")
    own_pid = child.run(lambda: (kafka_isolated.call_begins(), os.getpid())[1], 30, "metadata")
    assert own_pid not in (shared_pid, os.getpid())


class _Client:
    def __init__(self, config, timeout: float):
        self.config = config

    def read_pid(self) -> int:
        return os.getpid()

    @mutation
    def create_topic(self, name: str, validate_only: bool = False) -> int:
        return os.getpid()


def test_mutations_never_run_in_the_shared_child(child):
    backend = SharedChildKafka(child, _Client, {"bootstrap.servers": "localhost:9"}, timeout=1.0)
    shared_pid = backend.read_pid()
    assert shared_pid == child.run(_pid_after_begun, 30, "metadata")
    assert backend.create_topic("orders") not in (shared_pid, os.getpid())
    assert backend.create_topic("orders", validate_only=True) not in (shared_pid, os.getpid())


def test_a_closed_child_forks_no_more():
    shared = SharedKafkaChild()
    shared.start()
    shared.close()
    with pytest.raises(KafkaError, match="closed"):
        shared.run(_pid_after_begun, 30, "metadata")
