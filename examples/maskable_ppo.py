"""Train sb3-contrib's MaskablePPO at a Sichuan table against three experts, then judge it in duplicate.

Needs the ``rl`` extra (``pip install torch==2.13.0`` first where a CPU build lies on disk, else
plain ``torch`` pulls a CUDA build of several GB; then ``pip install -e '.[rl]'``).

1. ``simcore.env.sb3.TableVecEnv``: N tables stepped by one jitted call, as an sb3 ``VecEnv``
   (``gym.make("sichuan/Table-v0")`` works too, one table, no wrapper: ``MaskablePPO`` reads the
   env's ``action_masks()``).
2. ``MaskablePPO("MultiInputPolicy", ...)`` learns for ``--minutes`` (or ``--steps``); the rollout
   steps a second inside the library are timed apart from its updates, and so is the env stepped
   by a random masked agent alone.
3. The policy (deterministic, masked) sits at each seat in turn against three experts on the same
   hands as expert there (``simcore.env.evaluate.paired_against``): its mean net a hand less
   expert's, with a 95% interval.

    python examples/maskable_ppo.py                     # ten minutes of training on 2 cores
    python examples/maskable_ppo.py --steps 2048 --walls 40    # a quick look
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from simcore.env.evaluate import paired_against
from simcore.env.sb3 import TableVecEnv


class Timing(BaseCallback):
    """The seconds spent collecting rollouts (the env and the policy's forward passes), apart
    from the updates; stops the learning after ``minutes``."""

    def __init__(self, minutes: float | None):
        super().__init__()
        self.deadline = None if minutes is None else time.perf_counter() + 60 * minutes
        self.rollout_seconds = 0.0
        self.rollout_steps = 0
        self._t0 = 0.0

    def _on_rollout_start(self) -> None:
        self._t0 = time.perf_counter()

    def _on_rollout_end(self) -> None:
        self.rollout_seconds += time.perf_counter() - self._t0
        self.rollout_steps += self.model.n_steps * self.model.n_envs

    def _on_step(self) -> bool:
        return self.deadline is None or time.perf_counter() < self.deadline


def env_rate(tables: int, rules: str, seconds: float = 3.0) -> float:
    """Decisions a second of the same vector env stepped by a random masked agent (numpy only)."""
    env = TableVecEnv(tables, rules=rules, opponents="expert")
    env.seed(0)
    env.reset()
    rng = np.random.default_rng(0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        m = env.action_masks()
        env.step((rng.random(m.shape) * m).argmax(1))
        steps += tables
    return steps / (time.perf_counter() - t0)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", default="battle")
    p.add_argument("--tables", type=int, default=64, help="tables stepped together")
    p.add_argument("--minutes", type=float, default=10.0, help="training time (unless --steps)")
    p.add_argument("--steps", type=int, default=None, help="train this many decisions instead of --minutes")
    p.add_argument("--walls", type=int, default=2000, help="hands of the duplicate comparison")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    torch.set_num_threads(1)   # the engine's steps are single-threaded: one core each
    env = TableVecEnv(a.tables, rules=a.rules, opponents="expert")
    env.seed(a.seed)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=128, batch_size=1024, learning_rate=3e-4, gamma=1.0,
                        seed=a.seed, verbose=0)
    timing = Timing(None if a.steps else a.minutes)
    t0 = time.perf_counter()
    model.learn(total_timesteps=a.steps or 10**12, callback=timing)
    seconds = time.perf_counter() - t0
    inside = timing.rollout_steps / max(timing.rollout_seconds, 1e-9)
    print(f"trained {model.num_timesteps:,} decisions in {seconds:.0f} s ({model.num_timesteps / seconds:,.0f} a "
          f"second with the updates); rollouts inside sb3: {inside:,.0f} steps a second over {a.tables} tables; "
          f"the env alone (a random masked agent): {env_rate(a.tables, a.rules):,.0f}")

    def act(obs):
        actions, _ = model.predict(obs, action_masks=obs["action_mask"].astype(bool), deterministic=True)
        return actions

    res = paired_against(act, a.rules, "expert", a.walls, a.seed + 1)
    print(f"duplicate vs 3 experts ({a.rules}): MaskablePPO - expert = {res}")


if __name__ == "__main__":
    main()
