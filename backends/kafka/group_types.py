"""Every group's type (classic, consumer, share, streams) in a snapshot's groups.

librdkafka 2.16 lists classic and consumer groups only and types them so; ListGroups v5
through kafka-python (wire_reads.py) names all four. This joins the two: the listing's type
wins; a group it lacks keeps librdkafka's; a group only it lists (a share or streams group)
is added with its state; a broker before v5 (no type) means a classic group unless librdkafka
says otherwise. A failed typed listing leaves every type UNKNOWN (the failure is in errors).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from streamctl.backends.kafka.wire_reads import group_state, group_type
from streamctl.model.kafka import ConsumerGroup

KNOWN_TO_LIBRDKAFKA = ("CLASSIC", "CONSUMER")


def typed_groups(groups: tuple[ConsumerGroup, ...], listing: list[dict[str, Any]] | None,
                 keep: Callable[[str], bool]) -> tuple[ConsumerGroup, ...]:
    """`groups` with their types from `listing` (None: the typed listing failed), plus the kept
    groups only the listing has, sorted by id."""
    if listing is None:
        return tuple(replace(g, type="UNKNOWN") for g in groups)
    listed = {entry["group_id"]: entry for entry in listing}
    typed = [replace(g, type=_type_of(g, listed.get(g.id))) for g in groups]
    known = {g.id for g in groups}
    typed += [ConsumerGroup(id=group_id, state=group_state(entry), type=group_type(entry) or "CLASSIC")
              for group_id, entry in listed.items() if group_id not in known and keep(group_id)]
    return tuple(sorted(typed, key=lambda g: g.id))


def _type_of(group: ConsumerGroup, entry: dict[str, Any] | None) -> str | None:
    if entry is not None and (listed := group_type(entry)):
        return listed
    if group.type in KNOWN_TO_LIBRDKAFKA:
        return group.type
    return "CLASSIC" if entry is not None else group.type  # listed by a broker before v5: classic
