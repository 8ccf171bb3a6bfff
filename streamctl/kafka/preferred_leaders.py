"""Preferred leader election: the plan (partitions off their preferred leader) and its execution,
re-read until every partition is led by its preferred replica. `elect-leaders` runs it over
topics, `reassign status` over the partitions a move touched."""

from __future__ import annotations

from streamctl.errors import StreamctlError
from streamctl.kafka.settling import eventually
from streamctl.ops import NotAsPlanned, Plan, execute


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

    for name in topic_names:
        if snap.topic(name) is None:
            raise UsageError(f"no topic {name!r} in the cluster")
    chosen = [p for p in snap.partitions if not topic_names or p.topic in topic_names]
    return election_plan(snap, chosen, Plan("elect-leaders", ",".join(topic_names) or "all topics",
                                             {"topics": list(topic_names)}))


def election_plan(snap, partitions, plan: Plan) -> Plan:
    """`plan` with a change for each of `partitions` (the snapshot's) another replica leads."""
    from streamctl.ops import Change

    live = {b.id for b in snap.brokers}
    off = [p for p in partitions if p.replicas and p.leader != p.replicas[0]]
    plan.parameters["partitions"] = [[p.topic, p.partition] for p in off]
    for p in off:
        ok = p.replicas[0] in live and p.replicas[0] in p.isr
        plan.changes.append(Change(f"{p.topic}/{p.partition}", "leader", p.leader, p.replicas[0],
                                   "" if ok else "preferred replica not in ISR: will fail"))
    return plan
