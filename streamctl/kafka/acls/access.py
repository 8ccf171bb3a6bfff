"""Who can do what: ACL bindings grouped per principal, host and resource pattern, the
operations each group allows and denies (the dashboard's ACL pane and principal view), read
as `acls list` reads them; a cluster without an authorizer is an answer, not an error."""

from __future__ import annotations

from dataclasses import dataclass

from streamctl.backends.kafka.acl_admin import NoAuthorizer
from streamctl.kafka.acls.plans import list_bindings
from streamctl.model.acls import AclBinding


@dataclass(frozen=True)
class Rights:
    """What one principal may do from one host on one resource pattern."""

    principal: str
    host: str
    resource_type: str
    name: str
    pattern: str  # Literal or Prefixed
    allowed: tuple[str, ...]
    denied: tuple[str, ...]

    @property
    def resource(self) -> str:
        """'Topic weblogs', 'Topic prefix web', 'Topic *' (every topic)."""
        return f"{self.resource_type}{' prefix' if self.pattern == 'Prefixed' else ''} {self.name}"

    def permission_of_row(self) -> str:
        """The permission a delete of this row starts from: Allow unless it only denies."""
        return "Allow" if self.allowed or not self.denied else "Deny"


def rights(bindings: list[AclBinding]) -> list[Rights]:
    """One Rights per (principal, host, resource pattern), sorted by principal then resource."""
    grouped: dict[tuple[str, str, str, str, str], tuple[set[str], set[str]]] = {}
    for b in bindings:
        allowed, denied = grouped.setdefault((b.principal, b.host, b.resource_type, b.name, b.pattern), (set(), set()))
        (allowed if b.permission == "Allow" else denied).add(b.operation)
    return [Rights(who, host, kind, name, pattern, tuple(sorted(allowed)), tuple(sorted(denied)))
            for (who, host, kind, name, pattern), (allowed, denied) in sorted(grouped.items())]


@dataclass(frozen=True)
class AclView:
    """Who may do what (`rows`); `no_authorizer`: the brokers answered SECURITY_DISABLED, so no
    ACL applies and every principal may do everything."""

    rows: tuple[Rights, ...]
    no_authorizer: bool = False


def read_view(admin, topic: str | None = None, principal: str | None = None) -> AclView:
    """The bindings that apply to `topic` (its name, '*', matching prefixes) or of `principal`
    (exactly), grouped; `admin` has AclAdmin's describe_acls."""
    try:
        return AclView(tuple(rights(list_bindings(admin, principal, topic, None))))
    except NoAuthorizer:
        return AclView((), no_authorizer=True)
