"""The view's layout (simcore/contract/view.py) holds together: fields do not overlap, VIEW_LEN
holds them all, the per-hand zeroed part ends on a field boundary, and the packed encodings
round-trip."""

from __future__ import annotations

import numpy as np

import simcore.contract.view as vw
from simcore.contract.tiles import N_KINDS


def test_no_two_view_fields_overlap_and_view_len_holds_them_all():
    fields = sorted(vw.fields().items(), key=lambda kv: kv[1][0])
    assert len(fields) >= 37
    for (name_a, (a, n)), (name_b, (b, _)) in zip(fields, fields[1:]):
        assert a + n <= b, f"{name_a} [{a}, {a + n}) overlaps {name_b} at {b}"
    last, (start, n) = fields[-1]
    assert start + n <= vw.VIEW_LEN, f"{last} ends at {start + n}, past VIEW_LEN {vw.VIEW_LEN}"


def test_the_zeroed_part_ends_between_fields():
    for name, (start, n) in vw.fields().items():
        assert start + n <= vw.V_ZEROED or start >= vw.V_ZEROED, f"{name} straddles V_ZEROED"


def test_slot_names_name_the_field_and_offset():
    assert vw.slot_name(vw.V_HAND) == "V_HAND"
    assert vw.slot_name(vw.V_HAND + 5) == "V_HAND+5"
    assert vw.slot_name(vw.V_SCRATCH + vw.N_SCRATCH - 1) == f"V_SCRATCH+{vw.N_SCRATCH - 1}"
    assert vw.slot_name(28) == "?"  # between V_KONG_DISCARD and V_HAND


def test_discard_entries_and_pack3_round_trip():
    for seat in range(4):
        for t in range(N_KINDS):
            x = vw.pack_discard.py_func(seat, t)
            assert (vw.discard_seat.py_func(x), vw.discard_tile.py_func(x)) == (seat, t)
    for a, b, c in ((0, 0, 0), (26, 25, 24), (3, 17, 9)):
        x = vw.pack3.py_func(a, b, c)
        assert 0 <= x < vw.PACK3_END and vw.unpack3.py_func(x) == (a, b, c)


# Every slot as written out by hand, not derived (contract version 3: the rule slots grew from 32
# to 48, moving V_PARAMS and what follows by 16, and each parameter group from 16 slots to 32,
# moving what follows V_PARAMS by 48 more): user strategies and saved traces read these
# numbers, so a field that moves must be a deliberate change of the contract, with its version.
PINNED = {
    "V_ME": 0, "V_DEALER": 1, "V_QUESTION": 2, "V_TILE": 3, "V_FROM": 4, "V_CAN_WIN": 5, "V_CAN_PUNG": 6,
    "V_CAN_KONG": 7, "V_KONG_MASK": 8, "V_LOCKED": 9, "V_MUST_VOID": 10, "V_WALL_LEFT": 11,
    "V_EXCHANGE_DIR": 12, "V_AFTER_PUNG": 13, "V_N_DISCARDS": 14, "V_HAND_INDEX": 15, "V_RNG_KEY": 16,
    "V_RNG_COUNT": 17, "V_N_DRAWS": 18, "V_FLOW": 19, "V_CODES": 20, "V_N2": 23, "V_N1": 24,
    "V_REPLACEMENT": 25, "V_ARENA": 26, "V_KONG_DISCARD": 27, "V_HAND": 32, "V_VOID": 59, "V_WINS": 63,
    "V_OUT": 67, "V_SCORE": 71, "V_N_MELDS": 75, "V_MELD_KIND": 79, "V_MELD_TILE": 95, "V_PASSED": 111,
    "V_RECEIVED": 114, "V_VISIBLE": 117, "V_ZEROED": 144, "V_SCRATCH": 144, "V_REVEALED": 400,
    "V_DISC_SEQ": 508, "V_RULES": 636, "V_PARAMS": 684, "V_DRAWS": 780, "V_VOID_CAP": 784,
    "V_KONG_INCOME": 788, "V_TURN_KONG": 804, "V_TURN_KONG_SEAT": 808, "V_KONG_FEEDER": 809, "V_PUBLIC": 780,
}


def test_every_view_slot_is_where_it_was():
    assert vw.VIEW_LEN == 810 and vw.CONTRACT_VERSION == 3
    assert (vw.N_SCRATCH, vw.N_DISC_SEQ, vw.N_RULE_SLOTS, vw.N_PARAMS, vw.WRAPPED_PARAMS) == (256, 128, 48, 32, 16)
    names = {k: v for k, v in vars(vw).items() if k.startswith("V_")}
    assert names == PINNED
    assert all(type(v) is int for v in names.values())  # plain ints: numba freezes them as constants
    assert vw.fields() == {k: (v, vw.FIELD_LENGTHS.get(k, 1)) for k, v in PINNED.items()
                           if k not in ("V_ZEROED", "V_PUBLIC")}
    assert [vw.slot_name(i) for i in range(28, 32)] == ["?"] * 4  # the unused slots stay unused


def test_the_rule_slots_have_room_for_sixteen_more_options():
    from simcore.contract.rules import PRESETS, preset

    for name in PRESETS:
        assert vw.N_RULE_SLOTS >= len(preset(name).to_array()) + 16, name


def test_the_contract_version_is_the_strategies_api_one():
    import strategies.api

    assert strategies.api.CONTRACT_VERSION == vw.CONTRACT_VERSION == 3


def test_a_view_of_an_older_layout_reads_in_this_one():
    """``upgrade_view`` (a dataset's kept views): every named fact lands in its slot."""
    new = np.arange(vw.VIEW_LEN, dtype=np.int64) + 1000
    for g in range(3):   # a built-in's parameters only: a group's first 16 slots
        new[vw.V_PARAMS + g * vw.N_PARAMS + 16:vw.V_PARAMS + (g + 1) * vw.N_PARAMS] = 0
    new[vw.V_RULES + 32:vw.V_RULES + vw.N_RULE_SLOTS] = 0
    for version, (rules, params) in vw.LAYOUTS.items():
        old = np.concatenate([new[:vw.V_RULES + rules],
                              *[new[vw.V_PARAMS + g * vw.N_PARAMS:vw.V_PARAMS + g * vw.N_PARAMS + params]
                                for g in range(3)], new[vw.V_PUBLIC:]])
        if params == vw.N_PARAMS:
            old = np.concatenate([new[:vw.V_PARAMS + 3 * vw.N_PARAMS], new[vw.V_PUBLIC:]]) if rules == 48 else old
        np.testing.assert_array_equal(vw.upgrade_view(old, version), new)
