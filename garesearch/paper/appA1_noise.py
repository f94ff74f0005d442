r"""App. A.1: the noise masses (Laplace, generalised Cauchy) and the change of variables;
and, "one formula, defined once", the backend-generic formulas of :mod:`garesearch.noise`
evaluated with the sympy backend are the integrals they claim to be.  The derivations and the
claims side by side.

For each standard noise :math:`\eta` (density ``f``) :mod:`garesearch.noise` writes the mass
:math:`P(a) = \int_{-a}^{a} f`, its inverse, the density and the density's inverse once,
against a backend.  Here each formula is evaluated with
:func:`garesearch._backend.sympy_backend` and proved to be what it claims:
:math:`P' = 2f` on :math:`a > 0` with :math:`P(0) = 0` (so :math:`P(a) = \int_{-a}^{a} f`
by the fundamental theorem of calculus and symmetry), the inverses substituted back, and
the scaled noise :math:`\xi\eta` (App. A.1's change of variables, in its corrected form).
The same functions are then evaluated with the mpmath backend at 50 digits and compared
with :func:`mpmath.quad` of the density.
"""

from __future__ import annotations

import math

import mpmath
import sympy as sp

from .. import noise
from .._backend import MPMATH, NUMPY, sympy_backend
from ._claim import Check, Evidence, claim
from ._proof import (
    PROVED,
    REFUTED,
    Derivation,
    derivation,
    latex,
    mp,
    proved,
    reduce_mod_square,
    require,
    require_zero,
    workdps,
)

a, b, eps, xi, y = sp.symbols("a b epsilon xi y", positive=True)
p = sp.Symbol("p", positive=True)  # a probability in (0, 1)
s2 = sp.Symbol("s", positive=True)  # stands for sqrt(2) (polynomial arithmetic is faster)
x = sp.Symbol("x", real=True)

#: Points (a >= 0) at which the mpmath path is compared with quadrature of the density.
_GRID = ("1e-6", "0.01", "0.3", "0.7", "0.999", "1", "1.001", "1.5", "2.5", "7", "40", "1e3")
#: Probabilities at which the inverses are substituted back at 50 digits.
_PROBS = ("1e-12", "0.05", "0.5", "0.78", "0.95", "0.999999")


def _mass_by_quadrature(density, av):
    """2 * integral_0^a f by mpmath.quad (split at 1, where the Cauchy tail bends)."""
    pts = [mp(0), av] if av <= 1 else [mp(0), mp(1), av]
    return 2 * mpmath.quad(density, pts)


def _numeric_checks(kind: str, float_path: bool = True) -> dict:
    """The mpmath path at 50 digits against quadrature, and (``float_path``) the float path
    against it."""
    formulas = noise.noise_formulas(kind)
    mass, density = formulas.mass, formulas.density
    worst, worst_float = mp(0), 0.0
    with workdps():
        dens = lambda t: density(t, MPMATH)  # noqa: E731
        for text in _GRID:
            av = mp(text)
            if kind == "gaussian" and av > 10:
                continue  # the mass is 1 to 50 digits there
            exact = _mass_by_quadrature(dens, av)
            worst = max(worst, abs(mass(av, MPMATH) - exact) / exact)
            if float_path:
                got = float(mass(float(av), NUMPY))
                worst_float = max(worst_float, abs(got - float(exact)) / float(exact))
        require(worst < mp("1e-45"), f"{kind}: mpmath path = quadrature at 50 digits")
        require(worst_float < 1e-14, f"{kind}: float path = quadrature to 1e-14")
        inverse = []
        for text in _PROBS:
            pv = mp(text)
            av = formulas.bound(pv, MPMATH)
            inverse.append(abs(_mass_by_quadrature(dens, av) - pv) / pv)
        worst_inverse = max(inverse)
        require(worst_inverse < mp("1e-40"), f"{kind}: P(bound(p)) = p by quadrature")
    return {
        "largest relative error, mpmath path vs quad (50 digits)": worst,
        "largest relative error, float path vs quad": worst_float,
        "largest relative error of P(bound(p)) - p by quad": worst_inverse,
    }


def _record(name, what, statement, detail, summary, conditions):
    location = f"App. A.1; garesearch.noise.{what} (sympy backend)"
    return proved(name, location, statement, detail, summary, conditions)


@derivation
def one_formula_noise_laplace() -> Derivation:
    r"""``noise.laplace_mass_formula`` is :math:`\int_{-a}^{a}\tfrac12 e^{-|x|}dx`, its inverse
    ``laplace_bound_formula`` is :math:`-\ln(1-p)`, and at scale :math:`1/\epsilon` they are
    App. A.1's :math:`1 - e^{-a\epsilon}` and :math:`-\ln(1-p)/\epsilon`.

    Proof: with the sympy backend :math:`P(a) = -\mathrm{expm1}(-a)` has :math:`P' = e^{-a} =
    2f(a)` and :math:`P(0) = 0`; ``log1p``/``expm1`` become ``log(1 + .)``/``exp(.) - 1``, so
    :math:`P(-\mathrm{log1p}(-p)) = p` and :math:`f(-\ln(2y)) = y` cancel.  The density
    integrates to 1 (sympy) and :math:`P(a\epsilon) = 1 - e^{-a\epsilon}`.

    Examples
    --------
    >>> one_formula_noise_laplace().status
    'proved'
    """
    S = sympy_backend()
    P = noise.laplace_mass_formula(a, S)
    f = noise.laplace_density_formula(a, S)
    require_zero(sp.diff(P, a) - 2 * f, "P'(a) = 2 f(a)")
    require_zero(P.subs(a, 0), "P(0) = 0")
    require_zero(2 * sp.integrate(f, (a, 0, sp.oo)) - 1, "f integrates to 1")
    require_zero(P.subs(a, noise.laplace_bound_formula(p, S)) - p, "P(bound(p)) = p")
    require_zero(f.subs(a, noise.laplace_density_inverse_formula(y, S)) - y, "f(f^{-1}(y)) = y")
    # App. A.1 at scale 1/eps: density f(x eps) eps, mass P(a eps), bound bound(p)/eps
    require_zero(sp.expand(f.subs(a, a * eps) * eps - eps / 2 * sp.exp(-a * eps)), "paper density")
    require_zero(sp.expand(P.subs(a, a * eps) - (1 - sp.exp(-a * eps))), "paper mass")
    require_zero(noise.laplace_bound_formula(p, S) / eps + sp.log(1 - p) / eps, "paper inverse")
    nums = _numeric_checks("laplace")
    statement = sp.Eq(
        sp.Integral(sp.exp(-sp.Abs(x)) / 2, (x, -a, a)), noise.laplace_mass_formula(a, S),
        evaluate=False,
    )
    return _record(
        "one_formula_noise_laplace", "laplace_mass_formula / laplace_bound_formula", statement,
        "-expm1(-a) has derivative e^{-a} = 2 f(a) and value 0 at a = 0; -log1p(-p) and "
        "-ln(2y) substituted back give p and y; at scale 1/eps the mass is App. A.1's "
        "1 - e^{-a eps} and the bound -ln(1-p)/eps. Numerically (mpmath path, 50 digits, "
        f"{len(_GRID)} points from 1e-6 to 1e3) the largest relative error against mpmath.quad "
        f"is {mpmath.nstr(nums[next(iter(nums))], 3)}.",
        "noise.laplace_mass_formula(a) = integral of e^{-|x|}/2 over [-a, a]; inverse -log1p(-p)",
        "a >= 0, 0 <= p < 1, 0 < y <= 1/2; scale 1/epsilon for the paper's density",
    )


@derivation
def one_formula_noise_gaussian() -> Derivation:
    r"""``noise.gaussian_mass_formula`` is :math:`\int_{-a}^{a} e^{-x^2/2}/\sqrt{2\pi}\,dx`
    and ``gaussian_bound_formula`` its inverse.

    Proof: :math:`\frac{d}{da}\mathrm{erf}(a/\sqrt2) = \sqrt{2/\pi}\,e^{-a^2/2} = 2f(a)`,
    :math:`\mathrm{erf}(0) = 0`; :math:`\mathrm{erf}(\mathrm{erf}^{-1}(p)) = p`; the density
    inverse substituted back gives ``y``; the density integrates to 1.  (The Gaussian is not
    in the paper; :mod:`garesearch.noise` offers it for completeness.)

    Examples
    --------
    >>> one_formula_noise_gaussian().status
    'proved'
    """
    S = sympy_backend()
    P = noise.gaussian_mass_formula(a, S)
    f = noise.gaussian_density_formula(a, S)
    require_zero(sp.diff(P, a) - 2 * f, "P'(a) = 2 f(a)")
    require_zero(P.subs(a, 0), "P(0) = 0")
    require(P.subs(a, sp.oo) == 1, "P(oo) = erf(oo) = 1: f integrates to 1")
    require_zero(P.subs(a, noise.gaussian_bound_formula(p, S)) - p, "P(bound(p)) = p")
    inv = noise.gaussian_density_inverse_formula(y, S)
    require_zero(sp.expand(f.subs(a, inv)) - y, "f(f^{-1}(y)) = y")
    nums = _numeric_checks("gaussian", float_path=False)  # float erf is scipy's (tests)
    statement = sp.Eq(
        sp.Integral(sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi), (x, -a, a)), P, evaluate=False
    )
    return _record(
        "one_formula_noise_gaussian", "gaussian_mass_formula / gaussian_bound_formula", statement,
        "d/da erf(a/sqrt2) = 2 f(a), erf(0) = 0; erf(erfinv(p)) = p; f(sqrt(-2 ln(y sqrt(2 pi)))) "
        "= y. Not in the paper (offered for completeness). Numerically the largest relative "
        f"error of the mpmath path against mpmath.quad is "
        f"{mpmath.nstr(nums[next(iter(nums))], 3)}.",
        "noise.gaussian_mass_formula(a) = integral of the standard normal density over [-a, a]",
        "a >= 0, 0 <= p < 1, 0 < y <= 1/sqrt(2 pi)",
    )


def _atan2_branch(T, sub):
    """``T = atan2(y(a), x(a))`` on one branch ``a = sub(b)``, ``b > 0``: sympy picks the value
    of atan2 from the signs of its factored arguments; no atan2 may be left."""
    yy, xx = (sp.factor(arg.subs(a, sub)) for arg in T.args)
    Tb = sp.atan2(yy, xx)
    require(not Tb.has(sp.atan2), f"atan2 evaluated on the branch a = {sub}")
    return Tb


@derivation
def one_formula_noise_gencauchy() -> Derivation:
    r"""``noise.gencauchy_mass_formula``
    :math:`P(a) = \frac{1}{2\pi}[\mathrm{log1p}(\frac{2\sqrt2a}{a^2-\sqrt2a+1}) +
    2\operatorname{atan2}(\sqrt2a, 1-a^2)]` is :math:`\int_{-a}^{a}\frac{\sqrt2}{\pi(1+x^4)}dx`.

    Proof: :math:`P(0) = 0`.  ``atan2`` is smooth on the half-plane :math:`y > 0`, where its
    derivative is :math:`(xy' - yx')/(x^2+y^2)`; so for all :math:`a > 0`, :math:`P' = 2f`
    (sympy, the numerator reduced modulo :math:`s^2 - 2`, :math:`s = \sqrt2`).  The branches
    are checked separately: on :math:`(0, 1)` (:math:`a = b/(1+b)`) sympy evaluates
    :math:`\operatorname{atan2} = \arctan(y/x)`, on :math:`(1, \infty)` (:math:`a = 1+b`)
    :math:`\pi + \arctan(y/x)`, and each branch has derivative :math:`2f` in ``b`` (chain
    rule).  At :math:`a = 1` both branches tend to :math:`\operatorname{atan2}(\sqrt2, 0) =
    \pi/2` (the argument :math:`y/x` tends to :math:`\pm\infty`), so ``P`` is continuous and
    equals the integral on :math:`[0, \infty)`; :math:`P \to 1` as :math:`a \to \infty`.
    Numerically (50 digits, mpmath path against :func:`mpmath.quad`) at points on both
    sides of and at :math:`a = 1`.  :math:`P(1) = \frac12 + \ln(1+\sqrt2)/\pi` (App. A.1's
    0.78).

    Examples
    --------
    >>> one_formula_noise_gencauchy().status
    'proved'
    """
    S = sympy_backend()
    P = noise.gencauchy_mass_formula(a, S)
    f = noise.gencauchy_density_formula(a, S)
    Ps, fs = P.subs(sp.sqrt(2), s2), f.subs(sp.sqrt(2), s2)
    require(sp.sqrt(2) not in Ps.atoms(sp.Pow) and Ps.has(s2), "sqrt(2) replaced by s")
    require_zero(P.subs(a, 0), "P(0) = 0")
    require(sp.discriminant(a**2 - s2 * a + 1, a).subs(s2, sp.sqrt(2)) < 0,
            "a^2 - sqrt2 a + 1 > 0: the log1p term is smooth")
    require(reduce_mod_square(sp.diff(Ps, a) - 2 * fs, s2, 2) == 0, "P' = 2f on a > 0 (y > 0)")
    # the two branches of atan2: only the atan2 term needs them (the log1p term is smooth)
    atan2_terms = Ps.atoms(sp.atan2)
    require(len(atan2_terms) == 1, "one atan2 term (the proof below is written for it)")
    (T,) = atan2_terms
    T_prime = sp.diff(T, a)  # (x y' - y x')/(x^2 + y^2), valid where y = sqrt2 a > 0
    # (0, 1): atan2 = atan(y/x); (1, oo): atan2 = pi + atan(y/x) = pi - atan(y/|x|)
    branches = (("(0, 1)", b / (1 + b), sp.oo, 0, 1), ("(1, oo)", 1 + b, 0, sp.pi, -1))
    for label, sub, end, const, sign in branches:
        Tb = _atan2_branch(T, sub)
        (atan_term,) = Tb.atoms(sp.atan)
        require_zero(Tb - sign * atan_term - const, f"atan2 = {const} + {sign} atan(.) on {label}")
        dd = sp.diff(Tb, b) - T_prime.subs(a, sub) * sp.diff(sub, b)
        require(reduce_mod_square(dd, s2, 2) == 0, f"branch derivative = atan2' on {label}")
        require(sp.limit(atan_term.args[0], b, end) == sp.oo,
                f"atan argument -> +oo at a = 1 from {label}")
        # so the atan2 term tends to const + sign pi/2 = atan2(sqrt2, 0) = pi/2 at a = 1
        require_zero(const + sign * sp.pi / 2 - sp.atan2(sp.sqrt(2), 0),
                     f"continuous at a = 1 from {label}")
    P_inf = sp.limit(2 * s2 * a / (a**2 - s2 * a + 1), a, sp.oo)
    require(P_inf == 0, "log1p term -> 0 as a -> oo")
    with workdps():
        av = mp(10) ** 30
        require(abs(noise.gencauchy_mass_formula(av, MPMATH) - 1) < mp("1e-45"), "P -> 1")
        unit = noise.gencauchy_mass_formula(mp(1), MPMATH)
        exact_unit = mp(1) / 2 + mpmath.log(1 + mpmath.sqrt(2)) / mpmath.pi
        require(abs(unit - exact_unit) < mp("1e-45"), "P(1) = 1/2 + ln(1+sqrt2)/pi")
        # the docstring's identity atan(sqrt2 a + 1) + atan(sqrt2 a - 1) = atan2(sqrt2 a, 1 - a^2)
        gap = max(
            abs(mpmath.atan(mpmath.sqrt(2) * v + 1) + mpmath.atan(mpmath.sqrt(2) * v - 1)
                - mpmath.atan2(mpmath.sqrt(2) * v, 1 - v * v))
            for v in (mp(t) for t in _GRID)
        )
        require(gap < mp("1e-45"), "atan sum = atan2")
    nums = _numeric_checks("gencauchy")
    statement = sp.Eq(
        sp.Integral(sp.sqrt(2) / (sp.pi * (1 + x**4)), (x, -a, a)), P, evaluate=False
    )
    return _record(
        "one_formula_noise_gencauchy", "gencauchy_mass_formula", statement,
        "P(0) = 0 and P' = 2f on a > 0 (atan2 is smooth where its first argument is > 0). "
        "Branch by branch: on (0, 1) atan2(sqrt2 a, 1-a^2) = atan(sqrt2 a/(1-a^2)), on (1, oo) "
        "it is pi + atan(sqrt2 a/(1-a^2)), each with derivative 2f; both tend to pi/2 = "
        "atan2(sqrt2, 0) at a = 1, so P is continuous and equals the integral; P -> 1. "
        f"P(1) = 1/2 + ln(1+sqrt2)/pi = {mpmath.nstr(unit, 12)}. Numerically at "
        f"{len(_GRID)} points from 1e-6 to 1e3 (including 0.999, 1, 1.001) the mpmath path "
        "agrees with mpmath.quad to a relative "
        f"{mpmath.nstr(nums[next(iter(nums))], 3)}, and atan(sqrt2 a + 1) + atan(sqrt2 a - 1) = "
        "atan2(sqrt2 a, 1 - a^2) (the module docstring's rewriting of the antiderivative).",
        "noise.gencauchy_mass_formula(a) = integral of sqrt2/(pi(1+x^4)) over [-a, a]",
        "a >= 0 (the formula is for the mass of a symmetric interval)",
    )


@derivation
def noise_gencauchy_inverse() -> Derivation:
    r"""``noise.gencauchy_bound`` (the inverse of :math:`P` for the generalised Cauchy
    noise) converges monotonically to the root of :math:`P(a) = p`.

    This one is not a backend formula: the paper's "window binary search" is replaced by
    Newton's method, which runs with numpy or mpmath but has no symbolic form.  Proof of
    the method: :math:`P' = c/(1+a^4)` with :math:`c = 2\sqrt2/\pi` (the step the code
    takes), :math:`P'' = -4ca^3/(1+a^4)^2 < 0` on :math:`a > 0` (concave), so a Newton step
    from any point lands at or below the root and steps from below increase; the start
    :math:`\max(p/c, \text{one step from } (c/(3(1-p)))^{1/3})` is below the root because
    :math:`P(a) \le ca` (:math:`f \le f(0)`) and :math:`1 - P(a) \le 2\int_a^\infty
    \frac{\sqrt2}{\pi x^4}dx = \frac{c}{3a^3}`.  Numerically, :math:`P(a)` at the returned
    ``a`` equals ``p`` by :func:`mpmath.quad` to 40 digits.

    Examples
    --------
    >>> noise_gencauchy_inverse().status
    'proved'
    """
    S = sympy_backend()
    P = noise.gencauchy_mass_formula(a, S)
    c = 2 * sp.sqrt(2) / sp.pi
    Ps = P.subs(sp.sqrt(2), s2)
    require(reduce_mod_square(sp.diff(Ps, a) - (c / (1 + a**4)).subs(sp.sqrt(2), s2), s2, 2) == 0,
            "P' = c/(1+a^4)")
    P2 = sp.diff(c / (1 + a**4), a)
    require_zero(P2 + 4 * c * a**3 / (1 + a**4) ** 2, "P''")
    require(P2.is_negative, "P'' < 0 on a > 0: concave")
    f = noise.gencauchy_density_formula(a, S)
    require(sp.diff(f, a).is_negative, "f decreasing: P(a) <= 2 f(0) a = c a")
    require_zero(2 * f.subs(a, 0) - c, "2 f(0) = c")
    tail = 2 * sp.integrate(sp.sqrt(2) / (sp.pi * x**4), (x, a, sp.oo))
    require_zero(tail - c / (3 * a**3), "tail bound c/(3a^3)")
    require(sp.together(sp.sqrt(2) / (sp.pi * a**4) - f).is_positive, "f(x) < sqrt2/(pi x^4)")
    hi = (c / (3 * (1 - p))) ** sp.Rational(1, 3)
    require_zero(sp.expand(c / (3 * hi**3)) - (1 - p), "P(hi) >= p")
    with workdps():
        dens = lambda t: noise.gencauchy_density_formula(t, MPMATH)  # noqa: E731
        errs, steps = [], []
        for text in _PROBS:
            pv = mp(text)
            av = noise.gencauchy_bound(pv, MPMATH)
            errs.append(abs(_mass_by_quadrature(dens, av) - pv) / pv)
            # float path at the same (rounded) input, in units of the problem's conditioning
            # kappa = p / (a P'(a)): a float P has a relative error of a few units in 2^-53
            pf = float(pv)
            af = noise.gencauchy_bound(mp(pf), MPMATH)
            kappa = pf * (1 + af**4) / (2 * mpmath.sqrt(2) / mpmath.pi * af)
            fl = float(noise.gencauchy_bound(pf, NUMPY))
            steps.append(float(abs(fl - af) / af / (kappa * 2.0**-53)))
        require(max(errs) < mp("1e-40"), "P(bound(p)) = p by quadrature")
        require(max(steps) < 16, "float path = mpmath path within the conditioning")
    statement = sp.Eq(sp.Integral(sp.sqrt(2) / (sp.pi * (1 + x**4)), (x, -a, a)), p, evaluate=False)
    return _record(
        "noise_gencauchy_inverse", "gencauchy_bound (Newton's method, not a backend formula)",
        statement,
        "gencauchy_bound is an iteration, not a backend-generic formula (it runs with numpy and "
        "mpmath, not sympy), so it is proved as a method and checked numerically. P' = c/(1+a^4), "
        "c = 2 sqrt2/pi; P'' = -4 c a^3/(1+a^4)^2 < 0: Newton steps land at or below the root "
        "and increase from below. Start below the root: P(a) <= c a and 1 - P(a) <= c/(3a^3). "
        f"At p in {{{', '.join(_PROBS)}}}: |P(a) - p|/p by mpmath.quad at most "
        f"{mpmath.nstr(max(errs), 3)}; the float path agrees with the mpmath path to "
        f"{max(steps):.1f} units of 2^-53 times the condition number p/(a P'(a)). "
        "Replaces the paper's 'window binary search' (same root).",
        "noise.gencauchy_bound(p) solves P(a) = p (monotone Newton on the concave P)",
        "0 <= p < 1",
    )


@derivation
def one_formula_noise_scaling() -> Derivation:
    r"""App. A.1's change of variables as :mod:`garesearch.noise` applies it: the noise
    :math:`\xi\eta` has density :math:`f(x/\xi)/\xi` (``noise_density``), mass
    :math:`\Pr[|\xi\eta| \le a] = P(a/\xi)` (``noise_mass``) and bound :math:`\xi\,P^{-1}(p)`
    (``noise_bound``).

    Proof: :math:`\frac{d}{da}P(a/\xi) = 2f(a/\xi)/\xi` for each noise (sympy, chain rule
    on the backend formulas; for the generalised Cauchy on :math:`a > 0`), value 0 at
    :math:`a = 0`, so :math:`P(a/\xi) = \int_{-a}^{a} f(x/\xi)/\xi\,dx`.  (The paper prints
    :math:`f(\xi x)/\xi`; see :func:`noise_scaling`.)  Numerically, the public functions at
    50 digits against :func:`mpmath.quad` of :math:`f(x/\xi)/\xi`, and for Laplace with
    :math:`\xi = 1/\epsilon` the paper's :math:`a = -\ln(1-p)/\epsilon`.

    Examples
    --------
    >>> one_formula_noise_scaling().status
    'proved'
    """
    S = sympy_backend()
    for kind in noise.NOISES:
        formulas = noise.noise_formulas(kind)
        P, f = formulas.mass, formulas.density
        lhs = sp.diff(P(a / xi, S), a).subs(sp.sqrt(2), s2)
        rhs = (2 * f(a / xi, S) / xi).subs(sp.sqrt(2), s2)
        require(reduce_mod_square(lhs - rhs, s2, 2) == 0, f"{kind}: d/da P(a/xi) = 2 f(a/xi)/xi")
        require_zero(P(a / xi, S).subs(a, 0), f"{kind}: P(0) = 0")
    worst = mp(0)
    with workdps():
        for kind in noise.NOISES:
            for xv, av in ((mp("0.25"), mp("0.3")), (mp(3), mp(2)), (mp("1.86"), mp("5.5"))):
                scaled = lambda t, k=kind, xv=xv: noise.noise_formulas(k).density(t / xv, MPMATH) / xv  # noqa: E731
                exact = _mass_by_quadrature(scaled, av)
                got = noise.noise_mass(av, noise=kind, scale=xv, dps=50)
                worst = max(worst, abs(got - exact) / exact)
                dens = noise.noise_density(-av, noise=kind, scale=xv, dps=50)
                require(abs(dens - scaled(av)) < mp("1e-45") * scaled(av), f"{kind}: noise_density")
                bnd = noise.noise_bound(mp("0.78"), noise=kind, scale=xv, dps=50)
                unit = noise.noise_bound(mp("0.78"), noise=kind, dps=50)
                require(abs(bnd - xv * unit) < mp("1e-45") * bnd, f"{kind}: bound scales by xi")
        require(worst < mp("1e-45"), "noise_mass = quadrature of f(x/xi)/xi")
        ev, pv = mp("0.539"), mp("0.95")
        lap = noise.noise_bound(pv, noise="laplace", scale=1 / ev, dps=50)
        require(abs(lap + mpmath.log(1 - pv) / ev) < mp("1e-45"), "paper: a = -ln(1-p)/eps")
    fn = sp.Function("f")
    statement = sp.Eq(
        sp.Symbol(r"\Pr[|\xi\eta| \le a]"),
        sp.Integral(fn(x / xi) / xi, (x, -a, a)),
        evaluate=False,
    )
    return _record(
        "one_formula_noise_scaling", "noise_mass / noise_density / noise_bound with scale xi",
        statement,
        "For Laplace, Gaussian and generalised Cauchy: d/da P(a/xi) = 2 f(a/xi)/xi and P(0) = 0 "
        "(sympy), so noise_mass(a, scale=xi) = integral_{-a}^{a} f(x/xi)/xi dx: the corrected "
        "change of variables (the paper's f(xi x) is a typo, see noise_scaling). noise_density "
        "is f(|x|/xi)/xi and noise_bound scales by xi (50 digits); the largest relative error of "
        f"noise_mass against mpmath.quad is {mpmath.nstr(worst, 3)}. Laplace with xi = 1/eps "
        "gives the paper's a = -ln(1-p)/eps.",
        "the code's scaled noise is App. A.1's change of variables, corrected: density f(x/xi)/xi",
        "xi > 0, a >= 0, 0 <= p < 1",
    )


# ------------------------------------------------------------------------------------------
# App. A.1
# ------------------------------------------------------------------------------------------
@derivation
def laplace_mass() -> Derivation:
    r"""App. A.1: :math:`\int_{-a}^{a}\frac{\epsilon}{2}e^{-|x|\epsilon}dx = 1 - e^{-a\epsilon}`,
    so :math:`a = -\ln(1-p)/\epsilon`.

    Proof: by symmetry twice the integral over :math:`[0, a]` (sympy), and substituting
    :math:`a = -\ln(1-p)/\epsilon` gives ``p``.

    Examples
    --------
    >>> laplace_mass().status
    'proved'
    """
    p = sp.Symbol("p", positive=True)
    xp = sp.Symbol("x", positive=True)
    mass = 2 * sp.integrate(eps / 2 * sp.exp(-xp * eps), (xp, 0, a))
    require_zero(mass - (1 - sp.exp(-a * eps)), "mass")
    require_zero(mass.subs(a, -sp.log(1 - p) / eps) - p, "a = -ln(1-p)/eps")
    statement = sp.Eq(
        sp.Integral(eps / 2 * sp.exp(-sp.Abs(x) * eps), (x, -a, a)), 1 - sp.exp(-a * eps),
        evaluate=False,
    )
    return Derivation(
        name="laplace_mass",
        location="App. A.1, Laplace",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="epsilon > 0, 0 < p < 1",
        counterexample=None,
        detail="2 * integral over [0, a] = 1 - e^{-a eps}; solving for a gives -ln(1-p)/eps.",
        summary="Laplace mass on [-a, a] is 1 - e^{-a eps}; a = -ln(1-p)/eps",
    )


def _gencauchy_antiderivative(t):
    r"""An antiderivative of :math:`1/(1+t^4)` continuous on the whole real line
    (:math:`t^2 \pm \sqrt2 t + 1 > 0`)."""
    r2 = sp.sqrt(2)
    return r2 / 8 * (
        sp.log((t**2 + r2 * t + 1) / (t**2 - r2 * t + 1)) + 2 * sp.atan(r2 * t + 1)
        + 2 * sp.atan(r2 * t - 1)
    )


def _check_antiderivative():
    F = _gencauchy_antiderivative(x)
    num, _ = sp.fraction(sp.together(sp.diff(F, x) - 1 / (1 + x**4)))
    require(sp.expand(num) == 0, "F' = 1/(1+x^4)")
    require(sp.discriminant(x**2 - sp.sqrt(2) * x + 1, x) < 0, "log argument has no pole")
    return F


@derivation
def gencauchy_normalisation() -> Derivation:
    r"""App. A.1: :math:`\frac{\sqrt2}{\pi}\frac{1}{1+|x|^4}` is a density.

    Proof: :math:`F(x) = \frac{\sqrt2}{8}\left[\ln\frac{x^2+\sqrt2x+1}{x^2-\sqrt2x+1} +
    2\arctan(\sqrt2x+1) + 2\arctan(\sqrt2x-1)\right]` has :math:`F' = 1/(1+x^4)` (checked)
    and is continuous on the real line; the log term tends to 0 and each arctan to
    :math:`\pm\pi/2` at :math:`\pm\infty`, so the integral is :math:`\sqrt2\pi/2 = \pi/\sqrt2`.

    Examples
    --------
    >>> gencauchy_normalisation().status
    'proved'
    """
    _check_antiderivative()
    ratio = (x**2 + sp.sqrt(2) * x + 1) / (x**2 - sp.sqrt(2) * x + 1)
    require(sp.limit(ratio, x, sp.oo) == 1 and sp.limit(ratio, x, -sp.oo) == 1, "log -> 0")
    at_inf = sp.sqrt(2) / 8 * (2 * sp.atan(sp.oo) + 2 * sp.atan(sp.oo))
    at_minf = sp.sqrt(2) / 8 * (2 * sp.atan(-sp.oo) + 2 * sp.atan(-sp.oo))
    require_zero(at_inf - at_minf - sp.pi / sp.sqrt(2), "integral = pi/sqrt2")
    with workdps():
        total = mpmath.quad(lambda t: mpmath.sqrt(2) / mpmath.pi / (1 + t**4), [-mpmath.inf, 0, mpmath.inf])
        require(abs(total - 1) < mp("1e-40"), "numeric: integrates to 1")
    statement = sp.Eq(
        sp.Integral(sp.sqrt(2) / sp.pi / (1 + x**4), (x, -sp.oo, sp.oo)), 1, evaluate=False
    )
    return Derivation(
        name="gencauchy_normalisation",
        location="App. A.1, generalised Cauchy density",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="",
        counterexample=None,
        detail="An explicit antiderivative (log + two arctan terms, checked by differentiation) "
        "gives integral of 1/(1+x^4) over the real line = pi/sqrt2.",
        summary="sqrt2/pi / (1 + x^4) integrates to 1",
    )


@derivation
def gencauchy_unit_mass() -> Derivation:
    r"""App. A.1: :math:`\int_{-1}^{1}\frac{\sqrt2}{\pi}\frac{dx}{1+x^4} \approx 0.78`.

    Proof: with the antiderivative of :func:`gencauchy_normalisation`,
    :math:`F(1) - F(0) = \frac{\sqrt2}{8}(\ln\frac{2+\sqrt2}{2-\sqrt2} + \pi)` (the
    arctans at 1 add to :math:`\pi/2`, their arguments multiply to 1), and
    :math:`(2+\sqrt2)/(2-\sqrt2) = (1+\sqrt2)^2`, so the mass is exactly
    :math:`\frac12 + \frac{\ln(1+\sqrt2)}{\pi} = 0.780549\ldots`

    Examples
    --------
    >>> gencauchy_unit_mass().status
    'proved'
    """
    F = _check_antiderivative()
    r2 = sp.sqrt(2)
    require(sp.expand(sp.radsimp((2 + r2) / (2 - r2))) == sp.expand((1 + r2) ** 2), "ratio")
    require(sp.expand((r2 + 1) * (r2 - 1)) == 1, "arctan arguments multiply to 1")
    exact = sp.Rational(1, 2) + sp.log(1 + r2) / sp.pi
    mass = 2 * r2 / sp.pi * (F.subs(x, 1) - F.subs(x, 0))
    with workdps():
        quad = 2 * mpmath.sqrt(2) / mpmath.pi * mpmath.quad(lambda t: 1 / (1 + t**4), [0, 1])
        closed = mpmath.mpf(1) / 2 + mpmath.log(1 + mpmath.sqrt(2)) / mpmath.pi
        sym = mpmath.mpf(str(sp.N(mass, 60)))
        require(abs(quad - closed) < mp("1e-45") and abs(sym - closed) < mp("1e-45"), "value")
    statement = sp.Eq(
        sp.Integral(sp.sqrt(2) / sp.pi / (1 + x**4), (x, -1, 1)), exact, evaluate=False
    )
    return Derivation(
        name="gencauchy_unit_mass",
        location="App. A.1, generalised Cauchy, probability 0.78",
        statement=statement,
        latex=latex(statement),
        status=PROVED,
        conditions="",
        counterexample=None,
        detail=f"Exactly 1/2 + ln(1+sqrt2)/pi = {mpmath.nstr(quad, 15)} (the paper's 0.78 is "
        "this value rounded).",
        summary="mass of [-1, 1] is 1/2 + ln(1+sqrt2)/pi = 0.7805",
    )


@derivation
def noise_scaling() -> Derivation:
    r"""App. A.1: :math:`p = \int_{-a}^{a} f(x)dx = \int_{-a}^{a} f(\xi x)\,d(\xi x) =
    \int_{-a\xi}^{a\xi}\frac1\xi f(\xi x)\,dx`, so take :math:`a\xi` for the noise
    :math:`\xi\eta`.

    Refuted as printed (a typo; the conclusion holds).  The density of :math:`\xi\eta` is
    :math:`f(x/\xi)/\xi`, and :math:`\int_{-a\xi}^{a\xi} f(x/\xi)/\xi\,dx = \int_{-a}^{a}
    f = p` (substitution, checked with the Laplace density); the printed integrand
    :math:`f(\xi x)/\xi` gives :math:`(1 - e^{-a\xi^2})/\xi^2` for Laplace, not ``p``.

    Examples
    --------
    >>> noise_scaling().status
    'refuted'
    """
    xi = sp.Symbol("xi", positive=True)
    xp = sp.Symbol("x", positive=True)
    f = sp.Lambda(xp, sp.exp(-xp) / 2)  # standard Laplace on x >= 0 (symmetric)
    p = 2 * sp.integrate(f(xp), (xp, 0, a))
    correct = 2 * sp.integrate(f(xp / xi) / xi, (xp, 0, a * xi))
    printed = 2 * sp.integrate(f(xi * xp) / xi, (xp, 0, a * xi))
    require_zero(correct - p, "density f(x/xi)/xi gives p")
    require_zero(printed - (1 - sp.exp(-a * xi**2)) / xi**2, "printed integrand value")
    with workdps():
        av, xv = mp(1), mp(2)
        lap = lambda t: mpmath.exp(-abs(t)) / 2  # noqa: E731
        gc = lambda t: mpmath.sqrt(2) / mpmath.pi / (1 + t**4)  # noqa: E731
        ce = {
            "a": av, "xi": xv,
            "laplace_p": mpmath.quad(lap, [-av, 0, av]),
            "laplace_printed": mpmath.quad(lambda t: lap(xv * t) / xv, [-av * xv, 0, av * xv]),
            "laplace_correct": mpmath.quad(lambda t: lap(t / xv) / xv, [-av * xv, 0, av * xv]),
            "gencauchy_p": mpmath.quad(gc, [-av, av]),
            "gencauchy_printed": mpmath.quad(lambda t: gc(xv * t) / xv, [-av * xv, av * xv]),
            "gencauchy_correct": mpmath.quad(lambda t: gc(t / xv) / xv, [-av * xv, av * xv]),
        }
        require(abs(ce["laplace_printed"] - ce["laplace_p"]) > mp("0.1"), "printed differs")
        require(abs(ce["gencauchy_correct"] - ce["gencauchy_p"]) < mp("1e-40"), "correct equals p")
    fn = sp.Function("f")
    statement = sp.Eq(
        sp.Integral(fn(x), (x, -a, a)), sp.Integral(fn(xi * x) / xi, (x, -a * xi, a * xi)),
        evaluate=False,
    )
    return Derivation(
        name="noise_scaling",
        location="App. A.1, change of variables for the scaled noise",
        statement=statement,
        latex=latex(statement),
        status=REFUTED,
        conditions="noise xi * eta with eta of density f, xi > 0",
        counterexample=ce,
        detail="Corrected: p = integral_{-a xi}^{a xi} f(x/xi)/xi dx (density of xi*eta is "
        "f(x/xi)/xi); the printed f(xi x) is a typo. The conclusion 'take a xi' holds: "
        "Pr[|xi eta| <= a xi] = Pr[|eta| <= a] = p.",
        summary="density of xi*eta is f(x/xi)/xi (paper: f(xi x)); 'take a xi' holds",
    )


# ------------------------------------------------------------------------------------------
# The claims
# ------------------------------------------------------------------------------------------
@claim("A1.laplace", location="App A.1",
       statement="int_{-a}^{a} eps/2 e^{-|x|eps} = 1-e^{-a eps};  a = -ln(1-p)/eps",
       derivations={"laplace_mass": "result", "one_formula_noise_laplace": "result"})
def _a1_laplace():
    ev, av, pv = 2.0, 1.0, 0.9
    with mpmath.workdps(30):
        mass = float(mpmath.quad(lambda t: ev / 2 * mpmath.exp(-abs(t) * ev), [-av, 0, av]))
    nm = _noise_mass(av, "laplace", 1 / ev)
    inverse = float(noise.noise_bound(pv, noise="laplace", scale=1 / ev))
    return Evidence(
        paper="int_{-a}^{a} eps/2 e^{-|x|eps} = 1-e^{-a eps};  a = -ln(1-p)/eps",
        computed="1 - e^{-a eps}; a = -ln(1-p)/eps",
        checks=(
            Check("quadrature of eps/2 e^{-|x| eps} over [-a, a] equals 1 - e^{-a eps} "
                  "(eps = 2, a = 1)", "result", "close", mass, 1 - math.exp(-av * ev)),
            Check("garesearch noise_mass (Laplace, scale 1/eps = 0.5, a = 1) = 1 - e^{-2}",
                  "result", "close", nm, 1 - math.exp(-av * ev)),
            Check("garesearch noise_bound (Laplace, scale 0.5, p = 0.9) = -ln(1-p)/eps", "result",
                  "close", inverse, -math.log(1 - pv) / ev),
        ),
        explanation="Holds: the Laplace mass within a is 1 - e^{-a eps} and its inverse "
                    "a = -ln(1-p)/eps.",
    )


def _noise_mass(av: float, kind: str, scale: float) -> float:
    return float(noise.noise_mass(av, noise=kind, scale=scale))


def _gencauchy_density(t):
    return mpmath.sqrt(2) / mpmath.pi / (1 + t**4)


@claim("A1.gencauchy_norm", location="App A.1",
       statement="sqrt2/pi * 1/(1+|x|^4) is a density",
       derivations={"gencauchy_normalisation": "result", "one_formula_noise_gencauchy": "result"})
def _a1_gencauchy_norm():
    with mpmath.workdps(30):
        total = float(mpmath.quad(_gencauchy_density, [-mpmath.inf, -1, 0, 1, mpmath.inf]))
    return Evidence(
        paper=1.0, computed=total,
        checks=(Check("quadrature of sqrt2/pi/(1+x^4) over the line equals 1", "result", "close",
                      total, 1.0),),
        explanation="Holds: the integral of 1/(1+x^4) over the real line is pi/sqrt(2).",
    )


@claim("A1.gencauchy_mass", location="App A.1",
       statement="int_{-1}^{1} ~ 0.78",
       derivations={"gencauchy_unit_mass": "result", "one_formula_noise_gencauchy": "result"})
def _a1_gencauchy_mass():
    with mpmath.workdps(30):
        quad = float(mpmath.quad(_gencauchy_density, [-1, 0, 1]))
    closed = (math.log(3 + 2 * math.sqrt(2)) + math.pi) / (2 * math.pi)
    nm = _noise_mass(1.0, "gencauchy", 1.0)
    return Evidence(
        paper=0.78, computed=quad,
        checks=(
            Check("mpmath quadrature over [-1, 1]", "result", "approx", quad, 0.78, 2),
            Check("closed form (ln(3+2 sqrt2) + pi)/(2 pi) equals the quadrature", "result",
                  "close", closed, quad),
            Check("garesearch noise_mass(1, gencauchy) equals the quadrature", "result",
                  "close", nm, quad),
        ),
        explanation=f"Holds: the mass is (ln(3 + 2 sqrt2) + pi)/(2 pi) = {quad:.5f}.",
    )


@claim("A1.scaling", location="App A.1, change of variables",
       statement="p = int_{-a}^{a} f(x)dx = int_{-a}^{a} f(xi x) d(xi x) = int_{-a xi}^{a xi} (1/xi) f(xi x) dx",
       derivations={"noise_scaling": "printed", "one_formula_noise_scaling": "result"})
def _a1_scaling():
    from scipy.integrate import quad

    def f(x):
        return 0.5 * math.exp(-abs(x))  # Laplace density of eta

    a, xi = 1.0, 2.0
    p = quad(f, -a, a)[0]
    printed_last = quad(lambda x: f(xi * x) / xi, -a * xi, a * xi)[0]
    corrected = quad(lambda x: f(x / xi) / xi, -a * xi, a * xi)[0]
    return Evidence(
        paper="p = int_{-a}^{a} f(x)dx = int_{-a}^{a} f(xi x) d(xi x) = int_{-a xi}^{a xi} (1/xi) f(xi x) dx",
        computed=f"Laplace, a = 1, xi = 2: p = {p:.4f}; printed last integral {printed_last:.4f}; with f(x/xi): {corrected:.4f}",
        checks=(
            Check("Pr[|xi eta| <= a xi] = int (1/xi) f(x/xi) over [-a xi, a xi] equals p", "result",
                  "close", corrected, p),
            Check("the printed last integral (1/xi) f(xi x) equals p", "printed", "close", printed_last, p),
        ),
        explanation="The conclusion holds (Pr[|xi eta| <= a xi] = Pr[|eta| <= a]: take a xi), but the change of variables is misprinted: with u = xi x, int_{-a}^{a} f(x) dx = int_{-a xi}^{a xi} (1/xi) f(u/xi) du, the density of xi eta; the printed f(xi x) (and the middle step int_{-a}^{a} f(xi x) d(xi x)) give another number (Laplace, a = 1, xi = 2: 0.245 instead of 0.632).",
    )
