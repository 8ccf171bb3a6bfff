"""Masking: header names and JSON fields that hold credentials (and the context's
`records.mask` paths) are replaced by MASK before a record is shown or exported, and each
record says which it masked; a record to produce that still holds the mask is found here."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from streamctl.errors import UsageError
from streamctl.model.records import Record, headers_of, value_of

MASK = "******"
# Masked whatever the context says: header names and JSON fields that hold credentials.
# One pattern for password, passwd and passwort: each name costs a scan of every value read.
SECRET_NAMES = ("*passw*", "*secret*", "*token*", "authorization", "*api_key*", "*apikey*")


def json_document(data: bytes | None):
    """The JSON document `data` holds, or None (not JSON, or nested past the recursion limit)."""
    if not data:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


@dataclass(frozen=True)
class Masker:
    """Masks `value.PATH` JSON fields and `headers.NAME` headers (fnmatch globs, case-insensitive),
    plus the obvious secret names."""

    value_paths: tuple[str, ...] = ()
    header_names: tuple[str, ...] = SECRET_NAMES
    field_names: tuple[str, ...] = SECRET_NAMES  # any JSON field so named, at any depth
    _needles: tuple[bytes, ...] = field(default=(), repr=False)

    @classmethod
    def from_config(cls, paths: Iterable[str] = ()) -> Masker:
        values, headers = [], list(SECRET_NAMES)
        for path in paths:
            kind, _, rest = path.partition(".")
            if kind == "value" and rest:
                values.append(rest)
            elif kind == "headers" and rest:
                headers.append(rest.lower())
            else:
                raise UsageError(f"mask: {path!r}: expected value.PATH or headers.NAME")
        # Bytes that must occur in a value for any field rule to apply: most values skip parsing.
        needles = {_needle(p) for p in values} | {_needle(n) for n in SECRET_NAMES}
        return cls(tuple(values), tuple(headers), SECRET_NAMES, tuple(sorted(needles)))

    def apply_all(self, batch: list[Record]) -> list[Record]:
        """apply() to a batch: one look at all its values when none can hold a field to mask,
        the common case (a record at a time, the check cost ~4 us of a read's ~15 us a record)."""
        if any(map(headers_of, batch)) or self._could_hold_a_field(b"\0".join(filter(None, map(value_of, batch)))):
            return [self.apply(r) for r in batch]
        return batch

    def apply(self, record: Record) -> Record:
        """The record with its secrets replaced by MASK, each replaced one named in `masked`."""
        masked = [f"headers.{k}" for k, _ in record.headers if self._secret_header(k)] if record.headers else []
        headers = tuple((k, MASK.encode() if self._secret_header(k) else v) for k, v in record.headers) \
            if masked else record.headers
        value = record.value
        if value and self._could_hold_a_field(value):
            document = json_document(value)
            fields: list[str] = []
            if isinstance(document, (dict, list)) and self._mask(document, "", fields):
                value = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
                masked += [f"value.{path}" for path in fields]
        if not masked:
            return record
        return record._replace(value=value, headers=headers, masked=tuple(masked))

    def _could_hold_a_field(self, value: bytes) -> bool:
        lowered = value.lower()
        return any(n in lowered for n in self._needles)

    def _secret_header(self, name: str) -> bool:
        return any(fnmatchcase(name.lower(), pattern) for pattern in self.header_names)

    def _mask(self, node, path: str, masked: list[str]) -> bool:
        """Masks `node`'s secret fields in place, appending each one's path to `masked`."""
        changed = False
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in list(items):
            here = f"{path}.{key}" if path else str(key)
            if any(fnmatchcase(here, p) for p in self.value_paths) or \
                    (isinstance(key, str) and any(fnmatchcase(key.lower(), n) for n in self.field_names)):
                node[key] = MASK
                masked.append(here)
                changed = True
            elif isinstance(child, (dict, list)):
                changed |= self._mask(child, here, masked)
        return changed


def masked_in(headers: tuple[tuple[str, bytes | None], ...], value: bytes | None) -> str | None:
    """The first header or JSON field of a record to produce that holds the mask itself
    (an export written before records carried their `masked` list): None when none does."""
    for name, data in headers:
        if data == MASK.encode():
            return f"headers.{name}"
    if value and MASK.encode() in value:
        return _masked_field(json_document(value), "value")
    return None


def _masked_field(node, path: str) -> str | None:
    if node == MASK:
        return path
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        if found := _masked_field(child, f"{path}.{key}"):
            return found
    return None


def _needle(path: str) -> bytes:
    """The longest literal part of a field path's names, lowercased (values are lowered before
    the search): a document whose fields the path matches holds it. b"" (always look) when the
    path is all wildcards."""
    names = [re.sub(r"\[[^\]]*\]", "*", name) for name in path.split(".") if not name.isdigit()]
    literals = [part.lower() for name in names for part in re.split(r"[*?]", name)]
    return max(literals, key=len, default="").encode()
