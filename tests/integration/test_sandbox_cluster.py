"""The sandbox runs a real replicated cluster: ISR shrinks when a broker stops and recovers."""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.integration


def _replicated_topic(sandbox) -> str:
    name = f"rf3-{uuid.uuid4().hex[:8]}"
    kafka = sandbox.kafka()
    kafka.create_topic(name, partitions=3, replication_factor=3)
    sandbox.wait_until(
        lambda: (ps := kafka.metadata(name).topic_partitions(name)) and len(ps) == 3
        and all(len(p.isr) == 3 for p in ps),
        what=f"{name} fully in sync",
    )
    return name


def test_cluster_has_three_registered_brokers(sandbox):
    md = sandbox.kafka().metadata()
    assert [b.id for b in md.brokers] == [1, 2, 3]
    assert md.controller_id in {1, 2, 3}
    assert {b.port for b in md.brokers} == {s.port for s in sandbox.state.by_role("broker")}


def test_topic_with_replication_factor_three_spans_every_broker(sandbox):
    name = _replicated_topic(sandbox)
    for p in sandbox.kafka().metadata(name).topic_partitions(name):
        assert sorted(p.replicas) == [1, 2, 3]
        assert not p.under_replicated and not p.offline


@pytest.mark.parametrize("kill", [False, True], ids=["sigterm", "sigkill"])
def test_stopped_broker_shrinks_isr_and_restart_recovers_it(sandbox, kill):
    name = _replicated_topic(sandbox)
    kafka = sandbox.kafka()
    with sandbox.broker_stopped("kafka-2", kill=kill):
        # A SIGKILLed broker leaves ISR when its ZooKeeper session expires (6 s in the sandbox).
        shrunk = sandbox.wait_until(
            lambda: (ps := kafka.metadata(name).topic_partitions(name))
            and all(2 not in p.isr for p in ps) and ps,
            timeout=45, what="broker 2 to leave every ISR",
        )
        assert all(p.under_replicated for p in shrunk)
        assert all(p.leader in (1, 3) for p in shrunk)
        assert 2 not in {b.id for b in kafka.metadata().brokers}
    recovered = kafka.metadata(name).topic_partitions(name)
    assert all(sorted(p.isr) == [1, 2, 3] for p in recovered)
    assert not any(p.under_replicated for p in recovered)


def test_up_again_reports_the_running_stack(sandbox):
    before = {s.name: s.pid for s in sandbox.sandbox.state().services}
    state, started = sandbox.sandbox.up(brokers=3)
    assert started is False
    assert {s.name: s.pid for s in state.services} == before


def test_up_with_another_shape_is_refused(sandbox):
    from streamctl.errors import UsageError

    with pytest.raises(UsageError, match="3 broker"):
        sandbox.sandbox.up(brokers=1)


def test_status_marks_a_crashed_broker_with_its_log_tail(sandbox):
    from streamctl.jvm import processes as procs

    _, victim = sandbox.sandbox.service("kafka-3")
    procs.kill(victim.pid, victim.create_time)  # behind the sandbox's back: a crash
    try:
        rows = {r.name: r for r in sandbox.sandbox.status()}
        assert rows["kafka-3"].state == "crashed"
        assert rows["kafka-3"].pid is None
        assert rows["kafka-3"].log_tail, "a crashed service shows the tail of its log"
        assert rows["kafka-1"].state == "running"
    finally:
        _state, started = sandbox.sandbox.up(brokers=3)  # up restarts what died
    assert started is True
    assert {r.state for r in sandbox.sandbox.status()} == {"running"}
    sandbox.wait_until(lambda: 3 in {b.id for b in sandbox.kafka().metadata().brokers},
                       what="kafka-3 registered again")


def test_sandbox_context_points_at_the_cluster(sandbox):
    from streamctl.config import load_config

    ctx = load_config(sandbox.config_path).context("sandbox")
    assert ctx.kafka.bootstrap_servers == sandbox.bootstrap_servers
    assert ctx.kafka.expected_brokers == 3
    assert ctx.zookeeper.hosts == sandbox.state.zookeeper_hosts
