r"""Certified linear programs and brackets of one side of Def. 7 (beyond the paper).

:func:`solve_lp` runs HiGHS with tight tolerances; :func:`certified_bound` turns its
approximate dual into a bound valid for every feasible point (Neumaier and Shcherbina, with a
rigorous bound on the rounding errors of evaluating it: :func:`dual_bound`);
:class:`Bracket` is the certified bracket :math:`[\epsilon_{lo}, \epsilon_{hi}]` of one side
(found by :func:`garesearch._roots.certified_bracket` and the grid searches).

The work of every search is a fixed schedule (counts of steps, LPs and evaluations), so a
result depends on its arguments only.  A wall-clock cap is optional: :func:`wall_clock_cap`
sets a deadline for the calls made inside it (a context variable, so no signature carries
it); :func:`check_time` raises :class:`BudgetExhausted` when the time left is below what the
next piece of work is expected to take (measured on the LPs of the same call), and HiGHS is
given the time left as its own limit.  Without a cap nothing here reads the clock.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..errors import InfeasibleError

__all__ = [
    "Bracket",
    "BudgetExhausted",
    "Witness",
    "capped",
    "certified_bound",
    "check_time",
    "describe_witness",
    "dual_bound",
    "logsumexp",
    "logsumexp_rows",
    "odds_to_posterior",
    "solve_lp",
    "time_left",
    "uncapped",
    "wall_clock_cap",
]

_LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


# ------------------------------------------------------------------------------------------
# The optional wall-clock cap
# ------------------------------------------------------------------------------------------
class BudgetExhausted(Exception):
    """The optional wall-clock cap (:func:`wall_clock_cap`) ran out: the computation stops
    where it is and returns the bracket reached so far (never raised without a cap)."""


#: (deadline from time.perf_counter, {LP size: seconds of the last LP of that size}) or None
_CAP: contextvars.ContextVar = contextvars.ContextVar("garesearch_goal_cap", default=None)


@contextlib.contextmanager
def wall_clock_cap(seconds: float | None):
    """Calls inside the block stop after about ``seconds`` (``None``: no cap, no clock)."""
    if seconds is None:
        yield
        return
    token = _CAP.set((time.perf_counter() + float(seconds), {}))
    try:
        yield
    finally:
        _CAP.reset(token)


@contextlib.contextmanager
def uncapped():
    """Calls inside the block run to their end whatever the cap (the final evaluation of a
    bracket's witness, a few milliseconds)."""
    token = _CAP.set(None)
    try:
        yield
    finally:
        _CAP.reset(token)


def capped() -> bool:
    """Whether a wall-clock cap is in force."""
    return _CAP.get() is not None


def time_left() -> float:
    """Seconds left before the cap (``inf`` without one; the clock is read only with one)."""
    cap = _CAP.get()
    return math.inf if cap is None else cap[0] - time.perf_counter()


def check_time(expected: float = 0.0) -> None:
    """With a cap: raise :class:`BudgetExhausted` unless more than ``expected`` seconds are
    left.  Without one: nothing (no clock is read)."""
    if _CAP.get() is not None and time_left() <= expected:
        raise BudgetExhausted


def _expected_lp_seconds(size: int) -> float:
    """With a cap: the expected seconds of an LP with ``size`` nonzeros, from the LPs of this
    call (the closest smaller or equal size, scaled by ``(size / that size) ** 1.5``; 0 when
    none was solved yet)."""
    cap = _CAP.get()
    if cap is None or not cap[1]:
        return 0.0
    seen = cap[1]
    below = [k for k in seen if k <= size]
    k = max(below) if below else min(seen)
    return seen[k] * (size / k) ** 1.5 if k < size else seen[k]


def solve_lp(cost, A_ub, a_eq, ub, methods=("highs-ds", "highs-ipm"), options=None):
    """HiGHS with tight tolerances (by default dual simplex, then interior point; the bound
    is certified from the dual by :func:`certified_bound` whichever solves it); ``options``:
    more HiGHS options.  Under a wall-clock cap an LP that is not expected to end in the time
    left is not started, and HiGHS gets the time left as its limit (:class:`BudgetExhausted`
    either way)."""
    from scipy.optimize import linprog

    cap = _CAP.get()
    size = int(getattr(A_ub, "nnz", np.size(A_ub))) + len(a_eq)
    last = None
    for method in methods:
        opts = {**_LP_OPTIONS, **(options or {})}
        if cap is not None:
            check_time(_expected_lp_seconds(size))
            opts["time_limit"] = max(time_left(), 1e-3)
            start = time.perf_counter()
        res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=a_eq[None, :], b_eq=[1.0],
                      bounds=np.stack([np.zeros_like(ub), ub], axis=1), method=method, options=opts)
        if cap is not None:
            cap[1][size] = time.perf_counter() - start
            if res.status != 0 and time_left() <= 0:
                raise BudgetExhausted
        if res.status == 0:
            return res
        last = res
    raise InfeasibleError(
        f"the linear program could not be solved ({last.message}); use a coarser discretisation "
        "(larger rtol) or fewer attributes")


_U = 2.0 ** -53  # unit roundoff of binary64
_ETA = float(np.finfo(float).smallest_subnormal)  # the smallest positive double, 2^-1074


def _up(x):
    """The next double towards +inf: an upper bound on the exact result of the one operation
    that gave ``x`` under rounding to nearest (its error is at most half a spacing)."""
    return np.nextafter(x, np.inf)


def _down(x):
    return np.nextafter(x, -np.inf)


def _gamma(n) -> np.ndarray:
    r"""An upper bound on :math:`\gamma_n / (1 - \gamma_n) = nu / (1 - 2nu)`,
    :math:`\gamma_n = nu / (1 - nu)` (Higham, Sec. 3.1), for counts ``n`` (array), with a
    relative slack of 1e-8 that covers the rounding of this very expression."""
    n = np.asarray(n, float)
    if np.any(n * _U >= 0.25):
        raise ValueError("too many terms for the forward error bound")
    return n * _U / (1.0 - 2.0 * n * _U) * (1.0 + 1e-8)


def _sum_up(t: np.ndarray) -> float:
    r"""An upper bound on the exact sum of the nonnegative doubles ``t``: the computed sum
    :math:`\hat s` (any order) satisfies :math:`s \le \hat s / (1 - \gamma_{m-1})`, so
    :math:`s \le \hat s (1 + \gamma_m/(1-\gamma_m))`, each operation rounded upwards."""
    if t.size == 0:
        return 0.0
    s = float(np.sum(t))
    return float(_up(s + _up(s * float(_gamma(t.size)))))


def dual_bound(y, obj, A_ub, a_eq, ub, upper: bool, errors: bool = True) -> float:
    r"""The Neumaier-Shcherbina bound of ``y`` (any vector, negative and non-finite entries
    taken as 0) on the LP :math:`\max / \min\ obj^T x` s.t. :math:`A x \le 0`,
    :math:`a^T x = 1`, :math:`0 \le x \le u`, valid for every feasible point and rigorous in
    floating point.

    Neumaier and Shcherbina, "Safe bounds in linear and mixed-integer linear programming",
    Math. Program. 99 (2004) 283-296: for :math:`y \ge 0` and any :math:`\lambda`, every
    feasible ``x`` has (maximum; :math:`\sigma = 1`, minimum: :math:`\sigma = -1`)

    .. math::

        \sigma\, obj^T x \le g^T x \le \lambda + \sum_k u_k \max(0, g_k - \lambda a_k),
        \qquad g = \sigma\, obj - A^T y,

    since :math:`y^T A x \le 0` and :math:`a^T x = 1`; :math:`\lambda` is the minimiser of the
    right-hand side (exact for the computed ``g``; any value is valid).  The rounding errors
    of evaluating it are bounded explicitly (Higham, *Accuracy and Stability of Numerical
    Algorithms*, Sec. 3.1): each :math:`(A^T y)_k`, a dot product of :math:`n_k` terms (the
    stored entries of column ``k``), is within :math:`\gamma_{n_k} (|A|^T |y|)_k` (plus
    :math:`n_k 2^{-1074}` for underflow) of its computed value, so ``g`` is bounded above by
    the computed value raised by that amount; every elementwise operation after it is rounded
    upwards (the computed double moved one step with :func:`numpy.nextafter`) and the final
    sum of nonnegative terms is raised by :math:`\gamma_m/(1-\gamma_m)` of itself.  The
    result is an upper bound for ``upper`` (the maximum) and a lower bound otherwise, for the
    LP whose data are the given doubles.  ``errors=False`` evaluates the same formula in plain
    floating point (no error terms; not rigorous, for tests).
    """
    y = np.asarray(y, dtype=float)
    y = np.where(np.isfinite(y) & (y > 0), y, 0.0)
    obj, a_eq, ub = (np.asarray(v, dtype=float) for v in (obj, a_eq, ub))
    sigma = 1.0 if upper else -1.0
    s_hat = np.asarray(A_ub.T @ y, dtype=float).ravel()
    if errors:
        absA = abs(A_ub)
        mag = np.asarray(absA.T @ y, dtype=float).ravel()  # y >= 0
        nnz = (np.bincount(A_ub.tocsr().indices, minlength=A_ub.shape[1]) if hasattr(A_ub, "tocsr")
               else np.full(A_ub.shape[1], A_ub.shape[0]))
        tiny = _up(2.0 * nnz * _ETA)
        err = _up(_up(_gamma(nnz) * _up(mag + tiny)) + tiny)  # >= |s_hat - A^T y|
        g = _up(_up(sigma * obj - s_hat) + err)
    else:
        g = sigma * obj - s_hat
    # lambda: the minimiser of the convex piecewise linear bound (breakpoints g_k / a_k, a_k > 0)
    pos = a_eq > 0
    if np.any(pos):
        ra, aa, ua = g[pos], a_eq[pos], ub[pos]
        bp = ra / aa
        order = np.argsort(-bp)
        cum = np.cumsum((ua * aa)[order])
        k = int(np.searchsorted(cum, 1.0))  # slope of the bound changes sign here
        lam = float(bp[order][min(k, bp.size - 1)])
    else:
        lam = 0.0
    if not math.isfinite(lam):
        return math.inf if upper else -math.inf
    if errors:
        d = _up(g - _down(lam * a_eq))  # >= g_k - lam a_k
        d = np.maximum(d, 0.0)
        with np.errstate(invalid="ignore"):
            terms = np.where(d > 0, _up(ub * d), 0.0)
        val = float(_up(lam + _sum_up(terms)))
    else:
        d = np.maximum(g - lam * a_eq, 0.0)
        with np.errstate(invalid="ignore"):
            terms = np.where(d > 0, ub * d, 0.0)
        val = lam + float(np.sum(terms))
    if math.isnan(val):
        val = math.inf
    return val if upper else -val


def certified_bound(res, obj, A_ub, a_eq, ub, upper: bool) -> float:
    r"""A bound on the LP's optimum valid for every feasible point, from the approximate dual
    HiGHS returns (``y = max(0, -marginals)``, :func:`dual_bound`: Neumaier-Shcherbina with a
    rigorous bound on the rounding errors of its evaluation).  For ``upper`` (maximise
    ``obj @ x``) an upper bound, else a lower bound on the minimum."""
    return dual_bound(-np.asarray(res.ineqlin.marginals, dtype=float), obj, A_ub, a_eq, ub, upper)


def logsumexp(x: np.ndarray) -> float:
    if x.size == 0:
        return -math.inf
    m = float(np.max(x))
    if not math.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(x - m))))


# ------------------------------------------------------------------------------------------
# The bracket of one side; log-sum-exp and log odds
# ------------------------------------------------------------------------------------------
class Witness(Protocol):
    """A mechanism that shows one side of Def. 7 unsafe (the other end of a :class:`Bracket`):
    its posterior of :math:`X'` at any epsilon, a certified bound from the side a crossing may
    rely on (from below for the upper side, from above for the lower side), and a description
    of its likelihood for :attr:`garesearch.optimal.goals.OptimalGoalResult.witness`."""

    def posterior(self, eps: float) -> float: ...

    def describe(self) -> dict:
        """The witness' ``kind`` and parameters (a plain dict)."""
        ...


def describe_witness(w: Witness | None) -> dict:
    """What :attr:`garesearch.optimal.goals.OptimalGoalResult.witness` says about ``w``
    (``{"kind": "none"}`` when there is no witness)."""
    return {"kind": "none"} if w is None else w.describe()


@dataclass
class Bracket:
    """Certified bracket of one side: ``lo`` safe, ``hi`` shown unsafe by ``witness``."""

    lo: float
    hi: float
    witness: Witness | None = None
    posterior: float = math.nan  # witness posterior (a bound) at hi
    lps: int = 0
    size: dict = field(default_factory=dict)
    bound: float = math.nan  # certified bound on the worst posterior at lo
    cut_short: bool = False  # the wall-clock cap stopped the search before its schedule ended


def logsumexp_rows(terms: np.ndarray) -> np.ndarray:
    """log-sum-exp over the last axis."""
    m = np.max(terms, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return m[..., 0] + np.log(np.sum(np.exp(terms - m), axis=-1))


def odds_to_posterior(lo):
    """Posterior from log odds, accurate at both ends."""
    lo = float(lo)
    if lo == math.inf:
        return 1.0
    if lo == -math.inf:
        return 0.0
    return 1.0 / (1.0 + math.exp(-lo)) if lo > -700 else math.exp(lo)
