"""The TLS sandbox (`sandbox up --tls`): mutual TLS on an extra listener of every broker.

Each broker keeps its PLAINTEXT listener (the sandbox itself, the demo services and the
`sandbox` context use it) and gains an SSL listener that requires a client certificate
(`ssl.client.auth=required`). A CA, a broker certificate (subjectAltName 127.0.0.1 and
localhost) and a client certificate are made with the `openssl` command at first start, PEM
files under <root>/tls/ (mode 0700; keys 0600, PKCS#8 as Kafka's Java side needs). The brokers
take them as PEM keystores (`ssl.keystore.type=PEM`), so their properties files hold the key and
are 0600. A second context, `sandbox-tls`, reaches the SSL listeners with the client certificate.

The Connect worker's REST server (Jetty) reads no PEM: it gets PKCS12 copies (java_stores), and
listens on HTTPS only, requiring a client certificate; both contexts reach it with the client's.
"""

from __future__ import annotations

import os
import secrets
import shutil
import ssl
import subprocess
from pathlib import Path

from streamctl.atomic import write_atomic
from streamctl.errors import StreamctlError
from streamctl.jvm import processes as procs
from streamctl.jvm.java import java as find_java

CONTEXT = "sandbox-tls"
LISTENER = "SSL"
DAYS = 30
SUMMARY = "mutual TLS on an SSL listener per broker (context sandbox-tls)"

_CA_EXTENSIONS = ("basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
                  "subjectKeyIdentifier=hash\n")
_LEAF_EXTENSIONS = ("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                    "extendedKeyUsage={usage}\nsubjectAltName={names}\n")


def folder(root: Path) -> Path:
    return Path(root) / "tls"


def files(root: Path, name: str) -> tuple[Path, Path]:
    """(certificate, key) of `name`: ca, broker or client."""
    return folder(root) / f"{name}.pem", folder(root) / f"{name}.key"


def enabled(state) -> bool:
    return bool(state.extras.get("tls_ports"))


# ---- certificates ----------------------------------------------------------------------------

def ensure_certificates(root: Path) -> None:
    """The CA, the broker's and the client's certificate and key, made once."""
    if all(path.exists() for name in ("ca", "broker", "client") for path in files(root, name)):
        return
    openssl = shutil.which("openssl")
    if not openssl:
        raise StreamctlError("--tls needs the openssl command to make the sandbox's certificates "
                             "(Debian: apt-get install openssl)")
    tls = folder(root)
    tls.mkdir(parents=True, exist_ok=True)
    os.chmod(tls, 0o700)
    ca_cert, ca_key = files(root, "ca")
    extensions = tls / "extensions.cnf"
    write_atomic(extensions, _CA_EXTENSIONS, mode=0o600)
    _openssl(openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca_cert,
             "-days", DAYS, "-subj", "/CN=streamctl sandbox CA", "-extensions", "v3", "-config",
             _req_config(tls, extensions))
    for name, usage, names in (("broker", "serverAuth,clientAuth", "IP:127.0.0.1,DNS:localhost"),
                               ("client", "clientAuth", "DNS:streamctl")):
        cert, key = files(root, name)
        request = tls / f"{name}.csr"
        write_atomic(extensions, _LEAF_EXTENSIONS.format(usage=usage, names=names), mode=0o600)
        _openssl(openssl, "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request,
                 "-subj", f"/CN={name}" if name == "client" else "/CN=localhost")
        _openssl(openssl, "x509", "-req", "-in", request, "-CA", ca_cert, "-CAkey", ca_key, "-out", cert,
                 "-days", DAYS, "-set_serial", secrets.randbits(63), "-extfile", extensions)
        request.unlink()
    for name in ("ca", "broker", "client"):
        os.chmod(files(root, name)[1], 0o600)
        os.chmod(files(root, name)[0], 0o644)


def _req_config(tls: Path, extensions: Path) -> Path:
    """openssl req needs a config file for the CA's extensions; this one holds nothing else."""
    path = tls / "req.cnf"
    write_atomic(path, "[req]\ndistinguished_name = dn\n[dn]\n[v3]\n" + extensions.read_text(), mode=0o600)
    return path


def _openssl(openssl: str, *args: object, env: dict[str, str] | None = None) -> None:
    _run_tool(openssl, "openssl", *args, env=env)


def _run_tool(path: str, tool: str, *args: object, env: dict[str, str] | None = None) -> None:
    try:
        result = subprocess.run([path, *map(str, args)], capture_output=True, text=True, timeout=60,
                                stdin=subprocess.DEVNULL, env={**os.environ, **env} if env else None)
    except subprocess.TimeoutExpired:
        raise StreamctlError(f"{tool} {args[0]} timed out making the sandbox's certificates") from None
    if result.returncode != 0:
        lines = (result.stderr.strip() or result.stdout.strip()).splitlines()
        raise StreamctlError(f"{tool} {args[0]} failed making the sandbox's certificates: "
                             f"{lines[-1] if lines else result.returncode}")


def java_stores(root: Path) -> tuple[Path, Path, str]:
    """(keystore, truststore, password): PKCS12 files for a JVM service whose TLS code reads no PEM
    (Jetty, the Connect worker's REST server). The keystore holds the broker certificate (it names
    127.0.0.1 and may act as a client), the truststore the CA (made with keytool: a CA certificate
    in a PKCS12 file made by OpenSSL 3.0 is not a trusted entry to Java). Made anew at each call,
    with a fresh password; files 0600."""
    ensure_certificates(root)
    beside_java = Path(find_java()).with_name("keytool")
    keytool = str(beside_java) if beside_java.exists() else shutil.which("keytool")
    if not keytool:
        raise StreamctlError(f"the sandbox's HTTPS Connect worker needs keytool (not beside {find_java()} "
                             "nor on PATH)")
    keystore, truststore = folder(root) / "jvm-keystore.p12", folder(root) / "jvm-truststore.p12"
    password = secrets.token_urlsafe(18)
    variable = "STREAMCTL_STORE_PASSWORD"  # the password reaches the tools this way, never in argv
    env = {variable: password}
    cert, key = files(root, "broker")
    ca = files(root, "ca")[0]
    for store in (keystore, truststore):
        store.unlink(missing_ok=True)
    _openssl(shutil.which("openssl") or "openssl", "pkcs12", "-export", "-in", cert, "-inkey", key, "-certfile", ca,
             "-name", "sandbox", "-out", keystore, "-passout", f"env:{variable}", env=env)
    _run_tool(keytool, "keytool", "-importcert", "-noprompt", "-alias", "ca", "-file", ca, "-keystore", truststore,
              "-storetype", "PKCS12", "-storepass:env", variable, env=env)
    for store in (keystore, truststore):
        os.chmod(store, 0o600)
    return keystore, truststore, password


# ---- brokers ---------------------------------------------------------------------------------

def prepare(root: Path, state) -> None:
    """A fresh stack's TLS: certificates and one free port per broker for its SSL listener."""
    ensure_certificates(root)
    brokers = state.by_role("broker")
    state.extras["tls_ports"] = {str(b.node_id): p for b, p in zip(brokers, procs.free_ports(len(brokers)))}


def broker_properties(props: dict[str, object], root: Path, service, state) -> dict[str, object]:
    """`props` with the SSL listener added: PEM keystore and truststore, client auth required."""
    address = f"{LISTENER}://127.0.0.1:{state.extras['tls_ports'][str(service.node_id)]}"
    cert, key = files(root, "broker")
    prefix = f"listener.name.{LISTENER.lower()}."
    added = {
        "listeners": f"{props['listeners']},{address}",
        "advertised.listeners": f"{props['advertised.listeners']},{address}",
        prefix + "ssl.client.auth": "required",
        prefix + "ssl.keystore.type": "PEM",
        prefix + "ssl.keystore.certificate.chain": _inline(cert),
        prefix + "ssl.keystore.key": _inline(key),
        prefix + "ssl.truststore.type": "PEM",
        prefix + "ssl.truststore.location": files(root, "ca")[0],
    }
    if "listener.security.protocol.map" in props:
        added["listener.security.protocol.map"] = f"{props['listener.security.protocol.map']},{LISTENER}:SSL"
    return {**props, **added}


def _inline(path: Path) -> str:
    """A PEM file as one properties-file value (java.util.Properties reads `\\n` as a line break)."""
    return path.read_text(encoding="ascii").strip().replace("\n", "\\n")


def bootstrap_servers(state) -> str:
    ports = state.extras["tls_ports"]
    return ",".join(f"127.0.0.1:{ports[str(b.node_id)]}" for b in state.by_role("broker"))


# ---- the client ------------------------------------------------------------------------------

def client_properties(root: Path) -> dict[str, str]:
    """librdkafka settings of the client certificate (no secret: the key file is 0600)."""
    cert, key = files(root, "client")
    return {"security.protocol": "SSL", "ssl.ca.location": str(files(root, "ca")[0]),
            "ssl.certificate.location": str(cert), "ssl.key.location": str(key)}


def connect_client(root: Path) -> dict[str, str]:
    """A context's `connect` TLS settings: the CA and the client certificate (PEM paths)."""
    cert, key = files(root, "client")
    return {"ca": str(files(root, "ca")[0]), "client_cert": str(cert), "client_key": str(key)}


def client_ssl_context(root: Path) -> ssl.SSLContext:
    """Python's TLS context of the client certificate (the sandbox's own HTTPS calls)."""
    context = ssl.create_default_context(cafile=str(files(root, "ca")[0]))
    context.load_cert_chain(*map(str, files(root, "client")))
    return context


def save_context(root: Path, state, sandbox_context: dict, config_path: Path | None, name: str = CONTEXT) -> None:
    """`sandbox-tls` (`name`): the sandbox's context, its Kafka part on the SSL listeners."""
    from streamctl.config.write import save_context as save
    from streamctl.sandbox.context import MANAGED_BY

    kafka = {**sandbox_context["kafka"], "bootstrap_servers": bootstrap_servers(state),
             "properties": {**sandbox_context["kafka"].get("properties", {}), **client_properties(root)}}
    save(name, {**sandbox_context, "kafka": kafka}, path=config_path, current="never", managed_by=MANAGED_BY)
