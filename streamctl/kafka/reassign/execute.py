"""Running reassignment plans: throttles first (moving partitions only), then the move, the undo
file and the throttle record; cancelling; removing throttles and electing the preferred leaders
asked for once nothing moves. Each audited."""

from __future__ import annotations

from streamctl.errors import UsageError
from streamctl.kafka import preferred_leaders
from streamctl.kafka.reassign import plans, state
from streamctl.kafka.reassign.planner import Layout, Partition
from streamctl.kafka.settling import eventually
from streamctl.ops import Change, NotAsPlanned, Plan, execute


def start(admin, context: str, plan: Plan, layout: Layout, moves: dict[Partition, list[int]], rate: int,
          elect_leaders: bool = False) -> str:
    brokers = plans.moving_brokers(layout, moves)
    topics = plans.throttled_replicas(layout, moves)
    undo = state.write_undo(context, {p: layout.replicas[p] for p in moves})

    def apply():
        state.record_throttles(context, brokers, sorted(topics))  # first: status can clean up after a crash
        if elect_leaders:
            state.record_elections(context, sorted(moves))
        try:
            admin.set_throttles(rate, brokers, topics)
            admin.reassign(moves)
        finally:
            state.done_starting(context)

    def verify():
        moving = admin.in_flight()
        now = admin.layout()["replicas"]
        stray = [f"{t}/{p}" for (t, p), new in moves.items() if (t, p) not in moving and now.get((t, p)) != new]
        if stray:
            raise NotAsPlanned(f"{stray[0]} neither moving nor on its new replicas")
        return [[f"{t}/{p}", "replicas", ",".join(map(str, new))] for (t, p), new in moves.items()]

    execute(plan, context, apply, eventually(verify))
    electing = "; it elects their preferred leaders once they moved" if elect_leaders else ""
    return (f"started: {len(moves)} partition(s) moving at {rate:,} bytes/s; follow with `streamctl reassign "
            f"status`{electing}; undo file (replicas before): {undo}")


def ensure_idle(admin) -> None:
    """Refuse to start while a reassignment is in flight (Kafka would mix the two)."""
    busy = admin.in_flight()
    if busy:
        t, p = next(iter(sorted(busy)))
        raise UsageError(f"a reassignment is in progress ({t}/{p} and {len(busy) - 1} more): "
                         "wait for `streamctl reassign status` or `reassign cancel` first")


def cancel(admin, context: str, plan: Plan, in_flight: dict[Partition, dict[str, list[int]]]) -> str:
    def verify():
        left = sorted(set(admin.in_flight()) & set(in_flight))
        if left:
            raise NotAsPlanned(f"{left[0][0]}/{left[0][1]} is still moving")
        return [[c.object, c.field, c.after] for c in plan.changes]

    execute(plan, context, lambda: admin.reassign(dict.fromkeys(in_flight)), eventually(verify))
    dropped = "; the preferred-leader election asked for is dropped" if state.recorded_elections(context) else ""
    state.forget_elections(context)
    return (f"cancelled: {len(in_flight)} partition(s) keep their previous replicas; "
            + remove_throttles(admin, context) + dropped)


def remove_throttles(admin, context: str) -> str:
    """Remove the throttles streamctl recorded setting (audited); the line saying what was done."""
    recorded = state.recorded_throttles(context)
    if not recorded["brokers"] and not recorded["topics"]:
        return "no throttles of streamctl's to remove"
    starting = state.starting_execute(context)
    if starting is not None:  # its throttles are set, its move not started yet
        return f"throttles left in place: `reassign execute` (pid {starting}) is starting its move"
    plan = Plan("reassign.remove-throttles", "replication throttles", recorded,
                [Change(f"broker {b}", "replication throttled rates", "set", None) for b in recorded["brokers"]] +
                [Change(f"topic {t}", "replication throttled replicas", "set", None) for t in recorded["topics"]])

    def verify():
        left = {name: keys for name, keys in admin.throttle_configs(recorded["brokers"], recorded["topics"]).items() if keys}
        if left:
            raise NotAsPlanned(f"{next(iter(left))} still has {', '.join(sorted(next(iter(left.values()))))}")
        return [[c.object, c.field, None] for c in plan.changes]

    execute(plan, context, lambda: admin.clear_throttles(recorded["brokers"], recorded["topics"]), eventually(verify))
    state.forget_throttles(context)
    return (f"throttles removed from {len(recorded['brokers'])} broker(s) and {len(recorded['topics'])} topic(s)")


def elect_moved_leaders(kafka_admin, context: str) -> str:
    """Elect the preferred leader of each partition `execute --elect-leaders` recorded (audited),
    then forget the wish; the line saying what was done. A failure raises and keeps the wish."""
    wanted = set(state.recorded_elections(context))
    snap = kafka_admin.metadata()
    moved = [p for p in snap.partitions if (p.topic, p.partition) in wanted]  # a deleted topic's are gone
    plan = preferred_leaders.election_plan(snap, moved, Plan("reassign.elect-leaders", "moved partitions", {}))
    if plan.changes:
        preferred_leaders.elect_leaders(kafka_admin, context, plan)
    state.forget_elections(context)
    return (f"elected preferred leaders of {len(plan.changes)} partition(s); all {len(moved)} moved partition(s) "
            "are led by their preferred replica")
