"""The ``sichuan`` command line.

Every command that plays hands (simulate, trace, ...) takes the same rule options; they are
defined once here as click decorators (:func:`rules_options`, or :func:`rules_option` and
:func:`set_option` separately) and turned into a :class:`~simcore.contract.rules.RuleSet` by
:func:`resolve_rules`.  A bad preset, option, value or rule file is reported as one line
``Error: <message>`` on stderr with exit status 2, never as a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from simcore.contract import rules as rules_mod
from simcore.contract.messages import one_line as _one_line
from simcore.contract.rules import DEFAULT_PRESET, RuleSet
from simcore.runs import DEFAULT_CHUNK_HANDS, SUMMARY_BY
from simcore.version import __version__

def package_version() -> str:
    """The installed version of the ``sichuan-sim`` distribution (``0.0.0+unknown`` if absent)."""
    return __version__


class CliError(click.ClickException):
    """A user error: printed as a single ``Error: <message>`` line, exit status 2."""

    exit_code = 2


# -- shared rule options ------------------------------------------------------------------

PRESETS_HELP = "Presets: " + "; ".join(f"{name} ({text})" for name, text in rules_mod.PRESET_SUMMARY.items()) + "."
TOML_HELP = (
    'A FILE.toml holds base = "kawu" (any preset; battle if omitted) plus options by '
    "the same names as --set, e.g. fan_cap = 5 and exchange = false."
)
SET_HELP = (
    "Override one rule option, e.g. --set fan_cap=5 or --set exchange=false; "
    "repeat for more. `sichuan rules` lists every option and its value."
)


def set_option(f):
    """Add the repeatable ``--set KEY=VALUE`` option (parameter ``sets``, a tuple of str)."""
    return click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help=SET_HELP)(f)


def rules_option(f):
    """Add ``--rules PRESET|FILE.toml`` (parameter ``rules_spec``, None means battle)."""
    return click.option(
        "--rules",
        "rules_spec",
        default=None,
        metavar="PRESET|FILE.toml",
        help=f"Rule set to start from: a preset name or a TOML file [default: {DEFAULT_PRESET}]. "
        + PRESETS_HELP
        + " "
        + TOML_HELP,
    )(f)


def rules_options(f):
    """``--rules PRESET|FILE.toml`` and repeatable ``--set KEY=VALUE``, for commands that play.

    The decorated command receives ``rules_spec`` and ``sets``; pass them to
    :func:`resolve_rules`::

        @main.command()
        @rules_options
        def simulate(rules_spec, sets):
            rules = resolve_rules(rules_spec, sets)
    """
    return rules_option(set_option(f))


def resolve_rules(spec: str | None = None, sets=()) -> RuleSet:
    """Preset name or TOML path (None: battle), then ``--set`` overrides -> RuleSet.

    Any problem (unknown preset or option, bad value, unreadable or invalid TOML,
    malformed ``--set``) raises :class:`CliError`, which click prints as one line.
    """
    try:
        return rules_mod.resolve(spec, list(sets or ()))
    except (ValueError, OSError) as exc:  # RuleError is a ValueError
        raise CliError(_one_line(exc)) from None


def format_value(value) -> str:
    """An option value as RULES.md writes it (booleans as true/false)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def rules_table(rules: RuleSet) -> str:
    """The preset line, then a two-column aligned table of every option and its value."""
    options = rules.options()
    base = rules_mod.preset(rules.preset).options()
    changed = [name for name, value in options.items() if base[name] != value]
    head = f"preset: {rules.preset}"
    if changed:
        head += f" (changed: {', '.join(changed)})"
    width = max(len(name) for name in options)
    lines = [head] + [f"{name:<{width}}  {format_value(value)}" for name, value in options.items()]
    return "\n".join(lines)


# -- commands ------------------------------------------------------------------------------

CONTEXT_SETTINGS = dict(help_option_names=["-h", "--help"], max_content_width=100)


PLUGIN_GROUP = "sichuan.commands"


class CommandsWithPlugins(click.Group):
    """The ``sichuan`` group: its own commands, and those that other packages register under the
    entry-point group ``sichuan.commands`` (the experiments package adds ``experiment`` and
    ``compare``; see pyproject.toml), loaded when first listed or called, so the core never
    imports the layers above it."""

    _plugins_loaded = False

    def _load_plugins(self) -> None:
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        from importlib.metadata import entry_points

        for ep in entry_points(group=PLUGIN_GROUP):
            if ep.name not in self.commands:
                self.add_command(ep.load(), ep.name)

    def list_commands(self, ctx):
        self._load_plugins()
        return super().list_commands(ctx)

    def get_command(self, ctx, name):
        if name not in self.commands:
            self._load_plugins()
        return super().get_command(ctx, name)


@click.group(cls=CommandsWithPlugins, context_settings=CONTEXT_SETTINGS)
@click.version_option(package_version(), "--version", "-V", prog_name="sichuan")
def main():
    """Monte Carlo simulator of Sichuan mahjong (blood battle and blood flow).

    The rules are a rule set: one of the presets ({presets}), with any option overridden by
    --set KEY=VALUE or a TOML file. Run `sichuan rules` to see every option, and
    `sichuan COMMAND --help` for each command.
    """


main.help = main.help.replace("{presets}", ", ".join(rules_mod.PRESETS))


@main.command("rules")
@click.argument("spec", required=False, metavar="[PRESET|FILE.toml]")
@rules_option
@set_option
@click.option("--json", "as_json", is_flag=True, help='Print {"preset": ..., "options": {...}} as JSON.')
@click.option("--toml", "as_toml", is_flag=True, help="Print a TOML rule file that reproduces these rules.")
@click.option("--diff", "diff", nargs=2, default=None, metavar="A B",
              help="Print only the options in which rule sets A and B (presets or files) differ.")
def rules_cmd(spec, rules_spec, sets, as_json, as_toml, diff):
    """Print every option of a rule set, or (--diff A B) the options two rule sets differ in.

    PRESET is one of the presets below (battle by default); FILE.toml is a rule file.

    \b
    {preset_table}

    \b
    A rule file names its base preset and the options it changes:
        base = "kawu"
        fan_cap = 6
        exchange = true
        pig_penalty = "cap"     # cap = 2 ** fan_cap

    \b
    Examples:
        sichuan rules
        sichuan rules kawu --json
        sichuan rules --set fan_cap=5 --set exchange=false
        sichuan rules my-rules.toml --toml > copy.toml
        sichuan rules --diff battle tfmj
    """
    if diff is not None:
        if spec is not None or rules_spec is not None or sets or as_toml:
            raise CliError("--diff A B compares two rule sets; give no other rule set, --set or --toml with it")
        a, b = (resolve_rules(x) for x in diff)
        changed = {k: (v, b.options()[k]) for k, v in a.options().items() if v != b.options()[k]}
        if as_json:
            click.echo(json.dumps({k: {"a": v, "b": w} for k, (v, w) in changed.items()}, indent=2))
            return
        if not changed:
            click.echo(f"{diff[0]} and {diff[1]} have the same options")
            return
        rows = [("option", diff[0], diff[1])] + [(k, format_value(v), format_value(w)) for k, (v, w) in changed.items()]
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        for r in rows:
            click.echo("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip())
        return
    if spec is not None and rules_spec is not None and spec != rules_spec:
        raise CliError(f"give the rule set once: {spec!r} or --rules {rules_spec!r}, not both")
    if as_json and as_toml:
        raise CliError("choose one of --json and --toml")
    rules = resolve_rules(spec if spec is not None else rules_spec, sets)
    if as_json:
        click.echo(json.dumps({"preset": rules.preset, "options": rules.options()}, indent=2))
    elif as_toml:
        click.echo(rules_mod.to_toml(rules), nl=False)
    else:
        click.echo(rules_table(rules))


def name_table(items: dict[str, str], wrap: int, indent: str = "    ") -> str:
    """``{name: text}`` for a help page: a name and its text a line, the text wrapped at ``wrap``
    under its own column, every line indented by ``indent``."""
    import textwrap

    pad = max(len(name) for name in items) + 2
    lines = []
    for name, text in items.items():
        wrapped = textwrap.wrap(text, wrap) or [""]
        lines.append(f"{indent}{name:<{pad}}{wrapped[0]}")
        lines += [indent + " " * pad + w for w in wrapped[1:]]
    return "\n".join(lines)


rules_cmd.help = rules_cmd.help.replace("    {preset_table}", name_table(rules_mod.PRESET_SUMMARY, 72))


# -- seats and hands --------------------------------------------------------------------------

SEATS_HELP = (
    "Seats' strategies: PLAY[+exchange=POLICY][+void=POLICY] for all four seats, or four such specs "
    "separated by commas (seat 0 first). Each part is a built-in (`sichuan strategies` lists them) or "
    "path/to/file.py:function. Omitted policies are the play's own: expert's and a user file's play's "
    "exchange=expert, void=expert; the other built-ins' exchange=shortest, void=fewest. "
    "[default: expert, with its own exchange and void policies]"
)


def seats_option(f):
    return click.option("--seats", "seats_spec", default=None, metavar="SPEC", help=SEATS_HELP)(f)


DRAW_ORDER_HELP = ("How draws take wall positions: table (one wall drawn in turn order, kong replacements from the "
                   "back, as the rule pages deal) or seat (each seat draws its own positions, so a claim that skips "
                   "turns leaves every seat's draws alone; the same game: docs/RULES.md, Rulings where the documents are silent, draw order).")


def draw_order_option(default: str):
    """``--draw-order`` with a command's default (``table`` where hands must stay as runs played them)."""
    from simcore.contract.rules import DRAW_ORDERS

    return click.option("--draw-order", "draw_order", type=click.Choice(DRAW_ORDERS), default=default,
                        show_default=True, help=DRAW_ORDER_HELP)


def full_names_option(f):
    return click.option("--full-names", is_flag=True,
                        help="Print seats by their canonical specs (every parameter and both policies, as the run "
                             "records them) instead of the shortest spec that names them.")(f)


def resolve_seats(spec, to_play=False, quiet=False) -> list:
    """Seat spec text -> its SeatSpecs, parsed once (they travel as objects from here); errors as
    one line. With ``to_play`` (a command that plays batches) a cold cache compiles the
    strategies in a child while this process compiles the engine (``simcore.runs.warmup``)."""
    from strategies.registry import StrategyError, parse_seats

    try:
        seats = parse_seats(spec)
    except StrategyError as exc:
        raise CliError(_one_line(exc)) from None
    if to_play:
        from simcore.runs.warmup import warm

        warm([",".join(s.canonical for s in seats)], quiet)  # the child takes the seats as text
    return seats


def exit_interrupted(exc: BaseException, quiet: bool = False):
    """Ctrl-C stopped a run: its one line (how many chunks are complete, how to resume) and exit
    status 130, not a traceback or "Aborted!"."""
    import sys

    click.echo(("\n" if not quiet and sys.stderr.isatty() else "") + _one_line(exc), err=True)
    sys.exit(130)


def parse_hand_range(text: str) -> list[int]:
    """``N`` or ``A-B`` (inclusive) -> the hand indices."""
    from simcore.inspection.run_hands import parse_hands

    try:
        return parse_hands(text)
    except ValueError as exc:
        raise CliError(f"--{exc}") from None


def rollout_options(f):
    """``--rollouts``, ``--policy`` and ``--discards``: how ``analyze`` and ``trace --review`` judge."""
    f = click.option("--discards", default=14, show_default=True, type=click.IntRange(1, 14),
                     help="On a turn, the discards judged (best first by a fast ranking), besides the seat's own.")(f)
    f = click.option("--policy", default=None, metavar="SPEC[,SPEC,SPEC,SPEC]",
                     help="Who plays the rollouts: one seat spec for all four seats or four (built-ins or "
                          "path/to/file.py:function) [default: the hand's own seats; a searching seat plays on "
                          "with its rollout policy].")(f)
    return click.option("--rollouts", default=500, show_default=True, type=click.IntRange(1, 1_000_000),
                        help="Sampled tables per decision; every candidate is played out on each of them.")(f)


def _show_trace_file(path: str, fmt: str, out: str | None) -> None:
    """``sichuan trace --from FILE``: a trace file's hands (TRACE.md events, a hand from each
    ``start`` event) as JSON Lines, text or a page."""
    from simcore.inspection.trace import read_trace, to_jsonl, to_text

    try:
        hands = read_trace(path)
    except (OSError, ValueError) as exc:
        raise CliError(f"{path}: {_one_line(exc)}") from None
    if fmt == "html":
        from simcore.inspection.page import HandViewer

        if out is None:
            raise CliError("--format html writes a file: add -o FILE.html")
        try:
            HandViewer(hands).save(out)
        except OSError as exc:
            raise CliError(f"cannot write {out}: {exc.strerror or exc}") from None
        click.echo(f"wrote {out} ({len(hands)} hand{'s' if len(hands) != 1 else ''}); open it in a browser", err=True)
        return
    text = "\n".join(to_text(h) if fmt == "text" else to_jsonl(h) for h in hands)
    if out is None:
        click.echo(text)
    else:
        try:
            Path(out).write_text(text + "\n")
        except OSError as exc:
            raise CliError(f"cannot write {out}: {exc.strerror or exc}") from None


@main.command("trace")
@click.argument("run_dir", required=False, metavar="[RUN_DIR]")
@rules_options
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Run seed [default: 0].")
@click.option("--hand", "hands", default=None, metavar="N|A-B", help="Hand index, or an inclusive range (required "
              "but with --from).")
@seats_option
@click.option("--from", "from_file", type=click.Path(exists=True, dir_okay=False), default=None, metavar="FILE.jsonl",
              help="Print (or show as a page) the hands of a trace file as they are, replaying nothing: e.g. an "
                   "agent's episode written by simcore.env (write_trace).")
@click.option("--format", "fmt", type=click.Choice(["json", "text", "html"]), default="json", show_default=True,
              help="json: TRACE.md's JSON Lines; text: one readable line per event; html: a page that replays "
                   "the hands in a browser (needs -o; at most 500 hands a page, simcore.inspection.page.MAX_HANDS).")
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False, writable=True), default=None, metavar="FILE",
              help="Write to FILE instead of standard output (required by --format html).")
@click.option("--review", "review_seat", type=click.IntRange(0, 3), default=None, metavar="SEAT",
              help="With --format html: judge each decision of SEAT by rollouts (as `sichuan analyze`) and show "
                   "next to it what every option was worth, what the seat gave up, and the costliest decisions.")
@rollout_options
@click.option("--allow-changed-strategy", is_flag=True,
              help="Replay a run's hands though a strategy file (or one it imports) changed since the run: "
                   "one warning line, and the hands may differ from the run's.")
@draw_order_option("table")
def trace_cmd(run_dir, rules_spec, sets, seed, hands, seats_spec, from_file, fmt, out, review_seat, rollouts, policy,
              discards, allow_changed_strategy, draw_order):
    """Replay hands and print every event (docs/TRACE.md), or write them as a page to watch.

    Without RUN_DIR, hands are independent hands of the given rules, seats and seed: hand N is
    dealt by seat N mod 4 and its wall depends only on (seed, N). With RUN_DIR, the hands of
    that run are replayed with its own rules, seats and seed, and equal its Parquet rows.

    With --review SEAT the page also shows, at each decision of that seat, every option judged by
    rollouts (as `sichuan analyze` does: mean net to the hand's end, 95% interval, gap to the
    best), what the seat chose and gave up, and a summary of its costliest decisions (about a
    second per hand at 200 rollouts).

    \b
    Examples:
        sichuan trace --seed 7 --hand 3 --format text
        sichuan trace --rules flow --seats greedy --seed 1 --hand 0-2
        sichuan trace runs/demo --hand 12345
        sichuan trace --rules flow --seed 1 --hand 0 --format html -o hand.html
        sichuan trace --seed 7 --hand 3 --format html --review 0 -o review.html
        sichuan trace --from episode.jsonl --format text
    """
    from simcore.engine import RunOptions
    from simcore.inspection.run_hands import ONLY_THE_RUNS_OWN, hands_of_run, independent_hands
    from simcore.inspection.trace import to_jsonl, to_text

    if from_file is not None:
        if run_dir is not None or hands is not None or rules_spec is not None or sets or seed is not None \
                or seats_spec is not None or review_seat is not None:
            raise CliError("--from prints a trace file as it is: give no RUN_DIR, --hand, --rules, --set, --seed, "
                           "--seats or --review with it")
        _show_trace_file(from_file, fmt, out)
        return
    if hands is None:
        raise CliError("Missing option '--hand' (or --from FILE.jsonl)")
    wanted = parse_hand_range(hands)
    if review_seat is not None and fmt != "html":
        raise CliError("--review draws its judgements on the page: add --format html -o FILE.html "
                       "(for a table of them, sichuan analyze)")
    if fmt == "html":
        from simcore.inspection.page import MAX_HANDS

        if out is None:
            raise CliError("--format html writes a file: add -o FILE.html")
        if len(wanted) > MAX_HANDS:
            raise CliError(f"--hand {hands}: {len(wanted)} hands, but one page shows at most {MAX_HANDS}; "
                           f"ask for a smaller range")
    if run_dir is not None:
        if rules_spec is not None or sets or seed is not None or seats_spec is not None or draw_order != "table":
            raise CliError(ONLY_THE_RUNS_OWN)
        try:
            setups = hands_of_run(run_dir, wanted, allow_changed_strategy)
        except (ValueError, OSError) as exc:
            raise CliError(_one_line(exc)) from None
    else:
        rules, seats = resolve_rules(rules_spec, sets), resolve_seats(seats_spec)
        try:   # a seat's model of the other blood is refused
            setups = independent_hands(rules, seats, 0 if seed is None else seed, wanted, RunOptions(draw_order))
        except ValueError as exc:
            raise CliError(_one_line(exc)) from None
    traced = [h.trace(run_dir) for h in setups]
    # a hand stopped by an illegal answer shows its events up to it and an error event saying
    # why, then the command stops with the one-line message
    errors = [(i, h.error_message()) for i, h in enumerate(traced)]
    first_error = next(((i, err) for i, err in errors if err), None)
    if first_error is not None:
        traced = traced[:first_error[0] + 1]
    if fmt == "html":
        from simcore.inspection.page import HandViewer

        reviews = None
        if review_seat is not None:
            from simcore.inspection.review import review_hands

            def progress(h):
                click.echo(f"reviewing seat {review_seat} in hand {h.g} ({rollouts} rollouts a decision) ...", err=True)

            try:
                reviews = review_hands(setups, traced, review_seat, rollouts, policy, discards, progress)
            except ValueError as exc:
                raise CliError(_one_line(exc)) from None
        try:
            HandViewer([h.events for h in traced], reviews=reviews).save(out)
        except OSError as exc:
            raise CliError(f"cannot write {out}: {exc.strerror or exc}") from None
        if first_error is None:
            click.echo(f"wrote {out} ({len(traced)} hand{'s' if len(traced) != 1 else ''}); open it in a browser", err=True)
    else:
        text = "\n".join(to_text(h.events) if fmt == "text" else to_jsonl(h.events) for h in traced)
        if out is None:
            click.echo(text)
        else:
            try:
                with open(out, "w", encoding="utf-8") as f:
                    f.write(text + "\n")
            except OSError as exc:
                raise CliError(f"cannot write {out}: {exc.strerror or exc}") from None
    if first_error is not None:
        raise CliError(first_error[1])


def _progress_printer(label: str):
    """A progress line on stderr with hands/s and ETA (redrawn in place on a terminal)."""
    import sys

    tty = sys.stderr.isatty()
    state = {"last": 0.0, "start": None}

    def show(done: int, total: int, seconds: float) -> None:
        if state["start"] is None:  # a resumed run's rate counts only the hands this session plays
            state["start"] = done
        rate = (done - state["start"]) / seconds if seconds > 0 else 0.0
        left = (total - done) / rate if rate > 0 else float("nan")
        width = 30
        fill = int(width * done / total) if total else width
        eta = "--:--" if left != left else f"{int(left // 60):02d}:{int(left % 60):02d}"
        line = (f"{label} [{'#' * fill}{'.' * (width - fill)}] {done:,}/{total:,} hands"
                f"  {rate:,.0f} hands/s  ETA {eta}")
        if tty:
            click.echo("\r" + line, nl=done >= total, err=True)
        elif done >= total or seconds - state["last"] >= 10:
            state["last"] = seconds
            click.echo(line, err=True)

    return show


def _totals(run_dir, by: str):
    """The run's streamed totals (``analysis.totals``), errors as one line."""
    from simcore.runs import analysis, shards as rio

    try:
        return rio.read_manifest(run_dir), analysis.totals(run_dir, by)
    except (ValueError, OSError) as exc:
        raise CliError(_one_line(exc)) from None


def _format_summary(run_dir, by: str, full_names: bool = False) -> str:
    from simcore.runs import analysis
    from strategies.names import short_names

    m, totals = _totals(run_dir, by)
    table = totals.summary()
    over = totals.overview()
    cfg = m["config"]
    seat_name = short_names(cfg["seats"], full_names)
    lines = [f"run: {m['hands']:,} hands ({cfg['mode']}), rules {cfg['rules']['preset']}, seed {cfg['seed']}, "
             f"{m['chunks']} chunks{'' if m.get('complete') else ' (incomplete: rerun the simulate command to finish)'}"]
    ends = ", ".join(f"{k} {v:.1%}" for k, v in over["end_reasons"].items())
    winners = ", ".join(f"{k}: {v:.1%}" for k, v in over["winners_per_hand"].items())
    if by == "dealer" and len(set(cfg["seats"])) == 1:
        lines.append(f"seats: {seat_name[cfg['seats'][0]]} at all four (`sichuan summarize RUN --by seat` for each seat)")
    elif by != "strategy":
        lines.append("seats: " + ", ".join(f"{s} {seat_name[x]}" for s, x in enumerate(cfg["seats"])))
    lines.append(f"end reasons: {ends}")
    lines.append(f"winners per hand: {winners}; mean turns {over['mean_turns']:.1f}")
    lines.append("")
    for r in table.to_dict("records"):   # rows as records keep each column's type (a seat is an int)
        key = seat_name.get(r[by], r[by]) if by == "strategy" else r[by]
        lines.append(f"{by} {key}" if by != "dealer" else f"{r[by]} (seats that dealt the hand)"
                     if r[by] == "dealer" else f"{r[by]} (the three seats that did not deal)")
        lines.append(f"  hands {r['hands']:,}   mean net per hand {mean_text(r['mean_net'], r['net_low'], r['net_high'], r['hands'])}")
        # these four count first wins (a blood-flow seat may win again); the patterns below count all
        lines.append(f"  first wins: win rate {r['win_rate']:.3f}   self-draw share {r['self_draw_share']:.3f} "
                     f"(kong replacements included)   mean fan {r['mean_fan']:.2f}   "
                     f"first-win mean base {r['mean_base']:.2f}")
        lines.append(f"  flower pig {rate_text(r['pigs'], r['seat_hands'], r['pig_low'], r['pig_high'])} per seat-hand, "
                     f"{rate_text(r['pigs'], r['checked'], r['pig_checked_low'], r['pig_checked_high'])} per checked seat-hand")
        lines.append(f"  ready at the draw {r['ready_rate']:.3f}")
        lines.append("  net by reason: " + ", ".join(f"{k[4:]} {r[k]:+.3f}" for k in analysis.NET_REASONS))
    pat = totals.patterns()
    if len(pat):
        lines.append("")
        lines.append("all wins (not only first ones): patterns (share of all wins) and all-win mean base:")
        names = [c for c in pat.columns if c not in (by, "wins", "mean_base", "mean_paid")]
        for _, r in pat.iterrows():
            shares = ", ".join(f"{n} {r[n]:.3f}" for n in names if r[n] > 0)
            key = seat_name.get(r[by], r[by]) if by == "strategy" else r[by]
            lines.append(f"  {key}: {int(r['wins']):,} wins, all-win mean base {r['mean_base']:.2f}; "
                         f"{shares or 'basic only'}")
    return "\n".join(lines)


def number(x: float, digits: int = 3) -> str:
    """A figure with ``digits`` significant digits (never 0.0000 for a small nonzero one)."""
    import math

    if x != x:
        return "n/a"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e5:
        return f"{x:.{max(digits - 1 - math.floor(math.log10(abs(x))), 0)}f}"
    return f"{x:.{digits - 1}e}"


def mean_text(mean: float, low: float, high: float, n: int) -> str:
    """A mean with its 95% interval, or with its count where too few values make a normal
    interval meaningless."""
    from simcore.runs.analysis import MIN_NORMAL

    if n < MIN_NORMAL:
        return f"{mean:+.3f} (n = {n}: too few for a 95% interval)"
    return f"{mean:+.3f}  [95% CI {low:+.3f}, {high:+.3f}]"


def rate_text(k: int, n: int, low: float, high: float) -> str:
    """A rate with its events and Wilson 95% interval: ``2.5e-06 (5 of 2,000,000) [1.1e-06, 5.9e-06]``."""
    if not n:
        return "n/a (none)"
    return f"{number(k / n)} ({k:,} of {n:,}) [{number(low)}, {number(high)}]"


def _summary_json(run_dir, by: str) -> dict:
    def clean(records):
        return [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in records]

    m, totals = _totals(run_dir, by)
    return {"manifest": m, "overview": totals.overview(), "by": by, "summary": clean(totals.summary().to_dict("records")),
            "patterns": clean(totals.patterns().to_dict("records"))}


@main.command("simulate")
@rules_options
@click.option("--hands", "n_hands", type=int, default=None, help="Independent hands to play (hand i is dealt by seat i mod 4).")
@click.option("--matches", "n_matches", type=int, default=None,
              help="Matches of hands_per_match hands each, from start_points, seat 0 dealing first.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Run seed: hand i's wall depends only on (seed, i).")
@seats_option
@click.option("--out", "out", required=True, metavar="DIR", help="Run directory (created; an existing run is resumed or extended).")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Worker processes [default: the machine's cores].")
@click.option("--chunk-hands", type=click.IntRange(min=1), default=DEFAULT_CHUNK_HANDS, show_default=True,
              help="Hands per chunk: the unit of work, checkpoint and progress (whole matches in match mode).")
@click.option("--executor", "executor_kind", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local: worker processes on this machine; dask: a Dask cluster (see --scheduler).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Dask scheduler address (implies --executor dask); without it a LocalCluster sized to the machine.")
@click.option("--check", is_flag=True, help="Check the engine's invariants after every step (slower).")
@click.option("--quiet", "-q", is_flag=True, help="No progress line and no summary.")
@draw_order_option("table")
@click.option("--luck", is_flag=True,
              help="Measure each seat's luck with the shipped value model of the rules' preset (the seats table's "
                   "luck column; net - luck has the same mean and less variance: README, Cheaper duplicate answers).")
@full_names_option
def simulate_cmd(rules_spec, sets, n_hands, n_matches, seed, seats_spec, out, workers, chunk_hands, executor_kind,
                 scheduler, check, quiet, draw_order, luck, full_names):
    """Play hands into a run directory of Parquet datasets, then print a summary.

    Writes OUT/run.json and OUT/hands/, OUT/seats/, OUT/payments/, OUT/wins/ (one shard per
    chunk). Rerunning the same command resumes an interrupted run; a larger --hands extends
    it; a different rule set, seats, seed or chunk size is refused. The same version, seed
    and configuration give the same results, whatever --workers.

    \b
    Examples:
        sichuan simulate --hands 1000000 --out runs/demo
        sichuan simulate --rules flow --seats greedy,efficient,efficient,efficient --hands 200000 --out runs/g1
        sichuan simulate --rules kawu --matches 10000 --out runs/kawu-matches
    """
    if (n_hands is None) == (n_matches is None):
        raise CliError("give exactly one of --hands N and --matches M")
    n = n_hands if n_hands is not None else n_matches
    if n <= 0:
        raise CliError(f"--{'hands' if n_hands is not None else 'matches'} must be positive, got {n}")
    rules = resolve_rules(rules_spec, sets)
    seats = resolve_seats(seats_spec, to_play=True, quiet=quiet)
    from simcore.runs.runner import RunConfig, RunError, RunInterrupted, run

    value_model = None
    if luck:
        from simcore.runs.value_model import shipped

        try:
            value_model = shipped(rules)[1]
        except ValueError as exc:
            raise CliError(_one_line(exc)) from None
    cfg = RunConfig(rules, tuple(seats), seed, "hands" if n_hands is not None else "matches", n, chunk_hands,
                    draw_order=draw_order, value_model=value_model)
    try:
        manifest = run(out, cfg, workers=workers, check=check, progress=None if quiet else _progress_printer("simulate"),
                       executor_kind="dask" if scheduler else executor_kind, scheduler=scheduler)
    except RunInterrupted as exc:
        exit_interrupted(exc, quiet)
    except RunError as exc:
        raise CliError(_one_line(exc)) from None
    if not quiet:
        t = manifest["timings"]
        rate = t.get("last_session_hands_per_second")
        played = t.get("last_session_hands", manifest["hands"])
        if not rate:
            click.echo(f"wrote {out}: {manifest['hands']:,} hands (already complete)")
        else:  # a resumed or extended run played only part of its hands in this session
            click.echo(f"wrote {out}: {played:,} hands in {t['last_session_seconds']:.1f} s ({rate:,.0f} hands/s)"
                       + (f"; the run holds {manifest['hands']:,}" if played != manifest["hands"] else ""))
        # four seats of one strategy: every strategy mean is 0; the dealer against the others says more
        click.echo(_format_summary(out, "dealer" if len(set(cfg.seat_names)) == 1 else "strategy", full_names))


@main.command("dataset")
@rules_options
@seats_option
@click.option("--record", "record_spec", default="0", show_default=True, metavar="SEATS",
              help="The seats whose decisions become rows: seat numbers separated by commas (0,1,2,3), or 'all'.")
@click.option("--hands", "n_hands", type=click.IntRange(min=1), required=True, help="Hands to play (hands 0..N-1 of the seed).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Hand g of seed s is hand g of `sichuan simulate --seed s`.")
@click.option("--out", "out", required=True, metavar="DIR", help="Dataset directory (created; an existing one is resumed or extended).")
@click.option("--chunk-hands", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Hands per Parquet file (memory holds about one chunk's rows: 4 KB a decision).")
@click.option("--tables", type=click.IntRange(min=1), default=256, show_default=True,
              help="Tables stepped together (more: fewer Python steps, more memory).")
@draw_order_option("table")
@click.option("--quiet", "-q", is_flag=True, help="No progress line.")
def dataset_cmd(rules_spec, sets, seats_spec, record_spec, n_hands, seed, out, chunk_hands, tables, draw_order, quiet):
    """Record every decision of some seats as Parquet rows, for imitation and value learning.

    Plays the hands `sichuan simulate` would (same rules, seats and seed, hand for hand) and
    writes, for each decision of a recorded seat (a question with two or more legal answers;
    each of the exchange's three picks is one): hand, seat, step, question, obs (the
    observation vector of the Python agents' environments), mask, action, the seat's net for
    the hand, and for a searching seat the candidates it judged with their values.
    OUT/dataset.json describes the columns; OUT/part-NNNNNN.parquet holds each chunk. Rerunning
    the command resumes; a larger --hands extends; other changes are refused.

    \b
    Examples:
        sichuan dataset --seats expert --record all --hands 20000 --out runs/expert-decisions
        sichuan dataset --rules flow --seats "search,expert,expert,expert" --record 0 --hands 200 --out runs/search-dec
    """
    from simcore.env.dataset import DatasetError, record

    rules = resolve_rules(rules_spec, sets)
    seats = resolve_seats(seats_spec, to_play=True, quiet=quiet)
    try:
        rec_seats = [0, 1, 2, 3] if record_spec.strip() == "all" else [int(x) for x in record_spec.split(",")]
    except ValueError:
        raise CliError(f"--record: seat numbers separated by commas (0-3) or 'all', got {record_spec!r}") from None
    try:
        m = record(out, rules, seats, rec_seats, n_hands, seed=seed, chunk=chunk_hands, tables=tables,
                   draw_order=draw_order, progress=None if quiet else _progress_printer("dataset"))
    except KeyboardInterrupt:
        exit_interrupted(KeyboardInterrupt(f"interrupted: complete chunks are kept in {out}; rerun the same command "
                                           "to finish"), quiet)
    except (DatasetError, ValueError) as exc:
        raise CliError(_one_line(exc)) from None
    if not quiet:
        t = m["timings"]
        rate = t.get("last_session_decisions_per_second")
        click.echo(f"wrote {out}: {m['hands']:,} hands" + (f", {t['last_session_rows']:,} decisions this session "
                   f"({rate:,.0f} decisions/s)" if rate else " (already complete)"))


@main.command("summarize")
@click.argument("run_dir", metavar="RUN_DIR")
@click.option("--by", type=click.Choice(SUMMARY_BY), default="strategy", show_default=True,
              help="Group seats by strategy, by one of its parts (play, exchange_policy, void_policy), by seat "
                   "(0-3), or as the dealer against the others.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (strategies by their canonical specs).")
@full_names_option
def summarize_cmd(run_dir, by, as_json, full_names):
    """Per-strategy (or per-seat) results of a run with 95% intervals.

    Mean net per hand (the hand is the unit: a strategy's seats in one hand are averaged
    first); of first wins (a seat's first win in a hand): win rate, self-drawn share (kong
    replacements included), mean fan and base; flower-pig rate with Wilson intervals (per
    seat-hand and per checked seat-hand), ready-at-draw rate, net by reason; the run's end
    reasons and winners per hand; of all wins: the share with each fan pattern and the mean base.
    """
    if as_json:
        click.echo(json.dumps(_summary_json(run_dir, by), indent=2, default=str))
    else:
        click.echo(_format_summary(run_dir, by, full_names))


def _integers_as_integers(df, rel):
    """DuckDB's integer results as integers (a sum is a HUGEINT, which pandas receives as float)."""
    ints = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
            "UHUGEINT")
    for name, typ in zip(rel.columns, rel.types):
        if str(typ) in ints and name in df.columns and df[name].dtype.kind == "f":
            column = df[name]
            if column.isna().any() or column.abs().max() >= 2 ** 63:
                df[name] = column.astype(object).where(column.isna(), column.map(lambda v: v if v != v else int(v)))
            else:
                df[name] = column.astype("int64")
    return df


@main.command("sql")
@click.argument("run_dir", metavar="RUN_DIR")
@click.argument("query", metavar="QUERY")
@click.option("--csv", "as_csv", is_flag=True, help="Print the result as CSV.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (a list of rows).")
@click.option("--max-rows", default=100, show_default=True, type=click.IntRange(min=1),
              help="Rows printed as a table (CSV and JSON print every row).")
def sql_cmd(run_dir, query, as_csv, as_json, max_rows):
    """Run an SQL query (DuckDB) over a run's tables, however big the run.

    The views hands, seats, payments and wins read the run's complete chunks only, straight from
    its Parquet shards; columns are those of the README's column reference.

    \b
    Examples:
        sichuan sql runs/big "SELECT count(*) FROM hands"
        sichuan sql runs/big "SELECT strategy, avg(flower_pig::int) AS pig_rate FROM seats GROUP BY ALL"
        sichuan sql runs/big "SELECT reason, sum(amount) FROM payments GROUP BY ALL ORDER BY 2 DESC" --csv
    """
    from simcore.runs import analysis

    if as_csv and as_json:
        raise CliError("choose one of --csv and --json")
    try:
        con = analysis.sql(run_dir)
    except (ValueError, OSError) as exc:
        raise CliError(_one_line(exc)) from None
    import duckdb

    try:
        rel = con.sql(query)
        if rel is None:
            raise CliError("the query returned no result; give a SELECT (the run's views are read-only)")
        df = _integers_as_integers(rel.df(), rel)
    except duckdb.Error as exc:
        raise CliError(f"query failed: {_one_line(exc)}") from None
    if as_csv:
        click.echo(df.to_csv(index=False), nl=False)
    elif as_json:
        click.echo(df.to_json(orient="records", date_format="iso"))
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", max_rows, "display.max_columns", None, "display.width", 200):
            click.echo(df.to_string(index=False, max_rows=max_rows))
        if len(df) > max_rows:
            click.echo(f"({len(df):,} rows; --csv or --json prints them all)")


@main.command("analyze")
@click.argument("run_dir", required=False, metavar="[RUN_DIR]")
@rules_options
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Run seed [default: 0].")
@click.option("--hand", "hand", required=True, type=click.IntRange(min=0), help="Hand index.")
@click.option("--seat", "seat", required=True, type=click.IntRange(0, 3), help="The seat whose decisions are judged.")
@click.option("--decision", "decision", type=click.IntRange(min=0), default=None,
              help="Judge only the K-th decision (from 0; questions where the seat had a choice). [default: all]")
@rollout_options
@seats_option
@click.option("--format", "fmt", type=click.Choice(["text", "csv", "json"]), default="text", show_default=True)
@click.option("--allow-changed-strategy", is_flag=True,
              help="Judge a run's hand though a strategy file (or one it imports) changed since the run (a warning).")
@draw_order_option("table")
@full_names_option
def analyze_cmd(run_dir, rules_spec, sets, seed, hand, seat, decision, rollouts, policy, discards, seats_spec, fmt,
                allow_changed_strategy, draw_order, full_names):
    """Judge a seat's decisions in one hand by playing the rest of the hand out many times.

    For each decision (or the K-th), every candidate answer with the seat's mean net from the
    decision to the end of the hand over the rollouts and its 95% interval, what it falls short of
    the best by with a paired 95% interval (the same sampled tables for both; never above 0), and
    which one the seat chose. The tables are sampled from
    the seat's view alone (what it could see); the rollouts are played by the hand's own seats, or by
    --policy (the output says who played).
    Without RUN_DIR the hand is hand N of the given rules, seats and seed, as `sichuan trace`
    plays it.

    \b
    Examples:
        sichuan analyze --seed 7 --hand 3 --seat 0 --decision 0 --rollouts 1000
        sichuan analyze runs/demo --hand 12 --seat 2 --rollouts 200
    """
    from simcore.engine import RunOptions
    from simcore.inspection.review import hand_setup, judge_hand
    from simcore.inspection.run_hands import ONLY_THE_RUNS_OWN

    try:
        if run_dir is not None:
            if rules_spec is not None or sets or seed is not None or seats_spec is not None or draw_order != "table":
                raise CliError(ONLY_THE_RUNS_OWN)
            h = hand_setup(run=run_dir, hand=hand, allow_changed_strategy=allow_changed_strategy)
        else:
            h = hand_setup(hand=hand, rules=resolve_rules(rules_spec, sets), seats=resolve_seats(seats_spec),
                           seed=0 if seed is None else seed, options=RunOptions(draw_order))
        show = None
        if decision is None:
            def show(k, p):
                click.echo(f"judging decision {k} (resume point {p}) ...", err=True)
        from simcore.inspection.review import rollout_seats, rollouts_text

        specs = rollout_seats(h, policy)
        by = rollouts_text(specs, full_names)
        rows = judge_hand(h, seat, decision, rollouts, specs, discards, show)
    except (ValueError, OSError) as exc:
        raise CliError(_one_line(exc)) from None
    import pandas as pd

    df = pd.DataFrame(rows).assign(rollouts_by=by)
    if fmt == "csv":
        click.echo(df.to_csv(index=False), nl=False)
    elif fmt == "json":
        click.echo(df.to_json(orient="records", indent=1))
    else:
        click.echo(f"rollouts played by: {by}")
        click.echo(format_judgements(df))


def format_judgements(df) -> str:
    """``sichuan analyze``'s text: a block per decision, candidates best first."""
    if df.empty:
        return "no decisions: the seat had no choice to make in this hand"
    from simcore.inspection.review import shortfall

    def short(x: float) -> str:   # a shortfall as shown: 0.00, or below it
        text = f"{shortfall(x):.2f}"
        return text if text == "0.00" else "-" + text

    lines = []
    for k, d in df.groupby("decision", sort=True):
        first = d.iloc[0]
        what = first["question"] + (f" on {first['tile']}" if first["tile"] else "")
        lines.append(f"decision {k}: {what} ({first['rollouts']} rollouts)")
        for r in d.itertuples():
            mark = "*" if r.chosen else " "
            gap = "best" if r.best else f"{short(r.gap)} [{short(r.gap_hi)}, {short(r.gap_lo)}]"
            lines.append(f" {mark} {r.candidate:<16} {r.mean:+7.2f} [{r.lo:+.2f}, {r.hi:+.2f}]   {gap}")
    lines.append("(* the seat's own choice; mean net from the decision to the hand's end, with its 95% interval;\n"
                 " what it falls short of the best by, with a paired 95% interval: never above 0)")
    return "\n".join(lines)


@main.command("strategies")
@click.argument("file", required=False, metavar="[FILE]")
@click.option("--check", "check_spec", default=None, metavar="SPEC",
              help="Run the conformance check on a seat spec: legal answers in 10,000 situations from real "
                   "play, and in every kind of situation (steered hands for rare ones) at least 200 times.")
@click.option("--situations", default=10000, show_default=True, type=click.IntRange(min=1),
              help="Situations from real play for --check.")
def strategies_cmd(file, check_spec, situations):
    """List the built-in strategies with their parameters; with FILE (a user strategy file), the
    strategies it defines (a wrapper's own parameters, and the built-in it wraps); or check one
    (--check SPEC)."""
    from strategies.registry import StrategyError, describe_builtins, describe_file

    if file is not None:
        if check_spec is not None:
            raise CliError("give a FILE or --check SPEC, not both")
        try:
            click.echo(describe_file(file.rpartition(":")[0] if ".py:" in file else file))
        except StrategyError as exc:
            raise CliError(_one_line(exc)) from None
        return
    if check_spec is None:
        click.echo(describe_builtins())
        return
    from simcore.inspection.conformance import check_spec as run_check

    try:
        report = run_check(check_spec, situations=situations)
    except ValueError as exc:
        raise CliError(_one_line(exc)) from None
    click.echo(report.summary(with_failure=False))
    if not report.ok:
        raise CliError(report.first_failure())


__all__ = [
    "main",
    "CliError",
    "package_version",
    "rules_option",
    "set_option",
    "rules_options",
    "resolve_rules",
    "rules_table",
    "format_value",
]


if __name__ == "__main__":  # python -m simcore.cli
    main()
