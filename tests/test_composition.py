"""Tests of Sec. 5: sequential composition, the l_p / dual-norm theorem, epsilon splits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from garesearch.composition import (
    composed_epsilon,
    dual_exponent,
    equal_split,
    expected_squared_error,
    optimal_split,
    sequential_epsilon,
    split_saving,
)
from garesearch.errors import ParameterError

INF = math.inf


def test_dual_exponents():
    assert dual_exponent(1) == INF
    assert dual_exponent(INF) == 1
    assert dual_exponent(2) == 2
    assert dual_exponent(3) == pytest.approx(1.5)
    for p in (1.2, 2.5, 7.0):
        q = 1.0 if p == INF else (INF if p == 1 else p / (p - 1))  # Hoelder dual, typed here
        assert 1 / p + 1 / q == pytest.approx(1.0)


def test_sequential_and_parallel_limits():
    eps = [0.1, 0.4, 0.25]
    assert sequential_epsilon(eps) == pytest.approx(0.75)
    assert composed_epsilon(eps, p=INF) == pytest.approx(0.75)  # every input may change
    assert composed_epsilon(eps, p=1) == pytest.approx(0.4)  # one input changes: max
    assert composed_epsilon(eps, p=2) == pytest.approx(math.sqrt(0.01 + 0.16 + 0.0625))


@pytest.mark.parametrize("p", [1.0, 1.5, 2.0, 3.0, INF])
def test_dual_norm_theorem_by_sampling_laplace(p):
    """Output i = x_i + Lap(1/eps_i).  For ||x - x'||_p <= 1 the density ratio at any y is
    at most exp(||eps||_q), and the supremum is reached (Hoelder's equality case)."""
    rng = np.random.default_rng(2024)
    m = 4
    eps = rng.uniform(0.1, 2.0, m)
    bound = composed_epsilon(eps, p=p)
    n = 20_000
    x = rng.normal(0, 3, (n, m))
    d = rng.normal(0, 1, (n, m))
    norms = np.max(np.abs(d), axis=1) if math.isinf(p) else np.sum(np.abs(d) ** p, axis=1) ** (1 / p)
    d = d / norms[:, None] * rng.uniform(0, 1, (n, 1))  # ||d||_p <= 1
    y = x + rng.laplace(0, 1 / eps, (n, m))

    def log_density(y, x):
        return np.sum(np.log(eps / 2) - eps * np.abs(y - x), axis=1)

    log_ratio = log_density(y, x) - log_density(y, x + d)
    assert np.all(log_ratio <= bound + 1e-12)
    # the bound is attained: d_i = sign * eps_i^(q-1) / ||eps^(q-1)||_p, y far on one side
    q = 1.0 if p == INF else (INF if p == 1 else p / (p - 1))  # Hoelder dual, typed here
    if math.isinf(q):
        dstar = np.where(np.arange(m) == np.argmax(eps), 1.0, 0.0)
    elif q == 1:
        dstar = np.ones(m)
    else:
        w = eps ** (q - 1)
        dstar = w / np.sum(w**p) ** (1 / p)
    x0 = np.zeros((1, m))
    y0 = np.full((1, m), -10.0)
    assert (log_density(y0, x0) - log_density(y0, x0 + dstar))[0] == pytest.approx(bound, rel=1e-12)


def test_equal_split_meets_total():
    for p in (1.0, 2.0, 3.0, INF):
        e = equal_split(2.0, 5, p=p)
        assert np.allclose(e, e[0])
        assert composed_epsilon(e, p=p) == pytest.approx(2.0)
    assert np.allclose(equal_split(2.0, 5, p=INF), 0.4)  # GROUP BY under sequential composition
    assert np.allclose(equal_split(2.0, 5, p=1), 2.0)  # parallel composition


@pytest.mark.parametrize("p", [INF, 3.0, 2.0, 1.5])
def test_optimal_split_against_scipy(p):
    from scipy.optimize import minimize

    q = 1.0 if p == INF else (INF if p == 1 else p / (p - 1))  # Hoelder dual, typed here
    rng = np.random.default_rng(7)
    for _ in range(5):
        m = int(rng.integers(2, 6))
        s = rng.uniform(0.2, 5.0, m)
        total = float(rng.uniform(0.5, 3.0))

        def on_surface(z, total=total):
            # the objective decreases in every eps_i, so the optimum has ||eps||_q = total;
            # w_0 = 1 fixes the scale
            z = np.concatenate([[0.0], z])
            w = np.exp(z - z.max())
            return total * w / np.sum(w**q) ** (1 / q) if math.isfinite(q) else total * w / w.max()

        def objective(z, s=s):
            return float(np.sum(2 * s**2 / on_surface(z) ** 2))

        res = minimize(objective, np.zeros(m - 1), method="BFGS")
        assert res.fun < objective(np.zeros(m - 1)) or np.allclose(s, s[0])
        found = on_surface(res.x)
        ours = optimal_split(total, s, p=p)
        assert composed_epsilon(ours, p=p) == pytest.approx(total, rel=1e-12)
        assert expected_squared_error(ours, s) == pytest.approx(np.sum(2 * s**2 / ours**2), rel=1e-12)
        assert np.sum(2 * s**2 / ours**2) <= res.fun * (1 + 1e-7)
        assert ours == pytest.approx(found, rel=1e-4)


def test_optimal_split_limits_and_closed_form():
    s = np.array([1.0, 2.0, 8.0])
    # q = 1 (l_inf inputs): eps_i proportional to s_i^(2/3), summing to the total
    e = optimal_split(3.0, s, p=INF)
    assert e == pytest.approx(3.0 * s ** (2 / 3) / np.sum(s ** (2 / 3)), rel=1e-12)
    # q = inf (l_1 inputs, parallel): every output gets the whole total
    assert optimal_split(3.0, s, p=1) == pytest.approx([3.0, 3.0, 3.0])
    # q close to inf tends to the parallel split
    assert optimal_split(3.0, s, p=1 + 1e-9) == pytest.approx([3.0, 3.0, 3.0], rel=1e-6)
    # minimum value 2 E^-2 (sum s^(2q/(q+2)))^((q+2)/q); saving vs equal split
    for p in (INF, 2.0, 4.0):
        q = 1.0 if p == INF else (INF if p == 1 else p / (p - 1))  # Hoelder dual, typed here
        best = 2 / 3.0**2 * np.sum(s ** (2 * q / (q + 2))) ** ((q + 2) / q)
        assert expected_squared_error(optimal_split(3.0, s, p=p), s) == pytest.approx(best, rel=1e-12)
        equal = 2 * np.sum(s**2) * len(s) ** (2 / q) / 3.0**2
        assert split_saving(s, p=p) == pytest.approx(equal / best, rel=1e-12)
    assert split_saving([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert split_saving([1.0, 10.0]) > 1.0


def test_bad_input():
    with pytest.raises(ParameterError):
        dual_exponent(0.5)
    with pytest.raises(ParameterError):
        composed_epsilon([], p=2)
    with pytest.raises(ParameterError):
        composed_epsilon([0.1, -0.1])
    with pytest.raises(ParameterError):
        optimal_split(0.0, [1.0])
    with pytest.raises(ParameterError):
        optimal_split(1.0, [1.0, float("nan")])
    with pytest.raises(ParameterError):
        equal_split(1.0, 0)
    with pytest.raises(ParameterError):
        expected_squared_error([1.0, 2.0], [1.0])
