"""The view's layout (simcore/view.py) holds together: fields do not overlap, VIEW_LEN holds them
all, the per-hand zeroed part ends on a field boundary, and the packed encodings round-trip."""

from __future__ import annotations

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
