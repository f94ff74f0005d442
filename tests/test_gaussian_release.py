"""Gaussian releases (continuous and discrete) through OpenDP or numpy.

References: numpy's own generator with the same seed, the normal quantile at 40 digits
(mpmath), the discrete Gaussian's variance and tail masses by direct sums at 40 digits, and
sample statistics with fixed seeds.
"""

from __future__ import annotations

import dataclasses
import json
import math

import mpmath
import numpy as np
import pytest

from garesearch import ParameterError
from garesearch.priors import Categorical
from garesearch.releases.calibration import calibrate
from garesearch.releases.release import (
    GaussianRelease,
    InsecureNoiseWarning,
    gaussian_noise,
    gaussian_release,
)


def _z(confidence, dps=40):
    with mpmath.workdps(dps):
        return float(mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(confidence)))


def _discrete_gaussian_mp(s, dps=40):
    """Variance and the cumulative masses Pr[|Z| <= k] of the discrete Gaussian, by direct sums."""
    with mpmath.workdps(dps):
        s = mpmath.mpf(s)
        big = int(40 * s) + 40
        w = {k: mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * s * s)) for k in range(-big, big + 1)}
        z = mpmath.fsum(w.values())
        var = mpmath.fsum(k * k * v for k, v in w.items()) / z
        cum = [float(mpmath.fsum(w[j] for j in range(-k, k + 1)) / z) for k in range(big)]
        return float(var), cum


def test_numpy_release_scale_interval_and_seed():
    with pytest.warns(InsecureNoiseWarning, match="Mironov"):
        rel = gaussian_release(100.0, scale=2.0, sensitivity=3.0, seed=7)
    assert isinstance(rel, GaussianRelease)
    assert rel.scale == 6.0 and rel.unit_scale == 2.0 and rel.sensitivity == 3.0
    assert rel.rho == pytest.approx(1 / 8) and rel.mu == pytest.approx(0.5)
    assert rel.error_bound == pytest.approx(6.0 * _z(0.95), rel=1e-13)
    assert rel.interval == (rel.value - rel.error_bound, rel.value + rel.error_bound)
    # the noise is numpy's N(0, 6^2) draw with the same seed
    assert rel.value == pytest.approx(100.0 + np.random.default_rng(7).normal(0.0, 6.0), abs=1e-12)
    assert "numpy" in rel.backend and "Mironov" in rel.backend


def test_rho_budget_and_calibration_result():
    with pytest.warns(InsecureNoiseWarning):
        rel = gaussian_release(5.0, rho=0.125, seed=1)
    assert rel.unit_scale == pytest.approx(2.0, rel=1e-15) and rel.rho == pytest.approx(0.125)
    res = calibrate(Categorical({0: 0.8, 1: 0.2}), "gaussian", r=0, delta=0.1, reading="average")
    with pytest.warns(InsecureNoiseWarning):
        rel = gaussian_release(1.0, scale=res, seed=2)
    assert rel.unit_scale == res.scale and rel.rho == pytest.approx(res.rho, rel=1e-14)
    assert rel.unit_scale == pytest.approx(0.462471, rel=2e-6)  # riskcal's sigma


def test_release_never_holds_the_exact_answer():
    secret = 987654.321
    with pytest.warns(InsecureNoiseWarning):
        rel = gaussian_release(secret, scale=1.0, seed=3)
    text = repr(rel) + str(rel) + json.dumps(dataclasses.asdict(rel))
    assert "987654.321" not in text
    assert all(v != secret for v in dataclasses.asdict(rel).values())
    with pytest.warns(InsecureNoiseWarning):
        irel = gaussian_release(424242, scale=1.5, integer=True, seed=3)
    assert "424242," not in repr(irel) and all(v != 424242 for v in dataclasses.asdict(irel).values()
                                                if not isinstance(v, tuple))


def test_discrete_gaussian_release_and_noise_statistics():
    s = 1.7
    var, cum = _discrete_gaussian_mp(s)
    with pytest.warns(InsecureNoiseWarning):
        rel = gaussian_release(12, scale=s, integer=True, seed=5)
    assert rel.integer and rel.value == round(rel.value) and rel.mu is None
    k = int(rel.error_bound)
    assert rel.error_bound == k and cum[k] >= 0.95 > cum[k - 1]  # the smallest such integer
    x = gaussian_noise(40000, scale=s, integer=True, seed=9)
    assert np.all(x == np.round(x))
    # sample variance against the exact variance; fourth moment bounded by 3 var^2
    assert abs(np.mean(x * x) - var) < 4 * math.sqrt(2 * var * var / x.size)
    assert abs(np.mean(np.abs(x) <= k) - cum[k]) < 4 * math.sqrt(0.25 / x.size)


def test_bad_input():
    with pytest.raises(ParameterError, match="exactly one"):
        gaussian_release(1.0, scale=1.0, rho=0.5, backend="numpy")
    with pytest.raises(ParameterError, match="exactly one"):
        gaussian_release(1.0, backend="numpy")
    with pytest.raises(ParameterError, match="rho"):
        gaussian_release(1.0, rho=-1.0, backend="numpy")
    with pytest.raises(ParameterError, match="scale"):
        gaussian_release(1.0, scale=float("inf"), backend="numpy")
    with pytest.raises(ParameterError, match="integer"):
        gaussian_release(1.5, scale=1.0, integer=True, backend="numpy")
    with pytest.raises(ParameterError, match="confidence"):
        gaussian_release(1.0, scale=1.0, confidence=1.0, backend="numpy")
    lap = calibrate(Categorical({0: 0.8, 1: 0.2}), "laplace", r=0, delta=0.1, reading="average")
    with pytest.raises(ParameterError, match="laplace"):
        gaussian_release(1.0, scale=lap, backend="numpy")
    with pytest.raises(ParameterError, match="backend"):
        gaussian_release(1.0, scale=1.0, backend="torch")


def test_opendp_gaussian_release():
    pytest.importorskip("opendp")
    import opendp.prelude as dp

    s = 2.5
    x = gaussian_noise(8000, scale=s, backend="opendp")
    assert abs(np.mean(x * x) - s * s) < 4 * math.sqrt(2 * s**4 / x.size)
    assert abs(np.mean(x)) < 4 * s / math.sqrt(x.size)
    var, _ = _discrete_gaussian_mp(1.3)
    xi = gaussian_noise(8000, scale=1.3, integer=True, backend="opendp")
    assert np.all(xi == np.round(xi))
    assert abs(np.mean(xi * xi) - var) < 4 * math.sqrt(2 * var * var / xi.size)
    rel = gaussian_release(122.0, scale=s)  # OpenDP by default when installed
    assert rel.backend == "opendp" and rel.scale == s
    irel = gaussian_release(122, rho=0.5, sensitivity=2, integer=True)
    assert irel.backend == "opendp" and irel.value == round(irel.value) and irel.scale == 2.0
    # OpenDP's own privacy map agrees with the calibration: rho = sensitivity^2 / (2 sigma^2)
    dp.enable_features("contrib")
    meas = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=6.0)
    assert meas.map(3.0) == pytest.approx(1 / 8, rel=1e-12)
