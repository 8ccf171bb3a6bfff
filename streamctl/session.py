"""The session: what the global options (--context, --config, --read-only) select."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from streamctl.config import Config, Context


class Session:
    """What the global options select, resolved lazily (a bad config only fails commands that read it)."""

    def __init__(self, context: str | None, config: str | None, read_only: bool):
        self.context_name = context
        self.config_arg = config
        self.read_only_flag = read_only

    @property
    def config_path(self) -> Path:
        from streamctl import paths

        return paths.config_file(self.config_arg)

    def config(self) -> Config:
        from streamctl.config import load_config

        return load_config(self.config_path)

    def context(self) -> Context:
        return self.config().context(self.context_name)

