"""Best–worst scaling: counting scores checked by hand, Bradley–Terry against choix's
own worked example, Spearman's interval against its formula."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from scoring.agreement.bws import (
    boot_fits,
    bootstrap_bradley_terry,
    bradley_terry,
    components,
    counting_scores,
    implied_pairs,
    spearman_ci,
)

# A hand-made design: 4 poems (0..3) in triples, 6 answers.
#   shown      best worst
TRIALS = [
    ((0, 1, 2), 0, 2),
    ((0, 1, 3), 0, 3),
    ((0, 2, 3), 2, 3),
    ((1, 2, 3), 1, 3),
    ((0, 1, 2), 1, 2),
    ((0, 1, 2), 0, 1),
]
# By hand:            poem 0  poem 1  poem 2  poem 3
#   shown               5       5       5       3
#   best                3       2       1       0
#   worst               0       1       2       3
#   best - worst        3       1      -1      -3
#   standardised      3/5     1/5    -1/5    -3/3


def test_counting_scores_match_the_hand_count() -> None:
    s = counting_scores(TRIALS, 4)
    assert s.shown.tolist() == [5, 5, 5, 3]
    assert s.best.tolist() == [3, 2, 1, 0]
    assert s.worst.tolist() == [0, 1, 2, 3]
    assert s.score.tolist() == [3, 1, -1, -3]
    assert s.standardised.tolist() == pytest.approx([0.6, 0.2, -0.2, -1.0])


def test_counting_interval_is_the_t_interval_of_the_per_appearance_scores() -> None:
    s = counting_scores(TRIALS, 4, confidence=0.9)
    # poem 1's appearances: best twice, worst once, neither twice
    values = np.array([1, 1, -1, 0, 0], dtype=float)
    low, high = stats.t.interval(0.9, 4, loc=values.mean(), scale=stats.sem(values))
    assert (s.ci_low[1], s.ci_high[1]) == (pytest.approx(low), pytest.approx(high))
    # poem 3 is always worst (3 of 3): no spread, and a t interval would collapse to
    # [-1, -1]. Wilson's intervals of the best (0/3) and worst (3/3) shares instead.
    best = proportion_confint(0, 3, alpha=0.1, method="wilson")
    worst = proportion_confint(3, 3, alpha=0.1, method="wilson")
    assert s.ci_low[3] == pytest.approx(best[0] - worst[1])
    assert s.ci_high[3] == pytest.approx(best[1] - worst[0])
    assert s.ci_high[3] > -0.5 and s.ci_low[3] == pytest.approx(-1.0)


def test_a_single_model_picking_a_poem_best_every_time_has_no_zero_width_interval() -> None:
    trials = [((0, 1, 2), 0, 2), ((0, 1, 3), 0, 3), ((0, 2, 3), 0, 3), ((3, 1, 4), 1, 4)]
    s = counting_scores(trials, 5)
    assert s.standardised[0] == 1.0 and s.ci_high[0] == pytest.approx(1.0)
    best_low = proportion_confint(3, 3, method="wilson")[0]
    worst_high = proportion_confint(0, 3, method="wilson")[1]
    assert s.ci_low[0] == pytest.approx(best_low - worst_high)
    assert s.ci_low[0] < 0.5
    # poem 4: shown once, picked worst: an interval all the same (Wilson of 0/1 and 1/1)
    assert math.isfinite(s.ci_low[4]) and s.ci_low[4] == pytest.approx(-1.0)
    assert s.ci_high[4] == pytest.approx(
        proportion_confint(0, 1, method="wilson")[1] - proportion_confint(1, 1, method="wilson")[0]
    )


def test_the_rater_bootstrap_runs_on_one_blas_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    from threadpoolctl import threadpool_info

    import scoring.agreement.bws as bws

    seen: list[int] = []
    real = bws._fit

    def spy(*args, **kwargs):
        seen.extend(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")
        return real(*args, **kwargs)

    monkeypatch.setattr(bws, "_fit", spy)
    who = [k // 2 for k in range(len(TRIALS))]
    bootstrap_bradley_terry(TRIALS, who, 4, n_boot=5, seed=0)
    bradley_terry(TRIALS, 4)
    assert seen and set(seen) == {1}


def test_implied_pairs_of_a_triple_are_its_full_ranking() -> None:
    assert sorted(implied_pairs([((0, 1, 2), 2, 0)])) == [(1, 0), (2, 0), (2, 1)]
    four = implied_pairs([((0, 1, 2, 3), 3, 0)])
    assert sorted(four) == [(1, 0), (2, 0), (3, 0), (3, 1), (3, 2)]


def test_bradley_terry_reproduces_choix_intro_example() -> None:
    # choix's notebook "Introduction using pairwise-comparison data": 5 items, I-LSR,
    # printed as [ 0.583  0.194 -0.    -0.194 -0.583]. As best/worst answers: each
    # comparison (i beats j) is a trial of two shown objects, best i, worst j.
    data = [(1, 0), (0, 4), (3, 1), (0, 2), (2, 4), (4, 3)]
    trials = [((a, b), a, b) for a, b in data]
    got = bradley_terry(trials, 5, alpha=0.0)
    assert np.round(got, 3).tolist() == pytest.approx([0.583, 0.194, 0.0, -0.194, -0.583])
    # and its sparse example: 3 always wins, 0 always loses, alpha = 0.01
    # printed as array([-4.159, -0.979,  1.483,  3.655])
    chain = [((3, 2), 3, 2), ((2, 1), 2, 1), ((1, 0), 1, 0)]
    got = bradley_terry(chain, 4, alpha=0.01)
    assert np.round(got, 3).tolist() == pytest.approx([-4.159, -0.979, 1.483, 3.655])


def test_bradley_terry_orders_the_hand_design_as_the_counts() -> None:
    params = bradley_terry(TRIALS, 4)
    assert np.argsort(-params).tolist() == [0, 1, 2, 3]
    assert params.mean() == pytest.approx(0.0)
    # an object never shown gets no score
    assert math.isnan(bradley_terry(TRIALS, 5)[4])


def test_bootstrap_intervals_cover_the_fit_and_need_two_respondents() -> None:
    rng = np.random.default_rng(3)
    strength = np.array([1.5, 0.5, 0.0, -0.5, -1.5])
    trials, who = [], []
    for person in range(30):
        for _ in range(4):
            shown = tuple(int(x) for x in rng.choice(5, 3, replace=False))
            u = strength[list(shown)] + rng.gumbel(size=3)
            trials.append((shown, shown[int(np.argmax(u))], shown[int(np.argmin(u))]))
            who.append(person)
    fit = bradley_terry(trials, 5)
    low, high = bootstrap_bradley_terry(trials, who, 5, n_boot=200, seed=1)
    assert np.all(low <= fit) and np.all(fit <= high)
    assert stats.spearmanr(fit, strength).statistic == pytest.approx(1.0)
    low1, _ = bootstrap_bradley_terry(trials, [0] * len(trials), 5, n_boot=50, seed=1)
    assert np.isnan(low1).all()


def test_bad_trials_are_refused_with_the_trial_number() -> None:
    with pytest.raises(ValueError, match="trial 1: best and worst"):
        counting_scores([((0, 1, 2), 0, 1), ((0, 1, 2), 1, 1)], 3)
    with pytest.raises(ValueError, match="trial 0: an object index"):
        counting_scores([((0, 1, 5), 0, 1)], 3)


def test_spearman_interval_is_fisher_z_with_bonett_wright_se() -> None:
    x = [1, 2, 3, 4, 5, 6, 7, 8]
    y = [2, 1, 4, 3, 6, 5, 8, 7]
    r = spearman_ci(x, y)
    rho = stats.spearmanr(x, y).statistic
    se = math.sqrt((1 + rho**2 / 2) / (8 - 3))
    assert r.rho == pytest.approx(rho) and r.n == 8
    assert r.ci_low == pytest.approx(math.tanh(math.atanh(rho) - 1.959964 * se), abs=1e-6)
    assert r.ci_high == pytest.approx(math.tanh(math.atanh(rho) + 1.959964 * se), abs=1e-6)
    assert math.isnan(spearman_ci([1, 2], [2, 1]).rho)


def test_separate_choice_sets_are_fitted_apart() -> None:
    # two triples never shown together: each is its own scale, centred on its own
    a = [((0, 1, 2), 0, 2), ((0, 1, 2), 0, 1)]
    b = [((3, 4, 5), 5, 3), ((3, 4, 5), 4, 3)]
    together = bradley_terry(a + b, 6)
    assert together[:3].tolist() == pytest.approx(bradley_terry(a, 3).tolist())
    assert together[:3].sum() == pytest.approx(0.0) and together[3:].sum() == pytest.approx(0.0)
    labels = components(a + b, 7)
    assert len(set(labels[:3])) == 1 and len(set(labels[3:6])) == 1 and labels[0] != labels[3]
    assert labels[6] == -1
    assert boot_fits(a + b, 6, 100) == 200
