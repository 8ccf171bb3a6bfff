"""Start, watch and stop long-running local processes (the sandbox's JVMs)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections import deque
from contextlib import ExitStack
from pathlib import Path

import psutil


def spawn(argv: list[str], log: Path, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, float]:
    """Start `argv` detached in its own session, output appended to `log`.

    Returns (pid, create_time): the pair identifies the process even after a pid is reused.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, env={**os.environ, **(env or {})},
        )
    return proc.pid, psutil.Process(proc.pid).create_time()


def is_alive(pid: int | None, create_time: float | None) -> bool:
    """True when the process we started is still running (not reused, not a zombie)."""
    if not pid:
        return False
    _reap(pid)
    try:
        proc = psutil.Process(pid)
        if create_time is not None and abs(proc.create_time() - create_time) > 1.0:
            return False
        return proc.status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.Error:
        return False


def is_paused(pid: int | None) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_STOPPED
    except (psutil.Error, TypeError, ValueError):
        return False


def terminate(pid: int, create_time: float | None, grace: float = 20.0) -> bool:
    """SIGTERM the process group, SIGKILL it after `grace` seconds. True if it had to be killed."""
    if not is_alive(pid, create_time):
        return False
    _signal_group(pid, signal.SIGCONT)  # a paused JVM cannot handle SIGTERM
    _signal_group(pid, signal.SIGTERM)
    if wait_dead(pid, create_time, grace):
        return False
    _signal_group(pid, signal.SIGKILL)
    wait_dead(pid, create_time, 10.0)
    return True


def kill(pid: int, create_time: float | None) -> None:
    """SIGKILL at once: a crash, as the fault tests need it."""
    if is_alive(pid, create_time):
        _signal_group(pid, signal.SIGKILL)
        wait_dead(pid, create_time, 10.0)


def wait_dead(pid: int, create_time: float | None, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not is_alive(pid, create_time):
            return True
        time.sleep(0.1)
    return not is_alive(pid, create_time)


def _signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass
    except PermissionError:
        os.kill(pid, sig)


def _reap(pid: int) -> None:
    """Collect the exit status of our own dead child so it does not linger as a zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def free_ports(count: int, host: str = "127.0.0.1") -> list[int]:
    """`count` distinct ports the kernel says are free right now."""
    with ExitStack() as stack:
        ports = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.bind((host, 0))
            ports.append(sock.getsockname()[1])
        return ports


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def port_accepts(port: int, host: str = "127.0.0.1", timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def tail(path: Path, lines: int = 15) -> list[str]:
    """The last lines of a log file (empty if there is none)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return [line.rstrip("\n") for line in deque(f, maxlen=lines)]
    except FileNotFoundError:
        return []
