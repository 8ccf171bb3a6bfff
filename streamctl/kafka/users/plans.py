"""SCRAM user operations: validate locally, then plan against the users the cluster has.

Kafka takes 4096 to 16384 iterations for SCRAM-SHA-256 and -512 (its ScramMechanism's
minIterations and maxIterations); librdkafka's salt is random. A plan never holds the password:
its parameters are the user, the mechanism(s) and the iterations, which the audit log records.
"""

from __future__ import annotations

from streamctl.errors import UsageError
from streamctl.ops import Change, Plan

MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
DEFAULT_MECHANISM = "SCRAM-SHA-512"
MIN_ITERATIONS, MAX_ITERATIONS = 4096, 16384
DEFAULT_ITERATIONS = MIN_ITERATIONS  # kafka-configs.sh's default
NOT_SHOWN = "password set (not shown)"


def validate(name: str, iterations: int | None = None) -> None:
    """The user name and the iteration count, before anything is read or asked."""
    if not name.strip():
        raise UsageError("the user name is empty")
    if any(not c.isprintable() for c in name):
        raise UsageError(f"user name {name!r}: control characters are not allowed")
    if iterations is not None and not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
        raise UsageError(f"--iterations {iterations}: Kafka's SCRAM takes {MIN_ITERATIONS} to {MAX_ITERATIONS}")


def listing(users: dict[str, dict[str, int]]) -> list[dict]:
    """`users list`'s rows: each user with its credentials (mechanism, iterations), by name."""
    return [{"user": user, "credentials": [{"mechanism": m, "iterations": n} for m, n in sorted(creds.items())]}
            for user, creds in sorted(users.items())]


def plan_create(users: dict[str, dict[str, int]], name: str, mechanism: str, iterations: int | None,
                who: str | None) -> Plan:
    has = users.get(name, {})
    if mechanism in has:
        raise UsageError(f"user {name!r} already has a {mechanism} credential: use `streamctl users "
                         f"set-password {name}` to change its password")
    iterations = iterations or DEFAULT_ITERATIONS
    plan = Plan("users.create", name, {"user": name, "mechanism": mechanism, "iterations": iterations},
                [Change(f"user {name}", mechanism, None, f"{iterations} iterations", NOT_SHOWN)])
    if has:
        plan.warnings.append(f"user {name!r} exists with {', '.join(sorted(has))}: this adds {mechanism}")
    _warn_own_login(plan, name, who)
    return plan


def plan_set_password(users: dict[str, dict[str, int]], name: str, mechanism: str, iterations: int | None,
                      who: str | None) -> Plan:
    has = users.get(name, {})
    if mechanism not in has:
        held = f" (it has {', '.join(sorted(has))}: give --mechanism)" if has else ""
        raise UsageError(f"user {name!r} has no {mechanism} credential{held}: use `streamctl users create "
                         f"{name}` to add one")
    iterations = iterations or has[mechanism]
    plan = Plan("users.set-password", name, {"user": name, "mechanism": mechanism, "iterations": iterations},
                [Change(f"user {name}", mechanism, f"{has[mechanism]} iterations", f"{iterations} iterations",
                        "new password (not shown)")])
    plan.warnings.append("clients logging in with the old password are refused once the brokers have the new one")
    _warn_own_login(plan, name, who)
    return plan


def plan_delete(users: dict[str, dict[str, int]], name: str, mechanism: str | None, who: str | None) -> Plan:
    has = users.get(name, {})
    if not has:
        raise UsageError(f"no SCRAM user {name!r} in the cluster")
    if mechanism is not None and mechanism not in has:
        raise UsageError(f"user {name!r} has no {mechanism} credential (it has {', '.join(sorted(has))})")
    mechanisms = [mechanism] if mechanism else sorted(has)
    plan = Plan("users.delete", name, {"user": name, "mechanisms": mechanisms},
                [Change(f"user {name}", m, f"{has[m]} iterations", None) for m in mechanisms])
    left = sorted(set(has) - set(mechanisms))
    plan.warnings.append(f"{name!r} can no longer log in with {', '.join(mechanisms)}" +
                         (f" (still with {', '.join(left)})" if left else ""))
    _warn_own_login(plan, name, who)
    return plan


def _warn_own_login(plan: Plan, name: str, who: str | None) -> None:
    if who == name:
        plan.warnings.append(f"{name!r} is the user this context logs in as: update its sasl.password "
                             "(or its file) to match")
