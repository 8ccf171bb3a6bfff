"""Operations: request -> plan -> confirm -> execute -> verify -> audit record.

A Plan says object by object what will change, before and after. Nothing changes until the
caller executes it (`--execute` on the CLI, a confirm button in the dashboard); read-only
contexts refuse the execution before any network call (a dry run still shows the plan).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from streamctl.errors import StreamctlError, UsageError
from streamctl.ops import audit


class ReadOnlyError(UsageError):
    """A mutation was asked for in read-only mode."""


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
            verify: Callable[[], Any] | None = None) -> Any:
    """Apply a plan, verify it, and record the outcome (failures too) in the audit log."""
    before = [[c.object, c.field, c.before] for c in plan.changes]
    try:
        result = apply()
        after = verify() if verify else [[c.object, c.field, c.after] for c in plan.changes]
    except StreamctlError as exc:
        audit.record(plan.operation, plan.parameters, "failed", context=context_name,
                     summary=plan.summary(), before=before, error=str(exc))
        raise
    audit.record(plan.operation, plan.parameters, "ok", context=context_name,
                 summary=plan.summary(), before=before, after=after)
    return result
