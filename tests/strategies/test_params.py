"""Strategy parameters: declared with defaults and ranges, given in seat specs (commas inside
brackets do not separate seats), read by the strategy from its view, canonical in outputs, and
bad values refused in one line naming the strategy and the parameter."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from simcore.runs import analysis
from simcore.cli import main
from strategies.registry import StrategyError, parse_seat, parse_seats

VOID_FILE = textwrap.dedent('''
    import numba as nb
    from strategies.api import STRATEGY_SIG, Param, parameters, param_float, param_int

    @parameters(Param.int("suit", 1, 0, 2, "the suit to void"),
                Param.float("lean", 0.25, 0.0, 1.0, "above one half, void s instead"),
                Param.choice("mode", "plain", ("plain", "fancy"), "fancy voids m"), scratch=0)
    @nb.njit(STRATEGY_SIG, cache=True)
    def pick(q, view, tab):
        if param_int(view, 2) == 1:
            return 0
        if param_float(view, 1) > 0.5:
            return 2
        return param_int(view, 0)
''')


@pytest.fixture()
def strat(tmp_path):
    path = tmp_path / "voids.py"
    path.write_text(VOID_FILE)
    return str(path)


def _voids(tmp_path, seats):
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["simulate", "--hands", "40", "--seats", seats, "--out", str(out), "-q",
                                    "--workers", "1"])
    assert res.exit_code == 0, res.output
    s = analysis.load(out).seats
    return [sorted(set(s.loc[s["seat"] == k, "void_suit"].astype(str))) for k in range(4)]


def test_values_reach_the_strategy_in_its_view(tmp_path, strat):
    seats = (f"greedy+void={strat}:pick,greedy+void={strat}:pick[suit=0],"
             f"greedy+void={strat}:pick[lean=0.75,suit=0],greedy+void={strat}:pick[mode=fancy,suit=2]")
    assert _voids(tmp_path, seats) == [["p"], ["m"], ["s"], ["m"]]


def test_canonical_form_lists_every_parameter_in_declaration_order(strat):
    seat = parse_seat(f"greedy+void={strat}:pick[mode=fancy,lean=.5]")
    assert seat.canonical.endswith(f"+void={strat}:pick[suit=1,lean=0.5,mode=fancy]")
    assert parse_seat(seat.canonical).canonical == seat.canonical  # a fixed point
    four = parse_seats(f"greedy+void={strat}:pick[suit=0,lean=0.1],greedy,greedy,greedy")
    assert len(four) == 4 and four[0].void_values == (("suit", 0), ("lean", 0.1), ("mode", "plain"))


@pytest.mark.parametrize("given,needle", [
    ("pick[nope=1]", "has no parameter 'nope' (its parameters: suit, lean, mode)"),
    ("pick[suit=3]", "parameter suit: 3 is outside 0 to 2"),
    ("pick[suit=1.5]", "parameter suit: '1.5' is not an integer"),
    ("pick[lean=x]", "parameter lean: 'x' is not a number"),
    ("pick[lean=nan]", "parameter lean: 'nan' is not a finite number"),
    ("pick[mode=odd]", "parameter mode: 'odd' is not one of plain, fancy"),
    ("pick[suit=1,suit=2]", "parameter suit given twice"),
    ("pick[suit]", "should be key=value"),
    ("pick[suit=1", "a '[' without its ']'"),
])
def test_bad_parameters_are_one_line_errors(strat, given, needle):
    with pytest.raises(StrategyError, match=None) as err:
        parse_seat(f"greedy+void={strat}:{given}")
    assert needle in str(err.value) and "\n" not in str(err.value)
    res = CliRunner().invoke(main, ["simulate", "--hands", "10", "--seats", f"greedy+void={strat}:{given}",
                                    "--out", "/tmp/never-written", "-q"])
    assert res.exit_code == 2 and needle in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_a_strategy_without_parameters_takes_none(strat):
    with pytest.raises(StrategyError, match="'greedy' has no parameter 'x' \\(its parameters: none\\)"):
        parse_seat("greedy[x=1]")


def test_close_names_are_suggested():
    with pytest.raises(StrategyError, match="did you mean 'efficient'"):
        parse_seat("eficient")


HELPER = "import numba as nb\nSUIT = {suit}\n\n@nb.njit(cache=True)\ndef suit():\n    return SUIT\n"
USES_HELPER = textwrap.dedent('''
    import numba as nb
    import voidlib
    from strategies.api import STRATEGY_SIG

    @nb.njit(STRATEGY_SIG, cache=True)
    def pick(q, view, tab):
        return voidlib.suit()
''')


@pytest.mark.slow
def test_a_strategy_file_imports_its_siblings_and_their_edits_count(tmp_path):
    """The file's folder is on sys.path in every process (two workers here); an edit to the
    sibling changes the compiled code (no stale cache) and the run's record, so resuming the old
    run with the edited file is refused."""
    import os
    import subprocess
    import sys

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "voidlib.py").write_text(HELPER.format(suit=2))
    (folder / "strat.py").write_text(USES_HELPER)
    spec = f"greedy+void={folder / 'strat.py'}:pick"
    exe = [sys.executable, "-m", "simcore.cli"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    def simulate(out):
        return subprocess.run(exe + ["simulate", "--hands", "400", "--chunk-hands", "100", "--workers", "2", "-q",
                                     "--seats", spec, "--out", str(out)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)

    first = simulate(tmp_path / "a")
    assert first.returncode == 0, first.stderr
    assert set(analysis.load(tmp_path / "a").seats["void_suit"].astype(str)) == {"s"}
    (folder / "voidlib.py").write_text(HELPER.format(suit=0))
    second = simulate(tmp_path / "b")
    assert second.returncode == 0, second.stderr
    assert set(analysis.load(tmp_path / "b").seats["void_suit"].astype(str)) == {"m"}
    again = simulate(tmp_path / "a")
    assert again.returncode == 2 and "voidlib.py, which strategy file" in again.stderr and "changed since the run" in again.stderr
