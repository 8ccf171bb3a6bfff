"""Records against the real sandbox: read from where asked, filtered and masked; produce as a
plan with delivery reports checked; an export produced back byte for byte; peek at what a group
will process next; reads never join or commit a group."""

from __future__ import annotations

import base64
import json
import re

import pytest

from tests.integration.kafka_helpers import commit, ordered_producer, unique, write_context

pytestmark = pytest.mark.integration

BINARY = bytes(range(256))


@pytest.fixture
def records(sandbox, tmp_path):
    """`streamctl` against a per-test config (masking value.card_number) and state dir."""
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers,
                           records={"mask": ["value.card_number", "headers.x-internal"]})

    def run(*args, stdin: str | None = None, **env):
        import subprocess

        from tests.conftest import STREAMCTL
        return subprocess.run([STREAMCTL, "--config", str(config), *args], input=stdin, capture_output=True,
                              text=True, timeout=120,
                              env=sandbox.cli_env(XDG_STATE_HOME=str(tmp_path / "state"), **env))

    run.state = tmp_path / "state" / "streamctl"
    run.config = config
    return run


def _topic(sandbox, partitions: int = 3, **config) -> str:
    name = unique("rec")
    sandbox.kafka().create_topic(name, partitions, 3, config={k: str(v) for k, v in config.items()})
    return name


def _produce(sandbox, topic: str, entries: list[dict]) -> None:
    producer = ordered_producer(sandbox.bootstrap_servers)
    for e in entries:
        producer.produce(topic, value=e.get("value"), key=e.get("key"), partition=e.get("partition", 0),
                         headers=e.get("headers"), timestamp=e.get("timestamp", 0))
    assert producer.flush(30) == 0


def _lines(result) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def _group_ids(sandbox) -> set[str]:
    return {g.id for g in sandbox.kafka().snapshot(lag_time=False).groups}


def _groups_on(sandbox, topic: str) -> set[str]:
    """Groups that committed offsets on `topic` or have a member assigned it. (Not a before and
    after of every group id: other groups, the demo job's among them, come and go meanwhile.)"""
    snap = sandbox.kafka().snapshot(lag_time=False)
    return ({l.group for l in snap.lags if l.topic == topic}
            | {g.id for g in snap.groups for m in g.members for t, _ in m.assignments if t == topic})


def test_an_export_produces_back_byte_for_byte(sandbox, records, tmp_path):
    source, target = _topic(sandbox), _topic(sandbox)
    entries = [{"key": b"k1", "value": b'{"status": 500}', "partition": 0, "headers": [("trace", b"abc")],
                "timestamp": 1_700_000_000_000},
               {"key": None, "value": BINARY, "partition": 1, "headers": [("bin", BINARY), ("empty", None)],
                "timestamp": 1_700_000_000_001},
               {"key": "ключ".encode(), "value": None, "partition": 2, "timestamp": 1_700_000_000_002}]
    _produce(sandbox, source, entries)

    export = records("topics", "read", source, "--from-beginning", "-o", "json")
    exported = _lines(export)
    assert len(exported) == 3
    assert _groups_on(sandbox, source) == set()  # the read joined no group and committed nothing
    dump = tmp_path / "export.jsonl"
    dump.write_text(export.stdout)

    dry = records("topics", "produce", target, "--from", str(dump), "--format", "json", "--keep-timestamps",
                  "--keep-partitions", "-o", "json")
    assert dry.returncode == 0 and "dry run" in dry.stderr, dry.stderr
    assert json.loads(dry.stdout)["parameters"]["records"] == 3
    assert _lines(records("topics", "read", target, "-o", "json")) == []

    done = records("topics", "produce", target, "--from", str(dump), "--format", "json", "--keep-timestamps",
                   "--keep-partitions", "--execute")
    assert done.returncode == 0 and "3 record(s) produced" in done.stderr, done.stderr
    back = _lines(records("topics", "read", target, "-o", "json"))
    strip = lambda r: {k: v for k, v in r.items() if k != "topic"}  # noqa: E731
    assert sorted(map(json.dumps, map(strip, back))) == sorted(map(json.dumps, map(strip, exported)))
    audit = [json.loads(line) for line in (records.state / "audit.jsonl").read_text().splitlines()]
    assert [(a["operation"], a["parameters"]["records"]) for a in audit] == [("topics.produce", 3)]
    assert "status" not in json.dumps(audit)  # counts, never payloads


def test_start_positions_and_filters(sandbox, records):
    topic = _topic(sandbox, partitions=2)
    _produce(sandbox, topic, [{"value": json.dumps({"status": 200 + (i % 3) * 100, "user": {"id": i}}).encode(),
                               "key": f"user-{i}".encode(), "partition": i % 2,
                               "headers": [("kind", b"odd" if i % 2 else b"even")]} for i in range(20)])
    offsets = lambda r: [(x["partition"], x["offset"]) for x in _lines(r)]  # noqa: E731
    assert sorted(offsets(records("topics", "read", topic, "--last", "2", "-o", "json"))) == \
        [(0, 8), (0, 9), (1, 8), (1, 9)]
    assert offsets(records("topics", "read", topic, "-p", "1", "--offset", "7", "--limit", "2", "-o", "json")) == \
        [(1, 7), (1, 8)]
    status_500 = _lines(records("topics", "read", topic, "--field", "status=400", "-o", "json"))
    assert {json.loads(x["value"])["status"] for x in status_500} == {400} and len(status_500) == 6
    assert len(_lines(records("topics", "read", topic, "--field", "user.id=7", "-o", "json"))) == 1
    assert len(_lines(records("topics", "read", topic, "--key", "user-1", "-o", "json"))) == 11  # 1, 10..19
    assert len(_lines(records("topics", "read", topic, "--header", "kind=odd", "-o", "json"))) == 10
    assert len(_lines(records("topics", "read", topic, "--value-regex", r'"id": 1\d\}', "-o", "json"))) == 10
    assert len(_lines(records("topics", "read", topic, "--from-time", "-1h", "--limit", "1000", "-o", "json"))) == 20
    raw = records("topics", "read", topic, "-p", "0", "--limit", "1", "-o", "raw")
    assert raw.stdout == '{"status": 200, "user": {"id": 0}}\n'
    csv_out = records("topics", "read", topic, "-p", "0", "--limit", "1", "-o", "csv")
    assert csv_out.stdout.splitlines()[0] == "partition,offset,timestamp,key,value,headers"


def test_secrets_and_configured_fields_are_masked_in_every_output(sandbox, records):
    topic = _topic(sandbox, partitions=1)
    _produce(sandbox, topic, [{"value": b'{"card_number": "4111111111111111", "password": "hunter2", "n": 1}',
                               "headers": [("Authorization", b"Bearer abc"), ("x-internal", b"s"),
                                           ("trace", b"t")]}])
    for output in ("json", "table", "csv", "raw"):
        result = records("topics", "read", topic, "-o", output)
        assert result.returncode == 0, result.stderr
        for secret in ("4111111111111111", "hunter2", "Bearer abc"):
            assert secret not in result.stdout, (output, result.stdout)
    line = _lines(records("topics", "read", topic, "-o", "json"))[0]
    assert json.loads(line["value"]) == {"card_number": "******", "password": "******", "n": 1}
    assert line["masked"] == ["headers.Authorization", "headers.x-internal", "value.card_number", "value.password"]
    assert line["headers"] == [{"key": "Authorization", "value": "******"}, {"key": "x-internal", "value": "******"},
                               {"key": "trace", "value": "t"}]


def test_peek_shows_the_record_at_the_committed_offset(sandbox, records):
    topic, group = _topic(sandbox, partitions=2), unique("peek")
    _produce(sandbox, topic, [{"value": f"r{i}".encode(), "partition": 0} for i in range(10)])
    commit(sandbox.bootstrap_servers, group, {(topic, 0): 5, (topic, 1): 0})
    views = json.loads(records("groups", "peek", group, "-o", "json").stdout)
    assert [(v["topic"], v["partition"], v["committed"], v["lag"]) for v in views] == [(topic, 0, 5, 5)]
    assert [(r["offset"], r["value"]) for r in views[0]["records"]] == [(5, "r5"), (6, "r6"), (7, "r7")]
    one = json.loads(records("groups", "peek", group, "--partition", f"{topic}:0", "--count", "1", "-o", "json").stdout)
    assert [r["offset"] for r in one[0]["records"]] == [5]
    assert group in _group_ids(sandbox)
    assert sandbox.admin().committed(group) == {(topic, 0): 5, (topic, 1): 0}  # peeking moved nothing


def test_produce_lines_with_keys_and_records_larger_than_the_topic_takes(sandbox, records):
    topic = _topic(sandbox, partitions=1, **{"max.message.bytes": 2000})
    ok = records("topics", "produce", topic, "--key-separator", ":", "--execute", stdin="a:1\nb:2\n")
    assert ok.returncode == 0, ok.stderr
    assert [(x["key"], x["value"]) for x in _lines(records("topics", "read", topic, "-o", "json"))] == \
        [("a", "1"), ("b", "2")]
    too_big = records("topics", "produce", topic, "--execute", stdin="small\n" + "x" * 5000 + "\n")
    # Refused in the plan, naming the line: the topic takes 2000 bytes; nothing is produced.
    assert too_big.returncode == 3, too_big.stderr
    assert re.fullmatch(rf"streamctl: error: input line 2: record of 5097 bytes, more than topic {topic} takes "
                        rf"\(max.message.bytes 2000\); nothing produced", too_big.stderr.strip()), too_big.stderr
    assert len(_lines(records("topics", "read", topic, "-o", "json"))) == 2
    audit = [json.loads(line) for line in (records.state / "audit.jsonl").read_text().splitlines()]
    assert [a["result"] for a in audit] == ["ok"]


@pytest.mark.parametrize("args, message", [
    (("topics", "read", "no-such-topic-x"), "no topic 'no-such-topic-x' in the cluster"),
    (("topics", "read", "{topic}", "-p", "7"), "has no partition 7 (partitions 0..2)"),
    (("topics", "read", "{topic}", "--offset", "99"), "--offset 99 is out of range for {topic}/0: valid offsets are 0..1"),
    (("topics", "read", "{topic}", "--from-time", "yesterday"), "--from-time 'yesterday': expected ISO 8601"),
    (("topics", "read", "{topic}", "--field", "nofield"), "--field 'nofield': expected PATH=VALUE"),
    (("topics", "read", "{topic}", "--value-regex", "("), "--value-regex '('"),
    (("topics", "read", "{topic}", "--last", "1", "--offset", "0"), "give one of --offset"),
    (("groups", "peek", "no-such-group-x"), "no consumer group 'no-such-group-x' in the cluster"),
    (("topics", "produce", "{topic}", "--format", "json", "--execute"), "stdin:1: not a record line"),
])
def test_bad_input_is_one_line(sandbox, records, args, message):
    topic = _topic(sandbox)
    _produce(sandbox, topic, [{"value": b"a", "partition": 0}, {"value": b"b", "partition": 0}])
    result = records(*[a.format(topic=topic) for a in args], stdin="{not json\n")
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message.format(topic=topic) in lines[0], result.stderr


def test_binary_and_huge_values_have_bounded_previews(sandbox, records):
    topic = _topic(sandbox, partitions=1, **{"max.message.bytes": 11 * 1024 * 1024})
    producer = ordered_producer(sandbox.bootstrap_servers, **{"message.max.bytes": 12 * 1024 * 1024})
    producer.produce(topic, value=BINARY, partition=0)
    producer.produce(topic, value=b"y" * (10 * 1024 * 1024), partition=0)
    assert producer.flush(60) == 0
    table = records("topics", "read", topic)
    assert table.returncode == 0, table.stderr
    assert "0x000102030405" in table.stdout
    assert max(len(line) for line in table.stdout.splitlines()) < 400
    read_back = _lines(records("topics", "read", topic, "-o", "json"))
    assert base64.b64decode(read_back[0]["value_b64"]) == BINARY and len(read_back[1]["value"]) == 10 * 1024 * 1024


def test_follow_prints_new_records_as_they_come_until_interrupted(sandbox, records, tmp_path):
    import signal
    import subprocess
    import threading
    import time

    from tests.conftest import STREAMCTL

    topic = _topic(sandbox, partitions=1)
    # SIGINT as a terminal delivers it: a suite started as a background job (`.ci/run &` in a
    # script) inherits SIGINT ignored, and so would the command, which then rightly keeps going.
    proc = subprocess.Popen([STREAMCTL, "--config", str(records.config), "topics", "read", topic, "--follow"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=sandbox.cli_env(XDG_STATE_HOME=str(tmp_path / "state")),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509 - signal only
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while not any("followed-7" in line for line in lines):  # produced until the reader has joined
            assert time.monotonic() < deadline and proc.poll() is None, (lines, proc.poll())
            _produce(sandbox, topic, [{"value": b"followed-7", "partition": 0}])
            time.sleep(1)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()  # not left running after the suite
            raise
    assert proc.returncode in (0, 130) and "Traceback" not in err, err
    assert lines[0].split("\t")[:2] == ["0", "0"] and lines[0].rstrip("\n").endswith("followed-7")


class _CountingConsumer:
    """The reader's real consumer, with how many messages each consume() asked for."""

    def __init__(self, consumer):
        self._consumer = consumer
        self.asked: list[int] = []

    def consume(self, num_messages, timeout):
        self.asked.append(num_messages)
        return self._consumer.consume(num_messages, timeout)

    def __getattr__(self, name):
        return getattr(self._consumer, name)


def test_a_read_asks_only_for_the_records_left_so_its_last_fetch_does_not_wait(sandbox):
    """consume() waits until it has as many messages as asked or its timeout: a read asking for
    a batch of 1,000 when 7 records are left waited a second for nothing (each `--last 1` took 1.4 s)."""
    from streamctl.backends.kafka.records import BATCH, RecordReader

    topic = _topic(sandbox, partitions=3)
    _produce(sandbox, topic, [{"value": b"v%d" % i, "partition": i % 3} for i in range(7)])
    with RecordReader({"bootstrap.servers": sandbox.bootstrap_servers}, timeout=10) as reader:
        counting = reader._consumer = _CountingConsumer(reader._consumer)
        read = [r for batch in reader.read_batches(topic, {0: 1, 1: 0, 2: 0}) for r in batch]

    assert sorted((r.partition, r.offset) for r in read) == [(0, 1), (0, 2), (1, 0), (1, 1), (2, 0), (2, 1)]
    assert counting.asked[0] == 6 and all(asked <= 6 for asked in counting.asked) and BATCH > 6
