"""Headless modules must not drag in the UI or pyspark: cron pays for every import."""

from __future__ import annotations

import importlib
import os
import pkgutil
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests import repo
from tests.repo import packages

ROOT = repo.ROOT

UI = "streamctl.tui"
SPARK_JOB = "streamctl.jobs.weblog_stats"  # runs inside spark-submit: the one pyspark importer


def headless_modules(package: str) -> list[str]:
    """The package's own modules (not its subpackages'), minus the TUI and the Spark job."""
    folder = Path(importlib.import_module(package).__path__[0])
    names = [package] + [f"{package}.{info.name}" for info in pkgutil.iter_modules([str(folder)]) if not info.ispkg]
    return [name for name in names if not name.startswith(UI) and name != SPARK_JOB]


def test_every_folder_with_modules_is_a_package():
    """A folder of modules without __init__.py would be missing from the wheel."""
    for package in packages():
        folder = Path(importlib.import_module(package).__path__[0])
        for child in folder.iterdir():
            if child.is_dir() and any(child.glob("*.py")):
                assert (child / "__init__.py").exists(), f"{child} has modules but no __init__.py"


@pytest.mark.parametrize("package", [p for p in packages() if not p.startswith(UI)])
def test_headless_modules_import_without_textual_or_pyspark(package):
    modules = headless_modules(package)
    code = (
        f"import sys, importlib\nfor m in {modules!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'pyspark'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def _installed_layout(target: Path) -> Path:
    """Lay the sources out as the wheel installs them (pyproject's package-dir mapping).

    import-linter walks folders, and in the repository `streamctl.backends` lives in
    `backends/`; in the laid-out copy it sits at `streamctl/backends/` as installed.
    """
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in sorted(mapping.items()):
        destination = target.joinpath(*package.split("."))
        shutil.copytree(ROOT / folder, destination, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_import_linter_contracts_hold(tmp_path):
    layout = _installed_layout(tmp_path)
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([lint_imports, ROOT / "pyproject.toml"],
                            capture_output=True, text=True, cwd=layout,
                            env={**os.environ, "PYTHONPATH": str(layout)})
    assert result.returncode == 0, result.stdout + result.stderr
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert f"Contracts: {len(contracts)} kept, 0 broken." in result.stdout


def test_jobs_state_rows_leaves_pyspark_to_its_child_process(tmp_path):
    """`jobs state --rows` runs its Spark session in a child; the CLI's process never imports pyspark
    (the child is replaced by a recorded answer here: the read itself is tested on the sandbox)."""
    checkpoint = shutil.copytree(repo.FIXTURES / "spark" / "checkpoint-weblog-stats", tmp_path / "cp")
    answer = {"operators": [], "key_columns": ["status_class"], "value_columns": ["count"], "total": 1,
              "rows": [{"status_class": "2xx", "count": 1, "partition_id": 0}], "startup_seconds": 6.0,
              "read_seconds": 1.0}
    code = (
        "import sys\nfrom streamctl.spark import state_rows\n"
        f"state_rows.run_reader = lambda args, timeout: {answer!r}\n"
        "from streamctl.cli import main\n"
        f"code = main(['jobs', 'state', {str(checkpoint)!r}, '--rows', '-o', 'json'])\n"
        "print('exit', code, 'pyspark' in sys.modules, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stderr.splitlines()[-1] == "exit 0 False", result.stderr
    assert '"status_class": "2xx"' in result.stdout


def test_reassign_plan_loads_no_librdkafka_and_no_ui(tmp_path):
    """`reassign plan` reads through kafka-python in its own process (no forked child): it must
    then load no librdkafka (nothing to isolate) and, for -o json, neither Rich nor Textual
    (the reads are replaced by a recorded answer here: they are tested on the sandbox)."""
    config = tmp_path / "config.yaml"
    config.write_text("current-context: c\ncontexts:\n  c:\n    kafka:\n      bootstrap_servers: 127.0.0.1:1\n")
    layout = {"brokers": {1: None, 2: None, 3: None},
              "replicas": {("t", 0): [1, 2], ("t", 1): [2, 1], ("t", 2): [1, 2], ("t", 3): [2, 1]}}
    sizes = {(b, "t", p): 1000 * (p + 1) for (_, p), replicas in layout["replicas"].items() for b in replicas}
    code = (
        "import sys\nfrom streamctl.backends.kafka.reassign_admin import ReassignAdmin\n"
        f"ReassignAdmin.layout_and_sizes = lambda self: ({layout!r}, {sizes!r})\n"
        "from streamctl.cli import main\n"
        f"code = main(['--config', {str(config)!r}, 'reassign', 'plan', '--rebalance', '-o', 'json'])\n"
        "loaded = [m for m in ('confluent_kafka', 'textual', 'rich') if m in sys.modules]\n"
        "print('exit', code, loaded, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stderr.splitlines()[-1] == "exit 0 []", result.stderr
    assert "broker 3" in result.stdout or '"3"' in result.stdout, result.stdout
