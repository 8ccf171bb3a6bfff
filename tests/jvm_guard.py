"""No JVM in the fast suite (`make test-fast`, `pytest -m "not integration"`).

A fixture that starts services (a sandbox, the secure or TLS one, the Spark cluster, S3Proxy)
is declared with `@service_fixture`. tests/conftest.py then
- marks `integration` every test whose fixture closure holds one (`mark_service_tests`), so no
  test has to be marked by hand to stay out of the fast suite;
- refuses to start one for a test without that marker (`refusal`): `request.getfixturevalue`
  reaches a fixture the closure does not show;
- in a run that selects no integration test, looks after each test for a `java` process this
  session started (`JavaWatch`) and fails the test that left it running.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

INTEGRATION = "integration"

# The session's tag in the environment: every process started under the session inherits it,
# also one a `streamctl` child left running after it ended (no longer a descendant of pytest).
TAG_VARIABLE = "STREAMCTL_TEST_SESSION"

SERVICE_FIXTURES: set[str] = set()


def service_fixture(function=None, **options):
    """`@pytest.fixture` (same options) for a fixture that starts services: its tests are
    integration tests, left out of the fast suite."""
    def declare(fixture):
        SERVICE_FIXTURES.add(options.get("name", fixture.__name__))
        return pytest.fixture(**options)(fixture)
    return declare(function) if function is not None else declare


def mark_service_tests(items) -> None:
    """Mark `integration` every test that uses a service fixture, directly or through another."""
    for item in items:
        if SERVICE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(INTEGRATION)


def refusal(fixture: str, item) -> str | None:
    """Why `fixture` must not start for `item` (None: it may)."""
    if fixture not in SERVICE_FIXTURES or item is None or item.get_closest_marker(INTEGRATION):
        return None
    return (f"{item.nodeid} asked for the service fixture `{fixture}` (request.getfixturevalue?) "
            f"without the `{INTEGRATION}` marker: mark it, the fast suite starts no JVM")


class JavaWatch:
    """The `java` processes carrying this session's tag, each reported once.

    /proc is read incrementally (a few new pids a test): a pid first seen without the tag is not
    read again; the tagged ones are read until they end, as a fork becomes java when it execs.
    """

    def __init__(self, tag: str, proc: Path = Path("/proc")):
        self.entry = f"\0{TAG_VARIABLE}={tag}\0".encode()
        self.proc = proc
        self.tagged: set[int] = set()
        self.untagged: set[int] = set()
        self.reported: set[int] = set()

    @classmethod
    def start(cls) -> JavaWatch:
        """Tag this process's environment, then watch for java processes that inherit it."""
        tag = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        os.environ[TAG_VARIABLE] = tag
        return cls(tag)

    def new_java_processes(self) -> list[str]:
        """`pid: command line` of each tagged java process not reported before."""
        pids = {int(name) for name in os.listdir(self.proc) if name.isdigit()}
        self.tagged &= pids
        self.untagged &= pids
        for pid in pids - self.tagged - self.untagged:
            (self.tagged if self.entry in b"\0" + self._read(pid, "environ") else self.untagged).add(pid)
        found = []
        for pid in sorted(self.tagged - self.reported):
            if self._read(pid, "comm").strip() == b"java":
                self.reported.add(pid)
                command = self._read(pid, "cmdline").replace(b"\0", b" ").decode(errors="replace")
                found.append(f"{pid}: {command.strip()}")
        return found

    def _read(self, pid: int, name: str) -> bytes:
        try:
            return (self.proc / str(pid) / name).read_bytes()
        except OSError:  # ended meanwhile, or not ours to read
            return b""
