"""Each section of a context is modelled by the package that owns it; the file format stays small."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from pydantic import BaseModel

from streamctl.config import Context
from streamctl.settings_types import SettingsModel

OWNERS = {
    "kafka": "streamctl.kafka.settings",
    "include": "streamctl.kafka.settings",
    "exclude": "streamctl.kafka.settings",
    "records": "streamctl.kafka.settings",
    "zookeeper": "streamctl.zookeeper.settings",
    "flume": "streamctl.flume.settings",
    "spark": "streamctl.spark.settings",
    "connect": "streamctl.connect.settings",
    "pipeline": "streamctl.pipeline.settings",
    "thresholds": "streamctl.thresholds",
}
CONFIG_PACKAGE = Path(importlib.import_module("streamctl.config").__path__[0])
MAX_LINES = 400


def section_model(field: str) -> type[BaseModel] | None:
    """The settings model of a context's field (`X` or `X | None`), None for a plain value."""
    annotation = Context.model_fields[field].annotation
    candidates = [annotation, *getattr(annotation, "__args__", ())]
    return next((c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)), None)


def test_every_section_has_an_owner():
    assert {name for name in Context.model_fields if section_model(name)} == set(OWNERS)


@pytest.mark.parametrize("field", sorted(OWNERS))
def test_a_section_model_lives_with_its_owner(field):
    model = section_model(field)
    assert model.__module__ == OWNERS[field]
    assert getattr(importlib.import_module(OWNERS[field]), model.__name__) is model
    assert issubclass(model, SettingsModel)


@pytest.mark.parametrize("module", sorted(p.name for p in CONFIG_PACKAGE.glob("*.py")))
def test_the_file_format_modules_stay_small(module):
    lines = len((CONFIG_PACKAGE / module).read_text().splitlines())
    assert lines <= MAX_LINES, f"streamctl/config/{module}: {lines} lines"
