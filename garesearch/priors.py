r"""Priors for one attribute and their ball masses :math:`g_t(z) = \Pr[d(X, t) \le z]` (Sec. 4.1).

Every prior answers the few questions the method of Sec. 4.1 asks of it:

- :meth:`Prior.mass` -- :math:`\Pr[lo \le X \le hi]` (closed interval; vectorised);
- :meth:`Prior.ball_mass` -- :math:`g_t(z)`, the paper's function ``g``;
- :meth:`Prior.correct_extent` -- the smallest interval holding :math:`X' = \mathcal B(t, r)`
  within the support (this is where the corner case of Fig. 1 enters);
- :meth:`Prior.tail_mgf` -- :math:`\int_{X \setminus X'} e^{\epsilon D(x)} dF(x)`, with
  :math:`D(x)` the largest distance from ``x`` to a point of :math:`X'`, which bounds the
  posterior from below (see :func:`garesearch.attribute.epsilon_for_attribute`).

The metric is :math:`|x - y|` for numeric values.  :class:`Categorical` with non-numeric
keys uses the discrete metric (distance 1 between different values).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import mpmath
import numpy as np

from .errors import ParameterError

__all__ = ["Categorical", "Continuous", "Normal", "PiecewiseUniform", "Prior", "Uniform"]

_NORM_TOL = 1e-9
_SPECIAL = []


def _special():
    """``scipy.special``, imported on first use (``import garesearch`` stays light)."""
    if not _SPECIAL:
        import scipy.special

        _SPECIAL.append(scipy.special)
    return _SPECIAL[0]


def _finite(name, x):
    if isinstance(x, (bool, np.bool_)) or not (
        isinstance(x, (int, float, np.integer, np.floating)) and math.isfinite(float(x))
    ):
        raise ParameterError(f"{name} must be a finite real number; got {x!r}")
    return float(x)


#: smallest normal float64: a width or scale below it has an overflowing reciprocal
_TINY = float(np.finfo(float).tiny)


def _check_span(low: float, high: float, what: str) -> None:
    """The support [low, high] must have a width that is a finite, normal float64 (its
    density, 1/width, then stays finite)."""
    width = high - low
    if not math.isfinite(width):
        raise ParameterError(
            f"{what}: the width of the support [{low!r}, {high!r}] overflows float64; "
            "express the attribute in a larger unit"
        )
    if not width >= _TINY:
        raise ParameterError(
            f"{what}: the width high - low = {width!r} is below the smallest normal float64 "
            f"({_TINY:.3g}), so the density overflows; express the attribute in a smaller unit"
        )


_LOG_MAX = math.log(np.finfo(float).max)  # exp() overflows beyond


class Prior(ABC):
    """Base class: a prior distribution of one attribute with a metric (Sec. 4.1).

    Subclasses provide the ball masses :math:`g_t(z)` of Sec. 4.1 through :meth:`mass`, and the
    tail integrals the lower side of Def. 7 needs through :meth:`tail_mgf`.
    """

    #: ``"absolute"`` (``|x - y|``) or ``"discrete"`` (1 between different values)
    metric: str = "absolute"

    @property
    @abstractmethod
    def support(self) -> tuple[float, float]:
        """Smallest closed interval holding all the prior's mass (may be infinite)."""

    @abstractmethod
    def mass(self, lo, hi):
        r""":math:`\Pr[lo \le X \le hi]`, vectorised (0 where ``hi < lo``)."""

    def mass1(self, lo: float, hi: float) -> float:
        """:meth:`mass` for two floats, as a float (subclasses may skip the array overhead):
        the form the scalar searches call.

        Examples
        --------
        >>> from garesearch.priors import Uniform
        >>> Uniform(0, 4).mass1(1.0, 2.0)
        0.25
        """
        return float(self.mass(lo, hi))

    def ball_mass(self, t, z):
        r"""The paper's :math:`g_t(z) = \Pr[|X - t| \le z]` (Sec. 4.1)."""
        t = np.asarray(t, dtype=float)
        z = np.asarray(z, dtype=float)
        out = self.mass(t - z, t + z)
        return float(out) if np.ndim(out) == 0 else out

    def correct_extent(self, t: float, r: float) -> tuple[float, float]:
        """Smallest interval ``[lo, hi]`` holding the support's part of :math:`[t-r, t+r]`."""
        low, high = self.support
        return max(t - r, low), min(t + r, high)

    def log_tail_mgf(self, epsilon: float, lo: float, hi: float) -> float:
        r""":math:`\ln M(\epsilon)`, :math:`M(\epsilon) = \int_{x < lo \text{ or } x > hi}
        e^{\epsilon D(x)} dF(x)` with :math:`D(x) = \max(|x - lo|, |x - hi|)` (the lower side
        of Def. 7, Sec. 4.1), from the tilted tails (:meth:`log_tilted_tail`): ``inf`` where it
        diverges, ``-inf`` where no mass lies outside ``[lo, hi]``.

        Examples
        --------
        >>> from scipy.integrate import quad
        >>> d = lambda x: math.exp(1.0 * (x + 1) - x * x / 2) / math.sqrt(2 * math.pi)
        >>> want = 2 * quad(d, 1, math.inf)[0]  # both tails of N(0, 1) outside [-1, 1]
        >>> abs(math.exp(Normal(0, 1).log_tail_mgf(1.0, -1.0, 1.0)) / want - 1) < 1e-12
        True
        """
        e, lo, hi = float(epsilon), float(lo), float(hi)
        finite = self.is_finite  # atoms at lo and hi lie in [lo, hi]: the tails start beyond
        below = math.nextafter(lo, -math.inf) if finite else lo
        above = math.nextafter(hi, math.inf) if finite else hi
        low, high = self.support
        with np.errstate(all="ignore"):
            left = float(self.log_tilted_tail(-e, below, "left")) if lo > low else -math.inf
            right = float(self.log_tilted_tail(e, above, "right")) if hi < high else -math.inf
        out = np.logaddexp(left, right) + e * (hi - lo)
        return float(out) if not math.isnan(out) else math.inf

    def tail_mgf(self, epsilon: float, lo: float, hi: float) -> float:
        r""":math:`M(\epsilon) = E[e^{\epsilon D(X)};\ X < lo \text{ or } X > hi]` with
        :math:`D(x) = \max(|x - lo|, |x - hi|)`; ``inf`` where it diverges or overflows
        (:meth:`log_tail_mgf` in linear scale).

        Examples
        --------
        >>> round(Categorical({0: 0.5, 1: 0.5}).tail_mgf(1.0, 0.0, 0.0), 6)  # e / 2
        1.359141
        """
        out = self.log_tail_mgf(epsilon, lo, hi)
        return math.exp(out) if out < _LOG_MAX else math.inf

    def log_tilted_tail(self, k: float, x, side: str):
        r"""Tilted tail of the prior, anchored at ``x`` (the one exponential-moment kernel of
        garesearch; see :mod:`garesearch.tilted`):

        .. math::

            \mathrm{LT}_k(x) = \log \int_{u \le x} e^{k(u - x)} dF(u) \ (\texttt{side="left"}),
            \qquad
            \mathrm{RT}_k(x) = \log \int_{u \ge x} e^{k(u - x)} dF(u) \ (\texttt{side="right"}).

        Vectorised over ``x``; ``k`` is one real number.  ``inf`` where the integral diverges
        (a growing tilt over a tail heavier than :math:`e^{-|k| u}`), ``-inf`` where there is
        no mass.
        """
        raise NotImplementedError(f"{type(self).__name__} has no tilted tails")

    def log_tilted_mass(self, k: float, lo, hi, anchor):
        r""":math:`\log \int_{lo \le u \le hi} e^{k(u - \text{anchor})} dF(u)`, vectorised,
        from the tilted tails (:meth:`log_tilted_tail`): the difference of two left tails or of
        two right tails, whichever loses fewer digits (one tail where an end is infinite).
        """
        from .tilted import log_diff_exp

        k = float(k)
        lo, hi, anchor = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (lo, hi, anchor)))
        lo_inf, hi_inf = np.isneginf(lo), np.isposinf(hi)
        with np.errstate(invalid="ignore", over="ignore"):
            if np.all(lo_inf & ~hi_inf):  # one tail
                out = self.log_tilted_tail(k, hi, "left") + k * (hi - anchor)
                return float(out) if out.ndim == 0 else out
            if np.all(hi_inf & ~lo_inf):
                out = self.log_tilted_tail(k, lo, "right") + k * (lo - anchor)
                return float(out) if out.ndim == 0 else out
        # infinite ends: the one tail from the finite end (from the anchor if both are)
        lo = np.where(lo_inf, np.where(hi_inf, anchor, hi), lo)
        hi = np.where(hi_inf, lo, hi)
        # atoms at lo and hi belong to the interval; a density has none (and the next float
        # beyond a far end can be a wide step)
        below = np.nextafter(lo, -np.inf) if self.is_finite else lo
        above = np.nextafter(hi, np.inf) if self.is_finite else hi
        with np.errstate(invalid="ignore", over="ignore"):
            l_hi = self.log_tilted_tail(k, hi, "left") + k * (hi - anchor)
            l_lo = self.log_tilted_tail(k, below, "left") + k * (below - anchor)
            r_lo = self.log_tilted_tail(k, lo, "right") + k * (lo - anchor)
            r_hi = self.log_tilted_tail(k, above, "right") + k * (above - anchor)
            # the difference that keeps more digits; a divergent tail (inf) is never used
            gap_left = np.where(np.isfinite(l_hi), l_hi - l_lo, -np.inf)
            gap_right = np.where(np.isfinite(r_lo), r_lo - r_hi, -np.inf)
            use_left = np.nan_to_num(gap_left, nan=-np.inf) >= np.nan_to_num(gap_right, nan=-np.inf)
            left = log_diff_exp(l_hi, np.minimum(l_lo, l_hi))
            right = log_diff_exp(r_lo, np.minimum(r_hi, r_lo))
            out = np.where(use_left, left, right)
            out = np.where(lo_inf & ~hi_inf, l_hi, np.where(hi_inf & ~lo_inf, r_lo, out))
            out = np.where(lo_inf & hi_inf, np.logaddexp(l_hi, r_hi), out)
        out = np.where((hi >= lo) | lo_inf | hi_inf, out, -np.inf)
        return float(out) if out.ndim == 0 else out

    def quantile(self, u):
        """Quantile function (used to place the search grid over true values)."""
        raise NotImplementedError

    def upper_quantile(self, m):
        """The point with upper-tail mass ``m`` (accurate for tiny ``m``, unlike ``quantile(1 - m)``)."""
        return self.quantile(1 - np.asarray(m, dtype=float))

    def paper_R(self) -> float:
        """The ``R`` the paper uses for this prior: the diameter of a bounded support."""
        low, high = self.support
        if not (np.isfinite(low) and np.isfinite(high)):
            raise ParameterError(
                "R: this prior has unbounded support; pass R explicitly for the paper's construction"
            )
        return high - low

    def t_candidates(self, r: float) -> np.ndarray:
        """True values to scan when searching for the worst case (``t=None``).

        The grid reaches every unbounded tail down to tail masses of 1e-30 (two points per
        decade), 257 even steps through the bulk (or the whole bounded support), 129 quantiles,
        and the points where the ball's ends meet the support's ends or breakpoints
        (``low + r``, ``high - r``, ``edges +- r``).  Beyond 1e-30 the searches use each
        construction's analytic limit as ``t`` goes to the end of the support.
        """
        low, high = self.support
        pts = []
        levels = 10.0 ** -np.arange(1.0, 30.01, 0.5)
        with np.errstate(all="ignore"):
            qs = np.asarray(self.quantile(np.array([1e-3, 1 - 1e-3])), dtype=float)
            if math.isinf(low):
                pts.append(np.asarray(self.quantile(levels), dtype=float))
            if math.isinf(high):
                pts.append(np.asarray(self.upper_quantile(levels), dtype=float))
            a = qs[0] if math.isinf(low) else low
            b = qs[1] if math.isinf(high) else high
            pts.append(np.linspace(a, b, 257))
            pts.append(np.asarray(self.quantile(np.linspace(0.002, 0.998, 129)), dtype=float))
            special = [low, low + r, high - r, high]
            edges = getattr(self, "edges", None)
            if edges is not None:
                edges = np.asarray(edges, dtype=float)
                special += [*edges, *(edges - r), *(edges + r)]
            pts.append(np.asarray(special, dtype=float))
        ts = np.unique(np.concatenate(pts))
        return ts[np.isfinite(ts) & (ts >= low) & (ts <= high)]

    @property
    def is_finite(self) -> bool:
        return False


# ------------------------------------------------------------------------------------------
class PiecewiseUniform(Prior):
    r"""Piecewise-uniform prior: mass ``weights[i]`` spread evenly over ``[edges[i], edges[i+1]]``.

    Generalises the uniform prior of Sec. 4.1 (and PLEAK's ``rangePrior``); its ball masses
    :math:`g_t(z)` are piecewise linear in ``z``.

    Parameters
    ----------
    edges : array_like
        Strictly increasing, finite bin edges (at least two).
    weights : array_like
        Non-negative bin masses that sum to 1.
    """

    def __init__(self, edges, weights):
        from ._evaluate import as_float_array

        edges = as_float_array("edges", edges)
        weights = as_float_array("weights", weights)
        if edges.ndim != 1 or edges.size < 2 or not np.all(np.isfinite(edges)):
            raise ParameterError("edges must be a 1-d array of at least two finite numbers")
        with np.errstate(all="ignore"):
            widths = np.diff(edges)
        if np.any(widths <= 0):
            raise ParameterError("edges must be strictly increasing")
        if np.any(widths < _TINY):
            raise ParameterError(
                f"edges: a bin narrower than the smallest normal float64 ({_TINY:.3g}) has an "
                "overflowing density; merge it into a neighbour or use a smaller unit"
            )
        _check_span(float(edges[0]), float(edges[-1]), "edges")
        if weights.shape != (edges.size - 1,):
            raise ParameterError(
                f"weights must have one entry per bin ({edges.size - 1}); got shape {weights.shape}"
            )
        if np.any(~np.isfinite(weights)) or np.any(weights < 0):
            raise ParameterError("weights must be finite and >= 0")
        total = weights.sum()
        if abs(total - 1) > _NORM_TOL:
            raise ParameterError(f"weights must sum to 1 (a prior normalises); they sum to {total!r}")
        self.edges = edges
        self.weights = weights / total
        self._cdf = np.concatenate([[0.0], np.cumsum(self.weights)])
        self._cdf[-1] = 1.0
        self.density = self.weights / np.diff(edges)

    def __repr__(self):
        return f"PiecewiseUniform(edges={self.edges.tolist()}, weights={self.weights.tolist()})"

    @property
    def support(self):
        return float(self.edges[0]), float(self.edges[-1])

    def cdf(self, x):
        return np.interp(x, self.edges, self._cdf)

    def quantile(self, u):
        return np.interp(u, self._cdf, self.edges)

    def mass(self, lo, hi):
        lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
        out = np.where(hi >= lo, self.cdf(hi) - self.cdf(lo), 0.0)
        return np.clip(out, 0.0, 1.0)

    def mass1(self, lo, hi):
        # the operations of mass() on floats (same values), for the scalar searches
        if not hi >= lo:
            return 0.0
        return min(max(float(self.cdf(hi) - self.cdf(lo)), 0.0), 1.0)

    def log_tilted_tail(self, k, x, side):
        if not hasattr(self, "_panels"):
            from .tilted import PanelTable

            with np.errstate(divide="ignore"):
                self._panels = PanelTable(edges=self.edges, log_mass=np.log(self.weights))
        return self._panels.log_tilted_tail(k, x, side)




class Uniform(PiecewiseUniform):
    r"""Uniform prior on ``[low, high]`` (Sec. 4.1, "Uniform distribution").

    An interior true value has :math:`g_t(z) = 2z/W` (``W = high - low``) while
    the ball fits; near an end of the interval the ball is cut (the corner case of Fig. 1).
    """

    def __init__(self, low: float, high: float):
        low, high = _finite("low", low), _finite("high", high)
        if not high > low:
            raise ParameterError(f"high must exceed low; got low={low}, high={high}")
        _check_span(low, high, "Uniform(low, high)")
        super().__init__([low, high], [1.0])
        self.low, self.high = low, high

    def __repr__(self):
        return f"Uniform({self.low}, {self.high})"

    def mass_mp(self, lo, hi):
        """Exact ball mass in mpmath (for the high-precision checks)."""
        lo = max(mpmath.mpf(lo), self.low)
        hi = min(mpmath.mpf(hi), self.high)
        return max(hi - lo, 0) / (mpmath.mpf(self.high) - self.low)


# ------------------------------------------------------------------------------------------
#: quantiles down to 1e-300 lie within mu +- 37.1 sigma
_NORMAL_REACH = 40


class Normal(Prior):
    r"""Normal prior :math:`\mathcal N(\mu, \sigma^2)`; :math:`g_t(z) = \frac12\left[\mathrm{erf}
    \frac{t+z-\mu}{\sigma\sqrt2} - \mathrm{erf}\frac{t-z-\mu}{\sigma\sqrt2}\right]` (Sec. 4.1, 6.2)."""

    def __init__(self, mu: float, sigma: float):
        self.mu = _finite("mu", mu)
        self.sigma = _finite("sigma", sigma)
        if not self.sigma > 0:
            raise ParameterError(f"sigma must be > 0; got {sigma}")
        if self.sigma < _TINY:
            raise ParameterError(
                f"sigma must be at least the smallest normal float64 ({_TINY:.3g}); got {sigma!r}: "
                "express the attribute in a smaller unit"
            )
        if not math.isfinite(abs(self.mu) + 2 * _NORMAL_REACH * self.sigma):
            raise ParameterError(
                f"sigma: the prior's range mu +- {_NORMAL_REACH} sigma (where its quantiles and "
                f"tails are computed) must stay within float64; got mu={mu!r}, sigma={sigma!r}: "
                "express the attribute in a larger unit"
            )

    def __repr__(self):
        return f"Normal({self.mu}, {self.sigma})"

    @property
    def support(self):
        return -math.inf, math.inf

    def mass(self, lo, hi):
        ndtr = _special().ndtr
        lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
        zl, zh = (lo - self.mu) / self.sigma, (hi - self.mu) / self.sigma
        # subtract in the tail where the CDF differences are accurate: for zl > 0,
        # ndtr(-zl) - ndtr(-zh) (flip the sign of z, then of the difference; both exact)
        s = np.where(zl > 0, -1.0, 1.0)
        out = s * (ndtr(s * zh) - ndtr(s * zl))
        return np.where(hi >= lo, np.minimum(np.maximum(out, 0.0), 1.0), 0.0)

    def mass1(self, lo, hi):
        # the operations of mass() on floats (same values), for the scalar searches
        ndtr = _special().ndtr
        if hi < lo:
            return 0.0
        zl, zh = (lo - self.mu) / self.sigma, (hi - self.mu) / self.sigma
        out = float(ndtr(-zl) - ndtr(-zh)) if zl > 0 else float(ndtr(zh) - ndtr(zl))
        return min(max(out, 0.0), 1.0)

    def mass_mp(self, lo, hi):
        """:math:`\\Pr[lo \\le X \\le hi]` with mpmath at the working precision."""
        s = mpmath.sqrt(2) * self.sigma
        return (mpmath.erf((mpmath.mpf(hi) - self.mu) / s) - mpmath.erf((mpmath.mpf(lo) - self.mu) / s)) / 2

    def quantile(self, u):
        from scipy.special import ndtri

        return self.mu + self.sigma * ndtri(u)

    def upper_quantile(self, m):
        from scipy.special import ndtri

        return self.mu - self.sigma * ndtri(m)

    def paper_R(self) -> float:
        r"""The paper's :math:`R = 3\sqrt2\sigma` (Sec. 4.1; printed as :math:`\mu + 3\sqrt2\sigma`)."""
        return 3 * math.sqrt(2) * self.sigma

    def log_tilted_tail(self, k, x, side):
        from .tilted import normal_log_tilted_tail

        return normal_log_tilted_tail(k, x, self.mu, self.sigma, side)




# ------------------------------------------------------------------------------------------
class Continuous(Prior):
    """Any frozen continuous ``scipy.stats`` distribution as a prior ("distributions with a
    well-defined CDF", Sec. 4.1): :math:`g_t(z) = F(t + z) - F(t - z)`.

    Parameters
    ----------
    dist : scipy.stats frozen distribution
        For example ``scipy.stats.lognorm(0.5, scale=2000)``.
    """

    def __init__(self, dist: Any):
        import warnings

        import scipy.stats

        if isinstance(dist, scipy.stats.rv_continuous):
            raise ParameterError(
                f"dist must be a frozen distribution (with its parameters), e.g. "
                f"scipy.stats.{dist.name}(...); got the unfrozen scipy.stats.{dist.name}"
            )
        if not (hasattr(dist, "cdf") and hasattr(dist, "sf") and hasattr(dist, "ppf")):
            raise ParameterError("dist must be a frozen scipy.stats continuous distribution")
        if not hasattr(dist, "pdf"):
            raise ParameterError("dist must be continuous (have a pdf); use Categorical for discrete priors")
        if not isinstance(getattr(dist, "dist", None), scipy.stats.rv_continuous):
            raise ParameterError("dist must be a frozen scipy.stats continuous distribution")
        params = list(enumerate(dist.args)) + list(dist.kwds.items())
        for key, value in params:
            label = f"argument {key}" if isinstance(key, int) else key
            if isinstance(value, (bool, np.bool_)) or not (
                isinstance(value, (int, float, np.integer, np.floating))
                and math.isfinite(float(value))
            ):
                raise ParameterError(f"dist: {label} must be a finite real number; got {value!r}")
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                total = float(dist.cdf(np.inf) - dist.cdf(-np.inf))
                lo, hi = (float(x) for x in dist.support())
        except (TypeError, ValueError, ArithmeticError) as exc:
            raise ParameterError(f"dist: scipy rejects its parameters ({exc})") from None
        if not abs(total - 1) <= _NORM_TOL:
            raise ParameterError(
                f"dist does not normalise (total mass {total}): are its parameters valid for "
                f"scipy.stats.{dist.dist.name}?"
            )
        if not lo < hi:
            raise ParameterError(f"dist: its support [{lo}, {hi}] is empty")
        if math.isfinite(lo) and math.isfinite(hi):
            _check_span(lo, hi, "dist")
        self.dist = dist

    def __repr__(self):
        return f"Continuous({self.dist.dist.name}{tuple(self.dist.args)})"

    @property
    def support(self):
        lo, hi = self.dist.support()
        return float(lo), float(hi)

    def mass(self, lo, hi):
        lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
        med = float(self.dist.median())
        upper = lo > med
        out = np.where(upper, self.dist.sf(lo) - self.dist.sf(hi), self.dist.cdf(hi) - self.dist.cdf(lo))
        return np.where(hi >= lo, np.clip(out, 0.0, 1.0), 0.0)

    def quantile(self, u):
        return self.dist.ppf(u)

    def upper_quantile(self, m):
        return self.dist.isf(m)

    def tail_rates(self) -> tuple[float, float]:
        """Exponential decay rates of the upper and lower tails of the density.

        :math:`M(\\epsilon)` is finite only for epsilon below the rate of each unbounded tail.
        The rate is read off the log-density at two depths of the tail (tail masses 1e-6 to
        1e-8 and 1e-12 to 1e-14): a rate that falls by more than half between them marks a
        tail heavier than any exponential (Cauchy, Student t, log-normal), rate 0.
        ``inf`` for a bounded side.
        """
        if not hasattr(self, "_rates"):
            low, high = self.support
            rates = []
            for upper, bounded in ((True, np.isfinite(high)), (False, np.isfinite(low))):
                if bounded:
                    rates.append(math.inf)
                    continue
                at = (lambda m: float(self.dist.isf(m))) if upper else (lambda m: float(self.dist.ppf(m)))

                def rate(m1, m2, at=at):
                    x1, x2 = at(m1), at(m2)
                    return max(float(self.dist.logpdf(x1) - self.dist.logpdf(x2)) / abs(x2 - x1), 0.0)

                shallow, deep = rate(1e-6, 1e-8), rate(1e-12, 1e-14)
                rates.append(0.0 if deep < 0.5 * shallow else min(shallow, deep))
            self._rates = tuple(rates)
        return self._rates

    def tail_class(self, side: str) -> tuple[str, float]:
        r"""How the density decays toward one end: ``("bounded", inf)``, ``("light", rate)``
        (faster than every exponential), ``("exponential", lam)`` (like :math:`e^{-\lambda |x|}`)
        or ``("heavy", 0.0)`` (slower than every exponential: log-normal, Student t, Pareto).

        Read off the slope :math:`\rho` of the log-density at tail masses 1e-20 to 1e-290:
        :math:`\rho |x|` grows like :math:`|x|^\gamma` with :math:`\gamma = 1` for exponential
        tails, more for lighter ones and less for heavier ones (0 for power laws, and tending
        to 0 for the log-normal), estimated from the two deepest points; only
        :math:`0.9 \le \gamma \le 1.1` counts as exponential, with the rate extrapolated as
        :math:`\rho \approx \lambda + c/|x|` and capped by the deepest rate (the conservative
        choice for the bounds that use it: a heavier tail is never taken for a lighter one).
        """
        if side not in ("left", "right"):
            raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
        cache = self.__dict__.setdefault("_tail_classes", {})
        if side in cache:
            return cache[side]
        low, high = self.support
        if (side == "right" and math.isfinite(high)) or (side == "left" and math.isfinite(low)):
            cache[side] = ("bounded", math.inf)
            return cache[side]
        at = self.dist.isf if side == "right" else self.dist.ppf
        xs, rates = [], []
        with np.errstate(all="ignore"):
            for m in (1e-20, 1e-60, 1e-120, 1e-200, 1e-290):
                x = float(at(m))
                if not math.isfinite(x) or (xs and x == xs[-1]):
                    continue
                h = 1e-6 * max(abs(x), 1.0)
                slope = float(self.dist.logpdf(x + h) - self.dist.logpdf(x - h)) / (2 * h)
                rate = -slope if side == "right" else slope
                if math.isfinite(rate):
                    xs.append(x)
                    rates.append(max(rate, 0.0))
        if len(rates) < 2:
            cache[side] = ("heavy", 0.0)
            return cache[side]
        # rate * |x| grows like |x|^gamma: gamma ~ 1 exponential, > 1 light, < 1 heavy
        # (power laws: gamma = 0; log-normal: gamma -> 0; Weibull with shape c: gamma = c)
        med = float(self.dist.median())
        (x1, r1), (x2, r2) = ((abs(xs[i] - med), rates[i]) for i in (-2, -1))
        gamma = math.log(max(r2 * x2, 1e-300) / max(r1 * x1, 1e-300)) / math.log(x2 / x1)
        if gamma > 1.1:
            cache[side] = ("light", r2)
        elif gamma < 0.9 or not r2 > 0:
            cache[side] = ("heavy", 0.0)
        else:
            lam = (r2 * x2 - r1 * x1) / (x2 - x1)
            cache[side] = ("exponential", max(min(lam, r2), 0.0))
        return cache[side]

    def _panel_table(self):
        """A :class:`~garesearch.tilted.PanelTable` of this density: edges at tail masses
        down to 1e-300 (1e-40 on a heavy tail; eight per decade) and 1,024 even steps through
        the bulk, split until
        the log-density is linear on each panel to 1e-5 and changes by at most 1; exact masses from the CDF, the
        log-density linear within each panel; the unbounded ends exponential panels
        (:meth:`tail_class`)."""
        from .tilted import PanelTable, log_diff_exp

        d = self.dist
        low, high = self.support
        def levels(side):
            # growing tilts reach far into light and exponential tails; over a heavy tail
            # they diverge, and decaying ones fade within the first 1e-40 of mass
            deep = 40.0 if self.tail_class(side)[0] == "heavy" else 300.0
            return 10.0 ** -np.arange(1.0, deep + 0.01, 0.125)

        with np.errstate(all="ignore"):
            pts = [d.ppf(levels("left")), d.isf(levels("right")),
                   np.linspace(float(d.ppf(1e-3)), float(d.isf(1e-3)), 1025)]
            x = np.unique(np.concatenate(pts))
            x = x[np.isfinite(x) & (x > low) & (x < high)]
            for _ in range(12):
                # split panels on which the log-density is not linear to 1e-5 (its midpoint
                # value against the chord) or jumps by more than 1
                lp = d.logpdf(x)
                mid = 0.5 * (x[:-1] + x[1:])
                bend = np.abs(d.logpdf(mid) - 0.5 * (lp[:-1] + lp[1:]))
                jump = np.abs(np.diff(lp))
                bad = np.flatnonzero((np.isfinite(bend) & (bend > 1e-5)) | (np.isfinite(jump) & (jump > 1.0)))
                if bad.size == 0 or x.size > 40_000:
                    break
                x = np.unique(np.concatenate([x, mid[bad]]))
            edges = np.concatenate([[low], x, [high]])
            edges = edges[np.concatenate([[True], np.diff(edges) > 0])]
            med = float(d.median())
            lcdf = d.logcdf(edges)
            lsf = d.logsf(edges)
            upper = edges[:-1] >= med
            log_mass = np.where(upper, log_diff_exp(lsf[:-1], lsf[1:]), log_diff_exp(lcdf[1:], lcdf[:-1]))
            lp = d.logpdf(edges)
            beta = np.diff(lp) / np.diff(edges)
            beta = np.where(np.isfinite(beta), beta, 0.0)
            if math.isinf(low):
                kind, lam = self.tail_class("left")
                beta[0] = {"heavy": 1e-300, "exponential": lam}.get(kind, max(beta[1], lam, 1e-300))
            if math.isinf(high):
                kind, lam = self.tail_class("right")
                beta[-1] = -{"heavy": 1e-300, "exponential": lam}.get(kind, max(-beta[-2], lam, 1e-300))
        return PanelTable(edges=edges, log_mass=log_mass, beta=beta, logpdf=d.logpdf)

    def log_tilted_tail(self, k, x, side):
        """Tilted tails (:meth:`Prior.log_tilted_tail`): whole panels of a fine approximation of
        the density (:meth:`_panel_table`, built once), the panel cut by ``x`` by quadrature of
        the true density (relative error about 1e-9)."""
        if not hasattr(self, "_panels"):
            self._panels = self._panel_table()
        return self._panels.log_tilted_tail(k, x, side)




# ------------------------------------------------------------------------------------------
class Categorical(Prior):
    """A prior on finitely many values, ``{value: probability}``.

    Numeric keys use the metric ``|x - y|``; any other keys (strings, tuples, ...) the discrete
    metric, distance 1 between different values (Sec. 4.1 "A discrete set of prior
    probabilities", Sec. 6.1).  Keys with probability 0 are dropped.

    Parameters
    ----------
    mapping : Mapping
        Values and their probabilities; probabilities in [0, 1] summing to 1.

    Attributes
    ----------
    values : list
        The values with positive probability (sorted when numeric).
    probs : ndarray
        Their probabilities.
    points : ndarray or None
        The numeric values as floats (``None`` under the discrete metric).
    metric : {"absolute", "discrete"}

    Examples
    --------
    >>> c = Categorical({3: 0.5, 1: 0.25, 2: 0.25})
    >>> c.values, c.points.tolist(), c.metric
    ([1, 2, 3], [1.0, 2.0, 3.0], 'absolute')
    """

    def __init__(self, mapping: Mapping):
        if not isinstance(mapping, Mapping) or not mapping:
            raise ParameterError("mapping must be a non-empty {value: probability} mapping")
        items = []
        for k, v in mapping.items():
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(float(v)):
                raise ParameterError(f"probability of {k!r} must be a finite number; got {v!r}")
            if isinstance(k, (float, np.floating)) and not math.isfinite(float(k)):
                raise ParameterError(
                    f"mapping: the value {k!r} is not a finite number (numeric values must be finite)"
                )
            if not 0 <= float(v) <= 1:
                raise ParameterError(f"probability of {k!r} must lie in [0, 1]; got {v!r}")
            if float(v) > 0:
                items.append((k, float(v)))
        total = math.fsum(v for _, v in items)
        if abs(total - 1) > _NORM_TOL:
            raise ParameterError(f"probabilities must sum to 1 (a prior normalises); they sum to {total!r}")
        numeric = all(
            isinstance(k, (int, float, np.integer, np.floating)) and not isinstance(k, bool)
            for k, _ in items
        )
        self.metric = "absolute" if numeric else "discrete"
        if numeric:
            items.sort(key=lambda kv: float(kv[0]))
            low, high = float(items[0][0]), float(items[-1][0])
            if len(items) > 1 and not math.isfinite(high - low):
                raise ParameterError(
                    f"mapping: the values span [{low!r}, {high!r}], too wide for float64 "
                    "distances; express the attribute in a larger unit"
                )
        self.values = [k for k, _ in items]
        self.probs = np.array([v for _, v in items]) / total
        #: The numeric values as a sorted float array, in the order of :attr:`values`
        #: (``None`` under the discrete metric).
        self.points = np.array([float(k) for k in self.values]) if numeric else None

    def __repr__(self):
        return f"Categorical({dict(zip(self.values, self.probs.tolist(), strict=True))})"

    @property
    def is_finite(self) -> bool:
        return True

    def probability(self, value) -> float:
        """Prior probability of one value."""
        try:
            return float(self.probs[self.values.index(value)])
        except ValueError:
            shown = ", ".join(repr(v) for v in self.values[:10]) + (", ..." if len(self.values) > 10 else "")
            raise ParameterError(f"t={value!r} is not a value of this prior; values: {shown}") from None

    @property
    def support(self):
        if self.metric == "discrete":
            raise ParameterError("a Categorical prior with the discrete metric has no interval support")
        return float(self.points[0]), float(self.points[-1])

    def _require_numeric(self):
        if self.metric != "absolute":
            raise ParameterError(
                "this operation needs numeric values; the prior's keys use the discrete metric"
            )

    def mass(self, lo, hi):
        self._require_numeric()
        lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
        cdf = np.concatenate([[0.0], np.cumsum(self.probs)])
        i = np.searchsorted(self.points, lo, side="left")
        j = np.searchsorted(self.points, hi, side="right")
        return np.where(j > i, cdf[j] - cdf[i], 0.0)

    def correct_extent(self, t, r):
        self._require_numeric()
        inside = self.points[np.abs(self.points - t) <= r]
        if inside.size == 0:
            return t, t  # X' holds no mass
        return float(inside[0]), float(inside[-1])

    def log_tilted_tail(self, k, x, side):
        self._require_numeric()
        if not hasattr(self, "_panels"):
            from .tilted import PanelTable

            self._panels = PanelTable(atoms=self.points, log_mass=np.log(self.probs))
        return self._panels.log_tilted_tail(k, x, side)


    def quantile(self, u):
        self._require_numeric()
        cdf = np.cumsum(self.probs)
        return self.points[np.minimum(np.searchsorted(cdf, u), self.points.size - 1)]

    def t_candidates(self, r):
        return np.asarray(self.values, dtype=float) if self.metric == "absolute" else None
