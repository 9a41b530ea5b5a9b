"""``sichuan experiment run|report|list``, ``sichuan compare`` and ``sichuan ladder``.

Added to the ``sichuan`` group through the entry-point group ``sichuan.commands``
(pyproject.toml), so the core's CLI never imports this package. Heavy imports (numba, pandas) happen
inside the commands, so ``sichuan --help`` stays fast. Errors are one line, exit status 2.
"""

from __future__ import annotations

import shutil
import tempfile

import click

from simcore.contract.messages import one_line as _one_line
from simcore.cli import DRAW_ORDER_HELP, draw_order_option, full_names_option, name_table
from simcore.contract.rules import DRAW_ORDERS
from simcore.contract.rules import PRESETS
from experiments.spec import ESTIMATORS


class ExperimentCliError(click.ClickException):
    """A user error: one ``Error: <message>`` line, exit status 2 (as simcore.cli.CliError)."""

    exit_code = 2


def _log(quiet: bool):
    if quiet:
        return None
    return lambda line: click.echo(line, err=True)


def _check_vs(spec, vs):
    """A bad --vs is an error before anything plays."""
    if vs is None:
        return
    if spec.kind != "duplicate":
        raise ExperimentCliError(f"--vs compares the arms of a duplicate experiment; {spec.name} is a {spec.kind} "
                                 "experiment")
    names = [a.name for a in spec.arms]
    if vs not in names:
        raise ExperimentCliError(f"--vs {vs!r} is not an arm of {spec.name} (arms: {', '.join(names)})")


def _run_and_report(spec, out, hands, seed, workers, width, as_json, quiet, vs=None, full_names=False,
                    draw_order=None, full_tables=False, estimator=None, until_width=None, max_walls=None,
                    max_minutes=None, temporary=False):
    from experiments import run as run_spec
    from experiments.execute import ExperimentError
    from experiments.report import dumps, format_text
    from simcore.cli import exit_interrupted
    from simcore.runs.runner import RunInterrupted

    _check_vs(spec, vs)
    if until_width is not None and spec.kind != "duplicate":
        raise ExperimentCliError(f"--until-width sets the width of duplicate intervals; {spec.name} is a "
                                 f"{spec.kind} experiment (its spec's until_relative sets its pig rates' precision)")
    stops = (until_width if until_width is not None else spec.until_width) if spec.kind == "duplicate" \
        else spec.until_relative
    if max_minutes is not None and stops is None:
        raise ExperimentCliError("--max-minutes budgets the second stage of --until-width (or of a cells spec's "
                                 "until_relative); without one the run's size is --hands")
    try:
        # the plan of a run that stops at a precision, with its forecast, is printed even with --quiet or
        # --json (on stderr): it says what the rest of the command will cost before it is spent
        rep = run_spec(spec, out, hands, seed, workers, _log(quiet), vs, draw_order, estimator, until_width,
                       max_walls, full_tables, width, max_minutes=max_minutes,
                       notice=lambda line: click.echo(line, err=True))
    except RunInterrupted as exc:
        exit_interrupted(_temporary(exc) if temporary else exc, quiet)
    except KeyboardInterrupt:   # between the runs' chunks (a report being built): the runs keep what they hold
        exc = RunInterrupted("interrupted; run the same command again to resume")
        exit_interrupted(_temporary(exc) if temporary else exc, quiet)
    except ExperimentError as exc:
        raise ExperimentCliError(_one_line(exc)) from None
    click.echo(dumps(rep) if as_json else format_text(rep, full_names))
    return rep


def _temporary(exc: BaseException) -> BaseException:
    """An interrupt of a comparison played in a temporary directory: nothing is left to resume."""
    from simcore.runs.runner import RunInterrupted

    return RunInterrupted("interrupted; the comparison was played in a temporary directory, now removed: "
                          "give --out DIR to keep one that the same command resumes")


def precision_options(f):
    """--estimator, --until-width, --max-walls and --max-minutes, shared by `experiment run` and `compare`."""
    f = click.option("--max-minutes", "max_minutes", type=click.FloatRange(min=0, min_open=True), default=None,
                     metavar="M", help="With --until-width (or a cells spec's until_relative): a budget for the "
                                       "second stage, never more walls than the pilot's measured rate plays in M "
                                       "minutes (the report says which arms got there). The plan and its forecast "
                                       "are printed before the second stage, also with --quiet or --json "
                                       "[default: no budget].")(f)
    f = click.option("--max-walls", "max_walls", type=click.IntRange(min=1), default=None,
                     help="With --until-width (or a cells spec's until_relative): never more than this, in --hands "
                          "units (walls; hands per cell) (the report says which arms or cells got there) "
                          "[default: the spec's max_walls or max_hands, else no cap].")(f)
    f = click.option("--until-width", "until_width", type=click.FloatRange(min=0, min_open=True), default=None,
                     metavar="W", help="Play until every arm's 95% interval has full width <= W: --hands walls as a "
                                       "pilot, then the walls the pilot says W needs (x1.2), in one fixed second "
                                       "stage; interrupted, the same command resumes it [default: the spec's "
                                       "until_width, else stop at --hands].")(f)
    f = click.option("--estimator", type=click.Choice(ESTIMATORS), default=None,
                     help="The main difference: luck (each net less the seat's luck, measured with the shipped "
                          "value model: unbiased, narrower) or plain (nets as they are; no luck measured, "
                          "cheaper per wall). The luck report gives the plain one too [default: the spec's, "
                          "else luck].")(f)
    return f


CONTEXT_SETTINGS = dict(help_option_names=["-h", "--help"], max_content_width=100)

HANDS_HELP = ("Size: walls for a duplicate experiment (each wall is played by every arm in every rotation, "
              "4 hands per arm), hands per cell for a cells experiment (cells sized in the spec scale with it) "
              "[default: the spec's hands].")
WIDTH_HELP = "Full width W of the 95% interval for 'walls needed' (points per hand) [default: the spec's width, 0.1]."
FULL_TABLES_HELP = ("Duplicate experiments: play every rotation table in full. By default an arm that differs from "
                    "the field plays the field's hand wherever its answers are the field's and only its own "
                    "continuation where they differ (the same results, hand for hand, for less CPU).")
VS_HELP = ("Duplicate experiments: compare every arm with arm ARM, paired on the walls, instead of with the "
           "spec's baseline.")


@click.group("experiment", context_settings=CONTEXT_SETTINGS)
def experiment():
    """Run experiments from spec files and print their reports.

    \b
    Shipped experiments (experiments/*.toml; `sichuan experiment list` gives their sizes):
    {shipped}
    experiments/README.md documents the spec format.
    """


def _shipped() -> dict[str, str]:
    """Every shipped experiment with its spec's description (read as TOML only: help stays fast)."""
    import tomllib

    from .spec import SHIPPED, SPEC_DIR

    out = {}
    for name in SHIPPED:
        with open(SPEC_DIR / f"{name}.toml", "rb") as f:
            out[name] = tomllib.load(f).get("description", "")
    return out


experiment.help = experiment.help.replace("    {shipped}", name_table(_shipped(), 70))


@experiment.command("run")
@click.argument("spec_name", metavar="SPEC")
@click.option("--hands", "hands", type=click.IntRange(min=1), default=None, help=HANDS_HELP)
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed of every run [default: the spec's seed].")
@click.option("--out", "out", required=True, metavar="DIR",
              help="Experiment directory (created; rerunning resumes, a larger --hands extends).")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Worker processes [default: the machine's cores].")
@click.option("--width", type=click.FloatRange(min=0, min_open=True), default=None, help=WIDTH_HELP)
@click.option("--vs", "vs", default=None, metavar="ARM", help=VS_HELP + " The report saved in DIR is this one.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@click.option("--draw-order", "draw_order", type=click.Choice(DRAW_ORDERS), default=None,
              help=DRAW_ORDER_HELP + " [default: the spec's draw_order, else seat]")
@click.option("--full-tables", is_flag=True, help=FULL_TABLES_HELP)
@click.option("--rules", "rules_spec", default=None, metavar="PRESET|FILE.toml",
              help="Play the experiment under this rule set: every arm and cell that does not name its own rules "
                   "plays it instead of the spec's rules (the spec's sets still apply); an arm or cell that names "
                   f"its own keeps them [default: the spec's rules]. Presets: {', '.join(PRESETS)}, or a rule file.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override one rule option in every arm and cell, after the spec's own; repeatable "
                   "(`sichuan rules` lists the options).")
@precision_options
@full_names_option
def run_cmd(spec_name, hands, seed, out, workers, width, vs, as_json, quiet, draw_order, full_tables, rules_spec, sets,
            estimator, until_width, max_walls, max_minutes, full_names):
    """Run the experiment SPEC (a TOML file, or a shipped name such as `exchange`) into DIR and
    print its report.

    \b
    Examples:
        sichuan experiment run exchange --out runs/exchange
        sichuan experiment run exchange --rules flow --out runs/exchange-flow
        sichuan experiment run void --hands 200000 --seed 1 --out runs/void
        sichuan experiment run flower-pigs --set fan_cap=6 --out runs/pigs-cap6
        sichuan experiment run my-experiment.toml --out runs/mine
        sichuan experiment run my-sweep.toml --vs flush-4.0 --out runs/sweep
    """
    from simcore.cli import resolve_rules

    from experiments.spec import SpecError, load_spec

    if rules_spec is not None or sets:
        resolve_rules(rules_spec, sets)     # a bad --rules or --set is one line naming it, before the spec is read
    try:
        spec = load_spec(spec_name, rules_spec, sets)
    except SpecError as exc:
        raise ExperimentCliError(_one_line(exc)) from None
    _run_and_report(spec, out, hands, seed, workers, width, as_json, quiet, vs=vs, full_names=full_names,
                    draw_order=draw_order, full_tables=full_tables, estimator=estimator, until_width=until_width,
                    max_walls=max_walls, max_minutes=max_minutes)


@experiment.command("report")
@click.argument("exp_dir", metavar="DIR")
@click.option("--width", type=click.FloatRange(min=0, min_open=True), default=None, help=WIDTH_HELP)
@click.option("--vs", "vs", default=None, metavar="ARM", help=VS_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@full_names_option
def report_cmd(exp_dir, width, vs, as_json, full_names):
    """Print the report of an experiment directory again (recomputed from its runs).

    \b
    Examples:
        sichuan experiment report runs/void
        sichuan experiment report runs/void --vs weakest --json
    """
    from experiments.execute import ExperimentError
    from experiments.report import build, dumps, format_text

    try:
        rep = build(exp_dir, width=width, vs=vs)
    except ExperimentError as exc:
        raise ExperimentCliError(_one_line(exc)) from None
    click.echo(dumps(rep) if as_json else format_text(rep, full_names))


@experiment.command("list")
def list_cmd():
    """List the shipped experiments."""
    from experiments.spec import SHIPPED, load_spec

    specs = [load_spec(name) for name in SHIPPED]
    rows = []
    for name, spec in zip(SHIPPED, specs):
        size = f"{spec.hands:,} {'walls' if spec.kind == 'duplicate' else 'hands per cell'}"
        if (spec.until_width if spec.kind == "duplicate" else spec.until_relative) is not None:
            size += " (a pilot)"
        rows.append((name, spec.kind, size, spec.description))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        click.echo("  ".join(x.ljust(w) for x, w in zip(r, widths)) + "  " + r[3])


@click.command("compare", context_settings=CONTEXT_SETTINGS)
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@click.option("--rules", "rules_spec", default=None, metavar="PRESET|FILE.toml",
              help=f"Rule set: {', '.join(PRESETS)} (battle by default), or a rule file.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override one rule option; repeatable.")
@click.option("--hands", "hands", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Walls: each is played by A in all four rotations and by the all-B table.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--out", "out", default=None, metavar="DIR",
              help="Keep the runs in DIR (resumable, extendable) [default: a temporary directory, removed].")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Worker processes [default: the machine's cores].")
@click.option("--width", type=click.FloatRange(min=0, min_open=True), default=0.1, show_default=True, help=WIDTH_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@draw_order_option("seat")
@click.option("--full-tables", is_flag=True, help=FULL_TABLES_HELP)
@precision_options
@full_names_option
def compare(a, b, rules_spec, sets, hands, seed, out, workers, width, as_json, quiet, draw_order, full_tables,
            estimator, until_width, max_walls, max_minutes, full_names):
    """Head-to-head in duplicate: seat spec A, 1 vs 3 against a field of B.

    A sits at each seat in turn against three B on the same walls; the difference from B
    (which scores 0 against itself) is paired on the wall. Prints the duplicate table.

    \b
    Examples:
        sichuan compare greedy efficient
        sichuan compare efficient+void=random efficient --rules kawu --hands 50000
    """
    from simcore.contract.rules import RuleError, parse_sets

    from experiments.spec import SpecError, parse_spec

    try:
        set_dict = parse_sets(list(sets))
    except RuleError as exc:
        raise ExperimentCliError(_one_line(exc)) from None
    data = {"name": "compare", "kind": "duplicate", "hands": hands, "seed": seed, "width": width,
            "description": f"{a} vs a field of {b}", "rules": rules_spec or "battle", "sets": set_dict,
            "field": b, "arms": {"A": a, "B": b}, "baseline": "B"}
    try:
        spec = parse_spec(data, source="compare")
    except SpecError as exc:
        raise ExperimentCliError(_one_line(exc).replace("compare: arms.A: ", "A: ").replace("compare: arms.B: ", "B: ")
                                 .replace("compare: field: ", "B: ")) from None
    from dataclasses import replace

    spec = replace(spec, compare={"a": a, "b": b, "rules": rules_spec or "battle", "sets": list(sets)})
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="sichuan-compare-")
        out = tmp
    try:
        _run_and_report(spec, out, hands, seed, workers, width, as_json, quiet, full_names=full_names,
                        draw_order=draw_order, full_tables=full_tables, estimator=estimator, until_width=until_width,
                        max_walls=max_walls, max_minutes=max_minutes, temporary=tmp is not None)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


@click.command("ladder", context_settings=CONTEXT_SETTINGS)
@click.option("--plays", default=",".join(("greedy", "efficient", "flush", "defensive", "expert")), show_default=True,
              metavar="SPEC[,SPEC...]", help="The plays, seat specs separated by commas (commas inside brackets do "
              "not separate): each sits 1 vs 3 against every field.")
@click.option("--fields", default=",".join(("greedy", "efficient", "flush", "defensive", "expert", "mixed")),
              show_default=True, metavar="SPEC[,SPEC...]",
              help="The fields: seat specs (all three opponents that spec) or 'mixed' (random, greedy, efficient "
              "after the play in turn order).")
@click.option("--presets", default="battle,flow,kawu,chengdu,tfmj", show_default=True, metavar="PRESET[,PRESET...]",
              help="Rule presets, each a ladder of its own.")
@click.option("--walls", type=int, default=20_000, show_default=True,
              help="Walls a cell: hands 0..walls-1 of every table (the same walls for every play and field).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Run seed: every cell plays walls 0..N-1 of it (the bench measures at --seed 1).")
@click.option("--threads", type=int, default=None, help="Numba threads [default: all cores]; results do not depend on it.")
@click.option("--focus", default=None, metavar="PLAY[,PLAY...]",
              help="Plays whose paired differences against every other play the report shows, per preset and field "
              "[default: expert, or the first play when expert is not one].")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--out", "out", default=None, metavar="FILE", help="Also write the report as markdown to FILE.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@draw_order_option("seat")
@click.option("--estimator", type=click.Choice(ESTIMATORS), default="luck", show_default=True,
              help="Scores of each net less the seat's luck (luck: unbiased, narrower; measuring it costs CPU) or of "
                   "the nets as they are (plain).")
def ladder(plays, fields, presets, walls, seed, threads, focus, as_json, out, quiet, draw_order, estimator):
    """The strategy ladder: every play 1 vs 3, in duplicate, against each field, under each preset.

    Against a uniform field F a play's score is its net per hand at each seat minus the net of
    the table of four F at that seat, on the same walls, averaged over the four seats; against
    the mixed field it is its mean net per hand. Prints a matrix per preset (plays x fields,
    95% intervals over walls), the paired differences of the --focus play against every other
    play in every field, and per-play statistics (wins, self-drawn share, mean base, deal-in
    rate, exhausted walls). The full default takes about 4 minutes on 2 cores.

    \b
    Examples:
        sichuan ladder
        sichuan ladder --plays efficient,expert --fields efficient,mixed --presets battle --walls 5000
        sichuan ladder --plays "expert,expert[flush_weight=3]" --focus "expert[flush_weight=3]" --json
    """
    from pathlib import Path

    from strategies.registry import StrategyError

    from experiments.ladder import LadderError, dumps, format_markdown, format_text, log_stderr, make_config, run_ladder

    try:
        config = make_config(plays, fields, presets, walls, seed, threads, focus, draw_order, estimator)
    except (LadderError, StrategyError) as exc:
        raise ExperimentCliError(_one_line(exc)) from None
    if out is not None and Path(out).is_dir():
        raise ExperimentCliError(f"--out {out}: is a directory (expected a file for the markdown report)")
    from simcore.runs.batch import InvariantError, StrategyAnswerError

    try:
        rep = run_ladder(config, log=None if quiet else log_stderr)
    except (StrategyAnswerError, InvariantError, StrategyError) as exc:
        raise ExperimentCliError(_one_line(exc)) from None
    if out is not None:
        Path(out).write_text(format_markdown(rep))
    click.echo(dumps(rep) if as_json else format_text(rep), nl=as_json)


__all__ = ["experiment", "compare", "ladder", "ExperimentCliError"]
