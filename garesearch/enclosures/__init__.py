r"""Certified integrals and tails of the priors: the tilted masses (the integrals
:math:`\int e^{\pm\epsilon |x - c|}\,dF` over a ball and outside it) as intervals with bounded
rounding (:mod:`garesearch.enclosures.tilted`), the tails of scipy's families declared from
their formulas (:mod:`garesearch.enclosures.tails`) and the declared curvature of their
log-densities (:mod:`garesearch.enclosures.curvature`), on which the optimum of Sec. 4.1 and
the exact advantage of Sec. 3.2 rest.

Its public modules:

- :mod:`garesearch.enclosures.curvature`
- :mod:`garesearch.enclosures.tails`
- :mod:`garesearch.enclosures.tilted`

The modules named in ``__all__`` are loaded on first use (``garesearch.enclosures.<module>``), so
that importing one module of the family loads no other.

Examples
--------
>>> from garesearch import enclosures
>>> enclosures.tilted.__name__
'garesearch.enclosures.tilted'
"""

from __future__ import annotations

from .._optional import lazy_attributes

__all__ = ["tilted"]

__getattr__, __dir__ = lazy_attributes(__name__, {name: f".{name}" for name in __all__})
