r"""The paper's worked examples (Sec. 6): the data as the paper states it, and the computations
several claims, plots and tables share.

- cats (Sec. 6.1): gender ``M``/``F`` uniform, colour :data:`COLOURS`, independent;
- salary (Sec. 6.2): :math:`N(2000, 55556)`, ``r = 100``, the paper's ``a = 200``;
- ships (Sec. 6.3): radial :math:`N(0, 1250)` in the plane, ``r = 10``, ``a = 20`` (at the
  paper's ``t = 0`` the distance to ``t`` has the one-dimensional prior used here).

The data (:data:`COLOURS`, :data:`GENDERS`, :data:`SALARY`, :data:`SHIPS`, :func:`example_prior`,
...) are defined in :mod:`garesearch.datasets`, the library's module of the paper's example
priors, and given here under the same names; :data:`SALARY` and :data:`SHIPS` hold the
numbers the paper states (some of them wrong: the claims of Sec. 6 check each one).

Examples
--------
>>> round(example_prior("salary").sigma, 2)
235.7
>>> round(cats_events()["or"][("white", "M")], 12)
0.55
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import attribute, bound, priors
from ..datasets import (
    COLOURS,
    DELTA,
    EXAMPLES,
    GENDERS,
    SALARY,
    SHIPS,
    _example,
    epsilon_against_a,
    example_prior,
    example_R,
)
from ._claim import cached

__all__ = [
    "COLOURS",
    "DELTA",
    "EXAMPLES",
    "GENDERS",
    "SALARY",
    "SHIPS",
    "best_a",
    "cats_events",
    "cats_goal_worst",
    "cats_or_epsilon_against_prior",
    "epsilon_against_a",
    "exact_violations",
    "example_R",
    "example_attribute",
    "example_prior",
    "soundness_counterexample",
    "two_sided",
    "worst_t",
]


def two_sided(p, delta: float = DELTA, R: float = 1.0) -> float:
    """Sec. 3.2: ``min(eps_lb, eps_ub)`` (:func:`garesearch.bound.epsilon_for_advantage`).

    Examples
    --------
    >>> round(two_sided(0.55), 6)   # 2 ln(0.55/0.45): the cats OR event, white
    0.401341
    """
    return float(bound.epsilon_for_advantage(delta=delta, p=p, a=R))


@cached
def cats_events() -> dict[str, dict[tuple[str, str], float]]:
    """Sec. 6.1: the prior of each (colour, gender) for the AND event (both guessed) and the
    OR event (at least one guessed), gender and colour independent.

    Examples
    --------
    >>> round(cats_events()["and"][("black", "F")], 12)
    0.2
    """
    gender, colour = priors.Categorical(GENDERS), priors.Categorical(COLOURS)
    out: dict[str, dict] = {"and": {}, "or": {}}
    for c in colour.values:
        for g in gender.values:
            pc, pg = colour.probability(c), gender.probability(g)
            out["and"][(c, g)] = pc * pg
            out["or"][(c, g)] = pc + pg - pc * pg
    return out


@cached
def cats_goal_worst(event: str) -> tuple[Any, float]:
    """The worst colour and the epsilon of the cats goal (``"and"`` or ``"or"``) found by
    :func:`garesearch.events.epsilon_for_goal`.

    Examples
    --------
    >>> colour, eps = cats_goal_worst("or")
    >>> colour, round(eps, 4)
    ('white', 0.4013)
    """
    from .. import events

    gender = events.Attribute(priors.Categorical(GENDERS), r=0, name="gender")
    colour = events.Attribute(priors.Categorical(COLOURS), r=0, name="colour")
    goal = gender & colour if event == "and" else gender | colour
    res = events.epsilon_for_goal(goal, delta=DELTA)
    return res.t["colour"], float(res.epsilon)


def cats_or_epsilon_against_prior(p, delta: float = DELTA):
    r"""The two-sided epsilon :math:`\min(\epsilon_{lb}, \epsilon_{ub})` (Sec. 3.2, ``R = 1``)
    against the prior ``p`` of the correct guesses, as used for the cats OR event (Sec. 6.1).

    Returns ``(eps_lb, eps_ub, eps)`` as arrays (``inf`` where a side cannot bind).

    Examples
    --------
    >>> lb, ub, eps = cats_or_epsilon_against_prior([0.45, 0.55])
    >>> bool(abs(eps[0] - eps[1]) < 1e-12)
    True
    """
    p = np.asarray(p, dtype=float)
    lb = np.asarray(bound.eps_lb(delta=delta, p=p), dtype=float)
    ub = np.asarray(bound.eps_ub(delta=delta, p=p), dtype=float)
    return lb, ub, np.minimum(lb, ub)


def example_attribute(name: str, construction: str, sides: str, t) -> attribute.AttributeResult:
    """:func:`garesearch.attribute.epsilon_for_attribute` on a Sec. 6 example at true value
    ``t`` (``None``: the worst), with the paper's ``R`` for the paper's construction.

    Examples
    --------
    >>> res = example_attribute("ships", "sound", "upper", 0.0)
    >>> round(res.distance - res.a, 6)   # the sound exponent: a + r
    10.0
    """
    ex = _example(name)
    R = example_R(name) if construction == "paper" else None
    return attribute.epsilon_for_attribute(
        example_prior(name), r=ex["r"], delta=ex["delta"], t=t, R=R, sides=sides,
        construction=construction,
    )


@cached
def best_a(name: str, construction: str, sides: str = "upper") -> attribute.AttributeResult:
    """The best comparison set at ``t = mu`` (garesearch's exact optimisation).

    Examples
    --------
    >>> round(best_a("salary", "paper").a)   # the paper's a = 200 is infeasible
    468
    """
    return example_attribute(name, construction, sides, _example(name)["mu"])


@cached
def worst_t(name: str, construction: str, sides: str = "upper") -> attribute.AttributeResult:
    """The worst true value (``t=None``): garesearch's search over ``t``.

    Examples
    --------
    >>> round(worst_t("salary", "paper").t)   # not mu = 2000
    1843
    """
    return example_attribute(name, construction, sides, None)


@cached
def soundness_counterexample() -> dict[str, Any]:
    """A prior and an eps-DP mechanism whose exact posterior breaks Eq. (main) with exponent
    ``a`` (:func:`garesearch.constructions.counterexamples.paper_counterexample`).

    Examples
    --------
    >>> ce = soundness_counterexample()
    >>> ce["posterior"] > ce["bound"]
    True
    """
    from ..constructions import counterexamples

    ce = counterexamples.paper_counterexample()
    return {
        "posterior": float(ce["posterior"]), "bound": float(ce["bound"]),
        "epsilon": float(ce["epsilon"]),
        "what": (
            f"the identity query with Laplace noise at the paper's eps = {ce['epsilon']:.4f} "
            "on a prior with mass 0.2 at t - r, 0.5 at t + a (r = 1, a = 2)"
        ),
    }


@cached
def exact_violations() -> list[dict]:
    """Counterexamples to Eq. (main) with exponent ``a`` from
    :func:`garesearch.constructions.counterexamples.soundness_counterexamples` (exact posteriors of Laplace and
    generalised Cauchy mechanisms).

    Examples
    --------
    >>> len(exact_violations()) > 0
    True
    """
    from ..constructions import counterexamples

    return [rec for rec in counterexamples.soundness_counterexamples() if rec.get("violated")]
