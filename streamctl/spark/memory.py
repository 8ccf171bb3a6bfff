"""The memory a job's state stores live in, as streamctl knows it (no I/O):

    the context's `executor_memory` for the job           (the operator says so)
    the launcher's spec: --driver-memory on local[N]      (the executors run in the driver)
                         spark.executor.memory elsewhere  (Spark's default 1g when unset)
    the standalone Master's memory per executor           (its application there)

None when none of them is known: the memory rule then says it was not evaluated, and why.
"""

from __future__ import annotations

from streamctl.model.spark import StartMemory
from streamctl.spark.settings import memory_bytes

SPARK_DEFAULT_EXECUTOR_MEMORY = "1g"


def start_memory(configured: str | None, spec, app) -> StartMemory | None:
    """What the job was started with: `configured` (the context), else its launcher `spec`
    (streamctl started it), else its application `app` on the standalone Master."""
    if configured and (size := memory_bytes(configured)) is not None:
        return StartMemory(size, f"executor_memory {configured} (the context)")
    if spec is not None:
        if spec.local:
            size = memory_bytes(spec.driver_memory)
            return None if size is None else StartMemory(size, f"driver memory {spec.driver_memory} ({spec.master})")
        text = spec.conf.get("spark.executor.memory")
        said = f"spark.executor.memory {text}" if text else f"Spark's default executor memory {SPARK_DEFAULT_EXECUTOR_MEMORY}"
        size = memory_bytes(text or SPARK_DEFAULT_EXECUTOR_MEMORY)
        return None if size is None else StartMemory(size, said)
    if app is not None and app.memory_per_executor_mb:
        return StartMemory(app.memory_per_executor_mb << 20,
                           f"{app.memory_per_executor_mb} MiB per executor (application {app.id} on the Master)")
    return None


UNKNOWN_MEMORY = ("the memory it was started with is unknown: streamctl did not launch it here and the "
                  "context gives no executor_memory for it")
