r"""Solving one side of the one-attribute optimum for epsilon (beyond the paper; Def. 7,
Sec. 4.1): the search over a finite prior's true values (:func:`solve_finite`), the far-tail
limit of an unbounded support (:func:`far_tail_epsilon`) and the certification of a density's
side over the scanned true values (:func:`certify_density`), all on the certified margins of
:class:`garesearch.optimal._kernels.Margins`.
"""

from __future__ import annotations

import math

import numpy as np

from .._roots import grow_bracket, narrow_bracket_to_ulps, secant_bracket
from ..priors import Prior
from ._kernels import _U, Margins


# ------------------------------------------------------------------------------------------
# solving one side for epsilon
# ------------------------------------------------------------------------------------------
def _witness_end(w, lo, hi):
    """The smallest log-epsilon found at which ``w`` (a witness' certified margin from below)
    is positive, searching up from ``hi`` (``w(lo) <= 0`` is known); ``inf`` if none within a
    factor 2 of ``hi``."""
    x_hi = hi
    if not w(x_hi) > 0:
        e0 = math.exp(hi)
        for j in range(60):
            x_hi = math.log(e0 * (1 + 2.0 ** (j - 50)))
            if w(x_hi) > 0:
                break
        else:
            return math.inf
    if w(lo) <= 0:
        _, x_hi = narrow_bracket_to_ulps(w, lo, x_hi)
    return x_hi


class Side:
    """One side's answer: ``lo`` certified safe, ``hi`` shown unsafe by a witness (the kernel
    at ``t``, ``c``), ``far`` where the far-tail limit binds."""

    __slots__ = ("c", "far", "hi", "lo", "t", "value")

    def __init__(self, lo, hi, t=None, c=None, far=False, value=math.nan):
        self.lo, self.hi, self.t, self.c, self.far, self.value = lo, hi, t, c, far, value

    def __repr__(self):
        return f"Side(lo={self.lo!r}, hi={self.hi!r}, t={self.t!r}, c={self.c!r}, far={self.far})"


def solve_finite(mg: Margins, side: str, ts, x0: float, span: tuple[float, float]) -> Side:
    """The side's certified bracket over the true values ``ts`` of a finite prior: every true
    value against every atom of its ball (exact enumeration), so ``lo`` is proven for all of
    them.  ``x0``: a first guess of log-epsilon; ``span``: the smallest and largest distances."""
    ts = np.asarray(ts, dtype=float)
    bl, bh, p_lo, p_hi = mg.ball(ts)
    # a true value binds on the upper side only where p + delta < 1, on the lower only where
    # p > delta (Margins.margin is -inf elsewhere, whatever epsilon)
    _, q_hi = mg.outside(bl, bh, p_lo, p_hi)
    can = (q_hi > mg.delta) if side == "upper" else (p_hi > mg.delta)
    if not np.any(can):
        return Side(math.inf, math.inf)
    ts, bl, bh, p_lo, p_hi = (v[can] for v in (ts, bl, bh, p_lo, p_hi))

    def best(eps, sel=None, which="upper"):
        s = slice(None) if sel is None else sel
        res = mg.sup_over_centres(eps, side, bl[s], bh[s], p_lo[s], p_hi[s])
        return res

    def g_all(x):
        return float(np.max(best(math.exp(x))["upper"]))

    small, big = span
    lo, hi = grow_bracket(g_all, x0, hi_cap=min(690.0, math.log(1e300 / max(small, 1e-300))),
                     lo_cap=max(-745.0, math.log(1e-300 / max(big, 1e-300))))
    if hi is None:
        if g_all(lo) == -math.inf:  # the side cannot bind anywhere: no noise needed
            return Side(math.inf, math.inf)
        return Side(math.exp(lo), math.inf)
    if lo is None:
        res = best(math.exp(hi))
        i = int(np.argmax(res["lower"]))
        return Side(0.0, math.exp(hi), float(ts[i]), float(res["centre"][i]))
    # narrow on the 64 true values nearest to binding, then check every one
    sel = None
    for _ in range(6):
        res = best(math.exp(hi))
        order = np.argsort(-res["upper"], kind="stable")
        sel = np.sort(order[:64]) if ts.size > 64 else None

        def g(x, sel=sel):
            return float(np.max(best(math.exp(x), sel)["upper"]))

        lo, hi = narrow_bracket_to_ulps(g, lo, hi)
        if sel is None or g_all(lo) <= 0:
            break
        # another true value binds below: restart the bracket from its side
        while g_all(lo) > 0:
            hi, lo = lo, lo - math.log(4.0)
    e_lo = math.exp(lo)
    # the witness end: the smallest epsilon found at which a kernel certainly exceeds delta
    # (ties go to the largest true value: garesearch.optimal.attribute.tie_break)
    res = best(math.exp(hi))
    top = float(np.max(res["lower"]))
    tied = np.flatnonzero(res["lower"] >= top - 1e-9 * mg.delta)
    i = int(tied[-1]) if math.isfinite(top) else int(np.argmax(res["lower"]))
    t_w, c_w = float(ts[i]), float(res["centre"][i])
    lt, ht, pl, ph = bl[i:i + 1], bh[i:i + 1], p_lo[i:i + 1], p_hi[i:i + 1]

    def w(x):
        m_lo, _ = mg.margin(math.exp(x), side, lt, ht, np.array([c_w]), pl, ph)
        return float(m_lo[0])

    x_hi = _witness_end(w, lo, hi)
    return Side(e_lo, math.exp(x_hi) if math.isfinite(x_hi) else math.inf, t_w, c_w)


def far_tail_epsilon(prior: Prior, r: float, delta: float, ends) -> tuple[float, float, float]:
    r"""The upper side's far-tail limit (:mod:`garesearch.optimal`): as ``t`` runs off an
    unbounded end whose tail is declared (:meth:`garesearch.priors.Prior.tail`), the worst
    advantage tends to :math:`1 - e^{-r(\epsilon^2 - \lambda^2)/\epsilon}` with :math:`\lambda`
    the smallest hazard rate beyond the scanned true values (the declared limit, or the hazard
    at the scan's end if it is smaller: the tail's hazard is declared monotone there), so no
    epsilon above :math:`\epsilon_\infty = (L/r + \sqrt{(L/r)^2 + 4\lambda^2})/2`,
    :math:`L = -\ln(1 - \delta)`, is safe there.

    ``ends`` maps ``"left"`` / ``"right"`` to the scan's outermost true value on that side.

    Returns
    -------
    (epsilon, end, rate) : tuple
        The smallest limit over the unbounded ends (rounded down), the end (``-inf`` / ``inf``)
        and its rate; ``(inf, None, nan)`` where no end is unbounded.

    Examples
    --------
    >>> import math, scipy.stats as st
    >>> from garesearch.priors import Continuous
    >>> e, end, lam = far_tail_epsilon(Continuous(st.lognorm(3)), 1.0, 0.1, {"right": 50.0})
    >>> abs(e - (-math.log(0.9))) < 1e-15, end, lam
    (True, inf, 0.0)
    """
    best = (math.inf, None, math.nan)
    L = -math.log1p(-float(delta))
    low, high = prior.support
    for side, end in (("left", low), ("right", high)):
        if math.isfinite(end) or side not in ends:
            continue
        tail = prior.tail(side)
        if tail.kind == "bounded":
            continue
        x = float(ends[side]) + (r if side == "left" else -r)
        lam = float(np.minimum(prior.hazard(x, side), tail.rate))
        a = L / r
        eps = 0.5 * (a + math.sqrt(a * a + 4 * lam * lam))
        eps = eps * (1 - 16 * _U)
        if eps < best[0]:
            best = (eps, end, lam)
    return best


def _polish_t(mg: Margins, side: str, eps: float, ts, i: int, c0: float, room: float):
    """The true value near ``ts[i]`` (between its neighbours) whose certified margin from
    below is largest at ``eps``: a bounded Brent search (:func:`scipy.optimize.minimize_scalar`,
    a fixed number of steps) on the branch and bound's best lower bound over the centres.

    Returns ``(t, centre, upper bound of the margin there)``, or ``(None, None, -inf)``."""
    from scipy.optimize import minimize_scalar

    ts = np.asarray(ts, dtype=float)
    a = float(ts[max(i - 1, 0)])
    b = float(ts[min(i + 1, ts.size - 1)])
    if not b > a:
        return None, None, -math.inf
    memo = {}

    def phi(t):
        if t not in memo:
            l1, h1, pl1, ph1 = mg.ball(np.array([t]))
            val = mg.sup_over_centres(eps, side, l1, h1, pl1, ph1, threshold=-np.inf, tol=room,
                                      max_rounds=12, max_intervals=16, hints=np.array([c0]))
            memo[t] = (float(val["lower"][0]), float(val["centre"][0]), float(val["upper"][0]))
        return memo[t]

    res = minimize_scalar(lambda t: -phi(float(t))[0], bounds=(a, b), method="bounded",
                          options=dict(xatol=1e-9 * max(1.0, abs(float(ts[i]))), maxiter=40))
    t = float(res.x)
    lo, c, hi = phi(t)
    if not math.isfinite(lo):
        return None, None, -math.inf
    return t, c, hi


def certify_density(mg: Margins, side: str, ts, cand, eps_est: float, far=(math.inf, None),
                    rounds: int = 24, hints=None, polish: bool = False) -> Side:
    r"""The side's certified bracket for a prior with a density, from an estimate.

    ``ts`` are the true values examined (the search's grid through the far tails and its
    refined candidates), ``hints`` their likely worst centres (or NaN); ``cand = (t, c)`` the
    estimate's worst true value and centre,
    ``eps_est`` its epsilon, ``far = (epsilon, end)`` the far-tail limit
    (:func:`far_tail_epsilon`; upper side only).

    ``lo`` is proven at every true value of ``ts``: for each, branch and bound over the centres
    (:meth:`Margins.sup_over_centres`) shows every margin at most 0; and it is at most the
    far-tail limit.  Between the scanned true values the answer rests on the search: the worst
    ones are polished in ``t`` on the certified margins (:func:`_polish_t`) before the proof.  ``hi`` is where the kernel at the binding ``(t, c)`` is shown to exceed ``delta``
    (or the far-tail limit, where that binds).  A fixed number of ``rounds`` (each a full pass
    over ``ts``) moves a candidate that fails the proof to the true value and centre where it
    failed.
    """
    ts = np.asarray(ts, dtype=float)
    ts, first = np.unique(ts, return_index=True)
    if hints is not None:
        hints = np.asarray(hints, dtype=float)[first]
    bl, bh, p_lo, p_hi = mg.ball(ts)
    far_eps, far_end = far
    t_c, c_c = float(cand[0]), float(cand[1])

    def at(t, c):
        """The margin's enclosure of the kernel at ``(t, c)`` as a function of epsilon."""
        l1, h1, pl1, ph1 = mg.ball(np.array([t]))
        c = min(max(c, float(l1[0])), float(h1[0]))
        memo = {}

        def both(e):
            if e not in memo:
                m_lo, m_hi = mg.margin(e, side, l1, h1, np.array([c]), pl1, ph1)
                memo[e] = (float(m_lo[0]), float(m_hi[0]))
            return memo[e]

        return both, c

    def tighten(t, c, e):
        """The centre at ``t`` whose margin's upper bound is largest, and the room the proof
        needs: twice the gap between that centre's bound and the supremum's at ``t``."""
        l1, h1, pl1, ph1 = mg.ball(np.array([t]))
        val = mg.sup_over_centres(e, side, l1, h1, pl1, ph1, threshold=-np.inf, tol=room / 2,
                                  max_rounds=60, max_intervals=64, hints=np.array([c]))
        c_best = float(val["centre"][0])
        _, m_hi_c = mg.margin(e, side, l1, h1, np.array([c_best]), pl1, ph1)
        gap = float(val["upper"][0]) - float(m_hi_c[0])
        return c_best, max(room, 2 * gap + room) if math.isfinite(gap) else room

    # margins are of the size of delta (logit(p + delta) - logit(p) >= 4 delta): the least
    # room is 2e-13 of that
    room = 2e-13 * min(1.0, mg.delta)

    far_binds = far_end is not None and far_eps <= eps_est * (1 + 1e-12)
    # the proof needs a little room: it is sought where the candidate's margin is -eta
    # (eta grows eightfold whenever the branch and bound cannot settle within it)
    if far_binds:
        e_c = far_eps
        both, c_c = at(t_c, c_c)
        eta = room
    else:
        c_c, eta = tighten(t_c, c_c, eps_est)
        both, c_c = at(t_c, c_c)
        e_c, _ = secant_bracket(lambda e: both(e)[1] + eta, eps_est)
        if e_c is None:
            return Side(0.0, eps_est, t_c, c_c)
    if far_end is not None:
        e_c = min(e_c, far_eps)
    e_hi_known = math.inf
    polished = set()
    for _ in range(rounds):
        # a first, cheap pass settles the true values far from binding; the rest again from
        # their likely worst centres
        res = mg.sup_over_centres(e_c, side, bl, bh, p_lo, p_hi, threshold=0.0, max_rounds=3)
        rest = np.flatnonzero(res["upper"] > 0)
        if rest.size:
            again = mg.sup_over_centres(e_c, side, bl[rest], bh[rest], p_lo[rest], p_hi[rest],
                                        threshold=0.0, hints=None if hints is None else hints[rest])
            for key in ("upper", "lower", "centre", "settled"):
                res[key] = np.array(res[key], copy=True)
                res[key][rest] = again[key]
        j = int(np.argmax(res["upper"]))
        if res["upper"][j] <= 0:
            # every scanned true value is proven; where the estimate's climb ran on coarser
            # tables (``polish``), the two worst are polished in t once (a bounded Brent
            # search on the certified margins), and a better true value joins the scanned ones
            top = [] if not polish else [
                i for i in np.argsort(-res["upper"], kind="stable")[:2] if float(ts[i]) not in polished]
            found = None
            for i in top:
                polished.add(float(ts[i]))
                t_p, c_p, m_p = _polish_t(mg, side, e_c, ts, int(i), float(res["centre"][i]), room)
                if t_p is not None and m_p > 0 and (found is None or m_p > found[2]):
                    found = (t_p, c_p, m_p)
            if found is None:
                break
            t_m, c_m, _ = found
            k = int(np.searchsorted(ts, t_m))
            ts = np.insert(ts, k, t_m)
            if hints is not None:
                hints = np.insert(hints, k, c_m)
            bl, bh, p_lo, p_hi = mg.ball(ts)
            continue
        t_j = float(ts[j])
        if res["lower"][j] > 0:  # a kernel that exceeds delta at e_c: e_c is unsafe
            e_hi_known = min(e_hi_known, e_c)
            c_j = float(res["centre"][j])
        else:  # undecided: the bound is within its slack of 0 at t_j; more room
            c_j, eta_j = tighten(t_j, float(res["centre"][j]), e_c)
            eta = max(8 * eta, eta_j)
        t_c = t_j
        both, c_c = at(t_j, c_j)
        e_new, _ = secant_bracket(lambda e, both=both, eta=eta: both(e)[1] + eta, e_c)
        e_c = min(e_new if e_new is not None else 0.5 * e_c, np.nextafter(e_c, 0.0))
    else:
        raise ArithmeticError(
            f"the certification over the centres did not settle at epsilon {e_c!r} "
            f"({side} side, t={t_c!r}): the enclosures are too wide there")
    x_c = math.log(e_c)
    e_lo = math.exp(x_c)
    if far_end is not None:
        e_lo = min(e_lo, far_eps)  # exp(log(e)) may round above e
    if far_binds or (far_end is not None and e_lo >= far_eps):
        # the limit (rounded down) is safe; just above it the limit itself exceeds delta
        return Side(far_eps, far_eps * (1 + 64 * _U), far_end, None, far=True)
    _, e_w = secant_bracket(lambda e: both(e)[0], e_c, tol=1e-10)
    e_hi = min(e_w if e_w is not None else math.inf, e_hi_known)
    return Side(e_lo, e_hi, t_c, c_c)
