r"""Noise distributions and the probability that noise stays within a bound (App. A.1).

A mechanism adds noise :math:`\xi\eta` to the query, where :math:`\xi > 0` is the noise
magnitude (``scale``) and :math:`\eta` has one of three standard densities:

``"laplace"``
    :math:`f(x) = \tfrac12 e^{-|x|}` (the paper's :math:`\tfrac{\epsilon}{2}e^{-|x|\epsilon}` is
    ``scale = 1/epsilon``);
``"gencauchy"``
    the generalised Cauchy density of the paper, :math:`f(x) = \frac{\sqrt2}{\pi(1+x^4)}`;
``"gaussian"``
    :math:`f(x) = e^{-x^2/2}/\sqrt{2\pi}` (for completeness).

App. A.1 asks for the probability that the noise stays within ``a``,

.. math:: P(a) = \Pr[|\xi\eta| \le a] = \int_{-a/\xi}^{a/\xi} f(x)\,dx,

and for its inverse (the ``a`` that holds with probability ``p``).  Scaling is exact:
:math:`\Pr[|\xi\eta| \le a\xi] = \Pr[|\eta| \le a]` (the paper's change of variables).

Closed forms (each written once against a backend ``B``, evaluated in float64 or mpmath):

- Laplace: :math:`P(a) = 1 - e^{-a} = -\mathrm{expm1}(-a)`, inverse :math:`a = -\mathrm{log1p}(-p)`.
- Gaussian: :math:`P(a) = \mathrm{erf}(a/\sqrt2)`, inverse :math:`a = \sqrt2\,\mathrm{erf}^{-1}(p)`.
- Generalised Cauchy: from the antiderivative

  .. math:: \int \frac{dx}{1+x^4} = \frac{1}{4\sqrt2}\left[\ln\frac{x^2+\sqrt2x+1}{x^2-\sqrt2x+1}
     + 2\arctan(\sqrt2x+1) + 2\arctan(\sqrt2x-1)\right]

  and :math:`\arctan(\sqrt2a+1) + \arctan(\sqrt2a-1) = \operatorname{atan2}(\sqrt2a, 1-a^2)`
  for :math:`a \ge 0`,

  .. math:: P(a) = \frac{1}{2\pi}\left[\mathrm{log1p}\!\left(\frac{2\sqrt2a}{a^2-\sqrt2a+1}\right)
     + 2\operatorname{atan2}(\sqrt2a, 1-a^2)\right],

  so :math:`P(1) = \frac{\ln(3+2\sqrt2) + \pi}{2\pi} \approx 0.7805` (the paper's 0.78).
  The paper finds the inverse by a "window binary search"; here it is Newton's method on
  the exact :math:`P`, started below the root: :math:`P` is concave on
  :math:`[0,\infty)`, so Newton steps from the left increase monotonically to the root
  (no overshoot), and quadratic convergence sets in at once.  The start is the larger of
  two lower bounds: :math:`p\pi/(2\sqrt2)` (from :math:`P(a) \le f(0)\cdot 2a`) and one
  Newton step from the upper bound :math:`(2\sqrt2/(3\pi(1-p)))^{1/3}` (from
  :math:`1-P(a) \le \frac{2\sqrt2}{3\pi a^3}`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ._backend import NUMPY, backend_for
from ._evaluate import check, finish, refine, representable, scalar_values, to_values, workdps
from ._noise_formulas import (
    gaussian_bound_formula,
    gaussian_density_formula,
    gaussian_density_inverse_formula,
    gaussian_mass_formula,
    gencauchy_bound,
    gencauchy_density_formula,
    gencauchy_density_inverse_formula,
    gencauchy_mass_formula,
    laplace_bound_formula,
    laplace_density_formula,
    laplace_density_inverse_formula,
    laplace_mass_formula,
)
from ._noise_formulas import gencauchy_tail_formula as gencauchy_tail_formula
from .errors import ParameterError

__all__ = [
    "NOISES",
    "NoiseFormulas",
    "gencauchy_mass_formula",
    "laplace_scale",
    "noise_bound",
    "noise_density",
    "noise_density_inverse",
    "noise_formulas",
    "noise_mass",
    "sample_noise",
]

NOISES = ("laplace", "gencauchy", "gaussian")


_MASS = {
    "laplace": laplace_mass_formula,
    "gencauchy": gencauchy_mass_formula,
    "gaussian": gaussian_mass_formula,
}
_BOUND = {
    "laplace": laplace_bound_formula,
    "gencauchy": gencauchy_bound,
    "gaussian": gaussian_bound_formula,
}
_DENSITY = {
    "laplace": laplace_density_formula,
    "gencauchy": gencauchy_density_formula,
    "gaussian": gaussian_density_formula,
}
_DENSITY_INVERSE = {
    "laplace": laplace_density_inverse_formula,
    "gencauchy": gencauchy_density_inverse_formula,
    "gaussian": gaussian_density_inverse_formula,
}


class NoiseFormulas(NamedTuple):
    """The closed forms of one noise density, each written once against a backend ``B``."""

    mass: Callable  #: :math:`P(a)`, the probability that :math:`|\eta| \le a`
    bound: Callable  #: its inverse, the ``a`` with :math:`P(a) = p`
    density: Callable  #: :math:`f(x)`
    density_inverse: Callable  #: the ``x >= 0`` with :math:`f(x) = y`


def noise_formulas(noise: str) -> NoiseFormulas:
    """The backend-generic closed forms of one noise density at scale 1 (App. A.1), for
    derivations that evaluate them symbolically (sympy), at 50 digits (mpmath) or in float64.

    Parameters
    ----------
    noise : {"laplace", "gencauchy", "gaussian"}

    Returns
    -------
    NoiseFormulas
        ``mass(a, B)``, ``bound(p, B)``, ``density(x, B)``, ``density_inverse(y, B)``.

    Raises
    ------
    ParameterError
        For an unknown ``noise``.

    Examples
    --------
    >>> from garesearch._backend import NUMPY
    >>> f = noise_formulas("laplace")
    >>> round(float(f.mass(1.0, NUMPY)), 12)  # 1 - e^-1
    0.632120558829
    >>> round(float(f.bound(f.mass(2.0, NUMPY), NUMPY)), 12)
    2.0
    """
    kind = _noise(noise)
    return NoiseFormulas(_MASS[kind], _BOUND[kind], _DENSITY[kind], _DENSITY_INVERSE[kind])


def _noise(noise: str) -> str:
    if noise not in NOISES:
        raise ParameterError(f"noise must be one of {NOISES}; got {noise!r}")
    return noise


def _backend(dps):
    return backend_for(dps)


def _representable(out, what: str, dps):
    """``out``, or :class:`ParameterError` where a finite result overflows float64."""
    return representable(out, what, dps,
                         "change the unit of the noise (scale) or pass dps= for the mpmath path")


# --------------------------------------------------------------------------------------
# Public API.
# --------------------------------------------------------------------------------------
def laplace_scale(*, epsilon, sensitivity=1.0):
    r"""Scale :math:`\xi = \Delta/\epsilon` of the Laplace mechanism (Sec. 6.1: ``1/0.539 = 1.86``).

    Parameters
    ----------
    epsilon : float or array_like
        Epsilon per unit of the query's distance, ``> 0``.
    sensitivity : float or array_like
        Largest change of the query per unit of distance, ``> 0``.

    Returns
    -------
    float or ndarray
        The scale :math:`\xi`.

    Examples
    --------
    >>> round(float(laplace_scale(epsilon=0.539)), 2)  # Sec. 6.1: 1/0.539
    1.86
    """
    v = to_values(None, epsilon=epsilon, sensitivity=sensitivity)
    check("epsilon", v["epsilon"], 0, np.inf)
    check("sensitivity", v["sensitivity"], 0, np.inf)
    with np.errstate(all="ignore"):
        out = v["sensitivity"] / v["epsilon"]
    if np.any(out == 0):
        raise ParameterError(
            "the scale sensitivity / epsilon underflows float64 (below about 5e-324); "
            "change the unit of the query"
        )
    return finish(_representable(out, "the scale sensitivity / epsilon", None), None)


def noise_mass(a, *, noise: str = "laplace", scale=1.0, dps: int | None = None):
    r"""Probability that the noise stays within ``a``: :math:`\Pr[|\xi\eta| \le a]` (App. A.1).

    Parameters
    ----------
    a : float or array_like
        Bound on the absolute noise, ``>= 0``.
    noise : {"laplace", "gencauchy", "gaussian"}
        Standard noise :math:`\eta` (module docstring).
    scale : float or array_like
        Noise magnitude :math:`\xi > 0` (Laplace: ``sensitivity / epsilon``).
    dps : int, optional
        Evaluate with mpmath at this many digits (scalars only).

    Returns
    -------
    float, ndarray or mpmath.mpf
        A probability in [0, 1).

    Examples
    --------
    >>> round(noise_mass(1.0, noise="gencauchy"), 4)   # App. A.1: "approx 0.78"
    0.7805
    """
    noise = _noise(noise)
    with workdps(dps):
        v = to_values(dps, a=a, scale=scale)
        check("a", v["a"], 0, np.inf, low_open=False)
        check("scale", v["scale"], 0, np.inf)
        B = _backend(dps)
        with np.errstate(all="ignore"):
            out = _MASS[noise](v["a"] / v["scale"], B)
        return finish(out, dps)


def noise_bound(p, *, noise: str = "laplace", scale=1.0, dps: int | None = None):
    r"""The bound ``a`` that the noise stays within with probability ``p`` (App. A.1).

    The inverse of :func:`noise_mass`.  Laplace: :math:`a = -\xi\ln(1-p)`; generalised Cauchy:
    Newton's method on the exact closed-form :math:`P` (module docstring); Gaussian:
    :math:`a = \xi\sqrt2\,\mathrm{erf}^{-1}(p)`.  Scaling: the bound for magnitude :math:`\xi`
    is :math:`\xi` times the bound for 1.

    Parameters
    ----------
    p : float or array_like
        Probability in [0, 1).
    noise, scale, dps
        As in :func:`noise_mass`.

    Returns
    -------
    float, ndarray or mpmath.mpf
        The bound ``a >= 0``.

    Examples
    --------
    >>> round(noise_bound(0.95, scale=1 / 0.539), 3)   # 95% of Laplace(1/0.539) noise
    5.558
    """
    noise = _noise(noise)
    with workdps(dps):
        v = to_values(dps, p=p, scale=scale)
        check("p", v["p"], 0, 1, low_open=False)
        check("scale", v["scale"], 0, np.inf)
        B = _backend(dps)
        with np.errstate(all="ignore"):
            out = _BOUND[noise](v["p"], B) * v["scale"]
        return finish(_representable(out, "the bound", dps), dps)


def noise_density(x, *, noise: str = "laplace", scale=1.0, dps: int | None = None):
    r"""Density of the noise :math:`\xi\eta` at ``x``, :math:`f(|x|/\xi)/\xi` (App. A.1).

    The densities ``f`` are App. A.1's (Gaussian: not in the paper), and the scaling is
    App. A.1's change of variables; App. B.1 uses this density as :math:`f_\eta`.

    Parameters
    ----------
    x : float or array_like
        Point at which to evaluate the density.
    noise : {"laplace", "gencauchy", "gaussian"}
        Standard noise :math:`\eta` (module docstring).
    scale : float or array_like
        Noise magnitude :math:`\xi > 0`.
    dps : int, optional
        Evaluate with mpmath at this many digits (scalars only).

    Returns
    -------
    float, ndarray or mpmath.mpf
        The density, ``> 0``.

    Examples
    --------
    >>> import math
    >>> float(noise_density(0.0))  # standard Laplace: e^-|x| / 2
    0.5
    >>> abs(float(noise_density(1.0, scale=2.0)) - math.exp(-0.5) / 4) < 1e-16
    True
    """
    noise = _noise(noise)
    with workdps(dps):
        v = to_values(dps, x=x, scale=scale)
        check("scale", v["scale"], 0, np.inf)
        B = _backend(dps)
        ax = np.abs(v["x"]) if dps is None else abs(v["x"])
        with np.errstate(all="ignore"):
            out = _DENSITY[noise](ax / v["scale"], B) / v["scale"]
        return finish(_representable(out, "the density", dps), dps)


def noise_density_inverse(y, *, noise: str = "laplace", scale=1.0, dps: int | None = None):
    r"""The distance ``x >= 0`` at which the density of :math:`\xi\eta` equals ``y`` (App. B.1).

    The densities decrease in :math:`|x|`, so this is well defined for
    :math:`0 < y \le f(0)/\xi`; it is what App. B.1 needs ("find d such that
    :math:`f_\eta(c(t)+d) = \underline\chi_y`").

    Parameters
    ----------
    y : float or array_like
        Density value, in :math:`(0, f(0)/\xi]`.
    noise, scale, dps
        As in :func:`noise_density`.

    Returns
    -------
    float, ndarray or mpmath.mpf
        The distance ``x >= 0``.

    Raises
    ------
    ParameterError
        If ``y`` is not in :math:`(0, f(0)/\xi]`.

    Examples
    --------
    >>> import math
    >>> round(float(noise_density_inverse(math.exp(-1.5) / 2)), 12)  # e^-x / 2 at x = 1.5
    1.5
    """
    noise = _noise(noise)
    with workdps(dps):
        v = to_values(dps, y=y, scale=scale)
        check("scale", v["scale"], 0, np.inf)
        B = _backend(dps)
        with np.errstate(all="ignore"):  # a tiny scale: the peak overflows, every y is below it
            top = _DENSITY[noise](0 * v["y"], B) / v["scale"]
        check("y", v["y"], 0, np.inf)
        over = v["y"] > top * (1 + (1e-12 if dps is None else 0))
        if np.any(over):
            raise ParameterError(
                f"y must lie in (0, f(0)/scale] = (0, {float(np.max(top)):.6g}]; the density of "
                f"{noise} noise never reaches {float(np.max(v['y'])):.6g}"
            )
        if dps is None:
            yy = np.minimum(v["y"], top)
        else:
            yy = min(v["y"], top)
        with np.errstate(all="ignore"):
            out = _DENSITY_INVERSE[noise](yy * v["scale"], B) * v["scale"]
        if dps is None:
            out = np.maximum(out, 0.0)
            # near the peak the inverse is ill-conditioned in y * scale (rounded once): there
            # it is recomputed from the float inputs with mpmath
            with np.errstate(all="ignore"):
                near = (out < 0.3 * v["scale"]) & (yy < top)
            out = refine(_scaled_density_inverse(noise), {"y": v["y"], "scale": v["scale"]}, out, near)
        else:
            out = max(out, 0)
        return finish(_representable(out, "the distance", dps), dps)


def _scaled_density_inverse(noise: str):
    """``(y, scale, B) -> x``: the inverse of the density of ``scale * eta`` (for :func:`refine`)."""

    def formula(y, scale, B):
        u = y * scale
        top = _DENSITY[noise](0 * u, B)
        return max(_DENSITY_INVERSE[noise](min(u, top), B), 0) * scale

    return formula


def _size(size):
    """A sample shape: a non-negative integer or a tuple of them (:class:`ParameterError` else)."""
    shape = size if isinstance(size, tuple) else (size,)
    if not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 0 for n in shape):
        raise ParameterError(f"size must be a non-negative integer or a tuple of them; got {size!r}")
    return size


def sample_noise(size, *, noise: str = "laplace", scale=1.0, rng=None) -> np.ndarray:
    r"""Draw noise :math:`\xi\eta` with numpy (App. A.1's noise).

    Sampling is not in the paper: Laplace and Gaussian noise come from numpy's generators,
    generalised Cauchy noise from inverting the exact CDF (:func:`gencauchy_bound`).

    Parameters
    ----------
    size : int or tuple
        Shape of the sample.
    noise : {"laplace", "gencauchy", "gaussian"}
        Standard noise :math:`\eta` (module docstring).
    scale : float
        Noise magnitude :math:`\xi > 0`.
    rng : numpy.random.Generator or int, optional
        Generator, or a seed for ``numpy.random.default_rng``.

    Returns
    -------
    ndarray
        The draws, of shape ``size``.

    Examples
    --------
    >>> x = sample_noise(100_000, noise="laplace", scale=2.0, rng=0)
    >>> x.shape, abs(float(abs(x).mean()) - 2.0) < 0.05  # E|xi eta| = scale for Laplace
    ((100000,), True)
    """
    noise = _noise(noise)
    scale = scalar_values(scale=scale)["scale"]
    check("scale", scale, 0, np.inf)
    size = _size(size)
    try:
        rng = np.random.default_rng(rng)
    except (TypeError, ValueError):
        raise ParameterError(f"rng must be a numpy.random.Generator, a seed (int >= 0) or None; got {rng!r}") from None
    with np.errstate(all="ignore"):
        if noise == "laplace":
            out = rng.laplace(0.0, scale, size)
        elif noise == "gaussian":
            out = rng.normal(0.0, scale, size)
        else:
            u = rng.random(size)
            sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
            out = sign * gencauchy_bound(u, NUMPY) * scale
    return _representable(out, "a draw", None)
