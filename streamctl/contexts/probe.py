"""`contexts test`: reach every system of each context once, all at the same time.

Each system is asked through the client its `check` collector uses (Kafka's metadata call in a
forked child, ZooKeeper's `srvr`, the Connect worker's `GET /`, each Flume agent's metrics
endpoint, the Spark Masters' `/json/`), with the system's own timeout capped by the run's
deadline. A system that has not answered by then is unreachable, named with why.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from streamctl.check.errorlog import internal_error
from streamctl.errors import StreamctlError

if TYPE_CHECKING:
    from streamctl.config import Config, Context

JOIN_SLACK = 0.5  # seconds past the deadline a probe's thread gets to report


@dataclass(frozen=True)
class Reached:
    """What a system said about itself."""

    version: str | None = None  # None: the system does not tell its clients (Kafka)
    mode: str | None = None


@dataclass(frozen=True)
class SystemProbe:
    """One context's system, as `contexts test` found it."""

    context: str
    system: str  # kafka, zookeeper, connect, flume agent NAME, spark
    reachable: bool
    version: str | None = None
    mode: str | None = None
    latency_ms: float | None = None
    error: str | None = None  # why it is unreachable


Probe = Callable[[float], Reached]


def _kafka(ctx: Context) -> Probe:
    def probe(timeout: float) -> Reached:
        from streamctl.backends.kafka.client import Deadline, KafkaError
        from streamctl.backends.kafka.isolated import isolated_backend
        from streamctl.backends.kafka.probe import silent_brokers

        reserve = min(1.0, timeout * 0.3)  # to ask each bootstrap broker alone why the metadata call failed
        try:
            snap = isolated_backend(ctx.kafka.client_config(), timeout).metadata(
                deadline=Deadline(timeout, timeout - reserve))
        except KafkaError as exc:
            silent = silent_brokers(ctx.kafka.bootstrap_servers.split(","), reserve)
            raise StreamctlError("; ".join(b.describe() for b in silent) or str(exc)) from None
        if not snap.brokers:
            raise StreamctlError("no broker in the metadata answer")
        return Reached(mode=f"{'kraft' if snap.kraft else 'zookeeper'}, {len(snap.brokers)} brokers")
    return probe


def _zookeeper(ctx: Context) -> Probe:
    def probe(timeout: float) -> Reached:
        from streamctl.backends.zookeeper_ensemble import probe_ensemble

        assert ctx.zookeeper is not None  # only probed when configured
        servers = probe_ensemble(ctx.zookeeper.hosts, timeout, ctx.zookeeper.admin_url)
        serving = [s for s in servers if s.serving]
        if not serving:
            raise StreamctlError("; ".join(f"{s.server}: {s.error or s.mode or 'not serving'}" for s in servers)
                                 or "no server")
        modes = ", ".join(sorted({s.mode for s in serving if s.mode}))
        return Reached(serving[0].version, f"{modes}, {len(serving)} of {len(servers)} serving")
    return probe


def _connect(ctx: Context) -> Probe:
    def probe(timeout: float) -> Reached:
        from streamctl.connect.collect import backend_for

        with backend_for(ctx, timeout) as backend:
            cluster = backend.cluster()
        return Reached(cluster.version or None, f"{len(cluster.connectors)} connectors")
    return probe


def _flume(url: str) -> Probe:
    def probe(timeout: float) -> Reached:
        from streamctl.backends.flume import fetch

        return Reached(mode=f"{len(fetch(url, timeout))} components")
    return probe


def _spark(masters: list[str]) -> Probe:
    def probe(timeout: float) -> Reached:
        from streamctl.backends.spark_master import read_cluster

        cluster = read_cluster(masters, timeout)
        if cluster.error:
            raise StreamctlError(cluster.error)
        return Reached(mode=f"{cluster.status or '?'}, {len(cluster.alive_workers)} workers")
    return probe


def probes_of(ctx: Context) -> dict[str, tuple[Probe, float]]:
    """Every system the context configures -> how to reach it and its own timeout."""
    probes: dict[str, tuple[Probe, float]] = {"kafka": (_kafka(ctx), ctx.kafka.timeout)}
    if ctx.zookeeper is not None:
        probes["zookeeper"] = _zookeeper(ctx), ctx.zookeeper.timeout
    if ctx.connect is not None:
        probes["connect"] = _connect(ctx), ctx.connect.timeout
    for name, agent in sorted(ctx.flume.agents.items()):
        probes[f"flume agent {name}"] = _flume(str(agent.metrics_url)), ctx.kafka.timeout
    if ctx.spark.masters:
        probes["spark"] = _spark([str(m) for m in ctx.spark.masters]), ctx.kafka.timeout
    return probes


def probe_contexts(config: Config, names: list[str], timeout: float) -> list[SystemProbe]:
    """Every system of each named context, probed concurrently, each within its own timeout
    (and `timeout` overall); in the order of `names`, then of probes_of."""
    deadline_at = time.monotonic() + timeout
    found: dict[tuple[str, str], SystemProbe] = {}
    planned: list[tuple[str, str]] = []
    threads = []

    def run(context: str, system: str, probe: Probe, own_timeout: float) -> None:
        started = time.monotonic()
        try:
            reached = probe(max(0.1, min(own_timeout, deadline_at - started)))
        except StreamctlError as exc:
            found[context, system] = SystemProbe(context, system, False, error=str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - a bug or an unexpected client error: the traceback kept
            found[context, system] = SystemProbe(context, system, False,
                                                 error=internal_error(f"the {system} probe", context, exc))
            return
        latency = round((time.monotonic() - started) * 1000, 1)
        found[context, system] = SystemProbe(context, system, True, reached.version, reached.mode, latency)

    for context in names:
        try:
            probes = probes_of(config.context(context))
        except StreamctlError as exc:  # an unset ${VAR}: this context alone cannot be tried
            planned.append((context, "config"))
            found[context, "config"] = SystemProbe(context, "config", False, error=str(exc))
            continue
        for system, (probe, own_timeout) in probes.items():
            planned.append((context, system))
            threads.append(threading.Thread(target=run, args=(context, system, probe, own_timeout), daemon=True,
                                            name=f"contexts-test-{context}-{system}"))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline_at + JOIN_SLACK - time.monotonic()))
    return [found.get(key) or SystemProbe(*key, False, error=f"no answer within {timeout:g} s") for key in planned]
