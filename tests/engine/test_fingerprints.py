"""Play is unchanged: every fingerprinted run (tests/support/fingerprints.py) gives the recorded digest
of every column of every table. A change meant to change play re-records them
(``python -m tests.support.fingerprints --record``) and says so in its commit."""

from __future__ import annotations

import json

import pytest

from tests.support.fingerprints import DATA, fingerprint

RECORDED = json.loads(DATA.read_text())


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_play_matches_its_fingerprint(name):
    case = RECORDED[name]
    got = fingerprint(case["preset"], case["seats"], case["mode"])
    for table, cols in case["tables"].items():
        for col, digest in cols.items():
            assert got[table].get(col) == digest, f"{name}: {table}.{col} changed"


def test_chunking_does_not_change_the_fingerprint():
    """The same run cut into other chunks has the same content (the runner's promise)."""
    name = "flow/5"
    case = RECORDED[name]
    got = fingerprint(case["preset"], case["seats"], case["mode"], chunk_hands=700)
    assert got == case["tables"] or all(
        got[t].get(c) == d for t, cols in case["tables"].items() for c, d in cols.items())
