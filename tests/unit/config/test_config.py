"""Unit tests for streamctl.config: loading, errors with file:line:key, secrets, saving."""

from __future__ import annotations

import os
import stat
import textwrap
from pathlib import Path

import pytest
import yaml

from streamctl.config import ConfigError, load_config
from streamctl.config.write import check_context_replaceable, remove_context, save_context
from streamctl.errors import UsageError
from streamctl.kafka.settings import is_secret_property

SECRET = "s3cr3t-XYZ"

FULL = """\
current-context: sandbox
contexts:
  sandbox:
    read_only: true
    kafka:
      bootstrap_servers: "127.0.0.1:9092,127.0.0.1:9093"
      properties:
        security.protocol: SASL_PLAINTEXT
        sasl.password: "${KAFKA_PASSWORD}"
        linger.ms: 5
        enable.idempotence: true
      expected_brokers: 3
      timeout: 2.5
    zookeeper:
      hosts: "127.0.0.1:2181"
      chroot: /kafka
      auth: {scheme: digest, credential: "${ZK_AUTH}"}
      timeout: 4
      admin_url: "http://127.0.0.1:8080/commands"
    flume:
      agents:
        weblogs: {metrics_url: "http://127.0.0.1:41414/metrics", config_file: null, command: null}
    spark:
      jobs:
        weblog-stats: {checkpoint_dir: "/tmp/ckpt", ui_url: null, progress_file: null}
    thresholds:
      lag_records_warn: 10
      lag_records_crit: 20
      allowed_lag: 2
      min_brokers_warn: 3
      min_brokers_crit: 2
    include: {topics: ["web*"], groups: ["*"]}
    exclude: {topics: ["__*"], groups: []}
  other:
    kafka:
      bootstrap_servers: "other:9092"
"""


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load_error(path: Path) -> str:
    """The one-line error of loading the file and selecting its current (or first) context."""
    with pytest.raises(ConfigError) as info:
        config = load_config(path)
        config.context(config.current_context or next(iter(config.contexts), None))
    message = str(info.value)
    assert "\n" not in message, "errors are one line"
    return message


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("STREAMCTL_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("KAFKA_PASSWORD", SECRET)
    monkeypatch.setenv("ZK_AUTH", "user:" + SECRET)


@pytest.fixture
def full(tmp_path: Path) -> Path:
    return write(tmp_path / "config.yaml", FULL)


# ----------------------------------------------------------------- valid files


def test_full_file_loads_every_section(full: Path) -> None:
    config = load_config(full)
    assert config.path == full
    assert config.current_context == "sandbox"
    assert sorted(config.contexts) == ["other", "sandbox"]

    ctx = config.context()
    assert ctx.name == "sandbox" and ctx.read_only is True
    assert ctx.kafka.bootstrap_servers == "127.0.0.1:9092,127.0.0.1:9093"
    assert ctx.kafka.properties["linger.ms"] == "5"
    assert ctx.kafka.properties["enable.idempotence"] == "true"
    assert ctx.kafka.expected_brokers == 3 and ctx.kafka.timeout == 2.5
    zk = ctx.zookeeper
    assert zk is not None and zk.hosts == "127.0.0.1:2181" and zk.chroot == "/kafka"
    assert zk.auth is not None and zk.auth.credential.get_secret_value() == "user:" + SECRET
    assert zk.admin_url == "http://127.0.0.1:8080/commands" and zk.timeout == 4.0
    assert ctx.flume.agents["weblogs"].metrics_url == "http://127.0.0.1:41414/metrics"
    assert ctx.spark.jobs["weblog-stats"].checkpoint_dir == "/tmp/ckpt"
    assert ctx.thresholds.lag_records_crit == 20 and ctx.thresholds.allowed_lag == 2
    assert ctx.thresholds.lag_seconds_warn == 60  # default kept
    assert ctx.include.topics == ["web*"] and ctx.exclude.topics == ["__*"]

    other = config.context("other")
    assert other.name == "other" and other.zookeeper is None and other.read_only is False
    assert other.flume.agents == {} and other.spark.jobs == {}
    assert other.include.topics == ["*"] and other.exclude.groups == []
    assert other.thresholds.job_lag_records_crit == 1_000_000


def test_client_config_has_secret_in_clear_redacted_does_not(full: Path) -> None:
    kafka = load_config(full).context().kafka
    client = kafka.client_config()
    assert client["bootstrap.servers"] == "127.0.0.1:9092,127.0.0.1:9093"
    assert client["sasl.password"] == SECRET
    redacted = kafka.redacted()
    assert redacted["sasl.password"] == "***"
    assert redacted["security.protocol"] == "SASL_PLAINTEXT"
    assert SECRET not in repr(redacted)


def test_secret_never_in_repr_or_str(full: Path) -> None:
    config = load_config(full)
    for text in (repr(config), str(config), repr(config.context()), repr(config.context().kafka)):
        assert SECRET not in text
    assert "security.protocol" in repr(config)  # properties are still shown


@pytest.mark.parametrize(
    "key, secret",
    [
        ("sasl.password", True),
        ("ssl.keystore.password", True),
        ("sasl.oauthbearer.client.secret", True),
        ("my.token", True),
        ("ssl.key", True),
        ("ssl.key.location", False),
        ("security.protocol", False),
    ],
)
def test_secret_property_names(key: str, secret: bool) -> None:
    assert is_secret_property(key) is secret


@pytest.mark.parametrize("style", ["snake", "kebab"])
def test_kebab_and_snake_keys_accepted(tmp_path: Path, style: str) -> None:
    def k(name: str) -> str:
        return name.replace("_", "-") if style == "kebab" else name

    path = write(
        tmp_path / "c.yaml",
        f"""\
        {k("current_context")}: a
        contexts:
          a:
            {k("read_only")}: true
            kafka: {{{k("bootstrap_servers")}: "h:9092", {k("expected_brokers")}: 2}}
            thresholds: {{{k("lag_records_warn")}: 7, {k("channel_fill_crit_pct")}: 95}}
        """,
    )
    ctx = load_config(path).context()
    assert ctx.read_only is True and ctx.kafka.expected_brokers == 2
    assert ctx.thresholds.lag_records_warn == 7 and ctx.thresholds.channel_fill_crit_pct == 95


def test_missing_file_is_empty_config(tmp_path: Path) -> None:
    config = load_config(tmp_path / "nope.yaml")
    assert config.contexts == {} and config.current_context is None
    assert config.path == tmp_path / "nope.yaml"


@pytest.mark.parametrize("text", ["", "# only a comment\n", "contexts:\n"])
def test_empty_file_is_empty_config(tmp_path: Path, text: str) -> None:
    assert load_config(write(tmp_path / "c.yaml", text)).contexts == {}


def test_properties_values_coerced_to_str(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        """\
        contexts:
          a:
            kafka:
              bootstrap_servers: h:1
              properties: {linger.ms: 5, enable.idempotence: false, retry.backoff.ms: 0.5}
        """,
    )
    props = load_config(path).context("a").kafka.properties
    assert props == {"linger.ms": "5", "enable.idempotence": "false", "retry.backoff.ms": "0.5"}


def test_yaml_merge_keys_work(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        """\
        contexts:
          a:
            kafka: &k {bootstrap_servers: "h:1", timeout: 3}
          b:
            kafka: {<<: *k, timeout: 5}
        """,
    )
    config = load_config(path)
    assert config.context("b").kafka.bootstrap_servers == "h:1"
    assert config.context("b").kafka.timeout == 5


# --------------------------------------------------------------------- errors


def test_error_is_a_usage_error() -> None:
    assert issubclass(ConfigError, UsageError) and ConfigError.exit_code == 3


def test_bad_yaml_names_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", "contexts:\n  a:\n    kafka: b: c\n")
    message = load_error(path)
    assert message.startswith(f"{path}:3:13: invalid YAML: ")
    assert "mapping values are not allowed here" in message


def test_unknown_key_names_path_and_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        """\
        contexts:
          prod:
            kafka:
              bootstrap_servers: h:1
              timeot: 3
        """,
    )
    message = load_error(path)
    assert message.startswith(f"{path}:5: contexts.prod.kafka.timeot: ")
    assert "Extra inputs are not permitted" in message


def test_wrong_type_names_key_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        """\
        current-context: prod
        contexts:
          prod:
            kafka:
              bootstrap-servers: h:1
              timeout: soon
        """,
    )
    message = load_error(path)
    assert message.startswith(f"{path}:6: contexts.prod.kafka.timeout: ")
    assert "Input should be a valid number" in message
    assert "soon" not in message


def test_wrong_type_in_a_list_names_index(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        """\
        contexts:
          a:
            kafka: {bootstrap_servers: h:1}
            include:
              topics:
                - ok
                - [nested]
        """,
    )
    assert load_error(path).startswith(f"{path}:7: contexts.a.include.topics[1]: ")


def test_several_errors_report_first_and_count(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        """\
        contexts:
          a:
            kafka: {bootstrap_servers: h:1, timeout: x, expected_brokers: y}
        """,
    )
    message = load_error(path)
    assert "contexts.a.kafka" in message and message.endswith("(and 1 more)")


def test_missing_bootstrap_servers_points_at_parent(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        """\
        contexts:
          a:
            read_only: false
            kafka:
              timeout: 3
        """,
    )
    message = load_error(path)
    assert message == f"{path}:4: contexts.a.kafka.bootstrap_servers: Field required"


def test_missing_kafka_section(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", "contexts:\n  a:\n    read_only: true\n")
    assert load_error(path) == f"{path}:2: contexts.a.kafka: Field required"


@pytest.mark.parametrize(
    "warn, crit",
    [
        ("lag_records_warn: 200000", "lag_records_crit: 100000"),
        ("lag_seconds_warn: 700", "lag_seconds_crit: 600"),
        ("channel_fill_warn_pct: 95", "channel_fill_crit_pct: 90"),
        ("job_commit_age_warn_seconds: 1000", "job_commit_age_crit_seconds: 900"),
        ("job_lag_records_warn: 5", "job_lag_records_crit: 4"),
        ("min_brokers_warn: 2", "min_brokers_crit: 3"),
    ],
)
def test_warn_beyond_crit_rejected(tmp_path: Path, warn: str, crit: str) -> None:
    path = write(
        tmp_path / "c.yaml",
        f"""\
        contexts:
          a:
            kafka: {{bootstrap_servers: "h:1"}}
            thresholds:
              {warn}
              {crit}
        """,
    )
    message = load_error(path)
    assert message.startswith(f"{path}:4: contexts.a.thresholds: ")
    assert "must not exceed" in message


def test_warn_above_default_crit_rejected(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        "contexts:\n  a:\n    kafka: {bootstrap_servers: h}\n"
        "    thresholds: {lag_records_warn: 200000}\n",
    )
    assert "lag_records_warn must not exceed lag_records_crit" in load_error(path)


def test_top_level_must_be_mapping(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", "- a\n- b\n")
    assert load_error(path) == f"{path}:1: Input should be a valid dictionary"


def test_unknown_context_lists_known(full: Path) -> None:
    config = load_config(full)
    with pytest.raises(ConfigError) as info:
        config.context("prod")
    assert str(info.value) == f"no context 'prod' in {full} (known: sandbox, other)"


def test_no_current_context_names_file(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", "contexts:\n  a:\n    kafka: {bootstrap_servers: h}\n")
    config = load_config(path)
    with pytest.raises(ConfigError) as info:
        config.context()
    assert str(info.value) == f"no current-context set in {path}; use --context"
    assert config.context("a").name == "a"


def test_current_context_pointing_nowhere(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", "current-context: gone\n")
    expected = r"no context 'gone' in .*c\.yaml \(no contexts defined\)"
    with pytest.raises(ConfigError, match=expected):
        load_config(path).context()


# ------------------------------------------------------------ interpolation


def kafka_file(tmp_path: Path, *lines: str) -> Path:
    body = "".join(f"      {line}\n" for line in lines)
    return write(tmp_path / "c.yaml", f"contexts:\n  a:\n    kafka:\n{body}")


def test_env_interpolation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROKERS", "b1:9092")
    monkeypatch.setenv("TIMEOUT", "7")
    path = kafka_file(tmp_path, "bootstrap_servers: ${BROKERS},b2:9092", "timeout: ${TIMEOUT}")
    kafka = load_config(path).context("a").kafka
    assert kafka.bootstrap_servers == "b1:9092,b2:9092"
    assert kafka.timeout == 7.0


def test_file_interpolation_strips_newline_and_expands_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (home / "pw").write_text("from-file\n")
    path = kafka_file(
        tmp_path, "bootstrap_servers: h:1", 'properties: {sasl.password: "${file:~/pw}"}'
    )
    assert load_config(path).context("a").kafka.properties["sasl.password"] == "from-file"


def test_file_interpolation_relative_to_config_dir(tmp_path: Path) -> None:
    (tmp_path / "brokers.txt").write_text("rel:9092\n\n")
    path = kafka_file(tmp_path, "bootstrap_servers: ${file:brokers.txt}")
    assert load_config(path).context("a").kafka.bootstrap_servers == "rel:9092\n"


def test_dollar_escape_is_literal(tmp_path: Path) -> None:
    path = kafka_file(
        tmp_path, "bootstrap_servers: h:1", 'properties: {client.id: "a-$${KAFKA_PASSWORD}-$$x"}'
    )
    props = load_config(path).context("a").kafka.properties
    assert props["client.id"] == "a-${KAFKA_PASSWORD}-$$x"


def test_missing_env_var_names_variable_file_line_key(tmp_path: Path) -> None:
    path = kafka_file(
        tmp_path, "bootstrap_servers: h:1", "properties:", "  sasl.password: ${NOPE_VAR}"
    )
    message = load_error(path)
    assert message == (
        f"{path}:6: contexts.a.kafka.properties.sasl.password: "
        "environment variable 'NOPE_VAR' is not set"
    )


def test_unreadable_file_reference_names_file(tmp_path: Path) -> None:
    missing = tmp_path / "absent.txt"
    path = kafka_file(tmp_path, f"bootstrap_servers: ${{file:{missing}}}")
    message = load_error(path)
    assert message.startswith(f"{path}:4: contexts.a.kafka.bootstrap_servers: ")
    assert f"cannot read secret file '{missing}'" in message


def test_unterminated_reference_rejected(tmp_path: Path) -> None:
    path = kafka_file(tmp_path, "bootstrap_servers: ${BROKERS")
    assert "unterminated '${'" in load_error(path)


def test_keys_are_not_interpolated(tmp_path: Path) -> None:
    path = kafka_file(tmp_path, "bootstrap_servers: h", 'properties: {"${KAFKA_PASSWORD}": x}')
    assert "${KAFKA_PASSWORD}" in load_config(path).context("a").kafka.properties


@pytest.mark.parametrize(
    "lines",
    [
        # the secret's sibling has the wrong type
        (
            "bootstrap_servers: h:1",
            'properties: {sasl.password: "${KAFKA_PASSWORD}"}',
            "timeout: x",
        ),
        # the secret where a number is expected
        ("bootstrap_servers: h:1", "timeout: ${KAFKA_PASSWORD}"),
        ("bootstrap_servers: h:1", "expected_brokers: ${KAFKA_PASSWORD}"),
        # the secret where a mapping is expected
        ("bootstrap_servers: h:1", "properties: ${KAFKA_PASSWORD}"),
        # the secret property itself invalid (not a string), next to the secret
        (
            "bootstrap_servers: h:1",
            "properties: {sasl.password: [x], ssl.key.password: ${KAFKA_PASSWORD}}",
        ),
        # the secret in an unknown key
        ("bootstrap_servers: h:1", "passwd: ${KAFKA_PASSWORD}"),
        # bootstrap list that is the secret, with a missing sibling reference
        ("bootstrap_servers: ${KAFKA_PASSWORD}", "timeout: ${NOT_SET}"),
    ],
)
def test_secret_never_in_error_messages(tmp_path: Path, lines: tuple[str, ...]) -> None:
    message = load_error(kafka_file(tmp_path, *lines))
    assert SECRET not in message
    assert str(tmp_path) in message


def test_secret_zk_credential_not_in_errors(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        """\
        contexts:
          a:
            kafka: {bootstrap_servers: h}
            zookeeper: {hosts: h, auth: {credential: "${ZK_AUTH}", scheme: 5}, timeout: -1}
        """,
    )
    message = load_error(path)
    assert SECRET not in message and "contexts.a.zookeeper" in message


# ------------------------------------------------------------------ saving


SANDBOX = {
    "read_only": False,
    "kafka": {"bootstrap_servers": "127.0.0.1:1", "expected_brokers": 1},
    "spark": {"jobs": {"j": {"checkpoint_dir": Path("/tmp/ck")}}},
}


def test_save_context_creates_file_0600(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "config.yaml"
    assert save_context("sandbox", SANDBOX, path) is True
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    config = load_config(path)
    assert config.current_context == "sandbox"
    assert config.context().spark.jobs["j"].checkpoint_dir == "/tmp/ck"
    assert "current-context: sandbox" in path.read_text()


def test_save_context_preserves_others_and_references(full: Path) -> None:
    assert save_context("new", {"kafka": {"bootstrap_servers": "n:1"}}, full) is False
    text = full.read_text()
    assert "${KAFKA_PASSWORD}" in text and "${ZK_AUTH}" in text
    assert SECRET not in text
    assert text.startswith(FULL)  # every byte of the file as it was, the new context after it
    raw = yaml.safe_load(text)
    assert raw["current-context"] == "sandbox"  # "if-unset": the file names one already
    config = load_config(full)
    assert list(config.contexts) == ["sandbox", "other", "new"]
    assert config.context("sandbox").kafka.client_config()["sasl.password"] == SECRET


def test_save_context_current_policies(full: Path) -> None:
    assert save_context("n", {"kafka": {"bootstrap_servers": "y:1"}}, full, current="never") is False
    assert load_config(full).current_context == "sandbox"
    assert save_context("n", {"kafka": {"bootstrap_servers": "y:2"}}, full, current="always") is True
    config = load_config(full)
    assert config.current_context == "n" and config.context().kafka.bootstrap_servers == "y:2"


HOME = """# ops host: nagios runs `streamctl check` from cron against prod
current-context: prod   # never the sandbox

contexts:
  # production, read-only on this host
  prod:
    read_only: true
    kafka:
      bootstrap_servers: 'kafka1:9092,kafka2:9092'
      properties:
        sasl.password: ${KAFKA_PASSWORD}
  # staging
  stage:
    kafka: {bootstrap_servers: "stage:9092"}
    connect:
      urls:
        - http://connect:8083  # the only worker
# end
"""
OURS = "streamctl-sandbox"


def test_sandbox_context_joins_without_taking_over(tmp_path: Path) -> None:
    path = write(tmp_path / "config.yaml", HOME)
    path.chmod(0o644)
    assert save_context("sandbox", SANDBOX, path, managed_by=OURS) is False
    text = path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    lines = text.splitlines()
    assert lines[:len(HOME.splitlines())] == HOME.splitlines()  # comments, order, quoting as written
    config = load_config(path)
    assert config.current_context == "prod"
    assert list(config.contexts) == ["prod", "stage", "sandbox"]
    assert config.context("sandbox").managed_by == OURS
    assert config.context("sandbox").kafka.bootstrap_servers == "127.0.0.1:1"


def test_sandbox_context_rewritten_in_place_keeps_what_follows(tmp_path: Path) -> None:
    text = HOME.replace("contexts:\n", "contexts:\n  sandbox:\n    managed-by: streamctl-sandbox\n"
                        "    kafka:\n      bootstrap_servers: 127.0.0.1:9\n")
    path = write(tmp_path / "config.yaml", text)
    save_context("sandbox", {"kafka": {"bootstrap_servers": "127.0.0.1:2"}}, path, managed_by=OURS)
    after = path.read_text()
    assert "127.0.0.1:9" not in after and "bootstrap_servers: 127.0.0.1:2" in after
    # The heading of the context after it, and everything else, stay where they were.
    assert after.replace("bootstrap_servers: 127.0.0.1:2", "bootstrap_servers: 127.0.0.1:9") == text
    assert list(load_config(path).contexts) == ["sandbox", "prod", "stage"]


def test_a_foreign_sandbox_context_is_refused_and_the_file_untouched(tmp_path: Path) -> None:
    path = write(tmp_path / "config.yaml", HOME.replace("  stage:", "  sandbox:"))
    path.chmod(0o644)
    before = path.read_bytes()
    for attempt in (lambda: save_context("sandbox", SANDBOX, path, managed_by=OURS),
                    lambda: check_context_replaceable("sandbox", OURS, path)):
        with pytest.raises(ConfigError) as info:
            attempt()
        assert str(info.value) == (
            f"{path}: context 'sandbox' was not written by {OURS}; not replacing it "
            f"(rename it, or add 'managed-by: {OURS}' to it to let {OURS} rewrite it)")
    assert path.read_bytes() == before
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_symlinked_config_is_edited_where_it_points(tmp_path: Path) -> None:
    (tmp_path / "dotfiles").mkdir()
    real = write(tmp_path / "dotfiles" / "config.yaml", HOME)
    link = tmp_path / "config.yaml"
    link.symlink_to(real)
    save_context("sandbox", SANDBOX, link, managed_by=OURS)
    assert link.is_symlink() and "sandbox" in load_config(real).contexts


def test_save_context_keeps_snake_current_context_key(tmp_path: Path) -> None:
    text = "current_context: a\ncontexts:\n  a:\n    kafka: {bootstrap_servers: h}\n"
    path = write(tmp_path / "c.yaml", text)
    save_context("b", {"kafka": {"bootstrap_servers": "h"}}, path, current="always")
    raw = yaml.safe_load(path.read_text())
    assert raw["current_context"] == "b" and "current-context" not in raw


def test_save_context_tolerates_unset_references_elsewhere(
    full: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KAFKA_PASSWORD")
    save_context("sandbox2", {"kafka": {"bootstrap_servers": "h:1"}}, full)
    assert "${KAFKA_PASSWORD}" in full.read_text()


def test_save_invalid_context_rejected_and_file_untouched(full: Path) -> None:
    before = full.read_bytes()
    with pytest.raises(ConfigError) as info:
        save_context("bad", {"kafka": {"bootstrap_servers": "h", "timeout": "x"}}, full)
    assert "contexts.bad.kafka.timeout" in str(info.value)
    assert full.read_bytes() == before


def test_failed_write_leaves_old_file(full: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = full.read_bytes()

    def boom(src: object, dst: object) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk on fire"):
        save_context("new", {"kafka": {"bootstrap_servers": "n:1"}}, full)
    assert full.read_bytes() == before
    assert [p.name for p in full.parent.iterdir()] == [full.name]  # no temp file left


def test_save_into_broken_yaml_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", "contexts: [\n")
    with pytest.raises(ConfigError, match=r"c\.yaml:\d+:\d+: invalid YAML"):
        save_context("a", {"kafka": {"bootstrap_servers": "h"}}, path)


def test_remove_context(full: Path) -> None:
    full.write_text(full.read_text().replace("  other:", "  # the other one\n  other:"))
    remove_context("sandbox", full)
    assert full.read_text().startswith("contexts:\n  # the other one\n  other:")
    config = load_config(full)
    assert list(config.contexts) == ["other"] and config.current_context is None
    with pytest.raises(ConfigError, match=r"no context 'sandbox' in .* \(known: other\)"):
        remove_context("sandbox", full)


# --------------------------------------------------------------- file choice


def test_default_path_is_xdg(tmp_path: Path) -> None:
    save_context("x", {"kafka": {"bootstrap_servers": "h"}})
    expected = tmp_path / "xdg" / "streamctl" / "config.yaml"
    assert expected.exists()
    assert load_config().path == expected


def test_env_var_overrides_xdg_and_explicit_overrides_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    xdg = write(tmp_path / "xdg.yaml", "current-context: xdg\n")
    (tmp_path / "xdg" / "streamctl").mkdir(parents=True)
    xdg.rename(tmp_path / "xdg" / "streamctl" / "config.yaml")
    env_file = write(tmp_path / "env.yaml", "current-context: env\n")
    explicit = write(tmp_path / "explicit.yaml", "current-context: explicit\n")

    assert load_config().current_context == "xdg"
    monkeypatch.setenv("STREAMCTL_CONFIG", str(env_file))
    assert load_config().current_context == "env"
    assert load_config(explicit).current_context == "explicit"
    save_context("e", {"kafka": {"bootstrap_servers": "h"}})
    assert "e" in load_config(env_file).contexts


def test_an_unset_variable_breaks_only_the_context_that_uses_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("NOPE_VAR", raising=False)
    path = tmp_path / "config.yaml"
    path.write_text(
        "current-context: good\n"
        "contexts:\n"
        "  good:\n"
        "    kafka: {bootstrap_servers: 'h:1'}\n"
        "  broken:\n"
        "    kafka:\n"
        "      bootstrap_servers: 'h:2'\n"
        "      properties: {sasl.password: '${NOPE_VAR}'}\n"
    )
    config = load_config(path)
    assert config.context().kafka.bootstrap_servers == "h:1"
    with pytest.raises(ConfigError) as info:
        config.context("broken")
    assert str(info.value) == (f"{path}:8: contexts.broken.kafka.properties.sasl.password: "
                               "environment variable 'NOPE_VAR' is not set")
