r"""Cell-average relaxation of the worst posterior for goals of two attributes under
:math:`\ell_\infty`, numeric ones with log-concave priors (normal, uniform, gamma with shape at
least 1, ...: :func:`garesearch.optimal._goal_cellaxes.is_log_concave`) or one categorical
attribute under the discrete metric (beyond the paper; Sec. 4.2, 4.3).

The record space is cut into equal cells aligned with the edges of :math:`X'` (cell sides
:math:`h_c = 2 r_c / n_c` per coordinate).  For a likelihood :math:`L` with
:math:`L(x) \le e^{\epsilon \|x - x'\|_\infty} L(x')` let :math:`a_i` be its prior average
over cell :math:`C_i`.  **Translation lemma**: if the prior is a product of log-concave
densities and :math:`C_j = C_i + v`, then :math:`a_i \le e^{\epsilon \|v\|_\infty} a_j`.
Proof: couple the two conditional priors coordinate by coordinate through their quantile
functions, :math:`X_c = Q_{i,c}(u_c)`, :math:`Y_c = Q_{j,c}(u_c)`.  On the cell, the density
of :math:`C_j` relative to that of :math:`C_i` (both shifted to start at 0) is
:math:`f(y + v_c) / f(y)`, monotone in :math:`y` by log-concavity, so the two conditionals are
stochastically ordered and :math:`Y_c - X_c` lies between :math:`v_c - h_c` and :math:`v_c`
(for :math:`v_c \ge h_c`; mirror image for :math:`v_c < 0`): :math:`|Y_c - X_c| \le |v_c|`,
hence :math:`L(X) \le e^{\epsilon \|v\|_\infty} L(Y)` pointwise and in expectation.  Where a
density vanishes outside an interval (a uniform or gamma prior), the ratio is still monotone
on the cell (0 or infinite beyond the support), and cells beyond the support hold no mass and
drop out.  A categorical coordinate under the discrete metric keeps its atoms as cells: the
conditional priors there are point masses, the coordinate's distance is 0 within an atom and
1 across, so :math:`a_i \le e^{\epsilon \max(|v_0|, [\alpha \ne \beta])} a_j` for cells in
atoms :math:`\alpha, \beta` at numeric offset :math:`v_0`.

So the averages of every mechanism's likelihood satisfy the linear constraints of a finite
problem on the cell centres (the neighbours' translations suffice: they chain to the others),
and the largest posterior of :math:`X'` over that polytope bounds the worst posterior from
above (the smallest from below): a Charnes-Cooper LP, solved by HiGHS and certified from its
dual (:func:`garesearch.optimal._certify.certified_bound`).  Unlike a relaxation on nodes, nothing
is lost inside a cell to the likelihood's shape; the bound converges to the optimum as the
cells shrink.  The prior outside a box of cells is bounded through the box's edge cells
(:math:`L(x) \le e^{\epsilon \max_{y \in E} \|x - y\|} a_E`) or left out where leaving it
out only loosens the bound.

Since the lemma bounds every coordinate, :math:`a_i \le e^{\epsilon \|v\|} a_j` holds for any
monotone norm, and :class:`CellGrid` also takes an :math:`\ell_p` distance (:func:`cell_metric`):
under :math:`\ell_1` the unit steps chain exactly; otherwise the primitive translations of at
most ``STENCIL_REACH`` cells per coordinate chain to at most the polygon factor times the
distance (looser, sound).  Beyond the box, :math:`\|d\|_p \le \|d\|_1`: the tail coordinates'
distances plus the other coordinates' cell sides.  A ball of two coordinates cuts cells: with
the cell's prior mass fraction :math:`m` in :math:`X'` (a certified enclosure,
:func:`garesearch.optimal._goal_cellaxes.ball_fractions`) and :math:`L` varying within the
cell by at most :math:`e^{\epsilon \delta}` (:math:`\delta` the distance across it), its share
in :math:`X'` lies in :math:`[\max(e^{-\epsilon\delta} m, 1 - e^{\epsilon\delta}(1-m)),
\min(e^{\epsilon\delta} m, 1 - e^{-\epsilon\delta}(1-m))]`, each side taking the end that
loosens its bound (:meth:`CellGrid.goal_coefficients`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._roots import clamped_logit, secant_crossing, secant_logit_trial
from ..errors import ParameterError
from ._certify import BudgetExhausted, certified_bound, check_time, solve_lp, uncapped
from ._goal_cellaxes import ball_fractions, cell_range, is_log_concave, log_cell_masses, window_rows
from ._goal_kernels import log_tilted
from ._goal_model import GoalModel, coord_radius, in_goal_set, model_scale, record_distance

__all__ = [
    "SIZES",
    "BoxedGrid",
    "CellGrid",
    "ball_cells_apply",
    "ball_sound_ends",
    "band_box",
    "best_ridges",
    "box_ranges",
    "cell_grid",
    "cell_metric",
    "cell_sides",
    "cells_apply",
    "compact_applies",
    "compact_grid",
    "ridge_boxes",
    "schedule",
]

#: the box of cells covers each prior's central 1 - 2e-5 (and X')
_TAIL_Q = 1e-5
#: under l_p (1 < p < inf) the translations constrained are the primitive ones of at most this
#: many cells per coordinate: they chain to at most 1.0075 times the l_2 distance
STENCIL_REACH = 4


def cell_metric(model: GoalModel) -> float | None:
    r"""The :math:`p` of the :math:`\ell_p` distance between records of two or more
    coordinates: the goal's ``norm`` for attributes of one coordinate each, the inner norm of a
    ball of two coordinates (``None`` for other goals)."""
    if model.ncoord < 2:
        return None
    if [p.kind for p in model.parts] == ["ball"] and model.ncoord == 2:
        return float(model.parts[0].pball)
    return float(model.norm) if all(p.kind in ("num", "disc") for p in model.parts) else None


def cells_apply(model: GoalModel, tc) -> bool:
    r"""Whether the cell relaxation applies: ``norm=inf``, two coordinates, each an attribute
    of its own: numeric ones with a log-concave prior (for the lemma;
    :func:`garesearch.optimal._goal_cellaxes.is_log_concave`), at most one categorical one
    under the discrete metric (its atoms are the cells), and cells as fine as the coarsest
    grid needs fit in the bands (at most twice its size).  (:class:`CellGrid` itself also
    takes an :math:`\ell_p` distance and a ball of two coordinates, :func:`cell_metric`; the
    witnesses of this module take :math:`X'` as a box, so those goals are not routed here.)"""
    if not (math.isinf(model.norm) and model.ncoord == 2
            and all(p.kind in ("num", "disc") for p in model.parts)
            and sum(p.kind == "num" for p in model.parts) >= 1
            and all(d or is_log_concave(pr) for pr, d in zip(model.priors, model.discrete, strict=True))):
        return False
    return _plan(model, tc, SIZES[0])[1] <= 2 * SIZES[0]


def _ranges(model: GoalModel, tc) -> list[tuple[float, float, float, float]]:
    """Per coordinate: the true value, the radius and the range the cells cover (the prior's
    central 1 - 2 _TAIL_Q and the band of X'); cached on the model (the quantiles are slow)."""
    cache = model.__dict__.setdefault("_cell_ranges", {})
    key = tuple(float(v) for v in tc)
    if key not in cache:
        cache[key] = _ranges_of(model, tc)
    return cache[key]


def _ranges_of(model: GoalModel, tc) -> list[tuple[float, float, float, float]]:
    out = []
    for c, (prior, disc) in enumerate(zip(model.priors, model.discrete, strict=True)):
        t = float(tc[c])
        if disc:  # (the atoms: no range)
            out.append((t, 0.0, 0.0, float(len(prior.values))))
            continue
        r = coord_radius(model, c)
        out.append((t, r, *cell_range(prior, t, r, _TAIL_Q)))
    return out


#: a neighbour constraint whose factor exceeds e^this (1e12) is left out of the LP: HiGHS
#: refuses coefficients near 1e20 (a cell 200 wide at epsilon 0.2), such a constraint is
#: vacuous to the solver's tolerance, and leaving one out only loosens the relaxation
LOG_VACUOUS = math.log(1e12)


def pair_rows(a: np.ndarray, b: np.ndarray, ln: np.ndarray, logF: np.ndarray, eps: float):
    r"""The neighbour constraints of a cell LP in the posterior masses :math:`w`:
    :math:`w_i - e^{\epsilon |v|} (F_i / F_j) w_j \le 0` for the pairs ``(a, b)`` at distances
    ``ln``, both ways round, without those whose factor exceeds :data:`LOG_VACUOUS`.  Returns
    COO ``rows, cols, vals`` and the number of rows."""
    ia, ib, ll = np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([ln, ln])
    lk = eps * ll + logF[ia] - logF[ib]
    keep = lk <= LOG_VACUOUS
    ia, ib, lk = ia[keep], ib[keep], lk[keep]
    m = ia.size
    r = np.arange(m)
    return np.concatenate([r, r]), np.concatenate([ia, ib]), np.concatenate([np.ones(m), -np.exp(lk)]), m


def diverging_tail(live: np.ndarray, upper: bool):
    """The bound of a relaxation whose prior mass beyond the box has no finite tilted bound
    (epsilon at or above an exponential tail's rate along a coordinate that counts for this
    side: a likelihood growing along that tail takes the posterior of ``X'`` to 0, or of its
    complement to 0): the trivial bound (1 for the largest posterior, 0 for the smallest)
    and a flat profile."""
    return (1.0 if upper else 0.0), np.where(live, 0.0, -np.inf)


class CellGrid:
    r"""Cells aligned with the edges of :math:`X'` over the priors' central mass (a numeric
    coordinate in cells of side :math:`2 r_c / n_c`, cut to the support; a categorical one in
    its atoms); :meth:`solve` gives the certified bound on the worst posterior at ``eps``.
    ``h``: the side wanted, one for all numeric coordinates or one per coordinate;
    ``ranges``: per coordinate ``(t, r, low, high)``, the range the cells cover (default: the
    prior's central ``1 - 2e-5`` and the band, :func:`_ranges`); ``reach``: under
    :math:`\ell_p` (``1 < p < inf``) the primitive translations of at most this many cells per
    coordinate are constrained (:data:`STENCIL_REACH`; 2 chains to at most 1.0275 times the
    :math:`\ell_2` distance, 3 to 1.013)."""

    def __init__(self, model: GoalModel, tc, h, ranges=None, reach: int = STENCIL_REACH):
        self.model, self.tc = model, [float(v) for v in tc]
        self.reach = int(reach)
        d = model.ncoord
        hs = np.broadcast_to(np.asarray(h, float), (d,))
        self.disc = np.array(model.discrete, dtype=bool)
        edges, steps, logm, centres = [], [], [], []
        for c, (t, r, lo, hi) in enumerate(ranges or _ranges(model, tc)):
            prior = model.priors[c]
            if self.disc[c]:
                edges.append(None)
                steps.append(0.0)
                with np.errstate(divide="ignore"):
                    logm.append(np.log(np.asarray(prior.probs, dtype=float)))
                centres.append(np.arange(len(prior.values), dtype=float))
                continue
            n = max(1, round(2 * r / hs[c]))
            step = 2 * r / n
            k_lo = math.floor((lo - (t - r)) / step + 1e-9)
            k_hi = max(k_lo + 1, math.ceil((hi - (t - r)) / step - 1e-9))
            e = t - r + step * np.arange(k_lo, k_hi + 1)
            edges.append(e)
            steps.append(step)
            # log cell masses, accurate in the tails (-inf: no mass, beyond the support)
            logm.append(log_cell_masses(prior, e))
            centres.append((e[:-1] + e[1:]) / 2)
        self.edges, self.steps, self.logm, self.centres = edges, np.array(steps), logm, centres
        self.shape = tuple(len(x) for x in centres)
        self.n = math.prod(self.shape)
        grids = np.meshgrid(*centres, indexing="ij")
        self.inside = in_goal_set(model, np.stack(grids, axis=-1), self.tc).ravel()
        self.p = cell_metric(model)
        self.logF = sum(np.meshgrid(*logm, indexing="ij")).ravel()
        self.live = np.isfinite(self.logF)  # (cells of no prior mass drop out)
        self._fractions()
        self._offsets()
        # the prior outside the box, region by region: per numeric coordinate below (-1),
        # beside (0) or above (1) the box (see :meth:`tail_coefficients`)
        choices = [[0] if self.disc[c] else [-1, 0, 1] for c in range(d)]
        patterns = np.array(np.meshgrid(*choices, indexing="ij")).reshape(d, -1).T
        self.tail_regions = [p for p in patterns if np.any(p)]

    def _fractions(self):
        r"""Enclosures ``frac = (m_lo, m_hi)`` of each cell's prior mass fraction in :math:`X'`
        (0 or 1 where the cells are aligned with :math:`X'`; for a ball, the cells it cuts by
        :func:`garesearch.optimal._goal_cellaxes.ball_fractions`) and ``diam``, the distance
        across a cell (see :meth:`goal_coefficients`)."""
        m = self.inside.astype(float)
        self.frac = (m, m)
        self.diam = float(self.offset_lengths(np.ones((1, len(self.shape))))[0])
        if [p.kind for p in self.model.parts] != ["ball"]:
            return
        part, t = self.model.parts[0], self.tc
        ix = np.unravel_index(np.arange(self.n), self.shape)
        lo = np.stack([self.edges[c][ix[c]] for c in range(2)], axis=1)
        hi = np.stack([self.edges[c][ix[c] + 1] for c in range(2)], axis=1)
        gap = np.maximum(0.0, np.maximum(lo - np.asarray(t), np.asarray(t) - hi))
        far = np.maximum(np.abs(lo - np.asarray(t)), np.abs(hi - np.asarray(t)))
        near_d, far_d = (record_distance(self.model, np.zeros_like(x), x) for x in (gap, far))
        m_lo, m_hi = np.where(far_d <= part.r, 1.0, 0.0), np.where(near_d <= part.r, 1.0, 0.0)
        cut = (m_lo < m_hi) & self.live
        if cut.any():
            m_lo[cut], m_hi[cut] = ball_fractions(self.model.priors, t, part.r, part.pball, lo[cut], hi[cut])
        self.frac = (m_lo, m_hi)

    def goal_coefficients(self, eps: float, upper: bool) -> np.ndarray:
        r"""Per cell: a bound on the share of its posterior mass in :math:`X'` (from above for
        ``upper``, else from below).  Within a cell :math:`L` varies by at most a factor
        :math:`e^{\epsilon \delta}` (:math:`\delta` the distance across it), so with the mass
        fraction :math:`m` the share lies in :math:`[e^{-\epsilon\delta} m, e^{\epsilon\delta} m]`
        and its complement in :math:`[e^{-\epsilon\delta}(1-m), e^{\epsilon\delta}(1-m)]`; the
        enclosure of :math:`m` is taken at its end that loosens the bound."""
        g = math.exp(eps * self.diam)
        m_lo, m_hi = self.frac
        if upper:
            return np.minimum(1.0, np.minimum(g * m_hi, 1.0 - (1.0 - m_hi) / g))
        return np.maximum(0.0, np.maximum(m_lo / g, 1.0 - g * (1.0 - m_lo)))

    def offset_lengths(self, offsets) -> np.ndarray:
        """The distance of the translation by each offset (in cells; a categorical coordinate
        counts any nonzero offset as another atom): the ``norm`` of the coordinates'
        distances (:func:`garesearch.optimal._goal_model.record_distance`)."""
        offsets = np.asarray(offsets, dtype=float)
        disp = np.where(self.disc, (offsets != 0).astype(float), np.abs(offsets) * self.steps)
        return record_distance(self.model, np.zeros_like(disp), disp)

    def _offsets(self):
        r"""The translations that are constrained, one of each +-v pair, their lengths, and
        the cell pairs (``pa``, ``pb``, ``plen``).  Two numeric coordinates: the king's moves
        for equal sides; for sides :math:`h_b = k h_s` the moves :math:`(a, \pm 1)` with
        :math:`|a| \le k` (``a`` along the smaller side) and the unit step along the smaller
        side, which chain to every :math:`\ell_\infty` distance exactly (``k`` rounded up
        where the ratio is not an integer: fewer pairs, looser but sound).  A numeric and a
        categorical coordinate: the unit steps within an atom, and every pair of atoms at
        numeric offsets up to :math:`K = \lceil 1/h\rceil` cells (distance
        :math:`\max(|j| h, 1)`; a longer offset chains through :math:`K` cells across and the
        rest within the atom)."""
        d = len(self.shape)
        num = [c for c in range(d) if not self.disc[c]]
        raw = []
        self.window, self.wlen = None, math.nan
        if len(num) == d and not math.isinf(self.p):
            # l_1: the unit steps chain exactly; else the primitive offsets up to STENCIL_REACH
            K = 1 if self.p == 1 else self.reach
            raw = [(a, b) for a in range(K + 1) for b in range(-K, K + 1)
                   if math.gcd(a, b) == 1 and (a > 0 or b > 0) and (self.p != 1 or a * b == 0)]
        elif len(num) == d:
            big, small = int(np.argmax(self.steps)), int(np.argmin(self.steps))
            if big == small or self.steps[big] <= self.steps[small] * (1 + 1e-9):
                raw = list(itertools.product(*[(-1, 0, 1)] * d))
            else:
                k = math.ceil(self.steps[big] / self.steps[small] - 1e-9)
                for a in range(-k, k + 1):
                    v = [0] * d
                    v[big], v[small] = 1, a
                    raw.append(tuple(v))
                v = [0] * d
                v[small] = 1
                raw.append(tuple(v))
        else:
            (c0,) = num
            (c1,) = [c for c in range(d) if self.disc[c]]
            K = math.ceil(1.0 / self.steps[c0] - 1e-9)
            v = [0] * d
            v[c0] = 1
            raw.append(tuple(v))
            # the pairs of atoms at offsets below K cells (distance 1) through a sparse table
            # of window minima (:func:`garesearch.optimal._goal_cellaxes.window_rows`) where
            # every cell of the atoms holds mass, else directly
            along = self.live.reshape(self.shape).all(axis=c0)
            use = self.live.reshape(self.shape).any(axis=c0)
            self.window = (c0, c1, K) if np.array_equal(along, use) and K > 1 else None
            for j in ((-K, K) if self.window else range(-K, K + 1)):
                for dd in range(1, self.shape[c1]):
                    v = [0] * d
                    v[c0], v[c1] = j, dd
                    raw.append(tuple(v))
            if self.window:
                off = np.zeros(d)
                off[c0], off[c1] = K - 1, 1
                self.wlen = float(self.offset_lengths(off[None, :])[0])
        offs = []
        for v in raw:
            v = np.array(v)
            nz = np.flatnonzero(v)
            if nz.size and v[nz[0]] < 0:
                v = -v
            if nz.size and not any(np.array_equal(v, o) for o in offs):
                offs.append(v)
        self.offsets = np.array(offs)
        self.off_len = self.offset_lengths(self.offsets)
        idx = np.arange(self.n).reshape(self.shape)
        pairs_a, pairs_b, lens = [], [], []
        for v, ln in zip(self.offsets, self.off_len, strict=True):
            if any(abs(k) >= s for k, s in zip(v, self.shape, strict=True)):
                continue  # (a move longer than the grid pairs no cells)
            src = tuple(slice(max(0, -k), s - max(0, k)) for k, s in zip(v, self.shape, strict=True))
            dst = tuple(slice(max(0, k), s - max(0, -k)) for k, s in zip(v, self.shape, strict=True))
            a, b = idx[src].ravel(), idx[dst].ravel()
            keep = self.live[a] & self.live[b]
            pairs_a.append(a[keep])
            pairs_b.append(b[keep])
            lens.append(np.full(int(keep.sum()), ln))
        self.pa, self.pb, self.plen = np.concatenate(pairs_a), np.concatenate(pairs_b), np.concatenate(lens)

    def tail_coefficients(self, eps: float, upper: bool) -> np.ndarray:
        r"""Per cell: bound on :math:`\int_{R} L\,dF / a_E` summed over the outer regions
        ``R`` attached to it that count for this side (X' for the upper side, the rest for the
        lower one), in units of the cell's own mass (so it adds to the cell's coefficient)."""
        model, d = self.model, len(self.shape)
        out = np.zeros(self.n)
        for pattern in self.tail_regions:
            per_log, per_index, rep = [], [], []
            for c in range(d):
                e, prior = self.edges[c], model.priors[c]
                if pattern[c] == 0:  # (a categorical coordinate is always here)
                    per_log.append(self.logm[c])
                    per_index.append(np.arange(self.shape[c]))
                    rep.append(self.centres[c])
                elif pattern[c] > 0:  # x_c > top edge, attached to the last cell
                    per_log.append(np.atleast_1d(log_tilted(prior, eps, e[-1], math.inf, e[-2])))
                    per_index.append(np.array([self.shape[c] - 1]))
                    rep.append(np.array([e[-1] + 1.0]))
                else:
                    per_log.append(np.atleast_1d(log_tilted(prior, -eps, -math.inf, e[0], e[1])))
                    per_index.append(np.array([0]))
                    rep.append(np.array([e[0] - 1.0]))
            # D(x) = max_c |x_c - far edge of E_c| <= sum over the tail coordinates, and at most
            # the cell side along the others (add eps * side of the largest other side)
            # (under l_p, p finite: D(x) <= its l_1 norm, the sum over the tail coordinates and
            # the other cells' sides)
            others = [self.steps[c] for c in range(d) if pattern[c] == 0]
            extra = eps * max(0.0, max(others, default=0.0) - min(self.steps[c] for c in range(d) if pattern[c] != 0)) \
                if math.isinf(self.p) else eps * sum(others)
            grids = np.meshgrid(*rep, indexing="ij")
            ins = in_goal_set(model, np.stack(grids, axis=-1), self.tc).ravel()
            keep = ins if upper else ~ins
            if not keep.any():
                continue
            logt = sum(np.meshgrid(*per_log, indexing="ij")).ravel() + extra
            cells = np.ravel_multi_index(np.meshgrid(*per_index, indexing="ij"), self.shape).ravel()
            # (no mass beyond a finite end of the support: -inf; a tilted integral that diverges,
            # epsilon at or above an exponential tail's rate: +inf, kept, and solve() then has no
            # finite bound)
            keep &= logt > -np.inf
            if np.any(~self.live[cells[keep]]):
                raise AssertionError("prior mass beyond a cell of none")  # (the box is cut to the support)
            with np.errstate(over="ignore"):
                np.add.at(out, cells[keep], np.exp(logt[keep] - self.logF[cells[keep]]))
        return out

    def profile(self, w: np.ndarray) -> np.ndarray:
        """The log cell averages (up to a constant) of an LP solution ``w`` (posterior masses):
        ``log(w_i / F_i)``, ``-inf`` for cells of no mass."""
        with np.errstate(divide="ignore"):
            return np.where(self.live, np.log(np.maximum(w, 0.0)) - np.where(self.live, self.logF, 0.0), -np.inf)

    def solve(self, eps: float, upper: bool):
        """Certified bound on the worst posterior (largest for ``upper``, else smallest) at
        ``eps``, and the LP's cell averages (log, up to a constant)."""
        import scipy.sparse as sp

        n = self.n
        tail = self.tail_coefficients(eps, upper)
        if not np.all(np.isfinite(tail)):
            return diverging_tail(self.live, upper)
        # w_i = posterior mass of cell i (a_i F_i / total); a_i <= e^{eps |v|} a_j reads
        # w_i - e^{eps |v|} (F_i / F_j) w_j <= 0, both directions
        rows, cols, vals, m2 = pair_rows(self.pa, self.pb, self.plen, self.logF, eps)
        a_eq = 1.0 + tail
        obj = self.goal_coefficients(eps, upper) + (tail if upper else 0.0)
        ub = np.where(self.live, 1.0 / a_eq, 0.0)
        n_all = n
        if self.window is not None:
            c0, _, K = self.window
            w_rows, w_cols, w_vals, aux_of = window_rows(self.logF.reshape(self.shape), c0, K, eps * self.wlen,
                                                         start=m2, first=n)
            rows, cols, vals = (np.concatenate(x) for x in ((rows, w_rows), (cols, w_cols), (vals, w_vals)))
            n_all = n + aux_of.size
            a_eq, obj = (np.concatenate([x, np.zeros(aux_of.size)]) for x in (a_eq, obj))
            ub = np.concatenate([ub, ub[aux_of]])
        A = sp.csr_matrix((vals, (rows, cols)), shape=(int(rows.max()) + 1 if rows.size else 0, n_all))
        # Dantzig pricing: about a quarter faster than the default on these LPs
        res = solve_lp(-obj if upper else obj, A, a_eq, ub, methods=("highs-ds", "highs-ipm"),
                       options={"simplex_dual_edge_weight_strategy": "dantzig"})
        return certified_bound(res, obj, A, a_eq, ub, upper), self.profile(res.x[:n])


#: the prior's quantiles where the margin of a box beyond the bands stops (the virtual cells
#: bound the rest): cells further out have masses so far below their neighbours' that the LP's
#: coefficients leave the solver's range (a Normal(0, 0.1) with cells of side 0.2 out to 19
#: standard deviations made HiGHS call a feasible LP infeasible)
BOX_QUANTILE = 1e-12
#: virtual cells beyond a box, per coordinate and end (at most)
VIRTUAL_CELLS = 4000


def box_ranges(model: GoalModel, tc, margin: float) -> list[tuple[float, float, float, float]]:
    """Per coordinate ``(t, r, low, high)``: the ``ranges`` of a :class:`BoxedGrid` over the
    bands widened by ``margin`` (:func:`band_box`)."""
    return [(float(tc[c]), coord_radius(model, c), *band_box(model, tc, c, margin))
            for c in range(model.ncoord)]


def band_box(model: GoalModel, tc, c: int, margin: float) -> tuple[float, float]:
    """The range of coordinate ``c`` that the cells of a :class:`BoxedGrid` cover: its band
    widened by ``margin`` on either side, the widening cut to the prior's
    :data:`BOX_QUANTILE` quantiles and to the support (the band itself is always covered)."""
    t, r = float(tc[c]), coord_radius(model, c)
    prior = model.priors[c]
    lo_s, hi_s = prior.support
    q_lo, q_hi = float(prior.quantile(BOX_QUANTILE)), float(prior.upper_quantile(BOX_QUANTILE))
    lo = max(t - r - margin, min(t - r, q_lo), lo_s)
    hi = min(t + r + margin, max(t + r, q_hi), hi_s)
    return lo, hi


class BoxedGrid(CellGrid):
    r"""Cells over a box a little wider than the bands of :math:`X'` (numeric coordinates),
    the prior beyond it bounded from both sides through the box's edge cells ``E``: along a
    coordinate beyond the box, the virtual cells :math:`E + j h e_c` have averages between
    :math:`e^{-\epsilon j h} a_E` and :math:`e^{\epsilon j h} a_E` (the translation lemma), and
    beyond the virtual cells :math:`e^{-\epsilon |x_c - f_c|} a_E \le L(x) \le e^{\epsilon |x_c
    - f_c|} a_E` pointwise (``f_c`` the far edge of ``E``); a region beyond the box along several
    coordinates takes the product of their factors (:meth:`_beyond`).  Both ends are kept: for
    the upper side the region in :math:`X'` with the upper bound (in the objective and the
    normalisation), the region outside with the lower bound (in the normalisation), the other
    way round for the lower side.  Unlike :class:`CellGrid`, whose box covers the priors'
    central mass, a few cells beyond the bands suffice when the worst likelihood decays at the
    full rate there (an AND; :func:`compact_grid`), so the cells can be finer for the same
    count.  ``ranges`` as for :class:`CellGrid` (:func:`band_box` gives them)."""

    #: HiGHS methods, in order (interior point first: about 2.4 times as fast as the dual
    #: simplex on these)
    methods = ("highs-ipm", "highs-ds")

    def __init__(self, model: GoalModel, tc, h, ranges):
        super().__init__(model, tc, h, ranges)
        if not (math.isinf(self.p) and not self.disc.any()):
            # (the bounds beyond the box take l_inf distances and numeric coordinates)
            raise ParameterError("model: a box of cells with the prior beyond it bounded takes numeric "
                                 "coordinates under norm=inf")

    def _beyond(self, c: int, side: int, k: float) -> np.ndarray:
        r"""One coordinate's factor of the prior beyond the box (above it for ``side > 0``),
        in log: the virtual cells :math:`E + j h e_c` beyond the edge cell ``E`` (up to the
        prior's :math:`10^{-17}` quantile, at most :data:`VIRTUAL_CELLS`), each with its mass
        times :math:`e^{k j h}` (the translation lemma: :math:`e^{-\epsilon j h} a_E \le
        a_{E + j h e_c} \le e^{\epsilon j h} a_E`), and the rest with
        :math:`e^{k |x - f|}`, ``f`` the far edge of ``E`` (pointwise; an upper bound of the
        integral for ``k > 0``, a lower bound for ``k < 0``).  A region beyond the box along
        several coordinates takes the product of their factors: each part of it is a virtual
        cell, or lies beyond the virtual cells along some coordinates, where the pointwise
        bound from the virtual cell of the others applies."""
        e, prior, h = self.edges[c], self.model.priors[c], float(self.steps[c])
        end = "hi" if k > 0 else "lo"
        if side > 0:
            far = float(prior.upper_quantile(1e-17)) if math.isinf(prior.support[1]) else prior.support[1]
            j = int(min(max(math.ceil((far - e[-1]) / h), 1), VIRTUAL_CELLS))
            ve = e[-1] + h * np.arange(j + 1)
            rest = log_tilted(prior, k, ve[-1], math.inf, e[-2], end=end)
        else:
            far = float(prior.quantile(1e-17)) if math.isinf(prior.support[0]) else prior.support[0]
            j = int(min(max(math.ceil((e[0] - far) / h), 1), VIRTUAL_CELLS))
            ve = e[0] - h * np.arange(j + 1)[::-1]
            rest = log_tilted(prior, -k, -math.inf, ve[0], e[1], end=end)
        logm = log_cell_masses(prior, ve)
        if side < 0:
            logm = logm[::-1]  # (nearest first)
        terms = np.concatenate([logm + k * h * np.arange(1, j + 1), np.atleast_1d(rest)])
        top = float(np.max(terms))
        if not math.isfinite(top):
            return np.atleast_1d(top)
        return np.atleast_1d(top + math.log(float(np.sum(np.exp(terms - top)))))

    def tail_bounds(self, eps: float, upper: bool) -> tuple[np.ndarray, np.ndarray]:
        r"""Per cell, in units of its own mass: the prior beyond the box attached to it, in
        :math:`X'` and outside, bounded through :math:`a_E` (:meth:`_beyond`; the end that
        loosens this side's bound: for ``upper`` the upper bound in :math:`X'` and the lower
        bound outside).  Returns ``(inside, outside)``."""
        model, d = self.model, len(self.shape)
        ins_out = [np.zeros(self.n), np.zeros(self.n)]
        for pattern in self.tail_regions:
            others = [self.steps[c] for c in range(d) if pattern[c] == 0]
            extra = max(0.0, max(others, default=0.0) - min(self.steps[c] for c in range(d) if pattern[c] != 0))
            grids = np.meshgrid(*[self.centres[c] if pattern[c] == 0 else
                                  np.array([self.edges[c][-1] + 1.0 if pattern[c] > 0 else self.edges[c][0] - 1.0])
                                  for c in range(d)], indexing="ij")
            ins = in_goal_set(model, np.stack(grids, axis=-1), self.tc).ravel()
            cells = np.ravel_multi_index(np.meshgrid(*[np.arange(self.shape[c]) if pattern[c] == 0 else
                                                       np.array([self.shape[c] - 1 if pattern[c] > 0 else 0])
                                                       for c in range(d)], indexing="ij"), self.shape).ravel()
            for slot, where, raise_it in ((0, ins, upper), (1, ~ins, not upper)):
                if not where.any():
                    continue
                k = eps if raise_it else -eps
                per_log = [self.logm[c] if pattern[c] == 0 else self._beyond(c, pattern[c], k) for c in range(d)]
                logt = sum(np.meshgrid(*per_log, indexing="ij")).ravel() + (eps * extra if raise_it else -eps * extra)
                keep = where & (logt > -np.inf)  # (+inf kept: a diverging tilted tail)
                with np.errstate(over="ignore"):
                    np.add.at(ins_out[slot], cells[keep], np.exp(logt[keep] - self.logF[cells[keep]]))
        return ins_out[0], ins_out[1]

    def solve(self, eps: float, upper: bool):
        """Certified bound on the worst posterior (largest for ``upper``, else smallest) at
        ``eps``, and the LP's cell averages (log, up to a constant)."""
        import scipy.sparse as sp

        n = self.n
        t_in, t_out = self.tail_bounds(eps, upper)
        if not (np.all(np.isfinite(t_in)) and np.all(np.isfinite(t_out))):
            return diverging_tail(self.live, upper)
        rows, cols, vals, m2 = pair_rows(self.pa, self.pb, self.plen, self.logF, eps)
        a_eq = 1.0 + t_in + t_out
        obj = self.goal_coefficients(eps, upper) + t_in
        ub = np.where(self.live, 1.0 / a_eq, 0.0)
        A = sp.csr_matrix((vals, (rows, cols)), shape=(m2, n))
        res = solve_lp(-obj if upper else obj, A, a_eq, ub, methods=self.methods)
        return certified_bound(res, obj, A, a_eq, ub, upper), self.profile(res.x[:n])


def ridge_boxes(grid: CellGrid, loga: np.ndarray, eps: float, upper: bool = True, most: int = 5):
    """The tops (upper side; bottoms for the lower side) of the LP's cell profile as boxes with
    heights: the cells that no neighbour dominates (:math:`s_i > s_j - |v|`), grouped by
    height and adjacency; a group that reaches the edge of the box of cells runs on to
    infinity.  The ``most`` heaviest groups (prior mass times likelihood) are kept."""
    s = loga / eps if upper else -loga / eps
    ok = np.isfinite(s)
    s = np.where(ok, s - np.max(s[ok]), -np.inf)
    dom = ~ok
    for a, b in ((grid.pa, grid.pb), (grid.pb, grid.pa)):
        np.logical_or.at(dom, a, s[b] - grid.plen >= s[a] - 1e-7)
    roots = np.flatnonzero(~dom)
    if roots.size == 0:
        return None
    # components: neighbouring roots at the same height
    parent = {int(r): int(r) for r in roots}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    isroot = ~dom
    same = isroot[grid.pa] & isroot[grid.pb]
    for c in np.flatnonzero(grid.disc):  # (a group stays within its atom: a box is one atom)
        same &= np.unravel_index(grid.pa, grid.shape)[c] == np.unravel_index(grid.pb, grid.shape)[c]
    same[same] = np.abs(s[grid.pa[same]] - s[grid.pb[same]]) <= 1e-6
    for a, b in zip(grid.pa[same], grid.pb[same], strict=True):
        ra, rb = find(int(a)), find(int(b))
        if ra != rb:
            parent[ra] = rb
    groups: dict = {}
    for r in roots:
        groups.setdefault(find(int(r)), []).append(int(r))
    centres = grid.centres
    boxes = []
    for members in groups.values():
        idx = np.array(np.unravel_index(np.array(members), grid.shape))
        a = np.array([centres[c][idx[c]].min() for c in range(len(grid.shape))])
        b = np.array([centres[c][idx[c]].max() for c in range(len(grid.shape))])
        for c in range(len(grid.shape)):
            if idx[c].min() == 0 and idx[c].max() > idx[c].min():
                a[c] = -math.inf
            if idx[c].max() == grid.shape[c] - 1 and idx[c].max() > idx[c].min():
                b[c] = math.inf
        m = np.array(members)
        weight = float(np.max(grid.logF[m] + eps * s[m]))
        boxes.append((weight, a, b, float(s[members[0]])))
    boxes.sort(key=lambda x: -x[0])
    top = boxes[0][0]
    boxes = [x for x in boxes if x[0] >= top - 30][:most]
    return [x[1] for x in boxes], [x[2] for x in boxes], [x[3] for x in boxes]


def best_ridges(model: GoalModel, tc, eps: float, start, upper: bool = True, fev: int = 300):
    """The ridge witness (:class:`~garesearch.optimal._goal_pyramid.RidgeWitness`) with the most
    extreme posterior at ``eps`` (largest for ``upper``), by Nelder-Mead from the boxes
    ``start`` (their finite ends, a degenerate side as one value, and the heights but the
    first)."""
    from scipy.optimize import minimize

    from ._goal_pyramid import RidgeWitness

    A0, B0, S0 = (np.array(x, float) for x in start)
    k, d = A0.shape
    slots = []  # (box, coord, which) with which in {"both", "a", "b"}
    for i in range(k):
        for c in range(d):
            if model.discrete[c]:  # (an atom stays)
                continue
            if A0[i, c] == B0[i, c]:
                slots.append((i, c, "both"))
            else:
                if math.isfinite(A0[i, c]):
                    slots.append((i, c, "a"))
                if math.isfinite(B0[i, c]):
                    slots.append((i, c, "b"))
    z0 = np.array([A0[i, c] if w != "b" else B0[i, c] for i, c, w in slots] + list(S0[1:]))

    def make(z):
        A, B, S = A0.copy(), B0.copy(), S0.copy()
        for (i, c, w), v in zip(slots, z, strict=False):
            if w in ("both", "a"):
                A[i, c] = v
            if w in ("both", "b"):
                B[i, c] = v
        S[1:] = z[len(slots):]
        lo, hi = np.minimum(A, B), np.maximum(A, B)
        return RidgeWitness(model, tc, lo, hi, S, upper)

    def f(z):
        check_time()  # (under a wall-clock cap only)
        # (about 400 levels either way: the upper side's layer cake doubles them)
        v = make(z).posterior(eps, levels=201 if upper else 401)
        return -v if upper else v

    step = 0.05 * model_scale(model)
    res = minimize(f, z0, method="Nelder-Mead",
                   options={"initial_simplex": [z0] + [z0 + step * np.eye(z0.size)[j] for j in range(z0.size)],
                            "maxfev": fev, "xatol": 1e-4, "fatol": 1e-9})
    return make(res.x)  # (Nelder-Mead keeps the best point, z0 included)


def _plan(model: GoalModel, tc, cells: int, ranges=None) -> tuple[tuple, int]:
    """The cell sides (one per coordinate; 0 for a categorical one) for a grid of about
    ``cells`` cells over ``ranges`` (default :func:`_ranges`), and the number of cells they
    give (more where a band is too narrow for the side: a cell cannot be wider than its band).  Equal sides chain exactly through the
    neighbours: a common side :math:`2 r_c / n_c` is taken if one lies within a factor 1.6 of
    the side that gives ``cells`` cells; else the narrower band keeps its side and the other
    coordinate takes a whole multiple of it (if one lies within a factor 2 of the side that
    gives ``cells`` cells; else the nearest side that fits its band)."""
    ranges = ranges or _ranges(model, tc)
    d = len(ranges)
    num = [c for c in range(d) if not model.discrete[c]]
    atoms = math.prod(int(ranges[c][3]) for c in range(d) if model.discrete[c])
    ext = {c: ranges[c][3] - ranges[c][2] for c in num}
    r = {c: ranges[c][1] for c in num}
    per = cells / atoms

    def count_of(sides):
        return atoms * math.prod(math.ceil(ext[c] / sides[c]) + 2 for c in num)

    def fit(c, h):  # the side 2 r / n nearest to h (at most the band's width)
        return 2 * r[c] / max(1, round(2 * r[c] / h))

    # (one numeric coordinate beside a categorical one: cells as fine as a square grid of
    # ``cells`` would have, about 2 sqrt(cells) along it; finer only costs, the error being
    # second order in the side either way)
    h = (math.prod(ext.values()) / per) ** (1 / len(num)) if len(num) == 2 else \
        ext[num[0]] / (2 * math.sqrt(cells))
    sides = {c: fit(c, h) for c in num}
    if len(num) == 2:
        c0, c1 = num
        best = None
        for n0 in range(1, min(int(3 * 2 * r[c0] / h) + 2, 10_000)):
            hc = 2 * r[c0] / n0
            if abs(2 * r[c1] / hc - round(2 * r[c1] / hc)) < 1e-9 * (2 * r[c1] / hc):
                if abs(math.log(hc / h)) < math.log(1.6) and (best is None or abs(math.log(hc / h)) < abs(math.log(best / h))):
                    best = hc
        if best is not None:
            sides = {c0: best, c1: best}
        else:
            s_, b_ = (c0, c1) if r[c0] <= r[c1] else (c1, c0)
            hs = fit(s_, h)
            target = ext[b_] / max(1.0, per / (ext[s_] / hs + 2))
            pick = None
            for k in range(1, min(int(2 * r[b_] / hs) + 1, 10_000) + 1):
                nb = 2 * r[b_] / (k * hs)
                if abs(nb - round(nb)) < 1e-9 * nb and abs(math.log(k * hs / target)) < math.log(2):
                    if pick is None or abs(math.log(k * hs / target)) < abs(math.log(pick / target)) - 1e-12:
                        pick = k * hs
            sides = {s_: hs, b_: pick if pick is not None else fit(b_, target)}
    return tuple(sides.get(c, 0.0) for c in range(d)), count_of(sides)


def cell_grid(model: GoalModel, tc, cells: int) -> CellGrid:
    """A grid of about ``cells`` cells (see :func:`_plan`)."""
    return CellGrid(model, tc, _plan(model, tc, cells)[0])


#: a compact box widens the bands by this many units of distance over the epsilon near which
#: its LPs are solved: the worst likelihood beyond the box decays at no more than the full
#: rate, and the bound then stays within 1e-6 of the whole box's (AND of age and salary,
#: cells of side 2: 0.1075186 at 0.71 / epsilon, 0.1075178 at 0.95 and at 1.43; 0.1075749 at 0.48)
MARGIN_RATE = 0.8


def compact_applies(model: GoalModel) -> bool:
    r"""Whether :func:`compact_grid` is used: an AND of two numeric attributes (where
    :func:`cells_apply` holds).  Its :math:`X'` lies within the bands, and the worst
    likelihood decays away from it; an OR's :math:`X'` runs across the whole box."""
    return (math.isinf(model.norm) and len(model.terms) == 1 and model.ncoord == 2
            and all(p.kind == "num" for p in model.parts))


def compact_grid(model: GoalModel, tc, cells: int, eps_ref: float) -> BoxedGrid:
    r"""A :class:`BoxedGrid` of about ``cells`` cells over the bands widened by
    :data:`MARGIN_RATE` ``/ eps_ref`` (at least two cells; :func:`band_box`) for LPs near
    ``eps_ref``: on the AND of age and salary at a record the whole box needs 13,608 cells of
    side 4, the compact box 3,700 of sides 2 and 4 (see :func:`_plan` and
    :func:`_wide_band_side` for the sides)."""
    margin = MARGIN_RATE / eps_ref if 0 < eps_ref < math.inf else math.inf
    sides = _plan(model, tc, cells, box_ranges(model, tc, margin))[0]
    sides = _wide_band_side(model, sides)
    return BoxedGrid(model, tc, sides, box_ranges(model, tc, max(margin, 2.0 * max(sides))))


#: in a compact box, a band at least this many times wider than the other takes twice the
#: common side (:func:`_wide_band_side`)
WIDE_BAND = 16.0


def _wide_band_side(model: GoalModel, sides: tuple) -> tuple:
    r"""Twice the common side along the wider band where the bands' widths differ by
    :data:`WIDE_BAND` or more (and twice the side still divides that band).  The bound's loss
    comes from the cells along the bands' edges: those across the narrow band lie along its
    long edges, those across the wide one along its short edges.  On the AND of age and
    salary at its worst record, eps = 0.017090: sides (2, 2), 7,400 cells, 0.1078358;
    (2, 4), 3,700 cells, 0.1078826 (the target 0.108206 is met either way, in a third of the
    time); (4, 4), 1,850 cells, 0.1083290."""
    num = [c for c in range(model.ncoord) if not model.discrete[c]]
    if len(num) != 2 or sides[num[0]] != sides[num[1]]:
        return sides
    radii = {c: float(coord_radius(model, c)) for c in num}
    small, big = sorted(num, key=lambda c: (radii[c], c))
    h = sides[big]
    n = 2 * radii[big] / (2 * h)
    if radii[big] < WIDE_BAND * radii[small] or abs(n - round(n)) > 1e-9 * n or round(n) < 1:
        return sides
    out = list(sides)
    out[big] = 2 * radii[big] / round(n)
    return tuple(out)


#: the grid that raises the sound end of an l_2 ball of two coordinates (:func:`ball_sound_ends`):
#: cells, stencil reach and LPs per side
BALL_CELLS, BALL_REACH, BALL_LPS = 3000, 2, 4


def ball_cells_apply(model: GoalModel) -> bool:
    r"""Whether :func:`ball_sound_ends` applies: one :math:`\ell_p` ball (``1 < p < inf``) of
    two numeric coordinates with log-concave priors (for the translation lemma)."""
    return ([p.kind for p in model.parts] == ["ball"] and model.ncoord == 2 and not any(model.discrete)
            and 1 < float(model.parts[0].pball) < math.inf and all(is_log_concave(pr) for pr in model.priors))


def ball_sound_ends(model: GoalModel, tc, live: dict, brackets: dict, rtol: float) -> dict:
    r"""Raise the sound ends of an :math:`\ell_p` ball's brackets (``brackets``: name ->
    :class:`~garesearch.optimal._certify.Bracket`, from the node grids) by the cell relaxation:
    :data:`BALL_CELLS` cells over the priors' central mass with the cells the ball cuts
    enclosed (:meth:`CellGrid.goal_coefficients`) and the primitive translations of at most
    :data:`BALL_REACH` cells (they chain to at most 1.0275 times the :math:`\ell_2` distance:
    sound, about that much below the optimum), at most :data:`BALL_LPS` LPs per side from the
    middle of its bracket, the side with the lower sound end first, a side that cannot bind
    skipped.  A sound end moves only up.  On the benchmark's ball (:func:`garesearch.app.bench.goals_everywhere`)
    the sound end goes from 0.6529 to about 0.755 (witness end 0.8449).  Under a wall-clock
    cap the brackets so far are kept (``cut_short``)."""
    grid = None
    try:
        for name in sorted(brackets, key=lambda n: (brackets[n].lo, n != "upper")):
            b = brackets[name]
            top = min(x.hi for x in brackets.values())
            if not (math.isfinite(b.hi) and b.lo < top and b.hi - b.lo > rtol * b.hi):
                continue  # (settled, or it cannot bind: another side is unsafe below its sound end)
            target, upper = live[name]
            grid = grid or CellGrid(model, tc, _plan(model, tc, BALL_CELLS)[0], reach=BALL_REACH)
            side = CellSide(model, tc, target, upper, rtol, None)
            side.lo, side.at_lo = b.lo, b.bound
            if b.witness is not None:  # (the first secant step takes the witness' slope)
                side.slope_of(b.witness, b.hi)
            first = math.sqrt(b.lo * b.hi) if b.lo > 0 else b.hi / 2
            side.crossing(grid, first=first, lps=BALL_LPS, shrink=rtol / 8, stop=b.hi * (1 - rtol))
            b.lps += side.lps
            if side.lo > b.lo:
                b.lo, b.bound = side.lo, side.at_lo
    except BudgetExhausted:
        for b in brackets.values():
            b.cut_short = True
    return brackets


def witness_root(w, target: float, upper: bool, e0: float, rtol: float) -> float:
    """Smallest epsilon found at which the witness ``w`` crosses ``target`` (its posterior is
    monotone in epsilon): secant steps on the logit from ``e0``, every returned value checked
    (``inf`` if none is found below 1e3 * e0; :func:`garesearch._roots.secant_crossing`)."""
    # (about 8000 levels: a slightly looser bound than the default, as sound)
    return secant_crossing(lambda e: w.posterior(e, levels=4001 if upper else 8001), target, upper, e0, rtol)


class CellSide:
    """Certified bracket of one side from cell relaxations (the sound end) and ridge or pyramid
    witnesses (the other end)."""

    def __init__(self, model, tc, target, upper, rtol, eps0):
        self.model, self.tc, self.target, self.upper, self.rtol = model, tc, target, upper, rtol
        self.scale = model_scale(model)
        self.lo, self.hi, self.wit, self.lps, self.at_lo = 0.0, math.inf, None, 0, math.nan
        self.trial = eps0 if eps0 and math.isfinite(eps0) and eps0 > 0 else 1.0 / self.scale
        self.size: dict = {}
        self.last = None  # (grid, eps, loga) of the last LP
        self.slope = None  # d logit(bound) / d log(eps), from the last secant
        self.cut_short = False  # the wall-clock cap stopped the schedule
        self.solved: dict = {}  # (grid, eps) -> an LP's result not yet used (:meth:`better`)

    def _safe(self, bound: float) -> bool:
        return bound <= self.target if self.upper else bound >= self.target

    def lp(self, grid: CellGrid, eps: float) -> float:
        """One relaxation LP; the sound end moves to ``eps`` if the bound holds there."""
        bound, loga = self.solved.pop((id(grid), eps), None) or grid.solve(eps, self.upper)
        self.lps += 1
        self.size = {"cells": grid.n, "shape": list(grid.shape)}
        self.last = (grid, eps, loga)
        if self._safe(bound) and eps > self.lo:
            self.lo, self.at_lo = eps, bound
        return bound

    def slope_of(self, w, eps: float) -> None:
        """Take the slope of the logit of witness ``w``'s posterior against log epsilon just
        below ``eps`` (over a factor 1.05) for the secant's first step (``None`` if flat)."""
        y1, y0 = clamped_logit(w.posterior(eps)), clamped_logit(w.posterior(eps / 1.05))
        self.slope = (y1 - y0) / math.log(1.05) if y1 != y0 else None

    def better(self, whole: CellGrid, compact: CellGrid, eps: float):
        """Of two grids, the one whose bound at ``eps`` is the tighter (``whole`` on a tie),
        and ``"compact"`` or ``False`` for it; its LP is kept for the next :meth:`lp` there.
        A compact box (:func:`compact_grid`) gains where one coordinate's prior is wide on
        the scale of ``1 / eps`` (age and salary) and loses where the prior beyond it counts
        along both (two standard normal attributes)."""
        self.lps += 1  # (the other LP)
        out = {g: g.solve(eps, self.upper) for g in (whole, compact)}
        b_w, b_c = out[whole][0], out[compact][0]
        g = compact if (b_c < b_w if self.upper else b_c > b_w) else whole
        self.solved = {(id(g), eps): out[g]}
        return g, ("compact" if g is compact else False)

    def crossing(self, grid: CellGrid, first: float | None = None, lps: int = 6,
                 shrink: float = 0.0, stop: float = math.inf, once: bool = False,
                 least_step: bool = False) -> float:
        """Secant search (logit of the bound against log epsilon) for the epsilon where
        ``grid``'s bound meets the target, at most ``lps`` LPs; the sound end moves with every
        certified trial.  Returns the last estimate.  ``shrink``: each trial goes that much
        (relative) below the estimate, so that it is likely certified; a single point steps by
        the last slope.  ``stop``: a sound end that is enough (the search ends once it is
        reached); ``once``: end at the first certified trial (a finer grid follows);
        ``least_step``: end where the next trial would be the least step above the sound end
        (``rtol / 16``)."""
        pts: list = []
        trial = first or self.trial
        up, est = math.inf, trial
        yt = clamped_logit(self.target)
        for _ in range(lps):
            b = self.lp(grid, trial)
            pts.append((trial, b))
            if not self._safe(b):
                up = min(up, trial)
            nxt = secant_logit_trial(pts, self.target)
            if nxt is not None and len(pts) >= 2:
                (e1, b1), (e2, b2) = pts[-2:]
                self.slope = (clamped_logit(b2) - clamped_logit(b1)) / (math.log(e2) - math.log(e1))
            elif self.slope and 0 < b < 1 and (self.slope > 0) == self.upper:
                nxt = trial * math.exp((yt - clamped_logit(b)) / self.slope)
            lo = self.lo
            if nxt is None or not (lo < nxt < up):
                nxt = math.sqrt(lo * up) if lo > 0 and math.isfinite(up) else (up / 2 if math.isfinite(up) else trial * 4)
            est = nxt
            if self.lo >= stop or (once and self._safe(b)):
                break
            if lo > 0 and nxt <= lo * (1 + self.rtol / 8):
                break
            new = nxt * (1 - shrink)
            if lo > 0 and least_step and new <= lo * (1 + self.rtol / 16):
                break  # (a trial at the least step would gain rtol / 16 at most)
            if lo > 0:
                new = max(new, lo * (1 + self.rtol / 16))
            if abs(new / trial - 1) < self.rtol / 16:
                break
            trial = new
        self.trial = est
        return est

    def witness(self, eps: float, fev: int = 300) -> None:
        """The best witness near ``eps``: ridges from the last LP's profile (``fev``
        evaluations of the Nelder-Mead search) and the best shifted pyramid; ``hi`` where the
        one that crosses first crosses the target."""
        from ._goal_pyramid import best_pyramid

        cands = [best_pyramid(self.model, self.tc, eps, self.upper)]
        if self.last is not None:
            grid, e, loga = self.last
            start = ridge_boxes(grid, loga, e, self.upper)
            if start is not None:
                cands.insert(0, best_ridges(self.model, self.tc, eps, start, self.upper, fev=fev))
        for w in cands:
            root = witness_root(w, self.target, self.upper, eps, self.rtol / 50)
            if root < self.hi:
                self.hi, self.wit = root, w

    def bracket(self):
        from ._certify import Bracket

        with uncapped():
            post = self.wit.posterior(self.hi) if self.wit is not None and math.isfinite(self.hi) else math.nan
        return Bracket(self.lo, self.hi, self.wit, post, self.lps, self.size, self.at_lo,
                       cut_short=self.cut_short)



#: cells of the grids, coarse to fine (the schedule takes those up to about 80 / rtol)
SIZES = (800, 3000, 7000, 16000, 36000)


def schedule(rtol: float, sizes=SIZES) -> tuple:
    """The grids of the work schedule for ``rtol``: the cell counts of ``sizes`` up to
    ``80 / rtol`` (the first always; 800, 3,000 and 7,000 cells at the default 1 %).  The
    relaxation's crossing converges about as the inverse of the number of cells, so a tenth
    of ``rtol`` takes about ten times the cells."""
    return tuple(n for k, n in enumerate(sizes) if k == 0 or n <= 80.0 / rtol)


def cell_sides(model, tc, targets, rtol, eps0, sizes=None):
    """Certified brackets of both sides (``targets``: name -> (target, upper)) by cell
    relaxations on grids of about ``sizes`` cells (default: :func:`schedule` of ``rtol``).
    Every side finds its crossing on the coarsest grid (at most 6 LPs); the side that
    crosses first gets its witness there (a Nelder-Mead search of 300 evaluations from the
    LP's profile, then at most 12 secant steps to its crossing).  Then, while the bracket is
    wider than ``rtol``, the side with the lower sound end moves to its next grid, starting
    where the crossings of its coarser grids extrapolate to (second order in the cell side),
    a little below (at most 3 LPs per grid, and one more at the point that would be enough).
    An AND of two numeric attributes (:func:`compact_applies`) takes its finer grids on a
    compact box (:func:`compact_grid`, its margin from the witness end) where, at the first
    finer grid, its bound at the first trial is the tighter one (the whole box on a tie); that
    grid's crossing also gets a second witness search.
    Every decision is on the computed bounds: the work depends on the arguments only.  Under
    a wall-clock cap the schedule stops where the cap runs out (the brackets so far,
    ``cut_short``)."""
    sizes = schedule(rtol) if sizes is None else tuple(sizes)
    sides = {n: CellSide(model, tc, tg, up, rtol, eps0) for n, (tg, up) in targets.items()}
    try:
        _cell_schedule(model, tc, sides, rtol, sizes)
    except BudgetExhausted:
        for side in sides.values():
            side.cut_short = True
    return {n: s.bracket() for n, s in sides.items()}


def _cell_schedule(model, tc, sides, rtol, sizes):
    grids: dict = {}
    # (an AND: True until the first finer grid decides between the whole box and a compact
    # one, "compact" or False after)
    compact = compact_applies(model)

    def grid(k):
        if k not in grids:
            grids[k] = compact_grid(model, tc, sizes[k], ref()) if compact == "compact" and k > 0 \
                else cell_grid(model, tc, sizes[k])
        return grids[k]

    def ref():  # (the compact box's epsilon: the witness end, else the first crossing found)
        e = min(s.hi for s in sides.values())
        return e if math.isfinite(e) else min(f[0][1] for f in found.values())

    level = dict.fromkeys(sides, 0)
    found: dict = {n: [] for n in sides}  # (cell side, crossing estimate, kind of grid) per grid
    for n, side in sides.items():
        g = grid(0)
        found[n].append((float(g.steps.max()), side.crossing(g), type(g)))
    # the witness of the side whose crossing comes first, then of the others whose crossing
    # lies below it (they may bind)
    first_n = min(sides, key=lambda n: found[n][-1][1])
    sides[first_n].witness(found[first_n][-1][1])
    for n in sides:
        if n != first_n and found[n][-1][1] < found[first_n][-1][1]:
            sides[n].witness(found[n][-1][1])
    tried: set = set()
    while True:
        hi = min(s.hi for s in sides.values())
        n = min(sides, key=lambda n: sides[n].lo)
        side = sides[n]
        if not math.isfinite(hi) or hi - side.lo <= rtol * hi:
            break
        # enough: beyond the others' sound end this side no longer binds, and beyond
        # hi (1 - 0.8 rtol) the bracket is narrow enough.  Try there on this side's grid first,
        # if that grid's crossing lies beyond it
        enough = min([s.lo for m, s in sides.items() if m != n] + [hi * (1 - 0.8 * rtol)])
        if (level[n] > 0 and (n, level[n]) not in tried and side.lo < enough
                and found[n][-1][1] >= enough * (1 + rtol / 16)):
            tried.add((n, level[n]))
            side.lp(grid(level[n]), enough)
            continue
        k = level[n] + 1
        if k >= len(sizes):
            break
        g = grid(k)
        h = float(g.steps.max())
        pick = compact is True and k == 1
        # the crossings converge to about second order in the cell side: extrapolate from the
        # last two grids (from the last one towards the witness end at first)
        (h1, c1, kind) = found[n][-1]
        two = len(found[n]) >= 2 and found[n][-2][0] > h1 and found[n][-2][2] is kind is type(g)
        if two:
            h0, c0, _ = found[n][-2]
            lim = c1 + (c1 - c0) * h1 ** 2 / (h0 ** 2 - h1 ** 2)
        else:
            lim = hi
        first = lim - (lim - c1) * (h / h1) ** 2
        # a little below (a failed trial costs a second LP), and no higher than the bracket needs
        # (a compact box's first grid after one of its own: no higher than enough)
        cap = hi * (1 - 0.8 * rtol) if isinstance(g, BoxedGrid) and kind is type(g) and not two else hi * (1 - rtol / 2)
        # (on the last grid, where the trial a little below would not be enough but the
        # extrapolated crossing lies within rtol / 4 of the point that would be: the trial at
        # that point, so that one LP on the largest grid can end the schedule; the
        # extrapolation tends to fall short, the relaxation converging more slowly than second
        # order near a prior's kinks)
        at_rtol = hi * (1 - rtol) * (1 + rtol / 16)
        last = k + 1 == len(sizes)
        first = at_rtol if last and first * (1 - rtol / 3) < at_rtol <= first * (1 + rtol / 4) else first * (1 - rtol / 3)
        first = max(min(first, cap), side.lo * (1 + rtol / 16))
        if pick:  # (an AND: the compact box from here on if its bound is the better one at first)
            g, compact = side.better(g, compact_grid(model, tc, sizes[k], ref()), first)
            grids[k], h = g, float(g.steps.max())
        est = side.crossing(g, first=first, lps=3, shrink=rtol / 8, stop=hi * (1 - rtol),
                            once=not last, least_step=last)
        found[n].append((h, est, type(g)))
        level[n] = k
        if k == 1 and min(s.hi for s in sides.values()) - side.lo > rtol * side.hi:
            side.witness(est)  # (again, nearer the crossing than the coarsest grid's)
