r"""Finite priors: the exact linear program over the product support (beyond the paper;
Sec. 4.2, 4.3).

:math:`\max \sum_{X'} w_i` s.t. :math:`\sum_i w_i = 1`, :math:`w_i/m_i \le e^{\epsilon d_{ij}}
w_j/m_j`, :math:`w \ge 0` (the Charnes-Cooper transform of the worst posterior over all
:math:`\epsilon`-DP mechanisms; see :mod:`garesearch.optimal.goals`), with cutting planes over
all pairs and certificates from both sides.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._roots import certified_bracket
from ..errors import ParameterError
from ._certify import Bracket, certified_bound, check_time, logsumexp, solve_lp
from ._goal_model import GoalModel, coord_values, record_distance

__all__ = ["MAX_RECORDS", "FiniteWitness", "Records", "finite_lp", "finite_side"]

MAX_RECORDS = 20_000  # finite LP: largest product support


class Records:
    """The product support of a finite goal: records, prior masses, and which are in X'."""

    def __init__(self, model: GoalModel):
        vals = [coord_values(p, d) for p, d in zip(model.priors, model.discrete, strict=True)]
        n = math.prod(len(v) for v in vals)
        if n > MAX_RECORDS:
            raise ParameterError(
                f"goal: the product support has {n} records, more than the {MAX_RECORDS} the exact LP "
                "handles; use fewer values per attribute")
        self.model = model
        self.vals = vals
        grids = np.meshgrid(*vals, indexing="ij")
        self.X = np.stack([g.ravel() for g in grids], axis=1)
        probs = np.meshgrid(*[np.asarray(p.probs, dtype=float) for p in model.priors], indexing="ij")
        self.logm = np.sum([np.log(g.ravel()) for g in probs], axis=0)
        self.m = np.exp(self.logm)
        self.shape = tuple(len(v) for v in vals)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    def distance(self, i, j) -> np.ndarray:
        return record_distance(self.model, self.X[i], self.X[j])

    def network(self) -> tuple[np.ndarray, bool]:
        """Initial pairs (i < j) and whether they already give the exact LP (Cartesian product
        graph under norm 1: every l_1 distance is a path of single-coordinate steps)."""
        model = self.model
        cart = model.norm == 1 and all(p.kind != "ball" or p.pball == 1 for p in model.parts)
        steps = []
        for c, v in enumerate(self.vals):
            k = len(v)
            if model.discrete[c]:
                steps.append([(a, b) for a in range(k) for b in range(k) if a != b])
            else:
                steps.append([(a, a + 1) for a in range(k - 1)] + [(a + 1, a) for a in range(k - 1)])
        idx = np.arange(self.n).reshape(self.shape)
        pairs = []
        if cart:
            for c, st in enumerate(steps):
                for a, b in st:
                    sl_a = [slice(None)] * len(self.shape)
                    sl_b = [slice(None)] * len(self.shape)
                    sl_a[c], sl_b[c] = a, b
                    pairs.append(np.stack([idx[tuple(sl_a)].ravel(), idx[tuple(sl_b)].ravel()], 1))
        else:
            options = [[None, *st] for st in steps]
            for combo in itertools.product(*options):
                if all(s is None for s in combo):
                    continue
                sl_a, sl_b = [], []
                for s in combo:
                    sl_a.append(slice(None) if s is None else s[0])
                    sl_b.append(slice(None) if s is None else s[1])
                pairs.append(np.stack([idx[tuple(sl_a)].ravel(), idx[tuple(sl_b)].ravel()], 1))
        P = np.concatenate(pairs) if pairs else np.zeros((0, 2), dtype=int)
        P = np.sort(P, axis=1)
        P = np.unique(P[P[:, 0] != P[:, 1]], axis=0)
        return P, cart

    def violations(self, s: np.ndarray, tol: float = 1e-9, cap: int | None = None) -> np.ndarray:
        """Pairs (i, j) with ``s_i - s_j > d_ij`` (a profile that is not 1-Lipschitz)."""
        out = []
        chunk = max(1, 4_000_000 // max(self.n, 1))
        for a in range(0, self.n, chunk):
            check_time()  # (under a wall-clock cap only)
            rows = np.arange(a, min(a + chunk, self.n))
            D = record_distance(self.model, self.X[rows][:, None, :], self.X[None, :, :])
            gap = s[rows][:, None] - s[None, :] - D * (1 + tol) - tol
            i, j = np.nonzero(gap > 0)
            if i.size:
                out.append(np.stack([rows[i], j], 1))
        if not out:
            return np.zeros((0, 2), dtype=int)
        V = np.concatenate(out)
        if cap is not None and len(V) > cap:
            gap = s[V[:, 0]] - s[V[:, 1]] - self.distance(V[:, 0], V[:, 1])
            V = V[np.argsort(-gap)[:cap]]
        return V

    def repair(self, s: np.ndarray, how: str) -> np.ndarray:
        """The lower (``max_j s_j - d_ij``) or upper (``min_j s_j + d_ij``) McShane
        extension of ``s`` over all records: an exactly 1-Lipschitz profile."""
        out = np.empty_like(s)
        chunk = max(1, 4_000_000 // max(self.n, 1))
        for a in range(0, self.n, chunk):
            check_time()  # (under a wall-clock cap only)
            rows = np.arange(a, min(a + chunk, self.n))
            D = record_distance(self.model, self.X[rows][:, None, :], self.X[None, :, :])
            out[rows] = (s[None, :] - D).max(axis=1) if how == "lower" else (s[None, :] + D).min(axis=1)
        return out


class FiniteWitness:
    """A 1-Lipschitz profile ``s``: the mechanism with likelihood :math:`e^{\\epsilon s}` at any
    :math:`\\epsilon`; its posterior of X' is computed exactly (finite sums)."""

    def __init__(self, s, logm, inside):
        self.s, self.logm, self.inside = s, logm, inside

    def posterior(self, eps: float) -> float:
        lw = self.logm + eps * self.s
        return math.exp(logsumexp(lw[self.inside]) - logsumexp(lw))

    def describe(self) -> dict:
        return {"kind": "lp profile", "log_likelihood_per_epsilon": self.s}


def finite_lp(rec: Records, inside, eps, upper, pairs):
    """Solve the Charnes-Cooper LP on the given pairs; returns (certified bound, profile, value)."""
    import scipy.sparse as sp

    n = rec.n
    i, j = pairs[:, 0], pairs[:, 1]
    d = rec.distance(i, j)
    # w_i/m_i <= e^{eps d} w_j/m_j  <=>  w_i - e^{eps d + log m_i - log m_j} w_j <= 0
    k1 = np.exp(eps * d + rec.logm[i] - rec.logm[j])
    k2 = np.exp(eps * d + rec.logm[j] - rec.logm[i])
    m = len(i)
    rows = np.concatenate([np.arange(m), np.arange(m), m + np.arange(m), m + np.arange(m)])
    cols = np.concatenate([i, j, j, i])
    vals = np.concatenate([np.ones(m), -k1, np.ones(m), -k2])
    A = sp.csr_matrix((vals, (rows, cols)), shape=(2 * m, n))
    obj = inside.astype(float)
    a = np.ones(n)
    ub = np.ones(n)
    res = solve_lp(-obj if upper else obj, A, a, ub)
    bound = certified_bound(res, obj, A, a, ub, upper)
    w = np.maximum(res.x, 1e-300)
    s = (np.log(w) - rec.logm) / eps
    return bound, s - s.max(), float(obj @ res.x)


def finite_side(rec: Records, inside, target, upper, rtol, eps0=None, enough=math.inf):
    """Certified bracket of one side for a finite goal (exact LP with cutting planes), to
    relative width ``rtol`` or until the sound end reaches ``enough``."""
    pairs, exact = rec.network()
    lps = 0
    if pairs.shape[0] == 0:  # one record: nothing can move
        return Bracket(math.inf, math.inf)

    def solve(eps):
        nonlocal pairs, lps
        while True:
            bound, s, _value = finite_lp(rec, inside, eps, upper, pairs)
            lps += 1
            if exact:
                break
            new = rec.violations(s, cap=20 * rec.n)
            if new.shape[0] == 0:
                break
            new = np.unique(np.sort(new, axis=1), axis=0)
            pairs = np.unique(np.concatenate([pairs, new]), axis=0)
        best = None
        for how in ("lower", "upper"):
            wit = FiniteWitness(rec.repair(s, how), rec.logm, inside)
            val = wit.posterior(eps)
            if best is None or (val > best[1] if upper else val < best[1]):
                best = (wit, val)
        return bound, best[0]

    return certified_bracket(solve, target, upper, rtol, eps0, scale=1.0, lps=lambda: lps,
                             size=lambda: {"records": rec.n, "pairs": int(pairs.shape[0])}, enough=enough)
