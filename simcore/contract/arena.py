"""The search arena: memory a searching seat owns during a batch, where it builds sampled states
and plays them out (ARCHITECTURE.md: Search).

The engine gives every seat whose strategies declare a rollout policy
(``strategies.params.parameters(..., rollout="policy")``) an arena per block of hands and writes its address into the seat's view
(``simcore.contract.view.V_ARENA``). An arena holds the rollout players (their addresses and setup, laid out
as the engine's header holds the seats' own), then room for sampled states and the sampler's work.
It never holds anything of the hidden state: the searching strategy fills it from its view alone.

Layout of one seat's arena (int64 slots)::

    AR_LEN      its length in slots (0: the seat has no arena)
    AR_FNS      24 slots: the rollout players' addresses, [2 * (group*4 + seat)] as engine O_FNS
    AR_SETUP    view.SETUP_LEN slots: the rollout players' setup (parameters, scratch use)
    AR_STATE_LEN  the length of one rollout state
    AR_STATES   the first of the arena's rollout states (N_STATES of them), then AR_WORK slots
                of sampler work space
"""

from __future__ import annotations

from simcore.contract.view import SETUP_LEN

AR_LEN = 0
AR_FNS = 1
AR_SETUP = AR_FNS + 24
AR_STATE_LEN = AR_SETUP + SETUP_LEN
AR_HEADER = AR_STATE_LEN + 1    # a seat's template (``strategies.registry.Players.arena``) is this long
AR_STATES = AR_HEADER
N_STATES = 2                    # a sampled state, and the copy a rollout plays
AR_WORK = 2048                  # slots of sampler and search work space after the states


def arena_len(state_len: int) -> int:
    """Slots of one seat's arena for rollout states of ``state_len`` slots."""
    return AR_STATES + N_STATES * state_len + AR_WORK
