"""The KRaft sandbox's cluster id never starts with '-': kafka-storage's argument parser reads
`-t -xyz...` as an option with its value missing, and the sandbox did not start (one run in 64)."""

from __future__ import annotations

import uuid

from streamctl.sandbox import kraft_storage


def test_an_id_that_would_start_with_a_dash_is_drawn_again(monkeypatch):
    dashed = uuid.UUID(bytes=b"\xf8" + bytes(15))  # 0b111110.. encodes as '-' in URL-safe base64
    plain = uuid.UUID(bytes=b"\x10" + bytes(15))
    drawn = iter([dashed, dashed, plain])
    monkeypatch.setattr(kraft_storage.uuid, "uuid4", lambda: next(drawn))

    cluster_id = kraft_storage.new_cluster_id()

    assert cluster_id == "EAAAAAAAAAAAAAAAAAAAAA" and len(cluster_id) == 22


def test_ids_are_random_url_safe_base64_of_16_bytes():
    ids = {kraft_storage.new_cluster_id() for _ in range(2000)}
    assert len(ids) == 2000
    assert all(len(i) == 22 and not i.startswith("-") and set(i) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") for i in ids)
