"""Building blocks of every system's settings model: the base model and shared field types.

Each system's `settings.py` builds its section of a context from these; `streamctl.config`
assembles the sections into the file's shape.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, TypeVar
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class SettingsModel(BaseModel):
    """A section of the config file: unknown keys refused, keys in snake_case or kebab-case."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=_kebab,
        populate_by_name=True,
    )


def none_as_empty(value: Any) -> Any:
    return {} if value is None else value


# An empty YAML section (`flume:` with nothing under it) means the defaults.
_T = TypeVar("_T")
Section = Annotated[_T, BeforeValidator(none_as_empty)]


def _check_http_url(value: str | None) -> str | None:
    if value is None:
        return value
    if not value.startswith(("http://", "https://")):
        raise ValueError("must be an http:// or https:// URL")
    if "${" in value:
        return value  # a reference left unresolved (validating a file to save)
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not 0-65535
    except ValueError as exc:
        raise ValueError(f"not a valid URL ({exc})") from None
    if not parts.hostname:
        raise ValueError("the URL names no host")
    return value


def _expand_path(value: Any) -> Any:
    return Path(value).expanduser() if isinstance(value, str) else value


HttpUrl = Annotated[str, AfterValidator(_check_http_url)]
UserPath = Annotated[Path, BeforeValidator(_expand_path)]
