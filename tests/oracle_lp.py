r"""A test-side LP oracle for the largest safe epsilon on a finite prior (beyond the paper).

This module is part of the test suite, not of the package: it computes the worst-case
posteriors and the optimal epsilon straight from their definition as a linear program, so that
the package's own construction can be compared with it.

The problem
-----------
A finite prior puts mass :math:`p_i > 0` on points :math:`x_1, \dots, x_n` of a metric space
:math:`(X, d)`.  An output :math:`y` of an :math:`\epsilon`-DP mechanism has a likelihood
:math:`L_i = f(y \mid x_i)` with :math:`L_i \ge 0` and
:math:`L_i \le e^{\epsilon d(x_i, x_j)} L_j`, and every such :math:`L \ne 0` is, up to scale, the
likelihood of an output of some :math:`\epsilon`-DP mechanism.  For a set :math:`S` of correct
guesses the attacker's posterior is :math:`\sum_S p_i L_i / \sum_i p_i L_i`; by the
Charnes--Cooper transform its supremum (infimum) over feasible :math:`L` is the LP

.. math::

    \max (\min) \sum_{i \in S} p_i v_i \quad\text{s.t.}\quad \sum_i p_i v_i = 1,\;
    v \ge 0,\; v_i - e^{\epsilon d_{ij}} v_j \le 0 .

The optimal epsilon for ``delta`` is the supremum of the :math:`\epsilon` at which, for every
true value considered, ``sup - p_S <= delta`` and (``sides="both"``) ``p_S - inf <= delta``.

How the oracle computes it
--------------------------
1. **HiGHS** (``scipy.optimize.linprog``, dual simplex, tolerances 1e-10) solves the LP in
   rescaled variables :math:`v_i = e^{\omega_i} u_i`, with :math:`\omega` a reference
   log-likelihood (first the McShane extension :math:`-\epsilon d(x_i, S)`, then the last
   vertex found), so that :math:`u = O(1)` near the optimum.  HiGHS's tolerances are
   absolute, so the objective is scaled to O(1), and a posterior near 1 is maximised as "the
   rest's posterior minimised".  Points at distance 0 are merged (their likelihoods are
   forced equal), and constraints implied by the triangle inequality are dropped (on the
   real line only neighbours remain).
2. **Basis.**  Every feasible :math:`v` is positive (one zero forces all zeros), so a vertex
   is fixed by :math:`n - 1` tight constraints :math:`v_i = e^{\epsilon d_{ij}} v_j` forming
   a spanning tree: :math:`\log v_i = \epsilon D_i + c`, with :math:`D_i` a signed sum of
   distances along the tree, independent of :math:`\epsilon`.  The tree is read off
   HiGHS's solution (non-zero duals first, then the smallest slacks; values below HiGHS's
   resolution are placed as low as the resolved ones allow).
3. **Certify, and pivot where needed, in exact terms.**  Primal feasibility: every pair,
   screened in floats, near-tight reduced pairs decided in mpmath (``dps`` digits, default 50).
   Dual feasibility: removing a tree edge splits the points into a part P and the rest R, and
   the edge's LP multiplier has the sign of :math:`\pm(C_P/A_P - C_R/A_R)` (objective mass
   over total mass of each side; + when P holds the edge's tail).  These sums use positive
   terms only and the smaller of the two posteriors, so the signs stay right when a part
   weighs :math:`e^{-300}` of the rest (HiGHS cannot see such parts; they decide between
   far-apart vertices once :math:`\epsilon \cdot` diameter is large).  A negative sign means the
   part can be shifted to raise the objective: the oracle pivots (a network-simplex step:
   the part moves until another constraint is tight, ratio test exact), first with signs
   taken in floats (log space), then until the mpmath signs are all non-negative.  A vertex
   with every multiplier >= 0 is optimal by LP duality.  Multipliers that are zero to
   working precision are counted (``ties``; they occur at degenerate vertices).
4. **Optimal epsilon.**  Feasibility of a tree vertex does not depend on :math:`\epsilon`, so
   the worst posterior is the envelope of the finitely many smooth functions
   :math:`\epsilon \mapsto \sum_B p_i e^{\epsilon D_i} / \sum p_i e^{\epsilon D_i}`.  Every
   condition reads "inf post(B) >= p_B - delta" (B the complement of the ball for the upper
   side, the ball for the lower side).  For each, the oracle brackets the crossing, finds in
   mpmath where the optimal vertex at the bracket's top crosses, certifies the optimum there,
   and repeats with the new optimal vertex until the two agree; it then checks that the
   condition fails just above the root, at :math:`\epsilon (1 + 10^{-dps/2})`.  Conditions
   whose crossing lies above the best so far are skipped after one LP.

The check that these steps are right lives in ``tests/test_oracle_lp.py``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.optimize import linprog

__all__ = [
    "DPS",
    "ORACLE_SETTINGS",
    "Extreme",
    "FinitePrior",
    "OptimalEpsilon",
    "ball_mask",
    "distances",
    "finite_priors",
    "highs_posterior_extremes",
    "lp_extreme",
    "lp_optimal_epsilon",
    "lp_optimal_epsilon_details",
    "lp_posterior_extremes",
]

#: working precision of the polish and of the root finding (decimal digits)
DPS = 50

#: a bounded hypothesis profile for comparison tests against this oracle
ORACLE_SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

_HIGHS_OPTIONS = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
    "presolve": True,
}
_MAX_EXPONENT = 25.0  # scaled constraint coefficients are clipped at e^25 (a restriction)


# --- the finite metric space ----------------------------------------------------------------
class _Space:
    """Points merged at distance 0 ("nodes"), their masses and distances (float and mpmath)."""

    def __init__(self, points: Any, probs: Any, metric: Any, dps: int):
        p = np.asarray(probs, dtype=float)
        if p.ndim != 1 or p.size < 1:
            raise ValueError(f"probs must be a non-empty 1-d array; got shape {p.shape}")
        if not np.all(np.isfinite(p)) or np.any(p <= 0):
            raise ValueError("probs must be finite and > 0")
        if abs(math.fsum(p) - 1) > 1e-9:
            raise ValueError(f"probs must sum to 1 (within 1e-9); they sum to {math.fsum(p)!r}")
        self.dps = dps
        self.probs = p
        m = p.size
        self.metric = metric
        if isinstance(metric, str) and metric == "absolute":
            x = np.asarray(points, dtype=float)
            if x.shape != (m,) or not np.all(np.isfinite(x)):
                raise ValueError("points must be m finite numbers for metric='absolute'")
            self.kind = "absolute"
            self.values, node_of = np.unique(x, return_inverse=True)
            u = self.values
            self.dist = np.abs(u[:, None] - u[None, :])
            self._coords = [[mpmath.mpf(float(v))] for v in u]
        elif isinstance(metric, str) and metric == "discrete":
            labels = list(points)
            if len(labels) != m:
                raise ValueError("points and probs must have the same length")
            self.kind = "discrete"
            index: dict[Any, int] = {}
            node_of = np.array([index.setdefault(lab, len(index)) for lab in labels])
            self.values = list(index)
            k = len(index)
            self.dist = 1.0 - np.eye(k)
        elif isinstance(metric, tuple) and len(metric) == 2 and metric[0] == "lp":
            order = float(metric[1])
            if not order >= 1:
                raise ValueError(f"the lp metric needs p >= 1; got {metric[1]!r}")
            x = np.asarray(points, dtype=float)
            if x.ndim == 1:
                x = x[:, None]
            if x.ndim != 2 or x.shape[0] != m or not np.all(np.isfinite(x)):
                raise ValueError("points must be an (m, k) array of finite numbers for ('lp', p)")
            self.kind = "lp"
            self.order = order
            self.values, node_of = np.unique(x, axis=0, return_inverse=True)
            node_of = np.asarray(node_of).reshape(-1)
            u = self.values
            self.dist = np.linalg.norm(u[:, None, :] - u[None, :, :], ord=order, axis=-1)
            self._coords = [[mpmath.mpf(float(c)) for c in row] for row in u]
        else:
            dm = np.asarray(metric, dtype=float)
            if dm.shape != (m, m):
                raise ValueError(
                    "metric must be 'absolute', 'discrete', ('lp', p) or an (m, m) distance matrix"
                )
            if not (np.all(np.isfinite(dm)) and np.all(dm >= 0) and np.all(np.diag(dm) == 0)):
                raise ValueError("a distance matrix needs finite entries >= 0 and a zero diagonal")
            if not np.array_equal(dm, dm.T):
                raise ValueError("a distance matrix must be symmetric")
            viol = dm[:, None, :] - (dm[:, :, None] + dm[None, :, :])  # d_ij - d_ik - d_kj
            if np.max(viol) > 1e-12 * max(1.0, float(dm.max())):
                raise ValueError("the distance matrix violates the triangle inequality")
            self.kind = "matrix"
            self._matrix = dm
            node_of = -np.ones(m, dtype=int)
            reps = []
            for i in range(m):
                if node_of[i] < 0:
                    same = np.flatnonzero((dm[i] == 0) & (node_of < 0))
                    node_of[same] = len(reps)
                    reps.append(i)
            self.values = reps  # the original index representing each node
            self.dist = dm[np.ix_(reps, reps)]
        self.node_of = np.asarray(node_of, dtype=int)
        self.n = int(self.node_of.max()) + 1
        with mpmath.workdps(dps):
            pm = [mpmath.mpf(float(v)) for v in p]
            total = mpmath.fsum(pm)
            self.p_mp = [v / total for v in pm]
            a = [mpmath.mpf(0)] * self.n
            for i, k in enumerate(self.node_of):
                a[k] += self.p_mp[i]
            self.a_mp = a
        self.a = np.array([float(v) for v in self.a_mp])
        self._dcache: dict[tuple[int, int], Any] = {}

    def dmp(self, i: int, j: int):
        """The distance between nodes i and j in mpmath (at the current working precision)."""
        key = (i, j) if i < j else (j, i)
        hit = self._dcache.get(key)
        if hit is not None:
            return hit
        if i == j:
            val = mpmath.mpf(0)
        elif self.kind == "discrete":
            val = mpmath.mpf(1)
        elif self.kind == "matrix":
            val = mpmath.mpf(float(self._matrix[self.values[i], self.values[j]]))
        else:
            a, b = self._coords[i], self._coords[j]
            diffs = [abs(u - v) for u, v in zip(a, b, strict=True)]
            if self.kind == "absolute" or len(diffs) == 1:
                val = diffs[0]
            elif self.order == 1:
                val = mpmath.fsum(diffs)
            elif math.isinf(self.order):
                val = max(diffs)
            else:
                q = mpmath.mpf(self.order)
                val = mpmath.fsum(dd**q for dd in diffs) ** (1 / q)
        self._dcache[key] = val
        return val

    def edges(self, reduce: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Directed constraints (i, j): v_i <= exp(eps d_ij) v_j, all pairs or a reduced set.

        The reduced set drops (i, j) when some k has d_ik + d_kj <= d_ij (then the constraint
        follows from (i, k) and (k, j)); on the real line that leaves neighbours only.  The
        certificate always checks all pairs, so a float rounding here cannot go unnoticed.
        """
        cache = self.__dict__.setdefault("_edges", {})
        if reduce not in cache:
            cache[reduce] = self._make_edges(reduce)
        return cache[reduce]

    def _make_edges(self, reduce: bool) -> tuple[np.ndarray, np.ndarray]:
        n = self.n
        if n == 1:
            return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
        if reduce and self.kind == "absolute":
            i = np.arange(n - 1)  # nodes are sorted by value
            return np.concatenate([i, i + 1]), np.concatenate([i + 1, i])
        keep = ~np.eye(n, dtype=bool)
        if reduce and self.kind in ("lp", "matrix"):
            d = self.dist
            for k in range(n):
                implied = d[:, k][:, None] + d[k, :][None, :] <= d
                implied[k, :] = False
                implied[:, k] = False
                keep &= ~implied
        i, j = np.nonzero(keep)
        return i, j

    def reduced_mask(self) -> np.ndarray:
        """(n, n) boolean: the pairs of the reduced constraint set (see :meth:`edges`)."""
        if getattr(self, "_reduced", None) is None:
            mask = np.zeros((self.n, self.n), dtype=bool)
            i, j = self.edges(True)
            mask[i, j] = True
            self._reduced = mask
        return self._reduced

    def nodes_inside(self, mask: Any) -> np.ndarray:
        """Per-node boolean from a per-point mask (a node must be all in or all out)."""
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != self.probs.shape:
            raise ValueError("inside must be a boolean mask over the points")
        node_in = np.zeros(self.n, dtype=bool)
        node_out = np.zeros(self.n, dtype=bool)
        node_in[self.node_of[mask]] = True
        node_out[self.node_of[~mask]] = True
        if np.any(node_in & node_out):
            raise ValueError("points at distance 0 must be all inside or all outside")
        return node_in

    def ball(self, t: Any, r: float) -> np.ndarray:
        """Per-node mask of the closed ball {x : d(x, t) <= r}, compared exactly where possible.

        'absolute', ('lp', 1), ('lp', 2), ('lp', inf): exact rational comparison of the given
        floats; ('lp', p) otherwise: float norms; a distance matrix: its entries (t is then a
        point index); 'discrete': t's own value for r < 1, everything for r >= 1.
        """
        if self.kind == "discrete":
            if r >= 1:
                return np.ones(self.n, dtype=bool)
            return np.array([v == t for v in self.values], dtype=bool)
        if self.kind == "matrix":
            ti = int(t)
            if not 0 <= ti < self.probs.size:
                raise ValueError("t must be a point index when the metric is a distance matrix")
            return self._matrix[self.values, ti] <= r
        rr = Fraction(float(r))
        if self.kind == "absolute":
            tt = Fraction(float(t))
            return np.array([abs(Fraction(float(v)) - tt) <= rr for v in self.values])
        tv = np.asarray(t, dtype=float).reshape(-1)
        if tv.size != self.values.shape[1]:
            raise ValueError("t must have the points' dimension")
        if self.order in (1.0, 2.0) or math.isinf(self.order):
            tf = [Fraction(float(c)) for c in tv]
            out = []
            for row in self.values:
                diffs = [abs(Fraction(float(c)) - s) for c, s in zip(row, tf, strict=True)]
                if self.order == 1.0:
                    out.append(sum(diffs) <= rr)
                elif self.order == 2.0:
                    out.append(sum(dd * dd for dd in diffs) <= rr * rr)
                else:
                    out.append(max(diffs) <= rr)
            return np.array(out, dtype=bool)
        return np.linalg.norm(self.values - tv[None, :], ord=self.order, axis=1) <= r

    def support(self) -> list:
        """One true value per node: the value (absolute, discrete, lp) or point index (matrix)."""
        if self.kind in ("discrete", "matrix"):
            return list(self.values)
        return [self.values[k] for k in range(self.n)]


def distances(points: Any, metric: Any = "absolute") -> np.ndarray:
    """The (m, m) float distance matrix of the points under ``metric`` (a test helper)."""
    m = len(points) if not isinstance(points, np.ndarray) else points.shape[0]
    space = _Space(points, np.full(m, 1.0 / m), metric, DPS)
    return space.dist[np.ix_(space.node_of, space.node_of)]


def ball_mask(points: Any, t: Any, r: float, metric: Any = "absolute") -> np.ndarray:
    """Per-point mask of the closed ball of radius ``r`` around ``t`` (see :meth:`_Space.ball`)."""
    m = len(points) if not isinstance(points, np.ndarray) else points.shape[0]
    space = _Space(points, np.full(m, 1.0 / m), metric, DPS)
    return space.ball(t, r)[space.node_of]


# --- a vertex: a spanning tree of tight constraints ---------------------------------------------
class _Tree:
    """The vertex whose tight constraints are ``edges``: log v_i = eps * D_i + const.

    An edge (i, j) is tight when v_i = exp(eps d_ij) v_j, i.e. D_i = D_j + d_ij.  ``D`` holds
    the potentials in mpmath (the current working precision), ``Df`` in floats.
    """

    def __init__(self, space: _Space, edges: Sequence[tuple[int, int]]):
        n = space.n
        self.edges = [(int(i), int(j)) for i, j in edges]
        if len(self.edges) != n - 1:
            raise ValueError("a spanning tree needs n - 1 edges")
        adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for idx, (i, j) in enumerate(self.edges):
            adj[i].append((j, idx))
            adj[j].append((i, idx))
        parent = [-1] * n
        pedge = [-1] * n
        seen = [False] * n
        seen[0] = True
        order = [0]
        D = [None] * n
        D[0] = mpmath.mpf(0)
        pos = 0
        while pos < len(order):
            k = order[pos]
            pos += 1
            for m, idx in adj[k]:
                if not seen[m]:
                    seen[m] = True
                    parent[m] = k
                    pedge[m] = idx
                    order.append(m)
                    i, j = self.edges[idx]
                    dd = space.dmp(i, j)
                    D[m] = D[k] + dd if m == i else D[k] - dd
        if len(order) != n:
            raise ValueError("the tight constraints do not connect all points")
        self.parent, self.pedge, self.order, self.D = parent, pedge, order, D
        self.Df = np.array([float(v) for v in D])
        self.children: list[list[int]] = [[] for _ in range(n)]
        for k in order[1:]:
            self.children[parent[k]].append(k)

    def key(self) -> frozenset:
        return frozenset(self.edges)

    def subtree(self, k: int) -> np.ndarray:
        inside = np.zeros(len(self.order), dtype=bool)
        for m in self.order:
            inside[m] = m == k or (self.parent[m] >= 0 and inside[self.parent[m]])
        return inside

    def violations(self, space: _Space, tol) -> list[tuple[int, int]]:
        """Pairs (i, j) with D_i - D_j > d_ij + tol, i.e. this vertex is not feasible.

        Every pair is screened in floats; pairs within 1e-9 (relative) of tight are decided in
        mpmath when they are among the reduced constraints (every other constraint follows
        from those by the triangle inequality).  With the discrete metric the potentials are
        integers and the float check is exact.
        """
        Df = self.Df
        scale = 1.0 + float(np.max(np.abs(Df))) + float(np.max(space.dist))
        slack = space.dist - (Df[:, None] - Df[None, :])
        np.fill_diagonal(slack, np.inf)
        if space.kind == "discrete":
            return [(int(i), int(j)) for i, j in zip(*np.nonzero(slack < -0.5), strict=True)]
        out = [(int(i), int(j)) for i, j in zip(*np.nonzero(slack < -1e-9 * scale), strict=True)]
        near = (slack < 1e-9 * scale) & (slack >= -1e-9 * scale) & space.reduced_mask()
        for i, j in zip(*np.nonzero(near), strict=True):
            if self.D[i] - self.D[j] - space.dmp(i, j) > tol:
                out.append((int(i), int(j)))
        return out


def _lae(x: float, y: float) -> float:
    """log(e^x + e^y), -inf allowed."""
    if x < y:
        x, y = y, x
    if y == -math.inf:
        return x
    return x + math.log1p(math.exp(y - x))


@dataclass
class _Certificate:
    value: Any  # objective posterior (mpf, or float in the float pass)
    complement: Any  # 1 - value, summed directly
    violators: list  # (node, relative size): the node's parent edge has a negative multiplier
    ties: int  # multipliers that are zero to working precision (degenerate vertex)
    near_ties: int  # ... of which the two parts' ratios were not exactly equal


def _part_sums(tree: _Tree, w: list, x: list, add, zero):
    """Sums of w and x over each node's subtree and over the rest, adding positive terms only."""
    n = len(w)
    asub, xsub = list(w), list(x)
    for k in reversed(tree.order[1:]):
        p = tree.parent[k]
        asub[p] = add(asub[p], asub[k])
        xsub[p] = add(xsub[p], xsub[k])
    arest, xrest = [zero] * n, [zero] * n
    for p in tree.order:
        kids = tree.children[p]
        m = len(kids)
        pre_a, pre_x = [zero] * (m + 1), [zero] * (m + 1)
        for idx, kk in enumerate(kids):
            pre_a[idx + 1] = add(pre_a[idx], asub[kk])
            pre_x[idx + 1] = add(pre_x[idx], xsub[kk])
        suf_a, suf_x = zero, zero
        for idx in range(m - 1, -1, -1):
            kk = kids[idx]
            arest[kk] = add(add(arest[p], w[p]), add(pre_a[idx], suf_a))
            xrest[kk] = add(add(xrest[p], x[p]), add(pre_x[idx], suf_x))
            suf_a = add(suf_a, asub[kk])
            suf_x = add(suf_x, xsub[kk])
    return asub, xsub, arest, xrest


def _certify(space: _Space, tree: _Tree, inside: np.ndarray, eps, exact: bool) -> _Certificate:
    """Value of the tree vertex for maximising the posterior of ``inside``, and its dual signs.

    Removing tree edge e = (i, j) splits the points into the part P below e and the rest R.
    With C, A the objective and total masses at the vertex, the dual multiplier of e has the
    sign of +-(C_P / A_P - C_R / A_R), + when P holds the tail i (shifting P in the allowed
    direction changes the posterior at that rate).  P's and R's sums are accumulated from
    positive terms only (no subtraction), and the ratios are compared in whichever measure
    (C or A - C) is the smaller posterior, so the sign is right up to relative rounding even
    when one part weighs e^-300 of the other.  ``exact=False`` does this in floats, in log
    space (fast; for the pivots), ``exact=True`` in mpmath.
    """
    if exact:
        ell = [eps * d for d in tree.D]
        top = max(ell)
        w = [ak * mpmath.exp(x_ - top) for ak, x_ in zip(space.a_mp, ell, strict=True)]
        zero = mpmath.mpf(0)
        wc = [wk if s else zero for wk, s in zip(w, inside, strict=True)]
        wo = [zero if s else wk for wk, s in zip(w, inside, strict=True)]
        A = mpmath.fsum(w)
        lam, comp = mpmath.fsum(wc) / A, mpmath.fsum(wo) / A
        use_out = comp < lam
        asub, xsub, arest, xrest = _part_sums(tree, w, wo if use_out else wc, _add, zero)
        tol = mpmath.mpf(10) ** (-(space.dps - 10))
    else:
        lw = (np.log(space.a) + float(eps) * tree.Df).tolist()
        ninf = -math.inf
        lc = [v if s else ninf for v, s in zip(lw, inside, strict=True)]
        lo = [ninf if s else v for v, s in zip(lw, inside, strict=True)]
        top = max(lw)
        LA = top + math.log(math.fsum(math.exp(v - top) for v in lw))
        lam = math.fsum(math.exp(v - LA) for v in lc)
        comp = math.fsum(math.exp(v - LA) for v in lo)
        use_out = comp < lam
        asub, xsub, arest, xrest = _part_sums(tree, lw, lo if use_out else lc, _lae, ninf)
    violators, ties, near = [], 0, 0
    for k in tree.order[1:]:
        i, _ = tree.edges[tree.pedge[k]]
        if exact:
            p1, p2 = xsub[k] * arest[k], xrest[k] * asub[k]
            big = max(p1, p2)
            rel = abs(p1 - p2) / big if big > 0 else 0
            tie = rel <= tol
            nonzero = big > 0 and p1 != p2
        else:
            p1, p2 = xsub[k] + arest[k], xrest[k] + asub[k]
            rel = 0.0 if p1 == p2 else -math.expm1(-abs(p1 - p2))
            tie = rel <= 1e-10
            nonzero = p1 != p2
        if tie:
            ties += 1
            near += bool(nonzero)
            continue
        diff = (p1 > p2) != use_out  # True: C_P / A_P > C_R / A_R
        if (diff if i == k else not diff) is False:
            violators.append((k, rel))
    return _Certificate(lam, comp, violators, ties, near)


def _add(x, y):
    return x + y


def _pivot(space: _Space, tree: _Tree, k: int, bland: bool = False) -> list[tuple[int, int]]:
    """Drop the parent edge of k and shift k's subtree until another constraint is tight.

    The objective is monotone in the shift (a ratio of two functions linear in e^shift), so the
    full step is the best along this direction.  The ratio test screens all pairs in floats and
    decides near-ties in mpmath; with ``bland``, exact ties go to the smallest constraint index
    (anti-cycling).
    """
    i, _ = tree.edges[tree.pedge[k]]
    inside = tree.subtree(k)
    sub = np.flatnonzero(inside)
    rest = np.flatnonzero(~inside)
    Df = tree.Df
    if i == k:  # the subtree holds the tail: it moves down; constraints (rest -> sub) tighten
        tails, heads = rest, sub
    else:  # it holds the head: it moves up; constraints (sub -> rest) tighten
        tails, heads = sub, rest
    # the first constraint to become tight can be taken among the reduced ones: if (t, h)
    # follows from (t, m) and (m, h) and becomes tight, so do both, and one of them crosses
    slack = space.dist[np.ix_(tails, heads)] - (Df[tails][:, None] - Df[heads][None, :])
    slack[~space.reduced_mask()[np.ix_(tails, heads)]] = np.inf
    scale = 1.0 + float(np.max(np.abs(Df))) + float(np.max(space.dist))
    cand = np.argwhere(slack <= slack.min() + 1e-9 * scale)
    exact = []
    for r_, c_ in cand:
        ti, hj = int(tails[r_]), int(heads[c_])
        exact.append((space.dmp(ti, hj) - (tree.D[ti] - tree.D[hj]), ti * space.n + hj, (ti, hj)))
    smin = min(s for s, _, _ in exact)
    tie = mpmath.mpf(10) ** (-(space.dps - 10)) * scale
    if bland:
        best = min((idx, ij) for s, idx, ij in exact if s <= smin + tie)[1]
    else:
        best = min(exact, key=lambda x_: x_[0])[2]
    edges = list(tree.edges)
    edges[tree.pedge[k]] = best
    return edges


# --- HiGHS: the LP itself ----------------------------------------------------------------------
def _highs(space, frac, eps, edges, omega=None, options=None):
    """Solve max sum frac_k a_k v_k s.t. sum a v = 1, v_i <= e^{eps d_ij} v_j with HiGHS.

    Variables are scaled, v = exp(omega) u, with omega a reference log-likelihood (by default
    the McShane extension -eps d(x, S) of the objective's points), so that u = O(1) near the
    optimum.  HiGHS's tolerances are absolute, so the objective is scaled to be O(1) at the
    reference, and when the objective's posterior is near 1 the equivalent problem
    "minimise the posterior of the rest" is solved instead.  Returns (log v, the constraint
    marginals, whether every u was above HiGHS's resolution).
    """
    n = space.n
    a = space.a
    ti, hj = edges
    if omega is None:
        target = frac > 0
        omega = -eps * space.dist[:, target].min(axis=1)
    lq = np.log(a) + omega
    top = lq.max()
    shift = top + math.log(math.fsum(np.exp(lq - top)))
    omega = omega - shift
    q = np.exp(lq - shift)  # posterior masses at the reference point
    qin = math.fsum(frac * q)
    qout = math.fsum((1 - frac) * q)
    if qout < qin:  # minimise the rest's posterior, scaled to O(1)
        cost = (1 - frac) * q / max(qout, 1e-300)
    else:
        cost = -frac * q / max(qin, 1e-300)
    # HiGHS drops matrix entries below 1e-9: masses below 1e-8 are raised to 1e-8 in the
    # normalisation row (which only sets the scale); the exact polish uses the true masses
    qrow = np.maximum(q, 1e-8)
    expo = np.minimum(eps * space.dist[ti, hj] - omega[ti] + omega[hj], _MAX_EXPONENT)
    rows = np.arange(ti.size)
    A_ub = sparse.csr_matrix(
        (np.concatenate([np.ones(ti.size), -np.exp(expo)]), (np.concatenate([rows, rows]),
                                                             np.concatenate([ti, hj]))),
        shape=(ti.size, n),
    )
    res = linprog(
        cost,
        A_ub=A_ub,
        b_ub=np.zeros(ti.size),
        A_eq=qrow[None, :],
        b_eq=[1.0],
        bounds=(0, None),
        method="highs-ds",
        options=options if options is not None else _HIGHS_OPTIONS,
    )
    if res.status != 0:
        return None
    u = np.asarray(res.x)
    good = u >= 1e-6 * u.max()
    ell = omega + np.log(np.maximum(u, 1e-300))
    if not good.all():
        # u below ~1e-6 is lost in HiGHS's absolute tolerances: place those points as low as
        # the reliable ones allow (a guess that the exact pivots below correct if wrong)
        ell = np.where(good, ell, np.max(ell[good][None, :] - eps * space.dist[:, good], axis=1))
    return ell, np.asarray(res.ineqlin.marginals), good.all()


def _highs_cuts(space, frac, eps, edges, omega, count):
    """:func:`_highs` on a dense constraint set by constraint generation.

    With more than 16 n constraints (the discrete metric, points in the plane), HiGHS first gets
    each point's 6 nearest partners, then the violated constraints of the full set are added
    until none is violated (all of them after 8 rounds).  Returns (_highs's result, the
    constraints it used).
    """
    ti, hj = edges
    n = space.n
    if ti.size <= 16 * n:
        return _highs(space, frac, eps, edges, omega=omega), edges
    full = np.zeros((n, n), dtype=bool)
    full[ti, hj] = True
    near = np.argsort(np.where(full, space.dist, np.inf), axis=1, kind="stable")[:, :6]
    active = np.zeros((n, n), dtype=bool)
    active[np.repeat(np.arange(n), near.shape[1]), near.ravel()] = True
    active = (active | active.T) & full
    for _ in range(8):
        used = np.nonzero(active)
        out = _highs(space, frac, eps, used, omega=omega)
        if out is None:
            return None, used
        ell = out[0]
        slack = eps * space.dist - (ell[:, None] - ell[None, :])
        viol = full & ~active & (slack < -1e-9 * (1 + eps * space.dist))
        if not viol.any():
            return out, used
        count("cuts")
        active |= viol
    used = np.nonzero(full)
    return _highs(space, frac, eps, used, omega=omega), used


def _tree_from_point(space, ell, eps, edges, marginals):
    """Kruskal: constraints with a non-zero dual first, then by slack in log space."""
    ti, hj = edges
    slack = eps * space.dist[ti, hj] - (ell[ti] - ell[hj])
    big = np.abs(marginals) > 1e-12 * max(1e-300, float(np.max(np.abs(marginals), initial=0.0)))
    order = np.lexsort((slack, ~big))
    root = list(range(space.n))

    def find(x):
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    chosen = []
    for e in order:
        ri, rj = find(int(ti[e])), find(int(hj[e]))
        if ri != rj:
            root[ri] = rj
            chosen.append((int(ti[e]), int(hj[e])))
            if len(chosen) == space.n - 1:
                break
    return chosen


def _star(space, frac):
    """A vertex that is always feasible: log v_i = -eps d(x_i, x_c) (all edges (c, i) tight)."""
    c = int(np.argmax(frac)) if np.any(frac > 0) else 0
    return [(c, i) for i in range(space.n) if i != c]


def _solve_max(space, inside, eps, *, start="highs", reduce=True, stats=None):
    """The certified optimal vertex for maximising the posterior of the nodes ``inside``.

    HiGHS (re-solved, at most 4 times, rescaled around the last vertex) gives a spanning tree
    of tight constraints; exact pivots (chosen in floats, then confirmed in mpmath) remove any
    negative multiplier.  Returns the tree and its mpmath certificate.
    """
    n = space.n
    tol_feas = mpmath.mpf(10) ** (-(space.dps - 10))

    def count(key):
        if stats is not None:
            stats[key] = stats.get(key, 0) + 1

    if n == 1:
        tree = _Tree(space, [])
        return tree, _certify(space, tree, inside, eps, True)
    tree = None
    frac = inside.astype(float)
    if start == "highs" and inside.any() and not inside.all():
        edges = space.edges(reduce)
        omega = None
        for _ in range(4):
            count("highs")
            out, used = _highs_cuts(space, frac, float(eps), edges, omega, count)
            if out is None:
                count("highs_failures")
                break
            ell, marg, _ = out
            cand = _Tree(space, _tree_from_point(space, ell, float(eps), used, marg))
            bad = cand.violations(space, tol_feas)
            if bad:  # a reduced edge set missed a constraint (float rounding): add it
                count("added_constraints")
                edges = (np.concatenate([edges[0], [b[0] for b in bad]]),
                         np.concatenate([edges[1], [b[1] for b in bad]]))
                omega = np.min(ell[None, :] + float(eps) * space.dist, axis=1)
                continue
            tree = cand
            if not _certify(space, tree, inside, eps, False).violators:
                break
            omega = float(eps) * tree.Df  # rescale around this (feasible) vertex and re-solve
    if tree is None:
        count("star_starts")
        tree = _Tree(space, _star(space, frac))
    seen = {tree.key()}
    bland = False
    for exact in (False, True):
        for _ in range(50 * n + 100):
            cert = _certify(space, tree, inside, eps, exact)
            if not cert.violators:
                break
            count("pivots" if not exact else "exact_pivots")
            if bland:
                k = min(cert.violators, key=lambda kv: tree.edges[tree.pedge[kv[0]]])[0]
            else:
                k = max(cert.violators, key=lambda kv: kv[1])[0]
            tree = _Tree(space, _pivot(space, tree, k, bland))
            if tree.key() in seen:
                bland = True  # a degenerate cycle: Bland's rule from here on
            seen.add(tree.key())
        else:
            raise RuntimeError("the exact polish did not converge")
    if cert.ties:
        count("degenerate")
    if cert.near_ties:
        count("near_ties")
    return tree, cert


# --- public API ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Extreme:
    """A certified extreme posterior: the value and a vertex attaining it.

    ``log_likelihood`` is log L at the points (max 0), an optimal likelihood up to scale.
    ``value_mp`` is the value in mpmath at the working precision; ``ties`` counts the LP
    multipliers that are zero to that precision (a degenerate vertex).
    """

    value: float
    value_mp: Any
    ties: int
    log_likelihood: np.ndarray
    tree: tuple

    @property
    def likelihood(self) -> np.ndarray:
        return np.exp(self.log_likelihood)


def _extreme(space, inside_nodes, eps, sense, *, start="highs", reduce=True, stats=None):
    if sense == "sup":
        tree, cert = _solve_max(space, inside_nodes, eps, start=start, reduce=reduce, stats=stats)
        value = cert.value
    else:  # inf post(S) = 1 - sup post(complement), read off directly as the S-mass
        tree, cert = _solve_max(space, ~inside_nodes, eps, start=start, reduce=reduce, stats=stats)
        value = cert.complement
    ell = np.array([float(eps * d) for d in tree.D])
    ell -= ell.max()
    return Extreme(
        value=float(value),
        value_mp=value,
        ties=cert.ties,
        log_likelihood=ell[space.node_of],
        tree=tuple(tree.edges),
    )


def lp_extreme(
    points: Any,
    probs: Any,
    inside: Any,
    epsilon: float,
    *,
    sense: str = "sup",
    metric: Any = "absolute",
    dps: int = DPS,
    start: str = "highs",
    reduce: bool = True,
    stats: dict | None = None,
) -> Extreme:
    """The certified sup (``sense="sup"``) or inf of the posterior of ``inside`` at ``epsilon``.

    ``epsilon`` may be a float or an mpmath number.  ``start="star"`` skips HiGHS and pivots from
    an always-feasible vertex (a check of the HiGHS route); ``reduce=False`` gives HiGHS all
    pairs.  ``stats`` (a dict) collects counts of pivots and re-solves.
    """
    if sense not in ("sup", "inf"):
        raise ValueError("sense must be 'sup' or 'inf'")
    if start not in ("highs", "star"):
        raise ValueError("start must be 'highs' or 'star'")
    space = _Space(points, probs, metric, dps)
    with mpmath.workdps(dps):
        eps = mpmath.mpf(epsilon)
        if not (mpmath.isfinite(eps) and eps >= 0):
            raise ValueError(f"epsilon must be finite and >= 0; got {epsilon!r}")
        nodes = space.nodes_inside(inside)
        return _extreme(space, nodes, eps, sense, start=start, reduce=reduce, stats=stats)


def lp_posterior_extremes(
    points: Any,
    probs: Any,
    inside: Any,
    epsilon: float,
    *,
    metric: Any = "absolute",
    witnesses: bool = False,
    dps: int = DPS,
):
    r"""(sup, inf) of the posterior of ``inside`` over all :math:`\epsilon`-DP likelihoods.

    Parameters
    ----------
    points : array_like
        m numbers (``"absolute"``), an (m, k) array (``("lp", p)``), m labels
        (``"discrete"``), or anything of length m (distance matrix).
    probs : array_like
        m probabilities > 0 summing to 1 (within 1e-9; normalised exactly).
    inside : array_like of bool
        The correct-guess set S as a mask over the points.
    epsilon : float
        The DP parameter, >= 0.
    metric : str, tuple or array_like
        ``"absolute"``, ``"discrete"``, ``("lp", p)`` or an (m, m) distance matrix.
    witnesses : bool
        Also return the optimal likelihoods (max 1) for the sup and the inf.

    Returns
    -------
    (sup, inf) or (sup, inf, L_sup, L_inf)

    Examples
    --------
    >>> sup, inf = lp_posterior_extremes(["a", "b", "c"], [0.2, 0.3, 0.5], [True, False, False],
    ...                                  1.0, metric="discrete")
    >>> round(sup, 12) == round(0.2 * math.e / (0.2 * math.e + 0.8), 12)
    True
    """
    space = _Space(points, probs, metric, dps)
    with mpmath.workdps(dps):
        eps = mpmath.mpf(epsilon)
        if not (mpmath.isfinite(eps) and eps >= 0):
            raise ValueError(f"epsilon must be finite and >= 0; got {epsilon!r}")
        nodes = space.nodes_inside(inside)
        hi = _extreme(space, nodes, eps, "sup")
        lo = _extreme(space, nodes, eps, "inf")
    if witnesses:
        return hi.value, lo.value, hi.likelihood, lo.likelihood
    return hi.value, lo.value


def highs_posterior_extremes(
    points: Any, probs: Any, inside: Any, epsilon: float, *, metric: Any = "absolute",
    options: dict | None = None,
) -> tuple[float, float]:
    """The plain LP of the definition, all pairs, unscaled, HiGHS at default tolerances.

    No rescaling, no polish: a rough check of the oracle (and a picture of what the polish
    buys).  Returns (sup, inf).
    """
    space = _Space(points, probs, metric, DPS)
    p = space.probs
    inside = np.asarray(inside, dtype=bool)
    d = space.dist[np.ix_(space.node_of, space.node_of)]
    m = p.size
    ti, hj = np.nonzero(~np.eye(m, dtype=bool))
    rows = np.arange(ti.size)
    A_ub = sparse.csr_matrix(
        (np.concatenate([np.ones(ti.size), -np.exp(epsilon * d[ti, hj])]),
         (np.concatenate([rows, rows]), np.concatenate([ti, hj]))),
        shape=(ti.size, m),
    )
    out = []
    for sign in (-1.0, 1.0):
        res = linprog(sign * p * inside, A_ub=A_ub, b_ub=np.zeros(ti.size), A_eq=p[None, :],
                      b_eq=[1.0], bounds=(0, None), method="highs", options=options or {})
        if res.status != 0:
            raise RuntimeError(f"HiGHS failed: {res.message}")
        out.append(float(np.dot(p * inside, res.x)))
    return out[0], out[1]


# --- the optimal epsilon -----------------------------------------------------------------------
@dataclass(frozen=True)
class OptimalEpsilon:
    """The optimal epsilon, the true value and side that bind, and the mpmath value."""

    epsilon: float
    epsilon_mp: Any
    t: Any
    side: str | None
    lp_solves: int


class _Condition:
    """post(B) >= p_B - delta for the inf over eps-DP likelihoods, B the set minimised.

    Upper side at t: B = complement of the ball (sup post(S) <= p_S + delta); lower side:
    B = the ball (inf post(S) >= p_S - delta).
    """

    def __init__(self, space, B, delta, t, side, stats):
        self.space = space
        self.B = B
        self.t = t
        self.side = side
        self.stats = stats
        a = space.a_mp
        self.pB = mpmath.fsum(ak for ak, s in zip(a, B, strict=True) if s)
        self.tau = self.pB - delta
        self.log_tau = mpmath.log(self.tau)
        self.B_idx = np.flatnonzero(B)

    def vertex(self, eps):
        self.stats["lp"] = self.stats.get("lp", 0) + 1
        tree, cert = _solve_max(self.space, ~self.B, eps, stats=self.stats)
        return tree, cert.complement  # inf post(B)

    def h(self, eps):
        """log(inf post(B)) - log(p_B - delta): < 0 means the condition fails."""
        tree, val = self.vertex(eps)
        return tree, mpmath.log(val) - self.log_tau

    def h_tree(self, tree, eps):
        """The same at a fixed vertex (a smooth function of eps) and its derivative."""
        a = self.space.a_mp
        ell = [eps * d for d in tree.D]
        top = max(ell)
        e = [ak * mpmath.exp(x - top) for ak, x in zip(a, ell, strict=True)]
        eb = [e[k] for k in self.B_idx]
        total, sb = mpmath.fsum(e), mpmath.fsum(eb)
        mean_all = mpmath.fsum(ek * d for ek, d in zip(e, tree.D, strict=True)) / total
        mean_b = mpmath.fsum(e[k] * tree.D[k] for k in self.B_idx) / sb
        return mpmath.log(sb / total) - self.log_tau, mean_b - mean_all


def _root_on_tree(cond, tree, lo, hi, dps):
    """A root of h_tree in [lo, hi] (h_tree(lo) >= 0 > h_tree(hi)): Newton, kept in the bracket,
    to a relative step of 10^-(dps-3)."""
    hlo = cond.h_tree(tree, lo)[0]
    hhi = cond.h_tree(tree, hi)[0]
    if not (hlo >= 0 > hhi):
        raise RuntimeError("the fixed-vertex function does not change sign on the bracket")
    tol = mpmath.mpf(10) ** (-(dps - 3))
    x = hi
    for _ in range(400):
        fx, dfx = cond.h_tree(tree, x)
        if fx == 0:
            return x
        if fx > 0:
            lo = x
        else:
            hi = x
        new = x - fx / dfx if dfx != 0 else lo - 1
        if not lo <= new <= hi:
            new = (lo + hi) / 2
        if abs(new - x) <= tol * abs(x):
            return new
        x = new
    raise RuntimeError("the root finder did not converge")


def _crossing(cond, lo, hi, tree_hi, dps):
    """sup{eps : inf post(B) >= p_B - delta} in (lo, hi], given h(lo) >= 0 > h(hi)."""
    tol = mpmath.mpf(10) ** (-(dps - 15))
    eta = mpmath.mpf(10) ** (-(dps // 2))
    for _ in range(200):
        r = _root_on_tree(cond, tree_hi, lo, hi, dps)
        tree_r, hr = cond.h(r)
        if hr < -tol:  # the vertex changed before the root: the crossing lies below r
            hi, tree_hi = r, tree_r
            continue
        # h(r) = 0 (h <= h_tree = 0 at r): r is a crossing; is it the last one?
        above = r * (1 + eta)
        _, ha = cond.h(above)
        if ha < -tol:
            return r
        lo = above  # h is flat at 0 on [r, above] (degenerate): search on above it
        if lo >= hi:
            raise RuntimeError("the crossing bracket collapsed")
    raise RuntimeError("the crossing search did not converge")


def _conditions(space, r, delta, t, sides, stats):
    if t is None:
        ts = space.support()
    else:
        ts = [t]
    conds: dict[bytes, _Condition] = {}
    for tv in ts:
        S = space.ball(tv, r)
        for side, B in (("upper", ~S), ("lower", S)):
            if side == "lower" and sides == "upper":
                continue
            key = B.tobytes()
            if key in conds or not B.any() or B.all():
                continue
            cond = _Condition(space, B, delta, tv, side, stats)
            if cond.tau <= 0:  # p_B <= delta: the condition holds for every eps
                continue
            conds[key] = cond
    return list(conds.values())


def lp_optimal_epsilon_details(
    points: Any,
    probs: Any,
    *,
    r: float,
    delta: float,
    t: Any = None,
    sides: str = "both",
    metric: Any = "absolute",
    dps: int = DPS,
) -> OptimalEpsilon:
    """The largest epsilon with every advantage <= delta, its binding t and side (see the module).

    ``t=None`` considers every support point; otherwise ``t`` is a value (absolute, lp,
    discrete: a label) or, for a distance matrix, a point index.  Returns ``epsilon=inf`` when
    no condition can fail.
    """
    if not (0 < float(delta) < 1):
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")
    if not (float(r) >= 0 and math.isfinite(float(r))):
        raise ValueError(f"r must be finite and >= 0; got {r!r}")
    if sides not in ("both", "upper"):
        raise ValueError("sides must be 'both' or 'upper'")
    space = _Space(points, probs, metric, dps)
    stats: dict[str, int] = {}
    with mpmath.workdps(dps):
        dl = mpmath.mpf(float(delta))
        conds = _conditions(space, float(r), dl, t, sides, stats)
        tol = mpmath.mpf(10) ** (-(dps - 15))
        best, best_cond = mpmath.inf, None
        dmin = float(np.min(space.dist[~np.eye(space.n, dtype=bool)])) if space.n > 1 else 1.0
        for cond in conds:
            if best < mpmath.inf:
                tree_hi, hb = cond.h(best)
                if hb >= -tol:
                    continue  # its crossing is at or above the best so far
                lo, hi = mpmath.mpf(0), best
            else:
                lo, hi = mpmath.mpf(0), mpmath.mpf(1) / dmin
                tree_hi, hb = cond.h(hi)
                while hb >= 0:
                    lo, hi = hi, hi * 4
                    if hi > 1e6 / dmin:
                        raise RuntimeError("no crossing below 1e6 / (smallest distance)")
                    tree_hi, hb = cond.h(hi)
            best = _crossing(cond, lo, hi, tree_hi, dps)
            best_cond = cond
        if best_cond is None:
            return OptimalEpsilon(math.inf, mpmath.inf, None, None, stats.get("lp", 0))
        t_out = best_cond.t
        return OptimalEpsilon(float(best), best, t_out, best_cond.side, stats.get("lp", 0))


def lp_optimal_epsilon(
    points: Any,
    probs: Any,
    *,
    r: float,
    delta: float,
    t: Any = None,
    sides: str = "both",
    metric: Any = "absolute",
) -> float:
    r"""The largest epsilon at which no :math:`\epsilon`-DP likelihood moves the posterior of the
    ball of radius ``r`` around the true value by more than ``delta`` (see the module docstring).

    Examples
    --------
    >>> p, d = 0.25, 0.1
    >>> eps = lp_optimal_epsilon(["a", "b"], [p, 1 - p], r=0, delta=d, t="a", metric="discrete")
    >>> closed = min(math.log((p + d) * (1 - p) / (p * (1 - p - d))),
    ...              math.log((1 - p + d) * p / ((p - d) * (1 - p))))
    >>> abs(eps - closed) < 1e-14
    True
    """
    return lp_optimal_epsilon_details(
        points, probs, r=r, delta=delta, t=t, sides=sides, metric=metric
    ).epsilon


# --- random finite priors for comparison tests --------------------------------------------------
@dataclass(frozen=True)
class FinitePrior:
    """A random finite numeric prior with a precision, a delta and (maybe) a true value.

    Points are dyadic rationals (multiples of 1/64), so every distance and every radius drawn
    from them is exact in binary floating point: a closed ball holds the same points whether
    distances are compared in floats or exactly.
    """

    points: np.ndarray
    probs: np.ndarray
    r: float
    delta: float
    t: float | None


@st.composite
def finite_priors(draw, min_n: int = 2, max_n: int = 40, with_t: bool = True) -> FinitePrior:
    """Hypothesis strategy: n in [min_n, max_n] unevenly spaced points, masses down to 1e-12,
    r in {0, an exact inter-point distance, anything up to beyond the span}, delta in
    [1e-3, 0.9], and t in {None, a support point, any dyadic value near the support}."""
    n = draw(st.integers(min_n, max_n))
    gaps = draw(
        st.lists(
            st.tuples(st.integers(1, 64), st.integers(-6, 4)), min_size=n - 1, max_size=n - 1
        )
    )
    start = draw(st.integers(-4096, 4096)) / 64
    pts = [start]
    for m, e in gaps:
        pts.append(pts[-1] + m * 2.0**e)
    perm = draw(st.permutations(range(n)))
    points = np.array([pts[i] for i in perm])
    weights = draw(
        st.lists(
            st.one_of(
                st.just(1e-12),
                st.floats(-12, 0).map(lambda x: 10.0**x),
                st.floats(0.05, 1.0),
            ),
            min_size=n,
            max_size=n,
        )
    )
    w = np.array(weights)
    probs = w / math.fsum(w)
    span = float(points.max() - points.min())
    pairs = list(itertools.combinations(range(n), 2))
    r = draw(
        st.one_of(
            st.just(0.0),
            st.sampled_from(pairs).map(lambda ij: abs(float(points[ij[0]] - points[ij[1]]))),
            st.integers(0, max(1, int(span * 64 * 1.5))).map(lambda k: k / 64),
        )
    )
    delta = draw(st.floats(1e-3, 0.9))
    t = None
    if with_t:
        lo_, hi_ = int((points.min() - span) * 64), int((points.max() + span) * 64)
        t = draw(
            st.one_of(
                st.none(),
                st.sampled_from(points.tolist()),
                st.integers(lo_, hi_).map(lambda k: k / 64),
            )
        )
    return FinitePrior(points, probs, float(r), float(delta), t)
