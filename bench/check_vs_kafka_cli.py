#!/usr/bin/env python3
"""Benchmark: `streamctl check` against Kafka's own CLI tools and `kcat -L`, same cluster, same run.

    .venv/bin/python -m bench.check_vs_kafka_cli [--topics 300] [--partitions 6] [--groups 300] [--runs 3]
                                                 [--warmup 3] [--bootstrap HOST:PORT,...] [--keep]

Starts its own sandbox (3 brokers, ZooKeeper) in a temporary directory, creates the topics and
groups with committed offsets, waits for the brokers to go quiet after that (under a quarter
of a core for 5 s, at most 2 minutes), runs every command --warmup times (default 10; the first run is
reported), then times, as whole processes (median of --runs):
  streamctl   `streamctl check --format json` (every rule, lag of every group)
  kafka CLI   TopicCommand --describe with --under-replicated-partitions, then
              --unavailable-partitions, then --under-min-isr-partitions (the three are exclusive),
              plus ConsumerGroupCommand --describe --all-groups, as kafka-topics.sh /
              kafka-consumer-groups.sh run them (java -cp <the fetched jars> ...)
  kcat -L     one metadata round trip (Debian's kcat): the floor
Targets: streamctl >= 10x faster than the Kafka CLI pair, within 3x of kcat -L.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from bench.scene import populate, wait_until_quiet
from streamctl.jvm.java import tool_argv
from streamctl.sandbox.stack import Sandbox

STREAMCTL = str(Path(sys.executable).with_name("streamctl"))


def run(argv: list[str], env: dict[str, str], ok=(0,)) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - started
    if result.returncode not in ok:
        raise SystemExit(f"{argv[0]} ... failed ({result.returncode}): {result.stderr[-500:]}")
    return took


def timed(commands: dict[str, tuple[list[str], tuple[int, ...]]], env: dict[str, str], runs: int,
          warmup: int) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Seconds of each command's first run, and of each of the `runs` after `warmup` rounds.

    The first run warms the page cache and, for check, starts its lag history as cron's first
    run does. A sandbox's brokers were started a minute ago: until their request handlers have
    run a few thousand times the JVM interprets them, which no long-running cluster does, so
    `warmup` rounds of every command go untimed. Then the commands take turns, so a busy moment
    of the machine falls on all of them alike rather than on one."""
    first = {name: run(argv, env, ok) for name, (argv, ok) in commands.items()}
    for _ in range(warmup - 1):
        for argv, ok in commands.values():
            run(argv, env, ok)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (argv, ok) in commands.items():
            samples[name].append(run(argv, env, ok))
    return first, samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--groups", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=10,
                        help="untimed rounds of every command first (the first one is reported)")
    parser.add_argument("--keep", action="store_true", help="leave the sandbox running")
    parser.add_argument("--bootstrap", metavar="HOST:PORT,...",
                        help="measure this already populated 3-broker cluster instead of a new sandbox")
    args = parser.parse_args()
    kcat = shutil.which("kcat")
    if not kcat:
        raise SystemExit("kcat not found: apt-get install kcat")

    tmp = Path(tempfile.mkdtemp(prefix="streamctl-bench-"))
    sandbox = Sandbox(root=tmp / "state" / "streamctl" / "sandbox", config_path=tmp / "config.yaml")
    if args.bootstrap:
        bootstrap = args.bootstrap
    else:
        print(f"sandbox in {tmp}", flush=True)
        state, _ = sandbox.up(brokers=3, with_addons=False)  # Kafka only: no Flume/Spark load meanwhile
        bootstrap = state.bootstrap_servers
    try:
        if not args.bootstrap:
            started = time.perf_counter()
            populate(bootstrap, args.topics, args.partitions, args.groups)
            print(f"populated {args.topics} topics x {args.partitions} partitions (rf 3), "
                  f"{args.groups} groups in {time.perf_counter() - started:.1f} s", flush=True)
            waited, cores = wait_until_quiet([s.pid for s in sandbox.status() if s.pid])
            print(f"brokers quiet after {waited:.0f} s more ({cores:.2f} of a core)", flush=True)
        config = tmp / "bench.yaml"
        config.write_text(yaml.safe_dump({"current-context": "bench", "contexts": {"bench": {
            "kafka": {"bootstrap_servers": bootstrap, "expected_brokers": 3, "timeout": 30},
            "thresholds": {"lag_records_warn": 10**9, "lag_records_crit": 10**9,
                           "lag_seconds_warn": 10**9, "lag_seconds_crit": 10**9}}}}))
        env = {**os.environ, "STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(tmp / "state")}

        topic_cmd = "org.apache.kafka.tools.TopicCommand"
        group_cmd = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
        commands = {
            "streamctl": ([STREAMCTL, "check", "--format", "json", "--timeout", "120"], (0, 1)),
            **{flag: (tool_argv(topic_cmd, "--bootstrap-server", bootstrap, "--describe", flag), (0,))
               for flag in ("--under-replicated-partitions", "--unavailable-partitions",
                            "--under-min-isr-partitions")},  # the three are exclusive: one run each
            "groups": (tool_argv(group_cmd, "--bootstrap-server", bootstrap, "--describe", "--all-groups"), (0,)),
            "kcat": ([kcat, "-L", "-b", bootstrap], (0,)),
        }
        first, samples = timed(commands, env, args.runs, args.warmup)
        medians = {name: statistics.median(values) for name, values in samples.items()}
        ours, kafka_groups, floor = medians["streamctl"], medians["groups"], medians["kcat"]
        kafka_topics = sum(medians[flag] for flag in commands if flag.startswith("--"))
    finally:
        if not args.keep:
            if not args.bootstrap:
                sandbox.down(wipe=True)
            shutil.rmtree(tmp, ignore_errors=True)

    kafka_cli = kafka_topics + kafka_groups
    print()
    cluster = (f"the cluster at {args.bootstrap}" if args.bootstrap else
               f"3 brokers, {args.topics} topics x {args.partitions} partitions, {args.groups} groups")
    print(f"cluster: {cluster}; "
          f"median of {args.runs} runs after {args.warmup} warm-up rounds, taking turns, whole processes")
    print(f"  streamctl check (all rules, lag of every group)   {ours:8.3f} s")
    print(f"    its first run (no lag history, every record read) {first['streamctl']:6.3f} s"
          f"   ({kafka_topics + kafka_groups:.3f} / that = {(kafka_topics + kafka_groups) / first['streamctl']:.1f}x)")
    print(f"  Kafka CLI: kafka-topics --describe x3              {kafka_topics:8.3f} s")
    print(f"             kafka-consumer-groups --describe --all-groups {kafka_groups:8.3f} s")
    print(f"             pair total                              {kafka_cli:8.3f} s")
    print(f"  kcat -L (one metadata round trip)                  {floor:8.3f} s")
    print("  each run of check:", " ".join(f"{t:.3f}" for t in samples["streamctl"]))
    print(f"ratio Kafka CLI / streamctl = {kafka_cli / ours:5.1f}x   (target >= 10x)")
    print(f"ratio streamctl / kcat -L   = {ours / floor:5.1f}x   (target <= 3x)")


if __name__ == "__main__":
    main()
