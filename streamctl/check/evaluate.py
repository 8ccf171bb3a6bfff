"""Run each component's collector against one global deadline and gather an Evaluation.

Collectors run in daemon threads: one slow or broken backend cannot hold up the others,
and a component that has not answered by the deadline is reported as not evaluated
(UNKNOWN) rather than waited for.

An unreachable Kafka (its metadata call fails or times out within the per-call timeout) is
CRIT: the cluster is down as far as its clients can tell. A component that could not be
evaluated within `check --timeout` is UNKNOWN. So is one named that the context does not
configure ("context 'prod' has no spark section (...)"): silence about it is never OK. A
collector that fails unexpectedly is UNKNOWN too, its reason naming the log that keeps the
traceback (check/errorlog.py): no monitoring line carries a Python exception name.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import importlib.util
import threading
import time
from types import ModuleType
from typing import TYPE_CHECKING, Any

from streamctl import systems
from streamctl.check.errorlog import internal_error
from streamctl.errors import StreamctlError
from streamctl.model.health import Evaluation, Finding, Metric, NotEvaluated

if TYPE_CHECKING:
    from streamctl.config import Context


# component -> "module" exporting
#   configured(ctx) -> bool   the context has what collect() reads
#   SECTION                   what configured() looks for, as the UNKNOWN reason names it
#   collect(ctx, deadline_at, **options) -> (findings, metrics), or raises NotEvaluated; a third
#                             item, when there is one: {rule code: why that rule was not evaluated}
# declared by each system (streamctl/<system>/system.py), the default ones first; OPT_IN:
# those evaluated only when named (`--component`, `--probe`).
COLLECTORS = systems.collectors()
OPT_IN = systems.opt_in_collectors()


def available() -> list[str]:
    """Components whose collector this install ships."""
    return [name for name, module in COLLECTORS.items() if importlib.util.find_spec(module) is not None]


def collector(name: str) -> ModuleType:
    return importlib.import_module(COLLECTORS[name])


def configured_components(ctx: Context) -> list[str]:
    """What `check` evaluates by default: the components the context configures, opt-ins left out."""
    return [name for name in available() if name not in OPT_IN and collector(name).configured(ctx)]


def wanted_components(ctx: Context, named: list[str] | None, probe: bool = False) -> list[str]:
    """What `check` evaluates on `ctx`: the components named (else the configured ones), with the
    probe when asked."""
    components = named or configured_components(ctx)
    return [*components, "probe"] if probe and "probe" not in components else components


def unconfigured_reason(ctx: Context, name: str) -> str | None:
    """Why `name` cannot be evaluated on this context, or None when the context configures it."""
    module = collector(name)
    return None if module.configured(ctx) else f"context '{ctx.name}' has no {module.SECTION}"


def evaluate(ctx: Context, components: list[str], timeout: float, **options: Any) -> Evaluation:
    """Every component's findings, or why it was not evaluated, within `timeout` seconds."""
    deadline_at = time.monotonic() + timeout
    results: dict[str, tuple[list[Finding], list[Metric], *tuple[dict[str, str], ...]] | NotEvaluated] = {}

    def run(name: str) -> None:
        try:
            results[name] = collector(name).collect(ctx, deadline_at, **options)
        except NotEvaluated as exc:
            results[name] = exc
        except StreamctlError as exc:  # an expected failure, its message meant for the operator
            results[name] = NotEvaluated(str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug or an unexpected client error: UNKNOWN, the traceback kept
            results[name] = NotEvaluated(internal_error(f"the {name} collector", ctx.name, exc))
        finally:
            shared = options.get("kafka_snapshot")
            if name == "kafka" and shared is not None and not shared.done():
                shared.set_result(None)  # failed before its read: the others read their own

    unconfigured = {name: why for name in components if (why := unconfigured_reason(ctx, name))}
    if ("kafka" in components and "kafka" not in unconfigured and len(components) > 1
            and "kafka_snapshot" not in options):
        # The Kafka collector hands its snapshot on (the ZooKeeper cross-check compares it):
        # one Kafka client read a context, not two (in check, a forked child each)
        options = {**options, "kafka_snapshot": concurrent.futures.Future()}
    results.update((name, NotEvaluated(why)) for name, why in unconfigured.items())
    threads = [threading.Thread(target=run, args=(name,), daemon=True, name=f"check-{name}")
               for name in components if name not in unconfigured]
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
            findings, metrics, *rules_not_evaluated = result
            if rules_not_evaluated and rules_not_evaluated[0]:
                evaluation.rules_unevaluated[name] = rules_not_evaluated[0]
            evaluation.findings += findings
            evaluation.metrics += metrics
            evaluation.evaluated.append(name)
    return evaluation
