"""An agent judged in duplicate from Python: it sits at each seat in turn against three seats of a
field, on the same hands as the field's own player there, and its net is compared hand by hand
(``sichuan compare``'s question, for an agent that answers from observations)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Paired:
    """The agent's mean net a hand less the field player's on the same hands (each wall's four
    seats averaged), with the 95% interval of that paired difference."""

    mean: float
    half_width: float
    walls: int
    per_wall: np.ndarray

    def __str__(self) -> str:
        return (f"{self.mean:+.3f} [95% CI {self.mean - self.half_width:+.3f}, {self.mean + self.half_width:+.3f}] "
                f"points a hand ({self.walls:,} walls x 4 seats)")


def paired_against(act, rules="battle", field: str = "expert", walls: int = 1000, seed: int = 1,
                   tables: int = 256) -> Paired:
    """``act(obs)`` (the vector env's observation dict -> an action per table; a finished table's
    is ignored) at seat r of hands 0..walls-1 of ``seed``, every r, ``field`` elsewhere, against
    ``field`` at that seat on the same hands (``sichuan simulate``'s hands: the same walls)."""
    import gymnasium as gym

    import simcore.env as senv
    from simcore.contract.records import S_NET
    from simcore.contract.rules import resolve
    from simcore.runs.batch import run_batch
    from strategies.registry import parse_seats, seat_functions

    ref = run_batch(resolve(rules), seat_functions(parse_seats(field)), seed, 0, walls)
    diffs = np.zeros((walls, 4))
    for r in range(4):
        env = gym.make_vec(senv.ENV_ID, num_envs=min(tables, walls), vectorization_mode="vector_entry_point",
                           rules=rules, opponents=field, seat=r, copy=False)
        obs, _ = env.reset(seed=seed, options={"last": walls - 1})   # hands 0..walls-1, each once
        while not env.unwrapped.over.all():
            obs, _, _, _, info = env.step(act(obs))
            for i in np.flatnonzero(info.get("hand_ended", [])):
                res = env.unwrapped.result(i)
                diffs[res.g, r] = res.nets[r] - ref.seat[res.g, r, S_NET]
    d = diffs.mean(1)
    return Paired(float(d.mean()), float(1.96 * d.std(ddof=1) / np.sqrt(walls)), walls, d)
