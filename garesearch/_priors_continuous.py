r"""The prior of :mod:`garesearch.priors` given by any continuous ``scipy.stats`` distribution:
:class:`~garesearch.priors.Continuous`, with the error of its CDF (:func:`cdf_error`) and its
tails read from the family's declared shape (Sec. 4.1 asks only for ball masses and tail
integrals).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._priors_base import _NORM_TOL, Prior, _check_span
from .errors import ParameterError

# ------------------------------------------------------------------------------------------
MASS_POWER = 0.1

#: scipy families whose CDF is computed by numerical integration on part of its range
#: (skewnorm: where it is below 1e-6 and the shape positive)
_NUMERIC_CDF_FAMILIES = frozenset({"skewnorm_gen"})


def cdf_error(dist) -> tuple[float, float]:
    """The ``(relative, absolute)`` error assumed of a scipy distribution's CDF and survival
    function values: :data:`garesearch.enclosures.tilted.LIB_RTOL` and 0 where scipy computes them in
    closed form; the quadrature's (:data:`garesearch.enclosures.tilted.NUMERIC_CDF_ERR`, both) where its
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

    from .enclosures.tilted import LIB_RTOL, NUMERIC_CDF_ERR

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

    Its tilted masses are certified from its CDF (:class:`~garesearch.enclosures.tilted.CdfPanels`), to
    second order where the sign of its log-density's curvature is declared for its family
    (:func:`garesearch.enclosures.curvature.scipy_curvature`), to first order otherwise.
    What no finite computation can see, the far tails, is *declared*, not guessed: scipy's
    named families by a table derived from their formulas (:func:`garesearch.enclosures.tails.scipy_tail`),
    any other distribution by ``tail=``; without either, each unbounded end takes the sound
    default, heavier than every exponential, with a :class:`~garesearch.errors.UndeclaredTailWarning`.

    Parameters
    ----------
    dist : scipy.stats frozen distribution
        For example ``scipy.stats.lognorm(0.5, scale=2000)``.
    tail : optional
        The decay of the unbounded ends, overriding the table: ``"light"``, ``"heavy"``,
        ``("exponential", rate)``, a :class:`~garesearch.enclosures.tails.Tail`, or a dict
        ``{"left": ..., "right": ...}`` of these (:func:`garesearch.enclosures.tails.parse_tail`).

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

        from .enclosures.tails import Tail, parse_tail, scipy_tail
        from .errors import UndeclaredTailWarning

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
        """The declared :class:`~garesearch.enclosures.tails.Tail` of one end (class docstring)."""
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
        """The certified panel table (:class:`~garesearch.enclosures.tilted.CdfPanels`), built once
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
        from .enclosures.curvature import scipy_curvature
        from .enclosures.tilted import CdfPanels

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
        from .enclosures.tilted import LIB_RTOL

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
