"""Gymnasium environments: ``sichuan/Table-v0`` (one agent seat, the other three played by the
engine) and its vector entry point (N tables stepped by one jitted call)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from simcore.engine import agents as AG
from simcore.env.spaces import action_space, observation_space
from simcore.env.tables import IllegalActionError, Tables

REWARDS = ("hand", "paid")
ILLEGAL = ("raise", "refuse")


def fresh_seed() -> int:
    """A seed from the operating system's entropy, for a reset without one."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(2))


def _check_options(seat: int, reward: str, illegal: str = "raise") -> None:
    if seat not in (0, 1, 2, 3):
        raise ValueError(f"seat must be 0, 1, 2 or 3, got {seat!r}")
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
    if illegal not in ILLEGAL:
        raise ValueError(f"illegal must be one of {', '.join(ILLEGAL)}, got {illegal!r}")


class TableEnv(gym.Env):
    """One agent at ``seat`` of a Sichuan table; the other three seats are ``opponents`` (a seat
    spec, or four separated by commas: built-ins or user files) played inside the engine.

    An episode is one hand (``match=True``: a match of the rules' ``hands_per_match`` hands).
    ``reset(seed=s)`` starts at hand 0 of seed s; each later episode plays the next hand index,
    so hand g of seed s is hand g of ``sichuan simulate --seed s``. A step is a decision: a
    question to the agent's seat with two or more legal answers (the exchange: three picks).
    Reward: the seat's net for the hand, at its end (``reward="paid"``: the points paid to or by
    the seat since the last step, at every step). When an episode ends its observation and mask
    are zeros (nothing is asked) and ``info["result"]`` holds the finished hand's rows
    (``HandResult``); ``raw_view=True`` adds the asked seat's raw view to every ``info``.

    An action outside the mask is never played: it raises ``IllegalActionError``
    (``illegal="refuse"``: the step returns the same decision, reward 0, and the error's text in
    ``info["illegal_action"]``; Gymnasium's ``check_env`` needs this, as it steps with an action
    it sampled before resetting). ``action_space.sample()`` draws among the legal actions."""

    metadata = {"render_modes": [], "name": "sichuan/Table-v0"}

    def __init__(self, rules="battle", opponents="expert", seat: int = 0, match: bool = False,
                 reward: str = "hand", raw_view: bool = False, draw_order: str = "table", illegal: str = "raise",
                 render_mode=None):
        _check_options(seat, reward, illegal)
        self.seat, self.illegal = seat, illegal
        self.raw_view = raw_view
        self.tables = Tables(1, rules, opponents, agents=(seat,), match=match, paid_now=reward == "paid",
                             draw_order=draw_order)
        self.observation_space = observation_space()
        self.action_space = action_space(legal=lambda: self.tables.masks[0])
        self.render_mode = render_mode
        self._seed = None
        self._next_item = 0
        self._fresh = False   # the tables already stand at the next episode's first decision

    def _obs(self):
        t = self.tables
        return {"observation": t.obs[0].copy(), "action_mask": t.masks[0].copy()}

    def _info(self) -> dict:
        t = self.tables
        info = {"hand": t.hand_index(0), "question": t.question_name(0)}
        if self.raw_view:
            info["view"] = t.views()[0]
        return info

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._seed, self._next_item, self._fresh = int(seed), 0, False
        elif self._seed is None:
            self._seed = int(self.np_random.integers(0, 2**62))
        if not self._fresh:
            self.tables.reset(self._seed, first=self._next_item, stride=1)
        self._fresh = False
        self._next_item = int(self.tables.E[0, AG.E_ITEM]) + 1
        return self._obs(), self._info()

    def step(self, action):
        t = self.tables
        if t.status[0] == AG.OVER or self._seed is None:
            raise RuntimeError("call reset() before step()")
        try:
            t.step(np.array([int(action)], np.int64))
        except IllegalActionError as e:
            if self.illegal == "raise":
                raise
            return self._obs(), 0.0, False, False, {**self._info(), "illegal_action": str(e)}
        status = int(t.status[0])
        reward = float(t.reward[0, self.seat])
        if status == AG.EPISODE_END:
            self._fresh = True
            info = {"hand": int(t.E[0, AG.E_ENDED]), "result": t.result(0)}
            zero = {"observation": np.zeros_like(t.obs[0]), "action_mask": np.zeros_like(t.masks[0])}
            return zero, reward, True, False, info
        info = self._info()
        if status == AG.HAND_END:
            info["result"] = t.result(0)
        return self._obs(), reward, False, False, info

    def builtin_action(self, spec: str) -> int:
        """The action seat spec ``spec`` would take at the pending decision (its parameters, its
        own scratch and random counter, as if it were seated)."""
        return int(self.tables.builtin(spec)[0])


class TableVectorEnv(VectorEnv):
    """``num_envs`` tables with the agent at ``seat``, stepped together by one jitted call; table
    i plays hands (or matches) i, i + N, i + 2N, ... of the seed. Autoreset is same-step
    (``metadata["autoreset_mode"]``): a table whose episode ends comes back at the next
    episode's first decision in the same step, with ``terminations[i]`` set and the episode's
    reward; there is no final observation (nothing is asked at a hand's end, and episodes end by
    termination only, never truncation). ``result(i)`` gives table i's last finished hand's rows.
    ``copy=False`` returns the env's own observation arrays (overwritten by the next step)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, rules="battle", opponents="expert", seat: int = 0, match: bool = False,
                 reward: str = "hand", raw_view: bool = False, draw_order: str = "table", copy: bool = True,
                 render_mode=None):
        _check_options(seat, reward)
        self.num_envs = int(num_envs)
        self.seat, self.raw_view, self.copy = seat, raw_view, copy
        self.tables = Tables(self.num_envs, rules, opponents, agents=(seat,), match=match,
                             paid_now=reward == "paid", draw_order=draw_order)
        self.single_observation_space = observation_space()
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = render_mode
        self._seed = None

    def _obs(self):
        t = self.tables
        if self.copy:
            return {"observation": t.obs.copy(), "action_mask": t.masks.copy()}
        return {"observation": t.obs, "action_mask": t.masks}

    def _infos(self) -> dict:
        return {"view": self.tables.views()} if self.raw_view else {}

    def reset(self, *, seed=None, options=None):
        """``options={"last": L}``: play hands (or matches) 0..L only, each once; a table past its
        last stands still (status ``OVER``: zero observation and mask, its action ignored)."""
        if seed is None:
            seed = fresh_seed()
        self._seed = int(seed)
        last = (options or {}).get("last")
        self.tables.reset(self._seed, first=0, stride=self.num_envs, last=None if last is None else int(last))
        return self._obs(), self._infos()

    @property
    def over(self) -> np.ndarray:
        """(num_envs,) the tables that played their last hand (``reset(options={"last": L})``)."""
        return self.tables.status == AG.OVER

    def step(self, actions):
        if self._seed is None:
            raise RuntimeError("call reset() before step()")
        t = self.tables
        t.step(actions)
        infos = self._infos()
        if t.ended.any():
            infos["hand_ended"] = t.ended.copy()
        return (self._obs(), t.reward[:, self.seat].astype(np.float64), t.status == AG.EPISODE_END,
                np.zeros(self.num_envs, bool), infos)

    def builtin_action(self, spec: str) -> np.ndarray:
        """(num_envs,) the action seat spec ``spec`` would take at each table's pending decision."""
        return self.tables.builtin(spec)

    def result(self, i: int):
        """Table i's last finished hand's rows (``HandResult``)."""
        return self.tables.result(i)
