r"""The AND and OR goals of :mod:`garesearch.constructions.comparison_sets` at one true value: Theorem 1's
comparison set for an AND of attributes, and Sec. 4.3's blocks and Theorem 2 (sound, and as
printed) for an OR, each side of Eq. (main).

Imported from :mod:`garesearch.constructions.comparison_sets`, whose :func:`comparison_set_epsilon` takes
the worst case over the true values.
"""

from __future__ import annotations

import math

import numpy as np

from .. import bound
from .._backend import NUMPY
from ..errors import ParameterError
from ..goals import lp_norm, terms_probability
from ._comparison_radii import _best_common_radii, _clipped, _largest_a, _resolve_a, optimise_radii
from .or_lower import or_lower_epsilon


def _eps_from_odds(delta, p, odds, D) -> float:
    r"""Largest epsilon with :math:`1/(1 + e^{-\epsilon D}/\text{odds}) \le p + \delta`
    (Eq. (main) with :math:`p/q` = odds); ``inf`` if ``p + delta >= 1``, ``-inf`` if none."""
    if p + delta >= 1:
        return math.inf
    if not (odds > 0 and math.isfinite(odds) and D > 0):
        return -math.inf
    with np.errstate(all="ignore"):
        e = float(bound.eps_main_formula(delta, p, p / odds, D, NUMPY))
    return e if e > 0 else -math.inf


def _lower_from_moment(p, delta, moment) -> float:
    r"""Largest epsilon with :math:`p/(p + M(\epsilon)) \ge p - \delta`, ``M`` increasing."""
    if p <= delta:
        return math.inf
    target = p * (1 - p + delta) / (p - delta)

    def excess(e):
        m = moment(e)
        return 1e300 if not math.isfinite(m) else m - target

    if excess(0.0) >= 0:
        return 0.0
    hi = 1e-3
    while excess(hi) < 0:
        hi *= 4
        if hi > 1e6:
            return math.inf
    from scipy.optimize import brentq

    return float(brentq(excess, hi / 4 if excess(hi / 4) < 0 else 0.0, hi, xtol=1e-15, rtol=1e-13))


# ------------------------------------------------------------------------------------------
# AND events (Theorem 1)
# ------------------------------------------------------------------------------------------
def _and_upper_at(atts, tv, delta, norm, avec, construction):
    """(epsilon, odds, D) for one AND-set at comparison radii ``avec``."""
    p = math.prod(att.g(t, att.r) for att, t in zip(atts, tv, strict=True))
    G = math.prod(att.g(t, a) for att, t, a in zip(atts, tv, avec, strict=True))
    q = G - p
    if construction == "paper":
        D = lp_norm(avec, norm)  # Theorem 1: a = ||a||
    else:
        D = lp_norm([att.spread(t, a) for att, t, a in zip(atts, tv, avec, strict=True)], norm)
    if p <= 0:
        return -math.inf, math.inf, D
    odds = p / q if q > 0 else math.inf
    return _eps_from_odds(delta, p, odds, D), odds, D


def _and_lower(atts, tv, delta, norm, p):
    if p <= delta:
        return math.inf
    best = 0.0
    diam = lp_norm([att.diameter for att in atts], norm)
    if math.isfinite(diam) and p < 1:
        best = float(bound.eps_ub(delta=delta, p=p, R=diam))
    mgf = _lower_from_moment(
        p, delta,
        lambda e: math.prod(att.moment(e, t) for att, t in zip(atts, tv, strict=True)) - p,
    )
    return max(best, mgf)


def _and_one_t(atts, tv, delta, norm, a, sides, construction, radii="common"):
    p = math.prod(att.g(t, att.r) for att, t in zip(atts, tv, strict=True))
    extra = {}
    avec = _resolve_a(atts, a, tv)

    def eps_at(av):
        return _and_upper_at(atts, tv, delta, norm, av, construction)[0]

    if avec is None:
        if p + delta >= 1:
            avec = _clipped(atts, tv, _largest_a(atts, tv))
        else:
            avec = _best_common_radii(atts, tv, eps_at)
        if radii == "each" and len(atts) > 1 and p + delta < 1:
            extra["common_a"] = eps_at(avec)
            avec, _, extra["local_optimum"] = optimise_radii(eps_at, atts, tv, avec)
    e_up, odds, D = _and_upper_at(atts, tv, delta, norm, avec, construction)
    if sides == "upper":
        low = math.inf
    elif construction == "paper":
        diam = lp_norm([att.diameter for att in atts], norm)
        low = float(bound.eps_ub(delta=delta, p=p, R=diam)) if math.isfinite(diam) and 0 < p < 1 else math.inf
    else:
        low = _and_lower(atts, tv, delta, norm, p)
    return dict(p=p, method="box", ratio=odds, distance=D, a=tuple(avec),
                epsilon_upper=e_up, epsilon_lower=low, candidates=extra)


# ------------------------------------------------------------------------------------------
# OR events (Sec. 4.3, Theorem 2)
# ------------------------------------------------------------------------------------------
def _blocks_at(terms, atts, tv, delta, norm, avec, p_or):
    """Corrected Theorem 2 at radii ``avec``: (epsilon, alpha, D)."""
    index = {id(a): i for i, a in enumerate(atts)}
    factor = 1.0
    for term in terms:
        ks = [index[id(att)] for att in term]
        G = math.prod(atts[k].tile_mass(tv[k], avec[k]) for k in ks)
        P = math.prod(atts[k].g(tv[k], atts[k].r) for k in ks)
        if G - P <= 0:
            return -math.inf, math.inf, math.inf
        factor *= G / (G - P)
    alpha = factor - 1.0
    widths = [att.width(a) for att, a in zip(atts, avec, strict=True)]
    D = 0.0
    for term in terms:
        v = list(widths)
        for att in term:
            k = index[id(att)]
            v[k] = min(att.tile_spread(tv[k], avec[k]), widths[k])
        D = max(D, lp_norm(v, norm))
    return _eps_from_odds(delta, p_or, alpha, D), alpha, D


def _paper_theorem2_at(atts, tv, delta, norm, avec):
    """Theorem 2 as printed: min(eps_0, eps_k), exponent ||a||_inf, Pr[X̂_0] = prod g(a_i - r_i)."""
    a = lp_norm(avec, math.inf)
    H0 = math.prod(att.g(t, ai - att.r) for att, t, ai in zip(atts, tv, avec, strict=True))
    X0 = math.prod(att.g(t, ai) for att, t, ai in zip(atts, tv, avec, strict=True)) - H0
    cands = []
    for p, q in [(X0, H0)] + [
        (att.g(t, att.r), att.g(t, ai) - att.g(t, att.r)) for att, t, ai in zip(atts, tv, avec, strict=True)
    ]:
        if p <= 0 or q <= 0:
            cands.append(-math.inf)
        elif p + delta >= 1:
            cands.append(math.inf)
        else:
            cands.append(float(bound.eps_main_formula(delta, p, q, a, NUMPY)))
    return min(cands), cands


def _or_one_t(terms, atts, tv, delta, norm, a, sides, construction, method, radii="common"):
    p_or = terms_probability(terms, atts, tv)
    diam = lp_norm([att.diameter for att in atts], norm)
    info = {}
    disjoint = len(atts) == sum(len(term) for term in terms)
    candidates = {}
    avec = _resolve_a(atts, a, tv)

    if construction == "paper" and any(att.discrete for att in atts):
        # Sec. 6.1 treats discrete OR events by inclusion-exclusion, as the sound path does
        construction, method = "sound", "inclusion-exclusion"
    if construction == "paper":
        if not all(len(term) == 1 for term in terms):
            raise ParameterError("construction='paper' (Theorem 2) covers an OR of single attributes only")
        if avec is None:
            avec = _best_common_radii(atts, tv, lambda av: _paper_theorem2_at(atts, tv, delta, norm, av)[0])
        e, parts = _paper_theorem2_at(atts, tv, delta, norm, avec)
        low = float(bound.eps_ub(delta=delta, p=p_or, R=diam)) if (
            sides == "both" and math.isfinite(diam) and 0 < p_or < 1) else math.inf
        return dict(p=p_or, method="paper-theorem2", ratio=math.nan, distance=lp_norm(avec, math.inf),
                    a=tuple(avec), epsilon_upper=e, epsilon_lower=low,
                    candidates={"eps_0": parts[0], **{f"eps_{k + 1}": v for k, v in enumerate(parts[1:])}})

    if method in ("best", "inclusion-exclusion") and math.isfinite(diam):
        odds = p_or / (1 - p_or) if p_or < 1 else math.inf
        candidates["inclusion-exclusion"] = (_eps_from_odds(delta, p_or, odds, diam), odds, diam,
                                             tuple(att.diameter for att in atts))
    elif method == "inclusion-exclusion":
        raise ParameterError(
            "method='inclusion-exclusion' needs bounded attributes (its exponent is the diameter "
            "of the space); use method='blocks'"
        )
    if method in ("best", "blocks"):
        if not disjoint:
            if method == "blocks":
                raise ParameterError("method='blocks' needs the AND-sets of the OR to share no attribute")
        else:
            def eps_at(av):
                return _blocks_at(terms, atts, tv, delta, norm, av, p_or)[0]

            av = avec
            if av is None:
                av = _best_common_radii(atts, tv, eps_at)
                if radii == "each" and len(atts) > 1 and p_or + delta < 1:
                    info["common_a"] = eps_at(av)
                    av, _, info["local_optimum"] = optimise_radii(eps_at, atts, tv, av)
            e, alpha, D = _blocks_at(terms, atts, tv, delta, norm, av, p_or)
            candidates["blocks"] = (e, alpha, D, tuple(av))
    if not candidates:
        raise ParameterError("no construction applies to this OR goal")
    name = max(candidates, key=lambda k: candidates[k][0])
    e_up, ratio, D, av = candidates[name]
    if sides == "upper" or p_or <= delta:
        low = math.inf
    elif math.isfinite(diam):
        low = float(bound.eps_ub(delta=delta, p=p_or, R=diam)) if p_or < 1 else math.inf
    else:
        low = or_lower_epsilon(terms, atts, tv, delta, p_or)
        info["lower"] = "pointwise"
    return dict(p=p_or, method=name, ratio=ratio, distance=D, a=av, epsilon_upper=e_up,
                epsilon_lower=low, candidates={**{k: v[0] for k, v in candidates.items()}, **info})
