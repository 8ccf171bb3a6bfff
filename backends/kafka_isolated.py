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

A child that does not answer within its patience is killed. With STREAMCTL_CHILD_STACKS set
(the test suite sets it), its Python stacks go to stderr first: a hang is then a place in the
code, not a guess.
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
STACKS_ON_HANG = "STREAMCTL_CHILD_STACKS"
STACKS_SIGNAL = signal.SIGUSR1


class KafkaClientCrashed(KafkaError):
    """The Kafka client crashed in every attempt: nothing was read (not that Kafka is down)."""


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
                             patience=self._patience, what=method)


def isolated_backend(client_config: dict[str, str], timeout: float, admin: bool = False) -> IsolatedKafka:
    """A KafkaBackend (KafkaAdmin with admin=True) for the context, each call in a child."""
    if admin:
        from streamctl.backends.kafka_admin import KafkaAdmin as client_class
    else:
        from streamctl.backends.kafka import KafkaBackend as client_class
    return IsolatedKafka(client_class, client_config, timeout=timeout)


def _run_method(factory, method: str, args: tuple, kwargs: dict):
    return getattr(factory(), method)(*args, **kwargs)


def call_in_child(function, patience: float, what: str):
    """`function()` in a forked child, a crash retried in a fresh one after a pause; its answer
    or exception here."""
    crashes = []
    for pause in (0.0, *CRASH_PAUSES):
        time.sleep(pause)
        outcome = _fork_and_run(function, patience, what)
        if isinstance(outcome, signal.Signals):
            crashes.append(outcome.name)
            continue
        ok, value = outcome
        if ok:
            return value
        raise value
    raise KafkaClientCrashed(f"{what}: the Kafka client crashed {len(crashes)} times ({', '.join(crashes)}, "
                             f"librdkafka); nothing was read")


def _fork_and_run(function, patience: float, what: str):
    """(ok, value) from the child, or the signal that killed it."""
    read_end, write_end = os.pipe()
    with kafka_client.FORK_GUARD.fork():  # no librdkafka client of ours lives here meanwhile
        pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(function, write_end)
    os.close(write_end)
    try:
        data = _read_all(read_end, patience)
    finally:
        os.close(read_end)
    if data is None:
        _dump_stacks(pid)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise KafkaError(f"{what}: no answer from the Kafka client in {patience:.0f} s")
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
    try:
        _die_with_parent()
        if os.environ.get(STACKS_ON_HANG):
            # fd 2, not sys.stderr: a caller may have replaced that with an object without a
            # file descriptor (a Textual app does), and the answer matters more than the stacks.
            faulthandler.register(STACKS_SIGNAL, file=2, all_threads=True)
        try:
            outcome = (True, function())
        except BaseException as exc:  # noqa: BLE001 - the parent re-raises it where it called
            outcome = (False, exc)
        try:
            data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - an answer that does not pickle
            data = pickle.dumps((False, KafkaError(f"answer not transferable: {exc}")))
        with os.fdopen(write_end, "wb") as out:
            out.write(data)
    finally:
        os._exit(0)  # no atexit handlers, no client teardown: the parent has what it needs


def _dump_stacks(pid: int) -> None:
    """A hung child's Python stacks to stderr (STREAMCTL_CHILD_STACKS), before it is killed."""
    if os.environ.get(STACKS_ON_HANG):
        os.write(2, f"streamctl: the Kafka client child {pid} hung; its threads:\n".encode())
        os.kill(pid, STACKS_SIGNAL)
        time.sleep(0.5)  # faulthandler writes from the signal handler, even in C code


def _read_all(fd: int, patience: float) -> bytes | None:
    """Everything the child writes, or None if it has not finished within `patience` seconds."""
    chunks, ends = [], time.monotonic() + patience
    while True:
        left = ends - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _die_with_parent() -> None:
    """A child left behind by a `check` that hit its deadline and exited ends with it (Linux)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
