"""Executing SCRAM user plans: alter, re-read until the brokers describe the change, audit.

The password reaches `apply` only (a closure), never the plan, so the audit record has none.
"""

from __future__ import annotations

from streamctl.kafka.settling import eventually
from streamctl.ops import NotAsPlanned, Plan, execute


def upsert(admin, context: str, plan: Plan, password: str) -> None:
    """users create and users set-password: one credential, made or replaced."""
    p = plan.parameters
    user, mechanism, iterations = p["user"], p["mechanism"], p["iterations"]

    def verify():
        now = admin.scram_users().get(user, {}).get(mechanism)
        if now != iterations:
            raise NotAsPlanned(f"user {user!r}: {mechanism} shows {now} iterations, expected {iterations}")
        return [[f"user {user}", mechanism, f"{now} iterations"]]

    execute(plan, context, lambda: admin.upsert_scram(user, mechanism, iterations, password), eventually(verify))


def delete(admin, context: str, plan: Plan) -> None:
    user, mechanisms = plan.parameters["user"], plan.parameters["mechanisms"]

    def verify():
        left = sorted(set(admin.scram_users().get(user, {})) & set(mechanisms))
        if left:
            raise NotAsPlanned(f"user {user!r} still has {', '.join(left)}")
        return [[f"user {user}", m, None] for m in mechanisms]

    execute(plan, context, lambda: admin.delete_scram(user, mechanisms), eventually(verify))
