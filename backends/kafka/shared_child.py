"""Several callers' Kafka reads in one forked child: `check --all-contexts` forks once, not once
per context and call.

isolated.py forks a child per call. Over N contexts that is N forks, each child touching (and
so copying) the parent's heap as it runs, all at once on a machine that may have two cores.
Here one child, forked when the caller starts (before its threads run: nothing can hold a lock
in it), serves every read: each call crosses a socket pickled, runs on a thread of its own in
the child and makes its own client there, so each context keeps its own client and deadline
and a context whose brokers do not answer holds up no other.

The crash rules are isolated.py's. A child that dies of a crash signal (librdkafka's) takes the
reads in it down with it: each is asked again in a fresh child after the same doubling pauses
(isolated.retrying), four in a row are a KafkaClientCrashed. A read not begun within
START_PATIENCE (its client not made: the child hangs on some lock) ends the child, and every
read in it is asked again in a fresh one. Only reads come here: a mutation (`@mutation`,
validate-only included), or a call whose arguments do not pickle, runs in a child of its own
(isolated.call_in_child), so nothing is ever sent to Kafka twice. A read that began but does
not answer within its patience fails alone; the child ends when the owner closes it (or dies:
the child leaves when its socket closes).
"""

from __future__ import annotations

import itertools
import os
import pickle
import signal
import socket
import threading
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.connection import Connection
from typing import Any, Self

from streamctl.backends.child_stacks import ChildStacks
from streamctl.backends.kafka import client as kafka_client
from streamctl.backends.kafka import isolated
from streamctl.backends.kafka.client import KafkaError
from streamctl.backends.kafka.cluster import KafkaBackend  # imported before the fork: the child has it
from streamctl.backends.kafka.isolated import CRASH_SIGNALS, START_PATIENCE, Crashed, IsolatedKafka, StuckStarting

BEGUN = "begun"  # the child's first message about a call: its client is made and it begins


class SharedKafkaChild:
    """One child for the reads of every backend it hands out; closed, it forks no more."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._closed = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Fork the child now, from the calling thread (before it starts others), not at the first read."""
        try:
            self._running()
        except OSError:  # no fork now (out of processes or memory): each read tries again, failing alone
            return

    def backend(self, client_config: dict[str, str], timeout: float) -> SharedChildKafka:
        """A KafkaBackend for one context whose reads run in this child."""
        return SharedChildKafka(self, KafkaBackend, client_config, timeout=timeout)

    def run(self, function, patience: float, what: str):
        """`function()` (which calls isolated.call_begins() once its client is made) in the
        shared child, asked again after a crash; in a child of its own if it does not pickle."""
        try:
            payload = pickle.dumps(function, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):  # a lambda among the arguments
            return isolated.call_in_child(function, patience, what, start_within=START_PATIENCE, mutates=False)
        return isolated.retrying(lambda: self._running().call(payload, patience, what), what, mutates=False)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            server, self._server = self._server, None
        if server is not None:
            server.stop()

    def _running(self) -> _Server:
        with self._lock:
            if self._closed:
                raise KafkaError("the Kafka client child is closed: the run that used it ended")
            if self._server is None or self._server.ended:
                self._server = _Server.fork()
            return self._server


class SharedChildKafka(IsolatedKafka):
    """An IsolatedKafka whose reads run in a SharedKafkaChild (its mutations in a child each)."""

    def __init__(self, child: SharedKafkaChild, client_class, *args, timeout: float, **kwargs):
        super().__init__(client_class, *args, timeout=timeout, **kwargs)
        self.shared_child = child

    def run_read(self, function, what: str):
        return self.shared_child.run(function, self.patience, what)


@dataclass
class _Pending:
    """One call sent to the child: whether it began, and its outcome once it has one."""

    begun: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    outcome: Any = None

    def settle(self, outcome) -> None:
        if not self.done.is_set():
            self.outcome = outcome
            self.done.set()


class _Server:
    """The forked child seen from the parent: the socket to it, the calls waiting for its
    answers, and a thread reading them."""

    def __init__(self, pid: int, conn: Connection, stacks: ChildStacks):
        self.pid, self.conn, self.stacks = pid, conn, stacks
        self.ids = itertools.count()
        self.pending: dict[int, _Pending] = {}
        self.lock = threading.Lock()
        self.ended = False
        self.stuck = False  # ended by us: a call in it never began
        self.dumped = False
        threading.Thread(target=self._read_answers, name="kafka-shared-child", daemon=True).start()

    @classmethod
    def fork(cls) -> _Server:
        ours, theirs = socket.socketpair()
        stacks = ChildStacks()
        with kafka_client.FORK_GUARD.fork():  # no librdkafka client of ours lives here meanwhile
            pid = os.fork()
        if pid == 0:  # the child: never returns
            ours.close()
            _serve(Connection(theirs.detach()), stacks)
        theirs.close()
        return cls(pid, Connection(ours.detach()), stacks)

    def call(self, payload: bytes, patience: float, what: str):
        """(ok, value), Crashed or StuckStarting: what became of one call in this child."""
        pending = _Pending()
        with self.lock:
            if self.ended:
                return StuckStarting() if self.stuck else Crashed(signal.SIGKILL, began=False)
            call_id = next(self.ids)
            self.pending[call_id] = pending
            try:
                self.conn.send_bytes(pickle.dumps((call_id, payload)))
            except OSError:  # the child has just died: its reader settles the call
                pass
        if not pending.begun.wait(min(START_PATIENCE, patience)) and not pending.done.is_set():
            self._end_stuck(what)
        if not pending.done.wait(patience):
            with self.lock:
                self.pending.pop(call_id, None)
            self._dump(what, "hung")
            return False, KafkaError(f"{what}: no answer from the Kafka client in {patience:.0f} s")
        return pending.outcome

    def stop(self) -> None:
        """End the child (its reader then settles what still waits) and reap it."""
        self._kill()
        if not self.dumped:
            self.stacks.forget()

    def _end_stuck(self, what: str) -> None:
        with self.lock:
            if self.ended:
                return
            self.stuck = True
        self._dump(what, "hung starting")
        self._kill()

    def _dump(self, what: str, how: str) -> None:
        if not self.ended:
            self.dumped = True
            self.stacks.dump(self.pid, what, how)

    def _kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _read_answers(self) -> None:
        while True:
            try:
                call_id, message = pickle.loads(self.conn.recv_bytes())
            except (EOFError, OSError):
                break
            pending = self.pending.get(call_id)
            if pending is None:
                continue
            if message == BEGUN:
                pending.begun.set()
            else:
                with self.lock:
                    self.pending.pop(call_id, None)
                pending.settle(message)
        self.conn.close()
        _, status = os.waitpid(self.pid, 0)
        with self.lock:
            self.ended = True
            waiting, self.pending = self.pending, {}
        for pending in waiting.values():
            pending.settle(self._outcome_of_end(status, pending.begun.is_set()))

    def _outcome_of_end(self, status: int, began: bool):
        """What a call still in the child when it ended gets: asked again after a crash (or
        when we ended it stuck), else the one-line reason."""
        if self.stuck:
            return StuckStarting()
        if os.WIFSIGNALED(status):
            killed = signal.Signals(os.WTERMSIG(status))
            if killed in CRASH_SIGNALS:
                return Crashed(killed, began)
            if killed == signal.SIGINT:
                return False, KeyboardInterrupt()
            return False, KafkaError(f"the Kafka client was killed by {killed.name}")
        return False, KafkaError(f"the Kafka client exited without an answer (status {os.WEXITSTATUS(status)})")


def _serve(conn: Connection, stacks: ChildStacks) -> None:
    """The child: each call on a thread of its own until the parent closes the socket (or
    exits); then it leaves at once, whatever still runs."""
    send_lock = threading.Lock()

    def say_begun(call_id: int) -> None:
        data = pickle.dumps((call_id, BEGUN))
        with send_lock:
            conn.send_bytes(data)

    def run(call_id: int, payload: bytes) -> None:
        isolated.begins_with(partial(say_begun, call_id))
        try:
            outcome = (True, pickle.loads(payload)())
        except BaseException as exc:  # noqa: BLE001 - the parent re-raises it where it called
            outcome = (False, exc)
        isolated.call_begins()  # the answer always follows BEGUN
        try:
            data = pickle.dumps((call_id, outcome), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - an answer that does not pickle
            data = pickle.dumps((call_id, (False, KafkaError(f"answer not transferable: {exc}"))))
        try:
            with send_lock:
                conn.send_bytes(data)
        except OSError:  # the parent is gone
            os._exit(0)

    try:
        stacks.register()
        while True:
            try:
                call_id, payload = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                break
            threading.Thread(target=run, args=(call_id, payload), daemon=True).start()
    finally:
        os._exit(0)  # no atexit handlers, no client teardown: nobody reads what is left
