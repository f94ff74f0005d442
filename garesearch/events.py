r"""Several attributes: AND and OR events (Sec. 4.2, 4.3, Theorems 1 and 2, Sec. 6.1).

A *goal* says when the attacker wins.  Build it from per-attribute parts and combine them
with ``&`` (AND: every attribute within its precision) and ``|`` (OR: at least one part)::

    gender = Attribute(Categorical({"M": .5, "F": .5}), r=0, name="gender")
    colour = Attribute(Categorical({...}), r=0, name="colour")
    epsilon_for(gender & colour, delta=0.1)     # AND event, Theorem 1
    epsilon_for(gender | colour, delta=0.1)     # OR event, Sec. 4.3 variant 2
    epsilon_for_each([gender, colour], delta=0.1)   # Sec. 4.3 variant 1

Attributes combined in one goal must be mutually independent (the paper's theorems say
"pairwise"; the product formula :math:`\Pr = \prod_i g_i` needs mutual independence).
Correlated attributes are one attribute with a joint prior (a ``Categorical`` over tuples).

The distance between two records is the :math:`\ell_p` norm (``norm``, default
:math:`\infty`) of the per-attribute distances; each attribute keeps its own unit.

Parts combined with ``&`` give a *box* of correct guesses, :math:`\prod_i [t_i - r_i, t_i +
r_i]`; ``norm`` only changes the distance in the exponent.  A *ball*
:math:`\{x : \lVert x - t\rVert_p \le r\}` (a location guessed within ``r`` metres, Sec. 6.3)
is one part of its own: :class:`Coordinates` ``([prior_x, prior_y], r=10, norm=2)``, whose
prior mass :func:`lp_ball_mass` integrates numerically (closed form for isotropic normals).

Soundness of the constructions
------------------------------
*AND (Theorem 1).*  :math:`X' = \prod_i \mathcal B(t_i, r_i)` and the comparison set is the
box :math:`\prod_i \mathcal B(t_i, a_i) \setminus X'`, of mass
:math:`\prod g_i(a_i) - \prod g_i(r_i)`.  The largest distance between a point of
:math:`X'` and one of the comparison set is :math:`\lVert (a_i + r_i)_i \rVert_p` (per
coordinate: from :math:`t_i - r_i` to :math:`t_i + a_i`), not :math:`\lVert a \rVert_\infty`
as Theorem 1 puts in the exponent (the univariate flaw of Eq. (main), see
:mod:`garesearch.attribute`).  The default ``construction="sound"`` uses the true largest
distance (cut to the priors' supports); ``construction="paper"`` keeps Theorem 1's exponent
to reproduce the paper.

*OR, inclusion-exclusion.*  :math:`p_{OR} = \Pr[\bigcup_k X'_k]` by inclusion-exclusion over
the AND-sets; comparison set = the complement, exponent = the diameter of the space
(Sec. 3.2).  Needs bounded attributes (always true for discrete ones: the cats example).

*OR, blocks (Theorem 2, corrected).*  Tile the space with boxes of half-widths
:math:`a_i` centred at :math:`t + 2\ell \circ a`, :math:`\ell \in \mathbb Z^n`.  In a box whose
set :math:`K` of coordinates holds :math:`t`'s ball, the prior odds of :math:`X'` against the
rest of the box are :math:`\alpha_K = \prod_{k \in K} \frac{g_k(a_k)}{g_k(a_k) - g_k(r_k)} - 1`
(independence), largest for :math:`K` = all; two points of a box differ by at most
:math:`2a_i` per coordinate, and by at most :math:`a_j + r_j` in a coordinate ``j`` that
puts the point of :math:`X'` in its ball.  Summing over boxes,

.. math:: \Pr_{post}[X'] \le \frac{1}{1 + e^{-\epsilon D}/\alpha}, \quad
   \alpha = \prod_i \frac{g_i(a_i)}{g_i(a_i) - g_i(r_i)} - 1, \quad
   D = \max_j \lVert (2a_1, \dots, a_j + r_j, \dots, 2a_n) \rVert_p ,

and we ask for :math:`\le p_{OR} + \delta` with :math:`p_{OR} = 1 - \prod_i (1 - g_i(r_i))`.
Theorem 2 as printed differs in three places: its exponent is :math:`\lVert a\rVert_\infty`
(its own derivation defines :math:`a = 2\lVert a \rVert_\infty`); it writes
:math:`g(a_i - 1)` where the mass of the box minus :math:`X'` is
:math:`\prod (g_i(a_i) - g_i(r_i))`; and its :math:`\epsilon_k` use the block's prior in the
:math:`\delta` term where the requirement is on the whole event.  Its :math:`\epsilon_k`
(blocks with one ball) never bind: :math:`\alpha_K` grows with :math:`K`.  The printed
version is kept as ``construction="paper"``.

The lower side
--------------
:math:`\Pr_{post}[X'] \ge p - \delta` is bounded with the diameter (Sec. 3.2's
:math:`\epsilon_{ub}`) when every attribute is bounded, and for AND events also with
:math:`\Pr_{post}[X'] \ge p / (p + M)`, :math:`M \le \prod_i E[e^{\epsilon D_i(X_i)}] - p`
(:math:`D_i` the largest distance from :math:`x_i` to :math:`X'_i`; from
:math:`\lVert D \rVert_p \le \lVert D \rVert_1`).  The larger of the sound values is used.
For OR events over unbounded attributes the lower side compares every wrong record with
all of :math:`X'` pointwise (:func:`_or_lower_pointwise`, derived there; not in the paper):
:math:`\Pr_{post}[X'] \ge 1/(1 + I(\epsilon))`, :math:`I = \int_C dF/K_1`, with
:math:`K_1(x) = \int_{X'} \prod_j e^{-\epsilon d_j(x_j, x'_j)} dF(x')` in closed form by
inclusion-exclusion.  An OR with an :math:`\ell_p`-ball part has no lower side here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import bound
from ._backend import NUMPY
from .attribute import _eps_main, _maximise, epsilon_for_attribute
from .errors import InfeasibleError, ParameterError
from .priors import Categorical, Continuous, Normal, PiecewiseUniform, Prior

__all__ = [
    "AllOf",
    "AnyOf",
    "Attribute",
    "Coordinates",
    "GoalResult",
    "SeparateResult",
    "epsilon_for",
    "epsilon_for_each",
    "epsilon_for_goal",
    "in_goal",
    "lp_ball_mass",
    "optimise_radii",
    "or_blocks",
    "or_lower_ratio",
    "or_probability",
    "theorem2_counterexample",
]

_CONSTRUCTIONS = ("sound", "paper")
_SIDES = ("both", "upper")
_OR_METHODS = ("best", "blocks", "inclusion-exclusion")
_MAX_ENUMERATION = 100_000


# ------------------------------------------------------------------------------------------
# Goals
# ------------------------------------------------------------------------------------------
def _is_real(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


class _Goal:
    """Common operators of goals: ``&`` is AND, ``|`` is OR (Sec. 4.2, 4.3)."""

    def __and__(self, other):
        return AllOf(self, other)

    def __or__(self, other):
        return AnyOf(self, other)

    def terms(self) -> tuple[tuple[Attribute, ...], ...]:
        """The goal as an OR of AND-sets (the paper's collection :math:`\\mathcal S`)."""
        raise NotImplementedError


class Attribute(_Goal):
    r"""One sensitive attribute: the attacker wins on it by guessing within ``r`` (Def. 7).

    Parameters
    ----------
    prior : Prior
        The attacker's prior of this attribute (:mod:`garesearch.priors`).
    r : float
        Precision of a correct guess: :math:`X'_i = \mathcal B(t_i, r)`; ``0 <= r`` and ``r``
        below the prior's diameter (below 1 under the discrete metric).
    name : str, optional
        A label (used in results, and to catch the same attribute passed twice).
    """

    def __init__(self, prior: Prior, *, r: float, name: str | None = None):
        if not isinstance(prior, Prior):
            raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
        if not (_is_real(r) and math.isfinite(r)):
            raise ParameterError(f"r must be a finite real number; got {r!r}")
        if r < 0:
            raise ParameterError(f"r must be >= 0; got {r}")
        if r >= self._diameter_of(prior):
            raise ParameterError(
                f"r must lie in [0, R) with R = {self._diameter_of(prior)} the diameter of the "
                f"prior's support (a larger r makes every guess correct); got r={r}"
            )
        if name is not None and not isinstance(name, str):
            raise ParameterError(f"name must be a string; got {name!r}")
        self.prior = prior
        self.r = float(r)
        self.name = name

    def __repr__(self):
        label = f", name={self.name!r}" if self.name else ""
        return f"Attribute({self.prior!r}, r={self.r}{label})"

    def terms(self):
        return ((self,),)

    # --- metric helpers -----------------------------------------------------------------
    @staticmethod
    def _diameter_of(prior) -> float:
        if isinstance(prior, Categorical) and prior.metric == "discrete":
            return 1.0 if len(prior.values) > 1 else 0.0
        low, high = prior.support
        return high - low

    @property
    def discrete(self) -> bool:
        """True under the discrete metric (non-numeric values, distance 1)."""
        return isinstance(self.prior, Categorical) and self.prior.metric == "discrete"

    @property
    def diameter(self) -> float:
        """Largest distance between two values of the prior (may be ``inf``)."""
        return self._diameter_of(self.prior)

    @property
    def finite(self) -> bool:
        return isinstance(self.prior, Categorical)

    def values(self) -> list:
        """The finitely many values (finite priors only)."""
        return list(self.prior.values)

    def check_t(self, t):
        """Raise :class:`ParameterError` unless ``t`` is a value the prior allows."""
        if self.discrete:
            self.prior.probability(t)
            return t
        if not (_is_real(t) and math.isfinite(t)):
            raise ParameterError(f"t for attribute {self.label} must be a finite number; got {t!r}")
        low, high = self.prior.support
        if not low <= t <= high:
            raise ParameterError(
                f"t for attribute {self.label} must lie in the support [{low}, {high}]; got {t}"
            )
        return float(t)

    @property
    def label(self) -> str:
        return self.name if self.name else repr(self.prior)

    def g(self, t, z) -> float:
        r"""The paper's :math:`g_t(z) = \Pr[d(X, t) \le z]` (Sec. 4.1)."""
        if self.discrete:
            return 1.0 if z >= 1 else self.prior.probability(t)
        return float(self.prior.ball_mass(t, z))

    def spread(self, t, a) -> float:
        """Largest distance between a point of :math:`\\mathcal B(t, r)` and one of
        :math:`\\mathcal B(t, a)`, both cut to the prior's support."""
        if self.discrete:
            return 1.0 if a >= 1 else 0.0
        lo_r, hi_r = self.prior.correct_extent(t, self.r)
        lo_a, hi_a = self.prior.correct_extent(t, a)
        return max(hi_r - lo_a, hi_a - lo_r, 0.0)

    def width(self, a) -> float:
        """Largest distance between two points of one tile of half-width ``a``."""
        if self.discrete:
            return 1.0 if a >= 1 else 0.0
        return min(2.0 * a, self.diameter)

    def a_max(self, t) -> float:
        """Largest useful comparison radius around ``t`` (covers the whole support)."""
        if self.discrete:
            return 1.0
        low, high = self.prior.support
        if not math.isfinite(low):
            low = float(self.prior.quantile(1e-12))
        if not math.isfinite(high):
            high = float(self.prior.quantile(1 - 1e-12))
        return max(t - low, high - t, self.r)

    def breakpoints(self, t) -> np.ndarray:
        """Radii at which the ball mass jumps (finite priors)."""
        if self.discrete:
            return np.array([1.0])
        return np.unique(np.abs(self.prior._x - t))

    @property
    def prior_objects(self) -> tuple:
        return (self.prior,)

    def tile_mass(self, t, a) -> float:
        """Mass of the central tile of the OR blocks (the interval of half-width ``a``)."""
        return self.g(t, a)

    def tile_spread(self, t, a) -> float:
        return self.spread(t, a)

    def moment(self, epsilon, t) -> float:
        r"""Upper bound on :math:`E[e^{\epsilon D(X)}]`, :math:`D(x)` the largest distance
        from ``x`` to :math:`\mathcal B(t, r)` (used for the lower side)."""
        if self.discrete:
            p = self.prior.probability(t)
            return p + (1 - p) * math.exp(epsilon)
        lo, hi = self.prior.correct_extent(t, self.r)
        return self.prior.tail_mgf(epsilon, lo, hi) + self.g(t, self.r) * math.exp(epsilon * (hi - lo))


# ------------------------------------------------------------------------------------------
# Coordinates guessed together within an l_p ball
# ------------------------------------------------------------------------------------------
def _pdf(prior: Prior, x: float) -> float:
    """Density of a continuous prior at ``x`` (the integrand of :func:`lp_ball_mass`)."""
    if isinstance(prior, Normal):
        z = (x - prior.mu) / prior.sigma
        return math.exp(-0.5 * z * z) / (prior.sigma * math.sqrt(2 * math.pi))
    if isinstance(prior, PiecewiseUniform):
        if not prior.edges[0] <= x <= prior.edges[-1]:
            return 0.0
        i = min(int(np.searchsorted(prior.edges, x, side="right")) - 1, prior.density.size - 1)
        return float(prior.density[i])
    if isinstance(prior, Continuous):
        return float(prior.dist.pdf(x))
    raise ParameterError(f"no density for a prior of type {type(prior).__name__}")


def _section(z: float, d: float, norm: float) -> float:
    r"""Radius left for the other coordinates: :math:`(z^p - d^p)^{1/p}` (``-1`` if ``d > z``)."""
    if d > z:
        return -1.0
    if math.isinf(norm):
        return z
    if norm == 1:
        return z - d
    return (z**norm - d**norm) ** (1.0 / norm) if d < z else 0.0


def _closed_form_ball(priors, t, z, norm):
    r"""Isotropic normal priors in :math:`\ell_2`: :math:`\lVert X - t\rVert_2^2/\sigma^2` is
    non-central chi-square with ``n`` degrees of freedom; ``None`` where this does not apply."""
    if norm != 2 or not all(isinstance(p, Normal) for p in priors):
        return None
    s = priors[0].sigma
    if any(p.sigma != s for p in priors):
        return None
    from scipy import stats

    nc = sum(((p.mu - ti) / s) ** 2 for p, ti in zip(priors, t, strict=True))
    x = (z / s) ** 2
    if nc == 0:
        return float(stats.chi2.cdf(x, len(priors)))
    return float(stats.ncx2.cdf(x, len(priors), nc))


def _ball_quad(priors, t, z, norm, tol):
    """(mass, error estimate) of the l_p ball by summing / integrating over the first
    coordinate the mass of the section of the others (recursively)."""
    first, rest = priors[0], priors[1:]
    t0, trest = t[0], t[1:]

    def inner(x):
        h = _section(z, abs(x - t0), norm)
        if h < 0:
            return 0.0, 0.0
        if len(rest) == 1:
            return float(rest[0]._mass1(trest[0] - h, trest[0] + h)), 0.0
        return _ball_quad(rest, trest, h, norm, tol)

    if isinstance(first, Categorical):
        sel = np.abs(first._x - t0) <= z
        total = err = 0.0
        for x, w in zip(first._x[sel], first.probs[sel], strict=True):
            v, e = inner(float(x))
            total += w * v
            err += w * e
        return total, err
    from scipy.integrate import quad

    low, high = first.support
    lo, hi = max(t0 - z, low), min(t0 + z, high)
    if hi <= lo:
        return 0.0, 0.0
    points = [t0] if lo < t0 < hi else []
    if isinstance(first, PiecewiseUniform):
        points += [float(e) for e in first.edges if lo < e < hi]
    val, err = quad(lambda x: _pdf(first, x) * inner(x)[0], lo, hi, points=points or None,
                    epsabs=tol, epsrel=tol, limit=200)
    return float(val), float(err)


def lp_ball_mass(priors: Sequence[Prior], t: Sequence[float], z: float, *, norm: float = 2.0,
                 method: str = "auto", tol: float = 1e-11, return_error: bool = False):
    r"""Prior mass of the :math:`\ell_p` ball :math:`\{x : \lVert x - t \rVert_p \le z\}` for
    independent numeric coordinates: the :math:`g_t(z)` of Sec. 4.2 for a ball instead of a box.

    .. math:: g_t(z) = \int f_1(x_1)\, g^{(2..n)}_{t_{2..n}}\!\big((z^p - |x_1 - t_1|^p)^{1/p}\big)\, dx_1

    (a sum over the atoms of a finite prior), recursively down to one coordinate, by adaptive
    Gauss-Kronrod quadrature (``scipy.integrate.quad``) with absolute and relative tolerance
    ``tol``; :math:`\ell_\infty` is the product of the interval masses.  Isotropic normal
    coordinates under :math:`\ell_2` have the closed form :math:`\Pr[\chi'^2_n(\lambda) \le
    z^2/\sigma^2]`, :math:`\lambda = \lVert \mu - t\rVert_2^2/\sigma^2` (at the centre of two
    coordinates: the Rayleigh law :math:`1 - e^{-z^2/(2\sigma^2)}`, Sec. 6.3).

    Parameters
    ----------
    priors : sequence of Prior
        Numeric priors of the coordinates (:class:`~garesearch.priors.Normal`,
        :class:`~garesearch.priors.PiecewiseUniform`, :class:`~garesearch.priors.Continuous`,
        numeric :class:`~garesearch.priors.Categorical`); mutually independent.
    t : sequence of float
        Centre of the ball.
    z : float
        Radius (``z < 0``: an empty ball).
    norm : float
        The ``p`` of the :math:`\ell_p` norm, in [1, inf].
    method : {"auto", "quad"}
        ``"quad"`` skips the closed form.
    tol : float
        Tolerance of the quadrature.
    return_error : bool
        Also return the quadrature's error estimate (0 for closed forms and sums).

    Returns
    -------
    float, or (float, float)
    """
    norm = _check_norm(norm)
    if method not in ("auto", "quad"):
        raise ParameterError(f"method must be 'auto' or 'quad'; got {method!r}")
    priors = tuple(priors)
    if not priors or len(priors) != len(t):
        raise ParameterError("priors and t must have the same, non-zero, length")
    for p in priors:
        if not isinstance(p, Prior) or p.metric != "absolute":
            raise ParameterError("every coordinate needs a numeric prior (absolute metric)")
    t = tuple(float(x) for x in t)
    if not (_is_real(z) and not math.isnan(z)):
        raise ParameterError(f"z must be a real number; got {z!r}")
    out, err = None, 0.0
    if z < 0:
        out = 0.0
    elif math.isinf(norm) or len(priors) == 1:
        out = math.prod(float(p._mass1(ti - z, ti + z)) for p, ti in zip(priors, t, strict=True))
    elif method == "auto":
        out = _closed_form_ball(priors, t, z, norm)
    if out is None:
        out, err = _ball_quad(priors, t, float(z), norm, tol)
    out = min(max(out, 0.0), 1.0)
    return (out, err) if return_error else out


class Coordinates(_Goal):
    r"""Numeric coordinates guessed together within an :math:`\ell_p` ball (Sec. 4.2, 6.3).

    The attacker wins if the guess lies in :math:`X' = \{x : \lVert x - t\rVert_p \le r\}`
    (``norm=2``: within ``r`` of the true location, as in the ships example of Sec. 6.3),
    not in the box :math:`\prod_i [t_i - r, t_i + r]` that :class:`Attribute` parts combined
    with ``&`` describe.  The coordinates count as one part of a goal whose distance is
    :math:`\lVert x - x'\rVert_p`; combined with other parts by ``&`` and ``|``, the records'
    distance is the ``norm`` of :func:`epsilon_for_goal` over the parts' distances.

    *Upper side.*  The comparison set is the shell :math:`\{r < \lVert x - t\rVert_p \le a\}`
    of mass :math:`g_t(a) - g_t(r)` (:func:`lp_ball_mass`); a point of the ball and one of the
    shell are at most :math:`a + r` apart (triangle inequality; attained when both sides are
    inside the support), which goes into the exponent of Eq. (main).
    *Lower side.*  The largest distance from ``x`` to :math:`X'` is
    :math:`\lVert x - t\rVert_p + r \le \sum_i |x_i - t_i| + r`, so
    :math:`E[e^{\epsilon D(X)}] \le e^{\epsilon r}\prod_i E[e^{\epsilon |X_i - t_i|}]` enters
    the bound of the module docstring (sound, loose by up to the ratio of the
    :math:`\ell_1` and :math:`\ell_p` norms); with bounded coordinates also Sec. 3.2's
    :math:`\epsilon_{ub}` over the diameter.
    *OR blocks.*  The tiles are cubes of half-width ``a`` around ``t`` (they hold the ball for
    ``a >= r``): two points of a cube are at most :math:`2 a n^{1/p}` apart, a point of the
    ball and one of the cube at most :math:`a n^{1/p} + r`.

    Parameters
    ----------
    priors : sequence of Prior
        Independent numeric priors of the coordinates (at least two).
    r : float
        Radius of a correct guess, ``>= 0``.
    norm : float
        The ``p`` of the ball, in [1, inf] (default 2).
    name : str, optional

    Examples
    --------
    The ships of Sec. 6.3 with independent :math:`N(0, 1250)` coordinates:

    >>> from garesearch.priors import Normal
    >>> ship = Coordinates([Normal(0, 1250 ** 0.5), Normal(0, 1250 ** 0.5)], r=10, name="ship")
    >>> round(ship.g((0.0, 0.0), 10), 4)
    0.0392
    """

    discrete = False
    finite = False

    def __init__(self, priors: Sequence[Prior], *, r: float, norm: float = 2.0, name: str | None = None):
        if isinstance(priors, Prior) or not isinstance(priors, Sequence):
            raise ParameterError("priors must be a sequence of priors, one per coordinate")
        priors = tuple(priors)
        if len(priors) < 2:
            raise ParameterError(f"Coordinates needs at least two priors; got {len(priors)} (use Attribute)")
        for p in priors:
            if not isinstance(p, Prior) or p.metric != "absolute":
                raise ParameterError("every coordinate needs a numeric garesearch.priors.Prior")
        if len({id(p) for p in priors}) != len(priors):
            raise ParameterError("the coordinates share a prior object: give each its own prior")
        if not (_is_real(r) and math.isfinite(r) and r >= 0):
            raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
        self.norm = _check_norm(norm)
        if name is not None and not isinstance(name, str):
            raise ParameterError(f"name must be a string; got {name!r}")
        self.priors = priors
        self.r = float(r)
        self.name = name
        if not self.r < self.diameter:
            raise ParameterError(f"r must lie in [0, R) with R = {self.diameter} the diameter; got r={r}")

    def __repr__(self):
        label = f", name={self.name!r}" if self.name else ""
        return f"Coordinates({list(self.priors)!r}, r={self.r}, norm={self.norm}{label})"

    def terms(self):
        return ((self,),)

    @property
    def prior_objects(self) -> tuple:
        return self.priors

    @property
    def label(self) -> str:
        return self.name if self.name else repr(self)

    @property
    def dim(self) -> int:
        return len(self.priors)

    @property
    def diameter(self) -> float:
        return _lp([p.support[1] - p.support[0] for p in self.priors], self.norm)

    def check_t(self, t):
        if isinstance(t, (str, bytes)) or not isinstance(t, (Sequence, np.ndarray)) or len(t) != self.dim:
            raise ParameterError(f"t for {self.label} must be {self.dim} numbers; got {t!r}")
        out = []
        for p, v in zip(self.priors, t, strict=True):
            if not (_is_real(v) and math.isfinite(v)):
                raise ParameterError(f"t for {self.label} must be finite numbers; got {t!r}")
            low, high = p.support
            if not low <= v <= high:
                raise ParameterError(f"t for {self.label}: {v} lies outside the support [{low}, {high}]")
            out.append(float(v))
        return tuple(out)

    def g(self, t, z) -> float:
        r""":math:`g_t(z) = \Pr[\lVert X - t\rVert_p \le z]` (:func:`lp_ball_mass`)."""
        return lp_ball_mass(self.priors, t, z, norm=self.norm)

    def spread(self, t, a) -> float:
        """Largest distance between a point of the ball of radius ``r`` and one of radius ``a``."""
        return min(a + self.r, self.diameter)

    def tile_mass(self, t, a) -> float:
        """Mass of the cube of half-width ``a`` around ``t`` (the central tile of the OR blocks)."""
        return math.prod(float(p._mass1(ti - a, ti + a)) for p, ti in zip(self.priors, t, strict=True))

    def tile_spread(self, t, a) -> float:
        return min(a * self.dim ** (1.0 / self.norm) + self.r, self.diameter)

    def width(self, a) -> float:
        return min(2.0 * a * self.dim ** (1.0 / self.norm), self.diameter)

    def a_max(self, t) -> float:
        ext = []
        for p, ti in zip(self.priors, t, strict=True):
            low, high = p.support
            if not math.isfinite(low):
                low = float(p.quantile(1e-12))
            if not math.isfinite(high):
                high = float(p.quantile(1 - 1e-12))
            ext.append(max(ti - low, high - ti))
        return max(_lp(ext, self.norm), self.r)

    def moment(self, epsilon, t) -> float:
        r"""Upper bound :math:`e^{\epsilon r}\prod_i E[e^{\epsilon|X_i - t_i|}]` on
        :math:`E[e^{\epsilon D(X)}]` (class docstring)."""
        out = math.exp(epsilon * self.r)
        for p, ti in zip(self.priors, t, strict=True):
            out *= p.tail_mgf(epsilon, ti, ti) + float(p._mass1(ti, ti))
        return out

    def contains(self, x, t) -> np.ndarray:
        """Whether points ``x`` (last axis: the coordinates) lie in the ball around ``t``."""
        d = np.abs(np.asarray(x, dtype=float) - np.asarray(t, dtype=float))
        if math.isinf(self.norm):
            return np.max(d, axis=-1) <= self.r
        return np.sum(d**self.norm, axis=-1) ** (1.0 / self.norm) <= self.r * (1 + 1e-12)


class AllOf(_Goal):
    """AND of parts: the attacker must guess every attribute within its precision (Sec. 4.2)."""

    def __init__(self, *parts):
        if not parts:
            raise ParameterError("an AND goal needs at least one attribute; got none")
        flat = []
        for part in parts:
            if not isinstance(part, _Goal):
                raise ParameterError(f"parts of a goal must be Attribute or goals; got {type(part).__name__}")
            flat.append(part)
        self.parts = tuple(flat)
        self.terms()  # validates

    def __repr__(self):
        return "(" + " & ".join(map(repr, self.parts)) + ")"

    def terms(self):
        # distribute AND over OR: (a | b) & c = (a & c) | (b & c)
        out = [()]
        for part in self.parts:
            out = [left + right for left in out for right in part.terms()]
        return tuple(_dedupe_and(term) for term in out)


class AnyOf(_Goal):
    """OR of parts: the attacker wins by guessing at least one part (Sec. 4.3, variant 2)."""

    def __init__(self, *parts):
        if not parts:
            raise ParameterError("an OR goal needs at least one part; got none")
        for part in parts:
            if not isinstance(part, _Goal):
                raise ParameterError(f"parts of a goal must be Attribute or goals; got {type(part).__name__}")
        self.parts = tuple(parts)
        self.terms()

    def __repr__(self):
        return "(" + " | ".join(map(repr, self.parts)) + ")"

    def terms(self):
        return tuple(term for part in self.parts for term in part.terms())


def _dedupe_and(term: tuple[Attribute, ...]) -> tuple[Attribute, ...]:
    """An AND-set may not hold the same attribute twice (the product formula needs
    independent factors)."""
    seen: list[Attribute] = []
    for att in term:
        for other in seen:
            if other is att:
                raise ParameterError(
                    f"attribute {att.label} appears twice in one AND; the attributes of an AND "
                    "must be independent (use one attribute with a joint prior for correlated ones)"
                )
        seen.append(att)
    return tuple(seen)


def _attributes(terms) -> list[Attribute]:
    """Distinct attributes of a goal (by identity), checked for obvious dependence."""
    atts: list[Attribute] = []
    for term in terms:
        for att in term:
            if not any(att is other for other in atts):
                atts.append(att)
    for x, y in itertools.combinations(atts, 2):
        if any(u is v for u in x.prior_objects for v in y.prior_objects):
            raise ParameterError(
                f"attributes {x.label} and {y.label} share one prior object: the attributes of a "
                "goal must be independent. Give each its own prior, or describe correlated "
                "attributes by one joint prior"
            )
        if x.name is not None and x.name == y.name:
            raise ParameterError(f"two different attributes are both named {x.name!r}")
    return atts


def _as_goal(goal) -> _Goal:
    if isinstance(goal, _Goal):
        return goal
    raise ParameterError(f"goal must be an Attribute or a combination with & and |; got {type(goal).__name__}")


# ------------------------------------------------------------------------------------------
# Results
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GoalResult:
    """What :func:`epsilon_for_goal` found.

    Attributes
    ----------
    epsilon : float
        The epsilon, per unit of the records' :math:`\\ell_p` distance.
    t : dict
        The true values (attribute label -> value) it was computed for.
    p : float
        Prior probability that the attacker wins (of :math:`X'`).
    event : str
        ``"and"`` or ``"or"``.
    method : str
        Construction that set the upper side: ``"box"`` (AND), ``"blocks"`` or
        ``"inclusion-exclusion"`` (OR).
    ratio : float
        Bound on the prior odds that enter the posterior bound (``p/q`` for a comparison
        set of mass ``q``; :math:`\\alpha` for OR blocks).
    distance : float
        The factor of epsilon in the exponent.
    a : tuple
        Comparison radii (per attribute).
    epsilon_upper, epsilon_lower : float
        Epsilon of each side (``inf`` where a side does not bind).
    """

    epsilon: float
    t: dict
    p: float
    event: str
    method: str
    ratio: float
    distance: float
    a: tuple
    epsilon_upper: float
    epsilon_lower: float
    binding: str
    delta: float
    norm: float
    construction: str
    candidates: dict = field(default_factory=dict, repr=False)

    def laplace_scale(self, sensitivity: float = 1.0) -> float:
        """Scale ``b = sensitivity / epsilon`` of Laplace noise with this epsilon (Sec. 6.1)."""
        if not (_is_real(sensitivity) and math.isfinite(sensitivity) and sensitivity > 0):
            raise ParameterError(f"sensitivity must be a finite number > 0; got {sensitivity!r}")
        return sensitivity / self.epsilon

    def posterior_bound(self) -> float:
        """Upper bound on the posterior of :math:`X'` at ``epsilon`` (at most ``p + delta``)."""
        if not math.isfinite(self.ratio) or self.ratio <= 0:
            return 1.0
        return float(bound.posterior_bound_formula(self.epsilon, self.ratio, 1.0, self.distance,
                                                   NUMPY))


@dataclass(frozen=True)
class SeparateResult:
    """Sec. 4.3, variant 1: every goal protected on its own; the smallest epsilon wins."""

    epsilon: float
    worst: int
    results: tuple

    def laplace_scale(self, sensitivity: float = 1.0) -> float:
        return self.results[self.worst].laplace_scale(sensitivity)


# ------------------------------------------------------------------------------------------
# Small pure pieces
# ------------------------------------------------------------------------------------------
def _check_norm(norm) -> float:
    if not _is_real(norm) or math.isnan(norm) or norm < 1:
        raise ParameterError(f"norm must be a number in [1, inf] (the l_p norm); got {norm!r}")
    return float(norm)


def _lp(values, norm) -> float:
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return 0.0
    if math.isinf(norm):
        return float(np.max(np.abs(v)))
    return float(np.sum(np.abs(v) ** norm) ** (1.0 / norm))


def _eps_from_odds(delta, p, odds, D) -> float:
    r"""Largest epsilon with :math:`1/(1 + e^{-\epsilon D}/\text{odds}) \le p + \delta`
    (Eq. (main) with :math:`p/q` = odds); ``inf`` if ``p + delta >= 1``, ``-inf`` if none."""
    if p + delta >= 1:
        return math.inf
    if not (odds > 0 and math.isfinite(odds) and D > 0):
        return -math.inf
    return float(_eps_main(p, p / odds, delta, D))


def _lower_from_moment(p, delta, moment) -> float:
    r"""Largest epsilon with :math:`p/(p + M(\epsilon)) \ge p - \delta`, ``M`` increasing."""
    if p <= delta:
        return math.inf
    target = p * (1 - p + delta) / (p - delta)

    def excess(e):
        m = moment(e)
        return 1e300 if not math.isfinite(m) else m - target

    if excess(0.0) >= 0:
        return 0.0
    hi = 1e-3
    while excess(hi) < 0:
        hi *= 4
        if hi > 1e6:
            return math.inf
    from scipy.optimize import brentq

    return float(brentq(excess, hi / 4 if excess(hi / 4) < 0 else 0.0, hi, xtol=1e-15, rtol=1e-13))


def or_probability(goal, t) -> float:
    r"""Prior probability that the attacker wins an OR of AND-sets, by inclusion-exclusion
    (Sec. 4.3, Sec. 6.1).

    .. math:: \Pr\Big[\bigcup_k X'_k\Big] = \sum_{\emptyset \ne S} (-1)^{|S|+1}
       \prod_{i \in \cup_{k \in S} S_k} g_i\big(\min_{k \in S,\, i \in S_k} r_i\big)

    (attributes independent; an attribute shared by two sets counts once).

    Parameters
    ----------
    goal : Attribute, AllOf or AnyOf
    t : Mapping or sequence
        The true values, keyed by attribute name or in the order of first appearance.
    """
    terms = _as_goal(goal).terms()
    atts = _attributes(terms)
    tv = _resolve_t(atts, t)
    return _or_probability(terms, atts, tv)


def _or_probability(terms, atts, tv) -> float:
    index = {id(a): i for i, a in enumerate(atts)}
    total = 0.0
    if len(terms) > 20:
        raise ParameterError(f"an OR of {len(terms)} sets is too large for inclusion-exclusion (max 20)")
    for size in range(1, len(terms) + 1):
        for subset in itertools.combinations(terms, size):
            radius: dict[int, float] = {}
            for term in subset:
                for att in term:
                    k = index[id(att)]
                    radius[k] = min(radius.get(k, math.inf), att.r)
            prob = math.prod(atts[k].g(tv[k], radius[k]) for k in radius)
            total += (-1) ** (size + 1) * prob
    return min(max(total, 0.0), 1.0)


def _resolve_t(atts, t) -> list:
    """True values in the order of ``atts`` from a mapping (by name) or a sequence."""
    if isinstance(t, dict):
        out = []
        for att in atts:
            if att.name is None or att.name not in t:
                raise ParameterError(
                    f"t: no value for attribute {att.label}; give t as {{name: value}} with every "
                    "attribute named, or as a sequence in the order the attributes appear"
                )
            out.append(att.check_t(t[att.name]))
        extra = set(t) - {a.name for a in atts}
        if extra:
            raise ParameterError(f"t: unknown attribute names {sorted(extra)}")
        return out
    if isinstance(t, np.ndarray):
        t = t.tolist()
    if isinstance(t, (str, bytes)) or not isinstance(t, Sequence):
        raise ParameterError(f"t must be a mapping or a sequence with one value per attribute; got {t!r}")
    if len(atts) == 1 and isinstance(atts[0], Coordinates) and all(_is_real(v) for v in t):
        return [atts[0].check_t(t)]  # one ball: t may be its point itself
    if len(t) != len(atts):
        raise ParameterError(f"t must have one value per attribute ({len(atts)}); got {len(t)}")
    return [att.check_t(v) for att, v in zip(atts, t, strict=True)]


def _resolve_a(atts, a, tv) -> list[float] | None:
    if a is None:
        return None
    if _is_real(a):
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
        a, e = _maximise(np.vectorize(fun, otypes=[float]), lo, hi)
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

    s, e = _maximise(np.vectorize(f1, otypes=[float]), s_lo, s_hi, n=49, fun1=f1)
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


# ------------------------------------------------------------------------------------------
# AND events (Theorem 1)
# ------------------------------------------------------------------------------------------
def _and_upper_at(atts, tv, delta, norm, avec, construction):
    """(epsilon, odds, D) for one AND-set at comparison radii ``avec``."""
    p = math.prod(att.g(t, att.r) for att, t in zip(atts, tv, strict=True))
    G = math.prod(att.g(t, a) for att, t, a in zip(atts, tv, avec, strict=True))
    q = G - p
    if construction == "paper":
        D = _lp(avec, norm)  # Theorem 1: a = ||a||
    else:
        D = _lp([att.spread(t, a) for att, t, a in zip(atts, tv, avec, strict=True)], norm)
    if p <= 0:
        return -math.inf, math.inf, D
    odds = p / q if q > 0 else math.inf
    return _eps_from_odds(delta, p, odds, D), odds, D


def _and_lower(atts, tv, delta, norm, p):
    if p <= delta:
        return math.inf
    best = 0.0
    diam = _lp([att.diameter for att in atts], norm)
    if math.isfinite(diam) and p < 1:
        best = float(bound.eps_ub(delta=delta, p=p, R=diam))
    mgf = _lower_from_moment(
        p, delta,
        lambda e: math.prod(att.moment(e, t) for att, t in zip(atts, tv, strict=True)) - p,
    )
    return max(best, mgf)


def _and_one_t(atts, tv, delta, norm, a, sides, construction, radii="common"):
    p = math.prod(att.g(t, att.r) for att, t in zip(atts, tv, strict=True))
    extra = {}
    avec = _resolve_a(atts, a, tv)

    def eps_at(av):
        return _and_upper_at(atts, tv, delta, norm, av, construction)[0]

    if avec is None:
        if p + delta >= 1:
            avec = _clipped(atts, tv, _largest_a(atts, tv))
        else:
            avec = _best_common_radii(atts, tv, eps_at)
        if radii == "each" and len(atts) > 1 and p + delta < 1:
            extra["common_a"] = eps_at(avec)
            avec, _, extra["local_optimum"] = optimise_radii(eps_at, atts, tv, avec)
    e_up, odds, D = _and_upper_at(atts, tv, delta, norm, avec, construction)
    if sides == "upper":
        low = math.inf
    elif construction == "paper":
        diam = _lp([att.diameter for att in atts], norm)
        low = float(bound.eps_ub(delta=delta, p=p, R=diam)) if math.isfinite(diam) and 0 < p < 1 else math.inf
    else:
        low = _and_lower(atts, tv, delta, norm, p)
    return dict(p=p, method="box", ratio=odds, distance=D, a=tuple(avec),
                epsilon_upper=e_up, epsilon_lower=low, candidates=extra)


# ------------------------------------------------------------------------------------------
# OR events (Sec. 4.3, Theorem 2)
# ------------------------------------------------------------------------------------------
def _blocks_at(terms, atts, tv, delta, norm, avec, p_or):
    """Corrected Theorem 2 at radii ``avec``: (epsilon, alpha, D)."""
    index = {id(a): i for i, a in enumerate(atts)}
    factor = 1.0
    for term in terms:
        ks = [index[id(att)] for att in term]
        G = math.prod(atts[k].tile_mass(tv[k], avec[k]) for k in ks)
        P = math.prod(atts[k].g(tv[k], atts[k].r) for k in ks)
        if G - P <= 0:
            return -math.inf, math.inf, math.inf
        factor *= G / (G - P)
    alpha = factor - 1.0
    widths = [att.width(a) for att, a in zip(atts, avec, strict=True)]
    D = 0.0
    for term in terms:
        v = list(widths)
        for att in term:
            k = index[id(att)]
            v[k] = min(att.tile_spread(tv[k], avec[k]), widths[k])
        D = max(D, _lp(v, norm))
    return _eps_from_odds(delta, p_or, alpha, D), alpha, D


def _paper_theorem2_at(atts, tv, delta, norm, avec):
    """Theorem 2 as printed: min(eps_0, eps_k), exponent ||a||_inf, Pr[X̂_0] = prod g(a_i - r_i)."""
    a = _lp(avec, math.inf)
    H0 = math.prod(att.g(t, ai - att.r) for att, t, ai in zip(atts, tv, avec, strict=True))
    X0 = math.prod(att.g(t, ai) for att, t, ai in zip(atts, tv, avec, strict=True)) - H0
    cands = []
    for p, q in [(X0, H0)] + [
        (att.g(t, att.r), att.g(t, ai) - att.g(t, att.r)) for att, t, ai in zip(atts, tv, avec, strict=True)
    ]:
        if p <= 0 or q <= 0:
            cands.append(-math.inf)
        elif p + delta >= 1:
            cands.append(math.inf)
        else:
            cands.append(float(bound.eps_main_formula(delta, p, q, a, NUMPY)))
    return min(cands), cands


def _or_one_t(terms, atts, tv, delta, norm, a, sides, construction, method, radii="common"):
    p_or = _or_probability(terms, atts, tv)
    diam = _lp([att.diameter for att in atts], norm)
    info = {}
    disjoint = len(atts) == sum(len(term) for term in terms)
    candidates = {}
    avec = _resolve_a(atts, a, tv)

    if construction == "paper" and any(att.discrete for att in atts):
        # Sec. 6.1 treats discrete OR events by inclusion-exclusion, as the sound path does
        construction, method = "sound", "inclusion-exclusion"
    if construction == "paper":
        if not all(len(term) == 1 for term in terms):
            raise ParameterError("construction='paper' (Theorem 2) covers an OR of single attributes only")
        if avec is None:
            avec = _best_common_radii(atts, tv, lambda av: _paper_theorem2_at(atts, tv, delta, norm, av)[0])
        e, parts = _paper_theorem2_at(atts, tv, delta, norm, avec)
        low = float(bound.eps_ub(delta=delta, p=p_or, R=diam)) if (
            sides == "both" and math.isfinite(diam) and 0 < p_or < 1) else math.inf
        return dict(p=p_or, method="paper-theorem2", ratio=math.nan, distance=_lp(avec, math.inf),
                    a=tuple(avec), epsilon_upper=e, epsilon_lower=low,
                    candidates={"eps_0": parts[0], **{f"eps_{k + 1}": v for k, v in enumerate(parts[1:])}})

    if method in ("best", "inclusion-exclusion") and math.isfinite(diam):
        odds = p_or / (1 - p_or) if p_or < 1 else math.inf
        candidates["inclusion-exclusion"] = (_eps_from_odds(delta, p_or, odds, diam), odds, diam,
                                             tuple(att.diameter for att in atts))
    elif method == "inclusion-exclusion":
        raise ParameterError(
            "method='inclusion-exclusion' needs bounded attributes (its exponent is the diameter "
            "of the space); use method='blocks'"
        )
    if method in ("best", "blocks"):
        if not disjoint:
            if method == "blocks":
                raise ParameterError("method='blocks' needs the AND-sets of the OR to share no attribute")
        else:
            def eps_at(av):
                return _blocks_at(terms, atts, tv, delta, norm, av, p_or)[0]

            av = avec
            if av is None:
                av = _best_common_radii(atts, tv, eps_at)
                if radii == "each" and len(atts) > 1 and p_or + delta < 1:
                    info["common_a"] = eps_at(av)
                    av, _, info["local_optimum"] = optimise_radii(eps_at, atts, tv, av)
            e, alpha, D = _blocks_at(terms, atts, tv, delta, norm, av, p_or)
            candidates["blocks"] = (e, alpha, D, tuple(av))
    if not candidates:
        raise ParameterError("no construction applies to this OR goal")
    name = max(candidates, key=lambda k: candidates[k][0])
    e_up, ratio, D, av = candidates[name]
    if sides == "upper" or p_or <= delta:
        low = math.inf
    elif math.isfinite(diam):
        low = float(bound.eps_ub(delta=delta, p=p_or, R=diam)) if p_or < 1 else math.inf
    else:
        low = _or_lower_pointwise(terms, atts, tv, delta, p_or)
        info["lower"] = "pointwise"
    return dict(p=p_or, method=name, ratio=ratio, distance=D, a=av, epsilon_upper=e_up,
                epsilon_lower=low, candidates={**{k: v[0] for k, v in candidates.items()}, **info})


# ------------------------------------------------------------------------------------------
# OR events, lower side over unbounded attributes (pointwise comparison)
# ------------------------------------------------------------------------------------------
def _log_tilted(prior: Prior, k: float, lo, hi, c) -> np.ndarray:
    r""":math:`\log \int_{[lo, hi]} e^{k(u - c)} dF(u)`, vectorised over ``lo``, ``hi``, ``c``
    (continuous priors; ``-inf`` for an empty range)."""
    lo, hi, c = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float), np.asarray(c, float))
    if isinstance(prior, Normal):
        from .exact import _log_ndtr_diff

        mu, s = prior.mu, prior.sigma
        m = mu + k * s * s
        with np.errstate(invalid="ignore"):
            out = k * (mu - c) + 0.5 * (k * s) ** 2 + _log_ndtr_diff((lo - m) / s, (hi - m) / s)
        return np.where(hi > lo, out, -np.inf)
    if isinstance(prior, PiecewiseUniform):
        acc = np.full(lo.shape, -np.inf)
        for a0, b0, dens in zip(prior.edges[:-1], prior.edges[1:], prior.density, strict=True):
            if dens <= 0:
                continue
            a, b = np.maximum(lo, a0), np.minimum(hi, b0)
            ok = b > a
            a, b = np.where(ok, a, 0.0), np.where(ok, b, 1.0)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                if k == 0:
                    term = np.log(b - a)
                elif k > 0:
                    term = k * (b - c) + np.log(-np.expm1(-k * (b - a)) / k)
                else:
                    term = k * (a - c) + np.log(np.expm1(k * (b - a)) / k)
            acc = np.logaddexp(acc, np.where(ok, term + math.log(dens), -np.inf))
        return acc
    from .pointwise import _log_mgf

    return np.array([_log_mgf(prior, k, float(a), float(b), float(cc)) if b > a else -math.inf
                     for a, b, cc in zip(lo.ravel(), hi.ravel(), c.ravel(), strict=True)]).reshape(lo.shape)


def _kernel_masses(att: Attribute, t, x, eps):
    r"""For nodes ``x``: :math:`k(x) = \int_{\mathcal B(t,r)} e^{-\epsilon d(x,u)} dF(u)` and
    :math:`m(x) = \int e^{-\epsilon d(x,u)} dF(u)`."""
    prior = att.prior
    if att.discrete:
        px = np.array([prior.probability(v) for v in x])
        same = np.array([v == t for v in x])
        k = prior.probability(t) * np.where(same, 1.0, math.exp(-eps))
        return k, px + (1 - px) * math.exp(-eps)
    x = np.asarray(x, dtype=float)
    if isinstance(prior, Categorical):
        ker = np.exp(-eps * np.abs(x[:, None] - prior._x[None, :])) * prior.probs[None, :]
        ball = np.abs(prior._x - t) <= att.r
        return ker[:, ball].sum(axis=1), ker.sum(axis=1)
    lo, hi = prior.correct_extent(t, att.r)
    low, high = prior.support

    def piece(a, b):  # int_a^b e^{-eps|x-u|} dF(u)
        left = _log_tilted(prior, eps, a, np.minimum(b, x), x)  # u < x: e^{eps (u - x)}
        right = _log_tilted(prior, -eps, np.maximum(a, x), b, x)  # u > x: e^{-eps (u - x)}
        return np.exp(np.logaddexp(left, right))

    return piece(lo, hi), piece(low, high)


_GL = np.polynomial.legendre.leggauss(12)
_GRID_BUDGET = 2_000_000  # largest tensor-product grid of or_lower_ratio


def _panels(prior, a, b, n):
    """Composite Gauss-Legendre nodes and prior weights on [a, b] (``n`` panels, 12 nodes)."""
    if not b > a:
        return np.zeros(0), np.zeros(0)
    cuts = np.linspace(a, b, n + 1)
    if isinstance(prior, PiecewiseUniform):
        cuts = np.unique(np.concatenate([cuts, prior.edges[(prior.edges > a) & (prior.edges < b)]]))
    h = np.diff(cuts)[:, None] / 2
    mid = (cuts[:-1] + cuts[1:])[:, None] / 2
    xs = (mid + h * _GL[0][None, :]).ravel()
    ws = (h * _GL[1][None, :]).ravel() * np.array([_pdf(prior, v) for v in xs])
    return xs, ws


def _nodes(att: Attribute, t, eps, n):
    """Quadrature nodes, prior weights and ball flags covering the attribute's support."""
    prior = att.prior
    if att.discrete:
        vals = list(prior.values)
        return vals, prior.probs.copy(), np.array([v == t for v in vals])
    if isinstance(prior, Categorical):
        x = prior._x.copy()
        return x, prior.probs.copy(), np.abs(x - t) <= att.r
    low, high = prior.support
    if isinstance(prior, Normal):
        # the integrand grows like e^{eps |x|}: reach 14 sigma beyond the tilted mean
        reach = abs(eps) * prior.sigma**2 + 14 * prior.sigma + abs(t - prior.mu) + att.r
        low, high = prior.mu - reach, prior.mu + reach
    else:
        if not math.isfinite(low):
            low = float(prior.quantile(1e-16))
        if not math.isfinite(high):
            high = float(prior.quantile(1 - 1e-16))
    lo, hi = prior.correct_extent(t, att.r)
    parts = [(low, lo), (lo, hi), (hi, high)]
    span = high - low
    xs, ws = [], []
    for a, b in parts:
        x, w = _panels(prior, a, b, max(2, math.ceil(n * (b - a) / span)))
        xs.append(x)
        ws.append(w)
    x, w = np.concatenate(xs), np.concatenate(ws)
    return x, w, (x >= lo) & (x <= hi)


def or_lower_ratio(terms, atts, tv, eps, n: int = 40) -> float:
    r"""Bound :math:`I(\epsilon) \ge \Pr_{post}[C]/\Pr_{post}[X']` for an OR goal (the
    complement :math:`C` of :math:`X'`), for every :math:`\epsilon`-DP mechanism w.r.t. any
    :math:`\ell_p` norm and every output; see :func:`_or_lower_pointwise`.  Tensor-product
    quadrature with ``n`` panels per attribute (exact sums for finite priors)."""
    nodes = [_nodes(att, t, eps, n) for att, t in zip(atts, tv, strict=True)]
    while math.prod(len(nd[1]) for nd in nodes) > _GRID_BUDGET and n > 4:
        n //= 2  # fewer panels per attribute: the tensor grid must fit in memory
        nodes = [_nodes(att, t, eps, n) for att, t in zip(atts, tv, strict=True)]
    if math.prod(len(nd[1]) for nd in nodes) > _GRID_BUDGET:
        raise ParameterError(
            "sides: the lower side of this OR goal needs a quadrature grid of "
            f"{math.prod(len(nd[1]) for nd in nodes):.3g} points (more than {_GRID_BUDGET:.0e}); "
            "use sides='upper', or fewer continuous attributes"
        )
    index = {id(a): i for i, a in enumerate(atts)}
    ks, ms = zip(*(_kernel_masses(att, t, nd[0], eps) for att, t, nd in zip(atts, tv, nodes, strict=True)), strict=True)
    dim = len(atts)

    def grid(vec, i):
        shape = [1] * dim
        shape[i] = -1
        return np.asarray(vec, dtype=float).reshape(shape)

    # K_1(x) = sum over non-empty sets S of AND-terms, inclusion-exclusion
    K = 0.0
    for size in range(1, len(terms) + 1):
        for subset in itertools.combinations(terms, size):
            used = {index[id(att)] for term in subset for att in term}
            prod = 1.0
            for i in range(dim):
                prod = prod * grid(ks[i] if i in used else ms[i], i)
            K = K + (-1) ** (size + 1) * prod
    hit = np.zeros([len(nd[1]) for nd in nodes], dtype=bool)
    for term in terms:
        inside = np.ones_like(hit)
        for att in term:
            i = index[id(att)]
            inside = inside & grid(nodes[i][2], i).astype(bool)
        hit |= inside
    W = 1.0
    for i in range(dim):
        W = W * grid(nodes[i][1], i)
    with np.errstate(divide="ignore", invalid="ignore"):
        vals = np.where(hit | (W == 0), 0.0, W / K)
    return float(np.sum(vals))


def _or_lower_pointwise(terms, atts, tv, delta, p) -> float:
    r"""Largest epsilon with :math:`\Pr_{post}[X'] \ge p - \delta` for an OR of AND-sets of
    independent attributes, bounded or not (Def. 7, lower side).

    Derivation.  Let :math:`C = X \setminus X'`.  For :math:`x \in C`, any output ``y`` and
    an :math:`\epsilon`-DP mechanism w.r.t. an :math:`\ell_p` norm,
    :math:`f(y|x') \ge e^{-\epsilon d(x,x')} f(y|x) \ge f(y|x) \prod_j e^{-\epsilon d_j(x_j, x'_j)}`
    (:math:`\lVert v\rVert_p \le \lVert v\rVert_1`), so

    .. math:: N(y) := \int_{X'} f(y|x')\,dF(x') \ge f(y|x)\, K_1(x), \qquad
       K_1(x) = \int_{X'} \prod_j e^{-\epsilon d_j(x_j, x'_j)}\, dF(x').

    The kernel times the prior is a product measure, and :math:`X' = \bigcup_k A_k` with
    :math:`A_k = \{x' : x'_i \in \mathcal B(t_i, r_i)\ \forall i \in S_k\}`; by
    inclusion-exclusion

    .. math:: K_1(x) = \sum_{\emptyset \ne S} (-1)^{|S|+1} \prod_{i \in \cup S} k_i(x_i)
       \prod_{i \notin \cup S} m_i(x_i),

    :math:`k_i(x_i) = \int_{\mathcal B(t_i, r_i)} e^{-\epsilon d_i(x_i, u)} dF_i(u)`,
    :math:`m_i(x_i) = \int e^{-\epsilon d_i(x_i, u)} dF_i(u)` (closed forms for normal and
    piecewise-uniform priors, sums for finite ones).  Integrating :math:`f(y|x) \le
    N(y)/K_1(x)` over :math:`C`: :math:`\Pr_{post}[C]/\Pr_{post}[X'] \le I(\epsilon) =
    \int_C dF/K_1`, hence :math:`\Pr_{post}[X'] \ge 1/(1 + I(\epsilon))`.  At
    :math:`\epsilon = 0`, :math:`K_1 = p` and the bound is exact; ``I`` increases with
    :math:`\epsilon`.  The epsilon solves :math:`I(\epsilon) = (1 - p + \delta)/(p - \delta)`;
    ``I`` is computed twice (``n`` and ``2n`` panels) and the larger value plus their
    difference is used.  (Restricting :math:`x'` to one :math:`A_i` gives the weaker
    :math:`K \ge k_i \prod_{j\ne i} m_j`; the inclusion-exclusion form uses all of
    :math:`X'`.)  Not in the paper, which has no lower-side bound for unbounded OR events.
    """
    if p <= delta:
        return math.inf
    target = math.log((1 - p + delta) / (p - delta))
    for att in atts:
        if isinstance(att, Coordinates):
            raise InfeasibleError(
                "the lower side of an OR event with an l_p-ball part is not covered here; ask for sides='upper'")
        if isinstance(att.prior, Continuous):
            low, high = att.prior.support
            if not (math.isfinite(low) and math.isfinite(high)):
                rate = min(att.prior.tail_rates())
                if rate == 0:
                    return 0.0

    def excess(e):
        i1 = or_lower_ratio(terms, atts, tv, e, 40)
        i2 = or_lower_ratio(terms, atts, tv, e, 80)
        val = max(i1, i2) + abs(i1 - i2)
        return target - math.log(val) if val > 0 and math.isfinite(val) else -1e300

    from scipy.optimize import brentq

    if excess(0.0) < 0:
        return 0.0
    scale = max((att.a_max(t) - att.r for att, t in zip(atts, tv, strict=True) if not att.discrete), default=1.0)
    hi = 1.0 / max(scale, 1e-300)
    lo = 0.0
    while excess(hi) >= 0:
        lo, hi = hi, 2 * hi
        if hi > 1e6 / max(scale, 1e-300):
            return math.inf
    return float(brentq(excess, lo, hi, xtol=1e-14, rtol=1e-10))


# ------------------------------------------------------------------------------------------
# Public entry points
# ------------------------------------------------------------------------------------------
def _check_common(delta, sides, construction, norm, method):
    if not (_is_real(delta) and math.isfinite(delta)):
        raise ParameterError(f"delta must be a finite real number; got {delta!r}")
    if not 0 < delta < 1:
        raise ParameterError(f"delta must lie in (0, 1); got {delta}")
    if sides not in _SIDES:
        raise ParameterError(f"sides must be one of {_SIDES}; got {sides!r}")
    if construction not in _CONSTRUCTIONS:
        raise ParameterError(f"construction must be one of {_CONSTRUCTIONS}; got {construction!r}")
    if method not in _OR_METHODS:
        raise ParameterError(f"method must be one of {_OR_METHODS}; got {method!r}")
    return _check_norm(norm)


def _all_t(atts):
    if not all(att.finite for att in atts):
        raise ParameterError(
            "t is required when the goal has a continuous attribute (t=None, the worst case, is "
            "enumerated for finite priors only)"
        )
    n = math.prod(len(att.values()) for att in atts)
    if n > _MAX_ENUMERATION:
        raise ParameterError(f"t=None would enumerate {n} combinations (max {_MAX_ENUMERATION}); pass t")
    return itertools.product(*(att.values() for att in atts))


def epsilon_for_goal(
    goal,
    *,
    delta: float,
    t: Any = None,
    norm: float = math.inf,
    a: Any = None,
    sides: str = "both",
    construction: str = "sound",
    method: str = "best",
    radii: str = "common",
) -> GoalResult:
    r"""Epsilon that keeps the advantage in reaching ``goal`` at most ``delta``
    (Theorem 1 for AND, Sec. 4.3 / Theorem 2 for OR; see the module docstring).

    Parameters
    ----------
    goal : Attribute, AllOf or AnyOf
        Attributes combined with ``&`` (AND) and ``|`` (OR).  An OR of AND-sets is the
        paper's collection :math:`\mathcal S` under variant 2 of Sec. 4.3.
    delta : float
        Bound on the advantage, in (0, 1).
    t : Mapping or sequence, optional
        True values, by attribute name or in order of appearance.  ``None``: the worst
        combination (finite priors only).
    norm : float
        The records' distance is the :math:`\ell_{norm}` norm of the attribute distances;
        in [1, inf], default inf (Theorem 1).  The epsilon is per unit of that distance.
    a : float or sequence, optional
        Comparison radii: one common ``a`` (each :math:`a_i = \min(a, R_i)`, Sec. 4.2) or
        one per attribute.  Default: the common ``a`` that maximises epsilon.
    sides : {"both", "upper"}
        ``"both"`` bounds :math:`|\Pr_{post} - \Pr_{pre}|` (Def. 7); ``"upper"`` the gain only.
    construction : {"sound", "paper"}
        ``"paper"`` reproduces Theorem 1's exponent :math:`\lVert a \rVert` and Theorem 2 as
        printed (neither is sound in general).
    method : {"best", "blocks", "inclusion-exclusion"}
        OR events only: the corrected block construction of Theorem 2, the
        inclusion-exclusion bound with the whole complement, or the better of the two.
    radii : {"common", "each"}
        With ``a=None``: search one common radius (``"common"``, Sec. 4.2's
        :math:`a_i = \min(a, R_i)`), or then optimise every :math:`a_i` on its own
        (``"each"``, :func:`optimise_radii`; AND events and OR blocks).  ``"each"`` records
        the epsilon at the best common radius as ``candidates["common_a"]`` and the final
        local-optimality check as ``candidates["local_optimum"]``.

    Returns
    -------
    GoalResult

    Raises
    ------
    ParameterError
        Bad input (empty goals, dependent attributes detected, wrong ``t``, ...).
    InfeasibleError
        If no epsilon > 0 meets the request.

    Examples
    --------
    The cats of Sec. 6.1: uniform gender, five colours.

    >>> from garesearch.priors import Categorical
    >>> gender = Attribute(Categorical({"M": .5, "F": .5}), r=0, name="gender")
    >>> colour = Attribute(Categorical({"red": .2, "white": .1, "tabby": .25, "black": .4,
    ...                                 "tortoise": .05}), r=0, name="colour")
    >>> res = epsilon_for_goal(gender & colour, delta=0.1)
    >>> res.t["colour"], round(res.p, 3), round(res.epsilon, 3)
    ('black', 0.2, 0.539)
    >>> res = epsilon_for_goal(gender | colour, delta=0.1)
    >>> res.t["colour"], round(res.p, 3), round(res.epsilon, 4)
    ('white', 0.55, 0.4013)
    """
    norm = _check_common(delta, sides, construction, norm, method)
    if radii not in ("common", "each"):
        raise ParameterError(f"radii must be 'common' or 'each'; got {radii!r}")
    goal = _as_goal(goal)
    terms = goal.terms()
    atts = _attributes(terms)
    event = "and" if len(terms) == 1 else "or"
    ts = [_resolve_t(atts, t)] if t is not None else [list(v) for v in _all_t(atts)]
    results = []
    for tv in ts:
        if event == "and":
            res = _and_one_t(atts, tv, delta, norm, a, sides, construction, radii)
        else:
            res = _or_one_t(terms, atts, tv, delta, norm, a, sides, construction, method, radii)
        res["t"] = tv
        results.append(res)
    for res in results:
        res["epsilon"] = min(res["epsilon_upper"], res["epsilon_lower"])
    best = min(results, key=lambda res: res["epsilon"])
    labels = [att.name if att.name else f"x{i}" for i, att in enumerate(atts)]
    tdict = dict(zip(labels, best.pop("t"), strict=True))
    if not best["epsilon"] > 0:
        side = "upper" if best["epsilon_upper"] <= best["epsilon_lower"] else "lower"
        raise InfeasibleError(
            f"no epsilon > 0 keeps the advantage within delta={delta} at t={tdict} "
            f"(p={best['p']:.6g}): the {side} side cannot be met. Allow larger comparison radii "
            "(a), a larger delta" + (", or sides='upper'" if side == "lower" else "")
        )
    binding = "upper" if best["epsilon_upper"] <= best["epsilon_lower"] else "lower"
    return GoalResult(t=tdict, event=event, binding=binding, delta=delta, norm=norm,
                      construction=construction, **best)


def epsilon_for(goal_or_prior, *, delta: float, r: float | None = None, **kwargs):
    """One entry point for one attribute or a goal.

    A :class:`~garesearch.priors.Prior` (with ``r``) or a single :class:`Attribute` goes to
    :func:`garesearch.attribute.epsilon_for_attribute` (Sec. 4.1); a combination of
    attributes to :func:`epsilon_for_goal` (Sec. 4.2, 4.3).  Keyword arguments are passed on.

    Returns
    -------
    AttributeResult or GoalResult
    """
    if isinstance(goal_or_prior, Prior):
        if r is None:
            raise ParameterError("r is required when a prior is given (the precision of a guess)")
        return epsilon_for_attribute(goal_or_prior, r=r, delta=delta, **kwargs)
    if r is not None:
        raise ParameterError("r belongs to each Attribute of a goal; pass it to Attribute(prior, r=...)")
    goal = _as_goal(goal_or_prior)
    if isinstance(goal, Attribute):
        extra = {k: kwargs.pop(k) for k in ("t", "sides", "construction", "R") if k in kwargs}
        norm = kwargs.pop("norm", math.inf)
        _check_norm(norm)
        kwargs.pop("method", None)
        if kwargs:
            raise ParameterError(f"unexpected arguments for one attribute: {sorted(kwargs)}")
        if isinstance(extra.get("t"), dict):
            extra["t"] = extra["t"][goal.name]
        return epsilon_for_attribute(goal.prior, r=goal.r, delta=delta, **extra)
    return epsilon_for_goal(goal, delta=delta, **kwargs)


def epsilon_for_each(goals: Iterable, *, delta: float, **kwargs) -> SeparateResult:
    """Sec. 4.3, variant 1: protect each set of sensitive attributes separately.

    Each goal gets its own epsilon (:func:`epsilon_for`); the smallest one protects all of
    them at once (it gives the largest noise).

    Returns
    -------
    SeparateResult
        ``epsilon`` (the smallest), ``worst`` (its index) and every ``results``.
    """
    goals = list(goals) if not isinstance(goals, _Goal) else [goals]
    if not goals:
        raise ParameterError("goals must hold at least one goal; got none")
    results = tuple(epsilon_for(g, delta=delta, **kwargs) for g in goals)
    worst = int(np.argmin([res.epsilon for res in results]))
    return SeparateResult(epsilon=results[worst].epsilon, worst=worst, results=results)


# ------------------------------------------------------------------------------------------
# Regions (Fig. 2)
# ------------------------------------------------------------------------------------------
def in_goal(goal, x, t) -> np.ndarray:
    """Whether records ``x`` (array ``(..., n)``, attributes in order of appearance) reach
    the goal when the truth is ``t``: the set :math:`X'` of Fig. 2a, numeric attributes only."""
    terms = _as_goal(goal).terms()
    atts = _attributes(terms)
    if any(att.discrete for att in atts):
        raise ParameterError("in_goal draws numeric attributes only")
    tv = _resolve_t(atts, t)
    x = np.asarray(x, dtype=float)
    dims = [att.dim if isinstance(att, Coordinates) else 1 for att in atts]
    if x.shape[-1] != sum(dims):
        raise ParameterError(f"x must have {sum(dims)} coordinates in its last axis; got shape {x.shape}")
    start = np.concatenate([[0], np.cumsum(dims)]).astype(int)
    index = {id(a): i for i, a in enumerate(atts)}
    out = np.zeros(x.shape[:-1], dtype=bool)
    for term in terms:
        inside = np.ones(x.shape[:-1], dtype=bool)
        for att in term:
            k = index[id(att)]
            if isinstance(att, Coordinates):
                inside &= att.contains(x[..., start[k]:start[k + 1]], tv[k])
            else:
                inside &= np.abs(x[..., start[k]] - tv[k]) <= att.r
        out |= inside
    return out


def or_blocks(goal, t, a, *, reach: int = 2) -> list[dict]:
    r"""The blocks of the corrected Theorem 2 (Fig. 2b) around ``t``.

    Tiles with half-widths ``a`` centred at :math:`t + 2\ell \circ a`, :math:`|\ell_i| \le`
    ``reach``.  For each: ``centre``, ``half_width``, ``K`` (indices of the AND-sets whose ball
    lies in the tile), the prior masses ``p_in`` (:math:`X'` in the tile) and ``p_out`` (the
    rest of the tile), computed from the priors, and ``odds = p_in / p_out``.
    """
    terms = _as_goal(goal).terms()
    atts = _attributes(terms)
    tv = _resolve_t(atts, t)
    av = _resolve_a(atts, a, tv)
    if any(att.discrete or isinstance(att, Coordinates) for att in atts):
        raise ParameterError("or_blocks tiles numeric one-coordinate attributes only")
    index = {id(x): i for i, x in enumerate(atts)}
    blocks = []
    for ell in itertools.product(range(-reach, reach + 1), repeat=len(atts)):
        centre = [t0 + 2 * li * ai for t0, li, ai in zip(tv, ell, av, strict=True)]
        tile = [float(att.prior.mass(c - ai, c + ai)) for att, c, ai in zip(atts, centre, av, strict=True)]
        total = math.prod(tile)
        # mass of the tile outside X': per term, coordinates of the term in the ball
        # (only where the tile holds the ball, i.e. ell_i = 0) -> inclusion-exclusion
        K = tuple(j for j, term in enumerate(terms) if all(ell[index[id(x)]] == 0 for x in term))
        p_in = 0.0
        for size in range(1, len(K) + 1):
            for subset in itertools.combinations(K, size):
                coords = {index[id(x)] for j in subset for x in terms[j]}
                prob = math.prod(
                    atts[k].g(tv[k], atts[k].r) if k in coords else tile[k] for k in range(len(atts))
                )
                p_in += (-1) ** (size + 1) * prob
        p_out = total - p_in
        blocks.append(dict(ell=ell, centre=tuple(centre), half_width=tuple(av), K=K,
                           p_in=p_in, p_out=p_out, odds=p_in / p_out if p_out > 0 else math.inf))
    return blocks


# ------------------------------------------------------------------------------------------
# A counterexample to Theorem 2 as printed
# ------------------------------------------------------------------------------------------
def _laplace_release_sup(weights, inside, h, eps) -> float:
    r"""Largest posterior of ``inside`` over outputs of :math:`h(x) + \mathrm{Lap}(1/\epsilon)`
    for a finite prior: between two consecutive values of ``h`` the posterior is monotone in
    the output (:mod:`garesearch.exact`), and constant beyond the extreme ones, so the
    supremum is attained at an output equal to some :math:`h(x)`."""
    best = 0.0
    logw = np.log(weights)
    for y in np.unique(h):
        lw = logw - eps * np.abs(y - h)
        w = np.exp(lw - lw.max())
        best = max(best, float(w[inside].sum() / w.sum()))
    return best


def theorem2_counterexample(delta: float = 0.1, s: float = 0.08) -> dict:
    r"""Theorem 2 as printed is not sound: a concrete prior and an :math:`\epsilon`-DP
    mechanism (w.r.t. :math:`\ell_\infty`) whose advantage at the printed epsilon exceeds
    :math:`\delta` (Sec. 4.3).

    Two independent attributes with values :math:`\{-4, 0, 4\}`, :math:`\Pr[0] = s`,
    :math:`\Pr[\pm 4] = (1-s)/2`; true value :math:`t = (0, 0)`, precision :math:`r_i = 1`,
    radii :math:`a_i = 4` (allowed: :math:`r_i \le a_i \le R_i = 8`).  The attacker wins if
    :math:`x_1 = 0` or :math:`x_2 = 0`: :math:`p = 1 - (1-s)^2`.  Printed:
    :math:`g(a_i) = 1`, :math:`g(a_i - 1) = g(r_i) = s`, so :math:`\epsilon_0 = \infty`
    (:math:`\delta + 1 - s^2 \ge 1`) and :math:`\epsilon_k = -\ln\big(\frac{s}{1-s}
    (\frac{1}{\delta + s} - 1)\big)/4`.  Mechanism: release :math:`h(x)`, the
    :math:`\ell_\infty` distance from ``x`` to the nearest record of :math:`X'` (1-Lipschitz
    w.r.t. :math:`\ell_\infty`) plus Laplace noise of scale :math:`1/\epsilon`,
    which is :math:`\epsilon`-DP w.r.t. :math:`\ell_\infty`.  Every wrong record is at
    distance 4 from :math:`X'`, and for outputs :math:`y \le 0`
    :math:`\Pr_{post}[X'] = p / (p + (1-p) e^{-4\epsilon})`.

    With the defaults: printed :math:`\epsilon \approx 0.2315`, :math:`p = 0.1536`,
    posterior :math:`\approx 0.314 > p + \delta = 0.2536`.  Here the flaw that bites is the
    :math:`\delta` term of :math:`\epsilon_k` (the block's prior ``s`` where the requirement is
    on the whole event's ``p``); the exponent is not needed.  The corrected construction of
    :func:`epsilon_for_goal` keeps the same mechanism within ``delta``.

    Returns
    -------
    dict
        ``priors``, ``t``, ``r``, ``a``, ``p`` (of the OR event), ``epsilon_printed`` and its
        parts ``eps_0, eps_1, eps_2``, ``posterior`` and ``advantage`` of the mechanism at the
        printed epsilon, ``epsilon_sound`` (:func:`epsilon_for_goal`, upper side) and
        ``advantage_sound`` of the same mechanism there.
    """
    if not (_is_real(delta) and 0 < delta < 1):
        raise ParameterError(f"delta must lie in (0, 1); got {delta!r}")
    if not (_is_real(s) and 0 < s < 1):
        raise ParameterError(f"s must lie in (0, 1); got {s!r}")
    prior = {-4: (1 - s) / 2, 0: s, 4: (1 - s) / 2}
    x1 = Attribute(Categorical(prior), r=1, name="x1")
    x2 = Attribute(Categorical(dict(prior)), r=1, name="x2")
    t, a = [0.0, 0.0], [4.0, 4.0]
    eps_printed, parts = _paper_theorem2_at([x1, x2], t, delta, math.inf, a)
    vals = np.array(list(prior))
    X, Y = np.meshgrid(vals, vals, indexing="ij")
    W = np.outer(list(prior.values()), list(prior.values()))
    inside = (np.abs(X) <= 1) | (np.abs(Y) <= 1)
    pts = np.stack([X.ravel(), Y.ravel()], axis=1).astype(float)
    cheb = np.max(np.abs(pts[:, None, :] - pts[None, inside.ravel(), :]), axis=2)
    h = cheb.min(axis=1).reshape(X.shape)  # l_inf distance to the records of X
    p = float(W[inside].sum())
    post = _laplace_release_sup(W, inside, h, eps_printed)
    sound = epsilon_for_goal(x1 | x2, delta=delta, t=t, sides="upper").epsilon
    return dict(priors=(prior, dict(prior)), t=tuple(t), r=(1.0, 1.0), a=tuple(a), p=p,
                epsilon_printed=eps_printed, eps_0=parts[0], eps_1=parts[1], eps_2=parts[2],
                posterior=post, advantage=post - p, epsilon_sound=sound,
                advantage_sound=_laplace_release_sup(W, inside, h, sound) - p)
