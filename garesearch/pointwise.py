r"""A sharper sound bound than Eq. (main): compare every wrong value with :math:`X'` pointwise.

Eq. (main) compares :math:`X'` with one comparison set :math:`\hat X'` through the largest
distance between the two sets.  Comparing each wrong value ``x`` with every correct value
``x'`` at its own distance loses less.  For an :math:`\epsilon`-DP mechanism w.r.t.
:math:`|x - x'|` and every output ``y``,

.. math::

    \int_{X'} f(y|x')\,dF(x') \le f(y|x)\, L(x), \qquad
    L(x) = \int_{X'} e^{\epsilon |x - x'|}\, dF(x'),

so :math:`\Pr_{post}[X \setminus X'] / \Pr_{post}[X'] \ge J(\epsilon) = \int_{X\setminus X'}
dF(x) / L(x)` and

.. math:: \Pr_{post}[X'] \le \frac{1}{1 + J(\epsilon)}.

Every comparison set of Eq. (main) is a special case (:math:`L(x) \le p\,e^{\epsilon D}` on
:math:`\hat X'`, and dropping the rest of the space), so the epsilon found here is never
smaller than that of the sound construction of :mod:`garesearch.attribute`.  For
:math:`X' = [l, h]` and ``x > h``, :math:`L(x) = e^{\epsilon x} \int_{X'} e^{-\epsilon x'} dF`,
so :math:`J` is a ratio of truncated moment generating functions:

.. math::

    J(\epsilon) = \frac{\int_{x > h} e^{-\epsilon x} dF}{\int_{X'} e^{-\epsilon x} dF}
                + \frac{\int_{x < l} e^{\epsilon x} dF}{\int_{X'} e^{\epsilon x} dF}.

The lower side uses :math:`K(x) = \int_{X'} e^{-\epsilon|x-x'|} dF(x')`:
:math:`\Pr_{post}[X'] \ge 1 / (1 + I(\epsilon))` with :math:`I(\epsilon) = \int_{X\setminus
X'} dF / K`, the same ratios with the signs of the exponents flipped.

For ``r = 0`` and an atom at ``t`` the upper bound is attained by the Laplace mechanism at
the output ``y = t``, so it cannot be improved for all epsilon-DP mechanisms.  This bound is
not in the paper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .attribute import _scale, check_common, laplace_scale
from .errors import InfeasibleError, ParameterError
from .priors import Categorical, Continuous, Normal, PiecewiseUniform, Prior

__all__ = ["PointwiseResult", "epsilon_pointwise", "pointwise_ratios"]


def _log_mgf(prior: Prior, k: float, lo: float, hi: float, c: float) -> float:
    r""":math:`\log \int_{lo}^{hi} e^{k(x - c)} dF(x)` (``-inf`` for no mass)."""
    if hi < lo:
        return -math.inf
    if isinstance(prior, Normal):
        from scipy.special import ndtr

        mu, s = prior.mu, prior.sigma
        m = mu + k * s * s
        a, b = (lo - m) / s, (hi - m) / s
        mass = ndtr(-a) - ndtr(-b) if a > 0 else ndtr(b) - ndtr(a)
        if mass <= 0:
            # deep in a tail: use the log-survival form
            from scipy.special import log_ndtr

            if a > 0:
                la, lb = log_ndtr(-a), log_ndtr(-b)
            else:
                la, lb = log_ndtr(b), log_ndtr(a)
            if not la > lb:
                return -math.inf
            return k * (mu - c) + 0.5 * (k * s) ** 2 + la + math.log1p(-math.exp(lb - la))
        return k * (mu - c) + 0.5 * (k * s) ** 2 + math.log(mass)
    if isinstance(prior, PiecewiseUniform):
        a = np.maximum(prior.edges[:-1], lo)
        b = np.minimum(prior.edges[1:], hi)
        keep = (b > a) & (prior.density > 0)
        if not np.any(keep):
            return -math.inf
        a, b, dens = a[keep], b[keep], prior.density[keep]
        if k == 0:
            return math.log(float(np.sum(dens * (b - a))))
        # int_a^b e^{k(x-c)} dx = e^{k(b-c)} (-expm1(-k(b-a)))/k for k > 0, and
        # e^{k(a-c)} expm1(k(b-a))/k for k < 0: both factors lie in (0, b - a]
        if k > 0:
            logs = k * (b - c) + np.log(-np.expm1(-k * (b - a)) / k)
        else:
            logs = k * (a - c) + np.log(np.expm1(k * (b - a)) / k)
        logs = logs + np.log(dens)
        return float(np.logaddexp.reduce(logs))
    if isinstance(prior, Categorical):
        if prior.metric != "absolute":
            raise ParameterError("pointwise bound: a discrete-metric prior needs no integral")
        x = prior._x
        sel = (x >= lo) & (x <= hi)
        if not np.any(sel):
            return -math.inf
        return float(np.logaddexp.reduce(np.log(prior.probs[sel]) + k * (x[sel] - c)))
    if isinstance(prior, Continuous):
        from scipy.integrate import quad

        low, high = prior.support
        lo, hi = max(lo, low), min(hi, high)
        if hi <= lo:
            return -math.inf
        if k > 0 and np.isinf(hi) and k >= prior.tail_rates()[0]:
            return math.inf
        if k < 0 and np.isinf(lo) and -k >= prior.tail_rates()[1]:
            return math.inf
        val = quad(lambda x: math.exp(k * (x - c) + prior.dist.logpdf(x)), lo, hi, limit=200)[0]
        return math.log(val) if val > 0 else -math.inf
    raise ParameterError(f"pointwise bound: unsupported prior {type(prior).__name__}")


def pointwise_ratios(prior: Prior, t: float, r: float, epsilon: float) -> tuple[float, float]:
    r"""The pair :math:`(J(\epsilon), I(\epsilon))` of the module docstring at true value ``t``
    (beyond the paper: the pointwise version of the ratio :math:`q/p` of Sec. 3.2).

    :math:`\Pr_{post}[X'] \le 1/(1+J)` and :math:`\Pr_{post}[X'] \ge 1/(1+I)` for every
    epsilon-DP mechanism and every output.
    """
    lo, hi = prior.correct_extent(t, r)
    e = float(epsilon)
    in_minus, in_plus = _log_mgf(prior, -e, lo, hi, t), _log_mgf(prior, e, lo, hi, t)
    J = math.exp(_log_mgf(prior, -e, np.nextafter(hi, np.inf), np.inf, t) - in_minus) + math.exp(
        _log_mgf(prior, e, -np.inf, np.nextafter(lo, -np.inf), t) - in_plus
    )
    up = _log_mgf(prior, e, np.nextafter(hi, np.inf), np.inf, t)
    dn = _log_mgf(prior, -e, -np.inf, np.nextafter(lo, -np.inf), t)
    I = math.inf if math.inf in (up, dn) else math.exp(up - in_plus) + math.exp(dn - in_minus)  # noqa: E741
    return J, I


@dataclass(frozen=True)
class PointwiseResult:
    """What :func:`epsilon_pointwise` found (beyond the paper; fields as in
    :class:`~garesearch.attribute.AttributeResult`, Sec. 4.1)."""

    epsilon: float
    t: Any
    r: float
    delta: float
    p: float
    epsilon_upper: float
    epsilon_lower: float
    binding: str
    prior: Prior = field(repr=False)

    laplace_scale = laplace_scale

    def posterior_bound(self) -> float:
        """:math:`1 / (1 + J(\\epsilon))` at the returned epsilon (at most ``p + delta``)."""
        return 1.0 / (1.0 + pointwise_ratios(self.prior, self.t, self.r, self.epsilon)[0])


def _root(fun, scale):
    """Largest eps >= 0 with fun(eps) >= 0 for a decreasing ``fun`` (``inf`` if never < 0)."""
    from scipy.optimize import brentq

    e = 1e-3 / scale
    if fun(e) >= 0:
        lo, hi = e, 2 * e
        while fun(hi) >= 0:
            lo, hi = hi, 2 * hi
            if hi * scale > 1e300:
                return math.inf
    else:
        lo, hi = e / 8, e
        while fun(lo) < 0:
            lo, hi = lo / 8, lo
            if lo * scale < 1e-30:
                return 0.0
    def f(x):
        value = fun(x)
        return value if math.isfinite(value) else -1e300

    return brentq(f, lo, hi, xtol=1e-300, rtol=1e-15, maxiter=500)


def _one_t(prior, t, r, delta, sides, scale):
    lo, hi = prior.correct_extent(t, r)
    p = float(prior.mass(lo, hi))
    if p <= 0:
        return None
    if p >= 1:  # X' holds all the mass: the posterior is 1 whatever the output
        return dict(epsilon=math.inf, t=t, p=p, epsilon_upper=math.inf, epsilon_lower=math.inf,
                    binding="upper")
    if p + delta >= 1:
        e_up = math.inf
    else:
        target = math.log((1 - p - delta) / (p + delta))
        e_up = _root(lambda e: math.log(pointwise_ratios(prior, t, r, e)[0]) - target, scale)
    e_low = math.inf
    if sides == "both" and p > delta:
        target = math.log((1 - p + delta) / (p - delta))
        e_low = _root(lambda e: target - math.log(pointwise_ratios(prior, t, r, e)[1]), scale)
    return dict(
        epsilon=min(e_up, e_low), t=t, p=p, epsilon_upper=e_up, epsilon_lower=e_low,
        binding="upper" if e_up <= e_low else "lower",
    )


def epsilon_pointwise(
    prior: Prior, *, r: float, delta: float, t: Any = None, sides: str = "both"
) -> PointwiseResult:
    r"""Epsilon from the pointwise bound (module docstring): sound for every epsilon-DP
    mechanism and never smaller than Eq. (main)'s best comparison set (Sec. 3.2, 4.1).

    Parameters
    ----------
    prior : Prior
        A numeric prior (:class:`Normal`, :class:`Uniform`, :class:`PiecewiseUniform`,
        numeric :class:`Categorical`, :class:`Continuous`).  Discrete-metric priors have all
        distances equal to 1, where this bound coincides with Sec. 3.2's
        :math:`\min(\epsilon_{lb}, \epsilon_{ub})`.
    r, delta, t, sides
        As in :func:`garesearch.epsilon_for_attribute`.

    Returns
    -------
    PointwiseResult

    Raises
    ------
    ParameterError, InfeasibleError
    """
    check_common(prior, r, delta, sides)
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        from .attribute import epsilon_for_attribute

        res = epsilon_for_attribute(prior, r=r, delta=delta, t=t, sides=sides)
        return PointwiseResult(
            epsilon=res.epsilon, t=res.t, r=r, delta=delta, p=res.p, epsilon_upper=res.epsilon_upper,
            epsilon_lower=res.epsilon_lower, binding=res.binding, prior=prior,
        )
    low, high = prior.support
    if r >= high - low:
        raise ParameterError(f"r must be smaller than the prior's diameter R = {high - low}; got r={r}")
    scale = _scale(prior)
    if t is not None:
        if not isinstance(t, (int, float, np.integer, np.floating)) or not low <= t <= high:
            raise ParameterError(f"t must lie in the prior's support [{low}, {high}]; got {t!r}")
        best = _one_t(prior, float(t), r, delta, sides, scale)
        if best is None:
            raise InfeasibleError(f"the ball of radius r={r} around t={t} holds no prior mass")
    else:
        ts = [float(x) for x in prior.t_candidates(r)]
        results = [res for res in (_one_t(prior, x, r, delta, sides, scale) for x in ts) if res]
        i = int(np.argmin([res["epsilon"] for res in results]))
        best = results[i]
        if not isinstance(prior, Categorical):
            from scipy.optimize import minimize_scalar

            a, b = ts[max(i - 1, 0)], ts[min(i + 1, len(ts) - 1)]
            if b > a:
                def f(x):
                    res = _one_t(prior, float(x), r, delta, sides, scale)
                    return math.inf if res is None else res["epsilon"]

                opt = minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": 1e-10 * max(1.0, abs(b))})
                if opt.fun < best["epsilon"]:
                    best = _one_t(prior, float(opt.x), r, delta, sides, scale)
    if not best["epsilon"] > 0:
        raise InfeasibleError(
            f"no epsilon > 0 keeps the advantage within delta={delta} at t={best['t']!r}: the "
            f"{best['binding']} side cannot be met"
            + ("; the prior's tails are too heavy for the lower side. Use sides='upper'." if best["binding"] == "lower" else ".")
        )
    return PointwiseResult(r=r, delta=delta, prior=prior, **best)
