"""Connector configs hold credentials: what is masked before anything is printed, logged or
audited. A key naming a password or secret, a `*.key` property, and any config-provider
reference (`${file:...}`, `${env:...}`) are shown as MASK."""

from __future__ import annotations

import re

MASK = "******"
_SECRET_WORDS = ("password", "secret", "credential", "token", "jaas")
_REFERENCE = re.compile(r"\$\{[^}]*\}")


def is_secret(key: str, value: object = "") -> bool:
    lowered = key.lower()
    if any(word in lowered for word in _SECRET_WORDS) or lowered.endswith(".key"):
        return True
    return isinstance(value, str) and bool(_REFERENCE.search(value))


def masked(config: dict[str, str]) -> dict[str, str]:
    return {key: MASK if is_secret(key, value) else value for key, value in config.items()}


def masked_text(text: str, config: dict[str, str]) -> str:
    """A worker's message (a validation error, a trace) with the config's secret values removed."""
    for key, value in config.items():
        if is_secret(key, value) and isinstance(value, str) and len(value) >= 3:
            text = text.replace(value, MASK)
    return text
