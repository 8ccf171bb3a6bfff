"""Every group's type: ListGroups v5's (through kafka-python) joined with librdkafka's listing.
The entries have the shape kafka-python decodes ListGroups into (v5 from Kafka 4.x, v4 and
lower from older brokers: no group_type)."""

from __future__ import annotations

from streamctl.backends.kafka.group_types import typed_groups
from streamctl.backends.kafka.wire_reads import group_state
from streamctl.model.kafka import ConsumerGroup, type_label


def _entry(group_id: str, group_type: str | None = None, state: str = "Stable") -> dict:
    entry = {"group_id": group_id, "protocol_type": "consumer", "group_state": state}
    return entry if group_type is None else {**entry, "group_type": group_type}


LIBRDKAFKA = (ConsumerGroup("orders", "STABLE", "CLASSIC"), ConsumerGroup("payments", "STABLE", "CONSUMER"),
              ConsumerGroup("weblog-statuses", "STABLE", "UNKNOWN"))


def test_the_typed_listing_names_all_four_types_and_adds_the_groups_librdkafka_lacks():
    listing = [_entry("orders", "Classic"), _entry("payments", "Consumer"), _entry("weblog-statuses", "Streams"),
               _entry("queue-readers", "Share", "Empty"), _entry("excluded", "Share")]
    groups = typed_groups(LIBRDKAFKA, listing, keep=lambda g: g != "excluded")
    assert [(g.id, g.type, g.state) for g in groups] == [
        ("orders", "CLASSIC", "STABLE"), ("payments", "CONSUMER", "STABLE"), ("queue-readers", "SHARE", "EMPTY"),
        ("weblog-statuses", "STREAMS", "STABLE")]
    assert [type_label(g.type) for g in groups] == ["classic", "consumer", "share", "streams"]


def test_a_broker_before_list_groups_v5_means_classic_unless_librdkafka_says_otherwise():
    listing = [_entry("orders"), _entry("payments"), _entry("weblog-statuses")]
    groups = typed_groups(LIBRDKAFKA, listing, keep=lambda _: True)
    assert [g.type for g in groups] == ["CLASSIC", "CONSUMER", "CLASSIC"]


def test_a_group_the_typed_listing_missed_keeps_what_librdkafka_said():
    groups = typed_groups(LIBRDKAFKA, [_entry("orders", "Classic")], keep=lambda _: True)
    assert [g.type for g in groups] == ["CLASSIC", "CONSUMER", "UNKNOWN"]


def test_a_failed_typed_listing_shows_every_type_as_unknown():
    groups = typed_groups(LIBRDKAFKA, None, keep=lambda _: True)
    assert {type_label(g.type) for g in groups} == {"unknown"}
    assert [g.id for g in groups] == [g.id for g in LIBRDKAFKA]


def test_list_groups_states_are_written_as_the_model_writes_them():
    assert [group_state({"group_state": s}) for s in ("PreparingRebalance", "NotReady", "Empty", "")] == [
        "PREPARING_REBALANCE", "NOT_READY", "EMPTY", "UNKNOWN"]
