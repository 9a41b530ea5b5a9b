"""Rule sets, presets, overrides and `sichuan rules` (RULES.md: Options and presets).

The expected values are read from RULES.md's tables, not from simcore/contract/rules.py.
"""

import json
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from simcore.contract import rules as R
from simcore.cli import main
from simcore.contract.rules import RuleError, RuleSet

ROOT = Path(__file__).resolve().parents[2]
PRESET_COLUMNS = ("battle", "flow", "chengdu", "kawu", "tfmj")


def _md_table(heading: str) -> list[list[str]]:
    """The body rows of the first table under RULES.md's ``heading``, as lists of cells."""
    section = (ROOT / "docs" / "RULES.md").read_text().split(f"\n{heading}", 1)[1]
    rows = []
    for line in section.splitlines()[1:]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[2:]   # under the header and its rule


def _value(cell: str):
    """A table cell as the option's value: true/false, an integer (``1 each`` is 1), else the text."""
    word = cell.split()[0]
    if word in ("true", "false"):
        return word == "true"
    return int(word) if word.isdigit() else word


def _rules_md_table() -> dict[str, tuple]:
    """RULES.md: Options and presets, in the document's order: option -> its value in each preset
    (PRESET_COLUMNS); the fan options' values from its "Fan patterns" table, where battle, flow
    and kawu share one column."""
    out, fan_options = {}, []
    for option, _type, _meaning, *values in _md_table("## Options and presets"):
        names = re.findall(r"`(\w+)`", option)
        if len(names) == 1:
            out[names[0]] = tuple(_value(v) for v in values)
        else:
            fan_options = names    # the fan options' row: their values are in the table below
    fans = {f"fan_{row[0]}": row[2:] for row in _md_table("### Fan patterns")}
    for name in fan_options:
        shared, chengdu, tfmj = fans[name]
        out[name] = tuple(_value(v) for v in (shared, shared, chengdu, shared, tfmj))
    return out


RULES_MD_TABLE = _rules_md_table()
RULES_MD_OPTION_NAMES = list(RULES_MD_TABLE)


def expected(preset_name):
    col = PRESET_COLUMNS.index(preset_name)
    return {name: values[col] for name, values in RULES_MD_TABLE.items()}


def same_typed(a, b):
    """Equal values of the same type (True must not pass for 1)."""
    return a.keys() == b.keys() and all(type(a[k]) is type(b[k]) and a[k] == b[k] for k in a)


# -- presets and option names ---------------------------------------------------------------

def test_presets_are_the_four_documents_and_tfmj():
    assert tuple(R.PRESETS) == PRESET_COLUMNS
    assert R.DEFAULT_PRESET == "battle"


@pytest.mark.parametrize("name", PRESET_COLUMNS)
def test_preset_values_match_rules_md(name):
    rules = R.preset(name)
    assert rules.preset == name
    options = rules.options()
    assert list(options) == list(RULES_MD_TABLE)
    assert same_typed(options, expected(name)), {
        k: (options[k], expected(name)[k]) for k in options if options[k] != expected(name)[k]
    }


def test_default_ruleset_is_battle():
    assert same_typed(RuleSet().options(), expected("battle"))
    assert R.resolve().options() == expected("battle")
    assert R.resolve(None).preset == "battle"


def test_option_names_are_exactly_rules_md_list():
    assert list(R.OPTION_NAMES) == RULES_MD_OPTION_NAMES
    assert list(RULES_MD_TABLE) == RULES_MD_OPTION_NAMES
    assert list(RuleSet().options()) == RULES_MD_OPTION_NAMES
    # RuleSet holds the options plus the preset it started from, nothing else
    import dataclasses

    assert [f.name for f in dataclasses.fields(RuleSet)] == RULES_MD_OPTION_NAMES + ["preset"]


@pytest.mark.parametrize("name", ["fan_basic", "fan_heavenly", "fan_earthly", "fan_eighteen_arhats", "preset", "base"])
def test_no_extra_options(name):
    assert name not in R.OPTION_NAMES
    with pytest.raises(RuleError, match="unknown option"):
        R.parse_sets([f"{name}=1"])


def test_fan_options_are_the_ten_patterns():
    assert R.FAN_OPTIONS == (
        "fan_all_triplets", "fan_seven_pairs", "fan_full_flush", "fan_four_declared",
        "fan_root", "fan_kong_replacement", "fan_robbing_kong", "fan_last_tile", "fan_kong_discard", "fan_self_draw",
    )


def test_kawu_fans_are_battle_fans():
    kawu, battle = R.preset("kawu"), R.preset("battle")
    assert all(getattr(kawu, f) == getattr(battle, f) for f in R.FAN_OPTIONS)


def test_unknown_preset():
    with pytest.raises(RuleError, match=r"unknown preset 'blood'.*battle, flow, chengdu, kawu"):
        R.preset("blood")
    with pytest.raises(RuleError, match=r"unknown preset 'Battle'"):
        R.resolve("Battle")


def test_ruleset_is_immutable():
    rules = R.preset("battle")
    with pytest.raises(Exception):
        rules.fan_cap = 5  # type: ignore[misc]


# -- overrides ----------------------------------------------------------------------------

def test_set_overrides_are_typed():
    sets = R.parse_sets(["fan_cap=5", "exchange=false", "pig_penalty=cap", "pig_pays=remaining",
                         "variant=flow", "start_points=-20"])
    assert sets == {"fan_cap": 5, "exchange": False, "pig_penalty": "cap", "pig_pays": "remaining",
                    "variant": "flow", "start_points": -20}
    assert type(sets["fan_cap"]) is int and type(sets["exchange"]) is bool


@pytest.mark.parametrize("text, value", [("true", True), ("false", False), ("True", True), ("FALSE", False)])
def test_bool_spellings(text, value):
    assert R.resolve("battle", [f"exchange={text}"]).exchange is value


def test_resolve_with_sets_keeps_the_preset_and_changes_only_named_options():
    rules = R.resolve("kawu", ["fan_cap=6", "exchange=true"])
    assert rules.preset == "kawu"
    want = expected("kawu") | {"fan_cap": 6, "exchange": True}
    assert same_typed(rules.options(), want)


def test_resolve_accepts_a_dict_of_typed_overrides():
    rules = R.resolve("flow", {"pig_penalty": "cap", "fan_cap": 3})
    assert rules.variant == "flow" and rules.pig_penalty == "cap" and rules.pig_penalty_points == 8


def test_later_set_wins():
    assert R.resolve(None, ["fan_cap=5", "fan_cap=7"]).fan_cap == 7


def test_replace_validates():
    assert R.preset("battle").replace(fan_cap=8).fan_cap == 8
    with pytest.raises(RuleError, match="fan_cap"):
        R.preset("battle").replace(fan_cap=0)


# -- validation messages name the option and what is allowed ---------------------------------

@pytest.mark.parametrize(
    "item, pattern",
    [
        ("fan_basic=1", r"unknown option 'fan_basic'"),
        ("exchange=maybe", r"option exchange: 'maybe' is not allowed; expected true or false"),
        ("fan_cap=9", r"option fan_cap: 9 is not allowed; expected an integer from 1 to 8"),
        ("fan_cap=0", r"option fan_cap: 0 is not allowed; expected an integer from 1 to 8"),
        ("fan_cap=five", r"option fan_cap: 'five' is not allowed; expected an integer from 1 to 8"),
        ("fan_cap=4.5", r"option fan_cap: .* expected an integer"),
        ("variant=chengdu", r"option variant: 'chengdu' is not allowed; expected battle or flow"),
        ("pig_pays=everyone", r"option pig_pays: .*expected non_pigs or remaining or winners_and_ready"),
        ("kong_discard_liability=yes", r"option kong_discard_liability: .*expected none or pays_for_all"),
        ("pig_penalty=max", r"option pig_penalty: 'max' is not allowed; expected an integer .* or cap"),
        ("self_draw_bonus=-1", r"option self_draw_bonus: -1 is not allowed; expected an integer from 0"),
        ("fan_root=9", r"option fan_root: 9 is not allowed"),
        ("hands_per_match=0", r"option hands_per_match: 0 is not allowed"),
        ("fan_cap", r"expected key=value"),
    ],
)
def test_bad_sets_raise_rule_errors_naming_option_and_allowed(item, pattern):
    with pytest.raises(RuleError, match=pattern) as info:
        R.resolve("battle", [item])
    assert isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


def test_pig_penalty_cap_is_accepted():
    rules = R.resolve("battle", ["pig_penalty=cap"])
    assert rules.pig_penalty == "cap"
    assert rules.pig_penalty_points == 2**4


@pytest.mark.parametrize("value", [True, 1.0, "16", None])
def test_typed_overrides_reject_wrong_types(value):
    with pytest.raises(RuleError, match="option pig_penalty"):
        R.apply_overrides(R.preset("battle"), {"pig_penalty": value})


def test_bool_options_reject_ints():
    with pytest.raises(RuleError, match="option exchange: 1 is not allowed; expected true or false"):
        R.apply_overrides(R.preset("battle"), {"exchange": 1})


# -- pig_penalty_points --------------------------------------------------------------------

@pytest.mark.parametrize("fan_cap", range(1, 9))
def test_pig_penalty_cap_is_two_to_the_fan_cap(fan_cap):
    rules = R.resolve("chengdu", [f"fan_cap={fan_cap}"])
    assert rules.pig_penalty == "cap"
    assert rules.pig_penalty_points == 2**fan_cap


@pytest.mark.parametrize("name, points", [("battle", 16), ("flow", 16), ("chengdu", 64), ("kawu", 32)])
def test_pig_penalty_points_per_preset(name, points):
    assert R.preset(name).pig_penalty_points == points


# -- numeric array for the kernels ----------------------------------------------------------

def test_r_constants_are_a_dense_layout():
    names = [n for n in dir(R) if n.startswith("R_")]
    indices = sorted(getattr(R, n) for n in names)
    assert indices == list(range(R.N_RULE_FIELDS))
    assert R.N_RULE_FIELDS == len(R.OPTION_NAMES)


@pytest.mark.parametrize("name", PRESET_COLUMNS)
def test_to_array_layout(name):
    rules = R.preset(name)
    a = rules.to_array()
    assert a.dtype == np.int64 and a.shape == (R.N_RULE_FIELDS,)
    opts = rules.options()
    assert a[R.R_FLOW] == (opts["variant"] == "flow")
    assert a[R.R_PIG_PENALTY] == rules.pig_penalty_points
    assert a[R.R_PIG_PAYS] == R.PIG_PAYS.index(opts["pig_pays"])
    assert a[R.R_KONG_DISCARD_LIABILITY] == R.KONG_DISCARD_LIABILITY.index(opts["kong_discard_liability"])
    assert a[R.R_EXPOSED_KONG_BLOOM] == R.EXPOSED_KONG_BLOOM.index(opts["exposed_kong_bloom"])
    # every other option sits at R_<OPTION NAME> as its integer value
    for option in R.OPTION_NAMES:
        const = "R_" + option.upper()
        if option in ("variant", "pig_penalty", "pig_pays", "kong_discard_liability", "exposed_kong_bloom"):
            continue
        assert hasattr(R, const), const
        assert a[getattr(R, const)] == int(opts[option]), option


def test_to_array_code_constants():
    assert R.PIG_PAYS[R.PIG_PAYS_NON_PIGS] == "non_pigs"
    assert R.PIG_PAYS[R.PIG_PAYS_REMAINING] == "remaining"
    assert R.PIG_PAYS[R.PIG_PAYS_WINNERS_AND_READY] == "winners_and_ready"
    assert R.preset("kawu").to_array()[R.R_PIG_PAYS] == R.PIG_PAYS_REMAINING
    assert R.preset("chengdu").to_array()[R.R_PIG_PAYS] == R.PIG_PAYS_WINNERS_AND_READY
    assert R.preset("chengdu").to_array()[R.R_KONG_DISCARD_LIABILITY] == R.KONG_LIABILITY_PAYS_FOR_ALL == 1
    assert R.preset("tfmj").to_array()[R.R_KONG_DISCARD_LIABILITY] == R.KONG_LIABILITY_TRANSFER
    assert R.preset("flow").to_array()[R.R_FLOW] == 1
    assert R.preset("battle").to_array()[R.R_FLOW] == 0


def test_to_array_follows_overrides():
    a = R.resolve("battle", ["fan_cap=6", "pig_penalty=cap", "exchange=false"]).to_array()
    assert a[R.R_FAN_CAP] == 6 and a[R.R_PIG_PENALTY] == 64 and a[R.R_EXCHANGE] == 0


# -- TOML --------------------------------------------------------------------------------

def write(tmp_path, text, name="rules.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_toml_base_plus_options(tmp_path):
    path = write(tmp_path, 'base = "kawu"\nfan_cap = 6\nexchange = true\npig_penalty = "cap"\n')
    rules = R.resolve(path)
    assert rules.preset == "kawu"
    want = expected("kawu") | {"fan_cap": 6, "exchange": True, "pig_penalty": "cap"}
    assert same_typed(rules.options(), want)
    assert rules.pig_penalty_points == 64


def test_toml_without_base_starts_from_battle(tmp_path):
    rules = R.resolve(write(tmp_path, "fan_cap = 5\n"))
    assert rules.preset == "battle"
    assert rules.options() == expected("battle") | {"fan_cap": 5}


def test_toml_then_sets(tmp_path):
    rules = R.resolve(write(tmp_path, 'base = "flow"\nfan_cap = 5\n'), ["fan_cap=3"])
    assert rules.variant == "flow" and rules.fan_cap == 3


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("fan_basic = 1\n", r"unknown option 'fan_basic'"),
        ("fan_cap = 9\n", r"option fan_cap: 9 is not allowed; expected an integer from 1 to 8"),
        ('exchange = "maybe"\n', r"option exchange: 'maybe' is not allowed; expected true or false"),
        ('fan_cap = "5"\n', r"option fan_cap: '5' is not allowed"),
        ('base = "nope"\n', r"unknown preset 'nope'"),
        ("base = 3\n", r"base must be a preset name"),
        ("fan_cap = \n", r"is not valid TOML"),
        ("[rules]\nfan_cap = 5\n", r"unknown option 'rules'"),
    ],
)
def test_bad_toml(tmp_path, text, pattern):
    with pytest.raises(RuleError, match=pattern) as info:
        R.resolve(write(tmp_path, text))
    assert "\n" not in str(info.value)


def test_missing_toml(tmp_path):
    with pytest.raises(RuleError, match=r"rule file .*missing.toml.* does not exist"):
        R.resolve(str(tmp_path / "missing.toml"))


def test_unreadable_toml_path_is_a_rule_error(tmp_path):
    (tmp_path / "dir.toml").mkdir()
    with pytest.raises(RuleError, match="cannot be read"):
        R.resolve(str(tmp_path / "dir.toml"))


def test_non_utf8_toml_is_a_rule_error(tmp_path):
    path = tmp_path / "bin.toml"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RuleError, match="not valid TOML"):
        R.resolve(str(path))


@pytest.mark.parametrize("name", PRESET_COLUMNS)
def test_to_toml_round_trips(tmp_path, name):
    rules = R.preset(name)
    text = R.to_toml(rules)
    data = tomllib.loads(text)
    assert data.pop("base") == name
    assert same_typed(data, expected(name))
    back = R.load_toml(write(tmp_path, text))
    assert back == rules and back.preset == name


def test_to_toml_round_trips_overrides(tmp_path):
    rules = R.resolve("kawu", ["fan_cap=7", "pig_penalty=cap", "variant=flow", "exchange=true"])
    back = R.load_toml(write(tmp_path, R.to_toml(rules)))
    assert same_typed(back.options(), rules.options()) and back.preset == "kawu"


# -- CLI -----------------------------------------------------------------------------------

@pytest.fixture
def runner():
    return CliRunner()


def invoke(runner, *args):
    return runner.invoke(main, list(args))


def assert_usage_error(result, pattern):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    assert pattern in lines[0], lines[0]
    assert "Traceback" not in result.output
    assert result.stdout == ""
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_cli_version(runner):
    from importlib import metadata

    result = invoke(runner, "--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"sichuan, version {metadata.version('sichuan-sim')}"


def test_cli_version_fallback(monkeypatch):
    from importlib import metadata

    from simcore import version

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(version.metadata, "version", missing)
    assert version.installed_version() == "0.0.0+unknown"


def test_cli_help_mentions_presets_and_toml(runner):
    result = invoke(runner, "--help")
    assert result.exit_code == 0 and "rules" in result.stdout
    result = invoke(runner, "rules", "--help")
    assert result.exit_code == 0
    for word in ("battle", "flow", "chengdu", "kawu", 'base = "kawu"', "--set", "--json"):
        assert word in result.stdout


def parse_table(stdout):
    lines = stdout.rstrip("\n").splitlines()
    head, rows = lines[0], lines[1:]
    table = {}
    for line in rows:
        name, value = line.split()
        table[name] = value
    return head, table, rows


def as_text(value):
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def test_cli_rules_default_is_battle_table(runner):
    result = invoke(runner, "rules")
    assert result.exit_code == 0, result.output
    head, table, rows = parse_table(result.stdout)
    assert "battle" in head and "preset" in head
    assert list(table) == RULES_MD_OPTION_NAMES
    assert table == {k: as_text(v) for k, v in expected("battle").items()}
    # aligned: every value starts in the same column
    columns = {len(row) - len(row.split()[-1]) for row in rows}
    assert len(columns) == 1


@pytest.mark.parametrize("name", PRESET_COLUMNS)
def test_cli_rules_json(runner, name):
    result = invoke(runner, "rules", name, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data.keys() == {"preset", "options"}
    assert data["preset"] == name
    assert list(data["options"]) == RULES_MD_OPTION_NAMES
    assert same_typed(data["options"], expected(name))


def test_cli_rules_kawu_json_native_types(runner):
    data = json.loads(invoke(runner, "rules", "kawu", "--json").stdout)
    assert data["options"]["exchange"] is False
    assert data["options"]["fan_cap"] == 5 and type(data["options"]["fan_cap"]) is int
    assert data["options"]["pig_penalty"] == 32
    assert data["options"]["pig_pays"] == "remaining"


def test_cli_rules_set(runner):
    result = invoke(runner, "rules", "--set", "fan_cap=5")
    assert result.exit_code == 0, result.output
    head, table, _ = parse_table(result.stdout)
    assert "battle" in head
    assert table["fan_cap"] == "5"
    assert table == {k: as_text(v) for k, v in (expected("battle") | {"fan_cap": 5}).items()}


def test_cli_rules_several_sets_json(runner):
    result = invoke(runner, "rules", "chengdu", "--set", "fan_cap=5", "--set", "exchange=false", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["preset"] == "chengdu"
    assert same_typed(data["options"], expected("chengdu") | {"fan_cap": 5, "exchange": False})


def test_cli_rules_toml_file(runner, tmp_path):
    path = write(tmp_path, 'base = "kawu"\nfan_cap = 6\npig_penalty = "cap"\n', name="house.toml")
    result = invoke(runner, "rules", path, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["preset"] == "kawu"
    assert same_typed(data["options"], expected("kawu") | {"fan_cap": 6, "pig_penalty": "cap"})
    text = invoke(runner, "rules", path)
    assert text.exit_code == 0
    head, table, _ = parse_table(text.stdout)
    assert "kawu" in head and table["fan_cap"] == "6" and table["pig_penalty"] == "cap"


def test_cli_rules_rules_option_is_accepted(runner):
    data = json.loads(invoke(runner, "rules", "--rules", "flow", "--json").stdout)
    assert data["preset"] == "flow" and data["options"]["variant"] == "flow"


def test_cli_rules_toml_output_round_trips(runner, tmp_path):
    result = invoke(runner, "rules", "kawu", "--set", "fan_cap=7", "--toml")
    assert result.exit_code == 0, result.output
    path = write(tmp_path, result.stdout)
    assert R.load_toml(path) == R.resolve("kawu", ["fan_cap=7"])


@pytest.mark.parametrize(
    "args, pattern",
    [
        (["rules", "nope"], "unknown preset 'nope'"),
        (["rules", "--rules", "nope"], "unknown preset 'nope'"),
        (["rules", "--set", "fan_basic=1"], "unknown option 'fan_basic'"),
        (["rules", "--set", "exchange=maybe"], "option exchange: 'maybe' is not allowed; expected true or false"),
        (["rules", "--set", "fan_cap=9"], "option fan_cap: 9 is not allowed; expected an integer from 1 to 8"),
        (["rules", "kawu", "--set", "fan_cap"], "expected key=value"),
        (["rules", "--set", "=5"], "unknown option ''"),
        (["rules", "missing.toml"], "does not exist"),
        (["rules", "kawu", "--json", "--toml"], "--json"),
        (["rules", "kawu", "--rules", "flow"], "not both"),
    ],
)
def test_cli_errors_are_one_line_exit_2(runner, args, pattern):
    assert_usage_error(invoke(runner, *args), pattern)


def test_cli_invalid_toml_file(runner, tmp_path):
    assert_usage_error(invoke(runner, "rules", write(tmp_path, "fan_cap = [\n")), "is not valid TOML")
    assert_usage_error(invoke(runner, "rules", write(tmp_path, "fan_cap = 9\n", "b.toml")), "option fan_cap: 9")
    (tmp_path / "d.toml").mkdir()
    assert_usage_error(invoke(runner, "rules", str(tmp_path / "d.toml")), "cannot be read")


def test_cli_error_via_console_script():
    """The installed entry point itself: one stderr line, status 2, no traceback."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    exe = shutil.which("sichuan") or str(Path(sys.executable).parent / "sichuan")
    if not Path(exe).exists():
        pytest.skip("console script not installed")
    proc = subprocess.run([exe, "rules", "--set", "exchange=maybe"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        "Error: option exchange: 'maybe' is not allowed; expected true or false"
    ]


def test_shared_rules_options_decorator(runner):
    """Later commands (simulate, trace, ...) reuse rules_options + resolve_rules."""
    import click

    from simcore.cli import resolve_rules, rules_options

    @click.command()
    @rules_options
    def play(rules_spec, sets):
        rules = resolve_rules(rules_spec, sets)
        click.echo(f"{rules.preset} {rules.fan_cap} {rules.exchange}")

    ok = runner.invoke(play, ["--rules", "kawu", "--set", "fan_cap=7"])
    assert ok.exit_code == 0 and ok.stdout.strip() == "kawu 7 False"
    assert runner.invoke(play, []).stdout.strip() == "battle 4 True"
    assert_usage_error(runner.invoke(play, ["--rules", "nope"]), "unknown preset 'nope'")
    assert_usage_error(runner.invoke(play, ["--set", "fan_cap=0"]), "option fan_cap: 0")


def test_passed_win_higher_needs_the_lock():
    with pytest.raises(RuleError, match="passed_win_higher.*needs passed_win_lock") as exc:
        R.resolve("battle", {"passed_win_higher": True})
    assert "\n" not in str(exc.value)
    assert R.resolve("kawu", {"passed_win_higher": True}).passed_win_higher
    res = CliRunner().invoke(main, ["rules", "--set", "passed_win_higher=true"])
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1 and "passed_win_lock" in res.stderr


def test_cli_rules_diff():
    """`sichuan rules --diff A B`: only the options that differ, presets or files."""
    res = CliRunner().invoke(main, ["rules", "--diff", "battle", "tfmj"])
    assert res.exit_code == 0, res.output
    rows = {line.split()[0]: line.split()[1:] for line in res.output.strip().splitlines()[1:]}
    a, b = R.preset("battle").options(), R.preset("tfmj").options()
    assert set(rows) == {k for k in a if a[k] != b[k]}
    assert rows["kong_discard_liability"] == ["none", "transfer"] and rows["fan_cap"] == ["4", "3"]
    js = json.loads(CliRunner().invoke(main, ["rules", "--diff", "kawu", "tfmj", "--json"]).output)
    assert js["passed_win_higher"] == {"a": False, "b": True}
    same = CliRunner().invoke(main, ["rules", "--diff", "battle", "battle"])
    assert same.exit_code == 0 and "same options" in same.output
    bad = CliRunner().invoke(main, ["rules", "--diff", "battle", "tfjm"])
    assert bad.exit_code == 2 and "did you mean 'tfmj'" in bad.stderr


def test_tfmj_as_a_user_would_use_it(tmp_path):
    """`simulate --rules tfmj`, `--set kong_discard_liability=transfer` and a file with base = "tfmj"."""
    f = tmp_path / "room.toml"
    f.write_text('base = "tfmj"\nfan_self_draw = 1\n')
    for args in (["--rules", "tfmj"], ["--set", "kong_discard_liability=transfer"], ["--rules", str(f)]):
        out = tmp_path / ("run" + str(abs(hash(tuple(args)))))
        res = CliRunner().invoke(main, ["simulate", "--hands", "2000", "--seats", "greedy", "-q", "--out", str(out)]
                                 + args)
        assert res.exit_code == 0, res.output + res.stderr
        manifest = json.loads((out / "run.json").read_text())
        opts = manifest["config"]["rules"]["options"]
        assert opts["kong_discard_liability"] == "transfer"
    assert opts["fan_self_draw"] == 1 and opts["fan_cap"] == 3
