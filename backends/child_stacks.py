"""Where a hung forked Kafka child's Python stacks go (STREAMCTL_CHILD_STACKS): "1" for stderr,
a directory for one file per child there (the test suite's way: the commands' stderr stays
what the tests check). Unset: nowhere, at no cost."""

from __future__ import annotations

import faulthandler
import os
import signal
import time

VARIABLE = "STREAMCTL_CHILD_STACKS"
SIGNAL = signal.SIGUSR1
DUMP_WAIT = 0.5  # faulthandler writes from the signal handler, even in C code


class ChildStacks:
    """One child's stack dump: named by the parent before the fork, registered by the child,
    written when the parent gives up on it, forgotten when it answers."""

    def __init__(self) -> None:
        where = os.environ.get(VARIABLE, "")
        self.enabled = bool(where)
        # A random name: pids are reused, and another child's dump must not be appended to.
        self.path = os.path.join(where, f"kafka-child-{os.urandom(6).hex()}.stacks") if os.path.isdir(where) else None

    def register(self) -> None:
        """In the child: every thread's stack on SIGNAL. To fd 2, not sys.stderr: a caller may
        have replaced that with an object without a file descriptor (a Textual app does)."""
        if not self.enabled:
            return
        fd = 2
        if self.path is not None:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            except OSError:
                pass  # the answer matters more than the stacks
        faulthandler.register(SIGNAL, file=fd, all_threads=True)

    def dump(self, pid: int, what: str, how: str) -> None:
        """In the parent: the child's stacks, under a line saying how it hung."""
        if not self.enabled:
            return
        header = f"streamctl: the Kafka client child {pid} ({what}) {how}; its threads:\n".encode()
        try:
            if self.path is None:
                os.write(2, header)
            else:
                with open(self.path, "ab") as out:
                    out.write(header)
        except OSError:
            pass
        os.kill(pid, SIGNAL)
        time.sleep(DUMP_WAIT)

    def forget(self) -> None:
        """An answering child's (empty) file goes."""
        if self.path is not None:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
