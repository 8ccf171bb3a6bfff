"""The consumer groups part of a snapshot: the listing (asked again while a coordinator loads),
the batched describe, and the committed offsets (one request per group, a capped number in
flight). Every read is bounded by the snapshot's deadline; a group that fails costs only itself."""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Callable, Iterable
from typing import Any

from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException
from confluent_kafka import KafkaError as KafkaErrorCode
from confluent_kafka.admin import AdminClient

from streamctl.backends.kafka.client import Deadline, call, reason
from streamctl.model.kafka import ConsumerGroup, GroupMember

GROUP_OFFSETS_CONCURRENCY = 32

# A broker loading its __consumer_offsets partitions (after a restart, or when a leadership
# moves to it) answers ListGroups with these for a few seconds: its groups exist, unlisted.
_LISTING_RETRIABLE = {KafkaErrorCode.COORDINATOR_LOAD_IN_PROGRESS, KafkaErrorCode.COORDINATOR_NOT_AVAILABLE,
                      KafkaErrorCode.NOT_COORDINATOR}
LISTING_RETRY_PAUSE = 0.5
LISTING_ANSWER_MARGIN = 0.5  # seconds


def list_groups(admin: AdminClient, deadline: Deadline):
    """list_consumer_groups, asked again while a broker is still loading its groups (for at most
    one call's timeout, and while the deadline leaves a call's worth); the answer's errors are
    what never settled."""
    give_up = time.monotonic() + deadline.per_call
    if deadline.ends is not None:
        give_up = min(give_up, deadline.ends - 1.0)  # a second kept for the rest of the snapshot
    while True:
        wait = deadline.left("list_consumer_groups")
        # The brokers' requests time out first, so a broker that does not answer costs only its
        # own groups (an error in the answer), not the whole listing.
        listing = call(lambda: admin.list_consumer_groups(
            request_timeout=max(0.1, wait - LISTING_ANSWER_MARGIN)).result(timeout=wait),  # noqa: B023 - called at once
            "listing consumer groups")
        loading = any(error_code(e) in _LISTING_RETRIABLE for e in listing.errors)
        pause_ends = time.monotonic() + LISTING_RETRY_PAUSE
        if not loading or pause_ends > give_up:
            return listing
        time.sleep(LISTING_RETRY_PAUSE)


def listed_groups(admin: AdminClient, deadline: Deadline, errors: list[str],
                  keep: Callable[[str], bool]) -> tuple[ConsumerGroup, ...]:
    """The kept groups as the listing has them (id, state, type), sorted by id."""
    listing = list_groups(admin, deadline)
    errors += [f"listing groups: {reason(e)}" for e in listing.errors]
    return tuple(ConsumerGroup(id=g.group_id, state=enum_name(g.state) or "UNKNOWN",
                               type=enum_name(getattr(g, "type", None)) or None)
                 for g in sorted(listing.valid, key=lambda g: g.group_id) if keep(g.group_id))


def describe_groups(admin: AdminClient, ids: list[str], deadline: Deadline, errors: list[str],
                    missing: set[str] | None = None) -> tuple[ConsumerGroup, ...]:
    """The groups that could be described. With `missing`, a group the cluster does not
    know goes there, not to `errors`."""
    if not ids:
        return ()
    futures = admin.describe_consumer_groups(ids, request_timeout=deadline.left("describe_consumer_groups"))
    groups = []
    for group_id, future in sorted(futures.items()):
        try:
            d = future.result(timeout=deadline.left("describe_consumer_groups"))
        except (KafkaException, concurrent.futures.TimeoutError) as exc:
            if missing is not None and error_code(exc) == KafkaErrorCode.GROUP_ID_NOT_FOUND:
                missing.add(group_id)
            else:
                errors.append(f"group {group_id}: {reason(exc)}")
            continue
        groups.append(ConsumerGroup(
            id=d.group_id,
            state=enum_name(d.state),
            type=enum_name(getattr(d, "type", None)) or None,
            protocol=d.partition_assignor or None,
            coordinator=d.coordinator.id if d.coordinator else None,
            members=tuple(
                GroupMember(m.member_id, m.client_id, m.host, tuple(
                    (tp.topic, tp.partition) for tp in (m.assignment.topic_partitions if m.assignment else [])))
                for m in d.members
            ),
        ))
    return tuple(groups)


def committed_offsets(admin: AdminClient, group_ids: Iterable[str], deadline: Deadline,
                      errors: list[str]) -> dict[str, dict[tuple[str, int], int]]:
    """{group: {(topic, partition): offset}}; one request per group, at most N in flight."""
    pending = list(group_ids)
    results: dict[str, dict[tuple[str, int], int]] = {}
    in_flight: dict[concurrent.futures.Future, str] = {}
    while pending or in_flight:
        while pending and len(in_flight) < GROUP_OFFSETS_CONCURRENCY:
            group_id = pending.pop()
            futures = admin.list_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group_id)],
                request_timeout=deadline.left("list_consumer_group_offsets"))
            in_flight[futures[group_id]] = group_id
        done, _ = concurrent.futures.wait(in_flight, timeout=deadline.left("list_consumer_group_offsets"),
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        if not done:  # the groups still waiting cost only themselves
            errors += [f"offsets of group {g}: no answer within the deadline"
                       for g in [*in_flight.values(), *pending]]
            break
        for future in done:
            group_id = in_flight.pop(future)
            try:
                answer = future.result()
            except KafkaException as exc:
                errors.append(f"offsets of group {group_id}: {reason(exc)}")
                continue
            results[group_id] = {(tp.topic, tp.partition): tp.offset
                                 for tp in answer.topic_partitions if tp.offset >= 0}
    return results


def error_code(error):
    """The code of a KafkaException or of a bare KafkaError (a listing's errors are those)."""
    if hasattr(error, "code"):
        return error.code()
    err: Any = error.args[0] if getattr(error, "args", None) else None  # a KafkaError value
    return err.code() if hasattr(err, "code") else None


def enum_name(value) -> str:
    return getattr(value, "name", "") or ("" if value is None else str(value))
