#!/usr/bin/env python3
"""Benchmark: `streamctl check --all-contexts` over 1, 3 and 6 contexts against one check per context.

    .venv/bin/python -m bench.fleet_check [--sizes 1,3,6] [--runs 5] [--timeout 30]
                                          [--config PATH --context NAME]

One cluster under several context names (c1..cN, each a copy of one context): this measures
check's own work per context, not N clusters' (the output says so). Without --config it starts
its own sandbox (ZooKeeper + 3 brokers, no add-ons) in a temporary directory; with --config it
copies NAME from that file (a running sandbox's config, for example). Times, as whole processes:
  all-contexts  `streamctl check --all-contexts -o json` (one process, a thread per context)
  loop          `for c in c1..cN; do streamctl --context $c check -o json; done` (the cron way)
  parallel      the same single checks started at once (`&` ... `wait`): a process per context
cold: the first run (a fresh state dir: no lag history); warm: median of --runs after it, the
runs of every size and way interleaved.
Target: all-contexts over 6 contexts within 1.5x of over 1 (warm). The floor (bench/fleet_floor.py):
check's reads alone for the fewest and the most contexts, whether the target is reachable here.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench import fleet_floor
from streamctl.backends.kafka.client import KafkaError
from streamctl.errors import StreamctlError

STREAMCTL = str(Path(sys.executable).with_name("streamctl"))
TARGET = 1.5


def seconds(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - started
    if result.returncode not in (0, 1, 2, 3) or not result.stdout.strip():
        raise SystemExit(f"{shlex.join(argv)[:200]} failed ({result.returncode}): {result.stderr[-500:]}")
    return took


def commands(names: list[str], timeout: float) -> dict[str, list[str]]:
    one = [STREAMCTL, "check", "-o", "json", "--timeout", str(timeout)]
    singles = [shlex.join([STREAMCTL, "--context", name, *one[1:]]) for name in names]
    return {
        "all-contexts": [*one, "--all-contexts"],
        "loop": ["sh", "-c", "; ".join(singles)],
        "parallel": ["sh", "-c", " ".join(f"{s} >/dev/null &" for s in singles) + " wait; echo done"],
    }


def measure(context: dict, sizes: list[int], runs: int, timeout: float,
            workdir: Path) -> dict[int, dict[str, tuple[float, float]]]:
    """(cold, warm) seconds of each way over each number of copies of `context`. The warm runs
    are interleaved (run 1 of every size and way, then run 2, ...): drift on a shared machine
    then hits the one-context and the six-context figures alike."""
    plans = {}
    for size in sizes:
        names = [f"c{i}" for i in range(1, size + 1)]
        config = workdir / f"fleet-{size}.yaml"
        config.write_text(yaml.safe_dump({"current-context": names[0], "contexts": dict.fromkeys(names, context)}))
        for way, argv in commands(names, timeout).items():
            env = {**os.environ, "STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(workdir / f"state-{size}-{way}")}
            plans[size, way] = argv, env
    cold = {key: seconds(*plan) for key, plan in plans.items()}
    warm: dict[tuple[int, str], list[float]] = {key: [] for key in plans}
    for _ in range(runs):
        for key, plan in plans.items():
            warm[key].append(seconds(*plan))
    return {size: {way: (cold[size, way], statistics.median(warm[size, way])) for (n, way) in plans if n == size}
            for size in sizes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,3,6")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--config", type=Path, help="take the context from this file instead of a new sandbox")
    parser.add_argument("--context", default="sandbox")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as tmp:
        workdir = Path(tmp)
        sandbox = None
        config_path = args.config
        if config_path is None:
            from streamctl.sandbox.stack import Sandbox

            config_path = workdir / "config.yaml"
            sandbox = Sandbox(root=workdir / "sandbox", config_path=config_path)
            sandbox.up(brokers=3, with_addons=False)
        try:
            context = yaml.safe_load(config_path.read_text())["contexts"][args.context]
            print(f"one cluster under 1..{max(sizes)} context names (copies of '{args.context}' from "
                  f"{config_path}); {os.cpu_count()} cores; cold = first run, warm = median of {args.runs}")
            results = measure(context, sizes, args.runs, args.timeout, workdir)
            try:
                floors: dict[int, float] | str = fleet_floor.measure(workdir / f"fleet-{max(sizes)}.yaml",
                                                                     [min(sizes), max(sizes)], args.runs)
            except (StreamctlError, KafkaError, OSError) as exc:  # the timings above still print
                floors = str(exc)
        finally:
            if sandbox is not None:
                sandbox.down()
    print(f"{'contexts':>8}  {'way':<13} {'cold s':>7} {'warm s':>7}  {'warm vs all-contexts':>20}")
    for size, found in results.items():
        base = found["all-contexts"][1]
        for way, (cold, warm) in found.items():
            print(f"{size:>8}  {way:<13} {cold:7.2f} {warm:7.2f}  {warm / base:19.2f}x")
    first, last = min(sizes), max(sizes)
    for label, index in (("cold", 0), ("warm", 1)):
        ratio = results[last]["all-contexts"][index] / results[first]["all-contexts"][index]
        print(f"all-contexts, {label}: {last} contexts take {ratio:.2f}x the time of {first} "
              f"(target <= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'})")
    if isinstance(floors, dict):
        print_floor(floors, first, last, results[first]["all-contexts"][1], results[last]["all-contexts"][1])
    else:
        print(f"floor not measured: {floors}")


def print_floor(floors: dict[int, float], first: int, last: int, check_first: float, check_last: float) -> None:
    """The floor (bench/fleet_floor.py): whether the target is reachable on this machine at all."""
    extra, allowed = floors[last] - floors[first], (TARGET - 1) * check_first
    print(f"floor, check's reads alone in one warm process: {first} context(s) {floors[first]:.2f} s, "
          f"{last} {floors[last]:.2f} s: the {last - first} more cost {extra:.2f} s here; "
          f"the target allows {allowed:.2f} s over the {first}-context check "
          f"({'reachable' if extra <= allowed else 'out of reach on this machine'})")
    print(f"check, all-contexts: the {last - first} more contexts cost {check_last - check_first:.2f} s (warm), "
          f"{check_last - check_first - extra:+.2f} s above the floor's {extra:.2f} s: what check adds to its reads")


if __name__ == "__main__":
    main()
