r"""The solvers of the optimal epsilon of a goal, by method name (beyond the paper; Sec. 4.1-4.3;
the methods and their proofs are in :mod:`garesearch.optimal.goals`).

Every solver follows one protocol, :class:`Solver`: at one true record it is given the
problem (:class:`Job`: the goal's model, the true record, ``p``, ``delta`` and the sides that
can bind, with their targets) and the work schedule (:class:`Precision`), and returns a
certified :class:`~garesearch.optimal._certify.Bracket` per side; at a fixed epsilon it bounds the
worst posterior (:meth:`Solver.posterior_bounds`).  :data:`SOLVERS` maps the method names of
:attr:`garesearch.optimal.goals.OptimalGoalResult.method` to their solvers, :func:`method_for`
names the method of a goal at a true record, and :func:`solve_record` runs it.  A new method
is a class with the protocol's three methods, registered under its name with
:func:`register` and named by :func:`method_for`.

The methods: ``"discrete-metric"`` (the closed forms of Sec. 3.2, :class:`DiscreteMetric`),
``"kernel"`` (one numeric attribute: Laplace and inverted kernels, :class:`OneAttribute`),
``"lp"`` (finite priors: the exact LP, :class:`FiniteLP`), ``"product"`` (``norm=1``: products
of one-part optima, :class:`Product`), ``"lp-cells"`` (two log-concave numeric or categorical attributes under
``norm=inf``, or an AND of three log-concave numeric ones: the cell relaxation,
:class:`CellRelaxation`), ``"lp-grid"`` (other continuous goals: node grids,
:class:`NodeGrids`) and ``"product-bound"`` (three or more continuous coordinates otherwise:
the product bound, a product witness and a shifted pyramid, :class:`ProductBound`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from ..bound import eps_lb, eps_ub
from ..errors import InfeasibleError, ParameterError
from ..goals import attributes_of, lp_norm
from ..priors import Categorical
from ._certify import Bracket, BudgetExhausted, capped, check_time, odds_to_posterior
from ._goal_ball import ball_applies, best_ball
from ._goal_cells import SIZES as CELL_SIZES
from ._goal_cells import (
    ball_cells_apply,
    ball_sound_ends,
    best_ridges,
    cell_grid,
    cell_sides,
    cells_apply,
    ridge_boxes,
)
from ._goal_cells3 import cell3_posterior_bounds, cell3_sides, cells3_apply
from ._goal_finite import FiniteWitness, Records, finite_lp, finite_side
from ._goal_grid import Grid, grid_sides, halve_axes, initial_axes
from ._goal_kernels import (
    DiscreteWitness,
    Kernel1D,
    ProductWitness,
    one_attribute_side,
    part_solver,
    product_bracket,
    product_side,
)
from ._goal_model import (
    GoalModel,
    goal_p,
    goal_probability,
    in_goal_set,
    method_of,
    rebuild_goal,
    true_codes,
    true_coords,
)
from ._goal_pyramid import best_pyramid, pyramid_crossing

__all__ = ["SOLVERS", "Job", "Precision", "Solver", "method_for", "register", "solve_record"]

#: the lower side of an OR over unbounded attributes has a comparison-set floor (the
#: pointwise bound of :func:`garesearch.constructions.or_lower.or_lower_epsilon`, a tensor-product
#: quadrature) for at most this many continuous attributes
OR_LOWER_FLOOR_MAX = 3


@dataclass(frozen=True)
class Precision:
    """The work schedule of one call (:func:`garesearch.optimal.goals.epsilon_optimal`).

    Attributes
    ----------
    rtol : float or None
        The target relative width of the brackets (``None``: each solver's default).
    max_nodes : int
        Largest number of nodes of a node grid (``"lp-grid"``).
    at : float or None
        The best epsilon so far over the other true records (``t=None``): the searches start
        there, and a finite record's search ends once it certifies it.
    """

    rtol: float | None = None
    max_nodes: int = 1600
    at: float | None = None


@dataclass(frozen=True, eq=False)
class Job:
    """The problem at one true record, as every solver gets it.

    Attributes
    ----------
    model : GoalModel
        The goal.
    tv : list
        The true values, one per part.
    tc : list
        The true record's codes, one per coordinate (:func:`garesearch.optimal._goal_model.true_codes`).
    p : float
        Prior probability of :math:`X'` (from :meth:`Solver.prepare`).
    delta : float
        The bound on the advantage (Def. 7).
    sides : str
        ``"both"`` or ``"upper"`` (the call's sides).
    live : dict
        The sides that can bind: name (``"upper"``, ``"lower"``) -> ``(target, upper)``, the
        posterior ``p + delta`` or ``p - delta`` that must not be crossed.
    data : Any
        What :meth:`Solver.prepare` returned for the record besides ``p`` (or ``None``).
    """

    model: GoalModel
    tv: list
    tc: list
    p: float
    delta: float
    sides: str
    live: dict
    data: Any = None


class Solver(Protocol):
    """One method of the optimal epsilon of a goal (registered in :data:`SOLVERS`)."""

    def prepare(self, model: GoalModel, tv, tc) -> tuple[float, Any]:
        """``p`` (the prior probability of :math:`X'` at the true record) as the method sees
        it, and data for :meth:`brackets` (:attr:`Job.data`; ``None`` if none)."""
        ...

    def brackets(self, job: Job, precision: Precision) -> dict[str, Bracket]:
        """A certified bracket of every side of ``job.live`` (name -> bracket), by the work
        schedule of ``precision``.  Under a wall-clock cap a side the cap stopped is returned
        with ``cut_short`` set, or left out (it is then cut short, ``[0, inf]``);
        :class:`~garesearch.optimal._certify.BudgetExhausted` does not propagate."""
        ...

    def posterior_bounds(self, model: GoalModel, tc, p: float, eps: float, upper: bool,
                         resolution: int) -> tuple[float, float]:
        """At ``eps``: a witness mechanism's posterior of :math:`X'` and a bound on the worst
        posterior valid for every :math:`\\epsilon`-DP mechanism (the supremum for ``upper``,
        else the infimum), at the given ``resolution``
        (:func:`garesearch.optimal.goals.worst_posterior`)."""
        ...


#: method name -> its solver
SOLVERS: dict[str, Solver] = {}


def register(name: str):
    """Class decorator: register an instance of the class in :data:`SOLVERS` under ``name``."""
    def deco(cls):
        if name in SOLVERS:
            raise ParameterError(f"name: a solver is already registered under {name!r} "
                                 f"({type(SOLVERS[name]).__name__}); choose a new method name")
        cls.method = name
        SOLVERS[name] = cls()
        return cls

    return deco


def solve_record(model: GoalModel, tv, delta, sides: str, precision: Precision) -> dict:
    """Both sides at one true record ``tv`` by its method's solver (the work schedule of
    ``precision``): ``{"p", "method", "tc", "sides": {name: Bracket}, "cut_short"}``.  A side
    that cannot bind (its target lies beyond the posterior's range) is ``[inf, inf]``; under
    a wall-clock cap a side that the cap stopped holds the bracket reached (``cut_short``)."""
    tc = true_codes(model, true_coords(model, tv))
    method = method_for(model, tc, precision.max_nodes)
    solver = SOLVERS[method]
    p, data = solver.prepare(model, tv, tc)
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
    if live:
        out["sides"].update(solver.brackets(Job(model, tv, tc, p, delta, sides, live, data), precision))
    for name in live:
        if name not in out["sides"]:  # the cap ran out before this side started
            out["sides"][name] = Bracket(0.0, math.inf, cut_short=True)
    out["cut_short"] = any(b.cut_short for b in out["sides"].values())
    return out


def method_for(model: GoalModel, tc, max_nodes: int) -> str:
    """The method (a key of :data:`SOLVERS`) for ``model`` at the true record ``tc``:
    :func:`garesearch.optimal._goal_model.method_of`, with continuous goals split into
    ``"lp-cells"`` (two attributes under ``norm=inf``: log-concave numeric or one
    categorical, :func:`~garesearch.optimal._goal_cells.cells_apply`; or an AND of three
    log-concave numeric ones, :func:`~garesearch.optimal._goal_cells3.cells3_apply`),
    ``"lp-grid"`` (a starting node
    grid of at most ``max_nodes`` nodes) and ``"product-bound"`` (one-coordinate parts only);
    a ball over three or more coordinates is refused."""
    method = method_of(model)
    if method != "lp-grid":
        return method
    if cells_apply(model, tc) or cells3_apply(model, tc):
        return "lp-cells"
    if sum(not isinstance(pr, Categorical) for pr in model.priors) <= 2:
        nodes = math.prod(len(ax.nodes) for ax in initial_axes(model, tc))
        if nodes <= max_nodes:
            return "lp-grid"
    if all(part.kind != "ball" for part in model.parts):
        return "product-bound"
    raise ParameterError(
        "goal: the optimal construction's grid covers l_p balls of two coordinates (with at most "
        "two continuous coordinates in all, and a starting grid of at most max_nodes nodes); "
        "this goal needs more. Use construction='sound' (the comparison sets), or fewer coordinates")


def _heavy(prior) -> bool:
    """Whether a tail of a continuous prior is declared heavier than every exponential
    (:meth:`garesearch.priors.Prior.tail`: its tilted tail then diverges for every epsilon)."""
    if isinstance(prior, Categorical):
        return False
    return any(prior.tail(side).kind == "heavy" for side in ("left", "right"))


def _no_noise_needed(target: float, upper: bool, p: float) -> bool:
    """The side holds at every epsilon: its target is beyond the posterior's range (or X' has
    no prior mass, for the upper side)."""
    return (upper and target >= 1) or (not upper and target <= 0) or (upper and p <= 0)


# ------------------------------------------------------------------------------------------
# Exact methods, one side at a time
# ------------------------------------------------------------------------------------------
class _OneSide:
    """A solver of one side at a time (:meth:`side`); ``p`` from the goal's prior."""

    method = ""

    def prepare(self, model: GoalModel, tv, tc) -> tuple[float, Any]:
        return goal_p(model, tv), None

    def brackets(self, job: Job, precision: Precision) -> dict[str, Bracket]:
        out = {}
        for name, (target, upper) in job.live.items():
            try:
                out[name] = self.side(job, target, upper, precision)
            except BudgetExhausted:
                break  # (this side and those after it are cut short)
        return out

    def side(self, job: Job, target: float, upper: bool, precision: Precision) -> Bracket:
        raise NotImplementedError


@register("discrete-metric")
class DiscreteMetric(_OneSide):
    r"""Records under the discrete metric: :math:`U = pe^\epsilon/(pe^\epsilon + 1 - p)`,
    :math:`V = p/(p + (1-p)e^\epsilon)` (Sec. 3.2), so each side is the paper's closed form."""

    def side(self, job, target, upper, precision):
        p, delta = job.p, job.delta
        e = float(eps_lb(delta=delta, p=p) if upper else eps_ub(delta=delta, p=p))
        return Bracket(e, e, DiscreteWitness(p, upper), target, bound=target)

    def posterior_bounds(self, model, tc, p, eps, upper, resolution):
        v = DiscreteWitness(p, upper).posterior(eps)
        return v, v


@register("kernel")
class OneAttribute(_OneSide):
    """One numeric attribute: the Laplace kernel (upper side) and the inverted kernel (lower
    side), their centres by certified branch and bound (default ``rtol`` 1e-6)."""

    def side(self, job, target, upper, precision):
        model = job.model
        return one_attribute_side(model.priors[0], job.tc[0], model.parts[0].r, target, upper,
                                  precision.rtol or 1e-6)

    def posterior_bounds(self, model, tc, p, eps, upper, resolution):
        ker = Kernel1D(model.priors[0], tc[0], model.parts[0].r)
        bound, _, best = ker.extreme(eps, -1.0 if upper else 1.0, upper)
        return odds_to_posterior(best), odds_to_posterior(bound)


@register("lp")
class FiniteLP(_OneSide):
    """Finite priors: the exact LP over the product support, with cutting planes (default
    ``rtol`` 1e-7); ``p`` from the same records as the LP (ties at a ball's edge included)."""

    def prepare(self, model, tv, tc):
        rec = Records(model)
        return float(np.sum(rec.m[in_goal_set(model, rec.X, tc)])), rec

    def side(self, job, target, upper, precision):
        rec, at = job.data, precision.at
        inside = in_goal_set(job.model, rec.X, job.tc)
        return finite_side(rec, inside, target, upper, precision.rtol or 1e-7, eps0=at,
                           enough=at if at is not None else math.inf)

    def posterior_bounds(self, model, tc, p, eps, upper, resolution):
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
        return (max(vals) if upper else min(vals)), bound


def _product_bound(model: GoalModel, tc, eps: float, upper: bool):
    """:math:`P(U_1, \\dots, U_n)` (or of the :math:`V_i`) at ``eps`` and the one-part
    witnesses (one-coordinate parts)."""
    solvers = [part_solver(model, k, tc, upper) for k in range(len(model.parts))]
    out = [sv(eps) for sv in solvers]
    return goal_probability(model.terms, [odds_to_posterior(b) for b, _ in out]), [x for _, x in out]


@register("product")
class Product(_OneSide):
    """AND / OR goals of one-coordinate parts under ``norm=1``: :math:`U = P(U_1, \\dots,
    U_n)`, attained by the product of the one-part kernels (default ``rtol`` 1e-6)."""

    def side(self, job, target, upper, precision):
        return product_side(job.model, job.tc, target, upper, precision.rtol or 1e-6)

    def posterior_bounds(self, model, tc, p, eps, upper, resolution):
        fbound, wits = _product_bound(model, tc, eps, upper)
        return ProductWitness(model.terms, wits, [1.0] * len(wits)).posterior(eps), fbound


# ------------------------------------------------------------------------------------------
# Continuous attributes: both sides together, with the comparison sets' floor
# ------------------------------------------------------------------------------------------
class _Continuous:
    """Continuous attributes: both sides together (:meth:`sides`, given the product bound's
    brackets where the parts are one-coordinate and :attr:`product_bound` is set).  The
    comparison sets' epsilon (Theorems 1, 2) is a floor for the sound ends.  Without a
    wall-clock cap it is computed after the brackets, for the side that binds (the one whose
    sound end is lowest) until the binding side has its floor -- the only place where it can
    raise the epsilon (the lower side's floor is a slow quadrature); under a cap, first, for
    both sides, unless the cap has run out (the sides are then cut short)."""

    method = ""
    product_bound = True  # the product bound's brackets first (sound for every norm)

    def prepare(self, model: GoalModel, tv, tc) -> tuple[float, Any]:
        return goal_p(model, tv), None

    def sides(self, job: Job, precision: Precision, fb: dict) -> dict[str, Bracket]:
        raise NotImplementedError

    def tighten(self, side: Bracket, fb: Bracket) -> None:
        """Combine a side's bracket with the product bound's (``fb``), in place."""

    def brackets(self, job: Job, precision: Precision) -> dict[str, Bracket]:
        model, live = job.model, job.live
        cut = False
        floors: dict = {}
        if capped():
            try:
                check_time()
                up_f, dn_f = sound_construction(model, job.tv, job.delta, job.sides)
                floors = {"upper": up_f, "lower": dn_f}
            except BudgetExhausted:
                cut = True
        fb: dict = {}
        grids: dict = {}
        try:
            if self.product_bound and all(p_.kind != "ball" for p_ in model.parts):
                for name, (target, upper) in live.items():
                    fb[name] = product_bracket(model, job.tc, target, upper)
            grids = self.sides(job, precision, fb)
        except BudgetExhausted:  # (the cap ran out in the product bound: the floor is kept)
            cut = True
        out: dict = {}
        for name in live:
            side = grids.get(name) or fb.get(name) or Bracket(0.0, math.inf, cut_short=True)
            f = fb.get(name)
            if f is not None and f is not side:
                self.tighten(side, f)
            side.cut_short = side.cut_short or cut
            out[name] = side

        def apply(name):
            side, target = out[name], live[name][0]
            if floors.get(name, 0.0) > side.lo:  # never below the comparison-set construction
                side.lo, side.bound = min(floors[name], side.hi), target

        for name in live:
            apply(name)
        if not capped():
            while True:
                binding = min(live, key=lambda n: (out[n].lo, n != "upper"))
                if binding in floors:
                    break
                up_f, dn_f = sound_construction(model, job.tv, job.delta,
                                                "upper" if binding == "upper" else job.sides)
                floors["upper"] = up_f
                if binding == "lower":
                    floors["lower"] = dn_f
                for name in live:
                    apply(name)
        return out

    def posterior_bounds(self, model, tc, p, eps, upper, resolution):
        """A node grid whose cells are halved ``resolution - 1`` times, with the shifted
        pyramid (``norm=inf``), the cone about a centre (an :math:`\\ell_2` ball of two
        coordinates) and the product bound (one-coordinate parts)."""
        parts1d = all(p_.kind != "ball" for p_ in model.parts)
        if parts1d:
            fbound, _ = _product_bound(model, tc, eps, upper)
        axes = base = initial_axes(model, tc)
        for _ in range(resolution - 1):
            axes = halve_axes(axes)
        grid = Grid(model, tc, axes, base=base)
        bound, wit = grid.solve(eps, upper)
        w = wit.posterior(eps)
        if math.isinf(model.norm) and parts1d:
            pw = best_pyramid(model, tc, eps, upper).posterior(eps)
            w = max(w, pw) if upper else min(w, pw)
        elif ball_applies(model):
            bw = best_ball(model, tc, eps, upper).posterior(eps)
            w = max(w, bw) if upper else min(w, bw)
        if parts1d:
            bound = min(bound, fbound) if upper else max(bound, fbound)
        return w, bound


@register("lp-cells")
class CellRelaxation(_Continuous):
    """Two attributes under ``norm=inf`` (log-concave numeric priors, or one categorical
    attribute): the cell relaxation and ridge witnesses
    (:mod:`garesearch.optimal._goal_cells`; default ``rtol`` 0.01).  Three numeric attributes
    with log-concave priors (:func:`~garesearch.optimal._goal_cells3.cells3_apply`): the
    product bound, the best shifted pyramid and at most three LPs of the three-dimensional
    cell relaxation (:mod:`garesearch.optimal._goal_cells3`)."""

    product_bound = False

    def sides(self, job, precision, fb):
        if job.model.ncoord == 3:
            return cell3_sides(job.model, job.tc, job.live, precision.rtol or 0.01, precision.at)
        return cell_sides(job.model, job.tc, job.live, precision.rtol or 0.01, precision.at)

    def posterior_bounds(self, model, tc, p, eps, upper, resolution):
        """The relaxation on about :math:`800 \\cdot 2^{resolution + 1}` cells (at most
        12,800); the better of the best shifted pyramid and the ridges from its profile.  Three
        attributes: the coarsest grid of :func:`~garesearch.optimal._goal_cells3.cell_grid3`
        (whatever ``resolution``) and the best shifted pyramid."""
        if model.ncoord == 3:
            return cell3_posterior_bounds(model, tc, eps, upper)
        grid = cell_grid(model, tc, min(CELL_SIZES[0] * 2 ** (resolution + 1), 12_800))
        bound, loga = grid.solve(eps, upper)
        start = ridge_boxes(grid, loga, eps, upper)
        w = best_pyramid(model, tc, eps, upper).posterior(eps)
        if start is not None:
            rw = best_ridges(model, tc, eps, start, upper).posterior(eps)
            w = max(w, rw) if upper else min(w, rw)
        return w, bound


@register("lp-grid")
class NodeGrids(_Continuous):
    r"""Other continuous goals: node grids refined in turns (:mod:`garesearch.optimal._goal_grid`;
    default ``rtol`` 0.01), each side's bracket narrowed further by the product bound's; an
    :math:`\ell_p` ball of two coordinates with log-concave priors then raises its sound ends
    by the cell relaxation (:func:`~garesearch.optimal._goal_cells.ball_sound_ends`)."""

    def sides(self, job, precision, fb):
        start = next(iter(fb.values())).lo if fb else precision.at
        out = grid_sides(job.model, job.tc, job.live, precision.rtol or 0.01, start, precision.max_nodes,
                         first="upper")
        if ball_cells_apply(job.model):  # (an l_p ball: the cell relaxation raises the sound ends)
            out = ball_sound_ends(job.model, job.tc, job.live, out, precision.rtol or 0.01)
        return out

    def tighten(self, side, fb):
        if fb.lo > side.lo:
            side.lo, side.bound = fb.lo, fb.bound
        if fb.hi < side.hi:
            side.hi, side.witness, side.posterior = fb.hi, fb.witness, fb.posterior


@register("product-bound")
class ProductBound(_Continuous):
    r"""Three or more continuous coordinates (or a starting grid above ``max_nodes``): the
    product bound's sound end (:math:`P(U_1, \dots, U_n)`, every part given the whole
    :math:`\epsilon`: sound, loose) and the witness that crosses first of the split-rate
    product witness and, under ``norm=inf``, the best shifted pyramid
    :math:`e^{-\epsilon d_\infty(x, C)}` (inverted for the lower side;
    :func:`~garesearch.optimal._goal_pyramid.pyramid_crossing`, from the product bound's sound
    end, default ``rtol`` 0.01; not for a side whose sound end lies beyond another side's
    witness end: it cannot bind).  An AND of three numeric attributes with log-concave priors
    goes to ``"lp-cells"`` instead where its bands share a cubic cell side
    (:func:`~garesearch.optimal._goal_cells3.cells3_apply`); on the one of
    :func:`garesearch.app.bench.goals_everywhere` the product bound's bracket with the pyramid
    is [1.098, 1.982], the product witness alone gives 3.311."""

    def sides(self, job, precision, fb):
        if not math.isinf(job.model.norm):
            return fb
        out = dict(fb)
        for name in sorted(fb, key=lambda n: (fb[n].lo, n != "upper")):
            b = fb[name]
            if b.lo >= min(x.hi for x in out.values()):
                continue  # (this side does not bind: another is unsafe below its sound end)
            target, upper = job.live[name]
            root, wit = pyramid_crossing(job.model, job.tc, target, upper, b.lo, precision.rtol or 0.01)
            if root < b.hi:
                out[name] = replace(b, hi=root, witness=wit, posterior=wit.posterior(root))
        return out


def sound_construction(model: GoalModel, tv, delta, sides) -> tuple[float, float]:
    r"""The epsilon of each side by the comparison sets of Theorems 1 and 2 at the true
    record ``tv`` (the per-record constructions of
    :func:`~garesearch.constructions.comparison_sets.comparison_set_epsilon`, without its refusal when a
    side reaches 0): sound lower ends, 0 where they have none.

    No floor (0) where no comparison-set construction applies: goals with an :math:`\ell_p`
    ball (its comparison sets are not set up here); an OR whose AND-sets share an attribute
    over an unbounded space (neither the blocks nor inclusion-exclusion apply); and the lower
    side of an OR over unbounded attributes with more than :data:`OR_LOWER_FLOOR_MAX`
    continuous ones (the pointwise bound's quadrature grid is limited to three).  Every other
    error propagates."""
    from ..constructions.comparison_sets import _and_one_t, _or_one_t

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
        ask = "upper" if unbounded and continuous > OR_LOWER_FLOOR_MAX else sides
        res = _or_one_t(terms, atts, tv, delta, model.norm, None, ask, "sound", "best")

    def clip(e):
        return float(e) if e > 0 else 0.0

    return clip(res["epsilon_upper"]), (clip(res["epsilon_lower"]) if ask == "both" else 0.0)
