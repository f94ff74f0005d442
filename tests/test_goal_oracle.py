r"""Independent oracles for the optimal epsilon of continuous goals (garesearch.optimal.goals;
beyond the paper, Sec. 4.2, 4.3).

Routes written without the package (only the calls under test import garesearch):

1. **Grid LP** (tests/goal_oracle.py): the Charnes-Cooper LP on equal cells aligned with the
   edges of X', cell masses from the priors' cdf, the mass beyond the box through translates of
   the edge cells.  By the translation lemma (log-concave priors) it is a *relaxation*: at every
   cell side its worst posterior is at least U (at most V) and its epsilon at most the optimum.
   So every grid gives a rigorous check (its epsilon at or below the package's ``epsilon_hi``,
   the package's witness posterior at or below the grid's U), and Richardson extrapolation over the
   sides h, h/2, h/4 estimates the optimum, with an error estimate (the spread of the limits
   for orders 1 to 4 around the observed order's) that is the tolerance of the estimate checks.
   A second rigorous end comes from **shifted pyramids** :math:`e^{\mp\epsilon d_\infty(x, C)}`
   optimised here (Nelder-Mead over the box ``C``, posterior by the layer-cake formula): a
   mechanism, so U is at least its posterior and the optimum at most its crossing.
2. **Witnesses by quadrature**: the mechanism the package reports (pyramid, inverted pyramid,
   ridges, grid profile, product of kernels) integrated against the prior (``quad_vec`` over
   one axis with the likelihood's kinks as break points, Gauss-Legendre panels over the other;
   it agrees with the layer cake to 1e-13): beyond ``p +- delta`` at ``epsilon_hi``, within at
   ``epsilon_lo``.
3. **Planted errors**: the cell relaxation's translation factor ``e^{eps |v|}`` 1 % too small,
   the diagonal neighbour pairs dropped from the package's cell relaxation, and the diagonal
   pairs dropped from the oracle: each makes the check of route 1 fail.

Measured, delta = 0.1 (the package at its default precision; the oracle's rigorous interval:
the relaxation's epsilon on its finest grid and the pyramid's crossing, "-" where the pyramid
is far from the worst case; the oracle's estimate):

=====================  ====================  ====================  ======================
goal                   package [lo, hi]      oracle [lo, hi]       estimate
=====================  ====================  ====================  ======================
two normals, AND       [0.48076, 0.48536]    [0.48205, 0.48496]    0.4841
(a) age AND salary     [0.02881, 0.03042]    [0.02831, 0.03002]    0.0310 (order 1.0)
(b) normal AND cat.    [0.78653, 0.79048]    [0.78858, 0.79029]    0.7901
(c) normal OR cat.     [0.49369, 0.49722]    [0.49396, 0.59340]    0.4950
(d) uniform OR normal  [0.21670, 0.21826]    [0.21723, -]          0.2184
(e) l_2 ball           [0.44311, 0.47522]    [0.45433, -]          0.4566 (to 0.4691)
(f) gamma AND normal   [0.60012, 0.60414]    [0.60076, 0.60364]    0.6039
=====================  ====================  ====================  ======================

In every case the package's ``lo`` is at most the oracle's upper end and its ``hi`` at least
the oracle's lower end: no soundness failure.  All but (e) take the cell relaxation (a uniform
or gamma prior and a categorical attribute since they are log-concave or exact; before, on the
node grids, (a) to (d) and (f) were [0.02190, 0.03003], [0.76504, 0.79035], [0.47976,
0.59377], [0.19994, 0.26828] and [0.59660, 0.60378]); the sound end of (d) lies 0.2 % below
the oracle's certified lower end, that of (a) above it (the oracle's finest grid is coarser),
that of (e) 2.5 % below (the cell relaxation with a stencil of reach 2, after the node grids'
0.31765); the high end of (e) is a cone about the true point (garesearch.optimal._goal_ball;
before it, the node grids' profile gave 0.70769).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
from goal_oracle import (
    CatAxis,
    Grid,
    NumAxis,
    OracleGoal,
    all_pairs_violations,
    best_pyramid,
    oracle_crossings,
    oracle_posteriors,
    pairs,
    pyramid_crossing,
    richardson,
    solve,
    stencil,
)
from scipy import stats
from scipy.integrate import quad, quad_vec
from scipy.optimize import minimize_scalar
from sweeps import sample

#: one worker runs this module, so that its tests share the cached package results and oracle
#: crossings (about 10 s of the oracle's LPs each worker would repeat)
pytestmark = pytest.mark.xdist_group("goal_oracle")

DELTA = 0.1
CAT = {"u": 0.5, "v": 0.3, "w": 0.2}


# ------------------------------------------------------------------------------------------
# The goals: the package's goal and the oracle's description of the same problem
# ------------------------------------------------------------------------------------------
def _box(dist, k):
    return (float(dist.mean() - k * dist.std()), float(dist.mean() + k * dist.std()))


@dataclass(frozen=True)
class Case:
    """A goal for the package (``build()``, true record ``t``, ``rtol`` of its call) and for
    the oracle (``oracle``, the cell sides of its three grids, a first guess of epsilon, and
    ``eps``: where the worst posteriors are compared)."""

    name: str
    build: object
    t: object
    oracle: OracleGoal
    steps: tuple
    rtol: float | None
    guess: float
    eps: float


def _cases() -> dict:
    from garesearch.events import Attribute, Coordinates
    from garesearch.priors import Categorical, Continuous, Normal, Uniform

    n01, n2 = stats.norm(0, 1), stats.norm(0.5, 1.3)
    age, salary = stats.norm(45, 12), stats.norm(2000, 235.7)
    uni, n52 = stats.uniform(0, 10), stats.norm(5, 2)
    gam = stats.gamma(3.0)
    out = [
        # two normal attributes under l_inf: the cell relaxation (method "lp-cells")
        Case("and-cells",
             lambda: Attribute(Normal(0, 1), r=0.75, name="a") & Attribute(Normal(0.5, 1.3), r=0.75, name="b"),
             [0.3, 0.2],
             OracleGoal((NumAxis(n01, 0.3, 0.75, _box(n01, 3)), NumAxis(n2, 0.2, 0.75, _box(n2, 3))), "and"),
             ((0.75, 0.75), (0.375, 0.375), (0.1875, 0.1875)), None, 0.48, 0.4845),
        # (a) the salary of Sec. 6.2 and an age, AND, l_inf: cells 50 times wider along salary
        Case("a-age-and-salary",
             lambda: Attribute(Normal(45, 12), r=2, name="age") & Attribute(Normal(2000, 235.7), r=100, name="salary"),
             [50.0, 2150.0],
             OracleGoal((NumAxis(age, 50.0, 2.0, _box(age, 3.5)), NumAxis(salary, 2150.0, 100.0, (1850.0, 2450.0))),
                        "and"),
             ((4, 80), (2, 40), (1, 20)), 0.2, 0.026, 0.026),
        # (b), (c) a normal and a categorical attribute
        Case("b-normal-and-categorical",
             lambda: Attribute(Normal(0, 1), r=0.5, name="a") & Attribute(Categorical(CAT), r=0, name="c"),
             [0.4, "v"], OracleGoal((NumAxis(n01, 0.4, 0.5, _box(n01, 4)), CatAxis(CAT, "v")), "and"),
             ((0.5, 0), (0.25, 0), (0.125, 0)), 0.2, 0.75, 0.75),
        Case("c-normal-or-categorical",
             lambda: Attribute(Normal(0, 1), r=0.5, name="a") | Attribute(Categorical(CAT), r=0, name="c"),
             [0.4, "w"], OracleGoal((NumAxis(n01, 0.4, 0.5, _box(n01, 4)), CatAxis(CAT, "w")), "or"),
             ((0.5, 0), (0.25, 0), (0.125, 0)), 0.4, 0.5, 0.5),
        # (d) a uniform and a normal attribute, OR
        Case("d-uniform-or-normal",
             lambda: Attribute(Uniform(0, 10), r=1, name="u") | Attribute(Normal(5, 2), r=1, name="n"),
             [3.0, 6.0], OracleGoal((NumAxis(uni, 3.0, 1.0, (0.0, 10.0)), NumAxis(n52, 6.0, 1.0, _box(n52, 3.5))), "or"),
             ((1, 1), (0.5, 0.5), (0.25, 0.25)), 0.2, 0.22, 0.22),
        # (e) an l_2 ball of two normal coordinates (distance l_2; the oracle's stencil: the
        # primitive offsets up to 2 cells, a polygonal norm within rho = 1.0275 of l_2)
        Case("e-l2-ball",
             lambda: Coordinates([Normal(0, 1), Normal(0.5, 1.3)], r=0.8, norm=2, name="ball"),
             {"ball": (0.3, 0.2)},
             OracleGoal((NumAxis(n01, 0.3, 0.8, _box(n01, 2.5)), NumAxis(n2, 0.2, 0.8, _box(n2, 2.5))), "ball",
                        norm=2.0, r_ball=0.8, pball=2.0, reach=2),
             ((0.4, 0.4), (0.2, 0.2), (0.1, 0.1)), 0.2, 0.45, 0.5),
        # (f) a gamma (shape 3, log-concave) and a normal attribute, AND
        Case("f-gamma-and-normal",
             lambda: Attribute(Continuous(stats.gamma(3.0)), r=0.6, name="g") & Attribute(Normal(0, 1), r=0.6, name="n"),
             [2.5, 0.2],
             OracleGoal((NumAxis(gam, 2.5, 0.6, (0.0, float(gam.isf(1e-5)))), NumAxis(n01, 0.2, 0.6, _box(n01, 3))),
                        "and"),
             ((0.6, 0.6), (0.3, 0.3), (0.15, 0.15)), 0.2, 0.68, 0.68),
    ]
    return {c.name: c for c in out}


CASES = _cases()


@functools.cache
def package_result(name: str):
    """The package's certified bracket of the optimal epsilon (cached per worker)."""
    from garesearch.events import epsilon_for_goal

    case = CASES[name]
    return epsilon_for_goal(case.build(), delta=DELTA, t=case.t, rtol=case.rtol)


@functools.cache
def oracle_result(name: str) -> dict:
    case = CASES[name]
    return oracle_crossings(case.oracle, case.steps, DELTA, guess=case.guess)


# ------------------------------------------------------------------------------------------
# The checks of route 1
# ------------------------------------------------------------------------------------------
def check_posterior(low: float, high: float, values, upper: bool, witness: float | None = None,
                    slack: float | None = None):
    """The package's certified bounds ``(low, high)`` on the worst posterior (U for ``upper``,
    V otherwise) against the oracle: its relaxation's values on grids h, h/2, h/4 and the
    posterior ``witness`` of a mechanism found here (a shifted pyramid).

    Rigorous: U lies between the witness and every relaxation value, so the package's witness
    end (``low`` for U) cannot exceed a relaxation value and its certified end (``high``) cannot
    fall below the witness (mirror image for V).  Estimate: the extrapolated value lies in
    ``[low, high]`` widened by its error estimate.  Tightness (``slack`` given): the certified
    end lies within ``slack`` of the estimate."""
    ext = richardson(values)
    if upper:
        assert low <= min(values) + 1e-9, ("witness above a relaxation", low, values)
        if witness is not None:
            assert high >= witness - 1e-9, ("certified bound below a mechanism", high, witness)
    else:
        assert high >= max(values) - 1e-9, ("witness below a relaxation", high, values)
        if witness is not None:
            assert low <= witness + 1e-9, ("certified bound above a mechanism", low, witness)
    tol = ext.error + 1e-9  # (1e-9: HiGHS's resolution, where the posteriors are about 0)
    assert low - tol <= ext.limit <= high + tol, ("estimate outside", low, high, ext)
    if slack is not None:
        if upper:
            assert high <= ext.limit + ext.error + slack, ("not tight", high, ext)
        else:
            assert low >= ext.limit - ext.error - slack, ("not tight", low, ext)
    return ext


def check_crossing(res, oracle: dict, rho: float = 1.0, witness_eps: float | None = None):
    """The package's bracket against the oracle's crossings (per side: the relaxation's
    epsilons on grids h, h/2, h/4) and ``witness_eps``, where a mechanism found here crosses.

    Rigorous: every grid's crossing lies at or below the side's ``hi`` (a mechanism crosses
    there, and a relaxation's crossing is at most the optimum), and ``epsilon_lo`` at or below
    ``witness_eps``.  Estimate: the extrapolated epsilon ``e`` (for a polygonal stencil the
    optimum lies in ``[e, rho e]``) is within the side's bracket widened by its error
    estimate, the observed order lies in [0.8, 5]; the epsilon's bracket contains the smaller
    of the sides' estimates, and excludes a value 1 % beyond it when it is narrower than 1 %."""
    side_of = {"upper": res.upper, "lower": res.lower}
    best = None
    for side, rec in oracle.items():
        lo, hi = side_of[side]
        ext = richardson(rec["eps"])
        for e in rec["eps"]:
            assert e <= hi * (1 + 1e-7), ("relaxation crosses above hi", side, e, hi)
        assert lo - ext.error <= rho * ext.limit and ext.limit <= hi + ext.error, (side, lo, hi, ext)
        assert 0.8 <= ext.order <= 5.0, ("observed order", side, ext)
        if best is None or ext.limit < best.limit:
            best = ext
    if witness_eps is not None:
        assert res.epsilon_lo <= witness_eps * (1 + 1e-9), ("epsilon_lo above a mechanism", res.epsilon_lo,
                                                            witness_eps)
    assert res.epsilon_lo - best.error <= rho * best.limit, (res.epsilon_lo, best)
    assert best.limit <= res.epsilon_hi + best.error, (res.epsilon_hi, best)
    if res.rel_width < 0.01:
        assert res.epsilon_lo > 0.99 * best.limit and res.epsilon_hi < 1.01 * rho * best.limit
    return best


# ------------------------------------------------------------------------------------------
# The oracle itself: exact stencils, and a known optimum
# ------------------------------------------------------------------------------------------
STENCIL_GOALS = {
    "l_inf, equal sides": (OracleGoal((NumAxis(stats.norm(0, 1), 1.0, 0.6, (-2.5, 2.5)),
                                       NumAxis(stats.norm(0.5, 1.3), -1.0, 0.4, (-2.5, 3.5))), "and"), (0.4, 0.4)),
    "l_inf, sides 1:3": (OracleGoal((NumAxis(stats.norm(0, 1), 1.0, 0.6, (-2.5, 2.5)),
                                     NumAxis(stats.norm(0.5, 1.3), -1.0, 1.2, (-3.0, 4.0))), "or"), (0.2, 0.6)),
    "l_1": (OracleGoal((NumAxis(stats.norm(0, 1), 1.0, 0.6, (-2.5, 2.5)),
                        NumAxis(stats.norm(0.5, 1.3), -1.0, 0.4, (-2.5, 3.5))), "and", norm=1.0), (0.4, 0.2)),
    "l_inf, categorical": (OracleGoal((NumAxis(stats.norm(0, 1), 0.4, 0.45, (-2.5, 2.5)), CatAxis(CAT, "v")),
                                      "or"), (0.3, 0)),
    "l_1, categorical": (OracleGoal((NumAxis(stats.norm(0, 1), 0.4, 0.45, (-2.5, 2.5)), CatAxis(CAT, "v")),
                                    "and", norm=1.0), (0.3, 0)),
}


@pytest.mark.parametrize("name", list(STENCIL_GOALS))
def test_oracle_stencils_imply_every_pair(name):
    """The pairs the oracle constrains imply every other pair (module docstring of
    goal_oracle): the LP's solution, at two epsilons and both sides, violates none of the
    N^2 pairwise constraints (relative 1e-6).  Negative control: with the axis neighbours only,
    the l_inf solutions violate thousands (the l_1 ones none: there they are enough)."""
    goal, steps = STENCIL_GOALS[name]
    grid = Grid(goal, steps)
    offsets, rho = stencil(grid)
    assert rho == 1.0
    pa, pb = pairs(grid, offsets)
    for eps, upper in itertools.product((0.7, 2.0), (True, False)):
        _, w = solve(grid, pa, pb, eps, upper)
        assert all_pairs_violations(grid, w, eps)[0].size == 0
    axis = [o for o in offsets if 0 in o]
    _, w = solve(grid, *pairs(grid, axis), 0.7, True)
    found = all_pairs_violations(grid, w, 0.7)[0].size
    assert (found == 0) if goal.norm == 1 else (found > 100)


def kernel_posterior(dist, t, r, eps, c, sign=-1.0):
    """Posterior of [t - r, t + r] under the kernel e^{sign eps |x - c|}, by quadrature."""
    def part(a, b):
        pts = [x for x in (c, t - r, t + r) if a < x < b]
        return quad(lambda x: math.exp(sign * eps * abs(x - c)) * dist.pdf(x), a, b, points=pts or None,
                    epsabs=0, epsrel=1e-12, limit=200)[0]

    lo, hi = dist.support()
    inside = part(t - r, t + r)
    far = 40 * dist.std()
    return inside / (inside + part(max(lo, t - r - far), t - r) + part(t + r, min(hi, t + r + far)))


def best_kernel(dist, t, r, eps, upper):
    """U (``upper``) or V of one numeric attribute: the best kernel centre in the band, by a
    scan and Brent's method between the best point's neighbours."""
    sign = -1.0 if upper else 1.0

    def f(c):
        v = kernel_posterior(dist, t, r, eps, c, sign)
        return -v if upper else v

    cs = np.linspace(t - r, t + r, 11)
    vals = [f(c) for c in cs]
    k = int(np.argmin(vals))
    fine = minimize_scalar(f, bounds=(cs[max(k - 1, 0)], cs[min(k + 1, 10)]), method="bounded",
                           options={"xatol": 1e-10})
    best = min(vals[k], fine.fun)
    return -best if upper else best


class _StandardNormal:
    """``scipy.stats.norm(0, 1)`` as :func:`kernel_posterior` uses it, the density in closed
    form (scipy's per point is slow under ``quad``)."""

    def pdf(self, x):
        return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)

    def support(self):
        return -math.inf, math.inf

    def std(self):
        return 1.0


@pytest.mark.parametrize("event", ["and", "or"])
def test_oracle_converges_to_the_l1_product(event):
    """Where the optimum is known the oracle must find it: under l_1, AND / OR of a normal and
    a categorical attribute have U = P(U_1, U_2), V = P(V_1, V_2) (the product of the
    one-attribute kernels is optimal, module docstring of garesearch.optimal.goals), with U_1
    from the Laplace kernel's best centre (quadrature here) and U_2 = p e^eps / (p e^eps + 1 - p)
    under the discrete metric.  Every grid's value is on the relaxation's side, and the
    extrapolated value agrees within its error estimate (measured: off by 1.5e-6 to 7.3e-5,
    error estimates 1.9e-5 to 1.3e-4; the first refinements show order 3.9 where the asymptotic
    one is about 1.5, which the error estimate covers by spanning orders 1 to 4)."""
    dist = stats.norm(0, 1)
    goal = OracleGoal((NumAxis(dist, 0.4, 0.5, _box(dist, 4)), CatAxis(CAT, "v")), event, norm=1.0)
    eps, pc = 0.8, CAT["v"]
    for upper in (True, False):
        q1 = best_kernel(_StandardNormal(), 0.4, 0.5, eps, upper)
        k = math.exp(eps if upper else -eps)
        q2 = pc * k / (pc * k + 1 - pc)
        exact = q1 * q2 if event == "and" else 1 - (1 - q1) * (1 - q2)
        vals = oracle_posteriors(goal, [(0.25, 0), (0.125, 0), (0.0625, 0)], eps, upper)
        for v in vals:
            assert (v >= exact - 1e-9) if upper else (v <= exact + 1e-9)
        ext = richardson(vals)
        assert abs(ext.limit - exact) <= ext.error, (upper, exact, ext)


# ------------------------------------------------------------------------------------------
# Route 1 at a fixed epsilon: the worst posteriors U and V
# ------------------------------------------------------------------------------------------
@functools.cache
def oracle_values(name: str, upper: bool, offsets: tuple | None = None) -> tuple:
    """The relaxation's worst posterior at ``CASES[name].eps`` on the case's three grids
    (``offsets``: constrain only these pairs, for the planted error)."""
    case = CASES[name]
    out = []
    for steps in case.steps:
        grid = Grid(case.oracle, tuple(steps))
        use = stencil(grid)[0] if offsets is None else list(offsets)
        out.append(solve(grid, *pairs(grid, use), case.eps, upper)[0])
    return tuple(out)


@functools.cache
def oracle_pyramid(name: str, upper: bool) -> float:
    """The posterior of the best shifted pyramid found here at ``CASES[name].eps``."""
    case = CASES[name]
    return best_pyramid(case.oracle, case.eps, upper, maxfev=100)[1]


def package_posteriors(name: str, upper: bool) -> tuple[float, float]:
    """The package's certified bounds on U (``upper``) or V at ``CASES[name].eps``."""
    from garesearch.optimal.goals import worst_posterior

    case = CASES[name]
    return worst_posterior(case.build(), epsilon=case.eps, t=case.t, sides="upper" if upper else "lower")


honest_posteriors = functools.cache(package_posteriors)

#: tightness of the package's certified end at ``worst_posterior``'s default resolution, where
#: it is tight (the cell relaxation: measured within 4.5e-4 of the oracle's estimate; with a
#: categorical attribute within its error estimate)
SLACK = {"and-cells": 1e-3, "b-normal-and-categorical": 1e-3, "c-normal-or-categorical": 1e-3}


def check_case_posteriors(name: str, bounds: dict, offsets: tuple | None = None) -> None:
    for upper in bounds:
        witness = oracle_pyramid(name, upper) if CASES[name].oracle.event != "ball" else None
        check_posterior(*bounds[upper], oracle_values(name, upper, offsets), upper, witness, SLACK.get(name))


@pytest.mark.parametrize("name", [
    # (make test: the first and the last; the categorical AND's check is the planted errors')
    *sample(["and-cells", "b-normal-and-categorical", "c-normal-or-categorical"], 2),
    pytest.param("d-uniform-or-normal", marks=pytest.mark.slow),
    pytest.param("a-age-and-salary", marks=pytest.mark.slow),
    pytest.param("e-l2-ball", marks=pytest.mark.slow),
    pytest.param("f-gamma-and-normal", marks=pytest.mark.slow),
])
def test_worst_posteriors_against_the_oracle(name):
    """``worst_posterior`` (the package's certified bounds on U and V at one epsilon) against
    the oracle's relaxation on three grids and a shifted pyramid found here: the package's
    bounds lie on the right sides of both, and the oracle's extrapolated value lies within them
    (measured at the cell relaxation's goal, eps = 0.4845: U in [0.324184, 0.324806] by the
    oracle alone, estimate 0.32441 +- 0.0015, package [0.324167, 0.324614]; V in
    [0.136095, 0.136453], estimate 0.13634 +- 0.0008, package [0.136132, 0.136489])."""
    check_case_posteriors(name, {upper: honest_posteriors(name, upper) for upper in (True, False)})


def _plant(kind: str):
    """A wrapper of ``CellGrid._offsets`` that plants an error into the cell relaxation:
    ``"factor"``, the translation lemma's factor e^{eps |v|} taken 1 % too small (the pairs'
    lengths times 0.99, and those of the pairs of atoms through the window minima);
    ``"diagonal"``, the neighbour pairs that differ in both coordinates left out (with a
    categorical coordinate: every pair of cells in different atoms)."""
    from garesearch.optimal._goal_cells import CellGrid

    original = CellGrid._offsets

    def planted(self):
        original(self)
        if kind == "factor":
            self.plen = self.plen * 0.99
            self.wlen = self.wlen * 0.99
        else:
            a = np.array(np.unravel_index(self.pa, self.shape))
            b = np.array(np.unravel_index(self.pb, self.shape))
            keep = np.count_nonzero(a != b, axis=0) == 1
            self.pa, self.pb, self.plen = self.pa[keep], self.pb[keep], self.plen[keep]
            self.window = None

    return planted


@pytest.mark.parametrize("kind, name", [
    ("factor", "and-cells"), ("diagonal", "and-cells"),
    ("factor", "b-normal-and-categorical"), ("diagonal", "b-normal-and-categorical"),
    pytest.param("factor", "f-gamma-and-normal", marks=pytest.mark.slow),
])
def test_planted_errors_in_the_cell_relaxation_fail_the_check(monkeypatch, kind, name):
    """The check of ``test_worst_posteriors_against_the_oracle`` fails with an error planted
    into the package: the translation factor 1 % too small makes the certified bounds unsound
    (measured on the AND of normals: U's bound 0.32358, below the pyramid's 0.32418; V's
    0.13692, above the inverted pyramid's 0.13645); without the diagonal pairs (the pairs of
    atoms, for a categorical coordinate) the bounds stay sound but are far from tight (U's
    bound 0.3618 against the estimate 0.3244).  Also on the new paths: a categorical
    coordinate (window minima) and a gamma prior (cells cut to its support)."""
    from garesearch.optimal._goal_cells import CellGrid

    monkeypatch.setattr(CellGrid, "_offsets", _plant(kind))
    upper = kind == "diagonal"  # (each side fails the check; one is enough, and cheaper)
    bounds = {upper: package_posteriors(name, upper)}
    with pytest.raises(AssertionError, match="certified bound" if kind == "factor" else "not tight"):
        check_case_posteriors(name, bounds)


def test_planted_missing_pair_in_the_oracle_fails_the_check():
    """The oracle without its diagonal pairs (under l_inf the axis neighbours chain to the
    l_1 distance, a looser relaxation with the wrong limit) contradicts the package's bounds
    (measured: its estimate of U is 0.3596 +- 0.0023, above the package's certified 0.3246)."""
    bounds = {True: honest_posteriors("and-cells", True)}
    with pytest.raises(AssertionError, match="estimate outside"):
        check_case_posteriors("and-cells", bounds, offsets=((0, 1), (1, 0)))


# ------------------------------------------------------------------------------------------
# Route 2: the package's witness, integrated here
# ------------------------------------------------------------------------------------------
def witness_log_profile(res, goal: OracleGoal):
    """``log L / eps`` of the package's witness (``res.witness``, boxes with heights:
    :math:`\\max_k (s_k - d_\\infty(x, C_k))`, inverted :math:`\\min_k (d_\\infty(x, C_k) - s_k)`)
    as a function of ``(x0, x1)`` (``x1`` an atom index for a categorical axis), and the break
    points of each axis."""
    w = res.witness
    kind = w["kind"]
    if kind in ("ball cone", "inverted ball cone"):  # max(0, |x - c|_2 - rho), either sign
        (c0, c1), rho = (float(v) for v in w["centre"]), float(w["rho"])
        sign = 1.0 if kind.startswith("inverted") else -1.0

        def cone(x0, x1):
            return sign * np.maximum(np.hypot(np.asarray(x0, float) - c0, np.asarray(x1, float) - c1) - rho, 0.0)

        def chord(x0):
            u = abs(x0 - c0)
            return [c1] + ([c1 - math.sqrt(rho**2 - u**2), c1 + math.sqrt(rho**2 - u**2)] if u < rho else [])

        return cone, [c0 - rho, c0, c0 + rho], chord
    lo, hi = np.atleast_2d(w["box_low"]).astype(float), np.atleast_2d(w["box_high"]).astype(float)
    heights = np.asarray(w.get("heights", np.zeros(len(lo))), float)
    inverted = kind.startswith("inverted")
    cat = [isinstance(ax, CatAxis) for ax in goal.axes]

    def profile(x0, x1):
        x = [np.asarray(x0, float)[..., None], np.asarray(x1, float)[..., None]]
        d = [np.where(x[c] != lo[:, c], 1.0, 0.0) if cat[c]
             else np.clip(np.maximum(lo[:, c] - x[c], x[c] - hi[:, c]), 0.0, None) for c in range(2)]
        dist = np.maximum(d[0], d[1])
        return np.min(dist - heights, axis=-1) if inverted else np.max(heights - dist, axis=-1)

    def breaks1(x0):
        if cat[1]:
            return []
        d0 = np.clip(np.maximum(lo[:, 0] - x0, x0 - hi[:, 0]), 0.0, None)
        return sorted({*lo[:, 1], *hi[:, 1], *(lo[:, 1] - d0), *(hi[:, 1] + d0)})

    return profile, sorted({*lo[:, 0], *hi[:, 0]}), breaks1


def _distance(goal: OracleGoal, d0, d1):
    d0, d1 = np.abs(d0), np.abs(d1)
    if math.isinf(goal.norm):
        return np.maximum(d0, d1)
    return (d0**goal.norm + d1**goal.norm) ** (1 / goal.norm)


def _density(dist):
    """``dist.pdf``; for a normal distribution scipy's formula written out (the same values,
    without the frozen distribution's per-call overhead: ``quad_vec`` calls it point by point)."""
    if dist.dist.name != "norm":
        return dist.pdf
    mu, sd = float(dist.mean()), float(dist.std())
    c = math.sqrt(2 * math.pi)

    def pdf(x):
        return np.exp(-((np.asarray(x, float) - mu) / sd) ** 2 / 2.0) / c / sd

    return pdf


def witness_posterior(goal: OracleGoal, profile, eps: float, breaks0, breaks1) -> float:
    """Posterior of X' under the likelihood ``exp(eps * profile)``, by quadrature: over the
    first (numeric) axis ``scipy.integrate.quad_vec`` with the profile's and X''s break points; over
    the second a sum over the atoms, or Gauss-Legendre panels (16 nodes, 40 panels between
    consecutive break points (6 for a node profile), which include the edges of X' along the
    chord)."""
    ax0, ax1 = goal.axes
    sd0 = float(ax0.dist.std())
    lo0, hi0 = ax0.dist.support()
    lo0, hi0 = max(lo0, ax0.t - ax0.r - 12 * sd0), min(hi0, ax0.t + ax0.r + 12 * sd0)
    if isinstance(ax1, NumAxis):
        sd1 = float(ax1.dist.std())
        lo1, hi1 = ax1.dist.support()
        lo1, hi1 = max(lo1, ax1.t - ax1.r - 12 * sd1), min(hi1, ax1.t + ax1.r + 12 * sd1)
    ref = float(profile(np.array(ax0.t), np.array(ax1.t if isinstance(ax1, NumAxis) else
                                                           list(ax1.probs).index(ax1.t))))
    pdf0 = _density(ax0.dist)
    pdf1 = _density(ax1.dist) if isinstance(ax1, NumAxis) else None

    def inner(x0):
        """(integral over X', integral over everything) of L f_1 at x0, times f_0(x0)."""
        f0 = float(pdf0(x0))
        if f0 == 0.0:
            return 0.0, 0.0
        in0 = abs(x0 - ax0.t) <= ax0.r
        if isinstance(ax1, CatAxis):
            atoms = np.arange(len(ax1.probs))
            L = np.exp(eps * (profile(np.full(atoms.size, x0), atoms) - ref)) * np.array(list(ax1.probs.values()))
            in1 = atoms == list(ax1.probs).index(ax1.t)
            ins = (in0 & in1) if goal.event == "and" else (in0 | in1)
            return f0 * float(L[ins].sum()), f0 * float(L.sum())
        if goal.event == "ball":
            u = abs(x0 - ax0.t)
            half = (goal.r_ball**goal.pball - u**goal.pball) ** (1 / goal.pball) if u < goal.r_ball else -1.0
            edges = [ax1.t - half, ax1.t + half] if half > 0 else []
        else:
            edges = [ax1.t - ax1.r, ax1.t + ax1.r]
        cuts = sorted({lo1, hi1, *(b for b in [*edges, *breaks1(x0)] if lo1 < b < hi1)})
        x1, w1 = _gl(cuts, 40 if len(cuts) < 12 else 6)
        L = np.exp(eps * (profile(np.full(x1.size, x0), x1) - ref)) * pdf1(x1) * w1
        if goal.event == "ball":
            ins = np.abs(x1 - ax1.t) <= half
        else:
            in1 = np.abs(x1 - ax1.t) <= ax1.r
            ins = (in0 & in1) if goal.event == "and" else (in0 | in1)
        return f0 * float(L[ins].sum()), f0 * float(L.sum())

    pts = sorted({b for b in [*breaks0, ax0.t - ax0.r, ax0.t + ax0.r] if lo0 < b < hi0})
    (ins, tot), _ = quad_vec(lambda x: np.array(inner(x)), lo0, hi0, epsabs=0.0, epsrel=1e-10,
                             points=pts or None, limit=2000)
    return ins / tot


def node_profile_posterior(goal: OracleGoal, Z, S, eps: float, panels: int = 1, rule=None) -> float:
    r"""Posterior of the ball X' under :math:`L(x) = \max_k e^{\epsilon(s_k - d(x, z_k))}`:
    the plane by tensor Gauss-Legendre panels (``rule``, default 8 nodes; ``panels`` per
    interval between the nodes' coordinates, out to 10 standard deviations), the ball in polar
    coordinates around ``t`` (``16 panels`` panels of radii, ``64 panels`` of angles)."""
    ax0, ax1 = goal.axes
    rule = _GL8 if rule is None else rule
    ref = float(np.max(S))

    def likelihood(x0, x1):
        out = np.empty(x0.size)
        for k in range(0, x0.size, 4000):
            a, b = x0[k:k + 4000, None], x1[k:k + 4000, None]
            out[k:k + 4000] = np.exp(eps * (np.max(S - _distance(goal, a - Z[:, 0], b - Z[:, 1]), axis=1) - ref))
        return out

    def axis_rule(ax, coords):
        sd = float(ax.dist.std())
        lo, hi = ax.t - 10 * sd, ax.t + 10 * sd
        cuts = sorted({lo, hi, *(c for c in coords if lo < c < hi)})
        x, w = _gl(cuts, panels, rule)
        return x, w * ax.dist.pdf(x)

    x0, w0 = axis_rule(ax0, np.unique(Z[:, 0]))
    x1, w1 = axis_rule(ax1, np.unique(Z[:, 1]))
    X0, X1 = np.meshgrid(x0, x1, indexing="ij")
    total = float(np.sum(likelihood(X0.ravel(), X1.ravel()) * np.outer(w0, w1).ravel()))
    rho, wr = _gl([0.0, goal.r_ball], 16 * panels, rule)
    th, wt = _gl([0.0, 2 * math.pi], 64 * panels, rule)
    R, T = np.meshgrid(rho, th, indexing="ij")
    P0, P1 = ax0.t + R * np.cos(T), ax1.t + R * np.sin(T)
    weight = np.outer(wr * rho, wt) * ax0.dist.pdf(P0) * ax1.dist.pdf(P1)
    inside = float(np.sum(likelihood(P0.ravel(), P1.ravel()) * weight.ravel()))
    return inside / total


_GLX, _GLW = np.polynomial.legendre.leggauss(16)
_GL8 = np.polynomial.legendre.leggauss(8)
_GL4 = np.polynomial.legendre.leggauss(4)


def _gl(cuts, per, rule=None):
    gx, gw = rule if rule is not None else (_GLX, _GLW)
    xs, ws = [], []
    for a, b in itertools.pairwise(cuts):
        e = np.linspace(a, b, per + 1)
        half = ((e[1:] - e[:-1]) / 2)[:, None]
        xs.append((((e[:-1] + e[1:]) / 2)[:, None] + half * gx).ravel())
        ws.append((half * gw).ravel())
    return np.concatenate(xs), np.concatenate(ws)


def check_witness(res, goal: OracleGoal) -> tuple[float, float]:
    """The mechanism behind ``epsilon_hi`` (``res.witness``: a shifted pyramid, an inverted
    one, ridges or a grid profile), integrated here: at ``epsilon_hi`` its posterior is beyond
    ``p +- delta`` (and at least the package's certified value ``res.posterior``, less the
    quadrature's error), at ``epsilon_lo`` within (a sound bracket: no mechanism crosses
    there).  Returns the two posteriors."""
    w = res.witness
    upper = not w["kind"].startswith("inverted")
    if w["kind"] == "grid profile":  # (a max of cones for either side: that of epsilon_hi)
        upper = res.upper[1] <= res.lower[1]
        Z = np.asarray(w["nodes"], float)
        S = np.asarray(w["log_likelihood_per_epsilon"], float)

        def posterior(eps):
            # error estimate: the same panels with 4 nodes instead of 8 (measured: 8 nodes and
            # 1 or 2 panels agree to 1e-7)
            fine = node_profile_posterior(goal, Z, S, eps, 1)
            return fine, abs(fine - node_profile_posterior(goal, Z, S, eps, 1, _GL4))
    else:
        profile, b0, b1 = witness_log_profile(res, goal)

        def posterior(eps):  # (agrees with the layer cake of goal_oracle to 1e-13)
            return witness_posterior(goal, profile, eps, b0, b1), 1e-9

    target = res.p + DELTA if upper else res.p - DELTA
    (at_hi, err_hi), (at_lo, err_lo) = posterior(res.epsilon_hi), posterior(res.epsilon_lo)
    assert res.p == pytest.approx(goal.p(), abs=1e-9)
    if upper:
        assert at_hi >= res.posterior - err_hi and at_hi > target - err_hi, (at_hi, err_hi, res.posterior, target)
        assert at_lo <= target + err_lo, (at_lo, err_lo, target)
    else:
        assert at_hi <= res.posterior + err_hi and at_hi < target + err_hi, (at_hi, err_hi, res.posterior, target)
        assert at_lo >= target - err_lo, (at_lo, err_lo, target)
    if w["kind"] in ("ball cone", "inverted ball cone"):  # (its slab enclosures of discs are
        # within about 2e-3 of the masses: tests/test_goal_ball_witness.py)
        assert at_hi == pytest.approx(res.posterior, abs=3e-3)
    elif w["kind"] != "grid profile":  # (a node profile's certified value holds for every
        # Lipschitz extension of the nodes' values, and is looser: measured 0.1041 against 0.0858)
        assert at_hi == pytest.approx(res.posterior, abs=1e-4)
    return at_hi, at_lo


def test_product_witness_of_three_normals_crosses():
    r"""AND of three normal attributes (``method="product-bound"``): the witness is the one
    that crosses first of a product of Laplace kernels with rates summing to 1 (eps-DP under
    l_inf, since the sum of rate times distance is at most the largest distance; its posterior
    is the product of one-attribute posteriors, each by ``scipy.integrate.quad``) and a shifted
    pyramid :math:`e^{-\epsilon d_\infty(x, C)}` (its posterior by ``quad`` over the
    layer-cake formula, :math:`\int_S L\,dF = \int_0^\infty \epsilon e^{-\epsilon s}
    F(S \cap C_s)\,ds`): beyond p + delta at ``epsilon_hi``, within at ``epsilon_lo``.  (The
    third radius is :math:`0.6\sqrt 2`: the bands share no cubic cell side, so the goal is not
    routed to the cell relaxation of three attributes.)"""
    from garesearch.events import Attribute, epsilon_for_goal
    from garesearch.priors import Normal

    t = [0.3, -0.2, 0.5]
    radii = [0.6, 0.6, 0.6 * math.sqrt(2)]
    atts = [Attribute(Normal(0, 1), r=ri, name=f"x{i}") for i, ri in enumerate(radii)]
    res = epsilon_for_goal(atts[0] & atts[1] & atts[2], delta=DELTA, t=t, rtol=0.2)
    assert res.method == "product-bound"
    w = res.witness
    assert w["kind"] in ("product of one-part kernels", "shifted pyramid")
    dist = stats.norm(0, 1)
    p = math.prod(dist.cdf(ti + ri) - dist.cdf(ti - ri) for ti, ri in zip(t, radii, strict=True))
    assert res.p == pytest.approx(p, abs=1e-12)

    def cdf(x):  # (math.erfc: the frozen scipy distribution costs most of the quadrature's time)
        return 0.5 * math.erfc(-x / math.sqrt(2.0))

    def mass(lo, hi):
        return max(0.0, cdf(hi) - cdf(lo)) if hi > lo else 0.0

    def level(s):  # F(C_s) and F(X' cap C_s)
        ends = list(zip(np.asarray(w["box_low"]) - s, np.asarray(w["box_high"]) + s, strict=True))
        return (math.prod(mass(a, b) for a, b in ends),
                math.prod(mass(max(a, ti - ri), min(b, ti + ri)) for (a, b), ti, ri in zip(ends, t, radii, strict=True)))

    def posterior(eps):
        if w["kind"] == "shifted pyramid":
            # (the layer cake's kinks: where a face of C_s passes a face of the ball)
            kinks = sorted({float(k) for lo_, hi_, ti, ri in zip(w["box_low"], w["box_high"], t, radii, strict=True)
                            for k in (lo_ - ti - ri, lo_ - ti + ri, ti - ri - hi_, ti + ri - hi_) if 0 < k < 40})
            ins = quad(lambda s: eps * math.exp(-eps * s) * level(s)[1], 0, 40, points=kinks or None, limit=400,
                       epsrel=1e-11)[0]
            out = quad(lambda s: eps * math.exp(-eps * s) * (level(s)[0] - level(s)[1]), 0, 40,
                       points=kinks or None, limit=400, epsrel=1e-11)[0]
            return ins / (ins + out)
        assert sum(w["rates"]) <= 1 + 1e-12
        return math.prod(kernel_posterior(dist, ti, ri, eps * rate, part["centre"])
                         for ti, ri, rate, part in zip(t, radii, w["rates"], w["parts"], strict=True))

    assert posterior(res.epsilon_hi) >= p + DELTA - 1e-9
    # (the pyramid's certified value is a Riemann bound of its layer cake, within 1e-4)
    tol = 1e-4 if w["kind"] == "shifted pyramid" else 1e-7
    assert posterior(res.epsilon_hi) == pytest.approx(res.posterior, abs=tol)
    assert posterior(res.epsilon_lo) <= p + DELTA


# ------------------------------------------------------------------------------------------
# Routes 1 and 2: the epsilon's bracket and the mechanism behind its upper end
# ------------------------------------------------------------------------------------------
def pyramid_epsilon(name: str, oracle: dict) -> float | None:
    """Where a shifted pyramid found here crosses ``p +- delta`` on the side whose crossing the
    oracle estimates lowest (its box the best at that estimate): the optimum is at most this."""
    case = CASES[name]
    if case.oracle.event == "ball":
        return None
    side = min(oracle, key=lambda k: richardson(oracle[k]["eps"]).limit)
    upper = side == "upper"
    est = richardson(oracle[side]["eps"]).limit
    box, _ = best_pyramid(case.oracle, est, upper, maxfev=100)
    p = case.oracle.p()
    return pyramid_crossing(case.oracle, box, p + DELTA if upper else p - DELTA, upper, 0.9 * est, 1.1 * est)


@pytest.mark.parametrize("name", [
    # (make test: the first and the last; the categorical AND's bracket is also checked at the
    # default rtol by test_cell_relaxation_bracket_is_narrow; the slow ones: 30-120 s)
    *sample(["and-cells", "b-normal-and-categorical", "c-normal-or-categorical"], 2),
    pytest.param("a-age-and-salary", marks=pytest.mark.slow),
    pytest.param("d-uniform-or-normal", marks=pytest.mark.slow),
    pytest.param("e-l2-ball", marks=pytest.mark.slow),
    pytest.param("f-gamma-and-normal", marks=pytest.mark.slow),
])
def test_bracket_against_the_oracle(name):
    """The package's certified bracket [epsilon_lo, epsilon_hi] (at the case's ``rtol``)
    against the oracle's crossings on three grids, extrapolated, and the crossing of a
    shifted pyramid found here (``check_crossing``: the tolerance of the estimate is its
    Richardson error estimate, the rigorous checks have none); and the package's witness,
    integrated here, crosses at ``epsilon_hi`` and not at ``epsilon_lo`` (``check_witness``)."""
    res = package_result(name)
    oracle = oracle_result(name)
    rho = max(max(rec["rho"]) for rec in oracle.values())
    check_crossing(res, oracle, rho, pyramid_epsilon(name, oracle))
    check_witness(res, CASES[name].oracle)


#: the relative width the cell relaxation reaches at the default rtol (0.01), per case
#: (measured: 0.50 %, 0.72 %, 0.72 %, 0.67 %; the age and salary 5.6 %: cells of side 4 along
#: the age's band of width 4 on the finest grid of the schedule)
NARROW = {"b-normal-and-categorical": 0.01, "c-normal-or-categorical": 0.01, "d-uniform-or-normal": 0.01,
          "f-gamma-and-normal": 0.01, "a-age-and-salary": 0.06}


@functools.cache
def default_result(name: str):
    from garesearch.events import epsilon_for_goal

    case = CASES[name]
    return epsilon_for_goal(case.build(), delta=DELTA, t=case.t)


@pytest.mark.parametrize("name", sample(["b-normal-and-categorical", "d-uniform-or-normal", "f-gamma-and-normal",
                                         "a-age-and-salary", "c-normal-or-categorical"], 2))
def test_cell_relaxation_bracket_is_narrow(name):
    """At the default ``rtol`` the goals the cell relaxation took over (a categorical
    attribute, a uniform or gamma prior) get brackets of at most :data:`NARROW` (1 %; before,
    on the node grids: 3.3 %, 24 %, 34 %, 1.2 % and 37 %), by the cell relaxation, and the
    bracket holds the oracle's extrapolated optimum (``check_crossing``; within 1 % of it where
    narrower than 1 %).  ``make test`` runs the first and the last case."""
    res = default_result(name)
    assert res.method == "lp-cells"
    assert res.rel_width <= NARROW[name], res.rel_width
    oracle = oracle_result(name)
    rho = max(max(rec["rho"]) for rec in oracle.values())
    check_crossing(res, oracle, rho, pyramid_epsilon(name, oracle))
