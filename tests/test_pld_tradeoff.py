"""Compositions of different releases, subsampling of any noise, and the exact trade-off curve of a
privacy-loss distribution.

References are independent of the code under test: the Gaussian closed forms evaluated with mpmath;
for Laplace noise the exact law of one release's privacy loss (atoms at +-d/b and the tilted
continuous part, written out below) composed by mpmath quadrature; the mixtures of subsampled
noise integrated with mpmath; Dong, Roth and Su's closed form of C_q(f) for Gaussian noise;
dp_accounting at a ten times finer discretisation; riskcal's ``get_beta_from_pld``.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from garesearch import InfeasibleError, ParameterError
from garesearch.priors import Categorical, Normal
from garesearch.releases.accounting import (
    Composition,
    dp_accounting_available,
    privacy_profile,
    scale_factor_for,
    tradeoff_from_pld,
)
from garesearch.releases.reconstruction import prior_free_bound, reconstruction_advantage
from garesearch.releases.subsampled import subsampled_reading
from garesearch.releases.tail import advantage_tail

needs_accounting = pytest.mark.skipif(
    not dp_accounting_available(),
    reason="Google's dp_accounting is not installed (pip install 'garesearch[accounting]')",
)


# ---------------------------------------------------------------------------------------------
# Oracles
# ---------------------------------------------------------------------------------------------
def _gdp_tradeoff_mp(alpha, mu):
    """Phi(Phi^{-1}(1 - alpha) - mu) at 30 digits."""
    with mpmath.workdps(30):
        z = -mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(alpha) - 1)  # Phi^{-1}(1 - alpha)
        return float(mpmath.ncdf(z - mu))


def _gdp_delta_mp(eps, mu):
    with mpmath.workdps(30):
        return float(mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2))


def _lap_loss_cdf(t, m):
    """Pr[l <= t] for one Laplace release's privacy loss l = ln(p_0/p_m)(y), y ~ Lap(0, 1) shifted by m:
    an atom -m (mass e^{-m}/2), the density e^{-m/2} e^{l/2}/4 on (-m, m), an atom +m (mass 1/2)."""
    if t < -m:
        return mpmath.mpf(0)
    if t >= m:
        return mpmath.mpf(1)
    return mpmath.exp((t - m) / 2) / 2


def _lap2_test(tau, m1, m2):
    """The Neyman-Pearson test of two Laplace releases at threshold ``tau`` on the summed loss L:
    (alpha, beta) = (Pr_Q[L > tau], Pr_P[L <= tau]); by symmetry Pr_Q[L > tau] = Pr_P[L < -tau]."""
    m1, m2, tau = mpmath.mpf(m1), mpmath.mpf(m2), mpmath.mpf(tau)

    def expect(h):  # E_P[h(l1)] over the first release's loss
        pts = sorted({float(v) for v in (-m1, m1, tau - m2, tau + m2, -tau - m2, -tau + m2) if -m1 <= v <= m1})
        cont = mpmath.quad(lambda u: mpmath.exp((u - m1) / 2) / 4 * h(u), pts)
        return h(m1) / 2 + mpmath.exp(-m1) / 2 * h(-m1) + cont

    beta = expect(lambda u: _lap_loss_cdf(tau - u, m2))
    alpha = expect(lambda u: _lap_loss_cdf(-tau - u, m2))
    return float(alpha), float(beta)


def _lap2_delta(eps, m1, m2):
    """Hockey-stick divergence of two Laplace releases: Pr_P[L > eps] - e^eps Pr_Q[L > eps]."""
    with mpmath.workdps(30):
        alpha, beta = _lap2_test(eps, m1, m2)
        return float(1 - mpmath.mpf(beta) - mpmath.exp(eps) * alpha)


def _mixture_delta(eps, q, shift, density, cuts):
    """max over both directions of the hockey-stick divergence between the mixture
    (1 - q) N + q N(. - shift) and N, for a noise density N, by mpmath quadrature split where
    the integrand's kinks are (sign changes on a fine grid, refined by bisection)."""
    with mpmath.workdps(25):
        e = mpmath.exp(eps)

        def mix(y):
            return (1 - q) * density(y) + q * density(y - shift)

        def integral(g):
            ys = mpmath.linspace(cuts[0], cuts[-1], 401)
            pts = set(cuts)
            vals = [g(y) for y in ys]
            for i in range(len(ys) - 1):
                if (vals[i] > 0) != (vals[i + 1] > 0):
                    lo, hi = ys[i], ys[i + 1]
                    for _ in range(90):
                        mid = (lo + hi) / 2
                        lo, hi = (mid, hi) if (g(mid) > 0) == (vals[i] > 0) else (lo, mid)
                    pts.add(lo)
            return mpmath.quad(lambda y: max(g(y), 0), sorted(pts))

        rem = integral(lambda y: mix(y) - e * density(y))
        add = integral(lambda y: density(y) - e * mix(y))
        return float(max(rem, add))


# ---------------------------------------------------------------------------------------------
# Compositions
# ---------------------------------------------------------------------------------------------
def test_composition_of_gaussians_is_gdp_in_closed_form():
    scales, d = [1.5, 2.0, 4.0], 3.0
    mu = d * math.sqrt(sum(1 / s**2 for s in scales))
    prof = privacy_profile([("gaussian", s) for s in scales], distance=d)
    assert prof.source == "closed form"
    assert prof.mu == pytest.approx(mu, rel=1e-14)
    for a in (1e-6, 0.01, 0.2, 0.5, 0.9):
        assert prof.tradeoff(a) == pytest.approx(_gdp_tradeoff_mp(a, mu), rel=1e-10, abs=1e-15)
    for e in (0.0, 0.5, 2.0):
        assert prof.dp_delta(e) == pytest.approx(_gdp_delta_mp(e, mu), rel=1e-10)
    # a common factor on the scales: mu / c
    assert privacy_profile(Composition([("gaussian", s) for s in scales]), scale=2.0, distance=d).mu == \
        pytest.approx(mu / 2, rel=1e-14)


@needs_accounting
def test_exact_tradeoff_of_a_gaussian_pld_is_below_the_closed_form_and_close():
    from dp_accounting.pld import privacy_loss_distribution as pl

    mu = 1.3
    a = np.concatenate([np.geomspace(1e-8, 1e-2, 30), np.linspace(0.01, 0.99, 99)])
    pld = pl.from_gaussian_mechanism(1.0, sensitivity=mu, value_discretization_interval=1e-3)
    got = tradeoff_from_pld(a, pld)
    want = np.array([_gdp_tradeoff_mp(x, mu) for x in a])
    assert np.all(got <= want + 1e-13)  # safe: a lower bound
    assert np.max(want - got) < 2e-5  # and close (discretisation 1e-3)
    # two different Gaussians composed through the accountant: the composed curve against GDP
    pld2 = pl.from_gaussian_mechanism(2.0, value_discretization_interval=1e-3).compose(
        pl.from_gaussian_mechanism(1.0, value_discretization_interval=1e-3))
    mu2 = math.sqrt(1 / 4 + 1)
    got2 = tradeoff_from_pld(a, pld2)
    want2 = np.array([_gdp_tradeoff_mp(x, mu2) for x in a])
    assert np.all(got2 <= want2 + 1e-13)
    assert np.max(want2 - got2) < 5e-5


@needs_accounting
@pytest.mark.parametrize("b1, b2", [(1.0, 2.0), (0.6, 3.0)])
def test_two_different_laplace_releases_against_the_exact_loss(b1, b2):
    prof = privacy_profile([("laplace", b1), ("laplace", b2)])
    assert prof.source == "dp_accounting (PLD)"
    assert prof.epsilon == pytest.approx(1 / b1 + 1 / b2)
    for eps in (0.0, 0.3, 0.9):
        exact = _lap2_delta(eps, 1 / b1, 1 / b2)
        got = prof.dp_delta(eps)
        assert exact - 1e-12 <= got <= exact + 2e-5  # pessimistic, and within the discretisation
    # points of the exact trade-off curve (Neyman-Pearson tests at thresholds off the atoms)
    for tau in (-0.77, -0.21, 0.13, 0.61):
        alpha, beta = _lap2_test(tau, 1 / b1, 1 / b2)
        f = prof.tradeoff(alpha)
        assert beta - 2e-5 <= f <= beta + 1e-12  # never above the true curve


@needs_accounting
def test_reconstruction_of_a_binary_secret_under_two_laplace_releases():
    b1, b2, w1 = 1.0, 2.5, 0.3
    prior = Categorical({0: 1 - w1, 1: w1})
    res = reconstruction_advantage(prior, [("laplace", b1), ("laplace", b2)], r=0)
    # the Bayes attacker says 0 when the loss ln(P_0/P_1) exceeds c = ln(w1/w0)
    c = math.log(w1 / (1 - w1))
    alpha, beta = _lap2_test(c, 1 / b1, 1 / b2)
    exact = (1 - w1) * (1 - beta) + w1 * (1 - alpha)
    assert exact - 1e-12 <= res.success <= exact + 2e-5
    assert res.mechanism == "laplace(1)+laplace(2.5)"
    assert res.prior_free_bound >= res.success - 1e-12


@needs_accounting
def test_prior_free_bound_of_composed_laplace_is_exact_from_the_pld():
    import riskcal  # in the test extra: a missing riskcal fails, never skips

    from garesearch.releases.accounting import _pld

    prior = Categorical({0: 0.7, 1: 0.3})
    bound = prior_free_bound(prior, "laplace", scale=5.0, r=0, releases=3)
    beta = float(riskcal.analysis.get_beta_from_pld(_pld("laplace", 5.0, 1.0, 3, 1.0, 1e-4), alpha=0.7))
    assert bound == pytest.approx(1 - beta, abs=1e-9)
    # two releases against the exact curve: 1 - f(kappa), f(kappa) from the mpmath test whose alpha is kappa
    from scipy.optimize import brentq

    tau = brentq(lambda t: _lap2_test(t, 0.2, 0.2)[0] - 0.7, -0.39, 0.39, xtol=1e-13)
    two = prior_free_bound(prior, "laplace", scale=5.0, r=0, releases=2)
    exact_two = 1 - _lap2_test(tau, 0.2, 0.2)[1]
    assert exact_two - 1e-9 <= two <= exact_two + 2e-5


def test_tail_of_gaussian_releases_is_one_release_at_the_equivalent_scale():
    prior = Normal(0, 1)
    res = advantage_tail(prior, [("gaussian", 3.0), ("gaussian", 4.0)], r=0.5, delta=0.1, t=0.3)
    one = advantage_tail(prior, "gaussian", scale=12 / 5, r=0.5, delta=0.1, t=0.3)
    assert res.beta == pytest.approx(one.beta, rel=1e-12)
    assert res.mechanism == "gaussian(3)+gaussian(4)"
    with pytest.raises(ParameterError, match="Gaussian parts only"):
        advantage_tail(prior, [("laplace", 3.0), ("gaussian", 4.0)], r=0.5, delta=0.1, t=0.3)


def test_composition_checks_its_parts():
    with pytest.raises(ParameterError, match="pairs"):
        Composition([("laplace", 1.0, 2.0)])
    with pytest.raises(ParameterError, match="scale of a part"):
        Composition([("laplace", -1.0)])
    with pytest.raises(ParameterError, match="mechanism must be one of"):
        Composition([("cauchy", 1.0)])
    with pytest.raises(ParameterError, match="at least one"):
        Composition([])
    with pytest.raises(ParameterError, match="not all Gaussian"):
        Composition([("laplace", 1.0)]).gaussian_scale  # noqa: B018
    with pytest.raises(ParameterError, match="sampling must be"):
        privacy_profile("laplace", scale=1.0, sampling="bernoulli")
    with pytest.raises(ParameterError, match="scale must be"):
        privacy_profile("laplace")


# ---------------------------------------------------------------------------------------------
# Subsampling
# ---------------------------------------------------------------------------------------------
@needs_accounting
def test_poisson_subsampled_laplace_against_the_mixture():
    q, b = 0.3, 0.8
    prof = privacy_profile("laplace", scale=b, sampling_prob=q)

    def lap(y):
        return mpmath.exp(-abs(y) / b) / (2 * b)

    for eps in (0.0, 0.2, 0.6):
        exact = _mixture_delta(eps, q, 1.0, lap, [-40, 0, 1, 41])
        assert exact - 1e-12 <= prof.dp_delta(eps) <= exact + 2e-5
    assert prof.epsilon == pytest.approx(math.log1p(q * math.expm1(1 / b)))


@needs_accounting
def test_poisson_subsampled_composition_against_a_finer_accountant():
    from dp_accounting.pld import privacy_loss_distribution as pl

    q = 0.2
    prof = privacy_profile([("laplace", 1.0), ("discrete_gaussian", 2.0)], sampling_prob=q, releases=2,
                           discretization=2e-4)
    kw = dict(value_discretization_interval=2e-5, sampling_prob=q)
    fine = pl.from_laplace_mechanism(1.0, **kw).compose(pl.from_discrete_gaussian_mechanism(2.0, **kw))
    fine = fine.self_compose(2)
    for eps, tol in ((0.0, 2e-4), (0.4, 5e-5), (1.0, 5e-6)):
        ref = float(fine.get_delta_for_epsilon(eps))
        assert ref - 1e-9 <= prof.dp_delta(eps) <= ref + tol


@needs_accounting
def test_sampling_without_replacement_is_dong_roth_su_c_q():
    from scipy.optimize import brentq
    from scipy.special import ndtr, ndtri

    q, mu = 0.25, 1.5
    prof = privacy_profile("gaussian", scale=1.0, distance=mu, sampling_prob=q, sampling="without_replacement",
                           discretization=1e-3)

    def gauss(y):
        return mpmath.npdf(y)

    for eps in (0.0, 0.3, 0.4567):  # the profile of C_q(f): the larger of the two directions
        exact = _mixture_delta(eps, q, mu, gauss, [-40, 0, mu, 40 + mu])
        assert exact - 1e-12 <= prof.dp_delta(eps) <= exact + 1e-5

    def fq(a):
        return q * ndtr(ndtri(1 - a) - mu) + (1 - q) * (1 - a)

    x_star = float(ndtr(-mu / 2))  # f_q'(x*) = -1
    y_star = fq(x_star)

    def c_q(a):  # Dong, Roth and Su, Sec. 4 (f symmetric): f_q, its slope -1 tangent, f_q^{-1}
        if a <= x_star:
            return fq(a)
        if a <= y_star:
            return y_star + x_star - a  # slope -1 through (x*, f_q(x*)) and (f_q(x*), x*)
        return brentq(lambda t: fq(t) - a, 0.0, x_star, xtol=1e-15)  # f_q^{-1}(a)

    a = np.concatenate([np.geomspace(1e-6, 1e-2, 10), np.linspace(0.02, 0.98, 49)])
    got = prof.tradeoff(a)
    want = np.array([c_q(x) for x in a])
    assert np.all(got <= want + 1e-12)
    assert np.max(want - got) < 1e-4


@needs_accounting
def test_subsampled_reading_of_laplace_noise():
    prior = Categorical({0: 0.5, 1: 0.5})
    q, b = 0.3, 0.8
    res = subsampled_reading(prior, "laplace", scale=b, sampling_prob=q)

    def lap(y):
        return mpmath.exp(-abs(y) / b) / (2 * b)

    # equal prior: success = 1/2 + delta(0)/2
    exact = 0.5 + _mixture_delta(0.0, q, 1.0, lap, [-40, 0, 1, 41]) / 2
    assert exact - 1e-12 <= res.success <= exact + 2e-5
    with pytest.raises(ParameterError, match="not bounded by the privacy profile"):
        subsampled_reading(prior, "laplace", scale=b, sampling_prob=q, reading="worst")
    with pytest.raises(InfeasibleError):
        subsampled_reading(prior, "gaussian", scale=b, sampling_prob=q, reading="worst")
    # without replacement the secret's values need not include 0
    wor = subsampled_reading(Categorical({1: 0.5, 2: 0.5}), "laplace", scale=b, sampling_prob=q,
                             sampling="without_replacement", discretization=1e-3)
    assert exact - 1e-9 <= wor.success <= exact + 1e-3


# ---------------------------------------------------------------------------------------------
# A common factor on the scales
# ---------------------------------------------------------------------------------------------
def test_scale_factor_for_gaussians_matches_the_closed_form():
    from scipy.optimize import brentq

    scales, eps, delta = [1.0, 2.0], 1.0, 1e-5
    mu_star = brentq(lambda m: _gdp_delta_mp(eps, m) - delta, 0.1, 10.0, xtol=1e-14)
    want = math.sqrt(sum(1 / s**2 for s in scales)) / mu_star
    got = scale_factor_for([("gaussian", s) for s in scales], dp_epsilon=eps, dp_delta=delta, rtol=1e-9)
    assert got == pytest.approx(want, rel=1e-8)
    assert got >= want * (1 - 1e-12)  # safe: at least the least factor that meets the target


@needs_accounting
def test_scale_factor_for_a_mixed_composition_meets_the_target():
    comp = [("laplace", 1.0), ("gaussian", 1.0)]
    c = scale_factor_for(comp, dp_epsilon=1.0, dp_delta=1e-3, discretization=1e-3, rtol=1e-4)
    kw = dict(distance=1.0, discretization=1e-3)
    assert privacy_profile(comp, scale=c, **kw).dp_delta(1.0) <= 1e-3
    assert privacy_profile(comp, scale=c / (1 + 2e-4), **kw).dp_delta(1.0) > 1e-3
    with pytest.raises(ParameterError, match="dp_delta"):
        scale_factor_for(comp, dp_epsilon=1.0, dp_delta=0.0)
