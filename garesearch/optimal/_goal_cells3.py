r"""Cell relaxation for goals of three numeric attributes under :math:`\ell_\infty`, log-concave
priors (beyond the paper; Sec. 4.2, 4.3): the relaxation of :mod:`garesearch.optimal._goal_cells`
in three dimensions.

The translation lemma of :mod:`garesearch.optimal._goal_cells` holds in any dimension for
products of log-concave priors: for cells :math:`C_j = C_i + v` of a grid of equal cubic cells,
the prior averages of every :math:`\epsilon`-DP likelihood satisfy :math:`a_i \le
e^{\epsilon \lVert v\rVert_\infty} a_j`.  The cells are cubes of side :math:`h` aligned with the
edges of the bands (:math:`2 r_c / h` whole for every coordinate); the 13 neighbour
translations :math:`v \in \{-1, 0, 1\}^3` (one of each :math:`\pm v`) chain to every
:math:`\ell_\infty` distance exactly.  The box of cells covers the bands widened by
:data:`MARGIN_CELLS` cells.  The prior beyond the box is attached to the box's edge cells
``E``: along a coordinate beyond the box, the virtual cells :math:`E + j h e_c` have averages
between :math:`e^{-\epsilon j h} a_E` and :math:`e^{\epsilon j h} a_E` (the lemma again), and
beyond the virtual cells :math:`e^{-\epsilon |x_c - f_c|} a_E \le L(x) \le e^{\epsilon |x_c -
f_c|} a_E` pointwise (``f_c`` the far edge of ``E``); a region beyond the box along several
coordinates takes the product of their factors (:class:`~garesearch.optimal._goal_cells.BoxedGrid`).  Unlike the
two-coordinate case, where the region that can only loosen the bound is left out, both are
kept here: for the upper side the region in :math:`X'` with the upper bound (in the objective
and the normalisation), the region outside with the lower bound (in the normalisation), the
other way round for the lower side.  That keeps the bound tight with a small box (few cells),
where leaving the prior out would not: on the benchmark's AND of three normal attributes
(cubic cells of side 0.2) the crossing is about 1.89 with a margin of 6 cells and the
pointwise bound alone beyond the box, 1.93 with the virtual cells, 1.94 with 7 cells (6,840
cells, an LP in about 14 s by the interior point method).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from ._certify import BudgetExhausted
from ._goal_cellaxes import is_log_concave
from ._goal_cells import BoxedGrid, CellSide, box_ranges
from ._goal_kernels import product_bracket
from ._goal_model import GoalModel, coord_radius
from ._goal_pyramid import best_pyramid, pyramid_crossing

__all__ = ["CellGrid3", "cell3_posterior_bounds", "cell3_sides", "cell_grid3", "cells3_apply", "cubic_side"]

#: the box of cells covers the bands widened by this many cells on either side (cut to the
#: support; the prior beyond enters through the edge cells, bounded from both sides)
MARGIN_CELLS = 7
#: the largest grid routed here (cells)
MAX_CELLS3 = 8000
#: LPs per side
LPS3 = 3
#: the cells across the narrowest band (at least)
BAND_CELLS = 4


def cells3_apply(model: GoalModel, tc) -> bool:
    r"""Whether the three-coordinate cell relaxation applies: an AND of three numeric
    attributes under ``norm=inf`` (an OR's set :math:`X'` reaches beyond every box of cells,
    and its sides bind at an epsilon too small for a box of a few cells beyond the bands),
    log-concave priors
    (:func:`garesearch.optimal._goal_cellaxes.is_log_concave`), the bands' widths
    :math:`2 r_c` whole multiples of a common side (:func:`cubic_side`), and a grid of at most
    :data:`MAX_CELLS3` cells.

    Examples
    --------
    >>> import math
    >>> from garesearch.events import Attribute
    >>> from garesearch.optimal._goal_model import build_model
    >>> from garesearch.priors import Normal
    >>> a, b, c = (Attribute(Normal(0, 1), r=r, name=n) for n, r in (("a", 0.6), ("b", 0.4), ("c", 0.5)))
    >>> cells3_apply(build_model(a & b & c, math.inf), [1.0, -1.0, 0.0])
    True
    >>> cells3_apply(build_model(a | b | c, math.inf), [1.0, -1.0, 0.0])  # an OR
    False
    """
    if not (math.isinf(model.norm) and model.ncoord == 3 and len(model.parts) == 3 and len(model.terms) == 1
            and all(p.kind == "num" for p in model.parts) and not any(model.discrete)
            and all(is_log_concave(pr) for pr in model.priors)):
        return False
    h = cubic_side(model, tc, 1)
    if h is None:
        return False
    cells = 1
    for t, r, lo, hi in box_ranges(model, tc, MARGIN_CELLS * h):  # (as CellGrid cuts them)
        k_lo = math.floor((lo - (t - r)) / h + 1e-9)
        cells *= max(k_lo + 1, math.ceil((hi - (t - r)) / h - 1e-9)) - k_lo
    return cells <= MAX_CELLS3


def cubic_side(model: GoalModel, tc, k: int) -> float | None:
    r"""The ``k``-th largest common cell side :math:`h` with :math:`2 r_c / h` whole for every
    coordinate and at least :data:`BAND_CELLS` cells across the narrowest band (``k = 1``: the
    coarsest), searched among :math:`2 r_{min} / n`, :math:`n \le 10 k + BAND\_CELLS`;
    ``None`` if there is none.

    Examples
    --------
    >>> import math
    >>> from garesearch.events import Attribute
    >>> from garesearch.optimal._goal_model import build_model
    >>> from garesearch.priors import Normal
    >>> a, b, c = (Attribute(Normal(0, 1), r=r, name=n) for n, r in (("a", 0.6), ("b", 0.4), ("c", 0.5)))
    >>> model = build_model(a & b & c, math.inf)
    >>> [round(cubic_side(model, [1.0, -1.0, 0.0], k), 12) for k in (1, 2)]  # 2 r = 1.2, 0.8, 1.0
    [0.2, 0.1]
    """
    widths = [2.0 * coord_radius(model, c) for c in range(model.ncoord)]
    w0 = min(widths)
    if not (w0 > 0 and all(math.isfinite(w) for w in widths)):
        return None
    found = 0
    for n in range(BAND_CELLS, 10 * k + BAND_CELLS + 1):
        h = w0 / n
        if all(abs(w / h - round(w / h)) < 1e-9 * (w / h) for w in widths):
            found += 1
            if found == k:
                return h
    return None


def cell_grid3(model: GoalModel, tc, k: int = 1) -> CellGrid3:
    """The grid of the ``k``-th largest common cubic side (:func:`cubic_side`) over the
    bands widened by :data:`MARGIN_CELLS` cells."""
    h = cubic_side(model, tc, k)
    if h is None:
        raise ParameterError(f"k: no common cubic cell side of rank {k} fits the bands; use a smaller k "
                             "(cells3_apply says whether rank 1 exists)")
    return CellGrid3(model, tc, h, box_ranges(model, tc, MARGIN_CELLS * h))


class CellGrid3(BoxedGrid):
    """Equal cubic cells over three numeric coordinates (:mod:`garesearch.optimal._goal_cells3`);
    :meth:`solve` gives the certified bound on the worst posterior at ``eps``."""

    def __init__(self, model: GoalModel, tc, h: float, ranges):
        super().__init__(model, tc, h, ranges)
        if not (np.ptp(self.steps) <= 1e-9 * float(np.max(self.steps)) and len(self.offsets) == 13):
            raise ParameterError("h: the cells must be equal cubes that fit every band (2 r / h whole for "
                                 "every coordinate; cubic_side gives such sides)")  # (the stencil chains exactly only then)


def cell3_sides(model: GoalModel, tc, targets, rtol: float, eps0=None) -> dict:
    r"""Certified brackets of both sides (``targets``: name -> (target, upper)) for three
    numeric attributes: the product bound's sound end and the best shifted pyramid's crossing
    (:func:`~garesearch.optimal._goal_pyramid.pyramid_crossing`, from the product bound's sound
    end; not for a side whose sound end lies beyond another side's witness end), then at most
    :data:`LPS3` relaxation LPs per side on the grid of :func:`cell_grid3`, first for the side
    whose witness crosses first: the first at :math:`\min(0.95, 1 - 0.9\,rtol)` times its
    crossing, the next where the witness' slope (logit of the posterior against log epsilon)
    carries the bound to the target, then secant steps
    (:meth:`~garesearch.optimal._goal_cells.CellSide.crossing`).  A further side gets its LPs
    only while its sound end is below the first one's, the first of them at that sound end.
    The work depends on the arguments only; under a wall-clock cap the schedule stops where
    the cap runs out (``cut_short``)."""
    sides = {}
    for name, (target, upper) in targets.items():
        side = CellSide(model, tc, target, upper, rtol, eps0)
        sides[name] = side
    try:
        for side in sides.values():
            fb = product_bracket(model, tc, side.target, side.upper)
            side.lo, side.at_lo, side.hi, side.wit = fb.lo, fb.bound, fb.hi, fb.witness
        for name in sorted(sides, key=lambda n: (sides[n].lo, n != "upper")):
            side = sides[name]
            if side.lo >= min(s.hi for s in sides.values()):
                continue  # (this side does not bind: another is unsafe below its sound end)
            root, wit = pyramid_crossing(model, tc, side.target, side.upper, side.lo, rtol)
            if root < side.hi:
                side.hi, side.wit = root, wit
        grid = None
        order = sorted(sides, key=lambda n: (sides[n].hi, n != "upper"))
        for i, name in enumerate(order):
            side = sides[name]
            stop = min(sides[n].lo for n in order[:i]) if i else math.inf
            if not (math.isfinite(side.hi) and side.lo < stop and side.lo < side.hi * (1 - rtol)):
                continue
            grid = grid or cell_grid3(model, tc)
            w, e = side.wit, side.hi
            side.slope_of(w, e)
            first = min(e * min(0.95, 1 - 0.9 * rtol), stop)  # (beyond stop this side does not bind)
            side.crossing(grid, first=max(first, side.lo * (1 + rtol / 16)), lps=LPS3, shrink=rtol / 8,
                          stop=min(stop, side.hi * (1 - rtol)))
    except BudgetExhausted:
        for side in sides.values():
            side.cut_short = True
    return {n: s.bracket() for n, s in sides.items()}


def cell3_posterior_bounds(model: GoalModel, tc, eps: float, upper: bool) -> tuple[float, float]:
    """At ``eps``: the best shifted pyramid's posterior and the relaxation's bound on the
    coarsest grid (:func:`cell_grid3`)."""
    bound, _ = cell_grid3(model, tc).solve(eps, upper)
    return best_pyramid(model, tc, eps, upper).posterior(eps), bound
