r"""The closed forms of :mod:`garesearch.noise`: for each standard noise (scale 1, App. A.1) the
mass :math:`P(a)` of :math:`[-a, a]`, its inverse, the density and the density's inverse, each
written once against a backend ``B`` (numpy, mpmath or sympy), and the generalised Cauchy
inverse by Newton's method.  :mod:`garesearch.noise`'s docstring derives them.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from ._args import renamed_keywords
from ._backend import NUMPY, Backend

_SQRT2 = math.sqrt(2.0)


# --------------------------------------------------------------------------------------
# Functions the shared backend does not carry (atan2, erfinv), picked by backend name.
# --------------------------------------------------------------------------------------
def _atan2(B: Backend):
    if B.name == "numpy":
        return np.arctan2
    if B.name == "mpmath":
        return mpmath.atan2
    import sympy as sp

    return sp.atan2


def _tail_hyp2f1(B: Backend):
    """:math:`z \\mapsto {}_2F_1(1, 3/4; 7/4; z)` in the backend's precision."""
    if B.name == "numpy":
        from scipy.special import hyp2f1

        return lambda z: hyp2f1(1.0, 0.75, 1.75, z)
    if B.name == "mpmath":
        return lambda z: mpmath.hyp2f1(1, 0.75, 1.75, z)
    import sympy as sp

    return lambda z: sp.hyper([1, sp.Rational(3, 4)], [sp.Rational(7, 4)], z)


def _erfinv(B: Backend):
    if B.name == "numpy":
        from scipy.special import erfinv

        return erfinv
    if B.name == "mpmath":
        return mpmath.erfinv
    import sympy as sp

    return sp.erfinv


# --------------------------------------------------------------------------------------
# Formulas of the standard noise (scale 1), written once.
# --------------------------------------------------------------------------------------
def laplace_mass_formula(a, B):
    r"""App. A.1: :math:`\int_{-a}^{a}\tfrac12 e^{-|x|}dx = 1 - e^{-a}`, as ``-expm1(-a)``.

    Parameters
    ----------
    a : float, ndarray or mpmath.mpf
        Bound on the standard noise :math:`|\eta|`, ``>= 0``.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``a``
        The probability :math:`\Pr[|\eta| \le a]`.
    """
    return -B.expm1(-a)


def laplace_bound_formula(p, B):
    r"""App. A.1: :math:`a = -\ln(1-p)`, as ``-log1p(-p)``.

    Parameters
    ----------
    p : float, ndarray or mpmath.mpf
        Probability, in [0, 1).
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``p``
        The bound ``a`` with :math:`\Pr[|\eta| \le a] = p`.
    """
    return -B.log1p(-p)


def laplace_density_formula(x, B):
    r"""App. A.1's Laplace density at :math:`\epsilon = 1`, :math:`\tfrac12 e^{-x}` (``x >= 0``).

    Parameters
    ----------
    x : float, ndarray or mpmath.mpf
        Point, ``>= 0``.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``x``
        The density of the standard noise :math:`\eta` at ``x``.
    """
    return B.exp(-x) / 2


def laplace_density_inverse_formula(y, B):
    r"""The ``x >= 0`` with :math:`\tfrac12 e^{-x} = y`, :math:`x = -\ln(2y)` (App. B.1, "find d").

    Parameters
    ----------
    y : float, ndarray or mpmath.mpf
        Density value, in :math:`(0, f(0)]`.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``y``
        The point ``x >= 0`` with :math:`f(x) = y`.
    """
    return -B.log(2 * y)


def gencauchy_mass_formula(a, B):
    r"""App. A.1, exact: :math:`\int_{-a}^{a}\frac{\sqrt2}{\pi(1+x^4)}dx` for ``a >= 0``.

    .. math:: \frac{1}{2\pi}\left[\mathrm{log1p}\!\left(\frac{2\sqrt2a}{a^2-\sqrt2a+1}\right)
       + 2\operatorname{atan2}(\sqrt2a, 1-a^2)\right]

    The paper gives only the value at ``a = 1`` (:math:`\approx 0.78`); the closed form is
    derived in the module docstring.

    Parameters
    ----------
    a : float, ndarray or mpmath.mpf
        Bound on the standard noise :math:`|\eta|`, ``>= 0``.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``a``
        The probability :math:`\Pr[|\eta| \le a]`.

    Examples
    --------
    >>> from scipy.integrate import quad
    >>> from garesearch._backend import NUMPY
    >>> want = quad(lambda x: 2 ** 0.5 / (3.141592653589793 * (1 + x**4)), -1, 1)[0]
    >>> abs(float(gencauchy_mass_formula(1.0, NUMPY)) - want) < 1e-13, round(want, 2)  # App. A.1: 0.78
    (True, 0.78)
    """
    if B.name == "numpy":  # for a > 1 from the tail, which neither overflows nor loses digits
        a = np.asarray(a, dtype=float)
        small = np.minimum(a, 1.0)
        head = (np.log1p(2 * _SQRT2 * small / (small * small - _SQRT2 * small + 1))
                + 2 * np.arctan2(_SQRT2 * small, 1 - small * small)) / (2 * math.pi)
        return np.where(a > 1, 1 - gencauchy_tail_formula(np.maximum(a, 1.0), B), head)
    s2 = B.sqrt(2)
    return (B.log1p(2 * s2 * a / (a * a - s2 * a + 1)) + 2 * _atan2(B)(s2 * a, 1 - a * a)) / (
        2 * B.pi
    )


def gencauchy_tail_formula(a, B):
    r"""App. A.1's generalised Cauchy noise beyond ``a``: :math:`\Pr[|\eta| > a] = 1 - P(a)`.

    Substituting :math:`x = 1/u` in :math:`2\int_a^\infty \frac{\sqrt2\,dx}{\pi(1+x^4)}` gives
    :math:`\frac{2\sqrt2}{\pi}\int_0^{1/a}\frac{u^2\,du}{1+u^4}`, that is

    .. math:: 1 - P(a) = \frac{2\sqrt2}{3\pi a^3}\,{}_2F_1\!\left(1, \tfrac34; \tfrac74;
       -a^{-4}\right),

    which keeps its relative accuracy where :math:`1 - P(a)` is tiny (the closed form of
    :func:`gencauchy_mass_formula` would subtract two numbers close to 1) and tends to the
    tail bound :math:`\frac{2\sqrt2}{3\pi a^3}` of the module docstring.  Not in the paper.

    Parameters
    ----------
    a : float, ndarray or mpmath.mpf
        Bound on the standard noise :math:`|\eta|`, ``> 0``.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``a``
        The probability :math:`\Pr[|\eta| > a]`.
    """
    b = 1 / a
    return 2 * B.sqrt(2) / (3 * B.pi) * b**3 * _tail_hyp2f1(B)(-(b**4))


def gencauchy_density_formula(x, B):
    r"""App. A.1's generalised Cauchy density :math:`\frac{\sqrt2}{\pi(1+x^4)}`.

    Parameters
    ----------
    x : float, ndarray or mpmath.mpf
        Point, ``>= 0``.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``x``
        The density of the standard noise :math:`\eta` at ``x``.
    """
    return B.sqrt(2) / (B.pi * (1 + x**4))


def gencauchy_density_inverse_formula(y, B):
    r"""The ``x >= 0`` with :math:`\frac{\sqrt2}{\pi(1+x^4)} = y` (App. B.1, "find d").

    :math:`x = (\sqrt2/(\pi y) - 1)^{1/4}`.

    Parameters
    ----------
    y : float, ndarray or mpmath.mpf
        Density value, in :math:`(0, f(0)]`.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``y``
        The point ``x >= 0`` with :math:`f(x) = y`.
    """
    return B.sqrt(B.sqrt(B.sqrt(2) / (B.pi * y) - 1))


def gaussian_mass_formula(a, B):
    r""":math:`\Pr[|\eta| \le a] = \mathrm{erf}(a/\sqrt2)` for standard normal :math:`\eta`.

    Not in the paper (App. A.1 treats Laplace and generalised Cauchy noise): the standard
    normal law, for completeness.

    Parameters
    ----------
    a : float, ndarray or mpmath.mpf
        Bound on the standard noise :math:`|\eta|`, ``>= 0``.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``a``
        The probability :math:`\Pr[|\eta| \le a]`.
    """
    return B.erf(a / B.sqrt(2))


def gaussian_bound_formula(p, B):
    r""":math:`a = \sqrt2\,\mathrm{erf}^{-1}(p)`, the inverse of :func:`gaussian_mass_formula`.

    Not in the paper: the Gaussian counterpart of App. A.1's bound.

    Parameters
    ----------
    p : float, ndarray or mpmath.mpf
        Probability, in [0, 1).
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``p``
        The bound ``a`` with :math:`\Pr[|\eta| \le a] = p`.
    """
    return B.sqrt(2) * _erfinv(B)(p)


def gaussian_density_formula(x, B):
    r"""The standard normal density :math:`e^{-x^2/2}/\sqrt{2\pi}`.

    Not in the paper: the Gaussian counterpart of App. A.1's densities.

    Parameters
    ----------
    x : float, ndarray or mpmath.mpf
        Point, ``>= 0``.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``x``
        The density of the standard noise :math:`\eta` at ``x``.
    """
    return B.exp(-x * x / 2) / B.sqrt(2 * B.pi)


def gaussian_density_inverse_formula(y, B):
    r"""The ``x >= 0`` with :math:`e^{-x^2/2}/\sqrt{2\pi} = y`, :math:`\sqrt{-2\ln(y\sqrt{2\pi})}`.

    Not in the paper: the Gaussian counterpart of the step App. B.1 needs.

    Parameters
    ----------
    y : float, ndarray or mpmath.mpf
        Density value, in :math:`(0, f(0)]`.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as ``y``
        The point ``x >= 0`` with :math:`f(x) = y`.
    """
    return B.sqrt(-2 * B.log(y * B.sqrt(2 * B.pi)))


@renamed_keywords(tol="rtol")
def gencauchy_bound(p, B, rtol=None, maxiter=200):
    r"""App. A.1's bound for generalised Cauchy noise, by monotone Newton iteration.

    The inverse of :func:`gencauchy_mass_formula`.  The paper uses a window binary search;
    Newton's method from below the root is garesearch's (module docstring).  Works on numpy
    arrays (``B = NUMPY``) and mpmath scalars (``B = MPMATH``).  In float64, for
    :math:`p > P(1)` the equation is solved for the tail instead,
    :math:`1 - P(a) = 1 - p` (:func:`gencauchy_tail_formula`; ``1 - p`` is exact there), since
    :math:`p - P(a)` loses the digits that matter when ``p`` is close to 1: the tail is convex
    and decreasing, so the first Newton step from the upper bound
    :math:`(c/(3(1-p)))^{1/3}` lands below the root and the steps after it increase.

    Parameters
    ----------
    p : float, ndarray or mpmath.mpf
        Probability, in [0, 1).
    B : Backend
        ``NUMPY`` or ``MPMATH``.
    rtol : float, optional
        Relative step size at which to stop; default a few units of the working precision
        (``tol=``, its old name, is deprecated).
    maxiter : int
        Largest number of Newton steps.

    Returns
    -------
    same type as ``p``
        The bound ``a`` with :math:`\Pr[|\eta| \le a] = p`.
    """
    s2 = B.sqrt(2)
    c = 2 * s2 / B.pi  # P'(a) = c / (1 + a^4)
    if B.name == "numpy":
        p = np.asarray(p, dtype=float)
        rtol = 4 * np.finfo(float).eps if rtol is None else rtol
        tail = p > _P_ONE
        if np.any(tail):
            out = np.empty_like(p)
            out[tail] = _gencauchy_tail_bound(1 - p[tail], rtol, maxiter)
            if not np.all(tail):
                out[~tail] = gencauchy_bound(p[~tail], B, rtol, maxiter)
            return out if out.ndim else out[()]
        with np.errstate(divide="ignore", invalid="ignore"):
            hi = np.cbrt(c / (3 * (1 - p)))
    else:
        rtol = mpmath.mpf(10) ** (-mpmath.mp.dps + 2) if rtol is None else rtol
        hi = mpmath.cbrt(c / (3 * (1 - p)))
    lo = p / c
    from_hi = hi - (gencauchy_mass_formula(hi, B) - p) * (1 + hi**4) / c
    if B.name == "numpy":
        x = np.where(np.isfinite(from_hi), np.maximum(lo, from_hi), lo)
    else:
        x = max(lo, from_hi)
    for _ in range(maxiter):
        step = (p - gencauchy_mass_formula(x, B)) * (1 + x**4) / c
        if B.name == "numpy":
            step = np.maximum(step, 0.0)  # concavity: steps from the left are >= 0
            x = x + step
            if np.all(step <= rtol * np.maximum(x, 1e-300)):
                break
        else:
            step = max(step, 0)
            x = x + step
            if step <= rtol * max(x, mpmath.mpf(10) ** (-mpmath.mp.dps * 3)):
                break
    return x


#: P(1) = (ln(3 + 2 sqrt2) + pi) / (2 pi), App. A.1's "approx 0.78"
_P_ONE = (math.log(3 + 2 * _SQRT2) + math.pi) / (2 * math.pi)


def _gencauchy_tail_bound(m, tol, maxiter):
    """Float64 root of :math:`1 - P(a) = m` (see :func:`gencauchy_bound`), for ``m < 1 - P(1)``."""
    c = 2 * _SQRT2 / math.pi
    x = np.cbrt(c / (3 * m))  # at or above the root: 1 - P(a) <= c/(3a^3)
    for _ in range(maxiter):
        step = (gencauchy_tail_formula(x, NUMPY) - m) * (1 + x**4) / c
        x = x + step
        if np.all(np.abs(step) <= tol * x):
            break
    return x
