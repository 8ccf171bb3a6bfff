"""Shared fixtures: one real sandbox (ZooKeeper + 3 brokers) per test session."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from streamctl.backends.kafka import KafkaBackend
from streamctl.sandbox.stack import Sandbox
from streamctl.sandbox.state import SandboxState


class RunningSandbox:
    """The session's sandbox plus the controls integration tests need."""

    def __init__(self, sandbox: Sandbox, state: SandboxState, xdg_state: Path):
        self.sandbox = sandbox
        self.state = state
        self.config_path = sandbox.config_path
        self.xdg_state = xdg_state

    def cli_env(self, **extra: str) -> dict[str, str]:
        """Environment under which the `streamctl` command sees this sandbox and its context."""
        return {**os.environ, "XDG_STATE_HOME": str(self.xdg_state),
                "STREAMCTL_CONFIG": str(self.config_path), **extra}

    def cli(self, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
        return run_cli(*args, env=self.cli_env(**env), timeout=timeout)

    @property
    def bootstrap_servers(self) -> str:
        return self.state.bootstrap_servers

    def kafka(self, timeout: float = 10.0) -> KafkaBackend:
        return KafkaBackend({"bootstrap.servers": self.bootstrap_servers}, timeout=timeout)

    @contextmanager
    def broker_stopped(self, name: str, kill: bool = False):
        """Stop one broker for the block (SIGTERM, or SIGKILL with kill=True), then restart it and
        wait for every partition in sync (the leaderships it lost come back when the test ends:
        preferred_leaders_afterwards)."""
        self.sandbox.stop_service(name, kill=kill)
        try:
            yield
        finally:
            self.sandbox.start_service(name)
            self.wait_until(lambda: not any(p.under_replicated for p in self.kafka().metadata().partitions),
                            timeout=60, what="every partition back in sync")

    def preferred_leaders(self) -> bool:
        """Elect the preferred leader of every partition that has another one; True once none has.

        Kafka moves leaderships back to a restarted broker only at its next imbalance check,
        minutes later, in the middle of later tests. Group coordinators move with the
        __consumer_offsets leaders, and an admin client's OffsetFetch that meets a moved
        coordinator crashes librdkafka 2.16 (NULL group handle in rd_kafka_cgrp_op,
        confluentinc/librdkafka PR #5318, unreleased): with the test process."""
        from streamctl.backends.kafka_admin import KafkaAdmin
        from streamctl.errors import StreamctlError

        try:
            admin = KafkaAdmin({"bootstrap.servers": self.bootstrap_servers}, timeout=5)
            moved = [(p.topic, p.partition) for p in admin.metadata().partitions
                     if p.replicas and p.leader != p.replicas[0]]
            if moved:
                admin.elect_preferred(moved)
            return not moved
        except StreamctlError:
            return False

    @contextmanager
    def service_stopped(self, name: str, kill: bool = False):
        """Stop any sandbox service (zookeeper, kafka-N, flume-weblogs, loadgen, spark-weblog-stats)
        for the block; a broker is waited for until every partition is back in sync."""
        _, service = self.sandbox.service(name)
        if service.role == "broker":
            with self.broker_stopped(name, kill=kill):
                yield
            return
        self.sandbox.stop_service(name, kill=kill)
        try:
            yield
        finally:
            self.sandbox.start_service(name)

    @contextmanager
    def paused(self, name: str):
        """Freeze a service with SIGSTOP for the block (a slow, unresponsive process), then SIGCONT."""
        _, service = self.sandbox.service(name)
        os.kill(service.pid, signal.SIGSTOP)
        try:
            yield service
        finally:
            os.kill(service.pid, signal.SIGCONT)

    @staticmethod
    def wait_until(predicate, timeout: float = 30.0, interval: float = 0.5, what: str = "condition"):
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}")
            time.sleep(interval)


STREAMCTL = str(Path(sys.executable).with_name("streamctl"))


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the installed `streamctl` console script, as an operator would."""
    return subprocess.run([STREAMCTL, *args], env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory) -> RunningSandbox:
    """ZooKeeper + 3 brokers on random ports, state under a tmp XDG_STATE_HOME."""
    tmp: Path = tmp_path_factory.mktemp("sandbox")
    xdg_state = tmp / "state"
    sb = Sandbox(root=xdg_state / "streamctl" / "sandbox", config_path=tmp / "config.yaml")
    state, _ = sb.up(brokers=3)
    try:
        yield RunningSandbox(sb, state, xdg_state)
    finally:
        sb.down()


@pytest.fixture(autouse=True)
def preferred_leaders_afterwards(request):
    """After a test on the session sandbox, every partition is led by its preferred replica
    again, whatever the test stopped or froze (see RunningSandbox.preferred_leaders: left to
    Kafka, leaderships and group coordinators would move minutes later, under another test)."""
    sandbox = request.getfixturevalue("sandbox") if "sandbox" in request.fixturenames else None
    yield
    if sandbox is not None:
        sandbox.wait_until(sandbox.preferred_leaders, timeout=60, interval=1.0,
                           what="every partition led by its preferred replica after the test")
