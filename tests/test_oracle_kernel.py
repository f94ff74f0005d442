"""Checks of the kernel oracle (tests/oracle_kernel.py) by routes independent of it.

The oracle is the reference of the red team (tests/test_redteam.py), so it is checked itself:
closed forms (a fair coin, two atoms, a uniform prior, a normal prior through ``ncdf``, the
far-tail limit of a flat and of an exponential prior), an independent float quadrature
(``scipy.integrate.quad``), the formulas of the prior specifications against ``scipy.stats``
and their declared tail classes against the log-density far out, the finite-prior kernels
against the LP oracle (tests/oracle_lp.py: the supremum over *all* epsilon-DP likelihoods,
which the kernels must reach), the float scan against mpmath, and the global search against
a brute-force closed-form grid.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import scipy.stats
from oracle_kernel import (
    HEAVY,
    LIGHT,
    finite,
    gamma,
    gennorm,
    inverted_kernel_diverges,
    kernel_advantage,
    kernel_posterior,
    lognorm,
    normal,
    piecewise_uniform,
    scan_advantages,
    skewnorm,
    spike_mixture,
    student_t,
    tail_limit,
    two_piece_normal,
    uniform,
    weibull_min,
    worst_advantage,
    worst_advantage_details,
)
from oracle_lp import lp_posterior_extremes
from scipy import integrate
from sweeps import examples, sample

mp = mpmath.mpf


# --- finite priors: closed forms and the LP -----------------------------------------------------
@pytest.mark.parametrize("eps", [1e-300, 1e-12, 0.3, 2.0, 30.0])
def test_fair_coin_closed_form(eps):
    """Fair coin, r < 1: U = 1/(1 + e^-eps), V = 1/(1 + e^eps), and the worst advantages."""
    coin = finite([0.0, 1.0], [0.5, 0.5])
    with mpmath.workdps(60):
        up = 1 / (1 + mpmath.exp(-mp(eps)))
        low = 1 / (1 + mpmath.exp(mp(eps)))
        adv = mpmath.tanh(mp(eps) / 2) / 2  # U - 1/2 = 1/2 - V, exact at tiny eps
    for t in (0.0, 1.0):
        assert abs(kernel_posterior(coin, t, 0.5, eps, t, "upper") - up) <= 1e-35 * up
        assert abs(kernel_posterior(coin, t, 0.5, eps, t, "lower") - low) <= 1e-35 * low
    for side in ("upper", "lower"):
        w = worst_advantage(coin, 0.5, eps, side)
        assert abs(w.value - float(adv)) <= 1e-14 * float(adv)
        assert w.c == w.t


@pytest.mark.parametrize("p", [0.2, 0.7])
@pytest.mark.parametrize("eps", [1e-200, 1e-9, 0.5, 5.0])
def test_two_atoms_closed_form(p, eps):
    """Atoms at 0 (mass p) and 3, r = 1: U = p/(p + (1-p)e^{-3 eps}), V likewise with +."""
    pr = finite([0.0, 3.0], [p, 1 - p])
    with mpmath.workdps(60):
        w0, w1 = (mp(v) for v in pr.weights)
        e, pm = mp(eps), w0 / (w0 + w1)  # the masses as the prior normalises them
        up = pm / (pm + (1 - pm) * mpmath.exp(-3 * e))
        low = pm / (pm + (1 - pm) * mpmath.exp(3 * e))
        adv_up = pm * (1 - pm) * -mpmath.expm1(-3 * e) / (pm + (1 - pm) * mpmath.exp(-3 * e))
        adv_low = pm * (1 - pm) * mpmath.expm1(3 * e) / (pm + (1 - pm) * mpmath.exp(3 * e))
    ku = kernel_advantage(pr, 0.0, 1.0, eps, 0.0, "upper")
    kl = kernel_advantage(pr, 0.0, 1.0, eps, 0.0, "lower")
    assert abs(ku.posterior - up) <= 1e-35 * up
    assert abs(kl.posterior - low) <= 1e-35 * low
    assert abs(ku.advantage - adv_up) <= 1e-30 * adv_up
    assert abs(kl.advantage - adv_low) <= 1e-30 * adv_low


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("eps", [0.05, 0.7, 3.0])
def test_finite_kernels_reach_the_lp(seed, eps):
    """On a random finite prior the kernel extremes over centres in the ball equal the LP's
    sup and inf over every epsilon-DP likelihood (tests/oracle_lp.py), for every ball."""
    rng = np.random.default_rng(seed)
    n = 6
    pts = np.sort(rng.choice(np.arange(-40, 41), n, replace=False)) / 8.0
    w = rng.exponential(size=n)
    w /= w.sum()
    pr = finite(pts.tolist(), w.tolist())
    r = float(rng.choice([0.25, 0.75, 1.5, 3.0]))
    for t in pts:
        inside = np.abs(pts - t) <= r
        if inside.all():
            continue
        ball = pts[inside]
        sup = max(kernel_posterior(pr, t, r, eps, c, "upper") for c in ball)
        inf = min(kernel_posterior(pr, t, r, eps, c, "lower") for c in ball)
        lp_sup, lp_inf = lp_posterior_extremes(pts, np.asarray(pr.weights), inside, eps)
        assert abs(sup - lp_sup) <= 1e-14 * lp_sup  # the LP oracle returns floats
        assert abs(inf - lp_inf) <= 1e-14 * lp_inf
        # no centre between the atoms does better (the Moebius argument)
        for c in np.linspace(ball[0], ball[-1], 9):
            assert kernel_posterior(pr, t, r, eps, c, "upper") - sup <= 1e-30 * sup
            assert kernel_posterior(pr, t, r, eps, c, "lower") - inf >= -1e-30 * inf


# --- densities: closed forms and an independent quadrature -------------------------------------
def _normal_closed(t, r, eps, c, side, mu=0.0, s=1.0):
    """Normal prior, any kernel: int_a^b phi e^{k x} = e^{k^2/2}(Phi(b - k) - Phi(a - k))."""
    with mpmath.workdps(60):
        t, r, c, mu, s = (mp(v) for v in (t, r, c, mu, s))
        k = mp(eps) * s * (-1 if side == "upper" else 1)
        z = lambda x: (x - mu) / s  # noqa: E731
        cz = z(c)

        def piece(a, b, sign):  # int_a^b phi(x) e^{sign k (x - cz)} dx in standard units
            kk = sign * k
            return mpmath.exp(kk * kk / 2 - kk * cz) * (mpmath.ncdf(b - kk) - mpmath.ncdf(a - kk))

        lo_, hi_ = z(t - r), z(t + r)
        e_in = piece(lo_, cz, -1) + piece(cz, hi_, 1)
        e_out = piece(mpmath.ninf, lo_, -1) + piece(hi_, mpmath.inf, 1)
        post = e_in / (e_in + e_out)
        p = mpmath.ncdf(hi_) - mpmath.ncdf(lo_)
        return post, (post - p if side == "upper" else p - post)


@pytest.mark.parametrize(
    ("t", "c", "eps", "side"),
    [(0.85, 1.16, 0.4, "upper"), (0.0, 0.0, 1e-12, "upper"), (-1.0, -1.3, 0.4, "lower"),
     (3.0, 3.2, 2.0, "upper"), (6.5, 6.9, 5.0, "upper"), (-2.0, -2.4, 0.05, "lower")],
)
def test_normal_closed_form(t, c, eps, side):
    """The normal prior's kernel posterior and advantage against the closed form, to 1e-30."""
    post, adv = _normal_closed(t, 0.5, eps, c, side)
    kv = kernel_advantage(normal(0, 1), t, 0.5, eps, c, side)
    assert abs(kv.posterior - post) <= 1e-30 * post
    assert abs(kv.advantage - adv) <= 1e-30 * abs(adv) + 1e-38
    assert kv.error <= 1e-30


@pytest.mark.parametrize("scale", [1e-6, 1e6])
def test_normal_closed_form_scaled(scale):
    """Scaled priors (sigma = 1e-6, 1e6; r and 1/eps scaled along) give the same numbers."""
    _post, adv = _normal_closed(0.85, 0.5, 0.4, 1.16, "upper")
    kv = kernel_advantage(normal(0, scale), 0.85 * scale, 0.5 * scale, 0.4 / scale, 1.16 * scale, "upper")
    assert abs(kv.advantage - adv) <= 1e-12 * adv  # the inputs round differently once scaled


@pytest.mark.parametrize(
    ("spec", "t", "c", "eps", "side"),
    # make test: four of the six (the normal's lower side and the skew normal, whose formulas
    # are checked against scipy below, only in make test-full)
    sample([(normal(0, 1), 0.85, 1.16, 0.4, "upper"), (normal(0, 1), -0.7, -1.0, 0.4, "lower"),
            (gamma(3, 10), 12.0, 10.8, 0.05, "upper"), (student_t(3), 2.0, 2.2, 0.3, "upper"),
            (skewnorm(4), 0.1, -0.3, 0.5, "upper"), (weibull_min(1.05), 0.3, 0.0, 0.5, "lower")], 4),
)
def test_against_scipy_quad(spec, t, c, eps, side):
    """An independent float route: scipy.integrate.quad of the density times the kernel."""
    k = -eps if side == "upper" else eps
    lo, hi = spec.support
    l_, h_ = max(t - 0.5, lo), min(t + 0.5, hi)

    def f(x):
        return math.exp(float(spec.logpdf(np.array([x]))[0]) + k * abs(x - c))

    pts = [v for v in (c, *spec.breakpoints) if l_ < v < h_]
    e_in = integrate.quad(f, l_, h_, points=pts or None, epsabs=0, epsrel=1e-13, limit=200)[0]
    e_out = integrate.quad(f, lo, l_, epsabs=0, epsrel=1e-13, limit=200)[0] if l_ > lo else 0.0
    e_out += integrate.quad(f, h_, hi, epsabs=0, epsrel=1e-13, limit=200)[0]
    post = e_in / (e_in + e_out)
    assert abs(float(kernel_posterior(spec, t, 0.5, eps, c, side)) - post) <= 1e-10 * post


@pytest.mark.parametrize(("eps", "side"), [(0.3, "upper"), (4.0, "upper"), (0.3, "lower"), (4.0, "lower")])
def test_uniform_closed_form(eps, side):
    """Uniform prior on [0, 1]: every piece of the kernel integrates in closed form."""
    spec = uniform(0.0, 1.0)
    k = -eps if side == "upper" else eps
    for t, c in ((0.5, 0.5), (0.05, 0.0), (0.3, 0.37), (0.95, 1.0), (0.9, 0.8)):
        with mpmath.workdps(60):
            kk, cm = mp(k), mp(c)
            l_, h_ = max(mp(t) - mp(0.1), 0), min(mp(t) + mp(0.1), 1)

            def integral(a, b, kk=kk, cm=cm):  # int_a^b e^{k|x - c|}, a, b on one side of c
                if b <= cm:
                    return (mpmath.exp(kk * (cm - a)) - mpmath.exp(kk * (cm - b))) / kk
                return (mpmath.exp(kk * (b - cm)) - mpmath.exp(kk * (a - cm))) / kk

            e_in = integral(l_, cm) + integral(cm, h_)
            tot = integral(0, cm) + integral(cm, 1)
            post = e_in / tot
        got = kernel_posterior(spec, t, 0.1, eps, c, side)
        assert abs(got - post) <= 1e-30 * post


def test_flat_prior_far_tail_limit():
    """A flat prior wide beyond the kernel's reach: the posterior of the ball at c = t is
    1 - e^{-eps r}, the heavy-tail limit (lambda = 0) of :func:`tail_limit`."""
    spec = uniform(-1000.0, 1000.0)
    for eps, r in ((0.5, 0.5), (2.0, 0.25), (0.1, 3.0)):
        post = kernel_posterior(spec, 0.0, r, eps, 0.0, "upper")
        limit = -math.expm1(-eps * r)
        assert abs(float(post) - limit) <= 1e-14
        assert tail_limit(HEAVY, r, eps) == limit


@pytest.mark.parametrize(("eps", "r"), [(2.0, 0.5), (1.5, 1.0), (3.0, 0.2)])
def test_exponential_far_tail_limit(eps, r):
    """The exponential prior (weibull_min(1), lambda = 1) far out: the kernel at
    c = t + lambda r/eps gives 1 - e^{-r(eps^2 - lambda^2)/eps} (up to e^{-(eps - 1) t}),
    p -> 0, and no centre does better."""
    spec = weibull_min(1.0)
    assert spec.upper.kind == "exponential" and spec.upper.rate == 1.0
    t = 120.0
    kv = kernel_advantage(spec, t, r, eps, t + r / eps, "upper")
    limit = tail_limit(spec.upper, r, eps)
    assert limit == pytest.approx(-math.expm1(-r * (eps * eps - 1) / eps), rel=1e-15)
    assert abs(float(kv.posterior) - limit) <= 1e-14
    for dc in (-0.01, 0.01):
        assert kernel_posterior(spec, t, r, eps, t + r / eps + dc, "upper") < kv.posterior
    assert tail_limit(spec.upper, r, 0.9) == 0.0  # eps <= lambda: the kernel cannot lift the ball


# --- the prior specifications ---------------------------------------------------------------
SPECS_VS_SCIPY = [
    (normal(1.5, 2.0), scipy.stats.norm(1.5, 2.0)),
    (weibull_min(0.8), scipy.stats.weibull_min(0.8)),
    (weibull_min(1.2), scipy.stats.weibull_min(1.2)),
    (gennorm(0.95), scipy.stats.gennorm(0.95)),
    (gennorm(1.5), scipy.stats.gennorm(1.5)),
    (lognorm(2.0), scipy.stats.lognorm(2.0)),
    (lognorm(3.0), scipy.stats.lognorm(3.0)),
    (student_t(3.0), scipy.stats.t(3.0)),
    (gamma(3.0, 10.0), scipy.stats.gamma(3.0, scale=10.0)),
    (skewnorm(4.0), scipy.stats.skewnorm(4.0)),
    (uniform(-1.0, 2.0), scipy.stats.uniform(-1.0, 3.0)),
]


@pytest.mark.parametrize(("spec", "dist"), SPECS_VS_SCIPY, ids=lambda v: getattr(v, "name", ""))
def test_spec_formulas_match_scipy(spec, dist):
    """Each specification's log-density (numpy and mpmath) and cdf against scipy.stats."""
    qs = dist.ppf([1e-6, 0.01, 0.2, 0.5, 0.8, 0.99, 1 - 1e-6])
    assert np.allclose(spec.logpdf(qs), dist.logpdf(qs), rtol=1e-12, atol=1e-12)
    with mpmath.workdps(30):
        for x in qs:
            assert float(spec.logpdf_mp(mp(x))) == pytest.approx(float(dist.logpdf(x)), rel=1e-12, abs=1e-12)
            assert float(spec.cdf_mp(mp(x))) == pytest.approx(float(dist.cdf(x)), rel=1e-9)
            assert float(spec.sf_mp(mp(x))) == pytest.approx(float(dist.sf(x)), rel=1e-9)
            assert spec.cdf_mp(mp(x)) + spec.sf_mp(mp(x)) == pytest.approx(1, rel=1e-25)


def test_mixture_specs():
    """The spike mixture and a two-piece normal: total mass, bins, the gap."""
    s = spike_mixture()
    with mpmath.workdps(30):
        assert float(s.mass_mp(-1.201, -1.199)) == pytest.approx(0.9, rel=1e-25)
        assert float(s.mass_mp(-1.199, -1.0)) == 0.0
        assert float(s.mass_mp(-1.0, 1.0)) == pytest.approx(0.1, rel=1e-25)
        assert np.isneginf(s.logpdf(np.array([-1.1])))[0]
        two = two_piece_normal(0.5, 2.0)
        total = mpmath.quad(lambda x: mpmath.exp(two.logpdf_mp(x)), [mpmath.ninf, 0, mpmath.inf])
        assert float(total) == pytest.approx(1, rel=1e-25)
        assert float(two.cdf_mp(mp(0))) == pytest.approx(0.2, rel=1e-25)
    pw = piecewise_uniform([0, 1, 3], [0.25, 0.75])
    assert np.allclose(np.exp(pw.logpdf(np.array([0.5, 2.0]))), [0.25, 0.375])


@pytest.mark.parametrize("spec", [s for s, _ in SPECS_VS_SCIPY] + [two_piece_normal(0.5, 2.0)],
                         ids=lambda v: v.name)
def test_declared_tails(spec):
    """The declared tail class against the log-density's slope far out (|x| from 1e2 to 1e100,
    where the formulas' asymptotics are unmistakable): heavy -> the slope falls toward 0,
    exponential -> it tends to the rate, light -> it grows without bound."""
    for direction, tail, end in ((1, spec.upper, spec.support[1]), (-1, spec.lower, spec.support[0])):
        if math.isfinite(end):
            assert tail.kind == "bounded"
            continue
        xs = direction * np.array([1e2, 1e4, 1e8, 1e16, 1e50, 1e100])
        with np.errstate(all="ignore"):
            slope = -(spec.logpdf(xs * (1 + 1e-3)) - spec.logpdf(xs)) / (1e-3 * np.abs(xs))
        if tail.kind == "heavy":
            assert np.all(np.diff(slope) < 0) and slope[-1] < 1e-3
        elif tail.kind == "exponential":
            assert slope[2] == pytest.approx(tail.rate, rel=1e-4)
        else:
            assert tail is LIGHT and np.all(np.diff(slope) > 0) and slope[-1] > 1e3


def test_inverted_kernel_divergence():
    """A heavy tail (and an exponential tail at eps >= its rate) makes the inverted kernel's
    integral diverge: the oracle's V is 0 and p - V = p; the truncations grow without bound."""
    assert inverted_kernel_diverges(student_t(3), 1e-9)
    assert inverted_kernel_diverges(lognorm(3), 0.01)
    assert inverted_kernel_diverges(gamma(3, 10), 0.1) and not inverted_kernel_diverges(gamma(3, 10), 0.099)
    assert not inverted_kernel_diverges(normal(0, 1), 50.0)
    assert not inverted_kernel_diverges(weibull_min(1.05), 5.0)
    kv = kernel_advantage(student_t(3), 0.0, 0.5, 0.01, 0.0, "lower")
    assert kv.posterior == 0 and kv.advantage == kv.p
    spec = student_t(3)
    with mpmath.workdps(30):
        f = lambda x: mpmath.exp(spec.logpdf_mp(x) + mp("0.01") * x)  # noqa: E731
        parts = [mpmath.quad(f, [10**j, 10 ** (j + 1)]) for j in range(1, 5)]
    assert parts[-1] > parts[-2] > 1  # each decade past 1/eps adds more: no finite total


# --- the float scan and the search ----------------------------------------------------------------
SCAN_CASES = [
    (normal(0, 1), 0.5, 0.4, "upper"), (normal(0, 1), 0.5, 4e-12, "lower"),
    (normal(0, 1e6), 5e5, 4e-7, "upper"), (weibull_min(0.8), 0.5, 0.3, "upper"),
    (weibull_min(1.05), 0.5, 0.5, "lower"), (gennorm(0.95), 0.5, 0.3, "upper"),
    (lognorm(3), 0.5, 0.2, "upper"), (student_t(3), 0.5, 0.2, "upper"),
    (gamma(3, 10), 2.0, 0.05, "lower"), (skewnorm(4), 0.5, 0.5, "upper"),
    (spike_mixture(), 0.1, 1.0, "upper"), (two_piece_normal(0.5, 2.0), 0.5, 0.3, "lower"),
]


@pytest.mark.parametrize(("spec", "r", "eps", "side"), SCAN_CASES, ids=lambda v: getattr(v, "name", str(v)))
def test_scan_matches_mpmath(spec, r, eps, side):
    """The float scan's advantages at sampled (t, c), the scan's best row among them, against
    mpmath, to 1e-9 relative (plus 1e-13 of the ball's mass where the advantage is tiny); one
    random row besides the best in make test, three in make test-full."""
    ts, adv, cs, _logp = scan_advantages(spec, r, eps, side)
    rng = np.random.default_rng(7)
    picks = [int(np.argmax(adv)), *rng.choice(ts.size, examples(3, 1), replace=False).tolist()]
    for i in picks:
        kv = kernel_advantage(spec, float(ts[i]), r, eps, float(cs[i]), side)
        ref = float(kv.advantage)
        assert abs(adv[i] - ref) <= 1e-9 * abs(ref) + 1e-13 * float(kv.p) + 1e-300, (ts[i], cs[i])


def test_search_beats_a_brute_force_grid():
    """Uniform prior: the closed-form advantage on a 401 x 401 grid of (t, c) never exceeds the
    oracle's worst value, which is itself attained (a closed-form evaluation at its (t, c))."""
    eps, r = 2.0, 0.1
    ts = np.linspace(0.0, 1.0, 401)
    best = -np.inf
    for t in ts:
        l_, h_ = max(t - r, 0.0), min(t + r, 1.0)
        c = np.linspace(l_, h_, 401)
        # int_0^1 e^{-eps|x - c|} dx and over [l, h], closed forms
        tot = (2 - np.exp(-eps * c) - np.exp(-eps * (1 - c))) / eps
        ins = (2 - np.exp(-eps * (c - l_)) - np.exp(-eps * (h_ - c))) / eps
        best = max(best, float(np.max(ins / tot - (h_ - l_))))
    w = worst_advantage_details(uniform(0.0, 1.0), r, eps, "upper")
    assert w.value >= best - 1e-12
    l_, h_ = max(w.t - r, 0.0), min(w.t + r, 1.0)
    c = w.c
    tot = (2 - math.exp(-eps * c) - math.exp(-eps * (1 - c))) / eps
    ins = (2 - math.exp(-eps * (c - l_)) - math.exp(-eps * (h_ - c))) / eps
    assert w.value == pytest.approx(ins / tot - (h_ - l_), rel=1e-12)


def test_worst_is_monotone_in_eps():
    """More epsilon allows more mechanisms: the worst value never decreases."""
    spec = normal(0, 1)
    vals = [worst_advantage(spec, 0.5, e, "upper").value for e in (0.1, 0.2, 0.4, 0.8)]
    assert all(a < b for a, b in itertools.pairwise(vals))


def test_heavy_tails_give_the_limit():
    """Heavy tails: the worst upper value is the far-tail limit 1 - e^{-eps r} (approached, not
    beaten at any finite t the scan reaches, nor at the mpmath far probes)."""
    for spec in (student_t(3), weibull_min(0.8)):
        d = worst_advantage_details(spec, 0.5, 0.4, "upper")
        limit = -math.expm1(-0.2)
        assert d.value == pytest.approx(limit, rel=1e-15)
        assert d.source == "limit" and d.mp_value <= limit * (1 + 1e-15)


@pytest.mark.parametrize("delta", [1e-300, 1e-12, 0.1, 0.5 - 1e-9])
def test_checks_bracket_the_coin_optimum(delta):
    """The red team's two checks on a known optimum (fair coin, closed form): no violation at
    eps* (1 - 1e-9), a violation at eps* (1 + 1e-6) (in mpmath: near saturation the excess is
    only ~1e-14 relative)."""
    coin = finite([0.0, 1.0], [0.5, 0.5])
    with mpmath.workdps(60):
        d = mp(delta)
        star = mpmath.log1p(2 * d / (mp(0.5) - d))  # ln((1/2 + d)/(1/2 - d))
    below = worst_advantage_details(coin, 0.5, float(star) * (1 - 1e-9), "upper")
    above = worst_advantage_details(coin, 0.5, float(star) * (1 + 1e-6), "upper")
    with mpmath.workdps(40):
        assert below.mp_value < d
        assert above.mp_value - d > 1e-25 * d
