"""The mpmath references of :mod:`garesearch.app.bench`: Eq. (main) for a normal prior at high
precision, and the float64 path of Sec. 3.2 measured against the mpmath path.

Imported from :mod:`garesearch.app.bench`, whose docstring lists the measurements and their targets.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np


def _normal_mass_mp(mu, sigma, lo, hi):
    """Pr[lo <= X <= hi] for X ~ N(mu, sigma^2), from mpmath.erf at the working precision."""
    s = mpmath.sqrt(2) * sigma
    return (mpmath.erf((hi - mu) / s) - mpmath.erf((lo - mu) / s)) / 2


def _eps_upper_mp(mu, sigma, t, r, delta, D, cut_lo, cut_hi):
    """Eq. (main) at distance ``D`` (sound construction, X' = [t-r, t+r]), mpmath.

    The comparison set is every point within ``D`` of all of X' (cut at the search's
    ends), outside X': ``[max(t+r-D, cut_lo), t-r)`` and ``(t+r, min(t-r+D, cut_hi)]``.
    """
    lo, hi = t - r, t + r
    p = _normal_mass_mp(mu, sigma, lo, hi)
    q = _normal_mass_mp(mu, sigma, max(hi - D, cut_lo), lo)
    q += _normal_mass_mp(mu, sigma, hi, min(lo + D, cut_hi))
    if not q > 0:
        return -mpmath.inf
    return (mpmath.log(q / (1 - p)) + mpmath.log1p(delta / p) + mpmath.log1p(delta / (1 - p - delta))) / D


def float_vs_mp_error(n_p: int = 60, n_delta: int = 40, dps: int = 50) -> dict[str, float]:
    """Largest relative difference of the float64 path from the mpmath path.

    ``p`` log-spaced towards 0 and towards 1 (1e-12 ... 0.5 ... 1 - 1e-12), ``delta``
    log-spaced in [1e-9, 0.9].  ``float_vs_mp_max_rel_err``: the default call, both sides
    of Sec. 3.2 (``q=None``).  ``float_vs_mp_max_rel_err_q``: Eq. (main) with
    ``q = (1 - p)/2`` (NaN where infeasible); there epsilon passes through 0 at the edge of
    feasibility, where the sum of logarithms cancels and a relative error of the float path
    grows like 1e-16 / epsilon.  Both paths get the same float64 inputs; an infinity or NaN
    on one path and not the other counts as an infinite error.

    Examples
    --------
    >>> float_vs_mp_error(n_p=3, n_delta=3)["float_vs_mp_max_rel_err"] < 1e-14
    True
    """
    from ..bound import epsilon_for_advantage

    half = np.geomspace(1e-12, 0.5, n_p // 2)
    ps = np.unique(np.concatenate([half, 1 - half]))
    deltas = np.geomspace(1e-9, 0.9, n_delta)
    P, Dl = (x.ravel() for x in np.meshgrid(ps, deltas))
    out: dict[str, float] = {}
    for key, q in (("float_vs_mp_max_rel_err", None), ("float_vs_mp_max_rel_err_q", (1 - P) / 2)):
        kw = {} if q is None else {"q": q, "infeasible": "nan"}
        fast = np.asarray(epsilon_for_advantage(delta=Dl, p=P, **kw))
        worst = 0.0
        for k in range(P.size):
            kwk = {} if q is None else {"q": float(q[k]), "infeasible": "nan"}
            exact = epsilon_for_advantage(delta=float(Dl[k]), p=float(P[k]), dps=dps, **kwk)
            f = fast[k]
            if mpmath.isnan(exact) or mpmath.isinf(exact):
                same = (np.isnan(f) and mpmath.isnan(exact)) or (np.isinf(f) and mpmath.isinf(exact))
                worst = worst if same else math.inf
            elif not np.isfinite(f):
                worst = math.inf
            else:
                worst = max(worst, float(abs(mpmath.mpf(float(f)) - exact) / abs(exact)))
        out[key] = worst
    out["float_vs_mp_points"] = int(P.size)
    return out
