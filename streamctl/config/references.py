"""Secret references in string values: `${NAME}` an environment variable, `${file:PATH}` a
file's contents (relative paths next to the config file), `$${` a literal `${`."""

from __future__ import annotations

import os
import re
from pathlib import Path

REFERENCE = re.compile(r"\$\$\{|\$\{([^}]*)(\}?)")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Unresolved(Exception):
    """A reference that cannot be resolved; the message names it, never a value."""


def resolve(ref: str, base_dir: Path) -> str:
    """The value `${ref}` stands for."""
    if ref.startswith("file:"):
        return _read_secret_file(ref.removeprefix("file:"), base_dir)
    if not _ENV_NAME.fullmatch(ref):
        raise Unresolved(f"invalid reference '${{{ref}}}' (use ${{NAME}} or ${{file:PATH}})")
    value = os.environ.get(ref)
    if value is None:
        raise Unresolved(f"environment variable '{ref}' is not set")
    return value


def _read_secret_file(name: str, base_dir: Path) -> str:
    path = base_dir / Path(name).expanduser()  # relative paths: next to the config file
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise Unresolved(f"cannot read secret file '{path}': {exc.strerror}") from None
    except UnicodeDecodeError:
        raise Unresolved(f"secret file '{path}' is not UTF-8 text") from None
    return text.removesuffix("\n").removesuffix("\r")
