"""The dashboard's Kafka client, in a child process it restarts when the child dies.

librdkafka 2.16 can abort the whole process when a group coordinator's connection drops under
a coordinator-bound admin request (DescribeGroups, OffsetFetch, OffsetCommit: the assertion
`eonce->refcnt > 0` in rd_kafka_enq_once_del_source_return, confluentinc/librdkafka#4605; the
fix, PR #5397, is not released). A CLI run is short and fails with its one call; the dashboard
lives for hours through broker restarts and must not. So its KafkaAdmin runs here: a call in
flight when the child dies fails with one line, and the next call starts a new child. A
mutation (`@mutation` in client.py) in flight then is a KafkaAnswerLost: it may have been
made, so it is not sent again and the plan core reads its outcome back.

`KafkaProcess` has AclAdmin's methods (KafkaAdmin's and the ACL calls); arguments and results
cross the process boundary pickled (plain data and the model's dataclasses). The child's stderr (librdkafka's assertion
text among it) goes to a log file, never over the dashboard's screen.
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import socket
import subprocess
import sys
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from multiprocessing.connection import Connection
from pathlib import Path

from streamctl.backends.kafka.client import KafkaAnswerLost, KafkaError, mutates
from streamctl.errors import StreamctlError

CALL_THREADS = 8  # the dashboard's screens and health refresh read at the same time
CALL_WITH_ADMIN = "call:with_admin"  # not a KafkaAdmin method: see _target()


class KafkaProcessError(KafkaError):
    """The Kafka client process ended or stopped answering (Kafka was not read)."""


class _NotSent(KafkaProcessError):
    """The child ended before the call reached it."""


class KafkaProcess:
    def __init__(self, client_config: dict[str, str], timeout: float = 10.0, log_path: Path | None = None):
        self.client_config = dict(client_config)
        self.timeout = timeout
        self.log_path = log_path
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._child: _Child | None = None
        self.restarts = 0

    def __getattr__(self, method: str):
        if method.startswith("_"):
            raise AttributeError(method)
        return functools.partial(self._call, method)

    def start(self) -> None:
        """Start the child now (it takes a few hundred ms to import), not on the first call."""
        with self._lock:
            self._running_child()

    def call_with_admin(self, function, *args, **kwargs):
        """`function(admin, *args, **kwargs)` run in the child, for work whose CPU should stay out
        of the caller's process (the lag-history join). A module-level function: it crosses the
        process boundary by name, so this adapter never imports the code it runs."""
        return self._call(CALL_WITH_ADMIN, function, *args, **kwargs)

    def close(self) -> None:
        with self._lock:
            child, self._child = self._child, None
        if child is not None:
            child.stop()

    def _call(self, method: str, *args, **kwargs):
        with self._lock:
            child = self._running_child()
            future = child.send(next(self._ids), method, args, kwargs)
        # The child bounds every call by its own timeouts; this only catches a child that hangs.
        patience = self.timeout * 10 + 30
        try:
            return future.result(timeout=patience)
        except FutureTimeout:
            child.stop()
            why = f"the Kafka client process did not answer {method} in {patience:.0f} s; restarting it"
            raise (_lost(method, why) if _mutates(method, kwargs) else KafkaProcessError(why)) from None
        except _NotSent:
            raise
        except KafkaProcessError as exc:
            if _mutates(method, kwargs):
                raise _lost(method, str(exc)) from None
            raise

    def _running_child(self) -> _Child:
        if self._child is None or not self._child.alive():
            if self._child is not None:
                self.restarts += 1
            self._child = _Child.spawn(self.client_config, self.timeout, self.log_path)
        return self._child


class _Child:
    """One child process, the socket to it, and the calls waiting for its answers."""

    def __init__(self, process: subprocess.Popen, conn: Connection, log_path: Path | None):
        self.process = process
        self.conn = conn
        self.log_path = log_path
        self.pending: dict[int, Future] = {}
        self.pending_lock = threading.Lock()
        self.ended: str | None = None
        threading.Thread(target=self._read_answers, name="kafka-process-reader", daemon=True).start()

    @classmethod
    def spawn(cls, client_config: dict[str, str], timeout: float, log_path: Path | None) -> _Child:
        ours, theirs = socket.socketpair()
        log = _open_log(log_path)
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "streamctl.backends.kafka.process", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=log, start_new_session=True,  # the terminal's signals are the dashboard's
                # Two malloc arenas, not one per thread: its dozens of short-lived threads
                # otherwise leave tens of MB resident in half-empty arenas.
                env={**os.environ, "MALLOC_ARENA_MAX": "2"})
        finally:
            theirs.close()
            log.close()
        conn = Connection(ours.detach())
        conn.send((client_config, timeout))  # over the socket: secrets stay off the command line
        return cls(process, conn, log_path)

    def alive(self) -> bool:
        return self.ended is None and self.process.poll() is None

    def send(self, call_id: int, method: str, args: tuple, kwargs: dict) -> Future:
        future: Future = Future()
        with self.pending_lock:
            if self.ended is not None:
                future.set_exception(_NotSent(self.ended))
                return future
            self.pending[call_id] = future
        try:
            self.conn.send((call_id, method, args, kwargs))
        except (OSError, ValueError):
            with self.pending_lock:
                unsent = self.pending.pop(call_id, None)
            if unsent is not None:
                unsent.set_exception(_NotSent("the Kafka client process ended before the call reached it"))
            self._end()
        return future

    def stop(self) -> None:
        """End the child; its reader thread then sees the socket close, and closes it."""
        self.process.terminate()
        self._end()

    def _read_answers(self) -> None:
        while True:
            try:
                call_id, ok, value = self.conn.recv()
            except (EOFError, OSError):
                break
            with self.pending_lock:
                future = self.pending.pop(call_id, None)
            if future is None:
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)
        self.conn.close()
        self._end()

    def _end(self) -> None:
        """Fail every call still waiting, with why the child ended."""
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        with self.pending_lock:
            if self.ended is None:
                self.ended = _why_ended(code, self.log_path)
            waiting, self.pending = self.pending, {}
        for future in waiting.values():
            if not future.done():
                future.set_exception(KafkaProcessError(self.ended))


def _mutates(method: str, kwargs: dict) -> bool:
    from streamctl.backends.kafka.acl_admin import AclAdmin

    return mutates(AclAdmin, method, kwargs)


def _lost(method: str, why: str) -> KafkaAnswerLost:
    return KafkaAnswerLost(f"{method}: {why}; the change was sent and may have been made: not sent again")


def _why_ended(code: int, log_path: Path | None) -> str:
    if code == -signal.SIGABRT:
        how = "aborted (SIGABRT, as librdkafka's assertion confluentinc/librdkafka#4605 does)"
    elif code < 0:
        how = f"killed by {signal.Signals(-code).name}"
    else:
        how = f"exited with status {code}"
    where = f"; see {log_path}" if log_path else ""
    return f"the Kafka client process {how}; it restarts on the next refresh{where}"


def _open_log(log_path: Path | None):
    if log_path is None:
        return open(os.devnull, "wb")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    return open(log_path, "ab")


# ---- the child ------------------------------------------------------------------------------

def serve(fd: int) -> None:
    """Run calls from the parent, each on a thread, until the parent closes the socket."""
    from concurrent.futures import ThreadPoolExecutor

    conn = Connection(fd)
    client_config, timeout = conn.recv()
    try:
        # KafkaAdmin with the ACL calls (the dashboard's ACL pane and dialogs)
        from streamctl.backends.kafka.acl_admin import AclAdmin

        admin: AclAdmin | _Failing = AclAdmin(client_config, timeout=timeout)
    except StreamctlError as exc:  # a property librdkafka rejects: every call says so
        admin = _Failing(exc)
    send_lock = threading.Lock()
    release = _memory_release()

    def answer(call_id: int, method: str, args: tuple, kwargs: dict) -> None:
        try:
            reply = (call_id, True, _target(admin, method)(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - the parent re-raises it where it called
            reply = (call_id, False, exc)
        with send_lock:
            try:
                conn.send(reply)
            except Exception as exc:  # noqa: BLE001 - an answer that does not pickle
                conn.send((call_id, False, KafkaProcessError(f"{method}: answer not transferable: {exc}")))
        del reply
        release()

    with ThreadPoolExecutor(max_workers=CALL_THREADS, thread_name_prefix="kafka-call") as pool:
        while True:
            try:
                call = conn.recv()
            except (EOFError, OSError):
                break
            pool.submit(answer, *call)
        os._exit(0)  # the parent is gone: do not wait for calls nobody will read


def _target(admin, method: str):
    if method == CALL_WITH_ADMIN:
        return lambda function, *args, **kwargs: function(admin, *args, **kwargs)
    return getattr(admin, method)


def _memory_release():
    """Hand the heap a large snapshot left free back to the system after each answer
    (glibc keeps it otherwise: tens of MB on a 300-topic cluster)."""
    import ctypes

    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return lambda: None
    return lambda: trim(0)


class _Failing:
    def __init__(self, error: StreamctlError):
        self.error = error

    def __getattr__(self, method: str):
        def fail(*_args, **_kwargs):
            raise self.error
        return fail


if __name__ == "__main__":
    serve(int(sys.argv[1]))
