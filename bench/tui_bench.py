"""Benchmark: the dashboard's start-up, memory and event-loop stalls on a large cluster.

    .venv/bin/python -m bench.tui_bench [--topics 300] [--partitions 6] [--groups 300] [--runs 3]
                                        [--bootstrap HOST:PORT,...] [--trace-out DIR]

Starts its own sandbox (3 brokers), creates the topics and groups and waits for the brokers to
go quiet after that (or measures the populated cluster at --bootstrap), then runs `streamctl` in a
pseudo-terminal (120x40) with STREAMCTL_TRACE set, --runs times, and measures, as whole processes:
  first paint   process start -> the Overview's first frame (target < 1.0 s), and -> the
                Overview painted with every component evaluated (target < 2 s)
  memory        resident set after the Topics and Groups screens loaded everything (< 150 MB),
                the dashboard's and its Kafka client process's together
  worst stall   the latest a 10 ms event-loop timer fired (< 50 ms during a refresh): once the
                Overview painted, split into screen switches (the 1.5 s after a key press: the
                new screen's first load; target < 100 ms) and refreshes (every other moment);
                and the whole run, start-up and first visits included (target < 100 ms)
Baseline, same runs, same harness and stall probe: a minimal Textual app painting one line.
STREAMCTL_TRACE_SLOW=seconds also logs every event-loop callback slower than that, with its own CPU
time and the time it waited for a core (Linux schedstat), and prints the longest (the timing adds a
little to each of the dashboard's callbacks, none to the baseline's; --trace-out keeps the logs).
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import shutil
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from bench.scene import populate, wait_until_quiet
from streamctl.sandbox.stack import Sandbox

STREAMCTL = str(Path(sys.executable).with_name("streamctl"))
BASELINE_APP = """
import json, os, sys, time
from textual.app import App
from textual.widgets import Static
class Hello(App):
    expected = None
    worst = 0.0
    def compose(self):
        yield Static("hello")
    def on_mount(self):
        self.call_after_refresh(self.painted)
        self.set_interval(0.01, self.tick)  # the same stall probe as the dashboard's
    def write(self, **event):
        with open(os.environ["STREAMCTL_TRACE"], "a") as f:
            f.write(json.dumps({"time": time.time(), **event}) + "\\n")
    def painted(self):
        self.write(event="overview_painted")
    def tick(self):
        now = time.monotonic()
        if self.expected is not None and now - self.expected > self.worst:
            self.worst = now - self.expected
            self.write(event="stall", worst_ms=round(self.worst * 1000, 1))
        self.expected = now + 0.01
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


SWITCH_WINDOW = 1.5  # seconds after a key press that count as the screen switch (its first load)


@dataclass
class Run:
    frame: float  # process start -> the Overview's first frame (s)
    painted: float  # process start -> the Overview painted with every component evaluated (s)
    memory: tuple[float, float, float]  # dashboard RSS, Kafka client process RSS, PSS of both (MB)
    worst: float  # worst stall over the whole run, start-up included (ms)
    worst_switch: float  # worst stall within SWITCH_WINDOW of a screen switch, once painted (ms)
    worst_refresh: float  # worst stall at any other time once painted: the refreshes (ms)
    pyspark_imported: bool
    slow: list[dict]  # callbacks over STREAMCTL_TRACE_SLOW: wall, own CPU and runqueue wait (ms)


def run_in_pty(argv: list[str], env: dict, trace: Path, keys: list[tuple[float, bytes]], linger: float) -> Run:
    """Start argv in a pty, send `keys` (delay after the first paint, key), measure."""
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
    pending: list[tuple[float, bytes]] = []  # scheduled once the Overview painted
    pressed: list[float] = []
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
            pressed.append(time.time())
        if end is not None and time.time() >= end and not pending:
            break
    memory = memory_mb(pid)
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)
    if painted is None:
        raise SystemExit(f"{argv[0]}: no painted Overview within 60 s")
    stalls = [e["worst_ms"] for e in events(trace) if e["event"] == "stall"]
    late = [e for e in events(trace) if e["event"] == "late" and e["time"] > started + painted]
    switching, refreshing = [], []
    for e in late:
        during_switch = any(0 <= e["time"] - at <= SWITCH_WINDOW for at in pressed)
        (switching if during_switch else refreshing).append(e["ms"])
    imported = any(e.get("pyspark_imported") for e in events(trace) if e["event"] == "overview_painted")
    slow = [e for e in events(trace) if e["event"] == "slow"]
    return Run(frame, painted, memory, max(stalls, default=0.0), max(switching, default=0.0),
               max(refreshing, default=0.0), imported, slow)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--groups", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3, help="dashboard runs (each with its baseline run)")
    parser.add_argument("--bootstrap", metavar="HOST:PORT,...",
                        help="measure this already populated 3-broker cluster instead of a new sandbox")
    parser.add_argument("--trace-out", metavar="DIR", help="keep the dashboard's trace events (JSON lines) here")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="streamctl-tui-bench-"))
    sandbox = Sandbox(root=tmp / "state" / "streamctl" / "sandbox", config_path=tmp / "config.yaml")
    ours: list[Run] = []
    base: list[Run] = []
    try:
        if args.bootstrap:
            bootstrap = args.bootstrap
        else:
            bootstrap = sandbox.up(brokers=3, with_addons=False)[0].bootstrap_servers
            populate(bootstrap, args.topics, args.partitions, args.groups)
            waited, cores = wait_until_quiet([s.pid for s in sandbox.status() if s.pid])
            print(f"populated; brokers quiet after {waited:.0f} s more ({cores:.2f} of a core)", flush=True)
        config = tmp / "bench.yaml"
        config.write_text(yaml.safe_dump({"current-context": "bench", "contexts": {"bench": {
            "kafka": {"bootstrap_servers": bootstrap, "expected_brokers": 3}}}}))
        env = {"STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(tmp / "state"), "TERM": "xterm-256color",
               **{k: v for k, v in os.environ.items() if k.startswith("STREAMCTL_TRACE_")}}
        # After the first paint: Topics (3), Groups (4), Topics again, Overview (1); each screen
        # refreshes about twice (every 2 s) before the next switch.
        keys = [(1.0, b"3"), (5.0, b"4"), (9.0, b"3"), (13.0, b"1")]
        for run in range(args.runs):
            ours_trace, base_trace = tmp / f"ours-{run}.jsonl", tmp / f"base-{run}.jsonl"
            state = {"XDG_STATE_HOME": str(tmp / f"state-{run}")}  # each run starts without lag history
            ours.append(run_in_pty([STREAMCTL, "dashboard", "--refresh", "2"],
                                   {**env, **state, "STREAMCTL_TRACE": str(ours_trace)}, ours_trace, keys, linger=17))
            base.append(run_in_pty([sys.executable, "-c", BASELINE_APP],
                                   {**env, "STREAMCTL_TRACE": str(base_trace)}, base_trace, [], linger=1))
            if args.trace_out:
                Path(args.trace_out).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(ours_trace, Path(args.trace_out) / ours_trace.name)
    finally:
        if not args.bootstrap:
            sandbox.down(wipe=True)
        shutil.rmtree(tmp, ignore_errors=True)
    report(args, ours, base)


def report(args, ours: list[Run], base: list[Run]) -> None:
    def median(values) -> float:
        return statistics.median(values)

    def spread(values) -> str:  # the trace logs stalls over 20 ms only: 0 means under 20
        return ", ".join(f"{label} {value:6.1f}" if value else f"{label}   < 20"
                         for label, value in (("median", median(values)), ("max", max(values))))

    frame, base_frame = median(r.frame for r in ours), median(r.frame for r in base)
    resident = [r.memory[0] + r.memory[1] for r in ours]
    print()
    cluster = (f"the cluster at {args.bootstrap}" if args.bootstrap else
               f"3 brokers, {args.topics} topics x {args.partitions} partitions, {args.groups} groups")
    print(f"cluster: {cluster}; "
          f"{len(ours)} runs, medians")
    print(f"  first painted Overview (its frame)   {frame:6.3f} s   (target < 1.0 s)")
    print(f"  baseline: minimal Textual app paint  {base_frame:6.3f} s   ratio {frame / base_frame:4.1f}x")
    print(f"  Overview painted with evaluated data {median(r.painted for r in ours):6.3f} s   (every card; target < 2 s)")
    dashboard, client, pss = (median(r.memory[i] for r in ours) for i in range(3))
    print(f"  resident memory after all screens    {median(resident):6.1f} MB  (target < 150 MB):"
          f" dashboard {dashboard:.1f} + Kafka client process {client:.1f}; PSS {pss:.1f} MB")
    base_memory = median(r.memory[0] for r in base)
    print(f"  baseline: minimal Textual app        {base_memory:6.1f} MB  ratio {median(resident) / base_memory:4.1f}x")
    def verdict(values, target: float) -> str:
        return f"(target < {target:g} ms: {'met' if max(values) < target else 'NOT MET'})"

    refreshes, switches, whole = ([r.worst_refresh for r in ours], [r.worst_switch for r in ours],
                                  [r.worst for r in ours])
    print("  worst event-loop stall (ms), per run, then")
    print(f"    during refreshes, once painted     {spread(refreshes)}   {verdict(refreshes, 50)}")
    print(f"    screen switches (first {SWITCH_WINDOW:g} s)      {spread(switches)}   {verdict(switches, 100)}")
    print(f"    whole run, start-up included       {spread(whole)}   {verdict(whole, 100)}")
    print(f"    baseline app, whole run            {spread([r.worst for r in base])}")
    slow = [e for r in ours for e in r.slow]
    if slow:  # STREAMCTL_TRACE_SLOW: how much of each slow callback was work, how much no free core
        worst = max(slow, key=lambda e: e["ms"])
        print(f"  slow callbacks, all runs: {len(slow)}; the longest {worst['ms']:.1f} ms ="
              f" {worst['cpu_ms']:.1f} of its own CPU + {worst['runqueue_ms']:.1f} waiting for a core;"
              f" most CPU in one {max(e['cpu_ms'] for e in slow):.1f} ms")
    print(f"  pyspark imported by the dashboard:   {any(r.pyspark_imported for r in ours)}")


if __name__ == "__main__":
    main()
