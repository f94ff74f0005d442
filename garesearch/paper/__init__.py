r"""The paper, section by section: its printed formulas, its derivations and its claims.

Each module holds one part of the paper, with the derivations of that part (sympy proofs and
refutations, :mod:`garesearch.derivations`) and, next to them, its claims (numerical checks
and verdicts, :mod:`garesearch.claims`); each claim names the derivations it rests on and the
kind of check each one is.  The paper's expressions as printed are written once, in
:mod:`~garesearch.paper.printed`; its worked examples' data in :mod:`garesearch.datasets` (the
library's module, below the paper), with the computations the claims share in
:mod:`~garesearch.paper.examples`.

========================================  ==============================================
module                                    part of the paper
========================================  ==============================================
:mod:`~.sec3_posterior`                   Sec. 1, Sec. 3.2: the posterior bound, Eq. (main)
:mod:`~.sec4_1_comparison_set`            Sec. 4.1: the comparison set, uniform and normal priors
:mod:`~.sec4_1_worst_prior`               Sec. 4.1: the worst prior, discrete priors
:mod:`~.sec4_2_events`                    Sec. 4.2, 4.3: Theorems 1 and 2 (AND / OR)
:mod:`~.sec5_composition`                 Sec. 5: composition
:mod:`~.sec6_cats`                        Sec. 6.1: the cats
:mod:`~.sec6_salary_ships`                Sec. 6.2, 6.3: the salaries and the ships
:mod:`~.appA_radius`                      App. A: the optimal radius, Lambert's W
:mod:`~.appA1_noise`                      App. A.1: noise masses (and garesearch.noise)
:mod:`~.appB_approx_dp`                   App. B: (epsilon, delta)-DP
:mod:`~.beyond_pointwise`                 beyond the paper: the pointwise bound
========================================  ==============================================

:mod:`~garesearch.paper.section_map` maps every section of the paper to the library modules
that implement it, these modules, its claims, its notebooks and its tests.

The sections are imported (registering their derivations and claims) on first use of
:func:`registered_claims`, :func:`registered_derivations` or :data:`SECTIONS`, so that
:mod:`~garesearch.paper.examples` can be imported without sympy.

Examples
--------
>>> from garesearch import paper
>>> "S6.salary_p" in paper.registered_claims() and "eq_main" in paper.registered_derivations()
True
"""

from __future__ import annotations

import importlib
from typing import Any

from . import _claim

#: The section modules in paper order: importing them registers their derivations and claims
#: (the reports list them in this order).
SECTION_NAMES = (
    "sec3_posterior",
    "sec4_1_comparison_set",
    "sec4_1_worst_prior",
    "sec4_2_events",
    "sec5_composition",
    "sec6_cats",
    "sec6_salary_ships",
    "appA_radius",
    "appA1_noise",
    "appB_approx_dp",
    "beyond_pointwise",
)

__all__ = ["SECTIONS", "SECTION_NAMES", "registered_claims", "registered_derivations", "sections"]


def sections() -> tuple:
    """The section modules in paper order, imported (and so registered) on the first call.

    Examples
    --------
    >>> [m.__name__.rsplit(".", 1)[1] for m in sections()][:2]
    ['sec3_posterior', 'sec4_1_comparison_set']
    """
    return tuple(importlib.import_module(f".{name}", __name__) for name in SECTION_NAMES)


def _in_paper_order(entries: dict[str, Any], module_of) -> dict[str, Any]:
    """``entries`` sorted by the section that defines each (stable: registration order within
    a section), whichever section was imported first."""
    rank = {f"{__name__}.{name}": i for i, name in enumerate(SECTION_NAMES)}
    return dict(sorted(entries.items(), key=lambda kv: rank.get(module_of(kv[1]), len(rank))))


def registered_claims() -> dict[str, _claim.Claim]:
    """Every claim of the paper by id, in paper order (:func:`garesearch.paper._claim.claim`).

    Examples
    --------
    >>> registered_claims()["S6.salary_p"].location
    'Sec 6.2, prior at t=mu'
    """
    sections()
    return _in_paper_order(_claim.registered_claims(), lambda c: c.func.__module__)


def registered_derivations() -> dict[str, Any]:
    """Every derivation function by name, in paper order (:func:`garesearch.paper._proof.derivation`).

    Examples
    --------
    >>> list(registered_derivations())[0]
    'rescale_sec1'
    """
    from . import _proof  # sympy

    sections()
    return _in_paper_order(_proof.registry(), lambda f: f.__module__)


def __getattr__(name: str):
    if name == "SECTIONS":
        return sections()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
