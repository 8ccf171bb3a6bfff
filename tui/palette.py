"""Command palette: jump to a topic or group, run an operation (Kafka, Connect), switch context."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import Hit, Hits, Provider

if TYPE_CHECKING:
    from streamctl.tui.app import StreamctlApp


class StreamctlCommands(Provider):
    if TYPE_CHECKING:
        @property
        def app(self) -> StreamctlApp: ...  # the App this palette serves
    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, help_text, callback in self.app.palette_entries():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), callback, help=help_text)


def entries(app) -> list[tuple[str, str, object]]:
    """(label, help, callback) for everything the palette offers right now."""
    from streamctl.tui.screens.group_detail import GroupDetailScreen
    from streamctl.tui.screens.topic_detail import TopicDetailScreen

    found: list[tuple[str, str, object]] = []
    snap = app.last_kafka
    if snap is not None:
        found += [(f"topic {t.name}", "open the topic", partial(app.push_screen, TopicDetailScreen(t.name)))
                  for t in snap.topics]
        found += [(f"group {g.id}", "open the consumer group", partial(app.push_screen, GroupDetailScreen(g.id)))
                  for g in snap.groups]
    from streamctl.tui.screens.dialogs.create_topic import CreateTopicDialog
    from streamctl.tui.screens.dialogs.reset_offsets import ResetOffsetsDialog

    found.append(("create topic", "operation", lambda: app.open_operation(CreateTopicDialog())))
    found.append(("elect preferred leaders", "operation", app.elect_leaders))
    if snap is not None:
        found += [(f"reset offsets of {g.id}", "operation",
                   partial(app.open_operation, ResetOffsetsDialog(g.id))) for g in snap.groups]
    found += connector_operations(app)
    found += [(f"switch context {name}", "reconnect to another cluster", partial(app.switch_context, name))
              for name in app.context_names()]
    found += [(f"show {mode}", "screen", partial(app.switch_mode, mode)) for mode in app.mode_names]
    return found


def connector_operations(app) -> list[tuple[str, str, object]]:
    """Pause, resume, stop, restart and delete each connector the Connect screen last showed."""
    found: list[tuple[str, str, object]] = []
    for name in app.last_connectors:
        found += [(f"{action} connector {name}", "operation",
                   partial(app.confirm_operation, app.source.connector_state(name, action)))
                  for action in ("pause", "resume", "stop", "delete")]
        found.append((f"restart connector {name}", "operation", partial(_restart_dialog, app, name)))
    return found


def _restart_dialog(app, name: str) -> None:
    from streamctl.tui.screens.dialogs.restart_connector import RestartConnectorDialog

    app.open_operation(RestartConnectorDialog(name))
