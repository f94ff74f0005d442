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
    res = epsilon_for_goal(cats[0] & cats[1], delta=DELTA, t=[tg, tc])
    assert res.p == pytest.approx(p, rel=1e-12)
    assert res.epsilon == pytest.approx(two_sided(p), rel=1e-10)


@pytest.mark.parametrize("tg, tc", list(itertools.product(GENDER, COLOUR)))
def test_cats_or_every_combination(cats, tg, tc):
    p = sum(w for (g, c), w in joint().items() if g == tg or c == tc)
    assert p == pytest.approx(0.5 + 0.5 * COLOUR[tc])  # the paper's list
    res = epsilon_for_goal(cats[0] | cats[1], delta=DELTA, t={"gender": tg, "colour": tc})
    assert res.p == pytest.approx(p, rel=1e-12)
    assert or_probability(cats[0] | cats[1], [tg, tc]) == pytest.approx(p, rel=1e-12)
    assert res.epsilon == pytest.approx(two_sided(p), rel=1e-10)


def test_cats_worst_cases_and_paper_numbers(cats):
    res = epsilon_for_goal(cats[0] & cats[1], delta=DELTA)
    assert res.t["colour"] == "black" and res.p == pytest.approx(0.2)
    assert res.epsilon == pytest.approx(0.539, abs=5e-4)  # paper
    assert res.laplace_scale() == pytest.approx(1.86, abs=5e-3)  # paper
    res = epsilon_for_goal(cats[0] | cats[1], delta=DELTA)
    assert res.t["colour"] == "white" and res.p == pytest.approx(0.55)  # not tortoise (paper)
    # p = 0.55 > 1/2: the lower side binds, eps_ub(0.55) = eps_lb(0.45)
    assert res.epsilon == pytest.approx(-math.log(0.45 / 0.55 * (1 / 0.55 - 1)), rel=1e-10)
    assert res.epsilon == pytest.approx(0.4013, abs=5e-5)
    tort = epsilon_for_goal(cats[0] | cats[1], delta=DELTA, t=["F", "tortoise"])
    assert tort.epsilon == pytest.approx(0.402, abs=5e-4)  # the paper's value
    assert tort.epsilon > res.epsilon


def test_cats_norm_scales_distance(cats):
    """Under l_1 two differing attributes are at distance 2, under l_2 at sqrt 2."""
    for norm, R in ((1.0, 2.0), (2.0, math.sqrt(2.0))):
        res = epsilon_for_goal(cats[0] & cats[1], delta=DELTA, t=["M", "black"], norm=norm)
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
    res = epsilon_for_goal(x & y, delta=0.05, t=t, sides="upper")
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
    res = epsilon_for_goal(goal, delta=0.1, t=t, sides="upper")
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
    res = epsilon_for_goal(x | y, delta=0.1, t=t, a=a, method="blocks", sides="upper")
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
        epsilon_for_goal(g & g, delta=DELTA)
    prior = Normal(0, 1)
    with pytest.raises(ParameterError, match="prior object"):
        epsilon_for_goal(Attribute(prior, r=1) & Attribute(prior, r=1), delta=DELTA, t=[0, 0])
    with pytest.raises(ParameterError, match="named"):
        epsilon_for_goal(Attribute(Normal(0, 1), r=1, name="z") | Attribute(Normal(0, 1), r=1, name="z"),
                         delta=DELTA, t=[0, 0])
    with pytest.raises(ParameterError, match="one value per attribute"):
        epsilon_for_goal(g & c, delta=DELTA, t=["M"])
    with pytest.raises(ParameterError):
        epsilon_for_goal(g & c, delta=DELTA, t=["M", "purple"])
    for bad in (0, 1, -0.1, float("nan")):
        with pytest.raises(ParameterError, match="delta"):
            epsilon_for_goal(g & c, delta=bad)
    with pytest.raises(ParameterError, match="norm"):
        epsilon_for_goal(g & c, delta=DELTA, norm=0.5)
    with pytest.raises(ParameterError, match="r must"):
        Attribute(Uniform(0, 1), r=1.0)
    with pytest.raises(ParameterError, match="r must"):
        Attribute(Categorical(GENDER), r=1.0)
    with pytest.raises(ParameterError, match="r must"):
        Attribute(Normal(0, 1), r=-1)
    with pytest.raises(ParameterError, match="t is required"):
        epsilon_for_goal(Attribute(Normal(0, 1), r=1) & Attribute(Normal(0, 1), r=1), delta=DELTA)
    with pytest.raises(ParameterError, match="goal"):
        epsilon_for_goal("gender", delta=DELTA)
    with pytest.raises(ParameterError, match="a for attribute"):
        epsilon_for_goal(Attribute(Normal(0, 1), r=1) & Attribute(Normal(0, 1), r=1), delta=DELTA,
                         t=[0, 0], a=[0.5, 2.0])


def test_or_lower_side_unbounded_is_refused():
    goal = Attribute(Normal(0, 1), r=0.5) | Attribute(Normal(0, 1), r=0.5)
    with pytest.raises(InfeasibleError, match="sides='upper'"):
        epsilon_for_goal(goal, delta=0.1, t=[0, 0])
