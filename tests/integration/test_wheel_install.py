"""The wheel, installed (not editable) into a fresh venv, works from outside the checkout.

An editable install hides a package missing from the wheel (it once lacked streamctl.commands,
.ops and .collectors): this builds the wheel as pip would, installs it with its dependencies
into a new venv and runs the commands an operator runs first on an ops host.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from streamctl.cli import COMMANDS

ROOT = Path(__file__).parents[2]
CHECKPOINT = ROOT / "tests" / "fixtures" / "spark" / "checkpoint-weblog-stats"

pytestmark = pytest.mark.integration


def _run(argv, cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The `bin/` of a fresh venv holding the wheel built from this checkout."""
    tmp = tmp_path_factory.mktemp("wheel")
    built = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp / "dist", ROOT], cwd=tmp)
    assert built.returncode == 0, built.stderr
    wheel = next((tmp / "dist").glob("streamctl-*.whl"))
    _run([sys.executable, "-m", "venv", tmp / "venv"], cwd=tmp).check_returncode()
    bin_dir = tmp / "venv" / "bin"
    install = _run([bin_dir / "pip", "install", "-q", wheel], cwd=tmp)
    assert install.returncode == 0, install.stderr
    return bin_dir


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, **extra}


def test_the_package_comes_from_the_venv_not_the_checkout(installed, tmp_path):
    script = "import streamctl.tui.app, streamctl.backends.kafka.cluster as k; print(k.__file__)"
    where = _run([installed / "python", "-c", script],
                 cwd=tmp_path, env=_clean_env())
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(installed.parent), where.stdout


def test_every_command_group_answers_help(installed, tmp_path):
    top = _run([installed / "streamctl", "--help"], cwd=tmp_path, env=_clean_env())
    assert top.returncode == 0, top.stderr
    for name in COMMANDS:
        assert name in top.stdout
        result = _run([installed / "streamctl", name, "--help"], cwd=tmp_path, env=_clean_env())
        assert result.returncode == 0, f"{name}: {result.stderr}"
        assert "Usage: streamctl" in result.stdout


def test_lint_of_the_shipped_agent_and_a_checkpoint_read(installed, tmp_path):
    agent = _run([installed / "python", "-c",
                  "import pathlib, streamctl.agents as a; print(pathlib.Path(a.__file__).with_name('weblogs.properties'))"],
                 cwd=tmp_path, env=_clean_env()).stdout.strip()
    lint = _run([installed / "streamctl", "agents", "lint", agent], cwd=tmp_path, env=_clean_env())
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert lint.stdout.strip() == f"{agent}: OK"
    checkpoint = _run([installed / "streamctl", "jobs", "checkpoint", CHECKPOINT, "-o", "json"],
                      cwd=tmp_path, env=_clean_env())
    assert checkpoint.returncode == 0, checkpoint.stderr
    assert json.loads(checkpoint.stdout)["latest_committed"] == 32


def test_the_sandbox_add_ons_load_and_find_the_demo_files(installed, tmp_path):
    """What `sandbox up` reads from the wheel: every add-on (streamctl/demo/, through the registry),
    the Streams app's source and the shipped Spark job (jobs/), the agent definitions (agents/)."""
    code = ("from importlib import resources\n"
            "from streamctl.sandbox.addons import addons\n"
            "from streamctl.demo.streams_app import SOURCE\n"
            "from streamctl.flume.launcher import shipped_definition\n"
            "from streamctl.spark.launcher import SHIPPED\n"
            "print(' '.join(a.role for a in addons()))\n"
            "print(SOURCE.is_file(), all(resources.files('streamctl.jobs').joinpath(script).is_file()\n"
            "                            for script, _ in SHIPPED.values()), 'KafkaSink' in shipped_definition('weblogs'))\n")
    result = _run([installed / "python", "-c", code], cwd=tmp_path, env=_clean_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["hdfs flume spark-cluster spark streams connect", "True True True"]


def test_check_against_the_sandbox(installed, sandbox, tmp_path):
    env = _clean_env(XDG_STATE_HOME=str(tmp_path / "state"), STREAMCTL_CONFIG=str(sandbox.config_path))
    result = _run([installed / "streamctl", "check", "--component", "kafka"], cwd=tmp_path, env=env, timeout=60)
    # Other tests leave lagging groups on the session's sandbox: any judged state will do, as
    # long as the installed check read the cluster (all three brokers in its perfdata).
    assert result.returncode in (0, 1, 2), result.stdout + result.stderr
    assert result.stdout.startswith("STREAMCTL ") and "'kafka_brokers'=3;" in result.stdout
