"""``simcore.runs.shards``: a batch's four Arrow tables hold every used row and slot of the
engine's outputs (checked against a plain numpy reading of them), shards are written whole or not
at all, and a manifest that is missing or foreign is one clear line."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from simcore.contract import records as rec
from simcore.contract.rules import preset
from simcore.runs import shards as rio
from simcore.runs.batch import run_batch
from strategies.registry import parse_seats, seat_functions

NAMES = ["greedy", "efficient", "random", "defensive"]


@pytest.fixture(scope="module")
def batch():
    res = run_batch(preset("flow"), seat_functions(parse_seats(",".join(NAMES))), 3, 100, 400)
    return res, rio.batch_tables(res, NAMES)


def test_every_table_has_the_documented_columns_in_order(batch):
    _, tables = batch
    for name, cols in rio.COLUMNS.items():
        assert tables[name].column_names == [c[0] for c in cols], name


def test_seat_rows_are_the_engines_fields(batch):
    res, tables = batch
    seats = tables["seats"].to_pandas()
    flat = res.seat.reshape(-1, res.seat.shape[2])        # (hand, seat) in order
    assert (seats["net"].to_numpy() == flat[:, rec.S_NET]).all()
    assert (seats["wins"].to_numpy() == flat[:, rec.S_WINS]).all()
    assert (seats["kongs"].to_numpy() == flat[:, rec.S_KONGS]).all()
    for r, column in enumerate(rec.NET_COLUMNS):
        assert (seats[column].to_numpy() == flat[:, rec.S_NET_REASON + r]).all(), column
    assert (seats["hand"].to_numpy() == np.repeat(res.hands, 4)).all()
    assert seats["strategy"].astype(str).tolist() == NAMES * res.n


def test_payment_and_win_rows_are_the_used_slots_in_order(batch):
    """Slot w of hand i is a row exactly when w < the hand's count, in hand then slot order."""
    res, tables = batch
    pays = tables["payments"].to_pandas()
    want = [(int(res.hands[i]), *res.pay[i, w, [rec.P_PAYER, rec.P_PAYEE, rec.P_AMOUNT]])
            for i in range(res.n) for w in range(res.hand[i, rec.H_N_PAYMENTS])]
    got = list(zip(pays["hand"], pays["payer"], pays["payee"], pays["amount"]))
    assert got == [tuple(int(x) for x in row) for row in want] and len(got) > res.n
    wins = tables["wins"].to_pandas()
    want = [(int(res.hands[i]), *res.win[i, w, [rec.W_SEAT, rec.W_ORDER, rec.W_FAN, rec.W_BASE, rec.W_PAID]])
            for i in range(res.n) for w in range(res.hand[i, rec.H_N_WINS])]
    got = list(zip(wins["hand"], wins["seat"], wins["order"], wins["fan"], wins["base"], wins["paid"]))
    assert got == [tuple(int(x) for x in row) for row in want]


def test_a_chunk_is_written_whole_and_carries_its_hand_range(batch, tmp_path):
    _, tables = batch
    rio.write_shards(tmp_path, 7, tables, {"seed": 3}, 100, 400)
    assert rio.complete_chunks(tmp_path) == {7}
    meta, rows = rio.shard_footer(tmp_path / "seats" / rio.shard_name(7))
    assert (meta["chunk"], meta["first"], meta["count"], rows) == (7, 100, 400, 1600)
    assert not list(tmp_path.rglob(".*.tmp"))
    assert pq.read_table(tmp_path / "hands" / rio.shard_name(7)).num_rows == 400


def test_a_chunk_missing_from_one_table_is_incomplete_and_removed(batch, tmp_path):
    _, tables = batch
    rio.write_shards(tmp_path, 0, tables, {}, 0, 400)
    rio.write_shards(tmp_path, 1, tables, {}, 400, 400)
    (tmp_path / "wins" / rio.shard_name(1)).unlink()
    (tmp_path / "seats" / ".leftover.tmp").write_text("half a shard")
    assert rio.complete_chunks(tmp_path) == {0}
    rio.remove_partial(tmp_path, rio.complete_chunks(tmp_path))
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [rio.shard_name(0)] * 4


def test_a_failed_write_leaves_no_file(batch, tmp_path):
    _, tables = batch
    (tmp_path / "payments").write_text("a file where a folder should be")
    with pytest.raises(rio.ShardWriteError) as info:
        rio.write_shards(tmp_path, 0, tables, {}, 0, 400)
    assert info.value.chunk == 0
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "payments"]


@pytest.mark.parametrize("make,needle", [(lambda d: d / "nowhere", "does not exist"),
                                         (lambda d: d, "is not a run directory")])
def test_a_missing_manifest_is_one_line(tmp_path, make, needle):
    with pytest.raises(ValueError, match=needle) as info:
        rio.read_manifest(make(tmp_path))
    assert "\n" not in str(info.value)
