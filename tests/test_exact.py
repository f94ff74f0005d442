"""Tests of garesearch.exact: exact posteriors and advantages against closed forms derived by hand,
mpmath quadrature and a seeded Monte Carlo attacker; the soundness search."""

import itertools
import math

import mpmath
import numpy as np
import pytest
from sweeps import sample

from garesearch.constructions.pointwise import epsilon_pointwise
from garesearch.errors import InfeasibleError, ParameterError
from garesearch.exact import (
    bayes_attacker_success,
    compare_epsilons,
    comparison_table,
    exact_advantage,
    exact_epsilon,
    format_comparison,
    monte_carlo_attacker,
    or_event,
    posterior,
    soundness_counterexamples,
    soundness_search,
)
from garesearch.mechanisms import Gaussian, GenCauchy, Laplace, RandomizedResponse
from garesearch.priors import Categorical, Normal, PiecewiseUniform, Uniform

COLOURS = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}
CATS = Categorical({(c, g): p / 2 for c, p in COLOURS.items() for g in "MF"})


# --- two-point prior, Laplace: closed forms by hand -------------------------------------------
# Prior {0: p, 1: 1-p}, X' = {0} (r = 0).  For y <= 0, f(y|0)/f(y|1) = e^eps, so
# Post = p e^eps / (p e^eps + 1 - p); for y >= 1 the ratio is e^-eps.  Between 0 and 1 the
# posterior moves monotonically between these two values.
def _two_point(p, eps):
    up = p * math.exp(eps) / (p * math.exp(eps) + 1 - p) - p
    low = p - p * math.exp(-eps) / (p * math.exp(-eps) + 1 - p)
    return up, low


@pytest.mark.parametrize("p,eps", [(0.3, 0.7), (0.5, 1.0), (0.05, 2.5), (0.9, 0.2)])
def test_two_point_laplace_closed_form(p, eps):
    prior = Categorical({0: p, 1: 1 - p})
    res = exact_advantage(prior, Laplace(), epsilon=eps, r=0, t=0)
    up, low = _two_point(p, eps)
    assert res.upper == pytest.approx(up, rel=1e-12)
    assert res.lower == pytest.approx(low, rel=1e-12)
    assert res.advantage == pytest.approx(max(up, low), rel=1e-12)
    assert posterior(prior, Laplace(), epsilon=eps, r=0, t=0, y=-3.0) == pytest.approx(up + p, rel=1e-12)


def test_two_point_exact_epsilon_closed_form():
    # Solve p(1-p)(e^eps - 1)/(p e^eps + 1 - p) = delta: e^eps = (1-p)(p+delta) / (p(1-p-delta)).
    # The lower side at the same eps is smaller for p < 1/2, and for t = 1 (mass 1-p) the
    # roles swap: the lower side of 1-p equals the upper side of p.
    p, delta = 0.3, 0.1
    expected = math.log((1 - p) * (p + delta) / (p * (1 - p - delta)))
    got = exact_epsilon(Categorical({0: p, 1: 1 - p}), Laplace(), r=0, delta=delta)
    assert got == pytest.approx(expected, rel=1e-6)


def test_cats_count_laplace_attains_the_bound():
    # COUNT of the cats whose (colour, gender) is the target, Laplace on the indicator:
    # for the target's own row the posterior reaches p e^eps/(p e^eps + 1 - p), the paper's bound,
    # so the exact epsilon is the paper's eps_lb = -ln(p/(1-p) (1/(delta+p) - 1)).
    delta = 0.1
    p = 0.125  # tabby female
    expected = -math.log(p / (1 - p) * (1 / (delta + p) - 1))
    got = exact_epsilon(CATS, Laplace(), r=0, delta=delta, target=("tabby", "F"))
    assert got == pytest.approx(expected, rel=1e-6)
    # the worst single-value target is black (p = 0.2): the paper's 0.539
    assert exact_epsilon(CATS, Laplace(), r=0, delta=delta) == pytest.approx(
        -math.log(0.2 / 0.8 * (1 / 0.3 - 1)), rel=1e-6)


def test_cats_count_other_row_closed_form():
    # truth t != target: Post({t} | y <= 0) = p_t / (p_T e^-eps + 1 - p_T)
    eps, pT, pt = 0.5, 0.125, 0.2
    res = exact_advantage(CATS, Laplace(), epsilon=eps, r=0, t=("black", "M"), target=("tabby", "F"),
                          sides="upper")
    assert res.advantage == pytest.approx(pt / (pT * math.exp(-eps) + 1 - pT) - pt, rel=1e-12)


def _mp_post(logprior, logkern, t, r, y, pts):
    with mpmath.workdps(30):
        f = lambda x: mpmath.exp(logprior(x) + logkern(y - x))  # noqa: E731
        num = mpmath.quad(f, [t - r, min(max(y, t - r), t + r), t + r])
        den = mpmath.quad(f, sorted({*pts, y}))
        return float(num / den)


@pytest.mark.parametrize("mech,y", [(Laplace(), 1676.8), (Laplace(), 2900.0), (GenCauchy(), 1086.0),
                                    (Gaussian(), 1500.0)], ids=lambda v: repr(v))
def test_normal_prior_posterior_against_mpmath(mech, y):
    mu, s, eps, t, r = 2000.0, 235.7, 0.0038, 1734.8, 100.0
    b = mech.scale(eps)
    kern = {
        "Laplace": lambda z: -abs(z) / b,
        "GenCauchy": lambda z: -mpmath.log(1 + (z / b) ** 4),
        "Gaussian": lambda z: -((z / b) ** 2) / 2,
    }[mech.name]
    expected = _mp_post(lambda x: -((x - mu) / s) ** 2 / 2, kern, t, r, y,
                        [-mpmath.inf, mu - 20 * s, mu, mu + 20 * s, mpmath.inf])
    got = posterior(Normal(mu, s), mech, epsilon=eps, r=r, t=t, y=y)
    assert got == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("mech", [Laplace(), Gaussian(), GenCauchy()], ids=repr)
def test_piecewise_uniform_posterior_against_mpmath(mech):
    prior = PiecewiseUniform([0.0, 1.0, 1.2, 6.0], [0.3, 0.4, 0.3])
    eps, t, r, y = 0.8, 1.5, 0.5, 0.4
    b = mech.scale(eps)
    kern = {"Laplace": lambda z: -abs(z) / b, "GenCauchy": lambda z: -mpmath.log(1 + (z / b) ** 4),
            "Gaussian": lambda z: -((z / b) ** 2) / 2}[mech.name]
    dens = {0: 0.3, 1: 0.4 / 0.2, 2: 0.3 / 4.8}

    def logprior(x):
        return mpmath.log(dens[0 if x < 1 else (1 if x < 1.2 else 2)])

    with mpmath.workdps(30):
        f = lambda x: mpmath.exp(logprior(x) + kern(y - x))  # noqa: E731
        num = mpmath.quad(f, [1.0, 1.2, 2.0])
        den = mpmath.quad(f, [0.0, y, 1.0, 1.2, 6.0])
    assert posterior(prior, mech, epsilon=eps, r=r, t=t, y=y) == pytest.approx(float(num / den), rel=1e-10)


def test_uniform_laplace_tail_limit_closed_form():
    # beyond the support the Laplace posterior is the prior tilted by e^{eps x}:
    # (e^{eps(t+r)} - e^{eps(t-r)}) / (e^{eps W} - 1)
    W, eps, t, r = 10.0, 0.4, 8.5, 1.0
    expected = (math.exp(eps * (t + r)) - math.exp(eps * (t - r))) / (math.exp(eps * W) - 1)
    prior = Uniform(0.0, W)
    assert posterior(prior, Laplace(), epsilon=eps, r=r, t=t, y=np.inf) == pytest.approx(expected, rel=1e-12)
    assert posterior(prior, Laplace(), epsilon=eps, r=r, t=t, y=11.0) == pytest.approx(expected, rel=1e-12)


def test_normal_laplace_limit_is_tilted_normal():
    # y -> +inf: the prior tilted by e^{eps x} is N(mu + eps sigma^2, sigma^2); compare with a
    # far but finite output computed by mpmath
    mu, s, eps, t, r = 0.0, 1.0, 0.7, 0.5, 0.3
    far = _mp_post(lambda x: -x * x / 2, lambda z: -eps * abs(z), t, r, 60.0,
                   [-mpmath.inf, -20, 0, 20, mpmath.inf])
    assert posterior(Normal(mu, s), Laplace(), epsilon=eps, r=r, t=t, y=np.inf) == pytest.approx(far, rel=1e-9)


def test_gaussian_normal_sup_closed_form():
    # Gaussian noise on a Normal prior: the posterior is N(m(y), v) with v = s^2 b^2/(s^2 + b^2);
    # its sup over y of the mass of [t-r, t+r] is 2 Phi(r / sqrt v) - 1 (at m = t); inf is 0.
    from scipy.stats import norm

    s, eps, t, r = 1.0, 1.0, 0.2, 0.4
    b = math.sqrt(2) / eps
    v = s * s * b * b / (s * s + b * b)
    p = norm.cdf(t + r) - norm.cdf(t - r)
    res = exact_advantage(Normal(0, s), Gaussian(), epsilon=eps, r=r, t=t)
    assert res.upper == pytest.approx(2 * norm.cdf(r / math.sqrt(v)) - 1 - p, rel=1e-8)
    assert res.lower == pytest.approx(p, rel=1e-12)


def test_gaussian_two_sided_is_infeasible():
    with pytest.raises(InfeasibleError, match="Gaussian"):
        exact_epsilon(Normal(0, 1), Gaussian(), r=0.5, delta=0.1, t=0.0)


def test_exact_never_exceeds_the_bound_at_the_sound_epsilon_for_salary():
    from garesearch.attribute import epsilon_for_attribute

    prior = Normal(2000.0, 235.7)
    eps = epsilon_for_attribute(prior, r=100, delta=0.1).epsilon
    res = exact_advantage(prior, Laplace(), epsilon=eps, r=100)
    assert res.advantage <= 0.1 + 1e-9


# --- Laplace: the supremum over outputs in closed form -----------------------------------------
# The posterior of X' = [t-r, t+r] under Laplace noise rises up to t-r, has a single maximum in
# [t-r, t+r] and falls after t+r, so its infimum is a limit y -> +-inf.  These tests maximise a
# posterior computed by scipy quadrature numerically (Brent in [t-r, t+r], a grid outside) instead.
def _quad_laplace_post(pdf, cuts, t, r, eps, y):
    """Laplace posterior of [t-r, t+r] at y by scipy quadrature, split at y, t-r, t+r and ``cuts``."""
    from scipy.integrate import quad

    pts = sorted({*cuts, y, t - r, t + r})
    f = lambda x: pdf(x) * math.exp(-eps * abs(y - x))  # noqa: E731
    parts = [(a, b, quad(f, a, b, epsabs=0, epsrel=1e-13, limit=200)[0]) for a, b in itertools.pairwise(pts)]
    num = sum(v for a, b, v in parts if a >= t - r and b <= t + r)
    return num / sum(v for _, _, v in parts)


def _numeric_sup(post, t, r, b):
    from scipy.optimize import minimize_scalar

    inside = minimize_scalar(lambda y: -post(y), bounds=(t - r, t + r), method="bounded",
                             options={"xatol": 1e-6 * (2 * r)})
    outside = [post(y) for y in np.concatenate([np.linspace(t - r - 8 * b, t - r, 7),
                                                np.linspace(t + r, t + r + 8 * b, 7)])]
    return max(-inside.fun, *outside), outside


@pytest.mark.parametrize("mu,s,t,r,eps", [(2000.0, 235.7, 1772.49, 100.0, 0.00193),
                                          (0.0, 1.0, -0.3, 0.5, 0.4), (0.0, 1.0, 1.9, 0.2, 3.0)])
def test_normal_laplace_sup_over_y_against_quadrature(mu, s, t, r, eps):
    from scipy.stats import norm

    cuts = [mu - 40 * s, mu, mu + 40 * s]
    c = s * math.sqrt(2 * math.pi)

    def pdf(x):  # (N(mu, s^2) in closed form: scipy's per point is slow under quad)
        return math.exp(-0.5 * ((x - mu) / s) ** 2) / c

    post = lambda y: _quad_laplace_post(pdf, cuts, t, r, eps, y)  # noqa: E731
    best, outside = _numeric_sup(post, t, r, 1 / eps)
    p = norm.cdf(t + r, mu, s) - norm.cdf(t - r, mu, s)
    res = exact_advantage(Normal(mu, s), Laplace(), epsilon=eps, r=r, t=t)
    assert res.upper == pytest.approx(best - p, rel=1e-9)
    assert t - r <= res.y_upper <= t + r
    # the infimum is the smaller limit: the mass of X' under the tilted normals N(mu -+ eps s^2, s^2)
    lims = [norm.cdf(t + r, mu + sg * eps * s * s, s) - norm.cdf(t - r, mu + sg * eps * s * s, s) for sg in (-1, 1)]
    assert res.lower == pytest.approx(p - min(lims), rel=1e-9)
    assert min(outside) >= min(lims) - 1e-12


def test_piecewise_uniform_laplace_sup_over_y_against_quadrature():
    edges, w = [0.0, 1.0, 1.2, 6.0], [0.3, 0.4, 0.3]
    eps = 0.8

    def pdf(x):
        return 0.0 if not 0 <= x <= 6 else (0.3 if x < 1 else (2.0 if x < 1.2 else 0.3 / 4.8))

    for t, r in [(1.5, 0.5), (0.7, 0.5), (0.2, 0.4), (5.5, 1.0)]:
        post = lambda y, t=t, r=r: _quad_laplace_post(pdf, edges, t, r, eps, y)  # noqa: E731
        best, _ = _numeric_sup(post, t, r, 1 / eps)
        res = exact_advantage(PiecewiseUniform(edges, w), Laplace(), epsilon=eps, r=r, t=t)
        assert res.upper + res.p == pytest.approx(best, rel=1e-9)
        # beyond the support the posterior is constant: the infimum is the smaller end value
        assert res.p - res.lower == pytest.approx(min(post(-1.0), post(7.0)), rel=1e-9)


def test_worst_t_dominates_every_t():
    # the worst case over t is at least the advantage at any given t (kinks of a piecewise-uniform
    # prior included: t +- r on an edge)
    for prior, r, eps in [(PiecewiseUniform([0, 1, 1.2, 6], [0.3, 0.4, 0.3]), 0.5, 0.1746),
                          (Normal(2000.0, 235.7), 100.0, 0.0019), (Uniform(0.0, 10.0), 1.0, 0.114)]:
        worst = exact_advantage(prior, Laplace(), epsilon=eps, r=r).advantage
        low, high = prior.support
        grid = np.linspace(max(low, 1000.0), min(high, 3000.0), 81)
        grid = np.concatenate([grid, [0.7, 0.2, 1.7]]) if high == 6 else grid
        for t in grid[(grid >= low) & (grid <= high)]:
            assert exact_advantage(prior, Laplace(), epsilon=eps, r=r, t=float(t)).advantage <= worst + 1e-14


def test_exact_epsilon_salary_crossing_certified_by_mpmath():
    # at the returned epsilon the worst posterior reaches p + delta; slightly above it, an output
    # whose mpmath posterior exceeds p + delta certifies the violation
    from scipy.stats import norm

    mu, s, r, delta = 2000.0, 235.7, 100.0, 0.1
    prior = Normal(mu, s)
    pts = [-mpmath.inf, mu - 30 * s, mu, mu + 30 * s, mpmath.inf]
    e = exact_epsilon(prior, Laplace(), r=r, delta=delta)
    for eps, sign in ((e, 0), (e * (1 + 1e-7), 1)):
        res = exact_advantage(prior, Laplace(), epsilon=eps, r=r)
        p = norm.cdf(res.t + r, mu, s) - norm.cdf(res.t - r, mu, s)
        post = _mp_post(lambda x: -((x - mu) / s) ** 2 / 2, lambda z, k=eps: -k * abs(z), res.t, r, res.y, pts)
        if sign == 0:
            assert post - p == pytest.approx(delta, abs=1e-10)
            assert post - p <= delta + 1e-12
        else:
            assert post - p > delta


def test_exact_epsilon_rtol_and_bracket():
    prior = Categorical({0: 0.3, 1: 0.7})
    expected = math.log(0.7 * 0.4 / (0.3 * 0.6))  # closed form of test_two_point_exact_epsilon_closed_form
    coarse = exact_epsilon(prior, Laplace(), r=0, delta=0.1, rtol=1e-3)
    assert expected / (1 + 1e-3) <= coarse <= expected
    assert exact_epsilon(prior, Laplace(), r=0, delta=0.1) == pytest.approx(expected, rel=1e-10)
    with pytest.raises(ParameterError, match="rtol"):
        exact_epsilon(prior, Laplace(), r=0, delta=0.1, rtol=0.5)


# --- the pointwise bound against the exact Laplace epsilon ---------------------------------------
# The pointwise bound holds for every eps-DP mechanism, Laplace included: its epsilon can never
# exceed Laplace's exact one.  exact_epsilon returns a value within rtol = 1e-10 below the crossing.
SWEEP_PRIORS = {
    "Normal(0, 1)": Normal(0.0, 1.0),
    "Normal(5, 2)": Normal(5.0, 2.0),
    "Uniform(0, 10)": Uniform(0.0, 10.0),
    "PiecewiseUniform": PiecewiseUniform([0.0, 1.0, 1.2, 6.0], [0.3, 0.4, 0.3]),
    "PiecewiseUniform, gap": PiecewiseUniform([0.0, 1.0, 2.0, 3.0], [0.5, 0.0, 0.5]),
    "atoms A": Categorical({0.0: 0.2, 1.0: 0.1, 2.5: 0.4, 4.0: 0.3}),
    "atoms B": Categorical({-1.0: 0.3, 0.0: 0.02, 2.0: 0.68}),
}
SWEEP_QUICK = [("Normal(0, 1)", 0.5, 0.1, "both"), ("Normal(5, 2)", 1.0, 0.3, "upper"),
               ("Uniform(0, 10)", 1.0, 0.02, "both"), ("PiecewiseUniform", 0.5, 0.1, "both"),
               ("PiecewiseUniform, gap", 0.1, 0.02, "both"), ("atoms A", 0.6, 0.1, "both"),
               ("atoms B", 1.0, 0.02, "upper")]
SWEEP_FULL = [(name, r, d, sides) for name in SWEEP_PRIORS for r in (0.1, 0.5, 1.0) for d in (0.02, 0.1, 0.3)
              for sides in ("both", "upper")]


def _check_pointwise_below_exact(name, r, delta, sides):
    prior = SWEEP_PRIORS[name]
    pw = epsilon_pointwise(prior, r=r, delta=delta, sides=sides).epsilon
    ex = exact_epsilon(prior, Laplace(), r=r, delta=delta, sides=sides)
    assert pw <= ex * (1 + 2e-10), (name, r, delta, sides, pw, ex)
    return pw, ex


@pytest.mark.parametrize("name,r,delta,sides", SWEEP_QUICK)
def test_pointwise_never_exceeds_exact_laplace(name, r, delta, sides):
    _check_pointwise_below_exact(name, r, delta, sides)


@pytest.mark.slow
@pytest.mark.parametrize("name,r,delta,sides", SWEEP_FULL)
def test_pointwise_never_exceeds_exact_laplace_full_sweep(name, r, delta, sides):
    _check_pointwise_below_exact(name, r, delta, sides)


@pytest.mark.parametrize("vals", [{0.0: 0.1, 1.0: 0.3, 2.0: 0.25, 5.0: 0.2, 9.0: 0.15},
                                  {0.0: 0.2, 1.0: 0.1, 2.5: 0.4, 4.0: 0.3},
                                  {-1.0: 0.3, 0.0: 0.02, 2.0: 0.68}])
@pytest.mark.parametrize("delta", [0.02, 0.1, 0.25])
def test_pointwise_equals_exact_laplace_at_r0(vals, delta):
    # r = 0, numeric atoms: Laplace at the output y = t makes every likelihood ratio f(y|x)/f(y|t)
    # equal to e^{-eps|x - t|}, which is the pointwise bound's worst case: the two epsilons agree,
    # at every true value and in the worst case.  Both sides: the pointwise one is never larger.
    prior = Categorical(vals)
    for t in [*vals, None]:
        pw = epsilon_pointwise(prior, r=0, delta=delta, t=t, sides="upper").epsilon
        ex = exact_epsilon(prior, Laplace(), r=0, delta=delta, t=t, sides="upper")
        if math.isinf(pw):
            assert math.isinf(ex)
        else:
            assert ex == pytest.approx(pw, rel=1e-9)
    assert epsilon_pointwise(prior, r=0, delta=delta).epsilon <= exact_epsilon(
        prior, Laplace(), r=0, delta=delta) * (1 + 2e-10)


# --- randomized response ----------------------------------------------------------------------------
# k-ary RR: Pr[y = x] = e^eps / (e^eps + k - 1), Pr[y = v] = 1 / (e^eps + k - 1) otherwise.  With
# u = e^eps - 1 and X' = {t} (p = pi(t)) the posterior after y is (p + u pi(y) 1{y in X'})/(1 + u pi(y)):
#   upper: y = t,          Post = p e^eps / (p e^eps + 1 - p)            -> eps = ln(1 + delta/(p (1-p-delta)))
#   lower: y = likeliest other value (mass m'), Post = p / (1 + u m')     -> eps = ln(1 + delta/(m' (p - delta)))
# The upper side is Sec. 3.2's eps_lb exactly; the lower side equals eps_ub only if m' = 1 - p (k = 2).
def _rr_closed(p, m_other, delta):
    up = math.log1p(delta / (p * (1 - p - delta))) if p + delta < 1 else math.inf
    low = math.log1p(delta / (m_other * (p - delta))) if p > delta else math.inf
    return up, low


def test_randomized_response_posterior_closed_form():
    prior, eps = Categorical({"a": 0.5, "b": 0.3, "c": 0.2}), 0.7
    u = math.expm1(eps)
    got = posterior(prior, RandomizedResponse(), epsilon=eps, r=0, t="b", y=["a", "b", "c"])
    expected = [0.3 / (1 + u * 0.5), (0.3 + u * 0.3) / (1 + u * 0.3), 0.3 / (1 + u * 0.2)]
    assert np.allclose(got, expected, rtol=1e-13, atol=0)
    res = exact_advantage(prior, RandomizedResponse(), epsilon=eps, r=0, t="b")
    assert res.upper == pytest.approx(expected[1] - 0.3, rel=1e-13)
    assert res.lower == pytest.approx(0.3 - expected[0], rel=1e-13)
    assert res.y_upper == "b" and res.y_lower == "a"


def test_randomized_response_is_tight_for_the_cats_colour_prior():
    # every colour has p <= 0.4 < 1/2: the upper side binds in Sec. 3.2 and RR attains it at every t
    from garesearch.bound import eps_lb, eps_ub

    colour = Categorical(COLOURS)
    for c, p in COLOURS.items():
        m_other = max(q for d, q in COLOURS.items() if d != c)
        up, low = _rr_closed(p, m_other, 0.1)
        got = exact_epsilon(colour, RandomizedResponse(), r=0, delta=0.1, t=c)
        assert got == pytest.approx(min(up, low), rel=1e-9)
        bound = min(float(eps_lb(delta=0.1, p=p)), float(eps_ub(delta=0.1, p=p)) if p > 0.1 else math.inf)
        assert got == pytest.approx(bound, rel=1e-9)  # tight
    # worst case: black, p = 0.4: ln(1 + 0.1/(0.4 * 0.5)) = ln 1.5
    assert exact_epsilon(colour, RandomizedResponse(), r=0, delta=0.1) == pytest.approx(math.log(1.5), rel=1e-9)


def test_randomized_response_lower_side_is_not_tight_beyond_two_values():
    from garesearch.bound import eps_ub

    prior = Categorical({"a": 0.7, "b": 0.2, "c": 0.1})
    up, low = _rr_closed(0.7, 0.2, 0.1)
    got = exact_epsilon(prior, RandomizedResponse(), r=0, delta=0.1, t="a")
    assert got == pytest.approx(min(up, low), rel=1e-9)
    assert got > 1.2 * float(eps_ub(delta=0.1, p=0.7))  # the bound's lower side binds and is loose
    two = Categorical({"a": 0.7, "b": 0.3})  # k = 2: m' = 1 - p and the bound is attained
    assert exact_epsilon(two, RandomizedResponse(), r=0, delta=0.1, t="a") == pytest.approx(
        float(eps_ub(delta=0.1, p=0.7)), rel=1e-9)


def test_randomized_response_or_event_closed_form():
    # cats OR event under RR on (colour, gender): X' = values sharing a component with t; the
    # posterior at y is (p + u pi(y) 1{y in X'})/(1 + u pi(y)) with p = Pr[X'], so the upper side
    # uses the likeliest value in X' (mass m_in) and the lower side the likeliest outside (m_out).
    # By hand over the five colours (gender M; F is symmetric): white 0.747, tortoise 0.778,
    # black 0.847, red 0.693, tabby 0.669: the worst is tabby M, p = 0.625, lower side.
    either = or_event(CATS)
    p, m_in, m_out = 0.625, 0.2, 0.2  # black M in X', black F the likeliest value outside
    up = math.log1p(0.1 / (m_in * (1 - p - 0.1)))
    low = math.log1p(0.1 / (m_out * (p - 0.1)))
    got = exact_epsilon(CATS, RandomizedResponse(), r=0, delta=0.1, correct=either)
    assert got == pytest.approx(min(up, low), rel=1e-9)
    assert low < up


def test_randomized_response_bad_input():
    with pytest.raises(ParameterError, match="Categorical"):
        exact_advantage(Normal(0, 1), RandomizedResponse(), epsilon=1.0, r=0.1)
    with pytest.raises(ParameterError, match="target"):
        exact_advantage(CATS, RandomizedResponse(), epsilon=1.0, r=0, target=("red", "M"))
    with pytest.raises(ParameterError, match="additive"):
        bayes_attacker_success(CATS, RandomizedResponse(), epsilon=1.0, r=0)
    with pytest.raises(ParameterError, match="y"):
        posterior(CATS, RandomizedResponse(), epsilon=1.0, r=0, t=("red", "M"), y="red")


# --- comparison table ---------------------------------------------------------------------------
def test_comparison_examples():
    rows = {row.label: row for row in comparison_table(("examples",))}
    assert len(rows) == 8
    black = -math.log(0.2 / 0.8 * (1 / 0.3 - 1))  # paper's 0.539 (Sec. 6.1)
    white_or = math.log(0.55 * 0.55 / (0.45 * 0.45))  # eps_ub(p = 0.55): the corrected 0.4013
    for label, value in [("cats AND, COUNT (worst value)", black), ("cats AND, randomized response", black),
                         ("cats colour, COUNT (worst value)", math.log(1.5)),
                         ("cats colour, randomized response", math.log(1.5)),
                         ("cats OR, COUNT of the correct guesses", white_or)]:
        row = rows[label]
        assert row.exact == pytest.approx(value, rel=1e-9)
        assert row.pointwise == pytest.approx(value, rel=1e-12)
        assert row.sound == pytest.approx(value, rel=1e-12)
    rr_or = rows["cats OR, randomized response"]
    assert rr_or.exact == pytest.approx(math.log1p(0.1 / (0.2 * 0.525)), rel=1e-9)
    assert rr_or.exact_over_pointwise == pytest.approx(math.log1p(0.1 / (0.2 * 0.525)) / white_or, rel=1e-9)
    for label in ("salary N(2000, 235.7), r = 100", "ships N(0, sqrt 1250), r = 10"):
        row = rows[label]
        assert row.exact >= row.pointwise >= row.sound  # each bound sound; pointwise the sharper
        assert 1.0 < row.exact_over_pointwise < 1.2
        assert row.exact_over_sound > 3
    assert "exact" in format_comparison(rows.values())


def test_compare_epsilons_agrees_with_the_parts():
    from garesearch.attribute import epsilon_for_attribute

    prior = Uniform(0.0, 10.0)
    row = compare_epsilons(prior, r=1.0, delta=0.1, label="u")
    assert row.sound == epsilon_for_attribute(prior, r=1.0, delta=0.1, construction="sound").epsilon
    assert row.paper == epsilon_for_attribute(prior, r=1.0, delta=0.1, construction="paper").epsilon
    assert row.pointwise == epsilon_pointwise(prior, r=1.0, delta=0.1).epsilon
    assert row.exact == pytest.approx(row.pointwise, rel=1e-9)  # Laplace attains the pointwise bound here
    with pytest.raises(ParameterError, match="sides"):
        compare_epsilons(prior, r=1.0, delta=0.1, sides="lower")


# --- Bayes attacker: exact success against closed forms and Monte Carlo ------------------------
def test_bayes_success_two_point_closed_form():
    # p = 1/2: the attacker guesses 1 iff y > 1/2; success = Pr[eta < 1/2] = 1 - e^{-eps/2}/2
    eps = 0.9
    res = bayes_attacker_success(Categorical({0: 0.5, 1: 0.5}), Laplace(), epsilon=eps, r=0)
    assert res["success"] == pytest.approx(1 - math.exp(-eps / 2) / 2, rel=1e-8)
    assert res["prior_success"] == 0.5


@pytest.mark.parametrize("prior,mech,eps,r,kw", [
    (Categorical({0.0: 0.2, 1.0: 0.1, 2.5: 0.4, 4.0: 0.3}), Laplace(), 0.8, 0.6, {}),
    (Categorical({0.0: 0.2, 1.0: 0.1, 2.5: 0.4, 4.0: 0.3}), GenCauchy(), 1.5, 0.6, {}),
    (CATS, Laplace(), 0.539, 0, {"target": ("black", "M")}),
    (Normal(0.0, 1.0), Laplace(), 1.0, 0.3, {}),
], ids=["atoms-laplace", "atoms-gencauchy", "cats-count", "normal-laplace"])
def test_monte_carlo_attacker_agrees_with_exact(prior, mech, eps, r, kw):
    exact = bayes_attacker_success(prior, mech, epsilon=eps, r=r, **kw)
    n = 4000 if isinstance(prior, Normal) else 20000
    mc = monte_carlo_attacker(prior, mech, epsilon=eps, r=r, n=n, seed=7, confidence=0.999, **kw)
    assert mc.low <= exact["success"] <= mc.high
    assert mc.prior_success == pytest.approx(exact["prior_success"], abs=1e-3)
    # the average gain never exceeds the worst-case (Def. 7) advantage
    worst = exact_advantage(prior, mech, epsilon=eps, r=r, sides="upper", **kw).advantage
    assert exact["advantage"] <= worst + 1e-9


# --- soundness -------------------------------------------------------------------------------
def test_counterexample_to_eq_main_by_hand():
    # atoms -1 (0.3), 0 (0.02), 2 (0.68); t = 0, r = 1, a = 2: p = 0.32, q = 0.68.
    # Eq. (main): eps = ln(q/(1-p)) + log1p(delta/p) + log1p(delta/(1-p-delta)), divided by a.
    # As y -> -inf the Laplace posterior of {-1, 0} is (0.3 e^eps + 0.02)/(0.3 e^eps + 0.02 + 0.68 e^-2eps).
    delta, p, q, a = 0.1, 0.32, 0.68, 2.0
    eps = (math.log(q / (1 - p)) + math.log1p(delta / p) + math.log1p(delta / (1 - p - delta))) / a
    post = (0.3 * math.exp(eps) + 0.02) / (0.3 * math.exp(eps) + 0.02 + 0.68 * math.exp(-2 * eps))
    assert post - p > delta  # the paper's bound fails
    found = [c for c in soundness_counterexamples() if c["delta"] == delta and c["mechanism"] == "Laplace()"]
    assert len(found) == 1
    assert found[0]["epsilon"] == pytest.approx(eps, rel=1e-12)
    assert found[0]["exact_advantage"] == pytest.approx(post - p, rel=1e-9)


def test_soundness_counterexamples_all_violate():
    cases = soundness_counterexamples()
    assert len(cases) >= 3
    assert all(c["exact_advantage"] > c["delta"] for c in cases)


def test_small_search_finds_paper_violation_and_none_for_sound():
    paper = soundness_search("paper", size="small")
    assert any(rec["violated"] for rec in paper)
    sound = soundness_search("sound", size="small")
    assert sound and not any(rec["violated"] for rec in sound)


@pytest.mark.slow
def test_large_search_sound_construction_is_sound():
    sound = soundness_search("sound", size="large")
    bad = [(r["label"], r["epsilon"], r["exact_advantage"], r["delta"]) for r in sound if r["violated"]]
    assert not bad


@pytest.mark.slow
@pytest.mark.parametrize("mech", [GenCauchy()], ids=repr)
def test_large_search_sound_with_gencauchy(mech):
    sound = soundness_search("sound", size="large", mechanism=mech)
    assert not any(r["violated"] for r in sound)


def test_bad_input():
    with pytest.raises(ParameterError, match="epsilon"):
        exact_advantage(Normal(0, 1), Laplace(), epsilon=-1.0, r=0.5)
    with pytest.raises(ParameterError, match="r must be < 1"):
        exact_advantage(CATS, Laplace(), epsilon=1.0, r=1.0, target=("red", "M"))
    with pytest.raises(ParameterError, match="target"):
        exact_advantage(CATS, Laplace(), epsilon=1.0, r=0, target=("pink", "M"))
    with pytest.raises(ParameterError, match="delta"):
        exact_epsilon(Normal(0, 1), Laplace(), r=0.5, delta=1.5)


# --- the worst true value over heavy tails (t=None reaches both ends) -------------------------
def _mp_laplace_upper(pdf, low, t, r, k, bulk):
    """sup_y Post[B(t, r) | y] - p_t for Laplace noise of rate k, by mpmath quadrature at 30
    digits (split at the kinks and the bulk) and a golden-section search over y in [t-r, t+r]
    (the posterior is unimodal there and increases left of it, decreases right of it)."""
    lo, h = mpmath.mpf(t) - r, mpmath.mpf(t) + r

    def integral(a, b, y):
        pts = sorted({mpmath.mpf(v) for v in (a, b, *bulk, lo - 20 / k, lo - 2 / k, h + 2 / k,
                                              h + 20 / k, y) if a <= v <= b})
        return mpmath.quad(lambda x: pdf(x) * mpmath.exp(-k * abs(y - x)), pts)

    def post(y):
        n = integral(lo, h, y)
        return n / (n + integral(low, lo, y) + integral(h, mpmath.inf, y))

    g = (mpmath.sqrt(5) - 1) / 2
    a, b = lo, h
    x1, x2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = post(x1), post(x2)
    while b - a > 1e-4 / k:
        if f1 < f2:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (b - a)
            f2 = post(x2)
        else:
            b, x2, f2 = x2, x1, f1
            x1 = b - g * (b - a)
            f1 = post(x1)
    return max(f1, f2) - mpmath.quad(pdf, [max(low, lo), t, h])


def _lognorm_pdf(x):  # scipy.stats.lognorm(0.5, scale=2000)
    if x <= 0:
        return mpmath.mpf(0)
    return mpmath.exp(-mpmath.log(x / 2000) ** 2 / 0.5) / (x * 0.5 * mpmath.sqrt(2 * mpmath.pi))


def _t3_pdf(x):  # scipy.stats.t(3, loc=2000, scale=1000)
    z = (x - 2000) / mpmath.mpf(1000)
    return 2 * mpmath.sqrt(3) / (mpmath.pi * (3 + z * z) ** 2) / 1000


@pytest.mark.parametrize("name", sample(["lognorm", "t3"], 1))
def test_exact_epsilon_covers_the_far_tails(name):
    """Issue-13 defect: the worst true value of a heavy-tailed prior lies beyond every quantile
    grid (the Laplace posterior of B(t, r) tends to 1 - e^{-eps r} as t -> infinity).  At the
    returned epsilon the advantage at far t, by mpmath quadrature, stays within delta, and the
    package agrees with it there; at epsilon (1 + 1e-4) a far t exceeds delta.  (The default
    run checks the log-normal; the full run adds Student's t, about 10 s each.)"""
    import scipy.stats

    from garesearch.priors import Continuous

    if name == "lognorm":
        prior, pdf, low, bulk = Continuous(scipy.stats.lognorm(0.5, scale=2000)), _lognorm_pdf, 0, [2000, 5000]
        far = [6e4, 4.6e5]
        beyond = 1e8
    else:
        prior, pdf, low, bulk = Continuous(scipy.stats.t(3, loc=2000, scale=1000)), _t3_pdf, -mpmath.inf, [2000]
        far = [-1e5, 4.6e5]
        beyond = -1e8
    eps = exact_epsilon(prior, Laplace(), r=100, delta=0.1)
    with mpmath.workdps(30):
        for t in far:
            mp = _mp_laplace_upper(pdf, low, t, 100, mpmath.mpf(eps), bulk)
            assert mp <= 0.1
            got = exact_advantage(prior, Laplace(), epsilon=eps, r=100, t=t, sides="upper").advantage
            assert got == pytest.approx(float(mp), abs=1e-6)
        assert _mp_laplace_upper(pdf, low, beyond, 100, mpmath.mpf(eps) * (1 + mpmath.mpf("1e-4")), bulk) > 0.1
