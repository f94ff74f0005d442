r"""Shifted pyramids :math:`e^{\mp\epsilon d_\infty(x, C)}`, ``C`` a box: witness mechanisms
in closed form for goals of one-coordinate parts under :math:`\ell_\infty` (beyond the paper;
Sec. 4.2, 4.3).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._roots import bisect_crossing
from ..priors import Categorical
from ._certify import check_time, odds_to_posterior
from ._goal_kernels import log_tilted
from ._goal_model import GoalModel, model_scale, spread

__all__ = ["PyramidWitness", "RidgeWitness", "best_pyramid", "pyramid_candidates", "pyramid_crossing"]


class PyramidWitness:
    r"""The shifted pyramid :math:`L(x) = e^{\mp\epsilon d_\infty(x, C)}`, :math:`C = \prod_i
    [a_i, b_i]` (a value for a categorical coordinate), for goals of one-coordinate parts under
    ``norm=inf``.  Its posterior by the layer-cake formula: :math:`\int_S e^{-\lambda d} dF =
    \int_0^\infty \lambda e^{-\lambda s} F(S \cap C_s)\,ds`, :math:`C_s = \prod_i [a_i - s, b_i + s]`,
    with :math:`F(X' \cap C_s)` by inclusion-exclusion over the AND-sets (products of
    one-coordinate masses).  The integrands are monotone in ``s``; Riemann sums on 20000 levels
    bound them rigorously (from the side that makes ``posterior`` a certified bound)."""

    def __init__(self, model: GoalModel, tc, a, b, upper: bool):
        self.model, self.tc, self.upper = model, tc, upper
        self.a, self.b = np.asarray(a, float), np.asarray(b, float)

    def describe(self) -> dict:
        return {"kind": "shifted pyramid" if self.upper else "inverted shifted pyramid",
                "box_low": self.a.tolist(), "box_high": self.b.tolist()}

    def _band(self, c):
        part = next(p for p in self.model.parts if c in p.coords)
        return self.tc[c] - part.r, self.tc[c] + part.r

    def _masses(self, s):
        """F(C_s) and F(X' cap C_s) at levels ``s`` (array)."""
        model = self.model
        per_all, per_in = [], []
        for c, (prior, disc) in enumerate(zip(model.priors, model.discrete, strict=True)):
            lo, hi = self.a[c] - s, self.b[c] + s
            if disc:
                pc = prior.probs[int(self.a[c])]
                per_all.append(np.where(s >= 1, 1.0, pc))
                per_in.append(np.where((s >= 1) | (self.a[c] == self.tc[c]), prior.probs[int(self.tc[c])], 0.0))
            else:
                ba, bb = self._band(c)
                per_all.append(np.asarray(prior.mass(lo, hi), float))
                per_in.append(np.asarray(prior.mass(np.maximum(lo, ba), np.minimum(hi, bb)), float))
        total = math.prod(per_all)
        inside = np.clip(_goal_mass(model, per_all, per_in), 0.0, total)
        return total, inside

    def _smax(self):
        """A level beyond which every coordinate keeps less than 1e-18 of its mass outside."""
        return self._reach(self.a, self.b)

    def _reach(self, a, b) -> float:
        """How far the box ``[a, b]`` must grow to leave less than 1e-18 of each coordinate's
        mass outside (at least 1)."""
        out = 1.0
        for c, (lo, hi) in enumerate(_extent(self.model)):
            if lo is not None:
                out = max(out, a[c] - lo, hi - b[c])
        return out

    def posterior(self, eps: float, levels: int = 20001) -> float:
        check_time()  # (under a wall-clock cap only)
        smax = self._smax()
        if self.upper:
            # levels even in e^{-eps s} and even in s (for tiny masses far out), down to
            # e^{-eps smax} or 1e-300; A (inside) from below, B (outside) from above
            last = max(-eps * smax, math.log(1e-300))
            e = np.unique(np.concatenate([np.linspace(1.0, math.exp(last), levels),
                                          np.exp(np.linspace(0.0, last, levels))]))[::-1]
            s = -np.log(e) / eps
            s[0] = 0.0
            tot, ins = self._masses(s)
            out = tot - ins
            de = e[:-1] - e[1:]
            A = float(np.sum(ins[:-1] * de) + ins[-1] * e[-1])
            B = float(np.sum(out[1:] * de) + out[-1] * e[-1] + (1 - tot[-1]) * e[-1])
            return odds_to_posterior(math.log(A) - math.log(B)) if A > 0 and B > 0 else (0.0 if A <= 0 else 1.0)
        # inverted: int_S e^{eps d} dF = F(S) + int_0^inf eps e^{eps s} F(S minus C_s) ds
        s = np.linspace(0.0, smax, levels)
        tot, ins = self._masses(s)
        goal_in = ins[-1] + 0.0
        p_in = float(self._masses(np.array([1e300]))[1][0])
        p_all = 1.0
        rest_in = p_in - ins
        rest_out = (p_all - p_in) - (tot - ins)
        with np.errstate(over="ignore"):  # e^{eps s} beyond float64 is +inf, handled below
            de = np.exp(eps * s[:-1]) * np.expm1(eps * np.diff(s))
        # a level with no mass left adds nothing, also where e^{eps s} is +inf (no 0 * inf)
        r_in, r_out = np.maximum(rest_in[:-1], 0.0), np.maximum(rest_out[1:], 0.0)
        with np.errstate(invalid="ignore"):  # the 0 * inf products are the ones np.where drops
            a_sum = float(np.sum(np.where(r_in > 0, r_in * de, 0.0)))
            b_sum = float(np.sum(np.where(r_out > 0, r_out * de, 0.0)))
        A = p_in + a_sum + self._tail(eps, smax)  # upper bound
        B = (p_all - p_in) + b_sum  # lower bound
        del goal_in
        if not (math.isfinite(A) and A > 0):
            return 1.0
        return odds_to_posterior(math.log(A) - math.log(B)) if B > 0 else 1.0

    def _tail(self, eps, smax):
        r"""Bound on :math:`\int_{smax}^\infty \epsilon e^{\epsilon s} F(d > s)\,ds` by the
        one-coordinate tilted tails."""
        total = 0.0
        for c, (prior, disc) in enumerate(zip(self.model.priors, self.model.discrete, strict=True)):
            if disc or isinstance(prior, Categorical):
                continue
            up = log_tilted(prior, eps, self.b[c] + smax, math.inf, self.b[c])
            dn = log_tilted(prior, -eps, -math.inf, self.a[c] - smax, self.a[c])
            with np.errstate(over="ignore"):  # beyond float64: inf, and the bound is then 1
                total += float(np.exp(np.logaddexp(up, dn)))
        return total


def pyramid_candidates(model: GoalModel, tc) -> list:
    """Starting boxes C for the shifted pyramids: the true point, X' itself for an AND
    goal, each AND-set's box (other coordinates at the true value)."""
    n = model.ncoord
    t = np.array([float(v) for v in tc])
    r = np.zeros(n)
    for part in model.parts:
        if part.kind == "num":
            r[part.coords[0]] = part.r
    starts = [(t.copy(), t.copy())]
    for term in model.terms:
        a, b = t.copy(), t.copy()
        for k in term:
            c = model.parts[k].coords[0]
            a[c], b[c] = t[c] - r[c] / 2, t[c] + r[c] / 2
        starts.append((a, b))
    return starts


def best_pyramid(model: GoalModel, tc, eps: float, upper: bool) -> PyramidWitness:
    """The shifted pyramid with the most extreme posterior at ``eps`` (Nelder-Mead over the
    box's ends, each in units of its prior's spread (:func:`~garesearch.optimal._goal_model.spread`:
    attributes of different scales, such as age and salary, move alike), from several starting
    boxes; categorical coordinates fixed at the truth)."""
    from scipy.optimize import minimize

    sign = -1.0 if upper else 1.0
    num = [c for c in range(model.ncoord) if not model.discrete[c]]
    unit = np.tile([max(spread(model.priors[c]), 1e-12) for c in num], 2)
    best = None
    for a0, b0 in pyramid_candidates(model, tc):
        def f(z, a0=a0, b0=b0):
            a, b = a0.copy(), b0.copy()
            x = z * unit
            lo, hi = x[: len(num)], x[len(num):]
            a[num], b[num] = np.minimum(lo, hi), np.maximum(lo, hi)
            return sign * PyramidWitness(model, tc, a, b, upper).posterior(eps, levels=1001)

        z0 = np.concatenate([a0[num], b0[num]]) / unit
        simplex = [z0] + [z0 + 0.1 * np.eye(len(z0))[i] for i in range(len(z0))]
        res = minimize(f, z0, method="Nelder-Mead",
                       options={"initial_simplex": simplex, "xatol": 1e-4, "fatol": 1e-6, "maxfev": 250})
        if best is None or res.fun < best[0]:
            a, b = a0.copy(), b0.copy()
            x = res.x * unit
            a[num], b[num] = np.minimum(x[: len(num)], x[len(num):]), np.maximum(x[: len(num)], x[len(num):])
            best = (res.fun, a, b)
    return PyramidWitness(model, tc, best[1], best[2], upper)


def pyramid_crossing(model: GoalModel, tc, target: float, upper: bool, e0: float, rtol: float,
                     rounds: int = 3, best_of=None, scale: float | None = None) -> tuple[float, PyramidWitness | None]:
    """Where the best shifted pyramid crosses ``target`` (upper side; the inverted one below
    for the lower side): from ``e0``, the best pyramid at the trial epsilon
    (:func:`best_pyramid`, or ``best_of`` with its arguments, e.g. the cones of
    :func:`garesearch.optimal._goal_ball.best_ball`) and its crossing by bisection to relative
    width ``rtol / 50`` (:func:`garesearch._roots.bisect_crossing`, on ``scale``: by default
    the model's), the next trial at that crossing, at most ``rounds`` times or until a trial
    moves by less than ``rtol / 4``.  Returns the smallest crossing and its witness
    (``(inf, None)`` if none crosses)."""
    best_of = best_pyramid if best_of is None else best_of
    scale = max(model_scale(model), 1e-300) if scale is None else scale
    e = e0 if e0 > 0 and math.isfinite(e0) else 1.0 / scale
    best, wit = math.inf, None
    for _ in range(rounds):
        w = best_of(model, tc, e, upper)
        root = bisect_crossing(w.posterior, target, upper, lo=e / 4, scale=scale, rtol=rtol / 50)
        if root < best:
            best, wit = root, w
        if not math.isfinite(root) or abs(root / e - 1) < rtol / 4:
            break
        e = root
    return best, wit


class RidgeWitness(PyramidWitness):
    r"""The larger of several shifted pyramids at their own heights,
    :math:`L(x) = \max_k e^{\epsilon (s_k - d_\infty(x, C_k))}`, :math:`C_k` boxes (points,
    segments, half-lines), :math:`s_k \le 0` (``upper``), or the smaller of several inverted
    ones, :math:`L(x) = \min_k e^{\epsilon (d_\infty(x, C_k) - s_k)}` (lower side); numeric
    coordinates.  Either is :math:`\epsilon`-Lipschitz in log (a maximum or minimum of such
    functions).  The optimal mechanism of an OR of two normal attributes has this form (a
    half-line along each arm of the cross at its own height), as the cell relaxation's
    solutions show.  The layer cake of :class:`PyramidWitness` carries over: the level set at
    :math:`\rho` below the top is the union of the boxes :math:`C_k` grown by
    :math:`s_k + \rho`, measured by inclusion-exclusion over the boxes (their intersections
    are boxes); the tail beyond the last level is bounded through the top box alone.  A
    categorical coordinate under the discrete metric: each box holds one atom (its index),
    and a box grown by 1 or more holds every atom."""

    def __init__(self, model: GoalModel, tc, a, b, s, upper: bool = True):
        a, b = np.asarray(a, float), np.asarray(b, float)
        top = int(np.argmax(s))
        super().__init__(model, tc, a[top], b[top], upper)
        self.boxes_a, self.boxes_b = a, b
        self.levels = np.asarray(s, float) - float(np.max(s))

    def describe(self) -> dict:
        return {"kind": "ridges" if self.upper else "inverted ridges", "box_low": self.boxes_a.tolist(),
                "box_high": self.boxes_b.tolist(), "heights": self.levels.tolist()}

    def _masses(self, s):
        model, ka, kb, lev = self.model, self.boxes_a, self.boxes_b, self.levels
        s = np.asarray(s, float)
        subsets = [list(x) for size in range(1, len(lev) + 1)
                   for x in itertools.combinations(range(len(lev)), size)]
        k = len(lev)
        member = np.zeros((len(subsets), k), dtype=bool)  # (subsets, boxes)
        for i, sub in enumerate(subsets):
            member[i, sub] = True
        sign = np.where(member.sum(axis=1) % 2 == 1, 1.0, -1.0)[:, None]
        grow = s[None, :, None] + lev[None, None, :]  # (1, levels, boxes)
        live = np.all(np.where(member[:, None, :], grow >= 0, True), axis=2)  # (subsets, levels)
        per_all, per_in = [], []
        for c, prior in enumerate(model.priors):
            if model.discrete[c]:
                # a box holds one atom, grown by 1 or more every atom: the intersection is
                # every atom, the one atom the unreached boxes agree on, or none
                near = member[:, None, :] & (grow < 1)
                top = np.max(np.where(near, ka[None, None, :, c], -np.inf), axis=2)
                bot = np.min(np.where(near, ka[None, None, :, c], np.inf), axis=2)
                anyn = np.any(near, axis=2)
                atom = np.where(anyn & (top == bot), top, -1.0).astype(int)
                probs = np.asarray(prior.probs, dtype=float)
                t = int(self.tc[c])
                p_atom = np.where(atom >= 0, probs[np.clip(atom, 0, None)], 0.0)
                per_all.append(np.where(live, np.where(anyn, p_atom, 1.0), 0.0))
                per_in.append(np.where(live & (~anyn | (atom == t)), probs[t], 0.0))
                continue
            lo = np.max(np.where(member[:, None, :], ka[None, None, :, c] - grow, -np.inf), axis=2)
            hi = np.min(np.where(member[:, None, :], kb[None, None, :, c] + grow, np.inf), axis=2)
            lo, hi = np.where(live, lo, 1.0), np.where(live, hi, 0.0)
            ba, bb = self._band(c)
            per_all.append(np.asarray(prior.mass(lo, hi), float))
            per_in.append(np.asarray(prior.mass(np.maximum(lo, ba), np.minimum(hi, bb)), float))
        total = np.clip(np.sum(sign * math.prod(per_all), axis=0), 0.0, 1.0)
        inside = np.sum(sign * _goal_mass(model, per_all, per_in), axis=0)
        return total, np.clip(inside, 0.0, total)

    def _smax(self):
        """A level at which one box alone, grown, leaves less than 1e-18 of each coordinate's
        mass outside."""
        return min(self._reach(a, b) - lev for a, b, lev in zip(self.boxes_a, self.boxes_b, self.levels, strict=True))


def _extent(model: GoalModel) -> list:
    """Per coordinate: the range outside which less than 1e-18 of its mass lies (``None``
    for a categorical coordinate under the discrete metric); cached on the model."""
    if "_extent18" not in model.__dict__:
        out = []
        for prior, disc in zip(model.priors, model.discrete, strict=True):
            if disc:
                out.append((None, None))
                continue
            fin = isinstance(prior, Categorical)
            lo = prior.support[0] if fin else float(np.asarray(prior.quantile(1e-18)))
            hi = prior.support[1] if fin else float(np.asarray(prior.upper_quantile(1e-18)))
            out.append((max(lo, prior.support[0]), min(hi, prior.support[1])))
        model.__dict__["_extent18"] = out
    return model.__dict__["_extent18"]


def _goal_mass(model: GoalModel, per_all, per_in):
    """F(X' cap B) for a box B given per coordinate F(B_c) and F(B_c cap band_c), by
    inclusion-exclusion over the AND-sets.

    Each part must be one coordinate's band: a ball of several coordinates is not a product
    of bands, so it is refused (the pyramid witnesses are built for box goal sets only)."""
    balls = [part.obj.name or "ball" for part in model.parts if part.kind == "ball"]
    if balls:
        raise ValueError(f"pyramid goal masses need box goal sets; {balls} is a ball")
    out = np.zeros_like(per_all[0])
    for size in range(1, len(model.terms) + 1):
        for subset in itertools.combinations(model.terms, size):
            used = set().union(*[set(t) for t in subset])
            coords = {model.parts[k].coords[0] for k in used}
            prod = np.ones_like(out)
            for c in range(model.ncoord):
                prod = prod * (per_in[c] if c in coords else per_all[c])
            out = out + (-1) ** (size + 1) * prod
    return out
