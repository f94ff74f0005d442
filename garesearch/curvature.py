r"""Where the log-density of a continuous prior is concave or convex: declared, not sampled.

For a density :math:`f` with log-density :math:`g = \log f`, a panel :math:`[a, b]` on which
the sign of :math:`g''` is known and constant gives second-order rigorous bounds on
:math:`\int_a^b e^{k u} f(u)\, du`: where :math:`g` is concave (:math:`g'' \le 0`) its chord
lies below it and its tangents above it, so

.. math::

    \ell(u) \le g(u) \le g(c) + g'(c) (u - c), \qquad \ell \text{ the chord of } g
    \text{ over } [a, b],

and both bounds are exponentials of linear functions, integrable against :math:`e^{k u}` in
closed form; where :math:`g` is convex the inequalities reverse.  A panel whose sign is unknown
only has first-order bounds (from the values of :math:`g` at its ends and the slope's range).
The sign must therefore be *known*: a wrong sign turns a certified bound into an unsafe one.

:class:`Curvature` declares it piecewise: breaks in the distribution's units and the sign of
:math:`g''` on each open piece between them (-1 concave, +1 convex, 0 unknown).  Breaks are
every inflection point of :math:`g` and every kink or singularity of :math:`g` (the kink of the
Laplace density at its centre, the peak of a triangle, the ends of the support); a panel must
not straddle a break (:meth:`Curvature.sign` answers 0 for one that does, and for one that
reaches beyond the support).  A linear piece (:math:`g'' = 0`: the exponential, the uniform,
each side of the Laplace density) is declared -1: a linear function is concave (its chords and
tangents coincide with it), so the concave bounds hold and are exact there.

The table.  :func:`scipy_curvature` answers from a table of ``scipy.stats`` continuous
families, each derived from the family's density formula and each range of its shape
parameters, in the standard variable :math:`z` (:math:`x = \mathrm{loc} + \mathrm{scale}\, z`,
and ``scale > 0`` keeps every sign); nothing in it is fitted or sampled.  The derivation of
every entry is in its source: some are immediate (:math:`g'' = -(a - 1)/z^2` for the gamma
law), some rest on a classical fact (the normal c.d.f. is log-concave, and
:math:`-1 < (\log \Phi)'' < 0`, which settles the skew-normal and power-normal laws; a
convolution of log-concave densities is log-concave, which settles Irwin-Hall), and several
reduce the sign of :math:`g''` to the sign of a polynomial, in :math:`z` or in a monotone
function of it (Burr, Dagum, Jones-Faddy), whose real roots are then isolated exactly by
Sturm sequences in rational arithmetic.  Families whose sign pattern could not be derived
(Johnson's SU and SB, Rice, the noncentral laws, Tukey's lambda, and others) are left out:
:func:`scipy_curvature` answers ``None`` for them, and the caller must fall back on
first-order bounds.

Rounding.  An inflection point is rarely a floating-point number (:math:`\sqrt{3.5}`,
:math:`e^{1 - s^2}`), and ``loc + scale * z`` rounds.  Every break is therefore computed as an
enclosure, with mpmath's interval arithmetic or exactly in rational arithmetic, and mapped to
``x`` with outward rounding: a break that is exactly a float is one break; any other is two
adjacent floats with a piece of sign 0 between them, so that a panel ending at either of them
never crosses the true point.

Examples
--------
>>> import scipy.stats as st
>>> from garesearch.curvature import scipy_curvature
>>> scipy_curvature(st.norm(3.0, 2.0)).signs
(-1,)
>>> c = scipy_curvature(st.laplace(1.0))
>>> c.breaks, c.signs
((1.0,), (-1, -1))
>>> c = scipy_curvature(st.gamma(0.5))
>>> c.breaks, c.signs
((0.0,), (0, 1))
>>> c = scipy_curvature(st.t(4.0))
>>> c.breaks, c.signs
((-2.0, 2.0), (1, -1, 1))
>>> c = scipy_curvature(st.lognorm(0.5))  # the inflection exp(0.75), enclosed
>>> [round(b, 12) for b in c.breaks], c.signs
([0.0, 2.117000016613, 2.117000016613], (0, -1, 0, 1))
>>> c.sign(1.0, 2.0), c.sign(1.0, 3.0), c.sign(2.5, 1e6), c.sign(-1.0, 1.0)
(-1, 0, 1, 0)
>>> print(scipy_curvature(st.johnsonsu(1.0, 2.0)))
None
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from .errors import ParameterError
from .tails import _scalar

__all__ = ["Curvature", "declared_families", "scipy_curvature"]

_SIGNS = (-1, 0, 1)


@dataclass(frozen=True)
class Curvature:
    r"""The sign of :math:`g''` (:math:`g = \log f`) on the pieces between breaks.

    Parameters
    ----------
    breaks : tuple of float
        Finite and strictly increasing, in the distribution's units of ``x``: every
        inflection point of :math:`g`, every kink or singularity of :math:`g`, and the finite
        ends of the support.
    signs : tuple of int
        One more than ``breaks``: the sign of :math:`g''` on each open piece, from the left
        (``signs[0]`` on ``(-inf, breaks[0])``): -1 concave (a linear piece counts as
        concave), +1 convex, 0 unknown (also outside the support, and in the narrow pieces
        that enclose a break which is not a float).
    source : str
        Where the declaration comes from, for a reader.

    Raises
    ------
    ParameterError
        If ``breaks`` are not finite and strictly increasing, or ``signs`` are not one more
        than the breaks and each in (-1, 0, 1).

    Examples
    --------
    >>> c = Curvature((0.0, 1.0), (1, -1, 1), "declared")
    >>> c.sign(0.25, 0.75), c.sign(0.0, 1.0), c.sign(-2.0, 0.5)
    (-1, -1, 0)
    """

    breaks: tuple[float, ...]
    signs: tuple[int, ...]
    source: str = "declared"

    def __post_init__(self):
        try:
            breaks = tuple(float(b) for b in self.breaks)
            signs = tuple(self.signs)
            if not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in signs):
                raise TypeError
            signs = tuple(int(s) for s in signs)
        except (TypeError, ValueError):
            raise ParameterError(
                f"Curvature: breaks must be a sequence of numbers and signs a sequence of ints; "
                f"got {self.breaks!r}, {self.signs!r}"
            ) from None
        if not all(math.isfinite(b) for b in breaks):
            raise ParameterError(f"Curvature: breaks must be finite; got {self.breaks!r}")
        if any(b >= c for b, c in itertools.pairwise(breaks)):
            raise ParameterError(f"Curvature: breaks must be strictly increasing; got {self.breaks!r}")
        if len(signs) != len(breaks) + 1:
            raise ParameterError(
                f"Curvature: signs must have one more entry than breaks ({len(breaks) + 1}); got {len(signs)}"
            )
        if not all(s in _SIGNS for s in signs):
            raise ParameterError(f"Curvature: each sign must be -1, 0 or 1; got {self.signs!r}")
        if not isinstance(self.source, str):
            raise ParameterError(f"Curvature: source must be a string; got {self.source!r}")
        object.__setattr__(self, "breaks", tuple(b + 0.0 for b in breaks))  # -0.0 -> 0.0
        object.__setattr__(self, "signs", signs)

    def sign(self, x0: Any, x1: Any) -> Any:
        r"""The sign of :math:`g''` on the closed interval ``[x0, x1]``, vectorised.

        The sign of the piece that contains the whole interval; an interval that touches a
        break only at an end gets the sign of the piece on its side, and one with a break in
        its interior gets 0 (as does one that reaches beyond the support, whose ends are
        breaks with 0 outside).  A single point ``x0 == x1`` on a break gets the sign of the
        two pieces it joins if they agree, else 0.  NaN gives 0.

        Parameters
        ----------
        x0, x1 : float or array_like
            The interval ends, ``x0 <= x1`` (broadcast together); infinite ends are allowed.

        Returns
        -------
        int or numpy.ndarray of int
            -1, 0 or 1; a Python int for scalar input.

        Raises
        ------
        ParameterError
            If some ``x0 > x1``.

        Examples
        --------
        >>> c = Curvature((-1.0, 1.0), (1, -1, 1))
        >>> c.sign(-0.5, 0.5), c.sign(-1.0, 1.0), c.sign(0.0, 2.0), c.sign(1.0, float("inf"))
        (-1, -1, 0, 1)
        >>> c.sign([-3.0, 0.0, 2.0], [-2.0, 0.5, 1e9]).tolist()
        [1, -1, 1]
        >>> c.sign(1.0, 1.0)
        0
        """
        import numpy as np

        a, b = np.broadcast_arrays(np.asarray(x0, dtype=float), np.asarray(x1, dtype=float))
        if np.any(a > b):
            raise ParameterError("Curvature.sign: need x0 <= x1")
        breaks = np.asarray(self.breaks, dtype=float)
        signs = np.asarray(self.signs, dtype=int)
        last = len(signs) - 1
        i = np.searchsorted(breaks, a, side="right")  # the piece just right of x0
        j = np.searchsorted(breaks, b, side="left")  # the piece just left of x1
        out = np.where(i == j, signs[np.minimum(i, last)], 0)
        # a point on a break: i = j + 1; the two pieces it joins
        on_break = (a == b) & (i == j + 1)
        left, right = signs[np.clip(j, 0, last)], signs[np.clip(i, 0, last)]
        out = np.where(on_break & (left == right), left, out)
        out = np.where(np.isnan(a) | np.isnan(b), 0, out)
        if out.ndim == 0:
            return int(out)
        return out.astype(int)


# ------------------------------------------------------------------------------------------
# exact polynomial arithmetic (coefficients lowest degree first) and Sturm root isolation

_Poly = list  # list[Fraction]


def _trim(p: Sequence[Fraction]) -> _Poly:
    p = [Fraction(c) for c in p]
    while p and p[-1] == 0:
        p.pop()
    return p


def _peval(p: _Poly, x: Fraction) -> Fraction:
    acc = Fraction(0)
    for c in reversed(p):
        acc = acc * x + c
    return acc


def _padd(*ps: Sequence[Fraction]) -> _Poly:
    out = [Fraction(0)] * max((len(p) for p in ps), default=0)
    for p in ps:
        for i, c in enumerate(p):
            out[i] += c
    return _trim(out)


def _pmul(*ps: Sequence[Fraction]) -> _Poly:
    out = [Fraction(1)]
    for p in ps:
        prod = [Fraction(0)] * (len(out) + len(p) - 1) if p else []
        for i, a in enumerate(out):
            for j, b in enumerate(p):
                prod[i + j] += a * b
        out = prod
    return _trim(out)


def _pscale(p: Sequence[Fraction], k: Fraction) -> _Poly:
    return _trim([k * c for c in p])


def _prem(a: _Poly, b: _Poly) -> _Poly:
    a = list(a)
    while len(a) >= len(b):
        k, f = len(a) - len(b), a[-1] / b[-1]
        for i, c in enumerate(b):
            a[i + k] -= f * c
        a = _trim(a)
    return a


def _pquo(a: _Poly, b: _Poly) -> _Poly:
    a, q = list(a), [Fraction(0)] * max(len(a) - len(b) + 1, 0)
    while len(a) >= len(b):
        k, f = len(a) - len(b), a[-1] / b[-1]
        q[k] = f
        for i, c in enumerate(b):
            a[i + k] -= f * c
        a = _trim(a)
    return _trim(q)


def _squarefree(p: _Poly) -> _Poly:
    """p / gcd(p, p'): the same real roots, each simple."""
    a, b = p, _trim([i * c for i, c in enumerate(p)][1:])
    while b:
        a, b = b, _prem(a, b)
    return _pquo(p, a)


def _sgn(x: Fraction) -> int:
    return (x > 0) - (x < 0)


def _sturm(q: _Poly) -> list[_Poly]:
    seq = [q, _trim([i * c for i, c in enumerate(q)][1:])]
    while len(seq[-1]) > 1:
        r = _prem(seq[-2], seq[-1])
        if not r:
            break
        seq.append([-c for c in r])
    return seq


def _variations(seq: list[_Poly], x: Fraction) -> int:
    signs = [s for s in (_sgn(_peval(p, x)) for p in seq) if s]
    return sum(1 for s, t in itertools.pairwise(signs) if s != t)


def _isolate(p: _Poly, lo: Fraction | None, hi: Fraction | None) -> list[tuple[Fraction, Fraction]]:
    """Intervals [l, r] (l == r for an exact root), increasing and disjoint, each holding one
    distinct real root of ``p`` in the open interval (lo, hi) (None: infinite), refined until
    ``r - l`` is below 2^-110 of the root's magnitude."""
    q = _squarefree(p)
    for end in (lo, hi):  # roots at the ends are not in the open interval
        if end is not None and _peval(q, end) == 0:
            q = _pquo(q, [-end, Fraction(1)])
    if len(q) <= 1:
        return []
    bound = 2 + max(abs(c / q[-1]) for c in q[:-1])  # every root has |r| < bound
    a = -bound if lo is None else lo
    b = bound if hi is None else hi
    seq = _sturm(q)
    out: list[tuple[Fraction, Fraction]] = []
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        count = _variations(seq, a) - _variations(seq, b)
        if count == 0:
            continue
        if count == 1:
            out.append(_refine(q, a, b))
            continue
        parts = 2 * len(q) + 1
        m = next(a + (b - a) * Fraction(k, parts) for k in range(parts // 2, parts)
                 if _peval(q, a + (b - a) * Fraction(k, parts)) != 0)
        stack += [(a, m), (m, b)]
    return sorted(out)


def _refine(q: _Poly, a: Fraction, b: Fraction) -> tuple[Fraction, Fraction]:
    """Bisect the one simple root of q in (a, b), with q(a) q(b) < 0."""
    sa = _sgn(_peval(q, a))
    for _ in range(6000):
        if (a > 0 or b < 0) and b - a <= min(abs(a), abs(b)) / 2**110:
            break
        m = (a + b) / 2
        s = _sgn(_peval(q, m))
        if s == 0:
            return m, m
        a, b = (m, b) if s == sa else (a, m)
    near = Fraction(float((a + b) / 2))  # a root that is a float (1, 0.5, ...) is found exactly
    if a <= near <= b and _peval(q, near) == 0:
        return near, near
    return a, b


def _poly_pattern(p: Sequence[Fraction], lo: Fraction | None, hi: Fraction | None):
    """The sign pattern of a polynomial on the open interval (lo, hi) (None: infinite).

    Returns (roots, signs): isolating intervals of the roots where the sign changes, increasing,
    and the sign on each piece between them.  The zero polynomial gives ([], [-1]): it stands
    for g'' = 0, a linear g, which is concave.
    """
    p = _trim(p)
    if not p:
        return [], [-1]
    roots = _isolate(p, lo, hi)
    if not roots:
        if lo is not None and hi is not None:
            samples = [(lo + hi) / 2]
        else:
            samples = [lo + 1 if lo is not None else (hi - 1 if hi is not None else Fraction(0))]
    else:
        samples = [(lo + roots[0][0]) / 2 if lo is not None else roots[0][0] - 1]
        samples += [(right + left) / 2 for (_, right), (left, _) in itertools.pairwise(roots)]
        samples.append((roots[-1][1] + hi) / 2 if hi is not None else roots[-1][1] + 1)
    signs = [_sgn(_peval(p, s)) for s in samples]
    kept_roots, kept_signs = [], [signs[0]]
    for root, s in zip(roots, signs[1:], strict=True):
        if s != kept_signs[-1]:  # a root of even multiplicity does not change the sign
            kept_roots.append(root)
            kept_signs.append(s)
    return kept_roots, kept_signs


# ------------------------------------------------------------------------------------------
# enclosures (mpmath interval arithmetic) and the map to the distribution's units

_PREC = 128  # bits of the interval arithmetic


def _enclose(iv, value) -> Any:
    """An interval holding ``value``: exact for a float, an int or a Fraction (outward)."""
    if isinstance(value, Fraction):
        return iv.mpf(value.numerator) / iv.mpf(value.denominator)
    if isinstance(value, (int, float)):
        return iv.mpf(value)
    return value


def _hull(iv, lo, hi) -> Any:
    """The interval from the lower end of lo's enclosure to the upper end of hi's."""
    return iv.make_mpf((_enclose(iv, lo)._mpi_[0], _enclose(iv, hi)._mpi_[1]))


def _bisect(iv, phi: Callable, lo: float, hi: float) -> Any | None:
    """An enclosure of the root of ``phi`` in (lo, hi), where phi < 0 at lo and > 0 at hi
    (certified here, or None) and, by the caller's derivation, has one root there."""
    lo, hi = iv.mpf(lo), iv.mpf(hi)
    if (phi(lo) < 0) is not True or (phi(hi) > 0) is not True:
        return None
    for _ in range(2000):
        mid = iv.sqrt(lo * hi) if (lo > 0) is True and (hi > 4 * lo) is True else (lo + hi) / 2
        m = mid.a
        if (m <= lo) is True or (m >= hi) is True:
            break
        v = phi(m)
        if (v < 0) is True:
            lo = m
        elif (v > 0) is True:
            hi = m
        else:
            break
    return _hull(iv, lo, hi)


def _mpf_ends(x) -> tuple[Any, Any]:
    import mpmath

    a, b = x._mpi_
    return mpmath.mp.make_mpf(a), mpmath.mp.make_mpf(b)


def _down(v) -> float:
    """The largest float <= v (an mpf)."""
    import mpmath

    f = float(v)
    while mpmath.mpf(f) > v:
        f = math.nextafter(f, -math.inf)
    return f


def _up(v) -> float:
    """The smallest float >= v (an mpf)."""
    import mpmath

    f = float(v)
    while mpmath.mpf(f) < v:
        f = math.nextafter(f, math.inf)
    return f


_MAXF = Fraction(1.7976931348623157e308)


def _to_x(iv, z, loc: float, scale: float) -> tuple[float, float]:
    """Floats (lo, hi) enclosing loc + scale * z (equal if that is a float), for z an
    enclosure, or a number (a float, an int or a Fraction: mapped exactly)."""
    if isinstance(z, (Fraction, int, float)):
        x = Fraction(loc) + Fraction(scale) * Fraction(z)
        if abs(x) > _MAXF:
            return (_MAXF, math.inf) if x > 0 else (-math.inf, -_MAXF)
        f = float(x)
        lo = f if Fraction(f) <= x else math.nextafter(f, -math.inf)
        hi = f if Fraction(f) >= x else math.nextafter(f, math.inf)
        return lo + 0.0, hi + 0.0
    a, b = _mpf_ends(iv.mpf(loc) + iv.mpf(scale) * z)
    return _down(a) + 0.0, _up(b) + 0.0


def _sweep(encl: list[tuple[float, float]], signs: Sequence[int]) -> tuple[tuple, tuple]:
    """Breaks and signs from the enclosures of the breaks (in order) and the pieces' signs:
    a piece inside an enclosure is unknown (0); pieces that vanish between overlapping
    enclosures are dropped; adjacent unknown pieces merge."""
    points = sorted({v for pair in encl for v in pair if math.isfinite(v)})
    bounds = [-math.inf, *points, math.inf]
    out_breaks: list[float] = []
    out_signs: list[int] = []
    for a, b in itertools.pairwise(bounds):
        if any(lo < hi and lo <= a and b <= hi for lo, hi in encl):
            s = 0
        else:
            s = signs[sum(1 for _, hi in encl if hi <= a)]
        if out_signs and s == 0 and out_signs[-1] == 0:
            continue  # merge with the unknown piece before
        if out_signs:
            out_breaks.append(a)
        out_signs.append(s)
    return tuple(out_breaks), tuple(out_signs)


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


# families whose shapes may be infinite (an absent truncation)
_INFINITE_SHAPES_OK = frozenset({"truncexpon", "truncnorm", "truncpareto", "truncweibull_min"})


def declared_families() -> tuple[str, ...]:
    """The ``scipy.stats`` family names that :func:`scipy_curvature` answers for, sorted.

    A few answer only for some shapes (``exponweib`` with ``a = 1``, ``genhyperbolic`` with
    ``p = 1``).

    Examples
    --------
    >>> "lognorm" in declared_families()
    True
    >>> "johnsonsu" in declared_families()
    False
    """
    return tuple(sorted(_TABLE))


def scipy_curvature(dist: Any) -> Curvature | None:
    r"""The declared :class:`Curvature` of the log-density of a frozen ``scipy.stats`` law.

    Looked up in a table keyed by ``dist.dist.name`` and derived from the family's density
    formula for each range of its shape parameters (:func:`declared_families`); ``loc`` and
    ``scale`` are read with the shapes (positional or keyword) and map every break
    ``z`` to ``loc + scale * z``, rounded outward (see the module on rounding).

    Parameters
    ----------
    dist : scipy.stats frozen continuous distribution

    Returns
    -------
    Curvature or None
        ``None`` for a family not in the table, a shape range not derived, or invalid
        parameters: only first-order bounds are then available.

    Raises
    ------
    ParameterError
        If ``dist`` is not a frozen ``scipy.stats`` continuous distribution.

    Examples
    --------
    >>> import scipy.stats as st
    >>> scipy_curvature(st.gamma(2.5, loc=1.0, scale=3.0)).breaks
    (1.0,)
    >>> c = scipy_curvature(st.beta(5.0, 0.75))  # concave, then convex from z = 0.8
    >>> c.signs, [round(b, 15) for b in c.breaks]
    ((0, -1, 0, 1, 0), [0.0, 0.8, 0.8, 1.0])
    >>> scipy_curvature(st.invgamma(3.0, scale=2.0)).breaks  # 2/(a+1), scaled
    (0.0, 1.0)
    >>> print(scipy_curvature(st.exponweib(2.0, 1.5)))
    None
    """
    import numpy as np
    import scipy.stats

    family = getattr(dist, "dist", None)
    if not isinstance(family, scipy.stats.rv_continuous) or not hasattr(dist, "support"):
        raise ParameterError(f"dist must be a frozen scipy.stats continuous distribution; got {dist!r}")
    name = family.name
    rule = _TABLE.get(name)
    if rule is None:
        return None
    try:
        shapes, loc, scale = family._parse_args(*dist.args, **dist.kwds)
        values = [_scalar(v) for v in (*shapes, loc, scale)]
        if any(v is None or math.isnan(v) for v in values):
            return None
        *shapes, loc, scale = values
        with np.errstate(all="ignore"):
            ok = bool(np.all(family._argcheck(*shapes)))
    except (TypeError, ValueError, ArithmeticError):
        return None
    if not (ok and 0 < scale < math.inf and math.isfinite(loc)):
        return None
    if name not in _INFINITE_SHAPES_OK and not all(math.isfinite(v) for v in shapes):
        return None
    from mpmath import iv

    saved = iv.prec
    try:
        iv.prec = _PREC
        decl = rule(iv, *shapes)
        if decl is None:
            return None
        encl = [_to_x(iv, b, loc, scale) for b in decl.breaks]
    except (ArithmeticError, ValueError, OverflowError):
        return None
    finally:
        iv.prec = saved
    breaks, signs = _sweep(encl, decl.signs)
    names = [s.strip() for s in family.shapes.split(",")] if family.shapes else []
    args = [f"{n}={v:g}" for n, v in zip(names, shapes, strict=True)]
    args += [f"{n}={v:g}" for n, v, default in (("loc", loc, 0), ("scale", scale, 1)) if v != default]
    return Curvature(breaks, signs, f"scipy.stats.{name}({', '.join(args)}): {decl.why}")
