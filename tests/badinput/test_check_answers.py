"""`streamctl check` on broken setups, as cron runs it: every run answers UNKNOWN or CRIT with a
reason an operator can act on, in every format asked, never OK about what it cannot see and
never with a Python exception's name. Nothing listens behind the contexts' addresses."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.badinput.harness import Workspace
from tests.check_outputs import samples, schema_errors
from tests.conftest import run_cli

EXCEPTION_NAME = re.compile(r"\b[A-Z][a-zA-Z]+(Error|Exception)\b|Traceback")
KAFKA = '{bootstrap_servers: "127.0.0.1:{dead}", timeout: 2}'
SECTIONS = {
    "zookeeper": '{hosts: "127.0.0.1:{dead}", timeout: 2, admin_url: "http://127.0.0.1:{dead}/commands"}',
    "flume": '{agents: {weblogs: {metrics_url: "http://127.0.0.1:{dead}/metrics", config_file: "{ws}/none.properties"}}}',
    "spark": ('{masters: ["http://127.0.0.1:{dead}"], timeout: 2, jobs: {'
              'local: {checkpoint_dir: "{ws}/no-checkpoint", ui_url: "http://127.0.0.1:{dead}", '
              'progress_file: "{ws}/none.jsonl"}, '
              'hdfs: {checkpoint_dir: "webhdfs://127.0.0.1:{dead}/ckpt"}, '
              'nohdfs: {checkpoint_dir: "hdfs://127.0.0.1:{dead}/ckpt"}}}'),
    "connect": '{urls: ["http://127.0.0.1:{dead}"], timeout: 2, auth: {username: u, password: p}}',
}
REASONS = {
    "zookeeper": "has no zookeeper section",
    "flume": "has no flume section (flume.agents)",
    "spark": "has no spark section (spark.jobs or spark.masters)",
    "connect": "has no connect section",
}


def config(**contexts: list[str]) -> str:
    """A config with one context per keyword, each holding Kafka and the named sections."""
    text = "current-context: " + next(iter(contexts)) + "\ncontexts:\n"
    for name, systems in contexts.items():
        text += f"  {name}:\n    kafka: {KAFKA}\n" + "".join(f"    {s}: {SECTIONS[s]}\n" for s in systems)
    return text


def check(workspace: Workspace, *args: str, config_text: str | None = None) -> subprocess.CompletedProcess:
    if config_text is not None:
        workspace.config.write_text(workspace.fill(config_text))
    result = run_cli("check", *(workspace.fill(a) for a in args), env=workspace.env({}), timeout=60)
    shown = f"exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    assert not EXCEPTION_NAME.search(result.stdout + result.stderr), shown
    return result


@pytest.fixture
def workspace(tmp_path) -> Workspace:
    ws = Workspace(tmp_path)
    ws.state.mkdir(parents=True)
    return ws


# ---- a component named that the context does not configure: UNKNOWN, never OK ----------------------

def test_a_kafka_only_context_says_which_section_each_named_component_lacks(workspace):
    result = check(workspace, "--component", "zookeeper,flume,spark,connect", config_text=config(bare=[]))
    assert result.returncode == 3, result.stdout
    assert result.stdout.splitlines()[1:] == [f"[UNKNOWN] {name} not evaluated: context 'bare' {why}"
                                              for name, why in REASONS.items()]
    assert result.stdout.startswith("STREAMCTL UNKNOWN: zookeeper not evaluated: context 'bare' has no zookeeper section")


@pytest.mark.parametrize("missing", list(SECTIONS))
def test_each_section_missing_in_turn_is_unknown_and_the_others_still_read(workspace, missing):
    others = [s for s in SECTIONS if s != missing]
    result = check(workspace, "--component", ",".join(SECTIONS), "-o", "json",
                   config_text=config(partial=others))
    doc = json.loads(result.stdout)
    assert result.returncode in (2, 3) and doc["state"] in ("CRIT", "UNKNOWN"), result.stdout
    assert doc["components"][missing] == {"state": "UNKNOWN", "evaluated": False,
                                          "reason": f"context 'partial' {REASONS[missing]}"}
    for name in others:  # dead endpoints: CRIT, or UNKNOWN with a reason of their own
        assert doc["components"][name]["state"] in ("CRIT", "UNKNOWN"), doc["components"]
        assert "has no" not in (doc["components"][name]["reason"] or "")


# ---- every format, every failure ----------------------------------------------------------------

MISCONFIGURED = {
    "every endpoint dead": (config(dead=list(SECTIONS)), ()),
    "opt-in components on a dead cluster": (config(dead=list(SECTIONS)), ("--component", "pipeline,probe")),
    "bad YAML": ("current-context: p\ncontexts:\n  p: {kafka: {bootstrap_servers: a\n", ()),
    "invalid key": (config(p=[]).replace("    kafka:", "    kafak: {}\n    kafka:"), ()),
    "wrong type": (config(p=[]).replace("timeout: 2", "timeout: fast"), ()),
    "wrong section type": (config(p=[]) + "    spark: [a, b]\n", ()),
    "librdkafka property": (config(p=[]).replace("timeout: 2}", "timeout: 2, properties: {no.such.property: 1}}"),
                            ()),
    "unknown context": (config(p=[]), ("--context-for-check", "nope")),
    "no current context": ("contexts: {}\n", ()),
    "config not UTF-8": (b"\xff\xfe\x00bad", ()),
    "config is a directory": (None, ()),
}


def _prepare(workspace: Workspace, text: str | bytes | None) -> None:
    if text is None:
        workspace.config.mkdir()
    elif isinstance(text, bytes):
        workspace.config.write_bytes(text)
    else:
        workspace.config.write_text(workspace.fill(text))


def _run(workspace: Workspace, args: tuple[str, ...], *more: str) -> subprocess.CompletedProcess:
    """`--context-for-check NAME` stands for the global --context (given before `check`)."""
    front: tuple[str, ...] = ()
    if args[:1] == ("--context-for-check",):
        front, args = ("--context", args[1]), args[2:]
    result = run_cli(*front, "check", "--timeout", "8", *args, *more, env=workspace.env({}), timeout=60)
    text = result.stdout + result.stderr
    assert not EXCEPTION_NAME.search(text), f"exit {result.returncode}\n{text}"
    assert result.returncode in (2, 3), text  # CRIT (Kafka refuses connections) or UNKNOWN
    return result


@pytest.mark.parametrize("case", list(MISCONFIGURED), ids=list(MISCONFIGURED))
def test_no_output_of_a_misconfigured_check_carries_an_exception_name(workspace, case):
    text, args = MISCONFIGURED[case]
    _prepare(workspace, text)
    textfile = workspace.root / "node" / "streamctl.prom"

    nagios = _run(workspace, args)
    assert nagios.stdout.startswith(("STREAMCTL UNKNOWN: ", "STREAMCTL CRITICAL: ")), nagios.stdout
    both = _run(workspace, args, "-o", "json", "--prometheus-textfile", str(textfile))
    doc = json.loads(both.stdout)
    assert schema_errors(doc) == [] and doc["exit_code"] == both.returncode
    found = samples(textfile.read_text())
    assert not EXCEPTION_NAME.search(textfile.read_text())
    states = {labels: value for (name, labels), value in found.items() if name == "streamctl_check_state"}
    assert max(states.values()) == both.returncode
    if both.returncode == 3 and doc["components"].get("check"):  # the config itself: one line on stderr
        [line] = both.stderr.splitlines()
        assert line == f"streamctl: error: {doc['summary']}"
        assert nagios.stdout == f"STREAMCTL UNKNOWN: {doc['summary']}\n"


def test_a_config_error_still_answers_json_and_rewrites_the_textfile(workspace):
    workspace.config.write_text("current-context: p\ncontexts:\n  p:\n    kafka: {bootstrap_servers: [\n")
    textfile = workspace.root / "streamctl.prom"
    textfile.write_text("streamctl_check_state{component=\"kafka\"} 0.0\n")  # a last good run's, to replace

    silent = run_cli("check", "--prometheus-textfile", str(textfile), env=workspace.env({}), timeout=60)
    assert (silent.returncode, silent.stdout) == (3, "")  # nothing on stdout unless a format is asked
    [line] = silent.stderr.splitlines()
    assert line.startswith(f"streamctl: error: {workspace.config}:5:1: invalid YAML: ")
    found = samples(textfile.read_text())
    assert found[("streamctl_check_state", (("component", "check"), ("context", "")))] == 3
    assert [key for key in found if ("component", "kafka") in key[1]] == []
    assert found[("streamctl_check_timestamp_seconds", (("context", ""),))] > 1.7e9
    assert [p.name for p in textfile.parent.iterdir() if p.name.startswith(".")] == []  # no temp file left

    asked = run_cli("check", "-o", "json", env=workspace.env({}), timeout=60)
    doc = json.loads(asked.stdout)
    assert asked.returncode == 3 and (doc["state"], doc["exit_code"]) == ("UNKNOWN", 3)
    assert doc["summary"] == line.removeprefix("streamctl: error: ")
    assert doc["components"] == {"check": {"state": "UNKNOWN", "evaluated": False, "reason": doc["summary"]}}


@pytest.mark.parametrize(("args", "error"), [
    (("--component", "nosuch"),
     "--component: unknown nosuch (choose from kafka, zookeeper, flume, spark, connect, quorum, pipeline, probe)"),
    (("--timeout", "abc"), "Invalid value for '--timeout': 'abc' is not a valid float range."),
    (("--timeout", "0.1"), "Invalid value for '--timeout': 0.1 is not in the range x>=0.5."),
])
def test_a_usage_error_is_one_line_and_a_json_document_when_json_was_asked(workspace, args, error):
    workspace.config.write_text(workspace.fill(config(p=[])))
    textfile = workspace.root / "streamctl.prom"
    plain = run_cli("check", *args, env=workspace.env({}), timeout=60)
    assert (plain.returncode, plain.stdout, plain.stderr) == (3, "", f"streamctl: error: {error}\n")

    as_json = run_cli("check", *args, "--format", "json", "--prometheus-textfile", str(textfile),
                      env=workspace.env({}), timeout=60)
    assert (as_json.returncode, as_json.stderr) == (3, f"streamctl: error: {error}\n")
    doc = json.loads(as_json.stdout)
    assert (doc["state"], doc["summary"]) == ("UNKNOWN", error) and schema_errors(doc) == []
    assert samples(textfile.read_text())[("streamctl_check_up", (("component", "check"), ("context", "")))] == 0


def test_an_unwritable_textfile_is_unknown_naming_it(workspace):
    workspace.config.write_text(workspace.fill(config(p=[])))
    blocker = workspace.root / "not-a-dir"
    blocker.write_text("")
    result = run_cli("check", "-o", "json", "--prometheus-textfile", str(blocker / "s.prom"),
                     env=workspace.env({}), timeout=60)
    reason = f"--prometheus-textfile: cannot write {blocker}/s.prom: "
    assert result.returncode == 3 and result.stderr.startswith(f"streamctl: error: {reason}")
    assert json.loads(result.stdout)["summary"].startswith(reason)
    assert not EXCEPTION_NAME.search(result.stdout + result.stderr)
