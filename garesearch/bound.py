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

import mpmath
import numpy as np

from ._accurate import log_share_formula, rest_formula, sqrt_product_formula
from ._args import check_sides
from ._backend import NUMPY, backend_for
from ._evaluate import (
    as_float_array,
    as_mpf,
    check,
    evaluate,
    finish,
    first_bad,
    mp_value,
    refine,
    to_fraction,
    to_values,
    workdps,
)
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
    "log_share_formula",
    "posterior_bound",
    "posterior_bound_formula",
    "posterior_lower_bound_formula",
    "rest_formula",
    "sqrt_product_formula",
    "worst_case_epsilon",
    "worst_case_epsilon_formula",
    "worst_case_prior",
    "worst_case_prior_formula",
]

# --------------------------------------------------------------------------------------
# Formulas, written once (backend-generic; no input checks).
# --------------------------------------------------------------------------------------
def posterior_bound_formula(epsilon, p, q, a, B):
    r"""Upper bound on the posterior, Sec. 3.2: :math:`p / (p + q e^{-\epsilon a})`.

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> round(float(posterior_bound_formula(math.log(3), 0.25, 0.75, 1.0, NUMPY)), 12)  # 1/(1 + 1)
    0.5
    """
    return p / (p + q * B.exp(-epsilon * a))


def advantage_upper_formula(epsilon, p, q, a, B):
    r"""Posterior bound of Sec. 3.2 minus the prior: the advantage it allows, without cancellation.

    .. math::  \frac{p\,[(1-p-q) - q\,\mathrm{expm1}(-\epsilon a)]}{p + q e^{-\epsilon a}}

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> adv = float(advantage_upper_formula(1.0, 0.2, 0.8, 1.0, NUMPY))
    >>> abs(adv - (0.2 / (0.2 + 0.8 * math.exp(-1.0)) - 0.2)) < 1e-15
    True
    """
    return p * (rest_formula(p, q, B) - q * B.expm1(-epsilon * a)) / (p + q * B.exp(-epsilon * a))


def posterior_lower_bound_formula(epsilon, p, R, B):
    r"""Lower bound on the posterior when every point is within ``R`` (Sec. 3.2, eps_ub side).

    .. math:: \Pr_{post}[X'] \ge \frac{p e^{-\epsilon R}}{p e^{-\epsilon R} + 1 - p}

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> round(float(posterior_lower_bound_formula(math.log(3), 0.75, 1.0, NUMPY)), 12)  # 0.25/(0.25 + 0.25)
    0.5
    """
    return p * B.exp(-epsilon * R) / (p * B.exp(-epsilon * R) + (1 - p))


def advantage_lower_formula(epsilon, p, R, B):
    r"""Prior minus the lower posterior bound (Sec. 3.2, the :math:`\epsilon_{ub}` side):
    :math:`-p(1-p)\,\mathrm{expm1}(-\epsilon R) / (p e^{-\epsilon R} + 1 - p)`.

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> low = float(posterior_lower_bound_formula(1.0, 0.3, 1.0, NUMPY))
    >>> abs(float(advantage_lower_formula(1.0, 0.3, 1.0, NUMPY)) - (0.3 - low)) < 1e-15
    True
    """
    return -p * (1 - p) * B.expm1(-epsilon * R) / (p * B.exp(-epsilon * R) + (1 - p))


def eps_main_formula(delta, p, q, a, B, rest=None):
    r"""Eq. (main): :math:`\epsilon a = -\ln\!\left(\frac{p}{q}\left(\frac{1}{\delta+p}-1\right)\right)`.

    Evaluated as :math:`\ln\frac{q}{1-p} + \mathrm{log1p}(\delta/p) +
    \mathrm{log1p}(\delta/(1-p-\delta))`, valid for ``p + delta < 1``
    (:func:`log_share_formula`, :func:`rest_formula`; ``rest`` is passed on to the former).

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> eps = float(eps_main_formula(0.1, 0.2, 0.8, 1.0, NUMPY))  # the cats of Sec. 6.1
    >>> abs(eps + math.log(0.2 / 0.8 * (1 / 0.3 - 1))) < 1e-15, round(eps, 3)
    (True, 0.539)
    """
    share, gain = _eps_main_terms(delta, p, q, B, rest)
    return (share + gain) / a


def _eps_main_terms(delta, p, q, B, rest=None, rest_pd=None):
    """The two parts of Eq. (main)'s :math:`\\epsilon a`: :math:`\\ln\\frac{q}{1-p} \\le 0` and
    :math:`\\mathrm{log1p}(\\delta/p) + \\mathrm{log1p}(\\delta/(1-p-\\delta)) \\ge 0` (they cancel
    at the edge of feasibility); ``rest_pd`` is :math:`1 - p - \\delta` if already known."""
    if rest_pd is None:
        rest_pd = rest_formula(p, delta, B)
    gain = B.log1p(delta / p) + B.log1p(delta / rest_pd)
    return log_share_formula(q, p, B, rest), gain


def eps_lb_formula(delta, p, R, B):
    r"""Sec. 3.2, :math:`\epsilon_{lb}` (``q = 1 - p``), valid for ``p + delta < 1``.

    .. math:: \epsilon_{lb} R = \mathrm{log1p}(\delta/p) + \mathrm{log1p}(\delta/(1-p-\delta))

    Examples
    --------
    >>> from garesearch._backend import NUMPY
    >>> round(float(eps_lb_formula(0.1, 0.2, 1.0, NUMPY)), 3)  # Sec. 6.1: 0.539
    0.539
    """
    return (B.log1p(delta / p) + B.log1p(delta / rest_formula(p, delta, B))) / R


def eps_ub_formula(delta, p, R, B):
    r"""Sec. 3.2, :math:`\epsilon_{ub}` (``p`` and ``1 - p`` swapped), valid for ``p > delta``.

    .. math:: \epsilon_{ub} R = \mathrm{log1p}(\delta/(1-p)) + \mathrm{log1p}(\delta/(p-\delta))

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> want = -math.log(0.8 / 0.2 * (1 / (0.1 + 0.8) - 1))  # Sec. 3.2 with p and 1 - p swapped
    >>> abs(float(eps_ub_formula(0.1, 0.2, 1.0, NUMPY)) - want) < 1e-15
    True
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

    Examples
    --------
    >>> from garesearch._backend import NUMPY
    >>> round(float(worst_case_prior_formula(0.1, 1.0, NUMPY)), 15)  # (1 - delta)/2 at q = 1
    0.45
    """
    return q * delta * (1 - delta) / (q * delta + sqrt_product_formula(q * delta, -rest_formula(q, delta, B), B))


def worst_case_epsilon_formula(delta, q, a, B):
    r"""Eq. (main) at the worst prior :math:`p^*`; at ``q = 1`` this is :math:`2\ln\frac{1+\delta}{1-\delta} / a`.

    The comparison set has mass ``q - p*`` and the rest of the space ``1 - q``, which is
    passed to :func:`eps_main_formula` as known (exact at ``q = 1``).

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> abs(float(worst_case_epsilon_formula(0.1, 1.0, 1.0, NUMPY)) - 2 * math.log(1.1 / 0.9)) < 1e-15
    True
    """
    p = worst_case_prior_formula(delta, q, B)
    return eps_main_formula(delta, p, q - p, a, B, rest=1 - q)


# --------------------------------------------------------------------------------------
# Checks shared by the public functions.
# --------------------------------------------------------------------------------------
def _sum_tolerance(dps):
    return 1e-12 if dps is None else 10.0 ** (-(dps - 3))


def _check_pq(v, dps):
    check("p", v["p"], 0, 1)
    if "q" in v:
        check("q", v["q"], 0, 1)
        excess = v["p"] + v["q"] - 1  # the tolerance is far above the rounding error
        if dps is None and excess.size and excess.max() <= _sum_tolerance(dps):
            return
        bad = excess > _sum_tolerance(dps)
        if np.any(bad):
            raise ParameterError(
                "p + q must be at most 1 (X' and the comparison set are disjoint); "
                f"got p + q - 1 = {excess if np.ndim(excess) == 0 else excess[bad][0]}"
            )


def _backend(dps):
    return backend_for(dps)


#: float64 results and inputs outside [_TINY, _HUGE] are recomputed with mpmath (refine)
_TINY, _HUGE = 1e-290, 1e290


def _at_least_one(x, y, dps):
    """``x + y >= 1``, decided exactly (float64: from :func:`rest_formula`, whose sign is exact)."""
    if dps is not None:  # exact where the sum at the working precision is close to 1
        s = x + y
        if abs(s - 1) > mpmath.mpf(10) ** (3 - dps):
            return s >= 1
        return to_fraction(x) + to_fraction(y) >= 1
    return rest_formula(x, y, NUMPY) <= 0


def _extreme(value, a, *probabilities):
    """True where ``value`` or ``a`` is NaN, infinite or outside [_TINY, _HUGE] in magnitude,
    or one of the ``probabilities`` (in (0, 1]) is below _TINY."""
    av = np.abs(value)
    out = ~(av >= _TINY) | ~(av <= _HUGE) | (a < _TINY) | (a > _HUGE)
    for x in probabilities:
        out |= x < _TINY
    return out


def _check_range(eps, expect, a, dps):
    """Raise where a finite epsilon > 0 exists but lies outside the float64 range."""
    if dps is not None:
        return
    lost = np.logical_and(expect, np.logical_or(~np.isfinite(eps), np.asarray(eps) == 0))
    if np.any(lost):
        _range_error(first_bad(a, lost))


def _range_error(a):
    raise ParameterError(
        "a: epsilon per unit of distance lies outside the float64 range (about 1e-308 to "
        f"1e308) at a = {a}; express the distance in another unit (epsilon scales as 1/a) "
        "or pass dps= for the mpmath path"
    )


def _main_sign(p, q, delta) -> int:
    """Exact sign of Eq. (main)'s epsilon: of :math:`q(p+\\delta) - p(1-p-\\delta)` (rationals)."""
    fp, fq, fd = to_fraction(p), to_fraction(q), to_fraction(delta)
    n = fq * (fp + fd) - fp * (1 - fp - fd)
    return (n > 0) - (n < 0)


def _epsilon_values(epsilon, p, q, a, dps):
    """Checked inputs of the functions that take an epsilon (``q`` defaults to ``1 - p``)."""
    eps = _epsilon_or_inf(epsilon, dps)
    v = to_values(dps, epsilon=np.where(np.isinf(eps), 1.0, eps) if dps is None else
                  (1 if mpmath.isinf(eps) else eps), p=p, a=a, **({} if q is None else {"q": q}))
    v["epsilon"] = np.broadcast_to(eps, np.shape(v["p"])) if dps is None else eps
    check("epsilon", v["epsilon"], 0, np.inf, low_open=False, high_open=False)
    check("a", v["a"], 0, np.inf)
    _check_pq(v, dps)
    if q is None:
        v["q"] = 1 - v["p"]
    return v


def _epsilon_or_inf(epsilon, dps):
    """``epsilon`` as a float array (or an mpmath number) that may be ``+inf`` (no noise: the
    posterior bound is then 1); NaN and other non-numbers raise :class:`ParameterError`."""
    if dps is None:
        e = as_float_array("epsilon", epsilon)
    else:
        e = epsilon if isinstance(epsilon, mpmath.mpf) and mpmath.isinf(epsilon) else None
        e = as_mpf("epsilon", epsilon, dps) if e is None else e
    if np.any(np.isnan(e) if dps is None else mpmath.isnan(e)):
        raise ParameterError(f"epsilon must be a number in [0, inf]; got {first_bad(e, np.isnan(e)) if dps is None else e}")
    return e


def _sides(sides, q):
    if sides is None:
        return "both" if q is None else "upper"
    check_sides(sides)
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
        Epsilon of the mechanism, per unit of distance; ``epsilon >= 0`` (``inf``: no noise,
        the bound is 1).
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

    Examples
    --------
    >>> import math
    >>> round(float(posterior_bound(epsilon=math.log(3), p=0.25)), 12)  # 1/(1 + e^-eps q/p) = 1/2
    0.5
    >>> # 0.2/(0.2 + 0.8 e^-0.5) at 30 digits
    >>> posterior_bound(epsilon="0.5", p="0.2", dps=30)  # doctest: +ELLIPSIS
    mpf('0.2918751327405783...')
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

    Examples
    --------
    >>> eps = epsilon_for_advantage(delta=0.1, p=0.2)
    >>> round(float(advantage_for_epsilon(epsilon=eps, p=0.2, sides="upper")), 12)  # the inverse
    0.1
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
        inf = np.inf if dps is None else mpmath.inf
        if q is not None:
            rest_pd = rest_formula(pp, d, NUMPY) if dps is None else None
            up_open = rest_pd <= 0 if dps is None else _at_least_one(pp, d, dps)  # p + delta >= 1
            safe_p = _domain(up_open, lambda: 0.5 * (1 - d), pp, dps)  # keep the formula's domain
            vals = {"delta": d, "p": safe_p, "q": v["q"], "a": aa}
            if dps is None:  # eps_main_formula, with its two parts kept for _exact_main
                with np.errstate(all="ignore"):
                    if safe_p is not pp:
                        rest_pd = rest_formula(safe_p, d, NUMPY)
                    share, gain = _eps_main_terms(d, safe_p, v["q"], NUMPY, rest_pd=rest_pd)
                    ea = share + gain
                    eps = ea / aa
                    cancel = np.less(ea, share * -0.05)  # |share| > 20 epsilon a; infeasible too
            else:
                eps, cancel = evaluate(eps_main_formula, vals, dps), None
            eps = _exact_main(vals, eps, up_open, cancel, dps)
            bad = np.asarray(eps) <= 0
            if np.any(up_open):
                bad = np.logical_and(~np.asarray(up_open), bad)
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
            up_open = _at_least_one(pp, d, dps)
            safe = _domain(up_open, lambda: 0.5 * (1 - d), pp, dps)
            vals = {"delta": d, "p": safe, "R": aa}
            e = evaluate(eps_lb_formula, vals, dps)
            if dps is None:
                e = refine(eps_lb_formula, vals, e, _extreme(e, aa, d, safe) & ~up_open)
            _check_range(e, ~np.asarray(up_open), aa, dps)
            results.append(_where(up_open, inf, e, dps))
        if sides in ("both", "lower"):
            low_open = pp <= d
            safe = _domain(low_open, lambda: 0.5 * (1 + d), pp, dps)
            vals = {"delta": d, "p": safe, "R": aa}
            e = evaluate(eps_ub_formula, vals, dps)
            if dps is None:
                e = refine(eps_ub_formula, vals, e, _extreme(e, aa, d, safe) & ~low_open)
            _check_range(e, ~np.asarray(low_open), aa, dps)
            results.append(_where(low_open, inf, e, dps))
        if len(results) == 1:
            return finish(results[0], dps)
        return finish(np.minimum(*results) if dps is None else min(results), dps)


def _exact_main(vals, eps, open_, cancel, dps):
    """Eq. (main)'s epsilon where the sum of logarithms of :func:`eps_main_formula` cancels.

    Near the edge of feasibility (``q`` close to :math:`q_{min} = p(1-p-\\delta)/(p+\\delta)`)
    the logarithms cancel and the float64 sum loses digits (a relative error of about
    1e-16 |ln(q/(1-p))| / (epsilon a); ``cancel`` marks where that could exceed about 1e-14).
    There the float path evaluates the printed form instead,
    :math:`\\epsilon a = \\mathrm{log1p}(N/D)` with
    :math:`N = q(p+\\delta) - p(1-p-\\delta)` and :math:`D = p(1-p-\\delta)`, with :math:`N`
    in double-double arithmetic (Knuth's TwoSum, Dekker's TwoProduct; exact up to about
    1e-32 of its terms).  Where even that cannot resolve :math:`N` (inputs below 1e-250, or
    :math:`|N|` below 1e-17 of its terms) it is recomputed with mpmath
    (:func:`garesearch._evaluate.refine`) and its sign decided with exact rationals, so that a
    request exactly at the edge is infeasible (epsilon 0), never a tiny positive epsilon.
    Both paths decide the sign exactly where it is in doubt.
    """
    p, q, d, a = vals["p"], vals["q"], vals["delta"], vals["a"]
    if dps is not None:
        if abs(eps * a) < mpmath.mpf(10) ** (-(dps // 2)) * (1 + abs(mpmath.log(q))):
            sign = _main_sign(p, q, d)
            if sign <= 0:
                return mpmath.mpf(0) if sign == 0 else min(eps, -mpmath.eps)
            args = {"delta": d, "p": p, "q": q, "a": a}
            return +mp_value(eps_main_formula, args, start=2 * dps)  # beyond dps digits cancel
        return eps
    with np.errstate(all="ignore"):
        suspect = cancel if np.any(cancel) else None
        if not (eps.size and eps.min() >= _TINY and eps.max() <= _HUGE and d.min() >= _TINY):
            ae = np.abs(eps)
            extreme = ~((ae >= _TINY) & (ae <= _HUGE)) | (d < _TINY)
            suspect = extreme if suspect is None else suspect | extreme
        if suspect is None:
            return eps
        if np.any(open_):
            suspect = suspect & ~open_
    if not np.any(suspect):
        return eps
    out = np.array(np.broadcast_to(eps, suspect.shape), dtype=float)
    view = out.reshape(-1)
    idx = np.flatnonzero(suspect)
    pick = {k: np.broadcast_to(x, suspect.shape).reshape(-1)[idx] for k, x in vals.items()}
    with np.errstate(all="ignore"):
        num, den, scale = _main_numerator(pick["p"], pick["q"], pick["delta"])
        good = (np.abs(num) >= 1e-17 * scale) & (pick["delta"] >= 1e-250) & (pick["p"] >= 1e-250)
        good &= (pick["q"] >= 1e-250) & (den >= 1e-250)
        value = np.log1p(num / den) / pick["a"]
        good &= np.isfinite(value) & (np.abs(value) >= _TINY)
    view[idx[good]] = value[good]
    hard = idx[~good]
    if not hard.size:
        return out
    if hard.size:
        mask = np.zeros(out.size, dtype=bool)
        mask[hard] = True
        out = refine(eps_main_formula, vals, out, mask.reshape(out.shape))
        view = out.reshape(-1)
        for i, j in zip(hard, np.flatnonzero(~good), strict=True):
            sign = _main_sign(pick["p"][j], pick["q"][j], pick["delta"][j])
            if sign <= 0:
                view[i] = 0.0 if sign == 0 else min(view[i], -np.finfo(float).tiny)
            elif not 0 < view[i] < np.inf:
                _range_error(pick["a"][j])
    return out


_DEKKER = 134217729.0  # 2**27 + 1, Dekker's splitting constant for float64


def _two_sum(x, y):
    """Knuth's TwoSum: ``s + e == x + y`` exactly."""
    s = x + y
    t = s - x
    return s, (x - (s - t)) + (y - t)


def _two_prod(x, y):
    """Dekker's TwoProduct: ``m + e == x * y`` exactly (no overflow or underflow)."""
    m = x * y

    def split(z):
        c = _DEKKER * z
        hi = c - (c - z)
        return hi, z - hi

    xh, xl = split(x)
    yh, yl = split(y)
    return m, ((xh * yh - m) + xh * yl + xl * yh) + xl * yl


def _main_numerator(p, q, delta):
    """Double-double :math:`N = q(p+\\delta) - p(1-p-\\delta)`, :math:`D = p(1-p-\\delta)`, and
    the size of N's terms (Eq. (main) as printed: :math:`\\epsilon a = \\ln(1 + N/D)`)."""
    s, e = _two_sum(p, delta)
    m1, e1 = _two_prod(q, s)
    e1 = e1 + q * e
    rh, rl = _two_sum(1.0, -s)  # 1 - p - delta = rh + rl
    rl = rl - e
    m2, e2 = _two_prod(p, rh)
    e2 = e2 + p * rl
    return (m1 - m2) + (e1 - e2), m2 + e2, np.abs(m1)


def eps_lb(*, delta, p, R=1.0, dps: int | None = None):
    r"""Sec. 3.2, :math:`\epsilon_{lb} = -\ln\!\left(\frac{p}{1-p}\left(\frac{1}{\delta+p}-1\right)\right)/R`:
    keeps :math:`\Pr_{post}[X'] \le p + \delta`.  ``inf`` when ``p + delta >= 1``.

    Examples
    --------
    >>> round(float(eps_lb(delta=0.1, p=0.2)), 3)  # the cats of Sec. 6.1
    0.539
    """
    return epsilon_for_advantage(delta=delta, p=p, a=R, sides="upper", dps=dps)


def eps_ub(*, delta, p, R=1.0, dps: int | None = None):
    r"""Sec. 3.2, :math:`\epsilon_{ub} = -\ln\!\left(\frac{1-p}{p}\left(\frac{1}{\delta+1-p}-1\right)\right)/R`:
    keeps :math:`\Pr_{post}[X'] \ge p - \delta`.  ``inf`` when ``p <= delta``.

    Examples
    --------
    >>> import math
    >>> want = -math.log(0.8 / 0.2 * (1 / (0.1 + 0.8) - 1))
    >>> abs(float(eps_ub(delta=0.1, p=0.2)) - want) < 1e-15
    True
    >>> float(eps_ub(delta=0.3, p=0.2))  # p <= delta: the posterior cannot fall by more
    inf
    """
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

    Examples
    --------
    >>> round(float(worst_case_prior(delta=0.1)), 15)  # (1 - delta)/2
    0.45
    """
    with workdps(dps):
        v = _worst_case_values(delta, q, dps)
        p = evaluate(worst_case_prior_formula, v, dps)
        if dps is None:
            p = refine(worst_case_prior_formula, v, p, _extreme(p, 1.0, v["delta"], v["q"]))
        return finish(p, dps)


def _worst_case_values(delta, q, dps, **more):
    v = to_values(dps, delta=delta, q=q, **more)
    check("delta", v["delta"], 0, 1)
    check("q", v["q"], 0, 1, high_open=False)
    if dps is None:
        bad = rest_formula(v["q"], v["delta"], NUMPY) >= 0  # q + delta <= 1, exactly
    else:
        bad = not _at_least_one(v["q"], v["delta"], dps) or to_fraction(v["q"]) + to_fraction(v["delta"]) == 1
    if np.any(bad):
        i = int(np.flatnonzero(np.broadcast_to(bad, np.shape(v["q"])))[0]) if np.ndim(bad) else 0
        pick = (lambda x: float(np.ravel(x)[i])) if np.ndim(bad) else float
        raise InfeasibleError(
            "no worst-case prior with epsilon > 0 exists when q + delta <= 1 "
            f"(got q={pick(v['q'])!r}, delta={pick(v['delta'])!r}"
            f"{f', element {i}' if np.ndim(bad) else ''}): as p approaches "
            "q*delta/(1-q) the comparison set becomes too light and epsilon tends to 0. "
            "Use a radius a whose ball mass q exceeds 1 - delta."
        )
    return v


def worst_case_epsilon(*, delta, q=1.0, a=1.0, dps: int | None = None):
    r"""Eq. (main)'s epsilon at the worst prior :math:`p^*` of :func:`worst_case_prior`.

    At ``q = 1``: :math:`2\ln\frac{1+\delta}{1-\delta}/a = 4\,\mathrm{artanh}(\delta)/a`
    (:func:`garesearch.releases.readings.epsilon_for_worst_case_advantage` is this at ``q = 1``, ``a = 1``).

    Examples
    --------
    >>> import math
    >>> abs(float(worst_case_epsilon(delta=0.1)) - 2 * math.log(1.1 / 0.9)) < 1e-15  # Sec. 4.1
    True
    """
    with workdps(dps):
        v = _worst_case_values(delta, q, dps, a=a)
        check("a", v["a"], 0, np.inf)
        eps = evaluate(worst_case_epsilon_formula, v, dps)
        if dps is None:
            d, qq, aa = v["delta"], v["q"], v["a"]
            with np.errstate(all="ignore"):
                p = worst_case_prior_formula(d, qq, NUMPY)
                share = log_share_formula(qq - p, p, NUMPY, rest=1 - qq)
                flag = (np.abs(eps * aa) < 0.05 * np.abs(share)) | _extreme(eps, aa, d)
            eps = refine(worst_case_epsilon_formula, v, eps, flag)
            _check_range(eps, True, aa, dps)
        return finish(eps, dps)
