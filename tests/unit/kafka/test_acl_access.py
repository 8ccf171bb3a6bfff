"""Who can do what: bindings grouped per principal, host and resource pattern."""

from __future__ import annotations

from streamctl.kafka.acls.access import Rights, rights
from streamctl.model.acls import AclBinding


def binding(who: str, op: str, permission: str = "Allow", name: str = "orders", pattern: str = "Literal",
            host: str = "*") -> AclBinding:
    return AclBinding(who, host, op, permission, "Topic", name, pattern)


def test_one_row_per_principal_host_and_pattern_with_allowed_and_denied_operations():
    found = rights([binding("User:b", "Write"), binding("User:b", "Read"), binding("User:b", "Delete", "Deny"),
                    binding("User:a", "Describe", name="ord", pattern="Prefixed"),
                    binding("User:a", "Read", host="10.0.0.1"), binding("User:*", "Read", name="*")])
    assert found == [
        Rights("User:*", "*", "Topic", "*", "Literal", ("Read",), ()),
        Rights("User:a", "*", "Topic", "ord", "Prefixed", ("Describe",), ()),
        Rights("User:a", "10.0.0.1", "Topic", "orders", "Literal", ("Read",), ()),
        Rights("User:b", "*", "Topic", "orders", "Literal", ("Read", "Write"), ("Delete",)),
    ]
    assert [r.resource for r in found] == ["Topic *", "Topic prefix ord", "Topic orders", "Topic orders"]


def test_a_delete_starts_from_allow_unless_the_row_only_denies():
    assert rights([binding("User:a", "Read", "Deny")])[0].permission_of_row() == "Deny"
    assert rights([binding("User:a", "Read", "Deny"), binding("User:a", "Write")])[0].permission_of_row() == "Allow"
