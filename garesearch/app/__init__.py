"""The interfaces: the command line (``python -m garesearch``), PLEAK's attacker and goal files
(Sec. 4 through PLEAK), the teaching widgets, the paper's figures (Fig. 1, 2a, 2b), the main
job (``garesearch reproduce``: notebooks, figures, claims report, erratum) and the
benchmarks.  The core and the other families never import it at module level.

Its public modules:

- :mod:`garesearch.app.bench`
- :mod:`garesearch.app.claims_report`
- :mod:`garesearch.app.cli`
- :mod:`garesearch.app.cli_calibrate`
- :mod:`garesearch.app.demo`
- :mod:`garesearch.app.erratum`
- :mod:`garesearch.app.figures`
- :mod:`garesearch.app.nbclean`
- :mod:`garesearch.app.pleak`
- :mod:`garesearch.app.plotting`
- :mod:`garesearch.app.publish`
- :mod:`garesearch.app.readme_numbers`
- :mod:`garesearch.app.reproduce`
- :mod:`garesearch.app.widgets`

The modules named in ``__all__`` are loaded on first use (``garesearch.app.<module>``), so
that importing one module of the family loads no other.

Examples
--------
>>> from garesearch import app
>>> app.cli.__name__
'garesearch.app.cli'
"""

from __future__ import annotations

from .._optional import lazy_attributes

__all__ = ["cli", "figures", "pleak", "plotting", "widgets"]

__getattr__, __dir__ = lazy_attributes(__name__, {name: f".{name}" for name in __all__})
