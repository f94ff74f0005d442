r"""Sec. 4.2-4.3: Theorem 1 (AND-events) and Theorem 2 (OR-events, the block construction),
and the independence they need."""

from __future__ import annotations

import itertools

import mpmath
import sympy as sp

from ._core import (
    PROVED_UNDER_CONDITIONS,
    REFUTED,
    Derivation,
    derivation,
    latex,
    mp,
    require,
    require_zero,
    workdps,
)
from ._posterior import paper_eps_main, paper_posterior_bound

delta, a, eps = sp.symbols("delta a epsilon", positive=True)
N = 3  # dimension used for the symbolic identities
gr = sp.symbols(f"g_r1:{N + 1}", positive=True)  # g_i(r_i)
ga = sp.symbols(f"g_a1:{N + 1}", positive=True)  # g_i(a_i)


def _normal_g(z):
    """g(z) = Pr[|X| <= z] for X ~ N(0, 1) (mpmath)."""
    return mpmath.erf(z / mpmath.sqrt(2))


@derivation
def and_event_formula() -> Derivation:
    r"""Theorem 1: :math:`\epsilon \le -\ln\left(\frac{\prod g_i(r_i)}{\prod g_i(a_i) -
    \prod g_i(r_i)}\left(\frac{1}{\delta + \prod g_i(r_i)} - 1\right)\right)/a`.

    Proof: with mutually independent coordinates the prior mass of the box
    :math:`X' = \prod_i B(t_i, r_i)` is :math:`\prod g_i(r_i)` and that of
    :math:`\prod_i B(t_i,a_i)\setminus X'` is :math:`\prod g_i(a_i) - \prod g_i(r_i)`;
    Theorem 1 is Eq. (main) with these masses (the difference cancels, here for
    ``n = 3``).  The exponent must be the largest :math:`\ell_\infty` distance between the
    two sets, which is :math:`\max_i(a_i + r_i)`, not :math:`\|a\|_\infty`
    (:func:`and_event_distance`), and pairwise independence is not enough
    (:func:`independence_mutual`).
    """
    P, Ga = sp.Mul(*gr), sp.Mul(*ga)
    thm1 = -sp.log(P / (Ga - P) * (1 / (delta + P) - 1)) / a
    require_zero(thm1 - paper_eps_main(delta, P, Ga - P, a), "Thm 1 = Eq. (main)")
    statement = sp.Le(eps, thm1)
    return Derivation(
        name="and_event_formula",
        location="Sec. 4.2, Theorem 1 (AND-events)",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="X_i mutually independent (pairwise is not enough); the exponent a must be "
        "the largest l_inf distance between X' and the comparison set, max_i(a_i + r_i) "
        "(the theorem's a = ||a||_inf inherits the error of Sec. 4.1)",
        counterexample=None,
        detail="Theorem 1 is Eq. (main) with p = prod g_i(r_i) and q = prod g_i(a_i) - "
        "prod g_i(r_i) (identity checked for n = 3); sound with exponent max_i(a_i + r_i).",
        summary="Thm 1 = Eq. (main) with product masses (mutual independence, exponent a+r)",
        claims=("T1.AND_formula",),
    )


@derivation
def and_event_distance() -> Derivation:
    r"""Theorem 1: the exponent is :math:`a = \|a_1,\ldots,a_n\|_\infty`.

    Refuted: for the boxes :math:`X' = \prod B(t_i, r_i)` and
    :math:`\prod B(t_i, a_i) \setminus X'` the largest :math:`\ell_\infty` distance is
    :math:`\max_i (a_i + r_i)` (coordinate-wise as in
    :func:`comparison_set_distance`).
    """
    with workdps():
        t = [mp(0), mp(0)]
        r = [mp(1), mp(1)]
        av = [mp(2), mp(2)]
        xp = [t[0] - r[0], t[1] - r[1]]
        xx = [t[0] + av[0], t[1] + av[1]]
        d = max(abs(xx[i] - xp[i]) for i in range(2))
        ce = {"t": t, "r": r, "a": av, "x_prime_in_X'": xp, "x_in_comparison_set": xx,
              "linf_distance": d, "paper_a": max(av)}
    require(d > max(av), "distance exceeds ||a||_inf")
    statement = sp.Eq(sp.Symbol(r"\sup d_\infty(x, x')"), sp.Symbol(r"\|a\|_\infty"))
    return Derivation(
        name="and_event_distance",
        location="Sec. 4.2, Theorem 1, a = ||a_1..a_n||_inf",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="X' = prod B(t_i, r_i), comparison set prod B(t_i, a_i) \\ X'",
        counterexample=ce,
        detail="Largest l_inf distance between the box X' and the comparison set is "
        "max_i(a_i + r_i): e.g. t = 0, r = (1,1), a = (2,2): x' = (-1,-1), x = (2,2) are 3 "
        "apart, not 2. Corrected: exponent max_i(a_i + r_i).",
        summary="Thm 1 exponent should be max_i(a_i + r_i), not ||a||_inf",
        claims=("T1.AND_formula",),
    )


@derivation
def independence_mutual() -> Derivation:
    r"""Theorems 1 and 2 assume "X_i pairwise independent" and use :math:`g = \prod_i g_i`.

    Refuted for :math:`n \ge 3`: :math:`X_1, X_2` fair bits and :math:`X_3 = X_1 \oplus X_2`
    are pairwise independent, but :math:`\Pr[X_1=0, X_2=0, X_3=0] = 1/4 \ne 1/8 =
    \prod_i \Pr[X_i = 0]` (exact enumeration).  The product rule needs mutual independence.
    """
    outcomes = [(b1, b2, b1 ^ b2) for b1, b2 in itertools.product((0, 1), repeat=2)]
    w = sp.Rational(1, 4)

    def pr(event):
        return sum((w for o in outcomes if event(o)), sp.Integer(0))

    for i, j in itertools.combinations(range(3), 2):
        for vi, vj in itertools.product((0, 1), repeat=2):
            joint = pr(lambda o, i=i, j=j, vi=vi, vj=vj: o[i] == vi and o[j] == vj)
            marg = pr(lambda o, i=i, vi=vi: o[i] == vi) * pr(lambda o, j=j, vj=vj: o[j] == vj)
            require(joint == marg, f"pairwise independence of X{i + 1}, X{j + 1}")
    joint000 = pr(lambda o: o == (0, 0, 0))
    joint001 = pr(lambda o: o == (0, 0, 1))
    product = sp.Rational(1, 8)
    require(joint000 != product and joint001 != product, "product rule fails")
    ce = {
        "X3": "X1 xor X2, X1 and X2 fair independent bits",
        "t": (0, 0, 0), "r": 0, "prod_g_i(r_i)": product,
        "Pr[X=t]": joint000, "Pr[X=(0,0,1)]": joint001,
    }
    statement = sp.Eq(sp.Function("g")(sp.Symbol("z")), sp.Product(
        sp.Function("g_i")(sp.Symbol("z_i")), (sp.Symbol("i"), 1, sp.Symbol("n"))))
    return Derivation(
        name="independence_mutual",
        location="Sec. 4.2-4.3, hypotheses of Theorems 1 and 2",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="n >= 3 and only pairwise independence",
        counterexample=ce,
        detail="X3 = X1 xor X2: every pair is independent, yet Pr[X = (0,0,0)] = 1/4 and "
        "Pr[X = (0,0,1)] = 0 while prod g_i = 1/8. Corrected hypothesis: mutual independence.",
        summary="pairwise independence does not give g = prod g_i (n >= 3): need mutual",
        claims=("T1.independence",),
    )


@derivation
def or_block_distance() -> Derivation:
    r"""Theorem 2 states :math:`a = \|a_1,\ldots,a_n\|_\infty`; its derivation defines
    :math:`a = 2\|a\|_\infty`.

    Refuted: two points of the box :math:`\prod B(t_i, a_i)` are up to :math:`2a_i` apart in
    coordinate ``i``, and for :math:`n \ge 2` a point of :math:`X'_0` (one coordinate within
    :math:`r_j`) and a point of :math:`\hat X'_0` reach :math:`2\max_i a_i`.  The exponent
    must be :math:`2\|a\|_\infty`, as in the derivation (property 1).
    """
    with workdps():
        av = [mp(2), mp(2)]
        r = [mp(1), mp(1)]
        xp = [mp(-1), mp(-2)]  # in X'_0: |x'_1| <= r_1, and inside the box
        xx = [mp(2), mp(2)]  # in X-hat'_0: inside the box, no coordinate within r
        d = max(abs(xx[i] - xp[i]) for i in range(2))
        ce = {"t": [mp(0), mp(0)], "r": r, "a": av, "x_prime_in_X0": xp,
              "x_in_Xhat0": xx, "linf_distance": d, "theorem_a": max(av),
              "derivation_a": 2 * max(av)}
    require(d == 2 * max(av) and d > max(av), "distance = 2 ||a||_inf")
    statement = sp.Eq(sp.Symbol("a"), sp.Symbol(r"\|a\|_\infty"))
    return Derivation(
        name="or_block_distance",
        location="Sec. 4.3, Theorem 2 statement vs. the derivation (a = 2||a||_inf)",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="n >= 2",
        counterexample=ce,
        detail="x' = (-1,-2) in X'_0 and x = (2,2) in X-hat'_0 (t = 0, r = (1,1), "
        "a = (2,2)) are 4 = 2||a||_inf apart. Corrected: a = 2||a||_inf in Theorem 2.",
        summary="Thm 2: a must be 2||a||_inf (as in its derivation), not ||a||_inf",
        claims=("T2.OR_a",),
    )


@derivation
def or_block_masses() -> Derivation:
    r"""Sec. 4.3 property 2 and Theorem 2's :math:`\epsilon_0`:
    :math:`\Pr[\hat X'_0] = \prod g(a_i - 1)`, :math:`\Pr[X'_0] = \prod g(a_i) -
    \prod g(a_i - 1)`.

    Refuted: :math:`\hat X'_0 = \prod_i (B(t_i,a_i)\setminus B(t_i,r_i))`, so with mutually
    independent coordinates :math:`\Pr[\hat X'_0] = \prod_i (g(a_i) - g(r_i))`; inclusion-
    exclusion over the slabs gives the same (identity checked for ``n = 3``).  It equals
    :math:`\prod g(a_i - 1)` only when :math:`g(a_i) - g(r_i) = g(a_i - 1)`, e.g. ``g``
    linear (uniform prior) with :math:`r_i = 1`.  (Property 2 also writes
    :math:`\Pr_{post}` for what is a ratio of priors.)
    """
    ring = sp.Mul(*[ga[i] - gr[i] for i in range(N)])
    incl_excl = sp.Mul(*ga)
    for k in range(1, N + 1):
        for S in itertools.combinations(range(N), k):
            term = sp.Mul(*[gr[i] if i in S else ga[i] for i in range(N)])
            incl_excl -= (-1) ** (k + 1) * term
    require_zero(incl_excl - ring, "inclusion-exclusion = prod(g(a_i) - g(r_i))")
    c, av = sp.symbols("c a_i", positive=True)
    require_zero((c * av - c * 1) - c * (av - 1), "linear g with r = 1: equal")
    with workdps():
        rv, avv = mp("0.5"), mp("1.5")
        correct = (_normal_g(avv) - _normal_g(rv)) ** 2
        paper = _normal_g(avv - 1) ** 2
        ce = {
            "prior": "two independent N(0,1) coordinates, t = (0,0)",
            "r": [rv, rv], "a": [avv, avv],
            "Pr[Xhat0]_correct": correct, "Pr[Xhat0]_paper": paper,
            "Pr[X0]_correct": _normal_g(avv) ** 2 - correct,
            "Pr[X0]_paper": _normal_g(avv) ** 2 - paper,
        }
    require(abs(correct - paper) > mp("0.05"), "the two masses differ")
    statement = sp.Eq(
        sp.Symbol(r"\Pr[\hat X'_0]"),
        sp.Product(sp.Function("g")(sp.Symbol("a_i") - 1), (sp.Symbol("i"), 1, sp.Symbol("n"))),
    )
    return Derivation(
        name="or_block_masses",
        location="Sec. 4.3, property 2 and Theorem 2 (eps_0)",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="mutually independent coordinates",
        counterexample=ce,
        detail="Pr[X-hat'_0] = prod(g(a_i) - g(r_i)) and Pr[X'_0] = prod g(a_i) - "
        "prod(g(a_i) - g(r_i)); equal to the printed prod g(a_i - 1) only for linear g with "
        "r_i = 1. For two N(0,1) coordinates, r = 0.5, a = 1.5: 0.2337 vs 0.1466.",
        summary="Pr[X-hat'_0] = prod(g(a_i) - g(r_i)), not prod g(a_i - 1)",
        claims=("T2.OR_g(a-1)",),
    )


@derivation
def or_eps_k_delta_term() -> Derivation:
    r"""Theorem 2: :math:`\epsilon_k = -\ln(\alpha_k(\frac{1}{\delta + g_{t_k}(r_k)} - 1))/a`
    (and :math:`\epsilon_0` with :math:`\delta + \Pr[X'_0]`).

    Refuted (does not follow from the derivation).  The derivation bounds the ratio
    :math:`\Pr_{post}[X']/\Pr_{post}[\hat X'] \le e^{a\epsilon}\alpha`, hence
    :math:`\Pr_{post}[X'] \le 1/(1 + e^{-a\epsilon}/\alpha)`; requiring this to be at
    most :math:`\Pr[X'] + \delta` (the prior of the whole OR event) gives
    :math:`\epsilon_k = -\ln(\alpha_k(\frac{1}{\delta + \Pr[X']} - 1))/a` (substituted
    back: the bound is exactly :math:`\Pr[X'] + \delta`).  The printed version uses the
    block's prior; since :math:`g_{t_k}(r_k) \le \Pr[X']` it is smaller: sound but more
    noise than the derivation requires.
    """
    alpha, P, g = sp.symbols("alpha P g", positive=True)
    derived = -sp.log(alpha * (1 / (delta + P) - 1)) / a
    bound = paper_posterior_bound(eps, 1, 1 / alpha, a)  # 1/(1 + e^{-a eps}/alpha)
    require_zero(sp.cancel(bound.subs(eps, derived)) - (P + delta), "derived eps_k")
    printed = -sp.log(alpha * (1 / (delta + g) - 1)) / a
    require_zero(sp.cancel(bound.subs(eps, printed)) - (g + delta), "printed eps_k")
    with workdps():
        gk, gak, d, av = mp("0.3"), mp("0.8"), mp("0.1"), mp(1)
        alpha_k = gk / (gak - gk)
        P_or = 1 - (1 - gk) ** 2
        e_printed = -mpmath.log(alpha_k * (1 / (d + gk) - 1)) / av
        e_derived = -mpmath.log(alpha_k * (1 / (d + P_or) - 1)) / av
        ce = {
            "g_k(r_k)": gk, "g_k(a_k)": gk + (gak - gk), "alpha_k": alpha_k,
            "Pr[X'] (OR of two such attributes)": P_or, "delta": d, "a": av,
            "eps_k_printed": e_printed, "eps_k_derived": e_derived,
            "posterior_bound_at_printed": 1 / (1 + mpmath.exp(-av * e_printed) / alpha_k),
            "posterior_bound_at_derived": 1 / (1 + mpmath.exp(-av * e_derived) / alpha_k),
        }
    require(e_derived > e_printed, "printed eps_k is smaller (conservative)")
    statement = sp.Eq(sp.Symbol(r"\epsilon_k"), printed)
    return Derivation(
        name="or_eps_k_delta_term",
        location="Sec. 4.3, Theorem 2 (eps_0 and eps_k)",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="alpha_k = g(r_k)/(g(a_k) - g(r_k)); Pr[X'] the prior of the whole OR event",
        counterexample=ce,
        detail="From Post[X'] <= 1/(1 + e^{-a eps}/alpha) <= Pr[X'] + delta the derivation gives "
        "eps_k = -ln(alpha_k (1/(delta + Pr[X']) - 1))/a; the printed delta + g_k(r_k) gives a "
        "smaller eps (sound, but more noise than needed): g = 0.3, g(a) = 0.8, Pr[X'] = 0.51, "
        "delta = 0.1: printed 0.1054 vs derived 0.9581.",
        summary="Thm 2 eps_k should use delta + Pr[X'] (whole event), not delta + g(r_k)",
        claims=("T2.OR_delta_term",),
    )
