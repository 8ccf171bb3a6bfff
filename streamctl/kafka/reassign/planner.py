"""Where partitions' replicas go: decommission a broker, add one, change a topic's replication
factor, rebalance. Pure functions of the layout (no I/O), so the same cluster gives the same plan.

A broker's load is the bytes its replicas hold on disk (then their count, then its id, for ties:
every choice is deterministic). Partitions are taken biggest first, so the biggest moves are
placed while the most room is left. With racks, a new replica goes to a rack the partition's
other replicas do not use, while there is one; the first replica (the preferred leader) stays
first whenever it stays at all.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from streamctl.errors import UsageError

Partition = tuple[str, int]


@dataclass(frozen=True)
class Layout:
    brokers: dict[int, str | None]  # id -> rack
    replicas: dict[Partition, list[int]]
    sizes: dict[Partition, int]  # bytes on disk of one replica (the largest the brokers report)

    def size(self, partition: Partition) -> int:
        return self.sizes.get(partition, 0)


class Loads:
    """Bytes and replica count per broker, as replicas are placed."""

    def __init__(self, layout: Layout, replicas: dict[Partition, list[int]]):
        self.bytes = dict.fromkeys(layout.brokers, 0)
        self.count = dict.fromkeys(layout.brokers, 0)
        for partition, brokers in replicas.items():
            for broker in brokers:
                self.add(broker, layout.size(partition))

    def add(self, broker: int, size: int, sign: int = 1) -> None:
        if broker in self.bytes:
            self.bytes[broker] += sign * size
            self.count[broker] += sign

    def key(self, broker: int) -> tuple[int, int, int]:
        return self.bytes[broker], self.count[broker], broker


def biggest_first(layout: Layout, partitions: Iterable[Partition]) -> list[Partition]:
    return sorted(partitions, key=lambda p: (-layout.size(p), p))


def pick(layout: Layout, loads: Loads, candidates: Iterable[int], keep: list[int]) -> int | None:
    """The least-loaded candidate, on a rack the `keep` replicas do not use while there is one."""
    free = [b for b in candidates if b not in keep]
    if not free:
        return None
    used = {layout.brokers.get(b) for b in keep}
    if any(rack is not None for rack in layout.brokers.values()):
        other_rack = [b for b in free if layout.brokers[b] not in used]
        free = other_rack or free
    return min(free, key=loads.key)


def decommission(layout: Layout, broker: int) -> dict[Partition, list[int]]:
    """Move every replica off `broker`; each keeps its position in the replica list."""
    _require_broker(layout, "--decommission", broker)
    remaining = [b for b in layout.brokers if b != broker]
    targets = {p: list(r) for p, r in layout.replicas.items()}
    loads = Loads(layout, targets)
    for partition in biggest_first(layout, [p for p, r in layout.replicas.items() if broker in r]):
        replicas = targets[partition]
        keep = [b for b in replicas if b != broker]
        chosen = pick(layout, loads, remaining, keep)
        if chosen is None:
            raise UsageError(f"--decommission {broker}: {partition[0]}/{partition[1]} has {len(replicas)} replicas "
                             f"and only {len(remaining)} brokers would be left")
        _move(layout, targets, loads, partition, broker, chosen)
    return _changed(layout, targets)


def replication_factor(layout: Layout, topic: str, factor: int) -> dict[Partition, list[int]]:
    """Grow or shrink `topic`'s replica lists to `factor` (shrinking drops the most loaded followers)."""
    if not 1 <= factor <= len(layout.brokers):
        raise UsageError(f"--replication-factor {topic}={factor}: must be 1 to {len(layout.brokers)} "
                         f"(the number of brokers)")
    partitions = [p for p in layout.replicas if p[0] == topic]
    if not partitions:
        raise UsageError(f"--replication-factor {topic}={factor}: no topic {topic!r}")
    targets = {p: list(r) for p, r in layout.replicas.items()}
    loads = Loads(layout, targets)
    for partition in biggest_first(layout, partitions):
        replicas, size = targets[partition], layout.size(partition)
        while len(replicas) < factor:
            chosen = pick(layout, loads, layout.brokers, replicas)
            if chosen is None:  # a replica on a broker that is gone: no free broker left
                break
            replicas.append(chosen)
            loads.add(chosen, size)
        while len(replicas) > factor:
            dropped = max(replicas[1:], key=loads.key)
            replicas.remove(dropped)
            loads.add(dropped, size, -1)
    return _changed(layout, targets)


def add_broker(layout: Layout, broker: int) -> dict[Partition, list[int]]:
    """Give `broker` (new, or holding few replicas) its even share: move replicas to it from the
    brokers holding the most bytes while each move brings it closer to its share of bytes
    (partitions of 0 bytes: of replicas), biggest partitions first; then it leads its share of
    the partitions it received."""
    _require_broker(layout, "--add-broker", broker)
    targets = {p: list(r) for p, r in layout.replicas.items()}
    loads = Loads(layout, targets)
    share_bytes = sum(loads.bytes.values()) / len(layout.brokers)
    share_count = sum(loads.count.values()) / len(layout.brokers)

    def closer(partition: Partition, donor: int) -> bool:
        size = layout.size(partition)
        if size:  # nearer its share, and never past the donor
            return size < 2 * (share_bytes - loads.bytes[broker]) and size < loads.bytes[donor] - loads.bytes[broker]
        return share_count - loads.count[broker] >= 1 and loads.count[donor] - loads.count[broker] > 1

    order = biggest_first(layout, targets)
    received: set[Partition] = set()
    while True:
        donors = sorted((b for b in layout.brokers if b != broker), key=loads.key, reverse=True)
        move = next(((p, donor) for donor in donors for p in _movable(layout, targets, order, donor, broker)
                     if closer(p, donor)), None)
        if move is None:
            break
        _move(layout, targets, loads, *move, broker)
        received.add(move[0])
    _spread_leaders(targets, received)
    return _changed(layout, targets)


def rebalance(layout: Layout) -> dict[Partition, list[int]]:
    """Move replicas from the most loaded broker to the least loaded one while that narrows the
    gap between them (bytes on disk), biggest partitions first; then spread the preferred leaders
    by making the least-leading replica of each partition its first."""
    targets = {p: list(r) for p, r in layout.replicas.items()}
    loads, by_size = Loads(layout, targets), BiggestFirst(layout, targets)
    for _ in range(len(targets) * max(1, len(layout.brokers))):
        heavy = max(layout.brokers, key=loads.key)
        light = min(layout.brokers, key=loads.key)
        partition = by_size.first_movable(layout, targets, heavy, light, loads)
        if partition is None:
            break
        _move(layout, targets, loads, partition, heavy, light)
        by_size.moved(partition, heavy if heavy not in targets[partition] else None, light)
    _spread_leaders(targets, set(targets))
    return _changed(layout, targets)


def _movable(layout: Layout, targets: dict[Partition, list[int]], order: list[Partition], leaving: int,
             coming: int) -> Iterator[Partition]:
    """The partitions of `order` with a replica on `leaving` and none on `coming` whose racks
    allow the move, in that order."""
    return (p for p in order if leaving in targets[p] and coming not in targets[p]
            and _rack_allows(layout, targets[p], leaving, coming))


def _move(layout: Layout, targets: dict[Partition, list[int]], loads: Loads, partition: Partition,
          leaving: int, coming: int) -> None:
    """`coming` takes `leaving`'s place in the partition's replica list."""
    replicas = targets[partition]
    replicas[replicas.index(leaving)] = coming
    loads.add(coming, layout.size(partition))
    loads.add(leaving, layout.size(partition), -1)


def _spread_leaders(targets: dict[Partition, list[int]], partitions: set[Partition]) -> None:
    """Make the least-leading replica of each of `partitions` its first (the preferred leader),
    counting the preferred leaders of the other partitions as they are."""
    leaders = Counter(r[0] for p, r in targets.items() if p not in partitions and r)
    for partition in sorted(partitions):
        replicas = targets[partition]
        if not replicas:
            continue
        first = min(replicas, key=lambda b: (leaders[b], replicas.index(b)))
        replicas.remove(first)
        replicas.insert(0, first)
        leaders[first] += 1


class BiggestFirst:
    """The partitions biggest first (their sizes never change while planning) and, per broker, the
    positions in that order of the partitions it holds: the rebalance's search for the biggest
    movable partition starts at the first one smaller than the gap instead of sorting them all."""

    def __init__(self, layout: Layout, targets: dict[Partition, list[int]]):
        self.partitions = biggest_first(layout, targets)
        self.position = {p: i for i, p in enumerate(self.partitions)}
        self.negated_sizes = [-layout.size(p) for p in self.partitions]  # ascending, for bisect
        self.held: dict[int, list[int]] = {b: [] for b in layout.brokers}
        for i, partition in enumerate(self.partitions):
            for broker in set(targets[partition]) & self.held.keys():
                self.held[broker].append(i)

    def first_movable(self, layout: Layout, targets: dict[Partition, list[int]], heavy: int, light: int,
                      loads: Loads) -> Partition | None:
        """The biggest partition on `heavy`, not on `light`, whose move narrows the gap in bytes
        (or, at no gap, evens out the replica count with an empty partition), racks allowing."""
        gap = loads.bytes[heavy] - loads.bytes[light]
        empty_from = bisect.bisect_left(self.negated_sizes, 0)
        if gap > 0:
            start, stop = bisect.bisect_right(self.negated_sizes, -gap), empty_from
        elif gap == 0 and loads.count[heavy] - loads.count[light] > 1:
            start, stop = empty_from, bisect.bisect_right(self.negated_sizes, 0)
        else:
            return None
        held = self.held[heavy]
        for i in held[bisect.bisect_left(held, start):bisect.bisect_left(held, stop)]:
            partition = self.partitions[i]
            if light not in targets[partition] and _rack_allows(layout, targets[partition], heavy, light):
                return partition
        return None

    def moved(self, partition: Partition, left: int | None, joined: int) -> None:
        i = self.position[partition]
        if left is not None:
            self.held[left].remove(i)
        bisect.insort(self.held[joined], i)


def _rack_allows(layout: Layout, replicas: list[int], leaving: int, coming: int) -> bool:
    """A move keeps the partition on as many racks as before."""
    before = {layout.brokers.get(b) for b in replicas}
    after = {layout.brokers.get(b) for b in replicas if b != leaving} | {layout.brokers.get(coming)}
    return len(after) >= len(before)


def _require_broker(layout: Layout, option: str, broker: int) -> None:
    if broker not in layout.brokers:
        raise UsageError(f"{option} {broker}: no such broker (brokers: {_ids(layout)})")


def _changed(layout: Layout, targets: dict[Partition, list[int]]) -> dict[Partition, list[int]]:
    return {p: r for p, r in sorted(targets.items()) if r != layout.replicas[p]}


def _ids(layout: Layout) -> str:
    return ", ".join(str(b) for b in sorted(layout.brokers))


def bytes_moving(layout: Layout, moves: dict[Partition, list[int]]) -> dict[int, dict[str, int]]:
    """Per broker: bytes it receives (new replicas) and sends (as the current leader)."""
    per_broker = {b: {"in": 0, "out": 0} for b in layout.brokers}
    for partition, new in moves.items():
        old, size = layout.replicas[partition], layout.size(partition)
        for broker in new:
            if broker not in old:
                per_broker.setdefault(broker, {"in": 0, "out": 0})["in"] += size
                if old:
                    per_broker.setdefault(old[0], {"in": 0, "out": 0})["out"] += size
    return per_broker


def estimate_seconds(per_broker: dict[int, dict[str, int]], rate: int) -> float:
    """The move's duration at a throttle of `rate` bytes/s per broker: its busiest broker's bytes."""
    busiest = max((max(v["in"], v["out"]) for v in per_broker.values()), default=0)
    return busiest / rate
