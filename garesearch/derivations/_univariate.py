r"""Sec. 4.1, the univariate case: the comparison set :math:`\hat X'_a`, uniform and normal
priors, the worst-case prior (for ``q = 1`` and general ``q``) and discrete sets of priors."""

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
from ._posterior import correct_worst_prior_derivative, worst_prior_quadratic

p, q, delta, R, a, r, t, eps = sp.symbols("p q delta R a r t epsilon", positive=True)
x, u = sp.symbols("x u", real=True)


# ------------------------------------------------------------------------------------------
# The comparison set
# ------------------------------------------------------------------------------------------
@derivation
def comparison_set_distance() -> Derivation:
    r"""Sec. 4.1: :math:`\{x \mid \forall x' \in X'\colon d(x,x') \le a\} \setminus X' =
    \{x \mid r < d(x,t) \le a\}`, with ``a`` the distance in the exponent.

    Refuted.  On the real line with :math:`X' = [t-r, t+r]` and :math:`x = t + \rho`,
    :math:`|x - (t+u)| = \rho - u` is linear in :math:`u \in [-r, r]`, so its maximum is
    at :math:`u = -r`: :math:`\sup_{x' \in X'} d(x,x') = d(x,t) + r`.  Hence the left set is
    :math:`\{x : d(x,t) \le a - r\}\setminus X'` and the largest distance between
    :math:`\{r < d(x,t) \le a\}` and :math:`X'` is :math:`a + r`, not ``a``.
    """
    rho = sp.Symbol("rho", positive=True)
    dist = rho - u  # |x - x'| for x = t + rho, x' = t + u, u in [-r, r], rho > r
    require(sp.diff(dist, u) == -1, "distance decreases in u: maximum at u = -r")
    require_zero(dist.subs(u, -r) - (rho + r), "sup distance = d(x,t) + r")
    with workdps():
        tt, rr, aa = mp(0), mp(1), mp(2)
        xx, xp = tt + aa, tt - rr
        ce = {
            "t": tt, "r": rr, "a": aa, "x": xx, "x_prime": xp,
            "d(x,t)": abs(xx - tt), "d(x',t)": abs(xp - tt), "d(x,x')": abs(xx - xp),
        }
    require(ce["d(x,x')"] > aa, "counterexample exceeds a")
    statement = sp.Eq(sp.Symbol(r"\sup_{x \in \hat X'_a,\ x' \in X'} d(x,x')"), a)
    return Derivation(
        name="comparison_set_distance",
        location="Sec. 4.1 (univariate), definition of X-hat_a; used in Thm 1 and Sec. 6",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="X' = B(t, r) on the real line (any normed space behaves the same way)",
        counterexample=ce,
        detail="sup over x' in X' of d(x,x') is d(x,t) + r, so {x : for all x' in X', "
        "d(x,x') <= a} = {d(x,t) <= a - r}, and the largest distance between "
        "{r < d(x,t) <= a} and X' is a + r. Corrected: put a + r (the true largest distance) in "
        "the exponent of Eq. (main), or keep exponent a and use the set {r < d(x,t) <= a - r}.",
        summary="largest distance between X-hat_a and X' is a + r, not a",
        claims=("S4.1.Xhat_def",),
    )


@derivation
def uniform_prior() -> Derivation:
    r"""Sec. 4.1, uniform prior: :math:`\Pr[X'] = 2r/R` and :math:`g(a) = 2a/R`.

    Proof: with the prior uniform on an interval of length ``R`` and
    :math:`[t-a, t+a]` inside it, :math:`g(z) = \int_{t-z}^{t+z} dx/R = 2z/R` for
    :math:`z \le a`.  If ``t`` is closer than ``z`` to an end, :math:`g(z) < 2z/R`
    (at an end, :math:`z/R`).
    """
    z = sp.Symbol("z", positive=True)
    g = sp.integrate(1 / R, (x, t - z, t + z))
    require_zero(g - 2 * z / R, "g(z) = 2z/R")
    g_end = sp.integrate(1 / R, (x, 0, z))  # t at the end 0 of [0, R]
    require_zero(g_end - z / R, "g(z) = z/R at an end")
    statement = sp.And(sp.Eq(sp.Symbol(r"\Pr[X']"), 2 * r / R), sp.Eq(sp.Function("g")(a), 2 * a / R))
    return Derivation(
        name="uniform_prior",
        location="Sec. 4.1, Uniform distribution",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="prior uniform on an interval of length R, and [t-a, t+a] inside it (t at "
        "least a from both ends); otherwise g(z) < 2z/R (z/R at an end)",
        counterexample=None,
        detail="g(z) = integral of 1/R over [t-z, t+z] = 2z/R when the ball fits; at an end of "
        "the domain g(z) = z/R.",
        summary="uniform prior: Pr[X'] = 2r/R, g(a) = 2a/R when the ball of radius a fits",
        claims=("S4.1.uniform",),
    )


@derivation
def uniform_corner() -> Derivation:
    r"""Sec. 4.1, Fig. 1 corner case: take :math:`a' = 2a`, :math:`\Pr[X'] = 2r/R`,
    :math:`g(a') = a'/R`.

    Proof, for :math:`X' = [0, 2r]` touching the end 0 of the domain :math:`[0, R]`
    (``t = r``): :math:`\Pr[X'] = 2r/R`; the comparison set :math:`(2r, a']` has mass
    :math:`(a'-2r)/R`, so :math:`\Pr[X' \cup \hat X'] = a'/R` (this is what
    :math:`g(a')` must mean: the ball of radius :math:`a'` around ``t`` has mass
    :math:`(a'+r)/R`); the largest distance between :math:`X'` and :math:`(2r, a']` is
    :math:`a'`, so the exponent :math:`a'` is sound.  For an interior ``t`` the set
    :math:`\{r < d(x,t) \le a\}` is within :math:`a + r \le 2a` of :math:`X'`, so
    exponent :math:`a' = 2a` is sound there too.
    """
    ap = sp.Symbol("a'", positive=True)
    mass_X = sp.integrate(1 / R, (x, 0, 2 * r))
    mass_cmp = sp.integrate(1 / R, (x, 2 * r, ap))
    require_zero(mass_X - 2 * r / R, "Pr[X'] = 2r/R")
    require_zero(mass_X + mass_cmp - ap / R, "Pr[X' u X-hat] = a'/R")
    # largest distance between X' = [0, 2r] and (2r, a']: |x - x'| = x - x' is increasing in x
    # and decreasing in x', so the supremum is at x = a', x' = 0.
    require(sp.diff(x - u, x) == 1 and sp.diff(x - u, u) == -1, "monotone distance")
    require_zero((x - u).subs({x: ap, u: 0}) - ap, "largest distance = a'")
    require(sp.expand(2 * a - (a + r)).subs(r, a) == 0, "a + r <= 2a for r <= a")
    statement = sp.And(
        sp.Eq(sp.Symbol("a'"), 2 * a),
        sp.Eq(sp.Symbol(r"\Pr[X']"), 2 * r / R),
        sp.Eq(sp.Function("g")(ap), ap / R),
    )
    return Derivation(
        name="uniform_corner",
        location="Sec. 4.1, Uniform distribution, Fig. 1 (corner case)",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="X' = [0, 2r] touches the end of the domain [0, R] (t = r), comparison set "
        "(2r, a'], a' <= R; 'g(a')' read as Pr[X' u X-hat] (the ball of radius a' around t "
        "has mass (a'+r)/R); if instead t itself is at the end, Pr[X'] = r/R",
        counterexample=None,
        detail="Pr[X'] = 2r/R, Pr[X' u (2r, a']] = a'/R and the largest distance between "
        "X' and (2r, a'] is a', so the exponent a' is sound at the corner; for an interior t "
        "the exponent 2a also covers the true largest distance a + r of the paper's X-hat_a.",
        summary="corner: a' = 2a, Pr[X'] = 2r/R, Pr[X' u X-hat] = a'/R; exponent a' sound",
        claims=("S4.1.uniform_corner",),
    )


@derivation
def normal_R() -> Derivation:
    r"""Sec. 4.1: for :math:`N(\mu,\sigma^2)` take :math:`R = \mu + 3\sqrt2\sigma`, which
    covers :math:`\mathrm{erf}(3) \approx 0.9999779`.

    Refuted as a distance.  :math:`\int_{\mu-k\sqrt2\sigma}^{\mu+k\sqrt2\sigma}` of the normal
    density is :math:`\mathrm{erf}(k)` (sympy), so the interval :math:`\mu \pm 3\sqrt2\sigma`
    (radius :math:`3\sqrt2\sigma`, diameter :math:`6\sqrt2\sigma`) has mass
    :math:`\mathrm{erf}(3) = 0.99997791`; :math:`\mu + 3\sqrt2\sigma` is its upper end (a
    location), not a distance, and it differs from one unless :math:`\mu = 0`.
    """
    mu = sp.Symbol("mu", real=True)
    sigma, k = sp.symbols("sigma k", positive=True)
    dens = sp.exp(-((x - mu) ** 2) / (2 * sigma**2)) / (sigma * sp.sqrt(2 * sp.pi))
    mass = sp.integrate(dens.subs(x, mu + sp.sqrt(2) * sigma * u) * sp.sqrt(2) * sigma, (u, -k, k))
    require_zero(mass - sp.erf(k), "mass of mu +- k sqrt2 sigma = erf(k)")
    with workdps():
        m_, s_ = mp(2000), mp("235.7")
        radius = 3 * mpmath.sqrt(2) * s_
        ce = {
            "mu": m_, "sigma": s_, "paper_R": m_ + radius, "radius": radius,
            "diameter": 2 * radius, "coverage": mpmath.erf(3),
        }
    require(abs(ce["coverage"] - mp("0.9999779")) < mp("1e-7"), "erf(3) ~ 0.9999779")
    statement = sp.Eq(R, mu + 3 * sp.sqrt(2) * sigma)
    return Derivation(
        name="normal_R",
        location="Sec. 4.1, Distributions with well-defined CDF",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="prior N(mu, sigma^2)",
        counterexample=ce,
        detail="The interval mu +- 3 sqrt2 sigma has mass erf(3) = 0.9999779095 (the paper's "
        "number is right), but mu + 3 sqrt2 sigma is its upper end, not a distance. Corrected: "
        "radius 3 sqrt2 sigma around mu (largest distance between two of its points 6 sqrt2 "
        "sigma); for mu = 2000, sigma = 235.7 the paper's R is 3000 while the radius is 1000.",
        summary="R = mu + 3 sqrt2 sigma is a location; the radius is 3 sqrt2 sigma (mass erf(3))",
        claims=("S4.1.normal_R",),
    )


# ------------------------------------------------------------------------------------------
# The worst prior
# ------------------------------------------------------------------------------------------
def f_q1(prior, d, distance=1):
    r"""Sec. 4.1: :math:`f(p) = -\ln(\frac{p}{1-p}(\frac{1}{\delta+p}-1))/R`."""
    return -sp.log(prior / (1 - prior) * (1 / (d + prior) - 1)) / distance


def f_general(prior, d, qq, distance=1):
    r""":math:`f` with :math:`1-p` replaced by :math:`q-p` (``q`` = :math:`g(a)`)."""
    return -sp.log(prior / (qq - prior) * (1 / (d + prior) - 1)) / distance


def _mp_f(prior, d, qq=1, distance=1):
    return -mpmath.log(prior / (qq - prior) * (1 / (d + prior) - 1)) / distance


@derivation
def worst_prior_q1_derivative() -> Derivation:
    r"""Sec. 4.1: :math:`\frac{df}{dp} = \left(\frac{1}{(p+\delta)-(p+\delta)^2} -
    \frac{1}{(1-p)-(1-p)^2}\right)\frac1R`, zero at :math:`p = (1-\delta)/2`.

    Proof: the difference to ``sympy.diff`` cancels; the numerator of the paper's
    expression is :math:`p(1-p) - (p+\delta)(1-p-\delta) = -\delta(1-\delta-2p)`, which
    vanishes only at :math:`(1-\delta)/2`, is negative before and positive after.
    """
    f = f_q1(p, delta, R)
    paper = (1 / ((p + delta) - (p + delta) ** 2) - 1 / ((1 - p) - (1 - p) ** 2)) / R
    require_zero(sp.diff(f, p) - paper, "df/dp as printed")
    require_zero(
        sp.expand(p * (1 - p) - (p + delta) * (1 - p - delta)) + delta * (1 - delta - 2 * p),
        "numerator = -delta (1 - delta - 2p)",
    )
    require_zero(paper.subs(p, (1 - delta) / 2), "zero at (1-delta)/2")
    statement = sp.Eq(sp.Derivative(sp.Function("f")(p), p), paper)
    return Derivation(
        name="worst_prior_q1_derivative",
        location="Sec. 4.1, The worst prior probability, df/dp",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="0 < p < 1 - delta",
        counterexample=None,
        detail="d/dp of f equals the printed expression; its numerator is "
        "-delta(1 - delta - 2p): f decreases on (0, (1-delta)/2) and increases after.",
        summary="df/dp as printed; single zero at p = (1-delta)/2",
        claims=("S4.1.worst_dfdp",),
    )


@derivation
def worst_prior_q1_critical_point() -> Derivation:
    r"""Sec. 4.1: "find p that maximizes :math:`\epsilon = f(p)`"; the critical point is
    :math:`(1-\delta)/2`.

    Refuted: the critical point is right but it is the global MINIMUM of ``f`` on
    :math:`(0, 1-\delta)` (``f`` tends to :math:`+\infty` at both ends; the second
    derivative there is :math:`32\delta/((1-\delta^2)^2 R) > 0`).  The minimum epsilon is
    the one that needs the most noise, so the worst prior is right; only "maximizes" is
    wrong.  Minimum value: :math:`2\ln\frac{1+\delta}{1-\delta}/R = 4\,\mathrm{artanh}
    (\delta)/R`.
    """
    f = f_q1(p, delta, R)
    p0 = (1 - delta) / 2
    second = sp.cancel(sp.diff(f, p, 2).subs(p, p0))
    require_zero(second - 32 * delta / ((1 - delta**2) ** 2 * R), "f''((1-delta)/2)")
    require_zero(sp.exp(R * f.subs(p, p0)) - ((1 + delta) / (1 - delta)) ** 2, "f((1-delta)/2)")
    num, den = sp.fraction(sp.cancel(sp.exp(R * f)))
    require(sp.expand(num.subs(p, 0)) != 0 and sp.expand(den.subs(p, 0)) == 0, "f -> oo at 0")
    require(sp.expand(num.subs(p, 1 - delta)) != 0 and sp.expand(den.subs(p, 1 - delta)) == 0,
            "f -> oo at 1 - delta")
    with workdps():
        d = mp("0.1")
        ce = {
            "delta": d, "R": mp(1), "p_critical": (1 - d) / 2,
            "f(p_critical)": _mp_f((1 - d) / 2, d), "p_other": mp("0.2"),
            "f(p_other)": _mp_f(mp("0.2"), d),
        }
    require(ce["f(p_other)"] > ce["f(p_critical)"], "f is larger elsewhere: not a maximum")
    statement = sp.Eq(sp.Symbol(r"\arg\max_p f(p)"), p0)
    return Derivation(
        name="worst_prior_q1_critical_point",
        location="Sec. 4.1, The worst prior probability, critical point",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="q = 1, 0 < p < 1 - delta",
        counterexample=ce,
        detail="p = (1-delta)/2 MINIMISES eps = f(p) (f'' = 32 delta/((1-delta^2)^2 R) > 0, "
        "f -> +inf at both ends); the smallest epsilon is the worst case (most noise). "
        "Corrected: 'find p that minimises eps'; min eps = 2 ln((1+delta)/(1-delta))/R.",
        summary="(1-delta)/2 minimises eps (the paper says maximises)",
        claims=("S4.1.worst_crit",),
    )


@derivation
def worst_prior_q1_sufficient() -> Derivation:
    r"""Sec. 4.1: "in practice it is fine to consider only the case q = 1": the epsilon at
    :math:`p = (1-\delta)/2`, ``a = R`` is sufficient for every prior.

    Proof: for every ``p``, :math:`f(p) \ge f((1-\delta)/2)` (global minimum, see
    :func:`worst_prior_q1_critical_point`), and the posterior bound increases in epsilon
    (:func:`garesearch.derivations.eps_lb_sec32`), so the bound at the smaller epsilon is
    at most :math:`p + \delta`.  Needs ``R`` to bound every distance (comparison set = the
    rest of the space).
    """
    f = f_q1(p, delta, R)
    p0 = (1 - delta) / 2
    # exp(R (f(p) - f(p0))) = N / D with N - D = delta (1 - delta - 2p)^2 >= 0
    N = (1 - p) * (p + delta) * (1 - delta) ** 2
    D = p * (1 - p - delta) * (1 + delta) ** 2
    require_zero(sp.exp(R * f) / sp.exp(R * f.subs(p, p0)) - N / D, "ratio")
    require_zero(sp.expand(N - D) - sp.expand(delta * (1 - delta - 2 * p) ** 2), "N - D")
    require_zero(sp.exp(R * f.subs(p, p0)) - ((1 + delta) / (1 - delta)) ** 2, "f(p0)")
    statement = sp.Ge(f, 2 * sp.log((1 + delta) / (1 - delta)) / R)
    return Derivation(
        name="worst_prior_q1_sufficient",
        location="Sec. 4.1, general q, 'it is fine to consider only the case q = 1'",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="R bounds the distance between every point of X' and every other point of "
        "the space (so the comparison set may be all of X \\ X')",
        counterexample=None,
        detail="exp(R(f(p) - f(p0))) = N/D with N - D = delta(1-delta-2p)^2 >= 0, so "
        "f(p) >= f((1-delta)/2) for all p, and the posterior bound increases in eps, so "
        "eps = 2 ln((1+delta)/(1-delta))/R keeps Post[X'] <= p + delta for every prior.",
        summary="eps at p = (1-delta)/2, a = R (q = 1) is sufficient for every prior",
        claims=("S4.1.q_practice",),
    )


@derivation
def worst_prior_general_q_derivative() -> Derivation:
    r"""Sec. 4.1, general ``q``: :math:`\frac{df}{dp} = \left(\frac{1}{(p+\delta)-(p+\delta)^2}
    - \frac{1}{(q-p)-(q-p)^2}\right)\frac1R`.

    Refuted: with :math:`1-p` replaced by :math:`q-p` in ``f``,
    :math:`R f = \ln\frac{(q-p)(p+\delta)}{p(1-p-\delta)}` and
    :math:`R\,df/dp = -\frac{1}{q-p} - \frac1p + \frac{1}{p+\delta} + \frac{1}{1-p-\delta}`
    (``sympy.diff``); the printed expression substitutes :math:`q-p` into both factors of
    :math:`p(1-p)`, which is only right at ``q = 1``.
    """
    f = f_general(p, delta, q, R)
    correct = correct_worst_prior_derivative(p, delta, q) / R
    paper = (1 / ((p + delta) - (p + delta) ** 2) - 1 / ((q - p) - (q - p) ** 2)) / R
    require_zero(sp.diff(f, p) - correct, "correct df/dp")
    require_zero((paper - correct).subs(q, 1), "printed = correct at q = 1")
    with workdps():
        pp, d, qq = mp("0.5"), mp("0.3"), mp("0.8")
        ce = {
            "p": pp, "delta": d, "q": qq, "R": mp(1),
            "paper_df_dp": 1 / ((pp + d) - (pp + d) ** 2) - 1 / ((qq - pp) - (qq - pp) ** 2),
            "correct_df_dp": -1 / (qq - pp) - 1 / pp + 1 / (pp + d) + 1 / (1 - pp - d),
        }
    require(abs(ce["paper_df_dp"] - ce["correct_df_dp"]) > mp("0.1"), "the two differ")
    statement = sp.Eq(sp.Derivative(sp.Function("f")(p), p), paper)
    return Derivation(
        name="worst_prior_general_q_derivative",
        location="Sec. 4.1, The worst prior probability, general q, df/dp",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="0 < p < min(q, 1 - delta)",
        counterexample=ce,
        detail="Corrected: R df/dp = -1/(q-p) - 1/p + 1/(p+delta) + 1/(1-p-delta) "
        "= Q(p)/(p(q-p)(p+delta)(1-p-delta)), Q(p) = (q-1)p^2 + 2q delta p - q delta(1-delta). "
        "The printed form is right only at q = 1.",
        summary="general-q df/dp is wrong; correct: -1/(q-p) - 1/p + 1/(p+delta) + 1/(1-p-delta)",
        claims=("S4.1.q_dfdp",),
    )


def correct_worst_prior(d, qq):
    r""":math:`p^* = q\delta(1-\delta)/(q\delta + \sqrt{q\delta(q+\delta-1)})` (symbolic)."""
    return qq * d * (1 - d) / (qq * d + sp.sqrt(qq * d * (qq + d - 1)))


@derivation
def worst_prior_general_q() -> Derivation:
    r"""The corrected worst prior for general ``q``:
    :math:`p^* = \frac{q\delta(1-\delta)}{q\delta + \sqrt{q\delta(q+\delta-1)}}`, the global
    minimum of ``f`` on :math:`(0, 1-\delta)`, which exists iff :math:`q + \delta > 1`.

    Proof.  ``df/dp`` has the sign of :math:`Q(p) = (q-1)p^2 + 2q\delta p - q\delta(1-\delta)`
    (denominator positive).  :math:`Q(0) = -q\delta(1-\delta) < 0` and
    :math:`Q(1-\delta) = (1-\delta)(q+\delta-1)`: if :math:`q+\delta > 1` (then the domain
    is :math:`(0, 1-\delta)`) ``Q`` changes sign once, from - to +, so ``f`` has a single
    critical point, a minimum; :math:`Q(p^*) = 0` (numerator expands to 0).  There
    :math:`f > 0`, since :math:`(q-p)(p+\delta) - p(1-p-\delta) = q\delta - p(1-q)` and
    :math:`q\delta - (1-\delta)(1-q) = q+\delta-1 > 0`.  If :math:`q+\delta \le 1`, the
    maximum of ``Q`` is :math:`q\delta(q+\delta-1)/(1-q) \le 0`: ``f`` decreases and
    crosses 0 at :math:`p = q\delta/(1-q)`, so no worst prior with :math:`\epsilon > 0`.
    """
    Q = worst_prior_quadratic(p, delta, q)
    require_zero(Q.subs(p, 0) + q * delta * (1 - delta), "Q(0)")
    require_zero(sp.expand(Q.subs(p, 1 - delta)) - sp.expand((1 - delta) * (q + delta - 1)), "Q(1-delta)")
    num, _ = sp.fraction(sp.together(Q.subs(p, correct_worst_prior(delta, q))))
    require(sp.expand(num) == 0, "Q(p*) = 0")
    require_zero(sp.expand((q - p) * (p + delta) - p * (1 - p - delta)) - (q * delta - p * (1 - q)), "f > 0")
    vertex = q * delta / (1 - q)
    require_zero(Q.subs(p, vertex) - q * delta * (q + delta - 1) / (1 - q), "max of Q")
    require_zero(correct_worst_prior(delta, q).subs(q, 1) - (1 - delta) / 2, "q = 1")
    with workdps():
        d, qq = mp("0.3"), mp("0.8")
        pstar = qq * d * (1 - d) / (qq * d + mpmath.sqrt(qq * d * (qq + d - 1)))
        example = {"delta": d, "q": qq, "p_star": pstar, "f(p_star)": _mp_f(pstar, d, qq)}
    statement = sp.Eq(sp.Symbol("p^*"), correct_worst_prior(delta, q))
    return Derivation(
        name="worst_prior_general_q",
        location="Sec. 4.1, The worst prior probability, general q (corrected)",
        statement=statement,
        latex=latex(statement),
        status=PROVED_UNDER_CONDITIONS,
        conditions="q + delta > 1 (q = g(a) = Pr[X' u X-hat]); for q + delta <= 1 eps "
        "reaches 0 at p = q delta/(1-q) and no prior-independent eps > 0 exists",
        counterexample=None,
        detail=f"Q(p) = (q-1)p^2 + 2q delta p - q delta(1-delta) changes sign once on "
        f"(0, 1-delta), from - to +: p* is the global minimum of eps. Example delta = 0.3, "
        f"q = 0.8: p* = {mpmath.nstr(example['p_star'], 10)}, "
        f"eps = {mpmath.nstr(example['f(p_star)'], 10)}/a.",
        summary="p* = q delta(1-delta)/(q delta + sqrt(q delta(q+delta-1))), iff q + delta > 1",
        claims=("S4.1.q_crit",),
    )


@derivation
def worst_prior_general_q_paper_point() -> Derivation:
    r"""Sec. 4.1: the printed critical point
    :math:`p = \frac{\delta(1-\delta)+q(1-q)}{2(\delta+q-1)}` for general ``q``.

    Refuted.  It solves neither derivative.  The printed (wrong) derivative vanishes where
    :math:`(p+\delta)(1-p-\delta) = (q-p)(1-q+p)`, i.e. :math:`(2p+\delta-q)(1-\delta-q) = 0`,
    :math:`p = (q-\delta)/2 = \frac{\delta(1-\delta) - q(1-q)}{2(\delta+q-1)}`: the printed
    formula has ``+`` where its own derivation gives ``-`` (a sign error).  The correct
    critical point is :func:`worst_prior_general_q`.
    """
    paper_p = (delta * (1 - delta) + q * (1 - q)) / (2 * (delta + q - 1))
    own_root = (delta * (1 - delta) - q * (1 - q)) / (2 * (delta + q - 1))
    require_zero(own_root - (q - delta) / 2, "root of the printed derivative = (q-delta)/2")
    lhs = (p + delta) * (1 - p - delta) - (q - p) * (1 - q + p)
    require_zero(sp.expand(lhs - (2 * p + delta - q) * (1 - delta - q)), "factorisation")
    with workdps():
        d, qq = mp("0.2"), mp("0.95")
        pp = (d * (1 - d) + qq * (1 - qq)) / (2 * (d + qq - 1))
        pstar = qq * d * (1 - d) / (qq * d + mpmath.sqrt(qq * d * (qq + d - 1)))
        ce = {
            "delta": d, "q": qq, "paper_p": pp,
            "paper_df_dp_at_paper_p": 1 / ((pp + d) - (pp + d) ** 2) - 1 / ((qq - pp) - (qq - pp) ** 2),
            "correct_df_dp_at_paper_p": -1 / (qq - pp) - 1 / pp + 1 / (pp + d) + 1 / (1 - pp - d),
            "root_of_paper_df_dp": (qq - d) / 2,
            "correct_p_star": pstar,
            "f(paper_p)": _mp_f(pp, d, qq),
            "f(p_star)": _mp_f(pstar, d, qq),
        }
        far = {"delta": mp("0.3"), "q": mp("0.8"), "paper_p": (mp("0.21") + mp("0.16")) / mp("0.2")}
        ce["out_of_range_example"] = far
    require(abs(ce["paper_df_dp_at_paper_p"]) > mp("0.1"), "not a zero of the printed df/dp")
    require(abs(ce["correct_df_dp_at_paper_p"]) > mp("0.1"), "not a zero of the correct df/dp")
    statement = sp.Eq(sp.Symbol(r"p_{crit}"), paper_p)
    return Derivation(
        name="worst_prior_general_q_paper_point",
        location="Sec. 4.1, The worst prior probability, general q, critical point",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="q + delta > 1",
        counterexample=ce,
        detail="The printed point is not a zero of the printed df/dp (whose zero is "
        "(q-delta)/2 = (delta(1-delta) - q(1-q))/(2(delta+q-1)): sign error) nor of the correct "
        "one; at delta = 0.3, q = 0.8 it is 1.85, not a probability. Corrected: "
        "p* = q delta(1-delta)/(q delta + sqrt(q delta(q+delta-1))).",
        summary="printed general-q critical point solves neither derivative (sign error)",
        claims=("S4.1.q_crit",),
    )


# ------------------------------------------------------------------------------------------
# Discrete sets of priors
# ------------------------------------------------------------------------------------------
def _mp_eps_two_sided(prior, d):
    lb = _mp_f(prior, d) if prior + d < 1 else mpmath.inf
    ub = _mp_f(1 - prior, d) if prior > d else mpmath.inf
    return min(lb, ub)


def _mp_advantage_upper(prior, e):
    return prior / (prior + (1 - prior) * mpmath.exp(-e)) - prior


@derivation
def discrete_worst_prior() -> Derivation:
    r"""Sec. 4.1, discrete priors: "the worst case is :math:`p' = 1/(1+e^{-\epsilon/2})`".

    Refuted (sign).  At fixed epsilon the upper advantage
    :math:`A(p) = p/(p + (1-p)k) - p`, :math:`k = e^{-\epsilon}`, has
    :math:`A'(p) = k/(p+(1-p)k)^2 - 1`, zero at :math:`p = \sqrt k/(1+\sqrt k) =
    1/(1+e^{\epsilon/2})`, with :math:`A'' = -2k(1-k)/(p+(1-p)k)^3 < 0` (a maximum); the
    maximal advantage is :math:`(1-\sqrt k)/(1+\sqrt k) = \tanh(\epsilon/4)`.  With
    :math:`\delta = \tanh(\epsilon/4)` this is :math:`(1-\delta)/2`, the worst prior of the
    previous paragraph.  The printed :math:`1/(1+e^{-\epsilon/2})` is its mirror
    :math:`(1+\delta)/2`, the worst prior of the lower side only.  (Also, ``f`` has a
    minimum, not a maximum, there.)
    """
    s = sp.Symbol("s", positive=True)  # s = sqrt(k) = exp(-epsilon/2) in (0, 1)
    k = s**2
    A = p / (p + (1 - p) * k) - p
    pc = s / (1 + s)
    require_zero(sp.diff(A, p).subs(p, pc), "A'(p_c) = 0")
    require_zero(sp.diff(A, p, 2) + 2 * k * (1 - k) / (p + (1 - p) * k) ** 3, "A''")
    require_zero(A.subs(p, pc) - (1 - s) / (1 + s), "max advantage = tanh(eps/4)")
    require_zero(pc.subs(s, (1 - delta) / (1 + delta)) - (1 - delta) / 2, "p_c = (1-delta)/2")
    require_zero(sp.tanh(eps / 4).rewrite(sp.exp).subs(eps, -2 * sp.log(s)) - (1 - s) / (1 + s), "tanh")
    with workdps():
        e = mp(1)
        paper = 1 / (1 + mpmath.exp(-e / 2))
        right = 1 / (1 + mpmath.exp(e / 2))
        ce = {
            "epsilon": e, "paper_p": paper, "advantage_at_paper_p": _mp_advantage_upper(paper, e),
            "correct_p": right, "advantage_at_correct_p": _mp_advantage_upper(right, e),
            "tanh(eps/4)": mpmath.tanh(e / 4),
        }
    require(ce["advantage_at_correct_p"] > ce["advantage_at_paper_p"], "paper p' is not the max")
    statement = sp.Eq(sp.Symbol("p'"), 1 / (1 + sp.exp(-eps / 2)))
    return Derivation(
        name="discrete_worst_prior",
        location="Sec. 4.1, A discrete set of prior probabilities",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="upper side (Post[X'] <= p + delta), q = 1",
        counterexample=ce,
        detail="The advantage at fixed eps is maximal at p = 1/(1+e^{eps/2}) = (1-delta)/2 with "
        "delta = tanh(eps/4); the printed 1/(1+e^{-eps/2}) = (1+delta)/2 is the worst prior of the "
        "lower side only. Also f(p) has a minimum (not a maximum) there.",
        summary="worst p at fixed eps is 1/(1+e^{eps/2}) = (1-delta)/2 (sign error in paper)",
        claims=("S4.1.discrete_pprime",),
    )


@derivation
def discrete_two_nearest() -> Derivation:
    r"""Sec. 4.1: "the values :math:`p_l`, :math:`p_r` closest to :math:`p'` from the left
    and right are the worst cases; it suffices to compute epsilon for these two".

    True for :math:`\epsilon_{lb}` alone: its derivative has the sign of
    :math:`-\delta(1-\delta-2p)` (:func:`worst_prior_q1_derivative`), so it decreases then
    increases and its minimum over a finite set is at a neighbour of :math:`(1-\delta)/2`.
    Refuted for the two-sided :math:`\min(\epsilon_{lb}, \epsilon_{ub})` that Def. 7 needs:
    by :func:`lb_ub_binding_sec32` it is :math:`\epsilon_{lb}` on :math:`(0, 1/2]` and
    :math:`\epsilon_{ub}(p) = \epsilon_{lb}(1-p)` on :math:`[1/2, 1)`, with two minima, at
    :math:`(1-\delta)/2` and :math:`(1+\delta)/2` (same value) and a local maximum at 1/2.
    Corrected: check the neighbours of both :math:`(1-\delta)/2` and :math:`(1+\delta)/2`
    (at most four values).
    """
    f = f_q1(p, delta)
    require_zero(
        sp.cancel(sp.diff(f, p) * p * (1 - p) * (p + delta) * (1 - p - delta))
        + delta * (1 - delta - 2 * p),
        "sign of d eps_lb/dp",
    )
    require_zero(f.subs(p, (1 - delta) / 2) - f_q1(1 - (1 + delta) / 2, delta), "equal minima")
    with workdps():
        d = mp("0.1")
        cats = [mp(v) for v in ("0.525", "0.55", "0.6", "0.625", "0.7")]
        eps_cats = {mpmath.nstr(v, 4): _mp_eps_two_sided(v, d) for v in cats}
        nearest = min(cats, key=lambda v: abs(v - (1 - d) / 2))
        worst = min(cats, key=lambda v: _mp_eps_two_sided(v, d))
        other = [mp(v) for v in ("0.3", "0.46", "0.5", "0.6")]
        eps_other = {mpmath.nstr(v, 4): _mp_eps_two_sided(v, d) for v in other}
        worst_other = min(other, key=lambda v: _mp_eps_two_sided(v, d))
        ce = {
            "delta": d,
            "set": cats,
            "eps_two_sided": eps_cats,
            "neighbours_of_(1-delta)/2": [nearest],
            "eps_at_neighbour": _mp_eps_two_sided(nearest, d),
            "true_worst": worst,
            "eps_at_true_worst": _mp_eps_two_sided(worst, d),
            "second_set": other,
            "eps_two_sided_second_set": eps_other,
            "neighbours_of_(1+delta)/2_in_second_set": [mp("0.5"), mp("0.6")],
            "true_worst_second_set": worst_other,
        }
        require(worst != nearest and ce["eps_at_true_worst"] < ce["eps_at_neighbour"], "cats")
        require(worst_other == mp("0.46"), "second set: worst is 0.46, not a neighbour of 0.55")
    statement = sp.Eq(
        sp.Symbol(r"\min_{p \in S}\min(\epsilon_{lb},\epsilon_{ub})"),
        sp.Symbol(r"\min_{p \in \{p_l, p_r\}}\min(\epsilon_{lb},\epsilon_{ub})"),
    )
    return Derivation(
        name="discrete_two_nearest",
        location="Sec. 4.1, A discrete set of prior probabilities; Sec. 6.1 OR-event",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="two-sided guessing advantage (Def. 7); true for eps_lb alone",
        counterexample=ce,
        detail="min(eps_lb, eps_ub) has two minima, at (1-delta)/2 and (1+delta)/2. In the "
        "cats OR set {0.525, 0.55, 0.6, 0.625, 0.7} with delta = 0.1 the neighbour of 0.45 is "
        "0.525 (eps 0.40236) but the worst is 0.55 (eps 0.40134); in {0.3, 0.46, 0.5, 0.6} "
        "the neighbours of 0.55 are 0.5 and 0.6 (eps 0.40547) but the worst is 0.46 "
        "(eps 0.40150). Corrected: neighbours of both (1-delta)/2 and (1+delta)/2.",
        summary="two nearest values suffice for eps_lb only; two-sided needs both worst priors",
        claims=("S4.1.discrete_two_nearest", "S6.cats_OR_worst"),
    )
