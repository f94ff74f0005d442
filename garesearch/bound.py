r"""The posterior bound of Sec. 3.2 and Eq. (main), and the epsilon it implies.

Notation (paper, Sec. 3.2 and 4.1): ``p`` is the prior mass of the correct guesses
:math:`X'`, ``q`` the prior mass of the comparison set :math:`\hat X'` (by default the rest
of the space, ``q = 1 - p``), and ``a`` the largest distance between a point of
:math:`X'` and a point of :math:`\hat X'`.  An :math:`\epsilon`-DP mechanism (w.r.t. that
distance) then gives, for every output,

.. math::

    \Pr_{post}[X'] \le \frac{1}{1 + e^{-\epsilon a}\, q / p}.

Each formula below is written once, against a backend ``B`` (numpy, mpmath or sympy),
in a form that stays accurate at extreme inputs (``log1p``/``expm1``, no cancellation of
large terms).  :mod:`garesearch.derivations` proves with sympy that these forms equal the
paper's printed expressions.
"""

from __future__ import annotations

import numpy as np

from ._evaluate import check, evaluate, finish, to_values, workdps
from .errors import InfeasibleError, ParameterError

__all__ = [
    "advantage_for_epsilon",
    "advantage_lower_formula",
    "advantage_upper_formula",
    "eps_lb",
    "eps_lb_formula",
    "eps_main_formula",
    "eps_ub",
    "eps_ub_formula",
    "epsilon_for_advantage",
    "posterior_bound",
    "posterior_bound_formula",
    "posterior_lower_bound_formula",
    "worst_case_epsilon",
    "worst_case_epsilon_formula",
    "worst_case_prior",
    "worst_case_prior_formula",
]

_SIDES = ("both", "upper", "lower")


# --------------------------------------------------------------------------------------
# Formulas, written once (backend-generic; no input checks).
# --------------------------------------------------------------------------------------
def posterior_bound_formula(epsilon, p, q, a, B):
    r"""Upper bound on the posterior, Sec. 3.2: :math:`p / (p + q e^{-\epsilon a})`."""
    return p / (p + q * B.exp(-epsilon * a))


def advantage_upper_formula(epsilon, p, q, a, B):
    r"""Posterior bound of Sec. 3.2 minus the prior: the advantage it allows, without cancellation.

    .. math::  \frac{p\,[(1-p-q) - q\,\mathrm{expm1}(-\epsilon a)]}{p + q e^{-\epsilon a}}
    """
    return p * ((1 - p - q) - q * B.expm1(-epsilon * a)) / (p + q * B.exp(-epsilon * a))


def posterior_lower_bound_formula(epsilon, p, R, B):
    r"""Lower bound on the posterior when every point is within ``R`` (Sec. 3.2, eps_ub side).

    .. math:: \Pr_{post}[X'] \ge \frac{p e^{-\epsilon R}}{p e^{-\epsilon R} + 1 - p}
    """
    return p * B.exp(-epsilon * R) / (p * B.exp(-epsilon * R) + (1 - p))


def advantage_lower_formula(epsilon, p, R, B):
    r"""Prior minus the lower posterior bound (Sec. 3.2, the :math:`\epsilon_{ub}` side):
    :math:`-p(1-p)\,\mathrm{expm1}(-\epsilon R) / (p e^{-\epsilon R} + 1 - p)`."""
    return -p * (1 - p) * B.expm1(-epsilon * R) / (p * B.exp(-epsilon * R) + (1 - p))


def eps_main_formula(delta, p, q, a, B):
    r"""Eq. (main): :math:`\epsilon a = -\ln\!\left(\frac{p}{q}\left(\frac{1}{\delta+p}-1\right)\right)`.

    Evaluated as :math:`\ln\frac{q}{1-p} + \mathrm{log1p}(\delta/p) +
    \mathrm{log1p}(\delta/(1-p-\delta))`, valid for ``p + delta < 1``.
    """
    return (
        B.log(q) - B.log1p(-p) + B.log1p(delta / p) + B.log1p(delta / (1 - p - delta))
    ) / a


def eps_lb_formula(delta, p, R, B):
    r"""Sec. 3.2, :math:`\epsilon_{lb}` (``q = 1 - p``), valid for ``p + delta < 1``.

    .. math:: \epsilon_{lb} R = \mathrm{log1p}(\delta/p) + \mathrm{log1p}(\delta/(1-p-\delta))
    """
    return (B.log1p(delta / p) + B.log1p(delta / (1 - p - delta))) / R


def eps_ub_formula(delta, p, R, B):
    r"""Sec. 3.2, :math:`\epsilon_{ub}` (``p`` and ``1 - p`` swapped), valid for ``p > delta``.

    .. math:: \epsilon_{ub} R = \mathrm{log1p}(\delta/(1-p)) + \mathrm{log1p}(\delta/(p-\delta))
    """
    return (B.log1p(delta / (1 - p)) + B.log1p(delta / (p - delta))) / R


def worst_case_prior_formula(delta, q, B):
    r"""The prior mass that minimises Eq. (main)'s epsilon when ``Pr[X' ∪ X̂] = q`` (Sec. 4.1).

    Derived in :func:`garesearch.derivations.worst_prior_general_q`: the stationary point of
    :math:`\ln\frac{(q-p)(p+\delta)}{p(1-p-\delta)}` in the feasible interval is

    .. math:: p^* = \frac{q\delta(1-\delta)}{q\delta + \sqrt{q\delta(q+\delta-1)}},

    which exists iff ``q + delta > 1`` and equals :math:`(1-\delta)/2` at ``q = 1``.
    (The paper prints :math:`\frac{\delta(1-\delta)+q(1-q)}{2(\delta+q-1)}`, from a wrong
    derivative.)
    """
    return q * delta * (1 - delta) / (q * delta + B.sqrt(q * delta * (delta - (1 - q))))


def worst_case_epsilon_formula(delta, q, a, B):
    r"""Eq. (main) at the worst prior :math:`p^*`; at ``q = 1`` this is :math:`2\ln\frac{1+\delta}{1-\delta} / a`."""
    p = worst_case_prior_formula(delta, q, B)
    return eps_main_formula(delta, p, q - p, a, B)


# --------------------------------------------------------------------------------------
# Checks shared by the public functions.
# --------------------------------------------------------------------------------------
def _sum_tolerance(dps):
    return 1e-12 if dps is None else 10.0 ** (-(dps - 3))


def _check_pq(v, dps):
    check("p", v["p"], 0, 1)
    if "q" in v:
        check("q", v["q"], 0, 1)
        excess = v["p"] + v["q"] - 1
        bad = excess > _sum_tolerance(dps)
        if np.any(bad):
            raise ParameterError(
                "p + q must be at most 1 (X' and the comparison set are disjoint); "
                f"got p + q - 1 = {excess if np.ndim(excess) == 0 else excess[bad][0]}"
            )


def _epsilon_values(epsilon, p, q, a, dps):
    """Checked inputs of the functions that take an epsilon (``q`` defaults to ``1 - p``)."""
    v = to_values(dps, epsilon=epsilon, p=p, a=a, **({} if q is None else {"q": q}))
    check("epsilon", v["epsilon"], 0, np.inf, low_open=False)
    check("a", v["a"], 0, np.inf)
    _check_pq(v, dps)
    if q is None:
        v["q"] = 1 - v["p"]
    return v


def _sides(sides, q):
    if sides is None:
        return "both" if q is None else "upper"
    if sides not in _SIDES:
        raise ParameterError(f"sides must be one of {_SIDES}; got {sides!r}")
    if q is not None and sides != "upper":
        raise ParameterError(
            "sides: with an explicit comparison mass q only the upper side (Eq. (main)) is "
            "defined; pass q=None for the two-sided bound of Sec. 3.2"
        )
    return sides


def _where(cond, a, b, dps):
    if dps is None:
        return np.where(cond, a, b) if np.any(cond) else b
    return a if cond else b


def _domain(cond, value, p, dps):
    """``p`` with ``value`` where ``cond`` (keeps a formula's domain; computed only if needed)."""
    return _where(cond, value(), p, dps) if np.any(cond) else p


# --------------------------------------------------------------------------------------
# Public API.
# --------------------------------------------------------------------------------------
def posterior_bound(*, epsilon, p, q=None, a=1.0, dps: int | None = None):
    r"""Upper bound on the attacker's posterior probability of :math:`X'` (Sec. 3.2).

    .. math:: \Pr_{post}[X'] \le \frac{1}{1 + e^{-\epsilon a}\, q/p}

    Parameters
    ----------
    epsilon : float or array_like
        Epsilon of the mechanism, per unit of distance; ``epsilon >= 0``.
    p : float or array_like
        Prior mass of the correct guesses :math:`X'`, in (0, 1).
    q : float or array_like, optional
        Prior mass of the comparison set :math:`\hat X'`, in (0, 1) with ``p + q <= 1``.
        Default ``1 - p`` (the rest of the space).
    a : float or array_like
        Largest distance between a point of :math:`X'` and one of :math:`\hat X'`; > 0.
    dps : int, optional
        Evaluate with mpmath at this many decimal digits (scalars only).

    Returns
    -------
    float, ndarray or mpmath.mpf
    """
    with workdps(dps):
        v = _epsilon_values(epsilon, p, q, a, dps)
        return finish(evaluate(posterior_bound_formula, v, dps), dps)


def advantage_for_epsilon(*, epsilon, p, q=None, a=1.0, sides=None, dps: int | None = None):
    r"""The largest guessing advantage that the bound allows at ``epsilon`` (inverse of
    :func:`epsilon_for_advantage`).

    With ``q`` given: the upper side of Eq. (main), :math:`\Pr_{post}[X'] - p`.  With
    ``q=None`` (Sec. 3.2, ``a`` playing the role of ``R``): ``sides="both"`` returns the larger
    of the upper side and the lower side :math:`p - \Pr_{post}[X']`; ``"upper"`` or
    ``"lower"`` return one side.

    Parameters are those of :func:`posterior_bound`; ``sides`` selects the side(s).
    """
    sides = _sides(sides, q)
    with workdps(dps):
        v = _epsilon_values(epsilon, p, q, a, dps)
        up = evaluate(advantage_upper_formula, v, dps)
        if sides == "upper":
            return finish(up, dps)
        low = evaluate(
            advantage_lower_formula, {"epsilon": v["epsilon"], "p": v["p"], "R": v["a"]}, dps
        )
        if sides == "lower":
            return finish(low, dps)
        return finish(np.maximum(up, low) if dps is None else max(up, low), dps)


def _infeasible_message(p, q, delta):
    qmin = p * (1 - p - delta) / (p + delta)
    return (
        f"no epsilon > 0 keeps the advantage within delta={delta:.6g} for p={p:.6g} with a "
        f"comparison set of mass q={q:.6g}: the comparison set is too light. Eq. (main) needs "
        f"q > p(1-p-delta)/(p+delta) = {qmin:.6g}; take a larger radius a (more mass), "
        f"or a larger delta."
    )


def epsilon_for_advantage(
    *, delta, p, q=None, a=1.0, sides=None, dps: int | None = None, infeasible: str = "raise"
):
    r"""The largest epsilon (per unit of distance) whose bound keeps the advantage at most ``delta``.

    - ``q`` given: Eq. (main), :math:`\epsilon = -\ln\!\left(\frac{p}{q}\left(\frac{1}{\delta+p}
      - 1\right)\right) / a` (upper side only).
    - ``q=None``: Sec. 3.2 with ``a`` as ``R``; ``sides="both"`` (default) returns
      :math:`\min(\epsilon_{lb}, \epsilon_{ub})`, ``"upper"`` :math:`\epsilon_{lb}`,
      ``"lower"`` :math:`\epsilon_{ub}`.

    A side whose constraint cannot bind (``p + delta >= 1`` for the upper side,
    ``p <= delta`` for the lower side) contributes ``inf``: every epsilon meets it.

    Parameters
    ----------
    delta : float or array_like
        Bound on the advantage, in (0, 1).
    p, q, a, dps
        As in :func:`posterior_bound`.
    sides : {"both", "upper", "lower"}, optional
    infeasible : {"raise", "nan"}
        What to do where no epsilon > 0 exists (``q`` too small): raise
        :class:`~garesearch.errors.InfeasibleError` (default), or return NaN there
        (for sweeps and plots).

    Returns
    -------
    float, ndarray or mpmath.mpf
        Epsilon > 0, or ``inf``.

    Raises
    ------
    ParameterError
        For inputs outside their ranges.
    InfeasibleError
        Where no epsilon > 0 meets the request and ``infeasible="raise"``.

    Examples
    --------
    The paper's cats AND-event (Sec. 6.1): ``p = 0.2``, ``delta = 0.1``.

    >>> round(epsilon_for_advantage(delta=0.1, p=0.2), 4)
    0.539
    """
    sides = _sides(sides, q)
    if infeasible not in ("raise", "nan"):
        raise ParameterError(f"infeasible must be 'raise' or 'nan'; got {infeasible!r}")
    with workdps(dps):
        v = to_values(dps, delta=delta, p=p, a=a, **({} if q is None else {"q": q}))
        check("delta", v["delta"], 0, 1)
        check("a", v["a"], 0, np.inf)
        _check_pq(v, dps)
        d, pp, aa = v["delta"], v["p"], v["a"]
        inf = np.inf if dps is None else __import__("mpmath").inf
        if q is not None:
            up_open = pp + d >= 1
            safe_p = _domain(up_open, lambda: 0.5 * (1 - d), pp, dps)  # keep the formula's domain
            eps = evaluate(
                eps_main_formula, {"delta": d, "p": safe_p, "q": v["q"], "a": aa}, dps
            )
            bad = np.logical_and(~np.asarray(up_open), np.asarray(eps) <= 0)
            if np.any(bad):
                if infeasible == "raise":
                    i = (np.flatnonzero(bad)[0],) if np.ndim(bad) else ()
                    pick = (lambda x: np.broadcast_to(x, bad.shape).ravel()[i[0]]) if i else (lambda x: x)
                    raise InfeasibleError(
                        _infeasible_message(float(pick(pp)), float(pick(v["q"])), float(pick(d)))
                    )
                eps = _where(bad, np.nan, eps, dps)
            return finish(_where(up_open, inf, eps, dps), dps)

        results = []
        if sides in ("both", "upper"):
            up_open = pp + d >= 1
            safe = _domain(up_open, lambda: 0.5 * (1 - d), pp, dps)
            e = evaluate(eps_lb_formula, {"delta": d, "p": safe, "R": aa}, dps)
            results.append(_where(up_open, inf, e, dps))
        if sides in ("both", "lower"):
            low_open = pp <= d
            safe = _domain(low_open, lambda: 0.5 * (1 + d), pp, dps)
            e = evaluate(eps_ub_formula, {"delta": d, "p": safe, "R": aa}, dps)
            results.append(_where(low_open, inf, e, dps))
        if len(results) == 1:
            return finish(results[0], dps)
        return finish(np.minimum(*results) if dps is None else min(results), dps)


def eps_lb(*, delta, p, R=1.0, dps: int | None = None):
    r"""Sec. 3.2, :math:`\epsilon_{lb} = -\ln\!\left(\frac{p}{1-p}\left(\frac{1}{\delta+p}-1\right)\right)/R`:
    keeps :math:`\Pr_{post}[X'] \le p + \delta`.  ``inf`` when ``p + delta >= 1``."""
    return epsilon_for_advantage(delta=delta, p=p, a=R, sides="upper", dps=dps)


def eps_ub(*, delta, p, R=1.0, dps: int | None = None):
    r"""Sec. 3.2, :math:`\epsilon_{ub} = -\ln\!\left(\frac{1-p}{p}\left(\frac{1}{\delta+1-p}-1\right)\right)/R`:
    keeps :math:`\Pr_{post}[X'] \ge p - \delta`.  ``inf`` when ``p <= delta``."""
    return epsilon_for_advantage(delta=delta, p=p, a=R, sides="lower", dps=dps)


def worst_case_prior(*, delta, q=1.0, dps: int | None = None):
    r"""The prior mass :math:`p^*` of :math:`X'` that needs the most noise (Sec. 4.1).

    Here ``q`` is the paper's :math:`g(a) = \Pr[X' \cup \hat X'_a]` (the mass of the whole
    ball of radius ``a``; the comparison set has mass ``q - p``).  :math:`p^*` minimises
    Eq. (main)'s epsilon over ``p``:

    .. math:: p^* = \frac{q\delta(1-\delta)}{q\delta + \sqrt{q\delta(q+\delta-1)}},
       \qquad p^*\big|_{q=1} = \frac{1-\delta}{2}.

    At ``q = 1`` the lower side (:math:`\epsilon_{ub}`) has the mirror worst case
    :math:`1 - p^* = (1+\delta)/2` with the same epsilon.

    Raises
    ------
    InfeasibleError
        If ``q + delta <= 1``: then epsilon tends to 0 as ``p`` approaches
        ``q delta / (1 - q)``, so no epsilon > 0 protects every prior.
    """
    with workdps(dps):
        v = to_values(dps, delta=delta, q=q)
        check("delta", v["delta"], 0, 1)
        check("q", v["q"], 0, 1, high_open=False)
        bad = v["q"] + v["delta"] <= 1
        if np.any(bad):
            raise InfeasibleError(
                "no worst-case prior with epsilon > 0 exists when q + delta <= 1 "
                f"(got q={float(np.asarray(v['q']).ravel()[0]):.6g}, delta="
                f"{float(np.asarray(v['delta']).ravel()[0]):.6g}): as p approaches "
                "q*delta/(1-q) the comparison set becomes too light and epsilon tends to 0. "
                "Use a radius a whose ball mass q exceeds 1 - delta."
            )
        return finish(evaluate(worst_case_prior_formula, v, dps), dps)


def worst_case_epsilon(*, delta, q=1.0, a=1.0, dps: int | None = None):
    r"""Eq. (main)'s epsilon at the worst prior :math:`p^*` of :func:`worst_case_prior`.

    At ``q = 1``: :math:`2\ln\frac{1+\delta}{1-\delta}/a = 4\,\mathrm{artanh}(\delta)/a`.
    """
    worst_case_prior(delta=delta, q=q, dps=dps)  # checks and feasibility
    with workdps(dps):
        v = to_values(dps, delta=delta, q=q, a=a)
        check("a", v["a"], 0, np.inf)
        return finish(evaluate(worst_case_epsilon_formula, v, dps), dps)
