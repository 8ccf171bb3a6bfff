"""`reassign plan --add-broker N`: broker N gets its even share of bytes (and replicas) from the
brokers holding the most, rack-aware, deterministic, replication factors kept, and leads its share."""

from __future__ import annotations

import pytest

from streamctl.errors import UsageError
from streamctl.kafka.reassign import planner, plans
from streamctl.kafka.reassign.planner import Layout, Loads

KB = 1000


def three_brokers_and_a_new_one(racks=None, sizes=None) -> Layout:
    """12 RF-2 partitions of two topics on brokers 1-3 (sizes 10 to 120 kB), broker 4 empty."""
    pairs = [[1, 2], [2, 3], [3, 1], [1, 3], [2, 1], [3, 2]]
    replicas = {(topic, p): list(pairs[p]) for topic in ("orders", "audit") for p in range(6)}
    default = {partition: (i + 1) * 10 * KB for i, partition in enumerate(sorted(replicas))}
    return Layout(racks or {1: None, 2: None, 3: None, 4: None}, replicas, default if sizes is None else sizes)


def after(layout: Layout, moves) -> dict:
    return {**layout.replicas, **moves}


def test_the_new_broker_gets_about_its_share_of_bytes_from_the_others_only():
    before = three_brokers_and_a_new_one()
    moves = planner.add_broker(before, 4)
    loads = Loads(before, after(before, moves))
    share = sum(loads.bytes.values()) / 4
    assert abs(loads.bytes[4] - share) <= max(before.sizes.values()) / 2
    assert max(loads.bytes.values()) - min(loads.bytes.values()) < Loads(before, before.replicas).bytes[1] / 2
    for partition, new in moves.items():
        old = before.replicas[partition]
        assert set(new) - set(old) == {4} and len(set(old) - set(new)) == 1  # one replica moved, to 4 only


def test_each_partition_keeps_its_replication_factor():
    before = three_brokers_and_a_new_one()
    for partition, new in planner.add_broker(before, 4).items():
        assert len(new) == len(set(new)) == len(before.replicas[partition])


def test_the_new_broker_leads_its_share_of_the_partitions():
    before = three_brokers_and_a_new_one()
    moves = planner.add_broker(before, 4)
    leaders = [replicas[0] for replicas in after(before, moves).values()]
    assert leaders.count(4) == len(leaders) // 4
    assert max(leaders.count(b) for b in (1, 2, 3)) - leaders.count(4) <= 1


def test_partitions_of_no_bytes_give_it_its_share_of_replicas():
    empty = three_brokers_and_a_new_one(sizes={})
    moves = planner.add_broker(empty, 4)
    counts = Loads(empty, after(empty, moves)).count
    assert counts[4] == 24 // 4 and max(counts.values()) - min(counts.values()) <= 1


def test_a_move_never_puts_two_replicas_of_a_spread_partition_on_one_rack():
    racks = {1: "a", 2: "b", 3: "a", 4: "b"}
    before = three_brokers_and_a_new_one(racks=racks)
    moves = planner.add_broker(before, 4)
    assert moves
    for partition, new in moves.items():
        old_racks = {racks[b] for b in before.replicas[partition]}
        assert len({racks[b] for b in new}) >= len(old_racks), (partition, before.replicas[partition], new)


def test_the_same_layout_gives_the_same_plan():
    before = three_brokers_and_a_new_one()
    reordered = Layout(dict(reversed(list(before.brokers.items()))),
                       dict(reversed(list(before.replicas.items()))), before.sizes)
    assert planner.add_broker(reordered, 4) == planner.add_broker(before, 4) == planner.add_broker(before, 4)


def test_a_broker_that_holds_its_share_already_gets_nothing():
    before = three_brokers_and_a_new_one()
    balanced = Layout(before.brokers, after(before, planner.add_broker(before, 4)), before.sizes)
    assert planner.add_broker(balanced, 4) == {}


@pytest.mark.parametrize("broker", [9, -1])
def test_an_unknown_broker_is_one_line(broker):
    with pytest.raises(UsageError, match=rf"^--add-broker {broker}: no such broker \(brokers: 1, 2, 3, 4\)$"):
        planner.add_broker(three_brokers_and_a_new_one(), broker)


def test_add_broker_is_one_job_among_the_others():
    with pytest.raises(UsageError, match="give exactly one of --decommission, --add-broker"):
        plans.require_one_job(1, None, False, 4)
    with pytest.raises(UsageError, match="give exactly one of"):
        plans.moves_for(three_brokers_and_a_new_one(), None, None, False, None)
    assert plans.moves_for(three_brokers_and_a_new_one(), None, None, False, 4) == \
        planner.add_broker(three_brokers_and_a_new_one(), 4)
