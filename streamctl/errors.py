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
    OUTCOME_UNKNOWN = 4
    """A change was sent, its answer was lost (the client crashed, the answer timed out) and the
    read-back could not tell whether it was made: re-read before retrying."""
    INTERRUPTED = 130
    """Ctrl-C or an aborted prompt (128 + SIGINT, as shells report it)."""


class StreamctlError(Exception):
    """An expected failure with a message meant for the operator (no traceback)."""

    exit_code = ExitCode.FAILURE


class UsageError(StreamctlError):
    """Bad input from the operator: arguments, files, values."""

    exit_code = ExitCode.USAGE


class AnswerLost(StreamctlError):
    """A change was sent and its answer lost (its Kafka client crashed or hung after the call
    began, a Connect worker's answer timed out): it may have been made. It is never sent again;
    the plan core (streamctl.ops.execute) reads the outcome back."""


class OutcomeUnknown(StreamctlError):
    """A change whose answer was lost, and whose outcome could not be read back either."""

    exit_code = ExitCode.OUTCOME_UNKNOWN


def exit_code_for(error: BaseException) -> ExitCode:
    """The exit code of a command that ended with `error`."""
    if isinstance(error, KeyboardInterrupt):
        return ExitCode.INTERRUPTED
    return getattr(error, "exit_code", ExitCode.FAILURE)
