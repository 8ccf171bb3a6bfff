"""Every parser, fed arbitrary and near-valid input: it parses, or raises its documented error.

| parser                                   | documented outcome for bad input                  |
| config.load_config                       | ConfigError (one line: file, line, key)           |
| flume_config.read / flume_lint           | UsageError for an unreadable file; else Problems  |
| backends.flume.decode / parse / status   | FlumeError (decode); parse and status never raise |
| zookeeper_data.decode_data               | never raises (json, text, binary or empty)        |
| zookeeper_data.validate_path / PathGlob  | UsageError                                        |
| zk_kafka.parse_*                         | zk_kafka.PAYLOAD_ERRORS (listed in the view)      |
| zookeeper_ensemble.merge_answers         | never raises; parse_hosts: UsageError             |
| spark.read_checkpoint                    | problems in the result (dir exists), never raises |
| spark.read_progress_tail                 | skipped lines, never raises                       |
| ops.offsets parse_* / _read              | UsageError                                        |
| ops.topics parse_configs / validate_*    | UsageError                                        |
| ops.audit.read                           | StreamctlError naming the line                    |
| flume_history.History / launcher._load   | starts over / StreamctlError                      |
"""

from __future__ import annotations

import json
import tempfile
from contextlib import contextmanager
from datetime import UTC, timedelta
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamctl import config, times
from streamctl.backends import flume, spark, zookeeper_data, zookeeper_ensemble
from streamctl.errors import StreamctlError, UsageError
from streamctl.flume import definition as flume_config
from streamctl.flume import lint as flume_lint
from streamctl.flume.health import flume_health
from streamctl.flume.history import History
from streamctl.kafka.groups import offsets
from streamctl.kafka.topics import plans as topics
from streamctl.ops import audit
from streamctl.spark import jobs as spark_jobs
from streamctl.spark import launcher
from streamctl.thresholds import Thresholds
from streamctl.zookeeper import kafka_znodes as zk_kafka

# Example counts scale with the loaded Hypothesis profile: 200 and 80 in the full suite (the default
# profile's 100), a quarter of that in `make test-fast` (profile "fast", tests/conftest.py).
EXAMPLES = settings.default.max_examples
FAST = settings(max_examples=2 * EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=4 * EXAMPLES // 5, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SCRATCH = Path(tempfile.mkdtemp(prefix="streamctl-badinput-"))  # one file per parser, rewritten per example


@contextmanager
def refused_in_one_line(error: type[Exception] = UsageError):
    """The block either runs through or raises `error` with a one-line message; anything else
    (another exception, a failed assertion) fails the test."""
    try:
        yield
    except error as exc:
        assert "\n" not in str(exc), str(exc)


def scratch(name: str, content: str | bytes) -> Path:
    path = SCRATCH / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    else:
        path.write_bytes(content)
    return path


# ---- shared strategies -------------------------------------------------------------------------

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=20)


def deep(opening: str, closing: str) -> st.SearchStrategy[str]:
    """Nesting far deeper than any real input (recursive parsers' stack)."""
    return st.integers(400, 5000).map(lambda n: opening * n + closing * n)


def mutated(text: str) -> st.SearchStrategy[str]:
    """`text` with a few characters deleted, replaced or inserted."""
    def edit(draw_ops):
        out = text
        for position, kind, char in draw_ops:
            i = position % (len(out) + 1)
            out = out[:i] + char + out[i + 1:] if kind == "replace" else \
                out[:i] + out[i + 1:] if kind == "delete" else out[:i] + char + out[i:]
        return out
    ops = st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(["replace", "delete", "insert"]),
                             st.characters()), min_size=1, max_size=6)
    return ops.map(edit)


# ---- config files --------------------------------------------------------------------------------

VALID_CONFIG = """\
current-context: prod
contexts:
  prod:
    read_only: true
    kafka:
      bootstrap_servers: kafka1:9092,kafka2:9092
      timeout: 10
      properties: {security.protocol: SASL_SSL, sasl.password: "${NO_SUCH_VAR_X}"}
    zookeeper: {hosts: "zk1:2181,zk2:2181/kafka", timeout: 4, admin_url: "http://{host}:8080/commands"}
    flume:
      agents:
        weblogs: {metrics_url: "http://flume1:41414/metrics"}
    spark:
      jobs:
        weblog-stats: {checkpoint_dir: /data/cp, ui_url: "http://spark:4040"}
    thresholds: {lag_records_warn: 1000, lag_records_crit: 100000}
    include: {topics: ["*"], groups: ["*"]}
"""

SECTIONS = {
    "kafka": ["bootstrap_servers", "timeout", "properties", "expected_brokers"],
    "zookeeper": ["hosts", "timeout", "chroot", "admin_url", "auth", "tls"],
    "flume": ["agents"],
    "spark": ["jobs"],
    "thresholds": ["lag_records_warn", "lag_seconds_crit", "channel_fill_warn_pct", "min_brokers_crit"],
    "include": ["topics", "groups"],
}


@st.composite
def near_valid_config(draw) -> str:
    """A valid file with one value (or section) replaced by an arbitrary YAML value."""
    data = yaml.safe_load(VALID_CONFIG.replace("${NO_SUCH_VAR_X}", "pw"))
    context = data["contexts"]["prod"]
    section = draw(st.sampled_from(sorted(SECTIONS)))
    value = draw(json_values | st.sampled_from(["${HOME}", "${file:/nonexistent}", "${", "$${x}", "${a\nb}", "h:0",
                                                "h:99999", "http://[::1", "http://h:x/", "http:///m"]))
    if draw(st.booleans()):
        context[section] = value
    else:
        target = context.setdefault(section, {}) if isinstance(context.get(section), dict) else {}
        target[draw(st.sampled_from(SECTIONS[section]))] = value
        context[section] = target
    return yaml.safe_dump(data, allow_unicode=True)


def _load(text: str | bytes) -> None:
    path = scratch("config.yaml", text)
    try:
        loaded = config.load_config(path)
        ctx = loaded.context()
    except config.ConfigError as exc:
        assert "\n" not in str(exc) and str(exc)
        assert "Traceback" not in str(exc)
        return
    # What loads is usable: a ZooKeeper connect string kazoo accepts, URLs httpx accepts.
    if ctx.zookeeper is not None:
        from kazoo.client import KazooClient

        KazooClient(hosts=ctx.zookeeper.hosts).close()
    import httpx

    for agent in ctx.flume.agents.values():
        httpx.URL(agent.metrics_url)


@FAST
@given(st.text())
def test_config_any_text(text):
    _load(text)


@FAST
@given(st.binary())
def test_config_any_bytes(data):
    _load(data)


@FAST
@given(near_valid_config() | mutated(VALID_CONFIG))
def test_config_near_valid(text):
    _load(text)


@settings(max_examples=10, deadline=None)
@given(deep("[", "]").map(lambda s: "a: " + s)
       | st.integers(300, 700).map(lambda n: "".join(" " * i + "k:\n" for i in range(n))))
def test_config_nested_deeply(text):
    _load(text)


@SLOW
@given(st.dictionaries(st.sampled_from(["socket.timeout.ms", "no.such.prop", "security.protocol", "acks",
                                        "client.id", "debug", "sasl.mechanism", "error_cb",
                                        "default.topic.config", "delivery.report.only.error"]) | st.text(max_size=10),
                       st.text(max_size=10) | st.integers().map(str), max_size=3),
       st.floats(min_value=1e-9, max_value=1e12))
def test_kafka_client_from_any_loaded_config_is_built_or_refused_in_one_line(properties, timeout):
    from streamctl.backends.kafka.cluster import KafkaBackend
    from streamctl.backends.kafka.record_times import probe_consumer

    text = yaml.safe_dump({"current-context": "p", "contexts": {"p": {"kafka": {
        "bootstrap_servers": "127.0.0.1:9", "timeout": timeout, "properties": properties}}}})
    with refused_in_one_line():
        ctx = config.load_config(scratch("kafka.yaml", text)).context()
        backend = KafkaBackend(ctx.kafka.client_config(), timeout=ctx.kafka.timeout)
        probe_consumer(backend.client_config, backend.timeout).close()  # the snapshot's consumer: same settings


# ---- Flume properties --------------------------------------------------------------------------

FLUME_WORDS = ["a1", "a2", "a\\nb", "\\u0041", "\\t", "sources", "channels", "sinks", "sinkgroups", "configfilters",
               "r1", "c1", "k1",
               "g1", "type", "channel", "selector", "interceptors", "i1", "filegroups", "f1", "processor",
               "priority", "mapping", "default", "optional", "TAILDIR", "memory", "file", "logger",
               "org.apache.flume.sink.kafka.KafkaSink", "failover", "multiplexing", "timestamp", "port",
               "bind", "capacity", "kafka.bootstrap.servers", ""]


@st.composite
def flume_lines(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 25))):
        key = ".".join(draw(st.lists(st.sampled_from(FLUME_WORDS), min_size=1, max_size=5)))
        value = " ".join(draw(st.lists(st.sampled_from(FLUME_WORDS), max_size=3)))
        sep = draw(st.sampled_from(["=", " = ", ":", " ", "\t", "=\\\n  ", "\\u00", "\\"]))
        prefix = draw(st.sampled_from(["", "", "  ", "#", "!"]))
        lines.append(f"{prefix}{key}{sep}{value}")
    return draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines)


def _lint(text: str) -> None:
    problems = flume_lint.lint_text(text)
    total_lines = len(text.splitlines()) + 1
    for problem in problems:
        line = problem.format("f")
        assert "\n" not in line and 1 <= problem.line <= total_lines + 1, line


@FAST
@given(st.text())
def test_flume_lint_any_text(text):
    _lint(text)


@FAST
@given(flume_lines() | st.text(alphabet="a1.sourceschannelsinktype=:#!\\ \t\r\nu0123456789", max_size=200))
def test_flume_lint_near_valid(text):
    _lint(text)


@FAST
@given(st.binary(max_size=300))
def test_flume_properties_file_any_bytes(data):
    try:
        parsed = flume_config.read(scratch("agent.properties", data))
    except UsageError as exc:
        assert "\n" not in str(exc)
        return
    flume_lint.lint(parsed)


# ---- Flume metrics JSON ---------------------------------------------------------------------------

COUNTERS = ["ChannelSize", "ChannelCapacity", "ChannelFillPercentage", "EventPutSuccessCount",
            "EventTakeSuccessCount", "EventReceivedCount", "EventAcceptedCount", "EventDrainSuccessCount",
            "StartTime", "StopTime", "Type", "Open", "Unhealthy", "ConnectionFailedCount", "RollbackCount"]
counter_values = st.integers().map(str) | st.floats().map(str) | st.sampled_from(
    ["", "NaN", "-1", "1e400", "1e-320", "true", "abc"]) | json_values
component_keys = st.builds(lambda kind, name: f"{kind}.{name}",
                           st.sampled_from(["SOURCE", "CHANNEL", "SINK", "OTHER", ""]),
                           st.sampled_from(["r1", "c1", "k1", "", "."])) | st.text(max_size=8)
metrics_docs = st.dictionaries(component_keys, st.dictionaries(st.sampled_from(COUNTERS) | st.text(max_size=6),
                                                               counter_values, max_size=8), max_size=5)


def _metrics(body: bytes, baseline_body: bytes | None = None) -> None:
    url = "http://agent/metrics"
    try:
        payload = flume.decode(body, url)
    except flume.FlumeError as exc:
        assert "\n" not in str(exc)
        return
    current = flume.parse(payload, taken_at=1000.0)
    baseline = None
    if baseline_body is not None:
        try:
            baseline = flume.parse(flume.decode(baseline_body, url), taken_at=990.0)
        except flume.FlumeError:
            baseline = None
    status = flume.status("a", url, current, baseline, {"r1": 900.0})
    json.dumps(flume.status_dict(status))
    flume_health([status], Thresholds())


@FAST
@given(st.binary())
def test_flume_metrics_any_bytes(body):
    _metrics(body)


@FAST
@given(metrics_docs, metrics_docs)
def test_flume_metrics_near_valid(doc, before):
    _metrics(json.dumps(doc).encode(), json.dumps(before).encode())


@FAST
@given(json_values | deep("[", "]") | deep('{"a":', "}").map(lambda s: s.replace("}", "1}", 1)))
def test_flume_metrics_other_json(doc):
    _metrics(doc.encode() if isinstance(doc, str) else json.dumps(doc).encode())


# ---- ZooKeeper payloads ----------------------------------------------------------------------------

@FAST
@given(st.binary(max_size=2000) | deep("[", "]").map(str.encode) | st.text().map(str.encode),
       st.integers(1, 3000))
def test_znode_data_always_decodes(data, limit):
    decoded = zookeeper_data.decode_data(data, limit=limit)
    assert decoded.kind in ("empty", "json", "text", "binary")
    assert decoded.size == len(data) and decoded.shown <= decoded.size


@FAST
@given(st.text() | st.text(alphabet="/.a\x00\x01 ", max_size=20))
def test_znode_paths_and_globs(text):
    with refused_in_one_line():
        assert zookeeper_data.validate_path(text) == text
    try:
        glob = zookeeper_data.PathGlob(text)
    except UsageError:
        return
    glob.matches("/brokers/ids/1")
    glob.matches("/")
    glob.may_match_below(3)


KAFKA_ZNODE_KEYS = ["version", "host", "port", "endpoints", "listener_security_protocol_map", "jmx_port",
                    "timestamp", "rack", "features", "partitions", "adding_replicas", "removing_replicas",
                    "topic_id", "leader", "leader_epoch", "isr", "controller_epoch", "leader_recovery_state",
                    "brokerid", "kraftControllerEpoch", "topic", "partition", "replicas"]
znode_values = json_values | st.sampled_from([float("inf"), -1, 2**63, "PLAINTEXT://h:1", "SSL://[::1]:x",
                                              ["PLAINTEXT://h:9092"], {"0": [1, 2]}, [{"topic": "t"}]])
kafka_znode_docs = st.dictionaries(st.sampled_from(KAFKA_ZNODE_KEYS), znode_values, max_size=8)


def _kafka_payload(data: bytes) -> None:
    for parse in (lambda: zk_kafka.parse_broker(1, data), lambda: zk_kafka.parse_topic("t", data),
                  lambda: zk_kafka.parse_partition_state("t", 0, data), lambda: zk_kafka.parse_controller(data),
                  lambda: zk_kafka.parse_reassignment(data), lambda: zk_kafka.parse_preferred_election(data)):
        try:
            parse()
        except zk_kafka.PAYLOAD_ERRORS:
            pass


@FAST
@given(kafka_znode_docs)
def test_kafka_znode_payloads_near_valid(doc):
    _kafka_payload(json.dumps(doc).encode())


@FAST
@given(st.binary(max_size=300) | deep("[", "]").map(str.encode))
def test_kafka_znode_payloads_any_bytes(data):
    _kafka_payload(data)


SRVR_KEYS = ["Zookeeper version", "Latency min/avg/max", "Received", "Sent", "Connections", "Outstanding",
             "Zxid", "Mode", "Node count"]


@st.composite
def four_letter_answers(draw) -> str:
    keys = st.sampled_from(SRVR_KEYS) | st.text(max_size=6)
    separators = st.sampled_from([": ", ":", "\t", " "])
    values = st.sampled_from(["1/2/3", "0/0.5/x", "1/2", "standalone", "0x1f", "zz", "", "-1"]) | st.text(max_size=8)
    lines = [draw(keys) + draw(separators) + draw(values) for _ in range(draw(st.integers(0, 8)))]
    return "\n".join(lines)


@FAST
@given(four_letter_answers() | st.text(), four_letter_answers() | st.text(), st.text(max_size=10),
       json_values, json_values)
def test_zookeeper_server_answers(srvr, mntr, ruok, admin_srvr, admin_monitor):
    answers = {"srvr": srvr, "mntr": mntr, "ruok": ruok}
    for command, doc in (("admin/srvr", admin_srvr), ("admin/monitor", admin_monitor)):
        if isinstance(doc, dict):
            answers[command] = doc
    health = zookeeper_ensemble.merge_answers("zk:2181", answers, admin_configured=True)
    assert health.reachable


@FAST
@given(st.text() | st.text(alphabet="[]:,/a1", max_size=20))
def test_zookeeper_connect_strings(hosts):
    try:
        servers, _ = zookeeper_ensemble.parse_hosts(hosts)
    except UsageError as exc:
        assert "\n" not in str(exc)
        return
    assert servers and all(isinstance(port, int) for _, port in servers)


# ---- Spark checkpoint files --------------------------------------------------------------------------

checkpoint_lines = st.sampled_from(["v1", "v2", "v9", "", "-", "\x00v1", '{"batchWatermarkMs":1e999}',
                                    '{"batchWatermarkMs":99999999999999999999}', '{"t":{"0":5}}',
                                    '{"t":{"²":5}}', '{"t":[1]}', "[]", "{", '{"id":"q"}', '{"id":null}',
                                    '{"nextBatchWatermarkMs":"x"}']) | st.text(max_size=30)
checkpoint_files = st.lists(checkpoint_lines, max_size=6).map("\n".join).map(str.encode) | st.binary(max_size=200) \
    | deep("[", "]").map(lambda s: ("v1\n{}\n" + s).encode())


@SLOW
@given(st.dictionaries(st.sampled_from(["metadata", "offsets/0", "offsets/7", "offsets/.7.crc", "offsets/²",
                                        "commits/7", "commits/9", "commits/0", "sources/0/0", "sources/1/0"]),
                       checkpoint_files, max_size=7))
def test_checkpoint_files(files):
    root = Path(tempfile.mkdtemp(dir=SCRATCH))
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(content)
    status = spark.read_checkpoint(root)
    assert all("\n" not in p for p in status.problems)
    json.dumps(spark_jobs.checkpoint_dict(status))


progress_events = st.fixed_dictionaries({"event": st.sampled_from(["progress", "idle", "started", 5])},
                                        optional={"batchId": json_values, "numInputRows": json_values,
                                                  "inputRowsPerSecond": json_values,
                                                  "processedRowsPerSecond": json_values,
                                                  "batchDuration": json_values, "eventTime": json_values,
                                                  "id": json_values, "timestamp": json_values})


@FAST
@given(st.lists(progress_events.map(json.dumps) | st.text(max_size=40), max_size=8), st.integers(64, 4096))
def test_progress_file(lines, max_bytes):
    path = scratch("progress.jsonl", "\n".join(lines).encode("utf-8", "surrogatepass"))
    tail = spark.read_progress_tail(path, max_bytes=max_bytes, query_id=None)
    assert tail is not None and tail.skipped_lines >= 0


# ---- offsets CSV and the other operator input of `groups reset-offsets` -------------------------------------

csv_cells = st.sampled_from(["t", "g", "0", "-1", "5", "x", "", " 7 ", "99999999999999999999", '"t,1"', "\x00",
                             "\ufeff"]) | st.text(max_size=6)
csv_rows = st.lists(st.lists(csv_cells, min_size=0, max_size=5).map(",".join), max_size=6).map("\n".join)


@FAST
@given(st.text() | csv_rows)
def test_offsets_csv(text):
    try:
        parsed = offsets.parse_offsets_csv(text, "g", "f.csv")
    except UsageError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("f.csv")
        return
    assert parsed and all(isinstance(v, int) and p >= 0 for (_, p), v in parsed.items())


@FAST
@given(st.binary(max_size=200))
def test_offsets_file_any_bytes(data):
    path = scratch("offsets.csv", data)
    with refused_in_one_line():
        offsets.parse_offsets_csv(offsets._read(str(path)), "g", str(path))


@FAST
@given(st.text(max_size=40) | st.from_regex(r"\d{1,5}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?(Z|[+-]\d{2}:?\d{2})?",
                                             fullmatch=True))
def test_datetimes(text):
    with refused_in_one_line():
        assert isinstance(times.parse_datetime(text), int)


@FAST
@given(st.text(max_size=30) | st.from_regex(r"[Pp](\d{1,25}D)?([Tt](\d{1,25}H)?(\d{1,25}M)?(\d{1,25}(\.\d{1,9})?S)?)?",
                                            fullmatch=True))
def test_durations(text):
    with refused_in_one_line():
        assert isinstance(times.parse_duration(text), timedelta)


@FAST
@given(st.text(max_size=30) | st.from_regex(r"-?\d{1,14}[smhdx]|-?[Pp](\d{1,25}D)?([Tt](\d{1,25}H)?(\d{1,25}M)?)?"
                                            r"|\d{1,5}-\d{2}-\d{2}(T\d{2}:\d{2})?", fullmatch=True))
def test_times_for_every_time_option(text):
    with refused_in_one_line():
        assert times.parse_time(text, "--since") >= 0


@FAST
@given(st.lists(st.text(max_size=12) | st.from_regex(r"[a-z]{0,3}(:[-\d, a]{0,12})?", fullmatch=True), max_size=4))
def test_topic_specs(specs):
    with refused_in_one_line():
        for topic, partitions in offsets.parse_topic_specs(tuple(specs)):
            assert topic and (partitions is None or all(p >= 0 for p in partitions))


@FAST
@given(st.text(max_size=300), st.lists(st.text(max_size=20) | st.sampled_from(
    ["retention.ms=1h", "cleanup.policy=purge", "preallocate=yes", "min.cleanable.dirty.ratio=x", "=1", "a"]),
    max_size=4))
def test_topic_names_and_configs(name, pairs):
    for check in (lambda: topics.validate_name(name),
                  lambda: topics.validate_configs(topics.parse_configs(pairs), {"retention.ms"})):
        with refused_in_one_line():
            check()


# ---- streamctl's own state files (damaged by hand or by a full disk) ---------------------------------

audit_lines = st.sampled_from(['{"time": "2026-01-01T00:00:00"}', '{"time": "0001-01-01T00:00:00"}',
                               json.dumps({"time": "2026-01-01T00:00:00+00:00", "user": "u", "context": "c",
                                           "operation": "o", "summary": "s", "result": "ok"}),
                               "[]", "{", '"x"', '{"time": 5}']) | st.text(max_size=30)


@FAST
@given(st.lists(audit_lines, max_size=5).map("\n".join).map(str.encode) | st.binary(max_size=100))
def test_audit_log(data):
    from datetime import datetime

    path = scratch("audit.jsonl", data)
    with refused_in_one_line(StreamctlError):
        list(audit.read(datetime(2025, 1, 1, tzinfo=UTC), path=path))


@FAST
@given(st.binary(max_size=200) | json_values.map(json.dumps).map(str.encode)
       | st.fixed_dictionaries({"version": st.just(1), "url": st.just("http://a/metrics"),
                                "polls": json_values, "sources": json_values}).map(json.dumps).map(str.encode))
def test_flume_history_file(data):
    history = History(scratch("history.json", data), "http://a/metrics")
    history.baseline(1000.0)


@FAST
@given(st.binary(max_size=200) | json_values.map(json.dumps).map(str.encode))
def test_job_state_files(data):
    path = scratch("jobs/x/spec.json", data)
    for cls in (launcher.JobSpec, launcher.RunRecord):
        with refused_in_one_line(StreamctlError):
            launcher._load(path, cls)

