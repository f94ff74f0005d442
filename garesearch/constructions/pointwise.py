r"""A sharper sound bound than Eq. (main): compare every wrong value with :math:`X'` pointwise.

Eq. (main) compares :math:`X'` with one comparison set :math:`\hat X'` through the largest
distance between the two sets.  Comparing each wrong value ``x`` with every correct value
``x'`` at its own distance loses less.  For an :math:`\epsilon`-DP mechanism w.r.t.
:math:`|x - x'|` and every output ``y``,

.. math::

    \int_{X'} f(y|x')\,dF(x') \le f(y|x)\, L(x), \qquad
    L(x) = \int_{X'} e^{\epsilon |x - x'|}\, dF(x'),

so :math:`\Pr_{post}[X \setminus X'] / \Pr_{post}[X'] \ge J(\epsilon) = \int_{X\setminus X'}
dF(x) / L(x)` and

.. math:: \Pr_{post}[X'] \le \frac{1}{1 + J(\epsilon)}.

Every comparison set of Eq. (main) is a special case (:math:`L(x) \le p\,e^{\epsilon D}` on
:math:`\hat X'`, and dropping the rest of the space), so the epsilon found here is never
smaller than that of the sound construction of :mod:`garesearch.attribute`.  For
:math:`X' = [l, h]` and ``x > h``, :math:`L(x) = e^{\epsilon x} \int_{X'} e^{-\epsilon x'} dF`,
so :math:`J` is a sum of two ratios of tilted masses
(:meth:`garesearch.priors.Prior.log_tilted_tail`, :meth:`~garesearch.priors.Prior.log_tilted_mass`):

.. math::

    J(\epsilon) = \frac{e^{\mathrm{RT}_{-\epsilon}(h^+)}}{\int_{X'} e^{-\epsilon (x - h)} dF}
                + \frac{e^{\mathrm{LT}_{\epsilon}(l^-)}}{\int_{X'} e^{\epsilon (x - l)} dF},

each anchored at the end of :math:`X'` it is measured from, so that no weight overflows.
The lower side uses :math:`K(x) = \int_{X'} e^{-\epsilon|x-x'|} dF(x')`:
:math:`\Pr_{post}[X'] \ge 1 / (1 + I(\epsilon))` with :math:`I(\epsilon) = \int_{X\setminus
X'} dF / K`, the same ratios with the signs of the tilts flipped (``inf`` where a growing tilt
diverges over a heavy tail).  :math:`J` decreases and :math:`I` increases with epsilon.

The worst true value
--------------------
With ``t=None`` the largest epsilon meeting the bound at every true value is the root of
:math:`\max_t F_t(\epsilon)` (:math:`F_t = \ln\frac{1-p_t-\delta}{p_t+\delta} - \ln J` for the
upper side, :math:`\ln I - \ln\frac{1-p_t+\delta}{p_t-\delta}` for the lower; both increase
with epsilon): one tilted-tail evaluation per epsilon covers every candidate of
:meth:`~garesearch.priors.Prior.t_candidates` at once (every atom of a finite prior; far
tails down to mass 1e-30, support ends and breakpoints for a density), then the worst true
value is refined between its grid neighbours.

Beyond the grid, where the density behaves locally like :math:`e^{-\lambda u}` (``u`` toward
the end), the ball's mass :math:`p_t \to 0` and both ratios tend to the same integrals over
an exponential density:

.. math::

    J_\infty(\epsilon) = \frac{1}{e^{2r(\epsilon + \lambda)} - 1}
                       + \frac{1}{e^{2r(\epsilon - \lambda)} - 1} \quad (\epsilon > \lambda),

(:math:`J \to \infty` for :math:`\epsilon \le \lambda`: the tilted mass of the bulk dominates
the left ratio), so the posterior bound tends to :math:`1/(1 + J_\infty)`; for a tail heavier
than every exponential (:math:`\lambda = 0`) that is :math:`\tanh(\epsilon r)`, and the bound
never allows more than :math:`\epsilon = \mathrm{artanh}(\delta)/r` (the optimum allows
:math:`-\ln(1 - \delta)/r`, see :mod:`garesearch.optimal`).  :math:`1/(1+J_\infty)` decreases
with :math:`\lambda` (:math:`1/(e^x - 1)` is convex), so the conservative estimate of
:math:`\lambda` from :meth:`~garesearch.priors.Continuous.tail_class` keeps it sound.  The
lower side has no far-tail constraint (:math:`p_t \to 0 < \delta`).

For ``r = 0`` and an atom at ``t`` the upper bound is attained by the Laplace mechanism at
the output ``y = t``, so it cannot be improved for all epsilon-DP mechanisms.  This bound is
not in the paper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._plain import PlainFields
from .._roots import narrow_bracket_to_ulps
from .._univariate import check_common, laplace_scale
from ..enclosures.tilted import rounding_pad
from ..errors import InfeasibleError, ParameterError
from ..optimal.attribute import epsilon_optimal, tie_break
from ..priors import Categorical, Prior

__all__ = ["PointwiseResult", "epsilon_pointwise", "log_tilted_interval", "pointwise_ratios"]

_REFINE = 3  # grid true values refined between their neighbours (densities)


def _log_expm1(x):
    r""":math:`\ln(e^x - 1)` for ``x > 0`` (no overflow, no cancellation)."""
    return x + math.log(-math.expm1(-x))


def log_tilted_interval(prior: Prior, k: float, lo: float, hi: float, c: float) -> float:
    r""":math:`\log \int_{lo}^{hi} e^{k(x - c)} dF(x)` (``-inf`` for no mass): the tilted mass
    of :meth:`~garesearch.priors.Prior.log_tilted_mass` on the support's part of the interval
    (the integrals of the pointwise bound, beyond the paper).

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> round(math.exp(log_tilted_interval(Categorical({0: 0.5, 1: 0.5}), 1.0, 0, 1, 0)), 6)
    1.859141
    """
    if hi < lo:
        return -math.inf
    if isinstance(prior, Categorical) and prior.metric != "absolute":
        raise ParameterError("pointwise bound: a discrete-metric prior needs no integral")
    low, high = prior.support
    lo, hi = max(lo, low), min(hi, high)
    if hi < lo or (hi == lo and not isinstance(prior, Categorical)):
        return -math.inf
    return float(prior.log_tilted_mass(k, lo, hi, c))


def _log_ratio(prior: Prior, eps: float, lo, hi, side: str, strict: bool, bounds: bool = False):
    r""":math:`\ln J(\epsilon)` (``side="upper"``) or :math:`\ln I(\epsilon)` (``"lower"``) for the
    balls ``[lo, hi]`` (arrays; ``lo``, ``hi`` the ends of :math:`X'` in the support): an
    estimate, or with ``bounds`` its certified enclosure ``(lo, hi)`` from the prior's tilted
    masses (:meth:`~garesearch.priors.Prior.tilted_tail_bounds`)."""
    k = eps if side == "upper" else -eps
    above = np.nextafter(hi, np.inf) if strict else hi
    below = np.nextafter(lo, -np.inf) if strict else lo
    with np.errstate(all="ignore"):
        if not bounds:
            right = prior._estimate_tail(-k, above, "right") - prior._estimate_mass(-k, lo, hi, hi)
            left = prior._estimate_tail(k, below, "left") - prior._estimate_mass(k, lo, hi, lo)
            return np.logaddexp(right, left)
        rt = prior.tilted_tail_bounds(-k, above, "right")
        lt = prior.tilted_tail_bounds(k, below, "left")
        ah = prior.tilted_mass_bounds(-k, lo, hi, hi)
        al = prior.tilted_mass_bounds(k, lo, hi, lo)
        # the tails are anchored at the points just beyond the ball: move them to its ends
        sr, sl = -k * (above - hi), k * (below - lo)
        pad = rounding_pad(3, sr, sl)
        j_lo = np.logaddexp(rt[0] + sr - ah[1], lt[0] + sl - al[1]) - pad
        j_hi = np.logaddexp(rt[1] + sr - ah[0], lt[1] + sl - al[0]) + pad
        j_lo = np.where(np.isnan(j_lo), -np.inf, j_lo - rounding_pad(4, j_lo))
        j_hi = np.where(np.isnan(j_hi), np.inf, j_hi + rounding_pad(4, j_hi))
    return j_lo, j_hi


def _excess_ratio(prior: Prior, eps: float, lo, hi, side: str, strict: bool, p_lo, p_hi):
    r"""Enclosure of :math:`\ln(pJ/(1-p))` (``side="upper"``; :math:`\ln(pI/(1-p))` for
    ``"lower"``) from the tilted masses' excesses, accurate however small epsilon is: with
    :math:`Q^{out}_s = \int_{s} (e^{\mp\epsilon d(u, X')} - 1) dF` over each side ``s`` of
    :math:`X'`, :math:`F_s` its mass and :math:`Q^{in}_s` the ball's excess toward that side,
    :math:`pJ/(1-p) - 1 = \sum_s (p Q^{out}_s - F_s Q^{in}_s) / (A_s (1-p))`, a sum of terms of
    one sign (:math:`A_s = p + Q^{in}_s`)."""
    from ..enclosures.tilted import _shift_excess

    k = eps if side == "upper" else -eps
    above = np.nextafter(hi, np.inf) if strict else hi
    below = np.nextafter(lo, -np.inf) if strict else lo
    with np.errstate(all="ignore"):
        qr = _shift_excess(-k * (above - hi), *prior.tilted_tail_excess(-k, above, "right"))
        ql = _shift_excess(k * (below - lo), *prior.tilted_tail_excess(k, below, "left"))
        in_r = prior.tilted_interval_excess(-k, lo, hi, True)
        in_l = prior.tilted_interval_excess(k, lo, hi, False)
        q_lo = qr[2] + ql[2]
        q_hi = qr[3] + ql[3]
        e_lo = 0.0
        e_hi = 0.0
        for out, f_lo, f_hi, qin in ((qr, qr[2], qr[3], in_r), (ql, ql[2], ql[3], in_l)):
            n_lo = np.minimum(p_lo * out[0], p_hi * out[0]) - np.maximum(f_lo * qin[1], f_hi * qin[1])
            n_hi = np.maximum(p_lo * out[1], p_hi * out[1]) - np.minimum(f_lo * qin[0], f_hi * qin[0])
            d_lo = (p_lo + qin[0]) * q_lo
            d_hi = (p_hi + qin[1]) * q_hi
            e_lo = e_lo + np.minimum(n_lo / d_lo, n_lo / d_hi)
            e_hi = e_hi + np.maximum(n_hi / d_lo, n_hi / d_hi)
        x_lo = np.log1p(e_lo)
        x_hi = np.log1p(e_hi)
        x_lo = np.where(np.isnan(x_lo), -np.inf, x_lo - 32 * 2.0**-53 * np.abs(x_lo))
        x_hi = np.where(np.isnan(x_hi), np.inf, x_hi + 32 * 2.0**-53 * np.abs(x_hi))
    return x_lo, x_hi


def _f_bounds(prior, eps, side, lo, hi, p_lo, p_hi, delta, strict, small):
    r"""Enclosure ``(lo, hi)`` of :math:`F_t` (module docstring) for balls ``[lo, hi]`` with
    masses in ``[p_lo, p_hi]``: from the log ratio, and for small ``delta`` also from the
    excesses (:func:`_excess_ratio`), the two intersected."""
    d = delta
    j_lo, j_hi = _log_ratio(prior, eps, lo, hi, side, strict, bounds=True)
    with np.errstate(all="ignore"):
        lp_lo, lp_hi = np.log(p_lo), np.log(p_hi)
        lq_lo, lq_hi = np.log1p(-p_hi), np.log1p(-p_lo)
        if side == "upper":
            # F = log((1 - p - d) / (p + d)) - log J: decreasing in p
            f_hi = np.log1p(-(p_lo + d)) - np.log(p_lo + d) - j_lo
            f_lo = np.log1p(-(p_hi + d)) - np.log(p_hi + d) - j_hi
            tau_lo = np.log1p(d / p_hi) - np.log1p(-d / (1 - p_hi))
            tau_hi = np.log1p(d / p_lo) - np.log1p(-d / (1 - p_lo))
        else:
            # F = log I - log((1 - p + d) / (p - d)): increasing in p
            f_hi = j_hi - np.log1p(-(p_hi - d)) + np.log(p_hi - d)
            f_lo = j_lo - np.log1p(-(p_lo - d)) + np.log(p_lo - d)
            tau_lo = -np.log1p(-d / p_hi) + np.log1p(d / (1 - p_hi))
            tau_hi = -np.log1p(-d / p_lo) + np.log1p(d / (1 - p_lo))
        f_hi = f_hi + rounding_pad(6, f_hi, lp_lo, lp_hi, lq_lo, lq_hi)
        f_lo = f_lo - rounding_pad(6, f_lo, lp_lo, lp_hi, lq_lo, lq_hi)
        if small:
            x_lo, x_hi = _excess_ratio(prior, eps, lo, hi, side, strict, p_lo, p_hi)
            pad = 8 * 2.0**-53
            if side == "upper":  # F = -log(pJ / (1 - p)) - tau
                g_hi, g_lo = -x_lo - tau_lo * (1 - pad), -x_hi - tau_hi * (1 + pad)
            else:  # F = log(pI / (1 - p)) - tau
                g_hi, g_lo = x_hi - tau_lo * (1 - pad), x_lo - tau_hi * (1 + pad)
            f_hi = np.minimum(f_hi, np.where(np.isnan(g_hi), np.inf, g_hi))
            f_lo = np.maximum(f_lo, np.where(np.isnan(g_lo), -np.inf, g_lo))
    return np.where(np.isnan(f_lo), -np.inf, f_lo), np.where(np.isnan(f_hi), np.inf, f_hi)


def pointwise_ratios(prior: Prior, t: float, r: float, epsilon: float) -> tuple[float, float]:
    r"""The pair :math:`(J(\epsilon), I(\epsilon))` of the module docstring at true value ``t``
    (beyond the paper: the pointwise version of the ratio :math:`q/p` of Sec. 3.2).

    :math:`\Pr_{post}[X'] \le 1/(1+J)` and :math:`\Pr_{post}[X'] \ge 1/(1+I)` for every
    epsilon-DP mechanism and every output.

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> J, I = pointwise_ratios(Categorical({0: 0.5, 1: 0.5}), t=0, r=0, epsilon=1.0)
    >>> round(J, 6), round(I, 6)  # e^{-1} and e^{+1}
    (0.367879, 2.718282)
    """
    lo, hi = prior.correct_extent(t, r)
    strict = isinstance(prior, Categorical)
    lo, hi = np.array([float(lo)]), np.array([float(hi)])
    e = float(epsilon)
    with np.errstate(over="ignore"):
        return (float(np.exp(_log_ratio(prior, e, lo, hi, "upper", strict))[0]),
                float(np.exp(_log_ratio(prior, e, lo, hi, "lower", strict))[0]))


@dataclass(frozen=True)
class PointwiseResult(PlainFields):
    """What :func:`epsilon_pointwise` found (beyond the paper; fields as in
    :class:`~garesearch.attribute.AttributeResult`, Sec. 4.1).

    With ``t=None``, ``epsilon_upper`` and ``epsilon_lower`` are each side's worst case over
    the true values (possibly at different true values); ``t`` is where the binding side's
    worst case lies (``inf`` / ``-inf`` with ``far_tail``: the limit at an unbounded end).
    """

    epsilon: float
    t: Any
    r: float
    delta: float
    p: float
    epsilon_upper: float
    epsilon_lower: float
    binding: str
    prior: Prior = field(repr=False)
    far_tail: bool = False
    far_rate: float = math.nan

    laplace_scale = laplace_scale

    def posterior_bound(self) -> float:
        """:math:`1 / (1 + J(\\epsilon))` at the returned epsilon (at most ``p + delta``; the
        far-tail limit :math:`1/(1 + J_\\infty)` when ``far_tail``)."""
        if math.isinf(self.epsilon):
            return 1.0
        if self.far_tail:
            return 1.0 / (1.0 + math.exp(_limit_log_j(self.far_rate, self.r, self.epsilon)))
        return 1.0 / (1.0 + pointwise_ratios(self.prior, self.t, self.r, self.epsilon)[0])


def _limit_log_j(lam: float, r: float, eps: float) -> float:
    r""":math:`\ln J_\infty(\epsilon)` of a tail whose hazard rate is at least ``lam`` (module
    docstring), rounded down (its exponentials and logs cost a few units in the last place)."""
    if not eps > lam:
        return math.inf
    a, b = 2 * r * (eps + lam), 2 * r * (eps - lam)
    val = float(np.logaddexp(-_log_expm1(a), -_log_expm1(b)))
    return val - 16 * 2.0**-53 * (1 + abs(val) + a)


class _Scan:
    """The true values scanned, their balls, and the functions ``F_t`` of each side."""

    def __init__(self, prior: Prior, r: float, delta: float, ts: np.ndarray, limit: bool):
        self.prior, self.r, self.delta = prior, r, delta
        self.finite = isinstance(prior, Categorical)
        self.low, self.high = prior.support
        self.ends = [e for e in (self.low, self.high) if limit and math.isinf(e)]
        self.ts = np.asarray(ts, dtype=float)
        self.lo, self.hi, self.p = self.balls(self.ts)
        self.p_lo, self.p_hi = self.mass_bounds(self.lo, self.hi, self.p)
        self.small = delta < 1e-4
        # the far tails: each unbounded end's declared tail with its smallest hazard rate
        # beyond the scan's outermost ball (the same floor as the optimum's far-tail limit)
        self.rates = {}
        for end in self.ends:
            side = "left" if end < 0 else "right"
            t_end = float(self.ts[0] if side == "left" else self.ts[-1])
            x = t_end + (r if side == "left" else -r)
            self.rates[end] = float(np.minimum(prior.hazard(x, side), prior.tail(side).rate))

    def mass_bounds(self, lo, hi, p):
        """Enclosure of the balls' masses (0 where a ball is empty)."""
        ok = ~np.isnan(lo)
        if self.finite:  # sums of the atoms' probabilities: a relative rounding error
            n = float(self.prior.points.size)
            return p * (1 - 4 * n * 2.0**-53), np.minimum(p * (1 + 4 * n * 2.0**-53), 1.0)
        with np.errstate(all="ignore"):
            m_lo, m_hi = self.prior.mass_bounds(np.where(ok, lo, 0.0), np.where(ok, hi, 0.0))
        return np.where(ok, m_lo, 0.0), np.where(ok, m_hi, 0.0)

    def balls(self, ts):
        """Ends of :math:`X'` in the support and its mass; ``nan`` ends where it is empty."""
        if self.finite:
            x = self.prior.points
            cum = np.concatenate([[0.0], np.cumsum(self.prior.probs)])
            i = np.clip(np.searchsorted(x, ts - self.r, side="left"), 0, x.size - 1)
            j = np.clip(np.searchsorted(x, ts + self.r, side="right") - 1, 0, x.size - 1)
            # |x - t| <= r decided as written (ts +- r rounds)
            i = np.where(np.abs(x[i] - ts) <= self.r, i, i + 1)
            j = np.where(np.abs(x[j] - ts) <= self.r, j, j - 1)
            ok = j >= i
            i, j = np.where(ok, i, 0), np.where(ok, j, 0)
            p = np.clip(cum[j + 1] - cum[i], 0.0, 1.0)
            return np.where(ok, x[i], np.nan), np.where(ok, x[j], np.nan), np.where(ok, p, 0.0)
        lo = np.maximum(ts - self.r, self.low)
        hi = np.minimum(ts + self.r, self.high)
        ok = hi > lo
        p = np.where(ok, np.asarray(self.prior.mass(np.where(ok, lo, 0.0), np.where(ok, hi, 0.0)), float), 0.0)
        return np.where(ok, lo, np.nan), np.where(ok, hi, np.nan), p

    def active(self, side, p=None, lo=None):
        """Where the side can bind: a non-empty ball with ``p + delta < 1`` (upper) or
        ``delta < p < 1`` (lower)."""
        lo, p = (self.lo, self.p) if p is None else (lo, p)
        return ~np.isnan(lo) & ((p + self.delta < 1) if side == "upper" else (p > self.delta) & (p < 1))

    def F(self, eps, side, ts=None):
        """``F_t(eps)`` (module docstring) at the scanned true values (or ``ts``): ``> 0``
        where the side's bound is broken; ``-inf`` where the side cannot bind (or the ball is
        empty)."""
        if ts is None:
            lo, hi, p, p_lo, p_hi = self.lo, self.hi, self.p, self.p_lo, self.p_hi
        else:
            lo, hi, p = self.balls(np.atleast_1d(ts))
            p_lo, p_hi = self.mass_bounds(lo, hi, p)
        ok = self.active(side, p, lo)
        out = np.full(lo.shape, -np.inf)
        if not np.any(ok):
            return out
        # the safe end of F's enclosure: nothing unknown passes as safe
        _, f_hi = _f_bounds(self.prior, eps, side, lo[ok], hi[ok], p_lo[ok], p_hi[ok], self.delta,
                            self.finite, self.small)
        out[ok] = f_hi
        return out

    def limit(self, eps, side):
        """``F`` of the far-tail limit: ``(value, end)``."""
        best = (-math.inf, None)
        if side != "upper":
            return best
        for end in self.ends:
            val = math.log1p(-self.delta) - math.log(self.delta) - _limit_log_j(self.rates[end], self.r, eps)
            if val > best[0]:
                best = (val, end)
        return best

    def G(self, eps, side, extra=()):
        """Largest ``F`` over the grid, the extra true values and the limits."""
        val = float(np.max(self.F(eps, side)))
        if len(extra):
            val = max(val, float(np.max(self.F(eps, side, np.asarray(extra)))))
        return max(val, self.limit(eps, side)[0])


def _largest_root(g, x0, floor):
    """Largest ``x`` (log-epsilon) with ``g(x) <= 0`` for a non-decreasing ``g``, as the sound
    end of a bracket narrowed to 1e-13 relative (``-inf``: ``g > 0`` down to ``floor``).

    ``g`` may be infinite; the bracket steps by ``ln 4`` (by 10 where ``g`` is infinite)."""
    if g(x0) <= 0:
        lo = x0
        while True:
            hi = lo + math.log(4.0)
            if hi > 700:  # epsilon beyond 1e304: return that (sound) bound, or inf where
                return math.inf if g(lo) == -math.inf else lo  # nothing binds at all
            if g(hi) > 0:
                break
            lo = hi
    else:
        hi = x0
        while True:
            step = 10.0 if math.isinf(g(hi)) else math.log(4.0)
            lo = max(hi - step, floor)
            if g(lo) <= 0:
                break
            if lo <= floor:
                return -math.inf
            hi = lo
    return narrow_bracket_to_ulps(g, lo, hi)[0]


class _Memo:
    """``g(x)`` remembered per ``x`` (the bracket and Brent's method revisit points)."""

    def __init__(self, fun):
        self.fun, self.seen = fun, {}

    def __call__(self, x):
        if x not in self.seen:
            self.seen[x] = self.fun(x)
        return self.seen[x]


def _refine(sc: _Scan, side, x, floor):
    """Refine the worst grid true values of a density between their neighbours: returns the
    (lower or equal) log-epsilon and the refined true values it must also meet."""
    from scipy.optimize import minimize_scalar

    ts = sc.ts
    extra: list[float] = []
    for _ in range(8):
        e = math.exp(x)
        F = sc.F(e, side)
        order = [int(i) for i in np.argsort(F)[::-1] if F[i] > -np.inf]
        picked: list[int] = []
        for i in order:
            if len(picked) == _REFINE:
                break
            if all(abs(i - j) > 1 for j in picked):
                picked.append(i)
        best = (-math.inf, None)
        for i in picked:
            a, b = float(ts[max(i - 1, 0)]), float(ts[min(i + 1, ts.size - 1)])
            if not b > a:
                continue

            def neg(tt, e=e):
                return -float(sc.F(e, side, np.array([tt]))[0])

            opt = minimize_scalar(neg, bounds=(a, b), method="bounded", options={"xatol": 1e-8 * (b - a)})
            # every refined true value is kept (mirror images of a symmetric prior are then
            # refined alike, and the tie rule, not the refinement, decides between them)
            if float(opt.x) not in extra:
                extra.append(float(opt.x))
            if -opt.fun > best[0]:
                best = (-float(opt.fun), float(opt.x))
        if best[1] is None or not best[0] > 0:
            break
        t_star = best[1]
        g = _Memo(lambda y, t_star=t_star: float(sc.F(math.exp(y), side, np.array([t_star]))[0]))
        # the violation is small: bracket just below x
        d = 1e-9 * max(1.0, abs(x))
        lo = x - d
        while g(lo) > 0 and lo > floor:
            d *= 8
            lo = x - d
        x_new = min(x, _largest_root(g, lo, floor))
        settled = x - x_new <= 1e-12 * max(1.0, abs(x))
        x = x_new
        if settled or not math.isfinite(x):
            break
    return x, extra


def _solve_side(sc: _Scan, side, x0, floor, refine):
    """The side's largest epsilon over the scanned true values (and the far-tail limit):
    ``(epsilon, t, p)``; ``(inf, None, nan)`` where the side never binds."""
    if not np.any(sc.active(side)) and sc.limit(math.exp(x0), side)[0] == -math.inf:
        return math.inf, None, math.nan
    g = _Memo(lambda x: sc.G(math.exp(x), side))
    x = _largest_root(g, x0, floor)
    extra: list[float] = []
    if refine and math.isfinite(x):
        x, extra = _refine(sc, side, x, floor)
    if not math.isfinite(x):
        e = 0.0
        probe = math.exp(floor)
    else:
        e = probe = math.exp(x)
    # the binding true value at e: the largest F (over the grid, refined values, limits)
    ts = np.concatenate([sc.ts, np.asarray(extra, dtype=float)])
    F = sc.F(probe, side, ts)
    i = tie_break(F, ts, sc.delta)  # mirror images of a symmetric prior: the larger t
    lim, end = sc.limit(probe, side)
    if lim >= F[i]:
        return e, end, 0.0
    t = float(ts[i])
    return e, t, float(sc.balls(np.array([t]))[2][0])


def _resolvable(prior: Prior, r: float, ts):
    """The true values of an unbounded tail at which float64 still resolves the ball (a
    spacing of at most 1e-8 r); beyond them the far-tail limit stands in."""
    if isinstance(prior, Categorical):
        return ts
    low, high = prior.support
    q_lo, q_hi = (float(v) for v in prior.quantile(np.array([1e-3, 1 - 1e-3])))
    coarse = np.spacing(np.abs(ts)) > 1e-8 * r
    far = ((ts > q_hi) & math.isinf(high)) | ((ts < q_lo) & math.isinf(low))
    return ts[~(coarse & far)]


def _spread(prior: Prior, r: float) -> tuple[float, float]:
    """Smallest and largest distances that matter (to start and stop the searches)."""
    if isinstance(prior, Categorical):
        x = prior.points
        gaps = np.diff(x)
        small = float(np.min(gaps)) if gaps.size else 1.0
        big = float(x[-1] - x[0]) if x.size > 1 else 1.0
    else:
        q = np.asarray(prior.quantile(np.array([0.25, 0.75])), dtype=float)
        big = float(q[1] - q[0])
        low, high = prior.support
        if not big > 0:
            big = high - low
        small = r
    small = max(small, r) if r > 0 else small
    return small, max(big, small)


def epsilon_pointwise(
    prior: Prior, *, r: float, delta: float, t: Any = None, sides: str = "both"
) -> PointwiseResult:
    r"""Epsilon from the pointwise bound (module docstring): sound for every epsilon-DP
    mechanism and never smaller than Eq. (main)'s best comparison set (Sec. 3.2, 4.1; the
    bound is beyond the paper).

    Parameters
    ----------
    prior : Prior
        A numeric prior (:class:`Normal`, :class:`Uniform`, :class:`PiecewiseUniform`,
        numeric :class:`Categorical`, :class:`Continuous`).  Discrete-metric priors have all
        distances equal to 1, where this bound coincides with Sec. 3.2's
        :math:`\min(\epsilon_{lb}, \epsilon_{ub})`.
    r : float
        Precision of a correct guess, ``r >= 0`` (``r > 0`` for a prior with a density).
    delta, t, sides
        As in :func:`garesearch.epsilon_for_attribute` (``sides`` "both" or "upper").

    Returns
    -------
    PointwiseResult

    Raises
    ------
    ParameterError, InfeasibleError

    Notes
    -----
    Cost: one root search in epsilon, each step one vectorised pass of tilted tails over
    every candidate true value (a few hundred for a density, every atom of a finite prior),
    then a local refinement of the worst true value of a density: about 0.1 s for a Normal
    prior, 1-2 s for a :class:`Continuous` prior, about 1 s for 10^4 atoms.

    Examples
    --------
    >>> from garesearch.priors import Normal
    >>> res = epsilon_pointwise(Normal(2000, 235.7), r=100, delta=0.1)
    >>> round(res.epsilon, 6), res.binding
    (0.001701, 'upper')
    """
    check_common(prior, r, delta, sides)
    r, delta = float(r), float(delta)
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        # every distance is 1: Sec. 3.2's bounds, attained, are the pointwise bound too
        res = epsilon_optimal(prior, r=r, delta=delta, t=t, sides=sides)
        return PointwiseResult(
            epsilon=res.epsilon, t=res.t, r=r, delta=delta, p=res.p, epsilon_upper=res.epsilon_upper,
            epsilon_lower=res.epsilon_lower, binding=res.binding, prior=prior,
        )
    finite = isinstance(prior, Categorical)
    if not finite and r == 0:
        raise ParameterError(
            "r must be > 0 for a prior with a density: a ball of radius 0 holds no prior mass, "
            "so no guess is ever correct"
        )
    low, high = prior.support
    if r >= high - low:
        raise ParameterError(f"r must be smaller than the prior's diameter R = {high - low}; got r={r}")
    if t is not None:
        if isinstance(t, bool) or not isinstance(t, (int, float, np.integer, np.floating)) or not math.isfinite(t):
            raise ParameterError(f"t must be a finite number; got {t!r}")
        if not low <= t <= high:
            raise ParameterError(f"t must lie in the prior's support [{low}, {high}]; got {t!r}")
        if finite and not np.any(prior.points == float(t)):
            raise ParameterError(f"t={t!r} is not a value of this prior; values: {prior.values}")
        sc = _Scan(prior, r, delta, np.array([float(t)]), limit=False)
        if np.isnan(sc.lo[0]):
            raise InfeasibleError(f"the ball of radius r={r} around t={t} holds no prior mass")
    else:
        sc = _Scan(prior, r, delta, _resolvable(prior, r, prior.t_candidates(r)), limit=True)
    small, big = _spread(prior, r)
    x0 = math.log(math.atanh(delta) / small)
    floor = max(-745.0, math.log(min(1e-30, 1e-6 * delta) / big))
    refine = t is None and not finite
    found = {}
    for side in ("upper", "lower"):
        if side == "upper" or sides == "both":
            found[side] = _solve_side(sc, side, x0, floor, refine)
        else:
            found[side] = (math.inf, None, math.nan)
    e_up, e_low = found["upper"][0], found["lower"][0]
    binding = "upper" if e_up <= e_low else "lower"
    eps, tw, pw = found[binding]
    if math.isinf(eps):  # no true value constrains either side: X' holds all the mass
        tw = float(t) if t is not None else float(sc.ts[int(np.argmax(sc.p))])
        pw = float(sc.balls(np.array([tw]))[2][0])
    if not eps > 0:
        raise InfeasibleError(
            f"no epsilon > 0 keeps the advantage within delta={delta} at t={tw!r}: the "
            f"{binding} side cannot be met"
            + ("; the prior's tails are too heavy for the lower side. Use sides='upper'." if binding == "lower" else ".")
        )
    far = tw is not None and math.isinf(tw)
    return PointwiseResult(
        epsilon=eps, t=tw, r=r, delta=delta, p=pw, epsilon_upper=e_up, epsilon_lower=e_low,
        binding=binding, prior=prior, far_tail=far, far_rate=sc.rates.get(tw, math.nan) if far else math.nan,
    )
