"""The fast vector env (``TableVectorEnv``: N tables stepped by one jitted call) as a Stable-Baselines3
``VecEnv``, so sb3's and sb3-contrib's algorithms (``MaskablePPO`` included) train on it directly:

    from sb3_contrib import MaskablePPO
    from simcore.env.sb3 import TableVecEnv
    model = MaskablePPO("MultiInputPolicy", TableVecEnv(64, rules="battle", opponents="expert")).learn(100_000)

Imported only where Stable-Baselines3 is installed (the ``rl`` extra); the rest of ``simcore.env``
does not need it. sb3's conventions: ``reset()`` returns the observations only (the seed is set by
``seed()``, as sb3 does, else a fresh one), ``step_wait()`` gives a list of per-table infos, a table
whose episode ended is already at the next episode's first decision (same-step autoreset), with
``infos[i]["terminal_observation"]`` the ended episode's last observation (zeros: nothing is
asked at a hand's end) and ``"TimeLimit.truncated"`` False (episodes end by termination only).
``action_masks()`` and ``env_method("action_masks")`` give the tables' masks, as sb3-contrib reads
them."""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from simcore.env.gym_env import TableVectorEnv, fresh_seed


class TableVecEnv(VecEnv):
    """``num_envs`` tables of ``TableVectorEnv`` (the same options: rules, opponents, seat, match,
    reward, draw_order, illegal) for Stable-Baselines3."""

    def __init__(self, num_envs: int = 1, **options):
        self.venv = TableVectorEnv(num_envs, **options)
        self._actions = None
        self._seed = None
        super().__init__(num_envs, self.venv.single_observation_space, self.venv.single_action_space)

    def reset(self):
        seed = self._seeds[0] if self._seeds[0] is not None else (self._seed if self._seed is not None else fresh_seed())
        obs, infos = self.venv.reset(seed=seed, options=self._options[0] or None)
        self.reset_infos = [self._info(infos, i) for i in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        return obs

    def seed(self, seed: int | None = None):
        """Table i plays hands i, i + N, ... of this seed from the next ``reset()`` (sb3's seeds
        are per env; the tables share one, as ``sichuan simulate --seed`` does)."""
        self._seed = None if seed is None else int(seed)
        self._seeds = [self._seed] * self.num_envs
        return self._seeds

    def step_async(self, actions) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self):
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        out = [self._info(infos, i) for i in range(self.num_envs)]
        zeros = {k: np.zeros_like(v[0]) for k, v in obs.items()}
        for i in np.flatnonzero(terminated):
            out[i]["terminal_observation"] = zeros
            out[i]["TimeLimit.truncated"] = False
        return obs, rewards.astype(np.float32), terminated | truncated, out

    @staticmethod
    def _info(infos: dict, i: int) -> dict:
        """Table i's entries of a Gymnasium vector info dict (where a ``_key`` mask says which
        tables an entry is for, only if it marks table i)."""
        out = {}
        for k, v in infos.items():
            mask = infos.get("_" + k)
            if not k.startswith("_") and (mask is None or mask[i]):
                out[k] = v[i]
        return out

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def _indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self.venv, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
        """``action_masks``: each table's mask; ``builtin_action``: each table's action of a seat
        spec; any other method of the vector env is called once and given to every index."""
        idx = list(self._indices(indices))
        if method_name in ("action_masks", "builtin_action"):
            per_table = getattr(self.venv, method_name)(*args, **kwargs)
            return [per_table[i] for i in idx]
        result = getattr(self.venv, method_name)(*args, **kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list:
        return [False for _ in self._indices(indices)]

    def get_images(self):
        return [None for _ in range(self.num_envs)]
