"""The erratum (garesearch.app.erratum) generated from the claims registry: one entry per WRONG or
TYPO claim, valid LaTeX (balanced braces and environments, no unescaped special character
outside math), the same entries in Markdown, and the PDF where a TeX engine is installed."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from garesearch import claims
from garesearch.app import erratum

# the claims' cached computations are shared by these modules: one worker runs them all
pytestmark = pytest.mark.xdist_group("claims")


@pytest.fixture(scope="module")
def results():
    return claims.check_all()


@pytest.fixture(scope="module")
def tex(results):
    return erratum.to_latex(results)


def _expected(results) -> int:
    counts = claims.summary(results)  # from the registry's verdicts, not from the erratum
    return counts["WRONG"] + counts["TYPO"]


def _braces_balanced(text: str) -> bool:
    depth, i = 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":  # a command or an escaped character (\{, \}, \%, \\): skip it
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


def _environments_balanced(text: str) -> bool:
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{([^}]*)\}", text):
        if kind == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


def _outside_math(text: str) -> str:
    """``text`` with every ``$...$`` (unescaped dollars) removed; fails on an odd count."""
    parts = re.split(r"(?<!\\)\$", text)
    assert len(parts) % 2 == 1, "unbalanced $"
    return "".join(parts[::2])


def test_one_item_per_wrong_or_typo_claim(results, tex):
    n = _expected(results)
    assert n > 0
    assert len(re.findall(r"\\item\b", tex)) == n
    ids = [r.id for r in results if r.verdict in ("WRONG", "TYPO")]
    for claim_id in ids:
        assert f"\\textbf{{{erratum.latex_escape(claim_id)}}}" in tex
    confirmed = [r.id for r in results if r.verdict == "CONFIRMED"]
    assert not any(f"\\textbf{{{erratum.latex_escape(i)}}}" in tex for i in confirmed)


def test_the_latex_is_balanced(tex):
    assert tex.startswith("\\documentclass") and tex.rstrip().endswith("\\end{document}")
    assert _braces_balanced(tex)
    assert _environments_balanced(tex)
    assert tex.count("\\begin{enumerate}") == 2  # WRONG, then TYPO


def test_no_unescaped_special_character_outside_math(tex):
    body = _outside_math(tex)
    bad = re.findall(r"(?<!\\)[%#&_]", body)
    assert not bad, f"unescaped: {bad[:10]}"
    assert not re.search(r"(?<!\\)[\^~](?!\{\})", body.replace("\\textasciicircum{}", "")
                         .replace("\\textasciitilde{}", "").replace("\\hspace*", ""))
    assert all(ord(ch) < 128 for ch in tex)  # pdflatex reads it whatever the input encoding


def test_latex_escape_leaves_nothing_special():
    nasty = "a_b % c # d & e $ f { g } h \\ i ^ j ~ k < l > m | n"
    out = erratum.latex_escape(nasty)
    assert _braces_balanced(out)
    assert not re.findall(r"(?<!\\)[%#&_$]", out)
    assert "\\textbackslash{}" in out and "\\textbar{}" in out
    assert erratum.latex_escape("ε ≤ 1 ☃") == "\\ensuremath{\\varepsilon} \\ensuremath{\\le} 1 \\char9731{}"


def test_wrong_before_typo_and_each_entry_points_to_its_derivation(results, tex):
    first_typo = tex.index("\\section*{Misprints}")
    wrong = [r.id for r in results if r.verdict == "WRONG"]
    typo = [r.id for r in results if r.verdict == "TYPO"]
    assert all(tex.index(f"--id {erratum.latex_escape(i)}}}") < first_typo for i in wrong)
    assert all(tex.index(f"--id {erratum.latex_escape(i)}}}") > first_typo for i in typo)
    assert tex.count("\\textit{Derivation:}") == len(wrong) + len(typo)
    # S6.salary_p: the prior at t = mu is erf(100 / (235.7 sqrt 2)) = 0.3286, not 0.42
    assert "0.3286" in tex.split("S6.salary\\_p}")[1].split("\\item")[0]


def test_markdown_has_the_same_entries(results):
    md = erratum.to_markdown(results)
    assert len(re.findall(r"^### \d+\. ", md, re.M)) == _expected(results)
    assert md.count("- **Derivation:**") == _expected(results)
    myst = erratum.to_markdown(results, targets="myst")
    assert myst.count("{ref}`S6.salary_p <claim-s6-salary-p>`") == 1
    with pytest.raises(erratum.ParameterError, match="targets"):
        erratum.to_markdown(results, targets="pdf")


def test_every_section_module_has_a_notebook():
    from garesearch import paper
    from garesearch.app import readme_numbers

    assert set(erratum.NOTEBOOKS) == set(paper.SECTION_NAMES)
    assert set(erratum.NOTEBOOKS.values()) <= set(readme_numbers.notebook_names())


def test_from_claims_json_without_checking_again(tmp_path):
    one = [claims.check_claim("S6.salary_p"), claims.check_claim("S6.ships_p")]
    claims.write_report(tmp_path, one)
    assert erratum.main(["--output", str(tmp_path / "out"), "--claims-json", str(tmp_path / "claims.json")]) == 0
    tex = (tmp_path / "out" / "erratum.tex").read_text(encoding="utf-8")
    assert tex.count("\\item") == 1 and "S6.salary\\_p" in tex and "S6.ships" not in tex
    records = json.loads((tmp_path / "claims.json").read_text(encoding="utf-8"))["claims"]
    assert erratum.to_latex(records) == erratum.to_latex(one)  # records and objects agree
    with pytest.raises(erratum.ParameterError, match="--claims-json"):
        erratum.main(["--output", str(tmp_path), "--claims-json", str(tmp_path / "missing.json")])
    with pytest.raises(erratum.ParameterError, match="--id"):
        erratum.main(["--output", str(tmp_path), "--id", "no.such.claim"])


@pytest.mark.slow
@pytest.mark.skipif(erratum.tex_engine() is None, reason="no latexmk or pdflatex installed")
def test_the_pdf_compiles(tmp_path, results):
    paths = erratum.write(tmp_path, results, pdf=True)
    pdf = tmp_path / "erratum.pdf"
    assert pdf in paths and pdf.read_bytes().startswith(b"%PDF")
    assert shutil.which("latexmk") or shutil.which("pdflatex")
