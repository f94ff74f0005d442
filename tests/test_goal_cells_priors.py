"""The cell relaxation beyond two normal attributes (garesearch.optimal._goal_cells and
_goal_cellaxes; beyond the paper, Sec. 4.2, 4.3): which priors it takes (log-concavity checked
here on the density itself), its cell masses in the tails (closed forms and mpmath), cells of
no mass beyond a bounded support, and the sparse table that stands for the pairs of atoms of a
categorical attribute (against the LP with every pair written out, and every pair checked on
its solution).  The brackets against the independent oracle are in test_goal_oracle.py."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from garesearch.goals import Attribute, Coordinates
from garesearch.optimal._goal_cellaxes import is_log_concave, log_cell_masses
from garesearch.optimal._goal_cells import CellGrid, cell_grid, cells_apply
from garesearch.optimal._goal_model import build_model, resolve_true_values, true_codes, true_coords
from garesearch.optimal._solvers import method_for
from garesearch.priors import Categorical, Continuous, Normal, PiecewiseUniform, Uniform

CAT = {"u": 0.5, "v": 0.3, "w": 0.2}


def _model(goal, t, norm=math.inf):
    model = build_model(goal, norm)
    return model, true_codes(model, true_coords(model, resolve_true_values(model, t)))


# ------------------------------------------------------------------------------------------
# Which priors: log-concavity read off the density
# ------------------------------------------------------------------------------------------
PRIORS = {
    "normal": (lambda: Normal(1, 2), stats.norm(1, 2)),
    "uniform": (lambda: Uniform(0, 3), stats.uniform(0, 3)),
    "gamma 3": (lambda: Continuous(stats.gamma(3.0, scale=2)), stats.gamma(3.0, scale=2)),
    "gamma 1": (lambda: Continuous(stats.gamma(1.0)), stats.gamma(1.0)),
    "exponential": (lambda: Continuous(stats.expon(2)), stats.expon(2)),
    "laplace": (lambda: Continuous(stats.laplace(0, 3)), stats.laplace(0, 3)),
    "weibull 1.5": (lambda: Continuous(stats.weibull_min(1.5)), stats.weibull_min(1.5)),
    "beta 2 3": (lambda: Continuous(stats.beta(2, 3)), stats.beta(2, 3)),
    "truncated normal": (lambda: Continuous(stats.truncnorm(-1, 2)), stats.truncnorm(-1, 2)),
    "gamma 0.5": (lambda: Continuous(stats.gamma(0.5)), stats.gamma(0.5)),
    "student t 4": (lambda: Continuous(stats.t(4)), stats.t(4)),
    "lognormal": (lambda: Continuous(stats.lognorm(0.5)), stats.lognorm(0.5)),
    "weibull 0.8": (lambda: Continuous(stats.weibull_min(0.8)), stats.weibull_min(0.8)),
    "beta 0.5 2": (lambda: Continuous(stats.beta(0.5, 2)), stats.beta(0.5, 2)),
}


def _log_concave_on_density(dist) -> bool:
    """Second differences of scipy's logpdf on 4000 points of the central 1 - 2e-6 (none
    above 1e-9 of the step's square times the scale's: log-concave)."""
    x = np.linspace(float(dist.ppf(1e-6)), float(dist.ppf(1 - 1e-6)), 4000)
    lp = dist.logpdf(x)
    return bool(np.max(lp[2:] - 2 * lp[1:-1] + lp[:-2]) <= 1e-9)


@pytest.mark.parametrize("name", list(PRIORS))
def test_log_concavity_rule_matches_the_density(name):
    """The package's rule per prior class agrees with the density's second differences."""
    make, dist = PRIORS[name]
    assert is_log_concave(make()) == _log_concave_on_density(dist)


def test_log_concavity_rule_refuses_what_it_cannot_see():
    """A piecewise-uniform prior with unequal densities (not log-concave) and a categorical
    prior on a numeric axis are refused; equal densities are a uniform prior."""
    assert not is_log_concave(PiecewiseUniform([0, 1, 2], [0.3, 0.7]))
    assert is_log_concave(PiecewiseUniform([0, 1, 3], [1 / 3, 2 / 3]))
    assert not is_log_concave(Categorical({1.0: 0.5, 2.0: 0.5}))


# ------------------------------------------------------------------------------------------
# Cell masses in the tails
# ------------------------------------------------------------------------------------------
def _exact_log_mass(name, a, b):
    mpmath.mp.dps = 40
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    if name == "exponential":  # expon(loc 2)
        return float(mpmath.log(mpmath.exp(-(a - 2)) - mpmath.exp(-(b - 2))))
    if name == "laplace":  # laplace(0, 3), both ends on one side of 0
        f = (lambda x: mpmath.exp(x / 3) / 2) if b <= 0 else (lambda x: -mpmath.exp(-x / 3) / 2)
        return float(mpmath.log(f(b) - f(a)))
    if name == "gamma 3":  # gamma(3, scale 2)
        return float(mpmath.log(mpmath.gammainc(3, a / 2, b / 2, regularized=True)))
    if name == "normal":
        sf = lambda x: mpmath.erfc((x - 1) / (2 * mpmath.sqrt(2))) / 2  # noqa: E731
        cdf = lambda x: mpmath.erfc((1 - x) / (2 * mpmath.sqrt(2))) / 2  # noqa: E731
        return float(mpmath.log(sf(a) - sf(b) if a >= 1 else cdf(b) - cdf(a)))
    raise KeyError(name)


@pytest.mark.parametrize("name, edges", [
    ("exponential", [2.0, 2.5, 40.0, 40.25, 300.0]),
    ("laplace", [-120.0, -119.5, -1.0, 0.0, 1.0, 90.0, 90.1]),
    ("gamma 3", [1e-3, 0.5, 6.0, 80.0, 80.2, 600.0, 600.5]),
    ("normal", [-40.0, -39.9, 0.9, 1.1, 40.0, 40.2]),
])
def test_log_cell_masses_in_the_tails(name, edges):
    """log F([e_k, e_k+1]) to 1e-10 (absolute in the log) against mpmath, far into both
    tails (masses down to 1e-130), where a plain CDF difference would be 0."""
    make, _ = PRIORS[name]
    got = log_cell_masses(make(), np.array(edges))
    for k, g in enumerate(got):
        if edges[k + 1] <= edges[k]:
            continue
        assert g == pytest.approx(_exact_log_mass(name, edges[k], edges[k + 1]), abs=1e-10), (k, edges[k])


def test_cells_beyond_a_bounded_support_drop_out():
    """A uniform prior whose band crosses the end of its support: the cells start at the end
    (no cell of no mass), their masses add up to 1 with nothing beyond, and the LP's bound lies
    between the prior probability p and 1."""
    model, tc = _model(Attribute(Uniform(0, 10), r=1, name="u") & Attribute(Normal(5, 2), r=1, name="n"), [0.4, 6.0])
    grid = cell_grid(model, tc, 800)
    e = grid.edges[0]
    assert e[0] <= 0.0 < e[1] and e[-2] < 10.0 <= e[-1]
    assert np.all(np.isfinite(grid.logm[0]))
    assert math.fsum(np.exp(grid.logm[0])) == pytest.approx(1.0, abs=1e-12)
    p = 1.4 / 10 * (stats.norm(5, 2).cdf(7) - stats.norm(5, 2).cdf(5))
    bound, _ = grid.solve(0.3, True)
    assert p < bound < 1


# ------------------------------------------------------------------------------------------
# Which goals get the cells
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("goal, t, norm, expected", [
    (lambda: Attribute(Continuous(stats.gamma(3.0)), r=0.6, name="g") & Attribute(Normal(0, 1), r=0.6, name="n"),
     [2.5, 0.2], math.inf, True),
    (lambda: Attribute(Uniform(0, 10), r=1, name="u") | Attribute(Normal(5, 2), r=1, name="n"), [3.0, 6.0], math.inf,
     True),
    (lambda: Attribute(Normal(0, 1), r=0.5, name="a") | Attribute(Categorical(CAT), r=0, name="c"), [0.4, "w"],
     math.inf, True),
    (lambda: Attribute(Continuous(stats.laplace(0, 2)), r=0.5, name="a") & Attribute(Categorical(CAT), r=0, name="c"),
     [0.4, "u"], math.inf, True),
    (lambda: Attribute(Continuous(stats.gamma(0.5)), r=0.6, name="g") & Attribute(Normal(0, 1), r=0.6, name="n"),
     [0.5, 0.2], math.inf, False),
    (lambda: Attribute(Continuous(stats.t(4)), r=0.6, name="s") | Attribute(Normal(0, 1), r=0.6, name="n"),
     [0.5, 0.2], math.inf, False),
    (lambda: Attribute(Normal(0, 1), r=0.6, name="a") & Attribute(Normal(0, 1), r=0.6, name="b"), [0.5, 0.2], 2.0,
     False),
    (lambda: Coordinates([Normal(0, 1), Normal(0.5, 1.3)], r=0.8, norm=2, name="ball"), {"ball": (0.3, 0.2)},
     math.inf, False),
])
def test_which_goals_get_the_cells(goal, t, norm, expected):
    """Two attributes under l_inf with log-concave numeric priors or one categorical
    attribute: the cell relaxation; a prior that is not log-concave, another norm or a ball:
    not."""
    model, tc = _model(goal(), t, norm)
    assert cells_apply(model, tc) is expected
    assert (method_for(model, tc, 10**6) == "lp-cells") is expected


# ------------------------------------------------------------------------------------------
# A categorical attribute: the sparse table of window minima against every pair
# ------------------------------------------------------------------------------------------
def _cat_grid():
    model, tc = _model(Attribute(Normal(0, 1), r=0.5, name="a") | Attribute(Categorical(CAT), r=0, name="c"),
                       [0.4, "w"])
    return cell_grid(model, tc, 3000)


def _violations(grid: CellGrid, loga: np.ndarray, eps: float) -> int:
    """Pairs of cells in different atoms whose averages break a_i <= e^{eps d} a_j (relative
    1e-7), d = max(|numeric distance|, 1), over every such pair of the grid."""
    c0 = int(np.flatnonzero(~grid.disc)[0])
    x = grid.centres[c0]
    s = np.moveaxis(loga.reshape(grid.shape), c0, 0)  # (numeric cells, atoms)
    dist = np.maximum(np.abs(x[:, None] - x[None, :]), 1.0)
    bad = 0
    for a in range(s.shape[1]):
        for b in range(s.shape[1]):
            if a != b:
                bad += int(np.count_nonzero(s[:, a][:, None] - s[:, b][None, :] > eps * dist + 1e-7))
    return bad


@pytest.mark.parametrize("upper", [True, False])
def test_window_minima_imply_every_pair_of_atoms(upper):
    """The LP with the sparse table: its solution's cell averages satisfy the constraint of
    every pair of cells in different atoms (all N^2 of them, distances from the cell centres:
    the lemma's exact factor for cells of one side).  Negative control: without the table
    (only the pairs K cells apart), the solution breaks hundreds."""
    grid = _cat_grid()
    eps = 0.5
    _, loga = grid.solve(eps, upper)
    assert _violations(grid, loga, eps) == 0
    grid.window = None
    _, loga = grid.solve(eps, upper)
    assert _violations(grid, loga, eps) > 100


def test_window_minima_give_the_bound_of_every_pair():
    """Same bound (to 1e-9) as the LP with every pair of atoms within K cells written out
    here (the lemma's factor e^{eps max(|j| h, 1)}), on both sides."""
    grid = _cat_grid()
    c0, c1, K = grid.window
    direct = _cat_grid()
    direct.window = None
    idx = np.arange(direct.n).reshape(direct.shape)
    pa, pb, pl = [direct.pa], [direct.pb], [direct.plen]
    h = float(direct.steps[c0])
    for j in range(-(K - 1), K):
        for dd in range(1, direct.shape[c1]):
            v = np.zeros(2, int)
            v[c0], v[c1] = j, dd
            src = tuple(slice(max(0, -k), s - max(0, k)) for k, s in zip(v, direct.shape, strict=True))
            dst = tuple(slice(max(0, k), s - max(0, -k)) for k, s in zip(v, direct.shape, strict=True))
            pa.append(idx[src].ravel())
            pb.append(idx[dst].ravel())
            pl.append(np.full(idx[src].size, max(abs(j) * h, 1.0)))
    direct.pa, direct.pb, direct.plen = (np.concatenate(x) for x in (pa, pb, pl))
    for upper in (True, False):
        assert grid.solve(0.6, upper)[0] == pytest.approx(direct.solve(0.6, upper)[0], abs=1e-9)
