"""The ``sichuan`` command line.

Every command that plays hands (simulate, trace, ...) takes the same rule options; they are
defined once here as click decorators (:func:`rules_options`, or :func:`rules_option` and
:func:`set_option` separately) and turned into a :class:`~simcore.rules.RuleSet` by
:func:`resolve_rules`.  A bad preset, option, value or rule file is reported as one line
``Error: <message>`` on stderr with exit status 2, never as a traceback.
"""

from __future__ import annotations

import json
from importlib import metadata

import click

from simcore import rules as rules_mod
from simcore.rules import DEFAULT_PRESET, RuleSet

DIST_NAME = "sichuan-sim"


def package_version() -> str:
    """The installed version of the ``sichuan-sim`` distribution (``0.0.0+unknown`` if absent)."""
    try:
        return metadata.version(DIST_NAME)
    except metadata.PackageNotFoundError:
        return "0.0.0+unknown"


class CliError(click.ClickException):
    """A user error: printed as a single ``Error: <message>`` line, exit status 2."""

    exit_code = 2


# -- shared rule options ------------------------------------------------------------------

PRESETS_HELP = (
    "Presets: battle (blood battle, the default: a winner leaves the hand), "
    "flow (blood flow: a winner stays, locked), "
    "chengdu (battle with a 6-fan cap, limit hands, pig pays the cap to winners and ready seats), "
    "kawu (battle with no exchange, 5-fan cap, passed-win lock)."
)
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


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())


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


@click.group(context_settings=CONTEXT_SETTINGS)
@click.version_option(package_version(), "--version", "-V", prog_name="sichuan")
def main():
    """Monte Carlo simulator of Sichuan mahjong (blood battle and blood flow).

    The rules are a rule set: one of four presets (battle, flow, chengdu, kawu), with any
    option overridden by --set KEY=VALUE or a TOML file. Run `sichuan rules` to see every
    option, and `sichuan COMMAND --help` for each command.
    """


@main.command("rules")
@click.argument("spec", required=False, metavar="[PRESET|FILE.toml]")
@rules_option
@set_option
@click.option("--json", "as_json", is_flag=True, help='Print {"preset": ..., "options": {...}} as JSON.')
@click.option("--toml", "as_toml", is_flag=True, help="Print a TOML rule file that reproduces these rules.")
def rules_cmd(spec, rules_spec, sets, as_json, as_toml):
    """Print every option of a rule set.

    PRESET is battle (default), flow, chengdu or kawu; FILE.toml is a rule file.

    \b
    battle   blood battle: a winner leaves; the hand ends when three have won
    flow     blood flow: a winner stays (locked) until the wall is exhausted
    chengdu  battle, 6-fan cap, limit hands, the pig pays the cap to winners
             and ready seats, the discard after a kong pays for all
    kawu     battle, no exchange, 5-fan cap, passed-win lock, no self-draw bonus

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
    """
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
