r"""The optimal epsilon of a goal: the largest epsilon at which *no* epsilon-DP mechanism moves
the attacker's posterior of the goal by more than ``delta`` (beyond the paper; Sec. 4.2, 4.3).

Theorems 1 and 2 (and :func:`garesearch.events.epsilon_for_goal`) bound the posterior through a
comparison set, which is sound but loose.  Here the bound is the exact worst case.

The problem
-----------
Records :math:`x = (x_1, \dots, x_n)` have independent attributes with prior
:math:`F = \prod_i F_i`; the distance of two records is :math:`d(x, x') = \lVert (d_i(x_i,
x'_i))_i \rVert_{norm}` (``norm`` in [1, inf]; :math:`d_i = |x_i - x'_i|` for a numeric
attribute, the discrete metric for a categorical one, :math:`\lVert x_i - x'_i\rVert_p` for a
:class:`~garesearch.events.Coordinates` part).  For the true record ``t`` the goal gives the set
:math:`X'` of correct guesses (a box for AND, a union of boxes for OR, an :math:`\ell_p` ball).
Fix one output ``y`` of an :math:`\epsilon`-DP mechanism; its likelihood :math:`L(x) = f(y|x)`
satisfies :math:`L(x) \le e^{\epsilon d(x, x')} L(x')`.  Conversely every such ``L`` (not 0) is
the likelihood of an output of an :math:`\epsilon`-DP mechanism (two outputs, ``y`` with
probability :math:`L/(2\sup L)`; an unbounded ``L`` through :math:`\min(L, n)`, which keeps the
property).  The worst posteriors are

.. math::

    U(\epsilon) = \sup_L \frac{\int_{X'} L\,dF}{\int L\,dF}, \qquad
    V(\epsilon) = \inf_L \frac{\int_{X'} L\,dF}{\int L\,dF},

nondecreasing and nonincreasing in :math:`\epsilon`.  The optimal epsilon at ``t`` is the largest
:math:`\epsilon` with :math:`U - p \le \delta` and :math:`p - V \le \delta`
(:math:`p = F(X')`, Def. 7); ``sides="upper"`` keeps only the first.

What is solved how
------------------
*Finite priors* (every attribute :class:`~garesearch.priors.Categorical`): a linear program after
the Charnes-Cooper transform, :math:`\max \sum_{X'} w_i` s.t. :math:`\sum_i w_i = 1`,
:math:`w_i/m_i \le e^{\epsilon d_{ij}} w_j/m_j`, :math:`w \ge 0` (``w`` the posterior masses,
``m`` the prior masses), solved with HiGHS.  The constraint set is reduced without changing
the optimum: under ``norm=1`` only records that differ in one attribute, by neighbouring
values of a numeric one, are paired (the :math:`\ell_1` distance of a product is the path
distance of the product graph); otherwise the neighbouring records in every direction are
paired and every violated pair is added until the solution satisfies all pairs (checked on
all :math:`N^2` pairs).  Every value is certified from both sides: the LP's dual gives an upper
bound valid for every feasible point (Neumaier-Shcherbina, with the bounds :math:`0 \le w \le
1`), and the primal solution, repaired to satisfy every pair exactly, is a mechanism whose
posterior is computed directly.

*Proved closed forms* (the LP is their test oracle):

- one attribute: the supremum is reached by the Laplace kernel :math:`e^{-\epsilon|x-c|}`, the
  infimum by the inverted kernel :math:`e^{\epsilon|x-c|}`, :math:`c \in X'` (fix ``L`` at the two
  ends of :math:`X'`: outside, ``L`` is smallest when it decays at rate :math:`\epsilon` from the
  ends, inside largest as the tent between them; for the infimum the other way round);
- records under the discrete metric (every attribute categorical and ``norm=inf``, or a single
  categorical attribute): :math:`U = pe^\epsilon/(pe^\epsilon + 1 - p)` and
  :math:`V = p/(p + (1-p)e^\epsilon)` (``L`` may only vary by the factor :math:`e^\epsilon`);
- AND and OR goals of one-coordinate attributes under ``norm=1``:
  :math:`U = P(U_1, \dots, U_n)` and :math:`V = P(V_1, \dots, V_n)`, with :math:`U_i, V_i` the
  one-attribute worst posteriors and :math:`P(q)` the probability of the goal when attribute
  ``i`` is correct with probability :math:`q_i` independently.  Upper bound (any norm): condition
  on the attributes one at a time; integrating ``L`` over the other attributes keeps it
  :math:`\epsilon`-Lipschitz in the remaining one, and :math:`P` is increasing in each
  :math:`q_i`.  Attained under :math:`\ell_1` by the product of the one-attribute kernels
  (Lipschitz for the sum of the distances), which makes the attributes independent given ``y``.
  Under any other norm the same expression is a sound bound (an :math:`\ell_p` distance is at
  most the :math:`\ell_1` distance, so fewer mechanisms are :math:`\epsilon`-DP).

*Continuous attributes* (and mixtures with finite ones), under ``norm`` other than 1: an LP on
a discretisation that gives a **certified bracket** :math:`[\epsilon_{lo}, \epsilon_{hi}]`.
The space is cut into product cells (each inside or outside :math:`X'`), with unbounded end
cells; node values of ``L`` at the cell corners are LP variables with the exact pairwise
constraints between neighbouring nodes; each cell has a variable for :math:`\int_{cell} L\,dF`,
bounded through the nodes of its stencil (its corners and the next ring):
:math:`\int_Q L\,dF \le v_k \int_Q e^{\epsilon d(x, z_k)} dF` and
:math:`\ge v_k \int_Q e^{-\epsilon d(x, z_k)} dF` for every stencil node :math:`z_k` -- true for
every :math:`\epsilon`-DP mechanism.  The integrals of one cone over a product cell are computed
with rigorous bounds (products of one-attribute closed forms under :math:`\ell_1`; under
:math:`\ell_\infty` the layer-cake formula :math:`\int_Q e^{-\epsilon d}dF = \int_0^\infty
\epsilon e^{-\epsilon s} F(Q \cap \{d \le s\})\,ds` with a monotone integrand, bounded by
Riemann sums; other norms between the two).  Using the upper bound inside :math:`X'` and the
lower one outside gives a relaxation: its dual-certified optimum bounds :math:`U` from above,
so :math:`\epsilon_{lo}` is sound.  The LP's node values, repaired to an exactly Lipschitz
profile, define the witness :math:`L^*(x) = \max_k v_k e^{-\epsilon d(x, z_k)}` (an
:math:`\epsilon`-DP mechanism); bounding its cell integrals the other way gives a lower bound
on its posterior, which exceeds :math:`p + \delta` at :math:`\epsilon_{hi}`.  Cells are refined
where the two bounds differ most until the bracket's relative width reaches ``rtol`` or the
budget runs out.  The lower side is the mirror image.

What the worst case looks like (not in the paper; evidence in the tests):
:math:`\ell_1` separates (product of kernels); under :math:`\ell_\infty` with a product prior the
optimum for an AND box on the LP grids is mostly a "shifted pyramid" :math:`e^{-\epsilon
d_\infty(x, C)}` with ``C`` inside the box, but not always (finite priors give optima with
several levels inside :math:`X'`); for OR goals it is typically the larger of two such kernels
at different heights.  No finite family is proved optimal there, so the LP is used.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InfeasibleError, ParameterError
from .events import AllOf, AnyOf, Attribute, Coordinates, or_probability
from .priors import Categorical, Continuous, Normal, PiecewiseUniform, Prior

__all__ = ["OptimalGoalResult", "optimal_epsilon", "worst_posterior"]

_SIDES = ("both", "upper")
_MAX_RECORDS = 20_000  # finite LP: largest product support
_MAX_T = 2_000  # t=None: largest number of true records enumerated
_LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


# ------------------------------------------------------------------------------------------
# The goal, flattened into coordinates and parts
# ------------------------------------------------------------------------------------------
@dataclass
class _Part:
    """One part of a goal: a numeric or categorical attribute, or a ball of coordinates."""

    obj: Any
    kind: str  # "num", "disc" or "ball"
    coords: tuple[int, ...]
    r: float
    pball: float = math.inf  # inner norm of a ball


@dataclass
class _Model:
    parts: list[_Part]
    priors: list[Prior]  # one per coordinate
    discrete: list[bool]  # per coordinate
    terms: list[tuple[int, ...]]  # OR of AND-sets of part indices
    norm: float
    labels: list[str]

    @property
    def finite(self) -> bool:
        return all(isinstance(p, Categorical) for p in self.priors)

    @property
    def ncoord(self) -> int:
        return len(self.priors)


def _is_real(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _check_norm(norm) -> float:
    if not _is_real(norm) or math.isnan(norm) or norm < 1:
        raise ParameterError(f"norm must be a number in [1, inf] (the l_p norm); got {norm!r}")
    return float(norm)


def _model(goal, norm) -> _Model:
    if not isinstance(goal, (Attribute, Coordinates, AllOf, AnyOf)):
        raise ParameterError(
            f"goal must be an Attribute, Coordinates or a combination with & and |; got {type(goal).__name__}")
    terms = goal.terms()
    objs: list = []
    for term in terms:
        for part in term:
            if not any(part is o for o in objs):
                objs.append(part)
    for x, y in itertools.combinations(objs, 2):
        if any(u is v for u in x.prior_objects for v in y.prior_objects):
            raise ParameterError(
                f"parts {x.label} and {y.label} share one prior object: the attributes of a goal must "
                "be independent (give each its own prior, or describe correlated ones by a joint prior)")
        if x.name is not None and x.name == y.name:
            raise ParameterError(f"two different parts are both named {x.name!r}")
    parts, priors, discrete = [], [], []
    for obj in objs:
        start = len(priors)
        if isinstance(obj, Coordinates):
            priors.extend(obj.priors)
            discrete.extend([False] * obj.dim)
            parts.append(_Part(obj, "ball", tuple(range(start, start + obj.dim)), obj.r, obj.norm))
        else:
            priors.append(obj.prior)
            discrete.append(bool(obj.discrete))
            parts.append(_Part(obj, "disc" if obj.discrete else "num", (start,), obj.r))
    index = {id(o): k for k, o in enumerate(objs)}
    tms = [tuple(index[id(part)] for part in term) for term in terms]
    labels = [o.name if o.name else f"x{k}" for k, o in enumerate(objs)]
    return _Model(parts, priors, discrete, tms, norm, labels)


def _resolve_t(model: _Model, t) -> list:
    """True values per part, from ``{name: value}`` or a sequence in order of appearance."""
    objs = [part.obj for part in model.parts]
    if isinstance(t, dict):
        out = []
        for o in objs:
            if o.name is None or o.name not in t:
                raise ParameterError(
                    f"t: no value for part {o.label}; give t as {{name: value}} with every part named, "
                    "or as a sequence in the order the parts appear")
            out.append(o.check_t(t[o.name]))
        extra = set(t) - {o.name for o in objs}
        if extra:
            raise ParameterError(f"t: unknown part names {sorted(extra)}")
        return out
    if isinstance(t, np.ndarray):
        t = t.tolist()
    if isinstance(t, (str, bytes)) or not isinstance(t, Sequence):
        raise ParameterError(f"t must be a mapping or a sequence with one value per part; got {t!r}")
    if len(objs) == 1 and isinstance(objs[0], Coordinates) and all(_is_real(v) for v in t):
        return [objs[0].check_t(t)]
    if len(t) != len(objs):
        raise ParameterError(f"t must have one value per part ({len(objs)}); got {len(t)}")
    return [o.check_t(v) for o, v in zip(objs, t, strict=True)]


def _t_coords(model: _Model, tv) -> list:
    """True value per coordinate (ball parts spread over their coordinates)."""
    out: list = [None] * model.ncoord
    for part, tp in zip(model.parts, tv, strict=True):
        if part.kind == "ball":
            for c, v in zip(part.coords, tp, strict=True):
                out[c] = float(v)
        else:
            out[part.coords[0]] = tp
    return out


def _p_goal(model: _Model, tv) -> float:
    """Prior probability of X' (inclusion-exclusion over the AND-sets)."""
    goal = _rebuild(model)
    if isinstance(goal, (Attribute, Coordinates)):
        return float(goal.g(tv[0], goal.r))
    return float(or_probability(goal, list(tv)))


def _rebuild(model: _Model):
    objs = [part.obj for part in model.parts]
    terms = [[objs[k] for k in term] for term in model.terms]
    if len(terms) == 1 and len(terms[0]) == 1:
        return terms[0][0]
    ands = [term[0] if len(term) == 1 else AllOf(*term) for term in terms]
    return ands[0] if len(ands) == 1 else AnyOf(*ands)


# ------------------------------------------------------------------------------------------
# Distances and membership on arrays of records (one column per coordinate)
# ------------------------------------------------------------------------------------------
def _combine(parts_d: list[np.ndarray], norm: float) -> np.ndarray:
    if len(parts_d) == 1:
        return parts_d[0]
    stack = np.stack(parts_d, axis=-1)
    if math.isinf(norm):
        return stack.max(axis=-1)
    if norm == 1:
        return stack.sum(axis=-1)
    return (stack**norm).sum(axis=-1) ** (1.0 / norm)


def _part_distance(part: _Part, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Distance of the part between records ``X`` (..., ncoord) and ``Y`` (broadcast)."""
    if part.kind == "disc":
        c = part.coords[0]
        return (X[..., c] != Y[..., c]).astype(float)
    diffs = [np.abs(X[..., c] - Y[..., c]) for c in part.coords]
    if len(diffs) == 1:
        return diffs[0]
    return _combine(diffs, part.pball)


def _distance(model: _Model, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    return _combine([_part_distance(part, X, Y) for part in model.parts], model.norm)


def _inside(model: _Model, X: np.ndarray, tc) -> np.ndarray:
    """Whether records ``X`` (..., ncoord) reach the goal for the true values ``tc``."""
    within = []
    for part in model.parts:
        if part.kind == "disc":
            c = part.coords[0]
            within.append(X[..., c] == tc[c])
        elif part.kind == "num":
            c = part.coords[0]
            within.append(np.abs(X[..., c] - tc[c]) <= part.r)
        else:
            d = _combine([np.abs(X[..., c] - tc[c]) for c in part.coords], part.pball)
            within.append(d <= part.r * (1 + 1e-12))
    out = np.zeros(X.shape[:-1], dtype=bool)
    for term in model.terms:
        acc = np.ones(X.shape[:-1], dtype=bool)
        for k in term:
            acc &= within[k]
        out |= acc
    return out


# ------------------------------------------------------------------------------------------
# Linear programs with certified bounds
# ------------------------------------------------------------------------------------------
def _linprog(cost, A_ub, a_eq, ub):
    """HiGHS with tight tolerances (dual simplex, then interior point)."""
    from scipy.optimize import linprog

    last = None
    for method in ("highs-ds", "highs-ipm"):
        res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=a_eq[None, :], b_eq=[1.0],
                      bounds=np.stack([np.zeros_like(ub), ub], axis=1), method=method,
                      options=_LP_OPTIONS)
        if res.status == 0:
            return res
        last = res
    raise InfeasibleError(
        f"the linear program could not be solved ({last.message}); use a coarser discretisation "
        "(larger rtol) or fewer attributes")


def _certified(res, obj, A_ub, a_eq, ub, upper: bool) -> float:
    r"""A bound on the LP's optimum valid for every feasible point, from its approximate dual.

    For ``upper`` (maximise ``obj @ x``): with :math:`y = \max(0, -\text{marginals}) \ge 0` and
    any :math:`\lambda`, :math:`obj^T x \le \lambda + \sum_k u_k \max(0, r_k - \lambda a_k)`,
    :math:`r = obj - A^T y`, for all ``x`` with :math:`Ax \le 0`, :math:`a^Tx = 1`,
    :math:`0 \le x \le u`; minimised over :math:`\lambda` exactly.  For the minimum, the mirror
    image with :math:`r = obj + A^T y`.
    """
    y = np.maximum(0.0, -np.asarray(res.ineqlin.marginals, dtype=float))
    aty = A_ub.T @ y
    r = obj - aty if upper else obj + aty
    if not upper:  # min obj.x >= -(max (-obj).x): reuse the maximisation formula on -r
        r = -r
    free = a_eq <= 0
    const = float(np.sum(np.maximum(0.0, r[free]) * ub[free]))
    ra, aa, ua = r[~free], a_eq[~free], ub[~free]
    bp = ra / aa
    order = np.argsort(-bp)
    cum = np.cumsum((ua * aa)[order])
    k = int(np.searchsorted(cum, 1.0))  # slope of the bound changes sign here
    lam = float(bp[order][min(k, bp.size - 1)])
    val = lam + const + float(np.sum(ua * np.maximum(0.0, ra - lam * aa)))
    val = val * (1 + 4e-15) + 1e-300
    return val if upper else -val


def _logsumexp(x: np.ndarray) -> float:
    if x.size == 0:
        return -math.inf
    m = float(np.max(x))
    if not math.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(x - m))))


# ------------------------------------------------------------------------------------------
# Searching epsilon on one side
# ------------------------------------------------------------------------------------------
@dataclass
class _Side:
    """Certified bracket of one side: ``lo`` safe, ``hi`` shown unsafe by ``witness``."""

    lo: float
    hi: float
    witness: Any = None
    posterior: float = math.nan  # witness posterior (a bound) at hi
    lps: int = 0
    size: dict = field(default_factory=dict)


def _root(fun, target, upper, lo=0.0, hi=math.inf, scale=1.0, rtol=1e-13):
    r"""Smallest :math:`\epsilon` found (bracketing from ``lo``, then bisection in
    :math:`\log\epsilon` to relative width ``rtol``) with ``fun(eps) > target`` (upper side)
    or ``< target`` (lower side); ``inf`` if there is none below 1e12 / ``scale``."""
    def bad(e):
        v = fun(e)
        return v > target if upper else v < target

    a = lo if lo > 0 else 1e-6 / scale
    while bad(a):
        a /= 8
        if a < 1e-14 / scale:
            return a
    b = hi if math.isfinite(hi) and hi > a else a * 4
    while not bad(b):
        a, b = b, b * 4
        if b > 1e12 / scale:
            return math.inf
    while b / a - 1 > rtol:
        m = math.sqrt(a * b)
        if not a < m < b:
            break
        if bad(m):
            b = m
        else:
            a = m
    return b


# ------------------------------------------------------------------------------------------
# Finite priors: the exact LP over the product support
# ------------------------------------------------------------------------------------------
def _coord_values(prior: Categorical, discrete: bool) -> np.ndarray:
    """Values of a finite coordinate as floats (categorical values as their index)."""
    if discrete:
        return np.arange(len(prior.values), dtype=float)
    return np.array([float(v) for v in prior.values])


def _t_codes(model: _Model, tc) -> list:
    """True value per coordinate, with categorical values replaced by their index."""
    out = list(tc)
    for c, (prior, disc) in enumerate(zip(model.priors, model.discrete, strict=True)):
        if disc:
            out[c] = float(prior.values.index(tc[c]))
    return out


class _Records:
    """The product support of a finite goal: records, prior masses, and which are in X'."""

    def __init__(self, model: _Model):
        vals = [_coord_values(p, d) for p, d in zip(model.priors, model.discrete, strict=True)]
        n = math.prod(len(v) for v in vals)
        if n > _MAX_RECORDS:
            raise ParameterError(
                f"goal: the product support has {n} records, more than the {_MAX_RECORDS} the exact LP "
                "handles; use fewer values per attribute")
        self.model = model
        self.vals = vals
        grids = np.meshgrid(*vals, indexing="ij")
        self.X = np.stack([g.ravel() for g in grids], axis=1)
        probs = np.meshgrid(*[np.asarray(p.probs, dtype=float) for p in model.priors], indexing="ij")
        self.logm = np.sum([np.log(g.ravel()) for g in probs], axis=0)
        self.m = np.exp(self.logm)
        self.shape = tuple(len(v) for v in vals)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    def distance(self, i, j) -> np.ndarray:
        return _distance(self.model, self.X[i], self.X[j])

    def network(self) -> tuple[np.ndarray, bool]:
        """Initial pairs (i < j) and whether they already give the exact LP (Cartesian product
        graph under norm 1: every l_1 distance is a path of single-coordinate steps)."""
        model = self.model
        cart = model.norm == 1 and all(p.kind != "ball" or p.pball == 1 for p in model.parts)
        steps = []
        for c, v in enumerate(self.vals):
            k = len(v)
            if model.discrete[c]:
                steps.append([(a, b) for a in range(k) for b in range(k) if a != b])
            else:
                steps.append([(a, a + 1) for a in range(k - 1)] + [(a + 1, a) for a in range(k - 1)])
        idx = np.arange(self.n).reshape(self.shape)
        pairs = []
        if cart:
            for c, st in enumerate(steps):
                for a, b in st:
                    sl_a = [slice(None)] * len(self.shape)
                    sl_b = [slice(None)] * len(self.shape)
                    sl_a[c], sl_b[c] = a, b
                    pairs.append(np.stack([idx[tuple(sl_a)].ravel(), idx[tuple(sl_b)].ravel()], 1))
        else:
            options = [[None, *st] for st in steps]
            for combo in itertools.product(*options):
                if all(s is None for s in combo):
                    continue
                sl_a, sl_b = [], []
                for s in combo:
                    sl_a.append(slice(None) if s is None else s[0])
                    sl_b.append(slice(None) if s is None else s[1])
                pairs.append(np.stack([idx[tuple(sl_a)].ravel(), idx[tuple(sl_b)].ravel()], 1))
        P = np.concatenate(pairs) if pairs else np.zeros((0, 2), dtype=int)
        P = np.sort(P, axis=1)
        P = np.unique(P[P[:, 0] != P[:, 1]], axis=0)
        return P, cart

    def violations(self, s: np.ndarray, tol: float = 1e-9, cap: int | None = None) -> np.ndarray:
        """Pairs (i, j) with ``s_i - s_j > d_ij`` (a profile that is not 1-Lipschitz)."""
        out = []
        chunk = max(1, 4_000_000 // max(self.n, 1))
        for a in range(0, self.n, chunk):
            rows = np.arange(a, min(a + chunk, self.n))
            D = _distance(self.model, self.X[rows][:, None, :], self.X[None, :, :])
            gap = s[rows][:, None] - s[None, :] - D * (1 + tol) - tol
            i, j = np.nonzero(gap > 0)
            if i.size:
                out.append(np.stack([rows[i], j], 1))
        if not out:
            return np.zeros((0, 2), dtype=int)
        V = np.concatenate(out)
        if cap is not None and len(V) > cap:
            gap = s[V[:, 0]] - s[V[:, 1]] - self.distance(V[:, 0], V[:, 1])
            V = V[np.argsort(-gap)[:cap]]
        return V

    def repair(self, s: np.ndarray, how: str) -> np.ndarray:
        """The lower (``max_j s_j - d_ij``) or upper (``min_j s_j + d_ij``) McShane
        extension of ``s`` over all records: an exactly 1-Lipschitz profile."""
        out = np.empty_like(s)
        chunk = max(1, 4_000_000 // max(self.n, 1))
        for a in range(0, self.n, chunk):
            rows = np.arange(a, min(a + chunk, self.n))
            D = _distance(self.model, self.X[rows][:, None, :], self.X[None, :, :])
            out[rows] = (s[None, :] - D).max(axis=1) if how == "lower" else (s[None, :] + D).min(axis=1)
        return out


class _FiniteWitness:
    """A 1-Lipschitz profile ``s``: the mechanism with likelihood :math:`e^{\\epsilon s}` at any
    :math:`\\epsilon`; its posterior of X' is computed exactly (finite sums)."""

    def __init__(self, s, logm, inside):
        self.s, self.logm, self.inside = s, logm, inside

    def posterior(self, eps: float) -> float:
        lw = self.logm + eps * self.s
        return math.exp(_logsumexp(lw[self.inside]) - _logsumexp(lw))


def _finite_lp(rec: _Records, inside, eps, upper, pairs):
    """Solve the Charnes-Cooper LP on the given pairs; returns (certified bound, profile, value)."""
    import scipy.sparse as sp

    n = rec.n
    i, j = pairs[:, 0], pairs[:, 1]
    d = rec.distance(i, j)
    # w_i/m_i <= e^{eps d} w_j/m_j  <=>  w_i - e^{eps d + log m_i - log m_j} w_j <= 0
    k1 = np.exp(eps * d + rec.logm[i] - rec.logm[j])
    k2 = np.exp(eps * d + rec.logm[j] - rec.logm[i])
    m = len(i)
    rows = np.concatenate([np.arange(m), np.arange(m), m + np.arange(m), m + np.arange(m)])
    cols = np.concatenate([i, j, j, i])
    vals = np.concatenate([np.ones(m), -k1, np.ones(m), -k2])
    A = sp.csr_matrix((vals, (rows, cols)), shape=(2 * m, n))
    obj = inside.astype(float)
    a = np.ones(n)
    ub = np.ones(n)
    res = _linprog(-obj if upper else obj, A, a, ub)
    bound = _certified(res, obj, A, a, ub, upper)
    w = np.maximum(res.x, 1e-300)
    s = (np.log(w) - rec.logm) / eps
    return bound, s - s.max(), float(obj @ res.x)


def _finite_side(rec: _Records, inside, target, upper, rtol, eps0=None):
    """Certified bracket of one side for a finite goal (exact LP with cutting planes)."""
    pairs, exact = rec.network()
    lps = 0
    if pairs.shape[0] == 0:  # one record: nothing can move
        return _Side(math.inf, math.inf)

    def solve(eps):
        nonlocal pairs, lps
        while True:
            bound, s, _value = _finite_lp(rec, inside, eps, upper, pairs)
            lps += 1
            if exact:
                break
            new = rec.violations(s, cap=20 * rec.n)
            if new.shape[0] == 0:
                break
            new = np.unique(np.sort(new, axis=1), axis=0)
            pairs = np.unique(np.concatenate([pairs, new]), axis=0)
        best = None
        for how in ("lower", "upper"):
            wit = _FiniteWitness(rec.repair(s, how), rec.logm, inside)
            val = wit.posterior(eps)
            if best is None or (val > best[1] if upper else val < best[1]):
                best = (wit, val)
        return bound, best[0]

    return _search(solve, target, upper, rtol, eps0, scale=1.0, lps=lambda: lps,
                   size=lambda: {"records": rec.n, "pairs": int(pairs.shape[0])})


def _search(solve, target, upper, rtol, eps0, scale, lps, size, budget=math.inf):
    """Certified bracket of one side: ``lo`` with a certified bound on the safe side of
    ``target``, ``hi`` where a witness mechanism crosses it.  Each step solves at ``trial``:
    a certified trial raises ``lo``; the witness of every step lowers ``hi`` to the epsilon at
    which its posterior crosses ``target`` (exact for a finite prior once the LP's optimal
    vertex is found, so typically two or three steps suffice)."""
    t_start = time.perf_counter()
    lo, hi, up, wit_hi = 0.0, math.inf, math.inf, None
    trial = eps0 if eps0 and eps0 > 0 and math.isfinite(eps0) else 1.0 / scale
    for _ in range(60):
        bound, wit = solve(trial)
        safe = bound <= target if upper else bound >= target
        if safe:
            lo = max(lo, trial)
        else:
            up = min(up, trial)
        root = _root(wit.posterior, target, upper, scale=scale)
        if root < hi:
            hi, wit_hi = root, wit
        if math.isfinite(hi) and lo > 0 and hi - lo <= rtol * hi:
            break
        if time.perf_counter() - t_start > budget:
            break
        top = min(hi, up)
        if not math.isfinite(top):
            trial = trial * 4
        elif lo < hi * (1 - rtol / 2) < up:
            trial = hi * (1 - rtol / 2)
        else:
            trial = math.sqrt(lo * top) if lo > 0 else top / 4
    post = wit_hi.posterior(hi) if wit_hi is not None and math.isfinite(hi) else math.nan
    return _Side(lo, hi, wit_hi, post, lps(), size())


# ------------------------------------------------------------------------------------------
# One attribute: the Laplace kernel and the inverted kernel (proved optimal)
# ------------------------------------------------------------------------------------------
def _log_diff_ndtr(a, b):
    """log(Phi(b) - Phi(a)) for a <= b, accurate in both tails."""
    from scipy.special import log_ndtr

    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    flip = a > 0
    hi = np.where(flip, log_ndtr(-a), log_ndtr(b))
    lo = np.where(flip, log_ndtr(-b), log_ndtr(a))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = hi + np.log1p(-np.exp(np.minimum(lo - hi, 0.0)))
    return np.where(b > a, out, -np.inf)


def _log_tilted(prior: Prior, k: float, lo, hi, c) -> np.ndarray:
    r""":math:`\log \int_{[lo, hi]} e^{k (x - c)}\,dF(x)` for a numeric prior (``-inf`` for no
    mass, ``inf`` where the integral diverges), vectorised over ``lo, hi, c``."""
    lo, hi, c = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float), np.asarray(c, float))
    if isinstance(prior, Normal):
        mu, s = prior.mu, prior.sigma
        m = mu + k * s * s
        out = k * (mu - c) + 0.5 * (k * s) ** 2 + _log_diff_ndtr((lo - m) / s, (hi - m) / s)
        return np.where(hi >= lo, out, -np.inf)
    if isinstance(prior, Categorical):
        x = np.array([float(v) for v in prior.values])
        lp = np.log(np.asarray(prior.probs, float))
        inside = (x[None, :] >= lo.ravel()[:, None]) & (x[None, :] <= hi.ravel()[:, None])
        terms = np.where(inside, lp[None, :] + k * (x[None, :] - c.ravel()[:, None]), -np.inf)
        mx = terms.max(axis=1, keepdims=True)
        safe = np.where(np.isfinite(mx), mx, 0.0)
        with np.errstate(divide="ignore"):
            out = (safe + np.log(np.exp(terms - safe).sum(axis=1, keepdims=True))).ravel()
        return out.reshape(lo.shape)
    if isinstance(prior, PiecewiseUniform):
        acc = np.full(lo.shape, -np.inf)
        for a0, b0, dens in zip(prior.edges[:-1], prior.edges[1:], prior.density, strict=True):
            if dens <= 0:
                continue
            a, b = np.maximum(lo, a0), np.minimum(hi, b0)
            ok = b > a
            a, b = np.where(ok, a, 0.0), np.where(ok, b, 1.0)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                if k == 0:
                    term = np.log(b - a)
                elif k > 0:
                    term = k * (b - c) + np.log(-np.expm1(-k * (b - a))) - math.log(k)
                else:
                    term = k * (a - c) + np.log(-np.expm1(k * (b - a))) - math.log(-k)
            acc = np.logaddexp(acc, np.where(ok, term + math.log(dens), -np.inf))
        return acc
    if isinstance(prior, Continuous):
        return _tilted_table(prior, k).log_integral(lo, hi) - k * c
    raise ParameterError(f"no tilted integral for a prior of type {type(prior).__name__}")


_TABLES: Any = None
_GL16 = np.polynomial.legendre.leggauss(16)


def _tilted_table(prior: Continuous, k: float) -> _TiltedTable:
    """The cached :class:`_TiltedTable` of a scipy prior (one per prior object), at ``k``."""
    global _TABLES
    import weakref

    if _TABLES is None:
        _TABLES = weakref.WeakKeyDictionary()
    if prior not in _TABLES:
        _TABLES[prior] = _TiltedTable(prior)
    table = _TABLES[prior]
    table.at(k)
    return table


class _TiltedTable:
    r"""Tilted masses :math:`\int_{lo}^{hi} e^{kx}\,dF(x)` of a scipy prior: 16-point
    Gauss-Legendre panels between the quantiles :math:`10^{-13}` and :math:`1 - 10^{-13}`,
    continued by panels of doubling width into unbounded tails (until the prior's density
    has fallen by :math:`e^{-800}` or 60 doublings), summed in log scale; exact for the
    panels' polynomial degree, about 1e-12 relative for smooth densities."""

    def __init__(self, prior: Continuous):
        self.prior = prior
        dist = prior.dist
        tails = np.geomspace(1e-13, 1e-3, 40)
        e = np.concatenate([np.asarray(dist.ppf(tails), float),
                            np.asarray(dist.ppf(np.linspace(1e-3, 1 - 1e-3, 400)), float),
                            np.asarray(dist.isf(tails[::-1]), float)])
        e = np.unique(e[np.isfinite(e)])
        low, high = prior.support
        width = max(e[-1] - e[0], 1e-300)
        ext_lo, ext_hi = [], []
        for side, bound, out in ((-1, low, ext_lo), (1, high, ext_hi)):
            x0 = e[0] if side < 0 else e[-1]
            ref = float(dist.logpdf(x0))
            step = width / 8
            for _ in range(60):
                x = x0 + side * step
                if (side < 0 and x <= bound) or (side > 0 and x >= bound):
                    if math.isfinite(bound):
                        out.append(bound)
                    break
                out.append(x)
                if float(dist.logpdf(x)) < ref - 800:
                    break
                step *= 2
        self.edges = np.unique(np.concatenate([ext_lo, e, ext_hi]))
        a, b = self.edges[:-1], self.edges[1:]
        half = (b - a) / 2
        self.nodes = (a + half)[:, None] + half[:, None] * _GL16[0]
        with np.errstate(divide="ignore"):
            self.logw = np.asarray(dist.logpdf(self.nodes), float) + np.log(half)[:, None] + np.log(_GL16[1])
        self.k = None

    def at(self, k: float) -> None:
        if self.k == k:
            return
        self.k = k
        up_rate, down_rate = self.prior.tail_rates()
        low, high = self.prior.support
        self.diverges_up = math.isinf(high) and k >= up_rate
        self.diverges_down = math.isinf(low) and -k >= down_rate
        panel = _lse_rows(k * self.nodes + self.logw)
        self.cum = np.concatenate([[-np.inf], np.logaddexp.accumulate(panel)])

    def _partial(self, a, b):
        """log of the integral over [a, b] (a <= b inside one panel)."""
        half = (b - a) / 2
        x = (a + half)[..., None] + half[..., None] * _GL16[0]
        with np.errstate(divide="ignore"):
            lw = np.asarray(self.prior.dist.logpdf(x), float) + np.log(np.where(half > 0, half, 1.0))[..., None]
        out = _lse_rows(self.k * x + lw + np.log(_GL16[1]))
        return np.where(half > 0, out, -np.inf)

    def log_cdf(self, x) -> np.ndarray:
        """log of the integral from the lower end of the support to ``x``."""
        x = np.clip(np.asarray(x, float), self.edges[0], self.edges[-1])
        j = np.clip(np.searchsorted(self.edges, x, side="right") - 1, 0, self.edges.size - 2)
        return np.logaddexp(self.cum[j], self._partial(self.edges[j], x))

    def log_integral(self, lo, hi) -> np.ndarray:
        lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
        out = np.full(lo.shape, -np.inf)
        ok = hi > lo
        if not np.any(ok):
            return out
        a = np.clip(lo[ok], self.edges[0], self.edges[-1])
        b = np.clip(hi[ok], self.edges[0], self.edges[-1])
        ja = np.searchsorted(self.edges, a, side="right") - 1
        jb = np.searchsorted(self.edges, b, side="right") - 1
        same = ja == jb
        vals = np.empty(a.shape)
        vals[same] = self._partial(a[same], b[same])
        if np.any(~same):
            la, lb = self.log_cdf(a[~same]), self.log_cdf(b[~same])
            with np.errstate(invalid="ignore", divide="ignore"):
                vals[~same] = lb + np.log1p(-np.exp(np.minimum(la - lb, 0.0)))
        div = (np.isinf(hi[ok]) & (hi[ok] > 0) & self.diverges_up) | (np.isinf(lo[ok]) & (lo[ok] < 0) & self.diverges_down)
        vals[div] = np.inf
        out[ok] = vals
        return out


def _lse_rows(terms: np.ndarray) -> np.ndarray:
    """log-sum-exp over the last axis."""
    m = np.max(terms, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return m[..., 0] + np.log(np.sum(np.exp(terms - m), axis=-1))


class _Kernel1D:
    r"""One numeric attribute: posterior of :math:`X' = [l, h]` under the kernel
    :math:`e^{s\epsilon|x - c|}` (``s = -1`` Laplace, ``+1`` inverted), as odds ``A/B``."""

    def __init__(self, prior: Prior, t: float, r: float):
        self.prior = prior
        self.l, self.h = prior.correct_extent(t, r)
        self.low, self.high = prior.support
        self.atoms = (np.array([float(v) for v in prior.values]) if isinstance(prior, Categorical)
                      else None)

    def log_parts(self, eps, c, s):
        """(log A, log B) at centres ``c`` (array) for the kernel of sign ``s``."""
        c = np.asarray(c, dtype=float)
        P = self.prior
        if self.atoms is not None:
            x, lp = self.atoms, np.log(np.asarray(P.probs, float))
            logk = lp[None, :] + s * eps * np.abs(x[None, :] - c.ravel()[:, None])
            ins = (x >= self.l) & (x <= self.h)
            la = np.array([_logsumexp(row[ins]) for row in logk])
            lb = np.array([_logsumexp(row[~ins]) for row in logk])
            return la.reshape(c.shape), lb.reshape(c.shape)
        kl, kr = -s * eps, s * eps  # x <= c: e^{-s eps (x - c)};  x >= c: e^{s eps (x - c)}
        la = np.logaddexp(_log_tilted(P, kl, self.l, c, c), _log_tilted(P, kr, c, self.h, c))
        lb = np.logaddexp(_log_tilted(P, kl, self.low, self.l, c), _log_tilted(P, kr, self.h, self.high, c))
        return la, lb

    def log_odds(self, eps, c, s):
        la, lb = self.log_parts(eps, c, s)
        with np.errstate(invalid="ignore"):
            return np.where(np.isinf(lb) & (lb > 0), -np.inf, la - lb)

    def extreme(self, eps, s, upper):
        r"""Certified extreme of the log odds over :math:`c \in [l, h]`: returns
        ``(bound, best_c, best_value)``; for finite priors exact (between atoms the odds are
        monotone in :math:`e^{2\epsilon c}`), else branch and bound with the Lipschitz constant
        :math:`2\epsilon` of the log odds in ``c``."""
        sign = 1.0 if upper else -1.0
        if self.atoms is not None or self.h <= self.l:
            cs = [self.l, self.h]
            if self.atoms is not None:
                cs += [a for a in self.atoms if self.l <= a <= self.h]
            cs = np.unique(np.array(cs))
            vals = sign * self.log_odds(eps, cs, s)
            i = int(np.nanargmax(vals))
            return sign * vals[i], float(cs[i]), sign * vals[i]
        cs = np.linspace(self.l, self.h, 257)
        vals = sign * self.log_odds(eps, cs, s)
        vals = np.where(np.isnan(vals), -np.inf, vals)
        i = int(np.argmax(vals))
        best_c, best = float(cs[i]), float(vals[i])
        # refine the witness by golden-section search between the grid neighbours
        from scipy.optimize import minimize_scalar

        a0, b0 = cs[max(i - 1, 0)], cs[min(i + 1, cs.size - 1)]
        if b0 > a0:
            res = minimize_scalar(lambda c: -sign * float(self.log_odds(eps, np.array([c]), s)[0]),
                                  bounds=(a0, b0), method="bounded", options={"xatol": 1e-12 * max(1.0, abs(b0))})
            if -res.fun > best:
                best_c, best = float(res.x), float(-res.fun)
        # certify: the log odds are 2 eps-Lipschitz in c; split every interval whose bound
        # can still exceed the best value
        a, b, fa, fb = cs[:-1], cs[1:], vals[:-1], vals[1:]
        tol = 1e-8 * max(1.0, abs(best))
        for _ in range(40):
            ub = (fa + fb) / 2 + eps * (b - a)
            keep = ub > best + tol
            if not np.any(keep) or keep.sum() > 20000:
                break
            a, b, fa, fb = a[keep], b[keep], fa[keep], fb[keep]
            pts = a[:, None] + (b - a)[:, None] * np.array([0.25, 0.5, 0.75])[None, :]
            pv = sign * self.log_odds(eps, pts.ravel(), s).reshape(pts.shape)
            pv = np.where(np.isnan(pv), -np.inf, pv)
            j = np.unravel_index(int(np.argmax(pv)), pv.shape)
            if pv[j] > best:
                best, best_c = float(pv[j]), float(pts[j])
            ends = np.concatenate([a[:, None], pts, b[:, None]], axis=1)
            vend = np.concatenate([fa[:, None], pv, fb[:, None]], axis=1)
            a, b = ends[:, :-1].ravel(), ends[:, 1:].ravel()
            fa, fb = vend[:, :-1].ravel(), vend[:, 1:].ravel()
        ub = (fa + fb) / 2 + eps * (b - a)
        keep = ub > best + tol
        top = max(best + tol, float(ub[keep].max())) if np.any(keep) else best + tol
        return sign * top, best_c, sign * best


def _odds_to_post(lo):
    """Posterior from log odds, accurate at both ends."""
    lo = float(lo)
    if lo == math.inf:
        return 1.0
    if lo == -math.inf:
        return 0.0
    return 1.0 / (1.0 + math.exp(-lo)) if lo > -700 else math.exp(lo)


class _KernelWitness:
    """The one-attribute kernel with a fixed centre: a mechanism at every epsilon."""

    def __init__(self, ker: _Kernel1D, c: float, s: float):
        self.ker, self.c, self.s = ker, c, s

    def posterior(self, eps: float) -> float:
        return _odds_to_post(self.ker.log_odds(eps, np.array([self.c]), self.s)[0])


class _DiscreteWitness:
    r"""The likelihood :math:`e^{\pm\epsilon 1[x \in X']}` under the discrete metric."""

    def __init__(self, p: float, upper: bool):
        self.p, self.upper = p, upper

    def posterior(self, eps: float) -> float:
        k = eps if self.upper else -eps
        return _odds_to_post(math.log(self.p) - math.log1p(-self.p) + k)


def _one_attribute_side(prior, t, r, target, upper, rtol):
    """Certified bracket of one side for one numeric attribute (kernel search)."""
    ker = _Kernel1D(prior, t, r)
    s = -1.0 if upper else 1.0
    count = [0]

    def solve(eps):
        count[0] += 1
        bound, c, _ = ker.extreme(eps, s, upper)
        return _odds_to_post(bound), _KernelWitness(ker, c, s)

    scale = max(ker.h - ker.l, _spread(prior), 1e-300)
    return _search(solve, target, upper, rtol, 1.0 / scale, scale, lambda: count[0],
                   lambda: {"kernel_evaluations": count[0]})


def _spread(prior: Prior) -> float:
    """A length scale of the prior (interquartile range, or range of a finite prior)."""
    if isinstance(prior, Categorical):
        x = np.array([float(v) for v in prior.values])
        return float(x.max() - x.min()) if x.size > 1 else 1.0
    q1, q3 = float(prior.quantile(0.25)), float(prior.quantile(0.75))
    return q3 - q1 if q3 > q1 else 1.0


# ------------------------------------------------------------------------------------------
# AND / OR of one-coordinate attributes: the product of the one-attribute optima
# ------------------------------------------------------------------------------------------
def _goal_probability(terms, q) -> float:
    r""":math:`P(q)`: probability of the OR of AND-sets when part ``k`` is correct with
    probability :math:`q_k`, independently (inclusion-exclusion over the AND-sets)."""
    if len(terms) > 20:
        raise ParameterError(f"an OR of {len(terms)} sets is too large for inclusion-exclusion (max 20)")
    total = 0.0
    for size in range(1, len(terms) + 1):
        for subset in itertools.combinations(terms, size):
            used = set().union(*[set(term) for term in subset])
            total += (-1) ** (size + 1) * math.prod(q[k] for k in used)
    return min(max(total, 0.0), 1.0)


class _ProductWitness:
    r"""The product of one-part witnesses with rates :math:`w_k\epsilon`: the parts are
    independent given the output, so the goal's posterior is :math:`P` of theirs."""

    def __init__(self, terms, parts, weights):
        self.terms, self.parts, self.weights = terms, parts, weights

    def posterior(self, eps: float) -> float:
        q = [w.posterior(eps * wt) for w, wt in zip(self.parts, self.weights, strict=True)]
        return _goal_probability(self.terms, q)


def _part_solver(model: _Model, k: int, tc, upper: bool):
    """For one-coordinate part ``k``: eps -> (certified log odds bound, witness)."""
    part = model.parts[k]
    prior = model.priors[part.coords[0]]
    if part.kind == "disc":
        pk = float(prior.probs[int(tc[part.coords[0]])])
        base = math.log(pk) - math.log1p(-pk)

        def solve_disc(eps):
            return base + (eps if upper else -eps), _DiscreteWitness(pk, upper)

        return solve_disc
    ker = _Kernel1D(prior, tc[part.coords[0]], part.r)
    s = -1.0 if upper else 1.0

    def solve_num(eps):
        bound, c, _ = ker.extreme(eps, s, upper)
        return bound, _KernelWitness(ker, c, s)

    return solve_num


def _formula_side(model: _Model, tc, target, upper, rtol, eps0=None):
    r"""Bracket of one side from :math:`P(U_1, \dots, U_n)` (sound for every norm; exact under
    ``norm=1``, where the witness is the product of the one-part kernels; under another norm
    the witness splits :math:`\epsilon` into rates with :math:`\lVert w\rVert_{q} = 1`,
    :math:`1/p + 1/q = 1`)."""
    solvers = [_part_solver(model, k, tc, upper) for k in range(len(model.parts))]
    n = len(solvers)
    norm = model.norm
    if norm == 1:
        weights = [1.0] * n
    else:
        q = 1.0 if math.isinf(norm) else norm / (norm - 1)
        weights = [n ** (-1.0 / q)] * n
    count = [0]

    def solve(eps):
        count[0] += 1
        out = [sv(eps) for sv in solvers]
        bound = _goal_probability(model.terms, [_odds_to_post(b) for b, _ in out])
        if norm == 1:
            wits = [w for _, w in out]
        else:
            wits = [sv(eps * wt)[1] for sv, wt in zip(solvers, weights, strict=True)]
        return bound, _ProductWitness(model.terms, wits, weights)

    scale = max(_model_scale(model), 1e-300)
    return _search(solve, target, upper, rtol, eps0 if eps0 else 1.0 / scale, scale,
                   lambda: count[0], lambda: {"parts": n})


def _formula_bracket(model: _Model, tc, target, upper, rtol=1e-4) -> _Side:
    """The product bound's sound epsilon and the split-rate product witness's epsilon (any
    norm): two roots, no search."""
    solvers = [_part_solver(model, k, tc, upper) for k in range(len(model.parts))]
    n, norm = len(solvers), model.norm
    q = 1.0 if math.isinf(norm) else (math.inf if norm == 1 else norm / (norm - 1))
    weights = [1.0 if norm == 1 else n ** (-1.0 / q)] * n
    scale = max(_model_scale(model), 1e-300)

    def bound(eps):
        return _goal_probability(model.terms, [_odds_to_post(sv(eps)[0]) for sv in solvers])

    b = _root(bound, target, upper, scale=scale, rtol=rtol)
    lo = b * (1 - 2 * rtol) if math.isfinite(b) else math.inf
    while math.isfinite(lo) and lo > 0 and ((bound(lo) > target) if upper else (bound(lo) < target)):
        lo /= 2
    e = lo if math.isfinite(lo) else 1.0 / scale
    wit = _ProductWitness(model.terms, [sv(e * w)[1] for sv, w in zip(solvers, weights, strict=True)], weights)
    hi = _root(wit.posterior, target, upper, lo=e / 4, scale=scale, rtol=rtol)
    post = wit.posterior(hi) if math.isfinite(hi) else math.nan
    return _Side(lo, hi, wit, post, 0, {})


def _model_scale(model: _Model) -> float:
    """A length scale of the goal: the largest spread of a numeric coordinate (1 if none)."""
    spreads = [_spread(p) for p, d in zip(model.priors, model.discrete, strict=True) if not d]
    return max(spreads) if spreads else 1.0


# ------------------------------------------------------------------------------------------
# Continuous attributes: cells, nodes and the integral of one cone over a cell
# ------------------------------------------------------------------------------------------
_GL8 = np.polynomial.legendre.leggauss(8)
_MARGIN = 1e-9  # relative margin that covers the quadrature error of the cone integrals


@dataclass
class _Axis:
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


def _finite_axis(prior: Categorical, discrete: bool) -> _Axis:
    x = _coord_values(prior, discrete)
    idx = np.arange(x.size)
    return _Axis(prior, discrete, x, x.copy(), x.copy(), np.asarray(prior.probs, float), idx, idx)


def _continuous_axis(prior: Prior, points) -> _Axis:
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
    return _Axis(prior, False, g, lo, hi, mass, np.array(c1), np.array(c2))


def _axis_mass(axis: _Axis, a, b) -> np.ndarray:
    """Prior mass of ``[a, b]`` (numeric coordinate), vectorised."""
    return np.asarray(axis.prior.mass(a, b), float)


def _coord_gfun(axis: _Axis, cell, z, tau) -> np.ndarray:
    r""":math:`F_i(C \cap \{\delta_i(x, z) \le \tau\})` for cells ``cell``, nodes ``z`` and
    levels ``tau`` (arrays broadcast together)."""
    lo, hi, m = axis.lo[cell], axis.hi[cell], axis.mass[cell]
    if axis.discrete:
        return np.where((tau >= 1) | (lo == z), m, 0.0)
    if axis.finite:
        return np.where(np.abs(lo - z) <= tau, m, 0.0)
    a = np.maximum(lo, z - tau)
    b = np.minimum(hi, z + tau)
    return np.where(b >= a, _axis_mass(axis, a, b), 0.0)


def _coord_dist_range(axis: _Axis, cell, z):
    """Smallest and largest distance from node ``z`` to a point of the cell."""
    lo, hi = axis.lo[cell], axis.hi[cell]
    if axis.discrete:
        same = lo == z
        return np.where(same, 0.0, 1.0), np.where(same, 0.0, 1.0)
    dmin = np.maximum(0.0, np.maximum(lo - z, z - hi))
    dmax = np.maximum(np.abs(z - lo), np.abs(hi - z))
    return dmin, dmax


def _coord_exp(axis: _Axis, cell, z, k: float) -> np.ndarray:
    r""":math:`\log \int_C e^{k\,\delta_i(x, z)}\,dF_i` for cells ``cell`` and nodes ``z``."""
    lo, hi, m = axis.lo[cell], axis.hi[cell], axis.mass[cell]
    with np.errstate(divide="ignore"):
        lm = np.log(m)
    if axis.discrete:
        return lm + np.where(lo == z, 0.0, k)
    if axis.finite:
        return lm + k * np.abs(lo - z)
    left = _log_tilted(axis.prior, -k, lo, np.minimum(hi, z), z)  # x <= z: e^{k (z - x)}
    right = _log_tilted(axis.prior, k, np.maximum(lo, z), hi, z)  # x >= z: e^{k (x - z)}
    return np.logaddexp(left, right)


def _cone_integrals(axes, cells, nodes, eps, kappa, norm1_exact):
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
    for i, ax in enumerate(axes):
        lp += _coord_exp(ax, cells[:, i], z[:, i], eps)
        lm += _coord_exp(ax, cells[:, i], z[:, i], -eps)
    if norm1_exact:
        return lp + _MARGIN, lm - _MARGIN
    lam = eps * kappa
    mass = np.ones(npair)
    for i, ax in enumerate(axes):
        mass = mass * ax.mass[cells[:, i]]
    kinks = [np.zeros(npair)]
    dmins, dmaxs = [], []
    for i, ax in enumerate(axes):
        dmin, dmax = _coord_dist_range(ax, cells[:, i], z[:, i])
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
            G = G * _coord_gfun(ax, cells[sel, i][extra], z[sel, i][extra], lev)
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
        cut = _tail_cut(axes, cells[sel], z[sel], mass[sel], D_min[sel])
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
                         + _tail_rest([ax for ax in axes], cells[sel], z[sel], m, cut, lam))
    with np.errstate(divide="ignore", invalid="ignore"):
        lp2, lm2 = np.log(plus), np.log(np.maximum(minus, 0.0))
    # an overflow (inf * 0) leaves no bound: +inf for the upper one, -inf for the lower one
    lp2 = np.where(np.isnan(lp2), np.inf, lp2)
    lm2 = np.where(np.isnan(lm2), -np.inf, lm2)
    lp = np.where(np.isnan(lp), np.inf, lp)
    lm = np.where(np.isnan(lm), -np.inf, lm)
    return np.minimum(lp, lp2) + _MARGIN, np.maximum(lm, lm2) - _MARGIN


def _tail_cut(axes, cells, z, mass, D_min):
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


def _tail_rest(axes, cells, z, mass, cut, lam):
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
        right = _log_tilted(ax.prior, lam, np.maximum(lo, zi + cut), hi, zi)
        left = _log_tilted(ax.prior, -lam, lo, np.minimum(hi, zi - cut), zi)
        with np.errstate(over="ignore"):
            out = out + rest * np.exp(np.logaddexp(right, left))
    return out


class _Grid:
    """The discretised problem of one true record: product cells classified against X',
    product nodes, the stencil pairs (cell, node) and the pairs of neighbouring nodes."""

    def __init__(self, model: _Model, tc, axes: list[_Axis], reach: int = 1, base: list[_Axis] | None = None):
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
        self.lip_d = _distance(model, self.Z[self.lip[:, 0]], self.Z[self.lip[:, 1]])
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
                mn, mx = _combine(dmin, part.pball), _combine(dmax, part.pball)
            r = part.r * (1 + 1e-12) if part.kind == "ball" else part.r
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
            self._coef[eps] = _cone_integrals(self.axes, cells, self.pair_node_idx, eps, self.kappa,
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
        coef = np.where(le_I, lcp, lcm) + lvmax[pn]
        with np.errstate(over="ignore"):
            cval = np.exp(np.minimum(coef, 700.0))
        m = len(pc)
        rows = np.concatenate([np.arange(m), np.arange(m)])
        cols = np.concatenate([nv + pc, pn])
        vals = np.concatenate([np.where(le_I, 1.0, -1.0), np.where(le_I, -cval, cval)])
        i, j = self.lip[:, 0], self.lip[:, 1]
        ml = len(i)
        with np.errstate(over="ignore"):
            k1 = np.exp(np.minimum(eps * self.lip_d + lvmax[j] - lvmax[i], 700.0))
            k2 = np.exp(np.minimum(eps * self.lip_d + lvmax[i] - lvmax[j], 700.0))
        rows = np.concatenate([rows, m + np.arange(ml), m + np.arange(ml), m + ml + np.arange(ml), m + ml + np.arange(ml)])
        cols = np.concatenate([cols, i, j, j, i])
        vals = np.concatenate([vals, np.ones(ml), -k1, np.ones(ml), -k2])
        A = sp.csr_matrix((vals, (rows, cols)), shape=(m + 2 * ml, nv + nq))
        obj = np.concatenate([np.zeros(nv), ((self.kind == 1) | ((self.kind == 2) & upper)).astype(float)])
        a = np.concatenate([np.zeros(nv), np.ones(nq)])
        ub = np.ones(nv + nq)
        res = _linprog(-obj if upper else obj, A, a, ub)
        bound = _certified(res, obj, A, a, ub, upper)
        v = np.maximum(res.x[:nv], 1e-300)
        s = (np.log(v) + lvmax) / eps
        s = self.repair(s - s.max())
        self.last = {"eps": eps, "upper": upper, "I": res.x[nv:], "s": s}
        return bound, _GridWitness(self, s, upper)

    def repair(self, s: np.ndarray) -> np.ndarray:
        """Lower McShane extension over all node pairs: an exactly 1-Lipschitz profile."""
        out = np.empty_like(s)
        chunk = max(1, 2_000_000 // max(self.nnode, 1))
        for a in range(0, self.nnode, chunk):
            rows = np.arange(a, min(a + chunk, self.nnode))
            D = _distance(self.model, self.Z[rows][:, None, :], self.Z[None, :, :])
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


class _GridWitness:
    """The mechanism :math:`L^*(x) = \\max_k e^{\\epsilon(s_k - d(x, z_k))}` of a 1-Lipschitz
    node profile ``s``; ``posterior`` bounds its posterior (from below for the upper side)."""

    def __init__(self, grid: _Grid, s: np.ndarray, upper: bool):
        self.grid, self.s, self.upper = grid, s, upper

    def posterior(self, eps: float) -> float:
        vals, inside = self.grid.witness_cells(self.s, eps, self.upper)
        la = _logsumexp(vals[inside])
        lb = _logsumexp(vals[~inside])
        return _odds_to_post(la - lb)


def _initial_axes(model: _Model, tc) -> list[_Axis]:
    """Starting cells: quantiles of each prior, the edges of X' and a few points inside it."""
    axes = []
    u = np.array([1e-7, 1e-4, 0.01, 0.05, 0.15, 0.3, 0.5, 0.7, 0.85, 0.95, 0.99])
    for c, (prior, disc) in enumerate(zip(model.priors, model.discrete, strict=True)):
        if isinstance(prior, Categorical):
            axes.append(_finite_axis(prior, disc))
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
        axes.append(_continuous_axis(prior, pts))
    return axes


def _refine_axes(grid: _Grid, frac: float = 0.3) -> list[_Axis] | None:
    """Split the one-coordinate cells where the relaxation and the witness differ most
    (their cell values, each normalised to total 1, summed over the product cells)."""
    last = grid.last
    vals, _ = grid.witness_cells(last["s"], last["eps"], last["upper"])
    w = np.exp(vals - _logsumexp(vals))
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
        new = _continuous_axis(ax.prior, pts)
        changed = changed or len(new.nodes) > len(ax.nodes)
        out.append(new)
    return out if changed else None


def _grid_side(model, tc, target, upper, rtol, budget, eps0, max_nodes, log=None):
    """Certified bracket of one side: the witness from shifted pyramids (``norm=inf``, parts
    of one coordinate) and from the grid LPs' profiles, the sound end from the grid
    relaxations, refined until ``rtol``, ``budget`` seconds or ``max_nodes`` nodes."""
    t0 = time.perf_counter()
    scale = _model_scale(model)
    lo, hi, wit_hi, lps, size = 0.0, math.inf, None, 0, {}
    start = eps0 if eps0 and math.isfinite(eps0) and eps0 > 0 else 1.0 / scale
    if math.isinf(model.norm) and all(p.kind != "ball" for p in model.parts):
        e = start
        for _ in range(3):
            w = _best_pyramid(model, tc, e, upper)
            root = _root(w.posterior, target, upper, lo=e / 4, scale=scale, rtol=rtol / 50)
            if root < hi:
                hi, wit_hi = root, w
            if not math.isfinite(root) or abs(root / e - 1) < rtol / 4:
                break
            e = root
    axes = base = _initial_axes(model, tc)
    up = math.inf
    trial = start
    history: list = []
    while True:
        grid = _Grid(model, tc, axes, base=base)
        size = grid.size
        for _ in range(4):
            if lps > 0 and time.perf_counter() - t0 > budget:
                break
            bound, wit = grid.solve(trial, upper)
            lps += 1
            safe = bound <= target if upper else bound >= target
            if safe:
                lo = max(lo, trial)
            else:
                up = min(up, trial)
            history.append((trial, bound))
            if wit_hi is None or isinstance(wit_hi, _GridWitness):
                root = _root(wit.posterior, target, upper, lo=trial / 4, scale=scale, rtol=rtol / 50)
                if root < hi:
                    hi, wit_hi = root, wit
            if log is not None:
                log.append({"nodes": size["nodes"], "eps": trial, "bound": bound, "lo": lo, "hi": hi,
                            "seconds": time.perf_counter() - t0})
            if (math.isfinite(hi) and lo > 0 and hi - lo <= rtol * hi) or time.perf_counter() - t0 > budget:
                break
            top = min(up, hi)
            # secant on logit(bound) against log(eps) through the grid's last two points
            pts = [(e_, b_) for e_, b_ in history[-2:]]
            nxt = None
            if len(pts) == 2 and pts[0][0] != pts[1][0] and 0 < pts[0][1] < 1 and 0 < pts[1][1] < 1:
                (e1, b1), (e2, b2) = pts
                y1, y2 = math.log(b1 / (1 - b1)), math.log(b2 / (1 - b2))
                yt = math.log(target / (1 - target))
                if y2 != y1:
                    nxt = math.exp(math.log(e1) + (yt - y1) * (math.log(e2) - math.log(e1)) / (y2 - y1))
            if nxt is None or not (lo < nxt < top):
                nxt = math.sqrt(lo * top) if lo > 0 and math.isfinite(top) else (top / 2 if math.isfinite(top) else trial * 4)
            if lo > 0 and math.isfinite(top) and abs(nxt / trial - 1) < rtol / 8:
                break
            trial = nxt * (1 - rtol / 8) if nxt * (1 - rtol / 8) > lo else nxt
        history.clear()
        up = math.inf
        if (math.isfinite(hi) and lo > 0 and hi - lo <= rtol * hi) or time.perf_counter() - t0 > budget:
            break
        if grid.nnode >= max_nodes or not hasattr(grid, "last"):
            break
        axes = _refine_axes(grid)
        if axes is None or math.prod(len(ax.nodes) for ax in axes) > max_nodes:
            break
    post = wit_hi.posterior(hi) if wit_hi is not None and math.isfinite(hi) else math.nan
    return _Side(lo, hi, wit_hi, post, lps, size)


# ------------------------------------------------------------------------------------------
# l_inf witnesses in closed form: shifted pyramids exp(-+eps d_inf(x, C)), C a box
# ------------------------------------------------------------------------------------------
class _PyramidWitness:
    r"""The shifted pyramid :math:`L(x) = e^{\mp\epsilon d_\infty(x, C)}`, :math:`C = \prod_i
    [a_i, b_i]` (a value for a categorical coordinate), for goals of one-coordinate parts under
    ``norm=inf``.  Its posterior by the layer-cake formula: :math:`\int_S e^{-\lambda d} dF =
    \int_0^\infty \lambda e^{-\lambda s} F(S \cap C_s)\,ds`, :math:`C_s = \prod_i [a_i - s, b_i + s]`,
    with :math:`F(X' \cap C_s)` by inclusion-exclusion over the AND-sets (products of
    one-coordinate masses).  The integrands are monotone in ``s``; Riemann sums on 20000 levels
    bound them rigorously (from the side that makes ``posterior`` a certified bound)."""

    def __init__(self, model: _Model, tc, a, b, upper: bool):
        self.model, self.tc, self.upper = model, tc, upper
        self.a, self.b = np.asarray(a, float), np.asarray(b, float)

    def _band(self, c):
        part = next(p for p in self.model.parts if c in p.coords)
        return self.tc[c] - part.r, self.tc[c] + part.r

    def _masses(self, s):
        """F(C_s) and F(X' cap C_s) at levels ``s`` (array)."""
        model = self.model
        per_all, per_in = [], []
        for c, (prior, disc) in enumerate(zip(model.priors, model.discrete, strict=True)):
            lo, hi = self.a[c] - s, self.b[c] + s
            if disc:
                pc = prior.probs[int(self.a[c])]
                per_all.append(np.where(s >= 1, 1.0, pc))
                per_in.append(np.where((s >= 1) | (self.a[c] == self.tc[c]), prior.probs[int(self.tc[c])], 0.0))
            else:
                ba, bb = self._band(c)
                per_all.append(np.asarray(prior.mass(lo, hi), float))
                per_in.append(np.asarray(prior.mass(np.maximum(lo, ba), np.minimum(hi, bb)), float))
        total = math.prod(per_all)
        inside = np.zeros_like(total)
        terms = model.terms
        for size in range(1, len(terms) + 1):
            for subset in itertools.combinations(terms, size):
                used = set().union(*[set(t) for t in subset])
                coords = {model.parts[k].coords[0] for k in used}
                prod = np.ones_like(total)
                for c in range(model.ncoord):
                    prod = prod * (per_in[c] if c in coords else per_all[c])
                inside = inside + (-1) ** (size + 1) * prod
        inside = np.clip(inside, 0.0, total)
        return total, inside

    def _smax(self):
        """A level beyond which every coordinate keeps less than 1e-18 of its mass outside."""
        out = 1.0
        for c, (prior, disc) in enumerate(zip(self.model.priors, self.model.discrete, strict=True)):
            if disc:
                continue
            lo = float(np.asarray(prior.quantile(1e-18))) if not isinstance(prior, Categorical) else prior.support[0]
            hi = float(np.asarray(prior.upper_quantile(1e-18))) if not isinstance(prior, Categorical) else prior.support[1]
            lo, hi = max(lo, prior.support[0]), min(hi, prior.support[1])
            out = max(out, self.a[c] - lo, hi - self.b[c])
        return out

    def posterior(self, eps: float, levels: int = 20001) -> float:
        smax = self._smax()
        if self.upper:
            # levels even in e^{-eps s}; A (inside) from below, B (outside) from above
            e = np.linspace(1.0, math.exp(-eps * smax), levels)
            s = -np.log(e) / eps
            s[0] = 0.0
            tot, ins = self._masses(s)
            out = tot - ins
            de = e[:-1] - e[1:]
            A = float(np.sum(ins[:-1] * de) + ins[-1] * e[-1])
            B = float(np.sum(out[1:] * de) + out[-1] * e[-1] + (1 - tot[-1]) * e[-1])
            return _odds_to_post(math.log(A) - math.log(B)) if A > 0 and B > 0 else (0.0 if A <= 0 else 1.0)
        # inverted: int_S e^{eps d} dF = F(S) + int_0^inf eps e^{eps s} F(S minus C_s) ds
        s = np.linspace(0.0, smax, levels)
        tot, ins = self._masses(s)
        goal_in = ins[-1] + 0.0
        p_in = float(self._masses(np.array([1e300]))[1][0])
        p_all = 1.0
        rest_in = p_in - ins
        rest_out = (p_all - p_in) - (tot - ins)
        with np.errstate(over="ignore"):
            es = np.exp(eps * s)
        de = es[1:] - es[:-1]
        A = p_in + float(np.sum(np.maximum(rest_in[:-1], 0.0) * de)) + self._tail(eps, smax)  # upper bound
        B = (p_all - p_in) + float(np.sum(np.maximum(rest_out[1:], 0.0) * de))  # lower bound
        del goal_in
        if not (math.isfinite(A) and A > 0):
            return 1.0
        return _odds_to_post(math.log(A) - math.log(B)) if B > 0 else 1.0

    def _tail(self, eps, smax):
        r"""Bound on :math:`\int_{smax}^\infty \epsilon e^{\epsilon s} F(d > s)\,ds` by the
        one-coordinate tilted tails."""
        total = 0.0
        for c, (prior, disc) in enumerate(zip(self.model.priors, self.model.discrete, strict=True)):
            if disc or isinstance(prior, Categorical):
                continue
            up = _log_tilted(prior, eps, self.b[c] + smax, math.inf, self.b[c])
            dn = _log_tilted(prior, -eps, -math.inf, self.a[c] - smax, self.a[c])
            total += float(np.exp(np.logaddexp(up, dn)))
        return total


def _pyramid_candidates(model: _Model, tc) -> list:
    """Starting boxes C for the shifted pyramids: the true point, X' itself for an AND
    goal, each AND-set's box (other coordinates at the true value)."""
    n = model.ncoord
    t = np.array([float(v) for v in tc])
    r = np.zeros(n)
    for part in model.parts:
        if part.kind == "num":
            r[part.coords[0]] = part.r
    starts = [(t.copy(), t.copy())]
    for term in model.terms:
        a, b = t.copy(), t.copy()
        for k in term:
            c = model.parts[k].coords[0]
            a[c], b[c] = t[c] - r[c] / 2, t[c] + r[c] / 2
        starts.append((a, b))
    return starts


def _best_pyramid(model: _Model, tc, eps: float, upper: bool) -> _PyramidWitness:
    """The shifted pyramid with the most extreme posterior at ``eps`` (Nelder-Mead over the
    box's ends, from several starting boxes; categorical coordinates fixed at the truth)."""
    from scipy.optimize import minimize

    sign = -1.0 if upper else 1.0
    num = [c for c in range(model.ncoord) if not model.discrete[c]]
    best = None
    for a0, b0 in _pyramid_candidates(model, tc):
        def f(z, a0=a0, b0=b0):
            a, b = a0.copy(), b0.copy()
            lo, hi = z[: len(num)], z[len(num):]
            a[num], b[num] = np.minimum(lo, hi), np.maximum(lo, hi)
            return sign * _PyramidWitness(model, tc, a, b, upper).posterior(eps, levels=1001)

        z0 = np.concatenate([a0[num], b0[num]])
        scale = max(_model_scale(model), 1e-12)
        simplex = [z0] + [z0 + 0.1 * scale * np.eye(len(z0))[i] for i in range(len(z0))]
        res = minimize(f, z0, method="Nelder-Mead",
                       options={"initial_simplex": simplex, "xatol": 1e-4 * scale, "fatol": 1e-6, "maxfev": 250})
        if best is None or res.fun < best[0]:
            a, b = a0.copy(), b0.copy()
            a[num], b[num] = np.minimum(res.x[: len(num)], res.x[len(num):]), np.maximum(res.x[: len(num)], res.x[len(num):])
            best = (res.fun, a, b)
    return _PyramidWitness(model, tc, best[1], best[2], upper)


# ------------------------------------------------------------------------------------------
# Public API
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OptimalGoalResult:
    """What :func:`optimal_epsilon` found (beyond the paper).

    Attributes
    ----------
    epsilon : float
        The sound end of the bracket: no :math:`\\epsilon`-DP mechanism moves the posterior of
        the goal by more than ``delta`` (``inf``: no noise is needed).
    epsilon_lo, epsilon_hi : float
        The certified bracket of the optimal epsilon (``epsilon_lo == epsilon``); at
        ``epsilon_hi`` the witness mechanism exceeds ``delta``.
    rel_width : float
        ``(epsilon_hi - epsilon_lo) / epsilon_hi`` (0 where both are ``inf``).
    t : dict
        The true values (part label -> value) it holds for (the worst one for ``t=None``).
    p : float
        Prior probability of the goal's set :math:`X'`.
    binding : str
        ``"upper"`` or ``"lower"``: the side of Def. 7 that sets ``epsilon``.
    method : str
        ``"discrete-metric"``, ``"kernel"`` (one attribute), ``"product"`` (``norm=1``),
        ``"lp"`` (finite priors) or ``"lp-grid"`` (continuous attributes).
    posterior : float
        The witness' posterior of :math:`X'` at ``epsilon_hi`` (a certified lower bound for
        the upper side, upper bound for the lower side): beyond ``p +- delta``.
    witness : dict
        The worst-case likelihood of the binding side: its ``kind`` and parameters (kernel
        centre, pyramid box, or the LP's records and log-likelihood per unit of epsilon).
    upper, lower : tuple
        ``(lo, hi)`` of each side (``(inf, inf)`` where a side cannot bind).
    lp : dict
        Sizes and counts of the computation (records / cells / nodes, LP solves, seconds).
    """

    epsilon: float
    epsilon_lo: float
    epsilon_hi: float
    rel_width: float
    t: dict
    p: float
    binding: str
    method: str
    posterior: float
    witness: dict
    delta: float
    norm: float
    sides: str
    upper: tuple
    lower: tuple
    lp: dict = field(default_factory=dict, repr=False)

    def laplace_scale(self, sensitivity: float = 1.0) -> float:
        """Scale ``b = sensitivity / epsilon`` of Laplace noise with this epsilon (Sec. 6.1)."""
        if not (_is_real(sensitivity) and math.isfinite(sensitivity) and sensitivity > 0):
            raise ParameterError(f"sensitivity must be a finite number > 0; got {sensitivity!r}")
        return sensitivity / self.epsilon


def _check_common(delta, sides, rtol, budget):
    if not (_is_real(delta) and math.isfinite(delta) and 0 < delta < 1):
        raise ParameterError(f"delta must be a number in (0, 1); got {delta!r}")
    if sides not in _SIDES:
        raise ParameterError(f"sides must be one of {_SIDES}; got {sides!r}")
    if rtol is not None and not (_is_real(rtol) and 0 < rtol < 1):
        raise ParameterError(f"rtol must be a number in (0, 1); got {rtol!r}")
    if not (_is_real(budget) and budget > 0):
        raise ParameterError(f"budget must be a number of seconds > 0; got {budget!r}")


def _method(model: _Model) -> str:
    if all(p.kind == "disc" for p in model.parts) and (math.isinf(model.norm) or len(model.parts) == 1):
        return "discrete-metric"
    if len(model.parts) == 1 and model.parts[0].kind == "num":
        return "kernel"
    if model.finite:
        return "lp"
    if model.norm == 1 and all(p.kind != "ball" for p in model.parts):
        return "product"
    return "lp-grid"


def _witness_info(side: _Side, method: str) -> dict:
    w = side.witness
    if w is None:
        return {"kind": "none"}
    if isinstance(w, _KernelWitness):
        return {"kind": "laplace kernel" if w.s < 0 else "inverted kernel", "centre": w.c}
    if isinstance(w, _DiscreteWitness):
        return {"kind": "discrete metric", "likelihood_ratio": "e^epsilon on X'" if w.upper else "e^-epsilon on X'"}
    if isinstance(w, _ProductWitness):
        parts = [_witness_info(_Side(0, 0, x), method) for x in w.parts]
        return {"kind": "product of one-part kernels", "parts": parts, "rates": list(w.weights)}
    if isinstance(w, _FiniteWitness):
        return {"kind": "lp profile", "log_likelihood_per_epsilon": w.s}
    if isinstance(w, _PyramidWitness):
        return {"kind": "shifted pyramid" if w.upper else "inverted shifted pyramid",
                "box_low": w.a.tolist(), "box_high": w.b.tolist()}
    if isinstance(w, _GridWitness):
        return {"kind": "grid profile", "nodes": w.grid.Z, "log_likelihood_per_epsilon": w.s}
    return {"kind": type(w).__name__}


def _solve_t(model: _Model, tv, delta, sides, rtol, budget, max_nodes, at=None):
    """Both sides at one true record; ``at``: only check whether epsilon ``at`` is certified."""
    tc = _t_codes(model, _t_coords(model, tv))
    method = _method(model)
    rec = None
    if method == "lp":  # p from the same records as the LP (ties at the ball's edge included)
        rec = _Records(model)
        p = float(np.sum(rec.m[_inside(model, rec.X, tc)]))
    else:
        p = _p_goal(model, tv)
    targets = [("upper", p + delta, True)]
    if sides == "both":
        targets.append(("lower", p - delta, False))
    out: dict = {"p": p, "method": method, "tc": tc, "sides": {}}
    t0 = time.perf_counter()
    for name, target, upper in targets:
        if (upper and target >= 1) or (not upper and target <= 0) or (upper and p <= 0):
            out["sides"][name] = _Side(math.inf, math.inf)
            continue
        if method == "discrete-metric":
            from .bound import eps_lb, eps_ub

            e = float(eps_lb(delta=delta, p=p) if upper else eps_ub(delta=delta, p=p))
            out["sides"][name] = _Side(e, e, _DiscreteWitness(p, upper), target)
        elif method == "kernel":
            part = model.parts[0]
            out["sides"][name] = _one_attribute_side(model.priors[0], tc[0], part.r, target, upper,
                                                     rtol or 1e-6)
        elif method == "lp":
            if rec is None:
                rec = _Records(model)
            inside = _inside(model, rec.X, tc)
            out["sides"][name] = _finite_side(rec, inside, target, upper, rtol or 1e-7, eps0=at)
        elif method == "product":
            out["sides"][name] = _formula_side(model, tc, target, upper, rtol or 1e-6)
        else:
            f = None
            if all(p_.kind != "ball" for p_ in model.parts):
                f = _formula_bracket(model, tc, target, upper)
            side = _grid_side(model, tc, target, upper, rtol or 0.01,
                              budget / len(targets), f.lo if f else at, max_nodes)
            if f is not None and f.lo > side.lo:  # the product bound is sound for every norm
                side.lo = f.lo
            if f is not None and f.hi < side.hi:
                side.hi, side.witness, side.posterior = f.hi, f.witness, f.posterior
            sound = _sound_construction(model, tv, delta, upper)
            if sound > side.lo:  # never below the comparison-set construction (Theorems 1, 2)
                side.lo = min(sound, side.hi)
            out["sides"][name] = side
    out["seconds"] = time.perf_counter() - t0
    return out


def _sound_construction(model: _Model, tv, delta, upper) -> float:
    """The epsilon of one side by :func:`garesearch.events.epsilon_for_goal`'s sound
    construction (a sound lower end; 0 where it has none)."""
    from .events import epsilon_for_goal

    try:
        res = epsilon_for_goal(_rebuild(model), delta=delta, t=list(tv), norm=model.norm,
                               sides="upper" if upper else "both")
    except (InfeasibleError, ParameterError):
        return 0.0
    e = res.epsilon_upper if upper else res.epsilon_lower
    return float(e) if e > 0 else 0.0


def _all_t(model: _Model) -> list:
    if not model.finite:
        raise ParameterError(
            "t is required when the goal has a continuous attribute (t=None, the worst case over "
            "true records, is enumerated for finite priors only)")
    per = []
    for part in model.parts:
        if part.kind == "ball":
            per.append(list(itertools.product(*[model.priors[c].values for c in part.coords])))
        else:
            per.append(list(model.priors[part.coords[0]].values))
    n = math.prod(len(x) for x in per)
    if n > _MAX_T:
        raise ParameterError(
            f"t=None would enumerate {n} true records, more than the limit of {_MAX_T}; pass t")
    return [list(v) for v in itertools.product(*per)]


def _bracket(res: dict) -> tuple[float, float, str]:
    up = res["sides"]["upper"]
    lo_side = res["sides"].get("lower")
    if lo_side is None or up.lo <= lo_side.lo:
        return up.lo, min(up.hi, lo_side.hi) if lo_side else up.hi, "upper"
    return lo_side.lo, min(up.hi, lo_side.hi), "lower"


def optimal_epsilon(goal, *, delta: float, t: Any = None, norm: float = math.inf,
                    sides: str = "both", rtol: float | None = None, budget: float = 60.0,
                    max_nodes: int = 1600) -> OptimalGoalResult:
    r"""The largest epsilon at which no :math:`\epsilon`-DP mechanism lets the posterior of
    ``goal`` move by more than ``delta`` (beyond the paper; compare Theorems 1 and 2, Sec. 4.2,
    4.3 and :func:`garesearch.events.epsilon_for_goal`, which are sound but not optimal).

    The worst case over all :math:`\epsilon`-DP mechanisms w.r.t. the records' distance
    :math:`\lVert (d_i)_i \rVert_{norm}` (see the module docstring for the methods): exact for
    finite priors (an LP), for one attribute (Laplace and inverted kernels), under the
    discrete metric and for AND / OR goals of one-coordinate attributes under ``norm=1``
    (products of kernels); a certified bracket from LPs on refined grids otherwise.

    Parameters
    ----------
    goal : Attribute, Coordinates, AllOf or AnyOf
        Parts combined with ``&`` (AND) and ``|`` (OR), as for
        :func:`~garesearch.events.epsilon_for_goal`.
    delta : float
        Bound on the advantage (Def. 7), in (0, 1).
    t : Mapping or sequence, optional
        True values, by part name or in order of appearance.  ``None``: the worst over every
        true record (finite priors only, at most 2,000 records).
    norm : float
        The records' distance is the :math:`\ell_{norm}` norm of the parts' distances, in
        [1, inf] (default inf).
    sides : {"both", "upper"}
        ``"both"``: :math:`|\Pr_{post} - \Pr_{pre}| \le \delta`; ``"upper"``: the gain only.
    rtol : float, optional
        Target relative width of the bracket (default 1e-6 for kernels and products, 1e-7 for
        the finite LP, 0.01 for continuous attributes on grids).
    budget : float
        Seconds allowed for refining a grid (continuous attributes); the width reached is
        reported when the target is not met.
    max_nodes : int
        Largest number of grid nodes (continuous attributes).

    Returns
    -------
    OptimalGoalResult

    Raises
    ------
    ParameterError
        Bad input (as :func:`~garesearch.events.epsilon_for_goal`), or ``t=None`` with a
        continuous attribute or too many true records.
    InfeasibleError
        If no epsilon > 0 can be certified.

    Examples
    --------
    The cats of Sec. 6.1: under the discrete metric the optimum is the paper's number.

    >>> from garesearch.events import Attribute
    >>> from garesearch.priors import Categorical, Normal
    >>> gender = Attribute(Categorical({"M": .5, "F": .5}), r=0, name="gender")
    >>> colour = Attribute(Categorical({"red": .2, "white": .1, "tabby": .25, "black": .4,
    ...                                 "tortoise": .05}), r=0, name="colour")
    >>> res = optimal_epsilon(gender & colour, delta=0.1)
    >>> res.t["colour"], round(res.epsilon, 4), res.method
    ('black', 0.539, 'discrete-metric')
    >>> round(optimal_epsilon(gender | colour, delta=0.1).epsilon, 4)
    0.4013

    One normal attribute (the salary of Sec. 6.2 at t = 2300): the Laplace kernel is optimal.

    >>> salary = Attribute(Normal(2000, 235.7), r=100, name="salary")
    >>> res = optimal_epsilon(salary, delta=0.1, t=[2300.0])
    >>> round(res.epsilon, 7), res.binding, res.witness["kind"]
    (0.0020057, 'upper', 'laplace kernel')
    """
    _check_common(delta, sides, rtol, budget)
    norm = _check_norm(norm)
    if not (isinstance(max_nodes, (int, np.integer)) and max_nodes >= 16):
        raise ParameterError(f"max_nodes must be an integer >= 16; got {max_nodes!r}")
    model = _model(goal, norm)
    t0 = time.perf_counter()
    if t is not None:
        tvs = [_resolve_t(model, t)]
    else:
        tvs = _all_t(model)
    best = None
    checked = 0
    for tv in tvs:
        # warm start at the best epsilon so far: a record certified there is not the worst
        at = best[1][0] if best is not None and math.isfinite(best[1][0]) else None
        res = _solve_t(model, tv, delta, sides, rtol, budget, max_nodes, at=at)
        checked += 1
        lo, hi, side = _bracket(res)
        if best is None or lo < best[1][0]:
            best = (tv, (lo, hi, side), res)
    tv, (lo, hi, binding), res = best
    if not lo > 0:
        raise InfeasibleError(
            f"no epsilon > 0 could be certified at t={tv} (p={res['p']:.6g}): the "
            f"{binding} side is not met by any certified epsilon (a mechanism exceeds delta at "
            f"epsilon {hi:.6g}); allow a larger delta" + (", or sides='upper'" if binding == "lower" else ""))
    side = res["sides"][binding]
    up = res["sides"]["upper"]
    dn = res["sides"].get("lower", _Side(math.inf, math.inf))
    width = 0.0 if math.isinf(hi) else (hi - lo) / hi
    labels = dict(zip(model.labels, tv, strict=True))
    lp = {"seconds": time.perf_counter() - t0, "true_records": checked,
          "upper": {"lps": up.lps, **up.size}, "lower": {"lps": dn.lps, **dn.size}}
    return OptimalGoalResult(epsilon=lo, epsilon_lo=lo, epsilon_hi=hi, rel_width=width, t=labels,
                             p=res["p"], binding=binding, method=res["method"],
                             posterior=side.posterior, witness=_witness_info(side, res["method"]),
                             delta=float(delta), norm=norm, sides=sides, upper=(up.lo, up.hi),
                             lower=(dn.lo, dn.hi), lp=lp)


def _halve(axes: list[_Axis]) -> list[_Axis]:
    """Every bounded cell of every continuous coordinate split in two."""
    out = []
    for ax in axes:
        if ax.finite:
            out.append(ax)
            continue
        ok = np.isfinite(ax.lo) & np.isfinite(ax.hi)
        mids = (ax.lo[ok] + ax.hi[ok]) / 2
        out.append(_continuous_axis(ax.prior, np.concatenate([ax.nodes, mids])))
    return out


def worst_posterior(goal, *, epsilon: float, t: Any, norm: float = math.inf, side: str = "upper",
                    resolution: int = 1) -> tuple[float, float]:
    r"""Certified bounds ``(low, high)`` on the worst posterior of ``goal`` over all
    :math:`\epsilon`-DP mechanisms at the true record ``t`` (beyond the paper; Sec. 4.2, 4.3):
    :math:`U(\epsilon) = \sup_L \Pr_{post}[X']` for ``side="upper"``, :math:`V(\epsilon) = \inf_L`
    for ``side="lower"`` (see the module docstring).

    ``low`` comes from a witness mechanism for the upper side (a bound valid for every
    mechanism for the lower side) and ``high`` the other way round.  Exact (``low`` and
    ``high`` agree to about 1e-9) for finite priors, one attribute, the discrete metric and
    ``norm=1`` products; for continuous attributes on a grid whose cells are halved
    ``resolution - 1`` times (finer is tighter).

    Examples
    --------
    >>> from garesearch.events import Attribute
    >>> from garesearch.priors import Normal
    >>> lo, hi = worst_posterior(Attribute(Normal(0, 1), r=0.5), epsilon=0.5, t=[0.0])
    >>> round(lo, 6), round(hi, 6)
    (0.485783, 0.485783)
    """
    if not (_is_real(epsilon) and math.isfinite(epsilon) and epsilon > 0):
        raise ParameterError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    if side not in ("upper", "lower"):
        raise ParameterError(f"side must be 'upper' or 'lower'; got {side!r}")
    if not (isinstance(resolution, (int, np.integer)) and 1 <= resolution <= 6):
        raise ParameterError(f"resolution must be an integer in [1, 6]; got {resolution!r}")
    model = _model(goal, _check_norm(norm))
    tv = _resolve_t(model, t)
    tc = _t_codes(model, _t_coords(model, tv))
    p = _p_goal(model, tv)
    upper = side == "upper"
    eps = float(epsilon)
    method = _method(model)
    if method == "discrete-metric":
        v = _DiscreteWitness(p, upper).posterior(eps)
        return v, v
    if method == "kernel":
        ker = _Kernel1D(model.priors[0], tc[0], model.parts[0].r)
        bound, _, best = ker.extreme(eps, -1.0 if upper else 1.0, upper)
        b, w = _odds_to_post(bound), _odds_to_post(best)
        return (w, b) if upper else (b, w)
    if method == "lp":
        rec = _Records(model)
        inside = _inside(model, rec.X, tc)
        pairs, exact = rec.network()
        while True:
            bound, s, _ = _finite_lp(rec, inside, eps, upper, pairs)
            new = np.zeros((0, 2), int) if exact else rec.violations(s, cap=20 * rec.n)
            if new.shape[0] == 0:
                break
            pairs = np.unique(np.concatenate([pairs, np.unique(np.sort(new, axis=1), axis=0)]), axis=0)
        vals = [_FiniteWitness(rec.repair(s, how), rec.logm, inside).posterior(eps) for how in ("lower", "upper")]
        w = max(vals) if upper else min(vals)
        return (w, bound) if upper else (bound, w)
    parts1d = all(p_.kind != "ball" for p_ in model.parts)
    if parts1d:
        solvers = [_part_solver(model, k, tc, upper) for k in range(len(model.parts))]
        out = [sv(eps) for sv in solvers]
        fbound = _goal_probability(model.terms, [_odds_to_post(b) for b, _ in out])
        if method == "product":
            w = _ProductWitness(model.terms, [x for _, x in out], [1.0] * len(out)).posterior(eps)
            return (w, fbound) if upper else (fbound, w)
    axes = base = _initial_axes(model, tc)
    for _ in range(resolution - 1):
        axes = _halve(axes)
    grid = _Grid(model, tc, axes, base=base)
    bound, wit = grid.solve(eps, upper)
    w = wit.posterior(eps)
    if math.isinf(model.norm) and parts1d:
        pw = _best_pyramid(model, tc, eps, upper).posterior(eps)
        w = max(w, pw) if upper else min(w, pw)
    if parts1d:
        bound = min(bound, fbound) if upper else max(bound, fbound)
    return (w, bound) if upper else (bound, w)
