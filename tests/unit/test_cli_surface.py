"""The command line's own surface: every option explained, every command with an example that
parses, `--version` naming the client libraries, and shell completion scripts and names."""

from __future__ import annotations

import shlex
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from streamctl.cli import cli, main
from streamctl.completion import COMPLETE_VAR, SHELLS

GLOBAL_OPTIONS = {"--context", "--config", "--read-only", "-h", "--help", "--version"}


def _commands(command: click.Command = cli, path: tuple[str, ...] = ()):
    ctx = click.Context(command)
    yield path, command
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            yield from _commands(command.get_command(ctx, name), (*path, name))


LEAVES = [(path, command) for path, command in _commands() if not isinstance(command, click.Group)]


def _examples(command: click.Command) -> list[str]:
    text = command.help or ""
    _, _, block = text.partition("Example")
    return [line.strip() for line in block.splitlines()[1:] if line.strip().startswith(("streamctl ", "eval "))]


def _option_names(command: click.Command) -> set[str]:
    return {name for param in command.params if isinstance(param, click.Option)
            for name in (*param.opts, *param.secondary_opts)}


@pytest.mark.parametrize("path,command", LEAVES, ids=[" ".join(p) for p, _ in LEAVES])
def test_every_option_has_help_and_every_command_an_example(path, command):
    undocumented = [param.opts for param in command.params if isinstance(param, click.Option) and not param.help]
    assert not undocumented, f"streamctl {' '.join(path)}: options without help: {undocumented}"
    assert _examples(command), f"streamctl {' '.join(path)}: no example in its help"


@pytest.mark.parametrize("path,command", LEAVES, ids=[" ".join(p) for p, _ in LEAVES])
def test_every_example_names_its_command_and_real_options(path, command):
    for example in _examples(command):
        words = shlex.split(example.split("streamctl ", 1)[1].split(" #")[0].split(" |")[0].split(")")[0])
        globals_given = []
        while words and words[0].startswith("--"):  # global options before the subcommand
            globals_given.append(words.pop(0))
            if globals_given[-1] in ("--context", "--config"):
                words.pop(0)
        assert set(globals_given) <= GLOBAL_OPTIONS, example
        assert tuple(words[:len(path)]) == path, f"{example!r} is not an example of streamctl {' '.join(path)}"
        options = {w.split("=")[0] for w in words[len(path):] if w.startswith("-") and not w[1:2].isdigit()}
        unknown = options - _option_names(command) - GLOBAL_OPTIONS
        assert not unknown, f"{example!r}: no such option {sorted(unknown)}"


def test_version_names_the_client_libraries_without_importing_pyspark():
    probe = ("import sys; from streamctl.cli import main; main(['--version']); "
             "assert 'pyspark' not in sys.modules, 'pyspark imported'")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("streamctl ")
    for library in ("confluent-kafka", "librdkafka", "kazoo", "textual", "pyspark"):
        assert any(line.split()[0] == library for line in lines[1:]), f"{library} missing from --version"
    librdkafka = next(line for line in lines if line.split()[0] == "librdkafka").split()[1]
    assert librdkafka[0].isdigit(), lines


@pytest.mark.parametrize("shell", SHELLS)
def test_completion_prints_a_script_that_calls_back_into_streamctl(shell, capsys):
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    assert COMPLETE_VAR in script and "streamctl" in script


def test_completion_of_an_unknown_shell_is_one_line(capsys):
    assert main(["completion", "powershell"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "powershell" in err


def _complete(words: str, config_path) -> list[str]:
    env = {COMPLETE_VAR: "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split(" ")) - 1),
           "STREAMCTL_CONFIG": str(config_path)}
    result = CliRunner().invoke(cli, [], prog_name="streamctl", env=env, standalone_mode=True)
    return [line.split(",", 1)[1] for line in result.output.splitlines() if line]


def test_context_names_complete_from_the_config_file(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("current-context: prod\ncontexts:\n  prod:\n    kafka: {bootstrap_servers: 'h:9092'}\n"
                      "  staging:\n    kafka: {bootstrap_servers: 'h:9092'}\n  dr-east:\n"
                      "    kafka: {bootstrap_servers: 'h:9092'}\n")
    assert _complete("streamctl --context ", config) == ["dr-east", "prod", "staging"]
    assert _complete("streamctl --context st", config) == ["staging"]


def test_a_broken_config_completes_nothing_rather_than_failing(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("contexts: [not, a, mapping\n")
    assert _complete("streamctl --context ", config) == []
    assert _complete("streamctl topics describe ", config) == []
