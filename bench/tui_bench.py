"""Benchmark: the dashboard's start-up, memory and event-loop stalls on a large cluster.

    .venv/bin/python -m bench.tui_bench [--topics 300] [--partitions 6] [--groups 300]

Starts its own sandbox (3 brokers), creates the topics and groups, then runs `streamctl` in a
pseudo-terminal (120x40) with STREAMCTL_TRACE set and measures, as whole processes:
  first paint   process start -> the Overview's first frame (target < 1.0 s), and -> the
                Overview painted with every component evaluated
  memory        resident set after the Topics and Groups screens loaded everything (< 150 MB),
                the dashboard's and its Kafka client process's together
  worst stall   the latest a 10 ms event-loop timer fired while screens refreshed (< 50 ms),
                over the whole run (start-up included) and once the first Overview painted
Baseline, same run, same harness: a minimal Textual app painting one line.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench.scene import populate
from streamctl.sandbox import Sandbox

STREAMCTL = str(Path(sys.executable).with_name("streamctl"))
BASELINE_APP = """
import json, os, sys, time
from textual.app import App
from textual.widgets import Static
class Hello(App):
    def compose(self):
        yield Static("hello")
    def on_mount(self):
        self.call_after_refresh(self.painted)
    def painted(self):
        with open(os.environ["STREAMCTL_TRACE"], "a") as f:
            f.write(json.dumps({"event": "overview_painted", "time": time.time()}) + "\\n")
Hello().run()
"""


def events(trace: Path) -> list[dict]:
    if not trace.exists():
        return []
    return [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]


def memory_mb(pid: int) -> tuple[float, float, float]:
    """Resident MB of the process, of its children (the Kafka client process), and the
    proportional set size of all of them (shared pages counted once)."""
    import psutil

    main = psutil.Process(pid)
    children = main.children(recursive=True)
    rss = [p.memory_info().rss / 2**20 for p in [main, *children]]
    pss = sum(p.memory_full_info().pss for p in [main, *children]) / 2**20
    return rss[0], sum(rss[1:]), pss


def run_in_pty(argv: list[str], env: dict, trace: Path, keys: list[tuple[float, bytes]], linger: float):
    """Start argv in a pty; returns (first paint seconds, rss MB at the end, worst stall ms)."""
    started = time.time()
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(env)
        os.execv(argv[0], argv)
    os.set_blocking(fd, False)
    import fcntl
    import struct
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    painted = frame = None
    deadline = time.time() + 60
    pending = list(keys)
    end = None
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                break
        if frame is None:
            frames = [e for e in events(trace) if e["event"] in ("overview_first_frame", "overview_painted")]
            frame = frames[0]["time"] - started if frames else None
        if painted is None:
            first = [e for e in events(trace) if e["event"] == "overview_painted"]
            if first:
                painted = first[0]["time"] - started
                end = time.time() + linger
                pending = [(time.time() + delay, key) for delay, key in keys]
        if pending and time.time() >= pending[0][0]:
            os.write(fd, pending.pop(0)[1])
        if end is not None and time.time() >= end and not pending:
            break
    memory = memory_mb(pid)
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)
    stalls = [e["worst_ms"] for e in events(trace) if e["event"] == "stall"]
    painted_at = started + painted if painted is not None else float("inf")
    steady = [e["ms"] for e in events(trace) if e["event"] == "late" and e["time"] > painted_at]
    imported = [e.get("pyspark_imported") for e in events(trace) if e["event"] == "overview_painted"]
    return (painted, memory, (max(stalls) if stalls else None), imported, frame,
            max(steady, default=0.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--groups", type=int, default=300)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="streamctl-tui-bench-"))
    sandbox = Sandbox(root=tmp / "state" / "streamctl" / "sandbox", config_path=tmp / "config.yaml")
    state, _ = sandbox.up(brokers=3, with_addons=False)
    try:
        populate(state.bootstrap_servers, args.topics, args.partitions, args.groups)
        config = tmp / "bench.yaml"
        config.write_text(yaml.safe_dump({"current-context": "bench", "contexts": {"bench": {
            "kafka": {"bootstrap_servers": state.bootstrap_servers, "expected_brokers": 3}}}}))
        env = {"STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(tmp / "state"), "TERM": "xterm-256color"}
        ours_trace, base_trace = tmp / "ours.jsonl", tmp / "base.jsonl"
        # After the first paint: Topics (3), Groups (4), each refreshed twice (refresh every 2 s).
        keys = [(1.0, b"3"), (5.0, b"4"), (9.0, b"3")]
        ours = run_in_pty([STREAMCTL, "dashboard", "--refresh", "2"], {**env, "STREAMCTL_TRACE": str(ours_trace)},
                          ours_trace, keys, linger=13)
        base = run_in_pty([sys.executable, "-c", BASELINE_APP], {**env, "STREAMCTL_TRACE": str(base_trace)},
                          base_trace, [], linger=1)
    finally:
        sandbox.down(wipe=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    print(f"cluster: 3 brokers, {args.topics} topics x {args.partitions} partitions, {args.groups} groups")
    print(f"  first painted Overview (its frame)   {ours[4]:6.3f} s   (target < 1.0 s)")
    print(f"  baseline: minimal Textual app paint  {base[0]:6.3f} s   ratio {ours[4] / base[0]:4.1f}x")
    print(f"  Overview painted with evaluated data {ours[0]:6.3f} s")
    dashboard, kafka_client, proportional = ours[1]
    print(f"  resident memory after all screens    {dashboard + kafka_client:6.1f} MB  (target < 150 MB):"
          f" dashboard {dashboard:.1f} + Kafka client process {kafka_client:.1f}; PSS {proportional:.1f} MB")
    print(f"  baseline: minimal Textual app        {base[1][0]:6.1f} MB  ratio "
          f"{(dashboard + kafka_client) / base[1][0]:4.1f}x")
    print(f"  worst event-loop stall, whole run    {ours[2]:6.1f} ms  (target < 50 ms)")
    print(f"  worst stall once the Overview painted {ours[5]:5.1f} ms  (screen switches, refreshes)")
    print(f"  pyspark imported by the dashboard:   {any(ours[3])}")


if __name__ == "__main__":
    main()
