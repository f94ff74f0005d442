r"""App. B.2: Laplace noise scaled by smooth derivative sensitivity, and the search for its parameters.

From [dersens] (cited in App. B.2): Laplace noise of magnitude :math:`c_\beta(t)/b` with
:math:`\beta`-smooth derivative sensitivity :math:`c_\beta(t)` is :math:`(\epsilon, \delta_{DP})`-DP
with :math:`\delta_{DP} = 2e^{\epsilon-1-(\epsilon-b)/\beta}` (``dp_delta`` in the code;
``delta`` means an advantage bound throughout garesearch).  App. B.2 picks
:math:`\alpha` and :math:`b'` so that the :math:`(\epsilon-\alpha, \delta_{DP})` bound of
:func:`garesearch.approx_dp.adp_posterior_bound` is at least as strong as pure
:math:`\epsilon`-DP's; :func:`search_smooth_laplace` does it, with the interval of feasible
:math:`b'` in closed form through both real branches of Lambert's W (:func:`bprime_interval`).
The modelling caveats 1, 4 and 5 of :mod:`garesearch.approx_dp` apply.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from ._args import warn_renamed
from ._backend import MPMATH, backend_for
from ._evaluate import (
    check,
    evaluate,
    finish,
    mp_value,
    representable,
    scalar_values,
    to_values,
    workdps,
)
from .errors import InfeasibleError, ParameterError

__all__ = [
    "SmoothLaplaceParameters",
    "beta_bound",
    "bprime_interval",
    "search_smooth_laplace",
    "smooth_laplace_delta",
    "smooth_laplace_dp_delta",
    "smooth_laplace_ratio",
]


# --------------------------------------------------------------------------------------
# Formulas, written once.
# --------------------------------------------------------------------------------------
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
# Public API.
# --------------------------------------------------------------------------------------
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

    Examples
    --------
    >>> import math
    >>> got = smooth_laplace_dp_delta(epsilon=2.0, b=0.7, beta=0.3)
    >>> abs(got - 2 * math.exp(2.0 - 1 - (2.0 - 0.7) / 0.3)) < 1e-15
    True
    """
    with workdps(dps):
        v = to_values(dps, epsilon=epsilon, b=b, beta=beta)
        _check_b_beta(v)
        return finish(representable(evaluate(smooth_laplace_dp_delta_formula, v, dps), "dp_delta", dps), dps)


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
    r"""App. B.2: the ratio :math:`\delta/\bar\chi` with :math:`\bar\chi = b/(2c)` (caveat 4 of :mod:`garesearch.approx_dp`).

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

    Examples
    --------
    >>> import math
    >>> got = smooth_laplace_ratio(epsilon=2.0, b=0.7, beta=0.3, c=0.9)
    >>> abs(got - smooth_laplace_dp_delta(epsilon=2.0, b=0.7, beta=0.3) / (0.7 / (2 * 0.9))) < 1e-15
    True
    """
    with workdps(dps):
        v = to_values(dps, epsilon=epsilon, b=b, beta=beta, c=c)
        _check_b_beta(v)
        check("c", v["c"], 0, np.inf)
        out = evaluate(smooth_laplace_ratio_formula, v, dps)
        return finish(representable(out, "delta/chibar", dps), dps)


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

    Examples
    --------
    >>> import math
    >>> got = beta_bound(epsilon=2.0, b=0.5)
    >>> abs(got - (2.0 - 0.5) / (2.0 - 1 - math.log(0.5 / 4))) < 1e-15
    True
    """
    with workdps(dps):
        v = to_values(dps, epsilon=epsilon, b=b, C=C)
        check("epsilon", v["epsilon"], 0, np.inf)
        check("b", v["b"], 0, v["epsilon"])
        check("C", v["C"], 0, np.inf)
        B = backend_for(dps)
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

    Examples
    --------
    >>> import math
    >>> e, a, be, c = 1.0, 0.5, 0.1, 0.05
    >>> low, high = bprime_interval(epsilon=e, alpha=a, beta=be, c=c)
    >>> def slack(b):  # the requirement, met with equality at both ends
    ...     return 1 - 4 * math.exp(e - a - 1 - (e - a - b) / be) * c / b - math.exp(-a)
    >>> abs(slack(low)) < 1e-9, abs(slack(high)) < 1e-9, slack((low + high) / 2) > 0
    (True, True, True)
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
        B = backend_for(dps)
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
            representable(high, "the upper end b'", dps)
            # an end below the float64 range rounds up to the smallest positive float, so
            # that the interval holds only feasible b'
            return max(low, 5e-324), high
        with np.errstate(all="ignore"):
            z = -math.exp(L)
            low = -v["beta"] * float(B.lambertw(z, 0))
            high = -v["beta"] * float(B.lambertw(z, -1))
        return low, representable(high, "the upper end b'", dps)


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
        :math:`\\delta/\\bar\\chi` at :math:`\\bar\\chi = b'/(2c)` (caveat 4 of :mod:`garesearch.approx_dp`): at most
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

    Examples
    --------
    >>> res = search_smooth_laplace(epsilon=1.0, beta=0.1, c=0.05)
    >>> all(v >= 0 for v in res.slacks().values())  # every inequality of App. B.2 holds
    True
    >>> search_smooth_laplace(epsilon=1.0, beta=0.0, c=0.5).noise_scale  # pure DP: c / epsilon
    0.5
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
