#!/usr/bin/env python3
"""Benchmark: `streamctl pipeline` answering from the lag history against the two readings
`--window 15` takes (the default before), same demo, same run.

    .venv/bin/python -m bench.pipeline_latency [--runs 5] [--window-runs 3] [--start]

Uses the current config context (a running demo sandbox: `streamctl sandbox up`), or with
--start its own demo sandbox (ZooKeeper, 3 brokers, Flume, Spark job, Connect) in a temporary
directory, stopped at the end. Records a reading in the lag history with
`streamctl check --component kafka` (as cron's check or the dashboard do), waits until the demo's
job hop is on the map and check's reading is 15 s old, then times whole processes, taking turns:
  history  `streamctl pipeline -o json`: one fresh reading, against the history's newest
  window   `streamctl pipeline -o json --window 15`: two readings 15 s apart
Cold: each command's first run (its history holds only check's reading; the page cache is as
check left it); warm: the median of the --runs (--window-runs) after it. Every history run must have answered from the history
(its JSON's before_source), else the exit status is 1. Target: history < 1 s: met / not met,
cold and warm; the ratio window / history. Progress goes to stderr, the figures to stdout.
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

from bench.check_vs_kafka_cli import STREAMCTL
from bench.scene import wait_until_quiet
from streamctl.pipeline.collect import SPAN

TARGET = 1.0  # seconds: `pipeline` when the lag history holds readings (issue #30)
JOB_HOP = "weblogs -> weblog-stats via job weblog-stats"
HISTORY = ["pipeline", "-o", "json"]
WINDOW = ["pipeline", "-o", "json", "--window", "15"]


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run(args: list[str], env: dict[str, str]) -> tuple[float, dict]:
    """Seconds the whole `streamctl ARGS` process took, and its JSON."""
    started = time.perf_counter()
    result = subprocess.run([STREAMCTL, *args], env=env, capture_output=True, text=True, timeout=300)
    took = time.perf_counter() - started
    if result.returncode not in (0, 1, 2):
        raise SystemExit(f"streamctl {' '.join(args)} failed ({result.returncode}): {result.stderr[-500:]}")
    return took, json.loads(result.stdout)


def wait_for_the_demo(env: dict[str, str], limit: float = 300.0) -> None:
    """Until the demo's job hop is on the map (a fresh sandbox's job needs a while)."""
    deadline = time.monotonic() + limit
    while JOB_HOP not in {h["name"] for h in run([*HISTORY, "--window", "2"], env)[1]["hops"]}:
        if time.monotonic() > deadline:
            raise SystemExit(f"the demo's job hop did not appear within {limit:.0f} s")
        progress("waiting for the demo's job hop ...")


def measure(env: dict[str, str], runs: int, window_runs: int) -> dict[str, list[float]]:
    """Seconds of every run, first one first; history runs' windows (their history's age) too."""
    run(["check", "--component", "kafka", "--format", "json"], env)
    time.sleep(SPAN + 0.5)  # a younger history reading is waited for until SPAN old
    times: dict[str, list[float]] = {"history": [], "window": [], "history age": []}
    for turn in range(max(runs, window_runs) + 1):
        took_now = []
        if turn <= runs:
            took, data = run(HISTORY, env)
            if data["before_source"] != "history":
                raise SystemExit(f"run {turn + 1} of `pipeline` did not answer from the history: {data['before_source']}")
            times["history"].append(took)
            times["history age"].append(data["window_seconds"])
            took_now.append(f"history {took:.3f} s")
        if turn <= window_runs:
            took, data = run(WINDOW, env)
            times["window"].append(took)
            took_now.append(f"window {took:.3f} s")
        progress(f"turn {turn + 1}: {', '.join(took_now)}")
    return times


def report(times: dict[str, list[float]], where: str) -> None:
    history, window = times["history"], times["window"]
    warm_history, warm_window = statistics.median(history[1:]), statistics.median(window[1:])
    load = os.getloadavg()[0]
    print(f"\n{where}; whole processes taking turns; warm: median of {len(history) - 1} (history) and "
          f"{len(window) - 1} (window) runs after the first; load average {load:.2f}")
    print(f"  pipeline from the history      cold {history[0]:7.3f} s   warm {warm_history:7.3f} s")
    print(f"  pipeline --window 15           cold {window[0]:7.3f} s   warm {warm_window:7.3f} s")
    print("  history runs:", " ".join(f"{t:.3f}" for t in history),
          "  rates over (s):", " ".join(f"{t:.1f}" for t in times["history age"]))
    print(f"ratio window / history: cold {window[0] / history[0]:5.1f}x   warm {warm_window / warm_history:5.1f}x")
    for name, seconds in (("cold", history[0]), ("warm", warm_history)):
        print(f"target: pipeline from the history < {TARGET:g} s, {name}: {seconds:.3f} s "
              f"{'met' if seconds < TARGET else 'not met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="warm runs of `pipeline` from the history")
    parser.add_argument("--window-runs", type=int, default=3, help="warm runs of `pipeline --window 15`")
    parser.add_argument("--start", action="store_true", help="start a demo sandbox of its own in a temporary directory")
    args = parser.parse_args()
    env = dict(os.environ)
    sandbox, tmp = None, None
    if args.start:
        from streamctl.sandbox.stack import Sandbox

        tmp = Path(tempfile.mkdtemp(prefix="streamctl-bench-"))
        sandbox = Sandbox(config_path=tmp / "config.yaml", state_dir=tmp / "state" / "streamctl")
        env |= {"STREAMCTL_CONFIG": str(tmp / "config.yaml"), "XDG_STATE_HOME": str(tmp / "state")}
        progress(f"demo sandbox in {tmp}")
        sandbox.up(brokers=3)
    try:
        wait_for_the_demo(env)
        if sandbox is not None:
            waited, cores = wait_until_quiet([s.pid for s in sandbox.status() if s.pid], busy=1.0)
            progress(f"sandbox under a core after {waited:.0f} s ({cores:.2f})")
        times = measure(env, args.runs, args.window_runs)
    finally:
        if sandbox is not None:
            sandbox.down(wipe=True)
            shutil.rmtree(tmp, ignore_errors=True)
    report(times, "the demo sandbox (3 brokers, Flume, Spark job, Connect)" if args.start else "the current context")


if __name__ == "__main__":
    main()
