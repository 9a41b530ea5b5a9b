"""Imitate ``expert`` with a small scikit-learn network, then seat it through the vector env.

1. Record every decision of four expert seats (``sichuan dataset``'s ``record``).
2. Train a one-hidden-layer network on observation -> action, hands split into train and test;
   report its top-1 agreement with expert on the held-out decisions (the illegal actions masked).
3. DAgger: let the network play in the vector env, label the decisions it meets with what expert
   would answer there (``builtin_action("expert")``), and train again on all of it (a cloned
   policy drifts into hands expert never plays; this teaches it those).
4. Play it at each seat in turn against three experts on the same hands (duplicate), and report
   its mean net a hand against expert's on those hands, with a 95% interval of the paired
   difference.

    python examples/imitate_expert.py                      # a few minutes on 2 cores
    python examples/imitate_expert.py --hands 600 --walls 200 --epochs 3   # a quick look, under 2 minutes

The DAgger rounds scale with ``--hands`` (their steps and tables, so what they add to the training set
stays about as large as the recorded hands' decisions), unless ``--dagger-steps``/``--dagger-tables``
say otherwise.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import gymnasium as gym
import numpy as np
from sklearn.neural_network import MLPClassifier

import simcore.env as senv
from simcore.contract.rules import resolve
from simcore.env.dataset import load, masks, observations, record
from simcore.env.evaluate import paired_against
from strategies.registry import parse_seats


def _scale() -> np.ndarray:
    """Each observation slot's scale (its bound; points by 50), so every input is about 0-1."""
    from simcore.env.spaces import observation_bounds

    low, high = observation_bounds()
    scale = np.maximum(np.abs(low), np.abs(high))
    scale[scale > 100] = 50.0
    return scale.astype(np.float32)


SCALE = _scale()


def masked_best(model, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The model's most likely legal action for each row (a legal action the model never saw as
    a label ranks below every seen one)."""
    scores = np.full(mask.shape, -1.0)
    scores[:, model.classes_] = model.predict_proba(obs / SCALE)
    scores[mask == 0] = -2.0
    return scores.argmax(1)


def train(rules: str, hands: int, epochs: int, seed: int):
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        record(d, resolve(rules), parse_seats("expert"), (0, 1, 2, 3), hands, seed=seed, chunk=1000)
        df = load(d)
        print(f"recorded {len(df):,} decisions of {hands:,} hands in {time.perf_counter() - t0:.1f} s")
    x, m, y = observations(df), masks(df), df.action.to_numpy()
    test = df.hand.to_numpy() % 5 == 0           # every fifth hand held out
    model = MLPClassifier(hidden_layer_sizes=(256,), max_iter=epochs, batch_size=512, random_state=0,
                          warm_start=True)
    t0 = time.perf_counter()
    _fit(model, x[~test], y[~test])
    agree = (masked_best(model, x[test], m[test]) == y[test]).mean()
    print(f"trained on {(~test).sum():,} decisions in {time.perf_counter() - t0:.1f} s; top-1 agreement with "
          f"expert on {test.sum():,} held-out decisions: {agree:.1%}")
    model.train_x, model.train_y = x[~test], y[~test]
    return model, agree


def dagger(model, x, y, rules: str, rounds: int, steps: int, seed: int, tables: int = 512):
    """``rounds`` times: the model plays ``steps`` steps of ``tables`` tables (seat 0, experts
    elsewhere); every decision it meets is labelled with expert's answer there; the model is
    trained again on everything so far. Returns the model and its agreement with expert in play."""
    env = gym.make_vec(senv.ENV_ID, num_envs=tables, vectorization_mode="vector_entry_point", rules=rules,
                       opponents="expert", seat=0, copy=False)
    for k in range(rounds):
        obs, _ = env.reset(seed=seed + 100 + k)
        xs, ys, agree = [], [], 0
        for _ in range(steps):
            label = env.unwrapped.builtin_action("expert")
            act = masked_best(model, obs["observation"], obs["action_mask"])
            agree += (act == label).sum()
            xs.append(obs["observation"].copy())
            ys.append(label)
            obs, *_ = env.step(act)
        x, y = np.concatenate([x, *xs]), np.concatenate([y, *ys])
        _fit(model, x, y)
        print(f"DAgger round {k + 1}: the network agreed with expert on {agree / (steps * tables):.1%} of the "
              f"{steps * tables:,} decisions it met in play; trained again on {len(y):,}")
    return model


def _fit(model, x, y) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # max_iter reached: a few epochs are enough here
        model.fit(x / SCALE, y)


def duplicate(model, rules: str, walls: int, seed: int):
    """The model at each seat in turn against three experts, against expert on the same hands."""
    res = paired_against(lambda obs: masked_best(model, obs["observation"], obs["action_mask"]), rules, "expert",
                         walls, seed)
    print(f"duplicate vs 3 experts ({rules}): imitation - expert = {res}")
    return res.mean, res.half_width


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", default="battle")
    p.add_argument("--hands", type=int, default=4000, help="hands recorded for training (4 seats each)")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--walls", type=int, default=2000, help="hands of the duplicate comparison")
    p.add_argument("--dagger", type=int, default=5, help="DAgger rounds")
    p.add_argument("--dagger-steps", type=int, default=None,
                   help="steps a DAgger round plays (default: hands / 40, at least 4)")
    p.add_argument("--dagger-tables", type=int, default=None,
                   help="tables a DAgger step plays at once (default: 512 for 4,000 hands, in proportion, 64 to 512)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    model, agree = train(a.rules, a.hands, a.epochs, a.seed)
    steps = a.dagger_steps or max(4, a.hands // 40)
    tables = a.dagger_tables or min(512, max(64, round(a.hands * 512 / 4000)))
    model = dagger(model, model.train_x, model.train_y, a.rules, a.dagger, steps, a.seed, tables)
    duplicate(model, a.rules, a.walls, a.seed + 1)


if __name__ == "__main__":
    main()
