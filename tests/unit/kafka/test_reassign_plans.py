"""The reassignment planner (rack-aware, deterministic, weighed by size on disk) and the checks
of a hand-edited plan file and of a throttle rate."""

from __future__ import annotations

import json

import pytest

from streamctl.errors import UsageError
from streamctl.kafka.reassign import planner, plans
from streamctl.kafka.reassign.planner import Layout

MB = 1_000_000


def layout(racks=None, sizes=None) -> Layout:
    brokers = racks or {1: None, 2: None, 3: None, 4: None}
    replicas = {("orders", 0): [1, 2], ("orders", 1): [2, 3], ("orders", 2): [3, 1], ("orders", 3): [1, 3],
                ("audit", 0): [2, 1], ("audit", 1): [3, 2]}
    return Layout(brokers, replicas, sizes or {p: (i + 1) * MB for i, p in enumerate(sorted(replicas))})


def test_decommission_moves_every_replica_off_the_broker_and_keeps_the_others():
    before = layout()
    moves = planner.decommission(before, 1)
    assert sorted(moves) == sorted(p for p, r in before.replicas.items() if 1 in r)
    for partition, new in moves.items():
        old = before.replicas[partition]
        assert 1 not in new and len(new) == len(old) == len(set(new))
        assert [b for b in new if b in old] == [b for b in old if b != 1]  # survivors keep their places


def test_decommission_fills_the_empty_broker_with_the_biggest_partition_first():
    moves = planner.decommission(layout(), 1)
    biggest = max(moves, key=lambda p: layout().size(p))
    assert 4 in moves[biggest]  # broker 4 held nothing: the least loaded takes the biggest move


def test_the_same_layout_gives_the_same_plan():
    assert planner.decommission(layout(), 3) == planner.decommission(layout(), 3)
    assert planner.rebalance(layout()) == planner.rebalance(layout())
    reordered = Layout(dict(reversed(list(layout().brokers.items()))),
                       dict(reversed(list(layout().replicas.items()))), layout().sizes)
    assert planner.decommission(reordered, 3) == planner.decommission(layout(), 3)


def test_a_new_replica_goes_to_a_rack_the_partition_does_not_use():
    racked = layout(racks={1: "a", 2: "a", 3: "b", 4: "b"})
    racked.replicas[("orders", 0)] = [1, 3]
    moves = planner.decommission(racked, 1)
    # orders/0 keeps 3 (rack b): its new replica must be on rack a, so broker 2, although 4 is empty
    assert moves[("orders", 0)] == [2, 3]


def test_replication_factor_grows_and_shrinks_only_the_topic():
    grown = planner.replication_factor(layout(), "audit", 3)
    assert set(grown) == {("audit", 0), ("audit", 1)} and all(len(r) == 3 for r in grown.values())
    shrunk = planner.replication_factor(layout(), "orders", 1)
    assert all(new == [layout().replicas[p][0]] for p, new in shrunk.items())  # the preferred leader stays


def test_rebalance_narrows_the_gap_in_bytes_between_brokers():
    before = layout()
    moves = planner.rebalance(before)
    after = {**before.replicas, **moves}

    def spread(replicas):
        load = planner.Loads(before, replicas).bytes
        return max(load.values()) - min(load.values())

    assert spread(after) < spread(before.replicas)


def test_bad_jobs_are_one_line():
    with pytest.raises(UsageError, match="no such broker"):
        planner.decommission(layout(), 9)
    with pytest.raises(UsageError, match="must be 1 to 4"):
        planner.replication_factor(layout(), "orders", 5)
    with pytest.raises(UsageError, match="no topic"):
        planner.replication_factor(layout(), "nope", 2)
    with pytest.raises(UsageError, match="exactly one"):
        plans.moves_for(layout(), 1, "orders=3", False)


@pytest.mark.parametrize("job, label, moves", [
    (plans.Job(decommission=1), "decommission 1", lambda lay: planner.decommission(lay, 1)),
    (plans.Job(add_broker=4), "add-broker 4", lambda lay: planner.add_broker(lay, 4)),
    (plans.Job(replication_factor="orders=3"), "replication-factor orders=3",
     lambda lay: planner.replication_factor(lay, "orders", 3)),
    (plans.Job(rebalance=True), "rebalance", planner.rebalance),
])
def test_a_job_names_itself_as_the_cli_does_and_plans_its_moves(job, label, moves):
    assert job.label == label
    assert job.moves(layout()) == moves(layout())


def test_a_job_with_no_field_or_two_is_refused():
    for job in (plans.Job(), plans.Job(decommission=1, rebalance=True)):
        with pytest.raises(UsageError, match="exactly one"):
            job.moves(layout())


def test_the_bytes_per_broker_and_the_estimate_follow_the_sizes():
    before = layout()
    moves = planner.decommission(before, 1)
    described = plans.describe(before, moves, 2 * MB)
    received = sum(v["in"] for v in described["bytes_per_broker"].values())
    assert received == described["bytes_to_move"] == sum(before.size(p) for p in moves)
    busiest = max(max(v["in"], v["out"]) for v in described["bytes_per_broker"].values())
    assert described["estimate_seconds"] == round(busiest / (2 * MB), 1)


@pytest.mark.parametrize("text, rate", [("5000000", 5_000_000), ("10MB", 10 * MB), ("1MiB/s", 1024**2), ("1.5kb", 1500)])
def test_throttle_rates(text, rate):
    assert plans.parse_rate(text) == rate


@pytest.mark.parametrize("text", ["0", "0MB", "-5", "fast", "10 parsecs"])
def test_bad_throttles_are_one_line(text):
    with pytest.raises(UsageError, match="--throttle"):
        plans.parse_rate(text)


def test_throttled_replicas_name_only_the_moving_partitions():
    before = layout()
    moves = {("orders", 0): [4, 2]}
    assert plans.throttled_replicas(before, moves) == {
        "orders": {"leader.replication.throttled.replicas": "0:1,0:2",
                   "follower.replication.throttled.replicas": "0:4"}}


def write(tmp_path, partitions):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"version": 1, "partitions": partitions}))
    return str(path)


def test_a_plan_file_from_plan_is_read_back(tmp_path):
    before = layout()
    described = plans.describe(before, planner.decommission(before, 1), None)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(described))
    assert plans.load_plan_file(str(path), before) == planner.decommission(before, 1)


@pytest.mark.parametrize("partitions, error", [
    ([{"topic": "orders", "partition": 0, "replicas": [1, 7]}], "unknown broker 7"),
    ([{"topic": "orders", "partition": 0, "replicas": [2, 2]}], "a broker appears twice"),
    ([{"topic": "orders", "partition": 0, "replicas": []}], "the replica list is empty"),
    ([{"topic": "orders", "partition": 9, "replicas": [1, 2]}], "no such partition"),
    ([{"topic": "orders", "partition": "0", "replicas": [1, 2]}], "each partition needs"),
    ([], "no \"partitions\" list"),
])
def test_hand_edited_plan_files_are_one_line(tmp_path, partitions, error):
    with pytest.raises(UsageError, match=error) as raised:
        plans.load_plan_file(write(tmp_path, partitions), layout())
    assert "\n" not in str(raised.value)


def test_a_plan_file_that_is_not_json_or_missing_is_one_line(tmp_path):
    garbled = tmp_path / "plan.json"
    garbled.write_text("{not json")
    with pytest.raises(UsageError, match="not JSON"):
        plans.load_plan_file(str(garbled), layout())
    with pytest.raises(UsageError, match="No such file"):
        plans.load_plan_file(str(tmp_path / "missing.json"), layout())


def skewed(racks: dict[int, str | None], topics: int = 40) -> Layout:
    """Replicas on brokers 1 and 2 only (some on a broker gone, 9), sizes uneven, some empty or unknown."""
    replicas, sizes = {}, {}
    for t in range(topics):
        for p in range(6):
            partition = (f"t{t:02d}", p)
            replicas[partition] = [1, 2] if p % 2 else [2, 1, 9] if t % 7 == 0 else [2, 1]
            if (t + p) % 4:
                sizes[partition] = ((t * 7 + p * 3) % 11) * 1000 if t % 5 else 0
    return Layout(racks, replicas, sizes)


def rebalanced_by_search(before: Layout) -> dict[tuple[str, int], set[int]]:
    """The rebalance's moves as its docstring states them, each step a search of every partition."""
    targets = {p: list(r) for p, r in before.replicas.items()}
    loads = planner.Loads(before, targets)
    for _ in range(len(targets) * len(before.brokers)):
        heavy, light = max(before.brokers, key=loads.key), min(before.brokers, key=loads.key)
        gap, crowded = loads.bytes[heavy] - loads.bytes[light], loads.count[heavy] - loads.count[light] > 1
        movable = [p for p in planner.biggest_first(before, targets)
                   if heavy in targets[p] and light not in targets[p]
                   and (0 < before.size(p) < gap or (before.size(p) == 0 and gap == 0 and crowded))
                   and len({before.brokers.get(b) for b in targets[p] if b != heavy} | {before.brokers[light]})
                   >= len({before.brokers.get(b) for b in targets[p]})]
        if not movable:
            break
        replicas = targets[movable[0]]
        replicas[replicas.index(heavy)] = light
        loads.add(light, before.size(movable[0]))
        loads.add(heavy, before.size(movable[0]), -1)
    return {p: set(r) for p, r in targets.items()}


@pytest.mark.parametrize("racks", [{1: None, 2: None, 3: None},
                                   {1: "a", 2: "b", 3: "a", 4: "b"},
                                   {1: "a", 2: "a", 3: "b"}])
def test_rebalance_moves_what_a_search_of_every_partition_would(racks):
    before = skewed(racks)
    moves = planner.rebalance(before)
    assert moves  # brokers 3 (and 4) start empty: there is work
    assert {p: set(r) for p, r in {**before.replicas, **moves}.items()} == rebalanced_by_search(before)
