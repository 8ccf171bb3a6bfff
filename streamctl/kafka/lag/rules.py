"""Burrow-style consumer lag status: a partition's samples in, a status and a line for people out.
Pure functions; the samples come from the lag history (store.py).

Status of one partition. The judged samples are those taken within `window` seconds before
`now`; if fewer than 2, all stored samples (the detail says so). "History" is all stored samples.

1. UNKNOWN: fewer than 2 samples with a known lag.
2. REWOUND: the committed offset went down between two consecutive judged samples
   (the most recent drop is reported).
3. OK: the latest lag <= allowed_lag.
4. STOPPED: the committed offset has stood still for at least `window` seconds (from the first
   sample at the current offset to the latest one) while the latest lag > allowed_lag. The log
   end need not move: a backlog that nobody drains is a stop too.
5. STALLED: history spans at least `window`, the committed offset moved across the judged
   samples, yet the lag never shrank from one judged sample to the next (latest lag > allowed).
6. LAGGING: otherwise (latest lag > allowed): "catching up" when the latest lag is below the
   first judged one; "not judged yet" while history spans less than `window`.

A group is as bad as its worst partition: REWOUND > STOPPED > STALLED > LAGGING > OK > UNKNOWN
(UNKNOWN only if every partition is; the order among the first three is only a tie-break).
Only the partitions in the group's latest recorded snapshot are judged; `record` deletes
partitions (and so groups) not seen for `expire_after` seconds.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from enum import Enum
from functools import partial
from itertools import takewhile
from operator import eq


class LagStatus(str, Enum):
    OK = "OK"
    LAGGING = "LAGGING"
    STALLED = "STALLED"
    STOPPED = "STOPPED"
    REWOUND = "REWOUND"
    UNKNOWN = "UNKNOWN"

    @property
    def rank(self) -> int:
        """Worst-of order: REWOUND > STOPPED > STALLED > LAGGING > OK > UNKNOWN."""
        return _RANK.index(self)


_RANK = [LagStatus.UNKNOWN, LagStatus.OK, LagStatus.LAGGING, LagStatus.STALLED,
         LagStatus.STOPPED, LagStatus.REWOUND]


@dataclass(frozen=True)
class PartitionStatus:
    topic: str
    partition: int
    status: LagStatus
    lag: int | None  # latest lag in records
    detail: str  # one line for people


@dataclass(frozen=True)
class GroupStatus:
    group: str
    status: LagStatus
    partitions: tuple[PartitionStatus, ...]
    detail: str  # one line for people: the worst partition's story


def judge(name: str, ts: list[float], committed: list[int], lags: list[int], now: float, allowed: int,
           window: float) -> tuple[LagStatus, int | None, str]:
    """One partition's (status, latest lag, detail) from its samples as columns, oldest first."""
    if len(ts) < 2:
        return LagStatus.UNKNOWN, lags[-1] if lags else None, f"{name} has {len(ts)} sample(s), 2 needed"
    last_lag, last_committed = lags[-1], committed[-1]
    first = bisect_left(ts, now - window)  # the first judged sample
    note = ""
    if len(ts) - first < 2:
        first = 0
        note = f" (under 2 samples in the {window:.0f} s window: judged all {len(ts)})"
    judged = committed[first:]
    if judged != sorted(judged):  # went back somewhere: the most recent drop is reported
        for i in range(len(ts) - 1, first, -1):
            if committed[i] < committed[i - 1]:
                return LagStatus.REWOUND, last_lag, (
                    f"{name} committed offset went back from {committed[i - 1]} to {committed[i]}"
                    f" {now - ts[i]:.0f} s ago{note}")
    if last_lag <= allowed:
        return LagStatus.OK, last_lag, f"{name} lag {last_lag} <= allowed {allowed}"
    over = f"lag {last_lag} > allowed {allowed}"
    # The first of the latest samples at the current committed offset.
    unchanged = len(list(takewhile(partial(eq, last_committed), reversed(committed))))
    since = ts[-unchanged]
    if ts[-1] - since >= window:
        return LagStatus.STOPPED, last_lag, (
            f"{name} committed offset {last_committed} unchanged for {ts[-1] - since:.0f} s"
            f" while {over}{note}")
    first_lag, span = lags[first], ts[-1] - ts[first]
    covered = ts[-1] - ts[0] >= window
    judged_lags = lags[first:]
    if covered and last_committed > committed[first] and judged_lags == sorted(judged_lags):  # never shrank
        return LagStatus.STALLED, last_lag, (
            f"{name} committed offset moving but lag never shrank over {span:.0f} s"
            f" ({first_lag} -> {last_lag}), {over}{note}")
    if last_lag < first_lag:
        why = f"catching up ({first_lag} -> {last_lag} over {span:.0f} s)"
    elif not covered:
        why = f"not judged yet: {ts[-1] - ts[0]:.0f} s of history, window {window:.0f} s"
    else:
        why = f"not shrinking over {span:.0f} s"
    return LagStatus.LAGGING, last_lag, f"{name} {over}, {why}{note}"


def summary(parts: list[PartitionStatus], allowed: int) -> tuple[LagStatus, str]:
    """The group's (status, detail) from its partitions'."""
    worst = max(parts, key=lambda p: p.status.rank)
    if worst.status is LagStatus.OK:
        ok = sum(p.status is LagStatus.OK for p in parts)
        return worst.status, f"lag <= allowed {allowed} on {ok} of {len(parts)} partition(s)"
    alike = sum(p.status is worst.status for p in parts) - 1
    more = f" (and {alike} more {worst.status.value})" if alike else ""
    return worst.status, worst.detail + more
