"""`streamctl check`: headless health evaluation for monitoring.

Every failure still answers in the format asked: a config error, an unknown context, a refused
option or a bug is UNKNOWN (exit 3) as a JSON document, a Prometheus textfile rewritten with
`streamctl_check_timestamp_seconds`, or the Nagios line; the one-line error goes to stderr.
With `--prometheus-textfile` stdout stays empty unless a format is asked (`-o`/`--format`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import click

from streamctl.check.evaluate import COLLECTORS, OPT_IN
from streamctl.errors import ExitCode, StreamctlError, UsageError
from streamctl.session import Session

if TYPE_CHECKING:
    from streamctl.model.health import Evaluation

FORMATS = ("nagios", "json", "prometheus")
NAMED_ONLY = [name for name in COLLECTORS if name in OPT_IN]  # quorum, pipeline, probe


class CheckError(StreamctlError):
    """check could not run (its textfile unwritable, a bug): UNKNOWN, as monitoring plugins say."""

    exit_code = ExitCode.UNKNOWN


@dataclass(frozen=True)
class Outputs:
    """Where check answers: stdout in `fmt` (None: nothing), and the Prometheus textfile; for one
    context, or for `several` (`--contexts`, `--all-contexts`: check/render_contexts.py)."""

    fmt: str | None
    textfile: str | None
    context: str = ""  # the `context` label of a refusal's series: the --context given, if any
    several: bool = False

    @classmethod
    def asked(cls, fmt: str | None, textfile: str | None, context: str | None = None) -> Outputs:
        return cls(fmt or (None if textfile else "nagios"), textfile, context or "")

    @classmethod
    def from_words(cls, args: list[str]) -> Outputs:
        """What a command line click refused asked for, read leniently from its words."""
        fmt = textfile = None
        words = iter(args)
        for word in words:
            if word == "--":
                break
            name, equals, value = word.partition("=")
            if name.startswith("-o") and len(name) > 2 and not name.startswith("--"):
                name, value = "-o", word[2:]  # -ojson
            elif name in ("-o", "--format", "--prometheus-textfile", "--component", "--contexts", "--timeout",
                          "--context", "--config") and not equals:
                value = next(words, "")
            if name in ("-o", "--format") and value in FORMATS:
                fmt = value
            elif name == "--prometheus-textfile" and value:
                textfile = value
        return cls.asked(fmt, textfile)

    def answer(self, evaluations: dict[str, Evaluation], now: float) -> None:
        """The textfile, then stdout (each context's Evaluation by its name); a textfile that
        cannot be written makes check UNKNOWN."""
        from streamctl.model.health import Evaluation

        unwritten = self._write_textfile(evaluations, now)
        self._print({name: Evaluation(failure=unwritten) for name in evaluations} if unwritten else evaluations, now)
        if unwritten:
            raise CheckError(unwritten)

    def refuse(self, reason: str, usage: bool = False) -> None:
        """Nothing was evaluated: UNKNOWN with `reason` in every output asked. A refused
        command line leaves the Nagios stdout empty (its line is the error on stderr)."""
        import time

        from streamctl.model.health import Evaluation

        failed, now = {self.context: Evaluation(failure=reason)}, time.time()
        single = replace(self, several=False)  # nothing was evaluated: one answer, as a single check gives
        single._write_textfile(failed, now)  # if it cannot be written either, `reason` is still what to say
        if not (usage and self.fmt == "nagios"):
            single._print(failed, now)

    def _write_textfile(self, evaluations: dict[str, Evaluation], now: float) -> str | None:
        """Why the textfile could not be written, or None (written, or none asked)."""
        from streamctl.check.render import render_prometheus_contexts, write_prometheus_text

        if not self.textfile:
            return None
        try:
            write_prometheus_text(render_prometheus_contexts(evaluations, now), self.textfile)
        except OSError as exc:
            return f"--prometheus-textfile: cannot write {self.textfile}: {exc.strerror or exc}"
        return None

    def _print(self, evaluations: dict[str, Evaluation], now: float) -> None:
        from streamctl.check import render, render_contexts

        if self.fmt is None:
            return
        if self.fmt == "prometheus":
            text = render.render_prometheus_contexts(evaluations, now)
        elif self.several:
            text = (render_contexts.render_nagios_contexts(evaluations) if self.fmt == "nagios"
                    else render_contexts.render_json_contexts(evaluations, now))
        else:
            [evaluation] = evaluations.values()
            text = render.render_nagios(evaluation) if self.fmt == "nagios" else render.render_json(evaluation, now)
        click.echo(text.rstrip("\n"))


class CheckCommand(click.Command):
    """An option click refuses (`--timeout abc`) still answers in the format asked."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, list(args))
        except click.ClickException as exc:
            Outputs.from_words(args).refuse(exc.format_message(), usage=True)
            raise


def _components(value: str | None) -> list[str] | None:
    from streamctl.check.evaluate import available

    if value is None:
        return None
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in available()]
    if unknown or not names:
        raise UsageError(f"--component: unknown {', '.join(unknown) or 'empty list'} "
                         f"(choose from {', '.join(available())})")
    return names


@click.command("check", cls=CheckCommand)
@click.option("--component", "component", metavar="LIST",
              help=f"Comma-separated components to evaluate, of: {', '.join(COLLECTORS)} "
                   f"(default: every one the context configures; {', '.join(NAMED_ONLY[:-1])} and "
                   f"{NAMED_ONLY[-1]} only when named).")
@click.option("-o", "--format", "fmt", type=click.Choice(FORMATS),
              help="nagios: one line with perfdata; json: docs/check-json-schema.json; prometheus: the "
                   "textfile format  [default: nagios; none with --prometheus-textfile]")
@click.option("--prometheus-textfile", type=click.Path(dir_okay=False), metavar="PATH",
              help="Write the metrics atomically to PATH (node_exporter textfile collector), "
                   "also when check fails (state UNKNOWN).")
@click.option("--contexts", "contexts", metavar="LIST",
              help="Evaluate these contexts (comma-separated) concurrently, each under --timeout: one "
                   "answer, its state the worst context's.")
@click.option("--all-contexts", is_flag=True, help="Evaluate every context of the config file, as --contexts.")
@click.option("--timeout", type=click.FloatRange(min=0.5), default=20.0, show_default=True,
              help="Global deadline in seconds: past it, what is not evaluated is UNKNOWN.")
@click.option("--probe", is_flag=True,
              help="Also probe end to end: write a marker record into each entry topic's partitions and "
                   "time each reader downstream passing it (audited; refused in read-only contexts; "
                   "give it --timeout 60).")
@click.pass_obj
def check_command(session: Session, component: str | None, fmt: str | None, prometheus_textfile: str | None,
                  contexts: str | None, all_contexts: bool, timeout: float, probe: bool) -> None:
    """Evaluate health for monitoring: exit 0 OK, 1 WARN, 2 CRIT, 3 UNKNOWN.

    \b
    Examples:
      streamctl check
      streamctl check --component kafka,connect --format json
      streamctl check --prometheus-textfile /var/lib/node_exporter/streamctl.prom
      streamctl check --all-contexts --format json
    """
    import time

    from streamctl.check.render_contexts import overall

    outputs = Outputs.asked(fmt, prometheus_textfile, session.context_name)
    try:
        components = _components(component)
        several = _several(session, contexts, all_contexts)
    except UsageError as exc:
        outputs.refuse(str(exc), usage=True)
        raise
    try:
        if several is None:
            evaluations = _evaluate(session, components, timeout, probe)
        else:
            outputs = replace(outputs, several=True)
            evaluations = _evaluate_several(session, several, components, timeout, probe)
        outputs.answer(evaluations, time.time())
    except StreamctlError as exc:  # the config, the context, the textfile: said in one line
        if not isinstance(exc, CheckError):
            outputs.refuse(str(exc))
        raise
    except Exception as exc:  # noqa: BLE001 - a bug: UNKNOWN naming the log that keeps its traceback, never exit 1 (WARN)
        from streamctl.check.errorlog import internal_error

        reason = internal_error("check", session.context_name or "", exc)
        outputs.refuse(reason)
        raise CheckError(reason) from None
    _exit_now(overall(evaluations).exit_code)


def _several(session: Session, contexts: str | None, all_contexts: bool) -> list[str] | None:
    """The contexts of --contexts / --all-contexts (None: one context, the usual check)."""
    if contexts is None and not all_contexts:
        return None
    if contexts is not None and all_contexts:
        raise UsageError("--contexts and --all-contexts: give one of them")
    if session.context_name:
        raise UsageError(f"--context {session.context_name}: not with {'--contexts' if contexts else '--all-contexts'}")
    from streamctl.check.contexts import chosen_contexts

    return chosen_contexts(session.config(), contexts, all_contexts)


def _evaluate(session: Session, components: list[str] | None, timeout: float,
              probe: bool) -> dict[str, Evaluation]:
    """The session's context's Evaluation, by the context's name (its series' `context` label)."""
    from streamctl.check.evaluate import evaluate, wanted_components

    ctx = session.context()
    return {ctx.name: evaluate(ctx, wanted_components(ctx, components, probe), _left_of(timeout),
                               read_only=session.read_only_flag)}


def _evaluate_several(session: Session, names: list[str], components: list[str] | None, timeout: float,
                      probe: bool) -> dict[str, Evaluation]:
    from streamctl.check.contexts import evaluate_contexts

    return evaluate_contexts(session.config(), names, components, _left_of(timeout), probe,
                             read_only=session.read_only_flag)


def _left_of(timeout: float) -> float:
    """What is left of --timeout: it counts from this process's start (interpreter start-up,
    imports and reading the config included), as the monitoring system that runs `check` does."""
    return max(0.1, round(timeout - _seconds_since_start(), 1))


def _seconds_since_start() -> float:
    """Linux: the process's start in /proc/self/stat (clock ticks after boot) against
    CLOCK_BOOTTIME; elsewhere 0 (the deadline then counts from here)."""
    import os
    import time

    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


def _exit_now(code: int) -> None:
    """Leave without waiting for client threads (librdkafka's teardown can outlive a deadline)."""
    import os

    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


