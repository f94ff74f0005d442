r"""Comparison sets for AND / OR goals: Theorem 1, Sec. 4.3 and Theorem 2 (corrected), and
the paper's printed versions (Sec. 4.2, 4.3, 6.1).

A comparison set of prior mass ``q`` next to the goal's set :math:`X'` of mass ``p`` bounds
the posterior by Eq. (main).  Sound, but not optimal: the optimum over all mechanisms is
:mod:`garesearch.optimal.goals` (the default of :func:`garesearch.events.epsilon_for_goal`);
these constructions stay available as ``construction="sound"`` and ``construction="paper"``.

Soundness of the constructions
------------------------------
*AND (Theorem 1).*  :math:`X' = \prod_i \mathcal B(t_i, r_i)` and the comparison set is the
box :math:`\prod_i \mathcal B(t_i, a_i) \setminus X'`, of mass
:math:`\prod g_i(a_i) - \prod g_i(r_i)`.  The largest distance between a point of
:math:`X'` and one of the comparison set is :math:`\lVert (a_i + r_i)_i \rVert_p` (per
coordinate: from :math:`t_i - r_i` to :math:`t_i + a_i`), not :math:`\lVert a \rVert_\infty`
as Theorem 1 puts in the exponent (the univariate flaw of Eq. (main), see
:mod:`garesearch.attribute`).  The default ``construction="sound"`` uses the true largest
distance (cut to the priors' supports); ``construction="paper"`` keeps Theorem 1's exponent
to reproduce the paper.

*OR, inclusion-exclusion.*  :math:`p_{OR} = \Pr[\bigcup_k X'_k]` by inclusion-exclusion over
the AND-sets; comparison set = the complement, exponent = the diameter of the space
(Sec. 3.2).  Needs bounded attributes (always true for discrete ones: the cats example).

*OR, blocks (Theorem 2, corrected).*  Tile the space with boxes of half-widths
:math:`a_i` centred at :math:`t + 2\ell \circ a`, :math:`\ell \in \mathbb Z^n`.  In a box whose
set :math:`K` of coordinates holds :math:`t`'s ball, the prior odds of :math:`X'` against the
rest of the box are :math:`\alpha_K = \prod_{k \in K} \frac{g_k(a_k)}{g_k(a_k) - g_k(r_k)} - 1`
(independence), largest for :math:`K` = all; two points of a box differ by at most
:math:`2a_i` per coordinate, and by at most :math:`a_j + r_j` in a coordinate ``j`` that
puts the point of :math:`X'` in its ball.  Summing over boxes,

.. math:: \Pr_{post}[X'] \le \frac{1}{1 + e^{-\epsilon D}/\alpha}, \quad
   \alpha = \prod_i \frac{g_i(a_i)}{g_i(a_i) - g_i(r_i)} - 1, \quad
   D = \max_j \lVert (2a_1, \dots, a_j + r_j, \dots, 2a_n) \rVert_p ,

and we ask for :math:`\le p_{OR} + \delta` with :math:`p_{OR} = 1 - \prod_i (1 - g_i(r_i))`.
Theorem 2 as printed differs in three places: its exponent is :math:`\lVert a\rVert_\infty`
(its own derivation defines :math:`a = 2\lVert a \rVert_\infty`); it writes
:math:`g(a_i - 1)` where the mass of the box minus :math:`X'` is
:math:`\prod (g_i(a_i) - g_i(r_i))`; and its :math:`\epsilon_k` use the block's prior in the
:math:`\delta` term where the requirement is on the whole event.  Its :math:`\epsilon_k`
(blocks with one ball) never bind: :math:`\alpha_K` grows with :math:`K`.  The printed
version is kept as ``construction="paper"``.

The lower side
--------------
:math:`\Pr_{post}[X'] \ge p - \delta` is bounded with the diameter (Sec. 3.2's
:math:`\epsilon_{ub}`) when every attribute is bounded, and for AND events also with
:math:`\Pr_{post}[X'] \ge p / (p + M)`, :math:`M \le \prod_i E[e^{\epsilon D_i(X_i)}] - p`
(:math:`D_i` the largest distance from :math:`x_i` to :math:`X'_i`; from
:math:`\lVert D \rVert_p \le \lVert D \rVert_1`).  The larger of the sound values is used.
For OR events over unbounded attributes the lower side compares every wrong record with
all of :math:`X'` pointwise (:func:`_or_lower_pointwise`, derived there; not in the paper):
:math:`\Pr_{post}[X'] \ge 1/(1 + I(\epsilon))`, :math:`I = \int_C dF/K_1`, with
:math:`K_1(x) = \int_{X'} \prod_j e^{-\epsilon d_j(x_j, x'_j)} dF(x')` in closed form by
inclusion-exclusion.  An OR with an :math:`\ell_p`-ball part has no lower side here.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import bound
from .._args import check_sides
from .._backend import NUMPY
from .._plain import PlainFields
from ..errors import InfeasibleError, ParameterError
from ..goals import (
    Attribute,
    Coordinates,
    as_goal,
    attributes_of,
    check_norm,
    resolve_t,
)
from ..priors import Categorical
from ._comparison_events import (
    _and_one_t,
    _or_one_t,
    _paper_theorem2_at,
)
from ._comparison_radii import (
    _is_real,
    _resolve_a,
    optimise_radii,
)

__all__ = [
    "GoalResult",
    "comparison_set_epsilon",
    "optimise_radii",
    "or_blocks",
    "theorem2_counterexample",
]

_CONSTRUCTIONS = ("sound", "paper")
_SIDES = ("both", "upper")
_OR_METHODS = ("best", "blocks", "inclusion-exclusion")
_MAX_ENUMERATION = 100_000


# ------------------------------------------------------------------------------------------
# Results
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GoalResult(PlainFields):
    """What :func:`comparison_set_epsilon` found (the comparison-set constructions).

    Attributes
    ----------
    epsilon : float
        The epsilon, per unit of the records' :math:`\\ell_p` distance.
    t : dict
        The true values (attribute label -> value) it was computed for.
    p : float
        Prior probability that the attacker wins (of :math:`X'`).
    event : str
        ``"and"`` or ``"or"``.
    method : str
        Construction that set the upper side: ``"box"`` (AND), ``"blocks"`` or
        ``"inclusion-exclusion"`` (OR).
    ratio : float
        Bound on the prior odds that enter the posterior bound (``p/q`` for a comparison
        set of mass ``q``; :math:`\\alpha` for OR blocks).
    distance : float
        The factor of epsilon in the exponent.
    a : tuple
        Comparison radii (per attribute).
    epsilon_upper, epsilon_lower : float
        Epsilon of each side (``inf`` where a side does not bind).
    """

    epsilon: float
    t: dict
    p: float
    event: str
    method: str
    ratio: float
    distance: float
    a: tuple
    epsilon_upper: float
    epsilon_lower: float
    binding: str
    delta: float
    norm: float
    construction: str
    candidates: dict = field(default_factory=dict, repr=False)

    def laplace_scale(self, sensitivity: float = 1.0) -> float:
        """Scale ``b = sensitivity / epsilon`` of Laplace noise with this epsilon (Sec. 6.1)."""
        if not (_is_real(sensitivity) and math.isfinite(sensitivity) and sensitivity > 0):
            raise ParameterError(f"sensitivity must be a finite number > 0; got {sensitivity!r}")
        return sensitivity / self.epsilon

    def posterior_bound(self) -> float:
        """Upper bound on the posterior of :math:`X'` at ``epsilon`` (at most ``p + delta``)."""
        if not math.isfinite(self.ratio) or self.ratio <= 0:
            return 1.0
        return float(bound.posterior_bound_formula(self.epsilon, self.ratio, 1.0, self.distance,
                                                   NUMPY))


#: most attributes radii='each' takes (its search is exponential in their number)
_MAX_EACH = 7


# ------------------------------------------------------------------------------------------
# Public entry points
# ------------------------------------------------------------------------------------------
def _check_common(delta, sides, construction, norm, method):
    if not (_is_real(delta) and math.isfinite(delta)):
        raise ParameterError(f"delta must be a finite real number; got {delta!r}")
    if not 0 < delta < 1:
        raise ParameterError(f"delta must lie in (0, 1); got {delta}")
    check_sides(sides, _SIDES)
    if construction not in _CONSTRUCTIONS:
        raise ParameterError(f"construction must be one of {_CONSTRUCTIONS}; got {construction!r}")
    if method not in _OR_METHODS:
        raise ParameterError(f"method must be one of {_OR_METHODS}; got {method!r}")
    return check_norm(norm)


def _all_t(atts):
    if not all(att.finite for att in atts):
        raise ParameterError(
            "t is required when the goal has a continuous attribute (t=None, the worst case, is "
            "enumerated for finite priors only)"
        )
    n = math.prod(len(att.values()) for att in atts)
    if n > _MAX_ENUMERATION:
        raise ParameterError(f"t=None would enumerate {n} combinations (max {_MAX_ENUMERATION}); pass t")
    return itertools.product(*(att.values() for att in atts))


def comparison_set_epsilon(
    goal,
    *,
    delta: float,
    t: Any = None,
    norm: float = math.inf,
    a: Any = None,
    sides: str = "both",
    construction: str = "sound",
    method: str = "best",
    radii: str = "common",
) -> GoalResult:
    r"""Epsilon that keeps the advantage in reaching ``goal`` at most ``delta``, by comparison
    sets (Theorem 1 for AND, Sec. 4.3 / Theorem 2 for OR; see the module docstring).

    Sound but not optimal; :func:`garesearch.events.epsilon_for_goal` calls it for
    ``construction="sound"`` or ``"paper"`` (its default is the optimum over all mechanisms,
    :func:`garesearch.optimal.goals.epsilon_optimal`).

    Parameters
    ----------
    goal : Attribute, AllOf or AnyOf
        Attributes combined with ``&`` (AND) and ``|`` (OR).  An OR of AND-sets is the
        paper's collection :math:`\mathcal S` under variant 2 of Sec. 4.3.
    delta : float
        Bound on the advantage, in (0, 1).
    t : Mapping or sequence, optional
        True values, by attribute name or in order of appearance.  ``None``: the worst
        combination (finite priors only).
    norm : float
        The records' distance is the :math:`\ell_{norm}` norm of the attribute distances;
        in [1, inf], default inf (Theorem 1).  The epsilon is per unit of that distance.
    a : float or sequence, optional
        Comparison radii: one common ``a`` (each :math:`a_i = \min(a, R_i)`, Sec. 4.2) or
        one per attribute.  Default: the common ``a`` that maximises epsilon.
    sides : {"both", "upper"}
        ``"both"`` bounds :math:`|\Pr_{post} - \Pr_{pre}|` (Def. 7); ``"upper"`` the gain only.
    construction : {"sound", "paper"}
        ``"paper"`` reproduces Theorem 1's exponent :math:`\lVert a \rVert` and Theorem 2 as
        printed (neither is sound in general).
    method : {"best", "blocks", "inclusion-exclusion"}
        OR events only: the corrected block construction of Theorem 2, the
        inclusion-exclusion bound with the whole complement, or the better of the two.
    radii : {"common", "each"}
        With ``a=None``: search one common radius (``"common"``, Sec. 4.2's
        :math:`a_i = \min(a, R_i)`), or then optimise every :math:`a_i` on its own
        (``"each"``, :func:`optimise_radii`; AND events and OR blocks).  ``"each"`` records
        the epsilon at the best common radius as ``candidates["common_a"]`` and the final
        local-optimality check as ``candidates["local_optimum"]``.  Its cost grows as
        :math:`3^n` in the number ``n`` of attributes (about 2 s at 6, 5 s at 7); more than 7
        are refused.

    Returns
    -------
    GoalResult

    Raises
    ------
    ParameterError
        Bad input (empty goals, dependent attributes detected, wrong ``t``, ...).
    InfeasibleError
        If no epsilon > 0 meets the request.

    Examples
    --------
    The cats of Sec. 6.1: uniform gender, five colours.

    >>> from garesearch.goals import Attribute
    >>> from garesearch.priors import Categorical
    >>> gender = Attribute(Categorical({"M": .5, "F": .5}), r=0, name="gender")
    >>> colour = Attribute(Categorical({"red": .2, "white": .1, "tabby": .25, "black": .4,
    ...                                 "tortoise": .05}), r=0, name="colour")
    >>> res = comparison_set_epsilon(gender & colour, delta=0.1)
    >>> res.t["colour"], round(res.p, 3), round(res.epsilon, 3)
    ('black', 0.2, 0.539)
    >>> res = comparison_set_epsilon(gender | colour, delta=0.1)
    >>> res.t["colour"], round(res.p, 3), round(res.epsilon, 4)
    ('white', 0.55, 0.4013)
    """
    norm = _check_common(delta, sides, construction, norm, method)
    if radii not in ("common", "each"):
        raise ParameterError(f"radii must be 'common' or 'each'; got {radii!r}")
    goal = as_goal(goal)
    terms = goal.terms()
    atts = attributes_of(terms)
    if radii == "each" and len(atts) > _MAX_EACH:
        raise ParameterError(
            f"radii='each' searches 2^n directions and checks 3^n neighbours of its optimum, too "
            f"many for n = {len(atts)} attributes (at most {_MAX_EACH}, about 5 s); use "
            "radii='common', or construction='optimal' (the default), which has no radii")
    event = "and" if len(terms) == 1 else "or"
    ts = [resolve_t(atts, t)] if t is not None else [list(v) for v in _all_t(atts)]
    results = []
    for tv in ts:
        if event == "and":
            res = _and_one_t(atts, tv, delta, norm, a, sides, construction, radii)
        else:
            res = _or_one_t(terms, atts, tv, delta, norm, a, sides, construction, method, radii)
        res["t"] = tv
        results.append(res)
    for res in results:
        res["epsilon"] = min(res["epsilon_upper"], res["epsilon_lower"])
    best = min(results, key=lambda res: res["epsilon"])
    labels = [att.name if att.name else f"x{i}" for i, att in enumerate(atts)]
    tdict = dict(zip(labels, best.pop("t"), strict=True))
    if not best["epsilon"] > 0:
        side = "upper" if best["epsilon_upper"] <= best["epsilon_lower"] else "lower"
        raise InfeasibleError(
            f"no epsilon > 0 keeps the advantage within delta={delta} at t={tdict} "
            f"(p={best['p']:.6g}): the {side} side cannot be met. Allow larger comparison radii "
            "(a), a larger delta" + (", or sides='upper'" if side == "lower" else "")
        )
    binding = "upper" if best["epsilon_upper"] <= best["epsilon_lower"] else "lower"
    return GoalResult(t=tdict, event=event, binding=binding, delta=delta, norm=norm,
                      construction=construction, **best)


def or_blocks(goal, t, a, *, reach: int = 2) -> list[dict]:
    r"""The blocks of the corrected Theorem 2 (Fig. 2b) around ``t``.

    Tiles with half-widths ``a`` centred at :math:`t + 2\ell \circ a`, :math:`|\ell_i| \le`
    ``reach``.  For each: ``centre``, ``half_width``, ``K`` (indices of the AND-sets whose ball
    lies in the tile), the prior masses ``p_in`` (:math:`X'` in the tile) and ``p_out`` (the
    rest of the tile), computed from the priors, and ``odds = p_in / p_out``.

    Examples
    --------
    Two Uniform(0, 10) attributes at ``t = (5, 5)`` with ``r = (1, 2)``, tiles of half-width 3:
    the central tile :math:`[2, 8]^2` has mass 0.36, of which the records with
    :math:`x \notin [4, 6]` and :math:`y \notin [3, 7]` (mass :math:`0.4 \cdot 0.2`) miss
    :math:`X'`.

    >>> from garesearch.priors import Uniform
    >>> x = Attribute(Uniform(0, 10), r=1, name="x")
    >>> y = Attribute(Uniform(0, 10), r=2, name="y")
    >>> blocks = or_blocks(x | y, {"x": 5, "y": 5}, 3.0, reach=1)
    >>> centre = [b for b in blocks if b["ell"] == (0, 0)][0]
    >>> abs(centre["p_in"] - 0.28) < 1e-12, abs(centre["p_out"] - 0.08) < 1e-12
    (True, True)
    """
    terms = as_goal(goal).terms()
    atts = attributes_of(terms)
    tv = resolve_t(atts, t)
    av = _resolve_a(atts, a, tv)
    if any(att.discrete or isinstance(att, Coordinates) for att in atts):
        raise ParameterError("or_blocks tiles numeric one-coordinate attributes only")
    index = {id(x): i for i, x in enumerate(atts)}
    blocks = []
    for ell in itertools.product(range(-reach, reach + 1), repeat=len(atts)):
        centre = [t0 + 2 * li * ai for t0, li, ai in zip(tv, ell, av, strict=True)]
        tile = [float(att.prior.mass(c - ai, c + ai)) for att, c, ai in zip(atts, centre, av, strict=True)]
        total = math.prod(tile)
        # mass of the tile outside X': per term, coordinates of the term in the ball
        # (only where the tile holds the ball, i.e. ell_i = 0) -> inclusion-exclusion
        K = tuple(j for j, term in enumerate(terms) if all(ell[index[id(x)]] == 0 for x in term))
        p_in = 0.0
        for size in range(1, len(K) + 1):
            for subset in itertools.combinations(K, size):
                coords = {index[id(x)] for j in subset for x in terms[j]}
                prob = math.prod(
                    atts[k].g(tv[k], atts[k].r) if k in coords else tile[k] for k in range(len(atts))
                )
                p_in += (-1) ** (size + 1) * prob
        p_out = total - p_in
        blocks.append(dict(ell=ell, centre=tuple(centre), half_width=tuple(av), K=K,
                           p_in=p_in, p_out=p_out, odds=p_in / p_out if p_out > 0 else math.inf))
    return blocks


# ------------------------------------------------------------------------------------------
# A counterexample to Theorem 2 as printed
# ------------------------------------------------------------------------------------------
def _laplace_release_sup(weights, inside, h, eps) -> float:
    r"""Largest posterior of ``inside`` over outputs of :math:`h(x) + \mathrm{Lap}(1/\epsilon)`
    for a finite prior: between two consecutive values of ``h`` the posterior is monotone in
    the output (:mod:`garesearch.exact`), and constant beyond the extreme ones, so the
    supremum is attained at an output equal to some :math:`h(x)`."""
    best = 0.0
    logw = np.log(weights)
    for y in np.unique(h):
        lw = logw - eps * np.abs(y - h)
        w = np.exp(lw - lw.max())
        best = max(best, float(w[inside].sum() / w.sum()))
    return best


def theorem2_counterexample(delta: float = 0.1, s: float = 0.08) -> dict:
    r"""Theorem 2 as printed is not sound: a concrete prior and an :math:`\epsilon`-DP
    mechanism (w.r.t. :math:`\ell_\infty`) whose advantage at the printed epsilon exceeds
    :math:`\delta` (Sec. 4.3).

    Two independent attributes with values :math:`\{-4, 0, 4\}`, :math:`\Pr[0] = s`,
    :math:`\Pr[\pm 4] = (1-s)/2`; true value :math:`t = (0, 0)`, precision :math:`r_i = 1`,
    radii :math:`a_i = 4` (allowed: :math:`r_i \le a_i \le R_i = 8`).  The attacker wins if
    :math:`x_1 = 0` or :math:`x_2 = 0`: :math:`p = 1 - (1-s)^2`.  Printed:
    :math:`g(a_i) = 1`, :math:`g(a_i - 1) = g(r_i) = s`, so :math:`\epsilon_0 = \infty`
    (:math:`\delta + 1 - s^2 \ge 1`) and :math:`\epsilon_k = -\ln\big(\frac{s}{1-s}
    (\frac{1}{\delta + s} - 1)\big)/4`.  Mechanism: release :math:`h(x)`, the
    :math:`\ell_\infty` distance from ``x`` to the nearest record of :math:`X'` (1-Lipschitz
    w.r.t. :math:`\ell_\infty`) plus Laplace noise of scale :math:`1/\epsilon`,
    which is :math:`\epsilon`-DP w.r.t. :math:`\ell_\infty`.  Every wrong record is at
    distance 4 from :math:`X'`, and for outputs :math:`y \le 0`
    :math:`\Pr_{post}[X'] = p / (p + (1-p) e^{-4\epsilon})`.

    With the defaults: printed :math:`\epsilon \approx 0.2315`, :math:`p = 0.1536`,
    posterior :math:`\approx 0.314 > p + \delta = 0.2536`.  Here the flaw that bites is the
    :math:`\delta` term of :math:`\epsilon_k` (the block's prior ``s`` where the requirement is
    on the whole event's ``p``); the exponent is not needed.  The corrected construction of
    :func:`comparison_set_epsilon` keeps the same mechanism within ``delta``.

    Returns
    -------
    dict
        ``priors``, ``t``, ``r``, ``a``, ``p`` (of the OR event), ``epsilon_printed`` and its
        parts ``eps_0, eps_1, eps_2``, ``posterior`` and ``advantage`` of the mechanism at the
        printed epsilon, ``epsilon_sound`` (:func:`comparison_set_epsilon`, upper side) and
        ``advantage_sound`` of the same mechanism there.

    Examples
    --------
    The printed epsilon and the posterior against the closed forms above:

    >>> import math
    >>> res = theorem2_counterexample()
    >>> s, delta = 0.08, 0.1
    >>> eps_k = -math.log(s / (1 - s) * (1 / (delta + s) - 1)) / 4
    >>> p = 1 - (1 - s) ** 2
    >>> abs(res["epsilon_printed"] - eps_k) < 1e-12
    True
    >>> abs(res["posterior"] - p / (p + (1 - p) * math.exp(-4 * eps_k))) < 1e-12
    True
    >>> res["advantage"] > delta >= res["advantage_sound"]
    True
    """
    if not (_is_real(delta) and 0 < delta < 1):
        raise ParameterError(f"delta must lie in (0, 1); got {delta!r}")
    if not (_is_real(s) and 0 < s < 1):
        raise ParameterError(f"s must lie in (0, 1); got {s!r}")
    prior = {-4: (1 - s) / 2, 0: s, 4: (1 - s) / 2}
    x1 = Attribute(Categorical(prior), r=1, name="x1")
    x2 = Attribute(Categorical(dict(prior)), r=1, name="x2")
    t, a = [0.0, 0.0], [4.0, 4.0]
    eps_printed, parts = _paper_theorem2_at([x1, x2], t, delta, math.inf, a)
    vals = np.array(list(prior))
    X, Y = np.meshgrid(vals, vals, indexing="ij")
    W = np.outer(list(prior.values()), list(prior.values()))
    inside = (np.abs(X) <= 1) | (np.abs(Y) <= 1)
    pts = np.stack([X.ravel(), Y.ravel()], axis=1).astype(float)
    cheb = np.max(np.abs(pts[:, None, :] - pts[None, inside.ravel(), :]), axis=2)
    h = cheb.min(axis=1).reshape(X.shape)  # l_inf distance to the records of X
    p = float(W[inside].sum())
    post = _laplace_release_sup(W, inside, h, eps_printed)
    sound = comparison_set_epsilon(x1 | x2, delta=delta, t=t, sides="upper").epsilon
    return dict(priors=(prior, dict(prior)), t=tuple(t), r=(1.0, 1.0), a=tuple(a), p=p,
                epsilon_printed=eps_printed, eps_0=parts[0], eps_1=parts[1], eps_2=parts[2],
                posterior=post, advantage=post - p, epsilon_sound=sound,
                advantage_sound=_laplace_release_sup(W, inside, h, sound) - p)
