"""Client quota operations: the entity and the values checked locally, then a plan old -> new
against the quotas the cluster has (the broker validates it too: validate_only).

Kafka's quota keys (org.apache.kafka.common.config.internals.QuotaConfig): the byte rates,
request_percentage and controller_mutation_rate apply to users and client-ids;
connection_creation_rate applies to IPs only, and IPs take nothing else. An entity is a dict of
entity type -> name, None for that type's default (shown as <default>).
"""

from __future__ import annotations

import math

from streamctl.errors import UsageError
from streamctl.ops import Change, Plan

CLIENT_KEYS = ("producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate")
IP_KEYS = ("connection_creation_rate",)
DEFAULT = "<default>"
ORDER = ("user", "client-id", "ip")

Entity = dict[str, "str | None"]


def entity_of(user: str | None = None, user_default: bool = False, client_id: str | None = None,
              client_id_default: bool = False, ip: str | None = None, ip_default: bool = False) -> Entity:
    """The entity the options name; none, both a name and the default, or an IP with a user or
    client-id is a one-line error."""
    entity: Entity = {}
    for kind, name, default in (("user", user, user_default), ("client-id", client_id, client_id_default),
                                ("ip", ip, ip_default)):
        if name is not None and default:
            raise UsageError(f"give --{kind} NAME or --{kind}-default, not both")
        if name is not None and not name.strip():
            raise UsageError(f"--{kind}: the name is empty")
        if name is not None or default:
            entity[kind] = name
    if not entity:
        raise UsageError("no quota entity: give --user/--user-default, --client-id/--client-id-default "
                         "or --ip/--ip-default")
    if "ip" in entity and len(entity) > 1:
        raise UsageError("an IP quota stands alone: --ip cannot be combined with --user or --client-id")
    return entity


def parse_sets(pairs: tuple[str, ...] | list[str]) -> dict[str, float]:
    """KEY=VALUE strings to key -> a positive number."""
    values = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"--set {pair!r}: expected KEY=VALUE")
        try:
            value = float(text.strip())
        except ValueError:
            raise UsageError(f"--set {key}: expected a number, got {text.strip()!r}") from None
        if not math.isfinite(value) or value <= 0:
            raise UsageError(f"--set {key}: expected a number above 0, got {text.strip()!r} "
                             f"(use --delete {key} to remove the quota)")
        values[key] = value
    return values


def validate_keys(entity: Entity, sets: dict[str, float], removes: list[str]) -> None:
    """Every key is a quota key that applies to the entity; set and delete do not overlap."""
    if not sets and not removes:
        raise UsageError("nothing to alter: give --set KEY=VALUE or --delete KEY")
    allowed = IP_KEYS if "ip" in entity else CLIENT_KEYS
    for key in [*sets, *removes]:
        if key in allowed:
            continue
        if key in CLIENT_KEYS + IP_KEYS:
            applies = "IPs only" if key in IP_KEYS else "users and client-ids, not IPs"
            raise UsageError(f"quota {key} applies to {applies}")
        raise UsageError(f"unknown quota key {key!r} (one of {', '.join(allowed)})")
    if both := sorted(set(sets) & set(removes)):
        raise UsageError(f"quota {both[0]}: given to both --set and --delete")


def label(entity: Entity) -> str:
    """"user alice, client-id <default>"."""
    return ", ".join(f"{kind} {DEFAULT if entity[kind] is None else entity[kind]}" for kind in ORDER
                     if kind in entity)


def shown(value: float | None) -> str | None:
    """A quota value as typed: 51200, not 51200.0."""
    if value is None:
        return None
    return str(int(value)) if value.is_integer() else str(value)


def listed(entry: dict) -> dict[str, dict]:
    """A describe answer's entry as `quotas list` shows it: <default> for a default's name."""
    entity = entry["entity"]
    return {"entity": {k: DEFAULT if entity[k] is None else entity[k] for k in ORDER if k in entity},
            "values": {k: float(v) for k, v in sorted(entry["values"].items())}}


def listing(described: list[dict]) -> list[dict[str, dict]]:
    """Every entry of a describe answer as `quotas list` shows it, in entity order."""
    rows = [listed(entry) for entry in described]
    rows.sort(key=lambda r: [r["entity"].get(k) or "" for k in ORDER])
    return rows


def values_of(described: list[dict], entity: Entity) -> dict[str, float]:
    """The values of exactly `entity` in a describe answer (none when it has no quota)."""
    for entry in described:
        if entry["entity"] == entity:
            return entry["values"]
    return {}


def plan_alter(current: dict[str, float], entity: Entity, sets: dict[str, float], removes: list[str]) -> Plan:
    validate_keys(entity, sets, removes)
    target = label(entity)
    plan = Plan("quotas.alter", target, {"entity": {k: entity[k] for k in ORDER if k in entity},
                                         "set": sets, "delete": list(removes)})
    for key, value in sorted(sets.items()):
        if current.get(key) != value:
            plan.changes.append(Change(f"quota {target}", key, shown(current.get(key)), shown(value)))
    for key in sorted(removes):
        if key in current:
            plan.changes.append(Change(f"quota {target}", key, shown(current[key]), None, "removed: no limit"))
        else:
            plan.warnings.append(f"{key} is not set on {target}: nothing to delete")
    return plan


def plan_checked(admin, entity: Entity, sets: dict[str, float], removes: list[str]) -> Plan:
    """The plan against the entity's quotas as the cluster has them, which the broker then
    validates (validate_only): `quotas alter` and the dashboard's form both plan through here."""
    from streamctl.kafka.clients import broker_says

    plan = plan_alter(values_of(admin.quotas(entity, strict=True), entity), entity, sets, removes)
    if plan.changes:
        broker_says(lambda: admin.alter_quotas(entity, sets, removes, validate_only=True))
    return plan
