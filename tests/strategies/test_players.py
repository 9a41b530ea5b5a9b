"""Scenario checks of the built-in players' decisions (their strength is measured in the bench)."""

from __future__ import annotations


from simcore.contract.tiles import tile_text
from strategies import core
from tests.support.views import TAB, view_of
from strategies.play import EFFICIENT, choose_discard, flush_suits_to_ignore


def test_flush_throws_off_suit_junk_before_its_own_suit():
    """It ignores the other suits, so an off-suit tile keeps every useful draw: it goes before a
    tile of the flush suit that keeps the same shanten (here the fourth 1m, a root)."""
    for text in ("1111m22m4m5m77m9m2p6p7p", "1m222m44m5m6m88m9m6p77p", "1m222m3m44m5m88m9m1p5p9p"):
        v = view_of(text, 2)
        ignore = flush_suits_to_ignore(v)
        assert ignore == 0b110
        t, _ = choose_discard(TAB, v, core.prepare(TAB, v, ignore), EFFICIENT)
        assert t // 9 == 1, f"{text}: threw {tile_text(t)}"
