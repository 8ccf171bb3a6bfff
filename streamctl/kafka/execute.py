"""Executing Kafka plans: apply, re-read until the cluster shows the change, audit.

The CLI (--execute) and the dashboard (confirm button) both run plans through here. A
mutation's answer lost (its Kafka client crashed after the call began) is never sent again: the
verify below re-reads the outcome (streamctl.ops.execute); a mismatch is NotAsPlanned.
"""

from __future__ import annotations

import time
from pathlib import Path

from streamctl.errors import AnswerLost, StreamctlError
from streamctl.ops import NotAsPlanned, Plan, execute, read_back
from streamctl.kafka import offsets as offset_ops


def eventually(verify, timeout: float = 15.0):
    """Metadata reaches every broker a moment after a change: re-read until it shows or time is up."""

    def settled():
        deadline = time.monotonic() + timeout
        while True:
            try:
                return verify()
            except StreamctlError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    return settled


def create_topic(admin, context: str, plan: Plan) -> None:
    p = plan.parameters
    name, partitions = p["name"], p["partitions"]

    def verify():
        created = admin.metadata(name).topic(name)
        if created is None or len(created.partitions) != partitions:
            raise NotAsPlanned(f"topic {name!r} was not created as planned")
        return [[f"topic {name}", "partitions", len(created.partitions)]]

    execute(plan, context, lambda: admin.create_topic(name, partitions, p["replication_factor"], p["configs"]),
            eventually(verify))


def add_partitions(admin, context: str, plan: Plan) -> None:
    name, total = plan.parameters["name"], plan.parameters["total"]

    def verify():
        now = len(admin.metadata(name).topic_partitions(name))
        if now != total:
            raise NotAsPlanned(f"topic {name!r} has {now} partitions, expected {total}")
        return [[f"topic {name}", "partitions", now]]

    execute(plan, context, lambda: admin.add_partitions(name, total), eventually(verify))


def alter_config(admin, context: str, plan: Plan) -> None:
    name, values = plan.parameters["name"], plan.parameters["configs"]

    def verify():
        current = admin.topic_configs(name)
        wrong = [k for k, v in values.items() if v is not None and current[k].value != v]
        if wrong:
            raise NotAsPlanned(f"topic {name!r}: {', '.join(wrong)} did not take the new value")
        return [[f"topic {name}", k, current[k].value] for k in values if k in current]

    execute(plan, context, lambda: admin.alter_topic_configs(name, values), eventually(verify))


def delete_topic(admin, context: str, plan: Plan) -> None:
    name = plan.parameters["name"]
    execute(plan, context, lambda: admin.delete_topic(name), eventually(lambda: _verify_gone(admin, [name])))


def _verify_gone(admin, names: list[str]) -> list[list]:
    listed = {t.name for t in admin.metadata().topics}
    if left := [name for name in names if name in listed]:
        raise NotAsPlanned(f"topic(s) {', '.join(left)} still listed after delete (deletion may be pending)")
    return [[f"topic {name}", "exists", None] for name in names]


def reset_offsets(admin, context: str, plan: Plan, resets) -> Path | None:
    """Undo file first (durable), the group re-checked idle, then the commit, then a re-read."""
    undo: list[Path | None] = [None]

    def apply():
        _commit_resets(admin, context, plan.target, resets, undo)

    execute(plan, context, apply, eventually(lambda: _verify_resets(admin, plan.target, resets)))
    return undo[0]


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
            _commit_resets(admin, context, plan.target, resets, undo)
        except AnswerLost as lost:
            step_read_back(lost, lambda: _verify_resets(admin, plan.target, resets))
        for name in internal:
            try:
                admin.delete_topic(name)
            except AnswerLost as lost:
                step_read_back(lost, lambda name=name: _verify_gone(admin, [name]))

    def verify():
        gone = _verify_gone(admin, internal)
        return _verify_resets(admin, plan.target, resets) + [[row[0], "exists", False] for row in gone]

    execute(plan, context, apply, eventually(verify))
    return undo[0]


def _commit_resets(admin, context: str, group: str, resets, undo: list[Path | None]) -> None:
    """The undo file (its path in `undo[0]` at once: a commit whose answer is lost keeps it), the
    group re-checked idle, the commit."""
    undo[0] = offset_ops.write_undo(context, group, resets)
    _, fresh = offset_ops.describe_group(admin, group)
    offset_ops.require_idle(fresh)  # a consumer may have joined since the plan
    admin.commit_offsets(group, {(r.topic, r.partition): r.target for r in resets})


def _verify_resets(admin, group: str, resets) -> list[list]:
    targets = {(r.topic, r.partition): r.target for r in resets}
    now = admin.committed(group)
    wrong = [f"{t}/{p}" for (t, p), o in targets.items() if now.get((t, p)) != o]
    if wrong:
        raise NotAsPlanned(f"offsets of {', '.join(wrong)} differ from the plan after the commit")
    return [[f"{t}/{p}", "offset", o] for (t, p), o in sorted(targets.items())]


def elect_leaders(admin, context: str, plan: Plan) -> None:
    wanted = [tuple(tp) for tp in plan.parameters["partitions"]]

    def apply():
        failures = {tp: why for tp, why in admin.elect_preferred(wanted).items() if why}
        if failures:
            (t, p), why = next(iter(failures.items()))
            raise StreamctlError(f"election failed on {len(failures)} partition(s), e.g. {t}/{p}: {why}")

    def verify():
        partitions = admin.metadata().partitions
        after = {(p.topic, p.partition): p.leader for p in partitions}
        preferred = {(p.topic, p.partition): p.replicas[0] for p in partitions if p.replicas}
        if off := [f"{t}/{p}" for t, p in wanted if after.get((t, p)) != preferred.get((t, p))]:
            raise NotAsPlanned(f"{', '.join(off[:5])} not led by the preferred replica")
        return [[f"{t}/{p}", "leader", after.get((t, p))] for t, p in wanted]

    execute(plan, context, apply, eventually(verify))


def plan_elect_leaders(snap, topic_names) -> Plan:
    from streamctl.errors import UsageError
    from streamctl.ops import Change

    for name in topic_names:
        if snap.topic(name) is None:
            raise UsageError(f"no topic {name!r} in the cluster")
    live = {b.id for b in snap.brokers}
    off = [p for p in snap.partitions if (not topic_names or p.topic in topic_names)
           and p.replicas and p.leader != p.replicas[0]]
    plan = Plan("elect-leaders", ",".join(topic_names) or "all topics",
                {"topics": list(topic_names), "partitions": [[p.topic, p.partition] for p in off]})
    for p in off:
        ok = p.replicas[0] in live and p.replicas[0] in p.isr
        plan.changes.append(Change(f"{p.topic}/{p.partition}", "leader", p.leader, p.replicas[0],
                                   "" if ok else "preferred replica not in ISR: will fail"))
    return plan
