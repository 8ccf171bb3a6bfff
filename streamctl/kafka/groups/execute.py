"""Executing an offset reset plan: undo file first, the group re-checked idle, the commit, then a
re-read until the committed offsets show the plan (the CLI's --execute and the dashboard's
confirm button both run it)."""

from __future__ import annotations

from pathlib import Path

from streamctl.kafka.groups import offsets as offset_ops
from streamctl.kafka.settling import eventually
from streamctl.ops import NotAsPlanned, Plan, execute


def reset_offsets(admin, context: str, plan: Plan, resets) -> Path | None:
    """Undo file first (durable), the group re-checked idle, then the commit, then a re-read."""
    undo: list[Path | None] = [None]

    def apply():
        commit_resets(admin, context, plan.target, resets, undo)

    execute(plan, context, apply, eventually(lambda: verify_resets(admin, plan.target, resets)))
    return undo[0]


def commit_resets(admin, context: str, group: str, resets, undo: list[Path | None]) -> None:
    """The undo file (its path in `undo[0]` at once: a commit whose answer is lost keeps it), the
    group re-checked idle, the commit."""
    undo[0] = offset_ops.write_undo(context, group, resets)
    _, fresh = offset_ops.describe_group(admin, group)
    offset_ops.require_idle(fresh)  # a consumer may have joined since the plan
    admin.commit_offsets(group, {(r.topic, r.partition): r.target for r in resets})


def verify_resets(admin, group: str, resets) -> list[list]:
    targets = {(r.topic, r.partition): r.target for r in resets}
    now = admin.committed(group)
    wrong = [f"{t}/{p}" for (t, p), o in targets.items() if now.get((t, p)) != o]
    if wrong:
        raise NotAsPlanned(f"offsets of {', '.join(wrong)} differ from the plan after the commit")
    return [[f"{t}/{p}", "offset", o] for (t, p), o in sorted(targets.items())]


