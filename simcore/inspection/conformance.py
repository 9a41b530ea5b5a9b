"""Conformance check of a seat spec: legal answers in every situation it answers.

The spec sits at each seat in turn against a mixed field (random, greedy, efficient and
defensive seats with varied exchange and void policies), under every preset, with the
engine in check mode, until the spec's strategies have answered ``situations`` questions.
Then every situation a strategy answers (``records.SITUATIONS``: exchange, void, an own turn
with a win, with a kong or a plain discard, a locked blood-flow seat's turn with a choice,
each combination of claims, a robbable kong) must have been put to it ``MIN_EACH`` times:
those real play reached fewer times are put to it in steered hands (``simcore.inspection.situations``:
fixed walls, scripted opponents), and a situation still short fails the check, named.
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

from strategies.registry import StrategyError, parse_seat, parse_seats, seat_functions, split_top

from simcore.contract import records as rec
from simcore.runs.batch import InvariantError, StrategyAnswerError, run_batch, trace_command
from simcore.contract.rules import PRESETS, preset
from simcore.inspection.situations import play_steered, steered
from simcore.contract.tables import load_tables
from simcore.contract.view import QUESTION_NAMES

FIELD = (
    "random+exchange=random+void=random",
    "greedy+exchange=keep-pairs+void=weakest",
    "efficient",
    "defensive+exchange=random+void=weakest",
)
BATCH_HANDS = 64
MIN_EACH = 200          # each situation at least this many times
STEER_TRIES = 4         # steered hands played per situation short, at most (each usually gives one)


@dataclass
class Report:
    """What the check saw: questions answered by kind and preset, hands played, failures."""

    spec: str
    situations: int = 0
    hands: int = 0
    by_question: dict = field(default_factory=lambda: {name: 0 for name in QUESTION_NAMES})
    by_preset: dict = field(default_factory=lambda: {name: 0 for name in PRESETS})
    by_situation: dict = field(default_factory=lambda: {name: 0 for name in rec.SITUATIONS})
    steered: dict = field(default_factory=lambda: {name: 0 for name in rec.SITUATIONS})
    steered_hands: int = 0
    failures: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def first_failure(self) -> str:
        return self.failures[0] if self.failures else ""

    def summary(self, with_failure: bool = True) -> str:
        kinds = ", ".join(f"{k} {v:,}" for k, v in self.by_question.items())
        presets = ", ".join(f"{k} {v:,}" for k, v in self.by_preset.items())
        situations = ", ".join(f"{k} {v:,}" + (f" ({self.steered[k]:,} steered)" if self.steered[k] else "")
                               for k, v in self.by_situation.items())
        lines = [
            f"conformance of {self.spec}: {'ok' if self.ok else 'FAILED'}",
            f"  {self.situations:,} situations in {self.hands:,} hands at every seat against a mixed field"
            f" and {self.steered_hands:,} steered hands",
            f"  by question:  {kinds}",
            f"  by preset:    {presets}",
            f"  by situation: {situations}",
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
    # every hand asks the void question and, where the rules exchange, the exchange question:
    # real play is their only source, so it goes on until both have been asked often enough
    while report.ok and (report.situations < situations or report.by_situation["exchange"] < MIN_EACH
                         or report.by_situation["void"] < MIN_EACH):
        name = PRESETS[cell % len(PRESETS)]
        seat = (cell // len(PRESETS)) % 4
        seats = _seats_with(canonical, seat, cell)
        first = cell * BATCH_HANDS
        _play_cell(report, preset(name), name, seats, seat, seed, first, repeat=cell < len(PRESETS))
        cell += 1
    if report.ok:
        _steer(report, canonical, seed)
    if not np.array_equal(tab, tab_before):
        tab[:] = tab_before  # undo, so later play in this process is not poisoned
        # first: with its tables changed the engine's own checks fail too, as a consequence
        report.failures.insert(0, f"strategy {canonical!r} changed the shared suit tables it was given "
                                  "(read-only by contract)")
    return report


def _play_cell(report: Report, rules, name: str, seats: str, seat: int, seed: int, first: int, repeat: bool) -> None:
    fns = seat_functions(parse_seats(seats))
    names = [s.strip() for s in split_top(seats, ",", "seats")]  # parameters may hold commas

    def hint(g: int) -> str:
        return trace_command(rules, seed, g, seats=names)

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
    sits = res.seat[:, seat, rec.S_SITUATION:rec.S_SITUATION + rec.N_SITUATIONS].sum(axis=0)
    for k, sname in enumerate(rec.SITUATIONS):
        report.by_situation[sname] += int(sits[k])
    asked = res.seat[:, seat, rec.S_ASKED:rec.S_ASKED + len(QUESTION_NAMES)].sum(axis=0)
    for q, qname in enumerate(QUESTION_NAMES):
        report.by_question[qname] += int(asked[q])
    report.situations += int(asked.sum())
    report.by_preset[name] += int(asked.sum())
    report.hands += res.n


def _steer(report: Report, spec: str, seed: int) -> None:
    """Put each situation real play reached fewer than ``MIN_EACH`` times to the spec in steered
    hands (the spec at the checked seat, ``passive`` and scripted seats elsewhere) until it has
    been met that often; a situation still short is a failure, named."""
    players = seat_functions(parse_seats(",".join([spec] * 4)))
    rng = np.random.default_rng(seed)
    g = 0
    for sname in rec.SITUATIONS:
        short = MIN_EACH - report.by_situation[sname]
        tries = STEER_TRIES * max(short, 0)
        while report.by_situation[sname] < MIN_EACH and tries > 0 and report.ok:
            tries -= 1
            sc = steered(sname, rng)
            if sc is None:
                break
            me, hand, seats = play_steered(sc, players, seed, g)
            g += 1
            report.steered_hands += 1
            if int(hand[rec.H_ERROR]) != rec.ERR_NONE:
                if int(hand[rec.H_ERR_SEAT]) == me:
                    from simcore.runs.batch import describe_error
                    names = [spec if s == me else "scripted" for s in range(4)]
                    report.failures.append(describe_error(hand, g - 1, names, _steered_hint(sc, sname)))
                continue  # an opponent's script that the hand made illegal: draw another
            sits = seats[me, rec.S_SITUATION:rec.S_SITUATION + rec.N_SITUATIONS]
            for q, qname in enumerate(QUESTION_NAMES):
                report.by_question[qname] += int(seats[me, rec.S_ASKED + q])
            for k, other in enumerate(rec.SITUATIONS):
                report.by_situation[other] += int(sits[k])
                report.steered[other] += int(sits[k])
            report.situations += int(sits.sum())
    short = [f"{k} ({v:,})" for k, v in report.by_situation.items() if v < MIN_EACH]
    if report.ok and short:
        report.failures.append(f"strategy {spec!r} met these situations fewer than {MIN_EACH} times, in real play and "
                               f"steered hands: {', '.join(short)}")


def _steered_hint(sc, situation: str) -> str:
    """How to replay a steered hand: the scenario's deal (``simcore.inspection.scenario.Scenario``)."""
    return (f"a steered hand for situation {situation!r} (rules {sc.rules}, dealer {sc.dealer}, hands {sc.hands}, "
            f"draws {sc.draws!r}, voids {sc.voids!r}, scripts {sc.scripts}); replay it with simcore.inspection.scenario.Scenario")
