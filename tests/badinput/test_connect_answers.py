"""Bad answers from a Kafka Connect worker's REST API: `connect list` gives one error line
(exit 1) and `check --component connect` is CRIT (exit 2) with the same reason; never a
traceback, nothing written. The 409 and 404 bodies are the ones Kafka Connect sends
(ConnectRestException's {"error_code", "message"}); the rest is what a wrong URL answers."""

from __future__ import annotations

import json

import pytest

from tests.badinput.harness import Case, Workspace, ids, run_case
from tests.badinput.servers import answering

REBALANCE = {"error_code": 409, "message": "Cannot complete request because of a conflicting operation "
                                           "(e.g. worker rebalance)"}
STALE = {"error_code": 409, "message": "Cannot complete request momentarily due to stale configuration "
                                       "(typically caused by a concurrent config change)"}
ROOT = (200, {"Content-Type": "application/json"},
        b'{"version":"3.9.2","commit":"5e9866f43ab8e7e4","kafka_cluster_id":"VI5LyiX7QveBrzNmWi3yQg"}')
LISTING = "/connectors?expand=status&expand=info"


def _json(status: int, body) -> tuple[int, dict, bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(body).encode()


RETRY = "(the workers are rebalancing: try again in a few seconds)"

# worker -> its answers to GET / and to the expanded listing; and the reason both commands give
# after "Connect worker {url}/{worker}: "
WORKERS = {
    "rebalance": ({"/": ROOT, LISTING: _json(409, REBALANCE)}, f"GET /connectors: 409 {REBALANCE['message']} {RETRY}"),
    "stale-config": ({"/": _json(409, STALE)}, f"GET /: 409 {STALE['message']} {RETRY}"),
    "not-found": ({"/": ROOT, LISTING: _json(404, {"error_code": 404, "message": "HTTP 404 Not Found"})},
                  "GET /connectors: 404 HTTP 404 Not Found"),
    "server-error": ({"/": (500, {"Content-Type": "text/html"}, b"<html><body>\nError 500\n</body></html>")},
                     "GET /: 500 <html><body>"),
    "not-json": ({"/": (200, {"Content-Type": "text/plain"}, b"Flume metrics here")},
                 "GET /: answered 200 with a body that is not JSON"),
    "wrong-shape": ({"/": ROOT, LISTING: (200, {}, b'["weblog-archive"]')},
                    "not a Kafka Connect answer (GET / and GET /connectors gave dict, list)"),
    "status-not-an-object": ({"/": ROOT, LISTING: (200, {}, b'{"a": {"status": ["RUNNING"]}}')},
                             ("a connector's status is not in Kafka Connect's shape "
                             "('list' object has no attribute 'get')")),
}

CONFIG = """\
current-context: c
contexts:
  c:
    kafka: {bootstrap_servers: "127.0.0.1:{dead}", timeout: 2}
    connect: {urls: ["{url}/{worker}"], timeout: 3}
"""


def _routes() -> dict:
    return {f"/{worker}{path}": answer for worker, (answers, _) in WORKERS.items() for path, answer in answers.items()}


def _reason(worker: str) -> str:
    return f"Connect worker {{url}}/{worker}: {WORKERS[worker][1]}"


def list_case(worker: str) -> Case:
    return Case(f"list {worker}", ("connect", "list"), code=1, config=CONFIG.replace("{worker}", worker),
                error=_reason(worker))


def check_case(worker: str) -> Case:
    def crit_naming_the_reason(result, workspace):
        first, detail = result.stdout.splitlines()
        assert first.startswith("STREAMCTL CRITICAL: 1 critical: ") and first.endswith("| 'connect_up'=0;;;0;1")
        assert detail == f"[CRIT] connect cluster: {workspace.fill(_reason(worker))}"

    return Case(f"check {worker}", ("check", "--component", "connect"), code=2,
                config=CONFIG.replace("{worker}", worker), stdout=None, check=crit_naming_the_reason)


CASES = [list_case(w) for w in WORKERS] + [check_case(w) for w in WORKERS] + [
    Case("list refused", ("connect", "list"), code=1, config=CONFIG.replace("{url}/{worker}", "http://127.0.0.1:{dead}"),
         error="Connect unreachable: http://127.0.0.1:{dead}: connection refused"),
]


@pytest.fixture(scope="module")
def worker_url():
    with answering(_routes()) as url:
        yield url


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_connect_answer(case, tmp_path, worker_url):
    run_case(case, Workspace(tmp_path, url=worker_url))
