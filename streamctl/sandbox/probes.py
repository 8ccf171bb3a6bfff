"""What the sandbox asks of a ZooKeeper server to know it is up (its `srvr` answer's mode)."""

from __future__ import annotations

import socket


def zookeeper_mode(port: int, host: str = "127.0.0.1", timeout: float = 2.0) -> str | None:
    """The `Mode:` line of ZooKeeper's `srvr` answer (whitelisted by default), or None."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            sock.sendall(b"srvr")
            data = b""
            while chunk := sock.recv(4096):
                data += chunk
    except OSError:
        return None
    for line in data.decode(errors="replace").splitlines():
        if line.startswith("Mode:"):
            return line.split(":", 1)[1].strip()
    return None
