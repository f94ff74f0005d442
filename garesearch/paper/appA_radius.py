r"""App. A: the optimal radius (one and ``n`` dimensions), the Lambert-W closed form for
epsilon and the paper's iteration for W; the derivations and the claims side by side (the
numbers come from :mod:`garesearch.radius` and :mod:`garesearch.lambertw`)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from .. import radius
from .._backend import MPMATH, NUMPY, sympy_backend
from ..lambertw import lambertw_iterates
from . import printed
from ._claim import Check, Evidence, claim
from ._proof import (
    PROVED,
    PROVED_UNDER_CONDITIONS,
    Derivation,
    derivation,
    latex,
    mp,
    require,
    require_zero,
    workdps,
)

S = sympy_backend()
a, eps, r, R, delta, s, n = sp.symbols("a epsilon r R delta s n", positive=True)
x = sp.Symbol("x", real=True)
w = sp.Symbol("w", real=True)
y = sp.Symbol("y", real=True)


@derivation
def optimal_radius_1d() -> Derivation:
    r"""App. A, ``n = 1``: :math:`a = 1/\epsilon + r` maximises
    :math:`h(a) = e^{-a\epsilon}(a-r)/r`, giving
    :math:`\Pr_{post}[X'] \le 1/(1 + (e^{\epsilon r+1}\epsilon r)^{-1})`.

    Proof: :math:`h'(a) = e^{-a\epsilon}(1 - \epsilon(a-r))/r` vanishes only at
    :math:`a = r + 1/\epsilon`, where :math:`h'' = -\epsilon e^{-a\epsilon}/r < 0`, and
    :math:`h = e^{-(\epsilon r+1)}/(\epsilon r)`.  (With the sound exponent ``a + r``
    (:func:`comparison_set_distance`) the quantity is :math:`e^{-r\epsilon}h(a)`: same
    maximiser, value :math:`(e^{2\epsilon r+1}\epsilon r)^{-1}`.)

    Examples
    --------
    >>> optimal_radius_1d().status
    'proved'
    """
    h = sp.exp(-a * eps) * (a - r) / r
    a0 = r + 1 / eps
    require_zero(sp.diff(h, a) - sp.exp(-a * eps) * (1 - eps * (a - r)) / r, "h'")
    require_zero(sp.diff(h, a).subs(a, a0), "h'(a0) = 0")
    require_zero(sp.diff(h, a, 2).subs(a, a0) + eps * sp.exp(-a0 * eps) / r, "h''(a0) < 0")
    require_zero(sp.expand(h.subs(a, a0) - sp.exp(-(eps * r + 1)) / (eps * r)), "h(a0)")
    bound_at = 1 / (1 + h.subs(a, a0))
    as_printed = printed.optimal_radius_bound_1d(eps, r, S)
    require_zero(sp.expand(1 / bound_at - 1 / as_printed), "posterior bound value")
    # the library's bound (garesearch.radius) is Eq. (main) with Pr[X'] ~ r, q ~ a - r
    require_zero(sp.expand(1 / radius.radius_posterior_bound_1d_formula(eps, r, a, S) - 1 - h),
                 "garesearch.radius: 1/(1 + h(a))")
    statement = sp.Eq(sp.Symbol(r"a_{opt}"), 1 / eps + r)
    return Derivation(
        name="optimal_radius_1d",
        location="App. A, n = 1",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="uniform prior in one dimension (Pr[X'] proportional to r, comparison mass "
        "to a - r), exponent a as in the paper",
        counterexample=None,
        detail="h'(a) = e^{-a eps}(1 - eps(a-r))/r = 0 at a = r + 1/eps, h'' < 0 there; "
        "bound 1/(1 + (e^{eps r + 1} eps r)^{-1}). With the sound exponent a + r the maximiser "
        "is the same and the bound becomes 1/(1 + (e^{2 eps r + 1} eps r)^{-1}).",
        summary="a = r + 1/eps; Post <= 1/(1 + (e^{eps r+1} eps r)^{-1})",
    )


@derivation
def optimal_radius_ndim() -> Derivation:
    r"""App. A, Eq. (multdim): :math:`\Pr_{post}[X'] \le e^{a\epsilon}(r/a)^n`, minimised at
    :math:`a = n/\epsilon` with value :math:`(\epsilon e r/n)^n`.

    Proof: :math:`\ln` of the bound is :math:`a\epsilon + n\ln r - n\ln a`, derivative
    :math:`\epsilon - n/a` (zero at :math:`n/\epsilon`), second derivative
    :math:`n/a^2 > 0`; the value is :math:`e^n(r\epsilon/n)^n`.  The first inequality of
    (multdim) holds pointwise for each :math:`x' \in X'`, with the ball of radius ``a``
    around :math:`x'` inside the domain.

    Examples
    --------
    >>> optimal_radius_ndim().status
    'proved under conditions'
    """
    L = a * eps + n * sp.log(r) - n * sp.log(a)
    require_zero(sp.diff(L, a) - (eps - n / a), "d/da")
    require_zero(sp.diff(L, a).subs(a, n / eps), "critical point n/eps")
    require_zero(sp.diff(L, a, 2) - n / a**2, "second derivative")
    val = sp.exp(L.subs(a, n / eps))
    require_zero(sp.expand(sp.expand_log(sp.log(val) - sp.log(printed.ndim_optimum(eps, r, n, S)),
                                         force=True)), "value (eps e r/n)^n")
    statement = sp.And(
        sp.Eq(sp.Symbol(r"a_{opt}"), n / eps),
        sp.Eq(sp.Symbol(r"\min_a e^{a\epsilon}(r/a)^n"), printed.ndim_optimum(eps, r, n, S)),
    )
    return Derivation(
        name="optimal_radius_ndim",
        location="App. A, Eq. (multdim)",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="uniform prior on an n-dimensional region; the ball of radius a = n/eps around "
        "every point of X' inside the region (else its mass is below (a/R)^n); informative only "
        "when (eps e r/n)^n < 1",
        counterexample=None,
        detail="ln bound = a eps + n ln(r/a): derivative eps - n/a, second derivative n/a^2 > 0; "
        "minimum e^n (r eps/n)^n at a = n/eps.",
        summary="a = n/eps minimises e^{a eps}(r/a)^n; value (eps e r/n)^n",
    )


@derivation
def lambert_closed_form() -> Derivation:
    r"""App. A: :math:`\epsilon \le W\left(\frac{r/R+\delta}{e(1-(r/R+\delta))}\right)/r`.

    Proof: with :math:`u = \epsilon r e^{\epsilon r + 1}` the bound is :math:`u/(u+1)`,
    increasing in ``u``; it is at most ``s`` iff :math:`u \le s/(1-s)`, i.e.
    :math:`\epsilon r e^{\epsilon r} \le y := s/(e(1-s))`.  :math:`xe^x` increases on
    :math:`x > 0`, so this is :math:`\epsilon r \le W(y)`; at :math:`\epsilon r = W(y)`
    (using :math:`e^{W(y)} = y/W(y)`) the bound is exactly ``s``.  Checked numerically
    against :func:`mpmath.lambertw` and by brute-force optimisation
    (:func:`garesearch.radius.bruteforce_epsilon`).

    Examples
    --------
    >>> lambert_closed_form().status
    'proved under conditions'
    """
    xx = sp.Symbol("x", positive=True)
    bound = printed.optimal_radius_bound_1d(xx, 1, S)  # the bound of optimal_radius_1d, eps r = x
    u = sp.Symbol("u", positive=True)
    require_zero(bound.subs(sp.exp(xx + 1) * xx, u) - u / (u + 1), "bound = u/(u+1)")
    require_zero(sp.diff(u / (u + 1), u) - 1 / (u + 1) ** 2, "increasing in u")
    require_zero(sp.diff(xx * sp.exp(xx), xx) - (xx + 1) * sp.exp(xx), "x e^x increasing")
    yy = s / (sp.E * (1 - s))
    W = sp.LambertW(yy)
    at_w = (1 / (1 + 1 / (sp.E * (yy / W) * W)))  # exp(W + 1) W = e * (y/W) * W
    require_zero(at_w - s, "bound at eps r = W(y) equals s")
    with workdps():
        rr, RR, dd = mp(1), mp(10), mp("0.1")
        ss = rr / RR + dd
        yv = ss / (mpmath.e * (1 - ss))
        wv = mpmath.lambertw(yv).real
        check = printed.optimal_radius_bound_1d(wv, 1, MPMATH)
        require(abs(check - ss) < mp("1e-45"), "numeric: bound at W = s")
        library = radius.lambert_epsilon(r=1, R=10, delta="0.1", dps=50)
        require(abs(library - wv / rr) < mp("1e-45"), "garesearch.radius.lambert_epsilon")
    statement = sp.Le(eps, radius.lambert_epsilon_formula(r, R, delta, S))
    return Derivation(
        name="lambert_closed_form",
        location="App. A, Lambert W closed form",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="s = r/R + delta < 1; the bound of optimal_radius_1d (uniform prior with "
        "Pr[X'] = r/R, exponent a); principal branch W_0",
        counterexample=None,
        detail="The bound is u/(u+1) with u = eps r e^{eps r + 1}: <= s iff eps r e^{eps r} <= "
        f"s/(e(1-s)) iff eps r <= W(s/(e(1-s))). Example r = 1, R = 10, delta = 0.1: "
        f"eps = {mpmath.nstr(wv, 12)}.",
        summary="eps r = W(s/(e(1-s))), s = r/R + delta",
    )


@derivation
def lambert_w_paper_iteration() -> Derivation:
    r"""App. A: :math:`w_0 = 1`, :math:`w_{n+1} = w_{n-1} - \frac{w_{n-1}e^{w_n} - y}
    {(w_n+1)e^{w_n}}` computes :math:`W(y)`.

    Proved under conditions.  The recurrence mixes indices (Newton has :math:`w_n`
    everywhere) and needs two starting values.  With :math:`F(u,v) = u - (ue^v -
    y)/((v+1)e^v)`: the fixed point :math:`F(w,w) = w` iff :math:`we^w = y`, i.e.
    :math:`w = W(y)`; at it :math:`\partial_u F = c`, :math:`\partial_v F = -c`,
    :math:`c = w/(w+1)`, so :math:`e_{n+1} = -c\,e_n + c\,e_{n-1}`, characteristic
    polynomial :math:`\lambda^2 + c\lambda - c`.  By the Jury conditions both roots are
    inside the unit circle iff :math:`|c| < 1` and :math:`1 - 2c > 0`, i.e.
    :math:`-1 < c < 1/2`, i.e. :math:`-1/2 < W(y) < 1`, i.e.
    :math:`-e^{-1/2}/2 < y < e`; convergence is then linear (Newton: quadratic, Halley:
    cubic; see :mod:`garesearch.lambertw`).  This is local convergence: from
    the paper's :math:`w_0 = 1` the iterates can escape near the ends of the interval
    (at ``y = -0.3`` they jump past :math:`W = -1` and diverge).

    Examples
    --------
    >>> lambert_w_paper_iteration().status
    'proved under conditions'
    """
    u, v = sp.symbols("u v", real=True)
    F = u - (u * sp.exp(v) - y) / ((v + 1) * sp.exp(v))
    require_zero(F.subs({u: w, v: w}) - w + (w * sp.exp(w) - y) / ((w + 1) * sp.exp(w)), "F(w,w)")
    at_fixed = {u: w, v: w, y: w * sp.exp(w)}
    c = w / (w + 1)
    require_zero(sp.diff(F, u).subs(at_fixed) - c, "dF/du = c")
    require_zero(sp.diff(F, v).subs(at_fixed) + c, "dF/dv = -c")
    # Jury: lambda^2 + a1 lambda + a0 stable iff |a0| < 1, 1 + a1 + a0 > 0, 1 - a1 + a0 > 0
    a1, a0 = c, -c
    require_zero((1 + a1 + a0) - 1, "1 + a1 + a0 = 1 > 0")
    require_zero((1 - a1 + a0) - (1 - 2 * c), "1 - a1 + a0 = 1 - 2c")
    require_zero(c.subs(w, 1) - sp.Rational(1, 2), "c = 1/2 at W = 1")
    require_zero(c.subs(w, -sp.Rational(1, 2)) + 1, "c = -1 at W = -1/2")
    require_zero(sp.diff(c, w) - 1 / (w + 1) ** 2, "c increasing in W")
    lo, hi = (w * sp.exp(w)).subs(w, -sp.Rational(1, 2)), (w * sp.exp(w)).subs(w, 1)
    require(sp.simplify(lo + sp.exp(-sp.Rational(1, 2)) / 2) == 0 and hi == sp.E, "y interval")
    with workdps():
        y_out = mp(10)
        its = lambertw_iterates(10, "paper", maxiter=40, dps=50)
        ref = mpmath.lambertw(y_out).real
        y_in = mp(1)
        its_in = lambertw_iterates(1, "paper", maxiter=200, dps=50)
        ref_in = mpmath.lambertw(y_in).real
        ce = {
            "y": y_out, "W(y)": ref, "w0": its[0], "w1": its[1],
            "error_after_10": abs(its[10] - ref), "error_after_40": abs(its[40] - ref),
            "inside_example_y": y_in, "inside_error_after_200": abs(its_in[200] - ref_in),
            "interval": (-mpmath.exp(mp(-0.5)) / 2, mpmath.e),
        }
    require(ce["error_after_40"] > mp("0.1"), "no convergence outside the interval")
    require(ce["inside_error_after_200"] < mp("1e-15"), "convergence inside")
    statement = sp.Eq(
        sp.Symbol("w_{n+1}"),
        sp.Symbol("w_{n-1}") - (sp.Symbol("w_{n-1}") * sp.exp(sp.Symbol("w_n")) - y)
        / ((sp.Symbol("w_n") + 1) * sp.exp(sp.Symbol("w_n"))),
    )
    return Derivation(
        name="lambert_w_paper_iteration",
        location="App. A, iterative method for W",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="-1/2 < W(y) < 1, i.e. -e^{-1/2}/2 = -0.30327 < y < e, and a second starting "
        "value (here w_{-1} = w_0 = 1); convergence only linear",
        counterexample=ce,
        detail="Fixed point W(y); linearisation e_{n+1} = -c e_n + c e_{n-1}, c = W/(W+1); "
        "stable iff -1 < c < 1/2. At y = 10 (W = 1.7455) the iterates oscillate and do not "
        "converge; at y = 1 the rate is 0.809 (151 steps to 1e-15, Newton 5, Halley 3). The "
        "printed recurrence mixes indices: Newton's method is w_{n+1} = w_n - (w_n e^{w_n} - y)/"
        "((w_n+1) e^{w_n}). The interval is the condition for LOCAL convergence: from the "
        "paper's w_0 = 1 the iterates also escape near its ends (y = -0.3: they jump past "
        "W = -1 and diverge, although a start near W(y) converges). App. A needs "
        "y = s/(e(1-s)) < e, i.e. s < e^2/(1+e^2) = 0.8808.",
        summary="paper's W iteration converges (linearly) only for -0.303 < y < e",
    )


# ------------------------------------------------------------------------------------------
# The claims (the calculus is the derivations' above; the numbers come from garesearch.radius
# and garesearch.lambertw)
# ------------------------------------------------------------------------------------------
@claim("A.1D_opt", location="App A, n=1",
       statement="a = 1/eps + r;  Post <= 1/(1+(e^{eps r+1} eps r)^{-1})",
       derivations={"optimal_radius_1d": "result"})
def _a_1d_opt():
    ev, rv = 0.5, 1.0
    a_star = float(radius.optimal_radius_1d(ev, rv))
    at_star = float(radius.radius_posterior_bound_1d(ev, rv, a_star))
    grid = np.asarray(radius.radius_posterior_bound_1d(ev, rv, np.linspace(1.001, 40.0, 40000)))
    return Evidence(
        paper="a = 1/eps + r;  Post <= 1/(1+(e^{eps r+1} eps r)^{-1})",
        computed=f"a* = 1/eps + r; eps = 0.5, r = 1: a* = {a_star:g}, bound {at_star:.6g}",
        checks=(
            Check("garesearch.radius.optimal_radius_1d(eps = 0.5, r = 1) equals 1/eps + r",
                  "result", "close", a_star, 1 / ev + rv),
            Check("the bound at a* is the smallest over a grid of 40000 radii in (r, 40]",
                  "result", "le", at_star, float(grid.min()) * (1 + 1e-12)),
            Check("the bound at a* equals the printed 1/(1+(e^{eps r+1} eps r)^{-1})", "result",
                  "close", at_star, float(printed.optimal_radius_bound_1d(ev, rv, NUMPY))),
        ),
        explanation="Holds (calculus): e^{-a eps}(a - r)/r is largest at a = 1/eps + r, giving "
                    "the printed bound. With the sound exponent (distance a + r) the same calculus "
                    "gives a = 1/eps + r for the radius and the bound 1/(1 + (e^{2 eps r + 1} eps "
                    "r)^{-1}).",
    )


@claim("A.lambert", location="App A, Lambert W closed form",
       statement="eps <= W((r/R+delta)/(e(1-(r/R+delta))))/r",
       derivations={"lambert_closed_form": "result"})
def _a_lambert():
    rv, Rv, dv = 1.0, 10.0, 0.1
    closed = radius.lambert_epsilon(r=rv, R=Rv, delta=dv)
    brute = radius.bruteforce_epsilon(r=rv, R=Rv, delta=dv)
    with mpmath.workdps(30):
        w = radius.lambert_epsilon(r=rv, R=Rv, delta=dv, dps=30) * rv
        at_w = float(printed.optimal_radius_bound_1d(w, 1, MPMATH))
    return Evidence(
        paper="eps <= W((r/R+delta)/(e(1-(r/R+delta))))/r",
        computed=closed,
        checks=(
            Check("the bound of A.1D_opt at eps r = W(y) equals r/R + delta (r = 1, R = 10, "
                  "delta = 0.1)", "result", "close", at_w, rv / Rv + dv),
            Check("the closed form equals a brute-force search over eps and a "
                  "(garesearch.radius.bruteforce_epsilon)", "result", "close", closed, brute),
        ),
        explanation="Holds: e^{eps r} eps r <= y inverts to eps r <= W(y) because x e^x increases "
                    "for x >= 0; at eps r = W(y) the bound equals r/R + delta.",
    )


@claim("A.iteration", location="App A, iterative method for W",
       statement="w0=1, w_{n+1} = w_{n-1} - (w_{n-1}e^{w_n}-y)/((w_n+1)e^{w_n})",
       derivations={"lambert_w_paper_iteration": "printed"})
def _a_iteration():
    ys = [0.1, 1.0, 5.0, 10.0]
    ref = [float(mpmath.lambertw(y).real) for y in ys]
    newton = [float(lambertw_iterates(y, "newton", maxiter=60)[-1]) for y in ys]
    as_printed = [float(lambertw_iterates(y, "paper", maxiter=60)[-1]) for y in ys]
    newton_ok = all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(newton, ref, strict=True))
    printed_ok = all(math.isfinite(a) and math.isclose(a, b, rel_tol=1e-6)
                     for a, b in zip(as_printed, ref, strict=True))
    return Evidence(
        paper="w0=1, w_{n+1} = w_{n-1} - (w_{n-1}e^{w_n}-y)/((w_n+1)e^{w_n})",
        computed=(f"W(5), W(10): printed iteration after 60 steps -> {as_printed[2]:.4g}, "
                  f"{as_printed[3]:.4g}; Newton -> {newton[2]:.6f}, {newton[3]:.6f}"),
        checks=(
            Check("Newton's iteration w_{n+1} = w_n - (w_n e^{w_n} - y)/((w_n+1) e^{w_n}) reaches "
                  "W(y) for y = 0.1, 1, 5, 10", "result", "true", newton_ok),
            Check("the printed iteration (w_{n-1} in two places) reaches W(y) for the same y",
                  "printed", "true", printed_ok),
        ),
        explanation=(
            "Typo in the indices: the method is Newton's, w_{n+1} = w_n - (w_n e^{w_n} - y)/"
            "((w_n + 1) e^{w_n}), which from w_0 = 1 converges to W(y) for every y > -1/e. As "
            "printed (w_{n-1} twice) it needs two starting values and converges only linearly and "
            "only for W(y) in (-1/2, 1), i.e. -0.303 < y < e (its linearisation has roots of "
            "l^2 + c l - c with c = W/(W+1)); it fails for y = 5 and 10 (after 60 steps "
            f"{as_printed[2]:.3g} and {as_printed[3]:.3g}). App. A needs y = s/(e(1-s)) with "
            "s = r/R + delta, below e only for s < e^2/(1+e^2) = 0.881."
        ),
    )


@claim("A.ndim", location="App A, Eq.(multdim)",
       statement="Post <= e^{a eps}(r/a)^n, minimised at a=n/eps: (eps e r/n)^n",
       derivations={"optimal_radius_ndim": "result"})
def _a_ndim():
    ev, rv, n = 0.5, 1.0, 3
    a_star = float(radius.optimal_radius_ndim(ev, n))
    at_star = float(radius.radius_posterior_bound_ndim(ev, rv, a_star, n))
    grid = np.asarray(radius.radius_posterior_bound_ndim(ev, rv, np.linspace(0.01, 40.0, 40000), n))
    return Evidence(
        paper="Post <= e^{a eps}(r/a)^n, minimised at a=n/eps: (eps e r/n)^n",
        computed=f"a* = n/eps; eps = 0.5, r = 1, n = 3: a* = {a_star:g}, value {at_star:.6g}",
        checks=(
            Check("garesearch.radius.optimal_radius_ndim(eps = 0.5, n = 3) equals n/eps",
                  "result", "close", a_star, n / ev),
            Check("the bound at a* is the smallest over a grid of 40000 radii in (0, 40]",
                  "result", "le", at_star, float(grid.min()) * (1 + 1e-12)),
            Check("the value there equals the printed (eps e r/n)^n", "result", "close", at_star,
                  float(printed.ndim_optimum(ev, rv, n, NUMPY))),
        ),
        explanation="Holds (calculus): the log of e^{a eps}(r/a)^n is convex in a with minimum at "
                    "a = n/eps, value (eps e r/n)^n. (The bound itself needs the ball of radius a "
                    "around each point of X' inside the domain.)",
    )
