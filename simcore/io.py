"""Run directories: Arrow tables from a batch, atomic Parquet shards, the run manifest.

A run directory holds ``run.json`` (the manifest) and four Parquet datasets, one shard per
chunk: ``hands/``, ``seats/``, ``payments/``, ``wins/`` (DESIGN.md: output). A shard is written
under a name starting with ``.`` (dataset readers skip those) and renamed when complete; the
run's configuration goes into every file's key-value metadata. ``COLUMNS`` documents every
column; the README's table is generated from it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from . import engine as E
from .batch import BatchResult
from .evaluate import PATTERNS
from .tiles import SUITS, tile_text

SCHEMA_VERSION = 1
TABLES = ("hands", "seats", "payments", "wins")
MANIFEST = "run.json"
SHARD_RE = re.compile(r"^part-(\d{6})\.parquet$")
META_KEY = b"sichuan_run"

TILE_TEXTS = [tile_text(t) for t in range(27)]


def _dict(values: np.ndarray, labels) -> pa.DictionaryArray:
    """Codes (-1 for null) -> a dictionary-encoded string array over ``labels``."""
    codes = np.asarray(values, np.int32)
    mask = codes < 0
    return pa.DictionaryArray.from_arrays(pa.array(np.where(mask, 0, codes), pa.int8(), mask=mask),
                                          pa.array(list(labels), pa.string()))


def _nullable(values, dtype, null_mask) -> pa.Array:
    return pa.array(np.asarray(values).astype(dtype), mask=null_mask)


COLUMNS: dict[str, list[tuple[str, str, str]]] = {
    "hands": [
        ("hand", "int64", "global hand index, unique within the run"),
        ("match", "int32, null", "match index (null for independent hands)"),
        ("hand_in_match", "int16, null", "hand's position in its match, from 0 (null for independent hands)"),
        ("dealer", "int8", "seat that dealt the hand"),
        ("exchange_direction", "int8", "+1, -1 or +2 (receiver = seat + direction); 0 without an exchange"),
        ("end_reason", "string (dict)", "three_won or wall_exhausted"),
        ("tiles_left", "int8", "wall tiles left at the end"),
        ("winners", "int8", "seats that won at least once"),
        ("turns", "int16", "draws in the hand, kong replacements included"),
        ("next_dealer", "int8", "who deals next by RULES.md (first winner, discarder of a multi-win, or the dealer)"),
    ],
    "seats": [
        ("hand", "int64", "global hand index"),
        ("match", "int32, null", "match index (null for independent hands)"),
        ("hand_in_match", "int16, null", "hand's position in its match (null for independent hands)"),
        ("seat", "int8", "seat 0-3"),
        ("strategy", "string (dict)", "the seat's canonical strategy spec, e.g. efficient+exchange=shortest+void=fewest"),
        ("dealer", "bool", "the seat dealt this hand"),
        ("void_suit", "string (dict)", "m, p or s"),
        ("net", "int32", "the seat's net points this hand (sum of its payments)"),
        ("won", "bool", "the seat won at least once"),
        ("wins", "int16", "the seat's wins this hand (several in blood flow)"),
        ("win_order", "int16, null", "order number of the seat's first win among the hand's wins (1 = first)"),
        ("win_kind", "string (dict), null", "first win: self_draw, discard, kong_replacement or robbing_kong"),
        ("fan", "int16, null", "first win's fan before the cap"),
        ("base", "int32, null", "first win's base value 2**min(fan, fan_cap)"),
        ("flower_pig", "bool, null", "held a void-suit tile at the exhausted wall (null: not checked)"),
        ("ready", "bool, null", "ready at the exhausted wall (null: not checked, i.e. won or hand ended three_won)"),
        ("kongs", "int8", "kongs the seat declared (robbed ones excluded)"),
        ("net_win", "int32", "net from win payments (all wins)"),
        ("net_kong", "int32", "net from kong payments"),
        ("net_flower_pig", "int32", "net from flower-pig penalties"),
        ("net_not_ready", "int32", "net from the ready check"),
        ("net_kong_refund", "int32", "net from kong refunds"),
        ("net_kong_discard_liability", "int32", "net from kong_discard_liability payments"),
        ("score_before", "int32", "the seat's score before the hand (match play; 0 for independent hands)"),
    ],
    "payments": [
        ("hand", "int64", "global hand index"),
        ("payer", "int8", "seat that pays"),
        ("payee", "int8", "seat that receives"),
        ("amount", "int32", "points, > 0"),
        ("reason", "string (dict)", "win, kong, flower_pig, not_ready, kong_refund or kong_discard_liability"),
    ],
    "wins": [
        ("hand", "int64", "global hand index"),
        ("match", "int32, null", "match index (null for independent hands)"),
        ("hand_in_match", "int16, null", "hand's position in its match (null for independent hands)"),
        ("seat", "int8", "the winner"),
        ("order", "int16", "1 for the hand's first win, counting every win; winners on one tile in turn order from the discarder"),
        ("turn", "int16", "draws in the hand so far, replacements included (0: the dealer's initial tiles)"),
        ("win_kind", "string (dict)", "self_draw, discard, kong_replacement or robbing_kong"),
        ("tile", "string (dict)", "the winning tile, e.g. 5m (for a win on the dealer's initial tiles: the tile set aside)"),
        ("from_seat", "int8, null", "the discarder or the robbed kong's seat (null for self-draws)"),
        ("fan", "int16", "fan before the cap (fan_cap for a limit hand)"),
        ("base", "int32", "2**min(fan, fan_cap)"),
        ("paid", "int32", "total received for this win"),
    ] + [(p, "int8", f"fan of the {p} pattern (0 if absent{'; one per root' if p == 'root' else ''})") for p in PATTERNS],
}


def batch_tables(res: BatchResult, strategies: list[str]) -> dict[str, pa.Table]:
    """The four Arrow tables of one batch."""
    n = res.n
    hands = res.hands.astype(np.int64)
    h = np.ascontiguousarray(res.hand.T)  # one contiguous row per field: cheap column slices
    if res.match_mode:
        match = (hands // res.hands_per_match).astype(np.int32)
        him = (hands % res.hands_per_match).astype(np.int16)
        null = np.zeros(n, bool)
    else:
        match = np.zeros(n, np.int32)
        him = np.zeros(n, np.int16)
        null = np.ones(n, bool)
    t_hands = pa.table({
        "hand": hands,
        "match": pa.array(match, mask=null),
        "hand_in_match": pa.array(him, mask=null),
        "dealer": h[E.H_DEALER].astype(np.int8),
        "exchange_direction": h[E.H_EXCHANGE_DIR].astype(np.int8),
        "end_reason": _dict(h[E.H_END_REASON], E.END_REASONS),
        "tiles_left": h[E.H_TILES_LEFT].astype(np.int8),
        "winners": h[E.H_WINNERS].astype(np.int8),
        "turns": h[E.H_TURNS].astype(np.int16),
        "next_dealer": h[E.H_NEXT_DEALER].astype(np.int8),
    })

    s = np.ascontiguousarray(res.seat.reshape(n * 4, E.N_SEAT_FIELDS).T)
    rep = np.repeat(np.arange(n), 4)
    seat_idx = np.tile(np.arange(4, dtype=np.int8), n)
    first = s[E.S_WIN_ORDER]
    no_win = first < 0
    pig = s[E.S_PIG]
    ready = s[E.S_READY]
    strat_codes = np.tile(np.arange(4), n)
    uniq = list(dict.fromkeys(strategies))
    strat_codes = np.array([uniq.index(strategies[i]) for i in range(4)])[strat_codes]
    t_seats = pa.table({
        "hand": hands[rep],
        "match": pa.array(match[rep], mask=null[rep]),
        "hand_in_match": pa.array(him[rep], mask=null[rep]),
        "seat": seat_idx,
        "strategy": _dict(strat_codes, uniq),
        "dealer": h[E.H_DEALER][rep] == seat_idx,
        "void_suit": _dict(s[E.S_VOID], SUITS),
        "net": s[E.S_NET].astype(np.int32),
        "won": s[E.S_WINS] > 0,
        "wins": s[E.S_WINS].astype(np.int16),
        "win_order": _nullable(first, np.int16, no_win),
        "win_kind": _dict(np.where(no_win, -1, s[E.S_WIN_KIND]), E.WIN_KINDS),
        "fan": _nullable(s[E.S_FAN], np.int16, no_win),
        "base": _nullable(s[E.S_BASE], np.int32, no_win),
        "flower_pig": pa.array(pig == 1, mask=pig < 0),
        "ready": pa.array(ready == 1, mask=ready < 0),
        "kongs": s[E.S_KONGS].astype(np.int8),
        "net_win": s[E.S_NET_WIN].astype(np.int32),
        "net_kong": s[E.S_NET_KONG].astype(np.int32),
        "net_flower_pig": s[E.S_NET_PIG].astype(np.int32),
        "net_not_ready": s[E.S_NET_NOT_READY].astype(np.int32),
        "net_kong_refund": s[E.S_NET_REFUND].astype(np.int32),
        "net_kong_discard_liability": s[E.S_NET_LIABILITY].astype(np.int32),
        "score_before": s[E.S_SCORE_BEFORE].astype(np.int32),
    })

    npay = h[E.H_N_PAYMENTS]
    pmask = np.arange(res.pay.shape[1])[None, :] < npay[:, None]
    p = np.ascontiguousarray(res.pay[pmask].T)
    prow = np.nonzero(pmask)[0]
    t_pay = pa.table({
        "hand": hands[prow],
        "payer": p[E.P_PAYER].astype(np.int8),
        "payee": p[E.P_PAYEE].astype(np.int8),
        "amount": p[E.P_AMOUNT].astype(np.int32),
        "reason": _dict(p[E.P_REASON], E.REASONS),
    })

    nwin = h[E.H_N_WINS]
    wmask = np.arange(res.win.shape[1])[None, :] < nwin[:, None]
    w = np.ascontiguousarray(res.win[wmask].T)
    wrow = np.nonzero(wmask)[0]
    frm = w[E.W_FROM]
    cols = {
        "hand": hands[wrow],
        "match": pa.array(match[wrow], mask=null[wrow]),
        "hand_in_match": pa.array(him[wrow], mask=null[wrow]),
        "seat": w[E.W_SEAT].astype(np.int8),
        "order": w[E.W_ORDER].astype(np.int16),
        "turn": w[E.W_TURN].astype(np.int16),
        "win_kind": _dict(w[E.W_KIND], E.WIN_KINDS),
        "tile": _dict(w[E.W_TILE], TILE_TEXTS),
        "from_seat": _nullable(frm, np.int8, frm < 0),
        "fan": w[E.W_FAN].astype(np.int16),
        "base": w[E.W_BASE].astype(np.int32),
        "paid": w[E.W_PAID].astype(np.int32),
    }
    for i, name in enumerate(PATTERNS):
        cols[name] = w[E.W_PATTERNS + i].astype(np.int8)
    t_wins = pa.table(cols)
    return {"hands": t_hands, "seats": t_seats, "payments": t_pay, "wins": t_wins}


def shard_name(chunk: int) -> str:
    return f"part-{chunk:06d}.parquet"


def write_shards(run_dir: Path, chunk: int, tables: dict[str, pa.Table], config: dict, first: int, count: int) -> None:
    """Write a chunk's four shards, each under a dot-name first and renamed when complete."""
    meta = json.dumps({"run": config, "chunk": chunk, "first": first, "count": count}).encode()
    tmp_paths = []
    for name in TABLES:
        table = tables[name]
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), META_KEY: meta})
        d = run_dir / name
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{shard_name(chunk)}.{os.getpid()}.tmp"
        pq.write_table(table, tmp, compression="zstd", use_dictionary=True, write_statistics=["hand"])
        tmp_paths.append((tmp, d / shard_name(chunk)))
    for tmp, final in tmp_paths:
        os.replace(tmp, final)


def shard_meta(path: Path) -> dict:
    """A shard's own record of its run and hand range (raises on a corrupt file)."""
    md = pq.read_schema(path).metadata or {}
    return json.loads(md[META_KEY])


def complete_chunks(run_dir: Path) -> set[int]:
    """Chunks whose shards exist in every table."""
    sets = []
    for name in TABLES:
        d = run_dir / name
        found = set()
        if d.is_dir():
            for f in os.listdir(d):
                m = SHARD_RE.match(f)
                if m:
                    found.add(int(m.group(1)))
        sets.append(found)
    return set.intersection(*sets) if sets else set()


def remove_partial(run_dir: Path, keep: set[int]) -> None:
    """Delete leftovers of interrupted writes: dot-files and shards of incomplete chunks."""
    for name in TABLES:
        d = run_dir / name
        if not d.is_dir():
            continue
        for f in os.listdir(d):
            m = SHARD_RE.match(f)
            if f.startswith(".") and f.endswith(".tmp"):
                (d / f).unlink(missing_ok=True)
            elif m and int(m.group(1)) not in keep:
                (d / f).unlink(missing_ok=True)


def write_manifest(run_dir: Path, manifest: dict) -> None:
    tmp = run_dir / f".{MANIFEST}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2) + "\n")
    os.replace(tmp, run_dir / MANIFEST)


def read_manifest(run_dir: Path) -> dict:
    path = Path(run_dir) / MANIFEST
    if not Path(run_dir).is_dir():
        raise ValueError(f"{run_dir} does not exist or is not a directory")
    if not path.is_file():
        raise ValueError(f"{run_dir} is not a run directory (no {MANIFEST}); `sichuan simulate --out DIR` makes one")
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is unreadable or not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{path} is not a run manifest of schema version {SCHEMA_VERSION}")
    return data
