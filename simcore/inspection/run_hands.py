"""Replaying hands of an existing run: the run's own rules, seats and seed, and in match mode
the dealer and scores the run recorded before the hand."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pyarrow.compute as pc

from simcore.runs import shards as rio
from simcore.runs.runner import RunConfig
from simcore.inspection.trace import TracedHand, trace_hand


def _rows_of_hand(run_dir: Path, table: str, g: int, columns):
    from simcore.runs.analysis import load

    return load(run_dir, tables=[table], columns={table: columns}, filter=pc.field("hand") == g)[table].to_dict("records")


def _loadable_seats(run_dir: Path, manifest: dict, seats) -> list[str]:
    """The run's seats with each user strategy file at the absolute path the run recorded, so a
    trace works from any directory; refused when a file (or a .py file beside it) changed, since
    the trace would not be the run's hand. Older runs recorded only {absolute path: hash}: a
    relative path is matched to the one recorded path that ends with it."""
    from strategies.registry import map_user_paths, user_file_hash

    paths = manifest.get("strategy_paths") or {}
    files = manifest.get("strategy_files") or {}

    def where(path: str) -> str:
        if path in paths:
            return paths[path]
        if Path(path).expanduser().is_absolute():
            return path
        tail = os.sep + os.path.normpath(path)
        found = [p for p in files if p.endswith(tail)]
        return found[0] if len(found) == 1 else path

    out = [map_user_paths(s, where) for s in seats]
    for path, digest in files.items():
        now = user_file_hash(Path(path)) if Path(path).is_file() else "missing"
        if now != digest:
            what = "no longer exists" if now == "missing" else "or a .py file beside it changed since the run"
            raise ValueError(f"strategy file {path} of {run_dir} {what}, so a trace would not replay the run's hands")
    return out


@dataclass
class RunHand:
    """Everything that replays hand g of a run: its rules, players, seed, dealer and scores."""

    rules: object
    players: object
    seats: list
    seed: int
    g: int
    dealer: int
    scores: list
    match: int | None = None
    hand_in_match: int | None = None


def hands_of_run(run_dir, hands) -> list[RunHand]:
    """The replay set-up of hands of a run (in match mode, the dealer and scores it recorded)."""
    run_dir = Path(run_dir)
    manifest = rio.read_manifest(run_dir)
    cfg = RunConfig.from_json(manifest["config"])
    from strategies.registry import parse_seats, seat_functions

    fns = seat_functions(parse_seats(",".join(_loadable_seats(run_dir, manifest, cfg.seats))))
    out: list[RunHand] = []
    for g in hands:
        if g >= cfg.total_hands:
            raise ValueError(f"hand {g} is not in {run_dir}: it has hands 0-{cfg.total_hands - 1}")
        if cfg.match_mode:
            hpm = cfg.rules.hands_per_match
            rows = _rows_of_hand(run_dir, "seats", g, ["seat", "score_before"])
            head = _rows_of_hand(run_dir, "hands", g, ["dealer"])
            if len(rows) != 4 or not head:
                raise ValueError(f"hand {g} of {run_dir} has not been played yet (resume the run first)")
            scores = [r["score_before"] for r in sorted(rows, key=lambda r: r["seat"])]
            out.append(RunHand(cfg.rules, fns, list(cfg.seats), cfg.seed, g, head[0]["dealer"], scores,
                               g // hpm, g % hpm))
        else:
            out.append(RunHand(cfg.rules, fns, list(cfg.seats), cfg.seed, g, g % 4, [0, 0, 0, 0]))
    return out


def traced_hands_of_run(run_dir, hands, rules_spec=None, sets=(), seed=None, seats_spec=None) -> list[TracedHand]:
    """Traces of hands of a run; they equal the run's rows for those hands."""
    if rules_spec is not None or sets or seed is not None or seats_spec is not None:
        raise ValueError("with a run directory the run's own rules, seed and seats are used: "
                         "drop --rules, --set, --seed and --seats")
    from simcore.runs.batch import trace_command

    out: list[TracedHand] = []
    for h in hands_of_run(run_dir, hands):
        out.append(trace_hand(h.rules, h.players, h.seats, h.seed, h.g, dealer=h.dealer, scores=h.scores,
                              match=h.match, hand_in_match=h.hand_in_match))
        out[-1].hint = trace_command(h.rules, h.seed, h.g, run_dir=run_dir)
    return out


__all__ = ["RunHand", "hands_of_run", "traced_hands_of_run"]
