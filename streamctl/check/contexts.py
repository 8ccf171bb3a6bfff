"""`check --contexts a,b` / `--all-contexts`: every context evaluated at once, each under its own deadline.

Each context runs `evaluate` (check/evaluate.py) in its own daemon thread against the same
deadline, so N contexts take about as long as the slowest one, and a context that cannot be
reached is UNKNOWN (or CRIT, as a single check says) for itself only: nothing waits for it past
the deadline. Threads rather than a process per context: the collectors already wait in threads,
and a process per context pays the interpreter and check's imports again for each one
(bench/fleet_check.py measures the loop of single checks). Every context's Kafka reads run in one
forked child (backends/kafka/shared_child.py: a client per context in it, a crash there asked
again in a fresh one), forked before the contexts' threads start, not a child per context and read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from streamctl.check.errorlog import internal_error
from streamctl.check.evaluate import evaluate, wanted_components
from streamctl.errors import StreamctlError, UsageError
from streamctl.model.health import Evaluation

if TYPE_CHECKING:
    from streamctl.config import Config

JOIN_SLACK = 1.0  # seconds past the deadline a context's thread gets to hand in what evaluate gathered


def chosen_contexts(config: Config, asked: str | None, every: bool) -> list[str]:
    """The contexts `--contexts LIST` names (in its order, once each) or, with `--all-contexts`,
    every context of the file; an unknown or empty name is a usage error naming the known ones."""
    from streamctl.config.schema import known_contexts

    if every:
        names = list(config.contexts)
        if not names:
            raise UsageError(f"--all-contexts: {known_contexts(config.contexts)} in {config.path}")
        return names
    names = list(dict.fromkeys(n.strip() for n in (asked or "").split(",") if n.strip()))
    unknown = [n for n in names if n not in config.contexts]
    if unknown or not names:
        raise UsageError(f"--contexts: no context {', '.join(repr(n) for n in unknown) or 'named'} in "
                         f"{config.path} ({known_contexts(config.contexts)})")
    return names


def evaluate_contexts(config: Config, names: list[str], components: list[str] | None, timeout: float,
                      probe: bool = False, on_answer: Callable[[str, Evaluation], None] | None = None,
                      **options: Any) -> dict[str, Evaluation]:
    """Each named context's Evaluation, all evaluated concurrently within `timeout` seconds.
    `on_answer(name, evaluation)`, when given, is called in that context's thread as soon as it
    has its answer (the dashboard's Fleet screen paints each row then)."""
    from streamctl.backends.kafka.shared_child import SharedKafkaChild

    deadline_at = time.monotonic() + timeout
    results: dict[str, Evaluation] = {}
    kafka_child = SharedKafkaChild()

    def run(name: str) -> None:
        try:
            ctx = config.context(name)  # a context with an unset ${VAR} fails alone
            kafka = {"kafka_backend": kafka_child.backend(ctx.kafka.client_config(), ctx.kafka.timeout)}
            results[name] = evaluate(ctx, wanted_components(ctx, components, probe),
                                     max(0.1, deadline_at - time.monotonic()), **kafka, **options)
        except StreamctlError as exc:
            results[name] = Evaluation(failure=str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug: this context UNKNOWN, the traceback kept
            results[name] = Evaluation(failure=internal_error("check", name, exc))
        if on_answer is not None:
            on_answer(name, results[name])

    threads = [threading.Thread(target=run, args=(name,), daemon=True, name=f"check-context-{name}")
               for name in names]
    with kafka_child:
        kafka_child.start()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(max(0.0, deadline_at + JOIN_SLACK - time.monotonic()))
        answered = dict(results)  # before the child ends: a read it cuts off is no answer of its context
    return {name: answered.get(name) or Evaluation(failure=f"no answer within {timeout:g} s") for name in names}
