"""Shared fixtures: one real sandbox (ZooKeeper + 3 brokers) per test session."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import settings

from streamctl.backends.kafka.isolated import isolated_backend
from streamctl.sandbox.names import DEFAULT as DEFAULT_SANDBOX
from streamctl.sandbox.stack import Sandbox
from streamctl.sandbox.state import SandboxState
from tests.jvm_guard import INTEGRATION, JavaWatch, mark_service_tests, refusal, service_fixture
from tests.service_groups import assign_service_groups

# A forked Kafka child that hangs leaves its Python stacks in a file here before it is killed
# (backends/child_stacks.py), in this process and in every `streamctl` the tests start; the end
# of the session lists them. A file, not stderr: a child stuck starting is replaced and the
# command answers as usual, with the output the tests check.
if "STREAMCTL_CHILD_STACKS" not in os.environ:
    os.environ["STREAMCTL_CHILD_STACKS"] = tempfile.mkdtemp(prefix="streamctl-child-stacks-")

# The dump's header says how the child hung (backends/kafka/isolated.py). "hung": its call had
# begun and never answered within its patience: a hung call, a defect (the command failed, or
# only check's deadline hid it), so the session fails. "hung starting" alone: a child that had
# not begun its call within START_PATIENCE (a lock held by another thread at the fork, inside
# the C library) and was replaced, as designed: nothing reached Kafka, the command answered as
# usual, and four in a row are a "crashed or hung starting" UNKNOWN the fault tests reject. Such
# a dump is listed, not failed on. (A child that began after all and then hung is "hung" too.)
HUNG_CALL = re.compile(r"^streamctl: the Kafka client child \d+ \(.*\) hung; its threads:$", re.MULTILINE)


def child_stack_dumps() -> tuple[list[tuple[Path, str]], list[tuple[Path, str]]]:
    """The non-empty dumps in STREAMCTL_CHILD_STACKS: (hung calls, children stuck starting)."""
    where = Path(os.environ["STREAMCTL_CHILD_STACKS"])
    hung, starting = [], []
    for path in sorted(where.glob("*.stacks")) if where.is_dir() else ():
        try:
            text = path.read_text(errors="replace")
        except FileNotFoundError:  # an answering child's file, removed meanwhile
            continue
        if text:  # empty: a child that ended without being given up on
            (hung if HUNG_CALL.search(text) else starting).append((path, text))
    return hung, starting


# No JVM in the fast suite (tests/jvm_guard.py).
JAVA_WATCH = pytest.StashKey[JavaWatch]()
# `make test-fast` runs the property tests with a quarter of their examples (--hypothesis-profile=fast);
# the README's test command keeps Hypothesis's default profile.
settings.register_profile("fast", max_examples=settings.default.max_examples // 4)

RUNNING_TEST = pytest.StashKey[pytest.Item]()
LATE_JAVA = pytest.StashKey[list[str]]()  # seen only when the session ended


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items):
    mark_service_tests(items)
    assign_service_groups(items, lambda item: item.get_closest_marker(INTEGRATION) is not None)


def pytest_collection_finish(session):
    if not any(item.get_closest_marker(INTEGRATION) for item in session.items):
        session.stash[JAVA_WATCH] = JavaWatch.start()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.session.stash[RUNNING_TEST] = item


@pytest.hookimpl(tryfirst=True)
def pytest_fixture_setup(fixturedef, request):
    why = refusal(fixturedef.argname, request.session.stash.get(RUNNING_TEST, None))
    if why:
        pytest.fail(why, pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item):
    watch = item.session.stash.get(JAVA_WATCH, None)
    started = watch.new_java_processes() if watch else []  # before the fixtures end theirs
    result = yield
    if started:
        pytest.fail(f"a run without integration tests started java: {'; '.join(started)}", pytrace=False)
    return result


def pytest_sessionfinish(session):
    hung, _ = child_stack_dumps()
    watch = session.stash.get(JAVA_WATCH, None)
    late_java = session.config.stash[LATE_JAVA] = watch.new_java_processes() if watch else []  # exec'd late
    if (hung or late_java) and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    hung, starting = child_stack_dumps()
    where = os.environ["STREAMCTL_CHILD_STACKS"]
    for dumps, title in ((hung, "hung Kafka client call(s): the session fails"),
                         (starting, "Kafka client child(ren) stuck starting, replaced (not a failure)")):
        if dumps:
            terminalreporter.section(f"{len(dumps)} {title}; stacks in {where}")
            for _, text in dumps:
                terminalreporter.write_line(text[:4000])
    late_java = terminalreporter.config.stash.get(LATE_JAVA, [])
    if late_java:
        terminalreporter.section("java started by a run without integration tests: the session fails")
        for line in late_java:
            terminalreporter.write_line(line)


KRAFT_SANDBOX = "kraft"  # the name (and context) of the session's KRaft sandbox


class RunningSandbox:
    """The session's sandbox plus the controls integration tests need."""

    def __init__(self, sandbox: Sandbox, state: SandboxState, xdg_state: Path):
        self.sandbox = sandbox
        self.state = state
        self.config_path = sandbox.config_path
        self.context = sandbox.name  # its context in config_path (the current one for the default sandbox)
        self.xdg_state = xdg_state

    def cli_env(self, **extra: str) -> dict[str, str]:
        """Environment under which the `streamctl` command sees this sandbox and its context."""
        return {**os.environ, "XDG_STATE_HOME": str(self.xdg_state),
                "STREAMCTL_CONFIG": str(self.config_path), **extra}

    def cli(self, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
        """`streamctl ARGS` on this sandbox's context: a named sandbox's is not the current one, so
        it is passed, unless ARGS start with a config file of the test's own."""
        own_config = args[:1] == ("--config",)
        chosen = args if self.context == DEFAULT_SANDBOX or own_config else ("--context", self.context, *args)
        return run_cli(*chosen, env=self.cli_env(**env), timeout=timeout)

    @property
    def bootstrap_servers(self) -> str:
        return self.state.bootstrap_servers

    @property
    def kraft(self) -> bool:
        return self.state.mode == "kraft"

    def kafka(self, timeout: float = 10.0):
        """A KafkaBackend whose calls run in forked children, as the CLI's do: coordinators
        move under the tests (broker restarts, Kafka's own leader rebalancing), and a librdkafka
        crash then ends a child, never the test process."""
        return isolated_backend({"bootstrap.servers": self.bootstrap_servers}, timeout)

    def admin(self, timeout: float = 10.0):
        """A KafkaAdmin, each call in a forked child (see kafka())."""
        return isolated_backend({"bootstrap.servers": self.bootstrap_servers}, timeout, admin=True)

    @contextmanager
    def broker_stopped(self, name: str, kill: bool = False):
        """Stop one broker for the block (SIGTERM, or SIGKILL with kill=True), then restart it and
        wait for every partition in sync. The leaderships it lost stay moved until Kafka's own
        rebalancing: later tests meet moved group coordinators, as operators do."""
        self.sandbox.stop_service(name, kill=kill)
        try:
            yield
        finally:
            self.sandbox.start_service(name)
            self.wait_until(lambda: not any(p.under_replicated for p in self.kafka().metadata().partitions),
                            timeout=60, what="every partition back in sync")

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


def fleet_config(tmp_path_factory) -> Path:
    """The one config file of the session's sandboxes: `sandbox` (current) and `kraft`, a fleet of two."""
    folder = tmp_path_factory.getbasetemp() / "fleet"
    folder.mkdir(exist_ok=True)
    return folder / "config.yaml"


@service_fixture(scope="session")
def sandbox(tmp_path_factory) -> RunningSandbox:
    """ZooKeeper + 3 brokers on random ports, state under a tmp XDG_STATE_HOME; the default
    sandbox, context `sandbox` (the current one) in the fleet's config."""
    tmp: Path = tmp_path_factory.mktemp("sandbox")
    xdg_state = tmp / "state"
    sb = Sandbox(config_path=fleet_config(tmp_path_factory), state_dir=xdg_state / "streamctl")
    state, _ = sb.up(brokers=3)
    try:
        yield RunningSandbox(sb, state, xdg_state)
    finally:
        sb.down()


@service_fixture(scope="session")
def kraft_sandbox(tmp_path_factory) -> RunningSandbox:
    """3 Kafka 4.x nodes in KRaft mode (broker and controller each), Kafka only; started when a
    test asks for it (the rolling restart), next to the ZooKeeper-mode sandbox: the sandbox named
    `kraft` (`sandbox up --name kraft`), its context `kraft` in the same config file. Its own
    XDG_STATE_HOME keeps its commands' audit log and undo files apart from the other's."""
    tmp: Path = tmp_path_factory.mktemp("kraft")
    xdg_state = tmp / "state"
    sb = Sandbox(name=KRAFT_SANDBOX, config_path=fleet_config(tmp_path_factory), state_dir=xdg_state / "streamctl")
    state, _ = sb.up(brokers=3, kraft=True, with_addons=False)
    try:
        yield RunningSandbox(sb, state, xdg_state)
    finally:
        sb.down()


@service_fixture(params=["zookeeper", "kraft"])
def cluster(request) -> RunningSandbox:
    """The test runs twice: on the session's ZooKeeper-mode sandbox and on the KRaft one."""
    return request.getfixturevalue("sandbox" if request.param == "zookeeper" else "kraft_sandbox")
