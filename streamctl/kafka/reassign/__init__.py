"""`streamctl reassign`: moving partitions between brokers (plan, execute, status, cancel)."""
