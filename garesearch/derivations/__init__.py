r"""Symbolic derivations: every derivation of the paper re-derived and checked with sympy.

Each derivation is a function (no arguments) that states a result of the paper in sympy
and then proves it (an identity that cancels to 0, a solution substituted back, a critical
point with its second-derivative test, an inequality reduced to a sign condition) or
refutes it with a concrete counterexample evaluated with mpmath at 50 digits.  It returns
a :class:`Derivation` record (name, paper location, statement and its LaTeX, status,
conditions, counterexample, detail); the result is computed once and cached.

The derivations live in :mod:`garesearch.paper`, one module per part of the paper, next to
the claims they decide (each claim names its derivations: :func:`claims_of` gives them back
per derivation).  This module is their registry and command line.

>>> from garesearch import derivations
>>> derivations.get("worst_prior_general_q_derivative").status
'refuted'
>>> len(derivations.all_derivations()) == len(derivations.names())
True
>>> derivations.claims_of("eq_main")
('S3.2.eq_main',)

Statuses: ``"proved"`` (holds as stated within the paper's assumptions),
``"proved under conditions"`` (holds with the extra conditions recorded in the record)
and ``"refuted"`` (false as printed; ``detail`` gives the corrected statement).

The sympy proofs also show that the backend-generic formulas of :mod:`garesearch.bound`,
evaluated with :func:`garesearch._backend.sympy_backend`, are the paper's printed
expressions (the ``one_formula_*`` derivations); the ``one_formula_noise_*`` derivations do
the same for the noise masses of :mod:`garesearch.noise` (App. A.1).  The derivations at
location ``"beyond the paper"`` derive the pointwise bound of :mod:`garesearch.constructions.pointwise`.

The numerical side of Appendix A (the optimal radius, Lambert's W and the paper's iteration
for it) is in :mod:`garesearch.radius` and :mod:`garesearch.lambertw`; the old paths
``garesearch.derivations.radius`` and ``garesearch.derivations.lambertw`` still work and warn.

Command line: ``python -m garesearch derivations [--json] [--name NAME]``.
"""

from __future__ import annotations

import importlib
import json
import sys

from .. import paper
from ..app._commands import OneLineParser
from ..paper._proof import (
    PROVED,
    PROVED_UNDER_CONDITIONS,
    REFUTED,
    STATUSES,
    Derivation,
    ProofError,
)

_FUNCTIONS = paper.registered_derivations()
globals().update(_FUNCTIONS)

__all__ = [
    "PROVED",
    "PROVED_UNDER_CONDITIONS",
    "REFUTED",
    "STATUSES",
    "Derivation",
    "ProofError",
    "all_derivations",
    "claims_of",
    "get",
    "html_table",
    "main",
    "names",
    "to_dict",
    *_FUNCTIONS,
]

_MOVED = {"lambertw": "garesearch.lambertw", "radius": "garesearch.radius"}


def __getattr__(name: str):
    if name in _MOVED:  # the old submodules (they warn on import)
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def names() -> list[str]:
    """Names of all derivations, in paper order.

    Examples
    --------
    >>> names()[:2]
    ['rescale_sec1', 'posterior_bound_sec32']
    """
    return list(_FUNCTIONS)


def get(name: str) -> Derivation:
    """The record of the derivation called ``name`` (see :func:`names`).

    Raises
    ------
    KeyError
        If there is no derivation of that name.

    Examples
    --------
    >>> get("eq_main").status
    'proved under conditions'
    """
    try:
        func = _FUNCTIONS[name]
    except KeyError:
        raise KeyError(f"no derivation named {name!r}; known: {', '.join(_FUNCTIONS)}") from None
    return func()


def all_derivations() -> list[Derivation]:
    """The records of all derivations, in paper order (each computed once, then cached).

    Examples
    --------
    >>> sum(r.status == REFUTED for r in all_derivations())
    16
    """
    return [func() for func in _FUNCTIONS.values()]


def claims_of(name: str) -> tuple[str, ...]:
    """The ids of the claims that name derivation ``name`` (in report order).

    Examples
    --------
    >>> claims_of("discrete_two_nearest")
    ('S4.1.discrete_two_nearest', 'S6.cats_OR_worst')
    """
    return tuple(c.id for c in paper.registered_claims().values()
                 if any(n == name for n, _ in c.derivations))


def to_dict(record: Derivation) -> dict:
    """A record as JSON-serialisable data, with the claims that name it (``"claims"``).

    Examples
    --------
    >>> to_dict(get("eq_main"))["claims"]
    ['S3.2.eq_main']
    """
    return {**record.to_dict(), "claims": list(claims_of(record.name))}


# ------------------------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------------------------
def _table(records: list[Derivation]) -> str:
    w_name = max(len(r.name) for r in records)
    w_loc = min(max(len(r.location) for r in records), 44)
    w_stat = max(len(s) for s in STATUSES)
    lines = [f"{'name':<{w_name}}  {'location':<{w_loc}}  {'status':<{w_stat}}  statement"]
    lines.append("-" * (w_name + w_loc + w_stat + 60))
    for r in records:
        loc = r.location if len(r.location) <= w_loc else r.location[: w_loc - 1] + "~"
        lines.append(f"{r.name:<{w_name}}  {loc:<{w_loc}}  {r.status:<{w_stat}}  {r.summary}")
    counts = {s: sum(r.status == s for r in records) for s in STATUSES}
    lines.append("")
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items()) + f" ({len(records)} in all)")
    return "\n".join(lines)


def html_table(records: list[Derivation] | None = None) -> str:
    """The derivations as an HTML table (name, location, status, one-line statement), for
    notebooks and web pages, where a wide text table would wrap.

    Not in the paper: a view of the records of every section.

    Parameters
    ----------
    records : list of Derivation, optional
        Default: :func:`all_derivations`.

    Returns
    -------
    str
        A ``<table>`` followed by a line of counts by status.

    Examples
    --------
    >>> text = html_table([get("eps_lb_sec32")])
    >>> text.startswith("<table") and "eps_lb_sec32" in text
    True
    """
    import html

    records = all_derivations() if records is None else records
    e = html.escape
    rows = "".join(
        f"<tr><td><code>{e(r.name)}</code></td><td>{e(r.location)}</td><td>{e(r.status)}</td>"
        f"<td>{e(r.summary)}</td></tr>"
        for r in records
    )
    counts = {s: sum(r.status == s for r in records) for s in STATUSES}
    total = ", ".join(f"{n} {s}" for s, n in counts.items()) + f" ({len(records)} in all)"
    return (
        "<table class='derivations'><thead><tr><th>name</th><th>location</th><th>status</th>"
        f"<th>statement</th></tr></thead><tbody>{rows}</tbody></table><p>{e(total)}</p>"
    )


def _full(r: Derivation) -> str:
    out = [
        f"{r.name}  [{r.status}]",
        f"location:   {r.location}",
        f"statement:  {r.statement}",
        f"latex:      {r.latex}",
        f"conditions: {r.conditions}",
        f"detail:     {r.detail}",
    ]
    if r.counterexample:
        out.append("counterexample:")
        for k, v in r.to_dict()["counterexample"].items():
            out.append(f"  {k} = {v}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """``python -m garesearch derivations``: print the table of derivations.

    Examples
    --------
    >>> main(["--name", "rescale_sec1"])  # doctest: +ELLIPSIS
    rescale_sec1  [refuted]
    ...
    0
    """
    parser = OneLineParser(
        prog="python -m garesearch derivations",
        description="Every derivation of the paper, re-derived with sympy: proved, proved "
        "under conditions, or refuted with a counterexample.",
    )
    parser.add_argument("--json", action="store_true", help="print the records as JSON")
    parser.add_argument("--name", help="print one derivation in full")
    parser.add_argument("--status", choices=STATUSES, help="only derivations with this status")
    args = parser.parse_args(argv)
    if args.name:
        try:
            records = [get(args.name)]
        except KeyError as exc:
            print(exc.args[0], file=sys.stderr)
            return 2
    else:
        records = all_derivations()
    if args.status:
        records = [r for r in records if r.status == args.status]
    if args.json:
        print(json.dumps([to_dict(r) for r in records], indent=2))
    elif args.name:
        print(_full(records[0]))
    elif records:
        print(_table(records))
    return 0
