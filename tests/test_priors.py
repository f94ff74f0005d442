"""One contract for every Prior subclass: ball masses, tail masses, quantiles and tilted masses,
each against scipy's own distribution functions or mpmath at 40 digits.

Each case names the prior and an independent description of it (a scipy frozen distribution,
or atoms with their masses).
"""

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from garesearch.priors import Categorical, Continuous, Normal, PiecewiseUniform, Uniform

ATOMS = {0.0: 0.1, 1.0: 0.3, 2.5: 0.2, 7.0: 0.25, 9.0: 0.15}

CASES = {
    "normal": (Normal(2000.0, 235.7), stats.norm(2000.0, 235.7)),
    "uniform": (Uniform(-1.0, 3.0), stats.uniform(-1.0, 4.0)),
    "piecewise": (PiecewiseUniform([0.0, 1.0, 3.0, 10.0], [0.2, 0.5, 0.3]), None),
    "lognormal": (Continuous(stats.lognorm(0.5, scale=2000)), stats.lognorm(0.5, scale=2000)),
    "student_t": (Continuous(stats.t(3)), stats.t(3)),
    "gamma": (Continuous(stats.gamma(3.0)), stats.gamma(3.0)),
    "atoms": (Categorical(ATOMS), None),
}


def _piecewise_cdf(x):
    """CDF of the piecewise-uniform case, written out."""
    edges, weights = [0.0, 1.0, 3.0, 10.0], [0.2, 0.5, 0.3]
    total = 0.0
    for a, b, w in zip(edges[:-1], edges[1:], weights, strict=True):
        total += w * min(max((x - a) / (b - a), 0.0), 1.0)
    return total


def _atoms_mass(lo, hi):
    return sum(p for x, p in ATOMS.items() if lo <= x <= hi)


def _reference_mass(name, lo, hi):
    _prior, dist = CASES[name]
    if name == "piecewise":
        return _piecewise_cdf(hi) - _piecewise_cdf(lo)
    if name == "atoms":
        return _atoms_mass(lo, hi)
    return float(dist.cdf(hi) - dist.cdf(lo)) if hi > lo else 0.0


def _points(name):
    prior, _ = CASES[name]
    if name == "atoms":
        return [-1.0, 0.0, 0.5, 1.0, 2.5, 8.0, 9.0, 10.0]
    qs = np.asarray(prior.quantile(np.array([0.01, 0.2, 0.5, 0.8, 0.99])), dtype=float)
    return [float(q) for q in qs]


@pytest.mark.parametrize("name", list(CASES))
def test_ball_masses_are_the_distribution_functions(name):
    prior, _ = CASES[name]
    pts = _points(name)
    for t in pts:
        for z in (0.0, 0.3, 1.0, 5.0, 100.0):
            got = prior.ball_mass(t, z) if name != "atoms" else float(prior.mass(t - z, t + z))
            assert got == pytest.approx(_reference_mass(name, t - z, t + z), rel=1e-10, abs=1e-15)
    # an empty interval has no mass
    assert float(prior.mass(pts[2], pts[1])) == 0.0


@pytest.mark.parametrize("name", [n for n in CASES if n != "atoms"])
def test_quantiles_invert_the_cdf(name):
    prior, dist = CASES[name]
    u = np.array([1e-6, 0.01, 0.3, 0.5, 0.9, 1 - 1e-6])
    q = np.asarray(prior.quantile(u), dtype=float)
    if dist is not None:
        assert q == pytest.approx(dist.ppf(u), rel=1e-9)
    else:
        assert [_piecewise_cdf(x) for x in q] == pytest.approx(u, rel=1e-9)
    # the upper quantile keeps its digits for tiny tail masses
    m = np.array([1e-5, 1e-12])
    up = np.asarray(prior.upper_quantile(m), dtype=float)
    if dist is not None:
        assert up == pytest.approx(dist.isf(m), rel=1e-9)


def _tilted_reference(name, k, lo, hi, anchor):
    """log of int_{lo <= u <= hi} e^{k (u - anchor)} dF(u), at 40 digits."""
    _prior, dist = CASES[name]
    k, anchor = mpmath.mpf(k), mpmath.mpf(anchor)
    if name == "atoms":
        terms = [mpmath.mpf(p) * mpmath.exp(k * (x - anchor)) for x, p in ATOMS.items() if lo <= x <= hi]
        return mpmath.log(mpmath.fsum(terms)) if terms else -mpmath.inf
    if name == "piecewise":
        total = mpmath.mpf(0)
        for a, b, w in zip([0.0, 1.0, 3.0], [1.0, 3.0, 10.0], [0.2, 0.5, 0.3], strict=True):
            a2, b2 = max(a, lo), min(b, hi)
            if b2 > a2:
                dens = mpmath.mpf(w) / (b - a)
                total += dens * (mpmath.exp(k * (b2 - anchor)) - mpmath.exp(k * (a2 - anchor))) / k
        return mpmath.log(total)
    if name == "normal":
        mu, s = mpmath.mpf(2000), mpmath.mpf("235.7")
        z = lambda x: (mpmath.mpf(x) - mu - k * s * s) / s  # noqa: E731
        return k * (mu - anchor) + k * k * s * s / 2 + mpmath.log(mpmath.ncdf(z(hi)) - mpmath.ncdf(z(lo)))
    support = dist.support()
    a, b = max(lo, support[0]), min(hi, support[1])
    pts = sorted({a, b, *(float(x) for x in dist.ppf([0.01, 0.5, 0.99])
                          if a < float(x) < b)})
    # (the integrand is scipy's double-precision density: 20 digits of quadrature suffice)
    with mpmath.workdps(20):
        val = mpmath.quad(lambda u: mpmath.exp(k * (u - anchor) + float(dist.logpdf(float(u)))), pts)
    return mpmath.log(val)


@pytest.mark.parametrize("name", list(CASES))
def test_tilted_masses_match_mpmath(name):
    prior, _ = CASES[name]
    pts = _points(name)
    span = pts[-1] - pts[0]
    with mpmath.workdps(40):
        for k in (0.5 / span, -0.5 / span, 3.0 / span, -3.0 / span):
            lo, hi = pts[1], pts[3]
            anchor = pts[2]
            got = prior.log_tilted_mass(k, lo, hi, anchor)
            ref = float(_tilted_reference(name, k, lo, hi, anchor))
            b_lo, b_hi = prior.tilted_mass_bounds(k, lo, hi, anchor)
            assert b_lo <= ref <= b_hi  # the certified enclosure holds the 40-digit value
            rel = 1e-12 if name in ("normal", "piecewise", "atoms", "uniform") else 1e-7
            assert got == pytest.approx(ref, rel=rel, abs=rel)
            assert b_hi - b_lo <= 2 * rel * max(1.0, abs(ref))


@pytest.mark.parametrize("name", list(CASES))
def test_tail_mgf_matches_mpmath(name):
    """M(eps) = int over x < lo or x > hi of e^{eps max(|x - lo|, |x - hi|)} dF: the lower
    side's tail term, against the 40-digit tilted integrals of each tail written out
    (D = x - lo above hi, hi - x below lo; atoms at lo and hi are inside)."""
    prior, _ = CASES[name]
    pts = _points(name)
    span = pts[-1] - pts[0]
    lo, hi = pts[1], pts[3]
    low, high = prior.support
    with mpmath.workdps(40):
        for e in (0.5 / span, 3.0 / span):
            up_hi = float(np.nextafter(hi, np.inf)) if name == "atoms" else hi
            dn_lo = float(np.nextafter(lo, -np.inf)) if name == "atoms" else lo
            terms = []
            if hi < high:  # int_{x > hi} e^{e (x - lo)} dF
                terms.append(mpmath.exp(_tilted_reference(name, e, up_hi, high, lo)))
            if lo > low:  # int_{x < lo} e^{e (hi - x)} dF
                terms.append(mpmath.exp(_tilted_reference(name, -e, low, dn_lo, hi)))
            want = float(mpmath.fsum(terms))
            rel = 1e-12 if name in ("normal", "piecewise", "atoms", "uniform") else 1e-7
            # an upper bound (the lower side's safe end), tight to rel
            assert want <= prior.tail_mgf(e, lo, hi) <= want * (1 + rel)
            assert prior.log_tail_mgf(e, lo, hi) == pytest.approx(math.log(want), rel=rel, abs=rel)
    # no mass outside: M = 0; a tail heavier than the tilt: M = inf
    if math.isfinite(low) and math.isfinite(high):
        assert prior.tail_mgf(1.0, low - 1.0, high + 1.0) == 0.0
        assert prior.log_tail_mgf(1.0, low - 1.0, high + 1.0) == -math.inf
    if name in ("lognormal", "student_t"):
        assert prior.tail_mgf(1e-3, lo, hi) == math.inf
    if name == "gamma":  # exponential tail of rate 1
        assert prior.tail_mgf(1.5, lo, hi) == math.inf
        assert math.isfinite(prior.tail_mgf(0.5, lo, hi))


@pytest.mark.parametrize("name", list(CASES))
def test_tilted_tails_add_up_to_the_tilted_total(name):
    """LT_k(x) + RT_k(x) (sharing only what sits exactly at x) is the same total at every x,
    once anchored alike: int e^{k(u - x)} dF = e^{k(x0 - x)} int e^{k(u - x0)} dF."""
    prior, _ = CASES[name]
    pts = _points(name)
    span = pts[-1] - pts[0]
    k = 0.7 / span
    tot = []
    for x in pts[1:4]:
        below = prior.log_tilted_tail(k, np.nextafter(x, -np.inf), "left")
        above = prior.log_tilted_tail(k, x, "right")
        tot.append(float(np.logaddexp(below, above)) + k * x)
    assert tot == pytest.approx([tot[0]] * len(tot), rel=1e-9)


def test_support_and_finiteness():
    assert Normal(0, 1).support == (-math.inf, math.inf)
    assert Uniform(-1, 3).support == (-1.0, 3.0)
    assert Categorical(ATOMS).support == (0.0, 9.0)
    assert Categorical(ATOMS).is_finite and not Normal(0, 1).is_finite
