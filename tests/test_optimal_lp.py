"""The optimal epsilon against the LP oracle (tests/oracle_lp.py) on random finite priors.

The oracle solves the linear-fractional program over every epsilon-DP likelihood (HiGHS, then
certified and polished at 50 digits); it knows nothing of the kernel characterisation that
garesearch.optimal uses.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracle_lp import ORACLE_SETTINGS, finite_priors, lp_optimal_epsilon, lp_posterior_extremes

from garesearch.optimal import epsilon_optimal, posterior_extremes
from garesearch.priors import Categorical


def _prior(case):
    return Categorical(dict(zip(case.points.tolist(), case.probs.tolist(), strict=True)))


def _agree(ours, oracle, rel):
    if math.isinf(oracle) or math.isinf(ours):
        assert ours == oracle
    else:
        assert ours == pytest.approx(oracle, rel=rel)


def _check(case, sides):
    t = case.t
    assume(t is None or np.any(case.points == t))  # a finite prior's true value is one of its values
    prior = _prior(case)
    oracle = lp_optimal_epsilon(case.points, case.probs, r=case.r, delta=case.delta, t=t, sides=sides)
    ours = epsilon_optimal(prior, r=case.r, delta=case.delta, t=t, sides=sides).epsilon
    _agree(ours, oracle, 1e-9)


@ORACLE_SETTINGS
@given(case=finite_priors(max_n=12), sides=st.sampled_from(["both", "upper"]))
def test_optimal_epsilon_equals_the_lp_optimum(case, sides):
    _check(case, sides)


@pytest.mark.slow
@settings(ORACLE_SETTINGS, max_examples=150)
@given(case=finite_priors(max_n=40), sides=st.sampled_from(["both", "upper"]))
def test_optimal_epsilon_equals_the_lp_optimum_large(case, sides):
    _check(case, sides)


@ORACLE_SETTINGS
@given(case=finite_priors(max_n=20), log_eps=st.floats(-4, 2))
def test_kernel_posteriors_equal_the_lp_extremes(case, log_eps):
    t = case.t if case.t is not None else float(case.points[0])
    assume(np.any(case.points == t))
    eps = 10.0**log_eps
    inside = np.abs(case.points - t) <= case.r
    sup, inf = lp_posterior_extremes(case.points, case.probs, inside, eps)
    ext = posterior_extremes(_prior(case), t=t, r=case.r, epsilon=eps)
    # posteriors are 1 minus a ratio of kernel masses: exact to about 1e-15 times the size of
    # their logarithms (epsilon times the largest distance)
    tol = 2e-15 * max(1.0, eps * float(np.ptp(case.points)))
    assert ext["upper"] == pytest.approx(sup, rel=1e-10, abs=tol)
    assert ext["lower"] == pytest.approx(inf, rel=1e-10, abs=tol)


def test_soundness_and_optimality_at_every_value():
    """At the returned epsilon the LP's worst posteriors stay within delta at every value; at
    epsilon (1 + 1e-6) the LP finds a value and a likelihood beyond it."""
    rng = np.random.default_rng(11)
    x = np.sort(rng.choice(np.arange(0, 400), 25, replace=False) / 8.0)
    p = rng.dirichlet(np.ones(25) * 0.7)
    p = p / p.sum()
    prior = Categorical(dict(zip(x.tolist(), p.tolist(), strict=True)))
    r, delta = 2.0, 0.05
    eps = epsilon_optimal(prior, r=r, delta=delta).epsilon

    def worst(e):
        out = -1.0
        for t in x:
            inside = np.abs(x - t) <= r
            pt = float(p[inside].sum())
            sup, inf = lp_posterior_extremes(x, p, inside, e)
            out = max(out, sup - pt, pt - inf)
        return out

    assert worst(eps) <= delta + 1e-12
    assert worst(eps * (1 + 1e-6)) > delta


def test_discrete_metric_against_the_lp():
    cats = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}
    oracle = lp_optimal_epsilon(list(cats), list(cats.values()), r=0, delta=0.1, metric="discrete")
    ours = epsilon_optimal(Categorical(cats), r=0, delta=0.1).epsilon
    assert ours == pytest.approx(oracle, rel=1e-12)
