"""ZooKeeper: every server's state (srvr/mntr/ruok, AdminServer), then the Kafka-on-ZooKeeper
cross-check against the Admin API when the ensemble holds a ZooKeeper-mode Kafka cluster."""

from __future__ import annotations

import concurrent.futures
import time

from streamctl.model.health import Finding, Metric, NotEvaluated, Severity
from streamctl.zookeeper.health import COMPONENT, ensemble_health, kafka_crosscheck

CONFIRM_PAUSE = 1.0  # seconds before re-reading a disagreement (metadata propagates asynchronously)
MIN_CROSSCHECK_TIME = 1.0


SECTION = "zookeeper section"


def configured(ctx) -> bool:
    return ctx.zookeeper is not None


def collect(ctx, deadline_at: float, kafka_backend=None, kafka_snapshot: concurrent.futures.Future | None = None,
            **_options):
    """`kafka_backend`: a long-lived Kafka client to reuse (the dashboard's client process);
    without one, the cross-check's metadata read runs in a forked child, as check's reads do.
    `kafka_snapshot`: the Kafka collector's snapshot, being read; compared instead of a read
    of our own when it comes complete."""
    from streamctl.backends.zookeeper_ensemble import probe_ensemble  # kazoo: only when configured

    settings = ctx.zookeeper
    # The cross-check's Kafka metadata (the Kafka collector's snapshot, else a read of our own)
    # is awaited beside the ensemble probe, not after it: on a fleet (check --all-contexts) that
    # wait was the end of every context's run.
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="zk-crosscheck")
    try:
        metadata = read_metadata(pool, ctx, deadline_at, kafka_backend, kafka_snapshot)
        servers = probe_ensemble(settings.hosts, _left(settings.timeout, deadline_at), settings.admin_url)
        findings, metrics = ensemble_health(servers, ctx.thresholds)
        if not any(s.serving for s in servers):
            return findings, metrics
        if deadline_at - time.monotonic() < MIN_CROSSCHECK_TIME:
            findings.append(Finding(Severity.UNKNOWN, COMPONENT, "kafka", "ZK_KAFKA_NOT_CHECKED",
                                    "no time left for the Kafka cross-check"))
            return findings, metrics
        more, more_metrics = _kafka_crosscheck(ctx, deadline_at, kafka_backend, pool, metadata)
        return findings + more, metrics + more_metrics
    finally:
        pool.shutdown(wait=False)  # a metadata read still going is bounded by its own deadline


def _left(per_call: float, deadline_at: float) -> float:
    left = deadline_at - time.monotonic()
    if left <= 0.1:
        raise NotEvaluated("deadline reached")
    return min(per_call, left)


def _kafka_crosscheck(ctx, deadline_at: float, kafka_backend, pool: concurrent.futures.Executor,
                      first_metadata: concurrent.futures.Future) -> tuple[list[Finding], list[Metric]]:
    from streamctl.backends.zookeeper import ZooKeeperBackend, ZooKeeperError
    from streamctl.zookeeper.kafka_znodes import KafkaZooKeeper

    settings = ctx.zookeeper
    zk = ZooKeeperBackend.from_settings(settings, timeout=_left(settings.timeout, deadline_at))
    try:
        kafka_zk = KafkaZooKeeper(zk, settings.chroot)
        if not kafka_zk.is_kafka():
            return [], []
        first = _compare(kafka_zk, deadline_at, first_metadata)
        if all(f.severity is Severity.OK for f in first[0]):
            return first
        if deadline_at - time.monotonic() < CONFIRM_PAUSE + MIN_CROSSCHECK_TIME:
            return first
        time.sleep(CONFIRM_PAUSE)  # a disagreement counts only if it is still there
        second = _compare(kafka_zk, deadline_at, read_metadata(pool, ctx, deadline_at, kafka_backend))
        lasting = {f.code for f in first[0]}
        return [f for f in second[0] if f.severity is Severity.OK or f.code in lasting], second[1]
    except ZooKeeperError as exc:
        if time.monotonic() >= deadline_at - 0.1:
            raise NotEvaluated(f"no answer within the deadline ({exc})") from None
        return [Finding(Severity.CRIT, COMPONENT, "session", "ZK_SESSION_FAILED",
                        f"ZooKeeper answers srvr but a client session failed: {exc}")], []
    finally:
        zk.close()


def read_metadata(pool: concurrent.futures.Executor, ctx, deadline_at: float, kafka_backend,
                   shared: concurrent.futures.Future | None = None) -> concurrent.futures.Future:
    """Kafka's metadata, in `pool` from now on: the `shared` snapshot when it comes complete
    (no errors: its broker mode was read too), else a read of our own."""
    from streamctl.backends.kafka.client import Deadline
    from streamctl.backends.kafka.isolated import isolated_backend

    def read():
        if shared is not None:
            snap = shared.result(timeout=max(0.1, deadline_at - time.monotonic()))
            if snap is not None and not snap.errors:
                return snap
        kafka = kafka_backend or isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout)
        return kafka.metadata(deadline=Deadline(ctx.kafka.timeout, deadline_at - time.monotonic()))

    return pool.submit(read)


def _compare(kafka_zk, deadline_at: float, metadata: concurrent.futures.Future):
    """One cross-check of ZooKeeper's view, read now, against `metadata` (being read meanwhile);
    unreadable Kafka metadata is the Kafka component's finding, not ours."""
    from streamctl.backends.kafka.client import KafkaError

    view = kafka_zk.view()
    try:
        snap = metadata.result(timeout=max(0.1, deadline_at - time.monotonic()))
    except (KafkaError, concurrent.futures.TimeoutError) as exc:
        return [Finding(Severity.OK, COMPONENT, "kafka", "ZK_KAFKA_NOT_CHECKED",
                        f"Kafka cross-check skipped: metadata unreadable ({exc or 'timed out'})")], []
    if snap.kraft:
        return [], []
    return kafka_crosscheck(view, snap)
