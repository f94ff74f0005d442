r"""The optimal epsilon: the largest epsilon at which *no* epsilon-DP mechanism lets the
attacker's posterior move by more than delta (Def. 7, Sec. 4.1; the optimum is beyond the paper).

The worst case over mechanisms
------------------------------
Fix one output ``y`` of an :math:`\epsilon`-DP mechanism (w.r.t. the attribute's distance
``d``).  Its likelihood :math:`L(x) = f(y \mid x)` satisfies
:math:`L(x) \le e^{\epsilon d(x, x')} L(x')`, so :math:`\log L` is
:math:`\epsilon`-Lipschitz.  Conversely every such ``L`` is, up to scale, the likelihood of an
output of an :math:`\epsilon`-DP mechanism: emit ``y`` with probability
:math:`L(x) / (2 \sup L)` and ``y'`` otherwise; :math:`(1 - cL(x)) / (1 - cL(x')) \le
e^{\epsilon d}` holds because :math:`c L(x') (1 + e^{-\epsilon d}) \le 1` (an unbounded ``L``
is the limit of its truncations :math:`\min(L, n)`, which stay Lipschitz).  The worst
posteriors of :math:`X' = \mathcal B(t, r)` over all mechanisms and outputs are therefore

.. math::

    U = \sup_L \frac{\int_{X'} L\, dF}{\int L\, dF}, \qquad
    V = \inf_L \frac{\int_{X'} L\, dF}{\int L\, dF},

and the optimal epsilon is the largest one with :math:`U - p_t \le \delta` and
:math:`p_t - V \le \delta` for every true value ``t`` (``sides="upper"``: the first only).
Both are monotone in epsilon (the mechanisms allowed grow with it).

On the real line the extremes are kernels
-----------------------------------------
Let :math:`X' \cap \mathrm{supp} F` lie in :math:`[l, h]` with ``l``, ``h`` in the support
and fix :math:`u = L(l)`, :math:`v = L(h)`.  Outside :math:`[l, h]` the Lipschitz condition
gives :math:`L(x) \ge v e^{-\epsilon(x - h)}` (right) and :math:`\ge u e^{-\epsilon(l - x)}`
(left), inside :math:`L(x) \le \min(u e^{\epsilon(x - l)}, v e^{\epsilon(h - x)})`, and all
three are attained at once by one tent: :math:`U` is reached by the **Laplace kernel**
:math:`L_c(x) = e^{-\epsilon |x - c|}` with :math:`c \in [l, h]` (the likelihood of the Laplace
mechanism's output :math:`y = c`), and :math:`V` by the mirror argument by the **inverted
kernel** :math:`e^{+\epsilon|x - c|}`, :math:`c \in [l, h]` (not a Laplace output; it binds for
some priors).  For a finite prior the ratio is, between two consecutive atoms, a Moebius
function of :math:`e^{2\epsilon c}`, so ``c`` ranges over the atoms of :math:`X'` only.

Every weight is a *tilted tail* of the prior (:meth:`garesearch.priors.Prior.log_tilted_tail`):
with :math:`k = \pm\epsilon`,

.. math::

    \int L_c\, dF = e^{\mathrm{LT}_k(c)} + e^{\mathrm{RT}_{-k}(c)}, \qquad
    \int_{X \setminus X'} L_c\, dF = e^{-k(c - l) + \mathrm{LT}_k(l^-)}
                                  + e^{-k(h - c) + \mathrm{RT}_{-k}(h^+)},

(:math:`k = +\epsilon` for :math:`U`, :math:`-\epsilon` for :math:`V`).

Far tails
---------
For an unbounded support the worst case over ``t`` may be approached only as
:math:`t \to \pm\infty`.  Where the density near ``t`` behaves like :math:`e^{-\lambda u}`,
the kernel at :math:`c = t + \lambda r / \epsilon` gives, in the limit,
:math:`U \to 1 - e^{-r(\epsilon^2 - \lambda^2)/\epsilon}` for :math:`\epsilon > \lambda` (0
otherwise) while :math:`p_t \to 0`: for tails heavier than every exponential
(:math:`\lambda = 0`) the optimum can never exceed :math:`-\ln(1 - \delta)/r`.  No sample of a
density can tell a small rate from a vanishing one, so the tails are *declared*, never fitted:
:meth:`garesearch.priors.Prior.tail` (scipy's families by a table derived from their formulas,
:mod:`garesearch.enclosures.tails`; any other distribution by ``Continuous(dist, tail=...)``, else the
sound default, heavier than every exponential).  The scan over ``t`` covers the tails down to
masses of 1e-30 (where float64 still resolves the ball); beyond it the limit is taken with
:math:`\lambda` the smallest hazard rate the declared tail allows there
(:func:`garesearch.optimal._kernels_certify.far_tail_epsilon`).

What is certified
-----------------
The answer is the safe end of a bracket ``[epsilon, epsilon_hi]``:

- every tilted mass is an enclosure (:mod:`garesearch.enclosures.tilted`): closed forms with bounded
  rounding for normal, uniform, piecewise-uniform and finite priors; for a scipy prior, panels
  of its CDF and log-density (second order where its family declares the curvature of its
  log-density, :mod:`garesearch.enclosures.curvature`; first order otherwise), assuming scipy's
  ``cdf`` / ``sf`` / ``logpdf`` accurate to :data:`garesearch.enclosures.tilted.LIB_RTOL` relative;
- at every true value examined, a branch and bound over the kernel centres shows every
  margin at most 0 (:class:`garesearch.optimal._kernels.Margins`): for a finite prior every atom,
  so the answer is proven outright; for a density, the grid through the far tails and the
  local maxima refined from it (the search over true values is global but not a proof
  between its points; the tests check it against an independent dense scan);
- beyond the scan, the far-tail limit of the declared tails;
- at ``epsilon_hi`` the worst kernel found is shown to move the posterior by more than
  ``delta`` (or the far-tail limit is reached), so no sound answer lies above it.

Small ``delta`` is kept exact by the excess form of the margins (``log1p`` of the kernels'
excesses over the masses, :meth:`garesearch.optimal._kernels.Margins.margin_excess`); ties between
equally bad true values go to the larger one (:func:`tie_break`).  Nothing depends on the
clock: every search runs a fixed schedule.

The search over true values and kernel centres: ``_optimal_density`` (grid, refinement, far
tails: the estimate) and :mod:`garesearch.optimal._kernels` (the proof, and the exact enumeration of a
finite prior); :func:`worst_posterior_lp` solves the finite problem as a linear program (a
check).  This module solves for epsilon and holds the public API.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import bound
from .._args import SIDES
from .._plain import PlainFields
from .._roots import grow_bracket_evenly, secant_root
from .._univariate import check_common, laplace_scale
from ..errors import InfeasibleError, ParameterError
from ..priors import Categorical, Prior, _middle
from ._kernels import Margins, logit_bounds
from ._kernels_certify import Side, certify_density, far_tail_epsilon, solve_finite
from ._optimal_density import S_GRID, DensityProblem
from ._optimal_finite import FiniteProblem, worst_posterior_lp

__all__ = ["OptimalResult", "epsilon_optimal", "posterior_extremes", "worst_posterior_lp"]


# ------------------------------------------------------------------------------------------
# Public API
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OptimalResult(PlainFields):
    r"""What :func:`epsilon_optimal` found.

    Attributes
    ----------
    epsilon : float
        The largest epsilon at which no epsilon-DP mechanism moves the posterior of
        :math:`\mathcal B(t, r)` by more than ``delta`` (per unit of the attribute's
        distance); ``inf`` when every epsilon does (no noise needed).
    t : Any
        The worst true value (``inf`` / ``-inf``: the far-tail limit binds).
    p : float
        Prior mass of :math:`\mathcal B(t, r)` (0 for the far-tail limit).
    binding : str
        ``"upper"`` (the attacker's gain), ``"lower"`` (the loss) or ``"none"``.
    epsilon_upper, epsilon_lower : float
        The optimum of each side (``inf`` where a side never binds or was not asked for).
    centre : float or label
        The worst-case likelihood: the kernel :math:`e^{-\epsilon|x - c|}` (upper side; the
        Laplace mechanism's output ``y = c``) or :math:`e^{+\epsilon|x - c|}` (lower side)
        with this ``c``.  Under the discrete metric (a :class:`Categorical` prior with
        labels) ``c`` is the worst true value's label and the kernel
        :math:`e^{\mp\epsilon\, d(x, c)}`, ``d`` the discrete metric (Sec. 4.1).
    posterior : float
        The posterior that kernel gives :math:`\mathcal B(t, r)` at ``epsilon``.
    far_tail : bool
        Whether the worst case is the limit :math:`t \to \pm\infty`.
    epsilon_hi : float
        The bracket's other end: at ``epsilon_hi`` the kernel at ``centre`` is shown to move the
        posterior by more than ``delta`` (the far-tail limit where ``far_tail``), so the optimum
        lies in ``[epsilon, epsilon_hi]``.
    """

    epsilon: float
    t: Any
    r: float
    delta: float
    p: float
    binding: str
    epsilon_upper: float
    epsilon_lower: float
    centre: float | None
    posterior: float | None
    sides: str
    far_tail: bool = False
    construction: str = "optimal"
    prior: Prior = field(repr=False, default=None)
    epsilon_hi: float = math.nan

    laplace_scale = laplace_scale

    def posterior_bound(self) -> float:
        """The largest posterior of the ball any epsilon-DP mechanism gives at ``epsilon``
        (at most ``p + delta``; the far-tail limit when ``far_tail``)."""
        if math.isinf(self.epsilon):
            return 1.0
        if self.far_tail:
            return self.posterior if self.binding == "upper" else math.nan
        return posterior_extremes(self.prior, t=self.t, r=self.r, epsilon=self.epsilon)["upper"]

    def kernel(self, x):
        r"""The worst-case likelihood at ``epsilon``, :math:`e^{\mp\epsilon|x - c|}` (up to scale;
        under the discrete metric :math:`e^{\mp\epsilon\, d(x, c)}` of a label ``x``, or of
        each label of a list ``x``)."""
        if self.centre is None or math.isinf(self.epsilon):
            raise ParameterError("this result has no witness likelihood (no noise is needed)")
        sign = -1.0 if self.binding == "upper" else 1.0
        if isinstance(self.prior, Categorical) and self.prior.metric == "discrete":
            d = [0.0 if v == self.centre else 1.0 for v in (x if isinstance(x, list) else [x])]
            k = np.exp(sign * self.epsilon * np.array(d))
            return k if isinstance(x, list) else float(k[0])
        return np.exp(sign * self.epsilon * np.abs(np.asarray(x, dtype=float) - self.centre))


def _problem(prior, r, delta=0.5):
    if isinstance(prior, Categorical):
        return FiniteProblem(prior, r, delta)
    return DensityProblem(prior, r, delta)


def _limit(pb, eps, side, ts):
    return pb.limit(eps, side) if ts is None else (-math.inf, None)


def _solve(pb, delta, side, ts):
    """An estimate of the side's epsilon for a prior with a density: ``(eps, t, c, value)``
    (the proof follows in :func:`garesearch.optimal._kernels_certify.certify_density`).

    The root of the grid's largest margin first (on the coarse tables,
    :class:`garesearch.optimal._optimal_density.DensityProblem`), then secant steps on the refined
    maxima of the best grid points (warm-started across epsilons), checked against the whole
    grid at the final epsilon (a better region found there joins the candidates).
    """
    small, big = pb.spread()
    # a first guess: the far-tail limit of a flat prior, epsilon r = -ln(1 - delta)
    x0 = math.log(-math.log1p(-delta) / pb.r) if pb.r > 0 else math.log(1.0 / big)
    limit = (lambda e: _limit(pb, e, side, ts)[0])  # noqa: E731
    grid_ts = pb.ts if ts is None else ts
    t_range = (float(grid_ts[0]), float(grid_ts[-1]))

    def g_grid(x):
        e = math.exp(x)
        return max(float(np.max(pb.grid(e, side, grid_ts))), limit(e)) - delta

    lo, hi = grow_bracket_evenly(g_grid, x0, small, big, delta)
    if hi is None:
        if g_grid(lo) == -math.inf:  # no true value can bind: no noise needed
            return math.inf, None, None, None
        hi = lo + math.log(4.0)  # not reached below 1e304: the estimate stays there
    if lo is None:
        e = math.exp(hi)
        adv = pb.grid(e, side, grid_ts)
        i, j = np.unravel_index(int(np.argmax(adv)), adv.shape)
        return 0.0, float(grid_ts[i]), pb.centre(float(grid_ts[i]), float(S_GRID[j])), float(adv[i, j])
    x = secant_root(g_grid, 0.5 * (lo + hi), lo, hi, rtol=1e-6, sound=False)
    cands = pb.candidates(pb.grid(math.exp(x), side, grid_ts), grid_ts)

    def local(x, every=True):
        """(value, best candidate or None for the far-tail limit) at log-epsilon x; with
        ``every=False`` only the candidate that led at the last full pass is climbed (the
        secant's inner steps; every candidate is climbed again before the answer)."""
        e = math.exp(x)
        if every or lead[0] is None:
            vals = [pb.climb(e, side, c, t_range) for c in cands]
            k = tie_break(vals, [c[0] for c in cands], delta)
            lead[0] = k
        else:
            k = lead[0]
            vals = {k: pb.climb(e, side, cands[k], t_range)}
        lim = limit(e)
        return (lim, None) if lim >= vals[k] else (vals[k], cands[k])

    lead = [None]  # None: the next call climbs every candidate
    for _ in range(5):
        # an estimate (the proof follows in garesearch.optimal._kernels): 1e-10 is enough
        x = secant_root(lambda x: local(x, every=False)[0] - delta, x, rtol=1e-10)
        previous = lead[0]
        if local(x)[0] > delta and lead[0] != previous:
            continue  # another candidate leads at this epsilon: its root
        adv = pb.grid(math.exp(x), side, grid_ts)
        if float(np.max(adv)) <= delta:
            break
        cands.extend(pb.candidates(adv, grid_ts, count=1))
        lead[0] = None
    val, cand = local(x)
    pb.seen = [c[0] for c in cands]  # the refined true values (certified along with the grid)
    pb.cands = [list(c) for c in cands]
    e = math.exp(x)
    if cand is None:
        return e, _limit(pb, e, side, ts)[1], None, val
    return e, cand[0], pb.centre(cand[0], cand[1]), val


#: true values whose worst advantages (or margins) agree to this times ``delta`` are tied;
#: see :func:`tie_break`
TIE_RTOL = 1e-9


def tie_break(values, ts, delta: float) -> int:
    """Index of the worst true value: the largest value, and among the values within
    :data:`TIE_RTOL` ``* delta`` of it (ties such as the mirror images of a symmetric prior,
    which rounding would otherwise decide) the largest true value.

    Examples
    --------
    >>> tie_break([0.1, 0.1 - 1e-12, 0.05], [-1.0, 1.0, 3.0], delta=0.1)
    1
    """
    v = np.asarray(values, dtype=float)
    top = float(np.max(v))
    if not math.isfinite(top):
        return int(np.argmax(v))
    tied = np.flatnonzero(v >= top - TIE_RTOL * delta)
    return int(tied[np.argmax(np.asarray(ts, dtype=float)[tied])])


def _discrete(prior, r, delta, t, sides):
    """The discrete metric: every distance is 1, and Sec. 3.2's bounds are attained
    (``L = e^epsilon`` on :math:`X'`, 1 elsewhere)."""
    if r >= 1:
        raise ParameterError(
            f"r must be < R = 1 under the discrete metric (r >= 1 makes every guess correct); got r={r}"
        )
    values = prior.values if t is None else [t]
    best = None
    for v in values:
        p = prior.probability(v)
        up = float(bound.eps_lb(delta=delta, p=p)) if sides != "lower" and p < 1 else math.inf
        low = float(bound.eps_ub(delta=delta, p=p)) if sides != "upper" and delta < p < 1 else math.inf
        eps = min(up, low)
        if best is None or eps < best[0]:
            best = (eps, v, p, up, low)
    eps, v, p, up, low = best
    binding = "none" if math.isinf(eps) else ("upper" if up <= low else "lower")
    post = None
    if not math.isinf(eps):
        e = math.exp(eps)
        post = p * e / (p * e + 1 - p) if binding == "upper" else p / (p + (1 - p) * e)
    # the bound is attained (closed form): the optimum is exact, and the worst likelihood is
    # the kernel exp(-+epsilon d(x, t)) centred on the worst true value itself
    return OptimalResult(
        epsilon=eps, t=v, r=r, delta=delta, p=p, binding=binding, epsilon_upper=up,
        epsilon_lower=low, centre=None if post is None else v, posterior=post, sides=sides,
        prior=prior, epsilon_hi=eps,
    )


def _kernel_posterior(mg, side, t, c, eps):
    """The binding kernel's posterior of the ball (the middle of its enclosure)."""
    bl, bh, _, _ = mg.ball(np.array([float(t)]))
    il, ir, ol, orr = mg.parts(eps, side, bl, bh, np.array([float(c)]))
    with np.errstate(all="ignore"):
        a = np.logaddexp(_middle(*il), _middle(*ir))
        o = np.logaddexp(_middle(*ol), _middle(*orr))
        return float(1.0 / (1.0 + np.exp(o - a))[0])


def _largest_ball(mg, grid):
    """The true value whose ball holds the most prior mass, and (the upper end of) that
    mass: the grid's best three polished by a bounded Brent search between their neighbours
    (the mass of :math:`[t - r, t + r]` is smooth in ``t``)."""
    from scipy.optimize import minimize_scalar

    grid = np.asarray(grid, dtype=float)
    _, _, _, p_hi = mg.ball(grid)
    best = (float(grid[int(np.argmax(p_hi))]), float(np.max(p_hi)))
    for i in np.argsort(-p_hi, kind="stable")[:3]:
        a, b = float(grid[max(i - 1, 0)]), float(grid[min(i + 1, grid.size - 1)])
        if not b > a:
            continue

        def neg(t):
            _, _, lo, hi = mg.ball(np.array([float(t)]))
            return -0.5 * (float(lo[0]) + float(hi[0]))

        res = minimize_scalar(neg, bounds=(a, b), method="bounded",
                              options=dict(xatol=1e-12 * max(1.0, abs(float(grid[i]))), maxiter=80))
        t = float(res.x)
        hi = float(mg.ball(np.array([t]))[3][0])
        if hi > best[1]:
            best = (t, hi)
    return best


def _certified_side(prior, pb, mg, side, ts):
    """One side's certified bracket (:mod:`garesearch.optimal._kernels`): exact enumeration for a
    finite prior; for a density the estimate of :func:`_solve` (grid, refinement, far-tail
    limit), then the proof at every true value it examined."""
    small, big = pb.spread()
    delta = mg.delta
    if isinstance(pb, FiniteProblem):
        x0 = math.log(-math.log1p(-delta) / pb.r) if pb.r > 0 else math.log(max(delta, 1e-300) / big)
        return solve_finite(mg, side, pb.x if ts is None else ts, x0, (small, big))
    if side == "lower" and ts is None:
        heavy = [s for s in ("left", "right") if prior.tail(s).kind == "heavy"]
        if heavy:
            # the inverted kernel's integral over a tail heavier than every exponential
            # diverges at every epsilon > 0: the posterior of a bounded ball is pushed to 0,
            # so any true value whose ball holds more than delta breaks the lower side
            t_max, p_max = _largest_ball(mg, pb.ts)
            if p_max > delta:
                return Side(0.0, 0.0, t_max, None, far=True)
    e, t_est, c_est, _ = _solve(pb, delta, side, ts)
    if math.isinf(e):
        return Side(math.inf, math.inf)
    grid = pb.ts if ts is None else ts
    seen = [v for v in getattr(pb, "seen", []) if math.isfinite(v)] if ts is None else []
    far = (math.inf, None)
    if side == "upper" and ts is None:
        far = far_tail_epsilon(prior, pb.r, delta, pb.ends)[:2]
    if t_est is None or not math.isfinite(t_est):  # the far-tail limit binds the estimate
        adv = pb.grid(e, side, grid)
        i, j = np.unravel_index(int(np.argmax(adv)), adv.shape)
        t_est, c_est = float(grid[i]), pb.centre(float(grid[i]), float(S_GRID[j]))
    if not e > 0:
        e = math.exp(-700.0)
    ts_all = np.concatenate([np.asarray(grid, dtype=float), seen])
    # each true value's likely worst centre, from the estimate at e (hints for the proof)
    adv = pb.grid(e, side, ts_all)
    j = np.argmax(adv, axis=1)
    lo_b = np.maximum(ts_all - pb.r, pb.low)
    hi_b = np.minimum(ts_all + pb.r, pb.high)
    hints = lo_b + (hi_b - lo_b) * S_GRID[j]
    for v in getattr(pb, "cands", []):  # the climbed candidates know their centres better
        k = np.flatnonzero(ts_all == v[0])
        hints[k] = pb.centre(v[0], v[1])
    out = certify_density(mg, side, ts_all, (t_est, c_est), e, far, hints=hints,
                          polish=hasattr(prior, "_coarse_table"))
    if out.far:
        out.value = far_tail_epsilon(prior, pb.r, delta, pb.ends)[2]
    return out


def posterior_extremes(prior: Prior, *, t: float, r: float, epsilon: float) -> dict:
    r"""The worst posteriors of :math:`\mathcal B(t, r)` over every epsilon-DP mechanism and
    output (Def. 7; the optimum is beyond the paper), with the kernels that attain them.

    Returns
    -------
    dict
        ``p`` (prior mass of the ball), ``upper`` (:math:`U`), ``upper_centre`` (``c`` of the
        Laplace kernel attaining it), ``lower`` (:math:`V`), ``lower_centre`` (``c`` of the
        inverted kernel), and ``upper_interval`` / ``lower_interval``: certified enclosures of
        :math:`U` and :math:`V` (branch and bound over the centres on the prior's certified
        tilted masses, :mod:`garesearch.optimal._kernels`).  ``upper`` and ``lower`` are the kernels'
        posteriors at their centres (the middles of their enclosures): exact to about 1e-13 for
        closed-form priors, to the width of the intervals otherwise.

    Examples
    --------
    >>> from garesearch.priors import Normal
    >>> ext = posterior_extremes(Normal(0, 1), t=0.0, r=0.5, epsilon=1.0)
    >>> round(ext["upper"], 4), round(ext["upper_centre"], 4), round(ext["p"], 4)
    (0.5789, 0.0, 0.3829)
    >>> lo, hi = ext["upper_interval"]
    >>> bool(lo <= ext["upper"] <= hi and hi - lo < 1e-10)
    True
    """
    check_common(prior, r, 0.5, "both")
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        p = prior.probability(t)
        e = math.exp(float(epsilon))
        up, dn = p * e / (p * e + 1 - p), p / (p + (1 - p) * e)
        return dict(p=p, upper=up, upper_centre=None, lower=dn, lower_centre=None,
                    upper_interval=(up, up), lower_interval=(dn, dn))
    if not (isinstance(epsilon, (int, float, np.integer, np.floating)) and 0 < epsilon < math.inf):
        raise ParameterError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    pb = _problem(prior, r, 0.0)
    ball = pb.ball(float(t))
    if ball is None:  # no mass within r of t: its posterior is 0 whatever the output
        return dict(p=0.0, upper=0.0, upper_centre=None, lower=0.0, lower_centre=None,
                    upper_interval=(0.0, 0.0), lower_interval=(0.0, 0.0))
    mg = Margins(prior, float(r), 0.0)
    mg.small = False
    eps = float(epsilon)
    bl, bh, p_lo, p_hi = mg.ball(np.array([float(t)]))
    out = {"p": ball[2]}
    for side in ("upper", "lower"):
        res = mg.sup_over_centres(eps, side, bl, bh, p_lo, p_hi, threshold=-np.inf, tol=1e-13,
                                  max_rounds=50, max_intervals=256)
        c = float(res["centre"][0])
        post = _kernel_posterior(mg, side, float(t), c, eps)
        # the margin is logit(p) -/+ logit(posterior): its enclosure gives the posterior's
        lg_lo, lg_hi = logit_bounds(p_lo, p_hi)
        with np.errstate(invalid="ignore"):
            if side == "upper":
                ends = (float(res["lower"][0] + lg_lo[0]), float(res["upper"][0] + lg_hi[0]))
            else:
                ends = (float(lg_lo[0] - res["upper"][0]), float(lg_hi[0] - res["lower"][0]))
        # (a ball whose mass underflows leaves logit(p) infinite: the enclosure is then only
        # what a posterior always satisfies)
        bounds = (_expit(ends[0]) if not math.isnan(ends[0]) else 0.0,
                  _expit(ends[1]) if not math.isnan(ends[1]) else 1.0)
        out[side], out[f"{side}_centre"], out[f"{side}_interval"] = post, c, bounds
    return out


def _expit(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    return math.exp(x) / (1.0 + math.exp(x))


def _no_noise_needed(prior, t, r, delta, p, sides, upper=math.inf, lower=math.inf) -> OptimalResult:
    """The result when no mechanism can move the posterior beyond ``delta`` (epsilon ``inf``)."""
    return OptimalResult(
        epsilon=math.inf, t=t, r=r, delta=delta, p=p, binding="none", epsilon_upper=upper,
        epsilon_lower=lower, centre=None, posterior=None, sides=sides, prior=prior,
        epsilon_hi=math.inf,
    )


def epsilon_optimal(
    prior: Prior, *, r: float, delta: float, t: Any = None, sides: str = "both"
) -> OptimalResult:
    r"""The optimal epsilon for one attribute: the largest epsilon at which no epsilon-DP
    mechanism lets the posterior of :math:`\mathcal B(t, r)` move by more than ``delta``
    (Def. 7, Sec. 4.1; the optimum over all mechanisms is beyond the paper).

    Sound for every epsilon-DP mechanism and not improvable: at any larger epsilon the
    returned kernel (a Laplace mechanism's output, or the inverted kernel) exceeds ``delta``.
    See the module docstring for the characterisation.

    Parameters
    ----------
    prior : Prior
        The attacker's prior.
    r : float
        Precision of a correct guess, ``r >= 0`` (``r > 0`` for a prior with a density: a
        ball of radius 0 holds no mass).
    delta : float
        Bound on the advantage, in (0, 1).
    t : optional
        The true value; ``None`` (default): the worst one (every atom of a finite prior; for
        a density, a scan through the far tails refined locally, plus the limit
        :math:`t \to \pm\infty`).
    sides : {"both", "upper", "lower"}
        Which side of Def. 7 to bound.

    Returns
    -------
    OptimalResult

    Raises
    ------
    ParameterError
        Bad input.
    InfeasibleError
        If no epsilon > 0 meets the request (for example the lower side over a tail heavier
        than every exponential, where the posterior can be pushed to 0).

    See Also
    --------
    garesearch.attribute.epsilon_for_attribute : The same optimum, and the paper's constructions by name.
    garesearch.optimal.goals.epsilon_optimal : The optimum for goals over several attributes.
    garesearch.exact.exact_epsilon : The largest epsilon at which the Laplace mechanism itself stays within ``delta``.

    Examples
    --------
    The salary example of Sec. 6.2:

    >>> from garesearch.priors import Normal
    >>> res = epsilon_optimal(Normal(2000, 235.7), r=100, delta=0.1)
    >>> round(res.epsilon, 7), res.binding
    (0.0019252, 'upper')
    """
    check_common(prior, r, delta, sides, SIDES)
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        if t is not None:
            prior.probability(t)
        return _discrete(prior, float(r), float(delta), t, sides)
    r, delta = float(r), float(delta)
    if not isinstance(prior, Categorical) and r == 0:
        raise ParameterError(
            "r must be > 0 for a prior with a density: a ball of radius 0 holds no prior mass, "
            "so no guess is ever correct"
        )
    pb = _problem(prior, r, delta)
    ts = None
    if t is not None:
        if isinstance(t, bool) or not isinstance(t, (int, float, np.integer, np.floating)) or not math.isfinite(t):
            raise ParameterError(f"t must be a finite number; got {t!r}")
        low, high = prior.support
        if not low <= t <= high:
            raise ParameterError(f"t must lie in the prior's support [{low}, {high}]; got {t}")
        if pb.ball(float(t)) is None:
            # no value within r of t: no guess can be right, whatever the mechanism
            return _no_noise_needed(prior, float(t), r, delta, 0.0, sides)
        ts = np.array([float(t)])
    low, high = prior.support
    if high - low <= r:  # every ball holds the whole support: the posterior is 1 whatever the output
        t0 = float(t) if t is not None else None
        return _no_noise_needed(prior, t0, r, delta, 1.0 if t0 is not None else math.nan, sides)
    mg = Margins(prior, r, delta)
    found = {"upper": Side(math.inf, math.inf), "lower": Side(math.inf, math.inf)}
    for side in ("lower", "upper"):  # (the lower side first: where it cannot be met, e.g. over a
        if sides in (side, "both"):  # heavy tail, the request is refused without the upper's work)
            found[side] = _certified_side(prior, pb, mg, side, ts)
            if not found[side].lo > 0:
                break
    up, low = found["upper"], found["lower"]
    eps = min(up.lo, low.lo)
    if math.isinf(eps):
        t0 = float(t) if t is not None else None
        ball = pb.ball(t0) if t0 is not None else None
        return _no_noise_needed(prior, t0, r, delta, ball[2] if ball else math.nan, sides, up.lo, low.lo)
    binding = "upper" if up.lo <= low.lo else "lower"
    side = found[binding]
    tw, cw = side.t, side.c
    e_hi = min(up.hi, low.hi)
    if not eps > 0:
        raise InfeasibleError(
            f"no epsilon > 0 keeps the advantage within delta={delta} at t={tw!r}: the {binding} "
            "side cannot be met"
            + (
                " (a tail of the prior is heavier than every exponential, so an inverted kernel "
                "pushes the posterior of the ball to 0; use sides='upper', or a delta at least "
                "the largest ball mass)"
                if binding == "lower" and side.far
                else ""
            )
        )
    far = side.far
    if far:
        p = 0.0
        post = -math.expm1(-r * (eps - side.value) * (eps + side.value) / eps) if eps > side.value else 0.0
    else:
        p = pb.ball(tw)[2]
        post = _kernel_posterior(mg, binding, tw, cw, eps)
    return OptimalResult(
        epsilon=eps, t=tw, r=r, delta=delta, p=p, binding=binding, epsilon_upper=up.lo,
        epsilon_lower=low.lo, centre=cw, posterior=post, sides=sides, far_tail=far, prior=prior,
        epsilon_hi=e_hi,
    )
