"""Gymnasium environments: ``sichuan/Table-v0`` (one agent seat, the other three played by the
engine) and its vector entry point (N tables stepped by one jitted call)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from simcore.engine import agents as AG
from simcore.env.spaces import action_space, batched_action_space, observation_space
from simcore.env.tables import IllegalActionError, Tables

REWARDS = ("hand", "paid")
ILLEGAL = ("raise", "refuse")


def fresh_seed() -> int:
    """A seed from the operating system's entropy, for a reset without one."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(2))


def _write_events(path, events) -> None:
    from pathlib import Path

    from simcore.inspection.trace import to_jsonl

    Path(path).write_text(to_jsonl(events) + "\n")


def _check_render(render_mode, metadata) -> None:
    if render_mode is not None and render_mode not in metadata["render_modes"]:
        raise ValueError(f"render_mode must be one of {', '.join(metadata['render_modes'])} or None, "
                         f"got {render_mode!r}")


def _check_options(seat: int, reward: str, illegal: str = "refuse") -> None:
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

    An action outside the mask is never played: by default (``illegal="refuse"``) the step returns
    the same decision, reward 0, and the reason in ``info["illegal_action"]`` (a warning the first
    time); ``illegal="raise"`` raises ``IllegalActionError`` instead. ``action_masks()`` gives the
    pending decision's mask (as sb3-contrib's ``MaskablePPO`` reads it), and so does
    ``info["action_mask"]``; ``action_space.sample()`` draws among the legal actions. The env
    pickles, and a copy plays on in another process exactly as the original would."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4, "name": "sichuan/Table-v0"}

    def __init__(self, rules="battle", opponents="expert", seat: int = 0, match: bool = False,
                 reward: str = "hand", raw_view: bool = False, draw_order: str = "table", illegal: str = "refuse",
                 render_mode=None, record_trace: bool = False):
        _check_options(seat, reward, illegal)
        _check_render(render_mode, self.metadata)
        self.seat, self.illegal = seat, illegal
        self.raw_view = raw_view
        self.tables = Tables(1, rules, opponents, agents=(seat,), match=match, paid_now=reward == "paid",
                             draw_order=draw_order, record=record_trace)
        self.observation_space = observation_space()
        self.action_space = action_space(legal=self._mask)
        self.render_mode = render_mode
        self._seed = None
        self._next_item = 0
        self._fresh = False   # the tables already stand at the next episode's first decision
        self._warned = False

    def _mask(self) -> np.ndarray:
        return self.tables.masks[0]

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["action_space"]   # its sampler reads this env's mask: rebuilt on load
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.action_space = action_space(legal=self._mask)

    def action_masks(self) -> np.ndarray:
        """(N_ACTIONS,) bool: the legal actions at the pending decision (none once it ended)."""
        return self.tables.masks[0].astype(bool)

    def _obs(self):
        t = self.tables
        return {"observation": t.obs[0].copy(), "action_mask": t.masks[0].copy()}

    def _info(self) -> dict:
        t = self.tables
        info = {"hand": t.hand_index(0), "question": t.question_name(0), "action_mask": self.action_masks()}
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
        a = np.array([int(action)], np.int64)
        if t.step(a, refuse=self.illegal == "refuse")[0]:
            reason = t.illegal_message(0, a)
            if not self._warned:
                self._warned = True
                warnings.warn(f"sichuan/Table-v0 refused an illegal action, and will refuse others without "
                              f"a warning (info['illegal_action'] says why; illegal='raise' raises): {reason}",
                              stacklevel=2)
            return self._obs(), 0.0, False, False, {**self._info(), "illegal_action": reason}
        status = int(t.status[0])
        reward = float(t.reward[0, self.seat])
        if status == AG.EPISODE_END:
            self._fresh = True
            info = {"hand": int(t.E[0, AG.E_ENDED]), "result": t.result(0), "action_mask": self.action_masks()}
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

    def render(self):
        """``render_mode="ansi"``: the table as text (every seat's tiles: for a person watching)."""
        if self.render_mode == "ansi":
            return self.tables.text(0)
        return None

    def trace(self):
        """The last finished hand as the project's trace (``record_trace=True``): a ``TracedHand``
        whose ``events`` are TRACE.md's, the agent's answers included; ``write_trace`` saves them."""
        return self.tables.trace(0)

    def write_trace(self, path) -> None:
        """The last finished hand's trace as JSON Lines: ``sichuan trace --from PATH`` prints it
        (``--format html -o FILE.html``: the viewer shows it)."""
        _write_events(path, self.trace().events)


class TableVectorEnv(VectorEnv):
    """``num_envs`` tables with the agent at ``seat``, stepped together by one jitted call; table
    i plays hands (or matches) i, i + N, i + 2N, ... of the seed. Autoreset is same-step
    (``metadata["autoreset_mode"]``): a table whose episode ends comes back at the next
    episode's first decision in the same step, with ``terminations[i]`` set and the episode's
    reward; there is no final observation (nothing is asked at a hand's end, and episodes end by
    termination only, never truncation). With ``reset(options={"last": L})`` a table's last
    episode also sets ``terminations[i]``, and the table then stands still. ``result(i)`` gives
    table i's last finished hand's rows. ``copy=False`` returns the env's own observation arrays
    (overwritten by the next step).

    ``action_masks()`` gives the (num_envs, N_ACTIONS) masks, as ``infos["action_mask"]`` does;
    ``action_space.sample()`` draws a legal action for every table. An action outside a table's
    mask is never played: by default (``illegal="refuse"``) that table stands at its decision
    (reward 0; ``infos["illegal_action"]`` holds the reason, "" elsewhere) while the others play
    on; ``illegal="raise"`` raises ``IllegalActionError`` and plays nothing.

    Self-play: ``seats=(0, 1, 2, 3)`` (or any several) makes those seats all agents, one policy
    answering for each (``seat`` is then ignored): a step answers whichever of them each table
    asks, ``infos["seat"]`` says which seat the returned observation is for, the reward is the
    acting seat's, and ``infos["rewards"]`` holds every seat's (num_envs, 4) so each seat's
    points can be credited to it (at a hand's end all four are paid)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, num_envs: int = 1, rules="battle", opponents="expert", seat: int = 0, match: bool = False,
                 reward: str = "hand", raw_view: bool = False, draw_order: str = "table", copy: bool = True,
                 illegal: str = "refuse", render_mode=None, seats=None, record_trace: bool = False):
        seats = (seat,) if seats is None else tuple(int(s) for s in seats)
        for s in seats:
            _check_options(s, reward, illegal)
        if not seats or len(set(seats)) != len(seats):
            raise ValueError(f"seats must be distinct seats among 0, 1, 2, 3, got {seats!r}")
        _check_render(render_mode, self.metadata)
        self.num_envs = int(num_envs)
        self.seat, self.seats, self.raw_view, self.copy, self.illegal = seats[0], seats, raw_view, copy, illegal
        self.tables = Tables(self.num_envs, rules, opponents, agents=seats, match=match,
                             paid_now=reward == "paid", draw_order=draw_order, record=record_trace)
        self.single_observation_space = observation_space()
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batched_action_space(self.num_envs, legal=self._masks)
        self.render_mode = render_mode
        self._seed = None
        self._warned = False

    def _masks(self) -> np.ndarray:
        return self.tables.masks

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["action_space"]   # its sampler reads this env's masks: rebuilt on load
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.action_space = batched_action_space(self.num_envs, legal=self._masks)

    def action_masks(self) -> np.ndarray:
        """(num_envs, N_ACTIONS) bool: each table's legal actions (none past its last hand)."""
        return self.tables.masks.astype(bool)

    def _obs(self):
        t = self.tables
        if self.copy:
            return {"observation": t.obs.copy(), "action_mask": t.masks.copy()}
        return {"observation": t.obs, "action_mask": t.masks}

    def _infos(self) -> dict:
        infos = {"action_mask": self.action_masks(), "_action_mask": np.ones(self.num_envs, bool)}
        if len(self.seats) > 1:
            infos["seat"] = self.tables.asked_seats()
        if self.raw_view:
            infos["view"] = self.tables.views()
        return infos

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
        actions = np.ascontiguousarray(actions, np.int64).reshape(self.num_envs)
        acting = t.asked_seats() if len(self.seats) > 1 else np.full(self.num_envs, self.seat)
        refused = t.step(actions, refuse=self.illegal == "refuse")
        infos = self._infos()
        if len(self.seats) > 1:
            infos["rewards"] = t.reward.astype(np.float64)
        if refused.any():
            infos["illegal_action"] = np.array([t.illegal_message(i, actions) if refused[i] else ""
                                                for i in range(self.num_envs)], object)
            infos["_illegal_action"] = refused
            if not self._warned:
                self._warned = True
                warnings.warn(f"sichuan/Table-v0 (vector) refused an illegal action, and will refuse others without "
                              f"a warning (infos['illegal_action']; illegal='raise' raises): "
                              f"{infos['illegal_action'][refused][0]}", stacklevel=2)
        if t.ended.any():
            infos["hand_ended"] = t.ended.copy()
        # an episode ends where a table's hand (or match) ends, its last one too (the table then stands still)
        terminated = (t.status == AG.EPISODE_END) | (t.ended & (t.status == AG.OVER))
        reward = t.reward[np.arange(self.num_envs), np.maximum(acting, 0)].astype(np.float64)
        return self._obs(), reward, terminated, np.zeros(self.num_envs, bool), infos

    def builtin_action(self, spec: str) -> np.ndarray:
        """(num_envs,) the action seat spec ``spec`` would take at each table's pending decision."""
        return self.tables.builtin(spec)

    def result(self, i: int):
        """Table i's last finished hand's rows (``HandResult``)."""
        return self.tables.result(i)

    def trace(self, i: int):
        """Table i's last finished hand as the project's trace (``record_trace=True``; ``TableEnv.trace``)."""
        return self.tables.trace(i)

    def write_trace(self, i: int, path) -> None:
        """Table i's last finished hand's trace as JSON Lines (``sichuan trace --from PATH``)."""
        _write_events(path, self.trace(i).events)

    def render(self):
        """``render_mode="ansi"``: every table as text."""
        if self.render_mode == "ansi":
            return "".join(self.tables.text(i) for i in range(self.num_envs))
        return None
