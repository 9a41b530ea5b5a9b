"""Python and neural agents at the engine's tables (README: Python agents; ARCHITECTURE.md: Agents
outside the engine).

- ``sichuan/Table-v0`` (registered with Gymnasium on import): ``gymnasium.make("sichuan/Table-v0",
  rules="battle", opponents="expert", seat=0)``, and its vector entry point
  (``gymnasium.make_vec(..., num_envs=N, vectorization_mode="vector_entry_point")``);
- ``env(rules=...)`` / ``raw_env``: the PettingZoo AEC environment, four agents;
- ``Tables``: the engine's tables with agent seats, under all of them (``sichuan dataset`` too).

Observations are ``{"observation": float32[OBS_LEN], "action_mask": int8[N_ACTIONS]}``
(``describe_observation()`` documents every slot), actions one ``Discrete(N_ACTIONS)``
(``simcore.contract.actions``). Needs the ``agents`` extra (gymnasium, pettingzoo).
"""

from __future__ import annotations

from simcore.contract.actions import N_ACTIONS, action_name
from simcore.engine.agents import OBS_FIELDS, OBS_LEN
from simcore.env.tables import EngineError, HandResult, IllegalActionError, Tables

ENV_ID = "sichuan/Table-v0"
_LAZY = {"TableEnv": "simcore.env.gym_env", "TableVectorEnv": "simcore.env.gym_env",
         "env": "simcore.env.pz_env", "raw_env": "simcore.env.pz_env", "describe_observation": "simcore.env.spaces"}
__all__ = ["ENV_ID", "N_ACTIONS", "OBS_FIELDS", "OBS_LEN", "EngineError", "HandResult", "IllegalActionError", "Tables",
           "action_name", *_LAZY]


def _register() -> None:
    try:
        import gymnasium
    except ImportError:   # the agents extra is not installed: Tables still work
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="simcore.env.gym_env:TableEnv",
                           vector_entry_point="simcore.env.gym_env:TableVectorEnv")


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        try:
            module = importlib.import_module(_LAZY[name])
        except ImportError as e:
            raise ImportError(f"simcore.env.{name} needs the agents extra: pip install -e '.[agents]' "
                              f"(or make setup); {e}") from None
        return getattr(module, name)
    raise AttributeError(f"module 'simcore.env' has no attribute {name!r}")


_register()
