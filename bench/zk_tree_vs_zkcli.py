"""Benchmark: `streamctl zk tree /bench` against ZooKeeper's own CLI `ls -R /bench`.

    .venv/bin/python bench/zk_tree_vs_zkcli.py [--runs 3] [--znodes 10000]

Starts its own sandbox (ZooKeeper + 1 broker, tmp dir, random ports), creates 10,000 znodes
under /bench (100 parents x 99 children, 20 bytes each), then times both whole processes,
interleaved, in the same run:
    streamctl   `streamctl zk tree /bench` (Python start-up, config, session, pipelined walk, output)
    zkCli       `java ... org.apache.zookeeper.ZooKeeperMain -server host:port ls -R /bench` from the
                fetched Kafka jar set (JVM start-up, session, one blocking getChildren per znode)
and prints each run, the medians and the ratio zkCli / streamctl (target: at least 3x).
The sandbox is stopped and wiped at the end.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

from streamctl.jvm.java import tool_argv
from streamctl.sandbox.stack import Sandbox

STREAMCTL = str(Path(sys.executable).with_name("streamctl"))
PAYLOAD = b"x" * 20


def populate(hosts: str, total: int) -> int:
    """/bench with parents of 99 children each until `total` znodes are below it."""
    from kazoo.client import KazooClient

    client = KazooClient(hosts=hosts, timeout=10)
    client.start(timeout=15)
    try:
        client.ensure_path("/bench")
        parents = max(1, total // 100)
        paths = [f"/bench/g{i:04d}" for i in range(parents)]
        paths += [f"/bench/g{i:04d}/n{j:03d}" for i in range(parents) for j in range(total // parents - 1)]
        paths = paths[:total]
        inflight: deque = deque()
        for path in paths:  # parents come first, so every child's parent exists when it is sent
            inflight.append(client.create_async(path, b"" if path.count("/") == 2 else PAYLOAD))
            if len(inflight) >= 500:
                inflight.popleft().get(timeout=30)
        while inflight:
            inflight.popleft().get(timeout=30)
        return len(paths)
    finally:
        client.stop()
        client.close()


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, list[str]]:
    """Wall-clock seconds and CPU seconds (user + system, the process and its threads) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600,
                            stdin=subprocess.DEVNULL)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({result.returncode}): {result.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu, result.stdout.splitlines()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--znodes", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="zk-bench-") as tmp:
        tmp_path = Path(tmp)
        config = tmp_path / "config.yaml"
        sandbox = Sandbox(root=tmp_path / "sandbox", config_path=config,
                          report=lambda line: print(f"  {line}", file=sys.stderr))
        try:
            state, _ = sandbox.up(brokers=1, with_addons=False)
            hosts = state.zookeeper_hosts
            created = populate(hosts, args.znodes)
            print(f"ZooKeeper {hosts}: {created} znodes under /bench")
            env = {**os.environ, "STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(tmp_path / "state")}
            ours = [STREAMCTL, "zk", "tree", "/bench"]
            theirs = tool_argv("org.apache.zookeeper.ZooKeeperMain", "-server", hosts, "ls", "-R", "/bench")
            for _ in range(2):  # warm the page cache and ZooKeeper's JIT, for both alike
                timed(ours, env)
                timed(theirs, env)
            ours_s, theirs_s, ours_cpu, theirs_cpu = [], [], [], []
            for run in range(1, args.runs + 1):
                took, cpu, lines = timed(ours, env)
                assert len(lines) == created + 1, f"streamctl listed {len(lines)} lines"
                ours_s.append(took)
                ours_cpu.append(cpu)
                took, cpu, lines = timed(theirs, env)
                listed = sum(1 for line in lines if line.startswith("/bench"))
                assert listed == created + 1, f"zkCli listed {listed} paths"
                theirs_s.append(took)
                theirs_cpu.append(cpu)
                print(f"run {run}: streamctl zk tree {ours_s[-1]:.3f} s (cpu {ours_cpu[-1]:.2f} s)   "
                      f"zkCli ls -R {theirs_s[-1]:.3f} s (cpu {theirs_cpu[-1]:.2f} s)   "
                      f"load average {os.getloadavg()[0]:.2f}")
            ours_m, theirs_m = statistics.median(ours_s), statistics.median(theirs_s)
            print(f"median wall: streamctl zk tree {ours_m:.3f} s, zkCli ls -R {theirs_m:.3f} s "
                  f"({created + 1} znodes, whole processes); load average {os.getloadavg()[0]:.1f}")
            print(f"median cpu:  streamctl {statistics.median(ours_cpu):.2f} s, "
                  f"zkCli {statistics.median(theirs_cpu):.2f} s")
            print(f"ratio zkCli / streamctl (wall): {theirs_m / ours_m:.2f}x (target >= 3x)")
        finally:
            sandbox.down(wipe=True)


if __name__ == "__main__":
    main()
