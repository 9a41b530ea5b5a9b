"""The observation and action spaces every environment of ``simcore.env`` shares, and the
observation's slots as documentation (``describe_observation``)."""

from __future__ import annotations

import numpy as np

from simcore.contract.actions import N_ACTIONS
from simcore.engine.agents import OBS_FIELDS, OBS_LEN, OBS_START

# each field's bounds where they are not counts of a tile kind (0-4)
_BOUNDS = {"wall_left": (0, 56), "score": (-1e7, 1e7), "void_cap": (-1, 14), "wins": (0, 60), "draws": (0, 60),
           "from": (0, 1), "question": (0, 1), "pick": (0, 1), "flags": (0, 1), "dealer": (0, 1),
           "exchange_dir": (0, 1), "voids": (0, 1), "out": (0, 1), "recent": (0, 1), "rules": (-1e4, 1e4),
           "kongs_paid": (-1e4, 1e4), "win_offer": (0, 1e6)}


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    low = np.zeros(OBS_LEN, np.float32)
    high = np.full(OBS_LEN, 4, np.float32)
    for name, n, _ in OBS_FIELDS:
        lo, hi = _BOUNDS.get(name, (0, 4))
        low[OBS_START[name]:OBS_START[name] + n] = lo
        high[OBS_START[name]:OBS_START[name] + n] = hi
    return low, high


def observation_space():
    """``Dict(observation=Box(OBS_LEN float32), action_mask=Box(N_ACTIONS int8, 0/1))``, as masked
    Gymnasium and PettingZoo classic environments give it."""
    from gymnasium import spaces

    low, high = observation_bounds()
    return spaces.Dict({"observation": spaces.Box(low, high, (OBS_LEN,), np.float32),
                        "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8)})


def action_space(legal=None):
    """``Discrete(N_ACTIONS)``. With ``legal`` (a function giving the pending decision's mask),
    ``sample()`` without a mask draws among the legal actions, so a checker or a quick random
    agent that samples the space plays legal moves (an action outside the mask is refused). It
    pickles as the plain ``Discrete`` (the mask lives in the environment, which rebuilds it)."""
    from gymnasium import spaces

    return _legal_spaces()[0](N_ACTIONS, legal) if legal is not None else spaces.Discrete(N_ACTIONS)


def batched_action_space(n: int, legal=None):
    """``MultiDiscrete([N_ACTIONS] * n)``, a vector env's action space; with ``legal`` (a function
    giving the (n, N_ACTIONS) masks), ``sample()`` draws a legal action for every table with
    one. Pickles as the plain ``MultiDiscrete``."""
    from gymnasium import spaces

    nvec = np.full(n, N_ACTIONS, np.int64)
    return _legal_spaces()[1](nvec, legal) if legal is not None else spaces.MultiDiscrete(nvec)


_SPACES: list = []


def _legal_spaces():
    """The two space classes whose ``sample`` respects the environment's masks (defined once,
    at module level, when gymnasium is first needed: the core does not import it)."""
    if _SPACES:
        return _SPACES
    from gymnasium import spaces

    class LegalDiscrete(spaces.Discrete):
        def __init__(self, n, legal):
            super().__init__(n)
            self.legal = legal

        def sample(self, mask=None, probability=None):
            if mask is None and probability is None:
                m = self.legal()
                if m.any():
                    mask = m
            return super().sample(mask=mask, probability=probability)

        def __reduce__(self):
            return spaces.Discrete, (int(self.n),)

    class LegalMultiDiscrete(spaces.MultiDiscrete):
        def __init__(self, nvec, legal):
            super().__init__(nvec)
            self.legal = legal

        def sample(self, mask=None, probability=None):
            if mask is None and probability is None:
                # a table with nothing asked (past its last hand) gets action 0: it is ignored
                mask = tuple(self.legal())
            return super().sample(mask=mask, probability=probability)

        def __reduce__(self):
            return spaces.MultiDiscrete, (np.asarray(self.nvec),)

    LegalDiscrete.__module__ = LegalMultiDiscrete.__module__ = __name__
    _SPACES.extend((LegalDiscrete, LegalMultiDiscrete))
    return _SPACES


def describe_observation() -> str:
    """The observation's slots as a Markdown table (docs/AGENTS.md holds it)."""
    rows = ["| slots | field | what it holds |", "|---|---|---|"]
    for name, n, what in OBS_FIELDS:
        a = OBS_START[name]
        rows.append(f"| {a}-{a + n - 1} | `{name}` | {what} |" if n > 1 else f"| {a} | `{name}` | {what} |")
    return "\n".join(rows)
