"""The load generator writes whole combined-format lines at the asked rate."""

from __future__ import annotations

import re
import subprocess
import sys
import time

from streamctl.agents import loadgen

COMBINED = re.compile(
    r'^\d{1,3}(\.\d{1,3}){3} - \S+ \[\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] '
    r'"(GET|POST|PUT|DELETE) /\S* HTTP/1\.1" \d{3} \d+ "[^"]*" "[^"]*"$')


def test_lines_are_combined_log_format(tmp_path):
    path = tmp_path / "access.log"
    written = loadgen.run(path, rate=500, count=300, seed=7)
    lines = path.read_text().splitlines()
    assert written == 300 and len(lines) == 300
    assert all(COMBINED.match(line) for line in lines), next(l for l in lines if not COMBINED.match(l))
    assert len(set(lines)) > 250


def test_rate_is_kept(tmp_path):
    path = tmp_path / "access.log"
    started = time.monotonic()
    loadgen.run(path, rate=40, count=60)
    took = time.monotonic() - started
    assert 1.2 < took < 2.5  # 60 lines at 40/s: 1.5 s


def test_module_entry_point_and_bad_rate(tmp_path):
    path = tmp_path / "sub" / "access.log"
    ok = subprocess.run([sys.executable, "-m", "streamctl.agents.loadgen", "--file", str(path),
                         "--rate", "1000", "--count", "25"], capture_output=True, text=True, timeout=30)
    assert ok.returncode == 0, ok.stderr
    assert len(path.read_text().splitlines()) == 25
    bad = subprocess.run([sys.executable, "-m", "streamctl.agents.loadgen", "--file", str(path),
                          "--rate", "0"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "--rate must be positive" in bad.stderr
