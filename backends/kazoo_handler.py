"""A kazoo handler for thousands of pipelined requests: fewer syscalls, fewer GIL hand-offs.

kazoo's connection thread moves one request and one answer per loop turn. With its stock
threading handler each turn costs about eight syscalls: an epoll selector built and closed
per select (three selects per request), a wake-up byte written and read per request over a
socket pair, and two reads per answer (length, then body). Each syscall also hands the GIL
to the other thread. This handler keeps kazoo's threads and protocol code and changes what
the handler API (`select`, `create_connection`, `create_socket_pair`) lets it change:

- select is one poll(2) (no descriptor limit), or no syscall at all when the answer is known;
- the client socket reads ahead (one recv serves many answers) and reports buffered bytes
  through `pending()`, the hook kazoo already honours for TLS sockets; it waits for room
  itself when the kernel buffer is full, so a write-select needs no syscall;
- the wake-up pair counts requests in user space: only the first of a run of wake-ups writes
  a byte, and only the last read takes it back.
TLS sockets are left as they are (they buffer on their own).
"""

from __future__ import annotations

import math
import select
import threading

from kazoo.handlers.threading import SequentialThreadingHandler

READ = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR | select.POLLNVAL
WRITE = select.POLLOUT | select.POLLHUP | select.POLLERR | select.POLLNVAL


class ReadAheadSocket:
    """A plain client socket that reads ahead and writes behind.

    Reads: one recv fills a buffer that serves many answers. Writes: requests collect in a
    buffer that goes out in one send when it is large, or before the connection thread
    waits for anything (PipelineHandler.select flushes first), so nothing waits unsent.
    """

    CHUNK = 256 * 1024
    FLUSH_BYTES = 64 * 1024

    def __init__(self, sock, write_timeout: float):
        self._sock = sock
        self._in = bytearray()
        self._out = bytearray()
        self._write_timeout = write_timeout

    def pending(self) -> int:
        return len(self._in)

    def recv(self, size: int) -> bytes:
        if not self._in:
            chunk = self._sock.recv(max(size, self.CHUNK))
            if len(chunk) <= size:
                return chunk
            self._in += memoryview(chunk)[size:]
            return chunk[:size]
        data = bytes(self._in[:size])
        del self._in[:size]  # O(1) from the front of a bytearray
        return data

    def send(self, data) -> int:
        self._out += data
        if len(self._out) >= self.FLUSH_BYTES:
            self.flush()
        return len(data)

    def flush(self) -> None:
        while self._out:
            try:
                sent = self._sock.send(self._out)
            except BlockingIOError:
                poller = select.poll()
                poller.register(self._sock.fileno(), WRITE)
                if not poller.poll(math.ceil(self._write_timeout * 1000)):
                    raise TimeoutError("socket time-out during write") from None
                continue
            if not sent:
                raise ConnectionError("socket connection broken")
            del self._out[:sent]

    def close(self) -> None:
        try:
            self.flush()
        except OSError:
            pass  # closing anyway
        finally:
            self._sock.close()

    def __getattr__(self, name):
        return getattr(self._sock, name)


class _WakeChannel:
    """kazoo's wake-up socket pair with a request count: a real byte exists iff count > 0."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self.count = 0
        self.lock = threading.Lock()


class WakeWriter:
    def __init__(self, channel: _WakeChannel):
        self._channel = channel

    def send(self, data) -> int:
        channel = self._channel
        with channel.lock:
            channel.count += len(data)
            if channel.count == len(data):  # was idle: wake the connection thread
                channel.writer.send(b"\0")
        return len(data)

    def __getattr__(self, name):
        return getattr(self._channel.writer, name)


class WakeReader:
    def __init__(self, channel: _WakeChannel):
        self._channel = channel

    def pending(self) -> int:
        return self._channel.count

    def recv(self, size: int) -> bytes:
        channel = self._channel
        with channel.lock:
            if channel.count == 0:
                return b""
            taken = min(size, channel.count)
            channel.count -= taken
            if channel.count == 0:
                channel.reader.recv(1)
        return b"\0" * taken

    def __getattr__(self, name):
        return getattr(self._channel.reader, name)


class PipelineHandler(SequentialThreadingHandler):
    """SequentialThreadingHandler with the three changes above (kazoo's handler API)."""

    def create_connection(self, *args, **kwargs):
        sock = super().create_connection(*args, **kwargs)
        if hasattr(sock, "pending"):  # TLS
            return sock
        return ReadAheadSocket(sock, kwargs.get("timeout") or 10.0)

    def create_socket_pair(self):
        reader, writer = super().create_socket_pair()
        channel = _WakeChannel(reader, writer)
        return WakeReader(channel), WakeWriter(channel)

    def select(self, rlist, wlist, xlist, timeout=None):
        readable, writable, to_poll = [], [], []  # to_poll: (object, mask)
        requests_waiting = any(isinstance(o, WakeReader) and o.pending() for o in rlist)
        for obj in rlist:
            if isinstance(obj, WakeReader):
                if obj.pending():
                    readable.append(obj)  # a byte is there iff the count is positive: no syscall
                else:
                    to_poll.append((obj, READ))
            elif getattr(obj, "pending", None) and obj.pending() > 0:
                readable.append(obj)
            elif isinstance(obj, ReadAheadSocket) and requests_waiting:
                continue  # send what is queued first; answers wait in the kernel meanwhile
            else:
                to_poll.append((obj, READ))
        for obj in wlist:
            if isinstance(obj, ReadAheadSocket):
                writable.append(obj)  # writes go to its buffer
            else:
                to_poll.append((obj, WRITE))
        if readable or writable:
            return readable, writable, []
        for obj, _ in to_poll:
            if isinstance(obj, ReadAheadSocket):
                obj.flush()  # about to wait: everything written so far must be on its way
        masks: dict[int, int] = {}
        wanted: dict[int, list] = {}
        for obj, mask in to_poll:
            fd = obj if isinstance(obj, int) else obj.fileno()
            masks[fd] = masks.get(fd, 0) | mask
            wanted.setdefault(fd, []).append((obj, mask))
        poller = select.poll()
        for fd, mask in masks.items():
            poller.register(fd, mask)
        for fd, event in poller.poll(None if timeout is None else math.ceil(timeout * 1000)):
            for obj, mask in wanted[fd]:
                if event & mask:
                    (readable if mask == READ else writable).append(obj)
        return readable, writable, []


def pipeline_handler():
    """The handler above where poll(2) exists, else kazoo's own."""
    return PipelineHandler() if hasattr(select, "poll") else SequentialThreadingHandler()
