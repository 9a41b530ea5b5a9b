"""The per-seat draw order (issue 36, item 1; RULES.md: Rulings where the documents are silent, draw order): the engine takes the
positions the ruling gives (checked by the replayer, which works them out on its own), keeps
every invariant, plays the same game (its statistics and its draws' distribution), and a run
records the order it drew in."""

import json
from dataclasses import replace

import numpy as np
import pytest

from simcore.contract import records as rec
from simcore.contract.rules import PRESETS, preset
from simcore.contract.tiles import tile_index
from tests.support import engine_internals as E
from simcore.engine import RunOptions
from simcore.inspection.replayer import ReplayError, replay_events
from simcore.inspection.run_hands import independent_hands
from simcore.runs.analysis import chi2_sf
from simcore.runs.batch import run_batch
from strategies.registry import parse_seats, seat_functions
from tests.support.cli import invoke, run_cli
from tests.support.worked_example import worked_example


def _traces(rules, spec: str, hands, order: str):
    return [h.trace() for h in independent_hands(rules, parse_seats(spec), 5, hands, RunOptions(order))]


@pytest.mark.parametrize("name", PRESETS)
def test_every_draw_takes_the_position_the_ruling_gives(name):
    """The replayer works out each draw's position from the ruling's words and checks the trace's
    pos and tile against it; claims and kongs (expert makes them) move draws between seats."""
    claimed = 0
    for t in _traces(preset(name), "expert", range(12), "seat"):
        events = t.events
        assert events[0]["draw_order"] == "seat"
        replay_events(events)   # raises on any position, tile or tiles-left that disagrees
        claimed += sum(e["event"] in ("pung", "kong") for e in events)
        dealer = events[0]["dealer"]
        own = [e for e in events if e["event"] == "draw"]
        # a seat draws its own positions (53 + k, k = seat - dealer - 1 mod 4) until they run out
        for e in own[:20]:
            assert (e["pos"] - E.DEAL_END) % 4 == (e["seat"] - dealer - 1) % 4, e
    assert claimed > 0


def test_a_draw_at_another_position_is_refused_by_the_replayer():
    events = [dict(e) for e in _traces(preset("battle"), "greedy", [3], "seat")[0].events]
    i = next(i for i, e in enumerate(events) if e["event"] == "draw")
    events[i]["pos"] += 4
    with pytest.raises(ReplayError, match="draw order gives wall position"):
        replay_events(events)


def test_a_seat_out_of_own_positions_takes_the_highest_undrawn_one():
    """Blood flow runs the wall out; a seat that drew more than its share (its claims' turns
    returned to it, its kong replacements) ends drawing from the top of what is left."""
    fallbacks = 0
    for t in _traces(preset("flow"), "expert", range(40), "seat"):
        dealer, left = t.events[0]["dealer"], set(range(E.DEAL_END, E.N_TILES))
        for e in (e for e in t.events if e["event"] == "draw"):
            own = [p for p in left if (p - E.DEAL_END) % 4 == (e["seat"] - dealer - 1) % 4]
            assert e["pos"] == (min(own) if own else max(left)), e
            fallbacks += not own
            left.remove(e["pos"])
    assert fallbacks > 0


@pytest.mark.parametrize("name", PRESETS)
def test_seat_order_keeps_every_invariant(name):
    """check=True: 108 tiles accounted for after every step (the undrawn positions counted), zero
    sums, hints; the views' tiles-left equal to the positions not drawn."""
    res = run_batch(preset(name), seat_functions(parse_seats("expert")), 1, 0, 300, check=True, draw_order="seat")
    assert (res.seat[:, :, rec.S_NET].sum(axis=1) == 0).all()


def test_table_order_is_todays_wall():
    """The default plays every hand as before (tests/engine/test_fingerprints.py checks whole runs)."""
    fns = seat_functions(parse_seats("greedy"))
    a = run_batch(preset("battle"), fns, 2, 0, 500)
    b = run_batch(preset("battle"), fns, 2, 0, 500, draw_order="table")
    assert (a.hand == b.hand).all() and (a.seat == b.seat).all()


def test_the_worked_example_settles_the_same_in_seat_order():
    table = worked_example().run()
    seat = replace(worked_example(), draw_order="seat").run()
    assert seat.net == table.net == [-53, 7, 31, 15]
    assert [e["tile"] for e in seat.events if e["event"] == "draw"] == \
        [e["tile"] for e in table.events if e["event"] == "draw"]
    replay_events(seat.events)


def test_the_same_game_in_distribution():
    """Tens of thousands of hands of each order on the same seeds: the summary figures agree within
    4 unpaired standard errors, and the tile drawn at each of the first draws is uniform over the
    kinds in both (chi-square). ``make bench`` runs the 1M-hand version (BENCHMARKS.md)."""
    fns = seat_functions(parse_seats("greedy"))
    for name in ("battle", "flow"):
        runs = {o: run_batch(preset(name), fns, 11, 0, 20_000, draw_order=o) for o in ("table", "seat")}
        figures = {o: {f"net {s}": r.seat[:, s, rec.S_NET] for s in range(4)} | {
            "turns": r.hand[:, rec.H_TURNS], "winners": r.hand[:, rec.H_WINNERS],
            "won": (r.seat[:, :, rec.S_WINS] > 0).mean(axis=1), "fan": r.seat[:, :, rec.S_FAN].clip(0).mean(axis=1),
            "pig": (r.seat[:, :, rec.S_PIG] == 1).mean(axis=1)} for o, r in runs.items()}
        for key in figures["table"]:
            a, b = (figures[o][key].astype(float) for o in ("table", "seat"))
            se = np.sqrt(a.var() / len(a) + b.var() / len(b))
            assert abs(a.mean() - b.mean()) <= 4 * se, (name, key, a.mean(), b.mean(), se)


def test_the_tile_at_each_draw_index_is_uniform_in_seat_order():
    """Each of a hand's first draws is uniform over the 27 kinds (the wall is exchangeable and the
    position comes from the history alone): chi-square per draw index over traced hands."""
    counts = np.zeros((8, 27), np.int64)
    for t in _traces(preset("battle"), "greedy", range(1500), "seat"):
        draws = [e for e in t.events if e["event"] == "draw"]
        for i, e in enumerate(draws[:8]):
            counts[i, tile_index(e["tile"])] += 1
    for i in range(8):
        expected = counts[i].sum() / 27
        x = float(((counts[i] - expected) ** 2 / expected).sum())
        assert chi2_sf(x, 26) > 1e-4, (i, x)


def test_a_run_records_its_draw_order_and_a_resume_must_match(tmp_path):
    out = tmp_path / "r"
    run_cli("simulate", "--hands", 300, "--seats", "greedy", "--draw-order", "seat", "--out", out, "-q")
    assert json.loads((out / "run.json").read_text())["config"]["draw_order"] == "seat"
    bad = invoke("simulate", "--hands", 600, "--seats", "greedy", "--out", out, "-q")
    assert bad.exit_code == 2 and "another draw order (seat there, table now)" in bad.stderr
    run_cli("simulate", "--hands", 600, "--seats", "greedy", "--draw-order", "seat", "--out", out, "-q")
    # a trace of the run replays its hands in its order, equal to its rows
    text = run_cli("trace", out, "--hand", 450, "--format", "text").stdout
    assert "draw order seat" in text.splitlines()[0]
    lines = run_cli("trace", out, "--hand", 450).stdout.splitlines()
    assert json.loads(lines[0])["draw_order"] == "seat"


def test_runs_written_before_draw_orders_read_as_table(tmp_path):
    import shutil
    from pathlib import Path

    old = tmp_path / "v1"
    shutil.copytree(Path(__file__).resolve().parents[1] / "data" / "v1-run", old)
    assert "draw_order" not in json.loads((old / "run.json").read_text())["config"]
    lines = run_cli("trace", old, "--hand", 3).stdout.splitlines()
    assert json.loads(lines[0])["draw_order"] == "table"
    bad = invoke("simulate", "--rules", "kawu", "--chunk-hands", 1000, "--seats", "greedy", "--seed", 3,
                 "--hands", 2000, "--draw-order", "seat", "--out", old)
    assert bad.exit_code == 2 and "another draw order (table there, seat now)" in bad.stderr
