"""Every name of the engine's modules in one namespace, for white-box tests of the engine (its
offsets, private helpers and entry points); code outside the tests reaches the engine through
``simcore.engine``'s surface only (tests/test_layers.py)."""

from simcore.engine import (access, agents, ask, checks, hand, kernel, legal, luck_terms, opening, sample, settle,
                            shadow, state, table, turns)

for _module in (state, table, checks, legal, settle, shadow, ask, luck_terms, opening, turns, hand, kernel, access):
    globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
del _module
