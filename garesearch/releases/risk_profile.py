r"""Kazan and Reiter's risk profile: the posterior-to-prior ratio of disclosure, over priors ``(p, q)``.

Not in the paper: Z. Kazan and J. P. Reiter, "Prior-itizing privacy: a Bayesian approach to
setting the privacy budget in differential privacy", NeurIPS 2024 (arXiv:2306.13214).  An
adversary targets individual ``i``: ``p`` is its prior that ``i`` is in the data
(:math:`\Pr[I_i = 1]`) and ``q`` its prior that ``i``'s values lie in a sensitive set ``S``
given inclusion (:math:`\Pr[Y_i \in S \mid I_i = 1]`).  The *relative disclosure risk* of a
release ``t`` is the posterior-to-prior ratio of the event :math:`\{Y_i \in S, I_i = 1\}`,

.. math:: r(p, q, t) = \frac{\Pr[Y_i \in S, I_i = 1 \mid T = t]}{pq}
   = \frac{1}{pq + p(1-q)\,L_N(t) + (1-p)\,L_0(t)},

with :math:`L_N = \Pr[t \mid Y_i \notin S, I_i = 1]/\Pr[t \mid Y_i \in S, I_i = 1]` and
:math:`L_0 = \Pr[t \mid I_i = 0]/\Pr[t \mid Y_i \in S, I_i = 1]` (their Eq. (66); the
adversary knows the mechanism and its beliefs about the other records do not depend on ``i``:
their Assumptions 1 and 2).  DP is *unbounded* (add or remove one record): the output
distributions :math:`D_S`, :math:`D_N` (``i`` in the data, value in or out of ``S``) are each
neighbours of :math:`D_0` (``i`` absent), so :math:`D_S` and :math:`D_N` are two steps apart.

**Pure epsilon-DP** (their Theorem 1): :math:`L_0 \ge e^{-\epsilon}`, :math:`L_N \ge e^{-2\epsilon}`, so

.. math:: r \le R_\epsilon(p, q) = \frac{1}{pq + e^{-2\epsilon}(1-q)p + e^{-\epsilon}(1-p)}
   \qquad (:func:`kazan_reiter_ratio`),

and an agency that accepts a ratio :math:`r^*(p, q)` takes the largest :math:`\epsilon` with
:math:`R_\epsilon \le r^*` at every prior (their Theorem 2 and Eq. (13),
:func:`kazan_reiter_epsilon`).  The bound is attained (shown here, not in their paper): the
two-output mechanism of :func:`kazan_reiter_mechanism` meets it with equality.

**Approximate and f-DP** (derived here; Kazan and Reiter leave it open, their Sec. 7).  With
:math:`\delta_{DP} > 0`, or Gaussian noise, the ratio itself is unbounded short of
:math:`1/(pq)` (a certain disclosure): an output of probability at most :math:`\delta_{DP}` may
occur only when ``i`` is in ``S``.  What can be bounded is how likely a release raises it:
for a trade-off curve ``f`` (f-DP, Dong, Roth and Su 2022; :math:`(\epsilon,\delta)`-DP is
:math:`f(\alpha) = \max(0, 1-\delta-e^\epsilon\alpha, e^{-\epsilon}(1-\delta-\alpha))`,
:math:`\mu`-GDP is :math:`\Phi(\Phi^{-1}(1-\alpha) - \mu)`), the largest probability, over every
mechanism with that guarantee, that the release of a person in ``S`` moves the ratio above
``R`` is the largest :math:`b \in [0, 1]` with

.. math:: p(1-q)\,f\bigl(1 - f(1 - b)\bigr) + (1-p)\,f(1-b) \le \Bigl(\frac1R - pq\Bigr)\,b

(:func:`kazan_reiter_beta`), and inverting, the ratio that is exceeded with probability at
most :math:`\beta` is

.. math:: R_\beta(p, q) = \frac{1}{pq + p(1-q)\,f\bigl(1 - f(1-\beta)\bigr)/\beta
   + (1-p)\,f(1-\beta)/\beta}  \qquad (:func:`kazan_reiter_profile`).

*Proof.*  Let ``B`` be the outputs where :math:`r > R` and
:math:`b = D_S(B)`, :math:`a_0 = D_0(B)`, :math:`a_N = D_N(B)`.  The test that rejects
:math:`D_S` outside ``B`` has type-I error :math:`1 - b` and type-II error :math:`a_0`, so
:math:`a_0 \ge f(1-b)`; likewise :math:`a_N \ge f(1 - a_0) \ge f(1 - f(1-b))` (``f`` falls,
so :math:`f(1-\cdot)` rises).  Integrating :math:`p(1-q)\,dD_N + (1-p)\,dD_0 < (1/R - pq)\,dD_S`
over ``B`` gives the inequality above.  Conversely the two-output mechanism with
:math:`D_S = (b, 1-b)`, :math:`D_0 = (f(1-b), \cdot)`, :math:`D_N = (f(1-f(1-b)), \cdot)` has
its kinks on ``f`` and ``f`` is convex, so each neighbouring pair is f-DP, and its ratio at the
first output is exactly the bound.  The left side is convex in ``b`` and 0 at ``b = 0``, so the
feasible ``b`` form an interval :math:`[0, b^*]`.  Mixtures over the other records keep f-DP
(``f`` is convex), so Kazan and Reiter's Assumption 2 carries the argument over to their
setting. :math:`\square`

As :math:`\beta \to 0`, :math:`f(1-\beta)/\beta \to e^{-\epsilon}` for pure
:math:`\epsilon`-DP (Theorem 1 again, and :math:`R_\beta` stays at Theorem 1's value for every
:math:`\beta \le e^\epsilon/(1 + e^\epsilon)`), and to 0 for :math:`\delta_{DP} > 0` or Gaussian
noise (the bound :math:`1/(pq)`).  With ``q = 1`` only inclusion matters (``p`` alone,
:func:`garesearch.releases.readings.kazan_reiter_ratio` before ``q`` was added).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .._evaluate import as_float_array, check, finish, first_bad, to_values
from ..errors import InfeasibleError, ParameterError

__all__ = [
    "kazan_reiter_beta",
    "kazan_reiter_epsilon",
    "kazan_reiter_mechanism",
    "kazan_reiter_profile",
    "kazan_reiter_ratio",
    "plot_kazan_reiter_profile",
]


def _ratio(p, q, x0, xn):
    r""":math:`1/(pq + p(1-q)x_N + (1-p)x_0)`: the ratio when :math:`L_0 = x_0`, :math:`L_N = x_N`
    (Kazan and Reiter's Eq. (66)); the one place the formula is written."""
    with np.errstate(all="ignore"):
        out = 1.0 / (p * q + p * (1 - q) * xn + (1 - p) * x0)
    if not np.all(np.isfinite(out)):
        raise ParameterError("the ratio bound exceeds the float64 range (about 1.8e308) for these priors")
    return out


def kazan_reiter_ratio(*, epsilon, p, q=1.0):
    r"""Kazan and Reiter's bound on the posterior-to-prior ratio for an epsilon-DP release.

    Not in the paper: Z. Kazan and J. P. Reiter, NeurIPS 2024 (arXiv:2306.13214), Theorem 1,

    .. math:: r \le \frac{1}{pq + e^{-2\epsilon}(1-q)p + e^{-\epsilon}(1-p)},

    attained by a two-output mechanism (module docstring).  With ``q = 1`` it is
    :math:`e^\epsilon/(1 + p(e^\epsilon - 1))`, the posterior bound of Sec. 3.2 (``q = 1 - p``,
    ``R = 1``) divided by ``p``.

    Parameters
    ----------
    epsilon : float or array_like
        Epsilon of unbounded DP (adding or removing one record), ``>= 0``.
    p : float or array_like
        Prior that the individual is in the data, in (0, 1].
    q : float or array_like
        Prior that its values lie in the sensitive set, given inclusion, in (0, 1].

    Returns
    -------
    float or ndarray
        The ratio bound, in :math:`[1, e^{2\epsilon}]`.

    Examples
    --------
    >>> round(kazan_reiter_ratio(epsilon=1.0, p=0.5), 6)  # 2e / (1 + e)
    1.462117
    >>> round(kazan_reiter_ratio(epsilon=1.0, p=1.0, q=0.25), 6)  # 1 / (1/4 + 3/(4 e^2))
    2.844938
    """
    v = to_values(None, epsilon=epsilon, p=p, q=q)
    check("epsilon", v["epsilon"], 0, np.inf, low_open=False)
    check("p", v["p"], 0, 1, high_open=False)
    check("q", v["q"], 0, 1, high_open=False)
    e = v["epsilon"]
    return finish(_ratio(v["p"], v["q"], np.exp(-e), np.exp(-2 * e)), None)


def _theorem2(p, q, r):
    r"""Kazan and Reiter's Theorem 2: the largest epsilon with ratio bound ``r`` at ``(p, q)`` (``r p q < 1``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        c = 1.0 / r - p * q  # > 0
        # q = 1: e^{-eps} = c / (1 - p); else the positive root of p(1-q) x^2 + (1-p) x - c
        lin = np.log1p(-p) - np.log(c)
        a, b = p * (1 - q), 1 - p
        x = 2 * c / (b + np.sqrt(b * b + 4 * a * c))  # the root, without cancellation
        quad = -np.log(x)
    return np.where(q >= 1, lin, quad)


def kazan_reiter_epsilon(profile: float | Callable, *, p, q=None):
    r"""The largest epsilon whose ratio bound meets the risk profile at every prior ``(p, q)``.

    Not in the paper: Z. Kazan and J. P. Reiter, NeurIPS 2024 (arXiv:2306.13214), Theorem 2 and
    Eq. (13): :math:`\epsilon = \min_{(p, q)} \epsilon(p, q)` with

    .. math:: \epsilon(p, q) = \ln\frac{2p(1-q)}{\sqrt{(1-p)^2 + 4p(1-q)(1/r^* - pq)} - (1-p)},
       \qquad \epsilon(p, 1) = \ln\frac{1-p}{1/r^* - p},

    (priors with :math:`r^*(p, q)\,pq \ge 1` impose nothing: the posterior cannot exceed 1).
    The minimum is taken over the priors given (a grid: include the kinks of the profile).

    Parameters
    ----------
    profile : float or callable
        :math:`r^*(p, q) > 1`: a constant, or a function of ``p`` (when ``q`` is not given) or
        of ``(p, q)`` (vectorised).
    p : array_like
        Priors of inclusion to protect, in (0, 1].
    q : array_like, optional
        Priors of the sensitive values (broadcast with ``p``), in (0, 1]; default 1 (only
        inclusion matters, Kazan and Reiter's ``q = 1`` branch).

    Returns
    -------
    float
        The epsilon; ``inf`` if no prior constrains it.

    Raises
    ------
    InfeasibleError
        If some constraining :math:`r^*(p, q) \le 1` (only epsilon = 0 meets it).

    Examples
    --------
    >>> import numpy as np
    >>> round(kazan_reiter_epsilon(3.0, p=1.0, q=np.linspace(1e-6, 1, 10001)), 4)  # ln(3)/2
    0.5493
    >>> round(kazan_reiter_epsilon(lambda p: np.maximum(0.25 / p, 1.5), p=[1 / 6]), 2)  # Table 1, A
    0.51
    """
    two = q is not None
    pp = np.atleast_1d(to_values(None, p=p)["p"])
    qq = np.atleast_1d(to_values(None, q=1.0 if q is None else q)["q"])
    try:
        pp, qq = np.broadcast_arrays(pp, qq)
    except ValueError:
        raise ParameterError(f"p and q must broadcast together; got shapes {pp.shape} and {qq.shape}") from None
    if pp.size == 0:
        raise ParameterError("p must hold at least one prior")
    check("p", pp, 0, 1, high_open=False)
    check("q", qq, 0, 1, high_open=False)
    if callable(profile):
        r = profile(pp, qq) if two else profile(pp)
    else:
        r = profile
    r = as_float_array("profile", r)
    try:
        r = np.broadcast_to(r, pp.shape)
    except ValueError:
        raise ParameterError(f"profile must give one ratio per prior ({pp.size}); got shape {r.shape}") from None
    if np.any(np.isnan(r)) or np.any(np.isneginf(r)):
        raise ParameterError(f"profile must give ratios r*(p, q) (inf: no bound); got {first_bad(r, np.isnan(r))}")
    binding = r * pp * qq < 1
    if not np.any(binding):
        return float("inf")
    if np.any(r[binding] <= 1):
        raise InfeasibleError("a risk profile r*(p, q) <= 1 allows no information: epsilon = 0")
    return float(np.min(_theorem2(pp[binding], qq[binding], r[binding])))


# ------------------------------------------------------------------------------------------
# f-DP: the tail of the ratio (module docstring)
# ------------------------------------------------------------------------------------------
def _guarantee(epsilon, dp_delta, mu, tradeoff):
    """The two functions ``x -> f(1 - x)`` and ``x -> f(1 - f(1 - x))`` and ``s = lim f(1-x)/x``."""
    given = sum(v is not None for v in (epsilon, mu, tradeoff))
    if given != 1:
        raise ParameterError("give exactly one of epsilon (with dp_delta), mu (Gaussian DP) and tradeoff")
    if epsilon is not None:
        v = to_values(None, epsilon=epsilon, dp_delta=dp_delta)
        e, d = float(v["epsilon"]), float(v["dp_delta"])
        if np.ndim(v["epsilon"]) or np.ndim(v["dp_delta"]):
            raise ParameterError("epsilon and dp_delta must be single numbers")
        check("epsilon", e, 0, np.inf, low_open=False)
        check("dp_delta", d, 0, 1, low_open=False)
        ee, em = math.exp(e) if e < 700 else math.inf, math.exp(-e)

        def f1m(x):  # f(1 - x) = max(0, 1 - d - e^eps (1 - x), e^-eps (x - d))
            with np.errstate(all="ignore"):
                first = np.where(np.isinf(ee), np.where(x >= 1, 1 - d, 0.0), 1 - d - ee * (1 - x))
            return np.maximum(0.0, np.maximum(first, em * (x - d)))

        return f1m, em if d == 0 else 0.0, f"({e:g}, {d:g})-DP"
    if mu is not None:
        m = float(to_values(None, mu=mu)["mu"])
        check("mu", m, 0, np.inf, low_open=False)
        from scipy.special import ndtr, ndtri

        def f1m(x):  # Phi(Phi^{-1}(x) - mu)
            return ndtr(ndtri(x) - m)

        return f1m, 1.0 if m == 0 else 0.0, f"{m:g}-GDP"
    if not callable(tradeoff):
        raise ParameterError("tradeoff must be a callable trade-off curve f(alpha) (vectorised)")

    def f1m(x):
        return np.clip(np.asarray(tradeoff(1 - np.asarray(x, float)), float), 0.0, 1.0)

    return f1m, None, "f-DP"


def _g(f1m, x):
    """``(f(1 - x), f(1 - f(1 - x)))``: the least masses of the outputs where ``D_S`` has ``x``."""
    a0 = np.asarray(f1m(x), float)
    return a0, np.asarray(f1m(a0), float)


def kazan_reiter_profile(*, p, q=1.0, beta=0.0, epsilon=None, dp_delta=0.0, mu=None, tradeoff=None):
    r"""The posterior-to-prior ratio exceeded with probability at most ``beta``, over every mechanism.

    Not in the paper: Kazan and Reiter's relative disclosure risk (NeurIPS 2024, Eq. (4)) for
    an :math:`(\epsilon, \delta_{DP})`-DP, :math:`\mu`-GDP or f-DP release, derived and proved
    in the module docstring:

    .. math:: R_\beta(p, q) = \frac{1}{pq + p(1-q)\,f(1 - f(1-\beta))/\beta + (1-p)\,f(1-\beta)/\beta}.

    ``beta = 0`` is the largest ratio itself: Theorem 1 for pure epsilon-DP
    (:func:`kazan_reiter_ratio`), :math:`1/(pq)` (certain disclosure possible) otherwise.
    Every mechanism with the guarantee keeps the ratio at most :math:`R_\beta` except on
    outputs of probability at most :math:`\beta` for a person in the sensitive set, and a
    two-output mechanism attains it (:func:`kazan_reiter_mechanism`).

    Parameters
    ----------
    p, q : float or array_like
        Priors of inclusion and of the sensitive values given inclusion, in (0, 1].
    beta : float or array_like
        Probability allowed above the ratio, in [0, 1].
    epsilon, dp_delta : float, optional
        :math:`(\epsilon, \delta_{DP})`-DP (unbounded DP); ``dp_delta`` default 0.
    mu : float, optional
        :math:`\mu`-GDP (Gaussian noise of scale :math:`\sigma`: :math:`\mu = \Delta/\sigma`,
        ``k`` releases :math:`\sqrt k\Delta/\sigma`).
    tradeoff : callable, optional
        A trade-off curve :math:`f(\alpha)` (vectorised), e.g.
        :meth:`garesearch.releases.accounting.PrivacyProfile.tradeoff` (a lower bound on ``f`` gives an
        upper bound on the ratio, so the accountant's curve is sound); needs ``beta > 0``.

    Returns
    -------
    float or ndarray
        The ratio, in :math:`[1, 1/(pq)]`.

    Examples
    --------
    >>> round(kazan_reiter_profile(p=0.5, beta=0.0, epsilon=1.0), 6)  # Theorem 1
    1.462117
    >>> kazan_reiter_profile(p=0.5, beta=0.0, epsilon=1.0, dp_delta=1e-6)  # 1/(pq): unbounded
    2.0
    >>> round(kazan_reiter_profile(p=0.5, beta=1e-3, epsilon=1.0, dp_delta=1e-6), 6)
    1.46251
    """
    f1m, s, _ = _guarantee(epsilon, dp_delta, mu, tradeoff)
    v = to_values(None, p=p, q=q, beta=beta)
    check("p", v["p"], 0, 1, high_open=False)
    check("q", v["q"], 0, 1, high_open=False)
    check("beta", v["beta"], 0, 1, low_open=False, high_open=False)
    pp, qq, bb = np.broadcast_arrays(*(np.asarray(v[k], float) for k in ("p", "q", "beta")))
    zero = bb == 0
    if np.any(zero) and s is None:
        raise ParameterError("beta must be > 0 with a general trade-off curve (the limit beta -> 0 is not computed)")
    b = np.where(zero, 0.5, bb)
    a0, an = _g(f1m, b)
    x0, xn = a0 / b, an / b
    if s is not None:
        x0, xn = np.where(zero, s, x0), np.where(zero, s * s, xn)
    return finish(_ratio(pp, qq, x0, xn), None)


def kazan_reiter_beta(ratio, *, p, q=1.0, epsilon=None, dp_delta=0.0, mu=None, tradeoff=None) -> float:
    r"""The largest probability, over every mechanism, that a release raises the ratio above ``ratio``.

    Not in the paper: the tail of Kazan and Reiter's relative disclosure risk under
    :math:`(\epsilon, \delta_{DP})`-DP, :math:`\mu`-GDP or f-DP (module docstring): the
    largest :math:`b \in [0, 1]` with
    :math:`p(1-q) f(1 - f(1-b)) + (1-p) f(1-b) \le (1/R - pq)\,b`, under the output
    distribution of a person in the data with values in the sensitive set.  The inverse of
    :func:`kazan_reiter_profile` in ``beta``.

    Parameters
    ----------
    ratio : float
        The ratio ``R``, >= 1.
    p, q : float
        Priors, in (0, 1].
    epsilon, dp_delta, mu, tradeoff
        The guarantee, as in :func:`kazan_reiter_profile`.

    Returns
    -------
    float
        :math:`\beta^*` in [0, 1] (0: no mechanism with the guarantee exceeds ``R``).

    Examples
    --------
    >>> round(kazan_reiter_beta(1.4, p=0.5, epsilon=1.0), 6)  # pure DP: Theorem 1's 1.46 is reachable
    0.750436
    >>> kazan_reiter_beta(1.5, p=0.5, epsilon=1.0)
    0.0
    """
    f1m, s, _ = _guarantee(epsilon, dp_delta, mu, tradeoff)
    v = to_values(None, ratio=ratio, p=p, q=q)
    for k in v:
        if np.ndim(v[k]):
            raise ParameterError(f"{k} must be a single number")
    check("ratio", v["ratio"], 1, np.inf, low_open=False)
    check("p", v["p"], 0, 1, high_open=False)
    check("q", v["q"], 0, 1, high_open=False)
    R, p, q = float(v["ratio"]), float(v["p"]), float(v["q"])
    c = 1.0 / R - p * q
    if c <= 0:  # the posterior cannot exceed 1
        return 0.0

    def phi(b):  # nondecreasing: f(1-b)/b rises (f(1 - .) is convex and 0 at 0)
        a0, an = _g(f1m, np.array([b]))
        return float(p * (1 - q) * an[0] + (1 - p) * a0[0]) / b - c

    if phi(1.0) < 0:
        return 1.0
    lo = 1e-300
    if s is not None and s > 0:
        if p * (1 - q) * s * s + (1 - p) * s - c >= 0:
            return 0.0
        lo = 1e-12
        while phi(lo) >= 0 and lo < 1:
            lo *= 10
    elif phi(lo) >= 0:
        lo = 1e-12
        if phi(lo) >= 0:
            return 0.0
    from scipy.optimize import brentq

    return float(brentq(phi, lo, 1.0, xtol=1e-300, rtol=1e-15))


def kazan_reiter_mechanism(*, beta, epsilon=None, dp_delta=0.0, mu=None, tradeoff=None) -> dict:
    r"""The two-output mechanism that attains :func:`kazan_reiter_profile` at ``beta``.

    Not in the paper (module docstring).  Outputs ``"B"`` and ``"rest"``; the person at risk
    (in the data, values in the sensitive set) gives ``"B"`` with probability ``beta``, an
    absent person with :math:`f(1-\beta)`, a present person outside the set with
    :math:`f(1 - f(1-\beta))`.  Each neighbouring pair meets the guarantee, and after ``"B"``
    the posterior-to-prior ratio is :math:`R_\beta(p, q)` for every ``(p, q)``.

    Returns
    -------
    dict
        ``{"in_S": (beta, 1 - beta), "absent": (a0, 1 - a0), "not_in_S": (aN, 1 - aN)}``.

    Examples
    --------
    >>> m = kazan_reiter_mechanism(beta=0.5, epsilon=1.0)
    >>> [round(x, 6) for x in m["absent"]], [round(x, 6) for x in m["not_in_S"]]
    ([0.18394, 0.81606], [0.067668, 0.932332])
    """
    f1m, _, _ = _guarantee(epsilon, dp_delta, mu, tradeoff)
    b = float(to_values(None, beta=beta)["beta"])
    check("beta", b, 0, 1, high_open=False)
    a0, an = (float(x[0]) for x in _g(f1m, np.array([b])))
    return {"in_S": (b, 1 - b), "absent": (a0, 1 - a0), "not_in_S": (an, 1 - an)}


def plot_kazan_reiter_profile(ax=None, *, epsilon=None, dp_delta=0.0, mu=None, q=(1.0, 0.5, 0.1),
                              betas=(0.0, 1e-3), p=None):
    r"""Plot Kazan and Reiter's risk profile :math:`R_\beta(p, q)` against ``p`` (beyond the paper).

    One line per ``q`` and ``beta`` (solid: the first ``beta``); the dotted line is the ceiling
    :math:`1/(pq)` of a certain disclosure.  Pure epsilon-DP at ``beta = 0`` is Kazan and
    Reiter's Theorem 1.

    Parameters
    ----------
    ax : matplotlib Axes, optional
    epsilon, dp_delta, mu
        The guarantee (:func:`kazan_reiter_profile`).
    q : sequence of float
        Priors of the sensitive values.
    betas : sequence of float
        Probabilities allowed above the ratio.
    p : array_like, optional
        Priors of inclusion (x axis); default 200 log-spaced points in [1e-3, 1].

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> ax = plot_kazan_reiter_profile(epsilon=1.0, q=(1.0,), betas=(0.0,))
    >>> len(ax.get_lines()) >= 1
    True
    >>> plt.close(ax.figure)
    """
    import matplotlib.pyplot as plt

    pp = np.geomspace(1e-3, 1.0, 200) if p is None else as_float_array("p", p)
    if pp.ndim != 1 or pp.size < 2:
        raise ParameterError("p must be a 1-d array of at least two priors")
    qs, bs = list(q), list(betas)
    if not qs or not bs:
        raise ParameterError("q and betas must each hold at least one value")
    _, _, label = _guarantee(epsilon, dp_delta, mu, None)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.2))
    styles = ["-", "--", "-.", ":"]
    for i, qq in enumerate(qs):
        colour = f"C{i}"
        for j, b in enumerate(bs):
            r = kazan_reiter_profile(p=pp, q=qq, beta=b, epsilon=epsilon, dp_delta=dp_delta, mu=mu)
            ax.plot(pp, r, color=colour, ls=styles[j % len(styles)], label=f"q = {qq:g}, β = {b:g}")
        ax.plot(pp, 1 / (pp * qq), color=colour, lw=0.6, ls=":", alpha=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("p: prior of inclusion")
    ax.set_ylabel("posterior / prior")
    ax.set_title(f"Kazan–Reiter risk profile, {label}")
    ax.legend(fontsize=8)
    return ax
