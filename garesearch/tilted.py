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
  prefix sums that stay anchored locally (:func:`tilted_prefix`), so a tail 1e300 away costs no
  digits.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = [
    "PanelTable",
    "log_diff_exp",
    "log_expm1_over",
    "normal_log_tilted_tail",
    "tilted_prefix",
    "tilted_suffix",
]

_SQRT1_2 = math.sqrt(0.5)
_LOG_HALF = math.log(0.5)
# block extent (in units of |k| * distance) within which one anchor keeps the prefix sums
# accurate to about 1e-12 (the rounding of log-sums of size |k| * distance)
_BLOCK = 1e4


def _special():
    import scipy.special

    return scipy.special


def log_diff_exp(a, b):
    r""":math:`\log(e^a - e^b)` for :math:`a \ge b` (``-inf`` where ``a == b``), vectorised."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = a + np.log(-np.expm1(np.minimum(b - a, 0.0)))
    return np.where(np.isneginf(b), a, np.where(b >= a, -np.inf, out))


def log_expm1_over(s, w):
    r""":math:`\log \int_0^w e^{-s u}\, du = \log\big((1 - e^{-s w})/s\big)` for ``s >= 0``
    (``log w`` at ``s = 0``), vectorised; ``w >= 0``."""
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
    """
    sp = _special()
    z = (np.asarray(x, dtype=float) - mu) / sigma
    w = float(k) * sigma
    if side == "right":
        z, w = -z, -w
    elif side != "left":
        raise ValueError(f"side must be 'left' or 'right'; got {side!r}")
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
    :math:`|k x|` worth of digits; here the sum is taken block by block, each block spanning
    at most ``1e4 / |k|``, and carried between blocks anchored at the block's end.
    """
    pos = np.asarray(pos, dtype=float)
    logw = np.asarray(logw, dtype=float)
    n = pos.size
    out = np.empty(n)
    if n == 0:
        return out
    k = float(k)
    if k == 0:
        return np.logaddexp.accumulate(logw)
    # block starts: where the extent from the block's first point exceeds _BLOCK / |k|
    span = _BLOCK / abs(k)
    starts = [0]
    i = 0
    while True:
        j = int(np.searchsorted(pos, pos[i] + span, side="right"))
        if j >= n:
            break
        j = max(j, i + 1)
        starts.append(j)
        i = j
    starts.append(n)
    carry = -math.inf  # log of the sum so far, anchored at the previous block's last point
    carry_at = pos[0]
    for a, b in itertools.pairwise(starts):
        x0 = pos[a]
        local = np.logaddexp.accumulate(logw[a:b] + k * (pos[a:b] - x0)) - k * (pos[a:b] - x0)
        if carry > -math.inf:
            local = np.logaddexp(local, carry + k * (carry_at - pos[a:b]))
        out[a:b] = local
        carry, carry_at = local[-1], pos[b - 1]
    return out


def tilted_suffix(pos, logw, k: float):
    r"""Stable suffix sums :math:`s_j = \log \sum_{i \ge j} e^{\ell_i + k (x_i - x_j)}`
    (:func:`tilted_prefix` on the mirrored sequence)."""
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
    exact_mass : callable, optional
        ``exact_mass(a, b)`` -> log of the true mass of ``[a, b]`` (vectorised).  Given, the
        part of a panel cut by a query point gets its true mass and only the tilt's average
        over it from the log-linear model (errors of second order in the panel's width).
    """

    def __init__(self, *, log_mass, edges=None, beta=None, atoms=None, exact_mass=None):
        self.exact_mass = exact_mass
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
        """:meth:`_partial`, with the true mass of ``[a, b]`` where ``exact_mass`` is given."""
        part = self._partial(j, a, b, k, anchor)
        if self.exact_mass is None:
            return part
        with np.errstate(invalid="ignore"):
            fix = self.exact_mass(a, b) - self._partial(j, a, b, 0.0, anchor)
        return np.where(np.isfinite(fix), part + fix, part)

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
                raise ValueError(f"side must be 'left' or 'right'; got {side!r}")
            a = np.clip(x, e[m], e[m + 1])
            b = e[m + 1]
            part = self._cut(m, a, b, k, x)
            mp = np.minimum(m + 1, n - 1)
            after = np.where(m < n - 1, suf[mp] + k * (e[np.minimum(m + 1, n)] - x), -np.inf)
            return np.logaddexp(part, after)
