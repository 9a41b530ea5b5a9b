"""Scenario helpers for the rulings tests: play a fixed wall with scripted answers
(``simcore.inspection.scenario``) and read its TRACE.md events."""

from collections import Counter

import numba as nb

from tests.support import engine_internals as E
from simcore.contract.tiles import parse_tiles, suit_index, tile_text
from simcore.contract.view import A_KONG, Q_TURN, STRATEGY_SIG, V_KONG_MASK
from simcore.inspection.scenario import Scenario, passive
from strategies.exchange import shortest
from strategies.void import fewest


def play(rules, hands, *, dealer=0, sets=None, strict=True, fns=None, **kw):
    """Play a scenario; the exchange is off unless ``sets`` turns it on."""
    opts = {"exchange": False}
    opts.update(sets or {})
    sc = Scenario(rules, dealer=dealer, hands=hands, sets=opts, **kw)
    hand = sc.run(fns=fns, strict=strict)
    assert_zero_sum(hand)
    return hand


def evs(hand, event, **where):
    """The events of one kind whose fields match ``where``."""
    return [e for e in hand.events if e["event"] == event and all(e.get(k) == v for k, v in where.items())]


def pays(hand, reason=None):
    """(payer, payee, amount, reason) of every payment, in order."""
    return [(e["payer"], e["payee"], e["amount"], e["reason"]) for e in hand.events
            if e["event"] == "payment" and (reason is None or e["reason"] == reason)]


def end_of(hand):
    end = hand.events[-1]
    assert end["event"] == "end"
    return end


def after(hand, event):
    """The events after ``event`` (an event dict of this hand)."""
    i = next(i for i, e in enumerate(hand.events) if e is event)
    return hand.events[i + 1:]


def wins(hand):
    return evs(hand, "win")


def assert_zero_sum(hand):
    """RULES.md: Settlement, "Every hand sums to zero"; payments add up to each seat's net."""
    end = end_of(hand)
    assert sum(end["net"]) == 0
    per = [0, 0, 0, 0]
    for payer, payee, amount, _ in pays(hand):
        per[payer] -= amount
        per[payee] += amount
    assert per == end["net"] == hand.net


def script_used(hand, seat):
    """How many script entries (void choices included) the seat was asked."""
    return int(hand.state[E.O_SCRIPT_POS + seat])


def rest_of_wall(hands, *, head="", tail="", replacements="", cycle=(1, 2, 3, 0), pigs=None, late=""):
    """The whole front of the wall as a ``draws`` string: ``head``, then every unused tile,
    then ``tail`` (the last tiles drawn). After ``head`` the seats draw in ``cycle`` order; a
    seat in ``pigs`` (seat -> suit letter) draws tiles of that suit while there are any (so a
    passive pig keeps its void tile), the others draw the other tiles first; tiles in ``late``
    come as late as possible."""
    used = Counter()
    for text in list(hands.values()) + [head, tail, replacements]:
        used.update(parse_tiles(text))
    pool = Counter({t: 4 for t in range(27)})
    pool.subtract(used)
    assert min(pool.values()) >= 0, "more than four copies of a tile"
    late_set = set(parse_tiles(late))
    tiles = sorted(pool.elements(), key=lambda t: (t in late_set, t))
    pig_suit = {s: suit_index(x) for s, x in (pigs or {}).items()}
    n = len(tiles)
    slots = [cycle[i % len(cycle)] for i in range(n)]
    out = [None] * n
    for i, seat in enumerate(slots):  # pigs first: each pig slot takes a tile of its suit
        if seat in pig_suit:
            t = next((t for t in tiles if t // 9 == pig_suit[seat]), None)
            if t is not None:
                tiles.remove(t)
                out[i] = t
    for i in range(n):
        if out[i] is None:
            t = next((t for t in tiles if t // 9 not in pig_suit.values()), tiles[0])
            tiles.remove(t)
            out[i] = t
    return " ".join([head] + [tile_text(t) for t in out] + [tail]).strip()


def drawn_by(draws, seat, cycle=(1, 2, 3, 0)):
    """The tiles ``seat`` draws from the front when nobody claims or wins: draw i goes to
    ``cycle[i % len(cycle)]``."""
    tiles = [tile_text(t) for t in parse_tiles(draws)]
    return [t for i, t in enumerate(tiles) if cycle[i % len(cycle)] == seat]


@nb.njit(STRATEGY_SIG, cache=True)
def kong_when_offered(q, view, tab):
    """Declares the lowest kong in its kong mask whenever there is one; otherwise passive."""
    if q == Q_TURN:
        m = view[V_KONG_MASK]
        for t in range(27):
            if (m >> t) & 1:
                return A_KONG + t
    return passive(q, view, tab)


def konger_at(seat):
    """Strategies: ``kong_when_offered`` at one seat, ``passive`` elsewhere."""
    play_fns = tuple(kong_when_offered if s == seat else passive for s in range(4))
    return play_fns + (shortest,) * 4 + (fewest,) * 4


# hands nobody can get ready with, and four ready hands
NOBODY_READY = {0: "123456789m13578p", 1: "9999p2468p1357s9s", 2: "123456789m2468s", 3: "12345678p24568s"}
READY = {0: "1s11p33p55p77p1379p2p", 1: "22446688p3456m1m", 2: "1s222m44m55m66m999p", 3: "123m456m789m78m99m"}
