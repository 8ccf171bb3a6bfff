#!/usr/bin/env python3
"""Benchmark: `streamctl check` against Kafka's own CLI tools and a floor script, same cluster, same run.

    .venv/bin/python -m bench.check_vs_kafka_cli [--topics 300] [--partitions 6] [--groups 300]
                                                 [--runs 5] [--warmup 10] [--scale 100,300,1000]
                                                 [--bootstrap HOST:PORT,...] [--keep]

Starts its own sandbox (3 brokers, ZooKeeper) in a temporary directory, creates the topics and
groups with committed offsets, waits for the brokers to go quiet after that (under a quarter
of a core for 5 s, at most 2 minutes), runs every command --warmup times (the first run is
reported: check's has no lag history and reads every record), then times, as whole processes
taking turns (median of --runs):
  streamctl    `streamctl check --format json` (every rule, lag of every group); its Kafka client
               in a forked child (backends/kafka/isolated.py)
  in-process   the same check with its Kafka client in its own process (before the child): the
               cost of surviving a librdkafka crash
  kafka CLI    TopicCommand --describe --under-replicated-partitions --unavailable-partitions
               --under-min-isr-partitions (one run: TopicCommand ORs the three), plus
               ConsumerGroupCommand --describe --all-groups, as kafka-topics.sh and
               kafka-consumer-groups.sh run them (java -cp <the fetched jars> ...)
  floor        bench/kafka_floor.py: a minimal Python process sending the Kafka requests check
               needs (metadata, group listing, every group's committed offsets, log ends)
Targets: streamctl >= 10x faster than the Kafka CLI pair (warm), within 1.5x of the floor.
--scale G1,G2,...: also time check and the floor at each group count (groups added between
sizes), printed as a table: check's cost must grow no faster than the floor's.
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
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=10,
                        help="untimed rounds of every command first (the first one is reported)")
    parser.add_argument("--keep", action="store_true", help="leave the sandbox running")
    parser.add_argument("--scale", metavar="G1,G2,...", help="group counts for the scale curve")
    parser.add_argument("--bootstrap", metavar="HOST:PORT,...",
                        help="measure this already populated 3-broker cluster instead of a new sandbox")
    args = parser.parse_args()
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

        commands = _commands(bootstrap)
        first, samples = timed(commands, env, args.runs, args.warmup)
        medians = {name: statistics.median(values) for name, values in samples.items()}
        pids = [] if args.bootstrap else [s.pid for s in sandbox.status() if s.pid]
        curve = _scale_curve(args, bootstrap, env, pids) if args.scale else []
    finally:
        if not args.keep:
            if not args.bootstrap:
                sandbox.down(wipe=True)
            shutil.rmtree(tmp, ignore_errors=True)

    cluster = (f"the cluster at {args.bootstrap}" if args.bootstrap else
               f"3 brokers, {args.topics} topics x {args.partitions} partitions, {args.groups} groups")
    _report(cluster, args, first, samples, medians)
    if curve:
        _report_curve(curve, args)


def _commands(bootstrap: str) -> dict[str, tuple[list[str], tuple[int, ...]]]:
    check = ["check", "--format", "json", "--timeout", "120"]
    topic_cmd = "org.apache.kafka.tools.TopicCommand"
    group_cmd = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
    return {
        "streamctl": ([STREAMCTL, *check], (0, 1)),
        "in-process": ([sys.executable, "-c", IN_PROCESS, *check], (0, 1)),
        "topics": (tool_argv(topic_cmd, "--bootstrap-server", bootstrap, "--describe",
                             "--under-replicated-partitions", "--unavailable-partitions",
                             "--under-min-isr-partitions"), (0,)),
        "groups": (tool_argv(group_cmd, "--bootstrap-server", bootstrap, "--describe", "--all-groups"), (0,)),
        "floor": ([sys.executable, "-m", "bench.kafka_floor", bootstrap], (0,)),
    }


# check as before the forked child: the client in check's own process.
IN_PROCESS = (
    "import sys, streamctl.backends.kafka.isolated as isolated\n"
    "from streamctl.backends.kafka.cluster import KafkaBackend\n"
    "isolated.isolated_backend = lambda config, timeout, admin=False: KafkaBackend(config, timeout=timeout)\n"
    "from streamctl.cli import main\n"
    "sys.exit(main())\n"
)


def _scale_curve(args, bootstrap: str, env: dict[str, str], pids: list[int]) -> list[tuple[int, float, float]]:
    """(groups, check s, floor s) at each size: groups added, brokers quiet, then timed."""
    from bench.scene import add_groups

    curve, have = [], args.groups
    commands = {name: command for name, command in _commands(bootstrap).items() if name in ("streamctl", "floor")}
    for size in sorted(int(n) for n in args.scale.split(",")):
        if size > have:
            add_groups(bootstrap, have, size, args.topics, args.partitions)
            have = size
            if pids:
                wait_until_quiet(pids)
        if size < have:
            print(f"scale: {size} groups is below the {have} present; skipped", flush=True)
            continue
        _, samples = timed(commands, env, args.runs, min(args.warmup, 3))
        curve.append((size, statistics.median(samples["streamctl"]), statistics.median(samples["floor"])))
        print(f"scale: {size} groups measured", flush=True)
    return curve


def _report(cluster: str, args, first: dict[str, float], samples: dict[str, list[float]],
            medians: dict[str, float]) -> None:
    ours, floor = medians["streamctl"], medians["floor"]
    kafka_cli = medians["topics"] + medians["groups"]
    load = os.getloadavg()[0]
    print()
    print(f"cluster: {cluster}; median of {args.runs} runs after {args.warmup} warm-up rounds, "
          f"taking turns, whole processes; load average {load:.2f}")
    print(f"  streamctl check (all rules, lag of every group)    {ours:8.3f} s   first run {first['streamctl']:.3f} s")
    print(f"  the same, Kafka client in process (no child)       {medians['in-process']:8.3f} s"
          f"   first run {first['in-process']:.3f} s")
    print(f"  Kafka CLI: kafka-topics --describe (3 flags, 1 run) {medians['topics']:8.3f} s")
    print(f"             kafka-consumer-groups --describe --all-groups {medians['groups']:8.3f} s")
    print(f"             pair total                               {kafka_cli:8.3f} s")
    print(f"  floor: the Kafka requests alone (bench/kafka_floor) {floor:8.3f} s")
    print("  each run of check:", " ".join(f"{t:.3f}" for t in samples["streamctl"]))
    print(f"ratio Kafka CLI / check, history warm  = {kafka_cli / ours:5.1f}x   (target >= 10x)")
    print(f"ratio Kafka CLI / check's first run    = {kafka_cli / first['streamctl']:5.1f}x")
    print(f"ratio check / floor                    = {ours / floor:5.2f}x   (target <= 1.5x)")
    print(f"cost of the forked Kafka child          = {ours - medians['in-process']:+.3f} s "
          f"({ours / medians['in-process']:.2f}x the in-process check)")


def _report_curve(curve: list[tuple[int, float, float]], args) -> None:
    print()
    print(f"scale curve ({args.topics} topics x {args.partitions} partitions; median of {args.runs})")
    print(f"  {'groups':>7} {'check s':>9} {'floor s':>9} {'check/floor':>12}")
    for groups, ours, floor in curve:
        print(f"  {groups:7d} {ours:9.3f} {floor:9.3f} {ours / floor:12.2f}")
    (g0, c0, f0), (g1, c1, f1) = curve[0], curve[-1]
    print(f"growth {g0} -> {g1} groups: check {c1 / c0:.2f}x, floor {f1 / f0:.2f}x "
          f"(target: check's no faster than the floor's)")


if __name__ == "__main__":
    main()
