"""A librdkafka crash in the middle of a CLI command or `check` ends only the forked child that
made the call (backends/kafka/isolated.py): a crash is retried in a fresh child after a pause,
four in a row are named.

The moment is forced, not hoped for: every broker is frozen (SIGSTOP) so that the command's
Kafka child waits inside its request, then that child gets SIGABRT, as librdkafka's assertion
(confluentinc/librdkafka#4605) sends it, or SIGSEGV, as the NULL group handle (#5040) does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from contextlib import contextmanager

import psutil
import pytest
import yaml

from streamctl.sandbox.restarts import wait_in_sync
from tests.check_reasons import CLIENT_CRASHED, assert_unknowns_are_service_conditions
from tests.conftest import STREAMCTL
from tests.integration.kafka_helpers import commit, produce, unique, write_context

pytestmark = pytest.mark.integration

BROKERS = ("kafka-1", "kafka-2", "kafka-3")


@contextmanager
def brokers_frozen(sandbox):
    pids = [sandbox.sandbox.service(name)[1].pid for name in BROKERS]
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


def _kafka_child(command: subprocess.Popen, not_pid: int | None = None, timeout: float = 20.0) -> int:
    """The pid of the command's forked Kafka child (a new one when `not_pid` is given)."""
    ends = time.monotonic() + timeout
    while time.monotonic() < ends:
        children = [c.pid for c in psutil.Process(command.pid).children() if c.pid != not_pid]
        if children:
            return children[0]
        assert command.poll() is None, command.communicate()
        time.sleep(0.02)
    raise AssertionError("the command forked no Kafka child")


def _run_with_children_killed(sandbox, config, args: tuple[str, ...], kills: list[signal.Signals]):
    env = {**sandbox.cli_env(), "STREAMCTL_CONFIG": str(config)}
    command = subprocess.Popen([STREAMCTL, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True)
    child = None
    for sig in kills:
        # Frozen for one kill at a time, well inside the brokers' 6 s ZooKeeper session; the
        # next child is forked after the command's pause, so after the next freeze.
        with brokers_frozen(sandbox):
            child = _kafka_child(command, not_pid=child)
            time.sleep(0.3)  # inside its request to a frozen broker
            os.kill(child, sig)
    stdout, stderr = command.communicate(timeout=90)
    return command.returncode, stdout, stderr


@pytest.fixture(scope="module")
def lagging_group(sandbox, tmp_path_factory):
    topic, group = unique("crash"), unique("crashg")
    sandbox.kafka().create_topic(topic, 3, 3)
    produce(sandbox.bootstrap_servers, topic, 30, partitions=3)
    commit(sandbox.bootstrap_servers, group, {(topic, p): 4 for p in range(3)})
    config = write_context(tmp_path_factory.mktemp("crash") / "c.yaml", sandbox.bootstrap_servers,
                           kafka={"timeout": 8})
    yield topic, group, config
    # A freeze on a loaded host can outlast a broker's ZooKeeper session: it then leaves the
    # cluster for a while after SIGCONT. Later modules get the cluster whole again.
    wait_in_sync(sandbox.sandbox, "every broker back after the freezes")


@pytest.mark.parametrize("sig", [signal.SIGABRT, signal.SIGSEGV], ids=["abort", "segfault"])
def test_groups_lag_survives_its_kafka_client_crashing_once(sandbox, lagging_group, sig):
    topic, group, config = lagging_group
    code, stdout, stderr = _run_with_children_killed(sandbox, config, ("groups", "lag", group, "-o", "json"), [sig])
    assert code == 0, stdout + stderr
    assert "Traceback" not in stderr
    lags = {(l["topic"], l["partition"]): (l["committed"], l["lag"]) for l in json.loads(stdout)}
    assert lags == {(topic, p): (4, 6) for p in range(3)}


def test_reset_dry_run_survives_its_kafka_client_crashing_once(sandbox, lagging_group):
    topic, group, config = lagging_group
    code, stdout, stderr = _run_with_children_killed(
        sandbox, config, ("groups", "reset-offsets", group, "--topic", topic, "--to-earliest", "-o", "json"),
        [signal.SIGSEGV])
    assert code == 0, stdout + stderr
    plan = json.loads(stdout)
    assert {(c["object"], c["before"], c["after"]) for c in plan["changes"]} == \
        {(f"{topic}/{p}", 4, 0) for p in range(3)}
    assert "dry run" in stderr and "Traceback" not in stderr


def test_groups_lag_survives_three_crashes_in_a_row(sandbox, lagging_group):
    """A coordinator move can crash the client twice in a row (seen in CI): the pauses between
    fresh children outlast it."""
    topic, group, config = lagging_group
    code, stdout, stderr = _run_with_children_killed(sandbox, config, ("groups", "lag", group, "-o", "json"),
                                                     [signal.SIGSEGV, signal.SIGSEGV, signal.SIGABRT])
    assert code == 0, stdout + stderr
    assert {(l["topic"], l["partition"]): l["lag"] for l in json.loads(stdout)} == {(topic, p): 6 for p in range(3)}


def test_check_answers_unknown_when_the_client_crashes_every_time(sandbox, lagging_group):
    _, _, config = lagging_group
    code, stdout, stderr = _run_with_children_killed(
        sandbox, config, ("check", "--component", "kafka", "--format", "json", "--timeout", "30"),
        [signal.SIGABRT, signal.SIGSEGV, signal.SIGSEGV, signal.SIGABRT])
    assert code == 3, stdout + stderr  # not read: UNKNOWN, never 134 or 139, never "Kafka down"
    doc = json.loads(stdout)
    assert doc["state"] == "UNKNOWN"
    assert_unknowns_are_service_conditions(doc, stdout + stderr, also=CLIENT_CRASHED)
    assert "the Kafka client crashed 4 times (SIGABRT, SIGSEGV, SIGSEGV, SIGABRT" in json.dumps(doc)
    assert "Traceback" not in stderr


def test_check_over_two_contexts_survives_their_shared_kafka_child_crashing_once(sandbox, lagging_group, tmp_path):
    """`check --all-contexts` reads every context in one forked child (backends/kafka/shared_child.py):
    a crash there, the contexts' reads in flight, is asked again in a fresh child for each of them."""
    _, _, config = lagging_group
    context = yaml.safe_load(config.read_text())["contexts"]["it"]
    two = tmp_path / "two.yaml"
    two.write_text(yaml.safe_dump({"current-context": "a", "contexts": {"a": context, "b": context}}))
    code, stdout, stderr = _run_with_children_killed(
        sandbox, two, ("check", "--all-contexts", "--component", "kafka", "-o", "json", "--timeout", "30"),
        [signal.SIGSEGV])
    doc = json.loads(stdout)
    assert "Traceback" not in stderr
    checks = {entry["context"]: entry["check"] for entry in doc["contexts"]}
    assert sorted(checks) == ["a", "b"]
    for name, check in checks.items():
        assert check["components"]["kafka"]["evaluated"] is True, (name, check)
        assert check["state"] != "UNKNOWN", (name, check)
    assert code == doc["exit_code"] != 3, stdout + stderr
