#!/usr/bin/env python3
"""Where one `streamctl reassign plan --rebalance` spends its time, phase by phase, in a fresh
process (so imports are cold), reading as the command does (kafka-python, in its own process).

    python -m bench.reassign_phases HOST:PORT,...

Prints one JSON object: "phases", seconds per phase in the order the command runs them;
"requests", every Kafka request answered (its response type and the milliseconds kafka-python
measured from send to answer, in the order answered); "connections", the connections made.
"""

from __future__ import annotations

import json
import logging
import sys
import time

TIMEOUT = 30


class Requests(logging.Handler):
    """kafka-python's own debug records of each response and connection, read without formatting."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.answered: list[tuple[str, float]] = []
        self.connections = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg == "%s: Response %d (%s ms): %s":
            self.answered.append((type(record.args[3]).__name__, round(float(record.args[2]), 1)))
        elif record.msg == "%s: Connected":
            self.connections += 1


def main(bootstrap: str) -> None:
    phases: dict[str, float] = {}
    mark = time.perf_counter()

    def done(phase: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        phases[phase] = round(now - mark, 4)
        mark = now

    import streamctl.cli  # noqa: F401  (what the console script imports first)
    from streamctl.backends.kafka.reassign_admin import ReassignAdmin
    from streamctl.kafka.reassign import plans
    from streamctl.kafka.reassign.follow import read_layout

    done("import streamctl.cli + reassign")
    import kafka.admin  # noqa: F401

    done("import kafka-python")
    requests = Requests()
    connection_log = logging.getLogger("kafka.net.connection")
    connection_log.setLevel(logging.DEBUG)  # WireAdmin quiets "kafka" as a whole; this one logger talks
    connection_log.addHandler(requests)
    admin = ReassignAdmin({"bootstrap.servers": bootstrap}, timeout=TIMEOUT)
    assert admin.client is not None
    done("connect (bootstrap, api versions, metadata without topics)")
    layout = read_layout(admin)
    done("metadata + DescribeLogDirs")
    moves = plans.moves_for(layout, None, None, True)
    done("planner (rebalance)")
    json.dumps(plans.describe(layout, moves, None))
    done("describe + JSON")
    admin.close()
    done("close")
    print(json.dumps({"phases": phases, "requests": requests.answered, "connections": requests.connections}))


if __name__ == "__main__":
    main(sys.argv[1])
