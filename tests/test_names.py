"""Names and conventions: the curated top-level namespace, and every renamed name.

Each old name still works for one release: it emits a DeprecationWarning naming the new one
and gives the identical object or result; the values are checked against closed forms and
quadrature computed here.
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
import warnings

import mpmath
import numpy as np
import pytest

import garesearch as ga
from garesearch import goals, lambertw, noise
from garesearch._backend import MPMATH, NUMPY
from garesearch.app import pleak
from garesearch.constructions import counterexamples
from garesearch.errors import ParameterError
from garesearch.goals import Attribute
from garesearch.optimal import goals as goal_optimal
from garesearch.priors import Categorical, Uniform

COIN = Attribute(Categorical({"heads": 0.5, "tails": 0.5}), r=0, name="coin")


# ------------------------------------------------------------------------------------------
# the top-level namespace
# ------------------------------------------------------------------------------------------
def _returned_names(obj) -> set[str]:
    """Capitalised names in a function's return annotation and in its docstring's Returns type
    (names qualified by another package, such as ``matplotlib.axes.Axes``, left out)."""
    text = str(inspect.signature(obj).return_annotation) if callable(obj) else ""
    doc = inspect.getdoc(obj) or ""
    found = re.search(r"\nReturns\n-------\n(.+)", doc)
    text += " " + (found.group(1) if found else "")
    text = text.replace("inspect._empty", "").replace("<class ", "")
    return {m.group(1) for m in re.finditer(r"(?<![\w.])([A-Z]\w*)", text)}


def test_every_type_a_top_level_function_returns_is_exported():
    checked = 0
    for name in ga.__all__:
        obj = getattr(ga, name)
        if inspect.isclass(obj) or inspect.ismodule(obj) or not callable(obj):
            continue
        for ret in _returned_names(obj):
            assert ret in ga.__all__, f"garesearch.{name} returns {ret}, which garesearch does not export"
            checked += 1
    assert checked >= 25


@pytest.mark.parametrize("name", ["OptimalResult", "AttributeResult", "PointwiseResult",
                                  "OptimalGoalResult", "GoalResult", "PleakGoalResult",
                                  "CalibrationResult", "Release", "GaussianRelease", "TailResult",
                                  "ExactAdvantage", "LeastNoiseResult", "PrivacyProfile"])
def test_result_types_are_exported(name):
    assert inspect.isclass(getattr(ga, name))


def test_every_prior_class_is_exported_and_is_the_same_object():
    from garesearch import priors

    public = {n for n in priors.__all__ if inspect.isclass(getattr(priors, n))}
    assert public >= {"Normal", "Uniform", "Categorical", "PiecewiseUniform", "Continuous", "Prior"}
    for n in public:
        assert getattr(ga, n) is getattr(priors, n), n


def test_exported_names_are_the_objects_of_their_modules():
    for name, module in ga._LAZY.items():
        assert getattr(ga, name) is getattr(importlib.import_module(f"garesearch.{module}"), name), name
    assert ga.datasets is importlib.import_module("garesearch.datasets")


def test_one_name_per_concept_at_the_top():
    # a name is exported once, and no two exported names are one object under two names
    objects = {}
    for name in ga._LAZY:
        obj = getattr(ga, name)
        assert id(obj) not in objects, (name, objects.get(id(obj)))
        objects[id(obj)] = name
    assert "optimal_epsilon" not in ga.__all__ and "paper_counterexample" not in dir(ga)


def test_the_example_priors_live_below_the_paper():
    from garesearch import datasets
    from garesearch.paper import examples

    for name in ("COLOURS", "GENDERS", "SALARY", "SHIPS", "DELTA", "example_prior",
                 "epsilon_against_a"):
        assert getattr(examples, name) is getattr(datasets, name), name
    # Sec. 6.1 and 6.2 as printed
    assert math.fsum(datasets.COLOURS.values()) == pytest.approx(1.0, abs=1e-15)
    assert datasets.COLOURS["black"] == 0.4 and datasets.GENDERS == {"M": 0.5, "F": 0.5}
    assert datasets.example_prior("salary").sigma == pytest.approx(math.sqrt(55556.0), rel=1e-15)
    assert datasets.example_R("salary") == pytest.approx(3 * math.sqrt(2 * 55556.0), rel=1e-15)


# ------------------------------------------------------------------------------------------
# renamed names: each warns, names the new one, and gives the identical result
# ------------------------------------------------------------------------------------------
def test_goal_optimum_old_name():
    new = goal_optimal.epsilon_optimal(COIN, delta=0.1)
    with pytest.warns(DeprecationWarning, match=r"optimal_epsilon is deprecated.*use epsilon_optimal"):
        old = goal_optimal.optimal_epsilon(COIN, delta=0.1)
    # Sec. 3.2 at p = 1/2, both sides: ln((p + delta) / (p - delta)) = ln 1.5
    assert new.epsilon == pytest.approx(math.log(1.5), rel=1e-12)
    assert (old.epsilon, old.epsilon_hi, old.t, old.binding) == (new.epsilon, new.epsilon_hi, new.t,
                                                                 new.binding)
    assert "epsilon_optimal" in goal_optimal.__all__ and "optimal_epsilon" not in goal_optimal.__all__


def test_the_two_optima_share_one_name():
    from garesearch import optimal

    one = optimal.epsilon_optimal(Categorical({"heads": 0.5, "tails": 0.5}), r=0, delta=0.1)
    assert one.epsilon == goal_optimal.epsilon_optimal(COIN, delta=0.1).epsilon


def test_pleak_goal_result_old_name():
    with pytest.warns(DeprecationWarning, match=r"GoalResult is deprecated.*use PleakGoalResult"):
        old = pleak.GoalResult
    assert old is pleak.PleakGoalResult
    with pytest.warns(DeprecationWarning, match="use PleakGoalResult"):
        from garesearch.app.pleak import GoalResult  # noqa: F401
    res = pleak.epsilon_for_pleak_goal(pleak.parse_attacker("t.a setPrior ('x', 0.5) ('y', 0.5);"),
                                       pleak.parse_goal("t.a exact"), delta=0.1)
    assert type(res) is pleak.PleakGoalResult and res.epsilon == pytest.approx(math.log(1.5), rel=1e-12)
    # the comparison sets' GoalResult is another class, and keeps its name
    assert ga.GoalResult is not pleak.PleakGoalResult
    with pytest.raises(AttributeError):
        pleak.NoSuchName  # noqa: B018


@pytest.mark.parametrize("side", ["upper", "lower"])
def test_worst_posterior_old_keyword(side):
    eps = 0.7
    new = goal_optimal.worst_posterior(COIN, epsilon=eps, t=["heads"], sides=side)
    with pytest.warns(DeprecationWarning, match=r"side= is deprecated.*use sides="):
        old = goal_optimal.worst_posterior(COIN, epsilon=eps, t=["heads"], side=side)
    # a fair coin under the discrete metric: the posterior is e^eps / (e^eps + 1) at the
    # upper side, 1 / (e^eps + 1) at the lower one
    want = math.exp(eps) / (math.exp(eps) + 1) if side == "upper" else 1 / (math.exp(eps) + 1)
    assert old == new
    assert new[0] == pytest.approx(want, rel=1e-9) and new[1] == pytest.approx(want, rel=1e-9)
    with pytest.raises(ParameterError, match="sides="):
        goal_optimal.worst_posterior(COIN, epsilon=eps, t=["heads"], side=side, sides=side)


@pytest.mark.parametrize("side", ["upper", "lower"])
def test_worst_posterior_lp_old_keyword(side):
    from garesearch.optimal import worst_posterior_lp

    eps = 0.7
    new = worst_posterior_lp([0.0, 1.0], [0.5, 0.5], t=0.0, r=0.0, epsilon=eps, sides=side)
    with pytest.warns(DeprecationWarning, match=r"side= is deprecated.*use sides="):
        old = worst_posterior_lp([0.0, 1.0], [0.5, 0.5], t=0.0, r=0.0, epsilon=eps, side=side)
    assert old["posterior"] == new["posterior"]
    assert np.array_equal(old["log_likelihood"], new["log_likelihood"])
    # two atoms 1 apart: the likelihood ratio is at most e^eps either way
    want = math.exp(eps) / (math.exp(eps) + 1) if side == "upper" else 1 / (math.exp(eps) + 1)
    assert new["posterior"] == pytest.approx(want, rel=1e-8)


def test_worst_posterior_takes_one_side_of_the_common_values():
    with pytest.raises(ParameterError, match=r"^sides must be one of 'upper', 'lower'; got 'both'"):
        goal_optimal.worst_posterior(COIN, epsilon=0.5, t=["heads"], sides="both")
    from garesearch.optimal import worst_posterior_lp

    with pytest.raises(ParameterError, match=r"^sides must be one of 'upper', 'lower'; got 'both'"):
        worst_posterior_lp([0.0, 1.0], [0.5, 0.5], t=0.0, r=0.0, epsilon=0.5, sides="both")


def test_attribute_paper_counterexample_old_home():
    from garesearch import attribute

    with pytest.warns(DeprecationWarning, match=r"use garesearch\.constructions\.counterexamples\.paper_counterexample"):
        old = attribute.paper_counterexample
    assert old is counterexamples.paper_counterexample
    res = old()
    # the closed form of its docstring: p e^{3 eps} / (p e^{3 eps} + q + (1 - p - q) e^{-1998 eps})
    e = res["epsilon"]
    closed = 0.2 * math.exp(3 * e) / (0.2 * math.exp(3 * e) + 0.5 + 0.3 * math.exp(-1998 * e))
    assert res["posterior"] == pytest.approx(closed, rel=1e-12) and res["posterior"] > 0.3
    with pytest.raises(AttributeError):
        attribute.no_such_name  # noqa: B018


def test_maximise_keeps_its_public_name():
    from garesearch import _maximise, attribute

    assert attribute.maximise is _maximise.maximise
    x, v = attribute.maximise(lambda x: np.sin(x), 0.0, 3.0)
    assert x == pytest.approx(math.pi / 2, abs=1e-6) and v == pytest.approx(1.0, abs=1e-12)


def test_gencauchy_bound_old_keyword():
    p = np.array([0.3, 0.78, 0.95])
    new = noise.gencauchy_bound(p, NUMPY, rtol=1e-12)
    with pytest.warns(DeprecationWarning, match=r"tol= is deprecated.*use rtol="):
        old = noise.gencauchy_bound(p, NUMPY, tol=1e-12)
    assert np.array_equal(old, new)
    # App. A.1: Pr[|eta| <= a] for the density sqrt2 / (pi (1 + x^4)), by quadrature
    with mpmath.workdps(30):
        for a, want in zip(new, p, strict=True):
            got = 2 * mpmath.quad(lambda x: mpmath.sqrt(2) / (mpmath.pi * (1 + x**4)), [0, float(a)])
            assert float(got) == pytest.approx(want, rel=1e-10)
    with mpmath.workdps(30):
        old = noise.gencauchy_bound(mpmath.mpf("0.5"), MPMATH)
        with pytest.warns(DeprecationWarning, match="use rtol="):
            assert noise.gencauchy_bound(mpmath.mpf("0.5"), MPMATH, tol=None) == old


def test_lp_ball_mass_old_keyword():
    square = [Uniform(0, 1), Uniform(0, 1)]
    new = goals.lp_ball_mass(square, [0.0, 0.0], 1.0, method="quad", atol=1e-12, return_error=True)
    with pytest.warns(DeprecationWarning, match=r"tol= is deprecated.*use atol="):
        old = goals.lp_ball_mass(square, [0.0, 0.0], 1.0, method="quad", tol=1e-12, return_error=True)
    assert old == new
    assert new[0] == pytest.approx(math.pi / 4, abs=1e-11)  # the quarter disc


def test_lambertw_old_keyword():
    new = lambertw.iterations_to_tolerance(1.0, "newton", atol=1e-20)
    with pytest.warns(DeprecationWarning, match=r"tol= is deprecated.*use atol="):
        old = lambertw.iterations_to_tolerance(1.0, "newton", tol=1e-20)
    assert old == new
    # the first iterate within 1e-20 of W(1) (the omega constant), measured here
    with mpmath.workdps(50):
        omega = mpmath.lambertw(1)
        errs = [abs(w - omega) for w in lambertw.lambertw_iterates(1.0, "newton", maxiter=200, dps=50)]
    assert new == next(n for n, e in enumerate(errs) if e < mpmath.mpf("1e-20"))
    table = lambertw.convergence_table([1.0], atol=1e-20, maxiter=60)
    with pytest.warns(DeprecationWarning, match="use atol="):
        assert lambertw.convergence_table([1.0], tol=1e-20, maxiter=60) == table
    assert table[0]["newton_iterations"] == new


def test_soundness_search_old_keyword(monkeypatch):
    # one small case keeps it fast: a two-point prior
    case = ("two atoms", Categorical({0.0: 0.3, 2.0: 0.7}), 0.5, 0.1)
    monkeypatch.setattr(counterexamples, "_search_cases", lambda size: [case])
    new = counterexamples.soundness_search("sound", atol=1e-6)
    with pytest.warns(DeprecationWarning, match=r"tol= is deprecated.*use atol="):
        old = counterexamples.soundness_search("sound", tol=1e-6)
    assert len(new) > 0
    assert [(r["epsilon"], r["exact_advantage"], r["violated"]) for r in old] == [
        (r["epsilon"], r["exact_advantage"], r["violated"]) for r in new]
    for rec in new:  # "violated" is the advantage above delta by more than atol
        assert rec["violated"] == (rec["exact_advantage"] > rec["delta"] + 1e-6)


def test_no_renamed_name_warns_when_the_new_one_is_used():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        goal_optimal.epsilon_optimal(COIN, delta=0.1)
        goal_optimal.worst_posterior(COIN, epsilon=0.5, t=["heads"], sides="lower")
        _ = pleak.PleakGoalResult, counterexamples.paper_counterexample
        goals.lp_ball_mass([Uniform(0, 1)] * 2, [0.0, 0.0], 0.5, atol=1e-9)


# ------------------------------------------------------------------------------------------
# one rule for sides=
# ------------------------------------------------------------------------------------------
GOAL_CALLS = [
    lambda s: ga.epsilon_for_goal(COIN, delta=0.1, sides=s),
    lambda s: ga.epsilon_for_goal(COIN, delta=0.1, sides=s, construction="sound"),
    lambda s: goal_optimal.epsilon_optimal(COIN, delta=0.1, sides=s),
]


@pytest.mark.parametrize("call", GOAL_CALLS)
def test_goals_refuse_the_side_they_do_not_compute_with_the_one_message(call):
    with pytest.raises(ParameterError, match=r"^sides must be one of 'both', 'upper'; got 'lower'$"):
        call("lower")
    with pytest.raises(ParameterError, match=r"^sides must be one of 'both', 'upper'; got 'two'$"):
        call("two")
    # and compute the ones they take (Sec. 3.2 at p = 1/2: the upper side is ln(0.6 / 0.4))
    assert call("upper").epsilon == pytest.approx(math.log(1.5), rel=1e-9)


def test_compare_epsilons_checks_sides_with_the_one_message():
    from garesearch.exact import compare_epsilons

    with pytest.raises(ParameterError, match=r"^sides must be one of 'both', 'upper'; got 'lower'$"):
        compare_epsilons(Categorical({0: 0.5, 1: 0.5}), r=0, delta=0.1, sides="lower")


def test_exact_advantage_checks_sides_with_the_one_message():
    from garesearch.exact import exact_advantage
    from garesearch.mechanisms import Laplace

    with pytest.raises(ParameterError, match=r"^sides must be one of 'both', 'upper', 'lower'; got 'up'"):
        exact_advantage(Categorical({0.0: 0.5, 1.0: 0.5}), Laplace(), epsilon=0.5, r=0, sides="up")
