"""Kafka operations against the real sandbox: plans, --execute, undo, read-only, audit."""

from __future__ import annotations

import json
import re
import time

import pytest
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient

from streamctl.backends.kafka.admin import KafkaAdmin
from streamctl.backends.kafka.isolated import CRASH_AFTER_ENV
from streamctl.jvm.java import run_tool
from tests.integration.kafka_helpers import commit, live_member, produce, unique, write_context

pytestmark = pytest.mark.integration


def cli_in(running, tmp_path):
    """Run `streamctl` against a per-test config and state dir (audit log, undo files)."""
    config = write_context(tmp_path / "c.yaml", running.bootstrap_servers)

    def run(*args, **env):
        return running.cli("--config", str(config), *args, XDG_STATE_HOME=str(tmp_path / "state"), **env)

    run.state = tmp_path / "state" / "streamctl"
    run.config = config
    return run


@pytest.fixture
def ops(sandbox, tmp_path):
    return cli_in(sandbox, tmp_path)


@pytest.fixture
def cluster_ops(cluster, tmp_path):
    """ops on the ZooKeeper-mode sandbox or the KRaft one (with `cluster`)."""
    return cli_in(cluster, tmp_path)


def audit_records(ops) -> list[dict]:
    path = ops.state / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def admin(sandbox) -> KafkaAdmin:
    return sandbox.admin()


# ---- offset resets equal Kafka's own tool -----------------------------------------------------

@pytest.fixture(scope="module")
def reset_scene(sandbox):
    """3 partitions x 300 records in two waves 2 s apart; partition 2 starts at 30 (deleted)."""
    topic, group = unique("reset"), unique("resetg")
    bootstrap = sandbox.bootstrap_servers
    admin(sandbox).create_topic(topic, 3, 3)
    produce(bootstrap, topic, 450, partitions=3)
    time.sleep(2)
    middle = time.time()
    time.sleep(0.5)
    produce(bootstrap, topic, 450, partitions=3)
    client = AdminClient({"bootstrap.servers": bootstrap})  # keep it alive until the futures resolve
    for future in client.delete_records([TopicPartition(topic, 2, 30)]).values():
        future.result(timeout=30)
    base = {(topic, 0): 100, (topic, 1): 50, (topic, 2): 40}
    commit(bootstrap, group, base)
    return topic, group, base, middle


def tool_reset(bootstrap, group, topic, mode_args) -> dict[tuple[str, int], int]:
    result = run_tool("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--bootstrap-server",
                      bootstrap, "--group", group, "--reset-offsets", "--topic", topic, *mode_args, "--dry-run")
    assert result.returncode == 0, result.stdout[-500:]
    return {(t, int(p)): int(o) for t, p, o in re.findall(rf"{group}\s+(\S+)\s+(\d+)\s+(-?\d+)", result.stdout)}


MODES = {
    "earliest": ["--to-earliest"],
    "latest": ["--to-latest"],
    "offset": ["--to-offset", "200"],
    "offset-clamped-high": ["--to-offset", "99999"],
    "offset-clamped-low": ["--to-offset", "0"],
    "shift-back-clamped": ["--shift-by", "-70"],
    "shift-forward-clamped": ["--shift-by", "1000"],
    "datetime-middle": None,  # filled from the scene's middle timestamp
    "datetime-future": ["--to-datetime", "2099-01-01T00:00:00.000Z"],
    "duration": ["--by-duration", "PT1H"],
    "duration-tiny": ["--by-duration", "PT0.001S"],
    "from-file": None,  # a CSV with one in-range, one too-high and one too-low offset
}


@pytest.mark.parametrize("case", list(MODES))
def test_reset_moves_offsets_where_kafka_tool_says(sandbox, ops, reset_scene, tmp_path, case):
    topic, group, base, middle = reset_scene
    args = MODES[case]
    if case == "datetime-middle":
        args = ["--to-datetime", time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(middle))]
    if case == "from-file":
        csv_file = tmp_path / "offsets.csv"
        csv_file.write_text(f"{topic},0,5\n{topic},1,999999\n{topic},2,3\n")
        args = ["--from-file", str(csv_file)]
    commit(sandbox.bootstrap_servers, group, base)
    expected = tool_reset(sandbox.bootstrap_servers, group, topic, args)
    assert len(expected) == 3
    result = ops("groups", "reset-offsets", group, "--topic", topic, *args, "--execute")
    assert result.returncode == 0, result.stderr
    assert admin(sandbox).committed(group) == expected
    if case == "datetime-middle":
        assert 0 < sum(expected.values()) < 900, "the middle of the log, not an end"


def test_dry_run_changes_nothing_and_export_writes_kafka_csv(sandbox, ops, reset_scene):
    topic, group, base, _ = reset_scene
    commit(sandbox.bootstrap_servers, group, base)
    result = ops("groups", "reset-offsets", group, "--topic", f"{topic}:0,1", "--to-latest", "--export")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"{topic},0,300", f"{topic},1,300"]
    assert "dry run" in result.stderr
    assert admin(sandbox).committed(group) == base


def test_reset_then_undo_restores_identical_offsets(sandbox, ops, reset_scene):
    topic, group, base, _ = reset_scene
    commit(sandbox.bootstrap_servers, group, base)
    reset = ops("groups", "reset-offsets", group, "--topic", topic, "--to-earliest", "--execute")
    assert reset.returncode == 0, reset.stderr
    assert admin(sandbox).committed(group) != base
    undo_files = list((ops.state / "undo").rglob("*.csv"))
    assert len(undo_files) == 1
    assert sorted(undo_files[0].read_text().splitlines()) == sorted(f"{t},{p},{o}" for (t, p), o in base.items())
    undo = ops("groups", "undo-reset", group, "--execute")
    assert undo.returncode == 0, undo.stderr
    assert admin(sandbox).committed(group) == base


def test_undo_file_is_on_disk_before_the_commit(sandbox, tmp_path, reset_scene, monkeypatch):
    """The commit itself checks: when it runs, the undo file holding the old offsets exists."""
    from click.testing import CliRunner

    from streamctl import cli

    topic, group, base, _ = reset_scene
    commit(sandbox.bootstrap_servers, group, base)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    seen_file = tmp_path / "seen.jsonl"  # the commit runs in a forked child: it reports through a file
    real_commit = KafkaAdmin.commit_offsets

    def commit_after_checking_undo(self, group_id, offsets):
        undo_files = [p.read_text() for p in (tmp_path / "state").rglob("undo/**/*.csv")]
        with seen_file.open("a") as out:
            out.write(json.dumps(undo_files) + "\n")
        return real_commit(self, group_id, offsets)

    monkeypatch.setattr(KafkaAdmin, "commit_offsets", commit_after_checking_undo)
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers)
    result = CliRunner().invoke(cli.cli, ["--config", str(config), "groups", "reset-offsets", group,
                                          "--topic", topic, "--to-latest", "--execute"])
    assert result.exit_code == 0, result.output
    seen = [json.loads(line) for line in seen_file.read_text().splitlines()]
    assert len(seen) == 1 and len(seen[0]) == 1
    assert f"{topic},0,100" in seen[0][0]


def test_reset_of_a_group_with_a_live_consumer_is_refused(sandbox, ops):
    topic, group = unique("live"), unique("liveg")
    admin(sandbox).create_topic(topic, 1, 3)
    produce(sandbox.bootstrap_servers, topic, 10)
    with live_member(sandbox.bootstrap_servers, topic, group, "live-reader"):
        sandbox.wait_until(lambda: getattr(admin(sandbox).snapshot(lag_time=False, group_filter=lambda g: g == group)
                                           .group(group), "state", None) == "STABLE", what="the consumer to join")
        result = ops("groups", "reset-offsets", group, "--topic", topic, "--to-earliest", "--execute")
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "active members" in result.stderr and "live-reader" in result.stderr
    assert not list((ops.state / "undo").rglob("*.csv")) if (ops.state / "undo").exists() else True


def test_reset_over_a_partition_without_a_leader_is_refused_in_one_line(sandbox, ops):
    """Its log range cannot be read, so no target can be clamped into it (this was a
    TypeError traceback while a coordinator move left a partition's offsets unread)."""
    topic, group = unique("noleader"), unique("noleaderg")
    kafka = admin(sandbox)
    kafka.create_topic(topic, 3, 1)  # one replica each: a stopped broker leaves its partition offline
    produce(sandbox.bootstrap_servers, topic, 30, partitions=3)
    base = {(topic, p): 5 for p in range(3)}
    commit(sandbox.bootstrap_servers, group, base)
    coordinator = kafka.snapshot(lag_time=False, group_filter=lambda g: g == group).group(group).coordinator
    leaders = {p.partition: p.leader for p in kafka.metadata(topic).topic_partitions(topic)}
    # The lowest broker id when it is not the coordinator: the one a metadata read once asked
    # alone whether the cluster runs KRaft, and failed on while it stayed listed.
    partition, broker = min(((p, b) for p, b in leaders.items() if b != coordinator), key=lambda pb: (pb[1], pb[0]))
    with sandbox.broker_stopped(f"kafka-{broker}"):
        sandbox.wait_until(lambda: any(p.offline for p in kafka.metadata(topic).topic_partitions(topic)),
                           timeout=45, what=f"{topic}/{partition} offline")
        result = ops("groups", "reset-offsets", group, "--topic", topic, "--to-earliest", "--execute")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert f"the log range of {topic}/{partition} could not be read (offline: no leader)" in result.stderr
    assert "nothing was reset" in result.stderr
    assert kafka.committed(group) == base
    assert not (ops.state / "undo").exists() or not list((ops.state / "undo").rglob("*.csv"))


# ---- topics ------------------------------------------------------------------------------------

def test_topic_lifecycle_create_grow_configure_delete(cluster, cluster_ops):
    name = unique("life")
    created = cluster_ops("topics", "create", name, "--partitions", "2", "--replication-factor", "3",
                  "--config", "retention.ms=3600000", "--execute")
    assert created.returncode == 0, created.stderr
    kafka = admin(cluster)
    assert len(kafka.metadata(name).topic_partitions(name)) == 2
    assert kafka.topic_configs(name)["retention.ms"].value == "3600000"

    grown = cluster_ops("topics", "add-partitions", name, "--total", "4", "--execute")
    assert grown.returncode == 0, grown.stderr
    assert "keys will map to other partitions" in grown.stdout
    assert len(kafka.metadata(name).topic_partitions(name)) == 4

    altered = cluster_ops("topics", "alter-config", name, "retention.ms=7200000", "cleanup.policy=compact",
                  "-o", "json")
    plan = json.loads(altered.stdout)
    assert {(c["field"], c["before"], c["after"]) for c in plan["changes"]} == {
        ("retention.ms", "3600000", "7200000"), ("cleanup.policy", "delete", "compact")}
    assert kafka.topic_configs(name)["retention.ms"].value == "3600000", "a dry run changes nothing"
    assert cluster_ops("topics", "alter-config", name, "retention.ms=7200000", "--execute").returncode == 0
    assert kafka.topic_configs(name)["retention.ms"].value == "7200000"

    refused = cluster_ops("topics", "delete", name, "--execute")
    assert refused.returncode != 0 and f"--yes-delete {name}" in refused.stderr
    assert kafka.metadata(name).topic(name) is not None
    deleted = cluster_ops("topics", "delete", name, "--execute", "--yes-delete", name)
    assert deleted.returncode == 0, deleted.stderr
    cluster.wait_until(lambda: kafka.metadata().topic(name) is None, what=f"{name} gone")
    operations = [(r["operation"], r["result"]) for r in audit_records(cluster_ops)]
    assert operations == [("topics.create", "ok"), ("topics.add-partitions", "ok"),
                          ("topics.alter-config", "ok"), ("topics.delete", "ok")]


def test_delete_plan_names_consuming_groups(sandbox, ops, reset_scene):
    topic, group, _base, _ = reset_scene
    result = ops("topics", "delete", topic, "-o", "json")
    assert result.returncode == 0, result.stderr
    assert any(group in w for w in json.loads(result.stdout)["warnings"])


# ---- bad input: one line, non-zero, nothing changed ------------------------------------------

BAD = {
    "illegal characters": (["topics", "create", "bad name!", "--partitions", "1", "--replication-factor", "1"],
                           "illegal topic name"),
    "dot": (["topics", "create", ".", "--partitions", "1", "--replication-factor", "1"], "illegal topic name"),
    "too long": (["topics", "create", "x" * 250, "--partitions", "1", "--replication-factor", "1"],
                 "at most 249"),
    "zero partitions": (["topics", "create", "ok-name", "--partitions", "0", "--replication-factor", "1"],
                        "--partitions must be at least 1"),
    "negative partitions": (["topics", "create", "ok-name", "--partitions", "-2", "--replication-factor", "1"],
                            "--partitions must be at least 1"),
    "replication above brokers": (["topics", "create", "ok-name", "--partitions", "1",
                                   "--replication-factor", "4"], "3 live broker"),
    "unknown config": (["topics", "create", "ok-name", "--partitions", "1", "--replication-factor", "1",
                        "--config", "retention.msec=1"], "unknown topic config 'retention.msec'"),
    "config type": (["topics", "create", "ok-name", "--partitions", "1", "--replication-factor", "1",
                     "--config", "retention.ms=soon"], "expected an integer"),
    "decrease partitions": (["topics", "add-partitions", "{topic}", "--total", "2"], "cannot remove partitions"),
    "bad datetime": (["groups", "reset-offsets", "{group}", "--topic", "{topic}", "--to-datetime", "yesterday"],
                     "expected ISO 8601"),
    "bad duration": (["groups", "reset-offsets", "{group}", "--topic", "{topic}", "--by-duration", "1 hour"],
                     "ISO 8601 duration"),
    "missing partition": (["groups", "reset-offsets", "{group}", "--topic", "{topic}:7", "--to-earliest"],
                          "has no partition 7"),
    "malformed csv": (["groups", "reset-offsets", "{group}", "--from-file", "{csv}"], "expected topic,partition,offset"),
    "unknown group": (["groups", "reset-offsets", "no-such-group-x", "--topic", "{topic}", "--to-earliest"],
                      "no consumer group 'no-such-group-x'"),
    "two modes": (["groups", "reset-offsets", "{group}", "--topic", "{topic}", "--to-earliest", "--to-latest"],
                  "exactly one of"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_and_changes_nothing(sandbox, ops, reset_scene, tmp_path, case):
    topic, group, base, _ = reset_scene
    commit(sandbox.bootstrap_servers, group, base)
    csv_file = tmp_path / "bad.csv"
    csv_file.write_text(f"{topic};0;5\n")
    args, message = BAD[case]
    args = [a.format(topic=topic, group=group, csv=csv_file) for a in args]
    topics_before = {t.name: len(t.partitions) for t in admin(sandbox).metadata().topics}
    result = ops(*args, "--execute")
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("streamctl: error:"), result.stderr
    assert message in lines[0]
    assert {t.name: len(t.partitions) for t in admin(sandbox).metadata().topics} == topics_before
    assert admin(sandbox).committed(group) == base
    assert audit_records(ops) == []


# ---- read-only and the audit log -----------------------------------------------------------------

MUTATIONS = [
    ["topics", "create", "ro-topic", "--partitions", "1", "--replication-factor", "1", "--execute"],
    ["topics", "add-partitions", "{topic}", "--total", "9", "--execute"],
    ["topics", "alter-config", "{topic}", "retention.ms=1", "--execute"],
    ["topics", "delete", "{topic}", "--execute", "--yes-delete", "{topic}"],
    ["groups", "reset-offsets", "{group}", "--topic", "{topic}", "--to-earliest", "--execute"],
    ["groups", "undo-reset", "{group}", "--execute"],
    ["elect-leaders", "--execute"],
]


@pytest.mark.parametrize("how", ["flag", "context"])
@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: " ".join(m[:2]))
def test_read_only_refuses_every_mutation(sandbox, ops, reset_scene, tmp_path, how, mutation):
    topic, group, base, _ = reset_scene
    args = [a.format(topic=topic, group=group) for a in mutation]
    if how == "flag":
        result = ops("--read-only", *args)
        expected = "read-only mode (--read-only): refusing"
    else:
        config = write_context(tmp_path / "ro.yaml", sandbox.bootstrap_servers, read_only=True)
        result = ops("--config", str(config), *args)
        expected = "context 'it' is read-only: refusing"
    assert result.returncode == 3
    named = " ".join(mutation[:2]) if mutation[0] != "elect-leaders" else "elect-leaders"
    assert result.stderr.strip().splitlines() == [f"streamctl: error: {expected} {named}"]
    assert admin(sandbox).committed(group) == base or mutation[1] != "reset-offsets"
    assert audit_records(ops) == []


@pytest.mark.parametrize("how", ["flag", "context"])
def test_read_only_still_previews_plans(sandbox, ops, reset_scene, tmp_path, how):
    """A monitoring host's read-only context shows what a change would do (and the time syntax
    of --from-time works for --by-duration); only --execute is refused."""
    topic, group, base, _ = reset_scene
    config = write_context(tmp_path / "ro.yaml", sandbox.bootstrap_servers, read_only=how == "context")
    flag = ["--read-only"] if how == "flag" else []
    reset = ["groups", "reset-offsets", group, "--topic", topic, "--by-duration", "1h", "-o", "json"]
    dry = ops("--config", str(config), *flag, *reset)
    assert dry.returncode == 0, dry.stderr
    plan = json.loads(dry.stdout)
    assert plan["operation"] == "groups.reset-offsets" and plan["changes"]
    assert dry.stderr.strip() == "dry run: nothing changed; add --execute to apply"
    executed = ops(*reset, "--execute", "--config", str(config), *flag)  # the options after it, too
    refusal = "read-only mode (--read-only)" if how == "flag" else "context 'it' is read-only"
    assert executed.returncode == 3
    assert executed.stderr.splitlines() == [f"streamctl: error: {refusal}: refusing groups reset-offsets"]
    assert executed.stdout == ""  # refused before any network call
    assert admin(sandbox).committed(group) == base
    assert audit_records(ops) == []


def test_elect_leaders_restores_preferred_leaders_and_audits_failures(cluster, cluster_ops):
    name = unique("elect")
    kafka = admin(cluster)
    kafka.create_topic(name, 3, 3)
    cluster.wait_until(lambda: all(len(p.isr) == 3 for p in kafka.metadata(name).topic_partitions(name)),
                       what="in sync")
    with cluster.broker_stopped("kafka-2"):
        cluster.wait_until(lambda: all(p.leader != 2 for p in kafka.metadata(name).topic_partitions(name)),
                           timeout=45, what="leadership moved off broker 2")
        failed = cluster_ops("elect-leaders", "--topic", name, "--execute")
        assert failed.returncode != 0 and "election failed" in failed.stderr
    plan = json.loads(cluster_ops("elect-leaders", "--topic", name, "-o", "json").stdout)
    moved = {c["object"] for c in plan["changes"]}
    assert moved, "broker 2's preferred partitions are led elsewhere after its restart"
    # On the ZooKeeper-mode cluster the election's Kafka child crashes right after the call
    # (STREAMCTL_TEST_CRASH_AFTER): it is not asked again; the leaders are read back, done.
    crash = {} if cluster.kraft else {CRASH_AFTER_ENV: "elect_preferred"}
    done = cluster_ops("elect-leaders", "--topic", name, "--execute", **crash)
    assert done.returncode == 0, done.stderr
    assert ("note: the answer was lost (elect_preferred: the Kafka client crashed" in done.stderr) == bool(crash)
    assert all(p.leader == p.replicas[0] for p in kafka.metadata(name).topic_partitions(name))
    records = audit_records(cluster_ops)
    assert [(r["operation"], r["result"]) for r in records] == [("elect-leaders", "failed"), ("elect-leaders", "ok")]
    assert records[0]["error"] and records[1]["user"] and records[1]["context"] == "it"
    listing = cluster_ops("audit", "-o", "json")
    assert [r["result"] for r in json.loads(listing.stdout)] == ["failed", "ok"]
