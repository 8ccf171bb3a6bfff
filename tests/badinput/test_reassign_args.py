"""Bad input to `streamctl reassign` that is refused in one line (exit 3) before any network call
(the context's Kafka is an address nothing listens on). A plan file's faults and a broker id the
cluster does not know (`--add-broker 9`) need the cluster's layout: tests/unit/kafka/
test_reassign_plans.py, test_reassign_add_broker.py and tests/integration/test_reassign.py cover them."""

from __future__ import annotations

import pytest

from tests.badinput.harness import Case, Workspace, ids, run_case

EXECUTE = ("reassign", "execute", "--decommission", "1")
JOBS = "--decommission, --add-broker, --replication-factor, --rebalance"

CASES = [
    Case("throttle 0", (*EXECUTE, "--throttle", "0"), "--throttle '0': must be above 0 bytes per second"),
    Case("negative throttle", (*EXECUTE, "--throttle", "-5MB"),
         "--throttle '-5MB': give bytes per second, e.g. 10MB or 5000000"),
    Case("throttle in an unknown unit", ("reassign", "plan", "--rebalance", "--throttle", "3 furlongs"),
         "--throttle '3 furlongs': give bytes per second, e.g. 10MB or 5000000"),
    Case("read-only context", ("--context", "ro", *EXECUTE, "--throttle", "1MB", "--execute"),
         "context 'ro' is read-only: refusing reassign execute"),
    Case("read-only flag", ("--read-only", "reassign", "cancel", "--execute"),
         "read-only mode (--read-only): refusing reassign cancel"),
    Case("add-broker with decommission", ("reassign", "plan", "--add-broker", "4", "--decommission", "1"),
         f"give exactly one of {JOBS}"),
    Case("add-broker with rebalance", ("reassign", "execute", "--add-broker", "4", "--rebalance", "--throttle", "1MB",
                                       "--execute"), f"give exactly one of {JOBS}"),
    Case("add-broker with a plan file", ("reassign", "execute", "--add-broker", "4", "--plan", "{ws}/p.json",
                                         "--throttle", "1MB"), f"--plan FILE goes alone, without {JOBS}"),
    Case("add-broker of a negative id", ("reassign", "plan", "--add-broker", "-1"),
         "Invalid value for '--add-broker': -1 is not in the range x>=0."),
    Case("add-broker of no number", ("reassign", "execute", "--add-broker", "four", "--throttle", "1MB"),
         "Invalid value for '--add-broker': 'four' is not a valid broker id."),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_reassign_argument(case, tmp_path):
    run_case(case, Workspace(tmp_path))
