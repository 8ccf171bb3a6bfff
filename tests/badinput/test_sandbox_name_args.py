"""Bad sandbox names, and names that are not there (or already running), refused in one line
(exit 3) before any process starts or any file changes."""

from __future__ import annotations

import json
import os

import pytest

from tests.badinput.harness import Case, Workspace, ids, run_case

NOT_IDENTIFIER = "sandbox name {!r} is not a simple identifier (a letter, then up to 39 letters, digits, '-' or '_')"
# A sandbox named `fake` whose one broker is this test process: alive, so "running".
RUNNING = {"state/streamctl/sandboxes/fake/state.json": json.dumps(
    {"mode": "kraft", "brokers": 1, "cluster_id": "x",
     "services": [{"name": "kafka-1", "role": "broker", "port": 1, "argv": [], "log": "kafka-1.log", "pid": "{pid}"}]}
).replace('"{pid}"', "{pid}")}

CASES = [
    Case("up with a space", ("sandbox", "up", "--name", "my sandbox"), NOT_IDENTIFIER.format("my sandbox")),
    Case("up with a slash", ("sandbox", "up", "--name", "../etc"), NOT_IDENTIFIER.format("../etc")),
    Case("status with a leading digit", ("sandbox", "status", "--name", "2b"), NOT_IDENTIFIER.format("2b")),
    Case("stop with an empty name", ("sandbox", "stop", "kafka-1", "--name", ""), NOT_IDENTIFIER.format("")),
    Case("a derived context's name", ("sandbox", "up", "--name", "kraft-tls"),
         "sandbox name 'kraft-tls' ends like the contexts a sandbox adds beside its own (-tls, -monitor): pick another"),
    Case("down of an unknown name", ("sandbox", "down", "--name", "ghost"),
         "no sandbox named 'ghost' (known: none); start it with `streamctl sandbox up --name ghost`"),
    Case("restart in an unknown sandbox", ("sandbox", "restart", "kafka-1", "--name", "ghost"),
         "no sandbox named 'ghost' (known: fake); start it with `streamctl sandbox up --name ghost`", files=RUNNING),
    Case("up of a running name", ("sandbox", "up", "--name", "fake", "--kraft", "--brokers", "1", "--kafka-only"),
         "sandbox 'fake' is already running (`streamctl sandbox status --name fake`; "
         "`streamctl sandbox down --name fake` first to start it again)", files=RUNNING),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_sandbox_name(case, tmp_path):
    run_case(case, Workspace(tmp_path, pid=os.getpid()))
