"""The hand viewer: one self-contained HTML page that replays hands event by event.

The page's data is the replayer's (``simcore.inspection.replayer``): the table after every event, encoded
compactly (a seat's part only when it changed), plus each event's text as every seat saw it. The
page's script only draws what it is given and applies the seat-view rule of
``replayer.seat_view`` (the browser tests hold both to the replayer). Everything is inline (CSS,
script, tiles as SVG symbols from ``simcore.inspection.tile_art``): the file works offline.

With a review (``simcore.inspection.review.review``), each judged decision of one seat is shown at the
table it was taken at, with every option's worth, and the costliest are listed.

Several hands give one page with a hand selector; each hand's data sits in its own inert
``<script type="application/json">`` element and is parsed only when that hand is shown.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path

from simcore.inspection.replayer import Seat, Table, event_seen, iter_tables, settlement, split_hands
from simcore.inspection.tile_art import symbols
from simcore.contract.tiles import N_RANKS, N_SUITS, SUITS
from strategies.names import short_name, short_names

MAX_HANDS = 500           # hands on one page at most (a hand is about 40 KB of data: 500 make a 20 MB page)
MAX_HAND_BYTES = 300_000  # the budget of one hand's data on a page


class ViewerError(ValueError):
    """A request the viewer refuses (too many hands, no hands)."""


# -- event texts -----------------------------------------------------------------------------------
# Tiles in a text are written {5m}; the page draws each as a small tile.


def _tiles(tiles) -> str:
    return "".join("{" + t + "}" for t in tiles) if tiles else "-"


def _seat(s) -> str:
    return f"seat {s}"


DIRECTION = {1: "to the next seat", -1: "to the previous seat", 2: "across", 3: "to the previous seat"}
WIN_KIND = {"self_draw": "self-drawn", "discard": "on a discard", "kong_replacement": "on a kong replacement",
            "robbing_kong": "robbing a kong"}


def event_text(e: dict | None) -> str | None:
    """One line for a person (None: an event this view did not see)."""
    if e is None:
        return None
    k = e["event"]
    if k == "start":
        extra = f" · match {e['match']} hand {e['hand_in_match']}" if e.get("match") is not None else ""
        return f"hand {e['hand']} · {e['rules']} · dealer {_seat(e['dealer'])} · seed {e['seed']}{extra}"
    if k == "deal":
        return f"deal: {_seat(e['hands'].index(max(e['hands'], key=len)))} (dealer) gets 14 tiles, the others 13"
    if k == "exchange":
        passes = "; ".join(f"{_seat(s)} passes {_tiles(p)}" for s, p in enumerate(e["passed"]))
        return f"exchange {e['direction']:+d} ({DIRECTION.get(e['direction'], '')}): {passes}"
    if k == "void":
        return "void suits: " + ", ".join(f"{_seat(s)} {v}" for s, v in enumerate(e["suits"]))
    if k == "draw":
        what = _tiles([e["tile"]]) if e["tile"] else "a tile"
        return f"{_seat(e['seat'])} draws {what}" + (" (replacement)" if e["replacement"] else "")
    if k == "discard":
        return f"{_seat(e['seat'])} discards {_tiles([e['tile']])}"
    if k == "pung":
        return f"{_seat(e['seat'])} pungs {_tiles([e['tile']])} from {_seat(e['from'])}"
    if k == "kong":
        what = f" of {_tiles([e['tile']])}" if e["tile"] else ""
        src = f" from {_seat(e['from'])}" if e.get("from") is not None else ""
        article = "an" if e["kind"][0] in "aeiou" else "a"
        return f"{_seat(e['seat'])} declares {article} {e['kind']} kong{what}{src}"
    if k == "pass_win":
        fan = f" ({e['fan']} fan)" if "fan" in e else ""
        return f"{_seat(e['seat'])} could win on {_tiles([e['tile']])} from {_seat(e['from'])}{fan}, chose {e['chose']}"
    if k == "win":
        src = f" from {_seat(e['from'])}" if e.get("from") is not None else ""
        pats = ", ".join(f"{p} {f}" for p, f in e["patterns"].items()) or "no pattern"
        return (f"{_seat(e['seat'])} WINS {WIN_KIND.get(e['kind'], e['kind'])} on {_tiles([e['tile']])}{src}: "
                f"{pats} · fan {e['fan']} · base {e['base']}")
    if k == "payment":
        return f"{_seat(e['payer'])} pays {_seat(e['payee'])} {e['amount']} ({e['reason']})"
    if k == "check":
        if e["pig"]:
            state = "flower pig"
        elif e["ready"]:
            state = f"ready on {_tiles(e['waits'])}, best base {e['best_base']}"
        else:
            state = "not ready"
        return f"check {_seat(e['seat'])}: {state}"
    if k == "end":
        return f"end: {e['reason'].replace('_', ' ')} · net {e['net']} · next dealer {_seat(e['next_dealer'])}"
    if k == "error":
        return f"ERROR ({e['kind']}): {_seat(e['seat']) + ' ' if e.get('seat') is not None else ''}{e['why']}"
    return k


# -- the payload of one hand ------------------------------------------------------------------------


def _text(counts) -> str:
    """Count array -> tile text grouped by suit (``445m79p``)."""
    out = []
    for s in range(N_SUITS):
        ranks = "".join(str(r + 1) * counts[s * N_RANKS + r] for r in range(N_RANKS))
        if ranks:
            out.append(ranks + SUITS[s])
    return "".join(out)


def _seat_part(s: Seat) -> dict:
    """A seat's part of the table (all of it: the page applies the seat-view rule itself)."""
    o = {"h": _text(s.hand), "p": _text(s.public),
         "m": [[m.kind, m.tile, int(m.known)] for m in s.melds],
         "d": [d.tile if d.claim is None else [d.tile, d.claim, list(d.by)] for d in s.discards]}
    if s.void:
        o["v"] = s.void
    if s.wins:
        o["w"] = [[w["tile"], w["kind"]] for w in s.wins]
    if s.locked:
        o["lk"] = 1
        o["wt"] = list(s.waits)
    if s.drawn:
        o["dr"] = s.drawn
    if s.passed:
        o["ps"] = list(s.passed)
    if s.check:
        c = s.check
        o["ck"] = "pig" if c["pig"] else ("ready" if c["ready"] else "not_ready")
    return o


def _settle_json(t: Table) -> dict:
    st = settlement(t)
    wins = [{k: w[k] for k in ("seat", "tile", "from", "kind", "tiles", "melds", "patterns", "fan", "base",
                               "tiles_left")} for w in st["wins"]]
    checks = [{k: c.get(k) for k in ("seat", "pig", "ready", "waits", "best_base", "tiles", "melds", "void_tiles",
                                     "wait_values")} for c in st["checks"]]
    return {"by_reason": st["by_reason"], "net": st["net"], "scores": st["scores"], "wins": wins, "checks": checks,
            "end": {k: st["end"][k] for k in ("reason", "tiles_left", "next_dealer")} if st["end"] else None,
            "error": event_text(st["error"]) if st["error"] else None}


def _r3(x: float) -> float:
    return round(float(x), 3)


# the events a seat's own answer makes (a claim it passed makes none, a win it passed a pass_win)
OWN_EVENTS = ("discard", "kong", "pung", "win", "pass_win")


def decision_event(events: list[dict] | None, seat: int, event: int) -> int:
    """The event a decision of ``seat`` is shown at, ``event`` being the first event after the
    question was put (``review``'s): that event where the seat's answer made it (the exchange,
    the void suits, its discard, kong, pung or win, a win or a rob it passed), else the event that
    put the question: for a pung or kong it let go by, the discard (a pass of a claim logs nothing)."""
    if events is None or not 0 <= event < len(events):
        return event
    e = events[event]
    if e["event"] in ("exchange", "void") or (e["event"] in OWN_EVENTS and e.get("seat") == seat):
        return event
    return event - 1


def review_payload(review: dict, events: list[dict] | None = None) -> dict:
    """The reviewer's judgements (``simcore.inspection.review.review``) as the page draws them: per
    decision the event it is shown at (``at``: ``decision_event`` of the hand's ``events``) and the
    table it was judged at (``table``: the table after event ``event - 1``); its options best
    first as [answer, mean, lo, hi, shortfall, shortfall_lo, shortfall_hi, chosen, best], a
    shortfall being the option's gap to the best cut at 0 (``review.shortfall``; 0 for the best);
    and what the choice gave up (0 where it chose the best). The hand's total is the sum of the
    unbiased gaps with its 95% interval, each cut at 0."""
    from simcore.inspection.review import shortfall

    seat = review["seat"]
    decisions = []
    for d in review["decisions"]:
        opts = [[o["candidate"], _r3(o["mean"]), _r3(o["lo"]), _r3(o["hi"])]
                + ([0.0, 0.0, 0.0] if o["best"] else [_r3(shortfall(o[k])) for k in ("gap", "gap_lo", "gap_hi")])
                + [int(o["chosen"]), int(o["best"])] for o in d["options"]]
        best = d.get("chose_best", d["chosen"] == d["best"])
        lost = [0.0] * 3 if best else [_r3(shortfall(d[k])) for k in ("lost", "lost_lo", "lost_hi")]
        decisions.append({"k": d["decision"], "at": decision_event(events, seat, d["event"]), "table": d["event"] - 1,
                          "q": d["question"], "tile": d["tile"], "chosen": d["chosen"], "best": d["best"],
                          "cb": int(best), "lost": lost[0], "lost_lo": lost[1], "lost_hi": lost[2], "o": opts})
    total = [_r3(shortfall(review.get(k, review["lost"]))) for k in ("lost", "lost_lo", "lost_hi")]
    return {"seat": seat, "strategy": short_name(review["strategy"]), "rollouts": review["rollouts"],
            "policy": review["policy"], "lost": total[0], "lost_lo": total[1], "lost_hi": total[2], "d": decisions}


def hand_payload(events: list[dict], review: dict | None = None) -> dict:
    """Everything the page needs to show one hand (and, given ``review``, the reviewer's
    judgements of one seat's decisions)."""
    steps, texts, payments = [], [], []
    prev_parts = [None] * 4
    prev_scores = prev_nets = None
    last = None
    for t in iter_tables(events):
        e = t.event
        step = {"l": t.wall_left}
        parts = {}
        for s in t.seats:
            part = _seat_part(s)
            if part != prev_parts[s.seat]:
                parts[str(s.seat)] = part
                prev_parts[s.seat] = part
        if parts:
            step["s"] = parts
        scores, nets = [s.score for s in t.seats], [s.net for s in t.seats]
        if scores != prev_scores or nets != prev_nets:
            step["sc"], step["nt"] = scores, nets
            prev_scores, prev_nets = scores, nets
        if t.direction:
            step["x"] = t.direction
        steps.append(step)
        full = event_text(e)
        views = [event_text(event_seen(e, v, t.direction)) for v in range(4)]
        item = [e["event"], e.get("seat"), full]
        if any(v != full for v in views):
            item.append(views)
        texts.append(item)
        if e["event"] == "payment":
            payments.append([e["payer"], e["payee"], e["amount"], e["reason"], t.index])
        last = t
    start = events[0]
    return {
        "hand": start["hand"], "rules": start["rules"], "seed": start["seed"], "dealer": start["dealer"],
        "match": start.get("match"), "hand_in_match": start.get("hand_in_match"),
        "flow": last.flow, "strategies": [short_names(start["strategies"])[x] for x in start["strategies"]],
        "specs": list(start["strategies"]), "start_scores": list(start["scores"]),
        "events": texts, "steps": steps, "payments": payments, "settle": _settle_json(last),
        "review": review_payload(review, events) if review else None,
    }


# -- the page ---------------------------------------------------------------------------------------


def _asset(name: str) -> str:
    return resources.files("simcore.inspection").joinpath("assets", name).read_text(encoding="utf-8")


def _inert_json(data) -> str:
    """JSON safe inside a <script> element (no "</script>", no HTML comment openers)."""
    return (json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))


def _label(p: dict) -> str:
    win = ", ".join(f"seat {w['seat']}" for w in p["settle"]["wins"][:3]) or "no win"
    end = p["settle"]["end"]["reason"].replace("_", " ") if p["settle"]["end"] else "stopped"
    return f"hand {p['hand']} · {p['rules']} · {end} · {win}"


def page(hands: list[list[dict]], title: str | None = None, reviews: list[dict | None] | None = None) -> str:
    """One HTML page showing the hands (each a list of TRACE.md events), each with its review
    (``simcore.inspection.review.review``) if ``reviews`` gives one."""
    if not hands:
        raise ViewerError("no hands to show")
    if len(hands) > MAX_HANDS:
        raise ViewerError(f"{len(hands)} hands is more than one page shows (at most {MAX_HANDS}): "
                          f"ask for a smaller --hand range")
    reviews = list(reviews) if reviews is not None else []
    payloads = [hand_payload(h, reviews[i] if i < len(reviews) else None) for i, h in enumerate(hands)]
    blobs = [_inert_json(p) for p in payloads]
    index = [{"id": i, "label": _label(p)} for i, p in enumerate(payloads)]
    data = "\n".join(f'<script type="application/json" id="hand-{i}">{b}</script>' for i, b in enumerate(blobs))
    if title is None:
        title = _label(payloads[0]) if len(payloads) == 1 else f"{len(payloads)} hands"
    out = _asset("viewer.html")
    for key, value in (("__TITLE__", html.escape(f"Sichuan mahjong · {title}")),
                       ("/*__CSS__*/", _asset("viewer.css")),
                       ("/*__JS__*/", _asset("viewer.js")),
                       ("<!--__SYMBOLS__-->", symbols()),
                       ("<!--__INDEX__-->", f'<script type="application/json" id="hand-index">{_inert_json(index)}</script>'),
                       ("<!--__DATA__-->", data)):
        out = out.replace(key, value)
    return out


def hand_bytes(events: list[dict]) -> int:
    """The size of one hand's data on a page."""
    return len(_inert_json(hand_payload(events)).encode())


class HandViewer:
    """Hands shown as the viewer page: inline in Jupyter (``_repr_html_``, an isolated iframe) or
    saved as a file (``save``). ``tables(i)`` gives hand i's replayed tables."""

    def __init__(self, hands: list[list[dict]], title: str | None = None, reviews: list[dict | None] | None = None):
        if not hands:
            raise ViewerError("no hands to show")
        self.hands = hands
        self.title = title
        self.reviews = reviews
        self._html = None

    @classmethod
    def from_events(cls, events, title=None) -> "HandViewer":
        """From one stream of events (one or several hands, as ``sichuan trace`` writes them)."""
        return cls(split_hands(list(events)), title)

    @property
    def events(self) -> list[dict]:
        return [e for h in self.hands for e in h]

    def tables(self, i: int = 0) -> list[Table]:
        from simcore.inspection.replayer import replay_events
        return replay_events(self.hands[i])

    def html(self) -> str:
        if self._html is None:
            self._html = page(self.hands, self.title, self.reviews)
        return self._html

    def save(self, path) -> Path:
        path = Path(path)
        path.write_text(self.html(), encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        doc = html.escape(self.html(), quote=True)
        return (f'<iframe srcdoc="{doc}" style="width:100%;height:860px;border:1px solid #ccc;border-radius:6px" '
                f'sandbox="allow-scripts"></iframe>')

    def __repr__(self) -> str:
        return f"<HandViewer: {len(self.hands)} hand(s); .save('hand.html') or display it in Jupyter>"


__all__ = ["page", "hand_payload", "review_payload", "decision_event", "event_text", "HandViewer", "ViewerError", "MAX_HANDS", "MAX_HAND_BYTES",
           "hand_bytes"]
