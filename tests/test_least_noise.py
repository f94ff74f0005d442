"""The least-noise mechanism (garesearch.optimal.least_noise) against values found another way: a
hand-derived optimum, an exact vertex enumeration in fractions, posteriors and DP ratios
recomputed here from the matrix, the constant mechanisms, and the Laplace mechanism's cell
masses and expected noise in mpmath and by quadrature."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
from scipy import integrate

from garesearch.errors import InfeasibleError, ParameterError
from garesearch.optimal import least_noise as ln
from garesearch.priors import Categorical, Normal

#: one worker runs this module: its module fixture solves the LPs once
pytestmark = pytest.mark.xdist_group("least_noise")


# --- independent checks of a matrix ---------------------------------------------------------
def worst_excess(values, probs, matrix, r, sides="both", metric="absolute"):
    """The largest posterior excess over every atom's ball and every output of positive
    probability, from the definition (loops, no vectorisation)."""
    worst = -math.inf
    n, m = matrix.shape
    for t in range(n):
        if metric == "absolute":
            ball = [i for i in range(n) if abs(values[i] - values[t]) <= r]
        else:
            ball = [t] if r < 1 else list(range(n))
        prior = math.fsum(probs[i] for i in ball)
        for j in range(m):
            q = math.fsum(probs[i] * matrix[i, j] for i in range(n))
            if q <= 0:
                continue
            post = math.fsum(probs[i] * matrix[i, j] for i in ball) / q
            if sides in ("both", "upper"):
                worst = max(worst, post - prior)
            if sides in ("both", "lower"):
                worst = max(worst, prior - post)
    return worst


def expected_cost(values, probs, outputs, matrix, kind="abs"):
    def c(x, y):
        d = abs(x - y)
        return {"abs": d, "sq": d * d, "zero_one": float(d != 0)}[kind]

    return math.fsum(probs[i] * matrix[i, j] * c(values[i], outputs[j])
                     for i in range(len(values)) for j in range(len(outputs)))


def assert_dp(values, matrix, epsilon, rtol=1e-9):
    """Every pair of inputs, not only neighbours: M[i, j] <= e^{eps |x_i - x_k|} M[k, j]."""
    for i, k in itertools.permutations(range(len(values)), 2):
        bound = math.exp(epsilon * abs(values[i] - values[k])) * matrix[k]
        assert np.all(matrix[i] <= bound * (1 + rtol) + 1e-15), (i, k)


def salary_grid(n=15):
    return ln.discretise(Normal(2000, 235.7), n, lo=2000 - 3 * 235.7, hi=2000 + 3 * 235.7)


# --- a hand-derived optimum -------------------------------------------------------------------
@pytest.mark.parametrize("delta", [0.05, 0.1, 0.3])
@pytest.mark.parametrize("sides", ["both", "upper", "lower"])
def test_fair_coin_by_hand(delta, sides):
    """Fair coin, r = 0, outputs {0, 1}, M = [[a, 1-a], [b, 1-b]].  The posterior of {0} after
    output 0 is a / (a + b) and of {1} is its complement, so either side alone requires
    a / (a + b) <= 1/2 + delta and (1-a) / (2-a-b) >= 1/2 - delta.  The program is symmetric
    under swapping the values, so a symmetric optimum b = 1 - a exists: a <= 1/2 + delta, and
    the least error Pr[y != x] = (1 - a) is 1/2 - delta, at a = 1/2 + delta."""
    res = ln.least_noise_mechanism(Categorical({0: 0.5, 1: 0.5}), r=0, delta=delta, sides=sides)
    assert res.status == 0
    assert res.expected_cost == pytest.approx(0.5 - delta, abs=1e-9)
    assert worst_excess([0, 1], [0.5, 0.5], res.matrix, 0, sides) <= delta + 1e-12


# --- an exact vertex enumeration ---------------------------------------------------------------
def _solve(rows, rhs):
    """Gaussian elimination in fractions; None if singular."""
    k = len(rows)
    a = [[Fraction(v) for v in row] + [Fraction(b)] for row, b in zip(rows, rhs, strict=True)]
    for col in range(k):
        piv = next((i for i in range(col, k) if a[i][col] != 0), None)
        if piv is None:
            return None
        a[col], a[piv] = a[piv], a[col]
        for i in range(k):
            if i != col and a[i][col] != 0:
                f = a[i][col] / a[col][col]
                a[i] = [u - f * v for u, v in zip(a[i], a[col], strict=True)]
    return [a[i][k] / a[i][i] for i in range(k)]


def brute_force(values, probs, outputs, r, delta, dp_factor=None):
    """The least expected |y - x| over two-output mechanisms M[i] = (a_i, 1 - a_i), by
    enumerating every vertex of the feasible polytope in exact arithmetic.  ``dp_factor``:
    e^{eps} for unit gaps between neighbouring values."""
    n = len(values)
    p = [Fraction(v) for v in probs]
    delta = Fraction(delta)
    cons = []  # (coefficients g, constant h): g . a + h <= 0
    for i in range(n):
        cons.append(([-1 if k == i else 0 for k in range(n)], 0))
        cons.append(([1 if k == i else 0 for k in range(n)], -1))
    for t in range(n):
        ball = {i for i in range(n) if abs(values[i] - values[t]) <= r}
        mass = sum(p[i] for i in ball)
        for sign in (1, -1):  # upper: sum_B J - (P + d) q; lower: (P - d) q - sum_B J
            level = mass + sign * delta
            coef = [sign * (p[i] * (1 if i in ball else 0) - level * p[i]) for i in range(n)]
            cons.append((coef, 0))  # output 0: M = a
            cons.append(([-v for v in coef], sum(coef)))  # output 1: M = 1 - a
    if dp_factor is not None:
        f = Fraction(dp_factor)
        for i, k in itertools.permutations(range(n), 2):
            if abs(values[i] - values[k]) == 1:
                g = [0] * n
                g[i], g[k] = 1, -f
                cons.append((g, 0))  # a_i - f a_k <= 0
                cons.append(([-v for v in g], 1 - f))  # (1 - a_i) - f (1 - a_k) <= 0
    cost = [p[i] * (abs(values[i] - outputs[0]) - abs(values[i] - outputs[1])) for i in range(n)]
    const = sum(p[i] * abs(values[i] - outputs[1]) for i in range(n))
    g_float = np.array([[float(v) for v in g] for g, _ in cons])
    h_float = np.array([float(h) for _, h in cons])
    best = None
    for chosen in itertools.combinations(range(len(cons)), n):
        try:  # a float screen first: only vertices feasible to 1e-9 are solved exactly
            a = np.linalg.solve(g_float[list(chosen)], -h_float[list(chosen)])
            if np.any(g_float @ a + h_float > 1e-9):
                continue
        except np.linalg.LinAlgError:
            pass
        a = _solve([cons[k][0] for k in chosen], [-cons[k][1] for k in chosen])
        if a is None or any(sum(gi * ai for gi, ai in zip(g, a, strict=True)) + h > 0 for g, h in cons):
            continue
        value = const + sum(c * ai for c, ai in zip(cost, a, strict=True))
        best = value if best is None or value < best else best
    return best


CASES = [
    ([0, 1], [Fraction(3, 10), Fraction(7, 10)], [0, 1], 0, Fraction(1, 10)),
    ([0, 1, 2], [Fraction(1, 5), Fraction(1, 2), Fraction(3, 10)], [0, 2], 0, Fraction(1, 10)),
    ([0, 1, 2], [Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)], [0, 2], 1, Fraction(3, 20)),
    ([0, 1, 2], [Fraction(1, 10), Fraction(3, 5), Fraction(3, 10)], [-1, 3], 0, Fraction(1, 5)),
]


@pytest.mark.parametrize("case", CASES, ids=["binary", "three", "three-r1", "outputs-outside"])
@pytest.mark.parametrize("dp", [False, True], ids=["delta-only", "dp-ln2"])
def test_two_outputs_against_vertex_enumeration(case, dp):
    values, probs, outputs, r, delta = case
    want = brute_force(values, probs, outputs, r, delta, dp_factor=2 if dp else None)
    prior = Categorical(dict(zip(values, [float(v) for v in probs], strict=True)))
    res = ln.least_noise_mechanism(prior, r=r, delta=float(delta), outputs=outputs,
                                   dp_epsilon=math.log(2) if dp else None)
    assert res.expected_cost == pytest.approx(float(want), abs=1e-8)
    assert res.expected_cost == pytest.approx(
        expected_cost(values, [float(v) for v in probs], outputs, res.matrix), abs=1e-12)
    assert worst_excess(values, [float(v) for v in probs], res.matrix, r) <= float(delta) + 1e-12
    if dp:
        assert_dp(values, res.matrix, math.log(2))


# --- posteriors and DP ratios recomputed here --------------------------------------------------
@pytest.fixture(scope="module")
def salary():
    prior = salary_grid()
    best = ln.least_noise_mechanism(prior, r=100, delta=0.1)
    dp = ln.least_noise_mechanism(prior, r=100, delta=0.1, dp_epsilon=best.optimal_epsilon)
    return prior, best, dp


def test_every_posterior_within_delta(salary):
    prior, best, dp = salary
    x, p = prior.points.tolist(), prior.probs.tolist()
    for res in (best, dp):
        assert np.allclose(res.matrix.sum(axis=1), 1, atol=1e-12) and np.all(res.matrix >= 0)
        worst = worst_excess(x, p, res.matrix, 100)
        assert worst <= 0.1 + 1e-12
        assert res.advantage == pytest.approx(worst, abs=1e-12)
        assert res.expected_cost == pytest.approx(expected_cost(x, p, x, res.matrix), rel=1e-12)
        assert res.mixing_weight < 1e-6


def test_dp_ratios(salary):
    prior, _, dp = salary
    assert_dp(prior.points.tolist(), dp.matrix, dp.dp_epsilon)
    assert dp.realised_epsilon <= dp.dp_epsilon * (1 + 1e-9)


def test_adding_dp_never_lowers_the_cost(salary):
    prior, best, dp = salary
    costs = [best.expected_cost]
    for eps in (0.02, 0.005, best.optimal_epsilon, 0.001, 0.0):
        costs.append(ln.least_noise_mechanism(prior, r=100, delta=0.1, dp_epsilon=eps).expected_cost)
    assert all(b >= a - 1e-9 * a for a, b in itertools.pairwise(costs)), costs
    assert dp.expected_cost == pytest.approx(costs[3], rel=1e-12)


def test_no_more_than_the_laplace_mechanism_at_the_optimal_epsilon(salary):
    """Laplace noise at the optimal epsilon, rounded to the grid, is epsilon-DP (post-processing)
    and its posteriors average those of the continuous mechanism (within delta by the
    optimum's definition), so it is feasible for both programs: neither may cost more."""
    prior, best, dp = salary
    x, p = prior.points.tolist(), prior.probs.tolist()
    lap = dp.laplace_matrix
    assert worst_excess(x, p, lap, 100) <= 0.1 + 1e-12
    assert_dp(x, lap, dp.optimal_epsilon)
    lap_cost = expected_cost(x, p, x, lap)
    assert dp.laplace_cost == pytest.approx(lap_cost, rel=1e-12)
    assert best.expected_cost <= dp.expected_cost + 1e-9 * lap_cost
    assert dp.expected_cost <= lap_cost * (1 + 1e-7)


def test_constant_mechanism_is_feasible_and_bounds_the_optimum():
    """A constant mechanism (the same output distribution from every input) leaves every
    posterior at its prior: always feasible.  With epsilon 0 every feasible mechanism is
    constant, so the optimum is the best single output's cost, found here by enumeration."""
    prior = salary_grid(11)
    x, p = prior.points.tolist(), prior.probs.tolist()
    rng = np.random.default_rng(1)
    u = rng.random(len(x))
    constant = np.tile(u / u.sum(), (len(x), 1))
    assert abs(worst_excess(x, p, constant, 100)) <= 1e-15
    best_constant = min(expected_cost(x, p, [y], np.ones((len(x), 1))) for y in x)
    for delta in (1e-6, 0.1):
        res = ln.least_noise_mechanism(prior, r=100, delta=delta)
        assert res.status == 0
        assert res.expected_cost <= best_constant * (1 + 1e-9)
        assert res.constant_cost == pytest.approx(best_constant, rel=1e-12)
    zero = ln.least_noise_mechanism(prior, r=100, delta=0.1, dp_epsilon=0.0)
    assert zero.expected_cost == pytest.approx(best_constant, rel=1e-8)
    assert zero.realised_epsilon <= 1e-7


def test_solver_failure_raises_infeasible(monkeypatch):
    import scipy.optimize

    def failing(*args, **kwargs):
        return SimpleNamespace(status=2, x=None, message="The problem is infeasible.")

    monkeypatch.setattr(scipy.optimize, "linprog", failing)
    with pytest.raises(InfeasibleError, match="constant mechanism is always feasible"):
        ln.least_noise_mechanism(Categorical({0: 0.5, 1: 0.5}), r=0, delta=0.1)


# --- the Laplace counterpart ------------------------------------------------------------------
def test_laplace_cells_against_mpmath():
    x, y, eps = [-0.3, 0.0, 2.5], [-1.0, 0.5, 1.0, 4.0], 0.7
    got = ln.laplace_on_grid(x, y, eps)

    def cdf(z):
        z = mpmath.mpf(z)
        return mpmath.exp(eps * z) / 2 if z < 0 else 1 - mpmath.exp(-eps * z) / 2

    edges = [-mpmath.inf, -0.25, 0.75, 2.5, mpmath.inf]
    with mpmath.workdps(30):
        for i, xi in enumerate(x):
            for j in range(len(y)):
                lo = 0 if edges[j] == -mpmath.inf else cdf(edges[j] - xi)
                hi = 1 if edges[j + 1] == mpmath.inf else cdf(edges[j + 1] - xi)
                assert got[i, j] == pytest.approx(float(hi - lo), rel=1e-13, abs=1e-300)


@pytest.mark.parametrize("cost,moment", [("abs", 1), ("sq", 2)])
def test_continuous_laplace_cost_by_quadrature(cost, moment):
    prior = Categorical({0: 0.3, 1: 0.7})
    res = ln.least_noise_mechanism(prior, r=0, delta=0.1, cost=cost)
    eps = res.optimal_epsilon
    value, _ = integrate.quad(lambda z: abs(z) ** moment * eps / 2 * math.exp(-eps * abs(z)), -np.inf, np.inf)
    assert res.laplace_continuous_cost == pytest.approx(value, rel=1e-9)


def test_randomised_response_under_the_discrete_metric():
    colours = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}
    prior = Categorical(colours)
    best = ln.least_noise_mechanism(prior, r=0, delta=0.1, cost="zero_one")
    dp = ln.least_noise_mechanism(prior, r=0, delta=0.1, dp_epsilon=best.optimal_epsilon)
    eps, k = best.optimal_epsilon, len(colours)
    assert dp.laplace_cost == pytest.approx((k - 1) / (math.exp(eps) + k - 1), rel=1e-12)
    p = prior.probs.tolist()
    labels = list(range(k))
    for res in (best, dp):
        assert worst_excess(labels, p, res.matrix, 0, metric="discrete") <= 0.1 + 1e-12
        assert res.expected_cost <= dp.laplace_cost * (1 + 1e-7)
        assert res.expected_cost <= 1 - max(p) + 1e-9  # the best constant guess: black
    for i, k2 in itertools.permutations(range(k), 2):  # every pair at distance 1
        assert np.all(dp.matrix[i] <= math.exp(eps) * dp.matrix[k2] * (1 + 1e-9) + 1e-15)
    assert best.expected_cost <= dp.expected_cost + 1e-9


def test_discretise_masses_from_the_cdf():
    grid = ln.discretise(Normal(1.0, 2.0), 6, lo=-3, hi=5)
    x = np.linspace(-3, 5, 6)
    assert grid.points.tolist() == x.tolist()
    edges = [-mpmath.inf, *((x[1:] + x[:-1]) / 2).tolist(), mpmath.inf]
    for k in range(6):
        want = mpmath.ncdf(edges[k + 1], 1, 2) - mpmath.ncdf(edges[k], 1, 2)
        assert grid.probs[k] == pytest.approx(float(want), rel=1e-12)


# --- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs,match", [
    (dict(prior=Normal(0, 1)), "finite prior"),
    (dict(cost="l2"), "cost must be one of"),
    (dict(delta=1.0), "delta must lie in"),
    (dict(r=-1), "r must be >= 0"),
    (dict(sides="two"), "sides must be one of"),
    (dict(dp_epsilon=-0.1), "dp_epsilon must be None or a finite number >= 0"),
    (dict(dp_epsilon=math.inf), "dp_epsilon must be None or a finite number >= 0"),
    (dict(dp_epsilon=30.0), "must be at most 20"),
    (dict(outputs=[0, 0, 1]), "outputs must be distinct"),
    (dict(outputs=["a"]), "outputs must be a non-empty 1-d sequence of finite numbers"),
    (dict(outputs=np.arange(10_001.0)), "inputs times outputs must be at most"),
])
def test_bad_input(kwargs, match):
    args = dict(prior=Categorical({0: 0.5, 1: 0.5}), r=0, delta=0.1)
    args.update(kwargs)
    prior = args.pop("prior")
    with pytest.raises(ParameterError, match=match):
        ln.least_noise_mechanism(prior, **args)


def test_discretise_bad_input():
    with pytest.raises(ParameterError, match="n must be an integer >= 2"):
        ln.discretise(Normal(0, 1), 1)
    with pytest.raises(ParameterError, match="lo must be < hi"):
        ln.discretise(Normal(0, 1), 5, lo=1, hi=0)
