"""Fingerprints of play: a digest of every column of every table a run writes, for each
built-in play and policy under each preset, independent hands and match mode.

A change that is not meant to change play must leave every recorded digest as it is
(tests/engine/test_fingerprints.py). Columns are digested by value (``to_pylist``), so a change of
Parquet encoding or Arrow type that keeps the values keeps the digest; a new column is not
compared until it is recorded.

    python -m tests.support.fingerprints --record     # rewrite tests/data/fingerprints.json
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

DATA = Path(__file__).resolve().parents[1] / "data" / "fingerprints.json"
TABLES = ("hands", "seats", "payments", "wins")
HANDS = 4000
MATCHES = 100
SEED = 11

# every built-in play, exchange policy and void policy at least once per preset
TABLES_PLAYED = (
    "random+exchange=random+void=random",
    "greedy+exchange=keep-pairs+void=weakest",
    "efficient",
    "flush+exchange=shortest+void=weakest",
    "defensive+exchange=keep-pairs+void=random",
    "random,greedy+exchange=random,efficient+void=weakest,defensive+exchange=keep-pairs",
    "expert+exchange=expert+void=expert",
)
MIXED = TABLES_PLAYED[5]   # also played in match mode
USER = "tests/data/user_strategies/every_slot.py"   # paths from the repository's root, where tests run
# run options that are not rules, each fingerprinted where it changes what the engine computes:
# the seat draw order, luck measured with the shipped value model (the luck estimator's input), and
# a short run of a searching seat (rollouts resume sampled states): (name, preset, seats, options)
OPTION_CASES = (
    ("options/seat-order", "battle", "expert", {"draw_order": "seat"}),
    ("options/seat-order-flow", "flow", "expert", {"draw_order": "seat"}),
    ("options/luck", "battle", "expert+void=fewest,expert,expert,expert", {"luck": True}),
    ("options/luck-flow", "flow", "efficient,expert,expert,expert", {"luck": True, "draw_order": "seat"}),
    ("options/search", "battle", "search[rollouts=4,max_rollouts=4,candidates=2],expert,expert,expert",
     {"hands": 24, "chunk_hands": 12}),
    # user strategies written against the view as it was at contract version 1, recompiled (their
    # policies named: a user play's omitted ones were exchange=shortest and void=fewest when these
    # were recorded, and are expert's since)
    ("options/user-files", "battle", f"{USER}:reader+exchange={USER}:reader+void={USER}:reader,"
     "strategies/example_user_strategy.py:cautious+exchange=shortest+void=fewest,greedy,expert", {"hands": 1000}),
    ("options/user-files-flow", "flow", f"{USER}:reader+exchange=shortest+void=fewest,"
     f"{USER}:reader+exchange={USER}:reader+void=fewest,"
     "strategies/example_user_strategy.py:late_passer+exchange=shortest+void=fewest,expert", {"hands": 1000}),
)


def cases(presets) -> list[tuple[str, str, str, int]]:
    """(name, preset, seats, mode) for every fingerprinted run."""
    out = []
    for p in presets:
        for i, seats in enumerate(TABLES_PLAYED):
            out.append((f"{p}/{i}", p, seats, "hands"))
        out.append((f"{p}/matches", p, MIXED, "matches"))
    return out


def digest_run(run_dir: Path) -> dict:
    """{table: {column: digest}} of a finished run directory, rows in hand (then file) order."""
    out = {}
    for name in TABLES:
        table = pq.read_table(run_dir / name)
        out[name] = {}
        for col in table.column_names:
            values = table.column(col).to_pylist()
            out[name][col] = hashlib.blake2b(json.dumps(values).encode(), digest_size=12).hexdigest()
        out[name]["__rows__"] = str(table.num_rows)
    return out


def fingerprint(preset: str, seats: str, mode: str, chunk_hands: int = 500, draw_order: str = "table",
                luck: bool = False, hands: int | None = None) -> dict:
    from simcore.contract.rules import preset as get_preset
    from simcore.runs.runner import RunConfig, run
    from simcore.runs.value_model import shipped
    from strategies.registry import parse_seats

    specs = tuple(s.canonical for s in parse_seats(seats))
    n = hands or (MATCHES if mode == "matches" else HANDS)
    rules = get_preset(preset)
    cfg = RunConfig(rules, specs, SEED, mode, n, chunk_hands, draw_order=draw_order,
                    value_model=shipped(rules)[1] if luck else None)
    with tempfile.TemporaryDirectory(prefix="sichuan-fp-") as tmp:
        run(tmp, cfg, workers=1)
        return digest_run(Path(tmp))


def record(presets, only: str = "") -> dict:
    data = {}
    for name, p, seats, mode in cases(presets):
        if not name.startswith(only):
            continue
        print(f"fingerprint {name}: {seats} ({mode})", file=sys.stderr, flush=True)
        data[name] = {"preset": p, "seats": seats, "mode": mode, "tables": fingerprint(p, seats, mode)}
    for name, p, seats, options in OPTION_CASES:
        if not name.startswith(only):
            continue
        print(f"fingerprint {name}: {seats} {options}", file=sys.stderr, flush=True)
        data[name] = {"preset": p, "seats": seats, "mode": "hands", "options": options,
                      "tables": fingerprint(p, seats, "hands", **options)}
    return data


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] != ["--record"] or argv[1:] and (len(argv) != 3 or argv[1] != "--only"):
        print("usage: python -m tests.support.fingerprints --record [--only PREFIX]", file=sys.stderr)
        return 2
    from simcore.contract.rules import PRESETS

    old = json.loads(DATA.read_text()) if DATA.exists() else {}
    new = record(PRESETS, argv[2] if argv[1:] else "")
    old.update(new)
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(new)} fingerprints to {DATA}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
