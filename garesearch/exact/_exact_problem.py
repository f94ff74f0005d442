"""The problem behind :mod:`garesearch.exact.core`: a prior, an additive-noise mechanism and a
query, the candidate true values and their target sets :math:`X'` (Sec. 3.2, Def. 7), and the
Laplace mechanism's far tails (the limits derived in :mod:`garesearch.exact`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._roots import narrow_bracket
from ..errors import ParameterError
from ..mechanisms import Mechanism
from ..priors import Categorical, PiecewiseUniform, Prior
from .integrals import TiltedLaplace, integrator


# ------------------------------------------------------------------------------------------
# The problem: prior + mechanism + query + the candidate true values and their sets X'.
# ------------------------------------------------------------------------------------------
@dataclass
class _Problem:
    integ: Any
    ts: list
    sets: Any  # (nt, k) masks or (lo, hi) arrays
    p: np.ndarray
    finite: bool
    continuous_t: bool
    scale: float
    make_set: Callable | None = None  # t -> set, for refining t
    far: Callable | None = None  # () -> (upper advantage as t -> an unbounded end, that end)

    def subset(self, idx):
        idx = np.atleast_1d(idx)
        sets = self.sets[idx] if self.finite else (self.sets[0][idx], self.sets[1][idx])
        return sets, self.p[idx], [self.ts[i] for i in idx]


def as_target_set(values, target, name):
    """``target`` as a list of values of the prior (``None`` stays ``None``);
    :class:`~garesearch.ParameterError` naming ``name`` for a value not in ``values`` (beyond
    the paper: argument checking).

    Examples
    --------
    >>> as_target_set(["red", "white"], "red", "target")
    ['red']
    >>> as_target_set(["red", "white"], None, "target") is None
    True
    """
    if target is None:
        return None
    if isinstance(target, (str, tuple)) or not isinstance(target, Iterable):
        target = [target]
    target = list(target)
    for v in target:
        if v not in values:
            raise ParameterError(f"{name}: {v!r} is not a value of the prior; values: {values}")
    return target


def _problem(prior, mech, eps, r, t, target, correct) -> _Problem:
    if not isinstance(prior, Prior):
        raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
    if not isinstance(mech, Mechanism):
        raise ParameterError(f"mechanism must be a garesearch.mechanisms.Mechanism; got {mech!r}")
    if not (isinstance(r, (int, float, np.integer, np.floating)) and math.isfinite(r) and r >= 0):
        raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
    scale = mech.scale(eps)
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        return _discrete_problem(prior, mech, eps, r, t, target, correct, scale)
    if target is not None or correct is not None:
        raise ParameterError("target and correct apply only to a prior with the discrete metric")
    if isinstance(prior, Categorical):
        integ = integrator(prior, mech, eps, s=prior.points, w=prior.probs)
        ts, sets, make_set = _finite_sets(prior, r, t, None)
        return _Problem(integ, ts, sets, integ.prior_mass(sets), True, False, scale, make_set)
    integ = integrator(prior, mech, eps)
    far = None
    if t is None:
        ts = prior.t_candidates(r)
        if isinstance(prior, PiecewiseUniform):  # kinks of the advantage in t: t +- r on an edge
            low, high = prior.support
            kinks = np.concatenate([prior.edges - r, prior.edges + r])
            ts = np.unique(np.concatenate([ts, kinks[(kinks >= low) & (kinks <= high)]]))
        if isinstance(integ, TiltedLaplace):
            ts = _resolvable(prior, r, ts)
            far = lambda: _laplace_far_tail(prior, integ.rate, r)  # noqa: E731
        ts = [float(v) for v in ts]
    else:
        ts = [_check_t(prior, t)]
    arr = np.asarray(ts, float)
    sets = (arr - r, arr + r)
    return _Problem(integ, ts, sets, integ.prior_mass(sets), False, t is None, scale,
                    lambda tt: (np.array([tt - r]), np.array([tt + r])), far)


def _resolvable(prior, r, ts):
    """The true values of an unbounded tail at which float64 still resolves the ball (a
    spacing of at most 1e-8 r); beyond them :func:`_laplace_far_tail` stands in."""
    low, high = prior.support
    q_lo, q_hi = (float(v) for v in prior.quantile(np.array([1e-3, 1 - 1e-3])))
    coarse = np.spacing(np.abs(ts)) > 1e-8 * r
    far = ((ts > q_hi) & math.isinf(high)) | ((ts < q_lo) & math.isinf(low))
    return ts[~(coarse & far)]


def _laplace_far_tail(prior, rate, r):
    r"""The Laplace mechanism's upper advantage as ``t`` goes to an unbounded end of the
    support: ``(value, end)`` (beyond the paper).

    Where the density behaves locally like :math:`e^{-\lambda u}` (``u`` toward the end),
    the output :math:`y = c = t + \lambda r/k` (``k = 1/b``) gives, in the limit, outside
    weight over total :math:`\frac{k+\lambda}{2k} e^{-(k-\lambda)s} + \frac{k-\lambda}{2k}
    e^{-(k+\lambda)(2r-s)}` with :math:`s = c - (t - r)`, smallest at :math:`s = r(k +
    \lambda)/k`, so the posterior of :math:`\mathcal B(t, r)` tends to :math:`1 -
    e^{-r(k^2 - \lambda^2)/k}` for :math:`k > \lambda` (0 otherwise: the bulk's weight
    dominates) while :math:`p_t \to 0`.  The lower side tends to 0: :math:`p_t - \inf_y
    \Pr_{post} \in [0, p_t]`.  ``lambda`` comes from
    :meth:`~garesearch.priors.Continuous.tail_class` (conservative: a heavier tail is never
    taken for a lighter one; the value decreases with ``lambda``).
    """
    best = (-math.inf, None)
    for end, side in ((prior.support[0], "left"), (prior.support[1], "right")):
        if math.isfinite(end):
            continue
        kind, lam = prior.tail_class(side)
        lam = 0.0 if kind == "heavy" else float(lam)
        val = 0.0 if kind == "light" or not rate > lam else -math.expm1(-r * (rate - lam) * (rate + lam) / rate)
        if val > best[0]:
            best = (val, end)
    return best


def _far_crossing(prior, mech, r, delta, lo, hi, rtol):
    r"""Where the far-tail limit of :func:`_laplace_far_tail` crosses ``delta`` inside
    ``[lo, hi]``, from below within relative ``rtol`` (``None`` where it has no limit or does
    not cross there).

    The advantage over every true value is at least the limit, which grows with epsilon, so
    above this crossing the advantage exceeds ``delta``; if it is within ``delta`` at the
    crossing, the crossing is :func:`exact_epsilon`'s answer, found with one full evaluation
    instead of a search (the heavy and exponential tails of Sec. 5's priors)."""
    if isinstance(prior, Categorical) or not isinstance(integrator(prior, mech, hi), TiltedLaplace):
        return None

    def excess(x):
        return _laplace_far_tail(prior, 1.0 / mech.scale(math.exp(x)), r)[0] - delta

    a, b = math.log(lo), math.log(hi)
    if not (excess(a) <= 0 < excess(b)):
        return None
    x_lo, _ = narrow_bracket(excess, a, b, tol=math.log1p(rtol), rtol=4 * np.finfo(float).eps)
    return lo if x_lo == a else math.exp(x_lo)


def _finite_sets(prior: Categorical, r, t, correct):
    """True values of a finite prior, their masks of correct guesses X', and t -> mask."""
    values = prior.values
    if prior.metric == "discrete":
        if r >= 1:
            raise ParameterError(f"r must be < 1 under the discrete metric (r >= 1 makes every guess correct); got r={r}")
        if t is None:
            ts = list(values)
        else:
            prior.probability(t)
            ts = [t]

        def make_set(tt):
            members = [tt] if correct is None else as_target_set(values, correct(tt), "correct(t)")
            return np.array([v in members for v in values])
    else:
        if correct is not None:
            raise ParameterError("correct applies only to a prior with the discrete metric")
        x = prior.points
        ts = list(x) if t is None else [_check_t(prior, t)]

        def make_set(tt):
            return np.abs(x - tt) <= r

    return ts, np.array([make_set(tt) for tt in ts]), make_set


def _discrete_problem(prior, mech, eps, r, t, target, correct, scale):
    ts, sets, make_set = _finite_sets(prior, r, t, correct)
    values = prior.values
    tgt = as_target_set(values, target, "target")
    if tgt is None:
        raise ParameterError(
            "target: a prior with the discrete metric is released through a COUNT of the rows whose "
            "value lies in the target set; pass target=<value or collection of values> "
            "(exact_advantage with target=None takes the worst single-value target)"
        )
    s = np.array([1.0 if v in tgt else 0.0 for v in values])
    integ = integrator(prior, mech, eps, s=s, w=prior.probs)
    return _Problem(integ, ts, sets, integ.prior_mass(sets), True, False, scale, make_set)


def _check_t(prior, t):
    if not isinstance(t, (int, float, np.integer, np.floating)) or not math.isfinite(t):
        raise ParameterError(f"t must be a finite number; got {t!r}")
    if isinstance(prior, Categorical):
        if not np.any(prior.points == t):
            raise ParameterError(f"t must be a value of the prior; got {t}, values {prior.values}")
        return float(t)
    low, high = prior.support
    if not low <= t <= high:
        raise ParameterError(f"t must lie in the prior's support [{low}, {high}]; got {t}")
    return float(t)
