"""The Gymnasium and PettingZoo environments (README: Python agents): their checkers, the
refusal of illegal actions, determinism, autoreset, matches, rewards, the raw view."""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import simcore.env as senv
from simcore.contract.actions import N_ACTIONS
from simcore.contract.view import VIEW_LEN
from simcore.engine import agents as AG


def _random_episode(env, rng, steps=10_000):
    obs, info = env.reset()
    total = 0.0
    for _ in range(steps):
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, r, term, trunc, info = env.step(a)
        total += r
        if term:
            return total, info
    raise AssertionError("an episode did not end")


def test_gymnasium_check_env_passes_with_default_options():
    with pytest.warns(UserWarning, match="refused an illegal action"):   # check_env steps before resetting
        check_env(gym.make(senv.ENV_ID).unwrapped)
    env = gym.make(senv.ENV_ID, rules="flow", opponents="greedy,expert,efficient,expert", seat=3, render_mode="ansi")
    check_env(env.unwrapped)


def test_pettingzoo_api_test_passes():
    api_test(senv.env(rules="battle"), num_cycles=300)
    api_test(senv.env(rules="flow", reward="paid"), num_cycles=300)


def test_an_illegal_action_is_refused_and_never_played():
    env = gym.make(senv.ENV_ID, rules="battle", seat=1, illegal="raise").unwrapped
    obs, _ = env.reset(seed=4)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = env.tables.ST.copy()
    with pytest.raises(senv.IllegalActionError, match=r"action \d+ \(.*\) is not legal at this exchange .*; legal: "):
        env.step(bad)
    assert np.array_equal(before, env.tables.ST)
    with pytest.raises(senv.IllegalActionError, match="is not legal"):
        env.step(N_ACTIONS + 3)
    refusing = gym.make(senv.ENV_ID, rules="battle", seat=1).unwrapped   # the default refuses
    obs2, _ = refusing.reset(seed=4)
    with pytest.warns(UserWarning, match="refused an illegal action"):
        obs3, r, term, trunc, info = refusing.step(bad)
    assert "is not legal" in info["illegal_action"] and r == 0 and not term
    assert np.array_equal(obs2["observation"], obs3["observation"]) and np.array_equal(before, refusing.tables.ST)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # warned once: the next refusal is silent
        assert "is not legal" in refusing.step(N_ACTIONS + 3)[4]["illegal_action"]
    # the vector env refuses a table's illegal action while the others play on
    v = gym.make_vec(senv.ENV_ID, num_envs=3, vectorization_mode="vector_entry_point").unwrapped
    obs, _ = v.reset(seed=4)
    acts = v.action_space.sample()
    acts[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    held = v.tables.ST[1].copy()
    with pytest.warns(UserWarning, match="refused an illegal action"):
        obs2, r, term, _, infos = v.step(acts)
    assert np.array_equal(held, v.tables.ST[1]) and np.array_equal(obs["observation"][1], obs2["observation"][1])
    assert infos["_illegal_action"].tolist() == [False, True, False] and "is not legal" in infos["illegal_action"][1]
    assert not np.array_equal(obs["observation"][0], obs2["observation"][0])   # the others played
    raising = gym.make_vec(senv.ENV_ID, num_envs=3, vectorization_mode="vector_entry_point", illegal="raise").unwrapped
    raising.reset(seed=4)
    before = raising.tables.ST.copy()
    with pytest.raises(senv.IllegalActionError, match="table 1: "):
        raising.step(acts)
    assert np.array_equal(before, raising.tables.ST)
    with pytest.raises(ValueError, match="illegal must be one of raise, refuse"):
        gym.make(senv.ENV_ID, illegal="ignore")


def test_bad_options_are_one_line_errors():
    with pytest.raises(ValueError, match="seat must be 0, 1, 2 or 3"):
        gym.make(senv.ENV_ID, seat=4)
    with pytest.raises(ValueError, match="reward must be one of hand, paid"):
        gym.make(senv.ENV_ID, reward="sometimes")
    with pytest.raises(Exception, match="unknown preset"):
        gym.make(senv.ENV_ID, rules="bloodbath")
    with pytest.raises(Exception, match="nosuch"):
        gym.make(senv.ENV_ID, opponents="nosuch")


def test_same_seed_same_actions_same_trajectory_and_episodes_follow_hand_indices():
    def trajectory(seed):
        env = gym.make(senv.ENV_ID, rules="flow", seat=2).unwrapped
        rng = np.random.default_rng(1)
        obs, info = env.reset(seed=seed)
        out = [(info["hand"], obs["observation"].copy())]
        for _ in range(3):
            total, end = _random_episode_from(env, obs, rng)
            obs, info = env.reset()
            out.append((end["hand"], total, info["hand"], obs["observation"].copy()))
        return out

    def _random_episode_from(env, obs, rng):
        total = 0.0
        while True:
            obs, r, term, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            total += r
            if term:
                return total, info

    a, b = trajectory(11), trajectory(11)
    assert a[0][0] == 0 and [x[0] for x in a[1:]] == [0, 1, 2] and [x[2] for x in a[1:]] == [1, 2, 3]
    for x, y in zip(a, b):
        assert all(np.array_equal(u, v) for u, v in zip(x, y))
    assert not np.array_equal(trajectory(12)[0][1], a[0][1]) or trajectory(12)[1][1] != a[1][1]


def test_the_reward_is_the_hand_net_at_the_end_or_as_paid():
    for reward in ("hand", "paid"):
        env = gym.make(senv.ENV_ID, rules="flow", seat=0, reward=reward).unwrapped
        env.reset(seed=3)
        rng = np.random.default_rng(0)
        for _ in range(5):
            total, info = _random_episode(env, rng)
            assert total == info["result"].nets[0]
            assert info["result"].nets.sum() == 0


def test_a_match_is_one_episode_of_its_hands():
    env = gym.make(senv.ENV_ID, rules="kawu", seat=1, match=True).unwrapped
    hpm = env.tables.rules.hands_per_match
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(0)
    ends, total = [], 0.0
    while True:
        obs, r, term, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        total += r
        if "result" in info:
            ends.append(info["result"])
        if term:
            break
    assert len(ends) == hpm and [e.g for e in ends] == list(range(hpm))
    assert total == sum(int(e.nets[1]) for e in ends)
    from simcore.contract import records as rec
    assert ends[1].seat[1, rec.S_SCORE_BEFORE] == ends[0].seat[1, rec.S_SCORE_BEFORE] + ends[0].nets[1]


def test_the_raw_view_on_request():
    env = gym.make(senv.ENV_ID, rules="battle", raw_view=True).unwrapped
    _, info = env.reset(seed=0)
    assert info["view"].shape == (VIEW_LEN,) and info["question"].startswith("exchange")
    plain = gym.make(senv.ENV_ID, rules="battle").unwrapped
    assert "view" not in plain.reset(seed=0)[1]


def test_the_vector_env_steps_n_tables_with_same_step_autoreset():
    n = 8
    env = gym.make_vec(senv.ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", rules="battle", seat=0)
    assert env.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    assert env.observation_space["observation"].shape == (n, senv.OBS_LEN)
    obs, _ = env.reset(seed=5)
    tables = env.unwrapped.tables
    assert [tables.hand_index(i) for i in range(n)] == list(range(n))
    played = [[i] for i in range(n)]
    rng = np.random.default_rng(0)
    episodes = 0
    while episodes < 3 * n:
        m = obs["action_mask"]
        assert (m.sum(1) >= 2).all()     # every table is back at a decision with a choice
        actions = (rng.random(m.shape) * m).argmax(1)
        obs, rew, term, trunc, info = env.step(actions)
        assert not trunc.any()
        for i in np.flatnonzero(term):
            episodes += 1
            res = env.unwrapped.result(i)
            assert res.g == played[i][-1] and rew[i] == res.nets[0]
            played[i].append(tables.hand_index(i))
            assert tables.hand_index(i) == res.g + n           # table i plays i, i + n, i + 2n, ...
            assert tables.question(i) == 0 and tables.E[i, AG.E_NPICK] == 0  # at the new hand's first pick
        assert (rew[~term] == 0).all()
    b = env.unwrapped.builtin_action("expert")
    assert b.shape == (n,) and (obs["action_mask"][np.arange(n), b] == 1).all()


def test_builtin_action_is_legal_and_stable_at_a_decision():
    env = gym.make(senv.ENV_ID, rules="flow", seat=0).unwrapped
    obs, _ = env.reset(seed=1)
    for _ in range(200):
        a = env.builtin_action("expert")
        assert a == env.builtin_action("expert") and obs["action_mask"][a] == 1
        assert obs["action_mask"][env.builtin_action("greedy")] == 1
        assert obs["action_mask"][env.builtin_action("learned")] == 1
        obs, r, term, _, _ = env.step(a)
        if term:
            obs, _ = env.reset()


def test_pettingzoo_self_play_with_builtin_actions_is_the_simulated_hand():
    from simcore.runs.batch import run_batch
    from simcore.contract.rules import resolve
    from strategies.registry import parse_seats, seat_functions

    e = senv.env(rules="flow")
    ref = run_batch(resolve("flow"), seat_functions(parse_seats("expert")), 9, 0, 3)
    e.reset(seed=9)
    for g in range(3):
        if g:
            e.reset()
        for agent in e.agent_iter():
            obs, r, term, trunc, info = e.last()
            if term:
                e.step(None)
                continue
            a = e.unwrapped.builtin_action("expert")
            assert obs["action_mask"][a] == 1
            for other in e.agents:   # the others see no question and no mask
                if other != agent:
                    assert not e.observe(other)["action_mask"].any()
            e.step(a)
        res = info["result"]
        assert res.g == g and np.array_equal(res.seat, ref.seat[g]) and np.array_equal(res.hand, ref.hand[g])
        # after the loop (every agent stepped out) the hand's totals and rows stay readable
        assert not e.agents and e.last_result == res
        assert [e.episode_rewards[a] for a in e.possible_agents] == list(res.nets.astype(float))


def test_pettingzoo_seed_test_passes():
    from pettingzoo.test import seed_test

    seed_test(lambda: senv.env(), 300)
    seed_test(lambda: senv.env(rules="flow", reward="paid"), 300)


def test_the_observation_is_documented_slot_by_slot():
    from simcore.env.spaces import describe_observation

    text = describe_observation()
    assert text.count("\n") == len(senv.OBS_FIELDS) + 1
    assert sum(n for _, n, _ in senv.OBS_FIELDS) == senv.OBS_LEN


def test_the_readme_example_runs():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "README.md").read_text().split("## Python agents", 1)[1]
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md: Python agents", "exec"), {})


def test_the_imitation_example_runs_at_a_small_size(capsys):
    import runpy
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "examples" / "imitate_expert.py"
    argv = sys.argv
    sys.argv = [str(script), "--hands", "300", "--epochs", "2", "--dagger", "1", "--dagger-steps", "4",
                "--walls", "40"]
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv = argv
    out = capsys.readouterr().out
    assert "top-1 agreement with expert" in out and "DAgger round 1" in out and "imitation - expert =" in out


def test_user_files_sit_as_opponents_and_their_illegal_answers_are_one_line(tmp_path):
    from tests.support.bots import write_bots

    path = write_bots(tmp_path, "env_bots")
    env = gym.make(senv.ENV_ID, rules="battle", opponents=f"{path}:lowest", seat=0).unwrapped
    obs, _ = env.reset(seed=1)
    assert obs["action_mask"].sum() >= 2
    env = gym.make(senv.ENV_ID, rules="battle", opponents=f"expert,{path}:cheater,expert,expert", seat=0).unwrapped
    obs, _ = env.reset(seed=1)
    with pytest.raises(senv.EngineError) as e:
        for _ in range(500):
            obs, r, term, _, _ = env.step(env.builtin_action("expert"))
            if term:
                obs, _ = env.reset()
    msg = str(e.value)
    assert "gave an illegal answer" in msg and "seat 1" in msg and "\n" not in msg


def test_the_vector_env_can_play_a_fixed_set_of_hands_each_once():
    n = 4
    env = gym.make_vec(senv.ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", rules="kawu")
    obs, _ = env.reset(seed=8, options={"last": 9})
    ended, terminated = [], []
    while not env.unwrapped.over.all():
        obs, rew, term, trunc, info = env.step(env.unwrapped.builtin_action("expert"))
        ended += [env.unwrapped.result(i).g for i in np.flatnonzero(info.get("hand_ended", []))]
        terminated += [env.unwrapped.result(i).g for i in np.flatnonzero(term)]
        assert np.array_equal(term, info.get("hand_ended", np.zeros(n, bool)))   # a hand is an episode
        assert not obs["action_mask"][env.unwrapped.over].any()
    assert sorted(ended) == list(range(10)) and sorted(terminated) == list(range(10))   # the last ones too


def test_matches_terminate_at_their_last_hand_in_last_mode():
    env = gym.make_vec(senv.ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", match=True).unwrapped
    env.reset(seed=2, options={"last": 2})   # matches 0, 1, 2, each once
    episodes = hands = 0
    while not env.over.all():
        _, _, term, _, info = env.step(env.builtin_action("expert"))
        episodes += int(term.sum())
        hands += int(info.get("hand_ended", np.zeros(2, bool)).sum())
    assert episodes == 3 and hands == 3 * env.tables.rules.hands_per_match


def test_masks_the_way_libraries_read_them():
    env = gym.make(senv.ENV_ID).unwrapped
    obs, info = env.reset(seed=1)
    m = env.action_masks()
    assert m.dtype == bool and m.shape == (N_ACTIONS,) and np.array_equal(m, obs["action_mask"] == 1)
    assert np.array_equal(info["action_mask"], m)
    assert all(m[env.action_space.sample()] for _ in range(50))
    v = gym.make_vec(senv.ENV_ID, num_envs=5, vectorization_mode="vector_entry_point").unwrapped
    obs, infos = v.reset(seed=1)
    M = v.action_masks()
    assert M.shape == (5, N_ACTIONS) and M.dtype == bool and np.array_equal(infos["action_mask"], M)
    for _ in range(30):   # the batched space samples a legal action at every table
        a = v.action_space.sample()
        assert M[np.arange(5), a].all()
        v.step(a)
        M = v.action_masks()


def _play(env, actions):
    out = []
    for a in actions:
        obs, r, term, _, info = env.step(a)
        out.append((obs["observation"].tobytes(), r, term))
        if term:
            env.reset()
    return out


def test_envs_pickle_and_play_on_in_another_process():
    """A pickled env (its spaces, its tables' states, the addresses they hold rebuilt on load)
    continues the same trajectory in another process: a learned seat (a model's address in its
    view) and a searching one (an arena) among the opponents."""
    import multiprocessing as mp

    env = gym.make(senv.ENV_ID, rules="flow", opponents="learned,search[rollouts=2,max_rollouts=2],expert,expert",
                   seat=2).unwrapped
    obs, _ = env.reset(seed=6)
    rng = np.random.default_rng(1)
    for _ in range(15):
        obs, _, term, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if term:
            obs, _ = env.reset()
    blob = pickle.dumps(env)
    assert pickle.loads(pickle.dumps(env.action_space)) == gym.spaces.Discrete(N_ACTIONS)
    actions = [0] * 40   # illegal ones are refused the same way on both sides
    for _ in range(40):
        actions.append(int(rng.choice(N_ACTIONS)))
    with mp.get_context("spawn").Pool(1) as pool:
        theirs = pool.apply(_replay_pickled, (blob, actions))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _play(env, actions) == theirs
    v = gym.make_vec(senv.ENV_ID, num_envs=3, vectorization_mode="vector_entry_point").unwrapped
    v.reset(seed=2)
    copy = pickle.loads(pickle.dumps(v))
    for _ in range(20):
        a = v.action_space.sample()
        mine, other = v.step(a), copy.step(a)
        assert np.array_equal(mine[0]["observation"], other[0]["observation"]) and np.array_equal(mine[1], other[1])


def _replay_pickled(blob, actions):
    import warnings as w

    with w.catch_warnings():
        w.simplefilter("ignore")
        return _play(pickle.loads(blob), actions)


def test_async_vector_env_runs_tables_in_worker_processes():
    envs = gym.make_vec(senv.ENV_ID, num_envs=2, vectorization_mode="async", rules="battle")
    try:
        obs, infos = envs.reset(seed=3)
        assert obs["observation"].shape == (2, senv.OBS_LEN)
        for _ in range(20):
            obs, r, term, trunc, infos = envs.step(envs.action_space.sample(mask=tuple(obs["action_mask"])))
    finally:
        envs.close()


def test_render_ansi_shows_the_table():
    env = gym.make(senv.ENV_ID, rules="battle", opponents="expert", render_mode="ansi").unwrapped
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("hand 0 (battle), wall ") and "seat 0 is asked: exchange" in text
    assert text.count("\n") == 5 and "> seat 0 (agent): " in text and "seat 1 (expert): " in text
    v = gym.make_vec(senv.ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", render_mode="ansi").unwrapped
    v.reset(seed=0)
    assert v.render().count("hand ") == 2
    with pytest.raises(ValueError, match="render_mode must be one of ansi"):
        gym.make(senv.ENV_ID, render_mode="human")


def test_vector_self_play_with_four_expert_agents_is_the_simulated_hands():
    """Four learning seats in one vector env: each step answers the seat each table asks
    (``infos["seat"]``); four ``builtin_action("expert")`` agents play every hand exactly as
    ``sichuan simulate --seats expert`` does, and every seat's points are credited to it."""
    from simcore.contract.records import S_NET
    from simcore.contract.rules import resolve
    from simcore.runs.batch import run_batch
    from strategies.registry import parse_seats, seat_functions

    for rules in ("battle", "flow"):
        walls = 12
        ref = run_batch(resolve(rules), seat_functions(parse_seats("expert")), 4, 0, walls)
        env = gym.make_vec(senv.ENV_ID, num_envs=5, vectorization_mode="vector_entry_point", rules=rules,
                           seats=(0, 1, 2, 3)).unwrapped
        obs, infos = env.reset(seed=4, options={"last": walls - 1})
        credited = np.zeros((walls, 4))
        seen = set()
        while not env.over.all():
            asked = infos["seat"]
            assert (asked[~env.over] >= 0).all()
            before = [env.tables.hand_index(i) for i in range(env.num_envs)]
            obs, r, term, _, infos = env.step(env.builtin_action("expert"))
            for i in range(env.num_envs):
                credited[before[i]] += infos["rewards"][i] if before[i] < walls else 0
            assert np.array_equal(r, infos["rewards"][np.arange(env.num_envs), np.maximum(asked, 0)])
            seen.update(int(a) for a in asked[asked >= 0])
            for i in np.flatnonzero(term):
                res = env.result(i)
                assert np.array_equal(res.seat, ref.seat[res.g]) and np.array_equal(res.hand, ref.hand[res.g])
        assert seen == {0, 1, 2, 3}
        assert np.array_equal(credited, ref.seat[:, :, S_NET].astype(float))


def test_every_episode_replays_as_a_trace_from_the_agents_answers():
    """Four random agents (PettingZoo) and a vector env's tables: each finished hand replays from
    the recorded answers to the rows it played (``Tables.trace`` checks it), in every preset."""
    rng = np.random.default_rng(5)
    for rules in ("battle", "flow", "chengdu", "kawu", "tfmj"):
        e = senv.env(rules=rules, record_trace=True)
        e.reset(seed=21)
        for h in range(4):
            if h:
                e.reset()
            for _ in e.agent_iter():
                obs, _, term, _, _ = e.last()
                e.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            traced = e.unwrapped.trace()
            assert traced.events[-1]["net"] == [int(x) for x in e.unwrapped.last_result.nets]
            assert traced.events[0]["strategies"] == ["agent"] * 4
    v = gym.make_vec(senv.ENV_ID, num_envs=3, vectorization_mode="vector_entry_point", rules="flow",
                     record_trace=True).unwrapped
    v.reset(seed=2, options={"last": 5})
    while not v.over.all():
        _, _, term, _, _ = v.step(v.action_space.sample())
        for i in np.flatnonzero(term):
            assert v.trace(i).events[-1]["net"] == [int(x) for x in v.result(i).nets]


def test_the_observation_carries_the_rules_the_kongs_paid_and_the_win_on_offer():
    """Observation version 2: the rule set's options (one agent can tell the presets apart), what
    each seat's kongs were paid by each other seat, and the fan and base of a win on offer, which
    are the fan and base the win scores when it is taken (every self-draw, claim and robbing win
    an expert agent takes in these hands, chengdu's caps and limit hands included)."""
    from simcore.contract.actions import ACT_WIN
    from simcore.contract.records import W_BASE, W_FAN, W_SEAT
    from simcore.contract.rules import resolve

    start = AG.OBS_START
    rules_of = {}
    taken = 0
    for rules in ("flow", "chengdu", "battle"):
        env = gym.make(senv.ENV_ID, rules=rules, seat=1).unwrapped
        obs, _ = env.reset(seed=31)
        rules_of[rules] = obs["observation"][start["rules"]:start["rules"] + 32].copy()
        assert np.array_equal(rules_of[rules], resolve(rules).to_array()[:32])
        offered = []
        for _ in range(40):   # hands
            while True:
                a = env.builtin_action("expert")
                o = obs["observation"]
                if a == ACT_WIN:
                    offered.append(tuple(o[start["win_offer"]:start["win_offer"] + 2]))
                else:
                    assert o[start["win_offer"]] == 0 or obs["action_mask"][ACT_WIN]
                paid = o[start["kongs_paid"]:start["kongs_paid"] + 16].reshape(4, 4)
                assert (np.diag(paid) == 0).all()
                obs, r, term, _, info = env.step(a)
                if term:
                    res = info["result"]
                    mine = [(float(w[W_FAN]), float(w[W_BASE])) for w in res.win if w[W_SEAT] == 1]
                    assert mine == offered, (rules, res.g)
                    taken += len(mine)
                    offered = []
                    obs, _ = env.reset()
                    break
    assert taken >= 20 and not np.array_equal(rules_of["battle"], rules_of["chengdu"])
