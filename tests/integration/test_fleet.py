"""Several contexts in one check and `contexts test`, against the ZooKeeper-mode and the KRaft
sandboxes side by side, two named sandboxes of one config file (plus a context whose Kafka is a
closed port); a one-node KRaft sandbox of this module's own whose broker is stopped beside the
ZooKeeper-mode one; kafka_exporter's lag series against streamctl's own."""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter

import pytest
import yaml

from streamctl.sandbox.stack import Sandbox
from tests.check_outputs import samples
from tests.check_reasons import is_service_condition
from tests.conftest import RunningSandbox, run_cli
from tests.fleet_contexts import fleet_config, sandbox_context, sandboxes_config
from tests.integration.kafka_helpers import commit, free_address, produce, unique, write_context
from tests.jvm_guard import service_fixture

pytestmark = pytest.mark.integration

TIMEOUT = 30  # check's --timeout: the deadline of each context, and so of the whole run
SEVERITY_CODES = {"OK": 0, "WARN": 1, "CRIT": 2, "UNKNOWN": 3}
SINGLE = "kraft-single"  # the name (and context) of this module's own one-node KRaft sandbox


@service_fixture(scope="module")
def single_kraft(tmp_path_factory) -> RunningSandbox:
    """One KRaft node (broker and controller), Kafka only, with its own state dir and config file:
    a cluster the test may stop, the session's sandboxes staying up for the other tests. The test
    that uses it leaves its broker stopped; the module's end takes it down."""
    tmp = tmp_path_factory.mktemp("kraft-single")
    sb = Sandbox(name=SINGLE, config_path=tmp / "config.yaml", state_dir=tmp / "state" / "streamctl")
    state, _ = sb.up(brokers=1, kraft=True, with_addons=False)
    try:
        running = RunningSandbox(sb, state, tmp / "state")
        # Just started, the node may not serve its partitions' offsets yet ("Not leader for
        # partition": check says UNKNOWN); the test's "before" is a cluster check reads OK.
        running.wait_until(lambda: running.cli("check", "--component", "kafka", timeout=60).returncode == 0,
                           timeout=90, interval=1, what=f"check to read {SINGLE} OK")
        yield running
    finally:
        sb.down()


def check_all_contexts(env: dict[str, str]):
    """`check --all-contexts -o json`: (the process, its document, each context's check, seconds taken)."""
    started = time.monotonic()
    result = run_cli("check", "--all-contexts", "-o", "json", "--timeout", str(TIMEOUT), env=env, timeout=TIMEOUT + 60)
    took = time.monotonic() - started
    doc = json.loads(result.stdout)
    return result, doc, {entry["context"]: entry["check"] for entry in doc["contexts"]}, took


def component_states(check: dict, names: tuple[str, ...]) -> dict[str, tuple[str, bool]]:
    return {name: (check["components"][name]["state"], check["components"][name]["evaluated"]) for name in names}


def test_all_contexts_reports_each_the_dead_one_unknown_and_ends_within_the_deadline(sandbox, kraft_sandbox,
                                                                                    tmp_path):
    env = fleet_config(tmp_path, sandbox, kraft_sandbox)
    textfile = tmp_path / "fleet.prom"
    started = time.monotonic()
    result = run_cli("check", "--all-contexts", "-o", "json", "--prometheus-textfile", str(textfile),
                     "--timeout", str(TIMEOUT), env=env, timeout=TIMEOUT + 60)
    took = time.monotonic() - started
    doc = json.loads(result.stdout)
    states = {entry["context"]: entry["check"] for entry in doc["contexts"]}
    assert set(states) == {"sandbox", "kraft", "dead"}
    # As for one context (docs/architecture.md): UNKNOWN when the deadline came first, CRIT
    # (KAFKA_UNREACHABLE) when the metadata call failed sooner; either way naming the connection.
    dead = states["dead"]
    assert dead["state"] in ("UNKNOWN", "CRIT"), dead
    why = dead["components"]["kafka"]["reason"] or " ".join(f["text"] for f in dead["findings"])
    assert is_service_condition(why), why
    for live in ("sandbox", "kraft"):
        assert states[live]["components"]["kafka"]["evaluated"], states[live]["summary"]
    worst = max(SEVERITY_CODES[check["state"]] for check in states.values())
    assert result.returncode == doc["exit_code"] == worst, result.stderr
    assert took < TIMEOUT + 5, f"{took:.1f} s for a {TIMEOUT} s deadline"

    text = textfile.read_text()
    found = samples(text)
    contexts = {dict(labels).get("context") for _, labels in found}
    assert contexts == {"sandbox", "kraft", "dead"}  # no series without its context
    series = Counter((name, labels) for name, labels in found)
    assert [key for key, n in series.items() if n > 1] == []
    assert len(found) == sum(1 for line in text.splitlines() if line and not line.startswith("#"))
    dead_kafka = (("component", "kafka"), ("context", "dead"))
    assert found[("streamctl_check_state", dead_kafka)] == SEVERITY_CODES[dead["state"]]
    assert found[("streamctl_check_up", dead_kafka)] == (0 if dead["state"] == "UNKNOWN" else 1)
    assert found[("streamctl_check_up", (("component", "kafka"), ("context", "kraft")))] == 1


def test_a_stopped_sandbox_fails_its_context_alone_and_the_run_ends_within_the_deadline(sandbox, single_kraft, tmp_path):
    env = sandboxes_config(tmp_path, sandbox, single_kraft)
    _, _, before, _ = check_all_contexts(env)
    assert set(before) == {"sandbox", SINGLE}
    assert before[SINGLE]["state"] == "OK", before[SINGLE]["summary"]
    # The ZooKeeper-mode side as it usually is (WARN: an ensemble of one ZooKeeper), its cluster evaluated.
    own = ("kafka", "zookeeper")
    assert all(evaluated for _, evaluated in component_states(before["sandbox"], own).values()), before["sandbox"]

    single_kraft.sandbox.stop_service("kafka-1")  # its only broker (and controller), for real: SIGTERM
    result, doc, after, took = check_all_contexts(env)
    assert set(after) == {"sandbox", SINGLE}
    stopped = after[SINGLE]
    assert stopped["state"] in ("UNKNOWN", "CRIT"), stopped
    # UNKNOWN (not evaluated) or CRIT (KAFKA_UNREACHABLE): either way a Kafka connection named.
    why = stopped["components"]["kafka"]["reason"] or " ".join(
        f["text"] for f in stopped["findings"] if f["severity"] == stopped["state"])
    assert "kafka" in why.lower() and is_service_condition(why), why
    assert component_states(after["sandbox"], own) == component_states(before["sandbox"], own), after["sandbox"]
    assert after["sandbox"]["state"] == before["sandbox"]["state"], (before["sandbox"], after["sandbox"])
    worst = max(SEVERITY_CODES[check["state"]] for check in after.values())
    assert result.returncode == doc["exit_code"] == worst, result.stderr
    assert SEVERITY_CODES[doc["contexts"][0]["check"]["state"]] == worst  # the worst context first
    assert took < TIMEOUT + 5, f"{took:.1f} s for a {TIMEOUT} s deadline"


def test_the_nagios_line_names_the_worst_context_first(sandbox, kraft_sandbox, tmp_path):
    env = fleet_config(tmp_path, sandbox, kraft_sandbox)
    result = run_cli("check", "--contexts", "kraft,dead", "--component", "kafka", "--timeout", str(TIMEOUT),
                     env=env, timeout=TIMEOUT + 60)
    first = result.stdout.splitlines()[0]
    status = first.partition(" | ")[0]
    dead = re.match(r"STREAMCTL (UNKNOWN|CRITICAL): dead \1: ", status)
    assert dead, first  # the dead context is the worst, and comes first
    assert result.returncode == {"UNKNOWN": 3, "CRITICAL": 2}[dead.group(1)], result.stdout
    assert re.search(r"; kraft (OK|WARNING|CRITICAL|UNKNOWN)", status), first


def test_contexts_test_names_the_system_whose_address_is_wrong(sandbox, tmp_path):
    good = sandbox_context(sandbox)
    # Without the AdminServer URL, whose answer would stand for the server at the wrong address.
    zookeeper = {key: value for key, value in good["zookeeper"].items() if key not in ("admin_url", "admin-url")}
    wrong_zk = {**good, "zookeeper": {**zookeeper, "hosts": free_address()}}
    wrong_kafka = {**good, "kafka": {**good["kafka"], "bootstrap_servers": free_address(), "timeout": 5}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"contexts": {"wrong-zk": wrong_zk, "wrong-kafka": wrong_kafka}}))
    env = {**os.environ, "STREAMCTL_CONFIG": str(path), "XDG_STATE_HOME": str(tmp_path / "state")}
    result = run_cli("contexts", "test", "--timeout", "20", "-o", "json", env=env, timeout=80)
    assert result.returncode == 1, result.stdout + result.stderr
    rows = {(r["context"], r["system"]): r for r in json.loads(result.stdout)}
    assert not rows["wrong-kafka", "kafka"]["reachable"] and not rows["wrong-zk", "zookeeper"]["reachable"]
    assert "refuses connections" in rows["wrong-kafka", "kafka"]["error"]
    assert rows["wrong-zk", "kafka"]["reachable"] and rows["wrong-zk", "kafka"]["mode"] == "zookeeper, 3 brokers"
    assert rows["wrong-kafka", "zookeeper"]["reachable"] and rows["wrong-kafka", "zookeeper"]["version"]
    [line] = result.stderr.splitlines()
    assert "wrong-kafka kafka: " in line and "wrong-zk zookeeper: " in line


def test_kafka_exporter_lag_series_equal_streamctls_own_lag_for_every_partition(cluster, tmp_path):
    topic, group = unique("exported"), unique("exporter")
    cluster.kafka().create_topic(topic, 3, 3)
    produce(cluster.bootstrap_servers, topic, 300, partitions=3)
    commit(cluster.bootstrap_servers, group, {(topic, 0): 40, (topic, 1): 100})  # nothing on partition 2
    config = write_context(tmp_path / "c.yaml", cluster.bootstrap_servers, include={"groups": [group]})
    env = {**os.environ, "STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(tmp_path / "state")}
    own = run_cli("groups", "lag", group, "-o", "json", env=env, timeout=60)
    assert own.returncode == 0, own.stderr
    ours = {str(r["partition"]): r["lag"] for r in json.loads(own.stdout) if r["topic"] == topic}
    result = run_cli("check", "--component", "kafka", "-o", "prometheus", env=env, timeout=60)
    found = samples(result.stdout)
    exported = {dict(labels)["partition"]: value for (name, labels), value in found.items()
                if name == "kafka_consumergroup_lag"}
    assert set(exported) == set(ours) and {"0", "1"} <= set(ours)
    assert all(exported[p] == (-1 if ours[p] is None else ours[p]) for p in ours), (exported, ours)
    expected_sum = sum(lag for lag in ours.values() if lag is not None)
    labels = (("consumergroup", group), ("context", "it"), ("topic", topic))
    assert found[("kafka_consumergroup_lag_sum", labels)] == expected_sum
    assert found[("streamctl_kafka_group_lag_records", (("context", "it"), ("group", group)))] == expected_sum
