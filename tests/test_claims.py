"""Tests of the claims report (garesearch.claims).

The expected verdicts below are typed per claim id: they are the independent expectation, and
the registry must compute the same.  Each verdict is also recomputed here from the evidence
(with this file's own reading of the checks), and monkeypatching the computed value of a few
numeric claims shows that their verdicts follow the computation.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from fractions import Fraction

import pytest

from garesearch import attribute, bound, claims, derivations, priors

EXPECTED = {
    "S1.rescale": "TYPO",
    "S3.2.posterior": "CONFIRMED",
    "S3.2.eps_lb": "CONFIRMED",
    "S3.2.eps_ub": "CONFIRMED",
    "S3.2.lb_le_ub": "CONFIRMED",
    "S3.2.eq_main": "CONFIRMED",
    "S4.1.Xhat_def": "WRONG",
    "S4.1.uniform": "CONFIRMED",
    "S4.1.uniform_corner": "CONFIRMED",
    "S4.1.normal_R": "TYPO",
    "S4.1.worst_dfdp": "CONFIRMED",
    "S4.1.worst_crit": "TYPO",
    "S4.1.q_dfdp": "WRONG",
    "S4.1.q_crit": "WRONG",
    "S4.1.q_practice": "CONFIRMED",
    "S4.1.discrete_pprime": "TYPO",
    "S4.1.discrete_two_nearest": "WRONG",
    "T1.AND_formula": "WRONG",
    "T1.independence": "WRONG",
    "T2.OR_g(a-1)": "WRONG",
    "T2.OR_a": "WRONG",
    "T2.OR_delta_term": "TYPO",
    "S4.3.OR_example": "CONFIRMED",
    "S5.Thm_seq": "CONFIRMED",
    "S5.Thm_dual": "CONFIRMED",
    "S5.l1_linf": "CONFIRMED",
    "S6.cats_prior": "CONFIRMED",
    "S6.cats_AND_probs": "CONFIRMED",
    "S6.cats_AND_eps": "CONFIRMED",
    "S6.cats_AND_worst": "CONFIRMED",
    "S6.cats_AND_scale": "CONFIRMED",
    "S6.cats_OR_probs": "TYPO",
    "S6.cats_OR_whichbound": "TYPO",
    "S6.cats_OR_intermediate": "TYPO",
    "S6.cats_OR_eps": "CONFIRMED",
    "S6.cats_OR_worst": "WRONG",
    "S6.cats_OR_scale": "CONFIRMED",
    "S6.salary_sigma": "CONFIRMED",
    "S6.salary_cover": "CONFIRMED",
    "S6.salary_p": "WRONG",
    "S6.salary_q": "CONFIRMED",
    "S6.salary_eps": "WRONG",
    "S6.salary_rescale": "WRONG",
    "S6.salary_scale": "WRONG",
    "S6.salary_opt_a": "WRONG",
    "S6.ships_sigma": "CONFIRMED",
    "S6.ships_lowerbound": "TYPO",
    "S6.ships_p": "CONFIRMED",
    "S6.ships_q": "CONFIRMED",
    "S6.ships_eps": "WRONG",
    "S6.ships_scale": "WRONG",
    "S6.ships_opt_a": "WRONG",
    "A.1D_opt": "CONFIRMED",
    "A.lambert": "CONFIRMED",
    "A.iteration": "TYPO",
    "A.ndim": "CONFIRMED",
    "A1.laplace": "CONFIRMED",
    "A1.gencauchy_norm": "CONFIRMED",
    "A1.gencauchy_mass": "CONFIRMED",
    "A1.scaling": "TYPO",
    "B.average": "CONFIRMED",
    # the density-level premise does not follow from (eps, delta)-DP: the bound fails for a
    # mechanism meeting Def. 9 (derivations.approx_posterior_chain, and the spike test below)
    "B.chain1": "WRONG",
    "B.eps_fixed": "CONFIRMED",
    "B.adp_chain": "CONFIRMED",
    "B.laplace_subst": "CONFIRMED",
    "B.beta_bound": "CONFIRMED",
    "B.alpha_typo": "TYPO",
    "B.bprime": "CONFIRMED",
    # further claims found while checking
    "T1.exponent": "WRONG",
    "T2.block_index": "TYPO",
    "T2.blocks_disjoint": "WRONG",
    "S6.salary_worst_t": "WRONG",
    "S6.rescale_sensitivity": "WRONG",
    "S6.salary_sound": "WRONG",
    "S6.ships_sound": "WRONG",
    "B.1_d_delta": "TYPO",
    "T2.printed_unsound": "WRONG",
}


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
    assert len(set(claims.claim_ids())) == len(claims.claim_ids())
    assert set(listed) <= set(EXPECTED)


def test_registry_covers_every_claim_and_nothing_else():
    assert set(claims._REGISTRY) == set(claims.claim_ids())
    assert set(EXPECTED) == set(claims.claim_ids())


# ------------------------------------------------------------------------------------------
# verdicts: typed expectation, recomputed from the evidence
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
    import numpy as np

    best = claims._best_a("salary", "paper")
    grid = np.linspace(101, 1000, 900)
    eps = claims.epsilon_against_a("salary", grid)
    assert np.nanmax(eps) <= best.epsilon * (1 + 1e-9)
    assert np.isnan(claims.epsilon_against_a("salary", 200.0))  # a = 200 is infeasible


def test_cats_or_curve_minima():
    import numpy as np

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


def _with_status(records, name, status):
    return [dataclasses.replace(r, status=status) if r.name == name else r for r in records]


def test_patched_counterexample_changes_theorem1_verdict(monkeypatch):
    claims.clear_cache()
    monkeypatch.setattr(
        attribute, "paper_counterexample",
        lambda: {"epsilon": 0.5, "posterior": 0.25, "bound": 0.3, "advantage": 0.05},
    )
    monkeypatch.setattr(claims, "_exact_violations", list)
    # the sympy derivation refutes the exponent independently: WRONG until it is patched too
    assert claims.check_claim("T1.AND_formula").verdict == "WRONG"
    records = _with_status(derivations.all_derivations(), "and_event_distance", "proved")
    monkeypatch.setattr(claims, "_derivation_records", lambda: records)
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
def _pairs_from_records():
    return {(c, r.name) for r in derivations.all_derivations() for c in r.claims}


def test_every_derivation_naming_a_claim_is_wired():
    """Each (claim, derivation) pair of the derivation records has a decided kind, and the
    table names no pair the records do not."""
    table = {(c, name) for c, pairs in claims.DERIVATION_KINDS.items() for name, _ in pairs}
    assert table == _pairs_from_records()
    assert all(kind in ("result", "printed")
               for pairs in claims.DERIVATION_KINDS.values() for _, kind in pairs)
    for pairs in claims.DERIVATION_KINDS.values():
        assert len({name for name, _ in pairs}) == len(pairs)
    assert {c for c, _ in _pairs_from_records()} <= set(claims.claim_ids())
    assert set(claims.derivations_by_claim()) == {c for c, _ in _pairs_from_records()}


def test_derivation_checks_in_every_evidence(results):
    records = {r.name: r for r in derivations.all_derivations()}
    for claim_id, name in sorted(_pairs_from_records()):
        r = records[name]
        found = [c for c in results[claim_id].evidence.checks
                 if c.text.startswith(f"sympy derivation {name} (")]
        assert len(found) == 1, (claim_id, name)
        check = found[0]
        assert check.kind == dict(claims.DERIVATION_KINDS[claim_id])[name]
        assert check.holds == (r.status != "refuted")
        if r.status == "proved under conditions":
            assert r.conditions in check.text


def test_refuted_derivation_fails_with_its_kind(monkeypatch):
    assert claims.check_claim("S3.2.posterior").verdict == "CONFIRMED"
    records = _with_status(derivations.all_derivations(), "posterior_bound_sec32", "refuted")
    monkeypatch.setattr(claims, "_derivation_records", lambda: records)
    assert claims.check_claim("S3.2.posterior").verdict == "WRONG"
    kinds = dict(claims.DERIVATION_KINDS)
    kinds["S3.2.posterior"] = tuple((n, "printed") for n, _ in kinds["S3.2.posterior"])
    monkeypatch.setattr(claims, "DERIVATION_KINDS", kinds)
    assert claims.check_claim("S3.2.posterior").verdict == "TYPO"


def test_a_derivation_without_a_decided_kind_still_counts(monkeypatch):
    kinds = {k: v for k, v in claims.DERIVATION_KINDS.items() if k != "A1.scaling"}
    monkeypatch.setattr(claims, "DERIVATION_KINDS", kinds)
    r = claims.check_claim("A1.scaling")
    (check,) = [c for c in r.evidence.checks if c.text.startswith("sympy derivation noise_scaling")]
    assert check.kind == "result" and not check.holds
    assert r.verdict == "WRONG"


def test_spike_mechanism_breaks_the_b1_bound():
    """M(0) = U[0,1], M(1) = 0.95 U[0,1] + 0.05 U[0,0.01]: exact values with fractions."""
    sp = claims._spike_mechanism()
    assert (sp["eps"], sp["delta"], sp["h"]) == (1.0, 0.05, 0.01)
    f1 = Fraction(95, 100) + Fraction(5, 100) / Fraction(1, 100)  # 5.95 on [0, h]
    # the only set where f1 > e f0 is [0, h]; the other direction never exceeds
    excess = Fraction(1, 100) * f1 - Fraction(1, 100) * math.e
    assert sp["excess"] == pytest.approx(float(excess), rel=1e-12)
    assert sp["excess"] <= 0.05
    assert sp["posterior"] == pytest.approx(float(f1 / (f1 + 1)), rel=1e-12)  # 595/695
    assert sp["bound"] == pytest.approx(1 / (1 + 1 / (math.e + 0.05)), rel=1e-12)
    assert sp["posterior"] > sp["bound"]
    assert sp["mass"] == pytest.approx(0.0595, rel=1e-12)


def test_sequential_composition_needs_independence():
    # M1 = x xor B, M2 = B: output (1, 1) means B = 1 and x = 0
    assert claims._shared_randomness_pair() == (0.5, 0.0)


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
    # S1.rescale: a TYPO whose failing check is the printed eps0*1000; sympy's "0" is a number
    rescale = records[1]
    assert rescale["verdict"] == "TYPO" and rescale["failing"] == ["printed eps0*1000 minus 0.001*eps0"]
    sides = [(c["lhs"], c["rhs"]) for c in rescale["evidence"]["checks"]]
    assert (0, 0) in sides
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


def test_report_docstring_examples_run():
    import doctest

    from garesearch import claims_report

    result = doctest.testmod(claims_report)
    assert result.attempted >= 5 and result.failed == 0


def test_report_renders_the_same_from_its_json(results, tmp_path):
    """claims.json holds everything the other formats show."""
    from garesearch import claims_report

    chosen = [results[i] for i in ("S1.rescale", "S4.1.normal_R", "S6.salary_p")]
    records = json.loads(claims.to_json(chosen))["claims"]
    assert claims_report.to_markdown(records) == claims.to_markdown(chosen)
    assert claims_report.to_html(records) == claims.to_html(chosen)
    assert claims_report.to_text(records) == claims._table(chosen)
    myst = claims_report.to_markdown(records, targets="myst")
    assert "(claim-s1-rescale)=\n## S1.rescale" in myst and "<a id=" not in myst
