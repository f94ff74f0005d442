"""Floating-point devices shared by the formulas of :mod:`garesearch.bound` (not in the paper).

In float64 they are error-free transformations or forms that do not cancel; with mpmath and
sympy they are the plain expressions.  :mod:`garesearch.bound` re-exports them.
"""

from __future__ import annotations

import mpmath
import numpy as np

__all__ = ["log_share_formula", "rest_formula", "sqrt_product_formula"]


# --------------------------------------------------------------------------------------
def rest_formula(x, y, B):
    r""":math:`1 - x - y`, the mass outside two disjoint sets of masses ``x`` and ``y``.

    In float64 it keeps its relative accuracy (and its sign is exact) when ``x + y`` is
    close to 1: Knuth's TwoSum gives ``x + y = s + e`` exactly, :math:`1 - s` is exact for
    ``s`` in [1/2, 2] (Sterbenz), and :math:`(1 - s) - e` is rounded once; mpmath's
    ``fsum`` rounds the exact sum once.  Not in the
    paper: a floating-point device (``1 - p - delta`` of Sec. 3.2 computed as written loses
    every digit when ``p + delta`` rounds to 1).

    Examples
    --------
    >>> from garesearch._backend import NUMPY
    >>> x, y = 1 - 2**-30, 2**-31  # 1 - x - y = 2^-31 exactly
    >>> float(rest_formula(x, y, NUMPY)) == 2**-31
    True
    """
    if B.name == "mpmath":
        return mpmath.fsum((1, -x, -y))  # exact before its one rounding
    if B.name != "numpy":
        return 1 - x - y
    out = np.subtract(np.subtract(1.0, x), y)
    if out.ndim == 0:
        return _rest_exact(x, y) if out < 0.01 else out[()]
    if out.size and out.min() < 0.01:  # elsewhere (1 - x) - y is accurate to 1e-16 relative
        near = out < 0.01
        xs = x[near] if np.ndim(x) else x
        ys = y[near] if np.ndim(y) else y
        out[near] = _rest_exact(np.asarray(xs), np.asarray(ys))
    return out


def _rest_exact(x, y):
    """Float64 :math:`1 - x - y` through TwoSum (see :func:`rest_formula`)."""
    s = x + y
    t = s - x
    e = (x - (s - t)) + (y - t)  # x + y = s + e exactly
    return (1 - s) - e


def log_share_formula(q, p, B, rest=None):
    r""":math:`\ln\frac{q}{1-p}`, the first term of Eq. (main) in its log1p form.

    :math:`\ln q - \mathrm{log1p}(-p)`; where ``rest`` :math:`= 1 - p - q` is given (known more
    accurately than from ``p`` and ``q``: ``1 - q`` at the worst prior of Sec. 4.1) and ``q``
    holds most of the rest of the space, :math:`\mathrm{log1p}(-\mathrm{rest}/(1-p))`, which
    does not cancel.  Sympy: always the first form.

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> abs(float(log_share_formula(0.5, 0.2, NUMPY)) - math.log(0.5 / 0.8)) < 1e-15
    True
    """
    if rest is None or B.name == "sympy":
        return B.log(q) - B.log1p(-p)
    if B.name == "numpy":
        near = 2 * rest <= 1 - p
        return np.where(near, np.log1p(-np.where(near, rest, 0) / (1 - p)), np.log(q) - np.log1p(-p))
    return B.log1p(-rest / (1 - p)) if 2 * rest <= 1 - p else B.log(q) - B.log1p(-p)


def sqrt_product_formula(x, y, B):
    r""":math:`\sqrt{xy}`, in float64 as :math:`\sqrt x\sqrt y` (no underflow of ``x y``).

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> float(sqrt_product_formula(1e-200, 1e-200, NUMPY)) > 0, math.sqrt(1e-200 * 1e-200)
    (True, 0.0)
    """
    if B.name == "numpy":
        return np.sqrt(x) * np.sqrt(y)
    return B.sqrt(x * y)
