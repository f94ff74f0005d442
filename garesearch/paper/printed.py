r"""The paper's expressions as printed, right or wrong, each written once.

Every function takes a backend ``B`` (:data:`garesearch._backend.NUMPY` for floats,
:data:`~garesearch._backend.MPMATH` for any number of digits, or
:func:`~garesearch._backend.sympy_backend` for the symbolic expression) where it needs more
than arithmetic, so the derivations (sympy) and the claims (numbers) evaluate the same
expression.  Where the paper's expression is wrong, the function reproduces the error; the
derivation named in its docstring proves or refutes it, and the library (for example
:mod:`garesearch.bound`) holds the corrected or more accurate form.

Examples
--------
>>> from garesearch._backend import NUMPY
>>> round(float(eps_main(0.1, 0.2, 0.8, 1.0, NUMPY)), 4)   # Sec. 6.1, the cats AND event
0.539
"""

from __future__ import annotations

from typing import Any

from .._backend import NUMPY  # noqa: F401  (the examples use it)

__all__ = [
    "adp_chain",
    "alpha_condition",
    "b1_bound",
    "b1_chi_for_advantage",
    "bprime",
    "discrete_worst_prior",
    "eps_lb",
    "eps_main",
    "eps_ub",
    "laplace_delta_over_chibar",
    "ndim_optimum",
    "optimal_radius_bound_1d",
    "posterior_bound",
    "theorem2_eps",
    "worst_prior_critical_point",
    "worst_prior_derivative",
    "worst_prior_objective",
]


# ------------------------------------------------------------------------------------------
# Sec. 3.2
# ------------------------------------------------------------------------------------------
def posterior_bound(epsilon, p, q, distance, B) -> Any:
    r"""Sec. 3.2: :math:`1/(1 + e^{-\epsilon a} q/p)` (``q = 1 - p``, ``a = R`` in the first
    display; derivation ``posterior_bound_sec32``).

    Examples
    --------
    >>> round(float(posterior_bound(0.7, 0.3, 0.7, 1.0, NUMPY)), 6)
    0.463242
    """
    return 1 / (1 + B.exp(-epsilon * distance) * q / p)


def eps_main(delta, p, q, distance, B) -> Any:
    r"""Eq. (main): :math:`-\ln(\frac{p}{q}(\frac{1}{\delta+p}-1))/a` (derivation ``eq_main``;
    Theorem 1 is this with product masses).

    Examples
    --------
    >>> round(float(eps_main(0.1, 0.2, 0.5, 2.0, NUMPY)), 6)
    0.034496
    """
    return -B.log(p / q * (1 / (delta + p) - 1)) / distance


def eps_lb(delta, p, distance, B) -> Any:
    r"""Sec. 3.2, :math:`\epsilon_{lb}`: Eq. (main) with ``q = 1 - p``.

    Examples
    --------
    >>> round(float(eps_lb(0.1, 0.2, 1.0, NUMPY)), 6)   # Sec. 6.1, black cat
    0.538997
    """
    return eps_main(delta, p, 1 - p, distance, B)


def eps_ub(delta, p, distance, B) -> Any:
    r"""Sec. 3.2, :math:`\epsilon_{ub} = -\ln(\frac{1-p}{p}(\frac{1}{\delta+1-p}-1))/R`.

    Examples
    --------
    >>> round(float(eps_ub(0.1, 0.525, 1.0, NUMPY)), 6)   # Sec. 6.1, tortoise (OR)
    0.402364
    """
    return -B.log((1 - p) / p * (1 / (delta + 1 - p) - 1)) / distance


# ------------------------------------------------------------------------------------------
# Sec. 4.1, the worst prior
# ------------------------------------------------------------------------------------------
def worst_prior_objective(p, delta, q, distance, B) -> Any:
    r"""Sec. 4.1: :math:`f(p) = -\ln(\frac{p}{q-p}(\frac{1}{\delta+p}-1))/R` (``q = 1``:
    the comparison set is everything else).

    Examples
    --------
    >>> round(float(worst_prior_objective(0.45, 0.1, 1, 1, NUMPY)), 6)   # 2 ln(1.1/0.9)
    0.401341
    """
    return eps_main(delta, p, q - p, distance, B)


def worst_prior_derivative(p, delta, q, distance) -> Any:
    r"""Sec. 4.1, :math:`df/dp` as printed:
    :math:`(\frac{1}{(p+\delta)-(p+\delta)^2} - \frac{1}{(q-p)-(q-p)^2})/R` (right for
    ``q = 1``: ``worst_prior_q1_derivative``; wrong otherwise:
    ``worst_prior_general_q_derivative``).

    Examples
    --------
    >>> round(worst_prior_derivative(0.45, 0.1, 1, 1), 12)   # zero at (1 - delta)/2
    0.0
    """
    return (1 / ((p + delta) - (p + delta) ** 2) - 1 / ((q - p) - (q - p) ** 2)) / distance


def worst_prior_critical_point(delta, q) -> Any:
    r"""Sec. 4.1, general ``q``, the printed critical point
    :math:`\frac{\delta(1-\delta)+q(1-q)}{2(\delta+q-1)}` (``worst_prior_general_q_paper_point``).

    Examples
    --------
    >>> round(worst_prior_critical_point(0.1, 0.95), 6)   # not in (0, q)
    1.375
    """
    return (delta * (1 - delta) + q * (1 - q)) / (2 * (delta + q - 1))


def discrete_worst_prior(epsilon, B) -> Any:
    r"""Sec. 4.1, discrete priors: the printed worst case :math:`p' = 1/(1+e^{-\epsilon/2})`
    (``discrete_worst_prior``: the sign of the exponent is wrong).

    Examples
    --------
    >>> import math
    >>> round(float(discrete_worst_prior(2 * math.log(1.1 / 0.9), NUMPY)), 6)   # (1 + delta)/2
    0.55
    """
    return 1 / (1 + B.exp(-epsilon / 2))


# ------------------------------------------------------------------------------------------
# Sec. 4.3, Theorem 2
# ------------------------------------------------------------------------------------------
def theorem2_eps(delta, prior, alpha, distance, B) -> Any:
    r"""Theorem 2: :math:`\epsilon_k = -\ln(\alpha_k(\frac{1}{\delta + \text{prior}} - 1))/a`;
    printed with the block's prior (``or_eps_k_delta_term``: the derivation gives the whole
    event's prior).

    Examples
    --------
    >>> round(float(theorem2_eps(0.1, 0.3, 0.6, 1.0, NUMPY)), 6)
    0.105361
    """
    return -B.log(alpha * (1 / (delta + prior) - 1)) / distance


# ------------------------------------------------------------------------------------------
# App. A
# ------------------------------------------------------------------------------------------
def optimal_radius_bound_1d(epsilon, r, B) -> Any:
    r"""App. A, ``n = 1``: the bound at the best radius,
    :math:`1/(1 + (e^{\epsilon r + 1}\epsilon r)^{-1})` (``optimal_radius_1d``).

    Examples
    --------
    >>> round(float(optimal_radius_bound_1d(0.5, 1.0, NUMPY)), 6)
    0.691438
    """
    return 1 / (1 + 1 / (B.exp(epsilon * r + 1) * epsilon * r))


def ndim_optimum(epsilon, r, n, B) -> Any:
    r"""App. A, Eq. (multdim): the minimum of :math:`e^{a\epsilon}(r/a)^n`,
    :math:`(\epsilon e r/n)^n` (``optimal_radius_ndim``).

    Examples
    --------
    >>> round(float(ndim_optimum(0.5, 1.0, 3, NUMPY)), 6)
    0.092989
    """
    return (epsilon * B.e * r / n) ** n


# ------------------------------------------------------------------------------------------
# App. B (``dp_delta`` is the delta of (epsilon, delta)-DP)
# ------------------------------------------------------------------------------------------
def b1_bound(epsilon, dp_delta, chi, p, q, B) -> Any:
    r"""App. B.1, the final bound :math:`1/(1 + \frac{1}{e^\epsilon + \delta/\chi}\cdot q/p)`
    (``approx_posterior_chain``).

    Examples
    --------
    >>> round(float(b1_bound(0.5, 0.01, 1.0, 0.5, 0.5, NUMPY)), 6)
    0.623879
    """
    return 1 / (1 + 1 / (B.exp(epsilon) + dp_delta / chi) * q / p)


def b1_chi_for_advantage(epsilon, dp_delta, p, q, advantage, B) -> Any:
    r"""App. B.1, :math:`\epsilon'` fixed: :math:`\chi \ge \delta/(\frac{p+\epsilon'}
    {1-(p+\epsilon')}\frac qp - e^\epsilon)` (``approx_eps_fixed``).

    Examples
    --------
    >>> chi = b1_chi_for_advantage(0.5, 0.05, 0.2, 0.7, 0.3, NUMPY)
    >>> round(float(b1_bound(0.5, 0.05, chi, 0.2, 0.7, NUMPY)), 12)   # p + eps'
    0.5
    """
    s = p + advantage
    return dp_delta / (s / (1 - s) * q / p - B.exp(epsilon))


def adp_chain(epsilon, dp_delta, chibar, p, q, B) -> tuple[Any, Any, Any]:
    r"""App. B.2, the three printed forms of the bound (``approx_dp_chain``):
    :math:`1/(1 + \frac{1}{e^\epsilon + \delta/(e^{-\epsilon}(\bar\chi - \delta))}\frac qp)`,
    :math:`1/(1 + e^{-\epsilon}\frac{1}{1 + \delta/(\bar\chi-\delta)}\frac qp)` and
    :math:`1/(1 + e^{-\epsilon}(1 - \delta/\bar\chi)\frac qp)`.

    Examples
    --------
    >>> [round(float(v), 6) for v in adp_chain(0.5, 0.05, 0.4, 0.3, 0.6, NUMPY)]
    [0.4851, 0.4851, 0.4851]
    """
    first = 1 / (1 + 1 / (B.exp(epsilon) + dp_delta / (B.exp(-epsilon) * (chibar - dp_delta))) * q / p)
    second = 1 / (1 + B.exp(-epsilon) * (1 / (1 + dp_delta / (chibar - dp_delta))) * q / p)
    third = 1 / (1 + B.exp(-epsilon) * (1 - dp_delta / chibar) * q / p)
    return first, second, third


def laplace_delta_over_chibar(epsilon, b, beta, c, B) -> Any:
    r"""App. B.2, Laplace noise: :math:`\delta/\bar\chi = 4e^{\epsilon-1-(\epsilon-b)/\beta}c/b`
    (``laplace_substitution``).

    Examples
    --------
    >>> round(float(laplace_delta_over_chibar(1.0, 0.5, 0.2, 0.3, NUMPY)), 6)
    0.197004
    """
    return 4 * B.exp(epsilon - 1 - (epsilon - b) / beta) * c / b


def alpha_condition(epsilon, alpha, beta, c, b_prime, B) -> tuple[Any, Any]:
    r"""App. B.2, the printed requirement: ``(lhs, rhs)`` of
    :math:`1 - 4e^{\epsilon-\alpha-1-(\epsilon-\alpha-b')/\beta}c/b' \ge e^{-\alpha\epsilon}`
    (``alpha_typo``: the right side should be :math:`e^{-\alpha}`).

    Examples
    --------
    >>> b = bprime(2.0, 0.5, 0.2, 0.01, NUMPY)
    >>> [round(float(v), 6) for v in alpha_condition(2.0, 0.5, 0.2, 0.01, b, NUMPY)]   # e^-0.5, e^-1
    [0.606531, 0.367879]
    """
    lhs = 1 - laplace_delta_over_chibar(epsilon - alpha, b_prime, beta, c, B)
    return lhs, B.exp(-alpha * epsilon)


def bprime(epsilon, alpha, beta, c, B, branch: int = 0) -> Any:
    r"""App. B.2: :math:`b' = -\beta W(-4ce^{\epsilon-\alpha-1-(\epsilon-\alpha)/\beta}/
    ((1-e^{-\alpha})\beta))` (principal branch as printed; ``bprime_lambert``).

    Examples
    --------
    >>> float(bprime(2.0, 0.5, 0.2, 0.01, NUMPY)) < float(bprime(2.0, 0.5, 0.2, 0.01, NUMPY, branch=-1))
    True
    """
    exponent = epsilon - alpha - 1 - (epsilon - alpha) / beta
    return -beta * B.lambertw(-4 * c * B.exp(exponent) / ((1 - B.exp(-alpha)) * beta), branch)
