r"""The optimal epsilon of goals over three numeric attributes under :math:`\ell_\infty`
(beyond the paper; Sec. 4.2, 4.3): the witness end of the bracket against a posterior
integrated here.

The posterior of :math:`X'` under a shifted pyramid :math:`L(x) = e^{-\epsilon d_\infty(x, C)}`
(:math:`C = \prod_c [a_c, b_c]`) is computed by ``scipy.integrate.quad`` over the layer-cake
formula :math:`\int_S L\,dF = \int_0^\infty \epsilon e^{-\epsilon s} F(S \cap C_s)\,ds`,
:math:`C_s = \prod_c [a_c - s, b_c + s]`, with one-coordinate masses from ``scipy.stats.norm``
(inverted: :math:`\int_S e^{\epsilon d}\,dF = F(S) + \int_0^\infty \epsilon e^{\epsilon s}
F(S \setminus C_s)\,ds`); nothing of the package enters the integral.
"""

from __future__ import annotations

import itertools
import math

import pytest
from scipy import stats
from scipy.integrate import quad
from scipy.special import ndtr

from garesearch.events import Attribute
from garesearch.optimal.goals import epsilon_optimal
from garesearch.priors import Normal

DELTA = 0.1
#: the AND of three normal attributes of the benchmark (garesearch.app.bench.goals_everywhere)
PRIORS = {"a": (0.0, 1.0, 0.6), "b": (0.5, 1.3, 0.4), "c": (0.0, 2.0, 0.5)}
T = {"a": 1.0, "b": -1.0, "c": 0.0}


def three_goal():
    atts = [Attribute(Normal(mu, sd), r=r, name=n) for n, (mu, sd, r) in PRIORS.items()]
    return atts[0] & atts[1] & atts[2]


def box_mass(dist, lo, hi):
    return max(0.0, float(dist.cdf(hi) - dist.cdf(lo))) if hi > lo else 0.0


def pyramid_posterior(box_low, box_high, eps, inverted=False, priors=PRIORS, t=T):
    """Posterior of the AND-box :math:`X'` under the (inverted) shifted pyramid on the box
    ``[box_low, box_high]``, by the layer-cake formula and ``quad``."""
    names = list(priors)
    dists = [stats.norm(priors[n][0], priors[n][1]) for n in names]
    bands = [(t[n] - priors[n][2], t[n] + priors[n][2]) for n in names]
    # (scipy's normal cdf, ndtr of the standardised value, without the frozen distribution's
    # per-call overhead: the same floats)
    cdfs = [lambda x, mu=priors[n][0], sd=priors[n][1]: ndtr((x - mu) / sd) for n in names]

    def fast_mass(cdf, lo, hi):
        return max(0.0, float(cdf(hi) - cdf(lo))) if hi > lo else 0.0

    def masses(s):
        tot, ins = 1.0, 1.0
        for cdf, (lo, hi), a, b in zip(cdfs, bands, box_low, box_high, strict=True):
            tot *= fast_mass(cdf, a - s, b + s)
            ins *= fast_mass(cdf, max(a - s, lo), min(b + s, hi))
        return tot, ins

    def outside(s):  # F(C_s) - F(X' cap C_s), one evaluation of the masses
        tot, ins = masses(s)
        return tot - ins

    p_in = math.prod(box_mass(d, lo, hi) for d, (lo, hi) in zip(dists, bands, strict=True))
    opts = dict(limit=400, epsabs=1e-13, epsrel=1e-11)
    # the level sets change shape where a side of C_s reaches a band's edge: split there
    kinks = sorted({x for (lo, hi), a, b in zip(bands, box_low, box_high, strict=True)
                    for x in (a - lo, a - hi, lo - b, hi - b) if x > 0})
    reach = 60.0
    pts = [0.0] + [k for k in kinks if k < reach] + [reach]

    def integral(f):
        return sum(quad(f, u, v, **opts)[0] for u, v in itertools.pairwise(pts))

    if not inverted:
        A = integral(lambda s: eps * math.exp(-eps * s) * masses(s)[1])
        B = integral(lambda s: eps * math.exp(-eps * s) * outside(s))
        B += math.exp(-eps * reach) * (1.0 - masses(reach)[0])  # (beyond: below 1e-300)
    else:
        A = p_in + integral(lambda s: eps * math.exp(eps * s) * (p_in - masses(s)[1]))
        B = (1.0 - p_in) + integral(lambda s: eps * math.exp(eps * s) * (1.0 - p_in - outside(s)))
    return A / (A + B)




def test_pyramid_quadrature_against_monte_carlo():
    """The quadrature above against a plain Monte Carlo average of the pyramid (a check of
    the test's own integral: 2e5 samples, about 1 % of the posterior)."""
    import numpy as np

    rng = np.random.default_rng(7)
    names = list(PRIORS)
    x = np.stack([rng.normal(PRIORS[n][0], PRIORS[n][1], 200_000) for n in names], axis=1)
    a, b, eps = [0.9, -1.2, -0.1], [1.4, -1.1, 0.1], 2.0
    d = np.max(np.maximum(np.maximum(np.array(a) - x, x - np.array(b)), 0.0), axis=1)
    inside = np.all([np.abs(x[:, i] - T[n]) <= PRIORS[n][2] for i, n in enumerate(names)], axis=0)
    w = np.exp(-eps * d)
    mc = float(np.sum(w[inside]) / np.sum(w))
    assert pyramid_posterior(a, b, eps) == pytest.approx(mc, rel=0.05)


def check_pyramid_witness(res, priors, t):
    """The package's shifted pyramid, integrated here: beyond ``p + delta`` at ``epsilon_hi``,
    within at ``epsilon`` and just below ``epsilon_hi``; its certified value within 1e-4."""
    w = res.witness
    assert w["kind"] == "shifted pyramid"
    p = math.prod(box_mass(stats.norm(mu, sd), t[n] - r, t[n] + r) for n, (mu, sd, r) in priors.items())
    assert res.p == pytest.approx(p, abs=1e-12)
    at_hi = pyramid_posterior(w["box_low"], w["box_high"], res.epsilon_hi, priors=priors, t=t)
    assert at_hi >= p + DELTA - 1e-9
    assert at_hi == pytest.approx(res.posterior, abs=1e-4)
    assert pyramid_posterior(w["box_low"], w["box_high"], res.epsilon, priors=priors, t=t) <= p + DELTA
    # (it crosses where the bracket says, not later: the bisection's width is rtol / 50)
    assert pyramid_posterior(w["box_low"], w["box_high"], res.epsilon_hi * (1 - 1e-3), priors=priors, t=t) < p + DELTA


def test_product_bound_takes_the_pyramid_witness():
    """AND of three normal attributes whose bands share no cubic cell side (``c`` of radius
    :math:`0.5\\sqrt 2`: ``method="product-bound"``): the high end is where the best shifted
    pyramid crosses (1.718; the product witness alone crosses later), checked by quadrature."""
    priors = {**PRIORS, "c": (0.0, 2.0, 0.5 * math.sqrt(2))}
    atts = [Attribute(Normal(mu, sd), r=r, name=n) for n, (mu, sd, r) in priors.items()]
    res = epsilon_optimal(atts[0] & atts[1] & atts[2], delta=DELTA, t=T)
    assert res.method == "product-bound" and res.binding == "upper"
    check_pyramid_witness(res, priors, T)
    assert res.epsilon_hi < 1.75


@pytest.mark.slow
def test_three_normals_bracket():
    """The benchmark's AND of three normal attributes (``method="lp-cells"``, about 40 s): the
    witness is the best shifted pyramid (checked by quadrature); the sound end comes from the
    three-dimensional cell relaxation, far above the product bound's 1.0982 (measured: the
    bracket [1.9422, 1.9817])."""
    res = epsilon_optimal(three_goal(), delta=DELTA, t=T)
    assert res.method == "lp-cells" and res.binding == "upper"
    check_pyramid_witness(res, PRIORS, T)
    assert res.epsilon > 1.9 and res.rel_width < 0.025


# ------------------------------------------------------------------------------------------
# The relaxation's LP against one built here
# ------------------------------------------------------------------------------------------
#: a coarse case: cubic cells of side 0.4 fit all three bands
COARSE = {"a": (0.0, 1.0, 0.4), "b": (0.5, 1.3, 0.4), "c": (0.0, 2.0, 0.6)}
H, MARGIN = 0.4, 2  # the cell side, and the cells beyond each band


def oracle_bound(eps, priors=COARSE, t=T, h=H, margin=MARGIN, factor=1.0, diagonals=True):
    """The largest posterior of the AND-box over the cell relaxation (upper side), by
    ``scipy.optimize.linprog``: cubic cells of side ``h`` over the bands widened by ``margin``
    cells, cell masses from ``scipy.stats.norm``; the averages' ratio of two cells at offset
    ``v`` (the 26 neighbours, or the 6 along the axes without ``diagonals``) at most
    ``factor`` times :math:`e^{\\epsilon h \\lVert v\\rVert_\\infty}`; the prior beyond the box
    attached to its edge cells ``E`` (the region lies outside :math:`X'`) with lower bounds:
    per coordinate beyond the box, the virtual cells :math:`E + j h e_c` at
    :math:`e^{-\\epsilon j h} a_E` and beyond them :math:`e^{-\\epsilon |x_c - f_c|} a_E`
    (``f_c`` the far edge of ``E``), multiplied over the coordinates beyond the box."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.optimize import linprog

    names = list(priors)
    dists = [stats.norm(priors[n][0], priors[n][1]) for n in names]
    edges = [t[n] - priors[n][2] - margin * h + h * np.arange(round(2 * priors[n][2] / h) + 2 * margin + 1)
             for n in names]
    masses = [np.diff(d.cdf(e)) for d, e in zip(dists, edges, strict=True)]
    shape = tuple(len(m) for m in masses)
    F = np.einsum("i,j,k->ijk", *masses).ravel()
    centres = [(e[:-1] + e[1:]) / 2 for e in edges]
    grid = np.meshgrid(*centres, indexing="ij")
    inside = np.all([np.abs(g - t[n]) <= priors[n][2] for g, n in zip(grid, names, strict=True)], axis=0).ravel()

    def beyond(d, e, up, cells=60):
        """int beyond the box's edge of exp(-eps h j) dF over the virtual cells j = 1..cells
        beyond the edge cell, and of exp(-eps |x - f|) dF beyond them (``f`` the edge cell's
        far edge; closed form: exp(-eps x) N(mu, sd) = exp(-eps mu + (eps sd)^2 / 2)
        N(mu - eps sd^2, sd))."""
        mu, sd = d.mean(), d.std()
        j = np.arange(1, cells + 1)
        if up:
            near, far = e[-1], e[-2]
            virtual = np.sum((d.sf(near + h * (j - 1)) - d.sf(near + h * j)) * np.exp(-eps * h * j))
            rest = math.exp(-eps * (mu - far) + (eps * sd) ** 2 / 2) * stats.norm.sf((near + h * cells - mu + eps * sd ** 2) / sd)
        else:
            near, far = e[0], e[1]
            virtual = np.sum((d.cdf(near - h * (j - 1)) - d.cdf(near - h * j)) * np.exp(-eps * h * j))
            rest = math.exp(eps * (mu - far) + (eps * sd) ** 2 / 2) * stats.norm.cdf((near - h * cells - mu - eps * sd ** 2) / sd)
        return virtual + rest

    tail = np.zeros(F.size)
    idx = np.arange(F.size).reshape(shape)
    for pattern in itertools.product((-1, 0, 1), repeat=3):
        if not any(pattern):
            continue
        per, sel = [], []
        for c, side in enumerate(pattern):
            e = edges[c]
            if side == 0:
                per.append(masses[c])
                sel.append(slice(None))
            elif side > 0:
                per.append(np.array([beyond(dists[c], e, True)]))
                sel.append(slice(-1, None))
            else:
                per.append(np.array([beyond(dists[c], e, False)]))
                sel.append(slice(0, 1))
        tail[idx[tuple(sel)].ravel()] += np.einsum("i,j,k->ijk", *per).ravel()
    # variables w_i: cell i's share of the posterior (its average times its mass, normalised)
    offsets = [v for v in itertools.product((-1, 0, 1), repeat=3) if any(v)]
    if not diagonals:
        offsets = [v for v in offsets if sum(map(abs, v)) == 1]
    rows, cols, vals = [], [], []
    r = 0
    for v in offsets:
        src = tuple(slice(max(0, -k), s - max(0, k)) for k, s in zip(v, shape, strict=True))
        dst = tuple(slice(max(0, k), s - max(0, -k)) for k, s in zip(v, shape, strict=True))
        a, b = idx[src].ravel(), idx[dst].ravel()
        k = factor * math.exp(eps * h * max(map(abs, v)))
        # w_a / F_a <= k w_b / F_b
        m = a.size
        rows += [r + np.arange(m)] * 2
        cols += [a, b]
        vals += [np.ones(m), -k * F[a] / F[b]]
        r += m
    A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, F.size))
    a_eq = (1.0 + tail / F)[None, :]
    res = linprog(-inside.astype(float), A_ub=A, b_ub=np.zeros(r), A_eq=a_eq, b_eq=[1.0], bounds=(0, None),
                  method="highs")
    assert res.status == 0
    return -res.fun


def package_bound(eps):
    from garesearch.optimal._goal_cells3 import CellGrid3
    from garesearch.optimal._goal_model import build_model

    atts = [Attribute(Normal(mu, sd), r=r, name=n) for n, (mu, sd, r) in COARSE.items()]
    model = build_model(atts[0] & atts[1] & atts[2], math.inf)
    tc = [T[n] for n in COARSE]
    ranges = [(tc[c], r, tc[c] - r - MARGIN * H, tc[c] + r + MARGIN * H) for c, (_, _, r) in enumerate(COARSE.values())]
    return CellGrid3(model, tc, H, ranges).solve(eps, True)[0]


@pytest.mark.parametrize("eps", [0.8, 1.6])
def test_cell_relaxation_against_an_lp_built_here(eps):
    """The package's certified bound of the three-dimensional cell relaxation (upper side) on a
    coarse grid (252 cells) against the optimum of the same relaxation built here: never below
    it (the certificate holds for every feasible point) and within 1e-7 of it.  Planted
    errors in the LP built here move its optimum far beyond that: the neighbours' factor 1 %
    small (the optimum falls: the package's would then be too high by more than 1e-4) or
    the diagonal neighbours left out (it rises above the package's bound)."""
    ours = oracle_bound(eps)
    theirs = package_bound(eps)
    assert theirs >= ours - 1e-12
    assert theirs == pytest.approx(ours, rel=1e-7)
    assert theirs - oracle_bound(eps, factor=0.99) > 1e-4
    assert oracle_bound(eps, diagonals=False) - theirs > 1e-4


def test_cell_relaxation_bounds_a_real_mechanism():
    """The package's bound of the coarse relaxation at epsilon 1.6 is at least the posterior of
    a real mechanism, the shifted pyramid on the box of :math:`X'` shrunk to its centre
    (integrated here)."""
    eps = 1.6
    centre = [T[n] for n in COARSE]
    assert package_bound(eps) >= pyramid_posterior(centre, centre, eps, priors=COARSE, t=T)
    box_lo = [T[n] - COARSE[n][2] / 2 for n in COARSE]
    box_hi = [T[n] + COARSE[n][2] / 2 for n in COARSE]
    assert package_bound(eps) >= pyramid_posterior(box_lo, box_hi, eps, priors=COARSE, t=T)


def test_a_diverging_tail_gives_the_trivial_lower_bound():
    """AND of a Laplace(0, 1) and two normal attributes at epsilon 1.5, above the Laplace
    tail's rate: the likelihood min(e^{k x_1}, n), k = 0.999 epsilon (epsilon-DP), takes the
    posterior of X' to about 1e-12 (closed form below, n = 1e30), so no positive lower bound on
    the smallest posterior is sound (before, the relaxation dropped the diverging region and
    certified 9.4e-6)."""
    from garesearch.optimal.goals import worst_posterior
    from garesearch.priors import Continuous

    eps, k, n = 1.5, 0.999 * 1.5, 1e30
    xs = math.log(n) / k
    total = 1 / (2 * (k + 1)) + math.expm1((k - 1) * xs) / (2 * (k - 1)) + n * math.exp(-xs) / 2
    inside = (math.exp((k - 1) * 1.6) - math.exp((k - 1) * 0.4)) / (2 * (k - 1))
    nb, nc = stats.norm(0.5, 1.3), stats.norm(0, 2)
    mech = inside / total * (nb.cdf(-0.6) - nb.cdf(-1.4)) * (nc.cdf(0.5) - nc.cdf(-0.5))
    goal = (Attribute(Continuous(stats.laplace()), r=0.6, name="a") & Attribute(Normal(0.5, 1.3), r=0.4, name="b")
            & Attribute(Normal(0, 2), r=0.5, name="c"))
    low, _ = worst_posterior(goal, epsilon=eps, t=[1.0, -1.0, 0.0], sides="lower")
    assert 0.0 <= low <= mech < 1e-11


def test_the_box_stops_at_the_prior_quantiles_and_holds_the_band():
    """A narrow third prior (Normal(0, 0.1), band [-0.5, 0.5], cells of side 0.2): the cells'
    range stops at the prior's 1e-12 quantiles (scipy's, +-0.7034) instead of 7 cells beyond
    the band (+-1.9, 19 standard deviations, where HiGHS called the LP infeasible); a band
    wider than those quantiles is still covered whole."""
    from garesearch.optimal._goal_cells import band_box
    from garesearch.optimal._goal_cells3 import MARGIN_CELLS
    from garesearch.optimal._goal_model import build_model

    q = float(stats.norm(0, 0.1).isf(1e-12))
    for r, want in ((0.5, (-q, q)), (0.8, (-0.8, 0.8))):
        atts = [Attribute(Normal(0.0, 1.0), r=0.6, name="a"), Attribute(Normal(0.5, 1.3), r=0.4, name="b"),
                Attribute(Normal(0.0, 0.1), r=r, name="c")]
        model = build_model(atts[0] & atts[1] & atts[2], math.inf)
        lo, hi = band_box(model, [1.0, -1.0, 0.0], 2, MARGIN_CELLS * 0.2)
        assert lo == pytest.approx(want[0], rel=1e-9) and hi == pytest.approx(want[1], rel=1e-9)
        assert band_box(model, [1.0, -1.0, 0.0], 0, MARGIN_CELLS * 0.2) == pytest.approx((-1.0, 3.0), rel=1e-12)


@pytest.mark.slow
def test_a_nearly_certain_third_attribute_gives_the_two_attribute_answer():
    """Normal(0, 0.1) with r = 0.5 (band mass 1 - 5.7e-7): every likelihood of the first two
    coordinates has the same posterior in three coordinates up to that factor, so the 3-D
    optimum is at most the 2-D witness end (about 22 s; before the quantile cut: an
    InfeasibleError)."""
    a, b = Attribute(Normal(0.0, 1.0), r=0.6, name="a"), Attribute(Normal(0.5, 1.3), r=0.4, name="b")
    c = Attribute(Normal(0.0, 0.1), r=0.5, name="c")
    three = epsilon_optimal(a & b & c, delta=0.1, t={"a": 1.0, "b": -1.0, "c": 0.0})
    two = epsilon_optimal(a & b, delta=0.1, t={"a": 1.0, "b": -1.0})
    assert three.method == "lp-cells" and three.rel_width <= 0.02
    assert three.epsilon <= two.epsilon_hi * (1 + 1e-5)
