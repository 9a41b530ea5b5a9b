"""Tables with agent seats, from Python: the arrays ``simcore.engine.agents`` steps, the seats and
rules they play, the checks on what an agent answers, and a finished hand's rows. Every
environment of ``simcore.env`` (and ``sichuan dataset``) is a thin layer over ``Tables``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.contract import records as rec
from simcore.contract.actions import N_ACTIONS, action_name
from simcore.contract.rules import RuleSet, resolve
from simcore.contract.tables import load_tables
from simcore.contract.view import QUESTION_NAMES, SETUP_SCRATCH, N_PARAMS, N_SCRATCH, VIEW_LEN
from simcore.engine import agents as AG
from simcore import engine as K
from simcore.runs.batch import BatchResult, EngineError, hand_error

# room for a hand's wins and payments (a blood-flow hand rarely has more than 30 wins)
WIN_CAP = {"battle": 8, "flow": 96}
PAY_CAP = {"battle": 64, "flow": 512}


class IllegalActionError(ValueError):
    """An agent answered with an action its mask does not allow: nothing was played."""


@dataclass(eq=False)
class HandResult:
    """A finished hand's rows, as ``sichuan simulate`` writes them: ``tables()`` gives the four
    Arrow tables (hands, seats, wins, payments; ``simcore.runs.shards.COLUMNS``). Two results are
    equal when every row is (PettingZoo's ``seed_test`` compares the infos that carry them)."""

    g: int
    hand: np.ndarray   # (N_HAND_FIELDS,)
    seat: np.ndarray   # (4, N_SEAT_FIELDS)
    win: np.ndarray    # (wins, N_WIN_FIELDS)
    pay: np.ndarray    # (payments, N_PAY_FIELDS)
    strategies: list
    hands_per_match: int = 1

    def __eq__(self, other) -> bool:
        if not isinstance(other, HandResult):
            return NotImplemented
        return (self.g == other.g and self.strategies == other.strategies and self.hands_per_match == other.hands_per_match
                and all(np.array_equal(getattr(self, k), getattr(other, k)) for k in ("hand", "seat", "win", "pay")))

    __hash__ = None

    @property
    def nets(self) -> np.ndarray:
        return self.seat[:, rec.S_NET].astype(np.int64)

    def tables(self) -> dict:
        from simcore.runs.shards import batch_tables

        res = BatchResult(np.array([self.g], np.int64), self.hand[None], self.seat[None], self.win[None],
                          self.pay[None], self.hands_per_match > 1, self.hands_per_match)
        return batch_tables(res, self.strategies)

    def frames(self) -> dict:
        """The four tables as pandas DataFrames."""
        return {name: t.to_pandas() for name, t in self.tables().items()}


def seat_specs(opponents) -> list:
    """The four seat specs: ``opponents`` is one spec, or a spec per seat (text ``A,B,C,D`` or a
    list). At an agent seat the spec is a placeholder whose strategies are never asked (every
    question put to that seat is the agent's)."""
    from strategies.registry import parse_seat, parse_seats

    if isinstance(opponents, (list, tuple)):
        specs = [parse_seat(str(o)) for o in opponents]
    elif "," in str(opponents):
        specs = parse_seats(str(opponents))
    else:
        specs = [parse_seat(str(opponents))] * 4
    if len(specs) != 4:
        raise ValueError(f"opponents: give one seat spec or four, not {len(specs)}")
    return specs


class Tables:
    """``n`` tables of the same rules and seats, the seats in ``agents`` answered from outside.
    ``reset(seed, first, stride)`` puts table i at item ``first + i`` (then ``+ stride``, ...),
    each at its first decision; ``step(actions)`` answers and plays on (``agents.step_tables``).
    ``last``: the last item a table may play (None: no end)."""

    def __init__(self, n: int, rules="battle", opponents="expert", agents=(0,), match: bool = False,
                 paid_now: bool = False, draw_order: str = "table", record: bool = False):
        from strategies.registry import seat_functions

        if n < 1:
            raise ValueError("the number of tables must be at least 1")
        agents = tuple(sorted(set(int(a) for a in agents)))
        if not agents or any(not 0 <= a < 4 for a in agents):
            raise ValueError(f"agent seats must be among 0, 1, 2, 3, got {agents}")
        self.rules = resolve(rules) if not isinstance(rules, RuleSet) else rules
        self.n, self.agents, self.match, self.paid_now = n, agents, bool(match), bool(paid_now)
        self.draw_order = draw_order
        self.specs = seat_specs(opponents)
        self.strategies = [("agent" if s in agents else spec.canonical) for s, spec in enumerate(self.specs)]
        self.players = seat_functions(self.specs, self.rules)
        self.setup = self.players.setup.copy()
        for s in agents:   # an agent seat's placeholder strategies are never asked: no scratch
            self.setup[SETUP_SCRATCH + s] = 0
        self.R = self.rules.to_array()
        self.OPT = K.RunOptions(draw_order).to_array()
        self.tab = load_tables()
        self.hpm = self.rules.hands_per_match if self.match else 1
        wcap, pcap = WIN_CAP[self.rules.variant], PAY_CAP[self.rules.variant]
        self.ST = np.zeros((n, AG.state_len(wcap, pcap)), np.int64)
        self.E = np.zeros((n, AG.E_LEN), np.int64)
        self.A = np.zeros((n, int(K.arena_len(self.players.arena))), np.int64)
        self.hand = np.zeros((n, rec.N_HAND_FIELDS), np.int32)
        self.seat = np.zeros((n, 4, rec.N_SEAT_FIELDS), np.int32)
        self.win = np.zeros((n, wcap, rec.N_WIN_FIELDS), np.int32)
        self.pay = np.zeros((n, pcap, rec.N_PAY_FIELDS), np.int32)
        self.obs = np.zeros((n, AG.OBS_LEN), np.float32)
        self.masks = np.zeros((n, N_ACTIONS), np.int8)
        self.reward = np.zeros((n, 4), np.int64)
        self.status = np.zeros(n, np.int64)
        self.ended = np.zeros(n, bool)
        self._builtins: dict = {}
        self.seed = None
        # with ``record``: what the agents answered, per table, in the hand being played and in the
        # last one finished (``trace``)
        self.record = bool(record)
        self._answers: list = [[] for _ in range(n)]
        self._finished: list = [None] * n

    # -- pickling: the state holds this process's addresses ---------------------------------------

    _ARRAYS = ("ST", "E", "A", "hand", "seat", "win", "pay", "obs", "masks", "reward", "status", "ended")

    def __getstate__(self) -> dict:
        return {"args": (self.n, self.rules, [s.canonical for s in self.specs], self.agents, self.match,
                         self.paid_now, self.draw_order, self.record),
                "arrays": {k: getattr(self, k) for k in self._ARRAYS}, "seed": self.seed,
                "builtins": {spec: b.state() for spec, b in self._builtins.items()},
                "answers": (self._answers, self._finished)}

    def __setstate__(self, state: dict) -> None:
        """The tables rebuilt from their seats and rules, their arrays restored, and the addresses
        their states hold (suit tables, strategies, arenas, models) rewritten for this process
        (``agents.rebind_tables``): they play on as they would have."""
        self.__init__(*state["args"])
        for k, a in state["arrays"].items():
            getattr(self, k)[...] = a
        self.seed = state["seed"]
        p = self.players
        AG.rebind_kernel()(self.ST, self.A, self.tab, p.fns, self.setup, p.rfns, p.arena)
        for spec, s in state["builtins"].items():
            self.builtin_of(spec).restore(s)
        self._answers, self._finished = state["answers"]

    # -- playing -------------------------------------------------------------------------------

    def reset(self, seed: int, first: int = 0, stride: int | None = None, last: int | None = None) -> None:
        if seed < 0 or first < 0:
            raise ValueError("the seed and the first hand must be non-negative integers")
        self.seed = int(seed)
        stride = self.n if stride is None else stride
        agents = sum(1 << a for a in self.agents)
        p = self.players
        AG.init_kernel()(self.ST, self.E, self.A, self.R, self.OPT, np.int64(seed), np.int64(agents), np.int64(first),
                       np.int64(stride), np.int64(-1 if last is None else last), bool(self.match),
                       np.int64(self.win.shape[1]), np.int64(self.pay.shape[1]), self.tab, p.fns, self.setup,
                       p.rfns, p.arena)
        for b in self._builtins.values():
            b.clear()
        self._answers = [[] for _ in range(self.n)]
        self._finished = [None] * self.n
        AG.first_decisions(self.ST, self.E, self.obs, self.masks, self.reward, self.status, self.hand, self.seat,
                           self.win, self.pay, self.paid_now)
        self._raise_errors()

    def step(self, actions, refuse: bool = False) -> np.ndarray:
        """Answer every live table and play on. An action outside a table's mask is never played:
        it raises ``IllegalActionError`` (nothing played at any table), or with ``refuse`` that
        table stands still at its decision (its reward 0, its observation and mask as they were)
        while the others play. Returns the tables refused (bool, n)."""
        actions = np.ascontiguousarray(actions, np.int64).reshape(self.n)
        bad = self.illegal_tables(actions)
        refused = bool(bad.any())
        if refused and not refuse:
            raise IllegalActionError(self.illegal_message(int(np.flatnonzero(bad)[0]), actions))
        live = self.status != AG.OVER
        if self.record:
            self._keep_answers(actions, live & ~bad)
        if refused:   # as a table past its last item, the kernel leaves it as it is
            held = self.obs[bad].copy(), self.masks[bad].copy()
            self.E[bad, AG.E_OVER] = 1
        AG.step_tables(self.ST, self.E, actions, self.obs, self.masks, self.reward, self.status, self.hand, self.seat,
                       self.win, self.pay, self.paid_now)
        if refused:
            self.E[bad, AG.E_OVER] = 0
            self.status[bad] = AG.DECISION
            self.obs[bad], self.masks[bad] = held
        self.ended = live & ~bad & (self.status != AG.DECISION)   # tables whose hand ended in this step
        if self.record:
            for i in np.flatnonzero(self.ended):
                self._finished[i], self._answers[i] = self._answers[i], []
        self._raise_errors()
        return bad

    def _keep_answers(self, actions: np.ndarray, answering: np.ndarray) -> None:
        """Each answering table's agent answer as a scenario script entry (seat, question, the tile
        it is on, the engine's answer); the exchange's three picks as the one pass the seat made,
        taken from the state at its void question, the first question after it."""
        from simcore.contract.actions import answer_of
        from simcore.contract.view import Q_CLAIM, Q_EXCHANGE, Q_ROB, Q_TURN, Q_VOID, V_TILE, pack3

        for i in np.flatnonzero(answering):
            seat, q = self.pending_seat(i), self.question(i)
            if q == Q_EXCHANGE:
                continue
            if q == Q_VOID and self.rules.exchange:
                self._answers[i].append((seat, Q_EXCHANGE, -1, int(pack3(*K.passed_tiles(self.ST[i], seat)))))
            tile = int(K.seat_view(self.ST[i], seat)[V_TILE]) if q in (Q_TURN, Q_CLAIM, Q_ROB) else -1
            self._answers[i].append((seat, q, tile, int(answer_of(np.int64(q), np.int64(actions[i]), np.int64(tile)))))

    def trace(self, i: int):
        """Table i's last finished hand replayed with the agents' answers as scenario scripts
        (``simcore.inspection.trace``: TRACE.md events, ``sichuan trace``'s and the viewer's), and
        checked against the rows it played: a ``TracedHand``. Needs ``record=True``."""
        from simcore.inspection.trace import trace_hand

        if not self.record:
            raise ValueError("these tables keep no answers to trace: make them with record=True (an env: "
                             "record_trace=True)")
        answers = self._finished[i]
        if answers is None:
            raise ValueError(f"table {i} has finished no hand yet")
        res = self.result(i)
        per_seat = {s: [a for a in answers if a[0] == s] for s in range(4)}
        script = np.full((4, max([len(v) for v in per_seat.values()] + [1]), 3), -1, np.int64)
        for s, entries in per_seat.items():
            for k, (_, q, tile, ans) in enumerate(entries):
                # used only where the question has a choice, as the agent was asked
                script[s, k] = (q + K.SCRIPT_AT_CHOICE, tile, ans)
        traced = trace_hand(self.rules, self.players, self.strategies, self.seed, res.g, int(res.hand[rec.H_DEALER]),
                            res.seat[:, rec.S_SCORE_BEFORE], options=K.RunOptions(self.draw_order), script=script)
        if not (np.array_equal(traced.seat[0, :, rec.S_NET], res.seat[:, rec.S_NET])
                and np.array_equal(traced.hand[0, :rec.H_N_EVENTS], res.hand[:rec.H_N_EVENTS])):
            raise EngineError(f"hand {res.g} of table {i} did not replay as it was played with its agents' answers")
        return traced

    def illegal_tables(self, actions: np.ndarray) -> np.ndarray:
        """(n,) bool: the live tables whose action is outside their mask."""
        if self.n == 1:   # the single env's every step: no array arithmetic
            a = int(actions[0])
            ok = self.status[0] == AG.OVER or (0 <= a < N_ACTIONS and self.masks[0, a] == 1)
            return np.array([not ok])
        live = self.status != AG.OVER
        ok = (actions >= 0) & (actions < N_ACTIONS)
        ok[ok] = self.masks[np.flatnonzero(ok), actions[ok]] == 1
        return live & ~ok

    def illegal_message(self, i: int, actions: np.ndarray) -> str:
        a = int(actions[i])
        what = action_name(a) if 0 <= a < N_ACTIONS else "no action"
        legal = ", ".join(f"{x} ({action_name(x)})" for x in np.flatnonzero(self.masks[i]))
        where = f"table {i}: " if self.n > 1 else ""
        return f"{where}action {a} ({what}) is not legal at this {self.question_name(i)} question; legal: {legal}"

    def _raise_errors(self) -> None:
        bad = np.flatnonzero(self.status == AG.ERROR)
        if bad.size:
            i = int(bad[0])
            g = int(self.E[i, AG.E_ENDED])
            raise hand_error(self.hand[i], g, self.strategies, f"--seed {self.seed} --hand {g}")

    # -- what a table stands at ------------------------------------------------------------------

    def asked_seats(self) -> np.ndarray:
        """(n,) the seat each table asks (-1 where it asks none: past its last item)."""
        seats = self.E[np.arange(self.n), AG.E_PEND + self.E[:, AG.E_POS]].astype(np.int64)
        return np.where(self.status == AG.OVER, -1, seats)

    def pending_seat(self, i: int) -> int:
        return int(self.E[i, AG.E_PEND + self.E[i, AG.E_POS]])

    def question(self, i: int) -> int:
        return int(self.E[i, AG.E_Q + self.E[i, AG.E_POS]])

    def question_name(self, i: int) -> str:
        q = self.question(i)
        if q == 0:
            return f"exchange (pick {int(self.E[i, AG.E_NPICK]) + 1} of 3)"
        return QUESTION_NAMES[q]

    def hand_index(self, i: int) -> int:
        return int(K.hand_index(self.ST[i]))

    def result(self, i: int) -> HandResult:
        """The rows of the hand table i finished at its last step."""
        h = self.hand[i].copy()
        nw, npay = int(h[rec.H_N_WINS]), int(h[rec.H_N_PAYMENTS])
        if nw > self.win.shape[1] or npay > self.pay.shape[1]:
            raise EngineError(f"hand {self.hand_index(i)} had {nw} wins and {npay} payments, more than the env keeps")
        return HandResult(int(self.E[i, AG.E_ENDED]), h, self.seat[i].copy(), self.win[i, :nw].copy(), self.pay[i, :npay].copy(),
                          self.strategies, self.hpm)

    def text(self, i: int) -> str:
        """Table i as text (the envs' ``render_mode="ansi"``): the hand, the wall left, each seat's
        concealed tiles, declared sets, void, wins and score, its discards, and the seat asked."""
        from simcore.contract import tiles as T
        from simcore.contract import view as vw

        S = self.ST[i]
        if self.status[i] == AG.OVER:
            return f"table {i}: past its last hand\n"
        asked = self.pending_seat(i) if self.status[i] == AG.DECISION else -1
        v = K.seat_view(S, 0)
        lines = [f"hand {self.hand_index(i)} ({self.rules.preset}), wall {int(v[vw.V_WALL_LEFT])} left"
                 + (f"; seat {asked} is asked: {self.question_name(i)}" if asked >= 0 else "; the hand is over")]
        seq = [int(v[vw.V_DISC_SEQ + k]) for k in range(min(int(v[vw.V_N_DISCARDS]), vw.N_DISC_SEQ))]
        for s in range(4):
            void = K.void_of(S, s)
            sets = " ".join(f"{vw.MELD_NAMES[k]}:{T.tile_text(t)}" for k, t in K.melds(S, s))
            thrown = T.fmt_tiles([vw.discard_tile(x) for x in seq if vw.discard_seat(x) == s])
            who = "agent" if s in self.agents else self.strategies[s].split("+")[0].split("[")[0]
            lines.append(f"{'>' if s == asked else ' '} seat {s} ({who}): {T.fmt(K.concealed(S, s)) or '-'}"
                         + (f" | {sets}" if sets else "")
                         + f" | void {T.SUITS[void] if void < T.N_SUITS else '?'} | wins {int(v[vw.V_WINS + s])}"
                         + f" | score {int(v[vw.V_SCORE + s])}" + (f" | out" if v[vw.V_OUT + s] else "")
                         + f" | discards {thrown or '-'}")
        return "\n".join(lines) + "\n"

    def views(self) -> np.ndarray:
        """(n, VIEW_LEN) each table's asked seat's raw view (``simcore.contract.view``)."""
        out = np.zeros((self.n, VIEW_LEN), np.int64)
        AG.views_of(self.ST, self.E, out)
        return out

    def builtin(self, spec: str) -> np.ndarray:
        """(n,) the action seat spec ``spec`` would take at each table's pending decision
        (``agents.builtin_actions``); -1 where a table has none."""
        return self.builtin_of(spec)(self)

    def builtin_of(self, spec: str) -> "_Builtin":
        b = self._builtins.get(spec)
        if b is None:
            b = self._builtins[spec] = _Builtin(spec, self.n)
        return b


class _Builtin:
    """A seat spec's strategies and, per table and seat, the scratch and random counter it would
    have there; a searching spec's arena, and per table what it judged at its last answer
    (``judged``: the arena's search work from ``strategies.search.SW_CAND`` to ``SW_END``)."""

    def __init__(self, spec: str, n: int):
        from simcore.contract.arena import AR_HEADER, AR_LEN, AR_STATE_LEN, AR_STATES, N_STATES
        from strategies import search
        from strategies.registry import parse_seat, seat_functions

        s = parse_seat(spec)
        players = seat_functions([s] * 4)
        self.fns = np.zeros(6, np.int64)
        self.rfns = np.zeros(6, np.int64)
        AG.addresses_kernel()((players.fns[0], players.fns[4], players.fns[8]), self.fns)
        AG.addresses_kernel()((players.rfns[0], players.rfns[4], players.rfns[8]), self.rfns)
        self._keep = players   # the functions behind the addresses stay alive with it
        self.template = np.ascontiguousarray(players.arena[:AR_HEADER])
        self.setup = np.ascontiguousarray(players.setup[:3 * N_PARAMS])
        self.searches = bool(self.template[AR_LEN] > 0)
        self.arena = np.zeros(max(int(self.template[AR_LEN]), 1), np.int64)
        n_copy = search.SW_END - search.SW_CAND if self.searches else 0
        self.judged = np.zeros((n, 1 + n_copy), np.int64)
        if self.searches:
            self.judged[:, 0] = AR_STATES + N_STATES * int(self.template[AR_STATE_LEN]) + search.SW_CAND
        self.scratch = np.zeros((4 * n, N_SCRATCH), np.int64)
        self.rng = np.zeros(4 * n, np.int64)
        self.hands = np.full(4 * n, -1, np.int64)
        self.memo = np.full((n, 3), -1, np.int64)

    def clear(self) -> None:
        self.hands[:] = -1
        self.memo[:] = -1

    _KEPT = ("judged", "scratch", "rng", "hands", "memo")   # what it remembers per table and seat

    def state(self) -> dict:
        return {k: getattr(self, k).copy() for k in self._KEPT}

    def restore(self, state: dict) -> None:
        for k in self._KEPT:
            getattr(self, k)[...] = state[k]

    def __call__(self, tables: "Tables", seats=(0, 1, 2, 3)) -> np.ndarray:
        """(n,) its action at each table whose pending decision is one of ``seats``' (-1 elsewhere:
        the strategy is not asked there)."""
        out = np.zeros(tables.n, np.int64)
        AG.builtin_actions(tables.ST, tables.E, self.fns, self.setup, self.rfns, self.template, self.arena,
                           self.judged, self.scratch, self.rng, self.hands, self.memo,
                           np.int64(sum(1 << s for s in seats)), out)
        return out
