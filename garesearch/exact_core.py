r"""The exact guessing advantage of an additive-noise mechanism: the suprema over outputs
and true values, and the epsilon at which it reaches a bound (:mod:`garesearch.exact`, whose
docstring derives the limits and the unimodality used here; Sec. 3.2, Def. 7).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._args import check_sides
from ._roots import narrow_bracket
from .errors import InfeasibleError, ParameterError
from .exact_integrals import Atoms, TiltedLaplace, integrator
from .mechanisms import Laplace, Mechanism, RandomizedResponse
from .priors import Categorical, PiecewiseUniform, Prior

__all__ = ["ExactAdvantage", "as_target_set", "check_additive", "check_exact_args", "exact_advantage",
           "exact_epsilon", "or_event", "posterior"]


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


# ------------------------------------------------------------------------------------------
# Suprema over outputs.
# ------------------------------------------------------------------------------------------
def _post(integ, ys, sets):
    ys = np.asarray(ys, float)
    log_posterior = getattr(integ, "log_posterior", None)
    if log_posterior is not None:  # stable far from the support (Segments)
        return np.exp(log_posterior(ys, sets))
    return np.exp(integ.log_mass(ys, sets) - integ.log_total(ys)[:, None])


def _y_grid(pb: _Problem):
    integ = pb.integ
    if isinstance(integ, Atoms):
        if integ.exact_laplace and isinstance(integ.mech, Laplace):
            return np.unique(integ.s), True
        return integ.y_grid(pb.scale), False
    u = np.concatenate([[1e-12, 1e-9, 1e-6], np.linspace(1e-4, 1 - 1e-4, 81), [1 - 1e-6, 1 - 1e-9, 1 - 1e-12]])
    q = np.asarray(integ.quantile(u), float)
    lo, hi = q[0], q[-1]
    ext = pb.scale * np.geomspace(0.01, 60.0, 24)
    ts = np.asarray(pb.ts, float) if not pb.finite else np.empty(0)
    dense = np.linspace(lo - 3 * pb.scale, hi + 3 * pb.scale, 121)
    return np.unique(np.concatenate([q, lo - ext, hi + ext, dense, ts])), False


def _laplace_closed(pb: _Problem) -> bool:
    """Laplace noise on a prior whose tilted masses have closed forms (Normal, piecewise uniform)."""
    return isinstance(pb.integ.mech, Laplace) and hasattr(pb.integ, "log_tilt")


def _laplace_argmax(integ, lo, hi, tol=1e-10):
    r"""The output maximising the Laplace posterior of :math:`[lo, hi]`, per set (1-d arrays).

    With :math:`k = 1/b`, :math:`l, h` the ends of :math:`X'` cut to the support and
    :math:`C(y) = \int_{[l, y]} e^{kx} d\pi`, :math:`E(y) = \int_{(y, h]} e^{-kx} d\pi`,
    :math:`B_+ = \int_{x < l} e^{kx} d\pi`, :math:`B_- = \int_{x > h} e^{-kx} d\pi`, the
    posterior is :math:`1/(1 + O/N)` with :math:`O = e^{-ky} B_+ + e^{ky} B_-` on
    :math:`[l, h]`, and :math:`O'N - ON' = 2k(B_- C(y) - B_+ E(y))`, increasing in ``y``.  The
    maximiser is the root of :math:`\ln C + \ln B_- = \ln E + \ln B_+` in :math:`[l, h]`
    (``l`` if :math:`B_+ = 0`, ``h`` if :math:`B_- = 0`), found for all sets at once by the
    Illinois variant of regula falsi on that increasing function (bisection while an end of
    the bracket is infinite) until the bracket is below ``tol`` noise scales: the posterior is
    stationary at the root, so its value there is exact to rounding.
    """
    low, high = integ.support
    lo_c, hi_c = np.maximum(lo, low), np.minimum(hi, high)
    c = np.where(hi_c >= lo_c, (lo_c + hi_c) / 2, lo_c)  # keeps the tilts in range
    inf = np.full(lo_c.shape, np.inf)
    b_plus = integ.log_tilt(+1, -inf, lo_c, c)
    b_minus = integ.log_tilt(-1, hi_c, inf, c)
    a, z = lo_c.copy(), np.maximum(hi_c, lo_c)
    ga, gz = np.full(a.shape, -np.inf), np.full(a.shape, np.inf)
    last = np.zeros(a.shape, dtype=int)  # which end moved last (-1: a, +1: z)
    step = tol / integ.rate
    tails = getattr(integ, "log_tails", None)
    if tails is not None:  # C and E from one tail each per step (the ends' tails once)
        c_end, e_end = tails(lo_c, hi_c, c)

    def G(x, i):
        with np.errstate(invalid="ignore"):
            if tails is None:
                log_c = integ.log_tilt(+1, lo_c[i], x, c[i])
                log_e = integ.log_tilt(-1, x, hi_c[i], c[i])
            else:
                log_c, log_e = tails(x, x, c[i], c_end[i], e_end[i])
            g = log_c + b_minus[i] - log_e - b_plus[i]
        g = np.where(b_plus[i] == -np.inf, np.inf, np.where(b_minus[i] == -np.inf, -np.inf, g))
        return np.where(np.isnan(g), -np.inf, g)  # nan counts left of the root, as -inf

    for _ in range(400):
        act = np.flatnonzero(z - a > step)
        if act.size == 0:
            break
        aa, zz, fa, fz = a[act], z[act], ga[act], gz[act]
        with np.errstate(invalid="ignore", over="ignore"):
            x = zz - fz * (zz - aa) / (fz - fa)
        mid = 0.5 * (aa + zz)
        x = np.where(np.isfinite(fa) & np.isfinite(fz) & (x > aa) & (x < zz), x, mid)
        gx = G(x, act)
        left = ~(gx > 0)
        hit = gx == 0
        # Illinois: an end kept twice in a row has its value halved
        keep_z = left & (last[act] == -1)
        keep_a = ~left & (last[act] == 1)
        gz[act] = np.where(left, np.where(keep_z, 0.5 * fz, fz), gx)
        ga[act] = np.where(left, gx, np.where(keep_a, 0.5 * fa, fa))
        a[act] = np.where(left, x, aa)
        z[act] = np.where(left, zz, x)
        last[act] = np.where(left, -1, 1)
        a[act] = np.where(hit, x, a[act])
        z[act] = np.where(hit, x, z[act])
    return (a + z) / 2, lo_c, hi_c


def _laplace_extremes(integ, sets, tol=1e-10):
    r"""Exact (sup, y at sup, inf, y at inf) of the Laplace posterior of each interval set.

    The posterior increases for :math:`y \le l`, has one maximum in :math:`[l, h]`
    (:func:`_laplace_argmax`) and decreases for :math:`y \ge h`: its supremum is at the
    maximiser (the value is checked against the ends ``l`` and ``h``) and its infimum is one of
    the limits :math:`y \to \pm\infty`.
    """
    lo, hi = (np.asarray(v, float) for v in sets)
    y, lo_c, hi_c = _laplace_argmax(integ, lo, hi, tol)
    cand_y = np.stack([y, lo_c, hi_c])
    with np.errstate(invalid="ignore"):
        lp = np.stack([integ.log_mass_pairs(v, lo, hi) - integ.log_total(v) for v in cand_y])
    lp = np.where(np.isnan(lp), -np.inf, lp)
    j = np.argmax(lp, axis=0)
    cols = np.arange(lo.size)
    sup, ysup = np.exp(lp[j, cols]), cand_y[j, cols]
    lim_m, lim_p = integ.limit(-1, sets), integ.limit(+1, sets)
    inf = np.minimum(lim_m, lim_p)
    yinf = np.where(lim_m <= lim_p, -np.inf, np.inf)
    return sup, ysup, inf, yinf


def _extremes(pb: _Problem, sets, p):
    """Grid suprema: (sup post, y at sup, inf post, y at inf) per set, limits included."""
    ys, exact = _y_grid(pb)
    post = _post(pb.integ, ys, sets)
    lim_m, lim_p = pb.integ.limit(-1, sets), pb.integ.limit(+1, sets)
    allp = np.vstack([lim_m[None, :], post, lim_p[None, :]])
    ally = np.concatenate([[-np.inf], ys, [np.inf]])
    i_sup, i_inf = np.argmax(allp, axis=0), np.argmin(allp, axis=0)
    cols = np.arange(allp.shape[1])
    return allp[i_sup, cols], ally[i_sup], allp[i_inf, cols], ally[i_inf], ys, exact


def _refine_y(pb, one_set, ys, y0, sign):
    """Refine a grid extremum of the posterior in y (sign=+1: sup, -1: inf) with Brent's method."""
    from scipy.optimize import minimize_scalar

    if not np.isfinite(y0):
        return None
    j = int(np.searchsorted(ys, y0))
    a, b = ys[max(j - 1, 0)], ys[min(j + 1, ys.size - 1)]
    if not b > a:
        return None

    def f(y):
        v = float(_post(pb.integ, np.array([y]), one_set)[0, 0])
        return -sign * (v if math.isfinite(v) else (0.0 if sign > 0 else 1.0))

    res = minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": 1e-8 * abs(b - a)})
    return float(res.x), -sign * float(res.fun)


@dataclass(frozen=True)
class ExactAdvantage:
    """What :func:`exact_advantage` found.

    Attributes
    ----------
    advantage : float
        :math:`\\sup_y |\\Pr_{post}[X'|y] - \\Pr_{pre}[X']|` at the worst true value (or the
        upper or lower side alone, as asked).
    t : Any
        The (worst) true value.
    y : float
        An output attaining the supremum (``inf`` or ``-inf`` for a limit; a value of the
        prior for randomized response).
    side : str
        ``"upper"`` (posterior above the prior) or ``"lower"``.
    p : float
        Prior mass :math:`\\Pr_{pre}[X']` at ``t``.
    posterior : float
        Posterior of :math:`X'` at ``y``.
    upper, lower : float
        :math:`\\sup_y \\Pr_{post} - p` and :math:`p - \\inf_y \\Pr_{post}` at ``t``.
    y_upper, y_lower : float
        Outputs attaining them.
    """

    advantage: float
    t: Any
    y: float
    side: str
    p: float
    posterior: float
    upper: float
    lower: float
    y_upper: float
    y_lower: float
    epsilon: float
    r: float
    mechanism: Mechanism = field(repr=False)


def _side_value(upper, lower, sides):
    if sides == "upper":
        return upper
    if sides == "lower":
        return lower
    return np.maximum(upper, lower)


def _evaluate_t(pb, sets, p, sides, refine=True):
    if _laplace_closed(pb):
        # refine=False: the maximiser to 1e-4 noise scales (its posterior exact to about
        # 1e-8: the maximum is flat), enough to rank the true values
        sup, ysup, inf, yinf = _laplace_extremes(pb.integ, sets, 1e-7 if refine else 1e-4)
        return sup - p, p - inf, ysup, yinf, sup, inf
    sup, ysup, inf, yinf, ys, exact = _extremes(pb, sets, p)
    if refine and not exact:
        for k in range(len(p)):
            one = sets[k:k + 1] if pb.finite else (sets[0][k:k + 1], sets[1][k:k + 1])
            r_sup = _refine_y(pb, one, ys, ysup[k], +1)
            if r_sup and r_sup[1] > sup[k]:
                ysup[k], sup[k] = r_sup
            r_inf = _refine_y(pb, one, ys, yinf[k], -1)
            if r_inf and r_inf[1] < inf[k]:
                yinf[k], inf[k] = r_inf
    upper, lower = sup - p, p - inf
    return upper, lower, ysup, yinf, sup, inf


def _advantage(pb: _Problem, eps, sides, refine=True):
    """Worst true value: (index or refined t, ExactAdvantage fields)."""
    first = _evaluate_t(pb, pb.sets, pb.p, sides, refine=False)
    val = _side_value(first[0], first[1], sides)
    order = np.argsort(-val)
    top = order[: (3 if refine else 1)]
    sets, p, ts = pb.subset(top)
    res = _evaluate_t(pb, sets, p, sides, refine=refine)
    val2 = _side_value(res[0], res[1], sides)
    k = int(np.argmax(val2))
    best = dict(t=ts[k], upper=res[0][k], lower=res[1][k], y_upper=res[2][k], y_lower=res[3][k],
                sup=res[4][k], inf=res[5][k], p=float(p[k]))
    if refine and pb.continuous_t:
        best = _refine_t(pb, eps, sides, best)
    if pb.far is not None and sides != "lower":
        lim, end = pb.far()
        if end is not None and lim > _side_value(best["upper"], best["lower"], sides):
            best = dict(t=end, upper=lim, lower=0.0, y_upper=end, y_lower=end, sup=lim, inf=0.0, p=0.0)
    return best


def _refine_t(pb, eps, sides, best):
    from scipy.optimize import minimize_scalar

    ts = np.asarray(pb.ts, float)
    j = int(np.searchsorted(ts, best["t"]))
    a, b = ts[max(j - 1, 0)], ts[min(j + 1, ts.size - 1)]
    if not b > a:
        return best
    if _laplace_closed(pb):
        return _zoom_t(pb, sides, a, b, best)
    cache = {}

    def f(tt):
        sets = pb.make_set(float(tt))
        p = pb.integ.prior_mass(sets)
        res = _evaluate_t(pb, sets, p, sides, refine=True)
        cache[float(tt)] = (res, float(p[0]))
        return -float(_side_value(res[0], res[1], sides)[0])

    opt = minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": 1e-5 * abs(b - a)})
    if -opt.fun > _side_value(best["upper"], best["lower"], sides):
        res, p = cache[float(opt.x)]
        best = dict(t=float(opt.x), upper=res[0][0], lower=res[1][0], y_upper=res[2][0],
                    y_lower=res[3][0], sup=res[4][0], inf=res[5][0], p=p)
    return best


def _zoom_t(pb, sides, a, b, best, points=33, rounds=4):
    """:func:`_refine_t` for the closed-form Laplace extremes, vectorised: the best of
    ``points`` true values in ``[a, b]`` (ranked by the extremes to 1e-4 noise scales), then
    the same around it, ``rounds`` times (the bracket shrinks 16-fold per round; the maximum
    is flat, so its value is exact to rounding long before the bracket is); the winner is
    evaluated exactly."""
    for _ in range(rounds):
        tt = np.linspace(a, b, points)
        parts = [pb.make_set(float(v)) for v in tt]
        sets = (np.concatenate([s[0] for s in parts]), np.concatenate([s[1] for s in parts]))
        res = _evaluate_t(pb, sets, pb.integ.prior_mass(sets), sides, refine=False)
        val = _side_value(res[0], res[1], sides)
        k = int(np.argmax(np.where(np.isnan(val), -np.inf, val)))
        a, b = tt[max(k - 1, 0)], tt[min(k + 1, points - 1)]
    t = float(tt[k])
    sets = pb.make_set(t)
    p = pb.integ.prior_mass(sets)
    res = _evaluate_t(pb, sets, p, sides)
    if _side_value(res[0], res[1], sides)[0] > _side_value(best["upper"], best["lower"], sides):
        best = dict(t=t, upper=res[0][0], lower=res[1][0], y_upper=res[2][0], y_lower=res[3][0],
                    sup=res[4][0], inf=res[5][0], p=float(p[0]))
    return best


def check_additive(mechanism):
    """:class:`~garesearch.ParameterError` unless ``mechanism`` is additive noise (a
    :class:`~garesearch.mechanisms.Mechanism`; beyond the paper: argument checking).

    Examples
    --------
    >>> from garesearch.mechanisms import Laplace
    >>> check_additive(Laplace()) is None
    True
    """
    if not isinstance(mechanism, Mechanism):
        raise ParameterError(f"mechanism must be an additive-noise garesearch.mechanisms.Mechanism; got {mechanism!r}")


def check_exact_args(epsilon, sides):
    """:class:`~garesearch.ParameterError` unless ``epsilon > 0`` is finite and ``sides`` is
    ``'both'``, ``'upper'`` or ``'lower'`` (beyond the paper: argument checking).

    Examples
    --------
    >>> check_exact_args(1.0, "upper") is None
    True
    >>> check_exact_args(0.0, "both")
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: epsilon must be a finite number > 0; got 0.0
    """
    if not isinstance(epsilon, (int, float, np.integer, np.floating)) or not (
        math.isfinite(float(epsilon)) and float(epsilon) > 0
    ):
        raise ParameterError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    check_sides(sides)


def exact_advantage(
    prior: Prior,
    mechanism: Mechanism | RandomizedResponse,
    *,
    epsilon: float,
    r: float,
    t: Any = None,
    sides: str = "both",
    target: Any = None,
    correct: Callable | None = None,
) -> ExactAdvantage:
    r"""Exact worst-case guessing advantage of ``mechanism`` at ``epsilon`` (Def. 7, Sec. 3.2).

    .. math:: \sup_{t}\ \sup_{y \in \mathbb R \cup \{\pm\infty\}}
       \left|\Pr_{post}[\mathcal B(t, r) \mid y] - \Pr_{pre}[\mathcal B(t, r)]\right|

    Parameters
    ----------
    prior : Prior
        The attacker's prior (any :mod:`garesearch.priors` prior).
    mechanism : Mechanism or RandomizedResponse
        :class:`~garesearch.mechanisms.Laplace`, ``Gaussian`` or ``GenCauchy`` noise on the
        query output, or :class:`~garesearch.mechanisms.RandomizedResponse` on the value of a
        :class:`~garesearch.priors.Categorical` prior (then ``y`` in the result is an output
        value and ``target`` does not apply).
    epsilon : float
        Epsilon per unit of the attribute (sets the noise scale), > 0.
    r : float
        Precision of a correct guess, ``>= 0`` (``< 1`` under the discrete metric).
    t : optional
        True value; ``None``: the worst one (all values of a finite prior; for a continuous
        prior a scan of :meth:`Prior.t_candidates` refined by Brent's method).
    sides : {"both", "upper", "lower"}
        Which deviation counts: :math:`|\cdot|` (Def. 7), the posterior's rise, or its fall.
    target : value or collection, optional
        Discrete metric only: the query is :math:`\mathrm{COUNT} = 1\{x \in \text{target}\}`,
        which moves by 1 between any value in the target and any value outside it (sensitivity
        1 under the discrete metric).  ``None``: the worst single-value target.
    correct : callable, optional
        Discrete metric only: ``correct(t)`` returns the values that count as a correct guess
        when the truth is ``t`` (default ``[t]``; an OR-event passes the union of its parts).

    Returns
    -------
    ExactAdvantage

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> from garesearch.mechanisms import Laplace
    >>> res = exact_advantage(Categorical({0: 0.5, 1: 0.5}), Laplace(), epsilon=1.0, r=0)
    >>> round(res.advantage, 6)  # (e - 1) / (2 (e + 1)) = tanh(1/2) / 2
    0.231059
    """
    check_exact_args(epsilon, sides)
    if isinstance(mechanism, RandomizedResponse):
        return _rr_advantage(prior, mechanism, float(epsilon), r, t, sides, target, correct)
    if isinstance(prior, Categorical) and prior.metric == "discrete" and target is None:
        results = [
            exact_advantage(prior, mechanism, epsilon=epsilon, r=r, t=t, sides=sides, target=v, correct=correct)
            for v in prior.values
        ]
        return max(results, key=lambda res: res.advantage)
    pb = _problem(prior, mechanism, float(epsilon), r, t, target, correct)
    best = _advantage(pb, float(epsilon), sides)
    up, low = float(best["upper"]), float(best["lower"])
    if sides == "lower" or (sides == "both" and low > up):
        side, y, post, adv = "lower", float(best["y_lower"]), float(best["inf"]), low
    else:
        side, y, post, adv = "upper", float(best["y_upper"]), float(best["sup"]), up
    return ExactAdvantage(
        advantage=max(adv, 0.0), t=best["t"], y=y, side=side, p=best["p"], posterior=post,
        upper=up, lower=low, y_upper=float(best["y_upper"]), y_lower=float(best["y_lower"]),
        epsilon=float(epsilon), r=float(r), mechanism=mechanism,
    )


# ------------------------------------------------------------------------------------------
# Randomized response: finitely many outputs, so the supremum over outputs is a maximum.
# ------------------------------------------------------------------------------------------
def _rr_posteriors(prior, mech, eps, r, t, target, correct):
    r"""True values, :math:`\Pr_{pre}[X']` per true value and :math:`\Pr_{post}[X' \mid y]` for every
    (true value, output) pair under k-ary randomized response on the prior's values."""
    if not isinstance(prior, Categorical):
        raise ParameterError(f"prior: randomized response needs a Categorical prior; got {type(prior).__name__}")
    if target is not None:
        raise ParameterError("target: randomized response releases the value itself, not a COUNT")
    if not (isinstance(r, (int, float, np.integer, np.floating)) and math.isfinite(r) and r >= 0):
        raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
    ts, sets, _ = _finite_sets(prior, r, t, correct)
    k = len(prior.values)
    if k < 2:
        raise ParameterError("prior: randomized response needs at least two values")
    joint = prior.probs[:, None] * np.exp(mech.log_likelihood(eps, k))  # (input, output)
    post = (sets.astype(float) @ joint) / joint.sum(axis=0)
    return ts, sets.astype(float) @ prior.probs, post


def _rr_advantage(prior, mech, eps, r, t, sides, target, correct) -> ExactAdvantage:
    r"""Exact advantage of k-ary randomized response (:class:`~garesearch.mechanisms.RandomizedResponse`).

    With :math:`u = e^\epsilon - 1` the posterior after output ``y`` is
    :math:`(p + u\,\pi(y) 1\{y \in X'\}) / (1 + u\,\pi(y))`: largest at the likeliest
    ``y`` in :math:`X'`, smallest at the likeliest ``y`` outside it.
    """
    ts, p, post = _rr_posteriors(prior, mech, eps, r, t, target, correct)
    j_sup, j_inf = np.argmax(post, axis=1), np.argmin(post, axis=1)
    rows = np.arange(len(ts))
    sup, inf = post[rows, j_sup], post[rows, j_inf]
    upper, lower = sup - p, p - inf
    i = int(np.argmax(_side_value(upper, lower, sides)))
    up, low = float(upper[i]), float(lower[i])
    if sides == "lower" or (sides == "both" and low > up):
        side, y, pst, adv = "lower", prior.values[j_inf[i]], float(inf[i]), low
    else:
        side, y, pst, adv = "upper", prior.values[j_sup[i]], float(sup[i]), up
    return ExactAdvantage(
        advantage=max(adv, 0.0), t=ts[i], y=y, side=side, p=float(p[i]), posterior=pst, upper=up,
        lower=low, y_upper=prior.values[j_sup[i]], y_lower=prior.values[j_inf[i]], epsilon=eps,
        r=float(r), mechanism=mech,
    )


def or_event(prior: Categorical) -> Callable:
    r"""``correct`` for an OR-event over tuple values (Sec. 4.3, Sec. 6.1): a guess is correct when it
    matches the truth in at least one component.

    Returns a callable ``t -> [values sharing a component with t]`` to pass as ``correct``.

    Examples
    --------
    Two attributes (colour, gender): a guess is correct when either component matches.

    >>> cats = Categorical({(c, g): 0.25 for c in ("red", "white") for g in "MF"})
    >>> or_event(cats)(("red", "M"))
    [('red', 'M'), ('red', 'F'), ('white', 'M')]
    """
    if not (isinstance(prior, Categorical) and prior.metric == "discrete"
            and all(isinstance(v, tuple) for v in prior.values)):
        raise ParameterError("prior must be a Categorical over tuples (one component per attribute)")

    def correct(t):
        return [v for v in prior.values if any(a == b for a, b in zip(v, t, strict=True))]

    return correct


def posterior(prior: Prior, mechanism: Mechanism, *, epsilon: float, r: float, t: Any, y,
              target: Any = None, correct: Callable | None = None):
    r"""Exact posterior :math:`\Pr_{post}[\mathcal B(t, r) \mid y]` (Sec. 3.2), vectorised over ``y``.

    ``y = +-inf`` gives the analytic limit.  ``target`` and ``correct`` as in
    :func:`exact_advantage` (discrete metric).  For
    :class:`~garesearch.mechanisms.RandomizedResponse`, ``y`` is a value of the prior or a
    list of values.

    Examples
    --------
    A fair coin released with Laplace noise of scale 1: the posterior of the truth ``t = 0``
    after ``y = 0`` is :math:`1 / (1 + e^{-\epsilon})` (likelihood ratio :math:`e^{\epsilon}`);
    at ``y = 1/2`` the likelihoods tie.

    >>> import math
    >>> from garesearch.mechanisms import Laplace
    >>> coin = Categorical({0: 0.5, 1: 0.5})
    >>> post = posterior(coin, Laplace(), epsilon=1.0, r=0, t=0, y=[0.0, 0.5])
    >>> bool(abs(post[0] - 1 / (1 + math.exp(-1))) < 1e-12), bool(abs(post[1] - 0.5) < 1e-12)
    (True, True)
    """
    check_exact_args(epsilon, "both")
    if t is None:
        raise ParameterError("t: give the true value")
    if isinstance(mechanism, RandomizedResponse):
        _, _, post = _rr_posteriors(prior, mechanism, float(epsilon), r, t, target, correct)
        return _rr_lookup(prior, post[0], y)
    pb = _problem(prior, mechanism, float(epsilon), r, t, target, correct)
    y = np.asarray(y, dtype=float)
    flat = y.ravel()
    out = np.empty_like(flat)
    fin = np.isfinite(flat)
    if np.any(fin):
        out[fin] = _post(pb.integ, flat[fin], pb.sets)[:, 0]
    for sign in (-1, 1):
        m = np.isinf(flat) & (np.sign(flat) == sign)
        if np.any(m):
            out[m] = pb.integ.limit(sign, pb.sets)[0]
    out = out.reshape(y.shape)
    return float(out) if out.ndim == 0 else out


def _rr_lookup(prior, post_row, y):
    """Posterior at output ``y`` (a value of the prior, or a list of values)."""
    one = not isinstance(y, list)
    out = []
    for v in [y] if one else y:
        if v not in prior.values:
            raise ParameterError(f"y: randomized response outputs a value of the prior; got {v!r}")
        out.append(float(post_row[prior.values.index(v)]))
    return out[0] if one else np.array(out)


# ------------------------------------------------------------------------------------------
# The largest epsilon whose exact advantage stays within delta.
# ------------------------------------------------------------------------------------------
def _spread(prior):
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        return 1.0
    q = np.asarray(prior.quantile(np.array([0.25, 0.75])), float)
    s = float(q[1] - q[0])
    if s > 0:
        return s
    low, high = prior.support
    return float(high - low) if high > low else 1.0


def exact_epsilon(
    prior: Prior,
    mechanism: Mechanism | RandomizedResponse,
    *,
    r: float,
    delta: float,
    t: Any = None,
    sides: str = "both",
    target: Any = None,
    correct: Callable | None = None,
    rtol: float = 1e-10,
) -> float:
    r"""The largest epsilon at which ``mechanism``'s exact advantage stays at most ``delta``.

    Returns the crossing :math:`A(\epsilon) = \delta` of the advantage :math:`A` of
    :func:`exact_advantage` (Def. 7, Sec. 3.2), the epsilon the paper's Eq. (main) would give if
    it were exact for this mechanism; compare it with
    :func:`~garesearch.attribute.epsilon_for_attribute` and
    :func:`~garesearch.pointwise.epsilon_pointwise`.  The crossing is bracketed by doubling (or
    quartering) from a scale set by the prior's spread, then found by Brent's method in
    :math:`\ln\epsilon`; the value returned satisfies :math:`A(\epsilon) \le \delta` and lies
    within relative ``rtol`` below the crossing.  :math:`A` grows with epsilon in every case
    garesearch computes; were it not monotone, the crossing found would be one inside the
    bracket.

    Parameters are those of :func:`exact_advantage`, with ``delta`` in (0, 1) and ``rtol`` in
    (0, 0.1).

    Raises
    ------
    InfeasibleError
        If the advantage exceeds ``delta`` at every epsilon (for instance Gaussian noise: its
        posterior tends to 0 or 1 in the far tails whatever the scale).

    Examples
    --------
    For a fair coin and ``r = 0`` the advantage is :math:`\tanh(\epsilon/2)/2`, so the crossing
    is :math:`2\,\mathrm{artanh}(2\delta)`:

    >>> import math
    >>> from garesearch.mechanisms import Laplace
    >>> coin = Categorical({0: 0.5, 1: 0.5})
    >>> eps = exact_epsilon(coin, Laplace(), r=0, delta=0.1)
    >>> abs(eps - 2 * math.atanh(0.2)) < 1e-9
    True
    """
    if not (isinstance(delta, (int, float, np.integer, np.floating)) and 0 < delta < 1):
        raise ParameterError(f"delta must lie in (0, 1); got {delta!r}")
    if not (isinstance(rtol, (int, float, np.integer, np.floating)) and 1e-14 <= rtol < 0.1):
        raise ParameterError(f"rtol must lie in [1e-14, 0.1); got {rtol!r}")

    hints: list = []  # worst true values seen so far: a violation there needs no full search
    full: dict = {}

    def adv(e):
        if e not in full:
            res = exact_advantage(prior, mechanism, epsilon=e, r=r, t=t, sides=sides, target=target,
                                  correct=correct)
            if t is None and target is None and res.t not in hints and not (
                    isinstance(res.t, float) and math.isinf(res.t)):
                hints.append(res.t)
            full[e] = res.advantage
        return full[e]

    def violated(e):
        for h in hints:
            if exact_advantage(prior, mechanism, epsilon=e, r=r, t=h, sides=sides, target=target,
                               correct=correct).advantage > delta:
                return True
        return adv(e) > delta

    e0 = 1.0 / _spread(prior)
    lo, hi = None, None
    if not violated(e0):
        lo, e = e0, e0
        for _ in range(80):
            e *= 2
            if violated(e):
                hi = e
                break
            lo = e
        else:
            return math.inf
    else:
        hi, e = e0, e0
        for _ in range(12):
            e /= 4
            if not violated(e):
                lo = e
                break
            hi = e
        else:
            raise InfeasibleError(
                f"the exact advantage of {mechanism!r} exceeds delta={delta} at every epsilon down to "
                f"{e:.3g} (worst side over all outputs); "
                + ("Gaussian noise is not epsilon-DP: its posterior tends to 0 or 1 as the output "
                   "goes to infinity, whatever the scale; use sides='upper' or the Bayes attacker"
                   if mechanism.tail == "light" else "use a larger delta")
            )
    e_far = _far_crossing(prior, mechanism, r, delta, lo, hi, rtol) if (
        t is None and target is None and sides != "lower") else None
    if e_far is not None and not violated(e_far):
        return e_far
    # A(lo) <= delta < A(hi), narrowed in log-epsilon by every evaluation inside
    x_lo, _ = narrow_bracket(lambda x: adv(math.exp(x)) - delta, math.log(lo), math.log(hi),
                             tol=math.log1p(rtol), rtol=4 * np.finfo(float).eps)
    return lo if x_lo == math.log(lo) else math.exp(x_lo)  # an end that was evaluated
