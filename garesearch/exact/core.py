r"""The exact guessing advantage of an additive-noise mechanism: the suprema over outputs
and true values, and the epsilon at which it reaches a bound (:mod:`garesearch.exact`, whose
docstring derives the limits and the unimodality used here; Sec. 3.2, Def. 7).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._args import check_sides
from .._roots import narrow_bracket
from ..errors import InfeasibleError, ParameterError
from ..mechanisms import Mechanism, RandomizedResponse
from ..priors import Categorical, Prior
from ._exact_problem import (
    _far_crossing,
    _finite_sets,
    _problem,
    as_target_set,
)
from ._exact_suprema import (
    _advantage,
    _post,
    _side_value,
)

__all__ = ["ExactAdvantage", "as_target_set", "check_additive", "check_exact_args", "exact_advantage",
           "exact_epsilon", "or_event", "posterior"]


@dataclass(frozen=True)
class ExactAdvantage:
    """What :func:`exact_advantage` found.

    Attributes
    ----------
    advantage : float
        :math:`\\sup_y |\\Pr_{post}[X'|y] - \\Pr_{pre}[X']|` at the worst true value (or the
        upper or lower side alone, as asked).
    t : Any
        The (worst) true value.
    y : float
        An output attaining the supremum (``inf`` or ``-inf`` for a limit; a value of the
        prior for randomized response).
    side : str
        ``"upper"`` (posterior above the prior) or ``"lower"``.
    p : float
        Prior mass :math:`\\Pr_{pre}[X']` at ``t``.
    posterior : float
        Posterior of :math:`X'` at ``y``.
    upper, lower : float
        :math:`\\sup_y \\Pr_{post} - p` and :math:`p - \\inf_y \\Pr_{post}` at ``t``.
    y_upper, y_lower : float
        Outputs attaining them.
    """

    advantage: float
    t: Any
    y: float
    side: str
    p: float
    posterior: float
    upper: float
    lower: float
    y_upper: float
    y_lower: float
    epsilon: float
    r: float
    mechanism: Mechanism = field(repr=False)


def check_additive(mechanism):
    """:class:`~garesearch.ParameterError` unless ``mechanism`` is additive noise (a
    :class:`~garesearch.mechanisms.Mechanism`; beyond the paper: argument checking).

    Examples
    --------
    >>> from garesearch.mechanisms import Laplace
    >>> check_additive(Laplace()) is None
    True
    """
    if not isinstance(mechanism, Mechanism):
        raise ParameterError(f"mechanism must be an additive-noise garesearch.mechanisms.Mechanism; got {mechanism!r}")


def check_exact_args(epsilon, sides):
    """:class:`~garesearch.ParameterError` unless ``epsilon > 0`` is finite and ``sides`` is
    ``'both'``, ``'upper'`` or ``'lower'`` (beyond the paper: argument checking).

    Examples
    --------
    >>> check_exact_args(1.0, "upper") is None
    True
    >>> check_exact_args(0.0, "both")
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: epsilon must be a finite number > 0; got 0.0
    """
    if not isinstance(epsilon, (int, float, np.integer, np.floating)) or not (
        math.isfinite(float(epsilon)) and float(epsilon) > 0
    ):
        raise ParameterError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    check_sides(sides)


def exact_advantage(
    prior: Prior,
    mechanism: Mechanism | RandomizedResponse,
    *,
    epsilon: float,
    r: float,
    t: Any = None,
    sides: str = "both",
    target: Any = None,
    correct: Callable | None = None,
) -> ExactAdvantage:
    r"""Exact worst-case guessing advantage of ``mechanism`` at ``epsilon`` (Def. 7, Sec. 3.2).

    .. math:: \sup_{t}\ \sup_{y \in \mathbb R \cup \{\pm\infty\}}
       \left|\Pr_{post}[\mathcal B(t, r) \mid y] - \Pr_{pre}[\mathcal B(t, r)]\right|

    Parameters
    ----------
    prior : Prior
        The attacker's prior (any :mod:`garesearch.priors` prior).
    mechanism : Mechanism or RandomizedResponse
        :class:`~garesearch.mechanisms.Laplace`, ``Gaussian`` or ``GenCauchy`` noise on the
        query output, or :class:`~garesearch.mechanisms.RandomizedResponse` on the value of a
        :class:`~garesearch.priors.Categorical` prior (then ``y`` in the result is an output
        value and ``target`` does not apply).
    epsilon : float
        Epsilon per unit of the attribute (sets the noise scale), > 0.
    r : float
        Precision of a correct guess, ``>= 0`` (``< 1`` under the discrete metric).
    t : optional
        True value; ``None``: the worst one (all values of a finite prior; for a continuous
        prior a scan of :meth:`Prior.t_candidates` refined by Brent's method).
    sides : {"both", "upper", "lower"}
        Which deviation counts: :math:`|\cdot|` (Def. 7), the posterior's rise, or its fall.
    target : value or collection, optional
        Discrete metric only: the query is :math:`\mathrm{COUNT} = 1\{x \in \text{target}\}`,
        which moves by 1 between any value in the target and any value outside it (sensitivity
        1 under the discrete metric).  ``None``: the worst single-value target.
    correct : callable, optional
        Discrete metric only: ``correct(t)`` returns the values that count as a correct guess
        when the truth is ``t`` (default ``[t]``; an OR-event passes the union of its parts).

    Returns
    -------
    ExactAdvantage

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> from garesearch.mechanisms import Laplace
    >>> res = exact_advantage(Categorical({0: 0.5, 1: 0.5}), Laplace(), epsilon=1.0, r=0)
    >>> round(res.advantage, 6)  # (e - 1) / (2 (e + 1)) = tanh(1/2) / 2
    0.231059
    """
    check_exact_args(epsilon, sides)
    if isinstance(mechanism, RandomizedResponse):
        return _rr_advantage(prior, mechanism, float(epsilon), r, t, sides, target, correct)
    if isinstance(prior, Categorical) and prior.metric == "discrete" and target is None:
        results = [
            exact_advantage(prior, mechanism, epsilon=epsilon, r=r, t=t, sides=sides, target=v, correct=correct)
            for v in prior.values
        ]
        return max(results, key=lambda res: res.advantage)
    pb = _problem(prior, mechanism, float(epsilon), r, t, target, correct)
    best = _advantage(pb, float(epsilon), sides)
    up, low = float(best["upper"]), float(best["lower"])
    if sides == "lower" or (sides == "both" and low > up):
        side, y, post, adv = "lower", float(best["y_lower"]), float(best["inf"]), low
    else:
        side, y, post, adv = "upper", float(best["y_upper"]), float(best["sup"]), up
    return ExactAdvantage(
        advantage=max(adv, 0.0), t=best["t"], y=y, side=side, p=best["p"], posterior=post,
        upper=up, lower=low, y_upper=float(best["y_upper"]), y_lower=float(best["y_lower"]),
        epsilon=float(epsilon), r=float(r), mechanism=mechanism,
    )


# ------------------------------------------------------------------------------------------
# Randomized response: finitely many outputs, so the supremum over outputs is a maximum.
# ------------------------------------------------------------------------------------------
def _rr_posteriors(prior, mech, eps, r, t, target, correct):
    r"""True values, :math:`\Pr_{pre}[X']` per true value and :math:`\Pr_{post}[X' \mid y]` for every
    (true value, output) pair under k-ary randomized response on the prior's values."""
    if not isinstance(prior, Categorical):
        raise ParameterError(f"prior: randomized response needs a Categorical prior; got {type(prior).__name__}")
    if target is not None:
        raise ParameterError("target: randomized response releases the value itself, not a COUNT")
    if not (isinstance(r, (int, float, np.integer, np.floating)) and math.isfinite(r) and r >= 0):
        raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
    ts, sets, _ = _finite_sets(prior, r, t, correct)
    k = len(prior.values)
    if k < 2:
        raise ParameterError("prior: randomized response needs at least two values")
    joint = prior.probs[:, None] * np.exp(mech.log_likelihood(eps, k))  # (input, output)
    post = (sets.astype(float) @ joint) / joint.sum(axis=0)
    return ts, sets.astype(float) @ prior.probs, post


def _rr_advantage(prior, mech, eps, r, t, sides, target, correct) -> ExactAdvantage:
    r"""Exact advantage of k-ary randomized response (:class:`~garesearch.mechanisms.RandomizedResponse`).

    With :math:`u = e^\epsilon - 1` the posterior after output ``y`` is
    :math:`(p + u\,\pi(y) 1\{y \in X'\}) / (1 + u\,\pi(y))`: largest at the likeliest
    ``y`` in :math:`X'`, smallest at the likeliest ``y`` outside it.
    """
    ts, p, post = _rr_posteriors(prior, mech, eps, r, t, target, correct)
    j_sup, j_inf = np.argmax(post, axis=1), np.argmin(post, axis=1)
    rows = np.arange(len(ts))
    sup, inf = post[rows, j_sup], post[rows, j_inf]
    upper, lower = sup - p, p - inf
    i = int(np.argmax(_side_value(upper, lower, sides)))
    up, low = float(upper[i]), float(lower[i])
    if sides == "lower" or (sides == "both" and low > up):
        side, y, pst, adv = "lower", prior.values[j_inf[i]], float(inf[i]), low
    else:
        side, y, pst, adv = "upper", prior.values[j_sup[i]], float(sup[i]), up
    return ExactAdvantage(
        advantage=max(adv, 0.0), t=ts[i], y=y, side=side, p=float(p[i]), posterior=pst, upper=up,
        lower=low, y_upper=prior.values[j_sup[i]], y_lower=prior.values[j_inf[i]], epsilon=eps,
        r=float(r), mechanism=mech,
    )


def or_event(prior: Categorical) -> Callable:
    r"""``correct`` for an OR-event over tuple values (Sec. 4.3, Sec. 6.1): a guess is correct when it
    matches the truth in at least one component.

    Returns a callable ``t -> [values sharing a component with t]`` to pass as ``correct``.

    Examples
    --------
    Two attributes (colour, gender): a guess is correct when either component matches.

    >>> cats = Categorical({(c, g): 0.25 for c in ("red", "white") for g in "MF"})
    >>> or_event(cats)(("red", "M"))
    [('red', 'M'), ('red', 'F'), ('white', 'M')]
    """
    if not (isinstance(prior, Categorical) and prior.metric == "discrete"
            and all(isinstance(v, tuple) for v in prior.values)):
        raise ParameterError("prior must be a Categorical over tuples (one component per attribute)")

    def correct(t):
        return [v for v in prior.values if any(a == b for a, b in zip(v, t, strict=True))]

    return correct


def posterior(prior: Prior, mechanism: Mechanism, *, epsilon: float, r: float, t: Any, y,
              target: Any = None, correct: Callable | None = None):
    r"""Exact posterior :math:`\Pr_{post}[\mathcal B(t, r) \mid y]` (Sec. 3.2), vectorised over ``y``.

    ``y = +-inf`` gives the analytic limit.  ``target`` and ``correct`` as in
    :func:`exact_advantage` (discrete metric).  For
    :class:`~garesearch.mechanisms.RandomizedResponse`, ``y`` is a value of the prior or a
    list of values.

    Examples
    --------
    A fair coin released with Laplace noise of scale 1: the posterior of the truth ``t = 0``
    after ``y = 0`` is :math:`1 / (1 + e^{-\epsilon})` (likelihood ratio :math:`e^{\epsilon}`);
    at ``y = 1/2`` the likelihoods tie.

    >>> import math
    >>> from garesearch.mechanisms import Laplace
    >>> coin = Categorical({0: 0.5, 1: 0.5})
    >>> post = posterior(coin, Laplace(), epsilon=1.0, r=0, t=0, y=[0.0, 0.5])
    >>> bool(abs(post[0] - 1 / (1 + math.exp(-1))) < 1e-12), bool(abs(post[1] - 0.5) < 1e-12)
    (True, True)
    """
    check_exact_args(epsilon, "both")
    if t is None:
        raise ParameterError("t: give the true value")
    if isinstance(mechanism, RandomizedResponse):
        _, _, post = _rr_posteriors(prior, mechanism, float(epsilon), r, t, target, correct)
        return _rr_lookup(prior, post[0], y)
    pb = _problem(prior, mechanism, float(epsilon), r, t, target, correct)
    y = np.asarray(y, dtype=float)
    flat = y.ravel()
    out = np.empty_like(flat)
    fin = np.isfinite(flat)
    if np.any(fin):
        out[fin] = _post(pb.integ, flat[fin], pb.sets)[:, 0]
    for sign in (-1, 1):
        m = np.isinf(flat) & (np.sign(flat) == sign)
        if np.any(m):
            out[m] = pb.integ.limit(sign, pb.sets)[0]
    out = out.reshape(y.shape)
    return float(out) if out.ndim == 0 else out


def _rr_lookup(prior, post_row, y):
    """Posterior at output ``y`` (a value of the prior, or a list of values)."""
    one = not isinstance(y, list)
    out = []
    for v in [y] if one else y:
        if v not in prior.values:
            raise ParameterError(f"y: randomized response outputs a value of the prior; got {v!r}")
        out.append(float(post_row[prior.values.index(v)]))
    return out[0] if one else np.array(out)


# ------------------------------------------------------------------------------------------
# The largest epsilon whose exact advantage stays within delta.
# ------------------------------------------------------------------------------------------
def _spread(prior):
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        return 1.0
    q = np.asarray(prior.quantile(np.array([0.25, 0.75])), float)
    s = float(q[1] - q[0])
    if s > 0:
        return s
    low, high = prior.support
    return float(high - low) if high > low else 1.0


def exact_epsilon(
    prior: Prior,
    mechanism: Mechanism | RandomizedResponse,
    *,
    r: float,
    delta: float,
    t: Any = None,
    sides: str = "both",
    target: Any = None,
    correct: Callable | None = None,
    rtol: float = 1e-10,
) -> float:
    r"""The largest epsilon at which ``mechanism``'s exact advantage stays at most ``delta``.

    Returns the crossing :math:`A(\epsilon) = \delta` of the advantage :math:`A` of
    :func:`exact_advantage` (Def. 7, Sec. 3.2), the epsilon the paper's Eq. (main) would give if
    it were exact for this mechanism; compare it with
    :func:`~garesearch.attribute.epsilon_for_attribute` and
    :func:`~garesearch.constructions.pointwise.epsilon_pointwise`.  The crossing is bracketed by doubling (or
    quartering) from a scale set by the prior's spread, then found by Brent's method in
    :math:`\ln\epsilon`; the value returned satisfies :math:`A(\epsilon) \le \delta` and lies
    within relative ``rtol`` below the crossing.  :math:`A` grows with epsilon in every case
    garesearch computes; were it not monotone, the crossing found would be one inside the
    bracket.

    Parameters are those of :func:`exact_advantage`, with ``delta`` in (0, 1) and ``rtol`` in
    (0, 0.1).

    Raises
    ------
    InfeasibleError
        If the advantage exceeds ``delta`` at every epsilon (for instance Gaussian noise: its
        posterior tends to 0 or 1 in the far tails whatever the scale).

    Examples
    --------
    For a fair coin and ``r = 0`` the advantage is :math:`\tanh(\epsilon/2)/2`, so the crossing
    is :math:`2\,\mathrm{artanh}(2\delta)`:

    >>> import math
    >>> from garesearch.mechanisms import Laplace
    >>> coin = Categorical({0: 0.5, 1: 0.5})
    >>> eps = exact_epsilon(coin, Laplace(), r=0, delta=0.1)
    >>> abs(eps - 2 * math.atanh(0.2)) < 1e-9
    True
    """
    if not (isinstance(delta, (int, float, np.integer, np.floating)) and 0 < delta < 1):
        raise ParameterError(f"delta must lie in (0, 1); got {delta!r}")
    if not (isinstance(rtol, (int, float, np.integer, np.floating)) and 1e-14 <= rtol < 0.1):
        raise ParameterError(f"rtol must lie in [1e-14, 0.1); got {rtol!r}")

    hints: list = []  # worst true values seen so far: a violation there needs no full search
    full: dict = {}

    def adv(e):
        if e not in full:
            res = exact_advantage(prior, mechanism, epsilon=e, r=r, t=t, sides=sides, target=target,
                                  correct=correct)
            if t is None and target is None and res.t not in hints and not (
                    isinstance(res.t, float) and math.isinf(res.t)):
                hints.append(res.t)
            full[e] = res.advantage
        return full[e]

    def violated(e):
        for h in hints:
            if exact_advantage(prior, mechanism, epsilon=e, r=r, t=h, sides=sides, target=target,
                               correct=correct).advantage > delta:
                return True
        return adv(e) > delta

    e0 = 1.0 / _spread(prior)
    lo, hi = None, None
    if not violated(e0):
        lo, e = e0, e0
        for _ in range(80):
            e *= 2
            if violated(e):
                hi = e
                break
            lo = e
        else:
            return math.inf
    else:
        hi, e = e0, e0
        for _ in range(12):
            e /= 4
            if not violated(e):
                lo = e
                break
            hi = e
        else:
            raise InfeasibleError(
                f"the exact advantage of {mechanism!r} exceeds delta={delta} at every epsilon down to "
                f"{e:.3g} (worst side over all outputs); "
                + ("Gaussian noise is not epsilon-DP: its posterior tends to 0 or 1 as the output "
                   "goes to infinity, whatever the scale; use sides='upper' or the Bayes attacker"
                   if mechanism.tail == "light" else "use a larger delta")
            )
    e_far = _far_crossing(prior, mechanism, r, delta, lo, hi, rtol) if (
        t is None and target is None and sides != "lower") else None
    if e_far is not None and not violated(e_far):
        return e_far
    # A(lo) <= delta < A(hi), narrowed in log-epsilon by every evaluation inside
    x_lo, _ = narrow_bracket(lambda x: adv(math.exp(x)) - delta, math.log(lo), math.log(hi),
                             tol=math.log1p(rtol), rtol=4 * np.finfo(float).eps)
    return lo if x_lo == math.log(lo) else math.exp(x_lo)  # an end that was evaluated
