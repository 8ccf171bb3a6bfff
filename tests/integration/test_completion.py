"""Shell completion of topic and group names against the real sandbox."""

from __future__ import annotations

import pytest

from streamctl.completion import COMPLETE_VAR

pytestmark = pytest.mark.integration


def _complete(sandbox, words: str) -> list[str]:
    result = sandbox.cli(**{COMPLETE_VAR: "bash_complete", "COMP_WORDS": words,
                            "COMP_CWORD": str(len(words.split(" ")) - 1)})
    assert result.returncode == 0, result.stderr
    return [line.split(",", 1)[1] for line in result.stdout.splitlines() if line]


def test_topic_names_complete_from_the_cluster(sandbox):
    topics = _complete(sandbox, "streamctl topics describe weblog")
    assert "weblogs" in topics and "weblog-stats" in topics, topics
    assert all(t.startswith("weblog") for t in topics), topics
    assert not any(t.startswith("__") for t in _complete(sandbox, "streamctl topics read ")), "internal topics offered"


def test_group_names_complete_from_the_lag_history(sandbox):
    def archive_group_known() -> bool:
        sandbox.cli("check", "--component", "kafka")  # check records every group's lag in the history
        return "connect-weblog-archive" in _complete(sandbox, "streamctl groups lag connect-")
    sandbox.wait_until(archive_group_known, timeout=180, interval=2, what="the sink's group in the completion")
    assert _complete(sandbox, "streamctl groups describe zz-no-such-") == []
