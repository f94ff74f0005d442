r"""Exponentially tilted prior masses with certified enclosures (beyond the paper).

Every bound of garesearch that compares likelihoods of an :math:`\epsilon`-DP mechanism weighs
the prior with an exponential: the Laplace kernel :math:`e^{-\epsilon|x-c|}`, the inverted
kernel :math:`e^{+\epsilon|x-c|}`, the moment :math:`E[e^{\epsilon D(X)}]` of the lower side.
All of them are built from the two *tilted tails* of a prior :math:`F`,

.. math::

    \mathrm{LT}_k(x) = \log \int_{u \le x} e^{k (u - x)}\, dF(u), \qquad
    \mathrm{RT}_k(x) = \log \int_{u \ge x} e^{k (u - x)}\, dF(u),

anchored at the point ``x`` itself, so that for the decaying sign (``k > 0`` on the left,
``k < 0`` on the right) every weight is at most 1 and nothing overflows, and from the tilted
masses of intervals.  This module computes them as **enclosures** ``[lo, hi]`` (in log scale):
every answer that rests on them takes the safe end.

How each prior is enclosed
--------------------------
- :func:`normal_log_tilted_tail`: the closed form for :math:`\mathcal N(\mu, \sigma^2)` through
  ``erfcx`` / ``log_ndtr``, widened by a forward rounding-error bound (:func:`rounding_pad`).
- :class:`ItemTable`: a prior as a sorted sequence of *items*, atoms or panels that tile the
  support, each with an enclosure of its own tilted mass anchored at either end.  Whole items
  are summed by prefix and suffix scans (:func:`scan_prefix`, one per end of the enclosure,
  since the terms are positive); the item cut by a query point contributes its part directly.

  - atoms (:class:`~garesearch.priors.Categorical`): exact;
  - uniform panels (:class:`~garesearch.priors.PiecewiseUniform`): closed forms;
  - panels of a distribution given by its CDF (:class:`~garesearch.priors.Continuous`): the
    panel's mass :math:`F(a, b]` from the CDF (log CDF / log SF in the tails) and, since the
    tilt :math:`e^{k(u - x)}` is monotone on a panel, :math:`e^{k(a - x)} F(a, b]` and
    :math:`e^{k(b - x)} F(a, b]` as its ends (first order in the panel's width: a spike cannot
    hide between nodes); where the sign of the log-density's curvature on a panel is known
    (declared per scipy family), its chords and their extensions through the panel's midpoint
    bound the density from both sides (second order);
  - an unbounded end panel, beyond tail mass :math:`10^{-300}` or so: with the declared tail
    class (:mod:`garesearch.enclosures.tails`) its survival function decays at least like
    :math:`e^{-\lambda (u - x)}` with :math:`\lambda` the smallest hazard rate beyond its
    edge, so a growing tilt :math:`|k| < \lambda` adds at most a factor
    :math:`\lambda / (\lambda - |k|)`; a heavier tail gives ``inf`` (the integral diverges).

Rounding: each enclosure is widened by a forward error bound of the floating-point operations
that computed it (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Sec. 3.1:
:math:`\gamma_n = n u / (1 - n u)` per chain of ``n`` operations), with scipy's special
functions and distribution methods taken as accurate to :data:`LIB_RTOL` relative (their own
documented accuracy is a few units in the last place).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from ._tilted_cdf import NUMERIC_CDF_ERR as NUMERIC_CDF_ERR
from ._tilted_cdf import CdfPanels as CdfPanels
from ._tilted_cdf import tilt_bounds_from_mass as tilt_bounds_from_mass
from ._tilted_excess import _shift_excess as _shift_excess
from ._tilted_excess import combine_tails as combine_tails
from ._tilted_excess import excess_prefix as excess_prefix
from ._tilted_excess import interval_from_tails as interval_from_tails
from ._tilted_excess import psi_excess as psi_excess
from ._tilted_items import AtomTable as AtomTable
from ._tilted_items import ItemTable
from ._tilted_items import UniformPanels as UniformPanels
from ._tilted_logspace import (
    _U,
    LIB_RTOL,
    log_diff_exp,
    log_expm1_over,
    log_int_exp,
    rounding_pad,
    scan_prefix,
    scan_suffix,
    tilted_prefix,
    tilted_suffix,
)

#: Relative accuracy taken for scipy's special functions and distribution methods
#: (:math:`64\,u`, ``u`` the unit roundoff): every enclosure widens by it (defined with the
#: log-space helpers, named here for the API page).
LIB_RTOL = LIB_RTOL

__all__ = [
    "LIB_RTOL",
    "ItemTable",
    "log_diff_exp",
    "log_expm1_over",
    "log_int_exp",
    "normal_log_tilted_tail",
    "rounding_pad",
    "scan_prefix",
    "scan_suffix",
    "tilted_prefix",
    "tilted_suffix",
]
_SQRT1_2 = math.sqrt(0.5)


def _special():
    import scipy.special

    return scipy.special


def normal_log_tilted_tail(k: float, x, mu: float, sigma: float, side: str):
    r"""Tilted tail of :math:`\mathcal N(\mu, \sigma^2)`: :math:`\mathrm{LT}_k(x)` (``side="left"``)
    or :math:`\mathrm{RT}_k(x)` (``side="right"``), vectorised over ``x``.

    With :math:`z = (x-\mu)/\sigma`, :math:`w = k\sigma`, :math:`b = z - w`:

    .. math::

        \mathrm{LT}_k(x) = -\tfrac{z^2}{2} + \log\tfrac{\mathrm{erfcx}(-b/\sqrt2)}{2}
        \ (b \le 0), \qquad
        \mathrm{LT}_k(x) = w^2/2 - wz + \log\Phi(b)\ (b > 0),

    and :math:`\mathrm{RT}_k(x)` by the mirror image (:math:`z \to -z`, :math:`w \to -w`).
    Both branches agree at :math:`b = 0`; each is free of cancellation where it is used.

    Examples
    --------
    >>> import math
    >>> from statistics import NormalDist
    >>> # LT_k(x) = -k x + k^2/2 + log Phi(x - k) for N(0, 1)
    >>> got = float(normal_log_tilted_tail(1.0, 0.5, 0.0, 1.0, "left"))
    >>> abs(got - (-0.5 + 0.5 + math.log(NormalDist().cdf(-0.5)))) < 1e-14
    True
    """
    out, _ = _normal_tail(k, x, mu, sigma, side, pad=False)
    return out


def _normal_tail(k, x, mu, sigma, side, pad=True):
    """:func:`normal_log_tilted_tail` and a bound on its rounding error (``None`` without
    ``pad``)."""
    sp = _special()
    z = (np.asarray(x, dtype=float) - mu) / sigma
    w = float(k) * sigma
    if side == "right":
        z, w = -z, -w
    elif side != "left":
        raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
    b = z - w
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        near_log = np.log(0.5 * sp.erfcx(-np.minimum(b, 0.0) * _SQRT1_2))
        near = -0.5 * z * z + near_log
        far_log = sp.log_ndtr(np.maximum(b, 0.0))
        far = 0.5 * w * w - w * z + far_log
        out = np.where(b <= 0, near, far)
        if not pad:
            return out, None
        # rounding (Higham's gamma_n per term, scipy's erfcx / log_ndtr to LIB_RTOL): z carries
        # 2u relative, b = z - w another u (|z| + |w|).  Near branch: z^2/2 is off by 4u z^2/2,
        # and log erfcx(y), y = -b/sqrt2 >= 0, has slope at most min(sqrt2, 1/y) (from
        # erfcx(y) > 2 / (sqrt(pi) (y + sqrt(y^2 + 2))), Abramowitz and Stegun 7.1.13).  Far
        # branch: w^2/2 - w z is off by 4u (w^2/2 + |w z|) and log Phi(b), b > 0, has slope
        # below 0.8.
        db = _U * (3 * np.abs(z) + abs(w))
        y = np.abs(np.minimum(b, 0.0)) * _SQRT1_2
        slope = np.minimum(math.sqrt(2.0), 1.0 / np.where(y > 0, y, 1e-300)) * _SQRT1_2
        pad_near = 4 * _U * 0.5 * z * z + slope * db + LIB_RTOL * (1 + np.abs(near_log))
        pad_far = 4 * _U * (0.5 * w * w + np.abs(w * z)) + 0.8 * db + LIB_RTOL * (1 + np.abs(far_log))
        bound = np.where(b <= 0, pad_near, pad_far) + 4 * _U * np.abs(out)
    return out, bound
