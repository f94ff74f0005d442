"""The pointwise bound: soundness (Laplace posterior by quadrature), tightness at r = 0, and
dominance over Eq. (main)'s best comparison set."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

import garesearch as ga
from garesearch.pointwise import epsilon_pointwise, pointwise_ratios
from garesearch.priors import Categorical, Continuous, Normal, PiecewiseUniform, Uniform


def test_J_against_double_integral():
    """J = int_{outside} dF(x) / int_{X'} e^{eps|x-x'|} dF(x'), by direct 2-d quadrature."""
    prior, t, r, eps = Normal(0, 1), 0.3, 0.4, 0.7
    pdf = stats.norm(0, 1).pdf

    def inv_L(x):
        return 1 / integrate.quad(lambda u: math.exp(eps * abs(x - u)) * pdf(u), t - r, t + r)[0]

    J = integrate.quad(lambda x: pdf(x) * inv_L(x), t + r, 12)[0] + integrate.quad(
        lambda x: pdf(x) * inv_L(x), -12, t - r
    )[0]

    def inv_K(x):
        return 1 / integrate.quad(lambda u: math.exp(-eps * abs(x - u)) * pdf(u), t - r, t + r)[0]

    I = integrate.quad(lambda x: pdf(x) * inv_K(x), t + r, 12)[0] + integrate.quad(  # noqa: E741
        lambda x: pdf(x) * inv_K(x), -12, t - r
    )[0]
    got = pointwise_ratios(prior, t, r, eps)
    assert got[0] == pytest.approx(J, rel=1e-8)
    assert got[1] == pytest.approx(I, rel=1e-8)


def test_tight_at_r0_for_laplace_at_y_equal_t():
    vals = {0.0: 0.1, 1.0: 0.3, 2.0: 0.25, 5.0: 0.2, 9.0: 0.15}
    prior = Categorical(vals)
    for t in vals:
        res = epsilon_pointwise(prior, r=0, delta=0.1, t=t, sides="upper")
        x, w = np.array(list(vals)), np.array(list(vals.values()))
        like = w * np.exp(-res.epsilon * np.abs(t - x))  # Laplace mechanism, output y = t
        post = like[x == t].sum() / like.sum()
        assert post == pytest.approx(vals[t] + 0.1, abs=1e-10)


def _laplace_post(pdf, lo_s, hi_s, t, r, eps, y):
    w = lambda x: math.exp(-eps * abs(y - x)) * pdf(x)  # noqa: E731
    cuts = sorted({min(max(v, lo_s), hi_s) for v in (lo_s, hi_s, y, t - r, t + r)})
    parts = [integrate.quad(w, a, b, limit=200, epsabs=0, epsrel=1e-11)[0] for a, b in itertools.pairwise(cuts)]
    num = sum(v for (a, b), v in zip(itertools.pairwise(cuts), parts, strict=True) if a >= t - r and b <= t + r)
    return num / sum(parts)


@pytest.mark.parametrize(
    ("prior", "pdf", "lo", "hi", "r"),
    [
        (Normal(2000, 235.7), stats.norm(2000, 235.7).pdf, 2000 - 40 * 235.7, 2000 + 40 * 235.7, 100),
        (Uniform(0, 10), lambda x: 0.1, 0.0, 10.0, 1.0),
    ],
)
def test_sound_against_laplace_integration(prior, pdf, lo, hi, r):
    res = epsilon_pointwise(prior, r=r, delta=0.1)
    span = hi - lo
    for y in np.linspace(lo - span, hi + span, 61):
        post = _laplace_post(pdf, lo, hi, res.t, r, res.epsilon, y)
        assert res.p - 0.1 - 1e-9 <= post <= res.p + 0.1 + 1e-9


@pytest.mark.parametrize(
    "prior",
    [Normal(0, 1), Uniform(0, 10), PiecewiseUniform([0, 1, 5], [0.7, 0.3]), Categorical({0: 0.2, 1: 0.5, 3: 0.3}),
     Continuous(stats.laplace(0, 2))],
)
def test_never_below_the_sound_comparison_set(prior):
    low, high = prior.support
    r = 0.25 if np.isinf(high - low) else 0.1 * (high - low)
    ts = prior.t_candidates(r)[::7] if not isinstance(prior, Categorical) else prior._x
    for t in ts:
        a = ga.epsilon_for_attribute(prior, r=r, delta=0.1, t=float(t), sides="upper", construction="sound")
        b = epsilon_pointwise(prior, r=r, delta=0.1, t=float(t), sides="upper")
        assert b.epsilon >= a.epsilon * (1 - 1e-9)


def test_discrete_metric_coincides_with_sec32():
    prior = Categorical({"a": 0.2, "b": 0.5, "c": 0.3})
    res = epsilon_pointwise(prior, r=0, delta=0.1)
    ref = min(min(math.log((1 - p) * (p + 0.1) / (p * (0.9 - p))), math.log(p * (1.1 - p) / ((1 - p) * (p - 0.1)))) for p in (0.2, 0.5, 0.3))
    assert res.epsilon == pytest.approx(ref, rel=1e-13)


def test_bad_input():
    with pytest.raises(ga.ParameterError, match="delta"):
        epsilon_pointwise(Normal(0, 1), r=0.1, delta=0)
    with pytest.raises(ga.ParameterError, match="diameter"):
        epsilon_pointwise(Uniform(0, 1), r=2, delta=0.1)
    with pytest.raises(ga.InfeasibleError, match="tails are too heavy"):
        epsilon_pointwise(Continuous(stats.cauchy()), r=0.5, delta=0.1, t=0.0)


def test_true_values_whose_ball_holds_everything_are_skipped():
    """At t = 0 the ball [-1, 1] is the whole support: no advantage, no constraint. The worst
    case over t must still be finite and below the exact Laplace epsilon (exact.py)."""
    from garesearch.exact import exact_epsilon
    from garesearch.mechanisms import Laplace

    u = Uniform(-1, 1)
    assert epsilon_pointwise(u, r=1.0, delta=0.1, t=0.0).epsilon == math.inf
    worst = epsilon_pointwise(u, r=1.0, delta=0.1)
    assert 0 < worst.epsilon <= exact_epsilon(u, Laplace(), r=1.0, delta=0.1) * (1 + 1e-9)
