"""Hands the replayer and viewer tests show: found by playing, not fixed by seed, so they keep
their feature (several flow wins with a passed win and a concealed kong, a robbed kong, a flower
pig) when the strategies change. Each search is deterministic (seed 1, hands 0, 1, 2, ...) and
fails loudly if nothing is found."""

from __future__ import annotations

from functools import lru_cache

from simcore.contract.rules import resolve
from simcore.inspection.trace import trace_hand
from strategies.registry import parse_seats, seat_functions

FIELD = "expert,efficient,greedy+void=random,random"   # varied play: pigs, kongs, claims, wins


@lru_cache(maxsize=None)
def _players(seats: str):
    specs = parse_seats(seats)
    return seat_functions(specs), [s.canonical for s in specs]


def traced(preset: str, g: int, seats: str = FIELD, seed: int = 1) -> list[dict]:
    fns, names = _players(seats)
    return trace_hand(resolve(preset, None), fns, names, seed, g).events


def find_hand(preset: str, want, seats: str = FIELD, seed: int = 1, limit: int = 3000) -> list[dict]:
    """The first hand (0, 1, 2, ...) whose events satisfy ``want``."""
    for g in range(limit):
        events = traced(preset, g, seats, seed)
        if want(events):
            return events
    raise AssertionError(f"no {preset} hand of seed {seed} in the first {limit} has the feature {want.__name__}")


def wins(events):
    return [e for e in events if e["event"] == "win"]


def several_flow_wins(events):
    """Blood flow with at least four wins by at least three seats, one of them a repeat winner."""
    w = wins(events)
    seats = [e["seat"] for e in w]
    return len(w) >= 4 and len(set(seats)) >= 3 and len(set(seats)) < len(seats)


def flow_wins_seen_apart(events):
    """Several flow wins (above), a passed win and a concealed kong: what a seat view hides of the
    others beyond their tiles."""
    return (several_flow_wins(events) and any(e["event"] == "pass_win" for e in events)
            and any(e["event"] == "kong" and e["kind"] == "concealed" for e in events))


def robbed_kong(events):
    return any(e["kind"] == "robbing_kong" for e in wins(events))


def pig_at_drawn_hand(events):
    """The wall ran out and a checked seat is a flower pig, another seat is ready."""
    checks = [e for e in events if e["event"] == "check"]
    return any(c["pig"] for c in checks) and any(c["ready"] for c in checks)


@lru_cache(maxsize=None)
def showcase() -> tuple:
    """The three hands the browser tests drive: (flow wins, robbed kong, drawn hand with a pig)."""
    return (find_hand("flow", flow_wins_seen_apart), find_hand("battle", robbed_kong),
            find_hand("battle", pig_at_drawn_hand))
