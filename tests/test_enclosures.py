"""Certified tilted masses and kernel margins (garesearch.enclosures.tilted, garesearch.optimal._kernels), checked
against references computed here: mpmath closed forms and quadrature of the priors' densities at
30+ digits, exact sums, and dense scans.

Each enclosure must hold its reference; its width must stay below what the module promises;
and the checks must notice a planted error (a panel dropped from a table, a bound moved by 1e-6,
a wrong slope in the branch and bound).
"""

from __future__ import annotations

import math
import time

import mpmath
import numpy as np
import pytest
import scipy.special
import scipy.stats as st
from sweeps import FULL, sample

from garesearch.constructions.pointwise import epsilon_pointwise
from garesearch.errors import UndeclaredTailWarning
from garesearch.optimal import epsilon_optimal, posterior_extremes
from garesearch.optimal._kernels import Margins, _interval_bound
from garesearch.priors import Categorical, Continuous, Normal, PiecewiseUniform, Uniform


class _Spike(st.rv_continuous):
    """0.1 U[-1, 1] + 0.9 U[-1.201, -1.199]: a narrow spike (no family table knows it)."""

    def _pdf(self, x):
        return 0.1 * np.where(np.abs(x) <= 1, 0.5, 0.0) + 0.9 * np.where(np.abs(x + 1.2) <= 0.001, 500.0, 0.0)

    def _cdf(self, x):
        return 0.1 * np.clip((x + 1) / 2, 0, 1) + 0.9 * np.clip((x + 1.201) / 0.002, 0, 1)


SPIKE = _Spike(a=-1.201, b=1.0, name="spike")()

ATOMS = {float(x): w for x, w in zip(np.linspace(-3, 4, 23), np.random.default_rng(7).dirichlet(np.ones(23)),
                                     strict=True)}
EDGES, WEIGHTS = [-2.0, -1.0, 0.5, 0.6, 3.0], [0.2, 0.0, 0.5, 0.3]


def _mp_density(dist):
    """The scipy density as an mpmath function (its definition, at the working precision)."""
    name = dist.dist.name
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    loc, scale = mpmath.mpf(loc), mpmath.mpf(scale)

    def std(z):
        if name == "norm":
            return mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi)
        if name == "gamma":
            a = mpmath.mpf(shapes[0])
            return z ** (a - 1) * mpmath.exp(-z) / mpmath.gamma(a) if z > 0 else mpmath.mpf(0)
        if name == "lognorm":
            s = mpmath.mpf(shapes[0])
            return mpmath.exp(-mpmath.log(z) ** 2 / (2 * s * s)) / (z * s * mpmath.sqrt(2 * mpmath.pi)) if z > 0 else mpmath.mpf(0)
        if name == "t":
            v = mpmath.mpf(shapes[0])
            return (mpmath.gamma((v + 1) / 2) / (mpmath.sqrt(v * mpmath.pi) * mpmath.gamma(v / 2))
                    * (1 + z * z / v) ** (-(v + 1) / 2))
        if name == "weibull_min":
            c = mpmath.mpf(shapes[0])
            return c * z ** (c - 1) * mpmath.exp(-(z**c)) if z > 0 else mpmath.mpf(0)
        raise AssertionError(name)

    return lambda x: std((mpmath.mpf(x) - loc) / scale) / scale


_REFS: dict = {}


def _tail_reference(dist, k, x, side, breaks=()):
    key = (dist.dist.name, dist.args, tuple(sorted(dist.kwds.items())), k, x, side)
    if key not in _REFS:
        _REFS[key] = _tail_quadrature(dist, k, x, side, breaks)
    return _REFS[key]


def _tail_quadrature(dist, k, x, side, breaks=()):
    """log of int_{u <= x} e^{k(u - x)} dF (or u >= x) by mpmath quadrature, split every few
    tilt lengths and density scales (so that quad sees smooth pieces)."""
    dens = _mp_density(dist)
    lo, hi = (float(v) for v in dist.support())
    scale = float(dist.std()) if math.isfinite(dist.std()) else float(dist.ppf(0.75) - dist.ppf(0.25))
    step = min(scale, 1.0 / abs(k)) if k else scale
    with mpmath.workdps(20):
        if side == "left":
            a = max(lo, x - 120 * step)
            pts = sorted({max(lo, a), *[v for v in np.linspace(a, x, 121) if lo <= v <= x], x,
                          *[b for b in breaks if a < b < x]})
            if math.isfinite(lo) and pts[0] > lo:
                pts = [lo, *pts]
        else:
            b = min(hi, x + 120 * step)
            pts = sorted({x, *[v for v in np.linspace(x, b, 121) if x <= v <= hi], min(hi, b),
                          *[c for c in breaks if x < c < b]})
        pts = [p for p in pts if lo <= p <= hi]
        kk, xx = mpmath.mpf(k), mpmath.mpf(x)
        val = mpmath.quad(lambda u: mpmath.exp(kk * (u - xx)) * dens(u), pts, maxdegree=8)
        return float(mpmath.log(val))


# ------------------------------------------------------------------------------------------
# enclosures against references
# ------------------------------------------------------------------------------------------
def _violations(prior, cases, ref_fn):
    """The (case, lo, ref, hi) whose certified enclosure misses its reference."""
    bad = []
    for k, x, side in cases:
        lo, hi = prior.tilted_tail_bounds(k, x, side)
        ref = ref_fn(k, x, side)
        if not float(lo) <= ref <= float(hi):
            bad.append(((k, x, side), float(lo), ref, float(hi)))
    return bad


def _atom_ref(k, x, side):
    with mpmath.workdps(40):
        terms = [mpmath.mpf(w) * mpmath.exp(mpmath.mpf(k) * (mpmath.mpf(v) - mpmath.mpf(x)))
                 for v, w in ATOMS.items() if (v <= x if side == "left" else v >= x)]
        return float(mpmath.log(mpmath.fsum(terms))) if terms else -math.inf


def _pu_ref(k, x, side):
    with mpmath.workdps(40):
        tot = mpmath.mpf(0)
        kk, xx = mpmath.mpf(k), mpmath.mpf(x)
        for a, b, w in zip(EDGES[:-1], EDGES[1:], WEIGHTS, strict=True):
            u0, u1 = (a, min(b, x)) if side == "left" else (max(a, x), b)
            if u1 <= u0 or w == 0:
                continue
            f = mpmath.expm1 if abs(k) * (u1 - u0) < 1 else mpmath.exp  # no cancellation either way
            tot += mpmath.mpf(w) / (b - a) * (f(kk * (u1 - xx)) - f(kk * (u0 - xx))) / kk
        return float(mpmath.log(tot)) if tot > 0 else -math.inf


def _normal_ref(k, x, side, mu=1, s=2):
    """Closed form for N(mu, s^2) (default N(1, 2^2)): e^{k(mu - x) + k^2 s^2 / 2} Phi(+-(x - mu - k s^2)/s)."""
    with mpmath.workdps(40):
        k, x, mu, s = (mpmath.mpf(v) for v in (k, x, mu, s))
        z = (x - mu - s * s * k) / s
        phi = mpmath.ncdf(z) if side == "left" else mpmath.ncdf(-z)
        return float(k * (mu - x) + k * k * s * s / 2 + mpmath.log(phi))


def _spike_ref(k, x, side):
    """Closed form for the spike (piecewise constant, as ``_Spike._pdf``): per piece of
    density h on [a, b], h (e^{k(u1 - x)} - e^{k(u0 - x)}) / k over [u0, u1] = its part on the side."""
    pieces = [(-1.0, 1.0, 0.1 * 0.5), (-1.201, -1.199, 0.9 * 500.0)]
    with mpmath.workdps(40):
        kk, xx, tot = mpmath.mpf(k), mpmath.mpf(x), mpmath.mpf(0)
        for a, b, h in pieces:
            u0, u1 = (mpmath.mpf(a), min(mpmath.mpf(b), xx)) if side == "left" else (max(mpmath.mpf(a), xx), mpmath.mpf(b))
            if u1 > u0:
                tot += mpmath.mpf(h) * (mpmath.exp(kk * (u1 - xx)) - mpmath.exp(kk * (u0 - xx))) / kk
        return float(mpmath.log(tot))


EXACT = [
    (Categorical(ATOMS), _atom_ref, [(k, x, s) for k in (0.3, -0.3, 4.0, -4.0, 1e-9, 1e-100, -1e-100, 300.0, -300.0)
                                     for x in (-3.5, -1.0, 0.37, 4.0, 5.0) for s in ("left", "right")]),
    (PiecewiseUniform(EDGES, WEIGHTS), _pu_ref, [(k, x, s) for k in (0.3, -0.3, 4.0, -4.0, 1e-9, 1e-100, -1e-100, 300.0, -300.0)
                                                 for x in (-2.5, -1.5, 0.55, 0.6, 2.0, 3.5) for s in ("left", "right")]),
    (Normal(1.0, 2.0), _normal_ref, [(k, x, s) for k in (0.3, -0.3, 4.0, -4.0, 1e-9, 1e-100, -1e-100, 300.0, -300.0)
                                     for x in (-60.0, -2.0, 1.0, 3.0, 80.0) for s in ("left", "right")]),
]


@pytest.mark.parametrize(("prior", "ref", "cases"), EXACT, ids=["atoms", "piecewise", "normal"])
def test_closed_form_enclosures_hold_their_reference_and_are_tight(prior, ref, cases):
    assert _violations(prior, cases, ref) == []
    for k, x, side in cases:
        lo, hi = prior.tilted_tail_bounds(k, x, side)
        if math.isfinite(float(hi)):
            assert float(hi - lo) < 1e-11 * max(1.0, abs(float(hi)))


SCIPY = [
    (st.norm(2000, 235.7), 1e-7, [(0.002, 1900.0, "left"), (-0.002, 2100.0, "right"),
                                  (0.05, 2000.0, "left"), (-0.05, 2300.0, "right")]),
    # (gamma's right tail at k = 0.06 grows with the tilt, its integrand decays only as e^{-0.04 x}
    # and is not refined locally: width 1.2e-7 there)
    (st.gamma(3, scale=10), 2e-7, [(0.05, 20.0, "left"), (-0.05, 20.0, "right"), (0.06, 30.0, "right"),
                                   (-0.06, 35.0, "left")]),
    (st.lognorm(0.5, scale=2000), 1e-7, [(1e-3, 2000.0, "left"), (-1e-3, 2500.0, "right")]),
    (st.t(3), 1e-7, [(0.7, 0.3, "left"), (-0.7, -0.2, "right"), (0.2, 4.0, "left")]),
    (st.weibull_min(0.95), 1e-7, [(0.4, 1.0, "left"), (-0.4, 0.5, "right")]),
    (SPIKE, 5e-3, [(0.6, 0.0, "left"), (-0.6, -1.2, "right"), (0.6, -1.0, "left")]),
]


@pytest.mark.parametrize(("dist", "width", "cases"), SCIPY, ids=[d.dist.name for d, _, _ in SCIPY])
def test_scipy_enclosures_hold_the_quadrature(dist, width, cases):
    """Second order where the family declares its log-density's curvature (width 1e-7 in
    the bulk), first order for the spike, whose family is unknown (width about eps times the
    panels' width).  References: mpmath quadrature of the density; the spike's in closed form."""
    prior = Continuous(dist)
    ref = _spike_ref if dist is SPIKE else (lambda k, x, s: _tail_reference(dist, k, x, s))
    bad = _violations(prior, cases, ref)
    assert bad == []
    for k, x, side in cases:
        lo, hi = prior.tilted_tail_bounds(k, x, side)
        assert float(hi - lo) < width * max(1.0, abs(float(hi)))


def _sabotaged(prior, how):
    """A copy of the prior's certified table with a planted error."""
    table = prior._table()
    own = table.own

    def bad_own(k):
        r_lo, r_hi, l_lo, l_hi = (np.array(v, copy=True) for v in own(k))
        j = table.n // 2 if how == "drop" else slice(None)
        if how == "drop":  # one panel's mass left out of both ends
            r_lo[j] = r_hi[j] = l_lo[j] = l_hi[j] = -np.inf
        else:  # both ends moved down by 1e-6 in log
            r_lo, r_hi, l_lo, l_hi = (v - 1e-6 for v in (r_lo, r_hi, l_lo, l_hi))
        return r_lo, r_hi, l_lo, l_hi

    table.own = bad_own
    table._cache.clear()
    return prior


@pytest.mark.parametrize("how", ["drop", "shift"])
def test_a_planted_error_in_a_table_is_caught(how):
    """Dropping one panel, or moving every bound by 1e-6, makes the containment check fail
    (the normal's closed form as the reference)."""
    dist = st.norm(0, 1)
    cases = [(k, x, s) for k in (0.5, -0.5) for x in (-0.5, 0.0, 0.7) for s in ("left", "right")]
    honest = Continuous(dist)
    ref = lambda k, x, s: _normal_ref(k, x, s, mu=0, s=1)  # noqa: E731
    assert _violations(honest, cases, ref) == []
    assert _violations(_sabotaged(Continuous(dist), how), cases, ref) != []


def _excess_ref_atoms(k, x, side):
    with mpmath.workdps(40):
        return float(mpmath.fsum(mpmath.mpf(w) * mpmath.expm1(mpmath.mpf(k) * (mpmath.mpf(v) - mpmath.mpf(x)))
                                 for v, w in ATOMS.items() if (v <= x if side == "left" else v >= x)))


@pytest.mark.parametrize("k", [1e-300, 1e-20, 1e-9, 0.3, -1e-20, -0.3])
def test_excess_form_keeps_every_digit_at_tiny_tilts(k):
    """int (e^{k(u - x)} - 1) dF is relative-accurate however small k is (sums of one sign),
    where the log form would lose it all next to the mass."""
    prior = Categorical(ATOMS)
    for x in (-1.0, 0.37, 2.0):
        for side in ("left", "right"):
            q_lo, q_hi, _, _ = prior.tilted_tail_excess(k, x, side)
            ref = _excess_ref_atoms(k, x, side)
            assert float(q_lo) <= ref <= float(q_hi)
            assert float(q_hi - q_lo) <= 1e-12 * abs(ref)


# ------------------------------------------------------------------------------------------
# branch and bound over the centres
# ------------------------------------------------------------------------------------------
def _semiconcave(rng, eps):
    """f(c) = log(a e^{-eps c} + b e^{eps c}) - eps sqrt(1 + (c - c0)^2): 2 eps-Lipschitz and
    f'' <= eps^2 (a convex log-cosh plus a concave term), with its derivative."""
    a, b, c0 = rng.uniform(0.1, 3), rng.uniform(0.1, 3), rng.uniform(-2, 2)

    def f(c):
        return np.logaddexp(math.log(a) - eps * c, math.log(b) + eps * c) - eps * np.sqrt(1 + (c - c0) ** 2)

    def df(c):
        wa, wb = a * np.exp(-eps * c), b * np.exp(eps * c)
        return eps * (wb - wa) / (wa + wb) - eps * (c - c0) / np.sqrt(1 + (c - c0) ** 2)

    return f, df


@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_interval_bound_holds_on_semiconcave_functions(eps):
    rng = np.random.default_rng(11)
    misses = 0
    for _ in range(200):
        f, df = _semiconcave(rng, eps)
        c1 = rng.uniform(-3, 2)
        c2 = c1 + rng.uniform(1e-3, 2.0)
        bound = float(_interval_bound(eps, np.array([c1]), np.array([c2]), np.array([f(c1)]),
                                      np.array([f(c2)]), np.array([df(c1)]), np.array([df(c2)]))[0])
        dense = float(np.max(f(np.linspace(c1, c2, 4001))))
        assert bound >= dense - 1e-14
        # second order: no looser than the larger of the two quadratic reaches
        assert bound - dense <= eps * eps * (c2 - c1) ** 2 + 1e-12
        # a wrong slope (the derivative at c1 understated by eps / 2) must show
        wrong = float(_interval_bound(eps, np.array([c1]), np.array([c2]), np.array([f(c1)]),
                                      np.array([f(c2)]), np.array([df(c1) - eps / 2]), np.array([df(c2)]))[0])
        misses += wrong < dense - 1e-12
    assert misses > 0


def test_margin_enclosure_holds_the_kernel_posterior():
    """The margin's enclosure at (t, c) contains the margin computed here from the kernel's
    posterior by mpmath quadrature of the normal density."""
    prior, r, delta, eps = Normal(2000, 235.7), 100.0, 0.1, 0.0019
    mg = Margins(prior, r, delta)
    dens = _mp_density(st.norm(2000, 235.7))
    with mpmath.workdps(30):
        for t, frac, side in ((2150.0, 0.3, "upper"), (1800.0, 0.9, "lower"), (2227.4, 0.6, "upper")):
            bl, bh, p_lo, p_hi = mg.ball(np.array([t]))
            c = float(bl[0] + frac * (bh[0] - bl[0]))
            m_lo, m_hi = mg.margin(eps, side, bl, bh, np.array([c]), p_lo, p_hi)
            s = -1 if side == "upper" else 1
            kern = lambda u, c=c, s=s: mpmath.exp(s * eps * abs(u - c)) * dens(u)  # noqa: E731
            lo_, hi_ = mpmath.mpf(t - r), mpmath.mpf(t + r)
            a = mpmath.quad(kern, [lo_, c, hi_])
            o = mpmath.quad(kern, [-mpmath.inf, 0, 1000, lo_]) + mpmath.quad(kern, [hi_, 3000, 5000, mpmath.inf])
            p = (mpmath.erf((hi_ - 2000) / (mpmath.mpf(235.7) * mpmath.sqrt(2)))
                 - mpmath.erf((lo_ - 2000) / (mpmath.mpf(235.7) * mpmath.sqrt(2)))) / 2
            logit = lambda q: mpmath.log(q) - mpmath.log(1 - q)  # noqa: E731
            ref = (mpmath.log(a / o) - logit(p + delta)) if side == "upper" else (logit(p - delta) - mpmath.log(a / o))
            assert float(m_lo[0]) <= float(ref) <= float(m_hi[0])
            assert float(m_hi[0] - m_lo[0]) < 1e-11


# ------------------------------------------------------------------------------------------
# the optimum and the pointwise bound at extreme deltas: closed forms, monotone, never refused
# ------------------------------------------------------------------------------------------
DELTAS = [1e-300, 1e-200, 1e-100, 1e-30, 1e-17, 1e-16, 1e-12, 1e-6, 1e-3, 0.1, 0.3, 0.45, 0.499]


def _coin(delta):
    return math.log1p(2 * delta) - math.log1p(-2 * delta)  # ln((1/2 + d) / (1/2 - d))


@pytest.mark.parametrize("method", ["optimal", "pointwise"])
def test_fair_coin_from_1e_minus_300(method):
    fn = epsilon_optimal if method == "optimal" else epsilon_pointwise
    prior = Categorical({0: 0.5, 1: 0.5})
    prev = 0.0
    for d in sample(DELTAS, 7):
        res = fn(prior, r=0.1, delta=d)
        ref = _coin(d)
        assert res.epsilon <= ref * (1 + 1e-15)
        assert res.epsilon == pytest.approx(ref, rel=1e-12)
        assert res.epsilon >= prev
        prev = res.epsilon


def test_two_atoms_both_sides_from_1e_minus_300():
    """Mass p on the true value: the upper side's ln((p + d)(1 - p) / (p (1 - p - d))) at the
    light atom, the lower side's ln(p (1 - p + d) / ((p - d)(1 - p))) at the heavy one; the
    optimum is the smaller over both atoms and sides."""
    p = 0.2
    prior = Categorical({0.0: p, 1.0: 1 - p})

    def closed(d):
        vals = []
        for q in (p, 1 - p):
            if q + d < 1:
                vals.append(math.log1p(d / q) - math.log1p(-d / (1 - q)))
            if q > d:
                vals.append(-math.log1p(-d / q) + math.log1p(d / (1 - q)))
        return min(vals)

    prev = 0.0
    for d in sample([1e-300, 1e-100, 1e-20, 1e-9, 1e-3, 0.1, 0.19, 0.5, 0.79], 5):
        res = epsilon_optimal(prior, r=0.5, delta=d)
        assert res.epsilon == pytest.approx(closed(d), rel=1e-12)
        assert res.epsilon <= closed(d) * (1 + 1e-15)
        assert res.epsilon >= prev
        prev = res.epsilon


@pytest.mark.parametrize("prior", [Normal(0, 1), Uniform(0, 1)], ids=["normal", "uniform"])
def test_densities_at_tiny_delta_are_answered_monotone(prior):
    """No refusal of a feasible request, and a smaller delta never gets a larger epsilon; the
    answer scales like delta (the advantage is linear in epsilon there).  (Below delta = 1e-4
    the normal prior takes about 10 s a delta: the default run takes it down to 1e-4 and the
    uniform prior down to 1e-100; the full run takes both down to 1e-100.)"""
    prev, ratio = math.inf, {}
    if FULL:
        deltas = (1e-3, 1e-4, 1e-8, 1e-100)
    else:
        deltas = (1e-3, 1e-4, 1e-100) if isinstance(prior, Uniform) else (1e-2, 1e-3, 1e-4)
    for d in deltas:
        res = epsilon_optimal(prior, r=0.25, delta=d, sides="upper")
        assert 0 < res.epsilon <= prev
        prev, ratio[d] = res.epsilon, res.epsilon / d
    for d in deltas[1:-1]:
        assert ratio[d] == pytest.approx(ratio[deltas[-1]], rel=1e-3)


# ------------------------------------------------------------------------------------------
# brackets, witnesses, ties, the clock
# ------------------------------------------------------------------------------------------
def test_bracket_of_the_salary_is_tight_and_its_witness_crosses():
    """The optimum's bracket on the normal prior is within 1e-9; at epsilon_hi the reported
    kernel's posterior, computed here by quadrature, exceeds p + delta."""
    res = epsilon_optimal(Normal(2000, 235.7), r=100, delta=0.1)
    assert res.epsilon <= res.epsilon_hi <= res.epsilon * (1 + 1e-9)
    dens = _mp_density(st.norm(2000, 235.7))
    with mpmath.workdps(30):
        e, c, t = res.epsilon_hi, res.centre, res.t
        kern = lambda u: mpmath.exp(-e * abs(u - c)) * dens(u)  # noqa: E731
        a = mpmath.quad(kern, [t - 100, c, t + 100])
        o = mpmath.quad(kern, [-mpmath.inf, 0, 1000, t - 100]) + mpmath.quad(kern, [t + 100, 3000, 5000, mpmath.inf])
        p = (mpmath.erf((t + 100 - 2000) / (mpmath.mpf(235.7) * mpmath.sqrt(2)))
             - mpmath.erf((t - 100 - 2000) / (mpmath.mpf(235.7) * mpmath.sqrt(2)))) / 2
        assert a / (a + o) - p > 0.1


def test_ties_go_to_the_larger_true_value():
    """A symmetric prior has two equally bad true values (mirror images); the stated rule
    (garesearch.optimal.attribute.tie_break) reports the larger one, for the optimum and the pointwise
    bound, on a density and on a finite prior (the finite prior under sides='both'; the full
    run adds sides='upper')."""
    res = epsilon_optimal(Normal(2000, 235.7), r=100, delta=0.1)
    assert res.t > 2000
    pw = epsilon_pointwise(Normal(2000, 235.7), r=100, delta=0.1)
    assert pw.t > 2000
    for probs in ([0.1, 0.3, 0.2, 0.3, 0.1], [0.3, 0.1, 0.2, 0.1, 0.3]):
        sym = Categorical(dict(zip([-2.0, -1.0, 0.0, 1.0, 2.0], probs, strict=True)))
        for sides in sample(("both", "upper"), 1):
            per_t = {t: epsilon_optimal(sym, r=0.5, delta=0.05, t=t, sides=sides).epsilon
                     for t in (-2.0, -1.0, 0.0, 1.0, 2.0)}
            worst = min(per_t.values())
            tied = [t for t, e in per_t.items() if e <= worst * (1 + 1e-12)]
            assert len(tied) == 2  # a mirror pair binds
            assert epsilon_optimal(sym, r=0.5, delta=0.05, sides=sides).t == max(tied)


def test_answers_do_not_depend_on_the_clock(monkeypatch):
    """The one-attribute optimum and the pointwise bound refine by fixed schedules: a clock
    that runs 25 times slower changes nothing (a scipy density through the certified tables)."""
    prior = Continuous(st.weibull_min(0.95))
    first = (epsilon_optimal(prior, r=0.5, delta=0.1, sides="upper").epsilon,
             epsilon_pointwise(Normal(0, 1), r=0.5, delta=0.1).epsilon)
    real = time.perf_counter
    start = real()
    monkeypatch.setattr(time, "perf_counter", lambda: start + 25 * (real() - start))
    monkeypatch.setattr(time, "monotonic", lambda: start + 25 * (real() - start))
    second = (epsilon_optimal(Continuous(st.weibull_min(0.95)), r=0.5, delta=0.1, sides="upper").epsilon,
              epsilon_pointwise(Normal(0, 1), r=0.5, delta=0.1).epsilon)
    assert first == second


def test_posterior_extremes_report_certified_intervals():
    ext = posterior_extremes(Categorical({0: 0.1, 1: 0.4, 2: 0.3, 3: 0.2}), t=1, r=0, epsilon=1.0)
    # the Laplace kernel at the true atom: 0.4 / (0.4 + (0.1 + 0.3) e^{-1} + 0.2 e^{-2})
    up = 0.4 / (0.4 + 0.4 * math.exp(-1) + 0.2 * math.exp(-2))
    lo, hi = ext["upper_interval"]
    assert lo <= up <= hi and ext["upper"] == pytest.approx(up, rel=1e-13)


# ------------------------------------------------------------------------------------------
# declared tails
# ------------------------------------------------------------------------------------------
def test_tails_come_from_the_family_table_not_from_samples():
    assert Continuous(st.weibull_min(0.95)).tail("right").kind == "heavy"
    assert Continuous(st.gennorm(0.95)).tail("left").kind == "heavy"
    assert Continuous(st.gamma(3, scale=10)).tail_class("right") == ("exponential", 0.1)
    assert Continuous(st.gamma(3, scale=10)).tail("left").kind == "bounded"
    assert Continuous(st.norm()).tail("right").kind == "light"


class _Plain(st.rv_continuous):
    """A logistic density under a name no table knows."""

    def _pdf(self, x):
        return 0.25 / np.cosh(0.5 * x) ** 2

    def _cdf(self, x):  # accurate far into both tails (no 1 - tiny)
        return scipy.special.expit(x)

    def _sf(self, x):
        return scipy.special.expit(-x)

    # (quantiles in closed form: scipy's default inverts the cdf by root finding, 70 % of the
    # test's time)
    def _ppf(self, q):
        return scipy.special.logit(q)

    def _isf(self, q):
        return -scipy.special.logit(q)


def test_an_undeclared_tail_takes_the_sound_default_and_warns():
    with pytest.warns(UndeclaredTailWarning, match="tail=") as rec:
        prior = Continuous(_Plain(name="plain")())
    assert len(rec) == 1
    assert prior.tail("right").kind == "heavy" and prior.tail("left").kind == "heavy"
    declared = Continuous(_Plain(name="plain")(), tail=("exponential", 1.0))
    assert declared.tail_class("left") == ("exponential", 1.0)
    # the declaration decides the far-tail limit of the upper side
    heavy = epsilon_optimal(prior, r=3.0, delta=0.1, sides="upper")
    assert heavy.epsilon <= -math.log1p(-0.1) / 3.0
