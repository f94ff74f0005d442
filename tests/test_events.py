"""Tests of AND / OR events (Sec. 4.2, 4.3, Theorems 1 and 2, Sec. 6.1).

Expected values come from brute-force enumeration of joint priors, closed forms written
out here, Monte Carlo with a fixed seed, and exact posteriors of a Laplace mechanism.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from garesearch.errors import InfeasibleError, ParameterError
from garesearch.events import (
    AllOf,
    AnyOf,
    Attribute,
    epsilon_for,
    epsilon_for_each,
    epsilon_for_goal,
    in_goal,
    or_blocks,
    or_probability,
)
from garesearch.priors import Categorical, Normal, Uniform

GENDER = {"M": 0.5, "F": 0.5}
COLOUR = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}
DELTA = 0.1


def two_sided(p, delta=DELTA, R=1.0):
    """Sec. 3.2 min(eps_lb, eps_ub), written out (inf where a side cannot bind)."""
    lb = -math.log(p / (1 - p) * (1 / (delta + p) - 1)) / R if p + delta < 1 else math.inf
    ub = -math.log((1 - p) / p * (1 / (delta + 1 - p) - 1)) / R if p > delta else math.inf
    return min(lb, ub)


@pytest.fixture
def cats():
    gender = Attribute(Categorical(GENDER), r=0, name="gender")
    colour = Attribute(Categorical(COLOUR), r=0, name="colour")
    return gender, colour


def joint():
    return {(g, c): pg * pc for g, pg in GENDER.items() for c, pc in COLOUR.items()}


# ---------------------------------------------------------------------- cats, Sec. 6.1
@pytest.mark.parametrize("tg, tc", list(itertools.product(GENDER, COLOUR)))
def test_cats_and_every_combination(cats, tg, tc):
    p = sum(w for (g, c), w in joint().items() if g == tg and c == tc)
    res = epsilon_for_goal(cats[0] & cats[1], delta=DELTA, t=[tg, tc], construction="sound")
    assert res.p == pytest.approx(p, rel=1e-12)
    assert res.epsilon == pytest.approx(two_sided(p), rel=1e-10)


@pytest.mark.parametrize("tg, tc", list(itertools.product(GENDER, COLOUR)))
def test_cats_or_every_combination(cats, tg, tc):
    p = sum(w for (g, c), w in joint().items() if g == tg or c == tc)
    assert p == pytest.approx(0.5 + 0.5 * COLOUR[tc])  # the paper's list
    res = epsilon_for_goal(cats[0] | cats[1], delta=DELTA, t={"gender": tg, "colour": tc}, construction="sound")
    assert res.p == pytest.approx(p, rel=1e-12)
    assert or_probability(cats[0] | cats[1], [tg, tc]) == pytest.approx(p, rel=1e-12)
    assert res.epsilon == pytest.approx(two_sided(p), rel=1e-10)


def test_cats_worst_cases_and_paper_numbers(cats):
    res = epsilon_for_goal(cats[0] & cats[1], delta=DELTA, construction="sound")
    assert res.t["colour"] == "black" and res.p == pytest.approx(0.2)
    assert res.epsilon == pytest.approx(0.539, abs=5e-4)  # paper
    assert res.laplace_scale() == pytest.approx(1.86, abs=5e-3)  # paper
    res = epsilon_for_goal(cats[0] | cats[1], delta=DELTA, construction="sound")
    assert res.t["colour"] == "white" and res.p == pytest.approx(0.55)  # not tortoise (paper)
    # p = 0.55 > 1/2: the lower side binds, eps_ub(0.55) = eps_lb(0.45)
    assert res.epsilon == pytest.approx(-math.log(0.45 / 0.55 * (1 / 0.55 - 1)), rel=1e-10)
    assert res.epsilon == pytest.approx(0.4013, abs=5e-5)
    tort = epsilon_for_goal(cats[0] | cats[1], delta=DELTA, t=["F", "tortoise"], construction="sound")
    assert tort.epsilon == pytest.approx(0.402, abs=5e-4)  # the paper's value
    assert tort.epsilon > res.epsilon


def test_cats_norm_scales_distance(cats):
    """Under l_1 two differing attributes are at distance 2, under l_2 at sqrt 2."""
    for norm, R in ((1.0, 2.0), (2.0, math.sqrt(2.0))):
        res = epsilon_for_goal(cats[0] & cats[1], delta=DELTA, t=["M", "black"], norm=norm, construction="sound")
        assert res.epsilon == pytest.approx(two_sided(0.2, R=R), rel=1e-10)


def test_or_of_and_sets_by_enumeration():
    a = Attribute(Categorical({"x": 0.3, "y": 0.7}), r=0, name="a")
    b = Attribute(Categorical({1: 0.2, 2: 0.5, 3: 0.3}), r=0, name="b")
    c = Attribute(Categorical({"u": 0.6, "v": 0.4}), r=0, name="c")
    goal = (a & b) | (b & c) | a
    for t in itertools.product(["x", "y"], [1, 2, 3], ["u", "v"]):
        p = 0.0
        for x in itertools.product(["x", "y"], [1, 2, 3], ["u", "v"]):
            w = {"x": 0.3, "y": 0.7}[x[0]] * {1: 0.2, 2: 0.5, 3: 0.3}[x[1]] * {"u": 0.6, "v": 0.4}[x[2]]
            hit = (x[0] == t[0] and x[1] == t[1]) or (x[1] == t[1] and x[2] == t[2]) or x[0] == t[0]
            p += w * hit
        assert or_probability(goal, list(t)) == pytest.approx(p, rel=1e-12)


# ---------------------------------------------------------------------- Theorem 1
def test_theorem1_two_normals_monte_carlo():
    x = Attribute(Normal(1.0, 2.0), r=0.5, name="x")
    y = Attribute(Normal(-1.0, 1.0), r=0.3, name="y")
    t = (1.4, -0.8)
    res = epsilon_for_goal(x & y, delta=0.05, t=t, sides="upper", construction="sound")
    rng = np.random.default_rng(12345)
    n = 400_000
    s = np.column_stack([rng.normal(1.0, 2.0, n), rng.normal(-1.0, 1.0, n)])
    r = np.array([0.5, 0.3])
    a = np.array(res.a)
    p_mc = np.mean(np.all(np.abs(s - t) <= r, axis=1))
    g_mc = np.mean(np.all(np.abs(s - t) <= a, axis=1))
    assert res.p == pytest.approx(p_mc, rel=0.03)
    assert res.ratio == pytest.approx(p_mc / (g_mc - p_mc), rel=0.04)
    # exponent: the largest l_inf distance between the boxes, max_i (a_i + r_i)
    assert res.distance == pytest.approx(np.max(a + r))
    eps_mc = -math.log(p_mc / (g_mc - p_mc) * (1 / (0.05 + p_mc) - 1)) / np.max(a + r)
    assert res.epsilon == pytest.approx(eps_mc, rel=0.05)
    paper = epsilon_for_goal(x & y, delta=0.05, t=t, a=list(res.a), sides="upper", construction="paper")
    assert paper.distance == pytest.approx(np.max(a))  # Theorem 1's exponent


def exact_worst_posterior(weights, inside, h, eps, ys):
    """Largest posterior of X' over outputs y of the eps-DP mechanism y = h(x) + Lap(1/eps)."""
    best = 0.0
    logw = np.log(np.maximum(weights, 1e-300))
    for yv in ys:
        lw = logw - eps * np.abs(yv - h)
        w = np.exp(lw - lw.max())
        best = max(best, w[inside].sum() / w.sum())
    return best


@pytest.mark.parametrize("event", ["and", "or"])
def test_sound_constructions_hold_for_laplace(event):
    """The returned epsilon keeps the exact posterior of a Laplace mechanism within p + delta."""
    pa, pb = Uniform(0.0, 4.0), Uniform(0.0, 2.0)
    xa = Attribute(pa, r=0.25, name="a")
    xb = Attribute(pb, r=0.25, name="b")
    t = (1.0, 0.6)
    goal = xa & xb if event == "and" else xa | xb
    res = epsilon_for_goal(goal, delta=0.1, t=t, sides="upper", construction="sound")
    ea = np.linspace(0, 4, 401)
    eb = np.linspace(0, 2, 201)
    ca, cb = (ea[:-1] + ea[1:]) / 2, (eb[:-1] + eb[1:]) / 2
    A, B = np.meshgrid(ca, cb, indexing="ij")
    W = np.outer(np.diff(ea) / 4, np.diff(eb) / 2)
    da, db = np.abs(A - t[0]) - 0.25, np.abs(B - t[1]) - 0.25
    inside = (da <= 0) & (db <= 0) if event == "and" else (da <= 0) | (db <= 0)
    # the l_inf distance to X' is 1-Lipschitz: an eps-DP release that favours X'
    dist = np.maximum(np.maximum(da, 0), np.maximum(db, 0)) if event == "and" else np.minimum(
        np.maximum(da, 0), np.maximum(db, 0))
    # (release, its l_inf sensitivity): Laplace scale sensitivity / epsilon is epsilon-DP
    for h, sens in ((dist, 1.0), (A, 1.0), (B, 1.0), (A + B, 2.0)):
        post = exact_worst_posterior(W, inside, h, res.epsilon / sens, np.linspace(-3, 7, 201))
        assert post <= W[inside].sum() + 0.1 + 1e-9


# ---------------------------------------------------------------------- OR blocks
def test_or_blocks_odds_match_closed_form():
    """Uniform priors: g(z) = 2z/W inside; alpha_K = prod_K g(a)/(g(a)-g(r)) - 1."""
    x = Attribute(Uniform(0.0, 10.0), r=0.5, name="x")
    y = Attribute(Uniform(0.0, 20.0), r=1.0, name="y")
    t, a = [5.0, 10.0], [3.0, 8.0]
    fx = (6 / 10) / (6 / 10 - 1 / 10)  # g(a)/(g(a)-g(r)) for x
    fy = (16 / 20) / (16 / 20 - 2 / 20)  # for y
    expected = {(0, 1): fx * fy - 1, (0,): fx - 1, (1,): fy - 1}
    seen = set()
    for blk in or_blocks(x | y, t, a, reach=1):
        if blk["K"]:
            assert blk["odds"] == pytest.approx(expected[blk["K"]], rel=1e-12)
            seen.add(blk["K"])
        else:
            assert blk["p_in"] == pytest.approx(0.0, abs=1e-15)
    assert seen == set(expected)
    res = epsilon_for_goal(x | y, delta=0.1, t=t, a=a, method="blocks", sides="upper", construction="sound")
    assert res.ratio == pytest.approx(fx * fy - 1, rel=1e-12)
    # largest l_inf distance inside a block: 2 a_i per coordinate, a_j + r_j in the one
    # coordinate that puts the point of X' in its ball
    D = max(max(3.0 + 0.5, 2 * 8.0), max(2 * 3.0, 8.0 + 1.0))
    assert res.distance == pytest.approx(D)
    p_or = 1 - (1 - 0.1) * (1 - 0.1)
    assert res.p == pytest.approx(p_or)
    eps = -math.log((fx * fy - 1) * (1 / (p_or + 0.1) - 1)) / D
    assert res.epsilon == pytest.approx(eps, rel=1e-12)


def test_paper_theorem2_as_printed():
    x = Attribute(Uniform(0.0, 10.0), r=0.5, name="x")
    y = Attribute(Uniform(0.0, 10.0), r=0.5, name="y")
    res = epsilon_for_goal(x | y, delta=0.1, t=[5, 5], a=[4.0, 4.0], construction="paper", sides="upper")
    h0 = (2 * 3.5 / 10) ** 2  # prod g(a_i - r_i)
    x0 = (2 * 4 / 10) ** 2 - h0
    e0 = -math.log(x0 / h0 * (1 / (0.1 + x0) - 1)) / 4.0  # exponent ||a||_inf
    ek = -math.log(0.1 / 0.7 * (1 / (0.1 + 0.1) - 1)) / 4.0
    assert res.epsilon == pytest.approx(min(e0, ek), rel=1e-12)


def test_in_goal_regions():
    x = Attribute(Uniform(-5, 5), r=1.0, name="x")
    y = Attribute(Uniform(-5, 5), r=2.0, name="y")
    pts = np.array([[0.5, 1.5], [0.5, 3.0], [3.0, 1.5], [3.0, 3.0]])
    assert in_goal(x & y, pts, [0, 0]).tolist() == [True, False, False, False]
    assert in_goal(x | y, pts, [0, 0]).tolist() == [True, True, True, False]


# ---------------------------------------------------------------------- entry points
def test_epsilon_for_dispatch(cats):
    from garesearch.attribute import epsilon_for_attribute

    prior = Categorical(COLOUR)
    direct = epsilon_for_attribute(prior, r=0, delta=DELTA)
    assert direct.epsilon == pytest.approx(min(two_sided(p) for p in COLOUR.values()), rel=1e-12)
    assert epsilon_for(prior, r=0, delta=DELTA).epsilon == direct.epsilon
    assert epsilon_for(cats[1], delta=DELTA).epsilon == direct.epsilon
    assert epsilon_for(cats[0] & cats[1], delta=DELTA).epsilon == pytest.approx(0.539, abs=5e-4)


def test_each_set_separately(cats):
    """Sec. 4.3 variant 1: the smallest epsilon over the sets."""
    res = epsilon_for_each([cats[0], cats[1]], delta=DELTA)
    expected = min(two_sided(p) for p in [*GENDER.values(), *COLOUR.values()])
    assert res.epsilon == pytest.approx(expected, rel=1e-10)
    assert res.results[res.worst].epsilon == res.epsilon


# ---------------------------------------------------------------------- bad input
def test_bad_input(cats):
    g, c = cats
    with pytest.raises(ParameterError):
        AllOf()
    with pytest.raises(ParameterError):
        AnyOf()
    with pytest.raises(ParameterError, match="twice"):
        epsilon_for_goal(g & g, delta=DELTA, construction="sound")
    prior = Normal(0, 1)
    with pytest.raises(ParameterError, match="prior object"):
        epsilon_for_goal(Attribute(prior, r=1) & Attribute(prior, r=1), delta=DELTA, t=[0, 0], construction="sound")
    with pytest.raises(ParameterError, match="named"):
        epsilon_for_goal(Attribute(Normal(0, 1), r=1, name="z") | Attribute(Normal(0, 1), r=1, name="z"),
                         delta=DELTA, t=[0, 0], construction="sound")
    with pytest.raises(ParameterError, match="one value per attribute"):
        epsilon_for_goal(g & c, delta=DELTA, t=["M"], construction="sound")
    with pytest.raises(ParameterError):
        epsilon_for_goal(g & c, delta=DELTA, t=["M", "purple"], construction="sound")
    for bad in (0, 1, -0.1, float("nan")):
        with pytest.raises(ParameterError, match="delta"):
            epsilon_for_goal(g & c, delta=bad, construction="sound")
    with pytest.raises(ParameterError, match="norm"):
        epsilon_for_goal(g & c, delta=DELTA, norm=0.5, construction="sound")
    with pytest.raises(ParameterError, match="r must"):
        Attribute(Uniform(0, 1), r=1.0)
    with pytest.raises(ParameterError, match="r must"):
        Attribute(Categorical(GENDER), r=1.0)
    with pytest.raises(ParameterError, match="r must"):
        Attribute(Normal(0, 1), r=-1)
    with pytest.raises(ParameterError, match="t is required"):
        epsilon_for_goal(Attribute(Normal(0, 1), r=1) & Attribute(Normal(0, 1), r=1), delta=DELTA, construction="sound")
    with pytest.raises(ParameterError, match="goal"):
        epsilon_for_goal("gender", delta=DELTA, construction="sound")
    with pytest.raises(ParameterError, match="a for attribute"):
        epsilon_for_goal(Attribute(Normal(0, 1), r=1) & Attribute(Normal(0, 1), r=1), delta=DELTA,
                         t=[0, 0], a=[0.5, 2.0], construction="sound")


def test_or_lower_side_with_a_ball_is_refused():
    from garesearch.events import Coordinates

    goal = Coordinates([Normal(0, 1), Normal(0, 1)], r=0.5) | Attribute(Normal(0, 1), r=0.5)
    with pytest.raises(InfeasibleError, match="sides='upper'"):
        epsilon_for_goal(goal, delta=0.1, t=[(0, 0), 0], construction="sound")


# ---------------------------------------------------------------------- OR, lower side
def test_or_lower_side_sound_for_exact_posteriors():
    """The pointwise lower side of an OR event against exact posteriors of l_1-DP mechanisms
    (independent Laplace per coordinate, and 1-d releases of 1-Lipschitz functions)."""
    from garesearch.constructions.or_lower import or_lower_epsilon as _or_lower_pointwise
    from garesearch.goals import attributes_of as _attributes

    px, py = _grid_prior(3.0, 15), _grid_prior(5.0, 15)
    x = Attribute(Categorical(px), r=1, name="x")
    y = Attribute(Categorical(py), r=1, name="y")
    goal, t, delta = x | y, [0.0, 1.0], 0.1
    X, Y = np.meshgrid(list(px), list(py), indexing="ij")
    W = np.outer(list(px.values()), list(py.values()))
    inside = (np.abs(X - t[0]) <= 1) | (np.abs(Y - t[1]) <= 1)
    p = W[inside].sum()
    assert or_probability(goal, t) == pytest.approx(p, rel=1e-12)
    terms = goal.terms()
    eps = _or_lower_pointwise(terms, _attributes(terms), t, delta, p)

    def lowest_posterior(e):
        lo = 1.0
        dist = np.minimum(np.maximum(np.abs(X - t[0]) - 1, 0), np.maximum(np.abs(Y - t[1]) - 1, 0))
        for h in (dist, X + Y, np.abs(X) + np.abs(Y - 1)):
            for yv in np.linspace(-40, 40, 401):
                lw = np.log(W) - e * np.abs(yv - h)
                w = np.exp(lw - lw.max())
                lo = min(lo, w[inside].sum() / w.sum())
        ys = np.linspace(-30, 30, 121)
        for y1 in ys:
            lw = np.log(W)[None] - e * (np.abs(y1 - X)[None] + np.abs(ys[:, None, None] - Y[None]))
            w = np.exp(lw - lw.max(axis=(1, 2), keepdims=True))
            lo = min(lo, ((w * inside[None]).sum(axis=(1, 2)) / w.sum(axis=(1, 2))).min())
        return lo

    assert lowest_posterior(eps) >= p - delta
    assert lowest_posterior(3 * eps) < p - delta  # and not far from tight


def test_or_lower_ratio_against_direct_integration():
    """I(eps) = int_C dF / K_1 with K_1 integrated on a fine grid (no closed forms)."""
    from garesearch.constructions.or_lower import or_lower_ratio
    from garesearch.goals import attributes_of as _attributes

    x = Attribute(Normal(0, 1), r=0.5, name="x")
    y = Attribute(Uniform(-3, 5), r=1.0, name="y")
    goal, t, e = x | y, [0.2, 1.0], 0.4
    terms = goal.terms()
    got = or_lower_ratio(terms, _attributes(terms), t, e)
    u = np.linspace(-12, 12, 4801)
    fu = np.exp(-0.5 * u**2) / math.sqrt(2 * math.pi) * (u[1] - u[0])
    v = np.linspace(-3, 5, 3201)
    fv = np.full(v.size, (v[1] - v[0]) / 8)
    fv[[0, -1]] /= 2

    def ker(a, w):
        """sum_j w_j e^{-e |a_i - a_j|} over the increasing grid a, as two running sums
        (e^{-e a_i} sum_{j <= i} w_j e^{e a_j} + e^{e a_i} sum_{j >= i} w_j e^{-e a_j}, the
        term j = i counted twice): the same sums as the kernel matrix's, without its n^2 terms."""
        down, up = np.exp(-e * a), np.exp(e * a)
        return down * np.cumsum(w * up) + up * np.cumsum((w * down)[::-1])[::-1] - w

    bx, by = np.abs(u - 0.2) <= 0.5, np.abs(v - 1.0) <= 1.0
    kx, mx = ker(u, fu * bx), ker(u, fu)
    ky, my = ker(v, fv * by), ker(v, fv)
    ox, oy = ~bx, ~by  # C: the grid points outside both bands
    K1 = np.outer(mx[ox], my[oy]) - np.outer((mx - kx)[ox], (my - ky)[oy])
    expected = np.sum(np.outer(fu[ox], fv[oy]) / K1)
    assert got == pytest.approx(expected, rel=2e-3)
    p = or_probability(goal, t)
    assert or_lower_ratio(terms, _attributes(terms), t, 0.0) == pytest.approx((1 - p) / p, rel=1e-9)


def test_or_lower_side_unbounded_now_two_sided():
    goal = Attribute(Normal(0, 1), r=0.5, name="x") | Attribute(Normal(0, 2), r=0.5, name="y")
    res = epsilon_for_goal(goal, delta=0.1, t=[0, 0], construction="sound")
    up = epsilon_for_goal(goal, delta=0.1, t=[0, 0], sides="upper", construction="sound")
    assert res.candidates["lower"] == "pointwise"
    assert 0 < res.epsilon_lower < math.inf
    assert res.epsilon == min(up.epsilon, res.epsilon_lower)


# ---------------------------------------------------------------------- l_p balls (Sec. 6.3)
SHIP_SIGMA = math.sqrt(1250.0)


@pytest.mark.parametrize("z", [1.0, 10.0, 35.0, 100.0])
def test_disc_mass_rayleigh(z):
    """Isotropic normal coordinates, disc at the centre: Rayleigh, 1 - exp(-z^2 / (2 sigma^2))."""
    from garesearch.events import lp_ball_mass

    priors = [Normal(0.0, SHIP_SIGMA), Normal(0.0, SHIP_SIGMA)]
    expected = -math.expm1(-(z**2) / (2 * 1250.0))
    for method in ("auto", "quad"):
        assert lp_ball_mass(priors, (0.0, 0.0), z, method=method) == pytest.approx(expected, rel=1e-9, abs=1e-14)


def test_ships_disc_prior_is_0392():
    from garesearch.events import Coordinates

    ship = Coordinates([Normal(0, SHIP_SIGMA), Normal(0, SHIP_SIGMA)], r=10, name="ship")
    assert ship.g((0.0, 0.0), 10.0) == pytest.approx(1 - math.exp(-100 / 2500), rel=1e-12)
    assert 1 - math.exp(-100 / 2500) == pytest.approx(0.0392, abs=5e-5)


@pytest.mark.parametrize("norm", [1.0, 2.0, 3.0, math.inf])
def test_ball_mass_monte_carlo(norm):
    from garesearch.events import lp_ball_mass

    t, z = (1.4, -0.8), 1.5
    rng = np.random.default_rng(2024)
    n = 400_000
    s = np.column_stack([rng.normal(1.0, 2.0, n), rng.normal(-1.0, 1.0, n)])
    d = np.linalg.norm(s - np.array(t), ord=norm, axis=1)
    mc = np.mean(d <= z)
    got = lp_ball_mass([Normal(1.0, 2.0), Normal(-1.0, 1.0)], t, z, norm=norm)
    assert abs(got - mc) < 4 * math.sqrt(mc * (1 - mc) / n)


def test_ball_mass_three_coordinates_monte_carlo():
    from garesearch.events import lp_ball_mass

    t, z = (0.3, 0.0, -0.5), 1.2
    rng = np.random.default_rng(7)
    n = 200_000
    s = np.column_stack([rng.normal(0, 1, n), rng.uniform(-2, 2, n), rng.normal(0, 0.7, n)])
    mc = np.mean(np.linalg.norm(s - np.array(t), axis=1) <= z)
    got = lp_ball_mass([Normal(0, 1), Uniform(-2, 2), Normal(0, 0.7)], t, z)
    assert abs(got - mc) < 4 * math.sqrt(mc * (1 - mc) / n)


def test_ball_mass_uniform_square_areas_and_ncx2():
    from garesearch.events import lp_ball_mass

    sq = [Uniform(0.0, 10.0), Uniform(0.0, 10.0)]
    assert lp_ball_mass(sq, (5, 5), 3.0, norm=2) == pytest.approx(math.pi * 9 / 100, rel=1e-9)
    assert lp_ball_mass(sq, (5, 5), 3.0, norm=1) == pytest.approx(2 * 9 / 100, rel=1e-9)
    # a disc cut by the corner of the square: a quarter disc
    assert lp_ball_mass(sq, (0, 0), 3.0, norm=2) == pytest.approx(math.pi * 9 / 400, rel=1e-9)
    # off-centre isotropic normals: the closed form (non-central chi-square) and the quadrature agree
    nn = [Normal(0.0, 1.5), Normal(2.0, 1.5)]
    for z in (0.5, 2.0, 4.0):
        assert lp_ball_mass(nn, (1.0, 0.5), z, method="quad") == pytest.approx(
            lp_ball_mass(nn, (1.0, 0.5), z), rel=1e-8)


def test_ball_mass_finite_prior_by_enumeration():
    from scipy.stats import norm as N

    from garesearch.events import lp_ball_mass

    vals = {-2: 0.1, -1: 0.2, 0: 0.3, 1: 0.25, 3: 0.15}
    t, z = (0.0, 0.5), 2.2
    expected = 0.0
    for x, w in vals.items():
        if abs(x) <= z:
            h = math.sqrt(z**2 - x**2)
            expected += w * (N.cdf(0.5 + h, 0.2, 1.3) - N.cdf(0.5 - h, 0.2, 1.3))
    assert lp_ball_mass([Categorical(vals), Normal(0.2, 1.3)], t, z) == pytest.approx(expected, rel=1e-12)


def test_linf_ball_is_the_and_box():
    from garesearch.events import Coordinates

    p1, p2 = Normal(0.0, 1.0), Normal(0.5, 2.0)
    ball = Coordinates([p1, p2], r=0.4, norm=math.inf)
    box = Attribute(Normal(0.0, 1.0), r=0.4) & Attribute(Normal(0.5, 2.0), r=0.4)
    e1 = epsilon_for_goal(ball, delta=0.1, t=(0.2, 0.1), sides="upper", construction="sound")
    e2 = epsilon_for_goal(box, delta=0.1, t=(0.2, 0.1), sides="upper", construction="sound")
    assert e1.p == pytest.approx(e2.p, rel=1e-12)
    # p = Pr[|X1 - 0.2| <= 0.4] Pr[|X2 - 0.1| <= 0.4], typed from erf
    s2 = math.sqrt(2)
    p = (math.erf(0.6 / s2) - math.erf(-0.2 / s2)) / 2 * (
        math.erf(0.0 / (2 * s2)) - math.erf(-0.8 / (2 * s2))) / 2
    assert e1.p == pytest.approx(p, rel=1e-12)
    assert e1.epsilon == pytest.approx(e2.epsilon, rel=1e-6)


def test_ships_upper_side_matches_eq_main_with_rayleigh_masses():
    """At the returned radius, Eq. (main) with the Rayleigh masses and exponent a + r."""
    from garesearch.events import Coordinates

    ship = Coordinates([Normal(0, SHIP_SIGMA), Normal(0, SHIP_SIGMA)], r=10)
    res = epsilon_for_goal(ship, delta=0.1, t=(0.0, 0.0), construction="sound")
    a = res.a[0]
    p = 1 - math.exp(-100 / 2500)
    q = math.exp(-100 / 2500) - math.exp(-(a**2) / 2500)
    assert res.distance == pytest.approx(a + 10)
    assert res.epsilon == pytest.approx(-math.log(p / q * (1 / (0.1 + p) - 1)) / (a + 10), rel=1e-9)
    # a is the maximiser: Eq. (main) on a fine grid of radii is never larger
    grid = np.linspace(10.5, 200, 4000)
    qs = np.exp(-100 / 2500) - np.exp(-(grid**2) / 2500)
    eps = -np.log(p / qs * (1 / (0.1 + p) - 1)) / (grid + 10)
    assert res.epsilon >= eps.max() * (1 - 1e-9)
    assert res.epsilon == pytest.approx(eps.max(), rel=1e-5)


def _grid_prior(sigma, half=12):
    xs = np.arange(-half, half + 1)
    w = np.exp(-0.5 * (xs / sigma) ** 2)
    w /= w.sum()
    return {int(x): float(v) for x, v in zip(xs, w, strict=True)}


def test_disc_epsilon_sound_for_l2_mechanisms():
    """Exact posteriors of eps-DP mechanisms w.r.t. l_2 on a discrete 2-D prior stay within p +- delta."""
    from garesearch.events import Coordinates

    px, py = _grid_prior(4.0), _grid_prior(3.0)
    goal = Coordinates([Categorical(px), Categorical(py)], r=2.5, norm=2)
    t, delta = (1.0, 0.0), 0.1
    res = epsilon_for_goal(goal, delta=delta, t=t, construction="sound")
    X, Y = np.meshgrid(list(px), list(py), indexing="ij")
    W = np.outer(list(px.values()), list(py.values()))
    pts = np.stack([X, Y], axis=-1).astype(float)
    dist_t = np.linalg.norm(pts - np.array(t), axis=-1)
    inside = dist_t <= 2.5
    p = W[inside].sum()
    assert res.p == pytest.approx(p, rel=1e-12) and p > delta  # both sides bind somewhere
    eps = res.epsilon
    lo, hi = 1.0, 0.0
    # 1-d releases h(x) + Lap(1/eps) with h 1-Lipschitz w.r.t. l_2
    for h in (dist_t, np.maximum(dist_t - 2.5, 0), X.astype(float), (X + Y) / math.sqrt(2)):
        for yv in np.linspace(-20, 20, 801):
            lw = np.log(W) - eps * np.abs(yv - h)
            w = np.exp(lw - lw.max())
            post = w[inside].sum() / w.sum()
            lo, hi = min(lo, post), max(hi, post)
    # planar Laplace: density proportional to exp(-eps ||y - x||_2), eps-DP w.r.t. l_2
    ys = np.stack(np.meshgrid(np.linspace(-25, 25, 101), np.linspace(-25, 25, 101)), axis=-1).reshape(-1, 2)
    d = np.linalg.norm(ys[:, None, :] - pts.reshape(1, -1, 2), axis=-1)
    lw = np.log(W.reshape(1, -1)) - eps * d
    w = np.exp(lw - lw.max(axis=1, keepdims=True))
    post = w[:, inside.ravel()].sum(axis=1) / w.sum(axis=1)
    lo, hi = min(lo, post.min()), max(hi, post.max())
    assert hi <= p + delta + 1e-12
    assert lo >= p - delta - 1e-12
    # the bound is not vacuous: at a few times epsilon the advantage exceeds delta
    lw = np.log(W) - 4 * eps * np.abs(0.0 - dist_t)
    w = np.exp(lw - lw.max())
    assert w[inside].sum() / w.sum() > p + delta


def test_coordinates_bad_input():
    from garesearch.events import Coordinates, lp_ball_mass

    with pytest.raises(ParameterError, match="at least two"):
        Coordinates([Normal(0, 1)], r=1)
    prior = Normal(0, 1)
    with pytest.raises(ParameterError, match="share"):
        Coordinates([prior, prior], r=1)
    with pytest.raises(ParameterError, match="r must"):
        Coordinates([Normal(0, 1), Normal(0, 1)], r=-1)
    with pytest.raises(ParameterError, match="norm"):
        Coordinates([Normal(0, 1), Normal(0, 1)], r=1, norm=0.5)
    with pytest.raises(ParameterError, match="numeric"):
        Coordinates([Normal(0, 1), Categorical({"a": 1.0})], r=1)
    with pytest.raises(ParameterError, match="2 numbers"):
        epsilon_for_goal(Coordinates([Normal(0, 1), Normal(0, 1)], r=1), delta=0.1, t=(0.0, 0.0, 1.0), construction="sound")
    with pytest.raises(ParameterError):
        lp_ball_mass([Normal(0, 1)], (0.0, 1.0), 1.0)
    ball = Coordinates([Normal(0, 1), Normal(0, 1)], r=1, name="b")
    with pytest.raises(ParameterError, match="prior object"):
        epsilon_for_goal(ball & Attribute(ball.priors[0], r=1), delta=0.1, t=[(0, 0), 0], construction="sound")


def test_in_goal_with_a_disc():
    from garesearch.events import Coordinates

    ball = Coordinates([Uniform(-5, 5), Uniform(-5, 5)], r=2.0, name="b")
    z = Attribute(Uniform(-5, 5), r=1.0, name="z")
    pts = np.array([[1.0, 1.0, 0.0], [1.5, 1.5, 0.0], [1.0, 1.0, 3.0]])
    assert in_goal(ball & z, pts, {"b": (0, 0), "z": 0}).tolist() == [True, False, False]
    assert in_goal(ball | z, pts, {"b": (0, 0), "z": 0}).tolist() == [True, True, True]


# ---------------------------------------------------------------------- per-attribute radii
def _and_eps_grid(s1, s2, r1, r2, delta, norm, A1, A2):
    """Eq. (main) for two centred normals at radii (A1, A2), written out with scipy's CDF."""
    from scipy.stats import norm as N

    g = lambda s, z: N.cdf(z / s) - N.cdf(-z / s)  # noqa: E731
    p = g(s1, r1) * g(s2, r2)
    q = g(s1, A1) * g(s2, A2) - p
    D = np.linalg.norm(np.stack([A1 + r1, A2 + r2]), ord=norm, axis=0)
    return -np.log(p / q * (1 / (delta + p) - 1)) / D


@pytest.mark.parametrize("norm", [1.0, 2.0])
def test_each_radius_beats_common_and_matches_brute_force(norm):
    x = Attribute(Normal(0, 1), r=0.5, name="x")
    y = Attribute(Normal(0, 2), r=0.5, name="y")
    common = epsilon_for_goal(x & y, delta=0.1, t=(0, 0), norm=norm, sides="upper", construction="sound")
    each = epsilon_for_goal(x & y, delta=0.1, t=(0, 0), norm=norm, sides="upper", radii="each", construction="sound")
    A1, A2 = np.meshgrid(np.linspace(0.6, 6, 541), np.linspace(0.6, 10, 941), indexing="ij")
    grid = _and_eps_grid(1.0, 2.0, 0.5, 0.5, 0.1, norm, A1, A2)
    assert each.epsilon >= grid.max() * (1 - 1e-9)
    assert each.epsilon == pytest.approx(grid.max(), rel=1e-4)
    i, j = np.unravel_index(np.argmax(grid), grid.shape)
    assert each.a == pytest.approx((A1[i, j], A2[i, j]), abs=0.03)
    assert each.epsilon > common.epsilon * 1.05  # a real gain over one common radius
    assert each.candidates["common_a"] == pytest.approx(common.epsilon, rel=1e-9)
    assert each.candidates["local_optimum"]


def test_each_radius_linf_lies_on_the_ridge():
    """Under l_inf the optimum has a_i + r_i equal (a larger a_i is free until it sets the max)."""
    x = Attribute(Normal(1.0, 2.0), r=0.5, name="x")
    y = Attribute(Normal(-1.0, 1.0), r=0.3, name="y")
    res = epsilon_for_goal(x & y, delta=0.05, t=(1.4, -0.8), sides="upper", radii="each", construction="sound")
    a1, a2 = res.a
    assert a1 + 0.5 == pytest.approx(a2 + 0.3, rel=1e-6)
    D = np.linspace(1.0, 12.0, 110001)
    from scipy.stats import norm as N

    g1 = lambda z: N.cdf(1.4 + z, 1.0, 2.0) - N.cdf(1.4 - z, 1.0, 2.0)  # noqa: E731
    g2 = lambda z: N.cdf(-0.8 + z, -1.0, 1.0) - N.cdf(-0.8 - z, -1.0, 1.0)  # noqa: E731
    p = g1(0.5) * g2(0.3)
    q = g1(D - 0.5) * g2(D - 0.3) - p
    eps = -np.log(p / q * (1 / (0.05 + p) - 1)) / D
    assert res.epsilon == pytest.approx(np.nanmax(eps), rel=1e-7)


def test_each_radius_or_blocks_not_worse():
    x = Attribute(Normal(0, 1), r=0.5, name="x")
    y = Attribute(Normal(0, 2), r=0.5, name="y")
    each = epsilon_for_goal(x | y, delta=0.1, t=(0, 0), norm=2, sides="upper", radii="each", construction="sound")
    assert each.epsilon >= each.candidates["common_a"]
    # recompute the corrected Theorem 2 at the returned radii from its closed form
    from scipy.stats import norm as N

    g = lambda s, z: N.cdf(z / s) - N.cdf(-z / s)  # noqa: E731
    (a1, a2), r = each.a, 0.5
    alpha = g(1, a1) / (g(1, a1) - g(1, r)) * g(2, a2) / (g(2, a2) - g(2, r)) - 1
    D = max(math.hypot(a1 + r, 2 * a2), math.hypot(2 * a1, a2 + r))
    p_or = 1 - (1 - g(1, r)) * (1 - g(2, r))
    assert each.epsilon == pytest.approx(-math.log(alpha * (1 / (p_or + 0.1) - 1)) / D, rel=1e-10)
    with pytest.raises(ParameterError, match="radii"):
        epsilon_for_goal(x | y, delta=0.1, t=(0, 0), radii="all", construction="sound")


# ---------------------------------------------------------------------- Theorem 2 counterexample
def test_theorem2_counterexample_by_hand():
    from garesearch.events import theorem2_counterexample

    s, delta = 0.08, 0.1
    out = theorem2_counterexample(delta=delta, s=s)
    # printed formula: g(a) = 1, g(a - 1) = g(r) = s -> eps_0 = inf, eps_k from the block prior s
    eps_k = -math.log(s / (1 - s) * (1 / (delta + s) - 1)) / 4
    assert out["eps_0"] == math.inf
    assert out["epsilon_printed"] == pytest.approx(eps_k, rel=1e-12)
    assert out["epsilon_printed"] == pytest.approx(0.2315, abs=5e-5)
    p = 1 - (1 - s) ** 2
    assert out["p"] == pytest.approx(p, rel=1e-12)
    # release: l_inf distance to the records of X' (0 on X', 4 on the wrong records) + Laplace;
    # every output y <= 0 gives the posterior below; check a brute-force sweep over outputs
    vals = [-4, 0, 4]
    w = {v: (s if v == 0 else (1 - s) / 2) for v in vals}
    best = 0.0
    for y in np.linspace(-10, 10, 2001):
        num = den = 0.0
        for u in vals:
            for v in vals:
                hit = u == 0 or v == 0
                lik = math.exp(-eps_k * abs(y - (0 if hit else 4)))
                den += w[u] * w[v] * lik
                num += w[u] * w[v] * lik * hit
        best = max(best, num / den)
    closed = p / (p + (1 - p) * math.exp(-4 * eps_k))
    assert best == pytest.approx(closed, rel=1e-12)
    assert out["posterior"] == pytest.approx(closed, rel=1e-12)
    assert out["advantage"] > delta + 0.05  # 0.161 > 0.1
    # the corrected construction keeps the same mechanism within delta
    assert out["advantage_sound"] <= delta


def test_or_lower_side_grid_fits_in_memory(monkeypatch):
    """Three continuous attributes used to need a (504, 480, 504) grid. The grid is now
    bounded; fewer panels per attribute leave the lower-side ratio unchanged to 1e-8 on a
    two-attribute goal (full grid vs a budget that forces fewer panels)."""
    import garesearch.constructions.or_lower as orl
    import garesearch.events as ev

    x = ev.Attribute(Normal(0, 1), r=0.3, name="x")
    y = ev.Attribute(Uniform(0, 4), r=0.3, name="y")
    z = ev.Attribute(Normal(0, 2), r=0.3, name="z")
    res = ev.epsilon_for_goal(x | (y & z), delta=0.1, t={"x": 0.0, "y": 2.0, "z": 0.0}, construction="sound")
    assert 0 < res.epsilon_lower < math.inf
    terms, atts, tv = [(x,), (z,)], [x, z], [0.0, 0.0]
    full = ev.or_lower_ratio(terms, atts, tv, 0.2)
    monkeypatch.setattr(orl, "_GRID_BUDGET", 20_000)
    small = ev.or_lower_ratio(terms, atts, tv, 0.2)
    assert small == pytest.approx(full, rel=1e-8)
