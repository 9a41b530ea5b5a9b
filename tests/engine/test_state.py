"""The state array as declared (``simcore.engine.state``): every field in its own slots, each region
one stretch, ``_reset`` clearing the hand's region and nothing else, a sampled table rebuilding the
fields the table says it must, and the architecture doc showing the table as it is."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import numba
import numpy as np

from simcore.contract.nrt import data_ptr
from simcore.engine import opening, sample, state, table
from simcore.engine.state import FIELDS, OFFSETS, LEFT_ZERO, REBUILT, REGIONS, STATE_FIELDS

ROOT = Path(__file__).resolve().parents[2]


def test_fields_tile_the_fixed_slots_without_overlap():
    covered = np.zeros(state.O_FIXED_END, np.int64)
    for f in STATE_FIELDS:
        assert f.length > 0 and f.name.startswith("O_"), f
        assert f.region in REGIONS and f.rollout in (REBUILT, LEFT_ZERO), f
        covered[OFFSETS[f.name]:OFFSETS[f.name] + f.length] += 1
        assert getattr(state, f.name) == OFFSETS[f.name]
    assert (covered == 1).all(), "every fixed slot belongs to exactly one field"


def test_each_region_is_one_stretch_in_order():
    spans = [state.region_span(r) for r in REGIONS]
    assert spans[0][0] == 0 and spans[-1][1] == state.O_FIXED_END
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert end == start, "regions follow each other"
    for f in STATE_FIELDS:
        lo, hi = state.region_span(f.region)
        assert lo <= OFFSETS[f.name] and OFFSETS[f.name] + f.length <= hi, f.name
    assert (state.HAND_START, state.HAND_END) == state.region_span(state.IN_HAND)


@numba.njit
def _reset_now(S, dealer):
    opening._reset(data_ptr(S), np.int64(dealer))


def test_reset_clears_the_hand_region_and_keeps_the_header_and_wall():
    S = np.full(state.layout(4, 8, 0, 0)[0], 7, np.int64)
    S[state.O_SCRATCH_USE:state.O_SCRATCH_USE + 4] = 0
    S[state.O_REVEALED_ROWS] = 0
    before = S.copy()
    _reset_now(S, 1)
    written = _names_written(opening._reset.py_func)   # what _reset sets after zeroing
    for f in STATE_FIELDS:
        got = S[OFFSETS[f.name]:OFFSETS[f.name] + f.length]
        if f.region in (state.IN_HEADER, state.IN_WALL):
            if f.name != "O_REVEALED_ROWS":
                assert (got == before[OFFSETS[f.name]:OFFSETS[f.name] + f.length]).all(), f"_reset wrote {f.name}"
        elif f.region == state.IN_HAND and f.name not in written:
            assert (got == 0).all(), f"_reset left {f.name} uncleared"


def _names_written(fn) -> set[str]:
    """The state fields a jitted function assigns to: ``S[O_X + ...] = ...`` (also through a local
    set from O_X, and view slots through ``_v(seat)`` as O_VIEWS)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    alias: dict[str, set[str]] = {}

    def fields_in(node) -> set[str]:
        out = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                if n.id in FIELDS:
                    out.add(n.id)
                out |= alias.get(n.id, set())
            elif isinstance(n, ast.Attribute) and n.attr in FIELDS:
                out.add(n.attr)
            elif isinstance(n, ast.Call) and getattr(n.func, "id", "") == "_v":
                out.add("O_VIEWS")
        return out

    written = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            alias[node.targets[0].id] = fields_in(node.value)
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AugAssign) else []
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Subscript) and getattr(sub.value, "id", "") == "S":
                    written |= fields_in(sub.slice)
    return written


def test_a_sampled_table_rebuilds_what_the_table_says():
    """Both ways: each REBUILT field is written by the sampler (``_fill_state``, ``_fill_views``,
    ``set_answer``, and ``_recount`` which ``_fill_views`` calls), and each field they write is
    declared REBUILT; the rest start at zero (the sampler zeroes the whole state first)."""
    written = set()
    for fn in (sample._fill_state, sample._fill_views, sample.set_answer, table._recount):
        written |= _names_written(fn.py_func)
    rebuilt = {f.name for f in STATE_FIELDS if f.rollout == REBUILT}
    assert rebuilt - written == set(), f"declared rebuilt, never written by the sampler: {sorted(rebuilt - written)}"
    assert written - rebuilt == set(), f"written by the sampler, declared zero: {sorted(written - rebuilt)}"


def test_the_architecture_doc_shows_the_state_table():
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert state.state_table() in doc, "docs/ARCHITECTURE.md's state table is not state.state_table(): run python scripts/state_table.py"
