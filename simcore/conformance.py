"""Conformance check of a seat spec: legal answers in situations from real play.

The spec sits at each seat in turn against a mixed field (random, greedy, efficient and
defensive seats with varied exchange and void policies), under all four presets, with the
engine in check mode, until the spec's strategies have answered ``situations`` questions.
The engine itself judges every answer (the same validation that stops a run), and check mode
adds that a strategy writes nothing in its view but its scratch slots and its random stream.
Besides that, the check asks for two properties the engine cannot see in one hand:

- reproducibility: the same hands played twice give the same results (no hidden state, no
  unseeded randomness);
- the shared suit tables are unchanged after play (strategies receive them writable).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from strategies.registry import StrategyError, parse_seat, parse_seats, seat_functions

from . import records as rec
from .batch import InvariantError, StrategyAnswerError, run_batch
from .rules import PRESETS, preset
from .tables import load_tables
from .view import QUESTION_NAMES

FIELD = (
    "random+exchange=random+void=random",
    "greedy+exchange=keep-pairs+void=weakest",
    "efficient",
    "defensive+exchange=random+void=weakest",
)
BATCH_HANDS = 64


@dataclass
class Report:
    """What the check saw: questions answered by kind and preset, hands played, failures."""

    spec: str
    situations: int = 0
    hands: int = 0
    by_question: dict = field(default_factory=lambda: {name: 0 for name in QUESTION_NAMES})
    by_preset: dict = field(default_factory=lambda: {name: 0 for name in PRESETS})
    failures: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def first_failure(self) -> str:
        return self.failures[0] if self.failures else ""

    def summary(self, with_failure: bool = True) -> str:
        kinds = ", ".join(f"{k} {v:,}" for k, v in self.by_question.items())
        presets = ", ".join(f"{k} {v:,}" for k, v in self.by_preset.items())
        lines = [
            f"conformance of {self.spec}: {'ok' if self.ok else 'FAILED'}",
            f"  {self.situations:,} situations in {self.hands:,} hands at every seat against a mixed field",
            f"  by question: {kinds}",
            f"  by preset:   {presets}",
        ]
        if with_failure and not self.ok:
            lines.append(f"  first failure: {self.first_failure()}")
        return "\n".join(lines)


def _seats_with(spec: str, seat: int, shift: int) -> str:
    others = [FIELD[(shift + i) % len(FIELD)] for i in range(3)]
    others.insert(seat, spec)
    return ",".join(others)


def check_spec(spec: str, situations: int = 10000, seed: int = 0) -> Report:
    """Play ``spec`` at every seat under every preset until it has answered ``situations``
    questions; stop at the first failure. A malformed spec raises ``ValueError``."""
    if "," in spec:
        raise StrategyError(f"--check takes one seat spec, not a list of four: {spec!r}")
    if situations <= 0:
        raise ValueError("situations must be positive")
    canonical = parse_seat(spec).canonical
    report = Report(canonical)
    tab = load_tables()
    tab_before = tab.copy()
    cell = 0
    while report.situations < situations and report.ok:
        name = PRESETS[cell % len(PRESETS)]
        seat = (cell // len(PRESETS)) % 4
        seats = _seats_with(canonical, seat, cell)
        first = cell * BATCH_HANDS
        _play_cell(report, preset(name), name, seats, seat, seed, first, repeat=cell < len(PRESETS))
        cell += 1
    if not np.array_equal(tab, tab_before):
        tab[:] = tab_before  # undo, so later play in this process is not poisoned
        # first: with its tables changed the engine's own checks fail too, as a consequence
        report.failures.insert(0, f"strategy {canonical!r} changed the shared suit tables it was given "
                                  "(read-only by contract)")
    return report


def _play_cell(report: Report, rules, name: str, seats: str, seat: int, seed: int, first: int, repeat: bool) -> None:
    fns = seat_functions(parse_seats(seats))
    names = [s.strip() for s in seats.split(",")]

    def hint(g: int) -> str:
        return f"sichuan trace --rules {name} --seed {seed} --hand {g} --seats '{seats}'"

    try:
        res = run_batch(rules, fns, seed, first, BATCH_HANDS, check=True, seat_names=names, trace_hint=hint)
        if repeat:
            again = run_batch(rules, fns, seed, first, BATCH_HANDS, check=True, seat_names=names, trace_hint=hint)
            if not (np.array_equal(res.seat, again.seat) and np.array_equal(res.hand, again.hand)):
                g = first + int(np.flatnonzero((res.seat != again.seat).any(axis=(1, 2))
                                               | (res.hand != again.hand).any(axis=1))[0])
                report.failures.append(
                    f"strategy {report.spec!r} is not reproducible: hand {g} played twice gave different results "
                    f"(use the view's random stream, not global state); compare: {hint(g)}")
    except (StrategyAnswerError, InvariantError) as exc:
        report.failures.append(str(exc))
        return
    asked = res.seat[:, seat, rec.S_ASKED:rec.S_ASKED + len(QUESTION_NAMES)].sum(axis=0)
    for q, qname in enumerate(QUESTION_NAMES):
        report.by_question[qname] += int(asked[q])
    report.situations += int(asked.sum())
    report.by_preset[name] += int(asked.sum())
    report.hands += res.n
