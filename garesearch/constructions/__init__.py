"""The paper's constructions: the comparison sets of Eq. (main) and their bounds (Sec. 4.1-4.3,
Theorems 1 and 2, sound and as printed), the counterexamples to them as printed (Sec. 3.2, 4.1,
Theorem 2) and the pointwise bound (beyond Sec. 3), each a sound lower bound on the optimum of
:mod:`garesearch.optimal`.

Its public modules:

- :mod:`garesearch.constructions.comparison_sets`
- :mod:`garesearch.constructions.counterexamples`
- :mod:`garesearch.constructions.or_lower`
- :mod:`garesearch.constructions.pointwise`

The modules named in ``__all__`` are loaded on first use (``garesearch.constructions.<module>``), so
that importing one module of the family loads no other.

Examples
--------
>>> from garesearch import constructions
>>> constructions.comparison_sets.__name__
'garesearch.constructions.comparison_sets'
"""

from __future__ import annotations

from .._optional import lazy_attributes

__all__ = ["comparison_sets", "counterexamples", "or_lower", "pointwise"]

__getattr__, __dir__ = lazy_attributes(__name__, {name: f".{name}" for name in __all__})
