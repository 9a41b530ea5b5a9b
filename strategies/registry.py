"""Seat specs -> jitted strategy functions.

A seat's spec is ``PLAY[+exchange=POLICY][+void=POLICY]``; each part is a built-in name or
``path/to/file.py:name`` (paths may not contain ``,`` or ``+``). Omitted policies default to
``exchange=shortest`` and ``void=fewest``. One spec applies to all four seats; ``A,B,C,D``
names each. Outputs always carry the canonical full form, e.g.
``efficient+exchange=shortest+void=fewest``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numba as nb

from simcore.view import STRATEGY_SIG

from . import exchange as _exchange
from . import play as _play
from . import void as _void

DEFAULT_PLAY = "efficient"
DEFAULT_EXCHANGE = "shortest"
DEFAULT_VOID = "fewest"

PLAY: dict = {}
EXCHANGE: dict = {
    "shortest": _exchange.shortest,
    "random": _exchange.random_suit,
    "keep-pairs": _exchange.keep_pairs,
}
VOID: dict = {
    "fewest": _void.fewest,
    "weakest": _void.weakest,
    "random": _void.random_void,
}
KINDS = {"play": PLAY, "exchange": EXCHANGE, "void": VOID}


def register_play(name: str, fn) -> None:
    PLAY[name] = fn


register_play("random", _play.random_play)
register_play("greedy", _play.greedy)
register_play("efficient", _play.efficient)
register_play("flush", _play.flush)
register_play("defensive", _play.defensive)


class StrategyError(ValueError):
    """A seat spec or user strategy that cannot be used; the message is one line."""


@dataclass(frozen=True)
class SeatSpec:
    play: str
    exchange: str
    void: str

    @property
    def canonical(self) -> str:
        return f"{self.play}+exchange={self.exchange}+void={self.void}"

    def __str__(self) -> str:
        return self.canonical


def _is_user(name: str) -> bool:
    return ".py:" in name


def _check_part(kind: str, name: str, spec: str) -> str:
    if not name:
        raise StrategyError(f"seat spec {spec!r}: empty {kind} name")
    if _is_user(name):
        path = name.rsplit(":", 1)[0]
        if "," in path or "+" in path:
            raise StrategyError(f"seat spec {spec!r}: a strategy path may not contain ',' or '+'")
        return name
    if name not in KINDS[kind]:
        known = ", ".join(sorted(KINDS[kind]))
        raise StrategyError(f"unknown {kind} strategy {name!r} in {spec!r}; built-ins: {known}, or path/to/file.py:name")
    return name


def parse_seat(spec: str) -> SeatSpec:
    spec = spec.strip()
    if not spec:
        raise StrategyError("empty seat spec")
    parts = spec.split("+")
    play = parts[0].strip()
    opts = {"exchange": DEFAULT_EXCHANGE, "void": DEFAULT_VOID}
    seen = set()
    for part in parts[1:]:
        if "=" not in part:
            raise StrategyError(f"seat spec {spec!r}: {part!r} should be exchange=POLICY or void=POLICY")
        key, value = (x.strip() for x in part.split("=", 1))
        if key not in opts:
            raise StrategyError(f"seat spec {spec!r}: unknown part {key!r} (expected exchange= or void=)")
        if key in seen:
            raise StrategyError(f"seat spec {spec!r}: {key}= given twice")
        seen.add(key)
        opts[key] = value
    return SeatSpec(
        play=_check_part("play", play, spec),
        exchange=_check_part("exchange", opts["exchange"], spec),
        void=_check_part("void", opts["void"], spec),
    )


def parse_seats(spec: str | None) -> list[SeatSpec]:
    """``SPEC`` for all four seats or ``A,B,C,D``; None means the default (``efficient``)."""
    if spec is None or not str(spec).strip():
        spec = DEFAULT_PLAY
    items = [s for s in str(spec).split(",")]
    if len(items) == 1:
        return [parse_seat(items[0])] * 4
    if len(items) != 4:
        raise StrategyError(f"seats {spec!r}: give one spec for all seats or four separated by commas, not {len(items)}")
    return [parse_seat(s) for s in items]


def canonical_seats(seats: list[SeatSpec]) -> list[str]:
    return [s.canonical for s in seats]


_USER_CACHE: dict[str, object] = {}


def load_user(name: str):
    """``path/to/file.py:func`` -> a dispatcher compiled for STRATEGY_SIG."""
    if name in _USER_CACHE:
        return _USER_CACHE[name]
    path, _, attr = name.rpartition(":")
    file = Path(path).expanduser()
    if not file.is_file():
        raise StrategyError(f"strategy file {path!r} does not exist")
    mod_name = "sichuan_user_" + "".join(c if c.isalnum() else "_" for c in str(file.resolve()))
    try:
        spec = importlib.util.spec_from_file_location(mod_name, file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
    except Exception as exc:  # a user file can fail in any way; report it in one line
        raise StrategyError(f"strategy file {path!r} failed to import: {type(exc).__name__}: {exc}") from None
    fn = getattr(module, attr, None)
    if fn is None:
        raise StrategyError(f"strategy file {path!r} has no function {attr!r}")
    try:
        if isinstance(fn, nb.core.registry.CPUDispatcher):
            if STRATEGY_SIG.args not in fn.overloads:
                fn.compile(STRATEGY_SIG)
            disp = fn
        elif callable(fn):
            disp = nb.njit(STRATEGY_SIG, cache=True)(fn)
        else:
            raise StrategyError(f"{name!r} is not a function")
        cres = disp.overloads.get(STRATEGY_SIG.args)
        if cres is None or cres.signature.return_type != STRATEGY_SIG.return_type:
            raise StrategyError(f"strategy {name!r} must return an int64 for (int64, int64[::1], uint8[::1])")
    except StrategyError:
        raise
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StrategyError(f"strategy {name!r} does not compile as f(question, view, tab) -> int64: {first}") from None
    _USER_CACHE[name] = disp
    return disp


def _first_line(fn) -> str:
    doc = getattr(fn, "__doc__", None) or getattr(getattr(fn, "py_func", None), "__doc__", None) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def describe_builtins() -> str:
    """One line per built-in strategy, grouped by kind, defaults marked."""
    defaults = {"play": DEFAULT_PLAY, "exchange": DEFAULT_EXCHANGE, "void": DEFAULT_VOID}
    lines = []
    for kind, table in KINDS.items():
        lines.append(f"{kind}:")
        width = max(len(n) for n in table)
        for name, fn in table.items():
            mark = " (default)" if name == defaults[kind] else ""
            lines.append(f"  {name:<{width}}  {_first_line(fn)}{mark}")
    lines.append("A seat spec is PLAY[+exchange=POLICY][+void=POLICY]; any part may be path/to/file.py:function.")
    return "\n".join(lines)


def resolve(kind: str, name: str):
    if _is_user(name):
        return load_user(name)
    return KINDS[kind][name]


def seat_functions(seats: list[SeatSpec]) -> tuple:
    """The engine's 12 functions: play for seats 0-3, exchange for 0-3, void for 0-3."""
    fns = [resolve("play", s.play) for s in seats]
    fns += [resolve("exchange", s.exchange) for s in seats]
    fns += [resolve("void", s.void) for s in seats]
    return tuple(fns)
