r"""Pinned numbers: every value the claims compute, with its tolerance and the independent
route it was obtained by, and the check that the claims still compute them.

The table ``garesearch/data/claims_pinned.tsv`` holds one row per value: the claim's
``computed`` value (when it is a number), both sides of each of its own checks (``check 2
lhs``; the right side of an ``approx`` check is the paper's printed number and is not
pinned), its verdict, and the status of every derivation.  Each row gives the value, its
tolerance (``rel 1e-09``, ``abs 0.005`` or ``exact``) and the route by which the value was
obtained independently of the code that computes it (a closed form at 50 digits, quadrature,
brute force, the paper's printed number), or says that it is pinned only as a regression
guard.  :func:`verify` recomputes everything and lists each value that left its tolerance;
``python -m garesearch claims --verify`` prints that list and exits with status 1 when it is
not empty (a user upgrading scipy or mpmath runs it to see whether any number of the report
changed).

Examples
--------
>>> pins = load_pins()
>>> pins[("S6.salary_p", "check 1 lhs")].tolerance
'rel 1e-09'
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import mpmath
import numpy as np

from .. import paper
from .registry import check_claim, claim_ids, derivation_record

__all__ = [
    "PINNED",
    "Drift",
    "Pin",
    "VerifyReport",
    "format_verify_report",
    "load_pins",
    "parse_tolerance",
    "pinned_quantities",
    "pins_to_text",
    "plain",
    "verify",
    "within",
]

#: the table, inside the package
PINNED = "data/claims_pinned.tsv"
_HEADER = ["id", "quantity", "value", "tolerance", "route"]


@dataclass(frozen=True)
class Pin:
    """One row of the pinned table."""

    id: str
    quantity: str
    value: Any
    tolerance: str
    route: str


def plain(x: Any) -> Any:
    """A computed value as a plain Python bool, int, float or str (numpy and mpmath numbers
    converted), or ``None`` if it is not a number, boolean or short string.

    Examples
    --------
    >>> plain(np.float64(0.5)), plain(np.bool_(True)), plain(mpmath.mpf(2))
    (0.5, True, 2.0)
    """
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating, mpmath.mpf)):
        return float(x)
    if isinstance(x, str):
        return x
    return None


def pinned_quantities(result) -> dict[str, Any]:
    """The values of one checked claim that the table pins, by quantity name: ``computed`` (if
    a number), ``verdict``, and ``check i lhs`` / ``check i rhs`` for its own checks (``i``
    from 1; the derivations' checks are pinned as their statuses; the right side of an
    ``approx`` check, the paper's number, is not pinned).

    Examples
    --------
    >>> from garesearch.claims import check_claim
    >>> pinned_quantities(check_claim("S6.ships_p"))  # doctest: +ELLIPSIS
    {'computed': 0.2227..., 'check 1 lhs': 0.2227..., 'verdict': 'CONFIRMED'}
    """
    out: dict[str, Any] = {}
    computed = plain(result.evidence.computed)
    if computed is not None and not isinstance(computed, str):
        out["computed"] = computed
    own = [c for c in result.evidence.checks if not c.text.startswith("sympy derivation ")]
    for i, c in enumerate(own, start=1):
        lhs = plain(c.lhs)
        if lhs is not None:
            out[f"check {i} lhs"] = lhs
        rhs = plain(c.rhs)
        if c.op != "approx" and rhs is not None:
            out[f"check {i} rhs"] = rhs
    out["verdict"] = result.verdict
    return out


def parse_tolerance(text: str) -> tuple[float, float] | None:
    """``"rel 1e-09"``, ``"abs 0.005"``, ``"rel 1e-09 abs 1e-15"`` -> ``(rel, abs)``;
    ``"exact"`` -> ``None``.

    Examples
    --------
    >>> parse_tolerance("rel 1e-9 abs 1e-15"), parse_tolerance("exact")
    ((1e-09, 1e-15), None)
    """
    words = text.split()
    if words == ["exact"]:
        return None
    if len(words) not in (2, 4) or any(w not in ("rel", "abs") for w in words[::2]):
        raise ValueError(f"tolerance must be 'exact', 'rel X', 'abs X' or 'rel X abs Y'; got {text!r}")
    tol = dict(zip(words[::2], (float(w) for w in words[1::2]), strict=True))
    return tol.get("rel", 0.0), tol.get("abs", 0.0)


def within(value: Any, pin: Pin) -> bool:
    """Whether ``value`` agrees with the pinned value to the pin's tolerance.

    Examples
    --------
    >>> within(0.32866, Pin("S6.salary_p", "check 1 lhs", 0.32863, "rel 1e-09", ""))
    False
    """
    tol = parse_tolerance(pin.tolerance)
    v, p = plain(value), pin.value

    def numeric(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    if not (numeric(v) and numeric(p)):
        return type(v) is type(p) and v == p
    v, p = float(v), float(p)
    if math.isnan(p) or math.isnan(v):
        return math.isnan(p) and math.isnan(v)
    if tol is None or math.isinf(p) or math.isinf(v):
        return v == p
    return math.isclose(v, p, rel_tol=tol[0], abs_tol=tol[1])


def _read_value(text: str) -> Any:
    return json.loads(text)


def _write_value(value: Any) -> str:
    return json.dumps(plain(value))


def load_pins(text: str | None = None) -> dict[tuple[str, str], Pin]:
    """The pinned table (``(id, quantity)`` -> :class:`Pin`), read from the package (or from
    ``text``).

    Examples
    --------
    >>> len(load_pins()) > 450
    True
    """
    if text is None:
        text = resources.files("garesearch").joinpath(PINNED).read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or rows[0] != _HEADER:
        raise ValueError(f"{PINNED}: the header must be {_HEADER}")
    pins: dict[tuple[str, str], Pin] = {}
    for n, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != 5:
            raise ValueError(f"{PINNED}:{n}: 5 tab-separated fields expected, got {len(row)}")
        cid, quantity, value, tolerance, route = row
        parse_tolerance(tolerance)
        pins[(cid, quantity)] = Pin(cid, quantity, _read_value(value), tolerance, route)
    return pins


def pins_to_text(pins: Iterable[Pin]) -> str:
    """The table as text (the inverse of :func:`load_pins`).

    Examples
    --------
    >>> pins_to_text([Pin("S6.ships_p", "verdict", "CONFIRMED", "exact", "read")]).split()[5:]
    ['S6.ships_p', 'verdict', '"CONFIRMED"', 'exact', 'read']
    """
    lines = ["\t".join(_HEADER)]
    for p in pins:
        fields = (p.id, p.quantity, _write_value(p.value), p.tolerance, p.route)
        if any("\t" in f or "\n" in f for f in fields):
            raise ValueError(f"{p.id} {p.quantity}: no tabs or line breaks in a field")
        lines.append("\t".join(fields))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Drift:
    """A pinned value that the claims no longer compute within its tolerance."""

    pin: Pin
    value: Any
    what: str = ""

    def __str__(self) -> str:
        v, p = self.value, self.pin.value
        diff = ""
        if isinstance(v, float) and isinstance(p, float) and math.isfinite(v) and math.isfinite(p):
            rel = abs(v - p) / abs(p) if p else math.inf
            diff = f"; difference {abs(v - p):.3g} (relative {rel:.3g})"
        what = f" [{self.what}]" if self.what else ""
        return (f"{self.pin.id} {self.pin.quantity}{what}: computed {v!r}, pinned {p!r} "
                f"({self.pin.tolerance}{diff}); route: {self.pin.route}")


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify` found: the values checked, those that drifted, the claims or
    derivations that could not be computed at all, the computed values the table lacks and the
    table's rows nothing computed."""

    checked: int
    drifts: tuple[Drift, ...] = field(default=())
    errors: tuple[tuple[str, str], ...] = field(default=())
    unpinned: tuple[tuple[str, str], ...] = field(default=())
    stale: tuple[tuple[str, str], ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not (self.drifts or self.errors or self.unpinned or self.stale)


def _check_texts(result) -> dict[str, str]:
    own = [c for c in result.evidence.checks if not c.text.startswith("sympy derivation ")]
    return {f"check {i}": c.text for i, c in enumerate(own, start=1)}


def _failure(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def verify(ids: Sequence[str] | None = None, *, results: Sequence | None = None,
           derivations: Sequence[str] | None = None,
           pins: dict[tuple[str, str], Pin] | None = None) -> VerifyReport:
    """Recompute the claims (and the derivations' statuses) and compare every value with the
    pinned table.

    A claim or derivation that fails to compute at all (a proof step that no longer goes
    through, an error) is reported in ``errors`` and counts as a failure.

    Parameters
    ----------
    ids : list of str, optional
        Claims to check (default: all).
    results : list of ClaimResult, optional
        Claims already checked (then ``ids`` is ignored).
    derivations : list of str, optional
        Derivations whose status to compare (default: all when every claim is checked, none
        otherwise).
    pins : dict, optional
        The table (default: :func:`load_pins`).

    Returns
    -------
    VerifyReport

    Examples
    --------
    >>> report = verify(["S6.salary_p"])
    >>> report.ok, report.checked
    (True, 3)
    """
    pins = load_pins() if pins is None else pins
    errors: list[tuple[str, str]] = []
    if results is None:
        every = ids is None
        results = []
        for cid in claim_ids() if ids is None else ids:
            try:
                results.append(check_claim(cid))
            except Exception as exc:  # reported, with the others still checked
                errors.append((cid, _failure(exc)))
    else:
        every = len(results) == len(claim_ids())
    if derivations is None:
        derivations = list(paper.registered_derivations()) if every else []
    computed: dict[tuple[str, str], tuple[Any, str]] = {}
    for r in results:
        texts = _check_texts(r)
        for quantity, value in pinned_quantities(r).items():
            computed[(r.id, quantity)] = (value, texts.get(quantity.rsplit(" ", 1)[0], ""))
    for name in derivations:
        try:
            rec = derivation_record(name)
        except Exception as exc:
            errors.append((f"derivation {name}", _failure(exc)))
            continue
        computed[(f"derivation {name}", "status")] = (str(rec.status), rec.summary)
    done = {r.id for r in results} | {f"derivation {n}" for n in derivations}
    drifts = tuple(Drift(pins[k], v, what) for k, (v, what) in computed.items()
                   if k in pins and not within(v, pins[k]))
    unpinned = tuple(k for k in computed if k not in pins)
    failed = {e[0] for e in errors}
    stale = tuple(k for k in pins if k[0] in done and k[0] not in failed and k not in computed)
    return VerifyReport(len(computed) - len(unpinned), drifts, tuple(errors), unpinned, stale)


def format_verify_report(report: VerifyReport) -> str:
    """The report of :func:`verify` as text: one line per drifted value, per claim or
    derivation that failed to compute, per value the table lacks or no longer matches, then a
    summary line.

    Examples
    --------
    >>> print(format_verify_report(VerifyReport(checked=3)))
    all 3 pinned values are within their tolerances
    """
    lines = [f"DRIFT {d}" for d in report.drifts]
    lines += [f"FAILED {what}: {why}" for what, why in report.errors]
    lines += [f"NOT PINNED {cid} {quantity}" for cid, quantity in report.unpinned]
    lines += [f"NOT COMPUTED {cid} {quantity} (pinned, but no longer computed)"
              for cid, quantity in report.stale]
    if report.ok:
        lines.append(f"all {report.checked} pinned values are within their tolerances")
    else:
        lines.append(
            f"{len(report.drifts)} of {report.checked} pinned values drifted; "
            f"{len(report.errors)} claims or derivations failed to compute; "
            f"{len(report.unpinned)} computed values not pinned; {len(report.stale)} pinned "
            f"values not computed ({PINNED})"
        )
    return "\n".join(lines)
