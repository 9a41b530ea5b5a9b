"""Counter-based random streams: one per (run seed, global hand index, purpose).

A stream is a 64-bit key and a counter; value i is ``splitmix64(key + i * GOLDEN)``. Keys
depend only on their inputs, so a hand's wall depends only on (seed, hand index), and results
are the same whatever the thread count, worker count or chunk size (ARCHITECTURE.md: Randomness).
All arithmetic is uint64 (numba promotes uint64 with int64 to float, so we never mix them).
"""

from __future__ import annotations

import numba as nb
import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)

# Stream purposes within a hand.
STREAM_WALL = np.int64(0)
STREAM_DIRECTION = np.int64(1)
STREAM_SEAT = np.int64(2)  # + seat: each seat's strategy stream


@nb.njit(cache=True, inline="always")
def mix64(x):
    z = np.uint64(x)
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True)
def stream_key(seed, hand, purpose):
    """The key of the stream for (seed, hand index, purpose); all three are non-negative ints."""
    k = mix64(np.uint64(seed) + GOLDEN)
    k = mix64(k ^ (np.uint64(hand) * _M2 + GOLDEN))
    return mix64(k ^ (np.uint64(purpose) * _M1 + GOLDEN))


@nb.njit(cache=True, inline="always")
def stream_value(key, counter):
    return mix64(key + np.uint64(counter + 1) * GOLDEN)


@nb.njit(cache=True, inline="always")
def below(value, n):
    """Map a 64-bit value to 0..n-1 (bias below 1e-16 for n < 200)."""
    return np.int64(value % np.uint64(n))


def key_as_int64(key) -> int:
    """uint64 key -> the int64 with the same bits (views store int64)."""
    return int(np.uint64(key).view(np.int64))
