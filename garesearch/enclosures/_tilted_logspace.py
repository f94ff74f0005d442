r"""Rounding and log-space arithmetic for :mod:`garesearch.enclosures.tilted`: the forward rounding-error
bound every enclosure is widened by (:func:`~garesearch.enclosures.tilted.rounding_pad`; Higham, Sec. 3.1),
logarithms of differences and integrals of exponentials, and the prefix and suffix sums of
tilted masses in log space (two-level scans).
"""

from __future__ import annotations

import math

import numpy as np

_U = 2.0**-53  # unit roundoff of float64
#: relative accuracy assumed of scipy's special functions and of a distribution's cdf / sf /
#: logpdf (a few units in the last place, with room to spare)
LIB_RTOL = 64 * _U
_BLOCK = 128  # items per block of the two-level prefix scan


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
