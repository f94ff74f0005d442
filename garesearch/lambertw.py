r"""App. A: the paper's iteration for Lambert's W, compared with Newton's and Halley's.

The paper (App. A) computes :math:`W(y)` with

.. math::  w_0 = 1, \qquad
   w_{n+1} = w_{n-1} - \frac{w_{n-1} e^{w_n} - y}{(w_n + 1) e^{w_n}},

which mixes the indices ``n`` and ``n-1`` (Newton's method has :math:`w_n` everywhere) and
so needs two starting values; the paper gives only :math:`w_0`.  Here :math:`w_{-1} = w_0`,
so the first step is a Newton step.  Its fixed point is :math:`W(y)`; linearising,
:math:`e_{n+1} = -c\,e_n + c\,e_{n-1}` with :math:`c = W/(W+1)`, which converges (linearly)
iff :math:`-1/2 < W(y) < 1`, i.e. :math:`-e^{-1/2}/2 < y < e`
(:func:`garesearch.derivations.lambert_w_paper_iteration` proves this).  That is local
convergence: started from :math:`w_0 = 1`, the iterates escape for ``y`` near the ends of
the interval (``y = -0.3`` diverges, though a start close to :math:`W(y)` converges).

The three iterations below are hand-written ONLY to examine the paper's method.  To
compute W use :func:`scipy.special.lambertw` (take ``.real``) or :func:`mpmath.lambertw`.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath

from ._args import renamed_keywords
from .errors import ParameterError

__all__ = [
    "METHODS",
    "convergence_interval",
    "convergence_table",
    "iterations_to_tolerance",
    "lambertw_errors",
    "lambertw_iterates",
    "paper_iteration_rate",
]

METHODS = ("paper", "newton", "halley")


def _paper_step(w_prev, w_cur, y, exp):
    """One step of the paper's recurrence (hand-written to examine it)."""
    ew = exp(w_cur)
    return w_prev - (w_prev * ew - y) / ((w_cur + 1) * ew)


def _newton_step(w, y, exp):
    r"""Newton's method for :math:`we^w - y = 0` (hand-written for comparison)."""
    ew = exp(w)
    return w - (w * ew - y) / ((w + 1) * ew)


def _halley_step(w, y, exp):
    r"""Halley's method for :math:`we^w - y = 0` (hand-written for comparison)."""
    ew = exp(w)
    f = w * ew - y
    return w - f / (ew * (w + 1) - (w + 2) * f / (2 * w + 2))


def _check(y, method, maxiter):
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS}; got {method!r}")
    if not (isinstance(maxiter, int) and maxiter >= 1):
        raise ParameterError(f"maxiter must be an integer >= 1; got {maxiter!r}")
    if not y >= -1 / math.e:
        raise ParameterError(f"y must be >= -1/e = -0.36788 (real W exists); got {y}")


def lambertw_iterates(
    y, method: str = "paper", *, w0=1.0, w1=None, maxiter: int = 60, dps: int | None = None
) -> list[Any]:
    r"""Iterates :math:`w_0, w_1, \ldots` of the paper's, Newton's or Halley's method for
    :math:`W(y)` (App. A).  Hand-written only to examine the paper's method.

    Parameters
    ----------
    y : float
        Argument, ``y >= -1/e``.
    method : {"paper", "newton", "halley"}
    w0 : float
        Starting value (the paper's :math:`w_0 = 1`).
    w1 : float, optional
        Second starting value for the paper's two-step recurrence; default: one Newton step
        from ``w0`` (i.e. :math:`w_{-1} = w_0`).
    maxiter : int
        Number of steps.
    dps : int, optional
        Iterate in mpmath at this many digits (default: float64).

    Returns
    -------
    list
        ``maxiter + 1`` iterates (fewer if an iterate overflows or becomes NaN: the list
        then ends with that non-finite value).

    Examples
    --------
    >>> round(lambertw_iterates(1.0, "newton", maxiter=5)[-1], 12)   # W(1), the omega constant
    0.56714329041
    """
    _check(float(y), method, maxiter)
    ctx = mpmath.workdps(dps) if dps is not None else _nullcontext()
    with ctx:
        if dps is None:
            exp, num = math.exp, float
        else:
            exp, num = mpmath.exp, mpmath.mpf
        y = num(y)
        ws = [num(w0)]
        try:
            if method == "paper":
                ws.append(num(w1) if w1 is not None else _newton_step(ws[0], y, exp))
                while len(ws) <= maxiter:
                    ws.append(_paper_step(ws[-2], ws[-1], y, exp))
                    if not _finite(ws[-1]):
                        break
            else:
                step = _newton_step if method == "newton" else _halley_step
                while len(ws) <= maxiter:
                    ws.append(step(ws[-1], y, exp))
                    if not _finite(ws[-1]):
                        break
        except (OverflowError, ZeroDivisionError):
            ws.append(num("inf") if dps is not None else math.inf)
        return ws[: maxiter + 1]


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _finite(w):
    return math.isfinite(w) if isinstance(w, float) else mpmath.isfinite(w)


def _reference(y, dps):
    with mpmath.workdps(dps):
        return mpmath.re(mpmath.lambertw(mpmath.mpf(y)))


def lambertw_errors(y, method: str = "paper", *, maxiter: int = 60, dps: int = 50, **kw) -> list:
    """Absolute errors :math:`|w_n - W(y)|` against :func:`mpmath.lambertw` (``dps`` digits).

    Examples
    --------
    >>> float(lambertw_errors(1.0, "halley", maxiter=3)[-1]) < 1e-15
    True
    """
    ws = lambertw_iterates(y, method, maxiter=maxiter, dps=dps, **kw)
    with mpmath.workdps(dps):
        ref = _reference(y, dps)
        return [abs(w - ref) if mpmath.isfinite(w) else mpmath.inf for w in ws]


@renamed_keywords(tol="atol")
def iterations_to_tolerance(
    y, method: str = "paper", *, atol: float = 1e-15, maxiter: int = 200, dps: int = 50, **kw
) -> int | None:
    """The first ``n`` with :math:`|w_n - W(y)| < atol` (``None`` if not within ``maxiter``;
    ``tol=``, the old name of ``atol``, is deprecated).

    Examples
    --------
    >>> iterations_to_tolerance(1.0, "newton"), iterations_to_tolerance(1.0, "paper")
    (5, 151)
    """
    errs = lambertw_errors(y, method, maxiter=maxiter, dps=dps, **kw)
    for n, e in enumerate(errs):
        if e < atol:
            return n
    return None


def convergence_interval() -> tuple[float, float]:
    r"""The ``y`` for which the paper's iteration converges: :math:`(-e^{-1/2}/2,\ e)`,
    i.e. :math:`-1/2 < W(y) < 1`.

    Examples
    --------
    >>> [round(v, 5) for v in convergence_interval()]
    [-0.30327, 2.71828]
    """
    return (-math.exp(-0.5) / 2, math.e)


def paper_iteration_rate(y) -> float:
    r"""Predicted linear rate of the paper's iteration at ``y``: the spectral radius of
    :math:`e_{n+1} = -c e_n + c e_{n-1}`, :math:`c = W(y)/(W(y)+1)`, i.e. the largest
    :math:`|\lambda|` with :math:`\lambda^2 + c\lambda - c = 0` (< 1 iff it converges).

    Examples
    --------
    >>> round(paper_iteration_rate(1.0), 4)   # < 1: linear convergence
    0.8092
    """
    with mpmath.workdps(30):
        w = _reference(y, 30)
        c = w / (w + 1)
        disc = mpmath.sqrt(mpmath.mpc(c * c + 4 * c))
        roots = ((-c + disc) / 2, (-c - disc) / 2)
        return float(max(abs(z) for z in roots))


def _observed_rate(errs):
    """Geometric-mean ratio of successive errors over the linear phase (1e-3 > e > 1e-30)."""
    idx = [n for n, e in enumerate(errs) if mpmath.mpf("1e-30") < e < mpmath.mpf("1e-3")]
    if len(idx) < 3:
        return None
    n0, n1 = idx[0], idx[-1]
    return float((errs[n1] / errs[n0]) ** (mpmath.mpf(1) / (n1 - n0)))


def _observed_order(errs):
    """Estimated order log e_{n+1} / log e_n over steps with 1e-2 > e_n and e_{n+1} > 1e-45."""
    orders = [
        float(mpmath.log(errs[n + 1]) / mpmath.log(errs[n]))
        for n in range(len(errs) - 1)
        if mpmath.mpf("1e-45") < errs[n + 1] and errs[n] < mpmath.mpf("1e-2")
    ]
    return orders[-1] if orders else None


@renamed_keywords(tol="atol")
def convergence_table(
    ys=(-0.3, -0.2, 0.1, 0.5, 1.0, 2.0, 2.7, 3.0, 10.0),
    *,
    atol: float = 1e-15,
    maxiter: int = 200,
    dps: int = 50,
) -> list[dict[str, Any]]:
    """For each ``y``: iterations to ``atol`` (an absolute error) for the paper's, Newton's and
    Halley's methods, the paper's predicted and observed linear rates, Newton's and Halley's
    observed orders, and the agreement of :func:`scipy.special.lambertw` with
    :func:`mpmath.lambertw` (``tol=``, the old name of ``atol``, is deprecated).

    Returns
    -------
    list of dict
        Keys ``y``, ``W``, ``scipy_abs_error``, ``inside_interval``, ``paper_iterations``,
        ``newton_iterations``, ``halley_iterations``, ``paper_rate_predicted``,
        ``paper_rate_observed``, ``newton_order``, ``halley_order``.

    Examples
    --------
    >>> row = convergence_table([1.0], maxiter=60)[0]
    >>> row["newton_iterations"], row["halley_iterations"], row["inside_interval"]
    (5, 3, True)
    """
    from scipy.special import lambertw as sc_lambertw

    lo, hi = convergence_interval()
    rows = []
    for y in ys:
        errs = {m: lambertw_errors(y, m, maxiter=maxiter, dps=dps) for m in METHODS}
        ref = _reference(y, dps)
        first = {m: next((n for n, e in enumerate(errs[m]) if e < atol), None) for m in METHODS}
        rows.append(
            {
                "y": y,
                "W": float(ref),
                "scipy_abs_error": abs(float(sc_lambertw(y).real) - float(ref)),
                "inside_interval": lo < y < hi,
                "paper_iterations": first["paper"],
                "newton_iterations": first["newton"],
                "halley_iterations": first["halley"],
                "paper_rate_predicted": paper_iteration_rate(y),
                "paper_rate_observed": _observed_rate(errs["paper"]),
                "newton_order": _observed_order(errs["newton"]),
                "halley_order": _observed_order(errs["halley"]),
            }
        )
    return rows
