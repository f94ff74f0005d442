r"""One numeric attribute (the Laplace and inverted kernels), the discrete metric, and AND / OR
goals of one-coordinate parts as products of one-part optima (beyond the paper; Sec. 4.1-4.3;
the proofs are in :mod:`garesearch.goal_optimal`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._certify import (
    Bracket,
    crossing,
    logsumexp,
    logsumexp_rows,
    odds_to_posterior,
    search_bracket,
)
from ._goal_model import GoalModel, goal_probability, model_scale, spread
from .errors import ParameterError
from .priors import Categorical, Continuous, Normal, PiecewiseUniform, Prior

__all__ = [
    "DiscreteWitness",
    "Kernel1D",
    "KernelWitness",
    "ProductWitness",
    "TiltedTable",
    "log_tilted",
    "one_attribute_side",
    "part_solver",
    "product_bracket",
    "product_side",
    "tilted_table",
]

_TABLES: Any = None


def log_diff_ndtr(a, b):
    """log(Phi(b) - Phi(a)) for a <= b, accurate in both tails."""
    from scipy.special import log_ndtr

    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    flip = a > 0
    hi = np.where(flip, log_ndtr(-a), log_ndtr(b))
    lo = np.where(flip, log_ndtr(-b), log_ndtr(a))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = hi + np.log1p(-np.exp(np.minimum(lo - hi, 0.0)))
    return np.where(b > a, out, -np.inf)


def log_tilted(prior: Prior, k: float, lo, hi, c) -> np.ndarray:
    r""":math:`\log \int_{[lo, hi]} e^{k (x - c)}\,dF(x)` for a numeric prior (``-inf`` for no
    mass, ``inf`` where the integral diverges), vectorised over ``lo, hi, c``."""
    lo, hi, c = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float), np.asarray(c, float))
    if isinstance(prior, Normal):
        mu, s = prior.mu, prior.sigma
        m = mu + k * s * s
        out = k * (mu - c) + 0.5 * (k * s) ** 2 + log_diff_ndtr((lo - m) / s, (hi - m) / s)
        return np.where(hi >= lo, out, -np.inf)
    if isinstance(prior, Categorical):
        x = np.array([float(v) for v in prior.values])
        lp = np.log(np.asarray(prior.probs, float))
        inside = (x[None, :] >= lo.ravel()[:, None]) & (x[None, :] <= hi.ravel()[:, None])
        terms = np.where(inside, lp[None, :] + k * (x[None, :] - c.ravel()[:, None]), -np.inf)
        mx = terms.max(axis=1, keepdims=True)
        safe = np.where(np.isfinite(mx), mx, 0.0)
        with np.errstate(divide="ignore"):
            out = (safe + np.log(np.exp(terms - safe).sum(axis=1, keepdims=True))).ravel()
        return out.reshape(lo.shape)
    if isinstance(prior, PiecewiseUniform):
        acc = np.full(lo.shape, -np.inf)
        for a0, b0, dens in zip(prior.edges[:-1], prior.edges[1:], prior.density, strict=True):
            if dens <= 0:
                continue
            a, b = np.maximum(lo, a0), np.minimum(hi, b0)
            ok = b > a
            a, b = np.where(ok, a, 0.0), np.where(ok, b, 1.0)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                if k == 0:
                    term = np.log(b - a)
                elif k > 0:
                    term = k * (b - c) + np.log(-np.expm1(-k * (b - a))) - math.log(k)
                else:
                    term = k * (a - c) + np.log(-np.expm1(k * (b - a))) - math.log(-k)
            acc = np.logaddexp(acc, np.where(ok, term + math.log(dens), -np.inf))
        return acc
    if isinstance(prior, Continuous):
        return tilted_table(prior, k).log_integral(lo, hi) - k * c
    raise ParameterError(f"no tilted integral for a prior of type {type(prior).__name__}")


_TABLES: Any = None
_GL16 = np.polynomial.legendre.leggauss(16)


def tilted_table(prior: Continuous, k: float) -> TiltedTable:
    """The cached :class:`TiltedTable` of a scipy prior (one per prior object), at ``k``."""
    global _TABLES
    import weakref

    if _TABLES is None:
        _TABLES = weakref.WeakKeyDictionary()
    if prior not in _TABLES:
        _TABLES[prior] = TiltedTable(prior)
    table = _TABLES[prior]
    table.at(k)
    return table


class TiltedTable:
    r"""Tilted masses :math:`\int_{lo}^{hi} e^{kx}\,dF(x)` of a scipy prior: 16-point
    Gauss-Legendre panels between the quantiles :math:`10^{-13}` and :math:`1 - 10^{-13}`,
    continued by panels of doubling width into unbounded tails (until the prior's density
    has fallen by :math:`e^{-800}` or 60 doublings), summed in log scale; exact for the
    panels' polynomial degree, about 1e-12 relative for smooth densities."""

    def __init__(self, prior: Continuous):
        self.prior = prior
        dist = prior.dist
        tails = np.geomspace(1e-13, 1e-3, 40)
        e = np.concatenate([np.asarray(dist.ppf(tails), float),
                            np.asarray(dist.ppf(np.linspace(1e-3, 1 - 1e-3, 400)), float),
                            np.asarray(dist.isf(tails[::-1]), float)])
        e = np.unique(e[np.isfinite(e)])
        low, high = prior.support
        width = max(e[-1] - e[0], 1e-300)
        ext_lo, ext_hi = [], []
        for side, bound, out in ((-1, low, ext_lo), (1, high, ext_hi)):
            x0 = e[0] if side < 0 else e[-1]
            ref = float(dist.logpdf(x0))
            step = width / 8
            for _ in range(60):
                x = x0 + side * step
                if (side < 0 and x <= bound) or (side > 0 and x >= bound):
                    if math.isfinite(bound):
                        out.append(bound)
                    break
                out.append(x)
                if float(dist.logpdf(x)) < ref - 800:
                    break
                step *= 2
        self.edges = np.unique(np.concatenate([ext_lo, e, ext_hi]))
        a, b = self.edges[:-1], self.edges[1:]
        half = (b - a) / 2
        self.nodes = (a + half)[:, None] + half[:, None] * _GL16[0]
        with np.errstate(divide="ignore"):
            self.logw = np.asarray(dist.logpdf(self.nodes), float) + np.log(half)[:, None] + np.log(_GL16[1])
        self.k = None

    def at(self, k: float) -> None:
        if self.k == k:
            return
        self.k = k
        up_rate, down_rate = self.prior.tail_rates()
        low, high = self.prior.support
        self.diverges_up = math.isinf(high) and k >= up_rate
        self.diverges_down = math.isinf(low) and -k >= down_rate
        panel = logsumexp_rows(k * self.nodes + self.logw)
        self.cum = np.concatenate([[-np.inf], np.logaddexp.accumulate(panel)])

    def _partial(self, a, b):
        """log of the integral over [a, b] (a <= b inside one panel)."""
        half = (b - a) / 2
        x = (a + half)[..., None] + half[..., None] * _GL16[0]
        with np.errstate(divide="ignore"):
            lw = np.asarray(self.prior.dist.logpdf(x), float) + np.log(np.where(half > 0, half, 1.0))[..., None]
        out = logsumexp_rows(self.k * x + lw + np.log(_GL16[1]))
        return np.where(half > 0, out, -np.inf)

    def log_cdf(self, x) -> np.ndarray:
        """log of the integral from the lower end of the support to ``x``."""
        x = np.clip(np.asarray(x, float), self.edges[0], self.edges[-1])
        j = np.clip(np.searchsorted(self.edges, x, side="right") - 1, 0, self.edges.size - 2)
        return np.logaddexp(self.cum[j], self._partial(self.edges[j], x))

    def log_integral(self, lo, hi) -> np.ndarray:
        lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
        out = np.full(lo.shape, -np.inf)
        ok = hi > lo
        if not np.any(ok):
            return out
        a = np.clip(lo[ok], self.edges[0], self.edges[-1])
        b = np.clip(hi[ok], self.edges[0], self.edges[-1])
        ja = np.searchsorted(self.edges, a, side="right") - 1
        jb = np.searchsorted(self.edges, b, side="right") - 1
        same = ja == jb
        vals = np.empty(a.shape)
        vals[same] = self._partial(a[same], b[same])
        if np.any(~same):
            la, lb = self.log_cdf(a[~same]), self.log_cdf(b[~same])
            with np.errstate(invalid="ignore", divide="ignore"):
                vals[~same] = lb + np.log1p(-np.exp(np.minimum(la - lb, 0.0)))
        div = (np.isinf(hi[ok]) & (hi[ok] > 0) & self.diverges_up) | (np.isinf(lo[ok]) & (lo[ok] < 0) & self.diverges_down)
        vals[div] = np.inf
        out[ok] = vals
        return out


class Kernel1D:
    r"""One numeric attribute: posterior of :math:`X' = [l, h]` under the kernel
    :math:`e^{s\epsilon|x - c|}` (``s = -1`` Laplace, ``+1`` inverted), as odds ``A/B``."""

    def __init__(self, prior: Prior, t: float, r: float):
        self.prior = prior
        self.l, self.h = prior.correct_extent(t, r)
        self.low, self.high = prior.support
        self.atoms = (np.array([float(v) for v in prior.values]) if isinstance(prior, Categorical)
                      else None)

    def log_parts(self, eps, c, s):
        """(log A, log B) at centres ``c`` (array) for the kernel of sign ``s``."""
        c = np.asarray(c, dtype=float)
        P = self.prior
        if self.atoms is not None:
            x, lp = self.atoms, np.log(np.asarray(P.probs, float))
            logk = lp[None, :] + s * eps * np.abs(x[None, :] - c.ravel()[:, None])
            ins = (x >= self.l) & (x <= self.h)
            la = np.array([logsumexp(row[ins]) for row in logk])
            lb = np.array([logsumexp(row[~ins]) for row in logk])
            return la.reshape(c.shape), lb.reshape(c.shape)
        kl, kr = -s * eps, s * eps  # x <= c: e^{-s eps (x - c)};  x >= c: e^{s eps (x - c)}
        la = np.logaddexp(log_tilted(P, kl, self.l, c, c), log_tilted(P, kr, c, self.h, c))
        lb = np.logaddexp(log_tilted(P, kl, self.low, self.l, c), log_tilted(P, kr, self.h, self.high, c))
        return la, lb

    def log_odds(self, eps, c, s):
        la, lb = self.log_parts(eps, c, s)
        with np.errstate(invalid="ignore"):
            return np.where(np.isinf(lb) & (lb > 0), -np.inf, la - lb)

    def extreme(self, eps, s, upper):
        r"""Certified extreme of the log odds over :math:`c \in [l, h]`: returns
        ``(bound, best_c, best_value)``; for finite priors exact (between atoms the odds are
        monotone in :math:`e^{2\epsilon c}`), else branch and bound with the Lipschitz constant
        :math:`2\epsilon` of the log odds in ``c``."""
        sign = 1.0 if upper else -1.0
        if self.atoms is not None or self.h <= self.l:
            cs = [self.l, self.h]
            if self.atoms is not None:
                cs += [a for a in self.atoms if self.l <= a <= self.h]
            cs = np.unique(np.array(cs))
            vals = sign * self.log_odds(eps, cs, s)
            i = int(np.nanargmax(vals))
            return sign * vals[i], float(cs[i]), sign * vals[i]
        cs = np.linspace(self.l, self.h, 257)
        vals = sign * self.log_odds(eps, cs, s)
        vals = np.where(np.isnan(vals), -np.inf, vals)
        i = int(np.argmax(vals))
        best_c, best = float(cs[i]), float(vals[i])
        # refine the witness by golden-section search between the grid neighbours
        from scipy.optimize import minimize_scalar

        a0, b0 = cs[max(i - 1, 0)], cs[min(i + 1, cs.size - 1)]
        if b0 > a0:
            res = minimize_scalar(lambda c: -sign * float(self.log_odds(eps, np.array([c]), s)[0]),
                                  bounds=(a0, b0), method="bounded", options={"xatol": 1e-12 * max(1.0, abs(b0))})
            if -res.fun > best:
                best_c, best = float(res.x), float(-res.fun)
        # certify: the log odds are 2 eps-Lipschitz in c; split every interval whose bound
        # can still exceed the best value
        a, b, fa, fb = cs[:-1], cs[1:], vals[:-1], vals[1:]
        tol = 1e-8 * max(1.0, abs(best))
        for _ in range(40):
            ub = (fa + fb) / 2 + eps * (b - a)
            keep = ub > best + tol
            if not np.any(keep) or keep.sum() > 20000:
                break
            a, b, fa, fb = a[keep], b[keep], fa[keep], fb[keep]
            pts = a[:, None] + (b - a)[:, None] * np.array([0.25, 0.5, 0.75])[None, :]
            pv = sign * self.log_odds(eps, pts.ravel(), s).reshape(pts.shape)
            pv = np.where(np.isnan(pv), -np.inf, pv)
            j = np.unravel_index(int(np.argmax(pv)), pv.shape)
            if pv[j] > best:
                best, best_c = float(pv[j]), float(pts[j])
            ends = np.concatenate([a[:, None], pts, b[:, None]], axis=1)
            vend = np.concatenate([fa[:, None], pv, fb[:, None]], axis=1)
            a, b = ends[:, :-1].ravel(), ends[:, 1:].ravel()
            fa, fb = vend[:, :-1].ravel(), vend[:, 1:].ravel()
        ub = (fa + fb) / 2 + eps * (b - a)
        keep = ub > best + tol
        top = max(best + tol, float(ub[keep].max())) if np.any(keep) else best + tol
        return sign * top, best_c, sign * best


class KernelWitness:
    """The one-attribute kernel with a fixed centre: a mechanism at every epsilon."""

    def __init__(self, ker: Kernel1D, c: float, s: float):
        self.ker, self.c, self.s = ker, c, s

    def posterior(self, eps: float) -> float:
        return odds_to_posterior(self.ker.log_odds(eps, np.array([self.c]), self.s)[0])


class DiscreteWitness:
    r"""The likelihood :math:`e^{\pm\epsilon 1[x \in X']}` under the discrete metric."""

    def __init__(self, p: float, upper: bool):
        self.p, self.upper = p, upper

    def posterior(self, eps: float) -> float:
        k = eps if self.upper else -eps
        return odds_to_posterior(math.log(self.p) - math.log1p(-self.p) + k)


def one_attribute_side(prior, t, r, target, upper, rtol):
    """Certified bracket of one side for one numeric attribute (kernel search)."""
    ker = Kernel1D(prior, t, r)
    s = -1.0 if upper else 1.0
    count = [0]

    def solve(eps):
        count[0] += 1
        bound, c, _ = ker.extreme(eps, s, upper)
        return odds_to_posterior(bound), KernelWitness(ker, c, s)

    scale = max(ker.h - ker.l, spread(prior), 1e-300)
    return search_bracket(solve, target, upper, rtol, 1.0 / scale, scale, lambda: count[0],
                   lambda: {"kernel_evaluations": count[0]})


class ProductWitness:
    r"""The product of one-part witnesses with rates :math:`w_k\epsilon`: the parts are
    independent given the output, so the goal's posterior is :math:`P` of theirs."""

    def __init__(self, terms, parts, weights):
        self.terms, self.parts, self.weights = terms, parts, weights

    def posterior(self, eps: float) -> float:
        q = [w.posterior(eps * wt) for w, wt in zip(self.parts, self.weights, strict=True)]
        return goal_probability(self.terms, q)


def part_solver(model: GoalModel, k: int, tc, upper: bool):
    """For one-coordinate part ``k``: eps -> (certified log odds bound, witness)."""
    part = model.parts[k]
    prior = model.priors[part.coords[0]]
    if part.kind == "disc":
        pk = float(prior.probs[int(tc[part.coords[0]])])
        base = math.log(pk) - math.log1p(-pk)

        def solve_disc(eps):
            return base + (eps if upper else -eps), DiscreteWitness(pk, upper)

        return solve_disc
    ker = Kernel1D(prior, tc[part.coords[0]], part.r)
    s = -1.0 if upper else 1.0

    def solve_num(eps):
        bound, c, _ = ker.extreme(eps, s, upper)
        return bound, KernelWitness(ker, c, s)

    return solve_num


def product_side(model: GoalModel, tc, target, upper, rtol, eps0=None):
    r"""Bracket of one side from :math:`P(U_1, \dots, U_n)` (sound for every norm; exact under
    ``norm=1``, where the witness is the product of the one-part kernels; under another norm
    the witness splits :math:`\epsilon` into rates with :math:`\lVert w\rVert_{q} = 1`,
    :math:`1/p + 1/q = 1`)."""
    solvers = [part_solver(model, k, tc, upper) for k in range(len(model.parts))]
    n = len(solvers)
    norm = model.norm
    if norm == 1:
        weights = [1.0] * n
    else:
        q = 1.0 if math.isinf(norm) else norm / (norm - 1)
        weights = [n ** (-1.0 / q)] * n
    count = [0]

    def solve(eps):
        count[0] += 1
        out = [sv(eps) for sv in solvers]
        bound = goal_probability(model.terms, [odds_to_posterior(b) for b, _ in out])
        if norm == 1:
            wits = [w for _, w in out]
        else:
            wits = [sv(eps * wt)[1] for sv, wt in zip(solvers, weights, strict=True)]
        return bound, ProductWitness(model.terms, wits, weights)

    scale = max(model_scale(model), 1e-300)
    return search_bracket(solve, target, upper, rtol, eps0 if eps0 else 1.0 / scale, scale,
                   lambda: count[0], lambda: {"parts": n})


def product_bracket(model: GoalModel, tc, target, upper, rtol=1e-4) -> Bracket:
    """The product bound's sound epsilon and the split-rate product witness's epsilon (any
    norm): two roots, no search."""
    solvers = [part_solver(model, k, tc, upper) for k in range(len(model.parts))]
    n, norm = len(solvers), model.norm
    q = 1.0 if math.isinf(norm) else (math.inf if norm == 1 else norm / (norm - 1))
    weights = [1.0 if norm == 1 else n ** (-1.0 / q)] * n
    scale = max(model_scale(model), 1e-300)

    def bound(eps):
        return goal_probability(model.terms, [odds_to_posterior(sv(eps)[0]) for sv in solvers])

    b = crossing(bound, target, upper, scale=scale, rtol=rtol)
    lo = b * (1 - 2 * rtol) if math.isfinite(b) else math.inf
    while math.isfinite(lo) and lo > 0 and ((bound(lo) > target) if upper else (bound(lo) < target)):
        lo /= 2
    e = lo if math.isfinite(lo) else 1.0 / scale
    wit = ProductWitness(model.terms, [sv(e * w)[1] for sv, w in zip(solvers, weights, strict=True)], weights)
    hi = crossing(wit.posterior, target, upper, lo=e / 4, scale=scale, rtol=rtol)
    post = wit.posterior(hi) if math.isfinite(hi) else math.nan
    return Bracket(lo, hi, wit, post, 0, {}, bound(lo) if math.isfinite(lo) and lo > 0 else math.nan)
