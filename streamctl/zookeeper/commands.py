"""`streamctl zk`: browse and change znodes, ensemble health, Kafka's znodes.

Reads open a read-only-capable session; create/set/delete show a plan and change nothing
without --execute, and are refused in read-only mode before any network call.
"""

from __future__ import annotations

import json

import click

from streamctl.console import OUTPUT, emit
from streamctl.errors import UsageError
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


def _settings(session: Session):
    ctx = session.context()
    if ctx.zookeeper is None:
        raise UsageError(f"context '{ctx.name}' has no zookeeper section (zookeeper: {{hosts: ...}})")
    return ctx, ctx.zookeeper


def _reader(session: Session):
    from streamctl.backends.zookeeper import ZooKeeperBackend

    _ctx, settings = _settings(session)
    return ZooKeeperBackend.from_settings(settings, read_only=True)


def _path(path: str) -> str:
    from streamctl.backends.zookeeper_data import validate_path

    return validate_path(path)


@click.group()
def zk() -> None:
    """ZooKeeper: ls, tree, get, stat, find, create, set, delete, health, kafka."""


# ---- browse ---------------------------------------------------------------------------------

@zk.command("ls")
@click.argument("path")
@OUTPUT
@click.pass_obj
def zk_ls(session: Session, path: str, output: str) -> None:
    """Children of PATH with their child counts, data sizes and versions.

    \b
    Example:
      streamctl zk ls /brokers/ids
    """
    from streamctl.backends.zookeeper_data import stat_dict

    _path(path)
    with _reader(session) as backend:
        stat, children = backend.ls(path)
    data = {"path": path, "stat": stat_dict(stat),
            "children": [{"name": c.name, "path": c.path, **_row(c.stat)} for c in children]}
    from streamctl.zookeeper.render import ls_table

    emit(output, data, ls_table)


def _row(stat) -> dict:
    from streamctl.backends.zookeeper_data import stat_dict

    if stat is None:  # deleted between the listing and its stat
        return {"num_children": None, "data_length": None, "version": None, "mtime_iso": None,
                "ephemeral_owner_hex": None}
    return stat_dict(stat)


@zk.command("tree")
@click.argument("path")
@click.option("--depth", type=click.IntRange(min=0), default=None,
              help="Levels below PATH to show (default: all); deeper nodes are counted, not listed.")
@OUTPUT
@click.pass_obj
def zk_tree(session: Session, path: str, depth: int | None, output: str) -> None:
    """PATH's subtree with child counts and du-like totals (znodes, data bytes).

    \b
    Example:
      streamctl zk tree /brokers --depth 2
    """
    from streamctl.zookeeper import render as ui_zk

    _path(path)
    with _reader(session) as backend:
        top = backend.tree(path, max_depth=depth)
    if output == "json":
        ui_zk.write(json.dumps(ui_zk.tree_dict(top)) + "\n")
    else:
        ui_zk.write(ui_zk.tree_text(top))


@zk.command("get")
@click.argument("path")
@click.option("--max-bytes", type=click.IntRange(min=1), default=64 * 1024, show_default=True,
              help="Decode at most this many bytes.")
@click.option("--raw", is_flag=True, help="Write the data's bytes to stdout as they are.")
@OUTPUT
@click.pass_obj
def zk_get(session: Session, path: str, max_bytes: int, raw: bool, output: str) -> None:
    """PATH's data: JSON pretty-printed, UTF-8 text as is, anything else as a hex dump.

    \b
    Examples:
      streamctl zk get /controller
      streamctl zk get /brokers/ids/1 -o json
    """
    import base64
    import sys

    from streamctl.backends.zookeeper_data import decode_data, stat_dict

    _path(path)
    with _reader(session) as backend:
        node = backend.get(path)
    if raw:
        sys.stdout.buffer.write(node.data)
        sys.stdout.flush()
        return
    decoded = decode_data(node.data, limit=max_bytes)
    data = {"path": path, "kind": decoded.kind, "size": decoded.size, "shown": decoded.shown,
            "truncated": decoded.truncated, "text": decoded.text,
            "data_base64": base64.b64encode(node.data).decode(), "stat": stat_dict(node.stat)}
    from streamctl.zookeeper.render import data_view

    emit(output, data, data_view)


@zk.command("stat")
@click.argument("path")
@OUTPUT
@click.pass_obj
def zk_stat(session: Session, path: str, output: str) -> None:
    """Every Stat field of PATH (times, zxids, versions, ephemeral owner) and its ACLs.

    \b
    Example:
      streamctl zk stat /controller
    """
    from streamctl.backends.zookeeper_data import stat_dict

    _path(path)
    with _reader(session) as backend:
        acls, stat = backend.acls(path)
    data = {"path": path, "stat": stat_dict(stat),
            "acls": [{"scheme": a.scheme, "id": a.id, "perms": a.perms_text, "perms_bits": a.perms} for a in acls]}
    from streamctl.zookeeper.render import stat_table

    emit(output, data, stat_table)


@zk.command("find")
@click.argument("path")
@click.argument("pattern")
@OUTPUT
@click.pass_obj
def zk_find(session: Session, path: str, pattern: str, output: str) -> None:
    """Znodes under PATH matching PATTERN: a name glob ('state', 'n0*'), or a path glob
    ('/brokers/topics/*/partitions/*/state'; '*' stays within a segment, '**' spans any).

    \b
    Examples:
      streamctl zk find /brokers state
      streamctl zk find / '/brokers/topics/*/partitions/*/state'
    """
    from streamctl.backends.zookeeper_data import PathGlob

    _path(path)
    glob = PathGlob(pattern)
    with _reader(session) as backend:
        found = backend.find(path, glob)
    rows = [{"path": w.path, "data_length": w.stat.data_length, "num_children": w.stat.num_children,
             "ephemeral": w.stat.ephemeral} for w in found]
    from streamctl.zookeeper.render import find_lines

    emit(output, rows, find_lines)


# ---- changes --------------------------------------------------------------------------------

def _payload(data: str | None, file, required: bool) -> bytes:
    if data is not None and file is not None:
        raise UsageError("give DATA or --file, not both")
    if file is not None:
        return file.read()
    if data is None:
        if required:
            raise UsageError("give the new data as DATA or --file PATH")
        return b""
    return data.encode("utf-8")


def _writer(session: Session, operation: str, execute: bool):
    """Context and a read-write backend, once read-only mode has been ruled out for an
    execution (no network yet; a dry run plans in a read-only context too)."""
    from streamctl.backends.zookeeper import ZooKeeperBackend
    from streamctl.ops import require_writable

    ctx, settings = _settings(session)
    require_writable(operation, ctx, session.read_only_flag, execute)
    return ctx, ZooKeeperBackend.from_settings(settings, read_only=not execute)


def _finish(plan, output: str, execute: bool, ctx, apply, verify) -> None:
    from streamctl.ops import execute as run

    def apply_and_record() -> None:
        run(plan, ctx.name, apply, verify)

    show(plan, output)
    finish(plan, execute, apply_and_record)


@zk.command("create")
@click.argument("path")
@click.argument("data", required=False)
@click.option("--file", "file", type=click.File("rb"), help="Read the data from a file (binary is fine).")
@click.option("--parents", is_flag=True, help="Also create missing parent znodes (empty).")
@EXECUTE
@OUTPUT
@click.pass_obj
def zk_create(session: Session, path: str, data: str | None, file, parents: bool, execute: bool,
              output: str) -> None:
    """Create a persistent znode PATH holding DATA (dry run unless --execute).

    \b
    Example:
      streamctl zk create /ops/flag on --parents --execute
    """
    from streamctl.zookeeper import plans as zk_ops

    _path(path)
    payload = _payload(data, file, required=False)
    ctx, backend = _writer(session, "zk create", execute)
    with backend:
        plan = zk_ops.plan_create(backend, path, payload, parents)
        _finish(plan, output, execute, ctx,
                lambda: backend.create(path, payload, makepath=parents),
                lambda: zk_ops.verify_created(backend, path, payload))


@zk.command("set")
@click.argument("path")
@click.argument("data", required=False)
@click.option("--file", "file", type=click.File("rb"), help="Read the data from a file (binary is fine).")
@click.option("--version", "version", type=click.IntRange(min=0), default=None,
              help="Refuse unless the znode is at this data version (default: the version read now).")
@EXECUTE
@OUTPUT
@click.pass_obj
def zk_set(session: Session, path: str, data: str | None, file, version: int | None, execute: bool,
           output: str) -> None:
    """Replace PATH's data, only if it has not changed since it was read (dry run unless --execute).

    \b
    Example:
      streamctl zk set /ops/flag off --execute
    """
    from streamctl.zookeeper import plans as zk_ops

    _path(path)
    payload = _payload(data, file, required=True)
    ctx, backend = _writer(session, "zk set", execute)
    with backend:
        plan = zk_ops.plan_set(backend, path, payload, version)
        _finish(plan, output, execute, ctx,
                lambda: backend.set(path, payload, plan.parameters["version"]),
                lambda: zk_ops.verify_set(backend, path, payload))


@zk.command("delete")
@click.argument("path")
@click.option("--recursive", is_flag=True, help="Delete PATH with everything below it.")
@click.option("--version", "version", type=click.IntRange(min=0), default=None,
              help="Refuse unless PATH is at this data version.")
@EXECUTE
@OUTPUT
@click.pass_obj
def zk_delete(session: Session, path: str, recursive: bool, version: int | None, execute: bool,
              output: str) -> None:
    """Delete PATH (a non-empty one only with --recursive; dry run unless --execute).

    \b
    Example:
      streamctl zk delete /ops --recursive --execute
    """
    from streamctl.zookeeper import plans as zk_ops

    _path(path)
    ctx, backend = _writer(session, "zk delete", execute)
    with backend:
        plan, targets = zk_ops.plan_delete(backend, path, recursive, version)
        _finish(plan, output, execute, ctx,
                lambda: zk_ops.apply_delete(backend, targets),
                lambda: zk_ops.verify_deleted(backend, path))


# ---- health and Kafka ------------------------------------------------------------------------

@zk.command("health")
@OUTPUT
@click.pass_obj
def zk_health(session: Session, output: str) -> None:
    """Every server of the connect string: mode, latency, outstanding requests, znodes, watches.

    \b
    Example:
      streamctl zk health
    """
    from dataclasses import asdict

    from streamctl.backends.zookeeper_ensemble import probe_ensemble
    from streamctl.zookeeper.health import ensemble_health

    ctx, settings = _settings(session)
    servers = probe_ensemble(settings.hosts, settings.timeout, settings.admin_url)
    findings, _ = ensemble_health(servers, ctx.thresholds)
    data = {"servers": [asdict(s) for s in servers], "findings": [_finding(f) for f in findings]}
    from streamctl.zookeeper.render import health_table

    emit(output, data, health_table)


def _finding(f) -> dict:
    return {"severity": f.severity.value, "object": f.object, "code": f.code, "text": f.text, "value": f.value}


@zk.command("kafka")
@click.option("--partitions", is_flag=True, help="Also list every partition's state.")
@click.option("--no-crosscheck", is_flag=True, help="Do not compare with the Admin API's metadata.")
@OUTPUT
@click.pass_obj
def zk_kafka(session: Session, partitions: bool, no_crosscheck: bool, output: str) -> None:
    """Kafka's znodes: registered brokers, controller, partition states, pending admin work,
    and where they disagree with the Admin API.

    \b
    Example:
      streamctl zk kafka --partitions
    """
    from dataclasses import asdict

    from streamctl.backends.zookeeper import ZooKeeperBackend
    from streamctl.zookeeper.kafka_znodes import KafkaZooKeeper

    ctx, settings = _settings(session)
    with ZooKeeperBackend.from_settings(settings) as backend:
        kafka_zk = KafkaZooKeeper(backend, settings.chroot)
        if not kafka_zk.is_kafka():
            raise UsageError(f"no Kafka cluster in ZooKeeper at {settings.hosts}"
                             f"{settings.chroot or ''} (no /brokers/ids)")
        view = kafka_zk.view()
    crosscheck, skipped = None, None
    if not no_crosscheck:
        from streamctl.backends.kafka.client import KafkaError
        from streamctl.backends.kafka.isolated import isolated_backend
        from streamctl.zookeeper.health import kafka_crosscheck

        try:
            snap = isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout).metadata()
            crosscheck = [_finding(f) for f in kafka_crosscheck(view, snap)[0]]
        except KafkaError as exc:
            skipped = f"cross-check skipped: Kafka metadata unreadable ({exc})"
    doc = asdict(view)
    doc["states"] = [asdict(s) for _, s in sorted(view.states.items())]
    data = {"view": doc, "crosscheck": crosscheck, "crosscheck_skipped": skipped}
    if output == "json":
        click.echo(json.dumps(data, indent=2, default=str))
    else:
        from streamctl.zookeeper.render import kafka_view

        kafka_view(data, partitions)
