"""The `streamctl check` renderers, fed hand-built Evaluations (no services involved)."""

from __future__ import annotations

import errno
import io
import json
import math
import os
import re
import subprocess
import sys

import pytest
from prometheus_client.parser import text_string_to_metric_families

from streamctl import atomic
from streamctl.check import render as check
from streamctl.check.render import exit_code, render_json, render_nagios, render_prometheus, write_prometheus_textfile
from streamctl.model.health import Evaluation, Finding, Metric, Severity
from tests.check_outputs import SCHEMA_PATH, VALIDATED, samples, schema_errors

NOW = 1714564800.0  # 2024-05-01T12:00:00Z

BROKER_DOWN = Finding(Severity.CRIT, "kafka", "broker 2", "KAFKA_BROKER_DOWN",
                      "broker 2 down (2 of 3 brokers)", 2)
URP = Finding(Severity.CRIT, "kafka", "cluster", "KAFKA_URP", "12 under-replicated partitions", 12)
LAG = Finding(Severity.WARN, "kafka", "group g1", "KAFKA_GROUP_LAG", "group g1 lags 5000 records", 5000)
ZK_OK = Finding(Severity.OK, "zookeeper", "ensemble", "ZK_SERVING", "3 of 3 servers serving")
AGENT_UNKNOWN = Finding(Severity.UNKNOWN, "flume", "agent a1", "FLUME_NO_METRICS", "agent a1 gave no metrics")


def evaluation(*findings: Finding, metrics=(), evaluated=("kafka", "zookeeper"),
               unevaluated=None) -> Evaluation:
    return Evaluation(findings=list(findings), metrics=list(metrics), evaluated=list(evaluated),
                      unevaluated=dict(unevaluated or {}))


def first_line(text: str) -> str:
    return text.splitlines()[0]


# ---- Nagios: status line, exit code, long text ----------------------------------------------

@pytest.mark.parametrize(("ev", "line", "code"), [
    (evaluation(ZK_OK), "STREAMCTL OK: kafka, zookeeper OK", 0),
    (evaluation(LAG, ZK_OK), "STREAMCTL WARNING: 1 warning: group g1 lags 5000 records", 1),
    (evaluation(LAG, URP, BROKER_DOWN),
     ("STREAMCTL CRITICAL: 2 critical, 1 warning: broker 2 down (2 of 3 brokers); "
     "12 under-replicated partitions; group g1 lags 5000 records"), 2),
    (evaluation(evaluated=(), unevaluated={"kafka": "no broker answered within 10s"}),
     "STREAMCTL UNKNOWN: kafka not evaluated: no broker answered within 10s", 3),
    (evaluation(AGENT_UNKNOWN, evaluated=("flume",)),
     "STREAMCTL UNKNOWN: 1 unknown: agent a1 gave no metrics", 3),
], ids=["ok", "warn", "crit", "unevaluated", "unknown-finding"])
def test_status_line_and_exit_code_per_state(ev, line, code):
    assert first_line(render_nagios(ev)) == line
    assert exit_code(ev) == code


@pytest.mark.parametrize(("severities", "unevaluated", "expected"), [
    ([], {}, Severity.OK),
    ([Severity.OK, Severity.UNKNOWN], {}, Severity.UNKNOWN),
    ([Severity.OK], {"spark": "timeout"}, Severity.UNKNOWN),
    ([Severity.UNKNOWN, Severity.WARN], {}, Severity.WARN),
    ([Severity.WARN], {"spark": "timeout"}, Severity.WARN),
    ([Severity.WARN, Severity.CRIT, Severity.UNKNOWN, Severity.OK], {}, Severity.CRIT),
])
def test_worst_of_combination(severities, unevaluated, expected):
    ev = evaluation(*(Finding(s, "kafka", f"o{i}", "X", f"t{i}") for i, s in enumerate(severities)),
                    unevaluated=unevaluated)
    words = {"OK": "OK", "WARN": "WARNING", "CRIT": "CRITICAL", "UNKNOWN": "UNKNOWN"}
    assert exit_code(ev) == expected.exit_code
    assert first_line(render_nagios(ev)).startswith(f"STREAMCTL {words[expected.value]}: ")
    assert json.loads(render_json(ev, NOW))["state"] == expected.value


def test_component_state_is_worst_of_its_findings_and_unknown_when_unevaluated():
    ev = evaluation(LAG, BROKER_DOWN, ZK_OK, AGENT_UNKNOWN, evaluated=("kafka", "zookeeper", "flume"),
                    unevaluated={"spark": "checkpoint dir unreadable"})
    assert {name: s.value for name, s in check.component_states(ev).items()} == {
        "kafka": "CRIT", "zookeeper": "OK", "flume": "UNKNOWN", "spark": "UNKNOWN"}


def test_long_text_lists_problems_worst_first_then_unevaluated_components():
    ev = evaluation(ZK_OK, LAG, URP, BROKER_DOWN, unevaluated={"spark": "deadline of 10s exceeded"})
    lines = render_nagios(ev).splitlines()
    assert lines[1:] == [
        "[CRIT] kafka broker 2: broker 2 down (2 of 3 brokers)",
        "[CRIT] kafka cluster: 12 under-replicated partitions",
        "[WARN] kafka group g1: group g1 lags 5000 records",
        "[UNKNOWN] spark not evaluated: deadline of 10s exceeded",
    ]
    assert lines[0].endswith("; spark not evaluated: deadline of 10s exceeded")


def test_pipes_and_newlines_in_texts_cannot_break_the_plugin_output():
    ev = evaluation(Finding(Severity.CRIT, "kafka", "topic a|b", "X", "bad | worse\nworst"),
                    metrics=[Metric("m", 1)])
    lines = render_nagios(ev).splitlines()
    assert len(lines) == 2
    assert lines[0] == "STREAMCTL CRITICAL: 1 critical: bad / worse worst | 'm'=1"
    assert "|" not in lines[1]


def test_output_ends_with_one_newline():
    ev = evaluation()
    for text in (render_nagios(ev), render_json(ev, NOW), render_prometheus(ev, NOW)):
        assert text.endswith("\n") and not text.endswith("\n\n")


# ---- Nagios: perfdata grammar ----------------------------------------------------------------

NUMBER = r"-?[0-9]+(?:\.[0-9]+)?"
RANGE = rf"@?(?:~|{NUMBER})?(?::(?:{NUMBER})?)?"
# Monitoring Plugins Development Guidelines: 'label'=value[UOM];[warn];[crit];[min];[max]; the
# label has no '=' and a quote is written as two; trailing empty fields may be dropped.
PERFDATUM = (rf"(?:'(?:[^'=]|'')+'|[^'= ]+)=(?:{NUMBER}(?:us|ms|s|%|[KMGT]?B|c)?|U)"
             rf"(?:;(?:{RANGE})(?:;(?:{RANGE})(?:;(?:{NUMBER})?(?:;(?:{NUMBER})?)?)?)?)?")
PERFDATA = re.compile(rf"{PERFDATUM}(?: {PERFDATUM})*")


@pytest.mark.parametrize(("metric", "expected"), [
    (Metric("brokers_online", 3.0, min=0, max=3, crit=2), "'brokers_online'=3;;2;0;3"),
    (Metric("urp", 12, warn=1, crit=10), "'urp'=12;1;10"),
    (Metric("plain", 7), "'plain'=7"),
    (Metric("kafka_brokers", 2, warn=3, crit=2, min=0, alert_below=True), "'kafka_brokers'=2;3:;2:;0"),
    (Metric("empty_thresholds", 5, min=0), "'empty_thresholds'=5;;;0"),
    (Metric("ratio", 0.25, uom="%", warn=80.5, crit=95), "'ratio'=0.25%;80.5;95"),
    (Metric("batch_duration", 1.5e-7, uom="s"), "'batch_duration'=0.00000015s"),
    (Metric("bytes", 1e20, uom="B"), "'bytes'=100000000000000000000B"),
    (Metric("negative_zero", -0.0), "'negative_zero'=0"),
    (Metric("unknown_value", math.nan, uom="s", warn=math.inf), "'unknown_value'=U"),
    (Metric("lag_records", 5000, labels={"group": "g1"}), "'lag_records_group:g1'=5000"),
    (Metric("lag_records", 5, labels={"group": "it's"}), "'lag_records_group:it''s'=5"),
    (Metric("lag_records", 5, labels={"group": "a=b c", "topic": "t"}),
     "'lag_records_group:a:b c_topic:t'=5"),
])
def test_perfdata_follows_the_guideline_grammar(metric, expected):
    rendered = check.perfdata(metric)
    assert rendered == expected
    assert PERFDATA.fullmatch(rendered), rendered


def test_status_line_carries_every_perfdata_metric_and_only_those():
    metrics = [Metric("brokers_online", 2, crit=2, min=0, max=3), Metric("ratio", 99.5, uom="%"),
               Metric("lag_records", 5, labels={"group": "it's"}),
               Metric("partition_lag", 7, labels={"topic": "t", "partition": "0"}, perfdata=False)]
    line = first_line(render_nagios(evaluation(LAG, metrics=metrics)))
    status, perf = line.split(" | ")
    assert status == "STREAMCTL WARNING: 1 warning: group g1 lags 5000 records"
    assert PERFDATA.fullmatch(perf), perf
    assert perf == "'brokers_online'=2;;2;0;3 'ratio'=99.5% 'lag_records_group:it''s'=5"
    assert not PERFDATA.fullmatch("'a=b'=1"), "the grammar regex must reject '=' in a label"


def test_no_perfdata_means_no_pipe():
    assert "|" not in render_nagios(evaluation(URP))


# ---- Nagios: summary truncation ---------------------------------------------------------------

def test_summary_truncates_the_problem_list_and_counts_the_rest():
    findings = [Finding(Severity.CRIT, "kafka", f"topic t{i:02}", f"CODE_{i:02}",
                        f"topic t{i:02} has offline partitions") for i in range(20)]
    line = first_line(render_nagios(evaluation(*findings)))
    head = "STREAMCTL CRITICAL: 20 critical: "
    assert line.startswith(head)
    match = re.fullmatch(r"(.*) … and (\d+) more", line.removeprefix(head))
    assert match, line
    shown = match.group(1).split("; ")
    assert shown == [f.text for f in findings[: len(shown)]]
    assert 1 < len(shown) < 20 and len(shown) + int(match.group(2)) == 20
    assert len(line) <= len(head) + check.SUMMARY_LIMIT
    assert len(render_nagios(evaluation(*findings)).splitlines()) == 21  # the long text keeps them all


def test_summary_collapses_findings_of_one_code_so_the_others_stay_on_the_first_line():
    lagging = [Finding(Severity.WARN, "kafka", f"group g{i:02}", "KAFKA_GROUP_LAG", f"group g{i:02} lags 9 records, 258 s")
               for i in range(22)]
    silent = Finding(Severity.UNKNOWN, "kafka", "broker 2", "KAFKA_BROKER_SILENT",
                     "broker 2 at 127.0.0.1:9093 did not answer within 0.8 s (still registered)")
    line = first_line(render_nagios(evaluation(*lagging, silent)))
    assert line == ("STREAMCTL WARNING: 22 warning, 1 unknown: group g00 lags 9 records, 258 s "
                    "(+21 more KAFKA_GROUP_LAG); broker 2 at 127.0.0.1:9093 did not answer within 0.8 s "
                    "(still registered)")
    assert len(render_nagios(evaluation(*lagging, silent)).splitlines()) == 24  # each still on its own line


def test_summary_clips_one_overlong_text():
    line = first_line(render_nagios(evaluation(Finding(Severity.WARN, "kafka", "x", "X", "y" * 500))))
    assert line == "STREAMCTL WARNING: 1 warning: " + "y" * (check.SUMMARY_LIMIT - 1) + "…"


def test_nothing_evaluated_is_unknown_not_ok():
    empty = evaluation(evaluated=())
    assert first_line(render_nagios(empty)) == "STREAMCTL UNKNOWN: no component evaluated"
    assert check.exit_code(empty) == 3


# ---- JSON ---------------------------------------------------------------------------------------

FULL = evaluation(ZK_OK, LAG, BROKER_DOWN,
                  metrics=[Metric("brokers_online", 2, crit=2, min=0, max=3),
                           Metric("lag_seconds", math.nan, labels={"group": "g1"}, uom="s"),
                           Metric("partition_lag", 7, labels={"topic": "t", "partition": "0"},
                                  perfdata=False)],
                  unevaluated={"spark": "deadline of 10s exceeded"})


def test_json_document_has_the_exact_v1_shape():
    doc = json.loads(render_json(FULL, NOW))
    assert list(doc) == ["schema", "state", "exit_code", "generated_at", "summary", "components",
                         "findings", "metrics"]
    assert doc["schema"] == "streamctl.check/v1"
    assert (doc["state"], doc["exit_code"]) == ("CRIT", 2)
    assert doc["generated_at"] == "2024-05-01T12:00:00Z"
    assert doc["summary"] == first_line(render_nagios(FULL)).split(": ", 1)[1].split(" | ")[0]
    assert doc["components"] == {
        "kafka": {"state": "CRIT", "evaluated": True, "reason": None},
        "zookeeper": {"state": "OK", "evaluated": True, "reason": None},
        "spark": {"state": "UNKNOWN", "evaluated": False, "reason": "deadline of 10s exceeded"},
    }
    assert doc["findings"][0] == {"severity": "CRIT", "component": "kafka", "object": "broker 2",
                                  "code": "KAFKA_BROKER_DOWN", "text": "broker 2 down (2 of 3 brokers)",
                                  "value": 2}
    assert [f["severity"] for f in doc["findings"]] == ["CRIT", "WARN", "OK"]
    finding_keys = {"severity", "component", "object", "code", "text", "value"}
    assert all(set(f) == finding_keys for f in doc["findings"])
    assert doc["metrics"][0] == {"name": "brokers_online", "value": 2, "labels": {}, "uom": "",
                                 "warn": None, "crit": 2, "min": 0, "max": 3}
    assert doc["metrics"][1]["value"] is None  # NaN is not JSON
    assert doc["metrics"][2]["labels"] == {"topic": "t", "partition": "0"}
    assert len(doc["metrics"]) == 3  # JSON carries the non-perfdata metrics too


@pytest.mark.parametrize("ev", [FULL, evaluation(), evaluation(evaluated=(), unevaluated={"kafka": "down"})],
                         ids=["full", "empty", "unevaluated"])
def test_json_validates_against_the_documented_schema(ev):
    assert schema_errors(json.loads(render_json(ev, NOW))) == []


@pytest.mark.parametrize("break_it", [
    lambda d: d.pop("summary"),
    lambda d: d.update(extra=1),
    lambda d: d.update(state="WARNING"),
    lambda d: d.update(exit_code=True),
    lambda d: d["components"]["kafka"].update(evaluated="yes"),
    lambda d: d["findings"][0].pop("code"),
    lambda d: d["metrics"][0]["labels"].update(partition=0),
    lambda d: d.update(generated_at="2024-05-01 12:00:00"),
])
def test_schema_check_rejects_broken_documents(break_it):
    doc = json.loads(render_json(FULL, NOW))
    break_it(doc)
    assert schema_errors(doc) != []


def test_schema_uses_only_keywords_the_fallback_validator_checks():
    keywords = set()

    def walk(node):
        if isinstance(node, dict):
            keywords.update(node)
            for key, value in node.items():
                if key in ("properties", "$defs"):
                    for sub in value.values():
                        walk(sub)
                elif key != "enum":
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(json.loads(SCHEMA_PATH.read_text()))
    assert keywords <= VALIDATED | {"$schema", "title", "description", "format", "$defs"}


# ---- Prometheus ----------------------------------------------------------------------------------

def test_prometheus_exposition_parses_back_with_values_and_labels():
    parsed = samples(render_prometheus(FULL, NOW))
    assert parsed[("streamctl_check_state", (("component", "kafka"),))] == 2
    assert parsed[("streamctl_check_state", (("component", "zookeeper"),))] == 0
    assert parsed[("streamctl_check_state", (("component", "spark"),))] == 3
    assert parsed[("streamctl_check_up", (("component", "kafka"),))] == 1
    assert parsed[("streamctl_check_up", (("component", "spark"),))] == 0
    findings = {labels: v for (name, labels), v in parsed.items() if name == "streamctl_findings"}
    assert findings[(("component", "kafka"), ("severity", "CRIT"))] == 1
    assert findings[(("component", "kafka"), ("severity", "WARN"))] == 1
    assert findings[(("component", "kafka"), ("severity", "OK"))] == 0
    assert findings[(("component", "zookeeper"), ("severity", "OK"))] == 1
    assert len(findings) == 3 * 4  # every component x every severity, zeros included
    assert parsed[("streamctl_check_timestamp_seconds", ())] == NOW
    assert parsed[("streamctl_brokers_online", ())] == 2
    assert math.isnan(parsed[("streamctl_lag_seconds", (("group", "g1"),))])
    assert parsed[("streamctl_partition_lag", (("partition", "0"), ("topic", "t")))] == 7


def test_prometheus_names_why_each_unknown_component_is_unknown_and_nothing_else():
    parsed = samples(render_prometheus(FULL, NOW))
    reasons = {labels: v for (name, labels), v in parsed.items() if name == "streamctl_check_unknown_info"}
    assert reasons == {(("component", "spark"), ("reason", "deadline of 10s exceeded")): 1}
    noisy = Finding(Severity.UNKNOWN, "flume", "agent a2", "FLUME_NO_METRICS", "agent a2 | gave\nnothing " + "x" * 300)
    parsed = samples(render_prometheus(evaluation(AGENT_UNKNOWN, noisy, ZK_OK, evaluated=("flume", "zookeeper")), NOW))
    [(labels, value)] = [(labels, v) for (name, labels), v in parsed.items() if name == "streamctl_check_unknown_info"]
    reason = dict(labels)["reason"]
    assert dict(labels)["component"] == "flume" and value == 1
    assert reason.startswith("agent a1 gave no metrics; agent a2 / gave nothing xxx") and len(reason) == 200


def test_prometheus_groups_series_of_one_name_into_one_family():
    metrics = [Metric("group_lag_records", 5, labels={"group": "g1"}, help="Records behind"),
               Metric("group_lag_records", 0, labels={"group": "g2"})]
    text = render_prometheus(evaluation(metrics=metrics), NOW)
    family = next(f for f in text_string_to_metric_families(text) if f.name == "streamctl_group_lag_records")
    assert family.documentation == "Records behind"
    assert {s.labels["group"]: s.value for s in family.samples} == {"g1": 5, "g2": 0}
    assert text.count("# TYPE streamctl_group_lag_records gauge") == 1


def test_prometheus_rejects_mixed_label_keys_for_one_name():
    metrics = [Metric("group_lag_records", 5, labels={"group": "g1"}),
               Metric("group_lag_records", 5, labels={"group": "g2", "topic": "t"})]
    with pytest.raises(ValueError, match=r"'group_lag_records'.*same label keys"):
        render_prometheus(evaluation(metrics=metrics), NOW)


def test_prometheus_rejects_duplicate_series():
    metrics = [Metric("brokers_online", 3), Metric("brokers_online", 2)]
    with pytest.raises(ValueError, match=r"'brokers_online'.*duplicate series"):
        render_prometheus(evaluation(metrics=metrics), NOW)


def test_textfile_holds_the_rendered_metrics(tmp_path):
    path = tmp_path / "streamctl.prom"
    write_prometheus_textfile(FULL, path, NOW)
    assert path.read_text() == render_prometheus(FULL, NOW)
    write_prometheus_textfile(evaluation(ZK_OK), path, NOW + 60)
    assert samples(path.read_text())[("streamctl_check_timestamp_seconds", ())] == NOW + 60
    assert [p.name for p in tmp_path.iterdir()] == ["streamctl.prom"]


def test_textfile_write_failing_midway_leaves_the_old_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "streamctl.prom"
    write_prometheus_textfile(evaluation(ZK_OK), path, NOW)
    before = path.read_bytes()
    torn = []

    class TornFile(io.FileIO):
        """Writes half of what it is given, then the disk is full."""

        def write(self, data):
            written = super().write(data[: len(data) // 2])
            torn.append((os.readlink(f"/proc/self/fd/{self.fileno()}"), written))
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fdopen", TornFile)
    with pytest.raises(OSError, match="No space left"):
        write_prometheus_textfile(FULL, path, NOW + 60)
    assert torn and torn[0][1] > 0 and torn[0][0] != str(path), "the write must have been torn elsewhere"
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["streamctl.prom"]  # the torn temp file is gone


# ---- import cost ------------------------------------------------------------------------------

def test_importing_check_pulls_in_no_ui_no_pyspark_and_no_prometheus_client():
    code = ("import sys, streamctl.check.render\n"
            "heavy = ('textual', 'rich', 'pyspark', 'prometheus_client')\n"
            "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
