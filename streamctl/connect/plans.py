"""Kafka Connect operations: plan, then execute through the shared plan core (audit included).

create and update are checked by the worker first (`PUT /connector-plugins/{class}/config/
validate`); their plan is the config diff, secrets masked. pause, resume, stop, restart and
delete change a connector's state. An offsets reset needs the connector STOPPED and writes an
undo file (the offsets before, as the REST API returns them) before anything changes. Plans
and audit entries never hold a secret's value: only keys, and MASK where a value would be.
Callers check read-only first (`streamctl.ops.require_writable`).

A write whose answer was lost (ConnectAnswerLost: sent to a worker, no answer) is never sent
again: it is re-read (the connector's config, state, offsets) and reported done, not done, or
of unknown outcome (streamctl.ops.execute). A restart and an offsets undo leave nothing to tell
by: theirs is unknown.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from streamctl.connect.secrets import MASK, is_secret, masked_text
from streamctl.errors import StreamctlError, UsageError
from streamctl.model.connect import FAILED, PAUSED, RUNNING, STOPPED, Connector
from streamctl.ops import Change, NotAsPlanned, Plan, execute

SETTLE_TIMEOUT = 30.0  # seconds for a connector to reach the state asked for
REREAD_TIMEOUT = 10.0  # seconds a write whose answer was lost has to show
TARGET_STATE = {"pause": PAUSED, "resume": RUNNING, "stop": STOPPED}


@dataclass
class ConnectPlan(Plan):
    """A Plan plus what executing it needs (kept out of as_dict: it may hold secrets)."""

    config: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    offsets: list[dict] = field(default_factory=list, repr=False, compare=False)


# ---- config files ------------------------------------------------------------------------

def read_config_file(path: Path) -> tuple[str | None, dict[str, str]]:
    """(the name the file gives, if any; the config) from JSON ({"name", "config"} as POST
    /connectors takes it, or a flat object) or a Java properties file."""
    from streamctl.model.properties import as_dict

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if str(path).endswith(".json") or text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
        if not isinstance(data, dict):
            raise UsageError(f"{path}: expected a JSON object, got {type(data).__name__}")
        name = data.get("name")
        config = data["config"] if isinstance(data.get("config"), dict) else data
        return name, _strings(config, path)
    config = as_dict(text)
    if not config:
        raise UsageError(f"{path}: no properties in it")
    return config.get("name"), config


def _strings(config: dict, path: Path) -> dict[str, str]:
    out = {}
    for key, value in config.items():
        if isinstance(value, (dict, list)) or value is None:
            raise UsageError(f"{path}: {key!r} must be a string, number or boolean")
        out[str(key)] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


# ---- create and update ---------------------------------------------------------------------

def plan_create(backend, name: str, config: dict[str, str]) -> ConnectPlan:
    config = {**config, "name": name}
    if any(c.name == name for c in backend.cluster().connectors):
        raise UsageError(f"connector {name!r} already exists: change it with `streamctl connect update`")
    _validated(backend, config)
    plan = ConnectPlan("connect.create", name, {"connector": name, "keys": sorted(config)}, config=config)
    plan.changes = [Change(f"connector {name}", key, None, _shown(key, value))
                    for key, value in sorted(config.items())]
    return plan


def plan_update(backend, name: str, config: dict[str, str]) -> ConnectPlan:
    current = existing(backend, name)
    config = {**config, "name": name}
    _validated(backend, config)
    plan = ConnectPlan("connect.update", name, {"connector": name}, config=config)
    for key in sorted(set(current.config) | set(config)):
        before, after = current.config.get(key), config.get(key)
        if before != after:
            plan.changes.append(Change(f"connector {name}", key, _shown(key, before), _shown(key, after),
                                       "secret changed" if is_secret(key, after or before or "") else ""))
    plan.parameters["keys"] = sorted(c.field for c in plan.changes)
    return plan


def _validated(backend, config: dict[str, str]) -> None:
    from streamctl.backends.connect import ConnectError

    try:
        problems = backend.validate(config)
    except ConnectError as exc:
        if exc.status not in (400, 404, 500):
            raise
        # An unknown connector.class: "…ConnectException: Failed to find any class that
        # implements Connector and which name matches X, available connectors are: …"
        why = re.sub(r"^[\w.$]+(Exception|Error): ", "", exc.detail).split(", available connectors are")[0]
        raise UsageError(f"the worker rejects the config: {masked_text(why, config)}") from None
    if problems:
        shown = "; ".join(masked_text(p, config) for p in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise UsageError(f"the worker rejects the config: {shown}{more}")


def _shown(key: str, value: str | None) -> str | None:
    return None if value is None else MASK if is_secret(key, value) else value


def apply_config(ctx, backend, plan: ConnectPlan) -> str:
    create = plan.operation == "connect.create"

    def apply():
        (backend.create if create else backend.update)(plan.target, plan.config)

    def verify():
        connector = _settled(backend, plan.target, lambda c: c.config.get("name") == plan.target, "configured")
        return [[f"connector {plan.target}", "state", connector.state]]

    def reread():
        """After a lost answer: the connector there with the planned config."""
        connector = _settled(backend, plan.target, lambda c: c.config == plan.config, "configured as planned",
                             REREAD_TIMEOUT, missing_is=NotAsPlanned)
        return [[f"connector {plan.target}", "state", connector.state]]

    execute(plan, ctx.name, apply, verify, reread)
    return f"{'created' if create else 'updated'}: connector {plan.target}"


# ---- state changes ------------------------------------------------------------------------

def plan_state(backend, name: str, action: str) -> ConnectPlan:
    """pause, resume or stop: a change when the connector is not in that state already."""
    connector = existing(backend, name)
    plan = ConnectPlan(f"connect.{action}", name, {"connector": name})
    target = TARGET_STATE[action]
    if connector.state != target:
        plan.changes.append(Change(f"connector {name}", "state", connector.state, target))
        if action == "stop":
            plan.warnings.append("a stopped connector runs no tasks; its offsets may then be reset")
    return plan


def plan_restart(backend, name: str, include_tasks: bool, only_failed: bool) -> ConnectPlan:
    connector = existing(backend, name)
    plan = ConnectPlan("connect.restart", name, {"connector": name, "include_tasks": include_tasks,
                                                  "only_failed": only_failed})
    if not only_failed or connector.state == FAILED:
        plan.changes.append(Change(f"connector {name}", "state", connector.state, "restarted"))
    if include_tasks:
        for task in connector.tasks:
            if not only_failed or task.state == FAILED:
                plan.changes.append(Change(f"task {name}/{task.id}", "state", task.state, "restarted"))
    return plan


def plan_delete(backend, name: str) -> ConnectPlan:
    connector = existing(backend, name)
    plan = ConnectPlan("connect.delete", name, {"connector": name})
    plan.changes.append(Change(f"connector {name}", "state", connector.state, "deleted"))
    if connector.group_id:
        plan.warnings.append(f"its consumer group {connector.group_id} keeps its committed offsets")
    return plan


def apply_state(ctx, backend, plan: ConnectPlan) -> str:
    action = plan.operation.split(".", 1)[1]
    name = plan.target

    def apply():
        if action == "restart":
            backend.restart(name, plan.parameters["include_tasks"], plan.parameters["only_failed"])
        else:
            getattr(backend, action)(name)

    def verify():
        if action == "delete":
            _settled_gone(backend, name)
            return [[f"connector {name}", "state", "deleted"]]
        if action == "restart":
            connector = _settled(backend, name, lambda c: c.state != "RESTARTING", "restarted")
        else:
            connector = _settled(backend, name, lambda c: c.state == TARGET_STATE[action], TARGET_STATE[action])
        return [[f"connector {name}", "state", connector.state]]

    execute(plan, ctx.name, apply, verify, _untellable if action == "restart" else None)
    return f"done: connector {name} {action}{'d' if action.endswith('e') else 'ed'}"


# ---- offsets -------------------------------------------------------------------------------

def plan_offsets_reset(backend, name: str) -> ConnectPlan:
    connector = existing(backend, name)
    if connector.state != STOPPED:
        raise UsageError(f"connector {name!r} is {connector.state}: its offsets can only be reset while it is "
                         f"STOPPED (`streamctl connect stop {name} --execute`)")
    offsets = backend.offsets(name)
    plan = ConnectPlan("connect.offsets-reset", name, {"connector": name}, offsets=offsets)
    for entry in offsets:
        plan.changes.append(Change(partition_label(entry.get("partition")), "offset",
                                   compact(entry.get("offset")), None))
    if connector.group_id:
        plan.warnings.append(f"a sink's offsets are its consumer group's ({connector.group_id}): "
                             "it restarts from auto.offset.reset (earliest by default)")
    return plan


def apply_offsets_reset(ctx, backend, plan: ConnectPlan) -> str:
    undo = write_undo(ctx.name, plan.target, plan.offsets)

    def verify():
        left = backend.offsets(plan.target)
        if left:
            raise NotAsPlanned(f"{len(left)} offset(s) of connector {plan.target!r} still there after the reset")
        return [[plan.target, "offsets", "reset"]]

    plan.parameters["undo_file"] = str(undo)
    execute(plan, ctx.name, lambda: backend.reset_offsets(plan.target), verify)
    return f"done: offsets of connector {plan.target} reset; undo file {undo}"


def plan_offsets_undo(backend, context: str, name: str, undo_file: Path | None) -> ConnectPlan:
    connector = existing(backend, name)
    path = undo_file or last_undo(context, name)
    try:
        offsets = json.loads(Path(path).read_text())["offsets"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"undo file {path} is unreadable: {exc}") from None
    if connector.state != STOPPED:
        raise UsageError(f"connector {name!r} is {connector.state}: offsets can only be set while it is STOPPED")
    current = {partition_label(e.get("partition")): compact(e.get("offset")) for e in backend.offsets(name)}
    plan = ConnectPlan("connect.offsets-undo", name, {"connector": name, "undo_file": str(path)}, offsets=offsets)
    for entry in offsets:
        where = partition_label(entry.get("partition"))
        plan.changes.append(Change(where, "offset", current.get(where), compact(entry.get("offset"))))
    return plan


def apply_offsets_undo(ctx, backend, plan: ConnectPlan) -> str:
    execute(plan, ctx.name, lambda: backend.alter_offsets(plan.target, plan.offsets), reread=_untellable)
    return f"done: {len(plan.offsets)} offset(s) of connector {plan.target} restored"


def undo_dir(context: str, name: str) -> Path:
    from streamctl import paths

    return paths.undo_dir("connect", context, name)


def write_undo(context: str, name: str, offsets: list[dict]) -> Path:
    from streamctl.atomic import write_atomic

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    path = undo_dir(context, name) / f"{stamp}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({"connector": name, "offsets": offsets}, indent=2) + "\n")
    return path


def last_undo(context: str, name: str) -> Path:
    from streamctl import paths

    folder = undo_dir(context, name)
    found = paths.newest(folder, "*.json")
    if found is None:
        raise UsageError(f"no undo file for connector {name!r} in context {context!r} (looked in {folder})")
    return found


# ---- helpers --------------------------------------------------------------------------------

def existing(backend, name: str) -> Connector:
    from streamctl.backends.connect import ConnectError

    try:
        return backend.connector(name)
    except ConnectError as exc:
        if exc.status == 404:
            raise UsageError(f"no connector {name!r} on the Connect cluster") from None
        raise


def _settled(backend, name: str, done, what: str, timeout: float = SETTLE_TIMEOUT,
             missing_is: type[StreamctlError] | None = None) -> Connector:
    """Poll until `done(connector)` (else NotAsPlanned); a connector just created has no status
    for a moment (404: its ConnectError at the end, or `missing_is` when given)."""
    from streamctl.backends.connect import ConnectError

    deadline = time.monotonic() + timeout
    while True:
        try:
            connector = backend.connector(name)
        except ConnectError as exc:
            if exc.status != 404:
                raise
            if time.monotonic() > deadline:
                if missing_is is not None:
                    raise missing_is(f"no connector {name!r} {timeout:g} s on") from None
                raise
            time.sleep(0.5)
            continue
        if done(connector):
            return connector
        if time.monotonic() > deadline:
            raise NotAsPlanned(f"connector {name!r} not {what} after {timeout:g} s (state {connector.state})")
        time.sleep(0.5)


def _settled_gone(backend, name: str, timeout: float = SETTLE_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while any(c.name == name for c in backend.cluster().connectors):
        if time.monotonic() > deadline:
            raise NotAsPlanned(f"connector {name!r} still listed {timeout:g} s after its deletion")
        time.sleep(0.5)


def _untellable() -> None:
    """The re-read of a change that leaves nothing to tell it by (a restart, offsets set back)."""
    raise StreamctlError("nothing shows whether it was applied")


def partition_label(partition) -> str:
    if isinstance(partition, dict) and "kafka_topic" in partition:
        return f"{partition['kafka_topic']}/{partition.get('kafka_partition')}"
    return compact(partition)


def compact(value) -> str:
    if isinstance(value, dict) and len(value) == 1:
        return str(next(iter(value.values())))
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
