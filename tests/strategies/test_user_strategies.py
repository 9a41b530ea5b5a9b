"""Strategies from a user's own file: named as path.py:function, run in simulate and trace,
and an illegal answer stops the run with one clear message and writes nothing for that batch."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from simcore.runs import shards as rio
from simcore.cli import main
from strategies.registry import StrategyError, parse_seat, parse_seats
from tests.support.bots import write_bots
from tests.support.cli import invoke


@pytest.fixture()
def user_file(tmp_path):
    return write_bots(tmp_path, "my_bot")


def test_user_strategy_runs_in_simulate_and_trace(user_file, tmp_path):
    spec = f"{user_file}:lowest,greedy,{user_file}:lowest+exchange={user_file}:pass_suit_zero,efficient"
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["simulate", "-q", "--hands", "300", "--seats", spec, "--out", str(out), "--workers", "1"])
    assert res.exit_code == 0, res.output + res.stderr
    seats = rio.read_manifest(out)["config"]["seats"]
    own = parse_seat("expert").canonical.split("+", 1)[1]   # a user play's omitted policies are expert's
    assert seats[0] == f"{user_file}:lowest+{own}"
    assert seats[2] == f"{user_file}:lowest+exchange={user_file}:pass_suit_zero+{own.split('+')[1]}"
    res = CliRunner().invoke(main, ["trace", "--seats", spec, "--seed", "0", "--hand", "17"])
    assert res.exit_code == 0, res.stderr
    events = [json.loads(x) for x in res.output.splitlines()]
    assert events[0]["strategies"] == seats and events[-1]["event"] == "end"
    res = CliRunner().invoke(main, ["trace", str(out), "--hand", "17"])
    assert [json.loads(x) for x in res.output.splitlines()] == events


def test_an_illegal_answer_stops_the_run_with_one_clear_message(user_file, tmp_path):
    out = tmp_path / "run"
    spec = f"greedy,{user_file}:cheater,greedy,greedy"
    res = CliRunner().invoke(main, ["simulate", "-q", "--hands", "400", "--chunk-hands", "200", "--seats", spec,
                                    "--out", str(out), "--workers", "1"])
    assert res.exit_code == 2
    msg = res.stderr.strip()
    assert len(msg.splitlines()) == 1
    assert f"{user_file}:cheater" in msg and "seat 1" in msg and "turn question" in msg and "discard 9s" in msg
    hand = int(msg.split("in hand ")[1].split(";")[0])
    assert f"sichuan trace {out.resolve()} --hand {hand}" in msg
    assert rio.complete_chunks(out) == set(), "nothing is written for the failing batch"
    res = CliRunner().invoke(main, ["trace", str(out), "--hand", str(hand)])
    assert res.exit_code == 2 and "illegal answer" in res.stderr


@pytest.mark.parametrize("spec, needle", [
    ("nosuch", "unknown play strategy"),
    ("greedy+exchange=nosuch", "unknown exchange strategy"),
    ("greedy+void=shortest", "unknown void strategy"),
    ("greedy+colour=red", "unknown part"),
    ("greedy+void=fewest+void=random", "given twice"),
    ("missing_file.py:f", "does not exist"),
])
def test_bad_seat_specs_are_one_line_errors(spec, needle):
    with pytest.raises(StrategyError, match=needle):
        from strategies.registry import seat_functions
        seat_functions(parse_seats(spec))


def test_a_user_file_without_the_function_or_with_a_bad_signature(tmp_path):
    from strategies.registry import seat_functions

    path = tmp_path / "bad.py"
    path.write_text("import numba as nb\n@nb.njit\ndef f(q, view):\n    return 1\nx = 3\n")
    with pytest.raises(StrategyError, match="has no function 'g'"):
        seat_functions(parse_seats(f"{path}:g"))
    with pytest.raises(StrategyError, match="must return an int64|does not compile"):
        seat_functions(parse_seats(f"{path}:f"))
    broken = tmp_path / "broken.py"
    broken.write_text("this is not python\n")
    with pytest.raises(StrategyError, match="failed to import"):
        seat_functions(parse_seats(f"{broken}:f"))


def test_canonical_specs():
    assert parse_seat("efficient").canonical == "efficient+exchange=shortest+void=fewest"
    assert parse_seat("greedy+void=weakest").canonical == "greedy+exchange=shortest+void=weakest"
    assert [s.canonical for s in parse_seats("greedy")] == ["greedy+exchange=shortest+void=fewest"] * 4
    default = parse_seats(None)[0]
    assert (default.play, default.exchange, default.void) == ("expert", "expert", "expert")
    # a play's own policies fill only what a spec leaves out
    assert parse_seat("expert+exchange=shortest").canonical.split("+")[1:] == [
        "exchange=shortest", parse_seat("expert").canonical.split("+")[2]]


def test_a_strategy_that_does_not_compile_shows_numbas_cause_with_file_and_line(tmp_path):
    """Not only "Failed in nopython mode pipeline": what numba could not type, and where."""
    path = tmp_path / "dict_bot.py"
    path.write_text("import numba as nb\n\n@nb.njit\ndef f(q, view, tab):\n    d = {}\n    d[1] = 'x'\n"
                    "    d[2] = 3\n    return q\n")
    res = invoke("simulate", "-q", "--hands", 10, "--seats", f"{path}:f", "--out", tmp_path / "run")
    assert res.exit_code == 2 and res.stderr.count("\n") == 1, res.stderr
    msg = res.stderr
    assert "Failed in nopython" not in msg and "setitem" in msg, msg
    assert f"{path}, line 7: d[2] = 3" in msg, msg
