"""Executing a Kafka Streams application reset plan: input offsets moved, internal topics deleted."""

from __future__ import annotations

from pathlib import Path

from streamctl.errors import AnswerLost
from streamctl.kafka.groups.execute import commit_resets, verify_resets
from streamctl.kafka.settling import eventually
from streamctl.kafka.topics.execute import verify_gone
from streamctl.ops import Plan, execute, read_back


def reset_streams_app(admin, context: str, plan: Plan, resets) -> Path | None:
    """As Kafka's application reset tool: the input offsets moved (undo file first), then the
    internal topics deleted; re-read until the offsets show and the topics are gone. A step whose
    answer was lost is re-read before the next: the reset goes on only past a step that shows
    done, so it is never left half done unknowingly."""
    internal = plan.parameters["internal_topics"]
    undo: list[Path | None] = [None]

    def step_read_back(lost: AnswerLost, verify) -> None:
        read_back(lost, eventually(verify))
        plan.read_back = "; ".join(filter(None, [plan.read_back, (f"the answer was lost ({lost}); the re-read "
                                                                   "shows the change made")]))

    def apply():
        try:
            commit_resets(admin, context, plan.target, resets, undo)
        except AnswerLost as lost:
            step_read_back(lost, lambda: verify_resets(admin, plan.target, resets))
        for name in internal:
            try:
                admin.delete_topic(name)
            except AnswerLost as lost:
                step_read_back(lost, lambda name=name: verify_gone(admin, [name]))

    def verify():
        gone = verify_gone(admin, internal)
        return verify_resets(admin, plan.target, resets) + [[row[0], "exists", False] for row in gone]

    execute(plan, context, apply, eventually(verify))
    return undo[0]
