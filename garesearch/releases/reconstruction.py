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
(:func:`binary_success_from_profile`); the accountant of :mod:`garesearch.releases.accounting` composes
``k`` releases, so composed non-Gaussian releases of a binary secret are read that way.

The prior-free bound of Hayes, Mahloujifar and Balle (NeurIPS 2023) and Kaissis et al. (2023),
as riskcal computes it: every attack succeeds with probability at most :math:`1 - f(\kappa)`,
``f`` the trade-off curve between the two inputs furthest apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._plain import PlainFields
from ..additive import check_scale, resolve
from ..errors import ParameterError
from ..priors import Categorical, Normal, PiecewiseUniform, Prior, Uniform
from ._reconstruction_exact import (
    _ball_sets,
    _binary_gaussian,
    _finite_continuous,
    _finite_discrete,
    _log_concave_continuous,
)
from ._reconstruction_exact import _finite_envelope as _finite_envelope

__all__ = [
    "ReconstructionResult",
    "baseline_success",
    "binary_success_from_profile",
    "binary_success_from_tradeoff",
    "prior_free_bound",
    "reconstruction_advantage",
]


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
    >>> from garesearch.releases.accounting import gaussian_dp_delta
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
    :func:`garesearch.releases.accounting.privacy_profile` (a list of releases is composed); ``f`` is
    exact from the accountant's privacy-loss distribution where there is no closed form
    (:func:`garesearch.releases.accounting.tradeoff_from_pld`, a lower bound, so the bound is sound).

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
        (:class:`garesearch.releases.accounting.Composition`, or a list of ``(noise name, scale)``
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
        noise: a binary secret, through the trade-off curve of :mod:`garesearch.releases.accounting`).
    prior_free : bool
        Also compute :func:`prior_free_bound` (else ``prior_free_bound`` is ``None``).

    Returns
    -------
    ReconstructionResult

    See Also
    --------
    garesearch.releases.reconstruction.prior_free_bound : The bound that holds for every prior.
    garesearch.releases.calibration.calibrate : The smallest scale that meets a target (``reading="average"``).
    garesearch.releases.tail.advantage_tail : The tail reading.

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
    from .. import exact
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
