"""Shared test configuration: hypothesis profiles and mpmath's precision.

Hypothesis profiles (select with ``GARESEARCH_HYPOTHESIS_PROFILE``; default ``ci``):

- ``ci``: a bounded number of examples per property and no per-example deadline (the
  machines that run the suite are shared and their speed varies), with a fixed seed
  sequence (``derandomize``) and no example database, so that every run tests the same
  examples;
- ``fuzz``: many more examples, random seeds: ``GARESEARCH_HYPOTHESIS_PROFILE=fuzz pytest
  tests/test_fuzz.py``, for a long fuzzing run.

Properties that set their own ``@settings(max_examples=...)`` keep it.
"""

from __future__ import annotations

import os
import sys

import mpmath
import pytest
from hypothesis import HealthCheck, settings

# rfc3987_syntax (installed with the Jupyter stack) builds a Lark grammar when jsonschema imports
# it: about 2.6 s in every test process that imports nbformat.  The notebook schema uses no IRI
# format, so the tests go without it.
sys.modules.setdefault("rfc3987_syntax", None)

settings.register_profile(
    "ci",
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile(
    "fuzz",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("GARESEARCH_HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _mpmath_precision():
    """Every test starts and ends at mpmath's default precision (code uses ``workdps``)."""
    mpmath.mp.dps = 15
    yield
    mpmath.mp.dps = 15
