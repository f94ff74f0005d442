"""Sec. 3.2 and Eq. (main): float path, mpmath path, paper's numbers, properties, bad input."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import garesearch as ga
from garesearch.errors import InfeasibleError, ParameterError


# --- independent references: the paper's printed expressions, transcribed literally -------
def paper_eps_main(delta, p, q, a):
    """Eq. (main) as printed: -ln(p/q * (1/(delta+p) - 1)) / a, in mpmath."""
    return -mpmath.log(p / q * (1 / (delta + p) - 1)) / a


def paper_posterior(eps, p, q, a):
    """Sec. 3.2 as printed: 1 / (1 + e^{-eps a} q/p)."""
    return 1 / (1 + mpmath.exp(-eps * a) * q / p)


# --- the paper's worked numbers -------------------------------------------------------------
def test_cats_and_event_paper_number():
    # Sec. 6.1: -ln(0.2/0.8 * 0.7/0.3) ~ 0.539; Laplace scale 1/0.539 ~ 1.855
    eps = ga.epsilon_for_advantage(delta=0.1, p=0.2)
    assert eps == pytest.approx(0.5390, abs=5e-5)
    assert eps == pytest.approx(math.log((0.8 * 0.3) / (0.2 * 0.7)), rel=1e-14)
    assert 1 / eps == pytest.approx(1.855, abs=5e-4)


def test_cats_or_event_both_sides():
    # p = 0.525: eps_ub binds (0.4024); eps_lb = 0.4107 -- closed forms typed from Sec. 3.2
    p, d = 0.525, 0.1
    lb = math.log((1 - p) * (p + d) / (p * (1 - p - d)))
    ub = math.log(p * (1 - p + d) / ((1 - p) * (p - d)))
    assert ga.eps_lb(delta=d, p=p) == pytest.approx(lb, rel=1e-14)
    assert ga.eps_ub(delta=d, p=p) == pytest.approx(ub, rel=1e-14)
    assert ga.epsilon_for_advantage(delta=d, p=p) == pytest.approx(min(lb, ub), rel=1e-14)
    assert round(ub, 3) == 0.402


def test_worst_case_q1_closed_form():
    for d in (1e-9, 0.01, 0.1, 0.5, 0.9):
        assert ga.worst_case_prior(delta=d) == pytest.approx((1 - d) / 2, rel=1e-14)
        assert ga.worst_case_epsilon(delta=d) == pytest.approx(4 * math.atanh(d), rel=1e-12)


@pytest.mark.parametrize("q", [0.95, 0.99, 0.999, 0.5])
@pytest.mark.parametrize("delta", [0.1, 0.6])
def test_worst_case_general_q_is_the_minimiser(q, delta):
    """p* minimises -ln(p/(q-p) (1/(delta+p)-1)) on its feasible interval (mpmath search)."""
    if q + delta <= 1:
        with pytest.raises(InfeasibleError, match="q \\+ delta <= 1"):
            ga.worst_case_prior(delta=delta, q=q)
        return
    with mpmath.workdps(40):
        f = lambda p: paper_eps_main(delta, p, q - p, 1)  # noqa: E731
        upper = min(q, q * delta / (1 - q) if q < 1 else q, 1 - delta)
        # golden-section search, independent of the closed form
        lo, hi = mpmath.mpf("1e-30"), mpmath.mpf(upper) * (1 - mpmath.mpf("1e-30"))
        g = (mpmath.sqrt(5) - 1) / 2
        for _ in range(200):
            x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
            if f(x1) < f(x2):
                hi = x2
            else:
                lo = x1
        p_num = (lo + hi) / 2
    p_star = ga.worst_case_prior(delta=delta, q=q, dps=40)
    assert abs(p_star - p_num) < 1e-15
    assert ga.worst_case_epsilon(delta=delta, q=q) == pytest.approx(float(f(p_num)), rel=1e-12)


# --- float path against an mpmath oracle -------------------------------------------------------
def _grid():
    ps = np.concatenate([np.geomspace(1e-12, 0.5, 13), 1 - np.geomspace(1e-12, 0.5, 13)[:-1]])
    ds = np.geomspace(1e-9, 0.9, 9)
    return [(p, d) for p in ps for d in ds]


def test_eps_lb_ub_match_mpmath_oracle():
    worst = 0.0
    with mpmath.workdps(60):
        for p, d in _grid():
            P, D = mpmath.mpf(p), mpmath.mpf(d)
            if P + D < 1:
                ref = paper_eps_main(D, P, 1 - P, 1)
                got = ga.eps_lb(delta=d, p=p)
                worst = max(worst, abs(got - ref) / ref)
            if P > D:
                ref = paper_eps_main(D, 1 - P, P, 1)  # eps_ub: p and 1-p swapped
                got = ga.eps_ub(delta=d, p=p)
                worst = max(worst, abs(got - ref) / ref)
    assert worst < 1e-12


def _paper_two_sided(d, p):
    """min(eps_lb, eps_ub) of Sec. 3.2 from the printed expression at 60 digits (inf if trivial)."""
    with mpmath.workdps(60):
        D, P = mpmath.mpf(d), mpmath.mpf(p)
        lb = paper_eps_main(D, P, 1 - P, 1) if P + D < 1 else mpmath.inf
        ub = paper_eps_main(D, 1 - P, P, 1) if P > D else mpmath.inf
        return min(lb, ub)


def test_vectorised_and_mp_path_match_oracle():
    ps = np.array([1e-12, 0.2, 0.45, 1 - 1e-12])[:, None]
    ds = np.array([1e-9, 0.1, 0.5])[None, :]
    out = ga.epsilon_for_advantage(delta=ds, p=ps)
    assert out.shape == (4, 3)
    for i in range(4):
        for j in range(3):
            d, p = float(ds[0, j]), float(ps[i, 0])
            ref = _paper_two_sided(d, p)
            assert out[i, j] == pytest.approx(float(ref), rel=1e-12)
            mp = ga.epsilon_for_advantage(delta=d, p=p, dps=50)
            assert abs(mp - ref) <= mpmath.mpf("1e-45") * ref


def test_eq_main_matches_mpmath_oracle():
    rng = np.random.default_rng(1)
    with mpmath.workdps(60):
        for _ in range(300):
            p = 10 ** rng.uniform(-12, -0.31)
            d = 10 ** rng.uniform(-9, np.log10(0.99 - p))
            qmin = p * (1 - p - d) / (p + d)
            q = qmin + (1 - p - qmin) * rng.uniform(0.05, 1)
            a = 10 ** rng.uniform(-3, 3)
            ref = paper_eps_main(mpmath.mpf(d), mpmath.mpf(p), mpmath.mpf(q), mpmath.mpf(a))
            assert ga.epsilon_for_advantage(delta=d, p=p, q=q, a=a) == pytest.approx(float(ref), rel=1e-11)


def test_mp_path_many_digits():
    # 50 digits: the mpmath path against the literal formula at 80 digits
    with mpmath.workdps(80):
        ref = paper_eps_main(mpmath.mpf("0.1"), mpmath.mpf("1e-12"), 1 - mpmath.mpf("1e-12"), 1)
    got = ga.epsilon_for_advantage(delta="0.1", p="1e-12", dps=50)
    assert abs(got - ref) / ref < mpmath.mpf("1e-48")


def test_posterior_and_advantage_match_oracle():
    with mpmath.workdps(50):
        for p, q, eps, a in [(1e-12, 0.5, 1.0, 2.0), (0.3, 0.7, 1e-9, 1.0), (0.2, 0.3, 3.0, 0.5)]:
            ref = paper_posterior(mpmath.mpf(eps), mpmath.mpf(p), mpmath.mpf(q), mpmath.mpf(a))
            assert ga.posterior_bound(epsilon=eps, p=p, q=q, a=a) == pytest.approx(float(ref), rel=1e-13)
            adv = ga.advantage_for_epsilon(epsilon=eps, p=p, q=q, a=a)
            assert adv == pytest.approx(float(ref - p), rel=1e-10)


# --- properties -------------------------------------------------------------------------------
probs = st.floats(min_value=1e-9, max_value=1 - 1e-9)
deltas = st.floats(min_value=1e-6, max_value=0.95)


@settings(max_examples=200, deadline=None)
@given(p=probs, d=deltas)
def test_bound_at_returned_eps_meets_p_plus_delta(p, d):
    if p + d >= 1:
        assert ga.eps_lb(delta=d, p=p) == math.inf
        return
    eps = ga.eps_lb(delta=d, p=p)
    post = 1 / (1 + math.exp(-eps) * (1 - p) / p)  # the paper's bound, typed here
    assert post == pytest.approx(p + d, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(p=probs, d1=deltas, d2=deltas)
def test_epsilon_grows_with_delta(p, d1, d2):
    lo, hi = sorted((d1, d2))
    assert ga.epsilon_for_advantage(delta=lo, p=p) <= ga.epsilon_for_advantage(delta=hi, p=p)


@settings(max_examples=200, deadline=None)
@given(p=st.floats(min_value=1e-6, max_value=1 - 1e-6), d=deltas)
def test_eps_ub_is_eps_lb_mirrored(p, d):
    # 1 - p is rounded: where p - d is at rounding level the two sides of p = d differ
    assume(abs(p - d) > 1e-12)
    assert ga.eps_ub(delta=d, p=p) == pytest.approx(ga.eps_lb(delta=d, p=1 - p), rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(p=st.floats(min_value=1e-6, max_value=0.99), d=deltas)
def test_float_and_mpmath_paths_match_oracle(p, d):
    ref = _paper_two_sided(d, p)
    f = ga.epsilon_for_advantage(delta=d, p=p)
    m = ga.epsilon_for_advantage(delta=d, p=p, dps=30)
    if ref == mpmath.inf:
        assert f == math.inf and m == mpmath.inf
    else:
        assert f == pytest.approx(float(ref), rel=1e-12)
        assert abs(m - ref) <= mpmath.mpf("1e-25") * ref


@settings(max_examples=100, deadline=None)
@given(p=probs, eps=st.floats(min_value=1e-6, max_value=20))
def test_advantage_for_epsilon_inverts(p, eps):
    d = ga.advantage_for_epsilon(epsilon=eps, p=p)
    if not 1e-9 < d < 1 - 1e-9:
        return
    assert ga.epsilon_for_advantage(delta=d, p=p) == pytest.approx(eps, rel=1e-7)


def test_p_le_half_means_lb_binds():
    ps = np.linspace(0.01, 0.99, 99)
    for d in (0.05, 0.3):
        lb = ga.eps_lb(delta=d, p=ps)
        ub = ga.eps_ub(delta=d, p=ps)
        assert np.all(lb[ps <= 0.5] <= ub[ps <= 0.5])
        assert np.all(ub[ps >= 0.5] <= lb[ps >= 0.5])


# --- bad input ------------------------------------------------------------------------------
@pytest.mark.parametrize("delta", [0, 1, -0.1, 1.5])
def test_delta_outside_unit_interval(delta):
    with pytest.raises(ParameterError, match=r"delta must lie in \(0, 1\)"):
        ga.epsilon_for_advantage(delta=delta, p=0.2)


@pytest.mark.parametrize("p", [0, 1, -1e-3, 2])
def test_p_outside_unit_interval(p):
    with pytest.raises(ParameterError, match=r"p must lie in \(0, 1\)"):
        ga.epsilon_for_advantage(delta=0.1, p=p)


@pytest.mark.parametrize("q", [0, 1, 1.2])
def test_q_outside_unit_interval(q):
    with pytest.raises(ParameterError, match=r"q must lie in \(0, 1\)"):
        ga.epsilon_for_advantage(delta=0.1, p=0.2, q=q)


def test_p_plus_q_above_one():
    with pytest.raises(ParameterError, match=r"p \+ q must be at most 1"):
        ga.posterior_bound(epsilon=1, p=0.6, q=0.5)


@pytest.mark.parametrize("a", [0, -1])
def test_a_not_positive(a):
    with pytest.raises(ParameterError, match=r"a must lie in \(0, inf\)"):
        ga.epsilon_for_advantage(delta=0.1, p=0.2, a=a)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite(bad):
    with pytest.raises(ParameterError, match="must be a finite number"):
        ga.epsilon_for_advantage(delta=0.1, p=bad)
    if bad == math.inf:  # no noise: the attacker learns the value, the bound is 1
        assert ga.posterior_bound(epsilon=bad, p=0.2) == 1.0
        assert ga.advantage_for_epsilon(epsilon=bad, p=0.2) == pytest.approx(1 - 0.2, rel=1e-15)
    else:
        with pytest.raises(ParameterError, match=r"epsilon must (be a number in|lie in) \[0, inf\]"):
            ga.posterior_bound(epsilon=bad, p=0.2)


def test_infeasible_comparison_set():
    # salary example with the correct prior: p = erf(100/(235.7 sqrt2)), q = g(200) - p
    p = math.erf(100 / (235.7 * math.sqrt(2)))
    q = math.erf(200 / (235.7 * math.sqrt(2))) - p
    with pytest.raises(InfeasibleError, match=r"too light.*q > p\(1-p-delta\)/\(p\+delta\)"):
        ga.epsilon_for_advantage(delta=0.1, p=p, q=q, a=200)
    out = ga.epsilon_for_advantage(delta=0.1, p=[p, p], q=[q, 0.6], a=200, infeasible="nan")
    assert math.isnan(out[0]) and out[1] > 0


def test_never_negative_or_nan():
    ps = np.linspace(0.001, 0.999, 201)
    for d in (1e-9, 0.1, 0.9):
        e = ga.epsilon_for_advantage(delta=d, p=ps)
        assert np.all(e > 0) and not np.any(np.isnan(e))


def test_trivial_sides_are_infinite():
    assert ga.eps_lb(delta=0.5, p=0.6) == math.inf  # p + delta >= 1: the bound cannot exceed 1
    assert ga.eps_ub(delta=0.5, p=0.3) == math.inf  # p <= delta: p - delta <= 0
    assert ga.epsilon_for_advantage(delta=0.5, p=0.6, q=0.1) == math.inf


def test_sides_with_q_rejected():
    with pytest.raises(ParameterError, match="sides"):
        ga.epsilon_for_advantage(delta=0.1, p=0.2, q=0.3, sides="both")


def test_dps_path_rejects_arrays():
    with pytest.raises(ParameterError, match="takes scalars"):
        ga.epsilon_for_advantage(delta=0.1, p=[0.2, 0.3], dps=30)
