"""The fast suite's guard (tests/jvm_guard.py, hooked in tests/conftest.py): tests using a
service fixture are marked `integration`, a service fixture reached at run time by an unmarked
test is refused, and a run without integration tests fails the test that left a java running.

The sessions below are pytest subprocesses with tests/conftest.py as their plugin. Their "java"
is a copy of sleep under that name: a process the watch must see, without starting a JVM."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests import repo
from tests.jvm_guard import TAG_VARIABLE, JavaWatch

pytest_plugins = ["pytester"]

ROOT = repo.ROOT

START_JAVA = """
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.jvm_guard import service_fixture


def start_java(where):
    java = where / "java"
    java.write_bytes(Path("/bin/sleep").read_bytes())
    java.chmod(0o755)
    # Through a shell that ends at once: the java is no descendant of pytest any more.
    subprocess.run(["sh", "-c", f"{java} 60 & echo $! > {os.environ['JAVA_PID_FILE']}"], check=True)
    comm = Path("/proc", Path(os.environ["JAVA_PID_FILE"]).read_text().strip(), "comm")
    deadline = time.monotonic() + 30
    while comm.read_text().strip() != "java" and time.monotonic() < deadline:  # the fork has exec'd
        time.sleep(0.05)
"""

SESSION = START_JAVA + """

@service_fixture
def fake_service():
    yield "up"


@pytest.fixture
def through_another(fake_service):
    return fake_service


def test_uses_the_service(through_another):
    assert through_another == "up"


def test_needs_nothing():
    pass


def test_reaches_the_service_at_run_time(request):
    request.getfixturevalue("fake_service")


def test_leaves_a_java_running(tmp_path):
    start_java(tmp_path)
"""

LATE_SESSION = START_JAVA + """

@pytest.fixture(scope="session")
def java_at_the_end(tmp_path_factory):
    yield
    start_java(tmp_path_factory.mktemp("late"))  # after the last test's own look


def test_passes(java_at_the_end):
    pass
"""


def _session(pytester, monkeypatch, *args: str, source: str = SESSION):
    pid_file = pytester.path / "java.pid"
    monkeypatch.setenv("JAVA_PID_FILE", str(pid_file))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv(TAG_VARIABLE, raising=False)  # its java is not this session's
    pytester.makepyfile(test_inner=source)
    try:
        return pytester.runpytest_subprocess("-p", "tests.conftest", "-p", "no:cacheprovider", *args)
    finally:
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_a_fast_run_leaves_service_tests_out_refuses_late_services_and_fails_on_java(pytester, monkeypatch):
    result = _session(pytester, monkeypatch, "-m", "not integration")
    result.assert_outcomes(passed=2, failed=1, errors=1, deselected=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines([("*test_reaches_the_service_at_run_time asked for the service fixture "
                                  "`fake_service` (request.getfixturevalue?) without the `integration` marker*")])
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_leaves_a_java_running*",
                                 "*a run without integration tests started java: *java 60*"])


def test_a_run_with_integration_tests_runs_them_and_does_not_watch_for_java(pytester, monkeypatch):
    result = _session(pytester, monkeypatch)
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*FAILED*test_reaches_the_service_at_run_time*"])
    assert "started java" not in result.stdout.str()


def test_a_java_started_after_the_last_test_fails_the_session(pytester, monkeypatch):
    result = _session(pytester, monkeypatch, source=LATE_SESSION)
    result.assert_outcomes(passed=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*java started by a run without integration tests: the session fails*",
                                 "*java 60*"])


def _process(proc: Path, pid: int, comm: str, env: dict[str, str], argv: tuple[str, ...] = ("x",)) -> None:
    where = proc / str(pid)
    where.mkdir()
    (where / "comm").write_text(comm + "\n")
    (where / "environ").write_bytes(b"".join(f"{k}={v}\0".encode() for k, v in env.items()))
    (where / "cmdline").write_bytes(b"".join(a.encode() + b"\0" for a in argv))


def test_the_watch_reports_each_java_of_its_session_once(tmp_path):
    watch = JavaWatch("s1", proc=tmp_path)
    (tmp_path / "self").mkdir()
    _process(tmp_path, 10, "java", {"HOME": "/h", TAG_VARIABLE: "s1", "LANG": "C"}, ("java", "-cp", "k", "kafka.Kafka"))
    _process(tmp_path, 11, "java", {TAG_VARIABLE: "s2"})  # another session's broker
    _process(tmp_path, 12, "java", {TAG_VARIABLE: "s10"})  # a tag that merely begins alike
    _process(tmp_path, 13, "java", {})  # no tag: not started under a session
    _process(tmp_path, 14, "python3", {TAG_VARIABLE: "s1"}, ("python3", "-c", "fork"))
    assert watch.new_java_processes() == ["10: java -cp k kafka.Kafka"]
    assert watch.new_java_processes() == []
    (tmp_path / "14" / "comm").write_text("java\n")  # the fork has exec'd java since
    assert watch.new_java_processes() == ["14: python3 -c fork"]
