r"""Sec. 4.1, the univariate case: the comparison set :math:`\hat X'_a`, uniform priors
(and the corner case of Fig. 1), normal priors; the derivations and the claims side by side."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from .. import priors
from ._claim import Check, Evidence, claim, largest_distance
from ._proof import (
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
from .examples import SALARY, soundness_counterexample

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

    Examples
    --------
    >>> comparison_set_distance().status
    'refuted'
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
    )


@derivation
def uniform_prior() -> Derivation:
    r"""Sec. 4.1, uniform prior: :math:`\Pr[X'] = 2r/R` and :math:`g(a) = 2a/R`.

    Proof: with the prior uniform on an interval of length ``R`` and
    :math:`[t-a, t+a]` inside it, :math:`g(z) = \int_{t-z}^{t+z} dx/R = 2z/R` for
    :math:`z \le a`.  If ``t`` is closer than ``z`` to an end, :math:`g(z) < 2z/R`
    (at an end, :math:`z/R`).

    Examples
    --------
    >>> uniform_prior().status
    'proved under conditions'
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

    Examples
    --------
    >>> uniform_corner().status
    'proved under conditions'
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

    Examples
    --------
    >>> normal_R().status
    'refuted'
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
    )


# ------------------------------------------------------------------------------------------
# The claims
# ------------------------------------------------------------------------------------------
@claim('S4.1.Xhat_def', location='Sec 4.1 (univariate), def. of X_hat_a; used in Thm 1, Sec 6',
       statement="X_hat_a = {x | forall x' in X': d(x,x')<=a} \\ X' = {x | r < d(x,t) <= a};  Pr = g(a)-g(r), exponent a",
       derivations={'comparison_set_distance': 'result'})
def _s41_xhat():
    t, r, a = 0.0, 1.0, 3.0
    xs = np.linspace(-6, 6, 12001)
    inside = np.abs(xs - t) <= r
    # {x | forall x' in X': |x - x'| <= a}: the largest distance from x to X' is |x-t| + r
    far = np.abs(xs - t) + r
    all_within = xs[(far <= a + 1e-12) & ~inside]
    paper_set = xs[(np.abs(xs - t) > r) & (np.abs(xs - t) <= a)]
    dist = max(largest_distance(t - r, t + r, -a, -r), largest_distance(t - r, t + r, r, a))
    ce = soundness_counterexample()
    return Evidence(
        paper="X_hat_a = {x | forall x' in X': d(x,x')<=a} \\ X' = {x | r < d(x,t) <= a}; exponent a",
        computed=(
            f"largest distance between X' and {{r < d(x,t) <= a}} = a + r = {dist:g} "
            f"(t=0, r=1, a=3); the first set is {{d(x,t) <= a - r}}; counterexample: posterior "
            f"{ce['posterior']:.4f} > p + delta = {ce['bound']:.4f}"
        ),
        checks=(
            Check("largest |x| in {x not in X' | all of X' within a} equals a - r", "result",
                  "close", float(np.max(np.abs(all_within))), a - r),
            Check("largest |x| in the paper's {r < |x - t| <= a} equals a", "result", "close",
                  float(np.max(np.abs(paper_set))), a),
            Check("the two sets are equal (largest distance to X' = a)", "result", "close",
                  dist, a),
            Check("exact posterior of a Laplace mechanism at the paper's eps <= p + delta",
                  "result", "le", ce["posterior"], ce["bound"]),
        ),
        explanation=(
            "Wrong: for X' = [t-r, t+r] the points within distance a of every point of X' "
            "are {d(x,t) <= a - r}, while {r < d(x,t) <= a} reaches distance a + r from X'. "
            "Eq. (main) with exponent a is then not a bound: "
            f"{ce['what']} has posterior {ce['posterior']:.4f} above p + delta = "
            f"{ce['bound']:.4f}. Correct: keep X_hat = {{r < d(x,t) <= a}} and put a + r in "
            "the exponent (garesearch's construction='sound'), or keep exponent a and use "
            "X_hat = {r < d(x,t) <= a - r}."
        ),
    )


@claim('S4.1.uniform', location='Sec 4.1, Uniform distribution',
       statement="Pr[X'] = 2r/R, g(a) = 2a/R (R = length of the domain)",
       derivations={'uniform_prior': 'result'})
def _s41_uniform():
    R = 10.0
    U = priors.Uniform(0.0, R)
    t, r, a = 5.0, 1.0, 3.0
    p, g = U.ball_mass(t, r), U.ball_mass(t, a)
    corner = U.ball_mass(0.5, r)
    return Evidence(
        paper="Pr[X'] = 2r/R, g(a) = 2a/R (R = length of the domain)",
        computed=f"Uniform(0, 10), t = 5: Pr[X'] = {p:g}, g(3) = {g:g}; at t = 0.5: Pr[X'] = {corner:g}",
        checks=(
            Check("interior t: Pr[|X - t| <= r] = 2r/R", "result", "close", p, 2 * r / R),
            Check("interior t: g(a) = 2a/R", "result", "close", g, 2 * a / R),
        ),
        explanation=(
            "Holds for a true value whose ball of radius a lies inside the domain (R = the "
            "domain's length, which is also the largest distance). Near an end the masses are "
            f"smaller (t = 0.5, r = 1 on [0, 10]: {corner:g} instead of 0.2); the paper "
            "treats that corner case next (S4.1.uniform_corner)."
        ),
    )


@claim('S4.1.uniform_corner', location='Sec 4.1, Uniform, Fig. 1 corner case',
       statement="distance up to 2a; take a'=2a, Pr[X']=2r/R, g(a')=a'/R",
       derivations={'uniform_corner': 'result'})
def _s41_uniform_corner():
    R, r, a = 10.0, 1.0, 3.0
    U = priors.Uniform(0.0, R)
    t = r  # X' = [0, 2r] touches the end of the domain
    lo, hi = t - r, t + r
    p = float(U.mass(lo, hi))
    a2 = 2 * a
    comp_lo, comp_hi = hi, a2  # the comparison set (2r, 2a], all on one side
    q = float(U.mass(comp_lo, comp_hi))
    dist = largest_distance(lo, hi, comp_lo, comp_hi)
    whole = float(U.mass(0.0, a2))
    return Evidence(
        paper="distance up to 2a; take a'=2a, Pr[X']=2r/R, g(a')=a'/R",
        computed=f"X' = [0, 2r], X_hat = (2r, 2a]: largest distance {dist:g} = a'; Pr[X'] = {p:g}, Pr[X' u X_hat] = {whole:g}",
        checks=(
            Check("largest distance between X' = [0,2r] and X_hat = (2r, 2a] equals a' = 2a",
                  "result", "close", dist, a2),
            Check("Pr[X'] = 2r/R", "result", "close", p, 2 * r / R),
            Check("Pr[X' u X_hat] = a'/R", "result", "close", whole, a2 / R),
            Check("Pr[X_hat] = (a' - 2r)/R", "result", "close", q, (a2 - 2 * r) / R),
        ),
        explanation=(
            "Holds: with X' = [0, 2r] at the end of the domain, the comparison set of mass "
            "2(a - r)/R must lie on one side, (2r, 2a], whose largest distance to X' is 2a = a'. "
            "With exponent a', Pr[X'] = 2r/R and Pr[X' u X_hat] = a'/R (so Pr[X_hat] = "
            "(a' - 2r)/R) the bound is sound. (Here 'g(a')' is the mass of X' u X_hat, not "
            "g_t(a') = Pr[|X - t| <= a'].)"
        ),
    )


@claim('S4.1.normal_R', location='Sec 4.1, CDF paragraph',
       statement='R = mu + 3*sqrt(2)*sigma covers erf(3) ~ 0.9999779',
       derivations={'normal_R': 'printed'})
def _s41_normal_r():
    mu, sigma = SALARY["mu"], math.sqrt(SALARY["variance"])
    N = priors.Normal(mu, sigma)
    radius = 3 * math.sqrt(2) * sigma
    cover = float(N.mass_mp(mu - radius, mu + radius))
    erf3 = float(mpmath.erf(3))
    printed_R = mu + radius
    return Evidence(
        paper=0.9999779,
        computed=cover,
        checks=(
            Check("erf(3) to the printed 7 decimals", "result", "approx", erf3, 0.9999779, 7),
            Check("Pr[|X - mu| <= 3 sqrt2 sigma] to 7 decimals", "result", "approx", cover,
                  0.9999779, 7),
            Check("printed R = mu + 3 sqrt2 sigma equals the radius 3 sqrt2 sigma (salary: "
                  "mu = 2000)", "printed", "close", printed_R, radius),
        ),
        explanation=(
            "erf(3) = 0.99997791 is the mass within 3*sqrt(2)*sigma of mu: what the distribution "
            "gives is the interval mu +- 3*sqrt(2)*sigma, of radius 3*sqrt(2)*sigma (1000 for the "
            "salaries; two of its points are up to 6*sqrt(2)*sigma = 2000 apart), while R bounds "
            "a distance; the printed R = mu + 3*sqrt(2)*sigma (3000) is the interval's upper end, "
            "a location (negative for mu < -3*sqrt(2)*sigma). The paper's own examples use the interval "
            "mu +- 3*sqrt(2)*sigma ((1000, 3000) and (-150, 150)), so the result stands and the "
            "printed expression is the slip. Cutting the prior there is also not a bound "
            "for the lower side (Post >= p - delta): the tails beyond R still move the "
            "posterior; garesearch bounds that side with the prior's full tails."
        ),
    )
