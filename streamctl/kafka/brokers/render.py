"""Rich table of the cluster's brokers (never Textual)."""

from __future__ import annotations

from streamctl.console import new_table, print_table


def brokers_table(md, roles: dict[int, list[str]]) -> None:
    mode = "KRaft" if md.kraft else "ZooKeeper"
    table = new_table(f"cluster {md.cluster_id or '?'} ({mode} mode)", ("id", "host", "port", "rack", "roles"))
    for b in md.brokers:
        table.add_row(str(b.id), b.host, str(b.port), b.rack or "-", ", ".join(roles[b.id]) or "?")
    print_table(table)
