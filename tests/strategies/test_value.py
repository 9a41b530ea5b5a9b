"""The value helpers of strategies.api agree with simcore.inspection.hand (the evaluator people use): the
fan and base of a win on a tile in its context, and each wait of a ready hand with its value
and live copies, on random hands with declared sets under every preset; and win_context reads
the context from the view as the engine sets it."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.inspection import hand as H
from simcore.contract.evaluate import CTX_KONG_REPLACEMENT, CTX_LAST_TILE, CTX_ROBBING_KONG, CTX_SELF_DRAW
from simcore.contract.rules import N_RULE_FIELDS, PRESETS, preset
from simcore.contract.tables import load_tables
from simcore.contract.tiles import N_KINDS, SUITS, parse, tile_text
from simcore.contract.view import M_KONG_CONCEALED, M_PUNG, Q_CLAIM, Q_ROB, Q_TURN, V_HAND, V_ME, V_MELD_KIND, V_MELD_TILE, V_N_MELDS, V_QUESTION, V_REPLACEMENT, V_RULES, V_SCRATCH, V_VISIBLE, V_VOID, V_WALL_LEFT, VIEW_LEN
from strategies.api import VALUE_SCRATCH, wait_values, win_context, win_value

TAB = load_tables()


def _view(concealed: str, void: str, melds=(), rules="battle", wall_left=20, seen: str = ""):
    v = np.zeros(VIEW_LEN, np.int64)
    v[V_ME] = 1
    v[V_VOID + 1] = SUITS.index(void)
    v[V_HAND:V_HAND + N_KINDS] = parse(concealed)
    for i, m in enumerate(melds):
        t = parse(m).argmax()
        v[V_MELD_KIND + 4 + i] = M_PUNG if len(m) == 4 else M_KONG_CONCEALED
        v[V_MELD_TILE + 4 + i] = t
    v[V_N_MELDS + 1] = len(melds)
    v[V_RULES:V_RULES + N_RULE_FIELDS] = preset(rules).to_array()
    v[V_WALL_LEFT] = wall_left
    v[V_VISIBLE:V_VISIBLE + N_KINDS] = parse(concealed) + parse(seen)
    return v


def _random_ready(rng):
    """A 13 - 3k tile ready hand (as text), its void and declared sets."""
    while True:
        void = SUITS[rng.integers(3)]
        kinds = [t for t in range(N_KINDS) if SUITS[t // 9] != void]
        k = int(rng.choice([0, 0, 1, 2]))
        counts = np.zeros(N_KINDS, np.int64)
        melds = []
        for _ in range(k):
            t = int(rng.choice(kinds))
            n = 4 if rng.random() < 0.3 else 3
            if counts[t] == 0:
                counts[t] = n
                melds.append(tile_text(t)[0] * n + tile_text(t)[1])
        concealed = np.zeros(N_KINDS, np.int64)
        pool = [t for t in kinds for _ in range(4 - counts[t])]
        for t in rng.choice(pool, 13 - 3 * len(melds), replace=False):
            concealed[t] += 1
        text = "".join(tile_text(t) * int(concealed[t]) for t in range(N_KINDS))
        text = "".join(f"{tile_text(t)[0] * int(concealed[t])}{tile_text(t)[1]}" for t in range(N_KINDS) if concealed[t])
        if H.waits(text, void, melds):
            return text, void, melds


@pytest.mark.parametrize("rules", PRESETS)
def test_win_value_and_wait_values_equal_the_evaluator(rules):
    rng = np.random.default_rng(len(rules))
    for _ in range(60):
        text, void, melds = _random_ready(rng)
        v = _view(text, void, melds, rules, wall_left=int(rng.integers(0, 3)) * 10)
        mask, live = wait_values(TAB, v, np.int64(-1), np.int64(V_SCRATCH), np.int64(V_SCRATCH + VALUE_SCRATCH))
        waits = H.waits(text, void, melds)
        assert [tile_text(t) for t in range(N_KINDS) if (mask >> t) & 1] == waits
        out = V_SCRATCH + VALUE_SCRATCH
        last = v[V_WALL_LEFT] == 0
        assert live == sum(int(v[out + 2 * N_KINDS + t]) for t in range(N_KINDS))
        for w in waits:
            t = parse(w).argmax()
            discard = H.score(text + w, void, melds, rules, last_tile=bool(last))
            self_draw = H.score(text + w, void, melds, rules, self_draw=True)
            assert v[out + t] == discard.base and v[out + N_KINDS + t] == self_draw.base
            assert v[out + 2 * N_KINDS + t] == 4 - v[V_VISIBLE + t]
            for ctx, kw in ((0, {}), (CTX_SELF_DRAW | CTX_KONG_REPLACEMENT, {"self_draw": True, "kong_replacement": True}),
                            (CTX_ROBBING_KONG | CTX_LAST_TILE, {"robbing_kong": True, "last_tile": True})):
                want = H.score(text + w, void, melds, rules, **kw)
                assert tuple(win_value(TAB, v, np.int64(t), np.int64(ctx), np.int64(V_SCRATCH))) == (want.fan, want.base)
        not_a_wait = next(t for t in range(N_KINDS) if not (mask >> t) & 1 and v[V_HAND + t] < 4)
        assert tuple(win_value(TAB, v, np.int64(not_a_wait), np.int64(0), np.int64(V_SCRATCH))) == (-1, 0)


def test_wait_values_after_a_discard():
    # 14 tiles: discarding 9p leaves 1112345678999m, ready on every m tile
    v = _view("1112345678999m9p", "p", seen="5m5m")
    mask, live = wait_values(TAB, v, np.int64(parse("9p").argmax()), np.int64(V_SCRATCH),
                             np.int64(V_SCRATCH + VALUE_SCRATCH))
    assert [tile_text(t) for t in range(N_KINDS) if (mask >> t) & 1] == H.waits("1112345678999m", "p")
    assert v[V_SCRATCH + VALUE_SCRATCH + 2 * N_KINDS + parse("5m").argmax()] == 1  # one 5m in hand, two seen


def test_win_context_reads_the_view():
    v = _view("1112345678999m5m", "p")
    v[V_QUESTION] = Q_TURN
    assert win_context(v, True) == CTX_SELF_DRAW
    v[V_REPLACEMENT] = 1
    assert win_context(v, True) == CTX_SELF_DRAW | CTX_KONG_REPLACEMENT
    v[V_WALL_LEFT] = 0
    assert win_context(v, True) == CTX_SELF_DRAW | CTX_KONG_REPLACEMENT | CTX_LAST_TILE
    v[V_QUESTION] = Q_ROB
    assert win_context(v, False) == CTX_ROBBING_KONG | CTX_LAST_TILE
    v[V_QUESTION] = Q_CLAIM
    v[V_WALL_LEFT] = 5
    assert win_context(v, False) == 0
