"""docs/security.md stays true to the code: its kafka-acls.sh commands grant exactly the
monitoring ACLs the secure sandbox gives `monitor`, and its table of mutating commands names
every command the CLI runs with --execute."""

from __future__ import annotations

import re

from streamctl.sandbox.secure import MONITOR_ACLS
from tests import repo
from tests.cli_commands import mutating_commands

DOC = repo.ROOT / "docs" / "security.md"


def test_the_kafka_acls_commands_grant_exactly_the_monitoring_acls():
    text = DOC.read_text().replace("\\\n", " ")
    granted = set()
    for line in text.splitlines():
        if not line.startswith("kafka-acls.sh ") or "--allow-principal User:monitor" not in line:
            continue
        operations = re.findall(r"--operation (\w+)", line)
        if "--cluster" in line:
            resource = ("Cluster", "kafka-cluster")
        else:
            kind, name = re.search(r"--(topic|group) '([^']+)'", line).groups()
            resource = (kind.capitalize(), name)
        granted |= {(*resource, op) for op in operations}
    assert granted == set(MONITOR_ACLS)


def test_the_mutating_commands_table_names_every_command_with_execute():
    text = DOC.read_text()
    table = text[text.index("| system | mutating commands |"):]
    table = table[:table.index("\n\n")]
    named = set(re.findall(r"`([a-z -]+)`", table))
    assert {" ".join(path) for path in mutating_commands()} <= named
