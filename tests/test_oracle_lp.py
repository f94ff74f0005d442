"""Checks of the test-side LP oracle (tests/oracle_lp.py), by routes independent of it.

The oracle will be the reference for the package's optimal epsilon, so it is itself checked
against: the closed forms for the discrete metric (Sec. 3.2's bounds, typed here), brute-force
enumeration of the LP's vertices (every spanning tree of tight constraints on tiny spaces;
every pattern of tight neighbour gaps on the real line), random feasible likelihoods (which
must never beat the LP) together with the feasibility of the oracle's own witnesses, the
plain LP solved by HiGHS without rescaling or polish, a second exact route that never calls
HiGHS (pivots from a star vertex), the all-pairs formulation, and a recomputation at 80 digits.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_lp import (
    ORACLE_SETTINGS,
    ball_mask,
    distances,
    finite_priors,
    highs_posterior_extremes,
    lp_extreme,
    lp_optimal_epsilon,
    lp_optimal_epsilon_details,
    lp_posterior_extremes,
)
from scipy.optimize import brentq
from scipy.special import logsumexp
from sweeps import examples, sample


def _probs(rng, n, tiny=0):
    """Random masses, the first ``tiny`` of them 1e-12 (before normalising)."""
    w = rng.exponential(size=n)
    w[:tiny] = 1e-12
    return w / math.fsum(w)


def _exact_probs(p, dps=60):
    """The masses normalised exactly, as the oracle does (its definition of p_i)."""
    with mpmath.workdps(dps):
        pm = [mpmath.mpf(float(v)) for v in p]
        total = mpmath.fsum(pm)
        return [v / total for v in pm]


# --- the discrete metric: Sec. 3.2's closed forms -------------------------------------------------
def discrete_sup(P, eps):
    """Sup of the posterior of a set of prior mass P, discrete metric: L = e^eps on it, 1 off."""
    return P * mpmath.exp(eps) / (P * mpmath.exp(eps) + 1 - P)


def discrete_inf(P, eps):
    return P / (P + (1 - P) * mpmath.exp(eps))


def discrete_eps(P, delta):
    """The largest eps with sup - P <= delta and P - inf <= delta (inf when neither binds)."""
    out = [mpmath.inf]
    if P + delta < 1:
        out.append(mpmath.log((P + delta) * (1 - P) / (P * (1 - P - delta))))
    if P > delta:
        out.append(mpmath.log((1 - P + delta) * P / ((P - delta) * (1 - P))))
    return min(out)


@pytest.mark.parametrize("n", [2, 3, 6])
@pytest.mark.parametrize("eps", [0.05, 1.0, 7.0, 60.0])
def test_discrete_extremes_are_the_closed_forms(n, eps):
    rng = np.random.default_rng(n * 100 + int(eps * 10))
    p = _probs(rng, n, tiny=1 if n > 2 else 0)
    labels = [f"v{i}" for i in range(n)]
    for inside in ([True] + [False] * (n - 1), rng.random(n) < 0.5):
        if not any(inside) or all(inside):
            continue
        with mpmath.workdps(60):
            P = mpmath.fsum(q for q, s in zip(_exact_probs(p), inside, strict=True) if s)
            hi = lp_extreme(labels, p, inside, eps, sense="sup", metric="discrete")
            lo = lp_extreme(labels, p, inside, eps, sense="inf", metric="discrete")
            assert abs(hi.value_mp / discrete_sup(P, eps) - 1) < 1e-40
            assert abs(lo.value_mp / discrete_inf(P, eps) - 1) < 1e-40
        sup, inf = lp_posterior_extremes(labels, p, inside, eps, metric="discrete")
        assert sup == pytest.approx(float(discrete_sup(P, eps)), rel=1e-14)
        assert inf == pytest.approx(float(discrete_inf(P, eps)), rel=1e-14)


@pytest.mark.parametrize("delta", [1e-3, 0.05, 0.3, 0.6])
def test_discrete_optimal_epsilon_is_the_closed_form(delta):
    rng = np.random.default_rng(int(delta * 1000))
    p = _probs(rng, 5, tiny=1)
    labels = list("abcde")
    with mpmath.workdps(60):
        pm = _exact_probs(p)
        for k, lab in enumerate(labels):
            got = lp_optimal_epsilon_details(labels, p, r=0.5, delta=delta, t=lab, metric="discrete")
            want = discrete_eps(pm[k], mpmath.mpf(delta))
            if want == mpmath.inf:
                assert got.epsilon == math.inf
            else:
                assert abs(got.epsilon_mp / want - 1) < 1e-40
        worst = lp_optimal_epsilon(labels, p, r=0.5, delta=delta, metric="discrete")
        want = min(discrete_eps(P, mpmath.mpf(delta)) for P in pm)
        assert worst == pytest.approx(float(want), rel=1e-14)


def test_discrete_optimal_epsilon_cases_without_a_bound():
    # p + delta >= 1 for the heavy value: only its lower side binds
    p = [0.75, 0.25]
    with mpmath.workdps(60):
        d = mpmath.mpf(0.3)
        P = _exact_probs(p)[0]
        want = mpmath.log((1 - P + d) * P / ((P - d) * (1 - P)))
        got = lp_optimal_epsilon_details(["x", "y"], p, r=0, delta=0.3, t="x", metric="discrete")
        assert got.side == "lower"
        assert abs(got.epsilon_mp / want - 1) < 1e-40
    # p <= delta: only the upper side binds; with sides="upper" the same number
    got = lp_optimal_epsilon(["x", "y"], p, r=0, delta=0.3, t="y", metric="discrete")
    assert got == pytest.approx(math.log((0.25 + 0.3) * 0.75 / (0.25 * (0.75 - 0.3))), rel=1e-14)
    # p + delta >= 1 and p <= delta for every value: no noise needed
    assert lp_optimal_epsilon(["x", "y"], [0.5, 0.5], r=0, delta=0.5, metric="discrete") == math.inf
    # r >= 1 makes every ball the whole space
    assert lp_optimal_epsilon(["x", "y"], p, r=1, delta=0.01, metric="discrete") == math.inf
    # sides="upper" drops the lower side: the heavy value no longer binds
    assert lp_optimal_epsilon(["x", "y"], p, r=0, delta=0.3, t="x", sides="upper",
                              metric="discrete") == math.inf


def test_two_points_scale_the_discrete_answer():
    # two points at distance d: any metric gives the discrete answer divided by d
    p = [0.3, 0.7]
    want = float(min(discrete_eps(P, mpmath.mpf(0.1)) for P in _exact_probs(p)))
    assert lp_optimal_epsilon([1.5, 4.0], p, r=1, delta=0.1) == pytest.approx(want / 2.5, rel=1e-14)
    pts = np.array([[0.0, 0.0], [3.0, 4.0]])
    for order, d in ((2, 5.0), (1, 7.0), (np.inf, 4.0)):
        got = lp_optimal_epsilon(pts, p, r=0.5, delta=0.1, metric=("lp", order))
        assert got == pytest.approx(want / d, rel=1e-14)
    got = lp_optimal_epsilon(["a", "b"], p, r=0.5, delta=0.1, metric=np.array([[0, 2.0], [2.0, 0]]))
    assert got == pytest.approx(want / 2, rel=1e-14)


# --- brute force over the vertices ----------------------------------------------------------------
def tree_vertices(dist):
    """Potentials D (log L = eps D) of every vertex of the LP, by brute force.

    A vertex has n - 1 tight constraints D_i - D_j = d_ij forming a spanning tree (all L > 0 at
    any feasible point); try every set of n - 1 directed pairs, keep spanning trees whose
    potentials satisfy all constraints.
    """
    n = len(dist)
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    out = []
    for combo in itertools.combinations(pairs, n - 1):
        adj = {k: [] for k in range(n)}
        for i, j in combo:
            adj[i].append((j, dist[i][j]))  # D_j = D_i - d
            adj[j].append((i, -dist[i][j]))  # D_i = D_j + d
        D = {0: 0.0}
        stack = [0]
        while stack:
            k = stack.pop()
            for m, step in adj[k]:
                if m not in D:
                    D[m] = D[k] - step
                    stack.append(m)
        if len(D) < n:
            continue
        Dv = np.array([D[k] for k in range(n)])
        if np.all(Dv[:, None] - Dv[None, :] <= np.asarray(dist) + 1e-12):
            out.append(Dv)
    return np.array(out)


def line_vertices(x):
    """All vertices on the real line: each neighbour gap tight one way or the other (2^(n-1)).

    A spanning tree of tight constraints crosses every gap between neighbours, and a tight
    constraint across several gaps makes each of them tight (|x_i - x_k| = sum of the gaps);
    conversely every sign pattern is feasible by the triangle inequality.
    """
    order = np.argsort(x)
    gaps = np.diff(np.asarray(x)[order])
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=len(gaps))))
    D_sorted = np.concatenate([np.zeros((len(signs), 1)), np.cumsum(signs * gaps, axis=1)], axis=1)
    D = np.empty_like(D_sorted)
    D[:, order] = D_sorted
    return D


def log_posteriors(D, p, inside, eps):
    """log posterior of ``inside`` at every vertex (rows of D)."""
    logw = eps * D + np.log(p)[None, :]
    return logsumexp(logw[:, inside], axis=1) - logsumexp(logw, axis=1)


def brute_extremes(D, p, inside, eps):
    lp = log_posteriors(D, p, inside, eps)
    return math.exp(lp.max()), math.exp(lp.min())


def _spaces(rng, n):
    """Tiny priors under every kind of metric the oracle takes."""
    x = rng.uniform(0, 3, n)
    yield x, "absolute", distances(x)
    pts = rng.uniform(0, 2, (n, 2))
    for order in (1, 2, np.inf):
        yield pts, ("lp", order), distances(pts, ("lp", order))
    labels = list(range(n))
    yield labels, "discrete", distances(labels, "discrete")
    # a graph metric: shortest paths over random edge weights
    w = rng.uniform(0.2, 2, (n, n))
    w = np.minimum(w, w.T)
    np.fill_diagonal(w, 0)
    for k in range(n):
        w = np.minimum(w, w[:, k][:, None] + w[k, :][None, :])
    yield labels, w, w


@pytest.mark.parametrize("n", [2, 3, 4])
def test_tiny_spaces_against_every_vertex(n):
    rng = np.random.default_rng(40 + n)
    for points, metric, dist in _spaces(rng, n):
        V = tree_vertices(dist)
        p = _probs(rng, n)
        for eps in (0.3, 2.0, 9.0):
            for inside in itertools.product((False, True), repeat=n):
                inside = np.array(inside)
                if not inside.any() or inside.all():
                    continue
                sup, inf = lp_posterior_extremes(points, p, inside, eps, metric=metric)
                bs, bi = brute_extremes(V, p, inside, eps)
                assert sup == pytest.approx(bs, rel=1e-12), (metric, eps, inside)
                assert inf == pytest.approx(bi, rel=1e-12), (metric, eps, inside)


@pytest.mark.parametrize("seed", range(4))
def test_line_against_every_vertex(seed):
    rng = np.random.default_rng(seed)
    n = 10
    x = np.sort(rng.uniform(0, 10, n)) + np.arange(n)  # uneven, distinct
    p = _probs(rng, n, tiny=2)
    rng.shuffle(p)
    V = line_vertices(x)
    for eps in (0.1, 1.0, 5.0, 30.0):  # up to eps * diameter ~ 500
        for c, r in ((x[3], 0.0), (x[5], 2.5), (x[0], 4.0), (x[-1] + 1, 3.0)):
            inside = np.abs(x - c) <= r
            if not inside.any():
                continue
            sup, inf = lp_posterior_extremes(x, p, inside, eps)
            bs, bi = brute_extremes(V, p, inside, eps)
            assert sup == pytest.approx(bs, rel=1e-12)
            assert inf == pytest.approx(bi, rel=1e-12)


@pytest.mark.parametrize("eps", [20.0, 60.0])
def test_line_with_extreme_spreads_against_every_vertex(eps):
    # eps * diameter up to ~2000: posteriors down to e^-1000, far below HiGHS's resolution and
    # below 50 digits next to 1; compared in log space (1 - sup S = inf of the complement)
    rng = np.random.default_rng(int(eps))
    x = np.cumsum(rng.uniform(0.5, 5, 11))
    p = _probs(rng, 11, tiny=2)
    rng.shuffle(p)
    V = line_vertices(x)
    for c, r in ((x[5], 3.0), (x[0], 0.0), (x[-1], 6.0)):
        S = np.abs(x - c) <= r
        for B in (S, ~S):
            got = lp_extreme(x, p, B, eps, sense="inf").value_mp
            want = log_posteriors(V, p, B, eps).min()
            assert float(mpmath.log(got)) == pytest.approx(want, rel=1e-12, abs=1e-10)


def brute_optimal_epsilon(x, p, r, delta, t=None, sides="both"):
    """eps* by vertex enumeration on the real line and scipy's brentq, condition by condition.

    Each condition reads min over vertices of post(B) >= p_B - delta (B: the ball's complement
    for the upper side, the ball for the lower side); p_B - delta is formed in mpmath from the
    exactly normalised masses, the rest in floats.
    """
    V = line_vertices(x)
    pm = _exact_probs(p)
    pf = np.array([float(v) for v in pm])
    ts = sorted(set(x.tolist())) if t is None else [t]
    best = math.inf
    for tv in ts:
        ball = np.abs(x - tv) <= r  # exact: the test points are dyadic
        sets = [~ball] + ([ball] if sides == "both" else [])
        for B in sets:
            if not B.any() or B.all():
                continue
            with mpmath.workdps(60):
                tau = mpmath.fsum(q for q, s in zip(pm, B, strict=True) if s) - mpmath.mpf(delta)
                if tau <= 0:
                    continue
                log_tau = float(mpmath.log(tau))

            def h(eps, B=B, log_tau=log_tau):
                return log_posteriors(V, pf, B, eps).min() - log_tau

            hi = 1.0
            while h(hi) >= 0:
                hi *= 2
            if best < math.inf and h(best) >= 0:
                continue
            best = min(best, brentq(h, 0.0, hi, xtol=1e-15, rtol=1e-15, maxiter=500))
    return best


@pytest.mark.parametrize("seed", sample(range(3), 2))
def test_optimal_epsilon_on_the_line_against_vertex_enumeration(seed):
    rng = np.random.default_rng(100 + seed)
    n = 9
    x = np.cumsum(rng.integers(1, 64, n)) / 16  # dyadic: balls are exact in floats
    p = _probs(rng, n, tiny=1)
    rng.shuffle(p)
    for r, delta in ((0.0, 0.05), (x[4] - x[2], 0.2), (1.0, 0.01)):
        for t in (None, float(x[3])):
            got = lp_optimal_epsilon(x, p, r=r, delta=delta, t=t)
            want = brute_optimal_epsilon(x, p, r, delta, t=t)
            assert got == pytest.approx(want, rel=1e-11), (r, delta, t)
        got = lp_optimal_epsilon(x, p, r=r, delta=delta, sides="upper")
        assert got == pytest.approx(brute_optimal_epsilon(x, p, r, delta, sides="upper"), rel=1e-11)


def test_optimal_epsilon_on_the_line_to_40_digits():
    # a 4-point line (8 vertices): the crossing of the enumerated envelope, bisected in mpmath
    x = np.array([0.0, 0.75, 2.0, 2.5])
    p = np.array([0.1, 0.2, 0.3, 0.4])
    r, delta = 0.75, 0.1
    got = lp_optimal_epsilon_details(x, p, r=r, delta=delta)
    with mpmath.workdps(60):
        pm = _exact_probs(p)
        V = [[mpmath.mpf(float(v)) for v in row] for row in line_vertices(x)]
        conds = []
        for tv in x:
            ball = np.abs(x - tv) <= r
            for B in (~ball, ball):
                tau = mpmath.fsum(q for q, s in zip(pm, B, strict=True) if s) - mpmath.mpf(delta)
                if B.any() and not B.all() and tau > 0:
                    conds.append((B, tau))

        def ok(eps):
            for B, tau in conds:
                for D in V:
                    w = [q * mpmath.exp(eps * d) for q, d in zip(pm, D, strict=True)]
                    if mpmath.fsum(wk for wk, s in zip(w, B, strict=True) if s) < tau * mpmath.fsum(w):
                        return False
            return True

        lo, hi = mpmath.mpf(0), mpmath.mpf(16)
        assert not ok(hi)
        for _ in range(170):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        assert abs(got.epsilon_mp / lo - 1) < 1e-45


# --- random feasible likelihoods never beat the LP; the witnesses attain it -------------------
@pytest.mark.parametrize("kind", ["absolute", "lp2", "discrete"])
def test_random_feasible_likelihoods_never_beat_the_lp(kind):
    rng = np.random.default_rng({"absolute": 1, "lp2": 2, "discrete": 3}[kind])
    n = 12
    if kind == "absolute":
        points, metric = rng.uniform(0, 5, n), "absolute"
    elif kind == "lp2":
        points, metric = rng.uniform(0, 3, (n, 2)), ("lp", 2)
    else:
        points, metric = list(range(n)), "discrete"
    dist = distances(points, metric)
    p = _probs(rng, n, tiny=1)
    for eps in (0.5, 4.0):
        inside = rng.random(n) < 0.4
        inside[0] = True
        sup, inf, L_sup, L_inf = lp_posterior_extremes(points, p, inside, eps, metric=metric,
                                                       witnesses=True)
        # random McShane extensions min_j (b_j + eps d(x, x_j)) are eps-Lipschitz log-likelihoods
        b = rng.uniform(-eps * dist.max(), 0, (2000, n))
        logL = np.min(b[:, None, :] + eps * dist[None, :, :], axis=2)
        post = np.exp(log_posteriors(logL, p, inside, 1.0))
        assert post.max() <= sup * (1 + 1e-12)
        assert post.min() >= inf * (1 - 1e-12)
        # the witnesses are feasible and attain the values
        for L, value in ((L_sup, sup), (L_inf, inf)):
            logw = np.log(L)
            assert np.all(logw[:, None] - logw[None, :] <= eps * dist + 1e-9)
            got = math.exp(log_posteriors(logw[None, :], p, inside, 1.0)[0])
            assert got == pytest.approx(value, rel=1e-10)


def test_sup_and_inf_are_monotone_in_epsilon():
    rng = np.random.default_rng(7)
    x = np.sort(rng.uniform(0, 10, 30))
    p = _probs(rng, 30, tiny=3)
    rng.shuffle(p)
    inside = np.abs(x - 4) <= 1.5
    values = [lp_extreme(x, p, inside, e, sense=s).value_mp
              for e in np.geomspace(0.01, 40, 14) for s in ("sup", "inf")]
    sups, infs = values[0::2], values[1::2]
    assert all(b >= a for a, b in itertools.pairwise(sups))
    assert all(b <= a for a, b in itertools.pairwise(infs))
    assert sups[-1] < 1 and infs[-1] > 0


# --- other routes to the same LP ---------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.2, 3.0, 25.0])
def test_all_pairs_and_exact_pivoting_without_highs_agree(eps):
    rng = np.random.default_rng(11)
    for points, metric in ((np.sort(rng.uniform(0, 8, 25)), "absolute"),
                           (rng.uniform(0, 3, (16, 2)), ("lp", 2))):
        n = len(points)
        p = _probs(rng, n, tiny=2)
        inside = ball_mask(points, points[n // 2], 1.0, metric)
        for sense in ("sup", "inf"):
            a = lp_extreme(points, p, inside, eps, sense=sense, metric=metric)
            b = lp_extreme(points, p, inside, eps, sense=sense, metric=metric, reduce=False)
            c = lp_extreme(points, p, inside, eps, sense=sense, metric=metric, start="star")
            assert abs(b.value_mp / a.value_mp - 1) < 1e-40
            assert abs(c.value_mp / a.value_mp - 1) < 1e-40


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_plain_highs_agrees_to_its_tolerance(eps):
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 4, 40)
    p = _probs(rng, 40)
    inside = np.abs(x - 2) <= 0.5
    sup, inf = lp_posterior_extremes(x, p, inside, eps)
    psup, pinf = highs_posterior_extremes(x, p, inside, eps)
    assert abs(psup - sup) < 1e-6
    assert abs(pinf - inf) < 1e-6


def test_80_digits_agree_with_50():
    rng = np.random.default_rng(3)
    x = np.cumsum(rng.integers(1, 40, 15)) / 8
    p = _probs(rng, 15, tiny=2)
    a = lp_optimal_epsilon_details(x, p, r=1.0, delta=0.05)
    b = lp_optimal_epsilon_details(x, p, r=1.0, delta=0.05, dps=80)
    with mpmath.workdps(80):
        assert abs(a.epsilon_mp / b.epsilon_mp - 1) < 1e-40


def test_the_optimal_epsilon_is_the_edge_of_feasibility():
    # at eps* the binding side equals p_S +- delta; below it every side holds, above it fails
    rng = np.random.default_rng(9)
    x = np.cumsum(rng.integers(1, 64, 20)) / 16
    p = _probs(rng, 20, tiny=2)
    r, delta = 1.5, 0.08
    res = lp_optimal_epsilon_details(x, p, r=r, delta=delta)
    inside = ball_mask(x, res.t, r)
    with mpmath.workdps(60):
        pS = mpmath.fsum(q for q, s in zip(_exact_probs(p), inside, strict=True) if s)
        sense = "sup" if res.side == "upper" else "inf"
        v = lp_extreme(x, p, inside, res.epsilon_mp, sense=sense).value_mp
        assert abs(abs(v - pS) - mpmath.mpf(delta)) < 1e-40

    def worst(eps):
        return max(max(s - P, P - i) for s, i, P in
                   ((*lp_posterior_extremes(x, p, m, eps), p[m].sum())
                    for m in (ball_mask(x, t, r) for t in x)))

    assert worst(res.epsilon * (1 - 1e-9)) <= delta
    assert worst(res.epsilon * (1 + 1e-9)) > delta


# --- the strategy for comparison tests --------------------------------------------------------
@ORACLE_SETTINGS
@given(prior=finite_priors())
def test_strategy_draws_valid_priors(prior):
    n = prior.points.size
    assert 2 <= n <= 40
    assert np.unique(prior.points).size == n
    assert np.all(prior.probs > 0) and abs(math.fsum(prior.probs) - 1) < 1e-12
    assert prior.r >= 0 and 1e-3 <= prior.delta <= 0.9
    assert np.all(prior.points * 64 == np.round(prior.points * 64))  # dyadic: exact distances


@settings(ORACLE_SETTINGS, max_examples=examples(25, 12))
@given(prior=finite_priors(max_n=8))
def test_random_priors_against_vertex_enumeration(prior):
    got = lp_optimal_epsilon(prior.points, prior.probs, r=prior.r, delta=prior.delta, t=prior.t)
    want = brute_optimal_epsilon(prior.points, prior.probs, prior.r, prior.delta, t=prior.t)
    if want == math.inf:
        assert got == math.inf
    else:
        assert got == pytest.approx(want, rel=1e-10)


@pytest.mark.slow
@settings(ORACLE_SETTINGS, max_examples=60)
@given(prior=finite_priors(min_n=9, max_n=13))
def test_random_priors_against_vertex_enumeration_larger(prior):
    got = lp_optimal_epsilon(prior.points, prior.probs, r=prior.r, delta=prior.delta, t=prior.t)
    want = brute_optimal_epsilon(prior.points, prior.probs, prior.r, prior.delta, t=prior.t)
    if want == math.inf:
        assert got == math.inf
    else:
        assert got == pytest.approx(want, rel=1e-10)


@pytest.mark.slow
@settings(ORACLE_SETTINGS, max_examples=40)
@given(prior=finite_priors(), data=st.data())
def test_random_priors_edge_of_feasibility(prior, data):
    # n up to 40: at eps*(1 -+ 1e-7) every side holds / some side fails, by direct LPs
    res = lp_optimal_epsilon_details(prior.points, prior.probs, r=prior.r, delta=prior.delta,
                                     t=prior.t)
    if res.epsilon == math.inf:
        return
    ts = [prior.t] if prior.t is not None else prior.points.tolist()

    def worst(eps):
        out = -1.0
        for t in ts:
            m = ball_mask(prior.points, t, prior.r)
            if not m.any() or m.all():
                continue
            s, i = lp_posterior_extremes(prior.points, prior.probs, m, eps)
            P = math.fsum(prior.probs[m])
            out = max(out, s - P, P - i)
        return out

    assert worst(res.epsilon * (1 - 1e-7)) <= prior.delta
    assert worst(res.epsilon * (1 + 1e-7)) > prior.delta


# --- input checks --------------------------------------------------------------------------------
def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="sum to 1"):
        lp_posterior_extremes([0, 1], [0.5, 0.6], [True, False], 1.0)
    with pytest.raises(ValueError, match="> 0"):
        lp_posterior_extremes([0, 1], [1.0, 0.0], [True, False], 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        lp_posterior_extremes([0, 1], [0.5, 0.5], [True, False], -1.0)
    with pytest.raises(ValueError, match="triangle"):
        lp_posterior_extremes([0, 1, 2], [0.2, 0.3, 0.5], [True, False, False], 1.0,
                              metric=np.array([[0, 1, 5.0], [1, 0, 1], [5, 1, 0]]))
    with pytest.raises(ValueError, match="delta"):
        lp_optimal_epsilon([0, 1], [0.5, 0.5], r=0, delta=1.0)
    with pytest.raises(ValueError, match="distance 0"):
        lp_posterior_extremes([0, 0, 1], [0.2, 0.3, 0.5], [True, False, False], 1.0)
