"""A KRaft sandbox's storage: its cluster id, and the brokers' log dirs formatted with it before
their first start (Kafka's StorageTool)."""

from __future__ import annotations

import base64
import subprocess
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from streamctl.atomic import write_atomic
from streamctl.errors import StreamctlError
from streamctl.sandbox.state import SandboxState, Service


def new_cluster_id() -> str:
    """A random KRaft cluster id as Kafka's own Uuid.randomUuid makes them: URL-safe base64 of 16
    bytes, never starting with '-' (one in 64 did, and kafka-storage then read `-t -xyz...` as a
    missing argument: the sandbox failed to start)."""
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cluster_id.startswith("-"):
            return cluster_id


def format_storage(root: Path, classpath: str, state: SandboxState, java: str, jvm_flags: list[str],
                   secret_arguments: tuple[str, ...] = (), scrub: Callable[[str], str] = str) -> None:
    """KRaft nodes need their log dirs formatted with the cluster id before first start.
    `secret_arguments` (the SCRAM users of a secure sandbox) reach the tool through a 0600
    argument file (`java @file`), never its command line; `scrub` cleans its error output."""
    cluster_id = state.cluster_id
    assert cluster_id is not None  # a KRaft sandbox's state has one

    def format_one(service: Service) -> subprocess.CompletedProcess:
        arguments = ["kafka.tools.StorageTool", "format", "-t", cluster_id,
                     "-c", str(root / "conf" / f"{service.name}.properties"), "--ignore-formatted",
                     *secret_arguments]
        argument_file = root / "conf" / f"format-{service.name}.args"
        write_atomic(argument_file, "".join(f"{argument}\n" for argument in arguments), mode=0o600)
        try:
            return subprocess.run([java, "-Xmx128m", *jvm_flags, "-cp", classpath, f"@{argument_file}"],
                                  capture_output=True, text=True, timeout=120)
        finally:
            argument_file.unlink(missing_ok=True)

    with ThreadPoolExecutor(max_workers=4) as pool:
        for service, result in zip(state.by_role("broker"), pool.map(format_one, state.by_role("broker"))):
            if result.returncode != 0:
                lines = scrub(result.stderr or result.stdout).strip().splitlines()
                raise StreamctlError(f"formatting {service.name} failed: "
                                     f"{lines[-1] if lines else result.returncode}")
