"""Kafka client calls in a forked child, so that a librdkafka crash never ends the caller.

librdkafka 2.16 can abort or segfault the process it runs in when a coordinator-bound admin
request meets a moved or disconnected group coordinator (the enq_once refcount assertion,
confluentinc/librdkafka#4605; the NULL group handle in rd_kafka_cgrp_op under
rd_kafka_handle_OffsetFetch, #5040). The dashboard keeps its client in a long-lived child
(kafka_process.py). Short-lived processes, `check` and the CLI commands, use this: each call
forks (the parent holds no librdkafka client, so the child starts clean), makes its own
client, runs, and sends back the pickled answer. A child that dies of a signal is replaced by
a fresh one after a pause that doubles (0.5, 1, 2 s): both crashes strike while a coordinator is
moving, which takes a broker a second or two to settle, and an immediate retry can meet the same
move (a CI run saw two SIGSEGVs in a row). A fourth crash is a `KafkaClientCrashed` naming the
signals. Fork after
imports costs a few milliseconds; the answer crosses a pipe as a pickle. The child writes
nothing of its own (no log file: a dry run leaves the state dir as it was); librdkafka's
assertion text, if any, goes to the command's stderr as it did in process.

A child forked beside a thread that holds a lock (librdkafka's global one, or one inside the C
library) can wait on that lock forever before its call even begins. So the child says when its
client is made and its call begins (one byte ahead of its answer); a proxy's child that has not
said so within START_PATIENCE is killed and replaced by a fresh one, like a crash: its call never
began, so nothing was asked of Kafka twice. A child that began but does not answer within its
patience is killed and the call fails. With STREAMCTL_CHILD_STACKS set (the test suite sets it),
a hung child's Python stacks are written first, to stderr ("1") or to a file in the directory it
names: a hang is then a place in the code, not a guess.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import select
import signal
import time
from functools import partial

from streamctl.backends import kafka_client
from streamctl.backends.kafka_client import KafkaError

CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGILL, signal.SIGFPE}
CRASH_PAUSES = (0.5, 1.0, 2.0)  # before each fresh child after a crash: lets a coordinator move settle
START_PATIENCE = 5.0  # fork to client made takes milliseconds; a child still starting after this is stuck
BEGUN = b"B"  # the child's first byte: its client is made and its call begins
STACKS_ON_HANG = "STREAMCTL_CHILD_STACKS"
STACKS_SIGNAL = signal.SIGUSR1
_begun_fd: int | None = None  # in a child: where call_begins() writes BEGUN


class KafkaClientCrashed(KafkaError):
    """The Kafka client crashed (or hung starting) in every attempt: nothing was read (not
    that Kafka is down)."""


class _StuckStarting:
    """The outcome of a child that never began its call."""
    name = "hung starting"


class IsolatedKafka:
    """A KafkaBackend (or KafkaAdmin) whose every method runs in a forked child.

    The child builds `client_class(*args, **kwargs)` itself. Arguments reach it by fork (lambdas
    are fine); answers come back pickled (the model's dataclasses, plain data, exceptions). Only
    the class's own methods are offered: `getattr(proxy, "x", None)` answers as the class would.
    """

    def __init__(self, client_class, *args, timeout: float, **kwargs):
        self._client_class = client_class
        self._factory = partial(client_class, *args, timeout=timeout, **kwargs)
        self._patience = timeout * 10 + 30  # the child bounds each call by its own timeouts

    def __getattr__(self, method: str):
        if method.startswith("_") or not callable(getattr(self._client_class, method, None)):
            raise AttributeError(method)
        return partial(self._call, method)

    def _call(self, method: str, *args, **kwargs):
        return call_in_child(partial(_run_method, self._factory, method, args, kwargs),
                             patience=self._patience, what=method, start_within=START_PATIENCE)


def isolated_backend(client_config: dict[str, str], timeout: float, admin: bool = False) -> IsolatedKafka:
    """A KafkaBackend (KafkaAdmin with admin=True) for the context, each call in a child."""
    if admin:
        from streamctl.backends.kafka_admin import KafkaAdmin as client_class
    else:
        from streamctl.backends.kafka import KafkaBackend as client_class
    return IsolatedKafka(client_class, client_config, timeout=timeout)


def _run_method(factory, method: str, args: tuple, kwargs: dict):
    client = factory()
    call_begins()
    return getattr(client, method)(*args, **kwargs)


def call_begins() -> None:
    """In a child: its client is made and the call begins (a no-op after the first time, and
    outside a child). Until then a caller that passed `start_within` may replace the child."""
    global _begun_fd
    if _begun_fd is not None:
        os.write(_begun_fd, BEGUN)
        _begun_fd = None


def call_in_child(function, patience: float, what: str, start_within: float | None = None):
    """`function()` in a forked child, a crash retried in a fresh one after a pause; its answer
    or exception here. With `start_within`, a child that has not called call_begins() by then
    is stuck starting: it is replaced too (`function` must call it before asking Kafka)."""
    failures = []
    for pause in (0.0, *CRASH_PAUSES):
        time.sleep(pause)
        outcome = _fork_and_run(function, patience, what, start_within)
        if isinstance(outcome, (signal.Signals, _StuckStarting)):
            failures.append(outcome.name)
            continue
        ok, value = outcome
        if ok:
            return value
        raise value
    verb = "crashed" if all(name.startswith("SIG") for name in failures) else "crashed or hung starting"
    raise KafkaClientCrashed(f"{what}: the Kafka client {verb} {len(failures)} times ({', '.join(failures)}, "
                             f"librdkafka); nothing was read")


def _fork_and_run(function, patience: float, what: str, start_within: float | None):
    """(ok, value) from the child, the signal that killed it, or _StuckStarting."""
    read_end, write_end = os.pipe()
    with kafka_client.FORK_GUARD.fork():  # no librdkafka client of ours lives here meanwhile
        pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(function, write_end)
    os.close(write_end)
    try:
        data, begun = _read_all(read_end, patience, start_within)
        if data is None:
            _dump_stacks(pid, what)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            # A child that began its call, even just as it was given up on, may have asked
            # Kafka: that call is not made again.
            if start_within is not None and not (begun or _read_now(read_end)):
                return _StuckStarting()
            raise KafkaError(f"{what}: no answer from the Kafka client in {patience:.0f} s")
    finally:
        os.close(read_end)
    _forget_stacks(pid)
    data = data[len(BEGUN):] if data.startswith(BEGUN) else data
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        killed = signal.Signals(os.WTERMSIG(status))
        if killed in CRASH_SIGNALS:
            return killed
        if killed == signal.SIGINT:
            raise KeyboardInterrupt
        raise KafkaError(f"{what}: the Kafka client was killed by {killed.name}")
    if not data:
        raise KafkaError(f"{what}: the Kafka client exited without an answer (status {os.WEXITSTATUS(status)})")
    return pickle.loads(data)


def _child(function, write_end: int) -> None:
    global _begun_fd
    try:
        _die_with_parent()
        _register_stacks()
        _begun_fd = write_end
        try:
            outcome = (True, function())
        except BaseException as exc:  # noqa: BLE001 - the parent re-raises it where it called
            outcome = (False, exc)
        call_begins()  # the answer always follows the byte, whether `function` said it or not
        try:
            data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - an answer that does not pickle
            data = pickle.dumps((False, KafkaError(f"answer not transferable: {exc}")))
        with os.fdopen(write_end, "wb") as out:
            out.write(data)
    finally:
        os._exit(0)  # no atexit handlers, no client teardown: the parent has what it needs


def _stacks_file(pid: int) -> str | None:
    """Where a child's stacks go: None for stderr (STREAMCTL_CHILD_STACKS=1), else a file in
    the directory the variable names."""
    where = os.environ.get(STACKS_ON_HANG, "")
    return os.path.join(where, f"kafka-child-{pid}.stacks") if os.path.isdir(where) else None


def _register_stacks() -> None:
    """In a child, with STREAMCTL_CHILD_STACKS set: dump every thread's stack on STACKS_SIGNAL.
    To fd 2, not sys.stderr: a caller may have replaced that with an object without a file
    descriptor (a Textual app does), and the answer matters more than the stacks."""
    if not os.environ.get(STACKS_ON_HANG):
        return
    path = _stacks_file(os.getpid())
    fd = 2 if path is None else os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    faulthandler.register(STACKS_SIGNAL, file=fd, all_threads=True)


def _dump_stacks(pid: int, what: str) -> None:
    """A hung child's Python stacks (STREAMCTL_CHILD_STACKS), before it is killed."""
    if not os.environ.get(STACKS_ON_HANG):
        return
    header = f"streamctl: the Kafka client child {pid} ({what}) hung; its threads:\n".encode()
    path = _stacks_file(pid)
    if path is None:
        os.write(2, header)
    else:
        with open(path, "ab") as out:
            out.write(header)
    os.kill(pid, STACKS_SIGNAL)
    time.sleep(0.5)  # faulthandler writes from the signal handler, even in C code


def _forget_stacks(pid: int) -> None:
    """An answering child's (empty) stacks file goes."""
    path = _stacks_file(pid) if os.environ.get(STACKS_ON_HANG) else None
    if path is not None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def _read_all(fd: int, patience: float, start_within: float | None = None) -> tuple[bytes | None, bool]:
    """(everything the child writes, or None if it has not finished within `patience` seconds
    or not written its first byte within `start_within`; whether it wrote anything)."""
    chunks, started = [], time.monotonic()
    ends = started + patience
    while True:
        limit = ends if chunks or start_within is None else min(ends, started + start_within)
        left = limit - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None, bool(chunks)
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks), bool(chunks)
        chunks.append(chunk)


def _read_now(fd: int) -> bytes:
    """What the (dead) child had written and nobody read yet."""
    return os.read(fd, 1 << 20) if select.select([fd], [], [], 0)[0] else b""


def _die_with_parent() -> None:
    """A child left behind by a `check` that hit its deadline and exited ends with it (Linux)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
