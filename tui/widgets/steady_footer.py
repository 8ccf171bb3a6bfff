"""A Footer that rebuilds its keys only when the keys it shows change.

Textual's Footer recomposes on every bindings signal: each focus change and screen resume, two
to five times per screen switch. Each recompose mounts and styles every key again, which made
the Footer the largest single cost of switching screens. Here the same keys keep their widgets.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class SteadyFooter(Footer):
    _shown: tuple | None = None

    def bindings_changed(self, screen: Screen) -> None:
        shown = shown_bindings(screen)
        if shown == self._shown:
            return
        super().bindings_changed(screen)
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._shown = shown  # the recompose is scheduled


def shown_bindings(screen: Screen) -> tuple:
    """What the footer shows for a screen: each shown binding, and whether it is enabled."""
    return tuple((binding.key, binding.action, binding.description, enabled, tooltip)
                 for _, binding, enabled, tooltip in screen.active_bindings.values() if binding.show)
