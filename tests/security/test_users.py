"""`streamctl users` on the secure sandbox in both modes (ZooKeeper: credentials in ZooKeeper;
KRaft: in the metadata log): a user created with streamctl logs in with SCRAM-SHA-512, after
`set-password` only the new password does, after `delete` none; the dry run changes nothing,
read-only mode refuses, a principal without Alter on the Cluster is refused by the brokers; and
no password shows in any output, the audit log or any file under the XDG dirs."""

from __future__ import annotations

import json
import secrets as random_secrets

import pytest

from streamctl.backends.kafka.scram_admin import ScramAdmin
from streamctl.sandbox.secure import SCRAM_MECHANISM
from tests.security.conftest import MODES
from tests.security.helpers import files_holding, login, logs_in_as, one_error_line, unique

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module", params=list(MODES))
def secure(request):
    """Every test here runs on the secure sandbox of each mode (each started once a session)."""
    return request.getfixturevalue(MODES[request.param])


def password_file(folder, name: str) -> tuple:
    """A 0600 file holding a fresh random password, and the password."""
    password = f"pw-{random_secrets.token_urlsafe(18)}"
    path = folder / name
    path.write_text(password + "\n")
    path.chmod(0o600)
    return path, password


def users_of(secure) -> dict[str, dict[str, int]]:
    return ScramAdmin(secure.kafka_client(), timeout=10).scram_users()


def listed(secure) -> dict[str, dict[str, int]]:
    result = secure.cli("--context", "sandbox", "users", "list", "-o", "json")
    assert result.returncode == 0, result.stderr
    return {u["user"]: {c["mechanism"]: c["iterations"] for c in u["credentials"]} for u in json.loads(result.stdout)}


def test_list_shows_the_sandbox_users_with_mechanism_and_iterations(secure):
    users = listed(secure)
    assert {"broker", "streamctl", "monitor"} <= set(users)
    assert all(SCRAM_MECHANISM in users[u] and users[u][SCRAM_MECHANISM] >= 4096 for u in ("streamctl", "monitor"))
    table = secure.cli("--context", "sandbox", "users", "list")
    assert table.returncode == 0 and "monitor" in table.stdout and SCRAM_MECHANISM in table.stdout


def test_create_set_password_delete_log_in_and_no_password_shows_anywhere(secure, tmp_path):
    user = unique("app")
    first_file, first = password_file(tmp_path, "first.pass")
    second_file, second = password_file(tmp_path, "second.pass")
    audit = secure.xdg_state / "streamctl" / "audit.jsonl"
    audited_before = audit.read_text().count("\n") if audit.exists() else 0
    runs = []

    def cli(*args: str):
        result = secure.cli("--context", "sandbox", "users", *args)
        runs.append(result)
        return result

    # The dry run plans, changes nothing.
    plan = cli("create", user, "--password-file", str(first_file), "-o", "json")
    assert plan.returncode == 0, plan.stderr
    assert json.loads(plan.stdout)["changes"][0]["after"] == "4096 iterations"
    assert "dry run" in plan.stderr and user not in users_of(secure)
    assert login(secure, user, first) == "refused"

    created = cli("create", user, "--password-file", str(first_file), "--execute")
    assert created.returncode == 0, created.stderr
    assert listed(secure)[user] == {SCRAM_MECHANISM: 4096}
    logs_in_as(secure, user, first, "ok")

    again = cli("create", user, "--password-file", str(second_file), "--execute")
    assert again.returncode == 3
    assert one_error_line(again).endswith(f"already has a {SCRAM_MECHANISM} credential: use `streamctl users "
                                          f"set-password {user}` to change its password")
    missing = cli("set-password", user, "--mechanism", "SCRAM-SHA-256", "--password-file", str(second_file))
    assert missing.returncode == 3 and "has no SCRAM-SHA-256 credential" in one_error_line(missing)

    changed = cli("set-password", user, "--password-file", str(second_file), "--iterations", "8192", "--execute")
    assert changed.returncode == 0, changed.stderr
    assert listed(secure)[user] == {SCRAM_MECHANISM: 8192}
    logs_in_as(secure, user, first, "refused")
    logs_in_as(secure, user, second, "ok")

    deleted = cli("delete", user, "--execute")
    assert deleted.returncode == 0, deleted.stderr
    assert user not in listed(secure)
    logs_in_as(secure, user, second, "refused")

    records = [json.loads(line) for line in audit.read_text().splitlines()[audited_before:]]
    assert [(r["operation"], r["parameters"]["user"], r["result"]) for r in records] == [
        ("users.create", user, "ok"), ("users.set-password", user, "ok"), ("users.delete", user, "ok")]
    assert records[1]["parameters"] == {"user": user, "mechanism": SCRAM_MECHANISM, "iterations": 8192}

    for result in runs:
        for password in (first, second):
            assert password not in result.stdout and password not in result.stderr
    found, scanned = files_holding((secure.xdg_state, secure.xdg_config, tmp_path), [first, second],
                                   skip={first_file, second_file})
    assert not found, f"a password in {sorted(found)}"
    assert scanned > 10 and audit.exists()


def test_read_only_refuses_and_a_principal_without_alter_on_the_cluster_is_refused(secure, tmp_path):
    user = unique("ro")
    path, _ = password_file(tmp_path, "p.pass")
    refused = secure.cli("--context", "sandbox", "--read-only", "users", "create", user, "--password-file",
                         str(path), "--execute")
    assert refused.returncode == 3 and refused.stdout == ""
    assert one_error_line(refused) == "streamctl: error: read-only mode (--read-only): refusing users create"

    monitor = secure.write_monitor_context(tmp_path / "monitor.yaml")  # not read-only: the brokers decide
    as_monitor = secure.cli("--config", str(monitor), "users", "create", user, "--password-file", str(path),
                            "--execute", **secure.monitor_env())
    assert as_monitor.returncode == 1
    assert one_error_line(as_monitor) == (
        f"streamctl: error: not authorized: setting the {SCRAM_MECHANISM} credential of user '{user}': "
        "User:monitor lacks Alter on Cluster 'kafka-cluster' (CLUSTER_AUTHORIZATION_FAILED)")
    assert user not in users_of(secure)


def test_a_password_file_others_can_read_is_used_with_a_warning(secure, tmp_path):
    path, _ = password_file(tmp_path, "shared.pass")
    path.chmod(0o644)
    result = secure.cli("--context", "sandbox", "users", "create", unique("w"), "--password-file", str(path))
    assert result.returncode == 0, result.stderr
    assert f"streamctl: warning: --password-file {path} can be read by others (mode 644): chmod 600 it" \
        in result.stderr.splitlines()
