"""Poisson-subsampled Gaussian releases (DP-SGD style) of a binary secret.

References: the Gaussian threshold test at 40 digits (no subsampling), mpmath quadrature of
the exact Bayes success and of the exact tail for one subsampled release (the likelihood ratio
of the mixtures rises with the output, so the bad outputs are a half-line), and Monte Carlo
with fixed seeds and the exact likelihoods for several steps.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from oracle_binary import gauss_binary_success_mp
from sweeps import sample

from garesearch import InfeasibleError, ParameterError
from garesearch.priors import Categorical
from garesearch.releases.accounting import dp_accounting_available
from garesearch.releases.calibration import calibrate
from garesearch.releases.subsampled import subsampled_gaussian_reading

pytestmark = pytest.mark.skipif(not dp_accounting_available(), reason="needs Google's dp_accounting")


def _mix(y, q, d, s):
    """Density of (1 - q) N(0, s^2) + q N(d, s^2) at y (mpmath)."""
    return (1 - q) * mpmath.npdf(y, 0, s) + q * mpmath.npdf(y, d, s)


def _success_one_step_mp(w1, q, d, s, dps=30):
    with mpmath.workdps(dps):
        w1, q, d, s = (mpmath.mpf(v) for v in (w1, q, d, s))
        w0 = 1 - w1
        f = lambda y: max(w0 * mpmath.npdf(y, 0, s), w1 * _mix(y, q, d, s))  # noqa: E731
        # the two weighted densities cross once (their ratio rises in y): split there
        y0 = mpmath.findroot(lambda y: w0 * mpmath.npdf(y, 0, s) - w1 * _mix(y, q, d, s), d / 2 + s)
        return float(mpmath.quad(f, [-mpmath.inf, y0 - 5 * s, y0, y0 + 5 * s, mpmath.inf]))


def test_no_subsampling_is_the_gaussian_threshold_test():
    prior = Categorical({0: 0.7, 2: 0.3})
    res = subsampled_gaussian_reading(prior, scale=1.5, sampling_prob=1.0, steps=4)
    assert res.success == pytest.approx(gauss_binary_success_mp(0.3, 2 * 2 / 1.5), abs=1e-12)
    assert res.baseline == 0.7 and res.value == pytest.approx(res.success - 0.7)


@pytest.mark.parametrize("w1, q, s", sample([(0.2, 0.3, 0.5), (0.5, 0.05, 0.3), (0.4, 0.7, 1.2)], 2))
def test_one_subsampled_step_against_quadrature(w1, q, s):
    res = subsampled_gaussian_reading(Categorical({0: 1 - w1, 1: w1}), scale=s, sampling_prob=q)
    exact = _success_one_step_mp(w1, q, 1.0, s)
    assert exact - 1e-9 <= res.success <= exact + 1e-6  # the accountant is pessimistic


def test_several_steps_against_monte_carlo():
    w1, q, s, k, n = 0.3, 0.4, 0.8, 3, 200000
    res = subsampled_gaussian_reading(Categorical({0: 1 - w1, 1: w1}), scale=s, sampling_prob=q, steps=k)
    rng = np.random.default_rng(2024)
    x = (rng.random(n) < w1).astype(float)
    included = rng.random((n, k)) < q
    y = included * x[:, None] + s * rng.standard_normal((n, k))
    log0 = np.sum(-0.5 * (y / s) ** 2, axis=1)
    log1 = np.sum(np.log((1 - q) * np.exp(-0.5 * (y / s) ** 2) + q * np.exp(-0.5 * ((y - 1) / s) ** 2)), axis=1)
    guess = (math.log(w1) + log1 > math.log(1 - w1) + log0).astype(float)
    hit = np.mean(guess == x)
    se = math.sqrt(hit * (1 - hit) / n)
    assert hit - 4 * se <= res.success <= hit + 4 * se + 1e-6


def _exact_tail_one_step(w1, q, d, s, delta):
    """beta = max over t of Pr_t[|posterior of t - prior of t| > delta], one step, by the y-threshold."""
    with mpmath.workdps(30):
        w1, q, d, s, delta = (mpmath.mpf(v) for v in (w1, q, d, s, delta))
        w0 = 1 - w1

        def post1(y):  # posterior of the value d
            a, b = w1 * _mix(y, q, d, s), w0 * mpmath.npdf(y, 0, s)
            return a / (a + b)

        floor = w1 * (1 - q) / (w1 * (1 - q) + w0)  # post1 at y -> -inf (at +inf it tends to 1)

        def cross(c):  # post1 > c exactly on (cross(c), inf)
            if c <= floor:
                return -mpmath.inf
            return mpmath.findroot(lambda y: post1(y) - c, (-60 * s - 60 * s * s, 60 * s + d), solver="anderson")

        def sf(y, t):  # Pr_t[Y > y]
            return (1 - q) * mpmath.ncdf(-y / s) + q * mpmath.ncdf((d - y) / s) if t else mpmath.ncdf(-y / s)

        # post1 rises in y; the posterior of 0 is 1 - post1
        up1 = sf(cross(w1 + delta), 1) if w1 + delta < 1 else 0
        lo1 = 1 - sf(cross(w1 - delta), 1) if w1 - delta > 0 else 0
        up0 = 1 - sf(cross(1 - (w0 + delta)), 0) if w0 + delta < 1 else 0
        lo0 = sf(cross(1 - (w0 - delta)), 0) if w0 - delta > 0 else 0
        return float(max(up1 + lo1, up0 + lo0))


@pytest.mark.parametrize("w1, q, s, delta", [
    (0.2, 0.5, 0.4, 0.1),
    pytest.param(0.5, 0.2, 0.25, 0.2, marks=pytest.mark.slow),
    pytest.param(0.3, 0.9, 0.6, 0.05, marks=pytest.mark.slow),
])
def test_tail_bound_is_sound_and_informative(w1, q, s, delta):
    prior = Categorical({0: 1 - w1, 1: w1})
    got = subsampled_gaussian_reading(prior, scale=s, sampling_prob=q, reading="tail", delta=delta).value
    exact = _exact_tail_one_step(w1, q, 1.0, s, delta)
    assert exact <= got <= max(5 * exact, exact + 0.05)


def test_calibration_with_subsampling_meets_the_target_and_is_tight():
    prior = Categorical({0: 0.8, 1: 0.2})
    res = calibrate(prior, "gaussian", r=0, delta=0.02, reading="average", releases=2, sampling_prob=0.5)
    assert res.sampling_prob == 0.5 and res.mu is None and res.epsilon == math.inf
    fine = subsampled_gaussian_reading(prior, scale=res.scale, sampling_prob=0.5, steps=2)
    assert fine.value <= 0.02 + 1e-7
    worse = subsampled_gaussian_reading(prior, scale=res.scale * (1 - 1e-3), sampling_prob=0.5, steps=2)
    assert worse.value > 0.02
    assert math.isfinite(res.dp_epsilon(1e-6))


@pytest.mark.slow
def test_tail_calibration_with_subsampling_meets_beta():
    prior = Categorical({0: 0.8, 1: 0.2})
    tail = calibrate(prior, "gaussian", r=0, delta=0.1, reading="tail", beta=0.01, releases=2, sampling_prob=0.5)
    assert tail.value <= 0.01 and tail.t in (0.0, 1.0)
    again = subsampled_gaussian_reading(prior, scale=tail.scale, sampling_prob=0.5, steps=2, reading="tail",
                                        delta=0.1, discretization=1e-3)
    assert again.value == pytest.approx(tail.value, abs=1e-12)


def test_worst_is_infeasible_and_bad_input():
    prior = Categorical({0: 0.8, 1: 0.2})
    with pytest.raises(InfeasibleError, match="unbounded"):
        calibrate(prior, "gaussian", r=0, delta=0.1, reading="worst", sampling_prob=0.5)
    with pytest.raises(ParameterError, match="one of the two values must be 0"):
        calibrate(Categorical({1: 0.8, 2: 0.2}), "gaussian", r=0, delta=0.1, reading="average", sampling_prob=0.5)
    with pytest.raises(ParameterError, match="gaussian"):
        calibrate(prior, "laplace", r=0, delta=0.1, reading="average", sampling_prob=0.5)
    with pytest.raises(ParameterError, match="sampling_prob"):
        calibrate(prior, "gaussian", r=0, delta=0.1, reading="average", sampling_prob=0.0)
    with pytest.raises(ParameterError, match="binary"):
        subsampled_gaussian_reading(Categorical({0: 0.5, 1: 0.3, 2: 0.2}), scale=1.0, sampling_prob=0.5)
