"""`streamctl users`: SCRAM users (list; create, set-password and delete show their plan, and
only --execute changes anything). The password is read from --password-file or a hidden prompt
(password.py), never an argument, and never printed or audited."""

from __future__ import annotations

import click

from streamctl.console import OUTPUT, emit
from streamctl.kafka import clients
from streamctl.kafka.users import plans
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session

MECHANISM = click.option("--mechanism", type=click.Choice(plans.MECHANISMS), default=plans.DEFAULT_MECHANISM,
                         show_default=True, help="The SCRAM mechanism of the credential.")
PASSWORD_FILE = click.option("--password-file", metavar="FILE",
                             help="Read the password from FILE's first line (keep it chmod 600); "
                                  "without it: a hidden prompt, typed twice, on a terminal.")


def iterations_option(default_help: str):
    return click.option("--iterations", type=int, default=None,
                        help=f"SCRAM iterations, {plans.MIN_ITERATIONS} to {plans.MAX_ITERATIONS} ({default_help}).")


def scram_admin(session: Session, operation: str, execute: bool):
    """The context, a SCRAM admin client (each call in a child) and the context's own SASL user,
    once read-only mode has been ruled out for an execution."""
    from streamctl.backends.kafka.scram_admin import ScramAdmin

    ctx, admin = clients.admin(session, operation, execute, client_class=ScramAdmin)
    return ctx, admin, ctx.kafka.client_config().get("sasl.username")


@click.command("list")
@OUTPUT
@click.pass_obj
def users_list(session: Session, output: str) -> None:
    """Every SCRAM user with its mechanisms and iteration counts (never a password or salt).

    \b
    Example:
      streamctl users list -o json
    """
    _, admin, _ = scram_admin(session, "users list", execute=False)
    users = plans.listing(admin.scram_users())
    from streamctl.kafka.users.render import users_table

    emit(output, users, users_table)


@click.command("create")
@click.argument("name")
@MECHANISM
@iterations_option(f"default {plans.DEFAULT_ITERATIONS}")
@PASSWORD_FILE
@EXECUTE
@OUTPUT
@click.pass_obj
def users_create(session: Session, name, mechanism, iterations, password_file, execute, output):
    """Create a SCRAM user (or add a mechanism to one); refused when it has that mechanism.

    \b
    Examples:
      streamctl users create app1 --password-file app1.pass
      streamctl users create app1 --mechanism SCRAM-SHA-256 --iterations 8192 --execute
    """
    upsert(session, "users create", plans.plan_create, name, mechanism, iterations, password_file, execute, output)


@click.command("set-password")
@click.argument("name")
@MECHANISM
@iterations_option("default: the credential's current count")
@PASSWORD_FILE
@EXECUTE
@OUTPUT
@click.pass_obj
def users_set_password(session: Session, name, mechanism, iterations, password_file, execute, output):
    """Replace a SCRAM user's password (a new salt too); refused when it lacks that mechanism.

    \b
    Example:
      streamctl users set-password app1 --password-file app1.pass --execute
    """
    upsert(session, "users set-password", plans.plan_set_password, name, mechanism, iterations, password_file,
           execute, output)


def upsert(session: Session, operation: str, planner, name: str, mechanism: str, iterations: int | None,
           password_file: str | None, execute: bool, output: str) -> None:
    """create and set-password: checked locally, then the plan, then the password asked (a
    prompt only to execute: the file's password, or the typed one, goes to the backend alone)."""
    from streamctl.kafka.users import execute as user_exec
    from streamctl.kafka.users import password as new_password

    plans.validate(name, iterations)
    ctx, admin, who = scram_admin(session, operation, execute)
    password = new_password.from_file_or_terminal(password_file)
    plan = planner(admin.scram_users(), name, mechanism, iterations, who)
    show(plan, output)
    finish(plan, execute, lambda: user_exec.upsert(admin, ctx.name, plan, password or new_password.prompt()))


@click.command("delete")
@click.argument("name")
@click.option("--mechanism", type=click.Choice(plans.MECHANISMS), default=None,
              help="Delete only this credential (default: every one the user has).")
@EXECUTE
@OUTPUT
@click.pass_obj
def users_delete(session: Session, name, mechanism, execute, output):
    """Delete a SCRAM user's credentials: it can no longer log in with them.

    \b
    Examples:
      streamctl users delete app1
      streamctl users delete app1 --mechanism SCRAM-SHA-256 --execute
    """
    from streamctl.kafka.users import execute as user_exec

    plans.validate(name)
    ctx, admin, who = scram_admin(session, "users delete", execute)
    plan = plans.plan_delete(admin.scram_users(), name, mechanism, who)
    show(plan, output)
    finish(plan, execute, lambda: user_exec.delete(admin, ctx.name, plan))


@click.group(commands=[users_list, users_create, users_set_password, users_delete])
def users() -> None:
    """SCRAM users: list (operations: create, set-password, delete)."""
