"""One partition's lag samples by time, as the lag history stores them: three columns packed as
little-endian float64 and int64 arrays (one row a partition)."""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from operator import sub

OVERLAP = 30.0  # seconds within which two processes' reads may interleave
NO_LOG_END = -1  # a sample whose log end was not read, as packed


@dataclass
class Series:
    """One partition's samples by time."""

    ts: list[float]
    committed: list[int]
    log_end: list[int | None]

    @classmethod
    def unpacked(cls, ts: bytes, committed: bytes, log_end: bytes) -> Series:
        ends = unpack("q", log_end)
        if NO_LOG_END in ends:
            ends = [None if end == NO_LOG_END else end for end in ends]
        return cls(unpack("d", ts), unpack("q", committed), ends)

    def is_stale(self, ts: float, log_end: int | None) -> bool:
        """Whether a sample at `ts` would make offsets seem to go back (see LagStore.record)."""
        if self.ts and self.ts[-1] >= ts:
            return True
        if log_end is not None:
            for i in range(len(self.ts) - 1, -1, -1):  # newest first: only the last OVERLAP seconds count
                if self.ts[i] <= ts - OVERLAP:
                    break
                if (end := self.log_end[i]) is not None and end > log_end:
                    return True
        return False

    def add(self, ts: float, committed: int, log_end: int | None) -> None:
        self.ts.append(ts)
        self.committed.append(committed)
        self.log_end.append(log_end)

    def trim(self, max_samples: int, oldest: float) -> Series:
        """Only the newest `max_samples` samples not before `oldest` kept."""
        start = max(len(self.ts) - max_samples, bisect_left(self.ts, oldest))
        if start > 0:
            del self.ts[:start], self.committed[:start], self.log_end[:start]
        return self

    def packed(self) -> tuple:
        """(first_ts, last_ts, packed ts, committed, log_end): a row's columns."""
        log_end = self.log_end
        if None in log_end:
            log_end = [NO_LOG_END if end is None else end for end in log_end]
        return self.ts[0], self.ts[-1], pack("d", self.ts), pack("q", self.committed), pack("q", log_end)

    def lags(self) -> tuple[list[float], list[int], list[int]]:
        """The samples with a lag (at least 0), as columns (times, committed offsets, lags): a log
        end not read is carried forward from the sample before (a sample before any is left out)."""
        if None not in self.log_end:  # the usual case, in C: every sample has its lag
            lags = list(map(sub, self.log_end, self.committed))
            if not lags or min(lags) >= 0:
                return self.ts, self.committed, lags
        columns: tuple[list, list, list] = ([], [], [])
        log_end = None
        for ts, committed, end in zip(self.ts, self.committed, self.log_end):
            if end is not None:
                log_end = end
            if log_end is not None:
                for column, value in zip(columns, (ts, committed, max(0, log_end - committed))):
                    column.append(value)
        return columns


def pack(code: str, values: list) -> bytes:
    packed = array(code, values)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


def unpack(code: str, data: bytes) -> list:
    values = array(code)
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values.tolist()
