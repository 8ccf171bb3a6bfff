"""Start and stop Flume agents: through the sandbox, or detached with a pid file.

How an agent of a context is controlled:
- "sandbox": the sandbox runs it (its metrics URL is the one in the sandbox's state):
  `Sandbox.start_service` / `stop_service`.
- "command": the config gives `command`, run with /bin/sh in its own session.
- "launcher": no command but a `config_file`: streamctl runs it with its own Flume jars
  (`streamctl sandbox fetch`), HTTP monitoring on the port of `metrics_url`.
- "none": neither; streamctl only watches it.
Detached agents leave `<state>/agents/<name>.pid` (pid, start time, argv) and log to
`<state>/agents/<name>.log`. Stop is SIGTERM to the process group, SIGKILL after a grace.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from streamctl import paths
from streamctl.atomic import write_atomic
from streamctl.errors import StreamctlError, UsageError
from streamctl.flume import launcher
from streamctl.jvm import processes as procs

STOP_GRACE = 20.0


@dataclass(frozen=True)
class Control:
    how: str  # sandbox | command | launcher | none
    detail: str  # the sandbox service, the command line, or why it cannot be controlled

    @property
    def controllable(self) -> bool:
        return self.how != "none"


def control_for(name: str, agent, sandbox=None) -> Control:
    """How `agent` (a config FlumeAgent) is started and stopped."""
    if sandbox is not None:
        for known in sandbox_agents(sandbox.load()).values():
            if known["metrics_url"] == agent.metrics_url:
                return Control("sandbox", known["service"])
    if agent.command:
        return Control("command", agent.command)
    if agent.config_file:
        return Control("launcher", f"streamctl's Flume {launcher.FLUME_VERSION} with {agent.config_file}")
    return Control("none", "no command or config_file in the config")


def sandbox_agents(state) -> dict[str, dict]:
    """Agents a sandbox runs (its state's `flume` extras, written by the demo's flume_agent add-on):
    name -> {service, metrics_url, config_file, access_log, topic}."""
    if state is None:
        return {}
    return dict(state.extras.get("flume", {}).get("agents", {}))


def state_dir() -> Path:
    return paths.state_dir() / "agents"


def pid_file(name: str) -> Path:
    return state_dir() / f"{name}.pid"


def log_file(name: str) -> Path:
    return state_dir() / f"{name}.log"


def recorded_process(name: str) -> dict | None:
    """The pid file's record if that process still runs, else None."""
    try:
        record = json.loads(pid_file(name).read_text())
        pid, create_time = int(record["pid"]), record.get("create_time")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        raise StreamctlError(f"{pid_file(name)} is damaged; remove it if no agent {name!r} runs") from None
    return record if procs.is_alive(pid, create_time) else None


def process_state(name: str, control: Control, sandbox=None) -> str:
    """running | stopped | crashed (sandbox) | unknown (not started by streamctl)."""
    if control.how == "sandbox":
        state = {r.name: r.state for r in sandbox.status()}
        return state.get(control.detail, "unknown")
    if control.how in ("command", "launcher"):
        return "running" if recorded_process(name) else "stopped"
    return "unknown"


def launch_argv(name: str, agent, control: Control) -> list[str]:
    if control.how == "command":
        return ["/bin/sh", "-c", agent.command]
    port = urlsplit(agent.metrics_url).port
    if port is None:
        raise UsageError(f"agent {name!r}: metrics_url {agent.metrics_url} names no port to listen on")
    log4j = state_dir() / "flume-log4j2.properties"
    write_atomic(log4j, launcher.LOG4J2, mode=0o644)
    from streamctl.jvm.java import java

    argv = launcher.argv(name, Path(agent.config_file), port, log4j)
    return [java(), *argv[1:]]


def start(name: str, agent, control: Control, sandbox=None) -> str:
    """Start the agent; returns what was done, one line."""
    if control.how == "sandbox":
        sandbox.start_service(control.detail)
        return f"sandbox service {control.detail} running"
    if not control.controllable:
        raise UsageError(f"agent {name!r} has no command or config_file in the config: "
                         "streamctl cannot start it")
    running = recorded_process(name)
    if running:
        return f"already running (pid {running['pid']})"
    argv = launch_argv(name, agent, control)
    cwd = Path(agent.config_file).parent if agent.config_file else state_dir()
    if not cwd.is_dir():
        raise UsageError(f"agent {name!r}: folder {cwd} does not exist")
    pid, create_time = procs.spawn(argv, log_file(name), cwd=cwd)
    write_atomic(pid_file(name), json.dumps({"pid": pid, "create_time": create_time, "argv": argv}),
                 mode=0o644)
    return f"started pid {pid}: {shlex.join(argv) if control.how == 'launcher' else agent.command}"


def stop(name: str, control: Control, sandbox=None) -> str:
    if control.how == "sandbox":
        sandbox.stop_service(control.detail)
        return f"sandbox service {control.detail} stopped"
    if not control.controllable:
        raise UsageError(f"agent {name!r} has no command or config_file in the config: "
                         "streamctl cannot stop it")
    running = recorded_process(name)
    if running is None:
        pid_file(name).unlink(missing_ok=True)
        return "not running"
    killed = procs.terminate(int(running["pid"]), running.get("create_time"), STOP_GRACE)
    pid_file(name).unlink(missing_ok=True)
    return f"stopped pid {running['pid']}" + (" (SIGKILL after the grace period)" if killed else "")


def answers(url: str) -> bool:
    """True when a metrics endpoint answers right now (2 s at most)."""
    from streamctl.backends.flume import FlumeError, fetch

    try:
        fetch(url, timeout=2.0)
    except FlumeError:
        return False
    return True
