"""Tests of the claims report (garesearch.claims) and of the paper's sections that register
the claims (garesearch.paper).

The expected verdict of every claim is pinned in the package's table of pinned values
(data/claims_pinned.tsv, written from tests/pinned_routes.py, where each verdict is typed as
decided by reading the paper), and the registry must compute the same.  Each verdict is also
recomputed here from the evidence (with this file's own reading of the checks);
monkeypatching the computation of a few claims shows that their verdicts follow it, and that
a wrong computation the verdict would absorb still fails the pinned values.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from fractions import Fraction
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
import scipy.special

from garesearch import attribute, bound, claims, derivations, paper, priors
from garesearch.claims import registry
from garesearch.constructions import counterexamples
from garesearch.errors import ParameterError
from garesearch.paper import examples

# the claims' cached computations are shared by these modules: one worker runs them all
pytestmark = pytest.mark.xdist_group("claims")

PINS = claims.load_pins()
EXPECTED = {cid: pin.value for (cid, quantity), pin in PINS.items() if quantity == "verdict"}
#: derivations that name no claim: the code's noise formulas and the pointwise bound
NO_CLAIM = {"one_formula_noise_gaussian", "noise_gencauchy_inverse", "pointwise_posterior_bound",
            "pointwise_ratio_identity", "truncated_normal_mgf", "pointwise_dominates_eq_main",
            "pointwise_tight_atom"}


@pytest.fixture(scope="module")
def results():
    claims.clear_cache()
    return {r.id: r for r in claims.check_all()}


# ------------------------------------------------------------------------------------------
# the list and the registry
# ------------------------------------------------------------------------------------------
def test_the_list_holds_the_papers_68_claims():
    listed = claims.claim_ids("list")
    assert len(listed) == 68
    assert len(set(claims.claim_ids())) == len(claims.claim_ids()) == 77
    assert claims.claim_ids() == listed + claims.claim_ids("added")
    assert [r["id"] for r in claims.claim_table()] == claims.claim_ids()


def test_registry_covers_every_claim_and_every_verdict_is_pinned():
    assert set(paper.registered_claims()) == set(claims.claim_ids()) == set(EXPECTED)
    with pytest.raises(ParameterError, match="unknown claim"):
        claims.check_claim("S0.nothing")


def test_a_claim_is_registered_once_with_valid_kinds():
    from garesearch.paper._claim import claim

    with pytest.raises(RuntimeError, match="duplicate"):
        claim("S6.salary_p", location="x", statement="y")(lambda: None)
    with pytest.raises(ValueError, match="kind"):
        claim("S9.new", location="x", statement="y", derivations={"eq_main": "maybe"})
    with pytest.raises(ValueError, match="origin"):
        claim("S9.new", location="x", statement="y", origin="elsewhere")


# ------------------------------------------------------------------------------------------
# verdicts: pinned expectation, recomputed from the evidence
# ------------------------------------------------------------------------------------------
def _holds(c) -> bool:
    """This test's own reading of a check."""
    if c.op == "true":
        return c.lhs is True or c.lhs == True  # noqa: E712 (numpy bools)
    if c.op == "eq":
        return c.lhs == c.rhs
    x, y = float(c.lhs), float(c.rhs)
    if math.isnan(x):
        return False
    if c.op == "approx":
        # the computed value rounds to the printed digits
        return abs(x - y) <= 0.5 * 10.0 ** (-c.digits) * (1 + 1e-9)
    if c.op == "close":
        return abs(x - y) <= max(1e-9 * max(abs(x), abs(y)), 1e-12)
    return {"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[c.op]


def _verdict(checks) -> str:
    if any(c.kind == "result" and not _holds(c) for c in checks):
        return "WRONG"
    if any(not _holds(c) for c in checks):
        return "TYPO"
    return "CONFIRMED"


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_verdict(results, claim_id):
    r = results[claim_id]
    assert r.verdict == EXPECTED[claim_id], r.explanation
    assert _verdict(r.evidence.checks) == r.verdict
    for c in r.evidence.checks:
        assert claims.evaluate_check(c) == _holds(c), c


def test_the_verdict_counts():
    counts = claims.summary(list(claims.check_claim(i) for i in claims.claim_ids()))
    assert counts == {"CONFIRMED": 38, "TYPO": 14, "WRONG": 25}


def test_each_claim_has_evidence_and_an_explanation(results):
    for r in results.values():
        assert r.evidence.checks
        assert len(r.explanation) > 15
        # a TYPO needs a failing printed check and a WRONG a failing result check
        kinds = {c.kind for c in r.evidence.checks if not c.holds}
        assert kinds == {"CONFIRMED": set(), "TYPO": {"printed"}}.get(r.verdict, kinds)
        if r.verdict == "WRONG":
            assert "result" in kinds


def test_verdict_rule():
    ok = claims.Check("x", "result", "close", 1.0, 1.0)
    bad_result = claims.Check("x", "result", "approx", 0.3286, 0.42, 2)
    bad_print = claims.Check("x", "printed", "lt", 1.0, 0.0)
    assert claims.verdict_from_checks([ok]) == "CONFIRMED"
    assert claims.verdict_from_checks([ok, bad_print]) == "TYPO"
    assert claims.verdict_from_checks([ok, bad_print, bad_result]) == "WRONG"
    with pytest.raises(ValueError):
        claims.verdict_from_checks([])
    with pytest.raises(ValueError):
        claims.Check("x", "maybe", "eq", 1, 1)
    with pytest.raises(ValueError):
        claims.Check("x", "result", "approx", 1, 1)  # approx needs digits


# ------------------------------------------------------------------------------------------
# the pinned values: every computed value, its tolerance and its route
# ------------------------------------------------------------------------------------------
def test_every_computed_value_is_pinned_and_within_its_tolerance(results):
    report = claims.verify(results=list(results.values()))
    assert report.ok, claims.format_verify_report(report)
    assert report.checked == len(PINS) > 450
    # every pin names its route, and the regression guards say so
    assert all(p.route and p.tolerance for p in PINS.values())
    guards = [k for k, p in PINS.items() if p.route.startswith("regression guard only")]
    assert len(guards) <= 5


def test_the_verify_command_passes_as_shipped(capsys):
    assert claims.main(["--verify", "--id", "S6.salary_p", "S6.ships_q"]) == 0
    assert "all 6 pinned values are within their tolerances" in capsys.readouterr().out


_NORMAL_FUNCTIONS = (("scipy.special", ("ndtr", "erf", "erfc")), ("scipy.special", ("log_ndtr",)),
                     ("mpmath", ("ncdf", "erf", "erfc")))


def _drift_normal_functions(monkeypatch, rel=1e-4):
    """Multiply scipy's and mpmath's normal distribution functions by 1 + rel (add log1p(rel)
    to log_ndtr), where the package looks them up."""
    for module, names in _NORMAL_FUNCTIONS:
        mod = scipy.special if module == "scipy.special" else mpmath
        for name in names:
            orig = getattr(mod, name)
            if name.startswith("log"):
                monkeypatch.setattr(mod, name, lambda x, *a, _f=orig, **k: _f(x, *a, **k) + math.log1p(rel))
            else:
                monkeypatch.setattr(mod, name, lambda x, *a, _f=orig, **k: _f(x, *a, **k) * (1 + rel))


def test_verify_catches_a_drift_of_1e4_in_the_normal_functions(monkeypatch, capsys):
    claims.clear_cache()
    _drift_normal_functions(monkeypatch)
    assert claims.main(["--verify"]) == 1
    out = capsys.readouterr().out
    for value in ("S6.salary_p check 1 lhs", "S6.ships_p computed", "S6.salary_cover verdict",
                  "S6.salary_sound computed", "T2.OR_g(a-1) check 1 rhs"):
        assert f"DRIFT {value}" in out, value
    assert "pinned values drifted" in out
    monkeypatch.undo()
    claims.clear_cache()


def _replace_claim(monkeypatch, claim_id, func):
    registered = dict(paper.registered_claims())
    from garesearch.paper import _claim

    monkeypatch.setitem(_claim._CLAIMS, claim_id, dataclasses.replace(registered[claim_id], func=func))


def test_a_wrong_computation_hidden_by_a_wrong_verdict_fails_the_pinned_values(monkeypatch):
    """S6.salary_sound with the sound comparison set instead of the optimum, or S6.ships_sound
    reporting twice its Laplace scale: both stay WRONG, and the pinned values name them."""
    from garesearch.paper import sec6_salary_ships

    claims.clear_cache()

    def comparison_set(prior, r, delta, t=None):  # the sound comparison set, in its place
        res = attribute.epsilon_for_attribute(prior, r=r, delta=delta, t=t, sides="both",
                                              construction="sound")
        return SimpleNamespace(epsilon=res.epsilon, t=res.t, centre=res.t,
                               laplace_scale=res.laplace_scale)

    monkeypatch.setattr(sec6_salary_ships, "epsilon_optimal", comparison_set)
    ships = paper.registered_claims()["S6.ships_sound"].func

    def doubled():
        ev = ships()
        check = dataclasses.replace(ev.checks[0], lhs=2 * ev.checks[0].lhs)
        return dataclasses.replace(ev, computed=2 * ev.computed, checks=(check, *ev.checks[1:]))

    _replace_claim(monkeypatch, "S6.ships_sound", doubled)
    report = claims.verify(["S6.salary_sound", "S6.ships_sound"])
    assert claims.check_claim("S6.salary_sound").verdict == claims.check_claim("S6.ships_sound").verdict == "WRONG"
    drifted = {(d.pin.id, d.pin.quantity) for d in report.drifts}
    assert {("S6.salary_sound", "computed"), ("S6.ships_sound", "computed"),
            ("S6.ships_sound", "check 1 lhs")} <= drifted
    monkeypatch.undo()
    claims.clear_cache()


def test_the_pinned_table_reads_and_compares():
    from garesearch.claims.verify import Pin, parse_tolerance, pins_to_text, within

    assert parse_tolerance("rel 1e-09 abs 1e-15") == (1e-9, 1e-15)
    with pytest.raises(ValueError):
        parse_tolerance("about 3")
    pin = Pin("x", "computed", 0.5, "rel 1e-09", "r")
    assert within(0.5 * (1 + 1e-10), pin) and not within(0.5 * (1 + 1e-8), pin)
    assert within(np.float64(0.5), pin) and not within("0.5", pin) and not within(True, pin)
    assert within(math.nan, Pin("x", "q", math.nan, "exact", "r"))
    assert within("WRONG", Pin("x", "verdict", "WRONG", "exact", "r"))
    assert not within(1, Pin("x", "q", True, "exact", "r"))
    assert claims.load_pins(pins_to_text(PINS.values())) == PINS


# ------------------------------------------------------------------------------------------
# computed values against independent values
# ------------------------------------------------------------------------------------------
def test_numbers_against_closed_forms(results):
    erf = math.erf
    assert results["S6.salary_p"].computed == pytest.approx(erf(100 / math.sqrt(2 * 55556)), rel=1e-12)
    assert results["S6.ships_p"].computed == pytest.approx(erf(0.2), rel=1e-12)
    assert results["S6.cats_OR_worst"].computed == pytest.approx(2 * math.log(0.55 / 0.45), rel=1e-12)
    assert results["S6.cats_AND_eps"].computed == pytest.approx(-math.log(0.2 / 0.8 * 0.7 / 0.3), rel=1e-12)
    assert results["S6.cats_OR_eps"].computed == pytest.approx(-math.log(0.475 / 0.525 * 0.425 / 0.575), rel=1e-12)
    closed = (math.log(3 + 2 * math.sqrt(2)) + math.pi) / (2 * math.pi)
    assert results["A1.gencauchy_mass"].computed == pytest.approx(closed, rel=1e-12)
    # the paper's own salary numbers: -ln(0.42/0.18 (1/0.52 - 1)) = -0.767 (negative)
    assert results["S6.salary_rescale"].computed == pytest.approx(-math.log(0.42 / 0.18 * (1 / 0.52 - 1)))
    assert results["S6.salary_rescale"].computed < 0
    # Hoelder: the dual of l_inf is l_1, and the largest l-inf distance of Thm 1 is max(a_i + r_i)
    assert results["T1.exponent"].computed == 3.5
    assert results["T2.OR_a"].computed == 6.0


def test_salary_best_a_is_a_maximum():
    """The best a reported for the salary example beats a grid of a in (r, R]."""
    best = examples.best_a("salary", "paper")
    grid = np.linspace(101, 1000, 900)
    eps = claims.epsilon_against_a("salary", grid)
    assert np.nanmax(eps) <= best.epsilon * (1 + 1e-9)
    assert np.isnan(claims.epsilon_against_a("salary", 200.0))  # a = 200 is infeasible


def test_cats_or_curve_minima():
    p = np.array([0.45, 0.55, 0.525])
    lb, ub, eps = claims.cats_or_epsilon_against_prior(p)
    assert lb[0] == pytest.approx(ub[1])  # eps_ub(p) = eps_lb(1 - p)
    assert eps[0] == pytest.approx(eps[1]) == pytest.approx(2 * math.log(1.1 / 0.9))
    assert eps[2] > eps[1]


# ------------------------------------------------------------------------------------------
# the verdicts follow the computation (a hard-coded verdict would not change)
# ------------------------------------------------------------------------------------------
def test_patched_epsilon_changes_cats_verdict(monkeypatch):
    assert claims.check_claim("S6.cats_AND_eps").verdict == "CONFIRMED"
    monkeypatch.setattr(bound, "epsilon_for_advantage", lambda **kw: 0.7)
    assert claims.check_claim("S6.cats_AND_eps").verdict == "WRONG"
    assert claims.check_claim("S6.cats_OR_worst").verdict == "WRONG"


def test_patched_prior_mass_changes_salary_verdict(monkeypatch):
    claims.clear_cache()
    assert claims.check_claim("S6.salary_p").verdict == "WRONG"
    monkeypatch.setattr(priors.Normal, "ball_mass", lambda self, t, z: 0.42)
    assert claims.check_claim("S6.salary_p").verdict == "CONFIRMED"
    claims.clear_cache()


def _with_status(name, status, monkeypatch):
    original = registry.derivation_record

    def record(n):
        rec = original(n)
        return dataclasses.replace(rec, status=status) if n == name else rec

    monkeypatch.setattr(registry, "derivation_record", record)


def test_patched_counterexample_changes_theorem1_verdict(monkeypatch):
    from garesearch.paper import sec4_2_events

    claims.clear_cache()
    monkeypatch.setattr(
        counterexamples, "paper_counterexample",
        lambda: {"epsilon": 0.5, "posterior": 0.25, "bound": 0.3, "advantage": 0.05},
    )
    monkeypatch.setattr(sec4_2_events, "exact_violations", list)
    # the sympy derivation refutes the exponent independently: WRONG until it is patched too
    assert claims.check_claim("T1.AND_formula").verdict == "WRONG"
    _with_status("and_event_distance", "proved", monkeypatch)
    assert claims.check_claim("T1.AND_formula").verdict == "CONFIRMED"
    monkeypatch.undo()
    claims.clear_cache()
    assert claims.check_claim("T1.AND_formula").verdict == "WRONG"


def test_patched_worst_prior_changes_pprime_verdict(monkeypatch):
    assert claims.check_claim("S4.1.discrete_pprime").verdict == "TYPO"
    monkeypatch.setattr(bound, "worst_case_prior", lambda **kw: 0.3)
    assert claims.check_claim("S4.1.discrete_pprime").verdict == "WRONG"


# ------------------------------------------------------------------------------------------
# the symbolic derivations enter the evidence
# ------------------------------------------------------------------------------------------
def test_every_derivation_is_named_by_a_claim_or_is_beyond_the_claims():
    named = {n for c in paper.registered_claims().values() for n, _ in c.derivations}
    assert named <= set(derivations.names())
    assert named == set(derivations.names()) - NO_CLAIM
    for name in NO_CLAIM:
        r = derivations.get(name)
        assert derivations.claims_of(name) == ()
        assert (r.location == "beyond the paper") == name.startswith(("pointwise_", "truncated"))
        assert r.location == "beyond the paper" or r.location.startswith("App. A.1")
    assert derivations.claims_of("one_formula_noise_gencauchy") == ("A1.gencauchy_norm", "A1.gencauchy_mass")
    assert claims.derivations_by_claim()["S4.1.worst_crit"] == (
        "one_formula_worst_case_prior", "worst_prior_q1_critical_point")
    assert claims.derivation_kind("S4.1.worst_crit", "worst_prior_q1_critical_point") == "printed"
    assert claims.derivation_kind("S4.1.worst_crit", "eq_main") is None


def test_derivation_checks_in_every_evidence(results):
    for claim_id, c in paper.registered_claims().items():
        for name, kind in c.derivations:
            r = derivations.get(name)
            found = [ch for ch in results[claim_id].evidence.checks
                     if ch.text.startswith(f"sympy derivation {name} (")]
            assert len(found) == 1, (claim_id, name)
            check = found[0]
            assert check.kind == kind
            assert check.holds == (r.status != "refuted")
            if r.status == "proved under conditions":
                assert r.conditions in check.text


def test_refuted_derivation_fails_with_its_kind(monkeypatch):
    assert claims.check_claim("S3.2.posterior").verdict == "CONFIRMED"
    _with_status("posterior_bound_sec32", "refuted", monkeypatch)
    assert claims.check_claim("S3.2.posterior").verdict == "WRONG"
    c = paper.registered_claims()["S3.2.posterior"]
    printed_kinds = tuple((n, "printed") for n, _ in c.derivations)
    from garesearch.paper import _claim

    monkeypatch.setitem(_claim._CLAIMS, "S3.2.posterior", dataclasses.replace(c, derivations=printed_kinds))
    assert claims.check_claim("S3.2.posterior").verdict == "TYPO"


def test_spike_mechanism_breaks_the_b1_bound():
    """M(0) = U[0,1], M(1) = (1 - d) U[0,1] + d U[0,h]: exact values with fractions, for the
    derivation's parameters and another set."""
    from garesearch.paper.appB_approx_dp import spike_mechanism

    for e, d, h in (("0.5", "0.01", "0.001"), ("1", "0.05", "0.01")):
        sp = {k: float(v) if isinstance(v, mpmath.mpf) else v
              for k, v in spike_mechanism(e, d, h).items()}
        dd, hh = Fraction(d), Fraction(h)
        f1 = (1 - dd) + dd / hh
        # the only set where f1 > e^eps f0 is [0, h]; the other direction never exceeds
        excess = hh * f1 - hh * math.exp(float(e))
        assert sp["sup_S Pr[M(1) in S] - e^eps Pr[M(0) in S]"] == pytest.approx(float(excess), rel=1e-12)
        assert sp["sup_S Pr[M(0) in S] - e^eps Pr[M(1) in S]"] == 0
        assert float(excess) <= float(dd)
        assert sp["posterior Pr[x = 1 | y < h]"] == pytest.approx(float(f1 / (f1 + 1)), rel=1e-12)
        assert sp["B.1 bound"] == pytest.approx(1 / (1 + 1 / (math.exp(float(e)) + float(dd))), rel=1e-12)
        assert sp["posterior Pr[x = 1 | y < h]"] > sp["B.1 bound"]
        assert sp["Pr[y < h | x = 1]"] == pytest.approx(float(hh * f1), rel=1e-12)


# ------------------------------------------------------------------------------------------
# output
# ------------------------------------------------------------------------------------------
def test_json_command(results, capsys):
    assert claims.main(["--json", "--id", "S6.cats_AND_eps", "S1.rescale"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["claims"] == 2
    assert data["summary"]["CONFIRMED"] + data["summary"]["TYPO"] + data["summary"]["WRONG"] == 2
    records = data["claims"]
    assert [d["id"] for d in records] == ["S6.cats_AND_eps", "S1.rescale"]
    for d in records:
        assert set(d) == {"id", "location", "statement", "origin", "verdict", "failing", "evidence"}
        assert set(d["evidence"]) == {"paper", "computed", "explanation", "checks"}
        for c in d["evidence"]["checks"]:
            assert set(c) == {"text", "kind", "relation", "lhs", "rhs", "digits", "tolerance", "holds"}
    cats = records[0]["evidence"]
    assert isinstance(cats["paper"], float) and cats["paper"] == 0.539
    assert isinstance(cats["computed"], float)
    # S1.rescale: a TYPO whose failing check is the derivation refuting the printed eps0*1000
    rescale = records[1]
    assert rescale["verdict"] == "TYPO" and len(rescale["failing"]) == 1
    assert rescale["failing"][0].startswith("sympy derivation rescale_sec1 (refuted)")
    sides = [(c["lhs"], c["rhs"]) for c in rescale["evidence"]["checks"]]
    assert (1.0, 1.0) in sides and (False, None) in sides
    full = json.loads(claims.to_json(list(results.values())))
    assert len(full["claims"]) == len(EXPECTED)
    assert {d["verdict"] for d in full["claims"]} <= set(claims.VERDICTS)
    counts = claims.summary(list(results.values()))
    assert {v: full["summary"][v] for v in claims.VERDICTS} == counts
    listed = [r for r in results.values() if r.origin == "list"]
    assert full["summary"]["paper_list"]["claims"] == len(listed)


def test_json_numbers_are_numbers_and_tolerances_are_stated(results):
    full = json.loads(claims.to_json(list(results.values())))
    by_id = {d["id"]: d for d in full["claims"]}
    for r in results.values():
        for c, rec in zip(r.evidence.checks, by_id[r.id]["evidence"]["checks"], strict=True):
            assert rec["holds"] == c.holds and rec["kind"] == c.kind and rec["relation"] == c.op
            if isinstance(c.lhs, float) and math.isfinite(c.lhs):
                assert rec["lhs"] == c.lhs
            if c.op == "approx":
                assert rec["tolerance"] == {"abs": 0.5 * 10.0 ** -c.digits}
            elif c.op == "close":
                assert rec["tolerance"]["rel"] == 1e-9
            else:
                assert rec["tolerance"] is None
    # S6.salary_p: 0.3286 against the printed 0.42 to 2 decimals
    (check,) = [c for c in by_id["S6.salary_p"]["evidence"]["checks"] if c["relation"] == "approx"]
    sigma = math.sqrt(55556.0)  # the paper's variance
    assert check["lhs"] == pytest.approx(math.erf(100 / (sigma * math.sqrt(2))), rel=1e-12)
    assert check["rhs"] == 0.42
    assert check["tolerance"] == {"abs": 0.005} and check["holds"] is False


def test_markdown_keeps_formulas_literal(results):
    md = claims.to_markdown(list(results.values()))
    # formulas are in code spans: no asterisk of a formula is left to become emphasis
    assert "`eps = eps0*1000 = 0.001*eps0`" in md
    for line in md.splitlines():
        if line.startswith("Every claim of"):  # the paper's title, set in italics on purpose
            continue
        outside = re.sub(r"(`+).*?\1", "", line)  # drop code spans
        outside = outside.replace("\\*", "").replace("**", "")  # escaped stars, bold markers
        assert "*" not in outside, line
        assert not re.search(r"(?<!\\)\$", outside), line  # no $ left for a math parser
    # a TYPO row names the printed detail that fails instead of "0.999978 -> 0.999978" alone
    (row,) = [ln for ln in md.splitlines() if ln.startswith("| [S4.1.normal\\_R]")]
    assert "**TYPO**" in row and "printed R = mu + 3 sqrt2 sigma" in row
    # every table row has the six cells of the header (no | of a formula splits a cell)
    rows = [ln for ln in md.splitlines() if ln.startswith("| [")]
    assert len(rows) == len(results)
    for ln in rows:
        assert len(re.findall(r"(?<!\\)\|", ln)) == 7, ln


def test_markdown_renders_as_intended(results):
    """Rendered by a CommonMark parser (markdown-it, which MyST uses): the formulas come out
    as code, not emphasis."""
    markdown_it = pytest.importorskip("markdown_it")
    chosen = [results[i] for i in ("S1.rescale", "S3.2.lb_le_ub", "S4.1.worst_dfdp", "A.1D_opt",
                                    "A.ndim")]
    page = markdown_it.MarkdownIt("commonmark").enable("table").render(claims.to_markdown(chosen))
    assert page.count("<em>") == 1 and "<em>Interpreting Epsilon" in page  # only the title
    assert "<code>eps = eps0*1000 = 0.001*eps0</code>" in page
    assert "<code>p &lt;= 1-p  =&gt;  eps_lb &lt;= eps_ub</code>" in page
    assert page.count("<tr>") == len(chosen) + 1


def test_text_table_names_the_failing_check(capsys):
    assert claims.main(["--id", "S4.1.normal_R"]) == 0
    out = capsys.readouterr().out
    assert "0.999978  ->  0.999978" in out
    assert "fails: printed R = mu + 3 sqrt2 sigma" in out


def test_table_command(capsys):
    assert claims.main(["--id", "S6.salary_p"]) == 0
    out = capsys.readouterr().out
    assert "S6.salary_p" in out and "WRONG" in out and "1 claims: 0 CONFIRMED, 0 TYPO, 1 WRONG" in out
    assert claims.main(["--id", "nope"]) == 2


def test_write_report(tmp_path, results):
    line = claims.write_report(tmp_path, list(results.values()))
    md = (tmp_path / "claims.md").read_text(encoding="utf-8")
    page = (tmp_path / "claims.html").read_text(encoding="utf-8")
    counts = claims.summary(list(results.values()))
    assert f"{counts['CONFIRMED']} CONFIRMED, {counts['TYPO']} TYPO, {counts['WRONG']} WRONG" in line
    for claim_id in EXPECTED:
        assert f"## {claim_id}" in md
        assert claim_id in page
    assert "<style>" in page and "<script" not in page and "http" not in page
    assert json.loads((tmp_path / "claims.json").read_text(encoding="utf-8"))


def test_theorem2_printed_counterexample_recomputed():
    """T2.printed_unsound: the printed eps_k (s = 0.08, delta = 0.1, a = 4) and the exact
    posterior p / (p + (1 - p) e^{-4 eps}) for outputs y <= 0, typed here."""
    s, d = 0.08, 0.1
    eps = -math.log(s / (1 - s) * (1 / (d + s) - 1)) / 4
    p = 1 - (1 - s) ** 2
    post = p / (p + (1 - p) * math.exp(-4 * eps))
    assert post > p + d
    res = claims.check_claim("T2.printed_unsound")
    assert res.verdict == "WRONG"
    assert res.evidence.computed == pytest.approx(post - p, rel=1e-9)


def test_report_renders_the_same_from_its_json(results, tmp_path):
    """claims.json holds everything the other formats show."""
    from garesearch.app import claims_report

    chosen = [results[i] for i in ("S1.rescale", "S4.1.normal_R", "S6.salary_p")]
    records = json.loads(claims.to_json(chosen))["claims"]
    assert claims_report.to_markdown(records) == claims.to_markdown(chosen)
    assert claims_report.to_html(records) == claims.to_html(chosen)
    assert claims_report.to_text(records) == claims.to_text(chosen)
    myst = claims_report.to_markdown(records, targets="myst")
    assert "(claim-s1-rescale)=\n## S1.rescale" in myst and "<a id=" not in myst


# ------------------------------------------------------------------------------------------
# the docstring examples of the paper's sections, the claims and the derivations run
# ------------------------------------------------------------------------------------------
_DOCTESTED = (
    "garesearch.paper", "garesearch.paper.printed", "garesearch.paper.examples",
    "garesearch.paper._claim", "garesearch.paper._proof", *(f"garesearch.paper.{s}" for s in paper.SECTION_NAMES),
    "garesearch.claims", "garesearch.claims.registry", "garesearch.claims.verify",
    "garesearch.claims.cli", "garesearch.claims.plots", "garesearch.derivations",
    "garesearch.radius", "garesearch.lambertw", "garesearch.app.readme_numbers", "garesearch.app.claims_report",
)


@pytest.mark.parametrize("module", _DOCTESTED)
def test_docstring_examples_run(module, capsys):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0, capsys.readouterr().out
