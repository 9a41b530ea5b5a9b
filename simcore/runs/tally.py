"""Jitted tallies of one chunk's rows for the streaming summaries (``simcore.runs.analysis``): one
pass over a shard's columns instead of a numpy pass per figure and group.

Inputs are numpy views of Arrow columns; a null is a code of -1 (booleans as int8 codes) or,
for a first win's kind, fan and base, any value: they are read only where the seat won, and
they are never null there.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from simcore.contract.evaluate import N_PATTERNS
from simcore.contract.records import H_END_REASON, H_TILES_LEFT, H_TURNS, H_WINNERS, N_REASONS, S_BASE, S_FAN, S_NET, S_NET_REASON, S_PIG, S_READY, S_WIN_KIND, S_WINS, W_BASE, W_PAID, W_PATTERNS, W_SEAT, WIN_KONG_REPLACEMENT, WIN_SELF_DRAW

# seat_tally's per-group counters
(T_SEAT_HANDS, T_WINS, T_SELF_DRAWN, T_FAN, T_BASE, T_PIGS, T_CHECKED, T_READY, T_READY_CHECKED) = range(9)
N_SEAT_COUNTERS = 9


@nb.njit(cache=True, nogil=True)
def seat_tally(hi, gi, n_groups, net, won, kind, kind_code, self_drawn, fan, base, pig, ready, reasons, sums, counts,
               out, out_reasons):
    """Over a chunk's seat rows (hand index within the chunk ``hi``, group ``gi``): per (hand,
    group) the sum and count of nets (``sums``, ``counts``, hand-major), and per group the
    ``T_*`` counters and the sums of each net-by-reason column (``reasons``, a tuple of
    columns). ``kind`` is a first win's kind as a dictionary index, ``kind_code[index]`` its
    code and ``self_drawn[code]`` 1 for the kinds that count as self-drawn; ``kind``, ``fan`` and
    ``base`` are read only where the seat won."""
    for i in range(hi.shape[0]):
        g = gi[i]
        cell = hi[i] * n_groups + g
        sums[cell] += net[i]
        counts[cell] += 1
        out[g, T_SEAT_HANDS] += 1
        if won[i]:
            out[g, T_WINS] += 1
            out[g, T_SELF_DRAWN] += self_drawn[kind_code[kind[i]]]
            out[g, T_FAN] += fan[i]
            out[g, T_BASE] += base[i]
        p = pig[i]
        if p >= 0:
            out[g, T_CHECKED] += 1
            out[g, T_PIGS] += p
        r = ready[i]
        if r >= 0 and p != 1:
            out[g, T_READY_CHECKED] += 1
            out[g, T_READY] += r
        for j in range(len(reasons)):
            out_reasons[g, j] += reasons[j][i]


@nb.njit(cache=True, nogil=True)
def win_tally(wg, base, paid, patterns, out, out_patterns):
    """Over a chunk's win rows (group ``wg``): per group the wins, the sums of base and paid, and
    per pattern (``patterns``, a tuple of columns) the wins in which it scores."""
    for i in range(wg.shape[0]):
        g = wg[i]
        out[g, 0] += 1
        out[g, 1] += base[i]
        out[g, 2] += paid[i]
        for p in range(len(patterns)):
            out_patterns[g, p] += patterns[p][i] > 0


@nb.njit(cache=True, nogil=True)
def batch_tally(seat, win, n_wins, hand, nets, out, out_reasons, win_out, pat_out, ends, winners, sums):
    """The same tallies from the engine's own result arrays (``simcore.runs.batch.BatchResult``:
    ``seat`` (hands, 4, fields), ``win`` (hands, slots, fields) with ``n_wins`` used slots a
    hand, ``hand`` (hands, fields)), by seat: ``nets[h, s]`` each seat's net as float64, the
    ``T_*`` counters, reason sums, win sums and pattern counts per seat, the hands' end
    reasons and winner counts, and ``sums`` = (turns, tiles left)."""
    for h in range(seat.shape[0]):
        for s in range(4):
            net = seat[h, s, S_NET]
            nets[h, s] = net
            out[s, T_SEAT_HANDS] += 1
            if seat[h, s, S_WINS] > 0:
                out[s, T_WINS] += 1
                k = seat[h, s, S_WIN_KIND]
                out[s, T_SELF_DRAWN] += 1 if (k == WIN_SELF_DRAW or k == WIN_KONG_REPLACEMENT) else 0
                out[s, T_FAN] += seat[h, s, S_FAN]
                out[s, T_BASE] += seat[h, s, S_BASE]
            p = seat[h, s, S_PIG]
            if p >= 0:
                out[s, T_CHECKED] += 1
                out[s, T_PIGS] += p
            r = seat[h, s, S_READY]
            if r >= 0 and p != 1:
                out[s, T_READY_CHECKED] += 1
                out[s, T_READY] += r
            for j in range(N_REASONS):
                out_reasons[s, j] += seat[h, s, S_NET_REASON + j]
        for w in range(min(n_wins[h], win.shape[1])):
            s = win[h, w, W_SEAT]
            win_out[s, 0] += 1
            win_out[s, 1] += win[h, w, W_BASE]
            win_out[s, 2] += win[h, w, W_PAID]
            for p in range(N_PATTERNS):
                pat_out[s, p] += win[h, w, W_PATTERNS + p] > 0
        ends[hand[h, H_END_REASON]] += 1
        winners[hand[h, H_WINNERS]] += 1
        sums[0] += hand[h, H_TURNS]
        sums[1] += hand[h, H_TILES_LEFT]
