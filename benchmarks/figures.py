"""What the bench sections share, apart from ``benchmarks/bench.py`` (which imports the sections
that live in modules of their own): a section's figures (``Figures``, checked against targets
made by ``at_least``/``at_most``, and their text), progress on stderr (``log``), and the engine's
throughput (``hands_per_second`` of ``seat_fns``' strategies)."""

from __future__ import annotations

import math
import sys
import time

SEED = 1


def log(msg: str) -> None:
    """Progress goes to stderr so stdout holds only the figures."""
    print(msg, file=sys.stderr, flush=True)


def at_most(bound: float, unit: str = ""):
    return (f"≤ {bound:,g}{' ' + unit if unit else ''}", lambda v: v <= bound)


def at_least(bound: float, unit: str = ""):
    return (f"≥ {bound:,g}{' ' + unit if unit else ''}", lambda v: v >= bound)


class Figures(dict):
    """A section's figures by key; each is printed when it is added, so long sections show
    their results as they come."""

    def add(self, key: str, label: str, value, unit: str = "", digits: int = 0, target=None,
            low=None, high=None, ok=None, note: str | None = None, grid: tuple | None = None) -> dict:
        """``grid = (table, row, column)``: the entry shows the figure as that cell of a matrix
        named ``table`` (after the section's other figures) instead of as a row of its own."""
        text, check = target if target else (None, None)
        if ok is None and check is not None and value is not None:
            ok = bool(check(value))
        fig = {"label": label, "value": value, "unit": unit, "digits": digits, "low": low, "high": high,
               "target": text, "pass": ok, "note": note}
        if grid:
            fig["grid"] = list(grid)
        self[key] = fig
        verdict = "" if ok is None else ("  [met]" if ok else "  [NOT MET]")
        shown = f"  (target {text})" if text else ""
        print(f"  {label}: {fmt_value(fig)}{shown}{verdict}{'  -- ' + note if note else ''}", flush=True)
        return fig


def fmt_number(v, digits: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return f"{v:,.{digits}f}".replace("-", "−")


def fmt_value(fig: dict) -> str:
    text = fmt_number(fig["value"], fig["digits"])
    if fig.get("unit") and fig["value"] is not None and not isinstance(fig["value"], bool):
        text += f" {fig['unit']}"
    if fig.get("low") is not None:
        text += f" ({fmt_number(fig['low'], fig['digits'])} to {fmt_number(fig['high'], fig['digits'])})"
    return text


# -- the engine's throughput -------------------------------------------------------------

BATCH_HANDS = 100_000


def seat_fns(spec: str) -> tuple:
    from strategies.registry import parse_seats, seat_functions

    return seat_functions(parse_seats(spec))


def hands_per_second(rules, fns, threads: int, min_seconds: float, tries: int = 2) -> tuple[float, int, int]:
    """Engine-only throughput, the best of ``tries`` timings (another process can only slow a
    timing down), with the count of batches that had a hand replayed, and of batches played.
    Each timing plays whole batches of a default chunk's hands, as the runner does (a hand that
    outgrows the result slots is replayed alone), for at least ``min_seconds``. A first small
    batch compiles and warms."""
    from simcore.runs.batch import PAY_CAP, WIN_CAP, run_batch

    run_batch(rules, fns, SEED, 0, 2_000, threads=threads)
    best, first, replayed, batches = 0.0, 0, 0, 0
    for _ in range(tries):
        done, spent = 0, 0.0
        while spent < min_seconds:
            t0 = time.perf_counter()
            res = run_batch(rules, fns, SEED, first, BATCH_HANDS, threads=threads)
            spent += time.perf_counter() - t0
            done += BATCH_HANDS
            first += BATCH_HANDS
            batches += 1
            replayed += res.win.shape[1] > WIN_CAP[rules.variant] or res.pay.shape[1] > PAY_CAP[rules.variant]
            del res  # dropped, as the runner drops a chunk's result: the next batch reuses its arrays
        best = max(best, done / spent)
    return best, replayed, batches
