"""The declared curvature table of garesearch.enclosures.curvature, checked against the densities themselves.

Every family in the table is checked, for several shape values per parameter range (including
values next to the boundaries between ranges, such as ``gamma(0.95)``, ``(1)`` and ``(1.05)``),
against a log-density ``g`` written out below with mpmath (up to an additive constant, in the
standard variable ``z``):

- the written density is first matched to scipy's ``logpdf`` at ordinary points (differences of
  the log-density between points agree), so it is the family scipy means;
- :func:`check_curvature` then computes ``g''`` with ``mpmath.diff`` (central differences at a
  step of about 1e-54, less near 0, and a working precision three times that of 50 digits) at
  points in every piece that the declaration signs: a dense grid inside it, points within 1e-20
  (relative) of each of its ends, and points far into the tails (up to 1e10 times the piece's
  scale), and requires the declared sign there (a ``g''`` within rounding of 0 passes, as on
  linear pieces).  It also requires the pieces of sign 0 to be only outside the support or
  narrow (enclosures of a break that is not a float), and the support to be the true one
  (scipy's, up to rounding; for ``pearson3`` the half-line where its density is positive).

A planted error (the lognorm break moved by 1 % or by 1e-9, ``gamma(0.95)`` declared concave,
the t break at ``df`` instead of ``sqrt(df)``, or at ``sqrt(df)`` rounded to the nearest float,
and others) must be rejected by the same check.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import warnings

import mpmath as mp
import numpy as np
import pytest
from mpmath import mpf
from scipy import stats
from sweeps import sample

from garesearch.enclosures.curvature import Curvature, declared_families, scipy_curvature
from garesearch.errors import ParameterError

INF = math.inf
DPS = 50
MAXF = mpf(1.7976931348623157e308)
FAR = 10  # probes reach 10^FAR times a piece's scale into an infinite end

log, exp, sqrt, log1p, expm1 = mp.log, mp.exp, mp.sqrt, mp.log1p, mp.expm1


# ------------------------------------------------------------------------------------------
# log-densities, up to an additive constant, in standard form (loc 0, scale 1)


def softplus(y):
    """log(1 + e^y)."""
    return y + log1p(exp(-y)) if y > 0 else log1p(exp(y))


def log_ndtr(z):
    """log Phi(z), by an asymptotic series where mpmath's erfc is slow."""
    if z < -1e8:
        z2, term, total = z * z, mpf(1), mpf(1)
        for n in range(1, 12):
            term *= -(2 * n - 1) / z2
            total += term
        return -z2 / 2 - log(-z) - log(2 * mp.pi) / 2 + log(total)
    if z < 0:
        return log(mp.erfc(-z / sqrt(2)) / 2)
    if z > 1e8:
        return -exp(log_ndtr(-z))
    return log1p(-mp.erfc(z / sqrt(2)) / 2)


def _genextreme(x, c):
    if c == 0:
        return -x - exp(-x)
    return (1 / c - 1) * log1p(-c * x) - exp(log1p(-c * x) / c)


def _pearson3(x, skew):
    if skew == 0:
        return -x * x / 2
    beta, alpha = 2 / skew, 4 / skew**2
    y = beta * (x + 2 / skew)
    return (alpha - 1) * log(y) - y


def _jf_skew_t(x, a, b):
    r = sqrt(a + b + x * x)
    return (a + mpf(1) / 2) * log(1 + x / r) + (b + mpf(1) / 2) * log(1 - x / r)


def _genhyperbolic(x, p, a, b):
    s = sqrt(1 + x * x)
    return b * x + log(mp.besselk(p - mpf(1) / 2, a * s)) + (p - mpf(1) / 2) / 2 * log(1 + x * x)


def _crystalball(x, beta, m):
    if x > -beta:
        return -x * x / 2
    return m * log(m / beta) - beta**2 / 2 - m * log(m / beta - beta - x)


def _triang(x, c):
    return log(x / c) if x < c else log((1 - x) / (1 - c))


def _trapezoid(x, c, d):
    if x < c:
        return log(x / c)
    if x <= d:
        return mpf(0)
    return log((1 - x) / (1 - d))


def _irwinhall(x, n):
    n = int(n)
    x = min(x, n - x)  # the density is symmetric about n/2
    total = sum((-1) ** k * mp.binomial(n, k) * (x - k) ** (n - 1) for k in range(int(mp.floor(x)) + 1))
    return log(total)


def _loglaplace(x, c):
    return (c - 1) * log(x) if x < 1 else -(c + 1) * log(x)


LOGPDF = {
    "norm": lambda x: -x * x / 2,
    "logistic": lambda x: -abs(x) - 2 * log1p(exp(-abs(x))),
    "hypsecant": lambda x: -abs(x) - log1p(exp(-2 * abs(x))),
    "gumbel_r": lambda x: -x - exp(-x),
    "gumbel_l": lambda x: x - exp(x),
    "moyal": lambda x: -(x + exp(-x)) / 2,
    "loggamma": lambda x, c: c * x - exp(x),
    "genlogistic": lambda x, c: -x - (c + 1) * softplus(-x),
    "skewnorm": lambda x, a: -x * x / 2 + log_ndtr(a * x),
    "exponnorm": lambda x, K: -x / K + log_ndtr(x - 1 / K),
    "powernorm": lambda x, c: -x * x / 2 + (c - 1) * log_ndtr(-x),
    "laplace": lambda x: -abs(x),
    "laplace_asymmetric": lambda x, kappa: -kappa * x if x >= 0 else x / kappa,
    "gennorm": lambda x, beta: -abs(x) ** beta,
    "dgamma": lambda x, a: (a - 1) * log(abs(x)) - abs(x),
    "dweibull": lambda x, c: (c - 1) * log(abs(x)) - abs(x) ** c,
    "t": lambda x, df: -(df + 1) / 2 * log1p(x * x / df),
    "cauchy": lambda x: -log1p(x * x),
    "skewcauchy": lambda x, a: -log1p(x * x / (a * mp.sign(x) + 1) ** 2),
    "jf_skew_t": _jf_skew_t,
    "crystalball": _crystalball,
    "genextreme": _genextreme,
    "pearson3": _pearson3,
    "genhyperbolic": _genhyperbolic,
    "truncnorm": lambda x, a, b: -x * x / 2,
    "expon": lambda x: -x,
    "gamma": lambda x, a: (a - 1) * log(x) - x,
    "erlang": lambda x, a: (a - 1) * log(x) - x,
    "chi2": lambda x, df: (df / 2 - 1) * log(x) - x / 2,
    "weibull_min": lambda x, c: (c - 1) * log(x) - x**c,
    "weibull_max": lambda x, c: (c - 1) * log(-x) - (-x) ** c,
    "truncweibull_min": lambda x, c, a, b: (c - 1) * log(x) - x**c,
    "exponweib": lambda x, a, c: (a - 1) * log(-expm1(-(x**c))) - x**c + (c - 1) * log(x),
    "gengamma": lambda x, a, c: (c * a - 1) * log(x) - x**c,
    "chi": lambda x, df: (df - 1) * log(x) - x * x / 2,
    "nakagami": lambda x, nu: (2 * nu - 1) * log(x) - nu * x * x,
    "halfnorm": lambda x: -x * x / 2,
    "rayleigh": lambda x: log(x) - x * x / 2,
    "maxwell": lambda x: 2 * log(x) - x * x / 2,
    "halflogistic": lambda x: -x - 2 * log1p(exp(-x)),
    "halfgennorm": lambda x, beta: -(x**beta),
    "gompertz": lambda x, c: x - c * expm1(x),
    "genexpon": lambda x, a, b, c: log(a - b * expm1(-c * x)) - (a + b) * x - b / c * expm1(-c * x),
    "foldnorm": lambda x, c: -(x - c) ** 2 / 2 + log1p(exp(-2 * c * x)),
    "halfcauchy": lambda x: -log1p(x * x),
    "foldcauchy": lambda x, c: log(1 / (1 + (x - c) ** 2) + 1 / (1 + (x + c) ** 2)),
    "lognorm": lambda x, s: -log(x) - log(x) ** 2 / (2 * s * s),
    "gibrat": lambda x: -log(x) - log(x) ** 2 / 2,
    "loglaplace": _loglaplace,
    "pareto": lambda x, b: -(b + 1) * log(x),
    "truncpareto": lambda x, b, c: -(b + 1) * log(x),
    "lomax": lambda x, c: -(c + 1) * log1p(x),
    "genpareto": lambda x, c: -x if c == 0 else -(1 + 1 / c) * log1p(c * x),
    "invgamma": lambda x, a: -(a + 1) * log(x) - 1 / x,
    "invweibull": lambda x, c: -(c + 1) * log(x) - x ** (-c),
    "levy": lambda x: -1.5 * log(x) - 1 / (2 * x),
    "levy_l": lambda x: -1.5 * log(-x) + 1 / (2 * x),
    "invgauss": lambda x, mu: -1.5 * log(x) - (x - mu) ** 2 / (2 * x * mu * mu),
    "wald": lambda x: -1.5 * log(x) - (x - 1) ** 2 / (2 * x),
    "recipinvgauss": lambda x, mu: -log(x) / 2 - (1 - mu * x) ** 2 / (2 * mu * mu * x),
    "geninvgauss": lambda x, p, b: (p - 1) * log(x) - b * (x + 1 / x) / 2,
    "fatiguelife": lambda x, c: log(x + 1) - 1.5 * log(x) - (x - 1) ** 2 / (2 * x * c * c),
    "alpha": lambda x, a: -2 * log(x) - (a - 1 / x) ** 2 / 2,
    "betaprime": lambda x, a, b: (a - 1) * log(x) - (a + b) * log1p(x),
    "f": lambda x, n1, n2: (n1 / 2 - 1) * log(x) - (n1 + n2) / 2 * log(n2 + n1 * x),
    "burr": lambda x, c, d: -(c + 1) * log(x) - (d + 1) * log1p(x ** (-c)),
    "burr12": lambda x, c, d: (c - 1) * log(x) - (d + 1) * log1p(x**c),
    "fisk": lambda x, c: (c - 1) * log(x) - 2 * log1p(x**c),
    "mielke": lambda x, k, s: (k - 1) * log(x) - (1 + k / s) * log1p(x**s),
    "kappa3": lambda x, a: -(a + 1) / a * log(a + x**a),
    "exponpow": lambda x, b: (b - 1) * log(x) + x**b - exp(x**b),
    "rel_breitwigner": lambda x, rho: -log((x * x - rho * rho) ** 2 + rho * rho),
    "uniform": lambda x: mpf(0),
    "triang": _triang,
    "trapezoid": _trapezoid,
    "powerlaw": lambda x, a: (a - 1) * log(x),
    "bradford": lambda x, c: -log1p(c * x),
    "arcsine": lambda x: -(log(x) + log1p(-x)) / 2,
    "beta": lambda x, a, b: (a - 1) * log(x) + (b - 1) * log1p(-x),
    "gausshyper": lambda x, a, b, c, z: (a - 1) * log(x) + (b - 1) * log1p(-x) - c * log1p(z * x),
    "genhalflogistic": lambda x, c: (1 / c - 1) * log1p(-c * x) - 2 * log1p(exp(log1p(-c * x) / c)),
    "semicircular": lambda x: log1p(-x * x) / 2,
    "rdist": lambda x, c: (c / 2 - 1) * log1p(-x * x),
    "anglit": lambda x: log(mp.cos(2 * x)),
    "cosine": lambda x: log1p(mp.cos(x)),
    "vonmises_line": lambda x, kappa: kappa * mp.cos(x),
    "wrapcauchy": lambda x, c: -log(1 + c * c - 2 * c * mp.cos(x)),
    "truncexpon": lambda x, b: -x,
    "loguniform": lambda x, a, b: -log(x),
    "reciprocal": lambda x, a, b: -log(x),
    "irwinhall": _irwinhall,
}

# shape values per family: every range of the table, and values next to its boundaries
CASES = {
    "norm": [()], "logistic": [()], "hypsecant": [()], "gumbel_r": [()], "gumbel_l": [()],
    "moyal": [()], "loggamma": [(0.4,), (3.0,)], "genlogistic": [(0.3,), (2.5,)],
    "skewnorm": [(-3.0,), (0.0,), (4.0,)], "exponnorm": [(0.5,), (2.0,)],
    "powernorm": [(0.3,), (0.95,), (1.0,), (3.0,)],
    "laplace": [()], "laplace_asymmetric": [(0.5,), (2.0,)],
    "gennorm": [(0.5,), (0.95,), (1.0,), (1.05,), (1.5,), (2.0,), (3.0,), (4.0,)],
    "dgamma": [(0.5,), (0.95,), (1.0,), (1.05,), (2.5,)],
    "dweibull": [(0.5,), (0.95,), (1.0,), (1.05,), (2.0,)],
    "t": [(0.7,), (1.0,), (3.5,), (4.0,), (30.0,)], "cauchy": [()],
    "skewcauchy": [(-0.6,), (0.0,), (0.3,)],
    "jf_skew_t": [(1.5, 2.5), (4.0, 0.75), (2.0, 2.0)],
    "crystalball": [(2.0, 4.5), (1.0, 1.5)],
    "genextreme": [(-1.5,), (-0.5,), (-0.05,), (0.0,), (0.5,), (0.95,), (1.0,), (1.05,), (1.5,)],
    "pearson3": [(0.7,), (-1.3,), (0.0,), (1.95,), (2.0,), (2.05,), (-3.0,)],
    "genhyperbolic": [(1.0, 1.5, 0.5), (1.0, 2.0, -1.2)],
    "truncnorm": [(-1.0, 2.0), (-INF, 0.5), (0.5, INF)],
    "expon": [()], "gamma": [(0.5,), (0.95,), (1.0,), (1.05,), (3.5,)], "erlang": [(1,), (3,)],
    "chi2": [(1.0,), (1.9,), (2.0,), (2.1,), (5.0,)],
    "weibull_min": [(0.5,), (0.95,), (1.0,), (1.05,), (2.0,)],
    "weibull_max": [(0.95,), (1.0,), (1.05,)],
    "truncweibull_min": [(0.95, 0.5, INF), (2.0, 0.0, INF), (2.0, 0.5, 3.0)],
    "exponweib": [(1.0, 0.95), (1.0, 2.0)],
    "gengamma": [(2.0, 0.5), (0.5, 1.0), (1.5, 1.05), (2.0, -1.5), (0.5, -0.5), (0.5, 0.5),
                 (3.0, 0.5), (0.3, 3.0)],
    "chi": [(0.5,), (0.95,), (1.0,), (1.5,), (4.0,)], "nakagami": [(0.3,), (0.5,), (0.7,), (2.0,)],
    "halfnorm": [()], "rayleigh": [()], "maxwell": [()], "halflogistic": [()],
    "halfgennorm": [(0.5,), (0.95,), (1.0,), (1.05,), (3.0,)], "gompertz": [(0.5,), (2.0,)],
    "genexpon": [(1.0, 2.0, 0.5), (0.3, 0.2, 3.0)], "foldnorm": [(0.5,), (1.0,), (1.05,), (2.0,)],
    "halfcauchy": [()], "foldcauchy": [(0.0,), (0.5,), (1.0,), (3.0,)],
    "lognorm": [(0.3,), (0.5,), (0.95,), (1.0,), (1.05,), (2.0,)], "gibrat": [()],
    "loglaplace": [(0.7,), (1.0,), (3.5,)], "pareto": [(0.8,), (2.5,)],
    "truncpareto": [(2.5, 10.0), (1.5, INF)], "lomax": [(0.7,), (3.5,)],
    "genpareto": [(0.5,), (0.0,), (-0.5,), (-0.95,), (-1.0,), (-1.05,), (-2.0,)],
    "invgamma": [(0.7,), (2.5,)], "invweibull": [(0.7,), (1.0,), (3.5,)],
    "levy": [()], "levy_l": [()], "wald": [()], "invgauss": [(0.3,), (2.0,)],
    "recipinvgauss": [(0.3,), (2.0,)], "geninvgauss": [(-0.5, 1.5), (0.95, 2.0), (1.0, 0.5), (2.0, 0.5)],
    "fatiguelife": [(0.3,), (0.5,), (2.0,)], "alpha": [(0.5,), (2.0,)],
    "betaprime": [(2.0, 3.5), (0.5, 0.7), (1.0, 1.0)], "f": [(4.0, 7.0), (1.5, 0.9), (2.0, 2.0)],
    "burr": [(3.5, 2.0), (0.7, 0.5), (3.0, 0.3), (2.0, 0.5), (0.5, 2.0)],
    "burr12": [(2.0, 1.75), (0.5, 3.0), (1.0, 1.0), (1.05, 0.5)], "fisk": [(3.5,), (0.8,), (1.0,)],
    "mielke": [(2.0, 3.5), (0.5, 1.2), (1.0, 0.5)], "kappa3": [(3.5,), (0.6,), (1.0,)],
    "exponpow": [(0.5,), (0.95,), (1.0,), (2.5,)], "rel_breitwigner": [(0.5,), (3.0,)],
    "uniform": [()], "triang": [(0.0,), (0.3,), (1.0,)],
    "trapezoid": [(0.2, 0.8), (0.0, 0.5), (0.3, 0.3), (0.0, 1.0)],
    "powerlaw": [(0.5,), (1.0,), (2.0,)], "bradford": [(0.5,)], "arcsine": [()],
    "beta": [(2.0, 3.0), (0.5, 0.5), (2.0, 0.5), (0.5, 2.0), (1.0, 1.0), (1.0, 0.5), (0.95, 1.05)],
    "gausshyper": [(1.5, 2.0, 1.0, 0.5), (0.5, 3.0, -2.0, 5.0), (2.0, 2.0, 8.0, 3.0)],
    "genhalflogistic": [(0.5,), (0.9,), (1.5,)], "semicircular": [()],
    "rdist": [(1.5,), (2.0,), (3.0,)], "anglit": [()], "cosine": [()],
    "vonmises_line": [(1.0,), (0.0,)], "wrapcauchy": [(0.2,), (0.5,), (0.9,)],
    "truncexpon": [(2.0,), (INF,)], "loguniform": [(1.0, 5.0)], "reciprocal": [(1.0, 5.0)],
    "irwinhall": [(1,), (2,), (3,), (5,)],
}

# true ends of the support where scipy's floats round them, or where scipy's support is wider
TRUE_SUPPORT = {
    "anglit": lambda: (-mp.pi / 4, mp.pi / 4),
    "cosine": lambda: (-mp.pi, mp.pi),
    "vonmises_line": lambda kappa: (-mp.pi, mp.pi),
    "wrapcauchy": lambda c: (mpf(0), 2 * mp.pi),
    "pearson3": lambda skew: (-INF, INF) if skew == 0 else
    ((-2 / mpf(skew), INF) if skew > 0 else (-INF, -2 / mpf(skew))),
}

PARAMS = [pytest.param(name, shapes, id=f"{name}{shapes}") for name in sorted(CASES) for shapes in CASES[name]]


def _frozen(name, shapes, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(stats, name)(*shapes, **kw)


def _support(name, shapes):
    """The support (lo, hi) in standard units, as mpf or +-inf."""
    if name in TRUE_SUPPORT:
        lo, hi = TRUE_SUPPORT[name](*shapes)
    else:
        lo, hi = (float(e) for e in _frozen(name, shapes).support())
    return tuple(e if isinstance(e, float) and math.isinf(e) else mpf(e) for e in (lo, hi))


# ------------------------------------------------------------------------------------------
# the check


def g2(g, z):
    """g''(z) by central differences (mpmath.diff at three times the working precision), with
    the step shrunk near 0, where the support of many families ends; and a tolerance for the
    rounding in it."""
    near0 = min(mpf(1), abs(z)) if z != 0 else mpf(1)
    step = mpf(2) ** -(mp.mp.prec + 10) * near0
    return mp.diff(g, z, 2, h=step), mpf(10) ** (-DPS + 8) * (abs(g(z)) + 1) / near0**2


def _probes(lo, hi):
    """Points inside (lo, hi): a grid, points within 1e-20 of each finite end, far tails."""
    near = [mpf(10) ** -k for k in (20, 14, 9, 6, 4, 3)] + [mpf("0.01"), mpf("0.03")]
    if math.isfinite(lo) and math.isfinite(hi):
        w = hi - lo
        ts = near + [mpf(k) / 24 for k in range(1, 24)]
        ts += [1 - t for t in near]
        return [lo + w * t for t in ts]
    dists = near + [mpf(d) for d in ("0.1", "0.2", "0.3", "0.5", "0.7", 1, "1.5", 2, 3, 5, 7, 10, 20, 50)]
    dists += [mpf(10) ** k for k in range(2, FAR + 1)]
    if math.isfinite(lo):
        scale = max(abs(lo), 1)
        return [lo + d * scale for d in dists]
    if math.isfinite(hi):
        scale = max(abs(hi), 1)
        return [hi - d * scale for d in dists]
    return [mpf(0)] + [s * d for d in dists for s in (-1, 1)]


def check_curvature(name, shapes, curv, loc=0.0, scale=1.0):
    """Raise AssertionError unless ``curv`` is a correct and complete declaration for
    scipy.stats.<name>(*shapes, loc=loc, scale=scale), judged by the density written above."""
    assert isinstance(curv, Curvature), f"{name}{shapes}: no declaration"
    logpdf = LOGPDF[name]
    with mp.workdps(DPS):
        args = [mpf(s) for s in shapes]

        def g(z):
            return logpdf(z, *args)

        loc, scale = mpf(loc), mpf(scale)
        xb = [mpf(b) for b in curv.breaks]
        bounds = [-INF, *xb, INF]
        pieces = [(a, b, s) for (a, b), s in zip(itertools.pairwise(bounds), curv.signs, strict=True)]
        lo_true, hi_true = (e if math.isinf(e) else loc + scale * e for e in _support(name, shapes))
        # the support: nonzero pieces inside it, reaching its ends up to rounding (in x)
        signed = [(a, b) for a, b, s in pieces if s != 0]
        assert signed, f"{name}{shapes}: no signed piece"
        first, last = signed[0][0], signed[-1][1]
        slack = mpf(10) ** (-DPS + 10)
        for end, true, side in ((first, lo_true, -1), (last, hi_true, 1)):
            if math.isinf(true):
                # (or the largest float, when the last break is beyond it)
                assert end == true or abs(end) == MAXF, (
                    f"{name}{shapes}: the support reaches {true}, the pieces stop at {end}")
            else:
                assert math.isfinite(end), f"{name}{shapes}: a signed piece reaches beyond the support end {true}"
                gap = (true - end) * side  # >= 0: the piece stops inside the support
                assert gap >= -slack * max(scale, abs(true)), f"{name}{shapes}: a piece crosses the support end {true}"
                assert gap <= mpf("1e-12") * max(scale, abs(true)), f"{name}{shapes}: the pieces stop short of {true}"
        # unknown pieces inside the support are only narrow enclosures of a break
        for a, b, s in pieces:
            if s == 0 and a > first and b < last:
                assert b - a <= mpf("1e-12") * max(abs(a), abs(b)) + mpf("1e-300"), (
                    f"{name}{shapes}: a wide piece of unknown sign ({a}, {b})")
        # in standard units from here on (g'' in x is g'' in z over scale^2)
        pieces = [(a if math.isinf(a) else (a - loc) / scale, b if math.isinf(b) else (b - loc) / scale, s)
                  for a, b, s in pieces]
        # the declared sign at every probe
        for a, b, s in pieces:
            if s == 0:
                continue
            for z in _probes(a, b):
                d2, tol = g2(g, z)
                assert not isinstance(d2, mp.mpc), f"{name}{shapes}: outside the density's domain at {z}"
                assert s * d2 >= -tol, (
                    f"{name}{shapes}: declared {s:+d} on ({mp.nstr(a, 17)}, {mp.nstr(b, 17)}), "
                    f"but g''({mp.nstr(z, 20)}) = {mp.nstr(d2, 6)}")


def _check_matches_scipy(name, shapes, curv):
    """The written log-density is scipy's up to a constant, at ordinary points of each piece."""
    dist = _frozen(name, shapes)
    lo, hi = (float(e) for e in _support(name, shapes))
    pts = []
    bounds = [-INF, *curv.breaks, INF]
    for (a, b), s in zip(itertools.pairwise(bounds), curv.signs, strict=True):
        if s == 0:
            continue
        a, b = max(a, lo), min(b, hi)
        if math.isfinite(a) and math.isfinite(b):
            pts += [a + (b - a) * t for t in (0.1, 0.3, 0.5, 0.7, 0.9)]
        elif math.isfinite(a):
            pts += [a + d * max(1.0, abs(a)) for d in (0.1, 0.5, 1.0, 2.0, 5.0)]
        elif math.isfinite(b):
            pts += [b - d * max(1.0, abs(b)) for d in (0.1, 0.5, 1.0, 2.0, 5.0)]
        else:
            pts += [-5.0, -2.0, -0.5, 0.3, 1.0, 2.5, 4.0]
    with np.errstate(all="ignore"):
        ref = np.array([float(dist.logpdf(x)) for x in pts])
    keep = [i for i, v in enumerate(ref) if math.isfinite(v) and v > -600]
    assert len(keep) >= 3, f"{name}{shapes}: too few ordinary points"
    with mp.workdps(30):
        mine = [float(LOGPDF[name](mpf(pts[i]), *[mpf(s) for s in shapes])) for i in keep]
    ref = ref[keep]
    for m, r in zip(mine, ref, strict=True):
        assert m - mine[0] == pytest.approx(r - ref[0], rel=1e-7, abs=1e-7), (name, shapes, pts)


# ------------------------------------------------------------------------------------------
# tests


def test_cases_cover_the_table():
    assert set(CASES) == set(declared_families()) == set(LOGPDF)
    from scipy.stats._continuous_distns import _distn_names

    assert set(declared_families()) <= set(_distn_names)


@pytest.mark.parametrize(("name", "shapes"), sample(PARAMS, 100))  # every case in the full run
def test_declared_curvature_fits_the_density(name, shapes):
    dist = _frozen(name, shapes)
    assert bool(np.all(dist.dist._argcheck(*shapes))), "invalid test shapes"
    curv = scipy_curvature(dist)
    assert curv is not None, f"{name}{shapes}: no declaration"
    assert curv.source.startswith(f"scipy.stats.{name}(")
    _check_matches_scipy(name, shapes, curv)
    check_curvature(name, shapes, curv)


E75 = math.exp(0.75)  # the inflection of lognorm(0.5)
R35 = math.sqrt(3.5)

PLANTED = [
    ("lognorm", (0.5,), Curvature((0.0, E75 * 1.01), (0, -1, 1))),
    ("lognorm", (0.5,), Curvature((0.0, E75 * 0.99), (0, -1, 1))),
    ("lognorm", (0.5,), Curvature((0.0, E75), (0, 1, -1))),
    ("gamma", (0.95,), Curvature((0.0,), (0, -1))),
    ("gamma", (1.05,), Curvature((0.0,), (0, 1))),
    ("weibull_min", (0.95,), Curvature((0.0,), (0, -1))),
    ("gennorm", (0.95,), Curvature((0.0,), (-1, -1))),
    ("lognorm", (0.5,), Curvature((0.0, E75 * (1 + 1e-9)), (0, -1, 1))),
    ("t", (3.5,), Curvature((-3.5, 3.5), (1, -1, 1))),
    # sqrt(3.5) rounded to the nearest float, 1.8708286933869707, is below the true root
    ("t", (3.5,), Curvature((-R35, R35), (1, -1, 1))),
    ("t", (3.5,), Curvature((-R35, R35), (-1, 1, -1))),
    ("cauchy", (), Curvature((-1.01, 1.01), (1, -1, 1))),
    ("beta", (2.0, 0.5), Curvature((0.0, 0.6, 1.0), (0, -1, 1, 0))),
    ("beta", (2.0, 0.5), Curvature((0.0, 1.0), (0, -1, 0))),
    ("burr", (3.0, 0.3), Curvature((0.0, 1.2356764311699768), (0, -1, 1))),
    ("invgauss", (2.0,), Curvature((0.0, 1.0), (0, -1, 1))),
    ("crystalball", (2.0, 3.0), Curvature((-2.1,), (1, -1))),
    ("genextreme", (1.05,), Curvature((1 / 1.05,), (-1, 0))),
    ("chi", (0.5,), Curvature((0.0,), (0, -1))),
    # not wrong, but lossy or outside the support
    ("norm", (), Curvature((-1.0, 1.0), (-1, 0, -1))),
    ("gamma", (2.0,), Curvature((0.0, 1.0), (0, 0, -1))),
    ("gamma", (2.0,), Curvature((-0.5,), (0, -1))),
    ("uniform", (), Curvature((), (-1,))),
]


@pytest.mark.parametrize(("name", "shapes", "wrong"), PLANTED,
                         ids=[f"{n}{s}-{w.breaks}-{w.signs}" for n, s, w in PLANTED])
def test_check_rejects_a_planted_error(name, shapes, wrong):
    with pytest.raises(AssertionError):
        check_curvature(name, shapes, wrong)


def test_planted_breaks_are_near_the_declared_ones():
    """The planted errors above are small moves of the true declaration."""
    assert scipy_curvature(stats.lognorm(0.5)).breaks[1] == pytest.approx(E75, rel=1e-15)
    assert scipy_curvature(stats.t(3.5)).breaks[-1] == pytest.approx(R35, rel=1e-15)
    assert scipy_curvature(stats.burr(3.0, 0.3)).breaks[-1] == pytest.approx(1.2356764311699768, rel=1e-15)
    assert scipy_curvature(stats.gamma(0.95)).signs == (0, 1)
    assert scipy_curvature(stats.gamma(1.0)).signs == scipy_curvature(stats.gamma(1.05)).signs == (0, -1)


def test_enclosures_hold_the_true_inflection():
    """A break that is not a float is two adjacent floats around it."""
    c = scipy_curvature(stats.lognorm(0.5))
    assert c.breaks[1] < c.breaks[2] == math.nextafter(c.breaks[1], INF) and c.signs == (0, -1, 0, 1)
    with mp.workdps(40):
        assert mpf(c.breaks[1]) < exp(mpf(0.75)) < mpf(c.breaks[2])
    c = scipy_curvature(stats.t(3.5))
    with mp.workdps(40):
        assert mpf(c.breaks[2]) < sqrt(mpf(3.5)) < mpf(c.breaks[3])
    # exact breaks stay single
    assert scipy_curvature(stats.t(4.0)).breaks == (-2.0, 2.0)
    assert scipy_curvature(stats.invgauss(0.7, scale=3.0)).breaks == (0.0, 2.0)
    assert scipy_curvature(stats.lognorm(1.0)).breaks == (0.0, 1.0)
    # an inflection below the smallest float merges with the support end
    assert scipy_curvature(stats.lognorm(30.0)).signs == (0, 1)


@pytest.mark.parametrize(
    ("name", "shapes", "loc", "scale"),
    [("lognorm", (0.5,), 1e6, 1e-3), ("t", (3.5,), -2.0, 7.0), ("beta", (2.0, 0.5), 0.1, 3.0),
     ("laplace", (), 1.5, 0.25), ("triang", (0.3,), 1.0, 3.0), ("burr", (3.0, 0.3), 5.0, 0.5)],
)
def test_loc_and_scale(name, shapes, loc, scale):
    std = scipy_curvature(_frozen(name, shapes))
    moved = scipy_curvature(_frozen(name, shapes, loc=loc, scale=scale))
    family = getattr(stats, name)
    names = [s.strip() for s in family.shapes.split(",")] if family.shapes else []
    keyed = scipy_curvature(_frozen(name, (), **dict(zip(names, shapes, strict=True)), loc=loc, scale=scale))
    assert keyed == moved
    assert f"loc={loc:g}" in moved.source and f"scale={scale:g}" in moved.source
    # the same pattern of signs (enclosures may differ with the rounding), checked in place
    assert [s for s in moved.signs if s] == [s for s in std.signs if s]
    check_curvature(name, shapes, moved, loc=loc, scale=scale)


def test_sign_of_intervals():
    c = scipy_curvature(stats.t(4.0))  # breaks -2, 2: convex, concave, convex
    assert c.sign(-1.0, 1.0) == -1
    assert c.sign(-2.0, 2.0) == -1  # touching both breaks
    assert c.sign(-3.0, -2.0) == 1 and c.sign(2.0, 1e300) == 1 and c.sign(-INF, -2.0) == 1
    assert c.sign(1.0, 3.0) == 0 and c.sign(-INF, INF) == 0  # straddling
    assert c.sign(0.5, 0.5) == -1 and c.sign(2.0, 2.0) == 0  # a point; on a break between signs
    assert c.sign(math.nan, 1.0) == 0
    out = c.sign(np.array([-5.0, -1.0, 0.0, 2.0]), np.array([-2.5, 1.5, 2.5, 9.0]))
    assert out.tolist() == [1, -1, 0, 1] and out.dtype.kind == "i"
    assert c.sign(np.array([[-1.0], [-0.5]]), np.array([0.0, 4.0])).tolist() == [[-1, 0], [-1, 0]]
    assert isinstance(c.sign(0.0, 1.0), int)
    with pytest.raises(ParameterError, match="x0 <= x1"):
        c.sign(1.0, 0.0)
    g = scipy_curvature(stats.gamma(2.0, loc=1.0))  # support [1, inf)
    assert g.sign(1.0, 5.0) == -1 and g.sign(0.5, 5.0) == 0 and g.sign(-3.0, 0.5) == 0
    lap = scipy_curvature(stats.laplace())
    assert lap.sign(-1.0, 0.0) == lap.sign(0.0, 1.0) == lap.sign(0.0, 0.0) == -1 and lap.sign(-1.0, 1.0) == 0
    ln = scipy_curvature(stats.lognorm(0.5))  # (0, 2.117.., 2.117.. + ulp)
    lo, hi = ln.breaks[1], ln.breaks[2]
    assert ln.sign(1.0, lo) == -1 and ln.sign(hi, 5.0) == 1
    assert ln.sign(1.0, hi) == 0 and ln.sign(lo, 5.0) == 0 and ln.sign(lo, hi) == 0
    assert Curvature((), (1,)).sign(-INF, INF) == 1


def test_curvature_validation():
    assert Curvature([0, 1], [0, np.int64(-1), 0]).breaks == (0.0, 1.0)
    assert Curvature((-0.0,), (1, 1)).breaks == (0.0,)
    for breaks, signs in [((1.0, 0.0), (0, 0, 0)), ((0.0, 0.0), (0, 0, 0)), ((INF,), (0, 0)),
                          ((math.nan,), (0, 0)), ((0.0,), (1,)), ((0.0,), (1, 2)), ((0.0,), (1, True)),
                          ((0.0,), (1, 0.5)), (("a",), (1, 1)), ((), ())]:
        with pytest.raises(ParameterError, match="Curvature"):
            Curvature(breaks, signs)
    with pytest.raises(ParameterError, match="source"):
        Curvature((), (1,), None)


def test_left_out_and_invalid():
    for dist in (stats.johnsonsu(1.0, 2.0), stats.johnsonsb(0.5, 1.5), stats.rice(1.0), stats.nct(3.0, 1.0),
                 stats.vonmises(1.0), stats.tukeylambda(0.5), stats.norminvgauss(1.5, 0.5),
                 stats.exponweib(2.0, 1.5), stats.genhyperbolic(0.5, 1.5, 0.5), stats.powerlognorm(2.0, 0.5)):
        assert scipy_curvature(dist) is None, dist.dist.name

    class Mine(stats.rv_continuous):
        def _pdf(self, x):
            return np.exp(-np.abs(x)) / 2

    assert scipy_curvature(Mine(name="mine")()) is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert scipy_curvature(stats.gamma(-1.0)) is None
        assert scipy_curvature(stats.norm(scale=-1.0)) is None
        assert scipy_curvature(stats.norm(loc=math.inf)) is None
    assert scipy_curvature(stats.norm([0.0, 1.0])) is None
    assert scipy_curvature(stats.t(INF)) is None  # a limit (the normal law), not derived here
    assert scipy_curvature(stats.t(np.array(3.5))) == scipy_curvature(stats.t(3.5))
    with pytest.raises(ParameterError, match="frozen"):
        scipy_curvature(stats.norm)


def test_import_stays_light():
    code = "import sys, garesearch.enclosures.curvature; print('scipy' in sys.modules, 'mpmath' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
