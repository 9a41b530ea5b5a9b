"""Tiles: indices, suits and the text notation.

A tile's index is ``suit*9 + rank-1`` with suits m=0, p=1, s=2 (RULES.md: Tiles, seats,
notation), so a hand is a length-27 count array. Text lists digits then a suit letter:
``123m456p789s11m``; the canonical form groups suits in the order m, p, s with ranks
ascending (``11123m456p789s``).
"""

from __future__ import annotations

import numpy as np

SUITS = "mps"
N_SUITS = 3
N_RANKS = 9         # ranks per suit: tile t is rank t % N_RANKS of suit t // N_RANKS
N_KINDS = N_SUITS * N_RANKS   # 27
COPIES = 4
N_TILES = COPIES * N_KINDS    # 108, the wall
SUIT_BITS = (1 << N_RANKS) - 1  # 0x1FF: a suit's kinds in a bit set over tiles (bit t), shifted by suit * N_RANKS
DEALER_TILES = 14   # dealt to the dealer; every other seat gets HAND_TILES
HAND_TILES = 13
NO_VOID = N_SUITS   # "no void suit declared yet": a suit index that no tile has


def suit_of(tile: int) -> int:
    return tile // N_RANKS


def tile_text(tile: int) -> str:
    """``5`` -> ``"6m"``."""
    if not 0 <= tile < N_KINDS:
        raise ValueError(f"tile index {tile} is out of range 0..26")
    return f"{tile % N_RANKS + 1}{SUITS[tile // N_RANKS]}"


def tile_index(text: str) -> int:
    """``"6m"`` -> ``5``; exactly one tile."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise ValueError(f"expected one tile, got {text!r}")
    return tiles[0]


def suit_index(letter: str) -> int:
    if not isinstance(letter, str) or letter not in SUITS or len(letter) != 1:
        raise ValueError(f"unknown suit {letter!r}: expected one of m, p, s")
    return SUITS.index(letter)


def parse_tiles(text: str) -> list[int]:
    """Tile indices in the order written; rejects malformed text with a clear message."""
    if not isinstance(text, str):
        raise ValueError(f"tile text must be a string, got {type(text).__name__}")
    tiles: list[int] = []
    digits: list[int] = []
    for pos, ch in enumerate(text.strip()):
        if ch in "0123456789":
            if ch == "0":
                raise ValueError(f"bad tile text {text!r}: rank 0 at position {pos} (ranks are 1-9)")
            digits.append(int(ch))
        elif ch in SUITS:
            if not digits:
                raise ValueError(f"bad tile text {text!r}: suit {ch!r} at position {pos} has no ranks before it")
            s = SUITS.index(ch)
            tiles.extend(s * N_RANKS + d - 1 for d in digits)
            digits = []
        elif ch.isspace():
            continue
        else:
            raise ValueError(f"bad tile text {text!r}: unknown character {ch!r} at position {pos} (suits are m, p, s)")
    if digits:
        raise ValueError(f"bad tile text {text!r}: ranks at the end have no suit letter")
    return tiles


def parse(text: str) -> np.ndarray:
    """Text -> count array of shape (27,); more than four copies of a tile is an error."""
    counts = np.zeros(N_KINDS, dtype=np.int64)
    for t in parse_tiles(text):
        counts[t] += 1
    over = np.flatnonzero(counts > COPIES)
    if over.size:
        raise ValueError(
            f"bad tile text {text!r}: {counts[over[0]]} copies of {tile_text(int(over[0]))} (at most 4)"
        )
    return counts


def fmt(counts) -> str:
    """Count array -> canonical text (suits m, p, s; ranks ascending)."""
    counts = np.asarray(counts)
    if counts.shape != (N_KINDS,):
        raise ValueError(f"a hand is a count array of shape (27,), got shape {counts.shape}")
    out = []
    for s in range(N_SUITS):
        ranks = "".join(str(r + 1) * int(counts[s * N_RANKS + r]) for r in range(N_RANKS))
        if ranks:
            out.append(ranks + SUITS[s])
    return "".join(out)


def fmt_tiles(tiles) -> str:
    """A list of tile indices -> canonical text."""
    counts = np.zeros(N_KINDS, dtype=np.int64)
    for t in tiles:
        counts[int(t)] += 1
    return fmt(counts)


def tile_list(counts) -> list[str]:
    """Count array -> sorted list of tile texts, e.g. ``["1m", "1m", "5p"]``."""
    return [tile_text(t) for t in range(N_KINDS) for _ in range(int(counts[t]))]
