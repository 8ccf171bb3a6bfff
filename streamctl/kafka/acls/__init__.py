"""Kafka ACLs: `streamctl acls list|create|delete`."""
