"""Scenarios: a hand with a fixed wall and scripted decisions, played by the real engine.

Tests use them to replay the worked example (RULES.md: Worked example) and one situation per ruling:

    sc = Scenario("battle", dealer=0, hands={0: "...14 tiles...", 1: "...", 2: "...", 3: "..."},
                  draws="5m 3p", voids="sppm", scripts={1: ["kong 9p"], 2: ["win"]})
    hand = sc.run()          # a TracedHand: TRACE.md events, per-seat rows, payments

The wall is the dealt hands (dealer first, then turn order), then ``draws`` from the front,
then the unlisted tiles in ascending order; ``replacements`` sit at the back (the first one
at wall[107]). With ``draw_order="seat"`` (RULES.md: Rulings where the documents are silent, draw order) the listed draws and
replacements are still drawn in the order listed: each sits at the position its draw takes
(found by playing the hand until the positions it draws settle). A seat's script lists its decisions in the order they are asked; an entry is
used only when the question (and, for claims, the tile) matches, so anything unscripted falls
to the ``passive`` player (discards its drawn tile, claims nothing, never wins or kongs).
Script entries:

    discard 5m | kong 9p | win            (own turn: discard, concealed/added kong, self-draw)
    ron 5m | pung 5m | claim-kong 5m | pass 5m   (on another seat's discard of 5m)
    rob 5m | no-rob 5m                    (on an added kong of 5m)
    exchange 123m | void s
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba as nb
import numpy as np

from simcore import engine as E
from simcore.contract import records as rec
from simcore.contract.rules import RuleSet, resolve
from simcore.contract.tiles import N_KINDS, N_RANKS, parse_tiles, suit_index
from simcore.inspection.trace import TracedHand, trace_hand
from simcore.contract.view import A_KONG, A_WIN, C_KONG, C_PASS, C_PUNG, C_WIN, Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID, STRATEGY_SIG, V_HAND, V_LOCKED, V_MUST_VOID, V_TILE, V_VOID, V_ME, pack3


@nb.njit(STRATEGY_SIG, cache=True)
def passive(q, view, tab):
    """Discards its drawn tile when it may (else the lowest legal tile); claims and wins nothing."""
    if q != Q_TURN:
        return C_PASS
    t = view[V_TILE]
    void = view[V_VOID + view[V_ME]]
    if view[V_LOCKED]:
        return t
    if t >= 0 and view[V_HAND + t] > 0 and not (view[V_MUST_VOID] and t // N_RANKS != void):
        return t
    for x in range(N_KINDS):
        if view[V_HAND + x] > 0 and not (view[V_MUST_VOID] and x // N_RANKS != void):
            return x
    return -1


def _one_tile(text: str, entry: str) -> int:
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise ValueError(f"script entry {entry!r}: expected one tile")
    return tiles[0]


def parse_entry(entry: str) -> tuple[int, int, int]:
    """A script entry -> (question, tile filter or -1, answer)."""
    words = entry.split()
    if not words:
        raise ValueError("empty script entry")
    verb, args = words[0], words[1:]
    arg = args[0] if args else ""
    if verb == "discard":
        return Q_TURN, -1, _one_tile(arg, entry)
    if verb == "kong":
        return Q_TURN, -1, A_KONG + _one_tile(arg, entry)
    if verb == "win":
        return Q_TURN, -1, A_WIN
    claims = {"ron": C_WIN, "pung": C_PUNG, "claim-kong": C_KONG, "pass": C_PASS}
    if verb in claims:
        return Q_CLAIM, _one_tile(arg, entry), claims[verb]
    if verb in ("rob", "no-rob"):
        return Q_ROB, _one_tile(arg, entry), C_WIN if verb == "rob" else C_PASS
    if verb == "exchange":
        a, b, c = parse_tiles(arg)
        return Q_EXCHANGE, -1, int(pack3(a, b, c))
    if verb == "void":
        return Q_VOID, -1, suit_index(arg)
    raise ValueError(f"unknown script entry {entry!r}")


def script_array(scripts: dict[int, list]) -> np.ndarray:
    n = max([len(v) for v in scripts.values()] + [0])
    arr = np.full((4, n, 3), -1, np.int64)
    for seat, entries in scripts.items():
        for i, entry in enumerate(entries):
            arr[seat, i] = entry if isinstance(entry, tuple) else parse_entry(entry)
    return arr


@dataclass
class Scenario:
    rules: RuleSet | str = "battle"
    dealer: int = 0
    hands: dict = field(default_factory=dict)
    draws: str = ""
    replacements: str = ""
    direction: int = 0
    voids: str = ""
    scripts: dict = field(default_factory=dict)
    scores: tuple = (0, 0, 0, 0)
    seed: int = 0
    hand_index: int = 0
    sets: dict = field(default_factory=dict)
    draw_order: str = "table"

    def ruleset(self) -> RuleSet:
        return resolve(self.rules, self.sets)

    def wall(self, positions=None) -> np.ndarray:
        """The fixed wall; ``positions`` (the (position, replacement) of each draw of a play in
        seat order) places the k-th listed draw or replacement where that draw took it."""
        left = np.full(N_KINDS, 4, np.int64)
        front: list[int] = []
        for i in range(4):
            seat = (self.dealer + i) % 4
            tiles = parse_tiles(self.hands.get(seat, ""))
            need = 14 if i == 0 else 13
            if len(tiles) != need:
                raise ValueError(f"seat {seat} is dealt {len(tiles)} tiles, expected {need}")
            front += tiles
        front += parse_tiles(self.draws)
        back = parse_tiles(self.replacements)
        for t in front + back:
            left[t] -= 1
        if (left < 0).any():
            raise ValueError("the scenario uses more than four copies of a tile")
        middle = [t for t in range(N_KINDS) for _ in range(int(left[t]))]
        if positions is None:
            return np.array(front + middle + back[::-1], np.int64)
        dealt, draws = front[:E.DEAL_END], front[E.DEAL_END:]
        wall = dealt + [-1] * E.N_DRAWABLE
        queues = {False: list(draws), True: list(back)}
        for pos, replacement in positions:
            if queues[replacement]:
                wall[pos] = queues[replacement].pop(0)
        rest = iter(middle + queues[False] + queues[True])
        return np.array([t if t >= 0 else next(rest) for t in wall], np.int64)

    def script(self) -> np.ndarray:
        scripts = {s: list(v) for s, v in self.scripts.items()}
        for seat, letter in enumerate(self.voids):
            scripts.setdefault(seat, [])
            scripts[seat] = [f"void {letter}"] + scripts[seat]
        return script_array(scripts)

    def run(self, fns: tuple | None = None, strict: bool = True) -> TracedHand:
        """Play it (unscripted decisions: ``passive`` play, shortest exchange, fewest void)."""
        from strategies.exchange import shortest
        from strategies.void import fewest

        if fns is None:
            fns = (passive,) * 4 + (shortest,) * 4 + (fewest,) * 4
        rules = self.ruleset()
        script = self.script()
        names = ["scenario"] * 4

        def play(wall):
            return trace_hand(rules, fns, names, self.seed, self.hand_index, dealer=self.dealer, scores=self.scores,
                              fixed_wall=wall, fixed_dir=self.direction, script=script, check=True,
                              options=E.RunOptions(self.draw_order))

        hand = play(self.wall())
        if self.draw_order != "table":
            for _ in range(8):   # the positions depend on who draws, which the tiles decide
                positions = [(e["pos"], e["replacement"]) for e in hand.events if e["event"] == "draw"]
                hand = play(self.wall(positions))
                if [(e["pos"], e["replacement"]) for e in hand.events if e["event"] == "draw"] == positions:
                    break
            else:
                raise AssertionError("the scenario's draws do not settle on wall positions in seat order")
        err = int(hand.hand[0, rec.H_ERROR])
        if err != rec.ERR_NONE:
            from simcore.runs.batch import describe_error
            raise AssertionError(describe_error(hand.hand[0], self.hand_index, names, "this scenario"))
        if strict:
            for seat in range(4):
                used = E.script_used(hand.state, seat)
                total = int((script[seat, :, 0] >= 0).sum())
                if used != total:
                    raise AssertionError(f"seat {seat}: script entry {used} was never asked "
                                         f"({self.scripts.get(seat, [])[used - len(self.voids[seat:seat+1]):]})")
        return hand
