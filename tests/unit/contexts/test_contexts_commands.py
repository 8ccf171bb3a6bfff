"""`streamctl contexts list | current | use`, and `test` against closed ports (no services)."""

from __future__ import annotations

import json
import os
import socket

from streamctl.config.schema import Config
from streamctl.contexts.probe import probe_contexts, probes_of
from tests.conftest import run_cli

CONFIG = """\
# the fleet: comments survive `contexts use`
current-context: prod
contexts:
  prod:
    kafka: {bootstrap_servers: "127.0.0.1:%(kafka)d"}   # prod's brokers
    zookeeper: {hosts: "127.0.0.1:%(zk)d"}
  staging:
    kafka: {bootstrap_servers: "127.0.0.1:%(kafka)d"}
"""


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def streamctl(tmp_path, *args: str):
    env = {**os.environ, "STREAMCTL_CONFIG": str(tmp_path / "config.yaml"), "XDG_STATE_HOME": str(tmp_path / "state")}
    return run_cli(*args, env=env, timeout=60)


def write_config(tmp_path) -> str:
    text = CONFIG % {"kafka": closed_port(), "zk": closed_port()}
    (tmp_path / "config.yaml").write_text(text)
    return text


def test_list_marks_the_current_context_and_names_the_systems_each_configures(tmp_path):
    write_config(tmp_path)
    result = streamctl(tmp_path, "contexts", "list", "-o", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        {"name": "prod", "current": True, "systems": ["kafka", "zookeeper"]},
        {"name": "staging", "current": False, "systems": ["kafka"]},
    ]


def test_use_switches_the_current_context_keeping_the_file_as_written(tmp_path):
    before = write_config(tmp_path)
    assert streamctl(tmp_path, "contexts", "current").stdout == "prod\n"
    switched = streamctl(tmp_path, "contexts", "use", "staging")
    assert switched.returncode == 0, switched.stderr
    assert streamctl(tmp_path, "contexts", "current").stdout == "staging\n"
    after = (tmp_path / "config.yaml").read_text()
    assert after == before.replace("current-context: prod", "current-context: staging")


def test_use_of_an_unknown_context_is_one_line_exit_3_and_changes_nothing(tmp_path):
    before = write_config(tmp_path)
    result = streamctl(tmp_path, "contexts", "use", "nope")
    assert result.returncode == 3 and result.stdout == ""
    assert result.stderr == (f"streamctl: error: no context 'nope' in {tmp_path / 'config.yaml'} "
                             "(known: prod, staging)\n")
    assert (tmp_path / "config.yaml").read_text() == before


def test_test_names_each_unreachable_system_and_exits_1(tmp_path):
    write_config(tmp_path)
    result = streamctl(tmp_path, "contexts", "test", "prod", "--timeout", "3", "-o", "json")
    assert result.returncode == 1
    rows = {row["system"]: row for row in json.loads(result.stdout)}
    assert set(rows) == {"kafka", "zookeeper"} and not any(row["reachable"] for row in rows.values())
    assert "refuses connections" in rows["kafka"]["error"]
    [line] = result.stderr.splitlines()
    assert line.startswith("streamctl: error: unreachable: prod kafka: ") and "prod zookeeper: " in line


def test_every_system_a_context_configures_is_probed_with_its_own_timeout():
    config = Config.model_validate({"contexts": {"full": {
        "kafka": {"bootstrap_servers": "h:9092", "timeout": 4},
        "zookeeper": {"hosts": "h:2181", "timeout": 3},
        "connect": {"urls": ["http://h:8083"], "timeout": 2},
        "flume": {"agents": {"a1": {"metrics_url": "http://h:41414/metrics"}}},
        "spark": {"masters": ["http://h:8080"]},
    }}})
    probes = probes_of(config.context("full"))
    assert list(probes) == ["kafka", "zookeeper", "connect", "flume agent a1", "spark"]
    assert [timeout for _, timeout in probes.values()][:3] == [4, 3, 2]


def test_a_system_that_never_answers_is_unreachable_by_the_deadline_naming_why():
    with socket.socket() as silent:  # accepts connections (the kernel's backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        config = Config.model_validate({"contexts": {
            "slow": {"kafka": {"bootstrap_servers": f"127.0.0.1:{closed_port()}"},
                     "zookeeper": {"hosts": f"127.0.0.1:{port}"}},
        }})
        [kafka, zookeeper] = probe_contexts(config, ["slow"], timeout=1.5)
    assert (kafka.system, zookeeper.system) == ("kafka", "zookeeper")
    assert not zookeeper.reachable and zookeeper.error
    assert not kafka.reachable and "refuses connections" in (kafka.error or "")
