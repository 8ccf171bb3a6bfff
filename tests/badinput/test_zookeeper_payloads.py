"""Bad ZooKeeper payloads: server answers to four-letter words (a local server answering them),
znode data read back with `zk get`, and Kafka's znodes read with `zk kafka` (both written into
the session sandbox's real ZooKeeper under a test-unique path). Payloads are shown or listed as
unreadable, one line each; nothing crashes and nothing is written."""

from __future__ import annotations

import uuid

import pytest
from kazoo.client import KazooClient

from tests.badinput.harness import Case, Workspace, ids, json_out, run_case
from tests.badinput.servers import four_letter

# ---- four-letter-word answers (no cluster) -----------------------------------------------------

ANSWER_CONFIG = """\
current-context: p
contexts:
  p:
    kafka: {bootstrap_servers: "127.0.0.1:{dead}", timeout: 2}
    zookeeper: {hosts: "{zk}", timeout: 2}
"""


def server_fields(**expected):
    def check(result, _workspace):
        (server,) = json_out(result)["servers"]
        assert {k: server[k] for k in expected} == expected
    return check


ANSWERS = {
    "latency not numbers": ({"srvr": b"Zookeeper version: 3.8.4-abc, built on x\nLatency min/avg/max: x/y/z\n"
                                     b"Mode: standalone\nNode count: 5\n"},
                            {"reachable": True, "serving": True, "mode": "standalone", "version": "3.8.4",
                                 "latency_avg_ms": None, "znode_count": 5}),
    "two latencies, zxid and count words": ({"srvr": b"Latency min/avg/max: 1/2\nMode: follower\nZxid: zz\n"
                                                     b"Node count: many\n"},
                                            {"serving": True, "mode": "follower", "latency_min_ms": None, "zxid": None,
                                                 "znode_count": None}),
    "mntr garbage": ({"srvr": b"Mode: leader\n", "mntr": b"zk_avg_latency\tfast\nzk_znode_count\t\nnoise\n"},
                     {"serving": True, "mode": "leader", "latency_avg_ms": None, "znode_count": None}),
    "binary answers": ({"srvr": b"\xff\xfe\x00\x01", "mntr": b"\x00\x00", "ruok": b"\xff"},
                       {"reachable": True, "serving": False, "mode": None, "ruok": False}),
}

ANSWER_CASES = [Case(f"4lw {name}", ("zk", "health", "-o", "json"), code=0, config=ANSWER_CONFIG, stdout=None,
                     check=server_fields(**fields)) for name, (_, fields) in ANSWERS.items()]


@pytest.mark.parametrize("case", ANSWER_CASES, ids=ids(ANSWER_CASES))
def test_bad_server_answer(case, tmp_path):
    answers, _ = ANSWERS[case.id.removeprefix("4lw ")]
    with four_letter(answers) as hosts:
        run_case(case, Workspace(tmp_path, zk=hosts))


# ---- znode data and Kafka's znodes in the sandbox's ZooKeeper -------------------------------------

ZK_CONFIG = """\
current-context: p
contexts:
  p:
    kafka: {bootstrap_servers: "127.0.0.1:{dead}", timeout: 2}
    zookeeper: {hosts: "{zk}", timeout: 5, chroot: "{zkroot}/{case}"}
"""


def data_shown(kind: str, text: str, size: int, shown: int | None = None):
    def check(result, _workspace):
        data = json_out(result)
        assert (data["kind"], data["text"], data["size"], data["shown"]) == (kind, text, size,
                                                                           size if shown is None else shown)
    return check


DEEP = "[" * 3000 + "]" * 3000

# case id -> (znodes under the case path, Case)
ZNODES: dict[str, tuple[dict[str, bytes], Case]] = {}


def znode(id: str, nodes: dict[str, bytes], args: tuple[str, ...], error: str | None = None, code: int = 0,
          check=None, stdout: str | None = None, env: dict | None = None) -> None:
    ZNODES[id] = (nodes, Case(id, args, error, code=code, config=ZK_CONFIG, stdout=stdout, check=check,
                              env=env or {}))


def get(path: str, *more: str) -> tuple[str, ...]:
    return ("zk", "get", "{zkroot}/{case}" + path, "-o", "json", *more)


znode("data nested too deeply", {"/n": DEEP.encode()}, get("/n"), check=data_shown("text", DEEP, 6000))
znode("data not utf-8", {"/n": b"\xff\xfeA"}, get("/n"),
      check=data_shown("binary", "00000000  ff fe 41" + " " * 39 + "  |..A|", 3))
znode("data with terminal escapes", {"/n": b"\x1b[31mred"}, get("/n"),
      check=data_shown("binary", "00000000  1b 5b 33 31 6d 72 65 64" + " " * 24 + "  |.[31mred|", 8))
znode("data multibyte cut by the limit", {"/n": "ééé".encode()}, get("/n", "--max-bytes", "3"),
      check=data_shown("text", "é", 6, 3))
znode("data json-looking", {"/n": b'{"a": 1,'}, get("/n"), check=data_shown("text", '{"a": 1,', 8))
znode("data empty", {"/n": b""}, get("/n"), check=data_shown("empty", "", 0))
znode("no such znode", {}, ("zk", "get", "{zkroot}/{case}/nope"), "no znode {zkroot}/{case}/nope", code=3)

KAFKA = ("zk", "kafka", "--no-crosscheck", "-o", "json")
GOOD_BROKER = b'{"version":5,"host":"h","port":9092,"endpoints":["PLAINTEXT://h:9092"],"timestamp":"1"}'


def unreadable(*errors: str):
    def check(result, workspace):
        view = json_out(result)["view"]
        assert view["errors"] == [workspace.fill(e) for e in errors]
        assert [b["id"] for b in view["brokers"]] == [1]
    return check


def kafka_case(id: str, path: str, payload: bytes, error: str) -> None:
    nodes = {"/brokers/ids/1": GOOD_BROKER, "/brokers/topics": b"", path: payload}
    znode(id, nodes, KAFKA, check=unreadable(f"{{zkroot}}/{{case}}{path}: {error}"))


kafka_case("broker port infinite", "/brokers/ids/2", b'{"version":4,"host":"h","port":1e999}',
           "unreadable registration (not a number: inf)")
kafka_case("broker endpoint not a string", "/brokers/ids/3", b'{"version":5,"endpoints":[9092]}',
           "unreadable registration (endpoint 9092 is not a string)")
kafka_case("broker protocol map a list", "/brokers/ids/4",
           b'{"version":5,"endpoints":["SSL://h:1"],"listener_security_protocol_map":["SSL"]}',
           "unreadable registration (listener_security_protocol_map is not a JSON object)")
kafka_case("broker id not a number", "/brokers/ids/x", GOOD_BROKER,
           "unreadable registration (invalid literal for int() with base 10: 'x')")
kafka_case("topic partitions a list", "/brokers/topics/t1", b'{"version":2,"partitions":[[1,2]]}',
           "unreadable assignment (replica map is not a JSON object)")
kafka_case("controller id infinite", "/controller", b'{"version":1,"brokerid":1e999}',
           "unreadable (not a number: inf)")
kafka_case("controller epoch a word", "/controller_epoch", b"abc",
           "unreadable (invalid literal for int() with base 10: 'abc')")
kafka_case("reassignment topic a number", "/admin/reassign_partitions",
           b'{"partitions":[{"topic":5,"partition":0,"replicas":[1]}]}', "unreadable (topic is not a string)")
kafka_case("election not json", "/admin/preferred_replica_election", b"\xff not json",
           "unreadable ('utf-8' codec can't decode byte 0xff in position 0: invalid start byte)")
def _table_shows_time_and_unreadable(result, workspace):
    lines = result.stdout.splitlines()
    assert any("1000000000000000000 ms" in line for line in lines), result.stdout
    assert workspace.fill("{zkroot}/{case}/controller: unreadable (invalid literal for int() with base 10: 'x')") \
        in lines, result.stdout


znode("broker timestamp past year 9999 (table)",
      {"/brokers/ids/1": GOOD_BROKER.replace(b'"1"', b'"1000000000000000000"'), "/brokers/topics": b"",
       "/controller": b'{"brokerid": "x"}'},
      ("zk", "kafka", "--no-crosscheck"), env={"COLUMNS": "300"}, check=_table_shows_time_and_unreadable)

ZNODE_CASES = [case for _, case in ZNODES.values()]


@pytest.fixture(scope="module")
def kazoo(sandbox):
    client = KazooClient(hosts=sandbox.state.zookeeper_hosts, timeout=10)
    client.start(timeout=15)
    root = f"/streamctl-badinput-{uuid.uuid4().hex[:8]}"
    yield client, root
    if client.exists(root):
        client.delete(root, recursive=True)
    client.stop()
    client.close()


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text)


def _tree(client: KazooClient, path: str) -> dict[str, tuple[bytes, int]]:
    data, stat = client.get(path)
    found = {path: (data, stat.version)}
    for child in client.get_children(path):
        found |= _tree(client, f"{path}/{child}")
    return found


@pytest.mark.integration
@pytest.mark.parametrize("case", ZNODE_CASES, ids=ids(ZNODE_CASES))
def test_bad_znode_payload(case, tmp_path, sandbox, kazoo):
    client, root = kazoo
    nodes, _ = ZNODES[case.id]
    base = f"{root}/{_slug(case.id)}"
    client.ensure_path(base)
    for path, payload in nodes.items():
        client.create(base + path, payload, makepath=True)
    before = _tree(client, base)
    run_case(case, Workspace(tmp_path, zk=sandbox.state.zookeeper_hosts, zkroot=root, case=_slug(case.id)))
    assert _tree(client, base) == before, "the run changed znodes"
