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

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from scipy.integrate import quad
from scipy.optimize import minimize
from scipy.special import ndtr
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


def edges_of(mu, sd, r, t, h, m):
    return t - r - m * h + h * np.arange(round(2 * r / h) + 2 * m + 1)


def cell_masses(d, e):
    """Masses of the cells between the edges ``e`` (the upper tail from the survival function)."""
    return np.where(e[1:] <= d.mean(), d.cdf(e[1:]) - d.cdf(e[:-1]), d.sf(e[:-1]) - d.sf(e[1:]))


def beyond(d, e, h, up, k, decay=1.0):
    r"""Bound on :math:`\int L\,dF_c` beyond one end of the box along a coordinate, in units of
    the edge cell's average: virtual cells :math:`j = 1..J` (out to the prior's 1e-17
    quantile) at :math:`e^{k j h}` times their masses, the rest at :math:`e^{k |x - f|}` (``f``
    the far edge of the edge cell; a normal's tilted tail in closed form)."""
    mu, sd = d.mean(), d.std()
    if up:
        near, far = e[-1], e[-2]
        J = min(max(math.ceil((d.isf(1e-17) - near) / h), 1), 4000)
        j = np.arange(1, J + 1)
        virt = d.sf(near + h * (j - 1)) - d.sf(near + h * j)
        rest = math.exp(k * (mu - far) + (k * sd) ** 2 / 2) * stats.norm.sf((near + h * J - mu - k * sd ** 2) / sd)
    else:
        near, far = e[0], e[1]
        J = min(max(math.ceil((near - d.ppf(1e-17)) / h), 1), 4000)
        j = np.arange(1, J + 1)
        virt = d.cdf(near - h * (j - 1)) - d.cdf(near - h * j)
        rest = math.exp(k * (far - mu) + (k * sd) ** 2 / 2) * stats.norm.cdf((near - h * J - mu + k * sd ** 2) / sd)
    return float(np.sum(virt * np.exp(decay * k * h * j))) + rest


def oracle_bound(case, eps, upper, factor=1.0, drop=None, decay=1.0, extra=True, reach=(None, 2)):
    """The largest (``upper``) or smallest posterior of the AND-box over the cell relaxation,
    built here: cells of sides ``h_c`` over the bands widened by the margins; every pair of
    cells at offset ``v`` with ``|v_s| <= 2k + 1`` (the smaller side), ``|v_b| <= 2`` has
    averages in ratio at most ``factor`` :math:`e^{\\epsilon \\max_c |v_c| h_c}` (offsets in
    ``drop`` left out); the prior beyond the box (outside :math:`X'`) attached to its edge cells,
    with the lower bounds of :func:`beyond` for ``upper``, else the upper ones, multiplied over
    the coordinates beyond, and along one coordinate ``c`` widened by
    :math:`e^{\\pm\\epsilon \\max(0, h_o - h_c)}` (``extra``, as the package takes it)."""
    import scipy.sparse as sp
    from scipy.optimize import linprog

    spec = spec_of(case)
    dists = [stats.norm(mu, sd) for mu, sd, *_ in spec]
    edges = [edges_of(*s) for s in spec]
    hs = [s[4] for s in spec]
    masses = [cell_masses(d, e) for d, e in zip(dists, edges, strict=True)]
    shape = tuple(len(m) for m in masses)
    F = np.outer(*masses).ravel()
    centres = np.meshgrid(*[(e[:-1] + e[1:]) / 2 for e in edges], indexing="ij")
    inside = np.all([np.abs(g - s[3]) <= s[2] for g, s in zip(centres, spec, strict=True)], axis=0).ravel()
    k = -eps if upper else eps  # (the prior beyond lies outside X': its lower bound raises the posterior)
    tail = np.zeros(F.size)
    idx = np.arange(F.size).reshape(shape)
    for pattern in itertools.product((-1, 0, 1), repeat=2):
        if not any(pattern):
            continue
        per, sel = [], []
        for c, side in enumerate(pattern):
            if side == 0:
                per.append(np.ones(shape[c]))
                sel.append(slice(None))
            else:
                edge = -1 if side > 0 else 0
                per.append(np.array([beyond(dists[c], edges[c], hs[c], side > 0, k, decay) / masses[c][edge]]))
                sel.append(slice(-1, None) if side > 0 else slice(0, 1))
        coef = np.outer(*per).ravel()
        if extra and 0 in pattern:
            c = pattern.index(0)
            coef *= math.exp(k * max(0.0, hs[c] - hs[1 - c]))
        tail[idx[tuple(sel)].ravel()] += coef
    small = int(np.argmin(hs))
    kk = round(max(hs) / min(hs))
    lim = [0, 0]
    lim[small], lim[1 - small] = reach[0] or 2 * kk + 1, reach[1]
    offsets = [v for v in itertools.product(range(-lim[0], lim[0] + 1), range(-lim[1], lim[1] + 1))
               if any(v) and v > (0, 0)]  # (one of each +-v; both directions below)
    if drop:
        offsets = [v for v in offsets if v not in drop and tuple(-x for x in v) not in drop]
    rows, cols, vals = [], [], []
    r = 0
    for v in offsets:
        f = factor * math.exp(eps * max(abs(v[0]) * hs[0], abs(v[1]) * hs[1]))
        for u in (v, tuple(-x for x in v)):
            src = tuple(slice(max(0, -x), s - max(0, x)) for x, s in zip(u, shape, strict=True))
            dst = tuple(slice(max(0, x), s - max(0, -x)) for x, s in zip(u, shape, strict=True))
            a, b = idx[src].ravel(), idx[dst].ravel()
            m = a.size  # w_a / F_a <= f w_b / F_b
            rows += [r + np.arange(m)] * 2
            cols += [a, b]
            vals += [np.ones(m), -f * F[a] / F[b]]
            r += m
    A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, F.size))
    obj = inside.astype(float)
    res = linprog(-obj if upper else obj, A_ub=A, b_ub=np.zeros(r), A_eq=(1.0 + tail)[None, :], b_eq=[1.0],
                  bounds=(0, None), method="highs-ds",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0
    return -res.fun if upper else res.fun


def package_grid(case):
    from garesearch.optimal._goal_cells import BoxedGrid
    from garesearch.optimal._goal_model import build_model

    spec = spec_of(case)
    tc = [s[3] for s in spec]
    ranges = [(t, r, t - r - m * h, t + r + m * h) for _, _, r, t, h, m in spec]
    return BoxedGrid(build_model(goal(case), math.inf), tc, tuple(s[4] for s in spec), ranges)


def pyramid_posterior(case, eps, low, high, inverted=False):
    """Posterior of the AND-box under the (inverted) shifted pyramid on the box ``[low, high]``
    (layer cake, ``quad`` split where a side of :math:`C_s` meets a band's edge)."""
    spec = spec_of(case)
    cdfs = [lambda x, mu=mu, sd=sd: float(ndtr((x - mu) / sd)) for mu, sd, *_ in spec]
    sfs = [lambda x, mu=mu, sd=sd: float(ndtr((mu - x) / sd)) for mu, sd, *_ in spec]
    bands = [(t - r, t + r) for _, _, r, t, *_ in spec]

    def mass(c, lo, hi):
        if hi <= lo:
            return 0.0
        return cdfs[c](hi) - cdfs[c](lo) if hi <= spec[c][0] else sfs[c](lo) - sfs[c](hi)

    def levels(s):
        tot = ins = 1.0
        for c, (lo, hi) in enumerate(bands):
            a, b = low[c] - s, high[c] + s
            tot *= mass(c, a, b)
            ins *= mass(c, max(a, lo), min(b, hi))
        return tot, ins

    def beyond(s):  # 1 - F(C_s), without the cancellation
        return -math.expm1(sum(math.log1p(-(cdfs[c](low[c] - s) + sfs[c](high[c] + s))) for c in range(2)))

    p_in = math.prod(mass(c, lo, hi) for c, (lo, hi) in enumerate(bands))
    kinks = sorted({x for (lo, hi), a, b in zip(bands, low, high, strict=True)
                    for x in (a - lo, a - hi, lo - b, hi - b) if x > 0})
    reach = 40.0 * max(s[1] for s in spec)
    pts = [0.0] + [x for x in kinks if x < reach] + [reach]
    opts = dict(limit=200, epsabs=1e-14, epsrel=1e-10)

    def integral(f):
        return sum(quad(f, u, v, **opts)[0] for u, v in itertools.pairwise(pts) if v - u > 1e-12)

    if not inverted:
        ins = integral(lambda s: eps * math.exp(-eps * s) * levels(s)[1])
        out = integral(lambda s: eps * math.exp(-eps * s) * (levels(s)[0] - levels(s)[1]))
    else:
        ins = p_in + integral(lambda s: eps * math.exp(eps * s) * (p_in - levels(s)[1]))
        out = 1.0 - p_in + integral(lambda s: eps * math.exp(eps * s) * (beyond(s) - (p_in - levels(s)[1])))
    return ins / (ins + out)


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
        v = pyramid_posterior(case, eps, lo, hi, inverted=not upper)
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
        ours = oracle_bound(case, eps, upper)
        theirs = grid.solve(eps, upper)[0]
        assert (theirs >= ours - 1e-12) if upper else (theirs <= ours + 1e-12)
        assert theirs == pytest.approx(ours, rel=1e-7)
        k = int(case[1])
        small = int(np.argmin([s[4] for s in CASES[case]]))
        move = (k, 1) if small == 0 else (1, k)
        for planted in (dict(factor=0.99), dict(drop={move, (move[0], -move[1])}), dict(decay=0.99)):
            assert abs(oracle_bound(case, eps, upper, **planted) / ours - 1) > 1e-5, planted


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
    assert 1.001 * oracle_bound("r15", EPS[1], True, reach=(4, 3)) < up
    assert lo < 0.999 * oracle_bound("r15", EPS[1], False, reach=(4, 3))


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
