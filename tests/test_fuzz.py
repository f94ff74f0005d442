"""The standing fuzz suite: every public function, and the command line, on adversarial input.

Each property feeds a public function values at the edges (0, -0.0, 1 - 1e-16, subnormals,
1e308, NaN, inf), odd types (None, strings, complex, mappings, objects, Decimal, Fraction,
numpy scalars) and mixed valid/invalid arrays, and asserts the contract of
:func:`fuzzing.call`: a result, or :class:`~garesearch.ParameterError` /
:class:`~garesearch.InfeasibleError`; no other exception, no RuntimeWarning, no hang.  Where
a result comes back, its range is checked, and an infinite epsilon ("no noise needed") only
where exact rational arithmetic on the inputs says that no epsilon can violate the bound.

The functions of the one-attribute, pointwise and AND/OR modules are driven in
``test_regressions_core.py``.  Profiles: ``tests/conftest.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from fuzzing import (
    as_array,
    assert_nonnegative_finite,
    assert_positive,
    assert_probability,
    call,
    dps_choice,
    dps_values,
    edge_floats,
    floats,
    odd,
    small_arrays,
    values,
)
from hypothesis import given
from hypothesis import strategies as st

import garesearch as ga
from garesearch import approx_dp, bound, composition, noise, priors
from garesearch._evaluate import as_float_array, as_mpf, to_fraction
from garesearch.app import _pleak_format, cli, pleak
from garesearch.releases import readings, release
from garesearch.releases.release import InsecureNoiseWarning

sides_values = st.sampled_from([None, "both", "upper", "lower", "sideways", 3, ["upper"]])


# --- bound ------------------------------------------------------------------------------------
@given(delta=values, p=values, q=st.one_of(st.none(), values), a=values, sides=sides_values,
       dps=dps_choice)
def test_epsilon_for_advantage(delta, p, q, a, sides, dps):
    if dps is not None and any(isinstance(x, np.ndarray) and x.ndim for x in (delta, p, q, a)):
        dps = None
    out, err = call(bound.epsilon_for_advantage, delta=delta, p=p, q=q, a=a, sides=sides, dps=dps)
    if err is not None or np.size(out) == 0:
        return
    # mpmath numbers have no overflow: compare them as they are
    res = as_array(out).ravel() if dps is None else np.array([out], dtype=object)
    side = sides or ("both" if q is None else "upper")
    d, pp = (np.broadcast_to(x, res.shape) for x in _exact_inputs(dps, delta, p))
    for di, pi, ei in zip(d, pp, res, strict=True):
        upper_open = di + pi >= 1  # exact rationals
        lower_open = pi <= di
        no_noise = {"upper": upper_open, "lower": lower_open, "both": upper_open and lower_open}[side]
        assert (ei == math.inf) == no_noise, (delta, p, q, a, side, out)
        assert ei > 0, out  # also: not NaN


def _exact_inputs(dps, *xs):
    """The inputs as the function read them, as exact rationals (floats, or the mpmath numbers
    the dps path reads: strings at ``dps`` digits)."""
    if dps is None:
        arrays = np.broadcast_arrays(*(as_float_array("x", x) for x in xs))
        return [np.array([Fraction(float(v)) for v in a.ravel()], dtype=object) for a in arrays]
    with mpmath.workdps(dps):
        return [np.array([to_fraction(as_mpf("x", x, dps))], dtype=object) for x in xs]


@given(epsilon=values, p=values, q=st.one_of(st.none(), values), a=values, dps=dps_choice)
def test_posterior_bound_and_advantage(epsilon, p, q, a, dps):
    if dps is not None and any(isinstance(x, np.ndarray) and x.ndim for x in (epsilon, p, q, a)):
        dps = None
    out, err = call(bound.posterior_bound, epsilon=epsilon, p=p, q=q, a=a, dps=dps)
    if err is None:
        assert_probability(out, "posterior bound")
    out, err = call(bound.advantage_for_epsilon, epsilon=epsilon, p=p, q=q, a=a, dps=dps)
    if err is None:
        assert_probability(out, "advantage")


@given(delta=values, q=values, a=values, dps=dps_choice)
def test_worst_case_prior_and_epsilon(delta, q, a, dps):
    if dps is not None and any(isinstance(x, np.ndarray) and x.ndim for x in (delta, q, a)):
        dps = None
    out, err = call(bound.worst_case_prior, delta=delta, q=q, dps=dps)
    if err is None:
        assert_positive(out, "worst_case_prior")
        assert_probability(out, "worst_case_prior")
    out, err = call(bound.worst_case_epsilon, delta=delta, q=q, a=a, dps=dps)
    if err is None:
        assert_positive(out, "worst_case_epsilon")


@given(delta=dps_values, p=dps_values, R=dps_values, dps=st.sampled_from([None, 20]))
def test_eps_lb_and_eps_ub(delta, p, R, dps):
    for fn in (bound.eps_lb, bound.eps_ub):
        out, err = call(fn, delta=delta, p=p, R=R, dps=dps)
        if err is None:
            assert_positive(out, fn.__name__, finite=False)


# --- noise ------------------------------------------------------------------------------------
kinds = st.sampled_from(["laplace", "gencauchy", "gaussian", "cauchy", None])


@given(x=values, kind=kinds, scale=values, dps=dps_choice)
def test_noise_functions(x, kind, scale, dps):
    if dps is not None and any(isinstance(v, np.ndarray) and v.ndim for v in (x, scale)):
        dps = None
    out, err = call(noise.noise_mass, x, noise=kind, scale=scale, dps=dps)
    if err is None:
        assert_probability(out, "noise_mass")
    out, err = call(noise.noise_bound, x, noise=kind, scale=scale, dps=dps)
    if err is None:
        assert_nonnegative_finite(out, "noise_bound")
    out, err = call(noise.noise_density, x, noise=kind, scale=scale, dps=dps)
    if err is None:
        assert_nonnegative_finite(out, "noise_density")
    out, err = call(noise.noise_density_inverse, x, noise=kind, scale=scale, dps=dps)
    if err is None:
        assert_nonnegative_finite(out, "noise_density_inverse")


@given(epsilon=values, sensitivity=values)
def test_laplace_scale(epsilon, sensitivity):
    out, err = call(noise.laplace_scale, epsilon=epsilon, sensitivity=sensitivity)
    if err is None:
        res = as_array(out)
        assert np.all(np.isfinite(res) & (res > 0)), out


@given(size=st.one_of(st.integers(-2, 50), st.sampled_from([1.5, "3", None, (2, 2), (2, -1), True])),
       kind=kinds, scale=values, rng=st.sampled_from([None, 0, -1, "seed", 1.5]))
def test_sample_noise(size, kind, scale, rng):
    out, err = call(noise.sample_noise, size, noise=kind, scale=scale, rng=rng)
    if err is None:
        assert np.all(np.isfinite(out))


# --- approximate DP (App. B) ------------------------------------------------------------------
@given(epsilon=values, delta=values, chi=values, p=values, q=values, dps=dps_choice)
def test_app_b_posterior_bounds(epsilon, delta, chi, p, q, dps):
    if dps is not None and any(isinstance(v, np.ndarray) and v.ndim for v in (epsilon, delta, chi, p, q)):
        dps = None
    for fn, name in ((approx_dp.posterior_bound_chi, "chi"), (approx_dp.adp_posterior_bound, "chibar")):
        out, err = call(fn, epsilon=epsilon, dp_delta=delta, p=p, q=q, dps=dps, **{name: chi})
        if err is None:
            assert_probability(out, fn.__name__)


@given(epsilon=values, delta=values, confidence=values, advantage=values, p=values, q=values,
       shift=values, kind=kinds, scale=values)
def test_app_b1_confidence(epsilon, delta, confidence, advantage, p, q, shift, kind, scale):
    out, err = call(approx_dp.advantage_with_confidence, epsilon=epsilon, dp_delta=delta,
                    confidence=confidence, p=p, q=q, shift=shift, noise=kind, scale=scale)
    if err is None:
        assert np.all(as_array(out.advantage) >= 0)
    out, err = call(approx_dp.confidence_for_advantage, epsilon=epsilon, dp_delta=delta,
                    advantage=advantage, p=p, q=q, shift=shift, noise=kind, scale=scale)
    if err is None:
        assert_probability(out.confidence, "confidence")


@given(epsilon=values, alpha=values, beta=values, c=values, b=values,
       requirement=st.sampled_from(["corrected", "paper", "other"]), dps=dps_choice)
def test_app_b2(epsilon, alpha, beta, c, b, requirement, dps):
    if dps is not None and any(isinstance(v, np.ndarray) and v.ndim for v in (epsilon, alpha, beta, c, b)):
        dps = None
    out, err = call(approx_dp.bprime_interval, epsilon=epsilon, alpha=alpha, beta=beta, c=c,
                    requirement=requirement, dps=dps)
    if err is None and out is not None:
        low, high = out
        assert 0 < low <= high < math.inf, out  # mpmath numbers (dps) have no overflow
    out, err = call(approx_dp.beta_bound, epsilon=epsilon, b=b, C=c, dps=dps)
    if err is None:
        assert_positive(out, "beta_bound", finite=False)  # inf: no bound on beta
    out, err = call(approx_dp.smooth_laplace_dp_delta, epsilon=epsilon, b=b, beta=beta, dps=dps)
    if err is None:
        assert_nonnegative_finite(out)
    out, err = call(approx_dp.smooth_laplace_ratio, epsilon=epsilon, b=b, beta=beta, c=c, dps=dps)
    if err is None:
        assert_nonnegative_finite(out)


@given(epsilon=st.one_of(floats, odd), beta=st.one_of(floats, odd), c=st.one_of(floats, odd),
       n_alpha=st.sampled_from([1, 5, 0, -3, 2.5, "40", True]))
def test_search_smooth_laplace(epsilon, beta, c, n_alpha):
    out, err = call(approx_dp.search_smooth_laplace, epsilon=epsilon, beta=beta, c=c, n_alpha=n_alpha)
    if err is None:
        assert out.b > 0 and math.isfinite(out.noise_scale) and out.noise_scale > 0


@given(delta=values, p=values, q=st.one_of(st.none(), values), failure=values)
def test_pdp_and_average(delta, p, q, failure):
    out, err = call(approx_dp.epsilon_for_pdp_advantage, delta=delta, p=p, q=q, failure=failure)
    if err is None:
        assert np.all(as_array(out[0]) > 0)
    out, err = call(approx_dp.average_advantage, advantage=p, confidence=failure)
    if err is None:
        assert not np.any(np.isnan(as_array(out)))


# --- readings ---------------------------------------------------------------------------------
@given(epsilon=values, p=values, m=values, rho=values, distance=values, delta=values, dps=dps_choice)
def test_readings(epsilon, p, m, rho, distance, delta, dps):
    if dps is not None and any(isinstance(v, np.ndarray) and v.ndim for v in (epsilon, p, m, rho, distance)):
        dps = None
    for fn, kw, check in (
        (readings.posterior_belief_bound, dict(epsilon=epsilon, p=p, dps=dps), assert_probability),
        (readings.lee_clifton_posterior, dict(epsilon=epsilon, m=m, distance=distance, dps=dps),
         assert_probability),
        (readings.lee_clifton_epsilon, dict(rho=rho, m=m, distance=distance, dps=dps), None),
        (readings.worst_case_advantage, dict(epsilon=epsilon), assert_probability),
        (readings.epsilon_for_worst_case_advantage, dict(delta=delta), None),
        (readings.membership_advantage, dict(epsilon=epsilon, dp_delta=delta), assert_probability),
        (readings.kazan_reiter_ratio, dict(epsilon=epsilon, p=p), None),
    ):
        out, err = call(fn, **kw)
        if err is None:
            (check or assert_positive)(out, fn.__name__)


@given(profile=st.one_of(floats, st.sampled_from([lambda p: 2.0, lambda p: p, "x", None])), p=values)
def test_kazan_reiter_epsilon(profile, p):
    out, err = call(readings.kazan_reiter_epsilon, profile, p=p)
    if err is None:
        assert float(out) > 0


# --- composition ------------------------------------------------------------------------------
vectors = st.one_of(small_arrays, st.lists(floats, min_size=0, max_size=4), odd)


@given(eps=vectors, sens=vectors, p=st.one_of(edge_floats, odd), total=values,
       m=st.sampled_from([1, 3, 0, -1, 2.5, 10**9, np.int64(4), True]))
def test_composition(eps, sens, p, total, m):
    for fn, args, kw in (
        (composition.sequential_epsilon, (eps,), {}),
        (composition.composed_epsilon, (eps,), {"p": p}),
        (composition.equal_split, (total, m), {"p": p}),
        (composition.optimal_split, (total, sens), {"p": p}),
        (composition.laplace_scales, (eps, sens), {}),
        (composition.expected_squared_error, (eps, sens), {}),
        (composition.split_saving, (sens,), {"p": p}),
        (composition.dual_exponent, (p,), {}),
    ):
        out, err = call(fn, *args, **kw)
        if err is None:
            res = as_array(out)
            assert np.all(np.isfinite(res) & (res > 0)) or fn is composition.dual_exponent, (fn, out)


# --- priors -----------------------------------------------------------------------------------
@given(a=values, b=values)
def test_prior_constructors(a, b):
    import scipy.stats

    for make in (
        lambda: priors.Uniform(a, b),
        lambda: priors.Normal(a, b),
        lambda: priors.PiecewiseUniform([0.0, a, b], [0.5, 0.5]),
        lambda: priors.PiecewiseUniform(a, b),
        lambda: priors.Categorical({a if not isinstance(a, (list, dict, set, np.ndarray)) else "k": 0.5,
                                    "other": 0.5}),
        lambda: priors.Categorical({0.0: a, 1.0: b}),
        lambda: priors.Continuous(scipy.stats.norm(a, b) if _real(a) and _real(b) else a),
    ):
        prior, err = call(make)
        if err is None:
            repr(prior)
            if prior.metric == "absolute":
                low, high = prior.support
                assert low <= high


def _real(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


# --- release ----------------------------------------------------------------------------------
SECRET = 123456.789


@given(epsilon=values, sensitivity=values, confidence=values,
       backend=st.sampled_from([None, "numpy", "opendp", "torch", 1]),
       seed=st.sampled_from([None, 1, -1, "x"]))
def test_laplace_release_never_shows_the_secret(epsilon, sensitivity, confidence, backend, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        out, err = call(release.laplace_release, SECRET, epsilon=epsilon, sensitivity=sensitivity,
                        confidence=confidence, backend=backend, seed=seed)
    if err is None:
        import dataclasses

        fields = dataclasses.asdict(out)
        assert set(fields) == {"value", "epsilon", "sensitivity", "scale", "confidence",
                               "error_bound", "interval", "backend"}
        assert "true" not in (repr(out) + str(out) + json.dumps(fields)).lower()
        assert math.isfinite(out.value) and out.interval[0] <= out.value <= out.interval[1]


@given(true_value=values, n=st.sampled_from([1, 10, 0, -1, 2.5, "5", None]))
def test_release_helpers(true_value, n):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        call(release.laplace_release, true_value, epsilon=1.0, seed=1)
    table, err = call(release.synthetic_cats, n)
    if err is None:
        assert 0 <= release.count_female_tabby(table) <= n
    table, err = call(release.synthetic_salaries, n, mu=true_value)
    if err is None:
        call(release.salary_sum, table)
    call(release.count_female_tabby, true_value)
    call(release.salary_sum, {"salary": true_value})


# --- widgets' numbers -------------------------------------------------------------------------
@given(delta=values, p=values, q=st.one_of(st.none(), values), a=values)
def test_epsilon_state(delta, p, q, a):
    state, err = call(ga.app.widgets.epsilon_state, delta=delta, p=p, q=q, a=a)
    assert err is None  # the state reports problems in its message
    assert state["epsilon"] is None or state["epsilon"] > 0


# --- PLEAK reader -----------------------------------------------------------------------------
PLEAK_WORDS = ["t.a", "t.b", "exact", "none", "approx", "approxWrtLp", "approxWrtLinf", "AND", "OR",
               "rangeUnif", "normal", "setUnif", "setPrior", "rangePrior", "totalUnif", "range",
               "set", "total", "SELECT", "FROM", "leak", "cost", "0", "1", "2.5", "-1", "1e999",
               "1e-400", "'v'", "'w", "(", ")", ",", ";", "--c", "/*", "*/", "\n", "\ufeff", "é",
               "\x00", "0.5", "1e308", "nan", "inf"]
pleak_text = st.lists(st.sampled_from(PLEAK_WORDS), max_size=40).map(" ".join)


@given(text=st.one_of(pleak_text, st.text(max_size=60)))
def test_pleak_parsers(text):
    for parse in (pleak.parse_attacker, pleak.parse_goal):
        _out, err = call(parse, text)
        if err is not None:
            assert isinstance(err, ga.ParameterError)


@given(raw=st.one_of(pleak_text.map(lambda t: t.encode("utf-8")), st.binary(max_size=60)))
def test_pleak_files(raw, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pleak")
    path = folder / "fuzz.att"
    path.write_bytes(raw)
    for read in (pleak.read_attacker, pleak.read_goal):
        _out, err = call(read, path)
        if err is not None:
            assert str(err).startswith(str(path)) or "cannot read" in str(err), err


@given(text=pleak_text, chunk=st.integers(1, 9))
def test_pleak_chunks_do_not_change_the_tokens(text, chunk):
    """The streamed tokeniser sees the same tokens however the text is cut."""
    def tokens(size):
        parts = [text[i:i + size] for i in range(0, len(text), size)]
        return [t for batch in _pleak_format._tokens(parts, "x") for t in batch]

    try:
        whole = tokens(max(len(text), 1))
    except ga.ParameterError as exc:
        with pytest.raises(ga.ParameterError) as again:
            tokens(chunk)
        assert str(again.value) == str(exc)
        return
    assert tokens(chunk) == whole


# --- the command line -------------------------------------------------------------------------
PRIOR_SPECS = ["normal:2000,235.7", "normal:0,1", "uniform:0,1", "uniform:1,0",
               "categorical:a=0.5,b=0.5", "categorical:1=0.2,2=0.8", "piecewise:0,1,2:0.5,0.5",
               "normal:0", "normal:nan,1", "normal:0,inf", "uniform:0,1e999", "uniform:0,5e-324",
               "categorical:a=0.5,a=0.5", "categorical:inf=0.5,1=0.5", "bogus:1", "", ":", "normal:"]
@st.composite
def argv(draw):
    args = ["--delta", draw(st.sampled_from(["0.1", "0.5", "0", "1", "-1", "nan", "inf", "abc"]))]
    mode = draw(st.sampled_from(["prior", "attributes", "junk"]))
    if mode == "prior":
        args += ["--prior", draw(st.sampled_from(PRIOR_SPECS))]
    elif mode == "attributes":
        for name in ("x", "y")[: draw(st.integers(1, 2))]:
            args += ["--attribute", f"{name}={draw(st.sampled_from(PRIOR_SPECS[4:7] + PRIOR_SPECS))}"]
        args += ["--goal", draw(st.sampled_from(["x & y", "x | y", "x", "(x", "x &", "z", "((x))",
                                                 "(" * 70 + "x" + ")" * 70, ""]))]
    else:
        args += draw(st.lists(st.sampled_from(["--prior", "--r", "--t", "--json", "--bogus", "x",
                                               "--construction", "paper", "--sides", "--R"]),
                              max_size=5))
    if draw(st.booleans()):
        args += ["--r", draw(st.sampled_from(["0.5", "1", "-1", "nan", "abc", "x=0.5,y=1", "x=0"]))]
    if draw(st.booleans()):
        args += ["--sensitivity", draw(st.sampled_from(["1", "0", "-2", "nan", "inf", "1e308"]))]
    if draw(st.booleans()):
        args += ["--construction", draw(st.sampled_from(["sound", "paper", "other"]))]
    if draw(st.booleans()):
        args.append("--json")
    return args


@given(args=argv())
def test_command_line(args):
    """Exit 0, 1 or 2, one line on stderr when it fails, valid JSON on stdout with --json.

    The numbers that reach the one-attribute search are kept to ordinary ones here (its
    own fuzzing is in test_regressions_core.py); the options, priors, goals and their
    errors are fuzzed.
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code, exc = call(cli.main, args)
    assert exc is None
    assert code in (0, 1, 2), (args, code, err.getvalue())
    if code:
        assert err.getvalue().count("\n") == 1 and "Traceback" not in err.getvalue(), err.getvalue()
    if "--json" in args and code in (0, 1, 2) and out.getvalue():
        doc = json.loads(out.getvalue())
        assert ("error" in doc) == (code != 0)


# --- mechanisms -------------------------------------------------------------------------------
@given(y=values, x=values, epsilon=values, kind=st.sampled_from(["Laplace", "Gaussian", "GenCauchy"]))
def test_mechanisms(y, x, epsilon, kind):
    from garesearch import mechanisms

    mech = getattr(mechanisms, kind)()
    out, err = call(mech.log_density, y, x, epsilon)
    if err is None:
        assert not np.any(np.isnan(as_array(out))) and np.all(as_array(out) < np.inf)
    out, err = call(mech.density, y, x, epsilon)
    if err is None:
        assert_nonnegative_finite(out, "density")
    out, err = call(mech.log_interval, x, y, epsilon)
    if err is None:
        assert np.all(as_array(out) <= 0) and not np.any(np.isnan(as_array(out)))
    out, err = call(mech.sample, x, epsilon, np.random.default_rng(0))
    if err is None:
        assert np.all(np.isfinite(as_array(out)))


@given(epsilon=values, k=st.sampled_from([2, 3, 1, 0, 2.5, "3", 10**9, np.int64(4), True]),
       index=st.one_of(st.integers(-1, 4), st.sampled_from([[0, 1], [0, 9], "a", None])))
def test_randomized_response(epsilon, k, index):
    from garesearch.mechanisms import RandomizedResponse

    rr = RandomizedResponse()
    out, err = call(rr.keep_probability, epsilon, k)
    if err is None:
        assert_probability(out, "keep_probability")
    out, err = call(rr.sample, index, epsilon, k, np.random.default_rng(0))


@given(t=values, r=values, delta=values, R=st.one_of(st.none(), values),
       n=st.sampled_from([1, 10, 0, 10**9, 2.5, None]), q=values, D=values, sensitivity=values)
def test_pleak_methods(t, r, delta, R, n, q, D, sensitivity):
    for prior in (priors.Normal(0, 1), priors.Categorical({"a": 0.4, "b": 0.6})):
        out, err = call(pleak.pleak_method_epsilon, prior, t=t, r=r, delta=delta, R=R, n=n)
        if err is None:
            assert not math.isnan(out["epsilon"])
    out, err = call(pleak.pleak_worst_epsilon, delta=delta, q=q, D=D)
    if err is None:
        assert_positive(out, "pleak_worst_epsilon")
    result = pleak.PleakGoalResult(0.5, ("t.a",), "attribute")
    out, err = call(result.laplace_scale, sensitivity)
    if err is None:
        assert_positive(out, "laplace_scale")
