"""The SCRAM user forms: create a user or set its password (the name, the mechanism, the
password typed twice in masked fields), and delete one. The password goes to the operation
only: both fields are emptied as soon as they are read (and on Cancel), so this screen keeps
no copy, and no message here holds it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.widgets import Input, Select

from streamctl.dashboard.operations import OperationRequest
from streamctl.errors import UsageError
from streamctl.kafka.users.plans import DEFAULT_MECHANISM, MECHANISMS
from streamctl.tui.screens.dialogs.form import FORM_CSS, FormDialog

EVERY = "every"  # DeleteUserDialog: every credential of the user


def mechanism_of(form: FormDialog) -> str:
    mechanism = form.query_one("#mechanism", Select).value
    if not isinstance(mechanism, str):
        raise UsageError("choose the SCRAM mechanism")
    return mechanism


class UserPasswordDialog(FormDialog):
    """users create (create=True) and users set-password."""

    DEFAULT_CSS = FORM_CSS.format(name="UserPasswordDialog")

    def __init__(self, create: bool, name: str = "") -> None:
        super().__init__()
        self.create = create
        self.user = name
        self.heading = "Create SCRAM user" if create else "Set the password of a SCRAM user"

    def fields(self) -> ComposeResult:
        yield Input(value=self.user, placeholder="user name", id="name")
        yield Select([(m, m) for m in MECHANISMS], value=DEFAULT_MECHANISM, allow_blank=False, id="mechanism")
        yield Input(placeholder="new password", password=True, id="password")
        yield Input(placeholder="the password again", password=True, id="confirm")

    def request(self) -> OperationRequest:
        from streamctl.kafka.users import plans

        password, confirm = self.take("password"), self.take("confirm")
        name = self.value("name")
        plans.validate(name)
        if not password:
            raise UsageError("no password: type it in both fields")
        if password != confirm:
            raise UsageError("the two passwords differ: type them again")
        return self.source.upsert_user(name, mechanism_of(self), password, self.create)

    def take(self, field_id: str) -> str:
        """A password field's text, emptied in the field."""
        field = self.query_one(f"#{field_id}", Input)
        text, field.value = field.value, ""
        return text

    def dismiss(self, result: OperationRequest | None = None) -> AwaitComplete:
        """Planned or cancelled: the password fields are empty when the form closes."""
        self.take("password")
        self.take("confirm")
        return super().dismiss(result)


class DeleteUserDialog(FormDialog):
    """users delete: every credential of the user, or one mechanism's."""

    DEFAULT_CSS = FORM_CSS.format(name="DeleteUserDialog")
    heading = "Delete SCRAM user"

    def __init__(self, name: str = "") -> None:
        super().__init__()
        self.user = name

    def fields(self) -> ComposeResult:
        yield Input(value=self.user, placeholder="user name", id="name")
        yield Select([("every credential", EVERY), *((m, m) for m in MECHANISMS)], value=EVERY,
                     allow_blank=False, id="mechanism")

    def request(self) -> OperationRequest:
        from streamctl.kafka.users import plans

        name = self.value("name")
        plans.validate(name)
        mechanism = mechanism_of(self)
        return self.source.delete_user(name, None if mechanism == EVERY else mechanism)
