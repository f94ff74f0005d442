r"""Roots and brackets of monotone functions: the one module every search of the package for an
epsilon, a noise scale or a crossing takes its root finder from (beyond the paper).

The names say what a helper does: ``grow_*`` finds a bracket of a sign change from a starting
point, ``narrow_*`` shrinks a bracket it is given, ``*_root`` returns one point, ``*_crossing``
the smallest epsilon at which a witness' posterior (monotone in epsilon) crosses a target, and
:func:`certified_bracket` the certified bracket of one side of Def. 7.  Each returns (or keeps)
the end that meets the target, so the caller's answer is sound whatever the rounding of the
last steps.  They are not interchangeable (their step sequences, and so their results,
differ); which one to use when:

- :func:`grow_bracket`: a bracket in log-epsilon from a guess, the steps doubling (a few dozen
  evaluations reach the caps); the search of the one-attribute optimum's proof
  (:mod:`garesearch.optimal._kernels`).
- :func:`grow_bracket_evenly`: the same with even steps of ``log 4`` and a floor set by the
  prior's spread; the estimate of the one-attribute optimum (:mod:`garesearch.optimal`).
- :func:`narrow_bracket`: a bracket to a given width (Brent's method, then bisection), the end
  that meets the target kept; the general narrowing (epsilons, scales, advantages).
- :func:`narrow_bracket_to_ulps`: the same to a few ulps of epsilon itself (in log-epsilon
  first, then in epsilon); the proved one-attribute optimum and the pointwise bound.
- :func:`narrow_scale` and :func:`smallest_scale`: the smallest noise scale at which a reading
  that falls with the scale meets a target, inside a bracket or grown from a first guess by a
  factor; the scale returned is one at which the reading was evaluated
  (:mod:`garesearch.releases.calibration`).
- :func:`secant_bracket`: a bracket near a good estimate (secant steps out, then the Illinois
  variant of regula falsi: superlinear on smooth margins); the one-attribute optimum's proof.
- :func:`secant_root`: one root near a point by safeguarded secant steps (``sound=False``: an
  estimate only); the estimate of the one-attribute optimum.
- :func:`bisect_crossing`: the crossing of a witness by bracketing and bisection in
  log-epsilon (any monotone posterior; robust, about 45 evaluations to 1e-13).
- :func:`secant_crossing`: the same by at most 12 secant steps on the logit (costly posteriors
  that are smooth in log-epsilon: the goal witnesses of the cell and node grids);
  :func:`secant_logit_trial` is the next trial of such a search on a bound.
- :func:`certified_bracket`: a certified bracket of one side from a solver that returns, at a
  trial epsilon, a certified bound and a witness mechanism (the goal optimum's kernel,
  product and finite-LP solvers, :mod:`garesearch.optimal._solvers`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from .errors import InfeasibleError
from .optimal._certify import Bracket, BudgetExhausted, capped, check_time, uncapped

__all__ = [
    "bisect_crossing",
    "certified_bracket",
    "clamped_logit",
    "grow_bracket",
    "grow_bracket_evenly",
    "narrow_bracket",
    "narrow_bracket_to_ulps",
    "narrow_scale",
    "secant_bracket",
    "secant_crossing",
    "secant_logit_trial",
    "secant_root",
    "smallest_scale",
]

_BIG = 1e300  # stands for an infinite value in Brent's method
_RTOL_MIN = 4 * 2.220446049250313e-16  # the smallest relative tolerance scipy's brentq accepts
_LOG4 = math.log(4.0)


# ------------------------------------------------------------------------------------------
# Growing a bracket from a point
# ------------------------------------------------------------------------------------------
def grow_bracket(g, x0, step=_LOG4, lo_cap=-700.0, hi_cap=690.0):
    """A bracket ``(lo, hi)`` of log-epsilon with ``g(lo) <= 0 < g(hi)`` by steps from
    ``x0`` that double each time (the caps are reached in a few dozen evaluations):
    ``(hi_cap, None)`` if ``g <= 0`` up to ``hi_cap``, ``(None, lo_cap)`` if ``g > 0`` down
    to ``lo_cap``."""
    if g(x0) <= 0:
        lo = x0
        while lo < hi_cap:
            hi = min(lo + step, hi_cap)
            if g(hi) > 0:
                return lo, hi
            lo, step = hi, 2 * step
        return lo, None
    hi = x0
    while hi > lo_cap:
        lo = max(hi - step, lo_cap)
        if g(lo) <= 0:
            return lo, hi
        hi, step = lo, 2 * step
    return None, hi


def grow_bracket_evenly(g, x0, small, big, delta=1.0):
    """A bracket ``(lo, hi)`` of log-epsilon with ``g(lo) <= 0 < g(hi)`` for a
    non-decreasing ``g``; ``(lo, None)``: ``g <= 0`` up to epsilon 1e304 (``g(lo) = -inf``:
    the side cannot bind at all, no noise needed: settled at once where ``g`` is ``-inf`` both
    at ``x0`` and at the top); ``(None, hi)``: ``g > 0`` down to epsilon * spread = 1e-6 delta
    (or epsilon 1e-304)."""
    step = _LOG4
    g0 = g(x0)
    if g0 <= 0:
        lo = x0
        if g0 == -math.inf and g(701.0) == -math.inf:
            return lo, None  # -inf at the top, so everywhere (g does not decrease)
        while True:
            hi = lo + step
            if g(hi) > 0:
                return lo, hi
            if hi > 700:
                return lo, None
            lo = hi
    hi = x0
    floor = max(-700.0, math.log(1e-6 * delta / big)) if big > 0 else -700.0
    while True:
        lo = hi - step
        if g(lo) <= 0:
            return lo, hi
        if lo < floor:
            return None, lo
        hi = lo


# ------------------------------------------------------------------------------------------
# Narrowing a bracket
# ------------------------------------------------------------------------------------------
def narrow_bracket(g: Callable[[float], float], lo: float, hi: float, *, tol: float,
                   meets: str = "lo", xtol: float | None = None, rtol: float = 1e-15,
                   maxiter: int = 100) -> tuple[float, float]:
    """Narrow ``[lo, hi]`` to width at most ``tol`` around the sign change of ``g`` (Brent's
    method with ``xtol`` (default ``tol / 4``), ``rtol`` and ``maxiter``, then bisection).

    ``meets="lo"``: ``g(lo) <= 0 < g(hi)`` (``g`` non-decreasing); ``meets="hi"``: ``g(hi) <= 0
    < g(lo)``.  Each evaluation inside the bracket replaces the end whose sign it shares; an
    infinite ``g`` is clipped to +-1e300 for Brent's method.

    Returns
    -------
    (lo, hi) : tuple of float
        The narrowed bracket; the end named by ``meets`` still has ``g <= 0``.

    Examples
    --------
    >>> lo, hi = narrow_bracket(lambda x: x * x - 2.0, 1.0, 2.0, tol=1e-12)
    >>> lo * lo <= 2.0 < hi * hi, hi - lo <= 1e-12
    (True, True)
    >>> lo, hi = narrow_bracket(lambda x: 1.0 / x - 0.5, 1.0, 4.0, tol=1e-9, meets="hi")
    >>> 1.0 / hi <= 0.5, 1.0 / lo > 0.5
    (True, True)
    """
    from scipy.optimize import brentq

    ok_end = 0 if meets == "lo" else 1
    bracket = [lo, hi]

    def f(x):
        val = g(x)
        if bracket[0] < x < bracket[1]:
            bracket[ok_end if val <= 0 else 1 - ok_end] = x
        return min(max(val, -_BIG), _BIG) if not math.isnan(val) else _BIG

    if bracket[1] - bracket[0] > tol:
        # Brent's method narrows the bracket through f; after maxiter steps it stops without
        # raising (disp=False) and the bisection below finishes.  Ends of the same sign break
        # the contract above and raise (scipy's ValueError names them).
        brentq(f, lo, hi, xtol=tol / 4 if xtol is None else xtol,
               rtol=max(rtol, _RTOL_MIN), maxiter=maxiter, disp=False)
    while bracket[1] - bracket[0] > tol:  # Brent's last step may leave one side wide
        f(0.5 * (bracket[0] + bracket[1]))
    return bracket[0], bracket[1]


def narrow_bracket_to_ulps(g, lo, hi, rtol=4e-16):
    """Narrow ``[lo, hi]`` (log-epsilon, ``g(lo) <= 0 < g(hi)``) around the sign change of
    ``g``: first in log-epsilon to 1e-9, then in epsilon itself to ``rtol`` relative (log
    space cannot resolve finer than its own spacing); returns ``(lo, hi)`` in log-epsilon
    with both properties kept (:func:`narrow_bracket`)."""
    lo, hi = narrow_bracket(g, lo, hi, tol=1e-9, xtol=1e-9, rtol=1e-15, maxiter=200)
    e_lo, e_hi = math.exp(lo), math.exp(hi)
    # exp(log(e)) need not give e back: work with the epsilons the caller's g sees
    memo = {}

    def g_lin(e):
        if e not in memo:
            memo[e] = g(math.log(e)) if e > 0 else -math.inf
        return memo[e]

    # (exp may round either end across the sign change: a few ulps outward restore it)
    for _ in range(8):
        if g_lin(e_lo) <= 0 or e_lo <= 0:
            break
        e_lo = float(np.nextafter(e_lo, 0.0))
    for _ in range(8):
        if g_lin(e_hi) > 0:
            break
        e_hi = float(np.nextafter(e_hi, np.inf))
    if not g_lin(e_lo) <= 0 < g_lin(e_hi):
        return lo, hi
    e_lo, e_hi = narrow_bracket(g_lin, e_lo, e_hi, tol=rtol * e_hi, xtol=rtol * e_hi,
                                rtol=1e-15, maxiter=200)
    return math.log(e_lo), math.log(e_hi)


def secant_bracket(f, e0: float, rel: float = 1e-7, tol: float = 4e-16, maxit: int = 40):
    r"""A bracket ``(e_ok, e_bad)`` of the root of ``f`` near ``e0`` with ``f(e_ok) <= 0 <
    f(e_bad)`` (``f`` rising through its root), to ``tol`` relative width: secant steps from
    ``e0 (1 -+ rel)``, stepping out (at most eight spans at a time) until the root is
    bracketed, then the Illinois variant of regula falsi (superlinear, and the bracket
    always shrinks).  Either end is ``None`` if not found within ``maxit`` evaluations."""
    pts = []

    def visit(e):
        v = f(e)
        pts.append((e, v))
        return v

    a, b = e0 * (1 - rel), e0 * (1 + rel)
    visit(a)
    visit(b)
    for _ in range(maxit):
        oks = [(e, v) for e, v in pts if v <= 0]
        bads = [(e, v) for e, v in pts if v > 0]
        if oks and bads:
            break
        lowest = min(e for e, _ in pts)
        highest = max(e for e, _ in pts)
        span = max(highest - lowest, highest * rel)
        (e1, v1), (e2, v2) = pts[-2], pts[-1]
        step = None
        if math.isfinite(v1) and math.isfinite(v2) and v1 != v2:
            step = e2 - v2 * (e2 - e1) / (v2 - v1)
        if not oks:  # every point is above the root: go down
            floor = max(lowest - 8 * span, lowest / 8)
            step = lowest - span if step is None or not step < lowest else step
            step = max(step, floor)
        else:  # every point is below: go up
            cap = min(highest + 8 * span, highest * 8)
            step = highest + span if step is None or not step > highest else step
            step = min(step, cap)
        if not step > 0:
            return (max(e for e, _ in oks) if oks else None), (min(e for e, _ in bads) if bads else None)
        visit(step)
    else:
        oks = [(e, v) for e, v in pts if v <= 0]
        bads = [(e, v) for e, v in pts if v > 0]
        return (max(e for e, _ in oks) if oks else None), (min(e for e, _ in bads) if bads else None)
    ok, fok = max(oks)
    bad, fbad = min(bads)
    side = 0
    for _ in range(maxit):
        if bad - ok <= tol * bad:
            break
        if not (math.isfinite(fok) and math.isfinite(fbad)) or fbad == fok:
            c = 0.5 * (ok + bad)
        else:
            c = bad - fbad * (bad - ok) / (fbad - fok)
        if math.isnan(c):
            c = 0.5 * (ok + bad)
        # a step that would land on or within the tolerance of an end goes a tolerance's worth
        # in (a root sitting at one end then closes the bracket in one step, not by halving)
        step = 0.5 * tol * bad
        if bad - ok > 2 * step:
            c = min(max(c, ok + step), bad - step)
        elif not ok < c < bad:
            c = 0.5 * (ok + bad)
        if c in (ok, bad):
            break
        v = f(c)
        if v <= 0:
            ok, fok = c, v
            if side == -1:
                fbad *= 0.5  # the Illinois step: the stale end's value is halved
            side = -1
        else:
            bad, fbad = c, v
            if side == 1:
                fok *= 0.5
            side = 1
    return ok, bad


def secant_root(g, x, lo=-math.inf, hi=math.inf, rtol=1e-15, sound=True, reach=1e-6):
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
        elif math.isfinite(lo) and math.isfinite(hi):  # a flat stretch (or a jump): bisect
            step = 0.5 * (lo + hi) - x
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


# ------------------------------------------------------------------------------------------
# The smallest noise scale that meets a target
# ------------------------------------------------------------------------------------------
def narrow_scale(metric, target, lo, hi, rtol):
    """The smallest scale in ``[lo, hi]`` with ``metric(scale) <= target`` (``metric`` falls
    with the scale; ``metric(lo) > target >= metric(hi)``), to relative ``rtol``: the bracket
    narrowed in log-scale by every evaluation inside (:func:`narrow_bracket`).  The scale
    returned is one at which ``metric`` was evaluated and found ``<= target``.

    Examples
    --------
    >>> s = narrow_scale(lambda s: 1.0 / s, 0.5, 1.0, 4.0, 1e-9)
    >>> 1.0 / s <= 0.5, s <= 2.0 * (1 + 1e-9)
    (True, True)
    """
    _, x_hi = narrow_bracket(lambda x: metric(math.exp(x)) - target, math.log(lo), math.log(hi),
                             tol=math.log1p(rtol), meets="hi", rtol=1e-15)
    return hi if x_hi == math.log(hi) else math.exp(x_hi)  # an end that was evaluated


def smallest_scale(metric, target, s0, rtol, factor=4.0):
    """Smallest scale with ``metric(scale) <= target`` (``metric`` falls with the scale).

    The bracket grows from ``s0`` by ``factor`` (a good first guess takes a factor near 1).  The
    scale returned is one at which ``metric`` was evaluated and found ``<= target``; a NaN counts
    as missing the target.
    """
    lo = hi = None
    if metric(s0) <= target:
        hi, s = s0, s0
        while True:
            s /= factor
            if s < s0 * 1e-48:
                raise InfeasibleError("the target is met at every scale down to 1e-48 of the prior's spread: "
                                      "no noise is needed")
            if not metric(s) <= target:
                lo = s
                break
            hi = s
    else:
        lo, s = s0, s0
        while True:
            s *= factor
            if s > s0 * 1e36:
                raise InfeasibleError(f"no scale up to {s:.3g} meets the target")
            if metric(s) <= target:
                hi = s
                break
            lo = s
    # metric(lo) > target >= metric(hi)
    return narrow_scale(metric, target, lo, hi, rtol)


# ------------------------------------------------------------------------------------------
# Where a witness crosses its target; the certified bracket of one side
# ------------------------------------------------------------------------------------------
def clamped_logit(p: float) -> float:
    """``log(p / (1 - p))`` with ``p`` clamped to ``[1e-300, 1 - 1e-16]``."""
    p = min(max(p, 1e-300), 1 - 1e-16)
    return math.log(p / (1 - p))


def bisect_crossing(fun, target, upper, lo=0.0, hi=math.inf, scale=1.0, rtol=1e-13):
    r"""Smallest :math:`\epsilon` found (bracketing from ``lo``, then bisection in
    :math:`\log\epsilon` to relative width ``rtol``) with ``fun(eps) > target`` (upper side)
    or ``< target`` (lower side); ``inf`` if there is none below 1e12 / ``scale``.  Under a
    wall-clock cap every evaluation first checks the time
    (:func:`garesearch.optimal._certify.check_time`)."""
    def bad(e):
        check_time()
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


def secant_crossing(posterior, target: float, upper: bool, e0: float, rtol: float, steps: int = 12) -> float:
    """Smallest epsilon found at which a witness' ``posterior`` (monotone in epsilon) crosses
    ``target`` (exceeds it for ``upper``, falls below otherwise): at most ``steps`` secant
    steps on the logit against log epsilon from ``e0``, kept inside the bracket of the largest
    epsilon seen that does not cross and the smallest that does (a geometric bisection where
    the secant leaves it), and a step a little past the root once the secant has converged, so
    that the returned value is checked.  The search ends when that bracket is within ``rtol``
    (``inf`` if no crossing is found below 1e3 * e0).  Under a wall-clock cap every evaluation
    first checks the time."""
    def gap(e):
        check_time()
        return clamped_logit(posterior(e)) - clamped_logit(target)

    sign = 1.0 if upper else -1.0
    bad, good = math.inf, 0.0
    pts = []
    e = e0
    for _ in range(steps):
        if not 0 < e < math.inf:  # a secant step past float64's range ends the search
            break
        g = sign * gap(e)
        if g > 0:
            bad = min(bad, e)
        else:
            good = max(good, e)
        if bad <= good * (1 + rtol):
            break
        pts.append((math.log(e), g))
        if len(pts) >= 2 and pts[-1][1] != pts[-2][1]:
            (x1, g1), (x2, g2) = pts[-2], pts[-1]
            x = x2 - g2 * (x2 - x1) / (g2 - g1)
        else:
            x = math.log(e) + (-0.2 if g > 0 else 0.2)
        nxt = math.exp(min(x, math.log(e) + 2.0))
        if abs(nxt / e - 1) < rtol:
            nxt = nxt * (1 + rtol / 4)  # converged: just past the root, to be checked
        if math.isfinite(bad) and not good < nxt < bad:
            nxt = math.sqrt(good * bad) if good > 0 else bad / 2
        if nxt > 1e3 * e0:
            break
        e = nxt
    return bad


def secant_logit_trial(points, target: float) -> float | None:
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


def certified_bracket(solve, target, upper, rtol, eps0, scale, lps, size, steps=60, enough=math.inf):
    """Certified bracket of one side: ``lo`` with a certified bound on the safe side of
    ``target``, ``hi`` where a witness mechanism crosses it.  Each step solves at ``trial``:
    a certified trial raises ``lo``; the witness of every step lowers ``hi`` to the epsilon at
    which its posterior crosses ``target`` (exact for a finite prior once the LP's optimal
    vertex is found, so typically two or three steps suffice).  The search ends when the
    bracket is within ``rtol``, when ``lo`` reaches ``enough`` (a sound end that is enough
    for the caller) or after ``steps`` solves; under a wall-clock cap
    (:func:`garesearch.optimal._certify.wall_clock_cap`) also when a step is not expected to end in time (the bracket so
    far, ``cut_short``)."""
    lo, hi, up, wit_hi, at_lo = 0.0, math.inf, math.inf, None, math.nan
    trial = eps0 if eps0 and eps0 > 0 and math.isfinite(eps0) else 1.0 / scale
    cut = False
    last = 0.0  # seconds of the last step (measured under a cap only)
    for _ in range(steps):
        try:
            check_time(last)
            t0 = time.perf_counter() if capped() else 0.0
            bound, wit = solve(trial)
            root = bisect_crossing(wit.posterior, target, upper, scale=scale)
            last = time.perf_counter() - t0 if capped() else 0.0
        except BudgetExhausted:
            cut = True
            break
        safe = bound <= target if upper else bound >= target
        if safe and trial > lo:
            lo, at_lo = trial, bound
        else:
            up = min(up, trial)
        if root < hi:
            hi, wit_hi = root, wit
        if (math.isfinite(hi) and lo > 0 and hi - lo <= rtol * hi) or lo >= enough:
            break
        top = min(hi, up)
        if not math.isfinite(top):
            trial = trial * 4
        elif lo < hi * (1 - rtol / 2) < up:
            trial = hi * (1 - rtol / 2)
        else:
            trial = math.sqrt(lo * top) if lo > 0 else top / 4
    with uncapped():
        post = wit_hi.posterior(hi) if wit_hi is not None and math.isfinite(hi) else math.nan
    return Bracket(lo, hi, wit_hi, post, lps(), size(), at_lo, cut_short=cut)
