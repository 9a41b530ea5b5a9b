"""The pure-Python replayer (simcore.inspection.replayer): the oracle of the viewer and its browser tests.

Over many hands of every preset it must keep all 108 tiles somewhere after every event, keep the
nets summing to zero, and end with the trace's settlement and the engine's rows; a locked flow
seat wins only on its waits, and a checked seat's waits are the replayer's own."""

import json
from collections import Counter
from pathlib import Path

import pytest

from simcore.inspection.replayer import HIDDEN, ReplayError, event_seen, is_win, iter_tables, replay_events, seat_view, settlement, split_hands, waits_of
from simcore.contract.rules import PRESETS, resolve
from simcore.contract.tiles import parse, tile_text
from simcore.inspection.trace import trace_hand
from tests.support.viewer_hands import FIELD, _players, showcase

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
HANDS_PER_PRESET = 200


def _events(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def check_hand(events, engine_net=None):
    """Every invariant of one replayed hand; returns the last table."""
    prev_locked = [None] * 4
    last = None
    for t in iter_tables(events):
        e = t.event
        assert t.tile_counts() == [4] * 27, f"event {t.index} ({e['event']}): tiles not all accounted for"
        assert sum(s.net for s in t.seats) == 0
        for s in t.seats:
            assert s.score == events[0]["scores"][s.seat] + s.net
            assert sum(s.public) <= sum(s.hand)
        if e["event"] == "win" and prev_locked[e["seat"]] is not None:
            assert e["tile"] in prev_locked[e["seat"]], "a locked seat won on a tile it did not wait on"
        if e["event"] == "check" and not e["pig"]:
            s = t.seats[e["seat"]]
            assert waits_of(s.hand, s.void, s.melds) == e["waits"]
        prev_locked = [list(s.waits) if s.locked else None for s in t.seats]
        last = t
    end = events[-1]
    assert end["event"] == "end"
    assert [s.net for s in last.seats] == end["net"]
    if engine_net is not None:
        assert end["net"] == engine_net
    return last


@pytest.mark.parametrize("name", ["battle-hand.jsonl", "flow-hand.jsonl"])
def test_the_shared_examples_replay(name):
    events = _events(EXAMPLES / name)
    last = check_hand(events)
    st = settlement(last)
    assert st["net"] == events[-1]["net"]
    assert sum(sum(v) for v in st["by_reason"].values()) == 0
    assert [sum(v[s] for v in st["by_reason"].values()) for s in range(4)] == st["net"]


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_invariant_over_many_hands(preset):
    rules = resolve(preset, None)
    fns, names = _players(FIELD)
    kinds = Counter()
    for g in range(HANDS_PER_PRESET):
        hand = trace_hand(rules, fns, names, 11, g)
        last = check_hand(hand.events, engine_net=hand.net)
        kinds.update(e["event"] for e in hand.events)
        kinds.update("locked" for s in last.seats if s.locked)
    assert kinds["win"] and kinds["payment"] and kinds["pung"] and kinds["kong"]
    if preset == "flow":
        assert kinds["locked"]
    else:
        assert kinds["check"]


def test_a_robbed_kong_goes_back_to_a_pung():
    events = showcase()[1]
    tables = replay_events(events)
    i = next(i for i, e in enumerate(events) if e["event"] == "win" and e["kind"] == "robbing_kong")
    win = events[i]
    kong_at = max(j for j in range(i) if events[j]["event"] == "kong")
    src = tables[kong_at].seats[win["from"]]
    assert ("kong_added", win["tile"]) in [(m.kind, m.tile) for m in src.melds]
    after = tables[i].seats[win["from"]]
    assert ("pung", win["tile"]) in [(m.kind, m.tile) for m in after.melds]
    assert win["tile"] in [t for t, _ in tables[i].set_aside]
    assert not any(p["reason"] == "kong" and p["payee"] == win["from"] for p in events[kong_at:i + 1]
                   if p["event"] == "payment")


def test_flow_winners_are_locked_with_their_waits():
    events = showcase()[0]
    last = replay_events(events)[-1]
    for s in last.seats:
        if s.won:
            assert s.locked and s.waits
            assert all(w["tile"] in s.waits for w in s.wins[1:])


def test_seat_view_hides_what_the_seat_did_not_see():
    events = showcase()[2]
    tables = replay_events(events)
    direction = tables[-1].direction
    for t in tables:
        for v in range(4):
            seen = seat_view(t, v)
            assert seen.seats[v].tiles == t.seats[v].tiles
            for s, full in zip(seen.seats, t.seats):
                assert s.n_concealed == full.n_concealed
                if s.seat == v:
                    continue
                assert s.drawn is None
                public = Counter({tile_text(k): c for k, c in enumerate(full.public) if c})
                assert Counter(x for x in s.tiles if x != HIDDEN) == public
                if not full.won and full.check is None:
                    assert not public
                for m, fm in zip(s.melds, full.melds):
                    assert m.tile == (fm.tile if fm.known else None)
                if direction and s.passed:
                    assert (s.passed == full.passed) == ((s.seat + direction) % 4 == v)
    for e in events:
        for v in range(4):
            seen = event_seen(e, v)
            if e["event"] == "pass_win":
                assert (seen is None) == (e["seat"] != v)
            if e["event"] == "draw" and e["seat"] != v:
                assert seen["tile"] is None
            if e["event"] == "deal":
                assert all(set(h) == {HIDDEN} for s, h in enumerate(seen["hands"]) if s != v)


def test_a_winner_reveals_its_hand_and_concealed_kongs():
    events = showcase()[0]
    for t in replay_events(events):
        for s in t.seats:
            if s.won and t.event["event"] == "win" and t.event["seat"] == s.seat:
                assert s.public == s.hand and all(m.known for m in s.melds)


def test_a_contradicting_trace_is_refused():
    events = _events(EXAMPLES / "battle-hand.jsonl")
    bad = [dict(e) for e in events]
    i = next(i for i, e in enumerate(bad) if e["event"] == "draw")
    bad[i]["tile"] = "9s" if bad[i]["tile"] != "9s" else "1m"
    with pytest.raises(ReplayError, match="the wall gives"):
        replay_events(bad)
    bad = [dict(e) for e in events]
    bad[-1]["net"] = [0, 0, 0, 0]
    with pytest.raises(ReplayError, match="net"):
        replay_events(bad)


def test_split_hands_separates_a_stream():
    a, b = _events(EXAMPLES / "battle-hand.jsonl"), _events(EXAMPLES / "flow-hand.jsonl")
    assert split_hands(a + b) == [a, b]


@pytest.mark.parametrize("tiles, void, melds, win", [
    ("11223344556677m", "p", 0, True),       # seven pairs
    ("11112233445566m", "p", 0, True),       # four of a kind as two pairs
    ("123m456p789s11m234s", "p", 0, False),  # a void tile
    ("123m456p789s11m234s", None, 0, True),
    ("123m11p", "s", 3, True),
    ("1234m", "s", 3, False),
])
def test_is_win(tiles, void, melds, win):
    assert is_win(list(parse(tiles)), void, melds) == win


def test_waits_of_the_nine_gates():
    assert waits_of(list(parse("1112345678999m")), "p", []) == [f"{r}m" for r in range(1, 10)]
    sets = [_pung("2p"), _pung("3p"), _pung("4s")]
    assert waits_of(list(parse("1112m")), "p", sets) == ["2m", "3m"]
    assert waits_of(list(parse("1111m")), "p", sets) == []   # no wait on a tile it holds all four of


def _pung(tile):
    from simcore.inspection.replayer import Meld
    return Meld("pung", tile)
