"""A first run after install compiles the engine and the strategies it plays, over a minute on
one core. The two compile independently (the engine calls a strategy through a function
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
from pathlib import Path


def engine_cached() -> bool:
    """Has numba's cache compiled ``play_batch`` for the current sources? Its cache directory
    is keyed by their hash (``simcore.numba_cache``), so any index of it there is this one's."""
    from numba.core import config

    return any(Path(config.CACHE_DIR).glob("*/kernel.play_batch-*.nbi"))


def warm(seat_specs: list[str]) -> bool:
    """With the engine not cached and a second core: compile the strategies of the seat specs
    in a child while this process compiles the engine; returns whether it did.
    A child that fails (a user strategy that does not compile) is ignored: the strategy is
    compiled again where it is played, and its error reported there."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") != "0" or (os.cpu_count() or 1) < 2 or engine_cached():
        return False
    child = subprocess.Popen([sys.executable, "-m", "simcore.runs.warmup", *seat_specs], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        from simcore.engine import batch_kernel

        batch_kernel()
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
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
