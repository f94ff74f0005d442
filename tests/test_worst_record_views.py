"""The worst record and the certified bracket of a goal, where users meet them: the command
line (text and JSON), PLEAK goal files, the goal widget and ``record_summary``.

Every number is checked against a value found without garesearch: the one-attribute worst
posteriors of a normal prior in closed form (the Laplace kernel's and the inverted kernel's
integrals against the normal density, maximised over the kernel's centre), whose product is
the optimum of an AND under ``norm=1`` (and a sound bound under every norm), and, for numeric
categorical attributes with exact guesses, the closed form of the single-record set: the
kernel centred at the true record, :math:`U = m_t / \\sum_x m_x e^{-\\epsilon d(x, t)}`.
Each expensive computation runs once per module (fixtures)."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
import re
import shlex
import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, optimize
from scipy.special import ndtr

from garesearch.app import cli

# one worker runs the module, so its module-scoped fixtures are computed once
pytestmark = pytest.mark.xdist_group("goal_views")

DELTA = 0.1
AGE, SALARY = (45.0, 12.0, 2.0), (2000.0, 235.7, 100.0)  # mu, sigma, r
GOAL_ARGS = ["--attribute", "age=normal:45,12", "--attribute", "salary=normal:2000,235.7",
             "--goal", "age & salary", "--r", "age=2,salary=100", "--delta", "0.1", "--norm", "1"]


# --- the oracle ---------------------------------------------------------------------------------
def _kernel_mass(a, b, c, eps, mu, sigma, sign, scaled=False):
    """int_a^b exp(sign * eps |x - c|) N(x; mu, sigma^2) dx in closed form (a <= b); with
    ``scaled`` divided by exp(eps^2 sigma^2 / 2), a factor common to every interval."""
    e = sign * eps  # exp(e |x - c|): exp(e (c - x)) left of c, exp(e (x - c)) right of it

    def piece(lo, hi, s):  # exp(e s c) int_lo^hi exp(-e s x) N(x) dx, s = +1 left of c, -1 right
        if hi <= lo:
            return 0.0
        m = mu - e * s * sigma**2
        return math.exp(e * s * (c - mu)) * (ndtr((hi - m) / sigma) - ndtr((lo - m) / sigma))

    scale = 1.0 if scaled else math.exp(0.5 * e * e * sigma**2)
    return scale * (piece(a, min(b, c), 1) + piece(max(a, c), b, -1))


def _one_worst(eps, t, mu, sigma, r, upper=True):
    """The one-attribute worst posterior of the ball [t - r, t + r]: the Laplace kernel (upper)
    or the inverted kernel (lower) at the best centre c in the ball."""
    sign = -1 if upper else 1

    def post(c):
        inside = _kernel_mass(t - r, t + r, c, eps, mu, sigma, sign, True)
        return inside / (inside + _kernel_mass(-math.inf, t - r, c, eps, mu, sigma, sign, True)
                         + _kernel_mass(t + r, math.inf, c, eps, mu, sigma, sign, True))

    best = optimize.minimize_scalar(lambda c: -post(c) if upper else post(c), bounds=(t - r, t + r),
                                    method="bounded", options={"xatol": 1e-9 * r})
    ends = [post(t - r), post(t + r), post(float(best.x))]
    return max(ends) if upper else min(ends)


def _ball(t, mu, sigma, r):
    return ndtr((t + r - mu) / sigma) - ndtr((t - r - mu) / sigma)


def _and_product_epsilon(t_age, t_salary):
    """The AND's optimum at one record under norm=1: U_age U_salary - p = delta (the lower side
    cannot bind: p < delta)."""
    p = _ball(t_age, *AGE) * _ball(t_salary, *SALARY)
    assert p < DELTA
    excess = lambda e: _one_worst(e, t_age, *AGE) * _one_worst(e, t_salary, *SALARY) - p - DELTA  # noqa: E731
    return optimize.brentq(excess, 1e-4, 0.15, xtol=1e-14, rtol=1e-13)


def test_the_oracle_kernel_mass_against_quadrature():
    def f(x, sign, c):
        return math.exp(sign * 0.01 * abs(x - c) - 0.5 * ((x - 2000) / 235.7) ** 2) / (235.7 * math.sqrt(2 * math.pi))

    for sign, c in ((-1, 2100.0), (1, 1950.0)):
        quad = integrate.quad(f, 1900.0, 2300.0, args=(sign, c), points=[c], epsabs=0, epsrel=1e-12)[0]
        assert _kernel_mass(1900.0, 2300.0, c, 0.01, 2000.0, 235.7, sign) == pytest.approx(quad, rel=1e-10)


# --- the command line: an AND of two normal attributes, norm=1 ----------------------------------
@pytest.fixture(scope="module")
def cli_json():
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert cli.main([*GOAL_ARGS, "--json"]) == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def cli_text():
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert cli.main(GOAL_ARGS) == 0
    return out.getvalue()


def test_cli_json_worst_record_and_bracket_against_the_closed_form(cli_json):
    out = cli_json
    assert out["record_is"] == "worst" and out["construction"] == "optimal" and out["norm"] == 1.0
    rec = {p["name"]: p["value"] for p in out["record"]}
    assert [p["name"] for p in out["record"]] == ["age", "salary"]
    assert all(p["far_tail"] is None for p in out["record"]) and out["far_tail"] is False
    assert rec == out["t"]
    exact = _and_product_epsilon(rec["age"], rec["salary"])
    # the bracket holds the record's optimum, and the safe end is at or below it
    assert out["epsilon"] <= exact * (1 + 1e-9) and exact <= out["epsilon_hi"] * (1 + 1e-9)
    assert out["epsilon"] == pytest.approx(exact, rel=1e-5)
    assert out["rel_width"] == pytest.approx((out["epsilon_hi"] - out["epsilon"]) / out["epsilon_hi"], rel=1e-12)
    assert out["record_bracket"] == pytest.approx([out["epsilon"], out["epsilon_hi"]], rel=1e-12)
    assert out["binding"] == "upper" and out["posterior_bound_side"] == "upper"
    # the worst record: the mean age, and every neighbouring record needs more noise less
    assert rec["age"] == pytest.approx(45.0, abs=0.05)
    for da, ds in ((1.5, 0.0), (-1.5, 0.0), (0.0, 25.0), (0.0, -25.0)):
        assert _and_product_epsilon(rec["age"] + da, rec["salary"] + ds) > exact * (1 + 1e-4)
    assert out["screened_records"] > 1000


def test_cli_json_matches_the_api(cli_json):
    import garesearch as ga
    from garesearch import Attribute, Normal

    res = ga.epsilon_for_goal(Attribute(Normal(45, 12), r=2, name="age")
                              & Attribute(Normal(2000, 235.7), r=100, name="salary"), delta=DELTA, norm=1)
    assert cli_json["epsilon"] == res.epsilon and cli_json["epsilon_hi"] == res.epsilon_hi
    assert cli_json["t"] == res.t and cli_json["record_bracket"] == list(res.details["record_bracket"])


def test_cli_text_shows_the_worst_record_and_the_bracket(cli_json, cli_text):
    lines = {ln[:17].strip(): ln[17:] for ln in cli_text.splitlines()}
    assert lines["worst record"].startswith(f"age = {cli_json['t']['age']:.6g}, salary = {cli_json['t']['salary']:.6g}")
    assert "records screened" in lines["worst record"]
    lo, hi = (float(x) for x in re.match(r"\[([^,]+), ([^\]]+)\]", lines["bracket"]).groups())
    # printed with enough digits that the two ends differ
    assert lo < hi and lo == pytest.approx(cli_json["epsilon"], rel=1e-9)
    assert hi == pytest.approx(cli_json["epsilon_hi"], rel=1e-9)
    assert f"relative width {cli_json['rel_width']:.2g}" in lines["bracket"]
    assert "record bracket" not in lines  # under norm=1 the record's bracket is the bracket
    assert "p + delta" in lines["posterior bound"] and "upper side binds" in lines["posterior bound"]


def test_readme_example_is_the_output(cli_text):
    """README's example of a continuous goal: its command is this module's, and its output is
    what the command prints."""
    text = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = text.split("$ python -m garesearch epsilon --attribute age=normal:45,12", 1)[1].split("```", 1)[0]
    command, _, shown = block.partition("\n      ")[2].partition("\n")
    argv = shlex.split("--attribute age=normal:45,12" + text.split("--attribute age=normal:45,12", 1)[1]
                       .split("\n", 1)[0].rstrip("\\") + " " + command)
    assert argv == GOAL_ARGS
    assert shown.strip().splitlines() == cli_text.strip().splitlines()


# --- a record given, and the worst of a finite goal: the closed form of a one-record set -------
A_PROBS, B_PROBS = {0: 0.3, 1: 0.4, 2: 0.3}, {0: 0.5, 1: 0.5}
FINITE = ["--attribute", "a=categorical:0=0.3,1=0.4,2=0.3", "--attribute", "b=categorical:0=0.5,1=0.5",
          "--goal", "a & b", "--r", "0", "--delta", "0.1"]


def _finite_epsilon(t):
    """r = 0 under norm=inf: X' = {t}; the sup over likelihoods is the kernel centred at t,
    exp(-eps d(x, t)), the inf the inverted one (fix L(t): every other L(x) is pushed to its
    bound).  The smaller of the two sides' crossings."""
    recs = list(itertools.product(A_PROBS, B_PROBS))
    m = np.array([A_PROBS[a] * B_PROBS[b] for a, b in recs])
    d = np.array([max(abs(a - t[0]), abs(b - t[1])) for a, b in recs], float)
    mt = A_PROBS[t[0]] * B_PROBS[t[1]]
    up = optimize.brentq(lambda e: mt / np.sum(m * np.exp(-e * d)) - mt - DELTA, 1e-6, 50, xtol=1e-14)
    low = optimize.brentq(lambda e: mt - mt / np.sum(m * np.exp(e * d)) - DELTA, 1e-6, 50, xtol=1e-14)
    return min(up, low), ("upper" if up <= low else "lower")


def test_cli_record_given_shows_its_bracket(capsys):
    assert cli.main([*FINITE, "--t", "a=0,b=0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    exact, side = _finite_epsilon((0, 0))
    assert out["record_is"] == "given" and out["screened_records"] is None
    assert out["record_text"] == "a = 0, b = 0" and out["binding"] == side
    assert out["epsilon"] <= exact * (1 + 1e-9) <= out["epsilon_hi"] * (1 + 2e-9)
    assert out["epsilon"] == pytest.approx(exact, rel=1e-6)
    assert out["record_bracket"] == [out["epsilon"], out["epsilon_hi"]]
    assert cli.main([*FINITE, "--t", "a=0,b=0"]) == 0
    text = capsys.readouterr().out
    line = next(ln for ln in text.splitlines() if ln.startswith("true values t"))
    assert "a = 0, b = 0" in line and "(given)" in line
    assert next(ln for ln in text.splitlines() if ln.startswith("bracket"))


def test_cli_worst_record_of_a_finite_goal(capsys):
    assert cli.main([*FINITE, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    by_record = {t: _finite_epsilon(t) for t in itertools.product(A_PROBS, B_PROBS)}
    worst = min(by_record, key=lambda t: by_record[t][0])
    assert out["record_is"] == "worst" and out["epsilon"] == pytest.approx(by_record[worst][0], rel=1e-6)
    # (records of equal epsilon are mirror images: a = 0 and a = 2)
    assert by_record[(out["t"]["a"], out["t"]["b"])][0] == pytest.approx(by_record[worst][0], rel=1e-9)


def test_cli_lower_side_text_is_not_p_plus_delta(capsys):
    """t = (1, 0) with p = 0.7 * 0.9 = 0.63: every other record is at distance 1 (norm=inf),
    so Sec. 3.2's closed forms hold with q = 1 - p, and the lower side binds."""
    argv = ["--attribute", "a=categorical:0=0.2,1=0.7,2=0.1", "--attribute", "b=categorical:0=0.9,1=0.1",
            "--goal", "a & b", "--r", "0", "--delta", "0.1", "--t", "a=1,b=0"]
    mt, rest = 0.63, 0.37
    up = math.log((mt + DELTA) * rest / (mt * (rest - DELTA)))
    low = math.log(mt * (rest + DELTA) / ((mt - DELTA) * rest))
    assert cli.main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert low < up and out["binding"] == "lower"
    assert out["epsilon"] == pytest.approx(low, rel=1e-6)
    assert out["posterior_bound"] == pytest.approx(mt - DELTA, abs=1e-12)
    assert cli.main(argv) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("posterior bound"))
    assert "p - delta = 0.53" in line and "p + delta" not in line


def test_cli_norm_is_refused_outside_goals(capsys):
    assert cli.main(["--prior", "normal:0,1", "--r", "0.5", "--delta", "0.1", "--norm", "1"]) == 2
    assert "--norm applies to an AND/OR goal" in capsys.readouterr().err
    assert cli.main([*FINITE, "--norm", "0.5"]) == 2
    assert "norm" in capsys.readouterr().err


# --- PLEAK goal files ---------------------------------------------------------------------------
ATT = textwrap.dedent("""\
    employee.salary normal 2000 55556;
    employee.dept setPrior ('sales', 0.5) ('it', 0.3) ('hr', 0.2);
""")
GOAL = "employee.salary approx 100 AND employee.dept exact"


@pytest.fixture(scope="module")
def pleak_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pleak")
    (folder / "emp.att").write_text(ATT, encoding="utf-8")
    (folder / "goal.plc").write_text(GOAL + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def pleak_result(pleak_files):
    from garesearch.app import pleak

    return pleak.epsilon_for_goal_files(pleak_files / "emp.att", pleak_files / "goal.plc", delta=DELTA)


def _dept_worst(eps, q, upper):
    """The discrete metric's closed forms (Sec. 3.2) for an exact guess of mass q."""
    return q * math.exp(eps) / (q * math.exp(eps) + 1 - q) if upper else q / (q + (1 - q) * math.exp(eps))


def test_pleak_result_has_the_worst_record_and_bracket(pleak_result):
    res = pleak_result
    rec = res.record
    assert res.method == "events" and rec["record_is"] == "worst"
    assert [p["name"] for p in rec["record"]] == ["employee.salary", "employee.dept"]
    salary, dept = (p["value"] for p in rec["record"])
    assert dept in ("sales", "it", "hr") and math.isfinite(salary)
    assert res.epsilon == rec["epsilon"] and res.epsilon_hi == rec["epsilon_hi"] > res.epsilon > 0
    assert res.rel_width == pytest.approx((res.epsilon_hi - res.epsilon) / res.epsilon_hi, rel=1e-12)
    # the product of the one-attribute bounds at the record (sound under every norm) lies in the
    # record's bracket, and the answer is at or below it (it is the screen's level, or lower)
    q = {"sales": 0.5, "it": 0.3, "hr": 0.2}[dept]
    mu, sigma = 2000.0, math.sqrt(55556.0)
    p = _ball(salary, mu, sigma, 100.0) * q
    sides = [lambda e: _one_worst(e, salary, mu, sigma, 100.0) * _dept_worst(e, q, True) - p - DELTA]
    if p > DELTA:
        sides.append(lambda e: p - _one_worst(e, salary, mu, sigma, 100.0, upper=False) * _dept_worst(e, q, False) - DELTA)
    prod = min(optimize.brentq(f, 1e-6, 0.15, xtol=1e-14) for f in sides)
    lo, hi = rec["record_bracket"]
    assert res.epsilon <= prod * (1 + 1e-8) and prod <= hi * (1 + 1e-8) and lo <= hi


def test_pleak_cli_renders_the_same(pleak_files, pleak_result, capsys):
    argv = ["--att", str(pleak_files / "emp.att"), "--goal-file", str(pleak_files / "goal.plc"), "--delta", "0.1"]
    assert cli.main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rec = pleak_result.record
    assert out["epsilon"] == pleak_result.epsilon and out["epsilon_hi"] == pleak_result.epsilon_hi
    for key in ("record", "record_is", "record_text", "record_bracket", "record_rel_width", "far_tail"):
        assert out[key] == (list(rec[key]) if isinstance(rec[key], tuple) else rec[key]), key


# --- the widget and the summary -----------------------------------------------------------------
def test_goal_widget_state_against_the_closed_form():
    from garesearch.app.widgets import goal_state, summary

    state = goal_state(event="and", delta=DELTA, norm=1.0)
    rec = state["record"]
    t = {p["name"]: p["value"] for p in rec["record"]}
    exact = _and_product_epsilon(t["age"], t["salary"])
    assert rec["epsilon"] <= exact * (1 + 1e-9) <= rec["epsilon_hi"] * (1 + 2e-9)
    assert rec["epsilon"] == pytest.approx(exact, rel=1e-5)
    rows = summary(state)
    assert rows[0][0] == "optimal ε, worst record" and rows[0][2].startswith(rec["record_text"])
    assert rows[1][0] == "certified bracket (ℓ1)"
    lo, hi = (float(x) for x in re.match(r"\[([^,]+), ([^\]]+)\]", rows[1][1]).groups())
    assert lo < hi and lo == pytest.approx(rec["epsilon"], rel=1e-9) and hi == pytest.approx(rec["epsilon_hi"], rel=1e-9)


def test_goal_widget_refuses_other_norms():
    from garesearch.app.widgets import goal_state
    from garesearch.errors import ParameterError

    with pytest.raises(ParameterError, match="norm must be 1 or inf"):
        goal_state(norm=2.0)
    with pytest.raises(ParameterError, match="event must be"):
        goal_state(event="xor")


def test_record_summary_refuses_other_results():
    import garesearch as ga
    from garesearch.errors import ParameterError
    from garesearch.optimal.worst_record import record_summary

    res = ga.epsilon_for_attribute(ga.Normal(0, 1), r=0.5, delta=0.1)
    with pytest.raises(ParameterError, match="optimum of a goal"):
        record_summary(res)


def test_epsilon_along_line_against_the_closed_form():
    from garesearch import Attribute, Normal
    from garesearch.errors import ParameterError
    from garesearch.optimal.worst_record import epsilon_along_line

    goal = Attribute(Normal(45, 12), r=2, name="age") & Attribute(Normal(2000, 235.7), r=100, name="salary")
    line = epsilon_along_line(goal, delta=DELTA, through={"age": 45.0, "salary": 2200.0},
                              direction={"salary": 100.0}, offsets=[0.0, 2.0])
    assert [r["salary"] for r in line["records"]] == [2200.0, 2400.0]
    for rec, lo, hi in zip(line["records"], line["epsilon"], line["epsilon_hi"], strict=True):
        exact = _and_product_epsilon(rec["age"], rec["salary"])
        assert lo <= exact * (1 + 1e-9) <= hi * (1 + 2e-9) and lo == pytest.approx(exact, rel=1e-5)
    with pytest.raises(ParameterError, match="offsets"):
        epsilon_along_line(goal, delta=DELTA, through={"age": 45.0, "salary": 2200.0},
                           direction={"salary": 1.0}, offsets=[math.inf])
    with pytest.raises(ParameterError, match="not a part"):
        epsilon_along_line(goal, delta=DELTA, through={"age": 45.0, "salary": 2200.0},
                           direction={"height": 1.0}, offsets=[0.0])


@pytest.mark.slow  # about 20 s: the screen of a heavy-tailed attribute's scan
def test_far_tail_record_is_named_and_matches_the_limit():
    """An AND of a Student t attribute (heavier than every exponential: the far-tail limit of
    its worst posterior is 1 - exp(-epsilon r), with p -> 0) and a normal one under norm=1: the
    worst record is the t attribute's far tail with b at its mean, where
    (1 - exp(-epsilon)) U_b(epsilon, 0) = delta."""
    import argparse

    import scipy.stats

    from garesearch import Attribute, Normal
    from garesearch.optimal.goals import epsilon_optimal
    from garesearch.optimal.worst_record import record_summary
    from garesearch.priors import Continuous

    a = Attribute(Continuous(scipy.stats.t(3)), r=1.0, name="a")
    b = Attribute(Normal(0, 1), r=0.5, name="b")
    res = epsilon_optimal(a & b, delta=DELTA, norm=1, sides="upper")
    s = record_summary(res)
    assert s["record"][0] == {"name": "a", "value": None, "far_tail": "right"} and s["far_tail"]
    assert s["record_text"].startswith("a = far tail (+inf), b = ")
    t_b = s["record"][1]["value"]
    assert t_b == pytest.approx(0.0, abs=1e-6)
    limit = optimize.brentq(lambda e: -math.expm1(-e) * _one_worst(e, 0.0, 0.0, 1.0, 0.5) - DELTA, 1e-3, 5.0, xtol=1e-14)
    assert s["epsilon"] <= limit * (1 + 1e-9) <= s["epsilon_hi"] * (1 + 2e-9)
    assert s["epsilon"] == pytest.approx(limit, rel=5e-5)
    args = argparse.Namespace(t=None, sensitivity=1.0)
    out = cli._no_noise(cli._goal_report(res, args))
    text = cli._text(out)
    assert "worst record     a = far tail (+inf), b = 0" in text and "far tail: approached" in text
    assert json.loads(json.dumps({k: cli._finite_or_none(v) for k, v in out.items()}))["t"]["a"] is None
