"""The real `weblogs` Flume agent of the session sandbox: events into Kafka, counters, faults."""

from __future__ import annotations

import json
import os
import shlex
import time
import uuid
from pathlib import Path

import pytest
import yaml
from confluent_kafka import Consumer, TopicPartition

from streamctl.backends.kafka.client import KafkaError
from streamctl.demo.flume_agent import AGENT, AGENT_SERVICE, LOADGEN_SERVICE, TOPIC
from streamctl.flume import launcher
from streamctl.flume.control import sandbox_agents
from streamctl.jvm import processes as procs
from streamctl.jvm.java import java
from tests.conftest import run_cli

pytestmark = pytest.mark.integration

BROKERS = ("kafka-1", "kafka-2", "kafka-3")


@pytest.fixture
def agent(sandbox) -> dict:
    """The sandbox agent's record (service, metrics_url, config_file, access_log, topic)."""
    return sandbox_agents(sandbox.sandbox.load())[AGENT]


def status(sandbox, *args: str, **env) -> dict:
    result = sandbox.cli("agents", "status", AGENT, "-o", "json", *args, **env)
    assert result.returncode == 0, result.stdout + result.stderr
    (found,) = json.loads(result.stdout)
    return found


def counters(found: dict) -> dict[str, int]:
    (source,), (channel,), (sink,) = found["sources"], found["channels"], found["sinks"]
    return {"accepted": source["accepted"], "size": channel["size"], "drained": sink["drained"]}


def high_watermarks(sandbox) -> dict[int, int]:
    snap = sandbox.kafka().snapshot(groups=False, lag_time=False)
    return {p.partition: p.high for p in snap.topic_partitions(TOPIC)}


def consume_new(bootstrap: str, start: dict[int, int], end: dict[int, int]) -> list[str]:
    """Exactly the records between two sets of offsets of the topic."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"flume-it-{uuid.uuid4().hex[:6]}",
                         "enable.auto.commit": False, "log_level": "0"})
    consumer.assign([TopicPartition(TOPIC, p, o) for p, o in start.items()])
    wanted = sum(end[p] - start[p] for p in start)
    values: list[str] = []
    try:
        while len(values) < wanted:
            message = consumer.poll(10)
            assert message is not None, f"only {len(values)} of {wanted} records consumed"
            assert message.error() is None, message.error()
            values.append(message.value().decode())
    finally:
        consumer.close()
    return values


def settled(sandbox, seen: list) -> dict | None:
    """Counters once the channel is empty and nothing moved for longer than the TAILDIR
    source's back-off (it polls an unchanged file at most every 5 s). Not accepted == drained:
    after an agent restart (the fault suite kills it) the file channel replays events the
    previous run accepted, so the new run drains more than it accepted."""
    now, at = counters(status(sandbox)), time.monotonic()
    if now["size"] or (seen and seen[-1][1] != now):
        seen.clear()
    seen.append((at, now))
    return now if at - seen[0][0] >= 7 else None


def test_load_generator_events_reach_kafka_and_counters_rise(sandbox, agent):
    # The watermarks first: every event drained after `first` is then above them (the sink
    # sends with acks=all). The other way round, events drained while the watermarks were being
    # read counted as growth yet sat under the marks (CI saw 7334 > 7334 fail).
    marks = high_watermarks(sandbox)
    first = status(sandbox)

    def moved():
        now = status(sandbox)
        grown = [counters(now)[k] - counters(first)[k] for k in ("accepted", "drained")]
        return now if min(grown) >= 30 else None

    later = sandbox.wait_until(moved, timeout=60, what="the load generator's lines accepted and drained")
    assert later["interval"] is not None and later["sources"][0]["accept_rate"] > 0
    assert later["channels"][0]["put_rate"] > 0 and later["sinks"][0]["drain_rate"] > 0
    assert later["sinks"][0]["channel"] == "buffer"
    assert sum(high_watermarks(sandbox).values()) > sum(marks.values())

    # Exact accounting: pause the generator, write N known lines, follow them into Kafka.
    sandbox.sandbox.stop_service(LOADGEN_SERVICE)
    try:
        seen: list = []
        before = sandbox.wait_until(lambda: settled(sandbox, seen), timeout=60, interval=1.5,
                                    what="the agent idle and its channel empty")
        start = high_watermarks(sandbox)
        lines = [f'127.0.0.1 - - [01/Jan/2026:00:00:00 +0000] "GET /it/{uuid.uuid4().hex} HTTP/1.1" 200 {i} "-" "it"'
                 for i in range(25)]
        with open(agent["access_log"], "a", encoding="utf-8") as log:
            log.write("".join(line + "\n" for line in lines))
        after = sandbox.wait_until(
            lambda: (c := counters(status(sandbox)))["drained"] >= before["drained"] + 25 and c,
            timeout=60, what="25 new events drained")
        end = high_watermarks(sandbox)
        assert after["accepted"] - before["accepted"] == 25
        assert after["drained"] - before["drained"] == 25
        assert sum(end.values()) - sum(start.values()) == 25
        assert sorted(consume_new(sandbox.bootstrap_servers, start, end)) == sorted(lines)
    finally:
        sandbox.sandbox.start_service(LOADGEN_SERVICE)


def check(sandbox, config: Path, state: Path, *args: str):
    env = {**os.environ, "STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(state)}
    return run_cli("check", "--component", "flume", *args, env=env, timeout=60)


def flume_context(tmp_path: Path, sandbox, agent: dict, **extra) -> Path:
    data = {"current-context": "it", "contexts": {"it": {
        "kafka": {"bootstrap_servers": sandbox.bootstrap_servers},
        "flume": {"agents": {AGENT: {"metrics_url": agent["metrics_url"], "config_file": agent["config_file"]}}},
        **extra}}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def cluster_healthy(sandbox) -> bool:
    try:
        md = sandbox.kafka(timeout=5).metadata()
    except KafkaError:
        return False
    return len(md.brokers) == 3 and not any(p.under_replicated for p in md.partitions)


def test_broker_outage_fills_the_channel_and_check_reports_it(sandbox, agent, tmp_path):
    config = flume_context(tmp_path, sandbox, agent)
    state = tmp_path / "state"
    baseline = check(sandbox, config, state, "--format", "json")
    assert baseline.returncode == 0, baseline.stdout + baseline.stderr
    size_before = counters(status(sandbox))["size"]
    # One at a time: Sandbox methods each load, change and save state.json.
    for name in BROKERS:
        sandbox.sandbox.stop_service(name)
    try:
        def reported():
            result = check(sandbox, config, state, "--format", "json")
            codes = {f["code"]: f for f in json.loads(result.stdout)["findings"]}
            return (result, codes) if {"FLUME_SINK_FAILING", "FLUME_SINK_STALLED"} <= set(codes) else None

        result, codes = sandbox.wait_until(reported, timeout=120, interval=3,
                                           what="check reporting the failing, stalled sink")
        outage = status(sandbox)
    finally:
        for name in BROKERS:
            sandbox.sandbox.start_service(name, wait=False)
        sandbox.wait_until(lambda: cluster_healthy(sandbox), timeout=120,
                           what="3 brokers and every partition in sync")
    assert result.returncode == 2, result.stdout
    assert codes["FLUME_SINK_STALLED"]["severity"] == "CRIT"
    assert codes["FLUME_SINK_FAILING"]["severity"] == "WARN"
    assert "RollbackCount +" in codes["FLUME_SINK_FAILING"]["text"]
    assert outage["channels"][0]["size"] > size_before + 20
    assert sum(outage["sinks"][0]["failures"].values()) > 0
    # Brokers back: the sink drains what the channel buffered.
    held = outage["channels"][0]["size"]
    drained_before = outage["sinks"][0]["drained"]
    sandbox.wait_until(lambda: counters(status(sandbox))["size"] < min(held, 50), timeout=120,
                       what="the channel drained")
    assert counters(status(sandbox))["drained"] >= drained_before + held


def test_killed_agent_shows_down_and_check_is_critical(sandbox, agent, tmp_path):
    config = flume_context(tmp_path, sandbox, agent)
    sandbox.sandbox.stop_service(AGENT_SERVICE, kill=True)
    try:
        down = sandbox.cli("agents", "status")
        result = check(sandbox, config, tmp_path / "state")
        listed = sandbox.cli("agents", "list", "-o", "json")
    finally:
        sandbox.sandbox.start_service(AGENT_SERVICE)
    assert down.returncode == 1, down.stdout + down.stderr
    assert f"{AGENT} down: {agent['metrics_url']}: connection refused" in " ".join(down.stdout.split())
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout.startswith(f"STREAMCTL CRITICAL: 1 critical: agent {AGENT} unreachable at "
                                    f"{agent['metrics_url']}: connection refused")
    assert "'flume_agents_up'=0;;1:;0;1" in result.stdout
    (row,) = json.loads(listed.stdout)
    assert (row["control"], row["process"]) == ("sandbox", "stopped")


def audit_records(sandbox) -> list[dict]:
    path = sandbox.xdg_state / "streamctl" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_stop_and_start_the_sandbox_agent_from_the_cli(sandbox, agent):
    url = agent["metrics_url"]
    try:
        refused = sandbox.cli("--read-only", "agents", "stop", AGENT, "--execute")
        assert refused.returncode == 3
        assert refused.stderr.strip() == "streamctl: error: read-only mode (--read-only): refusing agents.stop"
        dry = sandbox.cli("agents", "stop", AGENT)
        assert dry.returncode == 0 and "dry run: nothing changed" in dry.stderr
        assert "running" in dry.stdout and "stopped" in dry.stdout
        assert status(sandbox)["up"]

        stopped = sandbox.cli("agents", "stop", AGENT, "--execute")
        assert stopped.returncode == 0, stopped.stderr
        assert not procs.port_accepts(int(url.rsplit(":", 1)[1].split("/")[0]))
        again = sandbox.cli("agents", "stop", AGENT, "--execute")
        assert "nothing to change: agent weblogs is already stopped" in again.stderr

        started = sandbox.cli("agents", "start", AGENT, "--execute")
        assert started.returncode == 0, started.stderr
        assert status(sandbox)["up"]
    finally:
        sandbox.sandbox.start_service(AGENT_SERVICE)
    records = [r for r in audit_records(sandbox) if r["operation"].startswith("agents.")]
    assert [(r["operation"], r["result"]) for r in records[-2:]] == [("agents.stop", "ok"), ("agents.start", "ok")]
    assert records[-1]["parameters"] == {"agent": AGENT, "control": "sandbox"}


SIDE_AGENT = """\
side.sources = gen
side.channels = mem
side.sinks = roll
side.sources.gen.type = seq
side.sources.gen.totalEvents = 500
side.sources.gen.channels = mem
side.channels.mem.type = memory
side.sinks.roll.type = file_roll
side.sinks.roll.sink.directory = {out}
side.sinks.roll.channel = mem
"""


@pytest.mark.parametrize("how", ["command", "launcher"])
def test_config_declared_agent_runs_detached_with_a_pid_file(sandbox, tmp_path, how):
    (metrics_port,) = procs.free_ports(1)
    definition = tmp_path / "side.properties"
    (tmp_path / "out").mkdir()
    definition.write_text(SIDE_AGENT.format(out=tmp_path / "out"))
    entry = {"metrics_url": f"http://127.0.0.1:{metrics_port}/metrics", "config_file": str(definition)}
    if how == "command":
        log4j = tmp_path / "log4j2.properties"
        log4j.write_text(launcher.LOG4J2)
        argv = launcher.argv("side", definition, metrics_port, log4j)
        entry["command"] = "exec " + shlex.join([java(), *argv[1:]])
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"current-context": "it", "contexts": {"it": {
        "kafka": {"bootstrap_servers": sandbox.bootstrap_servers}, "flume": {"agents": {"side": entry}}}}}))
    env = {"STREAMCTL_CONFIG": str(config)}
    pid_file = sandbox.xdg_state / "streamctl" / "agents" / "side.pid"
    started = sandbox.cli("agents", "start", "side", "--execute", **env)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        record = json.loads(pid_file.read_text())
        assert procs.is_alive(record["pid"], record["create_time"])
        listed = json.loads(sandbox.cli("agents", "list", "-o", "json", **env).stdout)
        assert [(r["agent"], r["control"], r["process"]) for r in listed] == [("side", how, "running")]
        def delivered():
            found = json.loads(sandbox.cli("agents", "status", "-o", "json", **env).stdout)[0]
            return found["up"] and found["sinks"] and found["sinks"][0]["drained"] == 500 and found

        found = sandbox.wait_until(delivered, timeout=30, what="the side agent's 500 events drained")
        assert [c["name"] for kind in ("sources", "channels", "sinks") for c in found[kind]] == ["gen", "mem", "roll"]
        assert found["sources"][0]["accepted"] == 500
        stopped = sandbox.cli("agents", "stop", "side", "--execute", **env)
        assert stopped.returncode == 0, stopped.stderr
        assert f"stopped pid {record['pid']}" in stopped.stderr
        assert not procs.is_alive(record["pid"], record["create_time"]) and not pid_file.exists()
    finally:
        if pid_file.exists():
            record = json.loads(pid_file.read_text())
            procs.terminate(record["pid"], record["create_time"], 5)
