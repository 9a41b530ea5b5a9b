"""Reproducing what a user saw (issue 16, items 2, 3 and 6): experiment specs read strategy files
from their own folder and check every arm before playing; an illegal answer's message names a
trace command that replays it, with the run's rules, seats and seed; a run's trace works from any
directory, shows the events up to the illegal answer and why it was illegal, and refuses a
strategy file that changed; the drawn-hand checks show the tiles that decided them."""

from __future__ import annotations

import json
import shlex

import pytest
from click.testing import CliRunner

from simcore.runs import shards as rio
from simcore.cli import main
from tests.support.bots import BOTS, write_bots


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _events(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def _forget_loaded(monkeypatch):
    """Forget the strategies this process loaded by name, as a new process would not know them."""
    monkeypatch.setattr("strategies.registry._USER_CACHE", {})


def _bot(folder, name: str):
    """A bot file under its own name (a name is compiled and cached once per process)."""
    return write_bots(folder / "bots", name)


# -- item 2: experiment specs -----------------------------------------------------------------

def test_a_spec_reads_strategy_files_from_its_own_folder(tmp_path, monkeypatch):
    specs = tmp_path / "specs"
    _bot(specs, "spec_bot")
    (specs / "mine.toml").write_text('kind = "duplicate"\nhands = 8\nfield = "greedy"\n'
                                     '[arms]\nbase = "greedy"\nmine = "bots/spec_bot.py:lowest"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    res = _cli("experiment", "run", specs / "mine.toml", "--out", tmp_path / "exp", "--workers", "1", "-q")
    assert res.exit_code == 0, res.output + res.stderr
    manifest = json.loads((tmp_path / "exp" / "experiment.json").read_text())
    assert manifest["layout"]["mine"]["seat"].startswith(f"{(specs / 'bots' / 'spec_bot.py').resolve()}:lowest+")


@pytest.mark.parametrize("arm", ['"bots/nosuch.py:lowest"', '"greedy+void=nosuch"',
                                 '{ seat = "greedy", rules = "no.toml" }'])
def test_a_bad_arm_is_one_line_before_anything_plays(tmp_path, arm):
    spec = tmp_path / "bad.toml"
    spec.write_text(f'kind = "duplicate"\nhands = 8\nfield = "greedy"\n[arms]\nbase = "greedy"\nbad = {arm}\n')
    res = _cli("experiment", "run", spec, "--out", tmp_path / "exp", "--workers", "1")
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1 and "arms.bad" in res.stderr
    assert not (tmp_path / "exp").exists()


# -- item 3: hints and replays that reproduce ------------------------------------------------

def test_an_illegal_answer_names_a_trace_that_replays_it_from_anywhere(tmp_path, monkeypatch):
    home = tmp_path / "home"
    _bot(home, "hint_bot")
    monkeypatch.chdir(home)
    out = tmp_path / "run"
    res = _cli("simulate", "-q", "--rules", "kawu", "--set", "fan_cap=4", "--seed", "3", "--hands", "200",
               "--seats", "greedy,bots/hint_bot.py:cheater,greedy,greedy", "--out", out, "--workers", "1")
    assert res.exit_code == 2
    msg = res.stderr.strip()
    assert len(msg.splitlines()) == 1 and "discard 9s" in msg
    hand = int(msg.split("in hand ")[1].split(";")[0])
    command = msg.split("reproduce with: ")[1].split(" (or ")[0]
    assert "--rules kawu --set fan_cap=4" in command and f"--seed 3 --hand {hand}" in command
    assert f"{home / 'bots' / 'hint_bot.py'}:cheater" in command, "a user file by its absolute path"
    assert f"(or sichuan trace {out} --hand {hand})" in msg
    manifest = rio.read_manifest(out)
    from strategies.registry import parse_seat

    own = parse_seat("expert").canonical.split("+", 1)[1]   # a user play's omitted policies are expert's
    assert manifest["config"]["seats"][1] == f"bots/hint_bot.py:cheater+{own}"  # as given
    assert manifest["strategy_paths"] == {"bots/hint_bot.py": str(home / "bots" / "hint_bot.py")}

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    _forget_loaded(monkeypatch)
    args = shlex.split(command)
    assert args[:2] == ["sichuan", "trace"]
    alone = _cli(*args[1:])
    of_run = _cli("trace", out, "--hand", hand)
    for res in (alone, of_run):
        assert res.exit_code == 2 and "illegal answer discard 9s" in res.stderr
        events = _events(res.stdout)
        assert [e["event"] for e in events[:2]] == ["start", "deal"] and "end" not in {e["event"] for e in events}
        assert events[-2]["event"] == "draw" and events[-2]["seat"] == 1
        err = events[-1]
        assert (err["event"], err["kind"], err["seat"], err["question"], err["answer"]) == (
            "error", "illegal_answer", 1, "turn", "discard 9s (26)")
        assert err["why"] == "it holds no 9s" and "9s" not in err["tiles"]
    def same(events):  # the same hand; the run names the file as given, the command by its absolute path
        return [{k: v for k, v in e.items() if k != "strategy"} for e in events[1:]]

    assert same(_events(alone.stdout)) == same(_events(of_run.stdout))
    text = _cli("trace", out, "--hand", hand, "--format", "text")
    assert text.stdout.splitlines()[-1].startswith("ILLEGAL   seat 1 (bots/hint_bot.py:cheater")
    assert "it holds no 9s" in text.output


def test_an_illegal_claim_says_what_was_offered(tmp_path):
    bot = _bot(tmp_path, "claim_bot")
    res = _cli("trace", "--seats", f"{bot}:konger", "--seed", "0", "--hand", "0")
    assert res.exit_code == 2 and "kong (3)" in res.stderr
    err = _events(res.stdout)[-1]
    assert err["event"] == "error" and err["question"] == "claim"
    assert err["why"].startswith("kong was not offered (offered: pass") and "kong)" not in err["why"]
    assert "--seats" in res.stderr and f"{bot}:konger" in res.stderr, "the hint names the seats"


def test_a_run_is_traced_from_anywhere_and_refuses_a_changed_strategy(tmp_path, monkeypatch):
    home = tmp_path / "home"
    bot = _bot(home, "run_bot")
    monkeypatch.chdir(home)
    out = tmp_path / "run"
    sim = ["simulate", "-q", "--seats", "bots/run_bot.py:lowest,greedy,greedy,greedy", "--chunk-hands", "100",
           "--out", out, "--workers", "1"]
    assert _cli(*sim, "--hands", "100").exit_code == 0
    here = _cli("trace", out, "--hand", "7")
    assert here.exit_code == 0
    monkeypatch.chdir(tmp_path)
    _forget_loaded(monkeypatch)
    there = _cli("trace", out, "--hand", "7")
    assert there.exit_code == 0, there.stderr
    assert there.output == here.output

    # a run directory from before strategy_paths was recorded still traces and resumes
    manifest_path = out / rio.MANIFEST
    manifest = json.loads(manifest_path.read_text())
    del manifest["strategy_paths"]
    manifest_path.write_text(json.dumps(manifest))
    assert _cli("trace", out, "--hand", "7").output == here.output
    monkeypatch.chdir(home)
    assert _cli(*sim, "--hands", "200").exit_code == 0
    assert rio.read_manifest(out)["strategy_paths"] == {"bots/run_bot.py": str(bot)}

    bot.write_text(BOTS + "\n# edited\n")
    for res in (_cli("trace", out, "--hand", "7"), _cli(*sim, "--hands", "300")):
        assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1
        assert str(bot) in res.stderr and "changed" in res.stderr


# -- item 6: the checks show the tiles that decided them ------------------------------------

def test_checks_show_the_tiles_that_decided_them():
    from simcore.inspection.trace import to_text
    from tests.support.worked_example import A, B, D, worked_example

    hand = worked_example().run()
    checks = {e["seat"]: e for e in hand.events if e["event"] == "check"}
    assert checks[A]["void_tiles"] == ["5s", "7s", "8s"] and "5s" in checks[A]["tiles"]
    assert checks[B]["tiles"] and checks[B]["melds"] == [{"kind": "kong_concealed", "tile": "9p"}]
    assert checks[D]["wait_values"] == {"4s": 4} and len(checks[D]["tiles"]) == 13
    text = {line.split(":")[0]: line for line in to_text(hand.events).splitlines() if line.startswith("check")}
    assert "flower pig, still holds 578s of its void suit" in text[f"check     seat {A}"]
    assert "not ready | 23468p 13579s [kong_concealed 9p]" in text[f"check     seat {B}"]
    assert "ready on 4s (base 4), best 4 | 115577p 2246699s" in text[f"check     seat {D}"]
