#!/usr/bin/env python3
"""Benchmark: checkpoint status on a 10-batch checkpoint (the baseline) vs a 10,000-batch one.

    .venv/bin/python bench/checkpoint_scaling.py [--runs 15]
    .venv/bin/python bench/checkpoint_scaling.py --hdfs [--runs 15]

--hdfs starts a real HDFS (the --distributed sandbox's NameNode and DataNode, with ZooKeeper and
one broker, in a temporary folder), writes both checkpoints there and reads them over WebHDFS.
The 10,000-batch one keeps only its last 100 batches, the gap at the start that Spark's cleanup
(spark.sql.streaming.minBatchesToRetain, 100) leaves; `cli` then runs
`streamctl jobs checkpoint webhdfs://... -o json`.

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
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from streamctl.backends.spark import read_checkpoint

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "spark" / "checkpoint-weblog-stats"
STREAMCTL = str(Path(sys.executable).with_name("streamctl"))


def generate(target: Path, batches: int, keep: int | None = None) -> Path:
    """A checkpoint with `batches` committed batches in the real files' format (only the last
    `keep` of them on disk when given, as after Spark's cleanup)."""
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
        if keep is not None and n < batches - keep:
            continue
        offsets = {t: {p: o + 10 * n for p, o in parts.items()} for t, parts in topics.items()}
        (target / "offsets" / str(n)).write_text(
            f"{header}\n{json.dumps(meta, separators=(',', ':'))}\n{json.dumps(offsets, separators=(',', ':'))}")
        (target / "commits" / str(n)).write_text(f"{commit_header}\n{commit}")
        (target / "offsets" / f".{n}.crc").write_bytes(crc)
        (target / "commits" / f".{n}.crc").write_bytes(crc)
    return target


def time_cli(directory: Path | str, runs: int, command: str = "checkpoint") -> float:
    """Median wall time of `streamctl jobs COMMAND DIR -o json` as a whole process."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = subprocess.run([STREAMCTL, "jobs", command, str(directory), "-o", "json"],
                                capture_output=True, text=True, timeout=60)
        times.append(time.perf_counter() - started)
        assert result.returncode == 0, result.stderr
    return statistics.median(times)


def time_in_process(directory: Path | str, runs: int, calls: int = 200, store_factory=lambda: None) -> float:
    per_call = []
    for _ in range(runs):
        started = time.perf_counter()
        for _ in range(calls):
            read_checkpoint(directory, store_factory())
        per_call.append((time.perf_counter() - started) / calls)
    return statistics.median(per_call)


def measure_all(small, large, runs: int, in_process) -> dict:
    """{measure: (cold 10, cold 10k, median 10, median 10k, load)}. The first call of each
    measure is the cold figure; the warm figures are the medians of the `runs` after it."""
    results = {}
    for name, measure in (("cli", time_cli), ("in-process", in_process)):
        cold = (measure(small, 1), measure(large, 1))
        # Alternate the two checkpoints, one run at a time, so load drift hits both alike.
        pairs = [(measure(small, 1), measure(large, 1)) for _ in range(runs)]
        results[name] = (*cold, statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs),
                         os.getloadavg()[0])
    return results


def local(runs: int) -> tuple[str, dict]:
    with tempfile.TemporaryDirectory(prefix="checkpoint-bench-") as tmp:
        small = generate(Path(tmp) / "ten", 10)
        large = generate(Path(tmp) / "ten-thousand", 10_000)
        for directory, batches in ((small, 10), (large, 10_000)):
            status = read_checkpoint(directory)
            assert status.latest_committed == batches - 1 and not status.problems, status
        return "local folders", measure_all(small, large, runs, time_in_process)


@contextmanager
def hdfs_sandbox(tmp: Path) -> Iterator[tuple[str, str]]:
    """A real HDFS in `tmp` (the --distributed sandbox's NameNode and DataNode, with ZooKeeper
    and one broker, the fewest roles `up` starts them with), stopped at the end whatever happens:
    yields (WebHDFS URL http://host:port, user)."""
    from streamctl.demo.hdfs import ROLE
    from streamctl.sandbox.stack import Sandbox

    sandbox = Sandbox(root=tmp / "sandbox", config_path=tmp / "config.yaml",
                      report=lambda line: print(f"  {line}", file=sys.stderr))
    try:
        state, _ = sandbox.up(brokers=1, addon_roles=(ROLE,), distributed=True)
        yield state.extras["hdfs"]["webhdfs_url"], state.extras["hdfs"]["user"]
    finally:
        sandbox.down()


def hdfs(runs: int) -> tuple[str, dict]:
    from streamctl.backends.checkpoint_store import WebHdfsStore

    with tempfile.TemporaryDirectory(prefix="checkpoint-bench-") as tmp, hdfs_sandbox(Path(tmp)) as (webhdfs, user):
        def store():
            return WebHdfsStore(webhdfs, user, timeout=10.0)
        for name, batches, keep in (("ten", 10, None), ("ten-thousand", 10_000, 100)):
            store().fs.put(str(generate(Path(tmp) / name, batches, keep)), f"/bench/{name}", recursive=True)
            reader = store()
            status = read_checkpoint(f"/bench/{name}", reader)
            assert status.latest_committed == batches - 1 and not status.problems, status
            print(f"  {name}: {reader.calls} WebHDFS calls per read", file=sys.stderr)
        url = "webhdfs://" + webhdfs.removeprefix("http://")
        results = measure_all(f"{url}/bench/ten", f"{url}/bench/ten-thousand", runs,
                              lambda path, n: time_in_process(path.split(url, 1)[-1], n, calls=20,
                                                              store_factory=store))
    return "HDFS over WebHDFS (10,000 batches: the last 100 kept)", results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--hdfs", action="store_true", help="Read the checkpoints on a real HDFS over WebHDFS.")
    args = parser.parse_args()
    where, results = hdfs(args.runs) if args.hdfs else local(args.runs)
    print(f"checkpoint status on {where}; baseline: the 10-batch checkpoint")
    print(f"cold: the first call; warm: median of the {args.runs} runs after it")
    print(f"{'measure':<12}{'cold 10':>12}{'cold 10,000':>14}{'warm 10':>12}{'warm 10,000':>14}{'ratio':>8}{'load':>7}")
    for name, (cold_ten, cold_many, ten, many, load) in results.items():
        print(f"{name:<12}{cold_ten * 1000:>9.2f} ms{cold_many * 1000:>11.2f} ms{ten * 1000:>9.2f} ms"
              f"{many * 1000:>11.2f} ms{many / ten:>8.2f}{load:>7.2f}")
    for name in results if args.hdfs else ("cli",):  # locally, in-process shows where the growth is
        ratio = results[name][3] / results[name][2]
        print(f"target ({name}) warm ratio <= 1.2: {'met' if ratio <= 1.2 else 'MISSED'} ({ratio:.2f})")


if __name__ == "__main__":
    main()
