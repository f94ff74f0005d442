r"""Sec. 1 and Sec. 3.2: rescaling epsilon, the posterior bound, :math:`\epsilon_{lb}`,
:math:`\epsilon_{ub}` and Eq. (main); and the proof that the backend-generic formulas of
:mod:`garesearch.bound` evaluated with the sympy backend are the paper's printed expressions
("one formula, defined once").  Each claim of these sections follows the derivations it
names."""

from __future__ import annotations

import numpy as np
import sympy as sp

from .. import bound
from .._backend import NUMPY, sympy_backend
from . import printed
from ._claim import Check, Evidence, claim
from ._proof import (
    PROVED,
    PROVED_UNDER_CONDITIONS,
    REFUTED,
    Derivation,
    derivation,
    latex,
    require,
    require_equal_logs,
    require_zero,
)

S = sympy_backend()

# Symbols shared by the derivations of this module (all positive).
eps, R, a, p, q, delta = sp.symbols(r"epsilon R a p q delta", positive=True)
E = sp.Symbol("E", positive=True)  # stands for exp(-epsilon * R) (or exp(-epsilon a)) in (0, 1)


def paper_posterior_bound(epsilon, prior, other, distance):
    r"""The paper's printed bound :math:`1/(1 + e^{-\epsilon R}\,\Pr[\text{other}]/p)` in sympy.

    Examples
    --------
    >>> import sympy as sp
    >>> paper_posterior_bound(sp.log(3), sp.Rational(1, 4), sp.Rational(3, 4), 1)
    1/2
    """
    return printed.posterior_bound(epsilon, prior, other, distance, S)


def _substituted_bound(eps_expr, prior, other, distance):
    return sp.cancel(sp.together(paper_posterior_bound(eps_expr, prior, other, distance)))


# ==========================================================================================
# Sec. 1
# ==========================================================================================
@derivation
def rescale_sec1() -> Derivation:
    r"""Sec. 1: to hide a change of 1000 units at level :math:`\epsilon_0`, take
    :math:`\epsilon = \epsilon_0 \cdot 1000 = 0.001\,\epsilon_0`.

    Refuted (typo).  Hiding a change of 1000 units as a change of 1 was hidden before needs
    :math:`e^{1000\epsilon} = e^{\epsilon_0}`, whose solution (sympy) is
    :math:`\epsilon = \epsilon_0/1000 = 0.001\,\epsilon_0`; the printed
    :math:`\epsilon_0 \cdot 1000` is :math:`10^6` times that.

    Examples
    --------
    >>> rescale_sec1().status
    'refuted'
    """
    eps0 = sp.Symbol("epsilon_0", positive=True)
    (solved,) = sp.solve(sp.Eq(1000 * eps, eps0), eps)
    require_zero(solved - sp.Rational(1, 1000) * eps0, "solution = 0.001 eps0")
    require(sp.cancel(1000 * eps0 / solved) == 10**6, "printed eps0*1000 is 10^6 times it")
    statement = sp.Eq(eps, 1000 * eps0)
    return Derivation(
        name="rescale_sec1",
        location="Sec. 1, para 2",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="epsilon-DP with respect to the distance |x - x'|; a change of 1000 units "
        "is to cost what a change of 1 cost at epsilon_0",
        counterexample={"epsilon_0": 1, "solution": sp.Rational(1, 1000), "printed": 1000},
        detail="e^{1000 eps} = e^{eps0} gives eps = eps0/1000 = 0.001 eps0; the printed "
        "eps0*1000 is a typo (10^6 times the solution).",
        summary="eps = eps0/1000 = 0.001 eps0 (printed: eps0*1000)",
    )


@claim("S1.rescale", location="Sec 1, para 2", statement="eps = eps0*1000 = 0.001*eps0",
       derivations={"rescale_sec1": "printed"})
def _s1_rescale():
    eps0, change = 1.0, 1000.0
    solution = 0.001 * eps0
    return Evidence(
        paper="eps = eps0*1000 = 0.001*eps0",
        computed="eps = eps0/1000",
        checks=(
            Check("a change of 1000 at eps = 0.001 eps0 costs eps0 (eps0 = 1)", "result", "close",
                  change * solution, eps0),
        ),
        explanation=(
            "To make a change of 1000 units cost what a change of 1 cost before, "
            "e^{1000 eps} = e^{eps0}, so eps = eps0/1000 = 0.001*eps0. The printed "
            "'eps0*1000' is a typo for eps0/1000 (the two printed expressions differ by a "
            "factor of 10^6)."
        ),
    )


# ==========================================================================================
# Sec. 3.2
# ==========================================================================================
@derivation
def posterior_bound_sec32() -> Derivation:
    r"""Sec. 3.2: :math:`\Pr_{post}[X'] \le 1/(1 + e^{-\epsilon R}(1-p)/p)`.

    Proof.  Write :math:`A = \int_{X'} f(y|x')f(x')dx'` and
    :math:`B = \int_{X\setminus X'} f(y|x)f(x)dx`, so :math:`\Pr_{post}[X'] = A/(A+B)`.
    :math:`\epsilon`-DP with every distance at most ``R`` gives
    :math:`f(y|x) \ge e^{-\epsilon R}\sup_{X'} f(y|\cdot)`, hence
    :math:`B \ge e^{-\epsilon R}(1-p)\,A/p`, i.e. :math:`B = kA + s` with
    :math:`k = e^{-\epsilon R}(1-p)/p` and :math:`s \ge 0`.  Then
    :math:`\frac{1}{1+k} - \frac{A}{A+B} = \frac{s}{(1+k)(A(1+k)+s)} \ge 0`
    (checked by cancellation).

    Examples
    --------
    >>> posterior_bound_sec32().status
    'proved'
    """
    A, s = sp.symbols("A s", positive=True)
    k = E * (1 - p) / p
    B = k * A + s
    gap = 1 / (1 + k) - A / (A + B)
    require_zero(gap - s / ((1 + k) * (A * (1 + k) + s)), "bound minus posterior")
    statement = sp.Le(sp.Symbol(r"\Pr_{post}[X']"), paper_posterior_bound(eps, p, 1 - p, R))
    return Derivation(
        name="posterior_bound_sec32",
        location="Sec. 3.2, display after the DP ratio",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="0 < p < 1; f(y|x') <= e^{eps R} f(y|x) for every x' in X', x in X \\ X' "
        "(R bounds the distance between the two sets); densities exist",
        counterexample=None,
        detail="With A, B the posterior masses of X' and X\\X', DP gives B = k A + s with "
        "k = e^{-eps R}(1-p)/p, s >= 0; bound - posterior = s/((1+k)(A(1+k)+s)) >= 0.",
        summary="Post[X'] <= 1/(1 + e^{-eps R}(1-p)/p)",
    )


def _solve_and_check(eps_expr, prior, other, distance, target, step):
    """Substituting eps_expr into the bound gives exactly ``target``; the bound increases in eps."""
    bound_at = _substituted_bound(eps_expr, prior, other, distance)
    require_zero(bound_at - target, f"{step}: bound at the solution")
    b = paper_posterior_bound(eps, prior, other, distance)
    slope = sp.diff(b, eps)
    expected = prior * other * distance * sp.exp(-eps * distance) / (
        prior + other * sp.exp(-eps * distance)
    ) ** 2
    require_zero(slope - expected, f"{step}: d bound / d eps")


@derivation
def eps_lb_sec32() -> Derivation:
    r"""Sec. 3.2: :math:`\epsilon_{lb} = -\ln(\frac{p}{1-p}(\frac{1}{\delta+p}-1))/R`.

    Proof: substituting :math:`\epsilon_{lb}` into the bound of
    :func:`posterior_bound_sec32` gives exactly :math:`p+\delta`; the bound increases in
    :math:`\epsilon` (its derivative is :math:`p(1-p)Re^{-\epsilon R}/(p+(1-p)e^{-\epsilon
    R})^2 > 0`), so :math:`\epsilon \le \epsilon_{lb}` iff the bound is at most
    :math:`p+\delta`.  The argument of the log is below 1 iff
    :math:`(1-p)(p+\delta) - p(1-p-\delta) = \delta > 0`, so :math:`\epsilon_{lb} > 0`.

    Examples
    --------
    >>> eps_lb_sec32().status
    'proved'
    """
    e_lb = printed.eps_lb(delta, p, R, S)
    _solve_and_check(e_lb, p, 1 - p, R, p + delta, "eps_lb")
    require_zero(sp.expand((1 - p) * (p + delta) - p * (1 - p - delta)) - delta, "eps_lb > 0")
    statement = sp.Eq(sp.Symbol(r"\epsilon_{lb}"), e_lb)
    return Derivation(
        name="eps_lb_sec32",
        location="Sec. 3.2, eps_lb",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="0 < delta, 0 < p, p + delta < 1 (for p + delta >= 1 the upper side cannot "
        "bind: every epsilon meets it)",
        counterexample=None,
        detail="Substituting eps_lb into the posterior bound gives p + delta exactly; the "
        "bound increases in eps; eps_lb > 0 because (1-p)(p+delta) - p(1-p-delta) = delta > 0.",
        summary="eps_lb = -ln(p/(1-p) (1/(delta+p) - 1))/R keeps Post[X'] <= p + delta",
    )


@derivation
def eps_ub_sec32() -> Derivation:
    r"""Sec. 3.2: :math:`\epsilon_{ub}`, the lower side :math:`\Pr_{post}[X'] \ge p - \delta`.

    Proof: :math:`\Pr_{post}[X'] \ge p-\delta` iff
    :math:`\Pr_{post}[X\setminus X'] \le (1-p)+\delta`, which is the upper side for the
    event :math:`X\setminus X'` (prior :math:`1-p`); so :math:`\epsilon_{ub}(p) =
    \epsilon_{lb}(1-p)` (checked by substitution), and the lower posterior bound
    :math:`pe^{-\epsilon R}/(pe^{-\epsilon R}+1-p)` equals :math:`p-\delta` at
    :math:`\epsilon_{ub}`.

    Examples
    --------
    >>> eps_ub_sec32().status
    'proved'
    """
    e_ub = printed.eps_ub(delta, p, R, S)
    require_zero(
        sp.exp(-R * e_ub) - sp.exp(-R * printed.eps_lb(delta, 1 - p, R, S)), "eps_ub(p) = eps_lb(1-p)"
    )
    lower = p * sp.exp(-eps * R) / (p * sp.exp(-eps * R) + 1 - p)
    require_zero(lower - (1 - paper_posterior_bound(eps, 1 - p, p, R)), "lower bound = 1 - upper(1-p)")
    require_zero(sp.cancel(lower.subs(eps, e_ub)) - (p - delta), "lower bound at eps_ub")
    statement = sp.Eq(sp.Symbol(r"\epsilon_{ub}"), e_ub)
    return Derivation(
        name="eps_ub_sec32",
        location="Sec. 3.2, eps_ub",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="0 < delta < p < 1 (for p <= delta the lower side cannot bind)",
        counterexample=None,
        detail="Post[X'] >= p - delta is the upper side for X\\X' (prior 1-p): "
        "eps_ub(p) = eps_lb(1-p); the lower posterior bound p e^{-eps R}/(p e^{-eps R} + 1 - p) "
        "equals p - delta at eps_ub.",
        summary="eps_ub(p) = eps_lb(1-p) keeps Post[X'] >= p - delta",
    )


@derivation
def lb_ub_binding_sec32() -> Derivation:
    r"""Sec. 3.2: if :math:`p \le 1-p` then :math:`\epsilon_{lb} \le \epsilon_{ub}`.

    Proof: :math:`e^{R(\epsilon_{ub}-\epsilon_{lb})} = \frac{p^2((1-p)^2-\delta^2)}
    {(1-p)^2(p^2-\delta^2)}`, and numerator minus denominator is
    :math:`\delta^2(1-2p)`, which is :math:`\ge 0` iff :math:`p \le 1/2` (the denominator
    is positive for :math:`p > \delta`).  Equality only at :math:`p = 1/2`.

    Examples
    --------
    >>> lb_ub_binding_sec32().status
    'proved'
    """
    diff_exp = sp.cancel(sp.exp(R * printed.eps_ub(delta, p, R, S)) / sp.exp(R * printed.eps_lb(delta, p, R, S)))
    num = p**2 * ((1 - p) ** 2 - delta**2)
    den = (1 - p) ** 2 * (p**2 - delta**2)
    require_zero(diff_exp - num / den, "exp(R (eps_ub - eps_lb))")
    require_zero(sp.expand(num - den) - delta**2 * (1 - 2 * p), "sign condition")
    statement = sp.Implies(
        sp.Le(p, 1 - p), sp.Le(sp.Symbol(r"\epsilon_{lb}"), sp.Symbol(r"\epsilon_{ub}"))
    )
    return Derivation(
        name="lb_ub_binding_sec32",
        location="Sec. 3.2, after eps = min(eps_lb, eps_ub)",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="0 < delta < p < 1 - delta; outside this range the non-binding side is +inf "
        "and the claim is immediate",
        counterexample=None,
        detail="exp(R(eps_ub - eps_lb)) = p^2((1-p)^2 - delta^2) / ((1-p)^2 (p^2 - delta^2)); "
        "numerator - denominator = delta^2 (1 - 2p) >= 0 iff p <= 1/2.",
        summary="p <= 1-p  =>  eps_lb <= eps_ub (equality only at p = 1/2)",
    )


@derivation
def eq_main() -> Derivation:
    r"""Eq. (main): :math:`\epsilon \le -\ln(\frac{p}{q}(\frac{1}{\delta+p}-1))/a`.

    Proof as for :func:`eps_lb_sec32` with the comparison mass ``q`` in place of
    :math:`1-p`: the bound :math:`1/(1+e^{-\epsilon a}q/p)` at this epsilon is exactly
    :math:`p+\delta` and increases in epsilon.  The right-hand side is positive iff
    :math:`q(p+\delta) - p(1-p-\delta) > 0`.  The derivation needs every point of
    :math:`\hat X'` within distance ``a`` of every point of :math:`X'`
    (see :func:`garesearch.derivations.comparison_set_distance`).

    Examples
    --------
    >>> eq_main().status
    'proved under conditions'
    """
    e_main = printed.eps_main(delta, p, q, a, S)
    _solve_and_check(e_main, p, q, a, p + delta, "Eq. (main)")
    arg = sp.cancel(p / q * (1 / (delta + p) - 1))
    num, den = sp.fraction(arg)
    require_zero(sp.expand(den - num) - sp.expand(q * (p + delta) - p * (1 - p - delta)), "eps > 0 iff")
    statement = sp.Le(eps, e_main)
    return Derivation(
        name="eq_main",
        location="Sec. 3.2, Eq. (main)",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="every point of the comparison set is within distance a of every point of X' "
        "(the paper's X-hat_a does not satisfy this with its a; see comparison_set_distance); "
        "p + delta < 1; epsilon > 0 iff q > p(1-p-delta)/(p+delta)",
        counterexample=None,
        detail="The bound 1/(1 + e^{-eps a} q/p) equals p + delta at this eps and increases in "
        "eps; the log's argument is below 1 iff q(p+delta) > p(1-p-delta).",
        summary="eps <= -ln(p/q (1/(delta+p) - 1))/a, a = largest X'-to-X-hat distance",
    )


# ------------------------------------------------------------------------------------------
# One formula, defined once: bound.py's backend-generic formulas = the printed expressions.
# ------------------------------------------------------------------------------------------
def _one_formula(name, what, as_printed, generic, how):
    statement = sp.Eq(generic, as_printed, evaluate=False)
    return Derivation(
        name=name,
        location=f"garesearch.bound.{what} vs the paper's printed expression",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="all symbols positive, p + delta < 1 (and p > delta for the lower side)",
        counterexample=None,
        detail=how,
        summary=f"bound.{what}(..., sympy_backend()) equals the paper's expression",
    )


@derivation
def one_formula_posterior_bound() -> Derivation:
    """``bound.posterior_bound_formula`` (sympy backend) = :math:`1/(1+e^{-\\epsilon a}q/p)`.

    Examples
    --------
    >>> one_formula_posterior_bound().status
    'proved'
    """
    generic = bound.posterior_bound_formula(eps, p, q, a, S)
    as_printed = paper_posterior_bound(eps, p, q, a)
    require_zero(generic - as_printed, "posterior_bound_formula")
    return _one_formula(
        "one_formula_posterior_bound", "posterior_bound_formula", as_printed, generic,
        "difference cancels to 0",
    )


@derivation
def one_formula_advantage() -> Derivation:
    """``advantage_upper_formula`` = bound - p and ``advantage_lower_formula`` = p - lower bound.

    Examples
    --------
    >>> one_formula_advantage().status
    'proved'
    """
    up = bound.advantage_upper_formula(eps, p, q, a, S)
    require_zero(up - (paper_posterior_bound(eps, p, q, a) - p), "advantage_upper_formula")
    low = bound.advantage_lower_formula(eps, p, R, S)
    printed_low = p - (1 - paper_posterior_bound(eps, 1 - p, p, R))
    require_zero(low - printed_low, "advantage_lower_formula")
    lower_post = bound.posterior_lower_bound_formula(eps, p, R, S)
    require_zero(lower_post - (1 - paper_posterior_bound(eps, 1 - p, p, R)), "posterior_lower")
    return _one_formula(
        "one_formula_advantage", "advantage_upper_formula / advantage_lower_formula",
        paper_posterior_bound(eps, p, q, a) - p, up,
        "upper: difference to bound - p cancels; lower: difference to p - (1 - bound(1-p)) "
        "cancels; posterior_lower_bound_formula = 1 - bound with p and 1-p swapped",
    )


def _check_log_formula(generic, as_printed, step):
    """generic == as_printed for two sums of logs whose arguments are positive on the domain."""
    require_equal_logs(generic, as_printed, step)


@derivation
def one_formula_eps_main() -> Derivation:
    """``bound.eps_main_formula`` (log1p form) = Eq. (main) as printed.

    Examples
    --------
    >>> one_formula_eps_main().status
    'proved'
    """
    generic = bound.eps_main_formula(delta, p, q, a, S)
    as_printed = printed.eps_main(delta, p, q, a, S)
    _check_log_formula(a * generic, a * as_printed, "eps_main_formula")
    return _one_formula(
        "one_formula_eps_main", "eps_main_formula", as_printed, generic,
        "every log has a positive argument on 0 < p, 0 < delta, p + delta < 1, q > 0, so both "
        "sides are real and exp(a (generic - printed)) cancelling to 1 proves equality",
    )


@derivation
def one_formula_eps_lb_ub() -> Derivation:
    """``bound.eps_lb_formula`` and ``eps_ub_formula`` = the printed :math:`\\epsilon_{lb}`, :math:`\\epsilon_{ub}`.

    Examples
    --------
    >>> one_formula_eps_lb_ub().status
    'proved'
    """
    g_lb = bound.eps_lb_formula(delta, p, R, S)
    _check_log_formula(R * g_lb, R * printed.eps_lb(delta, p, R, S), "eps_lb_formula")
    g_ub = bound.eps_ub_formula(delta, p, R, S)
    _check_log_formula(R * g_ub, R * printed.eps_ub(delta, p, R, S), "eps_ub_formula")
    return _one_formula(
        "one_formula_eps_lb_ub", "eps_lb_formula / eps_ub_formula",
        printed.eps_lb(delta, p, R, S), g_lb,
        "exp(R (generic - printed)) cancels to 1 for both sides, with every log's argument "
        "positive",
    )


# ------------------------------------------------------------------------------------------
# The claims of Sec. 3.2 (the algebra is the derivations' above; here the numbers)
# ------------------------------------------------------------------------------------------
@claim("S3.2.posterior", location="Sec 3.2, display after DP ratio",
       statement="Post[X'] <= 1/(1+e^{-eps R}(1-p)/p)",
       derivations={"posterior_bound_sec32": "result", "one_formula_posterior_bound": "result",
                    "one_formula_advantage": "result"})
def _s32_posterior():
    pn, en, Rn = 0.3, 0.7, 1.0
    # the posterior of X' for likelihood ratios across [e^{-eps R}, e^{eps R}] stays below it
    ratio = np.exp(en * Rn * np.linspace(-1.0, 1.0, 31))
    post = pn * ratio / (pn * ratio + 1 - pn)
    at_print = float(printed.posterior_bound(en, pn, 1 - pn, Rn, NUMPY))
    return Evidence(
        paper="Post[X'] <= 1/(1+e^{-eps R}(1-p)/p)",
        computed="Post[X'] <= p e^{eps R}/(p e^{eps R} + 1 - p)",
        checks=(
            Check("largest posterior over likelihood ratios in [e^-eps R, e^eps R] <= the printed "
                  "bound (p = 0.3, eps = 0.7, R = 1)", "result", "le", float(post.max()),
                  at_print * (1 + 1e-12)),
            Check("the printed bound equals garesearch's posterior_bound (same arguments)",
                  "result", "close", at_print, float(bound.posterior_bound(epsilon=en, p=pn, a=Rn))),
        ),
        explanation=(
            "Holds: with f(y|x')/f(y|x) <= e^{eps R} the posterior of X' is largest when the "
            "ratio is e^{eps R} for every pair, giving p e^{eps R}/(p e^{eps R} + 1 - p), "
            "which equals the printed 1/(1 + e^{-eps R}(1-p)/p)."
        ),
    )


@claim("S3.2.eps_lb", location="Sec 3.2, eps_lb", statement="eps_lb = -ln(p/(1-p)*(1/(delta+p)-1))/R",
       derivations={"eps_lb_sec32": "result", "one_formula_eps_lb_ub": "result"})
def _s32_eps_lb():
    pv, dv, Rv = 0.2, 0.1, 1.0
    e_lb = float(printed.eps_lb(dv, pv, Rv, NUMPY))
    return Evidence(
        paper="eps_lb = -ln(p/(1-p)*(1/(delta+p)-1))/R",
        computed="posterior bound at eps_lb equals p + delta",
        checks=(
            Check("posterior bound at the printed eps_lb equals p + delta (p = 0.2, delta = 0.1, "
                  "R = 1)", "result", "close",
                  float(printed.posterior_bound(e_lb, pv, 1 - pv, Rv, NUMPY)), pv + dv),
            Check("the printed eps_lb equals garesearch's eps_lb", "result", "close", e_lb,
                  float(bound.eps_lb(delta=dv, p=pv, R=Rv))),
        ),
        explanation=(
            "Holds: setting 1/(1 + e^{-eps R}(1-p)/p) = p + delta and solving for eps gives "
            "the printed eps_lb (valid for p + delta < 1; for p + delta >= 1 every eps works)."
        ),
    )


@claim("S3.2.eps_ub", location="Sec 3.2, eps_ub", statement="eps_ub = -ln((1-p)/p*(1/(delta+1-p)-1))/R",
       derivations={"eps_ub_sec32": "result", "one_formula_advantage": "result",
                    "one_formula_eps_lb_ub": "result"})
def _s32_eps_ub():
    pv, dv, Rv = 0.3, 0.1, 1.0
    e_ub = float(printed.eps_ub(dv, pv, Rv, NUMPY))
    # the lower side Post[X'] >= p - delta is the upper side of X \ X' (prior 1 - p)
    return Evidence(
        paper="eps_ub = -ln((1-p)/p*(1/(delta+1-p)-1))/R",
        computed="eps_ub(p) = eps_lb(1-p); bound on Post[X\\X'] at eps_ub equals 1-p+delta",
        checks=(
            Check("bound on Post[X \\ X'] at the printed eps_ub equals 1 - p + delta (p = 0.3, "
                  "delta = 0.1, R = 1)", "result", "close",
                  float(printed.posterior_bound(e_ub, 1 - pv, pv, Rv, NUMPY)), 1 - pv + dv),
            Check("the printed eps_ub equals garesearch's eps_ub", "result", "close", e_ub,
                  float(bound.eps_ub(delta=dv, p=pv, R=Rv))),
        ),
        explanation=(
            "Holds: the lower side Post[X'] >= p - delta is the upper side for X \\ X' "
            "(prior 1 - p), so eps_ub(p) = eps_lb(1 - p) as printed (valid for p > delta)."
        ),
    )


@claim("S3.2.lb_le_ub", location="Sec 3.2, after eps=min(eps_lb,eps_ub)",
       statement="p <= 1-p  =>  eps_lb <= eps_ub", derivations={"lb_ub_binding_sec32": "result"})
def _s32_lb_le_ub():
    ps = np.linspace(0.11, 0.89, 79)
    lb = np.asarray(bound.eps_lb(delta=0.1, p=ps))
    ub = np.asarray(bound.eps_ub(delta=0.1, p=ps))
    ok = bool(np.all((lb <= ub) == (ps <= 0.5)))
    return Evidence(
        paper="p <= 1-p  =>  eps_lb <= eps_ub",
        computed="sign(e^(R eps_lb) - e^(R eps_ub)) = sign(delta^2 (2p - 1))",
        checks=(
            Check("eps_lb <= eps_ub exactly where p <= 1/2 (delta = 0.1, 79 priors)", "result",
                  "true", ok),
            Check("eps_lb = eps_ub at p = 1/2 (delta = 0.1)", "result", "close",
                  float(bound.eps_lb(delta=0.1, p=0.5)), float(bound.eps_ub(delta=0.1, p=0.5))),
        ),
        explanation=(
            "Holds: the arguments of the two logarithms differ by delta^2 (2p - 1) (over a "
            "positive denominator), so eps_lb <= eps_ub iff p <= 1/2 (for p <= delta, eps_ub "
            "is infinite)."
        ),
    )


@claim("S3.2.eq_main", location="Sec 3.2, Eq.(main)",
       statement="eps <= -ln(p/Pr[X_hat_a]*(1/(delta+p)-1))/a",
       derivations={"eq_main": "result", "one_formula_eps_main": "result"})
def _s32_eq_main():
    pv, qv, av, dv = 0.2, 0.5, 2.0, 0.1
    e_main = float(printed.eps_main(dv, pv, qv, av, NUMPY))
    return Evidence(
        paper="eps <= -ln(p/Pr[X_hat_a]*(1/(delta+p)-1))/a",
        computed="posterior bound 1/(1+e^{-eps a} q/p) at the printed eps equals p + delta",
        checks=(
            Check("bound at the printed eps equals p + delta (p = 0.2, q = 0.5, a = 2, "
                  "delta = 0.1)", "result", "close",
                  float(printed.posterior_bound(e_main, pv, qv, av, NUMPY)), pv + dv),
            Check("the printed eps equals garesearch's epsilon_for_advantage (same p, q, a)",
                  "result", "close", e_main,
                  float(bound.epsilon_for_advantage(delta=dv, p=pv, q=qv, a=av))),
        ),
        explanation=(
            "The algebra holds: if every point of X_hat is within distance a of every point "
            "of X', then Post[X'] <= 1/(1 + e^{-eps a} q/p) <= p + delta exactly at the "
            "printed eps. (Whether the paper's X_hat_a meets that condition is claim "
            "S4.1.Xhat_def.)"
        ),
    )
