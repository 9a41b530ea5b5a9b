"""Strategy parameters: declared by a strategy with their defaults, ranges and meaning, given in a
seat spec (``expert[flush_margin=2,pass_cost=0.3]``), read by the strategy from its view.

A strategy declares its parameters once, built-in or user file alike::

    from strategies.api import Param, parameters

    @parameters(Param.int("margin", 2, 0, 8, "shanten the flush plan may lag the plain one"),
                Param.float("pass_cost", 0.3, 0.0, 5.0, "points a passed win must gain to be passed"),
                Param.choice("policy", "expert", ("expert", "efficient"), "the rollout policy"))
    @numba.njit(STRATEGY_SIG, cache=True)
    def mine(q, view, tab):
        margin = param_int(view, 0)          # in declaration order
        cost = param_float(view, 1)
        ...

In the view each value is one int64 slot (``simcore.contract.view.V_PARAMS``): an int as itself, a float as
its float64 bit pattern, a choice as its index in the choices. Seat specs and outputs carry the
canonical form: every parameter in declaration order, numbers in their shortest text.

A user strategy that calls a built-in declares it with :func:`wraps` instead: it takes the
built-in's parameters with their defaults (in the group's first slots, where the built-in reads
them) and adds its own after them (from slot ``WRAPPED_PARAMS``, read with ``own_param_int`` and
``own_param_float``)::

    @wraps(expert, Param.float("boldness", 0.5, 0.0, 1.0, "..."))
    @numba.njit(STRATEGY_SIG, cache=True)
    def bold(q, view, tab):
        b = own_param_float(view, 0)         # its own, in their declaration order
        ...
        return expert(q, view, tab)          # reads its parameters as ever
"""

from __future__ import annotations

import math
from pathlib import Path
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcore.contract.messages import did_you_mean
from simcore.contract.view import N_PARAMS, N_SCRATCH, WRAPPED_PARAMS

_DECLARED: dict = {}


class ParamError(ValueError):
    """A parameter that is unknown, out of range or of the wrong type; one line for the user."""


@dataclass(frozen=True)
class Param:
    name: str
    kind: str            # "int", "float", "choice" or "model"
    default: Any
    allowed: tuple       # (low, high) for numbers; the choices for a choice; a model's (feature version, features)
    doc: str

    @staticmethod
    def int(name: str, default: int, low: int, high: int, doc: str) -> "Param":
        return Param(name, "int", int(default), (int(low), int(high)), doc)

    @staticmethod
    def float(name: str, default: float, low: float, high: float, doc: str) -> "Param":
        return Param(name, "float", float(default), (float(low), float(high)), doc)

    @staticmethod
    def choice(name: str, default: str, choices, doc: str) -> "Param":
        return Param(name, "choice", default, tuple(choices), doc)

    @staticmethod
    def model(name: str, doc: str, feature_version: int | None = None, n_features: int | None = None,
              decision: str = "play") -> "Param":
        """A model file (``strategies.models``); its default, "", is the shipped model for the
        table's rules. The view's slot holds the address of the models the seat plays (the
        registry keeps them for the process). ``feature_version`` and ``n_features``: the features
        the strategy computes, which a file must read (else it is refused when the seat is parsed:
        its trees would read other features, or past the row); ``decision``: the question it
        answers (``models.DECISIONS``), which the file's header must name."""
        return Param(name, "model", "", (feature_version, n_features, decision), doc)

    @property
    def decision(self) -> str:
        """A model parameter's question (``models.DECISIONS``)."""
        return self.allowed[2]

    def parse(self, text: str, owner: str):
        """The typed value of ``text`` (a seat spec's), checked against the range or choices (a
        model file: that it reads as one)."""
        t = text.strip()
        where = f"strategy {owner!r}, parameter {self.name}"
        if self.kind == "model":
            if t:
                from strategies.models import ModelError, load

                version, n, decision = self.allowed
                try:
                    m = load(t, feature_version=version, decision=decision)
                    if n is not None and m.n_features != n:
                        raise ModelError(f"model file {t!r} reads {m.n_features} features; this version computes "
                                         f"{n} (train it again)")
                except ModelError as exc:
                    raise ParamError(f"{where}: {exc}") from None
            return t
        if self.kind == "choice":
            if t not in self.allowed:
                hint = did_you_mean(t, self.allowed).strip()
                raise ParamError(f"{where}: {t!r} is not one of {', '.join(self.allowed)}"
                                 + (f"; {hint}" if hint else ""))
            return t
        try:
            value = int(t) if self.kind == "int" else float(t)
        except ValueError:
            raise ParamError(f"{where}: {t!r} is not {'an integer' if self.kind == 'int' else 'a number'}") from None
        if self.kind == "float" and not math.isfinite(value):
            raise ParamError(f"{where}: {t!r} is not a finite number")
        lo, hi = self.allowed
        if not lo <= value <= hi:
            raise ParamError(f"{where}: {t} is outside {self.text(lo)} to {self.text(hi)}")
        return value

    def text(self, value) -> str:
        """The canonical text of a value: shortest round-tripping digits for a float."""
        if self.kind == "model":
            return str(value)
        if self.kind == "float":
            return repr(float(value))
        return str(value)

    def slot(self, value) -> int:
        """The int64 a strategy reads for this value."""
        if self.kind == "int":
            return int(value)
        if self.kind == "float":
            return int(np.float64(value).view(np.int64))
        if self.kind == "model":
            from strategies.models import model_set_address

            return model_set_address(value, self.decision)
        return self.allowed.index(value)

    def describe(self) -> str:
        if self.kind == "choice":
            rng = "|".join(self.allowed)
        elif self.kind == "model":
            return f"{self.name}=FILE (model, default: the shipped model of the table's rules): {self.doc}"
        else:
            rng = f"{self.text(self.allowed[0])}..{self.text(self.allowed[1])}"
        return f"{self.name}={self.text(self.default)} ({self.kind} {rng}): {self.doc}"


def parameters(*params: Param, scratch: int | None = None, rollout: str | None = None):
    """Declare a strategy's parameters (a decorator on its jitted function); at most
    ``N_PARAMS`` (32; a built-in at most ``WRAPPED_PARAMS``, 16, so that a wrapper has room for
    its own), in the order the strategy reads them. ``scratch``: how many of its
    scratch slots (from ``V_SCRATCH``) must start each hand at zero; undeclared, all
    ``N_SCRATCH`` do (a strategy that declares fewer lets the engine zero less). ``rollout``:
    the strategy searches (``simcore.contract.arena``), and this choice parameter names its rollout
    policy, a play whose own exchange and void policies come with it."""
    if len(params) > N_PARAMS:
        raise ParamError(f"a strategy declares at most {N_PARAMS} parameters, not {len(params)}")
    return _declare(tuple(params), tuple(range(len(params))), scratch, rollout, None)


def wraps(builtin, *params: Param, scratch: int | None = None):
    """Declare a user strategy that calls ``builtin`` (a built-in strategy function, e.g.
    ``strategies.expert.expert``): it has the built-in's parameters with their defaults, where the
    built-in reads them (``param_int``/``param_float`` slots 0 on), then its own ``params`` from
    slot ``WRAPPED_PARAMS`` on (``own_param_int(view, i)``/``own_param_float(view, i)``, i in their
    order), at most ``N_PARAMS - WRAPPED_PARAMS`` (16). A seat spec sets either kind by name
    (``mine.py:bold[boldness=0.8,flush_weight=3]``). ``scratch``: as :func:`parameters`, at
    least the built-in's; a searching built-in's rollout parameter stays its rollout."""
    inner = _DECLARED.get(id(builtin))
    if inner is None or inner[0] is not builtin:
        raise ParamError(f"wraps({getattr(builtin, '__name__', builtin)!r}): not a strategy that declares its "
                         "parameters (a built-in such as strategies.expert.expert)")
    _, theirs, at, their_scratch, rollout, _ = inner
    if any(i >= WRAPPED_PARAMS for i in at):
        raise ParamError(f"wraps({builtin.__name__}): it has parameters beyond slot {WRAPPED_PARAMS} (a wrapper "
                         "or a user strategy with more than 16): only a built-in can be wrapped")
    if len(params) > N_PARAMS - WRAPPED_PARAMS:
        raise ParamError(f"a wrapper declares at most {N_PARAMS - WRAPPED_PARAMS} parameters of its own, "
                         f"not {len(params)}")
    names = {p.name for p in theirs}
    clash = [p.name for p in params if p.name in names]
    if clash:
        raise ParamError(f"wraps({builtin.__name__}): {', '.join(clash)} is already a parameter of "
                         f"{builtin.__name__}; name yours otherwise")
    scratch = their_scratch if scratch is None else max(int(scratch), their_scratch)
    return _declare(tuple(theirs) + tuple(params), tuple(at) + tuple(WRAPPED_PARAMS + i for i in range(len(params))),
                    scratch, rollout, builtin)


def _declare(params, at, scratch, rollout, wrapped):
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise ParamError(f"parameter names repeat: {names}")

    if scratch is not None and not 0 <= scratch <= N_SCRATCH:
        raise ParamError(f"scratch={scratch}: a strategy has {N_SCRATCH} scratch slots")
    if rollout is not None and not any(p.name == rollout and p.kind == "choice" for p in params):
        raise ParamError(f"rollout={rollout!r} names none of the strategy's choice parameters")

    def mark(fn):
        _DECLARED[id(fn)] = (fn, params, at, N_SCRATCH if scratch is None else int(scratch), rollout, wrapped)
        return fn

    return mark


def _entry(fn):
    entry = _DECLARED.get(id(fn))
    return entry if entry is not None and entry[0] is fn else None


def declared(fn) -> tuple[Param, ...]:
    """The parameters a strategy function declared (none if it declared none), a wrapper's with
    the wrapped built-in's first."""
    entry = _entry(fn)
    return entry[1] if entry is not None else ()


def declared_slots(fn) -> tuple[int, ...]:
    """The slot of each declared parameter in its group (``declared`` order)."""
    entry = _entry(fn)
    return entry[2] if entry is not None else ()


def wrapped_of(fn):
    """The built-in a wrapper declared with :func:`wraps` wraps (None for any other strategy)."""
    entry = _entry(fn)
    return entry[5] if entry is not None else None


def copy_declaration(src, dst):
    """``dst`` (a function compiled from ``src``) with ``src``'s declaration."""
    entry = _entry(src)
    if entry is not None:
        _DECLARED[id(dst)] = (dst,) + entry[1:]
    return dst


def scratch_of(fn) -> int:
    """The scratch slots a strategy function needs zeroed each hand (all, undeclared)."""
    entry = _entry(fn)
    return entry[3] if entry is not None else N_SCRATCH


def rollout_param(fn) -> str | None:
    """The choice parameter naming a searching strategy's rollout policy (None: it does not search)."""
    entry = _entry(fn)
    return entry[4] if entry is not None else None


def resolve_values(params: tuple[Param, ...], given: dict[str, str], owner: str) -> tuple[tuple[str, Any], ...]:
    """Every declared parameter with its value (given text parsed, else the default), in
    declaration order; an unknown name is an error naming the known ones."""
    known = {p.name: p for p in params}
    for name in given:
        if name not in known:
            names = ", ".join(known) or "none"
            raise ParamError(f"strategy {owner!r} has no parameter {name!r} ({did_you_mean(name, known)}"
                             f"its parameters: {names})")
    return tuple((p.name, p.parse(given[p.name], owner) if p.name in given else p.default) for p in params)


def canonical_text(params: tuple[Param, ...], values) -> str:
    """``[a=1,b=0.3]`` for the values in declaration order, or '' for a strategy without any."""
    if not params:
        return ""
    by = dict(values)
    return "[" + ",".join(f"{p.name}={p.text(by[p.name])}" for p in params) + "]"


def slots(params: tuple[Param, ...], values, at=None) -> np.ndarray:
    """The ``N_PARAMS`` view slots of the values: parameter i in slot ``at[i]`` (``declared_slots``;
    by default slot i)."""
    out = np.zeros(N_PARAMS, np.int64)
    by = dict(values)
    for i, p in enumerate(params):
        out[i if at is None else at[i]] = p.slot(by[p.name])
    return out


# What outputs print of a user part's parameters needs its defaults: learnt here when its file
# is loaded (``strategies.registry``) or read from a run (``strategies.names.learn_recorded``).
# {a user part's name (path:function, as a seat spec or run gives it, and with its path resolved):
#  {parameter: its default's canonical text}}
_USER_DEFAULTS: dict[str, dict[str, str]] = {}


def _resolved(name: str) -> str:
    path, _, func = name.rpartition(":")
    try:
        return f"{Path(path).expanduser().resolve()}:{func}"
    except (OSError, RuntimeError):
        return name


def learn_defaults(name: str, params) -> None:
    """Remember a user part's defaults (``name``: ``path/to/file.py:function``; ``params``: its
    declared ``Param``s), under its name and its resolved path."""
    d = {p.name: p.text(p.default) for p in params}
    _USER_DEFAULTS[name] = d
    _USER_DEFAULTS[_resolved(name)] = d
