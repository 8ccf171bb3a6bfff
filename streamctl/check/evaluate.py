"""Run each component's collector against one global deadline and gather an Evaluation.

Collectors run in daemon threads: one slow or broken backend cannot hold up the others,
and a component that has not answered by the deadline is reported as not evaluated
(UNKNOWN) rather than waited for.

An unreachable Kafka (its metadata call fails or times out within the per-call timeout) is
CRIT: the cluster is down as far as its clients can tell. A component that could not be
evaluated within `check --timeout` is UNKNOWN.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
import time

from streamctl.model.health import Evaluation, NotEvaluated


# component -> "module" exporting configured(ctx) and collect(ctx, deadline_at, **options)
COLLECTORS = {
    "kafka": "streamctl.kafka.collect",
    "zookeeper": "streamctl.zookeeper.collect",
    "flume": "streamctl.flume.collect",
    "spark": "streamctl.spark.collect",
    "connect": "streamctl.connect.collect",
    "quorum": "streamctl.kafka.quorum",  # opt-in: a JVM start (KRaft's controller quorum)
    "pipeline": "streamctl.pipeline.health",  # opt-in: two Kafka readings seconds apart
    "probe": "streamctl.pipeline.probe",  # opt-in (--probe): writes a marker into the entry topics
}


def available() -> list[str]:
    """Components whose collector this install ships."""
    return [name for name, module in COLLECTORS.items() if importlib.util.find_spec(module) is not None]


def collector(name: str):
    return importlib.import_module(COLLECTORS[name])


def configured_components(ctx) -> list[str]:
    return [name for name in available() if collector(name).configured(ctx)]


def evaluate(ctx, components: list[str], timeout: float, **options) -> Evaluation:
    """Every component's findings, or why it was not evaluated, within `timeout` seconds."""
    deadline_at = time.monotonic() + timeout
    results: dict[str, object] = {}

    def run(name: str) -> None:
        try:
            results[name] = collector(name).collect(ctx, deadline_at, **options)
        except NotEvaluated as exc:
            results[name] = exc
        except Exception as exc:  # a bug or an unexpected client error: UNKNOWN, named
            results[name] = NotEvaluated(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run, args=(name,), daemon=True, name=f"check-{name}")
               for name in components]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline_at - time.monotonic()))
    evaluation = Evaluation()
    for name in components:
        result = results.get(name)
        if result is None:
            evaluation.unevaluated[name] = f"no answer within {timeout:g} s"
        elif isinstance(result, NotEvaluated):
            evaluation.unevaluated[name] = str(result)
        else:
            findings, metrics = result
            evaluation.findings += findings
            evaluation.metrics += metrics
            evaluation.evaluated.append(name)
    return evaluation
