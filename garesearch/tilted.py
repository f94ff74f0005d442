r"""Exponentially tilted prior masses, computed stably in log space (beyond the paper).

Every bound of garesearch that compares likelihoods of an :math:`\epsilon`-DP mechanism weighs
the prior with an exponential: the Laplace kernel :math:`e^{-\epsilon|x-c|}`, the inverted
kernel :math:`e^{+\epsilon|x-c|}`, the moment :math:`E[e^{\epsilon D(X)}]` of the lower side.
All of them are built from the two *tilted tails* of a prior :math:`F`,

.. math::

    \mathrm{LT}_k(x) = \log \int_{u \le x} e^{k (u - x)}\, dF(u), \qquad
    \mathrm{RT}_k(x) = \log \int_{u \ge x} e^{k (u - x)}\, dF(u),

anchored at the point ``x`` itself, so that for the decaying sign (``k > 0`` on the left,
``k < 0`` on the right) every weight is at most 1 and nothing overflows.  This module holds
the numerical pieces; :meth:`garesearch.priors.Prior.log_tilted_tail` is the one entry point.

- :func:`normal_log_tilted_tail`: closed form for :math:`\mathcal N(\mu, \sigma^2)` through
  ``erfcx`` (no cancellation between :math:`k^2\sigma^2/2` and the log of a tiny tail).
- :class:`PanelTable`: a prior given by panels on which the log-density is linear (exact for
  piecewise-uniform priors, a fine approximation of any density) or by atoms; tilted tails by
  prefix sums that never anchor far away (:func:`tilted_prefix`), so a tail 1e300 away costs no
  digits.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import ParameterError

__all__ = [
    "PanelTable",
    "log_diff_exp",
    "log_expm1_over",
    "normal_log_tilted_tail",
    "tilted_prefix",
    "tilted_suffix",
]

_SQRT1_2 = math.sqrt(0.5)
# Gauss-Legendre nodes and log weights on [0, 1] (24 points), for pieces of panels
_GL_X, _GL_W = np.polynomial.legendre.leggauss(24)
_GL_U = 0.5 * (_GL_X + 1.0)
_GL_LOGW = np.log(0.5 * _GL_W)
_LOG_HALF = math.log(0.5)


def _special():
    import scipy.special

    return scipy.special


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
    (``log w`` at ``s = 0``), vectorised; ``w >= 0``.

    Examples
    --------
    >>> import math
    >>> abs(float(log_expm1_over(1.0, math.log(2.0))) - math.log(0.5)) < 1e-15  # (1 - 1/2)/1
    True
    """
    s = np.asarray(s, dtype=float)
    w = np.asarray(w, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        sw = s * w
        out = np.where(sw > 0, np.log(-np.expm1(-sw)) - np.log(np.where(s > 0, s, 1.0)), np.log(w))
    return out


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
    sp = _special()
    z = (np.asarray(x, dtype=float) - mu) / sigma
    w = float(k) * sigma
    if side == "right":
        z, w = -z, -w
    elif side != "left":
        raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
    b = z - w
    with np.errstate(over="ignore", invalid="ignore"):
        near = -0.5 * z * z + np.log(0.5 * sp.erfcx(-np.minimum(b, 0.0) * _SQRT1_2))
        far = 0.5 * w * w - w * z + sp.log_ndtr(np.maximum(b, 0.0))
    out = np.where(b <= 0, near, far)
    return out


def tilted_prefix(pos, logw, k: float):
    r"""Stable prefix sums :math:`s_j = \log \sum_{i \le j} e^{\ell_i + k (x_i - x_j)}`.

    ``pos`` (:math:`x_i`) is sorted ascending and ``logw`` (:math:`\ell_i`) holds the log
    weights anchored at their own positions.  A single global anchor would lose
    :math:`|k x|` worth of digits.  Instead the recurrence
    :math:`s_j = \mathrm{logaddexp}(s_{j-1} + d_j, \ell_j)`, :math:`d_j = k(x_{j-1} - x_j)`,
    is evaluated as an inclusive scan of the maps :math:`s \mapsto \mathrm{logaddexp}(s + D,
    L)`, which compose as :math:`(D_2, L_2) \circ (D_1, L_1) = (D_1 + D_2,
    \mathrm{logaddexp}(L_1 + D_2, L_2))`: :math:`\lceil \log_2 n \rceil` vectorised passes,
    and no large terms ever cancel.

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


class PanelTable:
    r"""A prior as panels with a log-linear density, or as atoms, with its tilted tails.

    Panel ``j`` is :math:`[e_j, e_{j+1}]` with density
    :math:`f(u) = \exp(\alpha_j + \beta_j (u - \rho_j))`, :math:`\rho_j` its finite edge
    (``beta = 0``: piecewise uniform, exact for :class:`~garesearch.priors.PiecewiseUniform`).
    The outermost edges may be infinite: an unbounded end is one exponential panel (its
    :math:`\beta` of the right sign; a tiny :math:`|\beta|` marks a tail heavier than every
    exponential, on which a growing tilt integrates to ``inf``).  ``atoms`` instead gives
    point masses.

    Parameters
    ----------
    log_mass : array_like
        Log of each panel's (or atom's) mass.
    edges : array_like, optional
        Panel edges, strictly increasing (one more than panels); only the first and last may
        be infinite.
    beta : array_like, optional
        Slope of the log-density on each panel (default 0).
    atoms : array_like, optional
        Atom positions, sorted (then ``edges`` and ``beta`` are not given).
    logpdf : callable, optional
        The true log-density (vectorised).  Given, the part of a panel cut by a query point
        is integrated with the true density: Gauss-Legendre in :math:`v = e^{g(u - u_0)}`,
        :math:`g = k + \beta_j`, :math:`u_0` the end where the tilted density peaks, which
        leaves a nearly constant integrand however wide the panel is against :math:`1/|k|`.
    """

    def __init__(self, *, log_mass, edges=None, beta=None, atoms=None, logpdf=None):
        self.logpdf = logpdf
        self.log_mass = np.asarray(log_mass, dtype=float)
        self.atoms = None if atoms is None else np.asarray(atoms, dtype=float)
        self._cache: dict[float, tuple] = {}
        if self.atoms is not None:
            return
        e = np.asarray(edges, dtype=float)
        n = e.size - 1
        self.edges = e
        self.beta = np.zeros(n) if beta is None else np.asarray(beta, dtype=float)
        lo_inf, hi_inf = np.isinf(e[0]), np.isinf(e[-1])
        self.rho = e[:-1].copy()
        if lo_inf:
            self.rho[0] = e[1]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            w = np.diff(e)
            b = self.beta
            grow = np.where(np.isfinite(w), np.maximum(b * w, 0.0), 0.0)
            alpha = self.log_mass - grow - log_expm1_over(np.abs(b), w)
            # an infinite end panel: int_0^inf e^{-|beta| u} du = 1/|beta|; the left end is
            # anchored at its right edge (mass below it: e^{alpha} / beta)
            if lo_inf:
                alpha[0] = self.log_mass[0] + math.log(b[0])
            if hi_inf:
                alpha[-1] = self.log_mass[-1] + math.log(-b[-1])
        self.alpha = alpha
        self._lo_inf, self._hi_inf = bool(lo_inf), bool(hi_inf)

    def _partial(self, j, a, b, k, anchor):
        r""":math:`\log\int_a^b e^{k(u - \text{anchor})} f(u)\,du` over part of panel ``j``
        (``a <= b`` within the panel; ``-inf`` where ``a == b``, ``inf`` where it diverges)."""
        alpha, beta, rho = self.alpha[j], self.beta[j], self.rho[j]
        g = beta + k
        ref = np.where(g > 0, b, a)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            head = alpha + beta * (ref - rho) + k * (ref - anchor)
            out = head + log_expm1_over(np.abs(g), b - a)
        diverges = (np.isinf(a) & (g <= 0)) | (np.isinf(b) & (g >= 0))
        empty = ~(b > a)
        return np.where(empty, -np.inf, np.where(diverges, np.inf, out))

    def _cut(self, j, a, b, k, anchor):
        """:meth:`_partial` for the piece of a panel cut by a query point; with the true
        density where ``logpdf`` is given (class docstring)."""
        part = self._partial(j, a, b, k, anchor)
        if self.logpdf is None:
            return part
        # only pieces over which the tilted density changes by a factor e^{1/2} or more need
        # the true density; on the others the mass-matched model is exact to its bend
        width = np.broadcast_to(b, part.shape) - np.broadcast_to(a, part.shape)
        steep_piece = np.abs(np.broadcast_to(self.beta[j], part.shape) + k) * width > 0.5
        finite = np.isfinite(part) & np.isfinite(a) & np.isfinite(b) & (b > a) & steep_piece
        if not np.any(finite):
            return part
        idx = np.flatnonzero(finite)

        def flat(v):
            return np.broadcast_to(v, part.shape).ravel()[idx]

        aa, bb, anc = flat(a), flat(b), flat(anchor)
        g = flat(self.beta[j]) + k
        w = bb - aa
        gw = np.abs(g) * w
        steep = gw > 1e-3
        end = np.where(g > 0, bb, aa)
        with np.errstate(all="ignore"):
            # steep pieces: v = e^{-|g| |u - end|} in [e^{-|g| w}, 1], du = dv / (|g| v)
            v0 = np.exp(-gw)
            v = v0[:, None] + (1 - v0)[:, None] * _GL_U
            dist = -np.log(v) / np.where(steep, np.abs(g), 1.0)[:, None]
            off_steep = np.where((g > 0)[:, None], -dist, dist)  # u - end
            # flat pieces: plain Gauss-Legendre in u
            off_flat = (aa - end)[:, None] + w[:, None] * _GL_U
            off = np.where(steep[:, None], off_steep, off_flat)
            u = end[:, None] + off
            # k (u - anchor) from the offsets, not from u (which has lost |u| worth of digits)
            h = self.logpdf(u) + k * (off + (end - anc)[:, None])
            # steep: integrand e^{h} / (|g| v); flat: e^{h}
            lw = np.where(steep[:, None], h - np.log(np.abs(g))[:, None] - np.log(v) + np.log(1 - v0)[:, None],
                          h + np.log(w)[:, None]) + _GL_LOGW
            top = np.max(lw, axis=1)
            val = top + np.log(np.sum(np.exp(lw - top[:, None]), axis=1))
        out = np.array(part, dtype=float, copy=True)
        good = np.isfinite(val)
        out.flat[idx[good]] = val[good]
        return out

    def _tables(self, k: float):
        """Prefix sums over whole panels anchored at each right edge, suffix sums anchored at
        each left edge (or over atoms, anchored at each atom), cached per ``k``."""
        hit = self._cache.get(k)
        if hit is not None:
            return hit
        if self.atoms is not None:
            pre = tilted_prefix(self.atoms, self.log_mass, k)
            suf = tilted_suffix(self.atoms, self.log_mass, k)
        else:
            e = self.edges
            n = e.size - 1
            idx = np.arange(n)
            pre = np.full(n, np.nan)
            suf = np.full(n, np.nan)
            last = n - 1 if self._hi_inf else n  # panels with a finite right edge
            first = 1 if self._lo_inf else 0  # panels with a finite left edge
            if last > 0:
                j = idx[:last]
                pre[:last] = tilted_prefix(e[1 : last + 1], self._partial(j, e[j], e[j + 1], k, e[j + 1]), k)
            if first < n:
                j = idx[first:]
                suf[first:] = tilted_suffix(e[first:n], self._partial(j, e[j], e[j + 1], k, e[j]), k)
        if len(self._cache) > 8:
            self._cache.clear()
        self._cache[k] = (pre, suf)
        return pre, suf

    def log_tilted_tail(self, k: float, x, side: str):
        r""":math:`\mathrm{LT}_k(x)` (``side="left"``) or :math:`\mathrm{RT}_k(x)`
        (``side="right"``), vectorised over ``x`` (module docstring)."""
        k = float(k)
        x = np.asarray(x, dtype=float)
        pre, suf = self._tables(k)
        if self.atoms is not None:
            pos = self.atoms
            if side == "left":
                j = np.searchsorted(pos, x, side="right") - 1
                jj = np.clip(j, 0, pos.size - 1)
                return np.where(j >= 0, pre[jj] + k * (pos[jj] - x), -np.inf)
            j = np.searchsorted(pos, x, side="left")
            jj = np.clip(j, 0, pos.size - 1)
            return np.where(j < pos.size, suf[jj] + k * (pos[jj] - x), -np.inf)
        out = self._table_tail(k, x, side)
        if self.logpdf is None:
            return out
        # near x, a decaying tilt sees the true density: where the panels around x are wide
        # against 1/|k|, integrate a window next to x (to weight e^{-50}) with the true
        # density and take only what lies beyond it from the panels
        decaying = (k > 0) if side == "left" else (k < 0)
        if not decaying:
            return out
        e = self.edges
        n = e.size - 1
        m = np.clip(np.searchsorted(e, x, side="right") - 1, 0, n - 1)
        # the tilted density decays away from x at about g = |k + beta| (beta: the panel's
        # log-density slope); where it does not, the mass far away dominates: keep the table
        sign = -1.0 if side == "left" else 1.0
        g = -sign * (k + self.beta[m])
        wide = np.isfinite(out) & (np.abs(k) * (e[m + 1] - e[m]) > 0.5) & (g > 0.5 * abs(k))
        if not np.any(wide):
            return out
        xs = x[wide] if x.ndim else x[None]
        gw = g[wide] if x.ndim else np.atleast_1d(g)
        with np.errstate(all="ignore"):
            # v = e^{-g |u - x|} over the window |u - x| <= 50 / g; du = dv / (g v)
            v0 = math.exp(-50.0)
            v = v0 + (1 - v0) * _GL_U
            d = -np.log(v)[None, :] / gw[:, None]
            u = xs[:, None] + sign * d
            # e^{k(u - x)} = e^{-g d} e^{-sign beta d}: written without u - x, which would
            # lose the digits of |x| (1e10 in a far tail)
            beta = self.beta[m][wide] if x.ndim else np.atleast_1d(self.beta[m])
            lw = self.logpdf(u) - sign * beta[:, None] * d - np.log(gw)[:, None]
            lw = lw + math.log(1 - v0) + _GL_LOGW
            top = np.max(lw, axis=1)
            near = top + np.log(np.sum(np.exp(lw - top[:, None]), axis=1))
            far_x = xs + sign * 50.0 / gw
            far = self._table_tail(k, far_x, side) + k * (far_x - xs)
            val = np.logaddexp(near, far)
        if x.ndim == 0:
            return val[0] if np.isfinite(val[0]) else out
        out = np.array(out, dtype=float, copy=True)
        out[wide] = np.where(np.isfinite(val), val, out[wide])
        return out

    def _table_tail(self, k: float, x, side: str):
        """The tilted tail from the panels (whole panels from the prefix sums, the panel
        holding ``x`` from :meth:`_cut`)."""
        pre, suf = self._tables(k)
        e = self.edges
        n = e.size - 1
        m = np.clip(np.searchsorted(e, x, side="right") - 1, 0, n - 1)  # panel holding x
        with np.errstate(invalid="ignore", over="ignore"):
            if side == "left":
                a = e[m]
                b = np.clip(x, e[m], e[m + 1])
                part = self._cut(m, a, b, k, x)
                mm = np.maximum(m - 1, 0)
                before = np.where(m > 0, pre[mm] + k * (e[m] - x), -np.inf)
                return np.logaddexp(part, before)
            if side != "right":
                raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")
            a = np.clip(x, e[m], e[m + 1])
            b = e[m + 1]
            part = self._cut(m, a, b, k, x)
            mp = np.minimum(m + 1, n - 1)
            after = np.where(m < n - 1, suf[mp] + k * (e[np.minimum(m + 1, n)] - x), -np.inf)
            return np.logaddexp(part, after)
