"""The sandbox's record of itself: each service's pid, port and argv (state.json), and the lock
that serialises changes to it across threads and processes."""

from __future__ import annotations

import fcntl
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from streamctl.jvm import processes as procs


@dataclass
class Service:
    """One process of the sandbox, as recorded in state.json."""

    name: str  # "zookeeper", "kafka-1", ...
    role: str  # "zookeeper" | "broker"
    port: int  # 0: listens on none (the load generator, the Streams app)
    argv: list[str]
    log: str
    node_id: int | None = None
    controller_port: int | None = None  # KRaft nodes: the CONTROLLER listener
    pid: int | None = None
    create_time: float | None = None
    stopped: bool = False  # stopped on purpose (down, stop_service), not crashed
    env: dict[str, str] = field(default_factory=dict)  # extra environment for the process

    @property
    def alive(self) -> bool:
        return procs.is_alive(self.pid, self.create_time)


@dataclass
class ServiceStatus:
    name: str
    role: str
    pid: int | None
    port: int
    state: str  # running | paused | crashed | stopped
    uptime: float | None
    log: str
    log_tail: list[str] = field(default_factory=list)


@dataclass
class SandboxState:
    mode: str  # "zookeeper" | "kraft"
    brokers: int
    services: list[Service]
    admin_port: int | None = None  # ZooKeeper AdminServer
    cluster_id: str | None = None
    secure: bool = False  # SASL on Kafka and ZooKeeper (streamctl.sandbox.secure)
    distributed: bool = False  # the job on a Spark standalone cluster (streamctl.demo.spark_cluster)
    extras: dict = field(default_factory=dict)  # what add-ons remember (topics, paths)

    def by_role(self, role: str) -> list[Service]:
        return [s for s in self.services if s.role == role]

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(f"127.0.0.1:{s.port}" for s in self.by_role("broker"))

    @property
    def zookeeper_hosts(self) -> str | None:
        zk = self.by_role("zookeeper")
        return f"127.0.0.1:{zk[0].port}" if zk else None

    @classmethod
    def from_json(cls, data: dict) -> SandboxState:
        services = [Service(**s) for s in data.pop("services")]
        return cls(services=services, **data)


class StateLock:
    """Serialises state changes: threads of one process (RLock) and processes (flock)."""

    def __init__(self, root: Path):
        self.path = root / ".lock"
        self.rlock = threading.RLock()
        self.depth = 0
        self.handle: TextIO | None = None  # open while depth > 0

    def __enter__(self):
        self.rlock.acquire()
        if self.depth == 0:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.handle = open(self.path, "a")
            fcntl.flock(self.handle, fcntl.LOCK_EX)
        self.depth += 1
        return self

    def __exit__(self, *exc) -> None:
        self.depth -= 1
        if self.depth == 0:
            assert self.handle is not None  # opened by the __enter__ that raised depth to 1
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()
        self.rlock.release()
