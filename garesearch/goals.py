r"""Goals over several attributes: what the attacker must guess, and how well (Sec. 4.2, 4.3).

A *goal* says when the attacker wins.  Build it from per-attribute parts and combine them
with ``&`` (AND: every attribute within its precision) and ``|`` (OR: at least one part)::

    gender = Attribute(Categorical({"M": .5, "F": .5}), r=0, name="gender")
    colour = Attribute(Categorical({...}), r=0, name="colour")
    gender & colour      # AND event, Theorem 1
    gender | colour      # OR event, Sec. 4.3 variant 2

Attributes combined in one goal must be mutually independent (the paper's theorems say
"pairwise"; the product formula :math:`\Pr = \prod_i g_i` needs mutual independence).
Correlated attributes are one attribute with a joint prior (a ``Categorical`` over tuples).

The distance between two records is the :math:`\ell_p` norm (``norm``, default
:math:`\infty`) of the per-attribute distances; each attribute keeps its own unit.

Parts combined with ``&`` give a *box* of correct guesses, :math:`\prod_i [t_i - r_i, t_i +
r_i]`; ``norm`` only changes the distance in the exponent.  A *ball*
:math:`\{x : \lVert x - t\rVert_p \le r\}` (a location guessed within ``r`` metres, Sec. 6.3)
is one part of its own: :class:`Coordinates` ``([prior_x, prior_y], r=10, norm=2)``, whose
prior mass :func:`lp_ball_mass` integrates numerically (closed form for isotropic normals).

This module describes goals and their prior probabilities; the epsilon of a goal comes from
:func:`garesearch.events.epsilon_for_goal` (the optimum over all mechanisms,
:mod:`garesearch.optimal.goals`, or the comparison sets of Theorems 1 and 2,
:mod:`garesearch.constructions.comparison_sets`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from ._goals_ball import (
    _is_real,
    check_norm,
    lp_ball_mass,
    lp_norm,
    norm_of,
    prior_density,
)
from .errors import ParameterError
from .priors import Categorical, Prior

__all__ = [
    "AllOf",
    "AnyOf",
    "Attribute",
    "Coordinates",
    "as_goal",
    "attributes_of",
    "check_norm",
    "in_goal",
    "lp_ball_mass",
    "lp_norm",
    "norm_of",
    "or_probability",
    "prior_density",
    "resolve_t",
    "terms_probability",
]


class _Goal:
    """Common operators of goals: ``&`` is AND, ``|`` is OR (Sec. 4.2, 4.3)."""

    def __and__(self, other):
        return AllOf(self, other)

    def __or__(self, other):
        return AnyOf(self, other)

    def terms(self) -> tuple[tuple[Attribute, ...], ...]:
        """The goal as an OR of AND-sets (the paper's collection :math:`\\mathcal S`)."""
        raise NotImplementedError


class Attribute(_Goal):
    r"""One sensitive attribute: the attacker wins on it by guessing within ``r`` (Def. 7).

    Parameters
    ----------
    prior : Prior
        The attacker's prior of this attribute (:mod:`garesearch.priors`).
    r : float
        Precision of a correct guess: :math:`X'_i = \mathcal B(t_i, r)`; ``0 <= r`` and ``r``
        below the prior's diameter (below 1 under the discrete metric).
    name : str, optional
        A label (used in results, and to catch the same attribute passed twice).
    """

    def __init__(self, prior: Prior, *, r: float, name: str | None = None):
        if not isinstance(prior, Prior):
            raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
        if not (_is_real(r) and math.isfinite(r)):
            raise ParameterError(f"r must be a finite real number; got {r!r}")
        if r < 0:
            raise ParameterError(f"r must be >= 0; got {r}")
        if r >= self._diameter_of(prior):
            raise ParameterError(
                f"r must lie in [0, R) with R = {self._diameter_of(prior)} the diameter of the "
                f"prior's support (a larger r makes every guess correct); got r={r}"
            )
        if name is not None and not isinstance(name, str):
            raise ParameterError(f"name must be a string; got {name!r}")
        self.prior = prior
        self.r = float(r)
        self.name = name

    def __repr__(self):
        label = f", name={self.name!r}" if self.name else ""
        return f"Attribute({self.prior!r}, r={self.r}{label})"

    def terms(self):
        return ((self,),)

    # --- metric helpers -----------------------------------------------------------------
    @staticmethod
    def _diameter_of(prior) -> float:
        if isinstance(prior, Categorical) and prior.metric == "discrete":
            return 1.0 if len(prior.values) > 1 else 0.0
        low, high = prior.support
        return high - low

    @property
    def discrete(self) -> bool:
        """True under the discrete metric (non-numeric values, distance 1)."""
        return isinstance(self.prior, Categorical) and self.prior.metric == "discrete"

    @property
    def diameter(self) -> float:
        """Largest distance between two values of the prior (may be ``inf``)."""
        return self._diameter_of(self.prior)

    @property
    def finite(self) -> bool:
        return isinstance(self.prior, Categorical)

    def values(self) -> list:
        """The finitely many values (finite priors only)."""
        return list(self.prior.values)

    def check_t(self, t):
        """Raise :class:`ParameterError` unless ``t`` is a value the prior allows."""
        if self.discrete:
            self.prior.probability(t)
            return t
        if not (_is_real(t) and math.isfinite(t)):
            raise ParameterError(f"t for attribute {self.label} must be a finite number; got {t!r}")
        low, high = self.prior.support
        if not low <= t <= high:
            raise ParameterError(
                f"t for attribute {self.label} must lie in the support [{low}, {high}]; got {t}"
            )
        return float(t)

    @property
    def label(self) -> str:
        return self.name if self.name else repr(self.prior)

    def g(self, t, z) -> float:
        r"""The paper's :math:`g_t(z) = \Pr[d(X, t) \le z]` (Sec. 4.1)."""
        if self.discrete:
            return 1.0 if z >= 1 else self.prior.probability(t)
        return float(self.prior.ball_mass(t, z))

    def spread(self, t, a) -> float:
        """Largest distance between a point of :math:`\\mathcal B(t, r)` and one of
        :math:`\\mathcal B(t, a)`, both cut to the prior's support."""
        if self.discrete:
            return 1.0 if a >= 1 else 0.0
        lo_r, hi_r = self.prior.correct_extent(t, self.r)
        lo_a, hi_a = self.prior.correct_extent(t, a)
        return max(hi_r - lo_a, hi_a - lo_r, 0.0)

    def width(self, a) -> float:
        """Largest distance between two points of one tile of half-width ``a``."""
        if self.discrete:
            return 1.0 if a >= 1 else 0.0
        return min(2.0 * a, self.diameter)

    def a_max(self, t) -> float:
        """Largest useful comparison radius around ``t`` (covers the whole support)."""
        if self.discrete:
            return 1.0
        low, high = self.prior.support
        if not math.isfinite(low):
            low = float(self.prior.quantile(1e-12))
        if not math.isfinite(high):
            high = float(self.prior.quantile(1 - 1e-12))
        return max(t - low, high - t, self.r)

    def breakpoints(self, t) -> np.ndarray:
        """Radii at which the ball mass jumps (finite priors)."""
        if self.discrete:
            return np.array([1.0])
        return np.unique(np.abs(self.prior.points - t))

    @property
    def prior_objects(self) -> tuple:
        return (self.prior,)

    def tile_mass(self, t, a) -> float:
        """Mass of the central tile of the OR blocks (the interval of half-width ``a``)."""
        return self.g(t, a)

    def tile_spread(self, t, a) -> float:
        return self.spread(t, a)

    def moment(self, epsilon, t) -> float:
        r"""Upper bound on :math:`E[e^{\epsilon D(X)}]`, :math:`D(x)` the largest distance
        from ``x`` to :math:`\mathcal B(t, r)` (used for the lower side)."""
        if self.discrete:
            p = self.prior.probability(t)
            return p + (1 - p) * math.exp(epsilon)
        lo, hi = self.prior.correct_extent(t, self.r)
        return self.prior.tail_mgf(epsilon, lo, hi) + self.g(t, self.r) * math.exp(epsilon * (hi - lo))


# ------------------------------------------------------------------------------------------
# Coordinates guessed together within an l_p ball
# ------------------------------------------------------------------------------------------
class Coordinates(_Goal):
    r"""Numeric coordinates guessed together within an :math:`\ell_p` ball (Sec. 4.2, 6.3).

    The attacker wins if the guess lies in :math:`X' = \{x : \lVert x - t\rVert_p \le r\}`
    (``norm=2``: within ``r`` of the true location, as in the ships example of Sec. 6.3),
    not in the box :math:`\prod_i [t_i - r, t_i + r]` that :class:`Attribute` parts combined
    with ``&`` describe.  The coordinates count as one part of a goal whose distance is
    :math:`\lVert x - x'\rVert_p`; combined with other parts by ``&`` and ``|``, the records'
    distance is the ``norm`` of :func:`epsilon_for_goal` over the parts' distances.

    *Upper side.*  The comparison set is the shell :math:`\{r < \lVert x - t\rVert_p \le a\}`
    of mass :math:`g_t(a) - g_t(r)` (:func:`lp_ball_mass`); a point of the ball and one of the
    shell are at most :math:`a + r` apart (triangle inequality; attained when both sides are
    inside the support), which goes into the exponent of Eq. (main).
    *Lower side.*  The largest distance from ``x`` to :math:`X'` is
    :math:`\lVert x - t\rVert_p + r \le \sum_i |x_i - t_i| + r`, so
    :math:`E[e^{\epsilon D(X)}] \le e^{\epsilon r}\prod_i E[e^{\epsilon |X_i - t_i|}]` enters
    the bound of the module docstring (sound, loose by up to the ratio of the
    :math:`\ell_1` and :math:`\ell_p` norms); with bounded coordinates also Sec. 3.2's
    :math:`\epsilon_{ub}` over the diameter.
    *OR blocks.*  The tiles are cubes of half-width ``a`` around ``t`` (they hold the ball for
    ``a >= r``): two points of a cube are at most :math:`2 a n^{1/p}` apart, a point of the
    ball and one of the cube at most :math:`a n^{1/p} + r`.

    Parameters
    ----------
    priors : sequence of Prior
        Independent numeric priors of the coordinates (at least two).
    r : float
        Radius of a correct guess, ``>= 0``.
    norm : float
        The ``p`` of the ball, in [1, inf] (default 2).
    name : str, optional

    Examples
    --------
    The ships of Sec. 6.3 with independent :math:`N(0, 1250)` coordinates:

    >>> from garesearch.priors import Normal
    >>> ship = Coordinates([Normal(0, 1250 ** 0.5), Normal(0, 1250 ** 0.5)], r=10, name="ship")
    >>> round(ship.g((0.0, 0.0), 10), 4)
    0.0392
    """

    discrete = False
    finite = False

    def __init__(self, priors: Sequence[Prior], *, r: float, norm: float = 2.0, name: str | None = None):
        if isinstance(priors, Prior) or not isinstance(priors, Sequence):
            raise ParameterError("priors must be a sequence of priors, one per coordinate")
        priors = tuple(priors)
        if len(priors) < 2:
            raise ParameterError(f"Coordinates needs at least two priors; got {len(priors)} (use Attribute)")
        for p in priors:
            if not isinstance(p, Prior) or p.metric != "absolute":
                raise ParameterError("every coordinate needs a numeric garesearch.priors.Prior")
        if len({id(p) for p in priors}) != len(priors):
            raise ParameterError("the coordinates share a prior object: give each its own prior")
        if not (_is_real(r) and math.isfinite(r) and r >= 0):
            raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
        self.norm = check_norm(norm)
        if name is not None and not isinstance(name, str):
            raise ParameterError(f"name must be a string; got {name!r}")
        self.priors = priors
        self.r = float(r)
        self.name = name
        if not self.r < self.diameter:
            raise ParameterError(f"r must lie in [0, R) with R = {self.diameter} the diameter; got r={r}")

    def __repr__(self):
        label = f", name={self.name!r}" if self.name else ""
        return f"Coordinates({list(self.priors)!r}, r={self.r}, norm={self.norm}{label})"

    def terms(self):
        return ((self,),)

    @property
    def prior_objects(self) -> tuple:
        return self.priors

    @property
    def label(self) -> str:
        return self.name if self.name else repr(self)

    @property
    def dim(self) -> int:
        return len(self.priors)

    @property
    def diameter(self) -> float:
        return lp_norm([p.support[1] - p.support[0] for p in self.priors], self.norm)

    def check_t(self, t):
        if isinstance(t, (str, bytes)) or not isinstance(t, (Sequence, np.ndarray)) or len(t) != self.dim:
            raise ParameterError(f"t for {self.label} must be {self.dim} numbers; got {t!r}")
        out = []
        for p, v in zip(self.priors, t, strict=True):
            if not (_is_real(v) and math.isfinite(v)):
                raise ParameterError(f"t for {self.label} must be finite numbers; got {t!r}")
            low, high = p.support
            if not low <= v <= high:
                raise ParameterError(f"t for {self.label}: {v} lies outside the support [{low}, {high}]")
            out.append(float(v))
        return tuple(out)

    def g(self, t, z) -> float:
        r""":math:`g_t(z) = \Pr[\lVert X - t\rVert_p \le z]` (:func:`lp_ball_mass`)."""
        return lp_ball_mass(self.priors, t, z, norm=self.norm)

    def spread(self, t, a) -> float:
        """Largest distance between a point of the ball of radius ``r`` and one of radius ``a``."""
        return min(a + self.r, self.diameter)

    def tile_mass(self, t, a) -> float:
        """Mass of the cube of half-width ``a`` around ``t`` (the central tile of the OR blocks)."""
        return math.prod(float(p.mass1(ti - a, ti + a)) for p, ti in zip(self.priors, t, strict=True))

    def tile_spread(self, t, a) -> float:
        return min(a * self.dim ** (1.0 / self.norm) + self.r, self.diameter)

    def width(self, a) -> float:
        return min(2.0 * a * self.dim ** (1.0 / self.norm), self.diameter)

    def a_max(self, t) -> float:
        ext = []
        for p, ti in zip(self.priors, t, strict=True):
            low, high = p.support
            if not math.isfinite(low):
                low = float(p.quantile(1e-12))
            if not math.isfinite(high):
                high = float(p.quantile(1 - 1e-12))
            ext.append(max(ti - low, high - ti))
        return max(lp_norm(ext, self.norm), self.r)

    def moment(self, epsilon, t) -> float:
        r"""Upper bound :math:`e^{\epsilon r}\prod_i E[e^{\epsilon|X_i - t_i|}]` on
        :math:`E[e^{\epsilon D(X)}]` (class docstring)."""
        out = math.exp(epsilon * self.r)
        for p, ti in zip(self.priors, t, strict=True):
            out *= p.tail_mgf(epsilon, ti, ti) + float(p.mass1(ti, ti))
        return out

    def contains(self, x, t) -> np.ndarray:
        """Whether points ``x`` (last axis: the coordinates) lie in the ball around ``t``: their
        computed distance (:func:`norm_of` of the computed ``|x_i - t_i|``) is at most ``r``
        (exact on the axes through ``t``; elsewhere the decision of the rounded norm, a few
        units in the last place from the exact one).

        Examples
        --------
        >>> from garesearch.priors import Normal
        >>> ball = Coordinates([Normal(0, 1), Normal(0, 1)], r=0.3, norm=2)
        >>> ball.contains([[0.3, 0.0], [0.0, -0.3], [0.3, 1e-7], [0.3, 1e-9]], [0.0, 0.0]).tolist()
        [True, True, False, True]

        (The last point's distance exceeds 0.3 by 2e-18, below the rounding of 0.3.)
        """
        d = np.abs(np.asarray(x, dtype=float) - np.asarray(t, dtype=float))
        return norm_of(d, self.norm) <= self.r


class AllOf(_Goal):
    """AND of parts: the attacker must guess every attribute within its precision (Sec. 4.2)."""

    def __init__(self, *parts):
        if not parts:
            raise ParameterError("an AND goal needs at least one attribute; got none")
        flat = []
        for part in parts:
            if not isinstance(part, _Goal):
                raise ParameterError(f"parts of a goal must be Attribute or goals; got {type(part).__name__}")
            flat.append(part)
        self.parts = tuple(flat)
        self.terms()  # validates

    def __repr__(self):
        return "(" + " & ".join(map(repr, self.parts)) + ")"

    def terms(self):
        # distribute AND over OR: (a | b) & c = (a & c) | (b & c)
        out = [()]
        for part in self.parts:
            out = [left + right for left in out for right in part.terms()]
        return tuple(_dedupe_and(term) for term in out)


class AnyOf(_Goal):
    """OR of parts: the attacker wins by guessing at least one part (Sec. 4.3, variant 2)."""

    def __init__(self, *parts):
        if not parts:
            raise ParameterError("an OR goal needs at least one part; got none")
        for part in parts:
            if not isinstance(part, _Goal):
                raise ParameterError(f"parts of a goal must be Attribute or goals; got {type(part).__name__}")
        self.parts = tuple(parts)
        self.terms()

    def __repr__(self):
        return "(" + " | ".join(map(repr, self.parts)) + ")"

    def terms(self):
        return tuple(term for part in self.parts for term in part.terms())


def _dedupe_and(term: tuple[Attribute, ...]) -> tuple[Attribute, ...]:
    """An AND-set may not hold the same attribute twice (the product formula needs
    independent factors)."""
    seen: list[Attribute] = []
    for att in term:
        for other in seen:
            if other is att:
                raise ParameterError(
                    f"attribute {att.label} appears twice in one AND; the attributes of an AND "
                    "must be independent (use one attribute with a joint prior for correlated ones)"
                )
        seen.append(att)
    return tuple(seen)


def attributes_of(terms) -> list[Attribute]:
    """Distinct attributes of a goal (by identity), checked for obvious dependence.

    Examples
    --------
    >>> from garesearch.priors import Uniform
    >>> x = Attribute(Uniform(0, 10), r=1, name="x")
    >>> y = Attribute(Uniform(0, 10), r=2, name="y")
    >>> [att.name for att in attributes_of(((x, y), (y,)))]
    ['x', 'y']
    """
    atts: list[Attribute] = []
    for term in terms:
        for att in term:
            if not any(att is other for other in atts):
                atts.append(att)
    for x, y in itertools.combinations(atts, 2):
        if any(u is v for u in x.prior_objects for v in y.prior_objects):
            raise ParameterError(
                f"attributes {x.label} and {y.label} share one prior object: the attributes of a "
                "goal must be independent. Give each its own prior, or describe correlated "
                "attributes by one joint prior"
            )
        if x.name is not None and x.name == y.name:
            raise ParameterError(f"two different attributes are both named {x.name!r}")
    return atts


def as_goal(goal) -> _Goal:
    """``goal`` itself if it is a goal (an :class:`Attribute`, :class:`Coordinates` or a
    combination); :class:`~garesearch.ParameterError` otherwise.

    Examples
    --------
    >>> from garesearch.priors import Uniform
    >>> x = Attribute(Uniform(0, 10), r=1)
    >>> as_goal(x) is x
    True
    >>> as_goal(3)
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: goal must be an Attribute or a combination with & and |; got int
    """
    if isinstance(goal, _Goal):
        return goal
    raise ParameterError(f"goal must be an Attribute or a combination with & and |; got {type(goal).__name__}")


def or_probability(goal, t) -> float:
    r"""Prior probability that the attacker wins an OR of AND-sets, by inclusion-exclusion
    (Sec. 4.3, Sec. 6.1).

    .. math:: \Pr\Big[\bigcup_k X'_k\Big] = \sum_{\emptyset \ne S} (-1)^{|S|+1}
       \prod_{i \in \cup_{k \in S} S_k} g_i\big(\min_{k \in S,\, i \in S_k} r_i\big)

    (attributes independent; an attribute shared by two sets counts once).

    Parameters
    ----------
    goal : Attribute, AllOf or AnyOf
    t : Mapping or sequence
        The true values, keyed by attribute name or in the order of first appearance.

    Examples
    --------
    Two independent Uniform(0, 10) attributes guessed within 1 and 2 at their middle:
    :math:`1 - (1 - 0.2)(1 - 0.4) = 0.52`.

    >>> from garesearch.priors import Uniform
    >>> x = Attribute(Uniform(0, 10), r=1, name="x")
    >>> y = Attribute(Uniform(0, 10), r=2, name="y")
    >>> abs(or_probability(x | y, {"x": 5, "y": 5}) - 0.52) < 1e-12
    True
    >>> abs(or_probability(x & y, {"x": 5, "y": 5}) - 0.2 * 0.4) < 1e-12
    True
    """
    terms = as_goal(goal).terms()
    atts = attributes_of(terms)
    tv = resolve_t(atts, t)
    return terms_probability(terms, atts, tv)


def terms_probability(terms, atts, tv) -> float:
    """:func:`or_probability` for a goal already split into ``terms`` (AND-sets) over the
    distinct attributes ``atts`` with true values ``tv`` (in the order of ``atts``).

    Examples
    --------
    >>> from garesearch.priors import Uniform
    >>> x = Attribute(Uniform(0, 10), r=1, name="x")
    >>> y = Attribute(Uniform(0, 10), r=2, name="y")
    >>> abs(terms_probability((x | y).terms(), [x, y], [5.0, 5.0]) - (1 - 0.8 * 0.6)) < 1e-12
    True
    """
    index = {id(a): i for i, a in enumerate(atts)}
    total = 0.0
    if len(terms) > 20:
        raise ParameterError(f"an OR of {len(terms)} sets is too large for inclusion-exclusion (max 20)")
    for size in range(1, len(terms) + 1):
        for subset in itertools.combinations(terms, size):
            radius: dict[int, float] = {}
            for term in subset:
                for att in term:
                    k = index[id(att)]
                    radius[k] = min(radius.get(k, math.inf), att.r)
            prob = math.prod(atts[k].g(tv[k], radius[k]) for k in radius)
            total += (-1) ** (size + 1) * prob
    return min(max(total, 0.0), 1.0)


def resolve_t(atts, t) -> list:
    """True values in the order of ``atts`` from a mapping (by name) or a sequence.

    Examples
    --------
    >>> from garesearch.priors import Uniform
    >>> x = Attribute(Uniform(0, 10), r=1, name="x")
    >>> y = Attribute(Uniform(0, 10), r=2, name="y")
    >>> resolve_t([x, y], {"y": 4, "x": 3}), resolve_t([x, y], [3, 4])
    ([3.0, 4.0], [3.0, 4.0])
    """
    if isinstance(t, dict):
        out = []
        for att in atts:
            if att.name is None or att.name not in t:
                raise ParameterError(
                    f"t: no value for attribute {att.label}; give t as {{name: value}} with every "
                    "attribute named, or as a sequence in the order the attributes appear"
                )
            out.append(att.check_t(t[att.name]))
        extra = set(t) - {a.name for a in atts}
        if extra:
            raise ParameterError(f"t: unknown attribute names {sorted(extra)}")
        return out
    if isinstance(t, np.ndarray):
        t = t.tolist()
    if isinstance(t, (str, bytes)) or not isinstance(t, Sequence):
        raise ParameterError(f"t must be a mapping or a sequence with one value per attribute; got {t!r}")
    if len(atts) == 1 and isinstance(atts[0], Coordinates) and all(_is_real(v) for v in t):
        return [atts[0].check_t(t)]  # one ball: t may be its point itself
    if len(t) != len(atts):
        raise ParameterError(f"t must have one value per attribute ({len(atts)}); got {len(t)}")
    return [att.check_t(v) for att, v in zip(atts, t, strict=True)]


# ------------------------------------------------------------------------------------------
# Regions (Fig. 2)
# ------------------------------------------------------------------------------------------
def in_goal(goal, x, t) -> np.ndarray:
    """Whether records ``x`` (array ``(..., n)``, attributes in order of appearance) reach
    the goal when the truth is ``t``: the set :math:`X'` of Fig. 2a, numeric attributes only.

    Examples
    --------
    >>> from garesearch.priors import Uniform
    >>> x = Attribute(Uniform(0, 10), r=1, name="x")
    >>> y = Attribute(Uniform(0, 10), r=2, name="y")
    >>> in_goal(x | y, [[5.5, 9.0], [9.0, 6.5], [9.0, 9.0]], {"x": 5, "y": 5}).tolist()
    [True, True, False]
    >>> in_goal(x & y, [[5.5, 9.0], [5.5, 6.5]], {"x": 5, "y": 5}).tolist()
    [False, True]
    """
    terms = as_goal(goal).terms()
    atts = attributes_of(terms)
    if any(att.discrete for att in atts):
        raise ParameterError("in_goal draws numeric attributes only")
    tv = resolve_t(atts, t)
    x = np.asarray(x, dtype=float)
    dims = [att.dim if isinstance(att, Coordinates) else 1 for att in atts]
    if x.shape[-1] != sum(dims):
        raise ParameterError(f"x must have {sum(dims)} coordinates in its last axis; got shape {x.shape}")
    start = np.concatenate([[0], np.cumsum(dims)]).astype(int)
    index = {id(a): i for i, a in enumerate(atts)}
    out = np.zeros(x.shape[:-1], dtype=bool)
    for term in terms:
        inside = np.ones(x.shape[:-1], dtype=bool)
        for att in term:
            k = index[id(att)]
            if isinstance(att, Coordinates):
                inside &= att.contains(x[..., start[k]:start[k + 1]], tv[k])
            else:
                inside &= np.abs(x[..., start[k]] - tv[k]) <= att.r
        out |= inside
    return out

