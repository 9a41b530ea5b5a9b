"""Steered hands: a fixed wall and scripted opponents that put one rare situation to one seat.

``sichuan strategies --check`` must put every situation a strategy answers to it at least a
given number of times (``records.SITUATIONS``). Real play reaches most of them quickly, but a
robbable kong or a claim offering a win, a pung and a kong can take hundreds of thousands of
hands, and a weak strategy may never get ready at all. So the check also plays *steered*
hands (``steered``): the checked seat is dealt a random hand with the property the situation
needs (ready with a given wait, a pair or three of a tile), exchange is off, every void is
scripted to a suit its seat does not hold, and the other seats are scripted or ``passive``, so
the first question the checked seat meets is the situation. The engine then judges every
answer, as in real play; the rest of the hand plays out.

Each builder returns a ``Scenario`` (checked seat: the seat after the dealer) or None when its
random draw cannot meet the constraints (the caller draws again).
"""

from __future__ import annotations

import numpy as np

from simcore.inspection import hand as H
from simcore.contract.rules import PRESETS, preset
from simcore.inspection.scenario import Scenario
from simcore.contract.tiles import N_KINDS, N_RANKS, tile_index, tile_text

SUITS = "mps"


def _text(tiles) -> str:
    return " ".join(tile_text(int(t)) for t in tiles)


def _random_hand(rng, have: list[int], n: int, suits, avoid=()) -> np.ndarray | None:
    """Counts of ``have`` plus random tiles of ``suits`` (not of ``avoid``) to n tiles, at most
    four of a kind; the tiles are not taken from any deal."""
    c = np.bincount(np.asarray(have, np.int64), minlength=N_KINDS) if have else np.zeros(N_KINDS, np.int64)
    pool = [t for t in range(N_KINDS) if t // N_RANKS in suits and t not in avoid for _ in range(4 - int(c[t]))]
    if len(pool) < n - len(have):
        return None
    for i in rng.choice(len(pool), n - len(have), replace=False):
        c[pool[i]] += 1
    return c


def _complete(rng, suits) -> np.ndarray | None:
    """A random complete 14-tile hand (four sets and a pair) of the two ``suits``."""
    c = np.zeros(N_KINDS, np.int64)
    for _ in range(4):
        s = suits[rng.integers(2)]
        if rng.random() < 0.3:
            c[s * N_RANKS + rng.integers(N_RANKS)] += 3
        else:
            r = rng.integers(7)
            c[s * N_RANKS + r:s * N_RANKS + r + 3] += 1
    c[suits[rng.integers(2)] * N_RANKS + rng.integers(N_RANKS)] += 2
    return c if c.max() <= 4 else None


def _waits(c, suits) -> list[int]:
    return [tile_index(w) for w in H.waits(c, SUITS[3 - sum(suits)])]


def _ready(rng, suits):
    """(a random 13-tile ready hand of two suits, its waits), or None."""
    c = _complete(rng, suits)
    if c is None:
        return None
    held = np.flatnonzero(c)
    c[held[rng.integers(len(held))]] -= 1
    waits = _waits(c, suits)
    return (c, waits) if waits else None


def _tiles(c) -> list[int]:
    return [t for t in range(N_KINDS) for _ in range(int(c[t]))]


def _two_suits(rng, have=()) -> tuple[int, ...] | None:
    """Two random suits holding every tile of ``have`` (None if it spans three)."""
    need = {t // N_RANKS for t in have}
    options = [s for s in ((0, 1), (0, 2), (1, 2)) if need <= set(s)]
    return options[rng.integers(len(options))] if options else None


class _Table:
    """A scenario being built: the dealer, the checked seat (the seat after it), the tiles still
    free, the hands dealt, voids and scripts."""

    def __init__(self, rng, rules: str):
        self.rng = rng
        self.rules = rules
        self.dealer = int(rng.integers(4))
        self.me = (self.dealer + 1) % 4
        self.left = np.full(N_KINDS, 4, np.int64)
        self.hands: dict[int, list[int]] = {}
        self.voids = ["m"] * 4
        self.scripts: dict[int, list[str]] = {}

    def seat(self, k: int) -> int:
        """The k-th seat after the dealer."""
        return (self.dealer + k) % 4

    def take(self, tiles) -> bool:
        for t in tiles:
            if self.left[t] == 0:
                return False
            self.left[t] -= 1
        return True

    def give(self, seat: int, tiles: list[int], void: int) -> bool:
        if not self.take(tiles):
            return False
        self.hands[seat] = sorted(tiles)
        self.voids[seat] = SUITS[void]
        return True

    def give_rest(self, seat: int, have: list[int], avoid=()) -> bool:
        """Deal ``seat`` ``have`` plus free random tiles of two suits (it voids the third)."""
        suits = _two_suits(self.rng, have)
        if suits is None or not self.take(have):
            return False
        pool = [t for t in range(N_KINDS) if t // N_RANKS in suits and t not in avoid for _ in range(int(self.left[t]))]
        need = (14 if seat == self.dealer else 13) - len(have)
        if len(pool) < need:
            return False
        picked = [pool[i] for i in self.rng.choice(len(pool), need, replace=False)]
        self.take(picked)
        self.hands[seat] = sorted(list(have) + picked)
        self.voids[seat] = SUITS[3 - sum(suits)]
        return True

    def harmless(self, c, waits, n: int, avoid=()) -> list[int] | None:
        """n free tiles the checked seat (holding ``c``, waiting on ``waits``) can neither win on
        nor claim, taken."""
        out = []
        for _ in range(n):
            ok = [t for t in range(N_KINDS) if t not in waits and c[t] < 2 and t not in avoid and self.left[t] > 0]
            if not ok:
                return None
            out.append(ok[self.rng.integers(len(ok))])
            self.take(out[-1:])
        return out

    def scenario(self, draws: list[int]) -> Scenario:
        return Scenario(self.rules, dealer=self.dealer, hands={s: _text(h) for s, h in self.hands.items()},
                        draws=_text(draws), voids="".join(self.voids), scripts=self.scripts,
                        sets={"exchange": False})


def _claim(rng, rules: str, win: bool, held: int) -> Scenario | None:
    """The dealer's first discard t offers the checked seat a claim: a win when ``win``, and a
    pung (``held`` 2) or a pung and a kong (``held`` 3) when it holds that many t."""
    tb = _Table(rng, rules)
    suits = _two_suits(rng)
    if win:
        got = _ready(rng, suits)
        if got is None:
            return None
        c, waits = got
        ts = [t for t in waits if c[t] == held or (held == 1 and c[t] == 0)]
    else:
        t0 = suits[rng.integers(2)] * N_RANKS + int(rng.integers(N_RANKS))
        c = _random_hand(rng, [t0] * held, 13, suits, avoid=(t0,))
        if c is None:
            return None
        ts = [t0] if t0 not in _waits(c, suits) else []
    if not ts or c.max() > 3:
        return None
    t = ts[rng.integers(len(ts))]
    if not tb.give(tb.me, _tiles(c), 3 - sum(suits)):
        return None
    tb.scripts[tb.dealer] = [f"discard {tile_text(t)}"]
    if not tb.give_rest(tb.dealer, [t], avoid=(t,)):
        return None
    for k in (2, 3):
        if not tb.give_rest(tb.seat(k), [], avoid=(t,)):
            return None
    return tb.scenario([])


def _own_turn(rng, rules: str, kind: str) -> Scenario | None:
    """The checked seat's first draw offers it a self-drawn win (``win``) or a concealed kong
    (``kong``); or, in blood flow, it wins on the dealer's first discard (scripted) and its next
    draw offers the locked seat a second win (``locked``)."""
    tb = _Table(rng, rules)
    suits = _two_suits(rng)
    if kind == "kong":
        u = suits[rng.integers(2)] * N_RANKS + int(rng.integers(N_RANKS))
        c = _random_hand(rng, [u] * 3, 13, suits, avoid=(u,))
        if c is None:
            return None
        waits = _waits(c, suits)
        wins = [u]
    else:
        got = _ready(rng, suits)
        if got is None:
            return None
        c, waits = got
        wins = waits
    if c.max() > 3 or not tb.give(tb.me, _tiles(c), 3 - sum(suits)):
        return None
    if kind == "locked":
        # the dealer discards a wait, which the checked seat's script wins on; the three seats
        # before the checked seat's next draw each draw and discard a tile it cannot claim
        first = [t for t in wins if tb.left[t] > 0]
        if not first:
            return None
        first = first[rng.integers(len(first))]
        tb.scripts[tb.me] = [f"ron {tile_text(first)}"]
    else:
        first = tb.harmless(c, waits, 1)
        if first is None:
            return None
        first = first[0]
        tb.left[first] += 1   # dealt to the dealer below
    mine = [t for t in wins if tb.left[t] > (t == first)]
    if not mine:
        return None
    draw = mine[rng.integers(len(mine))]
    tb.take([draw])
    between = tb.harmless(c, waits, 3) if kind == "locked" else []
    if between is None:
        return None
    tb.scripts[tb.dealer] = [f"discard {tile_text(first)}"]
    if not tb.give_rest(tb.dealer, [first], avoid=tuple(waits)):
        return None
    for k in (2, 3):
        if not tb.give_rest(tb.seat(k), [], avoid=tuple(waits)):
            return None
    return tb.scenario(between + [draw])


def _rob(rng, rules: str) -> Scenario | None:
    """A robbable kong: the dealer discards t and the seat after the checked seat pungs it; the
    checked seat, which cannot win on t while it still holds one void tile, draws the tile that
    makes it ready on t (the two seats before it discard what they draw) and throws the void
    tile; the punger draws the last t and adds it to its pung."""
    tb = _Table(rng, rules)
    suits = _two_suits(rng)
    got = _ready(rng, suits)
    if got is None:
        return None
    c, waits = got
    ts = [t for t in waits if c[t] == 0]
    if not ts or c.max() > 3:
        return None
    t = ts[rng.integers(len(ts))]
    d_me = int(np.flatnonzero(c)[rng.integers(np.count_nonzero(c))])
    void = 3 - sum(suits)
    held = c.copy()
    held[d_me] -= 1
    if not tb.give(tb.me, _tiles(held) + [void * N_RANKS + int(rng.integers(N_RANKS))], void):
        return None
    punger = tb.seat(2)
    if not (tb.take([d_me, t]) and tb.give_rest(punger, [t, t], avoid=(t,))
            and tb.give_rest(tb.dealer, [t], avoid=(t,)) and tb.give_rest(tb.seat(3), [], avoid=(t,))):
        return None
    safe = [x for x in tb.hands[punger] if x != t and held[x] < 2]
    between = tb.harmless(held, (), 2, avoid=(t,))
    if not safe or between is None:
        return None
    w = safe[rng.integers(len(safe))]
    tb.scripts[tb.dealer] = [f"discard {tile_text(t)}"]
    tb.scripts[punger] = [f"pung {tile_text(t)}", f"discard {tile_text(w)}", f"kong {tile_text(t)}"]
    return tb.scenario(between + [d_me, t])


def builder(situation: str):
    """The function that builds a steered hand for a situation (rng, rules) -> Scenario | None,
    and the presets it applies to; None for situations real play reaches quickly."""
    claims = {"claim_pung": (False, 2), "claim_pung_kong": (False, 3), "claim_win": (True, 1),
              "claim_win_pung": (True, 2), "claim_win_pung_kong": (True, 3)}
    if situation in claims:
        win, held = claims[situation]
        return (lambda rng, rules: _claim(rng, rules, win, held)), PRESETS
    if situation in ("turn_win", "turn_kong"):
        kind = situation.split("_")[1]
        return (lambda rng, rules: _own_turn(rng, rules, kind)), PRESETS
    if situation == "locked_turn":
        return (lambda rng, rules: _own_turn(rng, rules, "locked")), tuple(p for p in PRESETS if preset(p).variant == "flow")
    if situation == "rob":
        return _rob, PRESETS
    return None


def steered(situation: str, rng: np.random.Generator, attempts: int = 200):
    """A steered hand for ``situation`` (drawn again until one meets its constraints; presets in
    turn), or None."""
    got = builder(situation)
    if got is None:
        return None
    build, presets = got
    for _ in range(attempts):
        sc = build(rng, presets[int(rng.integers(len(presets)))])
        if sc is not None:
            return sc
    return None


def play_steered(sc: Scenario, players, seed: int, g: int):
    """Play a steered hand with ``players``' strategies at the checked seat (the seat after the
    dealer) and ``passive`` at the others (their scripts aside), in check mode; returns (the
    checked seat, the hand row, the seat rows)."""
    from simcore.inspection.scenario import passive
    from simcore.inspection.trace import run_traced

    me = (sc.dealer + 1) % 4
    fns = tuple(f if i % 4 == me or i >= 4 else passive for i, f in enumerate(players.fns))
    _, _, hand, seats, _, _ = run_traced(sc.ruleset(), type(players)(fns, players.setup, players.rfns, players.arena), seed, g, sc.dealer,
                                         fixed_wall=sc.wall(), script=sc.script(), check=True)
    return me, hand[0], seats[0]
