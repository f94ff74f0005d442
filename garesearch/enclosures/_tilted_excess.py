r"""Tails combined into intervals, and excess masses, for :mod:`garesearch.enclosures.tilted`: the tilted
mass of an interval from the two tilted tails (the difference that cancels less), and the
excess of the tilted mass over a reference, kept in log space with its rounding pad.
"""

from __future__ import annotations

import numpy as np

from ._tilted_logspace import _U, log_diff_exp, rounding_pad


def interval_from_tails(tail_bounds, k: float, lo, hi, strict: bool = False):
    r"""Log enclosure of :math:`\int_{[lo, hi]} e^{k(u - hi)} dF` (finite ``lo <= hi``) from a
    prior's tilted-tail enclosures ``tail_bounds(k, x, side)``: both differences of tails
    (:math:`\mathrm{LT}_k(hi)` less the part below ``lo``, and :math:`\mathrm{RT}_k(lo)` less
    the part above ``hi``), each in interval arithmetic, intersected.  ``strict``: the parts
    removed start strictly beyond ``lo`` / ``hi`` (atoms at the ends stay in).

    Examples
    --------
    >>> import math
    >>> from garesearch.priors import Normal
    >>> lo, hi = interval_from_tails(Normal(0, 1).tilted_tail_bounds, 0.0, -1.0, 1.0)
    >>> ref = math.log(math.erf(1 / math.sqrt(2)))
    >>> bool(lo <= ref <= hi), bool(hi - lo < 1e-13)
    (True, True)
    """
    k = float(k)
    lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=float), np.asarray(hi, dtype=float))
    below = np.nextafter(lo, -np.inf) if strict else lo
    above = np.nextafter(hi, np.inf) if strict else hi
    n = lo.size
    with np.errstate(all="ignore"):
        # one call per side, both points at once
        left = tail_bounds(k, np.concatenate([hi.ravel(), below.ravel()]), "left")
        right = tail_bounds(k, np.concatenate([lo.ravel(), above.ravel()]), "right")
    return combine_tails(k, lo, hi, below, above,
                         [(v[:n].reshape(lo.shape), v[n:].reshape(lo.shape)) for v in left],
                         [(v[:n].reshape(lo.shape), v[n:].reshape(lo.shape)) for v in right])


def combine_tails(k, lo, hi, below, above, left, right):
    r"""The interval of :func:`interval_from_tails` from its tails: ``left`` the pairs
    ``(LT(hi), LT(below))`` of the enclosure's lower and upper ends (``[(lo_at_hi,
    lo_at_below), (hi_at_hi, hi_at_below)]``), ``right`` likewise ``(RT(lo), RT(above))``."""
    (a_lo, b_lo), (a_hi, b_hi) = left
    (c_lo, d_lo), (c_hi, d_hi) = right
    with np.errstate(all="ignore"):
        sh = k * (below - hi)
        b_lo, b_hi = b_lo + sh, b_hi + sh
        left_lo = _sub_lo(a_lo, b_hi)
        left_hi = _sub_hi(a_hi, b_lo)
        sh2 = k * (above - lo)
        d_lo, d_hi = d_lo + sh2, d_hi + sh2
        back = k * (lo - hi)
        right_lo = _sub_lo(c_lo, d_hi) + back
        right_hi = _sub_hi(c_hi, d_lo) + back
        pad = rounding_pad(4, sh, sh2, back)
        out_lo = np.maximum(left_lo, right_lo) - pad
        out_hi = np.minimum(left_hi, right_hi) + pad
    empty = ~(hi >= lo)
    return np.where(empty, -np.inf, out_lo), np.where(empty, -np.inf, out_hi)


def _sub_lo(a, b):
    """A lower bound of :math:`\\log(e^a - e^b)` (``-inf`` where it cannot be shown > 0)."""
    with np.errstate(all="ignore"):
        ok = np.isfinite(a) & (a > b)
        val = log_diff_exp(np.where(ok, a, 0.0), np.where(ok, b, -np.inf))
        val = val - rounding_pad(3, val, a)
    return np.where(ok, val, np.where(np.isneginf(b) & ~np.isnan(a), a, -np.inf))


def _sub_hi(a, b):
    """An upper bound of :math:`\\log(e^a - e^b)` (``inf`` where ``a`` is)."""
    with np.errstate(all="ignore"):
        fin = np.isfinite(a) & np.isfinite(b) & (a > b)
        val = log_diff_exp(np.where(fin, a, 0.0), np.where(fin, b, -np.inf))
        val = val + rounding_pad(3, val, a)
    out = np.where(fin, val, a)  # b = -inf (or b >= a: the difference is at most e^a)
    return np.where(np.isfinite(a) & np.isfinite(b) & (b >= a), -np.inf, out)


def excess_prefix(pos, q_lo, q_hi, m_lo, m_hi, k: float):
    r"""Prefix excesses :math:`Q_j = \sum_{i \le j} [e^{k(x_i - x_j)} q_i + (e^{k(x_i - x_j)} - 1)
    m_i]` (items' own excesses ``q`` anchored at their positions, masses ``m``) for both ends
    of the enclosure, by an inclusive scan of the affine maps (Hillis and Steele); with the
    masses' prefix sums (rounded outward).  Every term has the sign of the tilt's direction,
    so nothing cancels: the excesses' relative error is at most ``rel`` :math:`= (4
    \lceil\log_2 n\rceil + 4) u`, returned for the caller to apply.

    Examples
    --------
    >>> import math
    >>> q_lo, q_hi, m_lo, m_hi, rel = excess_prefix([0.0, 1.0], [0.0, 0.0], [0.0, 0.0], [0.5, 0.5], [0.5, 0.5], 1.0)
    >>> ref = 0.5 * math.expm1(-1.0)
    >>> bool(q_lo[1] - rel * abs(q_lo[1]) <= ref <= q_hi[1] + rel * abs(q_hi[1]))
    True
    """
    pos = np.asarray(pos, dtype=float)
    Ql = np.array(q_lo, dtype=float)
    Qh = np.array(q_hi, dtype=float)
    Ml = np.array(m_lo, dtype=float)
    Mh = np.array(m_hi, dtype=float)
    n = pos.size
    k = float(k)
    off = 1
    passes = 0
    with np.errstate(all="ignore"):
        while off < n:
            d = k * (pos[:-off] - pos[off:])  # <= 0 for k > 0
            ed, em = np.exp(d), np.expm1(d)
            neg = em < 0
            # the lower end takes the larger mass where the coefficient is negative
            nl = _mul0(ed, Ql[:-off]) + em * np.where(neg, Mh[:-off], Ml[:-off]) + Ql[off:]
            nh = _mul0(ed, Qh[:-off]) + em * np.where(neg, Ml[:-off], Mh[:-off]) + Qh[off:]
            Ml[off:] = Ml[:-off] + Ml[off:]
            Mh[off:] = Mh[:-off] + Mh[off:]
            Ql[off:], Qh[off:] = nl, nh
            off *= 2
            passes += 1
        rel = (4 * passes + 4) * _U
        Ml = Ml * (1 - rel)
        Mh = Mh * (1 + rel)
    return Ql, Qh, Ml, Mh, rel


def _mul0(a, b):
    """``a * b`` with ``0 * inf = 0`` (an empty excess stays empty however large the tilt)."""
    with np.errstate(all="ignore"):
        return np.where(b == 0, 0.0, a * b)


def _shift_excess(d, q_lo, q_hi, m_lo, m_hi):
    r"""An excess anchored at ``y`` moved to ``x`` (``d = k (y - x)``): :math:`e^d Q + (e^d - 1)
    M`, both ends, with the mass of the right sign on each."""
    with np.errstate(all="ignore"):
        ed, em = np.exp(d), np.expm1(d)
        neg = em < 0
        lo = _mul0(ed, q_lo) + em * np.where(neg, m_hi, m_lo)
        hi = _mul0(ed, q_hi) + em * np.where(neg, m_lo, m_hi)
    return lo, hi, m_lo, m_hi


def psi_excess(z):
    r""":math:`\psi(z) = (e^z - 1 - z) / z` (0 at 0), accurate for small ``z`` (its series),
    vectorised: :math:`\int_0^w (e^{s v} - 1)\,dv = w\,\psi(s w)`.

    Examples
    --------
    >>> import math
    >>> abs(float(psi_excess(1e-3)) - (math.expm1(1e-3) - 1e-3) / 1e-3) < 1e-16
    True
    """
    z = np.asarray(z, dtype=float)
    with np.errstate(all="ignore"):
        small = np.abs(z) < 0.1
        zs = np.where(small, z, 0.0)
        # z/2 + z^2/6 + z^3/24 + ... to z^12 / 13!: relative error below 1e-17 for |z| < 0.1
        ser = np.zeros_like(zs)
        power = np.ones_like(zs)
        fact = 1.0
        for n in range(2, 14):
            fact *= n
            power = power * zs
            ser = ser + power / fact
        direct = (np.expm1(z) - z) / np.where(small, 1.0, z)
    return np.where(small, ser, direct)


def _psi(z):
    r""":math:`\psi(z) = (e^z - 1)/z` (1 at 0), vectorised: :math:`\int_0^w e^{s v} dv = w\,\psi(s w)`."""
    z = np.asarray(z, dtype=float)
    with np.errstate(all="ignore"):
        small = np.abs(z) < 1e-5
        out = np.where(small, 1.0 + z / 2 + z * z / 6, np.expm1(z) / np.where(small, 1.0, z))
    return out


def _dpsi(y):
    r""":math:`\psi'(y) = (e^y (y - 1) + 1)/y^2`, by its series near 0 (1/2 + y/3 + y^2/8 + ...)."""
    y = np.asarray(y, dtype=float)
    with np.errstate(all="ignore"):
        small = np.abs(y) < 0.1
        ys = np.where(small, y, 0.0)
        ser = np.zeros_like(ys)
        power = np.ones_like(ys)
        fact = 1.0
        for n in range(1, 16):  # sum n y^(n-1) / (n+1)!
            fact *= n + 1
            ser = ser + n * power / fact
            power = power * ys
        big = (np.exp(y) * (y - 1) + 1) / np.where(small, 1.0, y * y)
    return np.where(small, ser, big)


def _psi_diff(z, h):
    r"""An enclosure of :math:`\psi(z + h) - \psi(z)`: :math:`\psi'` rises (``psi`` is convex), so
    the difference lies between ``h psi'(z)`` and ``h psi'(z + h)`` (ordered by the sign of
    ``h``), each widened by its rounding."""
    z = np.asarray(z, dtype=float)
    h = np.asarray(h, dtype=float)
    a, b = h * _dpsi(z), h * _dpsi(z + h)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    rel = 64 * _U
    return lo - rel * np.abs(lo), hi + rel * np.abs(hi)
