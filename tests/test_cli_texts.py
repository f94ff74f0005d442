"""The command line's texts: every ``--help`` (help for every option, no reST markup, examples
that run), the one-line refusal without the Jupyter stack, the posterior bound of the binding
side, and README's PLEAK command run the way a pip user runs it."""

from __future__ import annotations

import argparse
import json
import math
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from garesearch import __main__ as entry
from garesearch._optional import JUPYTER_STACK
from garesearch.app import cli_calibrate

ROOT = Path(__file__).resolve().parent.parent
REST = re.compile(r"``|:(?:func|class|mod|meth|data|attr|math|ref|obj|exc):`")


def _help(monkeypatch, capsys, command):
    """``garesearch COMMAND --help``: its exit status, its text and the parser that printed it."""
    seen = []
    original = argparse.ArgumentParser.print_help

    def record(self, file=None):
        seen.append(self)
        return original(self, file)

    monkeypatch.setattr(argparse.ArgumentParser, "print_help", record)
    code = entry.main([command, "--help"])
    out, err = capsys.readouterr()
    return code, out, err, seen


@pytest.mark.parametrize("command", list(entry.COMMANDS))
def test_every_option_has_help_and_no_rest_markup(monkeypatch, capsys, command):
    code, out, err, parsers = _help(monkeypatch, capsys, command)
    assert code == 0 and err == "" and len(parsers) == 1
    missing = [a.option_strings or a.dest for a in parsers[0]._actions
               if not a.help or a.help == argparse.SUPPRESS]
    assert missing == [], f"{command}: options without help text"
    assert parsers[0].description, f"{command}: no description"
    assert not REST.search(out), f"{command} --help shows reST markup: {REST.search(out).group()}"


def test_top_level_usage_has_no_rest_markup(capsys):
    assert entry.main(["--help"]) == 0
    assert not REST.search(capsys.readouterr().out)


def _examples(command: str, help_text: str) -> list[list[str]]:
    """The command lines of the ``examples:`` section of a --help text (continued with ``\\``)."""
    section = help_text.split("\nexamples:\n", 1)[1]
    joined = re.sub(r"\\\n\s*", " ", section)
    prefix = f"python -m garesearch {command} "
    return [shlex.split(line.strip()[len(prefix):]) for line in joined.splitlines()
            if line.strip().startswith(prefix)]


CALIBRATE_EXAMPLES = _examples("calibrate", cli_calibrate.build_parser().format_help())


def test_calibrate_help_shows_the_prior_syntax_and_examples(monkeypatch, capsys):
    _, out, _, _ = _help(monkeypatch, capsys, "calibrate")
    for syntax in ("normal:MU,SIGMA", "uniform:LOW,HIGH", "categorical:V=P,V=P,...",
                   "piecewise:E0,E1,...,En:W1,...,Wn", "categorical:0=0.8,1=0.2"):
        assert syntax in out
    assert _examples("calibrate", out) == CALIBRATE_EXAMPLES and len(CALIBRATE_EXAMPLES) >= 4
    used = {a for argv in CALIBRATE_EXAMPLES for a in argv if a.startswith("--")}
    assert {"--mechanism", "--reading", "--sides", "--beta", "--alpha", "--releases"} <= used


@pytest.mark.parametrize("argv", CALIBRATE_EXAMPLES, ids=lambda a: " ".join(a)[:60])
def test_calibrate_help_examples_run(capsys, argv):
    code = entry.main(["calibrate", *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    res = json.loads(out)
    assert res["scale"] > 0 and math.isfinite(res["scale"])


def test_calibrate_error_rates_example_is_the_closed_form(capsys):
    """Gaussian noise between values 1 apart: FNR at FPR alpha is Phi(Phi^-1(1 - alpha) - 1/sigma),
    so FNR = 0.5 at alpha = 0.05 needs sigma = 1 / Phi^-1(0.95) (typed: 1.6448536269514722)."""
    argv = next(a for a in CALIBRATE_EXAMPLES if "error_rates" in a)
    assert entry.main(["calibrate", *argv, "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["scale"] == pytest.approx(1 / 1.6448536269514722, rel=1e-6)


def test_calibrate_refuses_named_values_and_a_missing_delta(capsys):
    code = entry.main(["calibrate", "--prior", "categorical:a=0.5,b=0.5", "--r", "0", "--delta", "0.1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "values must be numbers" in err
    code = entry.main(["calibrate", "--prior", "normal:0,1", "--r", "0.5"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--delta is required" in err


def test_calibrate_advantage_reading_prints_its_value(capsys):
    """TPR - FPR of Gaussian noise between values 1 apart: 2 Phi(1/(2 sigma)) - 1 = 0.1 gives
    sigma = 1/(2 Phi^-1(0.55)) (Phi^-1(0.55) = 0.12566134685507402, typed)."""
    code = entry.main(["calibrate", "--prior", "categorical:0=0.5,1=0.5", "--r", "0", "--delta", "0.1",
                       "--mechanism", "gaussian", "--reading", "advantage"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    scale = float(re.search(r"noise scale per unit\s+(\S+)", out).group(1))
    assert scale == pytest.approx(1 / (2 * 0.12566134685507402), rel=1e-5)
    assert "test advantage (TPR - FPR)" in out


# --- without the Jupyter stack ------------------------------------------------------------------
def _no_stack(monkeypatch):
    for module in (m for m in JUPYTER_STACK.values() if m):
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setitem(sys.modules, "jupyterlab", None)


@pytest.mark.parametrize("command, extra", [("reproduce", "reproduce"), ("notebooks", "notebooks")])
def test_without_the_jupyter_stack_one_line_names_the_extra(monkeypatch, capsys, tmp_path,
                                                            command, extra):
    _no_stack(monkeypatch)
    code = entry.main([command, "--output", str(tmp_path / "x")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"garesearch {command}: error: needs the Jupyter stack: "
                          f'pip install "garesearch[{extra}]"')
    assert "nbclient" in err and not (tmp_path / "x").exists()


def test_the_api_imports_without_the_jupyter_stack():
    """Every module of the package imports with the Jupyter stack blocked, and the API computes."""
    blocked = sorted({m for m in JUPYTER_STACK.values() if m} | {"jupyterlab", "IPython",
                                                                   "jupyter_client", "ipython"})
    code = textwrap.dedent(f"""
        import importlib, pkgutil, sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {blocked!r}:
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        import garesearch as ga
        for info in pkgutil.walk_packages(ga.__path__, "garesearch."):
            if not info.name.startswith(("garesearch.notebooks", "garesearch.examples")):
                importlib.import_module(info.name)
        print(round(ga.epsilon_for_advantage(delta=0.1, p=0.2), 4))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0.539"  # ln(0.3 * 0.8 / (0.2 * 0.7)), Sec. 3.2
    assert math.log(0.3 * 0.8 / (0.2 * 0.7)) == pytest.approx(0.539, abs=5e-4)


# --- the cats OR goal: the lower side binds -----------------------------------------------------
def _cats_or_by_hand(delta=0.1):
    """Sec. 6.1's OR goal under the discrete metric: p = 1 - (1 - 1/2)(1 - q_colour); each side's
    epsilon in closed form (Sec. 3.2 with q = 1 - p), the smallest over the colours."""
    best = None
    for q in (0.2, 0.1, 0.25, 0.4, 0.05):
        p = 1 - 0.5 * (1 - q)
        up = math.log((p + delta) * (1 - p) / (p * (1 - p - delta))) if p + delta < 1 else math.inf
        low = math.log(p * (1 - p + delta) / ((p - delta) * (1 - p))) if p > delta else math.inf
        for eps, side in ((up, "upper"), (low, "lower")):
            if best is None or eps < best[0]:
                best = (eps, side, p)
    return best


def test_cats_or_goal_shows_the_lower_bound(capsys):
    eps, side, p = _cats_or_by_hand()
    assert side == "lower" and p == pytest.approx(0.55)
    code = entry.main(["epsilon", "--att", "cats.att", "--goal-file", "cats_or.plc", "--delta", "0.1",
                       "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["epsilon"] == pytest.approx(eps, rel=1e-12) and out["binding"] == "lower"
    assert out["posterior_bound"] == pytest.approx(p - 0.1, abs=1e-12)  # 0.45, not p + delta
    assert out["posterior_bound_side"] == "lower"
    code = entry.main(["epsilon", "--att", "cats.att", "--goal-file", "cats_or.plc", "--delta", "0.1"])
    text = capsys.readouterr().out
    line = next(ln for ln in text.splitlines() if ln.startswith("posterior bound"))
    assert line.split()[2] == "0.45" and "p - delta = 0.45" in line and "p + delta" not in line


def test_single_attribute_lower_side_bound(capsys):
    """Values a, b, c with 0.6, 0.3, 0.1, exact guesses: the lower side at t = a,
    ln(0.6 * 0.5 / (0.5 * 0.4)) = ln 1.5, is the smallest of the six closed forms."""
    code = entry.main(["epsilon", "--prior", "categorical:a=0.6,b=0.3,c=0.1", "--r", "0",
                       "--delta", "0.1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["epsilon"] == pytest.approx(math.log(1.5), rel=1e-12)
    assert out["binding"] == "lower" and out["posterior_bound_side"] == "lower"
    assert out["posterior_bound"] == pytest.approx(0.5, abs=1e-12)


# --- README's PLEAK command, in an empty folder -------------------------------------------------
def test_readme_pleak_command_runs_in_an_empty_folder(tmp_path):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if "garesearch epsilon" in ln and "--att " in ln]
    assert len(lines) == 1
    argv = shlex.split(lines[0].split("$", 1)[1])
    assert argv[:3] == ["python", "-m", "garesearch"]
    run = subprocess.run([sys.executable, *argv[1:], "--json"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    eps, _, p = _cats_or_by_hand()
    assert out["epsilon"] == pytest.approx(eps, rel=1e-12)  # 0.4013, README's table
    assert out["posterior_bound"] == pytest.approx(p - 0.1, abs=1e-12)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_pleak_file_lists_the_shipped_examples(capsys, tmp_path):
    code = entry.main(["epsilon", "--att", "nosuch.att", "--goal-file", "cats_or.plc", "--delta", "0.1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cats.att" in err and "nosuch.att" in err
    # a path with a folder is a path: no shipped example stands in for it
    code = entry.main(["epsilon", "--att", str(tmp_path / "cats.att"), "--goal-file", "cats_or.plc",
                       "--delta", "0.1"])
    assert code == 2 and str(tmp_path) in capsys.readouterr().err
