"""srvr / mntr / ruok / AdminServer answers, as captured from real ZooKeeper 3.8 servers
(tests/fixtures/capture_zookeeper.py): the sandbox (default whitelist: srvr only) and a
3-server ensemble with every four-letter word allowed."""

from __future__ import annotations

import json

import httpx
import pytest

from streamctl.backends.zookeeper_ensemble import (
    NOT_AVAILABLE,
    OK,
    UNREACHABLE,
    admin_urls,
    merge_answers,
    not_whitelisted,
    parse_hosts,
    parse_mntr,
    parse_srvr,
)
from streamctl.errors import UsageError
from tests import repo

FIXTURES = repo.FIXTURES / "zookeeper"


def text(name: str) -> str:
    return (FIXTURES / name).read_text()


def doc(name: str) -> dict:
    return json.loads(text(name))


def admin_500() -> httpx.HTTPStatusError:
    """The captured HTTP 500 of a server outside a quorum, as httpx raises it."""
    status_line, body = text("ensemble-noquorum-admin-monitor.http").split("\n", 1)
    request = httpx.Request("GET", "http://127.0.0.1:8080/commands/monitor")
    response = httpx.Response(int(status_line.split()[1]), text=body, request=request)
    return httpx.HTTPStatusError("server error", request=request, response=response)


# ---- parsers ----------------------------------------------------------------------------------

def test_srvr_standalone():
    fields = parse_srvr(text("sandbox-srvr.txt"))
    assert fields["mode"] == "standalone" and fields["serving"] is True
    assert fields["version"].startswith("3.8.4")
    assert fields["latency_min_ms"] <= fields["latency_avg_ms"] <= fields["latency_max_ms"]
    assert fields["zxid"] == int(next(l for l in text("sandbox-srvr.txt").splitlines()
                                      if l.startswith("Zxid:")).split()[1], 16)
    assert isinstance(fields["znode_count"], int) and isinstance(fields["outstanding"], int)


def test_srvr_leader_and_follower():
    leader, follower = parse_srvr(text("ensemble-leader-srvr.txt")), parse_srvr(text("ensemble-follower-srvr.txt"))
    assert (leader["mode"], follower["mode"]) == ("leader", "follower")
    assert leader["zxid"] == 0x100000000  # epoch 1 in the high 32 bits
    assert leader["serving"] and follower["serving"]


def test_srvr_outside_a_quorum():
    assert parse_srvr(text("ensemble-noquorum-srvr.txt")) == {"serving": False}


def test_mntr_parsed_with_numbers():
    values = parse_mntr(text("ensemble-leader-mntr.txt"))
    assert values["zk_server_state"] == "leader"
    assert isinstance(values["zk_znode_count"], int)
    assert isinstance(values["zk_avg_latency"], float)
    assert values["zk_synced_followers"] == 2


@pytest.mark.parametrize("name", ["sandbox-mntr.txt", "sandbox-ruok.txt"])
def test_whitelist_refusal_recognised(name):
    assert not_whitelisted(text(name))
    assert not not_whitelisted(text("sandbox-srvr.txt"))


# ---- merged views -----------------------------------------------------------------------------

def test_sandbox_default_whitelist_srvr_only():
    s = merge_answers("127.0.0.1:2181", {"srvr": text("sandbox-srvr.txt"), "mntr": text("sandbox-mntr.txt"),
                                         "ruok": text("sandbox-ruok.txt")})
    assert s.reachable and s.serving and s.mode == "standalone"
    assert s.watch_count is None  # only mntr or the AdminServer tell
    assert s.ruok is None  # not available is not "failed"
    assert s.probe("mntr").status == NOT_AVAILABLE
    assert s.probe("ruok").status == NOT_AVAILABLE
    assert s.probe("srvr").status == OK


def test_sandbox_with_admin_server_fills_watches_and_zxid():
    monitor, srvr = doc("sandbox-admin-monitor.json"), doc("sandbox-admin-srvr.json")
    s = merge_answers("127.0.0.1:2181", {"srvr": text("sandbox-srvr.txt"), "mntr": text("sandbox-mntr.txt"),
                                         "ruok": text("sandbox-ruok.txt"), "admin/monitor": monitor,
                                         "admin/srvr": srvr, "admin/ruok": doc("sandbox-admin-ruok.json")})
    assert s.watch_count == monitor["watch_count"]
    assert s.ephemerals == monitor["ephemerals_count"]
    assert s.zxid == srvr["server_stats"]["last_processed_zxid"]
    assert s.ruok is True
    assert s.probe("admin/monitor").status == OK


def test_leader_with_everything_whitelisted():
    s = merge_answers("zk1:2181", {"srvr": text("ensemble-leader-srvr.txt"), "mntr": text("ensemble-leader-mntr.txt"),
                                   "ruok": text("ensemble-ruok.txt")})
    assert (s.mode, s.serving, s.ruok, s.followers) == ("leader", True, True, 2)
    assert s.watch_count == parse_mntr(text("ensemble-leader-mntr.txt"))["zk_watch_count"]


def test_server_outside_a_quorum_is_up_but_not_serving():
    s = merge_answers("zk3:2181", {"srvr": text("ensemble-noquorum-srvr.txt"),
                                   "mntr": text("ensemble-noquorum-mntr.txt"),
                                   "ruok": text("ensemble-noquorum-ruok.txt"), "admin/monitor": admin_500()},
                      admin_configured=True)
    assert s.reachable and not s.serving
    assert s.mode == "not serving"
    assert s.ruok is True  # imok only says the process runs
    assert s.probe("admin/monitor").status == OK


def test_refused_port_is_unreachable():
    refused = ConnectionRefusedError(111, "Connection refused")
    s = merge_answers("zk2:2181", {"srvr": refused, "mntr": refused, "ruok": refused})
    assert not s.reachable and not s.serving
    assert s.error == "connection refused"
    assert {p.status for p in s.probes} == {UNREACHABLE}


# ---- connect strings ----------------------------------------------------------------------------

def test_parse_hosts_with_chroot_and_default_port():
    assert parse_hosts("zk1:2181,zk2,[::1]:2182/kafka") == ([("zk1", 2181), ("zk2", 2181), ("::1", 2182)], "/kafka")
    assert parse_hosts("127.0.0.1:2181") == ([("127.0.0.1", 2181)], None)


def test_parse_hosts_rejects_bad_port():
    with pytest.raises(UsageError, match="bad port"):
        parse_hosts("zk1:21x81")


def test_admin_urls():
    one = [("127.0.0.1", 2181)]
    three = [("zk1", 2181), ("zk2", 2181), ("zk3", 2181)]
    assert admin_urls("http://127.0.0.1:8080/commands/", one) == {"127.0.0.1:2181": "http://127.0.0.1:8080/commands"}
    assert admin_urls("http://{host}:8080/commands", three)["zk2:2181"] == "http://zk2:8080/commands"
    assert admin_urls("http://zk2:8080/commands", three) == {"zk2:2181": "http://zk2:8080/commands"}
    assert admin_urls("http://elsewhere:8080/commands", three) == {}
    assert admin_urls(None, three) == {}
