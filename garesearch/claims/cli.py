"""The claims report written out (text, JSON, Markdown, HTML; the formats live in
:mod:`garesearch.app.claims_report`) and the command line ``python -m garesearch claims``."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..app import claims_report
from ..app._commands import OneLineParser
from ..paper._claim import ClaimResult
from .registry import check_all, check_claim, claim_ids
from .verify import format_verify_report, verify

__all__ = ["main", "summary_line", "to_html", "to_json", "to_markdown", "to_text", "write_report"]


def to_text(results: Sequence[ClaimResult]) -> str:
    """The report as a plain-text table (:func:`garesearch.app.claims_report.to_text`).

    Examples
    --------
    >>> print(to_text([check_claim("S6.ships_p")]).splitlines()[1])  # doctest: +NORMALIZE_WHITESPACE
    S6.ships_p CONFIRMED 0.22 -> 0.222703
    """
    return claims_report.to_text(results)


def summary_line(results: Sequence[ClaimResult]) -> str:
    """One line: how many claims are CONFIRMED, TYPO and WRONG (all, and the paper's list).

    Examples
    --------
    >>> summary_line([check_claim("S6.ships_p")])
    "1 claims: 1 CONFIRMED, 0 TYPO, 0 WRONG (of the paper's list of 1: 1 CONFIRMED, 0 TYPO, 0 WRONG)"
    """
    return claims_report.summary_line(results)


def to_json(results: Sequence[ClaimResult] | None = None, *, indent: int | None = 1) -> str:
    """The report as JSON: the summary counts and every claim with its evidence (its checks
    with both sides, relation, kind and tolerance); see :func:`garesearch.app.claims_report.to_json`.

    Examples
    --------
    >>> import json
    >>> json.loads(to_json([check_claim("S6.ships_p")]))["claims"][0]["verdict"]
    'CONFIRMED'
    """
    return claims_report.to_json(check_all() if results is None else results, indent=indent)


def to_markdown(results: Sequence[ClaimResult] | None = None, *, details: bool = True) -> str:
    """The report as Markdown: a summary, a table, and (``details=True``) one section per
    claim with its explanation and checks (:func:`garesearch.app.claims_report.to_markdown`).

    Examples
    --------
    >>> to_markdown([check_claim("S6.ships_p")]).count("S6.ships") > 1
    True
    """
    return claims_report.to_markdown(check_all() if results is None else results, details=details)


def to_html(results: Sequence[ClaimResult] | None = None) -> str:
    """The report as one self-contained HTML page (inline CSS, no scripts).

    Examples
    --------
    >>> to_html([check_claim("S6.ships_p")]).startswith("<!DOCTYPE html>")
    True
    """
    return claims_report.to_html(check_all() if results is None else results)


def write_report(output_dir: str | Path = "output",
                 results: Sequence[ClaimResult] | None = None) -> str:
    """Write ``claims.md``, ``claims.html`` and ``claims.json`` into ``output_dir``.

    Parameters
    ----------
    output_dir : str or Path
    results : list of ClaimResult, optional
        Already checked claims (default: :func:`garesearch.claims.check_all`).

    Returns
    -------
    str
        The summary line (counts of each verdict).

    Examples
    --------
    >>> import tempfile
    >>> write_report(tempfile.mkdtemp(), [check_claim("S6.ships_p")])
    "1 claims: 1 CONFIRMED, 0 TYPO, 0 WRONG (of the paper's list of 1: 1 CONFIRMED, 0 TYPO, 0 WRONG)"
    """
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = check_all() if results is None else results
    (out / "claims.md").write_text(to_markdown(results), encoding="utf-8")
    (out / "claims.html").write_text(to_html(results), encoding="utf-8")
    (out / "claims.json").write_text(to_json(results), encoding="utf-8")
    return summary_line(results)


def main(argv: list[str] | None = None) -> int:
    """``python -m garesearch claims [--json] [--output DIR] [--id ID ...] [--verify]``.

    Exit status 0, or 1 when ``--verify`` finds a value outside its pinned tolerance, or 2 for
    an unknown claim id.

    Examples
    --------
    >>> main(["--verify", "--id", "S6.ships_p"])
    all 3 pinned values are within their tolerances
    0
    """
    parser = OneLineParser(
        prog="python -m garesearch claims",
        description="Check every claim of the paper and print a verdict for each.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--output", help="also write claims.md, claims.html and claims.json to this folder")
    parser.add_argument("--id", nargs="+", dest="ids", help="check only these claim ids")
    parser.add_argument(
        "--verify", action="store_true",
        help="recompute every value and compare it with the pinned table (data/claims_pinned.tsv); "
        "exit with status 1, naming each value, if any left its tolerance (nothing else is "
        "printed or written)",
    )
    args = parser.parse_args(argv)
    known = claim_ids()
    ids = args.ids or known
    unknown = [i for i in ids if i not in known]
    if unknown:
        print(f"unknown claim ids: {unknown}", file=sys.stderr)
        return 2
    if args.verify:
        report = verify(args.ids)
        print(format_verify_report(report))
        return 0 if report.ok else 1
    results = [check_claim(i) for i in ids]
    if args.json:
        print(to_json(results))
    else:
        print(to_text(results))
    if args.output:
        write_report(args.output, None if args.ids else results)
    return 0
