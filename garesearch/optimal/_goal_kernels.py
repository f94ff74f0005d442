r"""One numeric attribute (the Laplace and inverted kernels), the discrete metric, and AND / OR
goals of one-coordinate parts as products of one-part optima (beyond the paper; Sec. 4.1-4.3;
the proofs are in :mod:`garesearch.optimal.goals`).
"""

from __future__ import annotations

import math

import numpy as np

from .._roots import bisect_crossing, certified_bracket
from ..errors import ParameterError
from ..priors import Prior
from ._certify import Bracket, describe_witness, odds_to_posterior
from ._goal_model import GoalModel, goal_probability, model_scale, spread

__all__ = [
    "DiscreteWitness",
    "Kernel1D",
    "KernelWitness",
    "ProductWitness",
    "log_tilted",
    "one_attribute_side",
    "part_solver",
    "product_bracket",
    "product_side",
]


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


def log_tilted(prior: Prior, k: float, lo, hi, c, end: str = "hi") -> np.ndarray:
    r"""One end of the certified enclosure of :math:`\log \int_{[lo, hi]} e^{k (x - c)}\,dF(x)`
    (:meth:`garesearch.priors.Prior.tilted_mass_bounds`, the one tilted-mass kernel of the
    package): ``end="hi"`` (an upper bound, the default), ``"lo"`` or ``"mid"`` (an estimate);
    ``-inf`` for no mass, ``inf`` where the integral may diverge; vectorised over ``lo, hi, c``."""
    if end not in ("lo", "hi", "mid"):
        raise ParameterError(f"end must be 'lo', 'hi' or 'mid'; got {end!r}")
    lo, hi, c = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float), np.asarray(c, float))
    with np.errstate(all="ignore"):
        b_lo, b_hi = prior.tilted_mass_bounds(float(k), lo, hi, c)
    empty = ~(hi > lo)  # (an empty interval, [inf, inf] included, holds no mass)
    if end == "lo":
        return np.where(empty, -np.inf, np.asarray(b_lo, dtype=float))
    if end == "hi":
        return np.where(empty, -np.inf, np.asarray(b_hi, dtype=float))
    from ..priors import _middle

    return np.where(empty, -np.inf, np.asarray(_middle(b_lo, b_hi), dtype=float))


class Kernel1D:
    r"""One numeric attribute: the worst log odds of :math:`X' = [l, h]` under the kernels
    :math:`e^{s\epsilon|x - c|}` (``s = -1`` Laplace, ``+1`` inverted), from the certified margins
    of :class:`garesearch.optimal._kernels.Margins` (the same kernels and branch and bound as the
    one-attribute optimum of :mod:`garesearch.optimal`)."""

    def __init__(self, prior: Prior, t: float, r: float):
        from ._kernels import Margins

        self.prior = prior
        self.mg = Margins(prior, r, 0.0)
        self.mg.small = False
        self.bl, self.bh, self.p_lo, self.p_hi = self.mg.ball(np.array([float(t)]))
        self.l, self.h = float(self.bl[0]), float(self.bh[0])
        from ._kernels import logit_bounds

        self.lg_lo, self.lg_hi = (float(v[0]) for v in logit_bounds(self.p_lo, self.p_hi))

    def log_odds_bounds(self, eps, c, s):
        r"""Enclosure ``(lo, hi)`` of :math:`\log(A/O)` at centres ``c`` (array)."""
        side = "upper" if s < 0 else "lower"
        c = np.atleast_1d(np.asarray(c, dtype=float))
        n = c.size
        rep = lambda v: np.broadcast_to(v, (n,))  # noqa: E731
        m_lo, m_hi = self.mg.margin(eps, side, rep(self.bl), rep(self.bh), c, rep(self.p_lo), rep(self.p_hi))
        # upper: margin = log(A/O) - logit(p); lower: margin = logit(p) - log(A/O)
        if side == "upper":
            return m_lo + self.lg_lo, m_hi + self.lg_hi
        return self.lg_lo - m_hi, self.lg_hi - m_lo

    def log_odds(self, eps, c, s):
        """An estimate of the log odds (the middle of :meth:`log_odds_bounds`)."""
        lo, hi = self.log_odds_bounds(eps, c, s)
        with np.errstate(invalid="ignore"):
            return np.where(np.isfinite(lo) & np.isfinite(hi), 0.5 * (lo + hi), np.where(np.isfinite(lo), lo, hi))

    def extreme(self, eps, s, upper):
        r"""Certified extreme of the log odds over :math:`c \in [l, h]`: ``(bound, best_c,
        best_value)`` (:meth:`garesearch.optimal._kernels.Margins.sup_over_centres`); ``bound`` holds
        for every centre, ``best_value`` is what the kernel at ``best_c`` certainly reaches."""
        side = "upper" if s < 0 else "lower"
        res = self.mg.sup_over_centres(eps, side, self.bl, self.bh, self.p_lo, self.p_hi,
                                       threshold=-np.inf, tol=1e-13, max_rounds=60, max_intervals=256)
        top, best, c = float(res["upper"][0]), float(res["lower"][0]), float(res["centre"][0])
        if side == "upper":
            return top + self.lg_hi, c, best + self.lg_lo
        return self.lg_lo - top, c, self.lg_hi - best


class KernelWitness:
    """The one-attribute kernel with a fixed centre: a mechanism at every epsilon; its
    posterior is the end of its enclosure that a crossing may rely on (from below for the
    Laplace kernel, from above for the inverted one)."""

    def __init__(self, ker: Kernel1D, c: float, s: float):
        self.ker, self.c, self.s = ker, c, s

    def posterior(self, eps: float) -> float:
        lo, hi = self.ker.log_odds_bounds(eps, np.array([self.c]), self.s)
        return odds_to_posterior(lo[0] if self.s < 0 else hi[0])

    def describe(self) -> dict:
        return {"kind": "laplace kernel" if self.s < 0 else "inverted kernel", "centre": self.c}


class DiscreteWitness:
    r"""The likelihood :math:`e^{\pm\epsilon 1[x \in X']}` under the discrete metric."""

    def __init__(self, p: float, upper: bool):
        self.p, self.upper = p, upper

    def posterior(self, eps: float) -> float:
        k = eps if self.upper else -eps
        return odds_to_posterior(math.log(self.p) - math.log1p(-self.p) + k)

    def describe(self) -> dict:
        return {"kind": "discrete metric",
                "likelihood_ratio": "e^epsilon on X'" if self.upper else "e^-epsilon on X'"}


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
    return certified_bracket(solve, target, upper, rtol, 1.0 / scale, scale, lambda: count[0],
                             lambda: {"kernel_evaluations": count[0]})


class ProductWitness:
    r"""The product of one-part witnesses with rates :math:`w_k\epsilon`: the parts are
    independent given the output, so the goal's posterior is :math:`P` of theirs."""

    def __init__(self, terms, parts, weights):
        self.terms, self.parts, self.weights = terms, parts, weights

    def posterior(self, eps: float) -> float:
        q = [w.posterior(eps * wt) for w, wt in zip(self.parts, self.weights, strict=True)]
        return goal_probability(self.terms, q)

    def describe(self) -> dict:
        return {"kind": "product of one-part kernels", "parts": [describe_witness(w) for w in self.parts],
                "rates": list(self.weights)}


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
    return certified_bracket(solve, target, upper, rtol, eps0 if eps0 else 1.0 / scale, scale,
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

    b = bisect_crossing(bound, target, upper, lo=1.0 / scale, scale=scale, rtol=rtol)
    lo = b * (1 - 2 * rtol) if math.isfinite(b) else math.inf
    while math.isfinite(lo) and lo > 0 and ((bound(lo) > target) if upper else (bound(lo) < target)):
        lo /= 2
    e = lo if math.isfinite(lo) else 1.0 / scale
    wit = ProductWitness(model.terms, [sv(e * w)[1] for sv, w in zip(solvers, weights, strict=True)], weights)
    hi = bisect_crossing(wit.posterior, target, upper, lo=e / 4, scale=scale, rtol=rtol)
    post = wit.posterior(hi) if math.isfinite(hi) else math.nan
    return Bracket(lo, hi, wit, post, 0, {}, bound(lo) if math.isfinite(lo) and lo > 0 else math.nan)
