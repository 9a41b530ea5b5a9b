"""Tiles and the text notation (RULES.md: "Tiles, seats, notation")."""

import numpy as np
import pytest

from simcore.contract import tiles
from simcore.contract.tiles import fmt, fmt_tiles, parse, parse_tiles, tile_index, tile_list, tile_text


# -- index convention: suit*9 + rank-1, suits m=0, p=1, s=2 --------------------------------

@pytest.mark.parametrize(
    "text, index",
    [("1m", 0), ("6m", 5), ("9m", 8), ("1p", 9), ("5p", 13), ("9p", 17), ("1s", 18), ("9s", 26)],
)
def test_index_is_suit_times_nine_plus_rank_minus_one(text, index):
    assert tile_index(text) == index
    assert tile_text(index) == text


def test_every_index_round_trips():
    for suit, letter in enumerate("mps"):
        for rank in range(1, 10):
            index = suit * 9 + rank - 1
            assert tile_text(index) == f"{rank}{letter}"
            assert tile_index(f"{rank}{letter}") == index
            assert tiles.suit_of(index) == suit
            assert tiles.suit_index(letter) == suit


def test_constants():
    assert tiles.SUITS == "mps"
    assert tiles.N_KINDS == 27
    assert tiles.N_TILES == 108 == tiles.N_KINDS * tiles.COPIES


def test_parse_gives_a_length_27_count_array():
    counts = parse("123m456p789s55m")
    assert counts.shape == (27,)
    assert counts.sum() == 11
    expected = np.zeros(27, dtype=np.int64)
    for i in [0, 1, 2, 4, 4, 12, 13, 14, 24, 25, 26]:
        expected[i] += 1
    assert counts.tolist() == expected.tolist()


def test_parse_tiles_keeps_written_order():
    assert parse_tiles("55m123m9s1p") == [4, 4, 0, 1, 2, 26, 9]
    assert parse_tiles("") == []
    assert parse_tiles("  1m 2p ") == [0, 10]


# -- round trips and canonical order ---------------------------------------------------------

@pytest.mark.parametrize(
    "text",
    [
        "11123m456p789s",
        "123456789m11p",
        "11115m2222p3333s",
        "19m19p19s",
        "5s",
        "",
        "11223344556677m",
    ],
)
def test_canonical_text_round_trips(text):
    assert fmt(parse(text)) == text


@pytest.mark.parametrize(
    "written, canonical",
    [
        ("123m456p789s11m", "11123m456p789s"),
        ("9s1p1m", "1m1p9s"),
        ("321m", "123m"),
        ("5s5p5m", "5m5p5s"),
        ("8p2p2p", "228p"),
    ],
)
def test_fmt_orders_suits_m_p_s_and_ranks_ascending(written, canonical):
    assert fmt(parse(written)) == canonical
    assert fmt_tiles(parse_tiles(written)) == canonical


def test_count_array_round_trips_for_random_hands():
    rng = np.random.default_rng(7)
    wall = np.repeat(np.arange(27), 4)
    for _ in range(200):
        n = int(rng.integers(0, 19))
        hand = rng.choice(wall, size=n, replace=False)
        counts = np.bincount(hand, minlength=27)
        text = fmt(counts)
        assert parse(text).tolist() == counts.tolist()
        assert fmt(parse(text)) == text


def test_full_set_of_108_tiles():
    counts = np.full(27, 4)
    text = fmt(counts)
    assert text == "111122223333444455556666777788889999m" \
                   "111122223333444455556666777788889999p" \
                   "111122223333444455556666777788889999s"
    assert parse(text).sum() == 108


def test_tile_list_is_sorted():
    assert tile_list(parse("5p1m1m9s")) == ["1m", "1m", "5p", "9s"]


def test_fmt_rejects_wrong_shape():
    with pytest.raises(ValueError, match="shape"):
        fmt(np.zeros(34, dtype=np.int64))


# -- malformed text ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, message",
    [
        ("0m", r"rank 0"),
        ("105p", r"rank 0"),
        ("5x", r"unknown character 'x'"),
        ("5z", r"unknown character 'z'"),
        ("m", r"suit 'm' .*no ranks before it"),
        ("123m p", r"suit 'p' .*no ranks before it"),
        ("123", r"no suit letter"),
        ("123m45", r"no suit letter"),
        ("1M", r"unknown character 'M'"),
        ("\u0663m", r"unknown character"),  # an Arabic-Indic digit is not a rank
    ],
)
def test_malformed_text_raises_a_clear_value_error(text, message):
    with pytest.raises(ValueError, match=message) as info:
        parse(text)
    msg = str(info.value)
    assert "bad tile text" in msg and repr(text) in msg
    assert "\n" not in msg


@pytest.mark.parametrize("text, tile", [("11111m", "1m"), ("5555p5p", "5p"), ("9s99s9s9s", "9s")])
def test_a_fifth_copy_is_rejected(text, tile):
    with pytest.raises(ValueError, match=rf"5 copies of {tile} \(at most 4\)"):
        parse(text)


def test_four_copies_are_fine():
    assert parse("1111m").tolist()[0] == 4


def test_tile_index_needs_exactly_one_tile():
    with pytest.raises(ValueError, match="expected one tile"):
        tile_index("12m")
    with pytest.raises(ValueError, match="expected one tile"):
        tile_index("")


@pytest.mark.parametrize("index", [-1, 27, 100])
def test_tile_text_rejects_out_of_range_indices(index):
    with pytest.raises(ValueError, match="out of range 0..26"):
        tile_text(index)


@pytest.mark.parametrize("letter", ["x", "", "mp", "M"])
def test_suit_index_rejects_unknown_suits(letter):
    with pytest.raises(ValueError, match="expected one of m, p, s"):
        tiles.suit_index(letter)


def test_non_string_is_rejected():
    with pytest.raises(ValueError, match="must be a string"):
        parse_tiles(123)
