"""Ctrl-C ends a long-running command even when the client library does not let go.

Python turns SIGINT into KeyboardInterrupt in the main thread, between two bytecodes. A main
thread blocked inside a client library call never gets there, and one that is running a
callback from C can have the exception swallowed. In both cases the command would keep running
after the operator pressed Ctrl-C. A watcher thread wakes on the signal itself (through
signal.set_wakeup_fd). If the process is still alive `grace` seconds later, the watcher ends
it with exit status 130.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

GRACE = 2.0  # seconds the normal KeyboardInterrupt path has to end the command


@contextmanager
def exit_soon_after_interrupt(what: str, grace: float = GRACE) -> Iterator[None]:
    """Within this block, SIGINT ends the process with status 130 after `grace` seconds at most
    (`what` names the command in the line it prints then)."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # not the main thread: no signals reach this code anyway
        os.close(read_end)
        os.close(write_end)
        yield
        return

    left = threading.Event()  # the block ended: what comes after is the command's own business

    def watch() -> None:
        while os.read(read_end, 1) != bytes([signal.SIGINT]):
            pass
        if not left.wait(grace):
            os.write(2, f"{what}: interrupted; the Kafka client did not stop within {grace:g} s\n".encode())
            os._exit(130)

    threading.Thread(target=watch, name="exit-after-interrupt", daemon=True).start()
    try:
        yield
    finally:
        left.set()
        signal.set_wakeup_fd(previous)
