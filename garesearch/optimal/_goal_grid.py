r"""Continuous attributes on refined grids: a certified relaxation (the sound end of the
bracket) and witness mechanisms from its node profiles (beyond the paper; Sec. 4.2, 4.3; the
method is described in :mod:`garesearch.optimal.goals`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .._roots import secant_crossing, secant_logit_trial
from ..priors import Categorical, Prior
from ._certify import (
    Bracket,
    BudgetExhausted,
    certified_bound,
    check_time,
    logsumexp,
    odds_to_posterior,
    solve_lp,
    uncapped,
)
from ._goal_ball import BallWitness, ball_applies, best_ball
from ._goal_kernels import log_tilted
from ._goal_model import GoalModel, combine_norm, coord_values, model_scale, record_distance
from ._goal_pyramid import best_pyramid, pyramid_crossing

__all__ = ["Axis", "Grid", "GridSide", "GridWitness", "grid_sides", "halve_axes", "initial_axes"]


_GL8 = np.polynomial.legendre.leggauss(8)
_MARGIN = 1e-9  # relative margin that covers the quadrature error of the cone integrals
_LOG_RANGE = 25.0  # rows with a coefficient above e^25 (~7e10) are left out of the LP (looser)
_LOG_SMALL = 12.0  # coefficients below e^-12 (~6e-6) are raised to it or their rows left out (looser)
#: the node grids' work schedule (besides ``max_nodes``): at most this many grids per side,
#: and a refined grid is used only while its LP has at most this many (cell, node) pairs
#: (about 5 s per LP on one core); the first grid is always used
MAX_GRIDS = 8
MAX_PAIRS = 40_000


@dataclass
class Axis:
    """One coordinate's discretisation: nodes, and cells ``[lo, hi]`` with their corner nodes."""

    prior: Prior
    discrete: bool
    nodes: np.ndarray  # node positions (codes for categorical values)
    lo: np.ndarray  # cell ends (equal for an atom; -inf / inf for tail cells)
    hi: np.ndarray
    mass: np.ndarray  # prior mass of each cell
    corner_lo: np.ndarray  # index of the cell's first corner node
    corner_hi: np.ndarray  # index of its last corner node (equal for atoms and tail cells)

    @property
    def finite(self) -> bool:
        return isinstance(self.prior, Categorical)


def finite_axis(prior: Categorical, discrete: bool) -> Axis:
    x = coord_values(prior, discrete)
    idx = np.arange(x.size)
    return Axis(prior, discrete, x, x.copy(), x.copy(), np.asarray(prior.probs, float), idx, idx)


def continuous_axis(prior: Prior, points) -> Axis:
    """Cells between sorted breakpoints ``points`` (within the support), with tail cells
    beyond them where the support is unbounded."""
    low, high = prior.support
    g = np.unique(np.clip(np.asarray(points, float), low, high))
    g = g[np.isfinite(g)]
    lo, hi, c1, c2 = [], [], [], []
    if math.isinf(low):
        lo.append(-math.inf), hi.append(g[0]), c1.append(0), c2.append(0)
    for j in range(g.size - 1):
        lo.append(g[j]), hi.append(g[j + 1]), c1.append(j), c2.append(j + 1)
    if math.isinf(high):
        lo.append(g[-1]), hi.append(math.inf), c1.append(g.size - 1), c2.append(g.size - 1)
    lo, hi = np.array(lo), np.array(hi)
    mass = np.asarray(prior.mass(lo, hi), float)
    return Axis(prior, False, g, lo, hi, mass, np.array(c1), np.array(c2))


def axis_mass(axis: Axis, a, b) -> np.ndarray:
    """Prior mass of ``[a, b]`` (numeric coordinate), vectorised."""
    return np.asarray(axis.prior.mass(a, b), float)


def coord_gfun(axis: Axis, cell, z, tau) -> np.ndarray:
    r""":math:`F_i(C \cap \{\delta_i(x, z) \le \tau\})` for cells ``cell``, nodes ``z`` and
    levels ``tau`` (arrays broadcast together)."""
    lo, hi, m = axis.lo[cell], axis.hi[cell], axis.mass[cell]
    if axis.discrete:
        return np.where((tau >= 1) | (lo == z), m, 0.0)
    if axis.finite:
        return np.where(np.abs(lo - z) <= tau, m, 0.0)
    a = np.maximum(lo, z - tau)
    b = np.minimum(hi, z + tau)
    return np.where(b >= a, axis_mass(axis, a, b), 0.0)


def coord_dist_range(axis: Axis, cell, z):
    """Smallest and largest distance from node ``z`` to a point of the cell."""
    lo, hi = axis.lo[cell], axis.hi[cell]
    if axis.discrete:
        same = lo == z
        return np.where(same, 0.0, 1.0), np.where(same, 0.0, 1.0)
    dmin = np.maximum(0.0, np.maximum(lo - z, z - hi))
    dmax = np.maximum(np.abs(z - lo), np.abs(hi - z))
    return dmin, dmax


def coord_exp(axis: Axis, cell, z, k: float) -> np.ndarray:
    r""":math:`\log \int_C e^{k\,\delta_i(x, z)}\,dF_i` for cells ``cell`` and nodes ``z``."""
    lo, hi, m = axis.lo[cell], axis.hi[cell], axis.mass[cell]
    with np.errstate(divide="ignore"):
        lm = np.log(m)
    if axis.discrete:
        return lm + np.where(lo == z, 0.0, k)
    if axis.finite:
        return lm + k * np.abs(lo - z)
    # the certified end each use needs: an upper bound of the growing cone (k > 0), a lower
    # bound of the decaying one (k < 0)
    end = "hi" if k > 0 else "lo"
    left = log_tilted(axis.prior, -k, lo, np.minimum(hi, z), z, end)  # x <= z: e^{k (z - x)}
    right = log_tilted(axis.prior, k, np.maximum(lo, z), hi, z, end)  # x >= z: e^{k (x - z)}
    return np.logaddexp(left, right)


def cone_integrals(axes, cells, nodes, eps, kappa, norm1_exact):
    r"""Certified bounds ``(log c_plus_hi, log c_minus_lo)`` on
    :math:`\int_Q e^{\pm\epsilon d(x, z)}\,dF` for pairs (cell ``Q``, node ``z``).

    ``cells`` and ``nodes`` are integer arrays ``(pairs, ncoord)`` of per-coordinate cell and
    node indices.  Two bounds, the better one kept: (i) :math:`d \le \sum_i \delta_i` (exact
    under ``norm=1``): products of one-coordinate tilted integrals; (ii) :math:`d \le \kappa
    \max_i \delta_i` (exact with :math:`\kappa = 1` under ``norm=inf``): the layer-cake formula
    :math:`\int_Q e^{-\lambda D}dF = \int_0^\infty \lambda e^{-\lambda s} G(s)\,ds`, :math:`G(s) =
    \prod_i F_i(Q_i \cap \{\delta_i \le s\})`, :math:`\int_Q e^{\lambda D}dF = m + \int_0^\infty
    \lambda e^{\lambda s}(m - G(s))\,ds`, by Gauss-Legendre on the pieces between the kinks of
    ``G`` (unbounded cells: cut where the rest is below 1e-17 of the cell's mass, the rest
    bounded by one-coordinate tilted tails).  Both are widened by the relative margin
    ``_MARGIN``.
    """
    npair, ncoord = cells.shape
    z = np.stack([axes[i].nodes[nodes[:, i]] for i in range(ncoord)], axis=1)
    # (i) sum of coordinate distances
    lp = np.zeros(npair)
    lm = np.zeros(npair)
    with np.errstate(invalid="ignore"):  # inf - inf: no bound (nan, replaced below)
        for i, ax in enumerate(axes):
            lp += coord_exp(ax, cells[:, i], z[:, i], eps)
            lm += coord_exp(ax, cells[:, i], z[:, i], -eps)
    lp = np.where(np.isnan(lp), np.inf, lp)
    lm = np.where(np.isnan(lm), -np.inf, lm)
    if norm1_exact:
        return lp + _MARGIN, lm - _MARGIN
    lam = eps * kappa
    mass = np.ones(npair)
    for i, ax in enumerate(axes):
        mass = mass * ax.mass[cells[:, i]]
    kinks = [np.zeros(npair)]
    dmins, dmaxs = [], []
    for i, ax in enumerate(axes):
        dmin, dmax = coord_dist_range(ax, cells[:, i], z[:, i])
        dmins.append(dmin)
        dmaxs.append(dmax)
        if not ax.discrete:
            kinks += [np.abs(z[:, i] - ax.lo[cells[:, i]]), np.abs(ax.hi[cells[:, i]] - z[:, i])]
        kinks += [dmin, dmax]
    D_min = np.max(dmins, axis=0)
    D_max = np.max(dmaxs, axis=0)
    bounded = np.isfinite(D_max)
    plus = np.empty(npair)
    minus = np.empty(npair)

    def gfun(sel, lev):
        G = np.ones(lev.shape)
        extra = (slice(None),) + (None,) * (lev.ndim - 1)
        for i, ax in enumerate(axes):
            G = G * coord_gfun(ax, cells[sel, i][extra], z[sel, i][extra], lev)
        return np.minimum(G, mass[sel][extra])

    if np.any(bounded):
        sel = np.nonzero(bounded)[0]
        K = np.stack([k[sel] for k in kinks] + [D_max[sel]], axis=1)
        K = np.where(np.isfinite(K), K, D_max[sel][:, None])
        K = np.sort(np.clip(K, D_min[sel][:, None], D_max[sel][:, None]), axis=1)
        lo_, hi_ = K[:, :-1], K[:, 1:]
        half = (hi_ - lo_) / 2
        lev = (lo_ + half)[..., None] + half[..., None] * _GL8[0]
        w = half[..., None] * _GL8[1]
        G = gfun(sel, lev)
        m = mass[sel]
        with np.errstate(over="ignore", invalid="ignore"):
            minus[sel] = np.sum(w * lam * np.exp(-lam * lev) * G, axis=(1, 2)) + m * np.exp(-lam * D_max[sel])
            plus[sel] = m * np.exp(lam * D_min[sel]) + np.sum(
                w * lam * np.exp(lam * lev) * (m[:, None, None] - G), axis=(1, 2))
    if not np.all(bounded):
        # unbounded cells: rigorous Riemann sums of the monotone G, levels even in e^{-lam s}
        sel = np.nonzero(~bounded)[0]
        cut = tail_cut(axes, cells[sel], z[sel], mass[sel], D_min[sel])
        u = np.linspace(0.0, 1.0, 193)
        span = cut - D_min[sel]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            frac = np.where((lam * span > 1e-12)[:, None],
                            -np.log1p(-u[None, :] * -np.expm1(-lam * span[:, None])) / lam,
                            u[None, :] * span[:, None])
        frac = np.minimum(np.nan_to_num(frac, nan=0.0, posinf=0.0), span[:, None])
        lev = D_min[sel][:, None] + np.sort(np.concatenate([frac, u[None, :] * span[:, None]], axis=1), axis=1)
        lev[:, -1] = cut
        G = gfun(sel, lev)
        m = mass[sel]
        with np.errstate(over="ignore", invalid="ignore"):
            em = np.exp(-lam * lev)
            minus[sel] = np.sum(G[:, :-1] * (em[:, :-1] - em[:, 1:]), axis=1) + G[:, -1] * em[:, -1]
            ep = np.exp(lam * lev)
            plus[sel] = (m * ep[:, 0] + np.sum((m[:, None] - G[:, :-1]) * (ep[:, 1:] - ep[:, :-1]), axis=1)
                         + tail_rest([ax for ax in axes], cells[sel], z[sel], m, cut, lam))
    with np.errstate(divide="ignore", invalid="ignore"):
        lp2, lm2 = np.log(plus), np.log(np.maximum(minus, 0.0))
    # an overflow (inf * 0) leaves no bound: +inf for the upper one, -inf for the lower one
    lp2 = np.where(np.isnan(lp2), np.inf, lp2)
    lm2 = np.where(np.isnan(lm2), -np.inf, lm2)
    lp = np.where(np.isnan(lp), np.inf, lp)
    lm = np.where(np.isnan(lm), -np.inf, lm)
    return np.minimum(lp, lp2) + _MARGIN, np.maximum(lm, lm2) - _MARGIN


def tail_cut(axes, cells, z, mass, D_min):
    """For unbounded cells: a level ``s`` beyond which each coordinate keeps less than 1e-17
    of its cell's mass outside ``[z - s, z + s]``."""
    cut = D_min.copy()
    for i, ax in enumerate(axes):
        if ax.finite:
            continue
        lo, hi = ax.lo[cells[:, i]], ax.hi[cells[:, i]]
        zi = z[:, i]
        m = ax.mass[cells[:, i]]
        for end, far in ((hi, True), (lo, False)):
            unb = np.isinf(end)
            if not np.any(unb):
                continue
            q = np.maximum(m[unb] * 1e-17, 1e-300)
            x = np.asarray(ax.prior.upper_quantile(q) if far else ax.prior.quantile(q), float)
            x = np.where(np.isfinite(x), x, zi[unb])
            d = np.abs(x - zi[unb])
            cut[unb] = np.maximum(cut[unb], d)
    return cut


def tail_rest(axes, cells, z, mass, cut, lam):
    r"""Bound on :math:`\int_{cut}^\infty \lambda e^{\lambda s}(m - G(s))\,ds` for unbounded
    cells: :math:`m - G(s) \le \sum_i (m/m_i) F_i(Q_i \cap \{\delta_i > s\})`, and
    :math:`\int_{cut}^\infty \lambda e^{\lambda s} F_i(\delta_i > s)\,ds \le \int_{\delta_i > cut}
    e^{\lambda\delta_i} dF_i`."""
    out = np.zeros(mass.shape)
    for i, ax in enumerate(axes):
        if ax.finite:
            continue
        c = cells[:, i]
        lo, hi, zi, mi = ax.lo[c], ax.hi[c], z[:, i], ax.mass[c]
        with np.errstate(divide="ignore", invalid="ignore"):
            rest = mass / np.where(mi > 0, mi, 1.0)
        right = log_tilted(ax.prior, lam, np.maximum(lo, zi + cut), hi, zi)
        left = log_tilted(ax.prior, -lam, lo, np.minimum(hi, zi - cut), zi)
        with np.errstate(over="ignore"):
            out = out + rest * np.exp(np.logaddexp(right, left))
    return out


class Grid:
    """The discretised problem of one true record: product cells classified against X',
    product nodes, the stencil pairs (cell, node) and the pairs of neighbouring nodes."""

    def __init__(self, model: GoalModel, tc, axes: list[Axis], reach: int = 1, base: list[Axis] | None = None):
        self.model, self.tc, self.axes, self.reach = model, tc, axes, reach
        base = axes if base is None else base
        ncoord = model.ncoord
        ncell = [len(ax.mass) for ax in axes]
        nnode = [len(ax.nodes) for ax in axes]
        cidx = np.stack([g.ravel() for g in np.meshgrid(*[np.arange(n) for n in ncell], indexing="ij")], 1)
        mass = np.ones(len(cidx))
        for i, ax in enumerate(axes):
            mass = mass * ax.mass[cidx[:, i]]
        keep = mass > 0
        self.cells, self.mass = cidx[keep], mass[keep]
        self.kind = self._classify()  # 1 inside, 0 outside, 2 straddles the boundary of X'
        self.node_shape = tuple(nnode)
        nidx = np.stack([g.ravel() for g in np.meshgrid(*[np.arange(n) for n in nnode], indexing="ij")], 1)
        self.Z = np.stack([axes[i].nodes[nidx[:, i]] for i in range(ncoord)], axis=1)
        self.nnode = len(nidx)
        # stencil: per coordinate, the nodes within `reach` of the cell's corners
        pair_cell, pair_node = [], []
        # reach: 1.5 times the largest side of the cell of the starting grid that holds it
        # (refining keeps the stencil's physical reach, so a finer grid is never looser)
        widths = np.zeros(len(self.cells))
        for i, (ax, bx) in enumerate(zip(axes, base, strict=True)):
            if not ax.discrete and not ax.finite:
                mid = np.where(np.isfinite(ax.lo), ax.lo, ax.hi)[self.cells[:, i]]
                j = np.clip(np.searchsorted(bx.hi, mid, side="right"), 0, len(bx.hi) - 1)
                w = bx.hi[j] - bx.lo[j]
                widths = np.maximum(widths, np.where(np.isfinite(w), w, 0.0))
        for q in range(len(self.cells)):
            per = []
            for i, ax in enumerate(axes):
                c = self.cells[q, i]
                if ax.discrete:
                    per.append(np.arange(len(ax.nodes)))
                else:
                    a = max(0, int(ax.corner_lo[c]) - reach)
                    b = min(len(ax.nodes) - 1, int(ax.corner_hi[c]) + reach)
                    ring = np.arange(a, b + 1)
                    w = widths[q]
                    if w > 0:  # reach at least 1.5 times the cell's largest side, sparsely
                        a2 = int(np.searchsorted(ax.nodes, ax.lo[c] - 1.5 * w, side="left"))
                        b2 = int(np.searchsorted(ax.nodes, ax.hi[c] + 1.5 * w, side="right")) - 1
                        far = np.unique(np.concatenate([np.linspace(a2, a, 4).round(), np.linspace(b, b2, 4).round()]))
                        ring = np.unique(np.concatenate([ring, far.astype(int)]))
                    per.append(ring)
            grid = np.stack([g.ravel() for g in np.meshgrid(*per, indexing="ij")], 1)
            pair_cell.append(np.full(len(grid), q))
            pair_node.append(grid)
        self.pair_cell = np.concatenate(pair_cell)
        pn = np.concatenate(pair_node)
        self.pair_node_idx = pn
        self.pair_node = np.ravel_multi_index(tuple(pn.T), self.node_shape)
        # neighbouring nodes (strong product of one-step moves; any move of a categorical value)
        steps = []
        for ax in axes:
            k = len(ax.nodes)
            if ax.discrete:
                steps.append([(a, b) for a in range(k) for b in range(k) if a < b])
            else:
                steps.append([(a, a + 1) for a in range(k - 1)])
        idx = np.arange(self.nnode).reshape(self.node_shape)
        pairs = []
        for combo in itertools.product(*[[None, "+", "-"] for _ in axes]):
            if all(s is None for s in combo) or next(s for s in combo if s is not None) == "-":
                continue
            sa, sb = [], []
            for s_, st in zip(combo, steps, strict=True):
                if s_ is None:
                    sa.append(None)
                    sb.append(None)
                else:
                    sa.append([a for a, b in st] if s_ == "+" else [b for a, b in st])
                    sb.append([b for a, b in st] if s_ == "+" else [a for a, b in st])
            sl_a = tuple(slice(None) if x is None else np.array(x) for x in sa)
            sl_b = tuple(slice(None) if x is None else np.array(x) for x in sb)
            A = idx[np.ix_(*[np.arange(n) if isinstance(s, slice) else s for s, n in zip(sl_a, self.node_shape, strict=True)])]
            B = idx[np.ix_(*[np.arange(n) if isinstance(s, slice) else s for s, n in zip(sl_b, self.node_shape, strict=True)])]
            pairs.append(np.stack([A.ravel(), B.ravel()], 1))
        P = np.concatenate(pairs) if pairs else np.zeros((0, 2), int)
        self.lip = P[P[:, 0] != P[:, 1]]
        self.lip_d = record_distance(model, self.Z[self.lip[:, 0]], self.Z[self.lip[:, 1]])
        self.kappa = self._kappa()
        self.norm1 = model.norm == 1 and all(p.kind != "ball" or p.pball == 1 for p in model.parts)
        self._coef: dict = {}

    def _kappa(self) -> float:
        r""":math:`d \le \kappa \max_i \delta_i`: the norm of the parts' largest factors."""
        f = []
        for part in self.model.parts:
            n = len(part.coords)
            f.append(1.0 if n == 1 or math.isinf(part.pball) else n ** (1.0 / part.pball))
        v = np.array(f)
        norm = self.model.norm
        if math.isinf(norm):
            return float(v.max())
        return float(np.sum(v**norm) ** (1.0 / norm))

    def _classify(self) -> np.ndarray:
        model, tc = self.model, self.tc
        stat = []  # per part: 1 in, 0 out, 2 unknown
        for part in model.parts:
            if part.kind == "disc":
                c = part.coords[0]
                stat.append(np.where(self.axes[c].lo[self.cells[:, c]] == tc[c], 1, 0))
                continue
            dmin, dmax = [], []
            exact = True
            for c in part.coords:
                ax = self.axes[c]
                lo, hi = ax.lo[self.cells[:, c]], ax.hi[self.cells[:, c]]
                dmin.append(np.maximum(0.0, np.maximum(lo - tc[c], tc[c] - hi)))
                dmax.append(np.maximum(np.abs(tc[c] - lo), np.abs(hi - tc[c])))
                exact = exact and ax.finite
            if part.kind == "num":
                c = part.coords[0]
                ax = self.axes[c]
                lo, hi = ax.lo[self.cells[:, c]], ax.hi[self.cells[:, c]]
                a, b = tc[c] - part.r, tc[c] + part.r
                if exact:
                    stat.append(np.where((lo >= a) & (hi <= b), 1, 0))
                else:  # the cells' ends include a and b (or the support's ends)
                    stat.append(np.where((lo >= a) & (hi <= b), 1, np.where((hi <= a) | (lo >= b), 0, 2)))
                continue
            else:
                mn, mx = combine_norm(dmin, part.pball), combine_norm(dmax, part.pball)
            r = part.r  # (a cell is inside when its farthest point's computed distance is <= r)
            if exact:
                stat.append(np.where(mx <= r, 1, 0))
            else:
                stat.append(np.where(mx <= r, 1, np.where(mn >= part.r, 0, 2)))
        out = np.zeros(len(self.cells), dtype=int)
        for term in model.terms:
            acc = np.ones(len(self.cells), dtype=int)
            for k in term:
                s = stat[k]
                acc = np.where((acc == 0) | (s == 0), 0, np.where((acc == 2) | (s == 2), 2, 1))
            out = np.where((out == 1) | (acc == 1), 1, np.where((out == 2) | (acc == 2), 2, 0))
        return out

    def coefficients(self, eps: float):
        """log bounds (c_plus_hi, c_minus_lo) for every stencil pair at ``eps`` (cached)."""
        if eps not in self._coef:
            if len(self._coef) > 40:
                self._coef.clear()
            cells = self.cells[self.pair_cell]
            self._coef[eps] = cone_integrals(self.axes, cells, self.pair_node_idx, eps, self.kappa,
                                              self.norm1)
        return self._coef[eps]

    @property
    def size(self) -> dict:
        return {"cells": len(self.cells), "nodes": int(self.nnode),
                "cell_node_pairs": len(self.pair_cell), "node_pairs": len(self.lip)}

    def solve(self, eps: float, upper: bool):
        """The relaxation LP at ``eps``: (certified bound on the worst posterior, witness)."""
        import scipy.sparse as sp

        lcp, lcm = self.coefficients(eps)
        nq, nv = len(self.cells), self.nnode
        # v = vmax * v',  vmax_k = min over cells of 1 / c_minus(q, k)
        lvmax = np.full(nv, np.inf)
        np.minimum.at(lvmax, self.pair_node, -lcm)
        lvmax = np.where(np.isfinite(lvmax), lvmax, 0.0)
        inside_type = (self.kind == 1) | ((self.kind == 2) & upper)
        pc, pn = self.pair_cell, self.pair_node
        up_row = inside_type[pc] if upper else ~inside_type[pc]
        # upper: inside I_q <= c+ v_k ; outside c- v_k <= I_q.  lower: inside c- v_k <= I_q ; outside I_q <= c+ v_k
        le_I = up_row  # rows of the form I_q - c+ v_k <= 0
        with np.errstate(invalid="ignore"):
            coef = np.where(le_I, lcp, lcm) + lvmax[pn]
        # a row with a huge (upper) or tiny (lower) coefficient bounds next to nothing: leaving it
        # out keeps the relaxation valid and the LP well scaled
        # (HiGHS treats |a| >= 1e20 as infinite and drops |a| < 1e-9: only rows that bound
        # from the safe side are dropped, a small upper coefficient is raised -- both loosen)
        keep = np.where(le_I, coef < _LOG_RANGE, (coef > -_LOG_SMALL) & (coef < _LOG_RANGE))
        pc, pn, le_I, coef = pc[keep], pn[keep], le_I[keep], coef[keep]
        cval = np.exp(np.where(le_I, np.maximum(coef, -_LOG_SMALL), coef))
        m = len(pc)
        rows = np.concatenate([np.arange(m), np.arange(m)])
        cols = np.concatenate([nv + pc, pn])
        vals = np.concatenate([np.where(le_I, 1.0, -1.0), np.where(le_I, -cval, cval)])
        l1 = eps * self.lip_d + lvmax[self.lip[:, 1]] - lvmax[self.lip[:, 0]]
        l2 = eps * self.lip_d + lvmax[self.lip[:, 0]] - lvmax[self.lip[:, 1]]
        ok = (l1 < _LOG_RANGE) & (l2 < _LOG_RANGE)
        i, j, l1, l2 = self.lip[ok, 0], self.lip[ok, 1], l1[ok], l2[ok]
        ml = len(i)
        k1, k2 = np.exp(np.maximum(l1, -_LOG_SMALL)), np.exp(np.maximum(l2, -_LOG_SMALL))  # raised: looser
        rows = np.concatenate([rows, m + np.arange(ml), m + np.arange(ml), m + ml + np.arange(ml), m + ml + np.arange(ml)])
        cols = np.concatenate([cols, i, j, j, i])
        vals = np.concatenate([vals, np.ones(ml), -k1, np.ones(ml), -k2])
        A = sp.csr_matrix((vals, (rows, cols)), shape=(m + 2 * ml, nv + nq))
        obj = np.concatenate([np.zeros(nv), ((self.kind == 1) | ((self.kind == 2) & upper)).astype(float)])
        a = np.concatenate([np.zeros(nv), np.ones(nq)])
        ub = np.ones(nv + nq)
        # interior point first: about twice as fast as the dual simplex on these (many rows)
        res = solve_lp(-obj if upper else obj, A, a, ub, methods=("highs-ipm", "highs-ds"))
        bound = certified_bound(res, obj, A, a, ub, upper)
        v = np.maximum(res.x[:nv], 1e-300)
        s = (np.log(v) + lvmax) / eps
        s = self.repair(s - s.max())
        self.last = {"eps": eps, "upper": upper, "I": res.x[nv:], "s": s}
        return bound, GridWitness(self, s, upper)

    def repair(self, s: np.ndarray) -> np.ndarray:
        """Lower McShane extension over all node pairs: an exactly 1-Lipschitz profile."""
        out = np.empty_like(s)
        chunk = max(1, 2_000_000 // max(self.nnode, 1))
        for a in range(0, self.nnode, chunk):
            check_time()  # (under a wall-clock cap only)
            rows = np.arange(a, min(a + chunk, self.nnode))
            D = record_distance(self.model, self.Z[rows][:, None, :], self.Z[None, :, :])
            out[rows] = (s[None, :] - D).max(axis=1)
        return out

    def witness_cells(self, s: np.ndarray, eps: float, upper: bool) -> np.ndarray:
        """Per-cell bounds of the witness' integral (lower inside / upper outside for the
        upper side, the other way round for the lower side), in log scale."""
        lcp, lcm = self.coefficients(eps)
        pc, pn = self.pair_cell, self.pair_node
        low = eps * s[pn] + lcm
        high = eps * s[pn] + lcp
        nq = len(self.cells)
        lo_q = np.full(nq, -np.inf)
        hi_q = np.full(nq, np.inf)
        np.maximum.at(lo_q, pc, low)
        np.minimum.at(hi_q, pc, high)
        inside_type = (self.kind == 1) | ((self.kind == 2) & (not upper))
        # upper side: inside cells count their lower bound, the others their upper bound
        return np.where(inside_type, lo_q if upper else hi_q, hi_q if upper else lo_q), inside_type


class GridWitness:
    """The mechanism :math:`L^*(x) = \\max_k e^{\\epsilon(s_k - d(x, z_k))}` of a 1-Lipschitz
    node profile ``s``; ``posterior`` bounds its posterior (from below for the upper side)."""

    def __init__(self, grid: Grid, s: np.ndarray, upper: bool):
        self.grid, self.s, self.upper = grid, s, upper

    def posterior(self, eps: float) -> float:
        check_time()  # (under a wall-clock cap only)
        vals, inside = self.grid.witness_cells(self.s, eps, self.upper)
        la = logsumexp(vals[inside])
        lb = logsumexp(vals[~inside])
        return odds_to_posterior(la - lb)

    def describe(self) -> dict:
        return {"kind": "grid profile", "nodes": self.grid.Z, "log_likelihood_per_epsilon": self.s}


def initial_axes(model: GoalModel, tc) -> list[Axis]:
    """Starting cells: quantiles of each prior, the edges of X' and a few points inside it."""
    axes = []
    u = np.array([1e-7, 1e-4, 0.01, 0.05, 0.15, 0.3, 0.5, 0.7, 0.85, 0.95, 0.99])
    for c, (prior, disc) in enumerate(zip(model.priors, model.discrete, strict=True)):
        if isinstance(prior, Categorical):
            axes.append(finite_axis(prior, disc))
            continue
        pts = list(np.asarray(prior.quantile(u), float)) + list(np.asarray(prior.upper_quantile(u[:4]), float))
        low, high = prior.support
        pts += [x for x in (low, high) if math.isfinite(x)]
        for part in model.parts:
            if c in part.coords:
                t, r = tc[c], part.r
                pts += [t - r, t + r, t, t - r / 2, t + r / 2]
                if part.kind == "ball":  # the ball's edge crosses cells: start finer there
                    pts += list(t + r * np.linspace(-1.25, 1.25, 21))
        pts = [x for x in pts if math.isfinite(x) and low <= x <= high]
        axes.append(continuous_axis(prior, pts))
    return axes


def refine_axes(grid: Grid, frac: float = 0.3) -> list[Axis] | None:
    """Split the one-coordinate cells where the relaxation and the witness differ most
    (their cell values, each normalised to total 1, summed over the product cells)."""
    last = grid.last
    vals, _ = grid.witness_cells(last["s"], last["eps"], last["upper"])
    w = np.exp(vals - logsumexp(vals))
    rel = np.maximum(last["I"], 0.0)
    rel = rel / rel.sum() if rel.sum() > 0 else rel
    gap = np.abs(rel - w)
    # cells that straddle the edge of X' count fully: the relaxation puts them on one side,
    # the witness on the other
    gap = gap + np.where(grid.kind == 2, rel + w, 0.0)
    out, changed = [], False
    for i, ax in enumerate(grid.axes):
        if ax.finite:
            out.append(ax)
            continue
        score = np.bincount(grid.cells[:, i], weights=gap, minlength=len(ax.mass))
        order = np.argsort(-score)
        top = score[order[0]]
        if not top > 0:
            out.append(ax)
            continue
        pick = [j for j in order[: max(1, int(frac * len(order)))] if score[j] >= 0.05 * top]
        pts = list(ax.nodes)
        for j in pick:
            lo, hi = ax.lo[j], ax.hi[j]
            if math.isfinite(lo) and math.isfinite(hi):
                pts.append((lo + hi) / 2)
            elif math.isinf(lo):
                pts.append(float(ax.prior.quantile(max(ax.mass[j] / 20, 1e-300))))
            else:
                pts.append(float(ax.prior.upper_quantile(max(ax.mass[j] / 20, 1e-300))))
        new = continuous_axis(ax.prior, pts)
        changed = changed or len(new.nodes) > len(ax.nodes)
        out.append(new)
    return out if changed else None


class GridSide:
    """Certified bracket of one side, refined one grid at a time: the witness from shifted
    pyramids (``norm=inf``, parts of one coordinate), from cones about a centre (one
    :math:`\\ell_2` ball of two coordinates, :mod:`garesearch.optimal._goal_ball`; the better
    of them and the grid profiles is kept) and from the grid LPs' profiles, the sound end from
    the grid relaxations.

    :meth:`step` solves up to four LPs on the current grid, then refines it; ``done`` says that
    the bracket is within ``rtol`` or that the schedule is over: the grid cannot grow within
    ``max_nodes``, ``MAX_GRIDS`` grids were solved, or the next grid's LP would have more
    than ``MAX_PAIRS`` (cell, node) pairs.  The work (grids, LPs, witness evaluations)
    depends on the arguments only.
    """

    def __init__(self, model, tc, target, upper, rtol, eps0, max_nodes):
        self.model, self.tc, self.target, self.upper = model, tc, target, upper
        self.rtol, self.max_nodes = rtol, max_nodes
        self.scale = model_scale(model)
        self.lo, self.hi, self.wit_hi, self.lps, self.size, self.at_lo = 0.0, math.inf, None, 0, {}, math.nan
        self.trial = eps0 if eps0 and math.isfinite(eps0) and eps0 > 0 else 1.0 / self.scale
        self.axes = self.base = initial_axes(model, tc)
        self.done = False
        self.grid: Grid | None = None  # the last grid built by step()
        self._pyramid_started = False
        self.cut_short = False  # the wall-clock cap stopped the schedule
        self.grids = 0  # grids solved

    def _pyramids(self, best=best_pyramid):
        root, w = pyramid_crossing(self.model, self.tc, self.target, self.upper, self.trial, self.rtol,
                                   best_of=best, scale=self.scale)
        if root < self.hi:
            self.hi, self.wit_hi = root, w

    def _converged(self) -> bool:
        return math.isfinite(self.hi) and self.lo > 0 and self.hi - self.lo <= self.rtol * self.hi

    def step(self, enough: float = math.inf) -> None:
        """One grid: up to four LPs, until the bracket is within ``rtol``, the sound end
        reaches ``enough`` (the other side's sound end: beyond it this side does not bind)
        or the secant settles; then a finer grid.  The first grid, a finer one whose last
        estimate of the crossing is within 5 % of ``enough``, and one whose last trial is the
        sound end itself (it stopped at the cap) start at ``enough``."""
        upper, target, rtol = self.upper, self.target, self.rtol
        if self.lo < enough < math.inf and (self.lps == 0 or self.trial <= self.lo
                                            or enough <= self.trial * 1.05):
            self.trial = enough
        if not self._pyramid_started:
            self._pyramid_started = True
            if math.isinf(self.model.norm) and all(p.kind != "ball" for p in self.model.parts):
                self._pyramids()
            elif ball_applies(self.model):  # an l_2 ball of two coordinates: cones about a centre
                self._pyramids(best_ball)
        grid = Grid(self.model, self.tc, self.axes, base=self.base)
        if self.grid is not None and len(grid.pair_cell) > MAX_PAIRS:
            self.done = True  # the schedule ends: the next grid's LP is too large
            return
        self.grid = grid
        self.grids += 1
        self.size = grid.size
        up = math.inf
        history: list = []
        for _ in range(4):
            trial = self.trial
            bound, wit, safe = self._solve(grid, trial)
            if not safe:
                up = min(up, trial)
            history.append((trial, bound))
            if self.wit_hi is None or isinstance(self.wit_hi, (GridWitness, BallWitness)):
                root = secant_crossing(wit.posterior, target, upper, trial, rtol / 50)
                if root < self.hi:
                    self.hi, self.wit_hi = root, wit
            if self._converged() or self.lo >= enough:
                break
            top = min(up, self.hi)
            # secant on logit(bound) against log(eps) through the grid's last two points
            nxt = secant_logit_trial(history, target)
            lo = self.lo
            if nxt is None or not (lo < nxt < top):
                nxt = math.sqrt(lo * top) if lo > 0 and math.isfinite(top) else (top / 2 if math.isfinite(top) else trial * 4)
            if lo > 0 and math.isfinite(top) and abs(nxt / trial - 1) < rtol / 8:
                self.trial = nxt  # settled: a finer grid starts at the estimate, not at lo again
                break
            self.trial = nxt * (1 - rtol / 8) if nxt * (1 - rtol / 8) > lo else nxt
        if self._converged():
            self.done = True
            return
        if grid.nnode >= self.max_nodes or not hasattr(grid, "last") or self.grids >= MAX_GRIDS:
            self.done = True
            return
        axes = refine_axes(grid)
        if axes is None or math.prod(len(ax.nodes) for ax in axes) > self.max_nodes:
            self.done = True
            return
        self.axes = axes

    def _solve(self, grid: Grid, eps: float):
        """The relaxation LP at ``eps``: (bound, witness, safe); the sound end moves to ``eps``
        if it holds there."""
        bound, wit = grid.solve(eps, self.upper)
        self.lps += 1
        safe = bound <= self.target if self.upper else bound >= self.target
        if safe and eps > self.lo:
            self.lo, self.at_lo = eps, bound
        return bound, wit, safe

    def certify(self, eps: float) -> bool:
        """One more LP on the last grid, at ``eps``; the sound end moves there if it holds."""
        if self.grid is None or eps <= self.lo:
            return False
        return self._solve(self.grid, eps)[2]

    def bracket(self) -> Bracket:
        with uncapped():
            post = self.wit_hi.posterior(self.hi) if self.wit_hi is not None and math.isfinite(self.hi) else math.nan
        return Bracket(self.lo, self.hi, self.wit_hi, post, self.lps, self.size, self.at_lo,
                       cut_short=self.cut_short)


def grid_sides(model, tc, targets, rtol, eps0, max_nodes, first=None):
    """Certified brackets of both sides (``targets``: name -> (target, upper)), refined in
    turns: the next grid goes to the side whose sound end is lower (the epsilon's sound end is
    the lower of the two), until that side is done (within ``rtol``, or its grid cannot grow
    within ``max_nodes``).  A side stops its LPs once its sound end reaches the other's (it is
    then "capped": its own optimum may lie further; when the turns are over, it tries the
    other's sound end once more on its last grid).
    ``first``: the side that starts; its sound end is where the other starts.  The schedule
    depends on the arguments only; under a wall-clock cap it stops where the cap runs out
    (the brackets so far, ``cut_short``)."""
    names = sorted(targets, key=lambda n: n != first)
    sides = {n: GridSide(model, tc, targets[n][0], targets[n][1], rtol, eps0, max_nodes) for n in names}
    try:
        _grid_turns(sides, names)
    except BudgetExhausted:
        for side in sides.values():
            side.cut_short = True
    return {n: s.bracket() for n, s in sides.items()}


def _grid_turns(sides, names):
    capped = dict.fromkeys(names, False)
    while True:
        low = min(sides[n].lo for n in names)
        tied = [n for n in names if sides[n].lo == low]
        name = next((n for n in tied if not capped[n]), tied[0])
        side = sides[name]
        if side.done:
            break
        others = [sides[n].lo for n in names if n != name and sides[n].lps > 0 and not capped[n]]
        enough = min(others) if others else math.inf
        side.step(enough)
        capped[name] = side.lo >= enough
    # the turns are over: a capped side that the other has passed tries the other's sound end
    # once more, on its last grid (one LP)
    low = min(names, key=lambda n: sides[n].lo)
    others = [sides[n].lo for n in names if n != low]
    if capped[low] and others and sides[low].lo < min(others):
        sides[low].certify(min(others))


def halve_axes(axes: list[Axis]) -> list[Axis]:
    """Every bounded cell of every continuous coordinate split in two."""
    out = []
    for ax in axes:
        if ax.finite:
            out.append(ax)
            continue
        ok = np.isfinite(ax.lo) & np.isfinite(ax.hi)
        mids = (ax.lo[ok] + ax.hi[ok]) / 2
        out.append(continuous_axis(ax.prior, np.concatenate([ax.nodes, mids])))
    return out
