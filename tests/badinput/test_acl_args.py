"""Bad `acls` arguments: one line (exit 3), nothing sent (the context's Kafka is a dead port:
a case that reached the network would fail there instead), nothing written."""

from __future__ import annotations

import pytest

from tests.badinput.harness import Case, Workspace, ids, run_case

CREATE = ("acls", "create", "--principal", "User:app")
DELETE = ("acls", "delete", "--principal", "User:app")
SELECTORS = "give exactly one of --topic, --group, --cluster, --transactional-id"
OPERATIONS = ("All, Read, Write, Create, Delete, Alter, Describe, ClusterAction, DescribeConfigs, AlterConfigs, "
              "IdempotentWrite")

CASES = [
    Case("unknown operation", (*CREATE, "--operation", "Reed", "--topic", "t", "--execute"),
         f"unknown ACL operation 'Reed' (one of {OPERATIONS})"),
    Case("operation of another resource type", (*CREATE, "--operation", "IdempotentWrite", "--group", "g"),
         "operation IdempotentWrite does not apply to a Group (one of All, Read, Delete, Describe)"),
    Case("unknown resource type", (*CREATE, "--operation", "Read", "--broker", "1"), "No such option '--broker'."),
    Case("principal without User:", ("acls", "create", "--principal", "app", "--operation", "Read", "--topic", "t"),
         "principal 'app': expected User:NAME (User:* for every user)"),
    Case("principal with an empty name", ("acls", "delete", "--principal", "User:", "--topic", "t"),
         "principal 'User:': expected User:NAME (User:* for every user)"),
    Case("list principal without User:", ("acls", "list", "--principal", "Group:ops"),
         "principal 'Group:ops': expected User:NAME (User:* for every user)"),
    Case("empty prefix", (*CREATE, "--operation", "Read", "--topic", "", "--prefixed", "--execute"),
         "--topic '' --prefixed: a prefix cannot be empty or only '*'"),
    Case("wildcard prefix", (*DELETE, "--group", "**", "--prefixed"),
         "--group '**' --prefixed: a prefix cannot be empty or only '*'"),
    Case("prefixed cluster", (*CREATE, "--operation", "Alter", "--cluster", "--prefixed"),
         "--prefixed needs --topic, --group or --transactional-id (the Cluster has one name)"),
    Case("empty literal name", (*CREATE, "--operation", "Read", "--topic", ""),
         "--topic: the name cannot be empty ('*' means every name)"),
    Case("no resource selector", (*CREATE, "--operation", "Read", "--execute"), SELECTORS),
    Case("no resource selector on delete", DELETE, SELECTORS),
    Case("two resource selectors", (*CREATE, "--operation", "Read", "--topic", "t", "--group", "g"), SELECTORS),
    Case("no operation", (*CREATE, "--topic", "t"), "Missing option '--operation'."),
    Case("empty host", (*CREATE, "--operation", "Read", "--topic", "t", "--host", " "),
         "--host: give an address, or '*' for every host"),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_acl_argument(case, tmp_path):
    run_case(case, Workspace(tmp_path))
