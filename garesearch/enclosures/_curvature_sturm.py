"""Exact polynomial arithmetic and Sturm root isolation for :mod:`garesearch.enclosures.curvature`.

Polynomials with rational coefficients (lowest degree first); the real roots of one are isolated
by Sturm sequences in rational arithmetic and refined by bisection, and its sign pattern
between them read off exactly.  Several families of :func:`garesearch.enclosures.curvature.scipy_curvature`
reduce the sign of the log-density's second derivative to such a polynomial (see that module's
docstring).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

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
