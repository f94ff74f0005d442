"""Composed releases of a binary secret: the hockey-stick reading of the Bayes success, and the
calibration through the accountant.

References are independent of the code under test: the Gaussian threshold test in closed form
at 40 digits, and for two Laplace releases the exact distribution of the log-likelihood ratio
(atoms and a tilted uniform part) integrated with mpmath.
"""

from __future__ import annotations

import math

import mpmath
import pytest
from oracle_binary import gauss_binary_success_mp

from garesearch.priors import Categorical
from garesearch.releases.accounting import (
    dp_accounting_available,
    gaussian_dp_delta,
    privacy_profile,
)
from garesearch.releases.calibration import calibrate
from garesearch.releases.reconstruction import binary_success_from_profile, reconstruction_advantage

needs_accounting = pytest.mark.skipif(
    not dp_accounting_available(),
    reason="Google's dp_accounting is not installed (pip install 'garesearch[accounting]')",
)


@pytest.mark.parametrize("w1", [0.5, 0.2, 0.45, 0.9, 1e-4])
@pytest.mark.parametrize("mu", [0.05, 1.0, 3.0])
def test_success_from_profile_is_the_gaussian_threshold_test(w1, mu):
    got = binary_success_from_profile(lambda e: gaussian_dp_delta(e, mu=mu), w1)
    assert got == pytest.approx(gauss_binary_success_mp(w1, mu), abs=1e-13)


def test_success_from_profile_ends():
    assert binary_success_from_profile(lambda e: 0.0 * e, 0.3) == pytest.approx(0.7)  # no information
    assert binary_success_from_profile(lambda e: 1.0 + 0.0 * e, 0.3) == 1.0  # disjoint outputs
    assert binary_success_from_profile(lambda e: 0.5, 0.0) == 1.0


def _laplace2_success_mp(w1, b, dps=30):
    """Bayes success, atoms 0 and 1, two Laplace(b) releases (the log-likelihood ratio at ``dps``).

    One release's log-likelihood ratio ``l = (|y| - |y - 1|)/b`` under ``y ~ Lap(0, b)`` has an
    atom ``-1/b`` (mass 1/2), an atom ``+1/b`` (mass ``e^{-1/b}/2``) and the tilted uniform
    part ``l = (2y - 1)/b``, ``0 < y < 1``; under ``Lap(1, b)`` it is ``-l``.  The attacker says 1
    when ``l_1 + l_2 > c = ln(w_0/w_1)``.
    """
    with mpmath.workdps(dps):
        b, w1 = mpmath.mpf(b), mpmath.mpf(w1)
        w0 = 1 - w1

        def cdf1(u):
            if u < -1 / b:
                return mpmath.mpf(0)
            if u >= 1 / b:
                return mpmath.mpf(1)
            return 1 - mpmath.exp(-(b * u + 1) / (2 * b)) / 2

        def cdf2(c):
            cont = mpmath.quad(lambda y: cdf1(c - (2 * y - 1) / b) * mpmath.exp(-y / b) / (2 * b),
                               mpmath.linspace(0, 1, 17))
            return cdf1(c + 1 / b) / 2 + mpmath.exp(-1 / b) / 2 * cdf1(c - 1 / b) + cont

        c = mpmath.log(w0 / w1)
        return float(w0 * cdf2(c) + w1 * cdf2(-c))


@needs_accounting
@pytest.mark.parametrize("w1, b", [(0.3, 1.0), (0.2, 0.7), (0.45, 2.0)])
def test_two_laplace_releases_against_the_exact_likelihood_ratio(w1, b):
    res = reconstruction_advantage(Categorical({0: 1 - w1, 1: w1}), "laplace", scale=b, r=0, releases=2,
                                   prior_free=False)
    assert res.success == pytest.approx(_laplace2_success_mp(w1, b), abs=1e-7)
    assert "hockey-stick" in res.method


@needs_accounting
def test_composed_laplace_calibration_meets_the_target_and_is_tight():
    w1, delta = 0.2, 0.05
    prior = Categorical({0: 1 - w1, 1: w1})
    res = calibrate(prior, "laplace", r=0, delta=delta, reading="average", releases=2)
    kappa = 1 - w1
    exact = _laplace2_success_mp(w1, res.scale) - kappa
    assert exact <= delta + 1e-9  # sound (the accountant is pessimistic)
    assert _laplace2_success_mp(w1, res.scale * (1 - 1e-4)) - kappa > delta  # and tight
    assert res.value <= delta and res.value == pytest.approx(exact, abs=1e-7)


@needs_accounting
def test_composed_calibration_agrees_with_the_reading_at_its_scale():
    prior = Categorical({0: 0.8, 1: 0.2})
    res = calibrate(prior, "laplace", r=0, delta=0.1, reading="average", releases=10)
    again = reconstruction_advantage(prior, "laplace", scale=res.scale, r=0, releases=10, prior_free=False)
    assert again.advantage == pytest.approx(res.value, abs=1e-12)
    assert res.value <= 0.1
    worse = reconstruction_advantage(prior, "laplace", scale=res.scale * (1 - 1e-4), r=0, releases=10,
                                     prior_free=False)
    assert worse.advantage > 0.1
    # ten releases of scale b are (10/b)-DP
    assert res.epsilon == pytest.approx(10 / res.scale)


def test_profile_discretization_is_checked():
    from garesearch import ParameterError

    with pytest.raises(ParameterError, match="discretization"):
        privacy_profile("laplace", scale=1.0, releases=2, discretization=0.0)
    assert math.isfinite(privacy_profile("gaussian", scale=1.0).dp_delta(0.5))
