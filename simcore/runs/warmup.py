"""A first run after install compiles the engine and the strategies it plays, a few minutes on
two cores (and says so in a line before it starts: ``compiling_line``). The two compile independently (the engine calls a strategy through a function
pointer, ``simcore.contract.nrt``, and is compiled for its own signature, ``engine.batch_kernel``), so
with a second core a child process compiles the seats' strategies and builds the suit tables
into their caches while this process compiles the engine; the strategies and tables then load
from the caches. Warm caches skip all of it.

``python -m simcore.runs.warmup SEATS...`` is the child: each SEATS as ``sichuan simulate --seats``
takes it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

# A cold compile of the engine and expert on 2 idle cores (the `runs` bench's first-run figure was 43 s
# before the engine split and the larger view; `python -m benchmarks.bench --only compile` measures each
# entry point); a loaded machine takes longer. Said in the line a first run prints, and in the README.
COLD_MINUTES = "1 to 3"


def engine_cached() -> bool:
    """Has numba's cache compiled ``play_batch`` for the current sources? Its cache directory
    is keyed by their hash (``simcore.numba_cache``), so any index of it there is this one's."""
    from numba.core import config

    return any(Path(config.CACHE_DIR).glob("*/kernel.play_batch-*.nbi"))


def compiling_line(cores: int) -> str:
    """What a first run says while it compiles: what, why, about how long, and that it happens once."""
    from numba.core import config

    return (f"compiling the engine and the strategies for this machine: the first run after installing or "
            f"changing the code (about {COLD_MINUTES} minutes on {'2' if cores >= 2 else 'one'} idle "
            f"core{'s' if cores >= 2 else ''}, longer on a busy machine); it is cached in {config.CACHE_DIR}, "
            f"so later runs start in about a second")


def warm(seat_specs: list[str], quiet: bool = False) -> bool:
    """With the engine not cached: say so on stderr (unless ``quiet``), and with a second core
    compile the strategies of the seat specs in a child while this process compiles the engine;
    returns whether it compiled. A child that fails (a user strategy that does not compile) is
    ignored: the strategy is compiled again where it is played, and its error reported there."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") != "0" or engine_cached():
        return False
    cores = os.cpu_count() or 1
    if not quiet:
        print(compiling_line(cores), file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    child = None
    if cores >= 2:
        child = subprocess.Popen([sys.executable, "-m", "simcore.runs.warmup", *seat_specs],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        from simcore.engine import batch_kernel

        batch_kernel()
        if child is not None:
            child.wait()
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
    if not quiet:
        print(f"compiled in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return True


def _main(argv: list[str]) -> int:
    from simcore.contract.tables import load_tables
    from strategies.registry import parse_seats, seat_functions

    load_tables()
    for spec in argv:
        seat_functions(parse_seats(spec))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
