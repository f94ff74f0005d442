"""Noise bounds of App. A.1 against numerical integration at 50 digits."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from garesearch.errors import ParameterError
from garesearch.noise import (
    noise_bound,
    noise_density,
    noise_density_inverse,
    noise_mass,
    sample_noise,
)

DENSITIES = {
    "laplace": lambda x: mpmath.exp(-abs(x)) / 2,
    "gencauchy": lambda x: mpmath.sqrt(2) / (mpmath.pi * (1 + x**4)),
    "gaussian": lambda x: mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi),
}
A_VALUES = ["1e-6", "0.01", "0.3", "1", "2.5", "7", "40"]


@pytest.fixture(autouse=True)
def _reset_mpmath():
    yield
    mpmath.mp.dps = 15


def _quad_mass(noise, a):
    a = mpmath.mpf(a)
    return 2 * mpmath.quad(DENSITIES[noise], [0, min(a, 1), a] if a > 1 else [0, a])


@pytest.mark.parametrize("noise", sorted(DENSITIES))
@pytest.mark.parametrize("a", A_VALUES)
def test_mass_against_quadrature_50_digits(noise, a):
    with mpmath.workdps(50):
        expected = _quad_mass(noise, a)
        got = noise_mass(a, noise=noise, dps=50)
        assert abs(got - expected) <= mpmath.mpf(10) ** -45 * max(expected, 1e-300)


@pytest.mark.parametrize("noise", sorted(DENSITIES))
def test_float_path_matches_quadrature(noise):
    a = np.array([float(x) for x in A_VALUES])
    got = noise_mass(a, noise=noise)
    with mpmath.workdps(30):
        expected = np.array([float(_quad_mass(noise, x)) for x in A_VALUES])
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


@pytest.mark.parametrize("noise", sorted(DENSITIES))
@pytest.mark.parametrize("p", ["1e-9", "0.1", "0.5", "0.78", "0.95", "0.999999"])
def test_quantile_integrates_back_to_p(noise, p):
    with mpmath.workdps(50):
        a = noise_bound(p, noise=noise, dps=50)
        assert abs(_quad_mass(noise, a) - mpmath.mpf(p)) < mpmath.mpf(10) ** -44


@pytest.mark.parametrize("noise", sorted(DENSITIES))
def test_float_quantile_matches_quadrature_root(noise):
    ps = np.array([1e-12, 1e-3, 0.2, 0.5, 0.78, 0.9, 0.99, 0.999999])
    got = noise_bound(ps, noise=noise)
    with mpmath.workdps(40):
        # the root in a of the 40-digit quadrature mass (the float answer only seeds the search)
        expected = np.array([
            float(mpmath.findroot(lambda a, p=p: _quad_mass(noise, a) - mpmath.mpf(float(p)), mpmath.mpf(g)))
            for p, g in zip(ps, got, strict=True)
        ])
    np.testing.assert_allclose(got, expected, rtol=2e-10)


def test_paper_values_gencauchy():
    # A1.gencauchy_norm: the density integrates to 1
    with mpmath.workdps(30):
        assert abs(mpmath.quad(DENSITIES["gencauchy"], [-mpmath.inf, 0, mpmath.inf]) - 1) < 1e-25
    # A1.gencauchy_mass: P(|eta| <= 1) = (ln(3 + 2 sqrt 2) + pi)/(2 pi) ~ 0.78
    closed = (math.log(3 + 2 * math.sqrt(2)) + math.pi) / (2 * math.pi)
    assert noise_mass(1.0, noise="gencauchy") == pytest.approx(closed, rel=1e-15)
    assert round(closed, 2) == 0.78
    # and the inverse at that probability is 1
    assert noise_bound(closed, noise="gencauchy") == pytest.approx(1.0, rel=1e-13)


def test_laplace_closed_form_of_paper():
    # A1.laplace: int_{-a}^{a} eps/2 e^{-|x| eps} = 1 - e^{-a eps}; a = -ln(1-p)/eps
    eps, a = 0.539, 3.0
    assert noise_mass(a, scale=1 / eps) == pytest.approx(1 - math.exp(-a * eps), rel=1e-14)
    assert noise_bound(0.95, scale=1 / eps) == pytest.approx(-math.log(0.05) / eps, rel=1e-14)


def test_gaussian_against_scipy():
    from scipy.stats import norm

    assert noise_bound(0.95, noise="gaussian", scale=2.0) == pytest.approx(
        2.0 * norm.ppf(0.975), rel=1e-12
    )


@pytest.mark.parametrize("noise", sorted(DENSITIES))
def test_scaling(noise):
    # A1.scaling: Pr[|xi eta| <= a xi] = Pr[|eta| <= a]
    a, xi = 1.7, 13.0
    assert noise_mass(a * xi, noise=noise, scale=xi) == pytest.approx(
        noise_mass(a, noise=noise), rel=1e-14
    )
    assert noise_bound(0.8, noise=noise, scale=xi) == pytest.approx(
        xi * noise_bound(0.8, noise=noise), rel=1e-14
    )


@pytest.mark.parametrize("noise", sorted(DENSITIES))
def test_density_and_inverse(noise):
    x, xi = 1.3, 2.0
    with mpmath.workdps(30):
        expected = DENSITIES[noise](mpmath.mpf(x) / xi) / xi
    assert noise_density(-x, noise=noise, scale=xi) == pytest.approx(float(expected), rel=1e-14)
    assert noise_density_inverse(float(expected), noise=noise, scale=xi) == pytest.approx(x, rel=1e-12)
    with pytest.raises(ParameterError):
        noise_density_inverse(10.0, noise=noise, scale=xi)


def test_sampled_gencauchy_matches_mass():
    x = sample_noise(100_000, noise="gencauchy", scale=1.0, rng=12345)
    frac = np.mean(np.abs(x) <= 1.0)
    p = (math.log(3 + 2 * math.sqrt(2)) + math.pi) / (2 * math.pi)
    se = math.sqrt(p * (1 - p) / x.size)
    assert abs(frac - p) < 4 * se


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 50), st.floats(0, 50), st.sampled_from(sorted(DENSITIES)))
def test_mass_monotone(a, b, noise):
    lo, hi = min(a, b), max(a, b)
    assert noise_mass(lo, noise=noise) <= noise_mass(hi, noise=noise) <= 1.0


def test_bad_input():
    with pytest.raises(ParameterError, match="noise"):
        noise_mass(1.0, noise="cauchy")
    with pytest.raises(ParameterError, match="p must"):
        noise_bound(1.0)
    with pytest.raises(ParameterError, match="scale"):
        noise_mass(1.0, scale=0.0)
    with pytest.raises(ParameterError, match="a must"):
        noise_mass(-1.0)
