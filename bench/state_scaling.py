#!/usr/bin/env python3
"""Benchmark: `jobs state` on a checkpoint with 2 shuffle partitions (the baseline) vs 200.

    .venv/bin/python -m bench.state_scaling [--runs 15]

Both checkpoints are the real one in tests/fixtures/spark/ (captured from the weblog-stats job,
2 partitions of 33 deltas each), its state operator given 2 or 200 partitions: each partition
folder holds copies of the real partition 0's delta files and their .crc files, and the
operator's `_metadata/metadata` says the partition count. State files grow 100-fold; the reader
lists each folder once and opens no state file.

Timed (the two checkpoints alternated run by run; cold: the first run, warm: the median of
the runs after it, a choice made before any result was seen):
  cli         `streamctl jobs state DIR -o json` as a whole process: what an operator pays.
              Target: 200 / 2 partitions <= 3.
  in-process  backends.spark_state.read_state(DIR) alone, to show the listing's own growth.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.checkpoint_scaling import time_cli
from streamctl.backends.spark_state import read_state

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "spark" / "checkpoint-weblog-stats"
TARGET = 3.0


def generate(target: Path, partitions: int) -> Path:
    """The real checkpoint with its operator spread over `partitions` partitions."""
    shutil.copytree(REAL, target, ignore=shutil.ignore_patterns("state"))
    operator = target / "state" / "0"
    shutil.copytree(REAL / "state" / "0" / "_metadata", operator / "_metadata")
    metadata = operator / "_metadata" / "metadata"
    header, line = metadata.read_text().splitlines()[:2]
    meta = json.loads(line)
    for store in meta["stateStoreInfo"]:
        store["numPartitions"] = partitions
    metadata.write_text(f"{header}\n{json.dumps(meta, separators=(',', ':'))}")
    for partition in range(partitions):
        shutil.copytree(REAL / "state" / "0" / "0", operator / str(partition))
    return target


def time_state_cli(directory: Path, runs: int) -> float:
    return time_cli(directory, runs, command="state")


def time_in_process(directory: Path, runs: int, calls: int = 20) -> float:
    per_call = []
    for _ in range(runs):
        started = time.perf_counter()
        for _ in range(calls):
            read_state(str(directory))
        per_call.append((time.perf_counter() - started) / calls)
    return statistics.median(per_call)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--runs", type=int, default=15, help="at least 2: one cold, the rest warm")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="state-bench-") as tmp:
        small, large = generate(Path(tmp) / "two", 2), generate(Path(tmp) / "two-hundred", 200)
        for directory, partitions in ((small, 2), (large, 200)):
            [operator] = read_state(str(directory)).operators
            assert operator.partitions == tuple(range(partitions)) and operator.num_partitions == partitions
        results = {}
        for name, measure in (("cli", time_state_cli), ("in-process", time_in_process)):
            pairs = [(measure(small, 1), measure(large, 1)) for _ in range(args.runs)]
            results[f"{name} cold"] = pairs[0]
            results[f"{name} warm"] = (statistics.median(p[0] for p in pairs[1:]),
                                       statistics.median(p[1] for p in pairs[1:]))
    print(f"jobs state on local folders, 2 vs 200 partitions (66 vs 6,600 delta files); cold: run 1, "
          f"warm: median of runs 2-{args.runs}; load {os.getloadavg()[0]:.2f}")
    print(f"{'measure':<16}{'2':>12}{'200':>12}{'ratio':>8}")
    for name, (two, many) in results.items():
        print(f"{name:<16}{two * 1000:>9.2f} ms{many * 1000:>9.2f} ms{many / two:>8.2f}")
    ratio = results["cli warm"][1] / results["cli warm"][0]
    print(f"target (cli) ratio <= {TARGET:g}: {'met' if ratio <= TARGET else 'MISSED'} ({ratio:.2f})")


if __name__ == "__main__":
    main()
