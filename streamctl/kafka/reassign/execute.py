"""Running reassignment plans: throttles first (moving partitions only), then the move, the undo
file and the throttle record; cancelling; removing throttles once nothing moves. Each audited."""

from __future__ import annotations

from streamctl.errors import UsageError
from streamctl.kafka.reassign import plans, state
from streamctl.kafka.reassign.planner import Layout, Partition
from streamctl.kafka.settling import eventually
from streamctl.ops import Change, NotAsPlanned, Plan, execute


def start(admin, context: str, plan: Plan, layout: Layout, moves: dict[Partition, list[int]], rate: int) -> str:
    brokers = plans.moving_brokers(layout, moves)
    topics = plans.throttled_replicas(layout, moves)
    undo = state.write_undo(context, {p: layout.replicas[p] for p in moves})

    def apply():
        state.record_throttles(context, brokers, sorted(topics))  # first: status can clean up after a crash
        admin.set_throttles(rate, brokers, topics)
        admin.reassign(moves)

    def verify():
        moving = admin.in_flight()
        now = admin.layout()["replicas"]
        stray = [f"{t}/{p}" for (t, p), new in moves.items() if (t, p) not in moving and now.get((t, p)) != new]
        if stray:
            raise NotAsPlanned(f"{stray[0]} neither moving nor on its new replicas")
        return [[f"{t}/{p}", "replicas", ",".join(map(str, new))] for (t, p), new in moves.items()]

    execute(plan, context, apply, eventually(verify))
    return (f"started: {len(moves)} partition(s) moving at {rate:,} bytes/s; follow with `streamctl reassign "
            f"status`; undo file (replicas before): {undo}")


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
    return f"cancelled: {len(in_flight)} partition(s) keep their previous replicas; " + remove_throttles(admin, context)


def remove_throttles(admin, context: str) -> str:
    """Remove the throttles streamctl recorded setting (audited); the line saying what was done."""
    recorded = state.recorded_throttles(context)
    if not recorded["brokers"] and not recorded["topics"]:
        return "no throttles of streamctl's to remove"
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
