r"""The optimal epsilon for a prior with a density (beyond the paper): a grid of true values
through the far tails, kernel centres across each ball, local refinement and the far-tail limit.

The search behind :func:`garesearch.optimal.epsilon_optimal` for priors with a density
(the module docstring of :mod:`garesearch.optimal` derives the kernels and the limit).
"""

from __future__ import annotations

import math

import numpy as np

from ..priors import Prior
from ._optimal_finite import kernel_posterior, side_advantage

__all__ = ["S_GRID", "DensityProblem", "kernel_posteriors"]

S_GRID = np.linspace(0.0, 1.0, 17)  # kernel centres across [l, h], before refinement


def kernel_posteriors(prior, eps, lo, hi, c, side):
    """Upper (Laplace kernel) or lower (inverted kernel) posterior of ``[lo, hi]`` at centres
    ``c`` (array ``(n, m)``; ``lo``, ``hi`` of shape ``(n,)``) for a prior with a density.

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> from scipy.integrate import quad
    >>> from garesearch.priors import Normal
    >>> post = kernel_posteriors(Normal(0, 1), 1.0, np.array([-0.5]), np.array([0.5]), np.array([[0.0]]), "upper")
    >>> def w(x):  # the Laplace kernel times the prior density
    ...     return math.exp(-abs(x) - x * x / 2)
    >>> want = quad(w, -0.5, 0.5)[0] / (2 * quad(w, 0, np.inf)[0])  # w is even
    >>> abs(float(post[0, 0]) - want) < 1e-12
    True
    """
    k = eps if side == "upper" else -eps
    lo, hi, c = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float), np.asarray(c, dtype=float)
    n = lo.size
    col = (lambda v: v[:, None])  # noqa: E731
    with np.errstate(invalid="ignore", over="ignore"):
        # one call per side: the ball's end and the centres together
        left = prior._estimate_tail(k, np.concatenate([lo, c.ravel()]), "left")
        right = prior._estimate_tail(-k, np.concatenate([hi, c.ravel()]), "right")
        log_all = np.logaddexp(left[n:], right[n:]).reshape(c.shape)
    return kernel_posterior(k, c - col(lo), col(hi - lo), col(left[:n]), col(right[:n]), log_all)


class DensityProblem:
    """A prior with a density: a grid of true values covering the far tails, kernel centres
    on a grid across each ball, then refinement of the best (t, c)."""

    def __init__(self, prior: Prior, r: float, delta: float):
        self.prior, self.r, self.delta = prior, r, delta
        self.low, self.high = prior.support
        ts = prior.t_candidates(r)
        # far out in a heavy tail float64 cannot place a ball of radius r (t +- r rounds):
        # there the grid stops, and the far-tail limit (the supremum as t goes to the end,
        # approached from below as the tail's exponential rate falls to 0) covers the rest
        resolved = np.spacing(np.abs(ts)) <= r * 2.0**-26
        self.ts = ts[resolved] if np.any(resolved) else ts
        # the far tails beyond the scan: each unbounded end's declared tail, with its smallest
        # hazard rate beyond the scan's outermost ball (garesearch.optimal._kernels_certify.far_tail_epsilon)
        self.ends = {}
        if math.isinf(self.low):
            self.ends["left"] = float(self.ts[0])
        if math.isinf(self.high):
            self.ends["right"] = float(self.ts[-1])
        self.rates = {}
        for side, t_end in self.ends.items():
            x = t_end + (r if side == "left" else -r)
            self.rates[side] = float(np.minimum(prior.hazard(x, side), prior.tail(side).rate))

    def ball(self, t):
        lo, hi = max(t - self.r, self.low), min(t + self.r, self.high)
        if not hi > lo:
            return None
        return lo, hi, float(self.prior.mass(lo, hi))

    #: below this delta the estimates come from the margins' excess form (the advantage
    #: ``posterior - p`` would be lost to rounding next to ``p``)
    SMALL_DELTA = 1e-6

    def _eval(self, eps, side, t, s):
        """An estimate of the advantage at true values ``t`` (n,) and relative centres ``s``
        (n, m): the kernels' posteriors on the coarse tables less the prior; for a small
        ``delta``, ``delta`` plus the middle of the margin's enclosure
        (:class:`garesearch.optimal._kernels.Margins`), which keeps its digits however small
        ``delta`` is.  Above ``delta`` where the kernel moves the posterior by more."""
        t = np.asarray(t, dtype=float)
        if self.delta >= self.SMALL_DELTA:
            lo = np.maximum(t - self.r, self.low)
            hi = np.minimum(t + self.r, self.high)
            p = np.asarray(self.prior.mass(lo, hi), dtype=float)
            c = lo[:, None] + (hi - lo)[:, None] * s
            post = kernel_posteriors(self.prior, eps, lo, hi, c, side)
            adv = side_advantage(post, p[:, None], side, self.delta)
            # a ball over the whole support leaves nothing for a mechanism to move
            covers = (lo <= self.low) & (hi >= self.high)
            return np.where(covers[:, None], -np.inf, adv)
        from ._kernels import Margins

        if getattr(self, "_margins", None) is None:
            self._margins = Margins(self.prior, self.r, self.delta, coarse=True)
        mg = self._margins
        bl, bh, p_lo, p_hi = mg.ball(t)
        ok = bh >= bl
        lo = np.where(ok, bl, t)
        hi = np.where(ok, bh, t)
        c = lo[:, None] + (hi - lo)[:, None] * s
        shape = c.shape
        rep = lambda v: np.broadcast_to(v[:, None], shape).ravel()  # noqa: E731
        m_lo, m_hi = mg.margin(eps, side, rep(lo), rep(hi), c.ravel(), rep(p_lo), rep(p_hi))
        with np.errstate(invalid="ignore"):
            mid = np.where(np.isfinite(m_lo) & np.isfinite(m_hi), 0.5 * (m_lo + m_hi),
                           np.where(np.isneginf(m_hi), -np.inf, np.maximum(m_lo, -1e300)))
        out = self.delta + mid.reshape(shape)
        return np.where(ok[:, None], out, -np.inf)

    def grid(self, eps, side, ts):
        """Advantage on the grid of true values ``ts`` and relative centres ``S_GRID``."""
        adv = self._eval(eps, side, ts, np.broadcast_to(S_GRID, (ts.size, S_GRID.size)))
        return np.where(np.isnan(adv), -np.inf, adv)

    def candidates(self, adv, ts, count=2):
        """Starting points for :meth:`climb`: the best grid point of each of the ``count``
        best true values, with the grid's spacing around it."""
        order = np.argsort(np.max(adv, axis=1))[::-1][:count]
        n = ts.size
        out = []
        for i in order:
            j = int(np.argmax(adv[i]))
            dt = 0.5 * (float(ts[min(i + 1, n - 1)]) - float(ts[max(i - 1, 0)])) if n > 1 else 0.0
            out.append([float(ts[i]), float(S_GRID[j]), dt, 1.0 / (S_GRID.size - 1)])
        return out

    def climb(self, eps, side, cand, t_range):
        """Local maximum from ``cand = [t, s, dt, ds]`` (updated in place): safeguarded
        Newton steps on a 3 x 3 stencil (gradient and Hessian by central differences, in
        units of the grid's spacing), each step at most one spacing long and kept only if it
        improves; at a bound of ``s`` or ``t`` the search continues along it."""
        t0, s0, dt, ds = cand
        lo, hi = t_range
        T = dt if dt > 0 else 0.0  # t's unit (0: t is fixed)
        S = ds
        h = 1e-4
        off = np.array([-h, 0.0, h])

        def f(tt, ss):
            adv = self._eval(eps, side, np.atleast_1d(tt), np.atleast_2d(ss))
            return np.where(np.isnan(adv), -np.inf, adv)

        def clip(t, s):
            return min(max(t, lo), hi), min(max(s, 0.0), 1.0)

        def stencil(t, s):
            """The 3 x 3 stencil around ``(t, s)`` (inside the box: one-sided where a bound
            is touched) and the value at ``(t, s)`` itself, in one evaluation."""
            tc = min(max(t, lo + h * T), hi - h * T) if T > 0 else t
            sc = min(max(s, h * S), 1.0 - h * S)
            rows = np.empty((4, 3))
            rows[:3] = sc + S * off
            rows[3] = s
            F = f(np.append(tc + T * off, t), rows)
            return F[:3], float(F[3, 0])

        F, best = stencil(t0, s0)
        for _ in range(40):
            if not np.all(np.isfinite(F)):
                break
            gt = (F[2, 1] - F[0, 1]) / (2 * h)
            gs = (F[1, 2] - F[1, 0]) / (2 * h)
            htt = (F[2, 1] - 2 * F[1, 1] + F[0, 1]) / h**2
            hss = (F[1, 2] - 2 * F[1, 1] + F[1, 0]) / h**2
            hts = (F[2, 2] - F[2, 0] - F[0, 2] + F[0, 0]) / (4 * h * h)
            free_t = T > 0 and not ((t0 <= lo and gt < 0) or (t0 >= hi and gt > 0))
            free_s = not ((s0 <= 0 and gs < 0) or (s0 >= 1 and gs > 0))
            step = np.zeros(2)
            idx = [i for i, free in ((0, free_t), (1, free_s)) if free]
            if not idx:
                break
            g = np.array([gt, gs])[idx]
            H = np.array([[htt, hts], [hts, hss]])[np.ix_(idx, idx)]
            newton = None
            if np.all(np.linalg.eigvalsh(H) < 0):
                newton = -np.linalg.solve(H, g)
            d = newton if newton is not None else g / max(np.max(np.abs(np.diag(H))), 1e-300)
            norm = float(np.max(np.abs(d)))
            if norm > 1.0:
                d = d / norm
            step[idx] = d
            if newton is not None and (float(np.max(np.abs(step))) < 1e-8
                                       or 0.5 * float(g @ d) <= 1e-15 * abs(best)):
                break  # at the maximum: the value is exact to rounding (the peak is flat)
            moved = False
            for _ in range(12):
                if float(np.max(np.abs(step))) < 1e-8:
                    break
                t1, s1 = clip(t0 + T * step[0], s0 + S * step[1])
                F1, v = stencil(t1, s1)  # the trial point with its stencil, for the next step
                if v > best:
                    best, moved, F = v, True, F1
                    t0, s0 = t1, s1
                    break
                step *= 0.25
            if not moved or float(np.max(np.abs(step))) < 1e-8:
                break
        cand[:] = [t0, s0, dt, ds]
        return best

    def scan(self, eps, side, ts=None):
        """Largest advantage over the grid, refined from its best points: ``(value, t, c)``."""
        ts = self.ts if ts is None else np.atleast_1d(np.asarray(ts, dtype=float))
        t_range = (float(ts[0]), float(ts[-1]))
        best = (-math.inf, None, None)
        for cand in self.candidates(self.grid(eps, side, ts), ts):
            val = self.climb(eps, side, cand, t_range)
            if val > best[0]:
                best = (val, cand[0], self.centre(cand[0], cand[1]))
        return best

    def centre(self, t, s):
        lo, hi = max(t - self.r, self.low), min(t + self.r, self.high)
        return lo + (hi - lo) * s

    def limit(self, eps, side):
        """Largest advantage as t goes to an unbounded end (module docstring)."""
        if side != "upper":
            return -math.inf, None
        best = (-math.inf, None)
        for name, lam in self.rates.items():
            end = self.low if name == "left" else self.high
            val = 0.0 if not eps > lam else -math.expm1(-self.r * (eps - lam) * (eps + lam) / eps)
            if val > best[0]:
                best = (val, end)
        return best

    def spread(self):
        q = np.asarray(self.prior.quantile(np.array([0.25, 0.75])), dtype=float)
        iqr = float(q[1] - q[0])
        return (self.r if self.r > 0 else iqr), max(iqr, self.r)
