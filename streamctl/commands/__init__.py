"""CLI command groups, loaded on demand by streamctl.cli."""
