r"""The worst true record of a goal with continuous attributes (``t=None``; beyond the paper;
Sec. 4.2, 4.3).

:func:`garesearch.optimal.goals.epsilon_optimal` with ``t=None`` asks for
:math:`\epsilon = \min_t \epsilon^*(t)` over the product of the parts' supports, with
:math:`\epsilon^*(t)` the optimal epsilon at the true record ``t``.  The full solver takes
seconds to a minute per record, so the records are screened first, and it runs once, at the
worst record of the screen.

The screen
----------
For AND / OR goals of one-coordinate parts the product expression bounds the worst posteriors
for every norm (:mod:`garesearch.optimal.goals`, "Proved closed forms"):

.. math::

    U(\epsilon, t) \le P(U_1(\epsilon, t_1), \dots, U_n(\epsilon, t_n)), \qquad
    V(\epsilon, t) \ge P(V_1(\epsilon, t_1), \dots, V_n(\epsilon, t_n)),

with :math:`U_i, V_i` the one-attribute worst posteriors of part ``i`` (Laplace and inverted
kernels, Sec. 4.1) and :math:`P(q)` the probability of the goal when part ``i`` is correct with
probability :math:`q_i` independently; :math:`p(t) = P(p_1(t_1), \dots, p_n(t_n))`.  A record
whose bound stays within :math:`p \pm \delta` at :math:`\epsilon` is *certified* there:
:math:`\epsilon^*(t) \ge \epsilon`, and then at every smaller epsilon (``U`` is nondecreasing,
``V`` nonincreasing).  The one-attribute bounds are tabulated per part over its true values,
certified (branch and bound over the kernel centres,
:meth:`garesearch.optimal._kernels.Margins.sup_over_centres`, on the prior's certified tilted masses),
and the goal's bound over the product of the parts' values is an outer combination of the
tables: one epsilon costs one table per part, however many records there are.

The scan (per part): a categorical attribute, one value per distinct prior mass (the first in
the prior's order: values of equal mass are images of each other under a relabelling that
keeps the prior and the metric); a finite numeric prior, every atom; a density, the scan of
the one-attribute optimum (:meth:`garesearch.priors.Prior.t_candidates`: the tails down to
masses of 1e-30, the bulk, the quantiles, the support's ends and the kinks of a piecewise
prior, each also shifted by ``r``) and the far-tail limits below.  With three or more
continuous parts the densities' scans are thinned so that the product holds at most
:data:`MAX_RECORDS` records (the ends, kinks and limits kept).

The level of a side is the largest epsilon at which every scanned record is certified, to
:data:`REL` relative (regula falsi in log-epsilon with bisection steps); each step evaluates
only the records that failed at the bracket's upper end (those certified there are certified
below it).  The
search is global: the local maxima of the excess over the product grid at the level (at most
:data:`STARTS`, the best first) start zooms of :data:`ZOOM_POINTS` points per continuous
coordinate over :data:`ZOOM_LEVELS` levels, each a quarter of the last; every record a zoom
visits joins the scan, and the level is found again over all of them.  Nothing reads the
clock (a ``budget`` only stops the work).

What is certified: every scanned record (the grid, the zooms' records, the limits) at the
level, by the product bound.  Between scanned records the answer rests on the search (as for
one attribute, :mod:`garesearch.optimal`).  The product bound is the optimum under ``norm=1``;
under another norm the full solver may certify more at a record, so the level can lie below
the optimum by that gap: the full solver's bracket at the worst record is reported beside it.

Far tails
---------
As :math:`t_i \to \pm\infty` along an unbounded end, :math:`p_i \to 0` and, where the prior's
declared tail has hazard rate at least :math:`\lambda` beyond the scan
(:func:`garesearch.optimal._kernels_certify.far_tail_epsilon`), the one-attribute worst posterior tends to
:math:`u_\infty(\epsilon) = 1 - e^{-r(\epsilon^2 - \lambda^2)/\epsilon}` for
:math:`\epsilon > \lambda` (0 otherwise; :mod:`garesearch.optimal`), while :math:`V_i \ge 0`.
Each such end is one more value of the part, the limit, with :math:`U_i = u_\infty`,
:math:`V_i = 0` and :math:`p_i \in [0, m]` (``m`` the mass beyond the scan's last ball): since
:math:`P` increases in every argument, the excess of every record beyond the scan is at most
:math:`P(u_\infty, U_{rest}) - P(0, p_{rest}) - \delta` (upper side) and
:math:`P(m, p_{rest}) - P(0, V_{rest}) - \delta` (lower side).  For an AND, :math:`p \to 0` and
:math:`U \le u_\infty \prod_{j \ne i} U_j`; for an OR, :math:`p \to P(0, p_{rest})` and the
part's own gain tends to :math:`u_\infty`.  A limit is the worst record when its level is the
lowest; the result then has ``t_i = +-inf`` (``details["far_tail"]``), its ``epsilon`` is the
limit's level and its ``epsilon_hi`` the crossing, in the limit, of the split-rate product
witness (the kernels of the other parts and :math:`u_\infty` along the limit's part, reached
as :math:`t_i \to \pm\infty`).

Ties
----
A far-tail limit whose excess just above the level is the largest is the worst record (it is
approached, never reached, so no finite record ties with it), and so is one whose part's
worst scanned value is the end of the scan next to it (the excess grows toward the limit).
Otherwise the zooms' best records (one per maximum) whose excesses just above the level agree
to :data:`TIE` times ``delta`` tie (mirror images of a symmetric prior, the interior of a
uniform prior).  Among them the record nearest the priors' centres wins: the smallest
:math:`\sum_i z_i^2` (to 1e-6 relative, so that mirror images stay tied), :math:`z_i = (t_i -
\mathrm{median}_i) / \mathrm{IQR}_i` for a numeric part (0 for a categorical one); then the
lexicographically largest record (numeric values in the goal's order, categorical ones by
their position in the prior; compare :func:`garesearch.optimal._optimal_density.tie_break`, the
larger true value for one attribute).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit as _expit

from ..errors import InfeasibleError, ParameterError
from ..priors import Categorical
from ._certify import Bracket, BudgetExhausted, check_time, odds_to_posterior, wall_clock_cap
from ._goal_model import GoalModel, goal_probability
from ._kernels import Margins, _log_odds_bounds, logit_bounds
from ._kernels_certify import far_tail_epsilon

__all__ = ["MAX_RECORDS", "REL", "STARTS", "TIE", "ZOOM_LEVELS", "ZOOM_POINTS", "Screen", "screen",
           "worst_result"]

#: the scan's product grid holds at most this many records (densities thinned beyond)
MAX_RECORDS = 2_000_000
#: the level's bisection stops at this relative width
REL = 1e-9
#: records whose excesses just above the level agree to this times ``delta`` tie (the tie
#: rule decides; as :data:`garesearch.optimal._optimal_density.TIE_RTOL` for one attribute)
TIE = 1e-8
#: zoom starts per side, points per coordinate and zoom levels
STARTS, ZOOM_POINTS, ZOOM_LEVELS = 8, 9, 6
_TOL = 1e-9  # the branch and bound's tolerance on a one-attribute log odds
_PAD = 64 * 2.0**-53  # absolute pad on an excess: the rounding of P and of the logistic


class _Part:
    """One part's scanned true values and its one-attribute tables."""

    def __init__(self, model: GoalModel, k: int, thin: int):
        part = model.parts[k]
        prior = model.priors[part.coords[0]]
        self.prior, self.r = prior, float(part.r)
        self.lam = {}
        if part.kind == "disc":
            probs = np.asarray(prior.probs, float)
            first = np.sort(np.unique(probs, return_index=True)[1])
            self.kind = "disc"
            self.labels = [prior.values[i] for i in first]
            self.order = first.astype(float)  # (the tie rule's order: position in the prior)
            self.p_lo = self.p_hi = probs[first]
            self.logit = np.log(self.p_lo) - np.log1p(-self.p_lo)
            return
        self.mg = Margins(prior, self.r, 0.0)
        self.mg.small = False
        if isinstance(prior, Categorical):
            self.kind = "finite"
            ts = np.asarray(prior.points, float)
            self.centre, self.scale = float(np.median(ts)), float(np.ptp(ts)) or 1.0
        else:
            self.kind = "density"
            ts = np.asarray(prior.t_candidates(self.r), float)
            # (as the one-attribute scan: float64 must place a ball of radius r)
            resolved = np.spacing(np.abs(ts)) <= self.r * 2.0**-26
            ts = ts[resolved] if np.any(resolved) else ts
            if thin > 1:
                keep = np.zeros(ts.size, bool)
                keep[::thin] = True
                keep[[0, -1]] = True
                low, high = prior.support
                special = [low, low + self.r, high - self.r, high]
                special += [e + s for e in np.atleast_1d(getattr(prior, "edges", [])) for s in (-self.r, 0.0, self.r)]
                keep |= np.isin(ts, np.asarray(special, float))
                ts = ts[keep]
            q1, med, q3 = (float(v) for v in np.asarray(prior.quantile(np.array([0.25, 0.5, 0.75])), float))
            self.centre, self.scale = med, (q3 - q1) if q3 > q1 else 1.0
        self.values = np.empty(0)
        self.bl = self.bh = self.p_lo = self.p_hi = self.lg_lo = self.lg_hi = np.empty(0)
        self.add(ts)
        if self.kind == "density":  # the far-tail limits (module docstring)
            low, high = prior.support
            ends = {}
            if math.isinf(low) and prior.tail("left").kind != "bounded":
                ends["left"] = float(ts[0])
            if math.isinf(high) and prior.tail("right").kind != "bounded":
                ends["right"] = float(ts[-1])
            for name, t_end in ends.items():
                lam = far_tail_epsilon(prior, self.r, 0.5, {name: t_end})[2]
                x = t_end - self.r if name == "left" else t_end + self.r
                a, b = (np.array([-math.inf]), np.array([x])) if name == "left" else (np.array([x]), np.array([math.inf]))
                m_lo, m_hi = (np.asarray(v, float) for v in prior.mass_bounds(a, b))
                m_hi = float(self._cap(m_hi, m_lo, a, b)[0])
                self.lam[-math.inf if name == "left" else math.inf] = lam
                self._append(np.array([-math.inf if name == "left" else math.inf]), np.array([np.nan]),
                             np.array([np.nan]), np.array([0.0]), np.array([min(m_hi, 1.0)]))

    @property
    def continuous(self) -> bool:
        return self.kind == "density"

    def _append(self, v, bl, bh, plo, phi):
        lg_lo, lg_hi = logit_bounds(plo, phi)
        for name, new in (("values", v), ("bl", bl), ("bh", bh), ("p_lo", plo), ("p_hi", phi),
                          ("lg_lo", lg_lo), ("lg_hi", lg_hi)):
            setattr(self, name, np.concatenate([getattr(self, name), np.asarray(new, float)]))

    def add(self, ts) -> np.ndarray:
        """Add finite true values (clipped to the support); their indices."""
        if self.kind == "disc":
            raise ParameterError("a categorical part has no values to add")
        low, high = self.prior.support
        ts = np.clip(np.asarray(ts, float), low, high)
        start = self.values.size
        bl, bh, plo, phi = self.mg.ball(ts)
        self._append(ts, bl, bh, plo, self._cap(phi, plo, bl, bh))
        return np.arange(start, start + ts.size)

    def _cap(self, phi, plo, a, b):
        """``phi``, an upper bound on the mass of ``[a, b]``, lowered where the mass outside
        gives a better one: :math:`1 - F_{lo}(< a) - S_{lo}(> b)`, rounded up."""
        loose = phi > plo * (1 + 1e-6) + 1e-300
        if self.kind != "density" or not np.any(loose):
            return phi
        with np.errstate(all="ignore"):
            left = np.asarray(self.prior.mass_bounds(np.full(a.shape, -np.inf), a)[0], float)
            right = np.asarray(self.prior.mass_bounds(b, np.full(b.shape, np.inf))[0], float)
            left = np.where(np.isfinite(a), left, 0.0)
            right = np.where(np.isfinite(b), right, 0.0)
            out = np.nextafter(1.0 - np.nextafter(left + right, -np.inf), np.inf)
        return np.where(loose, np.minimum(phi, np.clip(out, 0.0, 1.0)), phi)

    @property
    def size(self) -> int:
        return self.p_lo.size

    def label(self, i: int):
        return self.labels[i] if self.kind == "disc" else float(self.values[i])

    def zscore(self, i: int) -> float:
        if self.kind == "disc":
            return 0.0
        return (float(self.values[i]) - self.centre) / self.scale

    def key(self, i: int) -> float:
        return float(self.order[i]) if self.kind == "disc" else float(self.values[i])

    def table(self, eps: float, side: str, idx=None) -> np.ndarray:
        """Certified bounds on the one-attribute worst posterior at the values ``idx`` (all by
        default): above :math:`U_i` for ``side="upper"``, below :math:`V_i` for ``"lower"``."""
        idx = np.arange(self.size) if idx is None else np.asarray(idx, int)
        upper = side == "upper"
        if self.kind == "disc":
            return _expit(self.logit[idx] + (eps if upper else -eps))
        out = np.empty(idx.size)
        v = self.values[idx]
        lim = ~np.isfinite(v)
        for j in np.flatnonzero(lim):
            lam = self.lam[float(v[j])]
            if upper and eps > lam:
                u = -math.expm1(-self.r * (eps - lam) * (eps + lam) / eps)
                out[j] = min(1.0, u * (1 + 1e-14) + 1e-300)
            else:
                out[j] = 0.0
        fin = idx[~lim]
        if fin.size:
            out[~lim] = self._kernels(eps, side, fin)
        return out

    def _kernels(self, eps, side, idx):
        plo, phi = self.p_lo[idx], self.p_hi[idx]
        full = plo >= 1.0  # the ball holds every value: nothing moves
        empty = phi <= 0.0  # no mass: the posterior is 0
        ok = ~(full | empty)
        out = np.where(full, 1.0, 0.0)
        if np.any(ok):
            j = idx[ok]
            res = self.mg.sup_over_centres(eps, side, self.bl[j], self.bh[j], self.p_lo[j], self.p_hi[j],
                                           threshold=-np.inf, tol=_TOL, max_rounds=40,
                                           max_intervals=64 * j.size + 256)
            top = np.asarray(res["upper"], float)
            # the margins bound log(A/O) - tau (upper) and tau' - log(A/O) (lower), with tau,
            # tau' the ends of the logit of p the margins themselves use: add them back
            plo, phi = self.p_lo[j], self.p_hi[j]
            q_lo, q_hi = self.mg.outside(self.bl[j], self.bh[j], plo, phi)
            with np.errstate(invalid="ignore", over="ignore"):
                if side == "upper":
                    tau = _log_odds_bounds(plo, phi, q_lo, q_hi, 0.0)[0]
                    lg = np.nextafter(top + tau, np.inf)
                    val = np.where(np.isnan(lg), 1.0, _expit(np.where(np.isnan(lg), 0.0, lg)))
                else:
                    tau = -_log_odds_bounds(q_lo, q_hi, plo, phi, 0.0)[0]
                    lg = np.nextafter(tau - top, -np.inf)
                    val = np.where(np.isnan(lg), 0.0, _expit(np.where(np.isnan(lg), 0.0, lg)))
            out[ok] = val
        return out


@dataclass
class Screen:
    """What the screen found (:func:`screen`): per side its level (every scanned record is
    certified there), the worst record of the binding side, and the counts."""

    level: dict  # side -> level (inf: the side never binds; 0: no epsilon > 0 certified)
    record: dict  # side -> tuple of indices (one per part)
    parts: list = field(repr=False, default_factory=list)
    records: int = 0
    starts: int = 0
    cut_short: bool = False

    @property
    def binding(self) -> str:
        return min(self.level, key=lambda s: (self.level[s], s != "upper"))

    @property
    def epsilon(self) -> float:
        return min(self.level.values())

    def labels(self, side: str | None = None) -> list:
        idx = self.record[side or self.binding]
        return [pt.label(i) for pt, i in zip(self.parts, idx, strict=True)]

    @property
    def far_tail(self) -> bool:
        return any(not math.isfinite(v) for v, pt in zip(self.labels(), self.parts, strict=True)
                   if pt.kind != "disc")


class _Scan:
    """The scanned records: the product of the parts' first values (the grid) and a list of
    records the zooms visited; the goal's excess over them at one epsilon."""

    def __init__(self, model: GoalModel, delta: float):
        self.model, self.delta = model, delta
        n_cont = sum(model.parts[k].kind == "num" and not isinstance(model.priors[model.parts[k].coords[0]], Categorical)
                     for k in range(len(model.parts)))
        thin = 1
        while True:
            parts = [_Part(model, k, thin) for k in range(len(model.parts))]
            size = math.prod(pt.size for pt in parts)
            if size <= MAX_RECORDS or n_cont == 0 or thin > 64:
                break
            thin *= 2
        if size > MAX_RECORDS:
            raise ParameterError(
                f"t=None would screen {size} true records (more than {MAX_RECORDS}: too many "
                "categorical values or atoms); pass t")
        self.parts = parts
        self.grid = tuple(pt.size for pt in parts)
        self.extra = np.zeros((0, len(parts)), int)
        # (inclusion-exclusion over AND-sets that share a part sums 2^m terms of size <= 1)
        shared = sum(map(len, model.terms)) > len(set().union(*map(set, model.terms)))
        self.pad = _PAD * (2.0 ** len(model.terms) if shared else 1.0)

    def _P(self, qs):
        return goal_probability(self.model.terms, qs)

    def excess(self, eps: float, side: str, rec=None) -> np.ndarray:
        """The side's excess bound (> 0: not certified at ``eps``) on the grid (an array of its
        shape) or at the records ``rec`` (indices, one column per part)."""
        n = len(self.parts)
        upper = side == "upper"
        if rec is None:
            def shp(a, k):
                return a.reshape([-1 if j == k else 1 for j in range(n)])

            pg = list(zip(self.parts, self.grid, strict=True))
            tab = [shp(pt.table(eps, side, np.arange(g)), k) for k, (pt, g) in enumerate(pg)]
            pl = [shp(pt.p_lo[:g], k) for k, (pt, g) in enumerate(pg)]
            ph = [shp(pt.p_hi[:g], k) for k, (pt, g) in enumerate(pg)]
        else:
            tab, pl, ph = [], [], []
            for k, pt in enumerate(self.parts):
                u, inv = np.unique(rec[:, k], return_inverse=True)
                tab.append(pt.table(eps, side, u)[inv])
                pl.append(pt.p_lo[rec[:, k]])
                ph.append(pt.p_hi[rec[:, k]])
        with np.errstate(invalid="ignore"):
            if upper:
                ex = self._P(tab) - self._P(pl) - self.delta + self.pad
            else:
                ex = self._P(ph) - self._P(tab) - self.delta + self.pad
        ex = np.asarray(ex, float)
        return np.where(np.isnan(ex), np.inf, ex)

    def failing(self, eps: float, side: str) -> tuple[np.ndarray, float]:
        """The records (rows of indices) not certified at ``eps``, and the largest excess."""
        ex = self.excess(eps, side)
        bad = np.argwhere(ex > 0)
        top = float(np.max(ex))
        if self.extra.shape[0]:
            exx = self.excess(eps, side, self.extra)
            bad = np.concatenate([bad, self.extra[exx > 0]])
            top = max(top, float(np.max(exx)))
        return bad, top

    def can_bind(self, side: str) -> bool:
        """Whether some record's side can bind at all: ``p + delta < 1`` (upper) or
        ``p - delta > 0`` (lower) somewhere on the grid (the posterior lies in [0, 1])."""
        n = len(self.parts)
        pg = list(zip(self.parts, self.grid, strict=True))
        qs = [pt.p_lo[:g] if side == "upper" else pt.p_hi[:g] for pt, g in pg]
        p = self._P([q.reshape([-1 if j == k else 1 for j in range(n)]) for k, q in enumerate(qs)])
        room = (1.0 - p) if side == "upper" else p
        return bool(np.any(room - self.delta + self.pad > 0))

    @property
    def count(self) -> int:
        return math.prod(self.grid) + self.extra.shape[0]


def _expand(scan: _Scan, side: str, x0: float, bad=None, g0=None):
    """A bracket ``(lo, hi, failing, g_lo, g_hi)`` in log-epsilon: every record certified at
    ``lo``, the records ``failing`` not at ``hi`` (with the largest excesses ``g``), by steps
    that double from ``x0``; ``bad``: the only records that may fail at ``x0`` (all if
    ``None``).  ``None`` if none fails below epsilon 1e300; ``(None, hi, failing, ...)`` if
    some fail down to epsilon 1e-300."""
    if bad is None:
        bad, g0 = scan.failing(math.exp(x0), side)
    step = math.log(4.0)
    if bad.shape[0] == 0:
        lo, g_lo = x0, g0
        while True:
            check_time()
            hi = lo + step
            if hi > math.log(1e300):
                return None
            bad, g = scan.failing(math.exp(hi), side)
            if bad.shape[0]:
                return lo, hi, bad, g_lo, g
            lo, step, g_lo = hi, 2 * step, g
    hi = x0
    g_hi = float(np.max(scan.excess(math.exp(hi), side, bad)))
    while True:
        check_time()
        lo = hi - step
        if lo < math.log(1e-300):
            return None, hi, bad, -math.inf, g_hi
        ex = scan.excess(math.exp(lo), side, bad)
        if not np.any(ex > 0):
            return lo, hi, bad, float(np.max(ex)), g_hi
        hi, bad, step, g_hi = lo, bad[ex > 0], 2 * step, float(np.max(ex[ex > 0]))


def _refine(scan: _Scan, side: str, lo, hi, bad, g_lo, g_hi, rel: float):
    """Narrow the bracket of :func:`_expand` to ``hi / lo - 1 <= rel``: regula falsi with the
    Illinois rule on the largest excess of the failing records (and a bisection whenever a
    step leaves the bracket less than halved); each step evaluates only the records that
    failed at the bracket's upper end (the others are certified there, hence below it).
    ``(lo, hi, failing)`` in epsilon."""
    kept = 0  # which end the last step kept (-1: lo, 1: hi), for the Illinois rule
    for _ in range(200):
        w = hi - lo
        if math.expm1(w) <= rel:
            break
        check_time()
        ok = math.isfinite(g_hi - g_lo) and g_hi > g_lo
        x = hi - g_hi * w / (g_hi - g_lo) if ok else 0.5 * (lo + hi)
        x = min(max(x, lo + 1e-3 * w), hi - 1e-3 * w)  # (a step inside the bracket)
        if math.expm1(hi - x) <= rel:
            x = hi - 0.5 * math.log1p(rel)
        for _half in range(2):
            ex = scan.excess(math.exp(x), side, bad)
            if np.any(ex > 0):
                hi, bad, g_hi = x, bad[ex > 0], float(np.max(ex[ex > 0]))
                g_lo, kept = (g_lo / 2 if kept == 1 else g_lo), 1
            else:
                lo, g_lo = x, float(np.max(ex))
                g_hi, kept = (g_hi / 2 if kept == -1 else g_hi), -1
            if hi - lo <= 0.5 * w or math.expm1(hi - lo) <= rel:
                break
            x = 0.5 * (lo + hi)  # less than halved: one bisection step
    return math.exp(lo), math.exp(hi), bad


def _starts(scan: _Scan, side: str, eps: float) -> list:
    """Up to :data:`STARTS` grid records, the best first: local maxima of the excess at ``eps``
    along every part (over a categorical or finite part: its maximum)."""
    ex = scan.excess(eps, side)
    if not np.any(np.isfinite(ex)):
        return []
    is_max = np.ones(ex.shape, bool)
    for k, pt in enumerate(scan.parts):
        if pt.continuous:  # neighbours in the sorted order of the values (limits at the ends)
            order = np.argsort(pt.values[:scan.grid[k]], kind="stable")
            e = np.take(ex, order, axis=k)
            m = np.ones(e.shape, bool)
            sl = [slice(None)] * ex.ndim
            a, b = list(sl), list(sl)
            a[k], b[k] = slice(1, None), slice(None, -1)
            m[tuple(a)] &= e[tuple(a)] >= e[tuple(b)]
            m[tuple(b)] &= e[tuple(b)] >= e[tuple(a)]
            back = np.empty_like(order)
            back[order] = np.arange(order.size)
            is_max &= np.take(m, back, axis=k)
        else:
            is_max &= ex >= np.max(ex, axis=k, keepdims=True)
    flat = np.flatnonzero(is_max & np.isfinite(ex))
    best = flat[np.argsort(-ex.ravel()[flat], kind="stable")][:STARTS]
    return [np.unravel_index(int(i), ex.shape) for i in best]


def _zoom(scan: _Scan, side: str, eps: float, starts: list):
    """From each start, zoom grids over its continuous parts (module docstring); every record
    visited joins the scan.  ``(finals, records, excess)``: the best record of each zoom, and
    the records visited with their excesses at ``eps``."""
    conts = [k for k, pt in enumerate(scan.parts) if pt.continuous]
    seen, vals = [np.zeros((0, len(scan.parts)), int)], [np.zeros(0)]
    if not conts or not starts:
        return [tuple(int(i) for i in s) for s in starts], seen[0], vals[0]
    cur = [list(s) for s in starts]
    half = []
    for s in starts:  # the first zoom spans the start's neighbours on the grid
        hs = []
        for k in conts:
            pt = scan.parts[k]
            v = pt.values[:scan.grid[k]]
            t, fin = pt.values[s[k]], np.sort(v[np.isfinite(v)])
            i = int(np.searchsorted(fin, t))
            left, right = fin[max(i - 1, 0)], fin[min(i + 1, fin.size - 1)]
            hs.append(float(max(t - left, right - t)) if math.isfinite(t) else 0.0)  # (not a limit)
        half.append(hs)
    u = np.linspace(-1.0, 1.0, ZOOM_POINTS)
    for _ in range(ZOOM_LEVELS):
        check_time()
        blocks = []
        for s, hs in zip(cur, half, strict=True):
            axes = [scan.parts[k].add(scan.parts[k].values[s[k]] + hs[j] * u) if hs[j] > 0 else np.array([s[k]])
                    for j, k in enumerate(conts)]
            mesh = np.meshgrid(*axes, indexing="ij")
            rec = np.tile(np.asarray(s, int), (mesh[0].size, 1))
            for j, k in enumerate(conts):
                rec[:, k] = mesh[j].ravel()
            blocks.append(rec)
        allrec = np.concatenate(blocks)
        ex = scan.excess(eps, side, allrec)
        scan.extra = np.concatenate([scan.extra, allrec])
        seen.append(allrec)
        vals.append(ex)
        pos = 0
        for b, blk in enumerate(blocks):  # (the start stays unless a point beats it by more
            e = ex[pos:pos + blk.shape[0]]  # than the tie margin: it is the block's middle)
            pos += blk.shape[0]
            j = int(np.argmax(e))
            if e[j] > e[blk.shape[0] // 2] + TIE * scan.delta:
                cur[b] = list(blk[j])
            half[b] = [h / 4 for h in half[b]]
    return [tuple(int(i) for i in c) for c in cur], np.concatenate(seen), np.concatenate(vals)


def _tie(scan: _Scan, side: str, hi: float, finals: list) -> tuple:
    """The worst record of a side by the tie rule (module docstring) among the zooms' best
    records (one per maximum: the records around one maximum do not tie with each other)
    whose excesses at ``hi`` (just above the level) lie within ``TIE * delta`` of the largest
    (without zooms: the grid's largest)."""
    if finals:
        rec = np.asarray(finals, int)
    else:
        ex = scan.excess(hi, side)
        rec = np.argwhere(ex >= np.max(ex) - TIE * scan.delta)
    val = scan.excess(hi, side, rec)
    top = int(np.argmax(val))
    if not all(math.isfinite(pt.key(int(i))) for pt, i in zip(scan.parts, rec[top], strict=True)):
        return tuple(int(i) for i in rec[top])  # a far-tail limit (approached, never reached)
    tied = rec[val >= val[top] - TIE * scan.delta]
    z2 = np.array([sum(pt.zscore(int(i)) ** 2 for pt, i in zip(scan.parts, r, strict=True)) for r in tied])
    with np.errstate(invalid="ignore"):  # (the nearest, to 1e-6 relative: mirror images tie)
        near = tied[z2 <= np.min(z2) * (1 + 1e-6) + 1e-12] if np.isfinite(np.min(z2)) else tied
    keys = [tuple(pt.key(int(i)) for pt, i in zip(scan.parts, r, strict=True)) for r in near]
    best = [int(i) for i in near[max(range(len(keys)), key=keys.__getitem__)]]
    for k, pt in enumerate(scan.parts):  # at the end of a scan that has a limit beyond: the
        if pt.continuous:  # excess grows toward the end, its supremum is the limit
            v, fin = pt.values[best[k]], pt.values[:scan.grid[k]]
            fin = fin[np.isfinite(fin)]
            for end in (e for e in pt.lam if (v >= fin.max() if e > 0 else v <= fin.min())):
                best[k] = int(np.flatnonzero(pt.values == end)[0])
    return tuple(best)


def _central(scan: _Scan) -> tuple:
    """The grid record nearest the priors' centres (a record to report where none binds)."""
    return tuple(int(np.argmin([abs(pt.zscore(i)) for i in range(g)]))
                 for pt, g in zip(scan.parts, scan.grid, strict=True))


def screen(model: GoalModel, delta: float, sides: str) -> Screen:
    """The screen of every true record (module docstring): each side's level and worst record.

    A wall-clock cap that runs out stops it: every level is then 0 (``cut_short``).

    Examples
    --------
    Two normal attributes under ``norm=1``, where the product bound is the optimum itself:

    >>> from garesearch.optimal._goal_model import build_model
    >>> from garesearch.goals import Attribute
    >>> from garesearch.priors import Normal
    >>> x = Attribute(Normal(0, 1), r=0.5, name="x")
    >>> y = Attribute(Normal(0, 1), r=0.5, name="y")
    >>> s = screen(build_model(x & y, 1.0), 0.1, "upper")
    >>> round(s.epsilon, 4), s.binding, s.far_tail, [round(v, 3) for v in s.labels()]
    (0.5516, 'upper', False, [0.378, 0.378])
    """
    scan = _Scan(model, float(delta))
    out = Screen({}, {}, scan.parts)
    todo = ("upper", "lower") if sides == "both" else ("upper",)
    rs = [pt.r for pt in scan.parts if pt.kind != "disc" and pt.r > 0]
    x0 = math.log(-math.log1p(-delta) / max(rs)) if rs else 0.0
    try:
        for side in todo:
            br = _expand(scan, side, x0) if scan.can_bind(side) else None
            if br is None:  # certified up to epsilon 1e300: the side never binds
                out.level[side], out.record[side] = math.inf, None
                continue
            if br[0] is None:
                out.level[side], out.record[side] = 0.0, _tie(scan, side, math.exp(br[1]), [])
                continue
            lo, hi, bad = _refine(scan, side, *br, 1e-3)
            finals, new, ex = _zoom(scan, side, hi, _starts(scan, side, hi))
            out.starts += len(finals)
            # every record but the zooms' new ones is certified at lo, and every record but
            # those failing (the level's and the zooms') at hi
            bad = np.concatenate([bad, new[ex > 0]])
            ex_lo = scan.excess(lo, side, new) if new.shape[0] else np.zeros(0)
            x_lo, x_hi = math.log(lo), math.log(hi)
            if np.any(ex_lo > 0):
                br = _expand(scan, side, x_lo, new[ex_lo > 0], float(np.max(ex_lo)))
            else:
                g_lo = float(np.max(ex_lo)) if ex_lo.size else -math.inf
                br = (x_lo, x_hi, bad, g_lo, float(np.max(scan.excess(hi, side, bad))))
            if br[0] is None:
                out.level[side], out.record[side] = 0.0, _tie(scan, side, math.exp(br[1]), finals)
                continue
            lo, hi, _ = _refine(scan, side, *br, REL)
            out.level[side] = lo
            out.record[side] = _tie(scan, side, hi, finals)
    except BudgetExhausted:
        out.cut_short = True
        for side in todo:
            out.level[side] = 0.0
            if out.record.get(side) is None:
                out.record[side] = _central(scan)
    out.records = scan.count
    if all(v is None for v in out.record.values()):  # no side binds anywhere
        out.record, out.level = {"upper": _central(scan)}, {"upper": math.inf}
    for side in list(out.record):
        if out.record[side] is None:
            del out.record[side]
    return out


# ------------------------------------------------------------------------------------------
# The far-tail limit's witness
# ------------------------------------------------------------------------------------------
class _LimitWitness:
    r"""The split-rate product of one-part kernels at a record with parts at a far-tail limit:
    the posterior of a limit part is :math:`u_\infty` at its rate (upper side; reached as
    :math:`t_i \to \pm\infty`) or 0 (lower side); the other parts' kernels are found at each
    epsilon (certified from below for the upper side, from above for the lower one)."""

    def __init__(self, parts, idx, terms, weights, upper: bool):
        self.parts, self.idx, self.terms, self.weights, self.upper = parts, idx, terms, weights, upper
        self.centres: list = [None] * len(parts)

    def _one(self, k: int, eps: float) -> float:
        pt, i = self.parts[k], self.idx[k]
        side = "upper" if self.upper else "lower"
        if pt.kind == "disc":
            return odds_to_posterior(float(pt.logit[i]) + (eps if self.upper else -eps))
        v = float(pt.values[i])
        if not math.isfinite(v):
            lam = pt.lam[v]
            if not (self.upper and eps > lam):
                return 0.0
            self.centres[k] = f"t + {lam:.6g} r / epsilon, t -> {v}"
            return max(-math.expm1(-pt.r * (eps - lam) * (eps + lam) / eps) * (1 - 1e-14), 0.0)
        res = pt.mg.sup_over_centres(eps, side, pt.bl[[i]], pt.bh[[i]], pt.p_lo[[i]], pt.p_hi[[i]],
                                     threshold=-np.inf, tol=_TOL, max_rounds=40, max_intervals=256)
        best = float(res["lower"][0])  # what the kernel at the best centre certainly reaches
        self.centres[k] = float(res["centre"][0])
        lg = best + float(pt.lg_lo[i]) if self.upper else float(pt.lg_hi[i]) - best
        return odds_to_posterior(lg) if not math.isnan(lg) else (0.0 if self.upper else 1.0)

    def posterior(self, eps: float) -> float:
        q = [self._one(k, eps * w) for k, w in enumerate(self.weights)]
        return float(goal_probability(self.terms, q))

    def describe(self) -> dict:
        kind = "laplace kernel" if self.upper else "inverted kernel"
        kinds = [{"kind": "discrete metric"} if pt.kind == "disc" else {"kind": kind, "centre": c}
                 for pt, c in zip(self.parts, self.centres, strict=True)]
        return {"kind": "product of one-part kernels (far-tail limit)", "parts": kinds,
                "rates": list(self.weights)}


def _limit_bracket(scr: Screen, model: GoalModel, delta: float, side: str) -> Bracket:
    """The far-tail record's bracket of ``side``: the screen's level and the crossing of the
    limit's witness (bisection in log-epsilon, 80 steps at most)."""
    idx = scr.record[side]
    upper = side == "upper"
    n, norm = len(model.parts), model.norm
    q = 1.0 if math.isinf(norm) else (math.inf if norm == 1 else norm / (norm - 1))
    weights = [1.0 if norm == 1 else n ** (-1.0 / q)] * n
    wit = _LimitWitness(scr.parts, idx, model.terms, weights, upper)
    pl = [float(pt.p_lo[i]) for pt, i in zip(scr.parts, idx, strict=True)]
    ph = [float(pt.p_hi[i]) for pt, i in zip(scr.parts, idx, strict=True)]
    target = (goal_probability(model.terms, ph) + delta) if upper else (goal_probability(model.terms, pl) - delta)

    def crossed(e):
        w = wit.posterior(e)
        return w > target if upper else w < target

    lo = scr.level[side]
    hi = next((e for e in (max(lo, 1e-300) * 2.0**j for j in range(1, 41)) if crossed(e)), math.inf)
    if math.isfinite(hi):  # (an unsafe end by doubling from the level, then bisection)
        a = max(lo, hi / 2)
        for _ in range(80):
            if hi / a - 1 <= 1e-9:
                break
            mid = math.sqrt(a * hi)
            if crossed(mid):
                hi = mid
            else:
                a = mid
    post = wit.posterior(hi) if math.isfinite(hi) else math.nan
    return Bracket(lo, hi, wit, post, bound=target)


# ------------------------------------------------------------------------------------------
# The result
# ------------------------------------------------------------------------------------------
def worst_result(model: GoalModel, delta: float, sides: str, rtol, max_nodes: int, budget, event: str,
                 t0: float, t_one: float | None = None):
    """:func:`garesearch.optimal.goals.epsilon_optimal` with ``t=None`` for a goal with a
    continuous part: the screen, then the full solver at the worst record (module docstring);
    for one attribute its own optimum (:func:`garesearch.optimal.epsilon_optimal`: over t, or
    at ``t_one``), whose bracket is the record's."""
    from . import goals as go

    if any(part.kind == "ball" for part in model.parts):
        raise ParameterError(
            "t=None over continuous coordinates covers goals of one-coordinate parts (the screen "
            "bounds each part alone); this goal has an l_p ball of coordinates: pass t")
    one = len(model.parts) == 1 and model.parts[0].kind == "num"
    cut = False
    with wall_clock_cap(budget):
        if one:  # one attribute: its own optimum over t (certified scan, far tails)
            from .attribute import epsilon_optimal as one_optimal

            part = model.parts[0]
            o = one_optimal(model.priors[0], r=part.r, delta=delta, sides=sides, t=t_one)
            levels = {"upper": o.epsilon_upper, "lower": o.epsilon_lower if sides == "both" else math.inf}
            t_one = o.t if o.t is not None else float(model.priors[0].quantile(0.5))  # (none binds)
            tv, far, records, starts = [t_one], bool(o.far_tail), None, None
        else:
            scr = screen(model, delta, sides)
            levels = {s: scr.level.get(s, math.inf) for s in ("upper", "lower")}
            tv, far, records, starts, cut = scr.labels(), scr.far_tail, scr.records, scr.starts, scr.cut_short
        res = None
        if not (far or one):  # (one attribute: its optimum's bracket is the record's own)
            res = go._solve_t(model, tv, delta, sides, rtol, max_nodes)
            cut = cut or res["cut_short"]
    if far or one:
        binding = min(levels, key=lambda s: (levels[s], s != "upper"))
        post = math.nan if one and o.posterior is None else (o.posterior if one else None)
        side = Bracket(o.epsilon, o.epsilon_hi, None, post, bound=post) if one else \
            _limit_bracket(scr, model, delta, binding)
        up = side if binding == "upper" else Bracket(levels["upper"], math.inf)
        dn = side if binding == "lower" else Bracket(levels["lower"], math.inf)
        p = float(o.p) if one else float(goal_probability(model.terms, [  # (p_i -> 0 at a limit)
            0.5 * (pt.p_lo[i] + pt.p_hi[i]) if math.isfinite(pt.key(i)) else 0.0
            for pt, i in zip(scr.parts, scr.record[binding], strict=True)]))
        method = "kernel" if one else "product-bound"
        witness = {"kind": ("laplace" if binding == "upper" else "inverted") + " kernel"
                   + (" (far-tail limit)" if far else ""), "centre": o.centre} if one else side.witness.describe()
        bracket = None if far else (o.epsilon, o.epsilon_hi)
    else:
        up = res["sides"]["upper"]
        dn = res["sides"].get("lower", Bracket(math.inf, math.inf))
        bracket = go._bracket(res)[:2]
        levels = {"upper": min(levels["upper"], up.lo),
                  "lower": min(levels["lower"], dn.lo) if sides == "both" else dn.lo}
        binding = "upper" if levels["upper"] <= levels["lower"] else "lower"
        p, method = res["p"], res["method"]
        side = res["sides"][binding]
        if side.hi > min(up.hi, dn.hi):  # the other side's witness gives epsilon_hi
            side = up if up.hi <= dn.hi else dn
        witness = go._witness_info(side, method)
    e_up, e_dn = levels["upper"], levels["lower"]
    if cut and not one and scr.cut_short:  # not every record was screened: only 0 is sound
        e_up, e_dn = 0.0, (0.0 if sides == "both" else e_dn)
    lo, hi = min(e_up, e_dn), min(up.hi, dn.hi)
    if not lo > 0 and not cut:
        raise InfeasibleError(
            f"no epsilon > 0 could be certified over the true records: at t={tv} the {binding} side "
            "is not met by any certified epsilon (by the product of the one-attribute bounds, the "
            f"screen of every record; the record's own bracket is {bracket}); allow a larger delta"
            + (", or sides='upper'" if binding == "lower" else "") + ", or pass t")
    width = (0.0 if math.isinf(lo) else math.inf) if math.isinf(hi) else (hi - lo) / hi
    details = {"seconds": time.perf_counter() - t0, "true_records": records, "true_records_total": records,
               "cut_short": cut, "far_tail": far, "record_bracket": bracket,
               "screen": {"epsilon_upper": levels["upper"], "epsilon_lower": levels["lower"],
                          "starts": starts, "by": "epsilon_optimal of the attribute" if one else "product bound"}}
    if res is not None:
        details["upper"] = {"lps": up.lps, **up.size}
        details["lower"] = {"lps": dn.lps, **dn.size}
    if cut:
        warnings.warn(go.CutShortWarning(
            f"epsilon_optimal was cut short by budget={budget:g} s: the bracket [{lo:.6g}, {hi:.6g}] "
            "is sound but wider than its work schedule gives, and depends on the machine's speed "
            "and load (not reproducible); drop budget for the reproducible result"), stacklevel=3)
    return go.OptimalGoalResult(
        epsilon=lo, t=dict(zip(model.labels, tv, strict=True)), p=p, event=event, method=method,
        binding=binding if math.isfinite(lo) else "none", epsilon_upper=e_up, epsilon_lower=e_dn,
        epsilon_lo=lo, epsilon_hi=hi, rel_width=width, posterior=side.posterior, witness=witness,
        delta=float(delta), norm=model.norm, sides=sides, upper=(e_up, up.hi), lower=(e_dn, dn.hi),
        upper_bound_at_lo=up.bound if not (cut and e_up == 0) else math.nan, details=details,
        cut_short=cut)
