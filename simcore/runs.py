"""Replaying hands of an existing run: the run's own rules, seats and seed, and in match mode
the dealer and scores the run recorded before the hand."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc

from . import io as rio
from .runner import RunConfig
from .trace import TracedHand, trace_hand


def _rows_of_hand(run_dir: Path, table: str, g: int, columns):
    from .analysis import load

    return load(run_dir, tables=[table], columns={table: columns}, filter=pc.field("hand") == g)[table].to_dict("records")


def traced_hands_of_run(run_dir, hands, rules_spec=None, sets=(), seed=None, seats_spec=None) -> list[TracedHand]:
    """Traces of hands of a run; they equal the run's rows for those hands."""
    run_dir = Path(run_dir)
    if rules_spec is not None or sets or seed is not None or seats_spec is not None:
        raise ValueError("with a run directory the run's own rules, seed and seats are used: "
                         "drop --rules, --set, --seed and --seats")
    manifest = rio.read_manifest(run_dir)
    cfg = RunConfig.from_json(manifest["config"])
    from strategies.registry import parse_seats, seat_functions

    fns = seat_functions(parse_seats(",".join(cfg.seats)))
    out = []
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
            out.append(trace_hand(cfg.rules, fns, list(cfg.seats), cfg.seed, g, dealer=head[0]["dealer"],
                                  scores=scores, match=g // hpm, hand_in_match=g % hpm))
        else:
            out.append(trace_hand(cfg.rules, fns, list(cfg.seats), cfg.seed, g))
    return out


__all__ = ["traced_hands_of_run"]
