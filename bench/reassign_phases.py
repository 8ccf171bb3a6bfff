#!/usr/bin/env python3
"""Where one `streamctl reassign plan --rebalance` spends its time, phase by phase, in a fresh
process (so imports are cold) with the client in that process (the command forks a child for it).

    python -m bench.reassign_phases HOST:PORT,...

Prints one JSON object: seconds per phase, in the order the command runs them.
"""

from __future__ import annotations

import json
import sys
import time

TIMEOUT = 30


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
    from streamctl.kafka.reassign.commands import read_layout

    done("import streamctl.cli + reassign")
    import kafka.admin  # noqa: F401

    done("import kafka-python")
    admin = ReassignAdmin({"bootstrap.servers": bootstrap}, timeout=TIMEOUT)
    assert admin.client is not None
    done("connect (bootstrap, api versions)")
    layout = read_layout(admin)
    done("metadata + DescribeLogDirs")
    moves = plans.moves_for(layout, None, None, True)
    done("planner (rebalance)")
    json.dumps(plans.describe(layout, moves, None))
    done("describe + JSON")
    admin.close()
    print(json.dumps(phases))


if __name__ == "__main__":
    main(sys.argv[1])
