r"""The tail reading: how likely a release moves the posterior of a correct guess by more than delta.

Beyond the paper, which states the reading as :math:`(\epsilon', \delta')` guessing advantage
(App. B) and bounds it through a density-level inequality that :math:`(\epsilon,\delta)`-DP does
not give (see :mod:`garesearch.approx_dp`).  Here it is computed exactly for the mechanism at
hand: with :math:`X' = \mathcal B(t, r)`, :math:`p = \Pr_{pre}[X']` and
:math:`\pi_t(y) = \Pr_{post}[X' \mid y]`,

.. math::

    \beta(t) = \Pr_{y \sim M(t)}\bigl[\,|\pi_t(y) - p| > \delta\,\bigr], \qquad
    \beta = \sup_t \beta(t):

the advantage of Def. 7 exceeds ``delta`` only on outputs of total probability at most
:math:`\beta`.  Gaussian noise, whose worst case over outputs is infeasible at every scale
(its posterior tends to 0 or 1 on rare outputs), has a small :math:`\beta` at a moderate scale.

The set of bad outputs is found exactly, not on a grid.  For Laplace and Gaussian noise (and
their integer variants) the posterior of an interval is unimodal in ``y``
(:attr:`garesearch.additive.ScaledNoise.unimodal`), so :math:`\{\pi_t > p + \delta\}` is an
interval around the posterior's maximum and :math:`\{\pi_t < p - \delta\}` the complement of
an interval: the maximum is located (a grid reaching :math:`10^6` noise scales, refined by
Brent's method), each end is bracketed by stepping outward from it (the far tails are settled
by the posterior's limits at :math:`\pm\infty`) and found by Brent's method, and the mass of the
set under :math:`M(t)` comes from the noise CDFs.  For a Normal prior with Gaussian noise the
posterior is normal, :math:`\mathcal N(m(y), s^2)` with :math:`m` affine in ``y``; the bad set is
:math:`\{|m(y) - t| < d_+\} \cup \{|m(y) - t| > d_-\}` with :math:`d_\pm` roots of a decreasing
function, and :math:`\beta(t)` is a sum of normal CDFs, vectorised over ``t``.  Generalised
Cauchy noise has no unimodality: its bad set is bracketed on a grid of outputs (out to
:math:`10^{8}` scales) and its ends refined by Brent's method.

The worst true value is searched globally: every atom of a finite prior; for a continuous
prior the scan of :meth:`garesearch.priors.Prior.t_candidates` (a dense grid over 40 prior
standard deviations for the Normal-Gaussian closed form), refined by Brent's method.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._args import check_sides
from .._plain import PlainFields
from ..additive import ScaledNoise, check_scale, resolve
from ..errors import ParameterError
from ..priors import Categorical, Normal, Prior

__all__ = ["TailResult", "advantage_tail"]


@dataclass(frozen=True)
class TailResult(PlainFields):
    r"""What :func:`advantage_tail` found.

    Attributes
    ----------
    beta : float
        :math:`\beta(t)` at the (worst) true value.
    t : float
        The (worst) true value.
    p : float
        :math:`\Pr_{pre}[\mathcal B(t, r)]`.
    beta_upper, beta_lower : float
        Probability that the posterior exceeds ``p + delta`` / falls below ``p - delta``.
    upper_set : tuple or None
        ``(a, b)``: the outputs with posterior above ``p + delta`` form the interval
        ``(a, b)`` (``None``: no such output; unimodal mechanisms only).
    lower_set : tuple or None
        ``(a, b)``: the outputs with posterior below ``p - delta`` are those outside ``[a, b]``
        (ends may be infinite; ``None``: no such output; unimodal mechanisms only).
    delta, r, scale : float
    releases : int
    mechanism : str
    method : str
    """

    beta: float
    t: float
    p: float
    beta_upper: float
    beta_lower: float
    upper_set: tuple | None
    lower_set: tuple | None
    delta: float
    r: float
    scale: float
    releases: int
    mechanism: str
    method: str


def _check(prior, r, delta, sides, releases):
    if not isinstance(prior, Prior):
        raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
    if isinstance(prior, Categorical) and prior.metric != "absolute":
        raise ParameterError("prior: the tail reading needs numeric values (a Categorical with numeric keys)")
    if not (isinstance(r, (int, float, np.integer, np.floating)) and math.isfinite(r) and r >= 0):
        raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
    if not (isinstance(delta, (int, float, np.integer, np.floating)) and 0 < delta < 1):
        raise ParameterError(f"delta must lie in (0, 1); got {delta!r}")
    check_sides(sides)
    if not (isinstance(releases, (int, np.integer)) and not isinstance(releases, bool) and releases >= 1):
        raise ParameterError(f"releases must be an integer >= 1; got {releases!r}")
    return float(r), float(delta), int(releases)


# ------------------------------------------------------------------------------------------
# Normal prior, Gaussian noise: closed form, vectorised over t.
# ------------------------------------------------------------------------------------------
def _normal_gaussian(prior: Normal, s, r, delta, t, sides):
    r""":math:`\beta(t)` (upper, lower) for an array ``t`` (module docstring).

    Posterior :math:`\mathcal N(m, v)`, :math:`m = (\mu s^2 + y\sigma^2)/(\sigma^2 + s^2)`,
    :math:`v = \sigma^2 s^2/(\sigma^2 + s^2)`; its mass on :math:`[t-r, t+r]` is
    :math:`G(|m - t|)`, :math:`G(d) = \Phi((r - d)/\sqrt v) - \Phi((-r - d)/\sqrt v)`, decreasing
    in ``d``.  Under :math:`y \sim \mathcal N(t, s^2)`, :math:`m \sim \mathcal N(m_t, \tau^2)`
    with :math:`m_t = (\mu s^2 + t\sigma^2)/(\sigma^2 + s^2)`, :math:`\tau = \sigma^2 s/(\sigma^2+s^2)`.
    """
    from scipy.special import ndtr

    mu, sig = prior.mu, prior.sigma
    t = np.asarray(t, float)
    tot = sig * sig + s * s
    sd = sig * s / math.sqrt(tot)
    m_t = (mu * s * s + t * sig * sig) / tot
    tau = sig * sig * s / tot
    p = np.asarray(prior.mass(t - r, t + r), float)

    def G(d):
        return ndtr((r - d) / sd) - ndtr((-r - d) / sd)

    def d_for(c):
        """The d >= 0 with G(d) = c (nan where c >= G(0): no such d; inf where c <= 0)."""
        lo, hi = np.zeros_like(c), np.full_like(c, r + 40 * sd)
        for _ in range(200):
            mid = (lo + hi) / 2
            above = G(mid) > c
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
            if np.all(hi - lo <= 1e-15 * np.maximum(1.0, hi)):
                break
        out = (lo + hi) / 2
        return np.where(c >= G(0.0), np.nan, np.where(c <= 0, np.inf, out))

    def inside(d):  # Pr[|m - t| < d]
        return ndtr((t + d - m_t) / tau) - ndtr((t - d - m_t) / tau)

    up = np.zeros_like(t)
    low = np.zeros_like(t)
    if sides in ("both", "upper"):
        du = d_for(p + delta)
        up = np.where(np.isnan(du), 0.0, inside(np.nan_to_num(du, nan=0.0)))
    if sides in ("both", "lower"):
        cl = p - delta
        dl = d_for(cl)
        low = np.where(cl <= 0, 0.0, np.where(np.isnan(dl), 1.0, 1.0 - inside(np.nan_to_num(dl, nan=0.0, posinf=0.0))))
    return up, low, p


# ------------------------------------------------------------------------------------------
# General case: one true value at a time, through the exact posterior.
# ------------------------------------------------------------------------------------------
class _Posterior:
    """:func:`garesearch.exact.posterior` at one true value, its problem set up once."""

    def __init__(self, prior, noise: ScaledNoise, s, r, t):
        from ..exact.core import _post, _problem

        pb = _problem(prior, noise.kernel, noise.epsilon_arg(s), r, t, None, None)
        self.lim_m, self.lim_p = (float(pb.integ.limit(sign, pb.sets)[0]) for sign in (-1, 1))

        def f(y):
            y = np.asarray(y, float)
            out = np.where(y < 0, self.lim_m, self.lim_p)  # the limits at +-inf
            fin = np.isfinite(y)
            if np.any(fin):
                out[fin] = _post(pb.integ, y[fin], pb.sets)[:, 0]
            return out

        self.f = f

    def __call__(self, y):
        return self.f(y)

    def one(self, y):
        return float(self.f(np.array([y]))[0])


def _centre_grid(prior, t, s):
    if isinstance(prior, Categorical):
        core = prior.points
    else:
        core = np.asarray(prior.quantile(np.array([1e-9, 1e-6, 1e-3, 0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98,
                                                   0.999, 1 - 1e-6, 1 - 1e-9])), float)
        core = core[np.isfinite(core)]
    lo, hi = min(float(core.min()), t), max(float(core.max()), t)
    far = s * np.geomspace(1e-2, 1e6, 60)
    dense = np.linspace(lo - 4 * s, hi + 4 * s, 161)
    return np.unique(np.concatenate([core, dense, t - far, t + far, lo - far, hi + far, [t]]))


def _mode(post: _Posterior, ys, vals):
    from scipy.optimize import minimize_scalar

    i = int(np.argmax(vals))
    best_y, best_v = float(ys[i]), float(vals[i])
    a, b = ys[max(i - 1, 0)], ys[min(i + 1, ys.size - 1)]
    if b > a:
        res = minimize_scalar(lambda y: -post.one(y), bounds=(a, b), method="bounded",
                              options={"xatol": 1e-12 * max(1.0, abs(b - a))})
        if -res.fun > best_v:
            best_y, best_v = float(res.x), float(-res.fun)
    return best_y, best_v


def _crossing(post: _Posterior, y0, side, c, s, above: bool):
    r"""End of :math:`\{\pi > c\}` (``above``) or :math:`\{\pi < c\}` on one side of the mode ``y0``.

    ``side`` is -1 (left) or +1 (right); assumes :math:`\pi` is monotone there and that the set
    contains ``y0``'s side near ``y0`` (above) / the far tail (below).  Returns the crossing, or
    ``inf`` with the side's sign when the whole side belongs to the set.
    """
    from scipy.optimize import brentq

    def inside(v):
        return v > c if above else v < c

    lim = post.lim_m if side < 0 else post.lim_p
    if above and inside(lim):
        return side * math.inf
    step, y_far = s, None
    for _ in range(200):
        y = y0 + side * step
        v = post.one(y)
        if inside(v) != above:  # above: first point outside; below: first point inside
            y_far = y
            break
        step *= 2
    if y_far is None:
        return side * math.inf if above else y0
    a, b = sorted((y0, y_far))
    fa, fb = post.one(a) - c, post.one(b) - c
    if fa == 0 or fb == 0 or fa * fb > 0:
        return y_far
    return float(brentq(lambda y: post.one(y) - c, a, b, xtol=1e-12 * max(1.0, abs(a), abs(b)), rtol=1e-15))


def _mass(noise: ScaledNoise, s, t, lo, hi, open_ends=True):
    """Pr[lo < Y < hi] for Y = t + Z (integer noise: the integers strictly inside)."""
    if not hi > lo:
        return 0.0
    if noise.discrete:
        a = math.floor(lo) + 1 if math.isfinite(lo) else -math.inf
        b = math.ceil(hi) - 1 if math.isfinite(hi) else math.inf
        return float(np.exp(noise.log_interval(a - t, b - t, s)))
    return float(np.exp(noise.log_interval(lo - t, hi - t, s)))


def _int_end(post, x, c, above, side):
    r"""The last integer of the bad set at its real end ``x`` (integer noise), checked on the posterior.

    ``above``: the set :math:`\{\pi > c\}` ends at ``x`` on its ``side`` (-1: left end, +1: right
    end); otherwise :math:`\{\pi < c\}` is a tail that ends at ``x`` (``side`` -1: the left tail).
    Returns a half-integer boundary.
    """
    def bad(k):
        v = post.one(k)
        return v > c if above else v < c

    if not math.isfinite(x):
        return x
    # direction pointing into the set from the boundary
    inward = -side if above else side
    k = math.ceil(x) if inward > 0 else math.floor(x)  # first integer on the set's side
    if bad(k - inward):
        k -= inward
    elif not bad(k):
        k += inward
    return k - inward * 0.5


def _unimodal_beta(prior, noise, s, r, delta, t, sides):
    post = _Posterior(prior, noise, s, r, t)
    p = float(prior.mass(t - r, t + r))
    ys = _centre_grid(prior, t, s)
    vals = post(ys)
    y0, v0 = _mode(post, ys, vals)
    if max(post.lim_m, post.lim_p) > v0:  # the supremum is a limit
        y0 = -math.inf if post.lim_m >= post.lim_p else math.inf
        v0 = max(post.lim_m, post.lim_p)
    up_set = low_set = None
    b_up = b_low = 0.0
    cu, cl = p + delta, p - delta
    if sides in ("both", "upper") and v0 > cu and math.isfinite(y0):
        a = _crossing(post, y0, -1, cu, s, True)
        b = _crossing(post, y0, +1, cu, s, True)
        if noise.discrete:
            a, b = _int_end(post, a, cu, True, -1), _int_end(post, b, cu, True, +1)
        up_set = (a, b)
        b_up = _mass(noise, s, t, a, b)
    elif sides in ("both", "upper") and v0 > cu:  # sup only in a limit: the far tail beyond a crossing
        side = 1 if y0 > 0 else -1
        ref = float(ys[-1] if side > 0 else ys[0])
        a = _crossing(post, ref, -side, cu, s, True) if post.one(ref) > cu else ref
        up_set = (a, math.inf) if side > 0 else (-math.inf, a)
        b_up = _mass(noise, s, t, *up_set)
    if sides in ("both", "lower") and cl > 0:
        if not math.isfinite(y0) or v0 < cl:
            if v0 < cl:
                low_set, b_low = (math.nan, math.nan), 1.0
        if low_set is None:
            ref = y0 if math.isfinite(y0) else float(ys[np.argmax(vals)])
            a = _crossing(post, ref, -1, cl, s, False) if post.lim_m < cl else -math.inf
            b = _crossing(post, ref, +1, cl, s, False) if post.lim_p < cl else math.inf
            if math.isfinite(a) or math.isfinite(b):
                if noise.discrete:
                    a, b = _int_end(post, a, cl, False, -1), _int_end(post, b, cl, False, +1)
                low_set = (a, b)
                b_low = _mass(noise, s, t, -math.inf, a) + _mass(noise, s, t, b, math.inf)
    return b_up, b_low, p, up_set, low_set


def _grid_beta(prior, noise, s, r, delta, t, sides):
    """Generalised Cauchy: bad outputs bracketed on a grid, ends refined (module docstring)."""
    from scipy.optimize import brentq

    post = _Posterior(prior, noise, s, r, t)
    p = float(prior.mass(t - r, t + r))
    core = _centre_grid(prior, t, s)
    ys = np.unique(np.concatenate([core, np.linspace(core.min(), core.max(), 4001),
                                   t + s * np.geomspace(1e6, 1e8, 30), t - s * np.geomspace(1e6, 1e8, 30)]))
    vals = post(ys)
    out = {}
    for key, c, above in (("upper", p + delta, True), ("lower", p - delta, False)):
        if sides not in ("both", key) or (not above and c <= 0):
            out[key] = 0.0
            continue
        bad = vals > c if above else vals < c
        lim_bad = (post.lim_m > c, post.lim_p > c) if above else (post.lim_m < c, post.lim_p < c)
        edges = [-math.inf] if lim_bad[0] else []
        for i in np.nonzero(bad[1:] != bad[:-1])[0]:
            a, b = ys[i], ys[i + 1]
            edges.append(float(brentq(lambda y, c=c: post.one(y) - c, a, b, xtol=1e-12 * max(1.0, abs(a)))))
        if lim_bad[1]:
            edges.append(math.inf)
        if len(edges) % 2:  # the grid's end is inside the set without the limit: close at the end
            edges.append(float(ys[-1]))
        out[key] = sum(_mass(noise, s, t, edges[j], edges[j + 1]) for j in range(0, len(edges), 2))
    return out["upper"], out["lower"], p, None, None


def _beta_t(prior, noise, s, r, delta, t, sides):
    if noise.unimodal:
        return _unimodal_beta(prior, noise, s, r, delta, t, sides)
    return _grid_beta(prior, noise, s, r, delta, t, sides)


def advantage_tail(prior: Prior, mechanism, *, scale: float | None = None, r: float, delta: float, t=None,
                   releases: int = 1, sides: str = "both") -> TailResult:
    r"""Probability :math:`\beta` that one release moves the posterior of a correct guess by more than ``delta``.

    The tail reading (module docstring): beyond the paper, its App. B done exactly.

    Parameters
    ----------
    prior : Prior
        The attacker's prior (numeric values; integers for the integer mechanisms).
    mechanism : str, mechanism object, Composition or list of (str, float)
        :data:`garesearch.additive.MECHANISMS` or a mechanism object; or different Gaussian
        releases (:class:`garesearch.releases.accounting.Composition`, or a list of
        ``("gaussian", scale)`` pairs): their precision-weighted mean is sufficient, so they are
        one release of scale :math:`(\sum_i \sigma_i^{-2})^{-1/2}` (exact).
    scale : float
        Noise scale per unit of the attribute, > 0 (required for one mechanism); for a
        composition a common factor on its scales (default 1).
    r : float
        Precision of a correct guess, >= 0.
    delta : float
        Advantage threshold, in (0, 1).
    t : float, optional
        True value; ``None``: the worst one (global search).
    releases : int
        Independent releases: Gaussian noise only (``k`` releases of scale :math:`\sigma` are one
        of scale :math:`\sigma/\sqrt k`).
    sides : {"both", "upper", "lower"}
        Which deviation counts.

    Returns
    -------
    TailResult

    See Also
    --------
    garesearch.releases.calibration.calibrate : The smallest scale that meets a target on ``beta`` (``reading="tail"``).
    garesearch.releases.reconstruction.reconstruction_advantage : The average reading.

    Examples
    --------
    >>> from garesearch.priors import Normal
    >>> res = advantage_tail(Normal(0, 1), "gaussian", scale=2.0, r=0.5, delta=0.1, t=0.0)
    >>> 0 < res.beta < 1
    True
    """
    from .accounting import as_composition

    r, delta, k = _check(prior, r, delta, sides, releases)
    comp = as_composition(mechanism)
    if comp is None:
        noise = resolve(mechanism)
        s = check_scale(scale)
        label = noise.name
    else:
        if not comp.all_gaussian:
            raise ParameterError(
                f"mechanism: the tail reading of the composition {comp.label} is exact for Gaussian parts only "
                "(their precision-weighted mean is sufficient); pass a list of ('gaussian', scale) pairs, or one "
                "release of any noise"
            )
        scale = 1.0 if scale is None else check_scale(scale)
        noise, s, label = resolve("gaussian"), comp.gaussian_scale * scale, comp.label
    if k > 1:
        if noise.name != "gaussian":
            raise ParameterError(
                f"releases={k}: the tail reading of composed releases is exact for Gaussian noise (the mean "
                f"of the releases is sufficient); {noise.name} noise is supported for one release"
            )
        s = s / math.sqrt(k)
    finite = isinstance(prior, Categorical)
    if noise.discrete and not (finite and np.all(prior.points == np.round(prior.points))):
        raise ParameterError(f"prior: {noise.name} noise needs a Categorical prior on integers")
    if t is not None:
        if not (isinstance(t, (int, float, np.integer, np.floating)) and math.isfinite(t)):
            raise ParameterError(f"t must be a finite number; got {t!r}")
        if finite and not np.any(prior.points == t):
            raise ParameterError(f"t must be a value of the prior; got {t}, values {prior.values}")
        if not finite:
            low, high = prior.support
            if not low <= t <= high:
                raise ParameterError(f"t must lie in the prior's support [{low}, {high}]; got {t}")
    base = dict(delta=delta, r=r, scale=float(scale), releases=k, mechanism=label)

    if isinstance(prior, Normal) and noise.name == "gaussian":
        method = "closed form (normal posterior)"
        if t is not None:
            up, low, p = _normal_gaussian(prior, s, r, delta, np.array([float(t)]), sides)
            return TailResult(beta=float(up[0] + low[0]), t=float(t), p=float(p[0]), beta_upper=float(up[0]),
                              beta_lower=float(low[0]), upper_set=None, lower_set=None, method=method, **base)
        ts = prior.mu + prior.sigma * np.concatenate([np.sinh(np.linspace(-4.4, 4.4, 4001)), [0.0]])
        ts = np.unique(np.concatenate([ts, prior.mu + np.array([-r, r])]))

        def total(tt):
            u, lo, _ = _normal_gaussian(prior, s, r, delta, np.atleast_1d(tt), sides)
            return u + lo
        vals = total(ts)
        best_t = _refine_max(lambda x: float(total(np.array([x]))[0]), ts, vals)
        up, low, p = _normal_gaussian(prior, s, r, delta, np.array([best_t]), sides)
        return TailResult(beta=float(up[0] + low[0]), t=float(best_t), p=float(p[0]), beta_upper=float(up[0]),
                          beta_lower=float(low[0]), upper_set=None, lower_set=None, method=method, **base)

    method = ("exact bad set (unimodal posterior: mode and two Brent roots per threshold)" if noise.unimodal
              else "bad set bracketed on a grid of outputs, ends by Brent's method")
    if t is not None:
        ts = [float(t)]
    elif finite:
        ts = [float(v) for v in prior.points]
    else:
        ts = [float(v) for v in prior.t_candidates(r)]
    cache: dict[float, tuple] = {}

    def at(tt):
        tt = float(tt)
        if tt not in cache:
            cache[tt] = _beta_t(prior, noise, s, r, delta, tt, sides)
        return cache[tt]

    vals = np.array([sum(at(tt)[:2]) for tt in ts])
    best_t = ts[int(np.argmax(vals))]
    if t is None and not finite:
        best_t = _refine_max(lambda x: float(sum(at(x)[:2])), np.asarray(ts), vals)
    b_up, b_low, p, up_set, low_set = at(best_t)
    return TailResult(beta=float(b_up + b_low), t=float(best_t), p=p, beta_upper=float(b_up),
                      beta_lower=float(b_low), upper_set=up_set, lower_set=low_set, method=method, **base)


def _refine_max(fun, ts, vals):
    """Refine the best grid point of ``fun`` by bounded Brent between its neighbours."""
    from scipy.optimize import minimize_scalar

    ts = np.asarray(ts, float)
    order = np.argsort(ts)
    ts, vals = ts[order], np.asarray(vals)[order]
    i = int(np.argmax(vals))
    best_t, best_v = float(ts[i]), float(vals[i])
    a, b = ts[max(i - 1, 0)], ts[min(i + 1, ts.size - 1)]
    if b > a and best_v > 0:
        res = minimize_scalar(lambda x: -fun(x), bounds=(a, b), method="bounded",
                              options={"xatol": 1e-9 * max(1.0, abs(b - a))})
        if -res.fun > best_v:
            best_t = float(res.x)
    return best_t
