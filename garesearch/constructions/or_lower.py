r"""The lower side of OR goals over unbounded attributes: every wrong record compared with all
of :math:`X'` pointwise (beyond the paper, which has no lower side for unbounded OR events;
Sec. 4.3, Def. 7).

:func:`or_lower_epsilon` derives and computes the epsilon; :func:`or_lower_ratio` is the
integral it needs.  Used by the comparison-set construction (:mod:`garesearch.constructions.comparison_sets`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..errors import InfeasibleError, ParameterError
from ..goals import Attribute, Coordinates, prior_density
from ..priors import Categorical, Continuous, Normal, PiecewiseUniform, Prior

__all__ = ["or_lower_epsilon", "or_lower_ratio"]


def _log_tilted(prior: Prior, k: float, lo, hi, c) -> np.ndarray:
    r""":math:`\log \int_{[lo, hi]} e^{k(u - c)} dF(u)`, vectorised over ``lo``, ``hi``, ``c``
    (:meth:`~garesearch.priors.Prior.log_tilted_mass`; ``-inf`` for an empty range)."""
    lo, hi, c = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float), np.asarray(c, float))
    ok = hi > lo
    a, b = np.where(ok, lo, 0.0), np.where(ok, hi, 1.0)
    fa, fb = np.isfinite(a), np.isfinite(b)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        # an infinite end: one tilted tail (continuous priors: no atom is counted twice)
        left = prior.log_tilted_tail(k, np.where(fb, b, c), "left") + k * (np.where(fb, b, c) - c)
        right = prior.log_tilted_tail(k, np.where(fa, a, c), "right") + k * (np.where(fa, a, c) - c)
        both = prior.log_tilted_mass(k, np.where(fa, a, 0.0), np.where(fb, b, 1.0), c)
        out = np.where(fa & fb, both, np.where(fa, right, np.where(fb, left, np.logaddexp(left, right))))
    return np.where(ok, out, -np.inf)


def _kernel_masses(att: Attribute, t, x, eps):
    r"""For nodes ``x``: :math:`k(x) = \int_{\mathcal B(t,r)} e^{-\epsilon d(x,u)} dF(u)` and
    :math:`m(x) = \int e^{-\epsilon d(x,u)} dF(u)`."""
    prior = att.prior
    if att.discrete:
        px = np.array([prior.probability(v) for v in x])
        same = np.array([v == t for v in x])
        k = prior.probability(t) * np.where(same, 1.0, math.exp(-eps))
        return k, px + (1 - px) * math.exp(-eps)
    x = np.asarray(x, dtype=float)
    if isinstance(prior, Categorical):
        ker = np.exp(-eps * np.abs(x[:, None] - prior.points[None, :])) * prior.probs[None, :]
        ball = np.abs(prior.points - t) <= att.r
        return ker[:, ball].sum(axis=1), ker.sum(axis=1)
    lo, hi = prior.correct_extent(t, att.r)
    low, high = prior.support

    def piece(a, b):  # int_a^b e^{-eps|x-u|} dF(u)
        left = _log_tilted(prior, eps, a, np.minimum(b, x), x)  # u < x: e^{eps (u - x)}
        right = _log_tilted(prior, -eps, np.maximum(a, x), b, x)  # u > x: e^{-eps (u - x)}
        return np.exp(np.logaddexp(left, right))

    return piece(lo, hi), piece(low, high)


_GL = np.polynomial.legendre.leggauss(12)
_GRID_BUDGET = 2_000_000  # largest tensor-product grid of or_lower_ratio


def _panels(prior, a, b, n):
    """Composite Gauss-Legendre nodes and prior weights on [a, b] (``n`` panels, 12 nodes)."""
    if not b > a:
        return np.zeros(0), np.zeros(0)
    cuts = np.linspace(a, b, n + 1)
    if isinstance(prior, PiecewiseUniform):
        cuts = np.unique(np.concatenate([cuts, prior.edges[(prior.edges > a) & (prior.edges < b)]]))
    h = np.diff(cuts)[:, None] / 2
    mid = (cuts[:-1] + cuts[1:])[:, None] / 2
    xs = (mid + h * _GL[0][None, :]).ravel()
    ws = (h * _GL[1][None, :]).ravel() * np.array([prior_density(prior, v) for v in xs])
    return xs, ws


def _nodes(att: Attribute, t, eps, n):
    """Quadrature nodes, prior weights and ball flags covering the attribute's support."""
    prior = att.prior
    if att.discrete:
        vals = list(prior.values)
        return vals, prior.probs.copy(), np.array([v == t for v in vals])
    if isinstance(prior, Categorical):
        x = prior.points.copy()
        return x, prior.probs.copy(), np.abs(x - t) <= att.r
    low, high = prior.support
    if isinstance(prior, Normal):
        # the integrand grows like e^{eps |x|}: reach 14 sigma beyond the tilted mean
        reach = abs(eps) * prior.sigma**2 + 14 * prior.sigma + abs(t - prior.mu) + att.r
        low, high = prior.mu - reach, prior.mu + reach
    else:
        if not math.isfinite(low):
            low = float(prior.quantile(1e-16))
        if not math.isfinite(high):
            high = float(prior.quantile(1 - 1e-16))
    lo, hi = prior.correct_extent(t, att.r)
    parts = [(low, lo), (lo, hi), (hi, high)]
    span = high - low
    xs, ws = [], []
    for a, b in parts:
        x, w = _panels(prior, a, b, max(2, math.ceil(n * (b - a) / span)))
        xs.append(x)
        ws.append(w)
    x, w = np.concatenate(xs), np.concatenate(ws)
    return x, w, (x >= lo) & (x <= hi)


def or_lower_ratio(terms, atts, tv, eps, n: int = 40) -> float:
    r"""Bound :math:`I(\epsilon) \ge \Pr_{post}[C]/\Pr_{post}[X']` for an OR goal (the
    complement :math:`C` of :math:`X'`), for every :math:`\epsilon`-DP mechanism w.r.t. any
    :math:`\ell_p` norm and every output; see :func:`or_lower_epsilon`.  Tensor-product
    quadrature with ``n`` panels per attribute (exact sums for finite priors).

    Examples
    --------
    At :math:`\epsilon = 0` the kernel is the prior mass ``p`` of :math:`X'`, so the ratio is
    :math:`(1-p)/p`; for two fair coins and "either matches", ``p = 3/4``:

    >>> from garesearch.goals import Attribute
    >>> from garesearch.priors import Categorical
    >>> x = Attribute(Categorical({"a": 0.5, "b": 0.5}), r=0, name="x")
    >>> y = Attribute(Categorical({"a": 0.5, "b": 0.5}), r=0, name="y")
    >>> abs(or_lower_ratio((x | y).terms(), [x, y], ["a", "a"], 0.0) - 1 / 3) < 1e-12
    True
    """
    nodes = [_nodes(att, t, eps, n) for att, t in zip(atts, tv, strict=True)]
    while math.prod(len(nd[1]) for nd in nodes) > _GRID_BUDGET and n > 4:
        n //= 2  # fewer panels per attribute: the tensor grid must fit in memory
        nodes = [_nodes(att, t, eps, n) for att, t in zip(atts, tv, strict=True)]
    if math.prod(len(nd[1]) for nd in nodes) > _GRID_BUDGET:
        raise ParameterError(
            "sides: the lower side of this OR goal needs a quadrature grid of "
            f"{math.prod(len(nd[1]) for nd in nodes):.3g} points (more than {_GRID_BUDGET:.0e}); "
            "use sides='upper', or fewer continuous attributes"
        )
    index = {id(a): i for i, a in enumerate(atts)}
    ks, ms = zip(*(_kernel_masses(att, t, nd[0], eps) for att, t, nd in zip(atts, tv, nodes, strict=True)), strict=True)
    dim = len(atts)

    def grid(vec, i):
        shape = [1] * dim
        shape[i] = -1
        return np.asarray(vec, dtype=float).reshape(shape)

    # K_1(x) = sum over non-empty sets S of AND-terms, inclusion-exclusion
    K = 0.0
    for size in range(1, len(terms) + 1):
        for subset in itertools.combinations(terms, size):
            used = {index[id(att)] for term in subset for att in term}
            prod = 1.0
            for i in range(dim):
                prod = prod * grid(ks[i] if i in used else ms[i], i)
            K = K + (-1) ** (size + 1) * prod
    hit = np.zeros([len(nd[1]) for nd in nodes], dtype=bool)
    for term in terms:
        inside = np.ones_like(hit)
        for att in term:
            i = index[id(att)]
            inside = inside & grid(nodes[i][2], i).astype(bool)
        hit |= inside
    W = 1.0
    for i in range(dim):
        W = W * grid(nodes[i][1], i)
    with np.errstate(divide="ignore", invalid="ignore"):
        vals = np.where(hit | (W == 0), 0.0, W / K)
    return float(np.sum(vals))


def or_lower_epsilon(terms, atts, tv, delta, p) -> float:
    r"""Largest epsilon with :math:`\Pr_{post}[X'] \ge p - \delta` for an OR of AND-sets of
    independent attributes, bounded or not (Def. 7, lower side).

    Derivation.  Let :math:`C = X \setminus X'`.  For :math:`x \in C`, any output ``y`` and
    an :math:`\epsilon`-DP mechanism w.r.t. an :math:`\ell_p` norm,
    :math:`f(y|x') \ge e^{-\epsilon d(x,x')} f(y|x) \ge f(y|x) \prod_j e^{-\epsilon d_j(x_j, x'_j)}`
    (:math:`\lVert v\rVert_p \le \lVert v\rVert_1`), so

    .. math:: N(y) := \int_{X'} f(y|x')\,dF(x') \ge f(y|x)\, K_1(x), \qquad
       K_1(x) = \int_{X'} \prod_j e^{-\epsilon d_j(x_j, x'_j)}\, dF(x').

    The kernel times the prior is a product measure, and :math:`X' = \bigcup_k A_k` with
    :math:`A_k = \{x' : x'_i \in \mathcal B(t_i, r_i)\ \forall i \in S_k\}`; by
    inclusion-exclusion

    .. math:: K_1(x) = \sum_{\emptyset \ne S} (-1)^{|S|+1} \prod_{i \in \cup S} k_i(x_i)
       \prod_{i \notin \cup S} m_i(x_i),

    :math:`k_i(x_i) = \int_{\mathcal B(t_i, r_i)} e^{-\epsilon d_i(x_i, u)} dF_i(u)`,
    :math:`m_i(x_i) = \int e^{-\epsilon d_i(x_i, u)} dF_i(u)` (closed forms for normal and
    piecewise-uniform priors, sums for finite ones).  Integrating :math:`f(y|x) \le
    N(y)/K_1(x)` over :math:`C`: :math:`\Pr_{post}[C]/\Pr_{post}[X'] \le I(\epsilon) =
    \int_C dF/K_1`, hence :math:`\Pr_{post}[X'] \ge 1/(1 + I(\epsilon))`.  At
    :math:`\epsilon = 0`, :math:`K_1 = p` and the bound is exact; ``I`` increases with
    :math:`\epsilon`.  The epsilon solves :math:`I(\epsilon) = (1 - p + \delta)/(p - \delta)`;
    ``I`` is computed twice (``n`` and ``2n`` panels) and the larger value plus their
    difference is used.  (Restricting :math:`x'` to one :math:`A_i` gives the weaker
    :math:`K \ge k_i \prod_{j\ne i} m_j`; the inclusion-exclusion form uses all of
    :math:`X'`.)  Not in the paper, which has no lower-side bound for unbounded OR events.

    Examples
    --------
    Two fair coins, "either matches" (``p = 3/4``): the only wrong record ``(b, b)`` has
    :math:`K_1 = (e^{-2\epsilon} + 2e^{-\epsilon})/4`, so :math:`I = 1/(u^2 + 2u)` with
    :math:`u = e^{-\epsilon}`, and :math:`I = 0.35/0.65` gives :math:`u = \sqrt{20/7} - 1`:

    >>> import math
    >>> from garesearch.goals import Attribute
    >>> from garesearch.priors import Categorical
    >>> x = Attribute(Categorical({"a": 0.5, "b": 0.5}), r=0, name="x")
    >>> y = Attribute(Categorical({"a": 0.5, "b": 0.5}), r=0, name="y")
    >>> eps = or_lower_epsilon((x | y).terms(), [x, y], ["a", "a"], 0.1, 0.75)
    >>> abs(eps - -math.log(math.sqrt(20 / 7) - 1)) < 1e-9
    True
    """
    if p <= delta:
        return math.inf
    target = math.log((1 - p + delta) / (p - delta))
    for att in atts:
        if isinstance(att, Coordinates):
            raise InfeasibleError(
                "the lower side of an OR event with an l_p-ball part is not covered here; ask for sides='upper'")
        if isinstance(att.prior, Continuous):
            low, high = att.prior.support
            if not (math.isfinite(low) and math.isfinite(high)):
                rate = min(att.prior.tail_rates())
                if rate == 0:
                    return 0.0

    def excess(e):
        i1 = or_lower_ratio(terms, atts, tv, e, 40)
        i2 = or_lower_ratio(terms, atts, tv, e, 80)
        val = max(i1, i2) + abs(i1 - i2)
        return target - math.log(val) if val > 0 and math.isfinite(val) else -1e300

    from scipy.optimize import brentq

    if excess(0.0) < 0:
        return 0.0
    scale = max((att.a_max(t) - att.r for att, t in zip(atts, tv, strict=True) if not att.discrete), default=1.0)
    hi = 1.0 / max(scale, 1e-300)
    lo = 0.0
    while excess(hi) >= 0:
        lo, hi = hi, 2 * hi
        if hi > 1e6 / max(scale, 1e-300):
            return math.inf
    return float(brentq(excess, lo, hi, xtol=1e-14, rtol=1e-10))

