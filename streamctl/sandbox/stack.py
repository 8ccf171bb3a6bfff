"""The sandbox: a real Kafka stack as local processes on 127.0.0.1 (no mocks, no Docker).

Layout under the root folder (the XDG state dir by default, a tmp dir in tests):
    conf/   generated server configs     data/   ZooKeeper and Kafka data
    logs/   one log file per service      state.json   pids, ports, argv of each service
The CLI, the demo and the pytest fixtures all run through this one class.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import ClassVar

from streamctl import paths
from streamctl.atomic import write_atomic
from streamctl.errors import StreamctlError, UsageError
from streamctl.jvm import maven
from streamctl.jvm import processes as procs
from streamctl.jvm.java import java as _java
from streamctl.sandbox import context as sandbox_context
from streamctl.sandbox import kraft_storage, names, probes, server_configs
from streamctl.sandbox import secure as sandbox_secure
from streamctl.sandbox import tls as sandbox_tls
from streamctl.sandbox.addons import Shape, addons, runs_on, shape_sets
from streamctl.sandbox.state import SandboxState, Service, ServiceStatus, StateLock

Report = Callable[[str], None]

START_TIMEOUT = 180.0
ROLE_TITLES = {"zookeeper": "ZooKeeper", "broker": "the brokers"}
STOP_GRACE = 20.0


JVM_FLAGS = ["-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-XX:-UsePerfData",
             "-Djava.awt.headless=true"]

class Sandbox:
    _state_locks: ClassVar[dict[str, StateLock]] = {}  # one per sandbox root in this process

    def __init__(self, root: Path | None = None, config_path: Path | None = None,
                 jars_root: Path | None = None, report: Report = lambda _: None,
                 name: str = names.DEFAULT, state_dir: Path | None = None):
        """`name` picks the sandbox (names.py): its folder under `state_dir` (streamctl's XDG state
        dir by default) unless `root` is given, and the context it writes."""
        self.name = names.check_name(name)
        self.state_dir = state_dir or paths.state_dir()
        self.root = Path(root) if root else names.root(name, self.state_dir)
        self.config_path = config_path
        self.jars_root = jars_root
        self.report = report
        self.lock = self._state_locks.setdefault(str(self.root), StateLock(self.root))

    # ---- state -------------------------------------------------------------------

    @property
    def state_file(self) -> Path:
        return self.root / "state.json"

    def load(self) -> SandboxState | None:
        try:
            return SandboxState.from_json(json.loads(self.state_file.read_text()))
        except FileNotFoundError:
            return None
        except (ValueError, TypeError, KeyError) as exc:
            raise StreamctlError(f"sandbox state {self.state_file} is unreadable ({exc}); "
                                 "run `streamctl sandbox down --wipe`") from None

    def _save(self, state: SandboxState) -> None:
        write_atomic(self.state_file, json.dumps(asdict(state), indent=2) + "\n", mode=0o644)

    def state(self) -> SandboxState:
        state = self.load()
        if state is None:
            raise StreamctlError("no sandbox here: run `streamctl sandbox up`")
        return state

    # ---- fetch -------------------------------------------------------------------

    def fetch(self, kraft: bool = False, with_addons: bool = True, only=None, distributed: bool = False) -> None:
        """Resolve the jars a stack of this shape runs: Kafka's and its add-ons' (`only` those
        add-ons when given), a no-op for the sets already cached."""
        shape = Shape(kraft, distributed)
        wanted = ([a for a in addons() if runs_on(a, shape)] if only is None else only) if with_addons else []
        maven.fetch_all(shape_sets(shape, wanted), self.jars_root, self.report)

    # ---- up ----------------------------------------------------------------------

    def up(self, brokers: int = 3, kraft: bool = False, with_addons: bool = True, secure: bool = False,
           addon_roles: tuple[str, ...] | None = None, distributed: bool = False,
           tls: bool = False, state_store: str | None = None) -> tuple[SandboxState, bool]:
        self.check_context_replaceable()  # before the lock: a refused `up` leaves no file behind
        with self.lock:
            return self._up(brokers, kraft, with_addons, secure, addon_roles, distributed, tls, state_store)

    def _up(self, brokers: int, kraft: bool, with_addons: bool, secure: bool = False,
            addon_roles: tuple[str, ...] | None = None, distributed: bool = False,
            tls: bool = False, state_store: str | None = None) -> tuple[SandboxState, bool]:
        """Start the stack; returns (state, started). A running stack is reported, not doubled.

        with_addons=False starts Kafka alone (no Flume agent, no Spark job, no Connect worker);
        secure=True (SASL, an authorizer) starts only the add-ons that log in (Connect);
        addon_roles limits the add-ons to those roles (e.g. ("connect",)); distributed=True runs
        the Spark job on a standalone Master and Worker instead of local[2]; state_store
        ("rocksdb") the demo job's state store provider (its --state-store), for a new stack.
        """
        if brokers < 1:
            raise UsageError("--brokers must be at least 1")
        if secure and tls:
            raise UsageError("--tls does not combine with --secure (SASL_PLAINTEXT listeners)")
        if secure and distributed:
            raise UsageError("--distributed runs the demo job, which the --secure sandbox does not start")
        mode = "kraft" if kraft else "zookeeper"
        state = self.load()
        if state is not None and (state.mode != mode or state.brokers != brokers or state.secure != secure
                                  or state.distributed != distributed or sandbox_tls.enabled(state) != tls):
            raise UsageError(
                f"the sandbox at {self.root} is a {_shape(state)} stack with {state.brokers} broker(s); "
                "run `streamctl sandbox down --wipe` before asking for another shape"
            )
        if state is not None and state_store and state.extras.get("spark_state_store", "hdfs") != state_store:
            raise UsageError(f"the sandbox's demo job keeps the state store it started with; run "
                             f"`streamctl sandbox down --wipe` before asking for --state-store {state_store}")
        wanted = [a for a in addons() if with_addons and (a.secure or not secure)
                  and (addon_roles is None or a.role in addon_roles)
                  and (distributed or not a.distributed_only)]
        missing_roles = [a for a in wanted if not state or not state.by_role(a.role)]
        if state is not None and not missing_roles and all(s.alive for s in state.services):
            self.write_context(state)
            return state, False
        java = _java()
        self.fetch(kraft, bool(wanted), only=wanted, distributed=distributed)
        if state is None:
            state = self._plan(brokers, kraft)
            state.secure, state.distributed = secure, distributed
            if state_store:
                state.extras["spark_state_store"] = state_store
            if tls:
                sandbox_tls.prepare(self.root, state)
            self._write_configs(state)
            if kraft:
                self._format_storage(state, java)
        self._start_roles(state, ("zookeeper",), java)
        if state.secure and state.mode == "zookeeper" and not state.extras.get("scram_users"):
            self._create_scram_users(state, java)
        self._start_roles(state, ("broker",), java)
        if state.secure:
            sandbox_secure.grant_monitor_acls(self.kafka_admin(state))
        for addon in missing_roles:
            self.report(f"preparing {addon.role}")
            state.services += addon.plan(self, state)
            self._save(state)
        self._start_roles(state, [a.role for a in addons() if state.by_role(a.role)], java)
        self.write_context(state)
        return state, True

    def _start_roles(self, state: SandboxState, roles, java: str) -> None:
        for role in roles:
            group = [s for s in state.by_role(role) if not s.alive]
            if role == "broker" and group:
                self._wait_deregistered(state, group)
            for service in group:
                self._start(state, service, java)
            if group:
                self._wait_ready(state, role)

    def _plan(self, brokers: int, kraft: bool) -> SandboxState:
        previous = self._previous_ports()
        needed = brokers * (2 if kraft else 1) + (0 if kraft else 2)
        taken = self.ports_of_other_sandboxes()
        ports = previous if len(previous) == needed and all(map(procs.port_is_free, previous)) \
            and not taken & set(previous) else _free_ports_except(needed, taken)
        write_atomic(self.root / "ports.json", json.dumps(ports), mode=0o644)
        services: list[Service] = []
        admin_port = None
        if not kraft:
            zk_port, admin_port = ports[:2]
            services.append(Service("zookeeper", "zookeeper", zk_port, [], self._log("zookeeper")))
            ports = ports[2:]
        for node in range(1, brokers + 1):
            name = f"kafka-{node}"
            services.append(Service(
                name, "broker", ports[node - 1], [], self._log(name), node_id=node,
                controller_port=ports[brokers + node - 1] if kraft else None,
            ))
        state = SandboxState(mode="kraft" if kraft else "zookeeper", brokers=brokers,
                             services=services, admin_port=admin_port)
        if kraft:
            state.cluster_id = kraft_storage.new_cluster_id()
        return state

    def ports_of_other_sandboxes(self) -> set[int]:
        """Every port the other sandboxes under the same state dir recorded: free right now when
        their service is stopped (a fault test, `sandbox stop`), theirs again at its start."""
        taken: set[int] = set()
        for other in names.known(self.state_dir):
            sibling = Sandbox(names.root(other, self.state_dir), name=other, state_dir=self.state_dir)
            if sibling.root == self.root:
                continue
            try:
                state = sibling.load()
            except StreamctlError:  # unreadable: its ports are unknown, the kernel's answer stands
                continue
            if state is not None:
                taken |= recorded_ports(state)
        return taken

    def _previous_ports(self) -> list[int]:
        try:
            return [int(p) for p in json.loads((self.root / "ports.json").read_text())]
        except (OSError, ValueError, TypeError):
            return []

    def _log(self, name: str) -> str:
        return str(self.root / "logs" / f"{name}.log")

    def _write_configs(self, state: SandboxState) -> None:
        classpath = maven.classpath(Shape(kraft=state.mode == "kraft").kafka_set, self.jars_root)
        server_configs.write_service_configs(self.root, classpath, state, JVM_FLAGS)
        self._save(state)

    def _create_scram_users(self, state: SandboxState, java: str) -> None:
        self.report("creating the SCRAM users")
        assert state.zookeeper_hosts is not None  # SCRAM users live in ZooKeeper: ZooKeeper mode only
        sandbox_secure.create_scram_users(self.root, state.zookeeper_hosts, java, JVM_FLAGS, self.jars_root)
        state.extras["scram_users"] = True
        self._save(state)

    def _format_storage(self, state: SandboxState, java: str) -> None:
        self.report("formatting KRaft storage" + (" with the SCRAM users" if state.secure else ""))
        secret_arguments = tuple(sandbox_secure.scram_format_arguments(self.root)) if state.secure else ()
        kraft_storage.format_storage(self.root, maven.classpath(maven.KAFKA_KRAFT, self.jars_root), state, java,
                                     JVM_FLAGS, secret_arguments, sandbox_secure.Secrets(self.root).scrub)

    def _start(self, state: SandboxState, service: Service, java: str) -> None:
        self.report(f"starting {service.name}" + (f" on 127.0.0.1:{service.port}" if service.port else ""))
        argv = [java, *service.argv[1:]] if service.argv[0] == "java" else service.argv
        service.pid, service.create_time = procs.spawn(argv, Path(service.log), cwd=self.root,
                                                       env=service.env)
        service.stopped = False
        self._save(state)

    def _wait_ready(self, state: SandboxState, role: str, timeout: float = START_TIMEOUT) -> None:
        self.report(f"waiting for {ROLE_TITLES.get(role, role)}")
        deadline = time.monotonic() + timeout
        while True:
            for service in state.by_role(role):
                if not service.stopped and not service.alive:
                    raise StreamctlError(f"{service.name} exited while starting: "
                                         f"{_last_error(Path(service.log))} (log: {service.log})")
            if self._ready(state, role):
                return
            if time.monotonic() > deadline:
                raise StreamctlError(f"{role} not ready after {timeout:.0f}s; see {self.root / 'logs'}")
            time.sleep(0.5)

    def _ready(self, state: SandboxState, role: str) -> bool:
        addon = next((a for a in addons() if a.role == role), None)
        if addon is not None:
            return all(addon.ready(self, state, s) for s in state.by_role(role) if not s.stopped)
        if role == "zookeeper":
            return all(probes.zookeeper_mode(s.port) for s in state.by_role(role))
        expected = {s.node_id for s in state.by_role("broker") if not s.stopped}
        return self.registered_brokers(state) >= expected

    def _wait_deregistered(self, state: SandboxState, brokers: list[Service], timeout: float = 30.0) -> None:
        """A broker that crashed stays registered until its ZooKeeper session expires (6 s);
        restarting it before that fails with NodeExists, so wait for the old registration to go."""
        if state.mode != "zookeeper":
            return
        ids = {b.node_id for b in brokers if b.node_id is not None}  # every broker has one
        deadline = time.monotonic() + timeout
        while ids & self.registered_brokers(state) and time.monotonic() < deadline:
            self.report(f"waiting for the old registration of broker(s) {sorted(ids)} to expire")
            time.sleep(0.5)

    def registered_brokers(self, state: SandboxState, timeout: float = 3.0) -> set[int]:
        """Broker ids the cluster's metadata lists right now (empty if it does not answer)."""
        md = self._metadata(state, timeout)
        return {b.id for b in md.brokers} if md else set()

    def in_sync(self, state: SandboxState, timeout: float = 3.0) -> bool:
        """Every broker registered and every partition's ISR full."""
        md = self._metadata(state, timeout)
        return bool(md) and len(md.brokers) == state.brokers and not any(p.under_replicated for p in md.partitions)

    def _metadata(self, state: SandboxState, timeout: float):
        try:
            return self.kafka(state, timeout).metadata()
        except StreamctlError:
            return None

    def kafka(self, state: SandboxState, timeout: float = 15.0):
        """A client of the sandbox's cluster (logged in on a --secure stack)."""
        from streamctl.backends.kafka.cluster import KafkaBackend

        return KafkaBackend(self._client_config(state), timeout=timeout, kraft=state.mode == "kraft")

    def kafka_admin(self, state: SandboxState, timeout: float = 15.0):
        """An admin client of the sandbox's cluster (a super user on a --secure stack)."""
        from streamctl.backends.kafka.admin import KafkaAdmin

        return KafkaAdmin(self._client_config(state), timeout=timeout, kraft=state.mode == "kraft")

    def _client_config(self, state: SandboxState) -> dict[str, str]:
        return {"bootstrap.servers": state.bootstrap_servers,
                **(sandbox_secure.client_properties(self.root) if state.secure else {})}

    def ensure_topics(self, state: SandboxState, topics: dict[str, int]) -> None:
        """Create the demo topics (name -> partitions) that are missing; another add-on may
        have made some, and two may race to make the same one."""
        kafka = self.kafka(state)
        existing = {t.name for t in kafka.metadata().topics}
        for topic, partitions in topics.items():
            if topic in existing:
                continue
            try:
                kafka.create_topic(topic, partitions, min(3, state.brokers))
            except StreamctlError as exc:
                if "already exists" not in str(exc).lower() and "TOPIC_ALREADY_EXISTS" not in str(exc):
                    raise

    def check_context_replaceable(self) -> None:
        """Refuse, before a service starts, a context of this sandbox's name that the user wrote."""
        sandbox_context.check_replaceable(self.config_path, self.name)

    def write_context(self, state: SandboxState) -> bool:
        """Write (or rewrite) this sandbox's context; see sandbox/context.py."""
        return sandbox_context.write(self.root, self.config_path, state, self.name)

    # ---- one service at a time (fault tests, restarts) ----------------------------

    def service(self, name: str) -> tuple[SandboxState, Service]:
        state = self.state()
        for service in state.services:
            if service.name == name:
                return state, service
        known = ", ".join(s.name for s in state.services)
        raise UsageError(f"no sandbox service {name!r} (known: {known})")

    def stop_service(self, name: str, kill: bool = False) -> None:
        """Stop one service: SIGTERM (a clean shutdown) or SIGKILL (a crash)."""
        with self.lock:
            self._stop_service(name, kill)

    def _stop_service(self, name: str, kill: bool) -> None:
        state, service = self.service(name)
        if service.pid is not None:  # one never started has nothing to stop
            if kill:
                procs.kill(service.pid, service.create_time)
            else:
                procs.terminate(service.pid, service.create_time, STOP_GRACE)
        service.stopped = True
        self._save(state)

    def start_service(self, name: str, wait: bool = True) -> None:
        with self.lock:
            self._start_service(name, wait)

    def _start_service(self, name: str, wait: bool) -> None:
        state, service = self.service(name)
        if service.alive:
            return
        if service.role == "broker":
            self._wait_deregistered(state, [service])
        self._start(state, service, _java())
        if wait:
            self._wait_ready(state, service.role)

    # ---- status and down ----------------------------------------------------------

    def status(self) -> list[ServiceStatus]:
        state = self.load()
        if state is None:
            return []
        rows = []
        for s in state.services:
            alive = s.alive
            if alive:  # noqa: SIM108 - two cases of two, clearer as a block
                label = "paused" if procs.is_paused(s.pid) else "running"
            else:
                label = "stopped" if s.stopped else "crashed"
            rows.append(ServiceStatus(
                s.name, s.role, s.pid if alive else None, s.port, label,
                time.time() - s.create_time if alive and s.create_time else None, s.log,
                procs.tail(Path(s.log)) if label == "crashed" else [],
            ))
        return rows

    def down(self, wipe: bool = False) -> list[str]:
        """Stop every service (brokers before ZooKeeper); returns the names that needed SIGKILL."""
        with self.lock:
            return self._down(wipe)

    def remove_contexts(self) -> list[str]:
        """Remove the contexts this sandbox wrote (its own, -tls, -monitor), never a user's;
        returns those removed. `sandbox down --name NAME` does, the default sandbox keeps its own."""
        return sandbox_context.remove(self.config_path, self.name)

    def _down(self, wipe: bool) -> list[str]:
        state = self.load()
        killed: list[str] = []
        if state is not None:
            roles = [a.role for a in reversed(addons())] + ["broker", "zookeeper"]
            for role in roles:
                group = [s for s in state.by_role(role) if s.alive]
                for s in group:
                    self.report(f"stopping {s.name}")
                with ThreadPoolExecutor(max_workers=max(1, len(group))) as pool:
                    results = pool.map(lambda s: procs.terminate(s.pid, s.create_time, STOP_GRACE), group)
                    killed += [s.name for s, hard in zip(group, results) if hard]
                for s in state.by_role(role):
                    s.stopped = True
            self._save(state)
        if wipe and self.root.exists():
            shutil.rmtree(self.root)
        return killed


def recorded_ports(state: SandboxState) -> set[int]:
    """The ports a sandbox's state holds: its services', KRaft controllers', the AdminServer's and
    the TLS listeners'."""
    ports = {s.port for s in state.services} | {s.controller_port for s in state.services if s.controller_port}
    ports |= {int(p) for p in state.extras.get("tls_ports", {}).values()}
    return (ports | ({state.admin_port} if state.admin_port else set())) - {0}


def _free_ports_except(count: int, taken: set[int]) -> list[int]:
    """`count` ports free right now, none of them in `taken`."""
    return [p for p in procs.free_ports(count + len(taken)) if p not in taken][:count]


def _shape(state: SandboxState) -> str:
    shape = f"secure {state.mode}" if state.secure else f"distributed {state.mode}" if state.distributed \
        else state.mode
    return f"{shape} --tls" if sandbox_tls.enabled(state) else shape


def _last_error(log: Path) -> str:
    lines = procs.tail(log, 40)
    for line in reversed(lines):
        if any(word in line for word in ("ERROR", "Exception", "Error:")):
            return line.strip()[:300]
    return lines[-1].strip()[:300] if lines else "no output"
