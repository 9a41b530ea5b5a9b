"""Experiment specs: TOML files parsed and validated into plain dataclasses.

Two kinds (experiments/README.md documents the format):

``kind = "duplicate"``
    a ``field`` (a seat spec) and ``arms`` (seat specs, optionally with their own ``rules`` and
    ``sets``), one of them the ``baseline``. Each arm plays 1 vs 3 against the field, rotated
    through the four seats, on the same walls as every other arm. An arm table with ``values``
    is a sweep: ``{}`` in its seat takes each value in turn, one ordinary arm per value, named
    ``NAME-VALUE`` (:func:`_sweep_arms`).

``kind = "cells"``
    a list (``[[cells]]``) or a product (``[grid]``) of cells; a cell is a seat spec at the
    four seats, a rule set and a mode (independent ``hands`` or ``matches``).

Every problem is a :class:`SpecError` with a one-line message naming the file and the key.
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from dataclasses import dataclass, field as dc_field
from pathlib import Path
from typing import Any

from simcore.contract.messages import one_line as _one_line

SPEC_DIR = Path(__file__).resolve().parent
# the questions the notebooks and the README's findings answer (exchange and void of three fields)
SURVEY = ("exchange", "exchange-efficient", "exchange-learned", "void", "void-efficient", "void-learned", "flower-pigs",
          "battle-vs-flow", "rule-sets")
# every spec in this folder (`sichuan experiment list`; tests/experiments holds it to the folder): the survey's,
# and expert-pigs, a run that stops at a precision (its pilot alone is 800,000 expert hands)
SHIPPED = SURVEY + ("expert-pigs",)
KINDS = ("duplicate", "cells")
SECTIONS = ("pigs", "spread", "matches", "reasons", "patterns", "ends")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
DEFAULT_WIDTH = 0.1
ESTIMATORS = ("luck", "plain")   # duplicate's main difference: luck-corrected (net - luck) or plain net


class SpecError(ValueError):
    """A spec that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Rules:
    """A rule set as the spec gives it (``spec``, ``sets``) and resolved (``rules``)."""

    spec: str
    sets: dict
    rules: Any  # simcore.contract.rules.RuleSet

    def to_json(self) -> dict:
        return {"preset": self.rules.preset, "options": self.rules.options()}

    @property
    def label(self) -> str:
        if not self.sets:
            return self.spec
        return self.spec + "+" + ",".join(f"{k}={v}" for k, v in self.sets.items())


@dataclass(frozen=True)
class Arm:
    name: str
    seat: object         # a strategies.registry.SeatSpec (its text is .canonical)
    rules: Rules
    sweep: dict | None = None   # an arm of a sweep: {"name": sweep, "seat": template, "value": value}


@dataclass(frozen=True)
class Cell:
    name: str
    labels: dict         # grid axis -> value (or {} for a listed cell)
    seats: tuple         # four strategies.registry.SeatSpec
    rules: Rules
    mode: str            # "hands" or "matches"
    weight: float        # this cell's hands relative to the spec's ``hands``

    def hands_for(self, hands: int) -> int:
        """Hands to play for a spec size of ``hands`` (matches: rounded up to whole matches)."""
        n = max(1, math.ceil(hands * self.weight))
        if self.mode == "matches":
            per = self.rules.rules.hands_per_match
            n = math.ceil(n / per) * per
        return n

    def n_for(self, hands: int) -> int:
        """The run's n: hands, or matches in match mode."""
        n = self.hands_for(hands)
        return n // self.rules.rules.hands_per_match if self.mode == "matches" else n


@dataclass(frozen=True)
class Spec:
    name: str
    kind: str
    description: str
    source: str
    seed: int
    hands: int
    width: float
    # duplicate
    field: object = None  # the field's SeatSpec
    field_rules: Rules | None = None
    arms: tuple = ()
    baseline: str | None = None
    # cells
    cells: tuple = ()
    show: tuple = SECTIONS
    loss_threshold: int = 50
    compare: dict | None = None     # set by `sichuan compare`: {"a", "b", "rules", "sets"}
    rules_override: dict | None = None  # `sichuan experiment run --rules/--set`: {"rules", "sets"} as given, "spec_rules"
    draw_order: str = "seat"        # RULES.md: Rulings where the documents are silent, draw order
    estimator: str = "luck"         # duplicate: the main difference, luck-corrected or plain (README: Cheaper duplicate answers)
    until_width: float | None = None  # duplicate: play until every arm's interval is this wide (README: Cheaper duplicate answers)
    max_walls: int | None = None    # ... or until this many walls
    until_relative: float | None = None  # cells: play until every cell's pig rate is this precise (half-width / rate)
    max_hands: int | None = None    # ... or until this many hands (the spec's --hands unit)
    raw: dict = dc_field(default_factory=dict, compare=False)

    def identity(self) -> dict:
        """What must match to resume or extend an experiment (sizes and seed excluded)."""
        d = {"name": self.name, "kind": self.kind}
        if self.kind == "duplicate":
            d["field"] = self.field.canonical
            d["baseline"] = self.baseline
            d["arms"] = [{"name": a.name, "seat": a.seat.canonical, "rules": a.rules.to_json()} for a in self.arms]
        else:
            d["cells"] = [{"name": c.name, "labels": c.labels, "seats": [s.canonical for s in c.seats], "rules": c.rules.to_json(),
                           "mode": c.mode, "weight": c.weight} for c in self.cells]
        return d

    def to_json(self) -> dict:
        d = self.identity()
        d.update(description=self.description, source=self.source, default_seed=self.seed,
                 default_hands=self.hands, width=self.width, default_draw_order=self.draw_order)
        if self.kind == "duplicate":
            d.update(default_estimator=self.estimator, until_width=self.until_width, max_walls=self.max_walls)
        else:
            d.update(until_relative=self.until_relative, max_hands=self.max_hands)
        if self.kind == "duplicate":
            d["arms"] = [{**a, "rules_label": arm.rules.label, **({"sweep": arm.sweep} if arm.sweep else {})}
                         for a, arm in zip(d["arms"], self.arms)]
            if self.compare:
                d["compare"] = self.compare
        else:
            d["show"] = list(self.show)
            d["loss_threshold"] = self.loss_threshold
            d["cells"] = [{**c, "rules_label": cell.rules.label} for c, cell in zip(d["cells"], self.cells)]
        if self.rules_override:
            d["rules_override"] = self.rules_override
        return d


# -- helpers ---------------------------------------------------------------------------------

def _where(source: str, key: str) -> str:
    return f"{source}: {key}" if key else source


def _err(source: str, key: str, msg: str) -> SpecError:
    return SpecError(f"{_where(source, key)}: {msg}")


def _str(d: dict, key: str, source: str, default=None, required=False) -> str | None:
    if key not in d:
        if required:
            raise _err(source, key, "missing (required)")
        return default
    v = d[key]
    if not isinstance(v, str) or not v.strip():
        raise _err(source, key, f"expected a non-empty string, got {v!r}")
    return v.strip()


def _int(d: dict, key: str, source: str, default: int, minimum: int = 0) -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise _err(source, key, f"expected an integer >= {minimum}, got {v!r}")
    return v


def _positive(d: dict, key: str, source: str, expected: str, whole: bool = False, default=None):
    """``d[key]`` (``default`` when absent; None stays None): a positive number (a float), or with
    ``whole`` a positive integer; else the one-line error "expected EXPECTED, got ..."."""
    v = d.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int if whole else (int, float)) or not v > 0:
        raise _err(source, key, f"expected {expected}, got {v!r}")
    return v if whole else float(v)


def _anchored(text: str, strategy_dir: Path | None) -> str:
    """``text`` with relative strategy file paths made absolute against the spec file's folder
    (as rule files are), so the spec runs from any directory; as given without a spec file."""
    if strategy_dir is None:
        return text
    from strategies.registry import map_user_paths

    def anchor(path: str) -> str:
        p = Path(path).expanduser()
        return path if p.is_absolute() else str((strategy_dir / p).resolve())

    return map_user_paths(text, anchor)


def _seat(text: str, source: str, key: str, strategy_dir: Path | None = None):
    from strategies.registry import StrategyError, parse_seat, split_top

    try:
        if len(split_top(text, ",", "seat spec")) > 1:   # commas inside parameter brackets do not separate
            raise _err(source, key, f"one seat spec expected (no commas outside brackets), got {text!r}")
        return parse_seat(_anchored(text, strategy_dir))
    except StrategyError as exc:
        raise _err(source, key, _one_line(exc)) from None


def _seats(text: str, source: str, key: str, strategy_dir: Path | None = None) -> tuple:
    from strategies.registry import StrategyError, parse_seats

    try:
        return tuple(parse_seats(_anchored(text, strategy_dir)))
    except StrategyError as exc:
        raise _err(source, key, _one_line(exc)) from None


def _rules(spec: Any, sets: Any, base_dir: Path, source: str, key: str) -> Rules:
    from simcore.contract.rules import PRESETS, resolve

    if spec is None:
        spec = "battle"
    if not isinstance(spec, str) or not spec.strip():
        raise _err(source, key + "rules", f"expected a preset name or a FILE.toml path, got {spec!r}")
    spec = spec.strip()
    if sets is None:
        sets = {}
    if not isinstance(sets, dict):
        raise _err(source, key + "sets", f"expected a table of rule options, e.g. sets = {{ fan_cap = 5 }}, got {sets!r}")
    path_spec = spec
    if spec.endswith(".toml") and not Path(spec).is_absolute():
        path_spec = str(base_dir / spec)
    try:
        rules = resolve(path_spec, dict(sets))
    except (ValueError, OSError) as exc:
        raise _err(source, key + ("sets" if sets and spec in PRESETS else "rules"),
                   _one_line(exc)) from None
    return Rules(spec, dict(sets), rules)


def _check_keys(d: dict, allowed: set, source: str, where: str) -> None:
    for k in d:
        if k not in allowed:
            raise _err(source, where + k, f"unknown key (expected one of: {', '.join(sorted(allowed))})")


def _name(text: str, source: str, key: str) -> str:
    if not NAME_RE.match(text):
        raise _err(source, key, f"{text!r} is not a usable name (letters, digits, '-', '_', '.')")
    return text


# -- loading ---------------------------------------------------------------------------------

def spec_path(name_or_path: str | Path) -> Path:
    """A shipped spec's name (``exchange``) or a path -> the TOML file's path."""
    text = str(name_or_path)
    p = Path(text)
    if p.is_file():
        return p
    if text in SHIPPED or (SPEC_DIR / f"{text}.toml").is_file():
        return SPEC_DIR / f"{text}.toml"
    if p.suffix == ".toml" or "/" in text:
        raise SpecError(f"spec file {text} does not exist")
    raise SpecError(f"unknown experiment {text!r}: give a spec file or one of {', '.join(SHIPPED)}")


def load_spec(name_or_path: str | Path, rules: str | None = None, sets=()) -> Spec:
    """A shipped spec's name or a spec file, parsed; ``rules`` and ``sets`` (``--set`` items,
    ``KEY=VALUE``) play it under other rules (:func:`override_rules`)."""
    path = spec_path(name_or_path)
    source = str(path) if path.parent != SPEC_DIR else f"experiments/{path.name}"
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise SpecError(f"cannot read {source}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{source} is not valid TOML: {_one_line(exc)}") from None
    if rules is None and not sets:
        return parse_spec(data, source=source, base_dir=path.parent, default_name=path.stem)
    data, given = override_rules(data, rules, sets, source)
    spec = parse_spec(data, source=source, base_dir=path.parent, default_name=path.stem)
    from dataclasses import replace

    return replace(spec, rules_override=given)


def override_rules(data: dict, rules: str | None, sets=(), source: str = "<spec>") -> tuple[dict, dict]:
    """A spec's TOML ``data`` played under other rules (``sichuan experiment run --rules/--set``),
    and the override as given (``{"rules", "sets"}``, with the spec's own ``spec_rules``: what
    ``experiment.json`` records).

    ``rules`` (a preset, or a rule file read from the current directory) takes the place of the
    spec's own ``rules`` (battle where it names none): every arm and cell that does not name its
    own ``rules`` plays it, with the spec's ``sets`` and its own still applied; an arm or cell that
    names its own ``rules`` keeps them (a spec that varies the rules, such as a grid over presets,
    still compares them). Each ``--set`` (``KEY=VALUE``) then overrides its option in every arm
    and cell. ``rules`` where every arm or cell names its own is refused (only ``--set`` applies)."""
    import copy
    import os

    from simcore.contract.rules import RuleError, parse_sets

    try:
        overrides = parse_sets(list(sets or ()))
    except RuleError as exc:
        raise SpecError(_one_line(exc)) from None
    data = copy.deepcopy(data)
    replaced = data.get("rules", "battle")
    kind = data.get("kind")
    own: list[str] = []       # the rules named by the arms or cells that name their own
    takes_base = False
    tables: list[dict] = []   # arm and cell tables whose own sets --set amends

    def sort(entries) -> bool:
        """Each arm or cell table into ``tables``, its own rules into ``own``; whether one takes
        the base rules."""
        base = False
        for v in entries:
            if isinstance(v, dict):
                tables.append(v)
                if "rules" in v:
                    own.append(str(v["rules"]))
                    continue
            base = True
        return base

    if kind == "duplicate" and isinstance(data.get("arms"), dict):
        takes_base = sort(data["arms"].values())
    elif kind == "cells":
        grid, cells = data.get("grid"), data.get("cells")
        if isinstance(grid, dict):
            if "rules" in grid:
                own += [str(x) for x in (grid["rules"] if isinstance(grid["rules"], list) else [grid["rules"]])]
            else:
                takes_base = True
        if isinstance(cells, list):
            takes_base = sort(cells) or takes_base
    if rules is not None:
        if not takes_base and own:
            what = "arm" if kind == "duplicate" else "cell"
            raise SpecError(f"--rules {rules}: every {what} of {source} names its own rules "
                            f"({', '.join(dict.fromkeys(own))}), so there are no rules of the spec's to replace; "
                            f"--set KEY=VALUE changes an option in every {what}")
        path = rules
        if rules.endswith(".toml") or os.path.sep in rules:   # a rule file, read from the current directory
            path = str(Path(rules).expanduser().resolve())
        data["rules"] = path
    if overrides:
        base = data.get("sets")
        data["sets"] = {**(base if isinstance(base, dict) else {}), **overrides}
        for t in tables:
            if isinstance(t.get("sets"), dict):
                t["sets"] = {**t["sets"], **overrides}
    return data, {"rules": rules, "sets": list(sets or ()), "spec_rules": replaced if isinstance(replaced, str) else None}


def parse_spec(data: dict, source: str = "<spec>", base_dir: Path | None = None, default_name: str = "experiment") -> Spec:
    """``base_dir``: the spec file's folder, which relative rule and strategy files are read from
    (without one, rule files are read from the current directory and strategy paths kept as given)."""
    strategy_dir = None if base_dir is None else Path(base_dir)
    base_dir = base_dir or Path.cwd()
    kind = data.get("kind")
    if kind is None:
        raise _err(source, "kind", 'missing: give kind = "duplicate" or kind = "cells"')
    if kind not in KINDS:
        raise _err(source, "kind", f'{kind!r} is not a kind: use "duplicate" or "cells"')
    name = _name(_str(data, "name", source, default=default_name), source, "name")
    common = dict(name=name, kind=kind, description=_str(data, "description", source, default="") or "",
                  source=source, seed=_int(data, "seed", source, 0), hands=_int(data, "hands", source, 0, minimum=1)
                  if "hands" in data else None)
    common["width"] = _positive(data, "width", source, "a positive number (points per hand)", default=DEFAULT_WIDTH)
    from simcore.contract.rules import DRAW_ORDERS

    order = data.get("draw_order", "seat")
    if order not in DRAW_ORDERS:
        raise _err(source, "draw_order", f"{order!r} is not a draw order: use {' or '.join(map(repr, DRAW_ORDERS))}")
    common["draw_order"] = order
    if common["hands"] is None:
        raise _err(source, "hands", "missing: the default size (walls for duplicate, hands per cell for cells)")
    if kind == "duplicate":
        return _parse_duplicate(data, common, source, base_dir, strategy_dir)
    return _parse_cells(data, common, source, base_dir, strategy_dir)


def _parse_duplicate(data: dict, common: dict, source: str, base_dir: Path, strategy_dir: Path | None = None) -> Spec:
    _check_keys(data, {"name", "kind", "description", "seed", "hands", "width", "rules", "sets", "field",
                       "arms", "baseline", "draw_order", "estimator", "until_width", "max_walls"}, source, "")
    estimator = data.get("estimator", "luck")
    if estimator not in ESTIMATORS:
        raise _err(source, "estimator", f"{estimator!r} is not an estimator: use {' or '.join(map(repr, ESTIMATORS))}")
    common.update(estimator=estimator,
                  until_width=_positive(data, "until_width", source, "a positive number (points per hand)"),
                  max_walls=_positive(data, "max_walls", source, "a positive whole number of walls", whole=True))
    rules = _rules(data.get("rules"), data.get("sets"), base_dir, source, "")
    field_seat = _seat(_str(data, "field", source, required=True), source, "field", strategy_dir)
    arms_d = data.get("arms")
    if not isinstance(arms_d, dict) or not arms_d:
        raise _err(source, "arms", 'missing or empty: give a table [arms] of name = "SEAT SPEC" (at least two)')
    arms = []
    for aname, v in arms_d.items():
        key = f"arms.{aname}"
        _name(aname, source, key)
        if isinstance(v, str):
            if "{}" in v:
                raise _err(source, key, f"{{}} marks where a swept value goes: give a table with seat = {v!r} "
                                        "and values = [...]")
            arms.append(Arm(aname, _seat(v, source, key, strategy_dir), rules))
        elif isinstance(v, dict):
            _check_keys(v, {"seat", "rules", "sets", "values"}, source, key + ".")
            if "seat" not in v:
                _missing(source, key + ".seat")
            seat_text = v["seat"]
            if not isinstance(seat_text, str) or not seat_text.strip():
                raise _err(source, key + ".seat", f"expected a non-empty string, got {seat_text!r}")
            seat_text = seat_text.strip()
            if "rules" in v or "sets" in v:
                arm_rules = _rules(v.get("rules", data.get("rules")), v.get("sets", data.get("sets")), base_dir, source,
                                   key + ".")
            else:
                arm_rules = rules
            if "values" in v:
                arms.extend(_sweep_arms(aname, seat_text, v["values"], arm_rules, source, strategy_dir))
            elif "{}" in seat_text:
                raise _err(source, key + ".seat", "{} marks where a swept value goes: give values = [...]")
            else:
                arms.append(Arm(aname, _seat(seat_text, source, key + ".seat", strategy_dir), arm_rules))
        else:
            raise _err(source, key, f'expected "SEAT SPEC" or a table with seat = ..., got {v!r}')
    names = [a.name for a in arms]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise _err(source, "arms", f"arm names repeat: {', '.join(dup)} (a swept arm is named NAME-VALUE)")
    if len(arms) < 2:
        raise _err(source, "arms", "need at least two arms to compare")
    baseline = _str(data, "baseline", source, default=arms[0].name)
    if baseline not in {a.name for a in arms}:
        raise _err(source, "baseline", f"{baseline!r} is not an arm (arms: {', '.join(a.name for a in arms)})")
    return Spec(**common, field=field_seat, field_rules=rules, arms=tuple(arms), baseline=baseline, raw=data)


def value_text(value) -> str:
    """A swept value as it goes into the seat spec and the arm's name: an integer or a string as
    written, a float in its shortest round-tripping form (``2.0``, ``0.25``)."""
    if isinstance(value, float):
        return repr(value)
    return str(value).strip() if isinstance(value, str) else str(value)


def _sweep_arms(name: str, template: str, values, rules: Rules, source: str,
                strategy_dir: Path | None = None) -> list[Arm]:
    """The arms of a sweep ``[arms.NAME]`` with ``seat = "...{}..."`` and ``values = [...]``: one
    arm per value, named ``NAME-VALUE`` (characters other than letters, digits, ``-``, ``_`` and
    ``.`` in the value become ``_``), its seat the template with every ``{}`` replaced by the
    value, each checked like any arm's."""
    key = f"arms.{name}"
    if "{}" not in template:
        raise _err(source, key + ".seat", f"a swept arm's seat needs {{}} where each value goes, got {template!r}")
    if not isinstance(values, list) or not values:
        raise _err(source, key + ".values", f"expected a non-empty list of numbers or strings, got {values!r}")
    arms = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float, str)) or (isinstance(v, str) and not v.strip()):
            shown = str(v).lower() if isinstance(v, bool) else repr(v)    # as TOML writes a boolean
            raise _err(source, key + ".values", f"{shown} is not a number or a non-empty string")
        if isinstance(v, float) and not math.isfinite(v):
            raise _err(source, key, f"value {v!r}: not a finite number")
        text = value_text(v)
        arm_name = f"{name}-{_name_part(text)}"
        seat = _seat(template.replace("{}", text), source, f"{key}: value {text if not isinstance(v, str) else repr(text)}",
                     strategy_dir)
        arms.append(Arm(arm_name, seat, rules, {"name": name, "seat": template, "value": v}))
    names = [a.name for a in arms]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise _err(source, key + ".values", f"values repeat or give the same arm name: {', '.join(dup)}")
    return arms


def _name_part(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "x"


def _missing(source: str, key: str):
    raise _err(source, key, "missing (required)")


GRID_KEYS = ("seats", "play", "exchange", "void", "rules", "mode")


def _parse_cells(data: dict, common: dict, source: str, base_dir: Path, strategy_dir: Path | None = None) -> Spec:
    _check_keys(data, {"name", "kind", "description", "seed", "hands", "width", "grid", "cells", "sizes", "show",
                       "loss_threshold", "rules", "sets", "draw_order", "until_relative", "max_hands"}, source, "")
    rel = data.get("until_relative")
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, (int, float)) or not 0 < rel < 1):
        raise _err(source, "until_relative", f"expected a share between 0 and 1 (0.25: the pig rate's 95% "
                                             f"half-width within 25% of it), got {rel!r}")
    common.update(until_relative=None if rel is None else float(rel),
                  max_hands=_positive(data, "max_hands", source, "a positive whole number of hands", whole=True))
    show = data.get("show", list(SECTIONS))
    if not isinstance(show, list) or not show or any(s not in SECTIONS for s in show):
        raise _err(source, "show", f"expected a list drawn from {list(SECTIONS)}, got {show!r}")
    if rel is not None and "pigs" not in show:
        raise _err(source, "until_relative", 'sets the precision of the pig rates: needs "pigs" in show')
    loss = _int(data, "loss_threshold", source, 50, minimum=1)
    if "rules" in data:   # the rules of every cell that names none (battle by default)
        _rules(data["rules"], data.get("sets"), base_dir, source, "")
    if ("grid" in data) == ("cells" in data):
        raise _err(source, "grid", "give exactly one of a [grid] table and a [[cells]] list")
    cells: list[Cell] = []
    if "grid" in data:
        grid = data["grid"]
        if not isinstance(grid, dict):
            raise _err(source, "grid", "expected a table")
        _check_keys(grid, set(GRID_KEYS), source, "grid.")
        if "seats" in grid and any(k in grid for k in ("play", "exchange", "void")):
            raise _err(source, "grid.seats", "give either seats or play/exchange/void, not both")
        axes = {}
        for k in GRID_KEYS:
            if k not in grid:
                continue
            v = grid[k]
            vals = v if isinstance(v, list) else [v]
            if not vals or any(not isinstance(x, str) or not x.strip() for x in vals):
                raise _err(source, f"grid.{k}", f"expected a string or a list of strings, got {v!r}")
            if len(set(vals)) != len(vals):
                raise _err(source, f"grid.{k}", "values repeat")
            axes[k] = [x.strip() for x in vals]
        varying = [k for k, v in axes.items() if len(v) > 1]
        for combo in itertools.product(*axes.values()):
            values = dict(zip(axes, combo))
            labels = {k: values[k] for k in varying}
            if "seats" in values:
                seat_text = values["seats"]
            else:
                seat_text = values.get("play", "efficient")
                for part in ("exchange", "void"):
                    if part in values:
                        seat_text += f"+{part}={values[part]}"
            name = "-".join(_slug(values[k]) for k in varying) or common["name"]
            cells.append(_make_cell(name, labels, seat_text, values.get("rules", data.get("rules")), data.get("sets"),
                                    values.get("mode", "hands"), source, "grid.", base_dir, strategy_dir))
    else:
        lst = data["cells"]
        if not isinstance(lst, list) or not lst or not all(isinstance(c, dict) for c in lst):
            raise _err(source, "cells", "expected a list of tables [[cells]]")
        for i, c in enumerate(lst):
            key = f"cells[{i}]."
            _check_keys(c, {"name", "seats", "rules", "sets", "mode", "hands"}, source, key)
            seat_text = _str(c, "seats", source, default="efficient")
            name = _str(c, "name", source, default=None) or f"cell{i}"
            cell = _make_cell(name, {}, seat_text, c.get("rules", data.get("rules")), c.get("sets", data.get("sets")),
                              c.get("mode", "hands"), source, key, base_dir, strategy_dir)
            if "hands" in c:
                cell = _with_weight(cell, _int(c, "hands", source + ": " + key.rstrip("."), 1, minimum=1) / common["hands"])
            cells.append(cell)
    names = [c.name for c in cells]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise _err(source, "cells", f"cell names repeat: {', '.join(dup)}")
    cells = _apply_sizes(data.get("sizes"), cells, common["hands"], source)
    return Spec(**common, cells=tuple(cells), show=tuple(show), loss_threshold=loss, raw=data)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "_", text).strip("_") or "x"


def _make_cell(name, labels, seat_text, rules, sets, mode, source, key, base_dir, strategy_dir=None) -> Cell:
    _name(name, source, key + "name")
    seats = _seats(seat_text, source, key + "seats", strategy_dir)
    r = _rules(rules, sets, base_dir, source, key)
    if mode not in ("hands", "matches"):
        raise _err(source, key + "mode", f'expected "hands" or "matches", got {mode!r}')
    return Cell(name, labels, seats, r, mode, 1.0)


def _with_weight(cell: Cell, weight: float) -> Cell:
    return Cell(cell.name, cell.labels, cell.seats, cell.rules, cell.mode, weight)


def _apply_sizes(sizes, cells: list, hands: int, source: str) -> list:
    """``[[sizes]]`` entries: ``where = { axis = value, ... }`` and ``hands = N`` set the size of
    the matching grid cells (relative to the spec's ``hands``, so --hands scales them too)."""
    if sizes is None:
        return cells
    if not isinstance(sizes, list) or not all(isinstance(s, dict) for s in sizes):
        raise _err(source, "sizes", "expected a list of tables [[sizes]] with where = {...} and hands = N")
    out = list(cells)
    for i, s in enumerate(sizes):
        key = f"sizes[{i}]"
        _check_keys(s, {"where", "hands"}, source, key + ".")
        where = s.get("where")
        if not isinstance(where, dict) or not where:
            raise _err(source, key + ".where", "expected a table of grid axis = value, e.g. where = { void = \"random\" }")
        n = _int(s, "hands", source, 0, minimum=1) if "hands" in s else _missing(source, key + ".hands")
        matched = 0
        for j, c in enumerate(out):
            if all(c.labels.get(k) == v for k, v in where.items()):
                out[j] = _with_weight(c, n / hands)
                matched += 1
        if not matched:
            raise _err(source, key + ".where", f"matches no cell ({where!r}; grid axes that vary: "
                                                f"{', '.join(sorted({k for c in cells for k in c.labels})) or 'none'})")
    return out
