"""`topics copy` and transactional `topics produce` against the real sandbox, checked with a
plain read_committed consumer (not streamctl): byte-for-byte copies, all or nothing when killed
or refused mid-way, chunked copies resumed exactly once, records sized as the topic allows."""

from __future__ import annotations

import collections
import json
import signal
import subprocess
import threading
import time

import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.integration.kafka_helpers import ordered_producer, unique, write_context

pytestmark = pytest.mark.integration

BIG = 3_000_000  # the topics' max.message.bytes in the round trip


@pytest.fixture
def streamctl(sandbox, tmp_path):
    """`streamctl` against a per-test config and state dir; `.start` runs it in the background."""
    from tests.conftest import STREAMCTL

    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers, records={"mask": ["headers.x-internal"]})
    env = sandbox.cli_env(XDG_STATE_HOME=str(tmp_path / "state"))

    def run(*args, stdin: str | None = None):
        return subprocess.run([STREAMCTL, "--config", str(config), *args], input=stdin, capture_output=True,
                              text=True, timeout=300, env=env)

    def start(*args):
        return subprocess.Popen([STREAMCTL, "--config", str(config), *args], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, env=env)

    run.start = start
    run.state = tmp_path / "state" / "streamctl"
    return run


def _topic(sandbox, partitions: int = 3, **config) -> str:
    name = unique("copy")
    sandbox.kafka().create_topic(name, partitions, 3, config={k: str(v) for k, v in config.items()})
    return name


def _committed(sandbox, topic: str, isolation: str = "read_committed", settled: bool = True) -> list[tuple]:
    """Every record of `topic` a plain consumer sees: (partition, offset, key, value, headers,
    timestamp). With read_committed the end is the last stable offset, so an open transaction's
    records are neither seen nor waited for. `settled`: no transaction is left open, so first
    wait until every partition's last stable offset reaches its end: a commit returns once the
    coordinator has it, and its markers reach the partitions a moment later."""
    consumer = Consumer({"bootstrap.servers": sandbox.bootstrap_servers, "group.id": unique("check"),
                        "isolation.level": isolation, "enable.auto.commit": False, "log_level": "0",
                        "enable.partition.eof": True, "auto.offset.reset": "earliest"})
    try:
        partitions = sorted(consumer.list_topics(topic, timeout=10).topics[topic].partitions)
        if settled and isolation == "read_committed":
            sandbox.wait_until(lambda: _stable_ends(sandbox, consumer, topic, partitions), timeout=60,
                               what=f"{topic}: every commit marker written")
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in partitions}
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        found, pending, deadline = [], {p for p in partitions if ends[p] > 0}, time.monotonic() + 60
        while pending:
            assert time.monotonic() < deadline, f"{topic}: partitions {pending} not read to {ends}"
            message = consumer.poll(1.0)
            if message is None:
                continue
            if message.error():
                pending.discard(message.partition())  # end of partition
                continue
            headers = tuple(message.headers() or ())
            found.append((message.partition(), message.offset(), message.key(), message.value(), headers,
                          message.timestamp()[1]))
            if message.offset() + 1 >= ends[message.partition()]:
                pending.discard(message.partition())
        return found
    finally:
        consumer.close()


def _stable_ends(sandbox, committed: Consumer, topic: str, partitions: list[int]) -> bool:
    """Whether each partition's last stable offset (what `committed` sees) is its high watermark."""
    latest = Consumer({"bootstrap.servers": sandbox.bootstrap_servers, "group.id": unique("check"),
                      "isolation.level": "read_uncommitted", "log_level": "0"})
    try:
        return all(committed.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                   == latest.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in partitions)
    finally:
        latest.close()


def _contents(records: list[tuple], partitions: bool = True) -> list[tuple]:
    """What a copy must keep: partition (when kept), key, value, headers, timestamp."""
    return sorted((((r[0] if partitions else None), r[2], r[3], r[4], r[5]) for r in records), key=repr)


def _one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_a_copy_is_byte_for_byte_and_a_masked_export_is_refused(sandbox, streamctl, tmp_path):
    # Timestamps from 2023 are past the 7-day retention: without retention.ms=-1 a broker's
    # retention check (every 5 min, the first 30 s after start) deletes them mid-test.
    src, dst, other = (_topic(sandbox, **{"max.message.bytes": BIG, "retention.ms": -1}) for _ in range(3))
    big = bytes(range(256)) * (2 * 1024 * 1024 // 256)  # 2 MiB, binary
    producer = ordered_producer(sandbox.bootstrap_servers, **{"message.max.bytes": BIG + 100_000})
    entries = [
        (0, b"k1", b'{"user": "ann", "password": "hunter2"}', [("Authorization", b"Bearer abc"), ("x-internal", b"s")]),
        (1, bytes(range(256)), b"\x00\xff\xfe binary", [("bin", b"\xff\xfe\x00\x80")]),
        (2, b"gone", None, [("trace", b"t")]),  # a tombstone
        (0, None, big, []),
        (1, "ключ".encode(), b"{\"api_key\": \"k\"}", [("x-token", b"t0k"), ("empty", None)]),
    ]
    for i, (partition, key, value, headers) in enumerate(entries):
        producer.produce(src, key=key, value=value, headers=headers or None, partition=partition,
                         timestamp=1_700_000_000_000 + i)
    assert producer.flush(60) == 0

    dry = streamctl("topics", "copy", src, dst, "--keep-partitions", "--keep-timestamps", "-o", "json")
    assert dry.returncode == 0 and "dry run" in dry.stderr, dry.stderr
    planned = json.loads(dry.stdout)
    assert (planned["parameters"]["records"], planned["operation"]) == (5, "topics.copy")
    assert [c["after"] for c in planned["changes"] if c["field"] == "offsets"] == ["0..1", "0..1", "0..0"]
    assert _committed(sandbox, dst) == []

    done = streamctl("topics", "copy", src, dst, "--keep-partitions", "--keep-timestamps", "--execute")
    assert done.returncode == 0 and "5 record(s) copied" in done.stderr, done.stderr
    for secret in ("hunter2", "Bearer abc", "t0k"):
        assert secret not in done.stdout + done.stderr + dry.stdout  # never printed
    source = _committed(sandbox, src)
    assert _contents(_committed(sandbox, dst)) == _contents(source) and len(source) == 5
    audit = [json.loads(line) for line in (streamctl.state / "audit.jsonl").read_text().splitlines()]
    assert [(a["operation"], a["result"], a["parameters"]["records"]) for a in audit] == [("topics.copy", "ok", 5)]
    assert "hunter2" not in json.dumps(audit)

    # The masked export: every masked value listed, and produce refuses it before producing anything.
    export = streamctl("topics", "read", src, "-p", "0", "-o", "json")
    lines = [json.loads(line) for line in export.stdout.splitlines()]
    assert lines[0]["masked"] == ["headers.Authorization", "headers.x-internal", "value.password"]
    assert "masked" not in lines[1]
    dump = tmp_path / "dump.jsonl"
    dump.write_text(export.stdout)
    refused = streamctl("topics", "produce", other, "--from", str(dump), "--format", "json", "--execute")
    assert refused.returncode == 3, refused.stderr
    assert f"{dump}:1: record holds a masked value (headers.Authorization)" in _one_line(refused)
    assert _committed(sandbox, other) == []


def test_records_larger_than_the_destination_takes_are_refused_in_the_plan(sandbox, streamctl):
    src, dst = _topic(sandbox, partitions=1, **{"max.message.bytes": BIG}), _topic(sandbox, partitions=1)
    producer = ordered_producer(sandbox.bootstrap_servers, **{"message.max.bytes": BIG + 100_000})
    for value in (b"small", b"y" * (2 * 1024 * 1024), b"small again"):
        producer.produce(src, value=value, partition=0)
    assert producer.flush(60) == 0
    refused = streamctl("topics", "copy", src, dst, "--execute")
    assert refused.returncode == 3
    line = _one_line(refused)
    assert f"{src}/0 offset 1: record of 2097" in line and f"more than topic {dst} takes (max.message.bytes" in line
    assert _committed(sandbox, dst, "read_uncommitted") == []  # not even an aborted record

    produced = streamctl("topics", "produce", dst, "--execute", stdin="ok\n" + "x" * 1_100_000 + "\n")
    assert produced.returncode == 3 and "input line 2: record of 1100" in _one_line(produced)
    assert _committed(sandbox, dst, "read_uncommitted") == []


def test_a_produce_or_a_copy_that_fails_mid_way_leaves_nothing(sandbox, streamctl, tmp_path):
    # The broker refuses a record stamped more than an hour ago: found only when it is sent.
    dst = _topic(sandbox, partitions=2, **{"message.timestamp.before.max.ms": 3_600_000})
    now = int(time.time() * 1000)
    dump = tmp_path / "in.jsonl"
    dump.write_text("".join(json.dumps(line) + "\n" for line in [
        {"value": "first", "partition": 0, "timestamp": now},
        {"value": "too old", "partition": 1, "timestamp": 1_000},
        {"value": "third", "partition": 0, "timestamp": now}]))
    failed = streamctl("topics", "produce", dst, "--from", str(dump), "--format", "json", "--keep-partitions",
                       "--keep-timestamps", "--execute")
    assert failed.returncode == 1
    line = _one_line(failed)
    assert "transaction aborted, nothing of it written" in line and "imestamp" in line, line
    assert _committed(sandbox, dst) == []
    # The partition-0 records did reach the log, aborted: a read_uncommitted reader sees them.
    assert {r[3] for r in _committed(sandbox, dst, "read_uncommitted")} <= {b"first", b"third"}

    src = _topic(sandbox, partitions=2, **{"retention.ms": -1})  # keeps the record stamped 1970
    producer = ordered_producer(sandbox.bootstrap_servers)
    for partition, stamp in ((0, now), (1, 1_000), (0, now)):
        producer.produce(src, value=b"stamped %d" % stamp, partition=partition, timestamp=stamp)
    assert producer.flush(30) == 0
    copied = streamctl("topics", "copy", src, dst, "--keep-partitions", "--keep-timestamps", "--execute")
    assert copied.returncode == 1 and "transaction aborted, nothing of it written" in _one_line(copied)
    assert _committed(sandbox, dst) == []
    audit = [json.loads(line) for line in (streamctl.state / "audit.jsonl").read_text().splitlines()]
    assert [(a["operation"], a["result"]) for a in audit] == [("topics.produce", "failed"), ("topics.copy", "failed")]


def _fill(sandbox, topic: str, count: int, partitions: int = 3) -> set[bytes]:
    producer = ordered_producer(sandbox.bootstrap_servers)
    values = [b"record %d" % i for i in range(count)]
    for i, value in enumerate(values):
        producer.produce(topic, value=value, key=b"k%d" % i, partition=i % partitions)
    assert producer.flush(60) == 0
    return set(values)


def _kill_when(proc: subprocess.Popen, needle: str) -> list[str]:
    """SIGKILL `proc` as soon as its stderr shows a line holding `needle`; its lines until then."""
    lines: list[str] = []
    seen = threading.Event()

    def read():
        for line in proc.stderr:
            lines.append(line)
            if needle in line:
                seen.set()
                return

    threading.Thread(target=read, daemon=True).start()
    try:
        assert seen.wait(120) and proc.poll() is None, (needle, lines, proc.poll())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    return lines


def test_a_copy_killed_mid_transaction_leaves_nothing_and_a_rerun_copies_each_record_once(sandbox, streamctl):
    src, dst = _topic(sandbox), _topic(sandbox)
    values = _fill(sandbox, src, 300)
    # 50 records a second: the one transaction is open for 6 s, killed after its first progress line.
    proc = streamctl.start("topics", "copy", src, dst, "--max-rate", "50", "--execute")
    lines = _kill_when(proc, "not committed yet")
    assert not any("committed chunk" in line for line in lines), lines
    assert _committed(sandbox, dst, settled=False) == []
    assert _committed(sandbox, dst, "read_uncommitted")  # it had sent records, now invisible

    again = streamctl("topics", "copy", src, dst, "--execute")
    assert again.returncode == 0 and "300 record(s) copied" in again.stderr, again.stderr
    copied = collections.Counter(r[3] for r in _committed(sandbox, dst))
    assert set(copied) == values and set(copied.values()) == {1}


def test_a_chunked_copy_killed_between_chunks_resumes_and_copies_each_record_once(sandbox, streamctl):
    src, dst = _topic(sandbox), _topic(sandbox)
    values = _fill(sandbox, src, 300)
    args = ("topics", "copy", src, dst, "--chunk-records", "50", "--keep-partitions")
    dry = json.loads(streamctl(*args, "-o", "json").stdout)
    assert dry["changes"][0]["note"] == "6 transactions of up to 50 records, each with its resume point"
    proc = streamctl.start(*args, "--max-rate", "100", "--execute")
    _kill_when(proc, "committed chunk 2:")
    # The killed copy left chunk 3's transaction open: wait for chunk 2's markers, not for it.
    def two_chunks_or_more():
        records = _committed(sandbox, dst, settled=False)
        return records if len(records) >= 100 else None

    seen = sandbox.wait_until(two_chunks_or_more, timeout=60, what="two chunks committed")
    assert len(seen) % 50 == 0 and len(seen) < 300, len(seen)

    again = streamctl(*args, "--execute", "-o", "json")
    assert again.returncode == 0, again.stderr
    assert "resuming an interrupted copy" in json.loads(again.stdout)["warnings"][0]
    assert f"{300 - len(seen)} record(s) copied" in again.stderr
    copied = collections.Counter(r[3] for r in _committed(sandbox, dst))
    assert set(copied) == values and set(copied.values()) == {1}
    unstamped = lambda records: [r[:4] for r in _contents(records)]  # noqa: E731 - stamped when copied
    assert unstamped(_committed(sandbox, dst)) == unstamped(_committed(sandbox, src))  # partitions kept

    once_more = streamctl(*args, "--execute")
    assert once_more.returncode == 0 and "nothing to copy: this copy was done" in once_more.stderr
    assert len(_committed(sandbox, dst)) == 300


def test_a_copy_takes_the_read_filters_and_is_refused_read_only(sandbox, streamctl):
    src, dst = _topic(sandbox, partitions=2), _topic(sandbox, partitions=2)
    producer = ordered_producer(sandbox.bootstrap_servers)
    for i in range(20):
        producer.produce(src, value=json.dumps({"status": 500 if i % 4 == 0 else 200, "n": i}).encode(),
                         key=b"user-%d" % i, partition=i % 2, headers=[("kind", b"odd" if i % 2 else b"even")])
    assert producer.flush(30) == 0
    refused = streamctl("--read-only", "topics", "copy", src, dst, "--execute")
    assert refused.returncode != 0 and "read-only" in _one_line(refused)
    done = streamctl("topics", "copy", src, dst, "--field", "status=500", "--header", "kind=even", "--limit", "3",
                     "--execute")
    assert done.returncode == 0 and "3 record(s) copied" in done.stderr, done.stderr
    assert sorted(json.loads(r[3])["n"] for r in _committed(sandbox, dst)) == [0, 4, 8]
