"""The group listing asks again while a broker is loading its groups (after a restart or a
coordinator move it answers COORDINATOR_LOAD_IN_PROGRESS for a few seconds), and only then."""

from __future__ import annotations

import concurrent.futures
from types import SimpleNamespace

from confluent_kafka import KafkaError as KafkaErrorCode

from streamctl.backends.kafka import group_reads as kafka_backend
from streamctl.backends.kafka.client import Deadline
from streamctl.backends.kafka.group_reads import list_groups


class _Listings:
    """An admin client whose list_consumer_groups answers the given listings in turn."""

    def __init__(self, *listings):
        self.listings = list(listings)
        self.calls = 0

    def list_consumer_groups(self, request_timeout):
        self.calls += 1
        future = concurrent.futures.Future()
        future.set_result(self.listings[min(self.calls, len(self.listings)) - 1])
        return future


def _listing(groups, *codes):
    """A ListConsumerGroupsResult's shape: its errors are bare KafkaError values, not exceptions."""
    return SimpleNamespace(valid=[SimpleNamespace(group_id=g) for g in groups],
                           errors=[KafkaErrorCode(code) for code in codes])


def test_a_loading_broker_is_asked_again(monkeypatch):
    monkeypatch.setattr(kafka_backend, "LISTING_RETRY_PAUSE", 0.01)
    admin = _Listings(_listing(["a"], KafkaErrorCode.COORDINATOR_LOAD_IN_PROGRESS), _listing(["a", "b"]))
    listing = list_groups(admin, Deadline(5.0, 5.0))
    assert [g.group_id for g in listing.valid] == ["a", "b"] and not listing.errors
    assert admin.calls == 2


def test_other_errors_are_answered_at_once(monkeypatch):
    admin = _Listings(_listing(["a"], KafkaErrorCode._TRANSPORT))
    listing = list_groups(admin, Deadline(5.0, 5.0))
    assert admin.calls == 1 and len(listing.errors) == 1


def test_a_broker_that_never_settles_is_reported_within_one_call_timeout(monkeypatch):
    monkeypatch.setattr(kafka_backend, "LISTING_RETRY_PAUSE", 0.05)
    admin = _Listings(_listing(["a"], KafkaErrorCode.COORDINATOR_LOAD_IN_PROGRESS))
    listing = list_groups(admin, Deadline(0.5))
    assert len(listing.errors) == 1 and 2 <= admin.calls <= 11
