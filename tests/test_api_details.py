"""API details: t=None is the worst true value for every construction; releases take a result;
the warning of a numpy release says why numpy was used; results print plain Python numbers;
a Categorical prior's worst true value (and the witness) are shown by label."""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import garesearch as ga
from garesearch.app import cli
from garesearch.events import Attribute, epsilon_for_goal
from garesearch.priors import Categorical, Normal
from garesearch.releases.release import InsecureNoiseWarning, opendp_available

SALARY = Normal(2000, 235.7)
README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
#: the paper's categorical example (Sec. 6.1): the cats' colours
COLOURS = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}


# ------------------------------------------------------------------------------------------
# 1. t=None: the worst true value, also for construction="paper"
# ------------------------------------------------------------------------------------------
def _paper_lower_closed_form(p, delta, R):
    """Sec. 3.2's eps_ub: p / (p + (1 - p) e^{eps R}) = p - delta, solved for eps."""
    return math.log(p * (1 - p + delta) / ((p - delta) * (1 - p))) / R


def test_paper_t_none_is_the_worst_true_value_not_the_mean_by_default():
    both = ga.epsilon_for_attribute(SALARY, r=100, delta=0.1, construction="paper")
    gain = ga.epsilon_for_attribute(SALARY, r=100, delta=0.1, construction="paper", sides="upper")
    # both sides: the lower side binds and is worst where the ball is heaviest, the mean
    p = math.erf(100 / (235.7 * math.sqrt(2)))
    R = 3 * math.sqrt(2) * 235.7  # the paper's truncation (Sec. 6.2)
    assert both.binding == "lower" and both.t == pytest.approx(2000.0, abs=1e-6)
    assert both.epsilon == pytest.approx(_paper_lower_closed_form(p, 0.1, R), rel=1e-4)
    # brute force over given true values: none is worse than the t=None answer
    for construction, sides, res in (("paper", "both", both), ("paper", "upper", gain)):
        scan = [ga.epsilon_for_attribute(SALARY, r=100, delta=0.1, t=float(t), construction=construction,
                                         sides=sides).epsilon for t in np.linspace(1300, 2700, 57)]
        assert res.epsilon <= min(scan) * (1 + 1e-9)
    # the upper side alone is worst away from the mean (README: 0.000721 at t = 1843)
    assert abs(gain.t - 2000) > 100 and gain.epsilon > both.epsilon
    assert f"{both.epsilon:.6f}" == "0.000502" and f"{gain.epsilon:.6f}" == "0.000721"
    assert f"{both.epsilon:.6f} at t = {both.t:.0f}" in README.replace("\n# ", " ")
    assert f"{gain.epsilon:.6f} at t = {min(gain.t, 4000 - gain.t):.0f}" in README.replace("\n# ", " ")


# ------------------------------------------------------------------------------------------
# 2. releases take a result; the numpy warning says why
# ------------------------------------------------------------------------------------------
def test_laplace_release_takes_an_optimal_result():
    res = ga.epsilon_for_attribute(SALARY, r=100, delta=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        rel = ga.laplace_release(1000.0, epsilon=res, seed=3)
        ref = ga.laplace_release(1000.0, epsilon=res.epsilon, seed=3)
    # the safe (lower) end of the certified bracket, per unit: scale 1 / epsilon
    assert res.epsilon <= res.epsilon_hi
    assert rel.epsilon == res.epsilon and rel.scale == pytest.approx(1 / 0.0019252171984, rel=1e-9)
    assert rel.value == ref.value
    goal = epsilon_for_goal(Attribute(Categorical(COLOURS), r=0, name="colour"), delta=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        rel = ga.laplace_release(12.0, epsilon=goal, seed=0)
    assert rel.scale == pytest.approx(1 / math.log(1.5), rel=1e-12)  # black, p = 0.4: ln 1.5


def test_laplace_release_refuses_unsound_or_noiseless_results():
    paper = ga.epsilon_for_attribute(SALARY, r=100, delta=0.1, construction="paper")
    with pytest.raises(ga.ParameterError, match="construction='paper'"):
        ga.laplace_release(1.0, epsilon=paper, seed=0)
    none = ga.epsilon_for_attribute(Categorical({0: 0.5, 1: 0.5}), r=0, delta=0.6)
    assert math.isinf(none.epsilon)
    with pytest.raises(ga.ParameterError, match="needs no noise"):
        ga.laplace_release(1.0, epsilon=none, seed=0)
    with pytest.raises(ga.ParameterError, match="epsilon"):
        ga.laplace_release(1.0, epsilon=object(), seed=0)


def test_a_seeded_release_says_why_it_uses_numpy():
    for release, kwargs in ((ga.laplace_release, {"epsilon": 0.5}), (ga.gaussian_release, {"rho": 0.5})):
        with pytest.warns(InsecureNoiseWarning) as rec:
            release(1.0, seed=1, **kwargs)
        msg = str(rec[0].message)
        if opendp_available():
            assert "cannot be seeded" in msg and "Install OpenDP" not in msg
            assert "not installed" not in msg
        else:
            assert "OpenDP is not installed" in msg
        with pytest.warns(InsecureNoiseWarning) as rec:
            release(1.0, backend="numpy", **kwargs)
        if opendp_available():
            assert "backend='numpy' was asked for" in str(rec[0].message)


# ------------------------------------------------------------------------------------------
# 3. reprs: plain Python numbers, r printed the same way everywhere
# ------------------------------------------------------------------------------------------
def _main_results():
    r, delta = np.float64(100), np.float64(0.1)
    out = [ga.epsilon_for_attribute(SALARY, r=r, delta=delta, construction=c)
           for c in ("optimal", "sound", "paper", "pointwise")]
    out.append(ga.epsilon_for_attribute(SALARY, r=100, delta=0.1, construction="sound",
                                        t=np.float64(2000)))
    out.append(epsilon_for_goal(Attribute(SALARY, r=r, name="salary"), delta=delta,
                                t={"salary": np.float64(2000)}))
    cats = Attribute(Categorical(COLOURS), r=0, name="colour")
    out.append(epsilon_for_goal(cats & Attribute(Categorical({"M": 0.5, "F": 0.5}), r=0, name="g"),
                                delta=0.1, construction="sound"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        out.append(ga.laplace_release(np.float64(3.0), epsilon=np.float64(0.5), seed=1))
        out.append(ga.gaussian_release(np.float64(3.0), rho=np.float64(0.5), seed=1))
    return out


def test_reprs_show_plain_numbers():
    results = _main_results()
    for res in results:
        text = repr(res)
        assert "np." not in text, text
    single = results[:5]
    rs = {re.search(r"\br=([^,]*),", repr(res)).group(1) for res in single}
    assert rs == {"100.0"}
    assert all(type(res.r) is float and type(res.delta) is float for res in single)


# ------------------------------------------------------------------------------------------
# 4. Categorical priors: the worst true value and the witness by label
# ------------------------------------------------------------------------------------------
def test_categorical_results_show_labels():
    cats = Categorical(COLOURS)
    # Sec. 6.1: the worst colour for one attribute is black (p = 0.4): eps = ln 1.5
    for construction in ("optimal", "sound", "pointwise", "paper"):
        res = ga.epsilon_for_attribute(cats, r=0, delta=0.1, construction=construction)
        assert res.t == "black" and "t='black'" in repr(res)
        assert res.epsilon == pytest.approx(math.log(1.5), rel=1e-12)
    opt = ga.epsilon_for_attribute(cats, r=0, delta=0.1)
    assert opt.centre == "black" and opt.epsilon_hi == opt.epsilon
    e = opt.epsilon
    assert opt.kernel("black") == 1.0 and opt.kernel("white") == pytest.approx(math.exp(-e))
    assert opt.kernel(["black", "red"]).tolist() == pytest.approx([1.0, math.exp(-e)])
    # the kernel attains the bound: posterior of 'black' under likelihood e^{-eps d(x, black)}
    post = 0.4 / (0.4 + 0.6 * math.exp(-e))
    assert post == pytest.approx(0.5, rel=1e-12) and opt.posterior == pytest.approx(post, rel=1e-12)
    # numeric values keep their own labels (10, not 10.0)
    num = Categorical({1: 0.3, 5: 0.45, 10: 0.25})
    for construction in ("optimal", "sound", "pointwise", "paper"):
        res = ga.epsilon_for_attribute(num, r=0, delta=0.1, construction=construction)
        assert res.t in num.values and type(res.t) is int, (construction, res.t)


def test_the_command_line_shows_the_label():
    args = ["--prior", "categorical:red=0.2,white=0.1,tabby=0.25,black=0.4,tortoise=0.05",
            "--r", "0", "--delta", "0.1"]
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert cli.main(args) == 0
    text = out.getvalue()
    assert re.search(r"^true value t\s+black\b", text, re.M)
    assert "c = black" in text and "d(x, c)" in text and "None" not in text
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert cli.main([*args, "--json"]) == 0
    data = json.loads(out.getvalue())
    assert data["t"] == "black" and data["kernel_centre"] == "black"
