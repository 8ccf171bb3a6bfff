"""ACL plans: which bindings are new, and what a principal can no longer do after a delete
(its remaining grants, User:*, `*`, prefixes and implied operations taken into account)."""

from __future__ import annotations

from streamctl.backends.kafka.acl_admin import AclBinding
from streamctl.kafka.acls.plans import SUPER_USERS_NOTE, Resource, lost_rights, plan_create, plan_delete

TOPIC = Resource("Topic", "orders", "Literal")


def allow(op: str, name: str = "orders", who: str = "User:app", pattern: str = "Literal", kind: str = "Topic",
          host: str = "*", permission: str = "Allow") -> AclBinding:
    return AclBinding(who, host, op, permission, kind, name, pattern)


def test_create_plans_only_the_missing_bindings_and_names_the_others():
    plan = plan_create([allow("Describe"), allow("Read")], [allow("Describe")], TOPIC)
    assert [(c.object, c.field, c.before, c.after) for c in plan.changes] == \
        [("User:app", "Allow Read on Topic 'orders' from host *", "absent", "present")]
    assert plan.parameters == {"bindings": [allow("Read").as_dict()]}
    assert plan.warnings == ["already exists, nothing to do: User:app: Allow Describe on Topic 'orders' from host *"]


def test_create_of_existing_bindings_is_nothing_to_change():
    plan = plan_create([allow("Read")], [allow("Read")], TOPIC)
    assert plan.changes == [] and plan.summary() == "acls.create Topic orders: nothing to change"


def test_losing_read_loses_the_describe_it_implies_too():
    assert lost_rights(allow("Read"), []) == ["Describe on Topic 'orders'", "Read on Topic 'orders'"]


def test_a_grant_that_remains_keeps_the_right():
    assert lost_rights(allow("Read"), [allow("Read", "*")]) == []
    assert lost_rights(allow("Read"), [allow("All", "*")]) == []
    assert lost_rights(allow("Read"), [allow("Read", "ord", pattern="Prefixed"), allow("Describe")]) == []
    assert lost_rights(allow("Read"), [allow("Read", who="User:*"), allow("Write")]) == []


def test_grants_that_do_not_cover_it_keep_nothing():
    other_user = allow("Read", who="User:other")
    other_topic = allow("Read", "orders-2")
    narrower_prefix = allow("Read", "orders-", pattern="Prefixed")
    one_host = allow("Read", host="10.0.0.1")
    denied = allow("Read", permission="Deny")
    assert lost_rights(allow("Read"), [other_user, other_topic, narrower_prefix, one_host, denied]) == \
        ["Describe on Topic 'orders'", "Read on Topic 'orders'"]


def test_a_prefixed_binding_is_covered_only_by_a_shorter_prefix_or_the_wildcard():
    removed = allow("Write", "ord", pattern="Prefixed")
    assert lost_rights(removed, [allow("Write", "ord")]) == ["Describe on Topic prefix 'ord'",
                                                             "Write on Topic prefix 'ord'"]
    assert lost_rights(removed, [allow("Write", "o", pattern="Prefixed"), allow("Describe", "*")]) == []


def test_removing_all_loses_every_operation_of_the_resource_type():
    assert lost_rights(allow("All", "g", kind="Group"), []) == \
        ["Delete on Group 'g'", "Describe on Group 'g'", "Read on Group 'g'"]


def test_removing_a_deny_takes_nothing_away():
    assert lost_rights(allow("Read", permission="Deny"), []) == []


def test_delete_plan_lists_each_binding_and_what_each_principal_loses():
    found = [allow("Read"), allow("Describe"), allow("Read", who="User:bi")]
    every = [*found, allow("Describe", "*", who="User:bi"), allow("Write", "other")]
    plan = plan_delete(found, every, TOPIC)
    assert [(c.object, c.field, c.note) for c in plan.changes] == [
        ("User:app", "Allow Read on Topic 'orders' from host *",
         "loses Describe on Topic 'orders', Read on Topic 'orders'"),
        ("User:app", "Allow Describe on Topic 'orders' from host *", "loses Describe on Topic 'orders'"),
        ("User:bi", "Allow Read on Topic 'orders' from host *", "loses Read on Topic 'orders'"),
    ]
    assert plan.warnings == ["User:app can then no longer: Describe on Topic 'orders', Read on Topic 'orders'",
                             "User:bi can then no longer: Read on Topic 'orders'", SUPER_USERS_NOTE]
    assert plan.parameters["bindings"] == [b.as_dict() for b in found]


def test_delete_of_nothing_is_nothing_to_change():
    plan = plan_delete([], [allow("Read", "other")], TOPIC)
    assert plan.changes == [] and plan.warnings == []
