"""Fault injection against the real sandbox: one row per fault, three surfaces per row.

For every fault, while it is on:
  1. `streamctl check --component C` and `streamctl check` exit with the expected code within
     their deadline + 1 s, name the cause, and print no traceback;
  2. the resource commands of the component still work (degraded but correct) or give exactly
     one `streamctl: error: ...` line, within their own timeout;
  3. the dashboard keeps running and shows the fault on the Overview card and the component's
     screen; once the service is back, it recovers by itself on a later automatic refresh.
Each test injects its fault once for all three surfaces, and leaves the stack healthy
(`healthy_afterwards` in conftest.py).
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import threading
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from confluent_kafka.admin import AdminClient

from streamctl.dashboard.source import make_dashboard
from streamctl.demo.connect_worker import DEMO_CONNECTOR
from streamctl.demo.spark_job import JOB, runs_root
from streamctl.demo.spark_job import SERVICE as JOB_SERVICE
from streamctl.errors import StreamctlError
from streamctl.jvm import processes as procs
from streamctl.sandbox.probes import zookeeper_mode
from streamctl.spark import launcher
from streamctl.tui.app import StreamctlApp
from tests.check_reasons import bug_marker
from tests.faults.cli_runs import Command, Run, assert_check, assert_command, run_all
from tests.faults.pilot import banner, card, describe, findings, rows, until
from tests.integration.kafka_helpers import black_hole, commit, unique, write_context

pytestmark = pytest.mark.integration

GROUP = unique("faults")  # a consumer group the group commands must keep listing
KAFKA_TIMEOUT = 10.0  # the sandbox context's per-call timeouts (Kafka, ZooKeeper)
FLUME_TIMEOUT = 5.0  # streamctl.backends.flume.DEFAULT_TIMEOUT
CONNECT_TIMEOUT = 10.0  # the sandbox context's connect.timeout
HOLE_TIMEOUT = 4.0  # per-call timeouts of the black-hole context
REFRESH = 1.5  # the dashboard's refresh interval in these tests
COMPONENTS = ("kafka", "zookeeper", "flume", "spark")


# ---- where the CLI and the dashboard look -----------------------------------------------------

@dataclass
class Scene:
    sandbox: object  # tests.conftest.RunningSandbox
    env: dict[str, str]  # the CLI's environment
    config: Path  # the dashboard's config file
    context: str
    names: dict[str, str] = field(default_factory=dict)  # filled into the regexes
    timer: threading.Timer | None = None

    def regex(self, pattern: str) -> str:
        return pattern.format(**{k: re.escape(v) for k, v in self.names.items()})


# The groups a fault is judged on: the demo's and this module's. Earlier modules leave lagging
# groups behind in the shared sandbox, and their lag in time ages past the thresholds.
JUDGED_GROUPS = [GROUP, "connect-*", "weblog-*"]


@contextmanager
def sandbox_scene(sandbox, tmp_path: Path, fault: Fault):
    """The session sandbox's own context, judging JUDGED_GROUPS; the dashboard's copy may ask
    Kafka with a shorter timeout."""
    data = yaml.safe_load(sandbox.config_path.read_text())
    data["contexts"]["sandbox"]["include"] = {"groups": JUDGED_GROUPS}
    config = tmp_path / "sandbox.yaml"
    config.write_text(yaml.safe_dump(data))
    dashboard = config
    if fault.dashboard_kafka_timeout is not None:
        data["contexts"]["sandbox"]["kafka"]["timeout"] = fault.dashboard_kafka_timeout
        dashboard = tmp_path / "dashboard.yaml"
        dashboard.write_text(yaml.safe_dump(data))
    names = {f"kafka-{s.node_id}": f"127.0.0.1:{s.port}" for s in sandbox.state.by_role("broker")}
    yield Scene(sandbox, sandbox.cli_env(STREAMCTL_CONFIG=str(config)), dashboard, "sandbox", names)


def hole_scene(per_call: float, dashboard_per_call: float = 2.0):
    """A context whose Kafka, ZooKeeper, Flume and Spark endpoints all accept and never answer
    (the dashboard's copy with shorter per-call timeouts, so that each screen fails sooner)."""
    @contextmanager
    def scene(sandbox, tmp_path: Path, fault: Fault):
        checkpoint = sandbox.state.extras["spark"][JOB]["checkpoint_dir"]
        with black_hole() as hole:
            def config(name: str, timeout: float) -> Path:
                return write_context(
                    tmp_path / name, hole, name="hole", kafka={"timeout": timeout},
                    zookeeper={"hosts": hole, "timeout": timeout},
                    flume={"agents": {"weblogs": {"metrics_url": f"http://{hole}/metrics"}}},
                    spark={"jobs": {JOB: {"checkpoint_dir": checkpoint, "ui_url": f"http://{hole}"}}})

            cli = config("hole.yaml", per_call)
            env = {**os.environ, "STREAMCTL_CONFIG": str(cli), "XDG_STATE_HOME": str(tmp_path / "state")}
            yield Scene(sandbox, env, config("dashboard.yaml", dashboard_per_call), "hole", {"hole": hole})
    return scene


# ---- injecting and healing -------------------------------------------------------------------

def registered(scene: Scene) -> set[int]:
    try:
        return {b.id for b in scene.sandbox.kafka(timeout=3).metadata().brokers}
    except StreamctlError:
        return set()


def kill(*names: str):
    def inject(scene: Scene) -> None:
        for name in names:
            scene.sandbox.sandbox.stop_service(name, kill=True)
    return inject


def start(*names: str):
    def heal(scene: Scene) -> None:
        for name in names:
            scene.sandbox.sandbox.start_service(name)  # waits until it is ready again
    return heal


def deregistered(*ids: int):
    return lambda scene: not (set(ids) & registered(scene))


def stop_zookeeper(scene: Scene) -> None:
    scene.sandbox.sandbox.stop_service("zookeeper")


def zookeeper_down(scene: Scene) -> bool:
    _, service = scene.sandbox.sandbox.service("zookeeper")
    return zookeeper_mode(service.port, timeout=1.0) is None


def kill_job(scene: Scene) -> None:
    """SIGKILL the job's driver (whoever started it last: the sandbox or `jobs start`)."""
    run = launcher.load_run(JOB, runs_root(scene.sandbox.sandbox))
    scene.sandbox.sandbox.stop_service(JOB_SERVICE, kill=True)
    if run is not None and run.alive:
        procs.kill(run.pid, run.create_time)


def pause(name: str, seconds: float):
    """SIGSTOP for at most `seconds` (a timer sends SIGCONT), or until the fault is healed."""
    def inject(scene: Scene) -> None:
        _, service = scene.sandbox.sandbox.service(name)
        os.kill(service.pid, signal.SIGSTOP)
        scene.timer = threading.Timer(seconds, os.kill, (service.pid, signal.SIGCONT))
        scene.timer.start()
    return inject


def resume(name: str):
    def heal(scene: Scene) -> None:
        if scene.timer is not None:
            scene.timer.cancel()
        _, service = scene.sandbox.sandbox.service(name)
        os.kill(service.pid, signal.SIGCONT)
        scene.sandbox.wait_until(lambda: registered(scene) == {1, 2, 3}, timeout=60, what="all brokers registered")
    return heal


def nothing(scene: Scene) -> None:
    pass


# ---- what the resource commands must show -----------------------------------------------------

def broker_ids(run: Run) -> list[int]:
    return [b["id"] for b in run.json()["brokers"]]


def brokers_listed(*ids: int) -> Command:
    return Command(("brokers", "-o", "json"), "works", KAFKA_TIMEOUT, lambda r: broker_ids(r) == list(ids),
                   f"exactly the live brokers {ids}")


TOPICS = Command(("topics", "list", "-o", "json"), "works", KAFKA_TIMEOUT,
                 lambda r: "weblogs" in {t["name"] for t in r.json()}, "topic weblogs")
GROUPS = Command(("groups", "list", "-o", "json"), "works", KAFKA_TIMEOUT,
                 lambda r: GROUP in {g["id"] for g in r.json()}, f"group {GROUP}")


def job_state(run: Run) -> str:
    data = run.json()
    return next(j["state"] for j in (data if isinstance(data, list) else [data]) if j["name"] == JOB)


def error_naming(text: str, timeout: float, *args: str) -> Command:
    return Command(args, "error", timeout, lambda r: text in r.stderr, f"an error naming {text!r}")


# ---- what the dashboard must show -------------------------------------------------------------

def broker_status(app) -> dict[str, str]:
    return {r[0]: r[6] for r in rows(app, "#brokers")}


def brokers_down(*ids: int):
    return lambda app, scene: all("DOWN" in broker_status(app).get(str(i), "") for i in ids)


def brokers_all_up(app, scene) -> bool:
    status = broker_status(app)
    return sorted(status) == ["1", "2", "3"] and all(s == "up" for s in status.values())


def banner_says(text: str):
    return lambda app, scene: re.search(scene.regex(text), banner(app) or "") is not None


def zookeeper_back(app, scene) -> bool:
    return banner(app) is None and any(r[1] == "standalone" for r in rows(app, "#ensemble"))


def agent_row(component: str):
    return lambda app, scene: any(r[1] == component for r in rows(app, "#agents"))


def agent_back(app, scene) -> bool:
    return {"source", "channel", "sink"} <= {r[1] for r in rows(app, "#agents")}


def connector_row_state(state: str):
    return lambda app, scene: any(r[0] == DEMO_CONNECTOR and state in r[2] for r in rows(app, "#connector-list"))


def job_row_state(state: str):
    return lambda app, scene: any(r[0] == JOB and r[1] == state for r in rows(app, "#jobs DataTable"))


# ---- the table ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Fault:
    id: str
    component: str  # `check --component`
    code: int | tuple[int, ...]  # its exit code (or codes)
    cause: str  # regex its summary (the Nagios first line) must match ({names} from the scene)
    full_codes: tuple[int, ...]  # `check` over every component (the others add their own state)
    commands: tuple[Command, ...]
    inject: Callable[[Scene], None]
    heal: Callable[[Scene], None] = nothing
    settled: Callable[[Scene], bool] | None = None  # the cluster has noticed (before the checks)
    window_cause: str | None = None  # `check --component` right after inject, before it settled
    scene: Callable = sandbox_scene
    check_timeout: float = 8.0
    transient: bool = False  # re-injected for each surface (a pause must stay short)
    watched: bool = False  # the dashboard opens on the healthy stack and sees the fault arrive
    overview: tuple[str, ...] = ()  # cards that leave OK while the fault is on
    overview_states: tuple[str, ...] = ("CRIT",)
    overview_text: str = ""  # regex on the Overview's findings while the fault is on
    screens: tuple[tuple[str, Callable], ...] = ()  # (key, shows the fault) on component screens
    recovered: Callable | None = None  # the last screen once the service is back
    dashboard_kafka_timeout: float | None = None
    full_cause: str | None = None  # what `check` (every component) must name, if not `cause`
    dashboard_inject: Callable[[Scene], None] | None = None  # a transient fault, for the dashboard


FAULTS = [
    Fault(
        "one broker killed", "kafka", 2, r"broker 3 down \(2 of 3 brokers\)", (2,),
        (brokers_listed(1, 2), TOPICS, GROUPS),
        inject=kill("kafka-3"), heal=start("kafka-3"), settled=deregistered(3),
        # "down", "at ... did not answer", "partitions led by broker 3", or, when the read itself
        # failed before any metadata named the ids, its address: "127.0.0.1:P refuses connections"
        window_cause=r"broker 3\b|{kafka-3} refuses connections",
        overview=("kafka",), overview_text=r"broker 3 down",
        screens=(("2", brokers_down(3)),), recovered=brokers_all_up),
    Fault(
        "two brokers killed", "kafka", 2, r"broker 2, broker 3 down \(1 of 3 brokers\)", (2,),
        (brokers_listed(1), TOPICS, GROUPS),
        inject=kill("kafka-2", "kafka-3"), heal=start("kafka-2", "kafka-3"), settled=deregistered(2, 3),
        overview=("kafka",), overview_text=r"broker 2, broker 3 down",
        screens=(("2", brokers_down(2, 3)),), recovered=brokers_all_up),
    Fault(
        "ZooKeeper stopped", "zookeeper", 2,
        r"no quorum: none of 1 ZooKeeper server\(s\) serving \(1 down\); ZooKeeper 127\.0\.0\.1:\d+ down", (2,),
        (error_naming("ZooKeeper unreachable at 127.0.0.1:", KAFKA_TIMEOUT, "zk", "ls", "/"),
         Command(("zk", "health", "-o", "json"), "works", KAFKA_TIMEOUT,
                 lambda r: not r.json()["servers"][0]["serving"], "the server not serving"),
         brokers_listed(1, 2, 3),
         # A broker answers one connection's requests in order: the topic configs wait for
         # ZooKeeper until they time out, then the offsets queued behind them get their turn.
         Command(TOPICS.args, "works", KAFKA_TIMEOUT, TOPICS.shows, TOPICS.what, calls=2)),
        inject=stop_zookeeper, heal=start("zookeeper"), settled=zookeeper_down, watched=True,
        overview=("zookeeper",), overview_text=r"no quorum",
        screens=(("5", banner_says(r"ZooKeeper unreachable at 127\.0\.0\.1:")),), recovered=zookeeper_back),
    Fault(
        "Flume agent killed", "flume", 2,
        r"agent weblogs unreachable at http://127\.0\.0\.1:\d+/metrics: connection refused", (2,),
        (Command(("agents", "list", "-o", "json"), "works", FLUME_TIMEOUT,
                 lambda r: r.json()[0]["process"] in ("stopped", "crashed"), "the agent's process not running"),
         Command(("agents", "status", "-o", "json"), "down", FLUME_TIMEOUT,
                 lambda r: r.json()[0]["up"] is False and "refused" in r.json()[0]["error"], "the agent down")),
        inject=kill("flume-weblogs"), heal=start("flume-weblogs"),
        overview=("flume",), overview_text=r"agent weblogs unreachable",
        screens=(("6", agent_row("DOWN")),), recovered=agent_back),
    Fault(
        "Spark job killed", "spark", 2, r"job weblog-stats is not running: pid \d+ exited", (2,),
        (Command(("jobs", "list", "-o", "json"), "works", KAFKA_TIMEOUT,
                 lambda r: job_state(r) == "stopped", "the job stopped"),
         Command(("jobs", "status", "-o", "json"), "works", KAFKA_TIMEOUT,
                 lambda r: job_state(r) == "stopped", "the job stopped")),
        inject=kill_job, heal=start(JOB_SERVICE),
        overview=("spark",), overview_text=r"job weblog-stats is not running",
        screens=(("7", job_row_state("stopped")),), recovered=job_row_state("running")),
    Fault(
        "Connect worker killed", "connect", 2, r"Connect unreachable: http://127\.0\.0\.1:\d+: connection refused", (2,),
        (error_naming("Connect unreachable: http://127.0.0.1:", CONNECT_TIMEOUT, "connect", "list"),
         error_naming("connection refused", CONNECT_TIMEOUT, "connect", "status", DEMO_CONNECTOR)),
        inject=kill("connect"), heal=start("connect"),
        overview=("connect",), overview_text=r"Connect unreachable",
        screens=(("8", banner_says(r"Connect unreachable")),), recovered=connector_row_state("RUNNING")),
    Fault(
        "black-hole endpoints", "kafka", 2, r"Kafka unreachable at {hole}", (2,),
        (error_naming("metadata request", HOLE_TIMEOUT, "brokers"),
         error_naming("metadata request", HOLE_TIMEOUT, "topics", "list"),
         error_naming("metadata request", HOLE_TIMEOUT, "groups", "list"),
         error_naming("ZooKeeper unreachable at 127.0.0.1:", HOLE_TIMEOUT, "zk", "ls", "/"),
         Command(("agents", "status", "-o", "json"), "down", FLUME_TIMEOUT,
                 lambda r: r.json()[0]["up"] is False, "the agent down"),
         Command(("jobs", "status", "-o", "json"), "works", HOLE_TIMEOUT,
                 lambda r: job_state(r) == "stopped", "the job not seen running")),
        inject=nothing, scene=hole_scene(HOLE_TIMEOUT), check_timeout=10.0,
        overview=COMPONENTS, overview_text=r"Kafka unreachable at {hole}",
        screens=(("2", banner_says(r"metadata request")), ("5", banner_says(r"ZooKeeper unreachable at {hole}")),
                 ("6", agent_row("DOWN")), ("7", job_row_state("stopped")))),
    Fault(
        "black-hole endpoints, per-call timeouts past the deadline", "kafka", 3,
        r"kafka not evaluated: .*{hole} did not answer", (2, 3), (),
        inject=nothing, scene=hole_scene(30.0), check_timeout=5.0,
        full_cause=r"kafka not evaluated"),  # the probe may get no time left when every part waits
    Fault(
        # UNKNOWN for the silent broker's part; WARN when the demo's groups on the other brokers
        # lag (a silent broker costs only its own groups: the rest are still judged).
        "slow broker (SIGSTOP)", "kafka", (1, 3), r"broker 2 at {kafka-2} did not answer", (1, 2, 3),
        (Command(("brokers", "-o", "json"), "either", KAFKA_TIMEOUT),
         Command(("topics", "list", "-o", "json"), "either", KAFKA_TIMEOUT),
         Command(("groups", "list", "-o", "json"), "either", KAFKA_TIMEOUT)),
        inject=pause("kafka-2", 5.0), heal=resume("kafka-2"), check_timeout=4.0, transient=True,
        overview=("kafka",), overview_states=("UNKNOWN", "CRIT"),
        overview_text=r"broker 2 (at {kafka-2} did not answer|down)", dashboard_kafka_timeout=2.0,
        dashboard_inject=pause("kafka-2", 12.0)),
]


@pytest.fixture(scope="module", autouse=True)
def consumer_group(sandbox):
    """GROUP, committed at the end of an empty topic: listed by the group commands, and no lag
    that would keep the Kafka card off OK (later modules share the sandbox: both go away after)."""
    topic = unique("faults")
    sandbox.kafka().create_topic(topic, 1, 3)
    commit(sandbox.bootstrap_servers, GROUP, {(topic, 0): 0})
    yield
    admin = AdminClient({"bootstrap.servers": sandbox.bootstrap_servers, "log_level": "0"})
    admin.delete_consumer_groups([GROUP], request_timeout=15)[GROUP].result(timeout=20)
    admin.delete_topics([topic], operation_timeout=15)[topic].result(timeout=20)


@pytest.mark.parametrize("fault", FAULTS, ids=[f.id for f in FAULTS])
async def test_fault(fault: Fault, sandbox, tmp_path, monkeypatch, capfd):
    with fault.scene(sandbox, tmp_path, fault) as scene:
        monkeypatch.setenv("XDG_STATE_HOME", scene.env["XDG_STATE_HOME"])  # the dashboard's state dir
        try:
            fault.inject(scene)
            _checks(fault, scene)
            if fault.transient:
                fault.heal(scene)
                fault.inject(scene)
            _commands(fault, scene)
            if fault.transient or fault.watched:
                fault.heal(scene)
            if fault.overview:
                await _dashboard(fault, scene)
        finally:
            fault.heal(scene)
    out, err = capfd.readouterr()  # this process: the dashboard, its worker threads, the clients
    assert "Traceback" not in out + err, out + err


def _checks(fault: Fault, scene: Scene) -> None:
    timeout = ("--timeout", str(fault.check_timeout), "--format", "json")
    if fault.window_cause:  # before the cluster itself has noticed
        [early] = run_all(scene.env, [("check", "--component", fault.component, *timeout)])
        assert_check(early, (2, 3), scene.regex(fault.window_cause), fault.check_timeout)
    if fault.settled is not None:
        scene.sandbox.wait_until(lambda: fault.settled(scene), timeout=30, what=f"{fault.id}: noticed")
    one, every = run_all(scene.env, [("check", "--component", fault.component, *timeout), ("check", *timeout)])
    codes = fault.code if isinstance(fault.code, tuple) else (fault.code,)
    assert_check(one, codes, scene.regex(fault.cause), fault.check_timeout)
    assert_check(every, fault.full_codes, scene.regex(fault.full_cause or fault.cause), fault.check_timeout,
                 anywhere=True)


def _commands(fault: Fault, scene: Scene) -> None:
    if not fault.commands:
        return
    for run, command in zip(run_all(scene.env, [c.args for c in fault.commands]), fault.commands):
        assert_command(run, command)


async def _dashboard(fault: Fault, scene: Scene) -> None:
    app = StreamctlApp(make_dashboard(scene.config, scene.context), refresh_interval=REFRESH)
    async with app.run_test(size=(140, 45)) as pilot:
        if fault.transient or fault.watched:  # healthy first, then the fault while it watches
            await until(pilot, lambda: all(card(app, c) not in (None, "loading") for c in fault.overview),
                        30, "the Overview's first evaluation", lambda: describe(app))
            (fault.dashboard_inject or fault.inject)(scene)

        def overview_shows() -> bool:
            return all(card(app, c) in fault.overview_states for c in fault.overview) \
                and re.search(scene.regex(fault.overview_text), findings(app)) is not None

        await until(pilot, overview_shows, 30, f"the Overview showing {fault.id}", lambda: describe(app))
        assert bug_marker(findings(app)) is None, describe(app)  # "not evaluated: TypeError: ..."
        for key, shows in fault.screens:
            await pilot.press(key)
            await until(pilot, lambda: shows(app, scene), 30, f"screen {key} showing {fault.id}",  # noqa: B023 - awaited here
                        lambda: describe(app))
        if fault.heal is not nothing:
            await asyncio.to_thread(fault.heal, scene)  # the dashboard keeps refreshing meanwhile
            if fault.recovered is not None:
                await until(pilot, lambda: fault.recovered(app, scene), 60,
                            f"screen {fault.screens[-1][0]} recovering", lambda: describe(app))
            await pilot.press("1")

            def overview_recovered() -> bool:
                return all(card(app, c) in ("OK", "WARN") for c in fault.overview) \
                    and re.search(scene.regex(fault.overview_text), findings(app)) is None

            await until(pilot, overview_recovered, 60, "the Overview recovering", lambda: describe(app))
        assert app.is_running
    assert app.return_code in (None, 0)
