"""The test tree stays navigable. At the top, one folder per kind of test (unit/, badinput/, tui/,
security/, faults/, integration/: the suite's markers and speed tiers); under unit/, the package
layout: a test of `streamctl.kafka.lag` is in unit/kafka/lag/, one of `streamctl.backends.kafka`
(the folder backends/kafka/) in unit/backends/kafka/, one of a top-level module such as
`streamctl.times` in unit/ itself, and the tests of the test suite itself in unit/suite/. Each
test file name says what it tests once (no name repeats across folders), and tests share code
through helper modules, never by importing a test module (importing one runs its module-level
set-up and couples two suites)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from tests import repo

TESTS = repo.ROOT / "tests"
UNIT = TESTS / "unit"
SUITE = "suite"  # unit/suite/: the tests of the test suite itself (layout, guards, lint script)


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


def misplaced(files: dict[Path, str], packages: set[str], top_modules: set[str]) -> list[str]:
    """The test files (path under unit/: source) whose folder is not a product package, or that
    import nothing of the package their folder names; at unit/'s top, those whose name does not
    start with a top-level module's (test_times*.py: streamctl/times.py). unit/suite/ is free."""
    found = []
    for path, source in files.items():
        folder = path.parent.parts
        if not folder:
            if not any(path.stem == f"test_{module}" or path.stem.startswith(f"test_{module}_")
                       for module in top_modules):
                found.append(f"{path}: no top-level module streamctl.{path.stem.removeprefix('test_')}")
            continue
        if folder[0] == SUITE:
            continue
        package = ".".join(("streamctl", *folder))
        if package not in packages:
            found.append(f"{path}: no package {package}")
        elif not any(name == package or name.startswith(package + ".") for name in imported_modules(source)):
            found.append(f"{path}: imports nothing of {package}")
    return sorted(found)


def imported_modules(source: str) -> set[str]:
    """Every module `source` imports, at any depth, `from a import b` giving both a and a.b."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_test_file_name_repeats_across_folders():
    files = list(TESTS.rglob("test_*.py"))
    assert len(files) > 100
    assert repeated_names(files) == []


def test_no_module_imports_a_test_module():
    found = {str(path.relative_to(TESTS)): imported for path in TESTS.rglob("*.py")
             if (imported := test_module_imports(path.read_text()))}
    assert found == {}


def test_unit_tests_mirror_the_package_layout():
    files = {path.relative_to(UNIT): path.read_text() for path in UNIT.rglob("test_*.py")}
    assert len(files) > 50
    top_modules = {path.stem for path in (repo.ROOT / "streamctl").glob("*.py") if path.stem != "__init__"}
    assert misplaced(files, set(repo.packages()), top_modules) == []


def test_every_unit_folder_is_a_package_of_the_suite():
    """A folder without its __init__.py would hold tests under a bare module name: two files of one
    name in two such folders would clash."""
    folders = [path for path in UNIT.rglob("*") if path.is_dir() and path.name != "__pycache__"]
    assert len(folders) > 10
    assert [str(f.relative_to(UNIT)) for f in folders if not (f / "__init__.py").is_file()] == []


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
    packages = {"streamctl.kafka", "streamctl.kafka.lag", "streamctl.backends.kafka"}
    assert misplaced({Path("kafka/lag/test_store.py"): "from streamctl.kafka.lag.store import LagStore\n",
                      Path("backends/kafka/test_admin.py"): "from streamctl.backends import kafka\n",
                      Path("kafka/test_quorum.py"): "def test_x():\n    import streamctl.kafka.quorum\n",
                      Path("test_times.py"): "from streamctl import times\n",
                      Path("suite/test_lint.py"): "import subprocess\n",
                      Path("kafka/lags/test_store.py"): "from streamctl.kafka.lag.store import LagStore\n",
                      Path("kafka/lag/test_topics.py"): "from streamctl.kafka.topics import plans\n",
                      Path("kafka/test_rules.py"): "from streamctl.kafka_rules import x\n",
                      Path("test_times_parsing.py"): "from streamctl import times\n",
                      Path("test_sandbox_fetch.py"): "from streamctl.sandbox import addons\n"},
                     packages, {"times", "cli"}) == [
        "kafka/lag/test_topics.py: imports nothing of streamctl.kafka.lag",
        "kafka/lags/test_store.py: no package streamctl.kafka.lags",
        "kafka/test_rules.py: imports nothing of streamctl.kafka",
        "test_sandbox_fetch.py: no top-level module streamctl.sandbox_fetch"]
