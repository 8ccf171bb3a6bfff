"""Writing: add, replace or remove one context, keeping the rest of the file as written."""

from __future__ import annotations

import itertools
import os
import stat
from pathlib import Path, PurePath
from typing import Any, Literal

from streamctl import paths
from streamctl.atomic import write_atomic
from streamctl.config.load import parse, read_text, validate
from streamctl.config.schema import ConfigError, known_contexts

# A writer never re-dumps the user's file: it edits the round-trip document (ruamel.yaml), so
# comments, key order, quoting and indentation stay as written, and the file keeps its mode.
CurrentPolicy = Literal["always", "if-unset", "never"]
NEW_FILE_MODE = 0o600  # a new config may come to hold secrets


def _round_trip() -> Any:
    from ruamel.yaml import YAML

    editor = YAML(typ="rt")
    editor.preserve_quotes = True
    editor.allow_duplicate_keys = True  # as the loader: the last one wins
    editor.width = 4096  # never re-wrap a long line
    return editor


def _read_document(path: Path) -> tuple[Any, Any]:
    """The file as an editable round-trip document (an empty one if the file does not exist),
    and the YAML editor set to the file's indentation."""
    from ruamel.yaml import YAMLError
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.util import load_yaml_guess_indent

    editor = _round_trip()
    text = read_text(path)
    if text is None:
        return CommentedMap(), editor
    data = parse(text, str(path), path.parent, "off")[0]  # broken YAML: the loader's one-line error
    if data is None:
        return CommentedMap(), editor
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping")
    try:
        document, sequence_indent, sequence_offset = load_yaml_guess_indent(text, yaml=editor)
    except YAMLError as exc:
        raise ConfigError(f"{path}: cannot edit: {str(exc).splitlines()[0]}") from None
    mapping_indent = _mapping_indent(text)
    editor.indent(mapping=mapping_indent, sequence=sequence_indent or mapping_indent,
                  offset=sequence_offset or 0)
    return document, editor


def _mapping_indent(text: str) -> int:
    """How far the file indents a nested mapping (2 when it has none)."""
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for line, following in itertools.pairwise(lines):
        depth = len(line) - len(line.lstrip(" "))
        deeper = len(following) - len(following.lstrip(" "))
        if line.rstrip().endswith(":") and deeper > depth and not following.lstrip().startswith("-"):
            return deeper - depth
    return 2


def _contexts_of(document: Any, path: Path) -> Any:
    from ruamel.yaml.comments import CommentedMap

    contexts = document.get("contexts")
    if contexts is None:
        contexts = document["contexts"] = CommentedMap()
    if not isinstance(contexts, dict):
        raise ConfigError(f"{path}: contexts must be a mapping")
    return contexts


def _current_key(document: Any) -> str:
    """Whichever spelling of current-context the file already uses."""
    return "current_context" if "current_context" in document else "current-context"


def _plain(value: Any) -> Any:
    """Data to write: paths as strings, the rest as given."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return str(value) if isinstance(value, PurePath) else value


def _commented(value: Any) -> Any:
    """Plain data as round-trip nodes, which can carry comments."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict):
        return CommentedMap((key, _commented(item)) for key, item in value.items())
    if isinstance(value, list):
        return CommentedSeq(_commented(item) for item in value)
    return value


def _last_item(node: Any) -> tuple[Any, Any] | None:
    """(container, key) of the last scalar item under `node`: the YAML editor keeps there the
    comment lines that follow `node` in the file (often the next section's heading)."""
    found = None
    while isinstance(node, dict | list) and node and hasattr(node, "ca"):
        key = next(reversed(node)) if isinstance(node, dict) else len(node) - 1
        found, node = (node, key), node[key]
    return found


def _comment_slot(container: Any) -> int:
    return 2 if isinstance(container, dict) else 0  # ruamel: after a map value / a list item


def _replace_keeping_what_follows(parent: Any, key: Any, value: Any) -> None:
    """parent[key] = value, keeping the comment lines that followed the old value."""
    new = _commented(value)
    old_last, new_last = _last_item(parent[key]), _last_item(new)
    if old_last and new_last:
        tokens = old_last[0].ca.items.get(old_last[1])
        comment = tokens[_comment_slot(old_last[0])] if tokens else None
        if comment is not None:
            slots = new_last[0].ca.items.setdefault(new_last[1], [None] * 4)
            slots[_comment_slot(new_last[0])] = comment
    parent[key] = new


def _write(document: Any, editor: Any, path: Path) -> None:
    """Validate the new content (references resolved where possible), then write it atomically,
    keeping the file's mode."""
    import io

    buffer = io.StringIO()
    editor.dump(document, buffer)
    text = buffer.getvalue()
    validate(text, f"{path} (unsaved)", path.parent, "lenient")
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    write_atomic(path, text, mode=mode)


def _target(path: Path | None) -> Path:
    """The file to edit; a symlinked config (a dotfiles checkout) is edited where it points."""
    return Path(os.path.realpath(paths.config_file(path)))


def _refuse_foreign(contexts: Any, name: str, managed_by: str, path: Path) -> None:
    existing = contexts.get(name)
    if existing is not None and not (isinstance(existing, dict) and existing.get("managed-by") == managed_by):
        raise ConfigError(f"{path}: context '{name}' was not written by {managed_by}; not replacing it "
                          f"(rename it, or add 'managed-by: {managed_by}' to it to let {managed_by} rewrite it)")


def check_context_replaceable(name: str, managed_by: str, path: Path | None = None) -> None:
    """Refuse, before anything else happens, a context `name` that `managed_by` did not write."""
    target = _target(path)
    document, _ = _read_document(target)
    _refuse_foreign(_contexts_of(document, target), name, managed_by, target)


def save_context(name: str, context_data: dict, path: Path | None = None, *,
                 current: CurrentPolicy = "if-unset", managed_by: str | None = None) -> bool:
    """Add or replace one context, keeping the rest of the file as written (comments, key
    order, quoting, indentation, mode). `current`: make it current-context "always", only when
    the file names none ("if-unset"), or "never". With `managed_by`, the context is marked as
    that writer's (`managed-by:`) and a context of that name without the mark is refused.
    Returns whether `name` is the current context afterwards."""
    target = _target(path)
    document, editor = _read_document(target)
    contexts = _contexts_of(document, target)
    data = _plain(context_data)
    if managed_by is not None:
        _refuse_foreign(contexts, name, managed_by, target)
        data = {"managed-by": managed_by, **data}
    if name in contexts:
        _replace_keeping_what_follows(contexts, name, data)
    else:
        contexts[name] = _commented(data)
    key = _current_key(document)
    if current == "always" or (current == "if-unset" and not document.get(key)):
        if key in document:
            document[key] = name
        else:
            document.insert(0, key, name)
    _write(document, editor, target)
    return document.get(key) == name


def _document_naming(name: str, path: Path | None) -> tuple[Path, Any, Any, Any]:
    """The file to edit, its document, editor and contexts; refused unless it has context `name`."""
    target = _target(path)
    document, editor = _read_document(target)
    contexts = _contexts_of(document, target)
    if name not in contexts:
        raise ConfigError(f"no context '{name}' in {target} ({known_contexts(contexts)})")
    return target, document, editor, contexts


def remove_context(name: str, path: Path | None = None) -> None:
    """Delete one context; unset current-context if it pointed at it."""
    target, document, editor, contexts = _document_naming(name, path)
    del contexts[name]
    if document.get(_current_key(document)) == name:
        del document[_current_key(document)]
    _write(document, editor, target)


def remove_managed_context(name: str, managed_by: str, path: Path | None = None) -> bool:
    """Delete context `name` if `managed_by` wrote it (a user's context of that name stays, as does
    a file without it); unset current-context if it pointed at it. Returns whether it was removed."""
    target = _target(path)
    document, editor = _read_document(target)
    contexts = document.get("contexts")
    existing = contexts.get(name) if isinstance(contexts, dict) else None
    if not (isinstance(existing, dict) and existing.get("managed-by") == managed_by):
        return False
    del contexts[name]
    if document.get(_current_key(document)) == name:
        del document[_current_key(document)]
    _write(document, editor, target)
    return True


def use_context(name: str, path: Path | None = None) -> None:
    """Make `name` the current-context, keeping the rest of the file as written."""
    target, document, editor, _ = _document_naming(name, path)
    key = _current_key(document)
    if key in document:
        document[key] = name
    else:
        document.insert(0, key, name)
    _write(document, editor, target)
