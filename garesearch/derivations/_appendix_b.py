r"""App. B: :math:`(\epsilon,\delta)`-DP and :math:`(\epsilon,\delta)`-guessing advantage."""

from __future__ import annotations

import mpmath
import sympy as sp

from ._core import (
    PROVED,
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

eps, delta, p, q, chi, chibar, b, beta, c, alpha, epsp, deltap = sp.symbols(
    r"epsilon delta p q chi \bar{\chi} b beta c alpha \epsilon' \delta'", positive=True
)


def b1_bound(e, d, ch, prior, other):
    r"""App. B.1 final bound: :math:`1/(1 + \frac{1}{e^\epsilon + \delta/\chi}\cdot q/p)`."""
    return 1 / (1 + 1 / (sp.exp(e) + d / ch) * other / prior)


@derivation
def approx_ga_average() -> Derivation:
    r"""App. B intro: :math:`\epsilon'\delta' + (1-\delta') = 1 + (\epsilon'-1)\delta'`.

    Proof: the difference expands to 0.
    """
    lhs = epsp * deltap + (1 - deltap)
    rhs = 1 + (epsp - 1) * deltap
    require_zero(sp.expand(lhs - rhs), "identity")
    statement = sp.Eq(lhs, rhs)
    return Derivation(
        name="approx_ga_average",
        location="App. B, introduction",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="delta' is the probability that the bound eps' holds; advantage <= 1 otherwise",
        counterexample=None,
        detail="Expands to 0.",
        summary="eps' delta' + (1 - delta') = 1 + (eps' - 1) delta'",
        claims=("B.average",),
    )


def _spike_mechanism():
    """(eps, delta)-DP mechanism violating the density-level inequality (exact numbers)."""
    with workdps():
        e, d, h = mp("0.5"), mp("0.01"), mp("0.001")
        # M(0) ~ U[0,1]; M(1) ~ (1-d) U[0,1] + d U[0,h]; densities on [0, h):
        f0 = mp(1)
        f1 = (1 - d) + d / h
        # hockey-stick divergences sup_S Pr[M(i) in S] - e^eps Pr[M(j) in S]
        hs_10 = max(f1 - mpmath.exp(e) * f0, 0) * h + max((1 - d) - mpmath.exp(e) * f0, 0) * (1 - h)
        hs_01 = max(f0 - mpmath.exp(e) * f1, 0) * h + max(f0 - mpmath.exp(e) * (1 - d), 0) * (1 - h)
        prior1 = mp("0.5")
        post = prior1 * f1 / (prior1 * f1 + (1 - prior1) * f0)
        bound = 1 / (1 + 1 / (mpmath.exp(e) + d / f0) * (1 - prior1) / prior1)
        return {
            "epsilon": e, "delta": d, "spike_width_h": h,
            "M(0)": "uniform on [0, 1]", "M(1)": "(1-delta) U[0,1] + delta U[0,h]",
            "sup_S Pr[M(1) in S] - e^eps Pr[M(0) in S]": hs_10,
            "sup_S Pr[M(0) in S] - e^eps Pr[M(1) in S]": hs_01,
            "f(y|1) for y < h": f1, "e^eps f(y|0) + delta": mpmath.exp(e) * f0 + d,
            "prior Pr[x = 1]": prior1, "X'": "{1}", "X-hat": "{0}",
            "posterior Pr[x = 1 | y < h]": post, "B.1 bound": bound,
        }


@derivation
def approx_posterior_chain() -> Derivation:
    r"""App. B.1: :math:`\Pr_{post}[X'] = \ldots = \frac{1}{1 + \frac{\int_{\hat X'}
    \frac{1}{e^\epsilon + \delta/f(y|x)}f(x)dx}{\int_{X'}f(x')dx'}} \le \frac{1}{1 +
    \frac{1}{e^\epsilon + \delta/\inf_{\hat X'}f(y|x)}\cdot\frac qp}`, from
    :math:`f(y|x') \le e^\epsilon f(y|x) + \delta`.

    Refuted.  The steps marked "=" are "<=" (dropping :math:`X\setminus(X'\cup\hat X')` from
    the denominator and replacing :math:`f(y|x')` by an upper bound), and the premise is a
    density-level inequality that :math:`(\epsilon,\delta)`-DP does not imply.  The last
    step is right given the premise: :math:`u/(e^\epsilon u + \delta)` increases in ``u``
    (derivative :math:`\delta/(e^\epsilon u+\delta)^2`).  Counterexample: ``M(0)`` uniform on
    [0,1], ``M(1)`` the mixture :math:`(1-\delta)U[0,1] + \delta U[0,h]` is
    :math:`(\epsilon,\delta)`-DP (both hockey-stick divergences at most :math:`\delta`), but
    with prior 1/2 on {0, 1} and an output ``y < h`` the posterior of ``{1}`` is 0.917 while
    the B.1 bound is 0.624.
    """
    uu = sp.Symbol("u", positive=True)
    require_zero(sp.diff(uu / (sp.exp(eps) * uu + delta), uu) - delta / (sp.exp(eps) * uu + delta) ** 2,
                 "u/(e^eps u + delta) increasing")
    ce = _spike_mechanism()
    with workdps():
        require(ce["sup_S Pr[M(1) in S] - e^eps Pr[M(0) in S]"] <= ce["delta"], "DP 1->0")
        require(ce["sup_S Pr[M(0) in S] - e^eps Pr[M(1) in S]"] <= ce["delta"], "DP 0->1")
        require(ce["f(y|1) for y < h"] > ce["e^eps f(y|0) + delta"], "density premise fails")
        require(ce["posterior Pr[x = 1 | y < h]"] > ce["B.1 bound"], "bound violated")
    statement = sp.Le(sp.Symbol(r"\Pr_{post}[X']"), b1_bound(eps, delta, chi, p, q))
    return Derivation(
        name="approx_posterior_chain",
        location="App. B.1, posterior bound for (eps, delta)-DP",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="(eps, delta)-DP (Def. 9) of the mechanism; chi = inf over X-hat of f(y|x)",
        counterexample=ce,
        detail="(eps, delta)-DP bounds probabilities of sets, not densities: f(y|x') <= e^eps "
        "f(y|x) + delta does not follow (delta is a probability, a density bound would need "
        "units of 1/y). The spike mechanism is (0.5, 0.01)-DP, yet Post = 0.9166 > 0.6239. "
        "Corrected: the chain holds, with '<=' for the '=' steps, for mechanisms whose densities "
        "satisfy f(y|x') <= e^eps f(y|x) + delta pointwise.",
        summary="B.1 chain: '=' should be '<='; density-level premise not implied by (eps,delta)-DP",
        claims=("B.chain1",),
    )


@derivation
def approx_eps_fixed() -> Derivation:
    r"""App. B.1, :math:`\epsilon'` fixed: need :math:`\underline\chi_y \ge \frac{\delta}
    {\frac{p+\epsilon'}{1-(p+\epsilon')}\cdot\frac qp - e^\epsilon}`.

    Proof: the B.1 bound decreases in :math:`\chi` and equals :math:`s = p + \epsilon'` at
    :math:`\chi = \delta/(\frac{s}{1-s}\frac qp - e^\epsilon)` (substituted back), so it is
    at most ``s`` iff :math:`\chi` is at least that value, provided the denominator is
    positive (else no :math:`\chi` works).  (The :math:`\delta'`-fixed formula writes
    :math:`d(\delta)` for :math:`d(\delta')`.)
    """
    s = p + epsp
    chi0 = delta / (s / (1 - s) * q / p - sp.exp(eps))
    bnd = b1_bound(eps, delta, chi, p, q)
    require_zero(sp.cancel(bnd.subs(chi, chi0)) - s, "bound at chi0 = p + eps'")
    dd = sp.diff(bnd, chi)
    expected = -(q / p) * delta / chi**2 / (sp.exp(eps) + delta / chi) ** 2 * bnd**2
    require_zero(dd - expected, "d bound/d chi < 0")
    statement = sp.Ge(chi, chi0)
    return Derivation(
        name="approx_eps_fixed",
        location="App. B.1, 'If eps' is fixed'",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="the B.1 bound (see approx_posterior_chain for its premise); "
        "(p+eps')/(1-(p+eps')) q/p > e^eps, p + eps' < 1",
        counterexample=None,
        detail="The bound decreases in chi and equals p + eps' at the printed threshold. "
        "Typo in the delta'-fixed formula: f_eta(c(t) + d(delta)) should be d(delta').",
        summary="eps' fixed: chi >= delta/((p+eps')/(1-p-eps') q/p - e^eps)",
        claims=("B.eps_fixed",),
    )


@derivation
def approx_dp_chain() -> Derivation:
    r"""App. B.2 (Approximate DP): with :math:`\underline\chi \ge e^{-\epsilon}(\bar\chi -
    \delta)`, the bound becomes :math:`\frac{1}{1 + e^{-\epsilon}(1 - \delta/\bar\chi)q/p}`.

    Proof of the algebra: :math:`e^\epsilon + \frac{\delta}{e^{-\epsilon}(\bar\chi-\delta)}
    = e^\epsilon(1 + \frac{\delta}{\bar\chi-\delta})` and :math:`1/(1+\frac{\delta}
    {\bar\chi-\delta}) = 1 - \delta/\bar\chi` (both cancel).  The premise
    :math:`\inf f \ge e^{-\epsilon}(\sup f - \delta)` is again a density-level inequality
    that :math:`(\epsilon,\delta)`-DP does not imply (see :func:`approx_posterior_chain`).
    """
    step1 = sp.exp(eps) + delta / (sp.exp(-eps) * (chibar - delta))
    require_zero(step1 - sp.exp(eps) * (1 + delta / (chibar - delta)), "step 1")
    require_zero(1 / (1 + delta / (chibar - delta)) - (1 - delta / chibar), "step 2")
    first = 1 / (1 + 1 / step1 * q / p)
    last = 1 / (1 + sp.exp(-eps) * (1 - delta / chibar) * q / p)
    require_zero(first - last, "whole chain")
    statement = sp.Eq(first, last)
    return Derivation(
        name="approx_dp_chain",
        location="App. B.2, Achieving (eps, delta)-GA for Approximate DP",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="chi-bar > delta; the density-level premise inf f(y|x) >= e^{-eps}(sup f(y|x) "
        "- delta), which (eps, delta)-DP does not imply",
        counterexample=None,
        detail="e^eps + delta/(e^{-eps}(chibar - delta)) = e^eps (1 + delta/(chibar-delta)) and "
        "1/(1 + delta/(chibar - delta)) = 1 - delta/chibar: the algebra is right.",
        summary="1/(1 + e^{-eps}(1 - delta/chibar) q/p) (algebra right; premise not implied)",
        claims=("B.adp_chain",),
    )


@derivation
def laplace_substitution() -> Derivation:
    r"""App. B.2: with :math:`\delta = 2e^{\epsilon-1-(\epsilon-b)/\beta}` and
    :math:`\bar\chi = b/(2c)`, :math:`\delta/\bar\chi = 4e^{\epsilon-1-(\epsilon-b)/\beta}c/b`.

    Proof: the quotient minus the printed value cancels.  (The two inputs are quoted from
    the authors' earlier work and not re-derived here.)
    """
    d = 2 * sp.exp(eps - 1 - (eps - b) / beta)
    ch = b / (2 * c)
    printed = 4 * sp.exp(eps - 1 - (eps - b) / beta) * c / b
    require_zero(d / ch - printed, "delta/chibar")
    statement = sp.Eq(sp.Symbol(r"\delta/\bar\chi"), printed)
    return Derivation(
        name="laplace_substitution",
        location="App. B.2, Laplace noise with beta-smooth derivative sensitivity",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="delta = 2e^{eps-1-(eps-b)/beta} and chi-bar = b/(2c_beta(t)) as quoted from "
        "the cited work (not re-derived)",
        counterexample=None,
        detail="2e^{...}/(b/(2c)) = 4e^{...}c/b.",
        summary="delta/chibar = 4 e^{eps-1-(eps-b)/beta} c/b",
        claims=("B.laplace_subst",),
    )


@derivation
def beta_bound() -> Derivation:
    r"""App. B.2: :math:`\beta \le \frac{\epsilon-b}{\epsilon-1-\ln(b/4)}` gives
    :math:`4e^{\epsilon-1-(\epsilon-b)/\beta}c/b \le c`, and this :math:`\beta` bound is
    positive whenever :math:`b < \epsilon`.

    Proof.  :math:`\epsilon - 1 - \ln(b/4) = (\epsilon - b) + (b - 1 - \ln b) + \ln 4`
    (identity); :math:`b - 1 - \ln b \ge 0` (convex, minimum 0 at ``b = 1``), so the
    denominator exceeds :math:`\epsilon - b > 0` and the bound is positive.  Then
    :math:`(\epsilon-b)/\beta \ge \epsilon - 1 - \ln(b/4)`, so the exponent is at most
    :math:`\ln(b/4)` and the quantity at most :math:`4(b/4)c/b = c`.
    """
    den = eps - 1 - sp.log(b / 4)
    require_zero(sp.expand(sp.expand_log(den - ((eps - b) + (b - 1 - sp.log(b)) + sp.log(4)),
                                         force=True)), "identity")
    hb = b - 1 - sp.log(b)
    require_zero(sp.diff(hb, b).subs(b, 1), "h'(1) = 0")
    require_zero(sp.diff(hb, b, 2) - 1 / b**2, "h'' = 1/b^2 > 0")
    require(hb.subs(b, 1) == 0, "h(1) = 0")
    beta_max = (eps - b) / den
    quantity = 4 * sp.exp(eps - 1 - (eps - b) / beta) * c / b
    require_zero(sp.expand(sp.expand_log(sp.log(quantity.subs(beta, beta_max) / c), force=True)),
                 "at the bound: exactly c")
    require_zero(sp.diff(eps - 1 - (eps - b) / beta, beta) - (eps - b) / beta**2,
                 "exponent increases in beta (b < eps): smaller beta, smaller quantity")
    statement = sp.Implies(sp.Le(beta, beta_max), sp.Le(quantity, c))
    return Derivation(
        name="beta_bound",
        location="App. B.2, bound on beta",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="0 < b < eps, beta > 0",
        counterexample=None,
        detail="eps - 1 - ln(b/4) = (eps - b) + (b - 1 - ln b) + ln 4 > eps - b > 0, so the "
        "beta bound is positive; at the bound the quantity equals c, and it increases in beta.",
        summary="beta <= (eps-b)/(eps-1-ln(b/4)) => 4e^{...}c/b <= c; bound > 0 for b < eps",
        claims=("B.beta_bound",),
    )


@derivation
def alpha_typo() -> Derivation:
    r"""App. B.2 procedure: need :math:`1 - \frac{4e^{\epsilon-\alpha-1-(\epsilon-\alpha-b')
    /\beta}c}{b'} \ge e^{-\alpha\epsilon}`.

    Refuted (typo).  Running the mechanism at :math:`\epsilon - \alpha` with the factor
    :math:`F = 1 - \delta/\bar\chi` gives the bound :math:`1/(1 + e^{-(\epsilon-\alpha)}F
    q/p)`, which is at most the :math:`\epsilon`-DP bound :math:`1/(1+e^{-\epsilon}q/p)` iff
    :math:`F \ge e^{-\alpha}` (the paper's own next display uses :math:`1 - e^{-\alpha}`).
    Counterexample: :math:`\epsilon = 2`, :math:`\alpha = 1/2`, ``F = 1/2`` satisfies
    :math:`F \ge e^{-\alpha\epsilon}` but the resulting bound exceeds the target.
    """
    F = sp.Symbol("F", positive=True)
    got = 1 / (1 + sp.exp(-(eps - alpha)) * F * q / p)
    target = 1 / (1 + sp.exp(-eps) * q / p)
    # got <= target  iff  e^{-(eps-alpha)} F >= e^{-eps}  iff  F >= e^{-alpha}
    require_zero(sp.expand(sp.exp(-(eps - alpha)) * sp.exp(-alpha) - sp.exp(-eps)), "F = e^{-alpha}")
    require_zero(got.subs(F, sp.exp(-alpha)) - target, "equality at F = e^{-alpha}")
    # the paper's next display follows from F >= e^{-alpha}:
    bp = sp.Symbol("b'", positive=True)
    E2 = eps - alpha
    lhs = 4 * sp.exp(E2 - 1 - (E2 - bp) / beta) * c / bp
    rearranged = sp.exp(bp / beta) / (bp / beta) * 4 * c * sp.exp(E2 - 1 - E2 / beta) / beta
    require_zero(sp.expand(sp.powsimp(lhs - rearranged)), "rearrangement into e^{b'/beta}/(b'/beta)")
    with workdps():
        e, al, Fv, pv, qv = mp(2), mp("0.5"), mp("0.5"), mp("0.5"), mp("0.5")
        ce = {
            "epsilon": e, "alpha": al, "F = 1 - delta/chibar": Fv, "p": pv, "q": qv,
            "e^{-alpha eps} (printed)": mpmath.exp(-al * e), "e^{-alpha} (corrected)": mpmath.exp(-al),
            "bound_at_eps_minus_alpha": 1 / (1 + mpmath.exp(-(e - al)) * Fv * qv / pv),
            "eps_DP_target": 1 / (1 + mpmath.exp(-e) * qv / pv),
        }
        require(ce["e^{-alpha eps} (printed)"] <= Fv < ce["e^{-alpha} (corrected)"], "F between")
        require(ce["bound_at_eps_minus_alpha"] > ce["eps_DP_target"], "target exceeded")
    statement = sp.Ge(1 - lhs, sp.exp(-alpha * eps))
    return Derivation(
        name="alpha_typo",
        location="App. B.2, procedure, condition on b'",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="mechanism run at eps - alpha, target the eps-DP bound",
        counterexample=ce,
        detail="Corrected: 1 - 4e^{eps-alpha-1-(eps-alpha-b')/beta} c/b' >= e^{-alpha}; this is "
        "what the next display (with 1 - e^{-alpha}) rearranges. With e^{-alpha eps} the bound "
        "can exceed the eps-DP target (eps = 2, alpha = 0.5, F = 0.5: 0.8996 > 0.8808).",
        summary="e^{-alpha eps} should be e^{-alpha}",
        claims=("B.alpha_typo",),
    )


@derivation
def bprime_lambert() -> Derivation:
    r"""App. B.2: the solution of :math:`e^{b'/\beta}/(b'/\beta) = Y` is
    :math:`b' = -\beta W(-1/Y)`.

    Proved under conditions.  With :math:`x = b'/\beta`: :math:`e^x/x = Y \iff
    (-x)e^{-x} = -1/Y \iff x = -W_k(-1/Y)`; substituting (with :math:`e^{W} = z/W`) gives
    ``Y`` for both real branches ``k = 0`` and ``k = -1``.  :math:`e^x/x` has its minimum
    ``e`` at ``x = 1`` (derivative :math:`e^x(x-1)/x^2`), so real solutions exist iff
    :math:`Y \ge e`, and the inequality :math:`e^x/x \le Y` holds for ``x`` between the two
    branches.  The paper's principal branch gives the SMALLER ``b'`` (in (0, 1]·β), i.e. more
    noise :math:`c/b'`; :math:`W_{-1}` gives the largest admissible ``b'``.
    """
    xx = sp.Symbol("x", positive=True)
    Y = sp.Symbol("Y", positive=True)
    require_zero(sp.diff(sp.exp(xx) / xx, xx) - sp.exp(xx) * (xx - 1) / xx**2, "derivative")
    require((sp.exp(xx) / xx).subs(xx, 1) == sp.E, "minimum e at x = 1")
    for k in (0, -1):
        Wk = sp.LambertW(-1 / Y, k)
        xk = -Wk
        value = sp.exp(xk) / xk  # exp(-W) = W / z with z = -1/Y  (from W e^W = z)
        value = value.subs(sp.exp(-Wk), Wk / (-1 / Y))
        require_zero(value - Y, f"branch {k} solves e^x/x = Y")
    with workdps():
        Yv = mp(5)
        x0 = -mpmath.lambertw(-1 / Yv, 0).real
        x1 = -mpmath.lambertw(-1 / Yv, -1).real
        require(abs(mpmath.exp(x0) / x0 - Yv) < mp("1e-45") and abs(mpmath.exp(x1) / x1 - Yv) < mp("1e-45"),
                "numeric: both branches")
        Yout = mp(2)
        w_out = mpmath.lambertw(-1 / Yout)
        ce = {
            "Y": Yv, "x_W0": x0, "x_W-1": x1, "e^x/x at both": mpmath.exp(x0) / x0,
            "infeasible_Y": Yout, "W0(-1/Y) for Y = 2": w_out,
        }
        require(abs(mpmath.im(w_out)) > mp("0.1"), "Y < e: no real solution")
    statement = sp.Eq(sp.Symbol("b'"), -beta * sp.LambertW(-1 / Y))
    return Derivation(
        name="bprime_lambert",
        location="App. B.2, procedure, Lambert W for b'",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="Y >= e (else no real b'); two real solutions, W_0 (the paper's, smaller b', "
        "more noise) and W_{-1} (larger b'); the inequality holds between them",
        counterexample=ce,
        detail="x = -W_k(-1/Y), k in {0, -1}, both satisfy e^x/x = Y; Y = 5: x = 0.2592 (W_0) "
        "and 2.5426 (W_-1). For Y = 2 < e, W(-1/2) is complex: no b'. The larger root gives "
        "less noise (subject to b' <= eps - alpha - beta).",
        summary="b' = -beta W_k(-1/Y), k = 0 or -1; feasible iff Y >= e; W_0 = more noise",
        claims=("B.bprime",),
    )
