"""Flume health rules: pure functions from agent statuses to findings and metrics.

| finding | code | severity |
| agent's monitoring endpoint unreachable | FLUME_AGENT_DOWN | CRIT |
| channel fill at or above channel_fill_warn_pct / _crit_pct | FLUME_CHANNEL_FILL | WARN / CRIT |
| channel reports itself unhealthy (file channel: disk, checkpoint) | FLUME_CHANNEL_UNHEALTHY | CRIT |
| channel put/take/checkpoint errors rising | FLUME_CHANNEL_ERRORS | WARN |
| sink failure counters rising (rollbacks, connection/write failures) | FLUME_SINK_FAILING | WARN |
| channel grew while its sinks drained nothing (over >= 10 s) | FLUME_SINK_STALLED | CRIT |
| source failure counters rising (e.g. channel full) | FLUME_SOURCE_FAILING | WARN |
| source received nothing for source_idle_seconds | FLUME_SOURCE_IDLE | WARN |
"""

from __future__ import annotations

from streamctl.model.flume import AgentStatus, ChannelStatus, SinkStatus
from streamctl.model.health import Finding, Metric, Severity

CRIT, WARN = Severity.CRIT, Severity.WARN
# Flume's SinkRunner backs off up to 5 s on an empty channel: a shorter window proves nothing.
MIN_STALL_SECONDS = 10.0


def flume_health(statuses: list[AgentStatus], thresholds) -> tuple[list[Finding], list[Metric]]:
    findings: list[Finding] = []
    metrics: list[Metric] = []
    worst_fill = 0.0
    for agent in statuses:
        labels = {"agent": agent.name}
        metrics.append(Metric("flume_agent_up", int(agent.up), "1 when the agent's metrics endpoint answered",
                              labels=labels, min=0, max=1, perfdata=False))
        if not agent.up:
            findings.append(Finding(CRIT, "flume", f"agent {agent.name}", "FLUME_AGENT_DOWN",
                                    f"agent {agent.name} unreachable at {agent.url}: {agent.error}"))
            continue
        for channel in agent.channels:
            worst_fill = max(worst_fill, channel.fill_pct or 0.0)
            _channel(agent, channel, thresholds, findings, metrics)
            _stalled(agent, channel, findings)
        for sink in agent.sinks:
            _sink(agent, sink, findings, metrics)
        for source in agent.sources:
            _source(agent, source, thresholds, findings, metrics)
    up = sum(a.up for a in statuses)
    metrics.append(Metric("flume_agents_up", up, "Agents whose metrics endpoint answered",
                          crit=len(statuses), min=0, max=len(statuses), alert_below=True))
    metrics.append(Metric("flume_max_channel_fill_pct", round(worst_fill, 3), "Fullest channel",
                          uom="%", warn=thresholds.channel_fill_warn_pct,
                          crit=thresholds.channel_fill_crit_pct, min=0, max=100))
    return findings, metrics


def _channel(agent: AgentStatus, channel: ChannelStatus, thresholds, findings, metrics) -> None:
    labels = {"agent": agent.name, "channel": channel.name}
    name = f"{agent.name}/{channel.name}"
    metrics.append(Metric("flume_channel_size", channel.size, "Events in the channel", labels=labels,
                          min=0, max=channel.capacity, perfdata=False))
    if channel.fill_pct is not None:
        metrics.append(Metric("flume_channel_fill_pct", round(channel.fill_pct, 3), "Channel fill",
                              labels=labels, uom="%", warn=thresholds.channel_fill_warn_pct,
                              crit=thresholds.channel_fill_crit_pct, min=0, max=100, perfdata=False))
        level = (CRIT if channel.fill_pct >= thresholds.channel_fill_crit_pct
                 else WARN if channel.fill_pct >= thresholds.channel_fill_warn_pct else None)
        if level is not None:
            of = f" ({channel.size} of {channel.capacity} events)" if channel.capacity else ""
            findings.append(Finding(level, "flume", f"channel {name}", "FLUME_CHANNEL_FILL",
                                    f"channel {name} {channel.fill_pct:.1f}% full{of}",
                                    value=round(channel.fill_pct, 3)))
    if not channel.healthy:
        findings.append(Finding(CRIT, "flume", f"channel {name}", "FLUME_CHANNEL_UNHEALTHY",
                                f"channel {name} reports itself unhealthy or closed"))
    if channel.new_failures:
        findings.append(Finding(WARN, "flume", f"channel {name}", "FLUME_CHANNEL_ERRORS",
                                f"channel {name}: {channel.new_failures} put/take/checkpoint errors "
                                f"in the last {_seconds(agent.interval)}", value=channel.new_failures))


def _stalled(agent: AgentStatus, channel: ChannelStatus, findings) -> None:
    if not channel.size_change or channel.size_change <= 0 or (agent.interval or 0) < MIN_STALL_SECONDS:
        return
    known = [s for s in agent.sinks if s.channel is not None]
    sinks = [s for s in known if s.channel == channel.name] if known else list(agent.sinks)
    if not sinks or any(s.drained_since is None or s.drained_since > 0 for s in sinks):
        return
    names = ", ".join(f"{agent.name}/{s.name}" for s in sinks)
    findings.append(Finding(CRIT, "flume", f"sink {names}", "FLUME_SINK_STALLED",
                            f"sink {names} drained nothing in {_seconds(agent.interval)} while channel "
                            f"{agent.name}/{channel.name} grew by {channel.size_change} events",
                            value=channel.size_change))


def _sink(agent: AgentStatus, sink: SinkStatus, findings, metrics) -> None:
    labels = {"agent": agent.name, "sink": sink.name}
    name = f"{agent.name}/{sink.name}"
    metrics.append(Metric("flume_sink_events_drained", sink.drained, "Events the sink delivered since start",
                          labels=labels, uom="c", min=0, perfdata=False))
    if sink.drain_rate is not None:
        metrics.append(Metric("flume_sink_drain_rate", round(sink.drain_rate, 3), "Events/s delivered",
                              labels=labels, min=0, perfdata=False))
    metrics.append(Metric("flume_sink_failures", sum(sink.failures.values()),
                          "Failures (rollbacks, connection and write failures) since start",
                          labels=labels, uom="c", min=0, perfdata=False))
    if sink.new_failures:
        which = ", ".join(f"{k} +{v}" for k, v in sorted(sink.new_failure_counts.items()))
        findings.append(Finding(WARN, "flume", f"sink {name}", "FLUME_SINK_FAILING",
                                f"sink {name}: {sink.new_failures} failures in the last "
                                f"{_seconds(agent.interval)} ({which})", value=sink.new_failures))


def _source(agent: AgentStatus, source, thresholds, findings, metrics) -> None:
    labels = {"agent": agent.name, "source": source.name}
    name = f"{agent.name}/{source.name}"
    metrics.append(Metric("flume_source_events_accepted", source.accepted, "Events accepted since start",
                          labels=labels, uom="c", min=0, perfdata=False))
    if source.accept_rate is not None:
        metrics.append(Metric("flume_source_accept_rate", round(source.accept_rate, 3), "Events/s accepted",
                              labels=labels, min=0, perfdata=False))
    if source.new_failures:
        findings.append(Finding(WARN, "flume", f"source {name}", "FLUME_SOURCE_FAILING",
                                f"source {name}: {source.new_failures} failures in the last "
                                f"{_seconds(agent.interval)}", value=source.new_failures))
    if source.idle_seconds is not None and source.idle_seconds >= thresholds.source_idle_seconds:
        findings.append(Finding(WARN, "flume", f"source {name}", "FLUME_SOURCE_IDLE",
                                f"source {name} received nothing for {_seconds(source.idle_seconds)}",
                                value=round(source.idle_seconds)))


def _seconds(value: float | None) -> str:
    if value is None:
        return "interval"
    value = round(value)
    if value < 120:
        return f"{value} s"
    minutes, seconds = divmod(value, 60)
    return f"{minutes}m{seconds:02d}s" if minutes < 120 else f"{minutes // 60}h{minutes % 60:02d}m"
