"""The Flume config linter: one broken file per problem class, the shipped agents lint clean."""

from __future__ import annotations

import os

import pytest

from streamctl.errors import UsageError
from streamctl.flume import definition as flume_config
from streamctl.flume import lint as flume_lint
from tests import repo
from tests.conftest import run_cli

FIXTURES = repo.FIXTURES / "flume"
AGENTS = repo.ROOT / "agents"

EXPECTED = {
    "broken-undeclared.properties": [
        "11: a1.sinks.k2.type: sink 'k2' is configured but not declared in a1.sinks",
    ],
    "broken-unbound.properties": [
        "4: a1.sinks: sink 'k2' is declared but never configured",
        "9: a1.channels.spare: channel is not bound to any source or sink",
    ],
    "broken-sink-without-channel.properties": [
        "8: a1.sources.r2.channels: source is not bound to a channel (sources take `channels`, plural)",
        "11: a1.sinks.k1.channel: sink has no channel (sinks take `channel`, singular)",
        "13: a1.sinks.k2.channel: sink has no channel",
    ],
    "broken-missing-channel.properties": [
        "7: a1.sources.r1.channels: channel 'c2' is not declared",
        "12: a1.sinks.k2.channel: channel 'memory-channel' is not declared",
    ],
    "broken-unknown-type.properties": [
        "7: a1.sources.r1.type: unknown source type 'TAILDR'",
        "11: a1.channels.c1.type: unknown channel type 'memroy'",
        "12: a1.channels.c2.type: unknown channel type 'logger'",
        "13: a1.sinks.k1.type: unknown sink type 'org.apache.flume.sink.kafka.KafkaSnk'",
    ],
    "broken-required.properties": [
        "6: a1.sources.tail.filegroups: missing required property",
        "11: a1.sources.files.filegroups.web: file group 'web' has no file pattern",
        "13: a1.sources.net.port: missing required property",
        "18: a1.sinks.kafka.kafka.bootstrap.servers: missing required property (or brokerList)",
        "21: a1.sinks.roll.sink.directory: missing required property",
    ],
    "broken-sinkgroup.properties": [
        "14: a1.sinkgroups.g1.sinks: sink 'k3' is not declared",
        "17: a1.sinkgroups.g1.processor.priority.k2: priority for sink 'k2', which is not in the group",
        "18: a1.sinkgroups.g2.sinks: sink 'k1' is already in sink group 'g1'",
        "19: a1.sinkgroups.g2.processor.type: unknown sink processor type 'round_robin'",
        "20: a1.sinkgroups.g3.sinks: sink group has no sinks",
    ],
    "broken-selector.properties": [
        "11: a1.sources.r1.selector.mapping.APAC: channel 'apac' is not one of the source's channels",
        "12: a1.sources.r1.selector.default: channel 'other' is not one of the source's channels",
        "15: a1.sources.r2.selector.type: unknown channel selector type 'broadcast'",
    ],
    "broken-interceptor.properties": [
        "8: a1.sources.r1.interceptors.host.type: interceptor has no type",
        "9: a1.sources.r1.interceptors.ts.type: unknown interceptor type 'timestmp'",
        "10: a1.sources.r1.interceptors.uuid.type: interceptor 'uuid' is not listed in a1.sources.r1.interceptors",
    ],
    "broken-keys.properties": [
        "11: a1.sinks.k1.type: sink has no type",
        ("12: a1.channel.c1.capacity: not a Flume setting "
        "(expected AGENT.sources|channels|sinks|sinkgroups|configfilters[.NAME.PROPERTY])"),
        "13: a1.channels.c1.capacity: set again; the value on line 10 is ignored",
        "15: a2.channels: no channels declared (Flume drops the whole agent)",
        "17: a2.sources.r1.channels: channel 'c1' is not declared",
    ],
}


def test_every_broken_fixture_is_covered():
    assert sorted(p.name for p in FIXTURES.glob("broken-*.properties")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_file_reports_each_problem_with_its_line(name):
    path = FIXTURES / name
    lines = [p.format(str(path)) for p in flume_lint.lint_file(path)]
    assert lines == [f"{path}:{line}" for line in EXPECTED[name]]


@pytest.mark.parametrize("path", sorted(AGENTS.glob("*.properties")), ids=lambda p: p.name)
def test_shipped_agent_definitions_lint_clean(path):
    assert flume_lint.lint_file(path) == []


def test_shipped_definitions_exist():
    assert (AGENTS / "weblogs.properties").is_file()


def test_aliases_are_case_insensitive_and_plugins_are_trusted():
    text = ("a.sources = s\na.channels = c\na.sinks = k\n"
            "a.sources.s.type = Netcat\na.sources.s.bind = 0.0.0.0\na.sources.s.port = 1\na.sources.s.channels = c\n"
            "a.channels.c.type = com.example.QueueChannel\n"
            "a.sinks.k.type = org.apache.flume.sink.kafka.KafkaSink\na.sinks.k.channel = c\n"
            "a.sinks.k.brokerList = h:9092\n")
    assert flume_lint.lint_text(text) == []


def test_a_file_without_any_agent():
    assert [p.message for p in flume_lint.lint_text("# nothing\n")] == ["no agent defined"]


# ---- the properties reader follows java.util.Properties -------------------------------

def test_properties_separators_continuations_and_escapes():
    text = ("# comment\n! also a comment\n"
            "a.b = 1\n"
            "a.c:2\n"
            "a.d 3\n"
            "a.e = one \\\n    two\n"
            "a\\ f = x\\ty\n"
            "  a.g=\\u0041=\n"
            "a.h\n")
    entries = flume_config.parse_properties(text)
    assert [(e.key, e.value, e.line) for e in entries] == [
        ("a.b", "1", 3), ("a.c", "2", 4), ("a.d", "3", 5), ("a.e", "one two", 6),
        ("a f", "x\ty", 8), ("a.g", "A=", 9), ("a.h", "", 10),
    ]


def test_unreadable_file_is_a_one_line_usage_error(tmp_path):
    with pytest.raises(UsageError, match=r"no such file$"):
        flume_lint.lint_file(tmp_path / "missing.properties")
    (tmp_path / "bin.properties").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(UsageError, match="not UTF-8 text"):
        flume_lint.lint_file(tmp_path / "bin.properties")


def test_sink_bindings_come_from_the_config_file():
    assert flume_config.sink_bindings(AGENTS / "weblogs.properties", "weblogs") == {"kafka": "buffer"}
    assert flume_config.sink_bindings(AGENTS / "weblogs.properties", "other") == {}
    assert flume_config.sink_bindings(None, "weblogs") == {}


# ---- the command ----------------------------------------------------------------------

def _lint(*args):
    return run_cli("agents", "lint", *args, env={**os.environ, "STREAMCTL_CONFIG": "/nonexistent/c.yaml"})


def test_cli_lint_prints_problems_and_exits_1():
    path = FIXTURES / "broken-missing-channel.properties"
    result = _lint(str(path))
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [f"{path}:{line}" for line in EXPECTED[path.name]]


def test_cli_lint_clean_file_exits_0():
    result = _lint(str(AGENTS / "weblogs.properties"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("weblogs.properties: OK")


def test_cli_lint_unreadable_file_is_one_line(tmp_path):
    result = _lint(str(tmp_path))
    assert result.returncode == 3
    assert result.stderr == f"streamctl: error: {tmp_path}: is a directory\n"
    assert result.stdout == ""
