"""Executing a client quota plan: alter, re-read until the brokers describe the change, audit."""

from __future__ import annotations

from streamctl.kafka.quotas.plans import label, shown, values_of
from streamctl.kafka.settling import eventually
from streamctl.ops import NotAsPlanned, Plan, execute


def alter(admin, context: str, plan: Plan) -> None:
    p = plan.parameters
    entity, sets, removes = p["entity"], p["set"], p["delete"]

    def verify():
        now = values_of(admin.quotas(entity, strict=True), entity)
        wrong = [k for k, v in sets.items() if now.get(k) != v] + [k for k in removes if k in now]
        if wrong:
            raise NotAsPlanned(f"quota {label(entity)}: {', '.join(wrong)} not as planned")
        return [[f"quota {label(entity)}", k, shown(now.get(k))] for k in [*sets, *removes]]

    execute(plan, context, lambda: admin.alter_quotas(entity, sets, removes), eventually(verify))
