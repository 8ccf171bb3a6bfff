"""Completers of Kafka names for the shell: topics from one metadata call bounded by a short
timeout, groups from the lag history (no network). Anything unreadable completes nothing."""

from __future__ import annotations

import sqlite3

import click
from click.shell_completion import CompletionItem

from streamctl.completion import completion_context
from streamctl.errors import StreamctlError

COMPLETION_TIMEOUT = 2.0  # seconds a <Tab> may wait for the cluster's metadata


def complete_topic(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.isolated import isolated_backend

    context = completion_context(ctx)
    if context is None or context.kafka is None:
        return []
    timeout = min(context.kafka.timeout, COMPLETION_TIMEOUT)
    try:
        snapshot = isolated_backend(context.kafka.client_config(), timeout).metadata()
    except (KafkaError, StreamctlError):
        return []
    return [CompletionItem(t.name) for t in sorted(snapshot.topics, key=lambda t: t.name)
            if t.name.startswith(incomplete) and not t.name.startswith("__")]


def complete_group(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    from streamctl.kafka.history import known_groups
    from streamctl.kafka.lag.store import default_path

    context = completion_context(ctx)
    if context is None:
        return []
    try:
        names = known_groups(default_path(), context.name)
    except (OSError, sqlite3.Error, StreamctlError):
        return []
    return [CompletionItem(name) for name in sorted(names) if name.startswith(incomplete)]
