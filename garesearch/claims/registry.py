"""The claims registry: every claim checked, with the checks its derivations add.

The claims themselves are registered in the modules of :mod:`garesearch.paper`, one per part
of the paper, each next to the derivations it names (:func:`garesearch.paper.registered_claims`).
Here they are put in report order (the paper's list of claims, then the claims found while
checking, each in paper order) and checked: a claim's own numerical checks, then one check per
derivation it names, of the kind it gives (a refuted derivation is a failing check; a proved
one, also "proved under conditions", whose conditions the check's text states, a passing one).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from .. import paper
from ..errors import ParameterError
from ..paper._claim import VERDICTS, Check, Claim, ClaimResult

__all__ = [
    "check_all",
    "check_claim",
    "claim_ids",
    "claim_table",
    "derivation_checks",
    "derivation_kind",
    "derivation_kinds",
    "derivation_record",
    "derivation_records",
    "derivations_by_claim",
    "summary",
]


def _claims() -> dict[str, Claim]:
    return paper.registered_claims()


def claim_ids(origin: str | None = None) -> list[str]:
    """The claim ids in report order: the paper's list (``origin="list"``), then the claims
    found while checking (``"added"``), each in paper order.

    Examples
    --------
    >>> claim_ids()[:2]
    ['S1.rescale', 'S3.2.posterior']
    >>> len(claim_ids("list"))
    68
    """
    claims = _claims().values()
    order = ("list", "added") if origin is None else (origin,)
    return [c.id for o in order for c in claims if c.origin == o]


def claim_table() -> list[dict[str, str]]:
    """One row per claim: ``id, location, statement, origin`` (report order).

    Examples
    --------
    >>> claim_table()[0]["statement"]
    'eps = eps0*1000 = 0.001*eps0'
    """
    claims = _claims()
    return [{"id": i, "location": claims[i].location, "statement": claims[i].statement,
             "origin": claims[i].origin} for i in claim_ids()]


def derivation_kinds(claim_id: str) -> dict[str, str]:
    """The derivations a claim names, each with its kind (``"result"`` or ``"printed"``).

    Examples
    --------
    >>> derivation_kinds("S4.1.worst_crit")
    {'one_formula_worst_case_prior': 'result', 'worst_prior_q1_critical_point': 'printed'}
    """
    return dict(_claim(claim_id).derivations)


def derivation_kind(claim_id: str, name: str) -> str | None:
    """The kind of derivation ``name`` on ``claim_id``; ``None`` if the claim does not name it.

    Examples
    --------
    >>> derivation_kind("A.iteration", "lambert_w_paper_iteration")
    'printed'
    """
    return derivation_kinds(claim_id).get(name)


def derivations_by_claim() -> dict[str, tuple[str, ...]]:
    """Claim id -> the names of the derivations it names (only claims that name some).

    Examples
    --------
    >>> derivations_by_claim()["S3.2.eq_main"]
    ('eq_main', 'one_formula_eps_main')
    """
    return {c.id: tuple(n for n, _ in c.derivations) for c in _claims().values() if c.derivations}


def derivation_record(name: str):
    """The record of derivation ``name`` (computed once, then cached).

    Examples
    --------
    >>> derivation_record("normal_R").status
    'refuted'
    """
    try:
        func = paper.registered_derivations()[name]
    except KeyError:
        raise ParameterError(f"name: no derivation named {name!r}") from None
    return func()


def derivation_records() -> dict:
    """The records of every derivation by name, in paper order.

    Examples
    --------
    >>> len(derivation_records()) > 50
    True
    """
    return {name: derivation_record(name) for name in paper.registered_derivations()}


def _derivation_check(record, kind: str) -> Check:
    """One check from a derivation record: it holds unless the derivation is refuted."""
    status = str(record.status)
    text = f"sympy derivation {record.name} ({status}): {record.summary}"
    if status == "proved under conditions":
        text += f"; conditions: {record.conditions}"
    elif status == "refuted":
        text += f"; {record.detail}"
    return Check(text, kind, "true", status != "refuted")


def derivation_checks(claim_id: str) -> tuple[Check, ...]:
    """The checks that the derivations a claim names add to its evidence.

    Examples
    --------
    >>> [c.holds for c in derivation_checks("S1.rescale")]
    [False]
    """
    return tuple(_derivation_check(derivation_record(name), kind)
                 for name, kind in _claim(claim_id).derivations)


def _claim(claim_id: str) -> Claim:
    try:
        return _claims()[claim_id]
    except KeyError:
        raise ParameterError(f"claim_id: unknown claim {claim_id!r}; see claim_ids()") from None


def check_claim(claim_id: str) -> ClaimResult:
    """Check one claim: its own checks, then one check per derivation it names.

    Examples
    --------
    >>> check_claim("S6.salary_p").verdict
    'WRONG'
    """
    c = _claim(claim_id)
    evidence = c.func()
    evidence = dataclasses.replace(evidence, checks=(*evidence.checks, *derivation_checks(claim_id)))
    return ClaimResult(c.id, c.location, c.statement, c.origin, evidence)


def check_all() -> list[ClaimResult]:
    """Check every claim, in report order (:func:`claim_ids`).

    Examples
    --------
    >>> results = check_all()  # doctest: +SKIP
    >>> summary(results)  # doctest: +SKIP
    {'CONFIRMED': 38, 'TYPO': 14, 'WRONG': 25}
    """
    return [check_claim(i) for i in claim_ids()]


def summary(results: Sequence[ClaimResult]) -> dict[str, int]:
    """How many claims got each verdict.

    Examples
    --------
    >>> summary([check_claim("S6.salary_p"), check_claim("S6.ships_p")])
    {'CONFIRMED': 1, 'TYPO': 0, 'WRONG': 1}
    """
    counts = Counter(r.verdict for r in results)
    return {v: counts.get(v, 0) for v in VERDICTS}
