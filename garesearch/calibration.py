r"""Calibrate the noise scale to a target on the attacker's advantage, under one of three readings.

Beyond the paper, which calibrates pure :math:`\epsilon` to its worst-case reading (Def. 7).
:func:`calibrate` returns a noise scale (``b`` for Laplace, :math:`\sigma` for Gaussian, per
unit of the attribute's distance) at which the target is certified, with the mechanism's
standard privacy parameters at that scale and the reading's value there.  It is the smallest
scale the reading's computation can certify: the smallest scale that meets the target where the
reading is computed exactly (closed forms, the exact composition of Laplace releases, the
Laplace mechanism's own worst case), and otherwise the smallest scale at which an upper bound on
the reading meets it (the accountant's pessimistic profile, the bound valid for every
:math:`\epsilon`-DP mechanism), which may lie above the true smallest one.


- ``reading="worst"`` (Def. 7): :math:`\sup_{t,y}|\Pr_{post} - \Pr_{pre}| \le \delta`.  Laplace
  noise (and its integer variant on an integer prior, whose posterior at integer outputs is the
  Laplace posterior; the supremum sits at atoms or in the limits): the Laplace mechanism's own
  exact worst case (:func:`garesearch.exact.exact_epsilon`), ``b = 1/epsilon``.  Composed
  Laplace releases and generalised Cauchy noise: the optimal :math:`\epsilon`, at which no
  :math:`\epsilon`-DP mechanism exceeds ``delta`` (:func:`garesearch.optimal.epsilon_optimal`,
  through :func:`garesearch.attribute.epsilon_for_attribute`), ``k`` releases of scale ``b``
  being :math:`(k c/b)`-DP together (``c = 1`` for Laplace), so each release takes
  :math:`\epsilon/k`.  This is the true smallest scale for a mechanism class that is only known
  to be :math:`\epsilon`-DP, and a safe one for ``k`` Laplace releases (whose own composed worst
  case may allow a little less noise).  Gaussian noise: its exact worst case, which is
  infeasible whenever the posterior's limits on rare outputs (0 or 1) are further than
  ``delta`` from the prior -- an :class:`~garesearch.errors.InfeasibleError` that says so.
- ``reading="tail"``: :math:`\beta = \sup_t \Pr_{y\sim M(t)}[|\Pr_{post} - \Pr_{pre}| > \delta]
  \le` ``beta`` (:func:`garesearch.tail.advantage_tail`).
- ``reading="average"``: the Bayes-optimal attacker's success minus the best blind guess's
  :math:`\le \delta` (:func:`garesearch.reconstruction.reconstruction_advantage`).  ``k``
  Laplace releases of a binary secret are read exactly (one hockey-stick divergence of the exact
  composition, :mod:`garesearch.accounting`), so the scale is the exact one to ``rtol``.
- ``reading="advantage"`` (riskcal's advantage calibration; Kulynych et al., NeurIPS 2024):
  every membership test between the two values of the prior furthest apart (distance ``D``)
  has true-positive minus false-positive rate at most ``delta``: the total variation distance of
  the ``k``-fold output distributions, :math:`\delta_{DP}(0)` of the composed privacy profile.
  Gaussian noise: :math:`2\Phi(\sqrt k D/(2\sigma)) - 1`, so at ``k = 1``
  :math:`\sigma = D/(2\Phi^{-1}((1 + \delta)/2))`; Laplace noise: exact for any ``k``
  (``k = 1``: :math:`1 - e^{-D/(2b)}`).  A prior with unbounded support has no such pair: the
  request is infeasible.
- ``reading="error_rates"`` (riskcal's calibration to attack error rates): no such test has
  false-positive rate :math:`\le` ``alpha`` and false-negative rate below ``beta``, that is the
  trade-off curve :math:`f(\alpha) \ge \beta` (:mod:`garesearch.accounting`; Gaussian:
  :math:`\Phi(\Phi^{-1}(1-\alpha) - \sqrt k D/\sigma) \ge \beta`).  ``delta`` does not
  apply.  Only :math:`\beta < 1 - \alpha` can be met (a test that ignores the output reaches
  :math:`1 - \alpha`).

Before searching, the reading's limit as the scale goes to 0 (its largest value) is computed
where it can lie below the target: the average reading cannot exceed :math:`1 - \kappa`, and
with Poisson subsampling (probability ``q``, ``k`` steps) the record is never included with
probability :math:`(1-q)^k`, which caps the average reading, the advantage at
:math:`1 - (1-q)^k` and keeps the trade-off curve above
:math:`\min((1-q)^k(1 - \alpha), 1 - \alpha/(1-q)^k)`.  A target that this limit already meets
needs no noise, and :class:`~garesearch.errors.InfeasibleError` says so at once, with the limit.

Every reading falls as the scale grows (more noise is a garbling of less: Gaussian and Laplace
noise of a larger scale is the smaller one plus independent noise), so the scale is found by
bracketing and Brent's method in :math:`\ln` scale, to relative ``rtol``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import _laplace_pld
from ._args import check_sides
from ._roots import narrow_bracket
from .additive import ScaledNoise, resolve
from .errors import InfeasibleError, ParameterError
from .priors import Categorical, Prior

__all__ = ["READINGS", "CalibrationResult", "calibrate"]

READINGS = ("worst", "tail", "average", "advantage", "error_rates")
_GC_L = 3.0**0.75


@dataclass(frozen=True)
class CalibrationResult:
    r"""What :func:`calibrate` found.

    Attributes
    ----------
    scale : float
        Noise scale per release (``b`` for Laplace, :math:`\sigma` for Gaussian), per unit of the
        attribute's distance; multiply by the query's sensitivity.
    value : float
        The reading at ``scale``: the worst-case advantage (or its bound), :math:`\beta`, or the
        average advantage.
    reading, mechanism : str
    delta : float or None
        The target (None for ``reading="error_rates"``).
    beta : float or None
        ``reading="tail"``: the bound on the tail probability; ``"error_rates"``: the
        false-negative rate every test at false-positive rate ``alpha`` must reach.
    releases : int
    r : float
    t : float or None
        The worst true value where the reading has one.
    epsilon : float
        Pure epsilon of all releases together per unit of distance (``inf`` for Gaussian noise).
    mu, rho : float or None
        :math:`\mu`-GDP and :math:`\rho`-zCDP of all releases together (Gaussian noise without
        subsampling).
    method : str
    sampling_prob : float
        Poisson subsampling probability of each release (1: none).
    alpha : float or None
        ``reading="error_rates"``: the false-positive rate.
    """

    scale: float
    value: float
    reading: str
    mechanism: str
    delta: float
    beta: float | None
    releases: int
    r: float
    t: float | None
    epsilon: float
    mu: float | None
    rho: float | None
    method: str
    _noise: ScaledNoise = field(repr=False)
    sampling_prob: float = 1.0
    alpha: float | None = None

    def privacy_profile(self, distance: float = 1.0):
        """The :class:`~garesearch.accounting.PrivacyProfile` of all releases at this scale."""
        from .accounting import privacy_profile

        return privacy_profile(self._noise, scale=self.scale, distance=distance, releases=self.releases,
                               sampling_prob=self.sampling_prob)

    def dp_epsilon(self, dp_delta: float, distance: float = 1.0) -> float:
        r"""The :math:`\epsilon` of :math:`(\epsilon, \delta_{DP})`-DP of all releases at ``dp_delta``."""
        return self.privacy_profile(distance).dp_epsilon(dp_delta)

    def dp_delta(self, epsilon: float, distance: float = 1.0) -> float:
        r"""The :math:`\delta_{DP}` of :math:`(\epsilon, \delta_{DP})`-DP of all releases at ``epsilon``."""
        return self.privacy_profile(distance).dp_delta(epsilon)


def _spread(prior) -> float:
    if isinstance(prior, Categorical):
        x = prior.points
        gaps = np.diff(x)
        return float(np.min(gaps)) if gaps.size else 1.0
    q = np.asarray(prior.quantile(np.array([0.25, 0.75])), float)
    return float(q[1] - q[0]) if q[1] > q[0] else 1.0


def _laplace_worst_epsilon(prior, r, delta, sides) -> tuple[float, str]:
    """The Laplace mechanism's exact worst-case epsilon: the one place ``reading="worst"`` reads it."""
    from .exact import exact_epsilon
    from .mechanisms import Laplace

    return exact_epsilon(prior, Laplace(), r=r, delta=delta, sides=sides), "exact worst case of the Laplace mechanism"


def _any_dp_worst_epsilon(prior, r, delta, sides) -> tuple[float, str]:
    """The largest epsilon at which every epsilon-DP mechanism meets Def. 7 (the optimum): the one
    place composed and generalised Cauchy releases read it."""
    from .attribute import epsilon_for_attribute

    return (epsilon_for_attribute(prior, r=r, delta=delta, sides=sides).epsilon,
            "optimal epsilon, valid for every epsilon-DP mechanism")


def _worst(prior, noise: ScaledNoise, r, delta, k, sides):
    from .exact import exact_advantage, exact_epsilon

    if noise.name in ("gaussian", "discrete_gaussian"):
        try:
            eps = exact_epsilon(prior, noise.kernel, r=r, delta=delta, sides=sides)
        except InfeasibleError as exc:
            raise InfeasibleError(
                f"reading='worst' with {noise.name} noise: no scale meets advantage <= {delta} on every output. "
                "As the output goes to +-infinity the Gaussian posterior of a correct guess tends to 0 (or to 1 at "
                "the end of a bounded or finite prior) whatever the scale, so on rare outputs it leaves "
                f"[p - {delta}, p + {delta}]. Use reading='tail' (bound the probability of such outputs) or "
                f"reading='average', or Laplace noise. ({exc})"
            ) from None
        scale = noise.kernel.scale(eps) * math.sqrt(k)
        value = exact_advantage(prior, noise.kernel, epsilon=eps, r=r, sides=sides)
        return scale, value.advantage, value.t, "exact worst case of the Gaussian mechanism"
    if noise.name in ("laplace", "discrete_laplace") and k == 1:
        eps, method = _laplace_worst_epsilon(prior, r, delta, sides)
        if not math.isfinite(eps):
            raise InfeasibleError("reading='worst': delta is met without noise")
        value = exact_advantage(prior, noise.kernel, epsilon=eps, r=r, sides=sides)
        return 1.0 / eps, value.advantage, value.t, method
    eps, method = _any_dp_worst_epsilon(prior, r, delta, sides)
    if not math.isfinite(eps):
        raise InfeasibleError("reading='worst': delta is met without noise")
    c = _GC_L if noise.name == "gencauchy" else 1.0
    # k releases of scale b are (k c/b)-DP together: each takes epsilon/k
    return k * c / eps, delta, None, method + (f"; {k} releases of scale b are ({k}c/b)-DP" if k > 1 else "")


def _solve(metric, target, s0, rtol, factor=4.0):
    """Smallest scale with ``metric(scale) <= target`` (``metric`` falls with the scale).

    The bracket grows from ``s0`` by ``factor`` (a good first guess takes a factor near 1).  The
    scale returned is one at which ``metric`` was evaluated and found ``<= target``; a NaN counts
    as missing the target.
    """
    lo = hi = None
    if metric(s0) <= target:
        hi, s = s0, s0
        while True:
            s /= factor
            if s < s0 * 1e-48:
                raise InfeasibleError("the target is met at every scale down to 1e-48 of the prior's spread: "
                                      "no noise is needed")
            if not metric(s) <= target:
                lo = s
                break
            hi = s
    else:
        lo, s = s0, s0
        while True:
            s *= factor
            if s > s0 * 1e36:
                raise InfeasibleError(f"no scale up to {s:.3g} meets the target")
            if metric(s) <= target:
                hi = s
                break
            lo = s
    # metric(lo) > target >= metric(hi), narrowed in log-scale by every evaluation inside
    _, x_hi = narrow_bracket(lambda x: metric(math.exp(x)) - target, math.log(lo), math.log(hi),
                             tol=math.log1p(rtol), meets="hi", rtol=4e-16)
    return hi if x_hi == math.log(hi) else math.exp(x_hi)  # an end that was evaluated


#: value discretisation of the accountant while calibrating composed releases (pessimistic, so
#: every scale it accepts is sound; 1e-3 moves delta by about 1e-7 against 1e-4, at a tenth of the time)
_SEARCH_DISCRETIZATION = 1e-3


def _average_composed_binary(prior, noise: ScaledNoise, r, delta, k, rtol):
    """Average reading of ``k`` non-Gaussian releases of a binary secret, by the accountant.

    The success is one hockey-stick divergence of the composed releases
    (:func:`garesearch.reconstruction.binary_success_from_profile`), from a pessimistic privacy
    loss distribution: an upper bound, so the scale found meets the target.  The search starts
    at the Gaussian scale with the same average reading (closed form): for small privacy losses
    a Laplace release of scale ``b`` loses about as much as a Gaussian one of ``sigma = b``.
    """
    from .accounting import privacy_profile
    from .reconstruction import (
        baseline_success,
        binary_success_from_profile,
        reconstruction_advantage,
    )

    if not (isinstance(prior, Categorical) and len(prior.values) == 2 and 2 * r < prior.points[1] - prior.points[0]):
        # reconstruction_advantage raises the ParameterError that says what is supported
        reconstruction_advantage(prior, noise, scale=1.0, r=r, releases=k, prior_free=False)
    gap = float(prior.points[1] - prior.points[0])
    w1 = float(prior.probs[1])
    kappa, _ = baseline_success(prior, r)
    if noise.name == "laplace" and k <= _laplace_pld.MAX_RELEASES:  # the exact composition

        def exact(sc):
            prof = privacy_profile(noise, scale=sc, distance=gap, releases=k)
            return binary_success_from_profile(prof.dp_delta, w1) - kappa

        s0 = _solve(lambda sc: reconstruction_advantage(prior, "gaussian", scale=sc, r=r, releases=k,
                                                       prior_free=False).advantage, delta, gap, 1e-6)
        scale = _solve(exact, delta, s0, rtol, factor=1.25)
        source = privacy_profile(noise, scale=scale, distance=gap, releases=k).source
        return scale, exact(scale), f"binary secret, one hockey-stick divergence ({source})"

    def metric(sc, discretization=_SEARCH_DISCRETIZATION):
        prof = privacy_profile(noise, scale=sc, distance=gap, releases=k, discretization=discretization)
        return binary_success_from_profile(prof.dp_delta, w1) - kappa

    s0 = _solve(lambda sc: reconstruction_advantage(prior, "gaussian", scale=sc, r=r, releases=k,
                                                   prior_free=False).advantage, delta, gap, 1e-6)
    scale = _solve(metric, delta, s0, rtol, factor=1.25)
    # the accountant's default resolution (1e-4) is less pessimistic: one secant step down from
    # the coarse scale, kept only if it still meets the target there
    fine = metric(scale, 1e-4)
    source = privacy_profile(noise, scale=scale, distance=gap, releases=k).source
    if source.startswith("dp_accounting"):
        source += ", discretization 1e-4"
    method = f"binary secret, one hockey-stick divergence ({source})"
    if fine < delta:
        step = scale * 1e-3
        slope = (metric(scale - step) - metric(scale)) / step  # > 0: the reading falls with the scale
        if slope > 0:
            cand = scale - (delta - fine) / slope
            value = metric(cand, 1e-4) if cand > 0 else math.inf
            if value <= delta:
                return cand, value, method
    if fine <= delta:
        return scale, fine, method
    return scale, metric(scale), method.replace("1e-4", "1e-3")


def _subsampled(prior, noise, r, delta, reading, beta, k, q, sides, rtol):
    """Poisson-subsampled Gaussian releases (:mod:`garesearch.subsampled`): scale, value, method."""
    from .subsampled import subsampled_gaussian_reading

    if noise.name != "gaussian":
        raise ParameterError(f"sampling_prob < 1 is supported for 'gaussian' noise (DP-SGD style); got {noise.name!r}")

    def run(sc, discretization=_SEARCH_DISCRETIZATION):
        return subsampled_gaussian_reading(prior, scale=sc, sampling_prob=q, steps=k, reading=reading, r=r,
                                           delta=delta if reading == "tail" else None, sides=sides,
                                           discretization=discretization)

    from .subsampled import _binary

    _binary(prior)  # the prior's checks, before any work
    if reading == "worst":
        run(1.0)  # raises InfeasibleError, saying why
    if reading == "average":
        # the limit at scale 0: the record, if ever included, is revealed; with probability (1-q)^k it never is
        x0 = float(prior.points[0])
        w_zero, w_other = (float(prior.probs[0]), float(prior.probs[1])) if x0 == 0 else (
            float(prior.probs[1]), float(prior.probs[0]))
        never = math.exp(k * math.log1p(-q))
        sup = w_other * (1 - never) + max(w_zero, w_other * never) - max(w_zero, w_other)
        if delta >= sup:
            raise InfeasibleError(
                f"no noise is needed: with sampling_prob={q:g} and {k} releases the record is never included with "
                f"probability (1 - q)^k = {never:.6g}, so even without noise the average advantage is at most "
                f"{sup:.6g}, which already meets delta = {delta:g}")
    target = float(beta) if reading == "tail" else float(delta)
    gap = float(abs(prior.points[1] - prior.points[0]))
    scale = _solve(lambda sc: run(sc).value, target, gap, max(rtol, 1e-4), factor=2.0)
    res = run(scale)
    return scale, res.value, (res.t if reading == "tail" else None), res.method + ", discretization 1e-3"


def _average(prior, noise: ScaledNoise, r, delta, k, rtol):
    """The average reading (no subsampling): scale, value, method."""
    from .reconstruction import baseline_success, reconstruction_advantage

    kappa, _ = baseline_success(prior, r)
    if delta >= 1 - kappa:
        raise InfeasibleError(
            f"no noise is needed: the best blind guess is right with probability {kappa:.6g}, so no attacker's "
            f"success exceeds it by more than {1 - kappa:.6g} even without noise, which already meets "
            f"delta = {delta:g}")
    if k > 1 and noise.name != "gaussian":
        return _average_composed_binary(prior, noise, r, delta, k, rtol)
    scale = _solve(lambda sc: reconstruction_advantage(prior, noise, scale=sc, r=r, releases=k,
                                                       prior_free=False).advantage, delta, _spread(prior), rtol)
    res = reconstruction_advantage(prior, noise, scale=scale, r=r, releases=k, prior_free=False)
    return scale, res.advantage, res.method


def _tradeoff_at(prof, alpha: float) -> float:
    r"""The trade-off curve at one ``alpha`` from a privacy profile that bounds both directions:
    :math:`\sup_{\epsilon \ge 0}\max(1 - \delta(\epsilon) - e^\epsilon\alpha,
    e^{-\epsilon}(1 - \delta(\epsilon) - \alpha))` (Dong, Roth and Su, Prop. 2.12), each branch
    maximised by Brent's method (it is concave in :math:`e^{\pm\epsilon}`); every value found is
    attained, so the result is a lower bound on the curve (sound)."""
    from scipy.optimize import minimize_scalar

    top = prof.epsilon if math.isfinite(prof.epsilon) else prof.dp_epsilon(1e-12)
    top = max(float(top), 1e-9)
    branches = (lambda e: 1 - prof.dp_delta(e) - math.exp(e) * alpha,
                lambda e: math.exp(-e) * (1 - prof.dp_delta(e) - alpha))
    best = 0.0
    for g in branches:
        res = minimize_scalar(lambda e, g=g: -g(e), bounds=(0.0, top), method="bounded",
                              options={"xatol": 1e-10 * max(1.0, top)})
        best = max(best, -float(res.fun), g(0.0))
    return best


def _membership(prior, noise: ScaledNoise, reading, delta, alpha, beta, k, q, rtol):
    """The advantage and error-rate readings (module docstring): scale, value, method."""
    from .accounting import privacy_profile
    from .reconstruction import _diameter

    if q < 1:
        from .subsampled import _binary

        if noise.name != "gaussian":
            raise ParameterError(f"sampling_prob < 1 is supported for 'gaussian' noise (DP-SGD style); got "
                                 f"{noise.name!r}")
        x0, x1, _, _ = _binary(prior)
        dist = abs(x1 - x0)
        never = math.exp(k * math.log1p(-q))  # probability that the record is never included
    else:
        dist = _diameter(prior)
        never = 0.0
        if not math.isfinite(dist):
            raise InfeasibleError(
                f"reading={reading!r}: the prior's support is unbounded, so its two furthest values are told apart "
                "with certainty at every scale. Use a prior with bounded support (Categorical, Uniform, "
                "PiecewiseUniform), or reading='average' or 'tail'.")
    if dist <= 0:
        raise InfeasibleError(f"reading={reading!r}: the prior has one value: no noise is needed")
    accurate = (noise.name == "gaussian" and q == 1) or (noise.name == "laplace" and k <= _laplace_pld.MAX_RELEASES)

    def profile(sc):  # the accountant's coarser (pessimistic, so sound) discretisation where it is used
        return privacy_profile(noise, scale=sc, distance=dist, releases=k, sampling_prob=q,
                               discretization=_SEARCH_DISCRETIZATION)

    if reading == "advantage":
        sup = 1.0 - never
        if delta >= sup:
            raise InfeasibleError(
                f"no noise is needed: with sampling_prob={q:g} and {k} releases the record is never included with "
                f"probability {never:.6g}, so no test reaches an advantage above {sup:.6g} even without noise, "
                f"which already meets delta = {delta:g}")

        def value(sc):
            return float(profile(sc).dp_delta(0.0))

        scale = _solve(value, delta, dist, rtol if accurate else max(rtol, 1e-6))
        what = "total variation of the composed outputs"
        return scale, value(scale), f"{what} between values {dist:g} apart ({profile(scale).source})"
    if beta >= 1 - alpha:
        raise InfeasibleError(
            f"reading='error_rates': a test that ignores the output has false-positive rate alpha = {alpha:g} and "
            f"false-negative rate 1 - alpha = {1 - alpha:g}, so no scale keeps every test's false-negative rate "
            f"at least beta = {beta:g}; choose beta < 1 - alpha")
    floor = min(never * (1 - alpha), max(0.0, 1 - alpha / never)) if never > 0 else 0.0
    if beta <= floor:
        raise InfeasibleError(
            f"no noise is needed: with sampling_prob={q:g} and {k} releases the record is never included with "
            f"probability {never:.6g}, so even without noise every test at false-positive rate {alpha:g} has a "
            f"false-negative rate of at least {floor:.6g} >= beta = {beta:g}")

    exact_curve = (noise.name == "gaussian" and q == 1) or (noise.name == "laplace" and k == 1)

    def fnr(sc):
        prof = profile(sc)
        return float(prof.tradeoff(alpha)) if exact_curve or noise.name == "gencauchy" else _tradeoff_at(prof, alpha)

    scale = _solve(lambda sc: -fnr(sc), -beta, dist, rtol if exact_curve else max(rtol, 1e-4))
    kind = "closed form" if exact_curve else "lower bound from the privacy profile"
    return scale, fnr(scale), f"trade-off curve f(alpha) between values {dist:g} apart ({kind}, {profile(scale).source})"


def calibrate(prior: Prior, mechanism, *, r: float, delta: float | None = None, reading: str = "worst",
              beta: float | None = None, releases: int = 1, sides: str = "both",
              rtol: float = 1e-9, sampling_prob: float = 1.0, alpha: float | None = None) -> CalibrationResult:
    r"""The smallest noise scale the reading can certify for a target on the attacker's advantage.

    Beyond the paper (module docstring); ``reading="worst"`` is Def. 7 (Sec. 4.1).  Where the
    reading is computed exactly (closed forms, the exact composition of Laplace releases, the
    Laplace mechanism's own worst case) the scale is the smallest that meets the target, to
    relative ``rtol`` and never below it; where only an upper bound on the reading is available
    (the accountant's pessimistic profile, the optimum over every :math:`\epsilon`-DP mechanism
    for composed or generalised Cauchy releases under ``reading="worst"``) it is the smallest
    scale at which the bound meets the target, at or above the true smallest.

    Parameters
    ----------
    prior : Prior
        The attacker's prior (numeric values).
    mechanism : str or mechanism object
        ``"laplace"``, ``"gaussian"``, ``"gencauchy"``, ``"discrete_laplace"``,
        ``"discrete_gaussian"`` or a mechanism object.
    r : float
        Precision of a correct guess, >= 0.
    delta : float
        Target on the advantage, in (0, 1): the worst-case bound, the tail reading's
        threshold, the bound on the average advantage, or on a membership test's true-positive
        minus false-positive rate (``reading="advantage"``).  Not used by
        ``reading="error_rates"`` (giving it there is a ParameterError).
    reading : {"worst", "tail", "average", "advantage", "error_rates"}
    beta : float, optional
        ``reading="tail"``: the largest acceptable probability :math:`\beta`, in (0, 1).
        ``reading="error_rates"``: the smallest false-negative rate any test may reach at
        false-positive rate ``alpha``, in (0, 1 - alpha) (riskcal's ``beta``).
    releases : int
        Independent releases of the attribute, >= 1 (module docstring for how each reading
        composes them).
    sides : {"both", "upper", "lower"}
        Worst and tail readings: which deviation counts.
    rtol : float
        Relative tolerance of the scale, in [1e-12, 0.01] (at least 1e-4 with subsampling, where the
        accountant's discretisation limits the accuracy).
    sampling_prob : float
        Poisson subsampling probability of each release, in (0, 1] (DP-SGD style: ``releases``
        steps, each including the record with this probability); below 1 for ``"gaussian"``
        noise and a binary secret one of whose values is 0 (:mod:`garesearch.subsampled`):
        the average reading exactly (through the accountant), the tail reading as a bound, the
        worst case infeasible.
    alpha : float, optional
        ``reading="error_rates"`` only: the false-positive rate, in (0, 1) (riskcal's ``alpha``).

    Returns
    -------
    CalibrationResult

    Raises
    ------
    InfeasibleError
        When no scale meets the target (for example ``reading="worst"`` with Gaussian noise), or
        when every scale does (no noise is needed; the message gives the reading's limit).

    See Also
    --------
    garesearch.tail.advantage_tail : The tail reading at a given scale.
    garesearch.reconstruction.reconstruction_advantage : The average reading at a given scale.
    garesearch.attribute.epsilon_for_attribute : The worst-case epsilon (Laplace scale ``1/epsilon``).
    garesearch.release.gaussian_release : A release at the calibrated scale.

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> res = calibrate(Categorical({0: 0.8, 1: 0.2}), "gaussian", r=0, delta=0.1, reading="average")
    >>> round(res.scale, 5)  # riskcal: sigma = 0.462471
    0.46247
    >>> adv = calibrate(Categorical({0: 0.5, 1: 0.5}), "gaussian", r=0, delta=0.1, reading="advantage")
    >>> round(adv.scale, 6)  # riskcal: sigma = 3.978948, i.e. 1 / (2 Phi^-1(0.55))
    3.978948
    >>> err = calibrate(Categorical({0: 0.5, 1: 0.5}), "gaussian", r=0, reading="error_rates", alpha=0.05, beta=0.5)
    >>> round(err.scale, 6)  # 1 / Phi^-1(0.95)
    0.607957
    """
    from .tail import advantage_tail

    if reading not in READINGS:
        raise ParameterError(f"reading must be one of {READINGS}; got {reading!r}")
    if reading == "error_rates":
        if delta is not None:
            raise ParameterError("delta does not apply to reading='error_rates' (its target is alpha and beta)")
        if not (isinstance(alpha, (int, float, np.integer, np.floating)) and 0 < alpha < 1):
            raise ParameterError(f"alpha must lie in (0, 1) for reading='error_rates'; got {alpha!r}")
        if not (isinstance(beta, (int, float, np.integer, np.floating)) and 0 < beta < 1):
            raise ParameterError(f"beta must lie in (0, 1) for reading='error_rates'; got {beta!r}")
    else:
        if not (isinstance(delta, (int, float, np.integer, np.floating)) and 0 < delta < 1):
            raise ParameterError(f"delta must lie in (0, 1); got {delta!r}")
        if alpha is not None:
            raise ParameterError("alpha applies only to reading='error_rates'")
    if not (isinstance(releases, (int, np.integer)) and not isinstance(releases, bool) and releases >= 1):
        raise ParameterError(f"releases must be an integer >= 1; got {releases!r}")
    check_sides(sides)
    if not (isinstance(rtol, (int, float)) and 1e-12 <= rtol <= 0.01):
        raise ParameterError(f"rtol must lie in [1e-12, 0.01]; got {rtol!r}")
    if reading == "tail":
        if not (isinstance(beta, (int, float, np.integer, np.floating)) and 0 < beta < 1):
            raise ParameterError(f"beta must lie in (0, 1) for reading='tail'; got {beta!r}")
    elif beta is not None and reading != "error_rates":
        raise ParameterError("beta applies only to reading='tail' and reading='error_rates'")
    if not isinstance(prior, Prior):
        raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
    if not (isinstance(r, (int, float, np.integer, np.floating)) and math.isfinite(r) and r >= 0):
        raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
    noise = resolve(mechanism)
    k = int(releases)
    if noise.discrete and not (isinstance(prior, Categorical) and prior.metric == "absolute"
                               and np.all(prior.points == np.round(prior.points))):
        raise ParameterError(f"prior: {noise.name} noise needs a Categorical prior on integers")
    if not (isinstance(sampling_prob, (int, float, np.integer, np.floating)) and 0 < sampling_prob <= 1):
        raise ParameterError(f"sampling_prob must lie in (0, 1]; got {sampling_prob!r}")
    q = float(sampling_prob)
    t = None
    if reading in ("advantage", "error_rates"):
        scale, value, method = _membership(prior, noise, reading, None if delta is None else float(delta),
                                           None if alpha is None else float(alpha),
                                           None if beta is None else float(beta), k, q, rtol)
    elif q < 1:
        scale, value, t, method = _subsampled(prior, noise, float(r), float(delta), reading, beta, k, q, sides, rtol)
    elif reading == "worst":
        scale, value, t, method = _worst(prior, noise, float(r), float(delta), k, sides)
    elif reading == "tail":
        hints: list = []

        def metric(sc):
            for h in hints:  # a violation at a known bad t needs no global search
                v = advantage_tail(prior, noise, scale=sc, r=r, delta=delta, t=h, releases=k, sides=sides).beta
                if v > beta:
                    return v
            res = advantage_tail(prior, noise, scale=sc, r=r, delta=delta, releases=k, sides=sides)
            if res.t not in hints:
                hints.append(res.t)
            return res.beta

        scale = _solve(metric, float(beta), _spread(prior), rtol)
        res = advantage_tail(prior, noise, scale=scale, r=r, delta=delta, releases=k, sides=sides)
        value, t, method = res.beta, res.t, res.method
    else:
        scale, value, method = _average(prior, noise, float(r), float(delta), k, rtol)
    gauss = noise.name in ("gaussian", "discrete_gaussian") and q == 1
    mu = math.sqrt(k) / scale if gauss else None
    return CalibrationResult(
        scale=float(scale), value=float(value), reading=reading, mechanism=noise.name,
        delta=None if delta is None else float(delta),
        beta=None if beta is None else float(beta), releases=k, r=float(r), t=None if t is None else float(t),
        epsilon=k * noise.pure_epsilon(scale), mu=mu, rho=None if mu is None else mu * mu / 2,
        method=method, _noise=noise, sampling_prob=q, alpha=None if alpha is None else float(alpha),
    )
