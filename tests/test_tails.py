"""The declared tail table of garesearch.enclosures.tails, checked against the densities themselves.

Every family in the table is checked, for a few shape values per parameter range (including
values next to the class boundaries, such as ``weibull_min(0.95)`` and ``(1.05)``), against a
log-density written out below with mpmath (up to an additive constant) and evaluated at
``|x| = 10^k`` for k from 8 to 256, far beyond double precision:

- the written density is first matched to scipy's ``logpdf`` in the bulk (differences of the
  log-density between points agree), so it is the family scipy means;
- the slope :math:`\\rho = -(\\log f)'` toward the end (a central difference at 60 digits)
  has the same limit as the hazard :math:`f / S`, and :func:`check_tail` reads the class off
  its trend: exponential, :math:`\\rho \\to \\lambda` within a tolerance shrinking with
  depth; light, :math:`\\rho` grows by orders of magnitude; heavy, :math:`\\rho` falls by
  orders of magnitude, and the Pareto index :math:`|x| \\rho - 1` converges to the moment
  index (or grows without bound, when every moment is finite).

Two families are read differently: Tukey's lambda through its quantile function (exact
hazard :math:`1 / ((1-p) Q'(p))`), Landau's through its integral representations by
quadrature.  A planted error (``weibull_min(0.95)`` declared exponential, and others) must
be rejected by the same check.
"""

from __future__ import annotations

import math
import warnings
from itertools import pairwise

import mpmath as mp
import numpy as np
import pytest
from mpmath import mpf
from scipy import stats
from sweeps import sample

from garesearch.enclosures.tails import Tail, declared_families, parse_tail, scipy_tail
from garesearch.errors import ParameterError

INF = math.inf
DEPTHS = (8, 16, 32, 64, 128, 256)  # |x| = 10^k in standard units
DPS = 60

# ------------------------------------------------------------------------------------------
# log-densities, up to an additive constant, in standard form (loc 0, scale 1)

log, exp, sqrt, log1p, expm1 = mp.log, mp.exp, mp.sqrt, mp.log1p, mp.expm1


def softplus(y):
    """log(1 + e^y)."""
    return y + log1p(exp(-y)) if y > 0 else log1p(exp(y))


def log_ndtr(z):
    """log Phi(z), by an asymptotic series where mpmath's erfc gives up."""
    if z < -1e8:
        z2, term, total = z * z, mpf(1), mpf(1)
        for n in range(1, 8):
            term *= -(2 * n - 1) / z2
            total += term
        return -z2 / 2 - log(-z) - log(2 * mp.pi) / 2 + log(total)
    if z < 0:
        return log(mp.erfc(-z / sqrt(2)) / 2)
    if z > 1e8:
        return -exp(log_ndtr(-z))
    return log1p(-mp.erfc(z / sqrt(2)) / 2)


def log_phi(z):
    return -z * z / 2


def _bessel_k_tilted(nu, a, b, x):
    """b x + log K_nu(a sqrt(1 + x^2)) without cancelling b x against a sqrt(1 + x^2)
    (log K_nu(z) + z at the extra digits that z has)."""
    s = sqrt(1 + x * x)
    z = a * s
    with mp.extradps(int(mp.log10(z + 1)) + 10):
        scaled = log(mp.besselk(nu, z)) + z
    tilt = (b - a) * x - a / (s + x) if x >= 0 else (a + b) * x - a / (s - x)
    return tilt + scaled


def _kappa4(x, h, k):
    if k == 0:
        a, log_t = -x, -x
    else:
        a, log_t = (1 / k - 1) * log1p(-k * x), log1p(-k * x) / k
    t = exp(log_t)
    return a + (-t if h == 0 else (1 / h - 1) * log1p(-h * t))


def _genextreme(x, c):
    if c == 0:
        return -x - exp(-x)
    return (1 / c - 1) * log1p(-c * x) - exp(log1p(-c * x) / c)


def _pearson3(x, skew):
    if skew == 0:
        return -x * x / 2
    beta, alpha = 2 / skew, 4 / skew**2
    y = beta * (x + 2 / skew)
    return (alpha - 1) * log(y) - y if y > 0 else -mp.inf


def _jf_skew_t(x, a, b):
    r = sqrt(a + b + x * x)
    up, down = (1 + x / r, (a + b) / (r * (r + x))) if x >= 0 else ((a + b) / (r * (r - x)), 1 - x / r)
    return (a + mpf(1) / 2) * log(up) + (b + mpf(1) / 2) * log(down)


def _dpareto_lognorm(x, u, s, a, b):
    z = (log(x) - u) / s

    def log_r(t):  # log Mills ratio (1 - Phi(t)) / phi(t)
        return log_ndtr(-t) - log_phi(t)

    return -log(x) + log_phi(z) + softplus(log_r(b * s + z) - log_r(a * s - z)) + log_r(a * s - z)


def _nct(x, df, nc):
    q = df + x * x
    arg = nc * nc * x * x / (2 * q)
    first = sqrt(2) * nc * x / q * mp.hyp1f1(df / 2 + 1, mpf(3) / 2, arg) / mp.gamma((df + 1) / 2)
    second = mp.hyp1f1((df + 1) / 2, mpf(1) / 2, arg) / (sqrt(q) * mp.gamma(df / 2 + 1))
    return -(df / 2) * log(q) + log(first + second)


def _ncf(x, n1, n2, nc):
    w = n1 * x / (n2 + n1 * x)
    return (-log(x) + (n2 / 2) * log(n2 / (n2 + n1 * x)) + (n1 / 2) * log(w)
            + log(mp.hyp1f1((n1 + n2) / 2, n1 / 2, nc * w / 2)))


def _landau(x):
    """The log-density of Landau's X (Laplace transform s^s) by quadrature: the sine integral for x >= -1, the inversion integral
    through its saddle point c = exp(-x - 1) below."""
    if x >= -1:
        s = max(x, mpf(1))

        def f(u):
            t = u / s
            return exp(-t * log(t) - x * t) * mp.sin(mp.pi * t) if t > 0 else mpf(0)

        return log(mp.quad(f, [0, 1, 2, 4, 8, 16, 32, 64, mp.inf]) / (mp.pi * s))
    c = exp(-x - 1)
    sc = sqrt(c)

    def g(v):  # Re exp(c G(u)) with G(u) = (1+u) log(1+u) - u, u = i v / sqrt(c)
        u = mp.mpc(0, v / sc)
        if abs(u) < 1e-4:
            gu = sum((-1) ** n * u**n / (n * (n - 1)) for n in range(2, 16))
        else:
            gu = (1 + u) * log(1 + u) - u
        return mp.re(exp(c * gu))

    # g is even (G has real Taylor coefficients): twice the integral over v > 0
    return -c + log(sc) - log(mp.pi) + log(mp.quad(g, [0, 8, mp.inf]))


def _kstwobign(x):
    total = sum((-1) ** (k - 1) * k * k * exp(-2 * k * k * x * x) for k in range(1, 60))
    return log(x) + log(total)


LOGPDF = {
    "norm": lambda x: -x * x / 2,
    "halfnorm": lambda x: -x * x / 2,
    "foldnorm": lambda x, c: -(x - c) ** 2 / 2 + log1p(exp(-2 * c * x)),
    "truncnorm": lambda x, a, b: -x * x / 2,
    "skewnorm": lambda x, a: -x * x / 2 + log_ndtr(a * x),
    "powernorm": lambda x, c: -x * x / 2 + (c - 1) * log_ndtr(-x),
    "chi": lambda x, df: (df - 1) * log(x) - x * x / 2,
    "maxwell": lambda x: 2 * log(x) - x * x / 2,
    "rayleigh": lambda x: log(x) - x * x / 2,
    "rice": lambda x, b: log(x) - (x * x + b * b) / 2 + log(mp.besseli(0, x * b)),
    "nakagami": lambda x, nu: (2 * nu - 1) * log(x) - nu * x * x,
    "kstwobign": _kstwobign,
    "gompertz": lambda x, c: x - c * expm1(x),
    "exponpow": lambda x, b: (b - 1) * log(x) + x**b - exp(x**b),
    "expon": lambda x: -x,
    "gamma": lambda x, a: (a - 1) * log(x) - x,
    "erlang": lambda x, a: (a - 1) * log(x) - x,
    "chi2": lambda x, df: (df / 2 - 1) * log(x) - x / 2,
    "laplace": lambda x: -abs(x),
    "laplace_asymmetric": lambda x, kappa: -kappa * x if x >= 0 else x / kappa,
    "dgamma": lambda x, a: (a - 1) * log(abs(x)) - abs(x),
    "logistic": lambda x: -abs(x) - 2 * log1p(exp(-abs(x))),
    "halflogistic": lambda x: -x - 2 * log1p(exp(-x)),
    "hypsecant": lambda x: -abs(x) - log1p(exp(-2 * abs(x))),
    "genlogistic": lambda x, c: -x - (c + 1) * softplus(-x),
    "gumbel_r": lambda x: -x - exp(-x),
    "gumbel_l": lambda x: x - exp(x),
    "moyal": lambda x: -(x + exp(-x)) / 2,
    "loggamma": lambda x, c: c * x - exp(x),
    "exponnorm": lambda x, K: -x / K + log_ndtr(x - 1 / K),
    "fatiguelife": lambda x, c: log(x + 1) - 1.5 * log(x) - (x - 1) ** 2 / (2 * x * c * c),
    "invgauss": lambda x, mu: -1.5 * log(x) - (x - mu) ** 2 / (2 * x * mu * mu),
    "wald": lambda x: -1.5 * log(x) - (x - 1) ** 2 / (2 * x),
    "recipinvgauss": lambda x, mu: -log(x) / 2 - (1 - mu * x) ** 2 / (2 * mu * mu * x),
    "geninvgauss": lambda x, p, b: (p - 1) * log(x) - b * (x + 1 / x) / 2,
    "genexpon": lambda x, a, b, c: log(a - b * expm1(-c * x)) - (a + b) * x - b / c * expm1(-c * x),
    "ncx2": lambda x, df, nc: -(x + nc) / 2 + (df / 4 - mpf(1) / 2) * log(x / nc)
    + log(mp.besseli(df / 2 - 1, sqrt(nc * x))),
    "norminvgauss": lambda x, a, b: _bessel_k_tilted(1, a, b, x) - log(1 + x * x) / 2,
    "genhyperbolic": lambda x, p, a, b: _bessel_k_tilted(p - mpf(1) / 2, a, b, x)
    + (p - mpf(1) / 2) / 2 * log(1 + x * x),
    "pearson3": _pearson3,
    "truncexpon": lambda x, b: -x,
    "weibull_min": lambda x, c: (c - 1) * log(x) - x**c,
    "weibull_max": lambda x, c: (c - 1) * log(-x) - (-x) ** c,
    "truncweibull_min": lambda x, c, a, b: (c - 1) * log(x) - x**c,
    "dweibull": lambda x, c: (c - 1) * log(abs(x)) - abs(x) ** c,
    "exponweib": lambda x, a, c: (a - 1) * log(-expm1(-(x**c))) - x**c + (c - 1) * log(x),
    "gennorm": lambda x, beta: -abs(x) ** beta,
    "halfgennorm": lambda x, beta: -(x**beta),
    "gengamma": lambda x, a, c: (c * a - 1) * log(x) - x**c,
    "genextreme": _genextreme,
    "genpareto": lambda x, c: -x if c == 0 else -(1 + 1 / c) * log1p(c * x),
    "kappa4": _kappa4,
    "lognorm": lambda x, s: -log(x) - log(x) ** 2 / (2 * s * s),
    "gibrat": lambda x: -log(x) - log(x) ** 2 / 2,
    "powerlognorm": lambda x, c, s: -log(x) + log_phi(log(x) / s) + (c - 1) * log_ndtr(-log(x) / s),
    "johnsonsu": lambda x, a, b: -log(x * x + 1) / 2 - (a + b * mp.asinh(x)) ** 2 / 2,
    "cauchy": lambda x: -log1p(x * x),
    "halfcauchy": lambda x: -log1p(x * x),
    "foldcauchy": lambda x, c: log(1 / (1 + (x - c) ** 2) + 1 / (1 + (x + c) ** 2)),
    "skewcauchy": lambda x, a: -log1p(x * x / (a * mp.sign(x) + 1) ** 2),
    "t": lambda x, df: -(df + 1) / 2 * log1p(x * x / df),
    "nct": _nct,
    "pareto": lambda x, b: -(b + 1) * log(x),
    "truncpareto": lambda x, b, c: -(b + 1) * log(x),
    "lomax": lambda x, c: -(c + 1) * log1p(x),
    "invgamma": lambda x, a: -(a + 1) * log(x) - 1 / x,
    "invweibull": lambda x, c: -(c + 1) * log(x) - x ** (-c),
    "levy": lambda x: -1.5 * log(x) - 1 / (2 * x),
    "levy_l": lambda x: -1.5 * log(-x) + 1 / (2 * x),
    "alpha": lambda x, a: -2 * log(x) - (a - 1 / x) ** 2 / 2,
    "betaprime": lambda x, a, b: (a - 1) * log(x) - (a + b) * log1p(x),
    "f": lambda x, n1, n2: (n1 / 2 - 1) * log(x) - (n1 + n2) / 2 * log(n2 + n1 * x),
    "ncf": _ncf,
    "burr": lambda x, c, d: -(c + 1) * log(x) - (d + 1) * log1p(x ** (-c)),
    "burr12": lambda x, c, d: (c - 1) * log(x) - (d + 1) * log1p(x**c),
    "fisk": lambda x, c: (c - 1) * log(x) - 2 * log1p(x**c),
    "mielke": lambda x, k, s: (k - 1) * log(x) - (1 + k / s) * log1p(x**s),
    "kappa3": lambda x, a: -(a + 1) / a * log(a + x**a),
    "loglaplace": lambda x, c: -(c + 1) * log(x) if x >= 1 else (c - 1) * log(x),
    "dpareto_lognorm": _dpareto_lognorm,
    "jf_skew_t": _jf_skew_t,
    "crystalball": lambda x, beta, m: -x * x / 2 if x > -beta
    else m * log(m / beta) - beta**2 / 2 - m * log(m / beta - beta - x),
    "rel_breitwigner": lambda x, rho: -log((x * x - rho * rho) ** 2 + rho * rho),
    # scipy's landau is (2/pi) X + (2/pi) log(2/pi) for Landau's X
    "landau": lambda x: _landau(mp.pi / 2 * x - log(2 / mp.pi)) + log(mp.pi / 2),
}

# shape values per family: every range of the table, and values next to its boundaries
CASES = {
    # on a finite interval for every shape
    "anglit": [()], "arcsine": [()], "argus": [(1.0,)], "beta": [(2.0, 3.0)],
    "bradford": [(0.5,)], "cosine": [()], "gausshyper": [(1.5, 2.0, 1.0, 0.5)],
    "genhalflogistic": [(0.5,)], "irwinhall": [(3,)], "johnsonsb": [(0.5, 1.5)],
    "ksone": [(10,)], "kstwo": [(10,)], "loguniform": [(1.0, 5.0)], "powerlaw": [(2.0,)],
    "rdist": [(3.0,)], "reciprocal": [(1.0, 5.0)], "semicircular": [()],
    "trapezoid": [(0.2, 0.8)], "triang": [(0.3,)], "uniform": [()],
    "vonmises_line": [(1.0,)], "wrapcauchy": [(0.5,)],
    # light
    "norm": [()], "halfnorm": [()], "foldnorm": [(0.5,), (2.0,)],
    "truncnorm": [(-1.0, INF), (-INF, 0.5), (-INF, INF)],
    "skewnorm": [(-3.0,), (0.0,), (4.0,)], "powernorm": [(0.5,), (3.0,)],
    "chi": [(1.5,), (4.0,)], "maxwell": [()], "rayleigh": [()], "rice": [(0.5,), (3.0,)],
    "nakagami": [(0.7,), (2.0,)], "kstwobign": [()], "gompertz": [(0.5,), (2.0,)],
    "exponpow": [(0.5,), (2.5,)],
    # exponential
    "expon": [()], "gamma": [(0.5,), (1.0,), (3.5,)], "erlang": [(3,)], "chi2": [(1.0,), (5.0,)],
    "laplace": [()], "laplace_asymmetric": [(0.5,), (2.0,)], "dgamma": [(0.5,), (2.5,)],
    "logistic": [()], "halflogistic": [()], "hypsecant": [()],
    "genlogistic": [(0.3,), (2.5,)], "gumbel_r": [()], "gumbel_l": [()], "moyal": [()],
    "loggamma": [(0.4,), (3.0,)], "exponnorm": [(0.5,), (2.0,)],
    "fatiguelife": [(0.5,), (2.0,)], "invgauss": [(0.3,), (2.0,)], "wald": [()],
    "recipinvgauss": [(0.3,), (2.0,)], "geninvgauss": [(-0.5, 1.5), (2.0, 0.5)],
    "genexpon": [(1.0, 2.0, 0.5), (0.3, 0.2, 3.0)], "ncx2": [(3.0, 2.0), (1.5, 10.0)],
    "norminvgauss": [(1.5, 0.5), (2.0, -1.2)],
    "genhyperbolic": [(0.5, 1.5, 0.5), (1.7, 2.0, -1.2), (-1.5, 1.0, 0.5)],
    "pearson3": [(0.7,), (-1.3,), (0.0,)], "truncexpon": [(INF,)],
    # the shape decides
    "weibull_min": [(0.5,), (0.95,), (1.0,), (1.05,), (2.0,)],
    "weibull_max": [(0.95,), (1.0,), (1.05,)],
    "truncweibull_min": [(0.95, 0.5, INF), (2.0, 0.0, INF), (2.0, 0.5, 3.0)],
    "dweibull": [(0.95,), (1.0,), (1.05,)],
    "exponweib": [(2.5, 0.95), (0.5, 1.0), (1.5, 1.05)],
    "gennorm": [(0.5,), (0.95,), (1.0,), (1.05,), (2.0,)],
    "halfgennorm": [(0.95,), (1.0,), (1.05,)],
    "gengamma": [(2.0, 0.5), (0.5, 1.0), (1.5, 1.05), (2.0, -1.5)],
    "genextreme": [(-0.5,), (0.0,), (0.5,), (0.95,), (1.0,), (1.05,), (1.5,)],
    "genpareto": [(0.5,), (0.0,), (-0.5,)],
    "kappa4": [(0.5, 0.0), (0.5, -0.5), (0.0, 0.5), (0.0, 1.0), (0.0, 1.5), (-0.5, 0.0),
               (-0.5, 0.5), (-0.5, -0.5), (0.0, -0.5), (0.0, 0.0), (0.5, 0.5)],
    "tukeylambda": [(-0.5,), (0.0,), (0.5,), (-2.0,)],
    # heavy
    "lognorm": [(0.5,), (2.0,)], "gibrat": [()], "powerlognorm": [(0.5, 1.5), (3.0, 0.7)],
    "johnsonsu": [(-1.0, 0.5), (2.0, 1.5)],
    "cauchy": [()], "halfcauchy": [()], "foldcauchy": [(0.5,), (3.0,)],
    "skewcauchy": [(-0.6,), (0.3,)], "t": [(0.7,), (3.5,)], "nct": [(2.5, 1.0), (4.5, -2.0)],
    "pareto": [(0.8,), (2.5,)], "truncpareto": [(2.5, INF), (1.5, 10.0)],
    "lomax": [(0.7,), (3.5,)], "invgamma": [(0.7,), (2.5,)], "invweibull": [(0.7,), (3.5,)],
    "levy": [()], "levy_l": [()], "alpha": [(0.5,), (2.0,)],
    "betaprime": [(2.0, 3.5), (0.5, 0.7)], "f": [(4.0, 7.0), (1.5, 0.9)],
    "ncf": [(4.0, 7.0, 2.0), (2.5, 3.3, 0.5)], "burr": [(3.5, 2.0), (0.7, 0.5)],
    "burr12": [(2.0, 1.75), (0.5, 3.0)], "fisk": [(3.5,), (0.8,)],
    "mielke": [(2.0, 3.5), (0.5, 1.2)], "kappa3": [(3.5,), (0.6,)],
    "loglaplace": [(3.5,), (0.7,)], "dpareto_lognorm": [(0.0, 0.5, 2.5, 3.0), (1.0, 1.2, 0.8, 1.5)],
    "jf_skew_t": [(1.5, 2.5), (4.0, 0.75)], "crystalball": [(2.0, 4.5), (1.0, 1.5)],
    "rel_breitwigner": [(0.5,), (3.0,)], "landau": [()],
}


def _frozen(name, shapes, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(stats, name)(*shapes, **kw)


def _ends(name, shapes):
    lo, hi = (float(e) for e in _frozen(name, shapes).support())
    return {"left": lo, "right": hi}


PARAMS = [
    pytest.param(name, shapes, side, id=f"{name}{shapes}-{side}")
    for name in sorted(CASES)
    for shapes in CASES[name]
    for side in ("left", "right")
]


# ------------------------------------------------------------------------------------------
# evidence from the density, and the check


class Evidence:
    """Points ``r = |x|`` toward one end, with the hazard (or log-density slope) ``rho`` at
    each and the Pareto index there (``r rho - 1`` from a slope, ``r h`` from a hazard)."""

    def __init__(self, r, rho, index):
        self.r, self.rho, self.index = r, rho, index

    def deep(self, at_least):
        return [(r, rho, i) for r, rho, i in zip(self.r, self.rho, self.index, strict=True) if r >= at_least]


def slope_evidence(name, shapes, side):
    """The central-difference slope of the written log-density at |x| = 10^k."""
    logpdf = LOGPDF[name]
    sign = 1 if side == "right" else -1
    r_out, rho_out, idx_out = [], [], []
    with mp.workdps(DPS if name != "landau" else 30):
        args = [mpf(s) for s in shapes]
        for k in DEPTHS:
            r = mpf(10) ** k
            x, h = sign * r, r * mpf("1e-8")
            lo, hi = logpdf(x - h, *args), logpdf(x + h, *args)
            if lo == -mp.inf and hi == -mp.inf:
                rho = mp.inf  # the density vanishes there
            else:
                rho = -sign * (hi - lo) / (2 * h)
            r_out.append(r)
            rho_out.append(rho)
            idx_out.append(r * rho - 1)
    return Evidence(r_out, rho_out, idx_out)


def tukeylambda_evidence(lam, side):
    """Tukey's lambda from its quantile Q(p) = (p^lam - (1-p)^lam)/lam: at tail mass q the
    hazard is 1/(q Q'(1-q)), Q'(p) = p^(lam-1) + (1-p)^(lam-1); symmetric."""
    r_out, h_out, idx_out = [], [], []
    with mp.workdps(DPS):
        lam = mpf(lam)
        for k in DEPTHS:
            target = mpf(10) ** k
            q = exp(-target) if lam == 0 else (-lam * target) ** (1 / lam)
            p = 1 - q
            x = log(p / q) if lam == 0 else (p**lam - q**lam) / lam
            haz = 1 / (q * (p ** (lam - 1) + q ** (lam - 1)))
            r_out.append(x)
            h_out.append(haz)
            idx_out.append(x * haz)
    return Evidence(r_out, h_out, idx_out)


def evidence(name, shapes, side):
    if name == "tukeylambda":
        return tukeylambda_evidence(shapes[0], side)
    return slope_evidence(name, shapes, side)


def check_tail(ev: Evidence, tail: Tail) -> None:
    """Raise AssertionError unless ``tail`` (in standard units) fits the evidence."""
    deep = ev.deep(1e8)
    rhos = [rho for _, rho, _ in deep]
    assert len(deep) >= 4 and not any(mp.isnan(rho) for rho in rhos), f"no evidence: {rhos}"
    assert all(rho >= 0 for rho in rhos), f"the density grows toward the end: {rhos}"
    if tail.kind == "light":
        assert all(b >= a * (1 - 1e-9) for a, b in pairwise(rhos)), f"the hazard does not grow: {rhos}"
        assert rhos[-1] >= 1e3 * rhos[0], f"the hazard does not grow without bound: {rhos}"
    elif tail.kind == "exponential":
        for r, rho, _ in deep:
            tol = max(1e-12, 100 / sqrt(r))
            assert abs(rho / tail.rate - 1) <= tol, (
                f"at |x| = {mp.nstr(r, 3)} the hazard is {mp.nstr(rho, 8)}, not {tail.rate} (tol {mp.nstr(tol, 2)})"
            )
    elif tail.kind == "heavy":
        assert all(b <= a * (1 + 1e-9) for a, b in pairwise(rhos)), f"the hazard does not fall: {rhos}"
        assert rhos[-1] <= 1e-6 * rhos[0], f"the hazard does not fall to 0: {rhos}"
        indices = [(r, i) for r, _, i in deep if r >= 1e16]
        if math.isfinite(tail.moments):
            for r, i in indices:
                tol = (1 + tail.moments) * max(1e-9, 100 * r ** mpf(-0.25))
                assert abs(i - tail.moments) <= tol, (
                    f"at |x| = {mp.nstr(r, 3)} the Pareto index is {mp.nstr(i, 8)}, not {tail.moments}"
                )
        else:
            (_, a), (_, b), (_, c) = indices[-3:]
            assert a < b < c and c - b >= 0.2 * c, (
                f"the Pareto index does not grow without bound (not every moment is finite): {a}, {b}, {c}"
            )
    else:
        raise AssertionError(f"{tail.kind} declared for an unbounded end")


# ------------------------------------------------------------------------------------------
# the density written here is scipy's


BULK = (-30.0, -8.0, -3.0, -1.2, -0.4, 0.3, 0.9, 1.7, 3.1, 8.0, 30.0)


def _check_matches_scipy(name, shapes):
    dist = _frozen(name, shapes)
    lo, hi = (float(e) for e in dist.support())
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pts = [x for x in BULK if lo < x < hi and -700 < float(dist.logpdf(x)) < 700]
        ref = [float(dist.logpdf(x)) for x in pts]
    assert len(pts) >= 3, f"too few bulk points for {name}{shapes}: {pts}"
    with mp.workdps(30):
        mine = [LOGPDF[name](mpf(x), *[mpf(s) for s in shapes]) for x in pts]
    for x, a, b in zip(pts[1:], mine[1:], ref[1:], strict=True):
        want = b - ref[0]
        got = float(a - mine[0])
        assert abs(got - want) <= 1e-6 * (1 + abs(want)), f"{name}{shapes} at x={x}: {got} vs scipy {want}"


def _check_tukeylambda_matches_scipy(lam):
    dist = stats.tukeylambda(lam)
    with mp.workdps(30):
        for p in (0.6, 0.9, 0.99, 0.999):
            pm, lm = mpf(p), mpf(lam)
            q = 1 - pm
            x = log(pm / q) if lam == 0 else (pm**lm - q**lm) / lm
            haz = 1 / (q * (pm ** (lm - 1) + q ** (lm - 1)))
            assert float(x) == pytest.approx(float(dist.ppf(p)), rel=1e-8)
            assert float(haz) == pytest.approx(float(dist.pdf(float(x)) / dist.sf(float(x))), rel=1e-6)


# ------------------------------------------------------------------------------------------
# tests


def test_cases_cover_the_table():
    assert set(CASES) == set(declared_families())
    assert set(LOGPDF) | {"tukeylambda"} >= {n for n in CASES if any(
        not math.isfinite(e) for shapes in CASES[n] for e in _ends(n, shapes).values())}
    from scipy.stats._continuous_distns import _distn_names

    assert set(declared_families()) <= set(_distn_names)


@pytest.mark.parametrize(("name", "shapes", "side"), sample(PARAMS, 100))  # every case in the full run
def test_declared_tail_fits_the_density(name, shapes, side):
    dist = _frozen(name, shapes)
    assert bool(np.all(dist.dist._argcheck(*shapes))), "invalid test shapes"
    tail = scipy_tail(dist, side)
    end = _ends(name, shapes)[side]
    assert tail is not None, f"{name}{shapes}: no declaration for the {side} end"
    if math.isfinite(end):
        assert tail.kind == "bounded" and tail.rate == INF and tail.moments == INF
        return
    assert tail.kind != "bounded"
    assert name in tail.source and side in tail.source
    check_tail(evidence(name, shapes, side), tail)


@pytest.mark.parametrize(
    ("name", "shapes"),
    sample([pytest.param(n, s, id=f"{n}{s}") for n in sorted(CASES) for s in CASES[n]
            if n in LOGPDF and not all(math.isfinite(e) for e in _ends(n, s).values())], 45),
)
def test_written_density_is_scipys(name, shapes):
    _check_matches_scipy(name, shapes)


@pytest.mark.parametrize("lam", [-2.0, -0.5, 0.0])
def test_tukeylambda_quantile_form_is_scipys(lam):
    _check_tukeylambda_matches_scipy(lam)


@pytest.mark.parametrize(
    ("name", "shapes", "side", "wrong"),
    [
        ("weibull_min", (0.95,), "right", Tail("exponential", 1.0, INF)),
        ("weibull_min", (0.95,), "right", Tail("exponential", 0.95, INF)),
        ("gennorm", (0.95,), "left", Tail("exponential", 1.0, INF)),
        ("weibull_min", (1.05,), "right", Tail("exponential", 1.0, INF)),
        ("weibull_min", (1.05,), "right", Tail("heavy", 0.0, INF)),
        ("weibull_min", (0.95,), "right", Tail("light", INF, INF)),
        ("norm", (), "right", Tail("exponential", 1.0, INF)),
        ("expon", (), "right", Tail("light", INF, INF)),
        ("expon", (), "right", Tail("exponential", 1.001, INF)),
        ("laplace", (), "left", Tail("exponential", 2.0, INF)),
        ("gamma", (3.5,), "right", Tail("heavy", 0.0, INF)),
        ("t", (3.5,), "left", Tail("heavy", 0.0, 4.0)),
        ("t", (3.5,), "left", Tail("heavy", 0.0, INF)),
        ("cauchy", (), "right", Tail("heavy", 0.0, 2.0)),
        ("lognorm", (0.5,), "right", Tail("heavy", 0.0, 30.0)),
        ("lognorm", (0.5,), "right", Tail("exponential", 0.1, INF)),
        ("genextreme", (1.05,), "left", Tail("exponential", 1.0, INF)),
        ("genextreme", (-0.5,), "right", Tail("heavy", 0.0, 2.5)),
        ("tukeylambda", (-0.5,), "right", Tail("heavy", 0.0, 3.0)),
        ("tukeylambda", (0.0,), "right", Tail("exponential", 0.5, INF)),
    ],
    ids=lambda v: str(v) if not isinstance(v, Tail) else f"{v.kind}-{v.rate}-{v.moments}",
)
def test_check_rejects_a_planted_error(name, shapes, side, wrong):
    with pytest.raises(AssertionError):
        check_tail(evidence(name, shapes, side), wrong)


def test_weibull_095_is_heavy_not_exponential():
    tail = scipy_tail(stats.weibull_min(0.95), "right")
    assert (tail.kind, tail.rate, tail.moments) == ("heavy", 0.0, INF)
    assert "weibull_min" in tail.source and "c=0.95" in tail.source
    assert scipy_tail(stats.gennorm(0.95), "left").kind == "heavy"
    assert scipy_tail(stats.weibull_min(1.05), "right").kind == "light"
    assert scipy_tail(stats.weibull_min(1.0, scale=4.0), "right").rate == 0.25


# scipy's own moments: E|X|^n finite exactly for n below the smaller index of the two ends
# (families whose moment formulas scipy gets right for divergent orders; pareto, invweibull
# and gengamma with c < 0 return finite numbers for divergent moments, cauchy nan for all)
MOMENT_CASES = [
    ("t", (3.5,)), ("lomax", (3.5,)), ("f", (4.0, 7.0)),
    ("invgamma", (2.5,)), ("betaprime", (2.0, 3.5)), ("burr12", (2.0, 1.75)), ("fisk", (3.5,)),
    ("genpareto", (0.3,)), ("burr", (3.5, 2.0)), ("mielke", (2.0, 3.5)), ("kappa3", (3.5,)),
    ("genextreme", (-0.3,)), ("loglaplace", (3.5,)), ("jf_skew_t", (1.5, 2.5)),
    ("ncf", (4.0, 7.0, 2.0)), ("nct", (3.5, 1.0)), ("crystalball", (2.0, 4.5)),
    ("rel_breitwigner", (2.0,)), ("dpareto_lognorm", (0.0, 0.5, 2.5, 3.0)), ("levy", ()),
    ("halfcauchy", ()), ("foldcauchy", (1.0,)), ("alpha", (1.0,)),
]


@pytest.mark.parametrize(("name", "shapes"), MOMENT_CASES, ids=[f"{n}{s}" for n, s in MOMENT_CASES])
def test_moments_agree_with_scipy(name, shapes):
    dist = _frozen(name, shapes)
    index = min(t.moments for t in (scipy_tail(dist, "left"), scipy_tail(dist, "right")))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in (1, 2, 3, 4):
            assert math.isfinite(float(dist.moment(n))) == (n < index), f"{name}{shapes} moment {n}"


@pytest.mark.parametrize(
    ("dist", "side", "rate"),
    [
        (stats.expon(scale=2.0), "right", 0.5),
        (stats.gamma(2.5, loc=-3.0, scale=4.0), "right", 0.25),
        (stats.laplace(1.0, 0.5), "left", 2.0),
        (stats.logistic(loc=10.0, scale=3.0), "right", 1 / 3),
        (stats.gumbel_r(scale=0.25), "right", 4.0),
        (stats.genlogistic(2.5, scale=2.0), "left", 1.25),
        (stats.laplace_asymmetric(2.0, scale=0.5), "right", 4.0),
        (stats.gennorm(1.0, scale=5.0), "left", 0.2),
    ],
    ids=lambda v: v.dist.name if hasattr(v, "dist") else str(v),
)
def test_scaled_rate_against_scipy_quantiles(dist, side, rate):
    """Independent of mpmath: the slope of scipy's log-survival between tail masses 1e-50
    and 1e-300 (isf/ppf), in the distribution's own units."""
    tail = scipy_tail(dist, side)
    assert tail.kind == "exponential" and tail.rate == pytest.approx(rate, rel=1e-12)
    at, logtail = (dist.isf, dist.logsf) if side == "right" else (dist.ppf, dist.logcdf)
    slopes = []
    for m1, m2 in ((1e-50, 1e-100), (1e-100, 1e-200), (1e-200, 1e-300)):
        x1, x2 = float(at(m1)), float(at(m2))
        slopes.append(abs(float(logtail(x2) - logtail(x1)) / (x2 - x1)))
    devs = [abs(s / tail.rate - 1) for s in slopes]
    assert devs[-1] < 2e-2 and devs[-1] <= devs[0] + 1e-9, (slopes, tail.rate)


@pytest.mark.parametrize(("name", "shapes"), [("weibull_min", (0.95,)), ("gennorm", (0.95,))])
def test_scipy_quantiles_see_the_slowly_falling_hazard(name, shapes):
    """The hazard of weibull_min(0.95) and gennorm(0.95) falls toward 0 even within double
    precision: between tail masses 1e-50 and 1e-300 it keeps falling, by the factor
    (x2/x1)^(c-1) that its formula predicts."""
    dist = _frozen(name, shapes)
    xs = [float(dist.isf(m)) for m in (1e-50, 1e-100, 1e-200, 1e-300)]
    rates = [float(dist.logsf(a) - dist.logsf(b)) / (b - a) for a, b in pairwise(xs)]
    assert rates[0] > rates[1] > rates[2]
    mids = [(a + b) / 2 for a, b in pairwise(xs)]
    assert rates[2] / rates[0] == pytest.approx((mids[2] / mids[0]) ** (shapes[0] - 1), rel=2e-2)


def test_loc_scale_and_keywords():
    for name in sorted(CASES):
        for shapes in CASES[name]:
            std = _frozen(name, shapes)
            moved = _frozen(name, shapes, loc=1.5, scale=2.5)
            names = [s.strip() for s in std.dist.shapes.split(",")] if std.dist.shapes else []
            keyed = _frozen(name, (), **dict(zip(names, shapes, strict=True)), loc=1.5, scale=2.5)
            for side in ("left", "right"):
                a, b, c = (scipy_tail(d, side) for d in (std, moved, keyed))
                assert a.kind == b.kind and a.moments == b.moments, (name, shapes, side)
                assert b == c
                if a.kind == "exponential":
                    assert b.rate == pytest.approx(a.rate / 2.5, rel=1e-14)
                else:
                    assert b.rate == a.rate


def test_left_out_and_invalid():
    assert scipy_tail(stats.vonmises(1.0), "right") is None
    for side in ("left", "right"):  # |b| = a: scipy's density is nan
        assert scipy_tail(stats.genhyperbolic(-1.5, 1.0, 1.0), side) is None
    assert scipy_tail(stats.studentized_range(3, 10), "right") is None
    assert scipy_tail(stats.studentized_range(3, 10), "left").kind == "bounded"

    class Mine(stats.rv_continuous):
        def _pdf(self, x):
            return np.exp(-np.abs(x)) / 2

    assert scipy_tail(Mine(name="mine")(), "left") is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert scipy_tail(stats.gamma(-1.0), "right") is None
        assert scipy_tail(stats.norm(scale=-1.0), "right") is None
    assert scipy_tail(stats.norm([0.0, 1.0]), "right") is None
    with pytest.raises(ParameterError, match="frozen"):
        scipy_tail(stats.norm, "right")
    with pytest.raises(ParameterError, match="side"):
        scipy_tail(stats.norm(), "up")


def test_tail_validation_and_hazard_floor():
    assert Tail("exponential", 2, INF).rate == 2.0
    assert Tail("exponential", 2.0, INF).hazard_floor(5.0) == 2.0
    assert Tail("exponential", 2.0, INF).hazard_floor(0.5) == 0.5
    assert Tail("light", INF, INF).hazard_floor(7.0) == 7.0
    assert Tail("bounded", INF, INF).hazard_floor(7.0) == 7.0
    assert Tail("heavy", 0.0, 2.0).hazard_floor(7.0) == 0.0
    for bad in [("medium", 1.0, INF), ("light", 1.0, INF), ("exponential", 0.0, INF),
                ("exponential", INF, INF), ("heavy", 1.0, 2.0), ("exponential", 1.0, 3.0),
                ("heavy", 0.0, -1.0), ("heavy", 0.0, math.nan), ("exponential", True, INF)]:
        with pytest.raises(ParameterError):
            Tail(*bad)
    with pytest.raises(ParameterError, match="hazard_at_x"):
        Tail("light", INF, INF).hazard_floor(-1.0)


def test_parse_tail_accepts():
    assert parse_tail("light", "left") == Tail("light", INF, INF, parse_tail("light", "left").source)
    heavy = parse_tail("heavy", "right")
    assert (heavy.kind, heavy.rate, heavy.moments) == ("heavy", 0.0, 0.0)
    expo = parse_tail(("exponential", 0.25), "right")
    assert (expo.kind, expo.rate, expo.moments) == ("exponential", 0.25, INF)
    assert parse_tail(("exponential", np.float64(3)), "left").rate == 3.0
    mine = Tail("heavy", 0.0, 2.0, "mine")
    assert parse_tail(mine, "left") is mine
    both = {"left": ("exponential", 2.0), "right": mine}
    assert parse_tail(both, "left").rate == 2.0
    assert parse_tail(both, "right") is mine
    assert parse_tail({"right": "light"}, "right").kind == "light"


@pytest.mark.parametrize(
    "spec",
    ["exponential", "bounded", "Light", "", None, 1.0, ("exponential",), ("exponential", 0.0),
     ("exponential", -1.0), ("exponential", INF), ("exponential", math.nan), ("exponential", "1"),
     ("exponential", True), ("heavy", 2.0), ["exponential", 1.0], {"left": "light"},
     {"up": "light", "right": "light"}, {"right": {"right": "light"}},
     Tail("bounded", INF, INF)],
    ids=repr,
)
def test_parse_tail_rejects(spec):
    with pytest.raises(ParameterError, match="tail") as info:
        parse_tail(spec, "right")
    assert "tail" in str(info.value)


def test_parse_tail_names_the_forms():
    with pytest.raises(ParameterError) as info:
        parse_tail("medium", "right")
    message = str(info.value)
    assert message.startswith("tail:") and "'light'" in message and "('exponential', rate)" in message
    with pytest.raises(ParameterError, match="side"):
        parse_tail("light", "middle")
