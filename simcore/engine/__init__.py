"""The engine's public surface: what the rest of the project may call (ARCHITECTURE.md: The engine).

Code outside ``simcore/engine/`` imports the engine's names from here, never a private name
(``_x``) or a raw state offset (``O_*``) of its modules (``tests/test_layers.py`` refuses both): a
state is read through the accessors of ``simcore.engine.state`` (from Python) and
``simcore.engine.access`` (from jitted code). ``agents`` (many tables with agent seats) is a
surface module of its own: its public names may be used.

Importing the engine compiles nothing: each entry point is compiled when first asked for
(``batch_kernel``, ``shadowed_kernel``, ``fit_kernel``, ``traced``).
"""

from simcore.engine import agents
from simcore.engine.access import answer_at, events_at, log_at, net_at, set_hand_at, view_at
from simcore.engine.hand import play_hand, play_on
from simcore.engine.kernel import (
    BLOCK, FIT_LEN, arena_len, batch_kernel, fit_kernel, play_batch, play_fit, play_shadowed, play_traced,
    shadowed_kernel, traced,
)
from simcore.engine.luck import FEATURE_NAMES, N_FEATURES
from simcore.engine.options import RunOptions
from simcore.engine.sample import (
    WK_END, WK_SHAPE, arena_for, arena_with, play_table, pose, sample_failure, sample_state, sample_table,
    set_answer,
)
from simcore.engine.state import (
    AGENTS_PAUSE, AT_END, DEAL_END, N_DRAWABLE, PAUSED, ROLLOUT_STATE_LEN, STATE_FIELDS, buffer_caps, concealed,
    events_logged, hand_index, hand_over, is_locked, kongs_declared, layout, log_rows, meld_counts,
    SCRIPT_AT_CHOICE, melds, new_state, passed_tiles, script_used, seat_view, set_pause, state_table, void_of,
    wall_tiles,
)

__all__ = [
    "agents",
    # entry points and what sizes their inputs
    "play_batch", "play_shadowed", "play_fit", "play_traced", "batch_kernel", "shadowed_kernel", "fit_kernel",
    "traced", "BLOCK", "FIT_LEN", "arena_len", "RunOptions", "N_FEATURES", "FEATURE_NAMES",
    # one hand's state: made, played on, read
    "new_state", "layout", "log_rows", "play_hand", "play_on", "STATE_FIELDS", "state_table", "ROLLOUT_STATE_LEN",
    "AT_END", "PAUSED", "AGENTS_PAUSE", "DEAL_END", "N_DRAWABLE",
    "hand_index", "seat_view", "set_pause", "buffer_caps", "events_logged", "hand_over", "concealed",
    "meld_counts", "melds", "kongs_declared", "void_of", "is_locked", "wall_tiles", "script_used", "passed_tiles",
    "SCRIPT_AT_CHOICE",
    "view_at", "net_at", "answer_at", "set_hand_at", "events_at", "log_at",
    # sampled tables (search)
    "sample_state", "set_answer", "WK_END", "WK_SHAPE", "arena_for", "arena_with", "pose", "sample_table",
    "play_table", "sample_failure",
]
