"""PLEAK's attacker files and goals: every knowledge construct, goal notation and error.

Expected epsilons are typed closed forms (Eq. (main), Sec. 3.2's eps_lb / eps_ub, the worst
prior 2 ln((1+d)/(1-d))/R) or the paper's published numbers, never the module's output.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.special import erf

from garesearch import bound
from garesearch.app.pleak import (
    And,
    Or,
    PleakFormatError,
    Term,
    epsilon_for_goal_files,
    epsilon_for_pleak_goal,
    parse_attacker,
    parse_goal,
    pleak_method_epsilon,
    pleak_worst_epsilon,
    read_attacker,
    read_goal,
)
from garesearch.errors import ParameterError
from garesearch.priors import Categorical, Normal, PiecewiseUniform, Uniform

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "pleak"
CATS = "cat.gender setUnif 'M' 'F';\ncat.color setPrior ('red', 0.2) ('white', 0.1) ('tabby', 0.25) ('black', 0.4) ('tortoise', 0.05);\n"


def eps_lb(p, d, R=1.0):
    return -math.log(p / (1 - p) * (1 / (d + p) - 1)) / R


def eps_ub(p, d, R=1.0):
    return -math.log((1 - p) / p * (1 / (d + 1 - p) - 1)) / R


# --- attacker knowledge -----------------------------------------------------------------
def test_every_knowledge_construct_is_read():
    text = """
    -- a line comment
    t.a exact;
    t.b none;            // another comment
    t.c total 7;
    t.d totalUnif 4;
    t.e range -1 2.5;
    t.f rangeUnif 0 10;
    t.g set 'x' 'y';
    t.h setUnif 1 2 3;
    /* a block
       comment over lines */
    t.i setPrior ('u', 0.25) ('v', 0.75);
    t.j rangePrior 0 (10, 0.7) (100, 0.2) (300, 0.1);
    t.k normal 150 1250;
    """
    k = parse_attacker(text)
    assert [v.kind for v in k.values()] == [
        "exact", "none", "total", "totalUnif", "range", "rangeUnif", "set", "setUnif",
        "setPrior", "rangePrior", "normal",
    ]
    assert k["t.c"].args == (7,) and k["t.e"].args == (-1.0, 2.5)
    assert k["t.h"].args == (1, 2, 3) and k["t.g"].args == ("x", "y")
    assert k["t.k"].line == 15  # line 1 is empty; block comment lines are counted


def test_priors_from_knowledge():
    k = parse_attacker(
        "t.f rangeUnif 0 10; t.k normal 2000 55556; t.j rangePrior 0 (10, 0.7) (100, 0.2) (300, 0.1);"
        " t.h setUnif 1 2 4; t.i setPrior ('u', 0.25) ('v', 0.75); t.d totalUnif 4;"
    )
    u = k["t.f"].prior()
    assert isinstance(u, Uniform) and u.ball_mass(5, 1) == pytest.approx(0.2)
    n = k["t.k"].prior()  # the second argument of normal is the variance
    assert isinstance(n, Normal) and n.sigma == pytest.approx(math.sqrt(55556))
    assert n.ball_mass(2000, 100) == pytest.approx(erf(100 / (math.sqrt(55556) * math.sqrt(2))))
    pw = k["t.j"].prior()
    assert isinstance(pw, PiecewiseUniform)
    assert pw.mass(0, 10) == pytest.approx(0.7)
    assert pw.mass(10, 55) == pytest.approx(0.1)  # half of the second segment
    assert pw.mass(200, 300) == pytest.approx(0.05)
    h = k["t.h"].prior()
    assert isinstance(h, Categorical) and h.metric == "absolute" and h.values == [1, 2, 4]
    assert k["t.h"].prior(discrete=True).metric == "discrete"
    i = k["t.i"].prior()
    assert i.probability("v") == pytest.approx(0.75)
    d = k["t.d"].prior()
    assert d.metric == "discrete" and len(d.values) == 4 and d.probability(d.values[0]) == 0.25


def test_knowledge_without_distribution_has_no_prior():
    k = parse_attacker("t.e range 0 3; t.g set 'x' 'y'; t.c total 5;")
    for col in k:
        with pytest.raises(ParameterError, match="no distribution"):
            k[col].prior()
    assert k["t.e"].diameter() == 3


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("t.a exact;\nt.b foo 1;", 2, "unknown attacker knowledge 'foo'"),
        ("t.a exact\nt.b none;", 2, "expected ';'"),
        ("t.a setPrior ('u', 0.5) ('v', 0.4);", 1, "sum to 1"),
        ("\n\nt.a setPrior ('u', 1.5) ('v', -0.5);", 3, r"lie in \[0, 1\]"),
        ("t.a rangePrior 0 (10, 0.5) (5, 0.5);", 1, "increase strictly"),
        ("t.a rangePrior 0;", 1, "at least one pair"),
        ("t.a normal 0 -4;", 1, "variance must be > 0"),
        ("t.a normal 0;", 1, "variance of 'normal'"),
        ("t.a range 5 1;", 1, "must exceed the lower bound"),
        ("t.a rangeUnif 1;", 1, "upper bound"),
        ("t.a exact;\n\nt.a none;", 3, "described twice"),
        ("t.a set 'x' 2;", 1, "do not mix"),
        ("t.a set;", 1, "at least one value"),
        ("t.a setUnif 'x' 'x';", 1, "repeated value"),
        ("t.a total 2.5;", 1, "non-negative integer"),
        ("t.a total 0;", 1, "at least one value"),
        ("t.a exact;\n/* never closed", 2, "unterminated comment"),
        ("t.a set 'x;", 1, "unterminated quoted string"),
        ("t.a setPrior ('u' 0.5);", 1, "expected ','"),
        ("3 exact;", 1, "expected a column name"),
    ],
)
def test_malformed_attacker_files_name_the_line(text, line, message):
    with pytest.raises(PleakFormatError, match=message) as err:
        parse_attacker(text, source="k.att")
    assert str(err.value).startswith(f"k.att:{line}:")


def test_read_files_and_missing_file(tmp_path):
    path = tmp_path / "a.att"
    path.write_text("t.x rangeUnif 0 1;\n")
    assert read_attacker(path)["t.x"].where == f"{path}:1"
    (tmp_path / "g.sql").write_text("-- goal\nt.x approx 0.1")
    assert read_goal(tmp_path / "g.sql").line == 2
    with pytest.raises(ParameterError, match="cannot read"):
        read_attacker(tmp_path / "missing.att")


# --- goals ---------------------------------------------------------------------------------
def test_goal_formula_precedence_and_parentheses():
    g = parse_goal("a.x exact OR a.y exact and a.z approx 2")
    assert isinstance(g, Or) and isinstance(g.parts[1], And)
    assert g.parts[1].parts[1] == Term(("a.z",), "approx", 2.0, 1.0, 1)
    g = parse_goal("(a.x exact OR a.y exact) AND a.z approx 2 cost 10")
    assert isinstance(g, And) and isinstance(g.parts[0], Or)


def test_goal_column_tuples_and_norms():
    g = parse_goal("(s.lon, s.lat) approxWrtLinf 5")
    assert g == Term(("s.lon", "s.lat"), "approx", 5.0, math.inf, 1)
    g = parse_goal("(s.lon, s.lat) approxWrtLp(2) 5 OR (s.x) approxWrtLp(1) 3")
    assert g.parts[0].norm == 2.0 and g.parts[1] == Term(("s.x",), "approx", 3.0, 1.0, 1)


def test_goal_select_wrapper_and_leak_blocks():
    g = parse_goal("SELECT\n  t.x approx 100\nFROM t\nWHERE t.dept = 'it' AND t.y >= 50;")
    assert g == Term(("t.x",), "approx", 100.0, 1.0, 2)
    g = parse_goal("leak\nt.a exact;\nt.b exact;\ncost 100\n\nleak\nt.a exact;\nt.c approx 1;\ncost 50\n")
    assert isinstance(g, Or) and all(isinstance(p, And) for p in g.parts)
    assert g.parts[1].parts[1].r == 1.0


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "empty"),
        ("t.a exact t.b exact", 1, "missing AND/OR"),
        ("t.a\n  sometimes", 2, "expected a goal precision"),
        ("t.a approx", 1, "precision r"),
        ("t.a approx -1", 1, "must be >= 0"),
        ("(t.a, t.b) exact", 1, "applies to one column"),
        ("(t.a, t.b) approx 3", 1, "approxWrtLinf"),
        ("t.a approxWrtLp(0.5) 1", 1, "p >= 1"),
        ("(t.a exact OR t.b exact", 1, r"expected '\)'"),
        ("SELECT t.a exact;", 1, "expected FROM"),
        ("t.a exact AND\n", 2, "expected a column name"),
        ("leak\ncost 3", 2, "at least one"),
    ],
)
def test_malformed_goals_name_the_line(text, line, message):
    with pytest.raises(PleakFormatError, match=message) as err:
        parse_goal(text, source="g.sql")
    assert str(err.value).startswith(f"g.sql:{line}:")


# --- epsilon for goals ---------------------------------------------------------------------
def test_cats_single_colour_worst_case():
    # worst colour is black (p = 0.4): eps_lb = ln 1.5 < eps_ub
    res = epsilon_for_pleak_goal(parse_attacker(CATS), parse_goal("cat.color exact"), delta=0.1)
    assert res.method == "attribute" and res.detail.t == "black"
    assert res.epsilon == pytest.approx(math.log(1.5), rel=1e-12)
    assert res.laplace_scale(2.0) == pytest.approx(2 / math.log(1.5))


def test_cats_and_or_from_the_example_files():
    res = epsilon_for_goal_files(EXAMPLES / "cats.att", EXAMPLES / "cats_and.plc", delta=0.1)
    assert res.epsilon == pytest.approx(eps_lb(0.2, 0.1), rel=1e-9)  # paper: 0.539
    assert round(res.epsilon, 3) == 0.539
    res = epsilon_for_goal_files(EXAMPLES / "cats.att", EXAMPLES / "cats_or.plc", delta=0.1)
    assert res.detail.t["cat.color"] == "white" and res.detail.p == pytest.approx(0.55)
    assert res.epsilon == pytest.approx(eps_ub(0.55, 0.1), rel=1e-9)  # 0.4013, not 0.402


def test_exact_goal_on_integer_set_uses_the_discrete_metric():
    k = parse_attacker("t.n setPrior (1, 0.4) (2, 0.6);")
    res = epsilon_for_pleak_goal(k, parse_goal("t.n exact"), delta=0.1)
    # discrete metric: worst of value 1 (p=.4) and value 2 (p=.6), both sides, R = 1
    expect = min(min(eps_lb(0.4, 0.1), eps_ub(0.4, 0.1)), min(eps_lb(0.6, 0.1), eps_ub(0.6, 0.1)))
    assert res.epsilon == pytest.approx(expect, rel=1e-12)


def test_range_only_knowledge_uses_the_worst_prior():
    k = parse_attacker("t.x range 0 40; t.s set 'a' 'b' 'c';")
    res = epsilon_for_pleak_goal(k, parse_goal("t.x approx 2"), delta=0.2)
    assert res.method == "worst prior" and res.R == 40
    assert res.epsilon == pytest.approx(2 * math.log(1.2 / 0.8) / 40, rel=1e-12)
    res = epsilon_for_pleak_goal(k, parse_goal("t.s exact"), delta=0.1)
    assert res.epsilon == pytest.approx(2 * math.log(1.1 / 0.9), rel=1e-12)


def test_uniform_column_single_goal_at_t_matches_eq_main():
    # Uniform(0, 10), t = 5, r = 1, upper side only: p = 0.2, comparison set of all points
    # within D of [4, 6]: q = 2 (D - 2) / 10 up to D = 6, then cut; maximise Eq. (main)
    k = parse_attacker("t.x rangeUnif 0 10;")
    res = epsilon_for_pleak_goal(k, parse_goal("t.x approx 1"), delta=0.1, t="5", sides="upper",
                                 construction="sound")
    D = np.append(np.linspace(2.0001, 10, 400001), 6.0)  # 6: the comparison set fills [0, 10]
    q = (np.minimum(4 + D, 10) - np.maximum(6 - D, 0) - 2) / 10
    eps = -np.log(0.2 / q * (1 / 0.3 - 1)) / D
    assert res.epsilon == pytest.approx(eps.max(), rel=1e-9)
    assert res.epsilon == pytest.approx(-math.log(0.2 / 0.8 * (1 / 0.3 - 1)) / 6, rel=1e-9)


def test_goal_and_knowledge_mismatches_are_clear_errors():
    k = parse_attacker("t.a exact; t.b none; t.c setUnif 'x' 'y'; t.d rangeUnif 0 1; t.e normal 0 1;")
    with pytest.raises(ParameterError, match="already knows"):
        epsilon_for_pleak_goal(k, parse_goal("t.a exact"), delta=0.1)
    with pytest.raises(ParameterError, match="already knows"):
        epsilon_for_pleak_goal(k, parse_goal("t.a exact OR t.c exact"), delta=0.1)
    with pytest.raises(ParameterError, match="no bound"):
        epsilon_for_pleak_goal(k, parse_goal("t.b approx 1"), delta=0.1)
    with pytest.raises(ParameterError, match="non-numeric"):
        epsilon_for_pleak_goal(k, parse_goal("t.c approx 1"), delta=0.1)
    with pytest.raises(ParameterError, match="probability 0"):
        epsilon_for_pleak_goal(k, parse_goal("t.e exact"), delta=0.1)
    with pytest.raises(ParameterError, match=r"says nothing about t\.z"):
        epsilon_for_pleak_goal(k, parse_goal("t.z exact"), delta=0.1)
    with pytest.raises(ParameterError, match="protects nothing"):
        epsilon_for_pleak_goal(k, parse_goal("t.c none"), delta=0.1)
    with pytest.raises(ParameterError, match="no bound"):
        epsilon_for_pleak_goal(k, parse_goal("(t.d, t.b) approxWrtLp(2) 0.1"), delta=0.1)
    k2 = parse_attacker("t.d rangeUnif 0 1; t.f range 0 1;")
    with pytest.raises(ParameterError, match="distribution for every column"):
        epsilon_for_pleak_goal(k2, parse_goal("(t.d, t.f) approxWrtLp(2) 0.1"), delta=0.1)


def test_and_with_known_column_reduces_to_the_other_column():
    k = parse_attacker("t.a exact;\n" + CATS)
    both = epsilon_for_pleak_goal(k, parse_goal("t.a exact AND cat.color exact"), delta=0.1)
    assert both.epsilon == pytest.approx(math.log(1.5), rel=1e-12)


def test_linf_box_is_an_and_of_columns():
    # the mapping onto goals, checked with the comparison sets (fast); the optimum's kernel
    # search is tested on its own below and in test_goal_optimal
    k = parse_attacker("t.x rangeUnif 0 10; t.y rangeUnif 0 10;")
    box = epsilon_for_pleak_goal(k, parse_goal("(t.x, t.y) approxWrtLinf 1"), delta=0.1,
                                 t={"t.x": 5, "t.y": 5}, construction="sound")
    conj = epsilon_for_pleak_goal(k, parse_goal("t.x approx 1 AND t.y approx 1"), delta=0.1,
                                  t={"t.x": 5, "t.y": 5}, construction="sound")
    assert box.method == "events" and box.epsilon == conj.epsilon
    assert box.detail.p == pytest.approx(0.04)


# --- PLEAK's own formulas, for the comparison ---------------------------------------------
@pytest.mark.parametrize(("delta", "q", "D"), [(0.1, 1.0, 1.0), (0.1, 0.95, 3.0), (0.3, 0.8, 2.0)])
def test_pleak_worst_case_formula_equals_garesearch_worst_prior(delta, q, D):
    assert pleak_worst_epsilon(delta=delta, q=q, D=D) == pytest.approx(
        float(bound.worst_case_epsilon(delta=delta, q=q, a=D)), rel=1e-12
    )
    # independently: the minimum over p of Sec. 4.1's f(p) = -ln(p/(q-p) (1/(delta+p) - 1)) / D
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(lambda p: -math.log(p / (q - p) * (1 / (delta + p) - 1)) / D,
                          bounds=(1e-9, 1 - delta - 1e-9), method="bounded", options={"xatol": 1e-12})
    assert pleak_worst_epsilon(delta=delta, q=q, D=D) == pytest.approx(res.fun, rel=1e-10)


def test_pleak_method_on_cats_equals_sec_3_2():
    prior = Categorical({"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05})
    out = pleak_method_epsilon(prior, t="black", r=0, delta=0.1)
    assert out["epsilon"] == pytest.approx(min(eps_lb(0.4, 0.1), eps_ub(0.4, 0.1)), rel=1e-12)


def test_pleak_method_uniform_uses_the_ball_width_in_the_exponent():
    # Uniform(0, 10), t = 5, r = 1; PLEAK: a in (1, R = 5], q = g(a) = 2a/10, exponent 2a
    out = pleak_method_epsilon(Uniform(0, 10), t=5, r=1, delta=0.1, n=4000)
    a = np.linspace(1, 5, 4001)[1:]
    upper = -np.log(0.2 / (a / 5 - 0.2) * (1 / 0.3 - 1)) / (2 * a)
    q = a / 5
    lower = -np.log((q - 0.2) / 0.2 * (0.2 - 0.1) / (0.1 + q - 0.2)) / (2 * a)
    assert out["epsilon"] == pytest.approx(min(upper.max(), lower.max()), rel=1e-9)
    assert out["distance"] == pytest.approx(2 * out["a"])


# --- approxWrtLp(p) over several columns: an l_p ball ------------------------------------
def test_lp_ball_goal_is_the_ships_disc():
    """(x, y) approxWrtLp(2) 10 with independent N(0, 1250) columns: the disc of Sec. 6.3,
    prior 1 - exp(-100/2500) at the port; the epsilon is Eq. (main) at the best radius a with
    shell mass exp(-100/2500) - exp(-a^2/2500) and exponent a + 10."""
    k = parse_attacker("s.x normal 0 1250; s.y normal 0 1250;")
    res = epsilon_for_pleak_goal(k, parse_goal("(s.x, s.y) approxWrtLp(2) 10"), delta=0.1,
                                 t={"s.x": 0, "s.y": "0"}, construction="sound")
    assert res.method == "events" and res.columns == ("s.x", "s.y")
    p = 1 - math.exp(-100 / 2500)
    assert res.detail.p == pytest.approx(p, rel=1e-12)
    a = np.linspace(10.01, 250, 200001)
    q = math.exp(-100 / 2500) - np.exp(-(a**2) / 2500)
    eps = -np.log(p / q * (1 / (0.1 + p) - 1)) / (a + 10)
    assert res.epsilon == pytest.approx(eps.max(), rel=1e-7)


def test_lp_ball_goal_l1_uniform_square_and_known_column():
    # Uniform square, l_1 ball of radius 1 at the centre: mass 2 r^2 / 100
    k = parse_attacker("t.x rangeUnif 0 10; t.y rangeUnif 0 10; t.k exact;")
    # the mapping onto goals, checked with the comparison sets (fast)
    sound = {"construction": "sound"}
    res = epsilon_for_pleak_goal(k, parse_goal("(t.x, t.y) approxWrtLp(1) 1"), delta=0.1,
                                 t={"t.x": 5, "t.y": 5}, sides="upper", **sound)
    assert res.detail.p == pytest.approx(0.02, rel=1e-9)
    # a column the attacker knows leaves the section through the truth: an interval of radius r
    one = epsilon_for_pleak_goal(k, parse_goal("(t.x, t.k) approxWrtLp(2) 1"), delta=0.1, t={"t.x": 5})
    direct = epsilon_for_pleak_goal(k, parse_goal("t.x approx 1"), delta=0.1, t={"t.x": 5})
    assert one.epsilon == direct.epsilon
    both = epsilon_for_pleak_goal(k, parse_goal("(t.x, t.y) approxWrtLp(2) 1 OR t.x approx 1"), delta=0.1,
                                  t={"t.x": 5, "t.y": 5}, sides="upper", **sound)
    assert both.method == "events" and both.epsilon > 0


def test_uniform_column_defaults_to_the_optimum():
    """The same request with the default construction: the optimum over every epsilon-DP
    mechanism, here the Laplace kernel e^{-eps |x - c|} with c in X' = [4, 6] (closed-form
    integrals over [0, 10], the best c on a dense grid, the crossing of p + delta by brentq)."""
    from scipy.optimize import brentq

    k = parse_attacker("t.x rangeUnif 0 10;")
    res = epsilon_for_pleak_goal(k, parse_goal("t.x approx 1"), delta=0.1, t="5", sides="upper")

    def mass(eps, c, a, b):  # integral of e^{-eps |x - c|} over [a, b], a <= c <= b
        return (2 - np.exp(-eps * (c - a)) - np.exp(-eps * (b - c))) / eps

    def worst(eps):
        c = np.linspace(4, 6, 20001)
        return np.max(mass(eps, c, 4, 6) / mass(eps, c, 0, 10))

    assert res.detail.construction == "optimal"
    assert res.epsilon == pytest.approx(brentq(lambda e: worst(e) - 0.3, 1e-3, 10, xtol=1e-14), rel=1e-6)
