r"""Benchmarks: how fast and how accurate garesearch is (``python -m garesearch.app.bench``).

Prints a table of the measurements below, each with its target on a 2-core machine, and
with ``--json`` one JSON object instead.  The benchmark is a measurement, not a test: a
missed target is reported, never an error (the exit status is 0 unless a measurement
itself fails).

``import_ratio``
    Median wall time of ``python -c "import garesearch"`` over that of
    ``python -c "import numpy, mpmath"``, the two interleaved in one run.  Target <= 1.3.
``vector_ratio``
    Time of :func:`~garesearch.bound.epsilon_for_advantage` (Eq. (main), ``q`` given) on
    10^6 random feasible float64 inputs over the time of the same formula written as one
    bare numpy expression without input checks, same inputs, interleaved.  Target <= 2.
``optimise_ms``
    Median time of ``epsilon_for_attribute(Normal(2000, 235.7), r=100, delta=0.1,
    construction="sound")``: the worst case over the true value ``t`` (Sec. 4.1 and 6.2),
    both sides, the comparison set of Eq. (main) made sound.  Target <= 20 ms.  (``optimise_first_ms`` is the first call, which also
    imports scipy.)
``optimise_rel_gap``
    Relative gap between that call's upper-side epsilon and the maximum over the
    comparison distance ``D`` found independently at the returned ``t``: Eq. (main) with
    the normal prior's masses from ``mpmath.erf`` at 40 digits, on a dense grid across the
    whole range of ``D`` and around the returned ``D``, refined by golden-section search.
    Target <= 1e-9.
``optimal_ms``, ``optimal_rel_err``
    Median warm time of the optimal epsilon (:func:`garesearch.optimal.epsilon_optimal`, the
    default of ``epsilon_for_attribute``) for the salary example, worst ``t``, both sides
    (target <= 50 ms), and its relative error against the optimality conditions solved
    independently at 40 digits (the normal kernel posteriors in closed form with
    ``mpmath.ncdf``; stationary in ``t`` and ``c``, advantage = delta; ``mpmath.findroot``).
``optimal_continuous_s``
    The slowest first call (tables built) of the certified optimal epsilon, worst ``t``, upper
    side, ``delta = 0.1``, over ``Continuous`` priors: log-normal(3), Student t(3),
    weibull_min(0.95) (whose far-tail limit binds) with ``r = 1``, gamma(3, scale 10) with
    ``r = 2``, and the spike mixture 0.1 U[-1, 1] + 0.9 U[-1.201, -1.199] at ``t = 0`` with
    ``r = 1``.  Target <= 2 s.  ``optimal_continuous_names`` lists them, ``optimal_continuous_each_s``
    their times and ``optimal_continuous_max_rel_width`` the widest certified bracket
    ``(epsilon_hi - epsilon) / epsilon``.
``optimal_gamma_both_s``
    The same for gamma(3, scale 10), ``r = 2``, both sides (the upper side binds).  Target
    <= 5 s.
``optimal_categorical_s``
    The optimal epsilon, worst ``t``, for a ``Categorical`` prior with 10^4 unevenly spaced
    values (seeded), ``r = 5`` (about ten values per ball).  Target <= 1 s.
``optimal_vs_lp_max_rel_err``
    Largest relative difference between the optimal epsilon and the LP oracle of the test
    suite (``tests/oracle_lp.py``: the linear program over every likelihood, certified at 50
    digits) over 20 seeded random finite priors; ``null`` outside a source checkout.
    Target <= 1e-9.
``mp50_ms``
    Median time of one ``epsilon_for_advantage(delta=0.1, p=0.2, dps=50)`` (mpmath at 50
    digits).  Target <= 5 ms.
``float_vs_mp_max_rel_err``
    Largest relative difference between the float64 path and the mpmath path (50 digits)
    of ``epsilon_for_advantage(delta=..., p=...)`` (both sides, Sec. 3.2) over a grid with
    ``p`` log-spaced from 1e-12 to 1 - 1e-12 (towards both ends) and ``delta`` log-spaced
    from 1e-9 to 0.9.  ``float_vs_mp_max_rel_err_q`` is the same for Eq. (main) with
    ``q = (1 - p)/2``.
``reproduce_s``, ``tests_s``
    Wall time of the README's two commands, ``make reproduce`` and ``make test``, run in
    the project folder with the interpreter that runs the benchmark
    (``make <target> PY=<python> STAMP=``, i.e. without the one-time set-up of ``.venv``;
    ``make bench`` runs the benchmark inside ``.venv``).  Skipped with
    ``--skip-reproduce`` / ``--skip-tests`` (or when there is no Makefile), then ``null``.
    A failing command is timed all the same and its exit status reported
    (``reproduce_exit_status``, ``tests_exit_status``; 0 means it passed).
    Targets <= 120 s and <= 300 s.
``derivations_s``
    Wall time of ``from garesearch import derivations; derivations.all_derivations()`` in a
    fresh interpreter (imports included), every symbolic derivation of the paper's results.
    Skipped with ``--skip-derivations``, then ``null``.  Target <= 30 s.
``average_binary_ms``
    Median warm time of ``calibrate(Categorical({0: 0.8, 1: 0.2}), "gaussian", r=0,
    delta=0.1, reading="average")`` (riskcal's sigma 0.462471).  Target <= 5 ms.
``tail_normal_s``
    Time of ``advantage_tail(Normal(2000, 235.7), "gaussian", scale=300, r=100, delta=0.1)``,
    the worst true value searched globally.  Target <= 1 s.
``compose_1000_s``
    Time of ``privacy_profile("laplace", scale=30, releases=1000).dp_epsilon(1e-6)`` through
    Google's ``dp_accounting`` (``null`` when it is not installed).  Target <= 10 s.
``compose_laplace_calibrate_s``
    Median time of ``calibrate(Categorical({0: 0.8, 1: 0.2}), "laplace", r=0, delta=0.1,
    reading="average", releases=10)``: ten Laplace releases of a binary secret through the
    PLD accountant (warm; each repetition moves ``delta`` by 1e-9 so that no privacy loss
    distribution is reused).  ``null`` when ``dp_accounting`` is not installed.  Target <= 2 s.
``goal_or_bracket_s``, ``goal_or_bracket_rel_width``
    Wall time and relative bracket width of
    :func:`garesearch.optimal.goals.epsilon_optimal` for the OR of two normal attributes,
    ``N(0, 1)`` with ``r = 0.6`` and ``N(0.5, 1.3)`` with ``r = 0.4``, at ``t = (1, -1)``,
    ``delta = 0.1``, ``norm = inf``, both sides, at the default precision (``rtol = 0.01``,
    a fixed work schedule: the same bracket on every run, whatever the machine; no time
    budget): the certified bracket :math:`[\epsilon_{lo}, \epsilon_{hi}]` of the optimal epsilon over all
    epsilon-DP mechanisms (``goal_or_bracket_epsilon`` is its sound end, ``_epsilon_hi`` the
    witness end, ``goal_or_sound_epsilon`` the comparison sets' epsilon for comparison,
    ``_method`` the method, ``_cells`` the largest grid's cells or nodes).
    Targets <= 10 s and a width <= 0.01.  ``goal_and_bracket_s`` / ``_rel_width``: the same for
    the AND of the two attributes.  Skipped with ``--skip-goals``, then ``null``.
``goal_worst_and_s``, ``goal_record_and_s``, ``goal_or_categorical_s``, ``goal_l2_ball_s``, ``goal_three_s`` and their ``_rel_width``
    The same for five goals beyond two normal attributes at a fixed record
    (:func:`goals_everywhere`): ``t=None`` (the worst record) for the AND of age
    ``N(45, 12)``, ``r = 2`` and salary ``N(2000, 235.7)``, ``r = 100``, the same AND at that
    worst record ``(45, 2443.4045)``, and ``t=None`` for age OR the
    cats' colour; an :math:`\ell_2` ball of the two normal coordinates above at ``(1, -1)``;
    the AND of the two attributes above and ``N(0, 2)``, ``r = 0.5``.  Targets: <= 60 s with
    ``t=None``, <= 10 s at a record, <= 120 s for three attributes; widths <= 0.01 (two
    attributes) and <= 0.02 (three).  Skipped with ``--skip-goals``.
``notebook_max_s``
    Execution time of the slowest notebook in ``notebooks/``, each run top to bottom on a
    fresh kernel, one at a time (:func:`garesearch.app.reproduce.execute_notebook`, kernel
    start-up included); ``notebook_slowest`` names it and ``notebook_failures`` counts the
    notebooks that failed (timed all the same).  When ``make reproduce`` was timed in the
    same run and succeeded, its ``output/timings.tsv`` is reused instead of running the
    notebooks again (``notebook_times_from`` says which).  Skipped with
    ``--skip-notebooks`` (or when there is no ``notebooks/`` folder), then ``null``.
    Target <= 60 s.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time

import mpmath
import numpy as np

from ..datasets import SALARY
from ._bench_accuracy import (
    _eps_upper_mp,
    float_vs_mp_error,
)
from ._bench_project import (
    _make,
    _root,
    derivations_time,
    machine,
    notebook_times,
)
from ._commands import OneLineParser

__all__ = [
    "TARGETS",
    "derivations_time",
    "float_vs_mp_error",
    "goal_brackets",
    "import_ratio",
    "machine",
    "main",
    "mp50_time",
    "notebook_times",
    "optimal_time",
    "optimise_gap",
    "optimise_time",
    "readings_time",
    "run_benchmarks",
    "vector_ratio",
]

#: key -> (target, description); every target is an upper bound
TARGETS: dict[str, tuple[float, str]] = {
    "import_ratio": (1.3, "import garesearch / import numpy, mpmath (median wall time)"),
    "vector_ratio": (2.0, "epsilon_for_advantage / bare numpy expression, 10^6 inputs"),
    "optimise_ms": (20.0, "epsilon_for_attribute(Normal(2000, 235.7), r=100, delta=0.1), ms"),
    "optimise_rel_gap": (1e-9, "its epsilon vs. a 40-digit dense search over D"),
    "mp50_ms": (5.0, "one epsilon_for_advantage at dps=50, ms"),
    "float_vs_mp_max_rel_err": (1e-12, "float64 vs. 50-digit path, p in [1e-12, 1-1e-12]"),
    "reproduce_s": (120.0, "make reproduce, s"),
    "tests_s": (300.0, "make test, s"),
    "derivations_s": (30.0, "all symbolic derivations in a fresh interpreter, s"),
    "notebook_max_s": (60.0, "slowest notebook on a fresh kernel, s"),
    "average_binary_ms": (5.0, "calibrate average reading, binary secret, Gaussian (warm), ms"),
    "tail_normal_s": (1.0, "tail reading, Normal prior, Gaussian, r, worst t, s"),
    "compose_1000_s": (10.0, "1,000 Laplace releases through the PLD accountant, s"),
    "compose_laplace_calibrate_s": (2.0, "calibrate average reading, binary secret, 10 Laplace releases, s"),
    "optimal_ms": (50.0, "optimal epsilon, salary example, worst t, both sides (warm), ms"),
    "optimal_rel_err": (1e-12, "its relative error against the 40-digit optimality conditions"),
    "optimal_continuous_s": (2.0, "certified optimal epsilon, worst t, slowest of five scipy priors, s"),
    "optimal_gamma_both_s": (5.0, "certified optimal epsilon, gamma(3, scale 10), both sides, s"),
    "optimal_categorical_s": (1.0, "optimal epsilon, worst t, Categorical with 10^4 values, s"),
    "optimal_vs_lp_max_rel_err": (1e-9, "optimal epsilon vs the LP oracle, 20 random finite priors"),
    "goal_or_bracket_s": (10.0, "optimal epsilon, OR of two normal attributes at a fixed t, s"),
    "goal_or_bracket_rel_width": (0.01, "its certified bracket's relative width"),
    "goal_and_bracket_s": (10.0, "optimal epsilon, AND of the same attributes, s"),
    "goal_and_bracket_rel_width": (0.01, "its certified bracket's relative width"),
    "goal_worst_and_s": (60.0, "optimal epsilon with t=None, AND of age and salary (Sec. 6.2), s"),
    "goal_worst_and_rel_width": (0.01, "its bracket's relative width"),
    "goal_record_and_s": (10.0, "optimal epsilon, AND of age and salary at its worst record, s"),
    "goal_record_and_rel_width": (0.01, "its bracket's relative width"),
    "goal_or_categorical_s": (60.0, "optimal epsilon with t=None, age OR the cats' colour, s"),
    "goal_or_categorical_rel_width": (0.01, "its bracket's relative width"),
    "goal_l2_ball_s": (10.0, "optimal epsilon of an l_2 ball of two normal coordinates at a fixed t, s"),
    "goal_l2_ball_rel_width": (0.01, "its bracket's relative width"),
    "goal_three_s": (120.0, "optimal epsilon, AND of three normal attributes at a fixed t, s"),
    "goal_three_rel_width": (0.02, "its bracket's relative width"),
}

_SALARY = {"mu": SALARY["mu"], "sigma": SALARY["sigma"], "r": SALARY["r"], "delta": SALARY["delta"]}


def _median_ms(fun, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fun()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


# ------------------------------------------------------------------------------------------
def import_ratio(repeat: int = 15) -> dict[str, float]:
    """Median wall time of a fresh ``import garesearch`` over ``import numpy, mpmath``.

    Both run as ``python -c ...`` in new interpreters, interleaved ``repeat`` times each.

    Examples
    --------
    >>> res = import_ratio(repeat=1)  # two fresh interpreters
    >>> sorted(res), res["import_ratio"] > 0
    (['import_garesearch_ms', 'import_numpy_mpmath_ms', 'import_ratio'], True)
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_root()), env.get("PYTHONPATH")]))
    commands = {"garesearch": "import garesearch", "numpy_mpmath": "import numpy, mpmath"}
    times: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(repeat):
        for key, code in commands.items():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=env, check=True)
            times[key].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    return {
        "import_ratio": med["garesearch"] / med["numpy_mpmath"],
        "import_garesearch_ms": 1e3 * med["garesearch"],
        "import_numpy_mpmath_ms": 1e3 * med["numpy_mpmath"],
    }


def _feasible_inputs(n: int, seed: int = 0):
    """``n`` random (delta, p, q, a) for which Eq. (main) has a finite epsilon > 0."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(1e-4, 0.9, n)
    delta = rng.uniform(0.01, 0.99, n) * (1 - p)
    q_min = p * (1 - p - delta) / (p + delta)  # Eq. (main) needs q > q_min
    q = q_min + rng.uniform(0.05, 1.0, n) * (1 - p - q_min)
    a = rng.uniform(0.5, 5.0, n)
    return delta, p, q, a


def vector_ratio(n: int = 10**6, repeat: int = 7) -> dict[str, float]:
    """Time of ``epsilon_for_advantage`` on ``n`` inputs over the bare numpy expression.

    Examples
    --------
    >>> sorted(vector_ratio(n=1000, repeat=1))
    ['vector_bare_ms', 'vector_checked_ms', 'vector_ratio']
    """
    from ..bound import epsilon_for_advantage

    delta, p, q, a = _feasible_inputs(n)

    def bare():
        return (np.log(q) - np.log1p(-p) + np.log1p(delta / p) + np.log1p(delta / (1 - p - delta))) / a

    def checked():
        return epsilon_for_advantage(delta=delta, p=p, q=q, a=a)

    # the bare sum of logarithms loses digits near the edge of feasibility (up to about 3e-13
    # on these inputs), where epsilon_for_advantage switches to a form that does not cancel
    if not np.allclose(checked(), bare(), rtol=1e-11, atol=0):
        raise RuntimeError("epsilon_for_advantage and the bare expression disagree")
    t_bare, t_checked = [], []
    for _ in range(repeat):
        t_bare.append(_median_ms(bare, 1))
        t_checked.append(_median_ms(checked, 1))
    b, c = statistics.median(t_bare), statistics.median(t_checked)
    return {"vector_ratio": c / b, "vector_bare_ms": b, "vector_checked_ms": c}


def optimise_time(repeat: int = 21):
    """Median time of the salary example's worst case over ``t``; returns (timings, result).

    Examples
    --------
    >>> timings, res = optimise_time(repeat=1)
    >>> round(res.epsilon, 5)  # the salary example: the sound comparison set
    0.00061
    """
    from ..attribute import epsilon_for_attribute
    from ..priors import Normal

    prior = Normal(_SALARY["mu"], _SALARY["sigma"])

    def run():
        return epsilon_for_attribute(prior, r=_SALARY["r"], delta=_SALARY["delta"], construction="sound")

    t0 = time.perf_counter()
    res = run()
    first = 1e3 * (time.perf_counter() - t0)
    return {"optimise_ms": _median_ms(run, repeat), "optimise_first_ms": first}, res


def _salary_conditions_mp(t0, c0, e0, dps=40):
    """The salary example's optimum from its optimality conditions at ``dps`` digits: the
    kernel posterior in closed form (normal integrals of e^{k u} from ``mpmath.ncdf``),
    stationary in the true value and the kernel centre, advantage = delta."""
    with mpmath.workdps(dps):
        mu, s = mpmath.mpf(_SALARY["mu"]), mpmath.mpf(_SALARY["sigma"])
        r, delta = mpmath.mpf(_SALARY["r"]), mpmath.mpf(_SALARY["delta"])

        def integral(k, a, b):
            return mpmath.exp(k * mu + k * k * s * s / 2) * (
                mpmath.ncdf((b - mu - k * s * s) / s) - mpmath.ncdf((a - mu - k * s * s) / s))

        def adv(t, c, e):
            lo, hi = t - r, t + r
            inside = mpmath.exp(-e * c) * integral(e, lo, c) + mpmath.exp(e * c) * integral(-e, c, hi)
            total = mpmath.exp(-e * c) * integral(e, -mpmath.inf, c) + mpmath.exp(e * c) * integral(-e, c, mpmath.inf)
            return inside / total - (mpmath.ncdf((hi - mu) / s) - mpmath.ncdf((lo - mu) / s))

        def system(t, c, e):
            return [mpmath.diff(lambda x: adv(x, c, e), t), mpmath.diff(lambda y: adv(t, y, e), c),
                    adv(t, c, e) - delta]

        return mpmath.findroot(system, (mpmath.mpf(t0), mpmath.mpf(c0), mpmath.mpf(e0)))[2]


def _spike_mixture():
    """0.1 U[-1, 1] + 0.9 U[-1.201, -1.199] as a scipy distribution no family table knows."""
    import scipy.stats

    class Spike(scipy.stats.rv_continuous):
        def _pdf(self, x):
            return (0.1 * np.where(np.abs(x) <= 1, 0.5, 0.0)
                    + 0.9 * np.where(np.abs(x + 1.2) <= 0.001, 500.0, 0.0))

        def _cdf(self, x):
            return 0.1 * np.clip((x + 1) / 2, 0, 1) + 0.9 * np.clip((x + 1.201) / 0.002, 0, 1)

    return Spike(a=-1.201, b=1.0, name="spike")()


def _continuous_cases():
    """``optimal_continuous_s``'s priors: (name, scipy distribution, r, t or None)."""
    import scipy.stats

    return (("lognorm(3)", scipy.stats.lognorm(3), 1.0, None), ("t(3)", scipy.stats.t(3), 1.0, None),
            ("gamma(3, scale=10)", scipy.stats.gamma(3, scale=10), 2.0, None),
            ("weibull_min(0.95)", scipy.stats.weibull_min(0.95), 1.0, None),
            ("spike mixture", _spike_mixture(), 1.0, 0.0))


def optimal_time(repeat: int = 15) -> dict[str, object]:
    """The ``optimal_*`` keys (module docstring).

    Examples
    --------
    >>> optimal_time(repeat=1)["optimal_rel_err"] < 1e-12  # takes about 10 s  # doctest: +SKIP
    True
    """
    import scipy.stats

    from ..optimal.attribute import epsilon_optimal
    from ..priors import Categorical, Continuous, Normal

    salary = Normal(_SALARY["mu"], _SALARY["sigma"])

    def run():
        return epsilon_optimal(salary, r=_SALARY["r"], delta=_SALARY["delta"])

    res = run()
    out: dict[str, object] = {"optimal_ms": _median_ms(run, repeat)}
    ref = _salary_conditions_mp(res.t, res.centre, res.epsilon)
    out["optimal_rel_err"] = float(abs(res.epsilon - ref) / ref)
    cases = _continuous_cases()
    each, width = [], 0.0
    for _, dist, r, t in cases:
        t0 = time.perf_counter()
        res = epsilon_optimal(Continuous(dist), r=r, delta=0.1, t=t, sides="upper")
        each.append(time.perf_counter() - t0)
        width = max(width, (res.epsilon_hi - res.epsilon) / res.epsilon)
    out["optimal_continuous_s"] = max(each)
    out["optimal_continuous_names"] = [c[0] for c in cases]
    out["optimal_continuous_each_s"] = each
    out["optimal_continuous_max_rel_width"] = width
    t0 = time.perf_counter()
    epsilon_optimal(Continuous(scipy.stats.gamma(3, scale=10)), r=2.0, delta=0.1)
    out["optimal_gamma_both_s"] = time.perf_counter() - t0
    rng = np.random.default_rng(5)
    x = np.cumsum(rng.exponential(1.0, 10_000))
    p = rng.dirichlet(np.ones(10_000))
    cat = Categorical(dict(zip(x.tolist(), p.tolist(), strict=True)))
    t0 = time.perf_counter()
    epsilon_optimal(cat, r=5.0, delta=0.1)
    out["optimal_categorical_s"] = time.perf_counter() - t0
    out["optimal_vs_lp_max_rel_err"] = _optimal_vs_lp()
    return out


def _optimal_vs_lp(cases: int = 20) -> float | None:
    """Largest relative difference between the optimal epsilon and the test suite's LP oracle
    over seeded random finite priors (``None`` outside a source checkout)."""
    import importlib.util

    path = _root() / "tests" / "oracle_lp.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("_garesearch_oracle_lp", path)
    oracle = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = oracle  # dataclasses look their module up
    try:
        spec.loader.exec_module(oracle)
    except ImportError:  # hypothesis (a test dependency) missing
        return None
    finally:
        sys.modules.pop(spec.name, None)
    from ..optimal.attribute import epsilon_optimal
    from ..priors import Categorical

    rng = np.random.default_rng(2026)
    worst = 0.0
    for _ in range(cases):
        n = int(rng.integers(3, 16))
        x = np.sort(rng.choice(np.arange(0, 512), n, replace=False) / 16.0)
        p = rng.dirichlet(np.ones(n) * 0.8)
        p = p / math.fsum(p)
        r = float(rng.choice([0.0, 0.5, 1.0, 2.5]))
        delta = float(rng.choice([0.02, 0.1, 0.3]))
        ours = epsilon_optimal(Categorical(dict(zip(x.tolist(), p.tolist(), strict=True))), r=r, delta=delta).epsilon
        ref = oracle.lp_optimal_epsilon(x, p, r=r, delta=delta)
        if math.isinf(ours) and math.isinf(ref):
            continue
        worst = max(worst, abs(ours - ref) / ref)
    return worst


def optimise_gap(result, *, dps: int = 40, n: int = 1500) -> dict[str, float]:
    """Relative gap between ``result.epsilon_upper`` and an independent search over ``D``.

    At ``result.t`` (Normal prior, sound construction, no ``R``), Eq. (main)'s epsilon as a
    function of the distance ``D`` is evaluated with ``mpmath.erf`` at ``dps`` digits on a
    dense grid across ``[2r, D_max]`` (linear and log-spaced) and around ``result.distance``;
    the best grid point is refined by golden-section search to a relative width of 1e-20.

    Examples
    --------
    >>> _, res = optimise_time(repeat=1)
    >>> optimise_gap(res, n=100)["optimise_rel_gap"] < 1e-9  # the optimiser finds the best D
    True
    """
    prior = result.prior
    with mpmath.workdps(dps):
        mp = mpmath.mpf
        t, r, delta = mp(result.t), mp(result.r), mp(result.delta)
        cut_lo, cut_hi = mp(float(prior.quantile(1e-16))), mp(float(prior.quantile(1 - 1e-16)))
        width = 2 * r
        d_max = max(t + r - cut_lo, cut_hi - (t - r))

        mu, sigma = mp(prior.mu), mp(prior.sigma)

        def f(D):
            return _eps_upper_mp(mu, sigma, t, r, delta, D, cut_lo, cut_hi)

        span = d_max - width
        grid = [width + span * k / n for k in range(1, n + 1)]
        grid += [width + span * mpmath.power(10, -7 + 7 * mp(k) / n) for k in range(n)]
        d0 = mp(result.distance)
        grid += [d0 * (1 + mp(k) / (20 * n)) for k in range(-n, n + 1)]
        grid = sorted(g for g in grid if width < g <= d_max)
        values = [f(g) for g in grid]
        i = max(range(len(grid)), key=lambda k: values[k])
        a, b = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
        golden = (mpmath.sqrt(5) - 1) / 2
        c, d = b - golden * (b - a), a + golden * (b - a)
        fc, fd = f(c), f(d)
        while b - a > mp(10) ** -20 * b:
            if fc > fd:
                b, d, fd = d, c, fc
                c = b - golden * (b - a)
                fc = f(c)
            else:
                a, c, fc = c, d, fd
                d = a + golden * (b - a)
                fd = f(d)
        best = max(values[i], fc, fd)
        gap = abs(mp(result.epsilon_upper) - best) / best
        return {
            "optimise_rel_gap": float(gap),
            "optimise_distance_rel_diff": float(abs((a + b) / 2 - d0) / d0),
        }


def readings_time(repeat: int = 15) -> dict[str, float | None]:
    """The benchmark keys of the Gaussian and composed readings (module docstring).

    Examples
    --------
    >>> sorted(readings_time(repeat=1))[:3]
    ['average_binary_ms', 'compose_1000_s', 'compose_laplace_calibrate_s']
    """
    from ..priors import Categorical, Normal
    from ..releases.accounting import dp_accounting_available, privacy_profile
    from ..releases.calibration import calibrate
    from ..releases.tail import advantage_tail

    binary = Categorical({0: 0.8, 1: 0.2})
    calibrate(binary, "gaussian", r=0, delta=0.1, reading="average")
    out: dict[str, float | None] = {"average_binary_ms": _median_ms(
        lambda: calibrate(binary, "gaussian", r=0, delta=0.1, reading="average"), repeat)}
    prior = Normal(_SALARY["mu"], _SALARY["sigma"])
    out["tail_normal_s"] = 1e-3 * _median_ms(
        lambda: advantage_tail(prior, "gaussian", scale=300.0, r=_SALARY["r"], delta=0.1), max(3, repeat // 3))
    out["compose_1000_s"] = out["compose_laplace_calibrate_s"] = None
    if dp_accounting_available():
        privacy_profile("laplace", scale=30.0, releases=2).dp_epsilon(1e-6)  # imports
        runs = iter(range(1, 1000))  # a new scale each time: no cached privacy loss distribution
        out["compose_1000_s"] = 1e-3 * _median_ms(
            lambda: privacy_profile("laplace", scale=30.0 + 1e-9 * next(runs), releases=1000).dp_epsilon(1e-6), 3)
        out["compose_laplace_calibrate_s"] = 1e-3 * _median_ms(
            lambda: calibrate(binary, "laplace", r=0, delta=0.1 + 1e-9 * next(runs), reading="average",
                              releases=10), max(1, min(3, repeat)))
    return out


def mp50_time(repeat: int = 200) -> dict[str, float]:
    """Median time of one 50-digit ``epsilon_for_advantage`` (the cats AND-event).

    Examples
    --------
    >>> sorted(mp50_time(repeat=1))
    ['mp50_ms', 'mp50_q_ms']
    """
    from ..bound import epsilon_for_advantage

    epsilon_for_advantage(delta=0.1, p=0.2, dps=50)
    return {
        "mp50_ms": _median_ms(lambda: epsilon_for_advantage(delta=0.1, p=0.2, dps=50), repeat),
        "mp50_q_ms": _median_ms(
            lambda: epsilon_for_advantage(delta=0.1, p=0.2, q=0.5, a=2.0, dps=50), repeat
        ),
    }


def goal_brackets(rtol: float | None = None) -> dict[str, object]:
    """Time and certified bracket of the optimal epsilon of an OR and an AND of two normal
    attributes (see the module docstring) at the precision ``rtol`` (default that of
    :func:`~garesearch.optimal.goals.epsilon_optimal`, 0.01); no time budget, so the brackets
    are the same on every run.

    Examples
    --------
    >>> res = goal_brackets()  # about 13 s  # doctest: +SKIP
    >>> res["goal_or_bracket_epsilon"] <= res["goal_or_bracket_epsilon_hi"]  # doctest: +SKIP
    True
    """
    from ..constructions.comparison_sets import comparison_set_epsilon
    from ..goals import Attribute
    from ..optimal.goals import epsilon_optimal
    from ..priors import Normal

    a = Attribute(Normal(0.0, 1.0), r=0.6, name="a")
    b = Attribute(Normal(0.5, 1.3), r=0.4, name="b")
    t = {"a": 1.0, "b": -1.0}
    out: dict[str, object] = {}
    for name, goal in (("or", a | b), ("and", a & b)):
        t0 = time.perf_counter()
        res = epsilon_optimal(goal, delta=0.1, t=t, rtol=rtol)
        key = f"goal_{name}_bracket"
        out[f"{key}_s"] = time.perf_counter() - t0
        out[f"{key}_rel_width"] = res.rel_width
        out[f"{key}_epsilon"] = res.epsilon
        out[f"{key}_epsilon_hi"] = res.epsilon_hi
        out[f"{key}_binding"] = res.binding
        out[f"{key}_method"] = res.method
        out[f"{key}_cells"] = max(res.details[s].get("cells", res.details[s].get("nodes", 0))
                                  for s in ("upper", "lower"))
        out[f"goal_{name}_sound_epsilon"] = comparison_set_epsilon(goal, delta=0.1, t=t).epsilon
    return out


def goals_everywhere() -> dict[str, object]:
    r"""Time and bracket width of five goals beyond two normal attributes at a fixed record
    (Sec. 4.2, 4.3; default precision, no time budget): the worst record (``t=None``) of the
    AND of age and salary and of age OR the cats' colour, the AND at its worst record, an
    :math:`\ell_2` ball of two normal coordinates, and the AND of three normal attributes.  Keys ``goal_<name>_s``,
    ``goal_<name>_rel_width``, ``goal_<name>_method``.

    Examples
    --------
    >>> res = goals_everywhere()  # about 3 min  # doctest: +SKIP
    >>> res["goal_three_rel_width"] <= 1  # doctest: +SKIP
    True
    """
    from ..datasets import COLOURS
    from ..goals import Attribute, Coordinates
    from ..optimal.goals import epsilon_optimal
    from ..priors import Categorical, Normal

    age = Attribute(Normal(45, 12), r=2, name="age")
    salary = Attribute(Normal(2000, 235.7), r=100, name="salary")
    colour = Attribute(Categorical(COLOURS), r=0, name="colour")
    a = Attribute(Normal(0.0, 1.0), r=0.6, name="a")
    b = Attribute(Normal(0.5, 1.3), r=0.4, name="b")
    c = Attribute(Normal(0.0, 2.0), r=0.5, name="c")
    ball = Coordinates([Normal(0.0, 1.0), Normal(0.5, 1.3)], r=0.6, norm=2, name="ball")
    cases = (("worst_and", age & salary, None), ("record_and", age & salary, {"age": 45.0, "salary": 2443.4045400402147}),
             ("or_categorical", age | colour, None),
             ("l2_ball", ball, {"ball": (1.0, -1.0)}), ("three", a & b & c, {"a": 1.0, "b": -1.0, "c": 0.0}))
    out: dict[str, object] = {}
    for name, goal, t in cases:
        t0 = time.perf_counter()
        res = epsilon_optimal(goal, delta=0.1, t=t)
        out[f"goal_{name}_s"] = time.perf_counter() - t0
        out[f"goal_{name}_rel_width"] = res.rel_width
        out[f"goal_{name}_method"] = res.method
    return out


# ------------------------------------------------------------------------------------------
def run_benchmarks(
    *,
    repeat: int = 15,
    size: int = 10**6,
    skip_reproduce: bool = False,
    skip_tests: bool = False,
    skip_derivations: bool = False,
    skip_notebooks: bool = False,
    skip_goals: bool = False,
    log=None,
) -> dict[str, object]:
    """Run every benchmark; returns the measurements (see the module docstring).

    ``repeat`` sets the number of runs of the import timing (the others scale with it),
    ``size`` the number of inputs of the vectorised timing.

    Examples
    --------
    >>> res = run_benchmarks(repeat=1, size=1000, skip_reproduce=True, skip_tests=True,  # doctest: +SKIP
    ...                      skip_derivations=True, skip_notebooks=True, skip_goals=True)
    >>> "optimise_ms" in res  # doctest: +SKIP
    True
    """
    def say(text):
        if log is not None:
            print(text, file=log, flush=True)

    out: dict[str, object] = {}
    say("timing imports ...")
    out.update(import_ratio(repeat))
    say("timing the vectorised path ...")
    out.update(vector_ratio(size, max(3, repeat // 2)))
    say("timing the worst case over t ...")
    timing, res = optimise_time(max(3, repeat + 6))
    out.update(timing)
    say("checking its optimum at 40 digits ...")
    out.update(optimise_gap(res, n=max(50, 100 * repeat)))
    out["optimise_epsilon"] = res.epsilon
    out["optimise_t"] = res.t
    say("timing the optimal epsilon ...")
    out.update(optimal_time(max(3, repeat)))
    say("timing the mpmath path ...")
    out.update(mp50_time(max(10, 13 * repeat)))
    say("comparing the float and mpmath paths ...")
    out.update(float_vs_mp_error(*((60, 40) if repeat >= 5 else (6, 4))))
    for key, target, skip in (("reproduce", "reproduce", skip_reproduce), ("tests", "test", skip_tests)):
        out[f"{key}_s"] = out[f"{key}_exit_status"] = None
        if not skip:
            say(f"running make {target} ...")
            out[f"{key}_s"], out[f"{key}_exit_status"] = _make(target, log)
    say("timing the readings beyond pure epsilon ...")
    out.update(readings_time(max(3, repeat)))
    out["derivations_s"] = None
    if not skip_derivations:
        say("timing the symbolic derivations ...")
        out.update(derivations_time())
    out["notebook_max_s"] = None
    if not skip_notebooks:
        tsv = _root() / "output" / "timings.tsv"
        reuse = out["reproduce_exit_status"] == 0 and tsv.is_file()
        say("reading the notebook timings of make reproduce ..." if reuse else "timing the notebooks ...")
        out.update(notebook_times(timings=tsv if reuse else None))
    for key in TARGETS:
        if key.startswith("goal_"):
            out[key] = None
    if not skip_goals:
        say("bracketing the optimal epsilon of an OR of two normal attributes ...")
        out.update(goal_brackets())
        say("bracketing the optimal epsilon of four more goals (t=None, l_2, three attributes) ...")
        out.update(goals_everywhere())
    out["machine"] = machine()
    return out


def _fmt(value) -> str:
    if value is None:
        return "skipped"
    if isinstance(value, float) and (value == 0 or abs(value) < 1e-3 or abs(value) >= 1e5):
        return f"{value:.2e}"
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def format_table(results: dict[str, object]) -> str:
    """The measurements as a Markdown table, with the machine underneath."""
    lines = ["| measurement | value | target | met |", "|---|---:|---:|:---:|"]
    for key, (target, text) in TARGETS.items():
        value = results.get(key)
        met = "" if value is None else ("yes" if value <= target else "NO")
        status = results.get(f"{key[:-2]}_exit_status") if key.endswith("_s") else None
        shown = _fmt(value) + (f" (failed, exit {status})" if status else "")
        lines.append(f"| `{key}`: {text} | {shown} | <= {_fmt(target)} | {met} |")
    m = results.get("machine", {})
    if m:
        load = m.get("load_average")
        lines.append("")
        lines.append(
            f"{m['cpu']}, {m['cores']} cores, Python {m['python']}, numpy {m['numpy']}, "
            f"scipy {m['scipy']}, mpmath {m['mpmath']}"
            + (f"; load average {load[0]:.1f} at the end" if load else "")
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m garesearch.app.bench [--json] [--skip-...]`` (see ``--help``).

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
    ...     try:
    ...         main(["--repeat", "0"])
    ...     except SystemExit as exc:
    ...         code = exc.code
    >>> code
    2
    """
    parser = OneLineParser(
        prog="python -m garesearch.app.bench",
        description="Measure garesearch's speed and accuracy against its targets.",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--skip-reproduce", action="store_true", help="do not time 'make reproduce'")
    parser.add_argument("--skip-tests", action="store_true", help="do not time 'make test'")
    parser.add_argument(
        "--skip-derivations", action="store_true", help="do not time the symbolic derivations"
    )
    parser.add_argument("--skip-notebooks", action="store_true", help="do not time the notebooks")
    parser.add_argument("--skip-goals", action="store_true",
                        help="do not bracket the optimal epsilon of the OR goal")
    parser.add_argument(
        "--repeat", type=int, default=15, help="runs of the import timing; the others scale with it"
    )
    parser.add_argument("--size", type=int, default=10**6, help="inputs of the vectorised timing")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.size < 1:
        parser.error("--repeat and --size must be at least 1")
    results = run_benchmarks(
        repeat=args.repeat, size=args.size, skip_reproduce=args.skip_reproduce,
        skip_tests=args.skip_tests, skip_derivations=args.skip_derivations,
        skip_notebooks=args.skip_notebooks, skip_goals=args.skip_goals, log=sys.stderr,
    )
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(format_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
