"""Why `check` could not evaluate a component: a service condition, or a bug in streamctl.

`check` turns any exception a collector raises into UNKNOWN (exit 3), the same code a broker
away or a deadline gives: a test that accepts exit 3 must also ask why, or a collector raising
TypeError on every run passes. The vocabulary below is the product's own (the NotEvaluated
reasons of the collectors, backends/kafka/probe.py's `describe`, the KafkaError texts).
"""

from __future__ import annotations

import importlib
import json
import re

# What a service that is away, slow or mid-move makes a collector say.
SERVICE_CONDITION = re.compile("|".join([  # noqa: FLY002 (one alternative a line, with comments)
    r"deadline",  # "deadline reached", "no answer within the deadline", "cut short by the deadline"
    r"no answer", r"did not answer", r"does not answer", r"not answering",
    r"no time left",  # "no time left before the deadline"
    r"timed out", r"unreachable", r"refuses connections", r"connection refused",
    r"transport failure", r"no leader", r"leader not available", r"coordinator",
    r"\bdown\b",
]), re.IGNORECASE)

# A Python exception's name ("TypeError: ...", as check/evaluate.py words an unexpected one), a
# traceback, or check's own "internal error in the kafka collector; traceback in <path>".
# A qualified Java name (java.net.ConnectException) is a service's answer, not ours.
PYTHON_EXCEPTION = re.compile(r"(?<![.\w$])[A-Z]\w*(Error|Exception)\b"
                              r"|\b(StopIteration|KeyboardInterrupt|SystemExit|GeneratorExit)\b")
BUG_WORDS = re.compile(r"traceback|internal error", re.IGNORECASE)
# check/evaluate.py's wording of an exception no collector translated: the type, first.
UNTRANSLATED = re.compile(r"^[A-Z]\w*: ")


def _network_errors() -> frozenset[str]:
    """The client libraries' network failures, which the backends name on purpose after what
    did not answer (checkpoint_store.py: "HDFS (WebHDFS at h:p) does not answer: ConnectionError";
    spark.py, spark_master.py: "<url>: ConnectError: ..."): a service condition, not a bug."""
    import httpx

    bases: list[type] = [ConnectionError, TimeoutError, httpx.TransportError, httpx.HTTPStatusError]
    for module, names in (("requests", ("ConnectionError", "Timeout", "HTTPError")),
                          ("botocore.exceptions", ("ConnectionError", "HTTPClientError")),
                          ("kazoo.exceptions", ("ConnectionLoss", "SessionExpiredError", "OperationTimeoutError"))):
        try:
            found = importlib.import_module(module)
        except ImportError:  # an extra this install lacks: its errors cannot occur
            continue
        bases += [getattr(found, name) for name in names]
    names, todo = set(), list(bases)
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo += cls.__subclasses__()
    return frozenset(names)


NETWORK_ERRORS = _network_errors()

# The one client condition `check` names that is not the service's: librdkafka crashing the
# forked child every time (backends/kafka/isolated.py). Accepted only where a test forces it.
CLIENT_CRASHED = re.compile(r"the Kafka client crashed( or hung starting)? \d+ times")


def bug_marker(text: str) -> str | None:
    """The words in `text` that only a bug in streamctl writes, or None."""
    for found in PYTHON_EXCEPTION.finditer(text):
        if found.group(0) not in NETWORK_ERRORS:
            return found.group(0)
    found = BUG_WORDS.search(text)
    return found.group(0) if found else None


def is_service_condition(reason: str, also: re.Pattern | None = None) -> bool:
    """A reason that names what the service did (or, with `also`, that condition), and neither a
    bug nor an exception no collector translated."""
    named = SERVICE_CONDITION.search(reason) or (also is not None and also.search(reason))
    return bool(named) and bug_marker(reason) is None and not UNTRANSLATED.match(reason)


def unevaluated(doc: dict) -> dict[str, str]:
    """component -> why it was not evaluated, from a `check --format json` document."""
    return {name: part["reason"] for name, part in doc["components"].items() if not part["evaluated"]}


def problem_lines(doc: dict) -> str:
    """What the Nagios output lists below its first line, from the JSON document: every
    finding that is not OK, then every component not evaluated."""
    lines = [f"[{f['severity']}] {f['component']} {f['object']}: {f['text']}"
             for f in doc["findings"] if f["severity"] != "OK"]
    lines += [f"[UNKNOWN] {name} not evaluated: {why}" for name, why in unevaluated(doc).items()]
    return "\n".join(lines)


def assert_unknowns_are_service_conditions(doc: dict, shown: str = "", also: re.Pattern | None = None) -> None:
    """Every component not evaluated names a service condition; no UNKNOWN finding names a bug."""
    shown = shown or json.dumps(doc)[:3000]
    for name, why in unevaluated(doc).items():
        assert is_service_condition(why, also), f"{name} not evaluated for no service condition: {why!r}\n{shown}"
    for finding in doc["findings"]:
        if finding["severity"] == "UNKNOWN":
            marker = bug_marker(finding["text"])
            assert marker is None, f"a bug ({marker}) in an UNKNOWN finding: {finding['text']!r}\n{shown}"
