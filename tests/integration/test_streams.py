"""The sandbox's Kafka Streams app (jobs/StatusCounts.java) in both modes: found with its
internal topics, instances and threads; its lag per topic what Kafka's ConsumerGroupCommand
reports; reset refused while it runs, and once stopped the reset plan runs (inputs to the
earliest, internal topics deleted) and its undo file puts the offsets back. In ZooKeeper mode
the app runs in the session's full sandbox; in KRaft mode it is added to the Kafka-only KRaft
sandbox and fed access-log lines by the test."""

from __future__ import annotations

import json
import random
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from confluent_kafka import Producer

from streamctl.agents.loadgen import access_line
from streamctl.backends.kafka.isolated import CRASH_AFTER_ENV
from streamctl.demo.streams_app import APP_ID, INPUT, OUTPUT, SERVICE, WATCH_SERVICE
from streamctl.jobs.status_watch import GROUP as WATCH_GROUP
from tests.integration.kafka_helpers import kafka_tool_lag
from tests.jvm_guard import service_fixture

pytestmark = pytest.mark.integration

REPARTITION = f"{APP_ID}-by-status-repartition"
CHANGELOG = f"{APP_ID}-status-counts-changelog"
# What feeds the input in the full sandbox: stopped while offsets are compared, so log ends hold still.
FEEDERS = ("loadgen", "flume-weblogs")


def feed(bootstrap: str, lines: int) -> None:
    rng, producer = random.Random(7), Producer({"bootstrap.servers": bootstrap, "log_level": "0"})
    for i in range(lines):
        producer.produce(INPUT, access_line(rng, datetime.now(UTC)).encode(), partition=i % 3)
    assert producer.flush(30) == 0


@service_fixture(params=["zookeeper", "kraft"])
def stack(request):
    """(running sandbox, kraft?) with the Streams app running and past its first records."""
    kraft = request.param == "kraft"
    if kraft:
        running = request.getfixturevalue("kraft_sandbox")
        running.state, _ = running.sandbox.up(brokers=3, kraft=True, addon_roles=("streams",))
        feed(running.bootstrap_servers, 300)
    else:
        running = request.getfixturevalue("sandbox")
    running.wait_until(lambda: (app := streams(running)) and app["status"] == "RUNNING"
                       and app["topics"][0]["lag"] is not None, timeout=90, what="the Streams app running")
    return running, kraft


def streams(running, *args: str) -> dict | None:
    result = running.cli("streams", "describe", APP_ID, "-o", "json", *args)
    return json.loads(result.stdout) if result.returncode == 0 else None


def test_the_app_is_found_with_its_internal_topics(stack):
    running, _kraft = stack
    app = streams(running)
    roles = {t["name"]: t["role"] for t in app["topics"]}
    assert roles == {INPUT: "input", REPARTITION: "repartition", CHANGELOG: "changelog", OUTPUT: "output"}
    assert [(i["threads"], i["partitions"]) for i in app["instances"]] == [(2, 6)]  # 2 threads, 3+3 partitions
    assert app["instances"][0]["client"].startswith(APP_ID + "-")
    changelog = next(t for t in app["topics"] if t["name"] == CHANGELOG)
    assert changelog["records"] > 0  # the counts' state store was written
    listed = json.loads(running.cli("streams", "list", "-o", "json").stdout)
    assert [a["app_id"] for a in listed] == [APP_ID]
    groups = json.loads(running.cli("groups", "describe", APP_ID, "-o", "json").stdout)
    assert groups["protocol"] == "stream"  # what makes a running group a Streams app's


def test_lag_and_reset_round_trip(stack, tmp_path):
    running, kraft = stack
    refused = running.cli("streams", "reset", APP_ID, "--execute")
    assert refused.returncode != 0 and "stop every instance" in refused.stderr
    feeders = [] if kraft else list(FEEDERS)
    running.sandbox.stop_service(SERVICE)  # it commits on the way out: the lag is what comes after
    try:
        for name in feeders:
            running.sandbox.stop_service(name)
        feed(running.bootstrap_servers, 120)  # lag to read, whatever the feeders last delivered
        # The threads do not leave the group: it empties when their sessions time out (10 s).
        running.wait_until(lambda: (a := streams(running)) and a["status"] in ("STOPPED", "IDLE"),
                           timeout=60, what="the app's group empty")
        expected = kafka_tool_lag(running.bootstrap_servers, APP_ID, kraft=kraft)
        by_topic: dict[str, int] = {}
        for (topic, _), (_, _, lag) in expected.items():
            by_topic[topic] = by_topic.get(topic, 0) + lag
        ours = {t["name"]: t["lag"] for t in streams(running)["topics"] if t["lag"] is not None}
        assert ours == by_topic and ours[INPUT] > 0
        assert set(ours) == {INPUT, REPARTITION}

        check = running.cli("check", "--component", "kafka", "--format", "json")
        codes = {f["code"] for f in json.loads(check.stdout)["findings"]}
        assert "STREAMS_APP_STOPPED" in codes and check.returncode == 2

        plan = json.loads(running.cli("streams", "reset", APP_ID, "-o", "json").stdout)
        changes = {c["object"]: c for c in plan["changes"]}
        assert {c["after"] for o, c in changes.items() if o.startswith(INPUT + "/")} == {0}
        assert changes[f"topic {REPARTITION}"]["after"] is False and f"topic {CHANGELOG}" in changes
        assert running.cli("--read-only", "streams", "reset", APP_ID, "--execute").returncode != 0

        before = {tp: current for tp, (current, _, _) in expected.items() if tp[0] == INPUT}
        assert len(before) == 3  # every input partition had a committed offset
        # In ZooKeeper mode the commit's and each delete's Kafka child crash right after the call
        # (STREAMCTL_TEST_CRASH_AFTER): each step is read back, never sent again, and the reset
        # goes on to its end; in KRaft mode it runs undisturbed.
        crash = {} if kraft else {CRASH_AFTER_ENV: "commit_offsets,delete_topic"}
        done = running.cli("streams", "reset", APP_ID, "--execute", **crash)
        assert done.returncode == 0, done.stderr
        if crash:
            assert "note: the answer was lost (commit_offsets: the Kafka client crashed (SIGSEGV" in done.stderr
            assert done.stderr.count("the answer was lost (delete_topic: the Kafka client crashed") == 2, done.stderr
        undo = Path(done.stderr.split("undo file: ")[1].split()[0])
        assert undo.is_file()
        topics = {t.name for t in running.kafka().metadata().topics}
        assert not {REPARTITION, CHANGELOG} & topics
        assert {tp: o for tp, (o, _, _) in kafka_tool_lag(running.bootstrap_servers, APP_ID, kraft=kraft).items()
                if tp[0] == INPUT} == dict.fromkeys(before, 0)
        # Declared in the sandbox context, the app stays known without members or internal topics.
        assert streams(running)["status"] == "STOPPED"

        back = running.cli("groups", "undo-reset", APP_ID, "--execute")
        assert back.returncode == 0, back.stderr
        restored = kafka_tool_lag(running.bootstrap_servers, APP_ID, kraft=kraft)
        assert {tp: o for tp, (o, _, _) in restored.items() if tp[0] == INPUT} == before
        audit = running.cli("audit", "-o", "json")
        reset = [e for e in json.loads(audit.stdout) if e["operation"] == "streams.reset"]
        assert reset and reset[-1]["result"] == "ok" and bool(reset[-1].get("note")) == bool(crash), reset[-1]
    finally:
        # Its local state belongs to the deleted changelog: cleared, as Kafka's reset tool asks.
        shutil.rmtree(running.sandbox.root / "data" / "streams", ignore_errors=True)
        running.sandbox.start_service(SERVICE)
        for name in reversed(feeders):
            running.sandbox.start_service(name)
    running.wait_until(lambda: (a := streams(running)) and a["status"] == "RUNNING"
                       and {t["name"] for t in a["topics"]} >= {REPARTITION, CHANGELOG},
                       timeout=90, what="the app running again with its internal topics")


def test_the_kraft_sandbox_runs_a_consumer_protocol_group(stack):
    running, kraft = stack
    if not kraft:
        assert WATCH_SERVICE not in {s.name for s in running.state.services}  # Kafka 3.9: classic groups only
        return
    groups = running.wait_until(
        lambda: [g for g in json.loads(running.cli("groups", "list", "-o", "json").stdout)
                 if g["id"] == WATCH_GROUP and g["state"] == "STABLE"],
        timeout=60, what=f"{WATCH_GROUP} stable")
    assert groups[0]["type"] == "CONSUMER" and groups[0]["members"] == 1
    assert groups[0]["topics"] == [OUTPUT]
