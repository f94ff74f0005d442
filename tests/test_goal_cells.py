"""Tests of the cell relaxation of the worst posterior (garesearch.optimal._goal_cells; beyond the paper).

Routes written here, independent of the module:

- the translation lemma checked directly: prior averages of eps-Lipschitz (in log, under
  l_inf) likelihoods over translated equal cells, by tensor Gauss-Legendre quadrature on
  panels split at the likelihoods' axis-parallel kinks (error estimated by halving the
  panels), by closed forms of the tilted normal (mpmath, 30 digits), and the quantile
  coupling of its proof by scipy.stats.truncnorm; with negative controls (a bimodal prior,
  cells of different widths) showing that its hypotheses matter;
- an adversarial soundness check of the relaxation: feasible mechanisms (maxima of shifted
  pyramids over boxes, segments, half-lines and points; minima of inverted ones; the McShane
  extension of a profile on nodes) whose posteriors are computed by a two-dimensional
  quadrature of this file (cells with edges at the bands' and the mechanism's edges, each
  cell's exact prior mass at its conditional mean), itself checked against a one-dimensional
  layer-cake integral (scipy.integrate.quad).
"""

from __future__ import annotations

import itertools
import math
import zlib

import mpmath
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import minimize
from scipy.special import ndtr
from scipy.stats import truncnorm
from sweeps import sample

from garesearch.events import Attribute
from garesearch.optimal._goal_cells import CellGrid
from garesearch.optimal._goal_model import build_model
from garesearch.priors import Normal

MU = (0.0, 0.5)
SIGMA = (1.0, 1.3)
RADIUS = (0.6, 0.4)
INF = math.inf


# ------------------------------------------------------------------------------------------
# Oracle 1: averages of a likelihood over a cell (tensor Gauss-Legendre)
# ------------------------------------------------------------------------------------------
_GL_X, _GL_W = np.polynomial.legendre.leggauss(8)


def normal_pdf(x, mu, sigma):
    return np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))


def panel_nodes(a, b, kinks, panels):
    """Gauss-Legendre nodes and weights on [a, b], in about ``panels`` panels whose edges
    include the kinks inside."""
    cuts = np.unique(np.concatenate([[a, b], [k for k in kinks if a < k < b]]))
    xs, ws = [], []
    for lo, hi in itertools.pairwise(cuts):
        e = np.linspace(lo, hi, max(1, round(panels * (hi - lo) / (b - a))) + 1)
        half = ((e[1:] - e[:-1]) / 2)[:, None]
        xs.append((((e[:-1] + e[1:]) / 2)[:, None] + half * _GL_X).ravel())
        ws.append((half * _GL_W).ravel())
    return np.concatenate(xs), np.concatenate(ws)


def cell_log_averages(g, cell, densities, kinks, eps_list, panels):
    """log E[exp(eps g(X)) | X in cell] for each eps, X with density prod densities[c]."""
    x1, w1 = panel_nodes(*cell[0], kinks[0], panels)
    x2, w2 = panel_nodes(*cell[1], kinks[1], panels)
    w1, w2 = w1 * densities[0](x1), w2 * densities[1](x2)
    G = np.broadcast_to(g(x1[:, None], x2[None, :]), (x1.size, x2.size))
    top = float(G.max())
    norm = math.log(w1.sum() * w2.sum())
    return np.array([math.log(w1 @ np.exp(e * (G - top)) @ w2) + e * top - norm for e in eps_list])


def log_averages_with_error(g, cell, densities, kinks, eps_list, panels=32):
    fine = cell_log_averages(g, cell, densities, kinks, eps_list, panels)
    coarse = cell_log_averages(g, cell, densities, kinks, eps_list, panels // 2)
    return fine, np.abs(fine - coarse)


def linf_to(x1, x2, c):
    return np.maximum(np.abs(x1 - c[0]), np.abs(x2 - c[1]))


PRIOR_PDFS = (lambda x: normal_pdf(x, MU[0], SIGMA[0]), lambda x: normal_pdf(x, MU[1], SIGMA[1]))


# ------------------------------------------------------------------------------------------
# 1. The translation lemma
# ------------------------------------------------------------------------------------------
#: lower-left corners of the first cell: in both tails of each prior (log-slopes 4 to 4.4
#: per sigma), a corner of both tails, and the centre
LEMMA_CORNERS = {"x1 right tail": (4.0, -0.2), "x1 left tail": (-4.4, 0.8),
                 "x2 right tail": (0.3, 5.6), "x2 left tail": (-0.1, -5.0),
                 "both tails": (3.4, -4.3), "centre": (-0.1, 0.4)}
LEMMA_SIDES = (0.2, 0.3)  # unequal sides: the lemma is per coordinate
#: translations in cell sides, neighbours, longer ones and overlapping cells (0 < |v_c| < h_c)
LEMMA_SHIFTS = [(1, 0), (0, 1), (1, 1), (1, -1), (-2, 1), (0.3, 0), (0, -0.5)]
LEMMA_EPS = (0.5, 1.0, 3.0)


def lipschitz_logs(rng, centre):
    """Functions g, 1-Lipschitz under l_inf (so exp(eps g) is an eps-Lipschitz likelihood),
    with their axis-parallel kinks: linear ones, a pyramid and an inverted one, the maximum of
    shifted pyramids and the minimum of inverted ones (centres near the cell)."""
    c = np.asarray(centre) + rng.normal(0, 0.3, 2)
    peaks, heights = np.asarray(centre) + rng.normal(0, 0.4, (3, 2)), rng.normal(0, 0.2, 3)
    pits, depths = np.asarray(centre) + rng.normal(0, 0.4, (3, 2)), rng.normal(0, 0.2, 3)
    none = ([], [])
    return [
        ("-x1", lambda x1, x2: -x1 + 0 * x2, none),
        ("+x1", lambda x1, x2: x1 + 0 * x2, none),
        ("-x2", lambda x1, x2: 0 * x1 - x2, none),
        ("max(x1, x2)", np.maximum, none),
        ("pyramid", lambda x1, x2: -linf_to(x1, x2, c), ([c[0]], [c[1]])),
        ("inverted pyramid", lambda x1, x2: linf_to(x1, x2, c), ([c[0]], [c[1]])),
        ("max of pyramids",
         lambda x1, x2: np.max([s - linf_to(x1, x2, p) for p, s in zip(peaks, heights, strict=True)], axis=0),
         (list(peaks[:, 0]), list(peaks[:, 1]))),
        ("min of inverted pyramids",
         lambda x1, x2: np.min([s + linf_to(x1, x2, p) for p, s in zip(pits, depths, strict=True)], axis=0),
         (list(pits[:, 0]), list(pits[:, 1]))),
    ]


def test_translation_lemma_on_lipschitz_likelihoods():
    """Translation lemma by direct quadrature (no package code): for eight families of
    eps-Lipschitz likelihoods, cells deep in the priors' tails and at the centre, translations
    by one or two cells, diagonal ones and overlapping ones, and eps 0.5 to 3, the prior
    averages satisfy a_i <= e^{eps |v|_inf} a_j both ways, to within four times the
    quadrature error estimate (Gauss-Legendre, 32 panels of 8 nodes per axis against 16).
    Measured: the smallest relative slack, 1 - log(a_i / a_j) / (eps |v|), is 0.31 % (a linear
    likelihood on cells at 4 sigma; 0.33 % for a pyramid, 0.94 % for a minimum of inverted
    ones), the overlapping shift is as tight as the others, and the largest error estimate is
    1.3e-5 (in log)."""
    rng = np.random.default_rng(20240611)
    h = np.array(LEMMA_SIDES)
    tightest, largest_err, count = math.inf, 0.0, 0
    for corner in LEMMA_CORNERS.values():
        cell_i = tuple((corner[c], corner[c] + h[c]) for c in range(2))
        for _name, g, kinks in lipschitz_logs(rng, np.array(corner) + h / 2):
            la_i, err_i = log_averages_with_error(g, cell_i, PRIOR_PDFS, kinks, LEMMA_EPS)
            for shift in LEMMA_SHIFTS:
                v = np.array(shift) * h
                cell_j = tuple((corner[c] + v[c], corner[c] + v[c] + h[c]) for c in range(2))
                la_j, err_j = log_averages_with_error(g, cell_j, PRIOR_PDFS, kinks, LEMMA_EPS)
                factor = np.array(LEMMA_EPS) * np.max(np.abs(v))
                tol = 4 * (err_i + err_j) + 1e-12
                assert np.all(la_i - la_j <= factor + tol), (corner, shift, _name)
                assert np.all(la_j - la_i <= factor + tol), (corner, shift, _name)
                tightest = min(tightest, float(np.min(1 - np.abs(la_i - la_j) / factor)))
                largest_err = max(largest_err, float(np.max(err_i + err_j)))
                count += 1
    assert count == len(LEMMA_CORNERS) * 8 * len(LEMMA_SHIFTS)
    assert largest_err < 1e-4
    # not vacuous: somewhere the factor is attained to within 1 %
    assert 0 <= tightest < 0.01


def tilted_log_average(eps, lo, hi, mu, sigma):
    """log E[e^{eps X} | lo < X < hi], X ~ N(mu, sigma^2), in closed form (mpmath): the
    tilted normal N(mu + eps sigma^2, sigma^2) times e^{eps mu + eps^2 sigma^2 / 2}."""
    with mpmath.workdps(30):
        eps, lo, hi, mu, sigma = (mpmath.mpf(x) for x in (eps, lo, hi, mu, sigma))
        m = mu + eps * sigma**2

        def mass(centre):  # P(lo < N(centre, sigma^2) < hi), by the tail that keeps digits
            return mpmath.ncdf(-(lo - centre) / sigma) - mpmath.ncdf(-(hi - centre) / sigma)

        return float(eps * mu + eps**2 * sigma**2 / 2 + mpmath.log(mass(m)) - mpmath.log(mass(mu)))


@pytest.mark.parametrize("eps", [0.4, 1.0, 3.0])
def test_translation_lemma_is_nearly_attained(eps):
    """Sharpness, by the closed form of the tilted normal (mpmath, 30 digits): a linear
    likelihood e^{-eps x1} on the cells [4, 4.2] and [4.2, 4.4] of N(0, 1) (the second
    coordinate cancels) has log(a_i / a_j) within 0.5 % of eps * 0.2, and never above it; a
    pyramid far to the left of both cells gives the same ratio by Gauss-Legendre quadrature
    (there it is linear).  Measured slack: 0.31 % to 0.32 % of eps * h at eps 0.4, 1 and 3
    (2.6e-4, 6.4e-4, 1.9e-3 in log; the ratio a_i / a_j is 99.9 % of the factor or more)."""
    h = 0.2
    la_i = tilted_log_average(-eps, 4.0, 4.0 + h, 0.0, 1.0)
    la_j = tilted_log_average(-eps, 4.0 + h, 4.0 + 2 * h, 0.0, 1.0)
    slack = eps * h - (la_i - la_j)
    assert 0 < slack < 0.005 * eps * h  # measured: 0.31 % to 0.32 % of eps * h
    cells = [((4.0, 4.2), (-0.3, -0.1)), ((4.2, 4.4), (-0.3, -0.1))]
    far = (-1.0, -0.2)  # |x1 + 1| > |x2 + 0.2| on both cells: the pyramid is -(x1 + 1)

    def g(x1, x2):
        return -linf_to(x1, x2, far)

    a = [cell_log_averages(g, cell, PRIOR_PDFS, ([], [far[1]]), [eps], 16)[0] for cell in cells]
    assert a[0] - a[1] == pytest.approx(la_i - la_j, abs=1e-10)


@pytest.mark.parametrize("corner", [-5.0, -3.0, -0.2, 2.5, 4.8])
def test_quantile_coupling_moves_each_coordinate_by_at_most_the_shift(corner):
    """The proof's coupling, by scipy.stats.truncnorm: with X = Q_i(u), Y = Q_j(u) the
    quantiles of N(0, 1) conditioned on [a, a + h] and on [a + v, a + v + h], 0 <= Y - X <= v
    for every u (stochastic order both ways), for shifts below, at and above the side."""
    h = 0.2
    u = np.linspace(0.0, 1.0, 2001)
    x = truncnorm.ppf(u, corner, corner + h)
    for v in (0.05, h, 0.5, 1.0):
        y = truncnorm.ppf(u, corner + v, corner + v + h)
        assert np.all(y - x >= -1e-9)
        assert np.all(y - x <= v + 1e-9)
        # and the bound is nearly reached at one end (u = 0 or 1: the cells' edges)
        assert max(y[0] - x[0], y[-1] - x[-1]) == pytest.approx(v, abs=1e-9)


def test_lemma_fails_without_log_concavity_or_equal_cells():
    """Negative controls (same quadrature): (1) a bimodal prior for x1, 0.5 N(-0.4, 0.15^2) +
    0.5 N(0.4, 0.15^2), not log-concave: on the equal cells [-0.4, 0] and [0, 0.4] the mass sits
    at the outer ends, and e^{eps x1} has a_j / a_i = e^{1.4 eps |v|} roughly, beyond
    e^{eps |v|}; its quantile coupling moves points by up to 0.6 > |v| = 0.4; (2) cells of
    different widths with the same centre, [4.0, 4.2] and [3.7, 4.5] under N(0, 1): e^{-eps x1}
    has a larger average on the wide cell (its mass sits low), by e^{0.185}, beyond the
    factor e^0 = 1 of the centres' distance."""
    eps = 1.0

    def bimodal(x):
        return 0.5 * normal_pdf(x, -0.4, 0.15) + 0.5 * normal_pdf(x, 0.4, 0.15)

    dens = (bimodal, PRIOR_PDFS[1])

    def up(x1, x2):
        return x1 + 0 * x2

    la_i = cell_log_averages(up, ((-0.4, 0.0), (0.0, 0.3)), dens, ([], []), [eps], 32)[0]
    la_j = cell_log_averages(up, ((0.0, 0.4), (0.0, 0.3)), dens, ([], []), [eps], 32)[0]
    assert la_j - la_i > 1.3 * eps * 0.4

    # the coupling: quantiles of the bimodal prior on each cell, by bisection on its cdf
    def cdf(x):
        return 0.5 * ndtr((x + 0.4) / 0.15) + 0.5 * ndtr((x - 0.4) / 0.15)

    def quantiles(lo, hi, u):
        a, b = np.full(u.shape, lo), np.full(u.shape, hi)
        target = cdf(lo) + u * (cdf(hi) - cdf(lo))
        for _ in range(60):
            mid = (a + b) / 2
            below = cdf(mid) < target
            a, b = np.where(below, mid, a), np.where(below, b, mid)
        return (a + b) / 2

    u = np.linspace(0.0, 1.0, 1001)
    moved = quantiles(0.0, 0.4, u) - quantiles(-0.4, 0.0, u)
    assert moved.max() > 0.55  # (0.598) > |v| = 0.4

    # different widths, same centre
    def down(x1, x2):
        return -x1 + 0 * x2

    narrow = cell_log_averages(down, ((4.0, 4.2), (0.0, 0.3)), PRIOR_PDFS, ([], []), [eps], 32)[0]
    wide = cell_log_averages(down, ((3.7, 4.5), (0.0, 0.3)), PRIOR_PDFS, ([], []), [eps], 32)[0]
    assert wide - narrow > 0.15 * eps


# ------------------------------------------------------------------------------------------
# Oracle 2: posteriors of X' under a mechanism (two-dimensional quadrature)
# ------------------------------------------------------------------------------------------
def axis_cells(c, t, n, extra=()):
    """Cells of coordinate ``c`` over mu +- 9 sigma, about ``n`` of them, with edges at the
    band's ends and at ``extra``: each cell's conditional mean (the node), exact prior mass
    (from the tail that keeps the digits) and whether it lies in the band."""
    mu, sigma, r = MU[c], SIGMA[c], RADIUS[c]
    lo, hi = mu - 9 * sigma, mu + 9 * sigma
    step = (hi - lo) / n
    cuts = sorted({lo, hi, *[float(v) for v in (t - r, t + r, *extra) if lo < v < hi]})
    parts = [np.linspace(a, b, max(1, math.ceil((b - a) / step)) + 1)[:-1]
             for a, b in itertools.pairwise(cuts)]
    e = np.concatenate([*parts, [hi]])
    z = (e - mu) / sigma
    mass = np.where(z[1:] <= 0, ndtr(z[1:]) - ndtr(z[:-1]), ndtr(-z[:-1]) - ndtr(-z[1:]))
    phi = np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    # (a cell between two cuts closer than rounding has no mass: its node is its midpoint)
    node = np.where(mass > 0, mu + sigma * (phi[:-1] - phi[1:]) / np.where(mass > 0, mass, 1.0),
                    (e[:-1] + e[1:]) / 2)
    inside = np.abs((e[:-1] + e[1:]) / 2 - t) <= r
    return node, mass, inside


class Mechanism:
    """L(x) = exp(eps g(x)) with g = max_k (s_k - d_inf(x, B_k)) (``form`` "max": shifted
    pyramids over boxes, points, segments or half-lines B_k = [lo1, hi1] x [lo2, hi2]) or
    g = min_k (s_k + d_inf(x, B_k)) ("min": inverted ones).  A maximum or minimum of
    1-Lipschitz functions is 1-Lipschitz under l_inf, so every such L is feasible."""

    def __init__(self, boxes, form):
        self.boxes = np.array(boxes, float).reshape(-1, 5)
        self.form = form

    def edges(self, c):
        v = self.boxes[:, 2 * c: 2 * c + 2].ravel()
        return v[np.isfinite(v)]

    def g(self, x1, x2):
        out = None
        for lo1, hi1, lo2, hi2, s in self.boxes:
            d1 = np.maximum(np.maximum(lo1 - x1, x1 - hi1), 0.0)
            d2 = np.maximum(np.maximum(lo2 - x2, x2 - hi2), 0.0)
            d = np.maximum(d1[:, None], d2[None, :])
            if out is None:
                out = s - d if self.form == "max" else s + d
            elif self.form == "max":
                np.maximum(out, s - d, out=out)
            else:
                np.minimum(out, s + d, out=out)
        return out


def posterior(mech: Mechanism, kind, t, eps, n):
    """Posterior of X' (the OR cross or the AND box at ``t``) under ``mech`` at ``eps``:
    sum over the cells of ``axis_cells`` of L(node) times the cell's mass."""
    x1, m1, in1 = axis_cells(0, t[0], n, mech.edges(0))
    x2, m2, in2 = axis_cells(1, t[1], n, mech.edges(1))
    lg = eps * mech.g(x1, x2)
    w = np.exp(lg - lg.max()) * np.outer(m1, m2)
    goal = (in1[:, None] | in2[None, :]) if kind == "or" else (in1[:, None] & in2[None, :])
    return float(w[goal].sum() / w.sum())


def posterior_with_error(mech, kind, t, eps, n=800):
    fine = posterior(mech, kind, t, eps, n)
    return fine, abs(fine - posterior(mech, kind, t, eps, n // 2))


def layer_cake_posterior(box, sign, kind, t, eps):
    """Posterior under L = exp(sign eps d_inf(x, B)), one box B, by a one-dimensional
    integral over the level s of d: L = int_d^inf eps e^{-eps s} ds (sign -1) or
    1 + int_0^d eps e^{eps s} ds (sign +1), so the masses needed are those of S cap B_s or of
    S minus B_s (B grown by s), sums of products of normal masses (written without
    differences of nearly equal numbers, as e^{eps s} multiplies them)."""
    lo, hi = (box[0], box[2]), (box[1], box[3])
    bands = [(t[c] - RADIUS[c], t[c] + RADIUS[c]) for c in range(2)]

    def mass(c, a, b):
        if b <= a:
            return 0.0
        a, b = (a - MU[c]) / SIGMA[c], (b - MU[c]) / SIGMA[c]
        return float(ndtr(b) - ndtr(a)) if b <= 0 else float(ndtr(-a) - ndtr(-b))

    p = [mass(c, *bands[c]) for c in range(2)]

    def pieces(s):  # per coordinate: F(I), F(outside I), F(band cap I), F(band minus I)
        out = []
        for c in range(2):
            a, b = lo[c] - s, hi[c] + s
            (ba, bb), m = bands[c], mass(c, a, b)
            o = mass(c, -INF, a) + mass(c, b, INF)
            q = mass(c, max(a, ba), min(b, bb))
            bo = mass(c, ba, min(bb, a)) + mass(c, max(ba, b), bb)
            out.append((m, o, q, bo))
        return out

    def inside(s):  # F(S cap B_s), F(B_s)
        (m1, _, q1, _), (m2, _, q2, _) = pieces(s)
        if kind == "and":
            return q1 * q2, m1 * m2
        return q1 * m2 + m1 * q2 - q1 * q2, m1 * m2

    def outside(s):  # F(S minus B_s), F(plane minus B_s)
        (m1, o1, q1, bo1), (_, o2, _, bo2) = pieces(s)
        total = o1 + m1 * o2
        if kind == "and":
            return bo1 * p[1] + q1 * bo2, total
        return bo1 + (o1 - bo1) * p[1] + q1 * o2 + (m1 - q1) * bo2, total

    # beyond s = top, B_s holds all but 1e-80 of the prior: F(S cap B_s) = F(S)
    top = 25.0
    kinks = [v for c in range(2) for e in bands[c] for v in (lo[c] - e, e - hi[c]) if 0 < v < top]
    opts = {"epsabs": 1e-16, "epsrel": 1e-12, "limit": 400, "points": sorted(kinks) or None}
    goal = p[0] * p[1] if kind == "and" else p[0] + p[1] - p[0] * p[1]
    if sign < 0:
        far = math.exp(-eps * top)
        num = quad(lambda s: eps * math.exp(-eps * s) * inside(s)[0], 0, top, **opts)[0] + far * goal
        den = quad(lambda s: eps * math.exp(-eps * s) * inside(s)[1], 0, top, **opts)[0] + far
    else:
        num = goal + quad(lambda s: eps * math.exp(eps * s) * outside(s)[0], 0, top, **opts)[0]
        den = 1.0 + quad(lambda s: eps * math.exp(eps * s) * outside(s)[1], 0, top, **opts)[0]
    return num / den


@pytest.mark.parametrize("kind, t", [("or", (1.0, -1.0)), ("and", (1.0, -1.0)), ("or", (0.0, 0.5))])
def test_quadrature_oracle_agrees_with_the_layer_cake(kind, t):
    """The two-dimensional oracle against a one-dimensional route (scipy.integrate.quad over
    the level of the distance): a pyramid over a segment, over a box and over a half-line,
    and inverted ones, at eps 0.4, 1 and 3; agreement to 2e-6 at 800 cells per axis."""
    boxes = [(1.3, 1.3, -1.1, 0.7), (0.2, 1.1, -1.5, -0.3), (-INF, 0.5, -1.2, -1.2)]
    for box in boxes:
        for sign in (-1, 1):
            for eps in (0.4, 1.0, 3.0):
                mech = Mechanism([*box, 0.0], "max" if sign < 0 else "min")
                got, err = posterior_with_error(mech, kind, t, eps)
                want = layer_cake_posterior(box, sign, kind, t, eps)
                # measured: within 1e-6 (eps 0.4) and 6e-6 (eps 3) of the layer cake, about
                # a third of the error estimate (800 against 400 cells per axis) or less
                assert abs(got - want) <= max(3 * err, 3e-6 if eps < 1 else 1e-5), (box, sign, eps)
                assert err < (1e-5 if eps < 1 else 2e-4)


# ------------------------------------------------------------------------------------------
# 2. Adversarial soundness of the relaxation
# ------------------------------------------------------------------------------------------
#: Near-optimal mechanisms, rows (lo1, hi1, lo2, hi2, s) of Mechanism ("max" form for the
#: upper side, "min" for the lower one): arms of the cross (half-lines along each band, each at
#: its own height) for the OR, a segment inside the box for the AND.  Found offline: the
#: package's ridge witnesses as starting points, then Nelder-Mead (1500 evaluations) on this
#: file's quadrature; nothing here depends on the package at run time.
RIDGES = {
    ("or", (1.0, -1.0), 0.4, "upper"): [(1.3421, 1.3421, -1.0133, INF, -0.3961), (-INF, 0.3576, -1.1507, -1.1507, -1.4895), (1.7382, INF, -1.1074, -1.1074, 0.0), (1.5238, 1.5238, -INF, -1.2801, -0.2143)],
    ("or", (1.0, -1.0), 0.4, "lower"): [(1.4416, 1.4416, -2.3899, INF, 0.587), (-INF, 0.9559, -1.2316, -1.2316, 1.1755), (2.0287, INF, -1.1442, -1.1442, 0.0), (1.3595, 1.3595, -INF, -2.3314, 0.0757)],
    ("or", (1.0, -1.0), 1.0, "upper"): [(1.296, 1.296, -0.6109, INF, -0.4113), (1.7073, INF, -1.1292, -1.1292, 0.0), (-INF, -0.1902, -1.1207, -1.1207, -1.8516), (1.3326, 1.3326, -INF, -1.6325, -0.3747)],
    ("or", (1.0, -1.0), 1.0, "lower"): [(1.48, 1.48, -2.3529, INF, 0.611), (-INF, 2.1608, -1.2977, -1.2977, 1.059), (2.0687, INF, -1.5924, -1.0575, 0.0223), (1.2692, 1.4492, -INF, -2.3567, 0.0)],
    ("or", (0.0, 0.5), 0.4, "upper"): [(-0.0001, -0.0001, -INF, INF, 0.0), (0.943, INF, 0.4998, 0.5002, -0.9392), (-INF, -0.99, 0.4983, 0.5017, -0.9449)],
    ("or", (0.0, 0.5), 0.4, "lower"): [(0.0, 0.0, -INF, INF, 0.0), (-INF, -0.7727, 0.4996, 0.4997, 0.6814), (0.7392, INF, 0.4997, 0.4998, 0.681)],
    ("or", (0.0, 0.5), 1.0, "upper"): [(-0.0024, -0.0024, -INF, INF, 0.0), (-INF, -1.2777, 0.498, 0.5009, -1.1837), (1.2953, INF, 0.4998, 0.5008, -1.2046)],
    ("or", (0.0, 0.5), 1.0, "lower"): [(0.0001, 0.0001, -INF, INF, 0.0), (0.6403, INF, 0.5, 0.5, 0.5481), (-INF, -0.6403, 0.5, 0.5, 0.5483)],
    ("and", (1.0, -1.0), 0.4, "upper"): [(1.0339, 1.42, -1.2758, -1.2758, 0.0)],
    ("and", (1.0, -1.0), 0.4, "lower"): [(0.9711, 1.4754, -1.3465, -1.3465, 0.0)],
    ("and", (1.0, -1.0), 1.0, "upper"): [(1.0407, 1.3755, -1.228, -1.228, 0.0)],
    ("and", (1.0, -1.0), 1.0, "lower"): [(0.8638, 1.51, -1.3826, -1.3826, 0.0)],
    ("or", (1.0, -1.0), 3.0, "upper"): [(1.165, 1.165, -1.1253, INF, -0.0544), (1.2194, 1.2194, -INF, -1.1648, 0.0), (1.4445, INF, -1.0578, -1.0578, -0.2299), (-INF, -1.2198, -1.0096, -1.0096, -2.466)],
    ("or", (1.0, -1.0), 3.0, "lower"): [(1.3382, 1.3382, -6.4621, -3.9293, 1.4802), (2.9674, 2.975, -1.5583, -1.5583, 1.4419), (2.1348, 2.1348, 0.7436, INF, 2.2746), (-INF, -0.3699, -2.5109, -2.5109, 2.8008), (0.5014, 0.5014, -4.6266, -4.6266, 0.0)],
    ("or", (0.0, 0.5), 3.0, "upper"): [(0.0006, 0.0006, -INF, INF, 0.0), (2.445, INF, 0.4921, 0.5146, -2.2406), (-INF, -2.4, 0.5198, 0.5221, -2.2728)],
    ("or", (0.0, 0.5), 3.0, "lower"): [(0.004, 0.004, -INF, INF, 0.0), (0.375, INF, 0.4997, 0.5002, 0.2786), (-INF, -0.3548, 0.4996, 0.5053, 0.2871)],
    ("and", (1.0, -1.0), 3.0, "upper"): [(1.0073, 1.2687, -1.1232, -1.1232, 0.0)],
    ("and", (1.0, -1.0), 3.0, "lower"): [(0.4903, 1.5396, -1.4163, -1.4163, 0.0)],
}


def goal_of(kind):
    a = Attribute(Normal(MU[0], SIGMA[0]), r=RADIUS[0], name="a")
    b = Attribute(Normal(MU[1], SIGMA[1]), r=RADIUS[1], name="b")
    return a | b if kind == "or" else a & b


_GRIDS: dict = {}


def relaxation(kind, t, eps, side, h=0.2):
    """The module under test: certified bound and log cell averages (grids are cached)."""
    key = (kind, t, h)
    if key not in _GRIDS:
        _GRIDS[key] = CellGrid(build_model(goal_of(kind), INF), list(t), h)
    grid = _GRIDS[key]
    bound, loga = grid.solve(eps, side == "upper")
    return grid, bound, loga


def profile_mechanism(grid, loga, eps, side):
    """The McShane extension of the LP's cell profile: g = max_i (s_i - |x - c_i|) (upper;
    min_i (s_i + |x - c_i|) lower) over the cell centres c_i, s_i = log a_i / eps, keeping only
    the centres whose pyramid no other dominates (the rest do not change g).  Feasible
    whatever the profile is, so whatever the LP got wrong."""
    centres = [(e[:-1] + e[1:]) / 2 for e in grid.edges]
    pts = np.stack(np.meshgrid(*centres, indexing="ij"), axis=-1).reshape(-1, 2)
    s = loga / eps
    ok = np.isfinite(s)
    pts, s = pts[ok], s[ok]
    sign = 1.0 if side == "upper" else -1.0
    keep: list = []
    for i in np.argsort(-sign * s):
        if keep:
            d = np.max(np.abs(pts[keep] - pts[i]), axis=1)
            if np.any(sign * s[keep] - d >= sign * s[i] - 1e-9):
                continue
        keep.append(int(i))
    rows = [(p[0], p[0], p[1], p[1], v) for p, v in zip(pts[keep], s[keep] - s[keep].max(), strict=True)]
    return Mechanism(rows, "max" if side == "upper" else "min")


def perturbed(mech: Mechanism, rng, scale):
    """The same kind of mechanism with every finite box end and height moved at random (a
    degenerate side moves as one value)."""
    rows = mech.boxes.copy()
    for row in rows:
        for c in range(2):
            lo, hi = row[2 * c], row[2 * c + 1]
            if lo == hi:
                row[2 * c] = row[2 * c + 1] = lo + rng.normal(0, scale)
            else:
                if math.isfinite(lo):
                    row[2 * c] = lo + rng.normal(0, scale)
                if math.isfinite(hi):
                    row[2 * c + 1] = max(row[2 * c], hi + rng.normal(0, scale))
        row[4] += rng.normal(0, scale)
    return Mechanism(rows, mech.form)


def random_pyramids(rng, t, side, k=5):
    """k shifted pyramids (upper) or inverted ones (lower) at random points near the true
    values, at random heights: the family max_k exp(eps (s_k - |x - c_k|))."""
    rows = [(c1, c1, c2, c2, s) for c1, c2, s in
            zip(t[0] + rng.normal(0, 1.0, k), t[1] + rng.normal(0, 1.3, k), rng.normal(0, 0.7, k), strict=True)]
    return Mechanism(rows, "max" if side == "upper" else "min")


def random_profile(rng, t, side, nodes=7):
    """The McShane extension of a random profile on a coarse square of nodes around the true
    values (heights falling off with the distance from them, plus noise)."""
    z1 = t[0] + np.linspace(-2.0, 2.0, nodes) * SIGMA[0]
    z2 = t[1] + np.linspace(-2.0, 2.0, nodes) * SIGMA[1]
    rows = []
    for a in z1:
        for b in z2:
            d = max(abs(a - t[0]), abs(b - t[1]))
            s = (-d if side == "upper" else d) * rng.uniform(0.3, 1.0) + rng.normal(0, 0.3)
            rows.append((a, a, b, b, s))
    return Mechanism(rows, "max" if side == "upper" else "min")


def adversarial_check(kind, t, eps, side, seed, variants=6):
    """Candidates: the stored ridge, the McShane extension of the LP's profile, random
    perturbations of both, random pyramids and McShane extensions of random profiles.  Every
    candidate's posterior (this file's quadrature) must lie on the safe side of the
    relaxation's bound; returns the bound and the most extreme posterior found (accurate,
    800 cells per axis)."""
    upper = side == "upper"
    grid, bound, loga = relaxation(kind, t, eps, side)
    rng = np.random.default_rng(seed)
    ridge = Mechanism(RIDGES[(kind, t, eps, side)], "max" if upper else "min")
    profile = profile_mechanism(grid, loga, eps, side)
    screened = [ridge, profile]
    screened += [perturbed(ridge, rng, 0.05 / (1 + eps)) for _ in range(variants)]
    screened += [perturbed(profile, rng, 0.02 / (1 + eps)) for _ in range(variants // 2)]
    screened += [random_pyramids(rng, t, side) for _ in range(variants)]
    screened += [random_profile(rng, t, side) for _ in range(variants // 3)]

    def beyond(p, tol):  # how far past the bound (positive: unsound)
        return (p - bound if upper else bound - p) - tol

    best = None
    for k, mech in enumerate(screened):
        # 300 cells per axis are within 0.02 % of the truth (eps <= 1): only candidates near
        # the bound are redone accurately (the first two always are)
        if k >= 2 and beyond(posterior(mech, kind, t, eps, 300), 0) < -max(2e-3 * bound, 1e-4):
            continue
        p, err = posterior_with_error(mech, kind, t, eps)
        assert beyond(p, 3 * err + 1e-5 * bound) <= 0, (
            f"a mechanism beats the certified bound: {p} against {bound} ({kind} {t} eps={eps} "
            f"{side}); boxes={mech.boxes.tolist()}, form={mech.form}")
        if best is None or beyond(p, 0) > beyond(best, 0):
            best = p
    return bound, best


def searched_mechanism(kind, t, eps, side, fev=500, n=300):
    """Nelder-Mead over this file's quadrature from a start that knows nothing of the
    package: the four arms of the cross's centre lines (OR; half-lines from t, all at
    height 0) or a segment at the centre of the box (AND); free: every finite end of every
    arm or segment and the heights but the first."""
    t1, t2 = t
    if kind == "or":
        rows = np.array([(t1, t1, t2, INF, 0.0), (t1, t1, -INF, t2, 0.0),
                         (-INF, t1, t2, t2, 0.0), (t1, INF, t2, t2, 0.0)])
    else:
        rows = np.array([(t1 - 0.3, t1 + 0.3, t2, t2, 0.0)])
    form = "max" if side == "upper" else "min"
    slots = []  # (row, column, column moved with it or None)
    for k, row in enumerate(rows):
        for c in (0, 2):
            if row[c] == row[c + 1]:
                slots.append((k, c, c + 1))
            else:
                slots += [(k, j, None) for j in (c, c + 1) if math.isfinite(row[j])]
    z0 = np.array([rows[k, j] for k, j, _ in slots] + list(rows[1:, 4]))

    def make(z):
        r = rows.copy()
        for (k, j, also), v in zip(slots, z, strict=False):
            r[k, j] = v
            if also is not None:
                r[k, also] = v
        r[1:, 4] = z[len(slots):]
        for c in (0, 2):
            r[:, c], r[:, c + 1] = np.minimum(r[:, c], r[:, c + 1]), np.maximum(r[:, c], r[:, c + 1])
        return Mechanism(r, form)

    sign = -1.0 if side == "upper" else 1.0
    simplex = [z0] + [z0 + 0.2 * row for row in np.eye(z0.size)]
    res = minimize(lambda z: sign * posterior(make(z), kind, t, eps, n), z0, method="Nelder-Mead",
                   options={"maxfev": fev, "initial_simplex": simplex, "xatol": 1e-5, "fatol": 1e-10,
                            "adaptive": True})
    return make(res.x)


#: (kind, t, eps, side) -> largest relative gap allowed between the bound and the best
#: mechanism found (the test is only as sharp as that gap).  Measured (h = 0.2; bound, best
#: posterior found, relative gap):
#:   OR t=(1,-1)   eps 0.4  U <= 0.480807  0.479887  0.19 %   V >= 0.279381  0.279976  0.21 %
#:                 eps 1    U <= 0.619390  0.616695  0.44 %   V >= 0.148849  0.149930  0.73 %
#:                 eps 3    U <= 0.883050  0.879254  0.43 %   V >= 0.003345  0.003484  4.2 %
#:   OR t=(0,0.5)  eps 0.4  U <= 0.651548  0.651319  0.035 %  V >= 0.510220  0.510505  0.056 %
#:                 eps 1    U <= 0.738729  0.738276  0.061 %  V >= 0.391530  0.392314  0.20 %
#:                 eps 3    U <= 0.911127  0.910620  0.056 %  V >= 0.065177  0.066534  2.1 %
#:   AND t=(1,-1)  eps 0.4  U <= 0.068633  0.068365  0.39 %   V >= 0.016761  0.016834  0.44 %
#:                 eps 1    U <= 0.138811  0.137816  0.72 %   V >= 0.003530  0.003561  0.86 %
#:                 eps 3    U <= 0.462464  0.453715  1.9 %   V >= 2.5213e-7  2.8831e-7  14 %
#: (on the finer grid h = 0.1 the OR at t=(1,-1), eps 0.4, has U <= 0.480210: 0.07 % above the
#: best mechanism; see the slow test below).
ADVERSARIAL_CASES = [
    (("or", (1.0, -1.0), 0.4, "upper"), 0.005),
    (("or", (1.0, -1.0), 0.4, "lower"), 0.005),
    (("or", (1.0, -1.0), 1.0, "upper"), 0.01),
    (("or", (1.0, -1.0), 1.0, "lower"), 0.01),
    (("or", (1.0, -1.0), 3.0, "upper"), 0.01),
    (("or", (1.0, -1.0), 3.0, "lower"), 0.06),
    (("or", (0.0, 0.5), 0.4, "upper"), 0.002),
    (("or", (0.0, 0.5), 0.4, "lower"), 0.002),
    (("or", (0.0, 0.5), 1.0, "upper"), 0.002),
    (("or", (0.0, 0.5), 1.0, "lower"), 0.005),
    (("or", (0.0, 0.5), 3.0, "upper"), 0.002),
    (("or", (0.0, 0.5), 3.0, "lower"), 0.03),
    (("and", (1.0, -1.0), 0.4, "upper"), 0.01),
    (("and", (1.0, -1.0), 0.4, "lower"), 0.01),
    (("and", (1.0, -1.0), 1.0, "upper"), 0.015),
    (("and", (1.0, -1.0), 1.0, "lower"), 0.015),
    (("and", (1.0, -1.0), 3.0, "upper"), 0.03),
    (("and", (1.0, -1.0), 3.0, "lower"), 0.2),
]
#: eps 3 only for the OR at t=(1,-1) and the AND's lower side outside the slow run (the time
#: budget).  The AND's lower side at eps 3 is where the prior outside the box of cells counts:
#: without its tail terms the relaxation's V would be 4.06e-7, above a mechanism's 2.88e-7
#: (elsewhere they move the bound by 1e-5 (relative) or less, below every gap here).
_SLOW = {c for c, _ in ADVERSARIAL_CASES
         if c[2] == 3.0 and c[:2] != ("or", (1.0, -1.0)) and c != ("and", (1.0, -1.0), 3.0, "lower")}
#: make test runs three cases spread over the others (the OR's upper side at t=(1,-1), its lower
#: side at t=(0,0.5), and the AND's lower side at eps 3, the tail terms' case; the AND's upper
#: side is certified by quadrature in test_goal_optimal), make test-full every one
_SAMPLED = set(sample([c for c, _ in ADVERSARIAL_CASES if c not in _SLOW], 3))
assert ("and", (1.0, -1.0), 3.0, "lower") in _SAMPLED


def _case_id(c):
    return f"{c[0]}-{c[1][0]:g},{c[1][1]:g}-{c[2]:g}-{c[3]}"


@pytest.mark.parametrize("case, gap", [
    pytest.param(c, g, id=_case_id(c), marks=[] if c in _SAMPLED else [pytest.mark.slow])
    for c, g in ADVERSARIAL_CASES])
def test_no_mechanism_beats_the_relaxation(case, gap):
    """Soundness against searched mechanisms, posteriors by this file's quadrature (checked
    above against the layer cake): the stored near-optimal ridge, the McShane extension of the
    LP's own cell profile (feasible whatever the LP did), random perturbations of both, random
    pyramids and McShane extensions of random profiles; none may pass the certified bound
    (upper side: above U, lower side: below V) by more than three times the quadrature error
    estimate.  Not vacuous: the best one comes within ``gap`` (relative) of the bound."""
    kind, t, eps, side = case
    bound, best = adversarial_check(kind, t, eps, side, seed=zlib.crc32(repr(case).encode()))
    rel = (bound - best) / bound if side == "upper" else (best - bound) / bound
    assert 0 <= rel < gap


_SEARCHED = [(("or", (1.0, -1.0), 0.4, "upper"), 0.004), (("or", (1.0, -1.0), 0.4, "lower"), 0.005),
             (("and", (1.0, -1.0), 1.0, "upper"), 0.01), (("or", (1.0, -1.0), 3.0, "lower"), 0.06)]


@pytest.mark.parametrize("case, gap", sample(_SEARCHED, 2), ids=[_case_id(c) for c, _ in sample(_SEARCHED, 2)])
def test_no_searched_mechanism_beats_the_relaxation(case, gap):
    """Soundness against a search that uses nothing of the package (Nelder-Mead from the
    cross's centre lines or the box's centre, 500 posteriors on 300 cells per axis, then
    checked on 800): below U / above V by the quadrature's error.  Measured: OR t=(1,-1)
    eps 0.4 reaches 0.479776 (U <= 0.480807) and 0.280127 (V >= 0.279381); the AND at eps 1
    0.137815 (U <= 0.138811); the OR's lower side at eps 3 0.003483 (V >= 0.003345)."""
    kind, t, eps, side = case
    _, bound, _ = relaxation(kind, t, eps, side)
    mech = searched_mechanism(kind, t, eps, side)
    p, err = posterior_with_error(mech, kind, t, eps)
    rel = (bound - p) / bound if side == "upper" else (p - bound) / bound
    assert rel >= -(3 * err + 1e-5 * bound) / bound, (p, bound, mech.boxes.tolist())
    assert rel < gap


_FINER = [("or", (1.0, -1.0), 0.4, "upper"), ("or", (1.0, -1.0), 0.4, "lower"), ("and", (1.0, -1.0), 1.0, "upper")]


@pytest.mark.slow
@pytest.mark.parametrize("case", _FINER, ids=[_case_id(c) for c in _FINER])
def test_no_mechanism_beats_the_relaxation_on_a_finer_grid(case):
    """As above on cells of side 0.1 (a bound about 3 times closer to the optimum): the
    stored ridge and the McShane extension of this grid's profile stay on the safe side, and
    the ridge comes within 0.3 %.  Measured: OR U <= 0.480210 against 0.479887 (0.07 %),
    V >= 0.279791 against 0.279976 (0.07 %); AND U <= 0.138134 against 0.137816 (0.23 %)."""
    kind, t, eps, side = case
    grid, bound, loga = relaxation(kind, t, eps, side, h=0.1)
    upper = side == "upper"
    ridge = Mechanism(RIDGES[case], "max" if upper else "min")
    for mech in (ridge, profile_mechanism(grid, loga, eps, side)):
        p, err = posterior_with_error(mech, kind, t, eps, n=1200)
        tol = 3 * err + 1e-5 * bound
        assert (p <= bound + tol) if upper else (p >= bound - tol)
        if mech is ridge:
            assert abs(p - bound) < 0.003 * bound


def test_ball_fractions_enclose_quadrature():
    """The enclosure of a cell's prior mass fraction in an l_2 ball (the cells an l_2 ball
    cuts) contains the value by scipy's quad over the chord (independent), and is narrow."""
    from scipy.stats import norm

    from garesearch.optimal._goal_cellaxes import ball_fractions
    from garesearch.priors import Normal

    t, r = (0.3, 0.2), 0.8
    lo = np.array([[0.7, 0.3], [-0.5, -0.4], [0.9, 0.6]])
    hi = lo + np.array([0.25, 0.2])
    m_lo, m_hi = ball_fractions([Normal(0, 1), Normal(0.5, 1.3)], t, r, 2.0, lo, hi)
    for k in range(3):
        def f(x, k=k):
            w = math.sqrt(max(r * r - (x - t[0]) ** 2, 0.0))
            a, b = max(lo[k, 1], t[1] - w), min(hi[k, 1], t[1] + w)
            return norm.pdf(x) * max(0.0, norm.cdf(b, 0.5, 1.3) - norm.cdf(a, 0.5, 1.3))
        exact = quad(f, lo[k, 0], hi[k, 0], epsabs=1e-13, epsrel=1e-12, limit=200)[0] / (
            (norm.cdf(hi[k, 0]) - norm.cdf(lo[k, 0])) * (norm.cdf(hi[k, 1], 0.5, 1.3) - norm.cdf(lo[k, 1], 0.5, 1.3)))
        assert m_lo[k] <= exact <= m_hi[k]
        assert m_hi[k] - m_lo[k] < 0.06
    assert 0 < m_hi[0] - m_lo[0]  # (a cut cell)


def test_l2_grid_bounds_the_l2_stencil_and_cut_cells():
    """CellGrid on an l_2 ball: every constrained translation is given at least its l_2
    length (computed here from the cell sides), the cells the ball cuts get share bounds
    that contain their mass fraction, and the LP bounds at one epsilon bracket the value of
    the mechanism L = 1 (the prior's own posterior of the ball, by quad)."""
    from scipy.stats import norm

    from garesearch.goals import Coordinates
    from garesearch.optimal._goal_cells import CellGrid
    from garesearch.optimal._goal_model import build_model
    from garesearch.priors import Normal

    model = build_model(Coordinates([Normal(0, 1), Normal(0.5, 1.3)], r=0.8, norm=2, name="ball"), 2.0)
    grid = CellGrid(model, [0.3, 0.2], 0.4)
    own = np.hypot(grid.offsets[:, 0] * grid.steps[0], grid.offsets[:, 1] * grid.steps[1])
    assert np.all(grid.off_len >= own * (1 - 1e-12))
    assert len(grid.offsets) == 24  # (the primitive offsets up to 4 cells, one of each pair)
    up, lo = grid.goal_coefficients(0.5, True), grid.goal_coefficients(0.5, False)
    assert np.all(lo <= grid.frac[0] + 1e-15) and np.all(grid.frac[1] <= up + 1e-15)
    # the constant mechanism is feasible: its posterior of the ball lies within the bounds
    p = quad(lambda x: norm.pdf(x, 0.0, 1.0) * (norm.cdf(0.2 + math.sqrt(max(0.64 - (x - 0.3) ** 2, 0)), 0.5, 1.3)
                                               - norm.cdf(0.2 - math.sqrt(max(0.64 - (x - 0.3) ** 2, 0)), 0.5, 1.3)),
             -0.5, 1.1, epsabs=1e-13, limit=200)[0]
    b_up, b_lo = grid.solve(0.5, True)[0], grid.solve(0.5, False)[0]
    assert b_lo <= p <= b_up


def test_pyramid_masses_refuse_a_ball():
    """The shifted pyramids' goal masses are products of one-coordinate bands; a ball of two
    coordinates is not one, and is refused rather than measured as the box of one coordinate."""
    from garesearch.events import Coordinates
    from garesearch.optimal._goal_pyramid import PyramidWitness

    ball = Coordinates([Normal(0, 1), Normal(0.5, 1.3)], r=0.8, norm=2, name="ball")
    model = build_model(ball, 2.0)
    witness = PyramidWitness(model, [0.3, 0.2], [0.3, 0.2], [0.3, 0.2], True)
    with pytest.raises(ValueError, match="box goal sets"):
        witness.posterior(0.5, levels=11)


def _laplace_ramp_posterior(eps: float, lo: float, hi: float, n: float = 1e30) -> float:
    """Posterior of ``x_1`` in ``[lo, hi]`` (0 < lo) under the likelihood ``min(e^{k x_1}, n)``,
    ``k = 0.999 eps`` (eps-DP under any l_p distance), for a Laplace(0, 1) prior, in closed form:
    for eps above the tail's rate 1 the likelihood's mass runs out along the tail, and the
    posterior of a fixed band falls towards 0 as ``n`` grows."""
    k = 0.999 * eps
    xs = math.log(n) / k
    total = 1 / (2 * (k + 1)) + math.expm1((k - 1) * xs) / (2 * (k - 1)) + n * math.exp(-xs) / 2
    inside = (math.exp((k - 1) * hi) - math.exp((k - 1) * lo)) / (2 * (k - 1))
    return inside / total


def test_a_diverging_tail_gives_the_trivial_bound():
    """Epsilon 1.5 above a Laplace prior's tail rate: the tilted mass beyond the cells is
    infinite, and no finite bound on the smallest posterior holds (the ramp likelihood above
    takes it to about 1e-11).  The relaxation's certified lower bound must stay below that
    mechanism's posterior (when the diverging region is dropped the bound is 3.1e-5 on these
    800 cells, 3.5e-5 on 3,200, above the ramp's 8.9e-12); below the rate (eps = 0.9) the
    bound is finite and still below the ramp's posterior."""
    from scipy import stats as st

    from garesearch.optimal._goal_cells import cell_grid
    from garesearch.priors import Continuous

    goal = Attribute(Continuous(st.laplace()), r=0.6, name="a") & Attribute(Normal(0.5, 1.3), r=0.4, name="b")
    grid = cell_grid(build_model(goal, math.inf), [1.0, -1.0], 800)
    pb = float(ndtr((-0.6 - 0.5) / 1.3) - ndtr((-1.4 - 0.5) / 1.3))
    bounds = {}
    for eps in (1.5, 0.9):
        bounds[eps], _ = grid.solve(eps, False)
        mech = pb * _laplace_ramp_posterior(eps, 0.4, 1.6)
        assert 0.0 <= bounds[eps] <= mech, (eps, bounds[eps], mech)
    assert bounds[1.5] == 0.0 and bounds[0.9] > 1e-4
