"""Read-only mode refuses to execute every mutating command, by `--read-only` and by
`read_only: true` on the context: one clear line, exit 3, before any network call, nothing
changed, nothing audited. The dry run (no --execute) is allowed: a read-only monitoring host
previews plans.

The list below is checked against the CLI itself: every command with an `--execute` option is
a mutation and must be in it. (tests/integration/test_kafka_ops.py covers the Kafka ones on
the plain sandbox; this covers every one, on the secure sandbox.)
"""

from __future__ import annotations

import json

import httpx
import pytest

from streamctl.backends.kafka.admin import KafkaAdmin
from streamctl.backends.zookeeper import ZooKeeperBackend
from streamctl.demo.connect_worker import url
from tests.cli_commands import mutating_commands
from tests.security.helpers import one_error_line, topic_with_group, unique

pytestmark = pytest.mark.integration

# command path -> (argv, the operation name the refusal gives)
MUTATIONS = {
    ("topics", "create"): (["topics", "create", "{new}", "--partitions", "1", "--replication-factor", "1",
                            "--execute"], "topics create"),
    ("topics", "add-partitions"): (["topics", "add-partitions", "{topic}", "--total", "3", "--execute"],
                                   "topics add-partitions"),
    ("topics", "alter-config"): (["topics", "alter-config", "{topic}", "retention.ms=1000", "--execute"],
                                 "topics alter-config"),
    ("topics", "delete"): (["topics", "delete", "{topic}", "--execute", "--yes-delete", "{topic}"], "topics delete"),
    ("groups", "reset-offsets"): (["groups", "reset-offsets", "{group}", "--topic", "{topic}", "--to-latest",
                                   "--execute"], "groups reset-offsets"),
    ("groups", "undo-reset"): (["groups", "undo-reset", "{group}", "--execute"], "groups undo-reset"),
    ("elect-leaders",): (["elect-leaders", "--execute"], "elect-leaders"),
    ("acls", "create"): (["acls", "create", "--principal", "User:ro", "--operation", "Read", "--topic", "{topic}",
                          "--execute"], "acls create"),
    ("acls", "delete"): (["acls", "delete", "--principal", "User:ro", "--topic", "{topic}", "--execute"],
                         "acls delete"),
    ("streams", "reset"): (["streams", "reset", "{group}", "--execute"], "streams reset"),
    ("zk", "create"): (["zk", "create", "{new_znode}", "data", "--execute"], "zk create"),
    ("zk", "set"): (["zk", "set", "{znode}", "changed", "--execute"], "zk set"),
    ("zk", "delete"): (["zk", "delete", "{znode}", "--execute"], "zk delete"),
    ("agents", "start"): (["agents", "start", "weblogs", "--execute"], "agents.start"),
    ("agents", "stop"): (["agents", "stop", "weblogs", "--execute"], "agents.stop"),
    ("jobs", "start"): (["jobs", "start", "weblog-stats", "--execute"], "jobs start"),
    ("jobs", "stop"): (["jobs", "stop", "weblog-stats", "--execute"], "jobs stop"),
    ("topics", "produce"): (["topics", "produce", "{topic}", "--from", "{connector_config}", "--execute"],
                            "topics produce"),
    ("topics", "copy"): (["topics", "copy", "{topic}", "{new}", "--execute"], "topics copy"),
    ("connect", "create"): (["connect", "create", "{new}", "--config", "{connector_config}", "--execute"],
                            "connect create"),
    ("connect", "update"): (["connect", "update", "weblog-archive", "--config", "{connector_config}", "--execute"],
                            "connect update"),
    ("connect", "pause"): (["connect", "pause", "weblog-archive", "--execute"], "connect pause"),
    ("connect", "resume"): (["connect", "resume", "weblog-archive", "--execute"], "connect resume"),
    ("connect", "stop"): (["connect", "stop", "weblog-archive", "--execute"], "connect stop"),
    ("connect", "restart"): (["connect", "restart", "weblog-archive", "--execute"], "connect restart"),
    ("connect", "delete"): (["connect", "delete", "weblog-archive", "--execute"], "connect delete"),
    ("connect", "offsets", "reset"): (["connect", "offsets", "reset", "weblog-archive", "--execute"],
                                      "connect offsets reset"),
    ("connect", "offsets", "undo"): (["connect", "offsets", "undo", "weblog-archive", "--execute"],
                                     "connect offsets undo"),
    ("users", "create"): (["users", "create", "{new}", "--execute"], "users create"),
    ("users", "set-password"): (["users", "set-password", "streamctl", "--execute"], "users set-password"),
    ("users", "delete"): (["users", "delete", "monitor", "--execute"], "users delete"),
    ("quotas", "alter"): (["quotas", "alter", "--client-id", "ro", "--set", "producer_byte_rate=1024", "--execute"],
                          "quotas alter"),
    ("reassign", "execute"): (["reassign", "execute", "--decommission", "1", "--throttle", "1MB", "--execute"],
                              "reassign execute"),
    ("reassign", "cancel"): (["reassign", "cancel", "--execute"], "reassign cancel"),
}


def test_the_list_names_every_mutating_command():
    assert set(MUTATIONS) == mutating_commands()


@pytest.fixture(scope="module")
def scene(secure):
    """A topic, a group with committed offsets, and a znode streamctl may change."""
    topic, group = topic_with_group(secure)
    znode = f"/{unique('ro')}"
    with zookeeper(secure) as zk:
        zk.create(znode, b"keep")
    connector_config = secure.tmp / "connector.json"
    connector_config.write_text(json.dumps({"connector.class": "FileStreamSink", "topics": topic, "file": "/dev/null"}))
    return {"topic": topic, "group": group, "znode": znode, "new": unique("ro"), "new_znode": f"/{unique('ro')}",
            "connector_config": str(connector_config)}


def zookeeper(secure) -> ZooKeeperBackend:
    sasl = {"mechanism": "DIGEST-MD5", "username": "streamctl", "password": secure.password("zookeeper-streamctl")}
    return ZooKeeperBackend(secure.zookeeper_hosts, timeout=5, sasl=sasl, read_only=False)


def world(secure, scene) -> dict:
    """What any of the mutations could have changed."""
    kafka = KafkaAdmin(secure.kafka_client(), timeout=10)
    md = kafka.metadata()
    state = secure.xdg_state / "streamctl"
    with zookeeper(secure) as zk:
        node = zk.get(scene["znode"])
        return {
            "topics": {t.name: len(t.partitions) for t in md.topics},
            "retention": kafka.topic_configs(scene["topic"])["retention.ms"].value,
            "offsets": kafka.committed(scene["group"]),
            "znode": (node.data, node.stat.version),
            "new znode": zk.exists(scene["new_znode"]),
            "connectors": httpx.get(f"{url(secure.state)}/connectors?expand=status&expand=info", timeout=10).json(),
            "state files": sorted(str(p.relative_to(state)) for p in state.rglob("*")
                                  if "sandbox" not in p.relative_to(state).parts),
        }


@pytest.mark.parametrize("how", ["flag", "context"])
@pytest.mark.parametrize("command", list(MUTATIONS), ids=" ".join)
def test_read_only_refuses(secure, scene, tmp_path, how, command):
    argv, operation = MUTATIONS[command]
    args = [a.format(**scene) for a in argv]
    config = secure.write_context(tmp_path / "ro.yaml", read_only=how == "context")
    before = world(secure, scene)
    if how == "flag":
        result = secure.cli("--config", str(config), "--read-only", *args, **secure.password_env())
        expected = f"streamctl: error: read-only mode (--read-only): refusing {operation}"
    else:
        result = secure.cli("--config", str(config), *args, **secure.password_env())
        expected = f"streamctl: error: context 'it' is read-only: refusing {operation}"
    assert result.returncode == 3
    assert one_error_line(result) == expected
    assert result.stdout == ""  # not even a plan: refused before any network call
    assert world(secure, scene) == before


# Mutations whose dry run has a plan to show on the secure sandbox (no agent or job runs there;
# an undo needs an earlier reset; a produce its input).
DRY_RUNS = [("topics", "create"), ("topics", "add-partitions"), ("topics", "alter-config"), ("topics", "delete"),
            ("groups", "reset-offsets"), ("elect-leaders",), ("zk", "create"), ("zk", "set"), ("zk", "delete"),
            ("connect", "create"), ("connect", "update"), ("connect", "pause"), ("connect", "resume"),
            ("connect", "stop"), ("connect", "restart"), ("connect", "delete"),
            ("acls", "create")]


@pytest.mark.parametrize("how", ["flag", "context"])
@pytest.mark.parametrize("command", DRY_RUNS, ids=" ".join)
def test_read_only_still_shows_the_plan(secure, scene, tmp_path, how, command):
    argv, _ = MUTATIONS[command]
    args = [a.format(**scene) for a in argv if a != "--execute"]
    config = secure.write_context(tmp_path / "ro.yaml", read_only=how == "context",
                                  connect={"urls": [url(secure.state)]})
    before = world(secure, scene)
    flag = ["--read-only"] if how == "flag" else []
    result = secure.cli("--config", str(config), *args, "-o", "json", *flag, **secure.password_env())
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["operation"]  # the plan
    assert "read-only" not in result.stderr
    assert world(secure, scene) == before
