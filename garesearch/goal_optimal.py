r"""The optimal epsilon of a goal: the largest epsilon at which *no* epsilon-DP mechanism moves
the attacker's posterior of the goal by more than ``delta`` (beyond the paper; Sec. 4.2, 4.3).

Theorems 1 and 2 (:func:`garesearch.comparison_sets.comparison_set_epsilon`) bound the posterior through a
comparison set, which is sound but loose.  Here the bound is the exact worst case; it is the
default of :func:`garesearch.events.epsilon_for_goal` (``construction="optimal"``).

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

*Two normal attributes under* ``norm=inf`` (``method="lp-cells"``, :mod:`garesearch._goal_cells`):
a **certified bracket** :math:`[\epsilon_{lo}, \epsilon_{hi}]` from a relaxation on equal
cells aligned with the edges of :math:`X'`.  Translation lemma: if the prior is a product of
log-concave densities and cell :math:`C_j = C_i + v`, the prior averages of every
:math:`\epsilon`-DP likelihood satisfy :math:`a_i \le e^{\epsilon \lVert v\rVert_\infty} a_j`
(couple the two conditional priors coordinate by coordinate through their quantiles: by
log-concavity the two are stochastically ordered, so each coordinate moves by at most
:math:`|v_c|`).  The averages of every mechanism are therefore feasible for the finite LP on the
cell centres, whose dual-certified optimum bounds :math:`U` from above (:math:`V` from below);
the prior beyond the cells' box is bounded through its edge cells or left out where that only
loosens the bound.  Nothing is lost to the likelihood's shape inside a cell, so the bound
converges about as fast as a finite LP on the cells (second order in the cell side on the
benchmark's goals).  The LP's profile shows the worst mechanism; its tops, grouped into boxes at
their heights, start a Nelder-Mead search over **ridge witnesses**
:math:`L(x) = \max_k e^{\epsilon(s_k - d_\infty(x, C_k))}` (inverted for the lower side), whose
posterior is computed exactly by the layer-cake formula (the level sets are unions of boxes)
with rigorous Riemann bounds; where it crosses :math:`p \pm \delta` is :math:`\epsilon_{hi}`.
The grids go from about 800 to 3,000 and 7,000 cells (at ``rtol=0.01``; up to about
``80 / rtol`` cells in general); each finer grid starts where the crossings of the coarser ones
extrapolate to, for the side whose sound end is lower, until the bracket is within ``rtol``
(1 %) or the grids are used up.  On the benchmark's OR goal (:func:`garesearch.bench.goal_brackets`)
the bracket is [0.3970, 0.4002]; for the OR at the priors' means (the lower side binds)
[0.5341, 0.5384]; for the AND box [0.9877, 0.9928].  The worst mechanism of the OR is a
half-line ridge along each arm of the cross, each at its own height (at :math:`\epsilon = 0.4`
the heights are 0, -0.2, -0.4 and -1.4 times :math:`\epsilon`).

*Other continuous attributes* (other priors, other norms, mixtures with finite ones, balls): an
LP on a discretisation that gives a certified bracket :math:`[\epsilon_{lo}, \epsilon_{hi}]`.
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
schedule ends (``max_nodes`` nodes, 8 grids, or an LP of more than 40,000 (cell, node)
pairs).  The lower side is the mirror image; the two sides take turns, each finer grid
going to the side whose sound end is lower.

Reproducibility
---------------
Every result depends on the call's arguments only (and on the versions of numpy, scipy and
HiGHS), never on the machine's speed or load: the searches follow a **fixed work schedule**
set by ``rtol`` (and ``max_nodes``) -- the grids and their sizes, at most so many LPs per
grid, the witness searches' evaluation counts -- and every decision is taken on computed
bounds, never on the clock.  Identical calls give bit-identical brackets.  The wall-clock
``budget`` is an optional cap (default none): when it runs out, the bracket reached so far is
returned, sound but marked ``cut_short`` and with a :class:`CutShortWarning`, since it depends
on the machine.  The certificates are rigorous in floating point: the LPs' dual bounds carry an
explicit bound on their rounding errors (:func:`garesearch._certify.dual_bound`).  Membership
in :math:`X'` is decided as written, ``|x - t| <= r`` on the computed distance (exact for a
numeric part and on the axes of an :math:`\ell_p` ball, :func:`garesearch.goals.norm_of`).

What the worst case looks like (not in the paper; evidence in the tests):
:math:`\ell_1` separates (product of kernels); under :math:`\ell_\infty` with a product prior the
optimum for an AND box is a "shifted pyramid" :math:`e^{-\epsilon d_\infty(x, C)}` with ``C`` a
segment inside the box on the benchmark (finite priors give optima with several levels inside
:math:`X'`); for OR goals of normal attributes it is the ridge witness above, one ridge per arm.
No family is proved optimal, so the LP certifies the sound end.

How tight the node grids get: their certified end converges to first order in the cell side.  A
cell bounds ``L`` only through nearby nodes, and between nodes an :math:`\ell_\infty`-Lipschitz
``L`` can rise by :math:`e^{\epsilon h/2}`.  On the benchmark's OR goal they certify 0.376, 0.386
and 0.391 at cell sides 0.3, 0.2 and 0.15 (the cell relaxation: 0.384, 0.396 and 0.398 at cell
sides 0.4, 0.2 and 0.133).  Putting the nodes on the edges of :math:`X'` into every cell's stencil
leaves the node relaxation's bound unchanged to six digits.  The cell relaxation needs the
lemma's log-concave product prior, hence is used for normal attributes only.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._certify import (
    Bracket,
    BudgetExhausted,
    capped,
    check_time,
    odds_to_posterior,
    wall_clock_cap,
)
from ._goal_cells import SIZES as CELL_SIZES
from ._goal_cells import best_ridges, cell_grid, cell_sides, cells_apply, ridge_boxes
from ._goal_finite import MAX_RECORDS, FiniteWitness, Records, finite_lp, finite_side
from ._goal_grid import Grid, GridWitness, grid_sides, halve_axes, initial_axes
from ._goal_kernels import (
    DiscreteWitness,
    Kernel1D,
    KernelWitness,
    ProductWitness,
    one_attribute_side,
    part_solver,
    product_bracket,
    product_side,
)
from ._goal_model import (
    GoalModel,
    build_model,
    goal_p,
    goal_probability,
    in_goal_set,
    is_real,
    method_of,
    rebuild_goal,
    resolve_true_values,
    true_codes,
    true_coords,
)
from ._goal_pyramid import PyramidWitness, RidgeWitness, best_pyramid
from ._plain import PlainFields
from .bound import eps_lb, eps_ub
from .errors import InfeasibleError, ParameterError
from .goals import attributes_of, check_norm, lp_norm
from .priors import Categorical

__all__ = ["CutShortWarning", "OptimalGoalResult", "optimal_epsilon", "worst_posterior"]

_SIDES = ("both", "upper")
_MAX_T = 2_000  # t=None: largest number of true records enumerated
#: t=None over finite priors of several attributes: largest (true records) x (records of the
#: product support), the size of the work (exact LPs over the support for each true record;
#: 64 x 64 takes about 5 s, 140 x 140 about a minute)
_MAX_T_WORK = 20_000
_MAX_COMBOS = 2_000_000  # t=None under the discrete metric: combinations of distinct masses
#: the lower side of an OR over unbounded attributes has a comparison-set floor (the
#: pointwise bound of :func:`garesearch.or_lower.or_lower_epsilon`, a tensor-product
#: quadrature) for at most this many continuous attributes
_OR_LOWER_FLOOR_MAX = 3


class CutShortWarning(UserWarning):
    """:func:`optimal_epsilon` was cut short by its wall-clock ``budget``: the bracket it
    returns is sound but not the one of its work schedule, and depends on the machine's
    speed and load (not reproducible)."""


@dataclass(frozen=True)
class OptimalGoalResult(PlainFields):
    """What :func:`optimal_epsilon` found (beyond the paper).

    The fields every goal result has (``epsilon``, ``t``, ``p``, ``event``, ``method``,
    ``binding``, ``epsilon_upper``, ``epsilon_lower``, ``construction``,
    :meth:`posterior_bound`, :meth:`laplace_scale`), then the certified bracket and the worst
    mechanism.

    Attributes
    ----------
    epsilon : float
        The sound end of the bracket: no :math:`\\epsilon`-DP mechanism moves the posterior of
        the goal by more than ``delta`` (``inf``: no noise is needed).
    t : dict
        The true values (part label -> value) it holds for (the worst one for ``t=None``).
    p : float
        Prior probability of the goal's set :math:`X'`.
    event : str
        ``"and"`` (one AND-set, a single part included) or ``"or"``.
    method : str
        How the optimum was computed: ``"discrete-metric"`` (closed form), ``"kernel"`` (one
        attribute), ``"product"`` (``norm=1``), ``"lp"`` (finite priors), ``"lp-cells"`` (two
        normal attributes under ``norm=inf``: the cell relaxation), ``"lp-grid"`` (other
        continuous attributes on refined grids) or ``"product-bound"`` (three or more
        continuous coordinates: the product bound and a product witness, a wider bracket).
    binding : str
        ``"upper"`` or ``"lower"``: the side of Def. 7 that sets ``epsilon`` (``"none"``
        when no noise is needed).
    epsilon_upper, epsilon_lower : float
        The sound end of each side (``inf`` where a side cannot bind or was not asked for).
    construction : str
        ``"optimal"``.
    epsilon_lo, epsilon_hi : float
        The certified bracket of the optimal epsilon (``epsilon_lo == epsilon``); at
        ``epsilon_hi`` the witness mechanism exceeds ``delta``.
    rel_width : float
        ``(epsilon_hi - epsilon_lo) / epsilon_hi`` (0 where the optimum is exact, or both
        ends are ``inf``; ``inf`` where no witness was found).
    posterior : float
        The witness' posterior of :math:`X'` at ``epsilon_hi`` (a certified lower bound for
        the upper side, upper bound for the lower side): beyond ``p +- delta``.
    witness : dict
        The worst-case likelihood that crosses at ``epsilon_hi`` (of the binding side, unless
        the other side's witness crosses earlier): its ``kind`` and parameters (kernel
        centre, pyramid box, ridge boxes with their heights, or the LP's records and
        log-likelihood per unit of epsilon).
    upper, lower : tuple
        ``(lo, hi)`` of each side (``(inf, inf)`` where a side cannot bind).
    details : dict
        Sizes and counts of the computation (records / cells / nodes, LP solves, seconds;
        ``cut_short``).
    cut_short : bool
        ``True`` when the optional wall-clock ``budget`` stopped the work schedule: the
        bracket is sound (``epsilon`` may be 0, the trivially safe end) but wider than the
        schedule's, and depends on the machine (a :class:`CutShortWarning` was issued).
    """

    epsilon: float
    t: dict
    p: float
    event: str
    method: str
    binding: str
    epsilon_upper: float
    epsilon_lower: float
    epsilon_lo: float
    epsilon_hi: float
    rel_width: float
    posterior: float
    witness: dict
    delta: float
    norm: float
    sides: str
    upper: tuple
    lower: tuple
    construction: str = "optimal"
    upper_bound_at_lo: float = field(default=math.nan, repr=False)
    details: dict = field(default_factory=dict, repr=False)
    cut_short: bool = False

    def laplace_scale(self, sensitivity: float = 1.0) -> float:
        """Scale ``b = sensitivity / epsilon`` of Laplace noise with this epsilon (Sec. 6.1;
        0 when no noise is needed, ``inf`` when ``epsilon`` is 0)."""
        if not (is_real(sensitivity) and math.isfinite(sensitivity) and sensitivity > 0):
            raise ParameterError(f"sensitivity must be a finite number > 0; got {sensitivity!r}")
        if self.epsilon == 0:
            return math.inf
        return 0.0 if math.isinf(self.epsilon) else sensitivity / self.epsilon

    def witness_profile(self, x) -> np.ndarray:
        r"""The witness' log-likelihood per unit of epsilon, :math:`\log L(x) / \epsilon` up to a
        constant, at records ``x`` (an array whose last axis holds the coordinates in the
        goal's order), for the witnesses given by boxes: ridges and shifted pyramids
        (:math:`\max_k (s_k - d_\infty(x, C_k))`, the inverted kind :math:`\min_k (d_\infty(x,
        C_k) - s_k)`) and the one-attribute kernels (:math:`\mp |x - c|`).

        Examples
        --------
        >>> from garesearch.goals import Attribute
        >>> from garesearch.priors import Normal
        >>> res = optimal_epsilon(Attribute(Normal(0, 1), r=0.5), delta=0.1, t=[0.0], sides="upper")
        >>> c = res.witness["centre"]
        >>> res.witness["kind"], [float(v) for v in res.witness_profile([[c - 1], [c], [c + 2]])]
        ('laplace kernel', [-1.0, 0.0, -2.0])
        """
        w = self.witness
        kind = w.get("kind", "none")
        x = np.asarray(x, float)
        if kind in ("laplace kernel", "inverted kernel"):
            d = np.abs(x[..., 0] - w["centre"])
            return 0.0 - d if kind == "laplace kernel" else d
        if kind not in ("ridges", "inverted ridges", "shifted pyramid", "inverted shifted pyramid"):
            raise ParameterError(
                f"the witness of kind {kind!r} has no closed-form profile (boxes or kernels only)")
        lo, hi = np.atleast_2d(w["box_low"]), np.atleast_2d(w["box_high"])
        heights = np.asarray(w.get("heights", np.zeros(len(lo))), float)
        d = np.max(np.clip(np.maximum(lo - x[..., None, :], x[..., None, :] - hi), 0.0, None), axis=-1)
        if kind.startswith("inverted"):
            return np.min(d - heights, axis=-1)
        return np.max(heights - d, axis=-1)

    def posterior_bound(self) -> float:
        """A certified upper bound on the posterior of :math:`X'` that any
        :math:`\\epsilon`-DP mechanism gives at ``epsilon`` (at most ``p + delta``; 1 where the
        upper side cannot bind)."""
        v = self.upper_bound_at_lo
        return float(min(v, 1.0)) if math.isfinite(v) else 1.0


def _check_common(delta, sides, rtol, budget):
    if not (is_real(delta) and math.isfinite(delta) and 0 < delta < 1):
        raise ParameterError(f"delta must be a number in (0, 1); got {delta!r}")
    if sides not in _SIDES:
        raise ParameterError(f"sides must be one of {_SIDES}; got {sides!r}")
    if rtol is not None and not (is_real(rtol) and 0 < rtol < 1):
        raise ParameterError(f"rtol must be a number in (0, 1); got {rtol!r}")
    if budget is not None and not (is_real(budget) and math.isfinite(budget) and budget > 0):
        raise ParameterError(f"budget must be None or a finite number of seconds > 0; got {budget!r}")


def _witness_info(side: Bracket, method: str) -> dict:
    w = side.witness
    if w is None:
        return {"kind": "none"}
    if isinstance(w, KernelWitness):
        return {"kind": "laplace kernel" if w.s < 0 else "inverted kernel", "centre": w.c}
    if isinstance(w, DiscreteWitness):
        return {"kind": "discrete metric", "likelihood_ratio": "e^epsilon on X'" if w.upper else "e^-epsilon on X'"}
    if isinstance(w, ProductWitness):
        parts = [_witness_info(Bracket(0, 0, x), method) for x in w.parts]
        return {"kind": "product of one-part kernels", "parts": parts, "rates": list(w.weights)}
    if isinstance(w, FiniteWitness):
        return {"kind": "lp profile", "log_likelihood_per_epsilon": w.s}
    if isinstance(w, RidgeWitness):
        return {"kind": "ridges" if w.upper else "inverted ridges", "box_low": w.boxes_a.tolist(),
                "box_high": w.boxes_b.tolist(), "heights": w.levels.tolist()}
    if isinstance(w, PyramidWitness):
        return {"kind": "shifted pyramid" if w.upper else "inverted shifted pyramid",
                "box_low": w.a.tolist(), "box_high": w.b.tolist()}
    if isinstance(w, GridWitness):
        return {"kind": "grid profile", "nodes": w.grid.Z, "log_likelihood_per_epsilon": w.s}
    return {"kind": type(w).__name__}


def _heavy(prior) -> bool:
    """Whether a tail of a continuous prior is declared heavier than every exponential
    (:meth:`garesearch.priors.Prior.tail`: its tilted tail then diverges for every epsilon)."""
    if isinstance(prior, Categorical):
        return False
    return any(prior.tail(side).kind == "heavy" for side in ("left", "right"))


def _continuous_coords(model: GoalModel) -> int:
    return sum(not isinstance(pr, Categorical) for pr in model.priors)


def _grid_method(model: GoalModel, tc, max_nodes) -> str:
    """``"lp-cells"`` for two normal attributes under ``norm=inf`` (the cell relaxation),
    ``"lp-grid"`` where the starting grid is small enough, else ``"product-bound"``
    (one-coordinate parts only); a ball over three or more coordinates is refused."""
    if cells_apply(model, tc):
        return "lp-cells"
    if _continuous_coords(model) <= 2:
        nodes = math.prod(len(ax.nodes) for ax in initial_axes(model, tc))
        if nodes <= max_nodes:
            return "lp-grid"
    if all(part.kind != "ball" for part in model.parts):
        return "product-bound"
    raise ParameterError(
        "goal: the optimal construction's grid covers l_p balls of two coordinates (with at most "
        "two continuous coordinates in all, and a starting grid of at most max_nodes nodes); "
        "this goal needs more. Use construction='sound' (the comparison sets), or fewer coordinates")


def _no_noise_needed(target: float, upper: bool, p: float) -> bool:
    """The side holds at every epsilon: its target is beyond the posterior's range (or X' has
    no prior mass, for the upper side)."""
    return (upper and target >= 1) or (not upper and target <= 0) or (upper and p <= 0)


def _solve_t(model: GoalModel, tv, delta, sides, rtol, max_nodes, at=None):
    """Both sides at one true record, by the work schedule of ``rtol``; ``at``: the best
    epsilon so far over the other true records (``t=None``): the searches start there, and a
    finite record's search ends once it certifies ``at`` (it is then not the worst).  Under a
    wall-clock cap, a side that the cap stopped holds the bracket reached (``cut_short``)."""
    tc = true_codes(model, true_coords(model, tv))
    method = method_of(model)
    if method == "lp-grid":
        method = _grid_method(model, tc, max_nodes)
    rec = None
    if method == "lp":  # p from the same records as the LP (ties at the ball's edge included)
        rec = Records(model)
        p = float(np.sum(rec.m[in_goal_set(model, rec.X, tc)]))
    else:
        p = goal_p(model, tv)
    targets = [("upper", p + delta, True)]
    if sides == "both":
        targets.append(("lower", p - delta, False))
        if p - delta > 0 and len(model.terms) == 1 and any(_heavy(pr) for pr in model.priors):
            raise InfeasibleError(
                f"no epsilon > 0 keeps the advantage within delta={delta} at t={list(tv)!r} "
                f"(p={p:.6g}): the lower side cannot be met (a prior's tails are heavier than every "
                "exponential, so the inverted kernel exp(+epsilon d) along that coordinate pushes the "
                "posterior of the bounded set X' to 0); use sides='upper', or a delta of at least p")
    out: dict = {"p": p, "method": method, "tc": tc, "sides": {}, "cut_short": False}
    live = {n: (tg, u) for n, tg, u in targets if not _no_noise_needed(tg, u, p)}
    for name, _, _ in targets:
        if name not in live:
            out["sides"][name] = Bracket(math.inf, math.inf)
    try:
        _solve_sides(model, tv, tc, p, live, method, rec, delta, sides, rtol, max_nodes, at, out)
    except BudgetExhausted:
        out["cut_short"] = True
    for name in live:
        if name not in out["sides"]:  # the cap ran out before this side started
            out["sides"][name] = Bracket(0.0, math.inf, cut_short=True)
    out["cut_short"] = out["cut_short"] or any(b.cut_short for b in out["sides"].values())
    return out


def _solve_sides(model, tv, tc, p, live, method, rec, delta, sides, rtol, max_nodes, at, out):
    """The brackets of the sides in ``live`` (name -> (target, upper)) into ``out["sides"]``."""
    if method in ("discrete-metric", "kernel", "lp", "product"):
        for name, (target, upper) in live.items():
            if method == "discrete-metric":
                e = float(eps_lb(delta=delta, p=p) if upper else eps_ub(delta=delta, p=p))
                side = Bracket(e, e, DiscreteWitness(p, upper), target, bound=target)
            elif method == "kernel":
                side = one_attribute_side(model.priors[0], tc[0], model.parts[0].r, target, upper,
                                          rtol or 1e-6)
            elif method == "lp":
                inside = in_goal_set(model, rec.X, tc)
                side = finite_side(rec, inside, target, upper, rtol or 1e-7, eps0=at,
                                   enough=at if at is not None else math.inf)
            else:
                side = product_side(model, tc, target, upper, rtol or 1e-6)
            out["sides"][name] = side
        return
    # continuous attributes: both sides together; the comparison sets' epsilon is a floor for
    # the sound ends (Theorems 1, 2).  Without a cap it is computed after the brackets, for
    # the side that binds (the one whose sound end is lowest) until the binding side has its
    # floor -- the only place where it can raise the epsilon (the lower side's floor is a
    # slow quadrature); under a cap, first, for both sides, unless the cap has run out
    floors: dict = {}
    if capped():
        try:
            check_time()
            up_f, dn_f = _sound_construction(model, tv, delta, sides)
            floors = {"upper": up_f, "lower": dn_f}
        except BudgetExhausted:
            out["cut_short"] = True
    parts1d = all(p_.kind != "ball" for p_ in model.parts)
    fb: dict = {}
    grids: dict = {}
    try:
        if method != "lp-cells" and parts1d:  # the product bound: sound for every norm
            for name, (target, upper) in live.items():
                fb[name] = product_bracket(model, tc, target, upper)
        if method == "lp-cells":
            grids = cell_sides(model, tc, live, rtol or 0.01, at)
        elif method == "product-bound":
            grids = fb
        else:  # both sides together, each grid to the side that binds so far
            start = next(iter(fb.values())).lo if fb else at
            grids = grid_sides(model, tc, live, rtol or 0.01, start, max_nodes, first="upper")
    except BudgetExhausted:  # (the cap ran out in the product bound: the floor is kept)
        out["cut_short"] = True
    for name in live:
        side = grids.get(name) or fb.get(name) or Bracket(0.0, math.inf, cut_short=True)
        f = fb.get(name)
        if method == "lp-grid" and f is not None and f is not side:
            if f.lo > side.lo:
                side.lo, side.bound = f.lo, f.bound
            if f.hi < side.hi:
                side.hi, side.witness, side.posterior = f.hi, f.witness, f.posterior
        out["sides"][name] = side

    def apply(name):
        side, target = out["sides"][name], live[name][0]
        if floors.get(name, 0.0) > side.lo:  # never below the comparison-set construction
            side.lo, side.bound = min(floors[name], side.hi), target

    for name in live:
        apply(name)
    if not capped():
        while True:
            binding = min(live, key=lambda n: (out["sides"][n].lo, n != "upper"))
            if binding in floors:
                break
            up_f, dn_f = _sound_construction(model, tv, delta, "upper" if binding == "upper" else sides)
            floors["upper"] = up_f
            if binding == "lower":
                floors["lower"] = dn_f
            for name in live:
                apply(name)


def _sound_construction(model: GoalModel, tv, delta, sides) -> tuple[float, float]:
    r"""The epsilon of each side by the comparison sets of Theorems 1 and 2 at the true
    record ``tv`` (the per-record constructions of
    :func:`~garesearch.comparison_sets.comparison_set_epsilon`, without its refusal when a
    side reaches 0): sound lower ends, 0 where they have none.

    No floor (0) where no comparison-set construction applies: goals with an :math:`\ell_p`
    ball (its comparison sets are not set up here); an OR whose AND-sets share an attribute
    over an unbounded space (neither the blocks nor inclusion-exclusion apply); and the lower
    side of an OR over unbounded attributes with more than ``_OR_LOWER_FLOOR_MAX`` continuous
    ones (the pointwise bound's quadrature grid is limited to three).  Every other error
    propagates."""
    from .comparison_sets import _and_one_t, _or_one_t

    if any(part.kind == "ball" for part in model.parts):
        return 0.0, 0.0
    terms = rebuild_goal(model).terms()
    atts = attributes_of(terms)
    tv = list(tv)
    if len(terms) == 1:
        res = _and_one_t(atts, tv, delta, model.norm, None, sides, "sound")
        ask = sides
    else:
        unbounded = not math.isfinite(lp_norm([att.diameter for att in atts], model.norm))
        disjoint = len(atts) == sum(len(term) for term in terms)
        if unbounded and not disjoint:
            return 0.0, 0.0
        continuous = sum(not isinstance(att.prior, Categorical) for att in atts)
        ask = "upper" if unbounded and continuous > _OR_LOWER_FLOOR_MAX else sides
        res = _or_one_t(terms, atts, tv, delta, model.norm, None, ask, "sound", "best")

    def clip(e):
        return float(e) if e > 0 else 0.0

    return clip(res["epsilon_upper"]), (clip(res["epsilon_lower"]) if ask == "both" else 0.0)


def _all_t(model: GoalModel) -> list:
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
    size = math.prod(len(pr.values) for pr in model.priors)  # records of the exact LP
    if method_of(model) == "lp" and size <= MAX_RECORDS and n * size > _MAX_T_WORK:
        raise ParameterError(
            f"t=None would solve the exact LP over {size} records for each of {n} true records "
            f"({n * size} in all, more than the limit of {_MAX_T_WORK}); pass t, or use "
            "construction='sound'")
    return [list(v) for v in itertools.product(*per)]


def _bracket(res: dict) -> tuple[float, float, str]:
    up = res["sides"]["upper"]
    lo_side = res["sides"].get("lower")
    if lo_side is None or up.lo <= lo_side.lo:
        return up.lo, min(up.hi, lo_side.hi) if lo_side else up.hi, "upper"
    return lo_side.lo, min(up.hi, lo_side.hi), "lower"


def optimal_epsilon(goal, *, delta: float, t: Any = None, norm: float = math.inf,
                    sides: str = "both", rtol: float | None = None, budget: float | None = None,
                    max_nodes: int = 1600) -> OptimalGoalResult:
    r"""The largest epsilon at which no :math:`\epsilon`-DP mechanism lets the posterior of
    ``goal`` move by more than ``delta`` (beyond the paper; compare Theorems 1 and 2, Sec. 4.2,
    4.3 and :func:`garesearch.comparison_sets.comparison_set_epsilon`, which are sound but not
    optimal).  The default construction of :func:`garesearch.events.epsilon_for_goal`.

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
        true record (finite priors only: every record is solved by the same schedule, at most
        2,000 of them, and for several attributes at most 20,000 for the product of the true
        records and the records of the exact LP, refused up front by these counts; under the
        discrete metric every combination of distinct prior masses, at most 2,000,000).
    norm : float
        The records' distance is the :math:`\ell_{norm}` norm of the parts' distances, in
        [1, inf] (default inf).
    sides : {"both", "upper"}
        ``"both"``: :math:`|\Pr_{post} - \Pr_{pre}| \le \delta`; ``"upper"``: the gain only.
    rtol : float, optional
        The precision: the target relative width of the bracket, which also sets the work
        schedule (default 1e-6 for kernels and products, 1e-7 for the finite LP, 0.01 for
        continuous attributes).  Every search stops when its bracket is within ``rtol`` or
        its schedule ends; the schedule is fixed by the arguments, so identical calls give
        bit-identical results (for given versions of numpy, scipy and HiGHS) whatever the
        machine's speed or load.  Schedules: the kernel, product and finite searches at most
        60 steps; the cell relaxation (two normal attributes, ``norm=inf``) grids of about
        800, 3,000 and 7,000 cells at ``rtol=0.01`` (those up to ``80 / rtol`` cells of 800,
        3,000, 7,000, 16,000 and 36,000: :func:`garesearch._goal_cells.schedule`), at most 6
        LPs on the first and 4 on each further grid, and one ridge witness search of 300
        Nelder-Mead evaluations; the node grids (other continuous goals) at most 4 LPs per
        grid and 8 grids per side, refined while the grid has at most ``max_nodes`` nodes and
        its LP at most 40,000 (cell, node) pairs (:data:`garesearch._goal_grid.MAX_GRIDS`,
        ``MAX_PAIRS``).  When the schedule ends first, ``rel_width`` says
        how wide the bracket is.  Typical costs on one core: closed forms and products under
        0.1 s, one attribute 0.1-2 s, a finite LP 0.01-2 s per true record, the benchmark's
        OR and AND of two normal attributes about 9 and 4 s, other continuous goals on node
        grids 5-25 s.
    budget : float, optional
        A wall-clock cap in seconds (default ``None``: no cap, and no decision reads the
        clock).  When given and it runs out before the schedule ends, the call returns the
        sound bracket reached so far, marked ``cut_short`` (also in ``details``), with a
        :class:`CutShortWarning`: such a result depends on the machine's speed and load.
        The call returns within about ``1.2 * budget + 1`` seconds: an LP that is not
        expected to end in the time left (from the LPs already solved in the call) is not
        started, HiGHS is given the time left as its limit, and the witness searches stop.
        Time running out never raises: a side whose sound end is still 0 is returned as
        such (``epsilon`` 0, the trivially safe end; ``laplace_scale`` is then ``inf``), and
        so is ``t=None`` when not every true record was examined (a record not examined may
        be the worst).
    max_nodes : int
        Largest number of grid nodes (continuous attributes other than the cell relaxation's
        case).  With three or more continuous coordinates, or a starting grid above
        ``max_nodes``, the bracket comes from the product bound and a product witness
        (``method="product-bound"``, one-coordinate parts; wider), and an :math:`\ell_p`
        ball is refused.

    Returns
    -------
    OptimalGoalResult

    Raises
    ------
    ParameterError
        Bad input (as :func:`~garesearch.events.epsilon_for_goal`), or ``t=None`` with a
        continuous attribute or too many true records.
    InfeasibleError
        If no epsilon > 0 can be certified by the whole schedule (never because a ``budget``
        ran out).

    Warns
    -----
    CutShortWarning
        When ``budget`` stopped the schedule (the result's ``cut_short`` is ``True``).

    See Also
    --------
    garesearch.events.epsilon_for_goal : The entry point; the paper's constructions by name.
    garesearch.optimal.epsilon_optimal : The optimum for one attribute.

    Examples
    --------
    The cats of Sec. 6.1: under the discrete metric the optimum is the paper's number.

    >>> from garesearch.goals import Attribute
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
    norm = check_norm(norm)
    if isinstance(max_nodes, bool) or not (isinstance(max_nodes, (int, np.integer)) and max_nodes >= 16):
        raise ParameterError(f"max_nodes must be an integer >= 16; got {max_nodes!r}")
    model = build_model(goal, norm)
    t0 = time.perf_counter()  # (reported in details only)
    event = "and" if len(model.terms) == 1 else "or"
    if t is None and method_of(model) == "discrete-metric":
        return _discrete_worst(model, float(delta), sides, event, t0)
    tvs = [resolve_true_values(model, t)] if t is not None else _all_t(model)
    best = None
    checked = 0
    cut = False
    with wall_clock_cap(budget):
        for k, tv in enumerate(tvs):
            if k > 0:
                try:
                    check_time()
                except BudgetExhausted:
                    cut = True
                    break
            # warm start at the best epsilon so far: a record certified there is not the worst
            at = best[1][0] if best is not None and 0 < best[1][0] < math.inf else None
            res = _solve_t(model, tv, delta, sides, rtol, max_nodes, at=at)
            checked += 1
            lo, hi, side = _bracket(res)
            if best is None or lo < best[1][0]:
                best = (tv, (lo, hi, side), res)
            if res["cut_short"]:
                cut = True
                break
    tv, (lo, hi, binding), res = best
    up = res["sides"]["upper"]
    dn = res["sides"].get("lower", Bracket(math.inf, math.inf))
    e_up, e_dn = up.lo, dn.lo
    if checked < len(tvs):  # cut short before every true record was examined: only 0 is sound
        lo = e_up = 0.0
        e_dn = 0.0 if sides == "both" else e_dn
    if not lo > 0 and not cut:
        raise InfeasibleError(
            f"no epsilon > 0 could be certified at t={tv} (p={res['p']:.6g}): the "
            f"{binding} side is not met by any certified epsilon (a mechanism exceeds delta at "
            f"epsilon {hi:.6g}); allow a larger delta" + (", or sides='upper'" if binding == "lower" else ""))
    side = res["sides"][binding]
    # (no witness crossing found: the width is unknown, reported as inf)
    width = (0.0 if math.isinf(lo) else math.inf) if math.isinf(hi) else (hi - lo) / hi
    if side.hi > hi:  # the other side's witness gives epsilon_hi
        side = up if up.hi <= dn.hi else dn
    labels = dict(zip(model.labels, tv, strict=True))
    details = {"seconds": time.perf_counter() - t0, "true_records": checked, "cut_short": cut,
               "upper": {"lps": up.lps, **up.size}, "lower": {"lps": dn.lps, **dn.size}}
    if t is None:
        details["true_records_total"] = len(tvs)
    if cut:
        warnings.warn(CutShortWarning(
            f"optimal_epsilon was cut short by budget={budget:g} s: the bracket [{lo:.6g}, {hi:.6g}] "
            "is sound but wider than its work schedule gives, and depends on the machine's speed "
            "and load (not reproducible); drop budget for the reproducible result"), stacklevel=2)
    return OptimalGoalResult(
        epsilon=lo, t=labels, p=res["p"], event=event, method=res["method"],
        binding=binding if math.isfinite(lo) else "none", epsilon_upper=e_up, epsilon_lower=e_dn,
        epsilon_lo=lo, epsilon_hi=hi, rel_width=width, posterior=side.posterior,
        witness=_witness_info(side, res["method"]), delta=float(delta), norm=norm, sides=sides,
        upper=(e_up, up.hi), lower=(e_dn, dn.hi), upper_bound_at_lo=up.bound if checked == len(tvs) else math.nan,
        details=details, cut_short=cut)


def _discrete_worst(model: GoalModel, delta: float, sides: str, event: str, t0: float) -> OptimalGoalResult:
    r"""``t=None`` under the discrete metric: the closed forms of Sec. 3.2 depend on ``t`` only
    through the parts' prior masses, so every combination of distinct masses is evaluated at
    once (:math:`P(q)` vectorised over the combinations)."""
    reps, masses = [], []
    for part in model.parts:
        prior = model.priors[part.coords[0]]
        probs = np.asarray(prior.probs, float)
        uniq, first = np.unique(probs, return_index=True)
        masses.append(uniq)
        reps.append([prior.values[i] for i in first])
    n = math.prod(len(m) for m in masses)
    if n > _MAX_COMBOS:
        raise ParameterError(
            f"t=None would evaluate {n} combinations of distinct prior masses (max {_MAX_COMBOS}); pass t")
    grids = np.meshgrid(*masses, indexing="ij")
    q = [g.ravel() for g in grids]
    p = np.clip(goal_probability(model.terms, q), 0.0, 1.0)
    with np.errstate(all="ignore"):
        up = np.where((p + delta < 1) & (p > 0), np.asarray(eps_lb(delta=delta, p=np.clip(p, 1e-300, 1 - delta - 1e-300)), float), np.inf)
        dn = np.full(p.shape, np.inf)
        if sides == "both":
            dn = np.where(p > delta, np.asarray(eps_ub(delta=delta, p=np.clip(p, delta + 1e-300, 1 - 1e-300)), float), np.inf)
    eps = np.minimum(up, dn)
    k = int(np.argmin(eps))
    idx = np.unravel_index(k, grids[0].shape)
    tv = [reps[j][idx[j]] for j in range(len(model.parts))]
    lo, e_up, e_dn, pk = float(eps[k]), float(up[k]), float(dn[k]), float(p[k])
    binding = "none" if math.isinf(lo) else ("upper" if e_up <= e_dn else "lower")
    wit = DiscreteWitness(pk, binding != "lower")
    side = Bracket(lo, lo, wit, wit.posterior(lo) if math.isfinite(lo) else math.nan)
    return OptimalGoalResult(
        epsilon=lo, t=dict(zip(model.labels, tv, strict=True)), p=pk, event=event,
        method="discrete-metric", binding=binding, epsilon_upper=e_up, epsilon_lower=e_dn,
        epsilon_lo=lo, epsilon_hi=lo, rel_width=0.0, posterior=side.posterior,
        witness=_witness_info(side, "discrete-metric"), delta=delta, norm=model.norm, sides=sides,
        upper=(e_up, e_up), lower=(e_dn, e_dn),
        upper_bound_at_lo=pk + delta if math.isfinite(e_up) else math.nan,
        details={"seconds": time.perf_counter() - t0, "true_records": n})


def worst_posterior(goal, *, epsilon: float, t: Any, norm: float = math.inf, side: str = "upper",
                    resolution: int = 1) -> tuple[float, float]:
    r"""Certified bounds ``(low, high)`` on the worst posterior of ``goal`` over all
    :math:`\epsilon`-DP mechanisms at the true record ``t`` (beyond the paper; Sec. 4.2, 4.3):
    :math:`U(\epsilon) = \sup_L \Pr_{post}[X']` for ``side="upper"``, :math:`V(\epsilon) = \inf_L`
    for ``side="lower"`` (see the module docstring).

    ``low`` comes from a witness mechanism for the upper side (a bound valid for every
    mechanism for the lower side) and ``high`` the other way round.  Exact (``low`` and
    ``high`` agree to about 1e-9) for finite priors, one attribute, the discrete metric and
    ``norm=1`` products; for two normal attributes under ``norm=inf`` from the cell relaxation
    on about :math:`800 \cdot 2^{resolution + 1}` cells (at most 12,800) and the best ridge
    witness; for other
    continuous attributes on a grid whose cells are halved ``resolution - 1`` times (finer is
    tighter).

    Examples
    --------
    >>> from garesearch.goals import Attribute
    >>> from garesearch.priors import Normal
    >>> lo, hi = worst_posterior(Attribute(Normal(0, 1), r=0.5), epsilon=0.5, t=[0.0])
    >>> round(lo, 6), round(hi, 6)
    (0.485783, 0.485783)
    """
    if not (is_real(epsilon) and math.isfinite(epsilon) and epsilon > 0):
        raise ParameterError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    if side not in ("upper", "lower"):
        raise ParameterError(f"side must be 'upper' or 'lower'; got {side!r}")
    if not (isinstance(resolution, (int, np.integer)) and 1 <= resolution <= 6):
        raise ParameterError(f"resolution must be an integer in [1, 6]; got {resolution!r}")
    model = build_model(goal, check_norm(norm))
    tv = resolve_true_values(model, t)
    tc = true_codes(model, true_coords(model, tv))
    p = goal_p(model, tv)
    upper = side == "upper"
    eps = float(epsilon)
    method = method_of(model)
    if method == "discrete-metric":
        v = DiscreteWitness(p, upper).posterior(eps)
        return v, v
    if method == "kernel":
        ker = Kernel1D(model.priors[0], tc[0], model.parts[0].r)
        bound, _, best = ker.extreme(eps, -1.0 if upper else 1.0, upper)
        b, w = odds_to_posterior(bound), odds_to_posterior(best)
        return (w, b) if upper else (b, w)
    if method == "lp":
        rec = Records(model)
        inside = in_goal_set(model, rec.X, tc)
        pairs, exact = rec.network()
        while True:
            bound, s, _ = finite_lp(rec, inside, eps, upper, pairs)
            new = np.zeros((0, 2), int) if exact else rec.violations(s, cap=20 * rec.n)
            if new.shape[0] == 0:
                break
            pairs = np.unique(np.concatenate([pairs, np.unique(np.sort(new, axis=1), axis=0)]), axis=0)
        vals = [FiniteWitness(rec.repair(s, how), rec.logm, inside).posterior(eps) for how in ("lower", "upper")]
        w = max(vals) if upper else min(vals)
        return (w, bound) if upper else (bound, w)
    if cells_apply(model, tc):  # two normal attributes under l_inf: the cell relaxation
        grid = cell_grid(model, tc, min(CELL_SIZES[0] * 2 ** (resolution + 1), 12_800))
        bound, loga = grid.solve(eps, upper)
        start = ridge_boxes(grid, loga, eps, upper)
        w = best_pyramid(model, tc, eps, upper).posterior(eps)
        if start is not None:
            rw = best_ridges(model, tc, eps, start, upper).posterior(eps)
            w = max(w, rw) if upper else min(w, rw)
        return (w, bound) if upper else (bound, w)
    parts1d = all(p_.kind != "ball" for p_ in model.parts)
    if parts1d:
        solvers = [part_solver(model, k, tc, upper) for k in range(len(model.parts))]
        out = [sv(eps) for sv in solvers]
        fbound = goal_probability(model.terms, [odds_to_posterior(b) for b, _ in out])
        if method == "product":
            w = ProductWitness(model.terms, [x for _, x in out], [1.0] * len(out)).posterior(eps)
            return (w, fbound) if upper else (fbound, w)
    axes = base = initial_axes(model, tc)
    for _ in range(resolution - 1):
        axes = halve_axes(axes)
    grid = Grid(model, tc, axes, base=base)
    bound, wit = grid.solve(eps, upper)
    w = wit.posterior(eps)
    if math.isinf(model.norm) and parts1d:
        pw = best_pyramid(model, tc, eps, upper).posterior(eps)
        w = max(w, pw) if upper else min(w, pw)
    if parts1d:
        bound = min(bound, fbound) if upper else max(bound, fbound)
    return (w, bound) if upper else (bound, w)
