"""A bracket around the crossing of a monotone function, narrowed from the sound side.

The searches for the largest safe epsilon (:mod:`garesearch.pointwise`,
:mod:`garesearch.exact_core`) and the smallest safe noise scale (:mod:`garesearch.calibration`)
end the same way: a bracket whose one end is known to meet the target and whose other end is
known to miss it is narrowed by Brent's method, every evaluation moving the end it belongs to,
and bisected where Brent's last step leaves one side wide.  The caller returns the end that
meets the target, so the answer is sound whatever the rounding of the last steps.
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["narrow_bracket"]

_BIG = 1e300  # stands for an infinite value in Brent's method
_RTOL_MIN = 4 * 2.220446049250313e-16  # the smallest relative tolerance scipy's brentq accepts


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
