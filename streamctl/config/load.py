"""Loading: text -> YAML node tree -> plain data (with `${...}` references resolved) -> the
file's models. The node tree is kept so that every error can name the file, line and dotted
key; errors are built from pydantic's `loc` and `msg` only, never from the input value, so a
secret cannot leak into a message."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ValidationError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from streamctl import paths
from streamctl.config.references import REFERENCE, Unresolved, resolve
from streamctl.config.schema import Config, ConfigError
from streamctl.connect.settings import TLS_FILE_FIELDS
from streamctl.kafka.settings import TLS_FILE_PROPERTIES

Mode = Literal["strict", "per-context", "lenient", "off"]


# ------------------------------------------------------------------ YAML -> data


def _dotted(parts: list[Any]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        elif str(part).startswith("["):
            out += str(part)  # pydantic's "[key]" marker
        else:
            out += f".{part}" if out else str(part)
    return out


class _Builder:
    """Builds plain data from a composed node tree, resolving `${...}` in string values.

    mode "strict" fails on an unresolvable reference, "per-context" too except inside a
    context, where the error is kept in `unresolved` (by context name) and the reference left
    as written: one context's unset variable must not break the others. "lenient" leaves every
    reference as written (validating a file to save), "off" keeps every string raw.
    """

    def __init__(self, label: str, base_dir: Path, mode: Mode) -> None:
        self.label = label
        self.base_dir = base_dir
        self.mode = mode
        self._constructor = yaml.SafeLoader("")
        self._active: set[int] = set()  # nodes being built: catches recursive aliases
        self.unresolved: dict[str, ConfigError] = {}  # context name -> its first unresolved reference

    def build(self, node: Node, path: tuple[Any, ...] = ()) -> Any:
        if id(node) in self._active:
            raise self._error(node, path, "recursive alias")
        self._active.add(id(node))
        try:
            if isinstance(node, MappingNode):
                return self._mapping(node, path)
            if isinstance(node, SequenceNode):
                self._check_tag(node, yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, path)
                return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
            return self._scalar(node, path)
        finally:
            self._active.discard(id(node))

    def _mapping(self, node: MappingNode, path: tuple[Any, ...]) -> dict[Any, Any]:
        self._check_tag(node, yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, path)
        self._constructor.flatten_mapping(node)  # applies `<<` merge keys in place
        data: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise self._error(key_node, path, "mapping keys must be plain scalars")
            key = self._constructor.construct_object(key_node)
            data[key] = self.build(value_node, (*path, key))
        return data

    def _scalar(self, node: Node, path: tuple[Any, ...]) -> Any:
        value = self._constructor.construct_object(node)
        if isinstance(value, str) and self.mode != "off":
            value = self._interpolate(value, node, path)
        return value

    def _interpolate(self, text: str, node: Node, path: tuple[Any, ...]) -> str:
        def substitute(match: re.Match[str]) -> str:
            if match.group(0) == "$${":
                return "${"
            ref, closed = match.group(1), match.group(2)
            if not closed:
                raise self._error(node, path, "unterminated '${' (write '$${' for a literal)")
            try:
                return resolve(ref, self.base_dir)
            except Unresolved as exc:
                if self.mode == "lenient":
                    return match.group(0)
                error = self._error(node, path, str(exc))
                if self.mode == "per-context" and len(path) > 2 and path[0] == "contexts":
                    self.unresolved.setdefault(str(path[1]), error)
                    return match.group(0)
                raise error from None

        return REFERENCE.sub(substitute, text)

    def _check_tag(self, node: Node, expected: str, path: tuple[Any, ...]) -> None:
        if node.tag != expected:
            raise self._error(node, path, f"unsupported tag '{node.tag}'")

    def _error(self, node: Node, path: tuple[Any, ...], message: str) -> ConfigError:
        where = f"{self.label}:{node.start_mark.line + 1}"
        key = f" {_dotted(list(path))}:" if path else ""
        return ConfigError(f"{where}:{key} {message}")


def _yaml_error(label: str, exc: yaml.YAMLError, text: str) -> ConfigError:
    """One line: file:line:col: invalid YAML: problem (never the offending text)."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "syntax error"
        if mark is not None:
            where = f"{label}:{mark.line + 1}:{mark.column + 1}"
            return ConfigError(f"{where}: invalid YAML: {problem}")
        return ConfigError(f"{label}: invalid YAML: {problem}")
    if isinstance(exc, yaml.reader.ReaderError):
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        problem = f"unacceptable character #x{exc.character:04x}"
        return ConfigError(f"{label}:{line}:{column}: invalid YAML: {problem}")
    return ConfigError(f"{label}: invalid YAML: {str(exc).splitlines()[0]}")


def parse(text: str, label: str, base_dir: Path, mode: Mode,
          unresolved: dict[str, ConfigError] | None = None) -> tuple[Any, Node | None]:
    """YAML text -> (plain data, root node); None data for an empty document. In mode
    "per-context", `unresolved` receives each context's unresolved reference."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        builder = _Builder(label, base_dir, mode)
        data = builder.build(root) if root is not None else None
        if unresolved is not None:
            unresolved.update(builder.unresolved)
    except yaml.YAMLError as exc:
        raise _yaml_error(label, exc, text) from None
    except RecursionError:  # PyYAML and the builder recurse once per nesting level
        raise ConfigError(f"{label}: invalid YAML: nested too deeply") from None
    return data, root


# ------------------------------------------------------ pydantic errors -> lines


def _child(node: Node | None, part: Any) -> tuple[ScalarNode | None, Node] | None:
    """The (key node, value node) that `part` of a pydantic loc refers to."""
    if isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        return None, node.value[part]
    if not isinstance(node, MappingNode):
        return None
    want = str(part)
    pairs = [(k, v) for k, v in reversed(node.value) if isinstance(k, ScalarNode)]  # last key wins
    for key_node, value_node in pairs:
        if key_node.value == want:
            return key_node, value_node
    for key_node, value_node in pairs:  # kebab vs snake spelling
        if key_node.value.replace("-", "_") == want.replace("-", "_"):
            return key_node, value_node
    return None


def _locate(root: Node | None, loc: tuple[Any, ...]) -> tuple[int | None, str]:
    """Line of the deepest key of `loc` present in the file, and the key path as written.

    An unknown key points at itself; a missing field at its parent's key.
    """
    node = root
    line = root.start_mark.line + 1 if root is not None else None
    shown: list[Any] = []
    for part in loc:
        found = _child(node, part)
        if found is None:
            node = None
            shown.append(part.replace("-", "_") if isinstance(part, str) else part)
            continue
        key_node, node = found
        shown.append(key_node.value if key_node is not None else part)
        line = (key_node or node).start_mark.line + 1
    return line, _dotted(shown)


_MODEL_INSTANCE = re.compile(r" or instance of \w+")


def _validation_error(label: str, root: Node | None, exc: ValidationError) -> ConfigError:
    # include_input=False: the input may be a secret; only loc and msg are used.
    errors = exc.errors(include_input=False, include_url=False, include_context=False)
    first = errors[0]
    line, key = _locate(root, first["loc"])
    where = f"{label}:{line}" if line is not None else label
    message = first["msg"].removeprefix("Value error, ")
    message = _MODEL_INSTANCE.sub("", message)  # "...dictionary or instance of Context"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return ConfigError(f"{where}: {key}: {message}{more}" if key else f"{where}: {message}{more}")


def validate(text: str, label: str, base_dir: Path, mode: Mode) -> tuple[Config, dict[str, ConfigError]]:
    """The file's text as a Config, and by context name the error that makes a context
    unusable (mode "per-context": an unresolved reference, an unreadable certificate)."""
    unresolved: dict[str, ConfigError] = {}
    data, root = parse(text, label, base_dir, mode, unresolved)
    try:
        config = Config.model_validate({} if data is None else data)
    except ValidationError as exc:
        raise _validation_error(label, root, exc) from None
    if mode == "per-context":  # loading: a file missing on this host breaks only its context
        _check_tls_files(config, root, label, base_dir, unresolved)
    return config, unresolved


# ------------------------------------------------------------------------ TLS files

def tls_file_problem(path: Path, folder_ok: bool = False) -> str | None:
    """Why a certificate, key or CA file cannot be read, or None when it can."""
    try:
        if path.is_dir():
            if folder_ok and os.access(path, os.R_OK | os.X_OK):
                return None
            return "not readable (permission denied)" if folder_ok else "is a folder, not a file"
        with path.open("rb") as handle:
            if not handle.read(1):
                return "is empty"
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return f"not readable ({(exc.strerror or type(exc).__name__).lower()})"
    return None


def _check_tls_files(config: Config, root: Node | None, label: str, base_dir: Path,
                     unresolved: dict[str, ConfigError]) -> None:
    """Each context's Kafka and Connect certificate, key and CA paths: `~` expanded, relative
    paths taken next to the config file (as `${file:...}`), and each one readable, else the
    context's error names the file, line, key and path."""
    for name, context in config.contexts.items():
        found: list[tuple[tuple[Any, ...], Path]] = []
        properties = context.kafka.properties
        for key in TLS_FILE_PROPERTIES:
            value = properties.get(key)
            if value and "${" not in value and not (key == "ssl.ca.location" and value == "probe"):
                path = base_dir / Path(value).expanduser()
                properties[key] = str(path)
                found.append((("kafka", "properties", key), path))
        if context.connect is not None:
            for field in TLS_FILE_FIELDS:
                if (path := getattr(context.connect, field)) is not None:
                    path = base_dir / path
                    setattr(context.connect, field, path)
                    found.append((("connect", field), path))
        for loc, path in found:
            problem = tls_file_problem(path, folder_ok=loc[-1] in ("ssl.ca.location", "ca"))
            if problem:
                line, key = _locate(root, ("contexts", name, *loc))
                where = f"{label}:{line}" if line is not None else label
                unresolved.setdefault(name, ConfigError(f"{where}: {key}: {path}: {problem}"))
                break


# --------------------------------------------------------------------- file I/O


def read_text(path: Path) -> str | None:
    """The file's text, or None if it does not exist."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Load and validate the config file; a missing file is an empty config."""
    target = paths.config_file(path)
    text = read_text(target)
    if text is None:
        return Config().loaded_from(target, {})
    config, unresolved = validate(text, str(target), target.parent, "per-context")
    return config.loaded_from(target, unresolved)

