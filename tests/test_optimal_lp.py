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
from sweeps import examples

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


@settings(ORACLE_SETTINGS, max_examples=examples(40, 15))
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


def _discretised_normal(m, mu=2000.0, s=235.7, t=1800.0, r=100.0):
    """N(mu, s^2) as atoms at the midpoints of cells of width 2r/m whose edges include t +- r
    (so the ball holds whole cells), over mu +- 8 s, with the cells' exact masses."""
    from scipy import stats

    h = 2 * r / m
    lo = (t - r) - h * np.ceil(((t - r) - (mu - 8 * s)) / h)
    hi = (t + r) + h * np.ceil((mu + 8 * s - (t + r)) / h)
    edges = np.arange(lo, hi + h / 2, h)
    mid = 0.5 * (edges[1:] + edges[:-1])
    w = np.diff(stats.norm(mu, s).cdf(edges))
    return mid, w / w.sum()


def test_densities_through_refinement():
    """The density's optimum is the limit of the finite optima of finer and finer
    discretisations: the LP agrees with the finite optimum at 302 atoms, and the finite optimum
    reaches the density's to 1e-6 at 9,656 atoms (1e-7 after Aitken's extrapolation)."""
    from garesearch.priors import Normal

    t, r, delta = 1800.0, 100.0, 0.1
    dens = epsilon_optimal(Normal(2000.0, 235.7), r=r, delta=delta, t=t).epsilon
    mid, w = _discretised_normal(16)
    oracle = lp_optimal_epsilon(mid, w, r=r, delta=delta, t=t)
    finite = epsilon_optimal(Categorical(dict(zip(mid.tolist(), w.tolist(), strict=True))), r=r, delta=delta, t=t)
    assert finite.epsilon == pytest.approx(oracle, rel=1e-9)
    vals = []
    for m in (128, 256, 512):
        mid, w = _discretised_normal(m)
        vals.append(epsilon_optimal(Categorical(dict(zip(mid.tolist(), w.tolist(), strict=True))),
                                    r=r, delta=delta, t=t).epsilon)
    assert vals[-1] == pytest.approx(dens, rel=1e-6)
    e0, e1, e2 = vals
    aitken = e2 - (e2 - e1) ** 2 / ((e2 - e1) - (e1 - e0))
    assert aitken == pytest.approx(dens, rel=1e-7)
    # here the finite optima increase towards the density's
    assert e0 < e1 < e2 < dens
