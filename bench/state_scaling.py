#!/usr/bin/env python3
"""Benchmark: `jobs state` on a checkpoint with 2 shuffle partitions (the baseline) vs 200.

    .venv/bin/python -m bench.state_scaling [--runs 15] [--webhdfs]

Both checkpoints are the real one in tests/fixtures/spark/ (captured from the weblog-stats job,
2 partitions of 33 deltas each), its state operator given 2 or 200 partitions: each partition
folder holds copies of the real partition 0's delta files and their .crc files, and the
operator's `_metadata/metadata` says the partition count. State files grow 100-fold; the reader
lists each folder once and opens no state file.

--webhdfs also starts a real HDFS for the bench only (the --distributed sandbox's NameNode and
DataNode, with ZooKeeper and one broker, in the temporary folder; stopped at the end), copies the
same two checkpoints there (Hadoop's `hdfs dfs -put` from the sandbox's jars) and times
`streamctl jobs state webhdfs://... -o json` on them. Before any timing, each
checkpoint's answer over WebHDFS must equal its local answer (operators, partitions, versions,
file counts and bytes, problems): the bench stops with an error otherwise.

Timed (the two checkpoints alternated run by run; cold: the first run, warm: the median of
the runs after it, a choice made before any result was seen):
  cli         `streamctl jobs state DIR|URL -o json` as a whole process: what an operator pays.
              Target: 200 / 2 partitions <= 3, locally and over WebHDFS.
  in-process  backends.spark_state.read_state(DIR) alone (local only), to show the listing's own
              growth.
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
from pathlib import Path

from bench.checkpoint_scaling import STREAMCTL, hdfs_sandbox, time_cli
from streamctl.backends.spark_state import read_state

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "spark" / "checkpoint-weblog-stats"
TARGET = 3.0
ANSWER_KEYS = ("stateless", "latest_committed", "state_batch", "operators", "totals", "problems")


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
    metadata.with_name(".metadata.crc").unlink(missing_ok=True)  # its checksum no longer matches
    for partition in range(partitions):
        shutil.copytree(REAL / "state" / "0" / "0", operator / str(partition))
    return target


def time_state_cli(directory: Path | str, runs: int) -> float:
    return time_cli(directory, runs, command="state")


def time_in_process(directory: Path, runs: int, calls: int = 20) -> float:
    per_call = []
    for _ in range(runs):
        started = time.perf_counter()
        for _ in range(calls):
            read_state(str(directory))
        per_call.append((time.perf_counter() - started) / calls)
    return statistics.median(per_call)


def alternated(measure, small, large, runs: int) -> dict[str, tuple[float, float]]:
    """{cold: (2, 200) of the first run, warm: medians of the runs after it}."""
    pairs = [(measure(small, 1), measure(large, 1)) for _ in range(runs)]
    return {"cold": pairs[0], "warm": (statistics.median(p[0] for p in pairs[1:]),
                                       statistics.median(p[1] for p in pairs[1:]))}


def answer(location: Path | str) -> dict:
    """What `streamctl jobs state LOCATION -o json` says of the state, without the location."""
    result = subprocess.run([STREAMCTL, "jobs", "state", str(location), "-o", "json"],
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise SystemExit(f"jobs state {location}: exit {result.returncode}: {result.stderr.strip()}")
    doc = json.loads(result.stdout)
    return {key: doc[key] for key in ANSWER_KEYS}


def put_tree(conf: Path, local: Path, remote: str) -> int:
    """Every file under `local` copied to `remote` on HDFS by Hadoop's own shell (`hdfs dfs -put`:
    FsShell from the sandbox's Hadoop jars, its config in `conf`), one JVM for the whole folder
    (WebHDFS PUTs managed ~15 files/s here: 15 minutes for the 200-partition copy); returns the
    number of files."""
    from streamctl.demo.hdfs import HADOOP
    from streamctl.jvm import maven

    # The client waits 400 ms before its first "is the block written?" poll by default: that
    # wait, once per small file, is most of a copy's time.
    shell = ["java", "-Xmx256m", "-cp", f"{conf}:{maven.classpath(HADOOP)}", "org.apache.hadoop.fs.FsShell",
             "-D", "dfs.client.block.write.locateFollowingBlock.initial.delay.ms=5"]
    for command in (["-mkdir", "-p", remote.rpartition("/")[0] or "/"], ["-put", "-f", str(local), remote]):
        done = subprocess.run([*shell, *command], capture_output=True, text=True, timeout=1800)
        if done.returncode != 0:
            raise SystemExit(f"hdfs dfs {' '.join(command)}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    return sum(1 for path in local.rglob("*") if path.is_file())


def over_webhdfs(tmp: Path, small: Path, large: Path, runs: int) -> dict[str, tuple[float, float]]:
    """The cli figures of the two checkpoints copied to a real HDFS and read over WebHDFS."""
    with hdfs_sandbox(tmp / "hdfs") as (webhdfs, _user):
        url = "webhdfs://" + webhdfs.removeprefix("http://")
        remote = {}
        for directory in (small, large):
            started = time.perf_counter()
            files = put_tree(tmp / "hdfs" / "sandbox" / "conf" / "hadoop", directory, f"/bench/{directory.name}")
            print(f"  {directory.name}: {files} files copied in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            remote[directory] = f"{url}/bench/{directory.name}"
            expected, got = answer(directory), answer(remote[directory])
            if got != expected:
                raise SystemExit(f"jobs state over WebHDFS differs from the local answer for {directory.name}:\n"
                                 f"  local:   {expected}\n  webhdfs: {got}")
        return {f"cli {k}": v for k, v in alternated(time_state_cli, remote[small], remote[large], runs).items()}


def print_table(where: str, results: dict[str, tuple[float, float]]) -> None:
    print(where)
    print(f"{'measure':<16}{'2':>12}{'200':>12}{'ratio':>8}")
    for name, (two, many) in results.items():
        print(f"{name:<16}{two * 1000:>9.2f} ms{many * 1000:>9.2f} ms{many / two:>8.2f}")
    ratio = results["cli warm"][1] / results["cli warm"][0]
    print(f"target (cli warm) ratio <= {TARGET:g}: {'met' if ratio <= TARGET else 'NOT met'} ({ratio:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--runs", type=int, default=15, help="at least 2: one cold, the rest warm")
    parser.add_argument("--webhdfs", action="store_true",
                        help="Also start a real HDFS for the bench and time the two checkpoints over WebHDFS.")
    args = parser.parse_args()
    if args.runs < 2:
        parser.error("--runs must be at least 2: one cold, the rest warm")
    tables = {}
    with tempfile.TemporaryDirectory(prefix="state-bench-") as tmp:
        small, large = generate(Path(tmp) / "two", 2), generate(Path(tmp) / "two-hundred", 200)
        for directory, partitions in ((small, 2), (large, 200)):
            [operator] = read_state(str(directory)).operators
            assert operator.partitions == tuple(range(partitions)) and operator.num_partitions == partitions
        local = {}
        for name, measure in (("cli", time_state_cli), ("in-process", time_in_process)):
            local |= {f"{name} {k}": v for k, v in alternated(measure, small, large, args.runs).items()}
        tables["local folders"] = local
        if args.webhdfs:
            tables["HDFS over WebHDFS (NameNode and DataNode on this machine)"] = over_webhdfs(
                Path(tmp), small, large, args.runs)
    print(f"jobs state, 2 vs 200 partitions (66 vs 6,600 delta files); cold: run 1, "
          f"warm: median of runs 2-{args.runs}; load {os.getloadavg()[0]:.2f}")
    for where, results in tables.items():
        print_table(where, results)


if __name__ == "__main__":
    main()
