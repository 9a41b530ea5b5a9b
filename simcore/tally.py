"""Jitted tallies of one chunk's rows for the streaming summaries (``simcore.analysis``): one
pass over a shard's columns instead of a numpy pass per figure and group.

Inputs are numpy views of Arrow columns; a null is a code of -1 (booleans as int8 codes) or,
for a first win's kind, fan and base, any value: they are read only where the seat won, and
they are never null there.
"""

from __future__ import annotations

import numba as nb
import numpy as np

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
