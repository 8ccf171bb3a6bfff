"""Client quota plans and argument parsing: the entity the options name, the keys each entity
takes, the values, and a plan's old -> new (no cluster: the CLI refuses these before sending)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from streamctl.errors import UsageError
from streamctl.kafka.quotas import plans
from streamctl.kafka.quotas.commands import quotas


def test_the_entity_is_what_the_options_name_with_none_for_a_default():
    assert plans.entity_of(user="alice", client_id="billing") == {"user": "alice", "client-id": "billing"}
    assert plans.entity_of(user_default=True, client_id="billing") == {"user": None, "client-id": "billing"}
    assert plans.entity_of(ip_default=True) == {"ip": None}
    assert plans.label({"client-id": "billing", "user": None}) == "user <default>, client-id billing"


@pytest.mark.parametrize(("options", "message"), [
    ({}, "no quota entity"),
    ({"user": "alice", "user_default": True}, "give --user NAME or --user-default, not both"),
    ({"ip": "10.0.0.1", "client_id": "billing"}, "--ip cannot be combined"),
    ({"client_id": " "}, "--client-id: the name is empty"),
])
def test_a_missing_or_impossible_entity_is_refused(options, message):
    with pytest.raises(UsageError, match=message):
        plans.entity_of(**options)


@pytest.mark.parametrize(("pair", "message"), [
    ("producer_byte_rate", "expected KEY=VALUE"),
    ("producer_byte_rate=fast", "expected a number, got 'fast'"),
    ("producer_byte_rate=0", "expected a number above 0"),
    ("producer_byte_rate=-5", "expected a number above 0"),
    ("producer_byte_rate=nan", "expected a number above 0"),
])
def test_values_must_be_positive_numbers(pair, message):
    with pytest.raises(UsageError, match=message):
        plans.parse_sets([pair])


@pytest.mark.parametrize(("entity", "sets", "removes", "message"), [
    ({"client-id": "c"}, {"byte_rate": 1.0}, [], "unknown quota key 'byte_rate'"),
    ({"user": "u"}, {"connection_creation_rate": 5.0}, [], "applies to IPs only"),
    ({"ip": "10.0.0.1"}, {}, ["producer_byte_rate"], "applies to users and client-ids, not IPs"),
    ({"user": "u"}, {"producer_byte_rate": 5.0}, ["producer_byte_rate"], "both --set and --delete"),
    ({"user": "u"}, {}, [], "nothing to alter"),
])
def test_keys_must_apply_to_the_entity(entity, sets, removes, message):
    with pytest.raises(UsageError, match=message):
        plans.validate_keys(entity, sets, removes)


def test_the_plan_shows_old_to_new_and_skips_what_would_not_change():
    current = {"producer_byte_rate": 1024.0, "consumer_byte_rate": 2048.0}
    plan = plans.plan_alter(current, {"client-id": "billing"},
                            {"producer_byte_rate": 51200.0, "consumer_byte_rate": 2048.0, "request_percentage": 12.5},
                            ["controller_mutation_rate"])
    assert [(c.object, c.field, c.before, c.after) for c in plan.changes] == [
        ("quota client-id billing", "producer_byte_rate", "1024", "51200"),
        ("quota client-id billing", "request_percentage", None, "12.5")]
    assert plan.warnings == ["controller_mutation_rate is not set on client-id billing: nothing to delete"]
    assert plan.parameters["entity"] == {"client-id": "billing"}
    removal = plans.plan_alter(current, {"client-id": "billing"}, {}, ["consumer_byte_rate"])
    assert [(c.field, c.before, c.after) for c in removal.changes] == [("consumer_byte_rate", "2048", None)]


def test_a_describe_answer_is_listed_with_default_names_and_matched_exactly():
    described = [{"entity": {"client-id": "c", "user": None}, "values": {"producer_byte_rate": 5}},
                 {"entity": {"client-id": "c"}, "values": {"consumer_byte_rate": 7.0}}]
    assert plans.listed(described[0]) == {"entity": {"user": "<default>", "client-id": "c"},
                                          "values": {"producer_byte_rate": 5.0}}
    assert plans.values_of(described, {"client-id": "c"}) == {"consumer_byte_rate": 7.0}
    assert plans.values_of(described, {"user": "x"}) == {}


@pytest.mark.parametrize(("args", "message"), [
    (["alter", "--client-id", "c", "--set", "connection_creation_rate=3"], "applies to IPs only"),
    (["alter", "--set", "producer_byte_rate=3"], "no quota entity"),
    (["alter", "--client-id", "c"], "nothing to alter"),
    (["list", "--ip", "10.0.0.1", "--user", "u"], "--ip cannot be combined"),
])
def test_the_cli_refuses_bad_input_before_any_client_is_made(args, message):
    # obj=None: a command that reached for the session (and so the cluster) would fail differently
    result = CliRunner().invoke(quotas, args, obj=None)
    assert isinstance(result.exception, UsageError) and message in str(result.exception)


def test_a_plan_is_json_serialisable():
    plan = plans.plan_alter({}, {"user": None}, {"consumer_byte_rate": 1e6}, [])
    assert json.loads(json.dumps(plan.as_dict(), default=str))["changes"][0]["after"] == "1000000"


def test_the_table_shows_values_as_typed(capsys):
    from streamctl.kafka.quotas.render import quotas_table

    quotas_table([{"entity": {"user": "<default>", "client-id": "c"},
                   "values": {"producer_byte_rate": 51200.0, "request_percentage": 12.5}}])
    out = capsys.readouterr().out
    assert "51200 " in out and "51200.0" not in out and "12.5" in out and "<default>" in out
