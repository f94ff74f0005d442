r"""(epsilon, delta)-DP and the guessing advantage (App. B).

Notation of App. B: ``p`` and ``q`` are the prior masses of the correct guesses
:math:`X'` and of the comparison set :math:`\hat X'`; distances are scaled so that every
point of :math:`\hat X'` is within distance 1 of every point of :math:`X'` (``a = 1``).  The
paper calls the bound on the advantage :math:`\epsilon'` and the probability that it holds
:math:`\delta'`; garesearch names them ``advantage`` and ``confidence`` to keep them apart
from the mechanism's :math:`(\epsilon, \delta)`, whose delta is ``dp_delta`` in the code
(``delta`` means an advantage bound throughout garesearch; ``delta=`` still works here, with a
DeprecationWarning, for one release).

B.1, from an :math:`(\epsilon,\delta)` mechanism to :math:`(\epsilon',\delta')` guessing advantage
--------------------------------------------------------------------------------------------------
For an output ``y`` let :math:`\underline\chi_y = \inf_{x \in \hat X'} f_Y(y|x)`.  If

.. math:: f_Y(y|x') \le e^{\epsilon} f_Y(y|x) + \delta \qquad (x' \in X',\ x \in \hat X')

then :math:`\Pr_{post}[X'] \le 1 / \bigl(1 + \frac{q/p}{e^\epsilon + \delta/\underline\chi_y}\bigr)`
(:func:`posterior_bound_chi`).  For additive noise :math:`\xi\eta` whose density decreases
in :math:`|x|`, with probability :math:`\delta'` the noise stays within
:math:`d(\delta')` (:func:`garesearch.noise.noise_bound`), and then
:math:`\underline\chi_y \ge f(c + d(\delta'))`, where ``c`` (the paper's :math:`c(t)`,
``shift`` here) is the largest distance between the query's value at the true input and at a
point of :math:`\hat X'`.

Modelling caveats (documented, not hidden)
------------------------------------------
1. *Density-level inequality.*  B.1 assumes :math:`f(y|x') \le e^\epsilon f(y|x) + \delta`
   between densities.  :math:`(\epsilon,\delta)`-DP (Def. adp) constrains probabilities of
   sets and does not imply it: :math:`\delta` is a probability, a density has units of
   1/output (rescaling the output changes every density but not :math:`\delta`), and a
   mechanism may put a spike of density far above :math:`e^\epsilon f + \delta` on a set of
   tiny mass.  The results below are conditional on the density-level assumption.
2. *The paper's* :math:`d(\delta)` *in the formula for* :math:`\epsilon'` *means*
   :math:`d(\delta')` (the probability that the noise stays small).
3. *Probabilistic DP* (Def. pdp): the paper takes "the same :math:`\delta`" for GA; the bad
   sets :math:`S^\delta_0` of Def. pdp depend on the pair :math:`(x_0, x_1)`, while the
   posterior bound needs one output ``y`` that is good for *all* pairs in
   :math:`X' \times \hat X'`.  The mass of the union of the bad sets can exceed
   :math:`\delta`; the conversion holds when the bad set depends on the true input only
   (as for mechanisms whose privacy loss is bounded outside a set fixed by the input).
4. *Approximate DP with* :math:`\bar\chi_y = b/(2c)` (B.2, Laplace noise of magnitude
   :math:`c/b`): the bound :math:`1/(1 + e^{-\epsilon}(1 - \delta/\bar\chi_y)q/p)`
   decreases in :math:`\bar\chi_y`, so it needs a *lower* bound on
   :math:`\bar\chi_y = \sup_{x\in\hat X'} f_Y(y|x)`.  :math:`b/(2c)` is the *largest* value
   the density takes (at its mode): the substitution is valid only for outputs ``y`` that
   some point of :math:`\hat X'` maps to (with magnitude :math:`c/b`).  In the tails
   :math:`\bar\chi_y \to 0` and the factor :math:`1 - \delta/\bar\chi_y` turns negative,
   which is exactly the problem B.1 handles with :math:`\delta'`.
5. *Smooth sensitivity* :math:`c_\beta(t)` depends on :math:`\beta`; :func:`garesearch.smooth_laplace.search_smooth_laplace` takes
   ``c`` for the chosen ``beta`` as given (the paper's "try values of C'" loop is left to
   the caller).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import noise as _noise
from ._args import renamed_keywords
from ._backend import backend_for
from ._evaluate import check, evaluate, finish, scalar_values, to_values, workdps
from .bound import epsilon_for_advantage
from .errors import InfeasibleError, ParameterError
from .smooth_laplace import (  # App. B.2's smooth-sensitivity Laplace noise, re-exported
    SmoothLaplaceParameters,
    beta_bound,
    bprime_interval,
    search_smooth_laplace,
    smooth_laplace_delta,
    smooth_laplace_dp_delta,
    smooth_laplace_ratio,
)

__all__ = [
    "B1Result",
    "SmoothLaplaceParameters",
    "adp_posterior_bound",
    "adp_posterior_bound_formula",
    "advantage_with_confidence",
    "average_advantage",
    "beta_bound",
    "bprime_interval",
    "chi_required_formula",
    "confidence_for_advantage",
    "epsilon_for_pdp_advantage",
    "posterior_bound_chi",
    "posterior_bound_chi_formula",
    "search_smooth_laplace",
    "smooth_laplace_delta",
    "smooth_laplace_dp_delta",
    "smooth_laplace_ratio",
]


# --------------------------------------------------------------------------------------
# Formulas, written once.
# --------------------------------------------------------------------------------------
@renamed_keywords(delta="dp_delta")
def posterior_bound_chi_formula(epsilon, dp_delta, chi, p, q, B):
    r"""App. B.1: :math:`\Pr_{post}[X'] \le 1/\bigl(1 + \frac{q/p}{e^\epsilon + \delta/\underline\chi}\bigr)`.

    Parameters
    ----------
    epsilon, dp_delta : float, ndarray or mpmath.mpf
        The mechanism's :math:`(\epsilon, \delta)` (scaled distance, ``a = 1``).
    chi : float, ndarray or mpmath.mpf
        :math:`\underline\chi_y > 0`.
    p, q : float, ndarray or mpmath.mpf
        Prior masses of :math:`X'` and :math:`\hat X'`.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as the inputs
        The bound on the posterior.

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> got = posterior_bound_chi_formula(0.5, 0.0, 0.1, 0.2, 0.8, NUMPY)  # dp_delta = 0: Sec. 3.2
    >>> abs(float(got) - 0.2 / (0.2 + 0.8 * math.exp(-0.5))) < 1e-15
    True
    """
    return 1 / (1 + (q / p) / (B.exp(epsilon) + dp_delta / chi))


@renamed_keywords(delta="dp_delta")
def chi_required_formula(epsilon, dp_delta, advantage, p, q, B):
    r"""App. B.1, :math:`\epsilon'` fixed: the smallest :math:`\underline\chi` that meets :math:`\epsilon'`.

    The posterior stays at most ``p + advantage`` if

    .. math:: \underline\chi \ge \frac{\delta}{\frac{p+\epsilon'}{1-(p+\epsilon')}\frac{q}{p} - e^{\epsilon}}

    (meaningful where the denominator is positive).

    Parameters
    ----------
    epsilon, dp_delta : float, ndarray or mpmath.mpf
        The mechanism's :math:`(\epsilon, \delta)`.
    advantage : float, ndarray or mpmath.mpf
        :math:`\epsilon'`, the allowed advantage.
    p, q : float, ndarray or mpmath.mpf
        Prior masses of :math:`X'` and :math:`\hat X'`.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as the inputs
        The required :math:`\underline\chi`.

    Examples
    --------
    >>> from garesearch._backend import NUMPY
    >>> chi = chi_required_formula(0.5, 0.01, 0.3, 0.2, 0.5, NUMPY)
    >>> round(float(posterior_bound_chi_formula(0.5, 0.01, chi, 0.2, 0.5, NUMPY)), 12)  # p + advantage
    0.5
    """
    return dp_delta / _chi_denominator(epsilon, advantage, p, q, B)


def _chi_denominator(epsilon, advantage, p, q, B):
    r""":math:`\frac{p+\epsilon'}{1-(p+\epsilon')}\frac{q}{p} - e^{\epsilon}`, the denominator of
    :func:`chi_required_formula` (App. B.1): the request is feasible only where it is positive."""
    s = p + advantage
    return s / (1 - s) * q / p - B.exp(epsilon)


@renamed_keywords(delta="dp_delta")
def adp_posterior_bound_formula(epsilon, dp_delta, chibar, p, q, B):
    r"""App. B.2: :math:`\Pr_{post}[X'] \le 1/\bigl(1 + e^{-\epsilon}(1 - \delta/\bar\chi)\,q/p\bigr)`.

    Parameters
    ----------
    epsilon, dp_delta : float, ndarray or mpmath.mpf
        The mechanism's :math:`(\epsilon, \delta)`.
    chibar : float, ndarray or mpmath.mpf
        :math:`\bar\chi_y > \delta`.
    p, q : float, ndarray or mpmath.mpf
        Prior masses of :math:`X'` and :math:`\hat X'`.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as the inputs
        The bound on the posterior.

    Examples
    --------
    >>> import math
    >>> from garesearch._backend import NUMPY
    >>> got = adp_posterior_bound_formula(0.8, 0.05, 0.4, 0.3, 0.6, NUMPY)
    >>> abs(float(got) - 1 / (1 + math.exp(-0.8) * (1 - 0.05 / 0.4) * 0.6 / 0.3)) < 1e-15
    True
    """
    return 1 / (1 + B.exp(-epsilon) * ((chibar - dp_delta) / chibar) * q / p)


# --------------------------------------------------------------------------------------
# B.1
# --------------------------------------------------------------------------------------
def _check_pq(v):
    check("p", v["p"], 0, 1)
    check("q", v["q"], 0, 1)
    if np.any(v["p"] + v["q"] > 1 + 1e-12):
        raise ParameterError("p + q must be at most 1 (X' and the comparison set are disjoint)")


@renamed_keywords(delta="dp_delta")
def posterior_bound_chi(*, epsilon, dp_delta, chi, p, q, dps: int | None = None):
    r"""App. B.1's posterior bound for one output, given :math:`\underline\chi_y`.

    .. math:: \Pr_{post}[X'] \le \frac{1}{1 + \frac{q/p}{e^{\epsilon} + \delta/\underline\chi_y}}

    Assumes the density-level inequality of the module docstring (caveat 1).

    Parameters
    ----------
    epsilon : float
        Epsilon of the mechanism w.r.t. the scaled distance (``a = 1``), ``>= 0``.
    dp_delta : float
        Delta of the mechanism, ``>= 0`` (a density-level constant, caveat 1).
    chi : float
        :math:`\inf_{x \in \hat X'} f_Y(y|x) > 0`.
    p, q : float
        Prior masses of :math:`X'` and :math:`\hat X'`.
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    float, ndarray or mpmath.mpf
        The bound on the posterior.

    Examples
    --------
    >>> import math
    >>> got = posterior_bound_chi(epsilon=0.7, dp_delta=0.02, chi=0.05, p=0.25, q=0.5)
    >>> abs(got - 1 / (1 + (0.5 / 0.25) / (math.exp(0.7) + 0.02 / 0.05))) < 1e-15
    True
    """
    with workdps(dps):
        v = to_values(dps, epsilon=epsilon, dp_delta=dp_delta, chi=chi, p=p, q=q)
        check("epsilon", v["epsilon"], 0, np.inf, low_open=False)
        check("dp_delta", v["dp_delta"], 0, np.inf, low_open=False)
        check("chi", v["chi"], 0, np.inf)
        _check_pq(v)
        return finish(evaluate(posterior_bound_chi_formula, v, dps), dps)


@dataclass(frozen=True)
class B1Result:
    """A guessing-advantage bound that holds with a given probability (App. B.1).

    Attributes
    ----------
    advantage : float
        Bound on :math:`\\Pr_{post}[X'] - p` (the paper's :math:`\\epsilon'`), ``>= 0``.
    confidence : float
        Probability that the bound holds (the paper's :math:`\\delta'`).
    noise_radius : float
        :math:`d(\\delta')`: the noise stays within it with probability ``confidence``.
    chi : float
        The lower bound :math:`f(c + d)` on :math:`\\underline\\chi_y`.
    average : float
        :math:`1 + (\\epsilon' - 1)\\delta'` (App. B's single-number summary).
    """

    advantage: float
    confidence: float
    noise_radius: float
    chi: float
    average: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "average", 1 + (self.advantage - 1) * self.confidence)


def average_advantage(*, advantage, confidence):
    r"""App. B: :math:`\epsilon'\delta' + 1\cdot(1-\delta') = 1 + (\epsilon'-1)\delta'`.

    The paper bounds the advantage by 1 on the bad outputs; the advantage can never exceed
    :math:`1 - p`, so :math:`\epsilon'\delta' + (1-p)(1-\delta')` is also valid and smaller.

    Parameters
    ----------
    advantage : float or array_like
        :math:`\epsilon'`, the advantage bound on the good outputs.
    confidence : float or array_like
        :math:`\delta'`, the probability of a good output, in [0, 1].

    Returns
    -------
    float or ndarray
        The average advantage bound.

    Examples
    --------
    >>> round(float(average_advantage(advantage=0.1, confidence=0.9)), 12)  # 0.1 * 0.9 + 1 * 0.1
    0.19
    """
    v = to_values(None, advantage=advantage, confidence=confidence)
    check("confidence", v["confidence"], 0, 1, low_open=False, high_open=False)
    return finish(1 + (v["advantage"] - 1) * v["confidence"], None)


@renamed_keywords(delta="dp_delta")
def advantage_with_confidence(
    *, epsilon, dp_delta, confidence, p, q, shift=0.0, noise="laplace", scale=1.0,
    dps: int | None = None,
) -> B1Result:
    r"""App. B.1 with :math:`\delta'` fixed: the advantage bound :math:`\epsilon'` that holds then.

    The bound holds with probability ``confidence`` (:math:`\delta'`):

    .. math:: \epsilon' = \frac{1}{1 + \frac{q/p}{e^{\epsilon} + \delta/f(c + d(\delta'))}} - p

    (the paper prints :math:`d(\delta)`; it means :math:`d(\delta')`).  ``f`` is the density of
    the noise :math:`\xi\eta` (``noise``, ``scale``), ``c`` is ``shift``.

    The returned bound is never below 0: :math:`q \le 1-p` and :math:`e^\epsilon \ge 1` give
    a posterior bound :math:`\ge p`, so the paper's remark that ":math:`\epsilon' < 0` means we
    could not satisfy GA" never applies; an unhelpful :math:`\delta'` shows as an advantage
    close to :math:`1-p` instead.

    Parameters
    ----------
    epsilon, dp_delta : float
        The mechanism's :math:`(\epsilon, \delta)` (scaled distance; caveat 1).
    confidence : float
        :math:`\delta'`, in (0, 1).
    p, q : float
        Prior masses of :math:`X'` and :math:`\hat X'`.
    shift : float
        :math:`c(t) \ge 0`, the largest distance between the query's value at the true input
        and at a point of :math:`\hat X'`.
    noise : {"laplace", "gencauchy", "gaussian"}
        Standard noise :math:`\eta` (:mod:`garesearch.noise`).
    scale : float
        Noise magnitude :math:`\xi > 0`.
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    B1Result

    Examples
    --------
    >>> import math
    >>> res = advantage_with_confidence(epsilon=0.5, dp_delta=0.01, confidence=0.9, p=0.2, q=0.5)
    >>> abs(res.noise_radius - math.log(10)) < 1e-12  # Laplace: Pr[|eta| <= ln 10] = 0.9
    True
    >>> chi = math.exp(-math.log(10)) / 2  # the density at d, with shift 0
    >>> abs(res.advantage - (1 / (1 + 2.5 / (math.exp(0.5) + 0.01 / chi)) - 0.2)) < 1e-12
    True
    """
    with workdps(dps):
        v = to_values(dps, confidence=confidence, shift=shift)
        check("confidence", v["confidence"], 0, 1)
        check("shift", v["shift"], 0, np.inf, low_open=False)
        d = _noise.noise_bound(v["confidence"], noise=noise, scale=scale, dps=dps)
        chi = _noise.noise_density(v["shift"] + d, noise=noise, scale=scale, dps=dps)
        post = posterior_bound_chi(epsilon=epsilon, dp_delta=dp_delta, chi=chi, p=p, q=q, dps=dps)
        pp = to_values(dps, p=p)["p"]
        adv = np.maximum(post - pp, 0.0) if dps is None else max(post - pp, 0)  # >= 0 exactly
        return B1Result(
            advantage=finish(adv, dps), confidence=finish(v["confidence"], dps),
            noise_radius=d, chi=chi,
        )


@renamed_keywords(delta="dp_delta")
def confidence_for_advantage(
    *, epsilon, dp_delta, advantage, p, q, shift=0.0, noise="laplace", scale=1.0,
    dps: int | None = None,
) -> B1Result:
    r"""App. B.1 with :math:`\epsilon'` fixed: the probability :math:`\delta'` that the bound holds.

    The advantage stays at most ``advantage`` (:math:`\epsilon'`) with probability :math:`\delta'`.

    Needs :math:`\underline\chi_y \ge \chi^* = \delta / (\frac{p+\epsilon'}{1-(p+\epsilon')}\frac qp
    - e^\epsilon)`; solves :math:`f(c + d) = \chi^*` for ``d`` and returns
    :math:`\delta' = \Pr[|\xi\eta| \le d]`.  With ``dp_delta = 0`` every output is good
    (:math:`\delta' = 1`) as soon as pure DP meets the request.

    Parameters
    ----------
    epsilon, dp_delta : float
        The mechanism's :math:`(\epsilon, \delta)` (scaled distance; caveat 1).
    advantage : float
        :math:`\epsilon'`, in (0, 1).
    p, q : float
        Prior masses of :math:`X'` and :math:`\hat X'`.
    shift, noise, scale, dps
        As in :func:`advantage_with_confidence`.

    Returns
    -------
    B1Result

    Raises
    ------
    InfeasibleError
        If the denominator is :math:`\le 0` (even :math:`\delta = 0` cannot meet the
        request), or if :math:`f(c) \le \chi^*` (no ``d >= 0`` works), as the paper says.

    Examples
    --------
    >>> res = confidence_for_advantage(epsilon=0.5, dp_delta=0.0, advantage=0.3, p=0.2, q=0.5)
    >>> res.confidence  # pure DP meets the request on every output
    1.0
    >>> res = confidence_for_advantage(epsilon=0.5, dp_delta=0.01, advantage=0.3, p=0.2, q=0.5)
    >>> back = advantage_with_confidence(epsilon=0.5, dp_delta=0.01, confidence=res.confidence,
    ...                                  p=0.2, q=0.5)
    >>> round(float(back.advantage), 9)  # the inverse of advantage_with_confidence
    0.3
    """
    with workdps(dps):
        args = dict(epsilon=epsilon, dp_delta=dp_delta, advantage=advantage, p=p, q=q, shift=shift)
        v = to_values(dps, **args) if dps is not None else scalar_values(**args)
        check("epsilon", v["epsilon"], 0, np.inf, low_open=False)
        check("dp_delta", v["dp_delta"], 0, np.inf, low_open=False)
        check("advantage", v["advantage"], 0, 1)
        check("shift", v["shift"], 0, np.inf, low_open=False)
        _check_pq(v)
        if v["p"] + v["advantage"] >= 1:
            return B1Result(advantage=finish(v["advantage"], dps), confidence=1.0,
                            noise_radius=math.inf, chi=0.0)
        B = backend_for(dps)
        with np.errstate(all="ignore"):  # e^epsilon may overflow: then the denominator is -inf
            denom = _chi_denominator(v["epsilon"], v["advantage"], v["p"], v["q"], B)
        if denom <= 0:
            raise InfeasibleError(
                f"no output can keep the advantage within {float(v['advantage']):.6g}: even "
                f"pure {float(v['epsilon']):.6g}-DP allows a larger posterior for p={float(v['p']):.6g}, "
                f"q={float(v['q']):.6g} (need (p+adv)/(1-p-adv)*q/p > e^epsilon)"
            )
        if v["dp_delta"] == 0:
            return B1Result(advantage=finish(v["advantage"], dps), confidence=1.0,
                            noise_radius=math.inf, chi=0.0)
        chi_star = v["dp_delta"] / denom
        top = _noise.noise_density(v["shift"], noise=noise, scale=scale, dps=dps)
        if top <= chi_star:
            raise InfeasibleError(
                f"the noise density at the shift c={float(v['shift']):.6g} is {float(top):.6g}, "
                f"not above the required chi={float(chi_star):.6g}: no confidence > 0 exists "
                "(App. B.1); use a smaller dp_delta or a smaller noise scale"
            )
        reach = _noise.noise_density_inverse(chi_star, noise=noise, scale=scale, dps=dps)
        d = reach - v["shift"]
        conf = _noise.noise_mass(d, noise=noise, scale=scale, dps=dps)
        return B1Result(advantage=finish(v["advantage"], dps), confidence=conf,
                        noise_radius=d, chi=chi_star)


# --------------------------------------------------------------------------------------
# B.2
# --------------------------------------------------------------------------------------
def epsilon_for_pdp_advantage(*, delta, p, q=None, a=1.0, failure, dps: int | None = None):
    r"""App. B.2, probabilistic DP (Def. pdp): the :math:`(\epsilon, \delta_{DP})` for an advantage.

    The advantage stays at most ``delta`` with probability ``1 - failure``.

    The paper: outside the bad set the mechanism is pure :math:`\epsilon`-DP, so epsilon is
    Eq. (main)'s (:func:`garesearch.bound.epsilon_for_advantage`) and
    :math:`\delta_{DP}` = ``failure``.  See caveat 3 of the module docstring.

    Parameters
    ----------
    delta : float
        The advantage bound, in (0, 1).
    p, q, a
        As in :func:`garesearch.bound.epsilon_for_advantage`.
    failure : float
        Probability that the bound may fail, in [0, 1).
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    tuple
        ``(epsilon, failure)``.

    Examples
    --------
    >>> eps, fail = epsilon_for_pdp_advantage(delta=0.1, p=0.2, failure=1e-6)
    >>> round(float(eps), 3), fail  # Eq. (main) for the cats of Sec. 6.1, and dp_delta = failure
    (0.539, 1e-06)
    """
    with workdps(dps):
        f = to_values(dps, failure=failure)["failure"]
        check("failure", f, 0, 1, low_open=False)
    eps = epsilon_for_advantage(delta=delta, p=p, q=q, a=a, dps=dps)
    return eps, finish(f, dps)


@renamed_keywords(delta="dp_delta")
def adp_posterior_bound(*, epsilon, dp_delta, chibar, p, q, dps: int | None = None):
    r"""App. B.2, approximate DP (Def. adp): the posterior bound through :math:`\bar\chi_y`.

    .. math:: \Pr_{post}[X'] \le \frac{1}{1 + e^{-\epsilon}\,(1 - \delta/\bar\chi_y)\,q/p},
       \qquad \bar\chi_y = \sup_{x\in\hat X'} f_Y(y|x) > \delta.

    Follows from :math:`\underline\chi_y \ge (\bar\chi_y - \delta)e^{-\epsilon}` (density-level
    inequality, caveat 1).  Pass a *lower* bound on :math:`\bar\chi_y` (caveat 4).

    Parameters
    ----------
    epsilon, dp_delta : float
        The mechanism's :math:`(\epsilon, \delta)`, both ``>= 0``.
    chibar : float
        A lower bound on :math:`\bar\chi_y`, ``> dp_delta``.
    p, q : float
        Prior masses of :math:`X'` and :math:`\hat X'`.
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    float, ndarray or mpmath.mpf
        The bound on the posterior.

    Raises
    ------
    InfeasibleError
        If ``chibar <= dp_delta`` (the paper: no :math:`\epsilon > 0` then).

    Examples
    --------
    >>> import math
    >>> got = adp_posterior_bound(epsilon=0.8, dp_delta=0.05, chibar=0.4, p=0.3, q=0.6)
    >>> abs(got - 1 / (1 + math.exp(-0.8) * (1 - 0.05 / 0.4) * 0.6 / 0.3)) < 1e-15
    True
    """
    with workdps(dps):
        v = to_values(dps, epsilon=epsilon, dp_delta=dp_delta, chibar=chibar, p=p, q=q)
        check("epsilon", v["epsilon"], 0, np.inf, low_open=False)
        check("dp_delta", v["dp_delta"], 0, np.inf, low_open=False)
        check("chibar", v["chibar"], 0, np.inf)
        _check_pq(v)
        if np.any(v["chibar"] <= v["dp_delta"]):
            raise InfeasibleError(
                "chibar must exceed dp_delta: with dp_delta >= chibar the factor 1 - dp_delta/chibar is "
                "<= 0 and the bound is trivial (App. B.2)"
            )
        return finish(evaluate(adp_posterior_bound_formula, v, dps), dps)
