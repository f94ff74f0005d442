r"""Reading PLEAK's attacker files (``.att``) and attacker goals into garesearch.

PLEAK's SQL analyser (repository ``pleak-tools/pleak-sql-analysis``, folder ``banach/``)
describes what an attacker already knows about each column in an *attacker file*, one
statement per column, ``table.column <knowledge>;`` (grammar: ``banach/ParserQ.hs``,
``varStateVal``; data type: ``banach/VarstateQ.hs``, ``VState``; comments ``--``, ``//`` and
``/* ... */``), and what the attacker wants to learn as a *goal*: a formula of
``column <precision>`` terms joined by ``AND`` / ``OR`` (``banach/ParserQ.hs``, ``cExpr``;
``banach/PolicyQ.hs``), optionally wrapped as ``SELECT <formula> FROM ... ;`` or written as
``leak ... cost c`` blocks (a disjunction of conjunctions).

This module reads both formats (the parsers are in ``_pleak_format``; they share no code with
PLEAK) and maps them onto the paper's objects:

===========================  ===========================================================
PLEAK knowledge              garesearch
===========================  ===========================================================
``exact``                    the attacker knows the value: the term is already guessed
``none``                     nothing known; no bound on the distance (an error if needed)
``rangeUnif lb ub``          :class:`~garesearch.priors.Uniform` ``(lb, ub)``
``normal mu var``            :class:`~garesearch.priors.Normal` ``(mu, sqrt(var))``; the
                             second argument is the **variance**
``rangePrior lb (ub,p)...``  :class:`~garesearch.priors.PiecewiseUniform` with edges
                             ``lb, ub_1, ub_2, ...`` and masses ``p_i``
``setUnif v ...``            :class:`~garesearch.priors.Categorical`, uniform
``setPrior ('v',p) ...``     :class:`~garesearch.priors.Categorical`
``totalUnif n``              :class:`~garesearch.priors.Categorical`, ``n`` equally likely
                             values (discrete metric)
``range lb ub``              support only: the worst prior of Sec. 4.1, ``R = ub - lb``
``set v ...``, ``total n``   support only: the worst prior, discrete metric (``R = 1``)
===========================  ===========================================================

Goals: ``col exact`` is a correct guess of the value itself (``r = 0``, discrete metric, as
PLEAK's L0 norm); ``col approx r`` (and ``approxWrtLp(p) r`` / ``approxWrtLinf r`` on one
column) is a guess within ``|x - t| <= r``; ``(c1, ..., ck) approxWrtLinf r`` is the box
``AND_i |x_i - t_i| <= r``; ``(c1, ..., ck) approxWrtLp(p) r`` is the ball
``||x - t||_p <= r`` (:class:`garesearch.events.Coordinates`; the epsilon is then per unit of
that :math:`\ell_p` distance); ``none`` marks a column nobody cares about.  A goal on one column
is computed by :func:`garesearch.attribute.epsilon_for_attribute` (Sec. 4.1); AND/OR goals
over several columns (Sec. 4.2-4.3) go to :func:`garesearch.events.epsilon_for_goal`.

Where PLEAK's own computation differs (``banach/PostprocessQ.hs``: ``compute_epsilon``,
``compute_worst_epsilon``, ``compute_eps_for_a``, ``optimal_a_epsilon``; ``banach/PolicyQ.hs``:
``extract_g``, ``extract_R``), :func:`pleak_method_epsilon` re-derives PLEAK's method for one
attribute so that the two can be compared; see its docstring for the differences.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import bound
from .._args import warn_renamed
from .._evaluate import scalar_values
from .._plain import PlainFields
from ..attribute import epsilon_for_attribute
from ..errors import ParameterError
from ..priors import Categorical, Normal, Prior
from ._pleak_format import (
    And,
    Knowledge,
    Or,
    PleakFormatError,
    Term,
    parse_attacker,
    parse_goal,
    read_attacker,
    read_goal,
)

__all__ = [
    "And",
    "Knowledge",
    "Or",
    "PleakFormatError",
    "PleakGoalResult",
    "Term",
    "epsilon_for_goal_files",
    "epsilon_for_pleak_goal",
    "parse_attacker",
    "parse_goal",
    "pleak_method_epsilon",
    "pleak_worst_epsilon",
    "read_attacker",
    "read_goal",
]

# ------------------------------------------------------------------------------------------
# From goal + knowledge to epsilon
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PleakGoalResult(PlainFields):
    """Epsilon for a PLEAK goal (:func:`epsilon_for_pleak_goal`; its old name ``GoalResult`` is
    deprecated: :class:`garesearch.constructions.comparison_sets.GoalResult` is the comparison sets' result).

    Attributes
    ----------
    epsilon : float
        Per unit of the goal's distance (``|x - t|`` of the column for ``approx``, the
        discrete metric for ``exact``).
    columns : tuple of str
    method : str
        ``"attribute"`` (Sec. 4.1 with the column's prior), ``"worst prior"`` (only the
        range is known: the worst prior of Sec. 4.1 over distance ``R``) or ``"events"``.
    detail : OptimalResult, AttributeResult, OptimalGoalResult, GoalResult or None
        The full result of :func:`~garesearch.attribute.epsilon_for_attribute` (one column) or
        :func:`~garesearch.events.epsilon_for_goal` (several).
    R : float or None
        The diameter used by the worst-prior method.
    prior : Prior or None
        The column's prior (one column with a distribution).
    r : float
        The column's precision (one column).
    epsilon_hi : float or None
        The optimum's certified bracket is ``[epsilon, epsilon_hi]``: at ``epsilon_hi`` an
        epsilon-DP mechanism exceeds ``delta`` (``construction="optimal"``; ``None`` otherwise).
    rel_width : float or None
        ``(epsilon_hi - epsilon) / epsilon_hi``.
    record : dict or None
        For an AND/OR goal's optimum: the true record it holds at (the worst one over the
        columns' supports unless ``t`` was given), part by part, with the record's own
        bracket (:func:`garesearch.optimal.worst_record.record_summary`: ``record``,
        ``record_is``, ``record_text``, ``far_tail``, ``record_bracket``, ...).
    """

    epsilon: float
    columns: tuple
    method: str
    detail: Any = None
    R: float | None = None
    prior: Prior | None = None
    r: float = 0.0
    epsilon_hi: float | None = None
    rel_width: float | None = None
    record: dict | None = field(default=None, repr=False)

    def laplace_scale(self, sensitivity: float = 1.0) -> float:
        """Scale ``sensitivity / epsilon`` of Laplace noise (0 when no noise is needed)."""
        sensitivity = scalar_values(sensitivity=sensitivity)["sensitivity"]
        if not sensitivity > 0:
            raise ParameterError(f"sensitivity must be a finite number > 0; got {sensitivity}")
        scale = sensitivity / self.epsilon
        if not scale < math.inf:
            raise ParameterError(f"sensitivity / epsilon = {sensitivity!r} / {self.epsilon!r} overflows float64")
        return scale


def _simplify(goal, knowledge: dict[str, Knowledge]):
    """Drop ``none`` terms, expand l_inf boxes into ANDs, and settle ``exact`` knowledge.

    Returns the simplified goal, ``True`` (already guessed) or ``None`` (nothing to protect).
    """
    if isinstance(goal, Term):
        if goal.kind == "none":
            return None
        if len(goal.columns) > 1:
            if math.isinf(goal.norm):
                return _simplify(
                    And(tuple(Term((c,), "approx", goal.r, 1.0, goal.line, goal.source) for c in goal.columns)),
                    knowledge
                )
            # an l_p ball over the columns (garesearch.events.Coordinates); a column the
            # attacker knows exactly leaves the ball's section through the true value
            for col in goal.columns:
                if col not in knowledge:
                    raise ParameterError(
                        f"{goal.where}: the attacker file says nothing about {col}; add a statement for it"
                    )
            cols = tuple(c for c in goal.columns if knowledge[c].kind != "exact")
            if not cols:
                return True
            if len(cols) == 1:
                return Term(cols, "approx", goal.r, 1.0, goal.line, goal.source)
            return Term(cols, "approx", goal.r, goal.norm, goal.line, goal.source)
        col = goal.columns[0]
        if col not in knowledge:
            raise ParameterError(
                f"{goal.where}: the attacker file says nothing about {col}; add a statement for it"
            )
        if knowledge[col].kind == "exact":
            return True
        return Term(goal.columns, goal.kind, goal.r, 1.0, goal.line, goal.source)
    parts = [_simplify(p, knowledge) for p in goal.parts]
    parts = [p for p in parts if p is not None]
    if isinstance(goal, And):
        parts = [p for p in parts if p is not True]
        if not parts:
            return True
    else:
        if any(p is True for p in parts):
            return True
        if not parts:
            return None
    if len(parts) == 1:
        return parts[0]
    return type(goal)(tuple(parts))


def _attribute_prior(term: Term, know: Knowledge):
    """(prior or None, r, discrete) for one column term."""
    discrete = term.kind == "exact"
    if know.kind == "none":
        raise ParameterError(
            f"{know.where}: no bound on {know.column}'s values is known ('none'); give "
            "'range lb ub' or a prior for it in the attacker file"
        )
    if not discrete and not know.numeric:
        raise ParameterError(
            f"{know.where}: {know.column} has non-numeric values ('{know.kind}'); only "
            f"'{term.columns[0]} exact' is a goal for it"
        )
    if discrete and know.kind in ("range", "rangeUnif", "rangePrior", "normal"):
        raise ParameterError(
            f"{term.where}: '{know.column} exact' on a continuous column is guessed with "
            f"probability 0; give a precision: '{know.column} approx r'"
        )
    prior = know.prior(discrete=discrete) if know.has_distribution else None
    return prior, term.r, discrete


def epsilon_for_pleak_goal(
    knowledge: dict[str, Knowledge],
    goal,
    *,
    delta: float,
    t: Any = None,
    construction: str = "optimal",
    sides: str = "both",
) -> PleakGoalResult:
    r"""Epsilon that keeps the attacker's advantage for a PLEAK goal at most ``delta``.

    One column: Sec. 4.1 (:func:`~garesearch.attribute.epsilon_for_attribute`) with the
    column's prior; if the attacker file gives only a range or a set (no distribution), the
    worst prior of Sec. 4.1 over the diameter ``R``: :math:`2\ln\frac{1+\delta}{1-\delta}/R`
    (:func:`~garesearch.bound.worst_case_epsilon`), which holds for every prior on that range.
    AND/OR goals over several columns: Sec. 4.2-4.3, through
    :func:`garesearch.events.epsilon_for_goal` (every column needs a distribution; ``t`` is
    then ``{column: value}``).

    Parameters
    ----------
    knowledge : dict
        From :func:`parse_attacker` / :func:`read_attacker`.
    goal : Term, And or Or
        From :func:`parse_goal` / :func:`read_goal`.
    delta : float
        Bound on the advantage, in (0, 1).
    t : optional
        True value (a dict ``{column: value}`` for several columns); default the worst case.
    construction : {"optimal", "sound", "paper"}
        ``"optimal"`` (default): the largest epsilon at which no epsilon-DP mechanism
        exceeds ``delta`` (one column: :func:`~garesearch.attribute.epsilon_for_attribute`;
        several: :func:`~garesearch.events.epsilon_for_goal`, a certified bracket whose sound
        end is returned); ``"sound"`` / ``"paper"``: the comparison sets.
    sides : {"both", "upper"}
        As in :func:`~garesearch.attribute.epsilon_for_attribute`.

    Returns
    -------
    PleakGoalResult

    Raises
    ------
    ParameterError
        Goal and knowledge do not fit together (column not described, ``approx`` on text,
        ``exact`` on a continuous column, the attacker already knows the goal, ...).
    InfeasibleError
        If no epsilon > 0 meets the request.

    Examples
    --------
    >>> import math
    >>> know = parse_attacker("cat.color setPrior ('red', 0.2) ('white', 0.1) ('tabby', 0.25) "
    ...                       "('black', 0.4) ('tortoise', 0.05);")
    >>> res = epsilon_for_pleak_goal(know, parse_goal("cat.color exact"), delta=0.1)
    >>> res.method, abs(res.epsilon - math.log(1.5)) < 1e-12  # black: -ln(0.4/0.6 (1/0.5 - 1))
    ('attribute', True)
    """
    simple = _simplify(goal, knowledge)
    if simple is True:
        raise ParameterError(
            "the attacker already knows the goal (a column it needs is 'exact' in the attacker "
            "file): no epsilon can keep the advantage small, and none is needed"
        )
    if simple is None:
        raise ParameterError("the goal protects nothing (every term is 'none')")
    if not isinstance(simple, Term) or len(simple.columns) > 1:
        return _events_goal(simple, knowledge, delta=delta, construction=construction, sides=sides, t=t)
    know = knowledge[simple.columns[0]]
    prior, r, discrete = _attribute_prior(simple, know)
    if prior is None:
        R = know.diameter(discrete=discrete)
        if t is not None:
            raise ParameterError("t: the attacker file gives no distribution for this column, so t is not used")
        if not math.isfinite(R) or r >= R:
            raise ParameterError(f"r must be smaller than the column's range R = {R}; got r = {r}")
        eps = float(bound.worst_case_epsilon(delta=delta, q=1.0, a=R))
        return PleakGoalResult(eps, simple.columns, "worst prior", None, R, None, r)
    if isinstance(t, dict):
        t = t.get(know.column)
    t = _coerce_t(t, prior)
    res = epsilon_for_attribute(
        prior, r=r, delta=delta, t=t, construction=construction, sides=sides
    )
    hi = getattr(res, "epsilon_hi", None) if construction == "optimal" else None
    width = None
    if hi is not None and not math.isnan(hi):
        width = (hi - res.epsilon) / hi if math.isfinite(hi) and hi > 0 else (0.0 if math.isinf(res.epsilon) else math.inf)
    else:
        hi = None
    return PleakGoalResult(res.epsilon, simple.columns, "attribute", res, None, prior, r, hi, width)


def _events_goal(goal, knowledge, *, delta, t, construction, sides):
    """AND/OR over several columns (Sec. 4.2-4.3) via :func:`garesearch.events.epsilon_for_goal`."""
    from .. import events

    atts: dict[str, Any] = {}

    def convert(node):
        if isinstance(node, Term) and len(node.columns) > 1:
            # approxWrtLp(p) r over several columns: the l_p ball of garesearch.events.Coordinates
            priors = []
            for col in node.columns:
                prior, _, _ = _attribute_prior(Term((col,), "approx", node.r, 1.0, node.line, node.source),
                                                knowledge[col])
                if prior is None:
                    raise ParameterError(
                        f"{knowledge[col].where}: an l_p-ball goal needs a distribution for every column; "
                        f"{col} has only '{knowledge[col].kind}'"
                    )
                if col in atts:
                    raise ParameterError(f"{node.where}: {col} appears in two parts of the goal")
                priors.append(prior)
            name = "(" + ", ".join(node.columns) + ")"
            ball = events.Coordinates(priors, r=node.r, norm=node.norm, name=name)
            balls[name] = ball
            for col in node.columns:
                atts[col] = ball
            return ball
        if isinstance(node, Term):
            col = node.columns[0]
            know = knowledge[col]
            prior, r, _ = _attribute_prior(node, know)
            if prior is None:
                raise ParameterError(
                    f"{know.where}: an AND/OR goal needs a distribution for every column; "
                    f"{col} has only '{know.kind}' (use rangeUnif, setUnif, setPrior, ...)"
                )
            if col in atts:
                if atts[col].r != r:
                    raise ParameterError(
                        f"{node.where}: {col} appears with two precisions ({atts[col].r:g} "
                        f"and {r:g}); use one"
                    )
                return atts[col]
            atts[col] = events.Attribute(prior, r=r, name=col)
            return atts[col]
        parts = [convert(p) for p in node.parts]
        return events.AllOf(*parts) if isinstance(node, And) else events.AnyOf(*parts)

    balls: dict[str, Any] = {}
    egoal = convert(goal)
    if t is not None:
        if not isinstance(t, dict):
            raise ParameterError("t: for a goal over several columns give {column: value}")
        single = {c: a for c, a in atts.items() if not isinstance(a, events.Coordinates)}
        in_balls = {c for c, a in atts.items() if isinstance(a, events.Coordinates)}
        t2 = {c: _coerce_t(v, single[c].prior) if c in single else v for c, v in t.items() if c not in in_balls}
        for name, ball in balls.items():
            cols = [c for c, a in atts.items() if a is ball]
            missing = [c for c in cols if c not in t]
            if missing:
                raise ParameterError(f"t: no value for {', '.join(missing)}")
            t2[name] = tuple(_coerce_t(t[c], prior) for c, prior in zip(cols, ball.priors, strict=True))
        t = t2
    res = events.epsilon_for_goal(egoal, delta=delta, t=t, construction=construction, sides=sides)
    if construction != "optimal":
        return PleakGoalResult(res.epsilon, tuple(atts), "events", res, None, None, 0.0)
    from ..optimal.worst_record import record_summary

    return PleakGoalResult(res.epsilon, tuple(atts), "events", res, None, None, 0.0, res.epsilon_hi,
                           res.rel_width, record_summary(res, t_given=t is not None))


def _coerce_t(v, prior):
    if isinstance(v, str) and prior.metric == "absolute":
        try:
            return float(v)
        except ValueError:
            raise ParameterError(f"t must be a number here; got {v!r}") from None
    return v


def epsilon_for_goal_files(attacker: str | Path, goal: str | Path, *, delta: float, **kwargs) -> PleakGoalResult:
    """:func:`epsilon_for_pleak_goal` for an attacker file and a goal file on disk.

    Examples
    --------
    >>> import math
    >>> from garesearch.app.publish import packaged_examples
    >>> ex = packaged_examples()
    >>> res = epsilon_for_goal_files(ex / "cats.att", ex / "cats_or.plc", delta=0.1)  # Sec. 6.1, OR
    >>> abs(res.epsilon - 2 * math.log(1.1 / 0.9)) < 1e-12  # Pr[F or white] = 0.55 = (1 + delta)/2
    True
    """
    return epsilon_for_pleak_goal(read_attacker(attacker), read_goal(goal), delta=delta, **kwargs)


# ------------------------------------------------------------------------------------------
# PLEAK's own method, re-derived for comparison
# ------------------------------------------------------------------------------------------
def _pleak_g(prior: Prior, t, z):
    """PLEAK's g (``banach/PolicyQ.hs`` ``extract_g``): ball mass and the distance it uses."""
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        return (prior.probability(t) if z < 1 else 1.0), 1.0
    if isinstance(prior, Normal):
        return float(prior.ball_mass(t, z)), 2.0 * z
    low, high = prior.support
    lo, hi = max(t - z, low), min(t + z, high)
    return float(prior.ball_mass(t, z)), hi - lo


def pleak_method_epsilon(prior: Prior, *, t, r: float, delta: float, R: float | None = None, n: int = 2000):
    r"""PLEAK's epsilon for one attribute, re-derived from its description for comparison.

    PLEAK (``banach/PostprocessQ.hs``, ``compute_eps_for_a`` and ``optimal_a_epsilon``;
    ``banach/PolicyQ.hs``, ``extract_g`` and ``extract_R``) scales distances so that
    ``r = 1``, tries radii :math:`a = r + k(R - r)/n`, ``k = 1..n`` (``n = 10000`` there),
    and for each computes, with :math:`q = g_t(a)` the mass of the whole ball and ``D`` the
    distance that ``g`` returns (the width of the ball cut to the support, ``2a`` for a
    normal prior, 1 for a discrete one):

    - upper side (``compute_epsilon True``), Eq. (main) with exponent ``D``:
      :math:`\epsilon = -\ln\left(\frac{p}{q-p}\left(\frac{1}{\delta'+p} - 1\right)\right)/D`,
      :math:`\delta' = \min(\delta, 1-p)`;
    - lower side (``compute_epsilon False``):
      :math:`\epsilon = -\ln\left(\frac{q-p}{p}\,\frac{p-\delta'}{\delta'+q-p}\right)/D`,
      :math:`\delta' = \min(\delta, p)`: Sec. 3.2's :math:`\epsilon_{ub}` for the prior
      *conditioned on the ball* (prior ``p/q``, advantage ``delta/q``), i.e. for an attacker
      who also knows that the value lies within ``a`` of ``t`` (Sec. 4.1's "squeezed" space);

    keeps the best ``a`` of each side and reports the smaller epsilon.  ``R`` defaults to
    PLEAK's: half the range for ``range``-type knowledge (``(ub - lb)/2``) and
    :math:`3\sqrt2\sigma` for ``normal``.  Differences from garesearch's default:

    1. Exponent: PLEAK's ``D = 2a`` (ball width) is sound but larger than the true largest
       distance ``a + r`` between :math:`X'` and the comparison set that garesearch uses;
       the paper's ``a`` is too small (unsound, see :mod:`garesearch.attribute`).
    2. Lower side: PLEAK's holds only for the attacker restricted to the ball; garesearch's
       bounds the unrestricted posterior (tail moment of the whole prior).
    3. Radius search: a grid up to a truncation ``R`` (for a normal prior not a bound on the
       distance) versus an exact optimisation over the whole support.
    4. PLEAK's ``erf`` is Abramowitz-Stegun 7.1.26 (error up to 1.5e-7); here the exact one.

    Returns
    -------
    dict
        ``epsilon``, ``a`` (best radius), ``distance`` (``D``), ``p``, ``q`` (ball mass
        ``g_t(a)``), ``side`` (``"upper"``/``"lower"``).

    Examples
    --------
    >>> import math
    >>> from garesearch.priors import Uniform
    >>> res = pleak_method_epsilon(Uniform(0, 10), t=5.0, r=1.0, delta=0.1)
    >>> res["side"], abs(res["epsilon"] + math.log(0.2 / 0.8 * (1 / 0.3 - 1)) / 10) < 1e-12  # Eq. (main), q = 1, D = 10
    ('upper', True)
    """
    if not isinstance(prior, Prior):
        raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
    v = scalar_values(r=r, delta=delta, **({} if R is None else {"R": R}))
    r, delta, R = v["r"], v["delta"], v.get("R")
    if not (r >= 0 and 0 < delta < 1 and (R is None or R > 0)):
        raise ParameterError(f"need r >= 0, 0 < delta < 1 and R > 0; got r={r}, delta={delta}, R={R}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 10**5:
        raise ParameterError(f"n must be an integer in [1, 100000] (radii tried); got {n!r}")
    if not (isinstance(prior, Categorical) and prior.metric == "discrete"):
        t = scalar_values(t=t)["t"]
    elif not isinstance(t, Hashable) or t not in prior.values:
        raise ParameterError(f"t={t!r} is not a value of this prior")
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        R = 1.0
    elif R is None:
        low, high = prior.support
        R = 3 * math.sqrt(2) * prior.sigma if isinstance(prior, Normal) else (high - low) / 2.0
    p, _ = _pleak_g(prior, t, r)
    if not 0 < p < 1:
        raise ParameterError(f"p = {p} at t = {t!r}: nothing to protect or nothing to guess")
    best = {}
    radii = [R] if R <= r else [r + k * (R - r) / n for k in range(n, 0, -1)]
    for side in ("upper", "lower"):
        top = None
        for a in radii:
            q, D = _pleak_g(prior, t, max(a, r))
            D = max(D, r if r > 0 else 1.0)
            eps = _pleak_side(side, delta, p, q, D)
            if top is None or eps > top[0]:
                top = (eps, a, D, q)
        best[side] = top
    side = "upper" if best["upper"][0] <= best["lower"][0] else "lower"
    eps, a, D, q = best[side]
    return {"epsilon": eps, "a": a, "distance": D, "p": p, "q": q, "side": side}


def _pleak_side(side, delta, p, q, D):
    if q >= 1 and p >= 1:
        return math.inf
    with np.errstate(all="ignore"):
        if side == "upper":
            ga = min(1 - p, delta)
            z = p / (q - p) * (1 / (ga + p) - 1) if q > p else math.inf
        else:
            ga = min(p, delta)
            # an empty comparison set (q = p) constrains nothing: z = 0, epsilon inf
            z = (q - p) / p * (q / (ga + q - p) - 1) if q > p else 0.0
    if z <= 0:
        return math.inf
    if not math.isfinite(z):
        return -math.inf
    return -math.log(z) / D


def pleak_worst_epsilon(*, delta: float, q: float, D: float) -> float:
    r"""PLEAK's epsilon when only the range is known (``banach/PostprocessQ.hs``,
    ``compute_worst_epsilon``):
    :math:`\frac{2}{D}\ln\frac{\sqrt q + \sqrt{\delta(\delta + q - 1)}}{1-\delta}`.

    Kept to compare with :func:`garesearch.bound.worst_case_epsilon` (they agree: PLEAK uses
    the correct worst prior, not the one printed in Sec. 4.1).

    Examples
    --------
    >>> import math
    >>> abs(pleak_worst_epsilon(delta=0.1, q=1.0, D=1.0) - 2 * math.log(1.1 / 0.9)) < 1e-15
    True
    """
    v = scalar_values(delta=delta, q=q, D=D)
    delta, q, D = v["delta"], v["q"], v["D"]
    if not (0 < delta < 1 and 0 < q <= 1 and q + delta > 1 and D > 0):
        raise ParameterError("need 0 < delta < 1, 0 < q <= 1, q + delta > 1, D > 0")
    out = 2.0 / D * math.log((math.sqrt(q) + math.sqrt(delta * (delta + q - 1))) / (1 - delta))
    if not 0 < out < math.inf:
        raise ParameterError(f"the epsilon lies outside the float64 range for D={D!r}")
    return out


def __getattr__(name):
    # the old name of PleakGoalResult, kept for one release
    if name == "GoalResult":
        warn_renamed("GoalResult", "PleakGoalResult", "garesearch.app.pleak")
        return PleakGoalResult
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
