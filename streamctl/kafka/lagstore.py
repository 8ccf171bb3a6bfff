"""Consumer-lag history kept across `streamctl check` runs, and Burrow-style group status.

One cron run sees one offset per partition; this store keeps the recent samples per
(context, group, topic, partition) in a small SQLite file (WAL, busy timeout, schema versioned
by `PRAGMA user_version`) so that one run can tell a consumer catching up from one that stopped.
A partition's samples are one row: its times, committed offsets and log ends as packed arrays
(a row a sample cost check ~0.15 s a run on 1,800 partitions of 30 samples).

A sample's lag is log_end - committed (at least 0), the log end carried forward from the
previous sample when a snapshot lacked it. Because every run stores the current log end, the
lag of a consumer that stopped committing keeps growing instead of freezing at its last commit.

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

import json
import sqlite3
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from functools import cached_property, partial
from itertools import groupby, pairwise, takewhile
from operator import eq, itemgetter, sub
from pathlib import Path

from streamctl import paths
from streamctl.errors import StreamctlError
from streamctl.model.kafka import PartitionLag, Topic
from typing import Self

# Each entry upgrades the schema by one version; user_version counts the entries applied.
_MIGRATIONS = (
    """CREATE TABLE samples (
        context TEXT NOT NULL, grp TEXT NOT NULL, topic TEXT NOT NULL, part INTEGER NOT NULL,
        ts REAL NOT NULL, committed INTEGER NOT NULL, log_end INTEGER,
        PRIMARY KEY (context, grp, topic, part, ts)
    ) WITHOUT ROWID""",
    """CREATE TABLE record_times (
        context TEXT NOT NULL, topic TEXT NOT NULL, part INTEGER NOT NULL, "offset" INTEGER NOT NULL,
        ts REAL NOT NULL,
        PRIMARY KEY (context, topic, part, "offset")
    ) WITHOUT ROWID""",
    """CREATE TABLE topic_configs (
        context TEXT NOT NULL, topic TEXT NOT NULL, read_at REAL NOT NULL, configs TEXT NOT NULL,
        PRIMARY KEY (context, topic)
    ) WITHOUT ROWID""",
    lambda db: _series_from_samples(db),  # noqa: PLW0108 - defined below
)


def default_path() -> Path:
    """The store's file in the XDG state dir."""
    return paths.state_dir() / "lag.sqlite"


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


def _group_status(group: str, partitions: list, now: float, allowed_lag: int, window: float) -> GroupStatus:
    """partitions: (group, topic, partition, _Series) of one group."""
    latest = max(series.ts[-1] for *_, series in partitions)
    parts = []
    for _, topic, part, series in partitions:
        if series.ts[-1] == latest:  # partitions gone from the group's snapshot wait to expire
            ts, committed, lags = series.lags()
            status, lag, detail = _judge(f"{topic}/{part}", ts, committed, lags, now, allowed_lag, window)
            parts.append(PartitionStatus(topic, part, status, lag, detail))
    status, detail = _summary(parts, allowed_lag)
    return GroupStatus(group, status, tuple(parts), detail)


OVERLAP = 30.0  # seconds within which two processes' reads may interleave
_NO_LOG_END = -1  # a sample whose log end was not read, as packed


@dataclass
class _Series:
    """One partition's samples by time: three columns, packed as little-endian float64 and int64."""

    ts: list[float]
    committed: list[int]
    log_end: list[int | None]

    @classmethod
    def unpacked(cls, ts: bytes, committed: bytes, log_end: bytes) -> _Series:
        ends = _unpack("q", log_end)
        if _NO_LOG_END in ends:
            ends = [None if end == _NO_LOG_END else end for end in ends]
        return cls(_unpack("d", ts), _unpack("q", committed), ends)

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

    def trim(self, max_samples: int, oldest: float) -> _Series:
        """Only the newest `max_samples` samples not before `oldest` kept."""
        start = max(len(self.ts) - max_samples, bisect_left(self.ts, oldest))
        if start > 0:
            del self.ts[:start], self.committed[:start], self.log_end[:start]
        return self

    def packed(self) -> tuple:
        """(first_ts, last_ts, packed ts, committed, log_end): a row's columns."""
        log_end = self.log_end
        if None in log_end:
            log_end = [_NO_LOG_END if end is None else end for end in log_end]
        return self.ts[0], self.ts[-1], _pack("d", self.ts), _pack("q", self.committed), _pack("q", log_end)

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


def _read_series(db: sqlite3.Connection, context: str) -> list[tuple[str, str, int, _Series]]:
    rows = db.execute("SELECT grp, topic, part, ts, committed, log_end FROM series WHERE context = ?"
                      " ORDER BY grp, topic, part", (context,)).fetchall()
    return [(grp, topic, part, _Series.unpacked(*packed)) for grp, topic, part, *packed in rows]


def _pack(code: str, values: list) -> bytes:
    packed = array(code, values)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


def _unpack(code: str, data: bytes) -> list:
    values = array(code)
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values.tolist()


def _series_from_samples(db: sqlite3.Connection) -> None:
    """Schema 4: the samples table's rows (one a sample) become one series row a partition."""
    db.execute("""CREATE TABLE series (
        context TEXT NOT NULL, grp TEXT NOT NULL, topic TEXT NOT NULL, part INTEGER NOT NULL,
        first_ts REAL NOT NULL, last_ts REAL NOT NULL,
        ts BLOB NOT NULL, committed BLOB NOT NULL, log_end BLOB NOT NULL,
        PRIMARY KEY (context, grp, topic, part)
    ) WITHOUT ROWID""")
    rows = db.execute("SELECT context, grp, topic, part, ts, committed, log_end FROM samples"
                      " ORDER BY context, grp, topic, part, ts").fetchall()
    for key, samples in groupby(rows, key=itemgetter(0, 1, 2, 3)):
        series = _Series([], [], [])
        for *_, ts, committed, log_end in samples:
            series.add(ts, committed, log_end)
        db.execute("INSERT INTO series VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*key, *series.packed()))
    db.execute("DROP TABLE samples")


@dataclass
class _KnownHistory:
    """A context's series as read or written when the file's data_version was `version`."""

    context: str
    version: int
    history: list[tuple[str, str, int, _Series]]

    @cached_property
    def by_key(self) -> dict[tuple[str, str, int], _Series]:
        return {(grp, topic, part): series for grp, topic, part, series in self.history}


class LagStore:
    """Lag samples in one SQLite file; safe for several processes writing at once."""

    def __init__(self, path: Path, *, expire_after: float = 3600.0, max_samples: int = 30,
                 retention: float = 86400.0, timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.expire_after = expire_after
        self.max_samples = max_samples
        self.retention = retention
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StreamctlError(f"cannot create {self.path.parent}: {exc.strerror}") from None
        # The history as last read or written, while no other connection has written since.
        self._known: _KnownHistory | None = None
        with self._errors():
            # Not only its opener's thread: read_ahead() runs beside a snapshot, joined before
            # the next use, so one thread at a time uses the connection.
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None,
                                       check_same_thread=False)
        try:
            with self._errors():
                self._db.execute("PRAGMA journal_mode = WAL")
                # No fsync per commit (~15 ms each): WAL stays consistent, and a power loss can
                # cost only the latest sample, which the next run replaces.
                self._db.execute("PRAGMA synchronous = NORMAL")
                self._migrate()
        except StreamctlError:
            self._db.close()
            raise

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------------ writing

    def record(self, context: str, lags: Iterable[PartitionLag], now: float) -> None:
        """Store one snapshot's offsets (uncommitted partitions skipped), then prune, atomically.

        Several processes read and record at once (check from cron, the dashboard). A sample
        dated no later than one already stored is stale, and so is one whose log end is below
        a sample of the last OVERLAP seconds (its log ends were read before the other's):
        either would make offsets seem to go back, so neither is stored."""
        oldest = now - self.retention
        with self._write() as db:
            stored = {(grp, topic, part): series for grp, topic, part, series in self._history(context, forget=True)}
            rows = []
            for p in lags:
                if p.committed is None:
                    continue
                key = (p.group, p.topic, p.partition)
                series = stored.get(key)
                if series is None:
                    series = stored[key] = _Series([], [], [])
                log_end = _log_end_at_least(p)
                if series.is_stale(now, log_end):
                    continue
                series.add(now, p.committed, log_end)
                rows.append((context, *key, *series.trim(self.max_samples, oldest).packed()))
            db.executemany("INSERT OR REPLACE INTO series VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            # Samples past retention, in every context (partitions this snapshot did not update).
            aged = db.execute("SELECT context, grp, topic, part, ts, committed, log_end FROM series"
                              " WHERE first_ts < ?", (oldest,)).fetchall()
            for ctx, grp, topic, part, *packed in aged:
                kept = _Series.unpacked(*packed).trim(self.max_samples, oldest)
                if not kept.ts:
                    db.execute("DELETE FROM series WHERE context = ? AND grp = ? AND topic = ? AND part = ?",
                               (ctx, grp, topic, part))
                else:
                    db.execute("INSERT OR REPLACE INTO series VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               (ctx, grp, topic, part, *kept.packed()))
            # The timestamps of the records at this snapshot's committed offsets, and no others.
            db.execute("DELETE FROM record_times WHERE context = ?", (context,))
            db.executemany("INSERT OR REPLACE INTO record_times VALUES (?, ?, ?, ?, ?)",
                           [(context, p.topic, p.partition, p.committed, p.record_time)
                            for p in lags if p.record_time is not None and p.committed is not None])
            # Partitions (hence groups, topics) not seen for expire_after.
            expired = now - self.expire_after
            db.execute("DELETE FROM series WHERE context = ? AND last_ts < ?", (context, expired))
            # What the file now holds for the context, for the reads that follow.
            for series in stored.values():  # as the retention pass above left the rows it read
                if series.ts and series.ts[0] < oldest:
                    series.trim(self.max_samples, oldest)
            history = sorted((*key, series) for key, series in stored.items()
                             if series.ts and series.ts[-1] >= expired)
            version = self._data_version()
        self._known = _KnownHistory(context, version, history)

    def record_topic_configs(self, context: str, topics: Iterable[Topic],
                             kept: Mapping[str, tuple[dict[str, str], float]]) -> None:
        """Keep the key configs of a snapshot's topics with when each was read, in place of
        those kept before (a topic deleted since is forgotten), when it read any afresh (not
        in `kept`, what topic_configs gave it): else nothing is written."""
        rows = [(context, t.name, t.configs_read_at, json.dumps(t.configs))
                for t in topics if t.configs_read_at is not None]
        if any(name not in kept or kept[name][1] != read_at for _, name, read_at, _ in rows):
            with self._write() as db:
                db.execute("DELETE FROM topic_configs WHERE context = ?", (context,))
                db.executemany("INSERT INTO topic_configs VALUES (?, ?, ?, ?)", rows)

    # ------------------------------------------------------------------ reading

    def read_ahead(self, context: str) -> None:
        """Read the context's history now, outside any transaction (in a thread beside a
        snapshot, say): record() and the reads after it use it while no other connection has
        written to the file since, instead of reading it again."""
        with self._errors():
            version = self._data_version()
            self._known = _KnownHistory(context, version, _read_series(self._db, context))

    def topic_configs(self, context: str, max_age: float, now: float) -> dict[str, tuple[dict[str, str], float]]:
        """(key configs, when read) by topic, read within `max_age` seconds before `now`."""
        with self._errors():
            rows = self._db.execute("SELECT topic, configs, read_at FROM topic_configs WHERE context = ? AND read_at >= ?",
                                    (context, now - max_age))
            return {topic: (json.loads(configs), read_at) for topic, configs, read_at in rows}

    def record_times(self, context: str) -> dict[tuple[str, int, int], float]:
        """Timestamps of the records at the committed offsets `record` last stored, by
        (topic, partition, offset): a record's timestamp never changes, so a later run need
        not read it again."""
        with self._errors():
            rows = self._db.execute('SELECT topic, part, "offset", ts FROM record_times WHERE context = ?',
                                    (context,))
            return {(topic, part, offset): ts for topic, part, offset, ts in rows}

    def groups(self, context: str) -> list[str]:
        """Groups with history in this context, sorted."""
        with self._errors():
            rows = self._db.execute(
                "SELECT DISTINCT grp FROM series WHERE context = ? ORDER BY grp", (context,))
            return [grp for (grp,) in rows]

    def evaluate(self, context: str, group: str, now: float, allowed_lag: int,
                 window: float) -> GroupStatus:
        """The group's status from its history (rules in the module docstring)."""
        return self.evaluate_groups(context, [group], now, allowed_lag, window)[group]

    def evaluate_groups(self, context: str, groups: Iterable[str], now: float, allowed_lag: int,
                        window: float) -> dict[str, GroupStatus]:
        """evaluate() for many groups from one read of the context's history."""
        wanted = set(groups)
        statuses = {}
        for group, partitions in groupby(self._history(context), key=itemgetter(0)):
            if group in wanted:
                statuses[group] = _group_status(group, list(partitions), now, allowed_lag, window)
        for group in wanted - statuses.keys():
            statuses[group] = GroupStatus(group, LagStatus.UNKNOWN, (),
                                          f"no lag history for group {group} in context {context}")
        return statuses

    def samples(self, context: str) -> list[tuple[str, str, int, list[tuple[float, int, int | None]]]]:
        """Every stored sample of the context: (group, topic, partition, [(ts, committed, log_end),
        ...] by time), ordered by group, topic and partition."""
        with self._errors():
            return [(grp, topic, part, list(zip(series.ts, series.committed, series.log_end)))
                    for grp, topic, part, series in _read_series(self._db, context)]

    def _history(self, context: str, forget: bool = False) -> list[tuple[str, str, int, _Series]]:
        """(group, topic, partition, samples) ordered by group, topic and partition: as known, if
        no other connection has written since, else read. `forget`: the caller changes it."""
        with self._errors():
            known = self._current(context)
            if forget:
                self._known = None
            return known.history if known else _read_series(self._db, context)

    def _series(self, context: str, key: tuple[str, str, int]) -> _Series | None:
        """One partition's samples, from the known history when it is current."""
        with self._errors():
            known = self._current(context)
            if known:
                return known.by_key.get(key)
            row = self._db.execute(
                "SELECT ts, committed, log_end FROM series WHERE context = ? AND grp = ? AND topic = ? AND part = ?",
                (context, *key)).fetchone()
        return _Series.unpacked(*row) if row else None

    def _current(self, context: str) -> _KnownHistory | None:
        """The known history of `context`, if no other connection has written to the file since."""
        known = self._known
        if known is None or known.context != context or known.version != self._data_version():
            return None
        return known

    def _data_version(self) -> int:
        """Changes whenever another connection commits to the file (SQLite's data_version)."""
        return self._db.execute("PRAGMA data_version").fetchone()[0]

    def lag_seconds_from_history(self, context: str, group: str, topic: str, partition: int,
                                 committed: int, now: float) -> float | None:
        """Seconds since the log end stood at `committed` (linear between the two samples
        around it); 0 if caught up; None if the history does not reach back that far."""
        series = self._series(context, (group, topic, partition))
        if series is None:
            return None
        rows = [(end, ts) for ts, end in zip(series.ts, series.log_end) if end is not None]
        if not rows:
            return None
        if committed >= rows[-1][0]:
            return 0.0
        for (end_a, ts_a), (end_b, ts_b) in reversed(list(pairwise(rows))):
            if end_a <= committed < end_b:
                at = ts_a + (committed - end_a) / (end_b - end_a) * (ts_b - ts_a)
                return max(0.0, now - at)
        return None

    # ------------------------------------------------------------------ plumbing

    def _migrate(self) -> None:
        with self._write() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(_MIGRATIONS):
                raise StreamctlError(
                    f"lag history {self.path} has schema version {version}, newer than this"
                    f" streamctl knows ({len(_MIGRATIONS)}); upgrade streamctl or delete the file")
            for number, step in enumerate(_MIGRATIONS[version:], start=version + 1):
                step(db) if callable(step) else db.execute(step)
                db.execute(f"PRAGMA user_version = {number}")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taking the lock up front (waits up to the busy timeout)."""
        with self._errors():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """sqlite3 errors -> one StreamctlError naming the file and what to do."""
        try:
            yield
        except sqlite3.Error as exc:
            name = getattr(exc, "sqlite_errorname", None)
            if name in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
                hint = "is damaged or not a lag history; delete it and streamctl starts a new one"
            elif name == "SQLITE_BUSY":
                hint = "is locked by another process; try again"
            else:
                hint = "cannot be used"
            raise StreamctlError(f"lag history {self.path} {hint} ({exc})") from None


def _judge(name: str, ts: list[float], committed: list[int], lags: list[int], now: float, allowed: int,
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


def _summary(parts: list[PartitionStatus], allowed: int) -> tuple[LagStatus, str]:
    """The group's (status, detail) from its partitions'."""
    worst = max(parts, key=lambda p: p.status.rank)
    if worst.status is LagStatus.OK:
        ok = sum(p.status is LagStatus.OK for p in parts)
        return worst.status, f"lag <= allowed {allowed} on {ok} of {len(parts)} partition(s)"
    alike = sum(p.status is worst.status for p in parts) - 1
    more = f" (and {alike} more {worst.status.value})" if alike else ""
    return worst.status, worst.detail + more


def _log_end_at_least(lag: PartitionLag) -> int | None:
    """The snapshot reads log ends and committed offsets at the same time, so a consumer that
    commits meanwhile can show a committed offset past the log end read a moment before. The
    log had reached at least that offset: stored so, the history's log end never lags behind
    its commits (which would read as a produce rate that went backwards)."""
    if lag.log_end is None or lag.committed is None:  # the caller skips uncommitted partitions
        return None
    return max(lag.log_end, lag.committed)
