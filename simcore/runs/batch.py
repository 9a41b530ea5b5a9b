"""Python side of the batch kernel: validate, allocate outputs, run, raise clear errors.

The kernel writes wins and payments into fixed-capacity slots per hand; a hand that needs
more (a long blood-flow hand) is detected and replayed alone with enough room, so no result is
ever truncated.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

import numba as nb
import numpy as np

from simcore.contract.arena import AR_HEADER, AR_LEN
from simcore import engine as E
from simcore.contract import records as rec
from simcore.contract.rules import RuleSet
from simcore.contract.tables import load_tables
from simcore.contract.tiles import N_KINDS, tile_text
from simcore.contract.view import N_SCRATCH, QUESTION_NAMES, V_SCRATCH, slot_name

ONE = np.int64(1)
# Result slots per hand. Battle: above the most seen in 100,000 hands of greedy, efficient and
# random play (3 wins, 27 payments), as a replay costs a batch its reused arrays' advantage;
# flow: above the 99.9th percentile (about 21 wins and 35 payments; the most, 28 and 46, would
# double a chunk's memory). The rare hand that needs more is replayed alone with wider slots.
WIN_CAP = {"battle": 4, "flow": 24}
PAY_CAP = {"battle": 32, "flow": 48}


class EngineError(RuntimeError):
    """The engine stopped a hand: one line that says which, and how to reproduce it."""


class StrategyAnswerError(EngineError):
    """A strategy answered illegally; the message names who, where and how to reproduce it."""


class InvariantError(EngineError):
    """The engine broke one of its own invariants (a bug): reported with the hand to replay."""


def hand_error(hand_row, g: int, seat_names, trace_hint: str) -> EngineError:
    """The error for a hand the engine stopped (``describe_error``): a strategy's answer, or an invariant."""
    kind = StrategyAnswerError if int(hand_row[rec.H_ERROR]) in (rec.ERR_ILLEGAL, rec.ERR_VIEW_WRITE) else InvariantError
    return kind(describe_error(hand_row, g, seat_names, trace_hint))


@dataclass
class BatchResult:
    """Raw per-hand outputs of one batch. Row i is global hand ``hands[i]``."""

    hands: np.ndarray      # (n,) global hand index
    hand: np.ndarray       # (n, N_HAND_FIELDS)
    seat: np.ndarray       # (n, 4, N_SEAT_FIELDS)
    win: np.ndarray        # (n, win_cap, N_WIN_FIELDS); slots from hand[:, H_N_WINS] on are unspecified
    pay: np.ndarray        # (n, pay_cap, N_PAY_FIELDS); slots from hand[:, H_N_PAYMENTS] on are unspecified
    match_mode: bool
    hands_per_match: int
    luck_measured: bool = False   # the hands measured each seat's luck (``run_batch``'s value_weights)

    @property
    def n(self) -> int:
        return len(self.hands)

    @property
    def luck(self) -> np.ndarray:
        """(n, 4) each seat's luck (0 where the hands did not measure it): the engine's float64
        bits, from the two int32 halves of the seats' rows."""
        lo = self.seat[:, :, rec.S_LUCK_LO].astype(np.uint32).astype(np.uint64)
        hi = self.seat[:, :, rec.S_LUCK_HI].astype(np.uint32).astype(np.uint64)
        return ((hi << np.uint64(32)) | lo).view(np.float64)


def _alloc(rows: int, win_cap: int, pay_cap: int):
    return (np.zeros((rows, rec.N_HAND_FIELDS), np.int32),
            np.zeros((rows, 4, rec.N_SEAT_FIELDS), np.int32),
            np.zeros((rows, win_cap, rec.N_WIN_FIELDS), np.int32),
            np.zeros((rows, pay_cap, rec.N_PAY_FIELDS), np.int32))


_REUSE = threading.local()


def _outputs(rows: int, win_cap: int, pay_cap: int, match_mode: bool):
    """Output arrays for a batch: an earlier batch's of this thread when they have the same shape
    and nothing refers to them any more (the caller dropped that result), else new ones. Two
    sets are kept, so a runner that writes one chunk while the next one plays reuses them in
    turn. New arrays cost the kernel a page fault on every 4 KB it first writes, about 8% of a
    greedy batch of 100,000 hands. The kernel writes every field of a played hand's hand and
    seat rows, so reused ones are zeroed only in match mode (an error can leave the rest of a
    match unplayed); win and payment slots never are: only the slots below a hand's counts are
    results, and the kernel writes those whole."""
    key = (rows, win_cap, pay_cap)
    kept = getattr(_REUSE, "sets", [])
    for entry in kept:
        # referenced only by ``entry``, the loop variable and getrefcount's argument
        if entry[0] == key and all(sys.getrefcount(a) <= 3 for a in entry[1]):
            arrays = entry[1]
            if match_mode:
                arrays[0].fill(0)
                arrays[1].fill(0)
            return arrays
    _REUSE.sets = kept = [e for e in kept if e[0] == key][-1:]  # let the others go before new ones are made
    arrays = _alloc(rows, win_cap, pay_cap)
    kept.append((key, arrays))
    return arrays


def _widen(a: np.ndarray, cap: int) -> np.ndarray:
    """``a`` with its slot axis (1) grown to ``cap``; the new slots are zero."""
    if a.shape[1] >= cap:
        return a
    out = np.zeros((a.shape[0], cap, a.shape[2]), a.dtype)
    out[:, :a.shape[1]] = a
    return out


def _replay_outgrown(sets: list, item_of: list, caps: tuple[int, int], replay) -> list:
    """The one policy for hands that outgrew their win or payment slots (a few long blood-flow
    hands; their counts are still right): the slot arrays of every output set ``(hand, seat, win,
    pay)`` are widened to the largest count seen, and only the items holding such a hand are played
    again alone (a hand depends only on seed and index: the same hand), not the whole batch.
    ``item_of[k]`` maps set k's rows to items; ``replay(item, caps)`` plays one item with those
    caps and returns (set, rows, arrays) to copy in."""
    win_cap, pay_cap = caps
    need = (max(int(h[:, rec.H_N_WINS].max(initial=0)) for h, *_ in sets),
            max(int(h[:, rec.H_N_PAYMENTS].max(initial=0)) for h, *_ in sets))
    if need[0] <= win_cap and need[1] <= pay_cap:
        return sets
    items = set()
    for (h, *_), rows_to_items in zip(sets, item_of):
        items.update(int(i) for i in rows_to_items(np.flatnonzero((h[:, rec.H_N_WINS] > win_cap) |
                                                                  (h[:, rec.H_N_PAYMENTS] > pay_cap))))
    caps = (max(win_cap, need[0]), max(pay_cap, need[1]))
    sets = [(h, s, _widen(w, caps[0]), _widen(p, caps[1])) for h, s, w, p in sets]
    for item in sorted(items):
        for k, rows, out in replay(item, caps):
            for whole, part in zip(sets[k], out):
                whole[rows] = part
    return sets


def trace_command(rules: RuleSet, seed: int, g: int, seats=None, run_dir=None, options=None) -> str:
    """The ``sichuan trace`` command that replays hand ``g``: of ``run_dir``, or standalone with the
    rules as ``--rules``/``--set`` (whatever file they came from), the seats (user strategy files
    by absolute path, so it works from any directory) and the seed."""
    import shlex

    if run_dir is not None:
        return f"sichuan trace {shlex.quote(str(run_dir))} --hand {g}"
    from simcore.contract.rules import DEFAULT_PRESET, preset

    parts = ["sichuan trace"]
    if rules.preset != DEFAULT_PRESET:
        parts.append(f"--rules {rules.preset}")
    base = preset(rules.preset).options()
    for name, value in rules.options().items():
        if base[name] != value:
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            parts.append(f"--set {shlex.quote(f'{name}={text}')}")
    if seats is not None:
        from pathlib import Path

        from strategies.registry import map_user_paths

        seats = [_command_name(s) for s in seats]
        text = seats[0] if len(set(seats)) == 1 else ",".join(seats)
        absolute = map_user_paths(text, lambda path: str(Path(path).expanduser().resolve()))
        parts.append(f"--seats {shlex.quote(absolute)}")
    if options is not None and options.draw_order != "table":
        parts.append(f"--draw-order {options.draw_order}")
    parts.append(f"--seed {seed} --hand {g}")
    return " ".join(parts)


def _command_name(spec: str) -> str:
    """The shortest spec that parses to ``spec``, for a command line (user files by their path)."""
    from strategies.names import short_name

    try:
        return short_name(spec, full_paths=True)
    except (ValueError, KeyError):
        return spec


def describe_error(hand_row, g: int, seat_names, trace_hint: str) -> str:
    kind = int(hand_row[rec.H_ERROR])
    seat = int(hand_row[rec.H_ERR_SEAT])
    q = int(hand_row[rec.H_ERR_QUESTION])
    ans = int(hand_row[rec.H_ERR_ANSWER])
    if kind == rec.ERR_ILLEGAL:
        qn = QUESTION_NAMES[q] if 0 <= q < len(QUESTION_NAMES) else str(q)
        who = _command_name(seat_names[seat]) if 0 <= seat < 4 else "?"
        return (f"strategy {who!r} at seat {seat} gave an illegal answer {_answer_text(q, ans)} to the "
                f"{qn} question in hand {g}; reproduce with: {trace_hint}")
    if kind == rec.ERR_VIEW_WRITE:
        qn = QUESTION_NAMES[q] if 0 <= q < len(QUESTION_NAMES) else str(q)
        who = _command_name(seat_names[seat]) if 0 <= seat < 4 else "?"
        return (f"strategy {who!r} at seat {seat} wrote to view slot {ans} ({slot_name(ans)}) while answering "
                f"the {qn} question in hand {g}; a strategy may write only its scratch slots "
                f"{V_SCRATCH}-{V_SCRATCH + N_SCRATCH - 1}; reproduce with: {trace_hint}")
    what = rec.INVARIANTS.get(ans, f"invariant {ans}")
    return f"engine invariant broken in hand {g} ({what}, seat {seat}); reproduce with: {trace_hint}"


def _answer_text(q: int, ans: int) -> str:
    from simcore.contract.view import A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID, unpack3

    def tile(t):
        return tile_text(t) if 0 <= t < N_KINDS else f"tile #{t}"

    if q == Q_TURN:
        if ans == A_WIN:
            return "win (not possible here)"
        if A_KONG <= ans < A_KONG + N_KINDS:
            return f"kong {tile(ans - A_KONG)} (not allowed here)"
        return f"discard {tile(ans)} ({ans})"
    if q in (Q_CLAIM, Q_ROB):
        names = {C_PASS: "pass", C_WIN: "win", C_PUNG: "pung", C_KONG: "kong"}
        return f"{names.get(ans, ans)} ({ans})"
    if q == Q_EXCHANGE:
        a, b, c = unpack3.py_func(ans)
        return f"pass {tile(a)} {tile(b)} {tile(c)} ({ans})"
    if q == Q_VOID:
        return f"suit {ans}"
    return str(ans)


def run_options(options, draw_order: str = "table", value_weights=None):
    """The run options a call gives: ``options`` (a ``simcore.engine.RunOptions``) or the public
    keywords, never both."""
    if options is None:
        return E.RunOptions(draw_order, value_weights)
    if draw_order != "table" or value_weights is not None:
        raise ValueError("give the run options either as options= or as draw_order= and value_weights=")
    return options


def _engine_inputs(rules: RuleSet, options, draw_order: str, value_weights, threads: int | None):
    """What a batch hands the engine besides its players: the run options (``run_options``), the
    rule and options arrays, the suit tables; ``threads`` set for numba's pool."""
    if threads:
        nb.set_num_threads(threads)
    options = run_options(options, draw_order, value_weights)
    return options, rules.to_array(), options.to_array(), load_tables()


def run_batch(rules: RuleSet, players, seed: int, first: int, n_items: int, match_mode: bool = False,
              check: bool = False, threads: int | None = None, seat_names=None, trace_hint=None,
              draw_order: str = "table", value_weights=None, options=None) -> BatchResult:
    """Play ``n_items`` hands (or matches) starting at global index ``first`` (match index in
    match mode). ``players``: ``strategies.registry.Players`` (or the bare twelve functions, each
    parameter at its default). ``draw_order``: ``table`` or ``seat`` (RULES.md: Rulings where the documents are silent, draw order).
    ``value_weights``: the value model's weights (``simcore.runs.value_model``): the hands measure
    each seat's luck (``BatchResult.luck``); None, they do not (luck 0). ``options``: the two as one
    ``simcore.engine.RunOptions`` instead (how the project's own code passes them)."""
    from strategies.registry import players_of

    players = players_of(players)
    fns, setup, rfns, arena = players.fns, players.setup, players.rfns, players.arena
    if n_items <= 0:
        raise ValueError("the number of hands must be positive")
    if seed < 0:
        raise ValueError("the seed must be a non-negative integer")
    options, R, OPT, tab = _engine_inputs(rules, options, draw_order, value_weights, threads)
    hpm = rules.hands_per_match if match_mode else 1
    rows = n_items * hpm
    win_cap = WIN_CAP[rules.variant]
    pay_cap = PAY_CAP[rules.variant]
    hand, seat, win, pay = _outputs(rows, win_cap, pay_cap, match_mode)
    kernel = E.batch_kernel()
    kernel(tab, R, OPT, fns, setup, rfns, arena, np.int64(seed), np.int64(first), np.int64(n_items), bool(match_mode),
           bool(check), hand, seat, win, pay)

    def replay(item, caps):
        out = _alloc(hpm, *caps)
        kernel(tab, R, OPT, fns, setup, rfns, arena, np.int64(seed), np.int64(first + item), ONE, bool(match_mode),
               bool(check), *out)
        return [(0, slice(item * hpm, (item + 1) * hpm), out)]

    [(hand, seat, win, pay)] = _replay_outgrown([(hand, seat, win, pay)], [lambda rows: rows // hpm],
                                                (win_cap, pay_cap), replay)
    if match_mode:
        hands = np.concatenate([np.arange(m * hpm, m * hpm + hpm) for m in range(first, first + n_items)])
    else:
        hands = np.arange(first, first + n_items, dtype=np.int64)
    if check:   # a model a strategy carries is read-only (``strategies.models``)
        from strategies.models import check_unwritten

        written = check_unwritten()
        if written:
            raise InvariantError(written)
    bad = np.flatnonzero(hand[:, rec.H_ERROR] != rec.ERR_NONE)
    if bad.size:
        i = int(bad[0])
        g = int(hands[i])
        names = seat_names or [f"seat {s}" for s in range(4)]
        if trace_hint:
            hint = trace_hint(g)
        elif match_mode:  # a match's hand needs the dealer and scores the match reached: a run directory
            hint = f"sichuan trace RUN_DIR --hand {g}, RUN_DIR a run of these matches (sichuan simulate --matches)"
        else:
            hint = trace_command(rules, seed, g, seat_names or ["SEATS"] * 4, options=options)
        raise hand_error(hand[i], g, names, hint)
    return BatchResult(hands, hand, seat, win, pay, match_mode, hpm, options.measures_luck)


def same_parts(field, arm) -> int:
    """Bit g (0 play, 1 exchange, 2 void) set where the arm's seat spec has the field's strategy
    and parameters: shadowing stops asking the arm once only such strategies are left to ask."""
    from strategies.registry import KINDS

    return sum(1 << g for g, kind in enumerate(KINDS) if field.part(kind) == arm.part(kind))


def _searches(players) -> bool:
    return bool((players.arena[AR_LEN::AR_HEADER] > 0).any())


def can_shadow(field, arm) -> bool:
    """Whether ``run_shadowed`` can play ``arm`` beside ``field`` (SeatSpecs): neither searches
    (a searching seat's arena is not shadowed)."""
    from strategies.registry import seat_functions

    return not (_searches(seat_functions([field] * 4)) or _searches(seat_functions([arm] * 4)))


def run_shadowed(rules: RuleSet, field, arm, seed: int, first: int, n_items: int, check: bool = False,
                 threads: int | None = None, draw_order: str = "table", value_weights=None,
                 options=None) -> tuple[BatchResult, list[BatchResult], np.ndarray]:
    """The field's table (``field``, a SeatSpec at every seat) and the arm's four rotations (the
    arm at seat r, the field at the others) on the same independent hands, playing each rotation
    only where the arm answers differently from the field (``simcore.engine.play_shadowed``):
    elsewhere its hand is the field's, hand for hand. Returns the field's result, the four
    rotations' results, and the (n_items, 4) array of where each rotation differed."""
    from strategies.registry import seat_functions

    if n_items <= 0:
        raise ValueError("the number of hands must be positive")
    players = seat_functions([field] * 4)
    arm_players = seat_functions([arm] * 4)
    if _searches(players) or _searches(arm_players):
        raise ValueError("a searching seat cannot be shadowed: play every table in full (--full-tables)")
    options, R, OPT, tab = _engine_inputs(rules, options, draw_order, value_weights, threads)
    win_cap, pay_cap = WIN_CAP[rules.variant], PAY_CAP[rules.variant]
    kernel = E.shadowed_kernel()
    same_bits = np.int64(same_parts(field, arm))

    def play(item, n, caps, differed_rows):
        f_out, a_out = _alloc(n, *caps), _alloc(4 * n, *caps)
        kernel(tab, R, OPT, players.fns, players.setup, players.rfns, players.arena, arm_players.fns, arm_players.setup,
               same_bits, np.int64(seed), np.int64(first + item), np.int64(n), bool(check), *f_out, *a_out,
               differed_rows)
        return f_out, a_out

    def replay(item, caps):
        f_out, a_out = play(item, 1, caps, differed[item:item + 1])
        return [(0, slice(item, item + 1), f_out)] + [
            (1, slice(r * n_items + item, r * n_items + item + 1), tuple(a[r:r + 1] for a in a_out)) for r in range(4)]

    differed = np.zeros((n_items, 4), np.bool_)   # rows of a rotation that did not differ stay zero
    field_out, arm_out = _replay_outgrown(list(play(0, n_items, (win_cap, pay_cap), differed)),
                                          [lambda rows: rows, lambda rows: rows % n_items], (win_cap, pay_cap), replay)
    hands = np.arange(first, first + n_items, dtype=np.int64)
    measured = options.measures_luck
    field_res = BatchResult(hands, *field_out, False, 1, measured)
    arms = []
    for r in range(4):
        rows = slice(r * n_items, (r + 1) * n_items)
        h, s, w, p = (a[rows] for a in arm_out)
        same = ~differed[:, r]
        h[same], s[same], w[same], p[same] = (a[same] for a in field_out)
        arms.append(BatchResult(hands, h, s, w, p, False, 1, measured))
    for k, res in enumerate([field_res] + arms):
        bad = np.flatnonzero(res.hand[:, rec.H_ERROR] != rec.ERR_NONE)
        if bad.size:
            i, g = int(bad[0]), int(hands[bad[0]])
            names = [field.canonical] * 4
            if k:
                names[k - 1] = arm.canonical
            raise hand_error(res.hand[i], g, names, trace_command(rules, seed, g, names, options=options))
    return field_res, arms, differed
