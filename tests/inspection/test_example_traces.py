"""The two shared example hands (shared/examples/), written by an independent script, replayed
through our engine: the same wall, exchange direction and decisions (scripted from the trace)
must give exactly the same events, payments, checks and nets."""

import json
from pathlib import Path

import pytest

from simcore.contract.rules import RuleSet, resolve
from simcore.inspection.scenario import passive, script_array
from simcore.contract.tiles import parse_tiles, suit_index
from simcore.inspection.trace import trace_hand
from simcore.contract.view import A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID, pack3
from strategies.exchange import shortest
from strategies.void import fewest

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"  # copies of shared/examples


def _t(text):
    return parse_tiles(text)[0]


def decisions(events):
    """Each seat's decisions, in the order the engine will ask them."""
    script = {s: [] for s in range(4)}
    last_kong_added = None
    for e in events:
        k = e["event"]
        if k == "exchange":
            for s, tiles in enumerate(e["passed"]):
                a, b, c = (_t(x) for x in tiles)
                script[s].append((Q_EXCHANGE, -1, int(pack3(a, b, c))))
        elif k == "void":
            for s, suit in enumerate(e["suits"]):
                script[s].append((Q_VOID, -1, suit_index(suit)))
        elif k == "discard":
            script[e["seat"]].append((Q_TURN, -1, _t(e["tile"])))
            last_kong_added = None
        elif k == "kong":
            if e["kind"] == "exposed":
                script[e["seat"]].append((Q_CLAIM, _t(e["tile"]), C_KONG))
            else:
                script[e["seat"]].append((Q_TURN, -1, A_KONG + _t(e["tile"])))
            last_kong_added = e["tile"] if e["kind"] == "added" else None
        elif k == "pung":
            script[e["seat"]].append((Q_CLAIM, _t(e["tile"]), C_PUNG))
        elif k == "pass_win" and e["chose"] == "pass":
            q = Q_ROB if last_kong_added == e["tile"] else Q_CLAIM
            script[e["seat"]].append((q, _t(e["tile"]), C_PASS))
        elif k == "win":
            if e["kind"] in ("self_draw", "kong_replacement"):
                script[e["seat"]].append((Q_TURN, -1, A_WIN))
            elif e["kind"] == "discard":
                script[e["seat"]].append((Q_CLAIM, _t(e["tile"]), C_WIN))
            else:
                script[e["seat"]].append((Q_ROB, _t(e["tile"]), C_WIN))
        elif k == "draw":
            last_kong_added = None
    return script


def replay(path):
    events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    start = events[0]
    rules = resolve(start["rules"], dict(start["options"]))
    wall = [_t(x) for x in events[1]["wall"]]
    direction = next((e["direction"] for e in events if e["event"] == "exchange"), 0)
    fns = (passive,) * 4 + (shortest,) * 4 + (fewest,) * 4
    ours = trace_hand(rules, fns, start["strategies"], start["seed"], start["hand"], dealer=start["dealer"],
                      scores=start["scores"], match=start["match"], hand_in_match=start["hand_in_match"],
                      fixed_wall=wall, fixed_dir=direction, script=script_array(decisions(events)))
    return events, ours


CHECK_EXTRAS = {"tiles", "melds", "void_tiles", "wait_values"}  # the check fields docs/TRACE.md adds


@pytest.mark.parametrize("name", ["battle-hand.jsonl", "flow-hand.jsonl"])
def test_example_hand_replays_event_for_event(name):
    expected, ours = replay(EXAMPLES / name)
    front, back = 53, 107   # the examples draw in table order (the deal event of TRACE.md)
    for i, (a, b) in enumerate(zip(expected, ours.events)):
        if a["event"] == "draw" and "pos" not in a:   # pos came with draw orders: where the table order draws
            b = dict(b)
            assert b.pop("pos") == (back if a["replacement"] else front)
            back, front = (back - 1, front) if a["replacement"] else (back, front + 1)
        if a["event"] == "check":   # TRACE.md's fields exactly, plus the documented extras
            assert set(b) == set(a) | CHECK_EXTRAS
            assert set(b["wait_values"]) == set(a["waits"])
            assert max(b["wait_values"].values(), default=0) == a["best_base"]
            assert bool(b["void_tiles"]) == a["pig"]
            b = {k: v for k, v in b.items() if k in a}
        if a["event"] == "pass_win":  # the fan field came with the tfmj options (TRACE.md); examples lack it
            assert "fan" not in a and isinstance(b.pop("fan"), int)
        if a["event"] == "start":     # options added since the examples were written: at their defaults
            b = dict(b)
            assert b.pop("draw_order") == a.get("draw_order", "table")
            new = {k: v for k, v in b["options"].items() if k not in a["options"]}
            assert new == {k: v for k, v in RuleSet().options().items() if k in new}
            b = dict(b, options={k: v for k, v in b["options"].items() if k in a["options"]})
        assert a == b, f"event {i} differs:\n expected {a}\n ours     {b}"
    assert len(ours.events) == len(expected)
