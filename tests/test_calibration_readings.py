"""calibrate's membership readings (advantage, error rates), its composed worst case, the exact
composition of Laplace releases and the fast refusal of targets that need no noise.

References are independent of the code under test: closed forms (scipy's normal quantiles),
riskcal's published sigma, and for composed Laplace releases an mpmath oracle written here: the
privacy loss of ``k`` releases conditioned on how many draws fall left of, right of and between
the two inputs, the middle ones a sum of truncated exponentials whose law is summed by
inclusion-exclusion (regularised incomplete gamma functions) at 40 digits.
"""

from __future__ import annotations

import math

import mpmath
import pytest
from scipy.stats import norm

import garesearch.releases.accounting
from garesearch import InfeasibleError, ParameterError
from garesearch.priors import Categorical, Normal
from garesearch.releases.accounting import dp_accounting_available
from garesearch.releases.calibration import calibrate

COIN = Categorical({0: 0.5, 1: 0.5})


def laplace_hockey_stick_mp(eps, m, k, dps=40):
    """delta(eps) = Pr[L > eps] - e^eps Pr[L < -eps] of k Laplace releases, m = distance / scale."""
    with mpmath.workdps(dps):
        m, c = mpmath.mpf(m), mpmath.mpf(eps)
        em = mpmath.exp(-m)

        def cube(j, t):  # m^j times the integral of e^{-m sum z} over z in [0,1]^j, sum z <= t
            if t <= 0:
                return mpmath.mpf(0)
            if t >= j:
                return (1 - em) ** j
            return mpmath.fsum((-1) ** i * mpmath.binomial(j, i) * mpmath.exp(-m * i)
                               * mpmath.gammainc(j, 0, m * (t - i), regularized=True)
                               for i in range(int(mpmath.floor(t)) + 1))

        up = down = mpmath.mpf(0)
        for j in range(k + 1):  # j draws between the inputs, n_right right of both, the rest left
            for n_right in range(k - j + 1):
                n_left = k - j - n_right
                w = (mpmath.factorial(k) / (mpmath.factorial(n_left) * mpmath.factorial(n_right)
                                            * mpmath.factorial(j)) * em ** n_right / 2 ** k)
                if j == 0:
                    loss = m * (n_left - n_right)
                    up += w if loss > c else 0
                    down += w if loss < -c else 0
                    continue
                # L = m (n_left - n_right + j) - 2 m S, S the sum of j truncated exponentials
                a = mpmath.mpf(n_left - n_right + j) / 2
                up += w * cube(j, a - c / (2 * m))
                down += w * ((1 - em) ** j - cube(j, a + c / (2 * m)))
        return up - mpmath.exp(c) * down


def test_laplace_oracle_against_one_and_two_releases():
    # one release: 1 - e^{(eps - m)/2}; two releases: the Bayes success at prior 0.3, 0.7 + 0.3 delta(ln(7/3)),
    # from the other oracle (the law of the two losses, integrated with mpmath)
    from test_composed_calibration import _laplace2_success_mp

    assert float(laplace_hockey_stick_mp(0.3, 1.2, 1)) == pytest.approx(1 - math.exp((0.3 - 1.2) / 2), rel=1e-15)
    for b in (0.8, 2.0):
        two = 0.7 + 0.3 * float(laplace_hockey_stick_mp(math.log(7 / 3), 1 / b, 2))
        assert two == pytest.approx(_laplace2_success_mp(0.3, b), abs=1e-8)


@pytest.mark.parametrize("eps, m, k", [(0.0, 1 / 30.7, 10), (0.5, 1.0, 6), (1.2, 3.0, 7), (0.05, 0.2, 3)])
def test_exact_laplace_profile_against_the_oracle(eps, m, k):
    prof = garesearch.releases.accounting.privacy_profile("laplace", scale=1 / m, releases=k)
    ref = float(laplace_hockey_stick_mp(eps, m, k))
    assert prof.dp_delta(eps) == pytest.approx(ref, rel=1e-11, abs=1e-15)
    assert prof.dp_delta(eps) >= ref  # an upper bound
    assert prof.source.startswith("exact")


def _exact_average_scale(w1, delta, k):
    """Scale at which k Laplace releases of a binary secret give average advantage delta (oracle)."""
    hi, lo = max(w1, 1 - w1), min(w1, 1 - w1)
    c = math.log(hi / lo)
    from scipy.optimize import brentq

    return brentq(lambda b: float(lo * laplace_hockey_stick_mp(c, 1 / b, k)) - delta, 0.5, 200.0, xtol=1e-14,
                  rtol=1e-14)


@pytest.mark.parametrize("w1, delta, k", [(0.5, 0.02, 10), (0.2, 0.05, 4)])
def test_composed_laplace_average_within_1e6_of_exact(w1, delta, k):
    res = calibrate(Categorical({0: 1 - w1, 1: w1}), "laplace", r=0, delta=delta, reading="average", releases=k)
    exact = _exact_average_scale(w1, delta, k)
    assert res.scale == pytest.approx(exact, rel=1e-6)
    assert res.scale >= exact * (1 - 1e-12)  # never less noise than needed
    if (w1, k) == (0.5, 10):
        assert exact == pytest.approx(30.73558, abs=1e-5)


def test_advantage_reading_gaussian_is_riskcal_and_closed_form():
    res = calibrate(COIN, "gaussian", r=0, delta=0.1, reading="advantage")
    assert res.scale == pytest.approx(3.978948, abs=5e-7)  # riskcal's published sigma
    assert res.scale == pytest.approx(1 / (2 * norm.ppf(0.55)), rel=1e-8)
    assert res.scale >= 1 / (2 * norm.ppf(0.55)) * (1 - 1e-12)
    # k releases, values 3 apart: 2 Phi(sqrt(k) D / (2 sigma)) - 1 = delta
    four = calibrate(Categorical({0: 0.3, 1: 0.3, 3: 0.4}), "gaussian", r=0, delta=0.2, reading="advantage", releases=4)
    assert four.scale == pytest.approx(2 * 3 / (2 * norm.ppf(0.6)), rel=1e-8)


def test_advantage_reading_laplace_closed_form_and_composed():
    one = calibrate(Categorical({0: 0.5, 2: 0.5}), "laplace", r=0, delta=0.1, reading="advantage")
    assert one.scale == pytest.approx(2 / (-2 * math.log(0.9)), rel=1e-8)  # 1 - e^{-D/(2b)} = delta
    five = calibrate(COIN, "laplace", r=0, delta=0.1, reading="advantage", releases=5)
    assert float(laplace_hockey_stick_mp(0.0, 1 / five.scale, 5)) <= 0.1 + 1e-15
    assert float(laplace_hockey_stick_mp(0.0, 1 / (five.scale * (1 - 1e-6)), 5)) > 0.1


def test_error_rates_reading_gaussian_closed_form():
    res = calibrate(COIN, "gaussian", r=0, reading="error_rates", alpha=0.05, beta=0.5)
    assert res.scale == pytest.approx(1 / norm.ppf(0.95), rel=1e-8)
    assert res.value >= 0.5 and res.alpha == 0.05 and res.delta is None
    # Phi(Phi^-1(1 - alpha) - sqrt(k) D / sigma) = beta
    res4 = calibrate(Categorical({0: 0.5, 2: 0.5}), "gaussian", r=0, reading="error_rates", alpha=0.01, beta=0.2,
                     releases=4)
    assert res4.scale == pytest.approx(2 * 2 / (norm.ppf(0.99) - norm.ppf(0.2)), rel=1e-8)


def test_error_rates_reading_laplace_closed_form():
    # Dong, Roth and Su: f(alpha) = 1 - e^mu alpha for alpha < e^-mu / 2; alpha 0.1, beta 0.6: mu = ln 4
    res = calibrate(COIN, "laplace", r=0, reading="error_rates", alpha=0.1, beta=0.6)
    assert res.scale == pytest.approx(1 / math.log(4), rel=1e-8)


def test_membership_readings_refuse_what_they_cannot_do():
    with pytest.raises(ParameterError, match="delta does not apply"):
        calibrate(COIN, "gaussian", r=0, delta=0.1, reading="error_rates", alpha=0.05, beta=0.5)
    with pytest.raises(ParameterError, match="alpha"):
        calibrate(COIN, "gaussian", r=0, reading="error_rates", beta=0.5)
    with pytest.raises(ParameterError, match="alpha applies only"):
        calibrate(COIN, "gaussian", r=0, delta=0.1, reading="average", alpha=0.05)
    with pytest.raises(ParameterError, match="delta"):
        calibrate(COIN, "gaussian", r=0, reading="advantage")
    with pytest.raises(InfeasibleError, match="1 - alpha"):
        calibrate(COIN, "gaussian", r=0, reading="error_rates", alpha=0.3, beta=0.7)
    with pytest.raises(InfeasibleError, match="unbounded"):
        calibrate(Normal(0, 1), "gaussian", r=0, delta=0.1, reading="advantage")


def test_worst_reading_composed_pure_dp_goes_through_the_optimum():
    # binary prior {0: 0.8, 1: 0.2}, delta 0.1: the optimum (any epsilon-DP mechanism) is ln(12/7),
    # where the posterior of the value 0 falls to 0.7: 0.8 e^-eps / (0.8 e^-eps + 0.2) = 0.7
    prior = Categorical({0: 0.8, 1: 0.2})
    eps = math.log(12 / 7)
    res = calibrate(prior, "laplace", r=0, delta=0.1, reading="worst", releases=10)
    assert res.scale == pytest.approx(10 / eps, rel=1e-9)
    assert res.epsilon == pytest.approx(eps, rel=1e-9)  # ten releases of eps/10 each: eps-DP together
    gc = calibrate(prior, "gencauchy", r=0, delta=0.1, reading="worst", releases=3)
    assert gc.scale == pytest.approx(3 * 3**0.75 / eps, rel=1e-9)


@pytest.mark.slow
def test_worst_reading_salary_ten_releases_at_the_optimum():
    from garesearch.attribute import epsilon_for_attribute

    prior = Normal(2000, 235.7)
    res = calibrate(prior, "laplace", r=100, delta=0.1, reading="worst", releases=10)
    opt = epsilon_for_attribute(prior, r=100, delta=0.1).epsilon
    assert res.scale == pytest.approx(10 / opt, rel=1e-12) and res.epsilon == pytest.approx(opt, rel=1e-12)
    assert res.scale < 5879  # the pointwise bound asked for 5879.6


@pytest.fixture
def no_accountant(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the privacy profile was computed")

    monkeypatch.setattr(garesearch.releases.accounting, "privacy_profile", refuse)


@pytest.mark.skipif(not dp_accounting_available(), reason="needs Google's dp_accounting")
def test_subsampled_targets_above_the_limit_are_refused_at_once(no_accountant):
    q, k = 0.001, 10
    never = (1 - q) ** k
    sup = 0.5 * (1 - never) + max(0.5, 0.5 * never) - 0.5  # revealed if ever included
    with pytest.raises(InfeasibleError, match=f"{sup:.6g}"):
        calibrate(COIN, "gaussian", r=0, delta=0.01, reading="average", releases=k, sampling_prob=q)
    with pytest.raises(InfeasibleError, match=f"{1 - never:.6g}"):
        calibrate(COIN, "gaussian", r=0, delta=0.01, reading="advantage", releases=k, sampling_prob=q)
    floor = min(never * 0.95, 1 - 0.05 / never)
    with pytest.raises(InfeasibleError, match="no noise is needed"):
        calibrate(COIN, "gaussian", r=0, reading="error_rates", alpha=0.05, beta=floor - 0.01, releases=k,
                  sampling_prob=q)


def test_average_target_above_one_minus_kappa_needs_no_noise(no_accountant):
    with pytest.raises(InfeasibleError, match="no noise is needed"):
        calibrate(Categorical({0: 0.9, 1: 0.1}), "laplace", r=0, delta=0.1, reading="average", releases=3)
