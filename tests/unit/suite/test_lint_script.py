"""scripts/lint lays the folders out as the installed package and maps mypy's paths back."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import tomllib

from tests import repo

ROOT = repo.ROOT


def lint_script():
    loader = importlib.machinery.SourceFileLoader("lint_script", str(ROOT / "scripts" / "lint"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("lint_script", loader))
    loader.exec_module(module)
    return module


def test_the_layout_is_the_installed_package(tmp_path):
    lint_script().lay_out(tmp_path)
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in mapping.items():
        for module in (ROOT / folder).glob("*.py"):
            laid = tmp_path.joinpath(*package.split("."), module.name)
            assert laid.is_symlink() and laid.resolve() == module.resolve(), laid
    assert not list(tmp_path.rglob("__pycache__"))


def test_mypy_paths_point_back_into_the_repository():
    rewrite = lint_script().repository_path
    assert rewrite("streamctl/backends/kafka.py:3: error: x") == "backends/kafka.py:3: error: x"
    assert rewrite("streamctl/tui/screens/base.py:1: note: y") == "tui/screens/base.py:1: note: y"
    assert rewrite("streamctl/check/render.py:9: error: z") == "streamctl/check/render.py:9: error: z"
    assert rewrite("Found 2 errors") == "Found 2 errors"
