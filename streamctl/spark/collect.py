"""Spark: the standalone cluster (when configured), each context job's checkpoint, lag, liveness
and rates, then the health rules."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from streamctl.model.health import NotEvaluated

SECTION = "spark section (spark.jobs or spark.masters)"


def configured(ctx) -> bool:
    return bool(ctx.spark.jobs or ctx.spark.masters)


def collect(ctx, deadline_at: float, **_options):
    from streamctl.spark import jobs as spark_jobs
    from streamctl.spark.health import spark_health  # only when configured: `check` imports every collector
    from streamctl.spark.state_health import state_rules_unevaluated

    items = spark_jobs.entries(ctx, context_only=True)
    if time.monotonic() >= deadline_at - 0.5:
        raise NotEvaluated("no time left before the deadline")
    cluster = spark_jobs.read_cluster(ctx, deadline_at)
    with ThreadPoolExecutor(max_workers=min(8, max(1, len(items))), thread_name_prefix="spark-job") as pool:
        views = list(pool.map(lambda item: spark_jobs.observe(item, ctx, deadline_at=deadline_at,
                                                              cluster=cluster), items))
    if time.monotonic() > deadline_at:
        raise NotEvaluated("the Spark jobs were not read within the deadline")
    findings, metrics = spark_health(views, ctx.thresholds, cluster)
    return findings, metrics, state_rules_unevaluated(views)
