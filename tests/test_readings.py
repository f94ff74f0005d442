"""Readings of epsilon, each against an independent evaluation."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.optimize import linprog, minimize_scalar
from scipy.stats import laplace

from garesearch import bound
from garesearch.errors import InfeasibleError, ParameterError
from garesearch.releases.readings import (
    epsilon_for_worst_case_advantage,
    kazan_reiter_epsilon,
    kazan_reiter_ratio,
    lee_clifton_epsilon,
    lee_clifton_posterior,
    membership_advantage,
    plot_readings,
    posterior_belief_bound,
    worst_case_advantage,
)


def _bayes_two_point(eps, p, y):
    """Posterior of x = 0 (prior p) against x = 1 after y = x + Laplace(1/eps)."""
    f0 = laplace.pdf(y, loc=0, scale=1 / eps)
    f1 = laplace.pdf(y, loc=1, scale=1 / eps)
    return p * f0 / (p * f0 + (1 - p) * f1)


@pytest.mark.parametrize(("eps", "p"), [(0.1, 0.5), (1.0, 0.2), (3.0, 0.05)])
def test_posterior_belief_bound_by_bayes(eps, p):
    # for any y <= 0 the density ratio is exactly e^eps: the bound is attained
    assert posterior_belief_bound(epsilon=eps, p=p) == pytest.approx(
        _bayes_two_point(eps, p, -2.0), rel=1e-12)
    ys = np.linspace(-5, 6, 201)
    assert np.all(_bayes_two_point(eps, p, ys) <= posterior_belief_bound(epsilon=eps, p=p) + 1e-15)


@pytest.mark.parametrize(("m", "dv", "df", "eps"), [(10, 1.0, 1.0, 1.0), (50, 3.0, 2.0, 0.7)])
def test_lee_clifton_posterior_by_bayes(m, dv, df, eps):
    # world 0 (true) answers 0, the other m - 1 worlds answer dv; Laplace scale df/eps
    y = -1.0
    f_true = laplace.pdf(y, loc=0, scale=df / eps)
    f_other = laplace.pdf(y, loc=dv, scale=df / eps)
    post = f_true / (f_true + (m - 1) * f_other)
    assert lee_clifton_posterior(epsilon=eps, m=m, distance=dv / df) == pytest.approx(post, rel=1e-12)


@pytest.mark.parametrize(("rho", "m", "a"), [(0.3, 10, 1.0), (0.05, 100, 2.5), (0.9, 2, 0.5)])
def test_lee_clifton_epsilon_closed_form(rho, m, a):
    assert lee_clifton_epsilon(rho=rho, m=m, distance=a) == pytest.approx(
        math.log((m - 1) * rho / (1 - rho)) / a, rel=1e-13)
    with pytest.raises(ParameterError):
        lee_clifton_epsilon(rho=1 / m / 2, m=m)


@pytest.mark.parametrize("eps", [0.05, 0.4013, 1.0, 4.0])
def test_worst_case_advantage_by_maximising_over_priors(eps):
    res = minimize_scalar(lambda p: -(p * math.exp(eps) / (1 - p + p * math.exp(eps)) - p),
                          bounds=(0, 1), method="bounded", options={"xatol": 1e-12})
    assert worst_case_advantage(epsilon=eps) == pytest.approx(-res.fun, rel=1e-9)


@pytest.mark.parametrize("delta", [1e-300, 1e-9, 0.01, 0.1, 0.5, 0.9, 1 - 1e-9, 1 - 2**-52])
def test_worst_case_epsilon_one_implementation_closed_form(delta):
    # Sec. 4.1 at q = 1: eps = 2 ln((1 + delta)/(1 - delta)) = 4 artanh(delta), at 60 digits
    with mpmath.workdps(60):
        want = float(4 * mpmath.atanh(mpmath.mpf(delta)))
    eps = epsilon_for_worst_case_advantage(delta=delta)
    assert eps == pytest.approx(want, rel=1e-14)
    assert bound.worst_case_epsilon(delta=delta, q=1.0) == eps  # the reading delegates
    with mpmath.workdps(60):
        assert float(epsilon_for_worst_case_advantage(delta=delta, dps=50)) == pytest.approx(want, rel=1e-15)
    if delta < 1 - 1e-6:
        assert worst_case_advantage(epsilon=eps) == pytest.approx(delta, rel=1e-12)


def test_worst_case_epsilon_reading_rejects_what_bound_rejects():
    for bad in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(ParameterError, match="delta"):
            epsilon_for_worst_case_advantage(delta=bad)


@pytest.mark.parametrize(("eps", "delta"), [(0.5, 0.0), (1.0, 1e-3), (2.0, 0.05)])
def test_membership_advantage_by_linear_programme(eps, delta):
    # maximise TPR - FPR = 1 - FNR - FPR over the (eps, delta) privacy region
    E = math.exp(eps)
    A = [[-1, -E], [-E, -1]]  # FPR + e^eps FNR >= 1 - delta ; e^eps FPR + FNR >= 1 - delta
    b = [-(1 - delta), -(1 - delta)]
    res = linprog(c=[1, 1], A_ub=A, b_ub=b, bounds=[(0, 1), (0, 1)])
    assert membership_advantage(epsilon=eps, dp_delta=delta) == pytest.approx(1 - res.fun, rel=1e-9)


@pytest.mark.parametrize(("eps", "p"), [(1.0, 0.1), (0.3, 0.5), (5.0, 0.01)])
def test_kazan_reiter_ratio_is_posterior_over_prior(eps, p):
    assert kazan_reiter_ratio(epsilon=eps, p=p) == pytest.approx(
        _bayes_two_point(eps, p, -3.0) / p, rel=1e-12)


def test_kazan_reiter_epsilon_against_grid_search():
    ps = np.array([0.001, 0.01, 0.05, 0.2, 0.5])

    def profile(p):
        return 1 + 0.5 / np.sqrt(p)  # accept more relative risk for rare attributes

    eps = kazan_reiter_epsilon(profile, p=ps)
    grid = np.linspace(0, 5, 500001)
    ok = np.all(kazan_reiter_ratio(epsilon=grid[:, None], p=ps[None, :]) <= profile(ps), axis=1)
    assert eps == pytest.approx(grid[ok].max(), abs=2e-5)
    # constant profile r: as p -> 0 the limit is ln r
    assert kazan_reiter_epsilon(3.0, p=[1e-12, 0.3]) == pytest.approx(math.log(3.0), rel=1e-9)
    with pytest.raises(InfeasibleError):
        kazan_reiter_epsilon(1.0, p=[0.1])


def test_plot_readings():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = plot_readings(epsilon=np.linspace(0, 3, 31), p=0.2, m=5)
    assert len(ax.get_lines()) == 4
    ys = ax.get_lines()[2].get_ydata()
    assert ys[-1] == pytest.approx(math.tanh(3 / 4))
    plt.close(ax.figure)


@pytest.mark.parametrize("m", [3, 7, 7.5, 10])
def test_lee_clifton_high_precision_any_m(m):
    """The dps path reads 1/m at the working precision (it used to fail on p + q - 1 ~ 1e-17).
    Reference: (1/a) ln((m-1) rho / (1 - rho)), typed from Lee and Clifton, at 40 digits."""
    import mpmath

    from garesearch.releases import readings

    with mpmath.workdps(40):
        ref = mpmath.log((mpmath.mpf(m) - 1) * mpmath.mpf("0.6") / mpmath.mpf("0.4")) / 2
        got = readings.lee_clifton_epsilon(rho="0.6", m=m, distance=2, dps=40)
        assert abs(got - ref) < mpmath.mpf("1e-35")
        post = readings.lee_clifton_posterior(epsilon=ref, m=m, distance=2, dps=40)
        assert abs(post - mpmath.mpf("0.6")) < mpmath.mpf("1e-35")
