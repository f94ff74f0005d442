r"""The panels of a distribution given by its CDF, for :mod:`garesearch.enclosures.tilted`: masses from the
log CDF / log SF, first-order bounds from the tilt's monotonicity on each panel, second-order
bounds from chords of the log-density where the sign of its curvature is declared, and the
unbounded end panels from the declared tails' hazard floors (that module's docstring).
"""

from __future__ import annotations

import math

import numpy as np

from ._tilted_excess import _psi, _psi_diff
from ._tilted_items import ItemTable
from ._tilted_logspace import _U, LIB_RTOL, log_diff_exp, log_int_exp, rounding_pad

#: the relative and absolute error assumed of a CDF computed by numerical integration (twice
#: the default tolerances of :func:`scipy.integrate.quad`)
NUMERIC_CDF_ERR = 3e-8


def tilt_bounds_from_mass(k, m_lo, m_hi, x0, x1, right):
    r"""Log enclosure of :math:`\int_{[x_0, x_1]} e^{k(u - x)} dF` from the piece's log mass
    enclosure alone (``x = x1`` if ``right`` else ``x0``): the tilt is monotone, so its values
    at the two ends bound it (``x1 - x0`` may be ``inf`` only where the tilt decays).

    Examples
    --------
    >>> import math
    >>> lo, hi = tilt_bounds_from_mass(1.0, 0.0, 0.0, 0.0, 2.0, True)  # e^{-2} and e^0, padded
    >>> bool(-2.0 - 1e-14 < lo <= -2.0), bool(0.0 <= hi < 1e-14)
    (True, True)
    """
    w = np.asarray(x1, dtype=float) - np.asarray(x0, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        far = (-k if right else k) * w  # the tilt's log at the other end of the piece
        far = np.where(w == 0, 0.0, far)
        lo = np.asarray(m_lo, dtype=float) + np.minimum(far, 0.0)
        hi = np.asarray(m_hi, dtype=float) + np.maximum(far, 0.0)
        pad = rounding_pad(3, far)
    return lo - pad, hi + pad


# ------------------------------------------------------------------------------------------
# a distribution given by its CDF: panels
# ------------------------------------------------------------------------------------------
class CdfPanels(ItemTable):
    r"""A distribution with a density as contiguous panels (module docstring): masses from its
    log CDF / log SF, first-order bounds from the tilt's monotonicity on each panel, second-
    order bounds from chords of the log-density where the sign of its curvature on a panel is
    known, and the unbounded end panels from the declared tails' hazard floors.

    Parameters
    ----------
    edges : array_like
        Strictly increasing edges; the first and last may be infinite (unbounded ends).
    logcdf, logsf, logpdf : callable
        Vectorised log CDF, log survival function and log density.
    cdf, sf : callable, optional
        The CDF and survival function themselves (faster; their logs are used only where
        they underflow).
    median : float
        Where mass differences switch from the CDF to the survival function.
    tails : tuple
        ``(left, right)`` :class:`garesearch.enclosures.tails.Tail` of each end (used where infinite).
    curvature : callable, optional
        ``curvature(x0, x1)``: for each piece, the sign of the log-density's second
        derivative throughout ``[x0, x1]`` (-1 concave, +1 convex, 0 unknown).
    cdf_error : tuple
        ``(relative, absolute)`` errors of the CDF and survival function's values (default
        :data:`LIB_RTOL` and 0; :func:`garesearch.priors.cdf_error` for scipy's families).
    """

    def __init__(self, edges, *, logcdf, logsf, logpdf, median, tails, curvature=None, cdf=None,
                 sf=None, cdf_error=None):
        e = np.asarray(edges, dtype=float)
        super().__init__(e[:-1], e[1:])
        self.cdf_rel, self.cdf_abs = (LIB_RTOL, 0.0) if cdf_error is None else map(float, cdf_error)
        #: a CDF that is not in closed form: the density is used wherever it can be (its
        #: second order in cut pieces, hazard floors from its chords)
        self.numeric_cdf = self.cdf_abs > 0
        self.logcdf, self.logsf, self.logpdf = logcdf, logsf, logpdf
        self.cdf, self.sf = cdf, sf
        self.median = float(median)
        self.tails = tails
        self.curvature = curvature
        self._lo_inf, self._hi_inf = bool(np.isinf(e[0])), bool(np.isinf(e[-1]))
        self.signs = (np.zeros(self.n, dtype=int) if curvature is None
                      else np.asarray(curvature(self.a, self.b), dtype=int))
        self.m_lo, self.m_hi = self.piece_mass(self.a, self.b, self.signs)

    def piece_mass(self, x0, x1, signs=None):
        """Log enclosure of the mass of pieces: from the density's second-order bounds where
        the curvature is known, from the CDF (:meth:`log_mass`) elsewhere."""
        x0, x1 = np.broadcast_arrays(np.asarray(x0, dtype=float), np.asarray(x1, dtype=float))
        m_lo = np.full(x0.shape, -np.inf)
        m_hi = np.full(x0.shape, np.nan)
        if signs is not None and np.any(signs != 0):
            idx = np.flatnonzero((signs != 0) & np.isfinite(x0) & np.isfinite(x1) & (x1 > x0))
            if idx.size:
                s_lo, s_hi = self._second_order(0.0, x0[idx], x1[idx], signs[idx], True)
                use = np.isfinite(s_lo) & np.isfinite(s_hi)
                m_lo[idx[use]] = s_lo[use]
                m_hi[idx[use]] = np.minimum(s_hi[use], 0.0)
        rest = np.flatnonzero(np.isnan(m_hi))
        if rest.size:  # the CDF where the density's second order does not apply
            c_lo, c_hi = self.log_mass(x0[rest], x1[rest])
            m_lo[rest], m_hi[rest] = c_lo, c_hi
        return m_lo, m_hi

    # -- masses ----------------------------------------------------------------------------
    def log_mass(self, x0, x1):
        """Log enclosure of :math:`F(x_0, x_1]` from the log CDF below the median and the log
        SF above it (each value accurate to :data:`LIB_RTOL` relative), vectorised."""
        x0, x1 = np.broadcast_arrays(np.asarray(x0, dtype=float), np.asarray(x1, dtype=float))
        upper = x0 >= self.median
        top = np.empty(x0.shape)
        sub = np.empty(x0.shape)
        with np.errstate(all="ignore"):
            # the CDF below the median, the SF above it; their logs where they underflow
            for mask, f, logf, t_end, s_end in ((~upper, self.cdf, self.logcdf, x1, x0),
                                                (upper, self.sf, self.logsf, x0, x1)):
                if not np.any(mask):
                    continue
                both = np.concatenate([t_end[mask], s_end[mask]])
                vals = np.asarray(f(both), dtype=float) if f is not None else np.zeros(both.size)
                logs = np.log(vals)
                tiny = ~(vals > 1e-280)
                if np.any(tiny):
                    logs[tiny] = np.asarray(logf(both[tiny]), dtype=float)
                m = int(mask.sum())
                top[mask], sub[mask] = logs[:m], logs[m:]
            # each value is off by at most cdf_rel relative plus cdf_abs absolute (LIB_RTOL
            # and 0 for a CDF in closed form; NUMERIC_CDF_ERR each for one by numerical
            # integration; one unit of 1 absolute for a survival function taken as 1 - cdf), plus
            # the rounding of a log of magnitude |v|; a value of exactly 0 or 1 at an end of
            # the support is exact
            la = math.log(self.cdf_abs) if self.cdf_abs > 0 else -np.inf
            rel_t = np.where(np.isfinite(top), self.cdf_rel + np.exp(la - top), 0.0)
            rel_s = np.where(np.isfinite(sub), self.cdf_rel + np.exp(la - sub), 0.0)
            r_t = 4 * _U * np.abs(np.where(np.isfinite(top), top, 0.0))
            r_s = 4 * _U * np.abs(np.where(np.isfinite(sub), sub, 0.0))
            up_t, up_s = np.log1p(rel_t) + r_t, np.log1p(rel_s) + r_s
            dn_t = np.where(rel_t < 0.5, -np.log1p(-np.minimum(rel_t, 0.5)), np.inf) + r_t
            dn_s = np.where(rel_s < 0.5, -np.log1p(-np.minimum(rel_s, 0.5)), np.inf) + r_s
            lo = log_diff_exp(top - dn_t, np.minimum(sub + up_s, top - dn_t))
            hi = log_diff_exp(top + up_t, np.minimum(sub - dn_s, top + up_t))
            lo = lo - rounding_pad(3, lo)
            hi = hi + rounding_pad(3, hi)
        empty = ~(x1 > x0)
        return np.where(empty, -np.inf, lo), np.where(empty, -np.inf, np.minimum(hi, 0.0))

    def _hazard_floor(self, x, side):
        """The declared tail's smallest hazard rate beyond ``x`` (toward ``side``), from the
        hazard at ``x`` (``f / S`` or ``f / F``), rounded down."""
        tail = self.tails[0 if side == "left" else 1]
        if self.numeric_cdf:
            return np.minimum(self._chord_hazard(x, side), tail.rate)
        with np.errstate(all="ignore"):
            lp = np.asarray(self.logpdf(x), dtype=float)
            ls = np.asarray(self.logcdf(x) if side == "left" else self.logsf(x), dtype=float)
            h = np.exp(lp - ls) * (1 - 4 * LIB_RTOL)
        h = np.where(np.isfinite(h), h, 0.0)
        return np.minimum(h, tail.rate)  # Tail.hazard_floor, vectorised

    def _chord_hazard(self, x, side):
        r"""A hazard floor from the density alone (for a CDF computed numerically): where the
        log-density is concave from ``x`` outward (and just inside it), the hazard rises
        outward and is at least the log-density's rate of fall at ``x``, itself at least the
        chord's over :math:`[x - w, x]` (right tail; mirrored on the left); 0 elsewhere."""
        x = np.asarray(x, dtype=float)
        if self.curvature is None:
            return np.zeros(x.shape)
        w = np.maximum(1e-3 * np.abs(x), 1e-3)
        inner = x - w if side == "right" else x + w
        if side == "right":
            a, b = inner, np.full(x.shape, self.b[-1])
        else:
            a, b = np.full(x.shape, self.a[0]), inner
        concave = np.asarray(self.curvature(a, b)) < 0
        with np.errstate(all="ignore"):
            g0 = np.asarray(self.logpdf(inner), dtype=float)
            g1 = np.asarray(self.logpdf(x), dtype=float)
            e = LIB_RTOL * (2 + np.abs(g0) + np.abs(g1))
            slope = (g0 - g1 - e) / np.abs(x - inner)  # the fall per unit outward, rounded down
            h = slope * (1 - 8 * _U)
        return np.where(concave & np.isfinite(h) & (h > 0), h, 0.0)

    # -- own and cut -----------------------------------------------------------------------
    def _bounds(self, k, x0, x1, m_lo, m_hi, signs, right, own=False):
        """Log enclosure of one piece per entry (finite or unbounded), anchored at ``x1``
        (``right``) or ``x0``."""
        x0 = np.asarray(x0, dtype=float)
        x1 = np.asarray(x1, dtype=float)
        lo, hi = tilt_bounds_from_mass(k, m_lo, m_hi, np.where(np.isfinite(x0), x0, x1),
                                       np.where(np.isfinite(x1), x1, x0), right)
        with np.errstate(all="ignore"):
            # unbounded pieces: the tilt's value at the finite end times the mass (decaying
            # direction) or times the hazard factor lambda / (lambda - |k|) (growing)
            for inf_end, side in ((np.isneginf(x0), "left"), (np.isposinf(x1), "right")):
                if not np.any(inf_end):
                    continue
                idx = np.flatnonzero(inf_end)
                fin = x1[idx] if side == "left" else x0[idx]
                # the tilt relative to its value at the finite end, moving away from it
                away = -k if side == "left" else k  # log-slope of e^{k(u - fin)} going out
                anchor_at_fin = right if side == "left" else not right
                if anchor_at_fin:
                    at_fin = np.zeros(idx.size)
                else:  # anchored at the infinite end: only a decaying tilt is finite there
                    at_fin = np.full(idx.size, -np.inf if away < 0 else np.inf)
                if away < 0:  # decaying away from the finite end
                    lo[idx] = -np.inf
                    mh = m_hi[idx] if np.ndim(m_hi) else m_hi
                    hi[idx] = np.where(np.isneginf(mh), -np.inf, mh + at_fin)
                else:
                    lam = self._hazard_floor(fin, side)
                    factor = np.where(lam > away, np.log(lam) - np.log(lam - away), np.inf)
                    mh = m_hi[idx] if np.ndim(m_hi) else m_hi
                    ml = m_lo[idx] if np.ndim(m_lo) else m_lo
                    # (an end panel without mass holds nothing, whatever the factor)
                    hi[idx] = np.where(np.isneginf(mh), -np.inf, mh + at_fin + factor + rounding_pad(4, factor))
                    lo[idx] = np.where(np.isneginf(ml), -np.inf, ml + at_fin)
            if signs is not None and np.any(signs != 0):
                idx = np.flatnonzero((signs != 0) & np.isfinite(x0) & np.isfinite(x1) & (x1 > x0))
                if idx.size:
                    # second order from the density alone (a CDF computed by cancellation,
                    # such as 1 - x^-b near the end of a support, is not trusted there)
                    lines = None
                    if own:  # the whole panels' lines, drawn once
                        if getattr(self, "_own_lines", None) is None:
                            self._own_idx = idx
                            self._own_lines = self._lines(x0[idx], x1[idx], signs[idx])
                        lines = self._own_lines
                    s_lo, s_hi = self._second_order(k, x0[idx], x1[idx], signs[idx], right, lines)
                    use = np.isfinite(s_lo) | np.isfinite(s_hi)
                    lo[idx] = np.where(use, s_lo, lo[idx])
                    hi[idx] = np.where(use, s_hi, hi[idx])
        return lo, hi

    #: sub-intervals per panel of the second-order bounds
    SUB = 4

    def _lines(self, x0, x1, signs):
        """The second-order bounding lines of pieces (``SUB`` sub-intervals each): for the
        log-density's lower and upper bounds on every sub-interval, up to two lines (value at
        the sub-interval's start, slope; ``nan`` where absent), and the sub-intervals' starts
        and widths.  Concave: the chord below, the neighbouring chords extended above (their
        minimum); convex: the other way round (their maximum below).  The values carry
        :data:`LIB_RTOL`, moved to the safe side before the lines are drawn."""
        S = self.SUB
        x0 = np.asarray(x0, dtype=float)
        x1 = np.asarray(x1, dtype=float)
        w = x1 - x0
        pts = x0[:, None] + w[:, None] * (np.arange(S + 1) / S)[None, :]
        pts[:, -1] = x1
        with np.errstate(all="ignore"):
            g = np.asarray(self.logpdf(pts), dtype=float)
            e = LIB_RTOL * (1 + np.abs(np.where(np.isfinite(g), g, 0.0)))
            start, width = pts[:, :-1], np.diff(pts, axis=1)
            # (subnormal widths lose digits and their slopes overflow: first order there)
            ok = np.all(np.isfinite(g), axis=1) & np.all(width > 1e-290, axis=1)
            concave = (signs < 0)[:, None]
            lo_g, hi_g = g - e, g + e
            # chords on each sub-interval through the padded values of the safe side
            chord_lo = (lo_g[:, :-1], (lo_g[:, 1:] - lo_g[:, :-1]) / width)
            chord_hi = (hi_g[:, :-1], (hi_g[:, 1:] - hi_g[:, :-1]) / width)
            nan = np.full(width.shape, np.nan)
            # the chord of sub-interval i + 1 extended back over i (through its start, u <= it):
            # above (concave) it takes the high start value and the low far value
            nxt_hi = [nan.copy(), nan.copy()]
            nxt_lo = [nan.copy(), nan.copy()]
            prv_hi = [nan.copy(), nan.copy()]
            prv_lo = [nan.copy(), nan.copy()]
            if S > 1:
                sl_hi = (lo_g[:, 2:] - hi_g[:, 1:-1]) / width[:, 1:]  # slope for the upper line
                sl_lo = (hi_g[:, 2:] - lo_g[:, 1:-1]) / width[:, 1:]
                nxt_hi[1][:, :-1] = sl_hi
                nxt_hi[0][:, :-1] = hi_g[:, 1:-1] - sl_hi * width[:, :-1]
                nxt_lo[1][:, :-1] = sl_lo
                nxt_lo[0][:, :-1] = lo_g[:, 1:-1] - sl_lo * width[:, :-1]
                # the chord of sub-interval i - 1 extended forward over i (from its end)
                pl_hi = (hi_g[:, 1:-1] - lo_g[:, :-2]) / width[:, :-1]
                pl_lo = (lo_g[:, 1:-1] - hi_g[:, :-2]) / width[:, :-1]
                prv_hi[0][:, 1:], prv_hi[1][:, 1:] = hi_g[:, 1:-1], pl_hi
                prv_lo[0][:, 1:], prv_lo[1][:, 1:] = lo_g[:, 1:-1], pl_lo
            low1 = [np.where(concave, c, a) for c, a in zip(chord_lo, nxt_lo, strict=True)]
            low2 = [np.where(concave, nan, a) for a in prv_lo]
            high1 = [np.where(concave, a, c) for c, a in zip(chord_hi, nxt_hi, strict=True)]
            high2 = [np.where(concave, a, nan) for a in prv_hi]
        return dict(start=start, width=width, ok=ok, low=(low1, low2), high=(high1, high2))

    def _line_integrals(self, k, lines, anchor, upper):
        """Log of the tilted integral of a panel's bound (``upper``: the minimum over the
        candidate lines of each sub-interval's integral; else the maximum), rounded outward."""
        start, width = lines["start"], lines["width"]
        cand = lines["high"] if upper else lines["low"]
        with np.errstate(all="ignore"):
            shift = k * (start - anchor[:, None])
            vals = []
            for base, slope in cand:
                v = log_int_exp(base + shift, slope + k, width)
                v = v + (1 if upper else -1) * rounding_pad(8, base, shift, (slope + k) * width, v)
                vals.append(np.where(np.isnan(base), np.inf if upper else -np.inf, v))
            per = np.minimum(*vals) if upper else np.maximum(*vals)
            per = np.where(np.isnan(per), np.inf if upper else -np.inf, per)
            top = np.max(per, axis=1)
            safe = np.where(np.isfinite(top), top, 0.0)
            out = safe + np.log(np.sum(np.exp(per - safe[:, None]), axis=1))
            out = np.where(np.isfinite(top), out, top)
            out = out + (1 if upper else -1) * rounding_pad(self.SUB + 2, out)
        return out

    def _second_order(self, k, x0, x1, signs, right, lines=None):
        """Second-order log enclosures of pieces ``[x0, x1]`` anchored at ``x1`` (``right``)
        or ``x0`` (:meth:`_lines`); ``(-inf, inf)`` where they do not apply."""
        x0 = np.asarray(x0, dtype=float)
        x1 = np.asarray(x1, dtype=float)
        if lines is None:
            lines = self._lines(x0, x1, signs)
        anchor = x1 if right else x0
        lo = self._line_integrals(k, lines, anchor, False)
        hi = self._line_integrals(k, lines, anchor, True)
        ok = lines["ok"] & ~np.isnan(lo) & ~np.isnan(hi)
        return np.where(ok, lo, -np.inf), np.where(ok, hi, np.inf)

    def own(self, k):
        k = float(k)
        r_lo, r_hi = self._bounds(k, self.a, self.b, self.m_lo, self.m_hi, self.signs, True, own=True)
        # anchored at the left end: the same integral times e^{k (b - a)} (an unbounded end
        # panel anchored at its finite end instead)
        with np.errstate(all="ignore"):
            sh = k * np.where(np.isfinite(self.b - self.a), self.b - self.a, 0.0)
            pad = rounding_pad(2, sh)
            l_lo, l_hi = r_lo + sh - pad, r_hi + sh + pad
        if self._hi_inf:
            e_lo, e_hi = self._bounds(k, self.a[-1:], self.b[-1:], self.m_lo[-1:], self.m_hi[-1:],
                                      self.signs[-1:], False)
            l_lo[-1], l_hi[-1] = e_lo[0], e_hi[0]
        # unbounded end panels are anchored only at their finite end
        if self._lo_inf:
            l_lo[0] = l_hi[0] = -np.inf
        if self._hi_inf:
            r_lo[-1] = r_hi[-1] = -np.inf
        return r_lo, r_hi, l_lo, l_hi

    def _excess(self, k, x0, x1, m_lo, m_hi, right):
        """First-order excess enclosures of pieces (finite or unbounded) from their masses."""
        x0 = np.asarray(x0, dtype=float)
        x1 = np.asarray(x1, dtype=float)
        with np.errstate(all="ignore"):
            ml, mh = np.exp(m_lo), np.exp(m_hi)
            w = x1 - x0
            v = np.expm1((-k if right else k) * np.where(np.isfinite(w), w, 0.0))  # the far end's value
            q_lo = mh * np.minimum(v, 0.0)
            q_hi = mh * np.maximum(v, 0.0)
            for inf_end, side in ((np.isneginf(x0), "left"), (np.isposinf(x1), "right")):
                if not np.any(inf_end):
                    continue
                idx = np.flatnonzero(inf_end)
                fin = x1[idx] if side == "left" else x0[idx]
                away = -k if side == "left" else k
                anchor_at_fin = right if side == "left" else not right
                if not anchor_at_fin:
                    q_lo[idx] = q_hi[idx] = 0.0
                elif away < 0:
                    q_lo[idx], q_hi[idx] = -mh[idx], 0.0
                else:
                    lam = self._hazard_floor(fin, side)
                    q_lo[idx] = 0.0
                    q_hi[idx] = np.where(lam > away, mh[idx] * away / (lam - away), np.inf)
            rel = 8 * _U
        return q_lo - rel * np.abs(q_lo), q_hi + rel * np.abs(q_hi), ml * (1 - rel), mh * (1 + rel)

    def _excess_second(self, k, lines, anchor, right):
        r"""Second-order excess enclosures from the bounding lines (:meth:`_lines`): on each
        sub-interval, anchored at its end nearer ``anchor``, :math:`\int (e^{k(u - x)} - 1)
        e^{\text{line}}\,du = e^{k d}\, I_1 + (e^{k d} - 1)\, I_0` (``d``: that end less ``x``;
        :math:`I_0` the line's mass, :math:`I_1` its own excess there), every term of the sign of
        the tilt's direction; :math:`I_1 = e^{a}\, w\, [\psi(z + h) - \psi(z)]` with
        :math:`\psi(y) = (e^y - 1)/y` rising and convex, so the difference lies between
        :math:`h \psi'(z)` and :math:`h \psi'(z + h)`.  The lines give each sub-interval's lower
        and upper values (their best over the candidates, by the sign of the integrand)."""
        start, width = lines["start"], lines["width"]
        anchor = np.asarray(anchor, dtype=float)[:, None]
        sign_int = (1.0 if k > 0 else -1.0) * (-1.0 if right else 1.0)  # sign of e^{k(u-x)} - 1
        with np.errstate(all="ignore"):
            end = start + width if right else start  # the sub-interval's end nearer x
            d = k * (end - anchor)
            ed, em = np.exp(d), np.expm1(d)
            h = (-k if right else k) * width  # the tilt across the sub-interval, from that end
            vals = {}
            for name in ("low", "high"):
                out = []
                for base, slope in lines[name]:
                    # the line's value at the end nearer x, and its slope away from it
                    top = base + (slope * width if right else 0.0)
                    s_away = -slope if right else slope
                    z = s_away * width
                    i0 = np.exp(top) * width * _psi(z)
                    dlo, dhi = _psi_diff(z, h)
                    i1 = np.exp(top) * width * np.where(sign_int > 0, dlo, dhi)
                    j1 = np.exp(top) * width * np.where(sign_int > 0, dhi, dlo)
                    lo_v = ed * np.minimum(i1, j1) + em * i0
                    hi_v = ed * np.maximum(i1, j1) + em * i0
                    bad = np.isnan(base)
                    out.append((np.where(bad, np.nan, lo_v), np.where(bad, np.nan, hi_v)))
                vals[name] = out
            # the integrand has one sign: with it positive the low lines bound from below and
            # the high lines from above; negative, the other way round
            below, above = (vals["low"], vals["high"]) if sign_int > 0 else (vals["high"], vals["low"])
            lo_c = np.fmax(*(v[0] for v in below)) if len(below) > 1 else below[0][0]
            hi_c = np.fmin(*(v[1] for v in above)) if len(above) > 1 else above[0][1]
            lo_sum = np.sum(lo_c, axis=1)
            hi_sum = np.sum(hi_c, axis=1)
            rel = (8 * self.SUB + 32) * _U
            lo_sum = lo_sum - rel * np.abs(lo_sum)
            hi_sum = hi_sum + rel * np.abs(hi_sum)
        ok = lines["ok"] & np.isfinite(lo_sum) & np.isfinite(hi_sum)
        return np.where(ok, lo_sum, -np.inf), np.where(ok, hi_sum, np.inf)

    def _excess_with_curvature(self, k, x0, x1, m_lo, m_hi, signs, right, lines=None):
        q_lo, q_hi, ml, mh = self._excess(k, x0, x1, m_lo, m_hi, right)
        if signs is None or not np.any(signs != 0):
            return q_lo, q_hi, ml, mh
        x0 = np.asarray(x0, dtype=float)
        x1 = np.asarray(x1, dtype=float)
        idx = np.flatnonzero((signs != 0) & np.isfinite(x0) & np.isfinite(x1) & (x1 > x0))
        if idx.size:
            if lines is None:
                lines = self._lines(x0[idx], x1[idx], signs[idx])
            s_lo, s_hi = self._excess_second(k, lines, (x1 if right else x0)[idx], right)
            use = np.isfinite(s_lo) & np.isfinite(s_hi)
            q_lo, q_hi = np.array(q_lo, copy=True), np.array(q_hi, copy=True)
            q_lo[idx] = np.where(use, np.maximum(q_lo[idx], s_lo), q_lo[idx])
            q_hi[idx] = np.where(use, np.minimum(q_hi[idx], s_hi), q_hi[idx])
        return q_lo, q_hi, ml, mh

    def own_excess(self, k):
        k = float(k)
        lines = None
        if np.any(self.signs != 0):
            if getattr(self, "_own_lines", None) is None:
                idx = np.flatnonzero((self.signs != 0) & np.isfinite(self.a) & np.isfinite(self.b)
                                     & (self.b > self.a))
                self._own_idx = idx
                self._own_lines = self._lines(self.a[idx], self.b[idx], self.signs[idx])
            lines = self._own_lines
        r = self._excess_with_curvature(k, self.a, self.b, self.m_lo, self.m_hi, self.signs, True, lines)
        left = self._excess_with_curvature(k, self.a, self.b, self.m_lo, self.m_hi, self.signs, False, lines)
        return r[0], r[1], left[0], left[1], r[2], r[3]

    def cut_excess(self, k, j, x0, x1, right):
        signs = self.signs[np.asarray(j)] if self.curvature is not None else None
        m_lo, m_hi = self.piece_mass(x0, x1, signs)
        return self._excess_with_curvature(float(k), x0, x1, m_lo, m_hi, signs, right)

    # -- local refinement ------------------------------------------------------------------
    #: enclosures wider than this (in log) are refined locally (:meth:`refine`), at most
    #: :data:`REFINE_PIECES` sub-pieces per call (the widest first); ``None`` turns it off
    REFINE_TOL = 1e-11
    REFINE_PIECES = 1 << 13
    #: at most this many panels per refined query, each cut into at most this many pieces
    REFINE_SPAN = 64
    REFINE_SUB = 64

    def refine(self, k, x0, x1, anchor):
        r"""Log enclosures of :math:`\int_{[x_0, x_1]} e^{k(u - \text{anchor})} dF` for finite
        ``x0 <= x1`` (arrays), from sub-pieces of the panels they overlap (each panel's part
        cut into ``m`` equal pieces, ``m`` growing with the panel's own width in the
        enclosure up to :data:`REFINE_SUB`): the second-order error falls as
        :math:`1/m^2`, the first order's as :math:`1/m`.

        Examples
        --------
        >>> import math, numpy as np, scipy.stats as st
        >>> from garesearch.priors import Continuous
        >>> t = Continuous(st.norm())._table()
        >>> lo, hi = t.refine(0.5, np.array([-0.3]), np.array([0.4]), np.array([0.0]))
        >>> from scipy.integrate import quad
        >>> ref = math.log(quad(lambda u: math.exp(0.5 * u) * st.norm.pdf(u), -0.3, 0.4, epsabs=0, epsrel=1e-13)[0])
        >>> bool(lo[0] <= ref <= hi[0]), bool(hi[0] - lo[0] < 1e-10)
        (True, True)
        """
        k = float(k)
        x0 = np.asarray(x0, dtype=float)
        x1 = np.asarray(x1, dtype=float)
        anchor = np.asarray(anchor, dtype=float)
        n = x0.size
        out_lo = np.full(n, -np.inf)
        out_hi = np.full(n, -np.inf)
        ok = np.isfinite(x0) & np.isfinite(x1) & (x1 > x0)
        if not np.any(ok):
            return out_lo, out_hi
        q = np.flatnonzero(ok)
        j0 = np.clip(np.searchsorted(self.b, x0[q], side="right"), 0, self.n - 1)
        j1 = np.clip(np.searchsorted(self.a, x1[q], side="left") - 1, 0, self.n - 1)
        cnt = np.maximum(j1 - j0 + 1, 1)
        # (query, panel) pairs
        qi = np.repeat(np.arange(q.size), cnt)
        jj = np.repeat(j0, cnt) + (np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt))
        p0 = np.maximum(self.a[jj], x0[q][qi])
        p1 = np.minimum(self.b[jj], x1[q][qi])
        keep = p1 > p0
        qi, jj, p0, p1 = qi[keep], jj[keep], p0[keep], p1[keep]
        # pieces per panel part: enough to bring its own enclosure's width down by m^2 (second
        # order) to REFINE_TOL, a power of two
        # order) to REFINE_TOL times its share of the query (a rough share: the panel's mass
        # tilted at its nearer end)
        with np.errstate(all="ignore"):
            wid = self.m_hi[jj] - self.m_lo[jj]
            near = np.where(k * (p1 - p0) >= 0, p1, p0)
            wt = self.m_hi[jj] + k * (near - anchor[q][qi])
            top = np.full(q.size, -np.inf)
            np.maximum.at(top, qi, wt)
            share = np.exp(np.minimum(wt - top[qi], 0.0))
            share = np.where(np.isfinite(share), share, 1.0)
            need = np.sqrt(np.where(np.isfinite(wid), wid, 1.0) * share / self.REFINE_TOL)
            first = np.where(self.signs[jj] != 0, need, need * need)  # first order: 1/m
            m = 2.0 ** np.ceil(np.log2(np.clip(first, 1.0, self.REFINE_SUB)))
        m = m.astype(int)
        m = np.where(np.isfinite(p0) & np.isfinite(p1), m, 1)
        tot = m.sum()
        if tot == 0:
            return out_lo, out_hi
        pi = np.repeat(np.arange(m.size), m)
        step = (np.arange(tot) - np.repeat(np.cumsum(m) - m, m)).astype(float)
        w = (p1 - p0)[pi] / m[pi]
        s0 = p0[pi] + w * step
        s1 = np.where(step + 1 == m[pi], p1[pi], p0[pi] + w * (step + 1))
        s0 = np.where(step == 0, p0[pi], s0)
        sg = self.signs[jj][pi]
        # second order where the curvature is known (the lines drawn once), first order from
        # the CDF's masses elsewhere and where the second order does not apply
        b_lo = np.full(tot, -np.inf)
        b_hi = np.full(tot, np.inf)
        known = np.flatnonzero(sg != 0)
        if known.size:
            lines = self._lines(s0[known], s1[known], sg[known])
            b_lo[known], b_hi[known] = self._second_order(k, s0[known], s1[known], sg[known], True, lines)
        rest = np.flatnonzero(~(np.isfinite(b_lo) | np.isfinite(b_hi)))
        if rest.size:
            m_lo, m_hi = self.log_mass(s0[rest], s1[rest])
            b_lo[rest], b_hi[rest] = self._bounds(k, s0[rest], s1[rest], np.asarray(m_lo), np.asarray(m_hi),
                                                  None, True)
        owner = qi[pi]
        with np.errstate(all="ignore"):
            sh = k * (s1 - anchor[q][owner])
            pad = rounding_pad(1, sh)
            v_lo = b_lo + sh - pad
            v_hi = b_hi + sh + pad
            for vals, out, sign in ((v_lo, out_lo, -1.0), (v_hi, out_hi, 1.0)):
                top = np.full(q.size, -np.inf)
                np.maximum.at(top, owner, vals)
                safe = np.where(np.isfinite(top), top, 0.0)
                acc = np.zeros(q.size)
                np.add.at(acc, owner, np.exp(vals - safe[owner]))
                cnt_q = np.bincount(owner, minlength=q.size).astype(float)
                tot_q = np.where(np.isfinite(top), safe + np.log(acc), top)
                # the sum of cnt terms: (cnt + 2) u relative
                tot_q = np.where(np.isfinite(tot_q),
                                 tot_q + sign * rounding_pad(float(cnt_q.max()) + 2, tot_q, floor=0.0), tot_q)
                out[q] = tot_q
        return out_lo, out_hi

    def _select(self, wide, n_panels):
        """The queries to refine: those flagged ``wide`` spanning at most
        :data:`REFINE_SPAN` panels, the widest first (stable), within
        :data:`REFINE_PIECES` sub-pieces."""
        idx = np.flatnonzero(wide & (n_panels <= self.REFINE_SPAN))
        if not idx.size:
            return idx
        cost = np.cumsum(n_panels[idx] * self.REFINE_SUB)
        return idx[cost <= self.REFINE_PIECES]

    def _polish(self, k, lo, hi, anchor, out_lo, out_hi):
        if self.REFINE_TOL is None or self.rough_cuts:
            return out_lo, out_hi
        with np.errstate(invalid="ignore"):
            wide = ~(out_hi - out_lo <= self.REFINE_TOL) & np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
        if not np.any(wide):
            return out_lo, out_hi
        span = (np.searchsorted(self.a, hi, side="left") - np.searchsorted(self.b, lo, side="right") + 1)
        sel = self._select(wide, span)
        if not sel.size:
            return out_lo, out_hi
        r_lo, r_hi = self.refine(k, lo[sel], hi[sel], anchor[sel])
        out_lo, out_hi = np.array(out_lo, copy=True), np.array(out_hi, copy=True)
        out_lo[sel] = np.maximum(out_lo[sel], r_lo)
        out_hi[sel] = np.minimum(out_hi[sel], r_hi)
        return out_lo, out_hi

    def _polish_tail(self, k, x, side, lo, hi):
        r"""A tail whose tilt decays away from ``x`` (``k > 0`` on the left, ``k < 0`` on the
        right): its part within :math:`46/|k|` of ``x`` refined (:meth:`refine`), the rest
        (below :math:`e^{-46}` of the tilt) from the table."""
        if self.REFINE_TOL is None or self.rough_cuts or k == 0:
            return lo, hi
        if (side == "left") != (k > 0):
            return lo, hi
        L = 46.0 / abs(k)
        with np.errstate(invalid="ignore"):
            wide = ~(hi - lo <= self.REFINE_TOL) & np.isfinite(x)
        if not np.any(wide):
            return lo, hi
        if side == "left":
            near0, near1 = np.maximum(x - L, self.a[0]), x
            far = near0
        else:
            near0, near1 = x, np.minimum(x + L, self.b[-1])
            far = near1
        span = (np.searchsorted(self.a, near1, side="left") - np.searchsorted(self.b, near0, side="right") + 1)
        sel = self._select(wide & (near1 > near0), span)
        if not sel.size:
            return lo, hi
        n_lo, n_hi = self.refine(k, near0[sel], near1[sel], x[sel])
        # the rest of the tail beyond the near part (unrefined), moved to x
        f_lo, f_hi = self.tail(k, far[sel], side, polish=False)
        with np.errstate(all="ignore"):
            sh = k * (far[sel] - x[sel])
            pad = rounding_pad(1, sh)
            t_lo = np.logaddexp(n_lo, f_lo + sh - pad)
            t_hi = np.logaddexp(n_hi, f_hi + sh + pad)
            t_lo = t_lo - rounding_pad(1, t_lo)
            t_hi = t_hi + rounding_pad(1, t_hi)
        lo, hi = np.array(lo, copy=True), np.array(hi, copy=True)
        lo[sel] = np.maximum(lo[sel], t_lo)
        hi[sel] = np.minimum(hi[sel], t_hi)
        return lo, hi

    numeric_cdf = False
    cdf_rel = LIB_RTOL
    cdf_abs = 0.0

    #: cut pieces to second order only where the first order leaves them wider than
    #: :data:`ROUGH_WIDTH` in log (a table for estimates: the second order costs more there
    #: than it brings)
    rough_cuts = False
    ROUGH_WIDTH = 1e-4

    def cut(self, k, j, x0, x1, right):
        k = float(k)
        x0 = np.asarray(x0, dtype=float)
        x1 = np.asarray(x1, dtype=float)
        signs = self.signs[np.asarray(j)] if self.curvature is not None else np.zeros(x0.shape, dtype=int)
        lo = np.full(x0.shape, -np.inf)
        hi = np.full(x0.shape, np.inf)
        known = (signs != 0) & np.isfinite(x0) & np.isfinite(x1) & (x1 > x0)
        if self.rough_cuts and not self.numeric_cdf:
            known = np.zeros(x0.shape, dtype=bool)  # first order first (below)
        idx = np.flatnonzero(known)
        if idx.size:  # second order from the density alone
            lo[idx], hi[idx] = self._second_order(k, x0[idx], x1[idx], signs[idx], right)
        rest = np.flatnonzero(~(np.isfinite(lo) | np.isfinite(hi)))
        if rest.size:  # first order from the CDF's masses (and unbounded pieces)
            m_lo, m_hi = self.log_mass(x0[rest], x1[rest])
            lo[rest], hi[rest] = self._bounds(k, x0[rest], x1[rest], np.asarray(m_lo), np.asarray(m_hi),
                                              None, right)
            if self.rough_cuts:  # an estimate: second order only where the first is wide
                with np.errstate(invalid="ignore"):
                    wide = rest[~(hi[rest] - lo[rest] <= self.ROUGH_WIDTH) & (signs[rest] != 0)
                                & np.isfinite(x0[rest]) & np.isfinite(x1[rest]) & (x1[rest] > x0[rest])]
                if wide.size:
                    s_lo, s_hi = self._second_order(k, x0[wide], x1[wide], signs[wide], right)
                    use = np.isfinite(s_lo) | np.isfinite(s_hi)
                    lo[wide] = np.where(use, s_lo, lo[wide])
                    hi[wide] = np.where(use, s_hi, hi[wide])
        return lo, hi
