"""Consumer-lag history kept across `streamctl check` runs, and Burrow-style group status.

One cron run sees one offset per partition; this store keeps the recent samples per
(context, group, topic, partition) in a small SQLite file (WAL, busy timeout, schema versioned
by `PRAGMA user_version`) so that one run can tell a consumer catching up from one that stopped.
A partition's samples are one row: its times, committed offsets and log ends as packed arrays
(a row a sample cost check ~0.15 s a run on 1,800 partitions of 30 samples).

A sample's lag is log_end - committed (at least 0), the log end carried forward from the
previous sample when a snapshot lacked it. Because every run stores the current log end, the
lag of a consumer that stopped committing keeps growing instead of freezing at its last commit.

A partition's samples: series.py; statuses: rules.py (Burrow-style); the topic config cache,
in the same file: topic_configs.py.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from itertools import groupby, pairwise
from operator import itemgetter
from pathlib import Path
from typing import Self

from streamctl import paths
from streamctl.errors import StreamctlError
from streamctl.kafka.lag.rules import GroupStatus, LagStatus, PartitionStatus, judge, summary
from streamctl.kafka.lag.series import Series
from streamctl.model.kafka import PartitionLag

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


def _group_status(group: str, partitions: list, now: float, allowed_lag: int, window: float) -> GroupStatus:
    """partitions: (group, topic, partition, Series) of one group."""
    latest = max(series.ts[-1] for *_, series in partitions)
    parts = []
    for _, topic, part, series in partitions:
        if series.ts[-1] == latest:  # partitions gone from the group's snapshot wait to expire
            ts, committed, lags = series.lags()
            status, lag, detail = judge(f"{topic}/{part}", ts, committed, lags, now, allowed_lag, window)
            parts.append(PartitionStatus(topic, part, status, lag, detail))
    status, detail = summary(parts, allowed_lag)
    return GroupStatus(group, status, tuple(parts), detail)


def _read_series(db: sqlite3.Connection, context: str) -> list[tuple[str, str, int, Series]]:
    rows = db.execute("SELECT grp, topic, part, ts, committed, log_end FROM series WHERE context = ?"
                      " ORDER BY grp, topic, part", (context,)).fetchall()
    return [(grp, topic, part, Series.unpacked(*packed)) for grp, topic, part, *packed in rows]


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
        series = Series([], [], [])
        for *_, ts, committed, log_end in samples:
            series.add(ts, committed, log_end)
        db.execute("INSERT INTO series VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*key, *series.packed()))
    db.execute("DROP TABLE samples")


@dataclass
class _KnownHistory:
    """A context's series as read or written when the file's data_version was `version`."""

    context: str
    version: int
    history: list[tuple[str, str, int, Series]]

    @cached_property
    def by_key(self) -> dict[tuple[str, str, int], Series]:
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
                self._use_wal(timeout)
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
        a sample of the last series.OVERLAP seconds (its log ends were read before the other's):
        either would make offsets seem to go back, so neither is stored."""
        oldest = now - self.retention
        with self.transaction() as db:
            stored = {(grp, topic, part): series for grp, topic, part, series in self._history(context, forget=True)}
            rows = []
            for p in lags:
                if p.committed is None:
                    continue
                key = (p.group, p.topic, p.partition)
                series = stored.get(key)
                if series is None:
                    series = stored[key] = Series([], [], [])
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
                kept = Series.unpacked(*packed).trim(self.max_samples, oldest)
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

    # ------------------------------------------------------------------ reading

    def read_ahead(self, context: str) -> None:
        """Read the context's history now, outside any transaction (in a thread beside a
        snapshot, say): record() and the reads after it use it while no other connection has
        written to the file since, instead of reading it again."""
        with self._errors():
            version = self._data_version()
            self._known = _KnownHistory(context, version, _read_series(self._db, context))

    def query(self, sql: str, parameters: tuple) -> list[tuple]:
        """The rows of one read of the file (its other tables: topic_configs.py)."""
        with self._errors():
            return self._db.execute(sql, parameters).fetchall()

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

    def _history(self, context: str, forget: bool = False) -> list[tuple[str, str, int, Series]]:
        """(group, topic, partition, samples) ordered by group, topic and partition: as known, if
        no other connection has written since, else read. `forget`: the caller changes it."""
        with self._errors():
            known = self._current(context)
            if forget:
                self._known = None
            return known.history if known else _read_series(self._db, context)

    def _series(self, context: str, key: tuple[str, str, int]) -> Series | None:
        """One partition's samples, from the known history when it is current."""
        with self._errors():
            known = self._current(context)
            if known:
                return known.by_key.get(key)
            row = self._db.execute(
                "SELECT ts, committed, log_end FROM series WHERE context = ? AND grp = ? AND topic = ? AND part = ?",
                (context, *key)).fetchone()
        return Series.unpacked(*row) if row else None

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

    def _use_wal(self, timeout: float) -> None:
        """Switch the file to WAL. On a file just created, connections racing to switch it get
        SQLITE_BUSY at once, without the busy timeout's wait (seen with three `check` threads of
        `--all-contexts` on a fresh state dir): so retry until the timeout."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if getattr(exc, "sqlite_errorname", None) != "SQLITE_BUSY" or time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    def _migrate(self) -> None:
        with self.transaction() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(_MIGRATIONS):
                raise StreamctlError(
                    f"lag history {self.path} has schema version {version}, newer than this"
                    f" streamctl knows ({len(_MIGRATIONS)}); upgrade streamctl or delete the file")
            for number, step in enumerate(_MIGRATIONS[version:], start=version + 1):
                step(db) if callable(step) else db.execute(step)
                db.execute(f"PRAGMA user_version = {number}")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
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


def _log_end_at_least(lag: PartitionLag) -> int | None:
    """The snapshot reads log ends and committed offsets at the same time, so a consumer that
    commits meanwhile can show a committed offset past the log end read a moment before. The
    log had reached at least that offset: stored so, the history's log end never lags behind
    its commits (which would read as a produce rate that went backwards)."""
    if lag.log_end is None or lag.committed is None:  # the caller skips uncommitted partitions
        return None
    return max(lag.log_end, lag.committed)
