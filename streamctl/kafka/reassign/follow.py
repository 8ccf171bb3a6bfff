"""What the reassign commands and the dashboard read through a ReassignAdmin: the layout a plan
starts from, and readings of the moves in flight (the I/O beside progress.py's math), one now
or two `window` seconds apart for the rate and ETA."""

from __future__ import annotations

import time

from streamctl.kafka.reassign.planner import Layout
from streamctl.kafka.reassign.progress import Reading, reading


def read_layout(admin) -> Layout:
    """Brokers, replicas, and each partition's size: the largest of its replicas on disk."""
    layout, sizes = admin.layout_and_sizes()
    largest: dict[tuple[str, int], int] = {}
    for (_, topic, partition), size in sizes.items():
        largest[(topic, partition)] = max(size, largest.get((topic, partition), 0))
    return Layout(layout["brokers"], layout["replicas"], largest)


def take_reading(admin) -> Reading:
    """The partitions moving and the bytes on their replicas (log dirs read only while some move)."""
    moving = admin.in_flight()
    return reading(moving, admin.sizes() if moving else {}, time.monotonic())


def readings(admin, window: float) -> tuple[Reading | None, Reading]:
    """(before, now): a second reading `window` seconds after the first while something moves;
    before is None for a single reading (window 0, or nothing moving)."""
    first = take_reading(admin)
    if window <= 0 or not first.partitions:
        return None, first
    time.sleep(max(0.0, window - (time.monotonic() - first.at)))
    return first, take_reading(admin)
