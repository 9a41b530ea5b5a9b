"""Judging one seat's decisions in one hand by rollouts (``sichuan analyze``, ``simcore.inspection.review``;
ARCHITECTURE.md: Search).

The hand is replayed to each question the seat is asked (``trace.run_traced(..., pause=n)``);
where the question has more than one candidate answer (``strategies.search.candidates``: on a turn
every legal discard by default), each candidate is played out on the same sampled tables, every
seat following the rollout policy, and reported with its mean net for the seat, a 95% interval,
and its gap to the best candidate with a paired 95% interval (the same tables for both), the best
chosen on one half of the rollouts and the gap measured on the other (``split_gaps``).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from simcore import engine as E
from simcore.contract import view as vw
from simcore.inspection.run_hands import RunHand, hands_of_run, independent_hands
from simcore.contract.tiles import N_KINDS, SUITS, tile_text

QUESTION_NAMES = {int(vw.Q_EXCHANGE): "exchange", int(vw.Q_VOID): "void", int(vw.Q_TURN): "turn",
                  int(vw.Q_CLAIM): "claim", int(vw.Q_ROB): "rob"}
Z95 = 1.959964
LEAD_EVENTS = 2  # a trace's "start" and "deal" come before the events of the log's rows (trace.events_from_log)
MAX_ROLLOUTS = 1_000_000


def answer_text(q: int, a: int) -> str:
    """An answer as a person reads it: ``discard 5m``, ``kong 3p``, ``win``, ``pass 1m 2m 9s``."""
    if q == vw.Q_EXCHANGE:
        return "pass " + " ".join(tile_text(int(t)) for t in sorted(vw.unpack3(a)))
    if q == vw.Q_VOID:
        return f"void {SUITS[a]}"
    if q == vw.Q_TURN:
        if a == vw.A_WIN:
            return "win"
        if vw.A_KONG <= a < vw.A_KONG + N_KINDS:
            return f"kong {tile_text(a - vw.A_KONG)}"
        return f"discard {tile_text(a)}"
    return ("pass", "win", "pung", "kong")[a]


def rollout_seats(hand: RunHand, policy=None) -> list:
    """Who plays the rollouts: the seat specs of ``policy`` (one for all four or four, any seat
    specs, user files included), or by default the hand's own seats; a seat that searches plays
    on with its rollout policy (a rollout cannot search)."""
    from strategies.registry import parse_seat, parse_seats, rollout_policy, seat_functions

    if isinstance(policy, (list, tuple)):   # already the specs this function gave
        return list(policy)
    specs = parse_seats(policy) if policy is not None else list(hand.specs or parse_seats(",".join(hand.seats)))
    fns = seat_functions(specs).fns
    out = []
    for s, spec in enumerate(specs):
        inner = rollout_policy(spec, fns, s)
        out.append(parse_seat(inner) if inner is not None else spec)
    return out


def rollouts_text(specs, full_names: bool = False) -> str:
    """Who played the rollouts, for a report: one spec, or the four in seat order (shortest specs,
    ``strategies.names``; ``full_names``: canonical)."""
    from strategies.names import short_names

    short = short_names([s.canonical for s in specs], full_names)
    names = [short[s.canonical] for s in specs]
    return names[0] + " at every seat" if len(set(names)) == 1 else "; ".join(f"seat {i}: {n}" for i, n in enumerate(names))


def _rollout_arena(specs: list, seat: int):
    """An arena for judging ``seat``'s decisions with the four ``specs`` playing the rollouts."""
    from strategies.registry import parse_seats, seat_functions

    from simcore.engine import arena_with

    template = seat_functions(parse_seats("search"))   # an arena's layout: the search player's
    return arena_with(template, seat, seat_functions(specs))


def _own_arena(players, seat: int):
    """An arena for the seat's own strategy when it searches (its answer needs one), else empty."""
    from simcore.contract.arena import AR_HEADER, AR_LEN
    from simcore.engine import arena_for

    if players.arena[seat * AR_HEADER + AR_LEN] > 0:
        return arena_for(players, seat)
    return np.zeros(0, np.int64)


def _decision_seed(seed: int, g: int, seat: int, k: int) -> int:
    """The rollouts' randomness of decision k: from (seed, hand, seat, decision) only."""
    return int(np.random.SeedSequence([seed, g, seat, k, 0x5EA4C4]).generate_state(1, np.uint64)[0] >> np.uint64(2))


def judge_hand(hand: RunHand, seat: int, decision: int | None = None, rollouts: int = 500,
               policy=None, discards: int = 14, progress=None, shape: float | None = None) -> list[dict]:
    """One row per candidate of each judged decision of ``seat`` (or of decision ``decision``).
    ``policy``: who plays the rollouts (seat spec text, or what ``rollout_seats`` gave; the hand's
    own seats by default).
    ``shape``: the sampler's weight on the opponents' shanten (default: the search player's)."""
    from strategies.search import MAX_CAND, ask_posed, judge_posed

    from simcore.engine import pose
    from simcore.contract.tables import load_tables
    from simcore.inspection.trace import run_traced

    if not 0 <= seat < 4:
        raise ValueError(f"--seat {seat}: a seat is 0..3")
    if not 1 <= rollouts <= MAX_ROLLOUTS:
        raise ValueError(f"--rollouts {rollouts}: between 1 and {MAX_ROLLOUTS}")
    tab = load_tables()
    A = _rollout_arena(rollout_seats(hand, policy), seat)
    if shape is None:
        from strategies.search import PARAMS

        shape = next(p.default for p in PARAMS if p.name == "shape")
    shape_milli = np.int64(round(shape * 1000))
    own_arena = _own_arena(hand.players, seat)
    out = np.zeros(2 + 3 * MAX_CAND + MAX_CAND * MAX_CAND, np.int64)
    rows: list[dict] = []
    k = -1
    p = 0
    while True:
        p += 1
        S = run_traced(hand.rules, hand.players, hand.seed, hand.g, hand.dealer, hand.scores, pause=p, check=False,
                       options=hand.options)[0]
        if E.hand_over(S):
            break
        q = pose(S, seat)
        if q < 0:
            continue
        group = 1 if q == vw.Q_EXCHANGE else (2 if q == vw.Q_VOID else 0)
        actual = int(ask_posed(S.copy(), np.int64(seat), tab, np.int64(group), own_arena))
        # a question with one candidate besides the seat's own answer is no decision
        n = judge_posed(S.copy(), np.int64(seat), tab, A, np.int64(discards), np.int64(1), np.int64(0),
                        np.int64(actual), shape_milli, out)
        if n <= 1:
            continue
        k += 1
        if decision is not None and k != decision:
            if k > decision:
                break
            continue
        if progress:
            progress(k, p)
        # two independent halves of the rollouts: the best option is chosen on one half and its gap
        # measured on the other (the best of noisy means measured on the same rollouts errs high)
        halves = []
        for h, m in enumerate(((rollouts + 1) // 2, rollouts // 2)):
            if m:
                half = np.zeros_like(out)
                n = judge_posed(S.copy(), np.int64(seat), tab, A, np.int64(discards), np.int64(m),
                                np.int64(_decision_seed(hand.seed, hand.g, seat, k) ^ h), np.int64(actual), shape_milli,
                                half)
                halves.append(Sums.of(half, n))
        rows += _rows(k, p, q, halves, actual, S, seat, LEAD_EVENTS + E.events_logged(S))
    if decision is not None and not any(r["decision"] == decision for r in rows):
        raise ValueError(f"--decision {decision}: seat {seat} has {k + 1} decisions in hand {hand.g} (0-{k})")
    return rows


class Sums:
    """A candidate list's rollout sums: tables ``m``, and per candidate the totals, sums of squares
    and cross products (``search.judge_posed``'s output)."""

    def __init__(self, m, answers, tot, sq, cross):
        self.m, self.answers, self.tot, self.sq, self.cross = m, answers, tot, sq, cross

    @staticmethod
    def of(out: np.ndarray, n: int) -> "Sums":
        return Sums(int(out[1]), out[2:2 + n].copy(), out[2 + n:2 + 2 * n].astype(float),
                    out[2 + 2 * n:2 + 3 * n].astype(float), out[2 + 3 * n:2 + 3 * n + n * n].reshape(n, n).astype(float))

    def __add__(self, o: "Sums") -> "Sums":
        return Sums(self.m + o.m, self.answers, self.tot + o.tot, self.sq + o.sq, self.cross + o.cross)

    @property
    def mean(self) -> np.ndarray:
        return self.tot / self.m

    def gap(self, a: int, c: int) -> tuple[float, float]:
        """mean(a) - mean(c) over these tables and its standard error (paired: the same tables)."""
        m = self.m
        d = (self.tot[a] - self.tot[c]) / m
        var = (self.sq[a] - 2 * self.cross[a, c] + self.sq[c]) / m - d * d
        return d, math.sqrt(max(var, 0.0) / max(m - 1, 1))


def split_gaps(halves: list[Sums]) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's gap to the best and its standard error, the best chosen on one half of the
    rollouts and the gap measured on the other, both ways, averaged (cross-fitting): the gap's
    mean is the true gap to the option that rule chooses, never the inflated best-of-noisy-means.
    With one half only (a single rollout) the gap is measured on the rollouts it was chosen on."""
    n = len(halves[0].tot)
    if len(halves) == 1:
        h = halves[0]
        best = int(np.argmax(h.mean))
        g = [h.gap(best, c) for c in range(n)]
        return np.array([x[0] for x in g]), np.array([x[1] for x in g])
    a, b = halves
    ga = [b.gap(int(np.argmax(a.mean)), c) for c in range(n)]   # chosen on a, measured on b
    gb = [a.gap(int(np.argmax(b.mean)), c) for c in range(n)]   # and the other way round
    gap = np.array([(x[0] + y[0]) / 2 for x, y in zip(ga, gb)])
    se = np.array([math.sqrt(x[1] ** 2 + y[1] ** 2) / 2 for x, y in zip(ga, gb)])
    return gap, se


def _rows(k, p, q, halves: list, actual, S, seat, event) -> list[dict]:
    every = halves[0] if len(halves) == 1 else halves[0] + halves[1]
    m, answers, mean = every.m, every.answers, every.mean
    sd = np.sqrt(np.maximum(every.sq / m - mean ** 2, 0.0) * m / max(m - 1, 1))
    gap, gap_se = split_gaps(halves)
    best = int(np.argmax(mean))
    rows = []
    view = E.seat_view(S, seat)
    for c in range(len(answers)):
        se = sd[c] / math.sqrt(m)
        rows.append({
            "decision": k, "point": p, "event": event, "question": QUESTION_NAMES[int(q)],
            "tile": tile_text(int(view[vw.V_TILE])) if q in (vw.Q_CLAIM, vw.Q_ROB) else "",
            "candidate": answer_text(int(q), int(answers[c])), "answer": int(answers[c]),
            "mean": mean[c], "lo": mean[c] - Z95 * se, "hi": mean[c] + Z95 * se,
            "gap": gap[c], "gap_lo": gap[c] - Z95 * gap_se[c], "gap_hi": gap[c] + Z95 * gap_se[c],
            "best": c == best, "chosen": int(answers[c]) == actual, "rollouts": m,
        })
    rows.sort(key=lambda r: (-r["mean"], r["candidate"]))
    return rows


def shortfall(gap: float) -> float:
    """What an option falls short of the best by, as the viewer and ``sichuan analyze`` show it:
    its gap (or a bound of the gap's interval) cut at 0. The gap is unbiased, so noise puts it
    below 0 at times; a shortfall cannot be (cutting an interval at the bound of what it estimates
    keeps its coverage)."""
    return max(float(gap), 0.0)


def review(hand: RunHand, seat: int, rollouts: int = 500, policy=None, discards: int = 14,
           progress=None) -> dict:
    """One seat's decisions in one hand as the viewer's reviewer shows them (``sichuan trace
    --format html --review SEAT``): each decision with the event it came before, its options best
    first (``judge_hand``'s rows), and what the seat's choice gave up against the best (its
    unbiased gap with its paired interval and standard error ``lost_se``, near 0 where it chose
    the best). ``lost`` sums those gaps over the hand, with a 95% interval (``lost_lo``,
    ``lost_hi``: each decision's rollouts are its own, so their errors add in quadrature)."""
    specs = rollout_seats(hand, policy)
    rows = judge_hand(hand, seat, None, rollouts, specs, discards, progress)
    decisions = []
    for k in sorted({r["decision"] for r in rows}):
        options = [r for r in rows if r["decision"] == k]
        chosen = next(r for r in options if r["chosen"])
        decisions.append({"decision": k, "event": chosen["event"], "question": chosen["question"],
                          "tile": chosen["tile"], "options": options, "chosen": chosen["candidate"],
                          "best": options[0]["candidate"], "chose_best": bool(chosen["best"]),
                          "lost": chosen["gap"], "lost_lo": chosen["gap_lo"], "lost_hi": chosen["gap_hi"],
                          "lost_se": (chosen["gap_hi"] - chosen["gap"]) / Z95})
    lost = sum(d["lost"] for d in decisions)
    se = math.sqrt(sum(d["lost_se"] ** 2 for d in decisions))
    return {"seat": seat, "strategy": hand.seats[seat], "rollouts": rollouts,
            "policy": rollouts_text(specs),
            "decisions": decisions, "lost": lost, "lost_lo": lost - Z95 * se, "lost_hi": lost + Z95 * se}


def hand_setup(run=None, hand: int = 0, rules="battle", sets=None, seats=None, seed: int = 0,
               allow_changed_strategy: bool = False, options=None) -> RunHand:
    """Hand ``hand`` of a run directory (its own rules, seats, seed, dealer and scores), or of the
    given rules, seats and seed (dealt by hand mod 4, as ``sichuan trace`` plays it)."""
    if run is not None:
        return hands_of_run(run, [hand], allow_changed_strategy)[0]
    from simcore.contract.rules import resolve

    return independent_hands(resolve(rules, sets), _seat_specs(seats), seed, [hand], options)[0]


def _seat_specs(seats) -> list:
    """Seats as a seat spec's text (None: the default) or as parsed SeatSpecs."""
    from strategies.registry import parse_seats

    return parse_seats(seats) if seats is None or isinstance(seats, str) else list(seats)


def review_hands(setups: list[RunHand], traced, seat: int, rollouts: int = 500, policy=None,
                 discards: int = 14, progress=None) -> list:
    """``review`` of each hand (None for a hand stopped by an illegal answer: it has no end to play
    out to); ``progress(hand)`` is called before each."""
    out = []
    for h, t in zip(setups, traced):
        if t.error_message():
            out.append(None)
            continue
        if progress is not None:
            progress(h)
        out.append(review(h, seat, rollouts, policy, discards))
    return out


def analyze(run=None, hand: int = 0, seat: int = 0, decision: int | None = None, rollouts: int = 500,
            policy=None, rules="battle", sets=None, seats=None, seed: int = 0, discards: int = 14,
            progress: bool = False, allow_changed_strategy: bool = False, options=None):
    """Judge seat ``seat``'s decisions in one hand by rollouts: a DataFrame with one row per
    candidate answer of each decision (or of decision ``decision``, counted from 0 over the
    questions where the seat had a choice), best first within a decision: ``mean`` net for the seat
    from the decision to the hand's end over ``rollouts`` sampled tables with its 95% interval (``lo``, ``hi``);
    ``gap`` to the best candidate with a paired 95% interval (``gap_lo``, ``gap_hi``: unbiased, so
    noise puts it below 0 at times; ``sichuan analyze`` and the viewer show it cut at 0, as a
    shortfall, ``shortfall``); ``best``, the candidate with the highest mean; ``chosen``,
    the seat's actual answer; ``event``, the index in the hand's trace of the first event after
    the decision (the decision is taken at the table shown after event ``event - 1``). The rollouts
    are played by the hand's own seats (a searching seat by its rollout policy), or by ``policy``:
    one seat spec for all four or four (``df.attrs["rollouts_by"]`` says who played).
    ``allow_changed_strategy`` judges a run's hand though a strategy file changed since (a warning).

        >>> import simcore
        >>> simcore.analyze(hand=3, seat=0, decision=0, rollouts=1000)   # the exchange of hand 3
    """
    import pandas as pd

    h = hand_setup(run, hand, rules, sets, seats, seed, allow_changed_strategy, options)
    show = None
    if progress:
        def show(k, p):
            print(f"judging decision {k} (resume point {p})", file=sys.stderr, flush=True)
    specs = rollout_seats(h, policy)
    df = pd.DataFrame(judge_hand(h, seat, decision, rollouts, specs, discards, show))
    df.attrs["rollouts_by"] = rollouts_text(specs)
    return df
