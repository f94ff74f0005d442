r"""The whole univariate method of Sec. 4.1: from a prior, a precision ``r`` and a bound
``delta`` to the epsilon (per unit of the attribute's distance).

Soundness of the comparison set
-------------------------------
The paper takes :math:`\hat X'_a = \{x : r < d(x,t) \le a\}` and puts ``a`` in the exponent
(Eq. (main)).  The bound of Sec. 3.2 needs, for every point ``x'`` of :math:`X'` and ``x``
of :math:`\hat X'`, :math:`f(y|x') \le e^{\epsilon D} f(y|x)` with ``D`` the largest
distance between the two sets; for :math:`X' = [t-r, t+r]` that distance is ``a + r``, not
``a`` (the paper's equality :math:`\{x : \forall x' \in X'\, d(x,x') \le a\} = \{x : r <
d(x,t) \le a\}` fails: the left set is :math:`\{d(x,t) \le a - r\}`).  With exponent ``a`` a
mechanism can exceed the advantage bound
(:func:`garesearch.constructions.counterexamples.paper_counterexample` gives one).

garesearch's default construction (``construction="sound"``) therefore parametrises the
comparison set by the distance ``D`` that goes into the exponent:
:math:`\hat X'_D = \{x \notin X' : |x - x'| \le D\ \forall x' \in X'\}`, cut to the prior's
support (which settles the corner case of Fig. 1 exactly), and maximises
:math:`\epsilon(D)` over ``D`` (exactly for finite priors, by bracketing and Brent's method
for continuous ones).  The paper's construction is kept as ``construction="paper"`` to
reproduce its numbers.

The lower side
--------------
Def. 7 bounds :math:`|\Pr_{post}[X'] - \Pr_{pre}[X']|`.  For the lower side garesearch uses,
for every output,

.. math:: \Pr_{post}[X'] \ge \frac{p}{p + M(\epsilon)}, \qquad
   M(\epsilon) = \int_{X \setminus X'} e^{\epsilon D(x)} dF(x),

with :math:`D(x)` the largest distance from ``x`` to :math:`X'` (from
:math:`f(y|x) \le e^{\epsilon D(x)} \inf_{X'} f(y|\cdot)`).  With a bounded diameter ``R``
this is Sec. 3.2's :math:`\epsilon_{ub}`; for unbounded priors it replaces the paper's
truncation at :math:`R = 3\sqrt2\sigma`, which is not a bound on the distance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import bound
from ._args import warn_renamed
from ._backend import NUMPY
from ._maximise import GRID_U, maximise
from ._plain import PlainFields
from ._univariate import check_common, laplace_scale
from .constructions.pointwise import epsilon_pointwise
from .errors import InfeasibleError, ParameterError
from .optimal.attribute import epsilon_optimal
from .priors import Categorical, Prior

__all__ = ["AttributeResult", "eps_main", "epsilon_for_attribute", "log_tail_mgf", "maximise"]

_CONSTRUCTIONS = ("optimal", "sound", "pointwise", "paper")


@dataclass(frozen=True)
class AttributeResult(PlainFields):
    """What :func:`epsilon_for_attribute` found.

    Attributes
    ----------
    epsilon : float
        The epsilon, per unit of the attribute's distance (the smaller of the two sides).
    t : Any
        The true value it was computed for (the worst one when ``t=None`` was asked).
    p : float
        Prior mass of the correct guesses :math:`X' = \\mathcal B(t, r)`.
    q : float
        Prior mass of the comparison set :math:`\\hat X'`.
    a : float
        Largest distance from ``t`` to a point of the comparison set (its radius).
    distance : float
        Largest distance between a point of :math:`X'` and one of :math:`\\hat X'`: the
        factor of epsilon in the exponent.  Equals ``a`` in the paper's construction and
        ``a + r`` for an interior ``t`` in the sound one.
    epsilon_upper, epsilon_lower : float
        The epsilon of each side (``inf`` where a side does not bind).
    binding : str
        ``"upper"`` or ``"lower"``: the side that sets ``epsilon``.
    """

    epsilon: float
    t: Any
    r: float
    delta: float
    p: float
    q: float
    a: float
    distance: float
    epsilon_upper: float
    epsilon_lower: float
    binding: str
    construction: str
    prior: Prior = field(repr=False)

    laplace_scale = laplace_scale

    def posterior_bound(self) -> float:
        """The upper bound on the posterior at ``epsilon`` (at most ``p + delta``)."""
        if self.q == 0:
            return 1.0
        return bound.posterior_bound(epsilon=self.epsilon, p=self.p, q=self.q, a=self.distance)


# ------------------------------------------------------------------------------------------
def eps_main(p, q, delta, D):
    """Eq. (main) (Sec. 3.2) per unit distance, vectorised over p, q and D; -inf where
    infeasible (``inf`` where ``p + delta >= 1``: the upper side cannot bind).

    Examples
    --------
    >>> round(float(eps_main(0.2, 0.5, 0.1, 2.0)), 6)
    0.034496
    """
    q = np.asarray(q, dtype=float)
    D = np.asarray(D, dtype=float)
    if np.ndim(p) == 0:
        if p + delta >= 1:
            return np.full(np.broadcast(q, D).shape, np.inf)
        with np.errstate(all="ignore"):
            e = bound.eps_main_formula(delta, p, q, D, NUMPY)
        return np.where((q > 0) & (e > 0), e, -np.inf)
    p = np.asarray(p, dtype=float)
    open_ = p + delta >= 1
    with np.errstate(all="ignore"):
        e = bound.eps_main_formula(delta, np.where(open_, 0.5 * (1 - delta), p), q, D, NUMPY)
    return np.where(open_, np.inf, np.where((q > 0) & (e > 0), e, -np.inf))


def _eps_main1(p, q, delta, D):
    """:func:`eps_main` for floats (the same operations, without the array overhead)."""
    if p + delta >= 1:
        return math.inf
    if not q > 0:
        return -math.inf
    e = float(bound.eps_main_formula(delta, p, q, D, NUMPY))
    return e if e > 0 else -math.inf


def _cut_ends(prior, lo, hi, R, t):
    """Ends of the region the comparison sets may reach (``R`` from ``t`` if given): the
    support's ends, an infinite end replaced by a point beyond both the 1e-16 quantile and the
    ball (so that a ball far in a tail keeps comparison sets on both of its sides)."""
    low, high = prior.support
    lo, hi, t = (np.asarray(v, dtype=float) for v in (lo, hi, t))
    if R is not None:
        return np.maximum(low, t - R), np.minimum(high, t + R)
    with np.errstate(all="ignore"):
        q_lo = float(prior.quantile(1e-16)) if math.isinf(low) else low
        q_hi = float(prior.upper_quantile(1e-16)) if math.isinf(high) else high
    span = np.maximum(q_hi, hi) - np.minimum(q_lo, lo)
    cut_lo = np.minimum(q_lo, lo - span) if math.isinf(low) else np.full(lo.shape, low)
    cut_hi = np.maximum(q_hi, hi + span) if math.isinf(high) else np.full(hi.shape, high)
    return cut_lo, cut_hi


#: points per decade of the geometric grid over the comparison set's distance
_PER_DECADE = 8


def _distance_grid(width, d_max):
    """Distances ``D`` to scan, rows (``width``, ``d_max`` arrays): ``width`` and geometric
    steps above it from 1e-7 of ``min(width, d_max - width)`` to ``d_max`` (a comparison set
    just beyond the ball and one reaching the far bulk are both on the grid, however far
    apart they are)."""
    width, d_max = np.atleast_1d(np.asarray(width, float)), np.atleast_1d(np.asarray(d_max, float))
    span = np.maximum(d_max - width, 0.0)
    first = 1e-7 * np.where(width > 0, np.minimum(width, span), span)
    with np.errstate(all="ignore"):
        decades = np.where(span > 0, np.log10(span / first), 0.0)
    m = int(min(max(96, _PER_DECADE * float(np.max(decades, initial=0.0))), 800))
    v = np.linspace(0.0, 1.0, m)
    with np.errstate(all="ignore"):
        offs = np.exp(np.log(first)[:, None] + np.log(span / first)[:, None] * v)
    offs = np.where(span[:, None] > 0, offs, 0.0)
    return np.concatenate([width[:, None], width[:, None] + offs], axis=1)


def _eps_main_log(log_p, log_q, delta, D):
    r"""Eq. (main) per unit distance from :math:`\ln p` and :math:`\ln q` (a ball far in a
    tail, its mass below float64): :math:`\epsilon D = \ln q - \ln(1-p) + \ln(p+\delta)
    - \ln p + \mathrm{log1p}(\delta/(1-p-\delta))` (:func:`garesearch.bound.eps_main_formula`
    with :math:`\mathrm{log1p}(\delta/p) = \ln(p+\delta) - \ln p`); -inf where infeasible."""
    p = math.exp(log_p)
    if p + delta >= 1:
        return np.full(np.shape(D), np.inf)
    with np.errstate(all="ignore"):
        e = (log_q - math.log1p(-p) + math.log(p + delta) - log_p
             + math.log1p(delta / (1 - p - delta))) / D
    return np.where(np.isfinite(log_q) & (e > 0), e, -np.inf)


def _upper_sound_continuous(prior, t, r, delta, R):
    lo, hi = prior.correct_extent(t, r)
    p = float(prior.mass(lo, hi))
    cut_lo, cut_hi = (float(v) for v in _cut_ends(prior, lo, hi, R, t))
    width = hi - lo
    d_max = max(hi - cut_lo, cut_hi - lo)
    if d_max <= width:
        return p, None
    grid = _distance_grid(width, d_max)[0]
    if p > 0:
        def q_of(D):
            return prior.mass(np.maximum(hi - D, cut_lo), np.minimum(lo + D, cut_hi)) - p

        def eps_of(D):
            return eps_main(p, q_of(D), delta, D)

        def eps_of1(D):
            q = prior.mass1(max(hi - D, cut_lo), min(lo + D, cut_hi)) - p
            return _eps_main1(p, q, delta, D)
    else:  # the ball's mass underflows: Eq. (main) from log masses
        log_p = float(prior.log_tilted_mass(0.0, lo, hi, t)) if hi > lo else -math.inf
        if not log_p > -math.inf:
            return 0.0, None

        def log_q(D):
            D = np.asarray(D, dtype=float)
            with np.errstate(all="ignore"):
                below = prior.log_tilted_mass(0.0, np.maximum(hi - D, cut_lo), lo, t)
                above = prior.log_tilted_mass(0.0, hi, np.minimum(lo + D, cut_hi), t)
            return np.logaddexp(np.where(hi - D < lo, below, -np.inf), np.where(lo + D > hi, above, -np.inf))

        def q_of(D):
            return np.exp(log_q(D))

        def eps_of(D):
            return _eps_main_log(log_p, log_q(D), delta, D)

        eps_of1 = None
        p = math.exp(log_p)
    D, e = maximise(eps_of, width, d_max, fun1=eps_of1, xs=grid)
    if D is None or not e > 0:
        return p, None
    q = float(q_of(np.array([D]))[0])
    a = max(t - max(hi - D, cut_lo), min(lo + D, cut_hi) - t)
    return p, (e, q, a, D)


def _upper_sound_finite(prior: Categorical, t, r, delta, R):
    x, w = prior.points, prior.probs
    lo, hi = prior.correct_extent(t, r)
    inside = (x >= lo) & (x <= hi) & (np.abs(x - t) <= r)
    p = float(w[inside].sum())
    cand = ~inside
    if R is not None:
        cand &= np.abs(x - t) <= R
    if p == 0 or not np.any(cand):
        return p, None
    D_x = np.maximum(np.abs(x - lo), np.abs(x - hi))[cand]
    w_x = w[cand]
    order = np.argsort(D_x, kind="stable")
    D_sorted, q_cum = D_x[order], np.cumsum(w_x[order])
    last = np.r_[D_sorted[1:] != D_sorted[:-1], True]  # all atoms at the same D enter together
    D_c, q_c = D_sorted[last], q_cum[last]
    e = eps_main(p, q_c, delta, D_c)
    i = int(np.argmax(e))
    if not e[i] > 0:
        return p, None
    a = float(np.max(np.abs(x[cand][order][: np.searchsorted(D_sorted, D_c[i], 'right')] - t)))
    return p, (float(e[i]), float(q_c[i]), a, float(D_c[i]))


def _scale(prior) -> float:
    """A typical distance of the prior (to start the searches over epsilon)."""
    low, high = prior.support
    if np.isfinite(low) and np.isfinite(high):
        return high - low
    q1, q3 = (float(v) for v in prior.quantile(np.array([0.25, 0.75])))
    return max(q3 - q1, 1e-300)


def log_tail_mgf(prior: Prior, epsilon: float, lo: float, hi: float) -> float:
    r""":math:`\ln M(\epsilon)`, :math:`M(\epsilon) = \int_{x < lo \text{ or } x > hi}
    e^{\epsilon D(x)} dF(x)` with :math:`D(x) = \max(|x - lo|, |x - hi|)` (the lower side of
    Def. 7, module docstring), from the prior's tilted tails
    (:meth:`~garesearch.priors.Prior.log_tilted_tail`): ``inf`` where it diverges, ``-inf``
    where no mass lies outside ``[lo, hi]`` (beyond the paper).

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> round(math.exp(log_tail_mgf(Categorical({0: 0.5, 1: 0.5}), 1.0, 0.0, 0.0)), 6)
    1.359141
    """
    return prior.log_tail_mgf(epsilon, lo, hi)


def _lower_sound(prior, t, r, delta, p):
    """Largest epsilon with p / (p + M(eps)) >= p - delta (inf if p <= delta).

    ``M`` grows with epsilon, so the epsilons that meet the lower side form an interval
    ``[0, eps*]``; bracket ``eps*`` and bisect (Brent's method once ``M`` is finite on
    both ends).  ``0`` means no epsilon > 0 meets it (tails heavier than exponential).
    """
    if p <= delta:
        return math.inf
    lo, hi = prior.correct_extent(t, r)
    if log_tail_mgf(prior, 0.0, lo, hi) == -math.inf:  # X' holds all the mass
        return math.inf
    log_target = math.log(p * (1 - p + delta) / (p - delta))

    def excess(e):
        return log_tail_mgf(prior, e, lo, hi) - log_target

    scale = _scale(prior)
    e = 1e-3 / scale
    if excess(e) < 0:
        e_ok, e_bad = e, 2 * e
        while excess(e_bad) < 0:
            e_ok, e_bad = e_bad, 2 * e_bad
            if e_bad * scale > 1e300:
                return math.inf
    else:
        e_ok, e_bad = e / 8, e
        while excess(e_ok) >= 0:
            e_ok, e_bad = e_ok / 8, e_ok
            if e_ok * scale < 1e-30:
                return 0.0
    if math.isfinite(excess(e_bad)):
        from scipy.optimize import brentq

        return brentq(excess, e_ok, e_bad, xtol=1e-300, rtol=1e-15, maxiter=500)
    for _ in range(200):  # M jumps to inf inside the bracket: bisect on the predicate
        mid = 0.5 * (e_ok + e_bad)
        if mid in (e_ok, e_bad):
            break
        if excess(mid) < 0:
            e_ok = mid
        else:
            e_bad = mid
    return e_ok


def _discrete_metric(prior: Categorical, t, r, delta, sides):
    if r >= 1:
        raise ParameterError(
            f"r must be < R = 1 under the discrete metric (r >= 1 makes every guess correct); got r={r}"
        )
    p = prior.probability(t)
    if p >= 1:
        raise ParameterError("the prior puts all its mass on one value; there is nothing to guess")
    up = float(bound.eps_lb(delta=delta, p=p))
    low = float(bound.eps_ub(delta=delta, p=p)) if sides == "both" else math.inf
    return p, (up, 1 - p, 1.0, 1.0), low


def _upper_memo(memo, prior, t, r, delta, R):
    """:func:`_upper_sound_continuous`, remembered in ``memo`` (a dict keyed by ``t``)."""
    if memo is None:
        return _upper_sound_continuous(prior, t, r, delta, R)
    if t not in memo:
        memo[t] = _upper_sound_continuous(prior, t, r, delta, R)
    return memo[t]


def _one_t(prior, t, r, delta, R, sides, construction, memo=None):
    """(epsilon, fields) for one true value (``memo``: see :func:`_upper_memo`)."""
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        p, upper, low = _discrete_metric(prior, t, r, delta, sides)
    elif construction == "paper":
        p, upper, low = _paper_one_t(prior, t, r, delta, R, sides)
    else:
        if isinstance(prior, Categorical):
            p, upper = _upper_sound_finite(prior, t, r, delta, R)
        else:
            p, upper = _upper_memo(memo, prior, t, r, delta, R)
        if p <= 0:
            return None
        low = _lower_sound(prior, t, r, delta, p) if sides == "both" else math.inf
    if upper is None:
        if p + delta >= 1:
            upper = (math.inf, 0.0, 0.0, 0.0)
        else:
            upper = (0.0, 0.0, 0.0, 0.0)
    e_up, q, a, D = upper
    eps = min(e_up, low)
    return dict(
        epsilon=eps, t=t, p=p, q=q, a=a, distance=D, epsilon_upper=e_up, epsilon_lower=low,
        binding="upper" if e_up <= low else "lower",
    )


def _lower_exceeds(prior, lo, hi, delta, p, e):
    """Whether :func:`_lower_sound`'s epsilon exceeds ``e``, from one evaluation of ``M``.

    ``M`` increases with epsilon, so the lower side's epsilon exceeds ``e`` iff
    ``M(e)`` is below its target.  ``False`` also where one evaluation cannot tell.
    """
    if p <= delta:
        return True
    if not 0 < e < math.inf:
        return False
    log_m = log_tail_mgf(prior, e, lo, hi)
    if log_m == -math.inf:  # X' holds all the mass
        return True
    return log_m < math.log(p * (1 - p + delta) / (p - delta))


def _epsilon_one_t(prior, t, r, delta, R, sides, construction, memo=None):
    """:func:`_one_t`'s epsilon alone (``None`` where it gives ``None``); for searches.

    The lower side of the sound construction is solved only where it is smaller than the
    upper side (:func:`_lower_exceeds`); elsewhere the minimum is the upper side.
    """
    if construction != "sound" or isinstance(prior, Categorical):
        res = _one_t(prior, t, r, delta, R, sides, construction)
        return None if res is None else res["epsilon"]
    p, upper = _upper_memo(memo, prior, t, r, delta, R)
    if p <= 0:
        return None
    e_up = upper[0] if upper is not None else (math.inf if p + delta >= 1 else 0.0)
    if sides != "both" or e_up == 0:
        return e_up
    lo, hi = prior.correct_extent(t, r)
    if _lower_exceeds(prior, lo, hi, delta, p, e_up):
        return e_up
    return min(e_up, _lower_sound(prior, t, r, delta, p))


def _paper_one_t(prior, t, r, delta, R, sides):
    """The paper's construction: X̂_a = {r < |x - t| <= a}, exponent a, a in (r, R]."""
    if R is None:
        R = prior.paper_R()
    p = float(prior.ball_mass(t, r))
    if isinstance(prior, Categorical):
        d = np.abs(prior.points - t)
        cand = np.unique(d[(d > r) & (d <= R)])
        if cand.size == 0 or p == 0:
            return p, None, math.inf
        q = prior.ball_mass(t, cand) - p
        e = eps_main(p, q, delta, cand)
        i = int(np.argmax(e))
        upper = (float(e[i]), float(q[i]), float(cand[i]), float(cand[i])) if e[i] > 0 else None
    else:
        a, e = maximise(
            lambda a: eps_main(p, prior.ball_mass(t, a) - p, delta, a), r, R,
            fun1=lambda a: _eps_main1(p, prior.mass1(t - a, t + a) - p, delta, a),
        )
        upper = None if a is None or not e > 0 else (e, float(prior.ball_mass(t, a) - p), a, a)
    low = float(bound.eps_ub(delta=delta, p=p, R=R)) if sides == "both" and 0 < p < 1 else math.inf
    return p, upper, low


def epsilon_for_attribute(
    prior: Prior,
    *,
    r: float,
    delta: float,
    t: Any = None,
    R: float | None = None,
    sides: str = "both",
    construction: str = "optimal",
):
    r"""Epsilon that keeps the attacker's advantage in guessing one attribute within ``r``
    at most ``delta`` (Def. 7, Sec. 4.1, Eq. (main)).

    The default, ``construction="optimal"``, is the largest epsilon at which no epsilon-DP
    mechanism exceeds the bound (:func:`garesearch.optimal.epsilon_optimal`: sound, and not
    improvable).  The others are kept by name: ``"sound"`` (Eq. (main) with a comparison set
    at the correct distance, optimised exactly; see the module docstring), ``"pointwise"``
    (:func:`garesearch.constructions.pointwise.epsilon_pointwise`) and ``"paper"`` (Eq. (main) as printed).

    Parameters
    ----------
    prior : Prior
        The attacker's prior (:mod:`garesearch.priors`).
    r : float
        Precision of a correct guess, ``r >= 0``.
    delta : float
        Bound on the advantage, in (0, 1).
    t : optional
        The true value.  ``None`` (default): the worst case over every value the prior
        allows (all values of a finite prior; for a density a scan through the far tails,
        refined locally, with the limit at an unbounded end), for every construction; the
        result's ``t`` says which value that was.  The two sides can be worst at different
        values: for the salary of Sec. 6.2 and ``"paper"``, the lower side (Sec. 3.2's
        :math:`\epsilon_{ub}` over ``R``) binds with ``sides="both"`` and is worst where the
        ball holds the most mass, the mean (0.000502 at ``t = 2000``), while the upper side
        alone (``sides="upper"``, as Sec. 6.2 takes it) is worst at ``t = 1843`` (0.000721).
    R : float, optional
        Largest radius of the comparison set (``"sound"`` and ``"paper"`` only; the paper's
        ``R``).  Default: the whole support for ``"sound"``, :meth:`Prior.paper_R` for
        ``"paper"``.
    sides : {"both", "upper", "lower"}
        ``"both"`` bounds :math:`|\Pr_{post} - \Pr_{pre}|` (Def. 7); ``"upper"`` bounds only
        the attacker's gain :math:`\Pr_{post} - \Pr_{pre}`; ``"lower"`` (``"optimal"``
        only) only the loss.
    construction : {"optimal", "sound", "pointwise", "paper"}
        ``"paper"`` reproduces Eq. (main) with :math:`\hat X'_a = \{r < d(x,t) \le a\}` and
        exponent ``a``, which is not sound in general (see :func:`garesearch.constructions.counterexamples.paper_counterexample`).

    Returns
    -------
    OptimalResult, AttributeResult or PointwiseResult
        By construction; each has ``epsilon``, ``t``, ``p``, ``binding``,
        ``epsilon_upper``, ``epsilon_lower`` and ``laplace_scale()``.

    Raises
    ------
    ParameterError
        Bad input: ``delta`` outside (0, 1), ``r < 0``, ``r >= R``, ``t`` outside the prior.
    InfeasibleError
        If no epsilon > 0 meets the request.

    See Also
    --------
    garesearch.optimal.epsilon_optimal : The default construction: the optimum over every epsilon-DP mechanism.
    garesearch.constructions.pointwise.epsilon_pointwise : The pointwise bound (``construction="pointwise"``).
    garesearch.events.epsilon_for_goal : AND / OR goals over several attributes (Sec. 4.2, 4.3).
    garesearch.releases.calibration.calibrate : A noise scale under the worst, tail or average reading.

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> cats = Categorical({"red": .2, "white": .1, "tabby": .25, "black": .4, "tortoise": .05})
    >>> res = epsilon_for_attribute(cats, r=0, delta=0.1, t="black")
    >>> round(res.epsilon, 4), res.construction
    (0.4055, 'optimal')
    """
    if construction not in _CONSTRUCTIONS:
        raise ParameterError(f"construction must be one of {_CONSTRUCTIONS}; got {construction!r}")
    if construction in ("optimal", "pointwise"):
        if R is not None:
            raise ParameterError(
                f"R limits the comparison sets of construction='sound' or 'paper'; "
                f"construction={construction!r} takes none (got R={R!r})"
            )
        if construction == "optimal":
            return epsilon_optimal(prior, r=r, delta=delta, t=t, sides=sides)
        return epsilon_pointwise(prior, r=r, delta=delta, t=t, sides=sides)
    check_common(prior, r, delta, sides)
    discrete = isinstance(prior, Categorical) and prior.metric == "discrete"
    if r == 0 and not isinstance(prior, Categorical):
        raise ParameterError(
            "r must be > 0 for a prior with a density: a ball of radius 0 holds no prior mass, "
            "so no guess is ever correct"
        )
    if R is not None:
        if not (isinstance(R, (int, float, np.integer, np.floating)) and math.isfinite(R) and R > 0):
            raise ParameterError(f"R must be a finite number > 0; got {R!r}")
        if r >= R:
            raise ParameterError(f"r must be smaller than R; got r={r}, R={R}")
    elif not discrete:
        low, high = prior.support
        if r >= high - low:
            raise ParameterError(
                f"r must be smaller than the prior's diameter R = {high - low}; got r={r}"
            )
    if construction == "paper" and not discrete and R is None:
        R = prior.paper_R()
        if r >= R:
            raise ParameterError(f"r must be smaller than R = {R}; got r={r}")

    args = (r, delta, R, sides, construction)
    if t is not None:
        if discrete:
            prior.probability(t)
        else:
            if not isinstance(t, (int, float, np.integer, np.floating)) or not math.isfinite(t):
                raise ParameterError(f"t must be a finite number; got {t!r}")
            low, high = prior.support
            if not low <= t <= high:
                raise ParameterError(f"t must lie in the prior's support [{low}, {high}]; got {t}")
        best = _one_t(prior, t, *args)
        if best is None:
            raise InfeasibleError(f"the ball of radius r={r} around t={t} holds no prior mass")
    else:
        best = _worst_t(prior, *args)
    if not best["epsilon"] > 0:
        side = best["binding"]
        raise InfeasibleError(
            f"no epsilon > 0 keeps the advantage within delta={delta} at t={best['t']!r} "
            f"(p={best['p']:.6g}): the {side} side cannot be met"
            + (
                "; no comparison set is heavy enough (Eq. (main) needs q > p(1-p-delta)/(p+delta))."
                " Allow a larger R, or a larger delta."
                if side == "upper"
                else "; the prior's tails are too heavy for the lower side. Use sides='upper'."
            )
        )
    return AttributeResult(r=r, delta=delta, construction=construction, prior=prior, **best)


def _worst_t(prior, *args):
    discrete = isinstance(prior, Categorical) and prior.metric == "discrete"
    if discrete or isinstance(prior, Categorical):
        ts = prior.values if discrete else [float(t) for t in prior.t_candidates(args[0])]
        results = [res for res in (_one_t(prior, t, *args) for t in ts) if res is not None]
        if not results:
            raise InfeasibleError("no true value has prior mass within r")
        return results[int(np.argmin([res["epsilon"] for res in results]))]

    # continuous prior: scan the candidate true values all at once (vectorised), evaluate
    # exactly only the ones that can be the worst, then refine it with Brent's method
    ts = np.asarray([float(t) for t in prior.t_candidates(args[0])])
    approx = _scan_t(prior, ts, *args)
    usable = ~np.isnan(approx)
    if not np.any(usable):
        raise InfeasibleError("no true value has prior mass within r")
    low = float(np.min(approx[usable]))
    near = usable if math.isinf(low) else usable & (approx <= low + _NEAR * abs(low))
    memo: dict[float, Any] = {}  # upper side per t, shared by the searches below
    found = [(e, t) for e, t in ((_epsilon_one_t(prior, float(t), *args, memo=memo), t) for t in ts[near])
             if e is not None]
    if not found:
        raise InfeasibleError("no true value has prior mass within r")
    best = _one_t(prior, float(found[int(np.argmin([e for e, _ in found]))][1]), *args, memo=memo)

    from scipy.optimize import minimize_scalar

    j = int(np.searchsorted(ts, best["t"]))
    a, b = ts[max(j - 1, 0)], ts[min(j + 1, ts.size - 1)]
    if b > a:
        def f(t):
            e = _epsilon_one_t(prior, float(t), *args, memo=memo)
            return math.inf if e is None else e

        opt = minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": 1e-10 * max(1.0, abs(b))})
        if opt.fun < best["epsilon"]:
            best = _one_t(prior, float(opt.x), *args, memo=memo)
    if args[4] == "sound" and args[2] is None:  # beyond the grid: the limit at an unbounded end
        lim, end, D = _sound_far_tail(prior, args[0], args[1])
        if lim < best["epsilon"]:
            best = dict(epsilon=lim, t=end, p=0.0, q=0.0, a=D - args[0], distance=D, epsilon_upper=lim,
                        epsilon_lower=math.inf, binding="upper")
    return best


def _sound_far_tail(prior, r, delta):
    r"""The sound construction's upper-side epsilon as ``t`` goes to an unbounded end of the
    support: ``(epsilon, end, D)``, ``(inf, None, nan)`` where no end limits it (beyond the paper).

    Where the density behaves locally like :math:`e^{-\lambda u}` (:meth:`Continuous.tail_class`;
    :math:`\lambda = 0` for a tail heavier than every exponential), ``p`` tends to 0 and the
    comparison set at distance ``D > 2r`` has :math:`q/p \to (\sinh\lambda(D - r) -
    \sinh\lambda r)/\sinh\lambda r` (:math:`(D - 2r)/r` for :math:`\lambda = 0`), so Eq. (main)
    tends to :math:`\epsilon D = \ln(q/p) + \ln(\delta/(1 - \delta))`, maximised over ``D``.  A
    tail lighter than every exponential (and a Normal prior) gives no limit: ``q/p`` grows
    without bound.  The lower side does not bind there (``p < delta``).
    """
    best = (math.inf, None, math.nan)
    tail_class = getattr(prior, "tail_class", None)
    if tail_class is None or r <= 0:
        return best
    low, high = prior.support
    c = math.log(delta) - math.log1p(-delta)
    for end, side in ((low, "left"), (high, "right")):
        if math.isfinite(end):
            continue
        kind, lam = tail_class(side)
        if kind == "light":
            continue
        lam = 0.0 if kind == "heavy" else float(lam)
        top = 1e12 * r if lam == 0 else min(1e12 * r, 2 * r + 1e3 / lam)
        D = 2 * r + np.concatenate([np.geomspace(1e-9 * r, top, 2000)])
        with np.errstate(all="ignore"):
            if lam * r < 1e-8:
                log_ratio = np.log((D - 2 * r) / r)
            else:
                x, y = lam * (D - r), lam * r
                # ln(sinh x - sinh y) - ln(sinh y), x > y > 0, without overflow
                log_ratio = (x + np.log(-np.expm1(-2 * x) - np.exp(y - x) + np.exp(-y - x))
                             - (y + math.log(-math.expm1(-2 * y))))
            e = (log_ratio + c) / D
        e = np.where(np.isfinite(e), e, -np.inf)
        i = int(np.argmax(e))
        lo_i, hi_i = D[max(i - 1, 0)], D[min(i + 1, D.size - 1)]
        fine = np.linspace(lo_i, hi_i, 2001)
        with np.errstate(all="ignore"):
            if lam * r < 1e-8:
                lr = np.log((fine - 2 * r) / r)
            else:
                x = lam * (fine - r)
                lr = (x + np.log(-np.expm1(-2 * x) - np.exp(y - x) + np.exp(-y - x))
                      - (y + math.log(-math.expm1(-2 * y))))
            ef = (lr + c) / fine
        ef = np.where(np.isfinite(ef), ef, -np.inf)
        j = int(np.argmax(ef))
        val = max(float(ef[j]), 0.0)
        if val < best[0]:
            best = (val, end, float(fine[j]))
    return best


#: former private names (kept for callers that still use them)

# candidates within this relative distance of the scan's minimum are evaluated exactly
_NEAR = 1e-6
# zoom of the vectorised scan: points per round and rounds (bracket shrinks 8x per round)
_ZOOM_POINTS, _ZOOM_ROUNDS = 17, 6


def _maximise_rows(fun, lo, hi, X=None):
    """Row-wise maximum of ``fun(X)`` (``X`` of shape (rows, points)) over ``[lo, hi]``.

    The grid of :func:`maximise`, then a zoom into the bracket of each row's best grid
    point (instead of one Brent search per row): accurate to rounding in the maximum,
    which is flat.  Returns the row maxima (``-inf`` where a row has no finite value).
    """
    rows = np.arange(lo.size)
    if X is None:
        X = lo[:, None] + (hi - lo)[:, None] * GRID_U
    Y = fun(X)
    Y = np.where(np.isnan(Y), -np.inf, Y)
    none = ~np.any(np.isfinite(Y) & (Y > -np.inf), axis=1)
    i = np.argmax(Y, axis=1)
    best = Y[rows, i]
    n = X.shape[1]
    a, b = X[rows, np.maximum(i - 1, 0)], X[rows, np.minimum(i + 1, n - 1)]
    zoom = np.linspace(0.0, 1.0, _ZOOM_POINTS)
    for _ in range(_ZOOM_ROUNDS):
        X = a[:, None] + (b - a)[:, None] * zoom
        Y = fun(X)
        Y = np.where(np.isnan(Y), -np.inf, Y)
        k = np.argmax(Y, axis=1)
        best = np.maximum(best, Y[rows, k])
        a = X[rows, np.maximum(k - 1, 0)]
        b = X[rows, np.minimum(k + 1, _ZOOM_POINTS - 1)]
    return np.where(none, -np.inf, best)


def _mass_2d(prior, lo, hi):
    """``prior.mass`` on a grid, through 1-d arrays (all that :meth:`Prior.mass` promises)."""
    lo, hi = np.broadcast_arrays(lo, hi)
    return np.asarray(prior.mass(lo.ravel(), hi.ravel())).reshape(lo.shape)


def _scan_t(prior, ts, r, delta, R, sides, construction):
    """:func:`_one_t`'s epsilon at many true values at once, to within rounding of the
    maximum over the comparison set; NaN where the ball around ``t`` holds no mass.

    The lower side is evaluated exactly (:func:`_lower_sound`) only where it can bind:
    ``M`` is increasing, so one evaluation of ``M`` at the smallest upper-side epsilon tells
    whether the lower side's epsilon lies below it.
    """
    col = (lambda v: v[:, None])  # noqa: E731
    if construction == "paper":
        R = prior.paper_R() if R is None else R
        p = prior.mass(ts - r, ts + r)

        def eps_of(X):
            q = _mass_2d(prior, col(ts) - X, col(ts) + X) - col(p)
            return eps_main(col(p), q, delta, X)

        up = _maximise_rows(eps_of, np.full(ts.shape, float(r)), np.full(ts.shape, float(R)))
        up = np.where(up > 0, up, np.where(p + delta >= 1, np.inf, 0.0))
        if sides != "both":
            return up
        inner = (p > 0) & (p < 1)
        with np.errstate(all="ignore"):
            low = bound.eps_ub_formula(delta, np.where(inner, p, 0.5), R, NUMPY)
        low = np.where(inner & (p > delta), low, np.inf)
        return np.minimum(up, low)

    extent = [prior.correct_extent(float(t), r) for t in ts]
    lo = np.array([e[0] for e in extent])
    hi = np.array([e[1] for e in extent])
    p = prior.mass(lo, hi)
    cut_lo, cut_hi = _cut_ends(prior, lo, hi, R, ts)
    width = hi - lo
    d_max = np.maximum(hi - cut_lo, cut_hi - lo)

    def eps_of(X):
        q = _mass_2d(prior, np.maximum(col(hi) - X, col(cut_lo)), np.minimum(col(lo) + X, col(cut_hi)))
        return eps_main(col(p), q - col(p), delta, X)

    up = _maximise_rows(eps_of, width, np.maximum(d_max, width),
                        _distance_grid(width, np.maximum(d_max, width)))
    up = np.where((d_max > width) & (up > 0), up, np.where(p + delta >= 1, np.inf, 0.0))
    has_mass = p > 0
    if sides == "both":
        low = np.full(ts.shape, np.inf)
        thr = float(np.min(up[has_mass])) * (1 + 100 * _NEAR) if np.any(has_mass) else math.nan
        for k in np.flatnonzero(has_mass & (p > delta)):
            pk = float(p[k])
            if not _lower_exceeds(prior, float(lo[k]), float(hi[k]), delta, pk, thr):
                low[k] = _lower_sound(prior, float(ts[k]), r, delta, pk)
        up = np.minimum(up, low)
    return np.where(has_mass, up, np.nan)


def __getattr__(name):
    # the old home of garesearch.constructions.counterexamples.paper_counterexample, kept for one release
    if name == "paper_counterexample":
        from .constructions._paper_counterexample import paper_counterexample

        warn_renamed("paper_counterexample", "garesearch.constructions.counterexamples.paper_counterexample",
                     "garesearch.attribute")
        return paper_counterexample
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
