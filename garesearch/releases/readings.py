r"""Other readings of epsilon, side by side with Eq. (main).

Each function turns a pure :math:`\epsilon` (or :math:`(\epsilon, \delta)`) into a number an
attacker or an agency can interpret:

- :func:`posterior_belief_bound`: the posterior of a two-hypothesis attacker with prior ``p``,
  :math:`p e^\epsilon / (1 - p + p e^\epsilon)` (Eq. (main) with ``q = 1 - p``, ``a = 1``).
- :func:`lee_clifton_posterior`, :func:`lee_clifton_epsilon`: J. Lee and C. Clifton, "How
  much is enough? Choosing epsilon for differential privacy", ISC 2011.  Their attacker knows
  the database up to which one of ``m`` *possible worlds* it is (the worlds differ in one
  individual), has the uniform prior :math:`1/m`, and sees a Laplace answer of scale
  :math:`\Delta f/\epsilon`; the query values of the worlds differ by at most
  :math:`\Delta v`.  They bound the posterior of the true world by
  :math:`1/(1 + (m-1)e^{-\epsilon\Delta v/\Delta f})` and choose
  :math:`\epsilon \le \frac{\Delta f}{\Delta v}\ln\frac{(m-1)\rho}{1-\rho}` for a target
  posterior :math:`\rho`.

  *Special case of Eq. (main).*  Take :math:`X'` = the true world, :math:`\hat X'` = the
  other :math:`m-1` worlds, so :math:`p = 1/m`, :math:`q = 1 - p`, :math:`q/p = m-1`.  The
  Laplace mechanism of scale :math:`\Delta f/\epsilon` is :math:`(\epsilon/\Delta f)`-DP per
  unit of query output, and two worlds are at most :math:`\Delta v` apart in output, so the
  density ratio is at most :math:`e^{\epsilon a}` with :math:`a = \Delta v/\Delta f` (the
  "sensitivity distance", in units of :math:`\Delta f`).  Eq. (main) with
  :math:`\delta = \rho - 1/m` then gives
  :math:`-\ln\bigl(\frac{1}{m-1}(\frac1\rho - 1)\bigr)/a = \ln\frac{(m-1)\rho}{1-\rho}\cdot
  \frac{\Delta f}{\Delta v}`, Lee and Clifton's epsilon.  garesearch implements it exactly
  that way (through :func:`garesearch.bound.epsilon_for_advantage`), and the tests check it
  against their closed form.
- :func:`worst_case_advantage`, :func:`epsilon_for_worst_case_advantage`: the largest
  advantage over all priors, :math:`\max_p (\Pr_{post} - p) = \tanh(\epsilon/4)`, i.e.
  :math:`\epsilon = 4\,\mathrm{artanh}\,\delta = 2\ln\frac{1+\delta}{1-\delta}`
  (:func:`garesearch.bound.worst_case_epsilon` at ``q = 1``).
- :func:`membership_advantage`: the hypothesis-testing reading (Wasserman and Zhou 2010;
  Kairouz, Oh and Viswanath 2015; f-DP of Dong, Roth and Su 2022): every test of
  "x" against "x'" has true-positive minus false-positive rate at most
  :math:`(e^\epsilon - 1 + 2\delta)/(e^\epsilon + 1)`.
- :func:`kazan_reiter_ratio`, :func:`kazan_reiter_epsilon`: Z. Kazan and J. P. Reiter,
  "Prior-itizing privacy: a Bayesian approach to setting the privacy budget in differential
  privacy", NeurIPS 2024 (arXiv:2306.13214).  For an :math:`\epsilon`-DP release and an
  attacker with prior ``p`` that the person is in the data (and ``q`` that its values are
  sensitive, default 1) the posterior-to-prior ratio is at most
  :math:`1/(pq + e^{-2\epsilon}(1-q)p + e^{-\epsilon}(1-p))`, at ``q = 1``
  :math:`e^\epsilon/(1 + p(e^\epsilon - 1))` (the posterior bound above divided by ``p``).
  An agency states a risk profile :math:`r^*(p, q)`, the largest acceptable ratio, and takes
  the largest :math:`\epsilon` meeting it at every prior.  Defined in
  :mod:`garesearch.releases.risk_profile` (with the profile of :math:`(\epsilon, \delta)`-DP and f-DP
  releases) and re-exported here.
"""

from __future__ import annotations

import numpy as np

from .. import bound
from .._args import renamed_keywords
from .._evaluate import check, finish, to_values, workdps
from ..errors import ParameterError
from .risk_profile import kazan_reiter_epsilon, kazan_reiter_ratio

__all__ = [
    "epsilon_for_worst_case_advantage",
    "kazan_reiter_epsilon",
    "kazan_reiter_ratio",
    "lee_clifton_epsilon",
    "lee_clifton_posterior",
    "membership_advantage",
    "plot_readings",
    "posterior_belief_bound",
    "worst_case_advantage",
]


def posterior_belief_bound(*, epsilon, p, dps: int | None = None):
    r"""Posterior bound of an attacker with prior ``p`` on one of two hypotheses (Sec. 3.2).

    .. math:: \Pr_{post} \le \frac{p e^\epsilon}{1 - p + p e^\epsilon}.

    Sec. 3.2's bound with the comparison set :math:`X \setminus X'` (``q = 1 - p``) and ``R = 1``.

    Parameters
    ----------
    epsilon : float or array_like
        Epsilon, ``>= 0``.
    p : float or array_like
        Prior of the hypothesis, in (0, 1).
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    float, ndarray or mpmath.mpf
        The bound on the posterior.

    Examples
    --------
    >>> import math
    >>> abs(float(posterior_belief_bound(epsilon=0.5, p=0.2)) - 0.2 / (0.2 + 0.8 * math.exp(-0.5))) < 1e-15
    True
    """
    return bound.posterior_bound(epsilon=epsilon, p=p, dps=dps)


def _world_prior(m, dps):
    """The uniform prior ``1/m`` of one of Lee and Clifton's ``m > 1`` worlds (float or mpmath)."""
    mm = to_values(dps, m=m)["m"]
    check("m", mm, 1, np.inf)
    return 1 / mm


def lee_clifton_posterior(*, epsilon, m, distance=1.0, dps: int | None = None):
    r"""Lee and Clifton's bound on the posterior of the true world among ``m`` (module doc).

    Not in the paper as such: J. Lee and C. Clifton, ISC 2011 (the paper's [LeeC11], Sec. 2),
    :math:`1/(1 + (m-1)e^{-\epsilon a})` with ``a = distance`` :math:`= \Delta v/\Delta f`.
    Computed as the posterior bound of Eq. (main) at :math:`p = 1/m`, :math:`q = 1 - 1/m`.

    Parameters
    ----------
    epsilon : float or array_like
        Epsilon of the Laplace answer, ``>= 0``.
    m : float or array_like
        Number of possible worlds, ``> 1``.
    distance : float or array_like
        :math:`a = \Delta v/\Delta f`, ``> 0``.
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    float, ndarray or mpmath.mpf
        The bound on the posterior of the true world.

    Examples
    --------
    >>> import math
    >>> abs(float(lee_clifton_posterior(epsilon=1.0, m=10)) - 1 / (1 + 9 * math.exp(-1.0))) < 1e-15
    True
    """
    with workdps(dps):  # 1/m and 1 - 1/m at the working precision
        p = _world_prior(m, dps)
        return bound.posterior_bound(epsilon=epsilon, p=p, q=1 - p, a=distance, dps=dps)


def lee_clifton_epsilon(*, rho, m, distance=1.0, dps: int | None = None):
    r"""Lee and Clifton's epsilon for a target posterior ``rho`` among ``m`` worlds (module doc).

    Not in the paper as such: J. Lee and C. Clifton, ISC 2011 (the paper's [LeeC11], Sec. 2),

    .. math:: \epsilon = \frac{1}{a}\ln\frac{(m-1)\rho}{1-\rho}, \qquad a = \Delta v/\Delta f,

    computed as Eq. (main) with :math:`p = 1/m`, :math:`q = 1 - p`, :math:`\delta = \rho - 1/m`.

    Parameters
    ----------
    rho : float or array_like
        Target posterior of the true world, in :math:`(1/m, 1)`.
    m : float or array_like
        Number of possible worlds, ``> 1``.
    distance : float or array_like
        :math:`a = \Delta v/\Delta f`, ``> 0``.
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    float, ndarray or mpmath.mpf
        The epsilon.

    Raises
    ------
    ParameterError
        Unless :math:`1/m < \rho < 1`.

    Examples
    --------
    >>> import math
    >>> abs(float(lee_clifton_epsilon(rho=0.5, m=10)) - math.log(9)) < 1e-14  # ln((m-1) rho/(1-rho))
    True
    """
    with workdps(dps):  # 1/m, rho - 1/m and 1 - 1/m at the working precision
        v = to_values(dps, m=m, rho=rho)  # checked and broadcast together
        p = _world_prior(v["m"], dps)
        r = v["rho"]
        check("rho - 1/m", r - p, 0, 1 - p)
        return bound.epsilon_for_advantage(delta=r - p, p=p, q=1 - p, a=distance, dps=dps)


def worst_case_advantage(*, epsilon):
    r"""Largest advantage over all priors, :math:`\tanh(\epsilon/4)` (Sec. 4.1, the worst prior).

    The inverse of :math:`\epsilon = 4\,\mathrm{artanh}\,\delta` (``q = 1``, ``R = 1``).

    Parameters
    ----------
    epsilon : float or array_like
        Epsilon, ``>= 0``.

    Returns
    -------
    float or ndarray
        The advantage, in [0, 1).

    Examples
    --------
    >>> import math
    >>> abs(float(worst_case_advantage(epsilon=2 * math.log(1.1 / 0.9))) - 0.1) < 1e-15  # tanh(eps/4)
    True
    """
    v = to_values(None, epsilon=epsilon)
    check("epsilon", v["epsilon"], 0, np.inf, low_open=False)
    return finish(np.tanh(v["epsilon"] / 4), None)


def epsilon_for_worst_case_advantage(*, delta, dps: int | None = None):
    r"""The epsilon that keeps every prior's advantage at most ``delta`` (Sec. 4.1, the worst prior).

    :math:`\epsilon = 4\,\mathrm{artanh}\,\delta = 2\ln\frac{1+\delta}{1-\delta}`: Sec. 4.1's
    :math:`f(p)` at the worst prior :math:`p = (1-\delta)/2` with ``q = 1`` and ``R = 1``.
    The reading's name for :func:`garesearch.bound.worst_case_epsilon` at ``q = 1``, which
    computes it.

    Parameters
    ----------
    delta : float or array_like
        Advantage, in (0, 1).
    dps : int, optional
        Evaluate with mpmath at this many digits.

    Returns
    -------
    float, ndarray or mpmath.mpf
        The epsilon, ``> 0``.

    Examples
    --------
    >>> round(float(epsilon_for_worst_case_advantage(delta=0.1)), 6)  # 2 ln(1.1/0.9)
    0.401341
    """
    return bound.worst_case_epsilon(delta=delta, q=1.0, dps=dps)


@renamed_keywords(delta="dp_delta")
def membership_advantage(*, epsilon, dp_delta=0.0):
    r"""Largest true-positive minus false-positive rate of a test between two neighbours.

    Not in the paper: the hypothesis-testing reading of :math:`(\epsilon,\delta)`-DP
    (Wasserman and Zhou 2010; Kairouz, Oh and Viswanath, ICML 2015),
    :math:`(e^\epsilon - 1 + 2\delta)/(e^\epsilon + 1)`, the corner of the privacy region
    :math:`\{\mathrm{FNR} \ge 1-\delta-e^\epsilon\mathrm{FPR},\
    \mathrm{FNR} \ge e^{-\epsilon}(1-\delta-\mathrm{FPR})\}`.

    Parameters
    ----------
    epsilon : float or array_like
        Epsilon, ``>= 0``.
    dp_delta : float or array_like
        The :math:`\delta` of :math:`(\epsilon,\delta)`-DP, in [0, 1]; default 0 (pure DP).
        (``delta=`` is its deprecated name.)

    Returns
    -------
    float or ndarray
        The advantage, in [0, 1].

    Examples
    --------
    >>> import math
    >>> abs(float(membership_advantage(epsilon=1.0, dp_delta=0.05)) - (math.e - 1 + 0.1) / (math.e + 1)) < 1e-15
    True
    """
    v = to_values(None, epsilon=epsilon, dp_delta=dp_delta)
    check("epsilon", v["epsilon"], 0, np.inf, low_open=False)
    check("dp_delta", v["dp_delta"], 0, 1, low_open=False, high_open=False)
    e = v["epsilon"]
    # (e^eps - 1 + 2 delta)/(e^eps + 1) = tanh(eps/2) + 2 delta/(e^eps + 1), without overflow
    out = np.tanh(e / 2) + 2 * v["dp_delta"] * np.exp(-np.logaddexp(0, e))
    return finish(np.minimum(out, 1.0), None)  # the exact value is at most 1; rounding is not


@renamed_keywords(delta="dp_delta")
def plot_readings(ax=None, *, epsilon=None, p=0.2, m=10, distance=1.0, dp_delta=0.0):
    r"""One chart: the readings of epsilon against epsilon.

    Left axis (probabilities): the posterior bound of Sec. 3.2 at prior ``p``; Lee and
    Clifton's posterior for ``m`` worlds; the worst-prior advantage :math:`\tanh(\epsilon/4)`
    (Sec. 4.1); the membership advantage of :math:`(\epsilon, \delta)`-DP.  Right axis: Kazan
    and Reiter's posterior-to-prior ratio bound at prior ``p``.  The chart itself is not in
    the paper; the sources of the readings are in the module docstring.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    epsilon : array_like, optional
        1-d grid of at least two epsilons; default 201 points in [0, 5].
    p : float
        Prior of the posterior bound and of Kazan and Reiter's ratio, in (0, 1).
    m : int
        Number of Lee and Clifton's possible worlds.
    distance : float
        Lee and Clifton's :math:`\Delta v/\Delta f`.
    dp_delta : float
        The DP delta of the membership advantage (``delta=`` is its deprecated name).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_readings(p=0.2, m=10)
    >>> len(ax.get_lines())
    4
    >>> import matplotlib.pyplot as plt
    >>> plt.close(ax.figure)
    """
    import matplotlib.pyplot as plt

    if epsilon is None:
        epsilon = np.linspace(0.0, 5.0, 201)
    e = np.asarray(epsilon, dtype=float)
    if e.ndim != 1 or e.size < 2:
        raise ParameterError("epsilon must be a 1-d array of at least two values")
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(e, posterior_belief_bound(epsilon=e, p=p), label=f"posterior bound, prior p={p:g}")
    ax.plot(e, lee_clifton_posterior(epsilon=e, m=m, distance=distance),
            label=f"Lee–Clifton posterior, m={m}")
    ax.plot(e, worst_case_advantage(epsilon=e), label=r"worst-prior advantage $\tanh(\epsilon/4)$")
    ax.plot(e, membership_advantage(epsilon=e, dp_delta=dp_delta),
            label=f"membership advantage (δ={dp_delta:g})")
    ax.set_xlabel(r"$\epsilon$")
    ax.set_ylabel("probability / advantage")
    ax.set_ylim(0, 1)
    ax2 = ax.twinx()
    ax2.plot(e, kazan_reiter_ratio(epsilon=e, p=p), "k--",
             label=f"Kazan–Reiter posterior/prior, p={p:g}")
    ax2.set_ylabel("posterior / prior")
    ax2.set_ylim(1, max(1.0 / p, 1.01))
    lines = ax.get_lines() + ax2.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], loc="lower right", fontsize=8)
    ax.set_title("Readings of epsilon")
    return ax
