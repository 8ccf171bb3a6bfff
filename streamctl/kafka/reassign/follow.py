"""Readings of the moves in flight through a ReassignAdmin (the I/O beside progress.py's math):
one now, or two `window` seconds apart for the rate and ETA."""

from __future__ import annotations

import time

from streamctl.kafka.reassign.progress import Reading, reading


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
