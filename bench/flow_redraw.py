#!/usr/bin/env python3
"""Benchmark: the Overview's pipeline flow redrawn on the event loop, capped (60 nodes, the
worst sources first) against the whole flow (the baseline), on a large cluster's map.

    .venv/bin/python -m bench.flow_redraw [--topics 300] [--runs 5]

The map: --topics topics, each written by an external writer and read by its own group (3
nodes a source, 900 in all at 300 topics). Timed: `PipelineFlow.show()` (clear and rebuild the
Tree, what a refresh costs the event loop), cold (the first redraw) and warm (median of the
next --runs), and the derivation into branches (in the worker thread, off the event loop).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from textual.app import App

from streamctl.model.pipeline import Hop, Node, PipelineMap
from streamctl.pipeline.flow import branches, worst_first
from streamctl.tui.screens.overview import FLOW_NODES
from streamctl.tui.widgets.pipeline_flow import PipelineFlow


def large_map(topics: int) -> PipelineMap:
    nodes, hops = [], []
    for i in range(topics):
        topic, writer, reader = f"topic-{i:04d}", Node("external", f"topic-{i:04d}"), Node("group", f"group-{i:04d}")
        nodes += [writer, reader, Node("topic", topic)]
        hops += [Hop(writer, None, topic, rate_in=3.0), Hop(None, reader, topic, 3.0, 3.0, 10, 1.0, 3.0)]
    return PipelineMap(tuple(nodes), tuple(hops), 15.0)


class FlowApp(App):
    def compose(self):
        yield PipelineFlow()


async def redraws(found, runs: int) -> tuple[float, float]:
    """(cold, warm median) milliseconds of show()."""
    app = FlowApp()
    timings = []
    async with app.run_test(size=(120, 40)) as pilot:
        flow = app.query_one(PipelineFlow)
        for _ in range(runs + 1):
            started = time.perf_counter()
            flow.show(found, "bench")
            timings.append((time.perf_counter() - started) * 1000)
            await pilot.pause()
    return timings[0], statistics.median(timings[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pipeline = large_map(args.topics)
    started = time.perf_counter()
    found = branches(pipeline)
    derive_ms = (time.perf_counter() - started) * 1000
    kept, left_out = worst_first(found, FLOW_NODES)
    whole = asyncio.run(redraws(found, args.runs))
    capped = asyncio.run(redraws(kept, args.runs))
    print(f"map: {args.topics} topics, {sum(b.size for b in found)} nodes; branches derived in {derive_ms:.1f} ms "
          "(worker thread)")
    print(f"whole flow (baseline)  cold {whole[0]:6.1f} ms  warm {whole[1]:6.1f} ms")
    print(f"capped, {FLOW_NODES} nodes      cold {capped[0]:6.1f} ms  warm {capped[1]:6.1f} ms  "
          f"({left_out} nodes counted, not drawn)")
    print(f"ratio capped/whole: cold {capped[0] / whole[0]:.2f}, warm {capped[1] / whole[1]:.2f}")


if __name__ == "__main__":
    main()
