"""Which broker holds Kafka up: ask every broker alone whether it answers at all.

A broker that still counts as registered but does not answer (crashed before its session
expired, paused, a black hole in the bootstrap list) stalls every request routed to it, and
librdkafka's errors do not say which broker that was. Each address gets one TCP connection and
Kafka's ApiVersions request (v0, which every broker answers before any authentication; a TLS
listener answers it by closing the connection), all at once. Plain sockets, no librdkafka
client: called only once a read has already failed or come back partial.
"""

from __future__ import annotations

import socket
import struct
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

API_VERSIONS = 18
CLIENT_ID = b"streamctl-probe"
REQUEST = struct.pack(">hhih", API_VERSIONS, 0, 1, len(CLIENT_ID)) + CLIENT_ID
REQUEST = struct.pack(">i", len(REQUEST)) + REQUEST


@dataclass(frozen=True)
class SilentBroker:
    address: str  # host:port
    broker_id: int | None  # None when the address is not a known broker's
    reason: str  # "refuses connections", "did not answer within 1.0 s"

    def describe(self) -> str:
        who = f"broker {self.broker_id} at {self.address}" if self.broker_id is not None else self.address
        return f"{who} {self.reason}"


def silence(address: str, timeout: float) -> str | None:
    """Why `address` does not answer ApiVersions within `timeout` seconds; None if it answers."""
    host, _, port = address.strip().rpartition(":")
    ends = time.monotonic() + timeout
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as sock:
            sock.settimeout(max(0.05, ends - time.monotonic()))
            sock.sendall(REQUEST)
            sock.recv(4)  # any answer, or the server closing the connection, is an answer
    except ConnectionRefusedError:
        return "refuses connections"
    except TimeoutError:
        return f"did not answer within {timeout:.1f} s"
    except (OSError, ValueError) as exc:
        return f"unreachable ({exc})"
    return None


def silent_brokers(addresses: list[str], timeout: float,
                   known_ids: dict[str, int] | None = None) -> list[SilentBroker]:
    """The addresses that do not answer within `timeout` seconds (all asked at once), named by
    broker id where `known_ids` (address -> id, from a metadata answer) has them."""
    addresses = list(dict.fromkeys(a.strip() for a in addresses if a.strip()))
    if not addresses or timeout <= 0:
        return []
    with ThreadPoolExecutor(max_workers=min(16, len(addresses)), thread_name_prefix="kafka-probe") as pool:
        reasons = dict(zip(addresses, pool.map(lambda a: silence(a, timeout), addresses)))
    ids = known_ids or {}
    return [SilentBroker(address, ids.get(address), reason) for address, reason in reasons.items() if reason]
