"""calibrate on lists of releases, on labels, with subsampled error rates; the error each release pays.

References are independent of the code under test: closed forms (the equivalent Gaussian scale
``1/s^2 = sum 1/s_i^2``, Gaussian and Laplace quantiles, the optimal epsilon of a two-valued
prior), riskcal's published sigma, an oracle for a Laplace and a Gaussian release written here
(the Laplace privacy loss's atoms and density against the Gaussian hockey-stick divergence, by
quadrature), the threshold tests of a Poisson-subsampled Gaussian release (its likelihood
ratio is monotone), and the noise's tails and mean absolute values summed or integrated with
mpmath.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.stats import norm

import garesearch.releases._release_accuracy as release_accuracy
import garesearch.releases.release as release
from garesearch import InfeasibleError, ParameterError
from garesearch.priors import Categorical
from garesearch.releases.accounting import dp_accounting_available
from garesearch.releases.calibration import calibrate

needs_accounting = pytest.mark.skipif(not dp_accounting_available(), reason="needs Google's dp_accounting")

COIN = Categorical({0: 0.5, 1: 0.5})
CATS = Categorical({"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05})


# -- lists of releases ---------------------------------------------------------------------------

def test_all_gaussian_list_is_one_gaussian_at_the_equivalent_scale():
    parts = [("gaussian", 3.0), ("gaussian", 4.0)]
    s_eq = 1 / math.sqrt(1 / 9 + 1 / 16)  # 2.4
    res = calibrate(COIN, parts, r=0, delta=0.1, reading="advantage")
    sigma = 1 / (2 * norm.ppf(0.55))  # TV of N(0, s^2), N(1, s^2) is 2 Phi(1/(2s)) - 1
    assert res.scale * s_eq == pytest.approx(sigma, rel=1e-9)
    assert res.scale * s_eq >= sigma * (1 - 1e-12)
    assert res.parts == (("gaussian", pytest.approx(3 * res.scale, rel=1e-15)),
                         ("gaussian", pytest.approx(4 * res.scale, rel=1e-15)))
    assert res.mu == pytest.approx(1 / sigma, rel=1e-9)
    avg = calibrate(Categorical({0: 0.8, 1: 0.2}), parts, r=0, delta=0.1, reading="average")
    assert avg.scale * s_eq == pytest.approx(0.462471, rel=2e-6)  # riskcal's published sigma
    with pytest.raises(InfeasibleError):
        calibrate(COIN, parts, r=0, delta=0.1, reading="worst")


def _tv_laplace_and_gaussian(b, sigma):
    """Total variation between the outputs of (Laplace(b), Gaussian(sigma)) releases of 0 and of 1.

    delta(0) = E[(1 - e^{-(L1 + L2)})^+] over the independent privacy losses: L1 of the Laplace
    release (atoms 1/b with mass 1/2 and -1/b with mass e^{-1/b}/2, and (1 - 2y)/b for y in
    (0, 1)); given L1 = l, the Gaussian part's expectation is Phi(l/m + m/2) - e^{-l} Phi(l/m - m/2),
    m = 1/sigma.
    """
    m = 1 / sigma

    def g(ell):
        return norm.cdf(ell / m + m / 2) - math.exp(-ell) * norm.cdf(ell / m - m / 2)

    mid, _ = quad(lambda y: g((1 - 2 * y) / b) * math.exp(-y / b) / (2 * b), 0, 1, epsabs=1e-13, epsrel=1e-12)
    return 0.5 * g(1 / b) + 0.5 * math.exp(-1 / b) * g(-1 / b) + mid


def test_tv_oracle_ends():
    # a huge Gaussian scale leaves one Laplace release: 1 - e^{-1/(2b)}
    assert _tv_laplace_and_gaussian(2.0, 1e6) == pytest.approx(1 - math.exp(-0.25), abs=1e-6)


@needs_accounting
def test_laplace_and_gaussian_list_meets_the_advantage_target_and_is_tight():
    res = calibrate(COIN, [("laplace", 1.0), ("gaussian", 2.0)], r=0, delta=0.1, reading="advantage")
    c = res.scale
    assert res.parts == (("laplace", c), ("gaussian", 2 * c))
    assert _tv_laplace_and_gaussian(c, 2 * c) <= 0.1
    assert _tv_laplace_and_gaussian(0.99 * c, 2 * 0.99 * c) > 0.1
    assert _tv_laplace_and_gaussian(c, 2 * c) == pytest.approx(0.1, abs=2e-4)
    assert res.epsilon == math.inf and res.mu is None
    assert res.expected_error == pytest.approx((c, 2 * c * math.sqrt(2 / math.pi)), rel=1e-12)


def _tradeoff_laplace_and_gaussian(alpha, b, sigma):
    """f(alpha) of the same pair: the Neyman-Pearson test rejects for a large privacy loss
    L = L1 + L2 (continuous: L2 is Gaussian); the pair is symmetric, so with F the law of L under
    the output of 0, the test of level alpha has threshold -F^{-1}(alpha) and f = F(-F^{-1}(alpha))."""
    m = 1 / sigma

    def cdf(t):
        def given(ell):
            return norm.cdf((t - ell - m * m / 2) / m)

        mid, _ = quad(lambda y: given((1 - 2 * y) / b) * math.exp(-y / b) / (2 * b), 0, 1, epsabs=1e-14,
                      epsrel=1e-12)
        return 0.5 * given(1 / b) + 0.5 * math.exp(-1 / b) * given(-1 / b) + mid

    lim = 1 / b + 40 * m + m * m
    tau = brentq(lambda t: cdf(t) - alpha, -lim, lim, xtol=1e-13)
    return cdf(-tau)


def test_tradeoff_oracle_ends():
    # a huge Laplace scale leaves one Gaussian release: Phi(Phi^-1(1 - alpha) - 1/sigma)
    assert _tradeoff_laplace_and_gaussian(0.05, 1e7, 0.8) == pytest.approx(norm.cdf(norm.ppf(0.95) - 1.25), abs=1e-6)


@needs_accounting
def test_laplace_and_gaussian_list_error_rates_meets_beta_and_is_tight():
    res = calibrate(COIN, [("laplace", 1.0), ("gaussian", 1.0)], r=0, reading="error_rates", alpha=0.05, beta=0.5)
    c = res.scale
    true = _tradeoff_laplace_and_gaussian(0.05, c, c)
    assert res.value <= true + 1e-12  # the accountant's curve is a lower bound
    assert true >= 0.5
    assert _tradeoff_laplace_and_gaussian(0.05, 0.99 * c, 0.99 * c) < 0.5


def test_pure_dp_list_worst_reading_through_the_optimum():
    prior = Categorical({0: 0.8, 1: 0.2})
    eps_opt = math.log(0.3 * 0.8 / (0.2 * 0.7))  # two-valued prior, p = 0.2, delta = 0.1 (Sec. 6.1: 0.539)
    res = calibrate(prior, [("laplace", 1.0), ("laplace", 2.0)], r=0, delta=0.1, reading="worst", releases=2)
    assert res.scale == pytest.approx(2 * (1 + 0.5) / eps_opt, rel=1e-9)
    assert res.epsilon <= eps_opt * (1 + 1e-9)
    assert res.parts[1][1] == pytest.approx(2 * res.scale, rel=1e-15)
    with pytest.raises(InfeasibleError, match="Gaussian"):
        calibrate(prior, [("laplace", 1.0), ("gaussian", 1.0)], r=0, delta=0.1, reading="worst")


def test_lists_refuse_what_they_cannot_do():
    with pytest.raises(ParameterError, match="sampling_prob"):
        calibrate(COIN, [("laplace", 1.0), ("gaussian", 1.0)], r=0, delta=0.1, reading="advantage",
                  sampling_prob=0.5)
    with pytest.raises(ParameterError, match="mechanism"):
        calibrate(COIN, [("laplace", 1.0), ("gaussian", 1.0)], r=0, delta=0.1, reading="tail", beta=0.01)


# -- labels ------------------------------------------------------------------------------------

def test_labels_worst_reading_is_the_optimal_epsilon():
    # discrete metric: eps-DP gives posterior p e^e / (p e^e + 1 - p); black (p = 0.4) binds the gain
    res = calibrate(CATS, "laplace", r=0, delta=0.1, reading="worst")
    assert res.scale == pytest.approx(1 / math.log(0.5 * 0.6 / (0.4 * 0.5)), rel=1e-9)


def test_labels_membership_readings_are_two_values_one_apart():
    adv = calibrate(CATS, "gaussian", r=0, delta=0.1, reading="advantage")
    assert adv.scale == pytest.approx(3.978948, abs=5e-7)  # riskcal's published sigma
    err = calibrate(CATS, "gaussian", r=0, reading="error_rates", alpha=0.05, beta=0.5)
    assert err.scale == pytest.approx(1 / norm.ppf(0.95), rel=1e-8)


@pytest.mark.parametrize("reading, kw", [("average", dict(delta=0.1)), ("tail", dict(delta=0.1, beta=0.01))])
@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_labels_readings_that_need_numbers_say_so(reading, kw, mechanism):
    with pytest.raises(ParameterError, match=r"prior.*numeric values"):
        calibrate(CATS, mechanism, r=0, reading=reading, **kw)


def test_labels_worst_gaussian_says_so():
    with pytest.raises(ParameterError, match="prior"):
        calibrate(CATS, "gaussian", r=0, delta=0.1, reading="worst")


# -- subsampled error rates ----------------------------------------------------------------------

def _subsampled_tradeoff(alpha, sigma, q):
    """The trade-off of N(0, s^2) against (1-q) N(0, s^2) + q N(1, s^2), both directions, by
    threshold tests (the likelihood ratio is increasing in the output)."""
    # null N(0): reject above tau
    f1 = (1 - q) * (1 - alpha) + q * norm.cdf(norm.ppf(1 - alpha) - 1 / sigma)

    # null the mixture: reject below tau
    def size(tau):
        return (1 - q) * norm.cdf(tau / sigma) + q * norm.cdf((tau - 1) / sigma)

    tau = brentq(lambda t: size(t) - alpha, -50 * sigma - 50, 50 * sigma + 50, xtol=1e-14)
    f2 = 1 - norm.cdf(tau / sigma)
    return min(f1, f2)


@needs_accounting
def test_subsampled_error_rates_meet_beta_against_threshold_tests():
    q, alpha, beta = 0.5, 0.05, 0.6
    res = calibrate(COIN, "gaussian", r=0, reading="error_rates", alpha=alpha, beta=beta, sampling_prob=q,
                    rtol=1e-4)
    true = _subsampled_tradeoff(alpha, res.scale, q)
    assert res.value <= true + 1e-12  # the accountant's curve is a lower bound (safe)
    assert true >= beta
    assert _subsampled_tradeoff(alpha, 0.99 * res.scale, q) < beta  # within 1 %
    assert res.value == pytest.approx(true, abs=2e-3)


# -- the error each release pays -----------------------------------------------------------------

@pytest.fixture(params=["opendp", "closed form"])
def source(request, monkeypatch):
    if request.param == "closed form":
        # noise_accuracy looks OpenDP up in the module that defines it
        monkeypatch.setattr(release_accuracy, "_opendp_accuracy", lambda *a: None)
    elif not release.opendp_available():
        pytest.skip("OpenDP is not installed")
    return request.param


@pytest.mark.parametrize("b, alpha", [(2.0, 0.05), (0.3, 1e-6), (1e4, 0.5)])
def test_laplace_accuracy(source, b, alpha):
    acc = release.noise_accuracy("laplace", scale=b, alpha=alpha)
    assert acc.source.startswith("opendp" if source == "opendp" else "closed")
    assert acc.bound == pytest.approx(b * math.log(1 / alpha), rel=1e-9)  # Pr[|X| > a] = e^{-a/b}
    assert acc.bound >= b * math.log(1 / alpha) * (1 - 1e-15)
    assert acc.expected_error == pytest.approx(float(mpmath.quad(lambda x: x * mpmath.exp(-x / b) / b,
                                                                 [0, mpmath.inf])), rel=1e-12)


@pytest.mark.parametrize("sigma, alpha", [(2.0, 0.05), (0.3, 1e-6), (1e4, 0.5)])
def test_gaussian_accuracy(source, sigma, alpha):
    acc = release.noise_accuracy("gaussian", scale=sigma, alpha=alpha)
    want = sigma * math.sqrt(2) * float(mpmath.erfinv(1 - alpha))  # sigma Phi^-1(1 - alpha/2)
    assert acc.bound == pytest.approx(want, rel=1e-9)
    assert acc.bound >= want * (1 - 1e-12)
    mean_abs = 2 * sigma * mpmath.quad(lambda x: x * mpmath.npdf(x), [0, mpmath.inf])
    assert acc.expected_error == pytest.approx(float(mean_abs), rel=1e-12)


def _discrete_tail_and_mean(weight, s):
    """Pr[|K| > m] for m = 0, 1, ... and E|K| of a symmetric integer noise, summed with mpmath."""
    with mpmath.workdps(30):
        top = int(60 * s) + 60
        w = [weight(mpmath.mpf(k), s) for k in range(top)]
        total = w[0] + 2 * mpmath.fsum(w[1:])
        tails = [2 * mpmath.fsum(w[m + 1:]) / total for m in range(top - 1)]
        mean = 2 * mpmath.fsum(k * w[k] for k in range(1, top)) / total
    return [float(t) for t in tails], float(mean)


@pytest.mark.parametrize("name, weight", [
    ("discrete_laplace", lambda k, s: mpmath.exp(-k / s)),
    ("discrete_gaussian", lambda k, s: mpmath.exp(-k * k / (2 * s * s))),
])
@pytest.mark.parametrize("s, alpha", [(2.0, 0.05), (0.7, 0.01), (5.0, 1e-4)])
def test_discrete_accuracy_is_the_smallest_integer_bound(source, name, weight, s, alpha):
    tails, mean = _discrete_tail_and_mean(weight, s)
    want = next(m for m, t in enumerate(tails) if t <= alpha)
    acc = release.noise_accuracy(name, scale=s, alpha=alpha)
    assert acc.bound == want
    assert acc.expected_error == pytest.approx(mean, rel=1e-12)


def test_discrete_gaussian_mean_for_a_large_scale():
    s = 2.5e4  # above the direct sum: the Euler-Maclaurin expansion against a brute-force sum
    k = np.arange(1, int(40 * s) + 2, dtype=float)
    w = np.exp(-k * k / (2 * s * s))
    want = 2 * math.fsum(k * w) / (1 + 2 * math.fsum(w))
    assert release.expected_abs_error("discrete_gaussian", s) == pytest.approx(want, rel=1e-12)


def test_gencauchy_accuracy():
    dens = lambda x: math.sqrt(2) / (math.pi * (1 + x**4))  # noqa: E731 (App. A.1's density)
    acc = release.noise_accuracy("gencauchy", scale=3.0, alpha=0.05)
    assert 2 * quad(dens, acc.bound / 3.0, math.inf, epsabs=1e-14)[0] == pytest.approx(0.05, rel=1e-7)
    assert acc.expected_error == pytest.approx(3.0 * 2 * quad(lambda x: x * dens(x), 0, math.inf)[0], rel=1e-9)


def test_accuracy_checks_its_arguments():
    with pytest.raises(ParameterError, match="alpha"):
        release.noise_accuracy("laplace", scale=1.0, alpha=1.0)
    with pytest.raises(ParameterError, match="mechanism"):
        release.noise_accuracy("cauchy", scale=1.0)
    with pytest.raises(ParameterError, match="scale"):
        release.expected_abs_error("laplace", 0.0)


def test_calibration_result_reports_its_error():
    res = calibrate(COIN, "laplace", r=0, delta=0.1, reading="advantage")
    assert res.expected_error == res.scale  # E|Laplace(b)| = b
    assert "expected_error=" in repr(res)
    acc = res.accuracy(alpha=0.01, sensitivity=3.0)
    assert acc.bound == pytest.approx(3.0 * res.scale * math.log(100), rel=1e-9)
    both = calibrate(COIN, [("laplace", 1.0), ("laplace", 2.0)], r=0, delta=0.1, reading="worst")
    accs = both.accuracy(alpha=0.05)
    assert [a.scale for a in accs] == [s for _, s in both.parts]
    assert both.expected_error == tuple(s for _, s in both.parts)


def test_releases_report_their_error():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", release.InsecureNoiseWarning)
        lap = release.laplace_release(10.0, epsilon=0.5, sensitivity=2.0, seed=0)
        gau = release.gaussian_release(10.0, scale=1.5, sensitivity=2.0, seed=0)
        dg = release.gaussian_release(10, scale=1.5, sensitivity=2, integer=True, seed=0)
    assert lap.expected_error == pytest.approx(4.0, rel=1e-15) and "expected_error" in repr(lap)
    assert lap.accuracy(0.05).bound == pytest.approx(lap.error_bound, rel=1e-9)
    assert gau.expected_error == pytest.approx(3.0 * math.sqrt(2 / math.pi), rel=1e-15)
    assert gau.accuracy(0.05).bound == pytest.approx(3.0 * norm.ppf(0.975), rel=1e-9)
    _, mean = _discrete_tail_and_mean(lambda k, s: mpmath.exp(-k * k / (2 * s * s)), 3.0)
    assert dg.expected_error == pytest.approx(mean, rel=1e-12)
    assert dg.accuracy(0.05).bound == dg.error_bound


# -- subsampled average reading: the final bracket at the finer accountant ------------------------

def _subsampled_average_exact(sigma, q, w1):
    """One Poisson-subsampled Gaussian step, secret 0 (weight 1 - w1) or 1 (w1): the Bayes-optimal
    success int max(w0 p0, w1 p1) minus the best blind guess, by quadrature."""
    w0 = 1 - w1
    c = 1 / (sigma * math.sqrt(2 * math.pi))

    def dens(y):  # (the normal densities in closed form: scipy's pdf per point is slow)
        p0 = c * math.exp(-0.5 * (y / sigma) ** 2)
        p1 = (1 - q) * p0 + q * c * math.exp(-0.5 * ((y - 1) / sigma) ** 2)
        return max(w0 * p0, w1 * p1)

    lim = 40 * sigma + 2
    total, _ = quad(dens, -lim, lim, points=[0.0, 0.5, 1.0], limit=400, epsabs=1e-14, epsrel=1e-13)
    return total - max(w0, w1)


@needs_accounting
def test_subsampled_average_calibration_within_1e6_of_exact_and_safe():
    q, w1, delta = 0.5, 0.3, 0.05
    exact = brentq(lambda s: _subsampled_average_exact(s, q, w1) - delta, 0.05, 20, xtol=1e-14, rtol=1e-13)
    res = calibrate(Categorical({0: 1 - w1, 1: w1}), "gaussian", r=0, delta=delta, reading="average",
                    sampling_prob=q)
    assert exact * (1 - 1e-12) <= res.scale <= exact * (1 + 1e-6)
    assert _subsampled_average_exact(res.scale, q, w1) <= delta + 1e-12
