r"""A prior as a sorted sequence of items for :mod:`garesearch.enclosures.tilted`:
:class:`~garesearch.enclosures.tilted.ItemTable` (atoms or panels that tile the support, each with an
enclosure of its own tilted mass, summed by prefix and suffix scans), and its atoms (exact)
and uniform panels (closed forms).
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ._tilted_excess import _mul0, _shift_excess, _sub_hi, _sub_lo, excess_prefix, psi_excess
from ._tilted_logspace import _U, log_int_exp, rounding_pad, scan_prefix, scan_suffix


# ------------------------------------------------------------------------------------------
# items: atoms or panels, each with an enclosure of its own tilted mass
# ------------------------------------------------------------------------------------------
class ItemTable:
    r"""A prior as sorted items (atoms, or panels tiling the support) with tilted-tail
    enclosures (module docstring).

    Subclasses give each item's own tilted mass anchored at its right end ``b`` and its left
    end ``a`` (:meth:`own`), the tilted mass of a piece of an item cut by query points
    (:meth:`cut`) and the mass of a piece (:meth:`cut_mass`).  This class sums whole items by
    prefix and suffix scans, one table per end of the enclosure, cached per tilt ``k``.

    Attributes
    ----------
    a, b : ndarray
        The items' left and right ends (equal for atoms).
    """

    atoms = False

    def __init__(self, a, b):
        self.a = np.asarray(a, dtype=float)
        self.b = np.asarray(b, dtype=float)
        # scan positions: an unbounded end item sits at its finite edge (its mass anchored at
        # the infinite end is never used)
        self.pa = np.where(np.isfinite(self.a), self.a, self.b)
        self.pb = np.where(np.isfinite(self.b), self.b, self.a)
        self._cache: dict[float, tuple] = {}

    @property
    def n(self) -> int:
        return self.a.size

    # -- to be given by subclasses ---------------------------------------------------------
    def own(self, k: float):
        """``(r_lo, r_hi, l_lo, l_hi)``: log enclosures of each item's tilted mass anchored at
        its right end (``r``) and left end (``l``)."""
        raise NotImplementedError

    def cut(self, k: float, j, x0, x1, right: bool):
        """Log enclosure ``(lo, hi)`` of the tilted mass of ``[x0, x1]`` within item ``j``
        (``x0 <= x1``), anchored at ``x1`` (``right``) or ``x0``."""
        raise NotImplementedError

    # -- tables ----------------------------------------------------------------------------
    def tables(self, k: float):
        """Prefix sums anchored at each item's right end and suffix sums anchored at each
        item's left end, for both ends of the enclosure, as computed, with bounds on their
        rounding errors: ``(pre_lo, pre_hi, suf_lo, suf_hi, pads)`` (``pads`` the four error
        arrays in the same order)."""
        k = float(k)
        hit = self._cache.get(k)
        if hit is not None:
            return hit
        r_lo, r_hi, l_lo, l_hi = self.own(k)
        with np.errstate(invalid="ignore", over="ignore"):
            out, pads = [], []
            for w in (r_lo, r_hi):
                v, pad = scan_prefix(self.pb, w, k)
                out.append(v)
                pads.append(pad)
            for w in (l_lo, l_hi):
                v, pad = scan_suffix(self.pa, w, k)
                out.append(v)
                pads.append(pad)
        if len(self._cache) > 16:
            self._cache.clear()
        self._cache[k] = (*out, tuple(pads))
        return self._cache[k]

    def tail(self, k: float, x, side: str, polish: bool = True):
        r"""Log enclosure ``(lo, hi)`` of :math:`\mathrm{LT}_k(x)` (``side="left"``: items at
        or below ``x``) or :math:`\mathrm{RT}_k(x)` (``"right"``: at or above ``x``);
        ``polish``: refined locally where a table can (:meth:`CdfPanels.refine`)."""
        k = float(k)
        x = np.asarray(x, dtype=float)
        pre_lo, pre_hi, suf_lo, suf_hi, (e1, e2, e3, e4) = self.tables(k)
        pre_lo, pre_hi, suf_lo, suf_hi = pre_lo - e1, pre_hi + e2, suf_lo - e3, suf_hi + e4
        n = self.n
        shape = x.shape
        x = x.ravel()
        lo = np.full(x.shape, -np.inf)
        hi = np.full(x.shape, -np.inf)
        with np.errstate(invalid="ignore", over="ignore"):
            if side == "left":
                j = np.searchsorted(self.b, x, side="right")  # items 0..j-1 lie at or below x
                jj = np.maximum(j - 1, 0)
                has = j > 0
                shift = k * (self.pb[jj] - x)
                lo = np.where(has, pre_lo[jj] + shift - rounding_pad(1, shift), -np.inf)
                hi = np.where(has, pre_hi[jj] + shift + rounding_pad(1, shift), -np.inf)
                # the item holding x, cut at x
                part = (j < n) & (self.a[np.minimum(j, n - 1)] < x)
                if np.any(part):
                    idx = np.flatnonzero(part)
                    jc = j[idx]
                    c_lo, c_hi = self.cut(k, jc, self.a[jc], x[idx], True)
                    lo[idx] = np.logaddexp(lo[idx], c_lo)
                    hi[idx] = np.logaddexp(hi[idx], c_hi)
            elif side == "right":
                i = np.searchsorted(self.a, x, side="left")  # items i.. lie at or above x
                ii = np.minimum(i, n - 1)
                has = i < n
                shift = k * (self.pa[ii] - x)
                lo = np.where(has, suf_lo[ii] + shift - rounding_pad(1, shift), -np.inf)
                hi = np.where(has, suf_hi[ii] + shift + rounding_pad(1, shift), -np.inf)
                part = (i > 0) & (self.b[np.maximum(i - 1, 0)] > x)
                if np.any(part):
                    idx = np.flatnonzero(part)
                    jc = i[idx] - 1
                    c_lo, c_hi = self.cut(k, jc, x[idx], self.b[jc], False)
                    lo[idx] = np.logaddexp(lo[idx], c_lo)
                    hi[idx] = np.logaddexp(hi[idx], c_hi)
            else:
                raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
            # logaddexp rounds: one more ulp-scale bound on each side
            fin = np.isfinite(hi)
            hi = np.where(fin, hi + rounding_pad(2, hi), hi)
            lo = np.where(np.isfinite(lo), lo - rounding_pad(2, lo), lo)
        if polish:
            lo, hi = self._polish_tail(k, x, side, lo, hi)
        return lo.reshape(shape), hi.reshape(shape)

    def _polish_tail(self, k, x, side, lo, hi):
        """Tighten tilted-tail enclosures where a table has a finer way; as given otherwise."""
        return lo, hi

    def interval(self, k: float, lo, hi, anchor_right: bool):
        r"""Log enclosure of :math:`\int_{[lo, hi]} e^{k(u - x)} dF` with ``x = hi``
        (``anchor_right``) or ``x = lo`` (finite ``lo <= hi``), from whole items by a
        difference of prefix (or suffix) sums of the same table and the cut items directly;
        of the two differences the one that cancels less is used."""
        k = float(k)
        lo = np.asarray(lo, dtype=float)
        hi = np.asarray(hi, dtype=float)
        lo, hi = np.broadcast_arrays(lo, hi)
        shape = lo.shape
        lo, hi = lo.ravel(), hi.ravel()
        n = self.n
        pre_lo, pre_hi, suf_lo, suf_hi, (e_pl, e_ph, e_sl, e_sh) = self.tables(k)
        # whole items: i0..i1 with a_i >= lo and b_i <= hi
        i0 = np.searchsorted(self.a, lo, side="left")
        i1 = np.searchsorted(self.b, hi, side="right") - 1
        out_lo = np.full(lo.shape, -np.inf)
        out_hi = np.full(lo.shape, -np.inf)
        anchor = hi if anchor_right else lo
        whole = i1 >= i0
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            if np.any(whole):
                w = np.flatnonzero(whole)
                a0, a1 = i0[w], i1[w]
                # prefix form: pre[a1] (anchored at b[a1]) less pre[a0 - 1] moved to b[a1];
                # suffix form: suf[a0] (anchored at a[a0]) less suf[a1 + 1] moved to a[a0].
                # In interval arithmetic: the lower end subtracts an upper bound and vice versa
                nb, na = np.maximum(a0 - 1, 0), np.minimum(a1 + 1, n - 1)
                has_prev, has_next = a0 > 0, a1 < n - 1
                sh_p = k * (self.pb[nb] - self.pb[a1])
                sh_s = k * (self.pa[na] - self.pa[a0])
                back_p = k * (self.pb[a1] - anchor[w])
                back_s = k * (self.pa[a0] - anchor[w])
                ep, es = rounding_pad(2, sh_p, back_p), rounding_pad(2, sh_s, back_s)
                lo_p = _sub_lo(pre_lo[a1] - e_pl[a1],
                               np.where(has_prev, pre_lo[nb] + e_pl[nb] + sh_p + ep, -np.inf))
                hi_p = _sub_hi(pre_hi[a1] + e_ph[a1],
                               np.where(has_prev, pre_hi[nb] - e_ph[nb] + sh_p - ep, -np.inf))
                lo_s = _sub_lo(suf_lo[a0] - e_sl[a0],
                               np.where(has_next, suf_lo[na] + e_sl[na] + sh_s + es, -np.inf))
                hi_s = _sub_hi(suf_hi[a0] + e_sh[a0],
                               np.where(has_next, suf_hi[na] - e_sh[na] + sh_s - es, -np.inf))
                out_lo[w] = np.maximum(lo_p + back_p - ep, lo_s + back_s - es)
                out_hi[w] = np.minimum(hi_p + back_p + ep, hi_s + back_s + es)
            # the cut items at the two ends (one item when lo and hi fall in the same one)
            if not self.atoms:
                j_lo = np.searchsorted(self.b, lo, side="right")  # the item holding lo (a_j <= lo < b_j)
                j_hi = np.searchsorted(self.a, hi, side="left") - 1  # the item holding hi (a_j < hi <= b_j)
                jl = np.clip(j_lo, 0, n - 1)
                same = ((j_lo == j_hi) & (j_lo < n) & (j_lo >= 0)
                        & ((self.a[jl] < lo) | (self.b[jl] > hi)))
                first = (j_lo < n) & ~same & (self.a[np.minimum(j_lo, n - 1)] < lo) & (j_lo <= j_hi)
                last = (j_hi >= 0) & ~same & (self.b[np.maximum(j_hi, 0)] > hi) & (j_lo <= j_hi)
                for mask, x0f, x1f, jf in (
                    (same, lambda m: lo[m], lambda m: hi[m], lambda m: j_lo[m]),
                    (first, lambda m: lo[m], lambda m: self.b[j_lo[m]], lambda m: j_lo[m]),
                    (last, lambda m: self.a[j_hi[m]], lambda m: hi[m], lambda m: j_hi[m]),
                ):
                    if not np.any(mask):
                        continue
                    m = np.flatnonzero(mask)
                    x0, x1, jj = x0f(m), x1f(m), jf(m)
                    ok = x1 > x0
                    if not np.any(ok):
                        continue
                    m, x0, x1, jj = m[ok], x0[ok], x1[ok], jj[ok]
                    c_lo, c_hi = self.cut(k, jj, x0, x1, True)
                    shift = k * (x1 - anchor[m])
                    out_lo[m] = np.logaddexp(out_lo[m], c_lo + shift - rounding_pad(1, shift))
                    out_hi[m] = np.logaddexp(out_hi[m], c_hi + shift + rounding_pad(1, shift))
            empty = ~(hi >= lo)
            out_lo = np.where(empty, -np.inf, out_lo)
            out_hi = np.where(empty, -np.inf, out_hi)
            out_hi = np.where(np.isfinite(out_hi), out_hi + rounding_pad(2, out_hi), out_hi)
            out_lo = np.where(np.isfinite(out_lo), out_lo - rounding_pad(2, out_lo), out_lo)
        out_lo, out_hi = self._polish(k, lo, hi, anchor, out_lo, out_hi)
        return out_lo.reshape(shape), out_hi.reshape(shape)

    def _polish(self, k, lo, hi, anchor, out_lo, out_hi):
        r"""Tighten enclosures of :math:`\int_{[lo, hi]} e^{k(u - anchor)} dF` (finite
        intervals) where a table has a finer way (:class:`CdfPanels`); as given otherwise."""
        return out_lo, out_hi


    # -- the excess form: accurate where the tilt is small -------------------------------
    def own_excess(self, k: float):
        r"""Each item's *excess* :math:`\int_{item} (e^{k(u - x)} - 1)\,dF` anchored at its right
        end (``r``) and left end (``l``), and its mass, as linear enclosures ``(r_lo, r_hi,
        l_lo, l_hi, m_lo, m_hi)``."""
        raise NotImplementedError

    def cut_excess(self, k: float, j, x0, x1, right: bool):
        """Linear enclosures ``(q_lo, q_hi, m_lo, m_hi)`` of the excess and the mass of
        ``[x0, x1]`` within item ``j``, anchored at ``x1`` (``right``) or ``x0``."""
        raise NotImplementedError

    def excess_tables(self, k: float):
        """Prefix excesses anchored at each item's right end and suffix excesses anchored at
        each left end (:func:`excess_prefix`), with the masses they carry, cached per ``k``:
        ``(pre_lo, pre_hi, suf_lo, suf_hi, mpre_lo, mpre_hi, msuf_lo, msuf_hi, rel)`` (the
        excesses as computed; ``rel`` bounds their relative rounding error)."""
        k = float(k)
        key = ("excess", k)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        r_lo, r_hi, l_lo, l_hi, m_lo, m_hi = self.own_excess(k)
        with np.errstate(all="ignore"):
            pre_lo, pre_hi, mp_lo, mp_hi, rel = excess_prefix(self.pb, r_lo, r_hi, m_lo, m_hi, k)
            s_lo, s_hi, ms_lo, ms_hi, _ = excess_prefix(-self.pa[::-1], l_lo[::-1], l_hi[::-1],
                                                        m_lo[::-1], m_hi[::-1], -k)
        out = (pre_lo, pre_hi, s_lo[::-1], s_hi[::-1], mp_lo, mp_hi, ms_lo[::-1], ms_hi[::-1], rel)
        if len(self._cache) > 16:
            self._cache.clear()
        self._cache[key] = out
        return out

    def tail_excess(self, k: float, x, side: str):
        r"""Linear enclosures ``(q_lo, q_hi, m_lo, m_hi)`` of :math:`\int_{u \le x} (e^{k(u -
        x)} - 1) dF` (``side="left"``; ``"right"``: :math:`u \ge x`) and of that tail's mass."""
        k = float(k)
        x = np.asarray(x, dtype=float)
        shape = x.shape
        x = x.ravel()
        pre_lo, pre_hi, suf_lo, suf_hi, mp_lo, mp_hi, ms_lo, ms_hi, rel = self.excess_tables(k)
        pre_lo, pre_hi = pre_lo - rel * np.abs(pre_lo), pre_hi + rel * np.abs(pre_hi)
        suf_lo, suf_hi = suf_lo - rel * np.abs(suf_lo), suf_hi + rel * np.abs(suf_hi)
        n = self.n
        q_lo = np.zeros(x.shape)
        q_hi = np.zeros(x.shape)
        m_lo = np.zeros(x.shape)
        m_hi = np.zeros(x.shape)
        with np.errstate(all="ignore"):
            if side == "left":
                j = np.searchsorted(self.b, x, side="right")
                jj = np.maximum(j - 1, 0)
                has = j > 0
                d = k * (self.pb[jj] - x)
                parts = _shift_excess(d, pre_lo[jj], pre_hi[jj], mp_lo[jj], mp_hi[jj])
                for arr, v in zip((q_lo, q_hi, m_lo, m_hi), parts, strict=True):
                    arr[:] = np.where(has, v, 0.0)
                part = (j < n) & (self.a[np.minimum(j, n - 1)] < x)
                if np.any(part):
                    idx = np.flatnonzero(part)
                    c = self.cut_excess(k, j[idx], self.a[j[idx]], x[idx], True)
                    for arr, v in zip((q_lo, q_hi, m_lo, m_hi), c, strict=True):
                        arr[idx] += v
            elif side == "right":
                i = np.searchsorted(self.a, x, side="left")
                ii = np.minimum(i, n - 1)
                has = i < n
                d = k * (self.pa[ii] - x)
                parts = _shift_excess(d, suf_lo[ii], suf_hi[ii], ms_lo[ii], ms_hi[ii])
                for arr, v in zip((q_lo, q_hi, m_lo, m_hi), parts, strict=True):
                    arr[:] = np.where(has, v, 0.0)
                part = (i > 0) & (self.b[np.maximum(i - 1, 0)] > x)
                if np.any(part):
                    idx = np.flatnonzero(part)
                    jc = i[idx] - 1
                    c = self.cut_excess(k, jc, x[idx], self.b[jc], False)
                    for arr, v in zip((q_lo, q_hi, m_lo, m_hi), c, strict=True):
                        arr[idx] += v
            else:
                raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
            pad = 8 * _U * (np.abs(q_lo) + np.abs(q_hi))
            q_lo, q_hi = q_lo - pad, q_hi + pad
            m_lo = np.maximum(m_lo * (1 - 8 * _U), 0.0)
            m_hi = m_hi * (1 + 8 * _U)
        return tuple(v.reshape(shape) for v in (q_lo, q_hi, m_lo, m_hi))

    def interval_excess(self, k: float, lo, hi, anchor_right: bool, anchor=None):
        r"""Linear enclosure ``(q_lo, q_hi)`` of :math:`\int_{[lo, hi]} (e^{k(u - x)} - 1)\,dF`
        with ``x = hi`` (``anchor_right``: from the prefix tables) or ``x = lo`` (the suffix
        tables), finite ``lo <= hi``: a difference of excesses of the same table (its
        rounding bounded by the magnitudes cancelled) plus the cut items.  ``anchor`` moves
        ``x`` further out (at or beyond ``hi``, resp. at or below ``lo``)."""
        k = float(k)
        lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=float), np.asarray(hi, dtype=float))
        shape = lo.shape
        lo, hi = lo.ravel(), hi.ravel()
        n = self.n
        pre_lo, pre_hi, suf_lo, suf_hi, mp_lo, mp_hi, ms_lo, ms_hi, rel = self.excess_tables(k)
        q_lo = np.zeros(lo.shape)
        q_hi = np.zeros(lo.shape)
        i0 = np.searchsorted(self.a, lo, side="left")
        i1 = np.searchsorted(self.b, hi, side="right") - 1
        whole = i1 >= i0
        if anchor is None:
            anchor = hi if anchor_right else lo
        else:
            anchor = np.broadcast_to(np.asarray(anchor, dtype=float), lo.shape).ravel()
        with np.errstate(all="ignore"):
            if np.any(whole):
                w = np.flatnonzero(whole)
                a0, a1 = i0[w], i1[w]
                if anchor_right:  # prefix at a1 less the prefix at a0 - 1 moved to pb[a1]
                    far, near = a1, np.maximum(a0 - 1, 0)
                    has = a0 > 0
                    tq = (pre_lo, pre_hi)
                    tm = (mp_lo, mp_hi)
                    pos = self.pb
                else:  # suffix at a0 less the suffix at a1 + 1 moved to pa[a0]
                    far, near = a0, np.minimum(a1 + 1, n - 1)
                    has = a1 < n - 1
                    tq = (suf_lo, suf_hi)
                    tm = (ms_lo, ms_hi)
                    pos = self.pa
                d = k * (pos[near] - pos[far])
                ed, e1 = np.exp(d), np.expm1(d)
                dd = k * (pos[far] - anchor[w])
                ed2, e2 = np.exp(dd), np.expm1(dd)
                for lower in (True, False):
                    qt = tq[0] if lower else tq[1]
                    # the same table's part below the range, moved to pos[far] with the mass
                    # the table chose for that sign (excess_prefix)
                    m_near = np.where((e1 < 0) == lower, tm[1][near], tm[0][near])
                    sub = np.where(has, _mul0(ed, qt[near]) + e1 * m_near, 0.0)
                    val = qt[far] - sub
                    # both table values carry their relative error `rel`, and the
                    # subtraction rounds: interval arithmetic on the difference
                    err = (rel + 8 * _U) * (np.abs(qt[far]) + np.abs(sub))
                    val = val - err if lower else val + err
                    # the range's mass (interval arithmetic) to move the anchor to lo / hi
                    big = np.maximum(np.where(has, tm[1][far] - tm[0][near], tm[1][far]), 0.0)
                    small = np.maximum(np.where(has, tm[0][far] - tm[1][near], tm[0][far]), 0.0)
                    mass = np.where((e2 < 0) == lower, big, small)
                    moved = _mul0(ed2, val) + e2 * mass
                    pad = 8 * _U * (np.abs(_mul0(ed2, val)) + np.abs(e2 * mass))
                    if lower:
                        q_lo[w] = moved - pad
                    else:
                        q_hi[w] = moved + pad
            if not self.atoms:
                j_lo = np.searchsorted(self.b, lo, side="right")
                j_hi = np.searchsorted(self.a, hi, side="left") - 1
                jl = np.clip(j_lo, 0, n - 1)
                same = ((j_lo == j_hi) & (j_lo < n) & (j_lo >= 0)
                        & ((self.a[jl] < lo) | (self.b[jl] > hi)))
                first = (j_lo < n) & ~same & (self.a[jl] < lo) & (j_lo <= j_hi)
                jh = np.clip(j_hi, 0, n - 1)
                last = (j_hi >= 0) & ~same & (self.b[jh] > hi) & (j_lo <= j_hi)
                for mask, x0, x1, jj in ((same, lo, hi, jl), (first, lo, self.b[jl], jl),
                                         (last, self.a[jh], hi, jh)):
                    m = np.flatnonzero(mask & (x1 > x0))
                    if m.size == 0:
                        continue
                    cq_lo, cq_hi, cm_lo, cm_hi = self.cut_excess(k, jj[m], x0[m], x1[m], anchor_right)
                    end = x1[m] if anchor_right else x0[m]
                    dd = k * (end - anchor[m])
                    e1 = np.expm1(dd)
                    add_lo = np.exp(dd) * cq_lo + e1 * np.where(e1 < 0, cm_hi, cm_lo)
                    add_hi = np.exp(dd) * cq_hi + e1 * np.where(e1 < 0, cm_lo, cm_hi)
                    q_lo[m] += add_lo - 8 * _U * np.abs(add_lo)
                    q_hi[m] += add_hi + 8 * _U * np.abs(add_hi)
        empty = ~(hi >= lo)
        q_lo = np.where(empty, 0.0, q_lo)
        q_hi = np.where(empty, 0.0, q_hi)
        return q_lo.reshape(shape), q_hi.reshape(shape)


class AtomTable(ItemTable):
    """Atoms at sorted points ``x`` with log masses ``log_mass`` (exact)."""

    atoms = True

    def __init__(self, x, log_mass):
        super().__init__(x, x)
        self.log_mass = np.asarray(log_mass, dtype=float)

    def own(self, k):
        lm = self.log_mass
        return lm, lm, lm, lm

    def cut(self, k, j, x0, x1, right):  # atoms are never cut  # pragma: no cover
        return np.full(np.shape(j), -np.inf), np.full(np.shape(j), -np.inf)

    def own_excess(self, k):
        m = np.exp(self.log_mass)
        z = np.zeros_like(m)
        return z, z, z, z, m * (1 - 4 * _U), m * (1 + 4 * _U)

    def cut_excess(self, k, j, x0, x1, right):  # pragma: no cover - atoms are never cut
        z = np.zeros(np.shape(j))
        return z, z, z, z


class UniformPanels(ItemTable):
    """Contiguous panels ``[edges[i], edges[i+1]]`` with uniform density and log masses
    ``log_mass`` (closed forms; a :class:`~garesearch.priors.PiecewiseUniform` prior)."""

    def __init__(self, edges, log_mass):
        e = np.asarray(edges, dtype=float)
        super().__init__(e[:-1], e[1:])
        self.log_mass = np.asarray(log_mass, dtype=float)
        with np.errstate(divide="ignore"):
            self.log_density = self.log_mass - np.log(np.diff(e))

    def _piece(self, k, log_dens, x0, x1, right):
        """log of the uniform density times the tilt over ``[x0, x1]``, anchored at one end."""
        w = x1 - x0
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            # anchored at x1: e^{k(u - x1)} = e^{-k v}, v = x1 - u in [0, w]; at x0: e^{k v}
            beta = -k if right else k
            val = log_int_exp(log_dens, beta, w)
            pad = rounding_pad(8, log_dens, beta * w, np.log(np.where(w > 0, w, 1.0)), val, val - log_dens)
        return val - pad, val + pad

    def own(self, k):
        w = self.b - self.a
        r = self._piece(k, self.log_density, self.a, self.b, True)
        left = self._piece(k, self.log_density, self.a, self.b, False)
        del w
        return r[0], r[1], left[0], left[1]

    def cut(self, k, j, x0, x1, right):
        return self._piece(k, self.log_density[j], x0, x1, right)

    def _piece_excess(self, k, log_dens, x0, x1, right):
        w = np.asarray(x1, dtype=float) - np.asarray(x0, dtype=float)
        with np.errstate(all="ignore"):
            m = np.where(w > 0, np.exp(log_dens) * w, 0.0)
            q = m * psi_excess((-k if right else k) * w)
        rel = 16 * _U
        return q - rel * np.abs(q), q + rel * np.abs(q), m * (1 - rel), m * (1 + rel)

    def own_excess(self, k):
        r = self._piece_excess(k, self.log_density, self.a, self.b, True)
        left = self._piece_excess(k, self.log_density, self.a, self.b, False)
        return r[0], r[1], left[0], left[1], r[2], r[3]

    def cut_excess(self, k, j, x0, x1, right):
        return self._piece_excess(k, self.log_density[j], x0, x1, right)
