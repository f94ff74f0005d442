"""Calibrated releases on the cats and salary tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from garesearch.errors import ParameterError
from garesearch.releases.release import (
    InsecureNoiseWarning,
    count_female_tabby,
    laplace_noise,
    laplace_release,
    salary_sum,
    synthetic_cats,
    synthetic_salaries,
)


def test_tables_are_reproducible_and_follow_the_priors():
    a, b = synthetic_cats(20000, seed=3), synthetic_cats(20000, seed=3)
    assert np.array_equal(a["color"], b["color"]) and np.array_equal(a["gender"], b["gender"])
    frac = count_female_tabby(a) / 20000
    se = math.sqrt(0.125 * 0.875 / 20000)
    assert abs(frac - 0.125) < 4 * se  # 0.5 * 0.25 (Sec. 6.1 prior)
    s = synthetic_salaries(20000, seed=3)["salary"]
    assert abs(s.mean() - 2000) < 4 * 235.7 / math.sqrt(20000)
    assert abs(s.std(ddof=1) / 235.7 - 1) < 4 / math.sqrt(2 * 20000)
    assert salary_sum({"salary": np.array([1.0, 2.5])}) == 3.5


def test_numpy_release_scale_and_interval():
    with pytest.warns(InsecureNoiseWarning, match="Mironov"):
        r = laplace_release(122, epsilon=0.539, confidence=0.95, seed=7)
    assert r.scale == pytest.approx(1 / 0.539)
    assert r.error_bound == pytest.approx(-math.log(0.05) / 0.539, rel=1e-14)
    assert r.interval[0] == pytest.approx(r.value - r.error_bound)
    with pytest.warns(InsecureNoiseWarning):
        assert laplace_release(122, epsilon=0.539, seed=7).value == r.value  # fixed seed


def test_numpy_noise_statistics_match_scale():
    scale = 1 / 0.539
    x = laplace_noise(40000, scale=scale, seed=11)
    # |Laplace(s)| is exponential(s): mean s, standard deviation s
    assert abs(np.mean(np.abs(x)) - scale) < 4 * scale / math.sqrt(x.size)
    # the 95% bound covers 95% of draws
    cover = np.mean(np.abs(x) <= -math.log(0.05) * scale)
    assert abs(cover - 0.95) < 4 * math.sqrt(0.95 * 0.05 / x.size)


def test_bad_input():
    with pytest.raises(ParameterError, match="backend"):
        laplace_release(1.0, epsilon=1.0, backend="torch")
    with pytest.raises(ParameterError, match="epsilon"):
        laplace_release(1.0, epsilon=0.0)
    with pytest.raises(ParameterError, match="confidence"):
        laplace_release(1.0, epsilon=1.0, confidence=1.0)


def test_opendp_release():
    pytest.importorskip("opendp")
    import opendp.prelude as dp

    scale = 1 / 0.539
    x = laplace_noise(20000, scale=scale, backend="opendp")
    assert abs(np.mean(np.abs(x)) - scale) < 4 * scale / math.sqrt(x.size)
    assert abs(np.mean(x)) < 4 * math.sqrt(2) * scale / math.sqrt(x.size)
    r = laplace_release(122.0, epsilon=0.539, backend="opendp")
    assert r.backend == "opendp" and r.scale == pytest.approx(scale)
    assert laplace_release(122.0, epsilon=0.539).backend == "opendp"  # the default when installed
    # OpenDP's own privacy map agrees with the calibration
    dp.enable_features("contrib")
    try:
        atom = dp.atom_domain(T=float, nan=False)
    except TypeError:  # OpenDP 0.10
        atom = dp.atom_domain(T=float)
    meas = dp.m.make_laplace(atom, dp.absolute_distance(T=float), scale=scale)
    assert meas.map(1.0) == pytest.approx(0.539, rel=1e-9)
