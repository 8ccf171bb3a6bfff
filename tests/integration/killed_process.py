"""A `streamctl` command killed with SIGKILL at a state the test sees, never after a fixed time.

The CLI runs each Kafka call in a forked child (backends/kafka/isolated.py). Killing only the
command's own process, as `kill -9` or the OOM killer would, leaves the call it had begun to run
to its end; the next one is never made. So the command is first frozen (SIGSTOP) once the state
is seen, the call under way is waited for, then it is killed: what the cluster holds afterwards
no longer changes under the test.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable

import psutil

from tests.conftest import STREAMCTL, RunningSandbox

CALL_ENDS_WITHIN = 60.0  # a child's own timeouts end it well before this


def ended(call: psutil.Process) -> bool:
    """Whether a child has exited (a zombie: its frozen parent has not reaped it)."""
    try:
        return call.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def start(cluster: RunningSandbox, *args: str) -> subprocess.Popen:
    return subprocess.Popen([STREAMCTL, "--context", cluster.context, *args], env=cluster.cli_env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def kill_when(cluster: RunningSandbox, process: subprocess.Popen, seen: Callable[[], object], what: str) -> None:
    """SIGKILL `process` once `seen()` is true and the Kafka call it then runs has ended."""
    freeze_when(cluster, process, seen, what)
    kill(process)


def freeze_when(cluster: RunningSandbox, process: subprocess.Popen, seen: Callable[[], object], what: str,
                with_a_call_begun: bool = False) -> None:
    """SIGSTOP `process` once `seen()` is true, and wait until the Kafka call it then runs has
    ended. With `with_a_call_begun`, a process seen between two calls runs on until its next call
    begins, so that call is made and is its last."""
    cluster.wait_until(lambda: process.poll() is not None or seen(), timeout=90, interval=0.01, what=what)
    assert process.poll() is None, f"streamctl ended before {what}: {process.communicate()[1]}"
    parent = psutil.Process(process.pid)
    parent.suspend()
    calls = parent.children()
    if with_a_call_begun and not calls:
        parent.resume()
        calls = cluster.wait_until(parent.children, timeout=30, interval=0.001, what="its next Kafka call")
        parent.suspend()
    cluster.wait_until(lambda: all(map(ended, calls)), timeout=CALL_ENDS_WITHIN, interval=0.1,
                       what="the Kafka call under way to end")


def kill(process: subprocess.Popen) -> None:
    """SIGKILL `process` alone (its frozen state stays as it was), and reap it."""
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL
