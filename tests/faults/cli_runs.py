"""`streamctl` runs with their wall time, several at once, and what each run must show."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from tests.check_reasons import assert_unknowns_are_service_conditions, problem_lines
from tests.conftest import run_cli

SLACK = 4.0  # seconds a command may take past its own timeout (interpreter start-up on a busy 2-core box)
AT_ONCE = 3  # commands run at the same time (more would measure CPU contention, not timeouts)


@dataclass(frozen=True)
class Run:
    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str
    took: float

    @property
    def first_line(self) -> str:
        return (self.stdout.splitlines() or [""])[0]

    def json(self):
        return json.loads(self.stdout)

    def __str__(self) -> str:
        return (f"$ streamctl {' '.join(self.args)}  -> exit {self.code} after {self.took:.2f} s\n"
                f"--- stdout\n{self.stdout[:3000]}\n--- stderr\n{self.stderr[-3000:]}")


def timed_run(env: dict[str, str], args: tuple[str, ...], timeout: float = 90) -> Run:
    """One `streamctl` run and its wall time."""
    started = time.monotonic()
    result = run_cli(*args, env=env, timeout=timeout)
    return Run(args, result.returncode, result.stdout, result.stderr, time.monotonic() - started)


def run_all(env: dict[str, str], commands: list[tuple[str, ...]], timeout: float = 90) -> list[Run]:
    """Run the commands at the same time (they mostly wait on the network), each timed alone."""
    with ThreadPoolExecutor(max_workers=min(AT_ONCE, len(commands))) as pool:
        return list(pool.map(lambda args: timed_run(env, args, timeout), commands))


def no_traceback(run: Run) -> None:
    assert "Traceback" not in run.stdout + run.stderr, run


def assert_check(run: Run, codes: tuple[int, ...], cause: str, deadline: float, anywhere: bool = False) -> None:
    """A `check --format json` run: exit code, the deadline kept (+1 s), the cause named in the
    summary (the Nagios first line) or in any problem, every UNKNOWN a service condition."""
    no_traceback(run)
    assert run.code in codes, run
    assert run.took < deadline + 1.0, f"past the {deadline:g} s deadline\n{run}"
    doc = run.json()
    assert_unknowns_are_service_conditions(doc, str(run))
    # anywhere: what the Nagios output shows, its first line and then one line per problem
    where = f"{doc['summary']}\n{problem_lines(doc)}" if anywhere else doc["summary"]
    assert re.search(cause, where), f"cause /{cause}/ not named\n{run}"


@dataclass(frozen=True)
class Command:
    """A resource command and what it must do while the fault is on.

    expect: "works"  exit 0 (degraded data is fine, and may come with one warning line);
            "error"  exactly one `streamctl: error: ...` line on stderr, nothing on stdout, exit != 0;
            "either" one of the two (the fault may or may not be seen in time);
            "down"   exit 1, its report saying what is down (`agents status`).
    timeout: the command's own per-call timeout; it must end within calls * timeout + SLACK
    (calls: how many of its requests a server may answer one after the other, each timing out).
    shows: a check of the run's output (parsed JSON for "works"/"down", stderr for "error").
    """

    args: tuple[str, ...]
    expect: str
    timeout: float
    shows: Callable[[Run], bool] | None = None
    what: str = ""
    calls: int = 1


def assert_command(run: Run, command: Command) -> None:
    no_traceback(run)
    limit = command.calls * command.timeout + SLACK
    assert run.took < limit, f"past {command.calls} x its {command.timeout:g} s timeout\n{run}"
    expect = command.expect
    if expect == "either":
        expect = "works" if run.code == 0 else "error"
    if expect == "works":
        assert run.code == 0, run
        warnings = [line for line in run.stderr.splitlines() if line.strip()]
        assert all(line.startswith("streamctl: warning: ") for line in warnings) and len(warnings) <= 1, run
    elif expect == "error":
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        assert run.code != 0 and not run.stdout.strip(), run
        assert len(lines) == 1 and lines[0].startswith("streamctl: error: "), run
    elif expect == "down":
        assert run.code == 1, run
    else:
        raise ValueError(expect)
    if command.shows is not None:
        assert command.shows(run), f"{command.what or 'expected content'} not shown\n{run}"
