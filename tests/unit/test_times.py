"""streamctl.times: the one time syntax of --from-time, --by-duration and audit --since."""

from __future__ import annotations

from datetime import datetime

import pytest

from streamctl import times
from streamctl.errors import UsageError
from streamctl.kafka.groups import offsets
from streamctl.kafka.records import formats as records

NOW = 1_795_608_000_000  # 2026-11-25T12:00:00Z
HOUR = 3_600_000


@pytest.mark.parametrize("text, expected", [
    ("-1h", NOW - HOUR), ("1h", NOW - HOUR), ("-30m", NOW - HOUR // 2), ("-2d", NOW - 48 * HOUR),
    ("90s", NOW - 90_000), ("PT1H", NOW - HOUR), ("pt1h", NOW - HOUR), ("-PT1H", NOW - HOUR),
    ("P2D", NOW - 48 * HOUR), ("P1DT2H", NOW - 26 * HOUR), (" -1h ", NOW - HOUR),
    ("2026-11-25T11:00:00Z", NOW - HOUR), ("2026-11-25T12:00+01:00", NOW - HOUR),
    ("2026-11-25T11:00:00.000Z", NOW - HOUR),
])
def test_every_form(text, expected):
    assert times.parse_time(text, "--since", now_ms=NOW) == expected


def test_a_bare_date_is_local_midnight():
    local = datetime(2026, 11, 25).astimezone()
    assert times.parse_time("2026-11-25", "--since") == int(local.timestamp() * 1000)


@pytest.mark.parametrize("text, message", [
    ("yesterday", f"expected {times.FORMS}"), ("-1w", f"expected {times.FORMS}"), ("", f"expected {times.FORMS}"),
    ("1.5h", f"expected {times.FORMS}"), ("2026-11-25 12:00", f"expected {times.FORMS}"),
    ("PT", "expected an ISO 8601 duration like PT30M or P1DT2H"),
    ("P1DT", "expected an ISO 8601 duration like PT30M or P1DT2H"),
    ("2026-13-01T00:00", "month must be in 1..12"),
    ("2026-01-01T00:00+01:99", "zone offset out of range (at most ±23:59)"),
    ("-999999d", "before 1970-01-01T00:00Z"), ("P999999D", "before 1970-01-01T00:00Z"),
])
def test_bad_input_one_line_naming_the_option(text, message):
    with pytest.raises(UsageError) as info:
        times.parse_time(text, "--by-duration", now_ms=NOW)
    assert str(info.value) == f"--by-duration {text.strip()!r}: {message}"


SAMPLES = ["-1h", "30m", "PT1H", "P1DT2H", "2026-11-25T11:00:00Z", "2026-11-25", "yesterday", "PT", "-999999d"]


def outcome(parse, text):
    try:
        return parse(text)
    except UsageError as exc:
        return str(exc).split(":", 1)[1]  # the message without the option's name


@pytest.mark.parametrize("text", SAMPLES)
def test_the_three_options_share_one_parser(text, monkeypatch, tmp_path):
    from click.testing import CliRunner

    from streamctl.ops.commands import audit

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(times.time, "time", lambda: NOW / 1000)

    def audit_since(value):
        result = CliRunner().invoke(audit, ["--since", value], standalone_mode=False)
        if isinstance(result.exception, UsageError):
            raise result.exception
        assert result.exit_code == 0, result.output
        return times.parse_time(value, "--since")  # it ran: the same parse gave its cut-off

    from_time = outcome(records.parse_time, text)
    assert outcome(audit_since, text) == from_time
    assert outcome(lambda value: times.parse_time(value, "--by-duration", NOW), text) == from_time
    assert offsets.parse_time is times.parse_time  # what the by-duration reset computes its timestamp with
