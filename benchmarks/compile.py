"""The ``compile`` bench section: seconds to compile each of the engine's entry points on an empty
numba cache (ARCHITECTURE.md: The engine), each in a fresh process, then all of them in one process
(the difference is what they share), and a warm start for comparison.

    python -m benchmarks.bench --only compile
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# name -> the code that compiles it (the suit tables are built or loaded first, outside the timing)
ENTRY_POINTS = {
    "play_batch": "E.batch_kernel()",
    "play_shadowed": "E.shadowed_kernel()",
    "play_fit": "E.fit_kernel()",
    "play_traced": "E.traced()",
    "agents": "E.agents.init_kernel(); E.agents.addresses_kernel()",
}
_CHILD = """
import json, time, sys
t0 = time.perf_counter()
from simcore import engine as E
from simcore.contract.tables import load_tables
load_tables()
t1 = time.perf_counter()
out = {{}}
for name, code in {steps!r}:
    t = time.perf_counter()
    exec(code)
    out[name] = time.perf_counter() - t
out["import"] = t1 - t0
print(json.dumps(out))
"""


def _compile_in_child(steps: list[tuple[str, str]], cache_dir: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, "-c", _CHILD.format(steps=steps)], env=env, cwd=tempfile.gettempdir(),
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def bench_compile(ctx, figures_cls, log) -> dict:
    figs = figures_cls()
    alone = {}
    for name, code in ENTRY_POINTS.items():
        with tempfile.TemporaryDirectory(prefix="sichuan-compile-") as cache:
            log(f"compile: {name} on an empty cache")
            alone[name] = _compile_in_child([(name, code)], cache)[name]
        figs.add(f"{name}_alone", f"{name}, alone on an empty cache", alone[name], "s", 1)
    with tempfile.TemporaryDirectory(prefix="sichuan-compile-") as cache:
        log("compile: every entry point in one process, then again warm")
        together = _compile_in_child(list(ENTRY_POINTS.items()), cache)
        warm = _compile_in_child(list(ENTRY_POINTS.items()), cache)
    total = sum(together[n] for n in ENTRY_POINTS)
    figs.add("all_together", "every entry point in one process on an empty cache", total, "s", 1)
    figs.add("shared", "what they share (the sum alone less together)", sum(alone.values()) - total, "s", 1)
    figs.add("all_warm", "every entry point loaded warm from the cache", sum(warm[n] for n in ENTRY_POINTS), "s", 2)
    return figs
