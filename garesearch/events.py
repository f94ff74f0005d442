r"""Several attributes: the epsilon of AND and OR events (Sec. 4.2, 4.3, Theorems 1 and 2,
Sec. 6.1).

A *goal* says when the attacker wins (:mod:`garesearch.goals`): per-attribute parts combined
with ``&`` (AND: every attribute within its precision) and ``|`` (OR: at least one part)::

    gender = Attribute(Categorical({"M": .5, "F": .5}), r=0, name="gender")
    colour = Attribute(Categorical({...}), r=0, name="colour")
    epsilon_for(gender & colour, delta=0.1)     # AND event, Theorem 1
    epsilon_for(gender | colour, delta=0.1)     # OR event, Sec. 4.3 variant 2
    epsilon_for_each([gender, colour], delta=0.1)   # Sec. 4.3 variant 1

Three constructions answer "which epsilon?":

- ``"optimal"`` (the default; beyond the paper): the largest epsilon at which *no*
  epsilon-DP mechanism moves the posterior of the goal by more than ``delta``
  (:func:`garesearch.optimal.goals.epsilon_optimal`).  Exact for finite priors, one attribute,
  the discrete metric and ``norm=1``; a certified bracket whose sound end is returned for
  continuous attributes under other norms.
- ``"sound"``: the comparison sets of Theorem 1 and of the corrected Theorem 2
  (:func:`garesearch.constructions.comparison_sets.comparison_set_epsilon`): sound, not optimal.
- ``"paper"``: Theorems 1 and 2 as printed (not sound in general).

The names below that describe goals and comparison sets are defined in
:mod:`garesearch.goals`, :mod:`garesearch.constructions.comparison_sets` and :mod:`garesearch.constructions.or_lower`
and kept here for convenience.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ._plain import PlainFields
from .attribute import epsilon_for_attribute
from .constructions.comparison_sets import (
    GoalResult,
    comparison_set_epsilon,
    optimise_radii,
    or_blocks,
    theorem2_counterexample,
)
from .constructions.or_lower import or_lower_ratio
from .errors import ParameterError
from .goals import (
    AllOf,
    AnyOf,
    Attribute,
    Coordinates,
    as_goal,
    check_norm,
    in_goal,
    lp_ball_mass,
    or_probability,
)
from .optimal.goals import OptimalGoalResult, epsilon_optimal
from .priors import Prior

__all__ = [
    "AllOf",
    "AnyOf",
    "Attribute",
    "Coordinates",
    "GoalResult",
    "OptimalGoalResult",
    "SeparateResult",
    "epsilon_for",
    "epsilon_for_each",
    "epsilon_for_goal",
    "in_goal",
    "lp_ball_mass",
    "optimise_radii",
    "or_blocks",
    "or_lower_ratio",
    "or_probability",
    "theorem2_counterexample",
]

_CONSTRUCTIONS = ("optimal", "sound", "paper")


@dataclass(frozen=True)
class SeparateResult(PlainFields):
    """Sec. 4.3, variant 1: every goal protected on its own; the smallest epsilon wins."""

    epsilon: float
    worst: int
    results: tuple

    def laplace_scale(self, sensitivity: float = 1.0) -> float:
        """Scale ``b = sensitivity / epsilon`` of the goal that needs the most noise."""
        return self.results[self.worst].laplace_scale(sensitivity)


def epsilon_for_goal(
    goal,
    *,
    delta: float,
    t: Any = None,
    norm: float = math.inf,
    a: Any = None,
    sides: str = "both",
    construction: str = "optimal",
    method: str | None = None,
    radii: str | None = None,
    rtol: float | None = None,
    budget: float | None = None,
) -> OptimalGoalResult | GoalResult:
    r"""Epsilon that keeps the advantage in reaching ``goal`` at most ``delta`` (Def. 7 for
    AND / OR goals: Sec. 4.2, 4.3, Theorems 1 and 2; the optimum is beyond the paper).

    Parameters
    ----------
    goal : Attribute, Coordinates, AllOf or AnyOf
        Attributes combined with ``&`` (AND) and ``|`` (OR).  An OR of AND-sets is the
        paper's collection :math:`\mathcal S` under variant 2 of Sec. 4.3.
    delta : float
        Bound on the advantage, in (0, 1).
    t : Mapping or sequence, optional
        True values, by attribute name or in order of appearance.  ``None``: the worst
        combination (finite priors for ``construction="sound"`` and ``"paper"``; with a
        continuous attribute the optimum screens every record,
        :func:`~garesearch.optimal.goals.epsilon_optimal`).
    norm : float
        The records' distance is the :math:`\ell_{norm}` norm of the attribute distances;
        in [1, inf], default inf (Theorem 1).  The epsilon is per unit of that distance.
    a, method, radii
        Comparison radii, the OR construction and the radius search of the comparison sets
        (``construction="sound"`` or ``"paper"`` only; see
        :func:`~garesearch.constructions.comparison_sets.comparison_set_epsilon`).  With
        ``construction="optimal"`` they are refused: the optimum has no comparison set.
    sides : {"both", "upper"}
        ``"both"`` bounds :math:`|\Pr_{post} - \Pr_{pre}|` (Def. 7); ``"upper"`` the gain only.
    construction : {"optimal", "sound", "paper"}
        ``"optimal"`` (default): the largest epsilon at which no epsilon-DP mechanism exceeds
        ``delta`` (:func:`~garesearch.optimal.goals.epsilon_optimal`); ``"sound"``: the
        comparison sets of Theorems 1 and 2 (corrected); ``"paper"``: as printed (not sound
        in general).
    rtol, budget
        ``construction="optimal"`` only: the precision (target relative width of the
        certified bracket, which sets the fixed work schedule: identical calls give identical
        results) and an optional wall-clock cap in seconds (default ``None``: none; when it
        runs out the bracket so far is returned, marked ``cut_short``, with a
        :class:`~garesearch.optimal.goals.CutShortWarning`).  See
        :func:`~garesearch.optimal.goals.epsilon_optimal`.

    Returns
    -------
    OptimalGoalResult or GoalResult
        Both carry ``epsilon``, ``t``, ``p``, ``event``, ``method``, ``binding``,
        ``epsilon_upper``, ``epsilon_lower``, ``construction``, ``posterior_bound()`` and
        ``laplace_scale()``.  The optimum adds the bracket (``epsilon_lo``, ``epsilon_hi``,
        ``rel_width``) and the worst-case mechanism (``witness``); the comparison sets add
        ``a``, ``distance`` and ``ratio``.

    Raises
    ------
    ParameterError
        Bad input (empty goals, dependent attributes detected, wrong ``t``, arguments of a
        construction given to another, ...).
    InfeasibleError
        If no epsilon > 0 meets the request.

    See Also
    --------
    garesearch.optimal.goals.epsilon_optimal : The default construction.
    garesearch.constructions.comparison_sets.comparison_set_epsilon : Theorems 1 and 2's comparison sets (``construction="sound"``, ``"paper"``).
    garesearch.attribute.epsilon_for_attribute : One attribute (Sec. 4.1).
    garesearch.app.pleak.epsilon_for_pleak_goal : A goal read from PLEAK's files.

    Examples
    --------
    The cats of Sec. 6.1: uniform gender, five colours.  Under the discrete metric the
    paper's numbers are the optimum over all mechanisms.

    >>> from garesearch.priors import Categorical
    >>> gender = Attribute(Categorical({"M": .5, "F": .5}), r=0, name="gender")
    >>> colour = Attribute(Categorical({"red": .2, "white": .1, "tabby": .25, "black": .4,
    ...                                 "tortoise": .05}), r=0, name="colour")
    >>> res = epsilon_for_goal(gender & colour, delta=0.1)
    >>> res.t["colour"], round(res.p, 3), round(res.epsilon, 4), res.construction
    ('black', 0.2, 0.539, 'optimal')
    >>> res = epsilon_for_goal(gender | colour, delta=0.1)
    >>> res.t["colour"], round(res.p, 3), round(res.epsilon, 4)
    ('white', 0.55, 0.4013)
    >>> round(epsilon_for_goal(gender | colour, delta=0.1, construction="sound").epsilon, 4)
    0.4013
    """
    if construction not in _CONSTRUCTIONS:
        raise ParameterError(f"construction must be one of {_CONSTRUCTIONS}; got {construction!r}")
    if construction == "optimal":
        given = [name for name, v in (("a", a), ("method", method), ("radii", radii)) if v is not None]
        if given:
            raise ParameterError(
                f"{', '.join(given)} choose comparison sets (construction='sound' or 'paper'); "
                "construction='optimal' has none: drop them, or pass construction='sound'")
        return epsilon_optimal(goal, delta=delta, t=t, norm=norm, sides=sides, rtol=rtol, budget=budget)
    given = [name for name, v in (("rtol", rtol), ("budget", budget)) if v is not None]
    if given:
        raise ParameterError(f"{', '.join(given)} apply to construction='optimal' only")
    return comparison_set_epsilon(goal, delta=delta, t=t, norm=norm, a=a, sides=sides,
                                  construction=construction,
                                  method="best" if method is None else method,
                                  radii="common" if radii is None else radii)


def epsilon_for(goal_or_prior, *, delta: float, r: float | None = None, **kwargs):
    r"""One entry point for one attribute or a goal.

    A :class:`~garesearch.priors.Prior` (with ``r``) or a single :class:`Attribute` goes to
    :func:`garesearch.attribute.epsilon_for_attribute` (Sec. 4.1); a combination of
    attributes to :func:`epsilon_for_goal` (Sec. 4.2, 4.3).  Keyword arguments are passed on;
    both default to the optimal construction.

    Returns
    -------
    AttributeResult, OptimalResult, OptimalGoalResult or GoalResult

    Examples
    --------
    A fair coin guessed exactly (``r = 0``), ``delta = 0.1``: :math:`\epsilon =
    \ln\frac{(p+\delta)(1-p)}{p(1-p-\delta)} = \ln 1.5`, for a prior or an attribute alike:

    >>> import math
    >>> from garesearch.priors import Categorical
    >>> coin = Categorical({"heads": 0.5, "tails": 0.5})
    >>> abs(epsilon_for(coin, r=0, delta=0.1).epsilon - math.log(1.5)) < 1e-12
    True
    >>> abs(epsilon_for(Attribute(coin, r=0), delta=0.1).epsilon - math.log(1.5)) < 1e-12
    True
    """
    if isinstance(goal_or_prior, Prior):
        if r is None:
            raise ParameterError("r is required when a prior is given (the precision of a guess)")
        return epsilon_for_attribute(goal_or_prior, r=r, delta=delta, **kwargs)
    if r is not None:
        raise ParameterError("r belongs to each Attribute of a goal; pass it to Attribute(prior, r=...)")
    goal = as_goal(goal_or_prior)
    if isinstance(goal, Attribute):
        extra = {k: kwargs.pop(k) for k in ("t", "sides", "construction", "R") if k in kwargs}
        norm = kwargs.pop("norm", math.inf)
        check_norm(norm)
        kwargs.pop("method", None)
        if kwargs:
            raise ParameterError(f"unexpected arguments for one attribute: {sorted(kwargs)}")
        if isinstance(extra.get("t"), dict):
            if goal.name not in extra["t"] or len(extra["t"]) != 1:
                raise ParameterError(f"t: give {{{goal.name!r}: value}} for this attribute; got {extra['t']!r}")
            extra["t"] = extra["t"][goal.name]
        return epsilon_for_attribute(goal.prior, r=goal.r, delta=delta, **extra)
    return epsilon_for_goal(goal, delta=delta, **kwargs)


def epsilon_for_each(goals: Iterable, *, delta: float, **kwargs) -> SeparateResult:
    r"""Sec. 4.3, variant 1: protect each set of sensitive attributes separately.

    Each goal gets its own epsilon (:func:`epsilon_for`, the optimal construction unless
    ``construction`` says otherwise); the smallest one protects all of them at once (it gives
    the largest noise).

    Returns
    -------
    SeparateResult
        ``epsilon`` (the smallest), ``worst`` (its index) and every ``results``.

    Examples
    --------
    A fair coin (:math:`\ln 1.5`) and a biased one (the rarer side, ``p = 0.2``:
    :math:`\ln\frac{0.3 \cdot 0.8}{0.2 \cdot 0.7} = \ln(12/7)`); the fair coin needs more noise:

    >>> import math
    >>> from garesearch.priors import Categorical
    >>> fair = Attribute(Categorical({"a": 0.5, "b": 0.5}), r=0)
    >>> biased = Attribute(Categorical({"a": 0.8, "b": 0.2}), r=0)
    >>> res = epsilon_for_each([fair, biased], delta=0.1)
    >>> res.worst, abs(res.epsilon - math.log(1.5)) < 1e-12
    (0, True)
    >>> abs(res.results[1].epsilon - math.log(12 / 7)) < 1e-12
    True
    """
    import numpy as np

    if isinstance(goals, (Attribute, Coordinates, AllOf, AnyOf)):
        goals = [goals]
    try:
        goals = list(goals)
    except TypeError:
        raise ParameterError(f"goals must be a goal or an iterable of goals; got {type(goals).__name__}") from None
    if not goals:
        raise ParameterError("goals must hold at least one goal; got none")
    results = tuple(epsilon_for(g, delta=delta, **kwargs) for g in goals)
    worst = int(np.argmin([res.epsilon for res in results]))
    return SeparateResult(epsilon=results[worst].epsilon, worst=worst, results=results)
