"""The optimum engine: the largest epsilon at which no epsilon-DP mechanism moves the posterior
of the guessed set by more than delta (Def. 7; beyond Sec. 4.1, 4.2, 4.3), for one attribute
(:mod:`garesearch.optimal.attribute`) and for a goal (:mod:`garesearch.optimal.goals`), with
their certificates and solvers, and the mechanism of least noise within the bound
(:mod:`garesearch.optimal.least_noise`).

The public names of :mod:`garesearch.optimal.attribute` are given here too
(``garesearch.optimal.epsilon_optimal``), loaded on first use.

Its public modules:

- :mod:`garesearch.optimal.attribute`
- :mod:`garesearch.optimal.goals`
- :mod:`garesearch.optimal.least_noise`
- :mod:`garesearch.optimal.worst_record`

Examples
--------
>>> from garesearch.optimal import epsilon_optimal
>>> from garesearch import Categorical
>>> res = epsilon_optimal(Categorical({"heads": 0.5, "tails": 0.5}), r=0, delta=0.1)
>>> round(res.epsilon, 6)  # Sec. 3.2 at p = 1/2: ln(0.6 / 0.4)
0.405465
"""

from __future__ import annotations

from .._optional import lazy_attributes

#: the public names of :mod:`garesearch.optimal.attribute`, given here too
__all__ = ["OptimalResult", "epsilon_optimal", "posterior_extremes", "worst_posterior_lp"]

#: the modules loaded on first use as attributes (``garesearch.optimal.goals``)
_SUBMODULES = ["attribute", "goals", "least_noise", "worst_record"]

__getattr__, __dir__ = lazy_attributes(
    __name__, {**{name: ".attribute" for name in __all__}, **{name: f".{name}" for name in _SUBMODULES}})
