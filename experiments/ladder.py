"""The strategy ladder: every play 1 vs 3, in duplicate, against each field, under each preset
(``sichuan ladder``).

A *play* and a *field* are seat specs (``expert[flush_weight=3]``,
``expert+exchange=expert+void=expert``); the field ``mixed`` is the mixed table below. Every
table of a preset plays hands 0..walls-1 with the same seed, so hand w of every table is dealt
from the same wall by the same dealer (wall w depends only on (seed, w)).

- **Uniform field F** (all four seats F): for each wall w the table of four F is played once (the
  baseline) and, for each play A != F, four tables with A at seat r (r = 0..3) and F at the other
  three. A's score on wall w is ``mean over r of (A's net at seat r) - (baseline net at seat r)``,
  the net A won or lost by sitting where F sat. A play equal to the field (the same canonical
  spec) scores exactly 0 and is not played again: its statistics are the baseline table's.
- **Mixed field**: the play sits at each seat r in turn and the three seats after it in turn order,
  (r+1)%4, (r+2)%4, (r+3)%4, are ``random``, ``greedy`` and ``efficient``. Its score on wall w is its
  mean net per hand over the four rotations (no baseline is subtracted).
- With the luck estimator (the default) every net is the seat's net less its luck (README: Cheaper
  duplicate answers); each score's JSON keeps the plain one too.
- Against a uniform field a play's four rotation tables are played with the field's table, each
  only where the play answers differently (``batch.run_shadowed``: the same tables, hand for
  hand); the score's JSON gives ``walls_differed``. A searching play, and the mixed field, play
  every table in full.
- A score in a field is the mean over walls with a normal 95% interval over the per-wall scores
  (``simcore.runs.analysis.mean_ci``); a paired difference between two plays in one field and preset
  is the mean of the per-wall differences of their scores, with its interval the same way.
- **Per-play statistics**, for each preset and field from the seats the play held (4 seat-hands a
  wall), and pooled over the fields: wins per hand (every win: several in blood flow); the
  self-drawn share of its wins (self_draw and kong_replacement); the mean base of its wins; the
  deal-in rate, dealt-in discards / discards (a discard counts once however many seats win on it;
  a robbed kong is not a discard); the share of its hands that ended with the wall exhausted.

Discards are not among the engine's outputs; they are counted exactly, without changing the
engine. Every turn question a seat answers (``S_ASKED + Q_TURN``) ends in a self-drawn win
(self_draw or kong_replacement, from the win rows), a kong declared from its own tiles
(concealed or added; a robbed added kong is a robbing_kong win row from it) or a discard; only a
blood-flow winner's forced discards (locked, no choice) are not asked. A seat's own kongs are
read from its kong payments (``_split_kongs``: an exposed kong pays one row, a concealed or added
one a row from each liable seat). So where that reading is certain and, in blood flow, the seat
never won, discards = turns asked - self-drawn wins - own kongs - robbed added kongs. The other
hands (about a tenth in the battle presets, nearly all in blood flow, where every winner stays
and is locked) are replayed with the engine's event log on (``simcore.engine.play_traced``, the
same ``play_hand``) and their discards counted from the log; a replay's nets must equal the
batch's, and its deal-ins those of the win rows. ``tests/experiments/test_ladder.py`` checks the counts
against a replay of every hand. Dealt-in discards come from the win rows: a discard win's
``(turn, from)`` names one discard (several winners on one tile are consecutive rows).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field

import numba as nb
import numpy as np

from simcore import engine as E
from simcore.contract import records as rec
from simcore.runs.analysis import mean_ci
from simcore.contract.view import Q_TURN, STRATEGY_TYPE

DEFAULT_PLAYS = ("greedy", "efficient", "flush", "defensive", "expert")
DEFAULT_FIELDS = ("greedy", "efficient", "flush", "defensive", "expert", "mixed")
DEFAULT_PRESETS = ("battle", "flow", "kawu", "chengdu", "tfmj")
DEFAULT_WALLS = 20_000
DEFAULT_SEED = 0
DEFAULT_FOCUS = "expert"
MIXED = "mixed"
MIXED_SEATS = ("random", "greedy", "efficient")   # the seats after the play's, in turn order
STATS = ("seat_hands", "wins", "self_drawn", "base_sum", "discards", "dealt_in", "exhausted")

DEFINITIONS = [
    "uniform field F: score of play A on wall w = mean over r = 0..3 of (A's net at seat r with F at the other "
    "three seats) - (the net at seat r of the table of four F), points per hand",
    "mixed field: the play at seat r and random, greedy, efficient at seats r+1, r+2, r+3 (turn order); "
    "score on wall w = its mean net over the four rotations (no baseline subtracted)",
    "score = mean over walls, 95% normal interval over walls; a play equal to the field scores exactly 0 (not replayed)",
    "paired difference A - B in a field = mean over walls of score_A(w) - score_B(w), 95% normal interval over walls",
    "luck estimator (the default): every net above is net - luck (each seat's luck measured with the shipped value "
    "model: unbiased, less variance); each score's JSON also has its plain interval and variance factor plain/luck",
    "per play: wins per hand (every win), self-drawn share of its wins (self_draw, kong_replacement), mean base of "
    "its wins, deal-in rate = its discards won on by another seat / its discards (a discard counts once; a robbed "
    "kong is not a discard), exhausted = share of its hands ending with the wall exhausted; per field over the 4 "
    "seat-hands a wall it played, and pooled over the fields",
]


class LadderError(ValueError):
    """Bad input to the ladder (an unknown play or preset, walls < 1, ...); one line."""


# -- what to play ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """A play or a field: the text the user gave, its seat spec (None for ``mixed``)."""

    label: str
    seat: object = None    # strategies.registry.SeatSpec

    @property
    def canonical(self) -> str:
        return MIXED if self.seat is None else self.seat.canonical

    @property
    def mixed(self) -> bool:
        return self.seat is None


def split_list(text) -> list[str]:
    """A comma-separated list (commas inside a strategy's brackets do not separate), or a list."""
    from strategies.registry import StrategyError, split_top

    if isinstance(text, (list, tuple)):
        items = list(text)
    else:
        try:
            items = split_top(str(text), ",", "list")
        except StrategyError as exc:
            raise LadderError(str(exc)) from None
    items = [str(i).strip() for i in items]
    if not items or any(not i for i in items):
        raise LadderError(f"empty item in the list {text!r}")
    return items


def _entries(items, what: str, allow_mixed: bool) -> list[Entry]:
    from strategies.registry import StrategyError, parse_seat

    out, seen = [], {}
    for item in items:
        if allow_mixed and item == MIXED:
            entry = Entry(MIXED)
        else:
            try:
                entry = Entry(item, parse_seat(item))
            except StrategyError as exc:
                raise LadderError(f"{what} {item!r}: {exc}") from None
        if entry.canonical in seen:
            raise LadderError(f"{what} {item!r} is the same as {seen[entry.canonical]!r} ({entry.canonical})")
        seen[entry.canonical] = item
        out.append(entry)
    return out


def parse_presets(items) -> list[str]:
    from simcore.contract.rules import PRESETS

    out = []
    for p in split_list(items):
        if p not in PRESETS:
            import difflib

            close = difflib.get_close_matches(p, PRESETS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise LadderError(f"unknown preset {p!r}; {hint}presets: {', '.join(PRESETS)}")
        if p in out:
            raise LadderError(f"preset {p!r} named twice")
        out.append(p)
    return out


@dataclass
class Config:
    plays: list
    fields: list
    presets: list
    walls: int = DEFAULT_WALLS
    seed: int = DEFAULT_SEED
    threads: int | None = None
    focus: list = field(default_factory=list)
    draw_order: str = "seat"     # RULES.md: Rulings where the documents are silent, draw order
    estimator: str = "luck"      # scores of net - luck (README: Cheaper duplicate answers), or of net ("plain")


def make_config(plays=DEFAULT_PLAYS, fields=DEFAULT_FIELDS, presets=DEFAULT_PRESETS, walls=DEFAULT_WALLS,
                seed=DEFAULT_SEED, threads=None, focus=None, draw_order="seat", estimator="luck") -> Config:
    """Check and resolve the ladder's input; :class:`LadderError` (one line) on bad input."""
    if not isinstance(walls, (int, np.integer)) or isinstance(walls, bool) or walls < 1:
        raise LadderError(f"walls must be an integer >= 1, not {walls!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise LadderError(f"the seed must be an integer >= 0, not {seed!r}")
    if threads is not None and (not isinstance(threads, (int, np.integer)) or threads < 1):
        raise LadderError(f"threads must be an integer >= 1, not {threads!r}")
    if threads is not None and threads > nb.config.NUMBA_NUM_THREADS:
        raise LadderError(f"threads must be at most {nb.config.NUMBA_NUM_THREADS} (NUMBA_NUM_THREADS), not {threads}")
    from simcore.contract.rules import check_draw_order

    try:
        check_draw_order(draw_order)
    except ValueError as exc:
        raise LadderError(str(exc)) from None
    play_list = _entries(split_list(plays), "play", allow_mixed=False)
    field_list = _entries(split_list(fields), "field", allow_mixed=True)
    preset_list = parse_presets(presets)
    if focus is None:
        names = [DEFAULT_FOCUS] if any(p.label == DEFAULT_FOCUS for p in play_list) else [play_list[0].label]
    else:
        names = split_list(focus)
    focus_list = []
    for name in names:
        match = [p for p in play_list if p.label == name]
        if not match:
            try:
                canon = _entries([name], "focus", allow_mixed=False)[0].canonical
            except LadderError:
                canon = None
            match = [p for p in play_list if p.canonical == canon]
        if not match:
            raise LadderError(f"focus {name!r} is not one of the plays ({', '.join(p.label for p in play_list)})")
        if match[0].label not in focus_list:
            focus_list.append(match[0].label)
    if estimator not in ("luck", "plain"):
        raise ValueError(f"{estimator!r} is not an estimator: use 'luck' or 'plain'")
    return Config(play_list, field_list, preset_list, int(walls), int(seed), threads, focus_list, draw_order,
                  estimator)


# -- the tables of a preset --------------------------------------------------------------------


@dataclass
class Use:
    """A play's seat at one table: its cell (field, play) and rotation."""

    field: str
    play: str
    seat: int


@dataclass
class TablePlan:
    seats: tuple            # four SeatSpec
    uses: list = field(default_factory=list)

    @property
    def key(self) -> tuple:
        return tuple(s.canonical for s in self.seats)

    @property
    def stat_seats(self) -> list[int]:
        return sorted({u.seat for u in self.uses})


def plan_tables(config: Config) -> list[TablePlan]:
    """The distinct tables one preset needs (the same for every preset), in play order: per field
    its baseline, then each play's rotations. A table with the same four seats is played once."""
    from strategies.registry import parse_seat

    tables: dict[tuple, TablePlan] = {}

    def use(seats, u: Use | None):
        key = tuple(s.canonical for s in seats)
        t = tables.setdefault(key, TablePlan(tuple(seats)))
        if u is not None:
            t.uses.append(u)

    mixed = [parse_seat(s) for s in MIXED_SEATS]
    for f in config.fields:
        if not f.mixed:
            use([f.seat] * 4, None)
        for p in config.plays:
            if not f.mixed and p.canonical == f.canonical:
                for r in range(4):
                    use([f.seat] * 4, Use(f.label, p.label, r))
                continue
            for r in range(4):
                seats = [None] * 4
                seats[r] = p.seat
                for i in range(1, 4):
                    seats[(r + i) % 4] = mixed[i - 1] if f.mixed else f.seat
                use(seats, Use(f.label, p.label, r))
    return list(tables.values())


@dataclass
class Table:
    """What the ladder keeps of one table's walls: per wall and seat (walls, 4) unless noted."""

    nets: np.ndarray
    wins: np.ndarray
    self_drawn: np.ndarray
    base_sum: np.ndarray
    discards: np.ndarray      # exact for the seats asked for (stat seats); -1 elsewhere
    dealt_in: np.ndarray
    exhausted: np.ndarray     # (walls,) bool
    luck: np.ndarray | None = None   # each seat's luck (float), when measured
    replayed: int = 0         # hands replayed with the log to count discards


def _first_of_event(win: np.ndarray, valid: np.ndarray, kind) -> np.ndarray:
    """(n, cap) bool: win rows of ``kind`` that are the first row of their event (several
    winners on one discard or robbed kong are consecutive rows with the same turn and source)."""
    k = valid & (win[:, :, rec.W_KIND] == kind)
    first = k.copy()
    same = (k[:, 1:] & k[:, :-1] & (win[:, 1:, rec.W_TURN] == win[:, :-1, rec.W_TURN])
            & (win[:, 1:, rec.W_FROM] == win[:, :-1, rec.W_FROM]))
    first[:, 1:] &= ~same
    return first


def _per_seat(mask: np.ndarray, seat_of: np.ndarray, values=None) -> np.ndarray:
    """(n, 4): per hand and seat, the count (or sum of ``values``) of the masked win rows."""
    out = np.zeros((mask.shape[0], 4), np.int64)
    for s in range(4):
        m = mask & (seat_of == s)
        out[:, s] = m.sum(axis=1) if values is None else np.where(m, values, 0).sum(axis=1)
    return out


def table_of(res, rules, stat_seats) -> tuple[Table, np.ndarray]:
    """The kept arrays of a ``BatchResult``, and the hands whose discards at ``stat_seats`` the
    counts cannot give exactly (to replay)."""
    n = res.n
    win = res.win
    valid = np.arange(win.shape[1])[None, :] < res.hand[:, rec.H_N_WINS][:, None]
    kind = win[:, :, rec.W_KIND]
    seat_of = win[:, :, rec.W_SEAT]
    from_of = win[:, :, rec.W_FROM]
    wins = _per_seat(valid, seat_of)
    self_drawn = _per_seat(valid & ((kind == rec.WIN_SELF_DRAW) | (kind == rec.WIN_KONG_REPLACEMENT)), seat_of)
    base_sum = _per_seat(valid, seat_of, win[:, :, rec.W_BASE].astype(np.int64))
    dealt_in = _per_seat(_first_of_event(win, valid, rec.WIN_DISCARD), from_of)
    robbed = _per_seat(_first_of_event(win, valid, rec.WIN_ROBBING_KONG), from_of)
    seat = res.seat
    asked = seat[:, :, rec.S_ASKED + int(Q_TURN)].astype(np.int64)
    kongs = np.ascontiguousarray(seat[:, :, rec.S_KONGS], np.int64)
    own, known = split_kongs(res.pay, res.hand[:, rec.H_N_PAYMENTS], kongs, rules)
    discards = asked - self_drawn - robbed - own
    inexact = ~known
    if rules.variant == "flow":
        inexact |= wins > 0
    cols = list(stat_seats)
    replay = np.flatnonzero(inexact[:, cols].any(axis=1)) if cols else np.zeros(0, np.int64)
    if len(cols) < 4:
        discards[:, [s for s in range(4) if s not in cols]] = -1
    t = Table(seat[:, :, rec.S_NET].astype(np.int64), wins, self_drawn, base_sum, discards, dealt_in,
              res.hand[:, rec.H_END_REASON] == rec.END_WALL_EXHAUSTED, res.luck if res.luck_measured else None)
    return t, replay


@nb.njit(cache=True)
def _split_kongs(pay, n_pay, kongs, flow, conc, added, exposed, own, known):
    """Per hand and seat, the kongs it declared from its own tiles (concealed or added, not
    robbed) read from its kong payments in order, and whether that count is certain. A kong pays
    on declaration: exposed, one row from the discarder; concealed or added, one row from each
    liable seat in seat order (battle: the seats still in, i.e. not yet paid for a win; flow: all
    three others). Concealed and exposed kongs may pay the same amount: a run of rows from
    exactly the liable seats, in order, is read as one concealed kong (the fewest kongs that
    explain the rows); the reading is certain when it explains the seat's ``kongs`` count, which
    any other reading would exceed, and when more than one seat was liable (a lone liable seat's
    row could be either)."""
    n = pay.shape[0]
    for i in range(n):
        out = 0            # battle: seats that have won (and left) so far
        parsed = np.zeros(4, np.int64)
        doubt = np.zeros(4, np.bool_)
        m = n_pay[i]
        j = 0
        while j < m:
            payer = pay[i, j, rec.P_PAYER]
            s = pay[i, j, rec.P_PAYEE]
            amt = pay[i, j, rec.P_AMOUNT]
            reason = pay[i, j, rec.P_REASON]
            if reason == rec.REASON_WIN or reason == rec.REASON_LIABILITY:
                if not flow:
                    out |= 1 << s
                j += 1
                continue
            if reason != rec.REASON_KONG:
                j += 1
                continue
            # the liable seats now, in seat order, and whether rows j.. are exactly one row from each
            L = 0
            match = True
            for o in range(4):
                if o == s or (not flow and (out >> o) & 1):
                    continue
                k = j + L
                if (k >= m or pay[i, k, rec.P_PAYEE] != s or pay[i, k, rec.P_REASON] != rec.REASON_KONG
                        or pay[i, k, rec.P_AMOUNT] != amt or pay[i, k, rec.P_PAYER] != o):
                    match = False
                L += 1
            parsed[s] += 1
            exposed_only = amt == exposed and amt != conc      # one row, from the discarder
            either = amt == conc and conc == exposed           # the rows must tell concealed from exposed
            by_all = not exposed_only and not either and (amt == conc or (amt == added and added != exposed))
            if exposed_only:
                j += 1
            elif match and (by_all or (either and L > 1)):
                own[i, s] += 1
                j += L
            else:   # unexplained rows; or one liable seat's row, which could be either kong
                doubt[s] = doubt[s] or not (either and not match)
                j += 1
        for s in range(4):
            known[i, s] = (not doubt[s]) and parsed[s] == kongs[i, s]


def split_kongs(pay, n_pay, kongs, rules) -> tuple[np.ndarray, np.ndarray]:
    """(own, known), each (n, 4): the kongs each seat declared from its own tiles (concealed or
    added, not robbed) and whether that count is certain (see ``_split_kongs``)."""
    n = pay.shape[0]
    own = np.zeros((n, 4), np.int64)
    known = np.zeros((n, 4), np.bool_)
    amounts = (rules.kong_pay_concealed, rules.kong_pay_added, rules.kong_pay_exposed)
    if min(amounts) <= 0:      # a kong that pays nothing leaves no rows: every kong is in doubt
        return own, kongs == 0
    _split_kongs(np.ascontiguousarray(pay), np.ascontiguousarray(n_pay, np.int64), np.ascontiguousarray(kongs, np.int64),
                 rules.variant == "flow", *(np.int64(a) for a in amounts), own, known)
    return own, known


# -- replaying hands with the event log on -----------------------------------------------------

LOG_CAP = 4096     # event rows a replayed hand may log (a long blood-flow hand logs a few hundred)
_WIN_CAP, _PAY_CAP = 64, 512


_I64 = nb.types.int64
_I64_2D = _I64[:, ::1]
# explicit, so the twelve strategies arrive as first-class functions: one compiled kernel serves
# every table (typed by the dispatchers themselves, each combination of plays would compile anew)
SIG_REPLAY = nb.types.void(nb.types.uint8[::1], nb.types.UniTuple(STRATEGY_TYPE, 12), _I64[::1],
                           nb.types.UniTuple(STRATEGY_TYPE, 12), _I64[::1], _I64_2D, _I64[::1],
                           _I64_2D, _I64_2D, _I64_2D, _I64[::1])


@nb.njit(parallel=True, cache=True)
def _replay_kernel(tab, fns, setup, rfns, arena, states, hands, discards, dealt_in, nets, events):
    """Replay global hands ``hands`` (hand g dealt by g % 4) with the event log on, in
    ``states.shape[0]`` parts of consecutive hands, each part on its own state (its header filled
    by ``simcore.engine.new_state``); per hand and seat: discards, discards won on, net, and the
    events logged. Each hand depends only on (seed, g), so the parts do not change the results."""
    parts = states.shape[0]
    m = hands.shape[0]
    for p in nb.prange(parts):
        lo = m * p // parts
        hi = m * (p + 1) // parts
        S = states[p]
        h = np.zeros((1, rec.N_HAND_FIELDS), np.int32)
        st = np.zeros((1, 4, rec.N_SEAT_FIELDS), np.int32)
        w = np.zeros((1, _WIN_CAP, rec.N_WIN_FIELDS), np.int32)
        pay = np.zeros((1, _PAY_CAP, rec.N_PAY_FIELDS), np.int32)
        scores = np.zeros(4, np.int64)
        no_wall = np.zeros(0, np.int64)
        for i in range(lo, hi):
            g = hands[i]
            E.set_hand_at(S, g)
            E.play_traced(tab, fns, setup, rfns, arena, g % 4, scores, no_wall, np.int64(0), S, h, st, w, pay)
            n_ev = E.events_at(S)
            events[i] = n_ev
            o = E.log_at(S)
            last = -1   # the latest discarder whose discard no one has won on yet
            for r in range(min(n_ev, LOG_CAP)):
                row = o + r * rec.LOG_WIDTH
                ev = S[row + rec.LW_EVENT]
                if ev == rec.EV_DISCARD:
                    last = S[row + rec.LW_FIELDS]
                    discards[i, last] += 1
                elif ev == rec.EV_WIN:
                    if S[row + rec.LW_FIELDS + 3] == rec.WIN_DISCARD and last >= 0:
                        dealt_in[i, last] += 1
                        last = -1
                elif ev == rec.EV_DRAW:
                    last = -1
            for s in range(4):
                nets[i, s] = st[0, s, rec.S_NET]


def replay_counts(rules, players, seed: int, hands, threads: int | None = None, options=None) -> dict:
    """Per replayed hand (rows in the order of ``hands``) and seat: ``discards``, ``dealt_in``
    and ``net``, counted from the engine's event log (``simcore.engine.play_traced``)."""
    from simcore.contract.tables import load_tables
    from strategies.registry import players_of

    players = players_of(players)
    hands = np.ascontiguousarray(hands, np.int64)
    m = len(hands)
    out = {k: np.zeros((m, 4), np.int64) for k in ("discards", "dealt_in", "net")}
    if m == 0:
        return out
    threads = threads or nb.config.NUMBA_NUM_THREADS
    nb.set_num_threads(threads)
    parts = max(1, min(threads, m))
    options = options or E.RunOptions()
    proto = E.new_state(rules.to_array(), options.to_array(), seed, 0, _WIN_CAP, _PAY_CAP, None, LOG_CAP, False)
    states = np.tile(proto, (parts, 1))
    events = np.zeros(m, np.int64)
    if SIG_REPLAY.args not in _replay_kernel.overloads:   # compiled when a ladder first needs it
        E.traced()
        _replay_kernel.compile(SIG_REPLAY)
        _replay_kernel.disable_compile()
    _replay_kernel(load_tables(), players.fns, players.setup, players.rfns, players.arena, states, hands, out["discards"], out["dealt_in"],
                   out["net"], events)
    if events.max() > LOG_CAP:
        raise RuntimeError(f"hand {int(hands[int(events.argmax())])} logged {int(events.max())} events, "
                           f"more than the replay's {LOG_CAP}")
    return out


def play_table(rules, plan: TablePlan, walls: int, seed: int, threads: int | None = None, options=None) -> Table:
    """Play one table's walls with ``run_batch`` (``options``: its draw order, luck measured with
    the value model's weights) and count its stat seats' discards exactly."""
    from simcore.runs.batch import run_batch
    from strategies.registry import seat_functions

    threads = threads or nb.config.NUMBA_NUM_THREADS
    players = seat_functions(list(plan.seats), rules)
    names = [s.canonical for s in plan.seats]
    res = run_batch(rules, players, seed, 0, walls, threads=threads, seat_names=names, options=options)
    return table_from(rules, plan, res, seed, threads, options)


def table_from(rules, plan: TablePlan, res, seed: int, threads: int | None, options) -> Table:
    """A table's kept arrays from its ``BatchResult``, discards counted exactly (hands the counts
    cannot give are replayed with the log on)."""
    from strategies.registry import seat_functions

    t, replay = table_of(res, rules, plan.stat_seats)
    del res   # the next batch of this thread reuses its arrays
    if len(replay):
        got = replay_counts(rules, seat_functions(list(plan.seats)), seed, replay, threads, options)
        if not np.array_equal(got["net"], t.nets[replay]):
            raise RuntimeError("a hand replayed with the log on gave other nets than the batch (engine bug)")
        t.discards[replay] = got["discards"]
        if not np.array_equal(got["dealt_in"], t.dealt_in[replay]):
            raise RuntimeError("deal-ins from the log differ from those of the win rows")
        t.replayed = len(replay)
    return t


def play_shadowed_cell(rules, field: TablePlan, rotations: list, walls: int, seed: int, threads: int | None,
                       options) -> tuple[Table, list[Table], int]:
    """A uniform field's table and a play's four rotation tables (``rotations``: the play at seat
    r), played together where the play answers as the field would (``batch.run_shadowed``: the
    same results, hand for hand, as playing each table); also the walls on which any rotation
    differed."""
    from simcore.runs.batch import run_shadowed

    threads = threads or nb.config.NUMBA_NUM_THREADS
    play = rotations[0].seats[0]
    res_f, res_r, differed = run_shadowed(rules, field.seats[0], play, seed, 0, walls, threads=threads,
                                          options=options)
    tables = [table_from(rules, plan, res, seed, threads, options) for plan, res in zip(rotations, res_r)]
    return table_from(rules, field, res_f, seed, threads, options), tables, int(differed.any(axis=1).sum())


# -- the ladder ---------------------------------------------------------------------------------


def _ci(x) -> dict:
    m, lo, hi = mean_ci(x)
    return {"mean": _f(m), "low": _f(lo), "high": _f(hi)}


def _f(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


def _factor(plain: np.ndarray, luck: np.ndarray) -> float | None:
    """var(plain) / var(luck) of per-wall scores (None for a play equal to the field: both zero)."""
    v = luck.var()
    return _f(plain.var() / v) if v > 0 else None


def _stats_dict(c: dict) -> dict:
    """Rates from a cell's counts."""
    def ratio(a, b):
        return _f(a / b) if b else None

    return {**{k: int(c[k]) for k in STATS}, "wins_per_hand": ratio(c["wins"], c["seat_hands"]),
            "self_draw_share": ratio(c["self_drawn"], c["wins"]), "mean_base": ratio(c["base_sum"], c["wins"]),
            "deal_in_rate": ratio(c["dealt_in"], c["discards"]),
            "exhausted_share": ratio(c["exhausted"], c["seat_hands"])}


def run_preset(config: Config, preset_name: str, tables: list[TablePlan], log=None, counter=None) -> dict:
    """One preset's scores, paired differences and per-play statistics."""
    from simcore.contract.rules import preset

    from simcore.runs.batch import can_shadow
    from simcore.runs.value_model import shipped

    rules = preset(preset_name)
    walls = config.walls
    options = E.RunOptions(config.draw_order, shipped(rules)[0] if config.estimator == "luck" else None)
    played: dict[tuple, Table] = {}
    differed: dict[tuple, int] = {}   # (field, play): walls on which a shadowed play's rotations differed
    by_cell: dict[tuple, list] = {}
    for t in tables:
        for u in t.uses:
            by_cell.setdefault((u.field, u.play), []).append((t, u.seat))
    # play field by field, cell by cell, so progress reads as cells
    cells = [(f, p) for f in config.fields for p in config.plays]
    hands = replayed = 0
    for f, p in cells:
        t0 = time.perf_counter()
        new_hands = new_replayed = 0
        needed = ([] if f.mixed else [tuple([f.seat.canonical] * 4)]) + [t.key for t, _ in by_cell[(f.label, p.label)]]
        rotations = [t for t, _ in sorted(by_cell[(f.label, p.label)], key=lambda u: u[1])]
        if (not f.mixed and p.canonical != f.canonical and any(t.key not in played for t in rotations)
                and can_shadow(f.seat, p.seat)):
            field_plan = next(t for t in tables if t.key == needed[0])
            field_t, rot_t, differed[(f.label, p.label)] = play_shadowed_cell(
                rules, field_plan, rotations, walls, config.seed, config.threads, options)
            if needed[0] not in played:
                played[needed[0]] = field_t
                new_hands += walls
            for t, tb in zip(rotations, rot_t):
                played[t.key] = tb
                new_hands += walls
                new_replayed += tb.replayed
        for key in dict.fromkeys(needed):
            if key in played:
                continue
            plan = next(t for t in tables if t.key == key)
            played[key] = play_table(rules, plan, walls, config.seed, config.threads, options)
            new_hands += walls
            new_replayed += played[key].replayed
        hands += new_hands
        replayed += new_replayed
        if counter is not None:
            counter["cell"] += 1
            counter["hands"] += new_hands
            counter["replayed"] += new_replayed
        if log:
            dt = time.perf_counter() - t0
            k, n = (counter["cell"], counter["cells"]) if counter else (0, 0)
            what = (f"{new_hands:,} hands in {dt:.1f} s ({new_hands / dt:,.0f} hands/s"
                    f"{f', {new_replayed:,} replayed to count discards' if new_replayed else ''})"
                    if new_hands else "no new table (the field's own)")
            log(f"ladder: cell {k} of {n}: {preset_name}, field {f.label}, play {p.label}: {what}")
    luck = config.estimator == "luck"

    def per_wall(f, p, corrected: bool) -> np.ndarray:
        """The play's per-wall score in the field, of net - luck when ``corrected``."""
        if not f.mixed and p.canonical == f.canonical:
            return np.zeros(walls)

        def of(t):
            return t.nets - t.luck if corrected else t.nets

        base = None if f.mixed else of(played[tuple([f.seat.canonical] * 4)])
        return np.sum([of(played[t.key])[:, r] - (0 if base is None else base[:, r])
                       for t, r in by_cell[(f.label, p.label)]], axis=0) / 4.0

    scores, plain, stats = {}, {}, {}
    for f in config.fields:
        scores[f.label] = {}
        plain[f.label] = {}
        stats[f.label] = {}
        for p in config.plays:
            uses = by_cell[(f.label, p.label)]
            plain[f.label][p.label] = per_wall(f, p, False)
            scores[f.label][p.label] = per_wall(f, p, True) if luck else plain[f.label][p.label]
            c = dict.fromkeys(STATS, 0)
            for t, r in uses:
                tb = played[t.key]
                c["seat_hands"] += walls
                c["wins"] += int(tb.wins[:, r].sum())
                c["self_drawn"] += int(tb.self_drawn[:, r].sum())
                c["base_sum"] += int(tb.base_sum[:, r].sum())
                c["discards"] += int(tb.discards[:, r].sum())
                c["dealt_in"] += int(tb.dealt_in[:, r].sum())
                c["exhausted"] += int(tb.exhausted.sum())
            stats[f.label][p.label] = c
    out = {"scores": {}, "diffs": {}, "stats": {"by_field": {}, "pooled": {}}, "tables": len(played),
           "hands": hands, "replayed": replayed}
    for f in config.fields:
        out["scores"][f.label] = {p.label: {**_ci(scores[f.label][p.label]),
                                            "field": (not f.mixed and p.canonical == f.canonical),
                                            "walls_differed": 0 if not f.mixed and p.canonical == f.canonical
                                            else differed.get((f.label, p.label)),
                                            **({"plain": _ci(plain[f.label][p.label]),
                                                "variance_factor": _factor(plain[f.label][p.label],
                                                                           scores[f.label][p.label])} if luck else {})}
                                  for p in config.plays}
        out["diffs"][f.label] = {a.label: {b.label: _ci(scores[f.label][a.label] - scores[f.label][b.label])
                                           for b in config.plays if b.label != a.label} for a in config.plays}
        out["stats"]["by_field"][f.label] = {p.label: _stats_dict(stats[f.label][p.label]) for p in config.plays}
    for p in config.plays:
        c = dict.fromkeys(STATS, 0)
        for f in config.fields:
            for k in STATS:
                c[k] += stats[f.label][p.label][k]
        out["stats"]["pooled"][p.label] = _stats_dict(c)
    out["_scores"] = scores   # per-wall scores (arrays), dropped from the JSON
    return out


def command_of(config: Config) -> str:
    """The ``sichuan ladder`` command that plays this configuration."""
    import shlex

    args = ["--plays", ",".join(p.label for p in config.plays), "--fields", ",".join(f.label for f in config.fields),
            "--presets", ",".join(config.presets), "--walls", str(config.walls), "--seed", str(config.seed)]
    if config.draw_order != "seat":
        args += ["--draw-order", config.draw_order]
    if config.estimator != "luck":
        args += ["--estimator", config.estimator]
    return shlex.join(["sichuan", "ladder", *args])


def run_ladder(config: Config, log=None) -> dict:
    """The whole ladder as a JSON-ready dict (``per_wall`` kept aside: ``result["_scores"]``
    holds each preset's per-wall score arrays, for tests and notebooks)."""
    from simcore.runs.warmup import warm

    t0 = time.perf_counter()
    tables = plan_tables(config)
    warm([",".join(t.key) for t in tables], quiet=log is None)
    counter = {"cell": 0, "cells": len(config.presets) * len(config.fields) * len(config.plays), "hands": 0,
               "replayed": 0}
    if log:
        log(f"ladder: {len(config.plays)} plays x {len(config.fields)} fields x {len(config.presets)} presets, "
            f"{len(tables)} tables a preset x {config.walls:,} walls, seed {config.seed}")
    results, per_wall = {}, {}
    for name in config.presets:
        r = run_preset(config, name, tables, log, counter)
        per_wall[name] = r.pop("_scores")
        results[name] = r
    seconds = time.perf_counter() - t0
    out = {
        "kind": "ladder", "command": command_of(config), "seed": config.seed, "walls": config.walls,
        "draw_order": config.draw_order, "estimator": config.estimator,
        "plays": [p.label for p in config.plays], "fields": [f.label for f in config.fields],
        "presets": list(config.presets), "focus": list(config.focus),
        "canonical": {**{p.label: p.canonical for p in config.plays}, **{f.label: f.canonical for f in config.fields}},
        "mixed_seats": list(MIXED_SEATS),
        "tables": sum(r["tables"] for r in results.values()), "hands": counter["hands"],
        "replayed": counter["replayed"], "seconds": round(seconds, 1),
        "hands_per_second": round(counter["hands"] / seconds) if seconds > 0 else None,
        "results": results, "definitions": DEFINITIONS,
    }
    out["_scores"] = per_wall
    if log:
        log(f"ladder: {out['tables']:,} tables, {out['hands']:,} hands in {seconds:.0f} s "
            f"({out['hands_per_second'] or 0:,} hands/s; {out['replayed']:,} replayed to count discards)")
    return out


# -- reports -----------------------------------------------------------------------------------


def _num(x, digits=3, sign=True) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def cell_text(c: dict) -> str:
    """``+0.123 [+0.100, +0.146]``; a play equal to its field: ``0 (field)``."""
    if c.get("field"):
        return "0 (field)"
    if c["low"] is None:
        return _num(c["mean"])
    return f"{_num(c['mean'])} [{_num(c['low'])}, {_num(c['high'])}]"


def _pct(x, digits=1) -> str:
    return "n/a" if x is None else f"{x * 100:.{digits}f}%"


def _grid(title_col: str, cols: list[str], rows: list[tuple[str, list[str]]], markdown: bool) -> list[str]:
    if markdown:
        lines = ["| " + " | ".join([title_col] + cols) + " |", "|" + "---|" * (len(cols) + 1)]
        lines += ["| " + " | ".join([name] + cells) + " |" for name, cells in rows]
        return lines
    w0 = max([len(title_col)] + [len(n) for n, _ in rows])
    ws = [max([len(c)] + [len(cells[i]) for _, cells in rows]) for i, c in enumerate(cols)]
    lines = ["  ".join([title_col.ljust(w0)] + [c.ljust(w) for c, w in zip(cols, ws)]).rstrip()]
    lines += ["  ".join([n.ljust(w0)] + [x.ljust(w) for x, w in zip(cells, ws)]).rstrip() for n, cells in rows]
    return lines


STAT_COLS = ("seat-hands", "wins/hand", "self-drawn", "mean base", "deal-in", "exhausted")


def _stat_cells(s: dict) -> list[str]:
    return [f"{s['seat_hands']:,}", _num(s["wins_per_hand"], 3, False), _pct(s["self_draw_share"]),
            _num(s["mean_base"], 2, False), _pct(s["deal_in_rate"], 2), _pct(s["exhausted_share"])]


def _sections(rep: dict, markdown: bool) -> list[str]:
    h2, h3 = ("## ", "### ") if markdown else ("", "")
    fields = rep["fields"]
    mixed = ", ".join(rep["mixed_seats"])
    lines = []
    lines += [f"{h2}Scores: each play 1 vs 3 against each field (rows: plays, columns: fields)", "",
              ("Luck-corrected (each net less the seat's luck). " if rep.get("estimator") == "luck" else "")
              + "Net per hand over the field's own net at the same seat on the same wall (a uniform field), or "
              f"the mean net per hand (mixed: {mixed} after the play in turn order); 95% intervals over "
              f"{rep['walls']:,} walls. A play equal to its field scores exactly 0.", ""]
    for preset in rep["presets"]:
        sc = rep["results"][preset]["scores"]
        rows = [(p, [cell_text(sc[f][p]) for f in fields]) for p in rep["plays"]]
        lines += [f"{h3}{preset}", ""] if markdown else [f"{preset}:"]
        lines += _grid("play", fields, rows, markdown) + [""]
    for focus in rep["focus"]:
        others = [p for p in rep["plays"] if p != focus]
        if not others:
            continue
        lines += [f"{h2}{focus} minus each other play, paired on the walls (rows: the other play, columns: fields)",
                  ""]
        for preset in rep["presets"]:
            d = rep["results"][preset]["diffs"]
            rows = [(f"− {b}" if markdown else f"- {b}", [cell_text(d[f][focus][b]) for f in fields]) for b in others]
            lines += [f"{h3}{preset}", ""] if markdown else [f"{preset}: {focus} minus"]
            lines += _grid(focus, fields, rows, markdown) + [""]
    lines += [f"{h2}Per play, pooled over the fields it played", "",
              "Seat-hands: 4 a wall per field; wins per hand (every win), self-drawn share of its wins, mean base of "
              "its wins, deal-in rate (its discards won on / its discards), share of its hands ending with the wall "
              "exhausted.", ""]
    for preset in rep["presets"]:
        st = rep["results"][preset]["stats"]["pooled"]
        rows = [(p, _stat_cells(st[p])) for p in rep["plays"]]
        lines += [f"{h3}{preset}", ""] if markdown else [f"{preset}:"]
        lines += _grid("play", list(STAT_COLS), rows, markdown) + [""]
    return lines


def _header(rep: dict) -> str:
    return (f"{len(rep['plays'])} plays x {len(rep['fields'])} fields x {len(rep['presets'])} presets, "
            f"{rep['walls']:,} walls a cell, seed {rep['seed']}, {rep.get('draw_order', 'table')} draw order: "
            f"{rep['tables']:,} tables, {rep['hands']:,} hands "
            f"in {rep['seconds']:,.0f} s ({rep['replayed']:,} replayed with the log to count discards)")


def format_text(rep: dict) -> str:
    lines = [f"The strategy ladder: {_header(rep)}.", ""] + _sections(rep, markdown=False)
    lines += ["Definitions:"] + [f"  - {d}" for d in rep["definitions"]]
    return "\n".join(lines).rstrip() + "\n"


def format_markdown(rep: dict) -> str:
    lines = ["# The strategy ladder", "", f"{_header(rep)}.", "", f"`{rep['command']}`"]
    lines += [""] + _sections(rep, markdown=True) + ["## Definitions", ""] + [f"- {d}" for d in rep["definitions"]]
    return "\n".join(lines).rstrip() + "\n"


def dumps(rep: dict) -> str:
    import json

    return json.dumps({k: v for k, v in rep.items() if not k.startswith("_")}, indent=1, ensure_ascii=False)


def log_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


__all__ = ["Config", "LadderError", "make_config", "run_ladder", "plan_tables", "play_table", "replay_counts",
           "format_text", "format_markdown", "dumps", "DEFAULT_PLAYS", "DEFAULT_FIELDS", "DEFAULT_PRESETS"]
