"""Rich table of ACL bindings (never Textual)."""

from __future__ import annotations

from streamctl.console import simple_table

COLUMNS = ["principal", "permission", "operation", "resource type", "name", "pattern", "host"]


def acls_table(bindings: list[dict]) -> None:
    rows = [[b["principal"], b["permission"], b["operation"], b["resource_type"], b["name"], b["pattern"], b["host"]]
            for b in bindings]
    simple_table(f"ACLs ({len(rows)})", COLUMNS, rows)
