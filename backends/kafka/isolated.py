"""Kafka client calls in a forked child, so that a librdkafka crash never ends the caller.

librdkafka 2.16 can abort or segfault the process it runs in when a coordinator-bound admin
request meets a moved or disconnected group coordinator (the enq_once refcount assertion,
confluentinc/librdkafka#4605; the NULL group handle in rd_kafka_cgrp_op under
rd_kafka_handle_OffsetFetch, #5040). The dashboard keeps its client in a long-lived child
(process.py). Short-lived processes, `check` and the CLI commands, use this: each call
forks (the parent holds no librdkafka client, so the child starts clean), makes its own
client, runs, and sends back the pickled answer (`check --contexts`/`--all-contexts` runs every
context's reads in one child instead, under the same rules: shared_child.py). A child that dies of a signal is replaced by
a fresh one after a pause that doubles (0.5, 1, 2 s): both crashes strike while a coordinator is
moving, which takes a broker a second or two to settle, and an immediate retry can meet the same
move (a CI run saw two SIGSEGVs in a row). A fourth crash is a `KafkaClientCrashed` naming the
signals. Fork after
imports costs a few milliseconds; the answer crosses a pipe as a pickle. The child writes
nothing of its own (no log file: a dry run leaves the state dir as it was); librdkafka's
assertion text, if any, goes to the command's stderr as it did in process.

A child forked beside a thread that holds a lock (librdkafka's global one, or one inside the C
library) can wait on that lock forever before its call even begins. So the child says when its
client is made and its call begins (one byte ahead of its answer). A proxy's child that has not
said so within START_PATIENCE is frozen (SIGSTOP, waited for), looked at a last time, and if it
still has not begun, killed and replaced by a fresh one like a crash: its call never began, so
nothing is asked of Kafka twice. A child that began but does not answer within its patience is
killed and the call fails.

A crash is retried only when nothing can have reached Kafka twice: a read (any time), or a
mutation whose child died before it began (methods marked `@mutation` in client.py; callers
of call_in_child say `mutates=`). A mutation whose child crashed, hung or died after it began
may have been made: it is a KafkaAnswerLost, never sent again, and the plan core reads the
outcome back (streamctl.ops.execute). STREAMCTL_TEST_CRASH_AFTER (tests only; production never
sets it) names calls, by their `what`, after which the child kills itself with SIGSEGV once the
call returned: the crash after a mutation that the tests need, on a real cluster.

With STREAMCTL_CHILD_STACKS set (the test suite sets it), a hung
child's Python stacks are written first (child_stacks.py): a hang is then a place in the code,
not a guess.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import select
import signal
import threading
import time
from functools import partial

from streamctl.backends.child_stacks import ChildStacks
from streamctl.backends.kafka import client as kafka_client
from streamctl.backends.kafka.client import KafkaAnswerLost, KafkaError, mutates

CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGILL, signal.SIGFPE}
CRASH_PAUSES = (0.5, 1.0, 2.0)  # before each fresh child after a crash: lets a coordinator move settle
START_PATIENCE = 5.0  # fork to client made takes milliseconds; a child still starting after this is stuck
BEGUN = b"B"  # the child's first byte: its client is made and its call begins
_begins = threading.local()  # in a child, per calling thread: `.signal`, what call_begins() runs once
CRASH_AFTER_ENV = "STREAMCTL_TEST_CRASH_AFTER"  # tests only: "create_topic,probe markers"


class KafkaClientCrashed(KafkaError):
    """The Kafka client crashed (or hung starting) in every attempt: nothing was read (not
    that Kafka is down)."""


class StuckStarting:
    """The outcome of a child that never began its call."""
    name = "hung starting"


class Crashed:
    """The outcome of a child killed by a crash signal; `began`: after its call began."""

    def __init__(self, killed: signal.Signals, began: bool):
        self.name, self.began = killed.name, began


class IsolatedKafka:
    """A KafkaBackend (or KafkaAdmin) whose every method runs in a forked child.

    The child builds `client_class(*args, **kwargs)` itself. Arguments reach it by fork (lambdas
    are fine); answers come back pickled (the model's dataclasses, plain data, exceptions). Only
    the class's own methods are offered: `getattr(proxy, "x", None)` answers as the class would.
    """

    def __init__(self, client_class, *args, timeout: float, **kwargs):
        self._client_class = client_class
        self._factory = partial(client_class, *args, timeout=timeout, **kwargs)
        self.patience = timeout * 10 + 30  # the child bounds each call by its own timeouts

    def __getattr__(self, method: str):
        if method.startswith("_") or not callable(getattr(self._client_class, method, None)):
            raise AttributeError(method)
        return partial(self._call, method)

    def _call(self, method: str, *args, **kwargs):
        function = partial(run_method, self._factory, method, args, kwargs)
        if not mutates(self._client_class, method):
            return self.run_read(function, method)
        changes = mutates(self._client_class, method, kwargs)
        return call_in_child(function, patience=self.patience, what=method if changes else f"{method} (validate only)",
                             start_within=START_PATIENCE, mutates=changes)

    def run_read(self, function, what: str):
        """A read (no `@mutation` method) of the client: here in a child of its own, retried
        after a crash (shared_child.py runs it in a child shared with other callers)."""
        return call_in_child(function, patience=self.patience, what=what, start_within=START_PATIENCE, mutates=False)


def isolated_backend(client_config: dict[str, str], timeout: float, admin: bool = False) -> IsolatedKafka:
    """A KafkaBackend (KafkaAdmin with admin=True) for the context, each call in a child."""
    from streamctl.backends.kafka.cluster import KafkaBackend

    client_class: type[KafkaBackend] = KafkaBackend
    if admin:
        from streamctl.backends.kafka.admin import KafkaAdmin

        client_class = KafkaAdmin
    return IsolatedKafka(client_class, client_config, timeout=timeout)


def run_method(factory, method: str, args: tuple, kwargs: dict):
    """In a child: `factory()`'s `method(*args, **kwargs)`, call_begins() said once the client is made."""
    client = factory()
    call_begins()
    return getattr(client, method)(*args, **kwargs)


def begins_with(signal_begun) -> None:
    """In a child: what call_begins() runs, the first time the calling thread calls it."""
    _begins.signal = signal_begun


def call_begins() -> None:
    """In a child: its client is made and the call begins (a no-op after the first time, and
    outside a child). Until then a caller that passed `start_within` may replace the child."""
    signal_begun = getattr(_begins, "signal", None)
    if signal_begun is not None:
        _begins.signal = None
        signal_begun()


def call_in_child(function, patience: float, what: str, *, mutates: bool, start_within: float | None = None):
    """`function()` in a forked child, a crash retried in a fresh one after a pause; its answer
    or exception here. With `start_within`, a child that has not called call_begins() by then
    is stuck starting: it is replaced too (`function` must call it before asking Kafka).

    `mutates`: `function` changes the cluster. It must then call call_begins() before it asks
    Kafka anything; a child that crashed, hung or died after that is a KafkaAnswerLost, never
    run again (a read is asked again after a crash whenever it happens)."""
    return retrying(partial(_fork_and_run, function, patience, what, start_within, mutates), what, mutates=mutates)


def retrying(attempt, what: str, *, mutates: bool):
    """`attempt()`'s answer: it returns (ok, value), Crashed or StuckStarting, and is made again
    after each pause of CRASH_PAUSES while it crashes (or hangs starting); a mutation that began
    before its crash is a KafkaAnswerLost instead."""
    failures = []
    for pause in (0.0, *CRASH_PAUSES):
        time.sleep(pause)
        outcome = attempt()
        if isinstance(outcome, Crashed) and outcome.began and mutates:
            raise KafkaAnswerLost(f"{what}: the Kafka client crashed ({outcome.name}, librdkafka) after the "
                                  "change was sent: not sent again")
        if isinstance(outcome, (Crashed, StuckStarting)):
            failures.append(outcome.name)
            continue
        ok, value = outcome
        if ok:
            return value
        raise value
    verb = "crashed or hung starting" if StuckStarting.name in failures else "crashed"
    raise KafkaClientCrashed(f"{what}: the Kafka client {verb} {len(failures)} times ({', '.join(failures)}, "
                             f"librdkafka); nothing was {'changed' if mutates else 'read'}")


def _fork_and_run(function, patience: float, what: str, start_within: float | None, mutates: bool):
    """(ok, value) from the child, Crashed, or StuckStarting."""
    read_end, write_end = os.pipe()
    stacks = ChildStacks()
    with kafka_client.FORK_GUARD.fork():  # no librdkafka client of ours lives here meanwhile
        pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(function, write_end, stacks, what)
    os.close(write_end)
    child = _Child(pid, read_end, stacks, what, mutates)
    try:
        return child.outcome(patience, start_within)
    finally:
        child.end()


class _Child:
    """A forked child seen from the parent: its pipe read as its answer comes, and its end."""

    def __init__(self, pid: int, fd: int, stacks: ChildStacks, what: str, mutates: bool = False):
        self.pid, self.fd, self.stacks, self.what, self.mutates = pid, fd, stacks, what, mutates
        self.chunks: list[bytes] = []
        self.closed = False  # the child closed its end of the pipe: answered, or died
        self.status: int | None = None  # its wait status, once reaped

    def outcome(self, patience: float, start_within: float | None):
        started = time.monotonic()
        if start_within is not None:
            self._read_until(started + min(start_within, patience))
            if not self.chunks and not self.closed and self._stuck_starting():
                return StuckStarting()
        self._read_until(started + patience)
        if not self.closed:
            self.stacks.dump(self.pid, self.what, "hung")
            raise self._failed(f"no answer from the Kafka client in {patience:.0f} s")
        self.stacks.forget()
        status = self._reap()
        if os.WIFSIGNALED(status):
            killed = signal.Signals(os.WTERMSIG(status))
            if killed in CRASH_SIGNALS:
                return Crashed(killed, self.began)
            if killed == signal.SIGINT:
                raise KeyboardInterrupt
            raise self._failed(f"the Kafka client was killed by {killed.name}")
        data = b"".join(self.chunks).removeprefix(BEGUN)
        if not data:
            raise self._failed(f"the Kafka client exited without an answer (status {os.WEXITSTATUS(status)})")
        return pickle.loads(data)

    @property
    def began(self) -> bool:
        return bool(self.chunks)  # BEGUN is the first byte the child writes

    def _failed(self, why: str) -> KafkaError:
        """The call failed without an answer: a mutation that began may have been made."""
        if self.mutates and self.began:
            return KafkaAnswerLost(f"{self.what}: {why} after the change was sent: not sent again")
        return KafkaError(f"{self.what}: {why}")

    def _stuck_starting(self) -> bool:
        """Whether a child silent past its start patience is stuck: its stacks dumped, it is
        frozen (waited for until it has stopped, so it cannot begin meanwhile) and looked at a
        last time. One that began after all runs on."""
        self.stacks.dump(self.pid, self.what, "hung starting")
        os.kill(self.pid, signal.SIGSTOP)
        _, status = os.waitpid(self.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):
            self.status = status  # it ended meanwhile
        self._read_until(0.0)
        if self.chunks or self.status is not None:
            if self.status is None:
                os.kill(self.pid, signal.SIGCONT)
            return False
        return True  # end() kills it

    def _read_until(self, ends: float) -> None:
        """What the child writes until it closes the pipe or `ends` has passed (a last look then)."""
        while not self.closed:
            if not select.select([self.fd], [], [], max(0.0, ends - time.monotonic()))[0]:
                return
            chunk = os.read(self.fd, 1 << 20)
            if chunk:
                self.chunks.append(chunk)
            else:
                self.closed = True

    def _reap(self) -> int:
        if self.status is None:
            _, self.status = os.waitpid(self.pid, 0)
        return self.status

    def end(self) -> None:
        """The pipe closed and the child reaped, killed first if it is still there (hung,
        stuck, or the caller interrupted)."""
        os.close(self.fd)
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._reap()


def _child(function, write_end: int, stacks: ChildStacks, what: str) -> None:
    try:
        _die_with_parent()
        stacks.register()
        begins_with(partial(os.write, write_end, BEGUN))
        try:
            outcome = (True, function())
        except BaseException as exc:  # noqa: BLE001 - the parent re-raises it where it called
            outcome = (False, exc)
        if what in os.environ.get(CRASH_AFTER_ENV, "").split(","):
            faulthandler.disable()  # a crash on purpose: no "Fatal Python error" dump of the caller's stack
            os.kill(os.getpid(), signal.SIGSEGV)  # tests only: a crash once the call was made
        call_begins()  # the answer always follows the byte, whether `function` said it or not
        try:
            data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - an answer that does not pickle
            data = pickle.dumps((False, KafkaError(f"answer not transferable: {exc}")))
        with os.fdopen(write_end, "wb") as out:
            out.write(data)
    finally:
        os._exit(0)  # no atexit handlers, no client teardown: the parent has what it needs


def _die_with_parent() -> None:
    """A child left behind by a `check` that hit its deadline and exited ends with it (Linux)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
