"""Where streamctl keeps its files (XDG base directories, via platformdirs)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import platformdirs

APP = "streamctl"


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP))


def state_dir() -> Path:
    return Path(platformdirs.user_state_dir(APP))


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP))


def config_file(explicit: str | os.PathLike | None = None) -> Path:
    """The config file: --config, else $STREAMCTL_CONFIG, else the XDG default."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("STREAMCTL_CONFIG")
    if env:
        return Path(env).expanduser()
    return config_dir() / "config.yaml"


def check_error_log() -> Path:
    """<state>/check-errors.log: tracebacks of `check` collectors that failed unexpectedly (the
    monitoring line names this file instead of a Python exception)."""
    return state_dir() / "check-errors.log"


def undo_dir(*parts: str) -> Path:
    """<state>/undo/<part>/...: where resets keep the offsets they replaced; each part made safe
    as a file name (a group or connector name may hold any character)."""
    return state_dir().joinpath("undo", *(re.sub(r"[^A-Za-z0-9._-]", "_", p) for p in parts))


def newest(folder: Path, pattern: str) -> Path | None:
    """The newest file in `folder` matching `pattern`, by name (undo files are named by time)."""
    files = sorted(folder.glob(pattern)) if folder.is_dir() else []
    return files[-1] if files else None
