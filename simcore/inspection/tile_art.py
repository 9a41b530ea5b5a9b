"""Mahjong tiles as SVG symbols for the hand viewer (``simcore.inspection.page``).

Every glyph is a path or a shape, never text: the page must look the same offline and in a
browser without CJK fonts (the test browser has none). Dots are circles, bamboo is sticks,
characters are the Chinese numeral over the sign 萬, each suit in its own colour, with the rank
as a small Arabic digit in the corner so it reads at a glance. ``symbols()`` gives one
``<symbol id="t5m">`` per kind plus ``tback`` (a hidden tile); the page draws a tile with
``<use href="#t5m">``, so each kind's paths are written once.
"""

from __future__ import annotations

from simcore.contract.tiles import N_KINDS, tile_text

VIEWBOX = "0 0 60 80"
COLOURS = {"m": "#b3202a", "p": "#1f56b0", "s": "#17804a"}
INK = "#1d2433"

# the Chinese numerals one to nine, strokes in the tile's upper half
NUMERALS = {
    1: "M16 23H48",
    2: "M20 15H44M14 32H50",
    3: "M19 11H45M21 23H43M14 35H50",
    4: "M16 12V37M16 12H48V37M16 35H48M28 12Q28 25 21 28M36 12V25Q36 28 42 28",
    5: "M18 11H46M31 11L27 35M20 22H42V35M14 35H50",
    6: "M31 8L34 13M15 18H49M26 24L18 36M38 24L46 36",
    7: "M14 24L50 19M27 9V31Q27 36 34 36H48V31",
    8: "M27 11Q26 27 15 36M37 11Q40 27 50 36",
    9: "M16 18H38Q37 35 46 35H50V29M29 9Q28 28 15 37",
}
# the sign 萬 (ten thousand: the characters suit), simplified to its main strokes
WAN = ("M14 47H46M23 42V52M37 42V52"          # the grass radical
       "M19 54H41V63H19ZM19 58.5H41M30 54V63"  # the field
       "M15 76V66H45V74Q45 77 41 76M30 63V76M22 73L30 67L38 73")
# Arabic digits on a 6 x 10 grid, placed in the top-left corner
DIGITS = {
    1: "M1.5 1.5L3 0V10",
    2: "M0 1.5Q3 -1 6 1.5Q6 4 0 10H6",
    3: "M0 0H6L2.5 4Q6 4 6 7Q5 10 0 9.5",
    4: "M4.5 10V0L0 7H6",
    5: "M6 0H0.5L0 4.5Q6 3.5 6 7Q5.5 10 0 9.5",
    6: "M5.5 0.5Q0 2 0 7Q0 10 3 10Q6 10 6 7Q6 4.5 3 4.5Q0.5 4.5 0 6.5",
    7: "M0 0H6L2 10",
    8: "M3 4.6A2.3 2.3 0 1 1 3.01 4.6ZM3 4.6A2.7 2.7 0 1 0 3.01 4.6Z",
    9: "M0.5 9.5Q6 8 6 3Q6 0 3 0Q0 0 0 3Q0 5.5 3 5.5Q5.5 5.5 6 3.5",
}
# centres of the dots (x, y, radius)
DOTS = {
    1: [(33, 44, 15)],
    2: [(33, 28, 10), (33, 60, 10)],
    3: [(21, 25, 9), (33, 44, 9), (45, 63, 9)],                 # clear of the corner digit
    4: [(23, 30, 9), (43, 30, 9), (23, 58, 9), (43, 58, 9)],
    5: [(21, 26, 8), (45, 26, 8), (33, 44, 8), (21, 62, 8), (45, 62, 8)],
    6: [(x, y, 8) for y in (22, 44, 66) for x in (24, 42)],
    7: [(21, 18, 6.5), (34, 25, 6.5), (47, 32, 6.5)] + [(x, y, 7) for y in (50, 68) for x in (24, 42)],
    8: [(x, y, 7.5) for y in (17, 35, 53, 71) for x in (24, 42)],
    9: [(x, y, 6.5) for y in (22, 44, 66) for x in (19, 33, 47)],
}
# centres of the bamboo sticks (x, y, length)
STICKS = {
    2: [(33, 28, 22), (33, 58, 22)],
    3: [(33, 27, 22), (23, 58, 22), (43, 58, 22)],
    4: [(x, y, 22) for y in (28, 60) for x in (24, 42)],
    5: [(20, 28, 22), (46, 28, 22), (33, 44, 22), (20, 60, 22), (46, 60, 22)],
    6: [(x, y, 22) for y in (28, 60) for x in (19, 33, 47)],
    7: [(33, 18, 16)] + [(x, y, 16) for y in (44, 66) for x in (19, 33, 47)],
    8: [(x, y, 22) for y in (28, 60) for x in (17, 28, 39, 50)],
    9: [(x, y, 18) for y in (20, 44, 68) for x in (19, 33, 47)],
}

FACE = ('<rect x="1" y="1" width="58" height="78" rx="8" fill="#cfc6ad"/>'
        '<rect x="2" y="1.5" width="56" height="74" rx="7" fill="#fbf8ef" stroke="#9a9382" stroke-width="1.2"/>')


def _num(x: float) -> str:
    return f"{x:g}"


def _dot(x, y, r, colour) -> str:
    return (f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(r)}" fill="{colour}"/>'
            f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(r * 0.58)}" fill="#fbf8ef"/>'
            f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(r * 0.28)}" fill="{colour}"/>')


def _stick(x, y, length, colour, width=7.0, nodes=1) -> str:
    top = y - length / 2
    out = [f'<rect x="{_num(x - width / 2)}" y="{_num(top)}" width="{_num(width)}" height="{_num(length)}" '
           f'rx="{_num(width / 2)}" fill="{colour}"/>']
    for i in range(1, nodes + 1):
        ny = top + length * i / (nodes + 1)
        out.append(f'<path d="M{_num(x - width / 2)} {_num(ny)}H{_num(x + width / 2)}" stroke="#0b3d22" '
                   f'stroke-width="1.4"/>')
    out.append(f'<path d="M{_num(x)} {_num(top + 2)}V{_num(top + length - 2)}" stroke="#bfe3cc" '
               f'stroke-width="1" opacity="0.7"/>')
    return "".join(out)


def _digit(rank: int, colour: str) -> str:
    return (f'<path transform="translate(5 5) scale(0.95)" d="{DIGITS[rank]}" fill="none" stroke="{colour}" '
            f'stroke-width="1.7" stroke-linecap="round" stroke-linejoin="round"/>')


def face(tile: int) -> str:
    """The inner SVG of one tile kind (0-26) in the 60 x 80 box."""
    text = tile_text(tile)
    rank, suit = int(text[0]), text[1]
    colour = COLOURS[suit]
    parts = [FACE]
    if suit == "p":
        parts += [_dot(x, y, r, colour) for x, y, r in DOTS[rank]]
    elif suit == "s":
        if rank == 1:
            parts.append(_stick(33, 44, 50, colour, width=12, nodes=3))
        else:
            parts += [_stick(x, y, n, colour) for x, y, n in STICKS[rank]]
    else:
        parts.append(f'<path d="{NUMERALS[rank]}" fill="none" stroke="{INK}" stroke-width="4" '
                     f'stroke-linecap="round" stroke-linejoin="round"/>')
        parts.append(f'<path d="{WAN}" fill="none" stroke="{colour}" stroke-width="3.2" '
                     f'stroke-linecap="round" stroke-linejoin="round"/>')
    parts.append(_digit(rank, colour))
    return "".join(parts)


BACK = ('<rect x="1" y="1" width="58" height="78" rx="8" fill="#1c4b36"/>'
        '<rect x="2" y="1.5" width="56" height="74" rx="7" fill="#2f7a57" stroke="#1c4b36" stroke-width="1.2"/>'
        '<rect x="10" y="10" width="40" height="56" rx="5" fill="none" stroke="#8fc9a9" stroke-width="1.5"/>')


def symbols() -> str:
    """An invisible ``<svg>`` holding a ``<symbol>`` per tile kind (``t1m`` ... ``t9s``) and ``tback``."""
    out = [f'<symbol id="t{tile_text(t)}" viewBox="{VIEWBOX}">{face(t)}</symbol>' for t in range(N_KINDS)]
    out.append(f'<symbol id="tback" viewBox="{VIEWBOX}">{BACK}</symbol>')
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" style="position:absolute" '
            f'aria-hidden="true">{"".join(out)}</svg>')


__all__ = ["symbols", "face", "COLOURS", "VIEWBOX"]
