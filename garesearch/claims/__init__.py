r"""The claims report: every claim of the paper, checked by computation, with a verdict.

Each claim of the paper is registered in the module of its part of the paper
(:mod:`garesearch.paper`), next to the derivations it rests on: its id, location, statement,
origin (the paper's list, or found while checking) and the derivations it names with the kind
of check each one is, all in one decorator (:func:`garesearch.paper._claim.claim`), and a
function that computes its :class:`Evidence` numerically: the paper's printed statement or
number, the value garesearch computes, and a list of :class:`Check` objects.  A check stores
the two computed sides of one comparison and the relation between them, so its outcome can be
recomputed from the evidence alone (:func:`evaluate_check`).  Each derivation the claim names
adds one check (:func:`derivation_checks`).

The verdict is never typed in; :func:`verdict_from_checks` derives it from the checks:

``WRONG``
    a check of kind ``"result"`` fails: the printed result does not follow;
``TYPO``
    every result check holds, but a check of kind ``"printed"`` fails: the result holds, yet a
    printed expression, index, word or intermediate value is wrong;
``CONFIRMED``
    every check holds: the claim holds as printed (numbers to the precision printed).

Every value the claims compute is pinned, with its tolerance and the independent route it was
obtained by, in ``data/claims_pinned.tsv`` (:mod:`garesearch.claims.verify`).

Usage::

    python -m garesearch claims            # the table
    python -m garesearch claims --json     # JSON: summary counts and every claim with its
                                           #   evidence (checks, both sides, tolerances)
    python -m garesearch claims --output DIR   # claims.md, claims.html, claims.json in DIR
    python -m garesearch claims --verify   # compare every value with the pinned table

Examples
--------
>>> from garesearch import claims
>>> r = claims.check_claim("S6.cats_AND_eps")
>>> r.verdict, round(r.computed, 4)
('CONFIRMED', 0.539)
"""

from __future__ import annotations

from ..paper._claim import (
    VERDICTS,
    Check,
    ClaimResult,
    Evidence,
    clear_cache,
    evaluate_check,
    verdict_from_checks,
)
from ..paper.examples import cats_or_epsilon_against_prior, epsilon_against_a
from .cli import main, summary_line, to_html, to_json, to_markdown, to_text, write_report
from .plots import plot_cats_or, plot_epsilon_against_a
from .registry import (
    check_all,
    check_claim,
    claim_ids,
    claim_table,
    derivation_checks,
    derivation_kind,
    derivation_kinds,
    derivation_records,
    derivations_by_claim,
    summary,
)
from .verify import format_verify_report, load_pins, verify

__all__ = [
    "VERDICTS",
    "Check",
    "ClaimResult",
    "Evidence",
    "cats_or_epsilon_against_prior",
    "check_all",
    "check_claim",
    "claim_ids",
    "claim_table",
    "clear_cache",
    "derivation_checks",
    "derivation_kind",
    "derivation_kinds",
    "derivation_records",
    "derivations_by_claim",
    "epsilon_against_a",
    "evaluate_check",
    "format_verify_report",
    "load_pins",
    "main",
    "plot_cats_or",
    "plot_epsilon_against_a",
    "summary",
    "summary_line",
    "to_html",
    "to_json",
    "to_markdown",
    "to_text",
    "verdict_from_checks",
    "verify",
    "write_report",
]
