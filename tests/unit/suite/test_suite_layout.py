"""The test tree stays navigable: each test file name says what it tests once (no name repeats
across folders), and tests share code through helper modules, never by importing a test module
(importing one runs its module-level set-up and couples two suites)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from tests import repo

TESTS = repo.ROOT / "tests"


def repeated_names(paths) -> list[str]:
    counts = Counter(path.name for path in paths)
    return sorted(name for name, count in counts.items() if count > 1)


def test_module_imports(source: str) -> list[str]:
    """The test modules (`tests...test_*`, or relative `.test_*`) that `source` imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _is_test_module(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if _is_test_module(module):
                found.append(module)
            else:
                prefix = module + "." if node.module else module
                found += [prefix + alias.name for alias in node.names if _is_test_module(prefix + alias.name)]
    return found


def _is_test_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] in ("tests", "") and any(part.startswith("test_") for part in parts[1:])


test_module_imports.__test__ = False  # a helper, not a test


def test_no_test_file_name_repeats_across_folders():
    files = list(TESTS.rglob("test_*.py"))
    assert len(files) > 100
    assert repeated_names(files) == []


def test_no_module_imports_a_test_module():
    found = {str(path.relative_to(TESTS)): imported for path in TESTS.rglob("*.py")
             if (imported := test_module_imports(path.read_text()))}
    assert found == {}


def test_the_checks_catch_what_they_look_for():
    assert repeated_names([Path("unit/test_a.py"), Path("integration/test_a.py"), Path("unit/test_b.py")]) == ["test_a.py"]
    assert test_module_imports("from tests.tui.test_dashboard_live import app_for\n"
                               "import tests.unit.test_check_render\n"
                               "from tests.security import test_read_only\n"
                               "from tests.tui.live_dashboard import app_for\n"
                               "from .test_x import y\n"
                               "from . import test_z\n") == [
        "tests.tui.test_dashboard_live", "tests.unit.test_check_render", "tests.security.test_read_only",
        ".test_x", ".test_z"]
