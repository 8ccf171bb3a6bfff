"""Znode data decoding (JSON / text / binary), hex dumps, Stat fields, path rules and globs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamctl.backends.zookeeper_data import PathGlob, decode_data, hexdump, iso_ms, stat_dict, stat_rows, validate_path
from streamctl.errors import UsageError
from streamctl.model.zookeeper import ZStat, perms_text
from tests import repo

FIXTURES = repo.FIXTURES / "zookeeper"


def znodes() -> dict:
    return json.loads((FIXTURES / "kafka-znodes.json").read_text())


# ---- data -------------------------------------------------------------------------------------

def test_real_broker_registration_is_pretty_json():
    payload = znodes()["/brokers/ids/1"]["data"].encode()
    decoded = decode_data(payload)
    assert decoded.kind == "json"
    assert json.loads(decoded.text) == json.loads(payload)
    assert decoded.text.startswith("{\n  ")
    assert (decoded.size, decoded.shown, decoded.truncated) == (len(payload), len(payload), False)


def test_controller_epoch_is_text():
    decoded = decode_data(znodes()["/controller_epoch"]["data"].encode())
    assert (decoded.kind, decoded.text) == ("text", znodes()["/controller_epoch"]["data"])


def test_utf8_text_kept_as_is():
    decoded = decode_data("grüße\nzeile 2\tmit tab".encode())
    assert decoded.kind == "text"
    assert decoded.text == "grüße\nzeile 2\tmit tab"


def test_binary_is_a_hex_dump_not_mojibake():
    data = bytes([0xFF, 0x00, 0x00, 0x00, 0x12]) + b"PBUF\x08\x96\x01" + bytes(range(0xF0, 0x100))
    decoded = decode_data(data)
    assert decoded.kind == "binary"
    lines = decoded.text.splitlines()
    assert lines[0] == "00000000  ff 00 00 00 12 50 42 55 46 08 96 01 f0 f1 f2 f3  |.....PBUF.......|"
    assert lines[1].startswith("00000010  f4 f5 f6 f7 f8 f9 fa fb fc fd fe ff")
    assert "\ufffd" not in decoded.text


def test_text_with_control_characters_is_binary():
    assert decode_data(b"abc\x00def").kind == "binary"
    assert decode_data(b"\x1b[31mred").kind == "binary"


def test_empty_and_null_data():
    for data in (b"", None):
        decoded = decode_data(data)
        assert (decoded.kind, decoded.text, decoded.size) == ("empty", "", 0)


def test_size_limit_truncates_and_keeps_a_cut_multibyte_character_as_text():
    data = ("é" * 100).encode()  # 200 bytes, 2 per character
    decoded = decode_data(data, limit=51)  # cuts the 26th character in half
    assert decoded.kind == "text"
    assert decoded.text == "é" * 25
    assert (decoded.size, decoded.shown, decoded.truncated) == (200, 51, True)


def test_truncated_json_is_shown_as_text():
    payload = json.dumps({"partitions": {str(i): [1, 2, 3] for i in range(100)}}).encode()
    decoded = decode_data(payload, limit=100)
    assert decoded.kind == "text" and decoded.truncated
    assert decoded.text == payload[:100].decode()


def test_invalid_json_that_looks_like_json_is_text():
    assert decode_data(b"{not json").kind == "text"


def test_hexdump_short_line_is_padded():
    assert hexdump(b"AB") == "00000000  41 42" + " " * 42 + "  |AB|"


# ---- stat and ACLs ----------------------------------------------------------------------------

STAT = ZStat(czxid=57, mzxid=58, ctime=1795650196366, mtime=1795650196400, version=1, cversion=2,
             aversion=0, ephemeral_owner=72057694971428865, data_length=204, num_children=0, pzxid=57)


def test_stat_rows_name_every_field_with_human_values():
    rows = {name: (raw, human) for name, raw, human in stat_rows(STAT)}
    assert list(rows) == ["czxid", "ctime", "mzxid", "mtime", "pzxid", "cversion", "dataVersion", "aclVersion",
                          "ephemeralOwner", "dataLength", "numChildren"]
    assert rows["czxid"] == (57, "0x39")
    assert rows["ctime"] == (1795650196366, "2026-11-25T23:43:16.366Z")
    assert rows["ephemeralOwner"] == (72057694971428865, "session 0x1000017801b0001")
    assert rows["dataLength"] == (204, "204 B")


def test_stat_dict_for_persistent_node():
    doc = stat_dict(ZStat(1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1))
    assert doc["ephemeral_owner_hex"] is None
    assert doc["ctime_iso"] == "1970-01-01T00:00:00.000Z"


def test_iso_ms_keeps_milliseconds():
    assert iso_ms(1_000_000_000_007) == "2001-09-09T01:46:40.007Z"


@pytest.mark.parametrize("perms, text", [(31, "cdrwa"), (1, "r"), (3, "rw"), (0, "")])
def test_perms_text_like_zkcli(perms, text):
    assert perms_text(perms) == text


# ---- paths and globs --------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", "/brokers", "/brokers/topics/orders", "/a-b_c.d/é"])
def test_valid_paths(path):
    assert validate_path(path) == path


@pytest.mark.parametrize("path, words", [
    ("brokers", "must start with '/'"), ("", "must start with '/'"), ("/a/", "must not end with '/'"),
    ("/a//b", "empty segment"), ("/a/../b", "relative"), ("/a/./b", "relative"), ("/a\x00b", "control"),
])
def test_invalid_paths_are_one_line_errors(path, words):
    with pytest.raises(UsageError, match=words):
        validate_path(path)


def test_name_glob_matches_any_depth():
    glob = PathGlob("state")
    assert glob.matches("/brokers/topics/t/partitions/0/state")
    assert not glob.matches("/brokers/topics/t/partitions/0")
    assert glob.may_match_below(10)


def test_path_glob_star_stays_in_one_segment():
    glob = PathGlob("/brokers/topics/*/partitions/*/state")
    assert glob.matches("/brokers/topics/orders/partitions/3/state")
    assert not glob.matches("/brokers/topics/orders/extra/partitions/3/state")
    assert not glob.matches("/brokers/topics/orders/partitions/3")
    assert glob.may_match_below(5) and not glob.may_match_below(6)


def test_double_star_spans_segments():
    glob = PathGlob("/brokers/**/state")
    assert glob.matches("/brokers/topics/orders/partitions/3/state")
    assert glob.matches("/brokers/state")
    assert not glob.matches("/config/state")
    assert glob.may_match_below(100)


# ---- settings -> kazoo options ----------------------------------------------------------------

def test_auth_sasl_and_tls_pass_through_to_kazoo(tmp_path):
    from streamctl.backends.zookeeper import ZooKeeperBackend
    from streamctl.zookeeper.settings import ZooKeeperSettings

    settings = ZooKeeperSettings.model_validate({
        "hosts": "zk1:2281,zk2:2281/kafka", "timeout": 3,
        "auth": {"scheme": "digest", "credential": "ops:s3cret"},
        "sasl": {"mechanism": "DIGEST-MD5", "username": "ops", "password": "pw"},
        "tls": {"ca": str(tmp_path / "ca.pem"), "certfile": "~/client.pem", "keyfile": "~/client.key",
                "keyfile_password": "kp", "verify_certs": False},
    })
    backend = ZooKeeperBackend.from_settings(settings)
    assert backend.hosts == "zk1:2281,zk2:2281/kafka" and backend.timeout == 3 and backend.read_only
    options = backend.client_options
    assert options["auth_data"] == [("digest", "ops:s3cret")]
    assert options["sasl_options"] == {"mechanism": "DIGEST-MD5", "username": "ops", "password": "pw"}
    assert options["use_ssl"] is True and options["verify_certs"] is False
    assert options["ca"] == str(tmp_path / "ca.pem")
    assert options["certfile"] == str(Path("~/client.pem").expanduser())
    assert options["keyfile_password"] == "kp"
    assert "s3cret" not in repr(settings)


def test_plain_settings_pass_nothing_extra():
    from streamctl.backends.zookeeper import ZooKeeperBackend
    from streamctl.zookeeper.settings import ZooKeeperSettings

    backend = ZooKeeperBackend.from_settings(ZooKeeperSettings(hosts="127.0.0.1:2181"), read_only=False)
    assert backend.client_options == {} and backend.read_only is False
