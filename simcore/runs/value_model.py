"""The value model's weights (``simcore.engine.luck``): fitted by least squares on hands no run
plays, shipped per preset in ``value_models.json`` beside this file, refitted by

    python -m simcore.runs.value_model                      # every preset, 20,000 hands each
    python -m simcore.runs.value_model --rules flow --hands 50000

A fit plays hands from global index ``FIT_FIRST`` (2**40) on, a range no run reaches, so the
weights never judge the walls they were fitted on. Each seat's luck is linear in the weights,
luck = w.L, where L_i sums feature i's centred values over the hand's chance events; the fit is
the least-squares regression of each seat's net on its L, the weights that leave the least
variance in net - luck. Luck-corrected estimates are unbiased whatever the weights (``luck``'s
docstring); the fit only decides how much variance the correction removes, and the R² it reports
is the share of the nets' variance that the correction removes on the hands fitted.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import sys
from pathlib import Path

import numba as nb
import numpy as np

from simcore.contract.rules import PRESETS, RuleSet, preset
from simcore.engine import FEATURE_NAMES, N_FEATURES

MODEL_FILE = Path(__file__).resolve().with_name("value_models.json")
FIT_FIRST = 1 << 40          # the first hand a fit plays: no run reaches it
FIT_SEED = 0
FIT_SEATS = "expert"
FIT_HANDS = 20_000
FIT_ORDER = "seat"


def weights_hash(weights) -> str:
    """A short hash of the weights: run.json records it beside a luck column."""
    return hashlib.blake2b(np.ascontiguousarray(weights, np.float64).tobytes(), digest_size=8).hexdigest()


def fit(rules: RuleSet, seats: str = FIT_SEATS, hands: int = FIT_HANDS, draw_order: str = FIT_ORDER,
        threads: int | None = None) -> dict:
    """Least-squares weights of the value model for ``rules`` and the seats' play, with the
    share of variance they explain (``r2``) on the hands fitted."""
    from simcore.contract.tables import load_tables
    from simcore import engine as E
    from strategies.registry import parse_seats, seat_functions

    specs = parse_seats(seats)
    players = seat_functions(specs)
    if threads:
        nb.set_num_threads(threads)
    R, OPT = rules.to_array(), E.RunOptions(draw_order, np.zeros(N_FEATURES)).to_array()
    n_blocks = (hands + E.BLOCK - 1) // E.BLOCK
    sums = np.zeros((n_blocks, E.FIT_LEN), np.float64)
    E.fit_kernel()(load_tables(), R, OPT, players.fns, players.setup, players.rfns, players.arena, np.int64(FIT_SEED),
                   np.int64(FIT_FIRST), np.int64(hands), sums)
    total = sums.sum(axis=0)
    xtx = total[:N_FEATURES * N_FEATURES].reshape(N_FEATURES, N_FEATURES)
    xty = total[N_FEATURES * N_FEATURES:N_FEATURES * N_FEATURES + N_FEATURES]
    n, sy, syy = total[-3:]
    ridge = 1e-6 * max(np.trace(xtx) / N_FEATURES, 1.0)   # features no event had get weight 0
    w = np.linalg.solve(xtx + ridge * np.eye(N_FEATURES), xty)
    sse = syy - 2 * w @ xty + w @ xtx @ w      # sum of (net - w.L)^2; L has mean zero
    sst = syy - sy * sy / n
    return {"weights": [float(x) for x in w], "hash": weights_hash(w), "r2": float(1 - (sse - sy * sy / n) / sst),
            "seat_hands": int(n), "hands": int(hands), "seats": specs[0].canonical if len(set(specs)) == 1 else seats,
            "draw_order": draw_order, "features": list(FEATURE_NAMES)}


def load_models(path: Path = MODEL_FILE) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        return {}


def shipped(rules: RuleSet) -> tuple[np.ndarray, str]:
    """The shipped weights for a rule set (its preset's model: options that differ change only
    how much variance it removes) and their hash."""
    weights, h = _shipped(rules.preset)
    return np.array(weights, np.float64), h


@functools.lru_cache(maxsize=None)
def _shipped(name: str) -> tuple[tuple, str]:
    """The model file read once a process (every run and chunk that measures luck asks for it)."""
    m = load_models().get("models", {}).get(name)
    if m is None or len(m["weights"]) != N_FEATURES:
        raise ValueError(f"no value model for preset {name!r} in {MODEL_FILE.name}; "
                         "fit one with: python -m simcore.runs.value_model --rules " + name)
    w = np.array(m["weights"], np.float64)
    return tuple(float(x) for x in w), weights_hash(w)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m simcore.runs.value_model", description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", default=",".join(PRESETS), help="presets to fit, comma-separated [all]")
    p.add_argument("--hands", type=int, default=FIT_HANDS, help=f"hands a preset [{FIT_HANDS:,}]")
    p.add_argument("--seats", default=FIT_SEATS, help=f"the seats the hands are played by [{FIT_SEATS}]")
    p.add_argument("--out", default=str(MODEL_FILE), help="the model file to update [the shipped one]")
    args = p.parse_args(argv)
    names = [x.strip() for x in args.rules.split(",") if x.strip()]
    bad = [x for x in names if x not in PRESETS]
    if bad:
        p.error(f"unknown preset {bad[0]!r}; presets: {', '.join(PRESETS)}")
    models = load_models(Path(args.out))
    models.setdefault("models", {})
    models["command"] = "python -m simcore.runs.value_model" + "".join(f" {a}" for a in (argv or sys.argv[1:]))
    for name in names:
        m = fit(preset(name), args.seats, args.hands)
        models["models"][name] = m
        print(f"{name}: R² {m['r2']:.3f} over {m['hands']:,} hands (hash {m['hash']})",
              flush=True)
    Path(args.out).write_text(json.dumps(models, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
