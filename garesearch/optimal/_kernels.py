r"""Certified margins of the worst-case kernels of one attribute (beyond the paper; Def. 7,
Sec. 4.1).

For a true value ``t`` with ball :math:`X' = [l, h]` (within the support) the worst posteriors
over every :math:`\epsilon`-DP mechanism are attained by the Laplace kernel
:math:`e^{-\epsilon|x - c|}` (upper side) and the inverted kernel :math:`e^{+\epsilon|x - c|}`
(lower side), :math:`c \in [l, h]` (:mod:`garesearch.optimal`).  With :math:`k = \pm\epsilon`
and the kernel :math:`e^{-k|x - c|}`, write :math:`A(c) = \int_{X'} e^{-k|x - c|} dF` and
:math:`O(c)` the same integral outside :math:`X'`.  A side is met at ``t`` iff its *margin*
is at most 0 for every ``c``:

.. math::

    M_{up}(c) = \log\frac{A}{O} - \mathrm{logit}(p + \delta), \qquad
    M_{low}(c) = \mathrm{logit}(p - \delta) - \log\frac{A}{O}

(:math:`p = F(X')`; ``-inf`` where the side cannot bind).  :class:`Margins` computes enclosures
``(lo, hi)`` of the margins from the prior's certified tilted masses
(:meth:`garesearch.priors.Prior.tilted_mass_bounds`): ``hi <= 0`` proves the side met at that
``(t, c)``, ``lo > 0`` proves a mechanism exceeds ``delta`` there.

Over the centres the margin is certified by branch and bound (:meth:`Margins.sup_over_centres`):
moving ``c`` by :math:`\Delta` changes every kernel value by at most :math:`e^{\epsilon\Delta}`,
so the margin is :math:`2\epsilon`-Lipschitz in ``c``; and it is :math:`\epsilon^2`-semiconcave,
:math:`M'' \le \epsilon^2` (for the upper side :math:`(\log A)'' = \epsilon^2 - 2\epsilon
f(c)/A - (A'/A)^2 \le \epsilon^2` while :math:`\log O = \log(\alpha e^{-\epsilon c} + \beta
e^{\epsilon c})` is convex; the lower side the mirror image), so on :math:`[c_1, c_2]`

.. math::

    M(c) \le M(c_1) + M'(c_1^+)(c - c_1) + \tfrac{\epsilon^2}{2}(c - c_1)^2, \quad
    M(c) \le M(c_2) + M'(c_2^-)(c - c_2) + \tfrac{\epsilon^2}{2}(c - c_2)^2,

with :math:`M' = \epsilon\,[(I_R - I_L)/A - (O_R - O_L)/O]` (``L``, ``R``: the parts left and
right of ``c``) enclosed like the margin.  The minimum of the two quadratics bounds the
interval to second order in its width, so a few halvings settle every interval.

On the lower side the curvature is smaller, and it matters where :math:`\epsilon` times the
ball's width is large (a ball that holds all but a sliver of the support): there
:math:`-\log A` is concave (:math:`(\log A)'' = \epsilon^2 + 2\epsilon f(c)/A - (A'/A)^2 \ge 0`
for the inverted kernel) and :math:`O = O_L + O_R = \alpha e^{\epsilon c} + \beta
e^{-\epsilon c}`, so :math:`M'' \le (\log O)'' = \epsilon^2 \operatorname{sech}^2 z` with
:math:`z = \tfrac12 \log(O_L / O_R)`, which rises with slope :math:`\epsilon`; each interval
uses the bound at its smallest :math:`|z|` (:func:`_curvature`: 0 where the ball reaches an
end of the support, so the margin is concave in ``c`` and the tangents alone bound it).
"""

from __future__ import annotations

import math

import numpy as np

from ..enclosures.tilted import _shift_excess, combine_tails, rounding_pad
from ..priors import Categorical, Prior

__all__ = ["Margins", "logit_bounds"]

_U = 2.0**-53


def logit_bounds(x_lo, x_hi):
    r"""An enclosure of :math:`\mathrm{logit}(x) = \log x - \log(1 - x)` for ``x`` in
    ``[x_lo, x_hi]`` (``-inf`` / ``inf`` at 0 / 1 and beyond), rounded outward.

    Examples
    --------
    >>> lo, hi = logit_bounds(0.5, 0.5)
    >>> bool(lo <= 0.0 <= hi), bool(hi - lo < 4e-15)
    (True, True)
    """
    x_lo = np.asarray(x_lo, dtype=float)
    x_hi = np.asarray(x_hi, dtype=float)
    with np.errstate(all="ignore"):
        lo = np.where(x_lo <= 0, -np.inf, np.where(x_lo >= 1, np.inf, np.log(x_lo) - np.log1p(-x_lo)))
        hi = np.where(x_hi <= 0, -np.inf, np.where(x_hi >= 1, np.inf, np.log(x_hi) - np.log1p(-x_hi)))
        lo = np.where(np.isfinite(lo), lo - rounding_pad(3, lo), lo)
        hi = np.where(np.isfinite(hi), hi + rounding_pad(3, hi), hi)
    return lo, hi


def _log1m_ratio(d, q):
    r"""`log(1 - d/q)` for ``d >= 0`` and ``q > 0`` (``nan`` for ``d >= q``), without the
    cancellation of ``log1p(-d / q)`` as ``d`` nears ``q``: there :math:`\log(q - d) - \log q`,
    with ``q - d`` exact in floating point (Sterbenz: :math:`q/2 \le d \le q`)."""
    d = np.asarray(d, dtype=float)
    q = np.asarray(q, dtype=float)
    with np.errstate(all="ignore"):
        near = d >= 0.5 * q
        out = np.where(near, np.log(q - d) - np.log(q), np.log1p(-d / q))
    return np.where(d < q, out, np.nan)


def _log_odds_bounds(p_lo, p_hi, q_lo, q_hi, d):
    r"""An enclosure of :math:`\log(p + d) - \log(q - d)` for ``p`` in ``[p_lo, p_hi]``
    and ``q`` in ``[q_lo, q_hi]`` (the ball's mass and the mass outside it; ``nan`` where
    ``q <= d``).  ``q - d`` is formed from the mass outside itself, not as ``1 - (p + d)``,
    so nothing is lost as ``d`` nears ``q``: the subtraction is exact for :math:`q/2 \le d
    \le q` (Sterbenz) and within ``2u`` relative below; each logarithm within one unit in
    the last place of its value."""
    with np.errstate(all="ignore"):
        a_lo, a_hi = np.log(p_lo + d), np.log(p_hi + d)
        b_lo, b_hi = np.log(q_lo - d), np.log(q_hi - d)
        # relative errors: p + d one rounding; q - d at most 2u (none under Sterbenz)
        ea_lo = _U * (1 + np.abs(a_lo)) + 2 * _U
        ea_hi = _U * (1 + np.abs(a_hi)) + 2 * _U
        eb_lo = _U * (1 + np.abs(b_lo)) + 4 * _U
        eb_hi = _U * (1 + np.abs(b_hi)) + 4 * _U
        lo = (a_lo - ea_lo) - (b_hi + eb_hi)
        hi = (a_hi + ea_hi) - (b_lo - eb_lo)
        lo = lo - rounding_pad(1, lo)
        hi = hi + rounding_pad(1, hi)
    return lo, hi


def _add_down(a, b):
    """``a + b`` rounded down (a lower bound of the exact sum)."""
    return np.nextafter(np.asarray(a, dtype=float) + b, -np.inf)


def _add_up(a, b):
    return np.nextafter(np.asarray(a, dtype=float) + b, np.inf)


class Margins:
    """The margins of one attribute with radius ``r`` and advantage bound ``delta``
    (module docstring), vectorised over balls and centres."""

    #: below this delta the margins are also computed in the excess form
    #: (:meth:`margin_excess`) and the two enclosures intersected
    SMALL_DELTA = 1e-4

    def __init__(self, prior: Prior, r: float, delta: float, coarse: bool = False):
        self.prior, self.r, self.delta = prior, float(r), float(delta)
        self.finite = isinstance(prior, Categorical)
        self.low, self.high = prior.support
        # (a finite prior's margins are cheap: both forms always, so that a small epsilon or
        # a delta near 1 - p loses nothing to the rounding of p + delta)
        self.small = self.delta < self.SMALL_DELTA or self.finite
        #: estimates only: the coarser tables where a prior has them
        self.coarse = coarse

    # -- balls -----------------------------------------------------------------------------
    def ball(self, t):
        """Ends ``(l, h)`` of :math:`X' = \\mathcal B(t, r)` within the support and the mass
        enclosure ``(p_lo, p_hi)``; ``l > h`` where the ball holds no mass.  For a finite
        prior, ``l`` and ``h`` are the outermost atoms with :math:`|x - t| \\le r` (decided as
        written: the computed distance against ``r``)."""
        t = np.asarray(t, dtype=float)
        if self.finite:
            x = self.prior.points
            lo = np.searchsorted(x, t - self.r, side="left")
            hi = np.searchsorted(x, t + self.r, side="right") - 1
            lo = np.clip(lo, 0, x.size - 1)
            hi = np.clip(hi, 0, x.size - 1)
            # t - r and t + r round: settle the edge atoms by their own distance
            lo = np.where(np.abs(x[lo] - t) <= self.r, lo, lo + 1)
            lo = np.where((lo > 0) & (np.abs(x[np.maximum(lo - 1, 0)] - t) <= self.r), lo - 1, lo)
            hi = np.where(np.abs(x[hi] - t) <= self.r, hi, hi - 1)
            hi = np.where((hi < x.size - 1) & (np.abs(x[np.minimum(hi + 1, x.size - 1)] - t) <= self.r),
                          hi + 1, hi)
            ok = hi >= lo
            lo_c, hi_c = np.clip(lo, 0, x.size - 1), np.clip(hi, 0, x.size - 1)
            bl, bh = np.where(ok, x[lo_c], np.inf), np.where(ok, x[hi_c], -np.inf)
        else:
            bl = np.maximum(t - self.r, self.low)
            bh = np.minimum(t + self.r, self.high)
            ok = bh > bl
            bl, bh = np.where(ok, bl, np.inf), np.where(ok, bh, -np.inf)
        p_lo, p_hi = self.mass(bl, bh)
        return bl, bh, p_lo, p_hi

    def _normalised(self, lo, hi):
        """A finite prior's masses ``[lo, hi]`` (sums of its stored probabilities) widened to
        hold the masses of the distribution they define, the probabilities over their exact
        sum ``1 + e`` (``e`` from ``math.fsum``; nothing to widen where the sum is exactly 1,
        as for a fair coin)."""
        if not hasattr(self, "_sum_err"):
            self._sum_err = abs(math.fsum([*self.prior.probs.tolist(), -1.0]))
        e = self._sum_err
        if e == 0.0:
            return lo, hi
        f = e * (1 + 4 * _U) + 2 * _U * e  # |1/(1 + e) - 1| <= e, with the residual's rounding
        return (np.maximum(np.nextafter(lo - lo * f, -np.inf), 0.0), np.nextafter(hi + hi * f, np.inf))

    def mass(self, bl, bh):
        """Enclosure of :math:`F([l, h])` (0 where ``l > h``); for a finite prior the sum of
        the atoms' probabilities, with its rounding (none for one atom, one rounding of
        ``math.fsum`` for up to 64, the prefix sums' rounding for more)."""
        bl = np.asarray(bl, dtype=float)
        bh = np.asarray(bh, dtype=float)
        ok = bh >= bl
        if self.finite:
            x = self.prior.points
            if not hasattr(self, "_cum"):
                self._cum = np.concatenate([[0.0], np.cumsum(self.prior.probs)])
            i = np.searchsorted(x, np.where(ok, bl, 0.0), side="left")
            j = np.searchsorted(x, np.where(ok, bh, 0.0), side="right")
            direct = np.zeros(bl.shape)
            few = ok & (j - i <= 64)
            # a few atoms: their own sum (exact to 2 m u); many: the difference of prefix sums,
            # whose rounding scales with the prefix sums themselves
            for idx in np.flatnonzero(few):
                direct.flat[idx] = math.fsum(self.prior.probs[i.flat[idx]:j.flat[idx]])
            diff = self._cum[j] - self._cum[i]
            p = np.where(few, direct, diff)
            m = (j - i).astype(float)
            # (math.fsum rounds correctly: one atom exact, more within one rounding)
            err = np.where(few, np.where(m <= 1, 0.0, 2 * _U * p), 4 * x.size * _U * (self._cum[j] + self._cum[i]))
            lo, hi = self._normalised(np.maximum(p - err, 0.0), p + err)
            return np.where(ok, lo, 0.0), np.where(ok, np.minimum(hi, 1.0), 0.0)
        with np.errstate(all="ignore"):
            lo, hi = self.prior.mass_bounds(np.where(ok, bl, 0.0), np.where(ok, bh, 0.0))
        return np.where(ok, lo, 0.0), np.where(ok, hi, 0.0)

    def outside(self, bl, bh, p_lo, p_hi):
        """Enclosure of the mass outside :math:`[l, h]`: for a finite prior the atoms'
        own sums on either side (no cancellation against the ball's mass), otherwise
        ``1 - p`` rounded outward."""
        bl = np.asarray(bl, dtype=float)
        bh = np.asarray(bh, dtype=float)
        if self.finite:
            x = self.prior.points
            if not hasattr(self, "_rcum"):
                self._cum = np.concatenate([[0.0], np.cumsum(self.prior.probs)])
                self._rcum = np.concatenate([np.cumsum(self.prior.probs[::-1])[::-1], [0.0]])
            ok = bh >= bl
            i = np.searchsorted(x, np.where(ok, bl, 0.0), side="left")
            j = np.searchsorted(x, np.where(ok, bh, 0.0), side="right")
            left, right = self._cum[i], self._rcum[j]
            q = left + right
            # a running sum of m terms is within (m - 1) u of its value; one more for the
            # addition (a single atom's mass is exact)
            n_l = np.maximum(i - 1, 0).astype(float)
            n_r = np.maximum(x.size - j - 1, 0).astype(float)
            both = (i > 0) & (j < x.size)
            err = _U * (n_l * left + n_r * right + np.where(both, q, 0.0)) * (1 + 4 * x.size * _U)
            lo, hi = self._normalised(np.maximum(q - err, 0.0), q + err)
            return np.where(ok, lo, 1.0), np.where(ok, np.minimum(hi, 1.0), 1.0)
        p_lo = np.asarray(p_lo, dtype=float)
        p_hi = np.asarray(p_hi, dtype=float)
        return (np.maximum(np.nextafter(1.0 - p_hi, -np.inf), 0.0),
                np.minimum(np.nextafter(1.0 - p_lo, np.inf), 1.0))

    # -- margins ---------------------------------------------------------------------------
    def parts(self, eps, side, bl, bh, c):
        """Log enclosures of the kernel's four parts (arrays broadcast over ``l, h, c``):
        ``IL`` (:math:`[l, c]`), ``IR`` (:math:`(c, h]`), ``OL`` (below ``l``), ``OR`` (above
        ``h``), each as ``(lo, hi)``."""
        k = float(eps) if side == "upper" else -float(eps)
        P = self.prior
        bl, bh, c = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (bl, bh, c)))
        strict = self.finite
        c_after = np.nextafter(c, np.inf) if strict else c
        below = np.nextafter(bl, -np.inf) if strict else bl
        above = np.nextafter(bh, np.inf) if strict else bh
        with np.errstate(all="ignore"):
            if getattr(P, "tails_only", False):
                il, ir, (ol_lo, ol_hi), (or_lo, or_hi) = _parts_from_tails(P, k, bl, bh, c, below, above, c_after)
            else:
                co = self.coarse
                tails = P._sources(co)[0]
                il = P.tilted_mass_bounds(k, bl, c, c, _coarse=co)  # e^{-k (c - u)} = e^{k (u - c)}
                ir = P.tilted_mass_bounds(-k, c_after, bh, c, _coarse=co)  # e^{-k (u - c)}
                ol_lo, ol_hi = tails(k, below, "left")  # anchored at `below`
                or_lo, or_hi = tails(-k, above, "right")
            s_l = k * (below - c)  # e^{k (u - c)} = e^{k (u - below)} e^{k (below - c)}
            s_r = -k * (above - c)
            pl, pr = rounding_pad(2, s_l), rounding_pad(2, s_r)
            empty_l = below < self.low
            empty_r = above > self.high
            ol = (np.where(empty_l, -np.inf, ol_lo + s_l - pl), np.where(empty_l, -np.inf, ol_hi + s_l + pl))
            orr = (np.where(empty_r, -np.inf, or_lo + s_r - pr), np.where(empty_r, -np.inf, or_hi + s_r + pr))
        return il, ir, ol, orr

    def margin(self, eps, side, bl, bh, c, p_lo, p_hi, deriv=False, curv=False):
        r"""Enclosure ``(lo, hi)`` of the side's margin at centres ``c`` of balls ``[l, h]``
        whose mass lies in ``[p_lo, p_hi]`` (arrays broadcast); with ``deriv``, also an
        enclosure ``(g_lo, g_hi)`` of its derivative in ``c``; with ``curv`` (and ``deriv``)
        also an enclosure ``(z_lo, z_hi)`` of :math:`z(c) = \tfrac12 \log(O_L / O_R)`,
        which bounds the lower side's curvature (:func:`_curvature`)."""
        (il, ir, ol, orr) = self.parts(eps, side, bl, bh, c)
        with np.errstate(all="ignore"):
            a_lo, a_hi = np.logaddexp(il[0], ir[0]), np.logaddexp(il[1], ir[1])
            o_lo, o_hi = np.logaddexp(ol[0], orr[0]), np.logaddexp(ol[1], orr[1])
            a_lo, a_hi = a_lo - rounding_pad(1, a_lo), a_hi + rounding_pad(1, a_hi)
            o_lo, o_hi = o_lo - rounding_pad(1, o_lo), o_hi + rounding_pad(1, o_hi)
            r_lo = a_lo - o_hi  # log(A / O)
            r_hi = a_hi - o_lo
            r_lo = np.where(np.isnan(r_lo), -np.inf, r_lo - rounding_pad(1, r_lo))
            r_hi = np.where(np.isnan(r_hi), np.inf, r_hi + rounding_pad(1, r_hi))
            d = self.delta
            q_lo, q_hi = self.outside(bl, bh, p_lo, p_hi)
            if side == "upper":  # logit(p + delta) = log(p + delta) - log(q - delta)
                t_lo, t_hi = _log_odds_bounds(p_lo, p_hi, q_lo, q_hi, d)
                m_hi = r_hi - t_lo
                m_lo = r_lo - t_hi
                m_hi = np.where(q_hi <= d, -np.inf, m_hi)  # p + delta >= 1: cannot bind
                m_lo = np.where(q_lo <= d, -np.inf, m_lo)
            else:  # logit(p - delta) = log(p - delta) - log(q + delta)
                nt_lo, nt_hi = _log_odds_bounds(q_lo, q_hi, p_lo, p_hi, d)
                t_lo, t_hi = -nt_hi, -nt_lo
                m_hi = t_hi - r_lo
                m_lo = t_lo - r_hi
                m_hi = np.where(p_hi <= d, -np.inf, m_hi)
                m_lo = np.where(p_lo <= d, -np.inf, m_lo)
            m_lo = np.where(np.isnan(m_lo), -np.inf, m_lo - rounding_pad(1, m_lo))
            m_hi = np.where(np.isnan(m_hi), np.inf, m_hi + rounding_pad(1, m_hi))
            if self.small:
                x_lo, x_hi = self.margin_excess(eps, side, bl, bh, c, p_lo, p_hi)
                m_lo, m_hi = np.maximum(m_lo, x_lo), np.minimum(m_hi, x_hi)
            if not deriv:
                return m_lo, m_hi
            g_lo, g_hi = _ratio_diff(il, ir, ol, orr)
            e = float(eps)
            g_lo, g_hi = e * g_lo, e * g_hi
            g_lo = g_lo - rounding_pad(4, g_lo, floor=e * 1e-300)
            g_hi = g_hi + rounding_pad(4, g_hi, floor=e * 1e-300)
            if not curv:
                return m_lo, m_hi, g_lo, g_hi
            z_lo, z_hi = 0.5 * (ol[0] - orr[1]), 0.5 * (ol[1] - orr[0])
            z_lo = np.where(np.isnan(z_lo), -np.inf, z_lo - rounding_pad(1, z_lo))
            z_hi = np.where(np.isnan(z_hi), np.inf, z_hi + rounding_pad(1, z_hi))
        return m_lo, m_hi, g_lo, g_hi, z_lo, z_hi

    def margin_excess(self, eps, side, bl, bh, c, p_lo, p_hi):
        r"""The margin's enclosure from the kernel's excesses (accurate for small
        :math:`\epsilon`): :math:`\log(A/p) = \log(1 + Q_A / p)` with :math:`Q_A = \int_{X'}
        (K - 1)\,dF`, likewise outside with :math:`q = 1 - p` the mass outside, and
        :math:`\mathrm{logit}(p \pm \delta) - \mathrm{logit}(p)` by ``log1p``, so nothing
        of size :math:`\delta` is lost next to numbers of size 1."""
        k = float(eps) if side == "upper" else -float(eps)
        P = self.prior
        bl, bh, c = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (bl, bh, c)))
        p_lo = np.broadcast_to(np.asarray(p_lo, dtype=float), bl.shape)
        p_hi = np.broadcast_to(np.asarray(p_hi, dtype=float), bl.shape)
        strict = self.finite
        c_after = np.nextafter(c, np.inf) if strict else c
        below = np.nextafter(bl, -np.inf) if strict else bl
        above = np.nextafter(bh, np.inf) if strict else bh
        d = self.delta
        with np.errstate(all="ignore"):
            co = self.coarse
            il = P.tilted_interval_excess(k, bl, c, True, _coarse=co)
            ir = P.tilted_interval_excess(-k, c_after, bh, False, anchor=c, _coarse=co)
            ql = P.tilted_tail_excess(k, below, "left", _coarse=co)
            qr = P.tilted_tail_excess(-k, above, "right", _coarse=co)
            ol = _shift_excess(k * (below - c), *ql)
            orr = _shift_excess(-k * (above - c), *qr)
            qa_lo, qa_hi = il[0] + ir[0], il[1] + ir[1]
            qo_lo, qo_hi = ol[0] + orr[0], ol[1] + orr[1]
            q_lo = ql[2] + qr[2]  # the mass outside X'
            q_hi = ql[3] + qr[3]
            if self.finite:  # (the stored probabilities over their exact sum)
                q_lo, q_hi = self._normalised(q_lo, q_hi)
            pad = 4 * _U
            la_lo = np.log1p(np.minimum(qa_lo / p_lo, qa_lo / p_hi))
            la_hi = np.log1p(np.maximum(qa_hi / p_lo, qa_hi / p_hi))
            lo_lo = np.log1p(np.minimum(qo_lo / q_lo, qo_lo / q_hi))
            lo_hi = np.log1p(np.maximum(qo_hi / q_lo, qo_hi / q_hi))
            x_lo = la_lo - lo_hi
            x_hi = la_hi - lo_lo
            x_lo = x_lo - 16 * _U * (np.abs(la_lo) + np.abs(lo_hi))
            x_hi = x_hi + 16 * _U * (np.abs(la_hi) + np.abs(lo_lo))
            if side == "upper":
                tau_lo = np.log1p(d / p_hi) - _log1m_ratio(d, q_hi)
                tau_hi = np.log1p(d / p_lo) - _log1m_ratio(d, q_lo)
                m_hi = np.where(q_hi <= d, -np.inf, x_hi - tau_lo * (1 - pad))
                m_lo = np.where(q_lo <= d, -np.inf, x_lo - tau_hi * (1 + pad))
            else:
                tau_lo = -_log1m_ratio(d, p_hi) + np.log1p(d / q_hi)
                tau_hi = -_log1m_ratio(d, p_lo) + np.log1p(d / q_lo)
                m_hi = np.where(p_hi <= d, -np.inf, -x_lo - tau_lo * (1 - pad))
                m_lo = np.where(p_lo <= d, -np.inf, -x_hi - tau_hi * (1 + pad))
            empty = q_hi <= 0  # X' holds all the mass: nothing can move
            m_hi = np.where(empty, -np.inf, m_hi)
            m_lo = np.where(empty, -np.inf, m_lo)
            m_lo = np.where(np.isnan(m_lo), -np.inf, m_lo)
            m_hi = np.where(np.isnan(m_hi), np.inf, m_hi)
        return m_lo, m_hi

    # -- the supremum over the centres ----------------------------------------------------
    def sup_over_centres(self, eps, side, bl, bh, p_lo, p_hi, *, threshold=0.0, tol=0.0,
                         max_rounds=60, start=3, max_intervals=50_000, hints=None):
        r"""Branch and bound over :math:`c \in [l, h]` for each ball (arrays ``l, h, p_lo,
        p_hi`` of one length; module docstring).

        Intervals whose bound is at most ``threshold`` (or below the ball's best certified
        value ``+ tol``) are dropped; the rest are halved, for at most ``max_rounds`` rounds
        and while at most ``max_intervals`` remain (a fixed work schedule).  ``hints`` (a centre
        per ball, or NaN) add points at geometric distances ``w 10^-j`` (``j = 1..8``) around
        the likely maximiser, where the quadratic bounds are then tight from the start.
        A finite prior needs no search: its centres are its atoms (between two atoms the odds
        are monotone in :math:`e^{2\epsilon c}`), all of which are evaluated.

        Returns
        -------
        dict
            ``upper``: a certified upper bound of :math:`\sup_c M` per ball (``-inf`` where the
            side cannot bind); ``lower``: the largest certified lower bound found, at centre
            ``centre``; ``settled``: whether every interval was dropped (``upper`` then is
            at most ``max(threshold, lower + tol)`` or the bound of its last interval).
        """
        bl = np.asarray(bl, dtype=float)
        bh = np.asarray(bh, dtype=float)
        n = bl.size
        eps = float(eps)
        if self.finite:
            return self._finite_centres(eps, side, bl, bh, p_lo, p_hi)
        p_lo = np.broadcast_to(np.asarray(p_lo, dtype=float), (n,))
        p_hi = np.broadcast_to(np.asarray(p_hi, dtype=float), (n,))
        s = np.linspace(0.0, 1.0, start)
        cc = bl[:, None] + (bh - bl)[:, None] * s[None, :]
        if hints is not None:
            w = (bh - bl)[:, None]
            h = np.asarray(hints, dtype=float)[:, None]
            h = np.where(np.isfinite(h), h, bl[:, None] + 0.5 * w)
            geo = w * 10.0 ** -np.arange(1.0, 9.0)[None, :]
            cc = np.concatenate([cc, h, h - geo, h + geo], axis=1)
            cc = np.sort(np.clip(cc, bl[:, None], bh[:, None]), axis=1)
        start = cc.shape[1]
        idx = np.repeat(np.arange(n), start)
        c = cc.ravel()
        m_lo, m_hi, g_lo, g_hi, z_lo, z_hi = self.margin(eps, side, bl[idx], bh[idx], c, p_lo[idx], p_hi[idx],
                                                         deriv=True, curv=True)
        best_lo = np.full(n, -np.inf)
        best_c = bl.copy()
        np.maximum.at(best_lo, idx, m_lo)
        # the centre of each ball's best lower bound
        order = np.lexsort((-m_lo, idx))
        first = np.unique(idx[order], return_index=True)[1]
        best_c[idx[order][first]] = c[order][first]
        # intervals between consecutive points of each ball
        pts = dict(c=c.reshape(n, start), lo=m_lo.reshape(n, start), hi=m_hi.reshape(n, start),
                   glo=g_lo.reshape(n, start), ghi=g_hi.reshape(n, start),
                   zlo=z_lo.reshape(n, start), zhi=z_hi.reshape(n, start))
        iv_ball = np.repeat(np.arange(n), start - 1)
        iv = {key: (v[:, :-1].ravel(), v[:, 1:].ravel()) for key, v in pts.items()}
        upper = np.full(n, -np.inf)
        # each ball's own point values bound its supremum from below only; the intervals cover
        # every centre, so the supremum is the largest interval bound
        for _ in range(max_rounds + 1):
            c1, c2 = iv["c"]
            kappa = _curvature(eps, side, iv["zlo"][0], iv["zhi"][1])
            bnd = _interval_bound(eps, c1, c2, iv["hi"][0], iv["hi"][1], iv["ghi"][0], iv["glo"][1], kappa)
            keep = bnd > np.maximum(threshold, best_lo[iv_ball] + tol)
            keep &= c2 > c1  # a point interval is its end's value (already counted)
            # dropped intervals bound the supremum by their bound (or by the threshold)
            done = ~keep
            np.maximum.at(upper, iv_ball[done], np.minimum(bnd[done], np.inf))
            if not np.any(keep) or _ == max_rounds or keep.sum() > max_intervals:
                np.maximum.at(upper, iv_ball[keep], bnd[keep])
                settled = np.ones(n, dtype=bool)
                settled[iv_ball[keep]] = False
                break
            # halve the kept intervals
            b = iv_ball[keep]
            c1k, c2k = c1[keep], c2[keep]
            cm = c1k + 0.5 * (c2k - c1k)
            mlo, mhi, glo, ghi, zlo, zhi = self.margin(eps, side, bl[b], bh[b], cm, p_lo[b], p_hi[b],
                                                       deriv=True, curv=True)
            better = mlo > best_lo[b]
            if np.any(better):
                # per ball, the best new point
                o = np.lexsort((-mlo, b))
                f = np.unique(b[o], return_index=True)[1]
                bb, cc, vv = b[o][f], cm[o][f], mlo[o][f]
                upd = vv > best_lo[bb]
                best_lo[bb[upd]] = vv[upd]
                best_c[bb[upd]] = cc[upd]
            new = {}
            for key, mid in (("c", cm), ("lo", mlo), ("hi", mhi), ("glo", glo), ("ghi", ghi),
                             ("zlo", zlo), ("zhi", zhi)):
                a0, a1 = iv[key][0][keep], iv[key][1][keep]
                new[key] = (np.concatenate([a0, mid]), np.concatenate([mid, a1]))
            iv = new
            iv_ball = np.concatenate([b, b])
        upper = np.maximum(upper, best_lo)  # the bound of a ball is at least its best value
        return dict(upper=upper, lower=best_lo, centre=best_c, settled=settled)

    def _finite_centres(self, eps, side, bl, bh, p_lo, p_hi):
        """Every atom of each ball as a centre (exact enumeration), in blocks."""
        x = self.prior.points
        n = bl.size
        p_lo = np.broadcast_to(np.asarray(p_lo, dtype=float), (n,))
        p_hi = np.broadcast_to(np.asarray(p_hi, dtype=float), (n,))
        i0 = np.searchsorted(x, bl, side="left")
        i1 = np.searchsorted(x, bh, side="right") - 1
        sizes = np.maximum(i1 - i0 + 1, 0)
        upper = np.full(n, -np.inf)
        lower = np.full(n, -np.inf)
        centre = np.where(np.isfinite(bl), bl, np.nan)
        rows = np.flatnonzero(sizes > 0)
        start = 0
        while start < rows.size:
            stop, total = start + 1, sizes[rows[start]]
            while stop < rows.size and total + sizes[rows[stop]] <= 2_000_000:
                total += sizes[rows[stop]]
                stop += 1
            blk = rows[start:stop]
            reps = sizes[blk]
            ball = np.repeat(blk, reps)
            offs = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
            cj = np.repeat(i0[blk], reps) + offs
            mlo, mhi = self.margin(eps, side, bl[ball], bh[ball], x[cj], p_lo[ball], p_hi[ball])
            np.maximum.at(upper, ball, mhi)
            o = np.lexsort((-mlo, ball))
            f = np.unique(ball[o], return_index=True)[1]
            bb = ball[o][f]
            lower[bb] = mlo[o][f]
            centre[bb] = x[cj[o][f]]
            start = stop
        return dict(upper=upper, lower=lower, centre=centre, settled=np.ones(n, dtype=bool))


def _parts_from_tails(P, k, bl, bh, c, below, above, c_after):
    """The four parts of :meth:`Margins.parts` from four calls of a closed-form prior's tilted
    tails (:func:`garesearch.enclosures.tilted.combine_tails` for the two intervals; the ball's ends are
    inside the support of such a prior)."""
    n = bl.size
    shape = bl.shape

    def split(v, m):
        return [x.ravel()[j * n:(j + 1) * n].reshape(shape) for j in range(m) for x in [v]]

    lt = P.tilted_tail_bounds(k, np.concatenate([c.ravel(), below.ravel()]), "left")
    rt = P.tilted_tail_bounds(k, np.concatenate([bl.ravel(), c_after.ravel()]), "right")
    lt2 = P.tilted_tail_bounds(-k, np.concatenate([bh.ravel(), c.ravel()]), "left")
    rt2 = P.tilted_tail_bounds(-k, np.concatenate([c_after.ravel(), above.ravel()]), "right")
    # IL = [l, c] anchored at c: LT_k(c) less LT_k(below); RT_k(l) less RT_k(c_after)
    il = combine_tails(k, bl, c, below, c_after, [tuple(split(v, 2)) for v in lt],
                       [tuple(split(v, 2)) for v in rt])
    # IR = (c, h] anchored at c: the tilt -k anchored at h, moved to c
    ir_h = combine_tails(-k, c_after, bh, c, above, [tuple(split(v, 2)) for v in lt2],
                         [tuple(split(v, 2)) for v in rt2])
    sh = -k * (bh - c)
    pad = rounding_pad(2, sh)
    ir = (ir_h[0] + sh - pad, ir_h[1] + sh + pad)
    ol = (lt[0].ravel()[n:].reshape(shape), lt[1].ravel()[n:].reshape(shape))
    orr = (rt2[0].ravel()[n:].reshape(shape), rt2[1].ravel()[n:].reshape(shape))
    return il, ir, ol, orr


def _ratio_diff(il, ir, ol, orr):
    r"""Enclosure of :math:`(I_R - I_L)/(I_R + I_L) - (O_R - O_L)/(O_R + O_L)` from log
    enclosures of the four parts (:math:`(x - y)/(x + y)` rises with ``x``, falls with ``y``)."""
    def ratio(y_lo, y_hi, x_lo, x_hi, hi):
        # (x - y) / (x + y) = tanh((log x - log y) / 2)
        with np.errstate(all="ignore"):
            z = (x_hi - y_lo) if hi else (x_lo - y_hi)
            out = np.tanh(0.5 * z)
            out = np.where(np.isnan(z), 1.0 if hi else -1.0, out)
        return out

    a_hi = ratio(il[0], il[1], ir[0], ir[1], True)
    a_lo = ratio(il[0], il[1], ir[0], ir[1], False)
    o_hi = ratio(ol[0], ol[1], orr[0], orr[1], True)
    o_lo = ratio(ol[0], ol[1], orr[0], orr[1], False)
    return a_lo - o_hi, a_hi - o_lo


def _curvature(eps, side, z1_lo, z2_hi):
    r"""An upper bound of the margin's second derivative in ``c`` on :math:`[c_1, c_2]`
    (module docstring): :math:`\epsilon^2` for the upper side; for the lower side
    :math:`\epsilon^2 \operatorname{sech}^2 z` at the smallest :math:`|z|` on the interval,
    from a lower bound ``z1_lo`` of :math:`z(c_1)` and an upper bound ``z2_hi`` of
    :math:`z(c_2)` (:math:`z` rises with slope :math:`\epsilon`), with
    :math:`\operatorname{sech}^2 z \le \min(1, 4 e^{-2|z|})`.

    Examples
    --------
    >>> import numpy as np
    >>> float(_curvature(2.0, "lower", np.array([np.inf]), np.array([np.inf]))[0])  # O_R = 0
    0.0
    >>> k = _curvature(2.0, "lower", np.array([-1.0, 3.0]), np.array([1.0, 5.0]))
    >>> round(float(k[0]), 12), round(float(k[1]), 12)  # z = 0 inside; z >= 3: 4 * 4 e^-6
    (4.0, 0.039660034827)
    """
    e2 = float(eps) * float(eps)
    z1_lo = np.asarray(z1_lo, dtype=float)
    if side != "lower":
        return np.full(z1_lo.shape, e2)
    with np.errstate(all="ignore"):
        zmin = np.maximum(np.maximum(z1_lo, -np.asarray(z2_hi, dtype=float)), 0.0)
        zmin = np.where(np.isnan(zmin), 0.0, zmin)
        s = np.minimum(1.0, 4.0 * np.exp(-2.0 * zmin) * (1 + 8 * _U))
    return e2 * s * (1 + 4 * _U)


def _interval_bound(eps, c1, c2, m1, m2, g1, g2, curv=None):
    r"""Upper bound of a :math:`2\epsilon`-Lipschitz function on :math:`[c_1, c_2]` whose second
    derivative is at most ``curv`` there (default :math:`\epsilon^2`), from upper bounds
    ``m1, m2`` of its end values, an upper bound ``g1`` of its right derivative at ``c1`` and a
    lower bound ``g2`` of its left derivative at ``c2`` (module docstring): the smaller of the
    Lipschitz bound and the largest value of the lower of the two quadratic majorants."""
    w = c2 - c1
    q = 0.5 * (eps * eps if curv is None else np.asarray(curv, dtype=float))
    with np.errstate(all="ignore"):
        lip = 0.5 * (m1 + m2) + eps * w
        # q1(c) = m1 + g1 u + q u^2, q2(c) = m2 + g2 (u - w) + q (u - w)^2, u = c - c1 in [0, w];
        # q1 - q2 is linear in u: they cross at ux
        slope = g1 - g2 + 2 * q * w
        const = m1 - m2 + g2 * w - q * w * w
        ux = np.where(slope != 0, -const / np.where(slope != 0, slope, 1.0), np.where(const <= 0, w, 0.0))
        ux = np.clip(ux, 0.0, w)
        v_x = np.minimum(m1 + g1 * ux + q * ux * ux, m2 + g2 * (ux - w) + q * (ux - w) ** 2)
        # the lower envelope is q1 on [0, ux] and q2 on [ux, w] (or the other way round): its
        # largest value is at 0, ux or w (each quadratic is convex)
        quad = np.maximum(np.minimum(m1, m2 + g2 * (-w) + q * w * w), np.minimum(m2, m1 + g1 * w + q * w * w))
        quad = np.maximum(quad, v_x)
        out = np.minimum(lip, quad)
        out = np.where(np.isnan(out), np.inf, out)
        # rounding of the quadratic (a few operations on magnitudes up to |m| + |g| w + q w^2)
        out = out + rounding_pad(12, np.abs(m1) + np.abs(m2) + (np.abs(g1) + np.abs(g2)) * w + q * w * w,
                                 floor=0.0)
    return np.where(np.isfinite(m1) | np.isfinite(m2), out, np.maximum(m1, m2))
