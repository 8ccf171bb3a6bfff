#!/usr/bin/env python3
"""The rebalance planner alone (no cluster, no I/O), on the layout bench/reassign_plan.py builds,
with sizes that let the brokers' bytes balance exactly, so empty partitions move too.

    python -m bench.reassign_planner [--topics 300] [--partitions 6] [--runs 3]

Prints the moves and the median seconds of planner.rebalance over --runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

from streamctl.kafka.reassign.planner import Layout, rebalance


def skewed_layout(topics: int, partitions: int) -> Layout:
    replicas, sizes = {}, {}
    for i in range(topics):
        for p in range(partitions):
            replicas[(f"rebalance-{i:04d}", p)] = [1, 2] if p % 2 == 0 else [2, 1]
            if i % 3 == 0 and p % 2 == 0:
                sizes[(f"rebalance-{i:04d}", p)] = 20 * (1 + (i + p) % 5) * 1070
    return Layout({1: None, 2: None, 3: None}, replicas, sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    layout = skewed_layout(args.topics, args.partitions)
    took = []
    for _ in range(args.runs):
        started = time.perf_counter()
        moves = rebalance(layout)
        took.append(time.perf_counter() - started)
    print(f"{args.topics} x {args.partitions} partitions: {len(moves)} moves, "
          f"rebalance {statistics.median(took):.3f} s (median of {args.runs})")


if __name__ == "__main__":
    main()
