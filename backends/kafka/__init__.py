"""The Kafka adapter, one module per concern: cluster (snapshot reads), admin (mutations),
client (errors, deadlines, the fork guard), authz (refusals), isolated (a call in a forked
child), process (the dashboard's client child), records, probe, quorum.

Empty on purpose: importing one module must not import the others (`check` pays for each)."""
