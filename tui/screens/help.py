"""Keys and what the screens show."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# streamctl

| key | does |
| --- | --- |
| 1 … 7 | Overview, Brokers, Topics, Groups, ZooKeeper, Flume agents, Spark jobs |
| r | refresh now (screens also refresh every few seconds) |
| / | filter the table; Esc clears |
| s | sort by the next column (or click a header) |
| Enter | open the topic or group under the cursor |
| Esc | back |
| c / e | create topic / elect preferred leaders (Topics) |
| a / t | add partitions / alter configs (topic detail) |
| o | reset offsets (Groups, group detail) |
| g / x | start / stop the highlighted agent (Flume agents) or job (Spark jobs) |
| ctrl+p | command palette: jump to a topic or group, operations, contexts |
| q | quit |

Operations show their plan first and change nothing until you press **Execute**. In a
read-only context they are disabled. Every executed operation is in the audit log
(`streamctl audit`).
"""


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen Markdown { width: 80; height: auto; max-height: 90%; border: thick $primary; background: $surface; }
    """
    BINDINGS = [("escape", "dismiss", "Close"), ("question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        yield Markdown(HELP)
