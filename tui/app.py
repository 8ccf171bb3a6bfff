"""The Textual app: modes for the screens, global bindings, operations entry points."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import App
from textual.binding import Binding

from streamctl import systems
from streamctl.dashboard.source import DashboardSource
from streamctl.model.health import Severity
from streamctl.tui.palette import StreamctlCommands, entries
from streamctl.tui.screens.fleet import FleetScreen
from streamctl.tui.screens.overview import OverviewScreen
from streamctl.tui.trace import Trace

# mode -> Screen class: the Overview, then every system's screens (the registry, streamctl/systems.py).
SCREENS = {"overview": OverviewScreen, **{s.mode: systems.load(s.target) for s in systems.screens()}}
MODE_TITLES = {"overview": "Overview", **{s.mode: s.title for s in systems.screens()}}
MODE_BINDINGS = [Binding("1", "switch_mode('overview')", MODE_TITLES["overview"], id="mode.overview")] + [
    Binding(s.key, f"switch_mode('{s.mode}')", s.title, id=f"mode.{s.mode}") for s in systems.screens() if s.key]
MUTATIONS = {"create_topic", "elect_leaders", "add_partitions", "alter_config", "reset_offsets",
             "start_agent", "stop_agent", "start_job", "stop_job",
             "pause_connector", "resume_connector", "stop_connector", "restart_connector", "delete_connector",
             "alter_quota", "create_user", "set_user_password", "delete_user",
             "decommission", "add_broker", "rebalance", "change_replication_factor", "cancel_reassignment",
             "create_acl", "delete_acl"}
# A read-only context previews every operation (its plan) and refuses to execute it.
READ_ONLY_REFUSAL = "read-only context: a dry run; executing this plan is refused"


class StreamctlApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "streamctl"
    COMMANDS = App.COMMANDS | {StreamctlCommands}
    BINDINGS = [
        *MODE_BINDINGS,
        Binding("r", "refresh_screen", "Refresh", id="app.refresh"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("F", "fleet", "Fleet", id="app.fleet", tooltip="every context of the config; Enter switches to one"),
    ]

    def __init__(self, source: DashboardSource, refresh_interval: float = 5.0,
                 context_factory: Callable[[str], DashboardSource] | None = None,
                 clock: Callable[[], str] | None = None) -> None:
        super().__init__()
        self.source = source
        self.clock = clock or (lambda: time.strftime("%H:%M:%S"))  # fixed in snapshot tests
        self.refresh_interval = refresh_interval
        self.context_factory = context_factory  # name -> a new source (switch context)
        self.last_kafka = None
        self.last_connectors: list[str] = []  # names the Connect screen last showed (palette)
        self.trace: Trace | None = None
        # context -> its state as last evaluated (the Overview's reading, the Fleet's): the header's
        self.context_states: dict[str, Severity] = {}
        self.mode_names = [*SCREENS, "fleet"]
        for name, screen in SCREENS.items():
            self.add_mode(name, screen)
        self.add_mode("fleet", FleetScreen)  # every context, not one system's: no mode key of the registry

    def on_mount(self) -> None:
        self._show_context()
        self.switch_mode("overview")
        self.trace = Trace.from_env()
        if self.trace:
            self.trace.start_stall_probe(self)

    @property
    def context_label(self) -> str:
        """The current context and its state, as the header shows them (k9s shows its cluster)."""
        name = self.source.context_name
        state = self.context_states.get(name)
        return (f"context {name}" + (" (read-only)" if self.source.read_only else "")
                + (f" {state.value}" if state is not None else ""))

    def note_context_state(self, name: str, state: Severity) -> None:
        """A context's newest state (an Overview or Fleet reading); the header shows the current one's."""
        self.context_states[name] = state
        if name == self.source.context_name:
            self._show_context()

    def on_unmount(self) -> None:
        close = getattr(self.source, "close", None)
        if close is not None:
            close()

    def _show_context(self) -> None:
        self.sub_title = self.context_label
        show = getattr(self.screen, "show_context", None) if self.screen_stack else None
        if show is not None:
            show()

    def action_refresh_screen(self) -> None:
        reload = getattr(self.screen, "reload", None)
        if reload:
            reload()

    def action_fleet(self) -> None:
        self.switch_mode("fleet")

    def action_help(self) -> None:
        from streamctl.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen(self.help_sections()))

    def help_sections(self) -> list[tuple[str, list]]:
        """(title, bindings) for the help screen: the app's, each screen's, the tables'."""
        from streamctl.tui.screens.group_detail import GroupDetailScreen
        from streamctl.tui.screens.topic_detail import TopicDetailScreen
        from streamctl.tui.widgets.filter_table import FilterTable
        from streamctl.tui.widgets.health_card import HealthCard

        palette = Binding(self.COMMAND_PALETTE_BINDING, "command_palette", "Command palette",
                          tooltip="command palette: jump to a topic or group, operations, contexts")
        sections = [("Everywhere", [*self.BINDINGS, palette]), ("Tables", FilterTable.BINDINGS),
                    ("Overview cards", HealthCard.BINDINGS)]
        screens = [(MODE_TITLES[name], screen) for name, screen in SCREENS.items()] + [("Fleet", FleetScreen)]
        screens += [("Topic detail", TopicDetailScreen), ("Group detail", GroupDetailScreen)]
        # Each class's own bindings: the inherited ones (focus moves) are Textual's, not ours.
        return sections + [(title, vars(screen).get("BINDINGS", [])) for title, screen in screens]

    # ---- operations ----------------------------------------------------------------------

    def open_operation(self, form) -> None:
        """The form of an operation, then its plan dialog."""

        def planned(request) -> None:
            if request is not None:
                self.show_plan(request)

        self.push_screen(form, planned)

    def show_plan(self, request) -> None:
        """The plan dialog of an operation. In a read-only context it is a dry run: the plan is
        shown, Execute is refused."""
        from streamctl.tui.screens.plan_dialog import PlanDialog

        refusal = READ_ONLY_REFUSAL if self.source.read_only else None
        self.push_screen(PlanDialog(request, refusal=refusal), self._operation_done)

    def _operation_done(self, result: str | None) -> None:
        if result:
            self.notify(result, markup=False)
            self.action_refresh_screen()

    def confirm_operation(self, request) -> None:
        """The plan dialog of an operation that needs no form."""
        self.show_plan(request)

    def elect_leaders(self) -> None:
        self.confirm_operation(self.source.elect_leaders())

    # ---- palette and contexts --------------------------------------------------------------

    def palette_entries(self):
        return entries(self)

    def context_names(self) -> list[str]:
        names = getattr(self.source, "context_names", None)
        return names() if names else []

    def switch_context(self, name: str, refresh: bool = True) -> None:
        """Read `name` from now on; `refresh`: reload the current screen now (the Fleet screen
        leaves it to the Overview it switches to, which reloads when it is shown)."""
        if self.context_factory is None:
            return
        previous, self.source = self.source, self.context_factory(name)
        close = getattr(previous, "close", None)
        if close is not None:
            close()
        self.last_kafka = None
        self.last_connectors = []
        self._show_context()
        if refresh:
            self.action_refresh_screen()
        self.notify(f"switched to context {name}")
