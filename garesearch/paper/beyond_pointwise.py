r"""Beyond the paper: the pointwise bound of :mod:`garesearch.constructions.pointwise`, derived and checked.

For an :math:`\epsilon`-DP mechanism (w.r.t. :math:`|x - x'|`), a prior ``F`` and the correct
guesses :math:`X'`, every output satisfies :math:`\Pr_{post}[X'] \le 1/(1 + J(\epsilon))` with
:math:`J(\epsilon) = \int_{X\setminus X'} dF(x)/L(x)`, :math:`L(x) = \int_{X'}
e^{\epsilon|x-x'|}dF(x')`.  The derivations below prove that bound, its closed form for an
interval :math:`X' = [l, h]` (a ratio of truncated moment generating functions), the closed
form of the truncated normal MGF used for normal priors, its dominance over Eq. (main) for
every comparison set, and its tightness for ``r = 0``.

Symbolic priors are finite sets of atoms with symbolic weights and positions (positions
given by positive gaps, so every :math:`|x - x'|` is resolved by sympy); the numerical
checks use continuous priors and :func:`mpmath.quad` at 50 digits.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from .._backend import MPMATH
from . import printed
from ._proof import (
    Derivation,
    derivation,
    mp,
    proved,
    require,
    require_zero,
    workdps,
)

LOCATION = "beyond the paper"

eps, g, sigma = sp.symbols("epsilon g sigma", positive=True)
u1, u2, u3 = sp.symbols("u1:4", positive=True)  # gaps between atoms
w = sp.symbols("w1:6", positive=True)  # prior weights of the atoms
m1, mu, lo, hi, t = sp.symbols("m1 mu lo hi t", real=True)
x = sp.Symbol("x", real=True)


def _atoms():
    r"""A symbolic 5-atom prior: two atoms in :math:`X' = [m_1, m_1 + g]` (at its ends), one
    below and two above (positions given by positive gaps)."""
    m2 = m1 + g
    inside = [(w[0], m1), (w[1], m2)]
    below = [(w[2], m1 - u1)]
    above = [(w[3], m2 + u2), (w[4], m2 + u3)]
    return inside, below, above


def _L(point, inside, sign=1):
    r""":math:`L(x) = \sum_{X'} w_j e^{\pm\epsilon|x - x_j|}` (``sign=-1``: :math:`K(x)`)."""
    return sum(wj * sp.exp(sign * eps * sp.Abs(point - xj)) for wj, xj in inside)


def _vanishes(expr) -> bool:
    """True when a rational expression in exponentials cancels to 0 (exponents split)."""
    return sp.cancel(sp.together(sp.expand(expr, power_exp=True))) == 0


def _record(name, statement, detail, summary, conditions):
    return proved(name, LOCATION, statement, detail, summary, conditions)


def _normal_cdf(z):
    return (1 + sp.erf(z / sp.sqrt(2))) / 2


def truncated_normal_mgf_formula(kk, m, s, a, b):
    r""":math:`\int_a^b e^{kx}\,dN(m, s^2)(x) = e^{km + k^2s^2/2}[\Phi(\frac{b-m-ks^2}{s}) -
    \Phi(\frac{a-m-ks^2}{s})]` (sympy).

    Examples
    --------
    >>> import sympy as sp
    >>> k = sp.Symbol("k", real=True)
    >>> sp.simplify(truncated_normal_mgf_formula(k, 0, 1, -sp.oo, sp.oo) - sp.exp(k**2 / 2))  # the MGF of N(0, 1)
    0
    """
    return sp.exp(kk * m + kk**2 * s**2 / 2) * (
        _normal_cdf((b - m - kk * s**2) / s) - _normal_cdf((a - m - kk * s**2) / s)
    )


def _mp_truncated_mgf(kk, m, s, a, b):
    """The same closed form in mpmath (for the numerical checks)."""
    c = lambda z: mpmath.ncdf((z - m - kk * s * s) / s)  # noqa: E731
    return mpmath.exp(kk * m + kk * kk * s * s / 2) * (c(b) - c(a))


@derivation
def pointwise_posterior_bound() -> Derivation:
    r"""For every :math:`\epsilon`-DP mechanism and every output ``y``:
    :math:`\Pr_{post}[X'] \le 1/(1 + J(\epsilon))`, :math:`J = \int_{X\setminus X'} dF/L`.

    Proof: DP gives :math:`f(y|x') \le e^{\epsilon|x-x'|}f(y|x)`, so with
    :math:`A = \int_{X'} f(y|x')dF(x')`, :math:`f(y|x)L(x) - A = \int_{X'}(e^{\epsilon|x-x'|}
    f(y|x) - f(y|x'))dF(x') \ge 0` for every ``x``; hence :math:`B = \int_{X\setminus X'}
    f(y|x)dF(x) \ge A\,J` and :math:`\Pr_{post}[X'] = A/(A+B) \le 1/(1+J)`, because
    :math:`\frac{1}{1+J} - \frac{A}{A+B} = \frac{B - AJ}{(1+J)(A+B)}` (sympy, on the
    5-atom prior with symbolic mechanism values).  Checked numerically for Laplace
    mechanisms on a 5-atom prior at many outputs.

    Examples
    --------
    >>> pointwise_posterior_bound().status
    'proved'
    """
    inside, below, above = _atoms()
    outside = below + above
    fy = sp.symbols("f1:6", positive=True)  # f(y | atom i)
    f_in, f_out = fy[:2], fy[2:]
    A = sum(wj * fj for (wj, _), fj in zip(inside, f_in, strict=True))
    B = sum(wi * fi for (wi, _), fi in zip(outside, f_out, strict=True))
    J = sum(wi / _L(xi, inside) for wi, xi in outside)
    for (_wi, xi), fi in zip(outside, f_out, strict=True):
        slack = sum(wj * (sp.exp(eps * sp.Abs(xi - xj)) * fi - fj)
                    for (wj, xj), fj in zip(inside, f_in, strict=True))
        require(_vanishes(fi * _L(xi, inside) - A - slack), "f(y|x) L(x) - A = sum of DP slacks")
    slacks = sum(wi * (fi * _L(xi, inside) - A) / _L(xi, inside)
                 for (wi, xi), fi in zip(outside, f_out, strict=True))
    require(_vanishes(B - A * J - slacks), "B - A J = sum_i w_i (f_i L_i - A)/L_i >= 0")
    As, Bs, Js = sp.symbols("A B J", positive=True)
    require_zero(1 / (1 + Js) - As / (As + Bs) - (Bs - As * Js) / ((1 + Js) * (As + Bs)),
                 "1/(1+J) - Post = (B - AJ)/((1+J)(A+B))")
    with workdps():
        xs = [mp(-2), mp("-0.5"), mp("0.25"), mp("1.5"), mp(4)]
        ws = [mp("0.1"), mp("0.3"), mp("0.2"), mp("0.25"), mp("0.15")]
        lo_, hi_ = mp("-0.5"), mp("0.25")
        e = mp("0.8")
        ins = [i for i, v in enumerate(xs) if lo_ <= v <= hi_]
        Jv = sum(ws[i] / sum(ws[j] * mpmath.exp(e * abs(xs[i] - xs[j])) for j in ins)
                 for i in range(5) if i not in ins)
        margin = mp("inf")
        for scale in (1 / e, 2 / e):  # Laplace with scale 1/eps (eps-DP) and 2/eps (eps/2-DP)
            for yv in mpmath.linspace(-6, 8, 57):
                fv = [mpmath.exp(-abs(yv - v) / scale) / (2 * scale) for v in xs]
                post = sum(ws[i] * fv[i] for i in ins) / sum(ws[i] * fv[i] for i in range(5))
                margin = min(margin, 1 / (1 + Jv) - post)
        require(margin >= 0, "numeric: Post <= 1/(1+J) for Laplace mechanisms")
    statement = sp.Le(
        sp.Symbol(r"\Pr_{post}[X']"),
        1 / (1 + sp.Integral(1 / sp.Function("L")(x), (x, sp.Symbol(r"X \setminus X'")))),
    )
    return _record(
        "pointwise_posterior_bound", statement,
        "epsilon-DP gives f(y|x') <= e^{eps|x-x'|} f(y|x); integrating over x' in X' gives "
        "f(y|x) L(x) >= A := int_{X'} f(y|x')dF, hence B := int_{outside} f(y|x)dF >= A J and "
        "Post[X'] = A/(A+B) <= 1/(1+J) (1/(1+J) - Post = (B - AJ)/((1+J)(A+B)), sympy on a "
        "5-atom prior with symbolic mechanism values). Numerically, Laplace mechanisms with "
        "scales 1/eps and 2/eps on a 5-atom prior, 57 outputs: smallest margin "
        f"1/(1+J) - Post = {mpmath.nstr(margin, 6)} >= 0.",
        "Post[X'] <= 1/(1 + J(eps)), J = integral over X \\ X' of dF / L, "
        "L(x) = integral over X' of e^{eps|x-x'|} dF",
        "mechanism epsilon-DP w.r.t. |x - x'| (densities or masses f(y|x)), any prior",
    )


@derivation
def pointwise_ratio_identity() -> Derivation:
    r"""For :math:`X' = [l, h]`: :math:`J(\epsilon) = \frac{\int_{x>h}e^{-\epsilon x}dF}
    {\int_{X'}e^{-\epsilon x}dF} + \frac{\int_{x<l}e^{\epsilon x}dF}{\int_{X'}e^{\epsilon x}dF}`,
    and the lower side :math:`I(\epsilon) = \int_{X\setminus X'}dF/K` with
    :math:`K(x) = \int_{X'}e^{-\epsilon|x-x'|}dF` is the same with the exponents' signs flipped.

    Proof: for :math:`x > h` and :math:`x' \in X'`, :math:`|x - x'| = x - x'`, so
    :math:`L(x) = e^{\epsilon x}\int_{X'}e^{-\epsilon x'}dF` factorises (and symmetrically for
    :math:`x < l`).  sympy on the 5-atom prior (gaps positive, so sympy resolves each
    :math:`|x - x'|`): the definition and the ratio form cancel, for ``J`` and for ``I``.
    Checked numerically at 50 digits on an 8-atom prior (definition with every distance
    computed directly).

    Examples
    --------
    >>> pointwise_ratio_identity().status
    'proved'
    """
    inside, below, above = _atoms()
    require(not any(sp.Abs(xi - xj).has(sp.Abs) for _, xi in below + above for _, xj in inside),
            "every |x - x'| resolved by sympy")

    def mgf(atoms, sign):
        return sum(wi * sp.exp(sign * eps * xi) for wi, xi in atoms)

    J_def = sum(wi / _L(xi, inside) for wi, xi in below + above)
    J_ratio = mgf(above, -1) / mgf(inside, -1) + mgf(below, 1) / mgf(inside, 1)
    require(_vanishes(J_def - J_ratio), "J: definition = ratio of truncated MGFs")
    I_def = sum(wi / _L(xi, inside, sign=-1) for wi, xi in below + above)
    I_ratio = mgf(above, 1) / mgf(inside, 1) + mgf(below, -1) / mgf(inside, -1)
    require(_vanishes(I_def - I_ratio), "I: definition = ratio with the signs flipped")
    with workdps():
        # a numeric prior with atoms inside, at the ends of, and on both sides of X' = [l, h];
        # the definition computes every |x - x'| directly
        xs = [mp(v) for v in ("-3.1", "-0.7", "-0.2", "0.1", "0.5", "0.9", "2.2", "6")]
        ws = [mp(v) for v in ("0.05", "0.1", "0.15", "0.2", "0.1", "0.2", "0.15", "0.05")]
        lv, hv, ev = mp("-0.2"), mp("0.5"), mp("0.9")
        ins = [i for i, v in enumerate(xs) if lv <= v <= hv]
        J_def_v = sum(ws[i] / sum(ws[j] * mpmath.exp(ev * abs(xs[i] - xs[j])) for j in ins)
                      for i in range(len(xs)) if i not in ins)

        def mgf_v(sel, sign):
            return sum(ws[i] * mpmath.exp(sign * ev * xs[i]) for i in sel)

        above_v = [i for i, v in enumerate(xs) if v > hv]
        below_v = [i for i, v in enumerate(xs) if v < lv]
        J_ratio_v = mgf_v(above_v, -1) / mgf_v(ins, -1) + mgf_v(below_v, 1) / mgf_v(ins, 1)
        gap = abs(J_def_v - J_ratio_v) / J_ratio_v
        require(gap < mp("1e-45"), "numeric: 8-atom prior, definition = ratio form")
    statement = sp.Eq(
        sp.Symbol(r"J(\epsilon)"),
        sp.Symbol(r"\frac{\int_{x>h}e^{-\epsilon x}dF}{\int_{l}^{h}e^{-\epsilon x}dF}")
        + sp.Symbol(r"\frac{\int_{x<l}e^{\epsilon x}dF}{\int_{l}^{h}e^{\epsilon x}dF}"),
        evaluate=False,
    )
    return _record(
        "pointwise_ratio_identity", statement,
        "For x > h every x' in X' = [l, h] has |x - x'| = x - x', so L(x) = e^{eps x} "
        "int_{X'} e^{-eps x'} dF and dF(x)/L(x) = e^{-eps x}dF(x) / int_{X'} e^{-eps x'}dF; "
        "symmetrically for x < l. sympy: definition minus ratio form cancels on a 5-atom prior "
        "(two atoms in X', one below, two above), for J and for the lower-side I (signs "
        "flipped). Numerically, an 8-atom prior, X' = [-0.2, 0.5], eps = 0.9: definition "
        f"J = {mpmath.nstr(J_def_v, 15)}, ratio form {mpmath.nstr(J_ratio_v, 15)} (relative "
        f"difference {mpmath.nstr(gap, 2)}, 50 digits).",
        "for X' = [l, h], J is a ratio of truncated MGFs: e^{-eps x} above h, e^{eps x} below l",
        "X' = [l, h] an interval of the real line, distance |x - x'|",
    )


@derivation
def truncated_normal_mgf() -> Derivation:
    r""":math:`\int_{lo}^{hi} e^{kx}\,dN(\mu,\sigma^2)(x) = e^{k\mu + k^2\sigma^2/2}
    \left[\Phi\left(\frac{hi-\mu-k\sigma^2}{\sigma}\right) - \Phi\left(\frac{lo-\mu-k\sigma^2}
    {\sigma}\right)\right]`, used by :mod:`garesearch.constructions.pointwise` for normal priors.

    Proof: the right-hand side vanishes at :math:`hi = lo`, and its derivative in ``hi`` is
    :math:`e^{k\,hi}\varphi((hi-\mu)/\sigma)/\sigma` (sympy: the exponents
    :math:`k\mu + k^2\sigma^2/2 - (hi-\mu-k\sigma^2)^2/(2\sigma^2)` and
    :math:`k\,hi - (hi-\mu)^2/(2\sigma^2)` expand to the same polynomial); its derivative in
    ``lo`` is minus the integrand at ``lo``.  ``k`` may have either sign.  Checked against
    :func:`mpmath.quad` at 50 digits.

    Examples
    --------
    >>> truncated_normal_mgf().status
    'proved'
    """
    kk = sp.Symbol("k", real=True)
    rhs = truncated_normal_mgf_formula(kk, mu, sigma, lo, hi)
    integrand = lambda z: sp.exp(kk * z) * sp.exp(-((z - mu) ** 2) / (2 * sigma**2)) / (  # noqa: E731
        sigma * sp.sqrt(2 * sp.pi))
    require_zero(rhs.subs(hi, lo), "value 0 at hi = lo")
    for var, sign in ((hi, 1), (lo, -1)):
        ratio = sp.powsimp(sp.diff(rhs, var) / (sign * integrand(var)), combine="exp")
        require(ratio.func == sp.exp or ratio == 1, f"d/d{var}: a single exponential")
        exponent = sp.log(ratio) if ratio == 1 else ratio.args[0]
        require(sp.expand(exponent) == 0, f"d/d{var} RHS = {'+' if sign > 0 else '-'}integrand")
    with workdps():
        worst = mp(0)
        for kv, mv, sv, lv, hv in ((mp("0.8"), mp(1), mp(2), mp(-1), mp(3)),
                                   (mp("-1.5"), mp(0), mp("0.5"), mp("0.2"), mp(4)),
                                   (mp("0.01"), mp(50), mp(10), mp(40), mp(55))):
            num = mpmath.quad(lambda z, kv=kv, mv=mv, sv=sv: mpmath.exp(kv * z)
                              * mpmath.npdf(z, mv, sv), [lv, hv])
            worst = max(worst, abs(num - _mp_truncated_mgf(kv, mv, sv, lv, hv)) / num)
        require(worst < mp("1e-45"), "numeric: closed form = quadrature")
    statement = sp.Eq(sp.Integral(integrand(x), (x, lo, hi)), rhs, evaluate=False)
    return _record(
        "truncated_normal_mgf", statement,
        "RHS(hi = lo) = 0; d/dhi RHS = e^{k mu + k^2 sigma^2/2} phi((hi - mu - k sigma^2)/sigma)"
        "/sigma = e^{k hi} phi((hi - mu)/sigma)/sigma (completing the square; sympy expands the "
        "difference of exponents to 0), and d/dlo RHS = -integrand(lo). Against mpmath.quad at "
        f"50 digits (k = 0.8, -1.5, 0.01): largest relative error {mpmath.nstr(worst, 3)}.",
        "truncated normal MGF: e^{k mu + k^2 sigma^2/2}[Phi((hi-mu-k sigma^2)/sigma) - "
        "Phi((lo-mu-k sigma^2)/sigma)]",
        "sigma > 0, lo <= hi (either may be infinite), k real",
    )


@derivation
def pointwise_dominates_eq_main() -> Derivation:
    r"""For every comparison set :math:`\hat X \subseteq X \setminus X'` with prior mass ``q``
    and every ``D`` at least the largest distance between :math:`X'` and :math:`\hat X`:
    :math:`J(\epsilon) \ge q e^{-\epsilon D}/p`, so the pointwise bound is never above
    Eq. (main)'s :math:`1/(1 + e^{-\epsilon D}q/p)` and its epsilon never below.

    Proof: on :math:`\hat X`, :math:`e^{\epsilon|x-x'|} \le e^{\epsilon D}` gives
    :math:`L(x) \le p e^{\epsilon D}`.  sympy on a prior with two atoms in :math:`X'`, two
    in :math:`\hat X` and one elsewhere, writing :math:`e^{\epsilon|x_i - x_j|} =
    e^{\epsilon D}/(1 + z_{ij})` with :math:`z_{ij} \ge 0`: :math:`pe^{\epsilon D} - L_i =
    \sum_j w_j e^{\epsilon D}z_{ij}/(1+z_{ij}) \ge 0` and :math:`J - qe^{-\epsilon D}/p =
    \sum_{\hat X} w_i(pe^{\epsilon D} - L_i)/(L_i p e^{\epsilon D}) + \sum_{\text{rest}} w_i/L_i
    \ge 0`.  Both bounds increase with epsilon, so the epsilon at which the pointwise bound
    reaches ``p + delta`` is at least Eq. (main)'s.  Numerically for a normal prior with the
    ring comparison set (``D = a + r``) at 50 digits.

    Examples
    --------
    >>> pointwise_dominates_eq_main().status
    'proved'
    """
    ED = sp.Symbol("E_D", positive=True)  # e^{eps D}
    z = sp.symbols("z11 z12 z21 z22", nonnegative=True)
    inside_w, hat_w, rest_w = w[:2], w[2:4], w[4]
    rest_L = sp.Symbol("L_rest", positive=True)  # L at the atom outside X-hat: any positive value
    p, q = sum(inside_w), sum(hat_w)
    L = [sum(inside_w[j] * ED / (1 + z[2 * i + j]) for j in range(2)) for i in range(2)]
    terms = []
    for i in range(2):
        slack = sum(inside_w[j] * ED * z[2 * i + j] / (1 + z[2 * i + j]) for j in range(2))
        require_zero(p * ED - L[i] - slack, "p e^{eps D} - L_i = sum of nonnegative terms")
        require(slack.is_nonnegative, "slack >= 0")
        terms.append(hat_w[i] * slack / (L[i] * p * ED))
    J = sum(hat_w[i] / L[i] for i in range(2)) + rest_w / rest_L
    require_zero(J - q / (p * ED) - sum(terms) - rest_w / rest_L, "J - q e^{-eps D}/p decomposed")
    require(all(term.is_nonnegative for term in terms), "each term >= 0")
    # bounds increase with epsilon: d/deps e^{eps d} = d e^{eps d} >= 0 for d >= 0
    dd = sp.Symbol("d", nonnegative=True)
    require((sp.diff(sp.exp(eps * dd), eps)).is_nonnegative, "L increases with eps")
    with workdps():
        r_, a_, dl = mp("0.25"), mp(1), mp("0.2")
        ncdf = mpmath.ncdf
        pv = ncdf(r_) - ncdf(-r_)
        qv = 2 * (ncdf(a_) - ncdf(r_))
        D = a_ + r_

        def J_of(e):
            mid = lambda kk: _mp_truncated_mgf(kk, 0, 1, -r_, r_)  # noqa: E731
            return (_mp_truncated_mgf(-e, 0, 1, r_, mpmath.inf) / mid(-e)
                    + _mp_truncated_mgf(e, 0, 1, -mpmath.inf, -r_) / mid(e))

        margins = [J_of(e) - qv * mpmath.exp(-e * D) / pv for e in (mp("0.1"), mp(1), mp(3))]
        require(min(margins) > 0, "numeric: J >= q e^{-eps D}/p")
        eps_main = printed.eps_main(dl, pv, qv, D, MPMATH)
        target = (1 - pv - dl) / (pv + dl)
        eps_pw = mpmath.findroot(lambda e: mpmath.log(J_of(e)) - mpmath.log(target), eps_main)
        require(eps_pw >= eps_main > 0, "numeric: pointwise epsilon >= Eq. (main)'s")
    statement = sp.Ge(sp.Symbol(r"J(\epsilon)"), sp.Symbol("q") * sp.exp(-eps * sp.Symbol("D"))
                      / sp.Symbol("p"))
    return _record(
        "pointwise_dominates_eq_main", statement,
        "On X-hat, e^{eps|x-x'|} <= e^{eps D}, so L(x) <= p e^{eps D} and "
        "J >= int_{X-hat} dF/L >= q e^{-eps D}/p (sympy: p e^{eps D} - L_i and J - q e^{-eps D}/p "
        "are sums of nonnegative terms). Hence 1/(1+J) <= 1/(1 + e^{-eps D} q/p) at every eps, "
        "and since both increase with eps the pointwise epsilon is at least Eq. (main)'s with "
        "the true largest distance D. Example: Normal(0,1), t = 0, r = 0.25, ring up to a = 1 "
        f"(D = 1.25), delta = 0.2: p = {mpmath.nstr(pv, 10)}, q = {mpmath.nstr(qv, 10)}, "
        f"Eq. (main) eps = {mpmath.nstr(eps_main, 10)}, pointwise eps = {mpmath.nstr(eps_pw, 10)}.",
        "J(eps) >= q e^{-eps D}/p for every comparison set: the pointwise epsilon >= Eq. (main)'s",
        "X-hat a subset of X \\ X', D >= sup of |x - x'| over X' x X-hat (the paper's 'a' is "
        "not such a D for its ring, see comparison_set_distance)",
    )


@derivation
def pointwise_tight_atom() -> Derivation:
    r"""For ``r = 0`` and an atom at ``t`` (:math:`X' = \{t\}`), the Laplace mechanism
    :math:`f(y|x) = \frac\epsilon2 e^{-\epsilon|y-x|}` at the output ``y = t`` has
    :math:`\Pr_{post}[X'] = 1/(1 + J(\epsilon))` exactly: no epsilon-DP bound can be lower.

    Proof: with :math:`X' = \{t\}`, :math:`L(x) = w_t e^{\epsilon|x-t|}`, so
    :math:`J = \sum_{x \ne t} w_x e^{-\epsilon|x-t|}/w_t`, and Bayes' rule at ``y = t`` gives
    :math:`w_t/(w_t + \sum_{x\ne t} w_x e^{-\epsilon|x-t|})` (sympy, symbolic 3-atom prior:
    ``t`` and one atom on each side).  The same computation holds with any remainder of the
    prior in place of the two atoms (sums become integrals of :math:`e^{-\epsilon|x-t|}`).

    Examples
    --------
    >>> pointwise_tight_atom().status
    'proved'
    """
    d1, d2 = u1, u2
    w0, wl, wr = w[:3]
    atoms = [(w0, t), (wl, t - d1), (wr, t + d2)]
    f = lambda yy, xx: eps / 2 * sp.exp(-eps * sp.Abs(yy - xx))  # noqa: E731
    post = w0 * f(t, t) / sum(wi * f(t, xi) for wi, xi in atoms)
    J = sum(wi / (w0 * sp.exp(eps * sp.Abs(xi - t))) for wi, xi in atoms[1:])
    require(_vanishes(post - 1 / (1 + J)), "Post[{t}] = 1/(1+J) at y = t")
    # and J equals the ratio form of pointwise_ratio_identity with l = h = t
    J_ratio = (wr * sp.exp(-eps * (t + d2)) / (w0 * sp.exp(-eps * t))
               + wl * sp.exp(eps * (t - d1)) / (w0 * sp.exp(eps * t)))
    require(_vanishes(J - J_ratio), "J = ratio form with l = h = t")
    # Laplace is eps-DP: |y-x'| - |y-x| <= |x-x'| (triangle inequality), checked on a grid
    with workdps():
        e, tv = mp("0.7"), mp("0.3")
        wv = [mp("0.2"), mp("0.5"), mp("0.3")]
        xs = [tv, tv - mp("1.1"), tv + mp("2.4")]
        lap = lambda yy, xx: e / 2 * mpmath.exp(-e * abs(yy - xx))  # noqa: E731
        post_v = wv[0] * lap(tv, tv) / sum(wi * lap(tv, xi) for wi, xi in zip(wv, xs, strict=True))
        J_v = sum(wi / (wv[0] * mpmath.exp(e * abs(xi - tv))) for wi, xi in zip(wv[1:], xs[1:], strict=True))
        require(abs(post_v - 1 / (1 + J_v)) < mp("1e-45"), "numeric example")
        ratio_max = max(lap(yy, x1) / lap(yy, x2) / mpmath.exp(e * abs(x1 - x2))
                        for yy in mpmath.linspace(-5, 5, 41) for x1 in xs for x2 in xs)
        require(ratio_max <= 1 + mp("1e-45"), "Laplace mechanism is eps-DP")
    statement = sp.Eq(sp.Symbol(r"\Pr_{post}[\{t\} \mid y = t]"), 1 / (1 + sp.Symbol(r"J(\epsilon)")),
                      evaluate=False)
    return _record(
        "pointwise_tight_atom", statement,
        "X' = {t}: L(x) = w_t e^{eps|x-t|}, J = sum_{x != t} w_x e^{-eps|x-t|}/w_t; the Laplace "
        "mechanism (eps-DP by the triangle inequality) at output y = t gives by Bayes "
        "w_t/(w_t + sum w_x e^{-eps|x-t|}) = 1/(1+J) exactly (sympy, symbolic 3-atom prior). "
        "So for r = 0 the pointwise bound cannot be lowered for all eps-DP mechanisms. "
        f"Example w = (0.2, 0.5, 0.3) at t, t-1.1, t+2.4, eps = 0.7: Post = 1/(1+J) = "
        f"{mpmath.nstr(post_v, 12)}.",
        "r = 0, atom at t: the Laplace mechanism at y = t attains Post[X'] = 1/(1+J(eps))",
        "r = 0 and an atom of the prior at t (else p = 0); distance |x - x'|",
    )
