"""Bad input to `streamctl users`: refused in one line (exit 3) before any network call (the
context's Kafka is an address nothing listens on), nothing written, no password read from
anywhere but a file or a terminal."""

from __future__ import annotations

import pytest

from tests.badinput.harness import Case, Workspace, ids, run_case

CREATE = ("users", "create", "app1")
PASS = ("--password-file", "{ws}/app1.pass")
A_PASSWORD = {"app1.pass": "s3cret-Passw0rd\n"}
RANGE = "Kafka's SCRAM takes 4096 to 16384"

CASES = [
    Case("empty name", ("users", "create", "", *PASS), "the user name is empty", files=A_PASSWORD),
    Case("blank name", ("users", "set-password", "  ", *PASS), "the user name is empty", files=A_PASSWORD),
    Case("empty name to delete", ("users", "delete", ""), "the user name is empty"),
    Case("control character in name", ("users", "create", "app\x07", *PASS),
         "user name 'app\\x07': control characters are not allowed", files=A_PASSWORD),
    Case("unknown mechanism", (*CREATE, "--mechanism", "SCRAM-SHA-1", *PASS),
         "Invalid value for '--mechanism': 'SCRAM-SHA-1' is not one of 'SCRAM-SHA-256', 'SCRAM-SHA-512'.",
         files=A_PASSWORD),
    Case("unknown mechanism to delete", ("users", "delete", "app1", "--mechanism", "PLAIN"),
         "Invalid value for '--mechanism': 'PLAIN' is not one of 'SCRAM-SHA-256', 'SCRAM-SHA-512'."),
    Case("iterations below Kafka's minimum", (*CREATE, "--iterations", "4095", *PASS),
         f"--iterations 4095: {RANGE}", files=A_PASSWORD),
    Case("iterations above Kafka's maximum", ("users", "set-password", "app1", "--iterations", "16385", *PASS),
         f"--iterations 16385: {RANGE}", files=A_PASSWORD),
    Case("iterations not a number", (*CREATE, "--iterations", "many"),
         "Invalid value for '--iterations': 'many' is not a valid integer."),
    Case("missing password file", (*CREATE, *PASS), "--password-file {ws}/app1.pass: no such file or directory"),
    Case("password file is a directory", (*CREATE, "--password-file", "{ws}"), "--password-file {ws}: is a directory"),
    Case("empty password file", (*CREATE, *PASS), "--password-file {ws}/app1.pass: the first line is empty "
         "(no password)", files={"app1.pass": ""}),
    Case("empty first line", ("users", "set-password", "app1", *PASS), "--password-file {ws}/app1.pass: the "
         "first line is empty (no password)", files={"app1.pass": "\nsecond-line\n"}),
    Case("password file not text", (*CREATE, *PASS), "--password-file {ws}/app1.pass: not UTF-8 text",
         files={"app1.pass": b"\xff\xfe\x00"}),
    Case("no file and no terminal", (*CREATE, "--execute"), "no password: give --password-file FILE (its first "
         "line), or run on a terminal to type it at a hidden prompt"),
    Case("no password argument", (*CREATE, "--password", "x"), "No such option '--password'. Did you mean '--password-file'?"),
    Case("read-only context", ("--context", "ro", *CREATE, "--execute"),
         "context 'ro' is read-only: refusing users create"),
    Case("read-only flag", ("--read-only", "users", "delete", "app1", "--execute"),
         "read-only mode (--read-only): refusing users delete"),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_users_argument(case, tmp_path):
    run_case(case, Workspace(tmp_path))
