r"""A test-side grid-LP oracle for the optimal epsilon of a goal over two attributes (beyond the
paper; Sec. 4.2, 4.3).

Part of the test suite, not of the package: it imports nothing from garesearch and uses only
numpy and scipy (``scipy.optimize.linprog`` with HiGHS, ``scipy.optimize.brentq``,
``scipy.integrate.quad``, frozen ``scipy.stats`` distributions), so that the package's certified
brackets can be compared with an estimate obtained another way.

The problem
-----------
Records :math:`x = (x_1, x_2)` have independent priors; the distance is the ``norm`` of the
coordinate distances (:math:`|x_c - x'_c|` for a numeric coordinate, the discrete metric for a
categorical one).  For the goal's set :math:`X'` of correct guesses,
:math:`U(\epsilon) = \sup_L \int_{X'} L\,dF / \int L\,dF` over likelihoods with
:math:`L(x) \le e^{\epsilon d(x, x')} L(x')`, :math:`V(\epsilon)` the infimum, and the optimal
epsilon is the largest one with :math:`U - p \le \delta` and :math:`p - V \le \delta`.

The discretisation, and why it is a relaxation
----------------------------------------------
Each numeric coordinate is cut into equal cells of side ``h_c`` whose edges include the edges of
its band :math:`[t_c - r_c, t_c + r_c]` (for a ball, the cells are centred on ``t``), over a box
that covers the prior's bulk (cells of zero mass left out); a categorical coordinate keeps its
atoms.  Cell masses come from the priors' cdf (``sf`` on the upper half, for accuracy in the
tails).  With :math:`w_i` the posterior mass of cell ``i`` and :math:`m_i` its prior mass,
Charnes-Cooper gives the LP

.. math::

    \max \sum_i \kappa_i w_i \quad\text{s.t.}\quad \sum_i c_i w_i = 1,\quad
    w_i / m_i \le e^{\epsilon d_{ij}} w_j / m_j,\quad w \ge 0,

with :math:`d_{ij}` the distance between the cells' centres.  It is a **relaxation** (its optimum
is at least :math:`U`; the minimum at most :math:`V`) when the numeric priors are log-concave
(normal, uniform, gamma with shape >= 1): for two cells :math:`C_j = C_i + v`, coupling the
conditional priors on the two cells coordinate by coordinate through their quantiles moves each
coordinate by at most :math:`|v_c|` (by log-concavity the conditionals, shifted to a common
origin, are ordered by their likelihood ratio), so the prior averages :math:`a_i` of every
feasible ``L`` satisfy :math:`a_i \le e^{\epsilon \lVert v\rVert} a_j`: every mechanism gives a
feasible point.  Hence the oracle's epsilon at every cell side lies at or below the true optimum,
and converges to it as the cells shrink.  The other parts of the relaxation:

- a cell cut by the edge of an :math:`\ell_p` ball (fraction ``q`` of its mass inside) counts
  :math:`\kappa = q e^{\epsilon D} / (q e^{\epsilon D} + 1 - q)` of its mass in the objective
  (the upper side; :math:`e^{-\epsilon D}` for the lower side), ``D`` the cell's diameter: ``L``
  varies by at most :math:`e^{\epsilon D}` over the cell.  Cells wholly inside count 1, outside 0;
- beyond the box the grid continues, in thought, with the translates ``E + v`` of the edge
  cells, whose averages the lemma bounds by :math:`e^{\pm\epsilon\lVert v\rVert} a_E`; their
  mass enters through ``E``'s coefficients ``c`` and :math:`\kappa` with the bound that can
  only raise the upper side's optimum (lower the lower side's): for the upper side the upper
  bound where the translate lies in :math:`X'` and the lower one where not, the other way
  round for the lower side.  The translates run out to 60 standard deviations (the rest, for
  the upper bound, through :math:`L(x) \le e^{\epsilon(|x - K| + h)} a_E`); corner regions
  take the translations :math:`(j h_0, l h_1)` at their distance in the norm.

Which pairs are needed
----------------------
The constraints of a set of pairs imply those of every other pair when the shortest-path
distance of the graph of those pairs, with edge lengths :math:`d_{ij}`, equals :math:`d_{ij}`
(the constraints chain along a path; the paths below are monotone in each coordinate, so they
stay inside the rectangle of cells).  On a grid of cells this holds for

- :math:`\ell_1`: the neighbours along each axis (a staircase path);
- :math:`\ell_\infty` with sides :math:`h_2 = k h_1`, ``k`` a positive integer: the offsets
  :math:`(a, \pm 1)` with :math:`|a| \le k` and :math:`(\pm 1, 0)` (the king's moves for
  :math:`k = 1`): a displacement :math:`(a h_1, b h_2)` is :math:`|b|` steps of
  :math:`(a_i, \pm 1)` when :math:`|a| \le k |b|`, else :math:`|b|` steps :math:`(\pm k, \pm 1)`
  and :math:`|a| - k|b|` steps :math:`(\pm 1, 0)`, each summing to the :math:`\ell_\infty` length;
  with only the axis neighbours the path distance would be the :math:`\ell_1` one, a looser LP
  that converges to the wrong limit (a planted error of the tests);
- a numeric and a categorical coordinate under :math:`\ell_\infty`: the numeric neighbours
  within an atom and every pair of atoms at numeric offsets up to :math:`k = \lceil 1/h\rceil`
  cells (distance :math:`\max(|\Delta x|, 1)`); a displacement of :math:`j > k` cells across
  atoms is :math:`j - k` cells within the atom and one pair of length :math:`kh \ge 1`.  Under
  :math:`\ell_1`: the numeric neighbours and the pairs of atoms in the same numeric cell.

For an :math:`\ell_p` norm with :math:`1 < p < \infty` no finite stencil is exact: the oracle
uses the primitive offsets up to ``reach`` cells, whose path distance is a polygonal norm at
most ``rho`` times the :math:`\ell_p` distance (:func:`polygon_factor`; for equal sides under
:math:`\ell_2`, 1.027 with offsets up to 2 cells, 1.013 up to 3).  Leaving pairs out only enlarges the feasible set, so the LP stays a
relaxation, and every mechanism :math:`\epsilon`-DP for the polygonal norm is
:math:`\rho\epsilon`-DP for :math:`\ell_p`: the oracle's limit lies in
:math:`[\epsilon^*/\rho, \epsilon^*]`.  :func:`all_pairs_violations` checks a solution against
every pair (the tests use it to confirm the exact stencils).

The crossing and the extrapolation
----------------------------------
For each side the oracle finds the epsilon where the LP's optimum (HiGHS at tolerances 1e-10)
meets :math:`p \pm \delta` (secant steps until the root is bracketed, then Brent's method on
:math:`\log\epsilon`), at cell sides ``h``, ``h/2`` and ``h/4``.  :func:`richardson` reads
off the observed order and extrapolates.

Witnesses
---------
A relaxation bounds the optimum from one side only.  The other side comes from mechanisms:
shifted pyramids :math:`e^{\mp\epsilon d_\infty(x, C)}` over a box ``C`` (AND and OR goals
under :math:`\ell_\infty`), whose posterior :func:`pyramid_posterior` computes by the
layer-cake formula (the level sets are boxes), :func:`best_pyramid` optimises over ``C`` and
:func:`pyramid_crossing` follows in epsilon: the optimum is at most where a pyramid crosses.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.integrate import quad
from scipy.optimize import brentq, linprog

__all__ = ["CatAxis", "Extrapolation", "Grid", "GridLP", "NumAxis", "OracleGoal", "all_pairs_violations",
           "best_pyramid", "crossing", "oracle_crossings", "oracle_posteriors", "pairs", "polygon_factor",
           "pyramid_crossing", "pyramid_posterior", "richardson", "solve", "stencil"]

#: dual simplex with Dantzig pricing (about twice as fast on these LPs as the default)
_HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10,
          "simplex_dual_edge_weight_strategy": "dantzig"}


@dataclass
class NumAxis:
    """A numeric coordinate: a frozen scipy.stats distribution, the true value ``t`` and the
    radius ``r`` of its band; ``box`` the range covered by cells (before alignment)."""

    dist: object
    t: float
    r: float
    box: tuple[float, float]

    def edges(self, h: float, anchor: float) -> np.ndarray:
        """Cell edges of side ``h`` through ``anchor``, covering ``box`` (cut to the support)."""
        lo, hi = self.box
        a, b = self.dist.support()
        lo, hi = max(lo, a), min(hi, b)
        k0 = math.floor((lo - anchor) / h + 1e-9)
        k1 = math.ceil((hi - anchor) / h - 1e-9)
        return anchor + h * np.arange(k0, k1 + 1)

    def masses(self, e: np.ndarray) -> np.ndarray:
        med = float(self.dist.median())
        lo, hi = e[:-1], e[1:]
        low = self.dist.cdf(hi) - self.dist.cdf(lo)
        high = self.dist.sf(lo) - self.dist.sf(hi)
        return np.where(hi <= med, low, high)


@dataclass
class CatAxis:
    """A categorical coordinate under the discrete metric: ``probs`` (value -> mass), the true
    value ``t``."""

    probs: dict
    t: object


@dataclass
class OracleGoal:
    """Two coordinates, the goal's combination (``"and"``, ``"or"`` of the two bands, or
    ``"ball"``: :math:`\\lVert x - t\\rVert_{pball} \\le r_{ball}` over two numeric axes), the
    records' ``norm`` and, for an :math:`\\ell_p` norm with :math:`1 < p < \\infty`, the
    ``reach`` of the stencil's offsets (:func:`stencil`)."""

    axes: tuple
    event: str
    norm: float = math.inf
    r_ball: float = 0.0
    pball: float = 2.0
    reach: int = 3  # offsets of the stencil under an l_p norm, 1 < p < inf

    def p(self) -> float:
        """Prior probability of X' (the ball's by two-dimensional quadrature)."""
        if self.event == "ball":
            return _ball_mass(self, (-math.inf, math.inf), (-math.inf, math.inf))
        q = []
        for ax in self.axes:
            if isinstance(ax, CatAxis):
                q.append(ax.probs[ax.t])
            else:
                q.append(float(ax.dist.cdf(ax.t + ax.r) - ax.dist.cdf(ax.t - ax.r)))
        return q[0] * q[1] if self.event == "and" else 1 - (1 - q[0]) * (1 - q[1])


def _lp_norm(parts, p):
    parts = [np.abs(np.asarray(x, float)) for x in parts]
    if math.isinf(p):
        return np.maximum(*parts) if len(parts) == 2 else parts[0]
    return sum(x**p for x in parts) ** (1 / p)


_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)


def _panels(cuts, panels):
    """Gauss-Legendre nodes and weights (16 per panel) on ``[cuts[0], cuts[-1]]``, about
    ``panels`` equal panels in all, with edges at every cut."""
    xs, ws = [], []
    span = cuts[-1] - cuts[0]
    for lo, hi in itertools.pairwise(cuts):
        e = np.linspace(lo, hi, max(1, round(panels * (hi - lo) / span)) + 1)
        half = ((e[1:] - e[:-1]) / 2)[:, None]
        xs.append((((e[:-1] + e[1:]) / 2)[:, None] + half * _GL_X).ravel())
        ws.append((half * _GL_W).ravel())
    return np.concatenate(xs), np.concatenate(ws)


def _ball_mass(goal: OracleGoal, xr, yr) -> float:
    """Prior mass of the ball cut to the rectangle ``xr x yr``: quadrature over x_1 of the
    second coordinate's mass on the ball's chord."""
    ax0, ax1 = goal.axes
    r, p = goal.r_ball, goal.pball
    a, b = max(xr[0], ax0.t - r), min(xr[1], ax0.t + r)
    if a >= b:
        return 0.0

    def chord(x):
        u = abs(x - ax0.t)
        half = r if u == 0 else (max(r**p - u**p, 0.0) ** (1 / p) if math.isfinite(p) else r)
        lo, hi = max(yr[0], ax1.t - half), min(yr[1], ax1.t + half)
        if lo >= hi:
            return 0.0
        return float(ax1.dist.cdf(hi) - ax1.dist.cdf(lo)) * float(ax0.dist.pdf(x))

    pts = [x for x in (ax0.t,) if a < x < b]
    val, _ = quad(chord, a, b, points=pts or None, epsabs=1e-14, epsrel=1e-11, limit=200)
    return val


@dataclass
class Grid:
    """The cells of one discretisation and the structure of its LP (pairs and distances)."""

    goal: OracleGoal
    steps: tuple  # cell side per axis (0 for a categorical axis)
    centres: list = field(default_factory=list)  # per axis
    logm: list = field(default_factory=list)  # per axis: log masses
    edges: list = field(default_factory=list)

    def __post_init__(self):
        for ax, h in zip(self.goal.axes, self.steps, strict=True):
            if isinstance(ax, CatAxis):
                vals = list(ax.probs)
                self.centres.append(np.array(vals, dtype=object))
                self.logm.append(np.log(np.array([ax.probs[v] for v in vals], float)))
                self.edges.append(None)
            else:
                anchor = ax.t if self.goal.event == "ball" else ax.t - ax.r
                e = ax.edges(h, anchor - h / 2 if self.goal.event == "ball" else anchor)
                m = ax.masses(e)
                keep = m > 0
                # only leading / trailing cells may be empty (outside the support)
                e_keep = np.concatenate([e[:-1][keep], [e[1:][keep][-1]]])
                self.edges.append(e_keep)
                self.centres.append((e_keep[:-1] + e_keep[1:]) / 2)
                self.logm.append(np.log(m[keep]))
        self.shape = tuple(len(c) for c in self.centres)
        self.n = self.shape[0] * self.shape[1]
        I0, I1 = np.meshgrid(np.arange(self.shape[0]), np.arange(self.shape[1]), indexing="ij")
        self.i0, self.i1 = I0.ravel(), I1.ravel()
        self.log_mass = (self.logm[0][self.i0] + self.logm[1][self.i1])
        self.q = self._inside_fraction()

    # -- geometry --------------------------------------------------------------------------
    def axis_distance(self, c: int, a, b) -> np.ndarray:
        ax = self.goal.axes[c]
        if isinstance(ax, CatAxis):
            return (np.asarray(a) != np.asarray(b)).astype(float)
        return np.abs(self.centres[c][a] - self.centres[c][b])

    def distance(self, i, j) -> np.ndarray:
        d0 = self.axis_distance(0, self.i0[i], self.i0[j])
        d1 = self.axis_distance(1, self.i1[i], self.i1[j])
        return _lp_norm([d0, d1], self.goal.norm)

    def in_band(self, c: int, idx) -> np.ndarray:
        ax = self.goal.axes[c]
        if isinstance(ax, CatAxis):
            return self.centres[c][idx] == ax.t
        return np.abs(self.centres[c][idx] - ax.t) <= ax.r

    def _inside_fraction(self) -> np.ndarray:
        g = self.goal
        if g.event in ("and", "or"):
            a, b = self.in_band(0, self.i0), self.in_band(1, self.i1)
            return ((a & b) if g.event == "and" else (a | b)).astype(float)
        # ball: exact 0 / 1 where the cell is wholly outside / inside, else by quadrature
        t0, t1 = g.axes[0].t, g.axes[1].t
        e0, e1 = self.edges
        lo0, hi0 = e0[self.i0], e0[self.i0 + 1]
        lo1, hi1 = e1[self.i1], e1[self.i1 + 1]
        near0 = np.maximum(0, np.maximum(lo0 - t0, t0 - hi0))
        near1 = np.maximum(0, np.maximum(lo1 - t1, t1 - hi1))
        far0 = np.maximum(np.abs(lo0 - t0), np.abs(hi0 - t0))
        far1 = np.maximum(np.abs(lo1 - t1), np.abs(hi1 - t1))
        q = np.where(_lp_norm([far0, far1], g.pball) <= g.r_ball, 1.0, 0.0)
        cut = (_lp_norm([near0, near1], g.pball) < g.r_ball) & (q == 0)
        mass = np.exp(self.log_mass)
        for k in np.flatnonzero(cut):
            q[k] = min(1.0, _ball_mass(g, (lo0[k], hi0[k]), (lo1[k], hi1[k])) / mass[k])
        return q

    def diameter(self) -> float:
        return float(_lp_norm([self.steps[0], self.steps[1]], self.goal.norm))

    # -- tails -----------------------------------------------------------------------------
    def tail_regions(self):
        """Outer regions: (pattern per axis in {-1, 0, +1}, edge cells attached, 1-D tail
        masses) for the numeric axes whose prior extends beyond the box."""
        out = []
        tails = []
        for c, ax in enumerate(self.goal.axes):
            opts = [0]
            if isinstance(ax, NumAxis):
                a, b = ax.dist.support()
                if self.edges[c][0] > a:
                    opts.append(-1)
                if self.edges[c][-1] < b:
                    opts.append(1)
            tails.append(opts)
        for s0 in tails[0]:
            for s1 in tails[1]:
                if s0 == 0 and s1 == 0:
                    continue
                out.append((s0, s1))
        return out

    def tail_cells(self, c: int, side: int):
        """The translates of axis ``c``'s edge cell beyond the box (``side`` -1 or +1), out
        to the support's end or 60 standard deviations: translation lengths ``j h_c`` and
        masses per unit of the edge cell's mass; and the start of the rest."""
        key = (c, side)
        cache = self.__dict__.setdefault("_tails", {})
        if key not in cache:
            ax, h = self.goal.axes[c], self.steps[c]
            K = self.edges[c][-1] if side > 0 else self.edges[c][0]
            lo, hi = ax.dist.support()
            end = (hi - K) if side > 0 else (K - lo)
            J = math.ceil(min(end, 60 * float(ax.dist.std())) / h - 1e-9)
            e = K + side * h * np.arange(J + 1)
            m = ax.masses(np.sort(e))
            m = m if side > 0 else m[::-1]
            m_edge = math.exp(self.logm[c][-1] if side > 0 else self.logm[c][0])
            cache[key] = (h * np.arange(1, J + 1), m / m_edge, J * h, end)
        return cache[key]

    def tail_sums(self, c: int, side: int, eps: float):
        r"""Bounds per unit of the edge cell's mass on the outer mass weighted by ``L / a_E``
        along axis ``c``: :math:`\sum_j m_j e^{\pm\epsilon j h_c}` over the translates (the
        translation lemma), the upper one with the rest beyond the last translate bounded by
        :math:`\int e^{\epsilon (u + h)} dF`.  Returns (upper sum, its rest, lower sum)."""
        dist, m, start, end = self.tail_cells(c, side)
        up = float(m @ np.exp(eps * dist))
        dn = float(m @ np.exp(-eps * dist))
        rest = 0.0
        if start < end:
            ax, h = self.goal.axes[c], self.steps[c]
            K = self.edges[c][-1] if side > 0 else self.edges[c][0]
            u, wts = _panels([start, min(end, start + 60 * float(ax.dist.std()))], 50)
            lf = eps * (u + h) + ax.dist.logpdf(K + side * u)
            m_edge = math.exp(self.logm[c][-1] if side > 0 else self.logm[c][0])
            rest = float(wts @ np.exp(lf)) / m_edge
        return up, rest, dn

    def corner_sums(self, sides, eps: float):
        """As :meth:`tail_sums` for a corner region: translations ``(j h_0, l h_1)`` with their
        distance in the records' norm; the rest bounded through the l_1 sum."""
        (d0, m0, _, _), (d1, m1, _, _) = (self.tail_cells(c, sides[c]) for c in range(2))
        D = _lp_norm(np.meshgrid(d0, d1, indexing="ij"), self.goal.norm)
        M = np.outer(m0, m1)
        up = float(np.sum(M * np.exp(eps * D)))
        dn = float(np.sum(M * np.exp(-eps * D)))
        (u0, r0, _), (u1, r1, _) = (self.tail_sums(c, sides[c], eps) for c in range(2))
        return up + (u0 + r0) * (u1 + r1) - u0 * u1, dn

    def tail_coefficients(self, eps: float, upper: bool):
        """Per cell: the coefficient of ``w`` added to the normaliser and to the objective by
        the outer regions attached to it (see the module docstring)."""
        add_norm = np.zeros(self.n)
        add_obj = np.zeros(self.n)
        g = self.goal
        for pattern in self.tail_regions():
            tail_axes = [c for c in range(2) if pattern[c] != 0]
            # edge cells attached: along a beside axis every index, along a tail axis the end
            idx = []
            for c in range(2):
                if pattern[c] == 0:
                    idx.append(np.arange(self.shape[c]))
                else:
                    idx.append(np.array([self.shape[c] - 1 if pattern[c] > 0 else 0]))
            J0, J1 = np.meshgrid(idx[0], idx[1], indexing="ij")
            J0, J1 = J0.ravel(), J1.ravel()
            cells = J0 * self.shape[1] + J1
            # does the region lie in X'?  A tail coordinate is outside its band; a beside one
            # as its row; a ball lies inside the box
            if g.event == "ball":
                ins = np.zeros(cells.size, bool)
            else:
                within = []
                for c in range(2):
                    if pattern[c] != 0:
                        within.append(np.zeros(cells.size, bool))
                    else:
                        within.append(self.in_band(c, J0 if c == 0 else J1))
                ins = (within[0] & within[1]) if g.event == "and" else (within[0] | within[1])
            if len(tail_axes) == 1:  # translations along the tail axis only
                up, rest, dn = self.tail_sums(tail_axes[0], pattern[tail_axes[0]], eps)
                up += rest
            else:
                up, dn = self.corner_sums(pattern, eps)
            # which bound: the one that can only raise U (lower V)
            if upper:
                coef = np.where(ins, up, dn)
            else:
                coef = np.where(ins, dn, up)
            np.add.at(add_norm, cells, coef)
            np.add.at(add_obj, cells, np.where(ins, coef, 0.0))
        return add_norm, add_obj


def _primitive(reach: int) -> list[tuple[int, int]]:
    """Primitive lattice vectors with max(|a|, |b|) <= reach, one of each +- pair."""
    out = [(a, b) for a in range(-reach, reach + 1) for b in range(-reach, reach + 1)
           if (a, b) > (0, 0) and math.gcd(a, b) == 1]
    return sorted(out)


def polygon_factor(offsets, steps, p: float) -> float:
    r"""The largest ratio of the path distance along ``offsets`` (scaled by the cell sides) to
    the :math:`\ell_p` distance: on the cone between two consecutive directions ``u``, ``v``
    (consecutive primitive vectors form a basis of the lattice, so every displacement in the
    cone is a nonnegative integer combination), the ratio is
    :math:`(\alpha|u| + \beta|v|) / |\alpha u + \beta v|`, maximised over a dense sample."""
    vecs = [np.array(o, float) * steps for o in offsets]
    vecs += [-v for v in vecs]
    vecs.sort(key=lambda v: math.atan2(v[1], v[0]))
    tt = np.linspace(0.0, 1.0, 20001)[:, None]
    worst = 1.0
    for u, v in zip(vecs, vecs[1:] + vecs[:1], strict=True):
        mix = (1 - tt) * u + tt * v
        path = (1 - tt[:, 0]) * _lp_norm(list(u), p) + tt[:, 0] * _lp_norm(list(v), p)
        worst = max(worst, float(np.max(path / _lp_norm([mix[:, 0], mix[:, 1]], p))))
    return worst


def stencil(grid: Grid, reach: int = 3) -> tuple[list[tuple[int, int]], float]:
    """Offsets (one of each +- pair) of the pairs the LP constrains, and the factor ``rho``
    by which their path distance can exceed the records' distance (1 where the stencil
    implies every pair, see the module docstring; for other norms the primitive vectors up to
    ``reach`` cells, :func:`polygon_factor`)."""
    g = grid.goal
    cat = [isinstance(ax, CatAxis) for ax in g.axes]
    offs: set = set()
    if any(cat):
        if not (g.norm == 1 or math.isinf(g.norm)) or all(cat):
            raise NotImplementedError("a categorical axis: norm 1 or inf, with one numeric axis")
        c_num = cat.index(False)
        ncat = grid.shape[1 - c_num]
        # l_inf: a change of atom costs 1 = the numeric distance of ceil(1/h) cells
        reach_x = math.ceil(1 / grid.steps[c_num] - 1e-9) if math.isinf(g.norm) else 0
        for a in range(-reach_x, reach_x + 1):
            for b in range(-(ncat - 1), ncat):
                if b != 0:
                    offs.add((a, b) if c_num == 0 else (b, a))
        offs.add((1, 0) if c_num == 0 else (0, 1))
        rho = 1.0
    elif math.isinf(g.norm):
        h0, h1 = grid.steps
        k = round(max(h0, h1) / min(h0, h1))
        if abs(k * min(h0, h1) - max(h0, h1)) > 1e-9 * max(h0, h1):
            raise NotImplementedError("l_inf: the cell sides must be integer multiples of each other")
        if h1 >= h0:
            offs.update((a, s) for a in range(-k, k + 1) for s in (-1, 1))
            offs.add((1, 0))
        else:
            offs.update((s, a) for a in range(-k, k + 1) for s in (-1, 1))
            offs.add((0, 1))
        rho = 1.0
    elif g.norm == 1:
        offs.update([(1, 0), (0, 1)])
        rho = 1.0
    else:
        offs.update(_primitive(reach))
        rho = polygon_factor(sorted(o for o in offs if o > (0, 0)), np.array(grid.steps, float), g.norm)
    return sorted(o for o in offs if o > (0, 0)), rho


def pairs(grid: Grid, offsets) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, i + offset) of cells, for every offset."""
    idx = np.arange(grid.n).reshape(grid.shape)
    A, B = [], []
    for a, b in offsets:
        if abs(a) >= grid.shape[0] or abs(b) >= grid.shape[1]:
            continue
        src = idx[max(0, -a):grid.shape[0] - max(0, a), max(0, -b):grid.shape[1] - max(0, b)]
        dst = idx[max(0, a):grid.shape[0] - max(0, -a), max(0, b):grid.shape[1] - max(0, -b)]
        A.append(src.ravel())
        B.append(dst.ravel())
    return np.concatenate(A), np.concatenate(B)


def solve(grid: Grid, pa, pb, eps: float, upper: bool) -> tuple[float, np.ndarray]:
    """The LP's optimum at ``eps`` (largest posterior of X' for ``upper``, else smallest), and
    its solution ``w``."""
    n = grid.n
    d = grid.distance(pa, pb)
    lm = grid.log_mass
    m = pa.size
    # w_a / m_a <= e^{eps d} w_b / m_b, times m_a: w_a - e^{eps d} (m_a / m_b) w_b <= 0
    k_ab = np.exp(eps * d + lm[pa] - lm[pb])
    k_ba = np.exp(eps * d + lm[pb] - lm[pa])
    rows = np.concatenate([np.arange(m), np.arange(m), m + np.arange(m), m + np.arange(m)])
    cols = np.concatenate([pa, pb, pb, pa])
    vals = np.concatenate([np.ones(m), -k_ab, np.ones(m), -k_ba])
    A = sp.csr_matrix((vals, (rows, cols)), shape=(2 * m, n))
    add_norm, add_obj = grid.tail_coefficients(eps, upper)
    q = grid.q
    cut = (q > 0) & (q < 1)
    kappa = q.copy()
    if cut.any():  # a cell cut by the ball's edge: L varies by e^{eps D} over it
        lift = q[cut] * math.exp((1 if upper else -1) * eps * grid.diameter())
        kappa[cut] = lift / (lift + 1 - q[cut])
    obj = kappa + add_obj
    a_eq = (1.0 + add_norm)[None, :]
    res = linprog(-obj if upper else obj, A_ub=A, b_ub=np.zeros(2 * m), A_eq=a_eq, b_eq=[1.0],
                  bounds=(0, None), method="highs-ds", options=_HIGHS)
    if res.status != 0:
        raise RuntimeError(f"HiGHS: {res.message}")
    return float(obj @ res.x), res.x


def all_pairs_violations(grid: Grid, w: np.ndarray, eps: float, rtol: float = 1e-6, chunk: int = 500):
    """Every pair (i, j) of cells whose constraint the solution ``w`` violates,
    :math:`w_i / m_i > e^{\\epsilon d_{ij}} (1 + rtol) w_j / m_j`, checked over all
    :math:`N^2` pairs in log space (cells with ``w`` below 1e-12 of the largest skipped)."""
    with np.errstate(divide="ignore"):
        s = np.log(np.maximum(w, 0.0)) - grid.log_mass
    idx = np.flatnonzero(w > 1e-12 * w.max())
    bad_a, bad_b = [np.zeros(0, int)], [np.zeros(0, int)]
    for k in range(0, idx.size, chunk):
        i = idx[k:k + chunk]
        d = grid.distance(i[:, None], idx[None, :])
        a, b = np.nonzero(s[i][:, None] - s[idx][None, :] > eps * d + math.log1p(rtol))
        bad_a.append(i[a])
        bad_b.append(idx[b])
    return np.concatenate(bad_a), np.concatenate(bad_b)


class GridLP:
    """The LP of one grid over the pairs of :func:`stencil` (or of ``offsets``)."""

    def __init__(self, grid: Grid, offsets=None):
        self.grid = grid
        if offsets is None:
            offsets, self.rho = stencil(grid, grid.goal.reach)
        else:
            self.rho = math.nan
        self.pa, self.pb = pairs(grid, offsets)
        self.lps = 0

    def value(self, eps: float, upper: bool) -> float:
        self.lps += 1
        return solve(self.grid, self.pa, self.pb, eps, upper)[0]


def crossing(lp: GridLP, target: float, upper: bool, guess: float, xtol: float = 2e-7) -> float:
    """The epsilon where the LP's optimum meets ``target`` (the upper side's optimum is
    nondecreasing in epsilon, the lower side's nonincreasing): secant steps on
    :math:`\\log\\epsilon` against the logit of the optimum from ``guess`` until the root is
    bracketed, then Brent's method (``scipy.optimize.brentq``) to ``xtol`` in
    :math:`\\log\\epsilon`."""
    def logit(v):
        v = min(max(v, 1e-300), 1 - 1e-16)
        return math.log(v) - math.log1p(-v)

    yt = logit(target)
    pts: dict = {}

    def g(le):
        if le not in pts:
            y = logit(lp.value(math.exp(le), upper)) - yt
            pts[le] = y if upper else -y
        return pts[le]

    x0 = math.log(guess)
    g(x0 + (-0.005 if g(x0) > 0 else 0.005))
    for _ in range(40):
        lows = [x for x, v in pts.items() if v <= 0]
        highs = [x for x, v in pts.items() if v > 0]
        if lows and highs and min(highs) > max(lows):
            a, b = max(lows), min(highs)
            break
        (xa, ya), (xb, yb) = sorted(pts.items(), key=lambda kv: abs(kv[1]))[:2]
        step = -yb * (xb - xa) / (yb - ya) if yb != ya else math.copysign(0.5, -yb)
        # overshoot a little so that the next point is likely across
        g(xb + max(-1.0, min(1.0, 1.3 * step + math.copysign(1e-4, step))))
    else:
        raise RuntimeError("no crossing found")
    return math.exp(brentq(g, a, b, xtol=xtol, rtol=1e-15))


@dataclass
class Extrapolation:
    """Richardson extrapolation of values at cell sides h, h/2, h/4."""

    values: list
    limit: float
    order: float  # observed
    error: float  # the estimate the tests use as tolerance


def richardson(values, ratio: float = 2.0) -> Extrapolation:
    r"""Extrapolate the last three values :math:`e_1, e_2, e_3` (cell sides ``h``,
    ``h/ratio``, ``h/ratio^2``).  Observed order :math:`k = \log_{ratio}((e_1 - e_2) / (e_2 -
    e_3))`; limit :math:`e_3 + (e_3 - e_2) / (ratio^k - 1)` with ``k`` clipped to [1, 4].
    Error estimate: the distance to the farther of the limits with orders 1 and 4, so that the
    interval covers every order in between: coarse grids can show a higher order than the
    asymptotic one (the cell relaxation of a kernel's peak converges at about order 1.5, while
    its first refinements can look like order 3 or 4).  Where the differences change sign (no
    observed order) the limit is :math:`e_3` and the error the larger of the last two
    differences."""
    e1, e2, e3 = (float(v) for v in values[-3:])
    if (e1 - e2) * (e2 - e3) > 0:
        k = math.log((e1 - e2) / (e2 - e3), ratio)

        def limit(order):
            return e3 + (e3 - e2) / (ratio**order - 1)

        lim = limit(min(max(k, 1.0), 4.0))
        return Extrapolation(list(values), lim, k, max(abs(lim - limit(1.0)), abs(lim - limit(4.0))))
    return Extrapolation(list(values), e3, math.nan, max(abs(e3 - e2), abs(e2 - e1)))


def oracle_posteriors(goal: OracleGoal, steps_list, eps: float, upper: bool) -> list[float]:
    """The LP's optimum at ``eps`` on each grid of ``steps_list`` (coarse to fine)."""
    return [GridLP(Grid(goal, tuple(s))).value(eps, upper) for s in steps_list]


def oracle_crossings(goal: OracleGoal, steps_list, delta: float, sides=("upper", "lower"),
                     guess: float = 1.0) -> dict:
    """For each side whose target :math:`p \\pm \\delta` lies in (0, 1): the crossing on each
    grid of ``steps_list`` (coarse to fine; each search starts where the coarser grids
    extrapolate to at second order), the cells, LPs and ``rho`` of each grid."""
    p = goal.p()
    out = {}
    for side in sides:
        upper = side == "upper"
        target = p + delta if upper else p - delta
        if not 0 < target < 1:
            continue
        rec: dict = {"eps": [], "cells": [], "lps": [], "rho": []}
        start = guess
        for steps in steps_list:
            lp = GridLP(Grid(goal, tuple(steps)))
            e = crossing(lp, target, upper, start)
            for key, v in (("eps", e), ("cells", lp.grid.n), ("lps", lp.lps), ("rho", lp.rho)):
                rec[key].append(v)
            vals = rec["eps"]
            start = e + (e - vals[-2]) / 3 if len(vals) >= 2 else e * 1.03
        out[side] = rec
    return out


# ------------------------------------------------------------------------------------------
# Witnesses written here: shifted pyramids under l_inf (a mechanism at every epsilon)
# ------------------------------------------------------------------------------------------
def _interval_mass(ax, lo, hi) -> np.ndarray:
    """Prior mass of ``[lo, hi]`` along a numeric axis (arrays; 0 where empty)."""
    lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
    d = ax.dist
    low_half = hi <= float(d.median())
    m = np.where(low_half, d.cdf(hi) - d.cdf(lo), d.sf(lo) - d.sf(hi))
    return np.where(hi > lo, np.maximum(m, 0.0), 0.0)


def pyramid_posterior(goal: OracleGoal, box, eps: float, upper: bool) -> float:
    r"""Posterior of X' under the shifted pyramid :math:`e^{-\epsilon d_\infty(x, C)}` (``upper``;
    the inverted one :math:`e^{+\epsilon d_\infty(x, C)}` otherwise), ``C`` the box ``box`` (per
    axis ``(a, b)``; an atom ``(v, v)`` for a categorical axis), an AND or OR goal under
    :math:`\ell_\infty`.  Layer cake over the level sets :math:`C_s = \{d_\infty(\cdot, C) \le
    s\}` (boxes, so their masses in X' are products of one-axis masses):
    :math:`\int_S e^{-\epsilon d} dF = \int_0^\infty \epsilon e^{-\epsilon s} F(S \cap C_s)\,ds`
    and :math:`\int_S e^{\epsilon d} dF = F(S) + \int_0^\infty \epsilon e^{\epsilon s}
    (F(S) - F(S \cap C_s))\,ds`, by Gauss-Legendre panels (16 nodes, 8 panels between
    consecutive kinks of the integrand) out to 40 standard deviations beyond X'."""
    assert goal.event in ("and", "or") and math.isinf(goal.norm)

    def axis_masses(c, s):
        """Masses along axis c of the band within C_s, and of C_s (arrays over s)."""
        ax = goal.axes[c]
        a, b = box[c]
        if isinstance(ax, CatAxis):
            full = s >= 1
            inband = np.where(full | (a == ax.t), ax.probs[ax.t], 0.0)
            return inband, np.where(full, 1.0, ax.probs[a])
        lo, hi = a - s, b + s
        return (_interval_mass(ax, np.maximum(lo, ax.t - ax.r), np.minimum(hi, ax.t + ax.r)),
                _interval_mass(ax, lo, hi))

    def masses(s):
        (i0, c0), (i1, c1) = axis_masses(0, s), axis_masses(1, s)
        if goal.event == "and":
            return i0 * i1, c0 * c1
        return i0 * c1 + c0 * i1 - i0 * i1, c0 * c1

    (b0, _), (b1, _) = (axis_masses(c, np.full(1, math.inf)) for c in range(2))
    b0, b1 = float(b0[0]), float(b1[0])
    fx = b0 * b1 if goal.event == "and" else b0 + b1 - b0 * b1
    kinks, reach = [], 1.0
    for c, ax in enumerate(goal.axes):
        a, b = box[c]
        if isinstance(ax, CatAxis):
            kinks.append(1.0)
            continue
        lo, hi = ax.dist.support()
        sd = float(ax.dist.std())
        lo, hi = max(lo, ax.t - ax.r - 40 * sd), min(hi, ax.t + ax.r + 40 * sd)
        kinks += [a - (ax.t - ax.r), (ax.t + ax.r) - b, (ax.t - ax.r) - a, b - (ax.t + ax.r), a - lo, hi - b]
        reach = max(reach, a - lo, hi - b)
    cuts = sorted({0.0, reach, *(k for k in kinks if 0 < k < reach)})
    s, w = _panels_between(cuts, 8)
    m_in, m_all = masses(s)
    if upper:
        k = eps * np.exp(-eps * s) * w
        ins = float(k @ m_in) + math.exp(-eps * reach) * fx  # beyond reach C_s holds it all
        tot = float(k @ m_all) + math.exp(-eps * reach)
    else:
        k = eps * np.exp(eps * s) * w
        ins = fx + float(k @ np.maximum(fx - m_in, 0.0))
        tot = 1.0 + float(k @ np.maximum(1.0 - m_all, 0.0))
    return ins / tot


def _panels_between(cuts, per: int):
    """Gauss-Legendre nodes and weights with ``per`` equal panels between consecutive cuts."""
    xs, ws = [], []
    for lo, hi in itertools.pairwise(cuts):
        e = np.linspace(lo, hi, per + 1)
        half = ((e[1:] - e[:-1]) / 2)[:, None]
        xs.append((((e[:-1] + e[1:]) / 2)[:, None] + half * _GL_X).ravel())
        ws.append((half * _GL_W).ravel())
    return np.concatenate(xs), np.concatenate(ws)


def best_pyramid(goal: OracleGoal, eps: float, upper: bool, maxfev: int = 300):
    """The box (and its posterior) of the most extreme pyramid found by Nelder-Mead from the
    middle of X' (numeric axes: both ends free; a categorical axis: the true atom)."""
    from scipy.optimize import minimize

    num = [c for c, ax in enumerate(goal.axes) if isinstance(ax, NumAxis)]

    def box_of(z):
        box = []
        k = 0
        for ax in goal.axes:
            if isinstance(ax, CatAxis):
                box.append((ax.t, ax.t))
            else:
                a, b = sorted(z[k:k + 2])
                box.append((a, b))
                k += 2
        return box

    def f(z):
        v = pyramid_posterior(goal, box_of(z), eps, upper)
        return -v if upper else v

    z0 = []
    for c in num:
        ax = goal.axes[c]
        z0 += [ax.t - ax.r / 3, ax.t + ax.r / 3]
    z0 = np.array(z0)
    step = np.array([goal.axes[c].r / 4 for c in num for _ in range(2)])
    res = minimize(f, z0, method="Nelder-Mead",
                   options={"initial_simplex": [z0] + [z0 + step * np.eye(z0.size)[j] for j in range(z0.size)],
                            "maxfev": maxfev, "xatol": 1e-6, "fatol": 1e-12})
    return box_of(res.x), (-res.fun if upper else res.fun)


def pyramid_crossing(goal: OracleGoal, box, target: float, upper: bool, lo: float, hi: float) -> float:
    """The epsilon where the fixed pyramid ``box`` crosses ``target`` (Brent's method on a
    bracket grown from ``[lo, hi]``)."""
    def g(e):
        v = pyramid_posterior(goal, box, e, upper)
        return (v - target) if upper else (target - v)

    while g(lo) > 0:
        lo /= 1.5
    while g(hi) <= 0:
        hi *= 1.5
    return brentq(g, lo, hi, xtol=1e-12, rtol=1e-10)
