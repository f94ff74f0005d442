r"""A claim of the paper, its evidence and the verdict rule; the claim registry.

Each claim is a function registered with :func:`claim`, next to the derivations it rests on
in the module of its section.  The decorator holds everything about the claim in one place:
its id, where the paper states it, the statement, whether it is on the paper's list of claims
(``origin="list"``) or was found while checking (``"added"``), and the derivations that bear on
it, each with the kind of check it is (``"result"`` where the derivation decides the claim's
result, ``"printed"`` where it refutes only a printed detail while the result holds).  The
function returns its :class:`Evidence`: the printed and the computed value and the
:class:`Check` objects it computes numerically (no symbolic algebra: that is the derivations'
work, and each named derivation adds one check, see :mod:`garesearch.claims`).

The verdict is never typed in; :func:`verdict_from_checks` derives it:

``WRONG``
    a check of kind ``"result"`` fails: the printed result does not follow;
``TYPO``
    every result check holds, but a check of kind ``"printed"`` fails;
``CONFIRMED``
    every check holds.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "KINDS",
    "OPS",
    "ORIGINS",
    "VERDICTS",
    "Check",
    "Claim",
    "ClaimResult",
    "Evidence",
    "cached",
    "claim",
    "clear_cache",
    "evaluate_check",
    "largest_distance",
    "registered_claims",
    "verdict_from_checks",
]

VERDICTS = ("CONFIRMED", "TYPO", "WRONG")
KINDS = ("result", "printed")
OPS = ("approx", "close", "eq", "lt", "le", "gt", "ge", "true")
ORIGINS = ("list", "added")


@dataclass(frozen=True)
class Check:
    """One computed comparison that supports or contradicts a claim.

    Attributes
    ----------
    text : str
        What is compared, in words.
    kind : {"result", "printed"}
        ``"result"``: the claim's result; ``"printed"``: the printed form (expression, index,
        word, intermediate value).
    op : str
        The relation: ``"approx"`` (``|lhs - rhs| <= 0.5 * 10**-digits``: ``rhs`` is the
        paper's number, ``lhs`` the computed one, equal to the precision printed),
        ``"close"`` (relative 1e-9), ``"eq"``, ``"lt"``, ``"le"``, ``"gt"``, ``"ge"``, or
        ``"true"`` (``lhs`` is a computed boolean).
    lhs, rhs
        The two computed sides (numbers, strings or booleans).
    digits : int, optional
        Decimals printed, for ``"approx"``.

    Examples
    --------
    >>> Check("Pr[|X - 2000| <= 100]", "result", "approx", 0.3286, 0.42, 2).holds
    False
    """

    text: str
    kind: str
    op: str
    lhs: Any
    rhs: Any = None
    digits: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {self.kind!r}")
        if self.op not in OPS:
            raise ValueError(f"op must be one of {OPS}; got {self.op!r}")
        if self.op == "approx" and self.digits is None:
            raise ValueError("op 'approx' needs digits")

    @property
    def holds(self) -> bool:
        """Whether the relation holds (recomputed from ``lhs`` and ``rhs`` each time)."""
        return evaluate_check(self)


def evaluate_check(check: Check) -> bool:
    """Recompute the outcome of a :class:`Check` from its stored sides.

    Examples
    --------
    >>> evaluate_check(Check("x", "result", "close", 1.0, 1.0 + 1e-12))
    True
    """
    a, b, op = check.lhs, check.rhs, check.op
    if op == "true":
        return bool(a)
    if op == "eq":
        return a == b
    a, b = float(a), float(b) if b is not None else None
    if not math.isfinite(a):
        return False
    if op == "approx":
        return abs(a - b) <= 0.5 * 10.0 ** (-check.digits) * (1 + 1e-9)
    if op == "close":
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return {"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op]


def verdict_from_checks(checks: Sequence[Check]) -> str:
    """``WRONG`` if a result check fails, else ``TYPO`` if a printed check fails, else
    ``CONFIRMED`` (see the module docstring).

    Examples
    --------
    >>> ok = Check("x", "result", "close", 1.0, 1.0)
    >>> verdict_from_checks([ok, Check("printed sign", "printed", "lt", 1.0, 0.0)])
    'TYPO'
    """
    if not checks:
        raise ValueError("a verdict needs at least one check")
    if any(c.kind == "result" and not c.holds for c in checks):
        return "WRONG"
    if any(c.kind == "printed" and not c.holds for c in checks):
        return "TYPO"
    return "CONFIRMED"


@dataclass(frozen=True)
class Evidence:
    """What a claim's function returns.

    Attributes
    ----------
    paper : number or str
        The paper's printed value (a number where the claim is a number) or statement.
    computed : number or str
        What garesearch computes for it.
    checks : tuple of Check
        The comparisons the verdict is derived from (the claim's own numerical checks; the
        report adds one check per derivation the claim names).
    explanation : str
        One paragraph giving the corrected statement or value.
    """

    paper: Any
    computed: Any
    checks: tuple[Check, ...]
    explanation: str

    @property
    def verdict(self) -> str:
        return verdict_from_checks(self.checks)


@dataclass(frozen=True)
class Claim:
    """A registered claim: everything :func:`claim` was given, and the function."""

    id: str
    location: str
    statement: str
    origin: str
    derivations: tuple[tuple[str, str], ...]
    func: Callable[[], Evidence] = field(repr=False)


@dataclass(frozen=True)
class ClaimResult:
    """A checked claim: its id, where it is in the paper, the statement, and the evidence."""

    id: str
    location: str
    statement: str
    origin: str
    evidence: Evidence = field(repr=False)

    @property
    def verdict(self) -> str:
        return self.evidence.verdict

    @property
    def paper(self):
        return self.evidence.paper

    @property
    def computed(self):
        return self.evidence.computed

    @property
    def explanation(self) -> str:
        return self.evidence.explanation


_CLAIMS: dict[str, Claim] = {}


def claim(
    claim_id: str,
    *,
    location: str,
    statement: str,
    origin: str = "list",
    derivations: Mapping[str, str] | None = None,
) -> Callable[[Callable[[], Evidence]], Callable[[], Evidence]]:
    """Register the function that checks claim ``claim_id``.

    Parameters
    ----------
    claim_id : str
        Stable identifier (``"S6.salary_p"``: section, then a short name).
    location : str
        Where the paper states it.
    statement : str
        The statement as printed (plain text).
    origin : {"list", "added"}
        ``"list"`` for the paper's list of claims, ``"added"`` for claims found while checking.
    derivations : mapping of str to {"result", "printed"}, optional
        The derivations (by name) that bear on the claim and the kind of check each adds.

    Returns
    -------
    callable
        The decorator; it returns the function unchanged.

    Examples
    --------
    >>> @claim("X.example", location="nowhere", statement="1 + 1 = 2", origin="added")  # doctest: +SKIP
    ... def _example():
    ...     return Evidence(paper="2", computed=2, checks=(Check("1 + 1", "result", "eq", 1 + 1, 2),),
    ...                     explanation="Holds.")
    """
    if origin not in ORIGINS:
        raise ValueError(f"origin must be one of {ORIGINS}; got {origin!r}")
    pairs = tuple((derivations or {}).items())
    for name, kind in pairs:
        if kind not in KINDS:
            raise ValueError(f"{claim_id}: derivation {name}: kind must be one of {KINDS}; got {kind!r}")

    def register(func: Callable[[], Evidence]) -> Callable[[], Evidence]:
        if claim_id in _CLAIMS:
            raise RuntimeError(f"duplicate claim {claim_id}")
        _CLAIMS[claim_id] = Claim(claim_id, location, statement, origin, pairs, func)
        return func

    return register


def registered_claims() -> dict[str, Claim]:
    """The registered claims by id, in the order of registration (paper order).

    Examples
    --------
    >>> import garesearch.paper
    >>> _ = garesearch.paper.sections()  # importing the sections registers their claims
    >>> registered_claims()["S6.salary_p"].location
    'Sec 6.2, prior at t=mu'
    """
    return dict(_CLAIMS)


_CACHED: list[Any] = []


def cached(func):
    """:func:`functools.cache`, and forgotten by :func:`clear_cache` (for the expensive
    computations several claims share).

    Examples
    --------
    >>> calls = []
    >>> @cached
    ... def three():
    ...     calls.append(1)
    ...     return 3
    >>> three() + three(), len(calls)
    (6, 1)
    >>> clear_cache(); three(), len(calls)
    (3, 2)
    """
    f = functools.cache(func)
    _CACHED.append(f)
    return f


def clear_cache() -> None:
    """Forget the cached computations (examples' optimisations, counterexamples) and the
    derivations' records (computed once each, :func:`garesearch.paper._proof.derivation`).

    Examples
    --------
    >>> clear_cache()
    """
    from ._proof import registry

    for f in [*_CACHED, *registry().values()]:
        f.cache_clear()


def largest_distance(a_lo, a_hi, b_lo, b_hi) -> float:
    r"""Largest :math:`|x - y|` for :math:`x \in [a_lo, a_hi]`, :math:`y \in [b_lo, b_hi]`: the
    distance that goes into the exponent between a set of correct guesses and a comparison set.

    Examples
    --------
    >>> largest_distance(-1.0, 1.0, 1.0, 3.0)  # X' = [-1, 1], X^ = (1, 3]: from -1 to 3
    4.0
    """
    return max(abs(a_hi - b_lo), abs(b_hi - a_lo))
