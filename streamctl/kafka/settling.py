"""Metadata reaches every broker a moment after a change: a plan's verify re-reads until it shows."""

from __future__ import annotations

import time

from streamctl.errors import StreamctlError


def eventually(verify, timeout: float = 15.0):
    """`verify`, asked again until it stops raising StreamctlError or `timeout` seconds pass."""

    def settled():
        deadline = time.monotonic() + timeout
        while True:
            try:
                return verify()
            except StreamctlError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    return settled
