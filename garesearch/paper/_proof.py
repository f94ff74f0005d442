"""The record every derivation returns, the registry, and small proof helpers.

A derivation function states a result of the paper in sympy and then either proves it
(an identity that cancels to 0, a solution substituted back, a critical point with its
second-derivative test, an inequality reduced to a sign condition) or refutes it with a
concrete counterexample evaluated with mpmath at 50 digits.  A proof step that fails
raises :class:`ProofError`: a derivation never reports "proved" for a step it could not
carry out.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

__all__ = [
    "DPS",
    "PROVED",
    "PROVED_UNDER_CONDITIONS",
    "REFUTED",
    "STATUSES",
    "Derivation",
    "ProofError",
    "derivation",
    "registry",
]

PROVED = "proved"
PROVED_UNDER_CONDITIONS = "proved under conditions"
REFUTED = "refuted"
STATUSES = (PROVED, PROVED_UNDER_CONDITIONS, REFUTED)

#: Digits used for every numeric counterexample.
DPS = 50


class ProofError(AssertionError):
    """A proof step did not go through (a bug or a regression, never a verdict)."""


@dataclass(frozen=True)
class Derivation:
    """One derivation of the paper, re-derived and checked.

    Attributes
    ----------
    name : str
        Stable identifier: the name of the function that produced the record.
    location : str
        Where the paper states the result (section, equation, theorem).
    statement : sympy.Basic
        The statement as the paper prints it, in sympy (for a refuted result this is the
        paper's version; the corrected one is in ``detail``).
    latex : str
        LaTeX of the statement.
    status : str
        ``"proved"`` (holds as stated, within the paper's own assumptions),
        ``"proved under conditions"`` (holds only with the extra conditions in
        ``conditions``) or ``"refuted"`` (false as printed).
    conditions : str
        The assumptions the proof uses.
    counterexample : dict or None
        For a refuted result, concrete numbers (mpmath, 50 digits) at which the printed
        statement fails; for a result proved under conditions, optionally numbers at which
        it fails once the conditions are dropped.
    detail : str
        Short explanation of the proof, with the corrected statement when refuted.
    summary : str
        One-line plain-text statement (for tables).

    The claims a derivation bears on are named by the claims themselves (each claim entry
    lists its derivations and the kind of check each one is), not here.
    """

    name: str
    location: str
    statement: Any
    latex: str
    status: str
    conditions: str
    counterexample: dict | None
    detail: str
    summary: str = ""

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}; got {self.status!r}")

    def markdown(self) -> str:
        """Status, conditions, explanation and counterexample as Markdown (for notebooks;
        the statement itself is best shown with ``IPython.display.Math(self.latex)``)."""
        lines = [
            f"**{self.status}** ({self.location}). {self.summary}",
            "",
            f"*Conditions:* {self.conditions or 'none'}",
            "",
            f"*Why:* {self.detail}",
        ]
        if self.counterexample:
            lines += ["", "| counterexample | value |", "|---|---|"]
            for key, value in self.to_dict()["counterexample"].items():
                lines.append(f"| {key} | {_cell(value)} |")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return f"$${self.latex}$$\n\n" + self.markdown()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable view (numbers as strings with 20 significant digits)."""
        return {
            "name": self.name,
            "location": self.location,
            "statement": str(self.statement),
            "latex": self.latex,
            "status": self.status,
            "conditions": self.conditions,
            "counterexample": _jsonable(self.counterexample),
            "detail": self.detail,
            "summary": self.summary,
        }


def _cell(value) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_cell(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    text = str(value)
    try:
        return f"{float(text):.10g}"
    except ValueError:
        return text.replace("|", "\\|")


def _jsonable(value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (mpmath.mpf, mpmath.mpc)):
        return mpmath.nstr(value, 20)
    return str(value)


# ------------------------------------------------------------------------------------------
# Registry: paper order = order of definition (the submodules are imported in paper order).
# ------------------------------------------------------------------------------------------
_REGISTRY: dict[str, Callable[[], Derivation]] = {}


def derivation(func: Callable[[], Derivation]) -> Callable[[], Derivation]:
    """Register a derivation function; its result is computed once and cached.

    Examples
    --------
    >>> import garesearch.paper
    >>> _ = garesearch.paper.sections()  # registers the derivations, in paper order
    >>> registry()["eq_main"]().name   # registered with @derivation, computed once
    'eq_main'
    """
    cached = functools.cache(func)
    _REGISTRY[func.__name__] = cached
    return cached


def registry() -> dict[str, Callable[[], Derivation]]:
    """The registered derivation functions, by name, in paper order.

    Examples
    --------
    >>> import garesearch.paper
    >>> _ = garesearch.paper.sections()  # registers the derivations, in paper order
    >>> list(registry())[0]
    'rescale_sec1'
    """
    return dict(_REGISTRY)


# ------------------------------------------------------------------------------------------
# Proof helpers.
# ------------------------------------------------------------------------------------------
def require(condition: bool, step: str) -> None:
    """Raise :class:`ProofError` unless ``condition`` holds."""
    if not condition:
        raise ProofError(f"proof step failed: {step}")


def is_zero(expr) -> bool:
    """True when a rational expression cancels to 0 (no slow ``simplify``)."""
    if sp.cancel(sp.together(expr)) == 0:
        return True
    return sp.cancel(sp.together(sp.expand(expr))) == 0


def require_zero(expr, step: str) -> None:
    """Raise :class:`ProofError` unless ``expr`` cancels to 0."""
    require(is_zero(expr), f"{step}: {expr} does not cancel to 0")


def log_sum_to_product(expr):
    r"""Map :math:`\sum_i c_i \ln u_i` (after expansion) to :math:`\prod_i u_i^{c_i}`.

    Used to prove that two sums of logarithms are equal: when every :math:`u_i` is
    positive, both sides are real and :math:`\exp` of their difference equals 1 iff the
    difference is 0.
    """
    prod = sp.Integer(1)
    for term in sp.Add.make_args(sp.expand(expr)):
        coeff, rest = term.as_coeff_Mul()
        if rest == 1 and coeff == 0:
            continue
        if not isinstance(rest, sp.log):
            raise ProofError(f"not a sum of logarithms: term {term}")
        prod *= rest.args[0] ** coeff
    return prod


def require_equal_logs(lhs, rhs, step: str) -> None:
    """Prove ``lhs == rhs`` for two sums of logs of positive quantities (via exp)."""
    require_zero(log_sum_to_product(lhs - rhs) - 1, step)


def reduce_mod_square(expr, s, s_squared):
    """Reduce the numerator of ``expr`` modulo ``s**2 - s_squared`` (``s`` a square root)."""
    num, _ = sp.fraction(sp.together(expr))
    return sp.rem(sp.expand(num), s**2 - s_squared, s)


def mp(value):
    """An mpmath number at the working precision (strings are read exactly)."""
    return mpmath.mpf(value)


def workdps():
    """Context manager: mpmath at :data:`DPS` digits."""
    return mpmath.workdps(DPS)


def proved(name, location, statement, detail, summary, conditions) -> Derivation:
    """The record of a result that holds as stated (status :data:`PROVED`, no counterexample)."""
    return Derivation(
        name=name,
        location=location,
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions=conditions,
        counterexample=None,
        detail=detail,
        summary=summary,
    )


def latex(expr) -> str:
    """LaTeX of a sympy expression (symbols whose names are LaTeX already print verbatim)."""
    raw = {
        sym: sym.name
        for sym in expr.atoms(sp.Symbol)
        if any(ch in sym.name for ch in "\\{}[]|")
    }
    return sp.latex(expr, symbol_names=raw)
