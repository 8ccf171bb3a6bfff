"""The forked-child guard: a crash in the child (as librdkafka's) is retried in a fresh child
after a pause, four in a row are named; the caller's process never dies of it."""

from __future__ import annotations

import io
import itertools
import os
import signal
import time

import pytest

from streamctl.backends.kafka import client as kafka_client
from streamctl.backends.kafka import isolated as kafka_isolated
from streamctl.backends.kafka.client import KafkaAnswerLost, KafkaError
from streamctl.backends.kafka.isolated import IsolatedKafka, KafkaClientCrashed, call_in_child


@pytest.fixture(autouse=True)
def own_stacks_dir(tmp_path, monkeypatch):
    """The children these tests hang on purpose leave their stacks here, not in the session's
    directory (whose files the end of the session lists as hangs)."""
    (tmp_path / "stacks").mkdir()
    monkeypatch.setenv("STREAMCTL_CHILD_STACKS", str(tmp_path / "stacks"))


def _crash_first(marker, times: int):
    """Dies of SIGSEGV the first `times` times (as a NULL group handle in librdkafka does), then
    answers; each crash leaves its time in the marker file."""
    crashed = marker.read_text().split() if marker.exists() else []
    if len(crashed) < times:
        marker.write_text(" ".join([*crashed, str(time.monotonic())]))
        os.kill(os.getpid(), signal.SIGSEGV)
    return {"answer": 42}


def test_a_crash_is_retried_in_a_fresh_child(tmp_path):
    marker = tmp_path / "marker"
    assert call_in_child(lambda: _crash_first(marker, 1), patience=30, what="offsets", mutates=False) == {"answer": 42}
    assert len(marker.read_text().split()) == 1


def test_crashes_in_a_row_are_retried_after_growing_pauses(tmp_path):
    marker = tmp_path / "marker"
    assert call_in_child(lambda: _crash_first(marker, 3), patience=30, what="offsets", mutates=False) == {"answer": 42}
    crashed_at = [float(t) for t in marker.read_text().split()]
    gaps = [later - earlier for earlier, later in itertools.pairwise(crashed_at)]
    assert len(gaps) == 2 and 0.5 <= gaps[0] < gaps[1], gaps


def test_four_crashes_are_one_error_naming_the_signals():
    with pytest.raises(KafkaClientCrashed, match=r"offsets: the Kafka client crashed 4 times \(SIGABRT, SIGABRT"):
        call_in_child(os.abort, patience=30, what="offsets", mutates=False)


def test_errors_and_answers_cross_back():

    def fail():
        raise KafkaError("metadata request timed out")

    with pytest.raises(KafkaError, match="metadata request timed out"):
        call_in_child(fail, patience=30, what="metadata", mutates=False)
    parent = os.getpid()
    assert call_in_child(os.getpid, patience=30, what="pid", mutates=False) != parent


def test_a_child_that_hangs_is_killed_after_its_patience():

    with pytest.raises(KafkaError, match="no answer from the Kafka client in 1 s"):
        call_in_child(lambda: time.sleep(30), patience=1, what="describe", mutates=False)


def _wait_forever():
    time.sleep(30)


def test_a_hung_child_shows_where_it_hung_before_it_is_killed(monkeypatch, capfd):
    monkeypatch.setenv("STREAMCTL_CHILD_STACKS", "1")
    with pytest.raises(KafkaError, match="no answer from the Kafka client in 1 s"):
        call_in_child(_wait_forever, patience=1, what="describe", mutates=False)
    err = capfd.readouterr().err
    assert "the Kafka client child" in err and "hung" in err
    assert "in _wait_forever" in err, err


def test_stacks_on_hang_need_no_real_stderr_to_answer(monkeypatch):
    """A Textual app replaces sys.stderr with an object without a file descriptor: the child
    registers its stack dump on fd 2 and answers as usual."""
    monkeypatch.setenv("STREAMCTL_CHILD_STACKS", "1")
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert call_in_child(lambda: 42, patience=10, what="answer", mutates=False) == 42


def test_the_proxy_builds_its_client_in_the_child():
    built_in = []

    class Client:
        def __init__(self, config, timeout):
            built_in.append(os.getpid())

        def whoami(self, suffix):
            return f"{os.getpid()}{suffix}"

    proxy = IsolatedKafka(Client, {"bootstrap.servers": "x"}, timeout=1.0)
    answer = proxy.whoami("!")
    assert answer.endswith("!") and answer != f"{os.getpid()}!"
    assert built_in == []  # the parent never built a client
    # Only the class's methods: callers that probe for an optional one get the class's answer.
    assert getattr(proxy, "call_with_admin", None) is None


def test_a_fork_waits_for_the_in_process_clients_to_end():
    """No librdkafka client lives in the process at a fork (kafka_client.ForkGuard): a fork
    asked for while a client lives happens after it ends; the child gets a free guard."""
    import threading

    from streamctl.backends.kafka import client as kafka_client

    events, client_started = [], threading.Event()

    def client():
        with kafka_client.FORK_GUARD.client():
            client_started.set()
            time.sleep(0.5)
            events.append("client ended")

    thread = threading.Thread(target=client)
    thread.start()
    client_started.wait(5)

    def in_child():
        with kafka_client.FORK_GUARD.client():  # would wait forever on an inherited, held lock
            return "child's client made"

    assert call_in_child(in_child, patience=10, what="guard", mutates=False) == "child's client made"
    events.append("forked")
    thread.join()
    assert events == ["client ended", "forked"]


def _stuck_first(marker, times: int):
    """Hangs before its call begins the first `times` times (as a child forked beside a held
    lock does), then begins and answers; each start leaves a line in the marker file."""
    starts = marker.read_text().split() if marker.exists() else []
    marker.write_text(" ".join([*starts, str(os.getpid())]))
    if len(starts) < times:
        time.sleep(60)
    kafka_isolated.call_begins()
    return {"answer": 42}


def test_a_child_stuck_before_its_call_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setattr(kafka_isolated, "CRASH_PAUSES", (0.0, 0.0, 0.0))
    marker = tmp_path / "marker"
    started = time.monotonic()
    answer = call_in_child(lambda: _stuck_first(marker, 2), patience=30, what="offsets", mutates=False, start_within=2.0)
    assert answer == {"answer": 42}
    assert len(marker.read_text().split()) == 3
    assert time.monotonic() - started < 20  # two start patiences (and stack dumps), not the patience


def test_four_stuck_starts_are_one_error_naming_them(tmp_path, monkeypatch):
    monkeypatch.setattr(kafka_isolated, "CRASH_PAUSES", (0.0, 0.0, 0.0))
    with pytest.raises(KafkaClientCrashed, match=r"offsets: the Kafka client crashed or hung starting 4 times "
                                                 r"\(hung starting, hung starting"):
        call_in_child(lambda: _stuck_first(tmp_path / "marker", 9), patience=30, what="offsets", mutates=False, start_within=2.0)


def test_a_child_that_began_its_call_is_never_replaced(tmp_path):
    """Its call may have reached Kafka (a mutation among them): it fails after its patience,
    never runs twice."""
    marker = tmp_path / "marker"

    def begins_then_hangs():
        marker.write_text(marker.read_text() + "x" if marker.exists() else "x")
        kafka_isolated.call_begins()
        time.sleep(60)

    with pytest.raises(KafkaAnswerLost, match="create_topic: no answer from the Kafka client in 4 s after the "
                                              "change was sent: not sent again"):
        call_in_child(begins_then_hangs, patience=4, what="create_topic", start_within=2.0, mutates=True)
    assert marker.read_text() == "x"


def _begin_then_crash(marker):
    """Counts its runs in the marker file, begins its call, then dies of SIGSEGV (librdkafka's
    NULL group handle, #5040, in the middle of an offset commit)."""
    marker.write_text(marker.read_text() + "x" if marker.exists() else "x")
    kafka_isolated.call_begins()
    os.kill(os.getpid(), signal.SIGSEGV)


def test_a_mutation_that_crashed_after_it_began_is_never_run_again(tmp_path):
    marker = tmp_path / "marker"
    with pytest.raises(KafkaAnswerLost, match=r"commit_offsets: the Kafka client crashed \(SIGSEGV, librdkafka\) "
                                              r"after the change was sent: not sent again"):
        call_in_child(lambda: _begin_then_crash(marker), patience=30, what="commit_offsets", mutates=True)
    assert marker.read_text() == "x"


def test_a_read_that_crashed_after_it_began_is_asked_again(tmp_path, monkeypatch):
    monkeypatch.setattr(kafka_isolated, "CRASH_PAUSES", (0.0, 0.0, 0.0))
    marker = tmp_path / "marker"
    with pytest.raises(KafkaClientCrashed, match=r"committed: the Kafka client crashed 4 times .*nothing was read"):
        call_in_child(lambda: _begin_then_crash(marker), patience=30, what="committed", mutates=False)
    assert marker.read_text() == "xxxx"


def test_a_mutation_that_crashed_before_it_began_is_run_in_a_fresh_child(tmp_path, monkeypatch):
    """Nothing reached Kafka: the change is made once, by the second child."""
    monkeypatch.setattr(kafka_isolated, "CRASH_PAUSES", (0.0, 0.0, 0.0))
    marker, made = tmp_path / "marker", tmp_path / "made"

    def crash_first_then_change():
        _crash_first(marker, 1)  # before call_begins: its client was never made
        kafka_isolated.call_begins()
        made.write_text(made.read_text() + "x" if made.exists() else "x")
        return "created"

    assert call_in_child(crash_first_then_change, patience=30, what="create_topic", mutates=True) == "created"
    assert made.read_text() == "x" and len(marker.read_text().split()) == 1


def test_the_proxy_knows_mutations_from_their_mark(tmp_path):
    from streamctl.backends.kafka.admin import KafkaAdmin
    from streamctl.backends.kafka.client import mutates

    marked = {m for m in dir(KafkaAdmin) if mutates(KafkaAdmin, m)}
    assert marked == {"create_topic", "add_partitions", "alter_topic_configs", "delete_topic", "commit_offsets",
                      "elect_preferred"}
    assert not mutates(KafkaAdmin, "create_topic", {"validate_only": True})  # the broker only checks
    marker = tmp_path / "marker"

    class Client:
        def __init__(self, config, timeout):
            pass

        @kafka_client.mutation
        def delete_topic(self, name):
            _begin_then_crash(marker)

    with pytest.raises(KafkaAnswerLost, match="delete_topic: the Kafka client crashed"):
        IsolatedKafka(Client, {}, timeout=1.0).delete_topic("orders")
    assert marker.read_text() == "x"


def test_the_test_hook_crashes_the_child_after_the_named_call(tmp_path, monkeypatch):
    """STREAMCTL_TEST_CRASH_AFTER: the call runs to its end, then its child dies of SIGSEGV."""
    monkeypatch.setenv(kafka_isolated.CRASH_AFTER_ENV, "other,create_topic")
    marker = tmp_path / "marker"

    def create():
        kafka_isolated.call_begins()
        marker.write_text(marker.read_text() + "x" if marker.exists() else "x")
        return "created"

    with pytest.raises(KafkaAnswerLost, match="SIGSEGV"):
        call_in_child(create, patience=30, what="create_topic", mutates=True)
    assert marker.read_text() == "x"
    assert call_in_child(lambda: "read", patience=30, what="metadata", mutates=False) == "read"


def test_the_proxy_begins_its_call_once_its_client_is_made(tmp_path, monkeypatch):
    monkeypatch.setattr(kafka_isolated, "START_PATIENCE", 2.0)
    monkeypatch.setattr(kafka_isolated, "CRASH_PAUSES", (0.0, 0.0, 0.0))
    marker = tmp_path / "marker"

    class Client:
        def __init__(self, config, timeout):
            _stuck_first_made(marker)

        def slow(self):
            time.sleep(3.0)  # past START_PATIENCE: the call had begun, so it is waited for
            return "answered"

    assert IsolatedKafka(Client, {}, timeout=1.0).slow() == "answered"
    assert len(marker.read_text().split()) == 2  # the first client hung being made


def _stuck_first_made(marker):
    starts = marker.read_text().split() if marker.exists() else []
    marker.write_text(" ".join([*starts, "made"]))
    if not starts:
        time.sleep(60)


def test_hung_childrens_stacks_go_to_files_in_the_directory_named(tmp_path, monkeypatch):
    """STREAMCTL_CHILD_STACKS naming a directory (the test suite's way): a hung child leaves a
    file naming where it hung; an answering child leaves none."""
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    monkeypatch.setenv("STREAMCTL_CHILD_STACKS", str(dumps))
    assert call_in_child(lambda: 42, patience=10, what="answer", mutates=False) == 42
    assert list(dumps.iterdir()) == []
    with pytest.raises(KafkaError, match="no answer"):
        call_in_child(_wait_forever, patience=1, what="describe", mutates=False)
    [dump] = dumps.iterdir()
    text = dump.read_text()
    assert "(describe) hung" in text and "in _wait_forever" in text, text


def test_a_child_slow_to_begin_is_frozen_and_seen_to_have_begun(tmp_path, monkeypatch):
    """A child that begins its call during the last look (here: while its stacks are dumped)
    runs on and answers: it is never killed and its call never made twice."""
    monkeypatch.setattr("streamctl.backends.child_stacks.DUMP_WAIT", 2.0)
    marker = tmp_path / "marker"

    def slow_to_begin():
        marker.write_text(marker.read_text() + "x" if marker.exists() else "x")
        time.sleep(1.5)  # past start_within, inside the dump's wait
        kafka_isolated.call_begins()
        return "answered"

    assert call_in_child(slow_to_begin, patience=30, what="offsets", mutates=False, start_within=0.5) == "answered"
    assert marker.read_text() == "x"
