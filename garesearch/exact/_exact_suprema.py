r"""The suprema of :mod:`garesearch.exact.core`: the posterior of :math:`X'` over the outputs
``y`` (in closed form for Laplace noise, else on a grid refined around its extremes), and the
worst true value ``t`` (Sec. 3.2, Def. 7; :mod:`garesearch.exact` derives the limits and the
unimodality used here).
"""

from __future__ import annotations

import math

import numpy as np

from ..mechanisms import Laplace
from ._exact_problem import _Problem
from .integrals import Atoms


# ------------------------------------------------------------------------------------------
# Suprema over outputs.
# ------------------------------------------------------------------------------------------
def _post(integ, ys, sets):
    ys = np.asarray(ys, float)
    log_posterior = getattr(integ, "log_posterior", None)
    if log_posterior is not None:  # stable far from the support (Segments)
        return np.exp(log_posterior(ys, sets))
    return np.exp(integ.log_mass(ys, sets) - integ.log_total(ys)[:, None])


def _y_grid(pb: _Problem):
    integ = pb.integ
    if isinstance(integ, Atoms):
        if integ.exact_laplace and isinstance(integ.mech, Laplace):
            return np.unique(integ.s), True
        return integ.y_grid(pb.scale), False
    u = np.concatenate([[1e-12, 1e-9, 1e-6], np.linspace(1e-4, 1 - 1e-4, 81), [1 - 1e-6, 1 - 1e-9, 1 - 1e-12]])
    q = np.asarray(integ.quantile(u), float)
    lo, hi = q[0], q[-1]
    ext = pb.scale * np.geomspace(0.01, 60.0, 24)
    ts = np.asarray(pb.ts, float) if not pb.finite else np.empty(0)
    dense = np.linspace(lo - 3 * pb.scale, hi + 3 * pb.scale, 121)
    return np.unique(np.concatenate([q, lo - ext, hi + ext, dense, ts])), False


def _laplace_closed(pb: _Problem) -> bool:
    """Laplace noise on a prior whose tilted masses have closed forms (Normal, piecewise uniform)."""
    return isinstance(pb.integ.mech, Laplace) and hasattr(pb.integ, "log_tilt")


def _laplace_argmax(integ, lo, hi, tol=1e-10):
    r"""The output maximising the Laplace posterior of :math:`[lo, hi]`, per set (1-d arrays).

    With :math:`k = 1/b`, :math:`l, h` the ends of :math:`X'` cut to the support and
    :math:`C(y) = \int_{[l, y]} e^{kx} d\pi`, :math:`E(y) = \int_{(y, h]} e^{-kx} d\pi`,
    :math:`B_+ = \int_{x < l} e^{kx} d\pi`, :math:`B_- = \int_{x > h} e^{-kx} d\pi`, the
    posterior is :math:`1/(1 + O/N)` with :math:`O = e^{-ky} B_+ + e^{ky} B_-` on
    :math:`[l, h]`, and :math:`O'N - ON' = 2k(B_- C(y) - B_+ E(y))`, increasing in ``y``.  The
    maximiser is the root of :math:`\ln C + \ln B_- = \ln E + \ln B_+` in :math:`[l, h]`
    (``l`` if :math:`B_+ = 0`, ``h`` if :math:`B_- = 0`), found for all sets at once by the
    Illinois variant of regula falsi on that increasing function (bisection while an end of
    the bracket is infinite) until the bracket is below ``tol`` noise scales: the posterior is
    stationary at the root, so its value there is exact to rounding.
    """
    low, high = integ.support
    lo_c, hi_c = np.maximum(lo, low), np.minimum(hi, high)
    c = np.where(hi_c >= lo_c, (lo_c + hi_c) / 2, lo_c)  # keeps the tilts in range
    inf = np.full(lo_c.shape, np.inf)
    b_plus = integ.log_tilt(+1, -inf, lo_c, c)
    b_minus = integ.log_tilt(-1, hi_c, inf, c)
    a, z = lo_c.copy(), np.maximum(hi_c, lo_c)
    ga, gz = np.full(a.shape, -np.inf), np.full(a.shape, np.inf)
    last = np.zeros(a.shape, dtype=int)  # which end moved last (-1: a, +1: z)
    step = tol / integ.rate
    tails = getattr(integ, "log_tails", None)
    if tails is not None:  # C and E from one tail each per step (the ends' tails once)
        c_end, e_end = tails(lo_c, hi_c, c)

    def G(x, i):
        with np.errstate(invalid="ignore"):
            if tails is None:
                log_c = integ.log_tilt(+1, lo_c[i], x, c[i])
                log_e = integ.log_tilt(-1, x, hi_c[i], c[i])
            else:
                log_c, log_e = tails(x, x, c[i], c_end[i], e_end[i])
            g = log_c + b_minus[i] - log_e - b_plus[i]
        g = np.where(b_plus[i] == -np.inf, np.inf, np.where(b_minus[i] == -np.inf, -np.inf, g))
        return np.where(np.isnan(g), -np.inf, g)  # nan counts left of the root, as -inf

    for _ in range(400):
        act = np.flatnonzero(z - a > step)
        if act.size == 0:
            break
        aa, zz, fa, fz = a[act], z[act], ga[act], gz[act]
        with np.errstate(invalid="ignore", over="ignore"):
            x = zz - fz * (zz - aa) / (fz - fa)
        mid = 0.5 * (aa + zz)
        x = np.where(np.isfinite(fa) & np.isfinite(fz) & (x > aa) & (x < zz), x, mid)
        gx = G(x, act)
        left = ~(gx > 0)
        hit = gx == 0
        # Illinois: an end kept twice in a row has its value halved
        keep_z = left & (last[act] == -1)
        keep_a = ~left & (last[act] == 1)
        gz[act] = np.where(left, np.where(keep_z, 0.5 * fz, fz), gx)
        ga[act] = np.where(left, gx, np.where(keep_a, 0.5 * fa, fa))
        a[act] = np.where(left, x, aa)
        z[act] = np.where(left, zz, x)
        last[act] = np.where(left, -1, 1)
        a[act] = np.where(hit, x, a[act])
        z[act] = np.where(hit, x, z[act])
    return (a + z) / 2, lo_c, hi_c


def _laplace_extremes(integ, sets, tol=1e-10):
    r"""Exact (sup, y at sup, inf, y at inf) of the Laplace posterior of each interval set.

    The posterior increases for :math:`y \le l`, has one maximum in :math:`[l, h]`
    (:func:`_laplace_argmax`) and decreases for :math:`y \ge h`: its supremum is at the
    maximiser (the value is checked against the ends ``l`` and ``h``) and its infimum is one of
    the limits :math:`y \to \pm\infty`.
    """
    lo, hi = (np.asarray(v, float) for v in sets)
    y, lo_c, hi_c = _laplace_argmax(integ, lo, hi, tol)
    cand_y = np.stack([y, lo_c, hi_c])
    with np.errstate(invalid="ignore"):
        lp = np.stack([integ.log_mass_pairs(v, lo, hi) - integ.log_total(v) for v in cand_y])
    lp = np.where(np.isnan(lp), -np.inf, lp)
    j = np.argmax(lp, axis=0)
    cols = np.arange(lo.size)
    sup, ysup = np.exp(lp[j, cols]), cand_y[j, cols]
    lim_m, lim_p = integ.limit(-1, sets), integ.limit(+1, sets)
    inf = np.minimum(lim_m, lim_p)
    yinf = np.where(lim_m <= lim_p, -np.inf, np.inf)
    return sup, ysup, inf, yinf


def _extremes(pb: _Problem, sets, p):
    """Grid suprema: (sup post, y at sup, inf post, y at inf) per set, limits included."""
    ys, exact = _y_grid(pb)
    post = _post(pb.integ, ys, sets)
    lim_m, lim_p = pb.integ.limit(-1, sets), pb.integ.limit(+1, sets)
    allp = np.vstack([lim_m[None, :], post, lim_p[None, :]])
    ally = np.concatenate([[-np.inf], ys, [np.inf]])
    i_sup, i_inf = np.argmax(allp, axis=0), np.argmin(allp, axis=0)
    cols = np.arange(allp.shape[1])
    return allp[i_sup, cols], ally[i_sup], allp[i_inf, cols], ally[i_inf], ys, exact


def _refine_y(pb, one_set, ys, y0, sign):
    """Refine a grid extremum of the posterior in y (sign=+1: sup, -1: inf) with Brent's method."""
    from scipy.optimize import minimize_scalar

    if not np.isfinite(y0):
        return None
    j = int(np.searchsorted(ys, y0))
    a, b = ys[max(j - 1, 0)], ys[min(j + 1, ys.size - 1)]
    if not b > a:
        return None

    def f(y):
        v = float(_post(pb.integ, np.array([y]), one_set)[0, 0])
        return -sign * (v if math.isfinite(v) else (0.0 if sign > 0 else 1.0))

    res = minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": 1e-8 * abs(b - a)})
    return float(res.x), -sign * float(res.fun)


def _side_value(upper, lower, sides):
    if sides == "upper":
        return upper
    if sides == "lower":
        return lower
    return np.maximum(upper, lower)


def _evaluate_t(pb, sets, p, sides, refine=True):
    if _laplace_closed(pb):
        # refine=False: the maximiser to 1e-4 noise scales (its posterior exact to about
        # 1e-8: the maximum is flat), enough to rank the true values
        sup, ysup, inf, yinf = _laplace_extremes(pb.integ, sets, 1e-7 if refine else 1e-4)
        return sup - p, p - inf, ysup, yinf, sup, inf
    sup, ysup, inf, yinf, ys, exact = _extremes(pb, sets, p)
    if refine and not exact:
        for k in range(len(p)):
            one = sets[k:k + 1] if pb.finite else (sets[0][k:k + 1], sets[1][k:k + 1])
            r_sup = _refine_y(pb, one, ys, ysup[k], +1)
            if r_sup and r_sup[1] > sup[k]:
                ysup[k], sup[k] = r_sup
            r_inf = _refine_y(pb, one, ys, yinf[k], -1)
            if r_inf and r_inf[1] < inf[k]:
                yinf[k], inf[k] = r_inf
    upper, lower = sup - p, p - inf
    return upper, lower, ysup, yinf, sup, inf


def _advantage(pb: _Problem, eps, sides, refine=True):
    """Worst true value: (index or refined t, ExactAdvantage fields)."""
    first = _evaluate_t(pb, pb.sets, pb.p, sides, refine=False)
    val = _side_value(first[0], first[1], sides)
    order = np.argsort(-val)
    top = order[: (3 if refine else 1)]
    sets, p, ts = pb.subset(top)
    res = _evaluate_t(pb, sets, p, sides, refine=refine)
    val2 = _side_value(res[0], res[1], sides)
    k = int(np.argmax(val2))
    best = dict(t=ts[k], upper=res[0][k], lower=res[1][k], y_upper=res[2][k], y_lower=res[3][k],
                sup=res[4][k], inf=res[5][k], p=float(p[k]))
    if refine and pb.continuous_t:
        best = _refine_t(pb, eps, sides, best)
    if pb.far is not None and sides != "lower":
        lim, end = pb.far()
        if end is not None and lim > _side_value(best["upper"], best["lower"], sides):
            best = dict(t=end, upper=lim, lower=0.0, y_upper=end, y_lower=end, sup=lim, inf=0.0, p=0.0)
    return best


def _refine_t(pb, eps, sides, best):
    from scipy.optimize import minimize_scalar

    ts = np.asarray(pb.ts, float)
    j = int(np.searchsorted(ts, best["t"]))
    a, b = ts[max(j - 1, 0)], ts[min(j + 1, ts.size - 1)]
    if not b > a:
        return best
    if _laplace_closed(pb):
        return _zoom_t(pb, sides, a, b, best)
    cache = {}

    def f(tt):
        sets = pb.make_set(float(tt))
        p = pb.integ.prior_mass(sets)
        res = _evaluate_t(pb, sets, p, sides, refine=True)
        cache[float(tt)] = (res, float(p[0]))
        return -float(_side_value(res[0], res[1], sides)[0])

    opt = minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": 1e-5 * abs(b - a)})
    if -opt.fun > _side_value(best["upper"], best["lower"], sides):
        res, p = cache[float(opt.x)]
        best = dict(t=float(opt.x), upper=res[0][0], lower=res[1][0], y_upper=res[2][0],
                    y_lower=res[3][0], sup=res[4][0], inf=res[5][0], p=p)
    return best


def _zoom_t(pb, sides, a, b, best, points=33, rounds=4):
    """:func:`_refine_t` for the closed-form Laplace extremes, vectorised: the best of
    ``points`` true values in ``[a, b]`` (ranked by the extremes to 1e-4 noise scales), then
    the same around it, ``rounds`` times (the bracket shrinks 16-fold per round; the maximum
    is flat, so its value is exact to rounding long before the bracket is); the winner is
    evaluated exactly."""
    for _ in range(rounds):
        tt = np.linspace(a, b, points)
        parts = [pb.make_set(float(v)) for v in tt]
        sets = (np.concatenate([s[0] for s in parts]), np.concatenate([s[1] for s in parts]))
        res = _evaluate_t(pb, sets, pb.integ.prior_mass(sets), sides, refine=False)
        val = _side_value(res[0], res[1], sides)
        k = int(np.argmax(np.where(np.isnan(val), -np.inf, val)))
        a, b = tt[max(k - 1, 0)], tt[min(k + 1, points - 1)]
    t = float(tt[k])
    sets = pb.make_set(t)
    p = pb.integ.prior_mass(sets)
    res = _evaluate_t(pb, sets, p, sides)
    if _side_value(res[0], res[1], sides)[0] > _side_value(best["upper"], best["lower"], sides):
        best = dict(t=t, upper=res[0][0], lower=res[1][0], y_upper=res[2][0], y_lower=res[3][0],
                    sup=res[4][0], inf=res[5][0], p=float(p[0]))
    return best
