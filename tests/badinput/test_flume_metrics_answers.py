"""Bad answers from a Flume agent's metrics endpoint: the agent counts as down with one reason
(`agents status` exit 1, `check` CRIT exit 2), never a traceback, and no poll is remembered."""

from __future__ import annotations

import pytest

from tests.badinput.harness import Case, Workspace, ids, json_out, run_case
from tests.badinput.servers import answering

ROUTES = {
    "/html": (200, {"Content-Type": "text/html"}, b"<html><body>Jetty</body></html>"),
    "/array": (200, {}, b"[1, 2]"),
    "/flat": (200, {}, b'{"SOURCE.r1": "5", "CHANNEL.c1": {"ChannelSize": "1"}}'),
    "/empty": (200, {}, b""),
    "/utf16-garbage": (200, {}, b"\xff\xfe{\x00"),
    "/deep": (200, {}, b"[" * 100_000 + b"]" * 100_000),
    "/error": (500, {}, b"java.lang.NullPointerException"),
    "/redirect": (302, {"Location": "/html"}, b""),
    "/truncated": (200, {"Content-Length": "100"}, b'{"SOURCE.r1": {'),
}

CONFIG = """\
current-context: p
contexts:
  p:
    kafka: {bootstrap_servers: "127.0.0.1:{dead}", timeout: 2}
    flume: {agents: {weblogs: {metrics_url: "{url}{path}"}}}
"""

REASONS = {
    "/html": "{url}/html did not answer JSON",
    "/array": "{url}/array did not answer Flume's metrics JSON",
    "/flat": "{url}/flat did not answer Flume's metrics JSON",
    "/empty": "{url}/empty did not answer JSON",
    "/utf16-garbage": "{url}/utf16-garbage did not answer JSON",
    "/deep": "{url}/deep did not answer JSON",
    "/error": "HTTP 500 from {url}/error",
    "/redirect": "HTTP 302 from {url}/redirect",
    "/truncated": "peer closed connection without sending complete message body (received 15 bytes, expected 100)",
}


def _down_because(reason: str):
    def check(result, workspace):
        assert [(s["name"], s["up"], s["error"]) for s in json_out(result)] == [
            ("weblogs", False, workspace.fill(reason))]
    return check


def status_case(path: str) -> Case:
    return Case(f"status {path[1:]}", ("agents", "status", "weblogs", "-o", "json"), code=1,
                config=CONFIG.replace("{path}", path), stdout=None, check=_down_because(REASONS[path]))


def check_case(path: str) -> Case:
    reason = f"agent weblogs unreachable at {{url}}{path}: {REASONS[path]}"
    return Case(f"check {path[1:]}", ("check", "--component", "flume"), code=2,
                config=CONFIG.replace("{path}", path),
                stdout=f"STREAMCTL CRITICAL: 1 critical: {reason} | 'flume_agents_up'=0;;1:;0;1 "
                       "'flume_max_channel_fill_pct'=0%;70;90;0;100\n"
                       f"[CRIT] flume agent weblogs: {reason}\n")


CASES = [status_case(path) for path in ROUTES] + [check_case(path) for path in ("/flat", "/deep", "/error")]


@pytest.fixture(scope="module")
def metrics_url():
    with answering(ROUTES) as url:
        yield url


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_metrics_answer(case, tmp_path, metrics_url):
    run_case(case, Workspace(tmp_path, url=metrics_url))
