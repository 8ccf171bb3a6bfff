"""The pipelining kazoo handler's sockets, over real socket pairs (the integration tests run
every ZooKeeper session through it)."""

from __future__ import annotations

import socket

from streamctl.backends.kazoo_handler import PipelineHandler, ReadAheadSocket


def pair():
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    return ReadAheadSocket(ours, write_timeout=2.0), theirs


def test_read_ahead_serves_many_answers_from_one_recv():
    sock, peer = pair()
    peer.sendall(b"\x00\x00\x00\x03abc\x00\x00\x00\x02de")
    handler = PipelineHandler()
    assert handler.select([sock], [], [], 1.0)[0] == [sock]
    assert sock.recv(4) == b"\x00\x00\x00\x03"
    assert sock.pending() == 9
    assert handler.select([sock], [], [], 0)[0] == [sock]  # buffered: readable without the kernel
    assert [sock.recv(3), sock.recv(4), sock.recv(2)] == [b"abc", b"\x00\x00\x00\x02", b"de"]
    assert sock.pending() == 0
    assert handler.select([sock], [], [], 0.05)[0] == []


def test_writes_wait_in_the_buffer_until_a_select_would_block():
    sock, peer = pair()
    handler = PipelineHandler()
    assert handler.select([], [sock], [], 1.0)[1] == [sock]
    for chunk in (b"one", b"two", b"three"):
        assert sock.send(chunk) == len(chunk)
    peer.setblocking(False)
    try:
        peer.recv(100)
        raise AssertionError("nothing should have been sent yet")
    except BlockingIOError:
        pass
    handler.select([sock], [], [], 0.05)  # about to wait for an answer: flushes first
    peer.settimeout(1.0)
    assert peer.recv(100) == b"onetwothree"


def test_wake_pair_counts_in_user_space():
    handler = PipelineHandler()
    reader, writer = handler.create_socket_pair()
    assert handler.select([reader], [], [], 0.05)[0] == []
    for _ in range(3):
        writer.send(b"\0")
    assert reader.pending() == 3
    assert handler.select([reader], [], [], 0)[0] == [reader]
    assert [reader.recv(1) for _ in range(3)] == [b"\0"] * 3
    assert reader.pending() == 0
    assert handler.select([reader], [], [], 0.05)[0] == []  # the one real byte was taken back
    writer.send(b"\0")
    assert handler.select([reader], [], [], 1.0)[0] == [reader]
    reader.close()
    writer.close()
