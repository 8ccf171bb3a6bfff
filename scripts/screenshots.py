#!/usr/bin/env python3
"""Regenerate screenshots/*.svg from the running sandbox (or --context NAME): one per screen.

    .venv/bin/python scripts/screenshots.py [--context sandbox] [--config PATH]
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from streamctl.dashboard.source import make_dashboard
from streamctl.tui.app import StreamctlApp

OUT = Path(__file__).resolve().parent.parent / "screenshots"
SCREENS = [("overview", "1"), ("brokers", "2"), ("topics", "3"), ("groups", "4"),
           ("zookeeper", "5"), ("agents", "6"), ("jobs", "7"), ("connect", "8"), ("streams", "9"), ("pipeline", "0")]


async def shoot(context: str, config: str | None) -> list[Path]:
    app = StreamctlApp(make_dashboard(config, context), refresh_interval=3600)
    written = []
    async with app.run_test(size=(120, 36)) as pilot:
        for name, key in SCREENS:
            if name not in app.mode_names:
                continue
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause(0.5)
            await app.workers.wait_for_complete()  # what a load starts (the Overview's flow)
            await pilot.pause(0.5)
            written.append(Path(app.save_screenshot(filename=f"{name}.svg", path=str(OUT))))
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", default="sandbox")
    parser.add_argument("--config")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    for path in asyncio.run(shoot(args.context, args.config)):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
