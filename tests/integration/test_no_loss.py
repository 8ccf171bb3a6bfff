"""Nothing is lost: an offset reset whose commit fails half-way (the group's coordinator broker
frozen while the commit is in flight) leaves its undo file, from the CLI and from the dashboard,
and the undo file restores the old offsets; files are replaced atomically even when the writing
process dies mid-write; a torn audit line never swallows the next record."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from streamctl.backends.kafka.admin import KafkaAdmin
from streamctl.backends.kafka.isolated import call_in_child
from streamctl.backends.kafka.process import KafkaProcess
from streamctl.ops import audit
from streamctl.tui.screens.plan_dialog import PlanDialog
from tests.integration.kafka_helpers import commit, produce, unique, write_context
from tests.tui.live_dashboard import app_for, open_reset_plan, settle

pytestmark = pytest.mark.integration

BASE = 10  # committed offset per partition before the reset


@pytest.fixture
def frozen_commit(sandbox, tmp_path, monkeypatch):
    """An idle group on a 3-partition topic, a context with a 3 s Kafka timeout, and commits that
    run while the group's coordinator broker is stopped with SIGSTOP (then resumed): the
    dashboard's through its Kafka client process (frozen where the call leaves for it), the
    CLI's in a child process that freezes the broker itself (CLI_WITH_COORDINATOR_FROZEN)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    topic, group = unique("noloss"), unique("nolossg")
    admin = sandbox.admin()
    admin.create_topic(topic, 3, 3)
    produce(sandbox.bootstrap_servers, topic, 90, partitions=3)
    base = {(topic, p): BASE for p in range(3)}
    commit(sandbox.bootstrap_servers, group, base)
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers, kafka={"timeout": 3})
    real_call = KafkaProcess._call
    frozen = []

    def call_with_coordinator_frozen(self, method, *args, **kwargs):
        if method != "commit_offsets":
            return real_call(self, method, *args, **kwargs)
        coordinator = _coordinator(sandbox.bootstrap_servers, args[0])
        with sandbox.paused(f"kafka-{coordinator}"):
            frozen.append(coordinator)
            return real_call(self, method, *args, **kwargs)

    monkeypatch.setattr(KafkaProcess, "_call", call_with_coordinator_frozen)
    try:
        yield topic, group, base, config, admin, frozen
    finally:
        for name in ("kafka-1", "kafka-2", "kafka-3"):  # whatever a dead child left frozen
            os.kill(sandbox.sandbox.service(name)[1].pid, signal.SIGCONT)
    # A broker frozen past its ZooKeeper session is deregistered a moment after it resumes:
    # every broker registered again and every partition in sync before the next test.
    sandbox.wait_until(lambda: sandbox.sandbox.in_sync(sandbox.state), timeout=60,
                       what="every broker registered and every partition in sync after the frozen broker")


def _coordinator(bootstrap: str, group: str) -> int:
    """The group's coordinator, asked from a forked child (a DescribeGroups meeting a moved
    coordinator can crash librdkafka: the child's problem, never pytest's)."""
    def ask() -> int:
        admin = KafkaAdmin({"bootstrap.servers": bootstrap}, timeout=10)
        return admin._admin.describe_consumer_groups([group], request_timeout=10)[group].result(timeout=15).coordinator.id

    return call_in_child(ask, patience=60, what="describing the group", mutates=False)


# The CLI in a process of its own (librdkafka may abort the process a frozen coordinator's
# disconnect hits, confluentinc/librdkafka#4605: never pytest's), its commit wrapped to freeze
# the coordinator with SIGSTOP for the call and resume it after.
CLI_WITH_COORDINATOR_FROZEN = textwrap.dedent("""
    import os, signal, sys
    from streamctl import cli
    from streamctl.backends.kafka.admin import KafkaAdmin

    pids = dict(item.split("=") for item in os.environ["BROKER_PIDS"].split(","))
    real_commit = KafkaAdmin.commit_offsets

    def commit_with_coordinator_frozen(self, group, offsets):
        described = self._admin.describe_consumer_groups([group], request_timeout=10)[group]
        pid = int(pids[str(described.result(timeout=15).coordinator.id)])
        os.kill(pid, signal.SIGSTOP)
        print(f"froze broker pid {pid}", file=sys.stderr)
        try:
            real_commit(self, group, offsets)
        finally:
            os.kill(pid, signal.SIGCONT)

    KafkaAdmin.commit_offsets = commit_with_coordinator_frozen
    sys.exit(cli.main(sys.argv[1:]))
""")


def undo_files(tmp_path) -> list:
    return sorted((tmp_path / "state" / "streamctl" / "undo").rglob("*.csv"))


def restore_with_undo(sandbox, tmp_path, config, group) -> None:
    result = sandbox.cli("--config", str(config), "groups", "undo-reset", group, "--execute",
                         XDG_STATE_HOME=str(tmp_path / "state"))
    assert result.returncode == 0, result.stderr


def test_cli_reset_failing_mid_commit_keeps_the_undo_file(sandbox, tmp_path, frozen_commit):
    topic, group, base, config, admin, _ = frozen_commit
    pids = ",".join(f"{n}={sandbox.sandbox.service(f'kafka-{n}')[1].pid}" for n in (1, 2, 3))

    result = subprocess.run(
        [sys.executable, "-c", CLI_WITH_COORDINATOR_FROZEN, "--config", str(config), "groups",
         "reset-offsets", group, "--topic", topic, "--to-latest", "--execute"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "BROKER_PIDS": pids, "XDG_STATE_HOME": str(tmp_path / "state")})

    assert "froze broker pid" in result.stderr, f"the commit ran with the coordinator frozen: {result.stderr}"
    assert result.returncode == 1, result.stderr
    [error] = [line for line in result.stderr.splitlines() if not line.startswith("froze")]
    assert error.startswith("streamctl: error:") and "committing offsets" in error
    [undo] = undo_files(tmp_path)
    assert sorted(undo.read_text().splitlines()) == sorted(f"{t},{p},{o}" for (t, p), o in base.items())
    records = list(audit.read())
    assert [(r["operation"], r["result"]) for r in records] == [("groups.reset-offsets", "failed")]
    # The request may still land once the broker resumes: either way the undo file restores.
    assert admin.committed(group) in (base, {(topic, p): 30 for p in range(3)})
    restore_with_undo(sandbox, tmp_path, config, group)
    assert admin.committed(group) == base


async def test_dashboard_reset_failing_mid_commit_keeps_the_undo_file(sandbox, tmp_path, frozen_commit):
    _topic, group, base, config, admin, frozen = frozen_commit
    app = app_for(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_reset_plan(app, pilot, group)
        await pilot.click("#execute")
        await settle(app, pilot)
        assert frozen, "the commit ran with the coordinator frozen"
        assert isinstance(app.screen, PlanDialog), "a failed execution keeps the dialog open"
        error = str(app.screen.query_one("#plan-error").render())
        assert "committing offsets" in error and "\n" not in error.strip()
    [undo] = undo_files(tmp_path)
    assert sorted(undo.read_text().splitlines()) == sorted(f"{t},{p},{o}" for (t, p), o in base.items())
    restore_with_undo(sandbox, tmp_path, config, group)
    assert admin.committed(group) == base


CRASH_MID_WRITE = textwrap.dedent("""
    import os, signal, sys
    from streamctl.atomic import write_atomic
    # Die the moment the new content is written, before it could replace the old file.
    os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)
    write_atomic(sys.argv[1], "new content, never to be seen\\n" * 10000)
""")


def test_a_process_killed_mid_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "config.yaml"
    target.write_text("current-context: old\n")
    result = subprocess.run([sys.executable, "-c", CRASH_MID_WRITE, str(target)], capture_output=True)
    assert result.returncode == -9  # killed, not finished
    assert target.read_text() == "current-context: old\n"
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == ["config.yaml"]


def test_a_torn_audit_line_does_not_swallow_the_next_record(tmp_path):
    path = tmp_path / "audit.jsonl"
    audit.record("topics.create", {"topic": "a"}, "ok", context="it", path=path)
    with open(path, "a") as f:
        f.write('{"time": "2026-11-26T00:00:00+00:00", "operat')  # a crash mid-append
    audit.record("topics.create", {"topic": "b"}, "ok", context="it", path=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 3
    assert json.loads(lines[2])["parameters"] == {"topic": "b"}
