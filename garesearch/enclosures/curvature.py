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
>>> from garesearch.enclosures.curvature import scipy_curvature
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
from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError
from ._curvature_enclose import (
    _PREC,
    _sweep,
    _to_x,
)
from ._curvature_families import _TABLE
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
