"""The envs in the RL libraries people use (README: Python agents): Stable-Baselines3's checker,
sb3-contrib's MaskablePPO on ``gym.make("sichuan/Table-v0")`` with no wrapper and on the fast vector
env's sb3 adapter, sb3's subprocess vector env and VecNormalize, and the MaskablePPO example. They
need the ``rl`` extra (torch, 6.5 GB with its CUDA wheels): skipped where it is not installed."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import simcore.env as senv

sb3_contrib = pytest.importorskip("sb3_contrib")


def make_env():
    return gym.make(senv.ENV_ID)


def test_sb3_check_env_passes_with_default_options():
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gym.make(senv.ENV_ID).unwrapped)


def test_maskable_ppo_trains_on_the_registered_env_with_no_wrapper():
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", gym.make(senv.ENV_ID), n_steps=64, batch_size=64, seed=0)
    model.learn(128)
    assert model.num_timesteps >= 128


def test_the_sb3_adapter_of_the_vector_env(tmp_path):
    from stable_baselines3.common.vec_env import SubprocVecEnv, VecNormalize

    from simcore.env.sb3 import TableVecEnv

    env = TableVecEnv(8, rules="flow", opponents="expert")
    env.seed(3)
    obs = env.reset()
    assert obs["observation"].shape == (8, senv.OBS_LEN) and env.action_masks().shape == (8, senv.N_ACTIONS)
    assert np.stack(env.env_method("action_masks")).shape == (8, senv.N_ACTIONS)
    done = 0
    for _ in range(200):   # legal actions only; an ended episode's info has its terminal observation
        obs, rewards, dones, infos = env.step(env.env_method("builtin_action", "expert"))
        for i in np.flatnonzero(dones):
            assert not infos[i]["terminal_observation"]["action_mask"].any()
            assert infos[i]["TimeLimit.truncated"] is False
            done += 1
    assert done > 0
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", env, n_steps=16, batch_size=64, seed=0)
    model.learn(256)
    norm = VecNormalize(TableVecEnv(2), norm_obs_keys=["observation"])
    norm.reset()
    norm.save(tmp_path / "norm.pkl")
    sub = SubprocVecEnv([make_env, make_env], start_method="spawn")
    try:
        model = sb3_contrib.MaskablePPO("MultiInputPolicy", sub, n_steps=32, batch_size=64, seed=0)
        model.learn(64)
    finally:
        sub.close()


def test_the_maskable_ppo_example_runs_at_a_small_size(capsys):
    import runpy
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "examples" / "maskable_ppo.py"
    argv = sys.argv
    sys.argv = [str(script), "--steps", "2048", "--tables", "16", "--walls", "20"]
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv = argv
    out = capsys.readouterr().out
    assert "rollouts inside sb3" in out and "MaskablePPO - expert =" in out
