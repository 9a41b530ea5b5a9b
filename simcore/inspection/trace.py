"""Hand traces (docs/TRACE.md): replay one hand through the engine with its event log on.

The events come from the engine's own log (the code path that plays the batch); this module
only turns log rows into TRACE.md's JSON objects and a readable text form.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from simcore import engine as E
from simcore.contract import evaluate as ev
from simcore.contract import records as rec
from simcore.contract.rules import RuleSet
from simcore.contract.tables import load_tables
from simcore.contract.tiles import DEALER_TILES, HAND_TILES, N_KINDS, N_RANKS, N_SUITS, SUITS, tile_list, tile_text
from strategies.names import short_names
from simcore.contract.view import MELD_NAMES, STRATEGY_TYPE  # noqa: F401

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
    rules: RuleSet | None = None
    hint: str | None = None     # the command that replays it, for its error message
    options: E.RunOptions = field(default_factory=E.RunOptions)   # the draw order it was played in

    @property
    def draw_order(self) -> str:
        return self.options.draw_order

    @property
    def net(self) -> list[int]:
        return [int(x) for x in self.seat[0, :, rec.S_NET]]

    def error_message(self, hint: str | None = None) -> str | None:
        """None if the hand played through; else the one-line description of what stopped it."""
        if int(self.hand[0, rec.H_ERROR]) == rec.ERR_NONE:
            return None
        from simcore.runs.batch import describe_error

        names = self.strategies or [f"seat {s}" for s in range(4)]
        hint = hint or self.hint
        if hint is None:
            from simcore.runs.batch import trace_command

            hint = (trace_command(self.rules, self.seed, self.index, self.strategies or None,
                                  options=self.options) if self.rules is not None
                    else f"sichuan trace --seed {self.seed} --hand {self.index}")
        return describe_error(self.hand[0], self.index, names, hint)


def _tiles(counts) -> list[str]:
    return tile_list(counts)


def _mask_tiles(mask: int) -> list[str]:
    return [tile_text(t) for t in range(N_KINDS) if (int(mask) >> t) & 1]


def _melds(S, seat: int) -> list[dict]:
    return [{"kind": MELD_NAMES[kind], "tile": tile_text(t)} for kind, t in E.melds(S, seat)]


def _held(S, seat: int) -> np.ndarray:
    return E.concealed(S, seat)


def _check_fields(rules: RuleSet, S, seat: int, waits: int) -> dict:
    """What a drawn-hand check saw, beyond TRACE.md's fields: the seat's tiles and sets, its void
    tiles still held (what makes a pig), and each wait's base as a discard win (the check's
    value is the best of them). Read from the hand's final state: nothing moves after the checks."""
    hand = _held(S, seat)
    void = E.void_of(S, seat)
    values = {}
    if waits:
        tab = load_tables()
        R = rules.to_array()
        meld_cnt = E.meld_counts(S, seat)
        pats = np.zeros(ev.N_PATTERNS, np.int64)
        for t in range(N_KINDS):
            if (waits >> t) & 1:
                hand[t] += 1
                fan = ev.score_patterns(tab, hand, np.int64(void), np.int64(len(E.melds(S, seat))), meld_cnt,
                                        np.int64(E.kongs_declared(S, seat)), np.int64(0), R, pats)
                hand[t] -= 1
                values[tile_text(t)] = int(ev.base_of(fan, R))
    void_tiles = [tile_text(t) for t in range(N_KINDS) if t // N_RANKS == void for _ in range(int(hand[t]))]
    return {"tiles": _tiles(hand), "melds": _melds(S, seat), "void_tiles": void_tiles, "wait_values": values}


def _why(S, kind: int, seat: int, q: int, ans: int) -> str:
    """Why the engine refused an answer, from the state it stopped in (the seat's view holds the
    options it was offered)."""
    from simcore.contract.view import A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, N_SCRATCH, PACK3_END, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID, V_CAN_KONG, V_CAN_PUNG, V_CAN_WIN, V_KONG_MASK, V_SCRATCH, V_TILE, slot_name, unpack3

    if kind == rec.ERR_VIEW_WRITE:
        return (f"it wrote view slot {ans} ({slot_name(ans)}); a strategy may write only its scratch slots "
                f"{V_SCRATCH}-{V_SCRATCH + N_SCRATCH - 1}")
    if kind == rec.ERR_INVARIANT:
        what = rec.INVARIANTS.get(ans, f"invariant {ans}")
        return f"the engine broke its invariant: {what} (a bug: please report it)"
    view = E.seat_view(S, seat)
    hand = _held(S, seat)
    void = E.void_of(S, seat)
    suit = SUITS[void] if 0 <= void < N_SUITS else None

    def has(t):
        return 0 <= t < N_KINDS and hand[t] > 0

    if q == Q_EXCHANGE:
        if not 0 <= ans < PACK3_END:
            return "an exchange answer is three tiles packed with pack3(a, b, c)"
        tiles = [int(x) for x in unpack3.py_func(ans)]
        if any(t >= N_KINDS for t in tiles):
            return "an exchange answer is three tiles packed with pack3(a, b, c)"
        if len({t // N_RANKS for t in tiles}) > 1:
            return "the three tiles passed must be of one suit"
        short = [t for t in sorted(set(tiles)) if hand[t] < tiles.count(t)]
        if not short:
            return "the engine refused this exchange"
        return f"it holds {int(hand[short[0]])} of {tile_text(short[0])}, not {tiles.count(short[0])}"
    if q == Q_VOID:
        return "a void suit is 0 (m), 1 (p) or 2 (s)"
    if q == Q_TURN:
        if ans == A_WIN:
            return "no win was offered (the view's V_CAN_WIN is 0: the tiles do not win here)"
        if A_KONG <= ans < A_KONG + N_KINDS:
            mask = int(view[V_KONG_MASK])
            offered = ", ".join(_mask_tiles(mask)) or "none"
            return f"no kong of {tile_text(ans - A_KONG)} was offered (V_KONG_MASK offers: {offered})"
        if not 0 <= ans < N_KINDS:
            return "a turn's answer is a tile 0-26 to discard, A_KONG + tile or A_WIN"
        if not has(ans):
            return f"it holds no {tile_text(ans)}"
        drawn = int(view[V_TILE])
        if E.is_locked(S, seat):
            return f"a locked blood-flow winner discards the tile it drew ({tile_text(drawn)})"
        if suit is not None and ans // N_RANKS != void:
            held = [tile_text(t) for t in range(void * N_RANKS, void * N_RANKS + N_RANKS) for _ in range(int(hand[t]))]
            return f"it still holds tiles of its void suit {suit} ({_group(held)}) and must discard those first"
        return "the engine refused this discard"
    if q in (Q_CLAIM, Q_ROB):
        names = {C_PASS: "pass", C_WIN: "win", C_PUNG: "pung", C_KONG: "kong"}
        slots = (("win", V_CAN_WIN),)
        if q == Q_CLAIM:
            slots += (("pung", V_CAN_PUNG), ("kong", V_CAN_KONG))
        offered = ["pass"] + [n for n, slot in slots if view[slot]]
        return f"{names.get(ans, f'{ans} is not an answer')} was not offered (offered: {', '.join(offered)})"
    return f"question {q} has no such answer"


def _error_event(S, hand, strategies) -> dict:
    """The answer (or broken invariant) that stopped the hand, and why."""
    from simcore.runs.batch import _answer_text
    from simcore.contract.view import QUESTION_NAMES

    kind = int(hand[0, rec.H_ERROR])
    seat = int(hand[0, rec.H_ERR_SEAT])
    q = int(hand[0, rec.H_ERR_QUESTION])
    ans = int(hand[0, rec.H_ERR_ANSWER])
    named = 0 <= seat < 4
    kinds = {int(rec.ERR_ILLEGAL): "illegal_answer", int(rec.ERR_VIEW_WRITE): "view_write"}
    out = {"kind": kinds.get(kind, "invariant"),
           "seat": seat if named else None,
           "strategy": strategies[seat] if named and seat < len(strategies) else None,
           "question": QUESTION_NAMES[q] if 0 <= q < len(QUESTION_NAMES) else None}
    if kind != rec.ERR_INVARIANT:
        out["answer"] = _answer_text(q, ans) if kind == rec.ERR_ILLEGAL else ans
        if named:
            out["tiles"] = _tiles(_held(S, seat))
    out["why"] = _why(S, kind, seat, q, ans)
    return out


def run_traced(rules: RuleSet, players, seed: int, g: int, dealer: int, scores=None, *,
               fixed_wall=None, fixed_dir: int = 0, script=None, check: bool = True,
               win_cap: int = 256, pay_cap: int = 1024, pause: int = 0, state=None, options=None):
    """Play hand g with the log on; returns the raw arrays (state, log, rows). ``players`` as
    ``simcore.runs.batch.run_batch`` takes them. ``pause`` > 0 stops the hand at that resume point
    (``simcore.engine.play_on``; ``simcore.engine.hand_over`` says if the hand ended first);
    ``state``, a state so stopped (or a copy), plays that hand on instead of a new one (in the
    draw order it began with). ``options``: the run's ``simcore.engine.RunOptions`` (the draw order)."""
    from strategies.registry import players_of

    players = players_of(players)
    tab = load_tables()
    scores0 = np.zeros(4, np.int64) if scores is None else np.asarray(scores, np.int64)
    wall = np.zeros(0, np.int64) if fixed_wall is None else np.asarray(fixed_wall, np.int64)
    if state is None:
        S = E.new_state(rules.to_array(), (options or E.RunOptions()).to_array(), seed, g, win_cap, pay_cap, script,
                        LOG_ROWS, check)
        E.set_pause(S, pause)
    else:
        S = state
        win_cap, pay_cap = E.buffer_caps(S)
    hand = np.zeros((1, rec.N_HAND_FIELDS), np.int32)
    seat = np.zeros((1, 4, rec.N_SEAT_FIELDS), np.int32)
    win = np.zeros((1, win_cap, rec.N_WIN_FIELDS), np.int32)
    pay = np.zeros((1, pay_cap, rec.N_PAY_FIELDS), np.int32)
    E.traced()(tab, players.fns, players.setup, players.rfns, players.arena, np.int64(dealer), scores0, wall, np.int64(fixed_dir), S, hand, seat,
                  win, pay)
    n_ev = int(hand[0, rec.H_N_EVENTS])
    if n_ev > LOG_ROWS:
        raise RuntimeError(f"hand {g} logged {n_ev} events, more than {LOG_ROWS}")
    return S, E.log_rows(S), hand, seat, win, pay


def events_from_log(rules: RuleSet, strategies: list[str], seed: int, g: int, dealer: int, scores0,
                    S, L, hand, seat, match=None, hand_in_match=None, options=None) -> list[dict]:
    """TRACE.md events for one hand from the engine's final state and log."""
    base = {"hand": int(g)}

    def e(event, **kw):
        d = dict(base)
        d["event"] = event
        d.update(kw)
        return d

    out = [e("start", rules=rules.preset, options=rules.options(), strategies=list(strategies),
             dealer=int(dealer), seed=int(seed), match=match, hand_in_match=hand_in_match,
             scores=[int(x) for x in scores0], draw_order=(options or E.RunOptions()).draw_order)]
    wall = [int(x) for x in E.wall_tiles(S)]
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
            out.append(e("draw", seat=f["seat"], tile=tile_text(f["tile"]), replacement=bool(f["replacement"]),
                         pos=f["pos"]))
        elif kind == rec.EV_DISCARD:
            out.append(e("discard", seat=f["seat"], tile=tile_text(f["tile"])))
        elif kind == rec.EV_PUNG:
            out.append(e("pung", seat=f["seat"], tile=tile_text(f["tile"]), **{"from": f["from"]}))
        elif kind == rec.EV_KONG:
            out.append(e("kong", seat=f["seat"], tile=tile_text(f["tile"]), kind=rec.KONG_KINDS[f["kind"]],
                         **{"from": f["from"] if f["from"] >= 0 else None}))
        elif kind == rec.EV_PASS_WIN:
            out.append(e("pass_win", seat=f["seat"], tile=tile_text(f["tile"]), **{"from": f["from"]},
                         chose=rec.CHOSE[f["chose"]], fan=f["fan"]))
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
                         waits=_mask_tiles(f["waits"]), best_base=f["best_base"],
                         **_check_fields(rules, S, f["seat"], f["waits"])))
        elif kind == rec.EV_END:
            net = [int(x) for x in seat[0, :, rec.S_NET]]
            out.append(e("end", reason=rec.END_REASONS[f["reason"]], net=net,
                         scores=[int(a) + b for a, b in zip(scores0, net)], tiles_left=f["tiles_left"],
                         next_dealer=f["next_dealer"]))
    if int(hand[0, rec.H_ERROR]) != rec.ERR_NONE:
        out.append(e("error", **_error_event(S, hand, list(strategies))))
    return out


def trace_hand(rules: RuleSet, fns, strategies: list[str], seed: int, g: int, dealer: int | None = None,
               scores=None, match=None, hand_in_match=None, options=None, **kw) -> TracedHand:
    """Replay hand g (dealt by g mod 4 unless ``dealer``) and return its TRACE.md events."""
    if dealer is None:
        dealer = g % 4
    scores0 = [0, 0, 0, 0] if scores is None else [int(x) for x in scores]
    options = options or E.RunOptions()
    S, L, hand, seat, win, pay = run_traced(rules, fns, seed, g, dealer, scores0, options=options, **kw)
    events = events_from_log(rules, strategies, seed, g, dealer, scores0, S, L, hand, seat, match, hand_in_match,
                             options)
    return TracedHand(events, hand, seat, win, pay, S, strategies=list(strategies), seed=seed, index=g, rules=rules,
                      options=options)


def to_jsonl(events) -> str:
    return "\n".join(json.dumps(ev) for ev in events)


def read_trace(path) -> list[list[dict]]:
    """A trace file's hands: its JSON Lines events, a new hand at each ``start`` event."""
    hands: list[list[dict]] = []
    with open(path) as f:
        for k, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                ev_ = json.loads(line)
            except ValueError:
                raise ValueError(f"line {k} is not JSON: not a trace file (docs/TRACE.md)") from None
            if not isinstance(ev_, dict) or "event" not in ev_:
                raise ValueError(f"line {k} is not a trace event (docs/TRACE.md)")
            if ev_["event"] == "start" or not hands:
                if ev_["event"] != "start":
                    raise ValueError("the first event is not a hand's start (docs/TRACE.md)")
                hands.append([])
            hands[-1].append(ev_)
    if not hands:
        raise ValueError("holds no event")
    return hands


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
                         + f"  scores {ev_['scores']}"
                         + (f"  draw order {ev_['draw_order']}" if ev_.get("draw_order", "table") != "table" else ""))
            names = short_names(ev_["strategies"])
            for s, name in enumerate(ev_["strategies"]):
                lines.append(f"  seat {s}: {names[name]}")
        elif k == "deal":
            for s, h in enumerate(ev_["hands"]):
                lines.append(f"deal      seat {s}: {_group(h)}")
        elif k == "exchange":
            lines.append(f"exchange  direction {ev_['direction']:+d}: "
                         + "; ".join(f"seat {s} passes {_group(p)}" for s, p in enumerate(ev_["passed"])))
        elif k == "void":
            lines.append("void      " + "  ".join(f"seat {s}: {v}" for s, v in enumerate(ev_["suits"])))
        elif k == "draw":
            lines.append(f"draw      seat {ev_['seat']} {ev_['tile']}" + (" (replacement)" if ev_["replacement"] else "")
                         + (f" (wall {ev_['pos']})" if ev_.get("pos") is not None else ""))
        elif k == "discard":
            lines.append(f"discard   seat {ev_['seat']} {ev_['tile']}")
        elif k == "pung":
            lines.append(f"pung      seat {ev_['seat']} {ev_['tile']} from seat {ev_['from']}")
        elif k == "kong":
            src = f" from seat {ev_['from']}" if ev_["from"] is not None else ""
            lines.append(f"kong      seat {ev_['seat']} {ev_['tile']} {ev_['kind']}{src}")
        elif k == "pass_win":
            lines.append(f"pass_win  seat {ev_['seat']} could win on {ev_['tile']} from seat {ev_['from']}"
                         + (f" ({ev_['fan']} fan)" if "fan" in ev_ else "") + f", chose {ev_['chose']}")
        elif k == "win":
            src = f"from seat {ev_['from']}" if ev_["from"] is not None else "self-drawn"
            melds = " ".join(f"[{m['kind']} {m['tile']}]" for m in ev_["melds"])
            pats = ", ".join(f"{p} {f}" for p, f in ev_["patterns"].items()) or "basic"
            lines.append(f"WIN       seat {ev_['seat']} {ev_['kind']} on {ev_['tile']} {src}: {_group(ev_['tiles'])} {melds}"
                         f" | {pats} | fan {ev_['fan']} base {ev_['base']} | {ev_['tiles_left']} left")
        elif k == "payment":
            lines.append(f"payment   {ev_['payer']} -> {ev_['payee']}  {ev_['amount']:>3}  {ev_['reason']}")
        elif k == "check":
            values = ev_.get("wait_values") or {}
            if ev_["pig"]:
                state = "flower pig" + (f", still holds {_group(ev_['void_tiles'])} of its void suit"
                                        if ev_.get("void_tiles") else "")
            elif ev_["ready"]:
                waits = (" ".join(f"{t} (base {b})" for t, b in values.items()) if values else _group(ev_["waits"]))
                state = f"ready on {waits}, best {ev_['best_base']}"
            else:
                state = "not ready"
            held = ""
            if "tiles" in ev_:
                held = f" | {_group(ev_['tiles'])}" + "".join(f" [{m['kind']} {m['tile']}]" for m in ev_["melds"])
            lines.append(f"check     seat {ev_['seat']}: {state}{held}")
        elif k == "error":
            label = {"illegal_answer": "ILLEGAL", "view_write": "VIEW WRITE"}.get(ev_["kind"], "INVARIANT")
            who = f"seat {ev_['seat']} ({ev_['strategy']}) " if ev_["seat"] is not None else ""
            q = f"{ev_['question']} question: " if ev_["question"] else ""
            ans = f"{ev_['answer']}: " if ev_["kind"] == "illegal_answer" else ""
            held = f" | holds {_group(ev_['tiles'])}" if "tiles" in ev_ else ""
            lines.append(f"{label:<9} {who}{q}{ans}{ev_['why']}{held}")
        elif k == "end":
            lines.append(f"end       {ev_['reason']}  net {ev_['net']}  scores {ev_['scores']}  "
                         f"{ev_['tiles_left']} left  next dealer {ev_['next_dealer']}")
    return "\n".join(lines)
