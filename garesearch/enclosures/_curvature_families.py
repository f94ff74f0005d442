r"""The table of ``scipy.stats`` continuous families behind
:func:`garesearch.enclosures.curvature.scipy_curvature`: for each family and each range of its shape
parameters, the breaks and the sign of :math:`g'' = (\log f)''` in the standard variable
:math:`z`, each derived from the family's density formula (the derivation is at each entry).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import NamedTuple

from ._curvature_enclose import _bisect, _enclose, _hull
from ._curvature_sturm import (
    _padd,
    _pmul,
    _poly_pattern,
    _pscale,
    _sgn,
    _trim,
)

# ------------------------------------------------------------------------------------------
# the table of scipy.stats families, in the standard variable z


class _Decl(NamedTuple):
    breaks: tuple  # in z: floats, Fractions or intervals, nondecreasing
    signs: tuple  # one more than breaks
    why: str


_Rule = Callable[..., "_Decl | None"]
_LINEAR = "linear, which counts as concave"


def _on(lo, hi, breaks: Sequence, signs: Sequence[int], why: str) -> _Decl:
    """Pieces on the support (lo, hi) of z (None or an infinite float: no end), 0 outside."""
    lo = None if lo is None or (isinstance(lo, float) and math.isinf(lo)) else lo
    hi = None if hi is None or (isinstance(hi, float) and math.isinf(hi)) else hi
    b = ([] if lo is None else [lo]) + list(breaks) + ([] if hi is None else [hi])
    s = ([] if lo is None else [0]) + list(signs) + ([] if hi is None else [0])
    return _Decl(tuple(b), tuple(s), why)


def _cv(concave: bool) -> int:
    return -1 if concave else 1


def _line(why: str) -> Callable:
    """A family concave on the whole line for every shape."""
    return lambda iv, *shapes: _on(None, None, (), (-1,), why)


def _half(why: str, sign: int = -1) -> Callable:
    """A family of one sign on (0, inf) for every shape."""
    return lambda iv, *shapes: _on(0, None, (), (sign,), why)


def _unit(why: str, sign: int) -> Callable:
    """A family of one sign on (0, 1) for every shape."""
    return lambda iv, *shapes: _on(0, 1, (), (sign,), why)


def _polynomial(iv, p, vlo, vhi, to_z, increasing, zlo, zhi, why) -> _Decl:
    """Pieces from the sign of a polynomial p(v) on (vlo, vhi), v a monotone function of z
    (to_z maps an interval of v to one of z), on the support (zlo, zhi) of z."""
    roots, signs = _poly_pattern(p, vlo, vhi)
    breaks = [to_z(_hull(iv, left, right)) for left, right in roots]
    if not increasing:
        breaks.reverse()
        signs = signs[::-1]
    return _on(zlo, zhi, breaks, signs, why)


def _ident(v):
    return v


def _Fr(*xs: float) -> tuple[Fraction, ...]:
    return tuple(Fraction(x) for x in xs)


def _gennorm(iv, beta):
    sign = _cv(beta >= 1)
    why = f"g = -|z|^beta: g'' = -beta (beta-1) |z|^(beta-2) {'<= 0' if beta >= 1 else '> 0'} on each side"
    if beta % 2 == 0:  # a polynomial in z: smooth at 0
        return _on(None, None, (), (sign,), why)
    return _on(None, None, (0,), (sign, sign), why + "; g is not twice differentiable at 0")


def _gengamma(iv, a, c):
    # g = (c a - 1) log z - z^c: g'' = -z^-2 [P + Q t], t = z^c, P = c a - 1, Q = c (c - 1)
    fa, fc = _Fr(a, c)
    P, Q = fc * fa - 1, fc * (fc - 1)
    why = "g = (c a - 1) log z - z^c: g'' = -z^-2 (c a - 1 + c (c-1) z^c)"
    if P >= 0 and Q >= 0:
        return _on(0, None, (), (-1,), why)
    if P <= 0 and Q <= 0:
        return _on(0, None, (), (1,), why)
    t = -P / Q  # the root of P + Q t, > 0
    z = iv.exp(iv.log(_enclose(iv, t)) / c)
    signs = [-_sgn(P), -_sgn(Q)]  # for t < t*, t > t*
    return _on(0, None, (z,), signs if c > 0 else signs[::-1], why + f"; changes sign at z^c = {float(t):g}")


def _genextreme(iv, c):
    if c == 0:
        return _on(None, None, (), (-1,), "c = 0 (Gumbel): g = -z - e^-z, g'' = -e^-z")
    # w = 1 - c z > 0, k = 1/c: g = (k-1) log w - w^k, g'' = -c^2 (k-1) w^-2 (1 + k w^k)
    why = "g = (1/c - 1) log w - w^(1/c), w = 1 - c z: g'' = -c^2 (1/c - 1) w^-2 (1 + w^(1/c)/c)"
    end = 1 / Fraction(c)
    if c > 0:
        return _on(None, end, (), (_cv(c <= 1),), why)
    # c < 0: 1 + k w^k < 0 iff w < w* = (-1/c)^(-c)
    z = -iv.expm1(-c * iv.log(iv.mpf(-1) / c)) / c
    return _on(end, None, (z,), (-1, 1), why + "; c < 0: concave up to w = (-1/c)^(-c)")


def _genpareto(iv, c):
    why = "g = -(1 + 1/c) log(1 + c z): g'' = c (c + 1)/(1 + c z)^2"
    if c == 0:
        return _on(0, None, (), (-1,), "c = 0 (exponential): " + _LINEAR)
    if c > 0:
        return _on(0, None, (), (1,), why)
    return _on(0, -1 / Fraction(c), (), (_cv(c >= -1),), why + (f"; c = -1: {_LINEAR}" if c == -1 else ""))


def _lognorm(iv, s):
    # u = log z: g = -u - u^2/(2 s^2), g'' = (u + s^2 - 1)/(s^2 z^2)
    z = iv.exp(1 - iv.mpf(s) * s)
    return _on(0, None, (z,), (-1, 1), "g = -log z - (log z)^2/(2 s^2): g'' = (log z + s^2 - 1)/(s^2 z^2)")


def _t(iv, df):
    r = iv.sqrt(iv.mpf(df))
    return _on(None, None, (-r, r), (1, -1, 1),
               "g = -(df+1)/2 log(1 + z^2/df): g'' = -(df+1)(df - z^2)/(df + z^2)^2")


def _beta(iv, a, b):
    a, b = _Fr(a, b)
    # g'' z^2 (1-z)^2 = -(a-1)(1-z)^2 - (b-1) z^2
    p = _padd(_pscale(_pmul([1, -1], [1, -1]), -(a - 1)), [0, 0, -(b - 1)])
    return _polynomial(iv, p, Fraction(0), Fraction(1), _ident, True, 0, 1,
                       "g = (a-1) log z + (b-1) log(1-z): g'' z^2 (1-z)^2 = -(a-1)(1-z)^2 - (b-1) z^2")


def _gausshyper(iv, a, b, c, zz):
    a, b, c, zz = _Fr(a, b, c, zz)
    lin = [Fraction(1), zz]  # 1 + zz z
    p = _padd(
        _pscale(_pmul([1, -1], [1, -1], lin, lin), -(a - 1)),
        _pscale(_pmul([0, 1], [0, 1], lin, lin), -(b - 1)),
        _pscale(_pmul([0, 1], [0, 1], [1, -1], [1, -1]), c * zz * zz),
    )
    return _polynomial(
        iv, p, Fraction(0), Fraction(1), _ident, True, 0, 1,
        "g = (a-1) log z + (b-1) log(1-z) - c log(1 + z_ z): g'' z^2 (1-z)^2 (1+z_ z)^2 = "
        "-(a-1)(1-z)^2 (1+z_ z)^2 - (b-1) z^2 (1+z_ z)^2 + c z_^2 z^2 (1-z)^2",
    )


def _betaprime(iv, a, b):
    a, b = _Fr(a, b)
    p = _padd(_pscale(_pmul([1, 1], [1, 1]), -(a - 1)), [0, 0, a + b])
    return _polynomial(iv, p, Fraction(0), None, _ident, True, 0, None,
                       "g = (a-1) log z - (a+b) log(1+z): g'' z^2 (1+z)^2 = -(a-1)(1+z)^2 + (a+b) z^2")


def _f(iv, n1, n2):
    n1, n2 = _Fr(n1, n2)
    lin = [n2, n1]
    p = _padd(_pscale(_pmul(lin, lin), -(n1 - 2)), [0, 0, (n1 + n2) * n1 * n1])
    return _polynomial(
        iv, p, Fraction(0), None, _ident, True, 0, None,
        "g = (n1/2 - 1) log z - (n1+n2)/2 log(n2 + n1 z): "
        "2 g'' z^2 (n2 + n1 z)^2 = -(n1-2)(n2 + n1 z)^2 + (n1+n2) n1^2 z^2",
    )


def _alpha(iv, a):
    (a,) = _Fr(a)
    return _polynomial(iv, [-3, 2 * a, 2], Fraction(0), None, _ident, True, 0, None,
                       "g = -2 log z - (a - 1/z)^2/2: g'' z^4 = 2 z^2 + 2 a z - 3")


def _fatiguelife(iv, c):
    (c,) = _Fr(c)
    c2 = c * c
    return _polynomial(
        iv, [-2, 3 * c2 - 4, 6 * c2 - 2, c2], Fraction(0), None, _ident, True, 0, None,
        "g = log(z+1) - 3/2 log z - (z - 2 + 1/z)/(2 c^2): "
        "2 c^2 z^3 (z+1)^2 g'' = c^2 z^3 + (6 c^2 - 2) z^2 + (3 c^2 - 4) z - 2",
    )


def _rel_breitwigner(iv, rho):
    (rho,) = _Fr(rho)
    d = _padd(_pmul([-rho * rho, 0, 1], [-rho * rho, 0, 1]), [rho * rho])  # (z^2 - rho^2)^2 + rho^2
    d1 = _trim([i * c for i, c in enumerate(d)][1:])
    d2 = _trim([i * c for i, c in enumerate(d1)][1:])
    p = _padd(_pmul(d1, d1), _pscale(_pmul(d, d2), Fraction(-1)))
    return _polynomial(iv, p, Fraction(0), None, _ident, True, 0, None,
                       "g = -log D, D = (z^2 - rho^2)^2 + rho^2: g'' D^2 = D'^2 - D D''")


def _foldcauchy(iv, c):
    (c,) = _Fr(c)
    k = 1 + c * c
    big = [k, 0, 1]  # K + z^2 = (1 + (z-c)^2 + 1 + (z+c)^2)/2
    A = [1 + c * c, -2 * c, 1]  # 1 + (z - c)^2
    B = [1 + c * c, 2 * c, 1]  # 1 + (z + c)^2
    p = _padd(
        _pmul([k, 0, -1], A, A, B, B),
        _pscale(_pmul([1 - c * c, 2 * c, -1], big, big, B, B), Fraction(-1)),
        _pscale(_pmul([1 - c * c, -2 * c, -1], big, big, A, A), Fraction(-1)),
    )
    return _polynomial(
        iv, p, Fraction(0), None, _ident, True, 0, None,
        "g = log(K + z^2) - log A - log B, K = 1 + c^2, A = 1 + (z-c)^2, B = 1 + (z+c)^2: "
        "g'' (K+z^2)^2 A^2 B^2 / 2 = (K - z^2) A^2 B^2 - (1 - (z-c)^2)(K+z^2)^2 B^2 "
        "- (1 - (z+c)^2)(K+z^2)^2 A^2",
    )


def _odds_power(iv, root):
    """v -> (v/(1-v))^(1/root): the map from p = t/(1+t), t = z^root, back to z."""
    return lambda v: iv.exp((iv.log(v) - iv.log(1 - v)) / root)


def _burr12(iv, c, d):
    # u = log z, p = z^c/(1+z^c): g'' z^2 = G'' - G' = F(p), G(u) = g(e^u)
    fc, fd = _Fr(c, d)
    D = fd + 1
    p = [1 - fc, D * fc * (1 - fc), D * fc * fc]
    return _polynomial(
        iv, p, Fraction(0), Fraction(1), _odds_power(iv, c), True, 0, None,
        "g = (c-1) log z - (d+1) log(1 + z^c): with p = z^c/(1+z^c), "
        "z^2 g'' = (d+1) c^2 p^2 + (d+1) c (1-c) p + 1 - c",
    )


def _burr(iv, c, d):
    # u = log z, q = 1/(1+z^c): z^2 g'' = F(q), z = ((1-q)/q)^(1/c) falls as q grows
    fc, fd = _Fr(c, d)
    D = fd + 1
    p = [fc + 1, -D * fc * (fc + 1), D * fc * fc]
    return _polynomial(
        iv, p, Fraction(0), Fraction(1), lambda v: iv.exp((iv.log(1 - v) - iv.log(v)) / c), False, 0, None,
        "g = -(c+1) log z - (d+1) log(1 + z^-c): with q = 1/(1+z^c), "
        "z^2 g'' = (d+1) c^2 q^2 - (d+1) c (c+1) q + c + 1",
    )


def _mielke(iv, k, s):
    fk, fs = _Fr(k, s)
    p = [1 - fk, (fs + fk) * (1 - fs), (fs + fk) * fs]
    return _polynomial(
        iv, p, Fraction(0), Fraction(1), _odds_power(iv, s), True, 0, None,
        "g = (k-1) log z - (1 + k/s) log(1 + z^s): with p = z^s/(1+z^s), "
        "s z^2 g'' = (s+k) s p^2 + (s+k)(1-s) p + 1 - k",
    )


def _kappa3(iv, a):
    (fa,) = _Fr(a)
    return _polynomial(
        iv, [1 - fa, fa], Fraction(0), Fraction(1),
        lambda v: iv.exp((iv.log(v) - iv.log(1 - v) + iv.log(iv.mpf(a))) / a), True, 0, None,
        "g = -(1 + 1/a) log(a + z^a): with p = z^a/(a + z^a), z^2 g'' = (1+a) p (1 - a + a p)",
    )


def _genhalflogistic(iv, c):
    # w = (1 - c z)^(1/c), p = w/(1+w) in (0, 1/2): (1-cz)^2 g'' = 2 p^2 - 2 (1-c) p - c (1-c)
    (fc,) = _Fr(c)
    return _polynomial(
        iv, [-fc * (1 - fc), -2 * (1 - fc), 2], Fraction(0), Fraction(1, 2),
        lambda v: -iv.expm1(c * (iv.log(v) - iv.log(1 - v))) / c, False, 0, 1 / fc,
        "g = (1/c - 1) log(1 - c z) - 2 log(1 + w), w = (1 - c z)^(1/c): with p = w/(1+w), "
        "(1 - c z)^2 g'' = 2 p^2 - 2 (1-c) p - c (1-c)",
    )


def _jf_skew_t(iv, a, b):
    # y = z/sqrt(a+b): g = (a-b) asinh y - (a+b+1)/2 log(1+y^2); u = z/sqrt(a+b+z^2) in (-1, 1)
    fa, fb = _Fr(a, b)
    n1 = fa + fb + 1
    nu = iv.mpf(a) + b
    return _polynomial(
        iv, [-n1, -(fa - fb), 2 * n1], Fraction(-1), Fraction(1),
        lambda v: iv.sqrt(nu) * v / iv.sqrt(1 - v * v), True, None, None,
        "g = (a-b) asinh(y) - (a+b+1)/2 log(1+y^2), y = z/sqrt(a+b): with u = z/sqrt(a+b+z^2), "
        "(a+b) (1+y^2)^2 (1-u^2) g'' = 2 (a+b+1) u^2 - (a-b) u - (a+b+1)",
    )


def _exponpow(iv, b):
    why = "g = (b-1) log z + z^b - exp(z^b): z^2 g'' = (1-b)(1 - b t) + b t e^t (1 - b - b t), t = z^b"
    if b >= 1:
        return _on(0, None, (), (-1,), why)
    # h(t) = (1-b)(1-bt) + b t e^t (1-b-bt): > 0 for t <= (1-b)/b, < 0 for t >= 1/b, and
    # strictly decreasing between (a falling positive term minus a growing positive one)
    bb = iv.mpf(b)

    def neg_h(t):
        return -((1 - bb) * (1 - bb * t) + bb * t * iv.exp(t) * ((1 - bb) - bb * t))

    # bracket a little wider than [(1-b)/b, 1/b], where the signs hold with room to spare
    t = _bisect(iv, neg_h, (1 - b) / b * (1 - 2**-20), 1 / b * (1 + 2**-20))
    if t is None:
        return None
    return _on(0, None, (iv.exp(iv.log(t) / b),), (1, -1), why + "; b < 1: one sign change")


def _wrapcauchy(iv, c):
    # g'' = 2 c [2c - (1+c^2) cos z]/D^2: concave where cos z > 2c/(1+c^2)
    cc = iv.mpf(c)
    theta = _bisect(iv, lambda z: 2 * cc - (1 + cc * cc) * iv.cos(z), 0.0, 2.0)
    if theta is None:
        return None
    return _on(0, 2 * iv.pi, (theta, 2 * iv.pi - theta), (-1, 1, -1),
               "g = -log(1 + c^2 - 2 c cos z): g'' = -2c ((1+c^2) cos z - 2c)/(1 + c^2 - 2c cos z)^2")


def _chi(iv, df):
    why = "g = (df-1) log z - z^2/2: g'' = -(df-1)/z^2 - 1"
    if df >= 1:
        return _on(0, None, (), (-1,), why)
    return _on(0, None, (iv.sqrt(1 - iv.mpf(df)),), (1, -1), why)


def _nakagami(iv, nu):
    why = "g = (2 nu - 1) log z - nu z^2: g'' = -(2 nu - 1)/z^2 - 2 nu"
    if nu >= 0.5:
        return _on(0, None, (), (-1,), why)
    return _on(0, None, (iv.sqrt((1 - 2 * iv.mpf(nu)) / (2 * iv.mpf(nu))),), (1, -1), why)


def _foldnorm(iv, c):
    why = "g = -(z^2 + c^2)/2 + log(2 cosh(c z)): g'' = -1 + c^2 sech^2(c z)"
    if c <= 1:
        return _on(0, None, (), (-1,), why)
    z = iv.log(c + iv.sqrt(iv.mpf(c) * c - 1)) / c  # acosh(c)/c
    return _on(0, None, (z,), (1, -1), why + "; c > 1: convex up to acosh(c)/c")


def _geninvgauss(iv, p, b):
    why = "g = (p-1) log z - b (z + 1/z)/2: g'' = -((p-1) z + b)/z^3"
    if p >= 1:
        return _on(0, None, (), (-1,), why)
    return _on(0, None, (Fraction(b) / (1 - Fraction(p)),), (-1, 1), why)


def _pearson3(iv, skew):
    if skew == 0:
        return _on(None, None, (), (-1,), "skew = 0 is the standard normal")
    end = -2 / Fraction(skew)
    why = ("a gamma law with alpha = 4/skew^2 in y = (2/skew)(z + 2/skew) > 0: "
           "g'' = -(alpha - 1)(2/skew)^2/y^2")
    sign = _cv(abs(skew) <= 2)
    return _on(end, None, (), (sign,), why) if skew > 0 else _on(None, end, (), (sign,), why)


def _vonmises_line(iv, kappa):
    why = "g = kappa cos z: g'' = -kappa cos z"
    if kappa == 0:
        return _on(-iv.pi, iv.pi, (), (-1,), "kappa = 0: uniform, " + _LINEAR)
    return _on(-iv.pi, iv.pi, (-iv.pi / 2, iv.pi / 2), (1, -1, 1), why)


def _irwinhall(iv, n):
    why = ("a convolution of n uniform densities is log-concave (Prekopa), so g is concave on "
           "(0, n)")
    if n == 2:
        return _on(0, 2, (1,), (-1, -1), why + "; n = 2: the triangle, with its kink at 1")
    return _on(0, n, (), (-1,), why + ("; n = 1: uniform" if n == 1 else "; C^1 for n >= 3"))


def _genhyperbolic(iv, p, a, b):
    if p != 1:
        return None
    return _on(None, None, (), (-1,),
               "p = 1 (hyperbolic): g = b z - a sqrt(1 + z^2), g'' = -a (1+z^2)^(-3/2)")


def _end(v: float):
    return None if math.isinf(v) else v


_CONCAVE_LINE = {
    "norm": "g = -z^2/2: g'' = -1",
    "logistic": "g = -z - 2 log(1 + e^-z): g'' = -2 e^-z/(1 + e^-z)^2",
    "hypsecant": "g = -log cosh z: g'' = -sech^2 z",
    "gumbel_r": "g = -z - e^-z: g'' = -e^-z",
    "gumbel_l": "g = z - e^z: g'' = -e^z",
    "moyal": "g = -(z + e^-z)/2: g'' = -e^-z/2",
    "loggamma": "g = c z - e^z: g'' = -e^z",
    "genlogistic": "g = -z - (c+1) log(1 + e^-z): g'' = -(c+1) e^-z/(1 + e^-z)^2",
    "skewnorm": "g = -z^2/2 + log Phi(a z), and log Phi is concave",
    "exponnorm": "g = -z/K + log Phi(z - 1/K), and log Phi is concave",
    "powernorm": (
        "g = -z^2/2 + (c-1) log Phi(-z): g'' = -1 + (c-1) (log Phi)''(-z), and "
        "-1 < (log Phi)'' < 0 (the variance of a truncated normal is in (0, 1)), so g'' < 0 "
        "for every c > 0"
    ),
}

_TABLE: dict[str, _Rule] = {
    **{name: _line(why) for name, why in _CONCAVE_LINE.items()},
    # the whole line, with a kink or singularity at 0
    "laplace": lambda iv: _on(None, None, (0,), (-1, -1), "g = -|z|: linear on each side of its kink at 0"),
    "laplace_asymmetric": lambda iv, kappa: _on(
        None, None, (0,), (-1, -1), "g = -kappa z (z > 0), z/kappa (z < 0): linear on each side of its kink"),
    "gennorm": _gennorm,
    "dgamma": lambda iv, a: _on(None, None, (0,), (_cv(a >= 1),) * 2,
                               "g = (a-1) log|z| - |z|: g'' = -(a-1)/z^2 on each side of 0"),
    "dweibull": lambda iv, c: _on(None, None, (0,), (_cv(c >= 1),) * 2,
                                 "g = (c-1) log|z| - |z|^c: g'' = -(c-1)(1/z^2 + c |z|^(c-2)) on each side"),
    # the whole line, with inflections
    "t": _t,
    "cauchy": lambda iv: _on(None, None, (-1, 1), (1, -1, 1), "g = -log(1 + z^2): g'' = -2 (1 - z^2)/(1 + z^2)^2"),
    "skewcauchy": lambda iv, a: _on(
        None, None, (iv.mpf(a) - 1, 1 + iv.mpf(a)), (1, -1, 1),
        "g = -log(1 + z^2/(1 + a sign z)^2): a Cauchy shape of scale 1 - a on the left, 1 + a on "
        "the right, C^1 at 0"),
    "jf_skew_t": _jf_skew_t,
    "crystalball": lambda iv, beta, m: _on(
        None, None, (-beta,), (1, -1),
        "g = -m log(m/beta - beta - z) + const for z <= -beta (g'' = m/(m/beta - beta - z)^2), "
        "-z^2/2 beyond"),
    "genextreme": _genextreme,
    "pearson3": _pearson3,
    "genhyperbolic": _genhyperbolic,
    "truncnorm": lambda iv, a, b: _on(_end(a), _end(b), (), (-1,), "g = -z^2/2 on (a, b)"),
    # (0, inf)
    "expon": lambda iv: _on(0, None, (), (-1,), "g = -z: " + _LINEAR),
    "gamma": lambda iv, a: _on(0, None, (), (_cv(a >= 1),), "g = (a-1) log z - z: g'' = -(a-1)/z^2"),
    "erlang": lambda iv, a: _on(0, None, (), (_cv(a >= 1),), "g = (a-1) log z - z: g'' = -(a-1)/z^2"),
    "chi2": lambda iv, df: _on(0, None, (), (_cv(df >= 2),), "g = (df/2 - 1) log z - z/2: g'' = -(df/2 - 1)/z^2"),
    "weibull_min": lambda iv, c: _on(0, None, (), (_cv(c >= 1),),
                                    "g = (c-1) log z - z^c: g'' = -(c-1)(1/z^2 + c z^(c-2))"),
    "weibull_max": lambda iv, c: _on(None, 0, (), (_cv(c >= 1),),
                                    "g = (c-1) log(-z) - (-z)^c: g'' = -(c-1)(1/z^2 + c |z|^(c-2))"),
    "truncweibull_min": lambda iv, c, a, b: _on(a, _end(b), (), (_cv(c >= 1),),
                                               "g = (c-1) log z - z^c: g'' = -(c-1)(1/z^2 + c z^(c-2))"),
    "exponweib": lambda iv, a, c: _on(0, None, (), (_cv(c >= 1),), "a = 1 is weibull_min(c)") if a == 1 else None,
    "gengamma": _gengamma,
    "chi": _chi,
    "nakagami": _nakagami,
    "halfnorm": _half("g = -z^2/2: g'' = -1"),
    "rayleigh": _half("g = log z - z^2/2: g'' = -1/z^2 - 1"),
    "maxwell": _half("g = 2 log z - z^2/2: g'' = -2/z^2 - 1"),
    "halflogistic": _half("g = -z - 2 log(1 + e^-z): g'' = -2 e^-z/(1 + e^-z)^2"),
    "halfgennorm": lambda iv, beta: _on(0, None, (), (_cv(beta >= 1),), "g = -z^beta: g'' = -beta (beta-1) z^(beta-2)"),
    "gompertz": _half("g = z - c e^z: g'' = -c e^z"),
    "genexpon": _half(
        "g = log(a + b (1 - e^(-c z))) - (a+b) z - (b/c) e^(-c z) + const: the log of a positive "
        "concave function, a linear term and -(b/c) e^(-c z), all concave"),
    "foldnorm": _foldnorm,
    "halfcauchy": lambda iv: _on(0, None, (1,), (-1, 1), "g = -log(1 + z^2): g'' = -2 (1 - z^2)/(1 + z^2)^2"),
    "foldcauchy": _foldcauchy,
    "lognorm": _lognorm,
    "gibrat": lambda iv: _on(0, None, (1,), (-1, 1), "lognorm with s = 1: g'' = log z/z^2"),
    "loglaplace": lambda iv, c: _on(0, None, (1,), (_cv(c >= 1), 1),
                                   "g = (c-1) log z for z < 1, -(c+1) log z beyond: a kink at 1"),
    "pareto": lambda iv, b: _on(1, None, (), (1,), "g = -(b+1) log z: g'' = (b+1)/z^2"),
    "truncpareto": lambda iv, b, c: _on(1, _end(c), (), (1,), "g = -(b+1) log z: g'' = (b+1)/z^2"),
    "lomax": _half("g = -(c+1) log(1+z): g'' = (c+1)/(1+z)^2", 1),
    "genpareto": _genpareto,
    "invgamma": lambda iv, a: _on(0, None, (2 / (Fraction(a) + 1),), (-1, 1),
                                 "g = -(a+1) log z - 1/z: g'' = ((a+1) z - 2)/z^3"),
    "invweibull": lambda iv, c: _on(0, None, (iv.exp(iv.log(iv.mpf(c)) / c),), (-1, 1),
                                   "g = -(c+1) log z - z^-c: g'' = (c+1)(1 - c z^-c)/z^2"),
    "levy": lambda iv: _on(0, None, (Fraction(2, 3),), (-1, 1), "g = -3/2 log z - 1/(2z): g'' = (3z/2 - 1)/z^3"),
    "levy_l": lambda iv: _on(None, 0, (Fraction(-2, 3),), (1, -1),
                            "g = -3/2 log(-z) + 1/(2z): g'' = (3|z|/2 - 1)/|z|^3"),
    "invgauss": lambda iv, mu: _on(0, None, (Fraction(2, 3),), (-1, 1),
                                  "g = -3/2 log z - z/(2 mu^2) - 1/(2z) + const: g'' = (3z/2 - 1)/z^3"),
    "wald": lambda iv: _on(0, None, (Fraction(2, 3),), (-1, 1),
                          "g = -3/2 log z - z/2 - 1/(2z) + const: g'' = (3z/2 - 1)/z^3"),
    "recipinvgauss": lambda iv, mu: _on(0, None, (2 / Fraction(mu) ** 2,), (-1, 1),
                                       "g = -log(z)/2 - 1/(2 mu^2 z) - z/2 + const: g'' = (z/2 - 1/mu^2)/z^3"),
    "geninvgauss": _geninvgauss,
    "fatiguelife": _fatiguelife,
    "alpha": _alpha,
    "betaprime": _betaprime,
    "f": _f,
    "burr": _burr,
    "burr12": _burr12,
    "fisk": lambda iv, c: _burr12(iv, c, 1.0),
    "mielke": _mielke,
    "kappa3": _kappa3,
    "exponpow": _exponpow,
    "rel_breitwigner": _rel_breitwigner,
    # bounded supports
    "uniform": lambda iv: _on(0, 1, (), (-1,), "g = 0: " + _LINEAR),
    "triang": lambda iv, c: _on(0, 1, (c,), (-1, -1),
                               "g = log z + const on (0, c), log(1 - z) + const on (c, 1): a kink at c"),
    "trapezoid": lambda iv, c, d: _on(0, 1, (c, d), (-1, -1, -1),
                                     "g = log z, constant, log(1 - z) (+ consts) on (0, c), (c, d), (d, 1)"),
    "powerlaw": lambda iv, a: _on(0, 1, (), (_cv(a >= 1),), "g = (a-1) log z: g'' = -(a-1)/z^2"),
    "bradford": _unit("g = -log(1 + c z): g'' = c^2/(1 + c z)^2", 1),
    "arcsine": _unit("g = -(log z + log(1-z))/2: g'' = (1/z^2 + 1/(1-z)^2)/2", 1),
    "beta": _beta,
    "gausshyper": _gausshyper,
    "genhalflogistic": _genhalflogistic,
    "semicircular": lambda iv: _on(-1, 1, (), (-1,), "g = log(1 - z^2)/2: g'' = -(1 + z^2)/(1 - z^2)^2"),
    "rdist": lambda iv, c: _on(-1, 1, (), (_cv(c >= 2),),
                              "g = (c/2 - 1) log(1 - z^2), and log(1 - z^2) is concave"),
    "anglit": lambda iv: _on(-iv.pi / 4, iv.pi / 4, (), (-1,), "g = log cos 2z: g'' = -4/cos^2 2z"),
    "cosine": lambda iv: _on(-iv.pi, iv.pi, (), (-1,), "g = log(1 + cos z) = 2 log cos(z/2) + const"),
    "vonmises_line": _vonmises_line,
    "wrapcauchy": _wrapcauchy,
    "truncexpon": lambda iv, b: _on(0, _end(b), (), (-1,), "g = -z: " + _LINEAR),
    "loguniform": lambda iv, a, b: _on(a, b, (), (1,), "g = -log z: g'' = 1/z^2"),
    "reciprocal": lambda iv, a, b: _on(a, b, (), (1,), "g = -log z: g'' = 1/z^2"),
    "irwinhall": _irwinhall,
}
