"""Scenario checks of the built-in players' decisions (their strength is measured in the bench)."""

from __future__ import annotations

import numpy as np

from simcore.contract.tables import load_tables
from simcore.contract.tiles import N_KINDS, parse, tile_text
from simcore.contract.view import V_CODES, V_HAND, V_ME, V_N1, V_N2, V_VISIBLE, V_VOID, VIEW_LEN
from strategies import core
from strategies.play import EFFICIENT, choose_discard, flush_suits_to_ignore

TAB = load_tables()


def view_of(text: str, void: int) -> np.ndarray:
    v = np.zeros(VIEW_LEN, np.int64)
    h = parse(text)
    v[V_ME] = 0
    v[V_VOID] = void
    v[V_HAND:V_HAND + N_KINDS] = h
    for s in range(3):
        v[V_CODES + s] = sum(int(h[s * 9 + r]) * 5 ** r for r in range(9))
    kinds = [t for t in range(N_KINDS) if t // 9 != void]
    v[V_N2] = sum((h[t] >= 2) + (h[t] == 4) for t in kinds)
    v[V_N1] = sum(h[t] & 1 for t in kinds)
    v[V_VISIBLE:V_VISIBLE + N_KINDS] = h
    return v


def test_flush_throws_off_suit_junk_before_its_own_suit():
    """It ignores the other suits, so an off-suit tile keeps every useful draw: it goes before a
    tile of the flush suit that keeps the same shanten (here the fourth 1m, a root)."""
    for text in ("1111m22m4m5m77m9m2p6p7p", "1m222m44m5m6m88m9m6p77p", "1m222m3m44m5m88m9m1p5p9p"):
        v = view_of(text, 2)
        ignore = flush_suits_to_ignore(v)
        assert ignore == 0b110
        t, _ = choose_discard(TAB, v, core.prepare(TAB, v, ignore), EFFICIENT)
        assert t // 9 == 1, f"{text}: threw {tile_text(t)}"
