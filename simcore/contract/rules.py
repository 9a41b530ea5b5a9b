"""Rule sets: every option of RULES.md: Options and presets; the presets, overrides.

A :class:`RuleSet` is immutable. Users change it with ``--set key=value`` or a TOML file
(``base = "kawu"`` plus options by the same names). Kernels never see Python objects: they
receive :meth:`RuleSet.to_array`, a small int64 array indexed by the ``R_*`` constants.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from simcore.contract.messages import did_you_mean

PRESETS = ("battle", "flow", "chengdu", "kawu", "tfmj")
DEFAULT_PRESET = "battle"
# What each preset is, in a line: every list of presets in help and messages is made from this.
PRESET_SUMMARY = {
    "battle": "blood battle, the default: a winner leaves; the hand ends when three have won",
    "flow": "blood flow: a winner stays, locked, until the wall is exhausted",
    "chengdu": "battle, 6-fan cap, limit hands, the pig pays the cap to winners and ready seats, "
               "the discard after a kong pays for all",
    "kawu": "battle, no exchange, 5-fan cap, passed-win lock, no self-draw bonus",
    "tfmj": "the 2024 competition standard: battle, no exchange, 3-fan cap, call transfer, shoot after a "
            "kong 1 fan, passed-win lock with higher wins allowed, added kongs only from the drawn tile, "
            "no pig penalty",
}
assert tuple(PRESET_SUMMARY) == PRESETS

VARIANTS = ("battle", "flow")
PIG_PAYS = ("non_pigs", "remaining", "winners_and_ready")
KONG_DISCARD_LIABILITY = ("none", "pays_for_all", "transfer")
EXPOSED_KONG_BLOOM = ("self_draw", "feeder_pays")


@dataclass(frozen=True)
class RuleSet:
    """Every option of RULES.md, with the battle preset's values as defaults."""

    variant: str = "battle"
    exchange: bool = True
    claim_while_void: bool = False
    kong_while_void: bool = False
    added_kong_drawn_only: bool = False
    passed_win_lock: bool = False
    passed_win_higher: bool = False
    fan_cap: int = 4
    limit_hands: bool = False
    self_draw_bonus: int = 1
    kong_pay_concealed: int = 2
    kong_pay_added: int = 1
    kong_pay_exposed: int = 2
    exposed_kong_bloom: str = "self_draw"
    kong_refund: bool = True
    pig_penalty: int | str = 16
    pig_pays: str = "non_pigs"
    pig_pays_ready_check: bool = False
    ready_check: bool = True
    kong_discard_liability: str = "none"
    hands_per_match: int = 8
    start_points: int = 100
    fan_all_triplets: int = 1
    fan_seven_pairs: int = 2
    fan_full_flush: int = 2
    fan_four_declared: int = 1
    fan_root: int = 1
    fan_kong_replacement: int = 1
    fan_robbing_kong: int = 1
    fan_last_tile: int = 1
    fan_kong_discard: int = 0
    fan_self_draw: int = 0
    preset: str = dataclasses.field(default="battle", compare=False)

    def __post_init__(self):
        for f in fields(self):
            if f.name != "preset":
                _check(f.name, getattr(self, f.name))
        if self.passed_win_higher and not self.passed_win_lock:
            raise RuleError("option passed_win_higher: true needs passed_win_lock = true (it relaxes that lock)")

    # -- views -------------------------------------------------------------------------
    def options(self) -> dict[str, Any]:
        """Every option with its effective value, in the order of RULES.md: Options and presets."""
        return {name: getattr(self, name) for name in OPTION_NAMES}

    @property
    def pig_penalty_points(self) -> int:
        return 2**self.fan_cap if self.pig_penalty == "cap" else int(self.pig_penalty)

    def to_array(self) -> np.ndarray:
        """The numeric form the kernels read (indices ``R_*``)."""
        a = np.zeros(N_RULE_FIELDS, dtype=np.int64)
        for index, name in _ARRAY_OPTIONS.items():   # numbers and flags as they are
            a[index] = getattr(self, name)
        a[R_FLOW] = self.variant == "flow"
        a[R_PIG_PENALTY] = self.pig_penalty_points
        a[R_PIG_PAYS] = PIG_PAYS.index(self.pig_pays)
        a[R_KONG_DISCARD_LIABILITY] = KONG_DISCARD_LIABILITY.index(self.kong_discard_liability)
        a[R_EXPOSED_KONG_BLOOM] = EXPOSED_KONG_BLOOM.index(self.exposed_kong_bloom)
        return a

    def replace(self, **changes) -> "RuleSet":
        return dataclasses.replace(self, **changes)


# Option metadata: (kind, allowed) for validation and parsing.
_BOOL = ("bool", None)
OPTION_SPECS: dict[str, tuple[str, Any]] = {
    "variant": ("choice", VARIANTS),
    "exchange": _BOOL,
    "claim_while_void": _BOOL,
    "kong_while_void": _BOOL,
    "added_kong_drawn_only": _BOOL,
    "passed_win_lock": _BOOL,
    "passed_win_higher": _BOOL,
    "fan_cap": ("int", (1, 8)),
    "limit_hands": _BOOL,
    "self_draw_bonus": ("int", (0, 1000)),
    "kong_pay_concealed": ("int", (0, 1000)),
    "kong_pay_added": ("int", (0, 1000)),
    "kong_pay_exposed": ("int", (0, 1000)),
    "exposed_kong_bloom": ("choice", EXPOSED_KONG_BLOOM),
    "kong_refund": _BOOL,
    "pig_penalty": ("int_or_cap", (0, 100000)),
    "pig_pays": ("choice", PIG_PAYS),
    "pig_pays_ready_check": _BOOL,
    "ready_check": _BOOL,
    "kong_discard_liability": ("choice", KONG_DISCARD_LIABILITY),
    "hands_per_match": ("int", (1, 1000)),
    "start_points": ("int", (-1000000, 1000000)),
    "fan_all_triplets": ("int", (0, 8)),
    "fan_seven_pairs": ("int", (0, 8)),
    "fan_full_flush": ("int", (0, 8)),
    "fan_four_declared": ("int", (0, 8)),
    "fan_root": ("int", (0, 8)),
    "fan_kong_replacement": ("int", (0, 8)),
    "fan_robbing_kong": ("int", (0, 8)),
    "fan_last_tile": ("int", (0, 8)),
    "fan_kong_discard": ("int", (0, 8)),
    "fan_self_draw": ("int", (0, 8)),
}
OPTION_NAMES = tuple(OPTION_SPECS)
FAN_OPTIONS = tuple(n for n in OPTION_NAMES if n.startswith("fan_") and n != "fan_cap")

(
    R_FLOW, R_EXCHANGE, R_CLAIM_WHILE_VOID, R_KONG_WHILE_VOID, R_PASSED_WIN_LOCK, R_FAN_CAP,
    R_LIMIT_HANDS, R_SELF_DRAW_BONUS, R_KONG_PAY_CONCEALED, R_KONG_PAY_ADDED, R_KONG_PAY_EXPOSED,
    R_KONG_REFUND, R_PIG_PENALTY, R_PIG_PAYS, R_PIG_PAYS_READY_CHECK, R_READY_CHECK,
    R_KONG_DISCARD_LIABILITY, R_HANDS_PER_MATCH, R_START_POINTS,
    R_FAN_ALL_TRIPLETS, R_FAN_SEVEN_PAIRS, R_FAN_FULL_FLUSH, R_FAN_FOUR_DECLARED, R_FAN_ROOT,
    R_FAN_KONG_REPLACEMENT, R_FAN_ROBBING_KONG, R_FAN_LAST_TILE, R_FAN_KONG_DISCARD, R_FAN_SELF_DRAW,
    R_ADDED_KONG_DRAWN_ONLY, R_PASSED_WIN_HIGHER, R_EXPOSED_KONG_BLOOM,
    N_RULE_FIELDS,
) = range(33)
# The options the rule array holds as they are (slot: option); the others are encoded in to_array.
_ARRAY_OPTIONS = {
    R_EXCHANGE: "exchange", R_CLAIM_WHILE_VOID: "claim_while_void", R_KONG_WHILE_VOID: "kong_while_void",
    R_PASSED_WIN_LOCK: "passed_win_lock", R_FAN_CAP: "fan_cap", R_LIMIT_HANDS: "limit_hands",
    R_SELF_DRAW_BONUS: "self_draw_bonus", R_KONG_PAY_CONCEALED: "kong_pay_concealed",
    R_KONG_PAY_ADDED: "kong_pay_added", R_KONG_PAY_EXPOSED: "kong_pay_exposed", R_KONG_REFUND: "kong_refund",
    R_PIG_PAYS_READY_CHECK: "pig_pays_ready_check", R_READY_CHECK: "ready_check",
    R_HANDS_PER_MATCH: "hands_per_match", R_START_POINTS: "start_points",
    R_ADDED_KONG_DRAWN_ONLY: "added_kong_drawn_only", R_PASSED_WIN_HIGHER: "passed_win_higher",
    **{R_FAN_ALL_TRIPLETS + i: name for i, name in enumerate(FAN_OPTIONS)},
}
KONG_LIABILITY_NONE, KONG_LIABILITY_PAYS_FOR_ALL, KONG_LIABILITY_TRANSFER = range(3)
BLOOM_SELF_DRAW, BLOOM_FEEDER_PAYS = range(2)
PIG_PAYS_NON_PIGS, PIG_PAYS_REMAINING, PIG_PAYS_WINNERS_AND_READY = range(3)

_CHENGDU_FANS = dict(
    fan_all_triplets=1, fan_seven_pairs=1, fan_full_flush=1, fan_four_declared=1, fan_root=1,
    fan_kong_replacement=1, fan_robbing_kong=1, fan_last_tile=0,
)
_PRESET_CHANGES: dict[str, dict[str, Any]] = {
    "battle": {},
    "flow": dict(variant="flow"),
    "chengdu": dict(fan_cap=6, limit_hands=True, kong_refund=False, pig_penalty="cap",
                    pig_pays="winners_and_ready", kong_discard_liability="pays_for_all", **_CHENGDU_FANS),
    "kawu": dict(exchange=False, claim_while_void=True, kong_while_void=True, passed_win_lock=True,
                 fan_cap=5, self_draw_bonus=0, kong_refund=False, pig_penalty=32, pig_pays="remaining",
                 pig_pays_ready_check=True),
    # T/TFMJ 01-2024 (RULES.md: Rulings where the documents are silent, tfmj)
    "tfmj": dict(exchange=False, added_kong_drawn_only=True, passed_win_lock=True, passed_win_higher=True,
                 fan_cap=3, pig_penalty=0, pig_pays_ready_check=True, kong_discard_liability="transfer",
                 fan_kong_discard=1),
}


class RuleError(ValueError):
    """A bad preset, option name or option value; the message is one line for the user."""


# How draws take wall positions (RULES.md: Rulings where the documents are silent, draw order). Not a rule: under either order
# every draw is uniform over the tiles not yet drawn, so the game is the same; ``seat`` keeps a
# seat's draws its own when a claim skips turns, which pairs the hands of a duplicate comparison.
DRAW_ORDERS = ("table", "seat")


def check_draw_order(order) -> str:
    """``order`` if it is a draw order, else a one-line ValueError."""
    if order not in DRAW_ORDERS:
        raise ValueError(f"unknown draw order {order!r}; draw orders: {', '.join(DRAW_ORDERS)}")
    return order


def _allowed(name: str) -> str:
    kind, allowed = OPTION_SPECS[name]
    if kind == "bool":
        return "true or false"
    if kind == "choice":
        return " or ".join(allowed)
    lo, hi = allowed
    text = f"an integer from {lo} to {hi}"
    return text + " or cap" if kind == "int_or_cap" else text


def _check(name: str, value: Any) -> None:
    kind, allowed = OPTION_SPECS[name]
    ok = False
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "choice":
        ok = isinstance(value, str) and value in allowed
    else:
        if kind == "int_or_cap" and value == "cap":
            ok = True
        elif isinstance(value, int) and not isinstance(value, bool):
            ok = allowed[0] <= value <= allowed[1]
    if not ok:
        hint = did_you_mean(value, allowed).strip() if kind == "choice" else ""
        raise RuleError(f"option {name}: {value!r} is not allowed; expected {_allowed(name)}"
                        + (f"; {hint}" if hint else ""))


def _parse_value(name: str, text: str) -> Any:
    """Parse ``--set`` text for an option into its typed value."""
    kind, _ = OPTION_SPECS[name]
    t = text.strip()
    if kind == "bool":
        if t.lower() in ("true", "1", "yes"):
            return True
        if t.lower() in ("false", "0", "no"):
            return False
        raise RuleError(f"option {name}: {text!r} is not allowed; expected {_allowed(name)}")
    if kind == "choice":
        return t
    if kind == "int_or_cap" and t == "cap":
        return t
    try:
        return int(t)
    except ValueError:
        raise RuleError(f"option {name}: {text!r} is not allowed; expected {_allowed(name)}") from None


def _check_name(name: str) -> None:
    if name not in OPTION_SPECS:
        raise RuleError(f"unknown option {name!r}; {did_you_mean(name, OPTION_NAMES)}"
                        "`sichuan rules` lists every option")


def preset(name: str) -> RuleSet:
    if name not in _PRESET_CHANGES:
        raise RuleError(f"unknown preset {name!r}; {did_you_mean(name, PRESETS)}presets are {', '.join(PRESETS)}")
    return RuleSet(preset=name, **_PRESET_CHANGES[name])


def apply_overrides(rules: RuleSet, overrides: dict[str, Any]) -> RuleSet:
    """Typed overrides (TOML values or parsed ``--set`` values), validated one by one."""
    for name, value in overrides.items():
        _check_name(name)
        _check(name, value)
    try:
        return dataclasses.replace(rules, **overrides)
    except TypeError as exc:  # pragma: no cover - names were checked above
        raise RuleError(str(exc)) from None


def parse_sets(items) -> dict[str, Any]:
    """``["fan_cap=5", "exchange=false"]`` -> typed overrides."""
    out: dict[str, Any] = {}
    for item in items or ():
        if "=" not in item:
            raise RuleError(f"--set {item!r}: expected key=value, e.g. --set fan_cap=5")
        name, text = item.split("=", 1)
        name = name.strip()
        _check_name(name)
        out[name] = _parse_value(name, text)
    return out


def load_toml(path: str) -> RuleSet:
    """A TOML rule file: ``base = "kawu"`` (default battle) plus options by the names of RULES.md: Options and presets."""
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise RuleError(f"rule file {path!r} does not exist") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RuleError(f"rule file {path!r} is not valid TOML: {exc}") from None
    except OSError as exc:
        raise RuleError(f"rule file {path!r} cannot be read: {exc.strerror or exc}") from None
    base = data.pop("base", DEFAULT_PRESET)
    if not isinstance(base, str):
        raise RuleError(f"rule file {path!r}: base must be a preset name ({', '.join(PRESETS)})")
    # every message names the file as well as the key
    try:
        rules = preset(base)
    except RuleError as exc:
        raise RuleError(f"rule file {path!r}: base: {exc}") from None
    for name, value in data.items():
        try:
            _check_name(name)
            _check(name, value)
        except RuleError as exc:
            raise RuleError(f"rule file {path!r}: {exc}{_quoted_hint(name, value)}") from None
    return apply_overrides(rules, data)


def _quoted_hint(name: str, value: Any) -> str:
    """How TOML writes a quoted boolean or number (``exchange = "false"`` is a string): the value
    looks right to the person who typed it, so the message must say what is wrong with it."""
    if name not in OPTION_SPECS or not isinstance(value, str):
        return ""
    kind, t = OPTION_SPECS[name][0], value.strip()
    if kind == "bool" and t.lower() in ("true", "false"):
        return f"; TOML booleans are written without quotes: {name} = {t.lower()}"
    if kind in ("int", "int_or_cap") and t.lstrip("+-").isdigit():
        return f"; TOML numbers are written without quotes: {name} = {int(t)}"
    return ""


def resolve(spec: str | RuleSet | None = None, sets=None) -> RuleSet:
    """PRESET name, TOML path or RuleSet, then ``--set`` overrides (strings or a dict)."""
    if isinstance(spec, RuleSet):
        rules = spec
    elif spec is not None and not isinstance(spec, str):
        raise RuleError(f"rules must be a preset name, a FILE.toml path or a RuleSet, got {spec!r}")
    elif spec is None or spec == "":
        rules = preset(DEFAULT_PRESET)
    elif spec in _PRESET_CHANGES:
        rules = preset(spec)
    elif spec.endswith(".toml") or os.path.sep in spec:
        rules = load_toml(spec)
    else:
        raise RuleError(f"unknown preset {spec!r}; {did_you_mean(spec, PRESETS)}presets are {', '.join(PRESETS)}, "
                        "or give a FILE.toml")
    if isinstance(sets, dict):
        return apply_overrides(rules, sets)
    return apply_overrides(rules, parse_sets(sets))


def to_toml(rules: RuleSet) -> str:
    """A TOML text that :func:`load_toml` reads back to the same rules."""
    lines = [f'base = "{rules.preset}"']
    for name, value in rules.options().items():
        if isinstance(value, bool):
            lines.append(f"{name} = {'true' if value else 'false'}")
        elif isinstance(value, int):
            lines.append(f"{name} = {value}")
        else:
            lines.append(f'{name} = "{value}"')
    return "\n".join(lines) + "\n"
