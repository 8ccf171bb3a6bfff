"""Bad command-line arguments: refused in one line (exit 3) before any network call."""

from __future__ import annotations

import pytest

from streamctl.times import FORMS
from tests.badinput.harness import Case, Workspace, ids, run_case

RESET = ("groups", "reset-offsets", "g")
ISO = "expected ISO 8601 like 2026-11-25T13:45:00.000Z"
MODES = ("give exactly one of --to-earliest, --to-latest, --to-current, --to-offset, --to-datetime, "
         "--by-duration, --shift-by, --from-file")

CASES = [
    Case("unknown option", ("--bogus",), "No such option '--bogus'."),
    Case("unknown command", ("brokerz",), "No such command 'brokerz'."),
    Case("output format", ("brokers", "-o", "xml"),
         "Invalid value for '-o' / '--output': 'xml' is not one of 'table', 'json'."),
    Case("missing group", ("groups", "reset-offsets"), "Missing argument 'GROUP'."),
    Case("unknown group type", ("groups", "list", "--type", "consumer", "--type", "Queue"),
         "unknown group type 'queue': one of classic, consumer, share, streams"),
    Case("no reset mode", (*RESET, "--topic", "t"), MODES),
    Case("two reset modes", (*RESET, "--topic", "t", "--to-earliest", "--to-latest"), MODES),
    Case("no topic", (*RESET, "--to-earliest"), "give --topic TOPIC[:P,P] or --all-topics"),
    Case("topic and all topics", (*RESET, "--topic", "t", "--all-topics", "--to-earliest"),
         "--topic and --all-topics exclude each other"),
    Case("topic spec without topic", (*RESET, "--topic", ":1", "--to-earliest"),
         "--topic ':1': expected TOPIC or TOPIC:P,P"),
    Case("topic spec partition word", (*RESET, "--topic", "t:a", "--to-earliest"),
         "--topic 't:a': partitions must be numbers, like t:0,1"),
    Case("topic spec negative partition", (*RESET, "--topic", "t:-1", "--to-earliest"),
         "--topic 't:-1': partitions cannot be negative"),
    Case("offset not a number", (*RESET, "--topic", "t", "--to-offset", "x"),
         "Invalid value for '--to-offset': 'x' is not a valid integer."),
    Case("datetime word", (*RESET, "--topic", "t", "--to-datetime", "yesterday"), f"--to-datetime 'yesterday': {ISO}"),
    Case("datetime month 13", (*RESET, "--topic", "t", "--to-datetime", "2026-13-01T00:00:00"),
         "--to-datetime '2026-13-01T00:00:00': month must be in 1..12"),
    Case("datetime zone minutes", (*RESET, "--topic", "t", "--to-datetime", "2026-01-01T00:00:00+01:99"),
         "--to-datetime '2026-01-01T00:00:00+01:99': zone offset out of range (at most ±23:59)"),
    Case("datetime before year 1", (*RESET, "--topic", "t", "--to-datetime", "0001-01-01T00:00:00"),
         "--to-datetime '0001-01-01T00:00:00': year 0 is out of range", env={"TZ": "America/New_York"}),
    Case("duration empty", (*RESET, "--topic", "t", "--by-duration", "PT"),
         "--by-duration 'PT': expected an ISO 8601 duration like PT30M or P1DT2H"),
    Case("duration overflow", (*RESET, "--topic", "t", "--by-duration", "P99999999999999999D"),
         "--by-duration 'P99999999999999999D': too long (at most 999999999 days)"),
    Case("topic name", ("topics", "create", "bad name", "--partitions", "1", "--replication-factor", "1"),
         "illegal topic name 'bad name': characters ' ' are not allowed (use letters, digits, '.', '_' and '-')"),
    Case("topic config pair", ("topics", "create", "t", "--partitions", "1", "--replication-factor", "1",
                               "--config", "noequals"), "config 'noequals': expected key=value"),
    Case("alter nothing", ("topics", "alter-config", "t"), "alter-config: give KEY=VALUE pairs or --delete-config KEY"),
    Case("audit since year 1", ("audit", "--since", "0001-01-01"),
         "--since '0001-01-01': year 0 is out of range", env={"TZ": "America/New_York"}),
    Case("znode relative", ("zk", "ls", "relative"), "znode path 'relative' must start with '/'"),
    Case("znode empty segment", ("zk", "get", "/a//b"), "znode path '/a//b' has an empty segment ('//')"),
    Case("znode dot dot", ("zk", "stat", "/a/../b"),
         "znode path '/a/../b': relative segments ('.', '..') are not allowed"),
    Case("znode trailing slash", ("zk", "tree", "/a/"), "znode path '/a/' must not end with '/'"),
    Case("znode control char", ("zk", "ls", "/a\x01b"), "znode path '/a\\x01b' has a control character"),
    Case("rolling restart down time", ("sandbox", "rolling-restart", "--down", "-1"),
         "Invalid value for '--down': -1.0 is not in the range x>=0."),
    Case("tree depth", ("zk", "tree", "/", "--depth", "-1"), "Invalid value for '--depth': -1 is not in the range x>=0."),
    Case("get max bytes", ("zk", "get", "/", "--max-bytes", "0"),
         "Invalid value for '--max-bytes': 0 is not in the range x>=1."),
    Case("empty glob", ("zk", "find", "/", ""), "empty glob pattern"),
    Case("zk data and file", ("zk", "set", "/x", "data", "--file", "{ws}/payload"), "give DATA or --file, not both",
         files={"payload": b"\x00\x01"}),
    Case("check component", ("check", "--component", "nosuch"),
         "--component: unknown nosuch (choose from kafka, zookeeper, flume, spark, connect, quorum, pipeline, probe)"),
    Case("check timeout", ("check", "--timeout", "abc"),
         "Invalid value for '--timeout': 'abc' is not a valid float range."),
    Case("unknown context", ("--context", "nosuch", "brokers"),
         "no context 'nosuch' in {ws}/config.yaml (known: dead, ro)"),
    Case("read-only context", ("--context", "ro", "topics", "create", "t", "--partitions", "1",
                               "--replication-factor", "1", "--execute"),
         "context 'ro' is read-only: refusing topics create"),
    Case("read-only flag", ("--read-only", *RESET, "--topic", "t", "--to-earliest", "--execute"),
         "read-only mode (--read-only): refusing groups reset-offsets"),
    # The global options after the subcommand, at any depth, as kubectl takes them.
    *[Case(f"unknown context after {' '.join(args)}", (*args, "--context", "nosuch", *more),
           "no context 'nosuch' in {ws}/config.yaml (known: dead, ro)")
      for args, more in ((("brokers",), ()), (("topics", "list"), ("-o", "json")), (("groups", "list"), ()),
                         (("topics",), ("list",)), (("zk", "ls", "/"), ()))],
    Case("unknown context after check", ("check", "--component", "kafka", "--context", "nosuch"), code=3,
         stdout="STREAMCTL UNKNOWN: no context 'nosuch' in {ws}/config.yaml (known: dead, ro)\n",
         stderr="streamctl: error: no context 'nosuch' in {ws}/config.yaml (known: dead, ro)\n"),
    Case("config after the subcommand", ("brokers", "--config", "{ws}/other.yaml"),
         "no current-context set in {ws}/other.yaml; use --context", files={"other.yaml": "contexts: {}\n"}),
    Case("config and context after a nested subcommand", ("groups", "list", "--config", "{ws}/other.yaml",
                                                          "--context", "x", "-o", "json"),
         "no context 'x' in {ws}/other.yaml (no contexts defined)", files={"other.yaml": "contexts: {}\n"}),
    Case("the last context given wins", ("--context", "ro", "brokers", "--context", "nosuch"),
         "no context 'nosuch' in {ws}/config.yaml (known: dead, ro)"),
    Case("read-only context after the subcommand", ("topics", "create", "t", "--partitions", "1",
                                                    "--replication-factor", "1", "--execute", "--context", "ro"),
         "context 'ro' is read-only: refusing topics create"),
    Case("read-only flag after the subcommand", (*RESET, "--topic", "t", "--to-earliest", "--execute", "--read-only"),
         "read-only mode (--read-only): refusing groups reset-offsets"),
    # Where a command defines --config itself, its own meaning holds after it.
    Case("topics create keeps its --config", ("topics", "create", "t", "--partitions", "1", "--replication-factor",
                                              "1", "--config", "{ws}/other.yaml"),
         "config '{ws}/other.yaml': expected key=value", files={"other.yaml": "contexts: {}\n"}),
    Case("connect create keeps its --config", ("connect", "create", "c", "--config", "{ws}/other.yaml"),
         "context 'dead' has no connect: section (the workers' REST URLs)", files={"other.yaml": "contexts: {}\n"}),
    Case("global config before connect create", ("--config", "{ws}/other.yaml", "connect", "create", "c",
                                                 "--config", "{ws}/c.json"),
         "no current-context set in {ws}/other.yaml; use --context",
         files={"other.yaml": "contexts: {}\n", "c.json": "{}"}),
    # One time syntax: the same input refused the same way by every time option.
    *[Case(f"time {bad!r} for {option}", (*args, option, bad), f"{option} {bad!r}: {message}")
      for option, args in (("--from-time", ("topics", "read", "t")), ("--by-duration", (*RESET, "--topic", "t")),
                           ("--since", ("audit",)))
      for bad, message in (("yesterday", f"expected {FORMS}"), ("-1w", f"expected {FORMS}"),
                           ("PT", "expected an ISO 8601 duration like PT30M or P1DT2H"),
                           ("2026-13-01T00:00", "month must be in 1..12"),
                           ("-999999d", "before 1970-01-01T00:00Z"))],
    Case("unknown agent", ("agents", "status", "nosuch"), "no Flume agent 'nosuch' in context 'dead' (known: weblogs)"),
    Case("job wait", ("jobs", "start", "x", "--wait", "-1"), "Invalid value for '--wait': -1.0 is not in the range x>=0."),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_argument(case, tmp_path):
    run_case(case, Workspace(tmp_path))
