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


def fingerprint(preset: str, seats: str, mode: str, chunk_hands: int = 500) -> dict:
    from simcore.contract.rules import preset as get_preset
    from simcore.runs.runner import RunConfig, run
    from strategies.registry import parse_seats

    specs = tuple(s.canonical for s in parse_seats(seats))
    n = MATCHES if mode == "matches" else HANDS
    cfg = RunConfig(get_preset(preset), specs, SEED, mode, n, chunk_hands)
    with tempfile.TemporaryDirectory(prefix="sichuan-fp-") as tmp:
        run(tmp, cfg, workers=1)
        return digest_run(Path(tmp))


def record(presets) -> dict:
    data = {}
    for name, p, seats, mode in cases(presets):
        print(f"fingerprint {name}: {seats} ({mode})", file=sys.stderr, flush=True)
        data[name] = {"preset": p, "seats": seats, "mode": mode, "tables": fingerprint(p, seats, mode)}
    return data


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["--record"]:
        print("usage: python -m tests.support.fingerprints --record", file=sys.stderr)
        return 2
    from simcore.contract.rules import PRESETS

    old = json.loads(DATA.read_text()) if DATA.exists() else {}
    new = record(PRESETS)
    old.update(new)
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(new)} fingerprints to {DATA}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
