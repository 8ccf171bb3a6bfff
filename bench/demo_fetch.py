#!/usr/bin/env python3
"""Benchmark: `make demo` on a fresh machine, as a new user meets it: empty caches.

    .venv/bin/python -m bench.demo_fetch [--baseline OTHER/.venv/bin/streamctl] [--install] [--up]
                                         [--tmp DIR] [--keep]

Times `streamctl sandbox fetch` with an empty jar cache (XDG_CACHE_HOME) and an empty Maven
repository (-Dmaven.repo.local in MAVEN_OPTS), both in a fresh folder under --tmp, so the shared
caches are neither used nor touched. --baseline times another checkout's streamctl the same way
first (e.g. main's, to compare). --install also times the venv install before the fetch (a new
venv, `pip install -e .[all]` with an empty pip cache: the first step of `make demo`); --up
times `sandbox up` after it, then `sandbox down --wipe` (XDG_STATE_HOME and XDG_CONFIG_HOME in
the same folder; it starts JVMs: run it through the machine's slot for sandboxes). Each step
runs once: the network dominates and varies, so compare runs made back to back. The folders
(several hundred MB) are deleted at the end unless --keep.
Target: the whole cold `make demo` path under 4 minutes.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STREAMCTL = str(Path(sys.executable).with_name("streamctl"))
TARGET_S = 240.0


def fresh_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "STREAMCTL_CONFIG"}
    env.update(XDG_CACHE_HOME=str(home / "cache"), XDG_STATE_HOME=str(home / "state"),
               XDG_CONFIG_HOME=str(home / "config"), PIP_CACHE_DIR=str(home / "pip-cache"),
               MAVEN_OPTS=f"{env.get('MAVEN_OPTS', '')} -Dmaven.repo.local={home / 'm2'}".strip())
    return env


def step(title: str, argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (the command's processes) of one run; exits on a failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{title} failed ({result.returncode}): {result.stderr[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"  {title:<28} {wall:7.1f} s   (CPU {cpu:6.1f} s)", flush=True)
    return wall, cpu


def megabytes(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6 if folder.exists() else 0.0


def measure(label: str, streamctl: str, tmp: Path, keep: bool, install: bool, up: bool) -> float:
    home = Path(tempfile.mkdtemp(prefix="demofetch-", dir=tmp))
    env = fresh_env(home)
    print(f"{label}: {streamctl} in {home}")
    total = 0.0
    try:
        if install:
            venv = home / "venv"
            total += step("python -m venv", [sys.executable, "-m", "venv", str(venv)], env)[0]
            total += step("pip install -e .[all]", [str(venv / "bin" / "pip"), "install", "-q", "-e",
                                                    f"{REPO}[all]"], env)[0]
            streamctl = str(venv / "bin" / "streamctl")
        total += step("sandbox fetch", [streamctl, "sandbox", "fetch"], env)[0]
        print(f"  {'jars / Maven repository':<28} {megabytes(home / 'cache'):7.0f} MB / "
              f"{megabytes(home / 'm2'):.0f} MB")
        if up:
            try:
                total += step("sandbox up", [streamctl, "sandbox", "up"], env)[0]
            finally:
                subprocess.run([streamctl, "sandbox", "down", "--wipe"], env=env, capture_output=True,
                               timeout=300)
        return total
    finally:
        if not keep:
            shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="another checkout's streamctl, timed first the same way")
    parser.add_argument("--install", action="store_true", help="also time the venv install first")
    parser.add_argument("--up", action="store_true", help="also time `sandbox up` (starts JVMs)")
    parser.add_argument("--tmp", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--keep", action="store_true", help="keep the caches of each run")
    args = parser.parse_args()
    if shutil.which("mvn") is None:
        raise SystemExit("mvn not found: install Apache Maven (Debian: apt-get install maven)")
    results = {}
    if args.baseline:
        results["baseline"] = measure("baseline", args.baseline, args.tmp, args.keep, False, args.up)
    results["this checkout"] = measure("this checkout", STREAMCTL, args.tmp, args.keep, args.install, args.up)
    steps = " + ".join(["install"] * args.install + ["fetch"] + ["up"] * args.up)
    for label, seconds in results.items():
        print(f"{label:<14} {steps}: {seconds:6.1f} s")
    if "baseline" in results:
        print(f"saved: {results['baseline'] - results['this checkout']:.1f} s")
    met = results["this checkout"] < TARGET_S
    whole = args.install and args.up
    print(f"target: cold `make demo` < {TARGET_S:.0f} s: {'met' if met else 'not met'}"
          + ("" if whole else f" for {steps} alone (add --install --up for the whole path)"))


if __name__ == "__main__":
    main()
