"""The Create ACL and Delete ACLs forms: the options of `acls create` and `acls delete` as fields,
validated by the same functions (streamctl.kafka.acls.plans); bad input is one line in the form.
Their plans (and a delete's "what each principal then loses") come from the CLI's plan code."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, Select

from streamctl.dashboard.operations import OperationRequest
from streamctl.kafka.acls.access import Rights
from streamctl.tui.screens.dialogs.form import FORM_CSS, FormDialog

RESOURCE_TYPES = [(kind, kind) for kind in ("Topic", "Group", "Cluster", "TransactionalId")]
PATTERNS = [("literal", "Literal"), ("prefixed", "Prefixed")]
PERMISSIONS = [("allow", "Allow"), ("deny", "Deny")]
SELECTOR = {"Topic": "topic", "Group": "group", "TransactionalId": "transactional_id"}
ROW_CSS = """
{name} Input, {name} Select {{ margin-bottom: 0; }}
{name} Horizontal.acl-row {{ height: auto; align-horizontal: left; }}
{name} Horizontal.acl-row > * {{ width: 1fr; }}
"""


class AclForm(FormDialog):
    """Principal, resource (type, name, pattern), operations, allow/deny, host."""

    operations_hint = ""
    host_default = ""
    host_hint = ""

    def __init__(self, start: Rights) -> None:
        super().__init__()
        self.start = start

    def fields(self) -> ComposeResult:
        s = self.start
        yield Input(s.principal, placeholder="principal: User:NAME (User:* for every user)", id="principal")
        with Horizontal(classes="acl-row"):
            yield Select(RESOURCE_TYPES, value=s.resource_type, allow_blank=False, id="resource-type")
            yield Select(PATTERNS, value=s.pattern, allow_blank=False, id="pattern")
        yield Input(s.name, placeholder="resource name or prefix ('*': every one)", id="resource-name")
        yield Input(", ".join(s.allowed or s.denied), placeholder=self.operations_hint, id="operations")
        with Horizontal(classes="acl-row"):
            yield Select(PERMISSIONS, value=s.permission_of_row(), allow_blank=False, id="permission")
            yield Input(s.host or self.host_default, placeholder=self.host_hint, id="host")

    def change(self, delete: bool):
        """The AclChange the fields describe (UsageError: one line, shown in the form)."""
        from streamctl.kafka.acls import plans

        kind = str(self.query_one("#resource-type", Select).value)
        name = self.value("resource-name")
        selectors: dict[str, str | None] = {"topic": None, "group": None, "transactional_id": None}
        if kind != "Cluster":
            selectors[SELECTOR[kind]] = name
        res = plans.resource(prefixed=self.query_one("#pattern", Select).value == "Prefixed",
                             cluster=kind == "Cluster", **selectors)
        who, where = self.value("principal"), self.value("host")
        operations = [op for op in self.value("operations").split(",") if op.strip()]
        return plans.AclChange(
            res, plans.principal(who) if who or not delete else None,
            tuple(sorted({plans.operation(op.strip(), res.type) for op in operations})),
            str(self.query_one("#permission", Select).value), plans.host(where) if where or not delete else None)


class CreateAclDialog(AclForm):
    DEFAULT_CSS = FORM_CSS.format(name="CreateAclDialog") + ROW_CSS.format(name="CreateAclDialog")
    heading = "Create ACL"
    operations_hint = "operations: Read, Write, Describe, ... (comma-separated)"
    host_default = "*"
    host_hint = "host ('*': every host)"

    def request(self) -> OperationRequest:
        from streamctl.errors import UsageError

        change = self.change(delete=False)
        if not change.operations:
            raise UsageError("give at least one operation (Read, Write, Describe, ...)")
        return self.source.create_acl(change)


class DeleteAclDialog(AclForm):
    DEFAULT_CSS = FORM_CSS.format(name="DeleteAclDialog") + ROW_CSS.format(name="DeleteAclDialog")
    heading = "Delete ACLs (the plan lists each binding removed)"
    operations_hint = "operations (empty: every operation)"
    host_hint = "host (empty: every host)"

    def request(self) -> OperationRequest:
        return self.source.delete_acl(self.change(delete=True))
