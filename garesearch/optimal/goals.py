r"""The optimal epsilon of a goal: the largest epsilon at which *no* epsilon-DP mechanism moves
the attacker's posterior of the goal by more than ``delta`` (beyond the paper; Sec. 4.2, 4.3).

Theorems 1 and 2 (:func:`garesearch.constructions.comparison_sets.comparison_set_epsilon`) bound the posterior through a
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
Each method is a solver registered under its name (the result's ``method``) in
:data:`garesearch.optimal._solvers.SOLVERS`, and every solver follows one protocol
(:class:`garesearch.optimal._solvers.Solver`): at a true record, a certified bracket of each side
that can bind, and the worst posterior's bounds at a fixed epsilon (:func:`worst_posterior`).
:func:`garesearch.optimal._solvers.method_for` names the method of a goal at a true record; the
methods, by name:

*Finite priors* (``"lp"``; every attribute :class:`~garesearch.priors.Categorical`): a linear
program after the Charnes-Cooper transform, :math:`\max \sum_{X'} w_i` s.t. :math:`\sum_i w_i = 1`,
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

- one attribute (``"kernel"``): the supremum is reached by the Laplace kernel
  :math:`e^{-\epsilon|x-c|}`, the infimum by the inverted kernel :math:`e^{\epsilon|x-c|}`,
  :math:`c \in X'` (fix ``L`` at the two ends of :math:`X'`: outside, ``L`` is smallest when it
  decays at rate :math:`\epsilon` from the ends, inside largest as the tent between them; for
  the infimum the other way round);
- records under the discrete metric (``"discrete-metric"``; every attribute categorical and
  ``norm=inf``, or a single categorical attribute): :math:`U = pe^\epsilon/(pe^\epsilon + 1 - p)`
  and :math:`V = p/(p + (1-p)e^\epsilon)` (``L`` may only vary by the factor :math:`e^\epsilon`);
- AND and OR goals of one-coordinate attributes under ``norm=1`` (``"product"``):
  :math:`U = P(U_1, \dots, U_n)` and :math:`V = P(V_1, \dots, V_n)`, with :math:`U_i, V_i` the
  one-attribute worst posteriors and :math:`P(q)` the probability of the goal when attribute
  ``i`` is correct with probability :math:`q_i` independently.  Upper bound (any norm): condition
  on the attributes one at a time; integrating ``L`` over the other attributes keeps it
  :math:`\epsilon`-Lipschitz in the remaining one, and :math:`P` is increasing in each
  :math:`q_i`.  Attained under :math:`\ell_1` by the product of the one-attribute kernels
  (Lipschitz for the sum of the distances), which makes the attributes independent given ``y``.
  Under any other norm the same expression is a sound bound (an :math:`\ell_p` distance is at
  most the :math:`\ell_1` distance, so fewer mechanisms are :math:`\epsilon`-DP).

*Two attributes under* ``norm=inf``, *each numeric with a log-concave prior or categorical
(at most one)* (``"lp-cells"``, :mod:`garesearch.optimal._goal_cells`; log-concavity by an
explicit rule per prior class, :func:`garesearch.optimal._goal_cellaxes.is_log_concave`:
normal, uniform, and scipy families such as gamma with shape at least 1, exponential,
Laplace): a **certified bracket** :math:`[\epsilon_{lo}, \epsilon_{hi}]` from a relaxation on
cells aligned with the edges of :math:`X'` (a categorical attribute's cells are its atoms).  Translation lemma: if the prior is a product of
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
(1 %) or the grids are used up.  On the benchmark's OR goal (:func:`garesearch.app.bench.goal_brackets`)
the bracket is [0.3970, 0.4002]; for the OR at the priors' means (the lower side binds)
[0.5341, 0.5384]; for the AND box [0.9877, 0.9928].  The worst mechanism of the OR is a
half-line ridge along each arm of the cross, each at its own height (at :math:`\epsilon = 0.4`
the heights are 0, -0.2, -0.4 and -1.4 times :math:`\epsilon`).

*An AND of three numeric attributes under* ``norm=inf`` *with log-concave priors* (also
``"lp-cells"``, :mod:`garesearch.optimal._goal_cells3`), when the bands' widths are whole
multiples of a common cell side with at least 4 cells across the narrowest band and the grid
has at most 8,000 cells: the same lemma on equal cubic cells (the 13 neighbour translations
chain to every :math:`\ell_\infty` distance), over the bands widened by 7 cells, the prior
beyond bounded from both sides through the edge cells and virtual cells beyond them (so that a
small box stays tight).  The high end is where the best shifted pyramid crosses; the sound end
is the best of the product bound and at most three LPs per side, started just below the
pyramid's crossing.  On the benchmark's AND of three normal attributes
(:func:`garesearch.app.bench.goals_everywhere`) the bracket is [1.9422, 1.9817] (2.0 %, about
40 s; the product bound alone gave [1.0982, 3.3106]).

*Other continuous attributes* (``"lp-grid"``; other priors, other norms, mixtures with finite
ones, balls): an LP on a discretisation that gives a certified bracket :math:`[\epsilon_{lo},
\epsilon_{hi}]`.  The space is cut into product cells (each inside or outside :math:`X'`), with
unbounded end cells; node values of ``L`` at the cell corners are LP variables with the exact
pairwise constraints between neighbouring nodes; each cell has a variable for :math:`\int_{cell}
L\,dF`, bounded through the nodes of its stencil (its corners and the next ring): :math:`\int_Q
L\,dF \le v_k \int_Q e^{\epsilon d(x, z_k)} dF` and :math:`\ge v_k \int_Q e^{-\epsilon d(x,
z_k)} dF` for every stencil node :math:`z_k` -- true for every :math:`\epsilon`-DP mechanism.
The integrals of one cone over a product cell are computed with rigorous bounds (products of
one-attribute closed forms under :math:`\ell_1`; under :math:`\ell_\infty` the layer-cake
formula :math:`\int_Q e^{-\epsilon d}dF = \int_0^\infty \epsilon e^{-\epsilon s} F(Q \cap \{d
\le s\})\,ds` with a monotone integrand, bounded by Riemann sums; other norms between the two).
Using the upper bound inside :math:`X'` and the lower one outside gives a relaxation: its
dual-certified optimum bounds :math:`U` from above, so :math:`\epsilon_{lo}` is sound.  The LP's
node values, repaired to an exactly Lipschitz profile, define the witness :math:`L^*(x) = \max_k
v_k e^{-\epsilon d(x, z_k)}` (an :math:`\epsilon`-DP mechanism); bounding its cell integrals the
other way gives a lower bound on its posterior, which exceeds :math:`p + \delta` at
:math:`\epsilon_{hi}`.  Cells are refined where the two bounds differ most until the bracket's
relative width reaches ``rtol`` or the schedule ends (``max_nodes`` nodes, 8 grids, or an LP of
more than 40,000 (cell, node) pairs).  For one :math:`\ell_2` ball of two numeric coordinates a
second witness is the cone :math:`e^{-\epsilon \max(0, \|x - c\|_2 - \rho)}` (inverted for
the lower side) about a centre between the true point and the priors' medians, its posterior
certified by the layer-cake formula over discs about :math:`c` whose masses are enclosed by
slabs (:mod:`garesearch.optimal._goal_ball`); the better of the two high ends is kept.  The
lower side is the mirror image; the two sides take
turns, each finer grid going to the side whose sound end is lower.  With three or more
continuous coordinates (other than the AND above), or a starting grid above ``max_nodes``
nodes, the bracket comes from the product bound instead (``"product-bound"``: the sound end of
:math:`P(U_1, \dots, U_n)`, each part given the whole epsilon, and the first crossing of a
product witness whose rates split epsilon and, under ``norm=inf``, of the best shifted pyramid;
wider: on the OR of the benchmark's three normal attributes [0.2102, 0.5132]).  For every continuous method the comparison
sets of Theorems 1 and 2 are a floor for the sound end.

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
explicit bound on their rounding errors (:func:`garesearch.optimal._certify.dual_bound`).  Membership
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
lemma's log-concave product prior, hence is used for log-concave numeric priors only
(mixtures and heavy tails go to the node grids).
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._args import check_sides, renamed_keywords, warn_renamed
from .._plain import PlainFields
from ..bound import eps_lb, eps_ub
from ..errors import InfeasibleError, ParameterError
from ..goals import check_norm
from ._certify import Bracket, BudgetExhausted, check_time, describe_witness, wall_clock_cap
from ._goal_cells import cells_apply
from ._goal_cells3 import cells3_apply
from ._goal_finite import MAX_RECORDS
from ._goal_kernels import DiscreteWitness
from ._goal_model import (
    GoalModel,
    build_model,
    goal_p,
    goal_probability,
    is_real,
    method_of,
    resolve_true_values,
    true_codes,
    true_coords,
)
from ._solvers import SOLVERS, Precision, solve_record

__all__ = ["CutShortWarning", "OptimalGoalResult", "epsilon_optimal", "worst_posterior"]

_SIDES = ("both", "upper")
_MAX_T = 2_000  # t=None: largest number of true records enumerated
#: t=None over finite priors of several attributes: largest (true records) x (records of the
#: product support), the size of the work (exact LPs over the support for each true record;
#: 64 x 64 takes about 5 s, 140 x 140 about a minute)
_MAX_T_WORK = 20_000
_MAX_COMBOS = 2_000_000  # t=None under the discrete metric: combinations of distinct masses


class CutShortWarning(UserWarning):
    """:func:`epsilon_optimal` was cut short by its wall-clock ``budget``: the bracket it
    returns is sound but not the one of its work schedule, and depends on the machine's
    speed and load (not reproducible)."""


@dataclass(frozen=True)
class OptimalGoalResult(PlainFields):
    """What :func:`epsilon_optimal` found (beyond the paper).

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
        attributes under ``norm=inf``, log-concave numeric or categorical, or an AND of three
        log-concave numeric ones: the cell relaxation), ``"lp-grid"`` (other
        continuous attributes on refined grids) or ``"product-bound"`` (three or more
        continuous coordinates otherwise: the product bound, a product witness and a shifted
        pyramid, a wider bracket).
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
        centre, pyramid box, ridge boxes with their heights, a cone's centre and ``rho``, or the
        LP's records and log-likelihood per unit of epsilon).
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
        C_k) - s_k)`), the one-attribute kernels (:math:`\mp |x - c|`) and the cones of an
        :math:`\ell_2` ball (:math:`\mp \max(0, \|x - c\|_2 - \rho)`).

        Examples
        --------
        >>> from garesearch.goals import Attribute
        >>> from garesearch.priors import Normal
        >>> res = epsilon_optimal(Attribute(Normal(0, 1), r=0.5), delta=0.1, t=[0.0], sides="upper")
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
        if kind in ("ball cone", "inverted ball cone"):
            d = np.maximum(np.linalg.norm(x - np.asarray(w["centre"], float), axis=-1) - w["rho"], 0.0)
            return 0.0 - d if kind == "ball cone" else d
        if kind not in ("ridges", "inverted ridges", "shifted pyramid", "inverted shifted pyramid"):
            raise ParameterError(
                f"the witness of kind {kind!r} has no closed-form profile (boxes, kernels or cones only)")
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
    check_sides(sides, _SIDES)
    if rtol is not None and not (is_real(rtol) and 0 < rtol < 1):
        raise ParameterError(f"rtol must be a number in (0, 1); got {rtol!r}")
    if budget is not None and not (is_real(budget) and math.isfinite(budget) and budget > 0):
        raise ParameterError(f"budget must be None or a finite number of seconds > 0; got {budget!r}")


def _witness_info(side: Bracket, method: str) -> dict:
    """The witness of ``side`` as :attr:`OptimalGoalResult.witness` shows it: every witness
    describes itself (:meth:`garesearch.optimal._certify.Witness.describe`; ``method`` is not needed)."""
    return describe_witness(side.witness)


def _solve_t(model: GoalModel, tv, delta, sides, rtol, max_nodes, at=None):
    """Both sides at one true record, by the work schedule of ``rtol``; ``at``: the best
    epsilon so far over the other true records (``t=None``): the searches start there, and a
    finite record's search ends once it certifies ``at`` (it is then not the worst).  Under a
    wall-clock cap, a side that the cap stopped holds the bracket reached (``cut_short``).
    The solver of the record's method does the work (:func:`garesearch.optimal._solvers.solve_record`)."""
    return solve_record(model, tv, delta, sides, Precision(rtol, max_nodes, at))


def _all_t(model: GoalModel) -> list:
    if not model.finite:
        raise ParameterError(
            "t is required here: the true records of continuous attributes are screened in "
            "epsilon_optimal, not enumerated")
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


def epsilon_optimal(goal, *, delta: float, t: Any = None, norm: float = math.inf,
                    sides: str = "both", rtol: float | None = None, budget: float | None = None,
                    max_nodes: int = 1600) -> OptimalGoalResult:
    r"""The largest epsilon at which no :math:`\epsilon`-DP mechanism lets the posterior of
    ``goal`` move by more than ``delta`` (beyond the paper; compare Theorems 1 and 2, Sec. 4.2,
    4.3 and :func:`garesearch.constructions.comparison_sets.comparison_set_epsilon`, which are sound but not
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
        true record.  Finite priors: every record is solved by the same schedule (at most
        2,000 of them, and for several attributes at most 20,000 for the product of the true
        records and the records of the exact LP, refused up front by these counts; under the
        discrete metric every combination of distinct prior masses, at most 2,000,000).  A
        continuous part (one-coordinate parts; :mod:`garesearch.optimal._goal_worst`): every record
        of the product of the parts' scans (atoms, categories, the one-attribute scan of a
        density with its kinks and far tails, the far-tail limits), refined by zooms from the
        local maxima, is screened by the product of the one-attribute bounds (sound for every
        norm), then the full solver runs at the worst record (ties: the record nearest the
        priors' medians, then the lexicographically largest; ``t_i = +-inf`` for a far-tail
        limit, ``details["far_tail"]``).  ``epsilon`` is the screen's level over every
        scanned record, or the worst record's own sound end if lower; ``epsilon_hi`` the
        witness at that record; ``details["record_bracket"]`` its own bracket.  Between the
        scanned records the answer rests on the search, and where the full solver beats the
        product bound (``norm > 1``) the level may lie below the optimum by that gap.  One
        numeric attribute, with or without ``t``: its own optimum
        (:func:`garesearch.optimal.epsilon_optimal`), whose bracket is the record's.
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
        60 steps; the cell relaxation (two attributes, ``norm=inf``, log-concave or categorical) grids of about
        800, 3,000 and 7,000 cells at ``rtol=0.01`` (those up to ``80 / rtol`` cells of 800,
        3,000, 7,000, 16,000 and 36,000: :func:`garesearch.optimal._goal_cells.schedule`), at most 6
        LPs on the first and 4 on each further grid, and one ridge witness search of 300
        Nelder-Mead evaluations and one shifted-pyramid search; the node grids (other continuous goals) at most 4 LPs per
        grid and 8 grids per side, refined while the grid has at most ``max_nodes`` nodes and
        its LP at most 40,000 (cell, node) pairs (:data:`garesearch.optimal._goal_grid.MAX_GRIDS`,
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
        case).  With three or more continuous coordinates (other than an AND of three
        log-concave numeric attributes under ``norm=inf``, ``method="lp-cells"``), or a
        starting grid above ``max_nodes``, the bracket comes from the product bound, a product
        witness and (``norm=inf``) a shifted pyramid (``method="product-bound"``,
        one-coordinate parts; wider), and an :math:`\ell_p` ball is refused.

    Returns
    -------
    OptimalGoalResult

    Raises
    ------
    ParameterError
        Bad input (as :func:`~garesearch.events.epsilon_for_goal`), or ``t=None`` with an
        :math:`\ell_p` ball of continuous coordinates or too many true records.
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
    >>> res = epsilon_optimal(gender & colour, delta=0.1)
    >>> res.t["colour"], round(res.epsilon, 4), res.method
    ('black', 0.539, 'discrete-metric')
    >>> round(epsilon_optimal(gender | colour, delta=0.1).epsilon, 4)
    0.4013

    One normal attribute (the salary of Sec. 6.2 at t = 2300): the Laplace kernel is optimal.

    >>> salary = Attribute(Normal(2000, 235.7), r=100, name="salary")
    >>> res = epsilon_optimal(salary, delta=0.1, t=[2300.0])
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
    one = len(model.parts) == 1 and model.parts[0].kind == "num" and not model.finite
    if (t is None and not model.finite) or one:  # the worst record over continuous supports
        from ._goal_worst import worst_result  # (one attribute: its own optimum, at t if given)

        t_one = float(resolve_true_values(model, t)[0]) if one and t is not None else None
        return worst_result(model, float(delta), sides, rtol, max_nodes, budget, event, t0, t_one)
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
            f"epsilon_optimal was cut short by budget={budget:g} s: the bracket [{lo:.6g}, {hi:.6g}] "
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


@renamed_keywords(side="sides")
def worst_posterior(goal, *, epsilon: float, t: Any, norm: float = math.inf, sides: str = "upper",
                    resolution: int = 1) -> tuple[float, float]:
    r"""Certified bounds ``(low, high)`` on the worst posterior of ``goal`` over all
    :math:`\epsilon`-DP mechanisms at the true record ``t`` (beyond the paper; Sec. 4.2, 4.3):
    :math:`U(\epsilon) = \sup_L \Pr_{post}[X']` for ``sides="upper"``, :math:`V(\epsilon) = \inf_L`
    for ``sides="lower"`` (see the module docstring; one side at a time, so ``"both"`` does
    not apply; the old keyword ``side=`` is deprecated).

    ``low`` comes from a witness mechanism for the upper side (a bound valid for every
    mechanism for the lower side) and ``high`` the other way round.  Exact (``low`` and
    ``high`` agree to about 1e-9) for finite priors, one attribute, the discrete metric and
    ``norm=1`` products; for the cell relaxation's goals (two attributes under ``norm=inf``, log-concave numeric
    or categorical) from the relaxation on about :math:`800 \cdot 2^{resolution + 1}` cells (at most 12,800) and the best ridge
    witness; for an AND of three log-concave numeric attributes under ``norm=inf`` from the
    relaxation on cubic cells (whatever ``resolution``) and the best shifted pyramid; for other
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
    check_sides(sides, ("upper", "lower"))
    if not (isinstance(resolution, (int, np.integer)) and 1 <= resolution <= 6):
        raise ParameterError(f"resolution must be an integer in [1, 6]; got {resolution!r}")
    model = build_model(goal, check_norm(norm))
    tv = resolve_true_values(model, t)
    tc = true_codes(model, true_coords(model, tv))
    p = goal_p(model, tv)
    upper = sides == "upper"
    method = method_of(model)
    if method == "lp-grid" and (cells_apply(model, tc) or cells3_apply(model, tc)):  # (see method_for)
        method = "lp-cells"
    w, bound = SOLVERS[method].posterior_bounds(model, tc, p, float(epsilon), upper, resolution)
    return (w, bound) if upper else (bound, w)


def optimal_epsilon(goal, **kwargs) -> OptimalGoalResult:
    """Deprecated name of :func:`epsilon_optimal` (the name of the optimum for one attribute
    too, :func:`garesearch.optimal.epsilon_optimal`); kept for one release.

    Examples
    --------
    >>> import warnings
    >>> from garesearch.goals import Attribute
    >>> from garesearch.priors import Categorical
    >>> coin = Attribute(Categorical({"H": 0.5, "T": 0.5}), r=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     round(optimal_epsilon(coin, delta=0.1).epsilon, 6)   # ln(0.6 / 0.4)
    0.405465
    """
    warn_renamed("optimal_epsilon", "epsilon_optimal", "garesearch.optimal.goals")
    return epsilon_optimal(goal, **kwargs)
