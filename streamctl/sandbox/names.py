"""Several sandboxes side by side (`sandbox up --name NAME`): each name's state folder and context.

The default sandbox keeps today's places: <state>/sandbox and the `sandbox` context. A named one
lives in <state>/sandboxes/NAME and writes the context NAME (its TLS and monitor contexts,
NAME-tls and NAME-monitor), so a ZooKeeper-mode and a KRaft sandbox make a fleet of two contexts.
"""

from __future__ import annotations

import re
from pathlib import Path

from streamctl import paths
from streamctl.errors import UsageError

DEFAULT = "sandbox"
NAMED_FOLDER = "sandboxes"
DERIVED_SUFFIXES = ("-tls", "-monitor")  # the contexts a --tls or --secure sandbox adds beside its own
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")


def check_name(name: str) -> str:
    """`name` if it is a simple identifier usable as a folder and a context name; else a usage error."""
    if not _IDENTIFIER.fullmatch(name):
        raise UsageError(f"sandbox name {name!r} is not a simple identifier "
                         "(a letter, then up to 39 letters, digits, '-' or '_')")
    if name != DEFAULT and name.endswith(DERIVED_SUFFIXES):
        raise UsageError(f"sandbox name {name!r} ends like the contexts a sandbox adds beside its own "
                         f"({', '.join(DERIVED_SUFFIXES)}): pick another")
    return name


def root(name: str, state_dir: Path | None = None) -> Path:
    """The folder holding the sandbox `name`'s state, configs, data and logs."""
    base = state_dir or paths.state_dir()
    return base / DEFAULT if name == DEFAULT else base / NAMED_FOLDER / name


def known(state_dir: Path | None = None) -> list[str]:
    """Every sandbox with a state file under the state dir: the default one first, then by name."""
    base = state_dir or paths.state_dir()
    named = sorted(p.parent.name for p in (base / NAMED_FOLDER).glob("*/state.json"))
    return ([DEFAULT] if (base / DEFAULT / "state.json").is_file() else []) + named


def derived_context(name: str, suffix: str) -> str:
    """The context a TLS (`-tls`) or secure (`-monitor`) sandbox writes beside `name`."""
    return f"{name}{suffix}"
