#!/usr/bin/env python3
"""Benchmark: the wall time of one `streamctl quotas list` (the kafka-python route,
backends/kafka/quota_admin.py) next to `streamctl topics list` (librdkafka), whole processes.

    .venv/bin/python -m bench.quotas_list [--quotas 20] [--runs 5] [--bootstrap HOST:PORT,...]

Starts its own sandbox (3 brokers, ZooKeeper, no add-ons) unless --bootstrap, sets --quotas
client-id quotas (in this process), then times each command's first run (cold: the first process after the
sandbox came up) and the median of --runs more (warm), the commands taking turns.
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

from streamctl.backends.kafka.quota_admin import QuotaAdmin
from streamctl.backends.kafka.wire import WireError
from streamctl.sandbox.stack import Sandbox

STREAMCTL = str(Path(sys.executable).with_name("streamctl"))
COMMANDS = {"quotas list": ["quotas", "list", "-o", "json"], "topics list": ["topics", "list", "-o", "json"]}


def run(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run([STREAMCTL, *args], env=env, capture_output=True, text=True, timeout=300)
    took = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"streamctl {' '.join(args)} failed ({result.returncode}): {result.stderr[-500:]}")
    return took


def set_quotas(bootstrap: str, count: int, patience: float = 120.0) -> None:
    """`count` client-id quotas, the first asked again while a broker still refuses connections
    (the sandbox is up before every listener is)."""
    deadline = time.monotonic() + patience
    for i in range(count):
        while True:
            admin = QuotaAdmin({"bootstrap.servers": bootstrap}, timeout=30)
            try:
                admin.alter_quotas({"client-id": f"bench-{i}"}, {"producer_byte_rate": 1048576.0}, [])
                break
            except WireError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(2)
            finally:
                admin.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--quotas", type=int, default=20, help="client-id quotas set before timing")
    parser.add_argument("--runs", type=int, default=5, help="warm runs of each command (median)")
    parser.add_argument("--bootstrap", metavar="HOST:PORT,...", help="an already running cluster")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="streamctl-bench-"))
    sandbox = Sandbox(root=tmp / "state" / "streamctl" / "sandbox", config_path=tmp / "config.yaml")
    bootstrap = args.bootstrap or sandbox.up(brokers=3, with_addons=False)[0].bootstrap_servers
    try:
        config = tmp / "bench.yaml"
        config.write_text(yaml.safe_dump({"current-context": "bench", "contexts": {"bench": {
            "kafka": {"bootstrap_servers": bootstrap, "expected_brokers": 3, "timeout": 30}}}}))
        env = {**os.environ, "STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(tmp / "state")}
        set_quotas(bootstrap, args.quotas)
        first = {name: run(argv, env) for name, argv in COMMANDS.items()}
        samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(args.runs):
            for name, argv in COMMANDS.items():
                samples[name].append(run(argv, env))
        print(f"{'command':<14}{'cold s':>8}{'warm s (median of ' + str(args.runs) + ')':>26}")
        for name in COMMANDS:
            print(f"{name:<14}{first[name]:>8.2f}{statistics.median(samples[name]):>26.2f}")
        print(f"({args.quotas} client-id quotas; cold = the first streamctl process after the cluster came up)")
    finally:
        if not args.bootstrap:
            sandbox.down()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
