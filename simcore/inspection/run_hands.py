"""Hands to replay one at a time: hands of an existing run (the run's own rules, seats and seed,
and in match mode the dealer and scores the run recorded before the hand), or independent hands
of given rules, seats and seed. ``sichuan trace``, ``simcore.replay`` and the reviewer all start
here."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.compute as pc

from simcore.engine import RunOptions
from simcore.runs import shards as rio
from simcore.runs.runner import RunConfig, recorded_file, recorded_model
from simcore.inspection.trace import TracedHand, trace_hand


def _rows_of_hand(run_dir: Path, table: str, g: int, columns):
    from simcore.runs.analysis import load

    return load(run_dir, tables=[table], columns={table: columns}, filter=pc.field("hand") == g)[table].to_dict("records")


def _loadable_seats(run_dir: Path, manifest: dict, seats, allow_changed_strategy: bool = False) -> list[str]:
    """The run's seats with each user strategy file and model file at the absolute path the run
    recorded, so a trace works from any directory (``runner.recorded_file``,
    ``runner.recorded_model``); refused when a file it depends on or a model it plays changed,
    since the trace would not be the run's hand (with ``allow_changed_strategy``, one warning
    line instead)."""
    from strategies.models import changed_model_file
    from strategies.registry import changed_strategy_file, map_model_paths, map_user_paths

    files = manifest.get("strategy_files") or {}
    deps = manifest.get("strategy_deps")
    changes = [(path, changed_strategy_file(path, digest, None if deps is None else deps.get(path, {})))
               for path, digest in files.items()]
    changes += [(path, changed_model_file(path, digest)) for path, digest in (manifest.get("model_files") or {}).items()]
    for path, changed in changes:
        if changed and not allow_changed_strategy:
            raise ValueError(f"{run_dir}: {changed}, so a replay would not be the run's hands "
                             "(--allow-changed-strategy replays it anyway)")
        if changed and Path(path).is_file():
            print(f"warning: {changed}; the replay may differ from the run", file=sys.stderr)
        elif changed:
            raise ValueError(f"{run_dir}: {changed}")
    where, model = recorded_file(manifest), recorded_model(manifest)
    return [map_model_paths(map_user_paths(s, where), model) for s in seats]


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
    specs: list | None = None          # the seats' SeatSpecs (the reviewer's rollouts play them)
    options: RunOptions = field(default_factory=RunOptions)   # the run's options (its draw order)

    def trace(self, run_dir=None) -> TracedHand:
        """The hand's TRACE.md events, replayed; its hint names the command that replays it."""
        from simcore.runs.batch import trace_command

        out = trace_hand(self.rules, self.players, self.seats, self.seed, self.g, dealer=self.dealer,
                         scores=self.scores, match=self.match, hand_in_match=self.hand_in_match,
                         options=self.options)
        if run_dir is not None:
            out.hint = trace_command(self.rules, self.seed, self.g, run_dir=run_dir)
        return out


MAX_RANGE = 10_000  # hands one command replays at most
ONLY_THE_RUNS_OWN = ("with a run directory the run's own rules, seed, seats and draw order are used: "
                     "drop --rules, --set, --seed, --seats and --draw-order")


def parse_hands(hands) -> list[int]:
    """An index, ``"N"`` or ``"A-B"`` (inclusive), or an iterable of indices -> a list of indices."""
    if isinstance(hands, str):
        text = hands.strip()
        try:
            a, _, b = text.partition("-")
            a, b = int(a), int(b or a)
        except ValueError:
            raise ValueError(f"hand {hands!r}: expected N or A-B, e.g. 7 or 0-9") from None
        if a < 0 or b < a:
            raise ValueError(f"hand {hands!r}: need 0 <= A <= B")
        if b - a >= MAX_RANGE:
            raise ValueError(f"hand {hands!r}: at most {MAX_RANGE} hands at once")
        return list(range(a, b + 1))
    if isinstance(hands, int):
        return [hands]
    return [int(g) for g in hands]


def independent_hands(rules, seats, seed: int, hands, options: RunOptions | None = None) -> list[RunHand]:
    """Independent hands of ``rules`` (a RuleSet) and ``seats`` (SeatSpecs): hand g dealt by seat
    g mod 4, from zero scores, its wall from (seed, g), drawn in the order ``options`` say."""
    from strategies.registry import seat_functions

    players = seat_functions(list(seats), rules)
    names = [s.canonical for s in seats]
    return [RunHand(rules, players, names, seed, int(g), int(g) % 4, [0, 0, 0, 0], specs=list(seats),
                    options=options or RunOptions()) for g in hands]


def hands_of_run(run_dir, hands, allow_changed_strategy: bool = False) -> list[RunHand]:
    """The replay set-up of hands of a run (in match mode, the dealer and scores it recorded);
    ``allow_changed_strategy`` replays a run whose strategy files changed, with a warning."""
    run_dir = Path(run_dir)
    manifest = rio.read_manifest(run_dir)
    from strategies.registry import parse_seats, seat_functions

    names = list(manifest["config"]["seats"])  # the seats as the run recorded them
    seats = parse_seats(",".join(_loadable_seats(run_dir, manifest, names, allow_changed_strategy)))
    cfg = RunConfig.from_json(manifest["config"], seats=seats)
    fns = seat_functions(seats, cfg.rules)
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
            out.append(RunHand(cfg.rules, fns, names, cfg.seed, g, head[0]["dealer"], scores, g // hpm, g % hpm,
                               list(seats), RunOptions(cfg.draw_order)))
        else:
            out.append(RunHand(cfg.rules, fns, names, cfg.seed, g, g % 4, [0, 0, 0, 0], specs=list(seats),
                               options=RunOptions(cfg.draw_order)))
    return out


def traced_hands_of_run(run_dir, hands, allow_changed_strategy: bool = False) -> list[TracedHand]:
    """Traces of hands of a run; they equal the run's rows for those hands."""
    return [h.trace(run_dir) for h in hands_of_run(run_dir, hands, allow_changed_strategy)]


__all__ = ["RunHand", "hands_of_run", "independent_hands", "parse_hands", "traced_hands_of_run"]
