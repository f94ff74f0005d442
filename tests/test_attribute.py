"""Sec. 4.1: epsilon_for_attribute, checked against brute force and against the exact posterior
of a Laplace mechanism computed by numerical integration."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats
from sweeps import sample

import garesearch as ga
from garesearch.constructions.counterexamples import paper_counterexample
from garesearch.errors import InfeasibleError, ParameterError
from garesearch.priors import Categorical, Continuous, Normal, PiecewiseUniform, Uniform

COLOUR = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}


def printed_eq_main(p, q, d, a):
    """Eq. (main) as printed in the paper (typed here, independent of the package)."""
    return -math.log(p / q * (1 / (d + p) - 1)) / a


# --- exact posterior of the Laplace mechanism, by numerical integration --------------------
def laplace_posterior(pdf, lo_s, hi_s, t, r, eps, y):
    """Pr[|X - t| <= r | Laplace(y; X, 1/eps)] by quadrature over the prior density."""
    w = lambda x: math.exp(-eps * abs(y - x)) * pdf(x)  # noqa: E731
    pts = sorted({min(max(v, lo_s), hi_s) for v in (y, t - r, t + r)})
    num = integrate.quad(w, max(t - r, lo_s), min(t + r, hi_s), points=[p for p in pts if max(t - r, lo_s) < p < min(t + r, hi_s)], limit=200, epsabs=0, epsrel=1e-11)[0]
    edges = [lo_s, *pts, hi_s]
    den = sum(integrate.quad(w, a, b, limit=200, epsabs=0, epsrel=1e-11)[0] for a, b in itertools.pairwise(edges) if b > a)
    return num / den


def check_laplace_sound(prior, pdf, lo_s, hi_s, res, ys):
    p = res.p
    posts = [laplace_posterior(pdf, lo_s, hi_s, res.t, res.r, res.epsilon, y) for y in ys]
    assert max(posts) <= p + res.delta + 1e-9
    assert min(posts) >= p - res.delta - 1e-9
    return posts


def test_normal_salary_sound_against_integration():
    prior = Normal(2000, 235.7)
    res = ga.epsilon_for_attribute(prior, r=100, delta=0.1, construction="sound")
    assert res.epsilon > 0 and math.isfinite(res.epsilon)
    c = 235.7 * math.sqrt(2 * math.pi)

    def pdf(x):  # (N(2000, 235.7^2) in closed form: scipy's per point is slow)
        return math.exp(-0.5 * ((x - 2000) / 235.7) ** 2) / c

    ys = np.concatenate([np.linspace(-6000, 10000, 41), [res.t, res.t - 100, res.t + 100]])
    check_laplace_sound(prior, pdf, 2000 - 40 * 235.7, 2000 + 40 * 235.7, res, ys)
    # y -> +inf limit: the posterior weights tend to e^{eps x} phi(x), i.e. N(mu + eps s^2, s^2)
    m = 2000 + res.epsilon * 235.7**2
    lim = stats.norm(m, 235.7).cdf(res.t + 100) - stats.norm(m, 235.7).cdf(res.t - 100)
    assert lim <= res.p + 0.1 + 1e-12


def test_normal_fixed_t_upper_side_closed_form():
    """For t = mu the sound comparison set is {r < |x - t| <= a} with exponent a + r."""
    res = ga.epsilon_for_attribute(Normal(2000, 235.7), r=100, delta=0.1, t=2000, sides="upper", construction="sound")
    s2 = 235.7 * math.sqrt(2)
    p = math.erf(100 / s2)
    assert res.p == pytest.approx(p, rel=1e-12)
    assert res.q == pytest.approx(math.erf(res.a / s2) - p, rel=1e-10)
    assert res.distance == pytest.approx(res.a + 100, rel=1e-12)
    assert res.epsilon == pytest.approx(printed_eq_main(p, res.q, 0.1, res.distance), rel=1e-10)
    # the optimum over a: a dense mpmath search of the printed formula with exponent a + r
    with mpmath.workdps(30):
        def f(a):
            a = mpmath.mpf(a)
            q = mpmath.erf(a / mpmath.mpf(s2)) - p
            return -mpmath.log(p / q * (1 / (mpmath.mpf("0.1") + p) - 1)) / (a + 100)
        grid = np.linspace(res.a - 5, res.a + 5, 2001)
        best = max(f(a) for a in grid)
    assert res.epsilon >= float(best) * (1 - 1e-12)
    assert res.epsilon == pytest.approx(float(best), rel=1e-8)


def test_uniform_corner_and_interior_by_brute_force():
    W, r, d = 10.0, 1.0, 0.1
    prior = Uniform(0, W)
    # interior t=5: p = 2r/W, comparison radius a in (r, 5], q = 2(a-r)/W, exponent a + r
    res = ga.epsilon_for_attribute(prior, r=r, delta=d, t=5.0, sides="upper", construction="sound")
    aa = np.linspace(1.0001, 5, 40001)
    brute = max(printed_eq_main(0.2, 2 * (a - r) / W, d, a + r) for a in aa if 2 * (a - r) / W > 0.2 * 0.7 / 0.3)
    assert res.epsilon == pytest.approx(brute, rel=1e-6)
    assert res.epsilon >= brute * (1 - 1e-12)
    # corner t = 0: X' = [0, r], p = r/W; comparison (r, D], q = (D - r)/W, exponent D
    res0 = ga.epsilon_for_attribute(prior, r=r, delta=d, t=0.0, sides="upper", construction="sound")
    assert res0.p == pytest.approx(0.1)
    DD = np.linspace(1.0001, 10, 90001)
    brute0 = max(printed_eq_main(0.1, (D - r) / W, d, D) for D in DD if (D - r) / W > 0.1 * 0.8 / 0.2)
    assert res0.epsilon == pytest.approx(brute0, rel=1e-6)


def test_uniform_sound_against_integration_worst_t():
    prior = Uniform(0, 10)
    res = ga.epsilon_for_attribute(prior, r=1, delta=0.1)
    pdf = lambda x: 0.1 if 0 <= x <= 10 else 0.0  # noqa: E731
    check_laplace_sound(prior, pdf, 0.0, 10.0, res, np.linspace(-200, 210, 83))


def test_categorical_numeric_against_exact_sum():
    vals = {0: 0.1, 1: 0.3, 2: 0.25, 5: 0.2, 9: 0.15}
    prior = Categorical(vals)
    res = ga.epsilon_for_attribute(prior, r=1, delta=0.1)
    x = np.array(list(vals)), np.array(list(vals.values()))
    inside = np.abs(x[0] - res.t) <= 1
    for y in np.linspace(-300, 300, 1201):
        w = x[1] * np.exp(-res.epsilon * np.abs(y - x[0]))
        post = w[inside].sum() / w.sum()
        assert res.p - 0.1 - 1e-12 <= post <= res.p + 0.1 + 1e-12


def test_discrete_metric_worst_case_closed_form():
    prior = Categorical(COLOUR)
    res = ga.epsilon_for_attribute(prior, r=0, delta=0.1)
    ref = min(
        min(math.log((1 - p) * (p + 0.1) / (p * (0.9 - p))),
            math.log(p * (1.1 - p) / ((1 - p) * (p - 0.1))) if p > 0.1 else math.inf)
        for p in COLOUR.values()
    )
    assert res.epsilon == pytest.approx(ref, rel=1e-14)
    assert res.t == "black" and res.p == pytest.approx(0.4)


def test_cats_and_event_joint_prior():
    joint = Categorical({(g, c): 0.5 * pc for g in "MF" for c, pc in COLOUR.items()})
    res = ga.epsilon_for_attribute(joint, r=0, delta=0.1)
    assert res.epsilon == pytest.approx(0.5390, abs=5e-5)
    assert res.t[1] == "black" and res.p == pytest.approx(0.2)
    assert res.laplace_scale() == pytest.approx(1.855, abs=5e-4)
    assert res.laplace_scale(sensitivity=2) == pytest.approx(2 * 1.855, abs=1e-3)


def test_piecewise_and_scipy_priors_agree_with_uniform():
    u = ga.epsilon_for_attribute(Uniform(0, 10), r=1, delta=0.1, t=3.0, construction="sound")
    pw = ga.epsilon_for_attribute(PiecewiseUniform([0, 4, 10], [0.4, 0.6]), r=1, delta=0.1, t=3.0, construction="sound")
    sc = ga.epsilon_for_attribute(Continuous(stats.uniform(0, 10)), r=1, delta=0.1, t=3.0, construction="sound")
    assert pw.epsilon == pytest.approx(u.epsilon, rel=1e-9)
    assert sc.epsilon == pytest.approx(u.epsilon, rel=1e-7)
    # the upper side by brute force: X' = [2, 4], p = 0.2; the points of [0, 10] within D of
    # all of X' outside it are [4 - D, 2) and (4, 2 + D], cut at 0 and 10; exponent D
    DD = np.linspace(2.0001, 8, 60001)
    q = (np.minimum(DD - 2, 2) + np.minimum(DD - 2, 6)) / 10
    ok = q > 0.2 * 0.7 / 0.3
    brute = max(printed_eq_main(0.2, qq, 0.1, D) for qq, D in zip(q[ok], DD[ok], strict=True))
    for prior in (Uniform(0, 10), PiecewiseUniform([0, 4, 10], [0.4, 0.6]), Continuous(stats.uniform(0, 10))):
        up = ga.epsilon_for_attribute(prior, r=1, delta=0.1, t=3.0, sides="upper", construction="sound")
        assert up.epsilon == pytest.approx(brute, rel=1e-6)


@pytest.mark.parametrize("sides", sample(["upper", "both"], 1))
def test_continuous_normal_agrees_with_normal(sides):
    """The upper side binds at t = 0.2 (the full run adds both sides, about 3 s)."""
    a = ga.epsilon_for_attribute(Normal(0, 1), r=0.3, delta=0.1, t=0.2, sides=sides)
    b = ga.epsilon_for_attribute(Continuous(stats.norm(0, 1)), r=0.3, delta=0.1, t=0.2, sides=sides)
    assert b.epsilon == pytest.approx(a.epsilon, rel=1e-6)


def test_worst_t_is_no_worse_than_any_t():
    prior = Normal(0, 1)
    worst = ga.epsilon_for_attribute(prior, r=0.2, delta=0.05)
    for t in sample(np.linspace(-3, 3, 25), 9):  # all 25 in the full run
        assert worst.epsilon <= ga.epsilon_for_attribute(prior, r=0.2, delta=0.05, t=float(t)).epsilon * (1 + 1e-9)


def test_paper_construction_reproduces_eq_main():
    """construction='paper': q = g(a) - g(r) and exponent a (Eq. (main))."""
    res = ga.epsilon_for_attribute(Normal(2000, 235.7), r=100, delta=0.1, t=2000, construction="paper", sides="upper")
    s2 = 235.7 * math.sqrt(2)
    p = math.erf(100 / s2)
    assert res.distance == res.a
    assert res.epsilon == pytest.approx(printed_eq_main(p, math.erf(res.a / s2) - p, 0.1, res.a), rel=1e-10)


def test_paper_counterexample_violates_bound():
    ce = paper_counterexample()
    # exact posterior, recomputed here: mass p at -r, q at a, rest at 1000a; output y = -50a
    p, q, r, a, d = 0.2, 0.5, 1.0, 2.0, 0.1
    eps = printed_eq_main(p, q, d, a)
    assert ce["epsilon"] == pytest.approx(eps, rel=1e-12)
    y = -50 * a
    w = np.array([p, q, 1 - p - q]) * np.exp(-eps * np.abs(y - np.array([-r, a, 1000 * a])))
    post = w[0] / w.sum()
    assert post > p + d
    assert ce["posterior"] == pytest.approx(post, rel=1e-9)


# --- bad input ------------------------------------------------------------------------------
def test_bad_inputs():
    n = Normal(0, 1)
    with pytest.raises(ParameterError, match=r"delta must lie in \(0, 1\)"):
        ga.epsilon_for_attribute(n, r=0.1, delta=1.0)
    with pytest.raises(ParameterError, match="r must be >= 0"):
        ga.epsilon_for_attribute(n, r=-1, delta=0.1)
    with pytest.raises(ParameterError, match="r must be smaller than R"):
        ga.epsilon_for_attribute(n, r=2, delta=0.1, R=1, construction="sound")
    with pytest.raises(ParameterError, match="R limits the comparison sets"):
        ga.epsilon_for_attribute(n, r=2, delta=0.1, R=1)
    with pytest.raises(ParameterError, match="r must be smaller than the prior's diameter"):
        ga.epsilon_for_attribute(Uniform(0, 1), r=1, delta=0.1, construction="sound")
    # the optimum: every ball holds the whole support, so no mechanism can move the posterior
    assert math.isinf(ga.epsilon_for_attribute(Uniform(0, 1), r=1, delta=0.1).epsilon)
    with pytest.raises(ParameterError, match="r must be < R = 1 under the discrete metric"):
        ga.epsilon_for_attribute(Categorical(COLOUR), r=1, delta=0.1)
    with pytest.raises(ParameterError, match="t must lie in the prior's support"):
        ga.epsilon_for_attribute(Uniform(0, 1), r=0.1, delta=0.1, t=2)
    with pytest.raises(ParameterError, match="not a value of this prior"):
        ga.epsilon_for_attribute(Categorical(COLOUR), r=0, delta=0.1, t="green")
    with pytest.raises(ParameterError, match="prior must be"):
        ga.epsilon_for_attribute({"a": 1}, r=0, delta=0.1)
    with pytest.raises(ParameterError, match="must be a finite real number"):
        ga.epsilon_for_attribute(n, r=math.nan, delta=0.1)


def test_priors_that_do_not_normalise():
    with pytest.raises(ParameterError, match="sum to 1"):
        Categorical({"a": 0.5, "b": 0.4})
    with pytest.raises(ParameterError, match="sum to 1"):
        PiecewiseUniform([0, 1, 2], [0.3, 0.3])
    with pytest.raises(ParameterError, match=r"lie in \[0, 1\]"):
        Categorical({"a": 1.5, "b": -0.5})
    with pytest.raises(ParameterError, match="sigma must be > 0"):
        Normal(0, 0)
    with pytest.raises(ParameterError, match="high must exceed low"):
        Uniform(1, 1)


def test_infeasible_when_no_comparison_set_is_heavy_enough():
    # two values far apart, r covers one; R too small to reach the other
    prior = Categorical({0.0: 0.3, 10.0: 0.7})
    with pytest.raises(InfeasibleError, match="no epsilon > 0"):
        ga.epsilon_for_attribute(prior, r=1, delta=0.1, t=0.0, R=5, sides="upper", construction="sound")


def test_heavy_tails_lower_side_infeasible_but_upper_ok():
    cauchy = Continuous(stats.cauchy(0, 1))
    up = ga.epsilon_for_attribute(cauchy, r=0.5, delta=0.1, t=0.0, sides="upper", construction="sound")
    assert up.epsilon > 0
    with pytest.raises(InfeasibleError, match="tails are too heavy"):
        ga.epsilon_for_attribute(cauchy, r=0.5, delta=0.1, t=0.0, construction="sound")


def test_ball_mass_is_papers_g():
    n = Normal(2000, 235.7)
    s2 = 235.7 * math.sqrt(2)
    for t in (1500.0, 2000.0, 2400.0):
        ref = (math.erf((t + 100 - 2000) / s2) - math.erf((t - 100 - 2000) / s2)) / 2
        assert n.ball_mass(t, 100) == pytest.approx(ref, rel=1e-12)
    assert Uniform(0, 10).ball_mass(5, 2) == pytest.approx(0.4)
    assert Uniform(0, 10).ball_mass(0, 2) == pytest.approx(0.2)  # corner: the ball is cut


def test_half_normal_at_the_edge_needs_no_R():
    """Ships' radial model (Sec. 6.3): distance ~ |N(0, 1250)|, t = 0 at the edge of the support.
    X' = [0, r]; the comparison set (r, D] lies within D of X', so the exponent is D."""
    s = math.sqrt(1250)
    res = ga.epsilon_for_attribute(Continuous(stats.halfnorm(scale=s)), r=10, delta=0.1, t=0.0, sides="upper", construction="sound")
    p = math.erf(10 / (s * math.sqrt(2)))
    DD = np.linspace(10.01, 300, 290001)
    q = np.array([math.erf(D / (s * math.sqrt(2))) for D in DD]) - p
    ok = q > p * (1 - p - 0.1) / (p + 0.1)
    brute = max(printed_eq_main(p, qq, 0.1, D) for qq, D in zip(q[ok], DD[ok], strict=True))
    assert res.p == pytest.approx(p, rel=1e-12)
    assert res.epsilon == pytest.approx(brute, rel=1e-7) and res.epsilon >= brute * (1 - 1e-12)


@pytest.mark.parametrize(("dist", "far"), [
    (stats.lognorm(0.5, scale=2000), [6e4, 1e6, 1e9]),
    (stats.t(3, loc=2000, scale=1000), [-1e9, 1e6, 1e12]),
])
def test_sound_worst_case_covers_the_far_tails(dist, far):
    """The comparison-set construction's worst true value over a heavy tail: at every far t the
    epsilon of Eq. (main), maximised over the comparison set's distance D on a dense geometric
    grid with scipy's masses (sf differences, accurate in the tail), is no smaller than the
    t=None answer; and that answer is within 1e-3 of the heavy-tail limit
    max_D [ln((D - 2r)/r) + ln(delta/(1 - delta))]/D (p -> 0, q/p -> (D - 2r)/r) or below it."""
    r, delta = 100.0, 0.1
    res = ga.epsilon_for_attribute(Continuous(dist), r=r, delta=delta, construction="sound")
    D = 2 * r + np.geomspace(1e-6, 1e10, 400001)
    for t in far:
        if t > 0:
            p = dist.sf(t - r) - dist.sf(t + r)
            q = dist.sf(t + r - D) - dist.sf(t - r + D) - p
        else:
            p = dist.cdf(t + r) - dist.cdf(t - r)
            q = dist.cdf(t - r + D) - dist.cdf(t + r - D) - p
        with np.errstate(all="ignore"):
            dense = np.nanmax((np.log(q) - np.log1p(-p) + np.log1p(delta / p) + np.log1p(delta / (1 - p - delta))) / D)
        assert res.epsilon <= dense * (1 + 1e-9), t
    limit = np.max((np.log((D - 2 * r) / r) + math.log(delta / (1 - delta))) / D)
    assert res.epsilon <= limit * (1 + 1e-9)
