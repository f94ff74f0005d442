r"""Additive noise by name, at the scale the user sets: continuous and integer (OpenDP's samplers).

Beyond the paper.  :mod:`garesearch.mechanisms` parametrises a mechanism by the epsilon it is
calibrated to; a user of a DP library sets a *noise scale* instead, per unit of the attribute's
distance (the query moves one-for-one with the attribute; multiply by the query's sensitivity
otherwise).  :func:`resolve` turns a name or a mechanism object into a :class:`ScaledNoise`:

==========================  ==============================================  ======================
name                        noise of scale ``s`` added to the query         privacy at ``s``
==========================  ==============================================  ======================
``"laplace"``               density :math:`\frac{1}{2s}e^{-|z|/s}`          :math:`(1/s)`-DP
``"gaussian"``              :math:`\mathcal N(0, s^2)`                      :math:`\rho = 1/(2s^2)`-zCDP,
                                                                            :math:`(1/s)`-GDP
``"gencauchy"``             :math:`\frac{\sqrt2}{\pi s\,(1+(z/s)^4)}`       :math:`(3^{3/4}/s)`-DP
                            (App. A.1)
``"discrete_laplace"``      integers, :math:`\propto e^{-|k|/s}`            :math:`(1/s)`-DP
``"discrete_gaussian"``     integers, :math:`\propto e^{-k^2/(2s^2)}`       :math:`\rho = 1/(2s^2)`-zCDP
==========================  ==============================================  ======================

The integer variants are the distributions OpenDP samples from
(``opendp.measurements.make_laplace`` and ``make_gaussian`` on an integer domain, with
``scale=s``), so a scale calibrated here can be passed to OpenDP as it is.  They need a
:class:`~garesearch.priors.Categorical` prior on integers.  On integers their probability mass
functions are the continuous densities up to a constant that does not depend on the input, so
the attacker's posterior after an integer output ``y`` is the continuous mechanism's posterior
at ``y`` (:func:`garesearch.exact.posterior` with the continuous kernel at the same scale).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import ParameterError
from .mechanisms import _GC_L, Gaussian, GenCauchy, Laplace, Mechanism

__all__ = ["MECHANISMS", "ScaledNoise", "check_scale", "resolve"]

#: the names :func:`resolve` accepts
MECHANISMS = ("laplace", "gaussian", "gencauchy", "discrete_laplace", "discrete_gaussian")

#: tail mass of the discrete Gaussian left out of its tables (relative to its mode)
_DG_TAIL = 1e-18
_DG_MAX_SCALE = 1e5


def check_scale(scale, name: str = "scale") -> float:
    """A noise scale: a finite number > 0 (raises :class:`ParameterError` otherwise).

    Examples
    --------
    >>> check_scale(2)
    2.0
    >>> check_scale(0.0)
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: scale must be a finite number > 0; got 0.0
    """
    if not (isinstance(scale, (int, float, np.integer, np.floating)) and math.isfinite(float(scale))
            and float(scale) > 0):
        raise ParameterError(f"{name} must be a finite number > 0; got {scale!r}")
    return float(scale)


def _log_diff(big, small):
    """``log(exp(big) - exp(small))`` for ``big >= small``, ``-inf`` where they are equal."""
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.minimum(small - big, 0.0)
        out = big + np.log(-np.expm1(d))
    return np.where(np.isneginf(big) | (small >= big), -np.inf, out)


@dataclass(frozen=True)
class ScaledNoise:
    """One of :data:`MECHANISMS` (module docstring); scales are passed to each method.

    Attributes
    ----------
    name : str
        One of :data:`MECHANISMS`.
    kernel : Mechanism
        The continuous mechanism whose density gives the posterior (Laplace, Gaussian or
        generalised Cauchy).
    discrete : bool
        True for the integer variants (outputs and inputs are integers).
    """

    name: str
    kernel: Mechanism
    discrete: bool

    # -- parameters ---------------------------------------------------------------------
    @property
    def unimodal(self) -> bool:
        r"""Whether the posterior of an interval is unimodal in the output.

        Laplace: proved in :mod:`garesearch.exact` (module docstring).  Gaussian: the kernel
        :math:`e^{-(y-x)^2/2s^2}` is totally positive, so by Karlin's variation-diminishing
        property :math:`\int (1_{[l,h]}(x) - c)\, f(y|x)\, d\pi(x)` changes sign in ``y`` at most
        twice, in the order -, +, - (as :math:`1_{[l,h]} - c` does in ``x``): every super-level
        set of the posterior is an interval.  Generalised Cauchy: no such property (the kernel is
        not log-concave).
        """
        return self.name != "gencauchy"

    def epsilon_arg(self, scale: float) -> float:
        """The ``epsilon`` argument under which :mod:`garesearch.exact` uses noise of ``scale``."""
        return self.kernel.scale(1.0) / check_scale(scale)

    def pure_epsilon(self, scale: float, distance: float = 1.0) -> float:
        r"""The pure :math:`\epsilon` of one release between inputs ``distance`` apart (``inf``
        for Gaussian noise, which is not :math:`\epsilon`-DP for any :math:`\epsilon`)."""
        s = check_scale(scale)
        if self.name in ("gaussian", "discrete_gaussian"):
            return math.inf
        return (_GC_L if self.name == "gencauchy" else 1.0) * float(distance) / s

    # -- probabilities of the noise ---------------------------------------------------------
    def log_interval(self, lo, hi, scale: float):
        r""":math:`\ln \Pr[lo \le Z \le hi]` for noise ``Z`` of ``scale`` (vectorised; for the
        integer variants the integers in the closed interval)."""
        s = check_scale(scale)
        lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
        if not self.discrete:
            lo_f = np.where(np.isfinite(lo), lo, np.sign(lo) * 1e100 * s)
            hi_f = np.where(np.isfinite(hi), hi, np.sign(hi) * 1e100 * s)
            return self.kernel.log_interval(lo_f, hi_f, self.epsilon_arg(s))
        with np.errstate(invalid="ignore"):
            m = np.ceil(lo)
            n = np.floor(hi)
        return self._log_int_range(m, n, s)

    def _log_sf(self, k, s):
        r""":math:`\ln \Pr[Z \ge k]` for integers ``k`` (array)."""
        k = np.asarray(k, float)
        if self.name == "discrete_laplace":
            a = 1.0 / s
            with np.errstate(over="ignore", invalid="ignore"):
                upper = -a * k - math.log1p(math.exp(-a))  # k >= 1
                lower = np.log1p(-np.exp(-a * (1 - k) - math.log1p(math.exp(-a))))  # k <= 0
            out = np.where(k >= 1, upper, lower)
            return np.where(np.isneginf(k), 0.0, np.where(np.isposinf(k), -np.inf, out))
        ks, log_sf = _dg_table(s)
        kk = np.clip(k, ks[0], ks[-1] + 1)
        idx = np.where(np.isfinite(kk), kk - ks[0], 0).astype(np.int64)
        table = np.concatenate([log_sf, [-np.inf]])
        out = table[np.clip(idx, 0, table.size - 1)]
        return np.where(k <= ks[0], 0.0, np.where(k > ks[-1], -np.inf, out))

    def _log_int_range(self, m, n, s):
        """``ln Pr[m <= Z <= n]`` for integer (or infinite) ``m``, ``n``."""
        # Pr[Z >= m] - Pr[Z >= n + 1], subtracting in the tail where it is accurate
        upper = m >= 1
        with np.errstate(invalid="ignore"):
            a_hi, a_lo = self._log_sf(m, s), self._log_sf(n + 1, s)
            b_hi, b_lo = self._log_sf(-n, s), self._log_sf(-m + 1, s)  # by symmetry, Pr[Z <= n] ...
        out = np.where(upper, _log_diff(a_hi, a_lo), _log_diff(b_hi, b_lo))
        return np.where(n >= m, out, -np.inf)

    def log_pmf(self, k, scale: float):
        """Log-probability of the integer ``k`` (integer variants only)."""
        if not self.discrete:
            raise ParameterError(f"{self.name} noise is continuous: it has a density, not a pmf")
        k = np.asarray(k, float)
        return self._log_int_range(k, k, check_scale(scale))

    def support_halfwidth(self, scale: float, tail: float = 1e-18) -> float:
        """A half-width outside which the noise has probability below ``tail`` (light tails)."""
        s = check_scale(scale)
        if self.name in ("gaussian", "discrete_gaussian"):
            return s * math.sqrt(2 * math.log(2 / tail)) + 1
        if self.name in ("laplace", "discrete_laplace"):
            return s * math.log(1 / tail) + 1
        return s * (1 / tail) ** (1 / 3)  # generalised Cauchy: tail ~ c / (3 z^3)

    # -- sampling ---------------------------------------------------------------------------
    def sample(self, size, scale: float, rng: np.random.Generator) -> np.ndarray:
        """Draws of the noise with numpy (``rng``: a numpy Generator); integers as floats."""
        s = check_scale(scale)
        if not isinstance(rng, np.random.Generator):
            raise ParameterError("rng must be a numpy.random.Generator (np.random.default_rng(seed))")
        if not self.discrete:
            return s * self.kernel.std_sample(rng, size)
        if self.name == "discrete_laplace":  # difference of two geometric variables
            q = -math.expm1(-1.0 / s)
            return (rng.geometric(q, size) - rng.geometric(q, size)).astype(float)
        ks, log_sf = _dg_table(s)
        sf = np.exp(log_sf)  # decreasing from 1
        u = rng.random(size)
        idx = np.searchsorted(-sf, -u, side="right") - 1  # last k with Pr[Z >= k] >= u
        return ks[np.clip(idx, 0, ks.size - 1)].astype(float)

    def __repr__(self):
        return f"ScaledNoise({self.name!r})"


_DG_CACHE: dict[float, tuple[np.ndarray, np.ndarray]] = {}


def _dg_table(s: float):
    r"""Integers ``k`` and :math:`\ln\Pr[Z \ge k]` of the discrete Gaussian of scale ``s``.

    The table spans :math:`|k| \le K` with :math:`e^{-K^2/2s^2}` below :data:`_DG_TAIL`; the
    normalising constant is the sum over that range.
    """
    if s in _DG_CACHE:
        return _DG_CACHE[s]
    if s > _DG_MAX_SCALE:
        raise ParameterError(
            f"scale of the discrete Gaussian must be at most {_DG_MAX_SCALE:g} here (its tables grow "
            f"with the scale); got {s:g}. At that scale it is indistinguishable from 'gaussian'."
        )
    big = math.ceil(s * math.sqrt(2 * math.log(1 / _DG_TAIL))) + 1
    ks = np.arange(-big, big + 1)
    logw = -0.5 * (ks / s) ** 2
    log_z = np.logaddexp.reduce(logw)
    log_sf = np.logaddexp.accumulate((logw - log_z)[::-1])[::-1]
    log_sf = np.minimum(log_sf, 0.0)
    log_sf[0] = 0.0
    if len(_DG_CACHE) > 32:
        _DG_CACHE.clear()
    _DG_CACHE[s] = (ks, log_sf)
    return ks, log_sf


def resolve(mechanism) -> ScaledNoise:
    """A mechanism name (:data:`MECHANISMS`) or object as a :class:`ScaledNoise` (beyond the paper).

    Objects: :class:`~garesearch.mechanisms.Laplace`, :class:`~garesearch.mechanisms.Gaussian`
    (any calibration: only the shape of the noise is used here, the scale is set by the caller)
    and :class:`~garesearch.mechanisms.GenCauchy`, or a :class:`ScaledNoise`.

    Examples
    --------
    >>> resolve("discrete_gaussian").pure_epsilon(2.0)
    inf
    >>> resolve("laplace").pure_epsilon(2.0)
    0.5
    """
    if isinstance(mechanism, ScaledNoise):
        return mechanism
    if isinstance(mechanism, str):
        name = mechanism.strip().lower().replace("-", "_")
        table = {"laplace": (Laplace(), False), "gaussian": (Gaussian(), False),
                 "gencauchy": (GenCauchy(), False), "discrete_laplace": (Laplace(), True),
                 "discrete_gaussian": (Gaussian(), True)}
        if name not in table:
            raise ParameterError(f"mechanism must be one of {MECHANISMS}; got {mechanism!r}")
        kernel, discrete = table[name]
        return ScaledNoise(name, kernel, discrete)
    if isinstance(mechanism, Laplace):
        return ScaledNoise("laplace", Laplace(), False)
    if isinstance(mechanism, Gaussian):
        return ScaledNoise("gaussian", Gaussian(), False)
    if isinstance(mechanism, GenCauchy):
        return ScaledNoise("gencauchy", GenCauchy(), False)
    raise ParameterError(
        f"mechanism must be one of {MECHANISMS} or a Laplace, Gaussian or GenCauchy object; got {mechanism!r}"
    )
