#!/usr/bin/env python3
"""Benchmark: the KRaft quorum read through kafka-python (DescribeQuorum, no JVM) against Kafka's
own tool in a JVM (MetadataQuorumCommand, --status and --replication in parallel, what `check
--component quorum` ran), same cluster, same run; and whether both say the same.

    .venv/bin/python -m bench.quorum_read [--runs 5] [--bootstrap HOST:PORT,...] [--capture]

Starts its own KRaft sandbox (3 nodes, Kafka only) in a temporary directory unless --bootstrap.
Times whole processes taking turns: the first run of each is reported as cold, the median of
the next --runs as warm:
  streamctl quorum   `streamctl quorum -o json` (the command, in a fresh Python process)
  wire route         a Python process reading the quorum with WireReads (wire_reads.py)
  JVM route          a Python process reading it with backends/kafka/quorum.py (two JVM starts)
and, in this process, the typed group listing `groups list` adds (ListGroups v5, kafka-python).
--capture also writes the wire answer (DescribeQuorum and the finalized features) to
tests/fixtures/kafka/quorum/wire-<kafka minor>.json, for the parser's unit tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
WIRE = ("from streamctl.backends.kafka.wire_reads import WireReads; import sys; "
        "q = WireReads({{'bootstrap.servers': {b!r}}}, timeout=30).quorum(); "
        "print(q.leader_id, q.epoch, sorted((n.node_id, n.role) for n in q.nodes))")
JVM = ("from streamctl.backends.kafka.quorum import describe_quorum; from streamctl.jvm.java import tool_argv; "
       "q = describe_quorum({{'bootstrap.servers': {b!r}}}, 60, tool_argv); "
       "print(q.leader_id, q.epoch, sorted((n.node_id, n.role) for n in q.nodes))")


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.monotonic()
    result = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    took = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"{' '.join(argv[:4])}...: exit {result.returncode}: {result.stderr.strip()[-400:]}")
    return took, result.stdout.strip()


def capture(bootstrap: str) -> Path:
    from streamctl.backends.kafka.wire_reads import WireReads
    from streamctl.jvm import maven

    answer, features = WireReads({"bootstrap.servers": bootstrap}, timeout=30).quorum_answer()
    minor = ".".join(maven.KAFKA_KRAFT_VERSION.split(".")[:2])
    path = REPO / "tests" / "fixtures" / "kafka" / "quorum" / f"wire-{minor}.json"
    path.write_text(json.dumps({"describe_quorum": answer, "features": features}, indent=1, default=str) + "\n")
    return path


def bench(bootstrap: str, runs: int, state: Path) -> None:
    config = state / "config.yaml"
    config.write_text(yaml.safe_dump({"current-context": "bench",
                                      "contexts": {"bench": {"kafka": {"bootstrap_servers": bootstrap}}}}))
    env = {**os.environ, "XDG_STATE_HOME": str(state / "xdg"), "STREAMCTL_CONFIG": str(config)}
    commands = {
        "streamctl quorum": [str(Path(sys.executable).parent / "streamctl"), "quorum", "-o", "json"],
        "wire route": [sys.executable, "-c", WIRE.format(b=bootstrap)],
        "JVM route": [sys.executable, "-c", JVM.format(b=bootstrap)],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    said: dict[str, str] = {}
    for _ in range(runs + 1):  # taking turns; the first round is the cold one
        for name, argv in commands.items():
            took, output = timed(argv, env)
            times[name].append(took)
            said.setdefault(name, output)
    print(f"{'route':<18} {'cold (s)':>9} {'warm median (s)':>16}   ({runs} warm runs, {bootstrap})")
    for name, taken in times.items():
        print(f"{name:<18} {taken[0]:>9.2f} {statistics.median(taken[1:]):>16.2f}")
    print(f"wire route says: {said['wire route']}")
    print(f"JVM route says:  {said['JVM route']}")
    print("same leader, epoch and nodes with roles:", said["wire route"] == said["JVM route"])
    typed_listing_cost(bootstrap, runs)


def typed_listing_cost(bootstrap: str, runs: int) -> None:
    """What `groups list` adds: ListGroups v5 through kafka-python (a connection, then every
    broker asked in turn), in this process; it runs beside the librdkafka reads."""
    from streamctl.backends.kafka.wire_reads import WireReads

    taken = []
    for _ in range(runs + 1):
        started = time.monotonic()
        WireReads({"bootstrap.servers": bootstrap}, timeout=30).group_listing()
        taken.append(time.monotonic() - started)
    print(f"typed group listing (in process): first {taken[0] * 1000:.0f} ms, "
          f"median of next {runs} {statistics.median(taken[1:]) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bootstrap", help="an existing KRaft cluster (default: start a sandbox)")
    parser.add_argument("--capture", action="store_true", help="write the wire answer as a test fixture")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quorum-bench-") as tmp:
        state = Path(tmp)
        sandbox = None
        bootstrap = args.bootstrap
        if bootstrap is None:
            from streamctl.sandbox.stack import Sandbox

            sandbox = Sandbox(root=state / "xdg" / "streamctl" / "sandbox", config_path=state / "sandbox.yaml")
            sandbox_state, _ = sandbox.up(brokers=3, kraft=True, with_addons=False)
            bootstrap = sandbox_state.bootstrap_servers
        try:
            if args.capture:
                print(f"wrote {capture(bootstrap)}")
            bench(bootstrap, args.runs, state)
        finally:
            if sandbox is not None:
                sandbox.down()


if __name__ == "__main__":
    main()
