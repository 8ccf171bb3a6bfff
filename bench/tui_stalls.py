"""Benchmark: the dashboard's worst event-loop stalls on a scaled recorded cluster, in-process.

    .venv/bin/python -m bench.tui_stalls [--topics 300] [--partitions 6] [--groups 300 1000]
                                         [--refresh 1.0] [--slow 0.02]

No services: the dashboard runs under `App.run_test()` (120x40, headless) on the recorded full
stack (tests/tui/recorded.py: Kafka, ZooKeeper, Flume) with the Kafka snapshot scaled up to
--topics x --partitions and --groups groups (one topic each, lag on every partition), its
offsets and the groups' lag moving at every read. It visits Topics, Groups, Topics, Overview, Groups, letting each
refresh a few times, and reads the trace's 10 ms loop probe (tui/trace.py): the worst stall
within SWITCH_WINDOW of a key press (a screen switch: the new screen's first load) and at every
other time once the Overview painted (refreshes). Targets: < 50 ms on refreshes, < 100 ms on
switches. The slowest event-loop callbacks (over --slow seconds) are named.
Figures depend on the machine's load: the 2-core host is shared, so run it when idle or read the
callbacks' own CPU time (cpu_ms) printed beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from streamctl.model.kafka import ConsumerGroup, GroupMember, PartitionLag, PartitionState, Topic
from tests.tui.recorded import RecordedStackSource

SWITCH_WINDOW = 1.5  # seconds after a key press that count as the screen switch
REFRESH_TARGET, SWITCH_TARGET = 50.0, 100.0  # ms
# (key, seconds to stay): Topics, Groups, Topics again, Overview, Groups again.
VISITS = [("3", 4.0), ("4", 4.0), ("3", 3.0), ("1", 3.0), ("4", 3.0)]


@dataclass
class ScaledSource(RecordedStackSource):
    """The recorded stack with a large Kafka cluster whose offsets move at every read."""

    topics: int = 300
    partitions: int = 6
    groups: int = 300

    def __post_init__(self):
        super().__post_init__()
        self.base = self.snapshot
        self.reads = 0

    def _scaled(self):
        self.reads += 1
        brokers = [b.id for b in self.base.brokers]
        topics, groups, lags = [], [], []
        for t in range(self.topics):
            name = f"topic-{t:04d}"
            parts = tuple(PartitionState(name, p, brokers[p % len(brokers)],
                                         tuple(brokers[(p + i) % len(brokers)] for i in range(3)),
                                         tuple(brokers[(p + i) % len(brokers)] for i in range(3)),
                                         0, 1000 * (t + 1) + 10 * self.reads * (p % 2), 2)
                          for p in range(self.partitions))
            topics.append(Topic(name, False, parts, {"retention.ms": "604800000"}))
        for g in range(self.groups):
            group, topic = f"group-{g:04d}", topics[g % len(topics)]
            members = (GroupMember(f"member-{g}", f"client-{g}", "/127.0.0.1",
                                   tuple((topic.name, p.partition) for p in topic.partitions)),)
            groups.append(ConsumerGroup(group, "STABLE", "CLASSIC", "range", brokers[0], members))
            for p in topic.partitions:
                # Lag that moves between reads (the Groups screen's order by lag changes as on a live cluster).
                committed = max(0, (p.high or 0) - (g % 50) * 3 - (g * 7 + self.reads * 13) % 40)
                lags.append(PartitionLag(group, topic.name, p.partition, committed, 0, p.high,
                                         float(g % 50), "history"))
        now = time.time()
        return replace(self.base, taken_at=now, offsets_read_at=now, topics=tuple(topics),
                       groups=tuple(groups), lags=tuple(lags), errors=())

    def kafka_snapshot(self, lag_time: bool = True, group_details: bool = True, topic_configs: bool = True):
        self.snapshot = self._scaled()
        return self.snapshot

    def kafka_groups(self):
        self.kafka_snapshot()
        return super().kafka_groups()


@dataclass
class Stalls:
    refresh: float  # worst probe lateness outside the switch windows, once painted (ms)
    switch: float  # worst probe lateness within SWITCH_WINDOW of a key press (ms)
    refresh_cpu: float  # the most CPU one event-loop callback used outside the switch windows (ms)
    switch_cpu: float  # ... within them
    slow: list[dict]  # every callback over --slow


async def visit(source: ScaledSource, refresh: float) -> tuple[float, list[float]]:
    """Run the dashboard through VISITS: (when the Overview painted, when each key was pressed)."""
    from streamctl.tui.app import StreamctlApp
    from streamctl.tui.main import quiet_garbage_collector

    quiet_garbage_collector()  # as `streamctl dashboard` sets it up
    app = StreamctlApp(source, refresh_interval=refresh)
    run_callback = asyncio.events.Handle._run  # the trace wraps it: unwrapped after this run
    gc_callbacks = list(gc.callbacks)
    pressed: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        painted = time.time()
        await asyncio.sleep(2 * refresh)
        for key, stay in VISITS:
            pressed.append(time.time())
            await pilot.press(key)
            await asyncio.sleep(stay)
    asyncio.events.Handle._run = run_callback  # type: ignore[method-assign]
    gc.callbacks[:] = gc_callbacks
    gc.unfreeze()
    return painted, pressed


def measure(source: ScaledSource, refresh: float, trace: Path) -> Stalls:
    painted, pressed = asyncio.run(visit(source, refresh))
    events = [json.loads(line) for line in trace.read_text().splitlines()] if trace.exists() else []
    late: dict[bool, list[float]] = {True: [0.0], False: [0.0]}  # during a switch? -> ms
    cpu: dict[bool, list[float]] = {True: [0.0], False: [0.0]}
    for e in events:
        if e["time"] > painted and e["event"] in ("late", "slow"):
            during_switch = any(0 <= e["time"] - at <= SWITCH_WINDOW for at in pressed)
            if e["event"] == "late":
                late[during_switch].append(e["ms"])
            else:
                cpu[during_switch].append(e["cpu_ms"])
    return Stalls(max(late[False]), max(late[True]), max(cpu[False]), max(cpu[True]),
                  [e for e in events if e["event"] == "slow"])


def verdict(value: float, target: float) -> str:
    return "met" if value < target else "NOT MET"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--groups", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--refresh", type=float, default=1.0, help="the screens' refresh interval (s)")
    parser.add_argument("--slow", type=float, default=0.02, help="name callbacks slower than this (s)")
    args = parser.parse_args()
    print(f"in-process dashboard, recorded full stack, {args.topics} topics x {args.partitions} partitions;"
          f" refresh every {args.refresh:g} s; stalls in ms (the probe logs those over 20 ms)")
    for groups in args.groups:
        with tempfile.TemporaryDirectory(prefix="streamctl-tui-stalls-") as tmp:
            trace = Path(tmp) / "trace.jsonl"
            os.environ["STREAMCTL_TRACE"] = str(trace)
            os.environ["STREAMCTL_TRACE_SLOW"] = str(args.slow)
            os.environ["XDG_STATE_HOME"] = tmp
            source = ScaledSource(topics=args.topics, partitions=args.partitions, groups=groups)
            stalls = measure(source, args.refresh, trace)
        load = os.getloadavg()[0]  # other processes' demand for the 2 cores: the wall figures' noise
        print(f"{groups:5d} groups: worst stall on refreshes {stalls.refresh:6.1f} ({verdict(stalls.refresh, REFRESH_TARGET)},"
              f" target < {REFRESH_TARGET:g}), on screen switches {stalls.switch:6.1f}"
              f" ({verdict(stalls.switch, SWITCH_TARGET)}, target < {SWITCH_TARGET:g}); load average {load:.1f}")
        print(f"             the most CPU in one callback: refreshes {stalls.refresh_cpu:6.1f}"
              f" ({verdict(stalls.refresh_cpu, REFRESH_TARGET)}), screen switches {stalls.switch_cpu:6.1f}"
              f" ({verdict(stalls.switch_cpu, SWITCH_TARGET)})")
        for e in sorted(stalls.slow, key=lambda e: -e["cpu_ms"])[:6]:
            print(f"      {e['ms']:6.1f} ms (own CPU {e['cpu_ms']:5.1f}, waiting for a core {e['runqueue_ms']:5.1f})"
                  f"  {e['callback']}")


if __name__ == "__main__":
    main()
