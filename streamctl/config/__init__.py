"""Contexts file: kubectl-style named contexts in YAML, validated with pydantic.

The file format lives here; each section's model lives with the system that owns it
(`streamctl/kafka/settings.py`, `streamctl/zookeeper/settings.py`, ...):

  schema.py      Config (the whole file), Context (one environment: the systems' sections), ConfigError
  load.py        text -> YAML node tree -> data -> models; every error names the file, line and key
  references.py  `${NAME}` and `${file:PATH}` secret references
  write.py       add, replace or remove a context, keeping the rest of the file as written
                 (import it from there: reading, as `check` and the dashboard do, never needs it)
"""

from streamctl.config.load import load_config
from streamctl.config.schema import Config, ConfigError, Context

__all__ = ["Config", "ConfigError", "Context", "load_config"]
