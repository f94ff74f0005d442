r"""The comparison radii of :mod:`garesearch.constructions.comparison_sets`: the common radius :math:`a` and
each attribute's :math:`a_i = \min(a, R_i)` (Sec. 4.2), checked, clipped, and optimised one
radius per attribute by a pattern search (Sec. 4.2 finds that search "too expensive"; here
it is not).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from .._maximise import maximise
from ..errors import ParameterError


def _is_real(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _resolve_a(atts, a, tv) -> list[float] | None:
    if a is None:
        return None
    if _is_real(a):
        smallest = min(att.r for att in atts)
        if not (math.isfinite(a) and a > smallest):
            raise ParameterError(
                f"a (the common comparison radius) must be a finite number > {smallest:g}, the "
                f"smallest precision r (a radius at most r leaves every comparison set empty); got {a!r}")
        return _clipped(atts, tv, float(a))
    if isinstance(a, dict):
        a = [a.get(att.name) for att in atts]
    if not isinstance(a, Sequence) or len(a) != len(atts):
        raise ParameterError(f"a must be a number or one radius per attribute ({len(atts)}); got {a!r}")
    out = []
    for att, v in zip(atts, a, strict=True):
        if not (_is_real(v) and math.isfinite(v) and v > att.r):
            raise ParameterError(f"a for attribute {att.label} must be a finite number > r = {att.r}; got {v!r}")
        out.append(float(v))
    return out


def _clip_a(att, a, t) -> float:
    """The paper's :math:`a_i = \\min(a, R_i)` (Sec. 4.2), and at least ``r_i``."""
    return min(max(a, att.r), att.a_max(t))


def _clipped(atts, tv, a) -> list[float]:
    """Each attribute's radius :func:`_clip_a` for the common radius ``a``."""
    return [_clip_a(att, a, t) for att, t in zip(atts, tv, strict=True)]


def _largest_a(atts, tv) -> float:
    """The largest common radius worth trying: the largest :math:`R_i` over the attributes."""
    return max(att.a_max(t) for att, t in zip(atts, tv, strict=True))


def _best_common_radii(atts, tv, eps_at) -> list[float]:
    """The radii, clipped from the common radius that maximises ``eps_at(radii)`` (Sec. 4.2's
    single ``a``); from :func:`_largest_a` when no radius gives a finite value."""
    best_a, _ = _common_a_candidates(atts, tv, lambda x: eps_at(_clipped(atts, tv, x)))
    if best_a is None:
        best_a = _largest_a(atts, tv)
    return _clipped(atts, tv, best_a)


def _common_a_candidates(atts, tv, fun):
    """Best common radius: exact breakpoints of finite priors plus a bracketed Brent search."""
    lo = min(att.r for att in atts)
    hi = _largest_a(atts, tv)
    cands = [hi]
    for att, t in zip(atts, tv, strict=True):
        if att.finite:
            cands.extend(float(b) for b in att.breakpoints(t) if b > att.r)
    best_a, best_e = None, -math.inf
    for a in cands:
        e = fun(a)
        if e > best_e:
            best_a, best_e = a, e
    if not all(att.finite for att in atts) and hi > lo:
        a, e = maximise(np.vectorize(fun, otypes=[float]), lo, hi)
        if a is not None and e > best_e:
            best_a, best_e = float(a), e
    return best_a, best_e


def _radius_bounds(atts, tv):
    """Search interval of each comparison radius; ``None`` where it is fixed (discrete metric)."""
    return [None if att.discrete else (att.r, att.a_max(t)) for att, t in zip(atts, tv, strict=True)]


def _directions(n):
    """Unit vectors, then every 0/1 vector with at least two ones (moves along a ridge of
    :math:`\\max_i (a_i + r_i)`, where single coordinates cannot move)."""
    out = [tuple(1.0 if j == i else 0.0 for j in range(n)) for i in range(n)]
    out += [v for v in itertools.product((0.0, 1.0), repeat=n) if sum(v) >= 2]
    return [np.array(v) for v in out]


def _line_max(fun, x, d, bounds):
    """Best point of ``fun`` on the segment ``x + s d`` inside the bounds (grid, then Brent)."""
    free = [i for i, b in enumerate(bounds) if b is not None and d[i] != 0]
    if not free:
        return x, fun(x)
    s_lo = max(bounds[i][0] - x[i] for i in free)
    s_hi = min(bounds[i][1] - x[i] for i in free)
    if not s_hi > s_lo:
        return x, fun(x)
    s_lo += 1e-12 * max(1.0, abs(s_lo))

    def f1(s):
        return fun(x + s * d)

    s, e = maximise(np.vectorize(f1, otypes=[float]), s_lo, s_hi, n=49, fun1=f1)
    if s is None:
        return x, fun(x)
    return x + s * d, e


def optimise_radii(fun, atts, tv, start, *, max_rounds: int = 50):
    r"""Maximise ``fun(a)`` over the vector of comparison radii :math:`(a_1, \dots, a_n)`
    (Sec. 4.2: "optimizing a multivariate function ... is too expensive"; here it is not).

    Pattern search from ``start`` (the best common radius): line maximisations along each
    coordinate and along every 0/1 direction with at least two ones (a bracketing grid, then
    Brent), repeated until a round gains nothing; finally a check that no point
    :math:`a + h v`, :math:`v \in \{-1, 0, 1\}^n`, at relative steps ``h`` of 1e-3 and 1e-5, is
    better.  Returns ``(a, value, local_optimum)``.

    Examples
    --------
    A concave function with its maximum at ``(2, 3)``, inside the radii's range ``(r, 10]``:

    >>> from garesearch.goals import Attribute
    >>> from garesearch.priors import Uniform
    >>> x = Attribute(Uniform(0, 10), r=1, name="x")
    >>> y = Attribute(Uniform(0, 10), r=2, name="y")
    >>> a, value, local = optimise_radii(lambda v: -((v[0] - 2) ** 2 + (v[1] - 3) ** 2), [x, y],
    ...                                  [5.0, 5.0], [2.5, 2.5])
    >>> max(abs(a[0] - 2), abs(a[1] - 3)) < 1e-6, local
    (True, True)
    """
    bounds = _radius_bounds(atts, tv)
    x = np.array(start, dtype=float)
    best = fun(x)
    dirs = _directions(len(x))
    for _ in range(max_rounds):
        before = best
        for d in dirs:
            y, e = _line_max(fun, x, d, bounds)
            if e > best:
                x, best = y, e
        if not best > before * (1 + 1e-12) + 1e-300:
            break
    local = True
    for h in (1e-3, 1e-5):
        for v in itertools.product((-1.0, 0.0, 1.0), repeat=len(x)):
            step = np.array([0.0 if b is None else vi * h * max(b[1] - b[0], 1e-300)
                             for vi, b in zip(v, bounds, strict=True)])
            y = x + step
            if not any(step) or any(b is not None and not b[0] < yi <= b[1]
                                    for yi, b in zip(y, bounds, strict=True)):
                continue
            if fun(y) > best * (1 + 1e-9):
                local = False
    return tuple(float(v) for v in x), best, local
