"""`streamctl check` against the real sandbox: exit codes, causes named, deadlines kept."""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.check_reasons import is_service_condition
from tests.conftest import run_cli
from tests.integration.kafka_helpers import (
    black_hole,
    commit,
    free_address,
    kafka_tool_lag,
    produce,
    unique,
    write_context,
)

pytestmark = pytest.mark.integration


def check(tmp_path, config, *args, timeout=60):
    env = {**os.environ, "STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(tmp_path / "state")}
    started = time.monotonic()
    result = run_cli("check", *args, env=env, timeout=timeout)
    return result, time.monotonic() - started


@pytest.fixture
def lagging_group(cluster):
    """A topic with 600 records and a group that committed 100 of them per partition... and left."""
    topic, group = unique("lagt"), unique("lagg")
    cluster.kafka().create_topic(topic, 3, 3)
    produce(cluster.bootstrap_servers, topic, 600, partitions=3)
    commit(cluster.bootstrap_servers, group, {(topic, p): 100 for p in range(3)})
    return topic, group


def test_healthy_sandbox_exits_0(cluster, tmp_path):
    config = write_context(tmp_path / "c.yaml", cluster.bootstrap_servers,
                           include={"groups": ["no-such-group-*"]})
    result, _ = check(tmp_path, config)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("STREAMCTL OK: kafka OK | ")
    assert "'kafka_brokers'=3;3:;3:;0" in result.stdout


@pytest.mark.parametrize("crit, code, word", [(100_000, 1, "WARNING"), (250, 2, "CRITICAL")])
def test_lagging_group_over_threshold(cluster, tmp_path, lagging_group, crit, code, word):
    _, group = lagging_group
    config = write_context(tmp_path / "c.yaml", cluster.bootstrap_servers, include={"groups": [group]},
                           thresholds={"lag_records_warn": 100, "lag_records_crit": crit})
    result, _ = check(tmp_path, config)
    assert result.returncode == code, result.stdout + result.stderr
    assert result.stdout.startswith(f"STREAMCTL {word}: ")
    assert f"group {group} lags 300 records" in result.stdout.splitlines()[0]


def test_stopped_broker_is_critical_and_named(cluster, tmp_path):
    config = write_context(tmp_path / "c.yaml", cluster.bootstrap_servers, include={"groups": ["none"]})
    kafka = cluster.kafka()
    with cluster.broker_stopped("kafka-2"):
        # A partition whose only replica is on broker 2 keeps it as its ISR (no leader): an
        # earlier test's single-replica topic may be one.
        cluster.wait_until(lambda: all(2 not in p.isr or p.replicas == (2,) for p in kafka.metadata().partitions),
                           timeout=45, what="broker 2 out of every ISR it shares")
        urp = sum(p.under_replicated for p in kafka.metadata().partitions)
        result, _ = check(tmp_path, config, "--format", "json")
    assert result.returncode == 2, result.stdout + result.stderr
    report = json.loads(result.stdout)
    down = [f for f in report["findings"] if f["code"] == "KAFKA_BROKER_DOWN"]
    assert down and down[0]["severity"] == "CRIT"
    assert down[0]["text"] == f"broker 2 down (2 of 3 brokers); {urp} under-replicated partitions"
    assert {f["code"]: f["value"] for f in report["findings"]}["KAFKA_URP"] == urp


def test_refused_port_is_critical_within_the_call_timeout(tmp_path):
    config = write_context(tmp_path / "c.yaml", free_address(), kafka={"timeout": 2})
    result, took = check(tmp_path, config, "--timeout", "5")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout.startswith("STREAMCTL CRITICAL: 1 critical: Kafka unreachable at 127.0.0.1:")
    assert took < 5 + 1
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("address", ["refused", "black hole"])
def test_global_deadline_gives_unknown_in_time(tmp_path, address):
    with black_hole() as hole:
        target = hole if address == "black hole" else free_address()
        config = write_context(tmp_path / "c.yaml", target, kafka={"timeout": 30})
        result, took = check(tmp_path, config, "--timeout", "3")
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stdout.startswith("STREAMCTL UNKNOWN: kafka not evaluated: ")
    why = result.stdout.splitlines()[0].removeprefix("STREAMCTL UNKNOWN: kafka not evaluated: ")
    assert is_service_condition(why), result.stdout  # the deadline or silence, never a collector's bug
    assert took < 3 + 1, f"check took {took:.2f}s past its 3 s deadline"
    assert "Traceback" not in result.stderr


def test_prometheus_textfile_is_written(sandbox, tmp_path):
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers, include={"groups": ["none"]})
    target = tmp_path / "streamctl.prom"
    result, _ = check(tmp_path, config, "--prometheus-textfile", str(target), "--format", "prometheus")
    assert result.returncode == 0, result.stdout + result.stderr
    text = target.read_text()
    assert 'streamctl_check_state{component="kafka",context="it"} 0.0' in text
    assert 'streamctl_kafka_brokers{context="it"} 3.0' in text
    assert result.stdout.strip() == text.strip()


def test_stopped_and_stalled_groups_across_runs(sandbox, tmp_path):
    topic, stopped, stalled = unique("burrow"), unique("stopped"), unique("stalled")
    bootstrap = sandbox.bootstrap_servers
    sandbox.kafka().create_topic(topic, 1, 3)
    produce(bootstrap, topic, 100)
    commit(bootstrap, stopped, {(topic, 0): 50})
    commit(bootstrap, stalled, {(topic, 0): 50})
    config = write_context(tmp_path / "c.yaml", bootstrap, include={"groups": [stopped, stalled]},
                           thresholds={"stall_window_seconds": 3, "lag_records_warn": 100_000,
                                       "lag_records_crit": 1_000_000})
    first, _ = check(tmp_path, config)
    assert first.returncode == 0, first.stdout  # one sample: nothing to judge yet
    for step in (1, 2):
        time.sleep(2)
        produce(bootstrap, topic, 40)  # the log grows faster than `stalled` commits
        commit(bootstrap, stalled, {(topic, 0): 50 + 10 * step})
        result, _ = check(tmp_path, config, "--format", "json")
    report = json.loads(result.stdout)
    by_code = {f["code"]: f for f in report["findings"]}
    assert result.returncode == 2, result.stdout
    assert stopped in by_code["KAFKA_GROUP_STOPPED"]["text"]
    assert by_code["KAFKA_GROUP_STOPPED"]["severity"] == "CRIT"
    assert stalled in by_code["KAFKA_GROUP_STALLED"]["text"]


def test_lag_equals_kafka_consumer_groups_tool(cluster, tmp_path, lagging_group):
    topic, group = lagging_group
    commit(cluster.bootstrap_servers, group, {(topic, 0): 200, (topic, 2): 0})
    expected = kafka_tool_lag(cluster.bootstrap_servers, group, kraft=cluster.kraft)
    assert len(expected) == 3
    result = cluster.cli("--config", str(write_context(tmp_path / "c.yaml", cluster.bootstrap_servers)),
                         "groups", "lag", group, "-o", "json")
    assert result.returncode == 0, result.stderr
    ours = {(r["topic"], r["partition"]): (r["committed"], r["log_end"], r["lag"])
            for r in json.loads(result.stdout)}
    assert ours == expected


def test_a_failing_run_replaces_the_last_good_textfile(sandbox, tmp_path):
    """node_exporter must not keep serving the last good metrics as if current: a run that
    cannot read its config rewrites the file, UNKNOWN and with its own timestamp."""
    from tests.check_outputs import samples

    target = tmp_path / "node" / "streamctl.prom"
    good = sandbox.cli("check", "--component", "kafka", "--prometheus-textfile", str(target), timeout=60)
    assert good.returncode in (0, 1, 2), good.stdout + good.stderr
    assert good.stdout == ""  # a textfile alone: nothing for cron to mail
    before = samples(target.read_text())
    assert before[("streamctl_check_up", (("component", "kafka"), ("context", "sandbox")))] == 1
    assert before[("streamctl_kafka_brokers", (("context", "sandbox"),))] == 3

    failing = sandbox.cli("--context", "no-such-context", "check", "--component", "kafka",
                          "--prometheus-textfile", str(target), timeout=60)
    assert failing.returncode == 3 and failing.stdout == ""
    assert failing.stderr.startswith("streamctl: error: no context 'no-such-context' in ")
    after = samples(target.read_text())
    failed = ("context", "no-such-context")  # the context asked for, which names the series
    assert after[("streamctl_check_state", (("component", "check"), failed))] == 3
    assert after[("streamctl_check_up", (("component", "check"), failed))] == 0
    assert not any(name == "streamctl_kafka_brokers" or ("component", "kafka") in labels for name, labels in after)
    assert after[("streamctl_check_timestamp_seconds", (failed,))] > \
        before[("streamctl_check_timestamp_seconds", (("context", "sandbox"),))]
    assert sorted(p.name for p in target.parent.iterdir()) == ["streamctl.prom"]


def test_o_is_format_and_a_named_component_the_sandbox_context_lacks_is_unknown(sandbox, tmp_path):
    import yaml

    data = yaml.safe_load(sandbox.config_path.read_text())
    name = data["current-context"]
    data["contexts"][name].pop("connect", None)
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(data))
    result, _ = check(tmp_path, config, "--component", "kafka,connect", "-o", "json")
    report = json.loads(result.stdout)
    assert report["state"] != "OK" and result.returncode == report["exit_code"], result.stdout + result.stderr
    assert report["components"]["connect"] == {"state": "UNKNOWN", "evaluated": False,
                                               "reason": f"context '{name}' has no connect section"}
    assert report["components"]["kafka"]["evaluated"] is True
