r"""Trade-off curves and the Gaussian privacy profile of :mod:`garesearch.releases.accounting`.

Beyond the paper.  The closed forms of :math:`\mu`-GDP, of Laplace noise and of pure
:math:`\epsilon`-DP (Dong, Roth and Su, "Gaussian differential privacy", JRSS B 2022), the
trade-off curve of a privacy profile (their Prop. 2.12) and the exact trade-off curve of a
privacy-loss distribution (Kulynych et al., 2024, Algorithm 1).  Imported from
:mod:`garesearch.releases.accounting`, whose docstring gives the formulas.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..errors import ParameterError


def _alpha(alpha):
    a = np.asarray(alpha, dtype=float)
    if np.any(~np.isfinite(a)) or np.any((a < 0) | (a > 1)):
        raise ParameterError("alpha must lie in [0, 1]")
    return a


def _check_mu(mu):
    if not (isinstance(mu, (int, float, np.integer, np.floating)) and math.isfinite(mu) and mu >= 0):
        raise ParameterError(f"mu must be a finite number >= 0; got {mu!r}")
    return float(mu)


def gaussian_tradeoff(alpha, *, mu: float):
    r"""Trade-off curve of :math:`\mu`-GDP, :math:`\Phi(\Phi^{-1}(1-\alpha) - \mu)` (beyond the paper).

    Dong, Roth and Su (2022), Def. 2.7.

    Examples
    --------
    >>> round(float(gaussian_tradeoff(0.5, mu=0.0)), 12)
    0.5
    """
    from scipy.special import ndtr, ndtri

    a, m = _alpha(alpha), _check_mu(mu)
    out = ndtr(ndtri(1 - a) - m)
    return float(out) if out.ndim == 0 else out


def laplace_tradeoff(alpha, *, mu: float):
    r"""Trade-off curve of Laplace noise of scale ``b`` between inputs ``mu * b`` apart (beyond the paper).

    Dong, Roth and Su (2022), Sec. 2.4 (module docstring).

    Examples
    --------
    >>> laplace_tradeoff(0.3, mu=0.0)  # identical inputs: 1 - alpha
    0.7
    """
    a, m = _alpha(alpha), _check_mu(mu)
    with np.errstate(divide="ignore", over="ignore"):
        em = math.exp(-m)
        out = np.where(a < em / 2, 1 - a / em, np.where(a <= 0.5, em / (4 * np.maximum(a, 1e-300)), em * (1 - a)))
    out = np.clip(out, 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def pure_dp_tradeoff(alpha, *, epsilon: float, dp_delta: float = 0.0):
    r"""Trade-off curve of :math:`(\epsilon, \delta_{DP})`-DP (beyond the paper).

    :math:`\max(0, 1 - \delta - e^\epsilon\alpha, e^{-\epsilon}(1 - \delta - \alpha))`
    (Wasserman and Zhou 2010; Kairouz, Oh and Viswanath 2015; Dong, Roth and Su, Prop. 2.5).

    Examples
    --------
    >>> float(pure_dp_tradeoff(0.5, epsilon=0.0))
    0.5
    >>> import math
    >>> abs(float(pure_dp_tradeoff(0.1, epsilon=1.0)) - (1 - math.e * 0.1)) < 1e-15
    True
    """
    a = _alpha(alpha)
    if not (isinstance(epsilon, (int, float, np.integer, np.floating)) and epsilon >= 0):
        raise ParameterError(f"epsilon must be a number >= 0; got {epsilon!r}")
    if not 0 <= dp_delta <= 1:
        raise ParameterError(f"dp_delta must lie in [0, 1]; got {dp_delta!r}")
    e = float(epsilon)
    with np.errstate(over="ignore", invalid="ignore"):
        first = 1 - dp_delta - np.exp(e) * a if math.isfinite(e) else np.where(a > 0, 0.0, 1 - dp_delta)
        out = np.maximum(0.0, np.maximum(first, math.exp(-e) * (1 - dp_delta - a)))
    return float(out) if out.ndim == 0 else out


def gaussian_dp_delta(epsilon, *, mu: float):
    r""":math:`\delta(\epsilon)` of :math:`\mu`-GDP (beyond the paper; Dong, Roth and Su Cor. 2.13).

    .. math:: \delta(\epsilon) = \Phi(-\epsilon/\mu + \mu/2) - e^\epsilon\Phi(-\epsilon/\mu - \mu/2),

    evaluated in log space (accurate in the far tail).

    Examples
    --------
    >>> round(gaussian_dp_delta(0.0, mu=1.0), 10)  # 2 Phi(1/2) - 1
    0.3829249225
    """
    from scipy.special import log_ndtr

    m = _check_mu(mu)
    e = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(e)):
        raise ParameterError("epsilon must be finite")
    if m == 0:
        out = np.zeros_like(e)
    else:
        with np.errstate(divide="ignore"):
            big, small = log_ndtr(-e / m + m / 2), e + log_ndtr(-e / m - m / 2)
            out = np.where(small < big, np.exp(big) * -np.expm1(np.minimum(small - big, 0.0)), 0.0)
    out = np.clip(out, 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def gaussian_dp_epsilon(dp_delta: float, *, mu: float) -> float:
    r"""The smallest :math:`\epsilon \ge 0` with :func:`gaussian_dp_delta` at most ``dp_delta`` (beyond the paper).

    Examples
    --------
    >>> eps = gaussian_dp_epsilon(1e-5, mu=1.0)
    >>> abs(gaussian_dp_delta(eps, mu=1.0) - 1e-5) < 1e-12  # the inverse of gaussian_dp_delta
    True
    """
    from scipy.optimize import brentq

    m = _check_mu(mu)
    if not (isinstance(dp_delta, (int, float, np.integer, np.floating)) and 0 < dp_delta < 1):
        raise ParameterError(f"dp_delta must lie in (0, 1); got {dp_delta!r}")
    if gaussian_dp_delta(0.0, mu=m) <= dp_delta:
        return 0.0
    hi = max(1.0, m * m)
    while gaussian_dp_delta(hi, mu=m) > dp_delta:
        hi *= 2
    return float(brentq(lambda e: gaussian_dp_delta(e, mu=m) - dp_delta, 0.0, hi, xtol=1e-14, rtol=1e-13))


def tradeoff_from_profile(alpha, dp_delta: Callable, epsilons) -> np.ndarray:
    r"""Trade-off curve implied by a privacy profile on a grid of epsilons (beyond the paper).

    :math:`f(\alpha) = \max_{\epsilon} \max(0, 1 - \delta(\epsilon) - e^\epsilon\alpha,
    e^{-\epsilon}(1 - \delta(\epsilon) - \alpha))` (Dong, Roth and Su, Prop. 2.12); the
    maximum over a grid is at most the supremum, so the curve returned is a sound lower bound.

    Examples
    --------
    >>> import numpy as np
    >>> float(tradeoff_from_profile(0.25, lambda e: np.zeros_like(e), [0.0]))  # epsilon = 0: 1 - alpha
    0.75
    """
    a = _alpha(alpha)
    e = np.asarray(epsilons, dtype=float)
    d = np.asarray(dp_delta(e), dtype=float)
    flat = a.reshape(-1, 1)
    with np.errstate(over="ignore", invalid="ignore"):
        first = 1 - d - np.exp(e) * flat
        second = np.exp(-e) * (1 - d - flat)
    out = np.maximum(0.0, np.max(np.maximum(first, second), axis=1)).reshape(a.shape)
    return float(out) if out.ndim == 0 else out


def _pmf_arrays(pmf):
    """Losses (ascending), their probabilities and the mass at +inf of a ``dp_accounting`` PLD pmf."""
    dense = pmf.to_dense_pmf()
    probs = np.maximum(np.asarray(dense._probs, dtype=float), 0.0)
    losses = (dense._lower_loss + np.arange(probs.size)) * dense._discretization
    keep = probs > 0
    return losses[keep], probs[keep], float(dense._infinity_mass)


def _hockey_stick(arrays, epsilons):
    r""":math:`\delta(\epsilon) = m_\infty + \sum_{\ell > \epsilon} p_\ell (1 - e^{\epsilon - \ell})` of
    a pmf (:func:`_pmf_arrays`) at each of ``epsilons`` (any order), by suffix sums."""
    losses, probs, inf = arrays
    e = np.asarray(epsilons, dtype=float)
    upper = np.concatenate([np.cumsum(probs[::-1])[::-1], [0.0]])
    with np.errstate(under="ignore"):
        lower = np.concatenate([np.cumsum((probs * np.exp(-losses))[::-1])[::-1], [0.0]])
    i = np.searchsorted(losses, e, side="right")
    with np.errstate(over="ignore", invalid="ignore"):
        out = inf + upper[i] - np.exp(e) * lower[i]
    return np.clip(np.nan_to_num(out, nan=inf), 0.0, 1.0)


def _tradeoff_points(arrays):
    """Corners ``(alpha, beta)`` of the trade-off curve of a pmf (:func:`tradeoff_from_pld`)."""
    losses, probs, inf = arrays
    desc, p = losses[::-1], probs[::-1]
    with np.errstate(divide="ignore", under="ignore"):
        lower = np.exp(np.log(p) - desc)  # mass of each loss under the other distribution
    total = min(float(np.sum(p)), 1.0 - inf)  # mass the accountant dropped counts as +inf: lower beta
    a = np.minimum(np.concatenate([[0.0], np.cumsum(lower), [1.0]]), 1.0)
    b = np.concatenate([[total], np.maximum(total - np.cumsum(p), 0.0), [0.0]])
    last = np.append(a[1:] != a[:-1], True)  # at equal alpha the lowest beta
    return a[last], b[last]


def tradeoff_from_pld(alpha, pld):
    r"""The trade-off curve of a ``dp_accounting`` privacy-loss distribution, exactly (beyond the paper).

    For a pair with privacy loss :math:`L = \ln(Q/P)` (``Q`` the distribution the loss is drawn
    from in ``dp_accounting``'s convention), the most powerful test of ``P`` against ``Q``
    rejects for large :math:`L`, randomising at the threshold (Neyman-Pearson).  With the
    losses :math:`\ell_1 > \ell_2 > \dots` of masses :math:`q_i` under ``Q`` (so
    :math:`q_i e^{-\ell_i}` under ``P``) and :math:`m_\infty` at :math:`+\infty`, the curve
    is piecewise linear through

    .. math:: \Bigl(\sum_{i \le j} q_i e^{-\ell_i},\; 1 - m_\infty - \sum_{i \le j} q_i\Bigr),
              \quad j = 0, 1, \dots,

    and flat at 0 from the last corner to :math:`\alpha = 1` (Kulynych et al., 2024,
    Algorithm 1; Dong, Roth and Su, Prop. 2.2).  A distribution built with
    ``pessimistic_estimate=True`` dominates the mechanism's pair, so its curve lies at or below
    the mechanism's (a lower bound: safe); mass the accountant truncated is counted at
    :math:`+\infty`.  An asymmetric distribution (subsampled, add-or-remove) has a curve per
    direction; the lower of the two is returned, a bound on every test between the two inputs.

    Parameters
    ----------
    alpha : float or array
        Type-I errors in [0, 1].
    pld : dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution

    Returns
    -------
    float or ndarray
        :math:`f(\alpha)`.

    Examples
    --------
    >>> from dp_accounting.pld import privacy_loss_distribution as pl
    >>> pld = pl.from_laplace_mechanism(1.0, value_discretization_interval=1e-4)
    >>> f = tradeoff_from_pld(0.1, pld)
    >>> bool(laplace_tradeoff(0.1, mu=1.0) - 1e-3 < f <= laplace_tradeoff(0.1, mu=1.0))
    True
    """
    a = _alpha(alpha)
    pmfs = [pld._pmf_remove] if pld._symmetric else [pld._pmf_remove, pld._pmf_add]
    out = None
    for pmf in pmfs:
        xs, ys = _tradeoff_points(_pmf_arrays(pmf))
        f = np.interp(a, xs, ys)
        out = f if out is None else np.minimum(out, f)
    out = np.clip(out, 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def _pld_tradeoff(pld) -> Callable:
    """:func:`tradeoff_from_pld` with the corners computed once."""
    pmfs = [pld._pmf_remove] if pld._symmetric else [pld._pmf_remove, pld._pmf_add]
    corners: list = []

    def tradeoff(alpha):
        a = _alpha(alpha)
        if not corners:
            corners.extend(_tradeoff_points(_pmf_arrays(pmf)) for pmf in pmfs)
        out = np.min([np.interp(a, xs, ys) for xs, ys in corners], axis=0)
        out = np.clip(out, 0.0, 1.0)
        return float(out) if out.ndim == 0 else out

    return tradeoff
