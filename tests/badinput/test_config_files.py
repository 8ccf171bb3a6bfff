"""Bad config files: one line naming the file, line and key (exit 3); secrets never shown."""

from __future__ import annotations

import pytest

from tests.badinput.harness import Case, Workspace, ids, run_case

HEAD = "current-context: p\ncontexts:\n  p:\n"
KAFKA = '    kafka: {bootstrap_servers: "127.0.0.1:{dead}", timeout: 2}\n'
CFG = "{ws}/config.yaml"


def cfg(body: str, kafka: bool = True) -> str:
    return HEAD + (KAFKA if kafka else "") + body


def case(id: str, config: str | bytes, error: str, args: tuple[str, ...] = ("brokers",), **kw) -> Case:
    if isinstance(config, bytes):
        return Case(id, args, error, files={"config.yaml": config}, config=None, **kw)
    return Case(id, args, error, config=config, **kw)


CASES = [
    case("tab indent", "contexts:\n\tp: {}\n", f"{CFG}:2:1: invalid YAML: found character '\\t' that cannot start any token"),
    case("unclosed flow", cfg("    zookeeper: {hosts: a\n"),
         f"{CFG}:6:1: invalid YAML: expected ',' or '}}', but got '<stream end>'"),
    case("top level list", "- a\n- b\n", f"{CFG}:1: Input should be a valid dictionary"),
    case("unknown key", cfg("    kafak: {}\n"), f"{CFG}:5: contexts.p.kafak: Extra inputs are not permitted"),
    case("missing kafka", cfg("    read_only: true\n", kafka=False), f"{CFG}:3: contexts.p.kafka: Field required"),
    case("timeout word", HEAD + '    kafka: {bootstrap_servers: "h:1", timeout: fast}\n',
         f"{CFG}:4: contexts.p.kafka.timeout: Input should be a valid number, unable to parse string as a number"),
    case("timeout infinite", HEAD + '    kafka: {bootstrap_servers: "h:1", timeout: .inf}\n',
         f"{CFG}:4: contexts.p.kafka.timeout: Input should be a finite number"),
    case("empty bootstrap", HEAD + '    kafka: {bootstrap_servers: ""}\n',
         f"{CFG}:4: contexts.p.kafka.bootstrap_servers: String should have at least 1 character"),
    case("python callback property", HEAD + '    kafka: {bootstrap_servers: "h:1", properties: {error_cb: x}}\n',
         f"{CFG}:4: contexts.p.kafka.properties: properties['error_cb'] is a confluent-kafka Python object "
         "(a callback, logger or dict), not a librdkafka property: remove it"),
    case("read_only word", cfg("    read_only: maybe\n"),
         f"{CFG}:5: contexts.p.read_only: Input should be a valid boolean, unable to interpret input"),
    case("thresholds order", cfg("    thresholds: {lag_records_warn: 10, lag_records_crit: 5}\n"),
         f"{CFG}:5: contexts.p.thresholds: lag_records_warn must not exceed lag_records_crit"),
    case("chroot relative", cfg('    zookeeper: {hosts: "z:2181", chroot: kafka}\n'),
         f"{CFG}:5: contexts.p.zookeeper.chroot: must start with '/'"),
    case("zookeeper port word", cfg('    zookeeper: {hosts: "127.0.0.1:notaport"}\n'),
         f"{CFG}:5: contexts.p.zookeeper.hosts: bad server '127.0.0.1:notaport' (expected HOST:PORT, port 1-65535)",
         args=("zk", "ls", "/")),
    case("zookeeper no server", cfg('    zookeeper: {hosts: " , /chroot"}\n'),
         f"{CFG}:5: contexts.p.zookeeper.hosts: names no server (expected HOST:PORT[,HOST:PORT...])",
         args=("zk", "ls", "/")),
    case("metrics url scheme", cfg("    flume: {agents: {a: {metrics_url: 'ftp://h/metrics'}}}\n"),
         f"{CFG}:5: contexts.p.flume.agents.a.metrics_url: must be an http:// or https:// URL",
         args=("agents", "status", "a")),
    case("metrics url port", cfg("    flume: {agents: {a: {metrics_url: 'http://h:99999/metrics'}}}\n"),
         f"{CFG}:5: contexts.p.flume.agents.a.metrics_url: not a valid URL (Port out of range 0-65535)",
         args=("agents", "status", "a")),
    case("metrics url ipv6", cfg("    flume: {agents: {a: {metrics_url: 'http://[::1/metrics'}}}\n"),
         f"{CFG}:5: contexts.p.flume.agents.a.metrics_url: not a valid URL (Invalid IPv6 URL)",
         args=("agents", "status", "a")),
    case("metrics url no host", cfg("    flume: {agents: {a: {metrics_url: 'http:///metrics'}}}\n"),
         f"{CFG}:5: contexts.p.flume.agents.a.metrics_url: the URL names no host", args=("agents", "status", "a")),
    case("librdkafka property", HEAD + '    kafka: {bootstrap_servers: "127.0.0.1:{dead}", timeout: 2, '
                                       'properties: {no.such.prop: 1}}\n',
         'kafka.properties: No such configuration property: "no.such.prop"'),
    case("env var unset", cfg("    zookeeper: {hosts: '${STREAMCTL_BADINPUT_UNSET}'}\n"),
         f"{CFG}:5: contexts.p.zookeeper.hosts: environment variable 'STREAMCTL_BADINPUT_UNSET' is not set"),
    case("reference with a newline", cfg("    zookeeper: {hosts: \"${ZK\\nX}\"}\n"),
         f"{CFG}:5: contexts.p.zookeeper.hosts: invalid reference '${{ZK\\nX}}' (use ${{NAME}} or ${{file:PATH}})"),
    case("reference unterminated", cfg("    zookeeper: {hosts: '${ZK'}\n"),
         f"{CFG}:5: contexts.p.zookeeper.hosts: unterminated '${{' (write '$${{' for a literal)"),
    case("secret file missing", cfg("    zookeeper: {hosts: 'z:1', auth: {credential: '${file:nope.txt}'}}\n"),
         f"{CFG}:5: contexts.p.zookeeper.auth.credential: cannot read secret file '{{ws}}/nope.txt': "
         "No such file or directory"),
    case("secret of wrong type", cfg("    zookeeper: {hosts: 'z:1', auth: {credential: [hunter2]}}\n"),
         f"{CFG}:5: contexts.p.zookeeper.auth.credential: Input should be a valid string"),
    case("python tag", "contexts: !!python/object/apply:os.system [echo hi]\n",
         f"{CFG}:1: contexts: unsupported tag 'tag:yaml.org,2002:python/object/apply:os.system'"),
    case("recursive alias", "contexts: &a {p: *a}\n", f"{CFG}:1: contexts.p: recursive alias"),
    case("nested too deeply", "contexts: " + "[" * 3000 + "]" * 3000 + "\n", f"{CFG}: invalid YAML: nested too deeply"),
    case("newline in a key", "contexts:\n  \"p\\nq\": 5\n", f"{CFG}:2: contexts.p\\nq: Input should be a valid dictionary"),
    case("not utf-8", b"contexts:\n  p: \xff\xfe\n", f"{CFG}: not UTF-8 text"),
    case("nul byte", b"contexts: {}\x00\n", f"{CFG}:1:13: invalid YAML: unacceptable character #x0000"),
    case("no current context", "contexts: {}\n", f"no current-context set in {CFG}; use --context"),
    case("config is a directory", "", "{ws}/confdir: cannot read: Is a directory",
         files={"confdir/keep": ""}, env={"STREAMCTL_CONFIG": "{ws}/confdir"}),
    case("--config is a directory", "", "Invalid value for '--config': File '{ws}/confdir' is a directory.",
         args=("--config", "{ws}/confdir", "brokers"), files={"confdir/keep": ""}),
]


def _secret_not_shown(result, _workspace) -> None:
    assert "hunter2" not in result.stderr + result.stdout


CASES = [Case(c.id, c.args, c.error, c.code, c.files, c.config, c.stdout, c.stderr,
              _secret_not_shown if "secret" in c.id else c.check, c.env) for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_config_file(case, tmp_path):
    run_case(case, Workspace(tmp_path))
