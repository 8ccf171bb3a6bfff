"""`streamctl quorum`: the KRaft controller quorum (leader, epoch, high watermark, each voter's and
observer's log end, lag and last caught-up time, `kraft.version`) read with DescribeQuorum through
kafka-python (backends/kafka/wire_reads.py): no JVM start. A ZooKeeper-mode cluster has none."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from streamctl.console import OUTPUT, emit, out, simple_table
from streamctl.model.kafka import Quorum
from streamctl.session import Session


@click.command("quorum")
@OUTPUT
@click.pass_obj
def quorum(session: Session, output: str) -> None:
    """The KRaft controller quorum: leader, voters and observers with their lag.

    \b
    Examples:
      streamctl quorum
      streamctl quorum -o json
    """
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.isolated import IsolatedKafka
    from streamctl.backends.kafka.wire_reads import NOT_KRAFT, WireReads

    ctx = session.context()
    reader = IsolatedKafka(WireReads, ctx.kafka.client_config(), timeout=ctx.kafka.timeout)
    try:
        read = reader.quorum()
    except KafkaError as exc:
        if str(exc) == NOT_KRAFT:
            raise
        raise KafkaError(f"Kafka at {ctx.kafka.bootstrap_servers}: {exc}") from None
    emit(output, quorum_summary(read), quorum_table)


def quorum_summary(quorum: Quorum) -> dict:
    def node(n) -> dict:
        return {"node_id": n.node_id, "role": n.role, "log_end_offset": n.log_end_offset, "lag": n.lag,
                "last_caught_up_ms": n.last_caught_up_ms}

    return {"leader_id": quorum.leader_id, "epoch": quorum.epoch, "high_watermark": quorum.high_watermark,
            "kraft_version": quorum.kraft_version,
            "voters": [node(n) for n in quorum.voters],
            "observers": [node(n) for n in quorum.nodes if n.role == "observer"]}


def quorum_table(summary: dict) -> None:
    static = {0: " (static)", 1: " (dynamic)"}.get(summary["kraft_version"], "")
    out.print(f"leader {summary['leader_id'] if summary['leader_id'] is not None else 'none'}  "
              f"epoch {summary['epoch']}  high watermark {summary['high_watermark']}  "
              f"kraft.version {summary['kraft_version']}{static}", highlight=False)
    rows = [[n["node_id"], n["role"], n["log_end_offset"], n["lag"], _caught_up(n["last_caught_up_ms"])]
            for n in [*summary["voters"], *summary["observers"]]]
    simple_table("quorum", ["node", "role", "log end", "lag", "last caught up (UTC)"], rows,
                 right={"node", "log end", "lag"})


def _caught_up(ms: int | None) -> str | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")
