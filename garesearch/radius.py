r"""App. A: the optimal radius ``a`` for a uniform prior, and epsilon in closed form.

For a uniform prior in one dimension (:math:`\Pr[X'] = r/R`, comparison mass
:math:`(a-r)/R`) the posterior bound of Eq. (main) with exponent ``a`` is

.. math:: \Pr_{post}[X'] \le \frac{1}{1 + e^{-a\epsilon}(a-r)/r},

minimised at :math:`a = r + 1/\epsilon` (value :math:`1/(1+(e^{\epsilon r+1}\epsilon
r)^{-1})`).  Requiring it to be at most :math:`s = r/R + \delta` gives the Lambert-W closed
form :math:`\epsilon r = W(s/(e(1-s)))`.  In ``n`` dimensions (Eq. (multdim))
:math:`\Pr_{post}[X'] \le e^{a\epsilon}(r/a)^n`, minimised at :math:`a = n/\epsilon` with
value :math:`(\epsilon e r/n)^n`.  The derivations are proved in
:mod:`garesearch.derivations` (``optimal_radius_1d``, ``optimal_radius_ndim``,
``lambert_closed_form``); :func:`bruteforce_epsilon` checks the closed form by direct
numerical optimisation.
"""

from __future__ import annotations

import numpy as np

from . import bound
from ._backend import MPMATH, NUMPY
from .errors import ParameterError

__all__ = [
    "bruteforce_epsilon",
    "lambert_epsilon",
    "lambert_epsilon_formula",
    "optimal_radius_1d",
    "optimal_radius_ndim",
    "radius_posterior_bound_1d",
    "radius_posterior_bound_1d_formula",
    "radius_posterior_bound_ndim",
]


def _positive(name, value):
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a finite number > 0; got {value!r}") from None
    if not (np.all(np.isfinite(v)) and np.all(v > 0)):
        raise ParameterError(f"{name} must be a finite number > 0; got {value}")


def radius_posterior_bound_1d_formula(epsilon, r, a, B):
    r"""App. A, ``n = 1``, against a backend ``B``: :math:`1/(1 + e^{-a\epsilon}(a-r)/r)`
    (:func:`garesearch.bound.posterior_bound_formula` with ``p = r``, ``q = a - r``).

    Examples
    --------
    >>> from garesearch._backend import NUMPY
    >>> round(float(radius_posterior_bound_1d_formula(0.5, 1.0, 3.0, NUMPY)), 6)
    0.691438
    """
    return bound.posterior_bound_formula(epsilon, r, a - r, a, B)


def radius_posterior_bound_1d(epsilon, r, a):
    r"""App. A, ``n = 1``: :math:`1/(1 + e^{-a\epsilon}(a-r)/r)` for ``a > r`` (uniform prior:
    Eq. (main)'s bound with :math:`p \propto r`, :math:`q \propto a - r`).

    Examples
    --------
    >>> round(float(radius_posterior_bound_1d(0.5, 1.0, 3.0)), 6)
    0.691438
    """
    _positive("epsilon", epsilon)
    _positive("r", r)
    a = np.asarray(a, dtype=float)
    if np.any(a <= r):
        raise ParameterError(f"a must be > r = {r}; got {a}")
    return radius_posterior_bound_1d_formula(epsilon, r, a, NUMPY)


def optimal_radius_1d(epsilon, r):
    r"""App. A, ``n = 1``: the ``a`` minimising the bound, :math:`a = r + 1/\epsilon`.

    Examples
    --------
    >>> float(optimal_radius_1d(0.5, 1.0))
    3.0
    """
    _positive("epsilon", epsilon)
    _positive("r", r)
    return r + 1 / np.asarray(epsilon, dtype=float)


def radius_posterior_bound_ndim(epsilon, r, a, n: int):
    r"""App. A, Eq. (multdim): :math:`e^{a\epsilon}(r/a)^n`.

    Examples
    --------
    >>> round(float(radius_posterior_bound_ndim(0.5, 1.0, 6.0, 3)), 6)
    0.092989
    """
    _positive("epsilon", epsilon)
    _positive("r", r)
    _positive("a", a)
    if not (isinstance(n, int) and n >= 1):
        raise ParameterError(f"n must be an integer >= 1; got {n!r}")
    return np.exp(np.asarray(a, dtype=float) * epsilon) * (r / np.asarray(a, dtype=float)) ** n


def optimal_radius_ndim(epsilon, n: int):
    r"""App. A, Eq. (multdim): the ``a`` minimising :math:`e^{a\epsilon}(r/a)^n` is :math:`n/\epsilon`.

    Examples
    --------
    >>> float(optimal_radius_ndim(0.5, 3))
    6.0
    """
    _positive("epsilon", epsilon)
    if not (isinstance(n, int) and n >= 1):
        raise ParameterError(f"n must be an integer >= 1; got {n!r}")
    return n / np.asarray(epsilon, dtype=float)


def _target(r, R, delta):
    _positive("r", r)
    _positive("R", R)
    _positive("delta", delta)
    s = float(r) / float(R) + float(delta)
    if not s < 1:
        raise ParameterError(f"r/R + delta must be < 1 (else every epsilon works); got {s}")
    return s


def lambert_epsilon_formula(r, R, delta, B):
    r"""App. A, against a backend ``B``: :math:`W(s/(e(1-s)))/r`, :math:`s = r/R + \delta`
    (principal branch).

    Examples
    --------
    >>> from garesearch._backend import NUMPY
    >>> round(float(lambert_epsilon_formula(1.0, 10.0, 0.1, NUMPY)), 6)
    0.084516
    """
    s = r / R + delta
    return B.lambertw(s / (B.e * (1 - s))) / r


def lambert_epsilon(*, r, R, delta, dps: int | None = None):
    r"""App. A: :math:`\epsilon = W\!\left(\frac{s}{e(1-s)}\right)/r`, :math:`s = r/R + \delta`.

    Uses :func:`scipy.special.lambertw` (``dps=None``) or :func:`mpmath.lambertw`.

    Examples
    --------
    >>> round(lambert_epsilon(r=1, R=10, delta=0.1), 6)
    0.084516
    """
    _target(r, R, delta)
    if dps is None:
        return float(lambert_epsilon_formula(r, R, delta, NUMPY))
    import mpmath

    with mpmath.workdps(dps):
        return lambert_epsilon_formula(mpmath.mpf(r), R, mpmath.mpf(delta), MPMATH)


def bruteforce_epsilon(*, r, R, delta, n_grid: int = 2001):
    r"""The largest epsilon whose best radius keeps the bound at most :math:`r/R+\delta`,
    found numerically (no calculus): for each epsilon the bound is minimised over ``a`` on a
    log-spaced grid refined by bounded Brent, and epsilon is found by Brent's root finder.
    Independent check of :func:`lambert_epsilon`.

    Examples
    --------
    >>> abs(bruteforce_epsilon(r=1, R=10, delta=0.1) - lambert_epsilon(r=1, R=10, delta=0.1)) < 1e-12
    True
    """
    from scipy.optimize import brentq, minimize_scalar

    s = _target(r, R, delta)

    def best_bound(eps):
        a_grid = r + np.geomspace(1e-6, 1e3, n_grid) / eps
        vals = radius_posterior_bound_1d(eps, r, a_grid)
        i = int(np.argmin(vals))
        lo, hi = a_grid[max(i - 1, 0)], a_grid[min(i + 1, n_grid - 1)]
        res = minimize_scalar(
            lambda a: float(radius_posterior_bound_1d(eps, r, a)), bounds=(lo, hi),
            method="bounded", options={"xatol": 1e-12 * hi},
        )
        return min(float(res.fun), float(vals[i]))

    hi = 1.0 / r
    while best_bound(hi) < s:
        hi *= 2
    lo = hi / 2
    while best_bound(lo) > s:
        lo /= 2
    return brentq(lambda e: best_bound(e) - s, lo, hi, xtol=1e-14, rtol=1e-13)
