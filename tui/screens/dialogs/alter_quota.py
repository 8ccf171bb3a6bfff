"""The Alter quota form: the entity (a user, client-id or IP by name, or that type's default),
one of the five quota keys, and its new value or its removal: `quotas alter`'s checks."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Checkbox, Input, Select

from streamctl.dashboard.operations import OperationRequest
from streamctl.errors import UsageError
from streamctl.kafka.quotas.plans import CLIENT_KEYS, IP_KEYS, Entity
from streamctl.tui.screens.dialogs.form import FORM_CSS, FormDialog

DEFAULT = "-default"  # the suffix of an entity type's default in ENTITY_TYPES
ENTITY_TYPES = [(label, value) for kind in ("user", "client-id", "ip")
                for label, value in ((kind, kind), (f"{kind}: the default", kind + DEFAULT))]


class AlterQuotaDialog(FormDialog):
    DEFAULT_CSS = FORM_CSS.format(name="AlterQuotaDialog")
    heading = "Alter quota"

    def fields(self) -> ComposeResult:
        yield Select(ENTITY_TYPES, value="client-id", allow_blank=False, id="entity-type")
        yield Input(placeholder="name (none for a default)", id="name")
        yield Select([(key, key) for key in CLIENT_KEYS + IP_KEYS], value=CLIENT_KEYS[0], allow_blank=False,
                     id="key")
        yield Input(placeholder="value (a number above 0)", id="value")
        yield Checkbox("remove this quota (no limit)", id="remove")

    def request(self) -> OperationRequest:
        from streamctl.kafka.quotas import plans

        chosen, key = self.query_one("#entity-type", Select).value, self.query_one("#key", Select).value
        if not isinstance(chosen, str) or not isinstance(key, str):
            raise UsageError("choose the entity type and the quota")
        kind, name, value = chosen.removesuffix(DEFAULT), self.value("name"), self.value("value")
        default = chosen.endswith(DEFAULT)
        if default and name:
            raise UsageError(f"the {kind} default takes no name (choose {kind} to name one)")
        if not default and not name:
            raise UsageError(f"give the {kind} (or choose its default)")
        entity: Entity = {kind: None if default else name}  # None: the type's default
        if self.query_one("#remove", Checkbox).value:
            if value:
                raise UsageError(f"remove {key}, or give it a value: not both")
            sets, removes = {}, [key]
        elif not value:
            raise UsageError(f"give {key} a value, or tick remove")
        else:
            sets, removes = plans.parse_sets([f"{key}={value}"]), []
        plans.validate_keys(entity, sets, removes)
        return self.source.alter_quota(entity, sets, removes)
