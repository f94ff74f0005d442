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


def _rounding_pad(n, *mags):
    from .tilted import rounding_pad

    return rounding_pad(n, *mags)


def _middle(lo, hi):
    """The middle of a log enclosure (its finite end where the other is infinite)."""
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    with np.errstate(invalid="ignore"):
        mid = 0.5 * (lo + hi)
        out = np.where(np.isfinite(lo) & np.isfinite(hi), mid,
                       np.where(np.isneginf(lo) & np.isfinite(hi), hi,
                                np.where(np.isposinf(hi), np.inf, lo)))
    return float(out) if out.ndim == 0 else out


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
        r"""An upper bound on :math:`\ln M(\epsilon)`, :math:`M(\epsilon) = \int_{x < lo
        \text{ or } x > hi} e^{\epsilon D(x)} dF(x)` with :math:`D(x) = \max(|x - lo|, |x - hi|)`
        (the lower side of Def. 7, Sec. 4.1): the safe end of the tilted tails' enclosures
        (:meth:`tilted_tail_bounds`), ``inf`` where it diverges, ``-inf`` where no mass lies
        outside ``[lo, hi]``.

        Examples
        --------
        >>> from scipy.integrate import quad
        >>> d = lambda x: math.exp(1.0 * (x + 1) - x * x / 2) / math.sqrt(2 * math.pi)
        >>> want = 2 * quad(d, 1, math.inf)[0]  # both tails of N(0, 1) outside [-1, 1]
        >>> got = math.exp(Normal(0, 1).log_tail_mgf(1.0, -1.0, 1.0))
        >>> 0 <= got / want - 1 < 1e-12
        True
        """
        e, lo, hi = float(epsilon), float(lo), float(hi)
        finite = self.is_finite  # atoms at lo and hi lie in [lo, hi]: the tails start beyond
        below = math.nextafter(lo, -math.inf) if finite else lo
        above = math.nextafter(hi, math.inf) if finite else hi
        low, high = self.support
        with np.errstate(all="ignore"):
            left = float(self.tilted_tail_bounds(-e, below, "left")[1]) if lo > low else -math.inf
            right = float(self.tilted_tail_bounds(e, above, "right")[1]) if hi < high else -math.inf
            out = np.logaddexp(left, right) + e * (hi - lo)
        if math.isnan(out):
            return math.inf
        return float(out + _rounding_pad(2, out, e * (hi - lo))) if math.isfinite(out) else float(out)

    def tail_mgf(self, epsilon: float, lo: float, hi: float) -> float:
        r"""An upper bound on :math:`M(\epsilon) = E[e^{\epsilon D(X)};\ X < lo \text{ or } X >
        hi]` with :math:`D(x) = \max(|x - lo|, |x - hi|)`; ``inf`` where it diverges or
        overflows (:meth:`log_tail_mgf` in linear scale).

        Examples
        --------
        >>> round(Categorical({0: 0.5, 1: 0.5}).tail_mgf(1.0, 0.0, 0.0), 6)  # e / 2
        1.359141
        """
        out = self.log_tail_mgf(epsilon, lo, hi)
        return math.exp(out) if out < _LOG_MAX else math.inf

    def tail(self, side: str):
        """The :class:`~garesearch.tails.Tail` of one end of the support: ``"bounded"`` where it
        is finite (subclasses declare their unbounded ends).

        Examples
        --------
        >>> Uniform(0, 1).tail("right").kind
        'bounded'
        """
        from .tails import Tail

        if side not in ("left", "right"):
            raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
        end = self.support[0 if side == "left" else 1]
        if math.isfinite(end):
            return Tail("bounded", math.inf, math.inf, "a finite end of the support")
        return Tail("heavy", 0.0, 0.0, "no declaration: the sound default")

    def tail_class(self, side: str) -> tuple[str, float]:
        """``(kind, rate)`` of :meth:`tail` (``("bounded", inf)``, ``("light", inf)``,
        ``("exponential", lambda)`` or ``("heavy", 0.0)``).

        Examples
        --------
        >>> Normal(0, 1).tail_class("left")
        ('light', inf)
        """
        t = self.tail(side)
        return t.kind, t.rate

    def hazard(self, x, side: str):
        r"""A lower bound on the hazard rate at ``x`` toward one end: :math:`f(x) / S(x)`
        (``side="right"``) or :math:`f(x) / F(x)` (``"left"``); used with the declared tails
        (:meth:`tail`) to bound the far tails.

        Examples
        --------
        >>> round(float(Normal(0, 1).hazard(0.0, "right")), 6)  # phi(0) / (1/2)
        0.797885
        """
        raise NotImplementedError(f"{type(self).__name__} has no hazard rate")

    def tilted_tail_bounds(self, k: float, x, side: str):
        r"""A certified enclosure ``(lo, hi)`` of the tilted tail (log scale; module
        :mod:`garesearch.tilted`):

        .. math::

            \mathrm{LT}_k(x) = \log \int_{u \le x} e^{k(u - x)} dF(u) \ (\texttt{side="left"}),
            \qquad
            \mathrm{RT}_k(x) = \log \int_{u \ge x} e^{k(u - x)} dF(u) \ (\texttt{side="right"}).

        Vectorised over ``x``; ``k`` is one real number.  ``hi = inf`` where the integral may
        diverge (a growing tilt over a tail heavier than :math:`e^{-|k| u}`), ``-inf`` where
        there is no mass.
        """
        raise NotImplementedError(f"{type(self).__name__} has no tilted tails")

    def log_tilted_tail(self, k: float, x, side: str):
        r"""An estimate of the tilted tail (:meth:`tilted_tail_bounds`): the middle of its
        enclosure in log scale (the enclosure's ends where the other is infinite).  Bounds
        that others rely on use :meth:`tilted_tail_bounds` instead.

        Examples
        --------
        >>> import math
        >>> got = float(Categorical({0: 0.5, 1: 0.5}).log_tilted_tail(1.0, 1.0, "left"))
        >>> abs(got - math.log(0.5 * math.exp(-1) + 0.5)) < 1e-12
        True
        """
        lo, hi = self.tilted_tail_bounds(k, x, side)
        return _middle(lo, hi)

    def _estimate_tail(self, k: float, x, side: str):
        """:meth:`log_tilted_tail` from the coarser table where a prior has one (the searches'
        estimates; their answers are certified separately)."""
        lo, hi = self._sources(True)[0](k, x, side)
        return _middle(lo, hi)

    def _estimate_mass(self, k: float, lo, hi, anchor):
        """:meth:`log_tilted_mass` from the coarser table where a prior has one."""
        lo_, hi_ = self.tilted_mass_bounds(k, lo, hi, anchor, _coarse=True)
        out = _middle(lo_, hi_)
        return float(out) if np.ndim(out) == 0 else out

    def _sources(self, coarse: bool):
        """The tilted tails and intervals the bounds come from (a coarser, cheaper table for
        estimates where a prior has one)."""
        return self.tilted_tail_bounds, self._interval_bounds

    def tilted_mass_bounds(self, k: float, lo, hi, anchor, _coarse: bool = False):
        r"""A certified enclosure ``(lo, hi)`` of :math:`\log \int_{lo \le u \le hi}
        e^{k(u - \text{anchor})} dF(u)` (closed interval; ends may be infinite), vectorised.

        Examples
        --------
        >>> import math
        >>> lo, hi = Uniform(0, 4).tilted_mass_bounds(1.5, 1.0, 3.0, 2.0)
        >>> ref = math.log((math.exp(1.5) - math.exp(-1.5)) / 1.5 / 4)
        >>> bool(lo <= ref <= hi), bool(hi - lo < 1e-12)
        (True, True)
        """
        k = float(k)
        tail_bounds, interval_bounds = self._sources(_coarse)
        lo, hi, anchor = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (lo, hi, anchor)))
        shape = lo.shape
        lo, hi, anchor = lo.ravel(), hi.ravel(), anchor.ravel()
        low, high = self.support
        a, b = np.maximum(lo, low), np.minimum(hi, high)
        out_lo = np.full(lo.shape, -np.inf)
        out_hi = np.full(lo.shape, -np.inf)
        with np.errstate(all="ignore"):
            lo_inf, hi_inf = np.isneginf(a), np.isposinf(b)
            for mask, kind in ((lo_inf & hi_inf, "all"), (lo_inf & ~hi_inf, "left"),
                               (~lo_inf & hi_inf, "right"), (~lo_inf & ~hi_inf & (b >= a), "finite")):
                if not np.any(mask):
                    continue
                idx = np.flatnonzero(mask)
                if kind == "all":  # both tails at the anchor (the anchor's own atom once)
                    x = anchor[idx]
                    l_lo, l_hi = tail_bounds(k, x, "left")
                    above = np.nextafter(x, np.inf) if self.is_finite else x
                    r_lo, r_hi = tail_bounds(k, above, "right")
                    sh = k * (above - x)
                    v_lo, v_hi = np.logaddexp(l_lo, r_lo + sh), np.logaddexp(l_hi, r_hi + sh)
                elif kind == "left":
                    x = b[idx]
                    v_lo, v_hi = tail_bounds(k, x, "left")
                    sh = k * (x - anchor[idx])
                    v_lo, v_hi = v_lo + sh, v_hi + sh
                elif kind == "right":
                    x = a[idx]
                    v_lo, v_hi = tail_bounds(k, x, "right")
                    sh = k * (x - anchor[idx])
                    v_lo, v_hi = v_lo + sh, v_hi + sh
                else:
                    v_lo, v_hi = interval_bounds(k, a[idx], b[idx])  # anchored at b
                    sh = k * (b[idx] - anchor[idx])
                    v_lo, v_hi = v_lo + sh, v_hi + sh
                pad = _rounding_pad(3, sh, np.where(np.isfinite(v_hi), v_hi, 0.0))
                out_lo[idx] = v_lo - pad
                out_hi[idx] = v_hi + pad
        return out_lo.reshape(shape), out_hi.reshape(shape)

    def _interval_bounds(self, k: float, lo, hi):
        """Enclosure of the tilted mass of finite ``[lo, hi]`` anchored at ``hi``; by default
        from the tilted tails (the difference that cancels less)."""
        from .tilted import interval_from_tails

        return interval_from_tails(self.tilted_tail_bounds, k, lo, hi, strict=self.is_finite)

    def _excess_table(self):
        """The item table (:class:`~garesearch.tilted.ItemTable`) whose excess form serves
        small tilts (:meth:`tilted_tail_excess`)."""
        return self._table()

    def _excess_source(self, coarse: bool):
        """The table whose excess form serves small tilts (a coarser one for estimates where
        the prior has one)."""
        if coarse and hasattr(self, "_coarse_table"):
            return self._coarse_table()
        return self._excess_table()

    def tilted_tail_excess(self, k: float, x, side: str, _coarse: bool = False):
        r"""Linear enclosures ``(q_lo, q_hi, m_lo, m_hi)`` of the tilted tail's *excess*
        :math:`\int_{u \le x} (e^{k(u - x)} - 1)\,dF` (``side="left"``; ``"right"``:
        :math:`u \ge x`) and of the tail's mass: accurate to a relative rounding error however
        small ``k`` is (:meth:`garesearch.tilted.ItemTable.tail_excess`)."""
        return self._excess_source(_coarse).tail_excess(k, x, side)

    def tilted_interval_excess(self, k: float, lo, hi, anchor_right: bool, anchor=None,
                               _coarse: bool = False):
        r"""Linear enclosure ``(q_lo, q_hi)`` of :math:`\int_{[lo, hi]} (e^{k(u - x)} - 1)\,dF`
        with ``x = hi`` (``anchor_right``) or ``lo``, or ``anchor`` beyond that end
        (:meth:`garesearch.tilted.ItemTable.interval_excess`)."""
        low, high = self.support
        lo = np.maximum(np.asarray(lo, dtype=float), low)
        hi = np.minimum(np.asarray(hi, dtype=float), high)
        return self._excess_source(_coarse).interval_excess(k, lo, hi, anchor_right, anchor)

    def log_tilted_mass(self, k: float, lo, hi, anchor):
        r"""An estimate of :math:`\log \int_{lo \le u \le hi} e^{k(u - \text{anchor})} dF(u)`:
        the middle of :meth:`tilted_mass_bounds` in log scale.

        Examples
        --------
        >>> import math
        >>> got = Uniform(0, 4).log_tilted_mass(1.5, 1.0, 3.0, 2.0)
        >>> abs(got - math.log((math.exp(1.5) - math.exp(-1.5)) / 1.5 / 4)) < 1e-12
        True
        """
        lo_, hi_ = self.tilted_mass_bounds(k, lo, hi, anchor)
        out = _middle(lo_, hi_)
        return float(out) if np.ndim(out) == 0 else out

    def mass_bounds(self, lo, hi):
        r"""A certified enclosure ``(lo, hi)`` of :math:`\Pr[lo \le X \le hi]` in linear scale
        (the tilted mass at ``k = 0``).

        Examples
        --------
        >>> lo, hi = Uniform(0, 4).mass_bounds(1.0, 2.0)
        >>> bool(lo <= 0.25 <= hi)
        True
        """
        a, b = self.tilted_mass_bounds(0.0, lo, hi, 0.0)
        with np.errstate(under="ignore"):
            return np.exp(a), np.minimum(np.exp(b), 1.0)

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

    def _table(self):
        if not hasattr(self, "_panels"):
            from .tilted import UniformPanels

            with np.errstate(divide="ignore"):
                self._panels = UniformPanels(self.edges, np.log(self.weights))
        return self._panels

    def tilted_tail_bounds(self, k, x, side):
        """Closed forms per uniform panel (:class:`~garesearch.tilted.UniformPanels`)."""
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
        """The closed form (:func:`~garesearch.tilted.normal_log_tilted_tail`) widened by its
        rounding-error bound."""
        from .tilted import _normal_tail

        val, pad = _normal_tail(k, x, self.mu, self.sigma, side)
        return val - pad, val + pad

    def tail(self, side):
        from .tails import Tail

        if side not in ("left", "right"):
            raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
        return Tail("light", math.inf, math.inf, "normal: hazard grows like |x| / sigma^2")

    #: the tilted masses of intervals come from differences of tilted tails
    #: (:func:`garesearch.tilted.combine_tails`)
    tails_only = True

    def _estimate_tail(self, k, x, side):
        from .tilted import normal_log_tilted_tail

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
            from .tilted import CdfPanels

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
MASS_POWER = 0.1

#: scipy families whose CDF is computed by numerical integration on part of its range
#: (skewnorm: where it is below 1e-6 and the shape positive)
_NUMERIC_CDF_FAMILIES = frozenset({"skewnorm_gen"})


def cdf_error(dist) -> tuple[float, float]:
    """The ``(relative, absolute)`` error assumed of a scipy distribution's CDF and survival
    function values: :data:`garesearch.tilted.LIB_RTOL` and 0 where scipy computes them in
    closed form; the quadrature's (:data:`garesearch.tilted.NUMERIC_CDF_ERR`, both) where its
    generic methods or the family integrate numerically; one unit of 1 absolute where the
    survival function is taken as ``1 - cdf``.  Anything that is not a scipy distribution
    counts as numerical.

    Examples
    --------
    >>> import scipy.stats as st
    >>> cdf_error(st.norm())[1], cdf_error(st.skewnorm(4))[1] > 0
    (0.0, True)
    """
    import scipy.stats as st

    from .tilted import LIB_RTOL, NUMERIC_CDF_ERR

    gen = getattr(dist, "dist", None)
    if not isinstance(gen, st.rv_continuous):
        return NUMERIC_CDF_ERR, NUMERIC_CDF_ERR
    cls = type(gen)
    if cls._cdf is st.rv_continuous._cdf or cls.__name__ in _NUMERIC_CDF_FAMILIES:
        return NUMERIC_CDF_ERR, NUMERIC_CDF_ERR
    if cls._sf is st.rv_continuous._sf:
        return LIB_RTOL, 4 * 2.0**-53
    return LIB_RTOL, 0.0


class Continuous(Prior):
    """Any frozen continuous ``scipy.stats`` distribution as a prior ("distributions with a
    well-defined CDF", Sec. 4.1): :math:`g_t(z) = F(t + z) - F(t - z)`.

    Its tilted masses are certified from its CDF (:class:`~garesearch.tilted.CdfPanels`), to
    second order where the sign of its log-density's curvature is declared for its family
    (:func:`garesearch.curvature.scipy_curvature`), to first order otherwise.
    What no finite computation can see, the far tails, is *declared*, not guessed: scipy's
    named families by a table derived from their formulas (:func:`garesearch.tails.scipy_tail`),
    any other distribution by ``tail=``; without either, each unbounded end takes the sound
    default, heavier than every exponential, with a :class:`~garesearch.errors.UndeclaredTailWarning`.

    Parameters
    ----------
    dist : scipy.stats frozen distribution
        For example ``scipy.stats.lognorm(0.5, scale=2000)``.
    tail : optional
        The decay of the unbounded ends, overriding the table: ``"light"``, ``"heavy"``,
        ``("exponential", rate)``, a :class:`~garesearch.tails.Tail`, or a dict
        ``{"left": ..., "right": ...}`` of these (:func:`garesearch.tails.parse_tail`).

    Examples
    --------
    >>> import scipy.stats as st
    >>> Continuous(st.weibull_min(0.95)).tail("right").kind
    'heavy'
    >>> Continuous(st.gamma(3, scale=10)).tail_class("right")
    ('exponential', 0.1)
    """

    def __init__(self, dist: Any, tail: Any = None):
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
        self._tails = self._declare_tails(tail, lo, hi)

    def _declare_tails(self, tail, lo, hi):
        import warnings

        from .errors import UndeclaredTailWarning
        from .tails import Tail, parse_tail, scipy_tail

        out, missing = {}, []
        for side, end in (("left", lo), ("right", hi)):
            if math.isfinite(end):
                out[side] = Tail("bounded", math.inf, math.inf, "a finite end of the support")
            elif tail is not None:
                decl = parse_tail(tail, side)
                if decl.kind == "bounded":
                    raise ParameterError(f"tail: the {side} end of the support is infinite, not bounded")
                out[side] = decl
            else:
                decl = scipy_tail(self.dist, side)
                if decl is None:
                    missing.append(side)
                    decl = Tail("heavy", 0.0, 0.0, "no declaration: the sound default")
                out[side] = decl
        if missing:
            warnings.warn(
                f"Continuous({self.dist.dist.name}): the {' and '.join(missing)} tail of this "
                "distribution is not in garesearch's table of scipy families, so it is taken as "
                "heavier than every exponential (the sound default: epsilon can then not exceed "
                "-ln(1 - delta) / r, and a two-sided bound may be infeasible). Declare it with "
                "Continuous(dist, tail=...): 'light', ('exponential', rate) or 'heavy'",
                UndeclaredTailWarning, stacklevel=3)
        return out

    def tail_rates(self) -> tuple[float, float]:
        """The declared limiting hazard rates ``(right, left)`` of the two ends (``inf`` for a
        bounded or light end, 0 for a heavy one; :meth:`tail`)."""
        return self.tail("right").rate, self.tail("left").rate

    def tail(self, side):
        """The declared :class:`~garesearch.tails.Tail` of one end (class docstring)."""
        if side not in ("left", "right"):
            raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
        return self._tails[side]

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

    #: largest numbers of panels of the certified tables: the fine one that answers
    #: (:meth:`_table`) and the coarse one the searches estimate with (:meth:`log_tilted_tail`)
    MAX_PANELS = 2**14
    COARSE_PANELS = 2**11

    def _table(self):
        """The certified panel table (:class:`~garesearch.tilted.CdfPanels`), built once
        (:meth:`_build_table`)."""
        if not hasattr(self, "_panels"):
            self._panels = self._build_table(self.MAX_PANELS, 1025)
        return self._panels

    def _coarse_table(self):
        if not hasattr(self, "_coarse"):
            self._coarse = self._build_table(self.COARSE_PANELS, 257)
            self._coarse.rough_cuts = True  # estimates only
        return self._coarse

    def _build_table(self, max_panels, bulk):
        """Panels of this distribution: edges at tail masses down to 1e-300 (two per decade),
        ``bulk`` quantiles and ``bulk`` even steps through the bulk and the breaks of its
        log-density's curvature, then panels halved, most needed first, until
        ``max_panels``: where the curvature's sign is known, by the bend of the log-density
        from its chord at the midpoint (the second-order bounds' error) times the fourth root
        of the panel's mass; elsewhere (first-order bounds) by mass and width; and wherever
        the log-density jumps by more than 1/2 or is infinite at one end."""
        from .curvature import scipy_curvature
        from .tilted import CdfPanels

        d = self.dist
        low, high = self.support
        curv = scipy_curvature(d)
        levels = 10.0 ** -np.arange(1.0, 300.01, 0.5)
        with np.errstate(all="ignore"):
            q_lo, q_hi = (float(v) for v in d.ppf(np.array([1e-3, 1 - 1e-3])))
            pts = [np.linspace(q_lo, q_hi, bulk), d.ppf(np.linspace(1e-3, 1 - 1e-3, bulk)),
                   d.ppf(levels), d.isf(levels)]
            if curv is not None:  # no panel straddles a change of the log-density's curvature
                pts.append(np.asarray(curv.breaks, dtype=float))
            x = np.unique(np.concatenate([np.asarray(v, dtype=float) for v in pts]))
            x = x[np.isfinite(x) & (x > low) & (x < high)]
            width_cap = 4 * (q_hi - q_lo) / max_panels
            mass_cap = 4.0 / max_panels
            for _ in range(60):
                e = np.concatenate([[low], x, [high]])
                a, b = e[:-1], e[1:]
                fin = np.isfinite(a) & np.isfinite(b)
                mid = np.where(fin, 0.5 * (a + b), 0.0)
                la, lm, lb = d.logpdf(a), d.logpdf(mid), d.logpdf(b)
                bend = np.abs(lm - 0.5 * (la + lb))
                jump = np.abs(lb - la)
                # (a score only: the mass by the density at three points, which neither loses
                # the far tails' masses nor calls a CDF that may integrate numerically)
                mass = np.where(fin, (b - a) * (np.exp(la) + 4 * np.exp(lm) + np.exp(lb)) / 6, 0.0)
                mass = np.where(np.isfinite(mass), mass, 0.0)
                known = curv.sign(a, b) != 0 if curv is not None else np.zeros(a.shape, dtype=bool)
                score = np.where(known, np.where(np.isfinite(bend), bend, np.inf) * mass**MASS_POWER,
                                 np.maximum(mass / mass_cap, (b - a) / width_cap) * 1e-6)
                score = np.where((np.isfinite(jump) & (jump > 0.5)) | (np.isfinite(la) != np.isfinite(lb)),
                                 np.inf, score)
                bad = fin & (score > 1e-14) & ((b - a) > 1e-9 * np.maximum(np.abs(a), np.abs(b)))
                room = max_panels - x.size
                if not np.any(bad) or room <= 0:
                    break
                new = mid[bad]
                sc = score[bad]
                take = min(room, max(new.size // 2, 1))  # the worst half each round
                new = new[np.argsort(-sc, kind="stable")[:take]]
                x = np.unique(np.concatenate([x, new]))
        edges = np.concatenate([[low], x, [high]])
        return CdfPanels(edges, logcdf=d.logcdf, logsf=d.logsf, logpdf=d.logpdf, cdf=d.cdf, sf=d.sf,
                         median=float(d.median()), tails=(self._tails["left"], self._tails["right"]),
                         curvature=None if curv is None else curv.sign, cdf_error=cdf_error(d))

    def _sources(self, coarse):
        if not coarse:
            return super()._sources(coarse)
        t = self._coarse_table()
        return t.tail, lambda k, lo, hi: t.interval(k, lo, hi, True)

    def hazard(self, x, side):
        from .tilted import LIB_RTOL

        d = self.dist
        with np.errstate(all="ignore"):
            ls = d.logsf(x) if side == "right" else d.logcdf(x)
            h = np.exp(np.asarray(d.logpdf(x), dtype=float) - np.asarray(ls, dtype=float))
        return np.where(np.isfinite(h), h * (1 - 8 * LIB_RTOL), 0.0)

    def tilted_tail_bounds(self, k, x, side):
        """Certified from the CDF panels (:meth:`_table`)."""
        return self._table().tail(k, x, side)

    def _interval_bounds(self, k, lo, hi):
        return self._table().interval(k, lo, hi, True)


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
            from .tilted import AtomTable

            self._panels = AtomTable(self.points, np.log(self.probs))
        return self._panels

    def tilted_tail_bounds(self, k, x, side):
        """Exact sums over the atoms (:class:`~garesearch.tilted.AtomTable`), with their
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
