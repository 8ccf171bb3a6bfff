"""Rendering for `streamctl zk`: a plain-text tree (fast for 10,000s of nodes, pipe-friendly)
and rich tables for the rest (rich is imported only by the functions that draw tables)."""

from __future__ import annotations

import sys

from streamctl.backends.zookeeper_data import human_bytes, iso_ms, stat_rows
from streamctl.console import simple_table

BRANCH, LAST, PIPE, SPACE = "├── ", "└── ", "│   ", "    "


# ---- tree ------------------------------------------------------------------------------------

def children(count: int) -> str:
    return f"{count} child" if count == 1 else f"{count} children"


def _label(node, root: bool = False) -> str:
    name = node.path if root else node.name
    stat = node.stat
    parts = [name]
    if stat.num_children:
        if node.listed:
            at_least = "" if node.complete else "≥"
            parts.append(f"[{children(stat.num_children)} · {at_least}{node.subtree_nodes} znodes · "
                         f"{at_least}{human_bytes(node.subtree_bytes)}]")
        else:
            parts.append(f"[{children(stat.num_children)}, not shown]")
            if stat.data_length:
                parts.append(human_bytes(stat.data_length))
    elif stat.data_length:
        parts.append(human_bytes(stat.data_length))
    if stat.ephemeral:
        parts.append(f"ephemeral {stat.ephemeral_owner:#x}")
    return "  ".join(parts)


def tree_text(top) -> str:
    """The subtree as text lines with branch glyphs, children in name order."""
    lines = [_label(top, root=True)]
    stack = [(child, "", i == len(top.children) - 1) for i, child in reversed(list(enumerate(top.children)))]
    while stack:
        node, prefix, last = stack.pop()
        lines.append(f"{prefix}{LAST if last else BRANCH}{_label(node)}")
        if node.children:
            inner = prefix + (SPACE if last else PIPE)
            count = len(node.children)
            stack.extend((child, inner, i == count - 1) for i, child in reversed(list(enumerate(node.children))))
    return "\n".join(lines) + "\n"


def tree_dict(node) -> dict:
    return {"path": node.path, "name": node.name, "data_length": node.stat.data_length,
            "num_children": node.stat.num_children, "version": node.stat.version,
            "ephemeral_owner": node.stat.ephemeral_owner or None,
            "subtree_znodes": node.subtree_nodes, "subtree_bytes": node.subtree_bytes,
            "complete": node.complete, "listed": node.listed,
            "children": [tree_dict(c) for c in node.children]}


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


# ---- tables ----------------------------------------------------------------------------------

def _print(text: str, **kwargs) -> None:
    from streamctl.console import out

    out.print(text, highlight=False, **kwargs)


def ls_table(data: dict) -> None:
    rows = [[c["name"], c["num_children"], None if c["data_length"] is None else human_bytes(c["data_length"]),
             c["version"], c["mtime_iso"], c["ephemeral_owner_hex"] or ""] for c in data["children"]]
    simple_table(f"{data['path']}  ({len(rows)} children)", ["name", "children", "data", "version", "mtime", "ephemeral"],
                 rows, right=frozenset({"children", "data", "version"}))


def stat_table(data: dict) -> None:
    from streamctl.model.zookeeper import ZStat

    stat = ZStat(**{k: data["stat"][k] for k in ("czxid", "mzxid", "ctime", "mtime", "version", "cversion",
                                                 "aversion", "ephemeral_owner", "data_length",
                                                 "num_children", "pzxid")})
    simple_table(data["path"], ["field", "value", "meaning"], [[n, v, h] for n, v, h in stat_rows(stat)],
                 right=frozenset({"value"}))
    simple_table("ACLs", ["scheme", "id", "perms"], [[a["scheme"], a["id"], a["perms"]] for a in data["acls"]])


def data_view(data: dict) -> None:
    stat = data["stat"]
    head = (f"{data['path']}  {data['kind']}, {human_bytes(data['size'])}, version {stat['version']}, "
            f"modified {stat['mtime_iso']}")
    if data["kind"] == "empty":
        head += "  (no data)"
    _print(f"[bold]{_escape(head)}[/]")
    if data["text"]:
        from streamctl.console import out

        out.print(data["text"], markup=False, highlight=False, soft_wrap=True)
    if data["truncated"]:
        _print(f"[yellow]… {human_bytes(data['size'] - data['shown'])} more not shown "
               "(--max-bytes, or --raw for everything)[/]")


def find_lines(rows: list[dict]) -> None:
    write("".join(f"{r['path']}\n" for r in rows))


HEALTH_ROWS = (("mode", "mode"), ("latency min/avg/max ms", "latency"), ("outstanding requests", "outstanding"),
               ("znodes", "znode_count"), ("watches", "watch_count"), ("ephemerals", "ephemerals"),
               ("connections", "connections"), ("zxid", "zxid"), ("ruok", "ruok"), ("version", "version"))


def health_table(data: dict) -> None:
    """One column per server (ensembles are 1 to 7 servers), one row per field."""
    servers = data["servers"]
    rows = []
    for title, key in HEALTH_ROWS:
        row = [title]
        for s in servers:
            if key == "mode":
                value = s["mode"] or ("down" if not s["reachable"] else "?")
            elif key == "latency":
                value = None if s["latency_avg_ms"] is None else \
                    f"{_num(s['latency_min_ms'])}/{_num(s['latency_avg_ms'])}/{_num(s['latency_max_ms'])}"
            elif key == "zxid":
                value = None if s["zxid"] is None else hex(s["zxid"])
            elif key == "ruok":
                value = {True: "imok", False: "no", None: None}[s["ruok"]]
            else:
                value = s[key]
            row.append(value)
        rows.append(row)
    simple_table("ZooKeeper ensemble", ["", *(s["server"] for s in servers)], rows)
    for s in servers:
        probes = ", ".join(f"{p['command']} {p['status']}" for p in s["probes"])
        _print(f"[dim]{_escape(s['server'])}: {_escape(probes or s['error'] or 'no answer')}[/]")
    findings_lines(data["findings"])


def findings_lines(findings: list[dict]) -> None:
    style = {"OK": "green", "WARN": "yellow", "CRIT": "bold red", "UNKNOWN": "magenta"}
    for f in findings:
        _print(f"[{style[f['severity']]}]{f['severity']:<7}[/] {_escape(f['text'])}")


def kafka_view(data: dict, partitions: bool) -> None:
    view = data["view"]
    rows = [[b["id"], ", ".join(f"{e['listener']}://{e['host']}:{e['port']}" for e in b["endpoints"]),
             b["rack"], b["version"], iso_ms(b["timestamp"]) if b["timestamp"] else None,
             hex(b["session"]) if b["session"] else None] for b in view["brokers"]]
    simple_table("brokers in ZooKeeper", ["id", "endpoints", "rack", "json v", "registered", "session"], rows)
    controller = view["controller"]
    _print(f"controller: {('broker ' + str(controller['broker_id'])) if controller else 'none'}"
           f"  epoch {view['controller_epoch'] if view['controller_epoch'] is not None else '-'}")
    pending = view["pending"]
    _print(f"pending: {len(pending['deletions'])} topic deletions, {len(pending['reassignments'])} "
           f"reassignments, {len(pending['preferred_elections'])} preferred-leader elections")
    if partitions:
        state_rows = [[s["topic"], s["partition"], s["leader"], ",".join(map(str, s["isr"])),
                       s["leader_epoch"], s["controller_epoch"], s["zk_version"]] for s in view["states"]]
        simple_table("partition states", ["topic", "partition", "leader", "isr", "leader epoch", "controller epoch",
                                          "znode version"], state_rows,
                     right=frozenset({"partition", "leader", "leader epoch", "controller epoch", "znode version"}))
    if data["crosscheck"] is not None:
        findings_lines(data["crosscheck"])  # unreadable znodes are among its findings
    else:
        for error in view["errors"]:
            _print(f"[yellow]{_escape(error)}[/]")
    if data.get("crosscheck_skipped"):
        _print(f"[yellow]{_escape(data['crosscheck_skipped'])}[/]")


def _num(value) -> str:
    return "-" if value is None else f"{round(value, 2):g}"


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
