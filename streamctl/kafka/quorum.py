"""The KRaft controller quorum: an opt-in `check` component (`--component quorum`) and its rules.

    no quorum leader                          CRIT
    a voter more than quorum_voter_lag_warn records behind the leader    WARN

Reading it starts Kafka's own tool in a JVM (backends/kafka/quorum.py), so it has its own
timeout (kafka.quorum_timeout) and is never on check's default path.
"""

from __future__ import annotations

import time

from streamctl.model.health import Finding, Metric, NotEvaluated, Severity
from streamctl.model.kafka import Quorum

SECTION = "kafka section"


def configured(ctx) -> bool:
    return True  # it reads the Kafka section every context has


def collect(ctx, deadline_at: float, **_options):
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.quorum import describe_quorum
    from streamctl.errors import StreamctlError
    from streamctl.jvm.java import tool_argv

    left = deadline_at - time.monotonic() - 0.2
    if left <= 0.5:
        raise NotEvaluated("no time left before the deadline")
    try:
        quorum = describe_quorum(ctx.kafka.client_config(), min(ctx.kafka.quorum_timeout, left), tool_argv)
    except (KafkaError, StreamctlError) as exc:  # not read (no JVM, no jars, no answer)
        raise NotEvaluated(str(exc)) from None
    return quorum_health(quorum, ctx.thresholds)


def quorum_health(quorum: Quorum, thresholds) -> tuple[list[Finding], list[Metric]]:
    findings: list[Finding] = []
    metrics = [Metric("kafka_quorum_has_leader", int(quorum.leader_id is not None),
                      "1 when the KRaft quorum has a leader", min=0, max=1),
               Metric("kafka_quorum_leader_epoch", quorum.epoch, "the quorum leader's epoch"),
               Metric("kafka_quorum_high_watermark", quorum.high_watermark, "the metadata log's high watermark")]
    if quorum.leader_id is None:
        findings.append(Finding(Severity.CRIT, "quorum", "quorum", "KAFKA_QUORUM_NO_LEADER",
                                f"the KRaft controller quorum has no leader (epoch {quorum.epoch})"))
    for voter in quorum.voters:
        metrics.append(Metric("kafka_quorum_voter_lag", voter.lag, "records a voter is behind the leader",
                              labels={"node": str(voter.node_id)}, warn=thresholds.quorum_voter_lag_warn, min=0))
        if voter.role != "leader" and voter.lag > thresholds.quorum_voter_lag_warn:
            findings.append(Finding(Severity.WARN, "quorum", f"controller {voter.node_id}", "KAFKA_QUORUM_VOTER_LAG",
                                    f"controller {voter.node_id} is {voter.lag} records behind the quorum leader "
                                    f"{quorum.leader_id}", value=voter.lag))
    return findings, metrics
