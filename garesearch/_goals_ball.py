r"""The :math:`\ell_p` distance of :mod:`garesearch.goals`: the norms, and the prior mass of an
:math:`\ell_p` ball around the true coordinates (in closed form where one exists, else by
quadrature over the prior densities), for coordinates guessed together (Sec. 5).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ._args import renamed_keywords
from .errors import ParameterError
from .priors import Categorical, Continuous, Normal, PiecewiseUniform, Prior


def _is_real(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


# ------------------------------------------------------------------------------------------
# Coordinates guessed together within an l_p ball
# ------------------------------------------------------------------------------------------
def prior_density(prior: Prior, x: float) -> float:
    """Density of a continuous prior at ``x`` (the integrand of :func:`lp_ball_mass`).

    Examples
    --------
    >>> import math
    >>> from garesearch.priors import Normal
    >>> d = prior_density(Normal(0.0, 2.0), 1.0)
    >>> abs(d - math.exp(-1 / 8) / (2 * math.sqrt(2 * math.pi))) < 1e-15
    True
    """
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
            return float(rest[0].mass1(trest[0] - h, trest[0] + h)), 0.0
        return _ball_quad(rest, trest, h, norm, tol)

    if isinstance(first, Categorical):
        sel = np.abs(first.points - t0) <= z
        total = err = 0.0
        for x, w in zip(first.points[sel], first.probs[sel], strict=True):
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
    val, err = quad(lambda x: prior_density(first, x) * inner(x)[0], lo, hi, points=points or None,
                    epsabs=tol, epsrel=tol, limit=200)
    return float(val), float(err)


@renamed_keywords(tol="atol")
def lp_ball_mass(priors: Sequence[Prior], t: Sequence[float], z: float, *, norm: float = 2.0,
                 method: str = "auto", atol: float = 1e-11, return_error: bool = False):
    r"""Prior mass of the :math:`\ell_p` ball :math:`\{x : \lVert x - t \rVert_p \le z\}` for
    independent numeric coordinates: the :math:`g_t(z)` of Sec. 4.2 for a ball instead of a box.

    .. math:: g_t(z) = \int f_1(x_1)\, g^{(2..n)}_{t_{2..n}}\!\big((z^p - |x_1 - t_1|^p)^{1/p}\big)\, dx_1

    (a sum over the atoms of a finite prior), recursively down to one coordinate, by adaptive
    Gauss-Kronrod quadrature (``scipy.integrate.quad``) with absolute tolerance ``atol``;
    :math:`\ell_\infty` is the product of the interval masses.  Isotropic normal coordinates
    under :math:`\ell_2` have the closed form :math:`\Pr[\chi'^2_n(\lambda) \le
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
    atol : float
        Absolute tolerance of the quadrature (also passed as its relative tolerance, which is
        never the tighter one: a mass is at most 1).  ``tol=``, its old name, is deprecated.
    return_error : bool
        Also return the quadrature's error estimate (0 for closed forms and sums).

    Returns
    -------
    float, or (float, float)

    Examples
    --------
    The quarter disc of radius 1 in the unit square (``pi / 4``), by quadrature; two standard
    normals at their centre (the Rayleigh law):

    >>> import math
    >>> from garesearch.priors import Normal, Uniform
    >>> m = lp_ball_mass([Uniform(0, 1), Uniform(0, 1)], [0.0, 0.0], 1.0)
    >>> abs(m - math.pi / 4) < 1e-10
    True
    >>> m = lp_ball_mass([Normal(0, 1), Normal(0, 1)], [0.0, 0.0], 1.5)
    >>> abs(m - (1 - math.exp(-1.5 ** 2 / 2))) < 1e-12
    True
    """
    norm = check_norm(norm)
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
        out = math.prod(float(p.mass1(ti - z, ti + z)) for p, ti in zip(priors, t, strict=True))
    elif method == "auto":
        out = _closed_form_ball(priors, t, z, norm)
    if out is None:
        out, err = _ball_quad(priors, t, float(z), norm, atol)
    out = min(max(out, 0.0), 1.0)
    return (out, err) if return_error else out


def check_norm(norm) -> float:
    """The records' norm ``p`` as a float in [1, inf]; :class:`~garesearch.ParameterError`
    otherwise.

    Examples
    --------
    >>> check_norm(2), check_norm(float("inf"))
    (2.0, inf)
    """
    if not _is_real(norm) or math.isnan(norm) or norm < 1:
        raise ParameterError(f"norm must be a number in [1, inf] (the l_p norm); got {norm!r}")
    return float(norm)


def lp_norm(values, norm) -> float:
    r""":math:`\lVert v \rVert_p` of the per-attribute distances ``values`` (Sec. 4.2).

    Examples
    --------
    >>> lp_norm([3, 4], 2), lp_norm([3, 4], 1), lp_norm([3, 4], float("inf"))
    (5.0, 7.0, 4.0)
    """
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return 0.0
    if math.isinf(norm):
        return float(np.max(np.abs(v)))
    return float(np.sum(np.abs(v) ** norm) ** (1.0 / norm))

def norm_of(d, norm, axis: int = -1) -> np.ndarray:
    r""":math:`\lVert d \rVert_{norm}` of nonnegative distances ``d`` along ``axis``, scaled by
    the largest entry (:math:`m (\sum_i (d_i/m)^p)^{1/p}`), so that it is exact -- equal to
    the one nonzero entry -- for a point on an axis, and free of overflow and underflow in the
    powers; elsewhere within a few units in the last place.

    Examples
    --------
    >>> float(norm_of([0.1, 0.0], 3)), (0.1 ** 3) ** (1 / 3), float(norm_of([3.0, 4.0], 2))
    (0.1, 0.10000000000000002, 5.0)
    """
    d = np.asarray(d, dtype=float)
    if math.isinf(norm):
        return np.max(d, axis=axis)
    if norm == 1:
        return np.sum(d, axis=axis)
    m = np.max(d, axis=axis, keepdims=True)
    ok = (m > 0) & np.isfinite(m)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(ok, d / np.where(ok, m, 1.0), 0.0)
        out = np.squeeze(m, axis=axis) * np.sum(q**norm, axis=axis) ** (1.0 / norm)
    return np.where(np.isfinite(np.squeeze(m, axis=axis)), out, np.squeeze(m, axis=axis))
