"""One component's state and key figures on the Overview; Enter or a click opens its screen."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

STATE_CLASSES = ("-ok", "-warn", "-crit", "-unknown", "-off")


class HealthCard(Static, can_focus=True):
    DEFAULT_CSS = """
    HealthCard {
        border: round $primary;
        padding: 0 1;
        height: 6;
        width: 1fr;
    }
    HealthCard.-ok { border: round $success; }
    HealthCard.-warn { border: round $warning; }
    HealthCard.-crit { border: round $error; }
    HealthCard.-unknown { border: round $secondary; }
    HealthCard.-off { color: $text-muted; }
    HealthCard:focus { background: $boost; }
    """
    BINDINGS = [Binding("enter", "open", "Open", tooltip="open the card's screen", id="card.open")]

    class Opened(Message):
        """The operator asked for the card's component screen."""

        def __init__(self, card: HealthCard) -> None:
            self.card = card
            super().__init__()

    def __init__(self, component: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.component = component
        self.border_title = component.capitalize()

    def show(self, state: str, figures: str) -> None:
        self.remove_class(*STATE_CLASSES)
        if state in ("not configured", "loading"):
            self.add_class("-off")
        else:
            self.add_class(f"-{state.lower()}")
        self.border_subtitle = state
        self.update(figures)

    def action_open(self) -> None:
        self.post_message(self.Opened(self))

    def on_click(self) -> None:
        self.action_open()
