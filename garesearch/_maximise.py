"""The one-dimensional search over comparison sets of Sec. 4.1: a global maximum on an interval.

:mod:`garesearch.attribute` (one attribute) and :mod:`garesearch.constructions.comparison_sets` (AND / OR
goals) both maximise Eq. (main)'s epsilon over a radius this way; it sits below both, so that
neither imports the other to reach it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GRID_U", "maximise"]

# the search grid of :func:`maximise`: 0 and 96 log-spaced points on [1e-7, 1]
GRID_U = np.concatenate([[0.0], np.geomspace(1e-7, 1.0, 96)])


def maximise(fun, lo, hi, n=97, fun1=None, xs=None):
    """Global maximum of a 1-d function on [lo, hi]: bracket on a grid, refine with Brent
    (the search over comparison sets of Sec. 4.1; returns ``(x, value)``, ``(None, -inf)``
    where the function has no finite value).

    ``fun`` takes an array; ``fun1``, if given, is the same function of one float (it only
    saves the cost of wrapping every point of the refinement in an array); ``xs``, if given,
    is the grid (increasing, from ``lo`` to ``hi``).

    Examples
    --------
    >>> x, v = maximise(lambda x: -(x - 0.3) ** 2, 0.0, 1.0)
    >>> round(x, 6), abs(round(v, 12))
    (0.3, 0.0)
    """
    from scipy.optimize import minimize_scalar

    if xs is None:
        u = GRID_U if n == GRID_U.size else np.concatenate([[0.0], np.geomspace(1e-7, 1.0, n - 1)])
        xs = lo + (hi - lo) * u
    n = xs.size
    ys = fun(xs)
    if not np.any(np.isfinite(ys) & (ys > -np.inf)):
        return None, -np.inf
    i = int(np.nanargmax(np.where(np.isnan(ys), -np.inf, ys)))
    if np.isinf(ys[i]) and ys[i] > 0:
        return xs[i], ys[i]
    a, b = xs[max(i - 1, 0)], xs[min(i + 1, n - 1)]
    if b <= a:
        return xs[i], ys[i]
    if fun1 is None:
        def neg(x):
            return -float(fun(np.array([x]))[0])
    else:
        def neg(x):
            return -float(fun1(x))
    res = minimize_scalar(
        neg, bounds=(a, b), method="bounded", options={"xatol": 1e-13 * max(abs(b), 1.0)}
    )
    if -res.fun >= ys[i]:
        return float(res.x), float(-res.fun)
    return float(xs[i]), float(ys[i])
