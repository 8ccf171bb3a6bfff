"""How far the moves in flight are: one reading of the moving partitions (bytes copied to the
adding replicas, at a monotonic time), and from two readings the rate, ETA and percent, per
partition and overall. Pure: no I/O, no UI (`reassign status` and the dashboard share it).

A partition's bytes_total is its largest replica's size times its adding replicas; bytes_done
is what those replicas hold (None while a broker's log dirs were not read). A rate needs the
partition in both readings with bytes known and growing: otherwise it is None (unknown), and so
are the ETA and, overall, any figure no partition gave.
"""

from __future__ import annotations

from dataclasses import dataclass

from streamctl.times import short_duration

Partition = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Moving:
    """One partition being moved, as one reading saw it."""

    replicas: list[int]
    adding: list[int]
    removing: list[int]
    bytes_done: int | None
    bytes_total: int


@dataclass(frozen=True, slots=True)
class Reading:
    at: float  # time.monotonic() of the reading
    partitions: dict[Partition, Moving]


def reading(in_flight: dict[Partition, dict[str, list[int]]], sizes: dict[tuple[int, str, int], int],
            at: float) -> Reading:
    """A Reading from ReassignAdmin's answers: in_flight() and sizes() (bytes per replica)."""
    largest: dict[Partition, int] = {}
    for (_, topic, partition), size in sizes.items():
        largest[(topic, partition)] = max(size, largest.get((topic, partition), 0))
    partitions = {}
    for (t, p), state in sorted(in_flight.items()):
        done = [sizes.get((b, t, p)) for b in state["adding_replicas"]]
        known = all(d is not None for d in done)
        partitions[(t, p)] = Moving(state["replicas"], state["adding_replicas"], state["removing_replicas"],
                                    sum(d or 0 for d in done) if known else None, largest.get((t, p), 0) * len(done))
    return Reading(at, partitions)


def rate(before: Reading | None, now: Reading, partition: Partition) -> float | None:
    """Bytes/s copied to the partition's adding replicas between the readings."""
    if before is None or now.at <= before.at or partition not in before.partitions:
        return None
    then, current = before.partitions[partition].bytes_done, now.partitions[partition].bytes_done
    if then is None or current is None or current < then:
        return None  # unread, or retention deleted a segment: no rate this time
    return (current - then) / (now.at - before.at)


def percent(done: int | None, total: int) -> float | None:
    if done is None:
        return None
    return 100.0 if total <= 0 else min(100.0, 100.0 * done / total)


def eta(done: int | None, total: int, bytes_per_s: float | None) -> float | None:
    """Seconds left at this rate; None while the rate is unknown or zero."""
    if done is None:
        return None
    left = max(0, total - done)
    if left == 0:
        return 0.0
    return left / bytes_per_s if bytes_per_s else None


def figures(before: Reading | None, now: Reading) -> dict:
    """The status as data: per partition (sorted) and overall, with rate_bytes_per_s, eta_seconds
    and percent (None when unknown). `before`: the earlier reading, None for a single one."""
    rows = []
    rates: list[float] = []
    for (t, p), moving in sorted(now.partitions.items()):
        bytes_per_s = rate(before, now, (t, p))
        if bytes_per_s is not None:
            rates.append(bytes_per_s)
        rows.append({"partition": f"{t}/{p}", "replicas": moving.replicas, "adding": moving.adding,
                     "removing": moving.removing, "bytes_done": moving.bytes_done, "bytes_total": moving.bytes_total,
                     "rate_bytes_per_s": _rounded(bytes_per_s),
                     "percent": _rounded(percent(moving.bytes_done, moving.bytes_total)),
                     "eta_seconds": _rounded(eta(moving.bytes_done, moving.bytes_total, bytes_per_s))})
    known = [m for m in now.partitions.values() if m.bytes_done is not None]
    done, total = sum(m.bytes_done or 0 for m in known), sum(m.bytes_total for m in known)
    overall_rate = sum(rates) if rates else None
    return {"in_progress": bool(now.partitions), "partitions": rows,
            "rate_bytes_per_s": _rounded(overall_rate),
            "percent": _rounded(percent(done, total)) if known else None,
            "eta_seconds": _rounded(eta(done, total, overall_rate)) if known else None}


def summary(status: dict) -> str:
    """One line: "12 partitions moving, 40%, ETA 3 min" (the figures unknown are left out)."""
    count = len(status["partitions"])
    parts = [f"{count} partition{'' if count == 1 else 's'} moving"]
    if status["percent"] is not None:
        parts.append(f"{status['percent']:.0f}%")
    if status["rate_bytes_per_s"] is not None:
        parts.append(f"{human_bytes(status['rate_bytes_per_s'])}/s")
    if status["eta_seconds"] is not None:
        parts.append(f"ETA {short_duration(status['eta_seconds'])}")
    return ", ".join(parts)


def human_bytes(value: float) -> str:
    if abs(value) < 1000:
        return f"{value:.0f} B"
    for unit in ("kB", "MB"):
        value /= 1000
        if abs(value) < 1000:
            return f"{value:.1f} {unit}"
    return f"{value / 1000:.1f} GB"


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)
