r"""Shifted cones :math:`e^{\mp\epsilon \max(0, \|x - c\|_2 - \rho)}`: witness mechanisms in
closed form for an :math:`\ell_2` ball of two numeric coordinates (beyond the paper; Sec. 4.2,
4.3).

The likelihood depends on the distance to the centre :math:`c` only, so its integrals over
:math:`X'` and its complement follow from the prior masses of the discs :math:`D_R` about
:math:`c` (the layer-cake formula, as for :class:`~garesearch.optimal._goal_pyramid.PyramidWitness`):
:math:`F(D_R)` and :math:`F(D_R \cap X')`, each enclosed from both sides by unions of vertical
slabs (inner and outer rectangles per slab, each a product of one-coordinate masses;
:func:`disc_masses`).  The masses are tabulated once per centre on a grid of radii; a posterior
at any :math:`\epsilon` and :math:`\rho` is then a sum over the grid, taken from the side that
makes it a certified bound.
"""

from __future__ import annotations

import math

import numpy as np

from ._certify import check_time, logsumexp, odds_to_posterior
from ._goal_model import GoalModel
from ._goal_pyramid import _extent

__all__ = ["BallWitness", "ball_applies", "best_ball", "disc_masses"]

#: relative margin on the slab enclosures, for the rounding of the chords and the masses
_MARGIN = 1e-9
#: the radii (inner, outer) and slabs per circle of the fine tables and of the search's
_FINE = (1000, 500, 800)
_COARSE = (300, 150, 48)


def ball_applies(model: GoalModel) -> bool:
    """Whether the goal is one :math:`\\ell_2` ball of two numeric coordinates (the goals
    :class:`BallWitness` takes): the records' distance is then the :math:`\\ell_2` distance
    (the ``norm`` over the parts has one part to combine)."""
    from ..priors import Categorical

    return (len(model.parts) == 1 and model.parts[0].kind == "ball" and model.ncoord == 2
            and float(model.parts[0].pball) == 2.0
            and not any(model.discrete) and not any(isinstance(p, Categorical) for p in model.priors))


def _chords(x, centre, radius):
    """Half-width of the disc's vertical chord at abscissae ``x`` (0 outside)."""
    u = x - centre
    return np.sqrt(np.maximum(radius * radius - u * u, 0.0))


def _slab_ends(w, xa, xb, centre, radius):
    """Shortest and longest chord over each slab ``[xa, xb]`` (``w``: the chords at the
    breakpoints): the ends' smaller one, and the larger one or the radius where the slab
    holds the centre (a circle's chord is monotone on either side of its centre)."""
    wa, wb = w[..., :-1], w[..., 1:]
    far = np.minimum(wa, wb)
    near = np.where((xa <= centre) & (centre <= xb), radius, np.maximum(wa, wb))
    return far, near


def disc_masses(priors, c, radii, t, r, slabs: int = 600):
    r"""Certified enclosures of :math:`F(D_R)` and :math:`F(D_R \cap B)`, :math:`D_R` the closed
    disc of radius ``R`` about ``c`` (one per entry of ``radii``), :math:`B` the closed disc of
    radius ``r`` about ``t``, :math:`F` the product of the two ``priors``.

    Each set is cut into vertical slabs (breakpoints at ``slabs + 1`` equal angles on each
    circle, within the set's range of abscissae); over a slab each circle's chord lies between
    its values at the slab's ends (or its radius, where the slab holds its centre), so the
    rectangles of the shortest chords lie inside the set and those of the longest contain it.
    A rectangle's mass is a product of one-coordinate masses (``prior.mass``); the sums are
    widened by a relative margin of 1e-9.  Returns ``(disc_lo, disc_hi, cap_lo, cap_hi)``.

    Examples
    --------
    >>> import numpy as np
    >>> from garesearch.priors import Normal
    >>> lo, hi, _, _ = disc_masses([Normal(0, 1), Normal(0, 1)], (0.0, 0.0), np.array([1.0]), (5.0, 5.0), 1.0)
    >>> exact = 1 - np.exp(-0.5)  # (the chi-square law with two degrees of freedom)
    >>> bool(lo[0] <= exact <= hi[0]) and bool(hi[0] - lo[0] < 2e-3)
    True
    """
    R = np.asarray(radii, float)[:, None]
    return (*_disc(priors, c, R, slabs), *_lens(priors, c, R, t, r, slabs))


def _angles(slabs: int) -> np.ndarray:
    return np.cos(np.linspace(math.pi, 0.0, slabs + 1))[None, :]


def _disc(priors, c, R, slabs):
    """Enclosure of F(D_R) for radii ``R`` (a column), see :func:`disc_masses`."""
    p0, p1 = priors
    c0, c1 = float(c[0]), float(c[1])
    x = c0 + R * _angles(slabs)
    xa, xb = x[:, :-1], x[:, 1:]
    far, near = _slab_ends(_chords(x, c0, R), xa, xb, c0, R)
    m = np.asarray(p0.mass(xa, xb), float)
    d_lo = np.sum(m * np.asarray(p1.mass(c1 - far, c1 + far), float), axis=1)
    d_hi = np.sum(m * np.asarray(p1.mass(c1 - near, c1 + near), float), axis=1)
    return np.clip(d_lo * (1 - _MARGIN), 0, 1), np.clip(d_hi * (1 + _MARGIN), 0, 1)


def _lens(priors, c, R, t, r, slabs):
    """Enclosure of F(D_R cap B) for radii ``R`` (a column), see :func:`disc_masses`: slabs
    between the breakpoints of both circles within their common range of abscissae."""
    p0, p1 = priors
    c0, c1 = float(c[0]), float(c[1])
    t0, t1 = float(t[0]), float(t[1])
    ang = _angles(slabs)
    left, right = np.maximum(c0 - R, t0 - r), np.minimum(c0 + R, t0 + r)
    pts = np.concatenate([c0 + R * ang, np.broadcast_to(t0 + r * ang, (R.shape[0], ang.shape[1])), left, right],
                         axis=1)
    x = np.sort(np.clip(pts, left, right), axis=1)
    xa, xb = x[:, :-1], x[:, 1:]
    far, near = _slab_ends(_chords(x, c0, R), xa, xb, c0, R)
    far_b, near_b = _slab_ends(_chords(x, t0, r), xa, xb, t0, r)
    m = np.asarray(p0.mass(xa, xb), float)
    inner = p1.mass(np.maximum(c1 - far, t1 - far_b), np.minimum(c1 + far, t1 + far_b))
    outer = p1.mass(np.maximum(c1 - near, t1 - near_b), np.minimum(c1 + near, t1 + near_b))
    live = (right > left)[:, 0]
    i_lo = np.where(live, np.sum(m * np.asarray(inner, float), axis=1), 0.0)
    i_hi = np.where(live, np.sum(m * np.asarray(outer, float), axis=1), 0.0)
    return np.clip(i_lo * (1 - _MARGIN), 0, 1), np.clip(i_hi * (1 + _MARGIN), 0, 1)


class _Table:
    """The disc masses about one centre on a grid of radii (``R[0] = 0``), and the goal
    disc's own mass from above."""

    def __init__(self, model: GoalModel, tc, centre, sizes):
        n_in, n_out, slabs = sizes
        part = model.parts[0]
        t, r = np.asarray(tc, float), float(part.r)
        c = np.asarray(centre, float)
        gap = float(np.hypot(*(c - t)))
        (a0, b0), (a1, b1) = _extent(model)
        far = max(math.hypot(x - c[0], y - c[1]) for x in (a0, b0) for y in (a1, b1))
        r_max = max(far, gap + r) * (1 + 1e-12)
        bulk = [(float(p.quantile(1e-4)), float(p.upper_quantile(1e-4))) for p in model.priors]
        r_bulk = min(r_max, max(gap + r, max(math.hypot(x - c[0], y - c[1]) for x in bulk[0] for y in bulk[1])))
        core = np.linspace(max(0.0, gap - r), gap + r, n_in)  # where F(D_R cap B) grows
        R = np.unique(np.concatenate([[0.0], core, np.linspace(0.0, r_bulk, n_out),
                                      np.geomspace(r_bulk, r_max, 64)]))
        self.R = R
        self.d_lo, self.d_hi = _disc(model.priors, c, R[:, None], slabs)
        b_lo, b_hi = _disc(model.priors, t, np.array([[r]]), slabs)
        self.b_hi = float(b_hi[0])
        # the lens: empty while D_R and X' are apart, X' itself once D_R holds it
        self.covers = R >= (gap + r) * (1 + 1e-12)  # (beyond the rounding of gap)
        cut = (R > gap - r) & ~self.covers  # (0 below: a lower bound in any case)
        self.i_lo = np.where(self.covers, float(b_lo[0]), 0.0)
        self.i_hi = np.where(self.covers, self.b_hi, 0.0)
        self.i_lo[cut], self.i_hi[cut] = _lens(model.priors, c, R[cut][:, None], t, r, slabs)


class BallWitness:
    r"""The shifted cone :math:`L(x) = e^{-\epsilon \max(0, \|x - c\|_2 - \rho)}` (``upper``)
    or the inverted one :math:`e^{+\epsilon \max(0, \|x - c\|_2 - \rho)}`, for a goal of
    one :math:`\ell_2` ball of two numeric coordinates (:func:`ball_applies`;
    others raise ``ValueError``).  Either is :math:`\epsilon`-Lipschitz in log.

    Its posterior by the layer-cake formula over the radii :math:`R_k` of a fixed grid:
    with :math:`\phi(R) = L` at distance :math:`R` and :math:`H(R) = F(X' \cap D_R)`,
    :math:`\int_{X'} L\,dF = \int \phi\,dH` is bounded by sums of :math:`H(R_k)` times the
    steps of :math:`\phi` (from below for the decreasing :math:`\phi`, from above for the
    increasing one), and likewise outside :math:`X'`, with the enclosures of
    :func:`disc_masses` taken at the ends that make ``posterior`` a lower bound (``upper``)
    or an upper bound.  Beyond the last radius (the priors' 1e-18 quantile box lies inside):
    at most :math:`\phi(R_K) (1 - F(D_{R_K}))` outside (upper side), nothing (lower side,
    left out: a lower bound); :math:`X'` lies within the grid.

    Examples
    --------
    >>> from garesearch.goals import Coordinates
    >>> from garesearch.priors import Normal
    >>> from garesearch.optimal._goal_model import build_model
    >>> model = build_model(Coordinates([Normal(0, 1), Normal(0, 1)], r=0.5, norm=2), 2.0)
    >>> p = 1 - math.exp(-0.125)  # F(X'): chi-square with two degrees of freedom
    >>> v = BallWitness(model, [0.0, 0.0], [0.0, 0.0], 0.0, True).posterior(1e-9)  # (L = 1 nearly)
    >>> bool(p - 1e-3 < v <= p)
    True
    """

    def __init__(self, model: GoalModel, tc, centre, rho: float, upper: bool, sizes=_FINE, table=None):
        if not ball_applies(model):
            raise ValueError("a ball witness needs a goal of one l_2 ball of two numeric coordinates")
        self.model, self.tc, self.upper = model, [float(v) for v in tc], upper
        self.centre, self.rho = np.asarray(centre, float), float(max(rho, 0.0))
        self._sizes = sizes
        self._table = table

    @property
    def table(self) -> _Table:
        if self._table is None:
            self._table = _Table(self.model, self.tc, self.centre, self._sizes)
        return self._table

    def describe(self) -> dict:
        return {"kind": "ball cone" if self.upper else "inverted ball cone",
                "centre": self.centre.tolist(), "rho": self.rho}

    def posterior(self, eps: float) -> float:
        check_time()  # (under a wall-clock cap only)
        return _posterior(self.table, eps, self.rho, self.upper)


def _log_pos(x):
    with np.errstate(divide="ignore"):
        return np.log(np.maximum(x, 0.0))


def _posterior(tb: _Table, eps: float, rho: float, upper: bool) -> float:
    """The certified posterior of ``tb``'s centre's cone at ``eps``, ``rho`` (see
    :class:`BallWitness`), in log scale throughout."""
    R = tb.R
    m = np.maximum(R - rho, 0.0)  # phi = exp(-+ eps m), m nondecreasing
    dm = np.diff(m)
    with np.errstate(divide="ignore"):
        # log of |phi_{k+1} - phi_k| relative to the smaller / larger end
        lstep = np.log(-np.expm1(-eps * dm))
    if upper:
        lphi = -eps * m
        ldrop = lphi[:-1] + lstep  # log(phi_k - phi_{k+1})
        la = logsumexp(np.concatenate([_log_pos(tb.i_lo[:-1]) + ldrop, [_log_pos(tb.i_lo[-1]) + lphi[-1]]]))
        out = tb.d_hi - tb.i_lo  # F(D_R minus X') from above
        lb = logsumexp(np.concatenate([_log_pos(out[1:]) + ldrop,
                                       [lphi[-1] + _log_pos(out[-1] + 1.0 - tb.d_lo[-1])]]))
    else:
        lphi = eps * m
        lrise = lphi[1:] + lstep  # log(phi_{k+1} - phi_k)
        rest_in = np.where(tb.covers, 0.0, tb.b_hi - tb.i_lo)  # F(X' minus D_R) from above
        rest_out = 1.0 - tb.b_hi - tb.d_hi + tb.i_lo  # F(outside both) from below
        with np.errstate(invalid="ignore"):  # no mass times e^{+inf}: nothing (nan, dropped)
            ta = np.concatenate([[lphi[1] + _log_pos(tb.b_hi)], _log_pos(rest_in[1:-1]) + lrise[1:]])
            tb_ = np.concatenate([[_log_pos(1.0 - tb.b_hi)], _log_pos(rest_out[1:]) + lrise])
        la = logsumexp(np.where(np.isnan(ta), -np.inf, ta))
        lb = logsumexp(np.where(np.isnan(tb_), -np.inf, tb_))
    if not math.isfinite(la):
        return 0.0
    if not math.isfinite(lb):
        return 1.0 if lb < 0 else 0.0
    return odds_to_posterior(la - lb)


def _golden(f, a: float, b: float, steps: int) -> tuple[float, float]:
    """Minimum of ``f`` on ``[a, b]`` by ``steps`` golden-section steps: ``(x, f(x))`` at the
    better of the last two interior points; a fixed number of evaluations (``steps + 2``)."""
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = f(x1), f(x2)
    for _ in range(steps):
        if f1 <= f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - g * (b - a)
            f1 = f(x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (b - a)
            f2 = f(x2)
    return (x1, f1) if f1 <= f2 else (x2, f2)


def best_ball(model: GoalModel, tc, eps: float, upper: bool) -> BallWitness:
    """The cone of :class:`BallWitness` with the most extreme posterior at ``eps`` found by a
    fixed search: centres on the segment from the true point ``tc`` to the priors' medians
    and a quarter beyond (7 points, then 8 golden-section steps about the best), and for each
    the radius ``rho`` in ``[0, 3 r]`` (13 points, then 12 golden-section steps), on coarse
    tables; the result on the fine tables.  Deterministic (no wall clock).

    Examples
    --------
    >>> from garesearch.goals import Coordinates
    >>> from garesearch.priors import Normal
    >>> from garesearch.optimal._goal_model import build_model
    >>> model = build_model(Coordinates([Normal(0, 1), Normal(0, 1)], r=0.5, norm=2), 2.0)
    >>> w = best_ball(model, [0.0, 0.0], 1.0, True)
    >>> p = 1 - math.exp(-0.125)  # F(X'): chi-square with two degrees of freedom
    >>> bool(p < w.posterior(1.0) < 0.3)
    True
    """
    if not ball_applies(model):
        raise ValueError("a ball witness needs a goal of one l_2 ball of two numeric coordinates")
    t = np.asarray(tc, float)
    mode = np.array([float(np.asarray(p.quantile(0.5))) for p in model.priors])
    r = float(model.parts[0].r)
    sign = -1.0 if upper else 1.0
    tables: dict = {}

    def table(alpha):
        key = round(alpha, 12)
        if key not in tables:
            check_time()  # (under a wall-clock cap only)
            tables[key] = _Table(model, tc, t + alpha * (mode - t), _COARSE)
        return tables[key]

    def best_rho(alpha):
        tb = table(alpha)

        def f(rho):
            return sign * _posterior(tb, eps, rho, upper)

        grid = np.linspace(0.0, 3 * r, 13)
        vals = [f(x) for x in grid]
        k = int(np.argmin(vals))
        x, v = _golden(f, grid[max(k - 1, 0)], grid[min(k + 1, 12)], 12)
        return (x, v) if v < vals[k] else (float(grid[k]), vals[k])

    alphas = np.linspace(0.0, 1.25, 7) if np.any(mode != t) else np.zeros(1)
    res = [best_rho(a) for a in alphas]
    k = int(np.argmin([v for _, v in res]))
    alpha, (rho, val) = float(alphas[k]), res[k]
    if alphas.size > 1:
        lo, hi = alphas[max(k - 1, 0)], alphas[min(k + 1, alphas.size - 1)]
        a2, v2 = _golden(lambda a: best_rho(a)[1], float(lo), float(hi), 8)
        if v2 < val:
            alpha, (rho, val) = a2, best_rho(a2)
    return BallWitness(model, tc, t + alpha * (mode - t), rho, upper)
