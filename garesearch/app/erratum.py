r"""The paper's erratum, generated from the claims registry: every WRONG or TYPO claim with
the printed statement, the correction, the evidence and where its derivation lives.

Not in the paper: a view of :mod:`garesearch.claims` (all sections of the paper) written for
its readers.  Nothing in it is typed in: each entry is a checked claim whose verdict is
WRONG (the printed result does not follow) or TYPO (the result holds, a printed expression,
index, word or intermediate value does not), in report order, with

- the statement as printed and the paper's value,
- the correction (the claim's explanation) and the value garesearch computes,
- the evidence: the checks that fail, with both computed sides, and the sympy derivations the
  claim names, with the printed formula of each refuted one,
- a pointer to the derivation: the module of :mod:`garesearch.paper` that holds the claim, the
  command that re-checks it and the notebook that walks through it.

:func:`to_latex` writes a stand-alone LaTeX document (``output/erratum.tex``; plain text is
escaped, formulas from sympy go into math mode), :func:`to_markdown` the same as Markdown
(``output/erratum.md``, and the documentation site's page).  No TeX engine is needed to write
them; :func:`build_pdf` compiles the ``.tex`` with ``latexmk`` or ``pdflatex`` where one is
installed.  ``python -m garesearch erratum [--output DIR] [--claims-json FILE] [--pdf]``
writes both files (``make erratum`` also the PDF, if it can).

Both can be made from a ``claims.json`` written earlier (:func:`garesearch.claims.write_report`),
without checking the claims again.

Examples
--------
>>> latex_escape("p_1 + 50% & #2 {x}")
'p\\_1 + 50\\% \\& \\#2 \\{x\\}'
>>> NOTEBOOKS["sec6_salary_ships"]
'06_worked_examples'
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from . import claims_report
from ._commands import OneLineParser

__all__ = [
    "CORRECTED",
    "NOTEBOOKS",
    "build_pdf",
    "erratum_records",
    "latex_escape",
    "main",
    "pointer",
    "to_latex",
    "to_markdown",
    "write",
]

#: the verdicts an erratum lists, in the order of its sections
CORRECTED = ("WRONG", "TYPO")

#: the notebook that walks through each part of the paper (module of :mod:`garesearch.paper`)
NOTEBOOKS = {
    "sec3_posterior": "02_posterior_bound",
    "sec4_1_comparison_set": "03_one_attribute",
    "sec4_1_worst_prior": "03_one_attribute",
    "sec4_2_events": "04_and_or_events",
    "sec5_composition": "05_multiple_outputs",
    "sec6_cats": "06_worked_examples",
    "sec6_salary_ships": "06_worked_examples",
    "appA_radius": "07_optimal_radius_lambert",
    "appA1_noise": "08_noise_and_approx_dp",
    "appB_approx_dp": "08_noise_and_approx_dp",
    "beyond_pointwise": "14_pointwise_bound",
}

_TITLE = ("Interpreting Epsilon of Differential Privacy in Terms of Advantage in Guessing or "
          "Approximating Sensitive Attributes")
_HEADINGS = {
    "WRONG": ("Results that do not follow as printed",
              "The printed result does not follow; the correction gives the result that does."),
    "TYPO": ("Misprints",
             "The result holds, but a printed expression, index, word or intermediate value is wrong."),
}

# ------------------------------------------------------------------------------------------
# Records
# ------------------------------------------------------------------------------------------
_DERIVATION_CACHE: dict[str, Any] = {}


def _derivation(name: str):
    """The record of a sympy derivation (checked once per process)."""
    if name not in _DERIVATION_CACHE:
        from ..claims.registry import derivation_record

        _DERIVATION_CACHE[name] = derivation_record(name)
    return _DERIVATION_CACHE[name]


def pointer(claim_id: str) -> dict[str, Any]:
    """Where a claim is derived: the module of :mod:`garesearch.paper` that holds it, the
    command that re-checks it, the notebook that walks through it and the sympy derivations
    it names (each with its module and status).

    Parameters
    ----------
    claim_id : str
        A claim id of :func:`garesearch.claims.claim_ids`.

    Returns
    -------
    dict
        ``module``, ``command``, ``notebook``, ``derivations`` (a list of dicts: ``name``,
        ``kind``, ``module``, ``status``).

    Raises
    ------
    ParameterError
        If no claim has this id.

    Examples
    --------
    >>> p = pointer("S6.salary_p")
    >>> p["module"], p["notebook"], p["command"]
    ('garesearch.paper.sec6_salary_ships', '06_worked_examples', 'python -m garesearch claims --id S6.salary_p')
    """
    from .. import paper

    claims = paper.registered_claims()
    if claim_id not in claims:
        raise ParameterError(f"claim_id: unknown claim {claim_id!r}; see garesearch.claims.claim_ids()")
    c = claims[claim_id]
    module = c.func.__module__
    functions = paper.registered_derivations()
    derivations = []
    for name, kind in c.derivations:
        rec = _derivation(name)
        derivations.append({"name": name, "kind": kind, "module": functions[name].__module__,
                            "status": str(rec.status)})
    return {
        "module": module,
        "command": f"python -m garesearch claims --id {claim_id}",
        "notebook": NOTEBOOKS.get(module.rsplit(".", 1)[-1], "09_claims_report"),
        "derivations": derivations,
    }


def erratum_records(results: Sequence | None = None) -> list[dict[str, Any]]:
    """The claims an erratum lists: every WRONG claim, then every TYPO claim (report order
    within each), as the JSON records of :func:`garesearch.app.claims_report.claim_record` with a
    ``pointer`` (:func:`pointer`) and the ``refuted`` derivations' printed formulas.

    Parameters
    ----------
    results : sequence of ClaimResult or of their JSON records, optional
        Default: every claim, checked now (:func:`garesearch.claims.check_all`).

    Returns
    -------
    list of dict

    Examples
    --------
    >>> from garesearch.claims import check_claim
    >>> recs = erratum_records([check_claim("S6.salary_p"), check_claim("S6.ships_p")])
    >>> [r["id"] for r in recs], recs[0]["verdict"]
    (['S6.salary_p'], 'WRONG')
    """
    if results is None:
        from ..claims import check_all

        results = check_all()
    records = [r if isinstance(r, dict) else claims_report.claim_record(r) for r in results]
    out = []
    for verdict in CORRECTED:
        for r in records:
            if r["verdict"] != verdict:
                continue
            p = pointer(r["id"])
            refuted = [
                {"name": d["name"], "latex": _derivation(d["name"]).latex,
                 "location": _derivation(d["name"]).location}
                for d in p["derivations"] if d["status"] == "refuted"
            ]
            out.append({**r, "pointer": p, "refuted": refuted})
    return out


# ------------------------------------------------------------------------------------------
# LaTeX
# ------------------------------------------------------------------------------------------
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "\n": " ",
    "\r": " ",
}
#: characters beyond ASCII that the claims' texts may use, in LaTeX that pdflatex reads
_LATEX_UNICODE = {
    "≤": r"\ensuremath{\le}", "≥": r"\ensuremath{\ge}", "≠": r"\ensuremath{\ne}",
    "≈": r"\ensuremath{\approx}", "∞": r"\ensuremath{\infty}", "√": r"\ensuremath{\surd}",
    "·": r"\ensuremath{\cdot}", "×": r"\ensuremath{\times}", "−": "-", "→": r"\ensuremath{\to}",
    "∈": r"\ensuremath{\in}", "±": r"\ensuremath{\pm}", "–": "--", "—": "---",
    "ε": r"\ensuremath{\varepsilon}", "δ": r"\ensuremath{\delta}", "σ": r"\ensuremath{\sigma}",
    "μ": r"\ensuremath{\mu}", "λ": r"\ensuremath{\lambda}", "ρ": r"\ensuremath{\rho}",
    "‘": "`", "’": "'", "“": "``", "”": "''", "\u00a0": "~",
}


def latex_escape(text: Any) -> str:
    r"""Plain text for LaTeX: the ten special characters (and ``<``, ``>``, ``|``, which the
    default font encoding does not print) written as commands, line breaks as spaces, and
    characters beyond ASCII as their LaTeX (``\char`` with the code point where there is none).

    Parameters
    ----------
    text : object
        Converted with ``str``.

    Returns
    -------
    str

    Examples
    --------
    >>> latex_escape("|x - t| <= r ~ 1e-3")
    '\\textbar{}x - t\\textbar{} \\textless{}= r \\textasciitilde{} 1e-3'
    >>> latex_escape("ε ≤ 1")
    '\\ensuremath{\\varepsilon} \\ensuremath{\\le} 1'
    """
    out = []
    for ch in str(text):
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append(_LATEX_UNICODE.get(ch, f"\\char{ord(ch)}{{}}"))
    return "".join(out)


def _tt(text: Any) -> str:
    return r"\texttt{" + latex_escape(text) + "}"


def _same(value: Any, statement: str) -> bool:
    """Whether the paper's value only repeats the statement (then it is not printed twice)."""
    return " ".join(str(value).split()) == " ".join(str(statement).split())


def _sentence(text: Any) -> str:
    """``text`` ending in one full stop."""
    text = str(text).strip()
    return text if text.endswith((".", "?", "!")) else text + "."


def _check_words(c: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """A failing check: its text, and its two sides with the relation (``None`` for a
    check that is a computed truth value)."""
    if c["relation"] == "true":
        return c["text"], None, None
    rel = (f"equal to {c['digits']} decimals" if c["relation"] == "approx"
           else claims_report.RELATIONS[c["relation"]])
    return c["text"], f"{claims_report._short(c['lhs'], 80)}", f"{rel} {claims_report._short(c['rhs'], 80)}"


def _latex_item(r: dict[str, Any]) -> list[str]:
    ev, p = r["evidence"], r["pointer"]
    fails = [c for c in ev["checks"] if not c["holds"]]
    lines = [
        rf"\item \textbf{{{latex_escape(r['id'])}}} ({latex_escape(r['location'])}).",
        rf"\par\textit{{Printed:}} {_tt(r['statement'])}"
        + ("." if _same(ev["paper"], r["statement"]) else f"; the paper's value: {_tt(ev['paper'])}."),
        rf"\par\textit{{Correction:}} {latex_escape(_sentence(ev['explanation']))}",
        rf"\par\textit{{Computed:}} {_tt(ev['computed'])}.",
        rf"\par\textit{{Evidence:}} {len(fails)} of {len(ev['checks'])} checks fail:",
    ]
    for c in fails:
        text, lhs, rel = _check_words(c)
        if lhs is None:
            lines.append(rf"\par\hspace*{{1em}}\textbullet\ [{c['kind']}] {latex_escape(_sentence(text))}")
        else:
            lines.append(rf"\par\hspace*{{1em}}\textbullet\ [{c['kind']}] {latex_escape(text.rstrip('.'))}: "
                         rf"{_tt(lhs)}, {latex_escape(rel)}.")
    for d in r["refuted"]:
        lines.append(rf"\par\hspace*{{1em}}As printed ({latex_escape(d['location'])}, refuted by "
                     rf"{_tt(d['name'])}): $\displaystyle {d['latex']}$")
    derivs = ", ".join(f"{_tt(d['name'])} ({latex_escape(d['status'])})" for d in p["derivations"])
    lines.append(
        rf"\par\textit{{Derivation:}} {_tt(p['module'])}; re-check: {_tt(p['command'])}; "
        rf"notebook {_tt(p['notebook'])}"
        + (f"; sympy derivations: {derivs}" if derivs else "") + "."
    )
    return lines


def _version() -> str:
    from .. import __version__

    return __version__


def to_latex(results: Sequence | None = None) -> str:
    r"""The erratum as a stand-alone LaTeX document (``article``; pdflatex, no packages
    beyond a standard TeX installation).

    One ``\item`` per WRONG or TYPO claim (WRONG first), with the statement as printed, the
    correction, the computed value, the failing checks, the printed formulas of the refuted
    derivations (in math mode) and the pointer to the derivation.  Every other text is
    escaped (:func:`latex_escape`).  The output depends only on the claims and garesearch's
    version: no date, no path.

    Parameters
    ----------
    results : sequence of ClaimResult or of their JSON records, optional
        Default: every claim, checked now.

    Returns
    -------
    str

    Examples
    --------
    >>> from garesearch.claims import check_claim
    >>> tex = to_latex([check_claim("S6.salary_p")])
    >>> tex.count(r"\item"), tex.startswith(r"\documentclass")
    (1, True)
    """
    records = erratum_records(results)
    counts = {v: sum(r["verdict"] == v for r in records) for v in CORRECTED}
    lines = [
        r"\documentclass[11pt]{article}",
        r"\usepackage[T1]{fontenc}",
        r"\usepackage[utf8]{inputenc}",
        r"\usepackage{lmodern}",
        r"\usepackage{amsmath,amssymb}",
        r"\usepackage[margin=2.5cm]{geometry}",
        r"\usepackage[hidelinks]{hyperref}",
        r"\sloppy",
        rf"\title{{Erratum to ``{latex_escape(_TITLE)}''}}",
        r"\author{}",
        r"\date{Computed with garesearch " + latex_escape(_version()) + "}",
        r"\begin{document}",
        r"\maketitle",
        "",
        "Each entry below is a claim of the paper that garesearch checked and found wrong "
        f"({counts['WRONG']} results that do not follow as printed, {counts['TYPO']} misprints). "
        "The verdicts are computed, not typed in: a claim is WRONG when a check of its result "
        "fails, a misprint (TYPO) when its result holds but a check of a printed detail fails. "
        "For each: the statement as printed, the correction, the value computed, the checks "
        "that fail (both sides computed independently: closed forms, sympy, mpmath at 50 digits, "
        "quadrature, exact posteriors) and where the derivation is. "
        + latex_escape("Re-check any entry with `python -m garesearch claims --id ID`."),
        "",
    ]
    for verdict in CORRECTED:
        group = [r for r in records if r["verdict"] == verdict]
        if not group:
            continue
        heading, intro = _HEADINGS[verdict]
        lines += [rf"\section*{{{heading}}}", latex_escape(intro), "", r"\begin{enumerate}"]
        for r in group:
            lines += _latex_item(r)
            lines.append("")
        lines.append(r"\end{enumerate}")
        lines.append("")
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------
# Markdown
# ------------------------------------------------------------------------------------------
def to_markdown(results: Sequence | None = None, *, targets: str = "html") -> str:
    """The erratum as Markdown (the same entries as :func:`to_latex`).

    Parameters
    ----------
    results : sequence of ClaimResult or of their JSON records, optional
        Default: every claim, checked now.
    targets : {"html", "myst"}
        ``"myst"`` for the documentation site: each entry links to its section of the claims
        report page; ``"html"``: plain Markdown.

    Returns
    -------
    str

    Examples
    --------
    >>> from garesearch.claims import check_claim
    >>> md = to_markdown([check_claim("S6.salary_p")])
    >>> md.startswith("# Erratum"), "S6.salary\\\\_p" in md
    (True, True)
    """
    if targets not in ("html", "myst"):
        raise ParameterError(f"targets must be 'html' or 'myst'; got {targets!r}")
    records = erratum_records(results)
    esc, code = claims_report.md_escape, claims_report.code_span
    counts = {v: sum(r["verdict"] == v for r in records) for v in CORRECTED}
    out = [
        "# Erratum",
        "",
        f"To Laud and Pankova, *{_TITLE}*: every claim that garesearch checked and found wrong "
        f"({counts['WRONG']} results that do not follow as printed, {counts['TYPO']} misprints), "
        "generated from the claims report. The verdicts are computed, not typed in: a claim is "
        "WRONG when a check of its result fails, a misprint (TYPO) when its result holds but a "
        "check of a printed detail fails. Re-check any entry with "
        "`python -m garesearch claims --id ID`; `make erratum` writes the same as LaTeX "
        "(`output/erratum.tex`).",
        "",
    ]
    for verdict in CORRECTED:
        group = [r for r in records if r["verdict"] == verdict]
        if not group:
            continue
        heading, intro = _HEADINGS[verdict]
        out += [f"## {heading}", "", intro, ""]
        for i, r in enumerate(group, 1):
            ev, p = r["evidence"], r["pointer"]
            fails = [c for c in ev["checks"] if not c["holds"]]
            out += [
                f"### {i}. {esc(r['id'])} ({esc(r['location'])})",
                "",
                f"- **Printed:** {code(r['statement'])}"
                + ("" if _same(ev["paper"], r["statement"]) else f"; the paper's value: {code(ev['paper'])}"),
                f"- **Correction:** {esc(ev['explanation'])}",
                f"- **Computed:** {code(ev['computed'])}",
                f"- **Evidence:** {len(fails)} of {len(ev['checks'])} checks fail:",
            ]
            for c in fails:
                text, lhs, rel = _check_words(c)
                if lhs is None:
                    out.append(f"  - \\[{c['kind']}\\] {esc(text)}")
                else:
                    out.append(f"  - \\[{c['kind']}\\] {esc(text)}: {code(lhs)}, {esc(rel)}")
            for d in r["refuted"]:
                out.append(f"  - as printed ({esc(d['location'])}, refuted by {code(d['name'])}): "
                           f"${d['latex']}$")
            derivs = ", ".join(f"{code(d['name'])} ({d['status']})" for d in p["derivations"])
            where = (f"- **Derivation:** {code(p['module'])}; re-check: {code(p['command'])}; "
                     f"notebook {code(p['notebook'])}" + (f"; sympy derivations: {derivs}" if derivs else ""))
            if targets == "myst":
                where += f"; in the claims report: {{ref}}`{r['id']} <{claims_report.anchor(r['id'])}>`"
            out += [where, ""]
    return "\n".join(out)


# ------------------------------------------------------------------------------------------
# Files
# ------------------------------------------------------------------------------------------
def tex_engine() -> list[str] | None:
    """The command that compiles a ``.tex`` here: ``latexmk -pdf`` or ``pdflatex``, or
    ``None`` where neither is installed.

    Examples
    --------
    >>> tex_engine() is None or tex_engine()[0] in ("latexmk", "pdflatex")
    True
    """
    if shutil.which("latexmk"):
        return ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-quiet"]
    if shutil.which("pdflatex"):
        return ["pdflatex", "-interaction=nonstopmode", "-halt-on-error"]
    return None


def build_pdf(tex: str | Path, *, timeout: float = 300) -> Path | None:
    """Compile ``tex`` into a PDF beside it with :func:`tex_engine`; ``None`` (nothing done)
    where no TeX engine is installed.

    Parameters
    ----------
    tex : path
        The ``.tex`` file.
    timeout : float
        Seconds allowed per engine run.

    Returns
    -------
    Path or None

    Raises
    ------
    ParameterError
        If ``tex`` does not exist.
    RuntimeError
        If the engine fails (its log's last lines are in the message).
    """
    tex = Path(tex).resolve()
    if not tex.is_file():
        raise ParameterError(f"tex: no such file {str(tex)!r}")
    cmd = tex_engine()
    if cmd is None:
        return None
    env = {**os.environ, "SOURCE_DATE_EPOCH": "0", "FORCE_SOURCE_DATE": "1"}
    runs = 1 if cmd[0] == "latexmk" else 2  # pdflatex: twice, for the references
    for _ in range(runs):
        proc = subprocess.run([*cmd, tex.name], cwd=tex.parent, capture_output=True, text=True,
                              timeout=timeout, env=env, check=False)
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-20:])
            raise RuntimeError(f"{cmd[0]} failed on {tex.name} (exit {proc.returncode}):\n{tail}")
    return tex.with_suffix(".pdf")


def write(output_dir: str | Path = "output", results: Sequence | None = None, *,
          pdf: bool = False) -> list[Path]:
    """Write ``erratum.tex`` and ``erratum.md`` into ``output_dir`` (and, with ``pdf=True``,
    ``erratum.pdf`` where a TeX engine is installed: :func:`build_pdf`).

    Parameters
    ----------
    output_dir : path
    results : sequence of ClaimResult or of their JSON records, optional
        Default: every claim, checked now.
    pdf : bool
        Also compile the PDF, if possible.

    Returns
    -------
    list of Path
        The files written.

    Examples
    --------
    >>> import tempfile
    >>> from garesearch.claims import check_claim
    >>> [p.name for p in write(tempfile.mkdtemp(), [check_claim("S6.salary_p")])]
    ['erratum.tex', 'erratum.md']
    """
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    records = erratum_records(results)
    paths = [out / "erratum.tex", out / "erratum.md"]
    paths[0].write_text(to_latex(records), encoding="utf-8")
    paths[1].write_text(to_markdown(records), encoding="utf-8")
    if pdf:
        made = build_pdf(paths[0])
        if made is not None:
            paths.append(made)
    return paths


def main(argv: list[str] | None = None) -> int:
    """``python -m garesearch erratum [--output DIR] [--claims-json FILE] [--pdf]``.

    Examples
    --------
    >>> import contextlib, io, tempfile
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     status = main(["--output", tempfile.mkdtemp(), "--id", "S6.salary_p"])
    >>> status, "erratum.tex" in out.getvalue()
    (0, True)
    """
    parser = OneLineParser(
        prog="python -m garesearch erratum",
        description="Write the paper's erratum (LaTeX and Markdown) from the claims report.",
    )
    parser.add_argument("--output", default="output", help="folder for erratum.tex and erratum.md (default output)")
    parser.add_argument("--claims-json", default=None,
                        help="read the checked claims from this claims.json instead of checking them")
    parser.add_argument("--id", nargs="+", dest="ids", help="only these claim ids")
    parser.add_argument("--pdf", action="store_true",
                        help="also compile erratum.pdf with latexmk or pdflatex, if one is installed")
    args = parser.parse_args(argv)
    if args.claims_json is not None:
        try:
            results = json.loads(Path(args.claims_json).read_text(encoding="utf-8"))["claims"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ParameterError(f"--claims-json: cannot read the claims from {args.claims_json!r} ({exc})") from None
        if args.ids:
            results = [r for r in results if r.get("id") in args.ids]
    else:
        from ..claims import check_all, check_claim, claim_ids

        if args.ids:
            unknown = [i for i in args.ids if i not in claim_ids()]
            if unknown:
                raise ParameterError(f"--id: unknown claim ids {unknown}; see python -m garesearch claims")
            results = [check_claim(i) for i in args.ids]
        else:
            results = check_all()
    paths = write(args.output, results, pdf=args.pdf)
    print("written: " + ", ".join(str(p) for p in paths))
    if args.pdf and not any(p.suffix == ".pdf" for p in paths):
        print("no PDF: neither latexmk nor pdflatex is installed; erratum.tex is written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
