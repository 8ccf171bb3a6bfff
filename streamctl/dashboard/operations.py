"""The operations the dashboard offers, each as an OperationRequest: how to plan it and how to
carry the plan out, through the same cores as the CLI (streamctl.<system>.plans, kafka.execute,
streamctl.ops). No UI here: the forms collect input, the plan dialog runs these."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from streamctl.backends.kafka.process import KafkaProcess
    from streamctl.config import Context
    from streamctl.kafka.acls.plans import AclChange
    from streamctl.kafka.reassign.plans import Job


@dataclass
class OperationRequest:
    """What a form asks for: how to plan it and how to carry the plan out (both blocking)."""

    title: str
    plan: Callable[[], Any]  # -> Plan (or (Plan, extra))
    run: Callable[[Any], str]  # (what plan returned) -> one line for the operator


# ---- Kafka --------------------------------------------------------------------------------

def create_topic(kafka: KafkaProcess, context: str, name: str, partitions: int, replication_factor: int,
                 configs: dict[str, str]) -> OperationRequest:
    from streamctl.kafka.topics import execute as kafka_exec
    from streamctl.kafka.topics import plans as topics

    def plan():
        snap = kafka.metadata()
        known = set(kafka.topic_configs(snap.topics[0].name)) if snap.topics else set()
        return topics.plan_create(kafka, snap, name, partitions, replication_factor, configs, known)

    def run(p):
        kafka_exec.create_topic(kafka, context, p)
        return f"created topic {name}"

    return OperationRequest(f"Create topic {name}", plan, run)


def add_partitions(kafka: KafkaProcess, context: str, topic: str, total: int) -> OperationRequest:
    from streamctl.kafka.topics import execute as kafka_exec
    from streamctl.kafka.topics import plans as topics

    def run(p):
        kafka_exec.add_partitions(kafka, context, p)
        return f"{topic} now has {total} partitions"

    return OperationRequest(f"Add partitions to {topic}",
                            lambda: topics.plan_add_partitions(kafka, kafka.metadata(), topic, total), run)


def alter_config(kafka: KafkaProcess, context: str, topic: str, values: dict[str, str | None]) -> OperationRequest:
    from streamctl.kafka.topics import execute as kafka_exec
    from streamctl.kafka.topics import plans as topics

    def run(p):
        kafka_exec.alter_config(kafka, context, p)
        return f"configs of {topic} changed"

    return OperationRequest(f"Alter configs of {topic}",
                            lambda: topics.plan_alter_config(kafka, kafka.metadata(), topic, values), run)


def reset_offsets(kafka: KafkaProcess, context: str, group: str, specs: list[tuple[str, list[int] | None]], all_topics: bool,
                  mode: str, value: str | None) -> OperationRequest:
    from streamctl.kafka.groups import execute as kafka_exec
    from streamctl.kafka.groups import offsets

    def plan():
        return offsets.plan_reset(kafka, group, specs, all_topics, mode, value)

    def run(planned):
        plan_, resets = planned
        undo = kafka_exec.reset_offsets(kafka, context, plan_, resets)
        return f"offsets of {group} reset; undo file {undo}" if undo else f"offsets of {group} reset"

    return OperationRequest(f"Reset offsets of {group}", plan, run)


def elect_leaders(kafka: KafkaProcess, context: str) -> OperationRequest:
    from streamctl.kafka import preferred_leaders as kafka_exec

    def run(plan):
        kafka_exec.elect_leaders(kafka, context, plan)
        return "preferred leaders elected"

    return OperationRequest("Elect preferred leaders", lambda: kafka_exec.plan_elect_leaders(kafka.metadata(), []), run)


# ---- client quotas and SCRAM users -----------------------------------------------------------
# `admin` makes the client each use (QuotaAdmin or ScramAdmin, each call in a forked child).

def alter_quota(admin: Callable[[], Any], context: str, entity: dict[str, str | None], sets: dict[str, float],
                removes: list[str]) -> OperationRequest:
    """Set or remove one entity's client quotas: `quotas alter`'s plan (old -> new, validated
    by the broker) and execution."""
    from streamctl.kafka.quotas import execute as quota_exec
    from streamctl.kafka.quotas import plans

    def run(plan):
        quota_exec.alter(admin(), context, plan)
        return f"quotas of {plans.label(entity)} altered"

    return OperationRequest(f"Alter quotas of {plans.label(entity)}",
                            lambda: plans.plan_checked(admin(), entity, sets, removes), run)


def upsert_user(admin: Callable[[], Any], context: str, who: str | None, name: str, mechanism: str,
                password: str, create: bool) -> OperationRequest:
    """`users create` (create) or `users set-password`: the plan holds no password; the run
    hands it to the backend once and lets go of it (a request is never executed twice)."""
    from streamctl.kafka.users import execute as user_exec
    from streamctl.kafka.users import plans

    planner = plans.plan_create if create else plans.plan_set_password
    secret = [password]

    def run(plan):
        user_exec.upsert(admin(), context, plan, secret.pop())
        return f"user {name}: {mechanism} credential {'created' if create else 'replaced'}"

    title = f"Create user {name}" if create else f"Set the password of user {name}"
    return OperationRequest(title, lambda: planner(admin().scram_users(), name, mechanism, None, who), run)


def delete_user(admin: Callable[[], Any], context: str, who: str | None, name: str,
                mechanism: str | None) -> OperationRequest:
    """`users delete`: every credential of the user, or one mechanism's."""
    from streamctl.kafka.users import execute as user_exec
    from streamctl.kafka.users import plans

    def run(plan):
        user_exec.delete(admin(), context, plan)
        return f"user {name}: {', '.join(plan.parameters['mechanisms'])} deleted"

    return OperationRequest(f"Delete user {name}",
                            lambda: plans.plan_delete(admin().scram_users(), name, mechanism, who), run)


def reassign(admin: Any, context: str, job: Job, rate: int, elect_leaders: bool) -> OperationRequest:
    """`reassign execute --<job> --throttle RATE [--elect-leaders]`: the plan lists every
    partition's old and new replicas; running it throttles the moving partitions and starts them
    (`reassign status` elects the preferred leaders once the move is done, when asked)."""
    from streamctl.kafka.reassign import execute as reassign_exec
    from streamctl.kafka.reassign import plans
    from streamctl.kafka.reassign.follow import read_layout

    def plan():
        layout = read_layout(admin)
        moves = job.moves(layout)
        return plans.plan_execute(layout, moves, rate, job.label, elect_leaders), (layout, moves)

    def run(planned):
        plan_, (layout, moves) = planned
        reassign_exec.ensure_idle(admin)
        return reassign_exec.start(admin, context, plan_, layout, moves, rate, elect_leaders)

    return OperationRequest(f"Reassign: {job.label}", plan, run)


def cancel_reassignment(admin: Any, context: str) -> OperationRequest:
    """Cancel every move in flight (`reassign cancel`): the preview lists each partition and the
    replicas it keeps; `admin` is a ReassignAdmin (each call in a child process)."""
    from streamctl.kafka.reassign import execute as reassign_exec
    from streamctl.kafka.reassign import plans

    def plan():
        moving = admin.in_flight()
        return plans.plan_cancel(moving), moving

    def run(planned):
        plan_, moving = planned
        return reassign_exec.cancel(admin, context, plan_, moving)

    return OperationRequest("Cancel the reassignment in flight", plan, run)


def create_acl(kafka: KafkaProcess, context: str, change: AclChange) -> OperationRequest:
    """`acls create`'s plan and execution (kafka: the client process, whose admin has the ACL calls)."""
    from streamctl.kafka.acls import execute as acl_exec
    from streamctl.kafka.acls import plans

    def run(plan):
        acl_exec.create_acls(kafka, context, plan)
        return f"ACL created for {change.principal} on {plans.target(change.resource)}"

    return OperationRequest(f"Create ACL for {change.principal}", lambda: plans.plan_create_of(kafka, change), run)


def delete_acl(kafka: KafkaProcess, context: str, change: AclChange) -> OperationRequest:
    """`acls delete`'s plan (every binding removed, what each principal then loses) and execution."""
    from streamctl.kafka.acls import execute as acl_exec
    from streamctl.kafka.acls import plans

    def run(plan):
        acl_exec.delete_acls(kafka, context, plan)
        return f"ACLs deleted on {plans.target(change.resource)}"

    who = change.principal or "every principal"
    return OperationRequest(f"Delete ACLs of {who}", lambda: plans.plan_delete_of(kafka, change), run)


# ---- Flume agents and Spark jobs -------------------------------------------------------------

def agent_state(ctx: Context, config_path: Path | None, name: str, wanted: str) -> OperationRequest:
    """Start (wanted "running") or stop (wanted "stopped") one Flume agent."""
    from streamctl.flume import plans as agent_ops

    verb = "Start" if wanted == "running" else "Stop"
    return OperationRequest(
        f"{verb} agent {name}",
        lambda: agent_ops.plan(ctx, name, wanted, agent_ops.local_sandbox(config_path, ctx.name)),
        lambda plan: f"agent {name}: {agent_ops.apply(ctx, plan)}",
    )


def start_job(ctx: Context, name: str) -> OperationRequest:
    from streamctl.spark import plans as job_ops

    return OperationRequest(f"Start job {name}", lambda: job_ops.plan_start(ctx, name),
                            lambda plan: job_ops.start(ctx, plan))


def stop_job(ctx: Context, name: str) -> OperationRequest:
    from streamctl.spark import plans as job_ops

    return OperationRequest(f"Stop job {name}", lambda: job_ops.plan_stop(name),
                            lambda plan: job_ops.stop(ctx, plan))


# ---- Kafka Connect ----------------------------------------------------------------------------
# `backend` is called on each use (not read once): the source opens its Connect client lazily.

def connector_state(ctx: Context, backend: Callable[[], Any], name: str, action: str) -> OperationRequest:
    """pause, resume, stop or delete one connector: planned and executed by streamctl.connect.plans."""
    from streamctl.connect import plans

    def plan():
        client = backend()
        return plans.plan_delete(client, name) if action == "delete" else plans.plan_state(client, name, action)

    return OperationRequest(f"{action.capitalize()} connector {name}", plan,
                            lambda p: plans.apply_state(ctx, backend(), p))


def restart_connector(ctx: Context, backend: Callable[[], Any], name: str, include_tasks: bool,
                      only_failed: bool) -> OperationRequest:
    """Restart: the connector alone, or with its tasks; everything, or only what FAILED."""
    from streamctl.connect import plans

    title = f"Restart connector {name}" + (" and its tasks" if include_tasks else "")
    return OperationRequest(title + (" (only what FAILED)" if only_failed else ""),
                            lambda: plans.plan_restart(backend(), name, include_tasks, only_failed),
                            lambda p: plans.apply_state(ctx, backend(), p))
