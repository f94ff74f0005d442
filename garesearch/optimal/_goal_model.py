r"""A goal flattened for the optimal-epsilon computations (:mod:`garesearch.optimal.goals`):
its parts, one prior per coordinate, the records' distance and the set :math:`X'` of correct
guesses (beyond the paper; Sec. 4.2, 4.3).

A part is a numeric attribute (``"num"``), a categorical one under the discrete metric
(``"disc"``) or an :math:`\ell_p` ball of coordinates (``"ball"``); the goal is an OR of
AND-sets of parts; the distance of two records is the ``norm`` of the parts' distances.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..goals import (
    AllOf,
    AnyOf,
    Attribute,
    Coordinates,
    attributes_of,
    norm_of,
    or_probability,
    resolve_t,
)
from ..priors import Categorical, Prior

__all__ = [
    "GoalModel",
    "Part",
    "build_model",
    "combine_norm",
    "coord_radius",
    "coord_values",
    "goal_p",
    "goal_probability",
    "in_goal_set",
    "is_real",
    "method_of",
    "model_scale",
    "part_distance",
    "rebuild_goal",
    "record_distance",
    "resolve_true_values",
    "spread",
    "true_codes",
    "true_coords",
]


@dataclass
class Part:
    """One part of a goal: a numeric or categorical attribute, or a ball of coordinates."""

    obj: Any
    kind: str  # "num", "disc" or "ball"
    coords: tuple[int, ...]
    r: float
    pball: float = math.inf  # inner norm of a ball


@dataclass
class GoalModel:
    parts: list[Part]
    priors: list[Prior]  # one per coordinate
    discrete: list[bool]  # per coordinate
    terms: list[tuple[int, ...]]  # OR of AND-sets of part indices
    norm: float
    labels: list[str]

    @property
    def finite(self) -> bool:
        return all(isinstance(p, Categorical) for p in self.priors)

    @property
    def ncoord(self) -> int:
        return len(self.priors)


def is_real(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def build_model(goal, norm) -> GoalModel:
    if not isinstance(goal, (Attribute, Coordinates, AllOf, AnyOf)):
        raise ParameterError(
            f"goal must be an Attribute, Coordinates or a combination with & and |; got {type(goal).__name__}")
    terms = goal.terms()
    objs = attributes_of(terms)  # distinct, independent, uniquely named
    parts, priors, discrete = [], [], []
    for obj in objs:
        start = len(priors)
        if isinstance(obj, Coordinates):
            priors.extend(obj.priors)
            discrete.extend([False] * obj.dim)
            parts.append(Part(obj, "ball", tuple(range(start, start + obj.dim)), obj.r, obj.norm))
        else:
            priors.append(obj.prior)
            discrete.append(bool(obj.discrete))
            parts.append(Part(obj, "disc" if obj.discrete else "num", (start,), obj.r))
    index = {id(o): k for k, o in enumerate(objs)}
    tms = [tuple(index[id(part)] for part in term) for term in terms]
    labels = [o.name if o.name else f"x{k}" for k, o in enumerate(objs)]
    return GoalModel(parts, priors, discrete, tms, norm, labels)


def resolve_true_values(model: GoalModel, t) -> list:
    """True values per part, from ``{name: value}`` or a sequence in order of appearance
    (:func:`garesearch.goals.resolve_t` over the model's parts)."""
    return resolve_t([part.obj for part in model.parts], t)


def true_coords(model: GoalModel, tv) -> list:
    """True value per coordinate (ball parts spread over their coordinates)."""
    out: list = [None] * model.ncoord
    for part, tp in zip(model.parts, tv, strict=True):
        if part.kind == "ball":
            for c, v in zip(part.coords, tp, strict=True):
                out[c] = float(v)
        else:
            out[part.coords[0]] = tp
    return out


def goal_p(model: GoalModel, tv) -> float:
    """Prior probability of X' (inclusion-exclusion over the AND-sets)."""
    goal = rebuild_goal(model)
    if isinstance(goal, (Attribute, Coordinates)):
        return float(goal.g(tv[0], goal.r))
    return float(or_probability(goal, list(tv)))


def rebuild_goal(model: GoalModel):
    objs = [part.obj for part in model.parts]
    terms = [[objs[k] for k in term] for term in model.terms]
    if len(terms) == 1 and len(terms[0]) == 1:
        return terms[0][0]
    ands = [term[0] if len(term) == 1 else AllOf(*term) for term in terms]
    return ands[0] if len(ands) == 1 else AnyOf(*ands)


# ------------------------------------------------------------------------------------------
# Distances and membership on arrays of records (one column per coordinate)
# ------------------------------------------------------------------------------------------
def combine_norm(parts_d: list[np.ndarray], norm: float) -> np.ndarray:
    """The ``norm`` of per-part (or per-coordinate) distances (:func:`garesearch.goals.norm_of`:
    exact when one of them is nonzero)."""
    if len(parts_d) == 1:
        return parts_d[0]
    return norm_of(np.stack(parts_d, axis=-1), norm)


def part_distance(part: Part, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Distance of the part between records ``X`` (..., ncoord) and ``Y`` (broadcast)."""
    if part.kind == "disc":
        c = part.coords[0]
        return (X[..., c] != Y[..., c]).astype(float)
    diffs = [np.abs(X[..., c] - Y[..., c]) for c in part.coords]
    if len(diffs) == 1:
        return diffs[0]
    return combine_norm(diffs, part.pball)


def record_distance(model: GoalModel, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    return combine_norm([part_distance(part, X, Y) for part in model.parts], model.norm)


def in_goal_set(model: GoalModel, X: np.ndarray, tc) -> np.ndarray:
    """Whether records ``X`` (..., ncoord) reach the goal for the true values ``tc``: a
    numeric part when the computed ``|x - t| <= r``, a ball when its computed norm of those
    is ``<= r`` (exact on the axes through ``t``, see :func:`garesearch.goals.norm_of`), as
    written: a record exactly at distance ``r`` is inside, one a rounding error beyond is
    not."""
    within = []
    for part in model.parts:
        if part.kind == "disc":
            c = part.coords[0]
            within.append(X[..., c] == tc[c])
        elif part.kind == "num":
            c = part.coords[0]
            within.append(np.abs(X[..., c] - tc[c]) <= part.r)
        else:
            d = combine_norm([np.abs(X[..., c] - tc[c]) for c in part.coords], part.pball)
            within.append(d <= part.r)
    out = np.zeros(X.shape[:-1], dtype=bool)
    for term in model.terms:
        acc = np.ones(X.shape[:-1], dtype=bool)
        for k in term:
            acc &= within[k]
        out |= acc
    return out


def coord_values(prior: Categorical, discrete: bool) -> np.ndarray:
    """Values of a finite coordinate as floats (categorical values as their index)."""
    if discrete:
        return np.arange(len(prior.values), dtype=float)
    return np.array([float(v) for v in prior.values])


def true_codes(model: GoalModel, tc) -> list:
    """True value per coordinate, with categorical values replaced by their index."""
    out = list(tc)
    for c, (prior, disc) in enumerate(zip(model.priors, model.discrete, strict=True)):
        if disc:
            out[c] = float(prior.values.index(tc[c]))
    return out


def spread(prior: Prior) -> float:
    """A length scale of the prior (interquartile range, or range of a finite prior)."""
    if isinstance(prior, Categorical):
        x = np.array([float(v) for v in prior.values])
        return float(x.max() - x.min()) if x.size > 1 else 1.0
    q1, q3 = float(prior.quantile(0.25)), float(prior.quantile(0.75))
    return q3 - q1 if q3 > q1 else 1.0


def goal_probability(terms, q) -> float:
    r""":math:`P(q)`: probability of the OR of AND-sets when part ``k`` is correct with
    probability :math:`q_k`, independently: :math:`1 - \prod_j (1 - \prod_{k \in S_j} q_k)` when
    the AND-sets share no part, else inclusion-exclusion over the AND-sets.  ``q`` may hold
    arrays (one value per combination)."""
    if sum(len(term) for term in terms) == len(set().union(*[set(term) for term in terms])):
        miss = 1.0
        for term in terms:
            miss = miss * (1.0 - math.prod(q[k] for k in term))
        return np.clip(1.0 - miss, 0.0, 1.0) if np.ndim(miss) else min(max(1.0 - miss, 0.0), 1.0)
    if len(terms) > 20:
        raise ParameterError(f"an OR of {len(terms)} sets is too large for inclusion-exclusion (max 20)")
    total = 0.0
    for size in range(1, len(terms) + 1):
        for subset in itertools.combinations(terms, size):
            used = set().union(*[set(term) for term in subset])
            total = total + (-1) ** (size + 1) * math.prod(q[k] for k in used)
    return np.clip(total, 0.0, 1.0) if np.ndim(total) else min(max(total, 0.0), 1.0)


def coord_radius(model: GoalModel, c: int) -> float:
    """The radius ``r`` of the part that coordinate ``c`` belongs to (its band is
    ``[t_c - r, t_c + r]``)."""
    return next(p for p in model.parts if c in p.coords).r


def model_scale(model: GoalModel) -> float:
    """A length scale of the goal: the largest spread of a numeric coordinate (1 if none)."""
    spreads = [spread(p) for p, d in zip(model.priors, model.discrete, strict=True) if not d]
    return max(spreads) if spreads else 1.0


def method_of(model: GoalModel) -> str:
    if all(p.kind == "disc" for p in model.parts) and (math.isinf(model.norm) or len(model.parts) == 1):
        return "discrete-metric"
    if len(model.parts) == 1 and model.parts[0].kind == "num":
        return "kernel"
    if model.finite:
        return "lp"
    if model.norm == 1 and all(p.kind != "ball" for p in model.parts):
        return "product"
    return "lp-grid"
