"""Tests of garesearch.mechanisms: densities, CDFs, DP scaling and sampling.

Expected values come from numerical integration (scipy, mpmath) and closed forms derived by hand.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from garesearch.errors import ParameterError
from garesearch.mechanisms import Gaussian, GenCauchy, Laplace, RandomizedResponse

MECHS = [Laplace(), Gaussian(), GenCauchy()]


@pytest.mark.parametrize("mech", MECHS, ids=repr)
def test_density_normalises(mech):
    total = integrate.quad(lambda y: float(mech.density(y, 1.5, 0.7)), -np.inf, np.inf, points=None, limit=400)[0]
    assert total == pytest.approx(1.0, abs=1e-8)


def test_gencauchy_density_is_app_a1():
    # App. A.1: sqrt(2)/(pi (1 + |x|^4)), at scale 1 (epsilon = 3^(3/4))
    g = GenCauchy()
    for z in (0.0, 0.5, -2.0, 7.0):
        assert g.density(z, 0.0, 3**0.75) == pytest.approx(math.sqrt(2) / (math.pi * (1 + z**4)), rel=1e-13)
    # the paper's 0.78 = mass of [-1, 1]
    assert math.exp(g.log_interval(-1, 1, 3**0.75)) == pytest.approx(0.78, abs=0.005)


@pytest.mark.parametrize("z", [-80.0, -3.0, -2.0, -1.0, 0.0, 0.3, 1.99, 2.5, 40.0])
def test_gencauchy_cdf_against_mpmath(z):
    with mpmath.workdps(40):
        f = lambda u: mpmath.sqrt(2) / mpmath.pi / (1 + u**4)  # noqa: E731
        if z < 0:
            expected = mpmath.quad(f, [-mpmath.inf, 4 * z, z])
        else:
            expected = 1 - mpmath.quad(f, [z, 4 * z + 1, mpmath.inf])
        g = GenCauchy()
        assert float(np.exp(g.std_logcdf(z))) == pytest.approx(float(expected), rel=1e-12)
        assert float(np.exp(g.std_logsf(z))) == pytest.approx(float(1 - expected), rel=1e-10)


@pytest.mark.parametrize("mech", MECHS, ids=repr)
@pytest.mark.parametrize("z1,z2", [(-3.0, -1.0), (-1.0, 2.0), (0.5, 4.0), (30.0, 31.0)])
def test_log_interval_against_quad(mech, z1, z2):
    eps = 0.8
    expected = integrate.quad(lambda y: float(mech.density(y, 0.0, eps)), z1, z2, epsabs=0, epsrel=1e-12)[0]
    assert math.exp(mech.log_interval(z1, z2, eps)) == pytest.approx(expected, rel=1e-9)


def test_log_interval_far_tail_laplace_closed_form():
    # Pr[500 <= b eta <= 501] with b = 1: (e^-500 - e^-501)/2, in logs
    expected = -500 + math.log1p(-math.exp(-1)) - math.log(2)
    assert Laplace().log_interval(500, 501, 1.0) == pytest.approx(expected, rel=1e-13)


def test_laplace_ratio_is_exactly_e_eps_d():
    m = Laplace()
    y = np.linspace(5, 9, 5)
    assert np.allclose(m.log_density(y, 2.0, 0.3) - m.log_density(y, 0.0, 0.3), 0.3 * 2.0)


def test_gencauchy_scale_is_tight_dp():
    # log-likelihood ratio per unit of distance stays below epsilon and approaches it as d -> 0
    m, eps = GenCauchy(), 0.9
    y = np.linspace(-20, 20, 40001)
    for d in (1e-4, 0.5, 3.0):
        worst = np.max(m.log_density(y, 0.0, eps) - m.log_density(y, d, eps)) / d
        assert worst <= eps * (1 + 1e-9)
    small = np.max(m.log_density(y, 0.0, eps) - m.log_density(y, 1e-4, eps)) / 1e-4
    assert small == pytest.approx(eps, rel=1e-3)


def test_gaussian_calibrations():
    assert Gaussian().scale(0.5) == pytest.approx(math.sqrt(2) / 0.5)
    assert np.var(Laplace().std_sample(np.random.default_rng(1), 400000)) == pytest.approx(2.0, rel=0.02)
    g = Gaussian(calibration="classic", dp_delta=1e-5)
    assert g.scale(0.5) == pytest.approx(math.sqrt(2 * math.log(1.25e5)) / 0.5)


@pytest.mark.parametrize("mech", MECHS, ids=repr)
def test_sampling_matches_cdf(mech):
    rng = np.random.default_rng(12345)
    eps = 1.3
    ys = mech.sample(np.zeros(20000), eps, rng)
    cdf = lambda v: np.exp(mech.log_interval(-np.inf, v, eps))  # noqa: E731
    res = stats.kstest(ys, cdf)
    assert res.pvalue > 1e-3


def test_bad_input():
    with pytest.raises(ParameterError, match="epsilon"):
        Laplace().scale(0.0)
    with pytest.raises(ParameterError, match="calibration"):
        Gaussian(calibration="bogus")
    with pytest.raises(ParameterError, match="rng"):
        Laplace().sample([0.0], 1.0, rng=3)


# --- randomized response -------------------------------------------------------------------------
@pytest.mark.parametrize("k,eps", [(2, 0.5), (5, 1.3), (10, 0.01), (3, 40.0)])
def test_randomized_response_probabilities(k, eps):
    rr = RandomizedResponse()
    lik = np.exp(rr.log_likelihood(eps, k))
    keep = math.exp(eps) / (math.exp(eps) + k - 1)
    assert np.allclose(np.diag(lik), keep, rtol=1e-13, atol=0)
    assert np.allclose(lik[~np.eye(k, dtype=bool)], 1 / (math.exp(eps) + k - 1), rtol=1e-12, atol=0)
    assert np.allclose(lik.sum(axis=1), 1.0, rtol=1e-13)
    assert rr.keep_probability(eps, k) == pytest.approx(keep, rel=1e-13)
    # eps-DP w.r.t. the discrete metric: the largest log-likelihood ratio over inputs is eps
    ll = rr.log_likelihood(eps, k)
    assert np.max(ll[:, None, :] - ll[None, :, :]) == pytest.approx(eps, rel=1e-12)


def test_randomized_response_sampling_frequencies():
    rr, k, eps, n = RandomizedResponse(), 4, 0.9, 200000
    out = rr.sample(np.full(n, 2), eps, k, np.random.default_rng(5))
    expected = np.full(k, 1 / (math.exp(eps) + k - 1))
    expected[2] = math.exp(eps) / (math.exp(eps) + k - 1)
    chi2 = stats.chisquare(np.bincount(out, minlength=k), n * expected)
    assert chi2.pvalue > 1e-3


def test_randomized_response_bad_input():
    rr = RandomizedResponse()
    with pytest.raises(ParameterError, match="k"):
        rr.log_likelihood(1.0, 1)
    with pytest.raises(ParameterError, match="epsilon"):
        rr.keep_probability(-1.0, 3)
    with pytest.raises(ParameterError, match="index"):
        rr.sample([3], 1.0, 3, np.random.default_rng(0))
    with pytest.raises(ParameterError, match="rng"):
        rr.sample([0], 1.0, 3, rng=1)
