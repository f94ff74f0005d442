r"""The optimal epsilon on a finite prior (beyond the paper): every true value against every
kernel centre, and the linear program that checks it.

The search behind :func:`garesearch.optimal.epsilon_optimal` for a
:class:`~garesearch.priors.Categorical` prior on the line: the worst likelihoods are the
kernels :math:`e^{\mp\epsilon|x - c|}` centred at the atoms of the ball (the module docstring
of :mod:`garesearch.optimal`), evaluated from the prior's tilted tails in log space.
:func:`worst_posterior_lp` solves the same supremum as a linear program (HiGHS).
"""

from __future__ import annotations

import math

import numpy as np

from .._args import check_sides, renamed_keywords
from ..errors import InfeasibleError, ParameterError
from ..priors import Categorical

__all__ = ["MAX_PAIRS", "FiniteProblem", "kernel_posterior", "side_advantage", "worst_posterior_lp"]

MAX_PAIRS = 4_000_000  # (t, c) pairs of a finite prior evaluated at once


def kernel_posterior(k, d, width, lt_l, rt_h, log_all):
    r"""Posterior of the ball :math:`[lo, hi]` under the kernel :math:`e^{-k|x - c|}`,
    :math:`c = lo + d`, :math:`hi = lo + \text{width}`, from the tilted tails
    ``lt_l`` :math:`= \mathrm{LT}_k(lo^-)`, ``rt_h`` :math:`= \mathrm{RT}_{-k}(hi^+)` and
    ``log_all`` :math:`= \log(e^{\mathrm{LT}_k(c)} + e^{\mathrm{RT}_{-k}(c^+)})` (module
    docstring): one minus the weight outside over the total, term by term (each term at most
    1, so nothing overflows) and with offsets inside the ball (no digits lost to :math:`|c|`).
    A divergent outside weight (the inverted kernel over a heavy tail) gives 0: the truncated
    kernels drive the posterior there.

    Examples
    --------
    >>> import math
    >>> # atoms -1, 0, 1 with masses 1/4, 1/2, 1/4; ball {0}; kernel e^{-|x|} centred at 0
    >>> out = math.log(0.25) - 1  # log of the kernel's weight on each outside atom
    >>> post = kernel_posterior(1.0, 0.0, 0.0, out, out, math.log(0.5 + 0.5 * math.exp(-1)))
    >>> abs(float(post) - 0.5 / (0.5 + 0.5 * math.exp(-1))) < 1e-15
    True
    """
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        ratio = np.exp(lt_l - log_all - k * d) + np.exp(rt_h - log_all - k * (width - d))
    post = 1.0 - np.minimum(ratio, 1.0)
    return np.where(np.isnan(post), 0.0, post)


def side_advantage(post, p, side, delta):
    """The side's advantage; ``-inf`` at true values where the side cannot exceed ``delta``
    whatever the mechanism (``p + delta >= 1`` above, ``p <= delta`` below; both up to a
    relative 1e-12, the rounding of ``p``), so that rounding near those limits cannot bind.

    Examples
    --------
    >>> float(side_advantage(0.7, 0.5, "upper", 0.1)), float(side_advantage(0.7, 0.95, "upper", 0.1))
    (0.19999999999999996, -inf)
    """
    if delta == 0:  # the raw posteriors (posterior_extremes)
        return post - p if side == "upper" else p - post
    if side == "upper":
        return np.where(p + delta < 1 - 1e-12, post - p, -np.inf)
    return np.where(p > delta * (1 + 1e-12), p - post, -np.inf)


class FiniteProblem:
    """A numeric finite prior: true values and kernel centres are atoms."""

    def __init__(self, prior: Categorical, r: float, delta: float):
        self.prior, self.r, self.delta = prior, r, delta
        x = prior.points
        self.x = x
        self.cum = np.concatenate([[0.0], np.cumsum(prior.probs)])
        self.lo_idx = np.searchsorted(x, x - r, side="left")
        self.hi_idx = np.searchsorted(x, x + r, side="right") - 1
        # |x_j - t| <= r decided exactly as written (the searchsorted bounds can differ by
        # the rounding of t - r)
        self.lo_idx = np.where(np.abs(x[self.lo_idx] - x) <= r, self.lo_idx, self.lo_idx + 1)
        self.hi_idx = np.where(np.abs(x[self.hi_idx] - x) <= r, self.hi_idx, self.hi_idx - 1)
        self.p = np.clip(self.cum[self.hi_idx + 1] - self.cum[self.lo_idx], 0.0, 1.0)

    def ball(self, t):
        x = self.x
        inside = np.flatnonzero(np.abs(x - t) <= self.r)
        if inside.size == 0:
            return None
        i0, i1 = inside[0], inside[-1]
        return float(x[i0]), float(x[i1]), float(min(max(self.cum[i1 + 1] - self.cum[i0], 0.0), 1.0))

    def _windows(self, ts):
        """Indices of the first and last atom of each ball (atoms of ``ts``, or all)."""
        if ts is None:
            return self.x, self.lo_idx, self.hi_idx, self.p
        x, r = self.x, self.r
        ts = np.atleast_1d(np.asarray(ts, dtype=float))
        lo = np.searchsorted(x, ts - r, side="left")
        hi = np.searchsorted(x, ts + r, side="right") - 1
        lo = np.clip(lo, 0, x.size - 1)
        hi = np.clip(hi, 0, x.size - 1)
        lo = np.where(np.abs(x[lo] - ts) <= r, lo, lo + 1)
        hi = np.where(np.abs(x[hi] - ts) <= r, hi, hi - 1)
        p = np.clip(self.cum[hi + 1] - self.cum[np.minimum(lo, x.size - 1)], 0.0, 1.0)
        return ts, lo, hi, np.where(hi >= lo, p, 0.0)

    def per_t(self, eps, side, ts=None):
        """The largest advantage at each true value (atoms of ``ts``, or all) over the kernel
        centres of its ball, with that centre's index: ``(ts, adv, centre_index)``.

        The tilted tails are computed once per atom (each atom is a centre for every ball
        holding it); the pairs then cost a few exponentials each.
        """
        x = self.x
        k = eps if side == "upper" else -eps
        tv, lo_i, hi_i, p = self._windows(ts)
        out_adv = np.full(lo_i.size, -np.inf)
        out_c = np.zeros(lo_i.size, dtype=int)
        ok = hi_i >= lo_i
        if not np.any(ok):
            return tv, out_adv, out_c
        prior = self.prior
        with np.errstate(invalid="ignore", over="ignore"):
            lt_c = prior.log_tilted_tail(k, x, "left")
            rt_c = prior.log_tilted_tail(-k, np.nextafter(x, np.inf), "right")
            log_all = np.logaddexp(lt_c, rt_c)
            lo_x, hi_x = x[lo_i], x[hi_i]
            lt_l = prior.log_tilted_tail(k, np.nextafter(lo_x, -np.inf), "left")
            rt_h = prior.log_tilted_tail(-k, np.nextafter(hi_x, np.inf), "right")
        sizes = np.where(ok, hi_i - lo_i + 1, 0)
        rows = np.flatnonzero(ok)
        start = 0
        while start < rows.size:
            stop = start + 1
            total = sizes[rows[start]]
            while stop < rows.size and total + sizes[rows[stop]] <= MAX_PAIRS:
                total += sizes[rows[stop]]
                stop += 1
            block = rows[start:stop]
            width = int(np.max(sizes[block]))
            cj = lo_i[block][:, None] + np.arange(width)
            valid = cj <= hi_i[block][:, None]
            cj = np.minimum(cj, hi_i[block][:, None])
            post = kernel_posterior(k, x[cj] - lo_x[block][:, None], (hi_x - lo_x)[block][:, None],
                                     lt_l[block][:, None], rt_h[block][:, None], log_all[cj])
            adv = np.where(valid, side_advantage(post, p[block][:, None], side, self.delta), -np.inf)
            j = np.argmax(adv, axis=1)
            out_adv[block] = adv[np.arange(block.size), j]
            out_c[block] = cj[np.arange(block.size), j]
            start = stop
        return tv, out_adv, out_c

    def scan(self, eps, side, ts=None):
        """Largest advantage over the true values (atoms, or ``ts``) and the kernel centres
        (atoms of each ball): ``(value, t, c)``."""
        tv, adv, cj = self.per_t(eps, side, ts)
        if not np.any(np.isfinite(adv)):
            return -math.inf, None, None
        i = int(np.argmax(adv))
        return float(adv[i]), float(tv[i]), float(self.x[cj[i]])

    def limit(self, eps, side):
        return -math.inf, None

    def spread(self):
        gaps = np.diff(self.x)
        return float(np.min(gaps)) if gaps.size else 1.0, float(self.x[-1] - self.x[0]) if self.x.size > 1 else 1.0


@renamed_keywords(side="sides")
def worst_posterior_lp(values, probs, *, t: float, r: float, epsilon: float, sides: str = "upper"):
    r"""The worst posterior of :math:`\mathcal B(t, r)` over every epsilon-DP mechanism on a
    finite prior on the real line, as the linear program of its definition (Def. 7; beyond the
    paper): a direct route to what :func:`posterior_extremes` gets from the kernels, for
    teaching and checking.

    Maximise (``sides="upper"``) or minimise (``"lower"``; one side at a time, and ``side=``,
    the old name of ``sides=``, is deprecated) :math:`\sum_{X'} p_i v_i` subject to
    :math:`\sum_i p_i v_i = 1`, :math:`v \ge 0` and :math:`v_i \le e^{\epsilon |x_i - x_j|}
    v_j` (the Charnes-Cooper form of the posterior's supremum over likelihoods; on the line the
    constraints between neighbours imply the others), solved with HiGHS
    (``scipy.optimize.linprog``) in variables scaled by the kernel centred at ``t``.

    Returns
    -------
    dict
        ``posterior`` and ``log_likelihood`` (the optimal :math:`\log v`, up to a constant),
        ``values`` (sorted) and ``inside`` (the ball's mask).  Accurate to about 1e-9.

    Examples
    --------
    >>> from garesearch.optimal import posterior_extremes
    >>> out = worst_posterior_lp([0, 1, 2, 3], [0.1, 0.4, 0.3, 0.2], t=1, r=0, epsilon=1.0)
    >>> prior = Categorical({0: 0.1, 1: 0.4, 2: 0.3, 3: 0.2})
    >>> kernel = posterior_extremes(prior, t=1, r=0, epsilon=1.0)["upper"]
    >>> abs(out["posterior"] - kernel) < 1e-9
    True
    """
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    check_sides(sides, ("upper", "lower"))
    x = np.asarray(values, dtype=float)
    w = np.asarray(probs, dtype=float)
    if x.ndim != 1 or x.shape != w.shape or x.size < 2 or not np.all(np.isfinite(x)):
        raise ParameterError("values and probs must be 1-d arrays of the same length (at least 2), finite")
    if np.any(w < 0) or not abs(w.sum() - 1) < 1e-9:
        raise ParameterError("probs must be >= 0 and sum to 1")
    if not (isinstance(epsilon, (int, float, np.integer, np.floating)) and 0 < epsilon < math.inf):
        raise ParameterError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    order = np.argsort(x)
    x, w = x[order], w[order]
    inside = np.abs(x - t) <= r
    n = x.size
    # v_i = s_i u_i with s_i = e^{-eps |x_i - t|} (upper) or e^{+eps |x_i - t|} (lower)
    sign = -1.0 if sides == "upper" else 1.0
    logs = sign * epsilon * np.abs(x - t)
    logs -= logs.max()
    sc = np.exp(logs)
    gap = np.diff(x)
    i = np.arange(n - 1)
    # s_i u_i - e^{eps gap} s_{i+1} u_{i+1} <= 0 and the mirror
    rows = np.concatenate([2 * i, 2 * i, 2 * i + 1, 2 * i + 1])
    cols = np.concatenate([i, i + 1, i + 1, i])
    vals = np.concatenate([sc[:-1], -np.exp(epsilon * gap) * sc[1:], sc[1:], -np.exp(epsilon * gap) * sc[:-1]])
    A = coo_matrix((vals, (rows, cols)), shape=(2 * (n - 1), n)).tocsr()
    c = (-1.0 if sides == "upper" else 1.0) * w * sc * inside
    res = linprog(c, A_ub=A, b_ub=np.zeros(2 * (n - 1)), A_eq=(w * sc)[None, :], b_eq=[1.0],
                  bounds=(0, None), method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:  # pragma: no cover - HiGHS reports a numerical failure
        raise InfeasibleError(f"the linear program did not solve: {res.message}")
    v = res.x * sc
    with np.errstate(divide="ignore"):
        logv = np.log(v)
    post = float(np.sum(w[inside] * v[inside]) / np.sum(w * v))
    return {"posterior": post, "log_likelihood": logv, "values": x, "inside": inside}
