"""The PettingZoo AEC environment: four agents, one at each seat, for self-play. ``env()`` is the
wrapped environment as PettingZoo's classic games give it, ``raw_env`` the bare one."""

from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from simcore.engine import agents as AG
from simcore.env.gym_env import REWARDS, fresh_seed
from simcore.env.spaces import action_space, observation_space
from simcore.env.tables import Tables

AGENTS = tuple(f"player_{s}" for s in range(4))


def env(**kwargs):
    """The AEC environment with PettingZoo's order and bounds checks (an action outside the mask
    is refused by the environment itself, with a clear error)."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped class)
    """Every seat an agent (``player_0`` .. ``player_3`` at seats 0-3). An episode is one hand
    (``match=True``: a match); ``reset(seed=s)`` starts at hand 0 of seed s and each later
    ``reset()`` plays the next hand index. The agent to act is the seat whose question is asked
    (every question with two or more legal answers; several seats at the exchange, the void
    choice and the claims are asked one after another, in the engine's order); its
    observation's mask shows its legal actions, every other agent's mask is zeros. Rewards: each
    seat's net at the hand's end (``reward="paid"``: points as they are paid). PettingZoo removes
    the agents (and their ``rewards``) as the loop steps them out at the end, so the episode's
    totals stay readable after it in ``episode_rewards`` ({agent: points}), and the finished
    hand's rows in ``last_result``. The parallel API is not given: the game asks one seat at a
    time except the exchange and the void choice."""

    metadata = {"render_modes": ["ansi"], "name": "sichuan_table_v0", "is_parallelizable": False}

    def __init__(self, rules="battle", match: bool = False, reward: str = "hand", raw_view: bool = False,
                 draw_order: str = "table", render_mode=None, record_trace: bool = False):
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        self.tables = Tables(1, rules, "random", agents=(0, 1, 2, 3), match=match, paid_now=reward == "paid",
                             draw_order=draw_order, record=record_trace)
        self.possible_agents = list(AGENTS)
        self.raw_view = raw_view
        self.render_mode = render_mode
        self._obs_space = observation_space()
        self._act_space = action_space()
        self._seed = None
        self._next_item = 0
        self._other = np.zeros_like(self.tables.obs[0])
        self.episode_rewards = {a: 0.0 for a in AGENTS}
        self.last_result = None

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def observe(self, agent):
        t = self.tables
        if self.terminations.get(agent, True):   # the hand is over: nothing is asked
            return {"observation": np.zeros_like(t.obs[0]), "action_mask": np.zeros_like(t.masks[0])}
        if agent == self.agent_selection:
            return {"observation": t.obs[0].copy(), "action_mask": t.masks[0].copy()}
        AG.observe_seat(t.ST, t.E, 0, AGENTS.index(agent), self._other)
        return {"observation": self._other.copy(), "action_mask": np.zeros_like(t.masks[0])}

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._seed, self._next_item = int(seed), 0
        elif self._seed is None:
            self._seed = fresh_seed()
        self.tables.reset(self._seed, first=self._next_item, stride=1)
        self._next_item += 1
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.episode_rewards = {a: 0.0 for a in AGENTS}
        self.last_result = None
        self._select()

    def _select(self) -> None:
        t = self.tables
        self.agent_selection = AGENTS[t.pending_seat(0)]
        info = {"hand": t.hand_index(0), "question": t.question_name(0)}
        if self.raw_view:
            info["view"] = t.views()[0]
        self.infos[self.agent_selection] = info

    def step(self, action):
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        t = self.tables
        self._cumulative_rewards[self.agent_selection] = 0
        t.step(np.array([int(action)], np.int64))
        status = int(t.status[0])
        for s, a in enumerate(AGENTS):
            self.rewards[a] = float(t.reward[0, s])
            self.episode_rewards[a] += self.rewards[a]
        if status == AG.EPISODE_END:
            result = self.last_result = t.result(0)
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = {"hand": result.g, "result": result}
        else:
            if status == AG.HAND_END:
                for a in self.agents:
                    self.infos[a] = {"result": t.result(0)}
            self._select()
        self._accumulate_rewards()

    def builtin_action(self, spec: str) -> int:
        """The action seat spec ``spec`` would take at the pending decision (for the seat asked)."""
        return int(self.tables.builtin(spec)[0])

    def trace(self):
        """The last finished hand as the project's trace (``record_trace=True``; ``TableEnv.trace``)."""
        return self.tables.trace(0)

    def write_trace(self, path) -> None:
        """The last finished hand's trace as JSON Lines (``sichuan trace --from PATH``)."""
        from simcore.env.gym_env import _write_events

        _write_events(path, self.trace().events)

    def render(self):
        """``render_mode="ansi"``: the table as text."""
        if self.render_mode == "ansi":
            return self.tables.text(0)
        return None

    def close(self):
        pass
