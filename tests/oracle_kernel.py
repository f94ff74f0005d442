r"""A test-side kernel oracle for the optimal epsilon of one attribute (independent of the package).

This module is part of the test suite, not of the package, and imports nothing from it.  It
computes, straight from the definitions, how far an :math:`\epsilon`-DP mechanism can move the
attacker's posterior of the ball :math:`X' = \mathcal B(t, r) = [t - r, t + r]`, so that the
package's optimal epsilon can be red-teamed.

The mathematics
---------------
One output of an :math:`\epsilon`-DP mechanism has a likelihood :math:`L(x)` with
:math:`\log L` :math:`\epsilon`-Lipschitz, and every such :math:`L` is, up to scale, the
likelihood of an output of some :math:`\epsilon`-DP mechanism.  The posterior of :math:`X'` is
:math:`\int_{X'} L\,dF / \int L\,dF`.  Fix :math:`u = L(l)`, :math:`v = L(h)` at the ends
:math:`l, h` of :math:`X'` within the support: the Lipschitz bounds outside :math:`[l, h]`
(from below) and inside (from above) are met at once by a tent, so the supremum ``U`` is
reached by a **Laplace kernel** :math:`L_c(x) = e^{-\epsilon|x - c|}` with :math:`c \in [l, h]`,
and by the mirror argument the infimum ``V`` by the **inverted kernel**
:math:`e^{+\epsilon|x - c|}`, :math:`c \in [l, h]` (for a finite prior ``c`` ranges over the
atoms in :math:`X'`: between two atoms the ratio is a Moebius function of
:math:`e^{2\epsilon c}`).  With :math:`p = F(X')` the upper side is violated when
:math:`U - p > \delta`, the lower side when :math:`p - V > \delta`.

Any centre ``c`` gives a real mechanism, so every value this oracle reports is *attained*: a
violation it finds is a counterexample, whatever its search missed.

Far tails.  Where the density behaves like :math:`e^{-\lambda u}` near ``t``, the kernel at
:math:`c = t + \lambda r/\epsilon` gives, with the origin at ``c`` and
:math:`s = c - (t - r)`, the outside share
:math:`[e^{-(\epsilon - \lambda)s}/(\epsilon - \lambda) + e^{-(\epsilon + \lambda)(2r - s)}/(\epsilon + \lambda)]
/ [1/(\epsilon - \lambda) + 1/(\epsilon + \lambda)]`, minimised at
:math:`s = r(\epsilon + \lambda)/\epsilon`, where both exponents equal
:math:`r(\epsilon^2 - \lambda^2)/\epsilon`.  So :math:`U \to 1 - e^{-r(\epsilon^2 - \lambda^2)/\epsilon}`
for :math:`\epsilon > \lambda` (0 otherwise) while :math:`p \to 0`: :func:`tail_limit`.  A tail
heavier than every exponential has :math:`\lambda = 0`; a light one (hazard rate to infinity)
has limit 0.  For the lower side, :math:`\int e^{\epsilon|x - c|} dF` diverges over a heavy tail
(and over an exponential tail of rate :math:`\lambda \le \epsilon`): the truncations
:math:`\min(e^{\epsilon|x - c|}, n)` are Lipschitz and drive ``V`` to 0, so
:math:`p - V = p` for every ``t`` (:func:`inverted_kernel_diverges`).

Prior specifications
--------------------
:class:`PriorSpec` holds a prior written out from its formula in this file: the log-density as
a numpy function (log space throughout, no underflow: the scans reach densities of
:math:`e^{-5000}`) and as an mpmath function, the cdf and survival function in mpmath, the
support, the points where the density is not smooth (``breakpoints``: bin edges, the cusp of
``gennorm``, the ends of a bounded support) and the class and rate of each tail, derived from
the formula (see each constructor).  Finite priors hold atoms and weights.

The oracles
-----------
:func:`kernel_posterior` (mpmath, the reference).  For a density: the integrals
:math:`\int e^{\log f(x) \mp \epsilon|x - c| - m}\,dx` over :math:`(-\infty, l]`, ``[l, c]``,
``[c, h]``, :math:`[h, \infty)` with :math:`l, h = t \mp r` computed exactly (each cut to the
support and split at the breakpoints), at ``dps`` digits (default 40).  Each segment is first
probed in float64 on a geometric and a uniform grid; the shift ``m`` is the probe's maximum of
the log-integrand (so the integrand is O(1)); the segment is cut at the maximum and wherever the
log-integrand has moved by 16 since the last cut, over the stretch where the probe's
contributions are within :math:`e^{-80}` of the largest (an infinite end that matters is
integrated to infinity).  Pieces with an infinite end or a breakpoint within one piece length
(endpoint singularities: ``weibull_min`` at 0, the cusp of ``gennorm``) use tanh-sinh, the
others Gauss--Legendre (tanh-sinh again if its error estimate exceeds :math:`10^{8-dps}`).  The
prior mass ``p`` comes from the closed-form cdf or survival function (the one with the smaller
value, so that far-tail balls keep their digits), normalised by ``p + (1 - p)`` as the posterior
is.  The summed error estimates are returned (below :math:`10^{-30}` relative in the
self-tests).  For a finite prior: exact sums in mpmath, with the cancellation-free form
:math:`U - p = (p S_{out} - (1 - p) S_{in}) / D`, :math:`S = \sum w_i |1 - L_i|` computed with
``expm1`` (so that ``delta = 1e-300`` keeps its digits).

:func:`worst_advantage` (global search).  A float64 scan of its own locates the candidates:

* true values ``t``: a uniform grid through the core of the prior (spacing ``min(r/8, width/400)``),
  the support's ends, every breakpoint and each of them ``+- r`` and ``+- r/2``, and geometric
  steps (5 %) out through each unbounded tail until ``|t| > r 2^30`` (beyond, the ball's ends
  would round by more than 2.4e-7 r), or, for a light tail, until its hazard rate exceeds
  ``2 eps + 8/r`` (where the kernel can no longer lift the far ball) or the density falls below
  :math:`e^{-5000}` (:math:`e^{-2000}` for other tails); for the lower side until the ball's
  mass falls below :math:`e^{-700}`;
* centres: 33 points across :math:`[l, h]` plus every breakpoint inside;
* the integrals: log-space Gauss--Legendre (16 nodes) on the gaps of a grid that holds every
  ball end, every breakpoint, points graded toward each breakpoint and an outward extension
  until the log-integrand has dropped by 150.  A gap whose log-integrand varies by ``V``
  (ends, midpoint and kernel) is cut into pieces that double in length from each end
  (``log2 V + 2`` levels), and an end at distance ``d`` from a point where the density is not
  analytic gets levels down to below ``d``: this integrates :math:`e^{\pm\epsilon u}` and
  steep or singular ends to about 1e-15 (checked against mpmath in the self-tests);
* the tails outside each ball and the kernel inside it by recursions of positive terms
  (:math:`\int_{-\infty}^{x_{j+1}} f e^{k(x_{j+1} - y)} = e^{k\Delta}\int_{-\infty}^{x_j} \ldots
  + \text{gap}`, and the same for :math:`\int f |1 - e^{k u}|` with ``expm1``), so that
  ``U - p`` is computed as :math:`(p S_{out} - (1 - p) S_{in})/D` without cancellation even at
  ``eps = 1e-12``;
* the best three candidates (distinct local maxima over ``t``) are refined by zooming: each
  round evaluates 9 true values around the best and, for each, 33 centres across its ball and
  13 around its own best centre, both windows shrinking by 2.5 a round (22 rounds, to about
  1e-9 of the first window); the best is re-evaluated by :func:`kernel_advantage` in mpmath,
  and the two must agree to 1e-9 relative, plus the rounding of the ball's ends in float64
  (else the oracle raises: it checks itself on every call);
* for heavy and exponential tails, mpmath probes beyond the float scan, at the true value
  where :math:`f(t)|t| = 10^{-30}`, with the far-tail optimal centre;
* the analytic far-tail limit at each unbounded end (:func:`tail_limit`) and, for the lower
  side, the divergent inverted kernel (:func:`inverted_kernel_diverges`: then the worst value
  is the largest ball mass, :func:`max_ball_mass`, found on a grid and refined in mpmath).

For finite priors the search is exhaustive: every atom as ``t``, every atom of its ball as
``c`` (and the midpoints between them, which never do better), in mpmath.

Accuracy.  The mpmath values carry about 35 correct digits (quadrature error estimates below
1e-30 relative, cdf differences at 40 digits, exact ball ends); the search can only *miss* a
worse ``(t, c)``, never report a value no mechanism attains.  The self-tests
(``tests/test_oracle_kernel.py``) check the closed forms, an independent scipy quadrature, the
float scan against mpmath, the search against a brute-force grid, and the finite kernels
against the LP oracle (``tests/oracle_lp.py``).
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

import mpmath
import numpy as np
from scipy import special as sp
from scipy.optimize import minimize_scalar

__all__ = [
    "DPS",
    "PriorSpec",
    "Tail",
    "Worst",
    "WorstDetails",
    "finite",
    "gamma",
    "gennorm",
    "inverted_kernel_diverges",
    "kernel_advantage",
    "kernel_posterior",
    "lognorm",
    "max_ball_mass",
    "normal",
    "oracle_epsilon",
    "piecewise_uniform",
    "scan_advantages",
    "skewnorm",
    "spike_mixture",
    "student_t",
    "tail_limit",
    "two_piece_normal",
    "uniform",
    "weibull_min",
    "worst_advantage",
    "worst_advantage_details",
    "worst_over_sides",
]

#: working precision of the mpmath evaluations (decimal digits)
DPS = 40

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


# ---------------------------------------------------------------------------------------------
# Prior specifications
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tail:
    """How the density decays toward one end of the support.

    ``kind`` is ``"bounded"`` (a finite end), ``"light"`` (hazard rate to infinity: faster than
    every exponential), ``"exponential"`` (log-density slope tends to ``-rate``) or ``"heavy"``
    (slope tends to 0: slower than every exponential, ``rate = 0``).
    """

    kind: str
    rate: float = math.inf


BOUNDED = Tail("bounded")
LIGHT = Tail("light")
HEAVY = Tail("heavy", 0.0)


@dataclass(frozen=True, eq=False)
class PriorSpec:
    """A prior written out from its formula (see the module docstring).

    For a density: ``logpdf`` (numpy, ``-inf`` off the support), ``logpdf_mp`` (mpmath),
    ``cdf_mp`` and ``sf_mp`` (mpmath), ``support``, ``breakpoints`` (where the density is not
    smooth, including finite support ends; ``analytic_pieces``: the density is analytic up to
    them from either side, as a piecewise-constant one is), ``lower`` / ``upper`` (:class:`Tail`), and
    ``core`` (an interval holding the bulk, for the grids) with ``centre`` and ``scale``.
    For a finite prior: ``atoms`` and ``weights``.
    """

    name: str
    support: tuple[float, float]
    lower: Tail = BOUNDED
    upper: Tail = BOUNDED
    logpdf: Callable[[np.ndarray], np.ndarray] | None = None
    logpdf_mp: Callable[[Any], Any] | None = None
    cdf_mp: Callable[[Any], Any] | None = None
    sf_mp: Callable[[Any], Any] | None = None
    breakpoints: tuple[float, ...] = ()
    core: tuple[float, float] = (0.0, 1.0)
    centre: float = 0.0
    scale: float = 1.0
    median: float = 0.0
    analytic_pieces: bool = False
    atoms: tuple[float, ...] = ()
    weights: tuple[float, ...] = ()
    params: dict = field(default_factory=dict)

    @property
    def is_finite(self) -> bool:
        return bool(self.atoms)

    def __repr__(self) -> str:
        return f"PriorSpec({self.name})"

    def mass_mp(self, a, b):
        """Prior mass of ``[a, b]`` in mpmath (cdf or survival differences, whichever is smaller)."""
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        lo, hi = self.support
        a = max(a, mpmath.mpf(lo))
        b = min(b, mpmath.mpf(hi))
        if not b > a:
            return mpmath.mpf(0)
        if a >= self.median:
            return self.sf_mp(a) - self.sf_mp(b)
        if b <= self.median:
            return self.cdf_mp(b) - self.cdf_mp(a)
        return 1 - self.cdf_mp(a) - self.sf_mp(b)

    def outside_mp(self, a, b):
        """Prior mass outside ``[a, b]`` in mpmath."""
        lo, hi = self.support
        left = self.cdf_mp(mpmath.mpf(a)) if a > lo else mpmath.mpf(0)
        right = self.sf_mp(mpmath.mpf(b)) if b < hi else mpmath.mpf(0)
        return left + right


def _mp_const(fn):
    """``fn()`` evaluated once per working precision (log-density constants)."""
    cache: dict[int, Any] = {}

    def get():
        prec = mpmath.mp.prec
        if prec not in cache:
            cache[prec] = fn()
        return cache[prec]

    return get


def _where(cond, a, b):
    with np.errstate(all="ignore"):
        return np.where(cond, a, b)


def normal(mu: float = 0.0, sigma: float = 1.0) -> PriorSpec:
    r"""Normal prior: :math:`\log f = -\tfrac12 ((x - \mu)/\sigma)^2 - \log\sigma - \tfrac12\log 2\pi`.

    Slope :math:`-(x - \mu)/\sigma^2 \to \mp\infty`: both tails light.
    """
    m_mu, m_s = mpmath.mpf(mu), mpmath.mpf(sigma)
    const = _mp_const(lambda: mpmath.log(m_s) + mpmath.log(2 * mpmath.pi) / 2)

    def logpdf(x):
        z = (np.asarray(x, float) - mu) / sigma
        return -0.5 * z * z - math.log(sigma) - _LOG_SQRT_2PI

    def logpdf_mp(x):
        z = (x - m_mu) / m_s
        return -z * z / 2 - const()

    return PriorSpec(
        name=f"normal({mu:g}, {sigma:g})",
        support=(-math.inf, math.inf),
        lower=LIGHT,
        upper=LIGHT,
        logpdf=logpdf,
        logpdf_mp=logpdf_mp,
        cdf_mp=lambda x: mpmath.ncdf((x - m_mu) / m_s),
        sf_mp=lambda x: mpmath.ncdf((m_mu - x) / m_s),
        core=(mu - 8 * sigma, mu + 8 * sigma),
        centre=mu,
        scale=sigma,
        median=mu,
        params={"mu": mu, "sigma": sigma},
    )


def weibull_min(c: float) -> PriorSpec:
    r"""Weibull prior (scipy's ``weibull_min(c)``):
    :math:`\log f = \log c + (c - 1)\log x - x^c` on :math:`x > 0`.

    Slope :math:`(c - 1)/x - c x^{c - 1}`: tends to 0 for ``c < 1`` (heavy), to -1 for ``c = 1``
    (exponential, rate 1), to :math:`-\infty` for ``c > 1`` (light).  The density is singular at
    0 for ``c < 1`` and not smooth there for ``c > 1`` (0 is a breakpoint).
    """
    mc = mpmath.mpf(c)
    if c < 1:
        upper = HEAVY
    elif c == 1:
        upper = Tail("exponential", 1.0)
    else:
        upper = LIGHT

    at_zero = math.inf if c < 1 else (0.0 if c == 1 else -math.inf)

    def logpdf(x):
        x = np.asarray(x, float)
        with np.errstate(all="ignore"):
            lx = np.log(x)
            body = -x if c == 1 else math.log(c) + (c - 1) * lx - np.exp(c * lx)
        return _where(x > 0, body, _where(x == 0, at_zero, -np.inf))

    def logpdf_mp(x):
        return mpmath.log(mc) + (mc - 1) * mpmath.log(x) - x**mc

    def sf_mp(x):
        return mpmath.exp(-(x**mc)) if x > 0 else mpmath.mpf(1)

    def cdf_mp(x):
        return -mpmath.expm1(-(x**mc)) if x > 0 else mpmath.mpf(0)

    return PriorSpec(
        name=f"weibull_min({c:g})",
        support=(0.0, math.inf),
        lower=BOUNDED,
        upper=upper,
        logpdf=logpdf,
        logpdf_mp=logpdf_mp,
        cdf_mp=cdf_mp,
        sf_mp=sf_mp,
        breakpoints=(0.0,),
        core=(0.0, 10.0),
        centre=0.0,
        scale=1.0,
        median=math.log(2) ** (1 / c),
        params={"c": c},
    )


def gennorm(beta: float) -> PriorSpec:
    r"""Generalised normal prior (scipy's ``gennorm(beta)``):
    :math:`\log f = \log\beta - \log 2 - \log\Gamma(1/\beta) - |x|^\beta`.

    Slope :math:`\mp\beta |x|^{\beta - 1}`: heavy tails for ``beta < 1``, exponential (rate 1)
    for ``beta = 1``, light for ``beta > 1``; a cusp at 0 (a breakpoint).
    """
    mb = mpmath.mpf(beta)
    const_mp = _mp_const(lambda: mpmath.log(mb) - mpmath.log(2) - mpmath.loggamma(1 / mb))
    const = math.log(beta) - math.log(2) - float(sp.gammaln(1 / beta))
    if beta < 1:
        tail = HEAVY
    elif beta == 1:
        tail = Tail("exponential", 1.0)
    else:
        tail = LIGHT

    def logpdf(x):
        return const - np.abs(np.asarray(x, float)) ** beta

    def logpdf_mp(x):
        return const_mp() - abs(x) ** mb

    def tail_mp(y):  # mass beyond |x| = y >= 0 on one side
        return mpmath.gammainc(1 / mb, y**mb, mpmath.inf, regularized=True) / 2

    def cdf_mp(x):
        return tail_mp(-x) if x <= 0 else 1 - tail_mp(x)

    def sf_mp(x):
        return tail_mp(x) if x >= 0 else 1 - tail_mp(-x)

    return PriorSpec(
        name=f"gennorm({beta:g})",
        support=(-math.inf, math.inf),
        lower=tail,
        upper=tail,
        logpdf=logpdf,
        logpdf_mp=logpdf_mp,
        cdf_mp=cdf_mp,
        sf_mp=sf_mp,
        breakpoints=(0.0,),
        core=(-10.0, 10.0),
        centre=0.0,
        scale=1.0,
        median=0.0,
        params={"beta": beta},
    )


def lognorm(s: float) -> PriorSpec:
    r"""Log-normal prior (scipy's ``lognorm(s)``):
    :math:`\log f = -\log(s x \sqrt{2\pi}) - (\log x)^2/(2 s^2)` on :math:`x > 0`.

    Slope :math:`-(1 + \log x / s^2)/x \to 0`: the upper tail is heavy.  0 is a breakpoint (the
    density tends to 0 there, but not analytically).
    """
    ms = mpmath.mpf(s)
    const = _mp_const(lambda: -mpmath.log(ms) - mpmath.log(2 * mpmath.pi) / 2)

    def logpdf(x):
        x = np.asarray(x, float)
        with np.errstate(all="ignore"):
            lx = np.log(x)
            body = -math.log(s) - _LOG_SQRT_2PI - lx - lx * lx / (2 * s * s)
        return _where(x > 0, body, -np.inf)

    def logpdf_mp(x):
        lx = mpmath.log(x)
        return const() - lx - lx * lx / (2 * ms * ms)

    return PriorSpec(
        name=f"lognorm({s:g})",
        support=(0.0, math.inf),
        lower=BOUNDED,
        upper=HEAVY,
        logpdf=logpdf,
        logpdf_mp=logpdf_mp,
        cdf_mp=lambda x: mpmath.ncdf(mpmath.log(x) / ms) if x > 0 else mpmath.mpf(0),
        sf_mp=lambda x: mpmath.ncdf(-mpmath.log(x) / ms) if x > 0 else mpmath.mpf(1),
        breakpoints=(0.0,),
        core=(0.0, 20.0),
        centre=0.0,
        scale=1.0,
        median=1.0,
        params={"s": s},
    )


def student_t(df: float) -> PriorSpec:
    r"""Student t prior: :math:`\log f = \log\Gamma(\tfrac{\nu+1}2) - \log\Gamma(\tfrac\nu2)
    - \tfrac12\log(\nu\pi) - \tfrac{\nu+1}2\log(1 + x^2/\nu)`.

    Slope :math:`-(\nu + 1)x/(\nu + x^2) \to 0`: both tails heavy.
    """
    md = mpmath.mpf(df)
    const_mp = _mp_const(
        lambda: mpmath.loggamma((md + 1) / 2) - mpmath.loggamma(md / 2) - mpmath.log(md * mpmath.pi) / 2
    )
    const = float(sp.gammaln((df + 1) / 2) - sp.gammaln(df / 2)) - 0.5 * math.log(df * math.pi)

    def logpdf(x):
        x = np.abs(np.asarray(x, float))
        with np.errstate(all="ignore"):
            near = np.log1p(x * x / df)
            far = 2 * np.log(x) - math.log(df) + np.log1p(df / (x * x))
        return const - (df + 1) / 2 * _where(x < 1e100, near, far)

    def logpdf_mp(x):
        return const_mp() - (md + 1) / 2 * mpmath.log1p(x * x / md)

    def lower_tail(y):  # mass below -y, y >= 0
        return mpmath.betainc(md / 2, mpmath.mpf(1) / 2, 0, md / (md + y * y), regularized=True) / 2

    return PriorSpec(
        name=f"t({df:g})",
        support=(-math.inf, math.inf),
        lower=HEAVY,
        upper=HEAVY,
        logpdf=logpdf,
        logpdf_mp=logpdf_mp,
        cdf_mp=lambda x: lower_tail(-x) if x <= 0 else 1 - lower_tail(x),
        sf_mp=lambda x: lower_tail(x) if x >= 0 else 1 - lower_tail(-x),
        core=(-10.0, 10.0),
        centre=0.0,
        scale=1.0,
        median=0.0,
        params={"df": df},
    )


def gamma(a: float, scale: float = 1.0) -> PriorSpec:
    r"""Gamma prior (scipy's ``gamma(a, scale=theta)``):
    :math:`\log f = (a - 1)\log(x/\theta) - x/\theta - \log\Gamma(a) - \log\theta` on :math:`x > 0`.

    Slope :math:`(a - 1)/x - 1/\theta \to -1/\theta`: an exponential upper tail of rate
    :math:`1/\theta`.
    """
    ma, mt = mpmath.mpf(a), mpmath.mpf(scale)
    const_mp = _mp_const(lambda: mpmath.loggamma(ma) + mpmath.log(mt))
    const = -float(sp.gammaln(a)) - math.log(scale)

    def logpdf(x):
        x = np.asarray(x, float)
        with np.errstate(all="ignore"):
            body = (a - 1) * np.log(x / scale) - x / scale + const
        return _where(x > 0, body, _where((x == 0) & (a == 1), const, -np.inf))

    def logpdf_mp(x):
        return (ma - 1) * mpmath.log(x / mt) - x / mt - const_mp()

    return PriorSpec(
        name=f"gamma({a:g}, scale={scale:g})",
        support=(0.0, math.inf),
        lower=BOUNDED,
        upper=Tail("exponential", 1.0 / scale),
        logpdf=logpdf,
        logpdf_mp=logpdf_mp,
        cdf_mp=lambda x: mpmath.gammainc(ma, 0, x / mt, regularized=True) if x > 0 else mpmath.mpf(0),
        sf_mp=lambda x: mpmath.gammainc(ma, x / mt, mpmath.inf, regularized=True) if x > 0 else mpmath.mpf(1),
        breakpoints=(0.0,),
        core=(0.0, (a + 12 * math.sqrt(a) + 10) * scale),
        centre=0.0,
        scale=scale,
        median=(a - 1 / 3) * scale if a >= 1 else 0.0,
        params={"a": a, "scale": scale},
    )


def skewnorm(alpha: float) -> PriorSpec:
    r"""Skew-normal prior (scipy's ``skewnorm(alpha)``):
    :math:`\log f = \log 2 + \log\varphi(x) + \log\Phi(\alpha x)`.

    Slope :math:`-x + \alpha\varphi(\alpha x)/\Phi(\alpha x)`: to :math:`-\infty` on the right
    and (like :math:`-(1 + \alpha^2)|x|`) to :math:`+\infty` on the left: both tails light.  The
    survival function is :math:`\Phi(-x) + 2T(x, \alpha)` with Owen's T (:math:`x \ge 0`); where
    :math:`\Phi(x) - 2T(x, \alpha)` would cancel (:math:`x < 0`) the cdf is the quadrature of the
    density (:func:`_mp_log_integral`).
    """
    mal = mpmath.mpf(alpha)
    const = _mp_const(lambda: mpmath.log(2) - mpmath.log(2 * mpmath.pi) / 2)

    def logpdf(x):
        x = np.asarray(x, float)
        return math.log(2) - 0.5 * x * x - _LOG_SQRT_2PI + sp.log_ndtr(alpha * x)

    def logpdf_mp(x):
        return const() - x * x / 2 + mpmath.log(mpmath.ncdf(mal * x))

    def owen_t(h):
        return mpmath.quad(lambda u: mpmath.exp(-h * h * (1 + u * u) / 2) / (1 + u * u), [0, mal]) / (2 * mpmath.pi)

    def sf_mp(x):
        if x < 0:
            return 1 - cdf_mp(x)
        return mpmath.ncdf(-x) + 2 * owen_t(x)

    def cdf_mp(x):
        if x >= 0:
            return 1 - sf_mp(x)
        v, _ = _mp_log_integral(spec, mpmath.ninf, x, x, 0.0, 1.0, mpmath.mp.dps)
        return mpmath.exp(v)

    spec = PriorSpec(
        name=f"skewnorm({alpha:g})",
        support=(-math.inf, math.inf),
        lower=LIGHT,
        upper=LIGHT,
        logpdf=logpdf,
        logpdf_mp=logpdf_mp,
        cdf_mp=cdf_mp,
        sf_mp=sf_mp,
        core=(-8.0, 8.0),
        centre=0.0,
        scale=1.0,
        median=0.0,
        params={"alpha": alpha},
    )
    return spec


def two_piece_normal(s1: float, s2: float) -> PriorSpec:
    r"""Two-piece normal, mode 0: :math:`f = A e^{-x^2/(2 s_1^2)}` for :math:`x < 0`,
    :math:`A e^{-x^2/(2 s_2^2)}` for :math:`x \ge 0`, :math:`A = 2/(\sqrt{2\pi}(s_1 + s_2))`.

    Both tails light; 0 is a breakpoint (the second derivative jumps).
    """
    m1, m2 = mpmath.mpf(s1), mpmath.mpf(s2)
    const = _mp_const(lambda: mpmath.log(2) - mpmath.log(2 * mpmath.pi) / 2 - mpmath.log(m1 + m2))
    logA = math.log(2) - _LOG_SQRT_2PI - math.log(s1 + s2)

    def logpdf(x):
        x = np.asarray(x, float)
        s = np.where(x < 0, s1, s2)
        return logA - 0.5 * (x / s) ** 2

    def logpdf_mp(x):
        s = m1 if x < 0 else m2
        return const() - (x / s) ** 2 / 2

    def cdf_mp(x):
        if x < 0:
            return 2 * m1 / (m1 + m2) * mpmath.ncdf(x / m1)
        return 1 - sf_mp(x)

    def sf_mp(x):
        if x >= 0:
            return 2 * m2 / (m1 + m2) * mpmath.ncdf(-x / m2)
        return 1 - cdf_mp(x)

    return PriorSpec(
        name=f"two_piece_normal({s1:g}, {s2:g})",
        support=(-math.inf, math.inf),
        lower=LIGHT,
        upper=LIGHT,
        logpdf=logpdf,
        logpdf_mp=logpdf_mp,
        cdf_mp=cdf_mp,
        sf_mp=sf_mp,
        breakpoints=(0.0,),
        analytic_pieces=True,
        core=(-8 * s1, 8 * s2),
        centre=0.0,
        scale=min(s1, s2),
        median=0.0,
        params={"s1": s1, "s2": s2},
    )


def piecewise_uniform(edges: Sequence[float], weights: Sequence[float], name: str | None = None) -> PriorSpec:
    """Piecewise-uniform prior: mass ``weights[i]`` spread evenly over ``[edges[i], edges[i+1]]``.

    Bounded; every edge is a breakpoint.  The density is 0 on a bin of weight 0 (the support
    then has a gap).
    """
    e = np.asarray(edges, float)
    w = np.asarray(weights, float)
    w = w / math.fsum(w)
    with np.errstate(divide="ignore"):
        logdens = np.log(w / np.diff(e))
    me = [mpmath.mpf(float(v)) for v in e]  # exact (floats convert exactly)

    def make_tables():  # at the working precision: masses, densities, prefix and suffix sums
        mw = [mpmath.mpf(float(v)) for v in w]
        tot = mpmath.fsum(mw)
        mw = [v / tot for v in mw]
        mdens = [wv / (me[i + 1] - me[i]) for i, wv in enumerate(mw)]
        cum = [mpmath.fsum(mw[:i]) for i in range(len(mw) + 1)]
        rcum = [mpmath.fsum(mw[i:]) for i in range(len(mw) + 1)]
        return mdens, cum, rcum

    tables = _mp_const(make_tables)

    def logpdf(x):
        x = np.asarray(x, float)
        i = np.clip(np.searchsorted(e, x, side="right") - 1, 0, len(w) - 1)
        inside = (x >= e[0]) & (x <= e[-1])
        return np.where(inside, logdens[i], -np.inf)

    def _bin(x):  # exact: compares with the edges as mpf (a float would round onto an edge)
        i = bisect.bisect_right(me, x) - 1
        return min(max(i, 0), len(w) - 1)

    def logpdf_mp(x):
        d = tables()[0][_bin(x)]
        return mpmath.log(d) if d > 0 else mpmath.ninf

    def cdf_mp(x):
        if x <= me[0]:
            return mpmath.mpf(0)
        if x >= me[-1]:
            return mpmath.mpf(1)
        mdens, cum, _ = tables()
        i = _bin(x)
        return cum[i] + mdens[i] * (x - me[i])

    def sf_mp(x):
        if x <= me[0]:
            return mpmath.mpf(1)
        if x >= me[-1]:
            return mpmath.mpf(0)
        mdens, _, rcum = tables()
        i = _bin(x)
        return rcum[i + 1] + mdens[i] * (me[i + 1] - x)

    mid = float(np.interp(0.5, np.concatenate([[0.0], np.cumsum(w)]), e))
    return PriorSpec(
        name=name or f"piecewise_uniform({e.tolist()}, {w.tolist()})",
        support=(float(e[0]), float(e[-1])),
        logpdf=logpdf,
        logpdf_mp=logpdf_mp,
        cdf_mp=cdf_mp,
        sf_mp=sf_mp,
        breakpoints=tuple(float(v) for v in e),
        analytic_pieces=True,
        core=(float(e[0]), float(e[-1])),
        centre=mid,
        scale=float(e[-1] - e[0]),
        median=mid,
        params={"edges": e.tolist(), "weights": w.tolist()},
    )


def uniform(a: float, b: float) -> PriorSpec:
    """Uniform prior on ``[a, b]`` (a one-bin :func:`piecewise_uniform`)."""
    return piecewise_uniform([a, b], [1.0], name=f"uniform({a:g}, {b:g})")


def spike_mixture() -> PriorSpec:
    """0.1 U[-1, 1] + 0.9 U[-1.201, -1.199]: a narrow spike next to a flat bulk, with a gap."""
    return piecewise_uniform(
        [-1.201, -1.199, -1.0, 1.0], [0.9, 0.0, 0.1], name="0.1 U[-1,1] + 0.9 U[-1.201,-1.199]"
    )


def finite(atoms: Sequence[float], weights: Sequence[float], name: str | None = None) -> PriorSpec:
    """A finite prior: mass ``weights[i]`` on ``atoms[i]`` (normalised)."""
    order = np.argsort(np.asarray(atoms, float))
    a = tuple(float(atoms[i]) for i in order)
    w = np.asarray([float(weights[i]) for i in order])
    w = tuple((w / math.fsum(w)).tolist())
    return PriorSpec(
        name=name or f"finite({list(a)}, {list(w)})",
        support=(a[0], a[-1]),
        atoms=a,
        weights=w,
        breakpoints=a,
        core=(a[0], a[-1]),
        scale=max(a[-1] - a[0], 1.0),
        params={"atoms": a, "weights": w},
    )


# ---------------------------------------------------------------------------------------------
# Analytic limits
# ---------------------------------------------------------------------------------------------
def tail_limit(tail: Tail, r: float, eps: float) -> float:
    r"""The upper side's far-tail limit :math:`1 - e^{-r(\epsilon^2 - \lambda^2)/\epsilon}`
    (:math:`\epsilon > \lambda`, else 0) of one tail; 0 for light or bounded tails."""
    if tail.kind in ("bounded", "light") or not eps > 0:
        return 0.0
    lam = tail.rate
    if eps <= lam:
        return 0.0
    return -math.expm1(-r * (eps - lam) * (eps + lam) / eps)


def inverted_kernel_diverges(spec: PriorSpec, eps: float) -> bool:
    r"""Whether :math:`\int e^{\epsilon|x - c|}\,dF = \infty` (a heavy tail, or an exponential
    tail of rate :math:`\le \epsilon`): then :math:`V = 0` for every ball."""
    if spec.is_finite or not eps > 0:
        return False
    for tail in (spec.lower, spec.upper):
        if tail.kind == "heavy" or (tail.kind == "exponential" and eps >= tail.rate):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Exact evaluation (mpmath)
# ---------------------------------------------------------------------------------------------
class KernelValue(NamedTuple):
    """One kernel evaluated in mpmath: ``posterior`` of the ball, its prior mass ``p``, the
    ``advantage`` (``U - p`` upper, ``p - V`` lower) and the quadrature's error estimate
    relative to the kernel's total weight (0 for finite priors)."""

    posterior: Any
    p: Any
    advantage: Any
    error: Any


def _ball_ends(spec: PriorSpec, t: float, r: float) -> tuple[float, float]:
    lo, hi = spec.support
    return max(t - r, lo), min(t + r, hi)


def _finite_ball(spec: PriorSpec, t: float, r: float) -> np.ndarray:
    rr, tt = Fraction(float(r)), Fraction(float(t))
    return np.array([abs(Fraction(a) - tt) <= rr for a in spec.atoms])


def _finite_kernel(spec, t, r, eps, c, side, dps):
    with mpmath.workdps(dps):
        inside = _finite_ball(spec, t, r)
        k = -mpmath.mpf(eps) if side == "upper" else mpmath.mpf(eps)
        cm = mpmath.mpf(c)
        w = [mpmath.mpf(v) for v in spec.weights]
        tot = mpmath.fsum(w)
        w = [v / tot for v in w]
        # 1 - L_i (upper) or L_i - 1 (lower), with expm1: no cancellation at tiny eps
        d = [abs(mpmath.expm1(k * abs(mpmath.mpf(a) - cm))) for a in spec.atoms]
        L = [mpmath.exp(k * abs(mpmath.mpf(a) - cm)) for a in spec.atoms]
        p = mpmath.fsum(wi for wi, s in zip(w, inside, strict=True) if s)
        q = mpmath.fsum(wi for wi, s in zip(w, inside, strict=True) if not s)
        s_in = mpmath.fsum(wi * di for wi, di, s in zip(w, d, inside, strict=True) if s)
        s_out = mpmath.fsum(wi * di for wi, di, s in zip(w, d, inside, strict=True) if not s)
        e_in = mpmath.fsum(wi * li for wi, li, s in zip(w, L, inside, strict=True) if s)
        D = mpmath.fsum(wi * li for wi, li in zip(w, L, strict=True))
        adv = (p * s_out - q * s_in) / D
        return KernelValue(e_in / D, p, adv, mpmath.mpf(0))


_SIGNIFICANT = 80.0  # probe cells below e^-80 of the largest are dropped (beyond 1e-34 relative)
_CUT_STEP = 16.0  # a segment is cut where its log-integrand has moved by this much


def _probe_offsets(length: float, scale0: float) -> np.ndarray:
    """Offsets in [0, length] (length may be inf): geometric from tiny to length, plus uniform."""
    if math.isfinite(length):
        geo = length * 2.0 ** -np.arange(1, 64)
        uni = length * np.linspace(0.0, 1.0, 257)
        return np.unique(np.concatenate([geo, length - geo, uni]))
    start = 1e-14 * scale0
    n = math.ceil((math.log(1e300) - math.log(start)) / math.log(1.05))
    return np.concatenate([[0.0], np.exp(math.log(start) + math.log(1.05) * np.arange(n))])


def _segment_points(spec, a, b, anchor, k, direction, scale0):
    """Cut points (offsets from ``a`` toward ``b``) and the shift for one segment of the integral
    of ``f(y) e^{k |y - anchor|}``; ``None`` when the segment carries no mass.

    A float64 probe (geometric and uniform offsets) gives the log-integrand ``phi``; the stretch
    kept is where a probe cell's contribution ``phi + log(width)`` is within 115 of the largest
    (the start is always kept); it is cut where ``phi`` has moved by 8 since the last cut and at
    the probe's maximum.
    """
    length = abs(b - a)
    off = _probe_offsets(length, scale0)
    y = a + direction * off
    if math.isfinite(length):
        y[-1] = b
    with np.errstate(all="ignore"):
        phi = spec.logpdf(y) + k * np.abs(y - anchor)
    phi = np.where(np.isnan(phi), -np.inf, phi)
    if not np.any(phi > -np.inf):
        return None
    width = np.diff(off)
    width = np.maximum(np.concatenate([[width[0]], width]), np.concatenate([width, [width[-1]]]))
    with np.errstate(all="ignore"):
        contrib = phi + np.log(width + 1e-300)
    good = np.isfinite(contrib)
    if not np.any(good):  # only +inf values: a singular end, keep the whole segment
        return [0.0, length], 0.0
    top = float(np.max(contrib[good]))
    fin = np.isfinite(phi)
    shift = float(np.max(phi[fin])) if np.any(fin) else 0.0
    sig = np.flatnonzero(good & (contrib > top - _SIGNIFICANT))
    i1 = int(sig[-1])
    to_end = i1 >= len(off) - 2
    i1 = min(i1 + 1, len(off) - 1)
    imax = int(np.argmax(np.where(fin, phi, -np.inf)))
    pts = [0.0]
    last = None
    for i in range(int(sig[0]), i1):
        if not fin[i]:
            continue
        if i == imax or last is None or abs(phi[i] - last) >= _CUT_STEP:
            if off[i] > pts[-1]:
                pts.append(float(off[i]))
            last = phi[i]
    end = (length if math.isfinite(length) else math.inf) if to_end else float(off[i1])
    if end > pts[-1]:
        pts.append(end)
    return pts, shift


def _mpv(v):
    """An end as mpmath: an mpf as is, a float's exact value, or an infinity."""
    if isinstance(v, mpmath.mpf):
        return v
    return mpmath.mpf(v) if math.isfinite(v) else (mpmath.inf if v > 0 else mpmath.ninf)


def _mp_log_integral(spec, a, b, anchor, k, scale0, dps):
    """log of int_a^b f(y) e^{k|y - anchor|} dy (mpmath), with the log of its error estimate;
    ``a``, ``b`` (mpf or float, possibly infinite) are exact ends, ``anchor`` must not lie
    inside (a, b)."""
    a, b = _mpv(a), _mpv(b)
    if not b > a:
        return mpmath.ninf, mpmath.ninf
    fa, fb, fanchor = float(a), float(b), float(anchor)
    if not fb > fa:  # shorter than a float's resolution: one tanh-sinh rule, no probe
        with mpmath.workdps(dps):
            mk, m_anchor = mpmath.mpf(k), _mpv(anchor)
            mid = (a + b) / 2
            shift = spec.logpdf_mp(mid) + mk * abs(mid - m_anchor)
            val, e = mpmath.quad(
                lambda y: mpmath.exp(spec.logpdf_mp(y) + mk * abs(y - m_anchor) - shift), [a, b], error=True
            )
            if val <= 0:
                return mpmath.ninf, mpmath.ninf
            return mpmath.log(val) + shift, (mpmath.log(abs(e)) + shift if e else mpmath.ninf)
    # probe from the end nearest the anchor outward (the kernel's scale sits there)
    if abs(fanchor - fb) < abs(fanchor - fa) or (math.isinf(fa) and math.isfinite(fb)):
        start, stop, direction = fb, fa, -1.0
    else:
        start, stop, direction = fa, fb, 1.0
    cut = _segment_points(spec, start, stop, fanchor, k, direction, scale0)
    if cut is None:
        return mpmath.ninf, mpmath.ninf
    pts, shift = cut
    with mpmath.workdps(dps):
        m_shift = mpmath.mpf(shift)
        m_anchor = _mpv(anchor)
        mk = mpmath.mpf(k)

        def integrand(y):
            return mpmath.exp(spec.logpdf_mp(y) + mk * abs(y - m_anchor) - m_shift)

        inner = sorted(start + direction * o for o in pts[1:-1] if math.isfinite(o))
        last = pts[-1]
        whole = math.isinf(last) or last >= abs(stop - start)
        if direction > 0:
            nodes = [a, *[mpmath.mpf(v) for v in inner if fa < v < fb]]
            nodes.append(b if whole else mpmath.mpf(start + last))
        else:
            nodes = [a if whole else mpmath.mpf(start - last), *[mpmath.mpf(v) for v in inner if fa < v < fb], b]
        nodes = [v for i, v in enumerate(nodes) if i == 0 or v > nodes[i - 1]]
        total, err = mpmath.mpf(0), mpmath.mpf(0)
        rough = [mpmath.mpf(v) for v in _rough(spec)]
        for u, v in itertools.pairwise(nodes):
            # tanh-sinh where an end is infinite or a rough point (endpoint singularities),
            # Gauss-Legendre on the analytic pieces
            ts = mpmath.isinf(u) or mpmath.isinf(v) or any(min(abs(x - u), abs(x - v)) < v - u for x in rough)
            val, e = mpmath.quad(integrand, [u, v], error=True, method="tanh-sinh" if ts else "gauss-legendre")
            if not ts and abs(e) > mpmath.mpf(10) ** (-dps + 8) * abs(val):
                val, e = mpmath.quad(integrand, [u, v], error=True, method="tanh-sinh")
            total += val
            err += abs(e)
        if total <= 0:
            return mpmath.ninf, mpmath.ninf
        return mpmath.log(total) + m_shift, (mpmath.log(err) + m_shift if err > 0 else mpmath.ninf)


def kernel_advantage(spec: PriorSpec, t: float, r: float, eps: float, c: float, side: str, dps: int = DPS) -> KernelValue:
    r"""The posterior of :math:`\mathcal B(t, r)` under the kernel :math:`e^{\mp\epsilon|x - c|}`
    (``side="upper"``: Laplace kernel; ``"lower"``: inverted kernel), its mass ``p`` and the
    advantage, in mpmath (see the module docstring; ``c`` may be any real).  The ball's ends
    are :math:`t \pm r` computed exactly (not rounded to floats)."""
    if side not in ("upper", "lower"):
        raise ValueError("side must be 'upper' or 'lower'")
    if spec.is_finite:
        return _finite_kernel(spec, t, r, eps, c, side, dps)
    lo, hi = spec.support
    with mpmath.workdps(dps):
        mt, mr = mpmath.mpf(t), mpmath.mpf(r)
        l_ = max(mt - mr, _mpv(lo))
        h_ = min(mt + mr, _mpv(hi))
        mc = mpmath.mpf(c)
        p = spec.mass_mp(l_, h_)
        q = spec.outside_mp(l_, h_)
        if side == "lower" and inverted_kernel_diverges(spec, eps):
            return KernelValue(mpmath.mpf(0), p, p, mpmath.mpf(0))
        k = -eps if side == "upper" else eps
        scale0 = min(spec.scale, 1.0 / eps if eps > 0 else math.inf, max(float(h_ - l_), 1e-300))
        bps = [mpmath.mpf(b) for b in spec.breakpoints]
        cuts = sorted({l_, h_, *[b for b in bps if l_ < b < h_], *([mc] if l_ < mc < h_ else [])})
        segs_in = list(itertools.pairwise(cuts))
        left = sorted({_mpv(lo), l_, *[b for b in bps if _mpv(lo) < b < l_], *([mc] if _mpv(lo) < mc < l_ else [])})
        right = sorted({h_, _mpv(hi), *[b for b in bps if h_ < b < _mpv(hi)], *([mc] if h_ < mc < _mpv(hi) else [])})
        segs_out = list(itertools.pairwise(left)) + list(itertools.pairwise(right))
        logs_in, logs_out, errs = [], [], []
        for group, out in ((segs_in, logs_in), (segs_out, logs_out)):
            for u, v in group:
                if not v > u:
                    continue
                val, e = _mp_log_integral(spec, u, v, mc, k, scale0, dps)
                out.append(val)
                errs.append(e)
        e_in = mpmath.fsum(mpmath.exp(v) for v in logs_in)
        e_out = mpmath.fsum(mpmath.exp(v) for v in logs_out)
        D = e_in + e_out
        err = mpmath.fsum(mpmath.exp(v) for v in errs) / D if D > 0 else mpmath.mpf(0)
        post = e_in / D
        # p normalised by p + q (= 1 up to rounding), as the posterior is
        pn = p / (p + q)
        adv = post - pn if side == "upper" else pn - post
        return KernelValue(post, p, adv, err)


def kernel_posterior(spec: PriorSpec, t: float, r: float, eps: float, c: float, side: str, dps: int = DPS):
    """The posterior of ``B(t, r)`` under the kernel centred at ``c`` (mpmath; see
    :func:`kernel_advantage`)."""
    return kernel_advantage(spec, t, r, eps, c, side, dps).posterior


# ---------------------------------------------------------------------------------------------
# The float64 scan
# ---------------------------------------------------------------------------------------------
_GLX, _GLW = np.polynomial.legendre.leggauss(16)
_GU = 0.5 * (_GLX + 1.0)
_GW = 0.5 * _GLW
_NEG = -np.inf


def _lae(a, b):
    """log(e^a + e^b), elementwise, -inf safe."""
    with np.errstate(all="ignore"):
        return np.logaddexp(a, b)


def _lse3(a, b, c):
    return _lae(_lae(a, b), c)


def _log_abs_expm1(z):
    """log|e^z - 1|, stable for every z (-inf at 0)."""
    z = np.asarray(z, float)
    with np.errstate(all="ignore"):
        neg = np.log(-np.expm1(np.minimum(z, 0.0)))
        pos = z + np.log(-np.expm1(-np.maximum(z, 0.0)))
    return np.where(z < 0, neg, pos)


def _group_lse(q, starts, gap_of_node):
    """log-sum-exp of q over consecutive node blocks (one per gap)."""
    with np.errstate(all="ignore"):
        mx = np.maximum.reduceat(q, starts)
        safe = np.where(np.isfinite(mx), mx, 0.0)
        s = np.add.reduceat(np.exp(q - safe[gap_of_node]), starts)
        out = safe + np.log(s)
    return np.where(np.isneginf(mx) | (s == 0), _NEG, np.where(mx == np.inf, np.inf, out))


def _gap_integrals(logpdf, a, b, k, rough=()):
    """For gaps [a_i, b_i]: log of  m = int f,  eR = int f e^{k(b - y)},  dR = int f |expm1(k(b - y))|,
    eL = int f e^{k(y - a)},  dL = int f |expm1(k(y - a))|  (Gauss-Legendre 16 on graded pieces).

    Grading: a gap whose log-integrand varies by ``V`` (ends, midpoint, kernel) gets
    ``ceil(log2 V) + 2`` levels of pieces doubling in length from each end; an end at distance
    ``d`` from a ``rough`` point (where the density is not analytic) gets enough levels to reach
    below ``d`` (60 when ``d = 0``).  Gaps must not straddle a rough point.
    """
    a = np.asarray(a, float).ravel()
    b = np.asarray(b, float).ravel()
    n = a.size
    out = np.full((5, n), _NEG)
    g = b - a
    live = g > 0
    if not np.any(live):
        return out
    a, b, g = a[live], b[live], g[live]
    with np.errstate(all="ignore"):
        fa, fb, fm = logpdf(a), logpdf(b), logpdf(a + 0.5 * g)
        diffs = np.abs(np.stack([fb - fa, fm - fa, fm - fb]))
        # an infinite log-density at an end is a rough point (graded below) or the edge of a
        # bin of zero mass (nothing to grade)
        var = np.max(np.where(np.isfinite(diffs), diffs, 0.0), axis=0) + abs(k) * g
        empty = np.isneginf(fa) & np.isneginf(fb) & np.isneginf(fm)
        K = np.where((var <= 1.0) | empty, 0, np.clip(np.ceil(np.log2(np.maximum(var, 1.0))) + 2, 1, 60))
    KL, KR = K.copy(), K.copy()
    if len(rough):
        rp_ = np.sort(np.asarray(rough, float))
        i = np.searchsorted(rp_, a, side="right") - 1  # the rough point at or left of a
        dl = np.where(i >= 0, a - rp_[np.clip(i, 0, None)], np.inf)
        jr = np.searchsorted(rp_, b, side="left")  # the rough point at or right of b
        dr = np.where(jr < rp_.size, rp_[np.clip(jr, None, rp_.size - 1)] - b, np.inf)
        with np.errstate(all="ignore"):
            need_l = np.where(dl <= 0, 60, np.clip(np.ceil(np.log2(g / dl)) + 3, 0, 60))
            need_r = np.where(dr <= 0, 60, np.clip(np.ceil(np.log2(g / dr)) + 3, 0, 60))
        KL = np.maximum(KL, np.where(dl < g, need_l, 0))
        KR = np.maximum(KR, np.where(dr < g, need_r, 0))
    KL, KR = KL.astype(int), KR.astype(int)
    single = (KL == 0) & (KR == 0)
    npieces = np.where(single, 1, KL + KR + 2)
    gap_of_piece = np.repeat(np.arange(a.size), npieces)
    first = np.concatenate([[0], np.cumsum(npieces)[:-1]])
    j = np.arange(gap_of_piece.size) - first[gap_of_piece]
    KLp, KRp, sg = KL[gap_of_piece], KR[gap_of_piece], single[gap_of_piece]
    # left half: pieces j in [0, KL] from a; right half: j - KL - 1 in [0, KR] from b
    right = ~sg & (j > KLp)
    jj = np.where(right, j - KLp - 1, j)
    Kp = np.where(right, KRp, KLp)
    s0 = np.where(jj == 0, 0.0, 2.0 ** -(Kp + 2 - jj))
    s1 = 2.0 ** -(Kp + 1 - jj)
    s0 = np.where(sg, 0.0, s0)
    s1 = np.where(sg, 1.0, s1)
    gp = g[gap_of_piece]
    off = (s0[:, None] + (s1 - s0)[:, None] * _GU[None, :]) * gp[:, None]  # offset from own end
    wt = ((s1 - s0) * gp)[:, None] * _GW[None, :]
    rp = right[:, None]
    uL = np.where(rp, gp[:, None] - off, off)
    uR = np.where(rp, off, gp[:, None] - off)
    y = np.where(rp, b[gap_of_piece][:, None] - off, a[gap_of_piece][:, None] + off)
    gap_of_node = np.repeat(gap_of_piece, _GU.size)
    with np.errstate(all="ignore"):
        base = (np.log(wt) + logpdf(y)).ravel()
        uL, uR = uL.ravel(), uR.ravel()
        starts = first * _GU.size
        res = [
            _group_lse(base, starts, gap_of_node),
            _group_lse(base + k * uR, starts, gap_of_node),
            _group_lse(base + _log_abs_expm1(k * uR), starts, gap_of_node),
            _group_lse(base + k * uL, starts, gap_of_node),
            _group_lse(base + _log_abs_expm1(k * uL), starts, gap_of_node),
        ]
    for i, v in enumerate(res):
        out[i, live] = v
    return out


#: the float scan stops where |t| > r 2^_FAR_BITS (the ball's ends then round by < 2.4e-7 r);
#: beyond, mpmath evaluates far probes exactly (see :func:`_far_probes`)
_FAR_BITS = 30


def _rough(spec: PriorSpec) -> tuple[float, ...]:
    """Points where the density is not analytic on either side (graded quadrature there)."""
    return () if spec.analytic_pieces else spec.breakpoints


def _hazard(spec, x, direction):
    """Local decay rate of the density moving outward (finite difference of the log-density)."""
    h = np.maximum(1e-3 * np.abs(x - spec.centre), 1e-3 * spec.scale)
    with np.errstate(all="ignore"):
        return (spec.logpdf(x) - spec.logpdf(x + direction * h)) / h


def _tail_ts(spec, r, eps, side, direction):
    """True values out through one unbounded tail (direction +1: upper, -1: lower)."""
    tail = spec.upper if direction > 0 else spec.lower
    start = spec.core[1] if direction > 0 else spec.core[0]
    step0 = min(r / 8, (spec.core[1] - spec.core[0]) / 400)
    out = []
    t = start
    k = -eps if side == "upper" else eps
    while True:
        dist = abs(t - spec.centre)
        t = t + direction * max(step0, 0.05 * dist)
        lf = float(spec.logpdf(np.array([t]))[0])
        if abs(t) > r * 2.0**_FAR_BITS or not math.isfinite(t):
            break
        if k > 0 and lf + math.log(2 * r) < -700:
            break
        if tail.kind == "light":
            haz = float(_hazard(spec, np.array([t]), direction)[0])
            if (haz > 2 * eps + 8 / r and k < 0) or lf < -5000:
                break
        elif lf < -2000:
            break
        out.append(t)
    return out


def _scan_ts(spec, r, eps, side):
    """The true values scanned (see the module docstring)."""
    lo, hi = spec.support
    ca, cb = spec.core
    step = min(r / 8, (cb - ca) / 400)
    ts = [np.arange(ca, cb, step), [cb]]
    special = [v for v in (lo, hi) if math.isfinite(v)]
    for b in (*spec.breakpoints, *special):
        ts.append([b - r, b, b + r, b - r / 2, b + r / 2])
    if not math.isfinite(hi):
        ts.append(_tail_ts(spec, r, eps, side, +1))
    if not math.isfinite(lo):
        ts.append(_tail_ts(spec, r, eps, side, -1))
    t = np.unique(np.concatenate([np.asarray(v, float) for v in ts]))
    t = t[(t >= lo) & (t <= hi)]
    with np.errstate(all="ignore"):
        ok = np.isfinite(spec.logpdf(t)) | np.isin(t, np.asarray(spec.breakpoints + tuple(special)))
        ok |= spec.logpdf(t) == np.inf
    return t[ok]


def _extension(spec, x_last, r, k, direction):
    """Grid points beyond the last ball end until the log-integrand has dropped by 150."""
    lo, hi = spec.support
    bound = hi if direction > 0 else lo
    if math.isfinite(bound):
        return []
    ratio = 1.03 if k > 0 else 1.5
    lf0 = float(spec.logpdf(np.array([x_last]))[0])
    ref = lf0 + math.log(r)
    pts = []
    x = x_last
    dist = max(abs(x - spec.centre), spec.scale)
    for _ in range(20000):
        dist *= ratio
        x = spec.centre + direction * dist
        if not math.isfinite(x) or abs(x) > 1e300:
            break
        lf = float(spec.logpdf(np.array([x]))[0])
        val = lf + math.log(dist) + (k * abs(x - x_last) if k > 0 else 0.0)
        pts.append(x)
        if val < ref - 150 and (k <= 0 or val < ref - 150):
            break
    return pts


class _Scan:
    """The float64 evaluator for one (prior, r, eps, side): tails at every grid point by positive
    recursions, and the kernel inside each ball on a grid of centres."""

    C = 32

    def __init__(self, spec: PriorSpec, r: float, eps: float, side: str, ts: np.ndarray | None = None):
        self.spec, self.r, self.eps, self.side = spec, r, eps, side
        self.rough = _rough(spec)
        self.k = -eps if side == "upper" else eps
        self.ts = _scan_ts(spec, r, eps, side) if ts is None else np.asarray(ts, float)
        lo, hi = spec.support
        ls = np.maximum(self.ts - r, lo)
        hs = np.minimum(self.ts + r, hi)
        pts = [ls, hs, [v for v in (lo, hi) if math.isfinite(v)], spec.breakpoints]
        core = np.linspace(*spec.core, 401)
        pts.append(core)
        for b in (*spec.breakpoints, *[v for v in (lo, hi) if math.isfinite(v)]):
            d = spec.scale * 2.0 ** -np.arange(0, 48)
            pts.append(b + d)
            pts.append(b - d)
        pts.append(_extension(spec, float(np.max(hs)), r, self.k, +1))
        pts.append(_extension(spec, float(np.min(ls)), r, self.k, -1))
        x = np.unique(np.concatenate([np.asarray(p, float).ravel() for p in pts]))
        x = x[(x >= lo) & (x <= hi) & np.isfinite(x)]
        self.x = x
        self._recursions()

    def _recursions(self):
        x, k = self.x, self.k
        n = x.size
        gi = _gap_integrals(self.spec.logpdf, x[:-1], x[1:], k, self.rough)
        m, eR, dR, eL, dL = gi
        dx = np.diff(x)
        kd = k * dx
        lam1 = _log_abs_expm1(kd)
        LM = np.full(n, _NEG)
        LE = np.full(n, _NEG)
        LD = np.full(n, _NEG)
        for j in range(1, n):
            LM[j] = np.logaddexp(LM[j - 1], m[j - 1])
            LE[j] = np.logaddexp(LE[j - 1] + kd[j - 1], eR[j - 1])
            LD[j] = np.logaddexp(np.logaddexp(LD[j - 1] + kd[j - 1], lam1[j - 1] + LM[j - 1]), dR[j - 1])
        RM = np.full(n, _NEG)
        RE = np.full(n, _NEG)
        RD = np.full(n, _NEG)
        for j in range(n - 2, -1, -1):
            RM[j] = np.logaddexp(RM[j + 1], m[j])
            RE[j] = np.logaddexp(RE[j + 1] + kd[j], eL[j])
            RD[j] = np.logaddexp(np.logaddexp(RD[j + 1] + kd[j], lam1[j] + RM[j + 1]), dL[j])
        self.L = (LM, LE, LD)
        self.R = (RM, RE, RD)
        self.log_total = float(np.logaddexp(LM[-1], RM[-1]))

    def tails_at(self, z):
        """(LM, LE, LD) and (RM, RE, RD) at arbitrary points z (partial gaps from the grid)."""
        x, k = self.x, self.k
        z = np.clip(np.asarray(z, float), x[0], x[-1])
        i = np.clip(np.searchsorted(x, z, side="right") - 1, 0, x.size - 1)
        j = np.clip(np.searchsorted(x, z, side="left"), 0, x.size - 1)
        LM, LE, LD = (v[i] for v in self.L)
        RM, RE, RD = (v[j] for v in self.R)
        need_l = z > x[i]
        if np.any(need_l):
            gi = _gap_integrals(self.spec.logpdf, x[i][need_l], z[need_l], k, self.rough)
            d = z[need_l] - x[i][need_l]
            lm, le, ld = LM[need_l], LE[need_l], LD[need_l]
            LM = LM.copy()
            LE = LE.copy()
            LD = LD.copy()
            LM[need_l] = _lae(lm, gi[0])
            LE[need_l] = _lae(le + k * d, gi[1])
            LD[need_l] = _lse3(ld + k * d, _log_abs_expm1(k * d) + lm, gi[2])
        need_r = z < x[j]
        if np.any(need_r):
            gi = _gap_integrals(self.spec.logpdf, z[need_r], x[j][need_r], k, self.rough)
            d = x[j][need_r] - z[need_r]
            rm, re, rd = RM[need_r], RE[need_r], RD[need_r]
            RM = RM.copy()
            RE = RE.copy()
            RD = RD.copy()
            RM[need_r] = _lae(rm, gi[0])
            RE[need_r] = _lae(re + k * d, gi[3])
            RD[need_r] = _lse3(rd + k * d, _log_abs_expm1(k * d) + rm, gi[4])
        return (LM, LE, LD), (RM, RE, RD)

    def evaluate(self, ts, extra_c=None, C=None):
        """Advantages (T, J) at centres (T, J) for true values ``ts``: the kernel's ``U - p``
        (upper) or ``p - V`` (lower), cancellation-free; also log p (T,)."""
        spec, r, k = self.spec, self.r, self.k
        C = self.C if C is None else C
        ts = np.asarray(ts, float)
        lo, hi = spec.support
        l_ = np.maximum(ts - r, lo)
        h_ = np.minimum(ts + r, hi)
        cols = [l_[:, None] + (h_ - l_)[:, None] * np.linspace(0.0, 1.0, C + 1)[None, :]]
        if spec.breakpoints:
            bp = np.asarray(spec.breakpoints, float)[None, :]
            cols.append(np.clip(bp, l_[:, None], h_[:, None]))
        if extra_c is not None:
            ec = np.asarray(extra_c, float).reshape(ts.size, -1)
            cols.append(np.clip(ec, l_[:, None], h_[:, None]))
        cs = np.sort(np.concatenate(cols, axis=1), axis=1)
        T, J = cs.shape
        gi = _gap_integrals(spec.logpdf, cs[:, :-1], cs[:, 1:], k, self.rough).reshape(5, T, J - 1)
        m, eR, dR, eL, dL = gi
        dx = np.diff(cs, axis=1)
        kd = k * dx
        lam1 = _log_abs_expm1(kd)
        PM = np.full((T, J), _NEG)
        PE = np.full((T, J), _NEG)
        PD = np.full((T, J), _NEG)
        QM = np.full((T, J), _NEG)
        QE = np.full((T, J), _NEG)
        QD = np.full((T, J), _NEG)
        with np.errstate(all="ignore"):
            for j in range(1, J):
                PM[:, j] = np.logaddexp(PM[:, j - 1], m[:, j - 1])
                PE[:, j] = np.logaddexp(PE[:, j - 1] + kd[:, j - 1], eR[:, j - 1])
                PD[:, j] = _lse3(PD[:, j - 1] + kd[:, j - 1], lam1[:, j - 1] + PM[:, j - 1], dR[:, j - 1])
            for j in range(J - 2, -1, -1):
                QM[:, j] = np.logaddexp(QM[:, j + 1], m[:, j])
                QE[:, j] = np.logaddexp(QE[:, j + 1] + kd[:, j], eL[:, j])
                QD[:, j] = _lse3(QD[:, j + 1] + kd[:, j], lam1[:, j] + QM[:, j + 1], dL[:, j])
            (LM, LE, LD), (RM, RE, RD) = self.tails_at(np.concatenate([l_, h_]))
            LM, LE, LD = LM[:T, None], LE[:T, None], LD[:T, None]
            RM, RE, RD = RM[T:, None], RE[T:, None], RD[T:, None]
            logp = PM[:, -1:]
            logq = np.logaddexp(LM, RM)
            e_in = np.logaddexp(PE, QE)
            s_in = np.logaddexp(PD, QD)
            dl = cs - l_[:, None]
            dh = h_[:, None] - cs
            e_out = np.logaddexp(LE + k * dl, RE + k * dh)
            s_out = np.logaddexp(
                np.logaddexp(_log_abs_expm1(k * dl) + LM, k * dl + LD),
                np.logaddexp(_log_abs_expm1(k * dh) + RM, k * dh + RD),
            )
            logD = np.logaddexp(e_in, e_out)
            lognorm_ = np.logaddexp(logp, logq)
            a1 = logp + s_out - logD - lognorm_
            a2 = logq + s_in - logD - lognorm_
            adv = np.exp(a1) - np.exp(a2)
            adv = np.where(np.isnan(adv), -np.inf, adv)
        return adv, cs, logp[:, 0] - lognorm_[:, 0]


# ---------------------------------------------------------------------------------------------
# The global search
# ---------------------------------------------------------------------------------------------
class Worst(NamedTuple):
    """The largest violation-side value found: ``value`` at true value ``t`` and centre ``c``
    (``t = +-inf`` and ``c = None``: a far-tail limit)."""

    value: float
    t: float
    c: float | None


@dataclass
class WorstDetails:
    """:func:`worst_advantage_details`: the worst value and how it was found."""

    value: float
    t: float
    c: float | None
    source: str  # "kernel", "far probe", "limit", "divergent" or "finite"
    scan_value: float = math.nan
    mp_value: Any = None
    mp_error: Any = None
    limits: dict = field(default_factory=dict)
    candidates: list = field(default_factory=list)


def _refine(scan: _Scan, t0: float, c0: float, t_step: float, rounds: int = 22):
    """Zoom on (t, c) from (t0, c0): each round evaluates 9 true values around the best (half
    width ``t_step``, shrinking by 2.5 a round), each with 33 centres across its ball and 13
    around its own current best centre (shrinking likewise).  Returns (value, t, c)."""
    spec, r = scan.spec, scan.r
    lo, hi = spec.support
    width = 2 * r
    w_t, w_c = t_step, width / 16
    t_best, c_best = t0, c0
    adv0, cs0, _ = scan.evaluate(np.array([t0]), extra_c=np.array([[c0]]))
    i0 = int(np.argmin(np.abs(cs0[0] - c0)))
    best = (float(adv0[0, i0]), t0, float(cs0[0, i0]))
    rows_t = np.array([t0])
    rows_c = np.array([c0])
    for _ in range(rounds):
        ts = np.unique(np.clip(t_best + w_t * np.linspace(-1.0, 1.0, 9), lo, hi))
        # each row's centre estimate: interpolated from the last round's rows
        order = np.argsort(rows_t)
        c_est = np.interp(ts, rows_t[order], rows_c[order] - rows_t[order]) + ts
        c_est = np.where(rows_t.size == 1, c_best + (ts - t_best), c_est)
        fine = c_est[:, None] + w_c * np.linspace(-1.0, 1.0, 13)[None, :]
        adv, cs, _ = scan.evaluate(ts, extra_c=fine)
        j = np.argmax(adv, axis=1)
        vals = adv[np.arange(ts.size), j]
        i = int(np.argmax(vals))
        if vals[i] >= best[0]:
            best = (float(vals[i]), float(ts[i]), float(cs[i, j[i]]))
        t_best, c_best = best[1], best[2]
        rows_t, rows_c = ts, cs[np.arange(ts.size), j]
        w_t /= 2.5
        w_c /= 2.5
        if w_t < 1e-15 * max(abs(t_best), r) and w_c < 1e-15 * max(abs(c_best), r):
            break
    return best


def scan_advantages(spec: PriorSpec, r: float, eps: float, side: str, ts=None):
    """The float64 scan alone: per true value, the best centre's advantage.  Returns
    ``(ts, best_adv, best_c, log_p)``."""
    scan = _Scan(spec, r, eps, side, ts)
    adv, cs, logp = scan.evaluate(scan.ts)
    i = np.argmax(adv, axis=1)
    rows = np.arange(adv.shape[0])
    return scan.ts, adv[rows, i], cs[rows, i], logp


def max_ball_mass(spec: PriorSpec, r: float) -> tuple[Any, float]:
    """The largest prior mass of a ball ``B(t, r)`` over true values (scan, refinement, mpmath):
    ``(p, t)``."""
    lo, hi = spec.support
    if spec.is_finite:
        best = (mpmath.mpf(-1), math.nan)
        for t in spec.atoms:
            inside = _finite_ball(spec, t, r)
            with mpmath.workdps(DPS):
                p = mpmath.fsum(mpmath.mpf(w) for w, s in zip(spec.weights, inside, strict=True) if s)
            if p > best[0]:
                best = (p, t)
        return best
    ts = _scan_ts(spec, r, 1.0, "lower")
    with np.errstate(all="ignore"):
        xs = np.unique(np.concatenate([ts - r, ts + r, np.linspace(*spec.core, 2001)]))
    xs = xs[(xs >= lo) & (xs <= hi)]
    gi = _gap_integrals(spec.logpdf, xs[:-1], xs[1:], 0.0, _rough(spec))
    cm = np.concatenate([[0.0], np.cumsum(np.exp(gi[0]))])
    a = np.interp(np.maximum(ts - r, lo), xs, cm)
    b = np.interp(np.minimum(ts + r, hi), xs, cm)
    order = np.argsort(b - a)[::-1][:5]
    best = (mpmath.mpf(-1), math.nan)
    for i in order:
        t0 = float(ts[i])

        def neg(t):
            with mpmath.workdps(30):
                return -float(spec.mass_mp(*_ball_ends(spec, min(max(t, lo), hi), r)))

        step = max(r, 1e-9)
        res = minimize_scalar(neg, bounds=(max(lo, t0 - step), min(hi, t0 + step)), method="bounded",
                              options={"xatol": 1e-12 * max(step, abs(t0))})
        for t in (t0, float(res.x)):
            with mpmath.workdps(DPS):
                p = spec.mass_mp(*_ball_ends(spec, t, r))
            if p > best[0]:
                best = (p, t)
    return best


def _far_probes(spec: PriorSpec, r: float, eps: float, dps: int, targets=(-30,)) -> list:
    """Upper side, heavy or exponential tails: true values beyond the float scan (|t| > r 2^30),
    at the points where ``f(t) |t|`` is ``10^target`` (default 1e-30), with the centre
    ``t +- lambda r/eps`` (``lambda`` the local hazard rate, the far-tail optimum), evaluated in
    mpmath exactly.
    Returns ``[(value, t, c)]``."""
    out = []
    for direction, tail in ((+1, spec.upper), (-1, spec.lower)):
        if tail.kind not in ("heavy", "exponential"):
            continue
        far = r * 2.0**_FAR_BITS
        xs = spec.centre + direction * np.exp(np.linspace(math.log(far), math.log(1e300), 4000))
        with np.errstate(all="ignore"):
            level = (spec.logpdf(xs) + np.log(np.abs(xs - spec.centre))) / math.log(10)
        for target in targets:
            hit = np.flatnonzero(level <= target)
            if hit.size == 0:
                continue
            t = float(xs[hit[0]])
            lam = float(np.clip(_hazard(spec, np.array([t]), direction)[0], 0.0, eps))
            c = t + direction * lam * r / eps
            kv = kernel_advantage(spec, t, r, eps, c, "upper", dps)
            out.append((float(kv.advantage), t, c))
    return out


def _finite_worst(spec: PriorSpec, r: float, eps: float, side: str) -> WorstDetails:
    best = WorstDetails(-math.inf, math.nan, None, "finite")
    atoms = spec.atoms
    for t in atoms:
        inside = _finite_ball(spec, t, r)
        ball = [a for a, s in zip(atoms, inside, strict=True) if s]
        cs = list(ball) + [0.5 * (u + v) for u, v in itertools.pairwise(ball)]
        for c in cs:
            kv = _finite_kernel(spec, t, r, eps, c, side, DPS)
            v = float(kv.advantage)
            if v > best.value:
                best = WorstDetails(v, t, c, "finite", v, kv.advantage, mpmath.mpf(0))
    return best


def worst_advantage_details(
    spec: PriorSpec, r: float, eps: float, side: str, *, n_refine: int = 3, n_exact: int = 1, dps: int = DPS
) -> WorstDetails:
    """The largest violation-side value over true values and centres (see the module docstring),
    with how it was found."""
    if side not in ("upper", "lower"):
        raise ValueError("side must be 'upper' or 'lower'")
    if spec.is_finite:
        return _finite_worst(spec, r, eps, side)
    limits = {}
    if side == "upper":
        for name, tail in (("-inf", spec.lower), ("+inf", spec.upper)):
            limits[name] = tail_limit(tail, r, eps)
    if side == "lower" and inverted_kernel_diverges(spec, eps):
        p, t = max_ball_mass(spec, r)
        return WorstDetails(float(p), t, None, "divergent", float(p), p, mpmath.mpf(0), limits)
    scan = _Scan(spec, r, eps, side)
    adv, cs, _ = scan.evaluate(scan.ts)
    rowbest = np.max(adv, axis=1)
    argc = np.argmax(adv, axis=1)
    # local maxima of the per-t best, the largest first
    order = np.argsort(rowbest)[::-1]
    chosen: list[int] = []
    for i in order:
        if not np.isfinite(rowbest[i]):
            break
        if all(abs(int(i) - j) > 2 for j in chosen):
            chosen.append(int(i))
        if len(chosen) >= n_refine:
            break
    cands = []
    ts = scan.ts
    for i in chosen:
        lo_i, hi_i = max(i - 1, 0), min(i + 1, ts.size - 1)
        step = max(ts[hi_i] - ts[lo_i], 1e-300) / 2
        cands.append(_refine(scan, float(ts[i]), float(cs[i, argc[i]]), step))
    cands.sort(key=lambda v: v[0], reverse=True)
    best = WorstDetails(-math.inf, math.nan, None, "kernel", limits=limits, candidates=cands)
    for val, t, c in cands[: max(n_exact, 0)]:
        kv = kernel_advantage(spec, t, r, eps, c, side, dps)
        mv = float(kv.advantage)
        # the float scan rounds the ball's ends to floats: up to ulp(t)/2 of a width 2r
        rounding = 4 * math.ulp(abs(t)) / r * (abs(mv) + float(kv.p))
        tol = 1e-9 * max(abs(mv), abs(val)) + 1e-13 * float(kv.p) + rounding + 1e-300
        if abs(mv - val) > tol and max(abs(mv), abs(val)) > 1e-250:
            raise RuntimeError(
                f"oracle self-check: float scan {val!r} vs mpmath {mv!r} at t={t!r}, c={c!r} "
                f"({spec.name}, r={r}, eps={eps}, {side})"
            )
        if mv > best.value:
            best = WorstDetails(mv, t, c, "kernel", val, kv.advantage, kv.error, limits, cands)
    if n_exact <= 0 and cands:
        val, t, c = cands[0]
        best = WorstDetails(val, t, c, "kernel", val, None, None, limits, cands)
    if side == "upper" and n_exact > 0:
        for val, t, c in _far_probes(spec, r, eps, dps):
            cands.append((val, t, c))
            if val > best.value:
                best = WorstDetails(val, t, c, "far probe", math.nan, val, None, limits, cands)
    for name, lim in limits.items():
        if lim > best.value:
            best = WorstDetails(lim, math.inf if name == "+inf" else -math.inf, None, "limit",
                                best.scan_value, best.mp_value, best.mp_error, limits, cands)
    return best


def worst_advantage(spec: PriorSpec, r: float, eps: float, side: str) -> Worst:
    """``max_t (U - p)`` (``side="upper"``) or ``max_t (p - V)`` (``"lower"``) over a global scan of
    true values and centres, with the far-tail limits: ``(value, t, c)``."""
    d = worst_advantage_details(spec, r, eps, side)
    return Worst(d.value, d.t, d.c)


def worst_over_sides(spec: PriorSpec, r: float, eps: float, sides: str) -> WorstDetails:
    """The worse of the sides asked for (``sides="upper"`` or ``"both"``)."""
    up = worst_advantage_details(spec, r, eps, "upper")
    if sides == "upper":
        return up
    low = worst_advantage_details(spec, r, eps, "lower")
    return up if up.value >= low.value else low


def oracle_epsilon(
    spec: PriorSpec, r: float, delta: float, sides: str, *, rtol: float = 1e-7, eps0: float | None = None
) -> tuple[float, float]:
    """The oracle's own crossing: a bracket ``(lo, hi)`` with no violation found at ``lo`` and
    one found at ``hi``, ``hi / lo - 1 <= rtol`` (Illinois steps on log-epsilon, after
    bracketing by factors of 4 from ``eps0``, default the flat prior's far-tail limit
    ``-ln(1 - delta)/r``).  ``(0, eps)``: a violation down to ``1e-300``; ``(eps, inf)``: none
    up to ``1e6 / r``.  Used for reports (each step is a full :func:`worst_over_sides`)."""

    def g(x):
        return worst_over_sides(spec, r, math.exp(x), sides).value - delta

    x = math.log(eps0 if eps0 else -math.log1p(-delta) / r)
    step = math.log(4.0)
    gx = g(x)
    if gx <= 0:
        lo, glo = x, gx
        while True:
            hi = lo + step
            ghi = g(hi)
            if ghi > 0:
                break
            lo, glo = hi, ghi
            if math.exp(lo) * r > 1e6:
                return math.exp(lo), math.inf
    else:
        hi, ghi = x, gx
        while True:
            lo = hi - step
            glo = g(lo)
            if glo <= 0:
                break
            hi, ghi = lo, glo
            if lo < math.log(1e-300):
                return 0.0, math.exp(hi)
    side, count = 0, 0
    while hi - lo > rtol:
        count += 1
        xm = (lo * ghi - hi * glo) / (ghi - glo) if ghi != glo else 0.5 * (lo + hi)
        if not lo < xm < hi or count % 4 == 0:
            xm = 0.5 * (lo + hi)
        gm = g(xm)
        if gm > 0:
            hi, ghi = xm, gm
            if side == -1:
                glo /= 2
            side = -1
        else:
            lo, glo = xm, gm
            if side == 1:
                ghi /= 2
            side = 1
    return math.exp(lo), math.exp(hi)
