"""The bad-input corpus runner: one Case = one real `streamctl` run in a throw-away workspace.

Every case asserts the exit code, the exact stderr (one `streamctl: error: ...` line, or none),
stdout, and that nothing under the workspace changed: the config file, the input files and the
state dir (no audit record, no undo file, no Flume history) are byte for byte as before.
Placeholders `{ws}`, `{dead}` and any the module passes in are filled into args, files and
expected text.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import run_cli

# A context whose every service is an address nothing listens on: input that reaches the
# network fails on the network, so the cases below must be refused before it.
DEAD_CONFIG = """\
current-context: dead
contexts:
  dead:
    kafka: {bootstrap_servers: "127.0.0.1:{dead}", timeout: 2}
    zookeeper: {hosts: "127.0.0.1:{dead}", timeout: 2}
    flume:
      agents:
        weblogs: {metrics_url: "http://127.0.0.1:{dead}/metrics"}
  ro:
    read_only: true
    kafka: {bootstrap_servers: "127.0.0.1:{dead}", timeout: 2}
"""


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]
    error: str | None = None  # the stderr line after "streamctl: error: " (None: stderr is `stderr`)
    code: int = 3
    files: Mapping[str, str | bytes] = field(default_factory=dict)  # workspace-relative path -> content
    config: str | None = DEAD_CONFIG  # config.yaml; None: no config file at all
    stdout: str | None = ""  # exact stdout; None: left to `check`
    stderr: str = ""  # exact stderr when `error` is None
    check: Callable[[subprocess.CompletedProcess, Workspace], None] | None = None
    env: Mapping[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.id


def dead_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Workspace:
    """A directory holding config.yaml, the input files and the XDG dirs of one run."""

    def __init__(self, root: Path, **placeholders: object):
        self.root = root
        self.config = root / "config.yaml"
        self.state = root / "state"
        self.values = {"ws": str(root), "dead": str(dead_port()), **{k: str(v) for k, v in placeholders.items()}}

    def fill(self, text: str) -> str:
        for name, value in self.values.items():
            text = text.replace("{" + name + "}", value)
        return text

    def fill_bytes(self, data: bytes) -> bytes:
        for name, value in self.values.items():
            data = data.replace(("{" + name + "}").encode(), value.encode())
        return data

    def env(self, extra: Mapping[str, str]) -> dict[str, str]:
        return {**os.environ, "XDG_STATE_HOME": str(self.state), "XDG_CONFIG_HOME": str(self.root / "xdg-config"),
                "XDG_CACHE_HOME": str(self.root / "cache"), "STREAMCTL_CONFIG": str(self.config),
                **{k: self.fill(v) for k, v in extra.items()}}

    def write(self, case: Case) -> None:
        self.state.mkdir(parents=True, exist_ok=True)
        if case.config is not None:
            self.config.write_text(self.fill(case.config))
        for relative, content in case.files.items():
            path = self.root / self.fill(relative)
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(self.fill_bytes(content))
            else:
                path.write_text(self.fill(content), encoding="utf-8")

    def snapshot(self) -> dict[str, bytes | None]:
        """Every file's bytes and every directory (None), by path relative to the workspace."""
        found: dict[str, bytes | None] = {}
        for path in sorted(self.root.rglob("*")):
            found[str(path.relative_to(self.root))] = None if path.is_dir() else path.read_bytes()
        return found


def run_case(case: Case, workspace: Workspace, before_run: Callable[[], None] | None = None
             ) -> subprocess.CompletedProcess:
    """Write the case's files, run it, and assert everything the corpus promises."""
    workspace.write(case)
    if before_run:
        before_run()
    before = workspace.snapshot()
    result = run_cli(*(workspace.fill(a) for a in case.args), env=workspace.env(case.env), timeout=90)
    shown = f"\nexit {result.returncode}\nstderr: {result.stderr!r}\nstdout: {result.stdout[:2000]!r}"
    assert "Traceback" not in result.stderr, shown
    assert result.returncode == case.code, shown
    expected_err = case.stderr if case.error is None else f"streamctl: error: {case.error}\n"
    assert result.stderr == workspace.fill(expected_err), shown
    if case.error is not None:
        assert len(result.stderr.splitlines()) == 1, shown
    if case.stdout is not None:
        assert result.stdout == workspace.fill(case.stdout), shown
    if case.check:
        case.check(result, workspace)
    assert workspace.snapshot() == before, "the run changed files in the workspace (state dir, config, inputs)"
    return result


def json_out(result: subprocess.CompletedProcess):
    return json.loads(result.stdout)


def ids(cases: list[Case]) -> list[str]:
    assert len({c.id for c in cases}) == len(cases), "case ids must be unique"
    return [c.id for c in cases]
