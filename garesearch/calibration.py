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

A list of different releases (a :class:`~garesearch.accounting.Composition`, or a list of
``(noise name, scale)`` pairs) is calibrated by one common factor ``c`` on the listed scales
(``scale`` is ``c``, ``parts`` the releases at ``c``).  All Gaussian: one Gaussian release of
scale :math:`c(\sum_i s_i^{-2})^{-1/2}` (the precision-weighted mean of the outputs is
sufficient), every reading as for it.  Otherwise the readings the composed privacy profile
bounds: ``"average"`` (a binary secret), ``"advantage"`` and ``"error_rates"``, through the
accountant's pessimistic privacy-loss distribution (sound); ``"worst"`` only when every part is
pure :math:`\epsilon`-DP, through the optimum: the releases are
:math:`(k \sum_i \epsilon_i / c)`-DP together, at most the optimal :math:`\epsilon`.

A prior of labels (a :class:`~garesearch.priors.Categorical` with non-numeric keys, under the
discrete metric of Sec. 4.1) has no value to add noise to: there ``reading="worst"`` of pure
:math:`\epsilon`-DP noise goes through the optimal :math:`\epsilon` (valid for every
mechanism whose outputs move by at most one unit between two labels, such as a count), and
``"advantage"`` and ``"error_rates"`` read a test between two labels 1 apart; the other
readings need numeric values (a :class:`~garesearch.errors.ParameterError` says so).

Every result reports the price beside the risk: the mean absolute error of each release
(``expected_error``) and, through :meth:`CalibrationResult.accuracy`, the bound the noise stays
within at a level (:func:`garesearch.release.noise_accuracy`).

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
from ._roots import narrow_scale, smallest_scale
from .accounting import as_composition
from .additive import ScaledNoise, resolve
from .errors import InfeasibleError, ParameterError
from .mechanisms import _GC_L
from .priors import Categorical, Prior

__all__ = ["READINGS", "CalibrationResult", "calibrate"]

READINGS = ("worst", "tail", "average", "advantage", "error_rates")


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
    parts : tuple
        A list of releases (``mechanism`` a :class:`~garesearch.accounting.Composition`):
        ``(noise name, scale)`` of each release at the calibrated factor, which is ``scale``
        (each listed scale times it); empty for one mechanism.
    expected_error : float or tuple
        The price of the privacy, beside the risk: the mean absolute error :math:`E|Z|` of
        each release per unit of distance (times the query's sensitivity in its units), a
        tuple with one per part for a list of releases (:func:`garesearch.release.expected_abs_error`);
        :meth:`accuracy` gives the bound at a level.
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
    parts: tuple = ()
    expected_error: float | tuple | None = None

    def accuracy(self, alpha: float = 0.05, sensitivity: float = 1.0):
        r"""The error each release pays: its mean absolute error and the bound it exceeds with
        probability at most ``alpha`` (:func:`garesearch.release.noise_accuracy`), for a query of
        ``sensitivity`` (> 0) per unit of distance; a tuple, one per part, for a list of releases.

        Examples
        --------
        >>> import math
        >>> from garesearch.priors import Categorical
        >>> res = calibrate(Categorical({0: 0.5, 1: 0.5}), "gaussian", r=0, delta=0.1, reading="advantage")
        >>> acc = res.accuracy(alpha=0.05)
        >>> abs(acc.bound - res.scale * 1.959963984540054) < 1e-9  # sigma Phi^-1(0.975)
        True
        >>> abs(acc.expected_error - res.scale * math.sqrt(2 / math.pi)) < 1e-12
        True
        """
        from .additive import check_scale
        from .release import noise_accuracy

        sens = check_scale(sensitivity, "sensitivity")
        if self.parts:
            return tuple(noise_accuracy(n, scale=sc * sens, alpha=alpha) for n, sc in self.parts)
        return noise_accuracy(self.mechanism, scale=self.scale * sens, alpha=alpha)

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
    if noise.name in ("laplace", "discrete_laplace") and k == 1 and prior.metric == "absolute":
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
    # a list of releases (its scale is the common factor): start where the parts' scales, read as
    # Gaussian ones, combine to the Gaussian scale
    per = 1.0 if isinstance(noise, ScaledNoise) else math.sqrt(math.fsum(1.0 / (sc * sc) for _, sc in noise.parts))
    if isinstance(noise, ScaledNoise) and noise.name == "laplace" and k <= _laplace_pld.MAX_RELEASES:

        def exact(sc):
            prof = privacy_profile(noise, scale=sc, distance=gap, releases=k)
            return binary_success_from_profile(prof.dp_delta, w1) - kappa

        s0 = smallest_scale(lambda sc: reconstruction_advantage(prior, "gaussian", scale=sc, r=r, releases=k,
                                                       prior_free=False).advantage, delta, gap, 1e-6)
        scale = smallest_scale(exact, delta, s0, rtol, factor=1.25)
        source = privacy_profile(noise, scale=scale, distance=gap, releases=k).source
        return scale, exact(scale), f"binary secret, one hockey-stick divergence ({source})"

    def metric(sc, discretization=_SEARCH_DISCRETIZATION):
        prof = privacy_profile(noise, scale=sc, distance=gap, releases=k, discretization=discretization)
        return binary_success_from_profile(prof.dp_delta, w1) - kappa

    s0 = smallest_scale(lambda sc: reconstruction_advantage(prior, "gaussian", scale=sc, r=r, releases=k,
                                                   prior_free=False).advantage, delta, gap, 1e-6)
    scale = smallest_scale(metric, delta, s0 * per, rtol, factor=1.25)
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
    scale = smallest_scale(lambda sc: run(sc).value, target, gap, max(rtol, 1e-7 if reading == "average" else 1e-4),
                   factor=2.0)
    if reading == "average":  # the 1e-3 crossing lies up to about 1e-6 above the exact one: refine
        refined = _refine(lambda sc: run(sc, _FINE_DISCRETIZATION).value, target, scale, max(rtol, 1e-8))
        if refined is not None:
            res = run(refined, _FINE_DISCRETIZATION)
            return refined, res.value, None, res.method + f", discretization {_FINE_DISCRETIZATION:g}"
    res = run(scale)
    return scale, res.value, (res.t if reading == "tail" else None), res.method + ", discretization 1e-3"


#: the accountant's resolution in the final bracket (pessimistic too, so every scale it accepts is
#: sound; a quarter of the search's, at about four times its cost per evaluation)
_FINE_DISCRETIZATION = 2.5e-4


def _refine(metric, target, scale, rtol):
    """The smallest scale at which ``metric`` (a finer, still pessimistic, accountant) meets the
    target, searched only in the final bracket just below ``scale`` (found with a coarser one), to
    relative ``rtol``; None if the finer accountant does not meet the target at ``scale`` (then
    ``scale`` stands)."""
    if not metric(scale) <= target:
        return None
    hi = scale
    for width in (1e-5, 1e-3, 1e-2):  # the coarse crossing lies about 1e-6 above the finer one
        lo = scale * (1 - width)
        if not metric(lo) <= target:
            break
        hi = lo
    else:
        return hi  # met at every trial: the smallest of them (sound)
    return narrow_scale(metric, target, lo, hi, rtol)


def _refuse_if_no_noise_is_needed(prior, r, delta) -> None:
    """The average reading's target is met without noise when ``delta >= 1 - kappa``."""
    from .reconstruction import baseline_success

    kappa, _ = baseline_success(prior, r)
    if delta >= 1 - kappa:
        raise InfeasibleError(
            f"no noise is needed: the best blind guess is right with probability {kappa:.6g}, so no attacker's "
            f"success exceeds it by more than {1 - kappa:.6g} even without noise, which already meets "
            f"delta = {delta:g}")


def _average(prior, noise: ScaledNoise, r, delta, k, rtol):
    """The average reading (no subsampling): scale, value, method."""
    from .reconstruction import reconstruction_advantage

    _refuse_if_no_noise_is_needed(prior, r, delta)
    if k > 1 and noise.name != "gaussian":
        return _average_composed_binary(prior, noise, r, delta, k, rtol)
    scale = smallest_scale(lambda sc: reconstruction_advantage(prior, noise, scale=sc, r=r, releases=k,
                                                       prior_free=False).advantage, delta, _spread(prior), rtol)
    res = reconstruction_advantage(prior, noise, scale=scale, r=r, releases=k, prior_free=False)
    return scale, res.advantage, res.method


def _membership(prior, noise, reading, delta, alpha, beta, k, q, rtol):
    """The advantage and error-rate readings (module docstring): scale, value, method.

    ``noise`` is a :class:`~garesearch.additive.ScaledNoise`, or a
    :class:`~garesearch.accounting.Composition` whose common factor is then the scale.
    """
    from .accounting import Composition, privacy_profile
    from .reconstruction import _diameter

    comp = noise if isinstance(noise, Composition) else None
    if q < 1:
        from .subsampled import _binary

        if noise.name != "gaussian":
            raise ParameterError(f"sampling_prob < 1 is supported for 'gaussian' noise (DP-SGD style); got "
                                 f"{noise.name!r}")
        x0, x1, _, _ = _binary(prior)
        dist = abs(x1 - x0)
        never = math.exp(k * math.log1p(-q))  # probability that the record is never included
    else:
        # the discrete metric (labels): every two values are 1 apart (Sec. 4.1)
        dist = _diameter(prior) if prior.metric == "absolute" else float(len(prior.values) > 1)
        never = 0.0
        if not math.isfinite(dist):
            raise InfeasibleError(
                f"reading={reading!r}: the prior's support is unbounded, so its two furthest values are told apart "
                "with certainty at every scale. Use a prior with bounded support (Categorical, Uniform, "
                "PiecewiseUniform), or reading='average' or 'tail'.")
    if dist <= 0:
        raise InfeasibleError(f"reading={reading!r}: the prior has one value: no noise is needed")
    name = "composition" if comp is not None else noise.name
    accurate = (name == "gaussian" and q == 1) or (name == "laplace" and k <= _laplace_pld.MAX_RELEASES)

    def profile(sc):  # the accountant's coarser (pessimistic, so sound) discretisation where it is used
        return privacy_profile(noise if comp is None else comp, scale=sc, distance=dist, releases=k,
                               sampling_prob=q, discretization=_SEARCH_DISCRETIZATION)

    # a composition's common factor: start where a Gaussian release of the parts' combined scale is 1 apart
    s0 = dist if comp is None else dist * math.sqrt(sum(1.0 / (sc * sc) for _, sc in comp.parts))

    if reading == "advantage":
        sup = 1.0 - never
        if delta >= sup:
            raise InfeasibleError(
                f"no noise is needed: with sampling_prob={q:g} and {k} releases the record is never included with "
                f"probability {never:.6g}, so no test reaches an advantage above {sup:.6g} even without noise, "
                f"which already meets delta = {delta:g}")

        def value(sc):
            return float(profile(sc).dp_delta(0.0))

        scale = smallest_scale(value, delta, s0, rtol if accurate else max(rtol, 1e-6))
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

    exact_curve = (name == "gaussian" and q == 1) or (name == "laplace" and k == 1)

    def fnr(sc):
        # closed form, or exact from the accountant's pessimistic distribution (a lower bound:
        # accountant.tradeoff_from_pld), or pure epsilon-DP's curve (generalised Cauchy)
        return float(profile(sc).tradeoff(alpha))

    scale = smallest_scale(lambda sc: -fnr(sc), -beta, s0, rtol if exact_curve else max(rtol, 1e-6))
    kind = "closed form" if exact_curve else (
        "pure epsilon-DP bound" if name == "gencauchy" else "exact curve of the pessimistic privacy-loss distribution")
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
        The attacker's prior: numeric values, or labels (module docstring: the readings
        defined on labels).
    mechanism : str, mechanism object, Composition or list of (str, float)
        ``"laplace"``, ``"gaussian"``, ``"gencauchy"``, ``"discrete_laplace"``,
        ``"discrete_gaussian"`` or a mechanism object; or different releases
        (:class:`~garesearch.accounting.Composition`), calibrated by a common factor on their
        scales (module docstring).
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
        Relative tolerance of the scale, in [1e-12, 0.01].  With subsampling the accountant's
        (pessimistic) discretisation limits it: the average reading searches at 1e-3 and refines
        the final bracket at 2.5e-4 (within about 1e-7 of the exact scale, above it), the tail
        reading stops at 1e-4.
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
    >>> two = calibrate(Categorical({0: 0.5, 1: 0.5}), [("gaussian", 3.0), ("gaussian", 4.0)], r=0, delta=0.1,
    ...                 reading="advantage")
    >>> round(two.scale * 2.4, 6)  # one Gaussian release of scale (1/9 + 1/16)^(-1/2) = 2.4 times the factor
    3.978948
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
    comp = as_composition(mechanism)
    noise = resolve(mechanism) if comp is None else None
    k = int(releases)
    if not (isinstance(sampling_prob, (int, float, np.integer, np.floating)) and 0 < sampling_prob <= 1):
        raise ParameterError(f"sampling_prob must lie in (0, 1]; got {sampling_prob!r}")
    q = float(sampling_prob)
    _check_labels(prior, reading, noise, comp)
    if comp is not None:
        return _calibrate_composition(prior, comp, float(r), None if delta is None else float(delta), reading,
                                      beta, k, sides, rtol, q, None if alpha is None else float(alpha))
    if noise.discrete and not (isinstance(prior, Categorical) and prior.metric == "absolute"
                               and np.all(prior.points == np.round(prior.points))):
        raise ParameterError(f"prior: {noise.name} noise needs a Categorical prior on integers")
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

        scale = smallest_scale(metric, float(beta), _spread(prior), rtol)
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
        expected_error=_expected_error(noise.name, scale),
    )


def _expected_error(name: str, scale: float) -> float:
    from .release import expected_abs_error

    return expected_abs_error(name, float(scale))


def _check_labels(prior, reading, noise, comp) -> None:
    """A prior of labels (the discrete metric, Sec. 4.1) has no numeric value to add noise to: the
    readings defined there are the worst case of pure-DP noise (through the optimal epsilon) and
    the tests between two labels (``"advantage"``, ``"error_rates"``: any two are 1 apart)."""
    if prior.metric == "absolute":
        return
    if reading in ("advantage", "error_rates"):
        return
    pure = all(math.isfinite(resolve(n).pure_epsilon(1.0)) for n, _ in comp.parts) if comp is not None else (
        math.isfinite(noise.pure_epsilon(1.0)))
    if reading == "worst" and pure:
        return
    raise ParameterError(
        f"prior: its values are labels ({', '.join(map(repr, prior.values[:3]))}"
        f"{', ...' if len(prior.values) > 3 else ''}), but reading={reading!r} with additive noise needs numeric "
        "values (a Categorical with numeric keys, or a continuous prior). On labels (any two 1 apart) calibrate "
        "reads reading='worst' of pure epsilon-DP noise (laplace, gencauchy: through the optimal epsilon) and "
        "reading='advantage' or 'error_rates' (a test between two labels).")


def _calibrate_composition(prior, comp, r, delta, reading, beta, k, sides, rtol, q, alpha) -> CalibrationResult:
    """:func:`calibrate` for a list of releases: the common factor on the listed scales."""
    from .tail import advantage_tail

    if q < 1:
        raise ParameterError("sampling_prob: a list of releases is calibrated without subsampling "
                             "(sampling_prob = 1); subsample one mechanism instead")
    eps_unit = [resolve(n).pure_epsilon(sc) for n, sc in comp.parts]  # pure epsilon at factor 1

    def finish(c, value, t, method, mu=None):
        parts = tuple((n, c * sc) for n, sc in comp.parts)
        total = k * sum(resolve(n).pure_epsilon(sc) for n, sc in parts)
        return CalibrationResult(
            scale=float(c), value=float(value), reading=reading, mechanism=comp.label, delta=delta,
            beta=None if beta is None else float(beta), releases=k, r=r, t=None if t is None else float(t),
            epsilon=total, mu=mu, rho=None if mu is None else mu * mu / 2, method=method, _noise=comp,
            sampling_prob=q, alpha=alpha, parts=parts,
            expected_error=tuple(_expected_error(n, sc) for n, sc in parts))

    if comp.all_gaussian:
        # the precision-weighted mean of the releases is sufficient: one release of the equivalent scale
        s_eq = comp.gaussian_scale
        one = calibrate(prior, "gaussian", r=r, delta=delta, reading=reading, beta=beta, releases=k, sides=sides,
                        rtol=rtol, alpha=alpha)
        c = one.scale / s_eq
        while c * s_eq < one.scale:  # never below the calibrated scale by a rounding
            c = math.nextafter(c, math.inf)
        return finish(c, one.value, one.t, one.method + f"; the releases are one Gaussian release of scale "
                      f"(sum 1/s_i^2)^(-1/2) = {s_eq:g} times the factor", mu=math.sqrt(k) / (c * s_eq))
    if reading == "worst":
        if not all(math.isfinite(e) for e in eps_unit):
            raise InfeasibleError(
                f"reading='worst' with the releases {comp.label}: a Gaussian release is not epsilon-DP, and on rare "
                f"outputs its posterior leaves [p - {delta}, p + {delta}] whatever the scale. Use reading='tail', "
                "'average', 'advantage' or 'error_rates', or pure epsilon-DP parts (laplace, gencauchy).")
        eps, method = _any_dp_worst_epsilon(prior, r, delta, sides)
        if not math.isfinite(eps):
            raise InfeasibleError("reading='worst': delta is met without noise")
        # at factor c the releases are (k/c) sum_i eps_i-DP together: at most the optimal epsilon
        c = k * math.fsum(eps_unit) / eps
        while k * math.fsum(resolve(n).pure_epsilon(c * sc) for n, sc in comp.parts) > eps:
            c = math.nextafter(c, math.inf)
        return finish(c, delta, None, method + f"; {k} x ({comp.label}) is (k sum_i eps_i)-DP at most the optimum")
    if reading in ("advantage", "error_rates"):
        c, value, method = _membership(prior, comp, reading, delta, alpha, None if beta is None else float(beta),
                                       k, q, rtol)
        return finish(c, value, None, method)
    if reading == "tail":
        advantage_tail(prior, comp, scale=1.0, r=r, delta=delta, releases=k, sides=sides)  # says what it supports
        raise ParameterError(f"mechanism: the tail reading of {comp.label} is not computed")  # pragma: no cover
    _refuse_if_no_noise_is_needed(prior, r, delta)

    c, value, method = _average_composed_binary(prior, comp, r, delta, k, rtol)
    return finish(c, value, None, method)
