"""The optimal epsilon (garesearch.optimal) against routes written independently of it.

- mpmath at 40 digits: the normal prior's kernel posteriors in closed form, and the optimality
  conditions (stationary in t and c, advantage = delta) solved with findroot;
- quadrature of the Laplace / inverted-kernel posterior (scipy.integrate.quad and mpmath.quad),
  maximised over the kernel centre by a dense search;
- Sec. 3.2's closed forms for the discrete metric;
- the exact advantage of the Laplace mechanism (garesearch.exact), which attains the upper side.
"""

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats
from sweeps import sample

import garesearch as ga
from garesearch.optimal import epsilon_optimal, posterior_extremes
from garesearch.priors import Categorical, Continuous, Normal, PiecewiseUniform, Uniform

SALARY = dict(mu=2000, sigma=235.7, r=100, delta=0.1)


# ------------------------------------------------------------------------------------------
# the normal prior in mpmath: kernel posteriors in closed form
# ------------------------------------------------------------------------------------------
def _mp_normal_integral(k, a, b, mu, s):
    """int_a^b e^{k u} dN(mu, s^2)(u)."""
    return mpmath.exp(k * mu + k * k * s * s / 2) * (
        mpmath.ncdf((b - mu - k * s * s) / s) - mpmath.ncdf((a - mu - k * s * s) / s)
    )


def _mp_advantage(t, c, e, side="upper", mu=SALARY["mu"], s=SALARY["sigma"], r=SALARY["r"]):
    mu, s, r = mpmath.mpf(mu), mpmath.mpf(s), mpmath.mpf(r)
    lo, hi = t - r, t + r
    sign = 1 if side == "upper" else -1  # kernel e^{-sign e |u - c|}
    k = sign * e
    inside = mpmath.exp(-k * c) * _mp_normal_integral(k, lo, c, mu, s) + mpmath.exp(k * c) * _mp_normal_integral(-k, c, hi, mu, s)
    outside = mpmath.exp(-k * c) * _mp_normal_integral(k, -mpmath.inf, lo, mu, s) + mpmath.exp(k * c) * _mp_normal_integral(-k, hi, mpmath.inf, mu, s)
    p = mpmath.ncdf((hi - mu) / s) - mpmath.ncdf((lo - mu) / s)
    post = inside / (inside + outside)
    return post - p if side == "upper" else p - post


def _mp_optimum(t0, c0, e0, side="upper", **kw):
    """Solve d adv/dt = 0, d adv/dc = 0, adv = delta at 40 digits."""
    delta = mpmath.mpf(SALARY["delta"])

    def system(t, c, e):
        return [
            mpmath.diff(lambda x: _mp_advantage(x, c, e, side, **kw), t),
            mpmath.diff(lambda y: _mp_advantage(t, y, e, side, **kw), c),
            _mp_advantage(t, c, e, side, **kw) - delta,
        ]

    return mpmath.findroot(system, (mpmath.mpf(t0), mpmath.mpf(c0), mpmath.mpf(e0)))


def test_salary_optimum_matches_the_optimality_conditions_at_40_digits():
    res = epsilon_optimal(Normal(SALARY["mu"], SALARY["sigma"]), r=SALARY["r"], delta=SALARY["delta"])
    assert res.binding == "upper"
    with mpmath.workdps(40):
        t, c, e = _mp_optimum(res.t, res.centre, res.epsilon)
        assert res.epsilon == pytest.approx(float(e), rel=1e-12)
        # the worst true value and the Laplace output (two mirror images around mu)
        assert res.t == pytest.approx(float(t), abs=1e-4)
        assert res.centre == pytest.approx(float(c), abs=1e-4)
        # the paper's issue-table value
        assert float(e) == pytest.approx(0.0019252, abs=5e-8)
        # optimality: at epsilon (1 + 1e-6) this Laplace output exceeds delta
        assert _mp_advantage(t, c, e * (1 + mpmath.mpf("1e-6"))) > SALARY["delta"]


def test_salary_lower_side_matches_its_optimality_conditions():
    res = epsilon_optimal(Normal(SALARY["mu"], SALARY["sigma"]), r=SALARY["r"], delta=SALARY["delta"], sides="lower")
    assert res.binding == "lower"
    with mpmath.workdps(40):
        _t, _c, e = _mp_optimum(res.t, res.centre, res.epsilon, side="lower")
    assert res.epsilon == pytest.approx(float(e), rel=1e-12)
    assert res.epsilon > 0.0019252  # the upper side binds for salary
    both = epsilon_optimal(Normal(SALARY["mu"], SALARY["sigma"]), r=SALARY["r"], delta=SALARY["delta"])
    assert both.epsilon_lower == pytest.approx(float(e), rel=1e-12)


# ------------------------------------------------------------------------------------------
# kernel posteriors by quadrature, maximised over the centre by a dense search
# ------------------------------------------------------------------------------------------
def _quad_posterior(logpdf, t, r, c, e, sign, support=(-40.0, 40.0), points=()):
    def w(u):
        return math.exp(-sign * e * abs(u - c) + logpdf(u))

    lo, hi = t - r, t + r
    cuts = sorted({lo, hi, c, *points})
    a, b = support
    pieces = [a, *[x for x in cuts if a < x < b], b]
    parts = [integrate.quad(w, x0, x1, limit=200, epsabs=0, epsrel=1e-13)[0] for x0, x1 in itertools.pairwise(pieces)]
    inside = sum(v for v, x0, x1 in zip(parts, pieces[:-1], pieces[1:], strict=True) if x0 >= lo and x1 <= hi)
    return inside / sum(parts)


@pytest.mark.parametrize("t", sample([0.0, 0.7, 2.5], 2))
def test_posterior_extremes_match_dense_quadrature(t):
    """The centre of the prior and a true value out in the tail (the full run adds t = 0.7)."""
    from scipy.optimize import minimize_scalar

    prior, r, e = Normal(0, 1), 0.5, 1.3
    log_c = math.log(math.sqrt(2 * math.pi))

    def pdf(u):  # scipy.stats.norm.logpdf, the same floats, without its per-call overhead
        return -(u * u) / 2.0 - log_c

    def extreme(sign):
        # a grid of centres, then a bounded scalar search around the best
        cs = np.linspace(t - r, t + r, 21)
        vals = [sign * _quad_posterior(pdf, t, r, c, e, sign) for c in cs]
        i = int(np.argmax(vals))
        a, b = cs[max(i - 1, 0)], cs[min(i + 1, 20)]
        opt = minimize_scalar(lambda c: -sign * _quad_posterior(pdf, t, r, c, e, sign), bounds=(a, b),
                              method="bounded", options={"xatol": 1e-9})
        return sign * max(vals[i], -opt.fun)

    up, low = extreme(+1), extreme(-1)
    ext = posterior_extremes(prior, t=t, r=r, epsilon=e)
    assert ext["upper"] == pytest.approx(up, abs=1e-11)
    assert ext["lower"] == pytest.approx(low, abs=1e-11)
    # and at the centres found, quadrature gives the same posteriors
    assert _quad_posterior(pdf, t, r, ext["upper_centre"], e, +1) == pytest.approx(ext["upper"], rel=1e-10)
    assert _quad_posterior(pdf, t, r, ext["lower_centre"], e, -1) == pytest.approx(ext["lower"], rel=1e-10)


def test_no_mechanism_beats_the_kernels_among_random_lipschitz_likelihoods():
    """Random eps-Lipschitz log-likelihoods (piecewise linear, slopes in [-eps, eps]) never
    give a posterior outside [lower, upper] (quadrature on a fine grid)."""
    prior, t, r, e = Normal(0, 1), 0.4, 0.5, 1.1
    ext = posterior_extremes(prior, t=t, r=r, epsilon=e)
    rng = np.random.default_rng(7)
    x = np.linspace(-9, 9, 36001)
    dens = stats.norm.pdf(x)
    inside = np.abs(x - t) <= r
    for _ in range(300):
        slopes = rng.uniform(-e, e, x.size - 1)
        knots = rng.random(x.size - 1) < 0.002
        slopes = np.where(knots, rng.choice([-e, e], x.size - 1), slopes)
        logl = np.concatenate([[0.0], np.cumsum(slopes * np.diff(x))])
        w = np.exp(logl - logl.max()) * dens
        post = np.trapezoid(w * inside, x) / np.trapezoid(w, x)
        assert ext["lower"] - 1e-6 <= post <= ext["upper"] + 1e-6


# ------------------------------------------------------------------------------------------
# the Laplace mechanism attains the upper side; the optimum is never above its exact epsilon
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("prior", "r", "delta"),
    [
        (Uniform(0, 1000), 50, 0.1),
        (PiecewiseUniform([0, 1, 3, 10], [0.2, 0.5, 0.3]), 0.5, 0.1),
        (Normal(0, 1), 0.2, 0.01),
        (Categorical({0.0: 0.1, 1.0: 0.3, 2.5: 0.2, 7.0: 0.25, 9.0: 0.15}), 1.0, 0.1),
    ],
)
def test_upper_side_equals_the_exact_laplace_epsilon(prior, r, delta):
    opt = epsilon_optimal(prior, r=r, delta=delta, sides="upper")
    lap = ga.exact_epsilon(prior, ga.Laplace(), r=r, delta=delta, sides="upper")
    lap = getattr(lap, "epsilon", lap)
    assert opt.epsilon == pytest.approx(lap, rel=1e-9)
    both = epsilon_optimal(prior, r=r, delta=delta)
    lap_both = ga.exact_epsilon(prior, ga.Laplace(), r=r, delta=delta)
    lap_both = getattr(lap_both, "epsilon", lap_both)
    assert both.epsilon <= lap_both * (1 + 1e-9)


def test_the_optimum_is_never_below_the_sound_bounds():
    prior = Normal(SALARY["mu"], SALARY["sigma"])
    opt = epsilon_optimal(prior, r=100, delta=0.1).epsilon
    assert opt >= ga.epsilon_pointwise(prior, r=100, delta=0.1).epsilon
    assert opt >= ga.epsilon_for_attribute(prior, r=100, delta=0.1, construction="sound").epsilon


# ------------------------------------------------------------------------------------------
# the discrete metric: Sec. 3.2's closed forms are attained
# ------------------------------------------------------------------------------------------
def test_discrete_metric_cats():
    cats = Categorical({"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05})
    res = epsilon_optimal(cats, r=0, delta=0.1)
    # worst value black, p = 0.4: posterior p e^eps / (p e^eps + 1 - p) = 0.5 -> eps = ln 1.5
    assert res.t == "black" and res.binding == "upper"
    assert res.epsilon == pytest.approx(math.log(1.5), rel=1e-14)
    # lower side at black: p / (p + (1 - p) e^eps) = 0.3 -> eps = ln(0.7 * 0.4 / (0.3 * 0.6))
    assert res.epsilon_lower == pytest.approx(math.log(0.7 * 0.4 / (0.3 * 0.6)), rel=1e-14)


# ------------------------------------------------------------------------------------------
# far tails: the log-normal defect, heavy tails
# ------------------------------------------------------------------------------------------
_LN_S, _LN_SCALE = 0.5, 2000.0
LOGNORM = stats.lognorm(_LN_S, scale=_LN_SCALE)


def _lognormal_max_advantage(t, r, e):
    """Largest upper advantage at t over Laplace outputs c in [t - r, t + r]: the posterior by
    scipy quadrature of e^{-e|u - c|} times the log-normal density (pieces of 4/e), the
    centre by a bounded scalar search from the best of 9 grid points."""
    from scipy.optimize import minimize_scalar

    lo, hi = t - r, t + r
    p = LOGNORM.sf(lo) - LOGNORM.sf(hi)

    def post(c):
        def w(u):  # the log-normal density in closed form (scipy's logpdf per point is slow)
            if u <= 0:
                return 0.0
            z = math.log(u / _LN_SCALE) / _LN_S
            return math.exp(-e * abs(u - c) - 0.5 * z * z - math.log(u * _LN_S * math.sqrt(2 * math.pi)))

        steps = [lo - j / e for j in (60, 40, 25, 15, 8, 4, 2)] + [lo, c, hi] + [hi + j / e for j in (2, 4, 8, 15, 25, 40, 60)]
        pts = [0.0, *sorted(x for x in set(steps) if x > 0)]
        parts = [integrate.quad(w, a, b, epsabs=0, epsrel=1e-12, limit=100)[0] for a, b in itertools.pairwise(pts)]
        tail = integrate.quad(w, pts[-1], np.inf, epsabs=0, epsrel=1e-10, limit=100)[0]
        inside = sum(v for v, a, b in zip(parts, pts[:-1], pts[1:], strict=True) if a >= lo and b <= hi)
        return inside / (sum(parts) + tail)

    cs = np.linspace(lo, hi, 9)
    vals = [post(c) for c in cs]
    i = int(np.argmax(vals))
    opt = minimize_scalar(lambda c: -post(c), bounds=(cs[max(i - 1, 0)], cs[min(i + 1, 8)]), method="bounded",
                          options={"xatol": 1e-5 * r})
    return max(vals[i], -opt.fun) - p


def test_lognormal_defect_is_fixed():
    prior = Continuous(LOGNORM)
    limit = -math.log1p(-0.1) / 100  # heavy tail: the far-tail limit 1 - e^{-eps r} = delta
    res = epsilon_optimal(prior, r=100, delta=0.1, sides="upper")
    assert res.far_tail and math.isinf(res.t)
    assert res.epsilon == pytest.approx(limit, rel=1e-9)
    assert res.epsilon <= limit
    # the old answer 1.1184e-3 lets a Laplace output exceed delta far out; the new one does not,
    # at the true values and at tail masses 1e-15 and 1e-25 (the full run: all four)
    assert _lognormal_max_advantage(6e4, 100, 1.1184e-3) > 0.1
    for t in sample((6e4, 4.6e5, float(LOGNORM.isf(1e-15)), float(LOGNORM.isf(1e-25))), 2):
        assert _lognormal_max_advantage(t, 100, res.epsilon) <= 0.1
    # optimality: slightly above, a far true value exceeds delta
    assert _lognormal_max_advantage(1e9, 100, res.epsilon * 1.001) > 0.1


def test_heavy_tails_make_the_lower_side_infeasible():
    prior = Continuous(stats.t(3))
    with pytest.raises(ga.InfeasibleError, match="sides='upper'"):
        epsilon_optimal(prior, r=1.0, delta=0.1)


@pytest.mark.parametrize(("dist", "r"), sample([(stats.weibull_min(0.95), 0.5), (stats.t(3), 1.0)], 1),
                         ids=lambda v: getattr(getattr(v, "dist", None), "name", str(v)))
def test_heavy_tails_leave_the_upper_side_feasible(dist, r):
    """The upper side over a heavy tail: below its far-tail limit 1 - e^{-eps r} = delta
    (the full run adds t(3), about 20 s)."""
    up = epsilon_optimal(Continuous(dist), r=r, delta=0.1, sides="upper")
    assert 0 < up.epsilon <= -math.log1p(-0.1) / r


# ------------------------------------------------------------------------------------------
# no noise needed, bad input
# ------------------------------------------------------------------------------------------
def test_no_noise_needed_is_inf():
    res = epsilon_optimal(Categorical({"a": 0.5, "b": 0.5}), r=0, delta=0.5)
    assert math.isinf(res.epsilon) and res.binding == "none" and res.laplace_scale() == 0.0
    res = epsilon_optimal(Categorical({0.0: 0.5, 1.0: 0.5}), r=1.0, delta=0.1)
    assert math.isinf(res.epsilon)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(r=0.0, delta=0.1), "r must be > 0"),
        (dict(r=-1.0, delta=0.1), "r must be >= 0"),
        (dict(r=1.0, delta=1.0), "delta must lie in"),
        (dict(r=1.0, delta=0.1, sides="up"), "sides must be one of"),
        (dict(r=1.0, delta=0.1, t=math.inf), "t must be a finite number"),
        (dict(r=1.0, delta=float("nan")), "delta must be a finite"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ga.ParameterError, match=match):
        epsilon_optimal(Normal(0, 1), **kwargs)


def test_the_inverted_kernel_binds_where_no_laplace_output_does():
    """Values -1, 0, 1 with masses 0.15, 0.7, 0.15, r = 0, t = 0.  The inverted kernel
    e^{eps|x|} gives V = 0.7 / (0.7 + 0.3 e^eps): the loss reaches delta = 0.1 at
    eps = ln(0.7 * 0.4 / (0.6 * 0.3)).  The Laplace mechanism's outputs only reach
    0.7 / (0.7 + 0.3 cosh eps) below, and its gain binds first, at -ln(0.7 * 0.2 / (0.8 * 0.3))."""
    three = Categorical({-1.0: 0.15, 0.0: 0.7, 1.0: 0.15})
    res = epsilon_optimal(three, r=0, delta=0.1)
    assert res.binding == "lower" and res.centre == 0.0 and res.t == 0.0
    assert res.epsilon == pytest.approx(math.log(0.7 * 0.4 / (0.6 * 0.3)), rel=1e-12)
    assert res.epsilon_upper == pytest.approx(-math.log(0.7 * 0.2 / (0.8 * 0.3)), rel=1e-12)
    lap = ga.exact_epsilon(three, ga.Laplace(), r=0, delta=0.1)
    assert getattr(lap, "epsilon", lap) == pytest.approx(-math.log(0.7 * 0.2 / (0.8 * 0.3)), rel=1e-9)
