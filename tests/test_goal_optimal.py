"""Tests of the optimal epsilon of a goal (garesearch.optimal.goals; beyond the paper).

Oracles written here, independent of the module: an all-pairs Charnes-Cooper LP (HiGHS) over
the product support, brute force over the vertices of that LP on tiny supports (spanning
trees of tight constraints), the Laplace kernel's posterior by mpmath quadrature at 30
digits, one-dimensional LPs for the product theorem under l_1, and two-dimensional
quadrature of the witness mechanisms.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog, minimize_scalar
from scipy.stats import norm as normal
from sweeps import sample

from garesearch.errors import InfeasibleError, ParameterError
from garesearch.events import Attribute, Coordinates
from garesearch.optimal.goals import epsilon_optimal, worst_posterior
from garesearch.priors import Categorical, Normal

DELTA = 0.1
GENDER = {"M": 0.5, "F": 0.5}
COLOUR = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}


# ------------------------------------------------------------------------------------------
# Oracles
# ------------------------------------------------------------------------------------------
def support(priors):
    """Records (tuples of values) and their prior masses of independent finite priors."""
    recs = list(itertools.product(*[list(p) for p in priors]))
    mass = np.array([math.prod(p[v] for p, v in zip(priors, rec, strict=True)) for rec in recs])
    return recs, mass


def part_distance(a, b):
    if isinstance(a, str):
        return 0.0 if a == b else 1.0
    return abs(a - b)


def record_distance(x, y, norm):
    d = np.array([part_distance(a, b) for a, b in zip(x, y, strict=True)])
    if math.isinf(norm):
        return float(d.max())
    return float(np.sum(d**norm) ** (1 / norm))


def all_pairs_lp(priors, inside_fn, eps, norm, upper=True):
    """max (min) over every eps-DP likelihood of the posterior of {x : inside_fn(x)}: the
    Charnes-Cooper LP with a constraint for every ordered pair of records."""
    recs, m = support(priors)
    n = len(recs)
    rows, cols, vals = [], [], []
    r = 0
    # variables: the posterior weights u_i = m_i L(x_i) / sum_j m_j L(x_j)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            rows += [r, r]
            cols += [i, j]
            vals += [1.0 / m[i], -math.exp(eps * record_distance(recs[i], recs[j], norm)) / m[j]]
            r += 1
    A = sp.csr_matrix((vals, (rows, cols)), shape=(r, n))
    c = np.array([1.0 if inside_fn(x) else 0.0 for x in recs])
    res = linprog(-c if upper else c, A_ub=A, b_ub=np.zeros(r), A_eq=np.ones((1, n)), b_eq=[1.0],
                  bounds=(0, None), method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0
    return -res.fun if upper else res.fun


def brute_force(priors, inside_fn, eps, norm, upper=True):
    """The same optimum by enumerating the LP's vertices: log-likelihoods fixed along a
    spanning tree of tight pairs (each edge oriented either way), kept if feasible."""
    recs, m = support(priors)
    n = len(recs)
    D = np.array([[record_distance(a, b, norm) for b in recs] for a in recs])
    inside = np.array([inside_fn(x) for x in recs])
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=n - 1)))
    best = -math.inf if upper else math.inf
    for prufer in itertools.product(range(n), repeat=n - 2):
        degree = [1] * n
        for v in prufer:
            degree[v] += 1
        edges = []
        for v in prufer:
            leaf = min(i for i in range(n) if degree[i] == 1)
            edges.append((leaf, v))
            degree[leaf] -= 1
            degree[v] -= 1
        edges.append(tuple(i for i in range(n) if degree[i] == 1))
        # path matrix from record 0: s_v = sum over the path's edges of +-sign_e * d_e
        P = np.zeros((n, n - 1))
        seen = {0: np.zeros(n - 1)}
        while len(seen) < n:
            for e, (a, b) in enumerate(edges):
                if a in seen and b not in seen:
                    seen[b] = seen[a].copy()
                    seen[b][e] = D[a, b]
                elif b in seen and a not in seen:
                    seen[a] = seen[b].copy()
                    seen[a][e] = -D[a, b]
        for v, row in seen.items():
            P[v] = row
        S = signs @ P.T  # (patterns, n): log-likelihood per unit of epsilon
        ok = np.all(S[:, :, None] - S[:, None, :] <= D[None] + 1e-12, axis=(1, 2))
        if not np.any(ok):
            continue
        W = m[None, :] * np.exp(eps * (S[ok] - S[ok].max(axis=1, keepdims=True)))
        vals = W[:, inside].sum(axis=1) / W.sum(axis=1)
        best = max(best, vals.max()) if upper else min(best, vals.min())
    return best


def kernel_posterior_mp(mu, sigma, t, r, eps, c, sign=-1, dps=30):
    """Posterior of [t - r, t + r] under the kernel e^{sign eps |x - c|} and N(mu, sigma^2),
    by mpmath quadrature."""
    with mpmath.workdps(dps):
        mu, sigma, t, r, eps, c = (mpmath.mpf(v) for v in (mu, sigma, t, r, eps, c))

        def f(x):
            return mpmath.exp(sign * eps * abs(x - c)) * mpmath.npdf(x, mu, sigma)

        pts = sorted({t - r, c, t + r})
        A = mpmath.quad(f, pts)
        T = A + mpmath.quad(f, [-mpmath.inf, t - r]) + mpmath.quad(f, [t + r, mpmath.inf])
        return A / T


# ------------------------------------------------------------------------------------------
# The cats of Sec. 6.1: the optimum over all mechanisms is the paper's number
# ------------------------------------------------------------------------------------------
def cats():
    g = Attribute(Categorical(GENDER), r=0, name="gender")
    c = Attribute(Categorical(COLOUR), r=0, name="colour")
    return g, c


def test_cats_and_or_are_the_papers_numbers():
    g, c = cats()
    res = epsilon_optimal(g & c, delta=DELTA)
    assert res.t["colour"] == "black" and round(res.epsilon, 4) == 0.5390
    assert res.p == pytest.approx(0.2, abs=1e-15)
    res = epsilon_optimal(g | c, delta=DELTA)
    assert res.t["colour"] == "white" and round(res.epsilon, 4) == 0.4013
    assert res.binding == "lower"


@pytest.mark.parametrize("event", ["and", "or"])
def test_cats_agree_with_the_all_pairs_lp(event):
    """Under l_inf two different records are at distance 1: the all-pairs LP over the ten
    records, at the worst record, crosses p + delta (AND) / p - delta (OR) at the epsilon."""
    g, c = cats()
    goal = g & c if event == "and" else g | c
    res = epsilon_optimal(goal, delta=DELTA)
    t = (res.t["gender"], res.t["colour"])
    if event == "and":
        def inside(x):
            return x == t
    else:
        def inside(x):
            return x[0] == t[0] or x[1] == t[1]
    upper = res.binding == "upper"
    target = res.p + DELTA if upper else res.p - DELTA
    below = all_pairs_lp([GENDER, COLOUR], inside, res.epsilon * (1 - 1e-6), math.inf, upper)
    above = all_pairs_lp([GENDER, COLOUR], inside, res.epsilon * (1 + 1e-6), math.inf, upper)
    if upper:
        assert below <= target + 1e-12 < above
    else:
        assert below >= target - 1e-12 > above


# ------------------------------------------------------------------------------------------
# Finite priors: the reduced LP against the all-pairs LP and brute force
# ------------------------------------------------------------------------------------------
def random_case(rng, kinds):
    priors, atts = [], []
    for k, kind in enumerate(kinds):
        n = int(rng.integers(2, 5))
        w = rng.dirichlet(np.ones(n))
        if kind == "num":
            vals = np.round(np.cumsum(rng.uniform(0.3, 2.0, n)), 3)
            pr = {float(v): float(p) for v, p in zip(vals, w, strict=True)}
            r = float(rng.choice([0.0, 0.5, 1.0]))
        else:
            pr = {f"v{i}": float(p) for i, p in enumerate(w)}
            r = 0.0
        priors.append(pr)
        atts.append(Attribute(Categorical(pr), r=r, name=f"a{k}"))
    return priors, atts


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("norm", [math.inf, 1.0, 2.0])
def test_finite_lp_agrees_with_all_pairs_lp(seed, norm):
    rng = np.random.default_rng(seed)
    kinds = ["num", "num"] if seed % 3 else ["num", "disc"]
    priors, atts = random_case(rng, kinds)
    goal = atts[0] & atts[1] if seed % 2 else atts[0] | atts[1]
    t = [list(p)[int(rng.integers(len(p)))] for p in priors]

    def within(k, v):
        return v == t[k] if isinstance(v, str) else abs(v - t[k]) <= atts[k].r

    if seed % 2:
        def inside(x):
            return within(0, x[0]) and within(1, x[1])
    else:
        def inside(x):
            return within(0, x[0]) or within(1, x[1])
    eps = float(rng.choice([0.3, 1.0, 2.5]))
    for side in ("upper", "lower"):
        lo, hi = worst_posterior(goal, epsilon=eps, t=t, norm=norm, sides=side)
        ref = all_pairs_lp(priors, inside, eps, norm, upper=side == "upper")
        assert lo * (1 - 1e-7) - 1e-12 <= ref <= hi * (1 + 1e-7) + 1e-12
        assert hi - lo <= 1e-7 * hi + 1e-12


@pytest.mark.parametrize("norm", [math.inf, 1.0, 2.0])
def test_finite_lp_agrees_with_brute_force(norm):
    """Supports of 4 and 6 records, small enough to enumerate every spanning tree."""
    for pa, pb, r in (({0.0: .6, 1.5: .4}, {0.0: .3, 2.0: .7}, 0.0),
                      ({0.0: .3, 1.0: .2, 2.5: .5}, {"u": .35, "v": .65}, 1.0)):
        a = Attribute(Categorical(pa), r=r, name="a")
        b = Attribute(Categorical(pb), r=0, name="b")
        t = [list(pa)[1], next(iter(pb))]

        def inside(x, t=t, r=r):
            return abs(x[0] - t[0]) <= r and x[1] == t[1]

        for eps in (0.4, 1.7):
            for side in ("upper", "lower"):
                lo, hi = worst_posterior(a & b, epsilon=eps, t=t, norm=norm, sides=side)
                ref = brute_force([pa, pb], inside, eps, norm, upper=side == "upper")
                assert lo * (1 - 1e-7) <= ref <= hi * (1 + 1e-7)


def test_finite_epsilon_brackets_the_all_pairs_crossing():
    rng = np.random.default_rng(11)
    priors, atts = random_case(rng, ["num", "num"])
    t = [next(iter(p)) for p in priors]
    res = epsilon_optimal(atts[0] & atts[1], delta=DELTA, t=t, norm=2.0, sides="upper")

    def inside(x):
        return abs(x[0] - t[0]) <= atts[0].r and abs(x[1] - t[1]) <= atts[1].r

    assert res.rel_width < 1e-6
    assert all_pairs_lp(priors, inside, res.epsilon_lo, 2.0) <= res.p + DELTA + 1e-9
    assert all_pairs_lp(priors, inside, res.epsilon_hi * (1 + 1e-6), 2.0) > res.p + DELTA
    # the witness is a real mechanism: recompute its posterior from its profile
    s = res.witness["log_likelihood_per_epsilon"]
    recs, m = support(priors)
    w = m * np.exp(res.epsilon_hi * s)
    post = sum(wi for wi, x in zip(w, recs, strict=True) if inside(x)) / w.sum()
    assert post >= res.p + DELTA - 1e-9
    assert post == pytest.approx(res.posterior, rel=1e-9)


def test_worst_record_over_t_matches_enumeration_with_the_all_pairs_lp():
    pa = {0.0: 0.5, 1.0: 0.3, 3.0: 0.2}
    pb = {"x": 0.7, "y": 0.3}
    a = Attribute(Categorical(pa), r=1.0, name="a")
    b = Attribute(Categorical(pb), r=0, name="b")
    res = epsilon_optimal(a | b, delta=DELTA, norm=1.0, sides="upper")
    worst = math.inf
    for t in itertools.product(pa, pb):
        def inside(x, t=t):
            return abs(x[0] - t[0]) <= 1.0 or x[1] == t[1]
        p = sum(pa[u] * pb[v] for u, v in itertools.product(pa, pb) if inside((u, v)))
        if p + DELTA >= 1:
            continue
        lo_e, hi_e = 1e-3, 20.0
        for _ in range(40):  # bisection on the all-pairs LP (to 1e-11 relative)
            mid = math.sqrt(lo_e * hi_e)
            if all_pairs_lp([pa, pb], inside, mid, 1.0) <= p + DELTA:
                lo_e = mid
            else:
                hi_e = mid
        worst = min(worst, lo_e)
    assert res.epsilon == pytest.approx(worst, rel=1e-6)


# ------------------------------------------------------------------------------------------
# One attribute: the Laplace kernel
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mu,sigma,r", [(0.0, 1.0, 0.5), (2000.0, 235.7, 100.0)])
def test_one_normal_attribute_is_the_laplace_kernel(mu, sigma, r):
    """At t = mu the posterior of the Laplace output is symmetric and unimodal in the output,
    so the kernel centred at t is the worst; its epsilon by mpmath quadrature and findroot."""
    p = float(normal.cdf(r / sigma) - normal.cdf(-r / sigma))
    res = epsilon_optimal(Attribute(Normal(mu, sigma), r=r), delta=DELTA, t=[mu], sides="upper")
    with mpmath.workdps(30):
        eps = mpmath.findroot(lambda e: kernel_posterior_mp(mu, sigma, mu, r, e, mu) - (p + DELTA),
                              res.epsilon)
    assert res.epsilon_lo <= float(eps) * (1 + 1e-12)
    assert res.epsilon_hi >= float(eps) * (1 - 1e-12)
    assert res.epsilon == pytest.approx(float(eps), rel=1e-6)
    assert res.witness["centre"] == pytest.approx(mu, abs=1e-6 * sigma)


def test_one_normal_attribute_lower_side_is_the_inverted_kernel():
    """The infimum over the inverted kernels' centres in X', by a dense scan at 30 digits."""
    mu, sigma, r, t, eps = 0.0, 1.0, 0.5, 0.3, 0.8
    lo, hi = worst_posterior(Attribute(Normal(mu, sigma), r=r), epsilon=eps, t=[t], sides="lower")
    def post(c):
        return float(kernel_posterior_mp(mu, sigma, t, r, eps, c, sign=+1, dps=20))

    cs = np.linspace(t - r, t + r, 11)
    vals = [post(c) for c in cs]
    k = int(np.argmin(vals))
    fine = minimize_scalar(post, bounds=(cs[max(k - 1, 0)], cs[min(k + 1, 10)]), method="bounded",
                           options={"xatol": 1e-9})
    best = min(vals[k], fine.fun)
    assert lo <= float(best) + 1e-9
    assert hi == pytest.approx(float(best), rel=1e-6)


# ------------------------------------------------------------------------------------------
# l_1: the product of the one-attribute optima (proved), checked with LPs
# ------------------------------------------------------------------------------------------
def test_l1_goal_is_the_product_of_one_attribute_optima():
    pa = {0.0: 0.25, 1.0: 0.25, 2.0: 0.3, 4.0: 0.2}
    pb = {0.0: 0.4, 0.5: 0.1, 3.0: 0.5}
    a = Attribute(Categorical(pa), r=1.0, name="a")
    b = Attribute(Categorical(pb), r=0.5, name="b")
    t = (1.0, 0.5)
    eps = 0.9
    for side in ("upper", "lower"):
        up = side == "upper"
        q1 = all_pairs_lp([pa], lambda x: abs(x[0] - t[0]) <= 1.0, eps, 1.0, up)
        q2 = all_pairs_lp([pb], lambda x: abs(x[0] - t[1]) <= 0.5, eps, 1.0, up)
        lo, hi = worst_posterior(a & b, epsilon=eps, t=list(t), norm=1.0, sides=side)
        assert lo == pytest.approx(q1 * q2, rel=1e-7)
        lo, hi = worst_posterior(a | b, epsilon=eps, t=list(t), norm=1.0, sides=side)
        assert hi == pytest.approx(1 - (1 - q1) * (1 - q2), rel=1e-7)
        # the product bound is sound for l_inf too, and not attained there
        lo_inf, hi_inf = worst_posterior(a | b, epsilon=eps, t=list(t), norm=math.inf, sides=side)
        if up:
            assert hi_inf < 1 - (1 - q1) * (1 - q2) - 1e-3
        else:
            assert lo_inf > 1 - (1 - q1) * (1 - q2) + 1e-3


def test_l1_continuous_product_matches_the_grid_relaxation():
    a = Attribute(Normal(0, 1), r=0.6, name="a")
    b = Attribute(Normal(0.5, 1.3), r=0.4, name="b")
    lo, hi = worst_posterior(a & b, epsilon=0.8, t=[1.0, -1.0], norm=1.0)
    assert hi - lo < 1e-7
    # the product of the one-attribute kernel posteriors, by mpmath (best centre: a scan, then
    # Brent's method between the best point's neighbours)
    def best_kernel(mu, sigma, t, r, n):
        def post(c):
            return float(kernel_posterior_mp(mu, sigma, t, r, 0.8, c, dps=20))

        cs = np.linspace(t - r, t + r, n)
        vals = [post(c) for c in cs]
        k = int(np.argmax(vals))
        fine = minimize_scalar(lambda c: -post(c), bounds=(cs[max(k - 1, 0)], cs[min(k + 1, n - 1)]),
                               method="bounded", options={"xatol": 1e-9})
        return max(vals[k], -fine.fun)

    u1 = best_kernel(0, 1, 1.0, 0.6, 13)
    u2 = best_kernel(0.5, 1.3, -1.0, 0.4, 9)
    assert lo >= float(u1 * u2) - 1e-12
    assert lo == pytest.approx(float(u1 * u2), rel=1e-4)


# ------------------------------------------------------------------------------------------
# Continuous attributes under l_inf: certified brackets
# ------------------------------------------------------------------------------------------
def cones_posterior_midpoint(w, eps, bands, pri, event, n=1500):
    """Posterior of X' (the AND or OR of the two bands) under the witness ``w`` (a result's
    ``witness`` dict: boxes C_k with heights s_k; L = max_k e^{eps (s_k - d_inf(x, C_k))}
    for ridges, min_k e^{eps (d_inf(x, C_k) - s_k)} for inverted ridges), by the midpoint
    rule on cells whose edges include the bands' edges (so every cell is inside or outside
    X'), over mu +- 9 sigma; error about 1e-6."""
    lo, hi = np.atleast_2d(w["box_low"]), np.atleast_2d(w["box_high"])
    heights = np.asarray(w.get("heights", [0.0]), float)
    inverted = w["kind"].startswith("inverted")
    edges = []
    for (a, b), (mu, sd) in zip(bands, pri, strict=True):
        pts = [mu - 9 * sd, a, b, mu + 9 * sd]
        edges.append(np.concatenate([np.linspace(x, y, max(2, int(n * (y - x) / (18 * sd))) + 1)[:-1]
                                     for x, y in itertools.pairwise(pts)] + [[pts[-1]]]))
    c = [(e[:-1] + e[1:]) / 2 for e in edges]
    m = [np.diff(normal.cdf(e, mu, sd)) for e, (mu, sd) in zip(edges, pri, strict=True)]
    X1, X2 = np.meshgrid(c[0], c[1], indexing="ij")
    g = None
    for k in range(len(heights)):
        d = np.maximum(np.clip(np.maximum(lo[k, 0] - X1, X1 - hi[k, 0]), 0, None),
                       np.clip(np.maximum(lo[k, 1] - X2, X2 - hi[k, 1]), 0, None))
        gk = d - heights[k] if inverted else heights[k] - d
        g = gk if g is None else (np.minimum(g, gk) if inverted else np.maximum(g, gk))
    L = np.exp(eps * (g - g.max()))
    in1 = (X1 >= bands[0][0]) & (X1 <= bands[0][1])
    in2 = (X2 >= bands[1][0]) & (X2 <= bands[1][1])
    ins = (in1 & in2) if event == "and" else (in1 | in2)
    M = np.outer(m[0], m[1])
    return float((L * M)[ins].sum() / (L * M).sum())


def test_and_of_two_normals_bracket_is_certified():
    """AND box under l_inf, two normal attributes (the cell relaxation): a bracket within
    1 %, and the witness exceeds p + delta at epsilon_hi, checked by 2-D quadrature."""
    a = Attribute(Normal(0, 1), r=0.6, name="a")
    b = Attribute(Normal(0.5, 1.3), r=0.4, name="b")
    t = [1.0, -1.0]
    res = epsilon_optimal(a & b, delta=DELTA, t=t, sides="upper")
    target = res.p + DELTA
    assert res.method == "lp-cells"
    assert 0 < res.epsilon_lo < res.epsilon_hi
    assert res.rel_width == pytest.approx((res.epsilon_hi - res.epsilon_lo) / res.epsilon_hi)
    assert res.rel_width <= 0.01
    post = cones_posterior_midpoint(res.witness, res.epsilon_hi, [(0.4, 1.6), (-1.4, -0.6)],
                                    [(0, 1), (0.5, 1.3)], "and")
    assert post > target
    assert post == pytest.approx(res.posterior, abs=1e-4)
    assert post >= res.posterior - 1e-6  # the package's value is a lower bound


@pytest.mark.parametrize("t, side, tol", sample([([0.0, 0.5], "lower", 1e-3), ([1.0, -1.0], "upper", 1e-4),
                                                 ([8.0, -9.0], "upper", 1e-3)], 2))
def test_or_of_two_normals_witness_crosses_by_quadrature(t, side, tol):
    """OR (the cross of two strips) under l_inf: the witness at epsilon_hi (ridges: a
    half-line along each arm at its own height; inverted ones for the lower side; or the best
    shifted pyramid, a ridge of one box, where that crosses first) moves the
    posterior past p + delta (below p - delta).  Checked by 2-D quadrature of the witness'
    likelihood, written out here; the bracket is within 1 %.  The third case lies 7 sigma
    out (p = 1.3e-12): the layer cake needs levels even in the distance there."""
    a = Attribute(Normal(0, 1), r=0.6, name="a")
    b = Attribute(Normal(0.5, 1.3), r=0.4, name="b")
    res = epsilon_optimal(a | b, delta=DELTA, t=t)
    assert res.method == "lp-cells"  # (side: that of the witness giving epsilon_hi)
    assert 0 < res.epsilon_lo < res.epsilon_hi
    assert res.rel_width <= 0.01
    kinds = ("ridges", "shifted pyramid") if side == "upper" else ("inverted ridges", "inverted shifted pyramid")
    assert res.witness["kind"] in kinds
    bands = [(t[0] - 0.6, t[0] + 0.6), (t[1] - 0.4, t[1] + 0.4)]
    post = cones_posterior_midpoint(res.witness, res.epsilon_hi, bands, [(0, 1), (0.5, 1.3)], "or")
    # and at the sound end the same mechanism stays within delta (a relaxation that cut off
    # real mechanisms could certify an epsilon where this one already crosses)
    at_lo = cones_posterior_midpoint(res.witness, res.epsilon_lo, bands, [(0, 1), (0.5, 1.3)], "or")
    if side == "upper":
        assert post > res.p + DELTA
        assert res.posterior - 1e-6 <= post <= res.posterior + tol
        assert at_lo <= res.p + DELTA
    else:
        assert post < res.p - DELTA
        assert res.posterior - tol <= post <= res.posterior + 1e-6
        assert at_lo >= res.p - DELTA
    p1 = normal.cdf(bands[0][1]) - normal.cdf(bands[0][0])
    p2 = normal.cdf(bands[1][1], 0.5, 1.3) - normal.cdf(bands[1][0], 0.5, 1.3)
    assert res.p == pytest.approx(1 - (1 - p1) * (1 - p2), abs=1e-12)


# make test: eps 0.3 (the relaxation at eps 3 is checked against mechanisms in test_goal_cells)
@pytest.mark.parametrize("eps", sample([0.3, 1.0, 2.5], 1))
def test_cell_relaxation_brackets_the_one_attribute_optimum(eps):
    """The cell relaxation (translation lemma: averages of an eps-Lipschitz likelihood over
    equal cells C and C + v of a product of log-concave priors differ by at most
    e^{eps |v|_inf}) is sound and tight where the optimum is known: an AND whose second band
    covers mu +- 6 sigma is, up to 1e-9 of prior mass, the first attribute alone, whose
    optimum is the Laplace kernel's (an exact 1-D formula, computed here by quadrature)."""
    from scipy.integrate import quad
    from scipy.optimize import minimize_scalar

    from garesearch.optimal._goal_cells import CellGrid
    from garesearch.optimal._goal_model import build_model

    a = Attribute(Normal(0, 1), r=0.6, name="a")
    b = Attribute(Normal(0.5, 1.3), r=7.8, name="b")
    t = (0.7, 0.5)

    root_2pi = math.sqrt(2 * math.pi)

    def post(c):  # kernel e^{-eps |x - c|}: posterior of [t - r, t + r]
        def part(lo, hi):  # (the standard normal density in closed form: scipy's per point is slow)
            pts = sorted({lo, hi, min(max(c, lo), hi)})
            return sum(quad(lambda x: math.exp(-eps * abs(x - c) - 0.5 * x * x) / root_2pi, p0, p1,
                            epsabs=1e-14, epsrel=1e-12)[0] for p0, p1 in itertools.pairwise(pts))
        inside = part(t[0] - 0.6, t[0] + 0.6)
        return inside / (inside + part(-12, t[0] - 0.6) + part(t[0] + 0.6, 12))

    best = -minimize_scalar(lambda c: -post(c), bounds=(t[0] - 0.6, t[0] + 0.6), method="bounded",
                            options={"xatol": 1e-10}).fun
    p_b = normal.cdf(t[1] + 7.8, 0.5, 1.3) - normal.cdf(t[1] - 7.8, 0.5, 1.3)
    model = build_model(a & b, math.inf)
    grid = CellGrid(model, list(t), 0.2)
    assert grid.steps == pytest.approx([0.2, 0.2])
    bound, _ = grid.solve(eps, True)
    # the optimum lies in [best * p_b, best]: the relaxation is above it, and close
    assert bound >= best * p_b - 1e-9
    assert bound <= best + 0.1 * eps * 0.2 * (1 - best)  # first order in eps * h at most
    low, _ = grid.solve(eps, False)
    assert low <= best * p_b + 1e-9  # (the lower side is below the upper optimum: a sanity bound)


@pytest.mark.slow
def test_and_of_two_normals_sound_on_a_finer_grid():
    a = Attribute(Normal(0, 1), r=0.6, name="a")
    b = Attribute(Normal(0.5, 1.3), r=0.4, name="b")
    t = [1.0, -1.0]
    res = epsilon_optimal(a & b, delta=DELTA, t=t, sides="upper", max_nodes=400)
    lo, hi = worst_posterior(a & b, epsilon=res.epsilon_lo, t=t, resolution=2)
    assert lo <= hi <= res.p + DELTA


def test_ball_goal_on_a_finite_grid_agrees_with_all_pairs():
    pr = {-1.0: 0.2, 0.0: 0.5, 1.0: 0.3}
    ship = Coordinates([Categorical(pr), Categorical(dict(pr))], r=1.0, norm=2.0, name="ship")
    t = (0.0, 0.0)
    for side in ("upper", "lower"):
        lo, hi = worst_posterior(ship, epsilon=0.7, t=list(t), sides=side)
        ref = all_pairs_lp([pr, pr], lambda x: math.hypot(x[0] - t[0], x[1] - t[1]) <= 1.0,
                           0.7, 2.0, side == "upper")
        assert lo - 1e-9 <= ref <= hi + 1e-9


# ------------------------------------------------------------------------------------------
# Input checks and the cases that need no noise
# ------------------------------------------------------------------------------------------
def test_bad_input():
    g, c = cats()
    for kw in ({"delta": 0}, {"delta": 1.5}, {"delta": 0.1, "sides": "lower"},
               {"delta": 0.1, "norm": 0.5}, {"delta": 0.1, "rtol": 2.0}, {"delta": 0.1, "budget": 0},
               {"delta": 0.1, "budget": math.inf}, {"delta": 0.1, "budget": "1"}):
        with pytest.raises(ParameterError):
            epsilon_optimal(g & c, **kw)
    with pytest.raises(ParameterError):
        epsilon_optimal(g & c, delta=0.1, t={"gender": "X", "colour": "red"})
    with pytest.raises(ParameterError, match="l_p ball"):  # t=None: one-coordinate parts only
        epsilon_optimal(Coordinates([Normal(0, 1), Normal(0, 1)], r=1, norm=2, name="c"), delta=0.1)
    big = Attribute(Categorical({i: 1 / 200 for i in range(200)}), r=0, name="big")
    other = Attribute(Categorical({i: 1 / 200 for i in range(200)}), r=0, name="other")
    with pytest.raises(ParameterError, match="20000"):
        epsilon_optimal(big & other, delta=0.1, t=[0, 0])
    many = Attribute(Categorical({i: 1 / 50 for i in range(50)}), r=0, name="many")
    more = Attribute(Categorical({i: 1 / 50 for i in range(50)}), r=0, name="more")
    with pytest.raises(ParameterError, match="2000"):
        epsilon_optimal(many & more, delta=0.1)
    with pytest.raises(ParameterError):
        epsilon_optimal("not a goal", delta=0.1)
    with pytest.raises(ParameterError):
        worst_posterior(g & c, epsilon=-1, t=["M", "red"])


def test_no_noise_needed_only_when_true():
    g, c = cats()
    # p + delta >= 1 and p <= delta for every record: every mechanism is within delta
    res = epsilon_optimal(g | c, delta=0.9)
    assert math.isinf(res.epsilon) and res.rel_width == 0.0
    # upper side only, p + delta >= 1 at every record: no noise; otherwise finite
    assert math.isinf(epsilon_optimal(g, delta=0.5, sides="upper").epsilon)
    assert math.isfinite(epsilon_optimal(g, delta=0.49, sides="upper").epsilon)


def test_discrete_metric_lower_side_closed_form():
    """One categorical attribute with p = 0.95: V = p/(p + (1-p)e^eps) = p - delta."""
    a = Attribute(Categorical({"a": 0.95, "b": 0.05}), r=0, name="a")
    res = epsilon_optimal(a, delta=0.01, t=["a"])
    p, d = 0.95, 0.01
    assert res.binding == "lower"
    assert res.epsilon == pytest.approx(math.log(p * (1 - p + d) / ((p - d) * (1 - p))), rel=1e-12)
    v = all_pairs_lp([{"a": 0.95, "b": 0.05}], lambda x: x[0] == "a", res.epsilon, math.inf, False)
    assert v == pytest.approx(p - d, abs=1e-9)


def test_set_kernels_are_not_optimal_under_l_inf():
    """A finite AND box under l_inf whose worst case has intermediate levels inside X': every
    kernel exp(-eps d(x, C)), C a subset of X' (all 15 enumerated), stays 9e-3 below it."""
    x1 = [1.0686, 2.6655, 3.2978, 4.4933, 4.8512]
    w1 = np.array([.4204, .1282, .1991, .1745, .0777])
    x2 = [1.1907, 3.1843, 3.6051, 4.0736, 5.3476, 7.232]
    w2 = np.array([.2108, .0081, .1126, .3001, .3312, .0372])
    p1 = dict(zip(x1, w1 / w1.sum(), strict=True))
    p2 = dict(zip(x2, w2 / w2.sum(), strict=True))
    a = Attribute(Categorical(p1), r=1.0929, name="a")  # X' = [2.6655, 4.8512] x {3.6051}
    b = Attribute(Categorical(p2), r=0, name="b")
    eps = 2.0
    lo, _hi = worst_posterior(a & b, epsilon=eps, t=[3.75835, 3.6051], norm=math.inf)
    recs, m = support([p1, p2])
    inside = np.array([x[0] >= 2.6 and x[1] == 3.6051 for x in recs])
    X = np.array(recs)
    best = 0.0
    idx = np.nonzero(inside)[0]
    for k in range(1, 2 ** len(idx)):
        C = X[[i for j, i in enumerate(idx) if k >> j & 1]]
        d = np.abs(X[:, None, :] - C[None, :, :]).max(axis=2).min(axis=1)
        w = m * np.exp(-eps * d)
        best = max(best, w[inside].sum() / w.sum())
    assert lo > best + 8e-3
    assert lo == pytest.approx(all_pairs_lp([p1, p2], lambda x: x[0] >= 2.6 and x[1] == 3.6051, eps,
                                            math.inf), rel=1e-7)


def test_heavy_tails_refuse_the_lower_side_of_a_bounded_goal():
    """A Cauchy coordinate: the inverted kernel exp(+eps |x_1|) is eps-DP for every l_p record
    distance, and its truncations to |x_1| <= R push the posterior of a set bounded in x_1 to 0
    (quadrature: below 1e-12 at eps = 0.05, R = 1e4), so no epsilon > 0 meets the lower side
    of a ball or an AND with p > delta; the upper side alone stays available."""
    import scipy.integrate
    import scipy.stats

    from garesearch.priors import Continuous

    pdf = scipy.stats.cauchy().pdf
    inside = scipy.integrate.quad(lambda x: np.exp(0.05 * abs(x)) * pdf(x), -1, 1)[0]
    total = 2 * scipy.integrate.quad(lambda x: np.exp(0.05 * x) * pdf(x), 0, 1e4, limit=500)[0]
    assert inside / total < 1e-12
    ball = Coordinates([Continuous(scipy.stats.cauchy()), Normal(0, 1)], r=1, norm=2, name="c")
    with pytest.raises(InfeasibleError, match="heavier than every exponential"):
        epsilon_optimal(ball, delta=0.1, t={"c": (0.0, 0.0)})
    a = Attribute(Continuous(scipy.stats.cauchy()), r=1, name="a")
    b = Attribute(Normal(0, 1), r=1, name="b")
    with pytest.raises(InfeasibleError, match="sides='upper'"):
        epsilon_optimal(a & b, delta=0.1, t=[0.0, 0.0])


_CALLS: list = []
_REACH = {"upper": [0.30, 0.38, 0.40], "lower": [0.33, 0.45, 0.50]}


class _ScriptedSide:
    """Stands in for one side's grid refinement: step k certifies up to ``reach[k]`` (or the
    other side's sound end, ``enough``, whichever is lower); the last step is ``done``."""

    def __init__(self, model, tc, target, upper, rtol, eps0, max_nodes):
        self.name = "upper" if upper else "lower"
        self.reach = _REACH[self.name]
        self.lo, self.hi, self.lps, self.trial, self.done, self.k = 0.0, 1.0, 0, eps0, False, 0

    def step(self, enough=math.inf):
        _CALLS.append((self.name, enough))
        self.lo = max(self.lo, min(self.reach[self.k], enough))
        self.lps += 1
        self.k += 1
        self.done = self.k == len(self.reach)

    def certify(self, eps):
        _CALLS.append((self.name, "certify", eps))
        if eps <= self.reach[self.k - 1]:
            self.lo = eps

    def bracket(self):
        return (self.lo, self.hi)


def test_grid_sides_refine_the_side_whose_sound_end_is_lower(monkeypatch):
    # the scheduler alone: the epsilon's sound end is the lower of the two sides', so each grid
    # goes to that side; a side stops at the other's sound end (capped) and, when it has no
    # grid left, retries the other's sound end once
    from garesearch.optimal import _goal_grid

    monkeypatch.setattr(_goal_grid, "GridSide", _ScriptedSide)
    targets = {"upper": (0.5, True), "lower": (0.3, False)}
    _CALLS.clear()
    out = _goal_grid.grid_sides(None, None, targets, 0.01, 0.1, 1000, first="upper")
    assert _CALLS == [
        ("upper", math.inf),  # starts alone
        ("lower", 0.30),      # aims at the upper side's sound end, capped there
        ("upper", math.inf),  # a capped side does not hold the other back: 0.38
        ("lower", 0.38),      # 0.30 < 0.38: the lower side's turn, capped again
        ("upper", math.inf),  # 0.40, done
        ("lower", 0.40),      # 0.38 < 0.40: its last grid, capped at 0.40
    ]  # then both are at 0.40 and the upper side, done, ends the turns
    assert out == {"upper": (0.40, 1.0), "lower": (0.40, 1.0)}

    monkeypatch.setitem(_REACH, "lower", [0.33, 0.45])  # no grid after its second
    _CALLS.clear()
    out = _goal_grid.grid_sides(None, None, targets, 0.01, 0.1, 1000, first="upper")
    assert _CALLS[3:] == [
        ("lower", 0.38),             # capped at 0.38, and done
        ("upper", math.inf),         # 0.40, done
        ("lower", "certify", 0.40),  # passed by the upper side: one LP at its sound end
    ]
    assert out == {"upper": (0.40, 1.0), "lower": (0.40, 1.0)}


# ------------------------------------------------------------------------------------------
# The LP certificate (Neumaier-Shcherbina with a rigorous rounding-error term)
# ------------------------------------------------------------------------------------------
def _exact_lp(obj, A, a, u, upper=True):
    """max (min) obj.x s.t. A x <= 0, a.x = 1, 0 <= x <= u, in exact rationals: every vertex
    (the equality and n - 1 more active constraints, solved by Gaussian elimination over
    Fractions), the best feasible one."""
    from fractions import Fraction as F

    A = [[F(float(v)) for v in row] for row in np.asarray(A, float)]
    obj, a, u = ([F(float(v)) for v in vec] for vec in (obj, a, u))
    n = len(obj)
    cons = [(row, F(0)) for row in A]
    for k in range(n):
        e = [F(int(i == k)) for i in range(n)]
        cons += [(e, F(0)), (e, u[k])]
    best = None
    for sub in itertools.combinations(range(len(cons)), n - 1):
        M = [[*a, F(1)]] + [[*cons[i][0], cons[i][1]] for i in sub]
        ok = True
        for c in range(n):  # Gauss-Jordan
            piv = next((r for r in range(c, n) if M[r][c] != 0), None)
            if piv is None:
                ok = False
                break
            M[c], M[piv] = M[piv], M[c]
            for r in range(n):
                if r != c and M[r][c] != 0:
                    f = M[r][c] / M[c][c]
                    M[r] = [x - f * y for x, y in zip(M[r], M[c], strict=True)]
        if not ok:
            continue
        x = [M[i][n] / M[i][i] for i in range(n)]
        if any(xi < 0 or xi > ui for xi, ui in zip(x, u, strict=True)):
            continue
        if any(sum(r * xi for r, xi in zip(row, x, strict=True)) > 0 for row in A):
            continue
        val = sum(o * xi for o, xi in zip(obj, x, strict=True))
        if best is None or (val > best if upper else val < best):
            best = val
    return best


def _charnes_cooper(rng, n=4, spread=3.0):
    """A small finite LP of the package's kind: w_i - k_ij w_j <= 0 for all pairs, sum w = 1,
    0 <= w <= 1, maximise (minimise) the mass of the first records."""
    m = rng.dirichlet(np.ones(n))
    rows = []
    for i, j in itertools.permutations(range(n), 2):
        r = np.zeros(n)
        r[i], r[j] = 1.0, -math.exp(rng.uniform(0, spread)) * m[i] / m[j]
        rows.append(r)
    obj = (np.arange(n) < n // 2).astype(float)
    return obj, np.array(rows), np.ones(n), np.ones(n)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("upper", [True, False])
def test_certified_bound_is_on_the_right_side_of_the_exact_optimum(seed, upper):
    """The certificate of HiGHS's dual against the exact optimum (vertex enumeration in
    Fractions): on the safe side, and within 1e-14 of it (a posterior: the rounding-error term
    is a few units of roundoff times |A|^T |y|, about 1, whatever the optimum's size); a dual
    moved by 1e-6
    (some entries negative) still gives a valid, if looser, bound."""
    from fractions import Fraction as F

    from garesearch.optimal._certify import certified_bound, dual_bound, solve_lp

    obj, A, a, u = _charnes_cooper(np.random.default_rng(seed))
    As = sp.csr_matrix(A)
    res = solve_lp(-obj if upper else obj, As, a, u)
    opt = _exact_lp(obj, A, a, u, upper)
    bound = certified_bound(res, obj, As, a, u, upper)
    gap = (F(bound) - opt) if upper else (opt - F(bound))
    assert 0 <= gap <= F(1e-14)
    y = -np.asarray(res.ineqlin.marginals, float)
    moved = y + 1e-6 * np.random.default_rng(100 + seed).standard_normal(y.size)
    loose = dual_bound(moved, obj, As, a, u, upper)
    assert (F(loose) >= opt) if upper else (F(loose) <= opt)


def test_dropping_the_rounding_error_term_fails_an_adversarial_case():
    """An LP with coefficients from 3 to 2e13 (e^30 apart) and a dual from HiGHS (stored in
    hex): evaluated in plain floating point the Neumaier-Shcherbina bound lies below the
    exact maximum (so it would certify a false epsilon); with the error term it is above,
    and the bound of the same dual in exact rationals is above too (the failure is the
    rounding's alone)."""
    from fractions import Fraction as F

    from garesearch.optimal._certify import dual_bound

    K = ["0x1.b825c3db87ca7p+1", "0x1.30d78218a7d44p+23", "0x1.704b0847588f5p+44",
         "0x1.472509a851d0ep+16", "0x1.e150ebb73ea94p+8", "0x1.5cc587403482fp+43"]
    Y = ["0x1.cd67d2d2db196p-3", "0x0.0p+0", "0x0.0p+0", "0x1.366388604a5efp-17", "0x0.0p+0", "0x0.0p+0"]
    rows = []
    for (i, j), k in zip(itertools.permutations(range(3), 2), K, strict=True):
        r = np.zeros(3)
        r[i], r[j] = 1.0, -float.fromhex(k)
        rows.append(r)
    A, y = np.array(rows), np.array([float.fromhex(v) for v in Y])
    obj, a, u = np.array([1.0, 0.0, 0.0]), np.ones(3), np.ones(3)
    opt = _exact_lp(obj, A, a, u)
    assert opt == F(4456334043692974137573618802589, 5752303106079815760543045181341)
    # the bound of y in exact arithmetic (lambda at the breakpoint, as the package picks it)
    g = [F(o) - sum(F(A[i, k]) * F(y[i]) for i in range(len(y))) for k, o in enumerate(obj)]
    exact = min(lam + sum(max(F(0), gk - lam) for gk in g) for lam in g)
    assert exact >= opt
    As = sp.csr_matrix(A)
    assert F(dual_bound(y, obj, As, a, u, True)) >= opt
    assert F(dual_bound(y, obj, As, a, u, True, errors=False)) < opt  # the planted error


def test_ball_membership_is_exact_on_the_axes():
    """X' = {x : ||x - t||_3 <= r} as written, decided here in exact rationals: atoms on the
    axes through t at distance exactly r are inside (the plain formula (0.1^3)^(1/3) gives
    0.10000000000000002), an atom 1e-14 beyond r is outside (a relative tolerance of 1e-12
    took it in), the diagonal ones at r 2^(1/3) are outside; p and the LP use that decision."""
    from fractions import Fraction as F

    from garesearch.goals import in_goal

    assert (0.1**3) ** (1 / 3) > 0.1
    pr = {-0.1: 0.3, 0.0: 0.4, 0.1: 0.2, 0.1 + 1e-14: 0.1}
    ball = Coordinates([Categorical(pr), Categorical(dict(pr))], r=0.1, norm=3.0, name="c")
    pts = list(itertools.product(pr, pr))

    def exact_in(x):
        return F(abs(x[0])) ** 3 + F(abs(x[1])) ** 3 <= F(0.1) ** 3

    assert in_goal(ball, np.array(pts), {"c": (0.0, 0.0)}).tolist() == [exact_in(x) for x in pts]
    p = sum(pr[x] * pr[y] for x, y in pts if exact_in((x, y)))
    res = epsilon_optimal(ball, delta=0.1, t={"c": (0.0, 0.0)}, sides="upper")
    assert res.p == pytest.approx(p, abs=1e-15)
    below = all_pairs_lp([pr, pr], exact_in, res.epsilon_lo, 3.0)
    above = all_pairs_lp([pr, pr], exact_in, res.epsilon_hi * (1 + 1e-6), 3.0)
    assert below <= p + 0.1 + 1e-9 < above


def test_uniform_or_categorical_far_levels_raise_nothing():
    """The inverted pyramid's levels beyond float64 (e^{eps s} = inf) and a secant step that
    underflows once gave a RuntimeWarning and a raw ValueError; the bracket must come back
    ordered, with the safe end at or below the end a witness crosses at."""
    import warnings

    from garesearch.priors import Uniform

    goal = Attribute(Uniform(0, 10), r=1) | Attribute(Categorical({0: .3, 1: .5, 2.5: .2}), r=.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = epsilon_optimal(goal, delta=0.1, t=[5.0, 1.0], max_nodes=60)
    for lo, hi in (res.upper, res.lower):
        assert 0 < lo <= hi < math.inf
    assert res.epsilon == min(res.upper[0], res.lower[0])
