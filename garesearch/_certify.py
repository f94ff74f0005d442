r"""Certified linear programs and brackets of one side of Def. 7 (beyond the paper).

:func:`solve_lp` runs HiGHS with tight tolerances; :func:`certified_bound` turns its
approximate dual into a bound valid for every feasible point (Neumaier-Shcherbina);
:func:`search_bracket` finds a certified bracket :math:`[\epsilon_{lo}, \epsilon_{hi}]` of one
side from a solver that returns, at each trial epsilon, a certified bound on the worst
posterior and a witness mechanism.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InfeasibleError

__all__ = [
    "Bracket",
    "certified_bound",
    "crossing",
    "logsumexp",
    "logsumexp_rows",
    "odds_to_posterior",
    "search_bracket",
    "secant_logit",
    "solve_lp",
]

_LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def solve_lp(cost, A_ub, a_eq, ub, methods=("highs-ds", "highs-ipm"), options=None):
    """HiGHS with tight tolerances (by default dual simplex, then interior point; the bound
    is certified from the dual by :func:`certified_bound` whichever solves it); ``options``:
    more HiGHS options."""
    from scipy.optimize import linprog

    last = None
    for method in methods:
        res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=a_eq[None, :], b_eq=[1.0],
                      bounds=np.stack([np.zeros_like(ub), ub], axis=1), method=method,
                      options={**_LP_OPTIONS, **(options or {})})
        if res.status == 0:
            return res
        last = res
    raise InfeasibleError(
        f"the linear program could not be solved ({last.message}); use a coarser discretisation "
        "(larger rtol) or fewer attributes")


def certified_bound(res, obj, A_ub, a_eq, ub, upper: bool) -> float:
    r"""A bound on the LP's optimum valid for every feasible point, from its approximate dual.

    For ``upper`` (maximise ``obj @ x``): with :math:`y = \max(0, -\text{marginals}) \ge 0` and
    any :math:`\lambda`, :math:`obj^T x \le \lambda + \sum_k u_k \max(0, r_k - \lambda a_k)`,
    :math:`r = obj - A^T y`, for all ``x`` with :math:`Ax \le 0`, :math:`a^Tx = 1`,
    :math:`0 \le x \le u`; minimised over :math:`\lambda` exactly.  For the minimum, the mirror
    image with :math:`r = obj + A^T y`.
    """
    y = np.maximum(0.0, -np.asarray(res.ineqlin.marginals, dtype=float))
    aty = A_ub.T @ y
    r = obj - aty if upper else obj + aty
    if not upper:  # min obj.x >= -(max (-obj).x): reuse the maximisation formula on -r
        r = -r
    free = a_eq <= 0
    const = float(np.sum(np.maximum(0.0, r[free]) * ub[free]))
    ra, aa, ua = r[~free], a_eq[~free], ub[~free]
    bp = ra / aa
    order = np.argsort(-bp)
    cum = np.cumsum((ua * aa)[order])
    k = int(np.searchsorted(cum, 1.0))  # slope of the bound changes sign here
    lam = float(bp[order][min(k, bp.size - 1)])
    val = lam + const + float(np.sum(ua * np.maximum(0.0, ra - lam * aa)))
    val = val * (1 + 4e-15) + 1e-300
    return val if upper else -val


def secant_logit(points, target: float) -> float | None:
    """The next trial of a crossing search: the secant on logit(bound) against log(eps)
    through the last two ``(eps, bound)`` points (``None`` if they do not define one)."""
    if len(points) < 2:
        return None
    (e1, b1), (e2, b2) = points[-2], points[-1]
    if e1 == e2 or not (0 < b1 < 1 and 0 < b2 < 1):
        return None
    y1, y2 = math.log(b1 / (1 - b1)), math.log(b2 / (1 - b2))
    if y1 == y2:
        return None
    yt = math.log(target / (1 - target))
    return math.exp(math.log(e1) + (yt - y1) * (math.log(e2) - math.log(e1)) / (y2 - y1))


def logsumexp(x: np.ndarray) -> float:
    if x.size == 0:
        return -math.inf
    m = float(np.max(x))
    if not math.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(x - m))))


# ------------------------------------------------------------------------------------------
# Searching epsilon on one side
# ------------------------------------------------------------------------------------------
@dataclass
class Bracket:
    """Certified bracket of one side: ``lo`` safe, ``hi`` shown unsafe by ``witness``."""

    lo: float
    hi: float
    witness: Any = None
    posterior: float = math.nan  # witness posterior (a bound) at hi
    lps: int = 0
    size: dict = field(default_factory=dict)
    bound: float = math.nan  # certified bound on the worst posterior at lo


def crossing(fun, target, upper, lo=0.0, hi=math.inf, scale=1.0, rtol=1e-13):
    r"""Smallest :math:`\epsilon` found (bracketing from ``lo``, then bisection in
    :math:`\log\epsilon` to relative width ``rtol``) with ``fun(eps) > target`` (upper side)
    or ``< target`` (lower side); ``inf`` if there is none below 1e12 / ``scale``."""
    def bad(e):
        v = fun(e)
        return v > target if upper else v < target

    a = lo if lo > 0 else 1e-6 / scale
    while bad(a):
        a /= 8
        if a < 1e-14 / scale:
            return a
    b = hi if math.isfinite(hi) and hi > a else a * 4
    while not bad(b):
        a, b = b, b * 4
        if b > 1e12 / scale:
            return math.inf
    while b / a - 1 > rtol:
        m = math.sqrt(a * b)
        if not a < m < b:
            break
        if bad(m):
            b = m
        else:
            a = m
    return b


def search_bracket(solve, target, upper, rtol, eps0, scale, lps, size, budget=math.inf):
    """Certified bracket of one side: ``lo`` with a certified bound on the safe side of
    ``target``, ``hi`` where a witness mechanism crosses it.  Each step solves at ``trial``:
    a certified trial raises ``lo``; the witness of every step lowers ``hi`` to the epsilon at
    which its posterior crosses ``target`` (exact for a finite prior once the LP's optimal
    vertex is found, so typically two or three steps suffice)."""
    t_start = time.perf_counter()
    lo, hi, up, wit_hi, at_lo = 0.0, math.inf, math.inf, None, math.nan
    trial = eps0 if eps0 and eps0 > 0 and math.isfinite(eps0) else 1.0 / scale
    for _ in range(60):
        bound, wit = solve(trial)
        safe = bound <= target if upper else bound >= target
        if safe and trial > lo:
            lo, at_lo = trial, bound
        else:
            up = min(up, trial)
        root = crossing(wit.posterior, target, upper, scale=scale)
        if root < hi:
            hi, wit_hi = root, wit
        if math.isfinite(hi) and lo > 0 and hi - lo <= rtol * hi:
            break
        if time.perf_counter() - t_start > budget:
            break
        top = min(hi, up)
        if not math.isfinite(top):
            trial = trial * 4
        elif lo < hi * (1 - rtol / 2) < up:
            trial = hi * (1 - rtol / 2)
        else:
            trial = math.sqrt(lo * top) if lo > 0 else top / 4
    post = wit_hi.posterior(hi) if wit_hi is not None and math.isfinite(hi) else math.nan
    return Bracket(lo, hi, wit_hi, post, lps(), size(), at_lo)


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
