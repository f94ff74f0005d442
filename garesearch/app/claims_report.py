r"""The claims report as text, Markdown, HTML and JSON.

Not in the paper: how the verdicts of :mod:`garesearch.claims` are written out.  This module
reads each checked claim only through its public attributes (``id``, ``location``,
``statement``, ``origin``, ``verdict``, ``evidence.paper``, ``evidence.computed``,
``evidence.explanation`` and ``evidence.checks``; each check's ``text``, ``kind``, ``op``,
``lhs``, ``rhs``, ``digits`` and ``holds``), so it works for any object that has them.

- **Markdown** (:func:`to_markdown`): formulas (the printed and computed values, both sides of
  every check, the statement) go into code spans, and the prose is escaped, so that no ``*``,
  ``_``, ``|`` or ``$`` of a formula turns into emphasis, a table border or math.
- **JSON** (:func:`to_json`): the summary counts and, for each claim, its evidence: the
  printed and computed values, the explanation and every check with both sides, the relation,
  the kind, the tolerance and the outcome.  Numbers are JSON numbers (a numeric string such as
  sympy's ``"0"`` too); a value that is not a finite number stays a string (``"inf"``, a
  formula).
- **Failing checks**: a claim that is not CONFIRMED lists the checks that fail in every
  format, so a TYPO row shows which printed detail is wrong (the printed and the computed value
  may well agree: the number is right, its printed derivation is not).

Every format is rendered from the JSON records (:func:`claim_record`), so the text, Markdown
and HTML can also be made from a ``claims.json`` written earlier (``make docs`` does that).
"""

from __future__ import annotations

import html
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "RELATIONS",
    "VERDICTS",
    "check_record",
    "claim_record",
    "code_span",
    "failing_checks",
    "json_value",
    "md_escape",
    "report_record",
    "summary_counts",
    "summary_line",
    "to_html",
    "to_json",
    "to_markdown",
    "to_text",
]

VERDICTS = ("CONFIRMED", "TYPO", "WRONG")

#: how each relation of a check reads (``lhs`` is the computed side, ``rhs`` the other)
RELATIONS = {
    "approx": "equal to the printed decimals",
    "close": "equal (relative 1e-9)",
    "eq": "equal",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "true": "holds",
}

_PAPER = ("Laud and Pankova, *Interpreting Epsilon of Differential Privacy in Terms of Advantage "
          "in Guessing or Approximating Sensitive Attributes*")


# ------------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------------
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def json_value(x: Any) -> Any:
    """A value as JSON has it: a finite number as a number, a boolean as a boolean.

    Numeric strings (sympy prints a simplified ``0`` as ``"0"``) become numbers; infinities,
    NaN and formulas stay strings.

    Parameters
    ----------
    x : object
        A printed or computed value, or one side of a check.

    Returns
    -------
    bool, int, float, str or None

    Examples
    --------
    >>> [json_value(v) for v in (0.5, "0", "-3/2", float("inf"), True, None)]
    [0.5, 0, '-3/2', 'inf', True, None]
    """
    if x is None or isinstance(x, (bool, np.bool_)):
        return None if x is None else bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, str):
        s = x.strip()
        if _NUMBER.match(s):
            v = float(s)
            return int(v) if re.fullmatch(r"[+-]?\d+", s) and abs(v) < 2**53 else v
        return x
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    return v if math.isfinite(v) else str(v)


def _short(x: Any, width: int = 60) -> str:
    if isinstance(x, (float, np.floating)):
        s = f"{float(x):.6g}"
    else:
        s = str(x)
    return s if len(s) <= width else s[: width - 3] + "..."


# ------------------------------------------------------------------------------------------
# Records
# ------------------------------------------------------------------------------------------
def _tolerance(check) -> dict[str, float] | None:
    if check.op == "approx":
        return {"abs": 0.5 * 10.0 ** (-check.digits)}
    if check.op == "close":
        return {"rel": 1e-9, "abs": 1e-12}
    return None


def check_record(check) -> dict[str, Any]:
    """One check as a JSON record: ``text, kind, relation, lhs, rhs, digits, tolerance, holds``.

    Parameters
    ----------
    check : garesearch.claims.Check
        Or any object with the same attributes.

    Returns
    -------
    dict

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> check = NS(text="Pr[|X - t| <= r]", kind="result", op="approx", lhs=0.3286, rhs=0.42,
    ...            digits=2, holds=False)
    >>> rec = check_record(check)
    >>> rec["relation"], rec["tolerance"], rec["holds"]
    ('approx', {'abs': 0.005}, False)
    """
    return {
        "text": check.text,
        "kind": check.kind,
        "relation": check.op,
        "lhs": json_value(check.lhs),
        "rhs": json_value(check.rhs),
        "digits": check.digits,
        "tolerance": _tolerance(check),
        "holds": bool(check.holds),
    }


def failing_checks(result) -> list:
    """The checks of a claim that fail (empty for a CONFIRMED claim).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> ok, bad = NS(holds=True), NS(holds=False)
    >>> failing_checks(NS(evidence=NS(checks=(ok, bad)))) == [bad]
    True
    """
    return [c for c in result.evidence.checks if not c.holds]


def claim_record(result) -> dict[str, Any]:
    """One claim as a JSON record: where it is, the verdict and its evidence.

    Parameters
    ----------
    result : garesearch.claims.ClaimResult
        Or any object with the same attributes.

    Returns
    -------
    dict
        ``id, location, statement, origin, verdict, failing`` (the texts of the failing
        checks) and ``evidence``: ``paper, computed, explanation, checks``.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> check = NS(text="p", kind="result", op="approx", lhs=0.3286, rhs=0.42, digits=2, holds=False)
    >>> claim = NS(id="S6.salary_p", location="Sec. 6.2", statement="p ~ 0.42", origin="list",
    ...            verdict="WRONG", evidence=NS(paper=0.42, computed=0.3286, explanation="erf",
    ...                                         checks=(check,)))
    >>> rec = claim_record(claim)
    >>> rec["id"], rec["verdict"], len(rec["evidence"]["checks"])
    ('S6.salary_p', 'WRONG', 1)
    """
    ev = result.evidence
    return {
        "id": result.id,
        "location": result.location,
        "statement": result.statement,
        "origin": result.origin,
        "verdict": result.verdict,
        "failing": [c.text for c in failing_checks(result)],
        "evidence": {
            "paper": json_value(ev.paper),
            "computed": json_value(ev.computed),
            "explanation": ev.explanation,
            "checks": [check_record(c) for c in ev.checks],
        },
    }


def _records(results: Iterable) -> list[dict[str, Any]]:
    """Checked claims (objects) or their JSON records, as records."""
    return [r if isinstance(r, dict) else claim_record(r) for r in results]


def summary_counts(results: Iterable) -> dict[str, Any]:
    """How many claims got each verdict, in all and in the paper's own claims list.

    Returns
    -------
    dict
        ``{"claims": n, "CONFIRMED": ..., "TYPO": ..., "WRONG": ...,
        "paper_list": {"claims": m, "CONFIRMED": ..., ...}}``.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> def claim(i, verdict, origin="list"):
    ...     return NS(id=i, location="", statement="", origin=origin, verdict=verdict,
    ...               evidence=NS(paper=None, computed=None, explanation="", checks=()))
    >>> s = summary_counts([claim("a", "CONFIRMED"), claim("b", "WRONG", "added")])
    >>> s["claims"], s["CONFIRMED"], s["WRONG"], s["paper_list"]["claims"]
    (2, 1, 1, 1)
    """
    records = _records(results)

    def counts(rs):
        c = Counter(r["verdict"] for r in rs)
        return {"claims": len(rs), **{v: c.get(v, 0) for v in VERDICTS}}

    return {**counts(records), "paper_list": counts([r for r in records if r["origin"] == "list"])}


def summary_line(results: Sequence) -> str:
    """One line: how many claims are CONFIRMED, TYPO and WRONG (all, and the paper's list).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> def claim(i, verdict):
    ...     return NS(id=i, location="", statement="", origin="list", verdict=verdict,
    ...               evidence=NS(paper=None, computed=None, explanation="", checks=()))
    >>> summary_line([claim("a", "CONFIRMED"), claim("b", "TYPO")]).split(" (")[0]
    '2 claims: 1 CONFIRMED, 1 TYPO, 0 WRONG'
    """
    s = summary_counts(results)
    sl = s["paper_list"]
    return (
        f"{s['claims']} claims: {s['CONFIRMED']} CONFIRMED, {s['TYPO']} TYPO, {s['WRONG']} WRONG "
        f"(of the paper's list of {sl['claims']}: {sl['CONFIRMED']} CONFIRMED, {sl['TYPO']} TYPO, "
        f"{sl['WRONG']} WRONG)"
    )


def report_record(results: Sequence) -> dict[str, Any]:
    """The whole report as one JSON object: ``paper``, ``verdicts``, ``summary``, ``claims``.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> claim = NS(id="a", location="", statement="", origin="list", verdict="CONFIRMED",
    ...            evidence=NS(paper=None, computed=None, explanation="", checks=()))
    >>> sorted(report_record([claim]))
    ['claims', 'paper', 'summary', 'verdicts']
    """
    results = _records(results)
    return {
        "paper": _PAPER.replace("*", ""),
        "verdicts": {
            "CONFIRMED": "holds as printed",
            "TYPO": "the result holds but a printed expression, index, word or intermediate "
                    "value is wrong",
            "WRONG": "the printed result does not follow",
        },
        "summary": summary_counts(results),
        "claims": results,
    }


def to_json(results: Sequence, *, indent: int | None = 1) -> str:
    """The report as JSON (:func:`report_record`); strictly valid JSON (no NaN/Infinity).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> check = NS(text="Pr[|X - t| <= r]", kind="result", op="approx", lhs=0.3286, rhs=0.42,
    ...            digits=2, holds=False)
    >>> claim = NS(id="S6.salary_p", location="Sec. 6.2", statement="p ~ 0.42", origin="list",
    ...            verdict="WRONG", evidence=NS(paper=0.42, computed=0.3286,
    ...                                         explanation="erf(0.3)", checks=(check,)))
    >>> data = json.loads(to_json([claim]))
    >>> data["summary"]["WRONG"], data["claims"][0]["evidence"]["checks"][0]["tolerance"]
    (1, {'abs': 0.005})
    """
    return json.dumps(report_record(results), indent=indent, ensure_ascii=False, allow_nan=False)


# ------------------------------------------------------------------------------------------
# Text
# ------------------------------------------------------------------------------------------
def _rel(c: dict[str, Any]) -> str:
    return f"equals to {c['digits']} decimals" if c["relation"] == "approx" else RELATIONS[c["relation"]]


def _check_text(c: dict[str, Any], width: int = 40) -> str:
    if c["relation"] == "true":
        return f"{c['text']}: {'holds' if c['holds'] else 'fails'}"
    rel = f"approx({c['digits']} decimals)" if c["relation"] == "approx" else c["relation"]
    return f"{c['text']}: {_short(c['lhs'], width)} {rel} {_short(c['rhs'], width)}"


def _failing(r: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in r["evidence"]["checks"] if not c["holds"]]


def to_text(results: Sequence) -> str:
    """The report as a plain-text table; a claim that is not CONFIRMED also names its first
    failing check.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> claim = NS(id="S6.cats_and", location="Sec. 6.1", statement="eps = 0.539", origin="list",
    ...            verdict="CONFIRMED", evidence=NS(paper=0.539, computed=0.539, explanation="Eq. (main)",
    ...                                             checks=()))
    >>> "S6.cats_and" in to_text([claim])
    True
    """
    records = _records(results)
    lines = [f"{'id':<26} {'verdict':<9}  paper  ->  computed"]
    for r in records:
        ev = r["evidence"]
        lines.append(f"{r['id']:<26} {r['verdict']:<9}  {_short(ev['paper'], 40)}  ->  "
                     f"{_short(ev['computed'], 50)}")
        fails = _failing(r)
        if fails:
            more = f" (and {len(fails) - 1} more)" if len(fails) > 1 else ""
            lines.append(f"{'':<26} {'':<9}  fails: {_short(_check_text(fails[0], 24), 100)}{more}")
    lines += ["", summary_line(records)]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------
# Markdown
# ------------------------------------------------------------------------------------------
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|$~])")


def md_escape(text: Any) -> str:
    r"""Prose for Markdown: every character that Markdown (or MyST's math) would interpret is
    backslash-escaped, and line breaks become spaces.

    Examples
    --------
    >>> md_escape("eps0*1000 and |x - t| <= r_i, $5")
    'eps0\\*1000 and \\|x - t\\| \\<= r\\_i, \\$5'
    """
    return _MD_SPECIAL.sub(r"\\\1", str(text).replace("\r", " ").replace("\n", " "))


def code_span(text: Any, *, in_table: bool = False) -> str:
    """A value or formula as a Markdown code span (its characters are shown as they are).

    Inside a table a ``|`` still ends the cell, so there it is written ``\\|`` (GFM).

    Examples
    --------
    >>> code_span("eps0*1000")
    '`eps0*1000`'
    >>> code_span("a`b")
    '``a`b``'
    """
    s = str(text).replace("\r", " ").replace("\n", " ")
    if in_table:
        s = s.replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ")) else ""
    return f"{fence}{pad}{s}{pad}{fence}" if s else ""


def _md_check(c: dict[str, Any]) -> str:
    mark = "holds" if c["holds"] else "**FAILS**"
    if c["relation"] == "true":
        return f"- \\[{c['kind']}\\] {md_escape(c['text'])} → {mark}"
    return (f"- \\[{c['kind']}\\] {md_escape(c['text'])}: {code_span(_short(c['lhs'], 80))} "
            f"{_rel(c)} {code_span(_short(c['rhs'], 80))} → {mark}")


def anchor(claim_id: str) -> str:
    """The HTML anchor of a claim's section (``claim-s6-salary-p``)."""
    return "claim-" + "".join(ch if ch.isalnum() else "-" for ch in claim_id.lower())


def to_markdown(results: Sequence, *, details: bool = True, targets: str = "html") -> str:
    """The report as Markdown: a summary, a table, and (``details=True``) one section per
    claim with its explanation and checks.

    The table's last column names what fails: for a TYPO, the printed detail that is wrong.

    Parameters
    ----------
    results : sequence of ClaimResult or of their JSON records
    details : bool
        Add one section per claim.
    targets : {"html", "myst"}
        How a claim's section is made a link target: ``<a id="...">`` (any Markdown
        renderer) or MyST's ``(label)=`` (for the documentation site).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> claim = NS(id="S6.cats_and", location="Sec. 6.1", statement="eps = 0.539", origin="list",
    ...            verdict="CONFIRMED", evidence=NS(paper=0.539, computed=0.539, explanation="Eq. (main)",
    ...                                             checks=()))
    >>> "S6.cats_and" in to_markdown([claim])
    True
    """
    if targets not in ("html", "myst"):
        raise ValueError(f"targets must be 'html' or 'myst'; got {targets!r}")
    records = _records(results)
    out = [
        "# Claims report",
        "",
        f"Every claim of {_PAPER}, checked by garesearch. CONFIRMED: holds as printed; TYPO: the "
        "result holds but a printed expression, index, word or intermediate value is wrong; "
        "WRONG: the printed result does not follow. Each verdict is computed from the checks "
        "listed under the claim.",
        "",
        f"**{summary_line(records)}**",
        "",
        "| id | location | verdict | paper | computed | what fails |",
        "|---|---|---|---|---|---|",
    ]
    for r in records:
        ev = r["evidence"]
        failing = _failing(r)
        fails = md_escape(_short(failing[0]["text"], 90)) if failing else ""
        if len(failing) > 1:
            fails += f" (and {len(failing) - 1} more)"
        link = f"#{anchor(r['id'])}"
        out.append(
            f"| [{md_escape(r['id'])}]({link}) | {md_escape(r['location'])} | **{r['verdict']}** | "
            f"{code_span(_short(ev['paper'], 50), in_table=True)} | "
            f"{code_span(_short(ev['computed'], 60), in_table=True)} | {fails} |"
        )
    out.append("")
    if not details:
        return "\n".join(out)
    for r in records:
        ev = r["evidence"]
        added = " (claim added while checking)" if r["origin"] == "added" else ""
        target = (["", f"<a id=\"{anchor(r['id'])}\"></a>"] if targets == "html"
                  else [])
        heading = ([f"## {r['id']}"] if targets == "html"
                   else [f"({anchor(r['id'])})=", f"## {md_escape(r['id'])}"])
        out += [
            *heading,
            *target,
            "",
            f"- **Location:** {md_escape(r['location'])}",
            f"- **The paper says:** {code_span(r['statement'])}",
            f"- **Paper's value:** {code_span(ev['paper'])}",
            f"- **garesearch computes:** {code_span(ev['computed'])}",
            f"- **Verdict:** **{r['verdict']}**{added}",
            "",
            md_escape(ev["explanation"]),
            "",
            "Checks:",
            "",
            *(_md_check(c) for c in ev["checks"]),
            "",
        ]
    return "\n".join(out)


# ------------------------------------------------------------------------------------------
# HTML
# ------------------------------------------------------------------------------------------
_CSS = """
body { font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em;
       line-height: 1.45; color: #222; }
table { border-collapse: collapse; width: 100%; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.5em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
.CONFIRMED { background: #e3f4e1; } .TYPO { background: #fff4d6; } .WRONG { background: #fbe0e0; }
.v { font-weight: bold; } code { font-size: 0.95em; }
section { border-top: 1px solid #ddd; margin-top: 1.5em; }
ul.checks { font-size: 0.9em; color: #444; }
"""


def _html_check(c: dict[str, Any]) -> str:
    e = html.escape
    mark = "holds" if c["holds"] else "<b>fails</b>"
    if c["relation"] == "true":
        return f"<li>[{c['kind']}] {e(c['text'])} &rarr; {mark}</li>"
    return (f"<li>[{c['kind']}] {e(c['text'])}: <code>{e(_short(c['lhs'], 80))}</code> "
            f"{e(_rel(c))} <code>{e(_short(c['rhs'], 80))}</code> &rarr; {mark}</li>")


def to_html(results: Sequence) -> str:
    """The report as one self-contained HTML page (inline CSS, no scripts).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> claim = NS(id="S6.cats_and", location="Sec. 6.1", statement="eps = 0.539", origin="list",
    ...            verdict="CONFIRMED", evidence=NS(paper=0.539, computed=0.539, explanation="Eq. (main)",
    ...                                             checks=()))
    >>> page = to_html([claim])
    >>> page.lstrip().lower().startswith("<!doctype html>"), "S6.cats_and" in page
    (True, True)
    """
    e = html.escape
    records = _records(results)
    rows = "\n".join(
        f"<tr class='{r['verdict']}'><td><a href='#{anchor(r['id'])}'>{e(r['id'])}</a></td>"
        f"<td>{e(r['location'])}</td><td class='v'>{r['verdict']}</td>"
        f"<td><code>{e(_short(r['evidence']['paper'], 60))}</code></td>"
        f"<td><code>{e(_short(r['evidence']['computed'], 70))}</code></td>"
        f"<td>{'; '.join(e(c['text']) for c in _failing(r))}</td></tr>"
        for r in records
    )
    sections = []
    for r in records:
        ev = r["evidence"]
        checks = "".join(_html_check(c) for c in ev["checks"])
        sections.append(
            f"<section id='{anchor(r['id'])}'><h2>{e(r['id'])} <span class='{r['verdict']}'>"
            f"{r['verdict']}</span></h2><p><b>Location:</b> {e(r['location'])}<br><b>The paper "
            f"says:</b> <code>{e(r['statement'])}</code><br><b>Paper's value:</b> "
            f"<code>{e(str(ev['paper']))}</code><br><b>garesearch computes:</b> "
            f"<code>{e(str(ev['computed']))}</code></p><p>{e(ev['explanation'])}</p>"
            f"<ul class='checks'>{checks}</ul></section>"
        )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Claims report</title>"
        f"<style>{_CSS}</style></head><body><h1>Claims report</h1>"
        "<p>Every claim of Laud and Pankova's paper, checked by garesearch. CONFIRMED: holds as "
        "printed; TYPO: the result holds but something printed is wrong; WRONG: the printed "
        "result does not follow. Verdicts are computed from the checks listed under each claim.</p>"
        f"<p><b>{e(summary_line(records))}</b></p>"
        "<table><tr><th>id</th><th>location</th><th>verdict</th><th>paper</th><th>computed</th>"
        f"<th>what fails</th></tr>{rows}</table>{''.join(sections)}</body></html>"
    )
