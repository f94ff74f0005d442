r"""Exponentially tilted prior masses with certified enclosures (beyond the paper).

Every bound of garesearch that compares likelihoods of an :math:`\epsilon`-DP mechanism weighs
the prior with an exponential: the Laplace kernel :math:`e^{-\epsilon|x-c|}`, the inverted
kernel :math:`e^{+\epsilon|x-c|}`, the moment :math:`E[e^{\epsilon D(X)}]` of the lower side.
All of them are built from the two *tilted tails* of a prior :math:`F`,

.. math::

    \mathrm{LT}_k(x) = \log \int_{u \le x} e^{k (u - x)}\, dF(u), \qquad
    \mathrm{RT}_k(x) = \log \int_{u \ge x} e^{k (u - x)}\, dF(u),

anchored at the point ``x`` itself, so that for the decaying sign (``k > 0`` on the left,
``k < 0`` on the right) every weight is at most 1 and nothing overflows, and from the tilted
masses of intervals.  This module computes them as **enclosures** ``[lo, hi]`` (in log scale):
every answer that rests on them takes the safe end.

How each prior is enclosed
--------------------------
- :func:`normal_log_tilted_tail`: the closed form for :math:`\mathcal N(\mu, \sigma^2)` through
  ``erfcx`` / ``log_ndtr``, widened by a forward rounding-error bound (:func:`rounding_pad`).
- :class:`ItemTable`: a prior as a sorted sequence of *items*, atoms or panels that tile the
  support, each with an enclosure of its own tilted mass anchored at either end.  Whole items
  are summed by prefix and suffix scans (:func:`scan_prefix`, one per end of the enclosure,
  since the terms are positive); the item cut by a query point contributes its part directly.

  - atoms (:class:`~garesearch.priors.Categorical`): exact;
  - uniform panels (:class:`~garesearch.priors.PiecewiseUniform`): closed forms;
  - panels of a distribution given by its CDF (:class:`~garesearch.priors.Continuous`): the
    panel's mass :math:`F(a, b]` from the CDF (log CDF / log SF in the tails) and, since the
    tilt :math:`e^{k(u - x)}` is monotone on a panel, :math:`e^{k(a - x)} F(a, b]` and
    :math:`e^{k(b - x)} F(a, b]` as its ends (first order in the panel's width: a spike cannot
    hide between nodes); where the sign of the log-density's curvature on a panel is known
    (declared per scipy family), its chords and their extensions through the panel's midpoint
    bound the density from both sides (second order);
  - an unbounded end panel, beyond tail mass :math:`10^{-300}` or so: with the declared tail
    class (:mod:`garesearch.tails`) its survival function decays at least like
    :math:`e^{-\lambda (u - x)}` with :math:`\lambda` the smallest hazard rate beyond its
    edge, so a growing tilt :math:`|k| < \lambda` adds at most a factor
    :math:`\lambda / (\lambda - |k|)`; a heavier tail gives ``inf`` (the integral diverges).

Rounding: each enclosure is widened by a forward error bound of the floating-point operations
that computed it (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Sec. 3.1:
:math:`\gamma_n = n u / (1 - n u)` per chain of ``n`` operations), with scipy's special
functions and distribution methods taken as accurate to :data:`LIB_RTOL` relative (their own
documented accuracy is a few units in the last place).
"""

from __future__ import annotations

import math

import numpy as np

from .errors import ParameterError

__all__ = [
    "LIB_RTOL",
    "ItemTable",
    "log_diff_exp",
    "log_expm1_over",
    "log_int_exp",
    "normal_log_tilted_tail",
    "rounding_pad",
    "scan_prefix",
    "scan_suffix",
    "tilted_prefix",
    "tilted_suffix",
]

_U = 2.0**-53  # unit roundoff of float64
#: relative accuracy assumed of scipy's special functions and of a distribution's cdf / sf /
#: logpdf (a few units in the last place, with room to spare)
LIB_RTOL = 64 * _U
_SQRT1_2 = math.sqrt(0.5)
_BLOCK = 128  # items per block of the two-level prefix scan


def _special():
    import scipy.special

    return scipy.special


def rounding_pad(n_ops, *magnitudes, floor: float = 1.0):
    r"""A bound on the absolute rounding error of a value computed by ``n_ops`` floating-point
    operations from terms of the given magnitudes (arrays broadcast):
    :math:`\gamma_{n} (f + \sum_i |m_i|)` with :math:`\gamma_n = n u / (1 - n u)` (Higham,
    Sec. 3.1), two operations added for the elementary functions (``exp``, ``log``, ``log1p``,
    ``expm1``: correctly rounded to within one unit in the last place).  Errors of scipy's
    special functions and of a distribution's methods are added where they are called
    (:data:`LIB_RTOL`).  ``floor`` (``f``, default 1) covers intermediate terms of order 1 that
    the magnitudes do not show; 0 where every term scales with them.  Where a magnitude is
    infinite or NaN the value it pads is too, and the pad is the minimal one (always finite).

    Examples
    --------
    >>> float(rounding_pad(4, 1.0)) > 4 * 2.0**-53
    True
    """
    n = float(n_ops) + 2.0
    scale = n * _U / (1 - n * _U)
    total = floor
    with np.errstate(invalid="ignore"):
        for m in magnitudes:
            total = total + np.abs(m)
        # an infinite value needs no pad (it stays infinite)
        return scale * np.where(total < np.inf, total, floor)


def log_diff_exp(a, b):
    r""":math:`\log(e^a - e^b)` for :math:`a \ge b` (``-inf`` where ``a == b``), vectorised.

    Examples
    --------
    >>> import math
    >>> abs(float(log_diff_exp(math.log(3.0), 0.0)) - math.log(2.0)) < 1e-15
    True
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = a + np.log(-np.expm1(np.minimum(b - a, 0.0)))
    return np.where(np.isneginf(b), a, np.where(b >= a, -np.inf, out))


def log_expm1_over(s, w):
    r""":math:`\log \int_0^w e^{-s u}\, du = \log\big((1 - e^{-s w})/s\big)` for ``s >= 0``
    (``log w`` at ``s = 0``; ``-log s`` for ``w = inf``), vectorised; ``w >= 0``.  Written as
    :math:`\log w + \log\big((1 - e^{-z})/z\big)`, :math:`z = s w`, so that no two large
    logarithms cancel when ``s`` is tiny.

    Examples
    --------
    >>> import math
    >>> abs(float(log_expm1_over(1.0, math.log(2.0))) - math.log(0.5)) < 1e-15  # (1 - 1/2)/1
    True
    >>> abs(float(log_expm1_over(1e-300, 2.0)) - math.log(2.0)) < 1e-15
    True
    """
    s = np.asarray(s, dtype=float)
    w = np.asarray(w, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = s * w
        ratio = -np.expm1(-z) / np.where(z > 0, z, 1.0)
        finite = np.log(w) + np.log(ratio)
        out = np.where(z > 0, finite, np.log(w))
        out = np.where(np.isinf(w) & (s > 0), -np.log(np.where(s > 0, s, 1.0)), out)
    return out


def log_int_exp(alpha, beta, w):
    r""":math:`\log \int_0^w e^{\alpha + \beta v}\, dv` (``w >= 0``; ``inf`` for ``w = inf`` and
    :math:`\beta \ge 0`), vectorised, without overflow or cancellation.

    Examples
    --------
    >>> import math
    >>> abs(float(log_int_exp(0.0, 1.0, 1.0)) - math.log(math.e - 1)) < 1e-15
    True
    """
    alpha, beta, w = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (alpha, beta, w)))
    with np.errstate(invalid="ignore", over="ignore"):
        grow = np.where(beta > 0, beta * np.where(np.isfinite(w), w, 0.0), 0.0)
        out = alpha + grow + log_expm1_over(np.abs(beta), w)
    out = np.where(np.isinf(w) & (beta >= 0) & (w > 0), np.inf, out)
    return np.where(w > 0, out, -np.inf)


def normal_log_tilted_tail(k: float, x, mu: float, sigma: float, side: str):
    r"""Tilted tail of :math:`\mathcal N(\mu, \sigma^2)`: :math:`\mathrm{LT}_k(x)` (``side="left"``)
    or :math:`\mathrm{RT}_k(x)` (``side="right"``), vectorised over ``x``.

    With :math:`z = (x-\mu)/\sigma`, :math:`w = k\sigma`, :math:`b = z - w`:

    .. math::

        \mathrm{LT}_k(x) = -\tfrac{z^2}{2} + \log\tfrac{\mathrm{erfcx}(-b/\sqrt2)}{2}
        \ (b \le 0), \qquad
        \mathrm{LT}_k(x) = w^2/2 - wz + \log\Phi(b)\ (b > 0),

    and :math:`\mathrm{RT}_k(x)` by the mirror image (:math:`z \to -z`, :math:`w \to -w`).
    Both branches agree at :math:`b = 0`; each is free of cancellation where it is used.

    Examples
    --------
    >>> import math
    >>> from statistics import NormalDist
    >>> # LT_k(x) = -k x + k^2/2 + log Phi(x - k) for N(0, 1)
    >>> got = float(normal_log_tilted_tail(1.0, 0.5, 0.0, 1.0, "left"))
    >>> abs(got - (-0.5 + 0.5 + math.log(NormalDist().cdf(-0.5)))) < 1e-14
    True
    """
    out, _ = _normal_tail(k, x, mu, sigma, side, pad=False)
    return out


def _normal_tail(k, x, mu, sigma, side, pad=True):
    """:func:`normal_log_tilted_tail` and a bound on its rounding error (``None`` without
    ``pad``)."""
    sp = _special()
    z = (np.asarray(x, dtype=float) - mu) / sigma
    w = float(k) * sigma
    if side == "right":
        z, w = -z, -w
    elif side != "left":
        raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
    b = z - w
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        near_log = np.log(0.5 * sp.erfcx(-np.minimum(b, 0.0) * _SQRT1_2))
        near = -0.5 * z * z + near_log
        far_log = sp.log_ndtr(np.maximum(b, 0.0))
        far = 0.5 * w * w - w * z + far_log
        out = np.where(b <= 0, near, far)
        if not pad:
            return out, None
        # rounding (Higham's gamma_n per term, scipy's erfcx / log_ndtr to LIB_RTOL): z carries
        # 2u relative, b = z - w another u (|z| + |w|).  Near branch: z^2/2 is off by 4u z^2/2,
        # and log erfcx(y), y = -b/sqrt2 >= 0, has slope at most min(sqrt2, 1/y) (from
        # erfcx(y) > 2 / (sqrt(pi) (y + sqrt(y^2 + 2))), Abramowitz and Stegun 7.1.13).  Far
        # branch: w^2/2 - w z is off by 4u (w^2/2 + |w z|) and log Phi(b), b > 0, has slope
        # below 0.8.
        db = _U * (3 * np.abs(z) + abs(w))
        y = np.abs(np.minimum(b, 0.0)) * _SQRT1_2
        slope = np.minimum(math.sqrt(2.0), 1.0 / np.where(y > 0, y, 1e-300)) * _SQRT1_2
        pad_near = 4 * _U * 0.5 * z * z + slope * db + LIB_RTOL * (1 + np.abs(near_log))
        pad_far = 4 * _U * (0.5 * w * w + np.abs(w * z)) + 0.8 * db + LIB_RTOL * (1 + np.abs(far_log))
        bound = np.where(b <= 0, pad_near, pad_far) + 4 * _U * np.abs(out)
    return out, bound


# ------------------------------------------------------------------------------------------
# prefix and suffix sums in log space
# ------------------------------------------------------------------------------------------
def tilted_prefix(pos, logw, k: float):
    r"""Stable prefix sums :math:`s_j = \log \sum_{i \le j} e^{\ell_i + k (x_i - x_j)}`.

    ``pos`` (:math:`x_i`) is sorted ascending and ``logw`` (:math:`\ell_i`) holds the log
    weights anchored at their own positions.  A single global anchor would lose
    :math:`|k x|` worth of digits; instead the maps :math:`s \mapsto \mathrm{logaddexp}(s + D,
    L)` are composed as an inclusive scan, :math:`(D_2, L_2) \circ (D_1, L_1) = (D_1 + D_2,
    \mathrm{logaddexp}(L_1 + D_2, L_2))`: :math:`\lceil \log_2 n \rceil` vectorised passes.

    Examples
    --------
    >>> import math
    >>> s = tilted_prefix([0.0, 1.0], [0.0, 0.0], 1.0)
    >>> float(s[0]), abs(float(s[1]) - math.log(1 + math.exp(-1.0))) < 1e-15
    (0.0, True)
    """
    pos = np.asarray(pos, dtype=float)
    L = np.array(logw, dtype=float)
    n = pos.size
    if n == 0:
        return L
    k = float(k)
    D = np.empty(n)
    D[0] = 0.0
    D[1:] = k * (pos[:-1] - pos[1:])
    off = 1
    with np.errstate(invalid="ignore"):
        while off < n:
            L_new = np.logaddexp(L[:-off] + D[off:], L[off:])
            D_new = D[:-off] + D[off:]
            L[off:] = L_new
            D[off:] = D_new
            off *= 2
    return L


def tilted_suffix(pos, logw, k: float):
    r"""Stable suffix sums :math:`s_j = \log \sum_{i \ge j} e^{\ell_i + k (x_i - x_j)}`
    (:func:`tilted_prefix` on the mirrored sequence).

    Examples
    --------
    >>> import math
    >>> s = tilted_suffix([0.0, 1.0], [0.0, 0.0], 1.0)
    >>> abs(float(s[0]) - math.log(1 + math.e)) < 1e-15, float(s[1])
    (True, 0.0)
    """
    pos = np.asarray(pos, dtype=float)
    logw = np.asarray(logw, dtype=float)
    return tilted_prefix(-pos[::-1], logw[::-1], -float(k))[::-1]


def scan_prefix(pos, logw, k: float):
    r""":func:`tilted_prefix` in two levels (blocks of 128 items accumulated sequentially, the
    blocks combined by :func:`tilted_prefix`), with a bound on each entry's rounding error.

    Returns
    -------
    (values, pad) : tuple of ndarray
        :math:`s_j = \log \sum_{i \le j} e^{\ell_i + k(x_i - x_j)}` and an absolute bound on
        its error (the weights' own errors not included).

    Examples
    --------
    >>> import math
    >>> s, pad = scan_prefix([0.0, 1.0, 2.0], [0.0, 0.0, 0.0], 1.0)
    >>> abs(float(s[2]) - math.log(1 + math.exp(-1) + math.exp(-2))) <= float(pad[2])
    True
    """
    pos = np.asarray(pos, dtype=float)
    logw = np.asarray(logw, dtype=float)
    n = pos.size
    k = float(k)
    if n == 0:
        return logw.copy(), np.zeros(0)
    nb = -(-n // _BLOCK)
    m = nb * _BLOCK
    P = np.full(m, pos[-1])
    P[:n] = pos
    W = np.full(m, -np.inf)
    W[:n] = logw
    P, W = P.reshape(nb, _BLOCK), W.reshape(nb, _BLOCK)
    last = np.minimum(np.arange(1, nb + 1) * _BLOCK, n) - 1
    A = pos[last]  # each block's anchor: its last item
    with np.errstate(invalid="ignore", over="ignore"):
        # each term is moved to its block's anchor and back: that costs 2u |k (A - x_j)|
        # per term; where that exceeds 1e-13 the exact per-pair anchoring of tilted_prefix is
        # used instead (a block of far-apart items and a large tilt)
        swing = np.abs(k) * (A[:, None] - P)
        if float(np.max(np.where(np.isfinite(W), swing, 0.0))) > 1e-13 / (4 * _U):
            out = tilted_prefix(pos, logw, k)
            exact = True
        else:
            local = np.logaddexp.accumulate(W + k * (P - A[:, None]), axis=1)  # anchored at A_b
            carry = tilted_prefix(A, local[np.arange(nb), last - np.arange(nb) * _BLOCK], k)
            shift = k * (A[:, None] - P)
            out = local + shift
            prev = np.concatenate([[-np.inf], carry[:-1]])
            prevA = np.concatenate([[A[0]], A[:-1]])
            out = np.logaddexp(out, prev[:, None] + k * (prevA[:, None] - P))
            out = out.ravel()[:n]
            exact = False
    # rounding: the chain of logaddexp's (relative error of the sum, about one unit per
    # operation), the move to the block's anchor and back (2u |k (A - x_j)|), and the
    # exponents k (x_i - x_j), each off by (2 + log2 n) u relative.  Only terms with a share
    # above e^-60 matter, and for those |k (x_i - x_j)| <= |s_j| + 60 + |log w_i| <= |s_j| + 860
    # (weights are masses above 1e-320 or tilted ones on the safe side)
    levels = math.log2(n + 1)
    ops = (4 * levels + 8) if exact else (min(n, _BLOCK) + 4 * math.log2(nb + 1) + 8)
    with np.errstate(invalid="ignore"):
        a_out = np.abs(np.where(np.isfinite(out), out, 0.0))
        reach = np.minimum(np.abs(k) * (pos - pos[0]), a_out + 860.0)
        pad = 4 * _U * (ops * (1.0 + a_out) + (4 + levels) * reach)
        if not exact:
            pad = pad + 4 * _U * swing.ravel()[:n]
    return out, np.where(np.isfinite(out), pad, 0.0)


def scan_suffix(pos, logw, k: float):
    r""":func:`scan_prefix` of the mirrored sequence: :math:`\log \sum_{i \ge j}
    e^{\ell_i + k(x_i - x_j)}` and its error bound.

    Examples
    --------
    >>> import math
    >>> s, pad = scan_suffix([0.0, 1.0], [0.0, 0.0], -1.0)
    >>> abs(float(s[0]) - math.log(1 + math.exp(-1))) <= float(pad[0])
    True
    """
    pos = np.asarray(pos, dtype=float)
    logw = np.asarray(logw, dtype=float)
    out, pad = scan_prefix(-pos[::-1], logw[::-1], -float(k))
    return out[::-1], pad[::-1]


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


def _diff_with_pad(top, sub, lower: bool):
    r""":math:`\log(e^{top} - e^{sub})` and a bound on its absolute error, for the entries of
    one end of an enclosure (``lower``: round down): the error of ``top`` and ``sub`` (already
    inside them) is magnified by :math:`(e^{top} + e^{sub}) / (e^{top} - e^{sub})`."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        val = log_diff_exp(top, np.minimum(sub, top))
        ratio = np.exp(np.minimum(sub - top, 0.0))  # e^{sub - top} in [0, 1]
        gain = (1 + ratio) / np.where(ratio < 1, 1 - ratio, np.inf)
        pad = rounding_pad(4, top) * gain
        pad = np.where(np.isneginf(sub), rounding_pad(1, top), pad)
        # a difference lost entirely to rounding leaves no lower bound
        val = np.where(np.isfinite(pad) | ~lower, val, -np.inf)
    return val, pad


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
        ``(left, right)`` :class:`garesearch.tails.Tail` of each end (used where infinite).
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
