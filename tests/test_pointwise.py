"""The pointwise bound: soundness (Laplace posterior by quadrature), tightness at r = 0, and
dominance over Eq. (main)'s best comparison set."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats
from sweeps import sample

import garesearch as ga
from garesearch.constructions.pointwise import epsilon_pointwise, pointwise_ratios
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
        # (the normal density in closed form: scipy's per point is slow under quad)
        (Normal(2000, 235.7), lambda x: math.exp(-0.5 * ((x - 2000) / 235.7) ** 2) / (235.7 * math.sqrt(2 * math.pi)),
         2000 - 40 * 235.7, 2000 + 40 * 235.7, 100),
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
    # every 23rd candidate (six of them, evenly spread, in the default run): from one far tail
    # to the other through the bulk
    ts = sample(prior.t_candidates(r)[::23], 6) if not isinstance(prior, Categorical) else prior.points
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


# ------------------------------------------------------------------------------------------
# Independent oracles for the tilted-tail implementation, the worst true value and the
# far-tail limit
# ------------------------------------------------------------------------------------------
def _mp_mass(za, zb):
    """Phi(zb) - Phi(za), from the tail on the side of the interval (no cancellation)."""
    if za > 0:
        return mpmath.ncdf(-za) - mpmath.ncdf(-zb)
    return mpmath.ncdf(zb) - mpmath.ncdf(za)


def _mp_normal_integral(k, a, b, mu, s):
    """int_a^b e^{k u} dN(mu, s^2)(u), in closed form (mpmath)."""
    m = mu + k * s * s
    return mpmath.exp(k * mu + k * k * s * s / 2) * _mp_mass((a - m) / s, (b - m) / s)


def _mp_normal_F(t, e, mu=2000, s=235.7, r=100, delta=0.1):
    """ln((1-p-delta)/(p+delta)) - ln J at true value t (upper side; module docstring's ratios)."""
    mu, s, r, delta = (mpmath.mpf(v) for v in (mu, s, r, delta))
    lo, hi, inf = t - r, t + r, mpmath.inf
    J = (_mp_normal_integral(-e, hi, inf, mu, s) / _mp_normal_integral(-e, lo, hi, mu, s)
         + _mp_normal_integral(e, -inf, lo, mu, s) / _mp_normal_integral(e, lo, hi, mu, s))
    p = _mp_mass((lo - mu) / s, (hi - mu) / s)
    return mpmath.log((1 - p - delta) / (p + delta)) - mpmath.log(J)


def test_salary_worst_case_matches_its_stationarity_conditions_at_40_digits():
    """t=None on N(2000, 235.7), r = 100: the worst (t, eps) solves F = 0 and dF/dt = 0."""
    with mpmath.workdps(40):
        t, e = mpmath.findroot(
            lambda t, e: [_mp_normal_F(t, e), mpmath.diff(lambda x: _mp_normal_F(x, e), t)],
            (mpmath.mpf(2150), mpmath.mpf("0.0017")))
    res = epsilon_pointwise(Normal(2000, 235.7), r=100, delta=0.1)
    assert res.binding == "upper" and not res.far_tail
    assert res.epsilon == pytest.approx(float(e), rel=1e-10)
    assert res.epsilon <= float(e)
    assert res.t == pytest.approx(float(t), rel=1e-6)


def _mp_finite_eps(x, w, t, r, delta, side):
    """The per-t pointwise epsilon of a finite prior by bisection at 30 digits on the
    definitions of J and I (sums over atoms)."""
    with mpmath.workdps(30):
        x = [mpmath.mpf(float(v)) for v in x]
        w = [mpmath.mpf(float(v)) for v in w]
        inside = [abs(v - t) <= r for v in x]
        p = mpmath.fsum(wi for wi, i in zip(w, inside, strict=True) if i)
        d = mpmath.mpf(delta)
        if (side == "upper" and p + d >= 1) or (side == "lower" and not d < p < 1):
            return math.inf
        sign = 1 if side == "upper" else -1

        def posterior_bound(e):
            ratio = mpmath.fsum(
                wo / mpmath.fsum(wi * mpmath.exp(sign * e * abs(xo - xi))
                                 for xi, wi, i in zip(x, w, inside, strict=True) if i)
                for xo, wo, o in zip(x, w, inside, strict=True) if not o)
            return 1 / (1 + ratio)

        def broken(e):
            b = posterior_bound(e)
            return b > p + d if side == "upper" else b < p - d

        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while not broken(hi):
            lo, hi = hi, 2 * hi
        for _ in range(100):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if broken(mid) else (mid, hi)
        return float(lo)


@pytest.mark.parametrize("seed", [3, 11])
@pytest.mark.parametrize("r", [0.0, 0.9])
def test_finite_prior_against_mpmath_sums(seed, r):
    """Every atom's pointwise epsilon (both sides) by bisection on the sums; t=None is the
    smallest of them."""
    rng = np.random.default_rng(seed)
    x = np.unique(np.round(rng.uniform(-3, 5, 9), 3))
    w = rng.dirichlet(np.ones(x.size))
    prior = Categorical(dict(zip(x.tolist(), w.tolist(), strict=True)))
    delta = 0.05
    per_t = {}
    for t in x:
        up = _mp_finite_eps(x, w, float(t), r, delta, "upper")
        low = _mp_finite_eps(x, w, float(t), r, delta, "lower")
        res = epsilon_pointwise(prior, r=r, delta=delta, t=float(t))
        assert res.epsilon_upper == pytest.approx(up, rel=1e-10)
        assert res.epsilon_lower == pytest.approx(low, rel=1e-10) or low == res.epsilon_lower == math.inf
        per_t[float(t)] = min(up, low)
    worst = epsilon_pointwise(prior, r=r, delta=delta)
    assert worst.epsilon == pytest.approx(min(per_t.values()), rel=1e-10)
    assert worst.epsilon <= min(per_t.values()) * (1 + 1e-13)


def test_categorical_lattice_closed_form():
    """10^4 equal atoms at the integers, r = 0: at the end atom J = sum_j e^{-eps j}
    = 1/(e^eps - 1) (up to e^{-10^3}), so eps = -ln(1 - p - delta); 10^5 atoms at t = 5:
    J = e^{-eps}(2 - e^{-5 eps})/(1 - e^{-eps}) (up to e^{-10^4}), solved by brentq."""
    from scipy.optimize import brentq

    n, delta = 10**4, 0.1
    res = epsilon_pointwise(Categorical({i: 1 / n for i in range(n)}), r=0, delta=delta)
    assert res.t in (0, n - 1)
    assert res.epsilon == pytest.approx(-math.log1p(-(1 / n + delta)), rel=1e-12)
    n = 10**5
    p = 1 / n
    target = (1 - p - delta) / (p + delta)
    ref = brentq(lambda e: math.exp(-e) * (2 - math.exp(-5 * e)) / -math.expm1(-e) - target, 1e-3, 10, xtol=1e-15)
    res = epsilon_pointwise(Categorical({i: p for i in range(n)}), r=0, delta=delta, t=5, sides="upper")
    # certified on the safe side; the rounding bounds of sums over 1e5 atoms cost a few 1e-11
    assert res.epsilon <= ref * (1 + 1e-15)
    assert res.epsilon == pytest.approx(ref, rel=5e-11)


def test_far_tail_limit_is_tanh_on_a_wide_uniform():
    """Module docstring: for a locally flat density J tends to 2/(e^{2 eps r} - 1), so the
    bound tends to tanh(eps r).  mpmath's quadrature of the two ratios on U(-1e6, 1e6) at
    t = 0 (the flat density of a heavy tail, far from the ends) gives the same, and so does
    the package's J."""
    W, r = 1e6, 1.0
    prior = Uniform(-W, W)
    with mpmath.workdps(30):
        for e in (0.05, 0.3, 2.0):
            em = mpmath.mpf(e)
            inner = mpmath.quad(lambda u, em=em: mpmath.exp(-em * u), [-r, r])
            outer = mpmath.quad(lambda u, em=em: mpmath.exp(-em * u), [r, r + 1 / em, r + 50 / em, W])
            J = 2 * outer / inner  # symmetric: the left ratio equals the right one
            assert float(1 / (1 + J)) == pytest.approx(math.tanh(e * r), rel=1e-12)
            assert pointwise_ratios(prior, 0.0, r, e)[0] == pytest.approx(float(J), rel=1e-11)


def test_far_tail_limit_with_an_exponential_tail():
    """Density e^{-u} (scipy's expon), far out: J(t) tends to 1/(e^{2r(eps+1)} - 1) +
    1/(e^{2r(eps-1)} - 1) (module docstring, lambda = 1), by mpmath quadrature of the ratios;
    the package's J at that t agrees."""
    prior = Continuous(stats.expon())
    t, r, e = 80.0, 0.5, 1.7
    with mpmath.workdps(30):
        em, lo, hi = mpmath.mpf(e), mpmath.mpf(t - r), mpmath.mpf(t + r)
        f = lambda u: mpmath.exp(-u)  # noqa: E731
        right = (mpmath.quad(lambda u: mpmath.exp(-em * (u - hi)) * f(u), mpmath.linspace(hi, hi + 40, 41))
                 / mpmath.quad(lambda u: mpmath.exp(-em * (u - hi)) * f(u), [lo, hi]))
        left = (mpmath.quad(lambda u: mpmath.exp(em * (u - lo)) * f(u), mpmath.linspace(0, lo, 81))
                / mpmath.quad(lambda u: mpmath.exp(em * (u - lo)) * f(u), [lo, hi]))
        J = right + left
    limit = 1 / math.expm1(2 * r * (e + 1)) + 1 / math.expm1(2 * r * (e - 1))
    assert float(J) == pytest.approx(limit, rel=1e-12)
    assert pointwise_ratios(prior, t, r, e)[0] == pytest.approx(float(J), rel=1e-6)


def _mp_lognormal_F(t, e, r=100, delta=0.1, s=0.5, scale=2000):
    """Upper-side F at true value t for lognorm(s, scale), by mpmath quadrature of the ratios."""
    s, scale = mpmath.mpf(s), mpmath.mpf(scale)

    def f(u):
        return mpmath.npdf(mpmath.log(u / scale), 0, s) / u if u > 0 else mpmath.mpf(0)

    lo, hi = t - r, t + r
    w = 1 / e  # (the tails in 30 panels of 2 / eps each: the root agrees with 60 panels to 2e-11)
    right = (mpmath.quad(lambda u: mpmath.exp(-e * (u - hi)) * f(u), mpmath.linspace(hi, hi + 60 * w, 31))
             / mpmath.quad(lambda u: mpmath.exp(-e * (u - hi)) * f(u), mpmath.linspace(lo, hi, 5)))
    left = (mpmath.quad(lambda u: mpmath.exp(e * (u - lo)) * f(u), mpmath.linspace(max(lo - 60 * w, 0), lo, 31))
            / mpmath.quad(lambda u: mpmath.exp(e * (u - lo)) * f(u), mpmath.linspace(lo, hi, 5)))
    p = mpmath.quad(f, mpmath.linspace(lo, hi, 5))
    return mpmath.log((1 - p - delta) / (p + delta)) - mpmath.log(right + left)


def test_lognormal_defect_of_issue_13():
    """lognorm(0.5, scale=2000), r = 100, delta = 0.1, upper side.  The worst case is the
    far-tail limit artanh(delta)/r (the bound tends to tanh(eps r)); at t = 4.6e5 the
    pointwise epsilon is that of mpmath's quadrature (about 1.0059e-3: the bulk, e^{-eps 4.6e5}
    away, is negligible), above the limit; the answer stays below the optimum's limit
    -ln(1 - delta)/r.  (Tolerance 2e-4, on the safe side: 11 standard deviations of log x out
    the certified panels are wide, and their enclosures about 1e-5.)"""
    prior = Continuous(stats.lognorm(0.5, scale=2000))
    res = epsilon_pointwise(prior, r=100, delta=0.1, sides="upper")
    assert res.far_tail and res.t == math.inf
    assert res.epsilon == pytest.approx(math.atanh(0.1) / 100, rel=1e-12)
    assert res.epsilon <= math.atanh(0.1) / 100
    assert res.posterior_bound() == pytest.approx(0.1, rel=1e-12)
    assert res.epsilon < -math.log1p(-0.1) / 100
    with mpmath.workdps(20):
        # secant from two points about the docstring's 1.0059e-3, to 1e-16 (the check is 2e-4)
        ref = mpmath.findroot(lambda e: _mp_lognormal_F(mpmath.mpf(4.6e5), e),
                              (mpmath.mpf("1.005e-3"), mpmath.mpf("1.007e-3")), tol=mpmath.mpf(10) ** -16)
    at = epsilon_pointwise(prior, r=100, delta=0.1, t=4.6e5, sides="upper")
    assert at.epsilon <= float(ref)
    assert at.epsilon == pytest.approx(float(ref), rel=2e-4)
    assert res.epsilon < at.epsilon


PRIORS_VS_OPTIMUM = [
    (Normal(2000, 235.7), 100.0, "both"),
    (Uniform(0, 10), 1.0, "both"),
    (PiecewiseUniform([0, 1, 5], [0.7, 0.3]), 0.3, "both"),
    (Categorical({-1.0: 0.1, 0.2: 0.35, 0.5: 0.15, 2.0: 0.3, 4.5: 0.1}), 0.4, "both"),
    (Continuous(stats.weibull_min(0.95)), 0.5, "upper"),  # a heavy tail: the far-tail limits
]


@pytest.mark.parametrize(("prior", "r", "sides"), PRIORS_VS_OPTIMUM)
def test_never_above_the_optimum(prior, r, sides):
    """The pointwise bound holds for every epsilon-DP mechanism, so its worst case can only
    lie at or below the optimal epsilon (garesearch.optimal), side by side."""
    from garesearch.optimal import epsilon_optimal

    pw = epsilon_pointwise(prior, r=r, delta=0.1, sides=sides)
    opt = epsilon_optimal(prior, r=r, delta=0.1, sides=sides)
    assert 0 < pw.epsilon_upper <= opt.epsilon_upper * (1 + 1e-9)
    assert pw.epsilon_lower <= opt.epsilon_lower * (1 + 1e-9)
    assert pw.epsilon <= opt.epsilon * (1 + 1e-9)


@pytest.mark.slow
@pytest.mark.parametrize(("prior", "r", "sides"), [
    (Continuous(stats.lognorm(0.5, scale=2000)), 100.0, "upper"),
    (Continuous(stats.t(3)), 0.5, "upper"),
    (Continuous(stats.gamma(2.0)), 0.3, "both"),
    (Continuous(stats.laplace(0, 2)), 0.25, "upper"),
    (Continuous(stats.cauchy()), 0.5, "upper"),
    (Continuous(stats.norm(0, 1)), 0.5, "both"),
    # t=None once ran out to t = 4.6e15, where float64 cannot place a ball of radius 0.5;
    # the optimum is at t = 1.5: 0.1922, equal to the pointwise bound there
    (Continuous(stats.pareto(1.5)), 0.5, "upper"),
])
def test_never_above_the_optimum_more_priors(prior, r, sides):
    test_never_above_the_optimum(prior, r, sides)


def test_worst_case_is_no_larger_than_any_true_value():
    """t=None against the per-t epsilon at true values the scan does not contain."""
    prior = Continuous(stats.gamma(2.0, scale=3.0))
    worst = epsilon_pointwise(prior, r=0.5, delta=0.1, sides="upper")
    rng = np.random.default_rng(5)
    for t in sample([1e-3, *rng.uniform(0, 30, 3), 150.0], 3):
        one = epsilon_pointwise(prior, r=0.5, delta=0.1, t=float(t), sides="upper")
        assert worst.epsilon <= one.epsilon * (1 + 1e-12)


@pytest.mark.parametrize(("prior", "kw"), [
    (Uniform(0, 1), dict(r=1e-10, t=0.5)),
    (Normal(0, 1), dict(r=1e-17, t=0.0)),
    (Continuous(stats.pareto(1.5)), dict(r=0.5, t=1e4)),
])
def test_tiny_radius_and_far_true_values(prior, kw):
    """A flat density over the ball (tiny r, or far out with a heavy tail): the bound is
    tanh(eps r) up to p and the density's slope (below 1e-4 r here), so eps r lies near
    artanh(delta); the float64 ball t +- r costs digits at r = 1e-17."""
    res = epsilon_pointwise(prior, delta=0.1, sides="upper", **kw)
    assert res.epsilon * kw["r"] == pytest.approx(math.atanh(0.1), rel=1e-3)


def test_normal_far_out_against_the_closed_form():
    """N(0, 1), t = 40, r = 1 (ball mass about 1e-350, below float64): the root of the
    closed-form F in mpmath."""
    with mpmath.workdps(40):
        ref = mpmath.findroot(lambda e: _mp_normal_F(mpmath.mpf(40), e, mu=0, s=1, r=1), mpmath.mpf(37))
    res = epsilon_pointwise(Normal(0, 1), r=1.0, delta=0.1, t=40.0, sides="upper")
    assert res.epsilon == pytest.approx(float(ref), rel=1e-10)


def test_r_zero_with_a_density_is_rejected():
    with pytest.raises(ga.ParameterError, match="r must be > 0 for a prior with a density"):
        epsilon_pointwise(Normal(0, 1), r=0, delta=0.1)


def _salary_J(t, eps, mu=2000.0, sd=235.7, r=100.0):
    """J(eps) of the module docstring for N(mu, sd) and X' = [t - r, t + r], by quadrature
    here: L(x) = e^{eps (x - h)} int_{X'} e^{-eps (x' - h)} dF(x') for x > h (mirror image
    below l), the density in closed form."""
    def pdf(x):
        return math.exp(-0.5 * ((x - mu) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))

    lo, hi = t - r, t + r
    opts = dict(epsabs=0, epsrel=1e-12, limit=200)
    a = integrate.quad(lambda u: math.exp(-eps * (u - hi)) * pdf(u), lo, hi, **opts)[0]
    b = integrate.quad(lambda u: math.exp(eps * (u - lo)) * pdf(u), lo, hi, **opts)[0]
    right = integrate.quad(lambda x: math.exp(-eps * (x - hi)) * pdf(x), hi, mu + 40 * sd, **opts)[0] / a
    left = integrate.quad(lambda x: math.exp(-eps * (lo - x)) * pdf(x), mu - 40 * sd, lo, **opts)[0] / b
    return right + left


def test_salary_epsilon_is_the_root_at_its_worst_value():
    """The salary example with t=None: at the reported worst value the posterior bound
    1 / (1 + J) (J by quadrature here) meets p + delta to 1e-9 (an epsilon 1e-4 off moves it
    by 1e-5), and at no other true value of a scan over +-4 sigma (41 values, the reported
    one's neighbours every 1/20 sigma) does it exceed p_t + delta."""
    mu, sd, r = 2000.0, 235.7, 100.0
    res = epsilon_pointwise(Normal(mu, sd), r=r, delta=0.1)
    assert res.binding == "upper"
    dist = stats.norm(mu, sd)

    def excess(t, eps):
        return 1 / (1 + _salary_J(t, eps)) - (dist.cdf(t + r) - dist.cdf(t - r) + 0.1)

    assert abs(excess(res.t, res.epsilon)) < 1e-9
    assert excess(res.t, res.epsilon * (1 + 1e-4)) > 5e-6
    scan = list(mu + sd * np.linspace(-4, 4, 21)) + [res.t + sd * k / 20 for k in range(-10, 11) if k]
    assert max(excess(t, res.epsilon) for t in scan) <= 1e-9
