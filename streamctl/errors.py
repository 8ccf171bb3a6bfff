"""Exit codes, and the error type the CLI turns into a one-line message and a non-zero exit."""

from enum import IntEnum


class ExitCode(IntEnum):
    """What a streamctl process exits with. `check` follows the monitoring-plugin convention
    (0 OK, 1 WARN, 2 CRIT, 3 UNKNOWN); every other command reuses its numbers."""

    OK = 0
    """Done; `check`: every component OK."""
    WARN = 1
    """`check`: the worst finding is WARN."""
    FAILURE = 1
    """Any other command: it could not do what was asked (an unreachable cluster, a refused change)."""
    CRIT = 2
    """`check`: the worst finding is CRIT."""
    UNKNOWN = 3
    """`check`: a component could not be evaluated."""
    USAGE = 3
    """Bad input from the operator: arguments, files, values (one line, never a traceback)."""
    INTERRUPTED = 130
    """Ctrl-C or an aborted prompt (128 + SIGINT, as shells report it)."""


class StreamctlError(Exception):
    """An expected failure with a message meant for the operator (no traceback)."""

    exit_code = ExitCode.FAILURE


class UsageError(StreamctlError):
    """Bad input from the operator: arguments, files, values."""

    exit_code = ExitCode.USAGE


def exit_code_for(error: BaseException) -> ExitCode:
    """The exit code of a command that ended with `error`."""
    if isinstance(error, KeyboardInterrupt):
        return ExitCode.INTERRUPTED
    return getattr(error, "exit_code", ExitCode.FAILURE)
