"""The pipeline drawn as a flow from its sources, each hop coloured by its health; Enter on a
node opens its screen (a topic's on Topics, a job's on Jobs, ...)."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Tree

from streamctl.pipeline.flow import Branch


class PipelineFlow(Tree[str]):
    DEFAULT_CSS = """
    PipelineFlow {
        height: auto;
        max-height: 45%;
        border: round $primary;
        padding: 0 1;
    }
    PipelineFlow:focus { border: round $accent; }
    """

    class Loaded(Message):
        """A fresh flow (from a thread worker): its branches and a note for the border."""

        def __init__(self, branches: list[Branch], note: str) -> None:
            self.branches, self.note = branches, note
            super().__init__()

    def __init__(self, **kwargs) -> None:
        super().__init__("pipeline", **kwargs)
        self.show_root = False
        self.auto_expand = False  # Enter opens the node's screen; the flow stays drawn whole

    def show(self, branches: list[Branch], note: str = "") -> None:
        """Redrawn at every refresh, the cursor kept on the same line."""
        line = self.cursor_line
        self.clear()
        for branch in branches:
            self._add(self.root, branch)
        if not branches:
            self.root.add_leaf(Text(note or "nothing flows yet", style="dim"))
        self.border_subtitle = note if branches else ""
        self.root.expand_all()
        if line >= 0:
            self.call_after_refresh(setattr, self, "cursor_line", line)

    def _add(self, parent, branch: Branch) -> None:
        if branch.children:
            node = parent.add(branch.label, data=branch.screen, expand=True)
            for child in branch.children:
                self._add(node, child)
        else:
            parent.add_leaf(branch.label, data=branch.screen)
