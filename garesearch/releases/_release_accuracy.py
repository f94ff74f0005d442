r"""The error a release pays, for :mod:`garesearch.releases.release`: the noise's mean absolute error and
the bound it exceeds with probability at most ``alpha``, for each noise that
:data:`garesearch.additive.MECHANISMS` names (OpenDP's accuracy functions where installed and
they apply, closed forms otherwise).

Beyond the paper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import noise as _noise
from .._plain import PlainFields
from ..errors import ParameterError

#: noises whose error :func:`noise_accuracy` reports (:data:`garesearch.additive.MECHANISMS`)
_ACCURACY_NOISES = ("laplace", "gaussian", "gencauchy", "discrete_laplace", "discrete_gaussian")
#: above this scale the discrete Gaussian's mean absolute value comes from its Euler-Maclaurin expansion
_DG_DIRECT_MAX = 1e4


@dataclass(frozen=True)
class NoiseAccuracy(PlainFields):
    r"""The error a noisy release pays (beyond the paper; App. A.1 bounds the Laplace noise).

    Attributes
    ----------
    mechanism : str
        The noise (a name of :data:`garesearch.additive.MECHANISMS`).
    scale : float
        Its scale in the query's units (the scale per unit of distance times the sensitivity).
    expected_error : float
        :math:`E|Z|`, the mean absolute error of one release.
    alpha : float
        The level: the error exceeds ``bound`` with probability at most ``alpha``.
    bound : float
        :math:`\Pr[|Z| > \text{bound}] \le \alpha` (an integer for the integer variants, the
        smallest such one).
    source : str
        Where ``bound`` comes from: ``"opendp.accuracy"`` or ``"closed form"``.
    """

    mechanism: str
    scale: float
    expected_error: float
    alpha: float
    bound: float
    source: str


def expected_abs_error(mechanism: str, scale: float) -> float:
    r"""The mean absolute error :math:`E|Z|` of one draw of the noise (beyond the paper).

    Laplace of scale ``b``: ``b``; Gaussian: :math:`\sigma\sqrt{2/\pi}`; generalised Cauchy
    (App. A.1's density :math:`\sqrt2/(\pi(1 + x^4))` scaled by :math:`\xi`):
    :math:`\xi/\sqrt2`; discrete Laplace (:math:`\propto e^{-|k|/s}`): the exact sum
    :math:`2\sum_{k\ge1} k e^{-k/s}(1 - e^{-1/s})/(1 + e^{-1/s}) = 1/\sinh(1/s)`; discrete
    Gaussian (:math:`\propto e^{-k^2/2s^2}`): the sum over the integers (to :math:`40s`), and
    above :math:`s = 10^4` its Euler-Maclaurin expansion
    :math:`2(s^2 - 1/12 - 1/(240 s^2))/(\sqrt{2\pi} s)` (relative error below
    :math:`10^{-16}` there).

    Parameters
    ----------
    mechanism : str
        A name of :data:`garesearch.additive.MECHANISMS`.
    scale : float
        The noise scale, > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> import math
    >>> expected_abs_error("laplace", 2.0), round(expected_abs_error("gaussian", 1.0), 12) == round(math.sqrt(2 / math.pi), 12)
    (2.0, True)
    >>> round(expected_abs_error("discrete_laplace", 1.0), 12) == round(1 / math.sinh(1.0), 12)
    True
    """
    from ..additive import check_scale

    if mechanism not in _ACCURACY_NOISES:
        raise ParameterError(f"mechanism must be one of {_ACCURACY_NOISES}; got {mechanism!r}")
    s = check_scale(scale)
    if mechanism == "laplace":
        return s
    if mechanism == "gaussian":
        return s * math.sqrt(2.0 / math.pi)
    if mechanism == "gencauchy":
        return s / math.sqrt(2.0)
    if mechanism == "discrete_laplace":
        a = 1.0 / s
        return 2.0 * math.exp(-a) / -math.expm1(-2.0 * a) if a < 700 else 2.0 * math.exp(-a)
    if s > _DG_DIRECT_MAX:
        return 2.0 * (s * s - 1.0 / 12.0 - 1.0 / (240.0 * s * s)) / (math.sqrt(2.0 * math.pi) * s)
    k = np.arange(1.0, math.ceil(40.0 * s) + 2.0)
    w = np.exp(-k * k / (2.0 * s * s))
    return float(2.0 * np.sum(k * w) / (1.0 + 2.0 * np.sum(w)))


def _opendp_accuracy(mechanism: str, scale: float, alpha: float):
    """OpenDP's accuracy of ``mechanism`` at level ``alpha`` (``Pr[|Z| >= accuracy] <= alpha``), or
    None when OpenDP is not installed or has no helper for this noise."""
    names = {"laplace": "laplacian_scale_to_accuracy", "gaussian": "gaussian_scale_to_accuracy",
             "discrete_laplace": "discrete_laplacian_scale_to_accuracy",
             "discrete_gaussian": "discrete_gaussian_scale_to_accuracy"}
    if mechanism not in names:
        return None
    try:
        import opendp.accuracy as acc
    except ImportError:
        return None
    return float(getattr(acc, names[mechanism])(float(scale), float(alpha)))


def _closed_form_bound(mechanism: str, s: float, alpha: float) -> float:
    """The bound of :func:`noise_accuracy` without OpenDP."""
    from scipy.special import ndtri

    if mechanism == "laplace":  # Pr[|Z| > a] = e^{-a/b}
        return s * math.log(1.0 / alpha)
    if mechanism == "gaussian":
        return s * float(ndtri(1.0 - alpha / 2.0))
    if mechanism == "gencauchy":
        return float(_noise.noise_bound(1.0 - alpha, noise="gencauchy", scale=s))
    if mechanism == "discrete_gaussian":
        return _discrete_gaussian_bound(1.0 - alpha, s)
    # discrete Laplace: Pr[|Z| > m] = 2 e^{-(m+1)/s} / (1 + e^{-1/s}) for integers m >= 0
    a = 1.0 / s

    def tail(m):
        return math.exp(math.log(2.0) - a * (m + 1) - math.log1p(math.exp(-a)))

    m = max(0, math.ceil(s * (math.log(2.0 / alpha) - math.log1p(math.exp(-a)))) - 1)
    while m > 0 and tail(m - 1) <= alpha:
        m -= 1
    while tail(m) > alpha:
        m += 1
    return float(m)


def noise_accuracy(mechanism: str, *, scale: float, alpha: float = 0.05) -> NoiseAccuracy:
    r"""The mean absolute error of the noise and the bound it stays within at level ``alpha`` (beyond the paper).

    App. A.1 bounds Laplace and generalised Cauchy noise; this is the same question for every
    noise of :data:`garesearch.additive.MECHANISMS`: ``bound`` with
    :math:`\Pr[|Z| > \text{bound}] \le \alpha`.  Through OpenDP's accuracy helpers
    (``opendp.accuracy.laplacian_scale_to_accuracy`` and its Gaussian and integer siblings,
    which give ``a`` with :math:`\Pr[|Z| \ge a] = \alpha`, so for integer noise the bound is
    :math:`\lceil a\rceil - 1`) when OpenDP is installed, otherwise (and for generalised Cauchy
    noise) the closed forms: Laplace :math:`b\ln(1/\alpha)`, Gaussian
    :math:`\sigma\Phi^{-1}(1 - \alpha/2)`, the smallest integer for the integer variants
    (exact sums), App. A.1's bound for generalised Cauchy noise.

    Parameters
    ----------
    mechanism : str
        A name of :data:`garesearch.additive.MECHANISMS`.
    scale : float
        The noise scale in the query's units, > 0.
    alpha : float
        The level, in (0, 1).

    Returns
    -------
    NoiseAccuracy

    Examples
    --------
    >>> import math
    >>> acc = noise_accuracy("laplace", scale=2.0, alpha=0.05)
    >>> acc.expected_error, abs(acc.bound - 2.0 * math.log(20)) < 1e-9  # Pr[|Z| > a] = e^{-a/b}
    (2.0, True)
    >>> noise_accuracy("discrete_gaussian", scale=2.0, alpha=0.05).bound  # Pr[|Z| > 4] = 0.023
    4.0
    """
    expected = expected_abs_error(mechanism, scale)
    s = float(scale)
    if not (isinstance(alpha, (int, float, np.integer, np.floating)) and 0 < alpha < 1):
        raise ParameterError(f"alpha must lie in (0, 1); got {alpha!r}")
    a = float(alpha)
    got = _opendp_accuracy(mechanism, s, a)
    if got is None:
        bound, source = _closed_form_bound(mechanism, s, a), "closed form"
    else:
        bound = float(math.ceil(got) - 1) if mechanism.startswith("discrete") else got
        source = "opendp.accuracy"
    return NoiseAccuracy(mechanism=mechanism, scale=s, expected_error=expected, alpha=a, bound=max(bound, 0.0),
                         source=source)


def _discrete_gaussian_bound(confidence: float, s: float) -> float:
    """The smallest integer ``k`` with ``Pr[|Z| <= k] >= confidence`` for the discrete Gaussian."""
    from ..additive import resolve

    noise = resolve("discrete_gaussian")
    k = max(0, math.floor(float(_noise.noise_bound(confidence, noise="gaussian", scale=s))) - 2)
    while float(np.exp(noise.log_interval(-k, k, s))) < confidence:
        k += 1
    return float(k)
