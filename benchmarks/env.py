"""The ``env`` bench section (issue 37): Python agents' environments, and decision datasets.

- the vector env, ``TABLES`` tables, one agent seat against three ``expert``, a random masked agent
  in numpy: agent decisions per second on one core, without the agent's own time, split into the
  jitted step's share and Python's (the vector env's and ``Tables``' code around it);
- the single-table env through ``gymnasium.make`` (its default wrappers included), the same agent;
- ``sichuan dataset`` of expert seats, every seat recorded: decisions/s and hands/s against the
  engine's own expert hands/s on one core, measured in the same run.

    python -m benchmarks.bench --only env            # 300 vector steps, 30,000 single steps, 10,000 hands
    python -m benchmarks.bench --only env --quick    # a tenth
"""

from __future__ import annotations

import shutil
import tempfile
import time

import numpy as np

TABLES = 1024
SEED = 5


def _vector(steps: int) -> dict:
    import gymnasium as gym

    import simcore.env as senv
    from simcore.engine import agents as AG

    env = gym.make_vec(senv.ENV_ID, num_envs=TABLES, vectorization_mode="vector_entry_point", rules="battle",
                       opponents="expert", seat=0, copy=False)
    kernel_seconds = [0.0]
    inner = AG.step_tables

    def timed(*args):
        t0 = time.perf_counter()
        inner(*args)
        kernel_seconds[0] += time.perf_counter() - t0

    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=SEED)
    AG.step_tables = timed
    try:
        agent = total = 0.0
        ends = 0
        for _ in range(steps):
            t0 = time.perf_counter()
            m = obs["action_mask"]
            actions = (rng.random(m.shape) * m).argmax(1)
            t1 = time.perf_counter()
            obs, rew, term, trunc, info = env.step(actions)
            t2 = time.perf_counter()
            agent += t1 - t0
            total += t2 - t0
            ends += int(term.sum())
    finally:
        AG.step_tables = inner
    env_seconds = total - agent
    return {"rate": steps * TABLES / env_seconds, "engine": kernel_seconds[0] / env_seconds,
            "agent": agent / total, "hands": ends}


def _single(steps: int) -> dict:
    import gymnasium as gym

    import simcore.env as senv

    env = gym.make(senv.ENV_ID, rules="battle", opponents="expert", seat=0)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=SEED)
    agent = total = 0.0
    for _ in range(steps):
        t0 = time.perf_counter()
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        t1 = time.perf_counter()
        obs, r, term, trunc, info = env.step(a)
        if term:
            obs, _ = env.reset()
        t2 = time.perf_counter()
        agent += t1 - t0
        total += t2 - t0
    return {"rate": steps / (total - agent)}


def _dataset(hands: int) -> dict:
    from simcore.contract.rules import preset
    from simcore.env.dataset import record
    from strategies.registry import parse_seats

    out = tempfile.mkdtemp(prefix="bench-dataset-")
    try:
        record(out, preset("battle"), parse_seats("expert"), (0, 1, 2, 3), 1000, seed=SEED, chunk=1000)  # warm
        shutil.rmtree(out)
        t0 = time.perf_counter()
        m = record(out, preset("battle"), parse_seats("expert"), (0, 1, 2, 3), hands, seed=SEED, chunk=2000)
        seconds = time.perf_counter() - t0
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"decisions": m["timings"]["last_session_rows"] / seconds, "hands": hands / seconds,
            "per_hand": m["timings"]["last_session_rows"] / hands}


def bench_env(ctx, Figures, log):
    from simcore.contract.rules import preset

    from benchmarks.figures import at_least, hands_per_second, seat_fns

    figs = Figures()
    scale = 10 if ctx.quick else 1
    log(f"env: vector env, {TABLES} tables, random masked agent")
    v = _vector(300 // scale)
    figs.add("vector_rate", f"vector env, {TABLES} tables vs 3 expert, battle, 1 core (agent's time excluded)",
             v["rate"], "decisions/s", 0, at_least(100_000, "decisions/s"),
             note=f"{v['engine']:.0%} in the jitted step, {1 - v['engine']:.0%} Python; the numpy agent took "
                  f"{v['agent']:.0%} of the wall time; {v['hands']:,} hands ended")
    log("env: single-table env through gymnasium.make")
    s = _single(30_000 // scale)
    figs.add("single_rate", "single-table env (gymnasium.make, its wrappers), battle vs 3 expert (agent excluded)",
             s["rate"], "decisions/s", 0, at_least(10_000, "decisions/s"))
    log("env: sichuan dataset, expert, every seat recorded")
    d = _dataset(10_000 // scale)
    engine = hands_per_second(preset("battle"), seat_fns("expert"), 1, 0.5 if ctx.quick else 2.0)[0]
    figs.add("dataset_rate", "sichuan dataset, battle, expert, 4 seats recorded", d["decisions"], "decisions/s", 0,
             note=f"{d['hands']:,.0f} hands/s, {d['per_hand']:.1f} decisions a hand; the engine alone plays "
                  f"{engine:,.0f} expert hands/s on 1 core ({d['hands'] / engine:.0%} of it: every decision "
                  f"is a 2 KB observation row, sorted and written to Parquet in a second thread)")
    figs.add("dataset_vs_engine", "dataset hands/s / engine hands/s (expert, battle, 1 core)", d["hands"] / engine * 100,
             "%", 1)
    return figs
