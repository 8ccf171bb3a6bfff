"""Znode changes as plans: create, set (with a version check), delete (subtrees only on request).

Each plan is read first and says what will change; executing it (streamctl.ops.execute) applies
it, re-reads to verify, and writes the audit record. ZooKeeper itself enforces the versions
read at plan time, so a znode changed in between is refused, never overwritten.
"""

from __future__ import annotations

import json

from streamctl.backends.zookeeper import ZnodeConflict, ZooKeeperBackend
from streamctl.backends.zookeeper_data import decode_data, depth_of, human_bytes, parent_of, validate_path
from streamctl.errors import UsageError
from streamctl.ops import Change, Plan

PREVIEW_CHARS = 60
PROTECTED = ("/", "/zookeeper")


def data_preview(data: bytes | None) -> str:
    """One short line for a plan: the text or compact JSON, or the size of binary data."""
    decoded = decode_data(data, limit=4096)
    if decoded.kind == "empty":
        return "(empty)"
    if decoded.kind == "binary":
        return f"({human_bytes(decoded.size)} binary)"
    text = json.dumps(json.loads(decoded.text), separators=(",", ":")) if decoded.kind == "json" else decoded.text
    text = text.replace("\n", "\\n")
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS - 1] + "…"


def plan_create(zk: ZooKeeperBackend, path: str, data: bytes, parents: bool = False) -> Plan:
    validate_path(path)
    if path in PROTECTED or path.startswith("/zookeeper/"):
        raise UsageError(f"refusing to create {path}: reserved by ZooKeeper")
    if zk.exists(path) is not None:
        raise ZnodeConflict(f"refused: {path} already exists (use `zk set` to change its data)")
    missing = []
    parent = parent_of(path)
    while parent != "/" and zk.exists(parent) is None:
        missing.append(parent)
        parent = parent_of(parent)
    if missing and not parents:
        raise UsageError(f"cannot create {path}: parent {missing[-1]} does not exist (add --parents)")
    plan = Plan("zk.create", path, {"path": path, "bytes": len(data), "parents": parents})
    for node in reversed(missing):
        plan.changes.append(Change(node, "znode", None, "(empty)", "parent"))
    plan.changes.append(Change(path, "data", None, data_preview(data), f"{len(data)} B"))
    return plan


def plan_set(zk: ZooKeeperBackend, path: str, data: bytes, version: int | None = None) -> Plan:
    """Refused when --version is given and the znode is no longer at it."""
    current = zk.get(path)
    if version is not None and current.stat.version != version:
        raise ZnodeConflict(f"refused: {path} is at version {current.stat.version}, not {version} "
                            "(it changed since it was read)")
    plan = Plan("zk.set", path, {"path": path, "version": current.stat.version, "bytes": len(data)})
    plan.changes.append(Change(path, "data", data_preview(current.data), data_preview(data),
                               f"version {current.stat.version} -> {current.stat.version + 1}"))
    if current.stat.ephemeral:
        plan.warnings.append(f"{path} is ephemeral (session {current.stat.ephemeral_owner:#x}): "
                             "its owner may overwrite it")
    return plan


def plan_delete(zk: ZooKeeperBackend, path: str, recursive: bool = False,
                version: int | None = None) -> tuple[Plan, list[tuple[str, int]]]:
    """The plan and the (path, version) of every znode that would go; non-empty needs recursive."""
    validate_path(path)
    if path in PROTECTED or path.startswith("/zookeeper/"):
        raise UsageError(f"refusing to delete {path}: reserved by ZooKeeper")
    nodes = list(zk.walk(path))
    top = nodes[0]
    if version is not None and top.stat.version != version:
        raise ZnodeConflict(f"refused: {path} is at version {top.stat.version}, not {version} "
                            "(it changed since it was read)")
    if len(nodes) > 1 and not recursive:
        below = len(nodes) - 1
        raise ZnodeConflict(f"refused: {path} is not empty ({below} znode{'s' if below != 1 else ''} below); "
                            "add --recursive to delete the subtree")
    plan = Plan("zk.delete", path, {"path": path, "recursive": recursive, "version": top.stat.version,
                                    "znodes": len(nodes)})
    for node in nodes:
        plan.changes.append(Change(node.path, "znode", f"{human_bytes(node.stat.data_length)}, "
                                   f"version {node.stat.version}", None))
    owners = [n for n in nodes if n.stat.ephemeral]
    if owners:
        plan.warnings.append(f"{len(owners)} ephemeral znode(s) (e.g. {owners[0].path}, session "
                             f"{owners[0].stat.ephemeral_owner:#x}): their owners are live clients")
    return plan, [(n.path, n.stat.version) for n in nodes]


def apply_delete(zk: ZooKeeperBackend, targets: list[tuple[str, int]]) -> int:
    """Delete deepest first, each znode only if still at the version the plan read."""
    return zk.delete_nodes(sorted(targets, key=lambda pv: depth_of(pv[0]), reverse=True))


def verify_created(zk: ZooKeeperBackend, path: str, data: bytes) -> list:
    node = zk.get(path)
    if node.data != data:
        raise ZnodeConflict(f"{path} was created but holds other data now (changed by another client)")
    return [[path, "data", data_preview(node.data)], [path, "version", node.stat.version]]


def verify_set(zk: ZooKeeperBackend, path: str, data: bytes) -> list:
    node = zk.get(path)
    if node.data != data:
        raise ZnodeConflict(f"{path} holds other data after the write (changed by another client)")
    return [[path, "data", data_preview(node.data)], [path, "version", node.stat.version]]


def verify_deleted(zk: ZooKeeperBackend, path: str) -> list:
    if zk.exists(path) is not None:
        raise ZnodeConflict(f"{path} still exists after the delete (re-created by another client?)")
    return [[path, "znode", None]]
