"""Replay a hand's trace (docs/TRACE.md) in pure Python: the table after every event.

The viewer (``simcore.inspection.page``) draws these tables and the browser tests hold the page to them,
so the replayer is built from TRACE.md alone, not from the engine's state: it moves tiles as the
events say, and it checks every fact the trace states twice (a draw against the wall, a
winner's tiles, a checked seat's tiles, tiles left, the end's nets and scores), raising
``ReplayError`` where they disagree. Its waits come from a small win test of its own, so the
oracle the tests use is independent of the jitted evaluator.

    tables = replay_events(events)          # one Table per event, after it
    seat_view(tables[40], 2)                # that table as seat 2 saw it
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from simcore.contract.tiles import N_KINDS, N_RANKS, N_SUITS, N_TILES, SUITS, tile_index, tile_text

DEAL_TILES = 53          # the dealer's 14 and three times 13 (the deal event of docs/TRACE.md)
HIDDEN = "?"             # a tile a seat view does not show


class ReplayError(ValueError):
    """The trace contradicts itself (or is not a trace of one hand)."""


# -- a small win test of its own (RULES.md: Winning hands) ------------------------------------------


@lru_cache(maxsize=None)
def _suit_sets(counts: tuple) -> tuple[bool, bool]:
    """(the suit's tiles split into sets only, into sets and one pair)."""
    i = next((r for r, c in enumerate(counts) if c), None)
    if i is None:
        return True, False
    sets_only = with_pair = False
    c = list(counts)
    if c[i] >= 3:
        c[i] -= 3
        a, b = _suit_sets(tuple(c))
        sets_only, with_pair = sets_only or a, with_pair or b
        c[i] += 3
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        a, b = _suit_sets(tuple(c))
        sets_only, with_pair = sets_only or a, with_pair or b
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
    if c[i] >= 2:
        c[i] -= 2
        a, _ = _suit_sets(tuple(c))
        with_pair = with_pair or a
    return sets_only, with_pair


def is_win(counts, void: str | None, n_melds: int) -> bool:
    """A complete hand: four sets and a pair (declared sets counted) or seven pairs, no void tile."""
    if sum(counts) != 14 - 3 * n_melds:
        return False
    if void is not None and any(counts[SUITS.index(void) * N_RANKS:SUITS.index(void) * N_RANKS + N_RANKS]):
        return False
    if n_melds == 0 and all(c % 2 == 0 for c in counts):
        return True
    parts = [_suit_sets(tuple(counts[s * N_RANKS:s * N_RANKS + N_RANKS])) for s in range(N_SUITS)]
    pairs = [s for s in range(N_SUITS) if not parts[s][0]]
    if len(pairs) > 1:
        return False
    if pairs:
        return parts[pairs[0]][1]
    return any(p[1] for p in parts)


def waits_of(counts, void: str | None, melds) -> list[str]:
    """The tiles that complete a hand one short (by shape; not a tile the seat holds all four of,
    counting its sets: RULES.md: Settlement, wall exhausted, step 2)."""
    held = list(counts)
    for m in melds:
        held[tile_index(m.tile)] += 4 if m.kind.startswith("kong") else 3
    out = []
    for t in range(N_KINDS):
        if held[t] >= 4:
            continue
        c = list(counts)
        c[t] += 1
        if is_win(c, void, len(melds)):
            out.append(tile_text(t))
    return out


# -- the table -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Meld:
    """A declared set. ``known``: its tile is visible to every seat (a concealed kong's is not,
    until its seat's hand is revealed by a win or a drawn-hand check)."""

    kind: str               # pung, kong_exposed, kong_added, kong_concealed (as in a win's melds)
    tile: str | None        # None: hidden in a seat view
    source: int | None = None
    known: bool = True

    @property
    def size(self) -> int:
        return 3 if self.kind == "pung" else 4


@dataclass(frozen=True)
class Discard:
    """A discarded tile; ``claim`` is who took it (pung, kong or win) and ``by`` the seats."""

    tile: str
    claim: str | None = None
    by: tuple = ()


@dataclass
class Seat:
    """One seat's part of the table. ``hand`` counts the concealed tiles by kind; ``public`` is
    the part of it every seat knows (a winner's revealed hand); ``hidden`` counts tiles a seat
    view does not show (0 in the full table)."""

    seat: int
    strategy: str = ""
    hand: list = field(default_factory=lambda: [0] * N_KINDS)
    public: list = field(default_factory=lambda: [0] * N_KINDS)
    hidden: int = 0
    melds: list = field(default_factory=list)
    discards: list = field(default_factory=list)
    void: str | None = None
    wins: list = field(default_factory=list)         # the trace's win events of this seat
    locked: bool = False                             # blood flow: won and stays, hand fixed
    waits: list = field(default_factory=list)        # a locked seat's waits
    score: int = 0
    net: int = 0
    passed: list = field(default_factory=list)       # the three tiles it passed (HIDDEN if unseen)
    received: list = field(default_factory=list)
    drawn: str | None = None                         # the tile drawn this turn, while it holds it
    check: dict | None = None                        # its drawn-hand check event

    def copy(self) -> "Seat":
        return replace(self, hand=list(self.hand), public=list(self.public), melds=list(self.melds),
                       discards=list(self.discards), wins=list(self.wins), waits=list(self.waits),
                       passed=list(self.passed), received=list(self.received))

    @property
    def tiles(self) -> list[str]:
        """The concealed tiles, sorted (m, p, s; ranks ascending), hidden ones as ``HIDDEN``."""
        return [tile_text(t) for t in range(N_KINDS) for _ in range(self.hand[t])] + [HIDDEN] * self.hidden

    @property
    def n_concealed(self) -> int:
        return sum(self.hand) + self.hidden

    @property
    def won(self) -> bool:
        return bool(self.wins)


@dataclass
class Table:
    """The table after event ``index`` (``event``)."""

    index: int
    event: dict
    hand: int
    dealer: int
    seats: list
    wall: list                    # the N_TILES (108) tiles in the deal's order
    drawn: frozenset = frozenset()  # the wall positions drawn after the deal
    draw_order: str = "table"     # RULES.md: Rulings where the documents are silent, draw order
    direction: int = 0            # exchange direction (0: none yet, or no exchange)
    payments: list = field(default_factory=list)   # payment events so far
    set_aside: list = field(default_factory=list)  # (tile, winners) of each winning tile
    wins: list = field(default_factory=list)       # win events so far, in order
    end: dict | None = None
    error: dict | None = None
    flow: bool = False            # blood flow: a winner stays, locked
    viewer: int | None = None     # the seat whose view this is (None: the whole table)

    @property
    def wall_left(self) -> int:
        return N_TILES - DEAL_TILES - len(self.drawn) if self.wall else N_TILES

    def undrawn(self) -> list[int]:
        return [p for p in range(DEAL_TILES, N_TILES) if p not in self.drawn]

    def next_position(self, seat: int, replacement: bool) -> int:
        """The position the seat's draw takes (RULES.md: Rulings where the documents are silent, draw order), worked out here
        from the ruling's words, apart from the engine's: table order, the lowest undrawn position
        (the highest for a replacement); seat order, the seat's lowest undrawn own position
        (position 53 + k belongs to seat dealer + 1 + k mod 4), else the highest undrawn one."""
        left = self.undrawn()
        if self.draw_order == "seat":
            own = [p for p in left if (self.dealer + 1 + (p - DEAL_TILES)) % 4 == seat]
            return own[0] if own else left[-1]
        return left[-1] if replacement else left[0]

    def copy(self) -> "Table":
        return replace(self, seats=[s.copy() for s in self.seats], payments=list(self.payments),
                       set_aside=list(self.set_aside), wins=list(self.wins))

    def tile_counts(self) -> list[int]:
        """Every tile kind counted where it is: wall, hands, sets, unclaimed discards, set aside.
        Each kind is 4 at every step of a consistent hand (the rules for the stream in docs/TRACE.md)."""
        n = [0] * N_KINDS
        if not self.wall:
            return [4] * N_KINDS
        for p in self.undrawn():
            n[tile_index(self.wall[p])] += 1
        for s in self.seats:
            for t in range(N_KINDS):
                n[t] += s.hand[t]
            for m in s.melds:
                n[tile_index(m.tile)] += m.size
            for d in s.discards:
                if d.claim is None:
                    n[tile_index(d.tile)] += 1
        for t, _ in self.set_aside:
            n[tile_index(t)] += 1
        return n


# -- replaying -----------------------------------------------------------------------------------


def _counts(tiles) -> list[int]:
    c = [0] * N_KINDS
    for t in tiles:
        c[tile_index(t)] += 1
    return c


class _Replayer:
    """Applies events one by one to a live table."""

    def __init__(self, start: dict):
        if start.get("event") != "start":
            raise ReplayError("a hand's trace begins with its start event")
        self.t = Table(index=0, event=start, hand=int(start["hand"]), dealer=int(start["dealer"]),
                       seats=[Seat(s, strategy=start["strategies"][s], score=int(start["scores"][s]))
                              for s in range(4)], wall=[], draw_order=start.get("draw_order", "table"),
                       flow=(start.get("options") or {}).get("variant", start.get("rules")) == "flow")
        self.pending_kong = None   # (seat, tile) of an added kong that may still be robbed

    # helpers
    def fail(self, e: dict, why: str):
        raise ReplayError(f"hand {self.t.hand}, event {self.t.index} ({e['event']}): {why}")

    def take(self, e, seat: Seat, tile: str, n: int = 1):
        """Remove n copies of a tile from a seat's concealed tiles (its private ones first)."""
        t = tile_index(tile)
        if seat.hand[t] < n:
            self.fail(e, f"seat {seat.seat} holds {seat.hand[t]} of {tile}, not {n}")
        seat.hand[t] -= n
        private = seat.hand[t] + n - seat.public[t]
        seat.public[t] -= max(0, n - private)

    def give(self, seat: Seat, tile: str):
        seat.hand[tile_index(tile)] += 1

    def last_discard(self, e, src: int, tile: str) -> Discard:
        pile = self.t.seats[src].discards
        if not pile or pile[-1].tile != tile:
            self.fail(e, f"seat {src}'s last discard is not {tile}")
        return pile[-1]

    def claim_last(self, src: int, claim: str, by: int):
        pile = self.t.seats[src].discards
        d = pile[-1]
        pile[-1] = Discard(d.tile, claim, d.by + (by,))

    def reveal(self, seat: Seat):
        seat.public = list(seat.hand)
        seat.melds = [replace(m, known=True) for m in seat.melds]

    # events
    def apply(self, e: dict):
        kind = e["event"]
        handler = getattr(self, f"on_{kind}", None)
        if handler is None:
            self.fail(e, "unknown event")
        if kind not in ("pass_win", "win", "payment") and self.pending_kong is not None:
            self.pending_kong = None
        for s in self.t.seats:
            if kind in ("discard", "kong", "win") and s.seat == e.get("seat"):
                s.drawn = None
        handler(e)

    def on_deal(self, e):
        t = self.t
        if len(e["wall"]) != N_TILES or _counts(e["wall"]) != [4] * N_KINDS:
            self.fail(e, "the wall is not the 108 tiles")
        t.wall = list(e["wall"])
        pos = 0
        for i in range(4):
            s = (t.dealer + i) % 4
            n = 14 if i == 0 else 13
            if sorted(e["hands"][s], key=tile_index) != sorted(t.wall[pos:pos + n], key=tile_index):
                self.fail(e, f"seat {s}'s dealt tiles are not wall[{pos}:{pos + n}]")
            t.seats[s].hand = _counts(e["hands"][s])
            pos += n
        t.drawn = frozenset()

    def on_exchange(self, e):
        t = self.t
        t.direction = int(e["direction"])
        for s, tiles in enumerate(e["passed"]):
            for x in tiles:
                self.take(e, t.seats[s], x)
            t.seats[s].passed = list(tiles)
        for s, tiles in enumerate(e["passed"]):
            r = t.seats[(s + t.direction) % 4]
            r.received = list(tiles)
            for x in tiles:
                self.give(r, x)

    def on_void(self, e):
        for s, v in enumerate(e["suits"]):
            self.t.seats[s].void = v

    def on_draw(self, e):
        t = self.t
        if t.wall_left <= 0:
            self.fail(e, "a draw from an empty wall")
        pos = t.next_position(int(e["seat"]), bool(e["replacement"]))
        if e.get("pos") is not None and int(e["pos"]) != pos:
            self.fail(e, f"the {t.draw_order} draw order gives wall position {pos}, the trace says {e['pos']}")
        tile = t.wall[pos]
        t.drawn = t.drawn | {pos}
        if tile != e["tile"]:
            self.fail(e, f"the wall gives {tile}, the trace says {e['tile']}")
        seat = t.seats[e["seat"]]
        self.give(seat, tile)
        seat.drawn = tile

    def on_discard(self, e):
        seat = self.t.seats[e["seat"]]
        self.take(e, seat, e["tile"])
        seat.discards.append(Discard(e["tile"]))

    def on_pung(self, e):
        seat = self.t.seats[e["seat"]]
        self.last_discard(e, e["from"], e["tile"])
        self.take(e, seat, e["tile"], 2)
        self.claim_last(e["from"], "pung", seat.seat)
        seat.melds.append(Meld("pung", e["tile"], e["from"]))

    def on_kong(self, e):
        seat = self.t.seats[e["seat"]]
        tile, k = e["tile"], e["kind"]
        if k == "exposed":
            self.last_discard(e, e["from"], tile)
            self.take(e, seat, tile, 3)
            self.claim_last(e["from"], "kong", seat.seat)
            seat.melds.append(Meld("kong_exposed", tile, e["from"]))
        elif k == "concealed":
            self.take(e, seat, tile, 4)
            seat.melds.append(Meld("kong_concealed", tile, None, known=False))
        elif k == "added":
            at = next((i for i, m in enumerate(seat.melds) if m.kind == "pung" and m.tile == tile), None)
            if at is None:
                self.fail(e, f"seat {seat.seat} has no pung of {tile} to add to")
            self.take(e, seat, tile)
            seat.melds[at] = replace(seat.melds[at], kind="kong_added")
            self.pending_kong = (seat.seat, tile, at)
        else:
            self.fail(e, f"unknown kong kind {k!r}")
        if seat.locked:
            seat.waits = waits_of(seat.hand, seat.void, seat.melds)

    def on_pass_win(self, e):
        pass

    def on_win(self, e):
        t = self.t
        seat = t.seats[e["seat"]]
        tile, k = e["tile"], e["kind"]
        held = list(seat.hand)
        if k in ("self_draw", "kong_replacement"):      # the tile in hand is set aside
            self.take(e, seat, tile)
            t.set_aside.append((tile, (seat.seat,)))
        elif k == "discard":                           # several winners share the one discard
            if self.last_discard(e, e["from"], tile).claim != "win":
                t.set_aside.append((tile, ()))
            self.claim_last(e["from"], "win", seat.seat)
        elif k == "robbing_kong":                      # the added kong goes back to a pung
            if self.pending_kong is None or self.pending_kong[:2] != (e["from"], tile):
                self.fail(e, f"no added kong of {tile} by seat {e['from']} to rob")
            src, _, at = self.pending_kong
            kong_seat = t.seats[src]
            if kong_seat.melds[at].kind != "pung":
                kong_seat.melds[at] = replace(kong_seat.melds[at], kind="pung")
                t.set_aside.append((tile, ()))
        else:
            self.fail(e, f"unknown win kind {k!r}")
        if k in ("discard", "robbing_kong"):
            aside, winners = t.set_aside[-1]
            t.set_aside[-1] = (aside, winners + (seat.seat,))
            held[tile_index(tile)] += 1
        if held != _counts(e["tiles"]):
            self.fail(e, f"seat {seat.seat} wins with {e['tiles']}, but the replay holds other tiles")
        if int(e["tiles_left"]) != t.wall_left:
            self.fail(e, f"tiles_left {e['tiles_left']}, the replay's wall has {t.wall_left}")
        melds = [(m["kind"], m["tile"]) for m in e["melds"]]
        if melds != [(m.kind, m.tile) for m in seat.melds]:
            self.fail(e, f"seat {seat.seat}'s sets {melds} differ from the replay's")
        seat.wins.append(e)
        t.wins.append(e)
        self.reveal(seat)
        if t.flow:
            seat.locked = True
            seat.waits = waits_of(seat.hand, seat.void, seat.melds)

    def on_payment(self, e):
        t = self.t
        amount = int(e["amount"])
        if amount <= 0:
            self.fail(e, "a payment's amount is positive")
        t.seats[e["payer"]].net -= amount
        t.seats[e["payer"]].score -= amount
        t.seats[e["payee"]].net += amount
        t.seats[e["payee"]].score += amount
        t.payments.append(e)

    def on_check(self, e):
        seat = self.t.seats[e["seat"]]
        if "tiles" in e and _counts(e["tiles"]) != seat.hand:
            self.fail(e, f"seat {seat.seat} is checked with {e['tiles']}, but the replay holds other tiles")
        if seat.won:
            self.fail(e, f"seat {seat.seat} has won and is not checked")
        seat.check = e
        self.reveal(seat)

    def on_end(self, e):
        t = self.t
        if [s.net for s in t.seats] != list(e["net"]):
            self.fail(e, f"net {e['net']}, the payments make {[s.net for s in t.seats]}")
        if [s.score for s in t.seats] != list(e["scores"]):
            self.fail(e, f"scores {e['scores']}, the replay has {[s.score for s in t.seats]}")
        if int(e["tiles_left"]) != t.wall_left:
            self.fail(e, f"tiles_left {e['tiles_left']}, the replay's wall has {t.wall_left}")
        t.end = e

    def on_error(self, e):
        self.t.error = e


def iter_tables(events):
    """The live table after each event of one hand (the same object, changed in place: copy it
    to keep it)."""
    events = list(events)
    if not events:
        raise ReplayError("no events")
    r = _Replayer(events[0])
    yield r.t
    for i, e in enumerate(events[1:], 1):
        if e.get("hand") != r.t.hand:
            raise ReplayError(f"event {i} belongs to hand {e.get('hand')}, not {r.t.hand}")
        r.t.index = i
        r.t.event = e
        r.apply(e)
        yield r.t


def replay_events(events) -> list[Table]:
    """One Table per event, the table after it (``tables[0]`` is after ``start``)."""
    return [t.copy() for t in iter_tables(events)]


def split_hands(events) -> list[list[dict]]:
    """A stream of several hands' events (as ``sichuan trace --hand A-B`` prints) -> one list a hand."""
    out: list[list[dict]] = []
    for e in events:
        if e.get("event") == "start" or not out:
            out.append([])
        out[-1].append(e)
    return out


# -- what one seat saw ---------------------------------------------------------------------------


def seat_view(table: Table, seat: int) -> Table:
    """The table as ``seat`` knew it: the other seats' concealed tiles (but a winner's or a checked
    seat's revealed hand), the tiles they passed (but those passed to ``seat``), their concealed
    kongs' tiles and the tiles they drew are hidden."""
    out = table.copy()
    out.viewer = seat
    for s in out.seats:
        if s.seat == seat:
            continue
        s.hidden = sum(s.hand) - sum(s.public)
        s.hand = list(s.public)
        s.drawn = None
        s.melds = [m if m.known else replace(m, tile=None) for m in s.melds]
        if s.passed and (s.seat + table.direction) % 4 != seat:
            s.passed = [HIDDEN] * len(s.passed)
        if s.received and s.seat != (seat + table.direction) % 4:
            s.received = [HIDDEN] * len(s.received)
    return out


def event_seen(event: dict, seat: int | None, direction: int = 0) -> dict | None:
    """The event as ``seat`` saw it (None: it did not see it at all; ``seat`` None: the event)."""
    if seat is None:
        return event
    k = event["event"]
    who = event.get("seat")
    if k == "pass_win" and who != seat:
        return None
    if k == "draw" and who != seat:
        return dict(event, tile=None)
    if k == "kong" and event["kind"] == "concealed" and who != seat:
        return dict(event, tile=None)
    if k == "deal":
        return dict(event, wall=None, hands=[h if s == seat else [HIDDEN] * len(h) for s, h in enumerate(event["hands"])])
    if k == "exchange":
        d = event["direction"]
        return dict(event, passed=[p if s == seat or (s + d) % 4 == seat else [HIDDEN] * len(p)
                                   for s, p in enumerate(event["passed"])])
    return event


# -- settlement ----------------------------------------------------------------------------------


def settlement(table: Table) -> dict:
    """The end of a hand for a person: each seat's net by payment reason, nets and scores, the
    wins (with patterns, fan and base) and the drawn-hand checks."""
    reasons: dict[str, list[int]] = {}
    for p in table.payments:
        row = reasons.setdefault(p["reason"], [0, 0, 0, 0])
        row[p["payer"]] -= int(p["amount"])
        row[p["payee"]] += int(p["amount"])
    wins = list(table.wins)
    return {"by_reason": reasons, "net": [s.net for s in table.seats], "scores": [s.score for s in table.seats],
            "wins": wins, "checks": [s.check for s in table.seats if s.check is not None],
            "end": table.end, "error": table.error}


__all__ = ["ReplayError", "Meld", "Discard", "Seat", "Table", "iter_tables", "replay_events", "split_hands",
           "seat_view", "event_seen", "settlement", "is_win", "waits_of", "HIDDEN"]
