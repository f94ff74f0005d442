r"""The paper, section by section: its printed formulas, its derivations and its claims.

Each module holds one part of the paper, with the derivations of that part (sympy proofs and
refutations, :mod:`garesearch.derivations`) and, next to them, its claims (numerical checks
and verdicts, :mod:`garesearch.claims`); each claim names the derivations it rests on and the
kind of check each one is.  The paper's expressions as printed are written once, in
:mod:`~garesearch.paper.printed`, and its worked examples' data in
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

Importing this package registers every derivation and every claim, in paper order.

Examples
--------
>>> from garesearch import paper
>>> "S6.salary_p" in paper.registered_claims() and "eq_main" in paper.registered_derivations()
True
"""

from __future__ import annotations

import importlib

from ._claim import registered_claims
from ._proof import registry as registered_derivations

#: The section modules in paper order: importing them registers their derivations and claims
#: in that order (the order of the reports).
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
SECTIONS = tuple(importlib.import_module(f".{name}", __name__) for name in SECTION_NAMES)

__all__ = ["SECTIONS", "SECTION_NAMES", "registered_claims", "registered_derivations"]
