"""An authorizer's refusal becomes one line naming the principal and the ACL missing."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError as KafkaErrorCode
from confluent_kafka import KafkaException

from streamctl.backends.kafka.authz import Acl, NotAuthorized, principal, refusal
from streamctl.backends.kafka.client import KafkaError, call

NEEDS = [Acl("Topic", "orders", "Write"), Acl("Group", "billing", "Read"), Acl("Cluster", "kafka-cluster", "Alter"),
         Acl("TransactionalId", "copy-1", "Write")]


@pytest.mark.parametrize("code, line", [
    (KafkaErrorCode.TOPIC_AUTHORIZATION_FAILED, "User:ops lacks Write on Topic 'orders' (TOPIC_AUTHORIZATION_FAILED)"),
    (KafkaErrorCode.GROUP_AUTHORIZATION_FAILED, "User:ops lacks Read on Group 'billing' (GROUP_AUTHORIZATION_FAILED)"),
    (KafkaErrorCode.CLUSTER_AUTHORIZATION_FAILED,
     "User:ops lacks Alter on Cluster 'kafka-cluster' (CLUSTER_AUTHORIZATION_FAILED)"),
    (KafkaErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
     "User:ops lacks Write on TransactionalId 'copy-1' (TRANSACTIONAL_ID_AUTHORIZATION_FAILED)"),
])
def test_each_refusal_code_names_the_acl_on_its_resource_type(code, line):
    for error in (KafkaErrorCode(code), KafkaException(KafkaErrorCode(code))):
        refused = refusal(error, "doing it", "User:ops", NEEDS)
        assert isinstance(refused, NotAuthorized) and isinstance(refused, KafkaError)
        assert str(refused) == f"not authorized: doing it: {line}"


def test_other_errors_are_not_refusals_and_an_unstated_acl_is_still_named_by_type():
    assert refusal(KafkaErrorCode(KafkaErrorCode.UNKNOWN_TOPIC_OR_PART), "x", "User:ops", NEEDS) is None
    assert str(refusal(KafkaErrorCode(KafkaErrorCode.GROUP_AUTHORIZATION_FAILED), "x", "User:ops", [])) == \
        "not authorized: x: User:ops lacks an ACL on a Group (GROUP_AUTHORIZATION_FAILED)"


def test_an_alternative_acl_is_named_too():
    acl = Acl("Topic", "t", "Create", alternative=Acl("Cluster", "kafka-cluster", "Create"))
    assert str(acl) == "Create on Topic 't' (or Create on Cluster 'kafka-cluster')"


def test_the_principal_is_the_sasl_user():
    assert principal({"sasl.username": "monitor"}) == "User:monitor"
    assert principal({"security.protocol": "SSL"}) == "this client's principal"


def test_call_raises_the_named_refusal_and_keeps_other_errors_as_they_were():
    def refused():
        raise KafkaException(KafkaErrorCode(KafkaErrorCode.TOPIC_AUTHORIZATION_FAILED))

    def broken():
        raise KafkaException(KafkaErrorCode(KafkaErrorCode.UNKNOWN_TOPIC_OR_PART))

    def name(exc):
        return refusal(exc, "deleting topic 'orders'", "User:ops", NEEDS)

    with pytest.raises(NotAuthorized, match=r"^not authorized: deleting topic 'orders': User:ops lacks Write"):
        call(refused, "deleting topic 'orders'", name)
    with pytest.raises(KafkaError) as other:
        call(broken, "deleting topic 'orders'", name)
    assert not isinstance(other.value, NotAuthorized)
    assert str(other.value).startswith("deleting topic 'orders' failed: ")


def test_the_refusal_codes_are_the_ones_kafka_python_raises_too():
    from kafka import errors

    from streamctl.backends.kafka.authz import CODE_NAMES

    for code, name in CODE_NAMES.items():
        assert errors.for_code(code).__name__.upper().replace("ERROR", "").replace("_", "") == name.replace("_", "")
