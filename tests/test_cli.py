"""``python -m garesearch epsilon``: valid requests against typed closed forms and the paper's
numbers; malformed input exits with status 2 and one line on stderr, without a traceback."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.special import erf

from garesearch.app import cli

ROOT = Path(__file__).resolve().parent.parent
COLOURS = "categorical:red=0.2,white=0.1,tabby=0.25,black=0.4,tortoise=0.05"


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


# --- through a real subprocess ----------------------------------------------------------
def test_subprocess_cats_json():
    proc = subprocess.run(
        [sys.executable, "-m", "garesearch", "epsilon", "--prior", COLOURS, "--r", "0",
         "--delta", "0.1", "--sensitivity", "2", "--json"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # worst colour black, p = 0.4: eps_lb = -ln(0.4/0.6 (1/0.5 - 1)) = ln 1.5
    assert out["t"] == "black" and out["epsilon"] == pytest.approx(math.log(1.5), rel=1e-12)
    assert out["laplace_scale"] == pytest.approx(2 / math.log(1.5), rel=1e-12)


def test_subprocess_malformed_prior_is_one_line_exit_2():
    proc = subprocess.run(
        [sys.executable, "-m", "garesearch", "epsilon", "--prior", "normal:2000", "--r", "100",
         "--delta", "0.1"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "normal takes MU,SIGMA" in proc.stderr


# --- valid requests -----------------------------------------------------------------------
def test_salary_paper_construction_at_mu(capsys):
    """Sec. 6.2 at t = mu with the paper's construction: p = erf(100/(sigma sqrt 2)) = 0.3286
    (not 0.42); upper side = max over a in (r, 3 sqrt2 sigma] of Eq. (main); lower side =
    eps_ub with R = 3 sqrt2 sigma."""
    s = 235.7
    out = run_json(capsys, "--prior", f"normal:2000,{s}", "--r", "100", "--delta", "0.1",
                   "--t", "2000", "--construction", "paper")
    p = erf(100 / (s * math.sqrt(2)))
    assert out["p"] == pytest.approx(p, rel=1e-12) and round(p, 4) == 0.3286
    R = 3 * math.sqrt(2) * s
    a = np.linspace(100.001, R, 200001)
    up = -np.log(p / (erf(a / (s * math.sqrt(2))) - p) * (1 / (0.1 + p) - 1)) / a
    assert out["epsilon_upper"] == pytest.approx(up.max(), rel=1e-7)
    low = -math.log((1 - p) / p * (1 / (0.1 + 1 - p) - 1)) / R
    assert out["epsilon_lower"] == pytest.approx(low, rel=1e-12)
    assert out["epsilon"] == pytest.approx(min(up.max(), low), rel=1e-7)
    assert out["laplace_scale"] == pytest.approx(1 / out["epsilon"], rel=1e-12)
    assert out["posterior_bound"] <= p + 0.1 + 1e-12


def test_uniform_sound_upper_side_at_t(capsys):
    out = run_json(capsys, "--prior", "uniform:0,10", "--r", "1", "--delta", "0.1", "--t", "5",
                   "--sides", "upper", "--construction", "sound")
    # all points within D of [4, 6]: the optimum fills the support at D = 6, q = 0.8
    assert out["epsilon"] == pytest.approx(-math.log(0.2 / 0.8 * (1 / 0.3 - 1)) / 6, rel=1e-9)
    assert out["distance"] == pytest.approx(6) and out["q"] == pytest.approx(0.8)


def test_text_output_names_every_quantity(capsys):
    code, out, err = run(capsys, "--prior", "normal:2000,235.7", "--r", "100", "--delta", "0.1",
                         "--construction", "sound")
    assert code == 0 and err == ""
    for label in ("epsilon", "Laplace scale", "true value t", "prior p", "posterior bound",
                  "radius a", "distance", "construction"):
        assert label in out
    code, out, err = run(capsys, "--prior", "normal:2000,235.7", "--r", "100", "--delta", "0.1")
    assert code == 0 and err == ""
    for label in ("epsilon", "Laplace scale", "true value t", "prior p", "posterior bound",
                  "binding side", "construction     optimal", "worst likelihood"):
        assert label in out


def test_piecewise_and_numeric_categorical(capsys):
    out = run_json(capsys, "--prior", "piecewise:0,1,2:0.5,0.5", "--r", "0.25", "--delta", "0.1",
                   "--t", "1", "--sides", "upper")
    assert out["p"] == pytest.approx(0.25)
    out = run_json(capsys, "--prior", "categorical:0=0.5,1=0.5", "--r", "0", "--delta", "0.1",
                   "--t", "0", "--sides", "upper")
    assert out["epsilon"] == pytest.approx(-math.log(1 * (1 / 0.6 - 1)), rel=1e-12)


def test_cats_and_or_goals(capsys):
    common = ("--delta", "0.1", "--r", "0", "--attribute", "gender=categorical:M=0.5,F=0.5",
              "--attribute", f"colour={COLOURS}")
    out = run_json(capsys, *common, "--goal", "gender & colour")
    assert out["event"] == "and" and out["p"] == pytest.approx(0.2)
    assert out["epsilon"] == pytest.approx(-math.log(0.2 / 0.8 * (1 / 0.3 - 1)), rel=1e-9)  # 0.539
    out = run_json(capsys, *common, "--goal", "gender OR colour")
    assert out["t"]["colour"] == "white" and out["p"] == pytest.approx(0.55)
    assert out["epsilon"] == pytest.approx(-math.log(0.45 / 0.55 * (1 / 0.55 - 1)), rel=1e-9)
    out = run_json(capsys, *common, "--goal", "gender | colour", "--t", "gender=F,colour=tortoise")
    assert out["t"] == {"gender": "F", "colour": "tortoise"} and out["p"] == pytest.approx(0.525)


def test_single_attribute_goal_is_the_univariate_method(capsys):
    out = run_json(capsys, "--delta", "0.1", "--r", "0", "--attribute", f"colour={COLOURS}")
    assert out["epsilon"] == pytest.approx(math.log(1.5), rel=1e-12)


def test_pleak_files(capsys):
    ex = ROOT / "examples" / "pleak"
    out = run_json(capsys, "--att", str(ex / "cats.att"), "--goal-file", str(ex / "cats_and.plc"),
                   "--delta", "0.1")
    assert out["epsilon"] == pytest.approx(-math.log(0.2 / 0.8 * (1 / 0.3 - 1)), rel=1e-9)
    out = run_json(capsys, "--att", str(ex / "cats.att"), "--goal-file", str(ex / "cats_color.plc"),
                   "--delta", "0.1", "--t", "white")
    assert out["epsilon"] == pytest.approx(-math.log(0.1 / 0.9 * (1 / 0.2 - 1)), rel=1e-12)


def test_help_has_worked_examples(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "cats" in out and "Salaries" in out and "--json" in out and "cats_or.plc" in out


def test_infeasible_request_exits_1(capsys):
    # Sec. 6.2 with the paper's a = 200: no comparison set heavy enough
    code, out, err = run(capsys, "--prior", "normal:2000,235.7", "--r", "100", "--delta", "0.1",
                         "--t", "2000", "--construction", "paper", "--R", "200")
    assert code == 1 and out == "" and err.count("\n") == 1 and "infeasible" in err


# --- malformed input ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--prior", "normal:0,1", "--r", "1"], "required: --delta"),
        (["--prior", "normal:0,1", "--r", "1", "--delta", "x"], "invalid float"),
        (["--prior", "normal:0,1", "--r", "1", "--delta", "1.5"], "delta must lie in (0, 1)"),
        (["--prior", "normal:0,1", "--r", "-1", "--delta", "0.1"], "r must be >= 0"),
        (["--prior", "normal:0,1", "--delta", "0.1"], "--r is required"),
        (["--prior", "normal:0,1", "--r", "one", "--delta", "0.1"], "--r must be a number"),
        (["--prior", "normal:0,-1", "--r", "1", "--delta", "0.1"], "sigma must be > 0"),
        (["--prior", "gamma:1,2", "--r", "1", "--delta", "0.1"], "unknown kind 'gamma'"),
        (["--prior", "normal", "--r", "1", "--delta", "0.1"], "expected KIND:PARAMETERS"),
        (["--prior", "uniform:5,1", "--r", "1", "--delta", "0.1"], "high must exceed low"),
        (["--prior", "categorical:a=0.5,b", "--r", "0", "--delta", "0.1"], "VALUE=PROBABILITY"),
        (["--prior", "categorical:a=0.5,b=0.6", "--r", "0", "--delta", "0.1"], "sum to 1"),
        (["--prior", "categorical:a=0.5,a=0.5", "--r", "0", "--delta", "0.1"], "listed twice"),
        (["--prior", COLOURS, "--r", "0", "--delta", "0.1", "--t", "green"], "not a value"),
        (["--prior", "normal:0,1", "--r", "1", "--delta", "0.1", "--t", "abc"], "--t must be a number"),
        (["--prior", "normal:0,1", "--r", "1", "--delta", "0.1", "--construction", "x"], "invalid choice"),
        (["--delta", "0.1", "--r", "1"], "give --prior"),
        (["--delta", "0.1", "--r", "0", "--attribute", "a=categorical:x=0.5,y=0.5",
          "--attribute", "b=categorical:x=0.5,y=0.5"], "need a --goal"),
        (["--delta", "0.1", "--r", "0", "--attribute", "a=categorical:x=0.5,y=0.5",
          "--goal", "a & c"], "'c' is not an --attribute"),
        (["--delta", "0.1", "--r", "0", "--attribute", "a=categorical:x=0.5,y=0.5",
          "--attribute", "b=categorical:x=0.5,y=0.5", "--goal", "a & (b"], "missing ')'"),
        (["--delta", "0.1", "--r", "0", "--attribute", "a=categorical:x=0.5,y=0.5",
          "--attribute", "b=categorical:x=0.5,y=0.5", "--goal", "a & b |"], "ends too early"),
        (["--delta", "0.1", "--r", "0", "--attribute", "a=categorical:x=0.5,y=0.5",
          "--attribute", "b=categorical:x=0.5,y=0.5", "--goal", "a ^ b"], "unexpected '^'"),
        (["--delta", "0.1", "--r", "a=0", "--attribute", "a=categorical:x=0.5,y=0.5",
          "--attribute", "b=categorical:x=0.5,y=0.5", "--goal", "a & b"], "no precision for b"),
        (["--delta", "0.1", "--r", "0", "--attribute", "1a=normal:0,1"], "expected NAME=PRIOR"),
        (["--delta", "0.1", "--att", "missing.att", "--goal-file", "g.sql"], "cannot read"),
        (["--delta", "0.1", "--att", "x.att"], "go together"),
        (["--delta", "0.1", "--prior", "normal:0,1", "--att", "x.att", "--goal-file", "y"], "replace"),
        (["--delta", "0.1", "--prior", "normal:0,1", "--r", "1", "--sensitivity", "0"], "sensitivity"),
    ],
)
def test_malformed_input_exits_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("garesearch epsilon: error: ")
    assert message in err


def test_malformed_pleak_file_names_the_line(capsys, tmp_path):
    att = tmp_path / "k.att"
    att.write_text("t.x rangeUnif 0 10;\nt.y normal 0 -1;\n")
    goal = tmp_path / "g.sql"
    goal.write_text("t.x approx 1")
    code, _, err = run(capsys, "--delta", "0.1", "--att", str(att), "--goal-file", str(goal))
    assert code == 2 and f"{att}:2:" in err and err.count("\n") == 1


def test_pointwise_construction_uniform_closed_form(capsys):
    """--construction pointwise: 1/(1 + J(eps)) = p + delta with J typed from its definition:
    J = int_6^10 e^{-eps x} dx / int_4^6 e^{-eps x} dx + int_0^4 e^{eps x} dx / int_4^6 e^{eps x} dx."""
    from scipy.optimize import brentq

    out = run_json(capsys, "--prior", "uniform:0,10", "--r", "1", "--delta", "0.1", "--t", "5",
                   "--sides", "upper", "--construction", "pointwise")

    def J(e):
        up = (math.exp(-6 * e) - math.exp(-10 * e)) / (math.exp(-4 * e) - math.exp(-6 * e))
        down = (math.exp(4 * e) - 1) / (math.exp(6 * e) - math.exp(4 * e))
        return up + down

    ref = brentq(lambda e: 1 / (1 + J(e)) - 0.3, 1e-6, 5, xtol=1e-15)
    assert out["epsilon"] == pytest.approx(ref, rel=1e-9)
    assert out["method"] == "pointwise" and out["posterior_bound"] == pytest.approx(0.3, abs=1e-12)
    code, _, err = run(capsys, "--attribute", "a=uniform:0,1", "--attribute", "b=uniform:0,1",
                       "--goal", "a & b", "--r", "0.1", "--delta", "0.1", "--construction", "pointwise")
    assert code == 2 and "one numeric attribute" in err


def test_goals_default_to_the_optimum_and_say_how_tight(capsys):
    """AND/OR goals: --construction optimal is the default (no fallback to the comparison
    sets); the report names the construction and the bracket; sound stays available."""
    common = ("--delta", "0.1", "--r", "1", "--attribute", "x=categorical:0=0.3,1=0.2,3=0.5",
              "--attribute", "y=categorical:0=0.4,2=0.35,5=0.25", "--goal", "x | y", "--t", "x=1,y=2")
    out = run_json(capsys, *common)
    assert out["construction"] == "optimal" and out["construction_used"] == "lp"
    assert 0 <= out["rel_width"] <= 1e-6 and out["epsilon_hi"] >= out["epsilon"]
    sound = run_json(capsys, *common, "--construction", "sound")
    assert sound["construction"] == "sound" and "a" in sound and "rel_width" not in sound
    # the optimum is the largest sound epsilon: never below the comparison sets
    assert out["epsilon"] >= sound["epsilon"] * (1 - 1e-9)
    code, text, _ = run(capsys, *common)
    assert code == 0 and "optimal" in text and ("bracket" in text or "exact" in text)
