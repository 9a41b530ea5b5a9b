"""Suit lookup tables for regular-hand shanten: built once, cached on disk, passed as an argument.

A suit is coded in base 5 (``sum count[r] * 5**r``). For every code we know
``dist[m][p]``: the fewest tiles to add so that the suit holds m sets (pungs or runs) and
p pairs (p <= 1), never more than four copies of a tile (RULES.md: Winning hands, targets).
A hand's regular shanten is the min-plus combination of its three suits' rows, minus one.

Rows take few distinct values, so each code maps to a class (``cls``), two suit classes to
a pair class (``pair``), and (pair class, third suit class, declared sets) to the shanten
(``final``): three lookups per evaluation (ARCHITECTURE.md: Hot path). All three live in one flat
uint8 array ``tab`` with fixed strides, the only table argument kernels take:

    tab[CLS_OFF + code]                           suit class of a base-5 suit code
    tab[PAIR_OFF + c1 * STRIDE + c2]              class of two suits combined
    tab[final_at(pc, c3, k)]                      regular shanten + 1 with k declared sets

``final`` is stored k-major: the entries for one k (nearly always 0 or 1) are contiguous,
so the ones play touches fill few cache lines.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import time
from pathlib import Path

import numba as nb
import numpy as np

from simcore.contract.tiles import N_RANKS
from simcore.numba_cache import cache_root

N_CODES = 5**N_RANKS
STRIDE = 256
CLS_OFF = 0
PAIR_OFF = N_CODES
FINAL_OFF = PAIR_OFF + STRIDE * STRIDE
TAB_SIZE = FINAL_OFF + STRIDE * STRIDE * 5
TABLE_VERSION = 2
INF = 99



@nb.njit(cache=True, inline="always")
def final_at(pc, c3, k):
    """Index in ``tab`` of the final entry for pair class pc, third suit class c3, k sets."""
    return FINAL_OFF + (k * STRIDE + pc) * STRIDE + c3


POW5 = np.array([5**r for r in range(10)], dtype=np.int64)


@nb.njit(cache=True)
def _suit_sets():
    """The 16 sets of a suit (9 pungs, 7 runs) as base-5 code deltas plus their digit needs."""
    deltas = np.zeros(16, np.int64)
    need = np.zeros((16, N_RANKS), np.int64)
    for r in range(N_RANKS):
        deltas[r] = 3 * 5**r
        need[r, r] = 3
    for r in range(7):
        deltas[N_RANKS + r] = 5**r + 5 ** (r + 1) + 5 ** (r + 2)
        need[N_RANKS + r, r] = 1
        need[N_RANKS + r, r + 1] = 1
        need[N_RANKS + r, r + 2] = 1
    return deltas, need


@nb.njit(cache=True)
def build_distance_rows():
    """``dist[code, m*2 + p]`` for every suit code (uint8, 19.5 MB), by two sweeps.

    Sweep 1 (ascending codes): the most sets a suit contains, with and without a pair.
    Sweep 2 (descending codes): ``d(H) = 0`` if H contains the target, else
    ``1 + min over t of d(H + t)`` with ``H[t] < 4``.
    """
    deltas, need = _suit_sets()
    max_sets = np.zeros((N_CODES, 2), np.int8)
    digits = np.zeros(N_RANKS, np.int64)
    for code in range(N_CODES):
        c = code
        for r in range(N_RANKS):
            digits[r] = c % 5
            c //= 5
        best = 0
        for s in range(16):
            ok = True
            for r in range(N_RANKS):
                if digits[r] < need[s, r]:
                    ok = False
                    break
            if ok:
                v = max_sets[code - deltas[s], 0] + 1
                if v > best:
                    best = v
        max_sets[code, 0] = min(best, 4)
        bestp = -1
        for r in range(N_RANKS):
            if digits[r] >= 2:
                v = max_sets[code - 2 * 5**r, 0]
                if v > bestp:
                    bestp = v
        max_sets[code, 1] = bestp
    dist = np.zeros((N_CODES, 10), np.uint8)
    for code in range(N_CODES - 1, -1, -1):
        c = code
        for r in range(N_RANKS):
            digits[r] = c % 5
            c //= 5
        for m in range(5):
            for p in range(2):
                if max_sets[code, p] >= m:
                    dist[code, m * 2 + p] = 0
                    continue
                best = INF
                for r in range(N_RANKS):
                    if digits[r] < 4:
                        v = dist[code + 5**r, m * 2 + p]
                        if v < best:
                            best = v
                dist[code, m * 2 + p] = best + 1
    return dist


@nb.njit(cache=True)
def _combine(a, b, out):
    """Min-plus of two (m, p) rows: out[m*2+p] = min a[m1,p1] + b[m-m1,p-p1]."""
    for m in range(5):
        for p in range(2):
            best = INF
            for m1 in range(m + 1):
                for p1 in range(p + 1):
                    v = a[m1 * 2 + p1] + b[(m - m1) * 2 + (p - p1)]
                    if v < best:
                        best = v
            out[m * 2 + p] = best


@nb.njit(cache=True)
def _pair_rows(rows):
    n = rows.shape[0]
    out = np.zeros((n * n, 10), np.int64)
    for i in range(n):
        for j in range(n):
            _combine(rows[i], rows[j], out[i * n + j])
    return out


@nb.njit(cache=True)
def _fill_final(final, prows, rows):
    """final[k, pc, c3] = shanten + 1 of four-minus-k sets and a pair over three suits."""
    for pc in range(prows.shape[0]):
        for c3 in range(rows.shape[0]):
            for k in range(5):
                n = 4 - k
                best = INF
                for m1 in range(n + 1):
                    for p1 in range(2):
                        v = prows[pc, m1 * 2 + p1] + rows[c3, (n - m1) * 2 + (1 - p1)]
                        if v < best:
                            best = v
                final[k, pc, c3] = best


def _row_keys(rows: np.ndarray) -> np.ndarray:
    keys = np.zeros(rows.shape[0], np.int64)
    for j in range(rows.shape[1]):
        keys = keys * 32 + rows[:, j].astype(np.int64)
    return keys


def build_tables() -> np.ndarray:
    """Build the flat table ``tab`` from scratch (about a second with a warm numba cache)."""
    dist = build_distance_rows()
    keys = _row_keys(dist)
    ukeys, cls = np.unique(keys, return_inverse=True)
    first = np.zeros(len(ukeys), np.int64)
    first[cls[::-1]] = np.arange(len(cls))[::-1]
    rows = dist[first].astype(np.int64)
    ncls = len(rows)
    prow = _pair_rows(rows)
    pkeys, pcls = np.unique(_row_keys(prow), return_inverse=True)
    pfirst = np.zeros(len(pkeys), np.int64)
    pfirst[pcls[::-1]] = np.arange(len(pcls))[::-1]
    prows = prow[pfirst]
    if ncls > STRIDE or len(prows) > STRIDE:
        raise RuntimeError(f"table classes exceed {STRIDE}: {ncls}, {len(prows)}")
    tab = np.zeros(TAB_SIZE, np.uint8)
    tab[CLS_OFF:CLS_OFF + N_CODES] = cls.astype(np.uint8)
    pair = tab[PAIR_OFF:PAIR_OFF + STRIDE * STRIDE].reshape(STRIDE, STRIDE)
    pair[:ncls, :ncls] = pcls.reshape(ncls, ncls)
    _fill_final(tab[FINAL_OFF:].reshape(5, STRIDE, STRIDE), prows, rows)
    return tab


def cache_dir() -> Path:
    """Where tables are cached: $SICHUAN_CACHE, else $XDG_CACHE_HOME/sichuan-sim, else ~/.cache."""
    return cache_root()


def _digest(tab: np.ndarray) -> str:
    return hashlib.blake2b(tab.tobytes(), digest_size=16).hexdigest()


_TAB: np.ndarray | None = None
LOAD_SECONDS = 0.0


def load_tables() -> np.ndarray:
    """The table array: in memory, else the checked file in the cache, else built and saved."""
    global _TAB, LOAD_SECONDS
    if _TAB is not None:
        return _TAB
    t0 = time.perf_counter()
    path = cache_dir() / f"suit-tables-v{TABLE_VERSION}.npy"
    sig = path.with_suffix(".blake2b")
    tab = None
    if path.exists() and sig.exists():
        try:
            cand = np.load(path, allow_pickle=False)
            if cand.shape == (TAB_SIZE,) and cand.dtype == np.uint8 and _digest(cand) == sig.read_text().strip():
                tab = cand
        except (OSError, ValueError):
            tab = None
    if tab is None:
        tab = build_tables()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            with open(tmp, "wb") as fh:
                np.save(fh, tab)
            os.replace(tmp, path)
            sig.write_text(_digest(tab))
        except OSError:
            pass  # a read-only cache only costs a rebuild next time
    _TAB = _on_huge_pages(tab)
    LOAD_SECONDS = time.perf_counter() - t0
    return _TAB


HUGE_PAGE = 1 << 21


def _on_huge_pages(tab: np.ndarray) -> np.ndarray:
    """A copy of the tables in memory aligned to 2 MB and advised to use huge pages
    (Linux transparent huge pages). Strategies look up classes at random places in the 2 MB
    class map: on two huge pages rather than about 570 small ones those lookups stop missing
    the TLB, and timings stop depending on where the kernel happened to put the pages (they
    varied by a few percent from one process to the next). Where huge pages are unavailable
    this is an ordinary copy."""
    size = -(-tab.nbytes // HUGE_PAGE) * HUGE_PAGE
    try:
        buf = mmap.mmap(-1, size + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except (OSError, AttributeError, ValueError):
        return tab
    whole = np.frombuffer(buf, np.uint8)
    start = -whole.ctypes.data % HUGE_PAGE
    if hasattr(buf, "madvise") and hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            buf.madvise(mmap.MADV_HUGEPAGE, start, size)
        except OSError:
            pass
    out = whole[start:start + tab.nbytes]
    out[:] = tab
    return out
