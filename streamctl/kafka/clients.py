"""The Kafka clients the resource commands use: a read that names the cluster when it fails, an
admin client once read-only mode is ruled out, the groups the lag history knows, and the warning
a partial snapshot gives."""

from __future__ import annotations

from contextlib import contextmanager

import click

from streamctl.session import Session


@contextmanager
def cluster(session: Session):
    """The context and a client for its cluster; a read that fails names the cluster."""
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.isolated import isolated_backend

    ctx = session.context()
    try:
        yield ctx, isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout)
    except KafkaError as exc:
        raise KafkaError(f"Kafka at {ctx.kafka.bootstrap_servers}: {exc}") from None


def admin(session: Session, operation: str, execute: bool, client_class=None):
    """The context and an admin client (KafkaAdmin, or `client_class`, a subclass of it), once
    read-only mode has been ruled out for an execution (a dry run plans in a read-only context too)."""
    from streamctl.backends.kafka.isolated import IsolatedKafka, isolated_backend
    from streamctl.ops import require_writable

    ctx = session.context()
    require_writable(operation, ctx, session.read_only_flag, execute)
    if client_class is not None:
        return ctx, IsolatedKafka(client_class, ctx.kafka.client_config(), timeout=ctx.kafka.timeout)
    return ctx, isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout, admin=True)


@contextmanager
def wire_reader(session: Session, client_class):
    """The context and a kafka-python client (`client_class`, a WireAdmin subclass) in this
    process, closed on leaving: for a command that only reads, and only through kafka-python.

    The other clients run each call in a forked child (isolated.py) because librdkafka can
    crash the process it runs in. kafka-python is pure Python and this process then loads no
    librdkafka at all, so there is nothing to isolate; every request is still bounded by the
    context's timeout (kafka-python's request and bootstrap timeouts). The child's cost is
    saved: a fork, a fresh client (bootstrap, connections) per call, the answer pickled."""
    ctx = session.context()
    reader = client_class(ctx.kafka.client_config(), timeout=ctx.kafka.timeout)
    try:
        yield ctx, reader
    finally:
        reader.close()


def history_groups(ctx) -> list[str]:
    """Groups the lag history saw: looked up directly if a coordinator move hides them from the listing."""
    from streamctl.kafka.history import known_groups
    from streamctl.kafka.lag.store import default_path

    return known_groups(default_path(), ctx.name)


def warn_incomplete(snap) -> None:
    """One stderr line when part of the snapshot could not be read (the output shows '-' there)."""
    if snap.errors:
        more = f" (and {len(snap.errors) - 1} more)" if len(snap.errors) > 1 else ""
        click.echo(f"streamctl: warning: incomplete: could not read {snap.errors[0]}{more}", err=True)


def broker_says(validate) -> None:
    """Run the broker's own validation of a plan (a call with validate_only=True): its refusal
    is the operator's error, one line; an authorizer's refusal stays what it is, a missing ACL."""
    from streamctl.backends.kafka.authz import NotAuthorized
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.errors import UsageError

    try:
        validate()
    except NotAuthorized:
        raise
    except KafkaError as exc:
        raise UsageError(str(exc)) from None
