"""SCRAM user plans and the password file: what is refused, what a plan holds (never the
password), and the warning for a password file others can read."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from streamctl.errors import UsageError
from streamctl.kafka.users import password, plans

USERS = {"app1": {"SCRAM-SHA-512": 8192}, "ops": {"SCRAM-SHA-256": 4096, "SCRAM-SHA-512": 4096}}


def test_create_refuses_a_mechanism_the_user_has_and_points_to_set_password():
    with pytest.raises(UsageError, match=r"already has a SCRAM-SHA-512 credential: use `streamctl users "
                                         r"set-password app1`"):
        plans.plan_create(USERS, "app1", "SCRAM-SHA-512", None, None)


def test_create_plans_the_credential_without_the_password():
    plan = plans.plan_create(USERS, "app2", "SCRAM-SHA-256", None, "streamctl")
    assert plan.parameters == {"user": "app2", "mechanism": "SCRAM-SHA-256", "iterations": 4096}
    assert [(c.object, c.field, c.before, c.after) for c in plan.changes] == [
        ("user app2", "SCRAM-SHA-256", None, "4096 iterations")]
    assert plan.warnings == []
    adding = plans.plan_create(USERS, "app1", "SCRAM-SHA-256", 10000, None)
    assert adding.warnings == ["user 'app1' exists with SCRAM-SHA-512: this adds SCRAM-SHA-256"]


def test_set_password_refuses_a_mechanism_the_user_lacks_and_keeps_the_iterations():
    with pytest.raises(UsageError, match=r"user 'app1' has no SCRAM-SHA-256 credential \(it has SCRAM-SHA-512: "
                                         r"give --mechanism\): use `streamctl users create app1`"):
        plans.plan_set_password(USERS, "app1", "SCRAM-SHA-256", None, None)
    with pytest.raises(UsageError, match="user 'nobody' has no SCRAM-SHA-512 credential: use"):
        plans.plan_set_password(USERS, "nobody", "SCRAM-SHA-512", None, None)
    plan = plans.plan_set_password(USERS, "app1", "SCRAM-SHA-512", None, "app1")
    assert plan.parameters["iterations"] == 8192
    assert any("the user this context logs in as" in w for w in plan.warnings)


def test_delete_takes_every_mechanism_or_the_one_given():
    everything = plans.plan_delete(USERS, "ops", None, None)
    assert everything.parameters == {"user": "ops", "mechanisms": ["SCRAM-SHA-256", "SCRAM-SHA-512"]}
    one = plans.plan_delete(USERS, "ops", "SCRAM-SHA-256", None)
    assert [c.field for c in one.changes] == ["SCRAM-SHA-256"] and "still with SCRAM-SHA-512" in one.warnings[0]
    with pytest.raises(UsageError, match="no SCRAM user 'nobody'"):
        plans.plan_delete(USERS, "nobody", None, None)
    with pytest.raises(UsageError, match=r"user 'app1' has no SCRAM-SHA-256 credential \(it has SCRAM-SHA-512\)"):
        plans.plan_delete(USERS, "app1", "SCRAM-SHA-256", None)


@pytest.mark.parametrize("iterations", [4095, 16385, 0, -1])
def test_iterations_outside_kafkas_range_are_refused(iterations):
    with pytest.raises(UsageError, match=f"--iterations {iterations}: Kafka's SCRAM takes 4096 to 16384"):
        plans.validate("app1", iterations)
    plans.validate("app1", 4096)
    plans.validate("app1", 16384)


def test_the_password_file_gives_its_first_line_and_warns_when_others_can_read_it(tmp_path, capsys):
    path = tmp_path / "p"
    path.write_text("first line secret \r\nsecond\n")
    path.chmod(0o600)
    assert password.from_file(path) == "first line secret "
    assert capsys.readouterr().err == ""
    path.chmod(0o640)
    assert password.from_file(path) == "first line secret "
    assert capsys.readouterr().err == (f"streamctl: warning: --password-file {path} can be read by others "
                                       "(mode 640): chmod 600 it\n")



def _ask():
    @click.command()
    def ask() -> None:
        click.echo(f"got {len(password.prompt())} characters")

    return ask


def test_the_prompt_asks_twice_hides_the_input_and_again_after_an_empty_entry():
    typed = CliRunner().invoke(_ask(), input="Zebra-Horse-42\nZebra-Horse-42\n")
    assert typed.exit_code == 0 and "got 14 characters" in typed.output
    assert "Zebra-Horse-42" not in typed.output and "new password" in typed.output
    mismatch = CliRunner().invoke(_ask(), input="Zebra-Horse-42\nzebra\nZebra-Horse-42\nZebra-Horse-42\n")
    assert "do not match" in mismatch.output and "got 14 characters" in mismatch.output
    empty = CliRunner().invoke(_ask(), input="\nabc\nabc\n")
    assert empty.exit_code == 0 and empty.output.count("new password") == 2 and "got 3 characters" in empty.output
