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
from collections.abc import Mapping

import mpmath
import numpy as np

from ._priors_base import (
    _NORM_TOL,
    _TINY,
    Prior,
    _check_span,
    _finite,
    _special,
)
from ._priors_base import _middle as _middle
from ._priors_continuous import MASS_POWER as MASS_POWER
from ._priors_continuous import Continuous
from ._priors_continuous import cdf_error as cdf_error
from .errors import ParameterError

__all__ = ["Categorical", "Continuous", "Normal", "PiecewiseUniform", "Prior", "Uniform"]


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

    def _table(self):
        if not hasattr(self, "_panels"):
            from .enclosures.tilted import UniformPanels

            with np.errstate(divide="ignore"):
                self._panels = UniformPanels(self.edges, np.log(self.weights))
        return self._panels

    def tilted_tail_bounds(self, k, x, side):
        """Closed forms per uniform panel (:class:`~garesearch.enclosures.tilted.UniformPanels`)."""
        return self._table().tail(k, x, side)

    def _interval_bounds(self, k, lo, hi):
        return self._table().interval(k, lo, hi, True)


# ------------------------------------------------------------------------------------------
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

    def tilted_tail_bounds(self, k, x, side):
        """The closed form (:func:`~garesearch.enclosures.tilted.normal_log_tilted_tail`) widened by its
        rounding-error bound."""
        from .enclosures.tilted import _normal_tail

        val, pad = _normal_tail(k, x, self.mu, self.sigma, side)
        return val - pad, val + pad

    def tail(self, side):
        from .enclosures.tails import Tail

        if side not in ("left", "right"):
            raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
        return Tail("light", math.inf, math.inf, "normal: hazard grows like |x| / sigma^2")

    #: the tilted masses of intervals come from differences of tilted tails
    #: (:func:`garesearch.enclosures.tilted.combine_tails`)
    tails_only = True

    def _estimate_tail(self, k, x, side):
        from .enclosures.tilted import normal_log_tilted_tail

        return normal_log_tilted_tail(k, x, self.mu, self.sigma, side)

    def hazard(self, x, side):
        sp = _special()
        z = (np.asarray(x, dtype=float) - self.mu) / self.sigma
        zz = z if side == "right" else -z
        with np.errstate(all="ignore"):
            h = np.exp(-0.5 * zz * zz - 0.5 * math.log(2 * math.pi) - sp.log_ndtr(-zz)) / self.sigma
        return h * (1 - 1e-12)

    def _excess_table(self):
        """CDF panels of this normal (``log_ndtr``), for the excess form at small tilts."""
        if not hasattr(self, "_panels"):
            from .enclosures.tilted import CdfPanels

            sp = _special()
            mu, s = self.mu, self.sigma
            far = np.sqrt(2 * np.log(10.0) * np.arange(10.0, 300.0, 0.05))
            z = np.concatenate([np.linspace(-10.0, 10.0, 2**15 + 1), -far, far])
            edges = np.concatenate([[-np.inf], np.unique(mu + s * z), [np.inf]])
            self._panels = CdfPanels(
                edges, logcdf=lambda x: sp.log_ndtr((np.asarray(x) - mu) / s),
                logsf=lambda x: sp.log_ndtr((mu - np.asarray(x)) / s),
                logpdf=lambda x: -0.5 * ((np.asarray(x) - mu) / s) ** 2 - math.log(s * math.sqrt(2 * math.pi)),
                median=mu, tails=(self.tail("left"), self.tail("right")),
                curvature=lambda a, b: -np.ones(np.shape(a), dtype=int))  # log-density concave
        return self._panels


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

    def _table(self):
        self._require_numeric()
        if not hasattr(self, "_panels"):
            from .enclosures.tilted import AtomTable

            self._panels = AtomTable(self.points, np.log(self.probs))
        return self._panels

    def tilted_tail_bounds(self, k, x, side):
        """Exact sums over the atoms (:class:`~garesearch.enclosures.tilted.AtomTable`), with their
        rounding-error bounds."""
        return self._table().tail(k, x, side)

    def _interval_bounds(self, k, lo, hi):
        return self._table().interval(k, lo, hi, True)

    def quantile(self, u):
        self._require_numeric()
        cdf = np.cumsum(self.probs)
        return self.points[np.minimum(np.searchsorted(cdf, u), self.points.size - 1)]

    def t_candidates(self, r):
        return np.asarray(self.values, dtype=float) if self.metric == "absolute" else None
