"""Contexts file: kubectl-style named contexts in YAML, validated with pydantic.

The file format lives here; each section's model lives with the system that owns it
(`streamctl/kafka/settings.py`, `streamctl/zookeeper/settings.py`, ...):

  schema.py      Config (the whole file), Context (one environment: the systems' sections), ConfigError
  load.py        text -> YAML node tree -> data -> models; every error names the file, line and key
  references.py  `${NAME}` and `${file:PATH}` secret references
  write.py       add, replace or remove a context, keeping the rest of the file as written
"""

from streamctl.config.load import load_config
from streamctl.config.schema import Config, ConfigError, Context
from streamctl.config.write import check_context_replaceable, remove_context, save_context

__all__ = ["Config", "ConfigError", "Context", "check_context_replaceable", "load_config", "remove_context",
           "save_context"]
