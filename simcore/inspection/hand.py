"""Hand evaluation for people, tests and notebooks (the jitted kernels live in ``evaluate``).

    >>> from simcore import hand
    >>> hand.shanten("123m456p789s1155m", "s")      # void s: the 789s must go
    3
    >>> hand.waits("1112345678999m", "p")
    ['1m', '2m', '3m', '4m', '5m', '6m', '7m', '8m', '9m']
    >>> hand.score("11223344556677m", "p").patterns
    {'seven_pairs': 2, 'full_flush': 2}

``counts`` is a count array of shape (27,) or tile text; ``void`` a suit letter (m, p, s) or
None before a void is declared; ``melds`` a list of declared sets as text (``"555m"`` a pung,
``"9999p"`` a kong) or an int k (k declared sets whose tiles are unknown).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.contract import evaluate as ev
from simcore.contract.rules import RuleSet, resolve
from simcore.contract.tables import load_tables
from simcore.contract.tiles import N_KINDS, N_RANKS, fmt, parse, parse_tiles, suit_index, tile_text

__all__ = ["parse", "fmt", "shanten", "is_win", "waits", "score", "ready_value", "Score"]


@dataclass(frozen=True)
class Score:
    """The value of a winning hand: fan before the cap (``fan_cap`` for a limit hand),
    base = 2 ** min(fan, fan_cap), and the patterns that apply (name -> fan, nonzero only)."""

    fan: int
    base: int
    patterns: dict


@dataclass(frozen=True)
class _Hand:
    counts: np.ndarray
    void: int
    k: int
    meld_cnt: np.ndarray
    n_kongs: int
    n_tiles: int


def _counts(counts) -> np.ndarray:
    if isinstance(counts, str):
        return parse(counts)
    arr = np.asarray(counts)
    if arr.shape != (N_KINDS,):
        raise ValueError(f"a hand is tile text or a count array of shape (27,), got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        if not np.issubdtype(arr.dtype, np.floating) or not np.all(np.mod(arr, 1) == 0):
            raise ValueError("tile counts must be whole numbers")
    arr = arr.astype(np.int64)
    if (arr < 0).any():
        t = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"negative count {arr[t]} of {tile_text(t)}")
    if (arr > 4).any():
        t = int(np.flatnonzero(arr > 4)[0])
        raise ValueError(f"{arr[t]} copies of {tile_text(t)} (at most 4)")
    return arr


def _void(void) -> int:
    if void is None:
        return ev.NO_VOID
    return suit_index(void)


def _prepare(counts, void, melds) -> _Hand:
    hand = _counts(counts)
    v = _void(void)
    meld_cnt = np.zeros(N_KINDS, np.int64)
    n_kongs = 0
    if isinstance(melds, (int, np.integer)) and not isinstance(melds, bool):
        k = int(melds)
        if not 0 <= k <= 4:
            raise ValueError(f"melds={k}: a seat declares 0 to 4 sets")
    else:
        if isinstance(melds, (str, bool)) or not isinstance(melds, (list, tuple)):
            raise ValueError(f"melds must be a list of sets such as ['555m'] or an int k, got {melds!r}")
        k = 0
        for m in melds:
            tiles = parse_tiles(m)
            if len(tiles) not in (3, 4) or len(set(tiles)) != 1:
                raise ValueError(f"declared set {m!r} is not a pung (3 equal tiles) or a kong (4 equal tiles)")
            if tiles[0] // N_RANKS == v:
                raise ValueError(f"declared set {m!r} is in the void suit")
            meld_cnt[tiles[0]] += len(tiles)
            n_kongs += len(tiles) == 4
            k += 1
        if k > 4:
            raise ValueError(f"{k} declared sets: a seat declares at most 4")
    total = hand + meld_cnt
    if (total > 4).any():
        t = int(np.flatnonzero(total > 4)[0])
        raise ValueError(f"{total[t]} copies of {tile_text(t)} in hand and declared sets (at most 4)")
    n = int(hand.sum())
    if n not in (13 - 3 * k, 14 - 3 * k):
        raise ValueError(
            f"{n} concealed tiles with {k} declared sets: expected {13 - 3 * k} or {14 - 3 * k}"
        )
    return _Hand(hand, v, k, meld_cnt, n_kongs, n)


def shanten(counts, void=None, melds=()) -> int:
    """Tiles from ready: -1 complete, 0 ready; the minimum of regular and seven pairs,
    with targets over the non-void suits and never a fifth copy counting declared sets."""
    h = _prepare(counts, void, melds)
    return int(ev.shanten_exact(load_tables(), h.counts, h.void, h.k, h.meld_cnt))


def is_win(counts, void=None, melds=()) -> bool:
    """A complete winning hand: 14 - 3k tiles, four sets and a pair or seven pairs, no void tile."""
    h = _prepare(counts, void, melds)
    if h.n_tiles != 14 - 3 * h.k:
        return False
    return bool(ev.is_win(load_tables(), h.counts, h.void, h.k))


def waits(counts, void=None, melds=()) -> list[str]:
    """Tiles that complete a 13 - 3k tile hand, sorted by index; never a tile the seat holds
    all four of (hand and declared sets)."""
    h = _prepare(counts, void, melds)
    if h.n_tiles != 13 - 3 * h.k:
        raise ValueError(f"waits needs {13 - 3 * h.k} concealed tiles with {h.k} declared sets, got {h.n_tiles}")
    mask = int(ev.waits_mask(load_tables(), h.counts.copy(), h.void, h.k, h.meld_cnt))
    return [tile_text(t) for t in range(N_KINDS) if (mask >> t) & 1]


def _rules(rules) -> RuleSet:
    return rules if isinstance(rules, RuleSet) else resolve(rules)


def score(counts, void=None, melds=(), rules="battle", self_draw=False, kong_replacement=False,
          robbing_kong=False, last_tile=False, heavenly=False, earthly=False, kong_discard=False) -> Score:
    """The value of a winning hand (winning tile included) in the win's context. ``self_draw``
    scores the ``self_draw`` fan (a replacement win paid by its feeder is not a self-draw);
    ``kong_discard``: the win is on the discard that ends a kong seat's turn."""
    h = _prepare(counts, void, melds)
    if h.n_tiles != 14 - 3 * h.k:
        raise ValueError(f"a winning hand has {14 - 3 * h.k} concealed tiles with {h.k} declared sets, got {h.n_tiles}")
    rs = _rules(rules)
    arr = rs.to_array()
    ctx = ((ev.CTX_SELF_DRAW if self_draw else 0) | (ev.CTX_KONG_REPLACEMENT if kong_replacement else 0)
           | (ev.CTX_ROBBING_KONG if robbing_kong else 0) | (ev.CTX_LAST_TILE if last_tile else 0)
           | (ev.CTX_HEAVENLY if heavenly else 0) | (ev.CTX_EARTHLY if earthly else 0)
           | (ev.CTX_KONG_DISCARD if kong_discard else 0))
    pats = np.zeros(ev.N_PATTERNS, np.int64)
    fan = int(ev.score_patterns(load_tables(), h.counts, h.void, h.k, h.meld_cnt, h.n_kongs, ctx, arr, pats))
    if fan < 0:
        raise ValueError(f"{fmt(h.counts)} does not win" + (f" (void {void})" if void else ""))
    patterns = {name: int(pats[i]) for i, name in enumerate(ev.PATTERNS) if pats[i]}
    return Score(fan=fan, base=int(ev.base_of(fan, arr)), patterns=patterns)


def ready_value(counts, void=None, melds=(), rules="battle") -> int:
    """The ready check's value of a 13 - 3k tile hand: its best base over its waits, valued
    as a discard win (no self-draw, last-tile, replacement or robbing fan), capped; 0 if not ready."""
    h = _prepare(counts, void, melds)
    if h.n_tiles != 13 - 3 * h.k:
        raise ValueError(f"ready_value needs {13 - 3 * h.k} concealed tiles with {h.k} declared sets, got {h.n_tiles}")
    arr = _rules(rules).to_array()
    pats = np.zeros(ev.N_PATTERNS, np.int64)
    return int(ev.ready_value(load_tables(), h.counts.copy(), h.void, h.k, h.meld_cnt, h.n_kongs, arr, pats))
