#!/usr/bin/env python3
"""Benchmark: checkpoint status on a 10-batch checkpoint (the baseline) vs a 10,000-batch one.

    .venv/bin/python bench/checkpoint_scaling.py [--runs 15]

Both checkpoints are generated from the real one in tests/fixtures/spark/ (captured from the
weblog-stats job): every offsets/<N> and commits/<N> copies the real files' format (v1 header,
metadata line with batchWatermarkMs/batchTimestampMs/conf, the Kafka source line) with growing
offsets, plus the .crc files Spark writes beside them.

Timed (median of --runs):
  cli         `streamctl jobs checkpoint DIR -o json` as a whole process: what an operator or a
              cron check pays. Target: 10,000 / 10 batches <= 1.2.
  in-process  backends.spark.read_checkpoint(DIR) alone (median of 200 calls per run), to show
              where the remaining growth is: listing offsets/ and commits/ (two directory reads);
              the number of files PARSED is the same (metadata, two offsets, one commit).
"""

from __future__ import annotations

import argparse
import json
import shutil
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from streamctl.backends.spark import read_checkpoint

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "spark" / "checkpoint-weblog-stats"
STREAMCTL = str(Path(sys.executable).with_name("streamctl"))


def generate(target: Path, batches: int) -> Path:
    """A checkpoint with `batches` committed batches in the real files' format."""
    shutil.copytree(REAL, target, ignore=shutil.ignore_patterns("offsets", "commits"))
    latest = max(int(p.name) for p in (REAL / "offsets").iterdir() if p.name.isdigit())
    header, meta, source = (REAL / "offsets" / str(latest)).read_text().splitlines()[:3]
    meta = json.loads(meta)
    topics = json.loads(source)
    commit_header, commit = (REAL / "commits" / str(latest)).read_text().splitlines()[:2]
    crc = (REAL / "offsets" / f".{latest}.crc").read_bytes()
    for folder in ("offsets", "commits"):
        (target / folder).mkdir()
    for n in range(batches):
        meta["batchTimestampMs"] += 3000
        offsets = {t: {p: o + 10 * n for p, o in parts.items()} for t, parts in topics.items()}
        (target / "offsets" / str(n)).write_text(
            f"{header}\n{json.dumps(meta, separators=(',', ':'))}\n{json.dumps(offsets, separators=(',', ':'))}")
        (target / "commits" / str(n)).write_text(f"{commit_header}\n{commit}")
        (target / "offsets" / f".{n}.crc").write_bytes(crc)
        (target / "commits" / f".{n}.crc").write_bytes(crc)
    return target


def time_cli(directory: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = subprocess.run([STREAMCTL, "jobs", "checkpoint", str(directory), "-o", "json"],
                                capture_output=True, text=True, timeout=60)
        times.append(time.perf_counter() - started)
        assert result.returncode == 0, result.stderr
    return statistics.median(times)


def time_in_process(directory: Path, runs: int, calls: int = 200) -> float:
    per_call = []
    for _ in range(runs):
        started = time.perf_counter()
        for _ in range(calls):
            read_checkpoint(directory)
        per_call.append((time.perf_counter() - started) / calls)
    return statistics.median(per_call)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="checkpoint-bench-") as tmp:
        small = generate(Path(tmp) / "ten", 10)
        large = generate(Path(tmp) / "ten-thousand", 10_000)
        for directory, batches in ((small, 10), (large, 10_000)):
            status = read_checkpoint(directory)
            assert status.latest_committed == batches - 1 and not status.problems, status
        time_cli(small, 2)  # warm the page cache and the interpreter's bytecode
        results = {}
        for name, measure in (("cli", time_cli), ("in-process", time_in_process)):
            # Alternate the two directories, one run at a time, so load drift hits both alike.
            pairs = [(measure(small, 1), measure(large, 1)) for _ in range(args.runs)]
            results[name] = (statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs),
                             os.getloadavg()[0])
    print(f"checkpoint status, median of {args.runs} runs; baseline: the 10-batch checkpoint")
    print(f"{'measure':<12}{'10 batches':>14}{'10,000 batches':>17}{'ratio':>9}{'load avg':>10}")
    for name, (ten, many, load) in results.items():
        print(f"{name:<12}{ten * 1000:>11.3f} ms{many * 1000:>14.3f} ms{many / ten:>9.2f}{load:>10.2f}")
    ratio = results["cli"][1] / results["cli"][0]
    print(f"target (cli) ratio <= 1.2: {'met' if ratio <= 1.2 else 'MISSED'} ({ratio:.2f})")


if __name__ == "__main__":
    main()
