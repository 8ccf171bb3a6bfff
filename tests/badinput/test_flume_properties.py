"""Bad Flume agent definitions through `streamctl agents lint`: an unreadable file is one error
line (exit 3); a readable one gets one `FILE:LINE: key: problem` line per problem (exit 1)."""

from __future__ import annotations

import pytest

from tests.badinput.harness import Case, Workspace, ids, run_case

F = "{ws}/agent.properties"
NOT_FLUME = "not a Flume setting (expected AGENT.sources|channels|sinks|sinkgroups|configfilters[.NAME.PROPERTY])"


def lint(id: str, content: str | bytes | None, error: str | None = None, problems: tuple[str, ...] = (),
         output: str = "table") -> Case:
    files = {} if content is None else {"agent.properties": content}
    stdout = "".join(f"{F}:{p}\n" for p in problems)
    return Case(id, ("agents", "lint", F, "-o", output), error, code=3 if error else 1, files=files,
                stdout="" if error else stdout)


CASES = [
    lint("no such file", None, f"{F}: no such file"),
    lint("no such file json", None, f"{F}: no such file", output="json"),
    Case("a directory", ("agents", "lint", "{ws}/agents"), "{ws}/agents: is a directory", files={"agents/x": ""}),
    lint("not utf-8", b"a1.sources = r1\n\xff\xfe\n", f"{F}: not UTF-8 text"),
    lint("empty file", "", problems=("1: (file): no agent defined",)),
    lint("comments only", "# a1.sources = r1\n! a1.channels = c1\n\n", problems=("1: (file): no agent defined",)),
    lint("malformed unicode escape", "a1.channels = c1\na1.channels.c1.type = mem\\u00\n", problems=(
        "1: a1.sources: no sources or sinks declared (Flume drops the whole agent)",
        "2: a1.channels.c1: channel is not bound to any source or sink",
        "2: a1.channels.c1.type: malformed \\uXXXX escape: Flume (java.util.Properties) refuses to load the whole file",
        "2: a1.channels.c1.type: unknown channel type 'memu00'",
    )),
    lint("escaped newline in a key", "a1.sou\\nrces = r1\na1.channels = c1\na1.channels.c1.type = memory\n", problems=(
        f"1: a1.sou\\nrces: {NOT_FLUME}",
        "2: a1.sources: no sources or sinks declared (Flume drops the whole agent)",
        "3: a1.channels.c1: channel is not bound to any source or sink",
    )),
    lint("nul in a name", "a1.channels = c1\x00\na1.channels.c1\x00.type = memory\n", problems=(
        "1: a1.sources: no sources or sinks declared (Flume drops the whole agent)",
        "2: a1.channels.c1\\x00: channel is not bound to any source or sink",
    )),
    lint("keys without names", "=value\n:\n", problems=(f"2: : {NOT_FLUME}", "2: : set again; the value on line 1 is ignored")),
    lint("continuation at end of file", "a1.channels = c1\na1.channels.c1.type = memory\na1.sinks = k1 \\", problems=(
        "2: a1.channels.c1: channel is not bound to any source or sink",
        "3: a1.sinks: sink 'k1' is declared but never configured",
    )),
    lint("duplicate key", "a1.sources = r1\na1.channels = c1\na1.sources.r1.type = netcat\na1.sources.r1.bind = h\n"
                          "a1.sources.r1.port = 1\na1.sources.r1.channels = c1\na1.channels.c1.type = memory\n"
                          "a1.channels.c1.type = memroy\n", problems=(
        "8: a1.channels.c1.type: set again; the value on line 7 is ignored",
        "8: a1.channels.c1.type: unknown channel type 'memroy'",
    )),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_flume_properties(case, tmp_path):
    run_case(case, Workspace(tmp_path))
