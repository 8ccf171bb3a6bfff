"""Bad input to `streamctl quotas`: refused in one line (exit 3) before any network call (the
context's Kafka is an address nothing listens on), nothing written."""

from __future__ import annotations

import pytest

from tests.badinput.harness import Case, Workspace, ids, run_case

ALTER = ("quotas", "alter")
CLIENT = ("--client-id", "billing")

CASES = [
    Case("no entity", (*ALTER, "--set", "producer_byte_rate=1024"),
         "no quota entity: give --user/--user-default, --client-id/--client-id-default or --ip/--ip-default"),
    Case("a name and its default", (*ALTER, "--user", "alice", "--user-default", "--set", "producer_byte_rate=1"),
         "give --user NAME or --user-default, not both"),
    Case("ip with a client-id", (*ALTER, "--ip", "10.0.0.1", *CLIENT, "--set", "connection_creation_rate=5"),
         "an IP quota stands alone: --ip cannot be combined with --user or --client-id"),
    Case("unknown key", (*ALTER, *CLIENT, "--set", "byte_rate=5"),
         "unknown quota key 'byte_rate' (one of producer_byte_rate, consumer_byte_rate, request_percentage, "
         "controller_mutation_rate)"),
    Case("IP key on a client-id", (*ALTER, *CLIENT, "--set", "connection_creation_rate=5"),
         "quota connection_creation_rate applies to IPs only"),
    Case("client key on an IP", (*ALTER, "--ip-default", "--delete", "producer_byte_rate"),
         "quota producer_byte_rate applies to users and client-ids, not IPs"),
    Case("zero", (*ALTER, *CLIENT, "--set", "producer_byte_rate=0"),
         "--set producer_byte_rate: expected a number above 0, got '0' (use --delete producer_byte_rate to "
         "remove the quota)"),
    Case("negative", (*ALTER, *CLIENT, "--set", "consumer_byte_rate=-1"),
         "--set consumer_byte_rate: expected a number above 0, got '-1' (use --delete consumer_byte_rate to "
         "remove the quota)"),
    Case("not a number", (*ALTER, *CLIENT, "--set", "producer_byte_rate=fast"),
         "--set producer_byte_rate: expected a number, got 'fast'"),
    Case("no value", (*ALTER, *CLIENT, "--set", "producer_byte_rate"),
         "--set 'producer_byte_rate': expected KEY=VALUE"),
    Case("nothing to alter", (*ALTER, *CLIENT), "nothing to alter: give --set KEY=VALUE or --delete KEY"),
    Case("set and delete", (*ALTER, *CLIENT, "--set", "producer_byte_rate=1", "--delete", "producer_byte_rate"),
         "quota producer_byte_rate: given to both --set and --delete"),
    Case("list ip with a user", ("quotas", "list", "--ip", "10.0.0.1", "--user", "alice"),
         "--ip cannot be combined with --user or --client-id (IP quotas stand alone)"),
    Case("read-only flag", ("--read-only", *ALTER, *CLIENT, "--set", "producer_byte_rate=1", "--execute"),
         "read-only mode (--read-only): refusing quotas alter"),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_quotas_argument(case, tmp_path):
    run_case(case, Workspace(tmp_path))
