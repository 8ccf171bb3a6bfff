"""A Spark standalone cluster as its Master reports it (GET <master UI>/json/)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SparkWorker:
    id: str
    host: str
    state: str  # ALIVE | DEAD | DECOMMISSIONED | UNKNOWN
    cores: int
    cores_used: int
    memory_mb: int
    memory_used_mb: int
    ui_url: str | None
    last_heartbeat_ms: int | None

    @property
    def alive(self) -> bool:
        return self.state == "ALIVE"


@dataclass(frozen=True)
class SparkApp:
    id: str
    name: str
    state: str  # WAITING | RUNNING | FINISHED | FAILED | KILLED | UNKNOWN
    cores: int | None  # cores granted to it right now
    memory_per_executor_mb: int | None
    user: str | None
    started_ms: int | None
    duration_ms: int | None
    active: bool  # listed among the Master's active applications

    @property
    def waiting(self) -> bool:
        """Active but holding no cores: never scheduled (WAITING), or its executors went with
        their workers (the Master keeps such an app RUNNING with 0 cores granted)."""
        return self.active and (self.state == "WAITING" or self.cores == 0)


@dataclass(frozen=True)
class SparkCluster:
    """One Master's view; `error` set when none of the configured Masters answered."""

    master_ui: str
    url: str | None = None  # spark://host:port
    status: str | None = None  # ALIVE | STANDBY | RECOVERING | ...
    workers: tuple[SparkWorker, ...] = ()
    apps: tuple[SparkApp, ...] = ()
    error: str | None = None

    @property
    def alive_workers(self) -> tuple[SparkWorker, ...]:
        return tuple(w for w in self.workers if w.alive)

    @property
    def dead_workers(self) -> tuple[SparkWorker, ...]:
        return tuple(w for w in self.workers if w.state == "DEAD")

    @property
    def cores(self) -> tuple[int, int]:
        """(used, total) over the live workers."""
        alive = self.alive_workers
        return sum(w.cores_used for w in alive), sum(w.cores for w in alive)

    @property
    def memory_mb(self) -> tuple[int, int]:
        alive = self.alive_workers
        return sum(w.memory_used_mb for w in alive), sum(w.memory_mb for w in alive)

    def app_named(self, name: str) -> SparkApp | None:
        """The job's application: the active one of that name, else the latest that ended."""
        named = [a for a in self.apps if a.name == name]
        active = [a for a in named if a.active]
        pool = active or named
        return max(pool, key=lambda a: a.started_ms or 0) if pool else None
