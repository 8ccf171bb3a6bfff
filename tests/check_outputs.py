"""Reading `check`'s outputs back in tests: the JSON document against docs/check-json-schema.json,
the Prometheus textfile as samples."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

SCHEMA_PATH = Path(__file__).parents[1] / "docs" / "check-json-schema.json"

# A fallback for the JSON Schema subset docs/check-json-schema.json uses (jsonschema is no
# dependency); tests/unit/check/test_check_render.py keeps the schema inside that subset.
VALIDATED = {"$ref", "type", "const", "enum", "pattern", "required", "properties",
             "additionalProperties", "items"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
         "integer": int, "number": (int, float)}


def schema_errors(doc) -> list[str]:
    schema = json.loads(SCHEMA_PATH.read_text())
    try:
        import jsonschema
    except ImportError:
        return _errors(doc, schema, schema, "$")
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]


def _errors(value, schema: dict, root: dict, path: str) -> list[str]:
    errors = []
    if "$ref" in schema:
        errors += _errors(value, root["$defs"][schema["$ref"].removeprefix("#/$defs/")], root, path)
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        is_bool_as_number = isinstance(value, bool) and "boolean" not in types
        if is_bool_as_number or not any(isinstance(value, TYPES[t]) for t in types):
            return [*errors, f"{path}: {value!r} is not {types}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: {value!r} != {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        errors.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, dict):
        errors += [f"{path}: missing {key}" for key in schema.get("required", []) if key not in value]
        properties, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                errors += _errors(item, properties[key], root, f"{path}.{key}")
            elif extra is False:
                errors.append(f"{path}: unexpected key {key}")
            elif isinstance(extra, dict):
                errors += _errors(item, extra, root, f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += _errors(item, schema["items"], root, f"{path}[{i}]")
    return errors


def samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}
