"""Tests of the optimum engine's solver registry (garesearch.optimal._solvers), of the witnesses'
descriptions and of the root finders of garesearch._roots (beyond the paper).

Expected values come from closed forms written here: the discrete-metric optimum
ln((p + delta)(1 - p) / (p (1 - p - delta))) (Sec. 3.2), the crossing of a logistic curve,
square and cube roots, the normal cdf (scipy.stats) and the Lipschitz constant of
ln(1 + z^4) by numerical maximisation.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.stats import norm as normal

from garesearch import _roots
from garesearch.errors import ParameterError
from garesearch.events import Attribute
from garesearch.optimal import _solvers
from garesearch.optimal._certify import Bracket
from garesearch.optimal._goal_finite import FiniteWitness
from garesearch.optimal._goal_grid import GridWitness
from garesearch.optimal._goal_kernels import DiscreteWitness, KernelWitness, ProductWitness
from garesearch.optimal._goal_pyramid import PyramidWitness, RidgeWitness
from garesearch.optimal.goals import epsilon_optimal
from garesearch.priors import Categorical, Normal

METHODS = {"discrete-metric", "kernel", "lp", "product", "lp-cells", "lp-grid", "product-bound"}


def discrete_epsilon(p, delta):
    """Sec. 3.2: the largest epsilon with p e^eps / (p e^eps + 1 - p) <= p + delta."""
    return math.log((p + delta) * (1 - p) / (p * (1 - p - delta)))


# ------------------------------------------------------------------------------------------
# The registry
# ------------------------------------------------------------------------------------------
def test_every_method_has_a_solver_with_the_protocol():
    """Each method name a result may carry (OptimalGoalResult.method) is registered, and its
    solver has the protocol's three methods."""
    assert set(_solvers.SOLVERS) == METHODS
    for name, solver in _solvers.SOLVERS.items():
        assert solver.method == name
        for attr in ("prepare", "brackets", "posterior_bounds"):
            assert callable(getattr(solver, attr))


def test_registering_a_name_twice_is_refused():
    with pytest.raises(ParameterError, match="kernel"):
        _solvers.register("kernel")(type("Again", (), {}))


def test_a_new_solver_is_a_registered_class(monkeypatch):
    """A solver added by registering a class (here the discrete metric's closed form, written
    in the test) is the one the engine runs, and its witness describes itself."""
    calls = []

    class Witness:
        def __init__(self, p, upper):
            self.p, self.upper = p, upper

        def posterior(self, eps):
            k = eps if self.upper else -eps
            return self.p * math.exp(k) / (self.p * math.exp(k) + 1 - self.p)

        def describe(self):
            return {"kind": "test witness", "upper": self.upper}

    class ClosedForm:
        def prepare(self, model, tv, tc):
            return 0.25, None

        def brackets(self, job, precision):
            calls.append(sorted(job.live))
            out = {}
            for name, (target, upper) in job.live.items():
                p, d = job.p, job.delta
                e = discrete_epsilon(p, d) if upper else discrete_epsilon(1 - p, d)
                out[name] = Bracket(e, e, Witness(p, upper), target, bound=target)
            return out

        def posterior_bounds(self, model, tc, p, eps, upper, resolution):
            v = Witness(p, upper).posterior(eps)
            return v, v

    monkeypatch.delitem(_solvers.SOLVERS, "closed-form-test", raising=False)
    _solvers.register("closed-form-test")(ClosedForm)
    monkeypatch.setattr(_solvers, "method_for", lambda model, tc, max_nodes: "closed-form-test")
    try:
        coin = Attribute(Categorical({"H": 0.25, "T": 0.75}), r=0, name="coin")
        res = epsilon_optimal(coin, delta=0.1, t=["H"])
    finally:
        del _solvers.SOLVERS["closed-form-test"]
    assert calls == [["lower", "upper"]]
    assert res.method == "closed-form-test"
    # the lower side of p = 0.25 is the upper side of the complement, 0.75
    assert res.epsilon_upper == pytest.approx(math.log(0.35 * 0.75 / (0.25 * 0.65)), rel=1e-14)
    assert res.epsilon_lower == pytest.approx(math.log(0.85 * 0.25 / (0.75 * 0.15)), rel=1e-14)
    assert res.epsilon == min(res.epsilon_upper, res.epsilon_lower)
    assert res.witness == {"kind": "test witness", "upper": res.binding == "upper"}


def test_a_continuous_goal_whose_sides_cannot_bind_needs_no_noise():
    """p + delta >= 1 and p - delta <= 0: neither side can bind at any epsilon, so no noise is
    needed (this once raised a raw ValueError on an empty sequence)."""
    a = Attribute(Normal(0, 1), r=0.6, name="a")
    b = Attribute(Normal(0.5, 1.3), r=0.4, name="b")
    pa = normal.cdf(0.6) - normal.cdf(-0.6)
    pb = normal.cdf(0.9, 0.5, 1.3) - normal.cdf(0.1, 0.5, 1.3)
    for goal, p in ((a & b, pa * pb), (a | b, 1 - (1 - pa) * (1 - pb))):
        res = epsilon_optimal(goal, delta=0.95, t=[0.0, 0.5])
        assert res.p == pytest.approx(p, rel=1e-12)
        assert p + 0.95 >= 1 and p - 0.95 <= 0
        assert math.isinf(res.epsilon) and res.binding == "none" and not res.cut_short
        assert res.upper == (math.inf, math.inf) and res.lower == (math.inf, math.inf)


def test_the_discrete_metric_solver_is_the_closed_form():
    res = epsilon_optimal(Attribute(Categorical({"a": 0.3, "b": 0.7}), r=0), delta=0.1, t=["a"])
    assert res.method == "discrete-metric"
    assert res.epsilon_upper == pytest.approx(discrete_epsilon(0.3, 0.1), rel=1e-13)
    assert res.epsilon_lower == pytest.approx(discrete_epsilon(0.7, 0.1), rel=1e-13)


# ------------------------------------------------------------------------------------------
# Witnesses describe themselves (the documented contents of OptimalGoalResult.witness)
# ------------------------------------------------------------------------------------------
def test_witnesses_describe_themselves():
    assert KernelWitness(None, 1.5, -1.0).describe() == {"kind": "laplace kernel", "centre": 1.5}
    assert KernelWitness(None, 1.5, 1.0).describe() == {"kind": "inverted kernel", "centre": 1.5}
    assert DiscreteWitness(0.2, True).describe() == {"kind": "discrete metric",
                                                     "likelihood_ratio": "e^epsilon on X'"}
    assert DiscreteWitness(0.2, False).describe()["likelihood_ratio"] == "e^-epsilon on X'"
    parts = [KernelWitness(None, 0.0, -1.0), DiscreteWitness(0.5, True)]
    assert ProductWitness([(0, 1)], parts, [0.5, 0.5]).describe() == {
        "kind": "product of one-part kernels",
        "parts": [{"kind": "laplace kernel", "centre": 0.0},
                  {"kind": "discrete metric", "likelihood_ratio": "e^epsilon on X'"}],
        "rates": [0.5, 0.5]}
    s = np.array([0.0, -1.0])
    assert FiniteWitness(s, None, None).describe()["log_likelihood_per_epsilon"] is s
    grid = SimpleNamespace(Z=np.zeros((2, 1)))
    assert GridWitness(grid, s, True).describe()["nodes"] is grid.Z
    assert PyramidWitness(None, None, [0, 1], [2, 3], False).describe() == {
        "kind": "inverted shifted pyramid", "box_low": [0.0, 1.0], "box_high": [2.0, 3.0]}
    ridges = RidgeWitness(None, None, [[0, 0], [1, 1]], [[0, 5], [9, 1]], [-0.5, 0.25])
    assert ridges.describe() == {"kind": "ridges", "box_low": [[0.0, 0.0], [1.0, 1.0]],
                                 "box_high": [[0.0, 5.0], [9.0, 1.0]], "heights": [-0.75, 0.0]}


def test_generalised_cauchy_lipschitz_constant_is_defined_once():
    """3^(3/4), the Lipschitz constant of ln(1 + z^4) (App. A.1): one definition, used by the
    noise, the scaled noise and the calibration."""
    from garesearch import additive, mechanisms
    from garesearch.releases import _calibration_readings

    slope = -minimize_scalar(lambda z: -4 * z**3 / (1 + z**4), bounds=(0.5, 3), method="bounded",
                             options={"xatol": 1e-10}).fun
    assert mechanisms._GC_L == pytest.approx(slope, rel=1e-9)
    assert additive._GC_L is mechanisms._GC_L and _calibration_readings._GC_L is mechanisms._GC_L


# ------------------------------------------------------------------------------------------
# garesearch._roots
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("grow", [_roots.grow_bracket, lambda g, x0: _roots.grow_bracket_evenly(g, x0, 1, 1)])
@pytest.mark.parametrize("x0", [-30.0, 0.0, 41.0])
def test_grown_brackets_hold_the_sign_change(grow, x0):
    lo, hi = grow(lambda x: x - 3.7, x0)
    assert lo <= 3.7 < hi


def test_narrow_bracket_to_ulps_reaches_epsilon_itself():
    """In log-epsilon, g(x) = e^x - 2: the ends, in epsilon, are within a few ulps of 2."""
    lo, hi = _roots.narrow_bracket_to_ulps(lambda x: math.exp(x) - 2.0, -1.0, 3.0)
    assert math.exp(lo) <= 2.0 < math.exp(hi)
    assert math.exp(hi) - math.exp(lo) <= 8 * 2.0**-52 * 2.0


def test_secant_bracket_and_secant_root():
    ok, bad = _roots.secant_bracket(lambda e: e * e - 2.0, 1.3)
    assert ok * ok <= 2.0 < bad * bad and bad - ok <= 4e-16 * bad * 4
    x = _roots.secant_root(lambda x: x**3 - 5.0, 1.0, rtol=1e-13)
    assert x**3 <= 5.0 and x == pytest.approx(5 ** (1 / 3), rel=1e-12)


def test_smallest_scale_meets_the_target():
    s = _roots.smallest_scale(lambda s: 1.0 / s, 0.2, 1.0, 1e-10)
    assert 1.0 / s <= 0.2 and s == pytest.approx(5.0, rel=2e-10)
    s = _roots.smallest_scale(lambda s: 1.0 / s, 0.2, 100.0, 1e-10)
    assert 1.0 / s <= 0.2 and s == pytest.approx(5.0, rel=2e-10)


def logistic(e, shift=1.0):
    return 1.0 / (1.0 + math.exp(-(e - shift)))


@pytest.mark.parametrize("upper", [True, False])
def test_crossings_of_a_logistic_curve(upper):
    """The posterior 1 / (1 + e^{-(eps - 1)}) (or its mirror) crosses 0.8 (0.2) at
    eps* = 1 + ln 4; each crossing lies at or just above eps*."""
    star = 1.0 + math.log(4.0)
    post = logistic if upper else (lambda e: 1.0 - logistic(e))
    target = 0.8 if upper else 0.2
    b = _roots.bisect_crossing(post, target, upper)
    assert star <= b <= star * (1 + 1e-12)
    s = _roots.secant_crossing(post, target, upper, 0.5, 1e-8)
    assert star <= s <= star * (1 + 1e-6)


@pytest.mark.parametrize("power", [0.5, 3.0])
@pytest.mark.parametrize("e0", [0.3, 1.2, 1.2747, 4.0])
def test_secant_crossing_returns_the_first_crossing_within_rtol(power, e0):
    """Curves whose logit is a power of epsilon (concave and convex in log epsilon): the
    crossing of 0.12549 lies at eps* = 1.2782 in closed form; the secant search returns a
    crossing within rtol of it from any start (a search that gave up after its first check past
    the secant's estimate failed returned the first crossing it had seen: 2.7075 from e0 = 0.3 on
    the cubic, and 1.5569 instead of 1.2782 for a shifted pyramid of a gamma and a categorical
    attribute)."""
    star, target, rtol = 1.2782, 0.12549, 2e-4
    lt = math.log(target / (1 - target))

    def post(e):
        return 1.0 / (1.0 + math.exp(-(lt + (e ** power - star ** power))))

    s = _roots.secant_crossing(post, target, True, e0, rtol)
    assert post(s) > target and star < s <= star * (1 + rtol)
    m = _roots.secant_crossing(lambda e: 1.0 - post(e), 1.0 - target, False, e0, rtol)
    assert star < m <= star * (1 + rtol)


def test_certified_bracket_encloses_the_closed_form():
    """A solver whose bound is the discrete metric's exact worst posterior: the certified
    bracket holds the closed-form optimum and is within rtol."""
    p, delta = 0.3, 0.1
    star = discrete_epsilon(p, delta)

    class W:
        def posterior(self, eps):
            return p * math.exp(eps) / (p * math.exp(eps) + 1 - p)

    b = _roots.certified_bracket(lambda e: (W().posterior(e), W()), p + delta, True, 1e-9, None, 1.0,
                                 lambda: 0, dict)
    assert b.lo <= star <= b.hi and b.hi - b.lo <= 1e-9 * b.hi
    assert b.posterior > p + delta
