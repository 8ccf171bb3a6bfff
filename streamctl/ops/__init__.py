"""Operations: request -> plan -> confirm -> execute -> verify -> audit record.

A Plan says object by object what will change, before and after. Nothing changes until the
caller executes it (`--execute` on the CLI, a confirm button in the dashboard); read-only
contexts refuse the execution before any network call (a dry run still shows the plan).

A change whose answer was lost (AnswerLost: its Kafka client crashed after the call began, a
Connect worker's answer timed out) is never sent again: the plan's own verify re-reads the
cluster and the change is done (audit `ok`), not done (`failed`: the re-read shows it not made),
or, when the re-read fails too, of unknown outcome (`unknown`, OutcomeUnknown: re-read before
retrying). Verify functions raise NotAsPlanned when the cluster differs from the plan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

from streamctl.errors import AnswerLost, OutcomeUnknown, StreamctlError, UsageError
from streamctl.ops import audit

UNKNOWN = "outcome unknown: re-read before retrying"


class ReadOnlyError(UsageError):
    """A mutation was asked for in read-only mode."""


class NotAsPlanned(StreamctlError):
    """A re-read shows the cluster other than the plan said it would be after the change."""


@dataclass(frozen=True)
class Change:
    object: str  # "topic orders", "orders/3", "group billing"
    field: str  # "partitions", "retention.ms", "offset"
    before: Any
    after: Any
    note: str = ""


@dataclass
class Plan:
    operation: str  # "topics.create", "groups.reset-offsets", ...
    target: str  # the main object: a topic or group name
    parameters: dict[str, Any]
    changes: list[Change] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    read_back: str = ""  # set by execute() when the answer was lost and the re-read showed it done

    def summary(self) -> str:
        if not self.changes:
            return f"{self.operation} {self.target}: nothing to change"
        return f"{self.operation} {self.target}: {len(self.changes)} change(s)"

    def as_dict(self) -> dict:
        return {"operation": self.operation, "target": self.target, "parameters": self.parameters,
                "changes": [asdict(c) for c in self.changes], "warnings": list(self.warnings),
                "summary": self.summary()}


def require_writable(operation: str, context, read_only_flag: bool = False, execute: bool = True) -> None:
    """Refuse to execute `operation` when --read-only was given or the context says read_only:
    true. A dry run (execute=False) passes: its plan only reads, so it can be previewed from a
    read-only monitoring host."""
    if not execute:
        return
    if read_only_flag:
        raise ReadOnlyError(f"read-only mode (--read-only): refusing {operation}")
    if getattr(context, "read_only", False):
        raise ReadOnlyError(f"context '{context.name}' is read-only: refusing {operation}")


def execute(plan: Plan, context_name: str | None, apply: Callable[[], Any],
            verify: Callable[[], Any] | None = None, reread: Callable[[], Any] | None = None) -> Any:
    """Apply a plan, verify it, and record the outcome (failures too) in the audit log. A lost
    answer is read back with `reread` (default: `verify`; see read_back); `apply`'s result is
    then None."""
    before = [[c.object, c.field, c.before] for c in plan.changes]
    record = partial(audit.record, plan.operation, plan.parameters, context=context_name,
                     summary=plan.summary(), before=before)
    try:
        try:
            result = apply()
        except AnswerLost as lost:
            result, after = None, read_back(lost, reread or verify)
            plan.read_back = f"the answer was lost ({lost}); the re-read shows the change made"
        else:
            after = verify() if verify else [[c.object, c.field, c.after] for c in plan.changes]
    except OutcomeUnknown as exc:
        record("unknown", error=str(exc))
        raise
    except StreamctlError as exc:
        record("failed", error=str(exc))
        raise
    record("ok", after=after, note=plan.read_back or None)
    return result


def read_back(lost: AnswerLost, verify: Callable[[], Any] | None) -> Any:
    """The outcome of a change whose answer was lost, re-read by `verify`: what it returns when
    the change shows; a StreamctlError ("not done") when the re-read shows it not made;
    OutcomeUnknown when there is no re-read or it fails too."""
    if verify is None:
        raise OutcomeUnknown(f"{UNKNOWN} ({lost}; this change has no re-read)")
    try:
        return verify()
    except NotAsPlanned as exc:
        raise StreamctlError(f"not done: {lost}; the re-read shows it not made: {exc}") from None
    except StreamctlError as exc:
        raise OutcomeUnknown(f"{UNKNOWN} ({lost}; the re-read failed too: {exc})") from None
