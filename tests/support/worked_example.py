"""RULES.md: Worked example (seed 000) as a scenario: its deal, draws, voids and scripted choices."""

from collections import Counter

from simcore.inspection.scenario import Scenario
from simcore.contract.tiles import parse_tiles, tile_text

A, B, C, D = range(4)


def worked_example() -> Scenario:
    hands = {A: "223344m3466p1578s", B: "23468999p13579s", C: "1112345678999m", D: "115577p226699s4s"}
    used = Counter(t for h in hands.values() for t in parse_tiles(h))
    used.update(parse_tiles("9p5m2s"))
    pool = [t for t in range(27) for _ in range(4 - used[t])]
    bamboo = [t for t in pool if t // 9 == 2]
    other = [t for t in pool if t // 9 != 2]
    draws = ["9p", "5m"]  # B draws the fourth 9p, C draws 5m
    for i in range(52):   # then D, A, B in turn; A draws only bamboo so it keeps 5s 7s 8s
        seat = (D, A, B)[i % 3]
        draws.append(tile_text(bamboo.pop(0) if seat == A or not other else other.pop(0)))
    return Scenario("battle", dealer=A, hands=hands, draws=" ".join(draws), replacements="2s",
                    voids="smpm", scripts={B: ["kong 9p"], C: ["win"]}, scores=(100, 100, 100, 100),
                    sets={"exchange": False})
