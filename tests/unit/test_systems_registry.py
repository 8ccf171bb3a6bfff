"""The registry of systems (streamctl/systems.py) is the only list: what the system packages
declare is what the CLI, `check`, the sandbox, the dashboard and the pipeline map expose, and
nothing a system package holds (a collector, a top-level command, an add-on, a node kind, a
dashboard mode) goes undeclared."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import tomllib
import typing
from pathlib import Path

import click
import pytest

from streamctl import systems
from streamctl.sandbox.addons import Addon, start_order
from tests import repo

ROOT = repo.ROOT
DEMO = "streamctl.demo"  # where every sandbox add-on lives


def _folders() -> dict[str, Path]:
    """Import path -> folder of every mapped top-level folder (pyproject's package-dir)."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    return {package: ROOT / folder for package, folder in mapping.items()}


def _module_name(path: Path) -> str:
    """The import path of a source file under one of the mapped folders (the most specific)."""
    package, folder = max(((p, f) for p, f in _folders().items() if path.is_relative_to(f)),
                          key=lambda item: len(item[1].parts))
    return ".".join((package, *path.relative_to(folder).with_suffix("").parts))


def _sources() -> list[Path]:
    return sorted({p for folder in _folders().values() for p in folder.rglob("*.py") if "__pycache__" not in p.parts})


def _package_modules(package: str) -> list:
    """The package and every module under it, imported."""
    root = importlib.import_module(package)
    names = [info.name for info in pkgutil.walk_packages(root.__path__, f"{package}.")]
    return [root, *(importlib.import_module(name) for name in names)]


def _system_packages() -> list[str]:
    return [module.rpartition(".")[0] for module in systems.SYSTEMS]


def _declared_command_targets() -> set[str]:
    from streamctl.cli import OWN_COMMANDS

    return {*systems.commands().values(), *OWN_COMMANDS.values()}


# ---- the declarations ----------------------------------------------------------------------

def test_every_declaration_in_the_tree_is_registered_and_every_registered_one_exists():
    found = {_module_name(p) for p in _sources() if p.name == "system.py"}
    assert found == set(systems.SYSTEMS)
    for module in systems.SYSTEMS:
        assert isinstance(importlib.import_module(module).SYSTEM, systems.System), module


def test_names_are_unique_across_systems():
    from streamctl.cli import OWN_COMMANDS

    declared = systems.systems()
    assert len({s.name for s in declared}) == len(declared)
    commands = [name for s in declared for name in s.commands]
    assert len(set(commands)) == len(commands) and not set(commands) & set(OWN_COMMANDS)
    collectors = [name for s in declared for name in s.collectors]
    assert len(set(collectors)) == len(collectors)
    modes = [screen.mode for screen in systems.screens()]
    keys = [screen.key for screen in systems.screens() if screen.key]
    assert len(set(modes)) == len(modes) and "overview" not in modes
    assert len(set(keys)) == len(keys) and "1" not in keys  # 1: the Overview
    assert all(key in systems.MODE_KEYS or (len(key) == 1 and key.isalpha()) for key in keys)  # a digit, or a letter
    kinds = [kind for s in declared for kind in s.node_kinds]
    assert len(set(kinds)) == len(kinds)
    assert len(set(systems.addon_modules())) == len(systems.addon_modules())


def test_every_declared_name_resolves_to_what_its_user_expects():
    for name, target in systems.commands().items():
        assert isinstance(systems.load(target), click.Command), f"{name}: {target}"
    for name, module in systems.collectors().items():
        collector = importlib.import_module(module)
        assert callable(collector.collect) and callable(collector.configured) and collector.SECTION, name
    for screen in systems.screens():
        from textual.screen import Screen

        assert issubclass(systems.load(screen.target), Screen), screen.target
    for module in systems.addon_modules():
        assert module.startswith(f"{DEMO}.") and isinstance(importlib.import_module(module).ADDON, Addon), module
    modes = {screen.mode for screen in systems.screens()}
    for card in systems.cards():
        assert card.component in systems.collectors() and card.screen in modes, card
    assert set(systems.node_screens().values()) <= modes


# ---- nothing a system package holds goes undeclared -------------------------------------------

def test_every_collector_module_is_declared():
    shaped = {module.__name__ for package in _system_packages() for module in _package_modules(package)
              if callable(getattr(module, "collect", None)) and callable(getattr(module, "configured", None))
              and hasattr(module, "SECTION")}
    assert shaped == set(systems.collectors().values())


def test_every_top_level_command_of_a_system_package_is_declared():
    """A click command no group holds is one the CLI must name: it is declared, or unreachable."""
    commands = {id(obj): (module.__name__, name, obj) for package in _system_packages()
                for module in _package_modules(package) for name, obj in vars(module).items()
                if isinstance(obj, click.Command) and getattr(obj.callback, "__module__", None) == module.__name__}
    children = {id(child) for _, _, obj in commands.values() if isinstance(obj, click.Group)
                for child in obj.commands.values()}
    roots = {f"{module}:{name}" for key, (module, name, _) in commands.items() if key not in children}
    assert roots == set(systems.commands().values())


def test_every_sandbox_add_on_lives_in_the_demo_package_and_is_declared():
    defining = {_module_name(p) for p in _sources()
                if any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ADDON" for t in node.targets)
                       for node in ast.parse(p.read_text()).body)}
    assert defining == set(systems.addon_modules())
    assert all(module.startswith(f"{DEMO}.") for module in defining)


def test_every_pipeline_node_kind_is_declared():
    """A kind the pipeline builds (Node("<kind>", ...)) opens the screen its system declares."""
    built = set()
    for path in sorted((ROOT / "streamctl" / "pipeline").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Node" and node.args \
                    and isinstance(node.args[0], ast.Constant):
                built.add(node.args[0].value)
    assert built == set(systems.node_screens())


def test_every_screen_a_mode_can_show_is_a_mode():
    """A DataScreen built without arguments (what add_mode needs) is the Overview or declared."""
    from streamctl.tui.app import SCREENS
    from streamctl.tui.screens.base import DataScreen

    def modeless(cls) -> bool:
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
        return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)

    screens = {obj for module in _package_modules("streamctl.tui.screens") for obj in vars(module).values()
               if inspect.isclass(obj) and issubclass(obj, DataScreen) and obj is not DataScreen and modeless(obj)}
    assert screens == set(SCREENS.values())


# ---- the layers read their lists from the registry ----------------------------------------

def test_the_cli_exposes_exactly_the_declared_commands():
    from streamctl.cli import COMMANDS, OWN_COMMANDS, cli

    assert {**OWN_COMMANDS, **systems.commands()} == COMMANDS
    assert cli.list_commands(click.Context(cli)) == sorted(COMMANDS)
    assert set(COMMANDS.values()) == _declared_command_targets()


def test_check_evaluates_exactly_the_declared_collectors():
    from streamctl.check import evaluate

    assert systems.collectors() == evaluate.COLLECTORS
    assert evaluate.available() == list(systems.collectors())
    assert systems.opt_in_collectors() == evaluate.OPT_IN and {"quorum", "pipeline", "probe"} <= evaluate.OPT_IN
    # the default ones first, then the opt-in ones, each in the registry's order (check's output and help)
    declared = [(name, c.opt_in) for s in systems.systems() for name, c in s.collectors.items()]
    assert list(evaluate.COLLECTORS) == [n for n, opt_in in declared if not opt_in] + [n for n, opt_in in declared if opt_in]


def test_the_sandbox_starts_exactly_the_declared_add_ons_in_dependency_order():
    from streamctl.sandbox import addons

    assert systems.addon_modules() == addons.ADDON_MODULES
    shipped = ["hdfs", "flume", "spark-cluster", "spark", "streams", "connect"]  # the order they always started in
    assert [role for role in (a.role for a in addons.addons()) if role in shipped] == shipped
    for index, addon in enumerate(found := addons.addons()):
        assert set(addon.after) <= {a.role for a in found[:index]}, addon.role


def test_add_ons_waiting_on_each_other_are_refused():
    with pytest.raises(ValueError, match="wait on each other: a, b"):
        start_order([Addon("a", after=("b",)), Addon("b", after=("a",))])
    assert [a.role for a in start_order([Addon("a", after=("b", "absent")), Addon("b")])] == ["b", "a"]


def test_the_dashboard_shows_exactly_the_declared_screens_and_cards():
    from streamctl.tui.app import SCREENS, StreamctlApp
    from streamctl.tui.screens import overview

    assert list(SCREENS) == ["overview", *(s.mode for s in systems.screens())]
    keyed = [s for s in systems.screens() if s.key]
    modes = [b for b in StreamctlApp.BINDINGS if b.action.startswith("switch_mode")]
    assert [b.key for b in modes] == ["1", *(s.key for s in keyed)]
    assert [b.action for b in modes] == [f"switch_mode('{mode}')" for mode in ["overview", *(s.mode for s in keyed)]]
    assert [b.description for b in modes] == ["Overview", *(s.title for s in keyed)]
    assert tuple(c.component for c in systems.cards()) == overview.COMPONENTS
    assert {c.component: c.screen for c in systems.cards()} == overview.CARD_SCREENS
    assert overview.OPTIONAL == {c.component for c in systems.cards() if c.optional} >= {"connect"}
    assert set(overview.FIGURES) == set(overview.COMPONENTS)


def test_the_pipeline_map_opens_the_declared_screens():
    from streamctl.model import pipeline

    assert systems.node_screens() == pipeline.SCREENS


# Context fields that belong to no system: its own flags and the limits every system's rules read.
CONTEXT_OWN = {"managed_by", "read_only", "thresholds"}


def _models_in(annotation) -> set[type]:
    """The classes an annotation names (through Optional, Section[...] and the like)."""
    found = {annotation} if isinstance(annotation, type) else set()
    for argument in typing.get_args(annotation):
        found |= _models_in(argument)
    return found


def test_the_context_has_exactly_the_declared_settings_sections():
    from streamctl.config.schema import Context

    declared = {section: systems.load(target) for s in systems.systems() for section, target in s.settings.items()}
    sections = set(Context.model_fields) - CONTEXT_OWN
    assert sections == set(declared)
    for section, model in declared.items():
        assert model in _models_in(Context.model_fields[section].annotation), section
