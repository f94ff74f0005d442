r"""The average reading: how often the Bayes-optimal attacker reconstructs the attribute within ``r``.

Beyond the paper (its Def. 7 takes the supremum over outputs; this is the mean).  The attacker
knows the prior :math:`\pi`, sees the release ``y`` and guesses the centre ``g`` whose ball
:math:`\mathcal B(g, r)` has the largest posterior mass.  Its success probability is

.. math:: S = \int \max_g \int_{\mathcal B(g, r)} f(y \mid x)\, d\pi(x)\, dy

(a sum over ``y`` for integer noise); without the release the best blind guess succeeds with
:math:`\kappa = \max_g \pi(\mathcal B(g, r))`, and the *reconstruction advantage* is
:math:`S - \kappa`.  For a binary secret and ``r = 0`` it is the Bayes-accuracy gain that
riskcal and f-DP calibrate to.  Computed exactly:

- Normal prior, Gaussian noise: the posterior is normal with variance
  :math:`s^2 = \sigma_\pi^2\sigma^2/(\sigma_\pi^2 + \sigma^2)`, the best ball is centred on its
  mean, and :math:`S = 2\Phi(r/s) - 1` for every output.
- Finite prior: the best ball can be shifted until its left end meets an atom, so the
  candidates are finitely many sets :math:`S_j`; :math:`h_j(y) = \sum_{i \in S_j} w_i f(y - x_i)`.
  Integer noise: the sum over ``y`` of :math:`\max_j h_j(y)`.  Continuous noise: the output line
  is cut into pieces on each of which one set leads, and each piece is integrated with the noise
  CDFs.  The leaders are read on a grid that holds the atoms and their midpoints; where a cell's
  ends have different leaders ``j`` and ``k`` the cut is the root of :math:`\ln h_j - \ln h_k`
  (Brent's method, the bracket narrowed by :func:`garesearch._roots.narrow_bracket`), or the
  cell's end where the two are already level there (a crossing on a grid point, as for every
  symmetric prior).  On a tie (equal :math:`\ln h` to a relative ``1e-13``) the attacker takes
  the lowest index, the ball with the smallest centre: tied sets have the same :math:`h`, so the
  choice changes no value, and the pieces tile the line, so none is counted twice or dropped.
  No lead change is missed: the sets are runs of consecutive atoms whose first and last atoms
  both move right with ``j``, so for ``j < k`` :math:`h_j - h_k` is the noise density applied to
  weights that are positive left of negative ones.  Laplace and Gaussian densities are
  log-concave (a totally positive kernel of order 2), so by Karlin's variation-diminishing
  property :math:`h_j - h_k` changes sign at most once, from + to -, and the leader's index never
  decreases in ``y``.  A set that leads at both ends of a cell leads throughout it, and a set
  that leads somewhere between a cell's leaders ``j < k`` is strictly above both where
  :math:`h_j = h_k` (Gaussian: :math:`h_m - h_j` has one simple zero, by Descartes' rule for
  exponential sums; Laplace: between consecutive atoms :math:`e^{y/b} h_j` is linear in
  :math:`e^{2y/b}`), so the leader at each crossing is checked and the cell split there when a
  third set leads.  Generalised Cauchy noise is not log-concave (two atoms of unequal weight
  cross twice), so a cell with one leader at both ends is kept only when bounds on the slope of
  :math:`\ln f` over it (at the atoms that one set holds and the other not) show that no other
  set adds more than ``1e-19``, or a tie's worth, to the success there, and is bisected
  otherwise.  Two atoms and Gaussian noise: the threshold is closed form,
  :math:`S = w_0\Phi(z) + w_1\Phi(u - z)` with :math:`u = \Delta/\sigma`,
  :math:`z = u/2 + \ln(w_0/w_1)/u`.
- Normal or uniform prior with Laplace or Gaussian noise: the posterior density is
  log-concave, so the best ball's ends have equal posterior density (or the ball sits at an
  end of the support); that root is found by bisection for every output at once, the ball's
  joint mass is closed form (noise CDFs; tilted normal CDFs for a Normal prior with Laplace
  noise), and the outer integral over ``y`` is composite Gauss-Legendre.
- Otherwise: :func:`garesearch.exact.bayes_attacker_success` (a grid over ``g``).

``k`` releases of Gaussian noise of scale :math:`\sigma` are one release of scale
:math:`\sigma/\sqrt k` (their mean is sufficient).  For a binary secret under any noise the
success is also :math:`1 - \min_\alpha(w_0\alpha + w_1 f(\alpha))` with ``f`` the trade-off
curve between the two values, or a single value of their privacy profile
(:func:`binary_success_from_profile`); the accountant of :mod:`garesearch.accounting` composes
``k`` releases, so composed non-Gaussian releases of a binary secret are read that way.

The prior-free bound of Hayes, Mahloujifar and Balle (NeurIPS 2023) and Kaissis et al. (2023),
as riskcal computes it: every attack succeeds with probability at most :math:`1 - f(\kappa)`,
``f`` the trade-off curve between the two inputs furthest apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._plain import PlainFields
from ._roots import narrow_bracket
from .additive import ScaledNoise, check_scale, resolve
from .errors import ParameterError
from .priors import Categorical, Normal, PiecewiseUniform, Prior, Uniform

__all__ = [
    "ReconstructionResult",
    "baseline_success",
    "binary_success_from_profile",
    "binary_success_from_tradeoff",
    "prior_free_bound",
    "reconstruction_advantage",
]

_GL16 = np.polynomial.legendre.leggauss(16)


@dataclass(frozen=True)
class ReconstructionResult(PlainFields):
    """What :func:`reconstruction_advantage` found.

    Attributes
    ----------
    success : float
        Success probability of the Bayes-optimal attacker (guess within ``r``).
    baseline : float
        :math:`\\kappa`, the best blind guess's success.
    advantage : float
        ``success - baseline``.
    guess : float
        A best blind guess (centre of the ball).
    prior_free_bound : float or None
        :math:`1 - f(\\kappa)` (module docstring); ``None`` where no trade-off curve is available.
    scale : float
    releases : int
    r : float
    mechanism : str
    method : str
        How ``success`` was computed.
    """

    success: float
    baseline: float
    advantage: float
    guess: float
    prior_free_bound: float | None
    scale: float
    releases: int
    r: float
    mechanism: str
    method: str


def _check_prior_r(prior, r):
    if not isinstance(prior, Prior):
        raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
    if isinstance(prior, Categorical) and prior.metric != "absolute":
        raise ParameterError("prior: reconstruction needs numeric values (a Categorical with numeric keys)")
    if not (isinstance(r, (int, float, np.integer, np.floating)) and math.isfinite(r) and r >= 0):
        raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
    return float(r)


def _check_releases(releases):
    if not (isinstance(releases, (int, np.integer)) and not isinstance(releases, bool) and releases >= 1):
        raise ParameterError(f"releases must be an integer >= 1; got {releases!r}")
    return int(releases)


def _ball_sets(x, r):
    """Sets of atoms :math:`\\{i: x_j \\le x_i \\le x_j + 2r\\}` (one per atom ``j``), as a mask."""
    tol = 1e-12 * max(1.0, float(np.max(np.abs(x))))
    return (x[None, :] >= x[:, None]) & (x[None, :] <= x[:, None] + 2 * r + tol)


def baseline_success(prior: Prior, r: float) -> tuple[float, float]:
    r"""The best blind guess: :math:`\kappa = \max_g \pi(\mathcal B(g, r))` and a maximiser ``g``.

    Beyond the paper (Sec. 4.1's :math:`g_t(r)` maximised over ``t``).  Exact for finite,
    piecewise-uniform and Normal priors; for other priors a grid over prior quantiles refined
    by Brent's method.

    Examples
    --------
    >>> from garesearch.priors import Uniform
    >>> baseline_success(Uniform(0, 1000), 50)
    (0.1, 50.0)
    """
    r = _check_prior_r(prior, r)
    if isinstance(prior, Categorical):
        x = prior.points
        sets = _ball_sets(x, r)
        masses = sets.astype(float) @ prior.probs
        j = int(np.argmax(masses))
        return float(masses[j]), float(x[j] + r)
    if isinstance(prior, Normal):
        return float(prior.mass(prior.mu - r, prior.mu + r)), prior.mu
    if isinstance(prior, PiecewiseUniform):
        e = prior.edges
        cand = np.unique(np.concatenate([e + r, e - r]))
        m = prior.mass(cand - r, cand + r)
        j = int(np.argmax(m))
        return float(m[j]), float(cand[j])
    from scipy.optimize import minimize_scalar

    q = np.asarray(prior.quantile(np.linspace(1e-6, 1 - 1e-6, 2001)), float)
    m = prior.mass(q - r, q + r)
    j = int(np.argmax(m))
    a, b = q[max(j - 1, 0)], q[min(j + 1, q.size - 1)]
    best, g = float(m[j]), float(q[j])
    if b > a:
        res = minimize_scalar(lambda gg: -float(prior.mass(gg - r, gg + r)), bounds=(a, b), method="bounded",
                              options={"xatol": 1e-10 * max(1.0, abs(b - a))})
        if -res.fun > best:
            best, g = float(-res.fun), float(res.x)
    return best, g


def binary_success_from_tradeoff(tradeoff, w1: float) -> float:
    r"""Bayes success for a binary secret from a trade-off curve: :math:`1 - \min_\alpha(w_0\alpha + w_1 f(\alpha))`.

    Beyond the paper.  ``w1`` is the prior of the second value; ``tradeoff`` is ``f`` between
    the output distributions at the first and the second value (any f-DP mechanism).  A
    trade-off curve is convex, so the minimum is found by bounded Brent on a bracket from a grid.

    Examples
    --------
    >>> round(binary_success_from_tradeoff(lambda a: 1 - a, 0.3), 9)  # perfect privacy: max(w0, w1)
    0.7
    """
    from scipy.optimize import minimize_scalar

    if not 0 <= w1 <= 1:
        raise ParameterError(f"w1 must lie in [0, 1]; got {w1!r}")
    w0 = 1.0 - w1
    a = np.concatenate([[0.0], np.geomspace(1e-16, 1e-3, 60), np.linspace(1e-3, 1.0, 400)])
    v = w0 * a + w1 * np.asarray(tradeoff(a), float)
    j = int(np.argmin(v))
    best = float(v[j])
    lo, hi = a[max(j - 1, 0)], a[min(j + 1, a.size - 1)]
    if hi > lo:
        res = minimize_scalar(lambda x: w0 * x + w1 * float(tradeoff(x)), bounds=(lo, hi), method="bounded",
                              options={"xatol": 1e-14})
        best = min(best, float(res.fun))
    return 1.0 - best


def binary_success_from_profile(dp_delta, w1: float) -> float:
    r"""Bayes success for a binary secret from a privacy profile: one hockey-stick divergence.

    Beyond the paper.  With ``P``, ``Q`` the output distributions at the first and the second
    value and prior weights :math:`w_0 = 1 - w_1`, :math:`w_1`, the Bayes error is
    :math:`\int \min(w_0 p, w_1 q) = w_0 - \int (w_0 p - w_1 q)^+`.  Writing
    :math:`w_{hi} = \max(w_0, w_1)`, :math:`w_{lo} = \min(w_0, w_1)` and
    :math:`\delta(\epsilon) = \int (q - e^\epsilon p)^+` (the privacy profile, in the direction
    from the less likely value), the identity
    :math:`\int(p - e^{-a}q)^+ = 1 - e^{-a} + e^{-a}\int(q - e^{a}p)^+` gives

    .. math:: S = w_{hi} + w_{lo}\,\delta\bigl(\ln(w_{hi}/w_{lo})\bigr).

    ``dp_delta`` is a function of :math:`\epsilon \ge 0`; a profile that bounds both directions
    (as dp_accounting's pessimistic one does) gives an upper bound on the success.

    Examples
    --------
    >>> from garesearch.accounting import gaussian_dp_delta
    >>> round(binary_success_from_profile(lambda e: gaussian_dp_delta(e, mu=1.0), 0.5), 6)  # Phi(1/2)
    0.691462
    """
    if not 0 <= w1 <= 1:
        raise ParameterError(f"w1 must lie in [0, 1]; got {w1!r}")
    hi, lo = max(1.0 - w1, w1), min(1.0 - w1, w1)
    if lo == 0:
        return 1.0
    d = float(np.clip(dp_delta(math.log(hi / lo)), 0.0, 1.0))
    return min(1.0, hi + lo * d)


def _diameter(prior) -> float:
    if isinstance(prior, Categorical):
        return float(prior.points[-1] - prior.points[0])
    low, high = prior.support
    return float(high - low)


def prior_free_bound(prior: Prior, mechanism, *, scale: float | None = None, r: float, releases: int = 1) -> float:
    r"""Hayes et al. / Kaissis et al.'s bound :math:`1 - f(\kappa)` on any attacker's success (beyond the paper).

    ``f`` is the trade-off curve of ``releases`` releases between the two inputs furthest apart
    (the prior's diameter; 1 for an unbounded prior), :math:`\kappa` the best blind guess
    (:func:`baseline_success`).  It ignores the prior beyond :math:`\kappa`; compare with the
    exact success of :func:`reconstruction_advantage`.  ``mechanism`` and ``scale`` as for
    :func:`garesearch.accounting.privacy_profile` (a list of releases is composed); ``f`` is
    exact from the accountant's privacy-loss distribution where there is no closed form
    (:func:`garesearch.accounting.tradeoff_from_pld`, a lower bound, so the bound is sound).

    Examples
    --------
    >>> from garesearch.priors import Uniform
    >>> round(prior_free_bound(Uniform(0, 1000), "laplace", scale=1000 / 1.8433, r=50), 3)
    0.604
    """
    from .accounting import as_composition, privacy_profile

    kappa, _ = baseline_success(prior, r)
    diam = _diameter(prior)
    if not math.isfinite(diam):
        return 1.0
    if diam == 0 or kappa >= 1:
        return 1.0
    if as_composition(mechanism) is None:
        mechanism = resolve(mechanism)
    prof = privacy_profile(mechanism, scale=scale, distance=diam, releases=_check_releases(releases))
    return float(1.0 - prof.tradeoff(kappa))


# ------------------------------------------------------------------------------------------
def _finite_discrete(prior: Categorical, noise: ScaledNoise, s: float, r: float) -> float:
    x, w = prior.points, prior.probs
    if np.any(x != np.round(x)):
        raise ParameterError(f"prior: {noise.name} noise needs integer values; got {prior.values}")
    sets = _ball_sets(x, r).astype(float) * w[None, :]  # (n_sets, n_atoms)
    half = math.ceil(noise.support_halfwidth(s))
    ys = np.arange(x[0] - half, x[-1] + half + 1)
    total = 0.0
    for start in range(0, ys.size, 1 << 14):
        y = ys[start:start + (1 << 14)]
        pm = np.exp(noise.log_pmf(y[:, None] - x[None, :], s))  # (ny, n_atoms)
        total += float(np.sum(np.max(pm @ sets.T, axis=1)))
    return total


def _binary_gaussian(prior: Categorical, s: float) -> float:
    from scipy.special import ndtr

    (x0, x1), (w0, w1) = prior.points, prior.probs
    u = (x1 - x0) / s
    z = u / 2 + math.log(w0 / w1) / u
    return float(w0 * ndtr(z) + w1 * ndtr(u - z))


#: Ties: values of ln h within this relative tolerance of the largest count as equal (the rounding
#: of ln h is a few units in the last place of its largest term).
_TIE = 1e-13
#: Generalised Cauchy noise: a cell keeps its leader when what a missed lead change could add to
#: the success there is below this (absolute) bound, or below a tie (:data:`_TIE`) relative to it.
_CELL_LOSS = 1e-19


def _leader(v):
    r"""The leading candidate set at each output: ``v`` holds :math:`\ln h_j` (last axis over the
    sets); on a tie (within :data:`_TIE`) the lowest index, that is the ball with the smallest centre."""
    top = np.max(v, axis=-1, keepdims=True)
    return np.argmax(v >= top - _TIE * (1.0 + np.abs(top)), axis=-1)


def _gc_slope_range(p, q, s):
    r"""Range of :math:`\frac{d}{dz}\ln f(z) = -4z^3/(s^4 + z^4)` (generalised Cauchy noise of
    scale ``s``) over :math:`z \in [p, q]` (arrays, ``p <= q``): ``(lowest, highest)``.

    With :math:`u = z/s` it is :math:`-\frac4s g(u)`, :math:`g(u) = u^3/(1 + u^4)` odd, increasing
    on :math:`|u| \le 3^{1/4}` and decreasing beyond, so its extremes over an interval are at the
    ends or at :math:`\pm 3^{1/4}`.
    """
    up, uq = p / s, q / s
    ustar = 3.0**0.25

    def g(u):
        return u**3 / (1.0 + u**4)

    gp, gq, gs = g(up), g(uq), g(ustar)
    gmax = np.maximum(gp, gq)
    gmin = np.minimum(gp, gq)
    gmax = np.where((up <= ustar) & (ustar <= uq), gs, gmax)
    gmin = np.where((up <= -ustar) & (-ustar <= uq), -gs, gmin)
    return -4.0 / s * gmax, -4.0 / s * gmin


def _finite_envelope(prior: Categorical, noise: ScaledNoise, s: float, r: float):
    r"""The candidate sets and the pieces of the output line on which each one leads.

    Beyond the paper; the method and why it finds every lead change are in the module docstring.

    Returns
    -------
    sets : ndarray of bool, shape (n_sets, n_atoms)
        The distinct candidate sets :math:`S_j` (runs of consecutive atoms, in the order of their
        first atom).
    cuts : ndarray, shape (n_pieces - 1,)
        Non-decreasing outputs where the leader changes; the pieces are
        :math:`(-\infty, c_1], [c_1, c_2], \dots, [c_{m}, \infty)`.
    leaders : ndarray of int, shape (n_pieces,)
        The set the attacker takes on each piece (on a tie the lowest index, :func:`_leader`).
    """
    x, w = prior.points, prior.probs
    sets = _ball_sets(x, r)
    keep = np.unique(sets, axis=0, return_index=True)[1]
    sets = sets[np.sort(keep)]
    n_sets, n_atoms = sets.shape
    logw = np.where(sets, np.log(w)[None, :], -np.inf)  # (n_sets, n_atoms)
    eps = noise.epsilon_arg(s)
    kern = noise.kernel
    chunk = max(1, (1 << 20) // (n_sets * n_atoms))

    def log_h(y):
        y = np.atleast_1d(np.asarray(y, float))
        out = np.empty((y.size, n_sets))
        for i in range(0, y.size, chunk):
            lf = kern.log_density(y[i:i + chunk, None], x[None, :], eps)  # (ny, n_atoms)
            a = lf[:, None, :] + logw[None, :, :]
            m = np.max(a, axis=2, keepdims=True)
            m = np.where(np.isfinite(m), m, 0.0)
            with np.errstate(divide="ignore"):
                out[i:i + chunk] = np.squeeze(m, 2) + np.log(np.sum(np.exp(a - m), axis=2))
        return out

    def log_h1(y):
        return log_h(y)[0]

    cauchy = noise.name == "gencauchy"
    half = noise.support_halfwidth(s, 1e-20) if not cauchy else 200 * s
    span = x[-1] - x[0] + 2 * half
    step = max(min(s / 16, span / 4000), span / 16000)
    grid = [np.arange(x[0] - half, x[-1] + half + step, step), x, (x[:-1] + x[1:]) / 2]
    if cauchy:
        far = s * np.geomspace(200, 1e12, 200)
        grid += [x[0] - far, x[-1] + far]
    ys = np.unique(np.concatenate(grid))
    vs = log_h(ys)
    lead = _leader(vs)

    def crossing(a, b, j, k, va, vb):
        """Where ``k`` overtakes ``j`` in ``[a, b]`` (``j`` leads at ``a``, ``k`` at ``b``)."""
        da, db = va[j] - va[k], vb[j] - vb[k]
        if not da > 0:  # level at a (a crossing on the grid point, or a tie): cut there
            return a
        if not db < 0:
            return b
        def gap(y):  # ln h_j - ln h_k: > 0 at a, < 0 at b
            v = log_h1(y)
            return float(v[j] - v[k])

        tol = 16 * np.finfo(float).eps * max(abs(a), abs(b), s)
        return narrow_bracket(gap, a, b, tol=tol, meets="hi")[1]

    runs = [(int(i), int(k)) for i, k in zip(np.argmax(sets, axis=1), n_atoms - 1 - np.argmax(sets[:, ::-1], axis=1),
                                              strict=True)]

    def passes(a, b, la):
        """Generalised Cauchy noise: whether the cells ``[a, b]`` (arrays; ``la`` leads at both
        ends) may keep ``la`` throughout.

        For another set ``m``, :math:`h_m - h_\\ell = E_m - E_\\ell` with :math:`E` the weighted
        densities of the atoms in one set and not the other (the shared ones cancel).  The slope of
        :math:`\\ln E` lies between its atoms' slopes (it is their posterior average), so
        :math:`\\ln E_m - \\ln E_\\ell` is bounded on the cell from its ends and the range of the
        slopes (:func:`_gc_slope_range`); with the largest densities on the cell that bounds
        :math:`\\int (h_m - h_\\ell)^+`.  A cell passes when the sum over ``m`` is at most
        :data:`_CELL_LOSS`, or at most a tie (:data:`_TIE`) relative to :math:`h_\\ell` on it.
        """
        lo_z, hi_z = a[:, None] - x[None, :], b[:, None] - x[None, :]
        s_lo, s_hi = _gc_slope_range(lo_z, hi_z, s)  # (cells, atoms)
        lt_a = np.log(w)[None, :] + kern.log_density(a[:, None], x[None, :], eps)  # ln(w_i f(a - x_i))
        lt_b = np.log(w)[None, :] + kern.log_density(b[:, None], x[None, :], eps)
        # largest and smallest density on the cell: at its point nearest to and furthest from the atom
        near = np.where((lo_z <= 0) & (hi_z >= 0), 0.0, np.minimum(np.abs(lo_z), np.abs(hi_z)))
        f_max = np.exp(kern.log_density(near, 0.0, eps)) * w[None, :]
        f_min = np.exp(kern.log_density(np.maximum(np.abs(lo_z), np.abs(hi_z)), 0.0, eps)) * w[None, :]
        width = b - a
        loss = np.zeros(a.size)
        allowed = np.zeros(a.size)
        for lead_set in np.unique(la):
            rows = np.nonzero(la == lead_set)[0]
            il, kl = runs[lead_set]
            allowed[rows] = _TIE * width[rows] * np.sum(f_min[rows, il:kl + 1], axis=1)
            wd = width[rows]
            for m, (im, km) in enumerate(runs):
                if m == lead_set:
                    continue
                if m < lead_set:
                    (e0, e1), (l0, l1) = (im, min(km, il - 1)), (max(il, km + 1), kl)
                else:
                    (e0, e1), (l0, l1) = (max(im, kl + 1), km), (il, min(kl, im - 1))
                if e1 < e0:  # S_m inside S_l: never above it
                    continue
                e_max = np.sum(f_max[rows, e0:e1 + 1], axis=1)
                if l1 < l0:  # S_l inside S_m: above it by E_m everywhere
                    loss[rows] += wd * e_max
                    continue
                d_a = (np.logaddexp.reduce(lt_a[rows, e0:e1 + 1], axis=1)
                       - np.logaddexp.reduce(lt_a[rows, l0:l1 + 1], axis=1))
                d_b = (np.logaddexp.reduce(lt_b[rows, e0:e1 + 1], axis=1)
                       - np.logaddexp.reduce(lt_b[rows, l0:l1 + 1], axis=1))
                slope_hi = np.max(s_hi[rows, e0:e1 + 1], axis=1) - np.min(s_lo[rows, l0:l1 + 1], axis=1)
                slope_lo = np.min(s_lo[rows, e0:e1 + 1], axis=1) - np.max(s_hi[rows, l0:l1 + 1], axis=1)
                # ln E_m - ln E_l at a + t is at most d_a + slope_hi t and d_b - slope_lo (wd - t); the
                # smaller of the two lines is concave in t: largest at t = 0, t = wd or where they meet
                with np.errstate(invalid="ignore", divide="ignore"):
                    meet = (d_b - d_a - slope_lo * wd) / (slope_hi - slope_lo)
                meet = np.clip(np.nan_to_num(meet, nan=0.0), 0.0, wd)
                top = np.full(rows.size, -np.inf)
                for t in (0.0, wd, meet):
                    top = np.maximum(top, np.minimum(d_a + slope_hi * t, d_b - slope_lo * (wd - t)))
                l_max = np.sum(f_max[rows, l0:l1 + 1], axis=1)
                with np.errstate(over="ignore", invalid="ignore"):
                    excess = np.minimum(e_max, l_max * np.expm1(np.maximum(top, 0.0)))
                loss[rows] += wd * excess
        return (loss <= _CELL_LOSS) | (loss <= allowed)

    # Every cell of the grid ends as leaves (a, b, leader) that tile it.  A cell whose ends have
    # different leaders is cut where the later one overtakes the earlier (a root of ln h_j - ln h_k),
    # or split there first when a third set leads at that crossing.  Generalised Cauchy noise:
    # a cell with one leader at both ends is kept when it passes, else bisected.
    leaves_a: list = []
    leaves_b: list = []
    leaves_l: list = []
    pending = []  # (a, b, leader, v(a), v(b), depth): one leader at both ends, to be certified
    same = lead[1:] == lead[:-1]
    idx = np.nonzero(same)[0]
    if cauchy:
        pending = [(ys[idx], ys[idx + 1], lead[idx], vs[idx], vs[idx + 1], np.zeros(idx.size, int))]
    else:
        leaves_a.append(ys[idx])
        leaves_b.append(ys[idx + 1])
        leaves_l.append(lead[idx])
    changing = [(float(ys[i]), float(ys[i + 1]), int(lead[i]), int(lead[i + 1]), vs[i], vs[i + 1], 0)
                for i in np.nonzero(~same)[0]]
    max_depth = 80

    def keep(a, b, la, va, vb, depth):
        if cauchy:
            pending.append((np.array([a]), np.array([b]), np.array([la]), va[None], vb[None],
                            np.array([depth])))
        else:
            leaves_a.append([a])
            leaves_b.append([b])
            leaves_l.append([la])

    while changing or pending:
        while changing:
            a, b, la, lb, va, vb, depth = changing.pop()
            c = crossing(a, b, la, lb, va, vb)
            vc = va if c == a else vb if c == b else log_h1(c)
            top = float(np.max(vc))
            tie = _TIE * (1.0 + abs(top))
            if depth < max_depth and vc[la] < top - tie and vc[lb] < top - tie:  # a third set leads at c
                lc = int(_leader(vc))
                changing += [(a, c, la, lc, va, vc, depth + 1), (c, b, lc, lb, vc, vb, depth + 1)]
            else:
                keep(a, c, la, va, vc, depth + 1)
                keep(c, b, lb, vc, vb, depth + 1)
        if pending:
            a, b, la, va, vb, depth = (np.concatenate(p) for p in zip(*pending, strict=True))
            pending = []
            ok = (passes(a, b, la) | (depth >= max_depth)
                  | (b - a <= 1e-13 * np.maximum(np.maximum(np.abs(a), np.abs(b)), s)))
            leaves_a.append(a[ok])
            leaves_b.append(b[ok])
            leaves_l.append(la[ok])
            a, b, la, va, vb, depth = a[~ok], b[~ok], la[~ok], va[~ok], vb[~ok], depth[~ok] + 1
            if a.size > 1 << 18:
                raise RuntimeError(f"{a.size} cells of the output grid could not be shown to keep their leader "
                                   f"({noise.name} noise, scale {s:g}); please report this prior")
            if a.size:  # bisect
                mid = 0.5 * (a + b)
                vm = log_h(mid)
                lm = _leader(vm)
                for lo, hi, l_lo, l_hi, v_lo, v_hi in ((a, mid, la, lm, va, vm), (mid, b, lm, la, vm, vb)):
                    one = l_lo == l_hi
                    pending.append((lo[one], hi[one], l_lo[one], v_lo[one], v_hi[one], depth[one]))
                    changing += [(float(lo[i]), float(hi[i]), int(l_lo[i]), int(l_hi[i]), v_lo[i], v_hi[i],
                                  int(depth[i])) for i in np.nonzero(~one)[0]]
    a = np.concatenate([np.asarray(v, float) for v in leaves_a])
    b = np.concatenate([np.asarray(v, float) for v in leaves_b])
    lab = np.concatenate([np.asarray(v, int) for v in leaves_l])
    order = np.lexsort((b, a))
    a, b, lab = a[order], b[order], lab[order]
    wide = b > a  # a crossing on a cell's end leaves a piece of width 0
    a, b, lab = a[wide], b[wide], lab[wide]
    if not (a[0] == ys[0] and b[-1] == ys[-1] and np.all(b[:-1] == a[1:])):
        raise AssertionError("the pieces do not tile the output grid")
    start = np.concatenate([[True], lab[1:] != lab[:-1]])
    return sets, a[start][1:], lab[start]


def _finite_continuous(prior: Categorical, noise: ScaledNoise, s: float, r: float) -> float:
    """Success of the Bayes-optimal attacker: each piece of :func:`_finite_envelope` integrated
    with the noise CDFs (beyond the paper)."""
    x, w = prior.points, prior.probs
    sets, cuts, leaders = _finite_envelope(prior, noise, s, r)
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    lo, hi = edges[:-1], edges[1:]
    lp = noise.log_interval(lo[:, None] - x[None, :], hi[:, None] - x[None, :], s)  # (pieces, atoms)
    wp = np.where(sets[leaders], w[None, :], 0.0)
    return float(np.sum(wp * np.exp(lp)))


def _normal_laplace_log_joint(y, lo, hi, mu, sig, b):
    r""":math:`\ln\int_{lo}^{hi} \phi_\sigma(x - \mu)\frac{1}{2b}e^{-|y - x|/b} dx` (tilted normal CDFs)."""
    from scipy.special import log_ndtr

    def log_phi_diff(a, c):  # ln(Phi(c) - Phi(a)), a <= c
        a, c = np.broadcast_arrays(a, c)
        up = a > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            hi_t = np.where(up, log_ndtr(-a), log_ndtr(c))
            lo_t = np.where(up, log_ndtr(-c), log_ndtr(a))
            out = hi_t + np.log(-np.expm1(np.minimum(lo_t - hi_t, 0.0)))
        return np.where(c > a, out, -np.inf)

    k = 1.0 / b
    c = math.log(k / 2) + 0.5 * (k * sig) ** 2
    up = np.minimum(hi, y)  # x < y: e^{-k(y - x)}
    a1 = c - k * (y - mu) + log_phi_diff((lo - mu - k * sig * sig) / sig, (up - mu - k * sig * sig) / sig)
    dn = np.maximum(lo, y)  # x > y: e^{-k(x - y)}
    a2 = c + k * (y - mu) + log_phi_diff((dn - mu + k * sig * sig) / sig, (hi - mu + k * sig * sig) / sig)
    return np.logaddexp(a1, a2)


def _log_concave_continuous(prior, noise: ScaledNoise, s: float, r: float, n_max: int = 3000) -> float:
    """Normal or uniform prior with Laplace or Gaussian noise (module docstring)."""
    eps = noise.epsilon_arg(s)
    kern = noise.kernel
    if isinstance(prior, Normal):
        mu, sig = prior.mu, prior.sigma
        lo_s, hi_s = -np.inf, np.inf
        span = (mu - 12 * sig, mu + 12 * sig)

        def log_prior(x):
            return -0.5 * ((x - mu) / sig) ** 2

        def log_joint(y, lo, hi):
            if noise.name in ("laplace",):
                return _normal_laplace_log_joint(y, lo, hi, mu, sig, s)
            raise AssertionError  # Normal + Gaussian is closed form elsewhere
    else:  # Uniform
        lo_s, hi_s = prior.support
        span = (lo_s, hi_s)
        dens = 1.0 / (hi_s - lo_s)

        def log_prior(x):
            return np.zeros_like(x)

        def log_joint(y, lo, hi):
            a, c = np.maximum(lo, lo_s), np.minimum(hi, hi_s)
            return math.log(dens) + noise.log_interval(y - c, y - a, s)
    half = noise.support_halfwidth(s, 1e-20)
    y_lo, y_hi = span[0] - half, span[1] + half
    n = int(min(n_max, max(200, math.ceil((y_hi - y_lo) / (s / 4)))))
    knots = np.unique(np.concatenate([np.linspace(y_lo, y_hi, n + 1), [v for v in (lo_s, hi_s, lo_s + 2 * r,
                                      hi_s - 2 * r) if np.isfinite(v) and y_lo < v < y_hi]]))
    left, right = knots[:-1], knots[1:]
    xg, wg = _GL16
    ys = (((left + right)[:, None] + (right - left)[:, None] * xg) / 2).ravel()
    wy = (((right - left)[:, None] / 2) * wg).ravel()

    def ell(g):  # log posterior density up to a constant
        return log_prior(g) + kern.log_density(ys, g, eps)

    if isinstance(prior, Normal):
        g_lo, g_hi = np.minimum(ys, mu) - r - 10 * s, np.maximum(ys, mu) + r + 10 * s
    else:
        g_lo, g_hi = np.full_like(ys, lo_s + r), np.full_like(ys, hi_s - r)
    if np.all(g_hi <= g_lo):  # the ball covers the support
        return 1.0
    a, b = g_lo.copy(), g_hi.copy()
    with np.errstate(invalid="ignore"):
        for _ in range(64):
            mid = (a + b) / 2
            d = ell(mid + r) - ell(mid - r)
            up = d > 0  # the upper end is likelier: move right
            a = np.where(up, mid, a)
            b = np.where(up, b, mid)
    g = (a + b) / 2
    vals = np.exp(log_joint(ys, g - r, g + r))
    return float(np.sum(vals * wy))


def _prior_free_or_none(prior, noise, scale, r, k):
    """:func:`prior_free_bound`, or None where it is not computed (no trade-off curve without
    the optional accountant)."""
    try:
        return prior_free_bound(prior, noise, scale=scale, r=r, releases=k)
    except ParameterError:
        return None


def reconstruction_advantage(prior: Prior, mechanism, *, scale: float | None = None, r: float,
                             releases: int = 1, prior_free: bool = True) -> ReconstructionResult:
    r"""Success of the Bayes-optimal attacker within ``r``, the blind baseline, and their gap (beyond the paper).

    The average reading of the guessing advantage (module docstring): exact for the cases
    listed there.

    Parameters
    ----------
    prior : Prior
        The attacker's prior (numeric values).
    mechanism : str, mechanism object, Composition or list of (str, float)
        :data:`garesearch.additive.MECHANISMS` or a mechanism object; or different releases
        (:class:`garesearch.accounting.Composition`, or a list of ``(noise name, scale)``
        pairs): all Gaussian, one release of scale :math:`(\sum_i \sigma_i^{-2})^{-1/2}` (exact
        for every prior); otherwise a binary secret, through the accountant's composed
        privacy-loss distribution (one hockey-stick divergence).
    scale : float
        Noise scale per unit of the attribute, > 0 (required for one mechanism); for a
        composition a common factor on its scales (default 1).
    r : float
        Precision of a correct guess, >= 0.
    releases : int
        Independent releases of the attribute (Gaussian noise: exact for every prior; other
        noise: a binary secret, through the trade-off curve of :mod:`garesearch.accounting`).
    prior_free : bool
        Also compute :func:`prior_free_bound` (else ``prior_free_bound`` is ``None``).

    Returns
    -------
    ReconstructionResult

    See Also
    --------
    garesearch.reconstruction.prior_free_bound : The bound that holds for every prior.
    garesearch.calibration.calibrate : The smallest scale that meets a target (``reading="average"``).
    garesearch.tail.advantage_tail : The tail reading.

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> res = reconstruction_advantage(Categorical({0: 0.5, 1: 0.5}), "gaussian", scale=3.978948, r=0)
    >>> round(res.advantage, 6)  # riskcal: 0.05 at prior 1/2
    0.05
    >>> two = reconstruction_advantage(Categorical({0: 0.5, 1: 0.5}), [("gaussian", 5.0), ("gaussian", 6.666667)],
    ...                                r=0, prior_free=False)  # (1/25 + 9/400)^(-1/2) = 4: sigma 4
    >>> abs(two.success - reconstruction_advantage(Categorical({0: 0.5, 1: 0.5}), "gaussian", scale=4.0,
    ...                                            r=0, prior_free=False).success) < 1e-7
    True
    """
    from . import exact
    from .accounting import as_composition

    r = _check_prior_r(prior, r)
    comp = as_composition(mechanism)
    k = _check_releases(releases)
    if comp is not None:
        factor = 1.0 if scale is None else check_scale(scale)
        if comp.all_gaussian:  # one release of the equivalent scale (the weighted mean is sufficient)
            return _relabelled(reconstruction_advantage(prior, "gaussian", scale=comp.gaussian_scale * factor,
                                                        r=r, releases=k, prior_free=prior_free),
                               comp.label, factor)
        return _composed_binary(prior, comp, factor, r, k, prior_free)
    noise = resolve(mechanism)
    s = check_scale(scale)
    kappa, guess = baseline_success(prior, r)
    finite = isinstance(prior, Categorical)
    if noise.discrete and not finite:
        raise ParameterError(f"prior: {noise.name} noise needs a Categorical prior on integers")
    binary = finite and len(prior.values) == 2 and 2 * r < prior.points[1] - prior.points[0]
    s_eff = s
    if k > 1:
        if noise.name == "gaussian":
            s_eff = s / math.sqrt(k)
        elif not binary:
            raise ParameterError(
                f"releases={k}: for {noise.name} noise the composed reconstruction advantage is computed "
                "for a binary secret (two values further apart than 2r) through the accountant; for other "
                "priors use Gaussian noise (exact for any number of releases)"
            )
    if (finite and len(prior.values) == 1) or kappa >= 1:
        success, method = 1.0, "trivial (the best blind guess is always right)"
    elif k > 1 and noise.name != "gaussian":
        from .accounting import privacy_profile

        prof = privacy_profile(noise, scale=s, distance=float(prior.points[1] - prior.points[0]), releases=k)
        success = binary_success_from_profile(prof.dp_delta, float(prior.probs[1]))
        method = f"binary secret, one hockey-stick divergence ({prof.source})"
    elif binary and noise.name == "gaussian":
        success, method = _binary_gaussian(prior, s_eff), "closed form (binary secret, Gaussian noise)"
    elif finite and noise.discrete:
        success, method = _finite_discrete(prior, noise, s_eff, r), "exact sum over integer outputs"
    elif finite:
        success, method = _finite_continuous(prior, noise, s_eff, r), "exact pieces between roots"
    elif isinstance(prior, Normal) and noise.name == "gaussian":
        from scipy.special import ndtr

        post_sd = prior.sigma * s_eff / math.hypot(prior.sigma, s_eff)
        success, method = float(2 * ndtr(r / post_sd) - 1), "closed form (normal posterior)"
    elif (isinstance(prior, Normal) and noise.name == "laplace") or (
            isinstance(prior, Uniform) and noise.name in ("laplace", "gaussian")):
        success = _log_concave_continuous(prior, noise, s_eff, r)
        method = "log-concave posterior: equal-density ends, Gauss-Legendre over outputs"
    else:
        res = exact.bayes_attacker_success(prior, noise.kernel, epsilon=noise.epsilon_arg(s_eff), r=r)
        success, method = float(res["success"]), "grid over guesses (garesearch.exact.bayes_attacker_success)"
    success = min(max(success, kappa), 1.0)  # the attacker can always ignore y
    bound = _prior_free_or_none(prior, noise, s, r, k) if prior_free else None
    return ReconstructionResult(success=success, baseline=kappa, advantage=success - kappa, guess=guess,
                                prior_free_bound=bound, scale=s, releases=k, r=r, mechanism=noise.name,
                                method=method)


def _relabelled(res: ReconstructionResult, label: str, factor: float) -> ReconstructionResult:
    from dataclasses import replace

    return replace(res, mechanism=label, scale=factor)


def _composed_binary(prior, comp, factor: float, r: float, k: int, prior_free: bool) -> ReconstructionResult:
    """Different releases (not all Gaussian) of a binary secret: one hockey-stick divergence of the
    accountant's composed privacy-loss distribution (:func:`binary_success_from_profile`)."""
    from .accounting import privacy_profile

    kappa, guess = baseline_success(prior, r)
    finite = isinstance(prior, Categorical)
    if finite and len(prior.values) == 1:
        success, method = 1.0, "trivial (the best blind guess is always right)"
    else:
        binary = finite and len(prior.values) == 2 and 2 * r < prior.points[1] - prior.points[0]
        if not binary:
            raise ParameterError(
                f"mechanism: for the composition {comp.label} the reconstruction advantage is computed for a binary "
                "secret (a Categorical prior with two values further apart than 2r) through the accountant; for "
                "other priors use Gaussian parts only (exact for every prior)"
            )
        if any(resolve(n).discrete for n, _ in comp.parts) and np.any(prior.points != np.round(prior.points)):
            raise ParameterError(f"prior: integer noise needs integer values; got {prior.values}")
        prof = privacy_profile(comp, scale=factor, distance=float(prior.points[1] - prior.points[0]), releases=k)
        success = min(max(binary_success_from_profile(prof.dp_delta, float(prior.probs[1])), kappa), 1.0)
        method = f"binary secret, one hockey-stick divergence ({prof.source})"
    bound = _prior_free_or_none(prior, comp, factor, r, k) if prior_free else None
    return ReconstructionResult(success=success, baseline=kappa, advantage=success - kappa, guess=guess,
                                prior_free_bound=bound, scale=factor, releases=k, r=r, mechanism=comp.label,
                                method=method)
