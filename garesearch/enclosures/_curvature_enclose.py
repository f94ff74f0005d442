"""Enclosures of the breaks of a :class:`garesearch.enclosures.curvature.Curvature`, in mpmath's interval
arithmetic, and their map to the distribution's units with outward rounding.

A break that is exactly a float stays one break; any other becomes two adjacent floats with a
piece of unknown sign between them (the rounding paragraph of :mod:`garesearch.enclosures.curvature`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

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
