"""`check` never lies, in process: a component named that the context does not configure is
UNKNOWN (never OK), a collector that raises is UNKNOWN naming the log holding its traceback, and
a check that could not run at all still answers in every format asked. No services: the
contexts point at loopback ports nothing listens on."""

from __future__ import annotations

import json
import re
import socket

import pytest

from streamctl import cli, paths
from streamctl.check import errorlog, evaluate
from streamctl.check.command import Outputs
from streamctl.check.render import render_json, render_nagios, render_prometheus
from streamctl.config import Config
from streamctl.errors import StreamctlError
from streamctl.model.health import Evaluation, Severity
from tests import repo
from tests.check_outputs import samples, schema_errors

EXCEPTION_NAME = re.compile(r"\b[A-Z][a-zA-Z]+(Error|Exception)\b|Traceback")
SYSTEMS = ("zookeeper", "flume", "spark", "connect")
NOW = 1714564800.0


def dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def sections(port: int) -> dict[str, dict]:
    """Every optional section, each pointing at a port nothing listens on."""
    return {"zookeeper": {"hosts": f"127.0.0.1:{port}", "timeout": 1},
            "flume": {"agents": {"a": {"metrics_url": f"http://127.0.0.1:{port}/metrics"}}},
            "spark": {"masters": [f"http://127.0.0.1:{port}"], "timeout": 1},
            "connect": {"urls": [f"http://127.0.0.1:{port}"], "timeout": 1}}


def context(name: str = "prod", without: tuple[str, ...] = SYSTEMS, **extra):
    port = dead_port()
    body = {"kafka": {"bootstrap_servers": f"127.0.0.1:{port}", "timeout": 1}, **extra}
    body.update({system: section for system, section in sections(port).items() if system not in without})
    return Config.model_validate({"contexts": {name: body}}).context(name)


@pytest.fixture(autouse=True)
def state_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


# ---- a component the context does not configure -------------------------------------------------

SECTION_REASONS = {
    "zookeeper": "context 'prod' has no zookeeper section",
    "flume": "context 'prod' has no flume section (flume.agents)",
    "spark": "context 'prod' has no spark section (spark.jobs or spark.masters)",
    "connect": "context 'prod' has no connect section",
}


def test_kafka_only_context_names_every_missing_section_and_is_unknown():
    evaluation = evaluate.evaluate(context(), list(SYSTEMS), 5)
    assert evaluation.severity is Severity.UNKNOWN and evaluation.evaluated == []
    assert evaluation.unevaluated == SECTION_REASONS
    assert evaluate.configured_components(context()) == ["kafka"]


@pytest.mark.parametrize("missing", SYSTEMS)
def test_each_section_missing_in_turn_is_unknown_with_its_reason(missing):
    ctx = context(without=(missing,))
    assert missing not in evaluate.configured_components(ctx)
    assert set(evaluate.configured_components(ctx)) == {"kafka", *SYSTEMS} - {missing}
    evaluation = evaluate.evaluate(ctx, [missing], 5)
    assert evaluation.unevaluated == {missing: SECTION_REASONS[missing]}
    assert evaluation.severity is Severity.UNKNOWN
    assert render_nagios(evaluation).startswith(f"STREAMCTL UNKNOWN: {missing} not evaluated: {SECTION_REASONS[missing]}")


def test_a_partial_section_is_not_configured():
    """A `spark:` or `flume:` section that names nothing to watch reads as missing, not as OK."""
    ctx = context(spark={"timeout": 3}, flume={"agents": {}})
    evaluation = evaluate.evaluate(ctx, ["spark", "flume"], 5)
    assert evaluation.unevaluated == {"spark": SECTION_REASONS["spark"], "flume": SECTION_REASONS["flume"]}


def test_opt_in_components_run_only_when_named():
    ctx = context(without=())
    assert set(evaluate.configured_components(ctx)) == {"kafka", *SYSTEMS}
    for name in ("quorum", "pipeline", "probe"):
        assert name in evaluate.OPT_IN and evaluate.unconfigured_reason(ctx, name) is None


# ---- a collector that raises ------------------------------------------------------------------------

def test_a_collector_that_raises_is_unknown_naming_the_log_that_keeps_its_traceback(monkeypatch, state_home):
    from streamctl.spark import collect as spark

    def broken(ctx, deadline_at, **options):
        return {}["no-such-key-in-the-spark-collector"]

    monkeypatch.setattr(spark, "collect", broken)
    evaluation = evaluate.evaluate(context(without=()), ["spark"], 5)
    log = state_home / "streamctl" / "check-errors.log"
    assert log == paths.check_error_log()
    assert evaluation.unevaluated == {"spark": f"internal error in the spark collector; traceback in {log}"}
    for text in (render_nagios(evaluation), render_json(evaluation, NOW), render_prometheus(evaluation, NOW)):
        assert not EXCEPTION_NAME.search(text), text
    kept = log.read_text()
    assert "internal error in the spark collector (context 'prod'" in kept
    assert "Traceback (most recent call last)" in kept and "no-such-key-in-the-spark-collector" in kept
    assert "in broken" in kept and (log.stat().st_mode & 0o777) == 0o600


def test_an_expected_failure_a_collector_lets_through_keeps_its_own_words(monkeypatch):
    from streamctl.connect import collect as connect

    def refused(ctx, deadline_at, **options):
        raise StreamctlError("Connect worker http://c:8083: 401 unauthorized")

    monkeypatch.setattr(connect, "collect", refused)
    evaluation = evaluate.evaluate(context(without=()), ["connect"], 5)
    assert evaluation.unevaluated == {"connect": "Connect worker http://c:8083: 401 unauthorized"}


def test_a_log_that_cannot_be_written_is_said_without_an_exception_name(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    reason = errorlog.internal_error("the spark collector", "prod", KeyError("x"), blocker / "check-errors.log")
    assert reason.startswith(f"internal error in the spark collector (its traceback could not be kept: "
                             f"{blocker}/check-errors.log: ")
    assert not EXCEPTION_NAME.search(reason)


def test_the_log_keeps_one_older_file_past_its_size(tmp_path, monkeypatch):
    log = tmp_path / "check-errors.log"
    monkeypatch.setattr(errorlog, "MAX_BYTES", 100)
    for n in range(3):
        errorlog.internal_error("check", "prod", ValueError(f"entry {n}"), log)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["check-errors.log", "check-errors.log.1"]
    assert "entry 2" in log.read_text() and "entry 1" in (tmp_path / "check-errors.log.1").read_text()


def test_a_bug_outside_the_collectors_is_unknown_in_the_format_asked(monkeypatch, tmp_path, capsys, state_home):
    """The command's own guard: exit 3 (never 1, which Nagios reads as WARNING), the log named."""
    from streamctl.check import command

    def broken(*args, **kwargs):
        raise IndexError("a bug in check")

    config = tmp_path / "c.yaml"
    config.write_text(f"current-context: p\ncontexts:\n  p:\n    kafka: {{bootstrap_servers: '127.0.0.1:{dead_port()}'}}\n")
    monkeypatch.setattr(command, "_evaluate", broken)
    assert cli.main(["--config", str(config), "check", "-o", "json"]) == 3
    out, err = capsys.readouterr()
    doc = json.loads(out)
    reason = f"internal error in check; traceback in {state_home}/streamctl/check-errors.log"
    assert (doc["state"], doc["exit_code"], doc["summary"]) == ("UNKNOWN", 3, reason)
    assert err == f"streamctl: error: {reason}\n"
    assert "a bug in check" in (state_home / "streamctl" / "check-errors.log").read_text()


# ---- a check that could not run at all -------------------------------------------------------------

FAILED = Evaluation(failure="no context 'nope' in /etc/streamctl.yaml (known: prod)")


def test_a_failure_renders_unknown_in_every_format():
    assert render_nagios(FAILED) == "STREAMCTL UNKNOWN: no context 'nope' in /etc/streamctl.yaml (known: prod)\n"
    doc = json.loads(render_json(FAILED, NOW))
    assert schema_errors(doc) == []
    assert (doc["state"], doc["exit_code"], doc["summary"]) == ("UNKNOWN", 3, FAILED.failure)
    assert doc["components"] == {"check": {"state": "UNKNOWN", "evaluated": False, "reason": FAILED.failure}}
    found = samples(render_prometheus(FAILED, NOW))
    assert found[("streamctl_check_state", (("component", "check"),))] == 3
    assert found[("streamctl_check_up", (("component", "check"),))] == 0
    assert found[("streamctl_check_timestamp_seconds", ())] == NOW


@pytest.mark.parametrize(("words", "fmt", "textfile"), [
    (["--timeout", "abc", "--format", "json"], "json", None),
    (["--format=prometheus", "--component", "x"], "prometheus", None),
    (["-ojson"], "json", None),
    (["-o", "json", "--prometheus-textfile", "/t/s.prom"], "json", "/t/s.prom"),
    (["--prometheus-textfile=/t/s.prom"], None, "/t/s.prom"),
    (["--prometheus-textfile", "/t/s.prom", "--timeout"], None, "/t/s.prom"),
    (["-o", "xml"], "nagios", None),
    (["--component", "-o", "--timeout", "-ojson"], "nagios", None),  # values of other options
    (["--", "-o", "json"], "nagios", None),
])
def test_a_refused_command_line_is_read_for_what_it_asked(words, fmt, textfile):
    assert Outputs.from_words(words) == Outputs(fmt, textfile)


def test_a_textfile_alone_leaves_stdout_empty_unless_a_format_is_asked():
    assert Outputs.asked(None, "/t/s.prom") == Outputs(None, "/t/s.prom")
    assert Outputs.asked("nagios", "/t/s.prom") == Outputs("nagios", "/t/s.prom")
    assert Outputs.asked(None, None) == Outputs("nagios", None)


# ---- network failures in words --------------------------------------------------------------------

def test_failed_calls_to_a_closed_port_are_described_without_exception_names():
    import httpx
    import requests

    from streamctl.backends.failure import describe

    url = f"http://127.0.0.1:{dead_port()}/"
    failures = []
    for get in (lambda: httpx.get(url, timeout=2), lambda: requests.get(url, timeout=2)):
        try:
            get()
        except Exception as exc:  # noqa: BLE001 - the real exception each library raises
            failures.append(exc)
    assert [describe(exc) for exc in failures] == ["connection refused", "connection refused"]


@pytest.mark.parametrize(("error", "expected"), [
    (TimeoutError(), "timed out"),
    (socket.gaierror(-2, "Name or service not known"), "host name not resolved"),
    (OSError(), "os error"),
    (ConnectionResetError(104, "Connection reset by peer"), "[Errno 104] Connection reset by peer"),
    (RuntimeError("Caused by ProtocolError('Connection aborted.')"), "Caused by protocol error('Connection aborted.')"),
])
def test_describe_keeps_the_library_words_and_drops_class_names(error, expected):
    from streamctl.backends.failure import describe

    assert describe(error) == expected


# ---- the documented alert rules ---------------------------------------------------------------

def test_documented_alert_rules_parse_and_name_metrics_the_textfile_holds():
    import yaml

    text = (repo.ROOT / "docs" / "monitoring.md").read_text()
    [block] = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
    rules = [rule for group in yaml.safe_load(block)["groups"] for rule in group["rules"]]
    assert {r["alert"] for r in rules} >= {"StreamctlCheckStale", "StreamctlUnknown"}
    written = {name for name, _ in samples(render_prometheus(FAILED, NOW))}
    named = {m for r in rules for m in re.findall(r"\bstreamctl_\w+", r["expr"])}
    assert named and named <= written, named - written
    unknown = next(r for r in rules if r["alert"] == "StreamctlUnknown")
    assert unknown["expr"] == "streamctl_check_state == 3"
