r"""Sec. 3.2: the posterior bound, :math:`\epsilon_{lb}`, :math:`\epsilon_{ub}`, Eq. (main);
and the proof that the backend-generic formulas of :mod:`garesearch.bound` evaluated with
the sympy backend are the paper's printed expressions ("one formula, defined once")."""

from __future__ import annotations

import sympy as sp

from .. import bound
from .._backend import sympy_backend
from ._core import (
    PROVED,
    PROVED_UNDER_CONDITIONS,
    Derivation,
    derivation,
    latex,
    require,
    require_equal_logs,
    require_zero,
)

# Symbols shared by the derivations of this module (all positive).
eps, R, a, p, q, delta = sp.symbols(r"epsilon R a p q delta", positive=True)
E = sp.Symbol("E", positive=True)  # stands for exp(-epsilon * R) (or exp(-epsilon a)) in (0, 1)


def paper_posterior_bound(epsilon, prior, other, distance):
    r"""The paper's printed bound :math:`1/(1 + e^{-\epsilon R}\,\Pr[\text{other}]/p)`."""
    return 1 / (1 + sp.exp(-epsilon * distance) * other / prior)


def paper_eps_main(d, prior, other, distance):
    r"""Eq. (main) as printed: :math:`-\ln(\frac{p}{q}(\frac{1}{\delta+p}-1))/a`."""
    return -sp.log(prior / other * (1 / (d + prior) - 1)) / distance


def paper_eps_lb(d, prior, distance):
    r"""Sec. 3.2, :math:`\epsilon_{lb}` as printed."""
    return paper_eps_main(d, prior, 1 - prior, distance)


def paper_eps_ub(d, prior, distance):
    r"""Sec. 3.2, :math:`\epsilon_{ub}` as printed (:math:`p` and :math:`1-p` swapped)."""
    return -sp.log((1 - prior) / prior * (1 / (d + 1 - prior) - 1)) / distance


def _substituted_bound(eps_expr, prior, other, distance):
    return sp.cancel(sp.together(paper_posterior_bound(eps_expr, prior, other, distance)))


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
        claims=("S3.2.posterior",),
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
    """
    e_lb = paper_eps_lb(delta, p, R)
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
        claims=("S3.2.eps_lb",),
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
    """
    e_ub = paper_eps_ub(delta, p, R)
    require_zero(
        sp.exp(-R * e_ub) - sp.exp(-R * paper_eps_lb(delta, 1 - p, R)), "eps_ub(p) = eps_lb(1-p)"
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
        claims=("S3.2.eps_ub",),
    )


@derivation
def lb_ub_binding_sec32() -> Derivation:
    r"""Sec. 3.2: if :math:`p \le 1-p` then :math:`\epsilon_{lb} \le \epsilon_{ub}`.

    Proof: :math:`e^{R(\epsilon_{ub}-\epsilon_{lb})} = \frac{p^2((1-p)^2-\delta^2)}
    {(1-p)^2(p^2-\delta^2)}`, and numerator minus denominator is
    :math:`\delta^2(1-2p)`, which is :math:`\ge 0` iff :math:`p \le 1/2` (the denominator
    is positive for :math:`p > \delta`).  Equality only at :math:`p = 1/2`.
    """
    diff_exp = sp.cancel(sp.exp(R * paper_eps_ub(delta, p, R)) / sp.exp(R * paper_eps_lb(delta, p, R)))
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
        claims=("S3.2.lb_le_ub",),
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
    """
    e_main = paper_eps_main(delta, p, q, a)
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
        claims=("S3.2.eq_main",),
    )


# ------------------------------------------------------------------------------------------
# One formula, defined once: bound.py's backend-generic formulas = the printed expressions.
# ------------------------------------------------------------------------------------------
def _one_formula(name, what, printed, generic, how, claims=()):
    statement = sp.Eq(generic, printed, evaluate=False)
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
        claims=claims,
    )


@derivation
def one_formula_posterior_bound() -> Derivation:
    """``bound.posterior_bound_formula`` (sympy backend) = :math:`1/(1+e^{-\\epsilon a}q/p)`."""
    S = sympy_backend()
    generic = bound.posterior_bound_formula(eps, p, q, a, S)
    printed = paper_posterior_bound(eps, p, q, a)
    require_zero(generic - printed, "posterior_bound_formula")
    return _one_formula(
        "one_formula_posterior_bound", "posterior_bound_formula", printed, generic,
        "difference cancels to 0", ("S3.2.posterior",),
    )


@derivation
def one_formula_advantage() -> Derivation:
    """``advantage_upper_formula`` = bound - p and ``advantage_lower_formula`` = p - lower bound."""
    S = sympy_backend()
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
        ("S3.2.posterior", "S3.2.eps_ub"),
    )


def _check_log_formula(generic, printed, step):
    """generic == printed for two sums of logs whose arguments are positive on the domain."""
    require_equal_logs(generic, printed, step)


@derivation
def one_formula_eps_main() -> Derivation:
    """``bound.eps_main_formula`` (log1p form) = Eq. (main) as printed."""
    S = sympy_backend()
    generic = bound.eps_main_formula(delta, p, q, a, S)
    printed = paper_eps_main(delta, p, q, a)
    _check_log_formula(a * generic, a * printed, "eps_main_formula")
    return _one_formula(
        "one_formula_eps_main", "eps_main_formula", printed, generic,
        "every log has a positive argument on 0 < p, 0 < delta, p + delta < 1, q > 0, so both "
        "sides are real and exp(a (generic - printed)) cancelling to 1 proves equality",
        ("S3.2.eq_main",),
    )


@derivation
def one_formula_eps_lb_ub() -> Derivation:
    """``bound.eps_lb_formula`` and ``eps_ub_formula`` = the printed :math:`\\epsilon_{lb}`, :math:`\\epsilon_{ub}`."""
    S = sympy_backend()
    g_lb = bound.eps_lb_formula(delta, p, R, S)
    _check_log_formula(R * g_lb, R * paper_eps_lb(delta, p, R), "eps_lb_formula")
    g_ub = bound.eps_ub_formula(delta, p, R, S)
    _check_log_formula(R * g_ub, R * paper_eps_ub(delta, p, R), "eps_ub_formula")
    return _one_formula(
        "one_formula_eps_lb_ub", "eps_lb_formula / eps_ub_formula",
        paper_eps_lb(delta, p, R), g_lb,
        "exp(R (generic - printed)) cancels to 1 for both sides, with every log's argument "
        "positive", ("S3.2.eps_lb", "S3.2.eps_ub"),
    )


def correct_worst_prior_derivative(prior, d, qq):
    r"""d/dp of :math:`\ln\frac{(q-p)(p+\delta)}{p(1-p-\delta)}`: the corrected df/dp of Sec. 4.1."""
    return -1 / (qq - prior) + 1 / (prior + d) - 1 / prior + 1 / (1 - prior - d)


def worst_prior_quadratic(prior, d, qq):
    r"""Numerator of the corrected df/dp: :math:`Q(p) = (q-1)p^2 + 2q\delta p - q\delta(1-\delta)`."""
    return (qq - 1) * prior**2 + 2 * qq * d * prior - qq * d * (1 - d)


@derivation
def one_formula_worst_case_prior() -> Derivation:
    r"""``bound.worst_case_prior_formula`` solves the corrected derivative, and equals
    :math:`(1-\delta)/2` at ``q = 1``; ``worst_case_epsilon_formula`` at ``q = 1`` is
    :math:`2\ln\frac{1+\delta}{1-\delta}/a`."""
    S = sympy_backend()
    generic = bound.worst_case_prior_formula(delta, q, S)
    radicand = q * delta * (q + delta - 1)
    pp = sp.Symbol("p", positive=True)
    quadratic = worst_prior_quadratic(pp, delta, q)
    require_zero(
        correct_worst_prior_derivative(pp, delta, q)
        - quadratic / (pp * (q - pp) * (pp + delta) * (1 - pp - delta)),
        "df/dp = Q(p) / (p (q-p) (p+delta) (1-p-delta))",
    )
    num, _ = sp.fraction(sp.together(quadratic.subs(pp, generic)))
    require(sp.expand(num) == 0, "p* solves Q(p) = 0, i.e. the corrected df/dp = 0")
    require_zero(generic.subs(q, 1) - (1 - delta) / 2, "q = 1 gives (1-delta)/2")
    w_eps = bound.worst_case_epsilon_formula(delta, sp.Integer(1), a, S)
    _check_log_formula(
        a * w_eps, 2 * sp.log((1 + delta) / (1 - delta)), "worst_case_epsilon_formula at q = 1"
    )
    return _one_formula(
        "one_formula_worst_case_prior", "worst_case_prior_formula / worst_case_epsilon_formula",
        q * delta * (1 - delta) / (q * delta + sp.sqrt(radicand)), generic,
        "df/dp = Q(p)/(p(q-p)(p+delta)(1-p-delta)) with Q(p) = (q-1)p^2 + 2q delta p - "
        "q delta (1-delta); the numerator of Q(p*) expands to 0; q = 1 gives (1-delta)/2 and "
        "eps = 2 ln((1+delta)/(1-delta))/a",
        ("S4.1.q_crit", "S4.1.worst_crit"),
    )
