"""Executing topic plans (create, add partitions, alter configs, delete): apply, re-read until
the cluster shows the change, audit.

The CLI (--execute) and the dashboard (confirm button) both run plans through here. A
mutation's answer lost (its Kafka client crashed after the call began) is never sent again: the
verify below re-reads the outcome (streamctl.ops.execute); a mismatch is NotAsPlanned.
"""

from __future__ import annotations

from streamctl.kafka.settling import eventually
from streamctl.ops import NotAsPlanned, Plan, execute


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
    execute(plan, context, lambda: admin.delete_topic(name), eventually(lambda: verify_gone(admin, [name])))


def verify_gone(admin, names: list[str]) -> list[list]:
    listed = {t.name for t in admin.metadata().topics}
    if left := [name for name in names if name in listed]:
        raise NotAsPlanned(f"topic(s) {', '.join(left)} still listed after delete (deletion may be pending)")
    return [[f"topic {name}", "exists", None] for name in names]
