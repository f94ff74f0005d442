"""The optimal epsilon of a goal is reproducible (garesearch.optimal.goals; beyond the paper).

Every result depends on the call's arguments only (and the versions of numpy, scipy and
HiGHS): the solvers refine by a fixed work schedule, never by the clock.  Checked here:
identical calls in one process and in fresh processes give bit-identical brackets; a clock
that runs 25 times slower changes nothing (and the package reads the clock for its report
only); the optional wall-clock ``budget`` caps a call within ``1.2 * budget + 1`` seconds,
marks the result cut short, warns, and never raises for lack of time.

The finite OR with ``t=None`` is compared with the test-side LP oracle of
``tests/oracle_lp.py`` (exact vertices certified in mpmath, written independently of the
package), run here over the OR's set of correct guesses.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
import time
import warnings
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import oracle_lp
import pytest
from sweeps import sample

from garesearch.errors import InfeasibleError, ParameterError
from garesearch.events import Attribute, epsilon_for_goal
from garesearch.optimal.goals import CutShortWarning, epsilon_optimal
from garesearch.priors import Categorical, Normal, PiecewiseUniform, Uniform

#: one worker runs this module: its reference results are shared by the repeated calls
pytestmark = pytest.mark.xdist_group("goal_determinism")

DELTA = 0.1
PA = {0.0: 0.15, 0.5: 0.1, 1.25: 0.3, 2.0: 0.25, 3.5: 0.2}
PB = {-1.0: 0.4, 0.0: 0.1, 0.75: 0.2, 2.25: 0.3}
RA, RB = 0.5, 0.75


# ------------------------------------------------------------------------------------------
# The cases
# ------------------------------------------------------------------------------------------
def finite_or():
    """An OR of two numeric categorical attributes, the worst over every true record."""
    a = Attribute(Categorical(PA), r=RA, name="a")
    b = Attribute(Categorical(PB), r=RB, name="b")
    return a | b, {}


def normals(kind, **kw):
    """The benchmark's attributes (garesearch.app.bench.goal_brackets), the cell relaxation."""
    a = Attribute(Normal(0.0, 1.0), r=0.6, name="a")
    b = Attribute(Normal(0.5, 1.3), r=0.4, name="b")
    return (a | b if kind == "or" else a & b), {"t": [1.0, -1.0], **kw}


def uniform_cells():
    """A uniform and a normal attribute (both log-concave): the cell relaxation (lp-cells)."""
    u = Attribute(Uniform(0.0, 10.0), r=1.0, name="u")
    a = Attribute(Normal(0.0, 1.0), r=0.6, name="a")
    return u & a, {"t": [5.0, 0.0], "max_nodes": 360}


def piecewise_grid():
    """A piecewise-uniform prior with unequal densities (not log-concave) and a normal one: the
    node grids (lp-grid), a small schedule (about 8 s a call)."""
    u = Attribute(PiecewiseUniform([0.0, 4.0, 10.0], [0.3, 0.7]), r=1.0, name="u")
    a = Attribute(Normal(0.0, 1.0), r=0.6, name="a")
    return u & a, {"t": [5.0, 0.0], "max_nodes": 360}


CASES = {
    "finite_or_t_none": finite_or,
    "or_normals": lambda: normals("or", rtol=0.03),
    "uniform_cells": uniform_cells,
    "piecewise_grid": piecewise_grid,
    "and_normals": lambda: normals("and", rtol=0.03),
}
#: make test repeats the two quick cases (lp and lp-cells) in one process, in a fresh one and
#: under the slow clock below (the OR of normals and the uniform case take the same lp-cells
#: path as the AND); make test-full repeats every case every way, the node grids (lp-grid)
#: and the uniform prior's bounded support among them
QUICK = sample(list(CASES), 2)
CLOCKED = QUICK


def summary(res) -> dict:
    """Everything a result says about epsilon, as exact hex strings."""
    vals = [res.epsilon, res.epsilon_lo, res.epsilon_hi, res.epsilon_upper, res.epsilon_lower,
            *res.upper, *res.lower, res.posterior, res.p]
    return {"eps": [float(v).hex() for v in vals], "t": {k: str(v) for k, v in res.t.items()},
            "method": res.method, "binding": res.binding, "cut_short": res.cut_short}


def run(name) -> dict:
    goal, kw = CASES[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CutShortWarning)  # the default call is never cut short
        return summary(epsilon_optimal(goal, delta=DELTA, **kw))


_REFERENCE: dict = {}


def reference(name) -> dict:
    if name not in _REFERENCE:
        _REFERENCE[name] = run(name)
    return _REFERENCE[name]


# ------------------------------------------------------------------------------------------
# Identical calls, identical results
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", QUICK)
def test_identical_calls_in_one_process_are_bit_identical(name):
    first = reference(name)
    assert first["cut_short"] is False
    assert run(name) == first


_SCRIPT = """
import json, sys
sys.path[:0] = {paths!r}
import test_goal_determinism as T
print(json.dumps({{name: T.run(name) for name in T.QUICK}}))
"""


def _fresh_process() -> dict:
    here = Path(__file__).resolve().parent
    script = _SCRIPT.format(paths=[str(here), str(here.parent)])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                         cwd=here.parent, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_fresh_processes_give_the_same_bits():
    """A new interpreter (imports, caches and HiGHS fresh) gives the same results as this one."""
    fresh = _fresh_process()
    assert fresh == {name: reference(name) for name in QUICK}


@pytest.mark.slow
def test_two_fresh_processes_agree_at_the_default_precision():
    """The benchmark's OR and AND at the default precision (about 9 + 4 s each run)."""
    script = """
import json
from garesearch.app.bench import goal_brackets
res = goal_brackets()
print(json.dumps({k: (float(v).hex() if isinstance(v, float) and not k.endswith("_s") else None)
                  for k, v in res.items()}))
"""
    outs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=900,
                           check=True).stdout.strip().splitlines()[-1] for _ in range(2)]
    assert outs[0] == outs[1]
    res = {k: float.fromhex(v) for k, v in json.loads(outs[0]).items() if v is not None}
    for kind in ("or", "and"):
        lo, hi = res[f"goal_{kind}_bracket_epsilon"], res[f"goal_{kind}_bracket_epsilon_hi"]
        assert 0 < lo < hi and (hi - lo) / hi <= 0.01


# ------------------------------------------------------------------------------------------
# A slow clock changes nothing
# ------------------------------------------------------------------------------------------
def _slow_clock(monkeypatch, factor=25.0):
    """Patch the time module's clocks to run ``factor`` times faster than real time (the
    machine looks that much slower) and count the reads."""
    reads = {"n": 0}
    for fname in ("perf_counter", "monotonic", "time", "perf_counter_ns", "monotonic_ns", "time_ns"):
        real = getattr(time, fname)
        start = real()

        def fake(real=real, start=start):
            reads["n"] += 1
            return type(start)(start + factor * (real() - start))

        monkeypatch.setattr(time, fname, fake)
    return reads


@pytest.mark.parametrize("name", CLOCKED)
def test_a_clock_25_times_slower_changes_nothing(name, monkeypatch):
    ref = reference(name)
    reads = _slow_clock(monkeypatch)
    assert run(name) == ref
    # the package reads the clock twice per call (details["seconds"]); nothing else in the
    # call (scipy's minimize and linprog included) does
    assert reads["n"] <= 2


# ------------------------------------------------------------------------------------------
# The optional wall-clock cap
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("budget", sample([0.5, 2.0], 1))
@pytest.mark.parametrize("kind", ["or", "and"])
def test_a_budget_caps_the_call_and_says_so(budget, kind):
    goal, kw = normals(kind)  # the default schedule takes about 9 s (OR) and 4 s (AND)
    t0 = time.perf_counter()
    with pytest.warns(CutShortWarning, match="cut short by budget"):
        res = epsilon_optimal(goal, delta=DELTA, budget=budget, **kw)
    seconds = time.perf_counter() - t0
    # the cap works: the documented 1.2 * budget + 1 s with room for a loaded machine, well
    # below the uncapped schedule (about 9 s and 4 s)
    assert seconds <= 3 * budget + 2.0
    assert res.cut_short and res.details["cut_short"]
    assert 0.0 <= res.epsilon_lo <= res.epsilon_hi
    assert issubclass(CutShortWarning, UserWarning)


def test_time_running_out_never_raises():
    """A budget far too small: no InfeasibleError; t=None not examined in full returns the
    trivially safe 0, cut short; epsilon_for_goal passes the budget on."""
    goal, _ = finite_or()
    t0 = time.perf_counter()
    with pytest.warns(CutShortWarning):
        res = epsilon_optimal(goal, delta=DELTA, budget=1e-9)
    assert time.perf_counter() - t0 < 2.0
    assert res.cut_short and res.epsilon == 0.0 and res.details["true_records"] < 20
    assert res.laplace_scale() == math.inf
    with pytest.warns(CutShortWarning):
        res = epsilon_for_goal(*normals("or")[:1], delta=DELTA, t=[1.0, -1.0], budget=1e-9)
    assert res.cut_short and 0.0 <= res.epsilon <= res.epsilon_hi
    # without a budget the same goal is certified (the full schedule: no error either)
    try:
        epsilon_optimal(goal, delta=DELTA)
    except InfeasibleError:  # pragma: no cover - the point of the test
        pytest.fail("the full schedule raised")


def test_a_budget_that_is_not_reached_changes_nothing():
    goal, kw = finite_or()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = epsilon_optimal(goal, delta=DELTA, budget=600.0, **kw)
    assert summary(res) == reference("finite_or_t_none")


def test_the_default_has_no_budget():
    import inspect

    assert inspect.signature(epsilon_optimal).parameters["budget"].default is None
    assert inspect.signature(epsilon_for_goal).parameters["budget"].default is None


# ------------------------------------------------------------------------------------------
# t=None over finite priors: every record, the exact optimum
# ------------------------------------------------------------------------------------------
def oracle_or_epsilon(pa, pb, ra, rb, delta, sides="both"):
    """The optimal epsilon of the OR goal {|x_1 - t_1| <= ra or |x_2 - t_2| <= rb} under the
    l_inf distance of records, the worst over every true record: the oracle's conditions
    (sup post(X') <= p + delta, inf post(X') >= p - delta, certified vertices in mpmath) over
    the OR's sets, membership decided in exact rationals, and its crossing search."""
    points = np.array([(x, y) for x in pa for y in pb], float)
    probs = np.array([pa[x] * pb[y] for x in pa for y in pb])
    space = oracle_lp._Space(points, probs / probs.sum(), ("lp", math.inf), oracle_lp.DPS)
    stats: dict = {}
    with mpmath.workdps(oracle_lp.DPS):
        dl = mpmath.mpf(delta)
        conds = {}
        for t in itertools.product(pa, pb):
            inside = np.array([abs(Fraction(v[0]) - Fraction(t[0])) <= Fraction(ra)
                               or abs(Fraction(v[1]) - Fraction(t[1])) <= Fraction(rb)
                               for v in space.values])
            for side, B in (("upper", ~inside), ("lower", inside)):
                if (side == "lower" and sides == "upper") or B.tobytes() in conds or B.all() or not B.any():
                    continue
                cond = oracle_lp._Condition(space, B, dl, t, side, stats)
                if cond.tau > 0:
                    conds[B.tobytes()] = cond
        best, where = mpmath.inf, None
        tol = mpmath.mpf(10) ** (-(oracle_lp.DPS - 15))
        for cond in conds.values():
            if best < mpmath.inf:
                tree_hi, hb = cond.h(best)
                if hb >= -tol:
                    continue  # crosses at or above the best so far
                lo, hi = mpmath.mpf(0), best
            else:
                lo, hi = mpmath.mpf(0), mpmath.mpf(1)
                tree_hi, hb = cond.h(hi)
                while hb >= 0:
                    lo, hi = hi, hi * 4
                    tree_hi, hb = cond.h(hi)
            best = oracle_lp._crossing(cond, lo, hi, tree_hi, oracle_lp.DPS)
            where = (cond.t, cond.side)
        return float(best), where


def test_finite_or_over_every_true_record_is_the_oracles_optimum():
    goal, _ = finite_or()
    res = epsilon_optimal(goal, delta=DELTA)
    eps, (t, side) = oracle_or_epsilon(PA, PB, RA, RB, DELTA)
    assert eps == pytest.approx(0.1888505885354947, rel=1e-12)  # (the oracle's value)
    assert res.epsilon_lo <= eps <= res.epsilon_hi
    assert res.rel_width <= 1e-7
    assert (res.t["a"], res.t["b"]) == t and res.binding == side
    assert res.details["true_records"] == res.details["true_records_total"] == 20


def test_t_none_refuses_too_much_work_by_count_up_front():
    """20 x 20 values: 400 exact LPs over 400 records each is refused before any LP (by the
    count, not by timing a first record), whatever the budget."""
    vals = {float(v): 1 / 20 for v in range(20)}
    a = Attribute(Categorical(vals), r=1.0, name="a")
    b = Attribute(Categorical(dict(vals)), r=1.0, name="b")
    for budget in (None, 1e6):
        t0 = time.perf_counter()
        with pytest.raises(ParameterError, match="160000 in all"):
            epsilon_optimal(a | b, delta=DELTA, budget=budget)
        assert time.perf_counter() - t0 < 2.0
    # a single true record of the same goal is solved
    res = epsilon_optimal(a | b, delta=DELTA, t=[5.0, 5.0], sides="upper", rtol=1e-3)
    assert res.epsilon > 0
