"""A new SCRAM password: the first line of a file, or typed twice at a hidden prompt.

Never an argument or an environment value (both show in process listings, shell histories and
crash reports). The password is handed to the backend only: it is in no plan, audit record,
message or log line.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import click

from streamctl.errors import UsageError

SHARED_BITS = stat.S_IRGRP | stat.S_IROTH  # group or others may read it


def from_file_or_terminal(path: str | None) -> str | None:
    """The password of `path` (--password-file); None when it is to be typed (prompt()), which
    needs a terminal: without one and without a file, a one-line error before anything is asked."""
    if path is not None:
        return from_file(Path(path))
    if not sys.stdin.isatty():
        raise UsageError("no password: give --password-file FILE (its first line), or run on a terminal "
                         "to type it at a hidden prompt")
    return None


def prompt() -> str:
    """A password typed twice at a hidden prompt (on stderr: stdout may be JSON); click asks
    again after an empty entry or a mismatch."""
    return click.prompt("new password", hide_input=True, confirmation_prompt=True, err=True)


def from_file(path: Path) -> str:
    """The file's first line (without its line end); a missing, unreadable or empty one is an error."""
    try:
        data = path.read_bytes()
        mode = path.stat().st_mode
    except OSError as exc:  # missing, a directory, not readable: the system's words
        raise UsageError(f"--password-file {path}: {(exc.strerror or 'cannot read').lower()}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"--password-file {path}: not UTF-8 text") from None
    password = text.splitlines()[0] if text else ""
    if not password:
        raise UsageError(f"--password-file {path}: the first line is empty (no password)")
    if mode & SHARED_BITS:
        click.echo(f"streamctl: warning: --password-file {path} can be read by others "
                   f"(mode {stat.S_IMODE(mode):o}): chmod 600 it", err=True)
    return password
