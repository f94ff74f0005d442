"""The tilted-tail kernel (garesearch.enclosures.tilted, Prior.log_tilted_tail) against mpmath.

Reference values: closed forms evaluated with mpmath at 40 digits (normal, piecewise
uniform, atoms), and mpmath quadrature with breakpoints for a log-normal density.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from garesearch.enclosures.tilted import log_diff_exp, tilted_prefix, tilted_suffix
from garesearch.priors import Categorical, Continuous, Normal, PiecewiseUniform, Uniform


def _normal_tail_mp(k, x, mu, s, side):
    """int_{u<=x} (or u>=x) e^{k(u-x)} dN(mu, s^2): e^{k(mu-x) + k^2 s^2/2} Phi(+-(x-mu-ks^2)/s)."""
    k, x, mu, s = (mpmath.mpf(v) for v in (k, x, mu, s))
    z = (x - mu - k * s * s) / s
    phi = mpmath.ncdf(z) if side == "left" else mpmath.ncdf(-z)
    return k * (mu - x) + k * k * s * s / 2 + mpmath.log(phi)


@pytest.mark.parametrize("side", ["left", "right"])
def test_normal_tails_match_mpmath_closed_form(side):
    prior = Normal(2000.0, 235.7)
    worst = 0.0
    with mpmath.workdps(40):
        for k in (1e-9, 2e-3, -2e-3, 0.5, -0.5, 30.0, -30.0):
            for x in (-5e4, 1000.0, 1900.0, 2000.0, 2400.0, 4000.0, 1e5):
                got = float(prior.log_tilted_tail(k, x, side))
                ref = float(_normal_tail_mp(k, x, 2000.0, 235.7, side))
                worst = max(worst, abs(got - ref) / max(1.0, abs(ref)))
    assert worst < 1e-13


def test_piecewise_uniform_tails_match_closed_form():
    edges, weights = [0.0, 1.0, 3.0, 10.0], [0.2, 0.5, 0.3]
    prior = PiecewiseUniform(edges, weights)

    def ref(k, x, side):
        total = mpmath.mpf(0)
        # integrate the exponential over each piece in closed form
        for a, b, w in zip(edges[:-1], edges[1:], weights, strict=True):
            dens = mpmath.mpf(w) / (mpmath.mpf(b) - a)
            lo, hi = (max(a, x), b) if side == "right" else (a, min(b, x))
            if hi <= lo:
                continue
            kk = mpmath.mpf(k)
            total += dens * (mpmath.exp(kk * (hi - x)) - mpmath.exp(kk * (lo - x))) / kk
        return mpmath.log(total) if total > 0 else -mpmath.inf

    with mpmath.workdps(40):
        for k in (0.3, -0.3, 5.0, -5.0, 1e-8):
            for x in (-1.0, 0.5, 1.0, 2.7, 9.0, 11.0):
                for side in ("left", "right"):
                    r = ref(k, x, side)
                    got = float(prior.log_tilted_tail(k, x, side))
                    if r == -mpmath.inf:
                        assert got == -math.inf
                    else:
                        assert got == pytest.approx(float(r), rel=1e-13, abs=1e-13)


def test_atom_tails_match_exact_sums_over_a_wide_range():
    """Atoms spread over 1e4 with k = 1: |k x| = 1e4 exercises the blocked prefix sums."""
    rng = np.random.default_rng(0)
    xs = np.sort(rng.uniform(0, 1e4, 400))
    ps = rng.dirichlet(np.ones(400))
    prior = Categorical(dict(zip(xs.tolist(), ps.tolist(), strict=True)))
    with mpmath.workdps(40):
        for k in (0.01, -0.01, 1.0, -1.0):
            for x in (-5.0, 3000.0, float(xs[200]), 1e4 + 3):
                for side in ("left", "right"):
                    sel = xs <= x if side == "left" else xs >= x
                    got = float(prior.log_tilted_tail(k, x, side))
                    if not sel.any():
                        assert got == -math.inf
                        continue
                    ref = mpmath.log(mpmath.fsum(
                        mpmath.mpf(p) * mpmath.exp(k * (mpmath.mpf(u) - x))
                        for u, p in zip(xs[sel], prior.probs[sel], strict=True)
                    ))
                    assert got == pytest.approx(float(ref), rel=1e-12, abs=1e-10)


def test_prefix_sums_stay_accurate_far_from_the_origin():
    pos = np.concatenate([np.linspace(0, 10, 50), 1e9 + np.linspace(0, 10, 50)])
    logw = np.linspace(-5, 5, 100)
    k = 0.7
    pre, suf = tilted_prefix(pos, logw, k), tilted_suffix(pos, logw, k)
    with mpmath.workdps(50):
        for j in (0, 49, 50, 77, 99):
            ref_pre = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(logw[i]) + k * (mpmath.mpf(pos[i]) - pos[j]))
                                             for i in range(j + 1)))
            ref_suf = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(logw[i]) + k * (mpmath.mpf(pos[i]) - pos[j]))
                                             for i in range(j, 100)))
            assert pre[j] == pytest.approx(float(ref_pre), rel=1e-13, abs=1e-12)
            assert suf[j] == pytest.approx(float(ref_suf), rel=1e-13, abs=1e-12)


def test_continuous_normal_table_encloses_the_closed_form():
    """The certified panels of a scipy density (second order: the normal's log-density is
    declared concave) contain the erfcx closed form, tightly where the tilt decays away from x
    or the tilted mass stays in the bulk (1e-6 of the log-mass), more loosely where a growing tilt
    carries it twelve standard deviations out (panels there are allotted by mass)."""
    cont, closed = Continuous(stats.norm(2000, 235.7)), Normal(2000, 235.7)
    for k in (0.002, -0.002, 0.05, -0.05):
        for x in (1000.0, 1900.0, 2000.0, 2400.0, 3500.0):
            for side in ("left", "right"):
                lo, hi = cont.tilted_tail_bounds(k, x, side)
                ref = float(closed.log_tilted_tail(k, x, side))
                assert lo <= ref <= hi
                decaying = (k > 0) == (side == "left")
                assert hi - lo < (1e-6 if decaying or (abs(k) < 0.01 and x < 3000) else 1e-4) * max(1.0, abs(ref))
                assert float(cont.log_tilted_tail(k, x, side)) == pytest.approx(ref, abs=hi - lo)


def _lognormal_pdf(u):
    if u <= 0:
        return mpmath.mpf(0)
    s = mpmath.mpf("0.5")
    return mpmath.exp(-(mpmath.log(u / 2000)) ** 2 / (2 * s * s)) / (u * s * mpmath.sqrt(2 * mpmath.pi))


@pytest.mark.parametrize(
    ("k", "x", "rel"),
    [(-1e-3, 500.0, 3e-8), (-1e-3, 2000.0, 3e-8), (-1e-3, 6e4, 1e-6), (-1e-2, 500.0, 3e-8),
     (1e-3, 2000.0, 3e-8), (1e-3, 6e4, 1e-6), (-1e-3, 1e6, 2e-5), (1e-3, 1e6, 2e-5)],
)
def test_lognormal_table_against_quadrature(k, x, rel):
    """The certified enclosure contains the 30-digit quadrature and is as narrow as stated
    (``rel``: 3e-8 in the bulk, wider 25 and 30 standard deviations of log x out)."""
    prior = Continuous(stats.lognorm(0.5, scale=2000))
    side = "right" if k < 0 else "left"
    with mpmath.workdps(30):
        if side == "right":
            pts = [x + j / abs(k) for j in range(0, 60, 2)] + [mpmath.inf]
        else:
            pts = [0] + [x - j / abs(k) for j in range(60, 0, -2) if x - j / abs(k) > 0] + [x]
        ref = mpmath.log(mpmath.quad(lambda u: mpmath.exp(k * (u - x)) * _lognormal_pdf(u), sorted(set(pts))))
    lo, hi = prior.tilted_tail_bounds(k, x, side)
    assert lo <= float(ref) <= hi
    assert hi - lo < rel * max(1.0, abs(float(ref)))


def test_growing_tilt_over_a_heavy_tail_diverges():
    prior = Continuous(stats.lognorm(0.5, scale=2000))
    assert prior.tail_class("right") == ("heavy", 0.0)
    assert float(prior.log_tilted_tail(1e-6, 2000.0, "right")) == math.inf
    expo = Continuous(stats.expon(scale=2.0))  # rate 1/2
    kind, lam = expo.tail_class("right")
    assert kind == "exponential" and lam == pytest.approx(0.5, rel=1e-6)
    assert float(expo.log_tilted_tail(0.6, 1.0, "right")) == math.inf
    # k = 0.25 < 1/2: int_{u>=1} e^{0.25(u-1)} (1/2) e^{-u/2} du = e^{-1/2} * 2 * (1/2) / (1/4) ... in closed form
    ref = math.log(0.5 * math.exp(-0.5) / 0.25)
    assert float(expo.log_tilted_tail(0.25, 1.0, "right")) == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize(
    ("dist", "left", "right"),
    [(stats.t(3), "heavy", "heavy"), (stats.cauchy(), "heavy", "heavy"), (stats.norm(), "light", "light"),
     (stats.laplace(), "exponential", "exponential"), (stats.gamma(3), "bounded", "exponential"),
     (stats.pareto(1.5), "bounded", "heavy"), (stats.weibull_min(0.7), "bounded", "heavy"),
     (stats.logistic(), "exponential", "exponential")],
)
def test_tail_classes(dist, left, right):
    prior = Continuous(dist)
    assert prior.tail_class("left")[0] == left
    assert prior.tail_class("right")[0] == right


def test_log_tilted_mass_of_an_interval():
    prior = Uniform(0.0, 4.0)
    # int_1^3 e^{k(u - 2)} du / 4 with k = 1.5
    k = 1.5
    ref = math.log((math.exp(k) - math.exp(-k)) / k / 4)
    assert prior.log_tilted_mass(k, 1.0, 3.0, 2.0) == pytest.approx(ref, rel=1e-14)
    assert prior.log_tilted_mass(k, 3.0, 1.0, 2.0) == -math.inf
    assert float(log_diff_exp(1.0, 1.0)) == -math.inf
