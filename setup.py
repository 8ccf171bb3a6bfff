"""Packages found by setuptools under each folder that pyproject's package-dir maps.

pyproject.toml cannot express "find under backends/ and name it streamctl.backends", so the
mapping stays there and this file only runs setuptools' find once per mapped folder.
"""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).parent
PACKAGE_DIR = tomllib.loads((HERE / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]


def packages() -> list[str]:
    found = set(PACKAGE_DIR)
    for package, folder in PACKAGE_DIR.items():
        found.update(f"{package}.{sub}" for sub in find_packages(str(HERE / folder)))
    return sorted(found)


setup(packages=packages())
