"""The one error type the CLI turns into a one-line message and a non-zero exit."""


class StreamctlError(Exception):
    """An expected failure with a message meant for the operator (no traceback)."""

    exit_code = 1


class UsageError(StreamctlError):
    """Bad input from the operator: arguments, files, values."""

    exit_code = 3
