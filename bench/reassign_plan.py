#!/usr/bin/env python3
"""Benchmark: `streamctl reassign plan --rebalance` against Kafka's `kafka-reassign-partitions.sh --generate`.

    .venv/bin/python -m bench.reassign_plan [--topics 300] [--partitions 6] [--runs 5] [--warmup 3]
                                            [--baseline OTHER-CHECKOUT/.venv/bin/streamctl] [--keep]

Starts its own Kafka-only sandbox (3 brokers, KRaft) in a temporary directory and creates the
topics with 2 replicas each, all on the first two brokers (the third holds nothing, so a
rebalance has work), a third of the topics with data in half their partitions (sizes 20 to
100 kB, so the partitions weigh differently). Once the brokers are quiet it times, as whole
processes taking turns (then one run of bench/reassign_phases.py: where streamctl's time goes):
  streamctl   `streamctl reassign plan --rebalance -o json`: metadata, DescribeLogDirs of every
              broker, the size-weighed, rack-aware planner, the plan as JSON
  kafka       ReassignPartitionsCommand --generate --topics-to-move-json-file F (every topic)
              --broker-list 1,2,3, as kafka-reassign-partitions.sh runs it (kafka-run-class.sh's
              java command line over the sandbox's own Kafka jars: tool_argv)
  floor       bench/reassign_floor.py: a minimal Python process sending the requests the plan
              needs (kafka-python's import, bootstrap, Metadata + every broker's DescribeLogDirs)
  baseline    with --baseline: the same streamctl command from another checkout (e.g. main's),
              same cluster, same turns: before and after in one run
The two do not do the same work: Kafka's --generate proposes a fresh round-robin layout of every
partition from metadata alone (no sizes, no racks unless the brokers have them, every partition
listed); streamctl also reads the log dirs and lists only the partitions that move. Neither is
handicapped. Cold = each command's first run after the brokers went quiet; warm = the median of
--runs after --warmup - 1 more untimed rounds (chosen before any result: the brokers' request
handlers for Metadata and DescribeLogDirs are still interpreted by the JVM on the first runs).
Target: kafka / streamctl >= 3x, cold and warm. kafka / floor is the most any Python client can reach.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from bench.check_vs_kafka_cli import STREAMCTL, timed
from bench.scene import wait_until_quiet
from streamctl.jvm import maven
from streamctl.jvm.java import java_home_env, tool_argv
from streamctl.sandbox.stack import Sandbox

REASSIGN_COMMAND = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
RECORD = b"x" * 1000


def populate(bootstrap: str, brokers: list[int], topics: int, partitions: int) -> list[str]:
    """Topics with 2 replicas on the first two brokers only, alternating the leader; every
    third topic with 20-100 records of 1 kB in its even partitions."""
    first, second = brokers[0], brokers[1]
    names = [f"rebalance-{i:04d}" for i in range(topics)]
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": "0"})
    assignment = [[first, second] if p % 2 == 0 else [second, first] for p in range(partitions)]
    for chunk in range(0, topics, 50):
        futures = admin.create_topics(
            [NewTopic(n, num_partitions=partitions, replica_assignment=assignment) for n in names[chunk:chunk + 50]],
            operation_timeout=60, request_timeout=60)
        for future in futures.values():
            future.result(timeout=120)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": "20", "log_level": "0"})
    for i, name in enumerate(names):
        if i % 3:
            continue
        for p in range(0, partitions, 2):
            for _ in range(20 * (1 + (i + p) % 5)):
                producer.produce(name, RECORD, partition=p)
            producer.poll(0)
    if producer.flush(120):
        raise SystemExit("populate: records left unsent after 120 s")
    return names


def commands(bootstrap: str, brokers: list[int], topics_file: Path,
             baseline: str | None) -> dict[str, tuple[list[str], tuple[int, ...]]]:
    plan = ["reassign", "plan", "--rebalance", "-o", "json"]
    timed_commands = {
        "streamctl": ([STREAMCTL, *plan], (0,)),
        "kafka": (tool_argv(REASSIGN_COMMAND, "--bootstrap-server", bootstrap, "--generate",
                            "--topics-to-move-json-file", str(topics_file),
                            "--broker-list", ",".join(map(str, brokers)),
                            artifact_set=maven.KAFKA_KRAFT), (0,)),
        "floor": ([sys.executable, "-m", "bench.reassign_floor", bootstrap], (0,)),
    }
    if baseline:
        timed_commands["baseline"] = ([baseline, *plan], (0,))
    return timed_commands


def moved(argv: list[str], env: dict[str, str], name: str) -> tuple[int, int]:
    """(partitions the command's plan lists, of those whose replicas change): one more run
    (the floor's: partitions and replicas read)."""
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600).stdout
    if name == "floor":
        partitions, replicas = out.split()
        return int(partitions), int(replicas)
    if name != "kafka":
        listed = json.loads(out)["partitions"]
        return len(listed), len(listed)
    current, proposed = (json.loads(line) for line in out.splitlines() if line.startswith("{"))
    before = {(p["topic"], p["partition"]): p["replicas"] for p in current["partitions"]}
    changed = [p for p in proposed["partitions"] if before[(p["topic"], p["partition"])] != p["replicas"]]
    return len(proposed["partitions"]), len(changed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--runs", type=int, default=5, help="warm runs of each command (median)")
    parser.add_argument("--warmup", type=int, default=3,
                        help="untimed rounds of every command before the warm runs (the first one is reported)")
    parser.add_argument("--baseline", metavar="STREAMCTL",
                        help="another checkout's streamctl executable, timed in the same turns (before/after)")
    parser.add_argument("--keep", action="store_true", help="leave the sandbox running")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a killed bench still stops its sandbox
    tmp = Path(tempfile.mkdtemp(prefix="streamctl-bench-"))
    sandbox = Sandbox(root=tmp / "state" / "streamctl" / "sandbox", config_path=tmp / "config.yaml")
    try:
        print(f"sandbox in {tmp}", flush=True)
        state, _ = sandbox.up(brokers=3, kraft=True, with_addons=False)
        bootstrap = state.bootstrap_servers
        brokers = sorted(s.node_id for s in state.by_role("broker") if s.node_id is not None)
        started = time.perf_counter()
        names = populate(bootstrap, brokers, args.topics, args.partitions)
        print(f"populated {args.topics} topics x {args.partitions} partitions (rf 2 on brokers "
              f"{brokers[0]},{brokers[1]}) in {time.perf_counter() - started:.1f} s", flush=True)
        waited, cores = wait_until_quiet([s.pid for s in sandbox.status() if s.pid])
        print(f"brokers quiet after {waited:.0f} s more ({cores:.2f} of a core)", flush=True)
        topics_file = tmp / "topics-to-move.json"
        topics_file.write_text(json.dumps({"version": 1, "topics": [{"topic": n} for n in names]}))
        env = {**os.environ, **java_home_env(), "STREAMCTL_CONFIG": str(tmp / "config.yaml"),
               "XDG_STATE_HOME": str(tmp / "state")}
        timed_commands = commands(bootstrap, brokers, topics_file, args.baseline)
        first, samples = timed(timed_commands, env, args.runs, args.warmup)
        plans = {name: moved(argv, env, name) for name, (argv, _) in timed_commands.items()}
        pythons = {"streamctl": sys.executable}
        if args.baseline:  # this checkout's bench script over the baseline's streamctl (its venv's editable install)
            pythons["baseline"] = str(Path(args.baseline).with_name("python"))
        phases = {name: json.loads(subprocess.run([python, "-m", "bench.reassign_phases", bootstrap], env=env,
                                                  capture_output=True, text=True, timeout=600, check=True).stdout)
                  for name, python in pythons.items()}
    finally:
        if not args.keep:
            sandbox.down(wipe=True)
            shutil.rmtree(tmp, ignore_errors=True)
    report(args, first, samples, plans)
    for name, run in phases.items():
        print(f"one more {name} run, phase by phase (bench/reassign_phases.py): "
              + ", ".join(f"{phase} {seconds:.3f} s" for phase, seconds in run["phases"].items()))
        print(f"  its Kafka requests ({len(run['requests'])}, over {run['connections']} connections; "
              "response, ms from send to answer): "
              + ", ".join(f"{kind.removesuffix('Response')} {ms:g}" for kind, ms in run["requests"]))


def report(args, first: dict[str, float], samples: dict[str, list[float]],
           plans: dict[str, tuple[int, int]]) -> None:
    warm = {name: statistics.median(values) for name, values in samples.items()}
    print()
    print(f"3 brokers (KRaft), {args.topics} topics x {args.partitions} partitions, rf 2 on two brokers; "
          f"whole processes taking turns; load average {os.getloadavg()[0]:.2f}")
    print(f"  {'command':<58}{'cold s':>8}{'warm s':>8}  partitions listed / moved")
    titles = {"streamctl": "streamctl reassign plan --rebalance -o json",
              "baseline": f"the same, {args.baseline}",
              "kafka": "kafka-reassign-partitions.sh --generate (all topics)",
              "floor": "floor: kafka-python, Metadata + DescribeLogDirs only"}
    for name, title in titles.items():
        if name in samples:
            listed, changed = plans[name]
            what = "partitions / replica sizes read" if name == "floor" else ""
            print(f"  {title:<58}{first[name]:8.3f}{warm[name]:8.3f}  {listed} / {changed} {what}")
    print(f"  warm = median of {args.runs} after {args.warmup - 1} untimed rounds; each warm run:")
    for name, values in samples.items():
        print(f"    {name:<10}" + " ".join(f"{t:.3f}" for t in values))
    for name in ("streamctl", "baseline", "floor"):
        if name in samples:
            for kind, figures in (("cold", first), ("warm", warm)):
                ratio = figures["kafka"] / figures[name]
                target = "" if name == "floor" else f"   target >= 3x: {'met' if ratio >= 3 else 'NOT met'}"
                print(f"ratio kafka / {name}, {kind} = {ratio:5.2f}x{target}")
    print(f"streamctl / floor: cold {first['streamctl'] / first['floor']:.2f}x, "
          f"warm {warm['streamctl'] / warm['floor']:.2f}x")
    print("not the same work: --generate lays out every partition afresh from metadata (no sizes, no log "
          "dirs); streamctl reads every broker's log dirs, weighs by size, is rack-aware, lists only moves")


if __name__ == "__main__":
    main()
