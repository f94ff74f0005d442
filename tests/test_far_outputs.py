"""Posteriors at outputs far from a bounded prior's support, and the tail reading that reaches them.

A piecewise-uniform prior under Gaussian noise: at an output ``y`` far below the support the
posterior is the prior tilted by :math:`e^{xy/b^2}`, a perfectly ordinary distribution, while the
two masses of the posterior's ratio are :math:`e^{-y^2/(2b^2)}` times that: in float64 they lose
every digit, then underflow to ``0/0``.  The expected values below come from mpmath at 50 digits
(``erfc`` keeps its own exponent), from closed forms of the Laplace and tilted-uniform
posteriors, and, for the tail reading, from the bad set of outputs located again with mpmath
(the posterior of a ball at the end of the support is monotone in ``y``) and its normal mass.
Every call runs with warnings turned into errors.
"""

from __future__ import annotations

import math
import warnings
from itertools import pairwise

import mpmath as mp
import numpy as np
import pytest

from garesearch.exact import posterior
from garesearch.mechanisms import Gaussian, GenCauchy, Laplace
from garesearch.priors import PiecewiseUniform, Uniform
from garesearch.releases.tail import advantage_tail

DPS = 50  # every mpmath computation below runs at 50 digits (workdps)


def _gauss(b):
    return Gaussian(), Gaussian().scale(1.0) / b  # (kernel, epsilon) of Gaussian noise of scale b


def _mp_mass(A, B, y, b):
    """Pr[A <= X <= B], X ~ N(y, b^2), in mpmath (erfc on the side that does not cancel)."""
    A, B, y, b = (mp.mpf(v) for v in (A, B, y, b))
    s = mp.sqrt(2) * b
    if A >= y:
        return (mp.erfc((A - y) / s) - mp.erfc((B - y) / s)) / 2
    if B <= y:
        return (mp.erfc((y - B) / s) - mp.erfc((y - A) / s)) / 2
    return 1 - (mp.erfc((B - y) / s) + mp.erfc((y - A) / s)) / 2


@mp.workdps(DPS)
def _mp_post(edges, weights, lo, hi, y, b):
    part = total = mp.mpf(0)
    for a, c, w in zip(edges[:-1], edges[1:], weights, strict=True):
        if w == 0:
            continue
        d = mp.mpf(w) / (c - a)
        total += d * _mp_mass(a, c, y, b)
        A, B = max(a, lo), min(c, hi)
        if B > A:
            part += d * _mp_mass(A, B, y, b)
    return part / total


@pytest.mark.parametrize("b, y", [
    (42.0, -3.5e16), (42.0, -1e9), (42.0, -250.0), (42.0, 3.0), (42.0, 1e6),
    (1e6, -1e12), (1e6, -3e11), (1e6, 5.0), (1e6, 2e12),  # far and wide: a real tilt
    (0.05, -30.0), (0.05, 0.999), (0.05, 40.0),
])
def test_gaussian_segments_posterior_far_outputs(b, y):
    edges, weights = [0.0, 2.0, 5.0, 10.0], [0.2, 0.5, 0.3]
    prior = PiecewiseUniform(edges, weights)
    kernel, eps = _gauss(b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for t in (1.0, 4.0, 9.5):
            got = posterior(prior, kernel, epsilon=eps, r=1.0, t=t, y=np.array([y]))[0]
            want = float(_mp_post(edges, weights, t - 1.0, t + 1.0, y, b))
            assert abs(got - want) <= 1e-11 * max(want, 1e-300) or abs(got - want) <= 1e-14, (t, got, want)


def test_gaussian_far_tilt_closed_form():
    """y = -1e12, b = 1e6 on U(0, 10): the posterior is exactly the prior tilted by e^{-x}."""
    kernel, eps = _gauss(1e6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = posterior(Uniform(0, 10), kernel, epsilon=eps, r=1.0, t=1.0, y=np.array([-1e12]))[0]
    # density proportional to exp(-(x - y)^2 / 2b^2) = const * exp(-x) * exp(-x^2 / 2e12) on [0, 10]
    with mp.workdps(DPS):
        want = mp.quad(lambda x: mp.exp(-x - x * x / 2e12), [0, 2]) / mp.quad(lambda x: mp.exp(-x - x * x / 2e12), [0, 10])
    assert abs(got - float(want)) < 1e-12
    assert abs(got - (1 - math.exp(-2)) / (1 - math.exp(-10))) < 1e-9


@pytest.mark.parametrize("y", [-1e17, -1e3, -10.5])
def test_laplace_segments_posterior_beyond_support(y):
    """Below the support, Laplace noise of scale b gives weights e^{-(x - y)/b}: closed form."""
    b = 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = posterior(Uniform(0, 10), Laplace(), epsilon=1 / b, r=1.0, t=4.0, y=np.array([y]))[0]
    want = (math.exp(-3 / b) - math.exp(-5 / b)) / (1 - math.exp(-10 / b))
    assert abs(got - want) < 1e-13


@pytest.mark.parametrize("y", [-1e17, 1e17, -1e300])
def test_gencauchy_segments_posterior_unresolved_output(y):
    """So far out that float64 cannot tell the support's ends apart, the posterior is the prior
    (the weights (1 + z0^4)/(1 + z^4) are 1 to within 4 widths / |y|)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = posterior(Uniform(0, 10), GenCauchy(), epsilon=1.0, r=1.0, t=4.0, y=np.array([y]))[0]
    assert abs(got - 0.2) < 1e-13


# ------------------------------------------------------------------------------------------
# The tail reading on U(0, 10), Gaussian noise, r = 1, delta = 0.1: the case of
# `garesearch calibrate --prior uniform:0,10 --r 1 --delta 0.1 --mechanism gaussian
#  --reading tail --beta 1e-6`, whose search reached outputs near -3.5e16.
# ------------------------------------------------------------------------------------------
@mp.workdps(DPS)
def _mp_beta(t, b, r=1.0, delta=0.1, low=0.0, high=10.0):
    """beta(t) for U(low, high) under N(0, b^2) noise, for a ball at the lower end of the support,
    where the posterior of the ball falls with y: the bad outputs are y < y_up (posterior above
    p + delta) and y > y_low (below p - delta)."""
    lo, hi = max(low, t - r), min(high, t + r)
    p = mp.mpf(hi - lo) / (high - low)

    def post(y):
        return _mp_mass(lo, hi, y, b) / _mp_mass(low, high, y, b)

    grid = [t + b * k / 4 for k in range(-200, 201)]
    vals = [post(y) for y in grid]
    assert all(v1 >= v2 for v1, v2 in pairwise(vals))  # monotone, as assumed

    def root(c):
        i = next(k for k, v in enumerate(vals) if v < c)  # the grid brackets the crossing
        assert i > 0
        return mp.findroot(lambda y: post(y) - c, (grid[i - 1], grid[i]), solver="anderson")

    s = mp.sqrt(2) * b
    beta = mp.erfc((t - root(p + delta)) / s) / 2
    if p - delta > 0:  # otherwise no posterior falls below p - delta
        beta += mp.erfc((root(p - delta) - t) / s) / 2
    return beta


SCALE = 42.1582  # the scale the command returns (printed to 6 digits)


def test_tail_uniform_gaussian_at_worst_value_matches_mpmath():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = advantage_tail(Uniform(0, 10), "gaussian", scale=SCALE, r=1.0, delta=0.1, t=1.0)
    want = float(_mp_beta(1.0, SCALE))
    assert abs(res.beta - want) <= 1e-7 * want
    assert res.beta <= 1e-6 < float(_mp_beta(1.0, 0.99 * SCALE))


@pytest.mark.slow  # about 3 minutes: a global search over t at every scale the solver tries
def test_calibrate_tail_uniform_gaussian_is_safe_and_tight():
    from garesearch.releases.calibration import calibrate

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = calibrate(Uniform(0, 10), "gaussian", r=1.0, delta=0.1, reading="tail", beta=1e-6)
    assert res.value <= 1e-6
    # safe: beta(t) <= 1e-6 at the returned scale, for the worst t found and t on a grid
    # (balls reaching the lower end; the upper end is the mirror image)
    for t in [res.t, *np.linspace(0.0, 1.0, 11)]:
        assert _mp_beta(float(t), res.scale) <= 1e-6, t
    # tight: 1 % less noise misses the target
    assert _mp_beta(float(res.t), 0.99 * res.scale) > 1e-6
