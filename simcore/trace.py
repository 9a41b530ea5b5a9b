"""Hand traces (shared/TRACE.md): replay one hand through the engine with its event log on.

The events come from the engine's own log (the code path that plays the batch); this module
only turns log rows into TRACE.md's JSON objects and a readable text form.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from . import engine as E
from . import evaluate as ev
from .rules import RuleSet
from .tables import load_tables
from .tiles import SUITS, tile_list, tile_text
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
        return [int(x) for x in self.seat[0, :, E.S_NET]]

    def error_message(self, hint: str | None = None) -> str | None:
        """None if the hand played through; else the one-line description of what stopped it."""
        if int(self.hand[0, E.H_ERROR]) == E.ERR_NONE:
            return None
        from .batch import describe_error

        names = self.strategies or [f"seat {s}" for s in range(4)]
        return describe_error(self.hand[0], self.index, names, hint or f"sichuan trace --seed {self.seed} --hand {self.index}")


def _tiles(counts) -> list[str]:
    return tile_list(counts)


def _mask_tiles(mask: int) -> list[str]:
    return [tile_text(t) for t in range(27) if (int(mask) >> t) & 1]


def run_traced(rules: RuleSet, fns: tuple, seed: int, g: int, dealer: int, scores=None, *,
               fixed_wall=None, fixed_dir: int = 0, script=None, check: bool = True,
               win_cap: int = 256, pay_cap: int = 1024):
    """Play hand g with the log on; returns the raw arrays (state, log, rows)."""
    tab = load_tables()
    scores0 = np.zeros(4, np.int64) if scores is None else np.asarray(scores, np.int64)
    wall = np.zeros(0, np.int64) if fixed_wall is None else np.asarray(fixed_wall, np.int64)
    S = E.new_state(rules.to_array(), seed, g, win_cap, pay_cap, script, LOG_ROWS, check)
    hand = np.zeros((1, E.N_HAND_FIELDS), np.int32)
    seat = np.zeros((1, 4, E.N_SEAT_FIELDS), np.int32)
    win = np.zeros((1, win_cap, E.N_WIN_FIELDS), np.int32)
    pay = np.zeros((1, pay_cap, E.N_PAY_FIELDS), np.int32)
    E.play_traced(tab, fns, np.int64(dealer), scores0, wall, np.int64(fixed_dir), S, hand, seat, win, pay)
    n_ev = int(hand[0, E.H_N_EVENTS])
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
    wall = [int(x) for x in S[E.O_WALL:E.O_WALL + 108]]
    hands = [[] for _ in range(4)]
    pos = 0
    for i in range(4):
        s = (dealer + i) % 4
        n = 14 if i == 0 else 13
        counts = np.zeros(27, np.int64)
        for t in wall[pos:pos + n]:
            counts[t] += 1
        pos += n
        hands[s] = _tiles(counts)
    out.append(e("deal", wall=[tile_text(t) for t in wall], hands=hands))
    for row in L:
        kind = int(row[0])
        if kind == E.EV_EXCHANGE:
            passed = [[tile_text(int(row[2 + s * 3 + i])) for i in range(3)] for s in range(4)]
            out.append(e("exchange", direction=int(row[1]), passed=passed))
        elif kind == E.EV_VOID:
            out.append(e("void", suits=[SUITS[int(row[1 + s])] for s in range(4)]))
        elif kind == E.EV_DRAW:
            out.append(e("draw", seat=int(row[1]), tile=tile_text(int(row[2])), replacement=bool(row[3])))
        elif kind == E.EV_DISCARD:
            out.append(e("discard", seat=int(row[1]), tile=tile_text(int(row[2]))))
        elif kind == E.EV_PUNG:
            out.append(e("pung", seat=int(row[1]), tile=tile_text(int(row[2])), **{"from": int(row[3])}))
        elif kind == E.EV_KONG:
            frm = int(row[4])
            out.append(e("kong", seat=int(row[1]), tile=tile_text(int(row[2])), kind=E.KONG_KINDS[int(row[3])],
                         **{"from": frm if frm >= 0 else None}))
        elif kind == E.EV_PASS_WIN:
            out.append(e("pass_win", seat=int(row[1]), tile=tile_text(int(row[2])),
                         **{"from": int(row[3])}, chose=E.CHOSE[int(row[4])]))
        elif kind == E.EV_WIN:
            frm = int(row[3])
            nm = int(row[E.LW_HAND + 29])
            melds = [{"kind": MELD_NAMES[int(row[E.LW_MELDS + i])], "tile": tile_text(int(row[E.LW_MELDS + 4 + i]))}
                     for i in range(nm)]
            pats = {name: int(row[E.LW_PATS + i]) for i, name in enumerate(ev.PATTERNS) if row[E.LW_PATS + i]}
            out.append(e("win", seat=int(row[1]), tile=tile_text(int(row[2])), **{"from": frm if frm >= 0 else None},
                         kind=E.WIN_KINDS[int(row[4])], tiles=_tiles(row[E.LW_HAND:E.LW_HAND + 27]), melds=melds,
                         patterns=pats, fan=int(row[6]), base=int(row[E.LW_HAND + 27]),
                         tiles_left=int(row[E.LW_HAND + 28])))
        elif kind == E.EV_PAYMENT:
            out.append(e("payment", payer=int(row[1]), payee=int(row[2]), amount=int(row[3]),
                         reason=E.REASONS[int(row[4])]))
        elif kind == E.EV_CHECK:
            out.append(e("check", seat=int(row[1]), pig=bool(row[2]), ready=bool(row[3]),
                         waits=_mask_tiles(int(row[4])), best_base=int(row[5])))
        elif kind == E.EV_END:
            net = [int(x) for x in seat[0, :, E.S_NET]]
            out.append(e("end", reason=E.END_REASONS[int(row[1])], net=net,
                         scores=[int(a) + b for a, b in zip(scores0, net)], tiles_left=int(row[2]),
                         next_dealer=int(row[3])))
    return out


def trace_hand(rules: RuleSet, fns: tuple, strategies: list[str], seed: int, g: int, dealer: int | None = None,
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
