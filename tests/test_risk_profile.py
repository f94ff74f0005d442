"""Kazan and Reiter's risk profile: the published numbers, Theorem 1 attained, and the profile
of approximate and Gaussian DP against linear programs over mechanisms.

References: Kazan and Reiter (NeurIPS 2024) Tables 1 and 5, Sec. 5, Appendices C.2, C.3, D.1;
Bayes' rule on explicit mechanisms at 40 digits (mpmath); linear programs (HiGHS) over every
mechanism with four outputs and the DP constraint on every set of outputs; tangent-line
relaxations of the Gaussian trade-off curve; quadrature for the Gaussian mechanism itself.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import optimize, stats

from garesearch import InfeasibleError, ParameterError
from garesearch.releases.risk_profile import (
    kazan_reiter_beta,
    kazan_reiter_epsilon,
    kazan_reiter_mechanism,
    kazan_reiter_profile,
    kazan_reiter_ratio,
    plot_kazan_reiter_profile,
)

GRID = np.geomspace(1e-7, 1.0, 200001)


# ------------------------------------------------------------------------------------------
# the paper's numbers (printed to two digits)
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("r, eps", [(1.5, 0.51), (3.0, 1.30), (6.0, 2.04)])
def test_table_1_inclusion_profiles(r, eps):
    # r*(p, 1) = max(0.25/p, r): Table 1 (agencies A, B, C)
    got = kazan_reiter_epsilon(lambda p: np.maximum(0.25 / p, r), p=np.append(GRID, 0.25 / r))
    assert round(got, 2) == eps
    assert got == pytest.approx(math.log((r - 0.25) / 0.75), rel=1e-12)  # their Table 4, q = 1


@pytest.mark.parametrize("a, eps", [(0.025, 1.09), (0.15, 1.21), (0.3, 2.10)])
def test_table_5_value_profiles(a, eps):
    # r*(0.05, q) = max(a/(0.05 q), 3): Table 5
    got = kazan_reiter_epsilon(lambda p, q: np.maximum(a / (p * q), 3.0), p=0.05, q=GRID)
    assert round(got, 2) == eps


def test_other_published_recommendations():
    # Sec. 5 (Durham county): r = 5, a = 0.5, q = 1 -> 2.20
    assert round(kazan_reiter_epsilon(lambda p: np.maximum(0.5 / p, 5.0), p=np.append(GRID, 0.1)), 2) == 2.20
    # App. C.2: a = 0.025, r = 3, p = 0.005 -> 1.63; p = 0.0005 -> 3.94
    for p, eps in ((0.005, 1.63), (0.0005, 3.94)):
        assert round(kazan_reiter_epsilon(lambda pp, q: np.maximum(0.025 / (pp * q), 3.0), p=p, q=GRID), 2) == eps
    # App. C.3: r* = max(0.25/(pq), 3) over (0, 1]^2 -> 0.65 at p = 1, q = 1/12
    P, Q = np.meshgrid(np.geomspace(1e-4, 1, 401), np.geomspace(1e-4, 1, 401))
    got = kazan_reiter_epsilon(lambda p, q: np.maximum(0.25 / (p * q), 3.0),
                               p=np.append(P.ravel(), 1.0), q=np.append(Q.ravel(), 1 / 12))
    assert round(got, 2) == 0.65
    # App. D.1 (Lee and Clifton's example): n = 4, a = 1/3 -> log(3/2)
    assert kazan_reiter_epsilon(4 / 3, p=0.25) == pytest.approx(math.log(1.5), rel=1e-14)
    # Sec. 4: the point profile r*(0.5, 1) = r' -> log(r'/(2 - r'))
    assert kazan_reiter_epsilon(1.5, p=0.5) == pytest.approx(math.log(3.0), rel=1e-14)
    # constant profiles (Theorem 3): log(r)/2, printed 0.20, 0.55, 0.90
    for r, eps in ((1.5, 0.20), (3.0, 0.55), (6.0, 0.90)):
        P, Q = np.meshgrid(np.geomspace(1e-5, 1, 201), np.geomspace(1e-5, 1, 201))
        got = kazan_reiter_epsilon(r, p=P.ravel(), q=Q.ravel())
        # the infimum is the limit q -> 0 at p = 1 (their Theorem 3); on the grid, q = 1e-5
        # (their Corollary 2 at p = 1)
        assert round(got, 2) == eps and got > math.log(r) / 2
        assert got == pytest.approx(math.log((1 - 1e-5) / (1 / r - 1e-5)) / 2, rel=1e-12)


def test_theorem_2_is_the_inverse_of_theorem_1():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p, q, e = rng.uniform(1e-3, 1), rng.uniform(1e-3, 1), rng.uniform(1e-3, 5)
        r = kazan_reiter_ratio(epsilon=e, p=p, q=q)
        if r * p * q < 1 - 1e-9:
            assert kazan_reiter_epsilon(r, p=p, q=q) == pytest.approx(e, rel=1e-9)
    with pytest.raises(InfeasibleError):
        kazan_reiter_epsilon(lambda p, q: 0.5 + 0 * p, p=0.1, q=0.5)
    assert kazan_reiter_epsilon(lambda p: np.inf + 0 * p, p=[0.1]) == math.inf


# ------------------------------------------------------------------------------------------
# Theorem 1 is attained (Bayes' rule at 40 digits on an explicit mechanism)
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("eps, p, q", [(1.0, 0.5, 1.0), (0.3, 0.9, 0.2), (2.5, 0.05, 0.7), (1e-3, 1.0, 0.5)])
def test_theorem_1_is_attained(eps, p, q):
    with mpmath.workdps(40):
        E, P, Q = mpmath.mpf(eps), mpmath.mpf(p), mpmath.mpf(q)
        u = 1 / (1 + mpmath.exp(2 * E))  # mass of the revealing output when i is absent
        absent, in_s, not_in_s = [u, 1 - u], [mpmath.exp(E) * u, 1 - mpmath.exp(E) * u], \
            [mpmath.exp(-E) * u, 1 - mpmath.exp(-E) * u]
        # unbounded epsilon-DP: each present distribution against the absent one, every output
        for d in (in_s, not_in_s):
            for a, b in zip(d, absent, strict=True):
                assert a <= mpmath.exp(E) * b * (1 + mpmath.mpf(10) ** -35) and b <= mpmath.exp(E) * a * (
                    1 + mpmath.mpf(10) ** -35)
        joint = P * Q * in_s[0] + P * (1 - Q) * not_in_s[0] + (1 - P) * absent[0]
        ratio = P * Q * in_s[0] / joint / (P * Q)
    assert kazan_reiter_ratio(epsilon=eps, p=p, q=q) == pytest.approx(float(ratio), rel=1e-13)
    assert kazan_reiter_profile(p=p, q=q, beta=0.0, epsilon=eps) == pytest.approx(float(ratio), rel=1e-13)


# ------------------------------------------------------------------------------------------
# approximate DP: a linear program over every mechanism with four outputs
# ------------------------------------------------------------------------------------------
def _max_mass_above(A, b, k, m, p, q, c):
    """The LP over the three output distributions (S, N, absent; ``m`` outputs each) under the
    privacy rows ``A x <= b``: the largest mass of outputs ``0..k-1`` for a person in S, each of
    them with ratio at least R (``c = 1/R - p q``)."""
    A, b = list(A), list(b)
    for j in range(k):
        row = np.zeros(3 * m)
        row[m + j], row[2 * m + j], row[j] = p * (1 - q), 1 - p, -c
        A.append(row)
        b.append(0.0)
    Aeq = np.zeros((3, 3 * m))
    for i in range(3):
        Aeq[i, i * m:(i + 1) * m] = 1
    obj = np.zeros(3 * m)
    obj[:k] = -1
    res = optimize.linprog(obj, A_ub=np.array(A), b_ub=b, A_eq=Aeq, b_eq=np.ones(3), bounds=(0, 1),
                           method="highs")
    assert res.status == 0
    return -res.fun


def _lp_beta(R, p, q, eps, delta, m=4):
    """Largest Pr[ratio >= R] for a person in S over (eps, delta)-DP mechanisms with m outputs."""
    c = 1 / R - p * q
    E = math.exp(eps)
    best = 0.0
    subsets = [s for k in range(1, m + 1) for s in itertools.combinations(range(m), k)]
    for k in range(1, m):  # outputs 0..k-1 are the ones above R
        A, b = [], []
        for s in subsets:
            ind = np.zeros(m)
            ind[list(s)] = 1
            for x, y in ((0, 2), (2, 0), (1, 2), (2, 1)):  # (S, N, absent) blocks; x vs y
                row = np.zeros(3 * m)
                row[x * m:(x + 1) * m] += ind
                row[y * m:(y + 1) * m] -= E * ind
                A.append(row)
                b.append(delta)
        best = max(best, _max_mass_above(A, b, k, m, p, q, c))
    return best


@pytest.mark.parametrize("eps, delta, p, q, R", [
    (1.0, 0.0, 0.5, 1.0, 1.4), (1.0, 0.0, 0.5, 1.0, 1.47), (0.5, 1e-3, 0.5, 0.5, 2.0), (1.0, 0.05, 0.3, 0.4, 3.0),
    (0.2, 0.1, 0.9, 0.8, 1.2), (2.0, 0.01, 1.0, 0.3, 2.5), (1.0, 0.02, 0.2, 1.0, 3.0),
])
def test_beta_equals_the_linear_program_over_mechanisms(eps, delta, p, q, R):
    lp = _lp_beta(R, p, q, eps, delta)
    assert kazan_reiter_beta(R, p=p, q=q, epsilon=eps, dp_delta=delta) == pytest.approx(lp, abs=1e-8)


@pytest.mark.parametrize("eps, delta, p, q, beta", [(1.0, 0.05, 0.3, 0.4, 0.2), (0.5, 1e-3, 0.5, 0.5, 0.01),
                                                     (2.0, 0.01, 1.0, 0.3, 0.5)])
def test_profile_is_where_the_linear_program_reaches_beta(eps, delta, p, q, beta):
    R = kazan_reiter_profile(p=p, q=q, beta=beta, epsilon=eps, dp_delta=delta)
    assert _lp_beta(R * (1 + 1e-9), p, q, eps, delta) <= beta + 1e-7
    assert _lp_beta(R * (1 - 1e-4), p, q, eps, delta) > beta
    # closed form for (eps, delta)-DP on the second piece of f: f(1 - x) = e^-eps (x - delta)
    a0 = math.exp(-eps) * (beta - delta)
    an = max(0.0, math.exp(-eps) * (a0 - delta))
    assert R == pytest.approx(1 / (p * q + p * (1 - q) * an / beta + (1 - p) * a0 / beta), rel=1e-12)


def test_pure_dp_profile_limits_and_delta_window():
    # pure DP: R_beta equals Theorem 1 for beta <= e^eps / (1 + e^eps)
    e = 1.0
    thm1 = kazan_reiter_ratio(epsilon=e, p=0.3, q=0.6)
    for beta in (1e-12, 0.01, 0.5, math.e / (1 + math.e) - 1e-9):
        assert kazan_reiter_profile(p=0.3, q=0.6, beta=beta, epsilon=e) == pytest.approx(thm1, rel=1e-12)
    assert kazan_reiter_profile(p=0.3, q=0.6, beta=0.9, epsilon=e) < thm1
    # delta > 0: outputs of probability up to delta may reveal everything (ratio 1/(pq))
    assert kazan_reiter_profile(p=0.3, q=0.6, beta=1e-6, epsilon=e, dp_delta=1e-6) == pytest.approx(1 / 0.18)
    assert kazan_reiter_profile(p=0.3, q=0.6, beta=0.0, mu=1.0) == pytest.approx(1 / 0.18)
    assert kazan_reiter_beta(1 / 0.18, p=0.3, q=0.6, epsilon=e, dp_delta=0.1) == 0.0
    # the extremal mechanism: its ratio after the first output is R_beta, by Bayes' rule
    m = kazan_reiter_mechanism(beta=0.2, epsilon=e, dp_delta=0.05)
    for p, q in ((0.3, 0.6), (1.0, 0.2), (0.05, 1.0)):
        joint = p * q * m["in_S"][0] + p * (1 - q) * m["not_in_S"][0] + (1 - p) * m["absent"][0]
        assert m["in_S"][0] / joint == pytest.approx(
            kazan_reiter_profile(p=p, q=q, beta=0.2, epsilon=e, dp_delta=0.05), rel=1e-12)
    # and it is (eps, delta)-DP: every set of its two outputs, both directions
    E = math.exp(e)
    for d in (m["in_S"], m["not_in_S"]):
        for a, b in zip(d, m["absent"], strict=True):
            assert a <= E * b + 0.05 + 1e-15 and b <= E * a + 0.05 + 1e-15


# ------------------------------------------------------------------------------------------
# Gaussian DP
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mu, p, q, beta", [(1.0, 0.5, 0.5, 1e-3), (0.3, 0.9, 0.1, 1e-6), (3.0, 0.01, 1.0, 0.05)])
def test_gaussian_profile_against_mpmath(mu, p, q, beta):
    with mpmath.workdps(40):
        z = mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(beta) - 1)  # Phi^{-1}(beta)
        a0, an = mpmath.ncdf(z - mu), mpmath.ncdf(z - 2 * mpmath.mpf(mu))
        P, Q = mpmath.mpf(p), mpmath.mpf(q)
        ref = 1 / (P * Q + P * (1 - Q) * an / beta + (1 - P) * a0 / beta)
    assert kazan_reiter_profile(p=p, q=q, beta=beta, mu=mu) == pytest.approx(float(ref), rel=1e-12)


def _lp_beta_tangents(R, p, q, mu, m=3, n_tangents=400):
    """Upper bound on the largest Pr[ratio >= R] over mu-GDP mechanisms with m outputs: every
    set's masses lie above the tangents of the Gaussian trade-off curve (a relaxation)."""
    from scipy.special import ndtr, ndtri

    c = 1 / R - p * q
    xs = np.concatenate([np.geomspace(1e-12, 0.5, n_tangents // 2), 1 - np.geomspace(1e-12, 0.5, n_tangents // 2)])
    fx = ndtr(ndtri(1 - xs) - mu)
    slope = -np.exp(stats.norm.logpdf(ndtri(1 - xs) - mu) - stats.norm.logpdf(ndtri(1 - xs)))
    best = 0.0
    subsets = [s for k in range(1, m + 1) for s in itertools.combinations(range(m), k)]
    for k in range(1, m):
        A, b = [], []
        for s in subsets:
            ind = np.zeros(m)
            ind[list(s)] = 1
            # type-II error y(E^c) >= f(type-I error x(E)) >= f(t) + f'(t)(x(E) - t): -y(E^c) + f'(t) x(E) <= f'(t) t - f(t)
            for x, y in ((0, 2), (2, 0), (1, 2), (2, 1)):
                for t, ft, sl in zip(xs, fx, slope, strict=True):
                    row = np.zeros(3 * m)
                    row[y * m:(y + 1) * m] += -(1 - ind)
                    row[x * m:(x + 1) * m] += sl * ind
                    A.append(row)
                    b.append(sl * t - ft)
        best = max(best, _max_mass_above(A, b, k, m, p, q, c))
    return best


@pytest.mark.parametrize("mu, p, q, R", [(1.0, 0.5, 0.5, 2.2), (0.5, 0.8, 1.0, 1.15), (1.5, 0.3, 0.3, 4.0)])
def test_gaussian_beta_between_the_extremal_mechanism_and_a_relaxation(mu, p, q, R):
    got = kazan_reiter_beta(R, p=p, q=q, mu=mu)
    assert 0 < got < 1
    upper = _lp_beta_tangents(R, p, q, mu)
    assert got <= upper + 1e-9 and upper - got < 2e-3
    # the extremal mechanism is mu-GDP: its two-point trade-off kinks lie on the curve
    from garesearch.releases.accounting import gaussian_tradeoff

    m = kazan_reiter_mechanism(beta=got, mu=mu)
    assert m["absent"][0] >= gaussian_tradeoff(1 - got, mu=mu) - 1e-12
    assert m["not_in_S"][0] >= gaussian_tradeoff(1 - m["absent"][0], mu=mu) - 1e-12


@pytest.mark.parametrize("mu, p, q, R", [(1.0, 0.5, 0.5, 1.8), (2.0, 0.2, 0.7, 3.0), (0.7, 0.9, 1.0, 1.05)])
def test_the_gaussian_mechanism_stays_within_the_profile(mu, p, q, R):
    """A sum query with noise N(0, 1): absent 0, present in S +mu, present outside S -mu."""
    def ratio(y):
        ls = stats.norm.logpdf(y - mu)
        ln, l0 = math.exp(stats.norm.logpdf(y + mu) - ls), math.exp(stats.norm.logpdf(y) - ls)
        return 1 / (p * q + p * (1 - q) * ln + (1 - p) * l0)
    # the ratio rises in y (both likelihood ratios fall); the bad outputs are y > y*
    y_star = optimize.brentq(lambda y: ratio(y) - R, -50, 50)
    beta_gauss = stats.norm.sf(y_star - mu)
    assert beta_gauss <= kazan_reiter_beta(R, p=p, q=q, mu=mu) + 1e-12


def test_tradeoff_callable_matches_the_closed_forms():
    from garesearch.releases.accounting import gaussian_tradeoff, pure_dp_tradeoff

    got = kazan_reiter_profile(p=0.4, q=0.5, beta=0.01, tradeoff=lambda a: gaussian_tradeoff(a, mu=1.0))
    assert got == pytest.approx(kazan_reiter_profile(p=0.4, q=0.5, beta=0.01, mu=1.0), rel=1e-9)
    got = kazan_reiter_beta(2.0, p=0.4, q=0.5, tradeoff=lambda a: pure_dp_tradeoff(a, epsilon=1.0, dp_delta=0.01))
    assert got == pytest.approx(kazan_reiter_beta(2.0, p=0.4, q=0.5, epsilon=1.0, dp_delta=0.01), rel=1e-9)


def test_bad_input():
    with pytest.raises(ParameterError, match="exactly one"):
        kazan_reiter_profile(p=0.5, beta=0.1)
    with pytest.raises(ParameterError, match="exactly one"):
        kazan_reiter_profile(p=0.5, beta=0.1, epsilon=1.0, mu=1.0)
    with pytest.raises(ParameterError, match="beta"):
        kazan_reiter_profile(p=0.5, beta=1.5, epsilon=1.0)
    with pytest.raises(ParameterError, match="beta"):
        kazan_reiter_profile(p=0.5, beta=0.0, tradeoff=lambda a: 1 - a)
    with pytest.raises(ParameterError, match="q"):
        kazan_reiter_ratio(epsilon=1.0, p=0.5, q=0.0)
    with pytest.raises(ParameterError, match="dp_delta"):
        kazan_reiter_beta(2.0, p=0.5, epsilon=1.0, dp_delta=2.0)
    with pytest.raises(ParameterError, match="ratio"):
        kazan_reiter_beta(0.5, p=0.5, epsilon=1.0)


def test_plot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = plot_kazan_reiter_profile(epsilon=1.0, dp_delta=1e-5, q=(1.0, 0.2), betas=(1e-4, 1e-2))
    assert len(ax.get_lines()) == 2 * 2 + 2
    x, y = ax.get_lines()[0].get_data()
    assert y[-1] == pytest.approx(kazan_reiter_profile(p=x[-1], q=1.0, beta=1e-4, epsilon=1.0, dp_delta=1e-5))
    plt.close(ax.figure)
