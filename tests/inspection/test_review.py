"""The reviewer's gap to the best option is unbiased: the best is chosen on one half of the
rollouts and the gap measured on the other (``review.split_gaps``). Measured on the rollouts it
was chosen on, the best of several noisy means errs high."""

from __future__ import annotations

import numpy as np

from simcore.inspection.review import Sums, split_gaps


def _sums(x: np.ndarray) -> Sums:
    """The sums judge_posed writes, of rollout results x (tables x candidates)."""
    return Sums(x.shape[0], np.arange(x.shape[1]), x.sum(0), (x * x).sum(0), x.T @ x)


def test_one_answer_listed_k_times_has_no_gap():
    """The same answer played on the same tables gives the same results: every gap is 0."""
    rng = np.random.default_rng(1)
    one = rng.normal(0, 8, size=(500, 1))
    x = np.repeat(one, 5, axis=1)
    gap, se = split_gaps([_sums(x[:250]), _sums(x[250:])])
    assert np.all(gap == 0) and np.all(se == 0)


def test_equal_options_with_noise_report_gaps_of_zero_on_average():
    """k options worth the same, each with its own noise: the split gaps average 0 within their
    noise; the gaps measured where the best was chosen do not."""
    rng = np.random.default_rng(7)
    k, m, trials = 6, 100, 2000
    split, same = [], []
    for _ in range(trials):
        x = rng.normal(0, 8, size=(m, k))
        gap, _ = split_gaps([_sums(x[:m // 2]), _sums(x[m // 2:])])
        split.append(gap.mean())
        naive, _ = split_gaps([_sums(x)])
        same.append(naive.mean())
    split, same = np.array(split), np.array(same)
    assert abs(split.mean()) < 4 * split.std() / np.sqrt(trials)
    assert same.mean() > 10 * same.std() / np.sqrt(trials) and same.mean() > 0.5


def test_a_real_gap_is_measured_without_the_selection_bias():
    """Option 0 is worth 1.0 more than the others: its gap to each is about 1.0 (the split
    estimate's mean over trials is within its noise of the truth)."""
    rng = np.random.default_rng(3)
    trials, gaps = 1000, []
    for _ in range(trials):
        x = rng.normal(0, 4, size=(400, 3))
        x[:, 0] += 1.0
        gap, se = split_gaps([_sums(x[:200]), _sums(x[200:])])
        gaps.append(gap[1:].mean())
    gaps = np.array(gaps)
    assert abs(gaps.mean() - 1.0) < 4 * gaps.std() / np.sqrt(trials)


# -- who plays the rollouts ---------------------------------------------------------------------

SEATS = "greedy,efficient+void=weakest,expert,random"


def _hand(seats=SEATS):
    from simcore.contract.rules import preset
    from simcore.inspection.run_hands import independent_hands
    from strategies.registry import parse_seats

    return independent_hands(preset("battle"), parse_seats(seats), 7, [3])[0]


def test_the_rollouts_are_played_by_the_hands_own_seats_by_default():
    """The default judges exactly as --policy naming the hand's four seats does, and not as
    experts at every seat do."""
    from simcore.inspection.review import judge_hand, rollout_seats

    h = _hand()
    assert [s.canonical for s in rollout_seats(h)] == [s.canonical for s in h.specs]
    own = judge_hand(h, 0, 0, 60)
    named = judge_hand(h, 0, 0, 60, policy=SEATS)
    experts = judge_hand(h, 0, 0, 60, policy="expert")
    assert [r["mean"] for r in own] == [r["mean"] for r in named]
    assert [r["mean"] for r in own] != [r["mean"] for r in experts]


def test_a_searching_seat_plays_on_with_its_rollout_policy_and_a_user_file_can_play(tmp_path):
    from simcore.inspection.review import judge_hand, rollout_seats, rollouts_text
    from tests.support.bots import write_bots
    from strategies.registry import parse_seat

    h = _hand("search[policy=efficient],greedy,greedy,greedy")
    assert rollout_seats(h)[0].play == "efficient"
    bots = write_bots(tmp_path, "review_bots")
    spec = f"{bots}:lowest"
    assert rollouts_text(rollout_seats(_hand(), spec)) == "review_bots.py:lowest at every seat"
    assert rollouts_text(rollout_seats(_hand(), spec), full_names=True) == f"{parse_seat(spec).canonical} at every seat"
    rows = judge_hand(_hand(), 0, 0, 20, policy=spec)
    assert rows and all(r["rollouts"] == 20 for r in rows)


def test_analyze_says_who_played_the_rollouts():
    from tests.support.cli import invoke

    res = invoke("analyze", "--seed", 7, "--hand", 3, "--seat", 0, "--decision", 0, "--rollouts", 20,
                 "--seats", "greedy", "--policy", "efficient")
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == "rollouts played by: efficient at every seat"
    bad = invoke("analyze", "--seed", 7, "--hand", 3, "--seat", 0, "--policy", "nope")
    assert bad.exit_code == 2 and "unknown play strategy 'nope'" in bad.stderr


def test_analyze_shows_a_gap_as_a_shortfall_from_the_best():
    """An option not marked best never shows a gap above 0: the unbiased gap, below 0 by noise at
    times, is shown cut at 0 (review.shortfall), its interval too."""
    import pandas as pd

    from simcore.cli import format_judgements

    def row(name, mean, gap, lo, hi, best=False, chosen=False):
        return {"decision": 0, "question": "turn", "tile": "", "rollouts": 24, "candidate": name, "mean": mean,
                "lo": mean - 1, "hi": mean + 1, "gap": gap, "gap_lo": lo, "gap_hi": hi, "best": best, "chosen": chosen}

    df = pd.DataFrame([row("discard 1m", 1.0, -0.8, -1.5, -0.1, best=True), row("discard 2m", 0.7, -0.3, -1.0, 0.4),
                       row("discard 3m", -0.2, 0.9, 0.2, 1.6, chosen=True)])
    lines = format_judgements(df).splitlines()
    assert lines[1].endswith("best")
    assert lines[2].endswith("   0.00 [-0.40, 0.00]")
    assert lines[3].startswith(" * discard 3m") and lines[3].endswith("   -0.90 [-1.60, -0.20]")
