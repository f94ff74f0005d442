r"""The compact box of the two-attribute cell relaxation with cells of unequal sides (an AND
under :math:`\ell_\infty`; beyond the paper, Sec. 4.2, 4.3): sides :math:`h_b = k h_s`,
the translations of cells of every offset, and the prior beyond the box attached to the edge
cells through virtual cells, both sides of the bound.

Independent values: the same relaxation built here with ``scipy.optimize.linprog`` and
``scipy.stats.norm`` (the translation lemma for every offset up to a reach, not only the
neighbours that chain to them), and the posteriors of shifted pyramids
:math:`L(x) = e^{-\epsilon d_\infty(x, C)}` (upper side) and inverted ones
:math:`e^{\epsilon d_\infty(x, C)}` (lower side) by ``scipy.integrate.quad`` over the
layer-cake formula (:math:`\int_S e^{-\epsilon d}\,dF = \int_0^\infty \epsilon e^{-\epsilon s}
F(S \cap C_s)\,ds`, :math:`\int_S e^{\epsilon d}\,dF = F(S) + \int_0^\infty \epsilon
e^{\epsilon s} F(S \setminus C_s)\,ds`, :math:`C_s` the box :math:`C` widened by :math:`s`).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from box_oracle import oracle_bound, pyramid_posterior
from scipy.optimize import minimize
from sweeps import sample

from garesearch.events import Attribute
from garesearch.priors import Normal

#: per case, per coordinate: (mean, standard deviation, radius, true value, cell side, cells
#: of margin beyond the band); the first with k = 2 (the larger side second), the second with
#: k = 3 (the larger side first)
CASES = {
    "k2": ((0.0, 1.0, 0.3, 0.7, 0.3, 4), (0.5, 2.0, 0.9, -1.2, 0.6, 3)),
    "k3": ((0.5, 2.0, 0.9, -1.2, 0.9, 2), (0.0, 1.0, 0.3, 0.7, 0.3, 5)),
}
#: a ratio of the sides that is not an integer (1.5)
RATIO15 = {"r15": ((0.0, 1.0, 0.3, 0.7, 0.3, 4), (0.5, 2.0, 0.45, -1.2, 0.45, 3))}
EPS = (0.5, 1.0)


def spec_of(case):
    return {**CASES, **RATIO15}[case]


def goal(case):
    a, b = (Attribute(Normal(mu, sd), r=r, name=f"x{c}") for c, (mu, sd, r, *_) in enumerate(spec_of(case)))
    return a & b


def package_grid(case):
    from garesearch.optimal._goal_cells import BoxedGrid
    from garesearch.optimal._goal_model import build_model

    spec = spec_of(case)
    tc = [s[3] for s in spec]
    ranges = [(t, r, t - r - m * h, t + r + m * h) for _, _, r, t, h, m in spec]
    return BoxedGrid(build_model(goal(case), math.inf), tc, tuple(s[4] for s in spec), ranges)


def best_pyramid(case, eps, upper, fev=150):
    """The most extreme pyramid found by Nelder-Mead over the ends of its box (from the point
    at the centre of :math:`X'` and from the record's band shifted towards the priors' means)."""
    spec = spec_of(case)
    t = np.array([s[3] for s in spec])
    mu = np.array([s[0] for s in spec])
    r = np.array([s[2] for s in spec])
    starts = [np.concatenate([t, t]), np.concatenate([t - r / 2, t + r / 2]),
              np.concatenate([np.minimum(t, t + np.sign(mu - t) * r), np.maximum(t, t + np.sign(mu - t) * r)])]

    def f(z):
        lo, hi = np.minimum(z[:2], z[2:]), np.maximum(z[:2], z[2:])
        v = pyramid_posterior(spec, eps, lo, hi, inverted=not upper)
        return -v if upper else v

    best = None
    for z0 in starts:
        res = minimize(f, z0, method="Nelder-Mead", options={"maxfev": fev, "xatol": 1e-5, "fatol": 1e-12})
        if best is None or res.fun < best.fun:
            best = res
    return -best.fun if upper else best.fun


@pytest.mark.parametrize("case", list(CASES))
def test_the_grids_have_unequal_sides(case):
    """The package's grid takes the sides asked for (``h_b = k h_s``, k = 2 and 3) and the moves
    :math:`(a, \\pm 1)`, :math:`|a| \\le k`, and the unit step along the smaller side."""
    grid = package_grid(case)
    hs = [s[4] for s in CASES[case]]
    assert grid.steps.tolist() == pytest.approx(hs, rel=1e-12)
    small, big = int(np.argmin(hs)), int(np.argmax(hs))
    k = round(hs[big] / hs[small])
    assert k == int(case[1]) and grid.offsets.shape[0] == 2 * k + 2


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("eps", EPS)
def test_unequal_sides_against_an_lp_built_here(case, eps):
    """Both sides of the package's certified bound against the optimum of the same relaxation
    built here (every translation up to ``2k + 1`` cells along the smaller side, 2 along the
    larger): on the safe side of it and within 1e-7; the planted errors move it further (the
    factors 1 % small, the moves :math:`(\\pm k, 1)` left out, virtual cells decaying 1 %
    slower)."""
    grid = package_grid(case)
    for upper in (True, False):
        ours = oracle_bound(spec_of(case), eps, upper)
        theirs = grid.solve(eps, upper)[0]
        assert (theirs >= ours - 1e-12) if upper else (theirs <= ours + 1e-12)
        assert theirs == pytest.approx(ours, rel=1e-7)
        k = int(case[1])
        small = int(np.argmin([s[4] for s in CASES[case]]))
        move = (k, 1) if small == 0 else (1, k)
        for planted in (dict(factor=0.99), dict(drop={move, (move[0], -move[1])}), dict(decay=0.99)):
            assert abs(oracle_bound(spec_of(case), eps, upper, **planted) / ours - 1) > 1e-5, planted


@pytest.mark.parametrize("case", sample(list(CASES), 1))
def test_unequal_sides_bound_the_best_pyramids(case):
    """No shifted pyramid found (Nelder-Mead over its box, posterior by quadrature here) exceeds
    the package's upper bound, no inverted one falls below its lower bound."""
    grid = package_grid(case)
    eps = EPS[0]
    up, lo = grid.solve(eps, True)[0], grid.solve(eps, False)[0]
    assert best_pyramid(case, eps, True) <= up
    assert best_pyramid(case, eps, False) >= lo


def test_a_ratio_not_an_integer_stays_on_the_safe_side():
    """Sides 0.3 and 0.45 (ratio 1.5): the package's moves (``k`` rounded up) chain to fewer
    translations than the LP built here takes (every offset up to 4 and 3 cells), so its bound
    is looser but on the safe side, both sides."""
    grid = package_grid("r15")
    assert grid.steps.tolist() == pytest.approx([0.3, 0.45], rel=1e-12)
    up, lo = grid.solve(EPS[1], True)[0], grid.solve(EPS[1], False)[0]
    assert 1.001 * oracle_bound(spec_of("r15"), EPS[1], True, reach=(4, 3)) < up
    assert lo < 0.999 * oracle_bound(spec_of("r15"), EPS[1], False, reach=(4, 3))


def test_a_ratio_larger_than_the_grid():
    """Age ``N(45, 12)``, ``r = 0.5`` and salary ``N(2000, 235.7)``, ``r = 100``: the coarsest
    grid takes sides 1 and 200 (k = 200, about 105 cells along age); the moves
    :math:`(a, \\pm 1)` with :math:`|a|` beyond the cells along age pair no cells."""
    from garesearch.optimal._goal_cells import _plan, cell_grid
    from garesearch.optimal._goal_model import build_model

    g = Attribute(Normal(45, 12), r=0.5, name="age") & Attribute(Normal(2000, 235.7), r=100, name="salary")
    model, tc = build_model(g, math.inf), [45.0, 2443.4045400402147]
    assert _plan(model, tc, 800)[0] == pytest.approx((1.0, 200.0))
    grid = cell_grid(model, tc, 800)
    assert grid.shape[0] < 200 and grid.offsets.shape[0] == 2 * 200 + 2
    # at epsilon 0.2 the factors of the moves across a cell 200 wide reach e^52: the LP leaves
    # out those beyond 1e12 (HiGHS called the model an error) and its bound is still the
    # looser one (the relaxation grows with epsilon)
    lo, hi = (grid.solve(e, True)[0] for e in (0.1, 0.2))
    assert 0.0 < lo <= hi <= 1.0
