r"""Additive-noise mechanisms whose exact guessing advantage :mod:`garesearch.exact` computes.

The query output moves one-for-one with the sensitive attribute (the identity, a SUM whose other
terms the attacker knows, or a COUNT for a discrete attribute), so the mechanism releases

.. math:: Y = s(x) + b(\epsilon)\,\eta,

with :math:`\eta` a standard noise variable and :math:`b(\epsilon)` the scale that makes the
release :math:`\epsilon`-DP with respect to :math:`|x - x'|` (Def. 1 of the paper), with
sensitivity 1 per unit of the attribute.

- :class:`Laplace`: :math:`\eta` with density :math:`\frac12 e^{-|z|}`, :math:`b = 1/\epsilon`.
- :class:`GenCauchy`: the generalised Cauchy noise of App. A.1,
  :math:`\frac{\sqrt2}{\pi}\frac{1}{1+|z|^4}`.  Its log-density has Lipschitz constant
  :math:`L = \sup_z 4|z|^3/(1+z^4) = 3^{3/4}` (attained at :math:`z^4 = 3`), so
  :math:`b = 3^{3/4}/\epsilon` is the smallest scale that is :math:`\epsilon`-DP.
- :class:`Gaussian`: not :math:`\epsilon`-DP for any :math:`\epsilon`; ``epsilon`` only sets its
  scale, by a documented calibration (same variance as Laplace, or the classic
  :math:`(\epsilon, \delta)`-DP calibration).

:class:`RandomizedResponse` is not additive: it releases a value of a finite domain itself
(k-ary randomized response), :math:`\epsilon`-DP with respect to the discrete metric.

Each mechanism gives the log-density, the log-probability of an interval of noise (stable in
the tails, used to integrate a piecewise-uniform prior in closed form), the limit of the
log-likelihood ratio as the output goes to :math:`\pm\infty`, and sampling.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np

from .errors import ParameterError

__all__ = ["Gaussian", "GenCauchy", "Laplace", "Mechanism", "RandomizedResponse"]


def _check_epsilon(epsilon) -> float:
    if not isinstance(epsilon, (int, float, np.integer, np.floating)) or not (
        math.isfinite(float(epsilon)) and float(epsilon) > 0
    ):
        raise ParameterError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    return float(epsilon)


#: largest k of RandomizedResponse.log_likelihood (a k x k matrix of float64)
_MAX_MATRIX = 10**4


def _reals(finite: bool = True, **arrays):
    """The arguments as float arrays (:class:`ParameterError` naming one that is not real, NaN
    or, with ``finite``, infinite; infinities may end intervals)."""
    from ._evaluate import as_float_array, first_bad

    out = [as_float_array(name, value) for name, value in arrays.items()]
    for name, arr in zip(arrays, out, strict=True):
        bad = ~np.isfinite(arr) if finite else np.isnan(arr)
        if np.any(bad):
            what = "a finite number" if finite else "a number"
            raise ParameterError(f"{name} must be {what}; got {first_bad(arr, bad)}")
    try:
        np.broadcast_shapes(*(a.shape for a in out))
    except ValueError:
        shapes = ", ".join(f"{n}: {a.shape}" for n, a in zip(arrays, out, strict=True))
        raise ParameterError(f"array arguments do not broadcast together ({shapes})") from None
    return out


def _log_diff(log_big, log_small):
    """``log(exp(log_big) - exp(log_small))`` for ``log_big >= log_small`` (``-inf`` if equal)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(np.isneginf(log_big), -np.inf, log_small - log_big)
        out = log_big + np.log1p(-np.exp(np.minimum(d, 0.0)))
    return np.where(np.isneginf(log_big) | (d >= 0), -np.inf, out)


class Mechanism(ABC):
    """Additive noise :math:`Y = s(x) + b\\,\\eta` with standard noise :math:`\\eta`.

    ``tail`` says how the posterior behaves as the output goes to :math:`\\pm\\infty`
    (:mod:`garesearch.exact` derives the limits from it): ``"exponential"`` (the likelihood
    ratio tends to :math:`e^{\\pm\\epsilon (x - x')}`: the posterior tends to the prior tilted
    by :math:`e^{\\pm\\epsilon x}`), ``"light"`` (the ratio tends to 0 or infinity: the
    posterior piles up at the end of the support), ``"heavy"`` (the ratio tends to 1: the
    posterior tends to the prior).
    """

    name: str = "mechanism"
    tail: str = "exponential"

    @abstractmethod
    def scale(self, epsilon: float) -> float:
        """Noise scale :math:`b` used at ``epsilon``."""

    @abstractmethod
    def std_logpdf(self, z):
        """Log-density of the standard noise :math:`\\eta`."""

    @abstractmethod
    def std_logcdf(self, z):
        """:math:`\\ln \\Pr[\\eta \\le z]`, accurate in the lower tail."""

    def std_logsf(self, z):
        """:math:`\\ln \\Pr[\\eta > z]` (the noise is symmetric)."""
        return self.std_logcdf(-np.asarray(z, dtype=float))

    @abstractmethod
    def std_sample(self, rng: np.random.Generator, size):
        """Draws of :math:`\\eta`."""

    # -- derived ---------------------------------------------------------------------------
    def log_density(self, y, x, epsilon):
        r""":math:`\ln f(y \mid x)` at ``epsilon`` (vectorised)."""
        b = self.scale(_check_epsilon(epsilon))
        y, x = _reals(y=y, x=x)
        with np.errstate(all="ignore"):  # far outputs: -inf; extreme scales: 0 or inf in b
            z = (y - x) / b
            return self.std_logpdf(z) - math.log(b)

    def density(self, y, x, epsilon):
        r""":math:`f(y \mid x)` at ``epsilon`` (vectorised)."""
        log_f = self.log_density(y, x, epsilon)
        with np.errstate(all="ignore"):
            return np.exp(log_f)

    def log_interval(self, z1, z2, epsilon):
        r""":math:`\ln \Pr[z_1 \le b\eta \le z_2]` (``-inf`` where ``z2 <= z1``), stable in both tails."""
        b = self.scale(_check_epsilon(epsilon))
        z1, z2 = _reals(finite=False, z1=z1, z2=z2)
        with np.errstate(all="ignore"):
            u1, u2 = np.broadcast_arrays(z1 / b, z2 / b)
            upper = u1 > 0  # both in the upper tail: difference of survival functions
            lower = u2 < 0
            logcdf1, logsf2 = self.std_logcdf(u1), self.std_logsf(u2)
            tail_up = _log_diff(self.std_logsf(u1), logsf2)
            tail_dn = _log_diff(self.std_logcdf(u2), logcdf1)
            mid = np.log1p(-(np.exp(logcdf1) + np.exp(logsf2)))
        out = np.where(upper, tail_up, np.where(lower, tail_dn, mid))
        return np.where(u2 > u1, out, -np.inf)

    def limit_logweights(self, s, sign: int, epsilon):
        r"""Limit of :math:`\ln f(y|s) - \ln f(y|s_0)` as :math:`y \to \pm\infty`, up to a constant.

        Exponential tails: :math:`\pm s / b` (:math:`\pm\epsilon s` for Laplace); light tails: 0 at the extreme
        ``s`` and ``-inf`` elsewhere; heavy tails: 0.
        """
        (s,) = _reals(s=s)
        if self.tail == "exponential":
            return sign * s / self.scale(_check_epsilon(epsilon))
        if self.tail == "light":
            ext = s.max() if sign > 0 else s.min()
            return np.where(s == ext, 0.0, -np.inf)
        return np.zeros_like(s)

    def sample(self, x, epsilon, rng: np.random.Generator):
        """Release ``x + b * eta`` for each entry of ``x`` (``rng``: a numpy Generator)."""
        if not isinstance(rng, np.random.Generator):
            raise ParameterError("rng must be a numpy.random.Generator (np.random.default_rng(seed))")
        (x,) = _reals(x=x)
        b = self.scale(_check_epsilon(epsilon))
        with np.errstate(all="ignore"):
            out = x + b * self.std_sample(rng, x.shape)
        if not np.all(np.isfinite(out)):
            raise ParameterError(
                f"the released values overflow float64 (noise scale {b:.3g}): use a larger epsilon "
                "or a smaller unit"
            )
        return out

    def __repr__(self):
        return f"{type(self).__name__}()"


class Laplace(Mechanism):
    r"""Laplace mechanism, :math:`f(y|x) = \frac{\epsilon}{2} e^{-\epsilon|y - x|}` (Sec. 6; Dwork 2006).

    Exactly :math:`\epsilon`-DP w.r.t. :math:`|x - x'|`: the likelihood ratio of two inputs at
    distance ``d`` reaches :math:`e^{\epsilon d}` for every output beyond both of them.
    """

    name = "Laplace"

    def scale(self, epsilon):
        return 1.0 / _check_epsilon(epsilon)

    def std_logpdf(self, z):
        return -np.abs(np.asarray(z, dtype=float)) - math.log(2.0)

    def std_logcdf(self, z):
        z = np.asarray(z, dtype=float)
        with np.errstate(over="ignore"):
            return np.where(z < 0, z - math.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(z))))

    def std_sample(self, rng, size):
        return rng.laplace(0.0, 1.0, size)


class Gaussian(Mechanism):
    r"""Gaussian noise :math:`\mathcal N(0, \sigma^2)`, which is **not** :math:`\epsilon`-DP.

    ``epsilon`` sets :math:`\sigma` through a calibration:

    - ``"variance"`` (default): the variance of Laplace noise at the same epsilon,
      :math:`\sigma = \sqrt2/\epsilon`;
    - ``"classic"``: :math:`\sigma = \sqrt{2\ln(1.25/\delta_{DP})}/\epsilon`, the classic
      :math:`(\epsilon, \delta_{DP})`-DP calibration (Dwork and Roth, Thm. A.1; valid for
      :math:`\epsilon < 1`).

    For a given noise scale :math:`\sigma`, use ``calibration="variance"`` with
    ``epsilon = sqrt(2) / sigma``.

    Parameters
    ----------
    calibration : {"variance", "classic"}
    dp_delta : float
        The :math:`\delta_{DP}` of the classic calibration, in (0, 1).
    """

    name = "Gaussian"
    tail = "light"

    def __init__(self, calibration: str = "variance", dp_delta: float = 1e-5):
        if calibration not in ("variance", "classic"):
            raise ParameterError(f"calibration must be 'variance' or 'classic'; got {calibration!r}")
        if not (isinstance(dp_delta, (int, float)) and 0 < dp_delta < 1):
            raise ParameterError(f"dp_delta must lie in (0, 1); got {dp_delta!r}")
        self.calibration = calibration
        self.dp_delta = float(dp_delta)

    def __repr__(self):
        if self.calibration == "variance":
            return "Gaussian()"
        return f"Gaussian(calibration='classic', dp_delta={self.dp_delta})"

    def scale(self, epsilon):
        e = _check_epsilon(epsilon)
        if self.calibration == "variance":
            return math.sqrt(2.0) / e
        return math.sqrt(2.0 * math.log(1.25 / self.dp_delta)) / e

    def std_logpdf(self, z):
        z = np.asarray(z, dtype=float)
        return -0.5 * z * z - 0.5 * math.log(2 * math.pi)

    def std_logcdf(self, z):
        from scipy.special import log_ndtr

        return log_ndtr(np.asarray(z, dtype=float))

    def std_sample(self, rng, size):
        return rng.standard_normal(size)


# generalised Cauchy (App. A.1): c / (1 + z^4), c = sqrt(2) / pi
_GC_C = math.sqrt(2.0) / math.pi
_GC_L = 3.0**0.75  # Lipschitz constant of ln(1 + z^4)
_GC_SERIES = 40


def _gc_cdf_core(z):
    r"""Closed form :math:`\int_{-\infty}^z \frac{c}{1+u^4} du` (for moderate ``|z|``)."""
    s = math.sqrt(2.0)
    z = np.asarray(z, dtype=float)
    prim = (
        np.log((z * z + s * z + 1) / (z * z - s * z + 1)) + 2 * np.arctan(s * z + 1) + 2 * np.arctan(s * z - 1)
    ) / (4 * s)
    return 0.5 + _GC_C * prim


def _gc_log_tail(w):
    r""":math:`\ln \int_{1/w}^\infty \frac{c}{1+u^4}du = \ln\, c \sum_k (-1)^k \frac{w^{4k+3}}{4k+3}` for ``0 < w <= 1/2``."""
    w = np.asarray(w, dtype=float)
    w4 = w**4
    total = np.zeros_like(w)
    term = np.ones_like(w)
    for k in range(_GC_SERIES):
        total = total + term / (4 * k + 3)
        term = -term * w4
    return math.log(_GC_C) + 3 * np.log(w) + np.log(total)


class GenCauchy(Mechanism):
    r"""Generalised Cauchy noise of App. A.1, :math:`\eta \sim \frac{\sqrt2}{\pi}\frac{1}{1+|z|^4}`.

    Scale :math:`b = 3^{3/4}/\epsilon`: :math:`\ln(1 + z^4)` has derivative
    :math:`4z^3/(1+z^4)`, largest (:math:`3^{3/4} \approx 2.2795`) at :math:`z^4 = 3`, so the
    likelihood ratio of two inputs at distance ``d`` is at most :math:`e^{\epsilon d}`, with
    equality in the limit of small ``d``.  For large distances the ratio grows only like
    :math:`d^4`, far below :math:`e^{\epsilon d}`.
    """

    name = "GenCauchy"
    tail = "heavy"
    lipschitz = _GC_L

    def scale(self, epsilon):
        return _GC_L / _check_epsilon(epsilon)

    def std_logpdf(self, z):
        z = np.asarray(z, dtype=float)
        z2 = z * z
        return math.log(_GC_C) - np.log1p(z2 * z2)

    def std_logcdf(self, z):
        z = np.asarray(z, dtype=float)
        far = z < -2.0
        with np.errstate(divide="ignore", invalid="ignore"):
            tail = _gc_log_tail(np.where(far, -1.0 / np.where(far, z, -1.0), 0.5))
            core = np.log(_gc_cdf_core(np.where(far, 0.0, z)))
        return np.where(far, tail, core)

    def std_sample(self, rng, size):
        # rejection from the standard Cauchy: f/g = sqrt2 (1+z^2)/(1+z^4) <= sqrt2 * (1+sqrt2)/2
        size = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        n = int(np.prod(size))
        bound = math.sqrt(2.0) * (1 + math.sqrt(2.0)) / 2
        out = np.empty(0)
        while out.size < n:
            z = rng.standard_cauchy(2 * (n - out.size) + 16)
            accept = rng.random(z.size) * bound <= math.sqrt(2.0) * (1 + z * z) / (1 + z**4)
            out = np.concatenate([out, z[accept]])
        return out[:n].reshape(size)


class RandomizedResponse:
    r"""k-ary randomized response on a finite domain of ``k`` values (Warner 1965; Kairouz,
    Oh and Viswanath 2016).

    Releases the true value with probability :math:`e^\epsilon/(e^\epsilon + k - 1)` and each
    of the other :math:`k - 1` values with probability :math:`1/(e^\epsilon + k - 1)`.  The
    likelihood ratio of two inputs at any output is at most :math:`e^\epsilon`, so it is
    :math:`\epsilon`-DP with respect to the discrete metric (distance 1 between different
    values, Sec. 6.1); for ``k = 2`` it is the classic randomized response.  The domain is the
    prior's list of values (:class:`~garesearch.priors.Categorical`).
    """

    name = "RandomizedResponse"
    tail = "finite"

    @staticmethod
    def _check_k(k) -> int:
        if isinstance(k, bool) or not (isinstance(k, (int, np.integer)) and k >= 2):
            raise ParameterError(f"k (the number of values) must be an integer >= 2; got {k!r}")
        return int(k)

    def keep_probability(self, epsilon, k: int) -> float:
        r""":math:`e^\epsilon/(e^\epsilon + k - 1) = 1/(1 + (k-1)e^{-\epsilon})`."""
        e, k = _check_epsilon(epsilon), self._check_k(k)
        return 1.0 / (1.0 + (k - 1) * math.exp(-e))

    def log_likelihood(self, epsilon, k: int):
        r""":math:`\ln \Pr[Y = j \mid X = i]` as a ``(k, k)`` matrix (row: input, column: output)."""
        e, k = _check_epsilon(epsilon), self._check_k(k)
        if k > _MAX_MATRIX:
            raise ParameterError(f"k: a {k} x {k} likelihood matrix is too large (k <= {_MAX_MATRIX})")
        log_other = -e - math.log1p((k - 1) * math.exp(-e))
        out = np.full((k, k), log_other)
        np.fill_diagonal(out, log_other + e)
        return out

    def sample(self, index, epsilon, k: int, rng: np.random.Generator):
        """Release for each input index in ``range(k)`` an output index (``rng``: a numpy Generator)."""
        if not isinstance(rng, np.random.Generator):
            raise ParameterError("rng must be a numpy.random.Generator (np.random.default_rng(seed))")
        k = self._check_k(k)
        try:
            index = np.asarray(index)
        except (TypeError, ValueError):
            index = np.asarray(None)
        if index.dtype.kind not in "iu" or (index.size and (np.any(index < 0) or np.any(index >= k))):
            raise ParameterError(f"index must hold integers in range(k) = range({k}); got {index!r}")
        keep = rng.random(index.shape) < self.keep_probability(epsilon, k)
        other = (index + rng.integers(1, k, size=index.shape)) % k  # uniform over the other values
        return np.where(keep, index, other)

    def __repr__(self):
        return "RandomizedResponse()"
