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
5. *Smooth sensitivity* :math:`c_\beta(t)` depends on :math:`\beta`; the search below takes
   ``c`` for the chosen ``beta`` as given (the paper's "try values of C'" loop is left to
   the caller).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import mpmath
import numpy as np

from . import noise as _noise
from ._args import renamed_keywords, warn_renamed
from ._backend import MPMATH
from ._evaluate import check, evaluate, finish, mp_value, scalar_values, to_values, workdps
from .bound import epsilon_for_advantage
from .errors import InfeasibleError, ParameterError

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
    """
    return 1 / (1 + B.exp(-epsilon) * ((chibar - dp_delta) / chibar) * q / p)


def smooth_laplace_dp_delta_formula(epsilon, b, beta, B):
    r"""App. B.2 (from [dersens]): :math:`\delta = 2e^{\epsilon - 1 - (\epsilon-b)/\beta}`.

    Parameters
    ----------
    epsilon, b, beta : float, ndarray or mpmath.mpf
        Epsilon, the noise parameter ``b`` and the smoothness :math:`\beta`.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as the inputs
        :math:`\delta`.
    """
    return 2 * B.exp(epsilon - 1 - (epsilon - b) / beta)


def smooth_laplace_ratio_formula(epsilon, b, beta, c, B):
    r"""App. B.2: :math:`\delta/\bar\chi = 4e^{\epsilon-1-(\epsilon-b)/\beta}\,c/b` with :math:`\bar\chi = b/(2c)`.

    Parameters
    ----------
    epsilon, b, beta : float, ndarray or mpmath.mpf
        Epsilon, the noise parameter ``b`` and the smoothness :math:`\beta`.
    c : float, ndarray or mpmath.mpf
        Smooth derivative sensitivity :math:`c_\beta(t)`.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as the inputs
        :math:`\delta/\bar\chi`.
    """
    return 4 * B.exp(epsilon - 1 - (epsilon - b) / beta) * c / b


def beta_bound_formula(epsilon, b, C, B):
    r"""App. B.2: :math:`\beta \le (\epsilon-b)/(\epsilon-1-\ln(b/(4C)))` (denominator > 0).

    Parameters
    ----------
    epsilon, b : float, ndarray or mpmath.mpf
        Epsilon and the noise parameter ``b``.
    C : float, ndarray or mpmath.mpf
        Upper bound on :math:`c_\beta(t)`.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.

    Returns
    -------
    same type as the inputs
        The bound on :math:`\beta`.
    """
    return (epsilon - b) / _beta_denominator(epsilon, b, C, B)


def _beta_denominator(epsilon, b, C, B):
    r""":math:`\epsilon - 1 - \ln(b/(4C))`, the denominator of :func:`beta_bound_formula` (App. B.2)."""
    return epsilon - 1 - (B.log(b) - B.log(4) - B.log(C))


def lambert_argument_formula(epsilon, alpha, beta, c, B, typo=False):
    r"""App. B.2: the argument of Lambert's W in the step that finds :math:`b'`.

    .. math:: -\frac{4c\,e^{\epsilon-\alpha-1-(\epsilon-\alpha)/\beta}}{(1-e^{-\alpha})\beta}

    (``typo=True``: :math:`1-e^{-\alpha\epsilon}` as the paper's requirement prints).
    It is :math:`-e^{L}` with ``L`` from :func:`lambert_log_argument_formula`.

    Parameters
    ----------
    epsilon, alpha, beta, c : float, ndarray or mpmath.mpf
        Epsilon, :math:`\alpha`, :math:`\beta` and :math:`c_\beta(t)`.
    B : Backend
        ``NUMPY``, ``MPMATH`` or the sympy backend.
    typo : bool
        Use the paper's printed :math:`e^{-\alpha\epsilon}` instead of :math:`e^{-\alpha}`.

    Returns
    -------
    same type as the inputs
        The argument ``z`` of W.
    """
    return -B.exp(lambert_log_argument_formula(epsilon, alpha, beta, c, B, typo))


def lambert_log_argument_formula(epsilon, alpha, beta, c, B, typo=False):
    r""":math:`L = \ln(-z)` for the argument ``z`` of :func:`lambert_argument_formula` (App. B.2).

    .. math:: L = \ln 4c + \epsilon - \alpha - 1 - (\epsilon-\alpha)/\beta - \ln(1-e^{-\alpha})
       - \ln\beta

    In logarithms, ``z`` can be far below the float64 range (:math:`e^{-5738}` for
    :math:`\beta = 10^{-3}`) without underflowing to 0.

    Parameters
    ----------
    epsilon, alpha, beta, c, B, typo
        As in :func:`lambert_argument_formula`.

    Returns
    -------
    same type as the inputs
        :math:`\ln(-z)`.
    """
    gap = -B.expm1(-alpha * epsilon) if typo else -B.expm1(-alpha)
    return (B.log(4 * c) + epsilon - alpha - 1 - (epsilon - alpha) / beta - B.log(gap)
            - B.log(beta))


def _bprime_end(branch: int, typo: bool):
    """``(epsilon, alpha, beta, c, B) -> -beta W_branch(z)``, one end of :func:`bprime_interval`."""

    def formula(epsilon, alpha, beta, c, B):
        z = lambert_argument_formula(epsilon, alpha, beta, c, B, typo)
        return -beta * B.lambertw(z, branch)

    return formula


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
        B = _noise._backend(dps)
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


def smooth_laplace_dp_delta(*, epsilon, b, beta, dps: int | None = None):
    r"""App. B.2 (from [dersens]): the :math:`\delta` of Laplace noise :math:`c_\beta(t)/b`.

    .. math:: \delta = 2e^{\epsilon-1-(\epsilon-b)/\beta}

    for :math:`\beta`-smooth derivative sensitivity :math:`c_\beta(t)`; needs
    :math:`b + \beta \le \epsilon`.

    Parameters
    ----------
    epsilon : float
        Epsilon, > 0.
    b : float
        Noise parameter, > 0.
    beta : float
        Smoothness, > 0.
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    float, ndarray or mpmath.mpf
        :math:`\delta`.
    """
    with workdps(dps):
        v = to_values(dps, epsilon=epsilon, b=b, beta=beta)
        _check_b_beta(v)
        return finish(_representable(evaluate(smooth_laplace_dp_delta_formula, v, dps), "dp_delta", dps), dps)


def smooth_laplace_delta(*, epsilon, b, beta, dps: int | None = None):
    """Deprecated name of :func:`smooth_laplace_dp_delta` (DP's delta is ``dp_delta``).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     smooth_laplace_delta(epsilon=1.0, b=0.5, beta=0.25) == smooth_laplace_dp_delta(
    ...         epsilon=1.0, b=0.5, beta=0.25)
    True
    """
    warn_renamed("smooth_laplace_delta", "smooth_laplace_dp_delta", "garesearch.approx_dp")
    return smooth_laplace_dp_delta(epsilon=epsilon, b=b, beta=beta, dps=dps)


def smooth_laplace_ratio(*, epsilon, b, beta, c, dps: int | None = None):
    r"""App. B.2: the ratio :math:`\delta/\bar\chi` with :math:`\bar\chi = b/(2c)` (caveat 4).

    .. math:: \delta/\bar\chi = 4e^{\epsilon-1-(\epsilon-b)/\beta}\,c/b

    Parameters
    ----------
    epsilon, b, beta
        As in :func:`smooth_laplace_dp_delta`.
    c : float
        Smooth derivative sensitivity :math:`c_\beta(t)`, > 0.
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    float, ndarray or mpmath.mpf
        :math:`\delta/\bar\chi`.
    """
    with workdps(dps):
        v = to_values(dps, epsilon=epsilon, b=b, beta=beta, c=c)
        _check_b_beta(v)
        check("c", v["c"], 0, np.inf)
        out = evaluate(smooth_laplace_ratio_formula, v, dps)
        return finish(_representable(out, "delta/chibar", dps), dps)


def _representable(out, what: str, dps):
    """``out``, or :class:`ParameterError` where a finite value overflows float64."""
    if dps is None and not np.all(np.isfinite(out)):
        raise ParameterError(
            f"{what} lies outside the float64 range (above about 1.8e308) for these inputs; "
            "pass dps= for the mpmath path"
        )
    return out


def _check_b_beta(v):
    check("epsilon", v["epsilon"], 0, np.inf)
    check("b", v["b"], 0, np.inf)
    check("beta", v["beta"], 0, np.inf)
    with np.errstate(all="ignore"):  # b + beta and epsilon may be near the float64 maximum
        over = (v["b"] - v["epsilon"]) + v["beta"] > 1e-12 * v["epsilon"]
    if np.any(over):
        raise ParameterError("b + beta must be at most epsilon (App. B.2)")


def beta_bound(*, epsilon, b, C=1.0, dps: int | None = None):
    r"""App. B.2: the largest :math:`\beta` with :math:`\delta/\bar\chi \le c_\beta(t)/C`.

    .. math:: \beta \le \frac{\epsilon - b}{\epsilon - 1 - \ln(b/(4C))}

    (``C = 1`` is the paper's first form).  Returns ``inf`` when the denominator is
    :math:`\le 0`: then every :math:`\beta > 0` satisfies the inequality.  For
    :math:`C \ge 1/4` and :math:`0 < b < \epsilon` the denominator exceeds
    :math:`\epsilon - 1 - \ln\epsilon + \ln 4C > 0`, so the paper's remark
    ":math:`\beta > 0` as :math:`b < \epsilon`" holds there.
    The factor :math:`1 - \delta/\bar\chi` is positive only if :math:`c_\beta(t) < C` strictly.

    Parameters
    ----------
    epsilon : float
        Epsilon, > 0.
    b : float
        Noise parameter, in (0, epsilon).
    C : float
        Upper bound on :math:`c_\beta(t)`, > 0.
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    float, ndarray or mpmath.mpf
        The bound on :math:`\beta` (``inf`` if there is none).
    """
    with workdps(dps):
        v = to_values(dps, epsilon=epsilon, b=b, C=C)
        check("epsilon", v["epsilon"], 0, np.inf)
        check("b", v["b"], 0, v["epsilon"])
        check("C", v["C"], 0, np.inf)
        B = _noise._backend(dps)
        with np.errstate(all="ignore"):
            den = _beta_denominator(v["epsilon"], v["b"], v["C"], B)
        out = evaluate(beta_bound_formula, v, dps)
        inf = np.inf if dps is None else mpmath.inf
        if dps is None:
            out = np.where(den > 0, out, inf)
        elif den <= 0:
            out = inf
        return finish(out, dps)


def bprime_interval(*, epsilon, alpha, beta, c, requirement="corrected", dps: int | None = None):
    r"""App. B.2, Lambert W step: the interval of ``b'`` that meet the requirement.

    The requirement is :math:`1 - 4e^{\epsilon-\alpha-1-(\epsilon-\alpha-b')/\beta}c/b' \ge e^{-\alpha}`.

    With :math:`x = b'/\beta` the requirement is :math:`x e^{-x} \ge 1/Y`,
    :math:`Y = \frac{(1-e^{-\alpha})\beta}{4c\,e^{\epsilon-\alpha-1-(\epsilon-\alpha)/\beta}}`.
    :math:`xe^{-x}` rises to :math:`1/e` at ``x = 1`` and falls after, so the solutions form
    the interval between the two real branches of W:

    .. math:: b' \in \bigl[-\beta W_0(z),\ -\beta W_{-1}(z)\bigr], \qquad z = -1/Y,

    non-empty iff :math:`z \ge -1/e`.  The paper gives one root (the equality); its
    requirement prints :math:`e^{-\alpha\epsilon}` where its own next step uses
    :math:`e^{-\alpha}` (``requirement="paper"`` reproduces the printed version).

    Parameters
    ----------
    epsilon : float
        Epsilon, > 0.
    alpha : float
        :math:`\alpha`, in (0, epsilon].
    beta : float
        Smoothness, > 0.
    c : float
        Smooth derivative sensitivity :math:`c_\beta(t)`, > 0.
    requirement : {"corrected", "paper"}
        Use :math:`e^{-\alpha}` (corrected) or the printed :math:`e^{-\alpha\epsilon}`.
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    tuple or None
        ``(low, high)`` or ``None`` if no ``b'`` exists.  The cap
        :math:`b' \le \epsilon-\alpha-\beta` is not applied here.
    """
    if requirement not in ("corrected", "paper"):
        raise ParameterError(f"requirement must be 'corrected' or 'paper'; got {requirement!r}")
    typo = requirement == "paper"
    with workdps(dps):
        v = to_values(dps, epsilon=epsilon, alpha=alpha, beta=beta, c=c) if dps is not None else \
            scalar_values(epsilon=epsilon, alpha=alpha, beta=beta, c=c)
        check("epsilon", v["epsilon"], 0, np.inf)
        check("alpha", v["alpha"], 0, v["epsilon"], high_open=False)
        check("beta", v["beta"], 0, np.inf)
        check("c", v["c"], 0, np.inf)
        B = _noise._backend(dps)
        if dps is not None:
            if lambert_log_argument_formula(**v, B=B, typo=typo) > -1:  # z < -1/e
                return None
            return tuple(finish(_bprime_end(k, typo)(**v, B=B), dps) for k in (0, -1))
        with np.errstate(all="ignore"):
            L = float(lambert_log_argument_formula(**v, B=B, typo=typo))
            # |L|'s terms bound its rounding error (relative 1e-16 each)
            size = (abs(v["epsilon"] - v["alpha"]) / v["beta"] + abs(math.log(4 * v["c"]))
                    + abs(math.log(v["beta"])) + v["epsilon"] + abs(math.log(-math.expm1(-v["alpha"]))))
        if not -600 < L < -1 - 1e-6 * (1 + size):  # z underflows, or near -1/e: in mpmath
            if mp_value(lambert_log_argument_formula, v, typo=typo) > -1:
                return None
            low, high = (float(mp_value(_bprime_end(k, typo), v)) for k in (0, -1))
            _representable(high, "the upper end b'", dps)
            # an end below the float64 range rounds up to the smallest positive float, so
            # that the interval holds only feasible b'
            return max(low, 5e-324), high
        with np.errstate(all="ignore"):
            z = -math.exp(L)
            low = -v["beta"] * float(B.lambertw(z, 0))
            high = -v["beta"] * float(B.lambertw(z, -1))
        return low, _representable(high, "the upper end b'", dps)


@dataclass(frozen=True)
class SmoothLaplaceParameters:
    """Result of :func:`search_smooth_laplace` (App. B.2's procedure).

    Attributes
    ----------
    epsilon : float
        The pure-DP epsilon that the guessing-advantage bound asked for.
    alpha : float
        The chosen :math:`\\alpha`: the mechanism is :math:`(\\epsilon-\\alpha, \\delta)`-DP.
    beta, c : float
        Smoothness and smooth derivative sensitivity :math:`c_\\beta(t)` (inputs).
    b : float
        The chosen :math:`b'`; the noise is Laplace of magnitude ``c / b``.
    dp_delta : float
        :math:`2e^{\\epsilon-\\alpha-1-(\\epsilon-\\alpha-b')/\\beta}`.
    ratio : float
        :math:`\\delta/\\bar\\chi` at :math:`\\bar\\chi = b'/(2c)` (caveat 4): at most
        :math:`1 - e^{-\\alpha}`.
    noise_scale : float
        ``c / b``: the paper's noise level.
    lambert_interval : tuple
        ``(low, high)`` feasible ``b'`` from the two branches of W at the chosen alpha.
    """

    epsilon: float
    alpha: float
    beta: float
    c: float
    b: float
    dp_delta: float
    ratio: float
    noise_scale: float
    lambert_interval: tuple

    @property
    def delta(self) -> float:
        """Deprecated name of :attr:`dp_delta` (``delta`` means the advantage bound)."""
        warn_renamed("delta", "dp_delta", "SmoothLaplaceParameters", stacklevel=3)
        return self.dp_delta

    def slacks(self, dps: int = 50) -> dict:
        r"""The inequalities of App. B.2's procedure, evaluated with mpmath (``>= 0`` = met).

        ``requirement``: :math:`1 - \delta/\bar\chi - e^{-\alpha}`;
        ``budget``: :math:`\epsilon - \alpha - \beta - b'`;
        ``ga``: :math:`e^{-(\epsilon-\alpha)}(1-\delta/\bar\chi) - e^{-\epsilon}` (the
        (epsilon - alpha, delta) bound is at least as strong as the pure epsilon-DP one);
        ``b_positive``: ``b'``.

        Parameters
        ----------
        dps : int
            Digits of the mpmath evaluation.

        Returns
        -------
        dict of mpmath.mpf
            The four slacks by name.
        """
        with mpmath.workdps(dps):
            e, a, be, c, b = (mpmath.mpf(x) for x in (self.epsilon, self.alpha, self.beta,
                                                      self.c, self.b))
            r = smooth_laplace_ratio_formula(e - a, b, be, c, MPMATH)
            return {
                "requirement": 1 - r - mpmath.exp(-a),
                "budget": e - a - be - b,
                "ga": mpmath.exp(-(e - a)) * (1 - r) - mpmath.exp(-e),
                "b_positive": b,
            }


def _best_b(epsilon, alpha, beta, c):
    """Largest feasible b' at ``alpha`` (closed form through Lambert W), or -inf."""
    cap = epsilon - alpha - beta
    if cap <= 0 or alpha <= 0:
        return -math.inf, None
    inter = bprime_interval(epsilon=epsilon, alpha=alpha, beta=beta, c=c)
    if inter is None:
        return -math.inf, None
    low, high = inter
    # the W_{-1} root meets the requirement with equality: step inside by a relative 1e-9
    # so that rounding cannot leave the returned b' infeasible
    best = min(high * (1 - 1e-9), cap)
    if best < low:
        return -math.inf, inter
    return best, inter


def search_smooth_laplace(*, epsilon, beta, c, n_alpha: int = 400) -> SmoothLaplaceParameters:
    r"""App. B.2's search for the parameters of smooth-sensitivity Laplace noise.

    For Laplace noise with :math:`\beta`-smooth derivative sensitivity it finds the largest
    :math:`b'` (least noise :math:`c/b'`) over :math:`\alpha \in [0, \epsilon]` and
    :math:`b' \in [0, \epsilon-\alpha-\beta]` with

    .. math:: 1 - \frac{4e^{\epsilon-\alpha-1-(\epsilon-\alpha-b')/\beta}c}{b'} \ge e^{-\alpha}.

    For each :math:`\alpha` the feasible :math:`b'` form an interval given in closed form by the
    two branches of Lambert's W (:func:`bprime_interval`), so the paper's refining search over
    :math:`b'` is exact here: :math:`b' = \min(-\beta W_{-1}(z), \epsilon-\alpha-\beta)`.  The
    search over :math:`\alpha` is a grid of ``n_alpha`` points refined by bounded Brent
    (``scipy.optimize.minimize_scalar``).  ``beta = 0`` means pure DP: :math:`\delta = 0`,
    :math:`\alpha = 0`, :math:`b' = \epsilon` (the paper's special case).

    Then the mechanism is :math:`(\epsilon-\alpha, \delta)`-DP and App. B.2's bound
    :math:`1/(1 + e^{-(\epsilon-\alpha)}(1-\delta/\bar\chi)q/p)` is at most the pure
    :math:`\epsilon`-DP bound :math:`1/(1 + e^{-\epsilon}q/p)`, under caveats 1, 4 and 5.

    Parameters
    ----------
    epsilon : float
        The pure-DP epsilon from the guessing-advantage requirement (scaled distance), > 0.
    beta : float
        Smoothness, ``0 <= beta < epsilon``.
    c : float
        Smooth derivative sensitivity :math:`c_\beta(t)` at the true input, > 0.
    n_alpha : int
        Number of grid points for :math:`\alpha`.

    Returns
    -------
    SmoothLaplaceParameters

    Raises
    ------
    InfeasibleError
        If no :math:`(\alpha, b')` satisfies the requirement.
    """
    v = scalar_values(epsilon=epsilon, beta=beta, c=c)
    if not isinstance(n_alpha, (int, np.integer)) or isinstance(n_alpha, bool) or not 1 <= n_alpha <= 10**5:
        raise ParameterError(f"n_alpha must be an integer in [1, 100000]; got {n_alpha!r}")
    check("epsilon", v["epsilon"], 0, np.inf)
    check("beta", v["beta"], 0, v["epsilon"], low_open=False)
    check("c", v["c"], 0, np.inf)
    eps, be, cc = float(v["epsilon"]), float(v["beta"]), float(v["c"])
    if be == 0:
        scale = cc / eps
        if not 0 < scale < math.inf:
            raise ParameterError(f"c / epsilon = {scale!r} lies outside the float64 range")
        return SmoothLaplaceParameters(eps, 0.0, 0.0, cc, eps, 0.0, 0.0, scale, (eps, eps))
    with np.errstate(all="ignore"):
        grid = np.linspace(0, eps - be, n_alpha + 2)[1:-1]
    if not np.all(np.isfinite(grid)):
        raise ParameterError(f"epsilon={eps!r}: too large for the search over alpha in float64")
    values = np.array([_best_b(eps, a, be, cc)[0] for a in grid])
    if not np.any(np.isfinite(values)):
        raise InfeasibleError(
            f"no alpha in (0, epsilon - beta) and b' in (0, epsilon - alpha - beta] meet "
            f"1 - delta/chibar >= e^-alpha for epsilon={eps:.6g}, beta={be:.6g}, c={cc:.6g}: "
            "take a smaller beta (App. B.2's bound on beta) or a smaller c"
        )
    i = int(np.nanargmax(values))
    lo = grid[max(i - 1, 0)]
    hi = grid[min(i + 1, len(grid) - 1)]
    from scipy.optimize import minimize_scalar

    def objective(a):
        best = _best_b(eps, a, be, cc)[0]
        return -best if np.isfinite(best) else 1e300

    with np.errstate(all="ignore"):  # Brent's parabolas on huge b' may overflow: then bisection
        res = minimize_scalar(objective, bounds=(lo, hi), method="bounded",
                              options={"xatol": 1e-12 * max(eps, 1)})
    alpha = float(res.x) if -res.fun >= values[i] else float(grid[i])
    b, inter = _best_b(eps, alpha, be, cc)
    e1 = eps - alpha
    log_growth = e1 - 1 - (e1 - float(b)) / be
    with np.errstate(all="ignore"):
        dp_delta = 2 * math.exp(min(log_growth, 709.0))
        ratio = math.exp(min(log_growth + math.log(4 * cc) - math.log(b), 709.0))
        scale = cc / float(b)
    if not (log_growth < 709 and 0 < scale < math.inf):
        raise ParameterError(
            f"epsilon={eps!r}, beta={be!r}, c={cc!r}: the noise parameters lie outside the "
            "float64 range; change the unit of the query"
        )
    return SmoothLaplaceParameters(
        epsilon=eps, alpha=alpha, beta=be, c=cc, b=float(b), dp_delta=dp_delta, ratio=ratio,
        noise_scale=scale, lambert_interval=tuple(float(x) for x in inter),
    )
