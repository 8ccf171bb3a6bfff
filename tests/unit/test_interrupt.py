"""Ctrl-C ends a command even when the KeyboardInterrupt never reaches its handler (swallowed in
a callback from C, or a main thread stuck in a client library call): exit 130 after the grace."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

STUCK = """
import signal, sys, time
from streamctl.interrupt import exit_soon_after_interrupt
with exit_soon_after_interrupt("stuck", grace=0.5):
    signal.signal(signal.SIGINT, lambda *_: None)  # the KeyboardInterrupt is lost
    print("ready", flush=True)
    while True:
        time.sleep(0.05)
"""

QUICK = """
from streamctl.interrupt import exit_soon_after_interrupt
try:
    with exit_soon_after_interrupt("quick", grace=5):
        print("ready", flush=True)
        import time
        time.sleep(30)
except KeyboardInterrupt:
    raise SystemExit(7)  # the command's own path ends it first
"""


def _interrupted(code: str) -> tuple[subprocess.CompletedProcess, float]:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), time.monotonic() - started


def test_a_lost_interrupt_still_ends_the_command_after_the_grace():
    result, took = _interrupted(STUCK)
    assert result.returncode == 130
    assert result.stderr == "stuck: interrupted; the Kafka client did not stop within 0.5 s\n"
    assert 0.4 < took < 10


def test_an_interrupt_the_command_handles_itself_is_left_to_it():
    result, _ = _interrupted(QUICK)
    assert result.returncode == 7 and result.stderr == ""
