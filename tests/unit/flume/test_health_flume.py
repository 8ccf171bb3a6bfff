"""Flume health rules on statuses derived from captured payloads."""

from __future__ import annotations

import json

from streamctl.backends import flume
from streamctl.flume.health import flume_health
from streamctl.model.health import Severity
from streamctl.thresholds import Thresholds
from tests import repo

FIXTURES = repo.FIXTURES / "flume"


def load(name: str) -> flume.Poll:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    return flume.parse(data["payload"], data["taken_at"])


def status(now: str, before: str | None = None, bindings=None, **kwargs) -> flume.AgentStatus:
    return flume.status("weblogs", "http://h/metrics", load(now), load(before) if before else None,
                        bindings=bindings if bindings is not None else {"kafka": "buffer"}, **kwargs)


def codes(findings) -> dict[str, Severity]:
    return {f.code: f.severity for f in findings}


def test_flowing_agent_is_healthy():
    findings, metrics = flume_health([status("flowing-2", "flowing-1")], Thresholds())
    assert findings == []
    by_name = {m.name: m for m in metrics}
    assert by_name["flume_agents_up"].value == 1
    assert by_name["flume_max_channel_fill_pct"].value == 0.255
    assert by_name["flume_sink_drain_rate"].value > 0 and not by_name["flume_sink_drain_rate"].perfdata


def test_brokers_down_sink_failing_and_stalled():
    findings, _ = flume_health([status("brokers-down-2", "brokers-down-1")], Thresholds())
    assert codes(findings) == {"FLUME_SINK_FAILING": Severity.WARN, "FLUME_SINK_STALLED": Severity.CRIT}
    text = {f.code: f.text for f in findings}
    assert text["FLUME_SINK_FAILING"].startswith("sink weblogs/kafka: 2 failures in the last ")
    assert text["FLUME_SINK_FAILING"].endswith("(RollbackCount +2)")
    assert "while channel weblogs/buffer grew by 200 events" in text["FLUME_SINK_STALLED"]


def test_stall_needs_a_window_longer_than_the_sink_back_off():
    before, now = load("brokers-down-1"), load("brokers-down-2")
    short = flume.Poll(now.taken_at - 5, before.components)
    s = flume.status("weblogs", "u", now, short, bindings={"kafka": "buffer"})
    assert "FLUME_SINK_STALLED" not in codes(flume_health([s], Thresholds())[0])


def test_stall_without_known_bindings_considers_every_sink():
    findings, _ = flume_health([status("brokers-down-2", "brokers-down-1", bindings={})], Thresholds())
    assert "FLUME_SINK_STALLED" in codes(findings)


def test_channel_fill_thresholds():
    s = status("brokers-down-2", "brokers-down-1")  # 1.505 % full
    warn = flume_health([s], Thresholds(channel_fill_warn_pct=1.0, channel_fill_crit_pct=50))[0]
    crit = flume_health([s], Thresholds(channel_fill_warn_pct=1.0, channel_fill_crit_pct=1.5))[0]
    assert codes(warn)["FLUME_CHANNEL_FILL"] is Severity.WARN
    assert codes(crit)["FLUME_CHANNEL_FILL"] is Severity.CRIT
    fill = next(f for f in crit if f.code == "FLUME_CHANNEL_FILL")
    assert fill.text == "channel weblogs/buffer 1.5% full (301 of 20000 events)" and fill.value == 1.505


def test_unreachable_agent_is_critical():
    down = flume.unreachable("weblogs", "http://h:1/metrics", "connection refused")
    findings, metrics = flume_health([down, status("flowing-2", "flowing-1")], Thresholds())
    assert [(f.code, f.severity, f.text) for f in findings] == [
        ("FLUME_AGENT_DOWN", Severity.CRIT, "agent weblogs unreachable at http://h:1/metrics: connection refused")]
    up = next(m for m in metrics if m.name == "flume_agents_up")
    assert (up.value, up.crit, up.alert_below) == (1, 2, True)


def test_idle_source():
    s = status("flowing-2", "flowing-1", last_active={"access": load("flowing-2").taken_at - 301})
    findings, _ = flume_health([s], Thresholds(source_idle_seconds=300))
    assert codes(findings) == {"FLUME_SOURCE_IDLE": Severity.WARN}
    assert findings[0].text == "source weblogs/access received nothing for 5m01s"
    assert flume_health([s], Thresholds(source_idle_seconds=600))[0] == []


def test_source_and_channel_errors_rising():
    before = flume.parse({"SOURCE.r": {"Type": "SOURCE", "ChannelWriteFail": "1", "StartTime": "5"},
                          "CHANNEL.c": {"Type": "CHANNEL", "EventPutErrorCount": "0", "StartTime": "5",
                                        "Unhealthy": "0"}}, 100.0)
    now = flume.parse({"SOURCE.r": {"Type": "SOURCE", "ChannelWriteFail": "4", "StartTime": "5"},
                       "CHANNEL.c": {"Type": "CHANNEL", "EventPutErrorCount": "2", "StartTime": "5",
                                     "Unhealthy": "1"}}, 160.0)
    findings, _ = flume_health([flume.status("a", "u", now, before)], Thresholds())
    assert codes(findings) == {"FLUME_SOURCE_FAILING": Severity.WARN, "FLUME_CHANNEL_ERRORS": Severity.WARN,
                               "FLUME_CHANNEL_UNHEALTHY": Severity.CRIT}
    assert next(f.value for f in findings if f.code == "FLUME_SOURCE_FAILING") == 3


# ---- the check collector against real sockets (no agent behind them) ---------------------

def _context(url: str):
    from streamctl.config import Config

    config = Config.model_validate({"contexts": {"t": {"kafka": {"bootstrap_servers": "127.0.0.1:9"},
                                                        "flume": {"agents": {"weblogs": {"metrics_url": url}}}}}})
    return config.context("t")


def test_collector_reports_a_refused_endpoint_as_critical(tmp_path):
    from streamctl.check.evaluate import configured_components, evaluate
    from tests.integration.kafka_helpers import free_address

    ctx = _context(f"http://{free_address()}/metrics")
    assert "flume" in configured_components(ctx)
    evaluation = evaluate(ctx, ["flume"], 5, flume_history_dir=tmp_path)
    assert evaluation.evaluated == ["flume"] and evaluation.severity is Severity.CRIT
    assert [f.code for f in evaluation.findings] == ["FLUME_AGENT_DOWN"]


def test_collector_silent_endpoint_is_unknown_within_the_deadline(tmp_path):
    import time

    from streamctl.check.evaluate import evaluate
    from tests.integration.kafka_helpers import black_hole

    with black_hole() as address:
        started = time.monotonic()
        evaluation = evaluate(_context(f"http://{address}/metrics"), ["flume"], 1.5, flume_history_dir=tmp_path)
        took = time.monotonic() - started
    assert took < 2.5
    assert evaluation.severity is Severity.UNKNOWN and "flume" in evaluation.unevaluated


def test_a_context_without_agents_has_no_flume_component():
    from streamctl.config import Config
    from streamctl.flume import collect as collector

    ctx = Config.model_validate({"contexts": {"t": {"kafka": {"bootstrap_servers": "h:1"}}}}).context("t")
    assert not collector.configured(ctx)
