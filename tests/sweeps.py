"""Deterministic samples of the long oracle sweeps.

``make test`` runs a fixed, evenly spread sample of each long sweep (the first and the last case
always among them), chosen so that the sample still catches the sweep's planted errors;
``make test-full`` (``GARESEARCH_FULL_SWEEPS=1``) runs every case and every hypothesis example.
The sample depends on the case list only, never on the clock or the machine.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

FULL = os.environ.get("GARESEARCH_FULL_SWEEPS", "") not in ("", "0")


def sample(cases: Sequence, k: int) -> list:
    """``k`` cases spread evenly over ``cases`` (all of them under ``GARESEARCH_FULL_SWEEPS``)."""
    cases = list(cases)
    if FULL or len(cases) <= k:
        return cases
    if k == 1:
        return [cases[0]]
    picked = sorted({round(i * (len(cases) - 1) / (k - 1)) for i in range(k)})
    return [cases[i] for i in picked]


def examples(full: int, sampled: int) -> int:
    """Hypothesis examples of a property: ``full`` in the full run, ``sampled`` otherwise."""
    return full if FULL else sampled
