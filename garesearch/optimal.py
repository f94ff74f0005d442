r"""The optimal epsilon: the largest epsilon at which *no* epsilon-DP mechanism lets the
attacker's posterior move by more than delta (Def. 7, Sec. 4.1; the optimum is beyond the paper).

The worst case over mechanisms
------------------------------
Fix one output ``y`` of an :math:`\epsilon`-DP mechanism (w.r.t. the attribute's distance
``d``).  Its likelihood :math:`L(x) = f(y \mid x)` satisfies
:math:`L(x) \le e^{\epsilon d(x, x')} L(x')`, so :math:`\log L` is
:math:`\epsilon`-Lipschitz.  Conversely every such ``L`` is, up to scale, the likelihood of an
output of an :math:`\epsilon`-DP mechanism: emit ``y`` with probability
:math:`L(x) / (2 \sup L)` and ``y'`` otherwise; :math:`(1 - cL(x)) / (1 - cL(x')) \le
e^{\epsilon d}` holds because :math:`c L(x') (1 + e^{-\epsilon d}) \le 1` (an unbounded ``L``
is the limit of its truncations :math:`\min(L, n)`, which stay Lipschitz).  The worst
posteriors of :math:`X' = \mathcal B(t, r)` over all mechanisms and outputs are therefore

.. math::

    U = \sup_L \frac{\int_{X'} L\, dF}{\int L\, dF}, \qquad
    V = \inf_L \frac{\int_{X'} L\, dF}{\int L\, dF},

and the optimal epsilon is the largest one with :math:`U - p_t \le \delta` and
:math:`p_t - V \le \delta` for every true value ``t`` (``sides="upper"``: the first only).
Both are monotone in epsilon (the mechanisms allowed grow with it).

On the real line the extremes are kernels
-----------------------------------------
Let :math:`X' \cap \mathrm{supp} F` lie in :math:`[l, h]` with ``l``, ``h`` in the support
and fix :math:`u = L(l)`, :math:`v = L(h)`.  Outside :math:`[l, h]` the Lipschitz condition
gives :math:`L(x) \ge v e^{-\epsilon(x - h)}` (right) and :math:`\ge u e^{-\epsilon(l - x)}`
(left), inside :math:`L(x) \le \min(u e^{\epsilon(x - l)}, v e^{\epsilon(h - x)})`, and all
three are attained at once by one tent: :math:`U` is reached by the **Laplace kernel**
:math:`L_c(x) = e^{-\epsilon |x - c|}` with :math:`c \in [l, h]` (the likelihood of the Laplace
mechanism's output :math:`y = c`), and :math:`V` by the mirror argument by the **inverted
kernel** :math:`e^{+\epsilon|x - c|}`, :math:`c \in [l, h]` (not a Laplace output; it binds for
some priors).  For a finite prior the ratio is, between two consecutive atoms, a Moebius
function of :math:`e^{2\epsilon c}`, so ``c`` ranges over the atoms of :math:`X'` only.

Every weight is a *tilted tail* of the prior (:meth:`garesearch.priors.Prior.log_tilted_tail`):
with :math:`k = \pm\epsilon`,

.. math::

    \int L_c\, dF = e^{\mathrm{LT}_k(c)} + e^{\mathrm{RT}_{-k}(c)}, \qquad
    \int_{X \setminus X'} L_c\, dF = e^{-k(c - l) + \mathrm{LT}_k(l^-)}
                                  + e^{-k(h - c) + \mathrm{RT}_{-k}(h^+)},

(:math:`k = +\epsilon` for :math:`U`, :math:`-\epsilon` for :math:`V`).

Far tails
---------
For an unbounded support the worst case over ``t`` may be approached only as
:math:`t \to \pm\infty`.  Where the density near ``t`` behaves like :math:`e^{-\lambda u}`,
the kernel at :math:`c = t + \lambda r / \epsilon` gives, in the limit,
:math:`U \to 1 - e^{-r(\epsilon^2 - \lambda^2)/\epsilon}` for :math:`\epsilon > \lambda` (0
otherwise) while :math:`p_t \to 0`: for tails heavier than every exponential
(:math:`\lambda = 0`) the optimum can never exceed :math:`-\ln(1 - \delta)/r`.  The scan over
``t`` covers the tails down to masses of 1e-30 and adds this limit
(:meth:`garesearch.priors.Continuous.tail_class`); normal tails have limit 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import bound
from .errors import InfeasibleError, ParameterError
from .priors import Categorical, Continuous, Normal, Prior

__all__ = ["OptimalResult", "epsilon_optimal", "posterior_extremes", "worst_posterior_lp"]

_SIDES = ("both", "upper", "lower")
_S_GRID = np.linspace(0.0, 1.0, 17)  # kernel centres across [l, h], before refinement
_MAX_PAIRS = 4_000_000  # (t, c) pairs of a finite prior evaluated at once


# ------------------------------------------------------------------------------------------
# Kernel posteriors
# ------------------------------------------------------------------------------------------
def _kernel_posterior(k, d, width, lt_l, rt_h, log_all):
    r"""Posterior of the ball :math:`[lo, hi]` under the kernel :math:`e^{-k|x - c|}`,
    :math:`c = lo + d`, :math:`hi = lo + \text{width}`, from the tilted tails
    ``lt_l`` :math:`= \mathrm{LT}_k(lo^-)`, ``rt_h`` :math:`= \mathrm{RT}_{-k}(hi^+)` and
    ``log_all`` :math:`= \log(e^{\mathrm{LT}_k(c)} + e^{\mathrm{RT}_{-k}(c^+)})` (module
    docstring): one minus the weight outside over the total, term by term (each term at most
    1, so nothing overflows) and with offsets inside the ball (no digits lost to :math:`|c|`).
    A divergent outside weight (the inverted kernel over a heavy tail) gives 0: the truncated
    kernels drive the posterior there.
    """
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        ratio = np.exp(lt_l - log_all - k * d) + np.exp(rt_h - log_all - k * (width - d))
    post = 1.0 - np.minimum(ratio, 1.0)
    return np.where(np.isnan(post), 0.0, post)


def _posteriors(prior, eps, lo, hi, c, side):
    """Upper (Laplace kernel) or lower (inverted kernel) posterior of ``[lo, hi]`` at centres
    ``c`` (array ``(n, m)``; ``lo``, ``hi`` of shape ``(n,)``) for a prior with a density."""
    k = eps if side == "upper" else -eps
    col = (lambda v: np.asarray(v)[:, None])  # noqa: E731
    with np.errstate(invalid="ignore", over="ignore"):
        lt_l = prior.log_tilted_tail(k, lo, "left")
        rt_h = prior.log_tilted_tail(-k, hi, "right")
        log_all = np.logaddexp(prior.log_tilted_tail(k, c, "left"), prior.log_tilted_tail(-k, c, "right"))
    return _kernel_posterior(k, c - col(lo), col(hi - lo), col(lt_l), col(rt_h), log_all)


def _advantage(post, p, side, delta):
    """The side's advantage; ``-inf`` at true values where the side cannot exceed ``delta``
    whatever the mechanism (``p + delta >= 1`` above, ``p <= delta`` below; both up to a
    relative 1e-12, the rounding of ``p``), so that rounding near those limits cannot bind."""
    if delta == 0:  # the raw posteriors (posterior_extremes)
        return post - p if side == "upper" else p - post
    if side == "upper":
        return np.where(p + delta < 1 - 1e-12, post - p, -np.inf)
    return np.where(p > delta * (1 + 1e-12), p - post, -np.inf)


# ------------------------------------------------------------------------------------------
# The search problem: true values, balls, kernel centres
# ------------------------------------------------------------------------------------------
class _Finite:
    """A numeric finite prior: true values and kernel centres are atoms."""

    def __init__(self, prior: Categorical, r: float, delta: float):
        self.prior, self.r, self.delta = prior, r, delta
        x = prior._x
        self.x = x
        self.cum = np.concatenate([[0.0], np.cumsum(prior.probs)])
        self.lo_idx = np.searchsorted(x, x - r, side="left")
        self.hi_idx = np.searchsorted(x, x + r, side="right") - 1
        # |x_j - t| <= r decided exactly as written (the searchsorted bounds can differ by
        # the rounding of t - r)
        self.lo_idx = np.where(np.abs(x[self.lo_idx] - x) <= r, self.lo_idx, self.lo_idx + 1)
        self.hi_idx = np.where(np.abs(x[self.hi_idx] - x) <= r, self.hi_idx, self.hi_idx - 1)
        self.p = np.clip(self.cum[self.hi_idx + 1] - self.cum[self.lo_idx], 0.0, 1.0)

    def ball(self, t):
        x = self.x
        inside = np.flatnonzero(np.abs(x - t) <= self.r)
        if inside.size == 0:
            return None
        i0, i1 = inside[0], inside[-1]
        return float(x[i0]), float(x[i1]), float(min(max(self.cum[i1 + 1] - self.cum[i0], 0.0), 1.0))

    def _windows(self, ts):
        """Indices of the first and last atom of each ball (atoms of ``ts``, or all)."""
        if ts is None:
            return self.x, self.lo_idx, self.hi_idx, self.p
        x, r = self.x, self.r
        ts = np.atleast_1d(np.asarray(ts, dtype=float))
        lo = np.searchsorted(x, ts - r, side="left")
        hi = np.searchsorted(x, ts + r, side="right") - 1
        lo = np.clip(lo, 0, x.size - 1)
        hi = np.clip(hi, 0, x.size - 1)
        lo = np.where(np.abs(x[lo] - ts) <= r, lo, lo + 1)
        hi = np.where(np.abs(x[hi] - ts) <= r, hi, hi - 1)
        p = np.clip(self.cum[hi + 1] - self.cum[np.minimum(lo, x.size - 1)], 0.0, 1.0)
        return ts, lo, hi, np.where(hi >= lo, p, 0.0)

    def per_t(self, eps, side, ts=None):
        """The largest advantage at each true value (atoms of ``ts``, or all) over the kernel
        centres of its ball, with that centre's index: ``(ts, adv, centre_index)``.

        The tilted tails are computed once per atom (each atom is a centre for every ball
        holding it); the pairs then cost a few exponentials each.
        """
        x = self.x
        k = eps if side == "upper" else -eps
        tv, lo_i, hi_i, p = self._windows(ts)
        out_adv = np.full(lo_i.size, -np.inf)
        out_c = np.zeros(lo_i.size, dtype=int)
        ok = hi_i >= lo_i
        if not np.any(ok):
            return tv, out_adv, out_c
        prior = self.prior
        with np.errstate(invalid="ignore", over="ignore"):
            lt_c = prior.log_tilted_tail(k, x, "left")
            rt_c = prior.log_tilted_tail(-k, np.nextafter(x, np.inf), "right")
            log_all = np.logaddexp(lt_c, rt_c)
            lo_x, hi_x = x[lo_i], x[hi_i]
            lt_l = prior.log_tilted_tail(k, np.nextafter(lo_x, -np.inf), "left")
            rt_h = prior.log_tilted_tail(-k, np.nextafter(hi_x, np.inf), "right")
        sizes = np.where(ok, hi_i - lo_i + 1, 0)
        rows = np.flatnonzero(ok)
        start = 0
        while start < rows.size:
            stop = start + 1
            total = sizes[rows[start]]
            while stop < rows.size and total + sizes[rows[stop]] <= _MAX_PAIRS:
                total += sizes[rows[stop]]
                stop += 1
            block = rows[start:stop]
            width = int(np.max(sizes[block]))
            cj = lo_i[block][:, None] + np.arange(width)
            valid = cj <= hi_i[block][:, None]
            cj = np.minimum(cj, hi_i[block][:, None])
            post = _kernel_posterior(k, x[cj] - lo_x[block][:, None], (hi_x - lo_x)[block][:, None],
                                     lt_l[block][:, None], rt_h[block][:, None], log_all[cj])
            adv = np.where(valid, _advantage(post, p[block][:, None], side, self.delta), -np.inf)
            j = np.argmax(adv, axis=1)
            out_adv[block] = adv[np.arange(block.size), j]
            out_c[block] = cj[np.arange(block.size), j]
            start = stop
        return tv, out_adv, out_c

    def scan(self, eps, side, ts=None):
        """Largest advantage over the true values (atoms, or ``ts``) and the kernel centres
        (atoms of each ball): ``(value, t, c)``."""
        tv, adv, cj = self.per_t(eps, side, ts)
        if not np.any(np.isfinite(adv)):
            return -math.inf, None, None
        i = int(np.argmax(adv))
        return float(adv[i]), float(tv[i]), float(self.x[cj[i]])

    def limit(self, eps, side):
        return -math.inf, None

    def spread(self):
        gaps = np.diff(self.x)
        return float(np.min(gaps)) if gaps.size else 1.0, float(self.x[-1] - self.x[0]) if self.x.size > 1 else 1.0


class _Continuous:
    """A prior with a density: a grid of true values covering the far tails, kernel centres
    on a grid across each ball, then refinement of the best (t, c)."""

    def __init__(self, prior: Prior, r: float, delta: float):
        self.prior, self.r, self.delta = prior, r, delta
        self.low, self.high = prior.support
        self.ts = prior.t_candidates(r)

    def ball(self, t):
        lo, hi = max(t - self.r, self.low), min(t + self.r, self.high)
        if not hi > lo:
            return None
        return lo, hi, float(self.prior.mass(lo, hi))

    def _eval(self, eps, side, t, s):
        """Advantage at true values ``t`` (n,) and relative centres ``s`` (n, m)."""
        lo = np.maximum(t - self.r, self.low)
        hi = np.minimum(t + self.r, self.high)
        p = np.asarray(self.prior.mass(lo, hi), dtype=float)
        c = lo[:, None] + (hi - lo)[:, None] * s
        post = _posteriors(self.prior, eps, lo, hi, c, side)
        return _advantage(post, p[:, None], side, self.delta)

    def grid(self, eps, side, ts):
        """Advantage on the grid of true values ``ts`` and relative centres ``_S_GRID``."""
        adv = self._eval(eps, side, ts, np.broadcast_to(_S_GRID, (ts.size, _S_GRID.size)))
        return np.where(np.isnan(adv), -np.inf, adv)

    def candidates(self, adv, ts, count=2):
        """Starting points for :meth:`climb`: the best grid point of each of the ``count``
        best true values, with the grid's spacing around it."""
        order = np.argsort(np.max(adv, axis=1))[::-1][:count]
        n = ts.size
        out = []
        for i in order:
            j = int(np.argmax(adv[i]))
            dt = 0.5 * (float(ts[min(i + 1, n - 1)]) - float(ts[max(i - 1, 0)])) if n > 1 else 0.0
            out.append([float(ts[i]), float(_S_GRID[j]), dt, 1.0 / (_S_GRID.size - 1)])
        return out

    def climb(self, eps, side, cand, t_range):
        """Local maximum from ``cand = [t, s, dt, ds]`` (updated in place): safeguarded
        Newton steps on a 3 x 3 stencil (gradient and Hessian by central differences, in
        units of the grid's spacing), each step at most one spacing long and kept only if it
        improves; at a bound of ``s`` or ``t`` the search continues along it."""
        t0, s0, dt, ds = cand
        lo, hi = t_range
        T = dt if dt > 0 else 0.0  # t's unit (0: t is fixed)
        S = ds
        h = 1e-4
        off = np.array([-h, 0.0, h])

        def f(tt, ss):
            adv = self._eval(eps, side, np.atleast_1d(tt), np.atleast_2d(ss))
            return np.where(np.isnan(adv), -np.inf, adv)

        def clip(t, s):
            return min(max(t, lo), hi), min(max(s, 0.0), 1.0)

        best = float(f(np.array([t0]), np.array([[s0]]))[0, 0])
        for _ in range(40):
            # stencil inside the box (one-sided where a bound is touched)
            tc = min(max(t0, lo + h * T), hi - h * T) if T > 0 else t0
            sc = min(max(s0, h * S), 1.0 - h * S)
            F = f(tc + T * off, np.broadcast_to(sc + S * off, (3, 3)))
            if not np.all(np.isfinite(F)):
                break
            gt = (F[2, 1] - F[0, 1]) / (2 * h)
            gs = (F[1, 2] - F[1, 0]) / (2 * h)
            htt = (F[2, 1] - 2 * F[1, 1] + F[0, 1]) / h**2
            hss = (F[1, 2] - 2 * F[1, 1] + F[1, 0]) / h**2
            hts = (F[2, 2] - F[2, 0] - F[0, 2] + F[0, 0]) / (4 * h * h)
            free_t = T > 0 and not ((t0 <= lo and gt < 0) or (t0 >= hi and gt > 0))
            free_s = not ((s0 <= 0 and gs < 0) or (s0 >= 1 and gs > 0))
            step = np.zeros(2)
            idx = [i for i, free in ((0, free_t), (1, free_s)) if free]
            if not idx:
                break
            g = np.array([gt, gs])[idx]
            H = np.array([[htt, hts], [hts, hss]])[np.ix_(idx, idx)]
            newton = None
            if np.all(np.linalg.eigvalsh(H) < 0):
                newton = -np.linalg.solve(H, g)
            d = newton if newton is not None else g / max(np.max(np.abs(np.diag(H))), 1e-300)
            norm = float(np.max(np.abs(d)))
            if norm > 1.0:
                d = d / norm
            step[idx] = d
            if newton is not None and float(np.max(np.abs(step))) < 1e-8:
                break  # at the maximum: the value is exact to rounding (the peak is flat)
            moved = False
            for _ in range(12):
                t1, s1 = clip(t0 + T * step[0], s0 + S * step[1])
                v = float(f(np.array([t1]), np.array([[s1]]))[0, 0])
                if v > best:
                    best, moved = v, True
                    t0, s0 = t1, s1
                    break
                step *= 0.25
            if not moved or float(np.max(np.abs(step))) < 1e-8:
                break
        cand[:] = [t0, s0, dt, ds]
        return best

    def scan(self, eps, side, ts=None):
        """Largest advantage over the grid, refined from its best points: ``(value, t, c)``."""
        ts = self.ts if ts is None else np.atleast_1d(np.asarray(ts, dtype=float))
        t_range = (float(ts[0]), float(ts[-1]))
        best = (-math.inf, None, None)
        for cand in self.candidates(self.grid(eps, side, ts), ts):
            val = self.climb(eps, side, cand, t_range)
            if val > best[0]:
                best = (val, cand[0], self.centre(cand[0], cand[1]))
        return best

    def centre(self, t, s):
        lo, hi = max(t - self.r, self.low), min(t + self.r, self.high)
        return lo + (hi - lo) * s

    def limit(self, eps, side):
        """Largest advantage as t goes to an unbounded end (module docstring)."""
        if side != "upper":
            return -math.inf, None
        best = (-math.inf, None)
        for end, name in ((self.low, "left"), (self.high, "right")):
            if math.isfinite(end):
                continue
            if isinstance(self.prior, Normal):
                kind, lam = "light", math.inf
            elif isinstance(self.prior, Continuous):
                kind, lam = self.prior.tail_class(name)
            else:
                kind, lam = "heavy", 0.0
            if kind == "light" or not eps > lam:
                val = 0.0
            else:
                val = -math.expm1(-self.r * (eps - lam) * (eps + lam) / eps)
            if val > best[0]:
                best = (val, end)
        return best

    def spread(self):
        q = np.asarray(self.prior.quantile(np.array([0.25, 0.75])), dtype=float)
        iqr = float(q[1] - q[0])
        return (self.r if self.r > 0 else iqr), max(iqr, self.r)


# ------------------------------------------------------------------------------------------
# Public API
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OptimalResult:
    r"""What :func:`epsilon_optimal` found.

    Attributes
    ----------
    epsilon : float
        The largest epsilon at which no epsilon-DP mechanism moves the posterior of
        :math:`\mathcal B(t, r)` by more than ``delta`` (per unit of the attribute's
        distance); ``inf`` when every epsilon does (no noise needed).
    t : Any
        The worst true value (``inf`` / ``-inf``: the far-tail limit binds).
    p : float
        Prior mass of :math:`\mathcal B(t, r)` (0 for the far-tail limit).
    binding : str
        ``"upper"`` (the attacker's gain), ``"lower"`` (the loss) or ``"none"``.
    epsilon_upper, epsilon_lower : float
        The optimum of each side (``inf`` where a side never binds or was not asked for).
    centre : float
        The worst-case likelihood: the kernel :math:`e^{-\epsilon|x - c|}` (upper side; the
        Laplace mechanism's output ``y = c``) or :math:`e^{+\epsilon|x - c|}` (lower side)
        with this ``c``.
    posterior : float
        The posterior that kernel gives :math:`\mathcal B(t, r)` at ``epsilon``.
    far_tail : bool
        Whether the worst case is the limit :math:`t \to \pm\infty`.
    """

    epsilon: float
    t: Any
    r: float
    delta: float
    p: float
    binding: str
    epsilon_upper: float
    epsilon_lower: float
    centre: float | None
    posterior: float | None
    sides: str
    far_tail: bool = False
    construction: str = "optimal"
    prior: Prior = field(repr=False, default=None)

    def laplace_scale(self, sensitivity: float = 1.0) -> float:
        """Scale ``b = sensitivity / epsilon`` of Laplace noise that achieves this epsilon
        (0 when no noise is needed)."""
        if not (isinstance(sensitivity, (int, float)) and math.isfinite(sensitivity) and sensitivity > 0):
            raise ParameterError(f"sensitivity must be a finite number > 0; got {sensitivity!r}")
        return 0.0 if math.isinf(self.epsilon) else sensitivity / self.epsilon

    def posterior_bound(self) -> float:
        """The largest posterior of the ball any epsilon-DP mechanism gives at ``epsilon``
        (at most ``p + delta``; the far-tail limit when ``far_tail``)."""
        if math.isinf(self.epsilon):
            return 1.0
        if self.far_tail:
            return self.posterior if self.binding == "upper" else math.nan
        return posterior_extremes(self.prior, t=self.t, r=self.r, epsilon=self.epsilon)["upper"]

    def kernel(self, x):
        r"""The worst-case likelihood at ``epsilon``, :math:`e^{\mp\epsilon|x - c|}` (up to scale)."""
        if self.centre is None or math.isinf(self.epsilon):
            raise ParameterError("this result has no witness likelihood (no noise is needed)")
        sign = -1.0 if self.binding == "upper" else 1.0
        return np.exp(sign * self.epsilon * np.abs(np.asarray(x, dtype=float) - self.centre))


def _problem(prior, r, delta=0.5):
    if isinstance(prior, Categorical):
        return _Finite(prior, r, delta)
    return _Continuous(prior, r, delta)


def _limit(pb, eps, side, ts):
    return pb.limit(eps, side) if ts is None else (-math.inf, None)


def _bracket(g, x0, small, big):
    """A bracket ``(lo, hi)`` of log-epsilon with ``g(lo) <= 0 < g(hi)`` for a
    non-decreasing ``g``; ``(lo, None)``: ``g <= 0`` until the kernels saturate (no noise
    needed); ``(None, hi)``: ``g > 0`` down to epsilon * spread = 1e-12."""
    step = math.log(4.0)
    if g(x0) <= 0:
        lo = x0
        while True:
            hi = lo + step
            if g(hi) > 0:
                return lo, hi
            if math.exp(hi) * small > 2e3 or hi > 700:
                return hi, None
            lo = hi
    hi = x0
    while True:
        lo = hi - step
        if g(lo) <= 0:
            return lo, hi
        if lo < -700 or math.exp(lo) * big < 1e-12:
            return None, lo
        hi = lo


def _bracket_near(g, x, step=1e-6):
    """A bracket ``(lo, hi)`` of a non-decreasing ``g`` around ``x`` (``g(lo) <= 0 < g(hi)``),
    from steps growing eightfold."""
    d = step * max(1.0, abs(x))
    if g(x) > 0:
        hi, lo = x, x - d
        while g(lo) > 0:
            hi, lo, d = lo, lo - 8 * d, 8 * d
        return lo, hi
    lo, hi = x, x + d
    while g(hi) <= 0:
        lo, hi, d = hi, hi + 8 * d, 8 * d
    return lo, hi


def _secant(g, x, lo=-math.inf, hi=math.inf, rtol=1e-15, sound=True, reach=1e-6):
    """Root of a non-decreasing ``g`` near ``x``: secant steps safeguarded by the bracket
    they build (``g(lo) <= 0 < g(hi)``; bisection once both ends are known and a step leaves
    them, steps growing eightfold until then).

    Returns the largest point found with ``g <= 0`` (the sound end) once the bracket is below
    ``rtol`` relative (``sound=False``: the last iterate once a step is that small).
    """
    tol = rtol * max(1.0, abs(x))
    reach = reach * max(1.0, abs(x))
    prev = None
    for _ in range(200):
        gx = g(x)
        if gx > 0:
            hi = x
        else:
            lo = x
        if hi - lo <= tol:
            break
        secant = prev is not None and gx != prev[1] and x != prev[0]
        if secant:
            step = -gx * (x - prev[0]) / (gx - prev[1])
        else:
            step = reach if gx <= 0 else -reach
        if not sound and secant and abs(step) <= tol:
            return x + step
        xn = x + step
        if abs(step) <= tol:
            xn = x - 4 * tol if gx > 0 else x + tol
        if not lo < xn < hi:
            if math.isfinite(lo) and math.isfinite(hi):
                xn = 0.5 * (lo + hi)
            else:
                reach *= 8
                xn = x + (reach if gx <= 0 else -reach)
        prev = (x, gx)
        x = xn
    return lo if sound else x


def _solve(pb, delta, side, ts):
    """Largest epsilon with the side's worst advantage <= delta: ``(eps, t, c, value)``.

    Finite priors: exact enumeration of every (t, c) at each epsilon.  Densities: the root
    of the grid's maximum first, then secant steps on the refined maxima of the best grid
    points (warm-started across epsilons), checked
    against the whole grid at the final epsilon (a better region found there joins the
    candidates).
    """
    small, big = pb.spread()
    # a first guess: the far-tail limit of a flat prior, epsilon r = -ln(1 - delta)
    x0 = math.log(-math.log1p(-delta) / pb.r) if pb.r > 0 else math.log(1.0 / big)
    limit = (lambda e: _limit(pb, e, side, ts)[0])  # noqa: E731
    if isinstance(pb, _Finite):
        def g(x):
            return max(pb.scan(math.exp(x), side, ts)[0], limit(math.exp(x))) - delta

        lo, hi = _bracket(g, x0, small, big)
        if hi is None:
            return math.inf, None, None, None
        if lo is None:
            val, t, c = pb.scan(math.exp(hi), side, ts)
            return 0.0, t, c, val

        # every true value until the root is known to 1e-3, then only the 64 true values
        # closest to binding (checked against every value at the end)
        x = _secant(g, 0.5 * (lo + hi), lo, hi, rtol=1e-3, sound=False)
        tv, adv, _ = pb.per_t(math.exp(x), side, ts)
        order = np.argsort(adv)[::-1]
        keep = 64
        for _ in range(20):
            sub = np.sort(np.asarray(tv)[order[:keep]])

            def g_sub(x, sub=sub):
                return pb.scan(math.exp(x), side, sub)[0] - delta

            lo2, hi2 = _bracket_near(g_sub, x)
            x = _secant(g_sub, x, lo2, hi2)
            val, t, c = pb.scan(math.exp(x), side, ts)
            if val <= delta:
                return math.exp(x), t, c, val
            keep *= 4
        raise RuntimeError("the search over true values did not settle")  # pragma: no cover

    grid_ts = pb.ts if ts is None else ts
    t_range = (float(grid_ts[0]), float(grid_ts[-1]))

    def g_grid(x):
        e = math.exp(x)
        return max(float(np.max(pb.grid(e, side, grid_ts))), limit(e)) - delta

    lo, hi = _bracket(g_grid, x0, small, big)
    if hi is None:
        return math.inf, None, None, None
    if lo is None:
        e = math.exp(hi)
        adv = pb.grid(e, side, grid_ts)
        i, j = np.unravel_index(int(np.argmax(adv)), adv.shape)
        return 0.0, float(grid_ts[i]), pb.centre(float(grid_ts[i]), float(_S_GRID[j])), float(adv[i, j])
    x = _secant(g_grid, 0.5 * (lo + hi), lo, hi, rtol=1e-6, sound=False)
    cands = pb.candidates(pb.grid(math.exp(x), side, grid_ts), grid_ts)

    def local(x):
        """(value, best candidate or None for the far-tail limit) at log-epsilon x."""
        e = math.exp(x)
        vals = [pb.climb(e, side, c, t_range) for c in cands]
        k = int(np.argmax(vals))
        lim = limit(e)
        return (lim, None) if lim >= vals[k] else (vals[k], cands[k])

    for _ in range(5):
        x = _secant(lambda x: local(x)[0] - delta, x)
        adv = pb.grid(math.exp(x), side, grid_ts)
        if float(np.max(adv)) <= delta:
            break
        cands.extend(pb.candidates(adv, grid_ts, count=1))
    val, cand = local(x)
    step = 1e-15 * max(abs(x), 1.0)
    while val > delta:  # the climbs moved on since: step to the sound side again
        x -= step
        step *= 2
        val, cand = local(x)
    e = math.exp(x)
    if cand is None:
        return e, _limit(pb, e, side, ts)[1], None, val
    return e, cand[0], pb.centre(cand[0], cand[1]), val


def _check(prior, r, delta, sides):
    if not isinstance(prior, Prior):
        raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
    for name, v in (("r", r), ("delta", delta)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
            raise ParameterError(f"{name} must be a finite real number; got {v!r}")
    if not 0 < delta < 1:
        raise ParameterError(f"delta must lie in (0, 1); got {delta}")
    if r < 0:
        raise ParameterError(f"r must be >= 0; got {r}")
    if sides not in _SIDES:
        raise ParameterError(f"sides must be one of {_SIDES}; got {sides!r}")


def _discrete(prior, r, delta, t, sides):
    """The discrete metric: every distance is 1, and Sec. 3.2's bounds are attained
    (``L = e^epsilon`` on :math:`X'`, 1 elsewhere)."""
    if r >= 1:
        raise ParameterError(
            f"r must be < R = 1 under the discrete metric (r >= 1 makes every guess correct); got r={r}"
        )
    values = prior.values if t is None else [t]
    best = None
    for v in values:
        p = prior.probability(v)
        up = float(bound.eps_lb(delta=delta, p=p)) if sides != "lower" and p < 1 else math.inf
        low = float(bound.eps_ub(delta=delta, p=p)) if sides != "upper" and delta < p < 1 else math.inf
        eps = min(up, low)
        if best is None or eps < best[0]:
            best = (eps, v, p, up, low)
    eps, v, p, up, low = best
    binding = "none" if math.isinf(eps) else ("upper" if up <= low else "lower")
    post = None
    if not math.isinf(eps):
        e = math.exp(eps)
        post = p * e / (p * e + 1 - p) if binding == "upper" else p / (p + (1 - p) * e)
    return OptimalResult(
        epsilon=eps, t=v, r=r, delta=delta, p=p, binding=binding, epsilon_upper=up,
        epsilon_lower=low, centre=None, posterior=post, sides=sides, prior=prior,
    )


def posterior_extremes(prior: Prior, *, t: float, r: float, epsilon: float) -> dict:
    r"""The worst posteriors of :math:`\mathcal B(t, r)` over every epsilon-DP mechanism and
    output (Def. 7; the optimum is beyond the paper), with the kernels that attain them.

    Returns
    -------
    dict
        ``p`` (prior mass of the ball), ``upper`` (:math:`U`), ``upper_centre`` (``c`` of the
        Laplace kernel attaining it), ``lower`` (:math:`V`), ``lower_centre`` (``c`` of the
        inverted kernel).  Each posterior is one minus a ratio of kernel masses, exact to about
        1e-15 times :math:`\max(1, \epsilon \cdot \text{distance})` (absolute).

    Examples
    --------
    >>> from garesearch.priors import Normal
    >>> ext = posterior_extremes(Normal(0, 1), t=0.0, r=0.5, epsilon=1.0)
    >>> round(ext["upper"], 4), round(ext["upper_centre"], 4), round(ext["p"], 4)
    (0.5789, 0.0, 0.3829)
    """
    _check(prior, r, 0.5, "both")
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        p = prior.probability(t)
        e = math.exp(float(epsilon))
        return dict(p=p, upper=p * e / (p * e + 1 - p), upper_centre=None,
                    lower=p / (p + (1 - p) * e), lower_centre=None)
    if not (isinstance(epsilon, (int, float, np.integer, np.floating)) and 0 < epsilon < math.inf):
        raise ParameterError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    pb = _problem(prior, r, 0.0)
    ball = pb.ball(float(t))
    if ball is None:  # no mass within r of t: its posterior is 0 whatever the output
        return dict(p=0.0, upper=0.0, upper_centre=None, lower=0.0, lower_centre=None)
    out = {"p": ball[2]}
    for side in ("upper", "lower"):
        val, _, c = pb.scan(float(epsilon), side, np.array([float(t)]))
        post = ball[2] + val if side == "upper" else ball[2] - val
        out[side], out[f"{side}_centre"] = float(post), (None if c is None else float(c))
    return out


def epsilon_optimal(
    prior: Prior, *, r: float, delta: float, t: Any = None, sides: str = "both"
) -> OptimalResult:
    r"""The optimal epsilon for one attribute: the largest epsilon at which no epsilon-DP
    mechanism lets the posterior of :math:`\mathcal B(t, r)` move by more than ``delta``
    (Def. 7, Sec. 4.1; the optimum over all mechanisms is beyond the paper).

    Sound for every epsilon-DP mechanism and not improvable: at any larger epsilon the
    returned kernel (a Laplace mechanism's output, or the inverted kernel) exceeds ``delta``.
    See the module docstring for the characterisation.

    Parameters
    ----------
    prior : Prior
        The attacker's prior.
    r : float
        Precision of a correct guess, ``r >= 0`` (``r > 0`` for a prior with a density: a
        ball of radius 0 holds no mass).
    delta : float
        Bound on the advantage, in (0, 1).
    t : optional
        The true value; ``None`` (default): the worst one (every atom of a finite prior; for
        a density, a scan through the far tails refined locally, plus the limit
        :math:`t \to \pm\infty`).
    sides : {"both", "upper", "lower"}
        Which side of Def. 7 to bound.

    Returns
    -------
    OptimalResult

    Raises
    ------
    ParameterError
        Bad input.
    InfeasibleError
        If no epsilon > 0 meets the request (for example the lower side over a tail heavier
        than every exponential, where the posterior can be pushed to 0).

    Examples
    --------
    The salary example of Sec. 6.2:

    >>> from garesearch.priors import Normal
    >>> res = epsilon_optimal(Normal(2000, 235.7), r=100, delta=0.1)
    >>> round(res.epsilon, 7), res.binding
    (0.0019252, 'upper')
    """
    _check(prior, r, delta, sides)
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        if t is not None:
            prior.probability(t)
        return _discrete(prior, float(r), float(delta), t, sides)
    r, delta = float(r), float(delta)
    if not isinstance(prior, Categorical) and r == 0:
        raise ParameterError(
            "r must be > 0 for a prior with a density: a ball of radius 0 holds no prior mass, "
            "so no guess is ever correct"
        )
    pb = _problem(prior, r, delta)
    ts = None
    if t is not None:
        if isinstance(t, bool) or not isinstance(t, (int, float, np.integer, np.floating)) or not math.isfinite(t):
            raise ParameterError(f"t must be a finite number; got {t!r}")
        low, high = prior.support
        if not low <= t <= high:
            raise ParameterError(f"t must lie in the prior's support [{low}, {high}]; got {t}")
        if pb.ball(float(t)) is None:
            # no value within r of t: no guess can be right, whatever the mechanism
            return OptimalResult(
                epsilon=math.inf, t=float(t), r=r, delta=delta, p=0.0, binding="none",
                epsilon_upper=math.inf, epsilon_lower=math.inf, centre=None, posterior=None,
                sides=sides, prior=prior,
            )
        ts = np.array([float(t)])
    found = {}
    for side in ("upper", "lower"):
        if sides in (side, "both"):
            found[side] = _solve(pb, delta, side, ts)
        else:
            found[side] = (math.inf, None, None, None)
    e_up, e_low = found["upper"][0], found["lower"][0]
    eps = min(e_up, e_low)
    if math.isinf(eps):
        t0 = float(t) if t is not None else None
        ball = pb.ball(t0) if t0 is not None else None
        return OptimalResult(
            epsilon=math.inf, t=t0, r=r, delta=delta, p=ball[2] if ball else math.nan,
            binding="none", epsilon_upper=e_up, epsilon_lower=e_low, centre=None,
            posterior=None, sides=sides, prior=prior,
        )
    binding = "upper" if e_up <= e_low else "lower"
    _, tw, cw, val = found[binding]
    if not eps > 0:
        raise InfeasibleError(
            f"no epsilon > 0 keeps the advantage within delta={delta} at t={tw!r}: the {binding} "
            "side cannot be met"
            + (
                " (the prior's tails are heavier than every exponential, so an inverted kernel "
                "pushes the posterior of the ball to 0; use sides='upper', or a delta at least "
                "the largest ball mass)"
                if binding == "lower"
                else ""
            )
        )
    far = tw is not None and math.isinf(tw)
    if far:
        p = 0.0
        post = val
    else:
        p = pb.ball(tw)[2]
        post = p + val if binding == "upper" else p - val
    return OptimalResult(
        epsilon=eps, t=tw, r=r, delta=delta, p=p, binding=binding, epsilon_upper=e_up,
        epsilon_lower=e_low, centre=cw, posterior=post, sides=sides, far_tail=far, prior=prior,
    )


def worst_posterior_lp(values, probs, *, t: float, r: float, epsilon: float, side: str = "upper"):
    r"""The worst posterior of :math:`\mathcal B(t, r)` over every epsilon-DP mechanism on a
    finite prior on the real line, as the linear program of its definition (Def. 7; beyond the
    paper): a direct route to what :func:`posterior_extremes` gets from the kernels, for
    teaching and checking.

    Maximise (``side="upper"``) or minimise (``"lower"``) :math:`\sum_{X'} p_i v_i` subject to
    :math:`\sum_i p_i v_i = 1`, :math:`v \ge 0` and :math:`v_i \le e^{\epsilon |x_i - x_j|}
    v_j` (the Charnes-Cooper form of the posterior's supremum over likelihoods; on the line the
    constraints between neighbours imply the others), solved with HiGHS
    (``scipy.optimize.linprog``) in variables scaled by the kernel centred at ``t``.

    Returns
    -------
    dict
        ``posterior`` and ``log_likelihood`` (the optimal :math:`\log v`, up to a constant),
        ``values`` (sorted) and ``inside`` (the ball's mask).  Accurate to about 1e-9.

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> out = worst_posterior_lp([0, 1, 2, 3], [0.1, 0.4, 0.3, 0.2], t=1, r=0, epsilon=1.0)
    >>> prior = Categorical({0: 0.1, 1: 0.4, 2: 0.3, 3: 0.2})
    >>> kernel = posterior_extremes(prior, t=1, r=0, epsilon=1.0)["upper"]
    >>> abs(out["posterior"] - kernel) < 1e-9
    True
    """
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    if side not in ("upper", "lower"):
        raise ParameterError(f"side must be 'upper' or 'lower'; got {side!r}")
    x = np.asarray(values, dtype=float)
    w = np.asarray(probs, dtype=float)
    if x.ndim != 1 or x.shape != w.shape or x.size < 2 or not np.all(np.isfinite(x)):
        raise ParameterError("values and probs must be 1-d arrays of the same length (at least 2), finite")
    if np.any(w < 0) or not abs(w.sum() - 1) < 1e-9:
        raise ParameterError("probs must be >= 0 and sum to 1")
    if not (isinstance(epsilon, (int, float, np.integer, np.floating)) and 0 < epsilon < math.inf):
        raise ParameterError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    order = np.argsort(x)
    x, w = x[order], w[order]
    inside = np.abs(x - t) <= r
    n = x.size
    # v_i = s_i u_i with s_i = e^{-eps |x_i - t|} (upper) or e^{+eps |x_i - t|} (lower)
    sign = -1.0 if side == "upper" else 1.0
    logs = sign * epsilon * np.abs(x - t)
    logs -= logs.max()
    sc = np.exp(logs)
    gap = np.diff(x)
    i = np.arange(n - 1)
    # s_i u_i - e^{eps gap} s_{i+1} u_{i+1} <= 0 and the mirror
    rows = np.concatenate([2 * i, 2 * i, 2 * i + 1, 2 * i + 1])
    cols = np.concatenate([i, i + 1, i + 1, i])
    vals = np.concatenate([sc[:-1], -np.exp(epsilon * gap) * sc[1:], sc[1:], -np.exp(epsilon * gap) * sc[:-1]])
    A = coo_matrix((vals, (rows, cols)), shape=(2 * (n - 1), n)).tocsr()
    c = (-1.0 if side == "upper" else 1.0) * w * sc * inside
    res = linprog(c, A_ub=A, b_ub=np.zeros(2 * (n - 1)), A_eq=(w * sc)[None, :], b_eq=[1.0],
                  bounds=(0, None), method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:  # pragma: no cover - HiGHS reports a numerical failure
        raise InfeasibleError(f"the linear program did not solve: {res.message}")
    v = res.x * sc
    with np.errstate(divide="ignore"):
        logv = np.log(v)
    post = float(np.sum(w[inside] * v[inside]) / np.sum(w * v))
    return {"posterior": post, "log_likelihood": logv, "values": x, "inside": inside}
