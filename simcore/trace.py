"""Hand traces (docs/TRACE.md): replay one hand through the engine with its event log on.

The events come from the engine's own log (the code path that plays the batch); this module
only turns log rows into TRACE.md's JSON objects and a readable text form.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from . import engine as E
from . import evaluate as ev
from . import records as rec
from .rules import RuleSet
from .tables import load_tables
from .tiles import DEALER_TILES, HAND_TILES, N_KINDS, N_TILES, SUITS, tile_list, tile_text
from .view import MELD_NAMES, STRATEGY_TYPE  # noqa: F401

LOG_ROWS = 1024


@dataclass
class TracedHand:
    """One replayed hand: its TRACE.md events and the engine's raw rows for it."""

    events: list
    hand: np.ndarray
    seat: np.ndarray
    win: np.ndarray
    pay: np.ndarray
    state: np.ndarray
    script_left: list = field(default_factory=list)

    strategies: list = field(default_factory=list)
    seed: int = 0
    index: int = 0

    @property
    def net(self) -> list[int]:
        return [int(x) for x in self.seat[0, :, rec.S_NET]]

    def error_message(self, hint: str | None = None) -> str | None:
        """None if the hand played through; else the one-line description of what stopped it."""
        if int(self.hand[0, rec.H_ERROR]) == rec.ERR_NONE:
            return None
        from .batch import describe_error

        names = self.strategies or [f"seat {s}" for s in range(4)]
        return describe_error(self.hand[0], self.index, names, hint or f"sichuan trace --seed {self.seed} --hand {self.index}")


def _tiles(counts) -> list[str]:
    return tile_list(counts)


def _mask_tiles(mask: int) -> list[str]:
    return [tile_text(t) for t in range(N_KINDS) if (int(mask) >> t) & 1]


def run_traced(rules: RuleSet, players, seed: int, g: int, dealer: int, scores=None, *,
               fixed_wall=None, fixed_dir: int = 0, script=None, check: bool = True,
               win_cap: int = 256, pay_cap: int = 1024):
    """Play hand g with the log on; returns the raw arrays (state, log, rows). ``players`` as
    ``simcore.batch.run_batch`` takes them."""
    from strategies.registry import players_of

    players = players_of(players)
    tab = load_tables()
    scores0 = np.zeros(4, np.int64) if scores is None else np.asarray(scores, np.int64)
    wall = np.zeros(0, np.int64) if fixed_wall is None else np.asarray(fixed_wall, np.int64)
    S = E.new_state(rules.to_array(), seed, g, win_cap, pay_cap, script, LOG_ROWS, check)
    hand = np.zeros((1, rec.N_HAND_FIELDS), np.int32)
    seat = np.zeros((1, 4, rec.N_SEAT_FIELDS), np.int32)
    win = np.zeros((1, win_cap, rec.N_WIN_FIELDS), np.int32)
    pay = np.zeros((1, pay_cap, rec.N_PAY_FIELDS), np.int32)
    E.traced()(tab, players.fns, players.setup, np.int64(dealer), scores0, wall, np.int64(fixed_dir), S, hand, seat,
                  win, pay)
    n_ev = int(hand[0, rec.H_N_EVENTS])
    if n_ev > LOG_ROWS:
        raise RuntimeError(f"hand {g} logged {n_ev} events, more than {LOG_ROWS}")
    return S, E.log_rows(S), hand, seat, win, pay


def events_from_log(rules: RuleSet, strategies: list[str], seed: int, g: int, dealer: int, scores0,
                    S, L, hand, seat, match=None, hand_in_match=None) -> list[dict]:
    """TRACE.md events for one hand from the engine's final state and log."""
    base = {"hand": int(g)}

    def e(event, **kw):
        d = dict(base)
        d["event"] = event
        d.update(kw)
        return d

    out = [e("start", rules=rules.preset, options=rules.options(), strategies=list(strategies),
             dealer=int(dealer), seed=int(seed), match=match, hand_in_match=hand_in_match,
             scores=[int(x) for x in scores0])]
    wall = [int(x) for x in S[E.O_WALL:E.O_WALL + N_TILES]]
    hands = [[] for _ in range(4)]
    pos = 0
    for i in range(4):
        s = (dealer + i) % 4
        n = DEALER_TILES if i == 0 else HAND_TILES
        counts = np.zeros(N_KINDS, np.int64)
        for t in wall[pos:pos + n]:
            counts[t] += 1
        pos += n
        hands[s] = _tiles(counts)
    out.append(e("deal", wall=[tile_text(t) for t in wall], hands=hands))
    for row in L:
        kind = int(row[rec.LW_EVENT])
        f = dict(zip(rec.EVENT_FIELDS[kind], (int(x) for x in row[rec.LW_FIELDS:rec.LW_FIELDS + 5])))
        if kind == rec.EV_EXCHANGE:
            passed = [[tile_text(int(row[rec.LW_PASSED + s * 3 + i])) for i in range(3)] for s in range(4)]
            out.append(e("exchange", direction=f["direction"], passed=passed))
        elif kind == rec.EV_VOID:
            out.append(e("void", suits=[SUITS[f[f"suit{s}"]] for s in range(4)]))
        elif kind == rec.EV_DRAW:
            out.append(e("draw", seat=f["seat"], tile=tile_text(f["tile"]), replacement=bool(f["replacement"])))
        elif kind == rec.EV_DISCARD:
            out.append(e("discard", seat=f["seat"], tile=tile_text(f["tile"])))
        elif kind == rec.EV_PUNG:
            out.append(e("pung", seat=f["seat"], tile=tile_text(f["tile"]), **{"from": f["from"]}))
        elif kind == rec.EV_KONG:
            out.append(e("kong", seat=f["seat"], tile=tile_text(f["tile"]), kind=rec.KONG_KINDS[f["kind"]],
                         **{"from": f["from"] if f["from"] >= 0 else None}))
        elif kind == rec.EV_PASS_WIN:
            out.append(e("pass_win", seat=f["seat"], tile=tile_text(f["tile"]), **{"from": f["from"]},
                         chose=rec.CHOSE[f["chose"]]))
        elif kind == rec.EV_WIN:
            nm = int(row[rec.LW_WIN_N_MELDS])
            melds = [{"kind": MELD_NAMES[int(row[rec.LW_MELD_KINDS + i])], "tile": tile_text(int(row[rec.LW_MELD_TILES + i]))}
                     for i in range(nm)]
            pats = {name: int(row[rec.LW_PATS + i]) for i, name in enumerate(ev.PATTERNS) if row[rec.LW_PATS + i]}
            out.append(e("win", seat=f["seat"], tile=tile_text(f["tile"]), **{"from": f["from"] if f["from"] >= 0 else None},
                         kind=rec.WIN_KINDS[f["kind"]], tiles=_tiles(row[rec.LW_HAND:rec.LW_HAND + N_KINDS]), melds=melds,
                         patterns=pats, fan=int(row[rec.LW_WIN_FAN]), base=int(row[rec.LW_WIN_BASE]),
                         tiles_left=int(row[rec.LW_WIN_TILES_LEFT])))
        elif kind == rec.EV_PAYMENT:
            out.append(e("payment", payer=f["payer"], payee=f["payee"], amount=f["amount"],
                         reason=rec.REASONS[f["reason"]]))
        elif kind == rec.EV_CHECK:
            out.append(e("check", seat=f["seat"], pig=bool(f["pig"]), ready=bool(f["ready"]),
                         waits=_mask_tiles(f["waits"]), best_base=f["best_base"]))
        elif kind == rec.EV_END:
            net = [int(x) for x in seat[0, :, rec.S_NET]]
            out.append(e("end", reason=rec.END_REASONS[f["reason"]], net=net,
                         scores=[int(a) + b for a, b in zip(scores0, net)], tiles_left=f["tiles_left"],
                         next_dealer=f["next_dealer"]))
    return out


def trace_hand(rules: RuleSet, fns, strategies: list[str], seed: int, g: int, dealer: int | None = None,
               scores=None, match=None, hand_in_match=None, **kw) -> TracedHand:
    """Replay hand g (dealt by g mod 4 unless ``dealer``) and return its TRACE.md events."""
    if dealer is None:
        dealer = g % 4
    scores0 = [0, 0, 0, 0] if scores is None else [int(x) for x in scores]
    S, L, hand, seat, win, pay = run_traced(rules, fns, seed, g, dealer, scores0, **kw)
    events = events_from_log(rules, strategies, seed, g, dealer, scores0, S, L, hand, seat, match, hand_in_match)
    return TracedHand(events, hand, seat, win, pay, S, strategies=list(strategies), seed=seed, index=g)


def to_jsonl(events) -> str:
    return "\n".join(json.dumps(ev) for ev in events)


def _group(tiles) -> str:
    """["1m", "2m", "5p"] -> "12m 5p" (tiles grouped by suit)."""
    by = {s: "" for s in SUITS}
    for t in tiles:
        by[t[1]] += t[0]
    return " ".join(f"{''.join(sorted(v))}{s}" for s, v in by.items() if v) or "-"


def to_text(events) -> str:
    """One readable line per event, tiles grouped by suit."""
    lines = []
    for ev_ in events:
        k = ev_["event"]
        if k == "start":
            lines.append(f"hand {ev_['hand']}  rules {ev_['rules']}  dealer {ev_['dealer']}  seed {ev_['seed']}"
                         + (f"  match {ev_['match']} hand {ev_['hand_in_match']}" if ev_["match"] is not None else "")
                         + f"  scores {ev_['scores']}")
            for s, name in enumerate(ev_["strategies"]):
                lines.append(f"  seat {s}: {name}")
        elif k == "deal":
            for s, h in enumerate(ev_["hands"]):
                lines.append(f"deal      seat {s}: {_group(h)}")
        elif k == "exchange":
            lines.append(f"exchange  direction {ev_['direction']:+d}: "
                         + "; ".join(f"seat {s} passes {_group(p)}" for s, p in enumerate(ev_["passed"])))
        elif k == "void":
            lines.append("void      " + "  ".join(f"seat {s}: {v}" for s, v in enumerate(ev_["suits"])))
        elif k == "draw":
            lines.append(f"draw      seat {ev_['seat']} {ev_['tile']}" + (" (replacement)" if ev_["replacement"] else ""))
        elif k == "discard":
            lines.append(f"discard   seat {ev_['seat']} {ev_['tile']}")
        elif k == "pung":
            lines.append(f"pung      seat {ev_['seat']} {ev_['tile']} from seat {ev_['from']}")
        elif k == "kong":
            src = f" from seat {ev_['from']}" if ev_["from"] is not None else ""
            lines.append(f"kong      seat {ev_['seat']} {ev_['tile']} {ev_['kind']}{src}")
        elif k == "pass_win":
            lines.append(f"pass_win  seat {ev_['seat']} could win on {ev_['tile']} from seat {ev_['from']}, chose {ev_['chose']}")
        elif k == "win":
            src = f"from seat {ev_['from']}" if ev_["from"] is not None else "self-drawn"
            melds = " ".join(f"[{m['kind']} {m['tile']}]" for m in ev_["melds"])
            pats = ", ".join(f"{p} {f}" for p, f in ev_["patterns"].items()) or "basic"
            lines.append(f"WIN       seat {ev_['seat']} {ev_['kind']} on {ev_['tile']} {src}: {_group(ev_['tiles'])} {melds}"
                         f" | {pats} | fan {ev_['fan']} base {ev_['base']} | {ev_['tiles_left']} left")
        elif k == "payment":
            lines.append(f"payment   {ev_['payer']} -> {ev_['payee']}  {ev_['amount']:>3}  {ev_['reason']}")
        elif k == "check":
            state = "pig" if ev_["pig"] else ("ready on " + _group(ev_["waits"]) + f" (best {ev_['best_base']})"
                                              if ev_["ready"] else "not ready")
            lines.append(f"check     seat {ev_['seat']}: {state}")
        elif k == "end":
            lines.append(f"end       {ev_['reason']}  net {ev_['net']}  scores {ev_['scores']}  "
                         f"{ev_['tiles_left']} left  next dealer {ev_['next_dealer']}")
    return "\n".join(lines)
