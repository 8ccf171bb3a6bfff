"""Executing ACL plans: apply, re-read until the brokers list the change, audit (the same
core as topic plans: streamctl.ops.execute; a lost answer is read back, never sent again)."""

from __future__ import annotations

from streamctl.backends.kafka.acl_admin import AclBinding, AclQuery
from streamctl.kafka.acls.plans import describe
from streamctl.kafka.settling import eventually
from streamctl.ops import NotAsPlanned, Plan, execute


def planned(plan: Plan) -> list[AclBinding]:
    return [AclBinding(**b) for b in plan.parameters["bindings"]]


def create_acls(admin, context: str, plan: Plan) -> None:
    wanted = planned(plan)

    def verify():
        listed = set(admin.describe_acls(AclQuery()))
        if missing := [b for b in wanted if b not in listed]:
            raise NotAsPlanned(f"ACL not listed after create: {missing[0].principal}: {describe(missing[0])}")
        return [[b.principal, describe(b), "present"] for b in wanted]

    execute(plan, context, lambda: admin.add_acls(wanted), eventually(verify))


def delete_acls(admin, context: str, plan: Plan) -> None:
    shown = planned(plan)

    def verify():
        listed = set(admin.describe_acls(AclQuery()))
        if left := [b for b in shown if b in listed]:
            raise NotAsPlanned(f"ACL still listed after delete: {left[0].principal}: {describe(left[0])}")
        return [[b.principal, describe(b), "absent"] for b in shown]

    execute(plan, context, lambda: admin.remove_acls(shown), eventually(verify))
