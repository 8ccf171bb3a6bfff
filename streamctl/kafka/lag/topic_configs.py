"""Topics' key configs kept between runs in the lag history's file, with when each was read: a
topic whose ISR stays full is not described again for a while (history.CONFIGS_KEPT)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from streamctl.kafka.lag.store import LagStore
from streamctl.model.kafka import Topic


class TopicConfigCache:
    """The topic_configs table of an open LagStore."""

    def __init__(self, store: LagStore) -> None:
        self.store = store

    def read(self, context: str, max_age: float, now: float) -> dict[str, tuple[dict[str, str], float]]:
        """(key configs, when read) by topic, read within `max_age` seconds before `now`."""
        rows = self.store.query("SELECT topic, configs, read_at FROM topic_configs WHERE context = ? AND read_at >= ?",
                                (context, now - max_age))
        return {topic: (json.loads(configs), read_at) for topic, configs, read_at in rows}

    def record(self, context: str, topics: Iterable[Topic], kept: Mapping[str, tuple[dict[str, str], float]]) -> None:
        """Keep the key configs of a snapshot's topics with when each was read, in place of
        those kept before (a topic deleted since is forgotten), when it read any afresh (not
        in `kept`, what read() gave it): else nothing is written."""
        rows = [(context, t.name, t.configs_read_at, json.dumps(t.configs))
                for t in topics if t.configs_read_at is not None]
        if any(name not in kept or kept[name][1] != read_at for _, name, read_at, _ in rows):
            with self.store.transaction() as db:
                db.execute("DELETE FROM topic_configs WHERE context = ?", (context,))
                db.executemany("INSERT INTO topic_configs VALUES (?, ?, ?, ?)", rows)
