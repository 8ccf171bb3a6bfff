"""The plan of a Kafka Streams application reset, as Kafka's own reset tool
(kafka-streams-application-reset.sh) would carry it out: the app's input offsets moved to the
earliest (or a time), its internal topics (repartition, changelog) deleted. The offsets get
an undo file like any group reset; deleted internal topics the app makes again, rebuilding
its state stores from the inputs.
"""

from __future__ import annotations

from streamctl.errors import StreamctlError, UsageError
from streamctl.kafka.groups import offsets
from streamctl.kafka.streams.apps import find_apps
from streamctl.ops import Change

MODES = ("to-earliest", "to-datetime", "by-duration")


def plan_streams_reset(admin, app_id: str, mode: str, value: str | None = None,
                       now_ms: int | None = None, declared=()):
    """(plan, resets): refused while the app has members, or when the group is no Streams app."""
    snap, group = offsets.describe_group(admin, app_id)
    if group.state not in offsets.IDLE_STATES:
        raise StreamctlError(f"Streams app {app_id!r} is {group.state} with {len(group.members)} member(s): "
                             "stop every instance of the app first")
    apps = find_apps(snap, outputs={name: [] for name in declared})
    if not apps:
        raise UsageError(f"group {app_id!r} is no Kafka Streams app (no members with the stream assignor, "
                         f"no internal topics {app_id}-...-repartition/-changelog)")
    app = apps[0]
    inputs = [t.name for t in app.by_role("input")]
    if not inputs:
        raise UsageError(f"Streams app {app_id!r} has no committed offsets on input topics: nothing to reset")
    plan, resets = offsets.plan_reset(admin, app_id, [(name, None) for name in inputs], False, mode, value, now_ms)
    internal = [t.name for t in app.internal_topics]
    plan.operation = "streams.reset"
    plan.parameters["internal_topics"] = internal
    for name in internal:
        plan.changes.append(Change(f"topic {name}", "exists", True, False,
                                   "internal: deleted; the app makes it again when it starts"))
    if internal:
        plan.warnings.append("the undo file restores the input offsets only: the deleted internal topics "
                             "come back empty and the app rebuilds its state from the inputs")
    plan.warnings.append("before restarting the app, also delete its local state (KafkaStreams#cleanUp() "
                         "or its state.dir), as Kafka's reset tool asks")
    return plan, resets
